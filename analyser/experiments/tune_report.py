"""The report of ``analyser tune`` (:mod:`analyser.experiments.tune`): the optimisation history,
the Pareto front, parameter importances, the plain-language summary, ``trials.csv``,
``recheck.csv`` and ``index.html`` with the verifying run's report linked."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from analyser.io.csvsafe import to_csv
from analyser.run.store import write_json_atomic
from analyser.stats import analysis
from analyser.experiments.tune import STUDY, Target, TuneResult, objective_targets
from analyser.experiments import tune_study
from analyser.engine.registry import get_game
from analyser.text import estimate, markup, phrase, plural, sentences, yes_no


# --------------------------------------------------------------------------------------------
# Plots and report
# --------------------------------------------------------------------------------------------

#: The legend of a tune plot sits to the right of its axes, where it covers no trial.
LEGEND_OUTSIDE = {"fontsize": 8, "loc": "upper left", "bbox_to_anchor": (1.01, 1.0), "frameon": False}

#: The terminal names at most this many trials of a Pareto front, with their figures.
FRONT_LINES = 8


def _fmt(v, lo=None, hi=None, d: int | None = None) -> str:
    """``v (lo to hi)`` with the decimals the interval's half-width calls for, or ``d`` (one
    count for a table's column, so the column reads alike)."""
    if d is None and lo is not None and lo == lo and v is not None and v == v:
        d = analysis.decimals((hi - lo) / 2)
    return estimate(v, lo, hi, d)


def _cell(value, rule: bool = False):
    """A table cell: a flag as ``yes``/``no``; with ``rule``, a rule value as the command line takes
    it (``on``/``off``)."""
    if isinstance(value, (bool, np.bool_)):
        return analysis.display_value(value) if rule else yes_no(value)
    return value


def _places(df: pd.DataFrame, targets) -> dict:
    """Per target name, one count of decimals for its figures in ``df`` (the median half-width's,
    :func:`analyser.stats.analysis.decimals`), so the same figure reads alike in every table and
    line that shows it."""
    if not len(df):
        return {tg.name: 1 for tg in targets}
    return {tg.name: analysis.decimals(((df[tg.name + ".high"] - df[tg.name + ".low"]) / 2).to_numpy(dtype=float))
            for tg in targets}


def target_unit(t: Target) -> str:
    """The unit a target's figures are written with: ``" pp"``, ``"%"`` or ``""`` (a count, or a
    number column of the title)."""
    return {"seat_gap": " pp", "win_rate": "%", "skill_share": "%", "ties": "%", "close_games": "%"}.get(t.kind, "")


def _target_label(t: Target) -> str:
    return f"{t.name}{target_unit(t).replace('%', ' %')}"


