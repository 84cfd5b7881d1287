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
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import pandas as pd

from analyser.engine import compiled, runner
from analyser.engine.core import InputError
from analyser.engine.registry import get_game, title_ref
from analyser.run import stops, store
from analyser.run.backends import dispatch_batches, hung_error, watchdog_here
from analyser.run.cluster import client_address, close_dask, dask_client, dask_slots, pool_client
from analyser.run.folders import missing_games, prepare_out, read_config
from analyser.run.read import load_results
from analyser.run.packing import ChunkSums, KnownChunks, Packing, chunk_sums, play_packed
from analyser.run.sink import Sink, batch_tables, tables_to_frame, write_csv
from analyser.run.spec import RunSpec, data_file_record, new_run_id, package_versions, resolve, spec_from_config
from analyser.run.trust import Allowed, guard_folder_config, strategy_files, trust_file
from analyser.engine.runner import BatchJob, BatchResult, plan_batches, run_batch


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
        out: str | Path | None = None, resume: bool = False, extend: bool = False,
        record: dict | None = None, on_part=None, sums: ChunkSums | None = None) -> RunResult:
    """Play a run: the one primitive every experiment is built from.

    With ``out``, each finished batch is written at once as ``out/results/part-<first game>.parquet``
    (and the title's extra tables likewise), ``config.json`` is rewritten after each part with the
    status and the games done, and a lock file keeps a second run out of the folder (InputError).
    Memory stays bounded whatever ``spec.games``.  ``resume=True`` continues the run recorded in
    ``out`` (see :func:`resume`) and plays only the games of ``range(spec.first_game, spec.games)``
    it lacks; it may also extend a complete run to a larger ``spec.games`` (a round of the stopping
    rule: the run keeps its id, and ``resumed`` records only the resumptions of an unfinished run;
    ``extend=True`` says the caller plays a planned next round, which is no resumption either).
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
    if progress is False:  # no bar: tqdm (and the asyncio it pulls in) stays unimported
        tqdm = _NoBar
    else:
        from tqdm.auto import tqdm

    game, params, players, jobs, seed = resolve(spec)
    # the user ran these files (resolve loaded them): this run's folder may name them to this process
    if getattr(game, "source", None):
        trust_file(game.source)
    for text in spec.strategies:
        for path in strategy_files(text):
            trust_file(path)
    strategies = tuple(spec.strategies)
    rules = tuple(sorted(spec.rules.items()))
    out = Path(out) if out is not None else None
    if out is not None and not resume:
        out = prepare_out(out)
    # one client for the whole command when an experiment opened one (command_pool), else this run's own
    shared = pool_client()
    client = shared if shared is not None else dask_client(spec) if spec.backend == "dask" else None
    lock = store.RunLock(out) if out is not None else None
    hang_dir = None
    try:  # (the lock taken inside: a Ctrl-C between taking it and this try left it behind)
        if lock is not None:
            lock.acquire()
        hang_dir = tempfile.mkdtemp(prefix="analyser-hang-")
        # a complete run may be extended to more games (a round of the stopping rule)
        previous = read_config(out, complete_ok=True) if (resume and out is not None) else None
        if previous:
            _check_title(out, previous, game)
        if previous and (previous.get("seed") != seed or list(previous.get("strategies") or []) != list(strategies)
                         or previous.get("players") != players):
            raise InputError(f"{str(out)!r} holds another run (its seed, strategies or players differ from the "
                             "run to continue); choose another folder")
        done = _scan_done(out, game) if previous else {}
        run_id = previous["run_id"] if previous else new_run_id(game.id, seed)
        engine, engine_note = compiled.choose(game, params, players, strategies, spec.engine)

        def job(a: int, b: int) -> BatchJob:
            return BatchJob(title_ref(game), rules, strategies, players, seed, a, b, spec.game_timeout,
                            hang_dir=hang_dir, engine=engine)

        if engine == "compiled":  # compiled once for every worker; loaded before the pilot batch times the run
            plays_here = client is None and (jobs == 1 or spec.jobs in (None, 0))  # (--jobs 1, or the pilot)
            engine_note = compiled.prepare(game, job(0, 1), here=plays_here, say=progress is not False)
            if engine_note is not None:
                if spec.engine == "compiled":
                    raise InputError(f"--engine compiled cannot be used: {engine_note}; use --engine auto or python")
                engine = "python"
        compiled.say_once(engine_note)

        config = {
            "command": command or "", "game": game.id, "game_name": game.name, "title_source": game.source,
            "run_id": run_id, "seed": seed,
            "games_requested": spec.games, "games_completed": sum(b - a for a, b in done.values()),
            "players": players, "strategies": list(strategies), "rules": params.as_dict(),
            "rule_overrides": dict(spec.rules), "jobs": jobs, "jobs_requested": spec.jobs, "batch_size": spec.batch_size,
            "game_timeout": spec.game_timeout, "backend": "dask" if client is not None else spec.backend,
            "scheduler": client_address(shared) if shared is not None else spec.scheduler,
            "engine": engine, "engine_requested": spec.engine, "engine_note": engine_note,
            "wall_seconds": 0.0, "versions": package_versions(),
            "started": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "status": "running", "error": None, "games_done": store.merge_ranges(done.values()),
            "data_files": data_file_record(params), "layout": store.LAYOUT, "pid": os.getpid(),
        }
        if previous:
            config["command"] = previous.get("command", "")
            config["started"] = previous.get("started", config["started"])
            resumed = list(previous.get("resumed") or [])
            replayed = previous.get("status") == "complete" and not extend and missing_games(out, previous) > 0
            if (previous.get("status") != "complete" or replayed) and not extend:  # a planned next round is no resumption
                resumed.append({"at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                                "command": command or "", "games_before": config["games_completed"]})
            if resumed:
                config["resumed"] = resumed
            config["wall_seconds"] = float(previous.get("wall_seconds") or 0.0)
            for key in CARRIED:
                if key in previous:
                    config[key] = previous[key]
        for key in CARRIED:
            if record and key in record:
                config[key] = record[key]
        sink = Sink(out, config, done)
        with stops.held():
            sink.save()
        with stops.handled(once=True):  # (the first stop ends the run; later ones wait for its final write)
            return _execute(spec, game, params, players, jobs, strategies, job, sink, client, progress, tqdm,
                            run_id, hang_dir, on_part, signals, sums)
    finally:
        if lock is not None:
            kept = _KEPT.get()
            if kept is not None and lock.fd is not None:
                kept.append(lock)
            else:
                lock.release()
        if hang_dir is not None:
            shutil.rmtree(hang_dir, ignore_errors=True)
        if client is not None and client is not shared:
            close_dask(client)


def _execute(spec, game, params, players, jobs, strategies, job, sink: Sink, client, progress, tqdm,
             run_id, hang_dir, on_part=None, signals: int | None = None,
             sums: ChunkSums | None = None) -> RunResult:
    config = sink.config
    t0 = time.perf_counter()
    wall_before = config["wall_seconds"]
    first = spec.first_game
    missing = [(max(a, first), b) for a, b in store.missing_ranges(sink.done.values(), spec.games) if b > first]
    config["first_game"] = first
    errors: list[BaseException] = []
    interrupted = False
    total_done = config["games_completed"]
    bar = tqdm(total=spec.games - first, initial=total_done, unit="game", desc=f"{game.id}",
               disable=(None if progress is None else not progress), leave=False, file=sys.stderr,
               delay=PROGRESS_DELAY, smoothing=0.1)

    def keep(res: BatchResult) -> None:
        nonlocal total_done
        # a packed batch (analyser.run.packing) brings its parts encoded; else they are made here
        tables = res.parts
        if tables is None:  # played in this process (or a batch not packed): made here
            tables = batch_tables(game, params, players, strategies, res, run_id)
            if res.pieces is None and sink.out is not None:
                res.pieces = chunk_sums(Packing(run_id, _order(strategies), sums), game, res, tables)
        with stops.held():
            sink.add(res.start, res.start + res.done, tables)
        if res.pieces is not None:
            sink.pieces[res.start] = (res.start + res.done, res.pieces)
        if on_part is not None and res.done > 0:
            on_part(res.start, res.start + res.done, store.part_table(tables[store.RESULTS]))
        total_done += res.done
        bar.update(res.done)

    def on_hang(info: dict) -> None:
        """The watchdog in this process: a game ignored its time limit here, so write what is
        finished, record the failure, and exit (the game's thread cannot be stopped)."""
        res = info["result"]
        runner.finish_columns(res, game, info["job"])  # the games it finished, as columns
        err = hung_error(info)
        try:
            keep(res)
        except Exception:
            pass
        _finish(config, sink, err, False, t0, wall_before)
        print(f"analyser: error: {err} (game {err.game_index}, game seed {err.game_seed}). "
              f"The {config['games_completed']} finished games were written"
              f"{' to ' + str(sink.out) if sink.out else ''}.", file=sys.stderr, flush=True)
        store.release_held_locks()  # (this run's lock, and an experiment's: the process ends here)
        os._exit(1)

    start_batches: list[tuple[int, int]] = []
    n_jobs = jobs
    ending = contextlib.ExitStack()
    try:
        if (spec.jobs in (None, 0) and jobs > 1 and client is None and missing and not config.get("resumed")
                and missing[0][1] - missing[0][0] > PILOT_GAMES):
            # A pilot batch in this process: when the whole run is short, starting workers would cost
            # more than it saves, so the rest runs here too.  Results do not depend on it.
            a = missing[0][0]
            with watchdog_here(on_hang):
                pilot = run_batch(job(a, a + PILOT_GAMES))
            keep(pilot)
            if pilot.error is not None:
                errors.append(pilot.error)
            interrupted = pilot.interrupted
            missing = [(max(a, first), b) for a, b in store.missing_ranges(sink.done.values(), spec.games)
                       if b > first]
            remaining = sum(b - a for a, b in missing)
            if pilot.seconds / PILOT_GAMES * remaining < SMALL_RUN_SECONDS:
                jobs = 1
        if client is not None:
            jobs = dask_slots(client)  # batches planned for the cluster's workers (results do not depend on it)
        size = spec.batch_size or config.get("batch_size")
        chunk = _chunk_batches(sums, job(0, 1).engine, sum(b - a for a, b in missing), jobs)
        if size is None and chunk:
            size = chunk
        elif size is None and missing:
            size = plan_batches(missing[-1][1], jobs, None, start=missing[0][0])[0][1] - missing[0][0]
        config["batch_size"] = size
        for a, b in missing:
            start_batches += _aligned(a, b, size) if size == chunk else plan_batches(b, jobs, size, start=a)
        n_jobs = max(1, min(jobs, len(start_batches))) if client is None else dask_slots(client)
        config["jobs"] = n_jobs
        if not errors and not interrupted and start_batches:
            interrupted = dispatch_batches(start_batches, job, n_jobs, spec.backend, client, keep, errors, on_hang,
                                    hang_dir, work=_work(sink, run_id, strategies, sums))
    except KeyboardInterrupt:
        interrupted = True
    except store.StoreError as e:
        errors.append(e)
    finally:
        ending.enter_context(stops.held(final=True))  # from here on a stop is noted: the final write runs
        at_final = stops.count()
        bar.close()
    error = min(errors, key=lambda e: getattr(e, "game_index", None) or 0) if errors else None
    interrupted = interrupted and error is None
    result = RunResult(config=config, error=error, interrupted=interrupted, out=sink.out,
                       tables=sink.memory_tables() if sink.out is None else None)
    if sums is not None:
        result.known = KnownChunks(sums.chunk_games, _order(strategies), dict(sink.pieces), sums.key)
    with ending:
        try:
            _finish(config, sink, error, interrupted, t0, wall_before)
        except store.StoreError as e:
            # the record could not be rewritten (disk full, read-only): the parts on disk and the
            # last config.json written stay valid, and resume trusts the parts
            result.error = result.error or e
            config["status"] = "failed"
    # a signal noted while the final write ran, or one whose raise was swallowed (by a library
    # that catches everything around a callback) with the run played to its end regardless
    lost = signals is not None and stops.count() != signals and not result.interrupted
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


def _aligned(a: int, b: int, size: int) -> list[tuple[int, int]]:
    """Games ``a`` to ``b - 1`` in batches that start at multiples of ``size`` (the first may be
    shorter, up to the first multiple)."""
    cuts = [a] + list(range((a // size + 1) * size, b, size)) + [b]
    return [(x, y) for x, y in zip(cuts, cuts[1:]) if y > x]


def _order(strategies) -> tuple[str, ...]:
    """A lineup's strategies once each, in lineup order (the report's order for a new run)."""
    return tuple(dict.fromkeys(str(s) for s in strategies))


class _NoBar:
    """The progress bar of a run that shows none (``progress=False``)."""

    def __init__(self, *args, **kwargs):
        pass

    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


def _finish(config, sink, error, interrupted, t0, wall_before) -> None:
    config["wall_seconds"] = round(wall_before + time.perf_counter() - t0, 3)
    complete = config["games_completed"] >= config["games_requested"] - config.get("first_game", 0)
    config["status"] = ("failed" if error is not None else "interrupted" if interrupted or not complete
                        else "complete")
    config["error"] = str(error) if error is not None else None
    config.pop("pid", None)
    sink.save()


def resume(out: str | Path, *, progress: bool | None = None, command: str | None = None,
           allowed: Allowed | None = None) -> RunResult:
    """Continue the interrupted or failed run in ``out``: the same spec and run id, only the games
    that have no part on disk are played, and the union equals one uninterrupted run.  A part cut
    short by a kill is deleted and redone.  InputError for a folder that is not a run, a complete
    run, a run from a newer version, or one another process is writing.

    The folder is data: a title file or strategy file its config.json names is loaded only when
    ``allowed`` names it (or trusts everything, or this process ran it), and a scheduler only when
    ``allowed.scheduler`` names one; otherwise the run continues on this machine
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
    it would mix two runs in one folder.  Reads the run id and the first row of the first part."""
    where = repr(str(out / "config.json"))
    parts = store.part_files(out / store.RESULTS)
    run_id = config.get("run_id")
    words = run_id.rsplit("-", 2) if isinstance(run_id, str) else []
    if len(words) == 3 and words[1].isdigit() and int(words[1]) != spec.seed:
        raise InputError(f"{where}: its seed {spec.seed} is not the seed of its run {run_id!r} ({words[1]}); "
                         "put back the run's own config.json")
    if not parts:
        return
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
