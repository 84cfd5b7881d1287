"""Failures of every kind are one line with the game seed, and never lose finished games.

Found by a fresh-user review: each test here pins one class of fault it reported.
"""

import json

import pandas as pd
import pytest

from analyser import run as runmod
from analyser.cli import cli
from analyser.engine.core import StrategyError
from analyser.engine.runner import GameFailure, game_seed

BOTS = '''
import sys
from analyser.engine.core import Strategy
from analyser.titles.dao.rules import TAKE, REVEAL, Card


class Picky(Strategy):
    """Fails in the games whose first front card it sees is a metal 0 (depends on the deal only)."""
    name = "picky"
    uses_rng = False
    def reset(self, seat, params, n_players):
        self.first = True
    def choose(self, view, legal, rng):
        if self.first and view.display[0] == Card(0, 0):
            raise RuntimeError("metal zero")
        self.first = False
        return REVEAL if view.total < 9 else TAKE


class InitLater(Strategy):
    """Its constructor fails once three games have started (counted in reset)."""
    name = "initlater"
    games = 0
    def __init__(self):
        if type(self).games >= 3:
            raise OSError("out of coffee")
    def reset(self, seat, params, n_players):
        type(self).games += 1
    def choose(self, view, legal, rng):
        return TAKE


class InitBoom(Strategy):
    name = "initboom"
    def __init__(self):
        raise KeyError("nope")
    def choose(self, view, legal, rng):
        return TAKE


class Mutator(Strategy):
    """Empties the display it was shown: the rules then fail."""
    name = "mutator"
    def choose(self, view, legal, rng):
        view.display.clear()
        return TAKE


class LookAlike(Strategy):
    """Returns an object that compares equal to TAKE but is not TAKE."""
    name = "lookalike"
    def choose(self, view, legal, rng):
        class Fake:
            def __eq__(self, other):
                return other is TAKE
            __hash__ = object.__hash__
        return Fake()


class Quitter(Strategy):
    name = "quitter"
    def choose(self, view, legal, rng):
        sys.exit(5)


STRATEGIES = [Picky, InitLater, InitBoom, Mutator, LookAlike, Quitter]
'''


@pytest.fixture
def bots(tmp_path):
    p = tmp_path / "bots.py"
    p.write_text(BOTS)
    return str(p)


def run(**kw):
    spec = runmod.RunSpec(**{"game": "dao", "games": 60, "seed": 3, "jobs": 1, "players": 2, **kw})
    return runmod.run(spec, progress=False)


def test_failure_reported_is_the_earliest_game_and_keeps_earlier_games_for_any_jobs(bots):
    one = run(strategies=[f"{bots}:picky", "greedy"], jobs=1, batch_size=4)
    two = run(strategies=[f"{bots}:picky", "greedy"], jobs=2, batch_size=4)
    assert isinstance(one.error, StrategyError) and "metal zero" in str(one.error)
    assert one.error.game_index == two.error.game_index
    k = one.error.game_index
    assert set(one.results["game_index"]) == set(range(k))
    assert set(range(k)) <= set(two.results["game_index"])  # nothing before the failure is lost
    assert one.error.game_seed == game_seed(3, k)


def test_strategy_failing_to_start_mid_run_is_a_strategy_failure(bots):
    res = run(strategies=[f"{bots}:initlater", "greedy"], games=20)
    assert isinstance(res.error, StrategyError) and res.error.kind == "init"
    assert "failed to start: OSError: out of coffee" in str(res.error)
    assert res.results["game_index"].nunique() == 3


def test_rules_failing_after_a_strategy_changed_its_view_is_reported_with_seed(bots):
    res = run(strategies=[f"{bots}:mutator", "greedy"], games=5)
    assert isinstance(res.error, GameFailure)
    assert "changes its view" in str(res.error) and res.error.game_seed == game_seed(3, 0)