def plot_history(res: TuneResult, outdir: Path) -> list[tuple[str, str]]:
    """The optimisation history (each target's figure per trial with its 95% interval, the best so
    far) and, for several objectives, the Pareto front of the first two."""
    import matplotlib.pyplot as plt

    from analyser.stats import plots

    t = res.trials[res.trials["state"] == "complete"]
    out = []
    if not len(t):
        return out
    # a target undefined in every trial has nothing to draw (the summary says why)
    drawn = [tg for tg in res.targets if np.isfinite(t[tg.name].to_numpy(dtype=float)).any()]
    if not drawn:
        return out
    n = len(drawn)
    fig, axes = plt.subplots(n, 1, figsize=(9.5, 2.6 * n + 0.6), squeeze=False)
    best = set(res.best)
    for ax, tg in zip(axes[:, 0], drawn):
        y, lo, hi = t[tg.name].to_numpy(float), t[tg.name + ".low"].to_numpy(float), t[tg.name + ".high"].to_numpy(float)
        x = t["trial"].to_numpy()
        ax.errorbar(x, y, yerr=np.clip(np.vstack([y - lo, hi - y]), 0, None), fmt="o", color="#3a6ea5",
                    ecolor="#bbbbbb", markersize=4, capsize=2, label="trial (95% interval)")
        if tg.goal in ("min", "max"):
            run = np.minimum.accumulate(y) if tg.goal == "min" else np.maximum.accumulate(y)
            ax.step(x, run, where="post", color="#c44e52", lw=1.5, label="best so far")
        elif tg.goal == "value":
            ax.axhline(tg.value, color="#c44e52", lw=1, ls="--", label=f"target {tg.value:g}")
        else:
            ax.axhspan(tg.low, tg.high, color="#55a868", alpha=0.15, label=f"range {tg.low:g}-{tg.high:g}")
        mark = t["trial"].isin(best).to_numpy()
        if mark.any():
            ax.plot(x[mark], y[mark], marker="*", markersize=14, color="#c44e52", linestyle="none",
                    label="best" if len(best) == 1 else "Pareto front")
        plots.style(ax, plots.label(f"{tg.name}: {tg.goal_text()}"), "trial", plots.label(_target_label(tg)))
        ax.legend(**LEGEND_OUTSIDE)
    out.append(plots.save(fig, outdir / "tune_history.png",
                          "Optimisation history: each trial's figure for each target with its 95% interval, in the "
                          "order the sampler asked them; the line is the best so far, the star the best trial "
                          "(or the Pareto front)."))
    objs = objective_targets(res.targets)
    if len(objs) >= 2:
        a, b = objs[0], objs[1]
        fig, ax = plt.subplots(figsize=(9, 5))
        ax.errorbar(t[a.name], t[b.name], xerr=np.clip(np.vstack([t[a.name] - t[a.name + ".low"],
                                                                  t[a.name + ".high"] - t[a.name]]), 0, None),
                    yerr=np.clip(np.vstack([t[b.name] - t[b.name + ".low"], t[b.name + ".high"] - t[b.name]]), 0, None),
                    fmt="o", color="#3a6ea5", ecolor="#cccccc", markersize=4, label="trial")
        f = t[t["trial"].isin(best)].sort_values(a.name)
        ax.plot(f[a.name], f[b.name], marker="*", markersize=13, color="#c44e52",
                linestyle="-" if len(objs) == 2 else "none", label="Pareto front")
        gone = t[t["trial"].isin([n for n in (res.search_best or []) if n not in best])]
        if len(gone):
            ax.plot(gone[a.name], gone[b.name], marker="o", markersize=11, markerfacecolor="none",
                    markeredgecolor="#c44e52", linestyle="none", label="on the search's front, dropped by the re-check")
        for _, r in pd.concat([f, gone]).iterrows():
            ax.annotate(str(int(r["trial"])), (r[a.name], r[b.name]), fontsize=8, xytext=(4, 4),
                        textcoords="offset points")
        plots.style(ax, "Pareto front", plots.label(_target_label(a)), plots.label(_target_label(b)))
        ax.legend(**LEGEND_OUTSIDE)
        out.append(plots.save(fig, outdir / "tune_pareto.png",
                              phrase("tune_notes.j2", "pareto_caption", a.name, b.name, len(objs), len(gone))))
    if res.importances:
        names = list(res.importances)
        fig, axes = plt.subplots(1, len(names), figsize=(4 + 3 * len(names), 0.8 + 0.45 * len(res.space.dims)),
                                 squeeze=False)
        for ax, name in zip(axes[0], names):
            imp = res.importances[name]
            keys = list(imp)[::-1]
            ax.barh(range(len(keys)), [imp[k] for k in keys], color="#3a6ea5")
            ax.set_yticks(range(len(keys)), [plots.label(k) for k in keys], fontsize=9)
            ax.set_xlim(0, 1)
            plots.style(ax, plots.label(name), "importance (share)", "")
        out.append(plots.save(fig, outdir / "tune_importance.png", phrase("tune_notes.j2", "importance_caption")))
    return out


