"""``analyser compare``: A against B on the same game seeds.

docs/commands/compare.md is the contract: two rule sets or lineups played on the same root seed,
or two finished run folders, and every figure as A - B with a 95% interval and a p-value (paired
tests when the games pair up, else unpaired ones).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from analyser import findings as findmod
from analyser.engine.registry import get_game
from analyser.stats import analysis, designer
from analyser.engine.core import InputError
from analyser.io.csvsafe import to_csv
from analyser.experiments.base import Cell, Experiment, recorded_outcome
from analyser.experiments.options import CompareOptions, Session
from analyser.results import load_results
from analyser.run import RunSpec, package_versions, resolve
from analyser.run.store import write_json_atomic
from analyser.text import fixed, markup, number, phrase, sentences, signed, thousands

RESAMPLES = 2000


@dataclass
class Comparison:
    table: pd.DataFrame        # one row per figure: figure, a, b, diff, low, high, p, test
    paired: bool
    note: str
    config: dict
    seats: dict                # {"a": seat_balance, "b": seat_balance}
    games: int
    status: str = "complete"   # of the games played: complete, interrupted or failed
    error: BaseException | None = None
    interrupted: bool = False
    findings: object = None    # analyser.findings.compare_findings, set by write_compare


def _bootstrap_mean_ci(d: np.ndarray, seed: int = 0) -> tuple[float, float]:
    from scipy import stats

    if len(d) < 2 or np.all(d == d[0]):
        v = float(d.mean()) if len(d) else math.nan
        return v, v
    res = stats.bootstrap((d,), np.mean, n_resamples=RESAMPLES, method="percentile",
                          confidence_level=0.95, random_state=np.random.default_rng(seed), vectorized=True)
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def mcnemar_p(a_won: np.ndarray, b_won: np.ndarray) -> float:
    """McNemar's test of two paired binary outcomes (statsmodels; exact below 25 discordant)."""
    from statsmodels.stats.contingency_tables import mcnemar

    a_won, b_won = np.asarray(a_won, bool), np.asarray(b_won, bool)
    table = [[int(np.sum(a_won & b_won)), int(np.sum(a_won & ~b_won))],
             [int(np.sum(~a_won & b_won)), int(np.sum(~a_won & ~b_won))]]
    discordant = table[0][1] + table[1][0]
    if discordant == 0:
        return 1.0
    return float(mcnemar(table, exact=discordant < 25, correction=True).pvalue)


def _too_few(a: np.ndarray, b: np.ndarray) -> dict:
    """The row of a figure with fewer than two pairs: one pair is no evidence either way (no
    interval, no test)."""
    return {"a": float(a.mean()) if len(a) else math.nan, "b": float(b.mean()) if len(b) else math.nan,
            "diff": float((a - b).mean()) if len(a) else math.nan, "low": math.nan, "high": math.nan,
            "p": math.nan, "p_wilcoxon": math.nan, "test": "needs two games or more"}


def paired_rate(a: np.ndarray, b: np.ndarray, seed: int = 0) -> dict:
    """Paired difference of per-game shares (win share in [0, 1]): mean A, mean B, diff, paired
    bootstrap 95% interval, and a p-value on the same quantity: McNemar's test when every value
    is 0 or 1, else (shared wins present) the paired t-test of the shares."""
    from scipy import stats

    a, b = np.asarray(a, float), np.asarray(b, float)
    if len(a) < 2:
        return _too_few(a, b)
    lo, hi = _bootstrap_mean_ci(a - b, seed)
    binary = bool(np.isin(a, (0.0, 1.0)).all() and np.isin(b, (0.0, 1.0)).all())
    if binary:
        p, test = mcnemar_p(a > 0, b > 0), "paired bootstrap; McNemar"
    elif len(a) > 1 and not np.all(a - b == (a - b)[0]):
        p, test = float(stats.ttest_rel(a, b).pvalue), "paired bootstrap; paired t (shared wins)"
    else:
        p, test = (1.0 if float((a - b).mean()) == 0 else 0.0), "paired bootstrap"
    return {"a": float(a.mean()), "b": float(b.mean()), "diff": float((a - b).mean()), "low": lo, "high": hi,
            "p": p, "test": test}


