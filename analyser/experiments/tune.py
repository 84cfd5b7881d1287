"""``analyser tune``: search rule options and strategy parameters toward a designer's targets.

The search space is written in the sweep grammar (:mod:`analyser.experiments.grid`): every
``--rule`` option and ``-s`` parameter given a range ``a..b``, ``a..b:step`` or a list ``a,b,c``
is searched.  A whole-number range (or a list of evenly spaced whole numbers) is an integer
dimension; a real-valued option given ``a..b`` with no step is searched continuously; any other
list is a set of choices.

Targets (``--target NAME=GOAL``), with GOAL ``min``, ``max``, a ``VALUE`` (the distance to it is
minimised) or ``LOW..HIGH`` (a constraint: a trial outside it is infeasible).  The vocabulary
(:data:`VOCABULARY`), each figure computed from one trial's games with its 95% interval:

* ``seat_gap``: the largest gap between two seats' win rates, in percentage points (best seat
  minus worst seat; :func:`analyser.analysis.seat_balance`, paired t interval over games);
* ``win_rate`` / ``win_rate:SPEC``: the win rate (%) of one strategy slot: ``SPEC`` is the ``-s``
  as written, its strategy name, or its position ``1``, ``2``, ...; without it, the first ``-s``
  with a searched parameter (else the first); shared wins count their share; cluster-robust
  interval over games (:func:`analyser.analysis.clustered_mean`);
* ``length``: the mean game length in the title's length unit (the ``turns`` column), t interval;
* ``skill_share``: the share (%) of score differences within a game that the strategies explain
  (:func:`analyser.designer.luck_skill`, bootstrap interval); needs two strategies or more;
* ``lead_changes``: mean changes of the sole leader per game (:mod:`analyser.designer`, drama),
  t interval; needs a title that records a score trace;
* ``ties``: games whose win is shared (%), Wilson interval;
* ``close_games``: games whose top two scores differ by at most 1 point (%), Wilson interval;
* any number column the title records per seat (``analyser list GAME`` names them; e.g. ``busts``
  in DAO): its mean per seat and game, cluster-robust interval over games.

One objective (a target that is not a range) uses Optuna's TPE sampler; several use NSGA-II and
give a Pareto front; with ranges only, the objective is the total distance outside them.

Reproducibility: trials are asked in fixed batches of ``--batch`` (trial numbers ``bB`` to
``bB + B - 1``); every trial of a batch is asked of a sampler seeded from (seed, trial number)
that sees only the trials of earlier batches, then the batch is played and told in trial order.
So the same ``--seed`` asks the same trials and gets the same figures for any ``--jobs``, and a
resumed study asks what the uninterrupted one would have.  Every trial plays games ``0`` to
``games - 1`` of the same root seed (paired trials).  With ``--prune`` (one objective), a batch
plays in :data:`PRUNE_ROUNDS` rounds of games and Optuna's median pruner stops a trial that is
clearly behind after a round (state ``pruned``; its figures are those of the games it played).

Each trial is a cell of an experiment folder (:mod:`analyser.experiments.base`): a run folder
``OUT/cells/trial-NNNN``, whose games stream to disk.  The study is an Optuna study in SQLite,
``OUT/tune.db`` (study name ``tune``).  ``analyser resume OUT`` continues a killed tune: a
trial already told is never played again, a trial asked but not told resumes its games.

After the search the best few trials (:data:`RECHECK`) are replayed on fresh games (another
root seed), ``--recheck-factor`` times as many, in cells ``recheck-NNNN``; the report says whether
the search's winner still wins there, and the best configuration's recheck cell gets the full
``simulate`` report as its verifying run.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import re
import time
import typing
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from analyser import analysis, designer
from analyser.core import InputError
from analyser.experiments import grid as gridmod, stopping
from analyser.experiments.base import Cell, Experiment, recorded_outcome
from analyser.registry import get_game, title_ref
from analyser.run import RunSpec, resolve

#: Target names with their meaning (the title's own number columns are added per title).
VOCABULARY = {
    "seat_gap": "largest gap between two seats' win rates (percentage points)",
    "win_rate": "win rate of a strategy slot (%), win_rate:SPEC names the slot",
    "length": "mean game length (the title's length unit)",
    "skill_share": "share of within-game score differences the strategies explain (%)",
    "lead_changes": "mean changes of the sole leader per game",
    "ties": "games with a shared win (%)",
    "close_games": "games whose top two scores differ by at most 1 point (%)",
}
#: Trials the search replays on fresh games before calling one best.
RECHECK = 3
#: With ``--prune``, a batch of trials plays in this many rounds of games; after each round but
#: the last, a trial whose objective so far is worse than the median of the finished trials' at
#: the same round (Optuna's MedianPruner; not before a batch of trials has finished) stops there.
PRUNE_ROUNDS = 4
#: Study name inside tune.db.
STUDY = "tune"
_NUM = re.compile(r"^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$")


# --------------------------------------------------------------------------------------------
# The search space
# --------------------------------------------------------------------------------------------

@dataclass
class Dim:
    """One searched parameter: its ``column`` (Optuna parameter name: ``bust_limit`` or
    ``threshold.limit``), ``slot`` (None for a rule option), option ``key``, ``kind`` (int,
    float, str, bool), ``values`` (text) and, when searched continuously, ``bounds``."""

    column: str
    slot: int | None
    key: str
    kind: str
    values: list[str]
    bounds: tuple[float, float] | None = None

    def distribution(self):
        import optuna.distributions as d
        if self.bounds is not None:
            return d.FloatDistribution(*self.bounds)
        if self.kind == "int":
            xs = [int(v) for v in self.values]
            steps = {b - a for a, b in zip(xs, xs[1:])}
            if xs == sorted(xs) and len(steps) <= 1:
                return d.IntDistribution(xs[0], xs[-1], step=steps.pop() if steps else 1)
        return d.CategoricalDistribution(list(self.values))

    def value(self, value):
        """A sampled value for a table: a number for a number option, else its text."""
        text = self.text(value)
        return int(text) if self.kind == "int" else float(text) if self.kind == "float" else text

    def text(self, value) -> str:
        """A sampled value as the option's text."""
        if self.kind == "int":
            return str(int(value))
        if self.kind == "float" and not isinstance(value, str):
            return repr(round(float(value), 12))
        return str(value)