def trial_counts(states, config: dict, numbers=None) -> dict:
    """The trials of a tune by state (Optuna's, lower case: ``complete``, ``pruned``, ``fail``, the
    rest not told yet) out of ``asked`` (``--trials``, or the grid's points when it is played
    whole), and its re-check cells: ``recheck`` registered, ``recheck_done`` complete (from the
    record's ``cells``).  With the trials' ``numbers`` (in the order of ``states``), a trial not
    told yet whose cell ``trial-NNNN`` the record has complete counts as finished: it was stopped
    between its last game and being told, and a resume tells it without playing a game."""
    states = [str(x).lower() for x in states]
    if numbers is not None:
        played = {str(c.get("name")) for c in config.get("cells") or []
                  if isinstance(c, dict) and c.get("status") == "complete"}
        states = ["complete" if x == "running" and f"trial-{int(n):04d}" in played else x
                  for x, n in zip(states, numbers)]
    cells = [c for c in config.get("cells") or [] if isinstance(c, dict) and str(c.get("name", "")).startswith("recheck-")]
    return {"asked": config.get("grid_points") if config.get("exhaustive") else config.get("trials"),
            "finished": states.count("complete"), "pruned": states.count("pruned"), "failed": states.count("fail"),
            "recheck": len(cells), "recheck_done": sum(1 for c in cells if c.get("status") == "complete")}


def progress_text(states, config: dict, numbers=None) -> str:
    """How far a tune got, in the words of every line that says it (the summary, a resume, an
    interruption): ``6 of 12 trials finished (2 more pruned); the re-check has not started``
    (``numbers``: as :func:`trial_counts`)."""
    n = trial_counts(states, config, numbers)
    told = n["finished"] + n["pruned"] + n["failed"]
    options = (config.get("experiment") or {}).get("options") if isinstance(config.get("experiment"), dict) else None
    asked_recheck = options.get("recheck", 1) if isinstance(options, dict) else 1
    stopped = config.get("status") not in (None, "complete")  # every trial told, stopped before the re-check
    waiting = n["asked"] is None or told < n["asked"] or bool(stopped and asked_recheck)
    return phrase("tune_notes.j2", "progress", n, waiting)


def folder_progress(folder: Path, config: dict) -> str:
    """:func:`progress_text` of the tune in ``folder`` (its ``tune.db`` and record)."""
    import optuna
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    try:
        study = optuna.load_study(study_name=STUDY, storage=f"sqlite:///{(Path(folder) / 'tune.db').resolve()}")
        trials = tune_study.trials(study)
    except Exception:  # no study yet (killed before it was written): no trial asked
        trials = []
    return progress_text([t.state.name for t in trials], config, [t.number for t in trials])


def pruned_games(trials: pd.DataFrame) -> list[tuple[int, int]]:
    """``(trial, games played)`` of every pruned trial of a trial table, in trial order."""
    if not len(trials):
        return []
    cut = trials[trials["state"].astype(str).str.lower() == "pruned"].sort_values("trial")
    return [(int(k), int(g)) for k, g in zip(cut["trial"], cut["games"])]


@dataclass
class TrialFigures:
    """One trial as a summary line names it: its number, its searched settings (``c=v, ...``) and
    each target's figure with its 95% interval (``(name, value, low, high, decimals, unit)``;
    ``unit`` as :func:`target_unit`)."""

    trial: int
    settings: str
    figures: list
    feasible: bool = True


@dataclass
class FlatTarget:
    """A target that tells no trial from another: ``kind`` ``undefined`` (in every finished trial,
    ``why``), ``same`` (one ``value`` with its ``unit`` in all of them) or ``some`` (undefined in
    ``undefined`` of the ``finished`` trials)."""

    name: str
    kind: str
    why: str = ""
    value: float = 0.0
    unit: str = ""
    undefined: int = 0
    finished: int = 0


@dataclass
class Recheck:
    """What the re-check did, for the summary.  ``kind``: ``""`` (none played), ``one`` (one trial,
    nothing to rank), ``flat`` (the objective is the same everywhere), ``ranked`` (one objective or
    ranges), ``front`` (several objectives); ``asked``/``replayed``/``games``: the trials asked
    for, replayed, and the fresh games each; ``winner``/``best``: the search's winner and the
    re-check's best (``winner_rank``: where the winner comes there); ``tied``: the trials tied for
    first (``level_too``: tied on the search as well), ``on``: what they tie on; ``objective``,
    ``runner_up`` and ``overlap`` (None when not compared): the first objective's interval against
    the runner-up's; ``kept``/``dropped``/``front``/``unplayed``: the front's trials that stay
    non-dominated, are dominated, make the front, were not replayed."""

    kind: str = ""
    asked: int = 0
    replayed: int = 0
    games: int = 0
    several: bool = False
    front_size: int = 0
    left_out: bool = False
    open: tuple = ()
    trial: int = 0
    winner: int = 0
    winner_rank: int = 0
    best: int = 0
    tied: list = field(default_factory=list)
    level_too: bool = False
    on: str = ""
    objective: str = ""
    runner_up: int = 0
    overlap: bool | None = None
    kept: int = 0
    dropped: list = field(default_factory=list)
    front: list = field(default_factory=list)
    unplayed: list = field(default_factory=list)


