"""Core protocols of `analyser`: rule parameters, game rules, strategies and errors (the errors,
the rule parameters and the results schema have modules of their own, :mod:`~analyser.engine.errors`,
:mod:`~analyser.engine.params` and :mod:`~analyser.engine.schema`; every name is importable from here).

A title (docs/own-game.md) is its rule options (a :class:`Params` dataclass), its state (a
dataclass of plain data and components) and a :class:`Game`, the stateless forward model.
Strategies implement ``choose(view, legal, rng) -> action`` and optionally
``reset(seat, params, n_players)``; a plain function with that signature qualifies.

Randomness: the simulation loop hands every call a :class:`random.Random` instance, never a
global.  We use the standard-library generator rather than ``numpy.random.Generator`` for the
per-decision streams because scalar draws from it are several times cheaper, and a card game makes
thousands of them per second; the streams are still derived from one root
``numpy.random.SeedSequence`` (see :mod:`analyser.engine.runner`).
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Any, Callable, ClassVar, Sequence

from analyser.engine import derive
from analyser.engine.hooks import ComponentHooks
from analyser.engine.traces import encode_trace  # noqa: F401  (titles import it from here)
# the contract is importable from here whole: errors, rule parameters and the results schema
from analyser.engine.errors import InputError, StrategyError, strategy_frame  # noqa: F401
from analyser.engine.params import GAME_TIMEOUT, MAX_NUMBER, Params, coerce, option, parse_key_values  # noqa: F401
from analyser.engine.schema import (COLUMN_KINDS, COMPONENTS, KEY_COLUMNS, OUTCOME_COLUMNS, OUTCOMES,
                                    ExtraTable, Metric, Scoring, as_metric)  # noqa: F401


# --------------------------------------------------------------------------------------------
# Games
# --------------------------------------------------------------------------------------------

class Game(ComponentHooks):
    """The forward model of one title.  Stateless: every method takes the state.

    Subclasses set the class attributes and implement the methods.  ``apply`` mutates the state
    in place (the game loop owns it); strategies that look ahead copy with ``clone_state``.
    """

    id: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str] = ""
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    default_players: ClassVar[int]
    Params: ClassVar[type[Params]]
    #: The state class: a dataclass of plain values and components
    #: (:mod:`analyser.engine.components`), from which the engine derives copy, equality,
    #: pickling, the JSON round trip, views, ``resample_hidden`` and ``determinize``.
    State: ClassVar[type | None] = None
    #: The base of the seat views (:class:`analyser.engine.derive.View`); a title subclasses it to
    #: add helpers (``def score(self): ...``), and the engine adds one attribute per state field.
    View: ClassVar[type] = derive.View
    #: The types of the title's actions that are not plain values (enums, named tuples), which
    #: the JSON of a saved trace is read back into.
    action_types: ClassVar[tuple[type, ...]] = ()
    #: Where a title loaded from a file or folder came from (its absolute ``path[:NAME]``; set by
    #: the registry), so worker processes can load it again; None for a registered title.
    source: str | None = None
    #: Rule options that name a file: made absolute before a run, so workers and the printed
    #: replay command find the file from any folder (and recorded with a hash in config.json).
    path_options: ClassVar[tuple[str, ...]] = ()
    #: How games are won and measured (:class:`Scoring`): the outcome, the units, the close-game
    #: margin and the rule options the findings name.
    scoring: ClassVar[Scoring] = Scoring()

    #: Per-seat metric columns (title figures) that ``metrics`` returns, in order.  Each is a
    #: :class:`Metric` naming its kind (a plain name means a finite number): together with the
    #: rule options this is the title's results schema, which ``analyser report`` validates.
    #: A title that lists :data:`TRACE_COLUMN` (``"score_trace"``, kind ``trace``) here records
    #: each seat's score after every step (see :func:`encode_trace`) and gets the drama figures
    #: of :mod:`analyser.stats.designer`; without it they read "not recorded".
    metric_columns: ClassVar[tuple[str, ...]] = ()
    #: Which title table each title plot illustrates, so the report shows it under that table:
    #: PNG file name (as ``plots_from`` writes it) -> the opening words of the table's caption
    #: (case ignored).  A plot not listed here goes in the report's "More plots" section.
    plot_sections: ClassVar[dict[str, str]] = {}
    #: Cases for ``analyser bench``: ``(label, strategy specs, players, games for the one-process
    #: figure, games for the whole-run figures)``.  Empty: one case with the default lineup.
    bench_cases: ClassVar[tuple[tuple[str, tuple[str, ...], int, int, int], ...]] = ()
    #: Whole games ``analyser bench --mcts`` plays per title (the search in seat 0).
    mcts_bench_games: ClassVar[int] = 2

    # -- forward model ------------------------------------------------------------------
    def check_players(self, params: Params, n_players: int) -> None:
        """Raise :class:`InputError` when ``n_players`` cannot play under ``params``: the player
        range, then ``params.check_players(n_players)`` (the rule options' own cross-field check).
        Called before a run starts."""
        if not self.min_players <= n_players <= self.max_players:
            raise InputError(f"--players {n_players} is not accepted for {self.id}; choose "
                             + (f"{self.min_players}" if self.min_players == self.max_players
                                else f"{self.min_players} to {self.max_players}"))
        params.check_players(n_players)

    def count_notes(self, params: Params, n_players: int) -> list[str]:
        """Rules that the player count switches on under ``params``, one short phrase each with
        its rule option (shown in the run's header line and the report), e.g. a two-player
        variant.  The default: none."""
        return []

    def report_notes(self, params: Params) -> list[str]:
        """Notes the report shows (as plain text, one paragraph each) above the title's own tables,
        e.g. that the built-in components under ``params`` are an unverified approximation and the
        rule option that replaces them.  The default: none."""
        return []


    def initial_state(self, params: Params, n_players: int, rng) -> Any:
        raise NotImplementedError(self._missing('initial_state'))

    def current_player(self, state) -> int:
        raise NotImplementedError(self._missing('current_player'))

    @property
    def live_views(self) -> bool:
        """True when ``view(state, seat)`` returns a live view that reads through to the state, so
        the game loop may build it once per seat and game instead of once per decision: the
        derived view is live; a title that writes its own live ``view`` sets ``live_views = True``."""
        return type(self).view is Game.view

    def turn(self, state) -> tuple[int, Sequence[Any]]:
        """``(current_player(state), legal_actions(state))`` in one call - the game loop asks
        this at every step, so a title may answer it more cheaply than the two calls."""
        return self.current_player(state), self.legal_actions(state)

    def legal_actions(self, state) -> Sequence[Any]:
        """Legal actions of the current player in a documented, deterministic order.

        Must return an empty sequence once the game is over: the game loop stops on it (and
        checks ``is_terminal`` then).
        """
        raise NotImplementedError(self._missing('legal_actions'))

    def apply(self, state, action, rng) -> None:
        raise NotImplementedError(self._missing('apply'))

    def is_terminal(self, state) -> bool:
        raise NotImplementedError(self._missing('is_terminal'))

    def scores(self, state) -> list[float]:
        raise NotImplementedError(self._missing('scores'))

    def winners(self, state) -> list[int]:
        """Seats that share the win (after the title's tie-break), ascending."""
        sc = self.scores(state)
        best = max(sc)
        return [i for i, s in enumerate(sc) if s == best]

    def tie_break_reason(self, state, scores: Sequence[float], winners: Sequence[int]) -> str:
        """Why ``winners`` won when the scores alone do not say it, in words for the ``analyser
        play`` trace ("" when the highest score decides, shared or not): seats tied on the top
        score that the title's tie-break separated.  The default names the tie and the rule
        options whose name mentions a tie (their value and help text), else "the title's
        tie-break (its winners())"; a title overrides it to give the figures that decided."""
        top = max(scores)
        tied = [i for i, s in enumerate(scores) if s == top]
        if sorted(winners) == tied:
            return ""
        params = getattr(state, "params", None)
        rules = [o for o in (self.Params.options() if params is not None else []) if "tie" in o["name"]]
        named = "; ".join(f"rule {o['name']}={getattr(params, o['name'])} ({o['doc']})" for o in rules)
        return f"{_seats(tied)} tied on {top:g} {self.scoring.score_unit}; " + (named or "the title's tie-break "
                                                                         "(its winners())")

    def ranks(self, state) -> list[int]:
        """Rank per seat, 1 = best; winners share rank 1, the rest are ranked by score after them
        (equal scores share a rank)."""
        return self.ranks_given(state, self.scores(state), self.winners(state))

    def ranks_given(self, state, scores: Sequence[float], winners: Sequence[int]) -> list[int]:
        """:meth:`ranks` from already computed ``scores`` and ``winners`` (the batch runner has
        them).  The default is :func:`ranks_from`; a title whose tie-break also orders the other
        seats overrides it."""
        return ranks_from(scores, winners)

    def view(self, state, seat: int) -> Any:
        """What ``seat`` may see.  Never hidden information of other seats or of the deck.
        Derived from the state's declaration (:func:`analyser.engine.derive.view`: a live view
        built on ``View``)."""
        return derive.view(state, seat, self.View)

    def metrics(self, state) -> list[dict[str, float]]:
        """Per-seat title figures (keys = ``metric_columns``), plus ``turns`` for game length."""
        raise NotImplementedError(self._missing('metrics'))

    def step_bound(self, params: Params, n_players: int) -> int | None:
        """The most actions a game can take under ``params`` with ``n_players`` (``analyser check``
        fails a game that goes on longer); None: no bound is declared, and the game loop's cap
        applies."""
        return None

    def resample_hidden(self, state, seat: int, rng):
        """A copy of ``state`` in which everything ``seat`` cannot see (the deck order, the other
        seats' hands, ...) is drawn again with ``rng``, and everything it can see is kept.

        ``analyser check`` asks it for each seat and requires the seat's view of the copy to equal
        its view of the original.  The copy must be a legal state (``check_invariants`` holds).
        Derived from the state's declaration (:func:`analyser.engine.derive.resample_hidden`); a
        title overrides it only where a rule constrains the hidden deal.
        """
        return derive.resample_hidden(state, seat, rng)

    def check_invariants(self, state) -> None:
        """Raise AssertionError when the state breaks a conservation law (cards, tiles).  Used by
        the conformance tests after every action; the default checks nothing."""

    #: Names of the extra tables ``extra_records`` produces (written as ``<name>.parquet``),
    #: ideally as :class:`ExtraTable` declaring their columns and what the report builds from them.
    extra_tables: ClassVar[tuple[str, ...]] = ()

    def results_schema(self) -> list[tuple[Metric, bool]]:
        """The results table this title writes and ``analyser report`` accepts, as
        ``[(column, required), ...]`` in column order: the key columns, one column per rule
        option (optional: a table built by hand may leave them out), the outcome columns and
        the title's metric columns.  ``players`` is bounded by the title's player range."""
        hints = typing.get_type_hints(self.Params)
        kinds = {bool: "flag", int: "whole", float: "number", str: "label"}
        out = []
        for col in KEY_COLUMNS:
            if col == "players":
                col = Metric("players", "count", low=self.min_players, high=self.max_players)
            out.append((col, col != "run_id"))
        for f in dataclasses.fields(self.Params):
            kind = kinds.get(hints.get(f.name, str), "label")
            # a text option may be empty ("" = the built-in data file), so text rule columns
            # only need to be text
            out.append((Metric(f.name, kind, missing=kind == "label"), False))
        out += [(c, True) for c in OUTCOME_COLUMNS]
        out += [(as_metric(c), True) for c in self.metric_columns]
        return out

    def _missing(self, method: str) -> str:
        """The message for a method every title writes that this one does not."""
        return f"{type(self).__name__} does not write {method}(), which every title writes"

    def check_declarations(self) -> None:
        """Raise :class:`InputError` when the title's declarations cannot work: a ``State`` that is
        not a dataclass, a rule option whose default its own declaration refuses, or a rule option
        with the name of a result column (a key, outcome or metric column: each option is a
        column of the results too).  Called before a run starts,
        by ``analyser play`` and by ``analyser check``."""
        if self.State is not None and not dataclasses.is_dataclass(self.State):
            raise InputError(f"{self.id}'s State, {self.State.__name__}, is not a dataclass; declare it with "
                             "@dataclass (a dataclass of plain values and components)")
        fault = self.Params.declaration_fault()
        if fault is not None:
            raise InputError(f"{self.id}: {fault}; the title's Params must accept its own defaults")
        taken = {str(c) for c in KEY_COLUMNS + OUTCOME_COLUMNS + tuple(self.metric_columns)}
        clash = [f.name for f in dataclasses.fields(self.Params) if f.name in taken]
        if clash:
            raise InputError(f"rule option {clash[0]!r} of {self.id} has the name of a result column; rename the "
                             f"option (the result columns are {', '.join(sorted(taken))})")

    def extra_records(self, state) -> dict[str, list[dict]]:
        """Extra tidy tables (name -> rows) a title writes beside results, e.g. one row per round
        of a trick-taking game.  Every name must be listed in ``extra_tables``."""
        return {}

    # -- search hooks (optional; see analyser.engine.search) ----------------------------------------
    def determinize(self, view, rng) -> Any:
        """A full state consistent with everything ``view`` shows: the public part and the seat's
        own hand exactly as in the view, every hidden part (deck order, other hands) sampled with
        ``rng`` (a ``random.Random``) from what the seat cannot rule out, sharing no mutable data
        with the view.  The hook that makes the generic ``mcts`` strategy work.  Derived from the
        state's declaration (:func:`analyser.engine.derive.determinize`: the unseen cards dealt
        again); a title overrides it where what a seat saw constrains the deal (a void suit)."""
        if self.State is None:
            raise NotImplementedError(f"{self.id} does not provide determinize(view, rng)")
        return derive.determinize(view, rng)

    @property
    def can_determinize(self) -> bool:
        """True when the title declares its state (``State``) or writes ``determinize``."""
        return self.State is not None or type(self).determinize is not Game.determinize

    #: Optional search speed-up: ``determinizer(view, stop_at_stage) -> sample``, where
    #: ``sample(rng)`` equals ``determinize(view, rng)`` and draws the same random numbers, with
    #: what does not depend on ``rng`` worked out once per decision (see
    #: :func:`analyser.engine.search.sampler`).  None: ``determinize`` is called each time.
    determinizer: ClassVar[Callable[..., Callable[[Any], Any]] | None] = None
    #: Optional: the compiled engine, ``"package.module:ENGINE"`` (loaded lazily; see
    #: :mod:`analyser.engine.compiled`).  None: the title plays on the Python engine only.
    compiled_engine: ClassVar[str | None] = None
    #: Optional: ``stage(state) -> int``, the round (or half) a state is in; ``mcts:horizon=round``
    #: ends its rollouts when it changes.  None: the title is one stage.
    stage: ClassVar[Callable[..., int] | None] = None
    #: Optional, with ``stage``: ``last_stage(params, n_players) -> int``, what ``stage()`` names
    #: in a game's last stage (a rollout from there can only end with the game, so the search
    #: stops checking ``stage()``).  None: the search checks at every step.
    last_stage: ClassVar[Callable[..., int] | None] = None
    #: Optional: ``score_range(params, n_players) -> (low, high)``, the range a final score
    #: usually lies in, which ``mcts:reward=score`` scales rewards by.  None: no declared range.
    score_range: ClassVar[Callable[..., tuple[float, float]] | None] = None

    # -- persistence (derived from ``State``) and display ---------------------------------
    def clone_state(self, state):
        """A copy of ``state`` sharing no mutable data (derived: :func:`analyser.engine.derive.clone`)."""
        return derive.clone(state)

    def state_to_dict(self, state) -> dict:
        """JSON data of ``state``: ``{"game": id, field: value, ...}`` (derived)."""
        return {"game": self.id, **derive.state_to_dict(state)}

    def state_from_dict(self, data: dict):
        """The state :meth:`state_to_dict` wrote (derived from ``State``'s annotations).  Raises
        :class:`InputError` naming the field when the data does not fit."""
        if self.State is None:
            raise NotImplementedError(f"{self.id} declares no State")
        if not isinstance(data, dict):
            raise InputError(f"not a {self.id} state: expected a JSON object")
        fields = {k: v for k, v in data.items() if k != "game"}
        try:
            return derive.from_fields(self.State, fields, "state")
        except (InputError, ValueError) as e:
            raise InputError(f"not a {self.id} state: {e}") from None

    def state_schema(self):
        """The title's saved-state schema: a pydantic model (subclass of
        :class:`analyser.io.states.StateModel`) that ``analyser play --state`` validates a state dict
        against *before* ``state_from_dict`` builds anything: every number within its range, every
        list within its length, one entry per seat.  ``None`` (the default) leaves the generic gates
        of :func:`analyser.io.states.load_state` and the typed decoding of ``state_from_dict``."""
        return None

    def action_to_json(self, action) -> Any:
        """JSON data of an action (derived: enums by value, a named tuple as ``{"type": name,
        field: value, ...}``, tuples as lists)."""
        if isinstance(action, tuple) and hasattr(action, "_fields"):
            return {"type": type(action).__name__, **{k: derive.encode(v) for k, v in zip(action._fields, action)}}
        return derive.encode(action)

    def action_from_json(self, data) -> Any:
        """The action :meth:`action_to_json` wrote, by the types in ``action_types``.  Raises
        :class:`InputError` when it names no action of the title, or names an enum action as
        ``{"type": ...}`` (the form of an older version of analyser)."""
        types = self.action_types
        if isinstance(data, dict):
            kind = next((t for t in types if t.__name__ == data.get("type")), None)
            if kind is None:
                raise InputError(f"unknown {self.id} action {data!r}; accepted types: "
                                 + ", ".join(t.__name__ for t in types))
            if not hasattr(kind, "_fields"):
                raise InputError(f"{self.id} action {data!r} was written by an older version of analyser, which "
                                 f"this one does not read; a {kind.__name__} action is written as its value alone "
                                 "(record it again)")
            return derive.decode(kind, [data.get(k) for k in kind._fields], "action")
        for kind in types:
            try:
                return derive.decode(kind, data, "action")
            except (InputError, TypeError):
                continue
        if types:
            raise InputError(f"unknown {self.id} action {data!r}")
        return tuple(data) if isinstance(data, list) else data

    def describe_action(self, action) -> str:
        return str(action)

    def describe_state(self, state) -> str:
        return repr(state)

    #: Printed once at the top of an ``analyser play`` trace: the notation ``describe_state`` uses.
    trace_legend: ClassVar[str] = ""

    def step_events(self, before, action, after) -> list[str]:
        """What ``action`` did, in words (a bust, a trick's winner, a ship sunk), for the
        ``analyser play`` trace and the ``events`` field of its ``--json`` lines.  ``before`` is a
        copy of the state before the action, ``after`` the state after it (and after any automatic
        steps that followed, up to the next decision).  Default: none."""
        return []

    # -- analysis hooks --------------------------------------------------------------------
    # A title's report figures are computed in two steps, so that a run of any size is reported
    # chunk by chunk without loading its whole table (:mod:`analyser.stats.streamed`):
    #
    # 1. ``figure_sums(results, extras)`` reduces one *chunk* - a results frame of whole games
    #    (every seat of each game it holds) and the extra tables' rows of the same games - to a
    #    dict of small *additive* frames (name -> DataFrame indexed by group keys, numeric
    #    columns: counts, sums, sums of squares).  Chunks are combined by
    #    :func:`analyser.stats.streamed.combine_sums`: frames of one name are added cell by cell
    #    (missing cells count 0); a column whose name ends in ``_max`` / ``_min`` is combined by
    #    max / min instead.
    # 2. ``figure_tables_from(sums)`` and ``plots_from(sums, outdir, strategies)`` turn the
    #    combined sums into tables and PNGs.
    #
    # ``figure_tables`` / ``plots`` on a whole in-memory frame are the two steps in one.

    def figure_sums(self, results, extras) -> dict[str, Any]:
        """Additive partial figures of one chunk of whole games (see above); ``{}`` for none."""
        return {}

    def figure_tables_from(self, sums: dict[str, Any]) -> list[tuple[str, Any]]:
        """Title tables (caption, DataFrame) from combined :meth:`figure_sums`."""
        return []

    def plots_from(self, sums: dict[str, Any], outdir, strategies: list[str]) -> list[tuple[str, str]]:
        """Title PNGs written to ``outdir`` from combined :meth:`figure_sums`: list of (file
        name, caption).  Strategy names reach it already made plot-safe
        (:func:`analyser.stats.plots.label`): ``strategies`` lists them in the run's order, and every
        index level named ``strategy`` in ``sums`` is mapped the same way - so a sums frame keeps
        the strategy as an index level named ``strategy``, never as column names.  Draw the names
        as given; colour them with ``plots.strategy_colours(strategies)``."""
        return []

    def figure_tables(self, results, extras) -> list[tuple[str, Any]]:
        """Title-specific summary tables (caption, DataFrame) for the terminal and the report,
        from a whole in-memory results frame."""
        return self.figure_tables_from(self.figure_sums(results, extras))

    def plots(self, results, extras, outdir) -> list[tuple[str, str]]:
        """Title-specific PNGs written to ``outdir``: list of (file name, caption), from a whole
        in-memory results frame."""
        s = results["strategy"]
        names = [str(x) for x in (s.cat.categories if hasattr(s, "cat") else dict.fromkeys(s))]
        return self.plots_from(self.figure_sums(results, extras), outdir, names)


#: The per-seat metric column that holds a seat's score trace (a list of numbers per row; see
#: :mod:`analyser.engine.traces`).
TRACE_COLUMN = "score_trace"


def _seats(seats: Sequence[int]) -> str:
    """``seat 2``, ``seats 1 and 2``, ``seats 0, 1 and 3``."""
    seats = list(seats)
    if len(seats) == 1:
        return f"seat {seats[0]}"
    return "seats " + ", ".join(map(str, seats[:-1])) + f" and {seats[-1]}"


def ranks_from(scores: Sequence[float], winners: Sequence[int]) -> list[int]:
    """Ranks (1 = best) from scores and the seats sharing the win: winners get 1; every other
    seat gets 1 + the number of winners + the number of non-winners with a higher score."""
    others = [s for i, s in enumerate(scores) if i not in winners]
    return [1 if i in winners else 1 + len(winners) + sum(t > s for t in others)
            for i, s in enumerate(scores)]


# --------------------------------------------------------------------------------------------
# Strategies
# --------------------------------------------------------------------------------------------

class Strategy:
    """Base class for strategies.

    Subclasses set ``name`` and ``game`` (a title id), take their parameters as keyword
    arguments of ``__init__`` with annotated types and defaults (that is what a spec string such
    as ``threshold:limit=9`` fills in), and document themselves in the class docstring (its first
    paragraph is shown by ``analyser list``).

    ``uses_rng = False`` tells the loop not to build a random stream for the strategy; ``choose``
    then receives ``rng=None``.

    ``reuse = True`` says that ``reset`` restores everything a game changes (or that nothing
    changes), so the batch loop may build one instance per seat for a whole batch and reset it
    before every game, instead of building a fresh one per game.  It counts only where the class
    sets it in its own body: a subclass that adds state must say so again.
    """

    name: ClassVar[str] = ""
    game: ClassVar[str | tuple[str, ...] | None] = None
    uses_rng: ClassVar[bool] = True
    reuse: ClassVar[bool] = False

    def reset(self, seat: int, params: Params, n_players: int) -> None:
        """Called once at the start of every game."""
        self.seat = seat
        self.params = params
        self.n_players = n_players

    def choose(self, view, legal: Sequence[Any], rng):
        raise NotImplementedError(f"{type(self).__name__} does not write choose(view, legal, rng), which every "
                                  "strategy writes")


class FunctionStrategy(Strategy):
    """Adapter: a plain function ``choose(view, legal, rng)`` used as a strategy."""

    def __init__(self, fn: Callable):
        self.fn = fn
        self.name = getattr(fn, "__name__", "function")

    def choose(self, view, legal, rng):
        return self.fn(view, legal, rng)
