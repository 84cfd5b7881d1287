"""Statistics and input edge cases (issue 22): strategies that always tie are rated equal
whatever their order, all-tie data never prints "nan", a broken MPLBACKEND is found before the
first game, a saved state's rule options are judged as JSON, and a results column of the wrong
kind names its first bad row."""

import json
import re
import warnings

import pandas as pd
import pytest

from analyser.cli import cli

STALEMATE = '''
"""Every game is a tie: each seat passes once and nobody scores."""
from dataclasses import dataclass

from analyser.engine.core import Game, Params, Strategy, option


@dataclass(frozen=True)
class StalemateParams(Params):
    rounds: int = option(1, "rounds of passing", low=1, high=5)


class State:
    def __init__(self, n, params):
        self.n, self.params, self.done = n, params, 0


class Stalemate(Game):
    id = "stalemate"
    name = "Stalemate"
    min_players, max_players, default_players = 2, 6, 3
    Params = StalemateParams
    metric_columns = ("turns",)

    def initial_state(self, params, n_players, rng):
        return State(n_players, params)

    def current_player(self, s):
        return s.done % s.n

    def legal_actions(self, s):
        return [] if s.done >= s.n * s.params.rounds else ["pass", "wait"]

    def apply(self, s, action, rng):
        s.done += 1

    def is_terminal(self, s):
        return s.done >= s.n * s.params.rounds

    def scores(self, s):
        return [0] * s.n

    def view(self, s, seat):
        return None

    def metrics(self, s):
        return [{"turns": s.params.rounds} for _ in range(s.n)]


class Passer(Strategy):
    """Always passes (``k`` is only a label)."""
    name = "passer"
    game = "stalemate"
    uses_rng = False

    def __init__(self, k: int = 0):
        self.k = k

    def choose(self, view, legal, rng):
        return "pass"


STRATEGIES = [Passer]
'''


@pytest.fixture
def stalemate(tmp_path):
    path = tmp_path / "stalemate.py"
    path.write_text(STALEMATE)
    return str(path)