def paired_mean(a: np.ndarray, b: np.ndarray) -> dict:
    """Paired difference of means: paired t interval and p (scipy ``ttest_rel``), Wilcoxon p."""
    from scipy import stats

    a, b = np.asarray(a, float), np.asarray(b, float)
    d = a - b
    if len(d) < 2:
        return _too_few(a, b)
    if np.all(d == d[0]):
        v = float(d.mean())
        return {"a": float(a.mean()), "b": float(b.mean()), "diff": v, "low": v, "high": v,
                "p": 1.0 if v == 0 else 0.0, "p_wilcoxon": 1.0 if v == 0 else 0.0, "test": "paired t; Wilcoxon"}
    res = stats.ttest_rel(a, b)
    ci = res.confidence_interval(0.95)
    try:
        pw = float(stats.wilcoxon(a, b).pvalue)
    except ValueError:
        pw = math.nan
    return {"a": float(a.mean()), "b": float(b.mean()), "diff": float(d.mean()), "low": float(ci.low),
            "high": float(ci.high), "p": float(res.pvalue), "p_wilcoxon": pw, "test": "paired t; Wilcoxon"}


def unpaired_rate(a: np.ndarray, b: np.ndarray, seed: int = 0) -> dict:
    """Independent samples: bootstrap of each side for the interval, Fisher's exact test p."""
    from scipy import stats

    a, b = np.asarray(a, float), np.asarray(b, float)
    rng = np.random.default_rng(seed)
    reps = (rng.choice(a, (RESAMPLES, len(a))).mean(axis=1) - rng.choice(b, (RESAMPLES, len(b))).mean(axis=1))
    lo, hi = np.percentile(reps, [2.5, 97.5])
    table = [[int((a > 0).sum()), int((a <= 0).sum())], [int((b > 0).sum()), int((b <= 0).sum())]]
    return {"a": float(a.mean()), "b": float(b.mean()), "diff": float(a.mean() - b.mean()), "low": float(lo),
            "high": float(hi), "p": float(stats.fisher_exact(table).pvalue), "test": "bootstrap; Fisher exact"}


def unpaired_mean(a: np.ndarray, b: np.ndarray) -> dict:
    """Independent samples: Welch's t interval and p, Mann-Whitney U p."""
    from scipy import stats

    a, b = np.asarray(a, float), np.asarray(b, float)
    res = stats.ttest_ind(a, b, equal_var=False)
    ci = res.confidence_interval(0.95)
    return {"a": float(a.mean()), "b": float(b.mean()), "diff": float(a.mean() - b.mean()), "low": float(ci.low),
            "high": float(ci.high), "p": float(res.pvalue), "p_wilcoxon": float(stats.mannwhitneyu(a, b).pvalue),
            "test": "Welch t; Mann-Whitney U"}


def _per_game(df: pd.DataFrame, by: str, value: str) -> pd.DataFrame:
    return df.groupby(["game_index", by], observed=True)[value].mean().unstack(by)


def compare_frames(a: pd.DataFrame, b: pd.DataFrame, paired: bool, outcome=None) -> tuple[pd.DataFrame, int]:
    """The comparison table of two results frames (see the module docstring) and the number of
    games compared (the games both played, when paired).  ``outcome``: the title (or an
    :class:`analyser.stats.designer.Outcome`): its close margin, and no close-game or lead row where
    they do not fit the title."""
    outcome = designer.Outcome.of(outcome)
    if paired:
        common = np.intersect1d(a["game_index"].unique(), b["game_index"].unique())
        a = a[a["game_index"].isin(common)]
        b = b[b["game_index"].isin(common)]
        n = len(common)
    else:
        n = min(a["game_index"].nunique(), b["game_index"].nunique())
    rate = paired_rate if paired else unpaired_rate
    mean = paired_mean if paired else unpaired_mean
    rows = []

    def add(figure, res):
        rows.append({"figure": figure, **res})

    def sides(pa: pd.DataFrame | pd.Series, pb: pd.DataFrame | pd.Series, col=None):
        xa = pa[col] if col is not None else pa
        xb = pb[col] if col is not None else pb
        if paired:
            both = pd.concat([xa.rename("a"), xb.rename("b")], axis=1).dropna()
            return both["a"].to_numpy(), both["b"].to_numpy()
        return xa.dropna().to_numpy(), xb.dropna().to_numpy()

    wa, wb = _per_game(a, "strategy", "win"), _per_game(b, "strategy", "win")
    sa, sb = _per_game(a, "strategy", "score"), _per_game(b, "strategy", "score")
    # a strategy filling every seat in both (a mirror) wins 1/players by construction: no row
    mirror = set(analysis.mirror_strategies(a)) & set(analysis.mirror_strategies(b))
    names = [s for s in wa.columns if s in set(wb.columns) and str(s) not in mirror]
    for k, s in enumerate(names):
        x, y = sides(wa, wb, s)
        if len(x) and len(y):
            add(f"win rate: {s}", rate(x, y, seed=k))
    for s in names:
        x, y = sides(sa, sb, s)
        if len(x) > 1 and len(y) > 1:
            add(f"mean score: {s}", mean(x, y))
    if "turns" in a.columns and "turns" in b.columns:
        x, y = sides(a.groupby("game_index")["turns"].first(), b.groupby("game_index")["turns"].first())
        add("game length", mean(x, y))
    ga, gb = analysis.per_game(a).set_index("game_index"), analysis.per_game(b).set_index("game_index")
    x, y = sides(ga["tie"].astype(float), gb["tie"].astype(float))
    add("tie rate", rate(x, y, seed=101))
    if outcome.close_applies:
        m = outcome.close_margin + designer.MARGIN_TOL
        x, y = sides((ga["margin"] <= m).astype(float), (gb["margin"] <= m).astype(float))
        add(f"close-game rate (margin <= {number(outcome.close_margin)})", rate(x, y, seed=102))
    seats_a, seats_b = _per_game(a, "seat", "win"), _per_game(b, "seat", "win")
    for s in seats_a.columns:
        if s in seats_b.columns:
            x, y = sides(seats_a, seats_b, s)
            add(f"seat {s} win rate", rate(x, y, seed=200 + int(s)))
    da, db = designer.drama_per_game(a), designer.drama_per_game(b)
    if da is not None and db is not None and outcome.drama_applies:
        x, y = sides(da.set_index("game_index")["lead_changes"], db.set_index("game_index")["lead_changes"])
        add("lead changes per game", mean(x, y))
    cols = ["figure", "a", "b", "diff", "low", "high", "p", "p_wilcoxon", "test"]
    return pd.DataFrame(rows).reindex(columns=cols), n  # (a column no row has: NaN)


