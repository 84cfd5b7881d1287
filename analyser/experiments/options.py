"""What each experiment takes besides its run spec: one options dataclass per kind, and where it
plays (:class:`Session`).

An experiment function takes the :class:`~analyser.run.RunSpec` of the runs it plays, its own
options and a :class:`Session`.  Its record keeps the spec and the options (:func:`record_of`);
``analyser resume`` rebuilds both (:func:`options_from_record`) and calls the function again.

A light module (no pandas): the command line imports it at start.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

from analyser.run.spec import RunSpec

#: Bootstrap resamples for a tournament's rating intervals (``--bootstrap``).
BOOTSTRAP = 50
#: Trials a tune replays on fresh games before it calls one best (``--recheck``).
RECHECK = 3
#: The default laddered strategy and budgets (``--strategy``, ``--budgets``).
DEFAULT_STRATEGY = "mcts:iterations"
DEFAULT_BUDGETS = "25..400"


@dataclass
class Session:
    """Where and how an experiment plays: ``out`` its folder (None: a temporary folder, deleted
    after), the ``command`` line its record keeps, ``progress`` (True a bar, None one only on a
    terminal, False none), ``resume`` (continue the experiment in ``out``: only the games its
    cells lack are played) and ``play`` (False: only read it back, to rebuild its report)."""

    out: str | Path | None = None
    command: str = ""
    progress: bool | None = False
    resume: bool = False
    play: bool = True


@dataclass
class SweepOptions:
    """A sweep's own options: the rule options with their values (``KEY=VALUES``: a value, a
    list a,b,c or a range a..b[:step]) and ``until_ci`` (stop once every interval is that wide).
    Its strategy grid is the run spec's ``strategies`` (specs whose parameters may be lists or
    ranges)."""

    rules: list[str] = field(default_factory=list)
    until_ci: float | None = None


@dataclass
class TournamentOptions:
    """A tournament's own options: ``until_ci`` and the ``bootstrap`` resamples of its
    intervals.  Its run spec's ``games`` is the total over all tables."""

    until_ci: float | None = None
    bootstrap: int = BOOTSTRAP


@dataclass
class LadderOptions:
    """A ladder's own options: the laddered ``strategy`` (``NAME:PARAM[,key=value...]``), its
    ``budgets`` (``A..B`` or ``a,b,c``) and the fixed opponent ``against`` (None: head to head).
    Its run spec's ``strategies`` are unused, and ``game_timeout=None`` asks for the limit
    scaled to the cost of a game."""

    strategy: str = DEFAULT_STRATEGY
    budgets: str = DEFAULT_BUDGETS
    against: str | None = None


@dataclass
class TuneOptions:
    """A tune's own options: the searched ``rules`` (as :class:`SweepOptions`), the ``targets``
    (``NAME=GOAL``), the ``trials`` to play, the ``batch`` of trials asked at a time, the
    ``recheck`` of the best few on ``recheck_factor`` times the games, and ``prune``.  Its
    strategy space is the run spec's ``strategies``."""

    rules: list[str] = field(default_factory=list)
    targets: list[str] = field(default_factory=list)
    trials: int = 40
    batch: int = 8
    recheck: int = RECHECK
    recheck_factor: int = 4
    prune: bool = False


@dataclass
class CompareOptions:
    """A comparison's own option: side ``b``'s run spec (side A's is the run spec)."""

    b: RunSpec


#: The options dataclass of each experiment kind.
KIND_OPTIONS = {"sweep": SweepOptions, "tournament": TournamentOptions, "ladder": LadderOptions,
                "tune": TuneOptions, "compare": CompareOptions}


def record_of(spec: RunSpec, options) -> dict:
    """``{"run": ..., "options": ...}``: the spec and options as an experiment's record keeps them
    (plain JSON values)."""
    return {"run": dataclasses.asdict(spec), "options": dataclasses.asdict(options) if options is not None else {}}


def options_from_record(kind: str, run: dict, options: dict):
    """The ``(RunSpec, options)`` that a record's checked ``run`` and ``options`` give back."""
    values = dict(options)
    if kind == "compare":
        values["b"] = RunSpec(**values["b"])
    return RunSpec(**run), KIND_OPTIONS[kind](**values)
