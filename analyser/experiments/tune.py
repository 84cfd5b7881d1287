"""``analyser tune``: search rule options and strategy parameters toward a designer's targets.

docs/commands/tune.md is the contract (the search space, the targets, the samplers, pruning,
the re-check and the files).  Trials are asked in fixed batches of ``--batch``, each of a sampler
seeded from (seed, trial number) that sees only earlier batches, then played and told in trial
order, so the results do not depend on ``--jobs``.  Each trial is a cell ``OUT/cells/trial-NNNN``
(the re-checks ``recheck-NNNN``); the study is ``OUT/tune.db``.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
import hashlib
import math
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd


from analyser.engine.core import InputError
from analyser.engine.registry import get_game, title_ref
from analyser.experiments import stopping, tune_study
from analyser.experiments.base import Cell, Experiment, read_record, recorded_outcome
from analyser.experiments.options import Session, TuneOptions
from analyser.experiments.tune_study import importances as measured
from analyser.experiments.tune_space import Space, grid_points, parse_space
from analyser.experiments.tune_targets import Target, figure, parse_target
from analyser.run import RunSpec, resolve, stops

#: With ``--prune``, a batch of trials plays in this many rounds of games; after each round but
#: the last, a trial whose objective so far is worse than the median of the finished trials' at
#: the same round (Optuna's MedianPruner; not before a batch of trials has finished) stops there.
PRUNE_ROUNDS = 4
#: Study name inside tune.db.
STUDY = "tune"
#: What Optuna is told for an objective whose figure is undefined in a trial (no finite figure:
#: e.g. a skill share when every game is a shared win): the worst value, so the sampler moves
#: away; the trial completes with the target marked ``undefined`` and is never called best.
UNDEFINED = 1e9
#: Parameter importances need at least this many distinct finished trials with every target
#: defined (fewer give a chart that puts everything on one parameter by chance).
IMPORTANCE_MIN_TRIALS = 8


# --------------------------------------------------------------------------------------------
# Playing the study
# --------------------------------------------------------------------------------------------

@dataclass
class TuneResult:
    space: Space
    targets: list[Target]
    trials: pd.DataFrame            # one row per trial
    recheck: pd.DataFrame           # one row per rechecked trial
    best: list[int]                 # the best trial (one objective: the re-check's first) or the Pareto front
    config: dict
    status: str
    error: BaseException | None = None
    interrupted: bool = False
    verifying: str | None = None    # folder of the verifying run (relative to OUT)
    importances: dict = field(default_factory=dict)
    importance_note: str = ""       # why importances are left out ("" when none is)
    study: object = None
    recheck_asked: int = 0          # --recheck: how many trials the re-check was asked to replay
    search_best: list = field(default_factory=list)  # ``best`` on the search's games (before the re-check)
    recheck_open: tuple = ()        # (cells with all their games, cells) of a re-check not finished; () else


def _derived(root: int, what) -> int:
    return int.from_bytes(hashlib.sha256(f"{root}:{what}".encode()).digest()[:4], "big") & 0x7FFFFFFF


class _TuneExperiment(Experiment):
    """An experiment that plays only the ``active`` cells (the others count as complete)."""

    active: set | None = None

    def _complete_to(self, k: int, games: int) -> bool:
        if self.active is not None and k not in self.active:
            return True
        return super()._complete_to(k, games)


def check_targets(tlist: list[Target], prune: bool) -> None:
    """InputError when a figure is given as two ``--target``s, or ``--prune`` does not come with
    exactly one objective (a ``min``, ``max`` or value target: Optuna's median pruner compares one
    number per trial, and a range target has none until the trial is over).  Called by the command
    before the folder is touched, and by :func:`run_tune`."""
    twice = [n for n, k in Counter(t.name for t in tlist).items() if k > 1]
    if twice:
        raise InputError(f"--target {twice[0]} is given twice; give each figure once")
    objs = objective_targets(tlist)
    if prune and len(objs) != 1:
        given = (f"{len(objs)} objectives ({', '.join(t.name for t in objs)})" if objs else
                 "only range targets")
        raise InputError(f"--prune needs exactly one target to minimise, maximise or meet (NAME=min, max or a "
                         f"value); the targets give {given}: leave --prune out")


def objective_targets(targets: list[Target]) -> list[Target]:
    return [t for t in targets if t.is_objective]


def _sampler(targets: list[Target], seed: int, batch: int, grid: Space | None = None):
    """The sampler of one trial (range targets reach it as the trial's constraints, set with
    ``Trial.set_constraint`` before it is told); with ``grid``, a search space whose every point
    is played, Optuna's GridSampler with one fixed order of the points for every trial (trial
    ``k`` plays the order's point ``k``)."""
    import optuna
    if grid is not None:
        axes = {d.column: list(dict.fromkeys(p[d.column] for p in grid_points(grid))) for d in grid.dims}
        return optuna.samplers.GridSampler(axes, seed=0)  # one grid order for every trial (shuffled by seed)
    if len(objective_targets(targets)) > 1:
        return optuna.samplers.NSGAIISampler(population_size=max(2, batch), seed=seed)
    return optuna.samplers.TPESampler(seed=seed, n_startup_trials=min(10, max(2, batch)))