def _title(ref: str):
    """The title ``ref`` names, for its outcome declarations; None (the defaults) when it cannot
    be loaded here (a title file the command line did not name)."""
    try:
        return get_game(ref)
    except InputError:
        return None


def _is_paired(ca: dict, cb: dict, a: pd.DataFrame, b: pd.DataFrame) -> tuple[bool, str]:
    seeds, players = [ca.get("seed"), cb.get("seed")], [a["players"].iloc[0], b["players"].iloc[0]]
    why, common = ("seeds" if None in seeds or seeds[0] != seeds[1] else None), []
    if why is None:
        ka = a.groupby("game_index")["game_seed"].first()
        kb = b.groupby("game_index")["game_seed"].first()
        common = ka.index.intersection(kb.index)
        why = ("game seeds" if not len(common) or not (ka[common] == kb[common]).all() else
               "players" if players[0] != players[1] else "paired")
    return why == "paired", phrase("compare.j2", "pairing", {"why": why, "seeds": seeds, "players": players,
                                                            "games": len(common)})


def compare_runs(path_a: str, path_b: str, command: str = "") -> Comparison:
    """Compare two finished run folders (or results files).  InputError when unreadable or of
    different titles."""
    a, _, ca = load_results(Path(path_a))
    b, _, cb = load_results(Path(path_b))
    if str(a["game"].iloc[0]) != str(b["game"].iloc[0]):
        raise InputError(f"{path_a!r} is {a['game'].iloc[0]} but {path_b!r} is {b['game'].iloc[0]}; compare runs "
                         "of one title")
    paired, note = _is_paired(ca, cb, a, b)
    table, n = compare_frames(a, b, paired, _title(str(a["game"].iloc[0])))
    config = {"command": command, "kind": "compare", "game": str(a["game"].iloc[0]), "seed": ca.get("seed"),
              "a": {"source": str(path_a), "seed": ca.get("seed"), "strategies": ca.get("strategies"),
                    "rule_overrides": ca.get("rule_overrides")},
              "b": {"source": str(path_b), "seed": cb.get("seed"), "strategies": cb.get("strategies"),
                    "rule_overrides": cb.get("rule_overrides")},
              "paired": paired, "versions": package_versions(), "status": "complete"}
    return Comparison(table, paired, note, config, {"a": analysis.seat_balance(a), "b": analysis.seat_balance(b)}, n)