@dataclass
class Space:
    """The parsed ``-s`` and ``--rule`` values: ``slots`` and ``rules`` as the sweep parses them,
    the searched ``dims``, and the ``focus`` slot."""

    slots: list[gridmod.SlotGrid]
    rules: list[tuple[str, list[str]]]
    dims: list[Dim]

    @property
    def focus(self) -> int:
        for i, s in enumerate(self.slots):
            if any(d.slot == i for d in self.dims):
                return i
        return 0

    def lineup(self, params: dict) -> tuple[list[str], dict[str, str]]:
        """The strategy specs and rule overrides of a trial whose sampled values are ``params``
        (Optuna parameter name -> value)."""
        chosen = {d.column: d.text(params[d.column]) for d in self.dims}
        specs = []
        for i, s in enumerate(self.slots):
            vals = {key: chosen.get(gridmod.column_name(self.slots, i, key), values[0]) for key, values in s.params}
            specs.append(s.spec(vals))
        rules = {key: chosen.get(key, values[0]) for key, values in self.rules}
        return specs, rules


def _continuous(raw: str, kind: type) -> tuple[float, float] | None:
    a, sep, b = raw.strip().partition("..")
    if kind is float and sep and _NUM.match(a.strip() or "x") and _NUM.match(b.strip() or "x") and ":" not in b:
        lo, hi = float(a), float(b)
        return (lo, hi) if lo < hi else None
    return None


def parse_space(game, strategies: list[str], rules: list[str]) -> Space:
    """Parse the search space (InputError, one line, for an unknown option or parameter, an empty
    or backwards range, a range on an option that is not a number, a value not accepted, or
    nothing to search)."""
    from analyser.registry import _resolve, parse_spec, strategy_parameters

    ref = title_ref(game)
    slots = [gridmod.parse_strategy(s, ref) for s in strategies]
    rule_values = gridmod.parse_rules(rules, game.Params)
    hints = typing.get_type_hints(game.Params)
    raw_rules = {p.partition("=")[0].strip(): p.partition("=")[2] for p in rules}
    dims: list[Dim] = []
    for i, s in enumerate(slots):
        accepted = strategy_parameters(_resolve(parse_spec(s.head), ref))
        raw = dict(gridmod.split_strategy(s.text)[1])
        for key, values in s.params:
            kind = accepted[key][0]
            bounds = _continuous(raw.get(key, ""), kind)
            if len(values) > 1 or bounds:
                dims.append(Dim(gridmod.column_name(slots, i, key), i, key, kind.__name__, values, bounds))
    for key, values in rule_values:
        kind = hints.get(key, str)
        bounds = _continuous(raw_rules.get(key, ""), kind)
        if len(values) > 1 or bounds:
            dims.append(Dim(key, None, key, kind.__name__, values, bounds))
    if not dims:
        raise InputError("nothing to search: give at least one --rule or -s parameter a range a..b or a list a,b,c")
    return Space(slots, rule_values, dims)


# --------------------------------------------------------------------------------------------
# Targets
# --------------------------------------------------------------------------------------------

@dataclass
class Target:
    """One ``--target``: ``text`` as written, figure ``name`` (``win_rate:threshold``), base name
    ``kind`` and its ``arg``, the ``goal`` (``min``, ``max``, ``value``, ``range``) with
    ``value`` or ``low``/``high``; ``slot`` for a win rate."""

    text: str
    name: str
    kind: str
    arg: str | None
    goal: str
    value: float = math.nan
    low: float = math.nan
    high: float = math.nan
    slot: int | None = None

    @property
    def is_objective(self) -> bool:
        return self.goal != "range"

    @property
    def direction(self) -> str:
        return "maximize" if self.goal == "max" else "minimize"

    def objective(self, v: float) -> float:
        return abs(v - self.value) if self.goal == "value" else v

    def violation(self, v: float) -> float:
        """How far ``v`` lies outside the range (0 inside; for a range target only)."""
        if self.goal != "range":
            return 0.0
        return max(0.0, self.low - v, v - self.high)

    def goal_text(self) -> str:
        return {"min": "as low as possible", "max": "as high as possible"}.get(
            self.goal, f"close to {self.value:g}" if self.goal == "value" else f"between {self.low:g} and {self.high:g}")


def title_figures(game) -> list[str]:
    """The title's own number columns a target may name (not the trace nor text labels)."""
    from analyser.core import as_metric
    return [str(m) for m in map(as_metric, game.metric_columns)
            if m.kind in ("number", "count", "share", "whole") and str(m) != "turns"]


