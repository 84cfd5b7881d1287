"""The report of ``analyser ladder`` (:mod:`analyser.experiments.ladder`): the level table as the
terminal and the page show it, the skill-depth plot, ``levels.csv``, ``gains.csv``, the record
and the page (``index.html``, through :mod:`analyser.report.page`)."""

from __future__ import annotations

import functools
import math
from pathlib import Path

import numpy as np
import pandas as pd

from analyser.engine.registry import get_game
from analyser.experiments.ladder import LadderResult, findings, format_value
from analyser.io.csvsafe import to_csv
from analyser.run.store import write_json_atomic
from analyser.stats import analysis
from analyser.text import number, phrase, sentences, signed, thousands


def display_levels(table: pd.DataFrame, gains: pd.DataFrame, curve: bool) -> pd.DataFrame:
    """The level table as the report and the terminal show it (win rates in %, budgets as
    written, the doubling's verdict)."""
    t = table
    out = pd.DataFrame({"level": t["level"]})
    if curve:
        out["budget"] = [format_value(b) for b in t["budget"]]
    else:
        out["stronger"] = [format_value(b) for b in t["budget"]]
        out["weaker"] = [format_value(b) for b in t["lower"]]
    out["games"] = t["games"]
    out["seats"] = [f"{s:g} of {p}" for s, p in zip(t["seats"], t["players"])]
    out["win rate %"] = [number(100 * x, 1) for x in t["win_rate"]]
    out["95% interval %"] = [f"{number(100 * a, 1)}-{number(100 * b, 1)}" for a, b in zip(t["win_low"], t["win_high"])]
    out["fair share %"] = [number(100 * x, 1) for x in t["fair_share"]]
    if not curve:
        out["gain pp"] = [signed(x) for x in t["gain_pp"]]
        out["doubling"] = list(gains["verdict"]) if len(gains) == len(t) else "-"
    else:
        change = ["-"] + [f"{signed(g)} ({signed(lo)} to {signed(hi)}) {v}" for g, lo, hi, v in
                          zip(gains["gain_pp"], gains["gain_low_pp"], gains["gain_high_pp"], gains["verdict"])]
        out["change from previous pp (95%)"] = change[:len(t)]
    out["decisions/s" if curve else "decisions/s stronger"] = [_rate(x) for x in t["side_dps"]]
    if not curve:
        out["decisions/s weaker"] = [_rate(x) for x in t["other_dps"]]
    return out


def _rate(x) -> str:
    if not x == x:
        return "not measured"
    return thousands(x) if x >= 10 else number(x, significant=2)


def plot_ladder(res: LadderResult, outdir: Path) -> tuple[str, str]:
    """The curve: the side's win rate against the budget (log axis), its 95% intervals, the fair
    share as a line; clear doublings filled, the rest hollow."""
    import matplotlib.pyplot as plt

    from analyser.stats import plots

    t = res.table
    curve = res.config.get("against") is not None
    param = res.config.get("parameter", "budget")
    fig, ax = plt.subplots(figsize=(8, 4.4))
    x = t["budget"].to_numpy(dtype=float)
    y = t["win_rate"].to_numpy(dtype=float) * 100
    err = np.clip(np.vstack([y - t["win_low"].to_numpy() * 100, t["win_high"].to_numpy() * 100 - y]), 0, None)
    ax.errorbar(x, y, yerr=err, fmt="-", color="#3a6ea5", ecolor="#8aa9cc", capsize=4, zorder=2,
                label="win rate with 95% interval (cluster-robust)")
    # a curve's first budget has no doubling below it
    clear = np.array([False] * curve + [v == "clear" for v in res.gains["verdict"]])[:len(t)]
    ax.scatter(x[clear], y[clear], color="#3a6ea5", zorder=3, s=40, label="clear gain" if not curve else
               "clear gain over the previous budget")
    ax.scatter(x[~clear], y[~clear], facecolor="white", edgecolor="#3a6ea5", zorder=3, s=40,
               label="gain not clear" if not curve else "first budget, or gain not clear")
    fair = t["fair_share"].to_numpy(dtype=float) * 100
    if len(t) and np.allclose(fair, fair[0]):
        ax.axhline(fair[0], color="#c44e52", lw=1, ls="--", label=phrase("ladder.j2", "fair_share", fair[0]))
    else:  # an odd player count and games that end inside a block of lineups: it moves a little
        ax.plot(x, fair, color="#c44e52", lw=1, ls="--", label="fair share")
    ax.set_xscale("log", base=2)
    ax.set_xticks(x, [format_value(v) for v in x])
    ax.minorticks_off()
    r = _record(res)
    plots.style(ax, plots.label(phrase("ladder.j2", "plot_title", r)), f"{param} (log scale)", "win rate (%)")
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, frameon=False)
    return plots.save(fig, outdir / "ladder_curve.png", phrase("ladder.j2", "caption", r))