def compare_specs(spec_a: RunSpec, options: CompareOptions, session: Session | None = None) -> Comparison:
    """Play A (``spec_a``) and B (``options.b``) on the same root seed (drawn once if not given)
    and compare them, paired.  The sides are the cells ``out/a`` and ``out/b``, played one after
    the other as ``session`` (:class:`~analyser.experiments.options.Session`) says.  When play
    stops early (a failure, Ctrl-C, SIGTERM) the result has no table and says why (``status``,
    ``error``, ``interrupted``)."""
    session = session or Session()
    spec_b = options.b
    _, _, players, n_jobs, seed = resolve(spec_a)
    spec_a = dataclasses.replace(spec_a, seed=seed, players=players)
    spec_b = dataclasses.replace(spec_b, seed=seed, players=players if spec_b.players is None else spec_b.players)
    resolve(spec_b)
    paired = spec_a.players == spec_b.players
    cells = [Cell("a", spec_a, folder="a"), Cell("b", spec_b, folder="b")]
    fields = {"game": spec_a.game, "seed": seed, "games": spec_a.games,
              "a": {"strategies": spec_a.strategies, "rule_overrides": spec_a.rules, "players": spec_a.players},
              "b": {"strategies": spec_b.strategies, "rule_overrides": spec_b.rules, "players": spec_b.players},
              "paired": paired}
    with Experiment.begin(session, "compare", cells, run=spec_a, options=CompareOptions(spec_b),
                          fields=fields) as exp:
        outcome = (exp.play(jobs=n_jobs, games=spec_a.games, players=players, what="sides")
                   if session.play else recorded_outcome(exp.config))
        frames = [exp.results(0), exp.results(1)] if outcome.status == "complete" else []
        walls = [float((exp.cell_config(k) or {}).get("wall_seconds") or 0.0) for k in range(2)]
        config = dict(exp.config)
    config.update(status=outcome.status, error=str(outcome.error) if outcome.error else None)
    if outcome.status != "complete":
        return Comparison(pd.DataFrame(), paired, "", config, {}, 0, outcome.status, outcome.error,
                          outcome.interrupted)
    ra, rb = frames
    note = phrase("compare.j2", "played", paired, spec_a.games, seed)
    table, n = compare_frames(ra, rb, paired, _title(spec_a.game))
    config["wall_seconds"] = round(sum(walls), 3)
    return Comparison(table, paired, note, config,
                      {"a": analysis.seat_balance(ra), "b": analysis.seat_balance(rb)}, n)


def describe_side(side: dict) -> str:
    """A side of a comparison: its run folder, strategies and rule overrides, or ``defaults``."""
    return markup("compare.j2", "side", side)


def display_table(table: pd.DataFrame) -> pd.DataFrame:
    """Rates as percentages / percentage points, other figures in their units; each row with the
    decimals its interval calls for (:func:`analyser.stats.analysis.decimals`); p-values with 3
    significant digits (:func:`analyser.stats.analysis.format_p`: ``< 1e-300`` below the float range)."""
    rows = []
    for _, r in table.iterrows():
        pct = "rate" in r["figure"]
        scale = 100.0 if pct else 1.0
        places = analysis.decimals((r["high"] - r["low"]) * scale / 2, default=1 if pct else 2)
        sign = "%" if pct else ""

        def f(v):
            return "-" if v != v else f"{fixed(scale * v, places)}{sign}"

        def d(v):
            return "-" if v != v else signed(scale * v, places) + (" pp" if pct else "")

        rows.append({"figure": r["figure"], "A": f(r["a"]), "B": f(r["b"]), "A - B": d(r["diff"]),
                     "95% CI": f"{d(r['low'])} to {d(r['high'])}",
                     "p": analysis.format_p(r["p"]), "p (Wilcoxon)": analysis.format_p(r["p_wilcoxon"]),
                     "test": r["test"]})
    return pd.DataFrame(rows)