@dataclass
class TuneSummary:
    """The record the plain-language summary of a tune is written from (``sentences/tune.j2``).
    ``counts``: :func:`trial_counts`; ``pruned``: ``(trial, games played)``; ``visited``,
    ``distinct``: trials and the distinct points they visited; ``best``: ``one`` (one best trial,
    ``trials[0]``), ``tie`` (``tie`` trials tie on ``objective``), ``front`` (the Pareto front,
    ``front_size`` trials, the first :data:`FRONT_LINES` in ``trials``) or ``""``;
    ``importances``: ``(objective, parameter, share)``."""

    counts: dict
    games: int
    trials_asked: object
    exhaustive: bool
    pruned: list
    visited: int
    distinct: int
    flat: list
    best: str
    trials: list
    tie: list
    objective: str
    front_size: int
    recheck: Recheck
    importances: list
    note: str


def summary_sentences(res: TuneResult) -> list[str]:
    """The plain-language summary: :func:`summary_record` written by ``sentences/tune.j2``."""
    return sentences("tune.j2", s=summary_record(res), front_lines=FRONT_LINES)


def summary_record(res: TuneResult) -> TuneSummary:
    """The figures of the plain-language summary, read from a tune's result."""
    t = res.trials
    n = trial_counts(t["state"] if len(t) else [], res.config, t["trial"] if len(t) else [])
    exhaustive = bool(res.config.get("exhaustive"))
    distinct = len(t) - int((t["same_as"] >= 0).sum()) if len(t) and not exhaustive else len(t)
    flat = _flat_targets(res)
    objs = objective_targets(res.targets)
    flat_objective = len(objs) == 1 and objs[0].name in _flat_names(flat)
    found = res.search_best or res.best
    best = ("" if not found or flat_objective else "one" if len(found) == 1 and len(t) else
            "tie" if len(objs) == 1 else "front" if len(objs) > 1 else "")
    shown = found[:1] if best == "one" else found[:FRONT_LINES] if best == "front" else []
    return TuneSummary(n, res.config.get("games_requested"), res.config.get("trials"), exhaustive,
                       pruned_games(t) if n["pruned"] else [], len(t), distinct, flat, best,
                       [_trial_figures(res, k) for k in shown], list(found), objs[0].name if objs else "",
                       len(found), _recheck_record(res, found, flat_objective),
                       [(name, next(iter(imp)), imp[next(iter(imp))]) for name, imp in (res.importances or {}).items()
                        if imp],
                       res.importance_note)


def _trial_figures(res: TuneResult, trial: int) -> TrialFigures:
    t = res.trials
    complete = t[t["state"] == "complete"]
    places = _places(complete, res.targets)
    b = t[t["trial"] == trial].iloc[0]
    return TrialFigures(trial, ", ".join(f"{d.column}={b[d.column]}" for d in res.space.dims),
                        [(tg.name, b[tg.name], b[tg.name + ".low"], b[tg.name + ".high"], places[tg.name], target_unit(tg))
                         for tg in res.targets], bool(b["feasible"]))


def _recheck_record(res: TuneResult, found: list, flat_objective: bool) -> Recheck:
    """The re-check's part of :class:`TuneSummary`."""
    rc, objs = res.recheck, objective_targets(res.targets)
    asked = int(getattr(res, "recheck_asked", 0) or 0)
    out = Recheck(asked=asked, replayed=len(rc), several=len(objs) > 1, front_size=len(found),
                  left_out=not asked and bool(res.best) and res.status == "complete",
                  open=tuple(getattr(res, "recheck_open", ()) or ()))
    if not len(rc):
        return out
    out.games, out.trial = int(rc["games"].iloc[0]), int(rc["trial"].iloc[0])
    if "recheck_rank" in rc:
        out.kind = "one" if len(rc) == 1 else "flat" if flat_objective else "ranked"
        if out.kind == "ranked":
            _ranked(res, out)
    elif "on_front" in rc:
        out.kind = "front"
        out.kept = int(rc["on_front"].sum())
        out.dropped = [int(x) for x in rc.loc[~rc["on_front"].astype(bool), "trial"]]
        out.front = list(res.best)
        out.unplayed = [k for k in found if k not in set(rc["trial"].astype(int))]
    return out


