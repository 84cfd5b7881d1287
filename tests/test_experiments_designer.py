"""Sweeps, tournaments, comparisons, the stopping rule and the designer metrics (issue 7)."""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from analyser.stats import designer
from analyser.engine import registry
from analyser.cli import cli
from analyser.experiments import grid, stopping
from analyser.experiments.compare import mcnemar_p, paired_mean, paired_rate
from analyser.engine.core import InputError, Scoring
from analyser.engine.registry import get_game
from analyser.engine.runner import game_seed
from analyser.experiments.options import SweepOptions, TournamentOptions
from analyser.run import RunSpec

TOY_FILE = str(Path(__file__).with_name("toy_title.py"))


@pytest.fixture
def toy():
    """The toy title of tests/toy_title.py, used as a title file (no registration needed)."""
    return TOY_FILE


# --------------------------------------------------------------------------------------------
# The value grammar
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, kind, expected", [
    ("4..7", int, ["4", "5", "6", "7"]),
    ("4..10:3", int, ["4", "7", "10"]),
    ("-1..1:0.5", float, ["-1", "-0.5", "0", "0.5", "1"]),
    ("0..1:0.3", float, ["0", "0.3", "0.6", "0.9"]),
    ("10,12,14", int, ["10", "12", "14"]),
    ("2,4..6,2", int, ["2", "4", "5", "6"]),
    ("on,off", bool, ["on", "off"]),
    ("5", int, ["5"]),
])
def test_grammar_expands(text, kind, expected):
    assert grid.expand(text, name="x", kind=kind) == expected


@pytest.mark.parametrize("text, kind, choices, needle", [
    ("", int, None, "empty value"),
    ("4..", int, None, "empty range"),
    ("..4", int, None, "empty range"),
    ("4..14:", int, None, "empty range"),
    ("1,,2", int, None, "empty list entry"),
    ("7..3", int, None, "runs backwards"),
    ("1..3:0", int, None, "step must be positive"),
    ("1..3:0.5", int, None, "not whole numbers"),
    ("a..c", str, ("a", "b", "c"), "needs a number option"),
    ("off..on", bool, None, "needs a number option"),
])
def test_grammar_refuses(text, kind, choices, needle):
    with pytest.raises(InputError, match=needle):
        grid.expand(text, name="x", kind=kind, choices=choices)


def test_strategy_spec_lists_continue_the_previous_parameter():
    assert grid.split_strategy("threshold:limit=4,6,8") == ("threshold", [("limit", "4,6,8")])
    assert grid.split_strategy("bot:bias=-1..1:0.5,bid=zero") == ("bot", [("bias", "-1..1:0.5"), ("bid", "zero")])
    assert grid.split_strategy("my.py:cautious:depth=1,2") == ("my.py:cautious", [("depth", "1,2")])


def test_cells_are_the_cartesian_product_in_written_order():
    g = grid.build(get_game("dao"), ["threshold:limit=4..6", "greedy"], ["bust_limit=10,12"])
    assert [c for c, _ in g.dims] == ["threshold.limit", "bust_limit"]
    assert len(g.cells) == 6
    assert [(c.strategies[0], c.rules["bust_limit"]) for c in g.cells[:3]] == [
        ("threshold:limit=4", "10"), ("threshold:limit=4", "12"), ("threshold:limit=5", "10")]
    assert g.focus == 0


def test_too_many_cells_and_bad_rule_values_are_refused():
    game = get_game("dao")
    with pytest.raises(InputError, match="10,201 cells"):
        grid.build(game, ["threshold:limit=0..100", "threshold:limit=0..100"], [])
    with pytest.raises(InputError, match="bust_limit"):
        grid.build(game, ["greedy"], ["bust_limit=10,abc"])
    with pytest.raises(InputError, match="needs a number option"):
        grid.build(game, ["greedy"], ["equal_exception=adjacent..off"])