def parse_target(text: str, game, space: Space) -> Target:
    """Parse one ``--target NAME=GOAL`` (InputError for an unknown name or a bad goal)."""
    name, sep, goal = text.partition("=")
    name, goal = name.strip(), goal.strip()
    own = title_figures(game)
    accepted = "seat_gap, win_rate[:SPEC], length, skill_share, lead_changes, ties, close_games" + \
        (", " + ", ".join(own) if own else "")
    if not sep or not name or not goal:
        raise InputError(f"malformed --target {text!r}; write NAME=min, NAME=max, NAME=VALUE or NAME=LOW..HIGH")
    kind, _, arg = name.partition(":")
    if kind not in VOCABULARY and kind not in own:
        raise InputError(f"unknown target {kind!r}; accepted: {accepted}")
    if arg and kind != "win_rate":
        raise InputError(f"target {name!r}: only win_rate takes :SPEC")
    t = Target(text, name, kind, arg or None, "min")
    if goal in ("min", "max"):
        t.goal = goal
    elif ".." in goal:
        a, _, b = goal.partition("..")
        if not (_NUM.match(a.strip()) and _NUM.match(b.strip())):
            raise InputError(f"--target {text!r}: an empty or non-numeric range; write LOW..HIGH with numbers, e.g. 40..60")
        t.goal, t.low, t.high = "range", float(a), float(b)
        if t.low > t.high:
            raise InputError(f"--target {text!r}: the range runs backwards; write the smaller end first")
    elif _NUM.match(goal):
        t.goal, t.value = "value", float(goal)
    else:
        raise InputError(f"--target {text!r}: the goal {goal!r} is not min, max, a number or a range LOW..HIGH")
    if kind == "win_rate":
        t.slot = _slot(arg, space) if arg else space.focus
    if kind == "length" and "turns" not in [str(c) for c in game.metric_columns]:
        raise InputError(f"target length: {game.name} records no game length (turns)")
    if kind == "lead_changes" and "score_trace" not in [str(c) for c in game.metric_columns]:
        raise InputError(f"target lead_changes: {game.name} records no score trace, so it has no lead changes")
    if kind == "skill_share" and len({s.head for s in space.slots}) < 2:
        raise InputError("target skill_share needs two strategies or more (-s A -s B)")
    return t


def _slot(spec: str, space: Space) -> int:
    texts = [s.text for s in space.slots]
    if spec.isdigit() and 1 <= int(spec) <= len(texts):
        return int(spec) - 1
    if spec in texts:
        return texts.index(spec)
    heads = [i for i, s in enumerate(space.slots) if s.head == spec or s.head.split(":")[-1] == spec]
    if len(heads) == 1:
        return heads[0]
    if len(heads) > 1:
        raise InputError(f"target win_rate:{spec}: {len(heads)} slots play {spec}; name one by position "
                         f"(win_rate:1 .. win_rate:{len(texts)}) or by the -s as written")
    raise InputError(f"target win_rate:{spec}: no -s is {spec!r}; accepted: {', '.join(texts)} or 1..{len(texts)}")


def _t_interval(x: np.ndarray) -> tuple[float, float, float]:
    from scipy import stats
    x = np.asarray(x, dtype=float)
    x = x[np.isfinite(x)]
    if not len(x):
        return math.nan, math.nan, math.nan
    m = float(x.mean())
    if len(x) < 2 or x.std(ddof=1) == 0:
        return m, m, m
    h = float(stats.t.ppf(0.975, len(x) - 1)) * float(x.std(ddof=1)) / math.sqrt(len(x))
    return m, m - h, m + h


def figure(df: pd.DataFrame, t: Target, specs: list[str]) -> tuple[float, float, float]:
    """Target ``t``'s figure on one trial's games ``df`` (its lineup ``specs``): ``(value, low,
    high)``, the 95% interval as the module docstring says; NaN when the games cannot give it."""
    if not len(df):
        return math.nan, math.nan, math.nan
    if t.kind == "seat_gap":
        s = analysis.seat_balance(df)
        return s["gap"], s["gap_low"], s["gap_high"]
    if t.kind == "win_rate":
        rows = df[df["strategy"].astype(str) == specs[t.slot]]
        m, lo, hi = analysis.clustered_mean(rows["win"].to_numpy(dtype=float), analysis.game_codes(rows))
        if lo != lo:
            lo = hi = m
        return 100 * m, 100 * lo, 100 * hi
    if t.kind == "length":
        return _t_interval(analysis.per_game(df)["turns"].to_numpy())
    if t.kind in ("ties", "close_games"):
        d = designer.decisiveness(df)
        key = "tie" if t.kind == "ties" else "close"
        return 100 * d[f"{key}_rate"], 100 * d[f"{key}_low"], 100 * d[f"{key}_high"]
    if t.kind == "skill_share":
        ls = designer.luck_skill(df)
        if ls is None:
            return math.nan, math.nan, math.nan
        return 100 * ls["skill_share"], 100 * ls["skill_low"], 100 * ls["skill_high"]
    if t.kind == "lead_changes":
        dr = designer.drama_per_game(df)
        return _t_interval(dr["lead_changes"].to_numpy()) if dr is not None else (math.nan,) * 3
    values = df[t.kind].to_numpy(dtype=float)
    ok = np.isfinite(values)
    m, lo, hi = analysis.clustered_mean(values[ok], analysis.game_codes(df)[ok])
    return (m, lo, hi) if lo == lo else (m, m, m)


# --------------------------------------------------------------------------------------------
# Playing the study
# --------------------------------------------------------------------------------------------

@dataclass
class TuneResult:
    space: Space
    targets: list[Target]
    trials: pd.DataFrame            # one row per trial
    recheck: pd.DataFrame           # one row per rechecked trial
    best: list[int]                 # the best trial (one objective) or the Pareto front: trial numbers
    config: dict
    status: str
    error: BaseException | None = None
    interrupted: bool = False
    verifying: str | None = None    # folder of the verifying run (relative to OUT)
    importances: dict = field(default_factory=dict)
    study: object = None


def _derived(root: int, what) -> int:
    return int.from_bytes(hashlib.sha256(f"{root}:{what}".encode()).digest()[:4], "big") & 0x7FFFFFFF


class _TuneExperiment(Experiment):
    """An experiment that plays only the ``active`` cells (the others count as complete)."""

    active: set | None = None

    def _complete_to(self, k: int, games: int) -> bool:
        if self.active is not None and k not in self.active:
            return True
        return super()._complete_to(k, games)