def _ranked(res: TuneResult, out: Recheck) -> None:
    """Fill in a ranked re-check: the search's winner, the re-check's best, the trials tied for first
    and the first objective's interval against the runner-up's."""
    rc, t, objs = res.recheck, res.trials, objective_targets(res.targets)
    win = rc[rc["search_rank"] == 1].iloc[0]
    ranked = rc.sort_values("recheck_rank")
    top = ranked.iloc[0]
    tied = ranked[(ranked["violation"] == top["violation"]) & (ranked["score"] == top["score"])]
    out.tied = tied["trial"].astype(int).tolist()
    searched = t.set_index("trial")["score"] if len(t) else pd.Series(dtype=float)
    out.level_too = len(out.tied) > 1 and len({searched.get(x) for x in out.tied}) == 1
    out.games, out.winner, out.best = int(win["games"]), int(win["trial"]), int(top["trial"])
    out.winner_rank, out.on = int(win["recheck_rank"]), objs[0].name if objs else "the distance outside the ranges"
    if objs and len(rc) > 1:
        name, second = objs[0].name, ranked.iloc[1]
        out.objective, out.runner_up = name, int(second["trial"])
        out.overlap = not (top[name + ".low"] > second[name + ".high"] or top[name + ".high"] < second[name + ".low"])


#: Why a target's figure can be undefined in a trial, by target.
_UNDEFINED_WHY = {
    "skill_share": "no seat's win share differs from another's in any game, so there is no difference in who "
                   "wins to explain",
    "lead_changes": "no game has a score trace to read",
}


def _flat_names(flat: list[FlatTarget]) -> set:
    """The targets that are undefined in every finished trial or take one value in all of them."""
    return {f.name for f in flat if f.kind != "some"}


def _flat_targets(res: TuneResult) -> list[FlatTarget]:
    """Each target that is undefined in every finished trial, takes one value in all of them, or
    is undefined in some."""
    t = res.trials
    done = t[t["state"] == "complete"] if len(t) else t
    out = []
    for tg in res.targets if len(done) else []:
        v = done[tg.name].to_numpy(dtype=float)
        ok = np.isfinite(v)
        if not ok.any():
            why = _UNDEFINED_WHY.get(tg.kind, "its games give it no finite figure")
            out.append(FlatTarget(tg.name, "undefined", why=why))
        elif ok.all() and len(done) > 1 and np.ptp(v) == 0:
            out.append(FlatTarget(tg.name, "same", value=float(v[0]),
                                  unit=target_unit(tg)))
        elif not ok.all():
            out.append(FlatTarget(tg.name, "some", undefined=int((~ok).sum()), finished=len(done)))
    return out


def _no_best_why(res: TuneResult) -> str:
    """Why no trial is called best (when ``res.best`` is empty), as a clause (``tune_notes.j2``)."""
    objs = objective_targets(res.targets)
    r = {"open": bool(getattr(res, "recheck_open", ())), "target": "", "undefined": False}
    if len(objs) == 1 and objs[0].name in _flat_names(_flat_targets(res)):
        done = res.trials[res.trials["state"] == "complete"]
        r.update(target=objs[0].name,
                 undefined=bool(len(done)) and not np.isfinite(done[objs[0].name].to_numpy(dtype=float)).any())
    return phrase("tune_notes.j2", "no_best_why", r)