@pytest.mark.parametrize("args, needle", [
    (["sweep", "dao", "-s", "threshold:limit=9..4", "-s", "greedy"], "runs backwards"),
    (["sweep", "dao", "-s", "threshold:limit=", "-s", "greedy"], "empty"),
    (["sweep", "dao", "-s", "greedy", "--rule", "tie_break=1..3"], "needs a number option"),
    (["sweep", "dao", "-s", "threshold:limit=0..200", "-s", "threshold:limit=0..200"], "cells"),
    (["sweep", "dao", "-s", "greedy", "--until-ci", "1"], "--until-ci"),
    (["simulate", "dao", "-s", "greedy", "--until-ci", "0"], "--until-ci"),
    (["tournament", "dao", "-s", "greedy", "-s", "random", "--until-ci", "-0.1"], "--until-ci"),
])
def test_bad_input_is_one_line_exit_2(runner, args, needle):
    res = runner.invoke(cli, args)
    assert res.exit_code == 2, res.output
    lines = [l for l in res.output.splitlines() if l.strip()]
    assert len(lines) == 1 and needle in lines[0] and "Traceback" not in res.output


# --------------------------------------------------------------------------------------------
# Pairing
# --------------------------------------------------------------------------------------------

def test_cells_share_deals_where_the_rules_leave_them(tmp_path):
    from analyser.experiments.sweep import deal_pairing, run_sweep

    res = run_sweep(RunSpec("dao", ["threshold:limit=6,10", "greedy"], games=40, seed=11, jobs=1),
                    SweepOptions(rules=["bust_limit=10,14"]))
    df = res.results
    assert df["cell"].nunique() == 4
    seeds = df.groupby(["game_index", "cell"])["game_seed"].first().unstack("cell")
    assert (seeds.nunique(axis=1) == 1).all()
    assert seeds.iloc[3, 0] == game_seed(11, 3)
    # the same seed deals the same deck in every cell
    game = get_game("dao")
    decks = []
    for c in res.grid.cells:
        state = game.initial_state(game.Params.from_overrides(c.rules), 2, random.Random(game_seed(11, 5)))
        decks.append(game.state_to_dict(state)["deck"])
    assert all(d == decks[0] for d in decks)
    assert res.pairing["paired"]
    # a rule that changes the deck breaks the pairing, and the report says so
    cells = grid.build(game, ["greedy"], ["colours=4,5"]).cells
    p = deal_pairing(game, cells, 2, 11)
    assert not p["paired"] and "NOT paired" in p["note"]


def test_sweep_writes_its_folder(runner, tmp_path):
    out = tmp_path / "sw"
    res = runner.invoke(cli, ["sweep", "dao", "-s", "threshold:limit=6..8", "-s", "greedy", "--rule",
                              "bust_limit=10,12", "--games", "30", "--seed", "4", "-j", "1", "-o", str(out), "-q"])
    assert res.exit_code == 0, res.output
    assert {"sweep.parquet", "cells.csv", "index.html", "sweep_heatmap.png", "config.json"} <= {p.name for p in out.iterdir()}
    cells = pd.read_csv(out / "cells.csv")
    assert len(cells) == 12 and cells["best"].sum() == 1
    df = pd.read_parquet(out / "sweep.parquet")
    assert {"cell", "slot", "threshold.limit", "bust_limit"} <= set(df.columns)
    assert sorted(df["threshold.limit"].unique()) == [6, 7, 8]
    html = (out / "index.html").read_text()
    assert "cells are paired" in html and "data:image/png;base64" in html


def test_paired_difference_from_the_best_matches_scipy():
    from analyser.experiments.sweep import paired_vs_best

    rng = np.random.default_rng(3)
    mat = pd.DataFrame({0: rng.random(50), 1: rng.random(50) + 0.3, 2: rng.random(50) + 0.28})
    t = paired_vs_best(mat).set_index("cell")
    assert t.loc[1, "best"] and t.loc[1, "diff"] == 0
    ref = stats.ttest_rel(mat[0], mat[1])
    assert t.loc[0, "p"] == pytest.approx(ref.pvalue)
    assert t.loc[0, "diff_low"] == pytest.approx(ref.confidence_interval().low)
    assert not t.loc[0, "tied_with_best"]
    assert t.loc[2, "tied_with_best"]


