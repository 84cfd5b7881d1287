"""Findings (analyser.findings): each kind on a small hand-built summary that should trigger it
and one that should not, the ordering, findings.json, and every command's report opening with
Findings."""

import json
import math
import re
import shlex
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from analyser import findings as F
from analyser.cli import cli
from analyser.stats.designer import Outcome
from analyser.engine.registry import game_ids, get_game


def numbers(text: str) -> list[float]:
    """The numbers of a figure or interval text, in order ("+1.0 to +9.0 pp" -> [1.0, 9.0])."""
    return [float(x) for x in re.findall(r"[-+]?\d+(?:\.\d+)?", text.replace(",", ""))]


def strategies(*rows):
    """A strategy table: (name, win rate, low, high, player-games)."""
    return pd.DataFrame(rows, columns=["strategy", "win_rate", "win_low", "win_high", "n"])


def context(game="dao", players=2, sums=None, part=None, outcome=None, config=None, lineup=("greedy", "random"),
            rules=None, runs=("r1",)):
    g = get_game(game)
    part = part or SimpleNamespace(players=players, run={"games": 1000, "mirror": []}, label="",
                                   strategies=strategies(("greedy", 0.6, 0.57, 0.63, 1000),
                                                         ("random", 0.4, 0.37, 0.43, 1000)))
    return F.RunContext(g, outcome or Outcome.of(g), part, sums or {}, config or {}, list(lineup), rules or {},
                        list(runs))


# --------------------------------------------------------------------------------------------
# Each kind: triggered, and not
# --------------------------------------------------------------------------------------------

def test_dominant_strategy_clear_possible_and_none():
    rows = [("greedy", 0.52, 0.48, 0.56, 400), ("colour", 0.28, 0.24, 0.32, 400), ("random", 0.08, 0.06, 0.11, 400)]
    f = F.ahead_of_all("dominant strategy", [r[:4] for r in rows], what="win rate", unit="%", subject="strategy")
    assert f.strength == "clear" and f.sentence.split()[0] == "greedy"
    assert numbers(f.figure) == [52.0, 28.0] and f.figure.index("greedy") < f.figure.index("colour")
    assert f.interval.split("; ") == ["greedy 48.0-56.0%", "colour 24.0-32.0%"] and f.next is None
    assert f.threshold  # (its words: tests/golden/text/findings.txt)
    # overlapping intervals, but the best's lower end above the runner-up's win rate
    f = F.ahead_of_all("dominant strategy", [("a", 0.34, 0.31, 0.37), ("b", 0.30, 0.26, 0.33)], what="win rate",
                       unit="%", subject="strategy")
    assert f.strength == "possible" and f.sentence.split()[0] == "a"
    assert f.interval.split("; ") == ["a 31.0-37.0%", "b 26.0-33.0%"]
    f = F.ahead_of_all("dominant strategy", [("a", 0.34, 0.29, 0.39), ("b", 0.33, 0.28, 0.38)], what="win rate",
                       unit="%", subject="strategy")
    assert f.strength == "none found" and f.interval.split("; ") == ["a 29.0-39.0%", "b 28.0-38.0%"]


def test_dominant_strategy_is_left_out_of_a_mirror_match():
    part = SimpleNamespace(players=2, run={"games": 100, "mirror": ["greedy"]}, label="",
                           strategies=strategies(("greedy", 0.5, 0.5, 0.5, 200)))
    (left,) = F.dominant_strategy(context(part=part))
    assert isinstance(left, F.LeftOut) and left.topic == "dominant strategy" and left.reason


def test_never_wins_clear_possible_and_none():
    table = strategies(("greedy", 0.92, 0.90, 0.94, 1000), ("random", 0.03, 0.02, 0.05, 1000))
    (f,) = F.never_wins_rows(table, 2, lambda s: f"analyser play dao -s greedy -s {s} --seed 7")
    assert f.strength == "clear" and f.topic == "never wins"
    assert (f.figure.split(": "), f.interval) == (["random", "win rate 3.0%"], "2.0-5.0%")
    assert f.sentence.split()[0] == "random" and "1,000" in f.sentence and "12.5%" in f.threshold
    assert shlex.split(f.next) == ["analyser", "play", "dao", "-s", "greedy", "-s", "random", "--seed", "7"]
    (f,) = F.never_wins_rows(strategies(("a", 0.9, 0.85, 0.95, 100), ("b", 0.10, 0.05, 0.16, 100)), 2)
    assert (f.strength, f.extra["strategy"], f.next) == ("possible", "b", None)
    (f,) = F.never_wins_rows(strategies(("a", 0.0, 0.0, 0.01, 400), ("b", 1.0, 0.99, 1.0, 400)), 2)
    assert (f.strength, f.extra["strategy"], f.interval) == ("clear", "a", "0.00-1.00%") and "400" in f.sentence
    (f,) = F.never_wins_rows(strategies(("a", 0.5, 0.45, 0.55, 400), ("b", 0.2, 0.16, 0.24, 400)), 2)
    assert (f.strength, f.figure.split(": "), f.interval) == ("none found", ["b", "win rate 20.0%"], "16.0-24.0%")
    assert "12.5%" in f.sentence


