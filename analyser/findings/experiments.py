"""The findings of an experiment: a ``sweep`` (the best cell, the seat balance across cells), a
``tournament`` (seat advantage, top rating, the meta-game, never wins) and a ``compare`` (the
largest clear difference per unit) - README, "Findings"."""

from __future__ import annotations

import dataclasses

import numpy as np

from analyser.stats import analysis, metagame, seats as seatmod
from analyser.stats.analysis import figure_unit
from analyser.findings.base import ALPHA, Finding, Findings, LeftOut, gather, pct_ci
from analyser.findings.run import ahead_of_all, never_wins_rows
from analyser.text import phrase

# --------------------------------------------------------------------------------------------
# Experiments
# --------------------------------------------------------------------------------------------

def sweep_findings(res, game) -> Findings:
    """A sweep's findings: the best cell and the cells like it (the paired difference of the
    focus strategy's win rate from the best cell), and whether the varied values change the
    seat balance.  ``res``: :class:`analyser.experiments.sweep.SweepResult`."""
    cells = res.cells
    if cells is None or not len(cells):
        return Findings([], [LeftOut("best cell", "no games were played")])
    g = res.grid
    dims = [c for c, _ in g.dims]
    focus = cells[cells["slot"] == g.focus].sort_values("win_rate", ascending=False, kind="stable")
    return gather([("best cell", lambda: _best_cell(focus, dims, g.slots[g.focus].head)),
                   ("seat balance across cells", lambda: _seat_cells(focus, dims, res.results))])


def _cell_name(row, dims: list[str]) -> str:
    return ", ".join(f"{c}={row[c]}" for c in dims) or "the only cell"


def _best_cell(focus, dims: list[str], focus_label: str) -> list:
    """The best cell of a sweep and the cells that cannot be told apart from it (``sentences/
    experiments.j2``, ``best_cell``)."""
    topic = "best cell"
    if len(focus) < 2:
        return [LeftOut(topic, "the sweep has one cell")]
    if bool(focus["fixed"].all()):
        return [LeftOut(topic, "the focus strategy fills every seat, so its win rate is 1/players in every cell "
                               "by construction; the seat balance is the figure that moves")]
    best, others = focus.iloc[0], focus.iloc[1:]
    tied = others[others["tied_with_best"].astype(bool)]
    second = others.iloc[0]
    r = {"name": _cell_name(best, dims), "label": focus_label, "rate": best["win_rate"], "low": best["win_low"],
         "high": best["win_high"], "tied": [_cell_name(x, dims) for _, x in tied.iterrows()],
         "apart": int((~others["tied_with_best"].astype(bool)).sum()), "runner": _cell_name(second, dims),
         "behind": (-100 * second["diff"], -100 * second["diff_high"], -100 * second["diff_low"]),
         "places": analysis.decimals((second["diff_high"] - second["diff_low"]) * 50)}
    r["strength"] = "clear" if not r["tied"] else "possible" if r["apart"] else "none found"
    return [Finding(topic, phrase("experiments.j2", "best_cell", r), r["strength"],
                    phrase("experiments.j2", "best_cell_figure", r), pct_ci(r["low"], r["high"]),
                    phrase("experiments.j2", "best_cell_threshold"))]


def _seat_cells(focus, dims: list[str], results) -> list:
    """Do the cells' values change the seat balance?  The chi-square test of homogeneity of the
    wins per seat across cells (cells x seats), with the most and least even cells named
    (``sentences/experiments.j2``, ``seat_cells``)."""
    from scipy import stats

    topic = "seat balance across cells"
    seat_cols = sorted((c for c in focus.columns if c.startswith("seat") and c.endswith("_win")),
                       key=lambda c: int(c[4:-4]))
    if len(focus) < 2 or len(seat_cols) < 2:
        return [LeftOut(topic, "needs two cells or more" if len(focus) < 2 else "the game has one seat")]
    wins = focus[seat_cols].to_numpy(dtype=float) * focus["games"].to_numpy(dtype=float)[:, None]
    keep = wins.sum(axis=0) > 0
    if keep.sum() < 2:
        return [LeftOut(topic, "only one seat ever won")]
    p = float(stats.chi2_contingency(wins[:, keep] + 0.0, correction=False).pvalue)
    even = focus.sort_values("seat_p", ascending=False, kind="stable").iloc[0]
    uneven = focus.sort_values("seat_p", ascending=True, kind="stable").iloc[0]

    def cell(row) -> dict:
        return {"name": _cell_name(row, dims), "p": row["seat_p"], "seats": [(c[4:-4], row[c]) for c in seat_cols]}

    r = {"p": p, "alpha": ALPHA, "even": cell(even), "uneven": cell(uneven),
         "strength": "clear" if p < ALPHA and even["cell"] != uneven["cell"] else "none found"}
    return [Finding(topic, phrase("experiments.j2", "seat_cells", r), r["strength"],
                    phrase("experiments.j2", "seat_cells_figure", r), "-",
                    phrase("experiments.j2", "seat_cells_threshold", r), None, {"homogeneity_p": p})]


