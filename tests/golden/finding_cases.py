"""The findings' sentences on small hand-built summaries, one per branch (clear, possible, none
found, left out), for the ``findings`` text snapshot: the seeded runs of the other snapshots do
not reach every branch.  The inputs are those of tests/test_findings.py."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pandas as pd


def _strategies(*rows):
    return pd.DataFrame(rows, columns=["strategy", "win_rate", "win_low", "win_high", "n"])


def _context(F, game="dao", players=2, sums=None, lineup=("greedy", "random"), rules=None, outcome=None):
    from analyser.engine.registry import get_game
    from analyser.stats.designer import Outcome
    g = get_game(game)
    part = SimpleNamespace(players=players, run={"games": 1000, "mirror": []}, label="",
                           strategies=_strategies(("greedy", 0.6, 0.57, 0.63, 1000), ("random", 0.4, 0.37, 0.43, 1000)))
    return F.RunContext(g, outcome or Outcome.of(g), part, sums or {}, {}, list(lineup), rules or {}, ["r1"])


def _drama(games, early):
    return {"drama": pd.DataFrame({"games": [games], "good_n": [games], "early_n": [early]})}


def _cells(rates, tied, seats, seat_p, fixed=False):
    rows = []
    for k, (r, t, s, p) in enumerate(zip(rates, tied, seats, seat_p)):
        rows.append({"cell": k, "limit": 6 + k, "slot": 0, "win_rate": r, "win_low": r - 0.03, "win_high": r + 0.03,
                     "diff": r - max(rates), "diff_low": r - max(rates) - 0.02, "diff_high": r - max(rates) + 0.02,
                     "tied_with_best": t, "fixed": fixed, "games": 1000, "seat_p": p, "seat0_win": s,
                     "seat1_win": 1 - s})
    return pd.DataFrame(rows).sort_values("win_rate", ascending=False)


def _compare_table():
    return pd.DataFrame([
        {"figure": "win rate: greedy", "a": 0.58, "b": 0.73, "diff": -0.15, "low": -0.20, "high": -0.10, "p": 1e-6},
        {"figure": "win rate: threshold", "a": 0.42, "b": 0.27, "diff": 0.15, "low": 0.10, "high": 0.20, "p": 1e-6},
        {"figure": "seat 0 win rate", "a": 0.50, "b": 0.46, "diff": 0.04, "low": 0.005, "high": 0.075, "p": 0.03},
        {"figure": "game length", "a": 63.2, "b": 42.7, "diff": 20.5, "low": 19.7, "high": 21.4, "p": 1e-100},
        {"figure": "mean score: greedy", "a": 3.0, "b": 3.4, "diff": -0.4, "low": -0.8, "high": -0.01, "p": 0.04},
    ])


def _seat_inputs(n):
    rate = [0.5, 0.3] + [0.2] * (n - 2)
    comp = pd.DataFrame({"seat": range(n), "win_rate": rate, "fair_share": 1 / n,
                         "handicap": [-3.0, 0.0] + [5.0] * (n - 2), "handicap_low": [-5.0, 0.0] + [3.0] * (n - 2),
                         "handicap_high": [-1.0, 2.0] + [7.0] * (n - 2),
                         "win_at_handicap": [0.5, 0.3] + [0.33] * (n - 2), "tie_share": 0.0})
    balance = {"best": 0, "worst": n - 1, "p": 1e-6, "gap": 30.0, "gap_low": 20.0, "gap_high": 40.0}
    return pd.DataFrame({"seat": range(n), "win_rate": rate}), balance, comp


def _race_inputs():
    comp = pd.DataFrame({"seat": [0, 1], "win_rate": [0.6, 0.4], "fair_share": 0.5, "handicap": [-4.0, 16.0],
                         "handicap_low": [-6.0, 12.0], "handicap_high": [-2.0, 20.0], "win_at_handicap": [0.5, 0.5],
                         "tie_share": [0.5, 0.5]})
    balance = {"best": 0, "worst": 1, "p": 1e-6, "gap": 20.0, "gap_low": 12.0, "gap_high": 28.0}
    return pd.DataFrame({"seat": [0, 1], "win_rate": [0.6, 0.4]}), balance, comp


def _ladder(param, source):
    from analyser.experiments import ladder
    gains = pd.DataFrame({"from": [2.0, 4.0, 8.0], "to": [4.0, 8.0, 16.0], "gain_pp": [9.0, 5.0, 0.5],
                          "gain_low_pp": [5.0, 1.0, -3.0], "gain_high_pp": [13.0, 9.0, 4.0], "games": [400] * 3,
                          "verdict": ["clear", "clear", "not clear"]})
    depth = {"depth": 2, "doublings": 3, "pays_up_to": 8.0, "stops": (8.0, 16.0, "not clear"), "later_clear": [],
             "losses": []}
    return ladder.findings(gains, depth, param=param, against=None, source=source)


def cases():
    """(label, thunk) pairs; each thunk returns the findings (records, dicts or left-outs) of one input."""
    from analyser import findings as F
    from analyser.stats import seats
    rows = [("greedy", 0.52, 0.48, 0.56), ("colour", 0.28, 0.24, 0.32), ("random", 0.08, 0.06, 0.11)]
    ahead = dict(what="win rate", unit="%", subject="strategy")

    def runaway_tsuro():
        from analyser.engine.registry import get_game
        from analyser.stats.designer import Outcome
        return F.runaway_leader(_context(F, sums=_drama(200, 150), outcome=Outcome.of(get_game("tsuro-seas"))))

    return [
        ("dominant strategy, clear", lambda: [F.ahead_of_all("dominant strategy", rows, **ahead)]),
        ("dominant strategy, possible", lambda: [F.ahead_of_all(
            "dominant strategy", [("a", 0.34, 0.31, 0.37), ("b", 0.30, 0.26, 0.33)], **ahead)]),
        ("dominant strategy, none found", lambda: [F.ahead_of_all(
            "dominant strategy", [("a", 0.34, 0.29, 0.39), ("b", 0.33, 0.28, 0.38)], **ahead)]),
        ("never wins, clear", lambda: F.never_wins_rows(
            _strategies(("greedy", 0.92, 0.90, 0.94, 1000), ("random", 0.03, 0.02, 0.05, 1000)), 2,
            lambda s: f"analyser play dao -s greedy -s {s} --seed 7")),
        ("never wins, possible", lambda: F.never_wins_rows(
            _strategies(("a", 0.9, 0.85, 0.95, 100), ("b", 0.10, 0.05, 0.16, 100)), 2)),
        ("never wins, never won", lambda: F.never_wins_rows(
            _strategies(("a", 0.0, 0.0, 0.01, 400), ("b", 1.0, 0.99, 1.0, 400)), 2)),
        ("never wins, none found", lambda: F.never_wins_rows(
            _strategies(("a", 0.5, 0.45, 0.55, 400), ("b", 0.2, 0.16, 0.24, 400)), 2)),
        *[(f"luck, skill share {s} at {p} players", (lambda s=s, p=p: F.luck_rows(
            {"skill_share": s, "skill_low": s - 0.02, "skill_high": s + 0.02}, players=p, strategies=2)))
          for s, p in [(0.275, 4), (0.32, 4), (0.6, 2), (0.9, 2)]],
        *[(f"luck, skill share {s} ({lo}-{hi}) at {p} players", (lambda s=s, lo=lo, hi=hi, p=p: F.luck_rows(
            {"skill_share": s, "skill_low": lo, "skill_high": hi}, players=p, strategies=2)))
          for s, lo, hi, p in [(0.01, 0.0, 0.03, 2), (0.04, 0.01, 0.08, 2), (0.7, 0.6, 0.8, 2), (0.2, 0.15, 0.25, 2),
                               (0.25, 0.2, 0.3, 4)]],
        ("luck, left out", lambda: F.luck_rows({"skill_share": math.nan, "skill_low": math.nan,
                                                "skill_high": math.nan}, 2, 2)),
        *[(f"runaway leader, {early} of 200", (lambda early=early: F.runaway_leader(
            _context(F, sums=_drama(200, early))))) for early in (150, 110, 60)],
        ("runaway leader, no trace", lambda: F.runaway_leader(_context(F, sums={}))),
        ("runaway leader, last afloat wins", runaway_tsuro),
        ("long tail, clear", lambda: F.tail_rows(np.array([10.0, 50.0]), np.array([900.0, 100.0]), "rounds",
                                                 lambda p95: f"cap at {p95:g}")),
        ("long tail, possible", lambda: F.tail_rows(np.array([10.0, 25.0]), np.array([985.0, 15.0]), "turns")),
        ("long tail, none found", lambda: F.tail_rows(np.array([10.0, 11.0, 12.0]),
                                                      np.array([300.0, 400.0, 300.0]), "turns")),
        ("long tail, one length", lambda: F.tail_rows(np.array([120.0]), np.array([500.0]), "tricks")),
        ("long tail, too few games", lambda: F.long_tail(_context(F, sums={"turns": pd.DataFrame(
            {"count": [50.0]}, index=pd.Index([10.0]))}))),
        ("tie rate, clear", lambda: F.tie_rows(0.15, 0.13, 0.17, 1000,
                                               "analyser sweep dao --rule tie_break=most_cards,shared")),
        ("tie rate, possible", lambda: F.tie_rows(0.11, 0.07, 0.16, 200)),
        ("tie rate, none found", lambda: F.tie_rows(0.02, 0.01, 0.03, 1000)),
        ("sweep best cell, clear", lambda: F.experiments._best_cell(
            _cells([0.40, 0.30, 0.20], [True, False, False], [0.5] * 3, [0.9, 0.8, 0.95]), ["limit"], "threshold")),
        ("sweep best cell, possible", lambda: F.experiments._best_cell(
            _cells([0.40, 0.39, 0.20], [True, True, False], [0.5] * 3, [0.9, 0.8, 0.95]), ["limit"], "threshold")),
        ("sweep best cell, none found", lambda: F.experiments._best_cell(
            _cells([0.40, 0.39], [True, True], [0.5, 0.5], [0.9, 0.9]), ["limit"], "threshold")),
        ("sweep best cell, fixed lineup", lambda: F.experiments._best_cell(
            _cells([0.5, 0.5], [True, True], [0.6, 0.5], [0.01, 0.9], fixed=True), ["limit"], "greedy")),
        ("sweep seat balance, clear", lambda: F.experiments._seat_cells(
            _cells([0.5, 0.5], [True, True], [0.62, 0.50], [1e-10, 0.9], fixed=True), ["limit"], None)),
        ("sweep seat balance, none found", lambda: F.experiments._seat_cells(
            _cells([0.5, 0.5], [True, True], [0.51, 0.50], [0.6, 0.9], fixed=True), ["limit"], None)),
        ("compare", lambda: F.compare_findings(SimpleNamespace(table=_compare_table()), "points", "turns")),
        ("compare, none found", lambda: F.compare_findings(SimpleNamespace(
            table=_compare_table().assign(p=0.5, low=-1.0, high=1.0)))),
        *[(f"seat advantage, a 0-point handicap at {n} players", (lambda n=n: seats.seat_findings(*_seat_inputs(n))))
          for n in (2, 3)],
        ("seat advantage, race, with a sweep", lambda: seats.seat_findings(
            *_race_inputs(), seats.SeatContext(kind="race", next_command="analyser sweep pig ..."))),
        ("seat advantage, race, no start-bonus option", lambda: seats.seat_findings(*_race_inputs(), seats.SeatContext(kind="race"))),
        ("ladder over threshold:limit", lambda: _ladder("limit", "threshold")),
        ("ladder over mcts:iterations", lambda: _ladder("iterations", "mcts")),
    ]


def _tune(n_front: int, recheck: int = 3):
    """A tune result of two objectives (seat_gap=min, length=max) over three trials, whose re-check
    replays the first ``recheck`` trials of the front and keeps ``n_front`` of them on it."""
    from analyser.engine.registry import get_game
    from analyser.experiments import tune
    game = get_game("dao")
    space = tune.parse_space(game, ["greedy", "random"], ["bust_limit=9..12"])
    targets = [tune.parse_target(x, game, space) for x in ("seat_gap=min", "length=max")]
    rows = [{"trial": k, "state": "complete", "bust_limit": 9 + k, "seat_gap": 5.0 - k, "seat_gap.low": 1.0 - k,
             "seat_gap.high": 9.0 - k, "length": 20.0 + k, "length.low": 18.0 + k, "length.high": 22.0 + k,
             "games": 10, "same_as": -1, "error": "", "undefined": "", "feasible": True, "objective1": 5.0 - k,
             "objective2": 20.0 + k, "score": 5.0 - k, "violation": 0.0} for k in range(3)]
    rc = pd.DataFrame(rows).drop(columns=["state", "same_as", "error"]).assign(
        games=40, folder=[f"cells/recheck-{k:04d}" for k in range(3)], on_front=[k < n_front for k in range(3)],
        search_rank=[1, 2, 3]).head(recheck)
    res = tune.TuneResult(space, targets, pd.DataFrame(rows), rc, [0, 1, 2],
                          {"trials": 3, "games_requested": 10}, "complete", search_best=[0, 1, 2], recheck_asked=3)
    res.best, res.verifying = tune.front_after_recheck([0, 1, 2], rc, targets)
    return res


def tune_cases():
    """(label, tune result) pairs for the tune summary's branches that the seeded tune does not reach."""
    left_out = _tune(3, 0)
    left_out.recheck_asked = 0
    pruned = _tune(2)
    pruned.trials.loc[2, "state"] = "pruned"
    pruned.trials.loc[1, "same_as"] = 0
    return [("front, the re-check keeps 1 of 3", _tune(1)), ("front, the re-check keeps 2 of 3", _tune(2)),
            ("front, the re-check keeps all 3", _tune(3)), ("front, the re-check replays 1 of 3", _tune(3, 1)),
            ("front, no re-check", left_out), ("a pruned trial and a repeat", pruned)]