def _pruner(batch: int, on: bool):
    import optuna
    return optuna.pruners.MedianPruner(n_startup_trials=batch, n_warmup_steps=0) if on else optuna.pruners.NopPruner()


def _objectives(targets: list[Target]) -> list[Target]:
    return [t for t in targets if t.is_objective]


def _sampler(targets: list[Target], seed: int, batch: int):
    """The sampler of one trial (range targets reach it as the trial's constraints, set with
    ``Trial.set_constraint`` before it is told)."""
    import optuna
    if len(_objectives(targets)) > 1:
        return optuna.samplers.NSGAIISampler(population_size=max(2, batch), seed=seed)
    return optuna.samplers.TPESampler(seed=seed, n_startup_trials=min(10, max(2, batch)))


def _values(targets: list[Target], figs: dict) -> list[float]:
    objs = _objectives(targets)
    if objs:
        return [t.objective(figs[t.name]) for t in objs]
    return [sum(t.violation(figs[t.name]) for t in targets)]


def run_tune(game_id: str, strategies: list[str], rules: list[str], targets: list[str], *,
             players: int | None = None, trials: int = 40, games: int = 2000, seed: int | None = None,
             jobs: int | None = 0, batch: int = 8, recheck: int = RECHECK, recheck_factor: int = 4,
             prune: bool = False,
             batch_size: int | None = None, game_timeout: float = 60.0, progress: bool | None = False,
             command: str = "", out: str | Path | None = None, resume: bool = False,
             play: bool = True) -> TuneResult:
    """Parse, search, re-check and analyse (see the module docstring).  InputError on bad input
    before any game is played.  ``out`` is the experiment folder (``OUT/tune.db`` holds the
    study); ``resume=True`` continues it; ``play=False`` only reads it (to rebuild the report)."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    if trials < 1 or games < 1 or batch < 1 or recheck < 0 or recheck_factor < 1:
        raise InputError("--trials, --games, --batch and --recheck-factor must be at least 1 (--recheck at least 0)")
    game = get_game(game_id)
    space = parse_space(game, list(strategies), list(rules))
    if not targets:
        raise InputError("give at least one --target, e.g. --target seat_gap=min")
    tlist = [parse_target(t, game, space) for t in targets]
    if len({t.name for t in tlist}) != len(tlist):
        raise InputError("a --target is given twice; give each figure once")
    specs0, rules0 = space.lineup({d.column: d.bounds[0] if d.bounds else d.values[0] for d in space.dims})
    base = RunSpec(game=title_ref(game), strategies=specs0, players=players, games=games, seed=seed, jobs=jobs,
                   rules=rules0, batch_size=batch_size, game_timeout=game_timeout)
    _, _, n_players, n_jobs, root = resolve(base)
    base = dataclasses.replace(base, seed=root, players=n_players)
    recheck_seed = _derived(root, "recheck")
    if out is None:
        raise InputError("tune needs an output folder")
    out = Path(out)

    def spec_of(params: dict, s: int) -> RunSpec:
        specs, rl = space.lineup(params)
        return dataclasses.replace(base, strategies=specs, rules=rl, seed=s)

    arguments = {"game_id": title_ref(game), "strategies": list(strategies), "rules": list(rules),
                 "targets": list(targets), "players": players, "trials": trials, "games": games, "seed": root,
                 "jobs": jobs, "batch": batch, "recheck": recheck, "recheck_factor": recheck_factor, "prune": prune,
                 "batch_size": batch_size, "game_timeout": game_timeout}
    fields = {"game": title_ref(game), "game_name": game.name, "seed": root, "games_requested": games,
              "players": n_players, "strategies": list(strategies), "rules": list(rules), "targets": list(targets),
              "trials": trials, "recheck_factor": recheck_factor}
    storage_url = f"sqlite:///{(out / 'tune.db').resolve()}"
    directions = [t.direction for t in _objectives(tlist)] or ["minimize"]

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
        if resume:
            from analyser.experiments.base import read_record
            record = read_record(out, ("tune",))
            study = optuna.load_study(study_name=STUDY, storage=storage_url,
                                      pruner=_pruner(batch, prune and len(directions) == 1))
            by_number = {t.number: t for t in study.get_trials(deepcopy=False)}
            cells = []
            for c in record["cells"]:
                name = str(c.get("name"))
                kind, _, num = name.partition("-")
                if not num.isdigit() or int(num) not in by_number or kind not in ("trial", "recheck"):
                    raise InputError(f"{str(out)!r}: cell {name!r} of its record is not a trial of tune.db; "
                                     "it cannot be resumed")
                p = by_number[int(num)].params
                cells.append(Cell(name, spec_of(p, root if kind == "trial" else recheck_seed)))
            exp = _TuneExperiment.begin(out, "tune", cells, arguments=arguments, fields=fields, command=command,
                                        resume=True, play=play, shared=base)
        else:
            exp = _TuneExperiment.begin(out, "tune", [], arguments=arguments, fields=fields, command=command,
                                        shared=base)
            (out / "tune.db").unlink(missing_ok=True)
            study = optuna.create_study(study_name=STUDY, storage=storage_url, directions=directions,
                                        pruner=_pruner(batch, prune and len(directions) == 1))
        with exp:
            exp.active = None
            outcome = None
            if play:
                outcome = _search(exp, study, space, tlist, spec_of, root, recheck_seed, trials, games, batch,
                                  recheck, recheck_factor, n_jobs, n_players, progress, prune)
            if outcome is None:
                outcome = recorded_outcome(exp.config)
            res = _analyse(exp, study, space, tlist, trials, recheck, games * recheck_factor)
            config = dict(exp.config)
    config.update(status=outcome.status, error=str(outcome.error) if outcome.error else None, jobs=n_jobs,
                  play_seconds=config.get("play_seconds"))
    res.config, res.status, res.error, res.interrupted = config, outcome.status, outcome.error, outcome.interrupted
    return res


def _cell_index(exp: Experiment, name: str) -> int | None:
    for k, c in enumerate(exp.cells):
        if c.name == name:
            return k
    return None


def _sources(trials) -> dict[int, int]:
    """Trial number -> the first trial with the same values: a configuration asked again plays the
    same games (same seeds), so it is not played twice; its figures are the first one's."""
    first: dict[tuple, int] = {}
    out = {}
    for t in trials:
        key = tuple(sorted((k, repr(v)) for k, v in t.params.items()))
        out[t.number] = t.number if t.state.name == "FAIL" else first.setdefault(key, t.number)
    return out


