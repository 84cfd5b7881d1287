"""Executing a run: play a :class:`~analyser.run.spec.RunSpec` batch by batch, write each finished
batch at once, resume a run from the parts on disk, and return a :class:`RunResult`.

The execution loop times a pilot batch, plans the batches, hands them to a backend
(:mod:`analyser.run.backends`) and gives each result to the sink (:mod:`analyser.run.sink`);
whatever stops the run, the finished games are kept and ``config.json`` says why it stopped.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import os
import sys
import time
import types
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import pandas as pd

from analyser.engine import compiled
from analyser.engine.core import InputError
from analyser.engine.registry import get_game, title_ref
from analyser.run import stops, store
from analyser.run.backends import dispatch_batches
from analyser.run.cluster import client_address, close_dask, dask_client, dask_slots, pool_client
from analyser.run.folders import missing_games, prepare_out, read_config
from analyser.run.read import load_results
from analyser.run.packing import ChunkSums, KnownChunks, Packing, chunk_sums, play_packed
from analyser.run.sink import Sink, batch_tables, tables_to_frame, write_csv
from analyser.run.spec import RunSpec, data_file_record, new_run_id, package_versions, resolve, spec_from_config
from analyser.run.trust import Allowed, guard_folder_config, strategy_files, trust_file
from analyser.engine.runner import BatchJob, BatchResult, automatic_size, plan_batches, run_batch


#: Keys of a run's config.json that the layers above a run own (the stopping rule's record): a
#: resumed or extended run keeps them.
CARRIED = ("stopping",)
#: Games played in-process first when ``--jobs`` is automatic, to time the run.
PILOT_GAMES = 50
#: Estimated seconds below which an automatic run does not start worker processes.
SMALL_RUN_SECONDS = 2.0


class RunResult:
    """A finished (or stopped) run: the config record, the error or interruption that stopped it,
    and its tables.

    ``out`` is the run folder when the run was written to disk; its Parquet parts are then the
    results, and ``results`` / ``extras`` read them on first use (in game order, sorted by
    ``(game_index, seat)``).  That is the documented way to get the frame of a small run; a large
    run is better read a few columns at a time (:func:`load_results` with ``columns``, or
    :func:`analyser.run.store.iter_tables`).  A run without ``out`` keeps its rows in memory.
    """

    def __init__(self, results: pd.DataFrame | None = None, extras: dict | None = None,
                 config: dict | None = None, error: BaseException | None = None, interrupted: bool = False,
                 out: Path | None = None, tables: dict | None = None):
        self._results = results
        self._extras = extras
        self._tables = tables  # name -> [arrow tables] of a run kept in memory
        self.config = config or {}
        self.error = error
        self.interrupted = interrupted
        self.out = out
        #: a second Ctrl-C or SIGTERM arrived while the run was being written; skip the report
        self.stop_requested = False
        #: the sums of the chunks the workers reduced (:class:`analyser.run.packing.KnownChunks`), or None
        self.known = None

    def _load(self):
        if self._tables is not None:
            self._results = tables_to_frame(self._tables.get(store.RESULTS, []))
            self._extras = {k: tables_to_frame(v) for k, v in self._tables.items()
                            if k != store.RESULTS and v}
        elif self.out is not None and (self.out / store.RESULTS).is_dir():
            self._results, self._extras, _ = load_results(self.out)
        else:
            self._results, self._extras = pd.DataFrame(), {}

    @property
    def results(self) -> pd.DataFrame:
        """The tidy results frame (one row per game and seat)."""
        if self._results is None:
            self._load()
        return self._results

    @property
    def extras(self) -> dict[str, pd.DataFrame]:
        """The title's extra tables (e.g. a per-round table), by name."""
        if self._extras is None:
            self._load()
        return self._extras


def _scan_done(out: Path, game) -> dict[int, tuple[int, int]]:
    """The batches of a run folder that are complete on disk: a readable results part whose extra
    parts are there too.  Temporary files, unreadable parts and orphan extra parts are deleted (a
    resumed run redoes them)."""
    done = store.scan_parts(out / store.RESULTS, clean=True)
    extras = {name: store.scan_parts(out / name, clean=True) for name in game.extra_tables
              if (out / name).is_dir()}
    for start, rng in list(done.items()):
        if any(ex.get(start) != rng for name, ex in extras.items()) and game.extra_tables and extras:
            (out / store.RESULTS / store.part_name(start)).unlink(missing_ok=True)
            del done[start]
    for name, ex in extras.items():
        for start in ex:
            if start not in done:
                (out / name / store.part_name(start)).unlink(missing_ok=True)
    return done