@pytest.mark.parametrize("share, players, most", [(0.275, 4, False), (0.32, 4, False), (0.6, 2, True), (0.9, 2, True)])
def test_skill_decides_most_only_when_the_share_is_above_half(share, players, most):
    """A 27.5% skill share was headed "skill decides most of who wins" (issue 28): "most" needs
    more than half, even where the seating caps the share (two seats each of two strategies at
    four: a third at most)."""
    (f,) = F.luck_rows({"skill_share": share, "skill_low": share - 0.02, "skill_high": share + 0.02},
                       players=players, strategies=2)
    assert f.strength == "clear" and f.interval == f"{100 * share - 2:.1f}-{100 * share + 2:.1f}%"
    # "most" needs more than half: the sentence opens with Skill only then (its words: the findings snapshot)
    assert (f.sentence.split()[0] == "Skill") is most
    assert f"{100 * share:.1f}%" in f.sentence


def test_luck_share_very_high_very_low_and_neither():
    (f,) = F.luck_rows({"skill_share": 0.01, "skill_low": 0.0, "skill_high": 0.03}, players=2, strategies=2)
    assert (f.strength, f.sentence.split()[0], f.interval) == ("clear", "Luck", "0.0-3.0%")
    assert "1.0%" in f.sentence and "99.0%" in f.sentence  # the skill share and the luck share
    (f,) = F.luck_rows({"skill_share": 0.04, "skill_low": 0.01, "skill_high": 0.08}, players=2, strategies=2)
    assert (f.strength, f.sentence.split()[0], f.interval) == ("possible", "Luck", "1.0-8.0%")
    (f,) = F.luck_rows({"skill_share": 0.7, "skill_low": 0.6, "skill_high": 0.8}, players=2, strategies=2)
    assert (f.strength, f.sentence.split()[0]) == ("clear", "Skill")
    (f,) = F.luck_rows({"skill_share": 0.2, "skill_low": 0.15, "skill_high": 0.25}, players=2, strategies=2)
    assert (f.strength, f.interval) == ("none found", "15.0-25.0%")
    # two seats each at four: the ceiling is a third, so a quarter is most of what is possible
    assert F.run._ceiling(4, 2) == (pytest.approx(1 / 3), 2)
    (f,) = F.luck_rows({"skill_share": 0.25, "skill_low": 0.2, "skill_high": 0.3}, players=4, strategies=2)
    assert f.strength == "clear" and "33.3%" in f.sentence and f.sentence.split()[0] != "Skill"
    assert F.run._ceiling(4, 3) == (1.0, 1) and F.run._ceiling(2, 3) == (1.0, 1) and F.run._ceiling(6, 3)[1] == 2
    (left,) = F.luck_rows({"skill_share": math.nan, "skill_low": math.nan, "skill_high": math.nan}, 2, 2)
    assert isinstance(left, F.LeftOut) and left.topic == "luck share" and left.reason


def drama(games, early):
    return {"drama": pd.DataFrame({"games": [games], "good_n": [games], "early_n": [early]})}


def test_runaway_leader_clear_possible_none_and_left_out():
    (f,) = F.runaway_leader(context(sums=drama(200, 150)))
    assert (f.strength, f.interval) == ("clear", "68.6-80.5%") and "75.0%" in f.sentence
    # the strongest against itself
    assert shlex.split(f.next) == ["analyser", "simulate", "dao", "-s", "greedy", "--players", "2", "--games", "1000"]
    (f,) = F.runaway_leader(context(sums=drama(200, 110)))
    assert f.strength == "possible" and "55.0%" in f.sentence
    (f,) = F.runaway_leader(context(sums=drama(200, 60)))
    assert f.strength == "none found" and f.next is None and "30.0%" in f.sentence
    (left,) = F.runaway_leader(context(sums={}))
    assert isinstance(left, F.LeftOut) and left.topic == "runaway leader" and left.reason
    tsuro = get_game("tsuro-seas")
    (left,) = F.runaway_leader(context(sums=drama(200, 150), outcome=Outcome.of(tsuro)))
    assert isinstance(left, F.LeftOut) and left.reason == Outcome.of(tsuro).reason