def _set_figures(trial, tlist: list[Target], df: pd.DataFrame, specs: list[str], n_players: int) -> dict:
    """Each target's figure and interval on ``df`` as the trial's user attributes; returns name -> value."""
    figs = {}
    for tg in tlist:
        v, lo, hi = figure(df, tg, specs)
        figs[tg.name] = v
        trial.set_user_attr(tg.name, v)
        trial.set_user_attr(tg.name + ".low", lo)
        trial.set_user_attr(tg.name + ".high", hi)
    trial.set_user_attr("games", int(len(df) // max(1, n_players)))
    return figs


def _search(exp, study, space, tlist, spec_of, root, recheck_seed, n_trials, games, batch, recheck,
            recheck_factor, n_jobs, n_players, progress, prune=False):
    import optuna
    from optuna.trial import TrialState

    while True:
        trials = study.get_trials(deepcopy=False)
        n = len(trials)
        if n < n_trials and n % batch:  # finish asking the batch a kill cut short
            todo = min(n_trials, (n // batch + 1) * batch) - n
        elif n < n_trials and not any(t.state == TrialState.RUNNING for t in trials):
            todo = min(batch, n_trials - n)
        else:
            todo = 0
        for _ in range(todo):
            number = len(study.get_trials(deepcopy=False))
            study.sampler = _sampler(tlist, _derived(root, number), batch)
            t = study.ask({d.column: d.distribution() for d in space.dims})
            assert t.number == number
        trials = study.get_trials(deepcopy=False)
        for t in trials:  # a configuration the rules refuse (say, too few cards for the seats) is a failed trial
            if t.state == TrialState.RUNNING and _cell_index(exp, f"trial-{t.number:04d}") is None:
                try:
                    stopping.validate(get_game(spec_of(t.params, root).game), [spec_of(t.params, root)], n_players)
                except InputError as e:
                    optuna.trial.Trial(study, t._trial_id).set_user_attr("error", str(e)[:300])
                    study.tell(t.number, state=TrialState.FAIL)
        trials = study.get_trials(deepcopy=False)
        source = _sources(trials)
        missing = [Cell(f"trial-{t.number:04d}", spec_of(t.params, root)) for t in trials
                   if source[t.number] == t.number and _cell_index(exp, f"trial-{t.number:04d}") is None]
        if missing:
            exp.add_cells(missing)
        running = [t for t in trials if t.state == TrialState.RUNNING]
        if not running:
            break
        ks = {t.number: _cell_index(exp, f"trial-{source[t.number]:04d}") for t in running}
        ends = [games * r // PRUNE_ROUNDS for r in range(1, PRUNE_ROUNDS + 1)] if prune else [games]
        ends = [e for e in dict.fromkeys(ends) if e > 0]
        objective = _objectives(tlist)[0] if _objectives(tlist) else None
        for end in ends:
            exp.active = {ks[t.number] for t in running}
            outcome = exp.play(jobs=n_jobs, games=end, players=n_players, progress=progress,
                               desc=f"tune trials {min(ks)}-{max(ks)}", what="trials", final=False)
            if outcome.status != "complete":
                return outcome
            if end == games or objective is None:
                break
            still = []
            for t in running:  # reported, and pruned, in trial order
                if source[t.number] != t.number and source[t.number] not in {r.number for r in running}:
                    still.append(t)  # a configuration already played in full: its figures are known
                    continue
                df = exp.results(ks[t.number], end)
                v, _, _ = figure(df, objective, exp.cells[ks[t.number]].spec.strategies)
                trial = optuna.trial.Trial(study, t._trial_id)
                value = objective.objective(v)
                if value == value:
                    with warnings.catch_warnings():  # a step reported before a kill is reported once
                        warnings.simplefilter("ignore")
                        trial.report(value, step=end)
                if value == value and trial.should_prune():
                    _set_figures(trial, tlist, df, exp.cells[ks[t.number]].spec.strategies, n_players)
                    study.tell(t.number, state=TrialState.PRUNED)
                else:
                    still.append(t)
            running = still
            if not running:
                break
        for t in running:  # told in trial order
            df = exp.results(ks[t.number])
            specs = exp.cells[ks[t.number]].spec.strategies
            trial = optuna.trial.Trial(study, t._trial_id)
            figs = _set_figures(trial, tlist, df, specs, n_players)
            if source[t.number] != t.number:
                trial.set_user_attr("same_as", source[t.number])
            for tg in tlist:
                if tg.goal == "range":  # Optuna's constraint: feasible when <= 0
                    v = figs[tg.name]
                    trial.set_constraint(tg.name, tg.violation(v) if v == v else 1e9)
            vals = _values(tlist, figs)
            if all(math.isfinite(v) for v in vals):
                study.tell(t.number, vals if len(vals) > 1 else vals[0])
            else:
                study.tell(t.number, state=TrialState.FAIL)
    # the re-check of the best few, on fresh games
    table = trial_table(study, space, tlist)
    chosen = _recheck_choice(table, tlist, recheck)
    missing = [Cell(f"recheck-{n:04d}", spec_of(study.trials[n].params, recheck_seed)) for n in chosen
               if _cell_index(exp, f"recheck-{n:04d}") is None]
    if missing:
        exp.add_cells(missing)
    exp.active = {_cell_index(exp, f"recheck-{n:04d}") for n in chosen}
    if not exp.active:
        exp.active = set()
    return exp.play(jobs=n_jobs, games=games * recheck_factor, players=n_players, progress=progress,
                    desc="tune re-check", what="trials", final=True)


# --------------------------------------------------------------------------------------------
# Analysis
# --------------------------------------------------------------------------------------------

def trial_table(study, space: Space, tlist: list[Target]) -> pd.DataFrame:
    """One row per trial: ``trial``, ``state``, the searched values, per target its value and
    95% interval (``NAME``, ``NAME.low``, ``NAME.high``), ``feasible`` and ``score`` (lower is
    better: the first objective as minimised)."""
    rows = []
    objs = _objectives(tlist)
    for t in study.get_trials(deepcopy=False):
        r = {"trial": t.number, "state": t.state.name.lower()}
        for d in space.dims:
            r[d.column] = d.value(t.params[d.column]) if d.column in t.params else None
        for tg in tlist:
            for suffix in ("", ".low", ".high"):
                r[tg.name + suffix] = t.user_attrs.get(tg.name + suffix, math.nan)
        r["games"] = t.user_attrs.get("games", 0)
        r["same_as"] = t.user_attrs.get("same_as", -1)
        r["error"] = t.user_attrs.get("error", "")
        viol = sum(tg.violation(r[tg.name]) for tg in tlist if r[tg.name] == r[tg.name])
        r["feasible"] = bool(t.state.name == "COMPLETE" and viol == 0)
        vals = t.values or []
        for i, v in enumerate(vals):
            r[f"objective{i + 1}" if len(vals) > 1 else "objective"] = v
        if vals:
            first = objs[0] if objs else None
            r["score"] = -vals[0] if first is not None and first.direction == "maximize" else vals[0]
        else:
            r["score"] = math.nan
        r["violation"] = viol
        rows.append(r)
    return pd.DataFrame(rows)


def _oriented(table: pd.DataFrame, tlist: list[Target]) -> np.ndarray:
    objs = _objectives(tlist)
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
    if not len(done):
        return []
    pool = done[done["feasible"]] if done["feasible"].any() else done[done["violation"] == done["violation"].min()]
    m = _oriented(pool, tlist)
    if m.shape[1] == 1:
        return [int(pool.iloc[int(np.argmin(m[:, 0]))]["trial"])]
    front = []
    for i in range(len(m)):
        dominated = np.any(np.all(m <= m[i], axis=1) & np.any(m < m[i], axis=1))
        if not dominated:
            front.append(int(pool.iloc[i]["trial"]))
    return front


def _recheck_choice(table: pd.DataFrame, tlist: list[Target], n: int) -> list[int]:
    if n <= 0 or not len(table):
        return []
    done = table[(table["state"] == "complete") & (table["same_as"] < 0)].copy()
    if len(_objectives(tlist)) <= 1:
        done = done.sort_values(["violation", "score", "trial"])
        return [int(x) for x in done["trial"].head(n)]
    front = pareto(table, tlist)
    f = done[done["trial"].isin(front)].sort_values(["objective1", "trial"])
    idx = np.unique(np.linspace(0, len(f) - 1, min(n, len(f))).round().astype(int)) if len(f) else []
    return [int(f.iloc[i]["trial"]) for i in idx]


def _analyse(exp, study, space, tlist, n_trials, recheck, recheck_games) -> TuneResult:
    table = trial_table(study, space, tlist)
    best = pareto(table, tlist)
    rows = []
    for k, c in enumerate(exp.cells):
        if not c.name.startswith("recheck-"):
            continue
        number = int(c.name.split("-")[1])
        df = exp.results(k)
        r = {"trial": number, "games": int(len(df) // max(1, int(exp.config.get("players") or 1)))}
        for d in space.dims:
            r[d.column] = table.loc[table["trial"] == number, d.column].iloc[0]
        figs = {}
        for tg in tlist:
            v, lo, hi = figure(df, tg, c.spec.strategies)
            figs[tg.name] = v
            r[tg.name], r[tg.name + ".low"], r[tg.name + ".high"] = v, lo, hi
        r["violation"] = sum(tg.violation(figs[tg.name]) for tg in tlist if figs[tg.name] == figs[tg.name])
        r["feasible"] = r["violation"] == 0
        vals = _values(tlist, figs)
        objs = _objectives(tlist)
        for i, v in enumerate(vals):
            r[f"objective{i + 1}" if len(vals) > 1 else "objective"] = v
        r["score"] = -vals[0] if objs and objs[0].direction == "maximize" else vals[0]
        r["folder"] = c.path
        rows.append(r)
    rc = pd.DataFrame(rows)
    if len(rc):
        rc["search_rank"] = [1 + i for i in range(len(rc))]
        if len(_objectives(tlist)) <= 1:
            order = rc.sort_values(["violation", "score", "search_rank"]).index
            rc["recheck_rank"] = 0
            rc.loc[order, "recheck_rank"] = range(1, len(rc) + 1)
        else:
            front = set(pareto(rc.assign(state="complete"), tlist))
            rc["on_front"] = rc["trial"].isin(front)
    res = TuneResult(space, tlist, table, rc, best, {}, "complete", study=study)
    if len(rc):
        winner = rc.sort_values("recheck_rank").iloc[0] if "recheck_rank" in rc else rc.iloc[0]
        res.verifying = str(winner["folder"])
    res.importances = importances(study, tlist, space)
    return res


def importances(study, tlist, space) -> dict:
    """Per objective, Optuna's parameter importances (PED-ANOVA, which needs no extra library), or {} with too few trials."""
    import optuna
    from optuna.trial import TrialState
    done = [t for t in study.get_trials(deepcopy=False) if t.state == TrialState.COMPLETE]
    if len(done) < 3 or not space.dims:
        return {}
    out = {}
    names = [t.name for t in _objectives(tlist)] or ["distance outside the ranges"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i, name in enumerate(names):
            try:
                ev = optuna.importance.PedAnovaImportanceEvaluator()
                target = (lambda t, i=i: t.values[i]) if len(names) > 1 else None
                out[name] = dict(optuna.importance.get_param_importances(study, evaluator=ev, target=target))
            except (RuntimeError, ValueError, ZeroDivisionError):
                continue
    return out


# --------------------------------------------------------------------------------------------
# Plots and report
# --------------------------------------------------------------------------------------------

def _fmt(v, lo=None, hi=None) -> str:
    if v is None or v != v:
        return "-"
    if lo is None or lo != lo:
        return f"{v:.3g}"
    d = analysis.decimals((hi - lo) / 2)
    return f"{v:.{d}f} ({lo:.{d}f} to {hi:.{d}f})"


def _target_label(t: Target) -> str:
    unit = {"seat_gap": " pp", "win_rate": " %", "skill_share": " %", "ties": " %", "close_games": " %"}.get(t.kind, "")
    return f"{t.name}{unit}"


def plot_history(res: TuneResult, outdir: Path) -> list[tuple[str, str]]:
    """The optimisation history (each target's figure per trial with its 95% interval, the best so
    far) and, for several objectives, the Pareto front of the first two."""
    import matplotlib.pyplot as plt

    from analyser import plots

    t = res.trials[res.trials["state"] == "complete"]
    out = []
    if not len(t):
        return out
    n = len(res.targets)
    fig, axes = plt.subplots(n, 1, figsize=(8, 2.6 * n + 0.6), squeeze=False)
    best = set(res.best)
    for ax, tg in zip(axes[:, 0], res.targets):
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
        ax.legend(fontsize=8)
    out.append(plots.save(fig, outdir / "tune_history.png",
                          "Optimisation history: each trial's figure for each target with its 95% interval, in the "
                          "order the sampler asked them; the line is the best so far, the star the best trial "
                          "(or the Pareto front)."))
    objs = _objectives(res.targets)
    if len(objs) >= 2:
        a, b = objs[0], objs[1]
        fig, ax = plt.subplots(figsize=(7, 5))
        ax.errorbar(t[a.name], t[b.name], xerr=np.clip(np.vstack([t[a.name] - t[a.name + ".low"],
                                                                  t[a.name + ".high"] - t[a.name]]), 0, None),
                    yerr=np.clip(np.vstack([t[b.name] - t[b.name + ".low"], t[b.name + ".high"] - t[b.name]]), 0, None),
                    fmt="o", color="#3a6ea5", ecolor="#cccccc", markersize=4, label="trial")
        f = t[t["trial"].isin(best)].sort_values(a.name)
        ax.plot(f[a.name], f[b.name], marker="*", markersize=13, color="#c44e52", label="Pareto front")
        for _, r in f.iterrows():
            ax.annotate(str(int(r["trial"])), (r[a.name], r[b.name]), fontsize=8, xytext=(4, 4),
                        textcoords="offset points")
        plots.style(ax, "Pareto front", plots.label(_target_label(a)), plots.label(_target_label(b)))
        ax.legend(fontsize=8)
        out.append(plots.save(fig, outdir / "tune_pareto.png",
                              f"Every trial's {a.name} against its {b.name} with 95% intervals; the stars, joined, "
                              "are the Pareto front (no other trial is better on every objective); numbers are "
                              "trial numbers."))
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


def summary_sentences(res: TuneResult) -> list[str]:
    """The plain-language summary."""
    out = []
    t = res.trials
    done = int((t["state"] == "complete").sum()) if len(t) else 0
    out.append(f"{done} of {res.config.get('trials')} trials finished, each on the same {res.config.get('games_requested'):,} "
               "games (same seeds), so differences between trials are not down to the deal.")
    cols = [d.column for d in res.space.dims]
    if len(res.best) == 1 and len(t):
        b = t[t["trial"] == res.best[0]].iloc[0]
        figs = "; ".join(f"{tg.name} {_fmt(b[tg.name], b[tg.name + '.low'], b[tg.name + '.high'])}" for tg in res.targets)
        out.append(f"Best trial on the search: {res.best[0]} ({', '.join(f'{c}={b[c]}' for c in cols)}): {figs}.")
        if not bool(b["feasible"]):
            out.append("No trial met every range target; the best is the one closest to them.")
    elif res.best:
        out.append(f"The Pareto front holds {len(res.best)} trials: none is better than another on every objective; "
                   "choose among them by what matters most.")
    rc = res.recheck
    if len(rc) and "recheck_rank" in rc:
        win = rc[rc["search_rank"] == 1].iloc[0]
        top = rc.sort_values("recheck_rank").iloc[0]
        g = int(win["games"])
        if int(win["recheck_rank"]) == 1:
            out.append(f"The re-check replayed the best {len(rc)} trials on {g:,} fresh games each: the winner "
                       f"(trial {int(win['trial'])}) still wins.")
        else:
            out.append(f"The re-check replayed the best {len(rc)} trials on {g:,} fresh games each: the search's "
                       f"winner (trial {int(win['trial'])}) does NOT still win; trial {int(top['trial'])} is best "
                       "there, so the search's lead was noise. The report takes the re-check's winner.")
        objs = _objectives(res.targets)
        if objs and len(rc) > 1:
            tg = objs[0]
            second = rc.sort_values("recheck_rank").iloc[1]
            overlap = not (top[tg.name + ".low"] > second[tg.name + ".high"] or top[tg.name + ".high"] < second[tg.name + ".low"])
            out.append(f"On the re-check its {tg.name} interval {'overlaps' if overlap else 'does not overlap'} the "
                       f"runner-up's (trial {int(second['trial'])})"
                       + (": the two cannot be told apart at this many games." if overlap else "."))
    elif len(rc) and "on_front" in rc:
        kept = int(rc["on_front"].sum())
        out.append(f"The re-check replayed {len(rc)} trials of the front on {int(rc['games'].iloc[0]):,} fresh games "
                   f"each; {kept} of them stay non-dominated among themselves.")
    if res.importances:
        name, imp = next(iter(res.importances.items()))
        if imp:
            k = next(iter(imp))
            out.append(f"The parameter that mattered most for {name}: {k} ({100 * imp[k]:.0f}% of the explained "
                       "variation, PED-ANOVA).")
    return out


def write_tune(res: TuneResult, outdir: Path, report: bool = True) -> list[str]:
    """Write ``trials.csv``, ``recheck.csv``, ``config.json`` and (with ``report``) the plots,
    the verifying run's report and ``index.html``; return the file names."""
    from analyser import report as reportmod
    from analyser.csvsafe import to_csv
    from analyser.run.store import write_json_atomic

    outdir.mkdir(parents=True, exist_ok=True)
    files = ["tune.db"]
    to_csv(res.trials, outdir / "trials.csv", index=False)
    files.append("trials.csv")
    if len(res.recheck):
        to_csv(res.recheck, outdir / "recheck.csv", index=False)
        files.append("recheck.csv")
    if report and len(res.trials):
        game = get_game(res.config["game"])
        figures = plot_history(res, outdir)
        verifying = None
        if res.verifying and res.status == "complete":
            from analyser.report import build_report_from_run
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
        def fig_table(df, extra=()):
            rows = []
            for _, r in df.iterrows():
                row = {"trial": int(r["trial"]), **{c: r[c] for c in cols}}
                for tg in res.targets:
                    row[_target_label(tg)] = _fmt(r[tg.name], r[tg.name + ".low"], r[tg.name + ".high"])
                for e in extra:
                    row[e] = r[e]
                rows.append(row)
            return pd.DataFrame(rows)
        heading = "Best configuration" if len(res.best) == 1 else "Pareto front"
        sections = [(heading, reportmod.html_table(fig_table(shown, ("feasible",)), formatted=True),
                     "Each target's figure with its 95% interval (in brackets), on the search's games. "
                     + ("" if len(res.best) == 1 else "No trial on the front is better than another on every "
                        "objective. ") + "Target definitions: README, section analyser tune.")]
        if len(res.recheck):
            rc = res.recheck.copy()
            extra = ("games", "search_rank") + (("recheck_rank",) if "recheck_rank" in rc else ("on_front",))
            sections.append(("Re-check of the best trials", reportmod.html_table(fig_table(rc, extra), formatted=True),
                             "The best trials of the search replayed on fresh games (another seed), "
                             f"{res.config.get('recheck_factor', '')} times as many: a search winner that "
                             "does not stay first here won on noise."))
        order = t.sort_values(["violation", "score", "trial"]) if len(t) else t
        sections.append(("All trials", reportmod.html_table(
            fig_table(order.head(200), ("state", "feasible")), formatted=True),
            "Every trial, best first (trials.csv has all, with the raw numbers)."))
        if res.importances:
            sections.append(("Parameter importances", "", "optuna.importance (PED-ANOVA) over the finished "
                             "trials: which searched parameter moves each objective most."))
        best_row = shown.iloc[0] if len(shown) else None
        cards = [("best" if len(res.best) == 1 else "Pareto front",
                  ", ".join(f"{c}={best_row[c]}" for c in cols) if best_row is not None and len(res.best) == 1
                  else f"{len(res.best)} trials", f"trial {res.best[0]}" if len(res.best) == 1 else "see the table"),
                 ("trials", f"{int((t['state'] == 'complete').sum())} / {res.config.get('trials')}",
                  "TPE" if len(_objectives(res.targets)) <= 1 else "NSGA-II"),
                 ("games per trial", f"{res.config['games_requested']:,}", f"seed {res.config['seed']}")]
        notes = summary_sentences(res)
        if verifying:
            import html
            which = ("the best configuration" if len(_objectives(res.targets)) <= 1 else
                     f"the re-checked front trial with the best {_objectives(res.targets)[0].name}")
            sections.insert(2 if len(res.recheck) else 1, ("Verifying run", f'<p><a href="{html.escape(verifying)}">The full '
                            f"simulate report of {html.escape(which)}</a>, on its re-check games.</p>",
                            f"The run folder {res.verifying} holds its games; analyser report rebuilds it."))
        notes.append("Watch or explore the study: optuna-dashboard sqlite:///" + str(outdir / "tune.db"))
        if res.status != "complete":
            notes.insert(0, f"Tune {res.status}: {res.config.get('error') or 'stopped by the user'}; "
                            "continue it with analyser resume.")
        placed = {"tune_history.png": heading, "tune_pareto.png": heading}
        if res.importances:
            placed["tune_importance.png"] = "Parameter importances"
        reportmod.write_experiment_page(
            outdir, title=f"{game.name}: tune of {', '.join(cols)}",
            lead=f"Targets: {'; '.join(f'{tg.name} {tg.goal_text()}' for tg in res.targets)}.",
            cards=cards, notes=notes, sections=sections, figures=figures, config=res.config,
            figure_sections=placed)
        files += [name for name, _ in figures] + ["index.html"]
    res.config["files"] = sorted(set(files) | {"config.json"})
    res.config["best"] = list(res.best)
    write_json_atomic(outdir / "config.json", res.config)
    return files
