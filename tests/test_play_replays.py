"""`analyser play` and the commands that replay a game (issue 22): the same --game-timeout and
the same default lineup as simulate, a seed bounded like every seed option, and a trace that
names the tie-break that decided a win."""

import json
import re
import shlex
import subprocess
import sys

import pytest

from analyser.cli import cli
from analyser.engine.core import GAME_TIMEOUT

SLEEPER = '''
import time
from analyser.engine.core import Strategy


class Sleepy(Strategy):
    name = "sleepy"

    def choose(self, view, legal, rng):
        while True:
            time.sleep(0.05)


class Stubborn(Strategy):
    """Swallows the time limit's alarm, and sleeps on."""
    name = "stubborn"

    def choose(self, view, legal, rng):
        for _ in range(1000):
            try:
                time.sleep(0.05)
            except BaseException:
                pass
        return legal[0]
'''


@pytest.fixture
def sleeper(tmp_path):
    path = tmp_path / "sleeper.py"
    path.write_text(SLEEPER)
    return str(path)


#: A seat's entry in the final scores: seat, strategy, score.
SEAT_SCORE = re.compile(r"seat (\d) \((\w+)\) (-?\d+)")


def numbers(text: str) -> list[float]:
    """The numbers of a line, in order."""
    return [float(x) for x in re.findall(r"-?\d+(?:\.\d+)?", text)]


def test_the_replay_of_a_hung_game_carries_the_time_limit_and_stops_there(runner, tmp_path, sleeper):
    out = tmp_path / "run"
    r = runner.invoke(cli, ["simulate", "dao", "-s", f"{sleeper}:sleepy", "-s", "greedy", "--games", "2", "--jobs",
                            "1", "--seed", "3", "--game-timeout", "0.2", "-q", "--out", str(out)])
    assert r.exit_code == 1
    line = r.output.strip().splitlines()[-1]
    assert "did not answer in time (game 0, game seed " in line and "; --game-timeout 0.2 s)" in line
    replay = line.split("Replay: ")[1].split(" (or: ")[0]
    words = shlex.split(replay)
    assert words[:3] == ["analyser", "play", "dao"] and words[-2:] == ["--game-timeout", "0.2"]
    r = runner.invoke(cli, words[1:])
    assert r.exit_code == 1
    assert r.output.strip().splitlines()[-1].startswith(f"analyser: error: strategy '{sleeper}:sleepy' in seat 0 "
                                                        "did not answer in time (--game-timeout 0.2 s; game seed ")
    # replaying from the run folder takes the run's limit
    r = runner.invoke(cli, ["play", "--from", str(out), "--game-index", "0"])
    assert r.exit_code == 1 and "(--game-timeout 0.2 s; game seed" in r.output