def plot_compare(cmp: Comparison, outdir: Path, score_unit: str = "points",
                 length_unit: str = "turns") -> list[tuple[str, str]]:
    """Every compared figure as A - B with its 95% interval, one panel per unit (rates in
    percentage points, mean scores in ``score_unit``, game length in ``length_unit``, lead
    changes per game), each with its own axis and a line at 0; red where p < 0.05."""
    from analyser.stats import plots
    import matplotlib.pyplot as plt

    t = cmp.table[cmp.table["diff"].notna()]
    if not len(t):
        return []
    groups: dict[str, list] = {}
    for _, r in t.iterrows():
        group, unit, scale = analysis.figure_unit(r["figure"], score_unit, length_unit)
        groups.setdefault(group, []).append((r, unit, scale))
    heights = [len(rows) + 1.2 for rows in groups.values()]
    fig, axes = plt.subplots(len(groups), 1, figsize=(8, 0.9 + 0.38 * sum(heights)), squeeze=False,
                             gridspec_kw={"height_ratios": heights})
    for ax, (group, rows) in zip(axes[:, 0], groups.items()):
        rows = rows[::-1]
        unit, scale = rows[0][1], rows[0][2]
        y = np.arange(len(rows))
        diff = np.array([r["diff"] for r, _, _ in rows]) * scale
        low = np.array([r["low"] for r, _, _ in rows]) * scale
        high = np.array([r["high"] for r, _, _ in rows]) * scale
        sig = np.array([r["p"] < 0.05 for r, _, _ in rows])
        err = np.clip(np.vstack([diff - np.where(np.isnan(low), diff, low),
                                 np.where(np.isnan(high), diff, high) - diff]), 0, None)
        ax.errorbar(diff, y, xerr=err, fmt="none", ecolor="#888888", capsize=3)
        ax.scatter(diff, y, c=["#c44e52" if s_ else "#3a6ea5" for s_ in sig], zorder=3)
        ax.axvline(0, color="#444444", lw=0.8)
        for yi, (r, _, _), v in zip(y, rows, diff):
            places = analysis.decimals((r["high"] - r["low"]) * scale / 2, default=1 if scale == 100 else 2)
            ax.annotate(signed(v, places), (v, yi), xytext=(0, 7), textcoords="offset points", ha="center",
                        fontsize=8, color="#333333", bbox={"boxstyle": "square,pad=0.1", "fc": "white", "ec": "none"})
        ax.set_yticks(y, [plots.short(plots.label(r["figure"]), 40) for r, _, _ in rows], fontsize=9)
        ax.set_ylim(-0.7, len(rows) - 0.3)
        lo_x = np.nanmin(np.r_[low, diff, 0.0])
        hi_x = np.nanmax(np.r_[high, diff, 0.0])
        pad = 0.08 * (hi_x - lo_x or 1.0)
        ax.set_xlim(lo_x - pad, hi_x + pad)
        plots.style(ax, plots.label(phrase("compare.j2", "panel", group, unit)), f"A - B ({unit})" if unit else "A - B", "")
    fig.suptitle(phrase("compare.j2", "plot_title"), fontsize=12, fontweight="bold", x=0.02, ha="left")
    return [plots.save(fig, outdir / "compare.png",
                       phrase("compare.j2", "caption", cmp.paired, list(groups), score_unit, length_unit))]


def write_compare(cmp: Comparison, outdir: Path) -> list[str]:
    """Write ``compare.csv``, ``findings.json`` (``cmp.findings``:
    :func:`analyser.findings.compare_findings`), the plot, ``index.html`` and ``config.json``;
    return the file names."""
    from analyser.report import page as reportmod

    outdir.mkdir(parents=True, exist_ok=True)
    to_csv(cmp.table, outdir / "compare.csv", index=False)
    game = get_game(cmp.config["game"])
    cmp.findings = findmod.compare_findings(cmp, game.scoring.score_unit, game.scoring.length_unit)
    findmod.write_json(outdir / "findings.json", "compare", str(cmp.config["game"]), [cmp.findings])
    figures = plot_compare(cmp, outdir, game.scoring.score_unit, game.scoring.length_unit)
    seat_rows = pd.DataFrame([{"side": k.upper(), "chi-square": v["chi2"], "df": v["df"], "p": v["p"],
                               "verdict": v["verdict"]} for k, v in cmp.seats.items()])
    sig = cmp.table[cmp.table["p"] < 0.05]
    say = functools.partial(phrase, "compare.j2")
    cards = [("games compared", thousands(cmp.games), "paired by game" if cmp.paired else "unpaired"),
             ("figures that differ", say("differ_card", len(sig), len(cmp.table)), "p < 0.05 (no multiple-test correction)")]
    sections = [("A - B", reportmod.html_table(display_table(cmp.table)), say("table_note")),
                ("Seat advantage on each side", reportmod.html_table(seat_rows), say("seats_note"))]
    reportmod.write_experiment_page(outdir, reportmod.ExperimentPage(
        title=say("title", game.name), lead=say("lead", cmp.games), cards=cards,
        notes=sentences("compare.j2", r=dict(cmp.config, note=cmp.note)), sections=sections, figures=figures,
        config=cmp.config, findings=cmp.findings, figure_sections={"compare.png": "A - B"}))
    files = ["compare.csv", "findings.json", "index.html"] + [n for n, _ in figures]
    cmp.config["files"] = sorted(set(files) | {"config.json"})
    write_json_atomic(outdir / "config.json", cmp.config)
    return files