def _values(targets: list[Target], figs: dict) -> list[float]:
    """The values told to Optuna: each objective (an undefined figure as :data:`UNDEFINED`, the
    worst), or with ranges only the total distance outside them."""
    objs = objective_targets(targets)
    if objs:
        return [t.objective(figs[t.name]) if figs[t.name] == figs[t.name] else
                (-UNDEFINED if t.direction == "maximize" else UNDEFINED) for t in objs]
    if any(figs[t.name] != figs[t.name] for t in targets):
        return [UNDEFINED]
    return [sum(t.violation(figs[t.name]) for t in targets)]


def metric_names(targets: list[Target]) -> list[str]:
    """The study's metric names (``study.metric_names``), one per value told: the objective's
    figure (``seat_gap``; ``|length - 50|`` for a VALUE goal), or the ranges' total distance."""
    objs = objective_targets(targets)
    if not objs:
        return ["distance outside " + ", ".join(t.text for t in targets)]
    return [f"|{t.name} - {t.value:g}|" if t.goal == "value" else t.name for t in objs]


def undefined(targets: list[Target], figs: dict) -> list[str]:
    """The targets whose figure is undefined (NaN) among ``figs``."""
    return [t.name for t in targets if figs.get(t.name, math.nan) != figs.get(t.name, math.nan)]


