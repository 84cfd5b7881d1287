"""Titles from outside the package: a title file ``my_game.py:MyGame`` runs like a built-in, also
with two workers; its strategies live in the same file or in their own file, naming the title
by id (issue 11)."""

import json
import subprocess
import sys
import textwrap

import pandas as pd
import pytest

from analyser.cli import cli
from analyser.engine.core import InputError
from analyser.engine.registry import available_strategies, get_game, load_title_file, make_strategy

#: A tiny complete title: players add 1, 2 or 3 to a shared total; whoever brings it to the target
#: wins.  With strategies in the same file.
RACE = textwrap.dedent('''
    from dataclasses import dataclass

    from analyser.engine.core import Game, Params, Strategy, option


    @dataclass(frozen=True)
    class RaceParams(Params):
        """Rule options of the race."""
        target: int = option(21, "the total that wins", low=1, high=1000)


    class Race(Game):
        """Players add 1, 2 or 3 to a shared total in turn; reaching the target wins."""
        id = "race"
        name = "Race to 21"
        min_players = 2
        max_players = 4
        default_players = 2
        Params = RaceParams
        metric_columns = ("turns",)

        def initial_state(self, params, n_players, rng):
            return {"target": params.target, "n": n_players, "total": 0, "current": 0, "turns": 0,
                    "winner": None}

        def current_player(self, s):
            return s["current"]

        def legal_actions(self, s):
            return () if s["winner"] is not None else (1, 2, 3)

        def apply(self, s, action, rng):
            s["total"] += action
            s["turns"] += 1
            if s["total"] >= s["target"]:
                s["winner"] = s["current"]
            else:
                s["current"] = (s["current"] + 1) % s["n"]

        def is_terminal(self, s):
            return s["winner"] is not None

        def scores(self, s):
            return [1 if i == s["winner"] else 0 for i in range(s["n"])]

        def view(self, s, seat):
            return dict(s)

        def metrics(self, s):
            return [{"turns": s["turns"]} for _ in range(s["n"])]

        def clone_state(self, s):
            return dict(s)

        def state_to_dict(self, s):
            return dict(s, game=self.id)

        def state_from_dict(self, d):
            return {k: v for k, v in d.items() if k != "game"}

        def action_to_json(self, a):
            return a

        def action_from_json(self, d):
            return int(d)


    class Big(Strategy):
        """Always adds 3."""
        name = "big"
        game = "race"

        def choose(self, view, legal, rng):
            return 3


    class Chance(Strategy):
        """A uniformly random legal addition."""
        name = "random"
        game = "race"

        def choose(self, view, legal, rng):
            return rng.choice(legal)


    class Sharp(Strategy):
        """Leaves the total at target - 4k when it can (the winning line)."""
        name = "sharp"
        game = "race"

        def choose(self, view, legal, rng):
            need = (view["target"] - view["total"]) % 4
            return need if need in legal else 1
''')


@pytest.fixture
def race(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "my_game.py").write_text(RACE)
    return tmp_path


def invoke(runner, *args):
    return runner.invoke(cli, list(args), catch_exceptions=False)


def test_a_title_file_runs_with_two_workers_and_its_own_strategies(runner, race):
    r = invoke(runner, "simulate", "./my_game.py:Race", "-s", "sharp", "-s", "random", "--games", "40", "--jobs", "2",
               "--batch-size", "5", "--seed", "1", "--out", "out", "--no-report")
    assert r.exit_code == 0, r.output
    config = json.loads((race / "out" / "config.json").read_text())
    assert config["jobs"] == 2 and config["game"] == "race"
    assert config["title_source"] == f"{race / 'my_game.py'}:Race"
    df = pd.read_parquet(race / "out" / "results")
    assert df["game_index"].nunique() == 40 and set(df["game"]) == {"race"}
    # the winning line wins every game it starts and every game the random side slips
    wins = df.groupby("strategy", observed=True)["win"].sum()
    assert wins["sharp"] > 30 and wins["sharp"] + wins["random"] == 40
    # the same run in one process gives the same rows
    r = invoke(runner, "simulate", "./my_game.py:Race", "-s", "sharp", "-s", "random", "--games", "40", "--jobs", "1",
               "--seed", "1", "--out", "out1", "--no-report")
    assert r.exit_code == 0, r.output
    one = pd.read_parquet(race / "out1" / "results")
    pd.testing.assert_frame_equal(df.drop(columns="run_id").sort_values(["game_index", "seat"]).reset_index(drop=True),
                                  one.drop(columns="run_id").sort_values(["game_index", "seat"]).reset_index(drop=True))


def test_a_strategy_in_its_own_file_names_the_file_title_by_id(runner, race):
    (race / "bots.py").write_text(textwrap.dedent('''
        from analyser.engine.core import Strategy


        class Small(Strategy):
            """Always adds 1."""
            name = "small"
            game = "race"

            def choose(self, view, legal, rng):
                return 1


        class Other(Strategy):
            """Written for another title."""
            name = "other"
            game = "not-race"

            def choose(self, view, legal, rng):
                return 1
    '''))
    r = invoke(runner, "simulate", "my_game.py:Race", "-s", "bots.py:small", "-s", "big", "--games", "10", "-j", "1",
               "--out", "out", "--no-report", "-q")
    assert r.exit_code == 0, r.output
    df = pd.read_parquet(race / "out" / "results")
    assert set(df["strategy"]) == {"bots.py:small", "big"}
    r = runner.invoke(cli, ["simulate", "my_game.py:Race", "-s", "bots.py:other", "--games", "4"])
    assert r.exit_code == 2 and "written for not-race, not race" in r.output
    # the generic search player is not offered: the title has no determinize() hook
    assert list(available_strategies("my_game.py:Race")) == ["big", "random", "sharp"]


