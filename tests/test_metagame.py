"""The tournament's meta-game (analyser/stats/metagame.py): equilibria with exact known answers, Nash
averaging, cycles, and the acceptance checks through `analyser tournament` on a
rock-paper-scissors title (tests/rps_title.py)."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analyser.stats import metagame as mg
from analyser.cli import cli

RPS = np.array([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], dtype=float)  # rock, paper, scissors
RPS_FILE = str(Path(__file__).with_name("rps_title.py"))
TOY_FILE = str(Path(__file__).with_name("toy_title.py"))


def numbers(text: str) -> list[float]:
    """The numbers of a figure text, in order."""
    return [float(x) for x in re.findall(r"\d+(?:\.\d+)?", text.replace(",", ""))]


def spec(name: str) -> str:
    return f"{RPS_FILE}:{name}"


# --------------------------------------------------------------------------------------------
# Small matrices with known answers
# --------------------------------------------------------------------------------------------

def test_rock_paper_scissors_is_one_third_each_by_lp_and_by_replicator():
    assert mg.max_entropy_nash(RPS) == pytest.approx([1 / 3] * 3)
    p, eps = mg.replicator(lambda q: RPS @ q, 3)
    assert p == pytest.approx([1 / 3] * 3) and eps == pytest.approx(0.0, abs=1e-9)
    assert mg.nash_average(RPS, [1 / 3] * 3) == pytest.approx([0, 0, 0], abs=1e-12)


def test_a_dominated_strategy_gets_no_weight_and_a_negative_nash_average():
    # rock, paper, scissors and a fourth that loses to all three
    a = np.zeros((4, 4))
    a[:3, :3] = RPS
    a[3, :3], a[:3, 3] = -1, 1
    p = mg.max_entropy_nash(a)
    assert p == pytest.approx([1 / 3, 1 / 3, 1 / 3, 0], abs=1e-7)
    assert mg.nash_average(a, p) == pytest.approx([0, 0, 0, -1], abs=1e-7)


def test_a_transitive_3x3_game_has_a_pure_equilibrium_on_the_best():
    a = np.array([[0, 0.2, 0.3], [-0.2, 0, 0.1], [-0.3, -0.1, 0]])
    p = mg.max_entropy_nash(a)
    assert p == pytest.approx([1, 0, 0], abs=1e-7)
    assert mg.nash_average(a, p) == pytest.approx([0, -0.2, -0.3])
    p, eps = mg.replicator(lambda q: a @ q, 3)
    assert p[0] > 1 - mg.SUPPORT and eps < 1e-6


def test_maximum_entropy_shares_a_weight_between_exact_copies():
    # rock twice: the equilibria are (a, b, 1/3, 1/3) with a + b = 1/3; maximum entropy splits it
    a = np.zeros((4, 4))
    a[:3, :3] = RPS
    a[3, :3], a[:3, 3] = RPS[0], RPS[:, 0]
    p = mg.max_entropy_nash(a)
    assert p == pytest.approx([1 / 6, 1 / 3, 1 / 3, 1 / 6], abs=1e-6)
    assert mg.nash_average(a, p) == pytest.approx([0, 0, 0, 0], abs=1e-6)  # as without the copy


def test_identical_strategies_and_a_single_strategy_are_finite():
    assert mg.max_entropy_nash(np.zeros((3, 3))) == pytest.approx([1 / 3] * 3)
    assert mg.max_entropy_nash([[0.0]]) == pytest.approx([1.0])
    p, eps = mg.replicator(lambda q: np.zeros(1), 1)
    assert p == pytest.approx([1.0]) and eps == 0.0


def test_bad_matrices_are_refused():
    with pytest.raises(ValueError, match="antisymmetric"):
        mg.max_entropy_nash([[0, 1], [1, 0]])
    with pytest.raises(ValueError, match="non-finite"):
        mg.max_entropy_nash([[0, np.nan], [1, 0]])
    with pytest.raises(ValueError, match="shape"):
        mg.max_entropy_nash(np.zeros((0, 2)))


def test_replicator_time_average_finds_the_equilibrium_of_an_uneven_cycle():
    # margins 0.1, 0.2, 0.3: the path circles the equilibrium; its average is the equilibrium
    a = np.array([[0, -0.1, 0.2], [0.1, 0, -0.3], [-0.2, 0.3, 0]])
    exact = mg.max_entropy_nash(a)
    assert exact == pytest.approx([0.5, 1 / 3, 1 / 6])  # each weight proportional to the opposite margin
    p, eps = mg.replicator(lambda q: a @ q, 3)
    assert p == pytest.approx(exact, abs=5e-3) and eps < 1e-3


def test_table_payoffs_weigh_each_table_by_its_opponents_weights():
    members = np.array([[0, 1, 2], [0, 1, 3], [0, 2, 3], [1, 2, 3]])
    shares = np.array([[0.1, -0.2, 0.1], [0.3, 0.0, -0.3], [-0.1, 0.2, -0.1], [0.2, -0.1, -0.1]])
    x = np.array([0.4, 0.3, 0.2, 0.1])
    u = mg.table_payoffs(x, members, shares, floor=0.0)
    # strategy 0 meets (1, 2) with weight .3 * .2, (1, 3) with .3 * .1, (2, 3) with .2 * .1
    assert u[0] == pytest.approx((0.06 * 0.1 + 0.03 * 0.3 + 0.02 * -0.1) / 0.11)
    # strategy 3 meets (0, 1) with .12, (0, 2) with .08, (1, 2) with .06
    assert u[3] == pytest.approx((0.12 * -0.3 + 0.08 * -0.1 + 0.06 * -0.1) / 0.26)
    # a uniform mix weighs the tables equally
    assert mg.table_payoffs(np.ones(4) / 4, members, shares)[2] == pytest.approx((0.1 + 0.2 - 0.1) / 3)


def test_replicator_on_tables_of_three_finds_a_dominant_strategy():
    members = np.array([[0, 1, 2], [0, 1, 3], [0, 2, 3], [1, 2, 3]])
    shares = np.array([[1, 0, 0], [1, 0, 0], [1, 0, 0], [1 / 3, 1 / 3, 1 / 3]]) - 1 / 3  # 0 wins every table
    p, eps = mg.replicator(lambda q: mg.table_payoffs(q, members, shares), 4)
    assert p[0] > 1 - mg.SUPPORT and eps < 1e-6


def test_cycles_are_found_once_with_their_weakest_link():
    beats = np.array([[np.nan, 0.3, 0.8], [0.7, np.nan, 0.4], [0.2, 0.6, np.nan]])
    low = beats - 0.15
    found = mg.cycles(beats, low)
    assert [c["cycle"] for c in found] == [(0, 2, 1)]  # 0 beats 2, 2 beats 1, 1 beats 0
    assert found[0]["weakest"] == pytest.approx(0.6) and not found[0]["clear"]  # 0.6 - 0.15 is not above 1/2
    assert mg.cycles(beats, beats - 0.05)[0]["clear"]
    transitive = np.array([[np.nan, 0.7, 0.8], [0.3, np.nan, 0.6], [0.2, 0.4, np.nan]])
    assert mg.cycles(transitive) == []


# --------------------------------------------------------------------------------------------
# Through `analyser tournament`
# --------------------------------------------------------------------------------------------

def tournament(runner, tmp_path, name, specs, *extra):
    out = tmp_path / name
    res = runner.invoke(cli, ["tournament", RPS_FILE, *[a for s in specs for a in ("-s", s)], "--jobs", "1",
                              "--out", str(out), *extra])
    assert res.exit_code == 0, res.output
    table = pd.read_csv(out / "metagame.csv").set_index("strategy")
    data = json.loads((out / "findings.json").read_text())
    assert data["schema"] == "analyser.findings/1" and data["command"] == "tournament"
    # the meta-game's own findings, among the tournament's (analyser.findings.tournament_findings)
    return res, out, table, [f for f in data["findings"] if f["topic"] in ("dominant", "cycle", "unused")]


def test_a_known_cycle_is_found(runner, tmp_path):
    specs = [spec("rock"), spec("paper"), spec("scissors")]
    res, out, table, found = tournament(runner, tmp_path, "rps", specs, "--games", "60", "--seed", "4")
    assert table["weight"].to_numpy() == pytest.approx([1 / 3] * 3, abs=1e-7)
    assert (table["weight_low"] <= 1 / 3 + 1e-7).all() and (table["weight_high"] >= 1 / 3 - 1e-7).all()
    cycle = next(f for f in found if f["topic"] == "cycle")
    assert cycle["strength"] == "clear" and "Rock-paper-scissors cycle" in cycle["sentence"]
    assert {f["topic"]: f["strength"] for f in found} == {"dominant": "none found", "cycle": "clear",
                                                          "unused": "none found"}
    assert "Rock-paper-scissors cycle" in res.output and "Meta-game" in res.output
    page = (out / "index.html").read_text()
    assert "<h2 id=\"findings\">Findings</h2>" in page and page.index("Findings") < page.index("Meta-game")
    assert (out / "metagame.png").stat().st_size > 0


def test_a_noisy_cycle_has_one_third_within_its_intervals(runner, tmp_path):
    specs = [spec("rock"), spec("paper"), spec("scissors")]
    _, _, table, found = tournament(runner, tmp_path, "noisy", specs, "--games", "1500", "--seed", "2",
                                    "--rule", "tremble=0.2")
    assert (table["weight"] - 1 / 3).abs().max() < 0.05
    assert (table["weight_low"] < 1 / 3).all() and (table["weight_high"] > 1 / 3).all()
    assert (table["weight_high"] - table["weight_low"]).min() > 0  # noisy: real intervals
    assert next(f for f in found if f["topic"] == "cycle")["strength"] == "clear"


def test_a_copy_does_not_sway_nash_averaging_but_moves_bradley_terry(runner, tmp_path):
    three = [spec("rock"), spec("paper"), spec("scissors")]
    _, out3, t3, _ = tournament(runner, tmp_path, "three", three, "--games", "60", "--seed", "4")
    _, out4, t4, _ = tournament(runner, tmp_path, "four", three + [spec("stone")], "--games", "120", "--seed", "4")
    for s in three:
        assert t3.loc[s, "nash_average_pp_low"] - 1e-9 <= t4.loc[s, "nash_average_pp"] <= t3.loc[s, "nash_average_pp_high"] + 1e-9
    assert t4["nash_average_pp"].abs().max() < 1e-6
    # the copy shares rock's weight
    assert t4.loc[spec("rock"), "weight"] == pytest.approx(1 / 6, abs=1e-6)
    assert t4.loc[spec("stone"), "weight"] == pytest.approx(1 / 6, abs=1e-6)
    # Bradley-Terry: paper now beats two rocks, and its rating leaves its earlier interval
    r3 = pd.read_csv(out3 / "ranking.csv").set_index("strategy")
    r4 = pd.read_csv(out4 / "ranking.csv").set_index("strategy")
    assert r4.loc[spec("paper"), "rating"] > r3.loc[spec("paper"), "rating_high"] + 0.5


def test_jobs_do_not_change_the_meta_game(runner, tmp_path):
    players = 3  # the replicator path; the two-seat path is a deterministic function of the same games
    specs = [f"{TOY_FILE}:fixed:k={k}" for k in (2, 5, 4, 6)]
    outs = []
    for jobs in ("1", "2"):
        out = tmp_path / f"jobs{jobs}"
        args = ["tournament", TOY_FILE, *[a for s in specs for a in ("-s", s)], "--players", str(players),
                "--games", "240", "--seed", "9", "--jobs", jobs, "--out", str(out), "-q"]
        res = runner.invoke(cli, args)
        assert res.exit_code == 0, res.output
        outs.append(out)
    for name in ("metagame.csv", "empirical_game.csv", "findings.json"):
        assert (outs[0] / name).read_text() == (outs[1] / name).read_text(), name
    table = pd.read_csv(outs[0] / "metagame.csv")
    assert table["strategy"].iloc[0].endswith("k=6")  # the strongest has the best Nash average


def _finite(table: pd.DataFrame) -> bool:
    nums = table.select_dtypes("number").to_numpy()
    return bool(np.isfinite(nums).all())


def test_a_strategy_that_never_wins_gives_finite_output(runner, tmp_path):
    res, out, table, found = tournament(runner, tmp_path, "never", [spec("rock"), spec("paper")], "--games", "20")
    assert _finite(table) and not re.search(r"\bnan\b", res.output, re.IGNORECASE)  # (a word: "dominant" holds "nan")
    assert table.loc[spec("paper"), "weight"] == pytest.approx(1.0)
    assert table.loc[spec("rock"), "nash_average_pp"] == pytest.approx(-50.0)
    dominant = next(f for f in found if f["topic"] == "dominant")
    assert dominant["strength"] == "clear" and dominant["sentence"].startswith(spec("paper"))


def test_identical_strategies_give_finite_output(runner, tmp_path):
    res, out, table, found = tournament(runner, tmp_path, "same", [spec("rock"), spec("stone")], "--games", "20")
    assert _finite(table) and not re.search(r"\bnan\b", res.output, re.IGNORECASE)  # (a word: "dominant" holds "nan")
    assert table["weight"].to_numpy() == pytest.approx([0.5, 0.5])
    assert table["nash_average_pp"].to_numpy() == pytest.approx([0.0, 0.0])
    assert {f["topic"]: f["strength"] for f in found}["unused"] == "none found"
    text = re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]+", "", (out / "index.html").read_text())
    assert not re.search(r"\bnan\b", text, re.IGNORECASE)


def test_a_single_strategy_is_one_line_exit_2(runner):
    res = runner.invoke(cli, ["tournament", RPS_FILE, "-s", spec("rock"), "--games", "10", "--jobs", "1"])
    assert res.exit_code == 2 and "Traceback" not in res.output
    lines = [l for l in res.output.splitlines() if l.strip()]
    assert len(lines) == 1 and lines[0].startswith("analyser: error: ") and "--strategy" in lines[0]


def test_findings_have_the_generic_shape(runner, tmp_path):
    _, _, _, found = tournament(runner, tmp_path, "shape", [spec("rock"), spec("paper"), spec("scissors")],
                                "--games", "30")
    for f in found:
        assert set(f) == {"topic", "sentence", "strength", "evidence", "threshold", "next"}
        assert f["strength"] in ("clear", "possible", "none found")
        assert set(f["evidence"]) == {"figure", "interval"} and f["threshold"]
        assert not any(isinstance(v, float) and math.isnan(v) for v in f.values())


# --------------------------------------------------------------------------------------------
# At the edges: exact copies, solver residues, a duplicate -s
# --------------------------------------------------------------------------------------------

# (the built-in scripts loaded from their folder, so the copy works from a source tree as installed)
COPY = '''import importlib.util

from analyser.engine.registry import builtin_dir

_spec = importlib.util.spec_from_file_location("builtin_dao_for_copy", builtin_dir() / "dao.py")
_dao = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_dao)


class Greedy2(_dao.Greedy):
    """Plays exactly as greedy, under another name."""

    name = "greedy2"
'''


def dao_with_copy(runner, tmp_path, name, *specs):
    (tmp_path / "dupe_greedy.py").write_text(COPY)
    copy = f"{tmp_path / 'dupe_greedy.py'}:greedy2"
    out = tmp_path / name
    res = runner.invoke(cli, ["tournament", "dao", "-s", "greedy", "-s", copy, *[a for s in specs for a in ("-s", s)],
                              "--players", "2", "--games", "400", "--seed", "1", "--jobs", "1", "--out", str(out)])
    assert res.exit_code == 0, res.output
    table = pd.read_csv(out / "metagame.csv").set_index("strategy")
    found = json.loads((out / "findings.json").read_text())["findings"]
    return res, out, copy, table, found


def test_an_exact_copy_shares_the_weight_and_is_said_not_picked_on_noise(runner, tmp_path):
    res, out, copy, table, found = dao_with_copy(runner, tmp_path, "two")
    # the head-to-head is not 50% (seat noise), yet neither copy is picked
    assert table.loc["greedy", "weight"] == table.loc[copy, "weight"] == 0.5
    assert (table["nash_average_pp"] == 0).all()
    same = [f for f in found if f["topic"] == "indistinguishable"]
    assert len(same) == 1 and same[0]["sentence"].split(" cannot ")[0] == f"greedy and {copy}"
    assert "(50.0% each)" in same[0]["sentence"]  # the equilibrium's equal shares (the words: findings snapshot)
    assert same[0]["strength"] == "possible"  # equal results are not shown to be equal play
    dominant = next(f for f in found if f["topic"] == "dominant")
    assert dominant["strength"] == "none found" and "(50.0% each)." in dominant["sentence"]
    assert not any(f["topic"] == "dominant strategy" for f in found)  # one line for both checks
    # nothing recommended, nothing called unused
    assert not [f for f in found if f["topic"] in ("dominant", "unused") and f["strength"] != "none found"]
    # solver residues: without the tolerance the equilibrium of the raw two-strategy game keeps
    # a weight of about 1e-7 on one copy; with it, that weight is 0
    frame = pd.read_parquet(out / "tournament.parquet")
    obs = mg.observations(frame, ["greedy", copy])
    shares, ahead = mg.estimate(obs)
    assert sorted(mg._solve(obs, shares, ahead, None)[0]) == [0.0, 1.0]
    mg_residue = mg.RESIDUE
    try:
        mg.RESIDUE = 0.0
        w = sorted(mg._solve(obs, shares, ahead, None)[0])
    finally:
        mg.RESIDUE = mg_residue
    assert 0 < w[0] < mg.RESIDUE


def test_an_exact_copy_among_others_plays_exactly_alike_and_shares_what_it_earns(runner, tmp_path):
    res, out, copy, table, found = dao_with_copy(runner, tmp_path, "three", "random")
    assert table.loc["greedy", "weight"] == table.loc[copy, "weight"]
    assert table.loc["greedy", "nash_average_pp"] == table.loc[copy, "nash_average_pp"]
    same = next(f for f in found if f["topic"] == "indistinguishable")
    assert same["sentence"].split(" cannot ")[0] == f"greedy and {copy}"
    # tables greedy-random and greedy2-random play the same seeds with the copy in greedy's seat
    assert same["strength"] == "clear" and "134" in same["sentence"].split()  # the paired games, all identical
    assert numbers(same["evidence"]["figure"])[-1] == 134
    used = [f for f in found if f["topic"] == "unused" and f["strength"] != "none found"]
    assert all("greedy" not in f["sentence"].split(":")[0] for f in used)  # neither copy is called unused


def test_a_cycle_through_a_copy_is_counted_once(runner, tmp_path):
    specs = [spec("rock"), spec("paper"), spec("scissors"), spec("stone")]
    res, out, table, found = tournament(runner, tmp_path, "copycycle", specs, "--games", "120", "--seed", "4")
    frame = pd.read_parquet(out / "tournament.parquet")
    meta = mg.analyse(frame, specs, bootstrap=5)
    assert len(mg.cycles(meta.ahead)) == 2  # rock-paper-scissors and stone-paper-scissors ...
    assert len(meta.cycles) == 1  # ... are one cycle
    assert meta.classes == [[spec("rock"), spec("stone")]]
    cycle = next(f for f in found if f["topic"] == "cycle")
    assert "more cycle" not in cycle["sentence"]
    same = json.loads((out / "findings.json").read_text())["findings"]
    exact = next(f for f in same if f["topic"] == "indistinguishable")
    # rock and stone sit in different positions at their tables with paper and scissors, so no game
    # of one pairs with a game of the other: equal results are not shown to be equal play
    assert exact["strength"] == "possible" and exact["evidence"]["figure"] != "-"


def test_a_strategy_given_twice_is_said_not_merged_silently(runner, tmp_path):
    out = tmp_path / "twice"
    res = runner.invoke(cli, ["tournament", RPS_FILE, "-s", spec("rock"), "-s", spec("rock"), "-s", spec("paper"),
                              "--games", "10", "--jobs", "1", "-q", "--out", str(out)])
    assert res.exit_code == 0, res.output
    note = (f"-s {spec('rock')} is given 2 times; a tournament plays each strategy once, so it is played once")
    assert f"Note: {note}" in res.output
    assert note in (out / "index.html").read_text()
    assert json.loads((out / "config.json").read_text())["strategies"] == [spec("rock"), spec("paper")]
    res = runner.invoke(cli, ["tournament", RPS_FILE, "-s", spec("rock"), "-s", spec("rock"), "--games", "10"])
    lines = [line for line in res.output.splitlines() if line.strip()]
    assert res.exit_code == 2 and len(lines) == 1
    assert lines[0].startswith(f"analyser: error: -s {spec('rock')} ") and "2 times" in lines[0]


NEVER = '''from analyser.engine.core import Strategy
from analyser.titles.dao.rules import REVEAL


class Never(Strategy):
    """Always reveals, so it busts and (almost) never wins."""

    name = "never"
    game = "dao"
    uses_rng = False

    def choose(self, view, legal, rng):
        return REVEAL if REVEAL in legal else legal[0]


STRATEGIES = [Never]
'''


@pytest.mark.parametrize("seed", ["2", "3"])
def test_an_exact_copy_at_tables_of_three_shares_the_weight(runner, tmp_path, seed):
    """Tables of three (the replicator path): the copy was picked pure (100% on greedy2, greedy
    'dominated') on seeds 2 and 3.  They play exactly alike in every paired game - the same game
    seed, one in the other's seat beside the same opponents - and share the weight."""
    (tmp_path / "dupe_greedy.py").write_text(COPY)
    (tmp_path / "never.py").write_text(NEVER)
    copy, never = f"{tmp_path / 'dupe_greedy.py'}:greedy2", str(tmp_path / "never.py")
    out = tmp_path / f"three-{seed}"
    res = runner.invoke(cli, ["tournament", "dao", "-s", "greedy", "-s", copy, "-s", "random", "-s", never,
                              "--players", "3", "--games", "300", "--seed", seed, "--jobs", "1", "--out", str(out)])
    assert res.exit_code == 0, res.output
    table = pd.read_csv(out / "metagame.csv").set_index("strategy")
    assert table.loc["greedy", "weight"] == table.loc[copy, "weight"] == 0.5
    assert table.loc["greedy", "nash_average_pp"] == table.loc[copy, "nash_average_pp"]
    found = json.loads((out / "findings.json").read_text())["findings"]
    same = next(f for f in found if f["topic"] == "indistinguishable" and "greedy and" in f["sentence"])
    assert same["strength"] == "clear" and "75" in same["sentence"].split()
    assert numbers(same["evidence"]["figure"])[-1] == 75  # paired games, all with identical results
    # no single one of the copies is the one to play: a dominant finding names them together
    assert all(f["sentence"].startswith(f"greedy and {copy}") for f in found
               if f["topic"] == "dominant" and f["strength"] != "none found")
    for f in found:
        if f["topic"] == "unused" and f["strength"] != "none found":
            assert "greedy" not in f["sentence"].split(":")[0]
    # the different strategies random and never are never said to play alike
    other = [f for f in found if f["topic"] == "indistinguishable" and "random" in f["sentence"]]
    assert all(f["strength"] == "possible" and "not play alike" in f["sentence"] for f in other)
    # the card names the one mix and its weights once each
    page = (out / "index.html").read_text()
    assert f"greedy 50.0%, {copy} 50.0%" in page