#: The run locks kept past their runs' end (:func:`locks_kept`), or None outside such a block.
_KEPT: contextvars.ContextVar = contextvars.ContextVar("analyser_kept_locks", default=None)


@contextlib.contextmanager
def locks_kept():
    """Within the block, a run that ends keeps its folder's lock (:class:`analyser.run.store.RunLock`)
    until the block ends, and a later run into the same folder re-enters it: a command that writes
    the run's report after its games holds the folder throughout, so no other command replaces it
    while the report reads its parts.  Usable as a decorator."""
    kept: list = []
    token = _KEPT.set(kept)
    try:
        yield
    finally:
        _KEPT.reset(token)
        for lock in reversed(kept):
            lock.release()


def run(spec: RunSpec, *, progress: bool | None = None, command: str | None = None,
        out: str | Path | None = None, resume: bool | str = False, record: dict | None = None, on_part=None,
        sums: ChunkSums | None = None) -> RunResult:
    """Play a run: the one primitive every experiment is built from.

    With ``out``, each finished batch is written at once as ``out/results/part-<first game>.parquet``
    (and the title's extra tables likewise), ``config.json`` is rewritten after each part with the
    status and the games done, and a lock file keeps a second run out of the folder (InputError).
    Memory stays bounded whatever ``spec.games``.  ``resume=True`` continues the run recorded in
    ``out`` (see :func:`resume`) and plays only the games of ``range(spec.first_game, spec.games)``
    it lacks; it may also extend a complete run to a larger ``spec.games`` (a round of the stopping
    rule: the run keeps its id, and ``resumed`` records only the resumptions of an unfinished run,
    or of a complete one whose games on disk fall short of its record).  ``resume="round"``
    continues it with a planned next round of the stopping rule, which is no resumption.
    ``record``: the stopping rule's record (``{"stopping": ...}``, see :data:`CARRIED`) to write
    in ``config.json`` with the run's own fields.
    The caller gives the same spec as the folder's (:func:`resume` reads it from ``config.json``).
    Without ``out`` the rows stay in memory (for small runs and tests).

    Never loses finished games: a strategy failure, a dead worker, a full disk, Ctrl-C or SIGTERM
    stop the run; the result (and ``config.json``) carries the status (``complete``,
    ``interrupted`` or ``failed``), the games done and the error.

    ``progress``: ``None`` shows a bar (games, games/s, ETA) on a terminal once the run has taken
    a few seconds; ``False`` never.

    ``on_part(start, stop, table)``: called in this process with each batch's results as the
    arrow table just written (games ``start`` to ``stop - 1``), so a caller that analyses the run
    (an experiment) needs not read its parts back.

    ``sums``: with ``out``, the workers reduce each batch that is a whole chunk of games
    (:class:`analyser.run.packing.ChunkSums`); the result's ``known`` holds those sums
    (:class:`analyser.run.packing.KnownChunks`) for a report that needs not read them back.
    """
    signals = stops.count()  # (a Ctrl-C whose raise a library swallowed still ends the run as interrupted)
    game, params, players, jobs, seed = resolve(spec)
    _trust_run_files(game, spec)
    out = Path(out) if out is not None else None
    if out is not None and not resume:
        out = prepare_out(out)
    # one client for the whole command when an experiment opened one (command_pool), else this run's own
    shared = pool_client()
    client = shared if shared is not None else dask_client(spec) if spec.backend == "dask" else None
    lock = store.RunLock(out) if out is not None else None
    play = _Play(spec, game, params, players, jobs, seed, client=client, progress=progress, on_part=on_part,
                 sums=sums, signals=signals)
    try:  # (the lock taken inside: a Ctrl-C between taking it and this try left it behind)
        if lock is not None:
            lock.acquire()
        # a complete run may be extended to more games (a round of the stopping rule)
        previous = _previous_run(out, play) if (resume and out is not None) else None
        done = _scan_done(out, game) if previous else {}
        play.run_id = previous["run_id"] if previous else new_run_id(game.id, seed)
        config = _new_config(play, command, done, _choose_engine(play), shared)
        if previous:
            _carry(config, previous, out, command, planned=resume == "round")
        for key in CARRIED:
            if record and key in record:
                config[key] = record[key]
        play.sink = Sink(out, config, done)
        with stops.held():
            play.sink.save()
        with stops.handled(once=True):  # (the first stop ends the run; later ones wait for its final write)
            return _execute(play)
    finally:
        if lock is not None:
            kept = _KEPT.get()
            if kept is not None and lock.fd is not None:
                kept.append(lock)
            else:
                lock.release()
        if client is not None and client is not shared:
            close_dask(client)