def test_the_cells_table_marks_the_best_cell_best_not_tied_with_itself():
    from analyser.experiments.sweep import display_cells, paired_vs_best

    rng = np.random.default_rng(3)
    mat = pd.DataFrame({0: rng.random(50), 1: rng.random(50) + 0.3, 2: rng.random(50) + 0.28})
    shown = display_cells(paired_vs_best(mat).set_index("cell")[["diff", "best", "tied_with_best"]])
    assert shown["tied_with_best"].to_dict() == {0: "no", 1: "best", 2: "yes"}
    assert "best" not in shown.columns


# --------------------------------------------------------------------------------------------
# The stopping rule
# --------------------------------------------------------------------------------------------

def test_round_ends_depend_only_on_games_and_seats():
    assert stopping.round_ends(1000, 3) == [201, 402, 603, 804, 1000]
    assert stopping.round_ends(100, 4) == [100]
    assert stopping.round_ends(10000, 4)[:2] == [500, 1000]


def test_stopping_rule_gives_identical_results_for_any_jobs(runner, tmp_path):
    outs = []
    for jobs in (1, 2):
        out = tmp_path / f"j{jobs}"
        res = runner.invoke(cli, ["simulate", "dao", "-s", "greedy", "-s", "random", "--games", "3000",
                                  "--until-ci", "0.09", "--seed", "8", "-j", str(jobs), "-o", str(out), "-q",
                                  "--no-report"])
        assert res.exit_code == 0, res.output
        outs.append(out)
    a, b = (pd.read_parquet(o / "results") for o in outs)
    assert a["run_id"].nunique() == 1  # the rounds are one run
    pd.testing.assert_frame_equal(a.drop(columns="run_id"), b.drop(columns="run_id"))  # run ids are unique per run
    ca, cb = (json.loads((o / "config.json").read_text()) for o in outs)
    assert ca["stopping"]["reason"] == cb["stopping"]["reason"] and "stopped early" in ca["stopping"]["reason"]
    n = a["game_index"].nunique()
    assert n in stopping.round_ends(3000, 2) and n < 3000
    # every interval is within the width at the stop, and was not one round earlier
    assert stopping.widest([a]) <= 0.09
    assert stopping.widest([a[a["game_index"] < n - 200]]) > 0.09
    # the record names the run the rows carry, so the run can be reported (it used to name the
    # last round's id, and every report of it failed)
    assert ca["run_id"] == str(a["run_id"].iloc[0]) and ca["games_done"] == [[0, n]] and ca["first_game"] == 0
    res = runner.invoke(cli, ["report", str(outs[0])])
    assert res.exit_code == 0, res.output
    assert f"Games {n};" in res.output


# --------------------------------------------------------------------------------------------
# Tournaments
# --------------------------------------------------------------------------------------------

def test_tables_are_balanced():
    from analyser.experiments.tournament import draw_tables

    tables, design = draw_tables(5, 3)
    assert design == "all combinations" and len(tables) == 10
    tables, design = draw_tables(9, 4)
    assert design == "balanced sample"
    counts = np.bincount([s for t in tables for s in t], minlength=9)
    assert len(set(counts)) == 1 and all(len(set(t)) == 4 for t in tables)


@pytest.mark.parametrize("players", [2, 3])
def test_tournament_recovers_a_planted_strength_order(toy, players):
    from analyser.experiments.tournament import run_tournament

    specs = [f"{TOY_FILE}:fixed:k={k}" for k in (3, 1, 4, 2)]  # true order: 4 > 3 > 2 > 1
    t = run_tournament(RunSpec(toy, specs, players=players, games=1200, seed=5, jobs=1), TournamentOptions(bootstrap=20))
    order = [s.rsplit("=", 1)[1] for s in t.ranking["strategy"]]
    assert order == ["4", "3", "2", "1"]
    assert (t.ranking["rating_low"] <= t.ranking["rating"]).all() and (t.ranking["rating"] <= t.ranking["rating_high"]).all()
    # every strategy in every seat equally often
    seats = t.results.groupby(["strategy", "seat"], observed=True).size().unstack()
    assert seats.nunique(axis=1).eq(1).all()
    pw = t.pairwise
    assert pw.loc[specs[2], specs[1]] > 0.5 > pw.loc[specs[1], specs[2]]