def test_long_tail_clear_possible_none_and_the_quantile_interval():
    values, counts = np.array([10.0, 50.0]), np.array([900.0, 100.0])
    (f,) = F.tail_rows(values, counts, "rounds", lambda p95: f"cap at {p95:g}")
    assert (f.strength, f.next) == ("clear", "cap at 50")
    assert "50" in f.sentence.split() and "5.0" in f.sentence.split()  # the 99th percentile, 5.0 times the median
    (f,) = F.tail_rows(np.array([10.0, 25.0]), np.array([985.0, 15.0]), "turns")
    assert f.strength == "possible" and f.next is None
    (f,) = F.tail_rows(np.array([10.0, 11.0, 12.0]), np.array([300.0, 400.0, 300.0]), "turns")
    assert f.strength == "none found" and "1.1" in f.sentence.split()
    (f,) = F.tail_rows(np.array([120.0]), np.array([500.0]), "tricks")
    assert f.strength == "none found" and f.sentence.split()[-2:] == ["120", "tricks."]
    # the quantile is numpy's on the data written out; the interval's ends are order statistics around it
    rng = np.random.default_rng(1)
    data = rng.geometric(0.05, 2000).astype(float)
    v, c = np.unique(data, return_counts=True)
    q, lo, hi = F.quantile_interval(v, c, 0.99)
    assert q == pytest.approx(np.quantile(data, 0.99))
    s = np.sort(data)
    assert lo == s[1970 - 1] and hi == s[1989 - 1] and lo <= q <= hi  # binom.ppf(.025/.975, 2000, .99) = 1970, 1988
    (left,) = F.long_tail(context(sums={"turns": pd.DataFrame({"count": [50.0]}, index=pd.Index([10.0]))}))
    assert isinstance(left, F.LeftOut) and left.topic == "long tail" and "100" in left.reason.split()


def test_tie_rate_clear_possible_and_none():
    (f,) = F.tie_rows(0.15, 0.13, 0.17, 1000, "analyser sweep dao --rule tie_break=most_cards,shared")
    assert (f.strength, f.interval) == ("clear", "13.0-17.0%") and "15.0%" in f.sentence and "1,000" in f.sentence
    assert f.next.endswith("tie_break=most_cards,shared")
    (f,) = F.tie_rows(0.11, 0.07, 0.16, 200)
    assert (f.strength, f.interval) == ("possible", "7.0-16.0%")
    (f,) = F.tie_rows(0.02, 0.01, 0.03, 1000)
    assert f.strength == "none found" and f.next is None


def test_next_commands_name_the_titles_declared_options():
    ctx = context("dragon-lairds", players=4, lineup=("income", "random"), rules={"hand_limit": "3"})
    assert shlex.split(F.length_cap_command(ctx, 14.2)) == [
        "analyser", "compare", "dragon-lairds", "-s", "income", "-s", "random", "--players", "4",
        "--rule", "hand_limit=3", "--a", "max_rounds=15", "--games", "1000"]
    assert shlex.split(F.tie_break_command(ctx)) == [
        "analyser", "sweep", "dragon-lairds", "-s", "income", "-s", "random", "--players", "4",
        "--rule", "hand_limit=3", "--games", "1000", "--rule", "tie_break=shared,honour"]
    wizard = context("wizard", players=4)
    assert F.length_cap_command(wizard, 10) is None and F.tie_break_command(wizard) is None


@pytest.mark.parametrize("game", game_ids())
def test_declared_cap_and_tie_break_options_exist(game):
    g = get_game(game)
    options = {o["name"]: o for o in g.Params.options()}
    cap, tie = g.scoring.length_cap_rule, g.scoring.tie_break_rule  # optional title attributes
    assert (cap, tie) == {"dao": ("", "tie_break"), "wizard": ("", ""), "tsuro-seas": ("max_turns", ""),
                          "kingdomino-duel": ("max_rounds", "tie_break"),
                          "dragon-lairds": ("max_rounds", "tie_break")}[game]
    if cap:
        assert options[cap]["type"] == "int"
    if tie:
        assert len(options[tie]["choices"]) >= 2


# --------------------------------------------------------------------------------------------
# Experiments
# --------------------------------------------------------------------------------------------