def run_tune(spec: RunSpec, options: TuneOptions, session: Session) -> TuneResult:
    """Parse, search, re-check and analyse (see the module docstring): the strategy space is
    ``spec.strategies``, the rule space and the rest ``options``, every trial a run with
    ``spec``'s settings.  InputError on bad input before any game is played.  ``session.out`` is
    the experiment folder (``OUT/tune.db`` holds the study); ``session.resume`` continues it;
    ``session.play`` false only reads it (to rebuild the report)."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    plan = _plan(spec, options)
    if session.out is None:
        raise InputError("tune needs an output folder")
    given = dataclasses.replace(spec, game=plan.spec_of.base.game, seed=plan.root)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
        plan.exp, plan.study = _open(session, plan, given, options)
        with plan.exp as exp:
            exp.active = None
            res, outcome = _played(plan, session.play)
            config = dict(exp.config)
    config.update(status=outcome.status, error=str(outcome.error) if outcome.error else None, jobs=plan.n_jobs,
                  play_seconds=config.get("play_seconds"))
    res.config, res.status, res.error, res.interrupted = config, outcome.status, outcome.error, outcome.interrupted
    return res


@dataclass
class _SpecOf:
    """The run spec of a configuration: ``base`` with the lineup and rules the space gives its
    parameters, played with seed ``s``."""

    base: RunSpec
    space: Space

    def __call__(self, params: dict, s: int) -> RunSpec:
        specs, rl = self.space.lineup(params)
        return dataclasses.replace(self.base, strategies=specs, rules=rl, seed=s)


def _plan(spec: RunSpec, options: TuneOptions) -> "_Plan":
    """The tune of ``spec`` and ``options`` checked and laid out (no experiment or study yet)."""
    for name, value, least in (("--trials", options.trials, 1), ("--games", spec.games, 1),
                               ("--batch", options.batch, 1), ("--recheck", options.recheck, 0),
                               ("--recheck-factor", options.recheck_factor, 1)):
        if value < least:
            raise InputError(f"{name} {value} is not accepted; give a whole number of at least {least}")
    game = get_game(spec.game)
    space = parse_space(game, list(spec.strategies), list(options.rules))
    if not options.targets:
        raise InputError("give at least one --target, e.g. --target seat_gap=min")
    tlist = [parse_target(t, game, space) for t in options.targets]
    check_targets(tlist, options.prune)
    specs0, rules0 = space.lineup({d.column: d.bounds[0] if d.bounds else d.values[0] for d in space.dims})
    base = dataclasses.replace(spec, game=title_ref(game), strategies=specs0, rules=rules0)
    _, _, n_players, n_jobs, root = resolve(base)
    base = dataclasses.replace(base, seed=root, players=n_players)
    points = grid_points(space)
    exhaustive = points is not None and len(points) <= options.trials
    return _Plan(None, None, space, tlist, _SpecOf(base, space), root, _derived(root, "recheck"),
                 len(points) if exhaustive else options.trials, spec.games, options.batch, options.recheck,
                 options.recheck_factor, n_jobs, n_players, options.prune, exhaustive,
                 len(points) if points is not None else None)


def _open(session: Session, plan: "_Plan", given: RunSpec, options: TuneOptions):
    """The tune's experiment and study: a new one (``OUT/tune.db`` made afresh), or with
    ``session.resume`` the ones in ``OUT``, its cells the record's trials."""
    import optuna

    out = Path(session.out)
    base = plan.spec_of.base
    fields = {"game": base.game, "game_name": get_game(base.game).name, "seed": plan.root,
              "games_requested": given.games, "players": plan.n_players, "strategies": list(given.strategies),
              "rules": list(options.rules), "targets": list(options.targets), "trials": options.trials,
              "recheck_factor": options.recheck_factor, "grid_points": plan.grid_points,
              "exhaustive": plan.exhaustive}
    directions = [t.direction for t in objective_targets(plan.tlist)] or ["minimize"]
    pruner = (optuna.pruners.MedianPruner(n_startup_trials=plan.batch, n_warmup_steps=0)
              if plan.prune and len(directions) == 1 else optuna.pruners.NopPruner())
    if session.resume:
        study = tune_study.load(out, pruner=pruner)
        cells = _recorded_cells(out, study, plan)
        return _TuneExperiment.begin(session, "tune", cells, run=given, options=options, fields=fields), study
    exp = _TuneExperiment.begin(session, "tune", [], run=given, options=options, fields=fields)
    (out / "tune.db").unlink(missing_ok=True)
    study = optuna.create_study(study_name=STUDY, storage=f"sqlite:///{(out / 'tune.db').resolve()}",
                                directions=directions, pruner=pruner)
    study.set_metric_names(metric_names(plan.tlist))
    study.set_user_attr(tune_study.FORMAT, tune_study.STUDY_FORMAT)
    if plan.exhaustive:  # --trials covers the grid: every point once, trial k the grid's k-th
        study.set_user_attr("exhaustive", True)
    return exp, study


