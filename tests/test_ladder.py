"""`analyser ladder`: a level is the simulate run of its two budgets; --jobs does not change it;
resume finishes an interrupted ladder exactly; the skill-depth rule; bad input on one line."""

from __future__ import annotations

import dataclasses
import json
import math
import shutil

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from analyser.stats import analysis
from analyser.cli import cli
from analyser.experiments import ladder as lad
from analyser.experiments import ladder_report
from analyser.experiments.options import LadderOptions, Session
from analyser.results import load_results
from analyser.run import RunSpec

SPEED = ["side_dps", "other_dps"]  # timings: the only figures that may differ between two plays

pytestmark = pytest.mark.usefixtures("quick_ladder_speed")


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def levels(folder) -> pd.DataFrame:
    return pd.read_csv(folder / "levels.csv")


def test_a_level_is_the_simulate_run_of_its_two_budgets(tmp_path):
    """The top level of a DAO ladder (mcts 8 against 4 iterations, 4 seats) is the run `analyser
    simulate dao -s mcts:iterations=8 -s mcts:iterations=4 --seed 5`: the same games, row for
    row, and its figures are simulate's (the side's win rate is its 2 seats' per-seat win rate
    times 2, the cluster-robust interval likewise)."""
    r = invoke("ladder", "dao", "--budgets", "2..8", "--games", 6, "--seed", 5, "-j", 1, "-q", "--out", tmp_path / "l")
    assert r.exit_code == 0, r.output
    r = invoke("simulate", "dao", "-s", "mcts:iterations=8", "-s", "mcts:iterations=4", "--games", 6, "--seed", 5,
               "-j", 1, "-q", "--no-report", "--out", tmp_path / "s")
    assert r.exit_code == 0, r.output
    sim, _, _ = load_results(tmp_path / "s")
    cell, _, _ = load_results(tmp_path / "l" / "cells" / "level-8-vs-4")
    cols = ["game_index", "game_seed", "seat", "strategy", "score", "rank", "win", "players"]
    pd.testing.assert_frame_equal(sim[cols].astype({"strategy": str}), cell[cols].astype({"strategy": str}))

    top = levels(tmp_path / "l").iloc[-1]
    assert (top["budget"], top["lower"], top["games"], top["seats"], top["players"]) == (8, 4, 6, 2, 4)
    assert top["fair_share"] == 0.5 and top["gain_pp"] == pytest.approx((top["win_rate"] - 0.5) * 100)
    summary = analysis.strategy_summary(sim).set_index("strategy")
    strong = summary.loc["mcts:iterations=8"]
    assert summary.attrs["methods"]["win"] == "cluster"  # two seats a game: simulate's interval is the cluster one
    assert top["win_rate"] == pytest.approx(2 * strong["win_rate"], abs=1e-12)
    if strong["win_high"] - strong["win_low"] > 0 and 0 < strong["win_rate"] < 1:
        assert top["win_low"] == pytest.approx(max(0.0, 2 * strong["win_low"]), abs=1e-9)
        assert top["win_high"] == pytest.approx(min(1.0, 2 * strong["win_high"]), abs=1e-9)
    assert top["win_method"] == analysis.METHODS["cluster"]
    # every level plays the same game seeds (common random numbers)
    games = pd.read_parquet(tmp_path / "l" / "ladder.parquet")
    seeds = games.groupby("level")["game_seed"].apply(lambda s: tuple(sorted(set(s))))
    assert seeds.nunique() == 1 and len(seeds) == 2
    # the report: the curve, the table and a Findings sentence that states the depth
    page = (tmp_path / "l" / "index.html").read_text()
    assert "ladder_curve.png" in page and "Findings" in page and "depth" in page
    config = json.loads((tmp_path / "l" / "config.json").read_text())
    assert config["kind"] == "ladder" and config["depth"] in (0, 1, 2)
    assert set(config["speed"]) == {"2", "4", "8"} and all(v["seconds"] > 0 for v in config["speed"].values())
    command = ["analyser", "ladder", "dao", "--strategy", "mcts:iterations", "--budgets", "2,4,8", "--players", "4",
               "--games", "6", "--seed", "5"]
    assert " ".join(command) in page  # the command that replays it


def test_jobs_1_and_2_give_the_same_ladder(tmp_path):
    """Four levels: with --jobs 2 whole levels go to the two workers; the results are the same."""
    spec, options = RunSpec("dao", [], players=2, games=4, seed=11, game_timeout=None), LadderOptions(budgets="1..16")
    one = lad.run_ladder(dataclasses.replace(spec, jobs=1), options, Session(tmp_path / "one"), speed=False)
    two = lad.run_ladder(dataclasses.replace(spec, jobs=2), options, Session(tmp_path / "two"), speed=False)
    assert one.config["status"] == two.config["status"] == "complete"
    pd.testing.assert_frame_equal(one.table, two.table)
    pd.testing.assert_frame_equal(one.gains, two.gains)
    pd.testing.assert_frame_equal(one.results.drop(columns="run_id"), two.results.drop(columns="run_id"))
    assert len(one.table) == 4 and list(one.table["budget"]) == [2, 4, 8, 16]