def cells(rates, tied, seats, seat_p, fixed=False):
    rows = []
    for k, (r, t, s, p) in enumerate(zip(rates, tied, seats, seat_p)):
        rows.append({"cell": k, "limit": 6 + k, "slot": 0, "win_rate": r, "win_low": r - 0.03, "win_high": r + 0.03,
                     "diff": r - max(rates), "diff_low": r - max(rates) - 0.02, "diff_high": r - max(rates) + 0.02,
                     "tied_with_best": t, "fixed": fixed, "games": 1000, "seat_p": p, "seat0_win": s,
                     "seat1_win": 1 - s})
    return pd.DataFrame(rows).sort_values("win_rate", ascending=False)


def test_sweep_best_cell_and_seat_balance():
    c = cells([0.40, 0.30, 0.20], [True, False, False], [0.5, 0.5, 0.5], [0.9, 0.8, 0.95])
    (f,) = F.experiments._best_cell(c, ["limit"], "threshold")
    assert (f.strength, f.interval) == ("clear", "37.0-43.0%") and f.figure.startswith("best cell limit=6:")
    assert "limit=7," in f.sentence.split() and "10.0" in f.sentence.split()  # the runner-up, 10.0 pp behind
    assert "8.0" in f.sentence.split() and "12.0" in f.sentence.split()  # its paired interval
    c = cells([0.40, 0.39, 0.20], [True, True, False], [0.5, 0.5, 0.5], [0.9, 0.8, 0.95])
    (f,) = F.experiments._best_cell(c, ["limit"], "threshold")
    assert f.strength == "possible" and f.sentence.split()[-1] == "limit=7."  # the cell tied with the best
    (f,) = F.experiments._best_cell(cells([0.40, 0.39], [True, True], [0.5, 0.5], [0.9, 0.9]), ["limit"], "threshold")
    assert (f.strength, f.interval) == ("none found", "37.0-43.0%")
    (left,) = F.experiments._best_cell(cells([0.5, 0.5], [True, True], [0.6, 0.5], [0.01, 0.9], fixed=True), ["limit"], "greedy")
    assert isinstance(left, F.LeftOut) and left.topic == "best cell" and left.reason
    # the seat balance moves from 62/38 to 50/50 with the value
    (f,) = F.experiments._seat_cells(cells([0.5, 0.5], [True, True], [0.62, 0.50], [1e-10, 0.9], fixed=True), ["limit"], None)
    assert f.strength == "clear"
    # the least even cell, then the most even, each with its seats' win rates
    least, most = f.sentence.index("limit=6"), f.sentence.index("limit=7")
    assert least < f.sentence.index("62.0%") < f.sentence.index("38.0%") < most < f.sentence.index("50.0%")
    wins = [[620, 380], [500, 500]]  # share x games
    assert f.extra["homogeneity_p"] == pytest.approx(stats.chi2_contingency(wins, correction=False).pvalue)
    (f,) = F.experiments._seat_cells(cells([0.5, 0.5], [True, True], [0.51, 0.50], [0.6, 0.9], fixed=True), ["limit"], None)
    p = stats.chi2_contingency([[510, 490], [500, 500]], correction=False).pvalue
    assert f.strength == "none found" and f.extra["homogeneity_p"] == pytest.approx(p) and p > 0.05


def test_compare_largest_clear_difference_per_unit_with_holm():
    table = pd.DataFrame([
        {"figure": "win rate: greedy", "a": 0.58, "b": 0.73, "diff": -0.15, "low": -0.20, "high": -0.10, "p": 1e-6},
        {"figure": "win rate: threshold", "a": 0.42, "b": 0.27, "diff": 0.15, "low": 0.10, "high": 0.20, "p": 1e-6},
        {"figure": "seat 0 win rate", "a": 0.50, "b": 0.46, "diff": 0.04, "low": 0.005, "high": 0.075, "p": 0.03},
        {"figure": "game length", "a": 63.2, "b": 42.7, "diff": 20.5, "low": 19.7, "high": 21.4, "p": 1e-100},
        {"figure": "mean score: greedy", "a": 3.0, "b": 3.4, "diff": -0.4, "low": -0.8, "high": -0.01, "p": 0.04},
    ])
    cmp = SimpleNamespace(table=table)
    found = F.compare_findings(cmp, "points", "turns")
    by = {f.extra["group"]: f for f in found}
    assert (by["rates"].strength, by["rates"].extra["compared"]) == ("clear", "win rate: greedy")
    assert numbers(by["rates"].figure) == [-15.0] and numbers(by["rates"].interval) == [-20.0, -10.0]
    assert "58.0%" in by["rates"].sentence and "73.0%" in by["rates"].sentence
    assert by["game length"].extra["compared"] == "game length" and numbers(by["game length"].figure) == [20.5]
    # p = 0.04 is not clear once five figures are compared: Holm gives max(2 x 0.03, 1 x 0.04) = 0.06
    assert by["mean scores"].strength == "possible" and "0.06;" in by["mean scores"].sentence.split()
    assert [f.strength for f in found] == ["clear", "clear", "possible"]
    none = F.compare_findings(SimpleNamespace(table=table.assign(p=0.5, low=-1.0, high=1.0)))
    (f,) = none
    assert f.strength == "none found" and "(5" in f.sentence.split()


