"""The simulation loop and the joblib batch runner.

Reproducibility: a game depends on nothing but its *game seed* (drawn from the root seed and
the game index, :mod:`analyser.engine.seeding`), its seat lineup and the rules, so results are
identical for any ``--jobs``, batch size or backend, and ``analyser play ... --seed GAME_SEED``
replays any game of a run.

Inside a game the streams are standard-library ``random.Random`` instances (cheap scalar draws):

* chance (shuffles, dice): ``random.Random(game_seed)``;
* seat ``k``'s strategy: ``random.Random(f"{game_seed}/seat/{k}")``, built only for strategies
  with ``uses_rng = True``.

Every strategy therefore sees the same deals and dice in the same game index whatever sits in
the other seats (common random numbers), which makes paired comparisons precise.

Seat rotation (equal seats): with strategies ``S0..Sm-1`` (``m <= n``) and ``n`` seats, let
``g = gcd(m, n)`` and ``c = m / g``.  There are ``c`` *base lineups*: base lineup ``j`` seats
``S[(j * n + t) mod m]`` in position ``t`` - so the ``c`` of them, end to end, list every strategy
exactly ``n / g`` times, and when ``m`` does not divide ``n`` each strategy takes the extra seat(s)
in turn.  Games come in blocks of ``n``: block ``b`` uses base lineup ``b mod c`` in an order
``P_b`` (the identity for the first block, then a fixed shuffle per block) and game
``i = b * n + r`` seats ``base[P_b[(s + r) mod n]]`` in seat ``s``.  So over every ``c`` blocks
(``n * c`` games) each strategy plays the same number of player-games, ``n * n / g``, and sits in
every seat equally often (``n / g`` times); and because the order changes from block to block no
strategy always sits right after the same opponent (a plain rotation would keep every neighbour
fixed, and the seat after a weak player is a better seat).  When ``m`` divides ``n`` (``c = 1``)
there is one base lineup, ``S[t mod m]``.  :func:`lineup_block` gives the block of games, ``n * c``.

A seat with a single legal action plays it without consulting its strategy.

A batch (:func:`run_batch`) resolves the title, the rules and the strategies once, keeps one
instance per seat of each strategy that declares ``reuse``, and records column by column
(:class:`analyser.engine.batchrecords.BatchRecords`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import multiprocessing
import os
import random
import signal
import sys
import time
from pathlib import Path
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable, Sequence

from analyser.engine.batchrecords import (ROW_FIELDS, BatchRecords, as_columns, drop_from, finish_columns,  # noqa: F401
                                          to_columns)  # (re-exported)
from analyser.engine.componenttable import component_columns, component_rows, unpack  # noqa: F401  (re-exported)
from analyser.engine import compiled, timelimit, traces
from analyser.engine.core import FunctionStrategy, Game, InputError, StrategyError, strategy_frame
from analyser.engine.errors import GameFailure  # noqa: F401 (imported from here too)
from analyser.engine.registry import get_game, parse_spec, strategy_factory
from analyser.engine.seeding import game_seed, game_seeds  # noqa: F401 (imported from here too)

#: Safety cap on decisions in one game; a game beyond it is reported as a rules failure.
MAX_STEPS = 200_000

#: Stops (Ctrl-C, SIGTERM) this process has received, as :mod:`analyser.run.backends` notes them
#: (:func:`note_stop`).  A batch played in this process ends at the next game boundary once one
#: arrives, with the games finished so far, even when the raise the stop sent was swallowed by
#: code inside the game (a library, or a strategy, that catches everything).
_stops = [0]


def note_stop() -> None:
    """Count a stop signal: a batch running in this process ends after its current game."""
    _stops[0] += 1


@lru_cache(maxsize=4096)
def block_order(block: int, n_players: int) -> tuple[int, ...]:
    """The order of the base lineup used by block ``block`` of ``n_players`` games: the identity
    for block 0, then a shuffle seeded by the block number alone (so every run, whatever its
    seed, seats the same lineups)."""
    order = list(range(n_players))
    if block:
        random.Random(f"analyser-lineup/{n_players}/{block}").shuffle(order)
    return tuple(order)


def lineup_block(n_players: int, n_strategies: int) -> int:
    """The games after which every strategy has played equally often in every seat:
    ``n * m / gcd(m, n)`` (``n`` when ``m`` divides ``n``)."""
    return n_players * (max(1, n_strategies) // math.gcd(max(1, n_strategies), n_players))


def lineup(index: int, n_players: int, n_strategies: int) -> list[int]:
    """Strategy index sitting in each seat of game ``index`` (see the module docstring).  A pure
    function of its arguments: the same game always seats the same lineup."""
    if n_strategies == 1:  # one strategy fills every seat, whatever the order
        return [0] * n_players
    block, shift = divmod(index, n_players)
    order = block_order(block, n_players)
    base = (block % (n_strategies // math.gcd(n_strategies, n_players))) * n_players
    return [(base + order[(s + shift) % n_players]) % n_strategies for s in range(n_players)]


def check_deal(game, params, players: int) -> None:
    """Deal one game (a fixed seed) before any game is played, so that rule options that cannot
    start a game at this player count are one line (:class:`InputError`), not a failed run."""
    try:
        game.initial_state(params, players, random.Random(0))
    except InputError:
        raise
    except Exception as e:  # the title's rules refused the deal: say which options and count
        rules = ", ".join(f"{k}={v}" for k, v in params.as_dict().items())
        raise InputError(f"--players {players} with the rules {rules} cannot start a game of "
                         f"{game.id}: {type(e).__name__}: {e}") from None


def play_game(game: Game, params, strategies: Sequence[Any], labels: Sequence[str], seed: int,
              on_step: Callable | None = None, state=None):
    """Play one game to the end and return the final state.

    ``strategies[s]`` plays seat ``s``; ``labels[s]`` is its spec (used in error messages);
    ``seed`` is the game seed.  ``on_step(state, seat, action)`` is called before each action is
    applied (used by ``analyser play``).  ``state`` continues a saved game instead of dealing anew.

    Raises :class:`StrategyError` when a strategy raises, returns an illegal action or hangs, and
    :class:`GameFailure` when the rules fail.
    """
    n = len(strategies)
    chance = random.Random(seed)
    if state is None:
        state = game.initial_state(params, n, chance)
    seat_rngs = [random.Random(f"{seed}/seat/{k}") if getattr(st, "uses_rng", True) else None
                 for k, st in enumerate(strategies)]
    for k, st in enumerate(strategies):
        reset = getattr(st, "reset", None)
        if reset is not None:
            try:
                reset(k, params, n)
            except Exception as e:
                where, details = strategy_frame(e, st)
                raise StrategyError(f"strategy {labels[k]!r} in seat {k} raised in reset: "
                                    f"{type(e).__name__}: {e}{where}", strategy=labels[k], seat=k,
                                    game_seed=seed, details=details) from None
    turn, apply, view = game.turn, game.apply, game.view
    # A title with live views (one view object per seat that reads through to the state) lets the
    # loop build the views once per game instead of once per decision.
    live = getattr(game, "live_views", False)
    seats = [(st.choose, view(state, k) if live else None, seat_rngs[k]) for k, st in enumerate(strategies)]
    for _ in range(MAX_STEPS):  # a bounded loop: a game that never ends is a rules failure
        seat, legal = turn(state)
        if len(legal) > 1:  # (the usual case first)
            choose, seat_view, seat_rng = seats[seat]
            try:
                action = choose(seat_view if live else view(state, seat), legal, seat_rng)
            except timelimit.Hang:
                raise StrategyError(f"strategy {labels[seat]!r} in seat {seat} did not answer in time",
                                    strategy=labels[seat], seat=seat, game_seed=seed, kind="hung") from None
            except (Exception, SystemExit) as e:
                where, details = strategy_frame(e, strategies[seat])
                raise StrategyError(f"strategy {labels[seat]!r} in seat {seat} raised "
                                    f"{type(e).__name__}: {e}{where}", strategy=labels[seat], seat=seat,
                                    game_seed=seed, details=details) from None
            try:
                # the legal action itself, not a look-alike that only compares equal to it
                action = legal[legal.index(action)]
            except Exception:
                shown = ", ".join(game.describe_action(a) for a in list(legal)[:12])
                raise StrategyError(f"strategy {labels[seat]!r} in seat {seat} returned the illegal action "
                                    f"{action!r}; legal were: {shown}", strategy=labels[seat], seat=seat,
                                    game_seed=seed, kind="illegal") from None
        elif legal:  # one legal action: played without asking the strategy
            action = legal[0]
        else:
            break
        if on_step is not None:
            on_step(state, seat, action)
        try:
            apply(state, action, chance)
        except timelimit.Hang:
            raise GameFailure(f"game with seed {seed} ran past its time limit in the rules", seed) from None
        except Exception as e:
            raise GameFailure(f"the rules failed with {type(e).__name__}: {e} after seat {seat} "
                              f"({labels[seat]}) played {game.describe_action(action)}; a strategy that "
                              "changes its view can cause this", seed) from None
    else:
        raise GameFailure(f"game with seed {seed} did not end within {MAX_STEPS} actions", seed)
    if not game.is_terminal(state):
        raise GameFailure(f"game with seed {seed}: no legal action but the game is not over", seed)
    return state


# --------------------------------------------------------------------------------------------
# Batches
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class BatchJob:
    """A picklable slice of a run: games ``start`` to ``stop - 1``."""

    game: str
    rules: tuple[tuple[str, str], ...]
    strategies: tuple[str, ...]
    players: int
    root_seed: int
    start: int
    stop: int
    game_timeout: float
    #: ``python`` or ``compiled``: the title's compiled kernel plays the batch (:mod:`analyser.engine.compiled`).
    engine: str = "python"
    #: ``((path as the job names it, path on this worker), ...)``: where the worker that plays the
    #: job finds a title file or folder or a strategy file it names (a Dask worker: the copy Dask
    #: uploaded, :mod:`analyser.run.cluster`); results still name them as the job does.
    local: tuple[tuple[str, str], ...] = ()


def local_ref(job: BatchJob, text: str) -> str:
    """``text`` (the job's title reference or one of its strategy specs) with the file it names
    replaced by this worker's copy of it (``job.local``), the rest (``:NAME``, parameters) kept."""
    for written, here in job.local:
        if text == written or text.startswith(written + ":"):
            return here + text[len(written):]
    return text


@dataclass
class BatchResult:
    """The finished games of a batch, the extra tables, and the error or interruption that
    stopped it early, if any.

    ``rows`` collects one tuple per (game, seat) in ``ROW_FIELDS`` + metric order while the batch
    runs; at the end they are turned into ``columns`` (column name -> numpy array), which travel
    between processes far faster than a list of tuples, and ``rows`` is emptied.  Likewise
    ``extras`` collects each extra table's rows as dicts, and at the end a table whose rows all
    have the same keys becomes ``{key: list of values}`` (one dict instead of one per row: a
    fraction of the pickling, and of the work for the process that builds the frame).
    """

    start: int
    rows: list[tuple]
    columns: dict[str, Any] | None = None
    extras: dict[str, list[dict] | dict[str, list]] = field(default_factory=dict)
    #: The components table of the batch (:func:`component_columns`), None when the title records none.
    components: dict[str, Any] | None = None
    done: int = 0
    error: BaseException | None = None
    interrupted: bool = False
    seconds: float = 0.0
    #: What the batch is recording while it runs (:class:`BatchRecords`); None once
    #: :func:`finish_columns` has made ``columns`` of it (always, by the time the batch returns).
    records: Any = None
    #: A packed batch (:func:`analyser.run.packing.pack`, in the worker): table name -> the bytes of
    #: its Parquet part, the columns above dropped; None when not packed.
    parts: dict[str, bytes] | None = None
    #: A packed batch that is one whole chunk of the report: its sums
    #: (:func:`analyser.report.reduce.table_pieces`); None otherwise.
    pieces: Any = None


@contextlib.contextmanager
def time_limit(seconds: float, game_seed: int):
    """Play one game in this process (``analyser play``) under the wall-clock limit ``seconds``
    (0: none): a strategy still deciding at the limit raises :class:`StrategyError`
    (``kind="hung"``) from :func:`play_game`; the rules, or a strategy's ``reset``, at the limit:
    :class:`GameFailure`.  A game still running :func:`timelimit.grace` seconds later (a strategy
    that swallows the alarm) ends the process: one line on standard error, exit code 1."""
    def give_up():
        print(f"analyser: error: the game ran past its time limit of {seconds:g} s (--game-timeout) and a "
              f"strategy ignored the stop (game seed {game_seed}); the process was stopped", file=sys.stderr,
              flush=True)
        os._exit(1)

    with timelimit.alarm(seconds, give_up):
        try:
            yield
        except timelimit.Hang:
            raise GameFailure(f"the game ran past its time limit of {seconds:g} s outside a strategy's "
                              "decision", game_seed) from None


def hung_error(job: BatchJob, index: int) -> StrategyError:
    """The error of game ``index`` of ``job``, whose process was killed at its time limit."""
    labels = [job.strategies[si] for si in lineup(index, job.players, len(job.strategies))]
    who = ", ".join(f"seat {i} {s}" for i, s in enumerate(labels))
    return StrategyError(f"a strategy ({who}) did not stop at the time limit and ignored the "
                         "stop signal; the watchdog killed it", strategy=labels[0], seat=-1,
                         game_seed=game_seed(job.root_seed, index), game_index=index, kind="hung")


@contextlib.contextmanager
def pool_worker_signals():
    """Signals of a loky worker process around one batch (elsewhere: nothing changes).

    SIGTERM is ignored: `timeout`, systemd and the like signal a whole process group, and a
    worker ended while it writes a batch's result into the pool's pipe leaves half a message
    there, on which the pool's manager thread then waits for ever.  The run's own process takes
    the SIGTERM and ends its workers itself.  SIGINT (a terminal's Ctrl-C reaches the whole
    group) raises KeyboardInterrupt only while the batch plays, which hands back its finished
    games; between batches it is ignored, where it would kill the idle worker with a traceback
    or tear the result it is sending."""
    if not multiprocessing.current_process().name.startswith("LokyProcess"):
        yield
        return
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def run_batch(job: BatchJob) -> BatchResult:
    """Play the games of one batch.  Never raises for a strategy failure or Ctrl-C: the result
    carries the rows of the games that finished and the error.

    Anything a strategy prints goes to standard error, so it never mixes into the command's own
    output.  With ``game_timeout`` the games play in a child process whose parent stops a game
    that runs past it (:mod:`analyser.engine.timelimit`): the batch ends there, with the games
    before it and :class:`StrategyError` (``kind="hung"``).  With ``job.engine == "compiled"`` the
    title's compiled kernel plays the batch (:mod:`analyser.engine.compiled`), with the same
    result.  In a loky worker, :func:`pool_worker_signals` holds."""
    with pool_worker_signals():
        return _play_batch(job)


def _play_batch(job: BatchJob) -> BatchResult:
    if job.engine == "compiled":
        played = compiled.run_batch(job, local_ref(job, job.game))
        if played is not None:
            return played
        job = dataclasses.replace(job, engine="python")  # (no kernel here: Python plays the same games)
    if not job.game_timeout:
        return _play_here(job)
    try:
        result, hung = timelimit.supervised(job, _play_here)
    except KeyboardInterrupt:  # (stopped, and the child handed nothing over)
        result = _play_here(dataclasses.replace(job, stop=job.start))
        result.interrupted = True
        return result
    if hung is None:
        return result
    # the child was killed in game `hung`: the games before it are played again (each depends on
    # nothing but its seed and lineup), and the hung game is the batch's error
    before = dataclasses.replace(job, stop=hung)
    result = _play_batch(before) if hung > job.start else _play_here(before)
    if result.error is None:
        result.error = hung_error(job, hung)
    return result


def _play_here(job: BatchJob) -> BatchResult:
    """The games of ``job``, played in this process (a strategy's prints go to standard error)."""
    with contextlib.redirect_stdout(sys.stderr):
        return _run_batch(job)


#: Strategy factories this process built, for the batches that follow (see :func:`_factory`).
_FACTORIES: dict[tuple, Callable] = {}


def _factory(text: str, title: str) -> Callable:
    """:func:`analyser.engine.registry.strategy_factory` of ``text``, kept for the next batches of this
    process: resolving a spec scans the installed packages' entry points, which costs more than
    a short batch.  A strategy file is looked up again once its size or modification time
    changes."""
    source = parse_spec(text).source
    stamp = None
    if source.endswith(".py"):
        try:
            st = os.stat(Path(source).expanduser())
        except OSError:  # (strategy_factory says what is wrong)
            return strategy_factory(text, title)
        stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
    key = (text, title, stamp)
    made = _FACTORIES.get(key)
    if made is None:
        made = strategy_factory(text, title)
        if len(_FACTORIES) >= 256:
            _FACTORIES.clear()
        _FACTORIES[key] = made
    return made


def _reusable(strategy) -> bool:
    """Whether one instance of ``strategy`` may play a whole batch (reset every game): its class
    says so itself (``reuse = True`` in its own body, not inherited, since a subclass may add
    state that ``reset`` does not restore), or it wraps a plain function."""
    cls = type(strategy)
    return cls.__dict__.get("reuse") is True or cls is FunctionStrategy


def _run_batch(job: BatchJob) -> BatchResult:
    t0 = time.perf_counter()
    title = local_ref(job, job.game)
    game = get_game(title)
    params = game.Params.from_overrides(dict(job.rules))
    n = job.players
    m = len(job.strategies)
    specs = [local_ref(job, text) for text in job.strategies]
    result = BatchResult(start=job.start, rows=[])
    rec = result.records = BatchRecords(game, n, job.start)
    add_strategy, add_score, add_rank = rec.strategy.extend, rec.score.extend, rec.rank.extend
    add_win, add_metrics, add_seed = rec.win.extend, rec.metrics.extend, rec.seeds.append
    metric_values = rec.metric_values
    scores_of, winners_of, ranks_of, metrics_of = game.scores, game.winners, game.ranks_given, game.metrics
    wants_extras = type(game).extra_records is not Game.extra_records
    # components (Game.components): every id of the batch in one flat list, and how many each
    # (game, seat) added - turned into the long table in bulk at the end of the batch
    comp_of = game.components if game.records_components else None
    add_ids, add_len = rec.comp_ids.extend, rec.comp_lens.append
    index = job.start
    started = timelimit.game_started
    stops = _stops[0]
    try:
        # loading a strategy builds it once: that has a game's time of its own
        gs = game_seed(job.root_seed, index)
        started(index)
        factories = []
        for si, text in enumerate(specs):
            try:
                factories.append(_factory(text, title))
            except timelimit.Hang:
                raise StrategyError(f"strategy {job.strategies[si]!r} did not start in time",
                                    strategy=job.strategies[si], seat=si, game_seed=gs,
                                    kind="hung") from None
        seeds = game_seeds(job.root_seed, job.start, job.stop)
        pool: dict[int, Any] = {}  # si * n + seat -> the instance that plays every game there
        lineups: dict[tuple, tuple] = {}  # lineup -> (labels, strategies when all are pooled)
        for index in range(job.start, job.stop):
            gs = seeds[index - job.start]
            seats = lineup(index, n, m)
            known = lineups.get(key := tuple(seats))
            labels = known[0] if known else tuple(job.strategies[si] for si in seats)
            started(index)  # (building the strategies counts towards the game's time)
            strats = known[1] if known else None
            if strats is None:
                strats = []
                for s, si in enumerate(seats):
                    st = pool.get(si * n + s)
                    if st is None:
                        try:
                            st = factories[si]()
                        except timelimit.Hang:
                            raise StrategyError(f"strategy {job.strategies[si]!r} in seat {s} did not start in "
                                                "time", strategy=job.strategies[si], seat=s, game_seed=gs,
                                                kind="hung") from None
                        except Exception as e:
                            raise StrategyError(f"strategy {job.strategies[si]!r} in seat {s} failed to start: "
                                                f"{type(e).__name__}: {e}", strategy=job.strategies[si], seat=s,
                                                game_seed=gs, kind="init") from None
                        if _reusable(st):
                            pool[si * n + s] = st
                    strats.append(st)
                pooled = all(si * n + s in pool for s, si in enumerate(seats))
                lineups[key] = (labels, strats if pooled else None)
            state = play_game(game, params, strats, labels, gs)
            scores = scores_of(state)
            winners = winners_of(state)
            ranks = ranks_of(state, scores, winners)
            metrics = metrics_of(state)
            held = comp_of(state) if comp_of is not None else ()
            share = 1.0 / len(winners)
            win = [share if s in winners else 0.0 for s in range(n)]
            values = list(map(metric_values, metrics))
            if len(values) != n or len(scores) != n or len(ranks) != n:  # (a title's bug: as many as seats)
                scores, ranks, values = ([x[s] for s in range(n)] for x in (scores, ranks, values))
            # every column of the game, then the game counts (a stop in between is trimmed)
            add_seed(gs)
            add_strategy(seats)
            add_score(scores)
            add_rank(ranks)
            add_win(win)
            add_metrics(values)
            for ids in held:
                add_ids(ids)
                add_len(len(ids))
            if wants_extras:
                for name, recs in game.extra_records(state).items():
                    bucket = result.extras.setdefault(name, [])
                    for r in recs:
                        r["game_index"] = index
                        bucket.append(r)
            result.done += 1
            if _stops[0] != stops:  # a stop whose raise was swallowed inside the game: end here
                raise KeyboardInterrupt
    except StrategyError as e:
        e.game_index = index
        result.error = e
    except GameFailure as e:
        e.game_index = index
        result.error = e
    except KeyboardInterrupt:
        result.interrupted = True
    except timelimit.Hang:
        result.error = GameFailure(f"game {index} ran past its time limit", game_seed(job.root_seed, index), index)
    except Exception as e:  # scoring or metrics failed: report it with the game, keep the rest
        result.error = GameFailure(f"game {index} failed after play: {type(e).__name__}: {e}",
                                   game_seed(job.root_seed, index), index)
    finally:
        timelimit.games_over()
    finish_columns(result, game, job)
    result.seconds = time.perf_counter() - t0
    return result


def automatic_size(games: int, jobs: int, per_job: int = 8, most: int = 2000) -> int:
    """The size of batches that split ``games`` games into about ``per_job`` batches per worker,
    20 to ``most`` games each."""
    return max(20, min(most, math.ceil(games / (max(1, jobs) * per_job))))


def plan_batches(games: int, jobs: int, batch_size: int | None = None, start: int = 0) -> list[tuple[int, int]]:
    """Split games ``start`` to ``games - 1`` into ``(start, stop)`` slices of ``batch_size`` games,
    or of :func:`automatic_size` when none is given."""
    if batch_size is None:
        batch_size = automatic_size(games - start, jobs)
    return [(a, min(a + batch_size, games)) for a in range(start, games, batch_size)]


def resolve_jobs(jobs: int | None) -> int:
    """``None`` or 0 means every core; a negative count, or more than 4 per core, is rejected."""
    if jobs is None or jobs == 0:
        return os.cpu_count() or 1
    cores = os.cpu_count() or 1
    if not 0 < jobs <= 4 * cores:
        raise InputError(f"--jobs {jobs} is not accepted; give 1 to {4 * cores} workers (this machine has "
                         f"{cores} cores), or 0 for all cores")
    return jobs