def tournament_findings(t, meta_findings: list[dict], seats=None, balance: dict | None = None) -> Findings:
    """A tournament's findings: the top rating (interval clear of every other), the meta-game's
    ``meta_findings``, the strategies that never win and, given the seat table and its
    ``balance``, a seat advantage over all tables (no compensation: the tables mix strategies).
    ``t``: :class:`analyser.experiments.tournament.TournamentResult`."""
    ranking = t.ranking
    # "Bradley-Terry", "Plackett-Luce" (the method, "by full pairwise breaking", is in the report's note)
    model = str(t.config.get("rating_model", "rating")).split(" (")[0].split(" by ")[0]

    def top():
        if ranking is None or len(ranking) < 2:
            return [LeftOut("dominant strategy", "needs two rated strategies or more")]
        rows = [(str(r.strategy), r.rating, r.rating_low, r.rating_high) for r in ranking.itertuples()]
        f = ahead_of_all("dominant strategy", rows, what=f"{model} rating", unit="", subject="strategy",
                         gloss="a strength fitted to who finished ahead of whom, 0 on average")
        games = int(t.config.get("games_per_table") or 0)
        if f.strength == "clear" and games < metagame.CLEAR_MIN_GAMES:  # a bootstrap over a handful of games
            few = {"games": games, "least": metagame.CLEAR_MIN_GAMES}
            f = dataclasses.replace(f, strength="possible",
                                    sentence=f.sentence[:-1] + phrase("experiments.j2", "few_games", few),
                                    threshold=f.threshold + phrase("experiments.j2", "few_games_threshold", few))
        return [f]

    def never():
        table = analysis.strategy_summary(t.results) if len(t.results) else None
        if table is None or len(table) < 2:
            return [LeftOut("never wins", "needs two strategies or more")]
        return never_wins_rows(table, int(t.config["players"]), classes=t.meta.classes if t.meta is not None else ())

    def seat():
        if seats is None or balance is None:
            return []
        if len(seats) < 2:
            return [LeftOut("seat advantage", "the game has one seat")]
        said = seatmod.SeatContext(reason="a tournament's tables mix strategies; analyser simulate of one lineup "
                                   "estimates it")
        return seatmod.seat_findings(seats, balance, None, said)

    rated, meta = top(), [Finding.of(f) for f in meta_findings]
    rated, meta = _one_dominant(rated, meta, ranking, t.meta)
    return gather([("seat advantage", seat), ("dominant strategy", lambda: rated), ("dominant", lambda: meta),
                   ("cycle", lambda: []), ("unused", lambda: []), ("indistinguishable", lambda: []),
                   ("never wins", never)])


def _one_dominant(rated: list, meta: list, ranking, game) -> tuple[list, list]:
    """When the top rating and the meta-game's equilibrium both single out the same strategy,
    one finding (the meta-game's, with the rating's evidence added) instead of two; when neither
    finds a dominant strategy, one "none found" line (the meta-game's, with the rating's sentence)."""
    r0 = next((f for f in rated if isinstance(f, Finding) and f.topic == "dominant strategy"), None)
    m0 = next((f for f in meta if f.topic == "dominant"), None)
    if r0 is not None and m0 is not None and not r0.shown and not m0.shown:
        merged = Finding("dominant", f"{m0.sentence} Nor does a rating single one out: {r0.sentence[0].lower()}"
                         f"{r0.sentence[1:]}", "none found", f"{m0.figure}; {r0.figure}",
                         f"weight {m0.interval}; rating {r0.interval}",
                         f"meta-game: {m0.threshold}; rating: {r0.threshold}", None, {**r0.extra, **m0.extra})
        return [f for f in rated if f is not r0], [merged if f is m0 else f for f in meta]
    r = next((f for f in rated if isinstance(f, Finding) and f.shown), None)
    m = next((f for f in meta if f.topic == "dominant" and f.shown), None)
    if r is None or m is None or game is None or ranking is None or not len(ranking):
        return rated, meta
    best = str(ranking.sort_values("rating", ascending=False, kind="stable").iloc[0]["strategy"])
    top = game.table.sort_values("weight", ascending=False, kind="stable").iloc[0]
    if str(top["strategy"]) != best or any(best in c for c in game.classes):
        return rated, meta
    strength = min(r.strength, m.strength, key=("clear", "possible").index)
    said = [phrase("experiments.j2", "dominant_agrees" + part, m, r)
            for part in ("", "_figure", "_interval", "_threshold")]
    merged = Finding("dominant", said[0], strength, *said[1:], m.next or r.next, {**r.extra, **m.extra})
    return [f for f in rated if f is not r], [merged if f is m else f for f in meta]