def test_exact_copies_are_told_by_paired_games_not_by_counts():
    """exact_copies pairs a game seating i with the game of the same seed seating j in i's seat:
    identical results count as alike, any difference as different."""
    from analyser.stats import metagame_copies as copies

    rows = []
    for table, lineup in enumerate([(0, 2), (1, 2), (0, 1)]):
        for g in range(3):
            for seat, s in enumerate(lineup):
                rank = 1 + (seat + g + (table == 1 and g == 2)) % 2  # table 1 differs in game 2 only
                rows.append({"table": table, "game_index": g, "game_seed": 100 + g, "players": 2, "seat": seat,
                             "strategy": "abc"[s], "rank": rank, "win": float(rank == 1), "score": 3 - rank})
    found = copies.exact_copies(pd.DataFrame(rows), ["a", "b", "c"])
    assert found[(0, 1)] == {"games": 3, "differ": 1}
    assert (0, 2) not in found  # no table seats c in place of a beside the same opponent
    group, pairs = copies.indistinguishable(np.array([[np.nan, 0.5], [0.5, np.nan]]), np.zeros((0, 2, 2)),
                                            {(0, 1): {"games": copies.EXACT_MIN_GAMES, "differ": 0}})
    assert list(group) == [0, 0] and pairs[0]["exact"]
    _, pairs = copies.indistinguishable(np.array([[np.nan, 0.5], [0.5, np.nan]]), np.zeros((0, 2, 2)),
                                        {(0, 1): {"games": copies.EXACT_MIN_GAMES - 1, "differ": 0}})
    assert not pairs[0]["exact"]  # equal counts and too few paired games: not "exactly alike"