# --------------------------------------------------------------------------------------------
# Paired tests
# --------------------------------------------------------------------------------------------

def test_mcnemar_matches_known_cases():
    # b = 1, c = 9 discordant pairs: exact two-sided binomial 2 * P(X <= 1 | 10, 1/2) = 22/1024
    a = np.array([1] * 1 + [0] * 9 + [1] * 5 + [0] * 5, bool)
    b = np.array([0] * 1 + [1] * 9 + [1] * 5 + [0] * 5, bool)
    assert mcnemar_p(a, b) == pytest.approx(22 / 1024)
    assert stats.binomtest(1, 10, 0.5).pvalue == pytest.approx(22 / 1024)
    # b = 25, c = 10: chi-square with continuity correction (|25 - 10| - 1)^2 / 35 = 5.6
    a = np.array([1] * 25 + [0] * 10, bool)
    assert mcnemar_p(a, ~a) == pytest.approx(stats.chi2.sf(5.6, 1))


def test_paired_mean_is_scipys_paired_t_and_wilcoxon():
    x = np.array([12.1, 14.3, 9.8, 11.0, 15.2, 13.3, 10.9, 12.8])
    y = np.array([11.0, 13.9, 10.2, 9.7, 14.1, 12.0, 10.0, 12.9])
    r = paired_mean(x, y)
    ref = stats.ttest_rel(x, y)
    assert r["diff"] == pytest.approx(np.mean(x - y))
    assert r["p"] == pytest.approx(ref.pvalue)
    assert (r["low"], r["high"]) == pytest.approx(tuple(ref.confidence_interval()))
    assert r["p_wilcoxon"] == pytest.approx(stats.wilcoxon(x, y).pvalue)
    w = paired_rate(np.array([1, 1, 0, 1, 0.5, 0]), np.array([0, 1, 0, 0, 0.5, 1]))
    assert w["diff"] == pytest.approx(1 / 6) and w["low"] <= w["diff"] <= w["high"]


def test_compare_command_and_run_folders(runner, tmp_path):
    res = runner.invoke(cli, ["compare", "dao", "-s", "greedy", "-s", "random", "--a", "bust_limit=12", "--b",
                              "bust_limit=10", "--games", "60", "--seed", "3", "-j", "1", "-o", str(tmp_path / "c"), "-q"])
    assert res.exit_code == 0, res.output
    table = pd.read_csv(tmp_path / "c" / "compare.csv")
    assert {"win rate: greedy", "mean score: random", "game length", "seat 0 win rate"} <= set(table["figure"])
    assert (tmp_path / "c" / "index.html").exists()
    for name, seed in (("r1", 5), ("r2", 5), ("r3", 6)):
        r = runner.invoke(cli, ["simulate", "dao", "-s", "greedy", "-s", "random", "--games", "40", "--seed", str(seed),
                                "-j", "1", "-o", str(tmp_path / name), "-q", "--no-report"])
        assert r.exit_code == 0, r.output
    same = runner.invoke(cli, ["compare", str(tmp_path / "r1"), str(tmp_path / "r2"), "-o", str(tmp_path / "c12")])
    assert same.exit_code == 0, same.output
    assert "paired: both runs have root seed 5" in same.output
    t = pd.read_csv(tmp_path / "c12" / "compare.csv")
    assert (t["diff"].fillna(0) == 0).all()  # the same run twice: no difference
    other = runner.invoke(cli, ["compare", str(tmp_path / "r1"), str(tmp_path / "r3"), "-o", str(tmp_path / "c13")])
    assert other.exit_code == 0 and "not paired" in other.output