def test_look_alike_action_is_replaced_by_the_legal_one(bots):
    res = run(strategies=[f"{bots}:lookalike", "greedy"], games=5)
    assert res.error is None and res.results["game_index"].nunique() == 5


def test_system_exit_in_a_strategy_is_a_strategy_failure(bots):
    res = run(strategies=[f"{bots}:quitter", "greedy"], games=5)
    assert isinstance(res.error, StrategyError) and "SystemExit" in str(res.error)


def invoke(runner, *args):
    return runner.invoke(cli, list(args), catch_exceptions=False)


def one_line(result, code, *needles):
    assert result.exit_code == code, result.output
    errors = [x for x in result.output.splitlines() if x.startswith("analyser: error:")]
    assert len(errors) == 1 and "Traceback" not in result.output, result.output
    for n in needles:
        assert n in errors[0], errors[0]
    return errors[0]


def test_cli_failures_exit_1_on_one_line(runner, tmp_path):
    bots = tmp_path / "cli_bots.py"  # a file of its own: InitLater counts constructions per module
    bots.write_text(BOTS)
    for name, needle in (("mutator", "the rules failed"), ("quitter", "SystemExit"), ("initlater", "failed to start")):
        r = invoke(runner, "simulate", "dao", "-s", f"{bots}:{name}", "-s", "greedy", "--games", "20", "-j", "1",
                   "--out", str(tmp_path / name), "-q")
        one_line(r, 1, needle, "game seed")


@pytest.mark.parametrize("args, needle", [
    (["--rule", "bust_limit=99999999999999999999999"], "bust_limit"),
    (["--rule", "values=1x100000000"], "values="),
    (["--rule", "values=0x1,1000000000x1"], "values="),
    (["--games", "100000000000000"], "--games 100000000000000"),
    (["--jobs", "1000"], "--jobs 1000"),
    (["--game-timeout", "inf"], "--game-timeout inf"),
    (["--game-timeout", "nan"], "--game-timeout nan"),
    (["--game-timeout", "-1"], "--game-timeout -1"),
    (["--rule", "tie_break=shared", "--rule", "tie_break=most_cards"], "given twice"),
    (["--players", "2", "--rule", "values=1x1", "--rule", "colours=4"], "halves"),
    (["--out", ""], "--out ''"),
])
def test_out_of_range_input_is_rejected_up_front(runner, args, needle):
    one_line(invoke(runner, "simulate", "dao", "-s", "greedy", *args), 2, needle)


def test_strategy_errors_at_start_are_exit_2(runner, bots, tmp_path):
    one_line(invoke(runner, "simulate", "dao", "-s", f"{bots}:initboom"), 2, "failed to start: KeyError")
    one_line(invoke(runner, "play", "dao", "-s", "greedy", "-s", f"{bots}:initboom", "--seed", "1"), 2, "initboom")
    exits = tmp_path / "exits.py"
    exits.write_text("import sys\nsys.exit(3)\n")
    one_line(invoke(runner, "simulate", "dao", "-s", f"{exits}:x"), 2, "failed to import: SystemExit")
    one_line(invoke(runner, "simulate", "dao", "-s", f"{bots}:picky:zzz=1"), 2, "unknown parameter 'zzz' for strategy 'picky'")
    one_line(invoke(runner, "simulate", "dao", "-s", "x.sh:x"), 2, "'x.sh'", ".py")
    one_line(invoke(runner, "bench", "dao", "-n", "5", "--seed", "-1"), 2, "--seed -1")