# --------------------------------------------------------------------------------------------
# Ordering and findings.json
# --------------------------------------------------------------------------------------------

def test_component_outliers_take_the_component_analysis_findings_into_the_one_list():
    """The hook of the component analysis (issue 18 section 3): the findings it puts on the part,
    in its dict shape, join the report's list under "component outliers", ordered by strength."""
    clear = {"topic": "component", "component": "card-07", "strength": "clear", "next": "analyser compare ...",
             "sentence": "card-07 (Gold mine): a seat that has it wins 21.3 pp more often than the same strategy "
                         "in the same seat without it.",
             "evidence": {"figure": "+21.3 pp; win rate 61.0% with it, 39.7% without; held by 12.0% of "
                                    "seat-games; q < 0.001", "interval": "+17.9 to +24.7 pp"},
             "threshold": "clear when the Benjamini-Hochberg q over the title's 40 components with an estimate is "
                          "at most 0.05 (a 95% interval that excludes 0 is then implied)"}
    base = context().part
    part = SimpleNamespace(**vars(base), components=pd.DataFrame({"component": ["card-07"]}),
                           component_findings=[clear])
    found = F.collect(context(part=part), [("seat advantage", lambda c: []), ("component outliers",
                                                                            F.component_outliers)])
    (f,) = found.topic("component outliers")
    assert (f.strength, f.next, f.extra["component"]) == ("clear", clear["next"], "card-07")
    assert numbers(f.interval) == [17.9, 24.7]
    assert F.Findings.ordered(found.items, ["component outliers"]) == found.items
    assert f.to_json()["evidence"]["figure"].startswith("+21.3 pp")
    # a title without components: left out with the reason; no component analysis at all: nothing
    part = SimpleNamespace(**vars(base), components=None, component_findings=[])
    (left,) = F.component_outliers(context(part=part))
    assert isinstance(left, F.LeftOut) and left.topic == "component outliers" and left.reason
    assert F.component_outliers(context(part=base)) == []


def test_clear_before_possible_then_by_importance_none_found_last():
    def f(topic, strength):
        return F.Finding(topic, f"{topic} {strength}", strength, "x", "-", "t")

    found = F.gather([("seat advantage", lambda: [f("seat advantage", "possible")]),
                      ("never wins", lambda: [f("never wins", "none found")]),
                      ("tie rate", lambda: [f("tie rate", "clear"), F.LeftOut("", "no games")]),
                      ("long tail", lambda: [{"topic": "long tail", "sentence": "s", "strength": "clear",
                                              "evidence": {"figure": "a", "interval": "b"}, "threshold": "t",
                                              "next": ""}])])
    assert [(x.topic, x.strength) for x in found] == [("tie rate", "clear"), ("long tail", "clear"),
                                                      ("seat advantage", "possible"), ("never wins", "none found")]
    assert found.items[1].next is None  # "" from a dict is no command
    assert [(x.topic, x.reason) for x in found.left_out] == [("tie rate", "no games")]
    with pytest.raises(ValueError):
        F.Finding("x", "y", "strong", "a", "b", "c")