def test_compare_batch_size_is_recorded_and_changes_no_figure(runner, tmp_path):
    base = ["compare", "dao", "-s", "greedy", "-s", "random", "--a", "bust_limit=12", "--b", "bust_limit=10", "-p", "2",
            "--games", "30", "--seed", "4", "-j", "1", "-q"]
    for size in (4, 30):
        res = runner.invoke(cli, [*base, "--batch-size", str(size), "-o", str(tmp_path / f"c{size}")])
        assert res.exit_code == 0, res.output
        side = json.loads((tmp_path / f"c{size}" / "a" / "config.json").read_text())
        assert side["batch_size"] == size and len(list((tmp_path / f"c{size}" / "a" / "results").glob("*.parquet"))) \
            == (8 if size == 4 else 1)
    assert (tmp_path / "c4" / "compare.csv").read_text() == (tmp_path / "c30" / "compare.csv").read_text()
    res = runner.invoke(cli, [*base, "--batch-size", "0", "-o", str(tmp_path / "c0")])
    assert res.exit_code == 2 and "--batch-size 0 is not accepted" in res.output


def test_report_quiet_prints_only_where_the_report_is(runner, tmp_path):
    r = runner.invoke(cli, ["simulate", "dao", "-s", "greedy", "-s", "random", "--games", "10", "--seed", "2", "-j", "1",
                            "-o", str(tmp_path / "r"), "-q", "--no-report"])
    assert r.exit_code == 0, r.output
    # (without -q the report prints its tables: tests/test_cli.py, test_report_rebuilds_from_results)
    quiet = runner.invoke(cli, ["report", str(tmp_path / "r"), "-q", "-o", str(tmp_path / "page2")])
    assert quiet.exit_code == 0, quiet.output
    assert "Strategies (" not in quiet.output
    assert quiet.output.strip() == f"Report: {tmp_path / 'page2' / 'index.html'}"
    assert (tmp_path / "page2" / "index.html").exists()
    # rebuilt in its own folder, -q still prints only the Report: line (not "Rebuilding the report in ...")
    inplace = runner.invoke(cli, ["report", str(tmp_path / "r"), "-q"])
    assert inplace.exit_code == 0 and inplace.output.strip() == f"Report: {tmp_path / 'r' / 'index.html'}"


def test_compare_of_a_title_without_a_lineup_plays_the_built_in_lineup_on_both_sides(runner, tmp_path):
    """As simulate and play: no -s means the title's built-in lineup, cut to the seats."""
    res = runner.invoke(cli, ["compare", "dao", "--a", "bust_limit=12", "--b", "bust_limit=10", "-p", "2",
                              "--games", "40", "--seed", "3", "-j", "1", "-o", str(tmp_path / "c"), "-q"])
    assert res.exit_code == 0, res.output
    cells = json.loads((tmp_path / "c" / "config.json").read_text())["cells"]
    expected = registry.default_lineup("dao")[:2]
    assert [c["strategies"] for c in cells] == [expected, expected]
    table = pd.read_csv(tmp_path / "c" / "compare.csv")
    assert f"win rate: {expected[0]}" in set(table["figure"])


# --------------------------------------------------------------------------------------------
# Designer metrics
# --------------------------------------------------------------------------------------------

def _drama(trace: np.ndarray, winners: list[int]) -> tuple:
    """``designer.drama_arrays`` of one game: its trace (steps x seats) and the seats that won."""
    traces = np.empty(trace.shape[1], dtype=object)
    for k in range(trace.shape[1]):
        traces[k] = list(trace[:, k])
    wins = np.array([1.0 / len(winners) if k in winners else 0.0 for k in range(trace.shape[1])])
    return tuple(x[0] for x in designer.drama_arrays(traces, wins, trace.shape[1]))


def test_drama_of_a_hand_built_trace():
    trace = np.array([[1, 0], [1, 2], [3, 2], [3, 3], [4, 3]], float)
    changes, good, deficit = _drama(trace, [0])
    assert (changes, good, deficit) == (2, 0.8, 1.0)  # trailed 1 to 2 after step 2
    assert _drama(trace, [0, 1])[1] != _drama(trace, [0, 1])[1]  # NaN for a shared win
    led_throughout = np.array([[2, 0], [3, 1], [5, 4]], float)
    assert _drama(led_throughout, [0]) == (0, 0.0, 0.0)


