"""``analyser sweep``: play every cell of a grid of strategy parameters and rule options.

docs/commands/sweep.md is the contract.  Every cell is one run with the same root seed, so game
``i`` of every cell has the same game seed and seating; whether the rules also deal it the same
way is checked (:func:`deal_pairing`).  The cells are ranked by the win rate of the *focus*
strategy (:attr:`~analyser.experiments.grid.Grid.focus`), each with its paired difference from the
best cell (:func:`paired_vs_best`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import random
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from analyser import findings as findmod
from analyser.stats import analysis, designer
from analyser.io.csvsafe import to_csv
from analyser.experiments import grid as gridmod, stopping
from analyser.experiments.base import Cell, Experiment, recorded_outcome, stack_cells
from analyser.experiments.options import Session, SweepOptions
from analyser.engine.registry import get_game, title_ref
from analyser.run import RunSpec, resolve
from analyser.engine.runner import game_seed, lineup_block
from analyser.io.records import cells_complete
from analyser.run.store import write_json_atomic
from analyser.text import fixed, phrase, sentences


@dataclass
class SweepResult:
    grid: gridmod.Grid
    results: pd.DataFrame           # every game of every cell, with `cell`, `slot` and varied columns
    cells: pd.DataFrame             # one row per cell and strategy
    config: dict
    stop: stopping.Stop
    pairing: dict
    error: BaseException | None = None
    interrupted: bool = False
    #: the sweep's findings (analyser.findings.sweep_findings), set by write_sweep
    findings: object = None


def deal_pairing(game, cells: list[gridmod.Cell], players: int, seed: int, probe: int = 8) -> dict:
    """Do cells deal game ``i`` the same way?  Compares the JSON of the opening state (without
    its ``params``) of the first ``probe`` games across the distinct rule sets.  Returns
    ``{"paired": bool, "groups": [[cell, ...], ...], "note": str}``: cells in one group share
    their deals."""
    seeds = [game_seed(seed, i) for i in range(probe)]
    prints: dict[str, list[int]] = {}
    by_rules: dict[tuple, str] = {}
    for c in cells:
        key = tuple(sorted(c.rules.items()))
        if key not in by_rules:
            params = game.Params.from_overrides(dict(c.rules))
            h = hashlib.sha256()
            for gs in seeds:
                state = game.initial_state(params, players, random.Random(gs))
                d = dict(game.state_to_dict(state))
                d.pop("params", None)
                h.update(json.dumps(d, sort_keys=True, default=str).encode())
            by_rules[key] = h.hexdigest()
        prints.setdefault(by_rules[key], []).append(c.index)
    groups = list(prints.values())
    return {"paired": len(groups) == 1, "groups": groups, "note": phrase("sweep.j2", "deal", len(groups))}


def run_sweep(spec: RunSpec, options: SweepOptions, session: Session | None = None) -> SweepResult:
    """Parse the grid (the strategy specs of ``spec.strategies`` and ``options.rules``), play
    every cell with ``spec``'s settings (in rounds with ``options.until_ci``), and analyse.
    InputError on bad input before any game is played.  Each cell is a run folder
    ``out/cells/cell-<k>``, played as ``session`` (:class:`~analyser.experiments.options.Session`)
    says."""
    session = session or Session()
    stopping.check_width(options.until_ci)
    game = get_game(spec.game)
    g = gridmod.build(game, list(spec.strategies), list(options.rules))
    base = dataclasses.replace(spec, game=title_ref(game), strategies=g.cells[0].strategies,
                               rules=dict(g.cells[0].rules))
    _, _, n_players, n_jobs, root = resolve(base)
    specs = [dataclasses.replace(base, strategies=list(c.strategies), rules=dict(c.rules), seed=root,
                                 players=n_players) for c in g.cells]
    stopping.validate(game, specs, n_players)  # every cell valid before anything runs
    pairing = deal_pairing(game, g.cells, n_players, root)
    cells = [Cell(f"cell-{c.index:04d}", s) for c, s in zip(g.cells, specs)]
    fields = {"game": title_ref(game), "game_name": game.name, "seed": root, "games_requested": spec.games,
              "players": n_players, "strategies": list(spec.strategies), "rules": list(options.rules),
              "dims": [[c, v] for c, v in g.dims], "focus": g.focus}
    given = dataclasses.replace(spec, game=title_ref(game), seed=root)
    with Experiment.begin(session, "sweep", cells, run=given, options=options, fields=fields) as exp:
        if session.play:
            outcome = exp.play(jobs=n_jobs, games=spec.games, until_ci=options.until_ci,
                               players=lineup_block(n_players, len(g.cells[0].strategies)),
                               measure=lambda b: stopping.widest([exp.results(k, b) for k in range(len(cells))]))
        else:
            outcome = recorded_outcome(exp.config)
        t1 = time.perf_counter()
        frame = combine(g, [exp.results(k) for k in range(len(cells))])
        config = dict(exp.config)
    stop, error = outcome.stop, outcome.error
    fit = designer.Outcome.of(game)
    table = cell_table(g, frame, fit.close_margin if fit.close_applies else None)
    config.update({"games_per_cell": int(stop.games if options.until_ci else spec.games), "jobs": n_jobs,
                   "status": outcome.status, "error": str(error) if error else None, "stopping": stop.as_dict(),
                   "pairing": pairing})
    config["analysis_seconds"] = round(time.perf_counter() - t1, 3)
    return SweepResult(g, frame, table, config, stop, pairing, error, outcome.interrupted)


def combine(g: gridmod.Grid, frames: list[pd.DataFrame]) -> pd.DataFrame:
    """The cells' results frames as one frame with ``cell``, ``slot`` and the varied columns."""
    rule_dims = {name for name, _ in g.rules}
    ready = []
    for c, df in zip(g.cells, frames):
        if df is not None and len(df):
            slot_of = {s: c.strategies.index(s) for s in c.strategies}
            df = df.copy()
            df.insert(df.columns.get_loc("strategy") + 1, "slot",
                      np.array([slot_of[s] for s in df["strategy"].astype(str)], dtype="int64"))
            for col, value in c.values.items():
                if col not in rule_dims:
                    kind = g.dim_kinds.get(col)
                    df[col] = int(value) if kind == "int" else (float(value) if kind == "float" else value)
        ready.append(df)
    order = list(dict.fromkeys(s for c in g.cells for s in c.strategies))
    out = stack_cells(ready, "cell", [c.index for c in g.cells], order)
    if len(out):
        out["strategy"] = out["strategy"].cat.remove_unused_categories()
    for col, _ in g.rules:
        if col in out.columns and out[col].dtype == object:
            out[col] = pd.Categorical(out[col].astype(str))
    return out