def test_out_folder_of_an_earlier_run_is_replaced_and_other_folders_refused(runner, tmp_path):
    out = tmp_path / "run"
    assert invoke(runner, "simulate", "dao", "-s", "greedy", "-s", "random", "-n", "10", "-j", "1", "--csv",
                  "--out", str(out), "-q").exit_code == 0
    assert (out / "results.csv").exists() and (out / "index.html").exists()
    assert (out / "components.csv").exists() and (out / "component_counts.csv").exists()
    assert invoke(runner, "simulate", "dao", "-s", "threshold", "-s", "colour", "-n", "10", "-j", "1",
                  "--no-report", "--out", str(out), "-q").exit_code == 0
    assert not (out / "results.csv").exists() and not (out / "index.html").exists()
    assert not (out / "win_rate.png").exists()
    # the earlier run's component estimate and table export go with it
    assert not (out / "components.csv").exists() and not (out / "component_counts.csv").exists()
    assert set(pd.read_parquet(out / "results")["strategy"]) == {"threshold", "colour"}
    assert json.loads((out / "config.json").read_text())["files"] == ["component_counts", "config.json", "results"]
    foreign = tmp_path / "photos"
    foreign.mkdir()
    (foreign / "cat.png").write_bytes(b"x")
    one_line(invoke(runner, "simulate", "dao", "-s", "greedy", "-n", "5", "--out", str(foreign)), 2,
             "is not empty")
    assert (foreign / "cat.png").exists()


def test_replay_command_is_shell_quoted(runner, bots, tmp_path):
    r = invoke(runner, "simulate", "dao", "-s", f"{bots}:picky", "-s", "greedy", "-n", "60", "-j", "1",
               "--rule", "values=0x1, 1x4,2x3,3x3,4x1", "--seed", "3", "--out", str(tmp_path / "q"), "-q")
    line = one_line(r, 1, "Replay: ")
    assert "--rule 'values=0x1, 1x4,2x3,3x3,4x1'" in line


def test_play_state_is_validated(runner, tmp_path):
    r = invoke(runner, "play", "dao", "-s", "greedy", "-s", "random", "--seed", "2", "--json")
    step = json.loads(r.output.splitlines()[3])
    cases = {}
    cases["array"] = [1, 2]
    bad_current = json.loads(json.dumps(step))
    bad_current["state"]["current"] = 5
    cases["current"] = bad_current
    bad_card = json.loads(json.dumps(step))
    bad_card["state"]["display"][0] = [9, 1]
    cases["colour9"] = bad_card
    empty = json.loads(json.dumps(step))
    empty["state"]["display"] = []
    cases["empty"] = empty
    for name, data in cases.items():
        p = tmp_path / f"{name}.json"
        p.write_text(json.dumps(data))
        one_line(invoke(runner, "play", "dao", "-s", "greedy", "-s", "random", "--state", str(p)), 2, "--state")
    one_line(invoke(runner, "play", "dao", "-s", "greedy", "--state", str(tmp_path)), 2, "--state")
    trace = tmp_path / "trace.jsonl"
    trace.write_text(r.output)
    one_line(invoke(runner, "play", "dao", "-s", "greedy", "-s", "random", "--state", str(trace)), 2, "JSON lines")
    good = tmp_path / "good.json"
    good.write_text(json.dumps(step))
    one_line(invoke(runner, "play", "dao", "-s", "greedy", "--rule", "bust_limit=9", "--state", str(good)), 2,
             "come from the saved --state")


def test_report_on_runs_joined_by_hand(runner, tmp_path):
    for seed in (1, 2):
        invoke(runner, "simulate", "dao", "-s", "greedy", "-s", "random", "-n", "30", "-j", "1", "--seed",
               str(seed), "--out", str(tmp_path / f"r{seed}"), "--no-report", "-q")
    joined = pd.concat([pd.read_parquet(tmp_path / f"r{s}" / "results") for s in (1, 2)])
    (tmp_path / "joined").mkdir()
    joined.to_parquet(tmp_path / "joined" / "results.parquet")
    (tmp_path / "joined" / "notes.parquet").write_bytes(b"not parquet")  # ignored: not a known table
    r = invoke(runner, "report", str(tmp_path / "joined" / "results.parquet"), "--out", str(tmp_path / "rep"))
    assert r.exit_code == 0, r.output
    assert "Games 60;" in r.output
    three = pd.read_parquet(tmp_path / "r1" / "results").assign(players=3)
    mixed = pd.concat([joined, three])
    mixed.to_csv(tmp_path / "mixed.csv", index=False)
    one_line(invoke(runner, "report", str(tmp_path / "mixed.csv"), "--out", str(tmp_path / "m")), 2,
             "mixes player counts")