def test_drama_from_a_titles_trace_column(toy):
    from analyser import run as runmod

    r = runmod.run(runmod.RunSpec(game=toy, strategies=[f"{TOY_FILE}:fixed:k=6", f"{TOY_FILE}:fixed:k=1"],
                                  players=2, games=60, seed=1, jobs=1), progress=False)
    per = designer.drama_per_game(r.results)
    assert len(per) == 60 and per["lead_for_good_at"].between(0, 1).all()
    first = r.results[r.results["game_index"] == 0]
    tr = np.array([list(t) for t in first["score_trace"]], dtype=float).T  # one list of numbers per seat
    assert list(tr[-1]) == list(first["score"])  # the last step is the final score


def get_dao_frame():
    from analyser import run as runmod
    return runmod.run(runmod.RunSpec(game="dao", strategies=["greedy"], players=2, games=4, seed=1, jobs=1),
                      progress=False).results


def test_titles_without_a_trace_say_not_recorded():
    df = get_dao_frame().drop(columns=["score_trace"], errors="ignore")
    table = designer.designer_table(df)
    assert "not recorded" in " ".join(table["value"])


def test_skill_share_separates_skill_from_luck():
    rng = np.random.default_rng(0)
    games = 300
    rows = []
    for g in range(games):
        deal = rng.normal(0, 5)
        for seat, strat in enumerate(["a", "b"]):
            rows.append({"game_index": g, "seat": seat, "strategy": strat, "win": 0.5, "rank": 1, "players": 2,
                         "score_skill": deal + (3.0 if strat == "a" else 0.0) + rng.normal(0, 0.1),
                         "score_luck": deal + rng.normal(0, 3.0)})
    df = pd.DataFrame(rows)
    skill = designer.luck_skill(df.assign(score=df["score_skill"]), bootstrap=50, on="score")
    luck = designer.luck_skill(df.assign(score=df["score_luck"]), bootstrap=50, on="score")
    assert skill["skill_share"] > 0.95 and skill["skill_low"] <= skill["skill_share"] <= skill["skill_high"]
    assert luck["skill_share"] < 0.05
    assert designer.luck_skill(df.assign(strategy="a", score=df["score_luck"]), on="score") is None
    assert designer.luck_skill(df)["skill_share"] != designer.luck_skill(df)["skill_share"]  # wins never differ: nan


def test_decisiveness_counts_close_games_and_ties():
    df = pd.DataFrame({"game_index": [0, 0, 1, 1, 2, 2], "seat": [0, 1] * 3, "players": 2,
                       "score": [5, 5, 7, 6, 9, 2], "win": [0.5, 0.5, 1, 0, 1, 0], "strategy": "x"})
    d = designer.decisiveness(df)
    assert d["tie_rate"] == pytest.approx(1 / 3) and d["close_rate"] == pytest.approx(2 / 3)


def test_sweep_stopping_rule_is_identical_for_any_jobs():
    """Four cells with two workers go whole to the workers; with one, they play in turn."""
    from analyser.experiments.sweep import run_sweep

    runs = [run_sweep(RunSpec("dao", ["threshold:limit=8,10", "greedy"], games=1000, seed=2, jobs=jobs),
                      SweepOptions(rules=["bust_limit=10,12"], until_ci=0.12)) for jobs in (1, 2)]
    pd.testing.assert_frame_equal(runs[0].results.drop(columns="run_id"), runs[1].results.drop(columns="run_id"))
    pd.testing.assert_frame_equal(runs[0].cells, runs[1].cells)
    assert runs[0].stop.reason == runs[1].stop.reason
    n = runs[0].results.groupby("cell")["game_index"].nunique()
    assert n.nunique() == 1 and int(n.iloc[0]) in stopping.round_ends(1000, 2) and int(n.iloc[0]) < 1000