def _moved_record(res: TuneResult) -> dict | None:
    """The trials of the search's front the re-check left off it (``gone``), or the re-check's winner
    (``best``) that is not the search's (``winner``, which comes ``rank``-th there, None when not
    ranked); None when the re-check moved nothing."""
    rc = res.recheck
    if len(rc) and "on_front" in rc:
        gone = [n for n in res.search_best if n not in set(res.best)]
        return {"gone": gone} if gone else None
    if len(res.best) != 1 or len(res.search_best) != 1 or res.best == res.search_best or not len(rc):
        return None
    w = rc[rc["trial"] == res.search_best[0]]
    return {"gone": [], "best": res.best[0], "winner": res.search_best[0],
            "rank": int(w["recheck_rank"].iloc[0]) if len(w) and "recheck_rank" in rc else None}


def write_tune(res: TuneResult, outdir: Path, report: bool = True) -> list[str]:
    """Write ``trials.csv``, ``recheck.csv``, ``config.json`` and (with ``report``) the plots,
    the verifying run's report and ``index.html``; return the file names."""
    outdir.mkdir(parents=True, exist_ok=True)
    files = ["tune.db"]
    to_csv(res.trials, outdir / "trials.csv", index=False)
    files.append("trials.csv")
    if len(res.recheck):
        to_csv(res.recheck, outdir / "recheck.csv", index=False)
        files.append("recheck.csv")
    if report and len(res.trials):
        files += _write_page(res, outdir)
    res.config["files"] = sorted(set(files) | {"config.json"})
    res.config["best"] = list(res.best)
    res.config["search_best"] = list(res.search_best)
    write_json_atomic(outdir / "config.json", res.config)
    return files


def _write_page(res: TuneResult, outdir: Path) -> list[str]:
    """The plots, the verifying run's report and ``index.html`` of a tune; return their names.
    A report rebuilt elsewhere (``report TUNE --out DIR``) links the study and the cells in the
    tune's own folder (``config["source"]``)."""
    from analyser.report import page as reportmod  # (matplotlib: only for the report)
    figures = plot_history(res, outdir)
    home = Path(res.config["source"]) if isinstance(res.config.get("source"), str) else outdir
    elsewhere = home.resolve() != outdir.resolve()
    tables = _TuneTables(res)
    heading = "Pareto front" if tables.several else "Best configuration"
    sections = _sections(res, tables, heading)
    verifying = _verifying_section(res, outdir, home, elsewhere)
    if verifying:
        sections.insert(2 if len(res.recheck) else 1, verifying)
    page = {"status": res.status, "error": res.config.get("error"), "study": str(home.resolve() / "tune.db")}
    notes = ([phrase("tune_notes.j2", "stopped", page)] if res.status != "complete" else []) \
        + summary_sentences(res) + [phrase("tune_notes.j2", "study", page)]
    placed = {"tune_history.png": heading, "tune_pareto.png": heading}
    if res.importances:
        placed["tune_importance.png"] = "Parameter importances"
    reportmod.write_experiment_page(
        outdir, reportmod.ExperimentPage(
            title=phrase("tune_notes.j2", "title", get_game(res.config["game"]).name, tables.cols),
            lead=phrase("tune_notes.j2", "lead", res.targets), cards=_cards(res, tables), notes=notes,
            sections=sections, figures=figures, config=res.config, figure_sections=placed))
    return [name for name, _ in figures] + ["index.html"]


class _TuneTables:
    """The tables of a tune's page: the trials shown as best (``shown``), and any trials or
    re-check rows as display rows (:meth:`rows`)."""

    def __init__(self, res: TuneResult):
        self.res = res
        self.cols = [d.column for d in res.space.dims]
        t = res.trials
        self.shown = t[t["trial"].isin(res.best)] if res.best else t.head(0)
        self.searched = t[t["state"] == "complete"] if len(t) else t
        self.several = len(objective_targets(res.targets)) > 1

    def rows(self, df: pd.DataFrame, extra=(), recheck: bool = False) -> pd.DataFrame:
        """One display row per row of ``df``: the trial, its parameters, each target's figure with
        its interval (one count of decimals per target column, the search's tables alike, the
        re-check's its own) and the ``extra`` columns."""
        places = _places(df if recheck else self.searched, self.res.targets)
        out = []
        for _, r in df.iterrows():
            row = {"trial": int(r["trial"]), **{c: _cell(r[c], rule=True) for c in self.cols}}
            for tg in self.res.targets:
                row[_target_label(tg)] = _fmt(r[tg.name], r[tg.name + ".low"], r[tg.name + ".high"], places[tg.name])
            for e in extra:
                row[e] = _cell(r[e])
            out.append(row)
        return pd.DataFrame(out)