def test_report_tells_mirror_matches_and_judges_seat_balance(runner, tmp_path):
    r = invoke(runner, "simulate", "dao", "-s", "greedy", "-n", "40", "-j", "1", "--seed", "1",
               "--out", str(tmp_path / "m"))
    assert "Mirror match: greedy fills every seat" in r.output
    assert "Seat balance: " in r.output
    html = (tmp_path / "m" / "index.html").read_text()
    assert "Mirror match:" in html and "Seat balance:" in html


# -- component data files (Tsuro of the Seas): found by a fresh-user review -------------------

def test_tsuro_tile_files_are_checked_up_front(runner, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "three.csv").write_text("copies,pairs\n3,01 25 37 46\n")
    one_line(invoke(runner, "simulate", "tsuro-seas", "-s", "random", "-n", "4", "--rule", "tiles=three.csv"), 2,
             "4 players need at least 12")
    assert not (tmp_path / "reports").exists()  # nothing half-written
    (tmp_path / "binary.csv").write_bytes(b"\xff\xfe\x00c\x00o")
    one_line(invoke(runner, "simulate", "tsuro-seas", "-s", "random", "--rule", "tiles=binary.csv"), 2, "not UTF-8")
    (tmp_path / "dupe.csv").write_text("copies,pairs\n30,01 25 37 46\n30,23 47 15 06\n")  # the same tile turned a quarter
    one_line(invoke(runner, "simulate", "tsuro-seas", "-s", "random", "--rule", "tiles=dupe.csv"), 2, "line 2 already")
    (tmp_path / "many.csv").write_text("copies,pairs\n99999999,01 25 37 46\n")
    one_line(invoke(runner, "simulate", "tsuro-seas", "-s", "random", "--rule", "tiles=many.csv"), 2, "0 to 100")


def test_tsuro_data_files_are_recorded_with_absolute_path_and_hash(runner, tmp_path, monkeypatch):
    import hashlib
    from analyser.titles.tsuro_seas.rules import DATA
    monkeypatch.chdir(tmp_path)
    text = (DATA / "tsuro_tiles.csv").read_text()
    (tmp_path / "mine.csv").write_text("\ufeff" + text)  # with a byte-order mark, as Excel saves it
    r = invoke(runner, "simulate", "tsuro-seas", "-s", "random", "-s", "survivor", "-n", "6", "-j", "1",
               "--rule", "tiles=mine.csv", "--out", "run", "-q")
    assert r.exit_code == 0, r.output
    cfg = json.loads((tmp_path / "run" / "config.json").read_text())
    rec = cfg["data_files"]["tiles"]
    assert rec["path"] == str(tmp_path / "mine.csv")
    assert rec["sha256"] == hashlib.sha256((tmp_path / "mine.csv").read_bytes()).hexdigest()
    assert cfg["data_files"]["daikaiju_layout"]["path"].endswith("tsuro_daikaiju.csv")
    assert set(pd.read_parquet(tmp_path / "run" / "results")["tiles"]) == {str(tmp_path / "mine.csv")}
    assert "sha256 " + rec["sha256"] in (tmp_path / "run" / "index.html").read_text()


def test_tsuro_bad_saved_state_is_one_line(runner, tmp_path):
    r = invoke(runner, "play", "tsuro-seas", "-s", "random", "-s", "random", "--seed", "2", "--json")
    step = json.loads(r.output.splitlines()[5])
    bad = json.loads(json.dumps(step))
    bad["state"]["current"] = 7
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(bad))
    one_line(invoke(runner, "play", "tsuro-seas", "-s", "random", "--state", str(p)), 2, "--state")