def _recorded_cells(out: Path, study, plan: "_Plan") -> list[Cell]:
    """The cells of the tune record in ``out``, each a trial of ``study``; InputError otherwise."""
    record = read_record(out, ("tune",))
    by_number = {t.number: t for t in tune_study.trials(study)}
    cells = []
    for c in record["cells"]:
        name = str(c.get("name"))
        kind, _, num = name.partition("-")
        if not num.isdigit() or int(num) not in by_number or kind not in ("trial", "recheck"):
            raise InputError(f"{str(out)!r}: cell {name!r} of its record is not a trial of tune.db; "
                             "it cannot be resumed")
        p = by_number[int(num)].params
        cells.append(Cell(name, plan.spec_of(p, plan.root if kind == "trial" else plan.recheck_seed)))
    return cells


def _played(plan: "_Plan", play: bool):
    """Search and re-check (when ``play``), then analyse: the result and the play's outcome."""
    exp = plan.exp
    outcome = None
    if play:
        try:
            outcome = _search(plan)
        except KeyboardInterrupt:  # between two plays (asking or telling trials): the record says so
            outcome = exp.stopped_between_plays("trials")
    if outcome is None:
        outcome = recorded_outcome(exp.config)
    recheck_games = plan.games * plan.recheck_factor
    try:
        res = _analyse(exp, plan.study, plan.space, plan.tlist, plan.n_trials, plan.recheck, recheck_games)
    except KeyboardInterrupt:  # after the last game: analysed all the same (later signals noted),
        with stops.held(final=True):  # and the command ends as interrupted
            res = _analyse(exp, plan.study, plan.space, plan.tlist, plan.n_trials, plan.recheck, recheck_games)
        outcome = dataclasses.replace(outcome, interrupted=True)
    return res, outcome


def _cell_index(exp: Experiment, name: str) -> int | None:
    return next((k for k, c in enumerate(exp.cells) if c.name == name), None)


def _sources(trials, failed=frozenset()) -> dict[int, int]:
    """Trial number -> the first trial with the same values: a configuration asked again plays the
    same games (same seeds), so it is not played twice; its figures are the first one's.  A failed
    trial (or one of ``failed``) is its own."""
    first: dict[tuple, int] = {}
    out = {}
    for t in trials:
        key = tuple(sorted((k, repr(v)) for k, v in t.params.items()))
        out[t.number] = t.number if t.state.name == "FAIL" or t.number in failed else first.setdefault(key, t.number)
    return out