def focus_matrix(frame: pd.DataFrame, focus: int, measure: str = "win") -> pd.DataFrame:
    """Games x cells: the focus slot's per-game mean ``measure`` (win share or score)."""
    f = frame[frame["slot"] == focus]
    return f.groupby(["game_index", "cell"])[measure].mean().unstack("cell")


def paired_vs_best(mat: pd.DataFrame) -> pd.DataFrame:
    """Per cell: ``mean``, ``diff`` from the best cell (highest mean) with a paired t 95%
    interval (``diff_low``, ``diff_high``) and p-value over the games both played
    (:func:`scipy.stats.ttest_rel`), and ``tied_with_best`` (the interval contains 0)."""
    from scipy import stats

    means = mat.mean()
    best = means.idxmax()
    rows = []
    for c in mat.columns:
        pair = pd.DataFrame({"a": mat[c], "b": mat[best]}).dropna()
        d = pair["a"] - pair["b"]
        if c == best or len(pair) < 2 or float(d.std()) == 0.0:
            lo = hi = float(d.mean()) if len(d) else math.nan
            p = 1.0 if c == best or (len(d) and float(d.mean()) == 0) else 0.0
        else:
            res = stats.ttest_rel(pair["a"], pair["b"])
            ci = res.confidence_interval(0.95)
            lo, hi, p = float(ci.low), float(ci.high), float(res.pvalue)
        rows.append({"cell": int(c), "mean": float(means[c]), "diff": float(d.mean()) if len(d) else math.nan,
                     "diff_low": lo, "diff_high": hi, "p": p, "best": c == best,
                     "tied_with_best": bool(c == best or (lo <= 0 <= hi))})
    return pd.DataFrame(rows)