def test_the_default_lineup_play_list_and_report_work_on_a_file_title(runner, race):
    r = invoke(runner, "simulate", "my_game.py", "--games", "12", "-j", "1", "--out", "out", "--seed", "2")
    assert r.exit_code == 0, r.output
    assert "built-in strategies big, random against" in r.output and (race / "out" / "index.html").exists()
    r = invoke(runner, "play", "my_game.py:Race", "-s", "big", "-s", "sharp", "--seed", "3")
    assert r.exit_code == 0 and "Winner: seat 1 (sharp)" in r.output
    r = invoke(runner, "list", "my_game.py:Race")
    assert r.exit_code == 0 and "race  -  Race to 21, 2-4 players" in r.output and "target=21" in r.output
    # a report rebuilt in a fresh process never runs the title file named by config.json unasked
    # (a run folder may come from someone else) ...
    out = subprocess.run([sys.executable, "-m", "analyser", "report", "out", "--out", "again"], cwd=race,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    assert out.stderr.count("\n") == 1 and "pass --title" in out.stderr and "my_game.py" in out.stderr
    assert not (race / "again" / "index.html").exists()
    # ... and loads it again when the user names it
    out = subprocess.run([sys.executable, "-m", "analyser", "report", "out", "--out", "again", "--title",
                          "my_game.py"], cwd=race, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert (race / "again" / "index.html").exists()
    # and a game of the run replays in a fresh process from the run folder, with the title file named
    # (the folder alone does not load it)
    out = subprocess.run([sys.executable, "-m", "analyser", "play", "--from", "out", "--game-index", "3"], cwd=race,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "--trust" in out.stderr, out.stderr
    out = subprocess.run([sys.executable, "-m", "analyser", "play", "my_game.py", "--from", "out", "--game-index", "3"],
                         cwd=race, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "Race to 21, 2 players" in out.stdout, out.stderr


def test_an_edited_title_file_is_loaded_again(race):
    first = load_title_file("my_game.py:Race")
    assert first.Params().target == 21 and get_game("race") is first
    (race / "my_game.py").write_text(RACE.replace("option(21,", "option(31,"))
    second = load_title_file("my_game.py:Race")
    assert second.Params().target == 31 and second is not first and get_game("race") is second


@pytest.mark.parametrize("ref, message", [
    ("nowhere.py:Race", "title file '.*nowhere.py' does not exist"),
    ("my_game.py:Nope", r"title file '.*my_game.py' has no 'Nope'; it defines: Race"),
    ("notes.txt/", "does not exist"),
    ("./sub", "is a folder without an __init__.py"),
])
def test_bad_title_references_are_one_line(race, ref, message):
    (race / "sub").mkdir()
    with pytest.raises(InputError, match=message):
        get_game(ref)


def test_a_title_file_may_not_take_a_built_in_id(race):
    (race / "clash.py").write_text(RACE.replace('id = "race"', 'id = "dao"'))
    with pytest.raises(InputError, match="uses the id 'dao' of a registered title"):
        get_game("clash.py")
    with pytest.raises(InputError, match="written for race"):
        make_strategy("my_game.py:big", "dao")


#: The race with figures of an older version: whole-table hooks, no figure_sums.
RACE_WHOLE_TABLE = RACE.replace('game = "race"', 'game = ("race", "race-figures")') + textwrap.dedent('''

    class RaceWithFigures(Race):
        id = "race-figures"

        def figure_tables(self, results, extras):
            t = results.groupby("strategy", observed=True)["turns"].agg(["mean", "size"]).reset_index()
            return [("Turns per strategy", t)]

        def plots(self, results, extras, outdir):
            import matplotlib.pyplot as plt
            fig, ax = plt.subplots()
            ax.hist(results["turns"])
            fig.savefig(outdir / "turns.png")
            plt.close(fig)
            return [("turns.png", "Turns per game")]
''')


def test_a_title_with_whole_table_figures_is_refused_in_one_line(runner, tmp_path, monkeypatch):
    """A title that defines figure_tables / plots on the whole table and no figure_sums (the hooks
    of an older version) is refused: exit 2, one line naming the title file."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "old_game.py").write_text(RACE_WHOLE_TABLE)
    r = invoke(runner, "simulate", "./old_game.py:RaceWithFigures", "-s", "big", "-s", "random", "--games", "6",
               "-j", "1", "--seed", "4", "--out", "out")
    lines = [x for x in r.output.splitlines() if x.strip()]
    assert r.exit_code == 2 and len(lines) == 1 and "old_game.py" in lines[0], r.output
    assert not (tmp_path / "out").exists()
    with pytest.raises(InputError, match=r"^[^\n]+$"):
        get_game("./old_game.py:RaceWithFigures")


def test_a_results_file_of_a_title_of_ones_own_is_reported_with_title(runner, race):
    """A results file joined by hand has no config.json naming the title file: --title names it."""
    r = invoke(runner, "simulate", "./my_game.py:Race", "-s", "big", "-s", "random", "--games", "30", "-j", "1",
               "--seed", "5", "--out", "out", "--no-report")
    assert r.exit_code == 0, r.output
    pd.read_parquet(race / "out" / "results").to_parquet(race / "joined.parquet")
    out = subprocess.run([sys.executable, "-m", "analyser", "report", "joined.parquet", "--out", "j1"], cwd=race,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "pass --title FILE" in out.stderr and out.stderr.count("\n") == 1, out.stderr
    out = subprocess.run([sys.executable, "-m", "analyser", "report", "joined.parquet", "--out", "j2", "--title",
                          "my_game.py:Race"], cwd=race, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "Games 30;" in out.stdout and (race / "j2" / "index.html").exists()