def _set_figures(attrs: dict, tlist: list[Target], df: pd.DataFrame, specs: list[str], n_players: int) -> dict:
    """Each target's figure and interval on ``df`` into a trial's user attributes ``attrs``;
    returns name -> value."""
    figs = {}
    for tg in tlist:
        v, lo, hi = figure(df, tg, specs)
        figs[tg.name] = v
        attrs.update({tg.name: v, tg.name + ".low": lo, tg.name + ".high": hi})
    attrs["games"] = int(len(df) // max(1, n_players))
    return figs


def _ask_batch(study, space, tlist, root, n_trials, batch) -> None:
    """Ask the trials of the next batch (or the rest of a batch a kill cut short), each of a
    sampler seeded from (seed, trial number) that sees the trials of earlier batches."""
    asked = tune_study.trials(study)
    n = len(asked)
    if n >= n_trials or (n % batch == 0 and tune_study.asked(study)):
        return
    dists = {d.column: d.distribution() for d in space.dims}
    grid = space if study.user_attrs.get("exhaustive") else None
    for number in range(n, min(n_trials, (n // batch + 1) * batch)):
        made = tune_study.ask(study, dists, _sampler(tlist, _derived(root, number), batch, grid))
        assert made == number


def _refused(running, spec_of, root, n_players) -> dict[int, str]:
    """Trial number -> why the rules refuse its configuration (say, too few cards for the seats):
    a failed trial, not a failed tune."""
    out = {}
    for t in running:
        try:
            stopping.validate(get_game(spec_of(t.params, root).game), [spec_of(t.params, root)], n_players)
        except InputError as e:
            out[t.number] = str(e)[:300]
    return out


@dataclass
class _Plan:
    """What a tune's search plays: the experiment, the study, the space and targets, the run spec
    of a configuration (``spec_of(params, seed)``), the seeds and the counts."""
    exp: Experiment
    study: object
    space: Space
    tlist: list
    spec_of: object
    root: int
    recheck_seed: int
    n_trials: int
    games: int
    batch: int
    recheck: int
    recheck_factor: int
    n_jobs: int
    n_players: int
    prune: bool
    exhaustive: bool = False
    grid_points: int | None = None


def _search(plan: _Plan):
    exp, study, space, tlist, spec_of, root = plan.exp, plan.study, plan.space, plan.tlist, plan.spec_of, plan.root
    n_trials, games, batch, n_players = plan.n_trials, plan.games, plan.batch, plan.n_players
    from optuna.trial import TrialState

    while True:
        _ask_batch(study, space, tlist, root, n_trials, batch)
        told = study.get_trials(deepcopy=False)
        running = tune_study.asked(study)
        if not running:
            break
        refused = _refused(running, spec_of, root, n_players)
        source = _sources(told + running, failed=set(refused))
        missing = [Cell(f"trial-{t.number:04d}", spec_of(t.params, root)) for t in running
                   if source[t.number] == t.number and t.number not in refused
                   and _cell_index(exp, f"trial-{t.number:04d}") is None]
        if missing:
            exp.add_cells(missing)
        ends = {t.number: (TrialState.FAIL, {"error": refused[t.number]}, {}, None) for t in running
                if t.number in refused}
        playing = [t for t in running if t.number not in refused]
        if playing:
            start = running[0].number // batch * batch  # the batch's first trial (some may be told)
            outcome = _play_batch(plan, told[:start], playing, source, ends)
            if outcome is not None:
                return outcome
        for t in running:  # told in trial order
            state, attrs, intermediate, figs = ends[t.number]
            if figs is None:
                tune_study.tell(study, t, state, user_attrs=attrs, intermediate=intermediate)
            else:
                _tell_figures(study, t, tlist, attrs, intermediate, figs, source[t.number])
    # the re-check of the best few, on fresh games
    table = trial_table(study, space, tlist)
    chosen = _recheck_choice(table, tlist, plan.recheck)
    every = tune_study.trials(study)
    missing = [Cell(f"recheck-{n:04d}", spec_of(every[n].params, plan.recheck_seed)) for n in chosen
               if _cell_index(exp, f"recheck-{n:04d}") is None]
    if missing:
        exp.add_cells(missing)
    exp.active = {_cell_index(exp, f"recheck-{n:04d}") for n in chosen}
    exp.desc = "tune re-check"
    return exp.play(jobs=plan.n_jobs, games=games * plan.recheck_factor, players=n_players, what="trials")


def _play_batch(plan: _Plan, before, running, source, ends):
    """Play the asked trials ``running`` (with ``--prune``, in rounds: a trial the pruner stops,
    against the trials ``before`` of earlier batches, ends there) and put each one's end in
    ``ends``: number -> (state, user attributes, intermediate values, figures or None).  Returns
    the play's outcome when it stopped short, else None."""
    from optuna.trial import TrialState
    exp, study, tlist, games, n_players = plan.exp, plan.study, plan.tlist, plan.games, plan.n_players
    ks = {t.number: _cell_index(exp, f"trial-{source[t.number]:04d}") for t in running}
    stops = [games * r // PRUNE_ROUNDS for r in range(1, PRUNE_ROUNDS + 1)] if plan.prune else [games]
    stops = [e for e in dict.fromkeys(stops) if e > 0]
    objective = objective_targets(tlist)[0] if objective_targets(tlist) else None
    intermediate = {t.number: {} for t in running}
    for end in stops:
        exp.active = {ks[t.number] for t in running}
        exp.desc = f"tune trials {min(ks)}-{max(ks)}"
        outcome = exp.play(jobs=plan.n_jobs, games=end, players=n_players, what="trials", final=False)
        if outcome.status != "complete":
            return outcome
        if end == games or objective is None:
            break
        still = []
        numbers = {r.number for r in running}
        for t in running:  # reported, and pruned, in trial order
            if source[t.number] != t.number and source[t.number] not in numbers:
                still.append(t)  # a configuration already played in full: its figures are known
                continue
            df = exp.results(ks[t.number], end)
            specs = exp.cells[ks[t.number]].spec.strategies
            value = objective.objective(figure(df, objective, specs)[0])
            if value == value:
                intermediate[t.number].setdefault(end, value)
            if value == value and tune_study.should_prune(study, before, t, intermediate[t.number]):
                attrs: dict = {}
                _set_figures(attrs, tlist, df, specs, n_players)
                ends[t.number] = (TrialState.PRUNED, attrs, intermediate[t.number], None)
            else:
                still.append(t)
        running = still
        if not running:
            break
    for t in running:
        attrs = {}
        figs = _set_figures(attrs, tlist, exp.results(ks[t.number]), exp.cells[ks[t.number]].spec.strategies, n_players)
        ends[t.number] = (TrialState.COMPLETE, attrs, intermediate[t.number], figs)
    return None


def _tell_figures(study, trial, tlist, attrs: dict, intermediate: dict, figs: dict, source: int) -> None:
    """Tell a played trial its figures: complete with the values :func:`_values` gives (failed
    when one is not finite), an undefined figure and a repeated configuration marked, a range
    target as Optuna's constraint (feasible when <= 0)."""
    from optuna.trial import TrialState
    if undefined(tlist, figs):  # told as the worst value, marked so
        attrs["undefined"] = undefined(tlist, figs)
    if source != trial.number:
        attrs["same_as"] = source
    constraints = {tg.name: tg.violation(figs[tg.name]) if figs[tg.name] == figs[tg.name] else 1e9
                   for tg in tlist if tg.goal == "range"}
    vals = _values(tlist, figs)
    finite = all(math.isfinite(v) for v in vals)
    tune_study.tell(study, trial, TrialState.COMPLETE if finite else TrialState.FAIL, values=vals if finite else None,
                    user_attrs=attrs, intermediate=intermediate, constraints=constraints or None)


# --------------------------------------------------------------------------------------------
# Analysis
# --------------------------------------------------------------------------------------------

def trial_table(study, space: Space, tlist: list[Target]) -> pd.DataFrame:
    """One row per trial: ``trial``, ``state``, the searched values, per target its value and
    95% interval (``NAME``, ``NAME.low``, ``NAME.high``), ``feasible`` and ``score`` (lower is
    better: the first objective as minimised)."""
    rows = []
    objs = objective_targets(tlist)
    for t in tune_study.trials(study):
        r = {"trial": t.number, "state": t.state.name.lower()}
        for d in space.dims:
            r[d.column] = d.value(t.params[d.column]) if d.column in t.params else None
        for tg in tlist:
            for suffix in ("", ".low", ".high"):
                r[tg.name + suffix] = t.user_attrs.get(tg.name + suffix, math.nan)
        r["games"] = t.user_attrs.get("games", 0)
        r["same_as"] = t.user_attrs.get("same_as", -1)
        r["error"] = t.user_attrs.get("error", "")
        r["undefined"] = ", ".join(t.user_attrs.get("undefined", []))
        viol = sum(tg.violation(r[tg.name]) for tg in tlist if r[tg.name] == r[tg.name])
        r["feasible"] = bool(t.state.name == "COMPLETE" and viol == 0 and not r["undefined"])
        vals = [math.nan] * len(t.values) if r["undefined"] and t.values else (t.values or [])
        for i, v in enumerate(vals):
            r[f"objective{i + 1}" if len(vals) > 1 else "objective"] = v
        maximised = bool(objs) and objs[0].direction == "maximize"
        r["score"] = (-vals[0] if maximised else vals[0]) if vals else math.nan
        r["violation"] = float(viol)
        rows.append(r)
    return pd.DataFrame(rows)


def _oriented(table: pd.DataFrame, tlist: list[Target]) -> np.ndarray:
    objs = objective_targets(tlist)
    if len(objs) <= 1:
        return table[["score"]].to_numpy(dtype=float)
    cols = [f"objective{i + 1}" for i in range(len(objs))]
    m = table[cols].to_numpy(dtype=float)
    sign = np.array([-1.0 if t.direction == "maximize" else 1.0 for t in objs])
    return m * sign


def pareto(table: pd.DataFrame, tlist: list[Target]) -> list[int]:
    """Trial numbers of the best trial (one objective) or the Pareto front (several), among the
    feasible complete trials (all complete trials, least violation first, when none is
    feasible)."""
    done = table[(table["state"] == "complete") & (table["same_as"] < 0)] if "same_as" in table else \
        table[table["state"] == "complete"]
    if "undefined" in done:
        done = done[done["undefined"].fillna("") == ""]
    if not len(done):
        return []
    pool = done[done["feasible"]] if done["feasible"].any() else done[done["violation"] == done["violation"].min()]
    m = _oriented(pool, tlist)
    if m.shape[1] == 1:
        return [int(pool.iloc[int(np.argmin(m[:, 0]))]["trial"])]
    return [int(pool.iloc[i]["trial"]) for i in range(len(m))
            if not np.any(np.all(m <= m[i], axis=1) & np.any(m < m[i], axis=1))]  # dominated by none


def _recheck_choice(table: pd.DataFrame, tlist: list[Target], n: int) -> list[int]:
    if n <= 0 or not len(table):
        return []
    done = table[(table["state"] == "complete") & (table["same_as"] < 0) & (table["undefined"] == "")].copy()
    if len(objective_targets(tlist)) <= 1:
        done = done.sort_values(["violation", "score", "trial"])
        return [int(x) for x in done["trial"].head(n)]
    front = pareto(table, tlist)
    f = done[done["trial"].isin(front)].sort_values(["objective1", "trial"])
    idx = np.unique(np.linspace(0, len(f) - 1, min(n, len(f))).round().astype(int)) if len(f) else []
    return [int(f.iloc[i]["trial"]) for i in idx]


def flat_objective(table: pd.DataFrame, tlist: list[Target]) -> bool:
    """True when the one objective takes one finite value in every finished trial (two or more
    distinct points): no configuration is better than another, so none is called best."""
    objs = objective_targets(tlist)
    if len(objs) != 1 or not len(table):
        return False
    done = table[(table["state"] == "complete") & (table["same_as"] < 0)] if "same_as" in table else \
        table[table["state"] == "complete"]
    v = done[objs[0].name].to_numpy(dtype=float) if len(done) else np.array([])
    return len(v) > 1 and bool(np.isfinite(v).all()) and float(np.ptp(v)) == 0.0


def front_after_recheck(front: list[int], rc: pd.DataFrame, tlist: list[Target]) -> tuple[list[int], str | None]:
    """Several objectives: the search's Pareto front ``front`` (trial numbers) less the trials its
    re-check ``rc`` (one row per replayed trial, with ``on_front`` among the replayed) found
    dominated, in the search front's order, and the folder of the verifying run: the kept replayed
    trial with the best first objective on the re-check (of a tie, the higher on the search).  A
    front trial the re-check did not replay (``--recheck`` below the front's size) stays on it."""
    dropped = set(rc.loc[~rc["on_front"].astype(bool), "trial"].astype(int))
    kept = rc[rc["on_front"].astype(bool)]
    if not len(kept):  # cannot happen (a non-empty set has a non-dominated member); keep the search's
        return list(front), None
    first = _oriented(kept, tlist)[:, 0]
    order = np.lexsort((kept["search_rank"].to_numpy(), first))
    return [n for n in front if n not in dropped], str(kept.iloc[int(order[0])]["folder"])


def games_played(table: pd.DataFrame, config: dict) -> pd.DataFrame:
    """``table`` (:func:`trial_table`) with the ``games`` of each trial not told yet (state
    ``running``: the tune was stopped) read from its cell's record in ``config``: the games its
    folder ``trial-NNNN`` holds, rather than 0."""
    running = table["state"] == "running" if len(table) else None
    if running is None or not running.any():
        return table
    done = {c.get("name"): sum(b - a for a, b in c.get("games_done") or []) for c in config.get("cells") or []}
    table.loc[running, "games"] = [done.get(f"trial-{int(n):04d}", 0) for n in table.loc[running, "trial"]]
    return table


def _analyse(exp, study, space, tlist, n_trials, recheck, recheck_games) -> TuneResult:
    table = games_played(trial_table(study, space, tlist), exp.config)
    best = pareto(table, tlist)
    rows = []
    ks = [k for k, c in enumerate(exp.cells) if c.name.startswith("recheck-")]
    played = [k for k in ks if exp._complete_to(k, recheck_games)]
    if len(played) < len(ks):  # a re-check cut short: no verdict on part of it (resume finishes it)
        res = TuneResult(space, tlist, table, pd.DataFrame(), [], {}, "complete", study=study,
                         recheck_asked=recheck, search_best=list(best), recheck_open=(len(played), len(ks)))
        res.importances, res.importance_note = importances(study, tlist, space)
        return res
    for k, c in enumerate(exp.cells):
        if not c.name.startswith("recheck-"):
            continue
        number = int(c.name.split("-")[1])
        df = exp.results(k)
        r = {"trial": number, "games": 0}
        for d in space.dims:
            r[d.column] = table.loc[table["trial"] == number, d.column].iloc[0]
        figs = _set_figures(r, tlist, df, c.spec.strategies, int(exp.config.get("players") or 1))
        r["violation"] = sum(tg.violation(figs[tg.name]) for tg in tlist if figs[tg.name] == figs[tg.name])
        r["undefined"] = ", ".join(undefined(tlist, figs))
        r["feasible"] = r["violation"] == 0 and not r["undefined"]
        vals = _values(tlist, figs)
        objs = objective_targets(tlist)
        for i, v in enumerate(vals):
            r[f"objective{i + 1}" if len(vals) > 1 else "objective"] = v
        r["score"] = -vals[0] if objs and objs[0].direction == "maximize" else vals[0]
        r["folder"] = c.path
        rows.append(r)
    rc = pd.DataFrame(rows)
    if len(rc):
        rc["search_rank"] = [1 + i for i in range(len(rc))]
        if len(objective_targets(tlist)) <= 1:
            order = rc.sort_values(["violation", "score", "search_rank"]).index
            rc["recheck_rank"] = 0
            rc.loc[order, "recheck_rank"] = range(1, len(rc) + 1)
        else:
            front = set(pareto(rc.assign(state="complete"), tlist))
            rc["on_front"] = rc["trial"].isin(front)
    res = TuneResult(space, tlist, table, rc, best, {}, "complete", study=study, recheck_asked=recheck,
                     search_best=list(best))
    if len(rc) and "recheck_rank" in rc:  # one objective: the re-check's first (of a tie, the higher on the search)
        winner = rc.sort_values("recheck_rank").iloc[0]
        res.best = [int(winner["trial"])]
        res.verifying = str(winner["folder"])
    elif len(rc):
        res.best, res.verifying = front_after_recheck(best, rc, tlist)
    if flat_objective(table, tlist):  # no configuration is better than another: none is called best
        res.best, res.verifying, res.search_best = [], None, []
    res.importances, res.importance_note = importances(study, tlist, space)
    return res


def importances(study, tlist, space) -> tuple[dict, str]:
    """Per objective, Optuna's parameter importances and why some are left out
    (:func:`analyser.experiments.tune_study.importances`, at least :data:`IMPORTANCE_MIN_TRIALS`)."""
    return measured(study, metric_names(tlist), bool(space.dims), IMPORTANCE_MIN_TRIALS)