def text() -> str:
    """Every case's findings: label, then each finding's strength, sentence, evidence, threshold, next."""
    from analyser import findings as F
    blocks = []
    for label, thunk in cases():
        lines = [f"## {label}"]
        for item in thunk():
            if isinstance(item, F.LeftOut):
                lines.append(f"left out: {item.reason}")
                continue
            d = item.to_json() if hasattr(item, "to_json") else item
            ev = d.get("evidence") or {}
            lines += [f"[{d['strength']}] {d['sentence']}", f"  evidence: {ev.get('figure')} | {ev.get('interval')}",
                      f"  threshold: {d.get('threshold')}", f"  next: {d.get('next')}"]
        blocks.append("\n".join(lines))
    from analyser.stats import seats
    notes = [(2, 4, {"a": 40, "b": 40}), (4, 4, dict.fromkeys("abcd", 10)), (1, 4, {"a": 40}),
             (3, 4, {"a": 2668, "b": 2668, "c": 2664}), (2, 3, {"a": 4000, "b": 2000})]
    blocks.append("## seating notes\n" + "\n".join(seats.seating_note(*n) for n in notes))
    from analyser.experiments.tune_report import summary_sentences
    blocks += [f"## tune summary, {label}\n" + "\n".join(summary_sentences(res)) for label, res in tune_cases()]
    return "\n\n".join(blocks) + "\n"