def _sections(res: TuneResult, tables: _TuneTables, heading: str) -> list[tuple[str, str, str]]:
    """The page's sections: the best configuration (or the Pareto front), the re-check, every
    trial and the parameter importances; each ``(heading, html table, note)``."""
    from analyser.report import page as reportmod
    t = res.trials
    note = {"none_why": _no_best_why(res) if not res.best else "", "moved": _moved_record(res),
            "shown": len(tables.shown), "several": tables.several, "best": len(res.best),
            "factor": res.config.get("recheck_factor", ""), "importance_note": res.importance_note}
    out = [(heading, reportmod.html_table(tables.rows(tables.shown, ("feasible",)), formatted=True),
            phrase("tune_notes.j2", "best_note", note))]
    if len(res.recheck):
        rc = res.recheck.copy()
        extra = ("games", "search_rank") + (("recheck_rank",) if "recheck_rank" in rc else ("on_front",))
        out.append(("Re-check of the best trials",
                    reportmod.html_table(tables.rows(rc, extra, recheck=True), formatted=True),
                    phrase("tune_notes.j2", "recheck_note", note)))
    order = t.sort_values(["violation", "score", "trial"]) if len(t) else t
    out.append(("All trials", reportmod.html_table(tables.rows(order.head(200), ("state", "feasible")), formatted=True),
                phrase("tune_notes.j2", "all_trials_note", note)))
    if res.importances:
        out.append(("Parameter importances", "", phrase("tune_notes.j2", "importances_note", note)))
    return out


def _verifying_section(res: TuneResult, outdir: Path, home: Path, elsewhere: bool) -> tuple[str, str, str] | None:
    """The section that links the verifying run's report, which this writes (a failure to write
    it is kept in ``config["verifying_error"]``: the tune's own report still stands); None when
    there is no verifying run, or it has no report to link."""
    if not res.verifying or res.status != "complete":
        return None
    r = {"trial": res.verifying.rpartition("-")[2].lstrip("0") or "0", "folder": res.verifying,
         "several": len(objective_targets(res.targets)) > 1, "first": objective_targets(res.targets)[0].name}
    if elsewhere:
        run = home / res.verifying
        return ("Verifying run", markup("tune_notes.j2", "verifying_elsewhere",
                                        {**r, "run": str(run), "index": str(run / "index.html")}), "")
    from analyser.report.page import build_report_from_run
    try:
        build_report_from_run(outdir / res.verifying)
    except Exception as e:  # the tune's own report still stands
        res.config["verifying_error"] = f"{type(e).__name__}: {e}"[:300]
        return None
    return ("Verifying run", markup("tune_notes.j2", "verifying", {**r, "href": f"{res.verifying}/index.html"}),
            phrase("tune_notes.j2", "verifying_note", r))


def _cards(res: TuneResult, tables: _TuneTables) -> list[tuple[str, str, str]]:
    """The headline cards: the best trial (or the front's size), the trials played and the games
    per trial."""
    t, shown = res.trials, tables.shown
    best_row = shown.iloc[0] if len(shown) else None
    if not res.best:
        best = ("none", _no_best_why(res))
    elif len(res.best) == 1 and best_row is not None:
        best = (", ".join(f"{c}={best_row[c]}" for c in tables.cols), f"trial {res.best[0]}")
    else:
        best = (plural(len(res.best), "trial"), f"trial {res.best[0]}" if len(res.best) == 1 else "see the table")
    exhaustive = res.config.get("exhaustive")
    n = trial_counts(t["state"] if len(t) else [], res.config, t["trial"] if len(t) else [])
    played = f"{n['finished']} / {n['asked']}"
    return [("Pareto front" if tables.several else "best", *best),
            ("trials", played, "the whole grid" if exhaustive else "NSGA-II" if tables.several else "TPE"),
            ("games per trial", f"{res.config['games_requested']:,}", f"seed {res.config['seed']}")]