def cell_table(g: gridmod.Grid, frame: pd.DataFrame, close_margin: float | None = 1.0) -> pd.DataFrame:
    """One row per cell and strategy slot: the varied values, the strategy, win rate with its 95%
    interval (the one simulate gives on the cell's games, named in ``win_method``: one name per
    interval), ``fixed`` (the slot fills every seat of the cell's games: its win rate is
    1/players by construction, and its interval that value), mean score, mean rank; per cell the seat chi-square p, each
    seat's win rate (``seat0_win``...), tie and close-game rates (top two within
    ``close_margin`` score units; NaN when the title declares none) and mean game length; for
    the focus slot the paired difference from the best cell.

    Computed for all cells at once: the frame's rows come in (cell, game, seat) order with a
    fixed number of seats, so per-game figures are reshapes, not group-bys."""
    from scipy import stats

    from analyser.report import summaries

    if not len(frame):
        return pd.DataFrame()
    players = int(frame["players"].iloc[0])
    slots = summaries.grouped_win_rates(frame, ["cell", "slot"], "cell")
    slots = slots[["cell", "slot", "n", "win_rate", "win_low", "win_high", "win_method", "mean_score"]]
    rank = frame.groupby(["cell", "slot"], sort=True)["rank"].mean().reset_index(name="mean_rank")
    slots = slots.merge(rank, on=["cell", "slot"])
    # per game: (games, seats) arrays in row order
    cells_g = frame["cell"].to_numpy()[::players]
    win = frame["win"].to_numpy().reshape(-1, players)
    score = np.sort(frame["score"].to_numpy(dtype=float).reshape(-1, players), axis=1)
    close = ((score[:, -1] - score[:, -2]) <= close_margin + designer.MARGIN_TOL if players > 1 else True) \
        if close_margin is not None else np.nan
    games = pd.DataFrame({"cell": cells_g, "tie": win.max(axis=1) < 1 - 1e-9, "close": close})
    if "turns" in frame.columns:
        games["turns"] = frame["turns"].to_numpy(dtype=float)[::players]
    per_cell = games.groupby("cell").agg(games=("tie", "size"), tie_rate=("tie", "mean"), close_rate=("close", "mean"),
                                         **({"turns": ("turns", "mean")} if "turns" in games.columns else {}))
    fixed = slots["n"].to_numpy() == slots["cell"].map(per_cell["games"]).to_numpy() * players
    slots.insert(slots.columns.get_loc("win_method") + 1, "fixed", fixed)
    # a win rate fixed by construction is exact: its interval is the value itself
    slots.loc[fixed, "win_low"] = slots.loc[fixed, "win_rate"]
    slots.loc[fixed, "win_high"] = slots.loc[fixed, "win_rate"]
    seat_wins = frame.groupby(["cell", "seat"])["win"].sum().unstack("seat").fillna(0.0)
    chi = stats.chisquare(seat_wins.to_numpy(), axis=1)
    per_cell["seat_chi2"] = pd.Series(chi.statistic, index=seat_wins.index)
    per_cell["seat_p"] = pd.Series(chi.pvalue, index=seat_wins.index)
    for k in seat_wins.columns:
        per_cell[f"seat{k}_win"] = seat_wins[k] / per_cell["games"]
    info = pd.DataFrame([{"cell": c.index, **c.values} for c in g.cells])
    out = info.merge(slots, on="cell").merge(per_cell.reset_index(), on="cell")
    spec_of = {(c.index, i): s for c in g.cells for i, s in enumerate(c.strategies)}
    out.insert(out.columns.get_loc("slot") + 1, "strategy",
               [spec_of[(c, s)] for c, s in zip(out["cell"], out["slot"])])
    vs = paired_vs_best(focus_matrix(frame, g.focus)).assign(slot=g.focus)
    out = out.merge(vs[["cell", "slot", "diff", "diff_low", "diff_high", "p", "best", "tied_with_best"]],
                    on=["cell", "slot"], how="left")
    if "turns" not in out.columns:
        out["turns"] = np.nan
    return out