@dataclass
class _Play:
    """A run being played, as its steps share it: the spec and what resolving it gave, its
    ``run_id``, where its batches go (``client``: a Dask client, or None for this machine), the
    ``engine``, the ``sink`` writing its parts, what the caller asked for (``progress``,
    ``on_part``, ``sums``), the stops counted when it began (``signals``), and while it plays
    its progress ``bar`` and start time."""

    spec: RunSpec
    game: object
    params: object
    players: int
    jobs: int
    seed: int
    run_id: str = ""
    client: object = None
    engine: str = "python"
    sink: Sink | None = None
    progress: bool | None = None
    on_part: object = None
    sums: ChunkSums | None = None
    signals: int | None = None
    bar: object = None
    t0: float = 0.0
    wall_before: float = 0.0

    @property
    def strategies(self) -> tuple:
        return tuple(self.spec.strategies)

    def job(self, a: int, b: int) -> BatchJob:
        """The batch of games ``a`` to ``b - 1``."""
        return BatchJob(title_ref(self.game), tuple(sorted(self.spec.rules.items())), self.strategies, self.players,
                        self.seed, a, b, self.spec.game_timeout,
                        engine=self.engine)

    def keep(self, res: BatchResult) -> None:
        """Write a finished batch (its parts, and its chunk sums), and hand it to ``on_part``."""
        # a packed batch (analyser.run.packing) brings its parts encoded; else they are made here
        tables = res.parts
        if tables is None:  # played in this process (or a batch not packed): made here
            tables = batch_tables(self.game, self.params, self.players, self.strategies, res, self.run_id)
            if res.pieces is None and self.sink.out is not None:
                res.pieces = chunk_sums(Packing(self.run_id, _order(self.strategies), self.sums), self.game, res,
                                        tables)
        with stops.held():
            self.sink.add(res.start, res.start + res.done, tables)
        if res.pieces is not None:
            self.sink.pieces[res.start] = (res.start + res.done, res.pieces)
        if self.on_part is not None and res.done > 0:
            self.on_part(res.start, res.start + res.done, store.part_table(tables[store.RESULTS]))
        self.bar.update(res.done)

    def finish(self, error, interrupted: bool) -> None:
        """Write the final record: the wall time, the status and the error."""
        config = self.sink.config
        config["wall_seconds"] = round(self.wall_before + time.perf_counter() - self.t0, 3)
        complete = config["games_completed"] >= config["games_requested"] - config.get("first_game", 0)
        config["status"] = ("failed" if error is not None else "interrupted" if interrupted or not complete
                            else "complete")
        config["error"] = str(error) if error is not None else None
        config.pop("pid", None)
        self.sink.save()


def _trust_run_files(game, spec: RunSpec) -> None:
    """The user ran these files (resolving the spec loaded them): this run's folder may name them
    to this process."""
    if getattr(game, "source", None):
        trust_file(game.source)
    for text in spec.strategies:
        for path in strategy_files(text):
            trust_file(path)


def _previous_run(out: Path, play: _Play) -> dict | None:
    """The record of the run in ``out`` to continue (None when there is none); InputError when it
    is another run."""
    previous = read_config(out, complete_ok=True)
    if previous:
        _check_title(out, previous, play.game)
    if previous and (previous.get("seed") != play.seed or previous.get("players") != play.players
                     or list(previous.get("strategies") or []) != list(play.strategies)):
        raise InputError(f"{str(out)!r} holds another run (its seed, strategies or players differ from the "
                         "run to continue); choose another folder")
    return previous