def test_findings_json_schema_and_terminal_lines(tmp_path):
    group = F.gather([("tie rate", lambda: F.tie_rows(0.15, 0.13, 0.17, 1000)),
                      ("runaway leader", lambda: [F.LeftOut("", "no trace")])])
    path = F.write_json(tmp_path / "findings.json", "simulate", "dao", [group])
    data = json.loads(path.read_text(), parse_constant=lambda c: pytest.fail(f"{c} in findings.json"))
    assert set(data) == {"schema", "command", "game", "findings", "left_out"}
    assert data["schema"] == F.SCHEMA and data["command"] == "simulate" and data["game"] == "dao"
    (item,) = data["findings"]
    assert set(item) == {"topic", "sentence", "strength", "evidence", "threshold", "next"}
    assert item["strength"] == "clear" and set(item["evidence"]) == {"figure", "interval"} and item["next"] is None
    assert data["left_out"] == [{"topic": "runaway leader", "reason": "no trace"}]
    two = F.document("simulate", "dao", [F.Findings(group.items, [], "players=2"), F.Findings([], [], "players=3")])
    assert [v["variant"] for v in two["variants"]] == ["players=2", "players=3"] and "findings" not in two
    lines = F.lines([group])
    # the shape: the numbered finding with its strength, its evidence indented, the left-out checks last
    (item,) = group.items
    assert lines[0] == f"1. [clear] {item.sentence}"
    assert lines[1].startswith("   ") and item.figure in lines[1] and item.interval in lines[1]
    assert lines[-1].split(": ") == ["  - runaway leader", "no trace."]


# --------------------------------------------------------------------------------------------
# Through the commands
# --------------------------------------------------------------------------------------------

def opens_with_findings(page: str) -> None:
    """The first section heading of the page is Findings, and no text says nan."""
    first = re.search(r"<h2[^>]*>(.*?)</h2>", page)
    assert first and first.group(1) == "Findings"
    text = re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]+", "", page)
    assert not re.search(r"\bnan\b", text, re.IGNORECASE)


def findings_heads(output: str) -> int:
    """The number of findings lists in a command's output: a line opening with "Findings", then
    numbered items ("1. [clear] ...")."""
    lines = output.splitlines()
    return sum(1 for i, line in enumerate(lines[:-1])
               if line.startswith("Findings") and re.match(r"(1\. \[|Nothing found|Checked)", lines[i + 1]))


def read_json(path):
    return json.loads(path.read_text(), parse_constant=lambda c: pytest.fail(f"{c} in {path}"))


def test_simulate_opens_with_findings_and_replays_a_lost_game(runner, tmp_path):
    out = tmp_path / "run"
    r = runner.invoke(cli, ["simulate", "wizard", "-s", "expected", "-s", "random", "--players", "3", "--games", "60",
                            "--seed", "3", "--jobs", "1", "--out", str(out)])
    assert r.exit_code == 0, r.output
    opens_with_findings((out / "index.html").read_text())
    data = read_json(out / "findings.json")
    assert data["command"] == "simulate" and data["game"] == "wizard"
    assert "findings.json" in json.loads((out / "config.json").read_text())["files"]
    topics = [f["topic"] for f in data["findings"]] + [x["topic"] for x in data["left_out"]]
    import dataclasses
    from analyser.report.page import Part
    analysed = "components" in {x.name for x in dataclasses.fields(Part)}  # the component analysis is built in
    # every check once, but the component outliers: up to 3 components get a finding each
    assert 1 <= topics.count("component outliers") <= 3
    once = [t for t in topics if t != "component outliers"] + ["component outliers"]
    assert sorted(once) == sorted(t for t, _ in F.RUN_CHECKS if analysed or t != "component outliers")
    assert findings_heads(r.output) == 1 and "[clear]" in r.output
    never = next(f for f in data["findings"] if f["topic"] == "never wins")
    assert never["strategy"] == "random" and never["strength"] == "clear"
    # the command replays a game random lost: its game seed and lineup are that game's
    words = shlex.split(never["next"])
    assert words[:3] == ["analyser", "play", "wizard"] and words[words.index("--players") + 1] == "3"
    seed = int(words[words.index("--seed") + 1])
    lineup = [words[i + 1] for i, w in enumerate(words) if w == "-s"]
    df = pd.read_parquet(out / "results")
    game = df[df["game_seed"] == seed].sort_values("seat")
    assert list(game["strategy"].astype(str)) == lineup
    assert (game[game["strategy"] == "random"]["win"] == 0).all()
    played = runner.invoke(cli, words[1:])
    assert played.exit_code == 0, played.output