def test_resume_after_an_interruption_equals_an_uninterrupted_ladder(tmp_path):
    """A ladder stopped with one level done, one level half played and one not started: `resume`
    plays only what is missing and gives the uninterrupted ladder, row for row."""
    args = ["ladder", "dao", "--budgets", "1..8", "-p", "2", "--games", 2, "--seed", 4, "-j", 1, "-q", "--no-report"]
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    assert invoke(*args, "--out", whole).exit_code == 0
    r = invoke(*args, "--games", 1, "--out", cut)  # every level's first game...
    assert r.exit_code == 0, r.output
    record = json.loads((cut / "config.json").read_text())
    record["experiment"]["run"]["games"] = 2  # ...of a ladder of 2 games a level
    record["games_requested"] = 2
    by_name = {c["name"]: c for c in record["cells"]}
    shutil.rmtree(cut / "cells" / "level-8-vs-4")  # the top level never started
    by_name["level-8-vs-4"].update(status="pending", games_done=[])
    for c in record["cells"]:
        if c["name"] != "level-8-vs-4":
            c["status"] = "interrupted"
            cell = json.loads((cut / c["folder"] / "config.json").read_text())
            cell.update(status="interrupted", games_requested=2)
            (cut / c["folder"] / "config.json").write_text(json.dumps(cell))
    record["status"] = "interrupted"
    record.pop("speed")
    (cut / "config.json").write_text(json.dumps(record))
    r = invoke("resume", cut, "-q")
    assert r.exit_code == 0, r.output
    a, b = pd.read_parquet(whole / "ladder.parquet"), pd.read_parquet(cut / "ladder.parquet")
    pd.testing.assert_frame_equal(a.drop(columns="run_id"), b.drop(columns="run_id"))
    pd.testing.assert_frame_equal(levels(whole).drop(columns=SPEED), levels(cut).drop(columns=SPEED))
    done = json.loads((cut / "config.json").read_text())
    assert done["status"] == "complete" and len(done["resumed"]) == 1 and done["games_completed"] == 3 * 2


def gains(rows) -> pd.DataFrame:
    """A doubling table from (from, to, gain, low, high) in pp."""
    t = pd.DataFrame(rows, columns=["from", "to", "gain_pp", "gain_low_pp", "gain_high_pp"]).assign(games=400)
    t["verdict"] = [lad.verdict(lo, hi) for lo, hi in zip(t["gain_low_pp"], t["gain_high_pp"])]
    return t


def test_skill_depth_counts_clear_doublings_from_the_bottom_up_to_the_first_unclear():
    t = gains([(25, 50, 20, 14, 26), (50, 100, 12, 6, 18), (100, 200, 7, 1.5, 12.5), (200, 400, 3, -2, 8),
               (400, 800, 6, 0.5, 11.5), (800, 1600, -7, -12, -2)])
    assert list(t["verdict"]) == ["clear", "clear", "clear", "unclear", "clear", "loss"]
    d = lad.skill_depth(t)
    assert d["depth"] == 3 and d["pays_up_to"] == 200 and d["stops"] == (200, 400, "unclear")
    assert d["later_clear"] == [(400, 800)] and d["losses"] == [(800, 1600)] and d["doublings"] == 6
    f = lad.findings(t, d, param="iterations", against=None, source="mcts")
    assert "200 iterations:" in f[0]["sentence"] and "depth 3" in f[0]["sentence"]
    assert "400 to 800" in f[0]["sentence"] and f[0]["evidence"]["interval"].split(" pp")[0] == "+1.5 to +12.5"
    assert f[1]["topic"] == "loss" and "800 to 1600" in f[1]["sentence"]
    # an interval touching 0 is not clear; none clear at the bottom gives depth 0; all clear, the top
    assert lad.verdict(0.0, 5.0) == "unclear" and lad.verdict(-3.0, 0.0) == "unclear"
    assert lad.skill_depth(gains([(25, 50, 2, -1, 5), (50, 100, 9, 4, 14)]))["depth"] == 0
    top = gains([(25, 50, 9, 4, 14), (50, 100, 9, 4, 14)])
    d = lad.skill_depth(top)
    assert d["depth"] == 2 and d["stops"] is None and d["pays_up_to"] == 100
    s = lad.findings(top, d, param="iterations", against="greedy", source="mcts")[0]["sentence"]
    assert "against greedy" in s and "depth 2," in s and "at least" in s  # still paying at the top