def _record(res: LadderResult) -> dict:
    """The record the page's words read (ladder.j2): the config with the curve, the levels, the
    most games at a level, whether each budget doubles the one below, and the depth."""
    t = res.table
    depth = dict(res.depth, pays_up_to=None if res.depth["pays_up_to"] is None else format_value(res.depth["pays_up_to"]))
    return dict(res.config, curve=res.config.get("against") is not None, levels=len(res.levels), depth=depth,
                games=int(t["games"].max()) if len(t) else 0,
                halving=bool(len(t)) and all(abs(b / lo - 2) < 1e-9 for b, lo in zip(t["budget"], t["lower"])))


def write_ladder(res: LadderResult, outdir: Path, report: bool = True) -> list[str]:
    """Write ``ladder.parquet`` (every game, with ``level`` and ``budget``), ``levels.csv`` (one
    row per level: :func:`level_table` with the doubling's gain and verdict), ``config.json``
    and (with ``report``) ``ladder_curve.png`` and ``index.html``; return the file names."""
    from analyser.report import page as reportmod

    outdir.mkdir(parents=True, exist_ok=True)
    files = []
    curve = res.config.get("against") is not None
    if len(res.results):
        res.results.to_parquet(outdir / "ladder.parquet", index=False)
        files.append("ladder.parquet")
    t = res.table.copy().reset_index(drop=True)
    if curve:  # the change from the budget below, paired by game
        g = res.gains.rename(columns={"from": "change_from", "gain_pp": "change_pp", "gain_low_pp": "change_low_pp",
                                      "gain_high_pp": "change_high_pp"}).drop(columns=["to", "games"])
        g = pd.concat([pd.DataFrame([{c: math.nan for c in g.columns}]).astype({"verdict": object}), g],
                      ignore_index=True).iloc[:len(t)]
        g.loc[0, "verdict"] = "first budget"
        t = pd.concat([t, g.reset_index(drop=True)], axis=1)
    else:
        t["verdict"] = list(res.gains["verdict"])[:len(t)]
    t["win_method"] = analysis.METHODS["cluster"]
    to_csv(t, outdir / "levels.csv", index=False)
    files.append("levels.csv")
    if report and len(res.results):
        figure = plot_ladder(res, outdir)
        fs = findings(res.gains, res.depth, param=res.config["parameter"], against=res.config.get("against"),
                      source=res.config["strategy"].split(":")[0])
        shown = display_levels(res.table, res.gains, curve)
        r, say = dict(_record(res), game_name=get_game(res.config["game"]).name), functools.partial(phrase, "ladder.j2")
        sections = [("Levels", reportmod.html_table(shown, formatted=True), say("levels_note", r, analysis.METHODS["cluster"]))]
        cards = [("skill depth", str(res.depth["depth"]), say("depth_card", r)),
                 ("levels", str(len(res.levels)), ", ".join(res.config["budgets"])),
                 ("games per level", thousands(r["games"]), f"seed {res.config['seed']}"),
                 ("players", str(r["players"]), say("players_card", r))]
        reportmod.write_experiment_page(
            outdir, reportmod.ExperimentPage(
                title=say("title", r), lead=say("lead", r), cards=cards, notes=sentences("ladder.j2", r=r),
                sections=sections, figures=[figure], config=res.config, findings=fs,
                figure_sections={figure[0]: "Levels"}))
        files += [figure[0], "index.html"]
    res.config["files"] = sorted(set(files) | {"config.json"})
    write_json_atomic(outdir / "config.json", res.config)
    return files