def test_report_of_variants_has_one_list_per_variant(runner, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for out, rule in ((a, "bust_limit=12"), (b, "bust_limit=10")):
        r = runner.invoke(cli, ["simulate", "dao", "-s", "greedy", "-s", "random", "--players", "2", "--games", "20",
                                "--seed", "1", "--jobs", "1", "--rule", rule, "--out", str(out), "-q", "--no-report"])
        assert r.exit_code == 0, r.output
    joined = tmp_path / "joined.csv"
    pd.concat([pd.read_parquet(a / "results"), pd.read_parquet(b / "results")]).to_csv(joined, index=False)
    r = runner.invoke(cli, ["report", str(joined), "--out", str(tmp_path / "rep")])
    assert r.exit_code == 0, r.output
    data = read_json(tmp_path / "rep" / "findings.json")
    assert [v["variant"] for v in data["variants"]] == ["bust_limit=10", "bust_limit=12"] or len(data["variants"]) == 2
    page = (tmp_path / "rep" / "index.html").read_text()
    opens_with_findings(page)
    assert page.count("<h3>Variant ") >= 2


def test_sweep_tournament_and_compare_open_with_findings(runner, tmp_path):
    sw, tn, cp = tmp_path / "sweep", tmp_path / "tournament", tmp_path / "compare"
    r = runner.invoke(cli, ["sweep", "dao", "-s", "threshold:limit=6,9", "-s", "greedy", "--players", "2", "--games",
                            "40", "--seed", "2", "--jobs", "1", "--out", str(sw)])
    assert r.exit_code == 0, r.output
    assert findings_heads(r.output) == 1
    r = runner.invoke(cli, ["tournament", "dao", "-s", "greedy", "-s", "random", "-s", "threshold", "--players", "2",
                            "--games", "60", "--seed", "3", "--jobs", "1", "--bootstrap", "10", "--out", str(tn)])
    assert r.exit_code == 0, r.output
    assert findings_heads(r.output) == 1
    r = runner.invoke(cli, ["compare", "dao", "-s", "greedy", "-s", "threshold", "--players", "2", "--a",
                            "bust_limit=12", "--b", "bust_limit=9", "--games", "60", "--seed", "4", "--jobs", "1",
                            "--out", str(cp)])
    assert r.exit_code == 0, r.output
    assert findings_heads(r.output) == 1
    for out, command, topics in ((sw, "sweep", {"best cell", "seat balance across cells"}),
                                 (tn, "tournament", {"seat advantage", "dominant", "cycle", "unused", "never wins"}),
                                 (cp, "compare", {"largest difference"})):
        opens_with_findings((out / "index.html").read_text())
        data = read_json(out / "findings.json")
        assert data["command"] == command
        assert {f["topic"] for f in data["findings"]} | {x["topic"] for x in data["left_out"]} == topics
        assert "findings.json" in json.loads((out / "config.json").read_text())["files"]
        if command == "tournament":  # greedy tops the ratings and the meta-game: one finding says both
            top = [f for f in data["findings"] if f["topic"] in ("dominant", "dominant strategy")]
            assert len(top) == 1 and top[0]["strength"] != "none found"
            assert top[0]["sentence"].split()[0] == "greedy"  # the meta-game's and the rating's pick, merged
            interval = top[0]["evidence"]["interval"]
            assert interval.startswith("weight ") and "; rating " in interval
            assert "Bradley-Terry rating: greedy" in top[0]["evidence"]["figure"]
        # `analyser report OUT` rebuilds the experiment from its cells: the same findings, first in the page
        first = (out / "findings.json").read_text()
        (out / "findings.json").unlink()
        r = runner.invoke(cli, ["report", str(out)])
        assert r.exit_code == 0, r.output
        assert findings_heads(r.output) == 1
        assert (out / "findings.json").read_text() == first
        opens_with_findings((out / "index.html").read_text())


@pytest.mark.parametrize("players", [2, 3])
def test_a_zero_point_handicap_is_never_said_to_bring_a_seat_to_the_fair_share(players):
    """``simulate dao --strategy greedy --seed 1986744403134734706`` said a 0-point handicap would
    bring a seat to the fair share (issue 28): a seat whose closest handicap is 0 is said to have
    none that helps, with its win rate at 0; the others keep their handicap."""
    from analyser.stats import seats

    n = players
    rate = [0.5, 0.3] + [0.2] * (n - 2)
    comp = pd.DataFrame({"seat": range(n), "win_rate": rate, "fair_share": 1 / n,
                         "handicap": [-3.0, 0.0] + [5.0] * (n - 2), "handicap_low": [-5.0, 0.0] + [3.0] * (n - 2),
                         "handicap_high": [-1.0, 2.0] + [7.0] * (n - 2), "win_at_handicap": [0.5, 0.3] + [0.33] * (n - 2),
                         "tie_share": 0.0})
    table = pd.DataFrame({"seat": range(n), "win_rate": rate})
    worst = n - 1
    balance = {"best": 0, "worst": worst, "p": 1e-6, "gap": 30.0, "gap_low": 20.0, "gap_high": 40.0}
    (f,) = seats.seat_findings(table, balance, comp)
    s = f["sentence"]
    assert f["compensation"][1] == {"handicap": 0.0, "low": 0.0, "high": 2.0}
    # seat 1 is named once, with its win rate and no handicap in points (the words: the findings snapshot)
    assert "0 points" not in s and "seat 1 0" not in s and "30.0%" in s
    handicaps = re.findall(r"seat (\d) ([+-]\d+) points", s)
    assert handicaps == ([] if n == 2 else [("2", "+5")])
    if n > 2:
        assert f["compensation"][2] == {"handicap": 5.0, "low": 3.0, "high": 7.0} and "33.0%" in s


def test_a_ladder_over_a_named_parameter_says_the_parameter_before_its_value():
    """"keeps paying up to 8 limit" in a ladder over threshold:limit (issue 28): the value is given
    as ``limit 8``; iterations keep their unit after the number."""
    from analyser.experiments import ladder

    gains = pd.DataFrame({"from": [2.0, 4.0, 8.0], "to": [4.0, 8.0, 16.0], "gain_pp": [9.0, 5.0, 0.5],
                          "gain_low_pp": [5.0, 1.0, -3.0], "gain_high_pp": [13.0, 9.0, 4.0], "games": [400] * 3,
                          "verdict": ["clear", "clear", "not clear"]})
    depth = {"depth": 2, "doublings": 3, "pays_up_to": 8.0, "stops": (8.0, 16.0, "not clear"), "later_clear": [],
             "losses": []}
    (f,) = ladder.findings(gains, depth, param="limit", against=None, source="threshold")
    assert f["strength"] == "clear" and numbers(f["evidence"]["interval"]) == [1.0, 9.0]
    # the parameter before its value: "limit 8", "limit 16", never "8 limit"
    assert "limit 8:" in f["sentence"] and "limit 16" in f["sentence"] and "8 limit" not in f["sentence"]
    assert "(limit 4" in f["evidence"]["figure"] and numbers(f["evidence"]["figure"]) == [5.0, 4, 8, 400]
    (f,) = ladder.findings(gains, depth, param="iterations", against=None, source="mcts")
    assert "8 iterations:" in f["sentence"] and "8 iterations," in f["evidence"]["figure"]


def test_a_compensation_says_it_is_read_from_the_scores_and_how_to_replay_it():
    """Pig's first-player compensation read +16 from the recorded scores where replaying it left
    the first player at 42% (issue 28): the figure is said to be unreplayed, with the sweep that
    replays it, or that the title has no option to replay it with."""
    from analyser.stats import seats

    comp = pd.DataFrame({"seat": [0, 1], "win_rate": [0.6, 0.4], "fair_share": 0.5, "handicap": [-4.0, 16.0],
                         "handicap_low": [-6.0, 12.0], "handicap_high": [-2.0, 20.0], "win_at_handicap": [0.5, 0.5],
                         "tie_share": [0.5, 0.5]})
    table = pd.DataFrame({"seat": [0, 1], "win_rate": [0.6, 0.4]})
    balance = {"best": 0, "worst": 1, "p": 1e-6, "gap": 20.0, "gap_low": 12.0, "gap_high": 28.0}
    (f,) = seats.seat_findings(table, balance, comp, seats.SeatContext(kind="race", next_command="analyser sweep pig ..."))
    assert f["compensation"][1]["handicap"] == 16.0 and "+16 points" in f["sentence"]
    assert f["next"].split()[:3] == ["analyser", "sweep", "pig"] and "--confirm-seats" in f["sentence"]
    (f,) = seats.seat_findings(table, balance, comp, seats.SeatContext(kind="race"))
    assert not f["next"] and "+16 points" in f["sentence"] and "--confirm-seats" not in f["sentence"]


def test_a_shown_finding_with_the_threshold_of_an_earlier_one_points_to_it():
    from analyser.report.page import _ENV

    def f(topic, threshold):
        return F.Finding(topic, f"{topic} sentence", "possible", "x", "-", threshold)

    long_rule = "an association is listed when the Benjamini-Hochberg q is at most 0.05"
    tie_rule = "clear when the interval is above 10%"
    group = F.gather([("component outliers", lambda: [f("component outliers", long_rule),
                                                       f("component outliers", long_rule)]),
                      ("tie rate", lambda: [f("tie rate", tie_rule)])])
    html = str(_ENV.get_template("findings.html.j2").module.findings_section([group]))
    assert html.count(long_rule) == 1
    # the second finding of that rule points to the first (by number); the other rule is shown
    assert html.count("Threshold:") == 3 and "finding 1.</span>" in html
    assert html.count(tie_rule) == 1