@pytest.mark.parametrize("game_id", registry.game_ids())
def test_every_titles_score_trace_ends_at_the_final_score(game_id):
    """Titles that record a score trace: it is one number per step for every seat, and its last
    value is the seat's final score.  A title without one must leave drama "not recorded"."""
    from analyser import run as runmod
    from analyser.engine.registry import default_lineup

    game = get_game(game_id)
    lineup = default_lineup(game_id)[:game.default_players]
    df = runmod.run(runmod.RunSpec(game=game_id, strategies=lineup, games=6, seed=3, jobs=1),
                    progress=False).results
    if "score_trace" not in game.metric_columns:
        assert "not recorded" in " ".join(designer.designer_table(df)["value"])
        return
    traces = df["score_trace"]
    assert all(np.asarray(t).dtype == np.int32 for t in traces)  # whole numbers stay whole
    assert traces.map(len).groupby(df["game_index"]).nunique().eq(1).all()  # seats aligned by step
    assert [float(t[-1]) for t in traces] == list(df["score"].astype(float))
    assert designer.drama_per_game(df) is not None


def test_tsuro_trace_is_rebuilt_at_the_turn_cap_too():
    """Tsuro of the Seas rebuilds its trace from the final state and checks it against the score;
    a game ended by max_turns counts its last turn like any other."""
    from analyser import run as runmod

    df = runmod.run(runmod.RunSpec(game="tsuro-seas", strategies=["survivor", "random"], players=3,
                                   games=30, seed=5, jobs=1, rules={"max_turns": "4"}), progress=False).results
    assert df["score_trace"].map(len).gt(0).all()
    assert [float(t[-1]) for t in df["score_trace"]] == list(df["score"].astype(float))


def test_designer_table_speaks_in_the_titles_score_unit():
    """A title scoring in other units must not read 'points' in the close-game and deficit
    figures; a points title keeps its wording; the close margin is the title's."""
    df = get_dao_frame()
    points = designer.designer_table(df).set_index("figure")["value"]
    assert "close games (top two within 1 point)" in points.index
    assert "points on average" in points["largest deficit overcome"]
    afloat = designer.designer_table(df, designer.Outcome(Scoring(score_unit="laps")))
    text = afloat.to_string()
    assert "point" not in text
    assert "close games (top two within 1 lap)" in set(afloat["figure"])
    assert "laps on average" in afloat.set_index("figure")["value"]["largest deficit overcome"]
    tens = designer.designer_table(df, designer.Outcome(Scoring(close_margin=10)))
    assert "close games (top two within 10 points)" in set(tens["figure"])


def test_figures_a_title_declares_do_not_apply_are_left_out_with_the_reason():
    """Tsuro of the Seas: the last ship afloat wins, so no close-game, lead, deficit or score-based
    skill figure is shown - each is named in one 'left out' line with the title's reason - and
    the skill share reads the outcome."""
    from analyser import run as runmod

    df = runmod.run(runmod.RunSpec(game="tsuro-seas", strategies=["survivor", "random"], players=2, games=40,
                                   seed=3, jobs=1), progress=False).results
    game = registry.get_game("tsuro-seas")
    table = designer.designer_table(df, game)
    figures = " ".join(table["figure"])
    assert "close" not in figures and "lead" not in figures and "deficit" not in figures
    assert "score-based" not in figures and "skill share (partial eta squared of the win share)" in figures
    (left,) = table.attrs["left_out"]  # one line: the three figures share the title's reason
    assert left.startswith("close games; lead changes, lead for good and deficit overcome; the score-based "
                           "skill share: the last ship afloat wins")
    assert "nan" not in table.to_string()
    # a highest-score title keeps every figure and leaves nothing out
    dao = designer.designer_table(get_dao_frame().assign(strategy=["greedy", "random"] * 4), registry.get_game("dao"))
    assert dao.attrs["left_out"] == [] and any("score-based" in f for f in dao["figure"])