def invoke_quietly(runner, args):
    """Run a command and return (result, the warnings it raised)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = runner.invoke(cli, args)
    return r, [str(w.message) for w in caught]


@pytest.mark.parametrize("players", [3, 2])
def test_strategies_that_always_tie_get_equal_ratings_in_any_order(runner, tmp_path, stalemate, players):
    names = [f"passer:k={k}" for k in range(1, 6)]
    ratings = []
    for order, lineup in (("ahead", names), ("reversed", names[::-1])):
        args = ["tournament", stalemate, "--players", str(players), "--games", "20", "--jobs", "1", "--seed", "1",
                "--out", str(tmp_path / order), "-q"]
        for s in lineup:
            args += ["-s", s]
        r, caught = invoke_quietly(runner, args)
        assert r.exit_code == 0 and r.output == "" and not caught, (r.output, caught)
        table = pd.read_csv(tmp_path / order / "ranking.csv")
        assert (table["rating"] == 0).all() and (table["rating_low"] == 0).all() and (table["rank"] == 1).all()
        ratings.append(table.set_index("strategy")["rating"].sort_index())
    pd.testing.assert_series_equal(ratings[0], ratings[1])


def test_ratings_follow_the_strategies_not_their_order(runner, tmp_path):
    """The toy title's fixed:k=K picks K each round (a planted strength order); a lineup and its
    reverse rank them the same, and the same strength under two spellings rates within noise."""
    from pathlib import Path
    toy = str(Path(__file__).resolve().parent / "toy_title.py")
    tables = []
    for order, lineup in (("a", ["fixed:k=1", "fixed:k=3", "fixed:k=03", "fixed:k=6"]),
                          ("b", ["fixed:k=6", "fixed:k=03", "fixed:k=3", "fixed:k=1"])):
        args = ["tournament", toy, "--games", "300", "--jobs", "1", "--seed", "2", "-q", "--out", str(tmp_path / order)]
        for s in lineup:
            args += ["-s", s]
        assert runner.invoke(cli, args).exit_code == 0
        tables.append(pd.read_csv(tmp_path / order / "ranking.csv").set_index("strategy"))
    for t in tables:
        assert t.loc["fixed:k=6", "rating"] > t.loc["fixed:k=3", "rating"] > t.loc["fixed:k=1", "rating"]
        assert t.loc["fixed:k=6", "rank"] == 1 and t.loc["fixed:k=1", "rank"] == 4
        # alike strategies: each inside the other's interval
        for a, b in (("fixed:k=3", "fixed:k=03"), ("fixed:k=03", "fixed:k=3")):
            assert t.loc[b, "rating_low"] <= t.loc[a, "rating"] <= t.loc[b, "rating_high"]


def test_all_tie_data_never_prints_nan(runner, tmp_path, stalemate):
    out = tmp_path / "s"
    r, caught = invoke_quietly(runner, ["simulate", stalemate, "-s", "passer:k=1", "-s", "passer:k=2", "--games",
                                        "60", "--jobs", "1", "--seed", "1", "--out", str(out)])
    assert r.exit_code == 0 and not caught, caught
    assert not re.search(r"\bnan\b", r.output, re.IGNORECASE)  # a word ("dominant" holds the letters)
    # both skill shares print n/a with the reason (the words: the titles' text snapshots' designer tables)
    skill = [line.split(")", 1)[1].strip() for line in r.output.splitlines() if line.strip().startswith("skill share")]
    assert len(skill) == 2 and all(value.startswith("n/a (") for value in skill)
    html = (out / "index.html").read_text()
    assert "nan%" not in html and html.count("n/a (") >= 2
    r, caught = invoke_quietly(runner, ["simulate", stalemate, "-s", "passer:k=1", "-s", "passer:k=2", "--games",
                                        "60", "--jobs", "1", "--seed", "1", "--out", str(out), "-q"])
    assert r.exit_code == 0 and not caught and len(r.stderr.splitlines()) == 1  # only the replacing note
    assert f" {out} (60 games)" in r.stderr


def test_designer_rows_say_why_a_figure_is_missing():
    import math

    from analyser.stats.designer import designer_rows
    nan = math.nan
    d = {"tie_rate": 1.0, "tie_low": 0.9, "tie_high": 1.0, "close_rate": 1.0, "close_low": nan, "close_high": nan}
    dr = {"lead_changes": 0.0, "any_lead_change": 0.0, "lead_for_good_at": nan, "deficit_overcome": nan,
          "deficit_p90": nan, "deficit_max": nan}
    ls = {"skill_share": nan, "skill_low": nan, "skill_high": nan, "luck_share": nan}
    table = designer_rows(d, dr, ls, ls)
    values = dict(zip(table["figure"], table["value"]))
    assert "nan" not in " ".join(values.values()).lower()
    close, lead, skill, skill_score = (next(v for k, v in values.items() if k.startswith(name)) for name in
                                       ("close games", "winner takes", "skill share (", "skill share, score"))
    assert close.startswith("100.0% ") and close.endswith(" n/a)")  # a rate without an interval
    # the others: n/a with a reason each, and different reasons
    assert all(v.startswith("n/a (") for v in (lead, skill, skill_score)) and len({lead, skill, skill_score}) == 3


@pytest.mark.parametrize("args", [
    ["simulate", "dao", "-s", "greedy", "--games", "4", "--jobs", "1"],
    ["simulate", "dao", "-s", "greedy", "--games", "4", "--jobs", "1", "--no-report"],
    ["sweep", "dao", "-s", "greedy", "--rule", "bust_limit=10,12", "--games", "4", "--jobs", "1"],
    ["tournament", "dao", "-s", "greedy", "-s", "random", "-s", "colour", "-s", "threshold", "--games", "4"],
    ["compare", "dao", "-s", "greedy", "--a", "bust_limit=10", "--b", "bust_limit=12", "--games", "4"],
])
def test_a_broken_mplbackend_is_refused_before_the_first_game(runner, tmp_path, monkeypatch, args):
    import sys
    monkeypatch.setenv("MPLBACKEND", "nonsense")
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)  # imported afresh, reading MPLBACKEND, then restored
    out = tmp_path / "o"
    r = runner.invoke(cli, args + ["--out", str(out)])
    (line,) = r.output.strip().splitlines()  # one line, naming the value and the one accepted
    assert r.exit_code == 2 and line.startswith("analyser: error: MPLBACKEND='nonsense' ") and "MPLBACKEND=Agg" in line
    assert not out.exists()  # nothing played, nothing written


def test_a_saved_states_rule_options_are_judged_as_json(runner, tmp_path):
    r = runner.invoke(cli, ["play", "wizard", "-s", "random", "--seed", "1", "--json"])
    state = json.loads(r.stdout.splitlines()[0])["state"]
    cases = {  # wizard's rule options are in its state's public part (pub)
        ("hook", "off"): "pub.params: hook: should be JSON true or false (a saved state holds the flag itself; on/off "
                         "is how --rule hook=on|off writes it)",
        ("hook", 1): "pub.params: hook: should be JSON true or false",
        ("follow_suit", "loose"): "pub.params: follow_suit: should be one of the JSON strings seed, official",
        ("bogus", 1): "pub.params: bogus: is not a rule option of wizard (it has: ",
    }
    for (key, value), message in cases.items():
        p = tmp_path / f"{key}.json"
        pub = state["pub"]
        p.write_text(json.dumps({**state, "pub": {**pub, "params": {**pub["params"], key: value}}}))
        r = runner.invoke(cli, ["play", "wizard", "-s", "random", "--state", str(p)])
        assert r.exit_code == 2 and f"--state {str(p)!r}: {message}" in r.output, r.output
        assert "use on" not in r.output  # (--rule's hint, not a saved state's)


@pytest.mark.parametrize("gid", ["dao", "kingdomino-duel", "dragon-lairds", "tsuro-seas"])
def test_every_titles_state_rule_options_are_judged_as_json(gid):
    from analyser.engine.core import InputError
    from analyser.engine.registry import get_game
    from analyser.io.states import validate_params

    g = get_game(gid)
    for o in g.Params.options():
        wrong = "on" if o["type"] == "bool" else ("many" if o["type"] in ("int", "float") else 7)
        with pytest.raises(InputError, match=rf"^params\.{o['name']}: should be "):
            validate_params(g, {o["name"]: wrong})
    validate_params(g, g.Params().as_dict())  # the defaults pass


@pytest.mark.parametrize("column, value, row, held", [
    ("score", "lots", 4, "text"), ("busts", "True", 6, "a true/false value"), ("win", "half", 2, "text"),
    ("game_index", "first", 1, "text"),
])
def test_a_results_column_of_the_wrong_kind_names_its_first_bad_row(runner, tmp_path, column, value, row, held):
    assert runner.invoke(cli, ["simulate", "dao", "-s", "greedy", "--games", "4", "--jobs", "1", "--seed", "1", "-q",
                               "--no-report", "--csv", "--out", str(tmp_path / "r")]).exit_code == 0
    df = pd.read_csv(tmp_path / "r" / "results.csv").astype({column: object})
    df.loc[row - 1, column] = value
    p = tmp_path / "bad.csv"
    df.to_csv(p, index=False)
    r = runner.invoke(cli, ["report", str(p), "--out", str(tmp_path / "o")])
    assert r.exit_code == 2 and f"column {column!r}: row {row} holds {held}; it takes " in r.output, r.output
    assert value not in r.output  # cell text is never quoted