# --------------------------------------------------------------------------------------------
# Plots and report
# --------------------------------------------------------------------------------------------

def _axis_values(values: list[str], kind: str):
    return [float(v) for v in values] if kind in ("int", "float") else None


#: The terminal lists every cell up to TERMINAL_CELLS; beyond, the best TERMINAL_SHOWN and how
#: many more there are.
TERMINAL_CELLS = 30
TERMINAL_SHOWN = 20

#: The smallest size (points) of a heatmap cell's label (:data:`analyser.stats.plots.LABEL_PT`).
LABEL_PT = 9.0


def plot_sweep(g: gridmod.Grid, cells: pd.DataFrame, outdir: Path, focus_label: str) -> list[tuple[str, str]]:
    """1-D: a line with its 95% band; 2-D: a heatmap with the best cell marked; more: small
    multiples of heatmaps; plus the paired differences from the best cell.  When the focus
    strategy fills every seat in every cell (its win rate is 1/players by construction), 1-D draws
    each seat's win rate instead, and there is no difference from a best cell to draw."""
    f = cells[cells["slot"] == g.focus].sort_values("cell").reset_index(drop=True)
    if len(g.dims) == 0:
        return []
    all_fixed = "fixed" in f.columns and bool(f["fixed"].all())
    if len(g.dims) == 1 and all_fixed:
        return [plot_seats(g, f, outdir)]
    out = [_plot_line(g, f, outdir, focus_label) if len(g.dims) == 1 else _plot_heatmaps(g, f, outdir, focus_label)]
    if not all_fixed:
        out.append(_plot_vs_best(g, f, outdir, focus_label))
    return out


def _plot_line(g: gridmod.Grid, f: pd.DataFrame, outdir: Path, focus_label: str) -> tuple[str, str]:
    """The focus slot's win rate across the one varied value ``f`` (its rows, in cell order), with
    its band, the best cell starred and the cells tied with it ringed."""
    from analyser.stats import plots
    import matplotlib.pyplot as plt

    col, values = g.dims[0]
    xs = _axis_values(values, g.dim_kinds.get(col, "str"))
    # place the cells that were played (all of them, unless the sweep was interrupted)
    present = [str(v) for v in f[col]]
    pos = (np.array([float(v) for v in present]) if xs is not None
           else np.array([values.index(v) for v in present]))
    fig, ax = plt.subplots(figsize=(8, 4.2))
    y = f["win_rate"].to_numpy() * 100
    free = ~f["fixed"].fillna(False).astype(bool).to_numpy() if "fixed" in f.columns else np.ones(len(f), bool)
    if free.any():  # no band around a win rate fixed by construction (the focus fills every seat)
        ax.fill_between(pos, np.where(free, f["win_low"] * 100, np.nan), np.where(free, f["win_high"] * 100, np.nan),
                        color="#3a6ea5", alpha=0.2, label=f"95% interval ({method_label(f)})")
    ax.plot(pos, y, marker="o", color="#3a6ea5", label=f"win rate of {plots.label(focus_label)}")
    b = f.index[f["best"].fillna(False).astype(bool)]
    if len(b):
        ax.plot(pos[b[0]], y[b[0]], marker="*", markersize=16, color="#c44e52", linestyle="none", label="best cell")
    tied = f["tied_with_best"].fillna(False).astype(bool).to_numpy() & ~f["best"].fillna(False).astype(bool).to_numpy()
    if tied.any():
        ax.plot(pos[tied], y[tied], marker="o", markersize=11, markerfacecolor="none", color="#c44e52",
                linestyle="none", label="cannot be told from the best")
    if xs is None:
        ax.set_xticks(np.arange(len(values)), [plots.label(v) for v in values])
    plots.style(ax, plots.label(phrase("sweep.j2", "line_title", focus_label, col)), plots.label(col), "win rate (%)")
    ax.legend(fontsize=8)
    return plots.save(fig, outdir / "sweep_line.png",
                      phrase("sweep.j2", "line_caption", focus_label, col, method_label(f), not free.all()))