def compare_findings(cmp, score_unit: str = "points", length_unit: str = "turns") -> Findings:
    """A comparison's findings: per unit (rates, mean scores, game length, lead changes) the
    largest clear difference A - B, clear when its Holm-adjusted p-value (over every figure of
    the table) is below :data:`ALPHA` and its 95% interval excludes 0; possible when only the
    unadjusted p is.  ``cmp``: :class:`analyser.experiments.compare.Comparison`."""
    from statsmodels.stats.multitest import multipletests

    table = cmp.table
    topic = "largest difference"
    threshold = phrase("experiments.j2", "difference_threshold", {"compared": len(table), "alpha": ALPHA})
    ok = table["p"].notna().to_numpy()
    adjusted = np.full(len(table), np.nan)
    if ok.any():
        adjusted[ok] = multipletests(table["p"].to_numpy(dtype=float)[ok], alpha=ALPHA, method="holm")[1]
    table = table.assign(p_holm=adjusted)
    excludes = (table["low"] > 0) | (table["high"] < 0)
    table = table.assign(clear=(table["p_holm"] < ALPHA) & excludes, possible=(table["p"] < ALPHA) & excludes)
    out = []
    groups: dict[str, list] = {}
    for i, r in table.iterrows():
        group, unit, scale = figure_unit(r["figure"], score_unit, length_unit)
        groups.setdefault(group, []).append((i, r, unit, scale))
    for group, rows in groups.items():
        for strength in ("clear", "possible"):
            pick = [x for x in rows if bool(x[1][strength])]
            if pick:
                i, r, unit, scale = max(pick, key=lambda x: abs(x[1]["diff"]) * x[3])
                out.append(_difference(r, unit, scale, strength, group, threshold,
                                       sum(bool(x[1]["clear"]) for x in rows), len(rows)))
                break
    if not out:
        best = table.sort_values("p", kind="stable").iloc[0] if ok.any() else None
        rec = {"compared": len(table), "best": None if best is None else
               {"figure": best["figure"], "p": best["p"], "p_holm": best["p_holm"]}}
        out.append(Finding(topic, phrase("experiments.j2", "no_difference", rec), "none found",
                           phrase("experiments.j2", "no_difference_figure", rec), "-", threshold))
    return gather([(topic, lambda: out)])


def _difference(r, unit: str, scale: float, strength: str, group: str, threshold: str, n_clear: int,
                n_group: int = 0) -> Finding:
    """One difference of the comparison table as a sentence in its units (``sentences/experiments.j2``,
    ``difference``)."""
    pp = unit == "percentage points"
    what = str(r["figure"])
    kind, _, name = what.partition(": ")
    rec = {"what": what, "kind": kind if what.startswith(("win rate: ", "mean score: ")) else what, "name": name,
           "pp": pp, "unit": " pp" if pp else (f" {unit}" if unit else ""), "group": group, "strength": strength,
           "places": analysis.decimals((r["high"] - r["low"]) * scale / 2, default=1 if pp else 2),
           "diff": scale * r["diff"], "low": scale * r["low"], "high": scale * r["high"], "a": scale * r["a"],
           "b": scale * r["b"], "p_holm": r["p_holm"], "clear": n_clear, "compared": n_group}
    iv = phrase("experiments.j2", "difference_interval", rec)
    return Finding("largest difference", phrase("experiments.j2", "difference", rec), strength,
                   phrase("experiments.j2", "difference_figure", rec), iv, threshold, None,
                   {"compared": what, "group": group})