def test_a_strength_curve_against_a_fixed_opponent_pairs_each_doubling_by_game(tmp_path):
    res = lad.run_ladder(RunSpec("dao", [], players=3, games=6, seed=2, jobs=1, game_timeout=None),
                         LadderOptions(budgets="1,4,16", against="greedy"), Session(tmp_path / "c"), speed=False)
    t = res.table
    assert list(t["budget"]) == [1, 4, 16] and t["lower"].isna().all() and list(t["other"]) == ["greedy"] * 3
    # 3 seats, 2 strategies: the sides take the extra seat in turn, block by block of 3 games
    assert list(t["seats"]) == [1.5] * 3 and list(t["fair_share"]) == pytest.approx([0.5] * 3)
    first = res.results[(res.results["level"] == 1) & (res.results["strategy"] == t["side"][0])]
    assert list(first.groupby("game_index").size()) == [2, 2, 2, 1, 1, 1]
    # a gain is the mean per-game change in the laddered side's share, on the same games
    per = [dict(zip(*lad.side_games(res.results[res.results["level"] == k + 1], t["side"][k])[:2]))
           for k in range(3)]
    expect = np.mean([per[1][i] - per[0][i] for i in per[0]]) * 100
    assert res.gains["gain_pp"].iloc[0] == pytest.approx(expect) and len(res.gains) == 2
    assert list(res.gains["from"]) == [1, 4] and list(res.gains["to"]) == [4, 16]
    ladder_report.write_ladder(res, tmp_path / "c")
    assert (tmp_path / "c" / "ladder_curve.png").stat().st_size > 0
    written = pd.read_csv(tmp_path / "c" / "levels.csv")
    assert written["verdict"].iloc[0] == "first budget"
    assert written["change_pp"].iloc[1] == pytest.approx(expect)


def test_another_strategy_ladders_its_named_numeric_parameter(tmp_path):
    s = lad.parse_ladder_strategy("threshold:limit", "dao")
    assert (s.param, s.kind, s.spec(8)) == ("limit", int, "threshold:limit=8")
    s = lad.parse_ladder_strategy("mcts:iterations,c=1.0", "dao")
    assert s.spec(400) == "mcts:iterations=400,c=1.0"
    assert lad.parse_ladder_strategy("mcts", "dao").param == "iterations"
    assert lad.parse_budgets("25..1600") == [25, 50, 100, 200, 400, 800, 1600]
    assert lad.parse_budgets("0.5..2", float) == [0.5, 1.0, 2.0]
    r = invoke("ladder", "dao", "--strategy", "threshold:limit", "--budgets", "4..16", "-p", "2", "--games", 4,
               "--seed", 1, "-j", 1, "--no-report", "--out", tmp_path / "t")
    assert r.exit_code == 0, r.output
    assert "Raising threshold limit" in r.output
    assert list(levels(tmp_path / "t")["side"]) == ["threshold:limit=8", "threshold:limit=16"]


def test_each_level_prints_the_simulate_command_that_replays_it(tmp_path):
    """The command a level prints (and config.json's ``replay``) plays that level again, row for row."""
    import shlex

    r = invoke("ladder", "dao", "--budgets", "2..8", "-p", 3, "--rule", "bust_limit=12", "--games", 4, "--seed", 7,
               "-j", 1, "--no-report", "--out", tmp_path / "l")
    assert r.exit_code == 0, r.output
    printed = [line.split(": ", 1)[1] for line in r.stdout.splitlines() if line.startswith("  level ")]
    config = json.loads((tmp_path / "l" / "config.json").read_text())
    assert printed == [config["replay"]["level-4-vs-2"], config["replay"]["level-8-vs-4"]]
    words = shlex.split(printed[1])
    assert words[:2] == ["analyser", "simulate"]
    r = invoke(*words[1:], "-j", 1, "-q", "--no-report", "--out", tmp_path / "s")
    assert r.exit_code == 0, r.output
    sim, _, _ = load_results(tmp_path / "s")
    cell, _, _ = load_results(tmp_path / "l" / "cells" / "level-8-vs-4")
    cols = ["game_index", "game_seed", "seat", "strategy", "score", "rank", "win", "players"]
    pd.testing.assert_frame_equal(sim[cols].astype({"strategy": str}), cell[cols].astype({"strategy": str}))
    assert json.loads((tmp_path / "s" / "config.json").read_text())["rules"]["bust_limit"] == 12