def test_a_tiny_tournament_claims_nothing_clear(runner, tmp_path):
    """Two games per table: greedy and colour split 1-1, which is no evidence that they play
    alike, and no meta-game or rating finding is clear from so few games."""
    out = tmp_path / "tiny"
    res = runner.invoke(cli, ["tournament", "dao", "-s", "greedy", "-s", "random", "-s", "colour", "--players", "2",
                              "--games", "1", "--seed", "1", "--jobs", "1", "--out", str(out)])
    assert res.exit_code == 0, res.output
    found = json.loads((out / "findings.json").read_text())["findings"]
    meta = [f for f in found if f["topic"] in ("dominant", "dominant strategy", "cycle", "unused", "indistinguishable")]
    assert meta and all(f["strength"] != "clear" for f in meta)
    same = next(f for f in found if f["topic"] == "indistinguishable")
    assert same["strength"] == "possible"
    # too few games for a clear one
    assert "2 games" in res.output and "per table" in res.output and "20 or more" in res.output
    assert "1 table (equal:" in (out / "index.html").read_text()  # a complete design: one number
    out = tmp_path / "tiny3"
    res = runner.invoke(cli, ["tournament", "dao", "-s", "greedy", "-s", "random", "-s", "colour", "-s", "threshold",
                              "--players", "3", "--games", "3", "--seed", "1", "--jobs", "1", "--out", str(out)])
    assert res.exit_code == 0, res.output
    found = json.loads((out / "findings.json").read_text())["findings"]
    unused = [f for f in found if f["topic"] == "unused" and f["strength"] != "none found"]
    assert unused and all(f["strength"] == "possible" for f in unused)
    assert all(f["strength"] != "clear" for f in found if f["topic"] in ("dominant", "unused", "cycle"))


def test_the_tournament_report_reads_well(runner, tmp_path):
    """The rating is glossed, not glued into a phrase; equal meetings are one number; the two
    "no dominant strategy" checks are one line; decimals of weight and Nash average do not vary."""
    out = tmp_path / "words"
    specs = [f"{TOY_FILE}:fixed:k={k}" for k in (2, 5, 4)]
    res = runner.invoke(cli, ["tournament", TOY_FILE, *[a for s in specs for a in ("-s", s)], "--players", "3",
                              "--games", "60", "--seed", "3", "--jobs", "1", "--out", str(out)])
    assert res.exit_code == 0, res.output
    text = res.output + (out / "index.html").read_text()
    assert "pairwise breaking rating" not in text  # glossed, not glued
    assert " to 1 tables" not in text and "1 table (equal:" in text
    lines = [l.strip() for l in res.output.splitlines()]
    assert not (any(l.startswith("- dominant strategy:") for l in lines) and any(l.startswith("- dominant:") for l in lines))
    meta = res.output.split("Meta-game:")[1].split("Findings")[0]
    assert re.search(r"\b100\.0%", meta) and not re.search(r"\b100%", meta)