def _choose_engine(play: _Play) -> str | None:
    """Choose the run's engine; returns the note that says
    why a compiled kernel is not used, or None."""
    spec = play.spec
    play.engine, note = compiled.choose(play.game, play.params, play.players, play.strategies, spec.engine)
    if play.engine == "compiled":  # compiled once for every worker; loaded before the pilot batch times the run
        here = play.client is None and (play.jobs == 1 or spec.jobs in (None, 0))  # (--jobs 1, or the pilot)
        note = compiled.prepare(play.game, play.job(0, 1), here=here, say=play.progress is not False)
        if note is not None:
            if spec.engine == "compiled":
                raise InputError(f"--engine compiled cannot be used: {note}; use --engine auto or python")
            play.engine = "python"
    compiled.say_once(note)
    return note


def _new_config(play: _Play, command: str | None, done: dict, engine_note: str | None, shared) -> dict:
    """The run's record as it begins (``done``: the batches already on disk)."""
    spec, game = play.spec, play.game
    return {
        "command": command or "", "game": game.id, "game_name": game.name, "title_source": game.source,
        "run_id": play.run_id, "seed": play.seed,
        "games_requested": spec.games, "games_completed": sum(b - a for a, b in done.values()),
        "players": play.players, "strategies": list(play.strategies), "rules": play.params.as_dict(),
        "rule_overrides": dict(spec.rules), "jobs": play.jobs, "jobs_requested": spec.jobs,
        "batch_size": spec.batch_size, "game_timeout": spec.game_timeout,
        "backend": "dask" if play.client is not None else spec.backend,
        "scheduler": client_address(shared) if shared is not None else spec.scheduler,
        "engine": play.engine, "engine_requested": spec.engine, "engine_note": engine_note,
        "wall_seconds": 0.0, "versions": package_versions(),
        "started": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "status": "running", "error": None, "games_done": store.merge_ranges(done.values()),
        "data_files": data_file_record(play.params), "layout": store.LAYOUT, "pid": os.getpid(),
    }