def test_the_default_game_limit_is_scaled_to_the_measured_cost_of_a_game(tmp_path, monkeypatch):
    """--game-timeout 60 is wall-clock time, which a busy machine trips on a 6.5 CPU s game: the
    default limit is 20 times the estimated CPU seconds of a top-level game, at least 60."""
    from analyser.engine.registry import get_game

    game = get_game("dao")
    top = lad.build_levels(lad.parse_ladder_strategy("mcts", "dao"), [2, 4, 8], None)[-1]
    monkeypatch.setattr(lad, "time_decisions", lambda *a: (0.5, 4))  # 0.125 CPU s a decision
    limit, record = lad.auto_game_timeout(game, top, 2, {}, 1)
    assert record["factor"] == 20 and record["decisions_per_game"] > 0
    assert limit == max(60.0, math.ceil(20 * 0.125 * record["decisions_per_game"]))
    monkeypatch.setattr(lad, "time_decisions", lambda *a: (0.0001, 4))
    assert lad.auto_game_timeout(game, top, 2, {}, 1)[0] == 60.0

    monkeypatch.setattr(lad, "auto_game_timeout", lambda *a: (123.0, {"factor": 20}))
    r = invoke("ladder", "dao", "--budgets", "2..4", "-p", 2, "--games", 2, "--seed", 1, "-j", 1, "-q",
               "--no-report", "--out", tmp_path / "a")
    assert r.exit_code == 0, r.output
    config = json.loads((tmp_path / "a" / "config.json").read_text())
    assert config["game_timeout"] == 123.0 and config["game_timeout_auto"] == {"factor": 20}
    assert config["experiment"]["run"]["game_timeout"] == 123.0  # resume keeps it, measures nothing
    cell = json.loads((tmp_path / "a" / "cells" / "level-4-vs-2" / "config.json").read_text())
    assert cell["game_timeout"] == 123.0

    def never(*a):
        raise AssertionError("measured though --game-timeout was given")

    monkeypatch.setattr(lad, "auto_game_timeout", never)
    r = invoke("ladder", "dao", "--budgets", "2..4", "-p", 2, "--games", 2, "--seed", 1, "-j", 1, "-q",
               "--no-report", "--game-timeout", 7, "--out", tmp_path / "b")
    assert r.exit_code == 0, r.output
    config = json.loads((tmp_path / "b" / "config.json").read_text())
    assert config["game_timeout"] == 7 and config["game_timeout_auto"] is None


@pytest.mark.parametrize("args, needle", [
    (["--budgets", "25..1000"], "1000 is not 25 doubled a whole number of times"),
    (["--budgets", "400..25"], "must be above the bottom"),
    (["--budgets", "0..8"], "'0' is not above 0"),
    (["--budgets", "a..b"], "'a' is not a number"),
    (["--budgets", "25"], "at least two values in ascending order"),
    (["--budgets", "50,25"], "at least two values in ascending order"),
    (["--budgets", "2.5..10"], "not a whole number"),
    (["--strategy", "mcts:rollout"], "rollout is not a numeric parameter of mcts"),
    (["--strategy", "mcts:depth"], "mcts has no parameter 'depth'"),
    (["--strategy", "threshold"], "name exactly one parameter to ladder"),
    (["--strategy", "nosuch:limit"], "unknown strategy 'nosuch'"),
    (["--against", "nosuch"], "unknown strategy 'nosuch'"),
    (["--against", "mcts:iterations=50"], "is the laddered strategy at one of the budgets"),
    (["--strategy", "mcts:iterations,iterations=5"], "do not also give it a value"),
    (["--strategy", "mcts:time_ms", "--budgets", "10..40"], "time_ms"),  # the clock decides it: not reproducible
    (["--strategy", "mcts:iterations,time_ms=5"], "time_ms"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, args, needle):
    out = tmp_path / "never"
    r = invoke("ladder", "dao", *args, "--games", 2, "-q", "--out", out)
    assert r.exit_code == 2, r.output
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], r.output
    assert "Traceback" not in r.output and not out.exists()


@pytest.mark.soak
def test_soak_dao_ladder_top_level_agrees_with_simulate_within_intervals(tmp_path):
    """At budgets that play real DAO (50 against 100 iterations, 2 seats, 150 games), a
    simulate of the same two budgets on other games (another seed) agrees within intervals."""
    r = invoke("ladder", "dao", "--budgets", "25..100", "-p", "2", "--games", 150, "--seed", 8, "-q", "--no-report",
               "--out", tmp_path / "l")
    assert r.exit_code == 0, r.output
    r = invoke("simulate", "dao", "-s", "mcts:iterations=100", "-s", "mcts:iterations=50", "-p", "2", "--games", 150,
               "--seed", 9, "-q", "--no-report", "--out", tmp_path / "s")
    assert r.exit_code == 0, r.output
    sim, _, _ = load_results(tmp_path / "s")
    strong = analysis.strategy_summary(sim).set_index("strategy").loc["mcts:iterations=100"]
    top = levels(tmp_path / "l").iloc[-1]
    assert top["win_low"] <= strong["win_high"] and strong["win_low"] <= top["win_high"]
    assert not math.isnan(top["win_low"])
