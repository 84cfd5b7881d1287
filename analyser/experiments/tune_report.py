"""The report of ``analyser tune`` (:mod:`analyser.experiments.tune`): the optimisation history,
the Pareto front, parameter importances, the plain-language summary, ``trials.csv``,
``recheck.csv`` and ``index.html`` with the verifying run's report linked."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from analyser.io.csvsafe import to_csv
from analyser.run.store import write_json_atomic
from analyser.stats import analysis
from analyser.experiments.tune import STUDY, Target, TuneResult, objective_targets
from analyser.experiments import tune_study
from analyser.engine.registry import get_game
from analyser.text import fixed, names_list, number, pct, plural, yes_no


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
    if v is None or v != v:
        return "-"
    if lo is None or lo != lo:
        return number(v)
    d = analysis.decimals((hi - lo) / 2) if d is None else d
    return f"{fixed(v, d)} ({fixed(lo, d)} to {fixed(hi, d)})"


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


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _target_label(t: Target) -> str:
    unit = {"seat_gap": " pp", "win_rate": " %", "skill_share": " %", "ties": " %", "close_games": " %"}.get(t.kind, "")
    return f"{t.name}{unit}"


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
        more = (f" of all {len(objs)} objectives (this plot shows the first two, so a star can sit behind another "
                "trial here)" if len(objs) > 2 else "")
        out.append(plots.save(fig, outdir / "tune_pareto.png",
                              f"Every trial's {a.name} against its {b.name} with 95% intervals, on the search's "
                              f"games; the stars{', joined,' if len(objs) == 2 else ''} are the Pareto front "
                              f"after the re-check{more} (no other trial is better on every objective)"
                              + ("; a ring marks a trial of the search's front that the re-check found dominated"
                                 if len(gone) else "") + "; numbers are trial numbers."))
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
        out.append(plots.save(fig, outdir / "tune_importance.png",
                              "Parameter importances (optuna.importance, PED-ANOVA): the share of the variation of "
                              "each objective over the trials that each searched parameter explains. A guide to "
                              "where to look, not a test."))
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
    more = [f"{n['pruned']} more pruned"] * bool(n["pruned"]) + [f"{n['failed']} failed"] * bool(n["failed"])
    text = f"{n['finished']} of {n['asked']} trials finished" + (f" ({', '.join(more)})" if more else "")
    if n["recheck"]:
        return text + f"; {n['recheck_done']} of {n['recheck']} re-check cells complete"
    told = n["finished"] + n["pruned"] + n["failed"]
    options = (config.get("experiment") or {}).get("options") if isinstance(config.get("experiment"), dict) else None
    asked_recheck = options.get("recheck", 1) if isinstance(options, dict) else 1
    stopped = config.get("status") not in (None, "complete")  # every trial told, stopped before the re-check
    return text + ("; the re-check has not started" if n["asked"] is None or told < n["asked"]
                   or (stopped and asked_recheck) else "")


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


def summary_sentences(res: TuneResult) -> list[str]:
    """The plain-language summary."""
    out = []
    t = res.trials
    n = trial_counts(t["state"] if len(t) else [], res.config, t["trial"] if len(t) else [])
    exhaustive = bool(res.config.get("exhaustive"))
    asked = n["asked"]
    out.append(f"{n['finished']} of {asked} trials finished, each on the same {res.config.get('games_requested'):,} "
               "games (same seeds), so differences between trials are not down to the deal.")
    if n["pruned"]:
        played = ", ".join(f"trial {k} after {g:,}" for k, g in pruned_games(t))
        out.append(f"{n['pruned']} more {'was' if n['pruned'] == 1 else 'were'} pruned ({played} of its "
                   f"{res.config.get('games_requested'):,} games): the median pruner stopped "
                   f"{'it' if n['pruned'] == 1 else 'each of them'} early, because after part of its games its "
                   "figure was worse than the median of the earlier trials at the same point. That is a cut on "
                   "part of the games, which chance alone can make, not a measured difference (the figures in "
                   "trials.csv are of the games played).")
    if n["failed"]:
        out.append(f"{n['failed']} more failed: the error column of trials.csv says why (say, a configuration "
                   "the rules refuse).")
    if exhaustive:
        out.append(f"--trials {res.config.get('trials')} covers the whole grid of {asked} points, so the grid was "
                   "played: every point once (an exhaustive search, Optuna's GridSampler).")
    elif len(t):
        repeats = t[t["same_as"] >= 0]
        distinct = len(t) - len(repeats)
        if len(repeats):
            out.append(f"The {len(t)} trials visited {distinct} distinct points; the {len(repeats)} repeat"
                       f"{'s were' if len(repeats) > 1 else ' was'} not played again: a repeat has the games and "
                       "figures of its first visit (same_as in trials.csv).")
    flat = _flat_targets(res)
    out += [sentence for _, sentence in flat]
    cols = [d.column for d in res.space.dims]
    objs = objective_targets(res.targets)
    flat_objective = len(objs) == 1 and objs[0].name in dict(flat)
    found = res.search_best or res.best
    places = _places(t[t["state"] == "complete"] if len(t) else t, res.targets)
    if len(found) == 1 and len(t) and not flat_objective:
        b = t[t["trial"] == found[0]].iloc[0]
        figs = "; ".join(f"{tg.name} {_fmt(b[tg.name], b[tg.name + '.low'], b[tg.name + '.high'], places[tg.name])}"
                         for tg in res.targets)
        out.append(f"Best trial on the search: {found[0]} ({', '.join(f'{c}={b[c]}' for c in cols)}): {figs}.")
        if not bool(b["feasible"]):
            out.append("No trial met every range target; the best is the one closest to them.")
    elif found and len(objs) == 1 and not flat_objective:
        out.append(f"{len(found)} trials tie for the best {objs[0].name} on the search: "
                   f"{', '.join(str(b) for b in found)}.")
    elif found and len(objs) > 1:
        out.append(f"The Pareto front on the search holds {plural(len(found), 'trial')}: none "
                   "is better than another on every objective; choose among them by what matters most.")
        for n in found[:FRONT_LINES]:
            b = t[t["trial"] == n].iloc[0]
            figs = "; ".join(f"{tg.name} {_fmt(b[tg.name], b[tg.name + '.low'], b[tg.name + '.high'], places[tg.name])}"
                             for tg in res.targets)
            out.append(f"  trial {n} ({', '.join(f'{c}={b[c]}' for c in cols)}): {figs}")
        if len(found) > FRONT_LINES:
            out.append(f"  ... and {len(found) - FRONT_LINES} more (trials.csv and the report list them all)")
    rc = res.recheck
    asked = int(getattr(res, "recheck_asked", 0) or 0)
    if len(rc) and asked > len(rc):
        why = (f"the re-check replays trials of the Pareto front, and it holds {len(found)}" if len(objs) > 1 else
               "the trials that finished, with their targets defined, at distinct points")
        out.append(f"The re-check was asked for {asked} trials; {len(rc)} could be replayed ({why}).")
    if not asked and res.best and res.status == "complete":
        out.append("The re-check was left out (--recheck 0): the best is the search's, on its games alone, so a "
                   "lead won on noise is not caught.")
    open_ = tuple(getattr(res, "recheck_open", ()) or ())
    if open_:
        out.append(f"The re-check is not finished ({open_[0]} of {open_[1]} trials replayed in full): no trial is "
                   "called best until it is; analyser resume finishes it.")
    if len(rc) and "recheck_rank" in rc and len(rc) == 1:
        win = rc.iloc[0]
        out.append(f"The re-check replayed trial {int(win['trial'])} on {int(win['games']):,} fresh games: with one "
                   "trial there is nothing to rank it against.")
    elif len(rc) and "recheck_rank" in rc and flat_objective:
        out.append(f"The re-check replayed {len(rc)} trials on {int(rc['games'].iloc[0]):,} fresh games each; the "
                   "target is the same in every trial, so the re-check ranks nothing and no trial is called best.")
    elif len(rc) and "recheck_rank" in rc:
        win = rc[rc["search_rank"] == 1].iloc[0]
        ranked = rc.sort_values("recheck_rank")
        top = ranked.iloc[0]
        g = int(win["games"])
        on = objs[0].name if objs else "the distance outside the ranges"
        tied = ranked[(ranked["violation"] == top["violation"]) & (ranked["score"] == top["score"])]
        tied = tied["trial"].astype(int).tolist()
        head = f"The re-check replayed the best {len(rc)} trials on {g:,} fresh games each: "
        w, b = int(win["trial"]), int(top["trial"])
        searched = t.set_index("trial")["score"] if len(t) else pd.Series(dtype=float)
        level_too = len(tied) > 1 and len({searched.get(x) for x in tied}) == 1
        higher = ("the lower-numbered of them (they tie on the search too)" if level_too else
                  "the one of them ranked higher on the search")
        if len(tied) > 1 and b == w:
            out.append(head + f"trials {names_list(tied)} tie on {on} there, so the re-check does not separate them; "
                       f"the best configuration stays the search's winner (trial {w}), {higher}.")
        elif len(tied) > 1:
            out.append(head + f"the search's winner (trial {w}) does NOT still win (it comes "
                       f"{_ordinal(int(win['recheck_rank']))} there); trials {names_list(tied)} tie for first on {on}, "
                       f"so the best configuration is trial {b}, {higher}.")
        elif b == w:
            out.append(head + f"the winner (trial {w}) still wins.")
        else:
            out.append(head + f"the search's winner (trial {w}) does NOT still win; trial {b} is best "
                       f"there, so the search's lead was noise; the best configuration is the re-check's winner, trial {b}.")
        if objs and len(rc) > 1:
            tg = objs[0]
            second = ranked.iloc[1]
            overlap = not (top[tg.name + ".low"] > second[tg.name + ".high"] or top[tg.name + ".high"] < second[tg.name + ".low"])
            out.append(f"On the re-check, trial {b}'s {tg.name} interval {'overlaps' if overlap else 'does not overlap'} "
                       f"the runner-up's (trial {int(second['trial'])})"
                       + (": the two cannot be told apart at this many games." if overlap else "."))
    elif len(rc) and "on_front" in rc:
        kept = int(rc["on_front"].sum())
        text = (f"The re-check replayed {len(rc)} trials of the front on {int(rc['games'].iloc[0]):,} fresh games "
                f"each; {kept} of them {'stays' if kept == 1 else 'stay'} non-dominated among themselves"
                if len(rc) > 1 else
                f"The re-check replayed trial {int(rc['trial'].iloc[0])} of the front on {int(rc['games'].iloc[0]):,} "
                "fresh games; with one trial there is nothing to dominate it")
        dropped = [int(x) for x in rc.loc[~rc["on_front"].astype(bool), "trial"]]
        unplayed = [n for n in found if n not in set(rc["trial"].astype(int))]
        if dropped:
            text += (f"; trial{'s' if len(dropped) > 1 else ''} {names_list(dropped)} {'are' if len(dropped) > 1 else 'is'} "
                     "dominated there, so the front is trial" + ("s " if len(res.best) != 1 else " ")
                     + names_list(res.best))
        else:
            text += ", so the front stands"
        if unplayed:
            text += (f" (trial{'s' if len(unplayed) > 1 else ''} {names_list(unplayed)} of the front, not replayed, "
                     f"{'stay' if len(unplayed) > 1 else 'stays'} on it)")
        out.append(text + ".")
    for name, imp in (res.importances or {}).items():
        if imp:
            k = next(iter(imp))
            out.append(f"The parameter that mattered most for {name}: {k} ({pct(imp[k], 0)} of the explained "
                       "variation, PED-ANOVA).")
    if res.importance_note:
        out.append(res.importance_note[0].upper() + res.importance_note[1:] + ".")
    return out


#: Why a target's figure can be undefined in a trial, by target.
_UNDEFINED_WHY = {
    "skill_share": "no seat's win share differs from another's in any game, so there is no difference in who "
                   "wins to explain",
    "lead_changes": "no game has a score trace to read",
}


def _flat_targets(res: TuneResult) -> list[tuple[str, str]]:
    """(target name, sentence) for each target that is undefined in every finished trial, takes
    one value in all of them, or is undefined in some."""
    t = res.trials
    if not len(t):
        return []
    done = t[t["state"] == "complete"]
    out = []
    for tg in res.targets:
        if not len(done):
            break
        v = done[tg.name].to_numpy(dtype=float)
        ok = np.isfinite(v)
        if not ok.any():
            why = _UNDEFINED_WHY.get(tg.kind, "its games give it no finite figure")
            out.append((tg.name, f"The target {tg.name} is undefined in every trial ({why}), so no configuration "
                                 "is better than another on it."))
        elif ok.all() and len(done) > 1 and np.ptp(v) == 0:
            unit = _target_label(tg)[len(tg.name):].replace(" %", "%")
            out.append((tg.name, f"The target {tg.name} is {v[0]:g}{unit} in every trial, so no configuration is "
                                 "better than another on it."))
        elif not ok.all():
            out.append(("", f"The target {tg.name} is undefined in {int((~ok).sum())} of {len(done)} finished trials "
                            "(marked in the undefined column of trials.csv); those are never called best."))
    return out


def _no_best_why(res: TuneResult) -> str:
    """Why no trial is called best (when ``res.best`` is empty), as a clause."""
    if getattr(res, "recheck_open", ()):
        return "the re-check is not finished (analyser resume finishes it)"
    objs = objective_targets(res.targets)
    flat = dict(_flat_targets(res))
    if len(objs) == 1 and objs[0].name in flat:
        t = res.trials
        done = t[t["state"] == "complete"]
        if len(done) and not np.isfinite(done[objs[0].name].to_numpy(dtype=float)).any():
            return f"the target {objs[0].name} is undefined in every trial"
        return f"the target {objs[0].name} is the same in every trial"
    return "none finished with every target defined"


def _moved(res: TuneResult) -> str:
    """What the best configuration's note says when the re-check moved it off the search's winner."""
    if len(res.recheck) and "on_front" in res.recheck:
        gone = [n for n in res.search_best if n not in set(res.best)]
        if not gone:
            return ""
        many = len(gone) > 1
        return (f"Trial{'s' if many else ''} {names_list(gone)} of the search's front {'are' if many else 'is'} dominated "
                f"on the re-check and left off it. ")
    if len(res.best) != 1 or len(res.search_best) != 1 or res.best == res.search_best or not len(res.recheck):
        return ""
    rc = res.recheck
    w = rc[rc["trial"] == res.search_best[0]]
    where = f" (it comes {_ordinal(int(w['recheck_rank'].iloc[0]))} there)" if len(w) and "recheck_rank" in rc else ""
    return (f"Trial {res.best[0]} is the re-check's winner; the search's winner, trial {res.search_best[0]}, does "
            f"not still win{where}. ")


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
        from analyser.report import page as reportmod  # (matplotlib: only for the report)
        game = get_game(res.config["game"])
        figures = plot_history(res, outdir)
        verifying = None
        # a report rebuilt elsewhere (report TUNE --out DIR): the study and the cells stay in the tune's folder
        home = Path(res.config["source"]) if isinstance(res.config.get("source"), str) else outdir
        elsewhere = home.resolve() != outdir.resolve()
        if res.verifying and res.status == "complete" and not elsewhere:
            from analyser.report.page import build_report_from_run
            try:
                build_report_from_run(outdir / res.verifying)
                verifying = f"{res.verifying}/index.html"
            except Exception as e:  # the tune's own report still stands
                verifying = None
                res.config["verifying_error"] = f"{type(e).__name__}: {e}"[:300]
        cols = [d.column for d in res.space.dims]
        tcols = [c for tg in res.targets for c in (tg.name, tg.name + ".low", tg.name + ".high")]
        t = res.trials
        shown = t[t["trial"].isin(res.best)] if res.best else t.head(0)
        searched = t[t["state"] == "complete"] if len(t) else t
        rc_table = res.recheck.copy() if len(res.recheck) else None
        def fig_table(df, extra=()):
            rows = []
            # one count of decimals per target column, the search's tables alike (the re-check's its own)
            places = _places(df if df is rc_table else searched, res.targets)
            for _, r in df.iterrows():
                row = {"trial": int(r["trial"]), **{c: _cell(r[c], rule=True) for c in cols}}
                for tg in res.targets:
                    row[_target_label(tg)] = _fmt(r[tg.name], r[tg.name + ".low"], r[tg.name + ".high"],
                                                  places[tg.name])
                for e in extra:
                    row[e] = _cell(r[e])
                rows.append(row)
            return pd.DataFrame(rows)
        several = len(objective_targets(res.targets)) > 1
        heading = "Pareto front" if several else "Best configuration"
        none_why = _no_best_why(res)
        sections = [(heading, reportmod.html_table(fig_table(shown, ("feasible",)), formatted=True),
                     (f"No trial is called best: {none_why} (see the notes). " if not res.best else "")
                     + _moved(res)
                     + ("Each target's figure with its 95% interval (in brackets), on the search's games. "
                        if len(shown) else "")
                     + ("No trial on the front is better than another on every objective. "
                        if several and len(res.best) > 1 else "") + "Target definitions: docs/commands/tune.md.")]
        if len(res.recheck):
            rc = rc_table
            extra = ("games", "search_rank") + (("recheck_rank",) if "recheck_rank" in rc else ("on_front",))
            sections.append(("Re-check of the best trials", reportmod.html_table(fig_table(rc, extra), formatted=True),
                             "The best trials of the search replayed on fresh games (another seed), "
                             f"{res.config.get('recheck_factor', '')} times as many: "
                             + ("a trial of the search's front that another dominates here was on the front by "
                                "noise." if several else
                                "a search winner that does not stay first here won on noise.")))
        order = t.sort_values(["violation", "score", "trial"]) if len(t) else t
        sections.append(("All trials", reportmod.html_table(
            fig_table(order.head(200), ("state", "feasible")), formatted=True),
            "Every trial, best first (trials.csv has all, with the raw numbers)."))
        if res.importances:
            sections.append(("Parameter importances", "", "optuna.importance (PED-ANOVA) over the distinct "
                             "finished trials: which searched parameter moves each objective most."
                             + (" " + res.importance_note[0].upper() + res.importance_note[1:] + "."
                                if res.importance_note else "")))
        best_row = shown.iloc[0] if len(shown) else None
        cards = [("Pareto front" if several else "best",
                  "none" if not res.best else
                  ", ".join(f"{c}={best_row[c]}" for c in cols) if best_row is not None and len(res.best) == 1
                  else f"{len(res.best)} trials",
                  none_why if not res.best else f"trial {res.best[0]}" if len(res.best) == 1 else "see the table"),
                 ("trials", f"{int((t['state'] == 'complete').sum())} / "
                            f"{res.config.get('grid_points') if res.config.get('exhaustive') else res.config.get('trials')}",
                  "the whole grid" if res.config.get("exhaustive") else
                  "TPE" if len(objective_targets(res.targets)) <= 1 else "NSGA-II"),
                 ("games per trial", f"{res.config['games_requested']:,}", f"seed {res.config['seed']}")]
        notes = summary_sentences(res)
        if verifying:
            import html
            which = ("the best configuration" if len(objective_targets(res.targets)) <= 1 else
                     f"the re-checked front trial with the best {objective_targets(res.targets)[0].name}")
            trial = res.verifying.rpartition("-")[2].lstrip("0") or "0"
            sections.insert(2 if len(res.recheck) else 1, ("Verifying run", f"<p>The full simulate report of "
                            f"{html.escape(which)} (trial {trial}), played on its re-check games: "
                            f"<a href=\"{html.escape(verifying)}\">{html.escape(verifying)}</a></p>",
                            f"The run folder {res.verifying} holds its games; analyser report rebuilds it."))
        if res.verifying and res.status == "complete" and elsewhere:
            import html
            run = home / res.verifying
            sections.insert(2 if len(res.recheck) else 1, ("Verifying run", f"<p>The verifying run's games are in "
                            f"{html.escape(str(run))} (this report was written elsewhere): its own report is "
                            f"{html.escape(str(run / 'index.html'))}, and analyser report rebuilds it.</p>", ""))
        notes.append("Watch or explore the study: optuna-dashboard sqlite:///" + str(home.resolve() / "tune.db"))
        if res.status != "complete":
            notes.insert(0, f"Tune {res.status}: {res.config.get('error') or 'stopped by the user'}; "
                            "continue it with analyser resume.")
        placed = {"tune_history.png": heading, "tune_pareto.png": heading}
        if res.importances:
            placed["tune_importance.png"] = "Parameter importances"
        reportmod.write_experiment_page(
            outdir, reportmod.ExperimentPage(
                title=f"{game.name}: tune of {', '.join(cols)}",
                lead=f"Targets: {'; '.join(f'{tg.name} {tg.goal_text()}' for tg in res.targets)}.",
                cards=cards, notes=notes, sections=sections, figures=figures, config=res.config,
                figure_sections=placed))
        files += [name for name, _ in figures] + ["index.html"]
    res.config["files"] = sorted(set(files) | {"config.json"})
    res.config["best"] = list(res.best)
    res.config["search_best"] = list(res.search_best)
    write_json_atomic(outdir / "config.json", res.config)
    return files