def test_skill_share_reads_the_outcome_and_its_interval_can_reach_zero():
    """The skill share on the win share: two strategies that play alike give an interval whose
    lower end is 0 (a resampled share is never below 0, so the plain percentile interval could not
    include it); a real edge gives an interval clear of 0.  The score-based share is separate."""
    rng = np.random.default_rng(4)
    rows = []
    for g in range(400):
        a_wins = rng.random() < 0.5
        for seat, strat in enumerate(["a", "b"]):
            win = float(a_wins == (strat == "a"))
            rows.append({"game_index": g, "seat": seat, "strategy": strat, "win": win, "rank": 2 - win,
                         "players": 2, "score": rng.normal(0, 1) + (5.0 if strat == "b" else 0.0)})
    even = pd.DataFrame(rows)
    ls = designer.luck_skill(even, bootstrap=100)
    assert ls["p"] > 0.05 and ls["skill_low"] == 0.0 < ls["skill_high"]
    assert ls["skill_share"] < 0.02
    # b always scores more, yet wins no more often: the score-based share is large, the outcome's not
    assert designer.luck_skill(even, bootstrap=50, on="score")["skill_share"] > 0.9
    edge = even.assign(win=np.where((even["game_index"] % 5 == 0), (even["strategy"] == "a").astype(float),
                                    even["win"]))
    edge_ls = designer.luck_skill(edge, bootstrap=100)
    assert edge_ls["p"] < 0.05 and edge_ls["skill_low"] > 0


def test_one_paired_game_gives_no_interval_and_no_p():
    """A single game pair is no evidence: the paired figures keep the means and the difference but
    leave the interval and the p-values undefined (shown as n/a), never p = 0."""
    for r in (paired_mean(np.array([1.0]), np.array([4.0])), paired_rate(np.array([0.5]), np.array([0.0]))):
        assert r["diff"] != 0 and np.isnan(r["p"]) and np.isnan(r["low"]) and np.isnan(r["high"])
    assert np.isnan(paired_mean(np.array([1.0]), np.array([4.0]))["p_wilcoxon"])
    two = paired_mean(np.array([1.0, 2.0]), np.array([4.0, 5.0]))  # a constant difference over two games
    assert two["low"] == two["high"] == -3.0


def test_ctrl_c_during_a_parallel_sweep_keeps_the_cells_that_finished(tmp_path):
    """A real SIGINT while whole cells run on two workers: exit 130, status interrupted, and every
    cell that finished is written in full."""
    import json
    import signal
    import subprocess
    import sys
    import time

    import re
    import threading

    pty = pytest.importorskip("pty")
    import fcntl
    import os
    import struct
    import termios

    out = tmp_path / "sw"
    # stderr on a terminal (a pseudo-terminal), where the sweep shows its progress bar
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 120, 0, 0))
    proc = subprocess.Popen([sys.executable, "-m", "analyser", "sweep", "dao", "-s", "threshold:limit=1..40",
                             "-s", "greedy", "--games", "1000", "--seed", "3", "-j", "2", "--no-report",
                             "--out", str(out)], stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    seen: list[str] = []

    def read():
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # the child closed its end
                return
            if not chunk:
                return
            seen.append(chunk.decode("utf-8", "replace"))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    deadline = time.monotonic() + 240
    # wait until the progress bar shows two cells' games done (however loaded the machine is)
    while time.monotonic() < deadline and proc.poll() is None:
        done = [int(m) for m in re.findall(r"(\d+)/40000", "".join(seen))]
        if done and max(done) >= 2000:
            break
        time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=120)
    reader.join(timeout=10)
    os.close(master)
    err = "".join(seen)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    config = json.loads((out / "config.json").read_text())
    assert config["status"] == "interrupted" and "interrupted (Ctrl-C)" in config["stopping"]["reason"]
    games = pd.read_parquet(out / "sweep.parquet").groupby("cell")["game_index"].nunique()
    assert 1 <= len(games) < 40 and (games == 1000).all()


def test_the_outcome_reads_the_titles_scoring_and_keeps_no_copy_of_it():
    wizard = get_game("wizard")
    fit = designer.Outcome.of(wizard)
    assert [f.name for f in dataclasses.fields(designer.Outcome)] == ["scoring"]
    assert fit.scoring is wizard.scoring and fit.close_margin == 10.0 and fit.kind == "highest score"
    assert designer.Outcome().scoring == Scoring() and designer.Outcome.of(None) == designer.Outcome()