def _carry(config: dict, previous: dict, out: Path, command: str | None, planned: bool = False) -> None:
    """What a continued run keeps of its ``previous`` record: its command, start, resumptions (this
    one added, unless it is a ``planned`` next round or extends a complete run), wall time and
    :data:`CARRIED`."""
    config["command"] = previous.get("command", "")
    config["started"] = previous.get("started", config["started"])
    resumed = list(previous.get("resumed") or [])
    replayed = previous.get("status") == "complete" and missing_games(out, previous) > 0
    if not planned and (previous.get("status") != "complete" or replayed):
        resumed.append({"at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                        "command": command or "", "games_before": config["games_completed"]})
    if resumed:
        config["resumed"] = resumed
    config["wall_seconds"] = float(previous.get("wall_seconds") or 0.0)
    for key in CARRIED:
        if key in previous:
            config[key] = previous[key]


def _execute(play: _Play) -> RunResult:
    """Play the run's missing games and write its final record; the result."""
    config = play.sink.config
    play.t0, play.wall_before = time.perf_counter(), config["wall_seconds"]
    config["first_game"] = play.spec.first_game
    play.bar = _progress_bar(play, config["games_completed"])
    errors: list[BaseException] = []
    interrupted = False
    ending = contextlib.ExitStack()
    try:
        interrupted = _play_batches(play, errors)
    except KeyboardInterrupt:
        interrupted = True
    except store.StoreError as e:
        errors.append(e)
    finally:
        ending.enter_context(stops.held(final=True))  # from here on a stop is noted: the final write runs
        at_final = stops.count()
        play.bar.close()
    return _result(play, errors, interrupted, ending, at_final)


def _progress_bar(play: _Play, initial: int):
    """The run's progress bar (none, and tqdm and the asyncio it pulls in unimported, with
    ``progress=False``)."""
    if play.progress is False:
        return types.SimpleNamespace(update=lambda n=1: None, close=lambda: None)  # (shows nothing)
    from tqdm.auto import tqdm

    return tqdm(total=play.spec.games - play.spec.first_game, initial=initial, unit="game", desc=f"{play.game.id}",
                disable=(None if play.progress is None else not play.progress), leave=False, file=sys.stderr,
                delay=PROGRESS_DELAY, smoothing=0.1)


def _missing(play: _Play) -> list[tuple[int, int]]:
    """The ranges of games from ``first_game`` that have no part on disk yet."""
    first = play.spec.first_game
    return [(max(a, first), b) for a, b in store.missing_ranges(play.sink.done.values(), play.spec.games)
            if b > first]


def _play_batches(play: _Play, errors: list) -> bool:
    """Play the missing games, batch by batch (a failure appended to ``errors``); True when the
    run was interrupted.  When ``--jobs`` is automatic, a pilot batch in this process first: when
    the whole run is short, starting workers would cost more than it saves, so the rest runs
    here too.  Results do not depend on it."""
    missing = _missing(play)
    jobs, interrupted = play.jobs, False
    if (play.spec.jobs in (None, 0) and jobs > 1 and play.client is None and missing
            and not play.sink.config.get("resumed") and missing[0][1] - missing[0][0] > PILOT_GAMES):
        a = missing[0][0]
        pilot = run_batch(play.job(a, a + PILOT_GAMES))
        play.keep(pilot)
        if pilot.error is not None:
            errors.append(pilot.error)
        interrupted = pilot.interrupted
        missing = _missing(play)
        if pilot.seconds / PILOT_GAMES * sum(b - a for a, b in missing) < SMALL_RUN_SECONDS:
            jobs = 1
    if play.client is not None:
        jobs = dask_slots(play.client)  # batches planned for the cluster's workers (results do not depend on it)
    batches, n_jobs = _planned(play, missing, jobs)
    if not errors and not interrupted and batches:
        interrupted = dispatch_batches(batches, play.job, n_jobs, play.spec.backend, play.client, play.keep, errors,
                                       work=_work(play.sink, play.run_id, play.strategies, play.sums))
    return interrupted


def _planned(play: _Play, missing: list[tuple[int, int]], jobs: int) -> tuple[list[tuple[int, int]], int]:
    """The batches of the ``missing`` games for ``jobs`` workers, and the workers they use (both
    recorded: ``batch_size``, ``jobs``)."""
    config = play.sink.config
    size = play.spec.batch_size or config.get("batch_size")
    chunk = _chunk_batches(play.sums, play.engine, sum(b - a for a, b in missing), jobs)
    if size is None and chunk:
        size = chunk
    elif size is None and missing:
        size = automatic_batch_size(play.engine, missing, jobs)
    automatic = not (play.spec.batch_size or config.get("batch_size"))
    config["batch_size"] = size
    batches: list[tuple[int, int]] = []
    for a, b in missing:
        batches += _aligned(a, b, size) if size == chunk else plan_batches(b, jobs, size, start=a)
    if automatic and size != chunk and play.client is None and jobs > 1:
        batches = _finer_tail(batches, jobs)
    n_jobs = max(1, min(jobs, len(batches))) if play.client is None else dask_slots(play.client)
    config["jobs"] = n_jobs
    return batches, n_jobs


#: A compiled run's automatic batches: about this many per worker (before :func:`_finer_tail`) ...
COMPILED_BATCHES_PER_JOB = 4
#: ... of at most this many games.
COMPILED_BATCH_GAMES = 5000


def automatic_batch_size(engine: str, missing: list[tuple[int, int]], jobs: int) -> int:
    """The batch size of a run whose size nobody gave, for ``jobs`` workers playing the
    ``missing`` games: :func:`analyser.engine.runner.plan_batches`' for the Python engine; for
    the compiled one fewer, larger batches (:data:`COMPILED_BATCHES_PER_JOB`, up to
    :data:`COMPILED_BATCH_GAMES` games), as a compiled batch's tables cost a fixed 20-60 ms of
    pandas and Arrow calls that hold Python's lock whatever its games (the playing threads wait
    for each other there), beside 0.1-0.3 ms of play per game."""
    if engine == "compiled":
        return automatic_size(sum(b - a for a, b in missing), jobs, COMPILED_BATCHES_PER_JOB, COMPILED_BATCH_GAMES)
    return plan_batches(missing[-1][1], jobs, None, start=missing[0][0])[0][1] - missing[0][0]


def _result(play: _Play, errors: list, interrupted: bool, ending: contextlib.ExitStack, at_final: int) -> RunResult:
    """The run's result, after its final record is written (within ``ending``, which holds later
    stops); ``at_final``: the stops counted when the final write began."""
    sink, config = play.sink, play.sink.config
    error = min(errors, key=lambda e: getattr(e, "game_index", None) or 0) if errors else None
    interrupted = interrupted and error is None
    result = RunResult(config=config, error=error, interrupted=interrupted, out=sink.out,
                       tables=sink.memory_tables() if sink.out is None else None)
    if play.sums is not None:
        result.known = KnownChunks(play.sums.chunk_games, _order(play.strategies), dict(sink.pieces), play.sums.key)
    with ending:
        try:
            play.finish(error, interrupted)
        except store.StoreError as e:
            # the record could not be rewritten (disk full, read-only): the parts on disk and the
            # last config.json written stay valid, and resume trusts the parts
            result.error = result.error or e
            config["status"] = "failed"
    # a signal noted while the final write ran, or one whose raise was swallowed (by a library
    # that catches everything around a callback) with the run played to its end regardless
    lost = play.signals is not None and stops.count() != play.signals and not result.interrupted
    result.stop_requested = stops.count() != at_final or lost
    return result


PROGRESS_DELAY = 3.0


def _work(sink: Sink, run_id: str, strategies: tuple, sums: ChunkSums | None):
    """What a worker does with a batch: play it, and for a run written to disk also pack it
    (:func:`analyser.run.packing.play_packed`: its parts encoded, a whole chunk reduced with
    ``sums``), so this process only writes files."""
    if sink.out is None:
        return run_batch
    return functools.partial(play_packed, Packing(run_id, _order(strategies), sums))


#: Batches per worker a run needs at least for its batches to be whole chunks of the report.
CHUNK_BATCHES_PER_JOB = 4


def _chunk_batches(sums: ChunkSums | None, engine: str, games: int, jobs: int) -> int | None:
    """The batch size that makes each batch one whole chunk of ``sums`` (so the workers reduce
    it): for a compiled run long enough to give every worker several chunks; else None.  A
    compiled batch of a chunk's games takes well under a second."""
    if sums is None or engine != "compiled" or games < sums.chunk_games * CHUNK_BATCHES_PER_JOB * jobs:
        return None
    return sums.chunk_games


#: Fewest games in a batch that :func:`_finer_tail` cuts in two.
TAIL_SPLIT_GAMES = 40


def _finer_tail(batches: list[tuple[int, int]], jobs: int) -> list[tuple[int, int]]:
    """``batches`` with each of the last ``jobs`` (of at least :data:`TAIL_SPLIT_GAMES` games) cut
    in two, when there are more than ``2 * jobs``: at a run's end each worker idles while the
    others finish their last batch, so smaller last batches end the workers closer together (up
    to half a batch of two workers' time, about 3% of a run of 8 batches per worker)."""
    if len(batches) <= 2 * jobs:
        return batches
    tail = []
    for a, b in batches[-jobs:]:
        mid = (a + b) // 2
        tail += [(a, mid), (mid, b)] if b - a >= TAIL_SPLIT_GAMES else [(a, b)]
    return batches[:-jobs] + tail


def _aligned(a: int, b: int, size: int) -> list[tuple[int, int]]:
    """Games ``a`` to ``b - 1`` in batches that start at multiples of ``size`` (the first may be
    shorter, up to the first multiple)."""
    cuts = [a] + list(range((a // size + 1) * size, b, size)) + [b]
    return [(x, y) for x, y in zip(cuts, cuts[1:]) if y > x]


def _order(strategies) -> tuple[str, ...]:
    """A lineup's strategies once each, in lineup order (the report's order for a new run)."""
    return tuple(dict.fromkeys(str(s) for s in strategies))


def resume(out: str | Path, *, progress: bool | None = None, command: str | None = None,
           allowed: Allowed | None = None) -> RunResult:
    """Continue the interrupted or failed run in ``out``: the same spec and run id, only the games
    that have no part on disk are played, and the union equals one uninterrupted run.  A part cut
    short by a kill is deleted and redone.  InputError for a folder that is not a run, a complete
    run, a run from a newer version, or one another process is writing.

    The folder is data: what its config.json names is loaded or contacted only as ``allowed`` says
    (:func:`analyser.run.trust.guard_folder_config`)."""
    out = Path(out)
    spec = resume_spec(out, allowed or Allowed()).spec
    return run(spec, progress=progress, command=command, out=out, resume=True)


@dataclass
class ResumePlan:
    """What resuming a folder would do: its ``config`` as read, the ``spec`` to run (after the
    trust rule, :mod:`analyser.run.trust`), and ``notes`` for the user (one line each)."""

    config: dict
    spec: RunSpec
    notes: list[str]


def resume_spec(out: str | Path, allowed: Allowed) -> ResumePlan:
    """Read and check the run folder ``out`` for resuming: its config.json (bounded,
    :func:`read_config`), its lock, and the trust rule, before anything is loaded; then, when the
    command line named the run's title file from another place, that title, to check that its id
    is the run's.  Raises InputError (one line)."""
    out = Path(out)
    holder = store.holder_of(out)  # (first: a run that has just begun has written no record yet)
    if holder is not None:
        raise InputError(store.in_use_message(out, holder))
    config = read_config(out)
    guarded = guard_folder_config(config, out, allowed)
    store.check_folder_parts(out)  # a part with broken metadata: one line before any game is played
    spec = spec_from_config(guarded.config, where=repr(str(out / "config.json")))
    check_parts_match(out, config, spec)
    if guarded.config.get("title_source") != config.get("title_source"):
        _check_title(out, config, get_game(spec.game))
    return ResumePlan(config, spec, guarded.notes)


def check_parts_match(out: Path, config: dict, spec: RunSpec) -> None:
    """Refuse (InputError, one line naming ``config.json``'s field) a config.json whose seed or
    rule options are not those the games on disk were played with (a hand-edited file): resuming
    it would mix two runs in one folder; and a part whose games belong to another run (copied in,
    or a config.json whose ``run_id`` was edited).  Reads the run id column of every part and the
    first row of the first part."""
    where = repr(str(out / "config.json"))
    parts = store.part_files(out / store.RESULTS)
    run_id = config.get("run_id")
    words = run_id.rsplit("-", 2) if isinstance(run_id, str) else []
    if len(words) == 3 and words[1].isdigit() and int(words[1]) != spec.seed:
        raise InputError(f"{where}: its seed {spec.seed} is not the seed of its run {run_id!r} ({words[1]}); "
                         "put back the run's own config.json")
    if not parts:
        return
    for part in parts:
        if store.part_range(part) is None:  # (cut short by a kill: deleted and played again)
            continue
        store.check_part_run(part, store.read_part_table(part, columns=["run_id"]).column(0).unique().to_pylist(),
                             run_id)
    rules = {**(config.get("rules") if isinstance(config.get("rules"), dict) else {}), **spec.rules}
    table = store.read_part_table(parts[0], columns=list(rules))
    first = table.slice(0, 1).to_pylist()[0] if table.num_rows else {}
    for name, value in rules.items():  # (plain values of one type only: a list is written as text)
        got = first.get(name)
        if type(got) is type(value) and isinstance(value, (bool, int, float, str)) and got != value:
            raise InputError(f"{where}: its rule option {name}={value} is not the one its games were played with "
                             f"({name}={got}); put back the run's own config.json")


def _check_title(out: Path, config: dict, game) -> None:
    if config.get("game") != game.id:
        raise InputError(f"{str(out)!r} holds a run of {str(config.get('game'))[:40]!r}, but its title is now "
                         f"{game.id!r} ({title_ref(game)}); give the run's own title")


def write_results(result: RunResult, out: Path, csv: bool = False) -> list[Path]:
    """Write a run kept in memory into ``out`` in the run-folder layout (parts, config.json, and
    ``results.csv`` with ``csv``).  A run that was written with ``out`` already is there; then only
    the CSV files are written."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    if result.out is None or Path(result.out).resolve() != out.resolve():
        import pyarrow as pa
        df = result.results
        if len(df):
            first, last = int(df["game_index"].iloc[0]), int(df["game_index"].iloc[-1])
            written.append(store.write_part(pa.Table.from_pandas(df, preserve_index=False),
                                            out / store.RESULTS, first, last + 1))
            for name, frame in result.extras.items():
                written.append(store.write_part(pa.Table.from_pandas(frame, preserve_index=False),
                                                out / name, first, last + 1))
        store.write_json_atomic(out / "config.json", result.config)
        written.append(out / "config.json")
    if csv:
        written += write_csv(out, list(result.extras) if result.out is None else
                             [p.name for p in out.iterdir() if p.is_dir() and p.name != store.RESULTS])
    return written