def _plot_heatmaps(g: gridmod.Grid, f: pd.DataFrame, outdir: Path, focus_label: str) -> tuple[str, str]:
    """The focus slot's win rate as a heatmap over the first two varied values (small multiples,
    one per combination of the others, at most 24), the best cell boxed, the tied ones dashed."""
    from analyser.stats import plots
    import matplotlib.pyplot as plt

    dims = g.dims
    (xc, xv), (yc, yv) = dims[0], dims[1]
    rest = dims[2:]
    combos = [()]
    for _, vals in rest:
        combos = [c + (v,) for c in combos for v in vals]
    shown = combos[:24]
    ncols = min(4, len(shown))
    nrows = math.ceil(len(shown) / ncols)
    # cell labels: the decimals the intervals call for; each panel large enough that a label
    # fits its cell at LABEL_PT or more (else no labels: the colour bar reads the cells)
    places = analysis.decimals((f["win_high"] - f["win_low"]).to_numpy() * 50)
    chars = max(len(fixed(100 * v, places)) for v in f["win_rate"])
    cell_w, cell_h = (chars * 0.62 * LABEL_PT + 8) / 72, (LABEL_PT * 1.9) / 72   # inches
    panel_w = max(4.2, len(xv) * cell_w / 0.8 + 1.3)
    panel_h = max(3.6, len(yv) * cell_h + 1.1)
    labelled = panel_w <= 12 and panel_h <= 12
    if not labelled:
        panel_w, panel_h = 4.2, 3.6
    fig, axes = plt.subplots(nrows, ncols, figsize=(max(6, panel_w * ncols), 0.6 + panel_h * nrows), squeeze=False)
    vmin, vmax = f["win_rate"].min() * 100, f["win_rate"].max() * 100
    cell_texts: list = []
    im = None
    heat = _Heat(xc, xv, yc, yv, vmin, vmax, places, labelled)
    for k, combo in enumerate(shown):
        ax = axes[k // ncols][k % ncols]
        sub = f
        for (col, _), v in zip(rest, combo):
            sub = sub[sub[col].astype(str) == v]
        im = _heat_panel(ax, sub, heat, cell_texts)
        title = ", ".join(f"{c}={v}" for (c, _), v in zip(rest, combo))
        ax.set_title(plots.label(title), fontsize=10, loc="left")
    for k in range(len(shown), nrows * ncols):
        axes[k // ncols][k % ncols].axis("off")
    if im is not None:
        fig.colorbar(im, ax=axes, shrink=0.8, label="win rate (%)")
    fig.suptitle(f"Win rate of {plots.label(focus_label)}", fontsize=12, fontweight="bold", x=0.02, ha="left")
    plots.fit_cell_labels(fig, cell_texts, len(xv), len(yv), chars)
    fig.savefig(outdir / "sweep_heatmap.png", dpi=plots.DPI, bbox_inches="tight")
    plt.close(fig)
    return ("sweep_heatmap.png", phrase("sweep.j2", "heat_caption", {
        "rest": [c for c, _ in rest], "focus": focus_label, "x": xc, "y": yc, "panels": len(combos), "labelled": labelled}))


@dataclass
class _Heat:
    """The axes of a sweep's heatmaps (the varied values across and up), their colour range, the
    decimals of a cell's label and whether cells are labelled."""

    xc: str
    xv: list
    yc: str
    yv: list
    vmin: float
    vmax: float
    places: int
    labelled: bool


def _heat_panel(ax, sub: pd.DataFrame, heat: _Heat, cell_texts: list):
    """One heatmap panel of the cells ``sub`` on ``ax`` (its labels appended to ``cell_texts``);
    the image."""
    from analyser.stats import plots
    import matplotlib.pyplot as plt

    xv, yv = heat.xv, heat.yv
    mat = np.full((len(yv), len(xv)), np.nan)
    star = None
    tied_marks = []
    for _, r in sub.iterrows():
        i, j = yv.index(str(r[heat.yc])), xv.index(str(r[heat.xc]))
        mat[i, j] = r["win_rate"] * 100
        if r["best"] is True or r["best"] == 1:
            star = (j, i)
        elif bool(r["tied_with_best"]):
            tied_marks.append((j, i))
    im = ax.imshow(mat, origin="lower", aspect="auto", cmap="viridis", vmin=heat.vmin, vmax=heat.vmax)
    ax.set_xticks(range(len(xv)), [plots.label(v) for v in xv], fontsize=9, rotation=90 if len(xv) > 12 else 0)
    ax.set_yticks(range(len(yv)), [plots.label(v) for v in yv], fontsize=9)
    if heat.labelled:
        for i in range(len(yv)):
            for j in range(len(xv)):
                if mat[i, j] == mat[i, j]:
                    cell_texts.append((ax, ax.text(
                        j, i, fixed(mat[i, j], heat.places), ha="center", va="center", fontsize=LABEL_PT,
                        color="black" if mat[i, j] > (heat.vmin + heat.vmax) / 2 else "white")))
    for (j, i) in tied_marks:
        ax.add_patch(plt.Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, edgecolor="#f0f0f0", lw=1, ls="--"))
    if star:
        ax.add_patch(plt.Rectangle((star[0] - 0.5, star[1] - 0.5), 1, 1, fill=False, edgecolor="#c44e52", lw=2.5))
    ax.set_xlabel(plots.label(heat.xc), fontsize=10)
    ax.set_ylabel(plots.label(heat.yc), fontsize=10)
    return im


def _plot_vs_best(g: gridmod.Grid, f: pd.DataFrame, outdir: Path, focus_label: str) -> tuple[str, str]:
    """Each cell's paired difference from the best cell, best 30."""
    from analyser.stats import plots
    import matplotlib.pyplot as plt

    d = f.sort_values("diff", ascending=False).head(30).iloc[::-1]
    fig, ax = plt.subplots(figsize=(8, 1.2 + 0.28 * len(d)))
    ypos = np.arange(len(d))
    colours = ["#c44e52" if t else "#3a6ea5" for t in d["tied_with_best"].fillna(False)]
    ax.errorbar(d["diff"] * 100, ypos, xerr=np.clip(np.vstack([(d["diff"] - d["diff_low"]) * 100,
                                                              (d["diff_high"] - d["diff"]) * 100]), 0, None),
                fmt="none", ecolor="#888888", capsize=3)
    ax.scatter(d["diff"] * 100, ypos, c=colours, zorder=3)
    ax.axvline(0, color="#444444", lw=0.8)
    labels = [plots.label(", ".join(f"{c}={r[c]}" for c, _ in g.dims)) for _, r in d.iterrows()]
    ax.set_yticks(ypos, labels, fontsize=8)
    plots.style(ax, "Difference from the best cell (paired)", "win-rate difference (percentage points)", "")
    return plots.save(fig, outdir / "sweep_vs_best.png", phrase("sweep.j2", "vs_best_caption", focus_label, len(f)))


def plot_seats(g: gridmod.Grid, f: pd.DataFrame, outdir: Path) -> tuple[str, str]:
    """Each seat's win rate across the one varied value (a sweep whose focus fills every seat,
    such as a start-bonus sweep), with the fair share."""
    from analyser.stats import plots
    import matplotlib.pyplot as plt

    col, values = g.dims[0]
    xs = _axis_values(values, g.dim_kinds.get(col, "str"))
    present = [str(v) for v in f[col]]
    pos = (np.array([float(v) for v in present]) if xs is not None
           else np.array([values.index(v) for v in present]))
    seat_cols = sorted((c for c in f.columns if c.startswith("seat") and c.endswith("_win")), key=lambda c: int(c[4:-4]))
    fig, ax = plt.subplots(figsize=(8, 4.2))
    for k, c in enumerate(seat_cols):
        ax.plot(pos, f[c].to_numpy() * 100, marker="o", color=plots.PALETTE[k % len(plots.PALETTE)],
                label=f"seat {c[4:-4]}")
    players = len(seat_cols)
    ax.axhline(100 / players, color="#555555", linestyle="--", linewidth=1, label=f"fair share {fixed(100 / players, 1)}%")
    if xs is None:
        ax.set_xticks(np.arange(len(values)), values)
    plots.style(ax, phrase("sweep.j2", "seats_title", col), col, "win rate (%)")
    ax.legend(fontsize=8)
    return plots.save(fig, outdir / "sweep_seats.png", phrase("sweep.j2", "seats_caption", col))


def method_label(cells: pd.DataFrame) -> str:
    """The interval method of the cells' win rates, as the report names it ("Wilson",
    "cluster-robust", or both per cell)."""
    names = {"wilson": "Wilson", "cluster": "cluster-robust"}
    used = list(dict.fromkeys(str(m) for m in cells.get("win_method", pd.Series(["wilson"]))))
    if len(used) == 1:
        return names.get(used[0], used[0])
    return "Wilson or cluster-robust, per cell: cells.csv win_method"


def display_cells(f: pd.DataFrame) -> pd.DataFrame:
    """A display copy: the paired difference in percentage points, ``tied_with_best`` as yes/no,
    or "best" on the best cell (read from a ``best`` column, which the copy drops)."""
    out = f.copy()
    for a, b in (("diff", "diff_pp"), ("diff_low", "diff_pp_low"), ("diff_high", "diff_pp_high")):
        if a in out.columns:
            out.insert(out.columns.get_loc(a), b, out.pop(a) * 100)
    best = out.pop("best").fillna(False).astype(bool) if "best" in out.columns else False
    if "tied_with_best" in out.columns:
        out["tied_with_best"] = out["tied_with_best"].map({True: "yes", False: "no"}).where(~best, "best")
    return out


def write_sweep(res: SweepResult, outdir: Path, report: bool = True) -> list[str]:
    """Write ``sweep.parquet``, ``cells.csv``, ``findings.json`` (``res.findings``:
    :func:`analyser.findings.sweep_findings`), ``config.json`` and (with ``report``) the plots and
    ``index.html``; return the file names."""
    outdir.mkdir(parents=True, exist_ok=True)
    files = []
    if len(res.results):
        res.results.to_parquet(outdir / "sweep.parquet", index=False)
        files.append("sweep.parquet")
        to_csv(res.cells, outdir / "cells.csv", index=False)
        files.append("cells.csv")
        res.findings = findmod.sweep_findings(res, get_game(res.config["game"]))
        findmod.write_json(outdir / "findings.json", "sweep", res.config["game"], [res.findings])
        files.append("findings.json")
    if report and len(res.results):
        files += _write_page(res, outdir)
    res.config["files"] = sorted(set(files) | {"config.json"})
    write_json_atomic(outdir / "config.json", res.config)
    return files


def _write_page(res: SweepResult, outdir: Path) -> list[str]:
    """The plots and ``index.html`` of a sweep; return their names."""
    from analyser.report import page as reportmod

    game = get_game(res.config["game"])
    g = res.grid
    focus_label = g.slots[g.focus].text
    figures = plot_sweep(g, res.cells, outdir, focus_label)
    f = res.cells[res.cells["slot"] == g.focus].sort_values("win_rate", ascending=False)
    sections = _sections(res, f, game)
    dimcols = [c for c, _ in g.dims]
    record = {"game": game.name, "dims": dimcols, "cells": len(g.cells), "games": res.config["games_per_cell"],
              "players": res.config["players"], "status": res.config["status"], "error": res.config["error"],
              "pairing": res.pairing["note"], "stop": res.stop.reason, "focus": focus_label, "slot": g.focus,
              "complete": cells_complete(res.config)}
    reportmod.write_experiment_page(
        outdir, reportmod.ExperimentPage(
            title=phrase("sweep.j2", "title", record), lead=phrase("sweep.j2", "lead", record),
            cards=_cards(res, f), notes=sentences("sweep.j2", r=record), sections=sections, figures=figures,
            config=res.config, findings=res.findings,
            figure_sections={name: ("Seats in each cell" if name == "sweep_seats.png" else sections[0][0])
                             for name, _ in figures}))
    return [name for name, _ in figures] + ["index.html"]


def _sections(res: SweepResult, f: pd.DataFrame, game) -> list[tuple[str, str, str]]:
    """The page's sections: the cells best first (``f``: the focus strategy's rows, best first),
    the other strategies, the seats and the best cell's designer figures; each ``(heading, html
    table, note)``."""
    from analyser.report import page as reportmod

    g = res.grid
    dimcols = [c for c, _ in g.dims]
    shown = [c for c in ("close_rate",) if res.cells[c].notna().any()]
    # the focus strategy's spec is its slot with the varied values filled in: the columns say it
    top = display_cells(f[["cell", *dimcols, "win_rate", "win_low", "win_high", "diff", "diff_low",
                           "diff_high", "p", "best", "tied_with_best", "mean_score", "seat_p", "tie_rate", *shown, "turns"]])
    outcome = designer.Outcome.of(game)
    note = {"method": method_label(f), "close": bool(shown), "margin": outcome.close_margin,
            "unit": outcome.scoring.score_unit, "close_reason": outcome.close_reason, "fixed": bool(f["fixed"].all()),
            "rows": len(top)}
    out = [("Cells, best first (focus strategy)", reportmod.html_table(top.head(200)),
            phrase("sweep.j2", "cells_note", note))]
    others = res.cells[res.cells["slot"] != g.focus]
    if len(others):
        out.append(("Other strategies in each cell", reportmod.html_table(
            others[["cell", *dimcols, "strategy", "win_rate", "win_low", "win_high", "mean_score", "mean_rank"]].head(300)),
            phrase("sweep.j2", "others_note")))
    seat_cols = [c for c in res.cells.columns if c.startswith("seat") and c.endswith("_win")]
    seat_table = res.cells[res.cells["slot"] == g.focus][["cell", *dimcols, "seat_p", *seat_cols]]
    seat_table = seat_table.rename(columns={c: f"seat {c[4:-4]} win rate" for c in seat_cols})
    seat_table.attrs["percent"] = [f"seat {c[4:-4]} win rate" for c in seat_cols]
    out.append(("Seats in each cell", reportmod.html_table(seat_table.head(300)), phrase("sweep.j2", "seats_note")))
    best_frame = res.results[res.results["cell"] == int(f.iloc[0]["cell"])]
    out.append(("Designer figures of the best cell", reportmod.html_table(designer.designer_table(best_frame, game)),
                phrase("sweep.j2", "designer_note")))
    return out


def _cards(res: SweepResult, f: pd.DataFrame) -> list[tuple[str, str, str]]:
    """The headline cards: the best cell, how many cells are like it, the grid and the games."""
    g = res.grid
    dimcols = [c for c, _ in g.dims]
    best = f.iloc[0]
    tied = int(f["tied_with_best"].sum()) - 1
    return [("best cell", ", ".join(f"{c}={best[c]}" for c in dimcols) or "the only cell",
             f"win rate {analysis.percent(best['win_rate'], best['win_low'], best['win_high'])} "
             f"({analysis.percent_ci(best['win_low'], best['win_high'])})"),
            ("cells like the best", str(max(0, tied)), "cannot be told apart (paired 95%)"),
            ("cells", str(len(g.cells)), " x ".join(str(len(v)) for _, v in g.dims) or "1"),
            ("games per cell", f"{res.config['games_per_cell']:,}", f"seed {res.config['seed']}")]