def test_play_stops_a_strategy_that_swallows_the_alarm(sleeper):
    """The alarm cannot stop it, so the process ends a grace second later, with one line (a
    subprocess: the process itself is stopped)."""
    r = subprocess.run([sys.executable, "-m", "analyser", "play", "dao", "-s", f"{sleeper}:stubborn", "--seed", "1",
                        "--game-timeout", "0.3"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 1 and r.stderr.strip().splitlines()[-1] == (
        "analyser: error: the game ran past its time limit of 0.3 s (--game-timeout) and a strategy ignored the "
        "stop (game seed 1); the process was stopped")


def test_play_has_the_same_time_limit_option_as_simulate(runner):
    for command in ("play", "simulate"):
        text = runner.invoke(cli, [command, "--help"]).output
        flat = " ".join(text.split())  # (click wraps the help where it likes)
        assert "--game-timeout FLOAT" in text and f"[default: {GAME_TIMEOUT:g}" in flat and "0 = no limit" in flat
    r = runner.invoke(cli, ["play", "dao", "-s", "greedy", "--game-timeout", "-1"])
    assert r.exit_code == 2 and "--game-timeout -1 " in r.output and len(r.output.strip().splitlines()) == 1


def test_play_without_strategies_uses_the_built_in_lineup_as_simulate_does(runner, tmp_path):
    from analyser.engine.registry import default_lineup

    r = runner.invoke(cli, ["play", "wizard", "--seed", "4", "--json"])
    assert r.exit_code == 0, r.output
    final = json.loads(r.stdout.strip().splitlines()[-1])
    lineup = default_lineup("wizard")[:4]
    assert final["lineup"] == lineup
    assert f" {', '.join(lineup)} (see" in r.stderr.splitlines()[0]  # the note names the lineup it plays
    r = runner.invoke(cli, ["simulate", "wizard", "--games", "4", "--jobs", "1", "--seed", "4", "--no-report",
                            "--out", str(tmp_path / "o")])
    config = json.loads((tmp_path / "o" / "config.json").read_text())
    assert config["strategies"] == lineup
    r = runner.invoke(cli, ["play", "dao", "--players", "2", "--seed", "4"])
    assert r.exit_code == 0 and f"seat 0 {default_lineup('dao')[0]}, seat 1 {default_lineup('dao')[1]}" in r.output


def test_a_win_by_tie_break_names_the_rule_that_decided(runner):
    """DAO, game seed 1: seats 0 and 2 tie on 3 points; seat 2 took more cards."""
    r = runner.invoke(cli, ["play", "dao", "-s", "greedy", "-s", "random", "--seed", "1"])
    assert r.exit_code == 0
    scores = next(x for x in r.output.splitlines() if x.startswith("Final scores:"))
    assert SEAT_SCORE.findall(scores) == [("0", "greedy", "3"), ("1", "random", "1"),
                                                                  ("2", "greedy", "3"), ("3", "random", "-5")]
    last = r.output.strip().splitlines()[-1]
    assert last.split(",")[0].split(": ") == ["Winner", "seat 2 (greedy)"] and "(rule tie_break=most_cards)" in last
    assert numbers(last) == [2, 3, 0, 5, 2, 6]  # the winner, the tied score, each tied seat's cards
    r = runner.invoke(cli, ["play", "dao", "-s", "greedy", "-s", "random", "--seed", "1", "--json"])
    decided = json.loads(r.output.strip().splitlines()[-1])["decided_by"]
    assert "tie_break=most_cards" in decided and numbers(decided)[0] == 3
    # under tie_break=shared the same scores share the win, and nothing is said
    r = runner.invoke(cli, ["play", "dao", "-s", "greedy", "-s", "random", "--seed", "1", "-r", "tie_break=shared"])
    last = r.output.strip().splitlines()[-1]
    assert last.startswith("Shared win:") and re.findall(r"seat (\d)", last) == ["0", "2"] and "tie" not in last


def test_the_generic_tie_break_reason_names_the_rule_option():
    from analyser.engine.registry import get_game

    g = get_game("kingdomino-duel")
    state = g.initial_state(g.Params(), 2, __import__("random").Random(1))
    assert g.tie_break_reason(state, [7, 7], [0, 1]) == ""
    assert g.tie_break_reason(state, [7, 3], [0]) == ""
    text = g.tie_break_reason(state, [7, 7], [1])
    assert numbers(text.split(";")[0]) == [0, 1, 7] and "rule tie_break=any_domain (" in text


@pytest.mark.parametrize("args, message", [
    (["play", "dao", "-s", "greedy", "--seed", str(2 ** 64)],
     f"--seed {2 ** 64} is not accepted; give a whole number from 0 to {2 ** 64 - 1} (a game seed"),
    (["play", "dao", "-s", "greedy", "--seed", "-1"], "--seed -1 is not accepted; give a whole number from 0 to"),
    (["check", "dao", "--seed", "-1"], f"--seed -1 is not accepted; give a whole number from 0 to {2 ** 63 - 1} "
                                       "(a root seed)"),
    (["check", "dao", "--game-seed", str(2 ** 64)], f"--game-seed {2 ** 64} is not accepted"),
    (["simulate", "dao", "--seed", str(2 ** 63)], f"--seed {2 ** 63} is not accepted"),
    (["sweep", "dao", "-s", "greedy", "--seed", "-2"], "--seed -2 is not accepted"),
    (["tournament", "dao", "-s", "greedy", "-s", "random", "--seed", str(2 ** 63)], "is not accepted"),
    (["compare", "dao", "-s", "greedy", "--a", "bust_limit=10", "--seed", "-5"], "--seed -5 is not accepted"),
    (["bench", "dao", "--seed", "-5"], "--seed -5 is not accepted"),
])
def test_every_seed_option_is_bounded_in_one_line(runner, args, message):
    r = runner.invoke(cli, args)
    assert r.exit_code == 2 and message in r.output and len(r.output.strip().splitlines()) == 1, r.output


def test_the_largest_game_seed_plays(runner):
    r = runner.invoke(cli, ["play", "dao", "-s", "greedy", "--seed", str(2 ** 64 - 1)])
    assert r.exit_code == 0 and f"game seed {2 ** 64 - 1}:" in r.output


def _reproduce_line(folder) -> str:
    import html
    import re
    page = (folder / "index.html").read_text()
    return html.unescape(re.search(r"<h2[^>]*>Reproduce</h2>\s*<pre>(.*?)</pre>", page, re.S).group(1))


def test_the_reports_reproduce_command_is_complete_and_plays_the_same_games(runner, tmp_path):
    """A run with a fresh seed and the default lineup: the report's command names the seed, the
    lineup, the player count and --games, and running it gives the same results."""
    import pandas as pd
    r = runner.invoke(cli, ["simulate", "dao", "--games", "8", "--jobs", "1", "-q", "--rule", "bust_limit=10",
                            "--out", str(tmp_path / "a")])
    assert r.exit_code == 0
    config = json.loads((tmp_path / "a" / "config.json").read_text())
    line = _reproduce_line(tmp_path / "a")
    assert shlex.split(line) == ["analyser", "simulate", "dao", "-s", "greedy", "-s", "threshold", "-s", "colour", "-s",
                                 "random", "--players", "4", "--games", "8", "--seed", str(config["seed"]), "--rule",
                                 "bust_limit=10"]
    assert "as typed" in (tmp_path / "a" / "index.html").read_text()
    r = runner.invoke(cli, shlex.split(line)[1:] + ["--jobs", "1", "-q", "--no-report", "--out", str(tmp_path / "b")])
    assert r.exit_code == 0
    cols = ["game_seed", "seat", "strategy", "score", "win"]
    a, b = (pd.read_parquet(tmp_path / x / "results")[cols] for x in ("a", "b"))
    pd.testing.assert_frame_equal(a, b)


@pytest.mark.parametrize("config, expected", [
    ({"kind": "sweep", "game": "dao", "seed": 5, "strategies": ["threshold:limit=6,9", "greedy"], "players": 4,
      "games_requested": 8, "rules": ["bust_limit=10,12"], "stopping": {"until_ci": 0.05}},
     "analyser sweep dao -s threshold:limit=6,9 -s greedy --players 4 --games 8 --seed 5 --rule bust_limit=10,12 "
     "--until-ci 0.05"),
    ({"kind": "tournament", "game": "dao", "seed": 5, "strategies": ["greedy", "threshold:limit=9"], "players": 2,
      "games_requested": 40, "rules": {"tie_break": "shared"}, "bootstrap": 20, "game_timeout": 5.0},
     "analyser tournament dao -s greedy -s threshold:limit=9 --players 2 --games 40 --seed 5 --rule tie_break=shared "
     "--bootstrap 20 --game-timeout 5"),
    ({"kind": "compare", "game": "dao", "seed": 5, "games": 100, "a": {"strategies": ["greedy"], "players": 4,
      "rule_overrides": {"bust_limit": "10"}}, "b": {"strategies": ["greedy"], "players": 4, "rule_overrides": {}}},
     "analyser compare dao --a-strategy greedy --a bust_limit=10 --b-strategy greedy --players 4 --games 100 "
     "--seed 5"),
    ({"kind": "compare", "game": "dao", "seed": 5, "a": {"source": "runs/one"}, "b": {"source": "runs/two two"}},
     "analyser compare runs/one 'runs/two two'"),
    ({"seed": "unknown", "strategies": ["greedy"]}, None),
])
def test_reproduce_commands_of_every_kind(config, expected):
    from analyser.run.reproduce import reproduce_command
    assert reproduce_command(config) == expected


def test_the_dao_trace_names_the_card_that_ends_the_game_and_counts_cards_in_the_singular(runner):
    from analyser.engine.registry import get_game
    from analyser.titles.dao import render

    r = runner.invoke(cli, ["play", "dao", "-s", "greedy", "-s", "threshold", "--seed", "1", "--json"])
    assert r.exit_code == 0, r.output
    records = [json.loads(line) for line in r.output.strip().splitlines()]
    last_step = [rec for rec in records if "step" in rec][-1]
    game = get_game("dao")
    before = game.state_from_dict(last_step["state"])
    assert before.deck and not records[-1]["final"]["deck"]         # the last step emptied the deck
    ending = [e for e in last_step["events"] if e.startswith("game over")]
    assert len(ending) == 1 and str(before.deck[0]) in ending[0]    # the card is named
    state = game.state_from_dict(records[-1]["final"])
    state.piles[0] = state.piles[0][:1]
    line = render.describe_state(game, state).splitlines()[1]
    assert line.split(",")[0].split(": ") == ["  seat 0", "1 card"]  # not "1 cards"
