"""Experiments: turn a run spec into batches, run them with joblib, gather one tidy DataFrame.

The results frame has one row per (game, seat) with the columns of DESIGN.md: ``run_id``,
``game``, ``game_index``, ``game_seed``, ``players``, ``seat``, ``strategy``, one column per rule
option, ``score``, ``rank``, ``win`` (1/k for a k-way shared win), then the title's metric
columns (``turns`` is the game length).  Rows are sorted by (game_index, seat), so a run is
identical whatever ``--jobs`` or batch size produced it.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import platform
import secrets
import shutil
import signal
import sys
import tempfile
import threading
import time
import uuid
import warnings
from importlib import metadata
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import joblib
import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from analyser import __version__, runner, store
from analyser.core import InputError, StrategyError
from analyser.registry import get_game, make_strategy, title_ref
from analyser.runner import ROW_FIELDS, BatchJob, BatchResult, plan_batches, resolve_jobs, run_batch
from analyser.userfiles import safe_worker_path


#: Ways to run the batches: worker processes here (``loky``, joblib's default) or a Dask cluster.
BACKENDS = ("loky", "dask", "threading")
#: Most games one run may ask for.
MAX_GAMES = 10_000_000
#: Games played in-process first when ``--jobs`` is automatic, to time the run.
PILOT_GAMES = 50
#: Estimated seconds below which an automatic run does not start worker processes.
SMALL_RUN_SECONDS = 2.0


@dataclass
class RunSpec:
    """Everything that defines a run.  ``seed=None`` draws a fresh seed (recorded)."""

    game: str
    strategies: list[str]
    players: int | None = None
    games: int = 2000
    seed: int | None = None
    jobs: int | None = None
    rules: dict[str, str] = field(default_factory=dict)
    batch_size: int | None = None
    game_timeout: float = 60.0
    #: ``loky`` (worker processes on this machine) or ``dask`` (a dask.distributed cluster)
    backend: str = "loky"
    #: Dask scheduler address (``tcp://HOST:8786``); None with ``backend="dask"`` starts a LocalCluster
    scheduler: str | None = None
    #: Play only games ``first_game`` to ``games - 1`` (a hook for the stopping rule of
    #: :mod:`analyser.stopping`, which plays a run in rounds fixed in advance).  Game ``i`` is
    #: the same game whatever ``first_game``, so rounds concatenate into one run.
    first_game: int = 0


def resolve(spec: RunSpec):
    """Validate a run spec; returns (game, params, players, jobs, seed).  Raises InputError."""
    game = get_game(spec.game)
    for name in game.path_options:  # a data file named relative to here must work in workers too
        if spec.rules.get(name):
            spec.rules[name] = str(Path(spec.rules[name]).expanduser().resolve())
    params = game.Params.from_overrides(spec.rules)
    if not spec.strategies:
        from analyser.registry import default_lineup
        raise InputError(f"no --strategy given; name at least one, e.g. --strategy "
                         f"{(default_lineup(game.id) or ['random'])[0]}")
    for s in spec.strategies:
        _try_strategy(s, spec.game, spec.game_timeout)  # fails early, in the main process, on one line
    m = len(spec.strategies)
    players = spec.players
    if players is None:  # the title's usual count; the strategies cycle over the seats
        players = max(game.default_players, min(m, game.max_players))
    game.check_players(params, players)
    if m > players:
        raise InputError(f"{m} strategies for {players} seats; give at most {players} --strategy "
                         f"or raise --players (up to {game.max_players})")
    if not 0 < spec.games <= MAX_GAMES:
        raise InputError(f"--games {spec.games} is not accepted; give a number of games from 1 to {MAX_GAMES:,}")
    if not 0 <= spec.first_game < spec.games:
        raise InputError(f"first game {spec.first_game} is not accepted; it must lie in 0 to {spec.games - 1}")
    if not (spec.game_timeout >= 0 and math.isfinite(spec.game_timeout)):
        raise InputError(f"--game-timeout {spec.game_timeout} is not accepted; give seconds > 0, or 0 for no limit")
    if spec.backend not in BACKENDS:
        raise InputError(f"--backend {spec.backend!r} is not accepted; choose loky or dask")
    if spec.scheduler is not None:
        if spec.backend != "dask":
            raise InputError("--scheduler needs --backend dask")
        check_scheduler_address(spec.scheduler)
    if spec.backend == "dask":
        try:
            import distributed  # noqa: F401
        except ImportError:
            raise InputError("--backend dask needs dask.distributed, which is not installed; "
                             "install it with: pip install 'analyser[dask]'") from None
    if spec.batch_size is not None and spec.batch_size <= 0:
        raise InputError(f"--batch-size {spec.batch_size} is not accepted; give a positive number")
    jobs = resolve_jobs(spec.jobs)
    seed = spec.seed if spec.seed is not None else secrets.randbits(63)
    if not 0 <= seed < 2 ** 63:  # a seed is stored as a 64-bit whole number (config, tables)
        raise InputError(f"--seed {seed} is not accepted; give a whole number from 0 to {2 ** 63 - 1}")
    return game, params, players, jobs, seed


def _try_strategy(text: str, game_id: str, timeout: float) -> None:
    """Build strategy ``text`` once, under the game time limit: InputError when it fails or does
    not start in time.  One that also ignores the alarm is stopped by a timer that ends the
    process with a one-line message (exit 2), since nothing else can stop it."""
    if not (timeout and timeout > 0 and math.isfinite(timeout)):  # a bad limit is refused later, on one line
        make_strategy(text, game_id)
        return

    def give_up():
        print(f"analyser: error: strategy {text!r} did not start within {timeout:g} s (--game-timeout) and "
              "ignored the stop signal", file=sys.stderr, flush=True)
        os._exit(2)

    timer = threading.Timer(timeout + runner.watchdog_grace(timeout), give_up)
    timer.daemon = True
    timer.start()
    try:
        with runner._Alarm(timeout) as alarm:
            alarm.arm()
            try:
                make_strategy(text, game_id)
            except runner._Hang:
                raise InputError(f"strategy {text!r} did not start within {timeout:g} s (--game-timeout)") from None
            finally:
                alarm.disarm()
    finally:
        timer.cancel()


def data_file_record(params) -> dict[str, dict[str, str]]:
    """Every component file the rules read, with its absolute path and SHA-256, so a run can be
    traced to the exact data it used."""
    import hashlib

    from analyser.safeio import read_bytes
    files = params.data_files() if hasattr(params, "data_files") else {}
    out = {}
    for name, path in files.items():
        try:
            digest = hashlib.sha256(read_bytes(path, f"{name} file")).hexdigest()  # bounded, regular files only
        except InputError:
            digest = "unreadable"
        out[name] = {"path": str(Path(path).resolve()), "sha256": digest}
    return out


def package_versions() -> dict[str, str]:
    """Versions of Python and the libraries a run depends on (read from package metadata, so
    nothing is imported just to ask)."""
    out = {"analyser": __version__, "python": platform.python_version(), "numpy": np.__version__,
           "pandas": pd.__version__, "joblib": joblib.__version__,
           "matplotlib": metadata.version("matplotlib"), "click": metadata.version("click"),
           "scipy": metadata.version("scipy"), "statsmodels": metadata.version("statsmodels")}
    try:
        import pyarrow
        out["pyarrow"] = pyarrow.__version__
    except ImportError:
        pass
    return out


def new_run_id(game_id: str, seed: int) -> str:
    """A run id unique to one run: ``<game>-<seed>-<8 hex digits>`` (the seed stays in its own
    column; a resumed run keeps its id)."""
    return f"{game_id}-{seed}-{uuid.uuid4().hex[:8]}"


class RunResult:
    """A finished (or stopped) run: the config record, the error or interruption that stopped it,
    and its tables.

    ``out`` is the run folder when the run was written to disk; its Parquet parts are then the
    results, and ``results`` / ``extras`` read them on first use (in game order, sorted by
    ``(game_index, seat)``).  That is the documented way to get the frame of a small run; a large
    run is better read a few columns at a time (:func:`load_results` with ``columns``, or
    :func:`analyser.store.iter_tables`).  A run without ``out`` keeps its rows in memory.
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


def tables_to_frame(tables: list) -> pd.DataFrame:
    """Arrow tables of one run (in game order) -> one pandas frame; text columns written as
    categories come back as categories with one shared set of categories."""
    import pyarrow as pa
    tables = [t for t in tables if t.num_rows]
    if not tables:
        return pd.DataFrame()
    return pa.concat_tables(tables, promote_options="permissive").to_pandas()


class _Deferred:
    """Hold Ctrl-C and SIGTERM while a part or config.json is written, so neither is left half
    written; a signal that arrived is delivered when the write is done (``deliver``) or only
    noted (``final``: the last write of the run)."""

    def __init__(self, deliver: bool = True):
        self.deliver = deliver
        self.pending: int | None = None
        self.active = threading.current_thread() is threading.main_thread()
        self.previous: dict = {}

    def _hold(self, signum, frame):
        if self.pending is None and not self.deliver:
            print("\nanalyser: finishing the write of the results and config.json first", file=sys.stderr)
        self.pending = signum

    def __enter__(self):
        if self.active:
            for s in (signal.SIGINT, signal.SIGTERM):
                self.previous[s] = signal.signal(s, self._hold)
        return self

    def __exit__(self, exc_type, *exc):
        if not self.active:
            return False
        for s, h in self.previous.items():
            signal.signal(s, h)
        if self.pending is not None and self.deliver and exc_type is None:
            h = self.previous[self.pending]
            if callable(h):
                h(self.pending, None)
            elif h == signal.SIG_DFL:
                os.kill(os.getpid(), self.pending)
        return False


class _StopRequest:
    """Ctrl-C during a parallel run: the first one asks the workers' running batches to finish
    (their games are kept), a second one stops at once.  Sequential runs keep Python's default
    handling: the batch in progress catches KeyboardInterrupt and returns its finished games."""

    def __init__(self, active: bool):
        self.active = active and threading.current_thread() is threading.main_thread()
        self.requested = False
        self.collected = 0
        self.previous = None

    def __enter__(self):
        if self.active:
            self.previous = signal.signal(signal.SIGINT, self._handle)
        return self

    def _handle(self, signum, frame):
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True
        print("\nanalyser: interrupted - keeping the games in progress (Ctrl-C again to stop at once)",
              file=sys.stderr)

    def __exit__(self, *exc):
        if self.active:
            signal.signal(signal.SIGINT, self.previous)
        return False


class Terminated(KeyboardInterrupt):
    """SIGTERM (``kill``, ``timeout``) during a run: handled like a second Ctrl-C."""


class WorkerDied(RuntimeError):
    """A worker process died under a batch (killed, or out of memory)."""


class _Sink:
    """Where finished batches go: Parquet parts in ``out`` (with config.json rewritten after each
    part), or arrow tables in memory when there is no ``out``."""

    def __init__(self, out: Path | None, config: dict, done: dict[int, tuple[int, int]]):
        self.out = out
        self.config = config
        self.done = dict(done)
        self.tables: dict[str, list] = {}

    def add(self, start: int, stop: int, tables: dict) -> None:
        """``tables``: name -> arrow table of games ``start`` to ``stop - 1`` (``results`` last)."""
        if stop <= start:
            return
        if self.out is None:
            for name, t in tables.items():
                self.tables.setdefault(name, []).append((start, t))
        else:
            # extra tables first: a results part on disk means its whole batch is there
            for name, t in tables.items():
                if name != store.RESULTS:
                    store.write_part(t, self.out / name, start, stop)
            store.write_part(tables[store.RESULTS], self.out / store.RESULTS, start, stop)
        self.done[start] = (start, stop)
        self.config["games_done"] = store.merge_ranges(self.done.values())
        self.config["games_completed"] = sum(b - a for a, b in self.done.values())
        self.save()

    def save(self) -> None:
        if self.out is not None:
            self.config["updated"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
            store.write_json_atomic(self.out / "config.json", self.config)

    def memory_tables(self) -> dict[str, list]:
        return {k: [t for _, t in sorted(v, key=lambda x: x[0])] for k, v in self.tables.items()}


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


def run(spec: RunSpec, *, progress: bool | None = None, command: str | None = None,
        out: str | Path | None = None, resume: bool = False) -> RunResult:
    """Play a run: the one primitive every experiment is built from.

    With ``out``, each finished batch is written at once as ``out/results/part-<first game>.parquet``
    (and the title's extra tables likewise), ``config.json`` is rewritten after each part with the
    status and the games done, and a lock file keeps a second run out of the folder (InputError).
    Memory stays bounded whatever ``spec.games``.  ``resume=True`` continues the run recorded in
    ``out`` (see :func:`resume`) and plays only the games it lacks.  Without ``out`` the rows stay
    in memory (for small runs and tests).

    Never loses finished games: a strategy failure, a dead worker, a full disk, Ctrl-C or SIGTERM
    stop the run; the result (and ``config.json``) carries the status (``complete``,
    ``interrupted`` or ``failed``), the games done and the error.

    ``progress``: ``None`` shows a bar (games, games/s, ETA) on a terminal once the run has taken
    a few seconds; ``False`` never.
    """
    from tqdm.auto import tqdm

    game, params, players, jobs, seed = resolve(spec)
    if getattr(game, "source", None):  # the user ran this title file: its results may load it again
        trust_title_file(game.source)
    strategies = tuple(spec.strategies)
    rules = tuple(sorted(spec.rules.items()))
    out = Path(out) if out is not None else None
    if out is not None and not resume:
        out = prepare_out(out)
    client = _dask_client(spec) if spec.backend == "dask" else None
    lock = store.RunLock(out).acquire() if out is not None else None
    hang_dir = tempfile.mkdtemp(prefix="analyser-hang-")
    try:
        previous = read_config(out) if (resume and out is not None) else None
        done = _scan_done(out, game) if previous else {}
        run_id = previous["run_id"] if previous else new_run_id(game.id, seed)
        sources = runner.ship_sources(strategies) if client is not None else ()
        title_sources = runner.ship_title(title_ref(game)) if client is not None else ()

        def job(a: int, b: int) -> BatchJob:
            return BatchJob(title_ref(game), rules, strategies, players, seed, a, b, spec.game_timeout, sources,
                            hang_dir, title_sources)

        config = {
            "command": command or "", "game": game.id, "game_name": game.name, "title_source": game.source,
            "run_id": run_id, "seed": seed,
            "games_requested": spec.games, "games_completed": sum(b - a for a, b in done.values()),
            "players": players, "strategies": list(strategies), "rules": params.as_dict(),
            "rule_overrides": dict(spec.rules), "jobs": jobs, "jobs_requested": spec.jobs, "batch_size": spec.batch_size,
            "game_timeout": spec.game_timeout, "backend": spec.backend, "scheduler": spec.scheduler,
            "wall_seconds": 0.0, "versions": package_versions(),
            "started": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "status": "running", "error": None, "games_done": store.merge_ranges(done.values()),
            "data_files": data_file_record(params), "layout": store.LAYOUT, "pid": os.getpid(),
        }
        if previous:
            config["command"] = previous.get("command", "")
            config["started"] = previous.get("started", config["started"])
            config["resumed"] = list(previous.get("resumed") or []) + [
                {"at": datetime.now(timezone.utc).isoformat(timespec="seconds"), "command": command or "",
                 "games_before": config["games_completed"]}]
            config["wall_seconds"] = float(previous.get("wall_seconds") or 0.0)
        sink = _Sink(out, config, done)
        with _Deferred():
            sink.save()
        return _execute(spec, game, params, players, jobs, strategies, job, sink, client, progress, tqdm,
                        run_id, hang_dir)
    finally:
        if lock is not None:
            lock.release()
        shutil.rmtree(hang_dir, ignore_errors=True)
        if client is not None:
            _close_dask(client)


def _execute(spec, game, params, players, jobs, strategies, job, sink: _Sink, client, progress, tqdm,
             run_id, hang_dir) -> RunResult:
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
        tables = batch_tables(game, params, players, strategies, res, run_id)
        with _Deferred():
            sink.add(res.start, res.start + res.done, tables)
        total_done += res.done
        bar.update(res.done)

    def on_hang(info: dict) -> None:
        """The watchdog in this process: a game ignored its time limit here, so write what is
        finished, record the failure, and exit (the game's thread cannot be stopped)."""
        res = info["result"]
        res.columns = runner.to_columns(res.rows, list(ROW_FIELDS) + list(game.metric_columns))
        res.rows = []
        err = _hung_error(info)
        try:
            keep(res)
        except Exception:
            pass
        _finish(config, sink, err, False, t0, wall_before)
        print(f"analyser: error: {err} (game {err.game_index}, game seed {err.game_seed}). "
              f"The {config['games_completed']} finished games were written"
              f"{' to ' + str(sink.out) if sink.out else ''}.", file=sys.stderr, flush=True)
        if sink.out is not None:
            store.RunLock(sink.out).path.unlink(missing_ok=True)
        os._exit(1)

    start_batches: list[tuple[int, int]] = []
    n_jobs = jobs
    try:
        if (spec.jobs in (None, 0) and jobs > 1 and client is None and missing and not config.get("resumed")
                and missing[0][1] - missing[0][0] > PILOT_GAMES):
            # A pilot batch in this process: when the whole run is short, starting workers would cost
            # more than it saves, so the rest runs here too.  Results do not depend on it.
            a = missing[0][0]
            with _watchdog_here(on_hang):
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
        size = spec.batch_size or config.get("batch_size")
        if size is None and missing:
            size = plan_batches(missing[-1][1], jobs, None, start=missing[0][0])[0][1] - missing[0][0]
        config["batch_size"] = size
        for a, b in missing:
            start_batches += plan_batches(b, jobs, size, start=a)
        n_jobs = max(1, min(jobs, len(start_batches))) if client is None else _dask_slots(client)
        config["jobs"] = n_jobs
        if not errors and not interrupted and start_batches:
            interrupted = _dispatch(start_batches, job, n_jobs, spec.backend, client, keep, errors, on_hang,
                                    hang_dir)
    except KeyboardInterrupt:
        interrupted = True
    except store.StoreError as e:
        errors.append(e)
    finally:
        bar.close()
    error = min(errors, key=lambda e: getattr(e, "game_index", None) or 0) if errors else None
    interrupted = interrupted and error is None
    result = RunResult(config=config, error=error, interrupted=interrupted, out=sink.out,
                       tables=sink.memory_tables() if sink.out is None else None)
    with _Deferred(deliver=False) as held:
        try:
            _finish(config, sink, error, interrupted, t0, wall_before)
        except store.StoreError as e:
            # the record could not be rewritten (disk full, read-only): the parts on disk and the
            # last config.json written stay valid, and resume trusts the parts
            result.error = result.error or e
            config["status"] = "failed"
    result.stop_requested = held.pending is not None
    return result


PROGRESS_DELAY = 3.0


def _finish(config, sink, error, interrupted, t0, wall_before) -> None:
    config["wall_seconds"] = round(wall_before + time.perf_counter() - t0, 3)
    complete = config["games_completed"] >= config["games_requested"] - config.get("first_game", 0)
    config["status"] = ("failed" if error is not None else "interrupted" if interrupted or not complete
                        else "complete")
    config["error"] = str(error) if error is not None else None
    config.pop("pid", None)
    sink.save()


def _hung_error(info: dict) -> StrategyError:
    labels = info.get("labels") or []
    who = ", ".join(f"seat {i} {s}" for i, s in enumerate(labels))
    err = StrategyError(f"a strategy in game {info['game_index']} ({who}) did not stop at the time limit and "
                        "ignored the stop signal; the watchdog killed it", strategy=labels[0] if labels else "?",
                        seat=-1, game_seed=info["game_seed"], game_index=info["game_index"], kind="hung")
    return err


@contextlib.contextmanager
def _watchdog_here(handler):
    """Batches run in this process: a game the watchdog must kill ends the run through ``handler``."""
    previous = runner.Watchdog.handler
    runner.Watchdog.handler = staticmethod(handler)
    try:
        yield
    finally:
        runner.Watchdog.handler = previous


def _dispatch(batches, job, n_jobs, backend, client, keep, errors, on_hang, hang_dir) -> bool:
    """Run ``batches`` and hand each result to ``keep`` as it arrives.  Returns True when the run
    was interrupted.  Stops at the first failure once the batches before it are in."""
    stop = _StopRequest(n_jobs > 1 or client is not None)
    waiting = {a for a, _ in batches}
    with stop, _sigterm_raises(), warnings.catch_warnings(), _watchdog_here(on_hang):
        # joblib warns about cancelled or unused tasks when we stop early; that is intended
        warnings.filterwarnings("ignore", category=UserWarning, module="joblib")
        if client is not None:
            outputs = _dask_results(client, batches, job, n_jobs)
        elif n_jobs == 1:
            outputs = (run_batch(job(a, b)) for a, b in batches)
        else:
            outputs = _loky_results(batches, job, n_jobs, backend)  # (inside safe_worker_path)
        try:
            for res in outputs:
                keep(res)
                waiting.discard(res.start)
                if res.error is not None:
                    errors.append(res.error)
                if errors:
                    # batches go out in order, so every batch that starts before the first
                    # failure is running or done: wait for those, drop the rest
                    first = min(e.game_index or 0 for e in errors)
                    if not any(a <= first for a in waiting):
                        break
                    continue
                if res.interrupted:
                    stop.requested = True
                if stop.requested:
                    # keep the batches that were running when Ctrl-C came: with n workers,
                    # n - 1 others may still be finishing
                    stop.collected += 1
                    if stop.collected >= n_jobs or n_jobs == 1:
                        break
        except KeyboardInterrupt:
            return True
        except store.StoreError:
            raise
        except Exception as e:
            # a worker process died (SIGKILL, out of memory): what it was playing is lost, the
            # rest is on disk; a watchdog kill names its game
            errors.append(_worker_death(e, hang_dir))
        finally:
            close = getattr(outputs, "close", None)
            if close is not None:
                close()
    return stop.requested


def _worker_death(e: BaseException, hang_dir: str) -> BaseException:
    for p in sorted(Path(hang_dir).glob("hung-*.json")):
        try:
            return _hung_error(json.loads(p.read_text()))
        except (OSError, ValueError, KeyError):
            continue
    name = type(e).__name__
    if "Terminated" in name or "BrokenProcessPool" in name or "KilledWorker" in name:
        return WorkerDied("a worker process died (killed, or out of memory) and its games were lost; "
                          "the finished games are kept - continue with `analyser resume`")
    return WorkerDied(f"the run stopped: {name}: {str(e).splitlines()[0] if str(e) else ''}".rstrip(": "))


@contextlib.contextmanager
def _sigterm_raises():
    """SIGTERM in the main process raises :class:`Terminated`, so workers are stopped and what is
    finished is written (the default would kill this process and orphan the workers)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        raise Terminated()

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _loky_results(batches, job, n_jobs, backend):
    with safe_worker_path(), joblib.Parallel(n_jobs=n_jobs, backend=backend, pre_dispatch="n_jobs",
                         return_as="generator_unordered") as parallel:
        outputs = parallel(joblib.delayed(run_batch)(job(a, b)) for a, b in batches)
        try:
            yield from outputs
        finally:
            outputs.close()


# --------------------------------------------------------------------------------------------
# Dask
# --------------------------------------------------------------------------------------------

#: Seconds to wait for a Dask scheduler before giving up (environment: ANALYSER_DASK_CONNECT_TIMEOUT).
DASK_CONNECT_TIMEOUT = 10


def _dask_client(spec: RunSpec):
    """A ``dask.distributed`` client: to ``spec.scheduler``, or to a new LocalCluster with one
    single-threaded worker per job.  InputError (one line) when dask is missing, the address is
    malformed or the scheduler does not answer."""
    address = spec.scheduler
    if address is not None:
        check_scheduler_address(address)
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise InputError("--backend dask needs dask.distributed, which is not installed; "
                         "install it with: pip install 'analyser[dask]'") from None
    import logging
    from distributed import Client, LocalCluster
    logging.getLogger("distributed").setLevel(logging.ERROR)
    if address is None:
        workers = resolve_jobs(spec.jobs)
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address=None, silence_logs=logging.ERROR)
        client = Client(cluster)
        client._analyser_cluster = cluster
        return client
    try:
        return Client(address, timeout=float(os.environ.get("ANALYSER_DASK_CONNECT_TIMEOUT", DASK_CONNECT_TIMEOUT)))
    except (OSError, TimeoutError) as e:
        raise InputError(f"--scheduler {address!r} did not answer ({type(e).__name__}); start one with "
                         "`dask scheduler` and give its tcp://HOST:PORT address") from None
    except ValueError as e:
        raise InputError(f"--scheduler {address!r} is not accepted ({e}); give tcp://HOST:PORT") from None


def check_scheduler_address(address: str) -> None:
    """``tcp://HOST:PORT`` (or ``tls://``, ``inproc://``, ``ws://``, ``wss://``); InputError otherwise."""
    import re
    if not re.fullmatch(r"(tcp|tls|ws|wss)://[A-Za-z0-9_.\-\[\]:]+:\d{1,5}|inproc://\S+", address or ""):
        raise InputError(f"--scheduler {address!r} is not accepted; give a scheduler address such as "
                         "tcp://HOST:8786")


def _dask_slots(client) -> int:
    try:
        return max(1, sum(client.nthreads().values()))
    except Exception:
        return 1


def _close_dask(client) -> None:
    cluster = getattr(client, "_analyser_cluster", None)
    try:
        client.close()
    finally:
        if cluster is not None:
            cluster.close()


def _dask_results(client, batches, job, slots):
    """Submit the batches with at most ``2 * slots`` in flight; yield results as they finish.  A
    worker lost mid-batch has its batch rescheduled by the scheduler (each batch is a pure task
    keyed by its games, so nothing is doubled)."""
    from distributed import as_completed
    pending = iter(batches)
    run_key = uuid.uuid4().hex[:8]

    def submit():
        for a, b in pending:
            return client.submit(run_batch, job(a, b), key=f"analyser-batch-{run_key}-{a}", pure=False)
        return None

    live = set()
    for _ in range(2 * slots):
        f = submit()
        if f is not None:
            live.add(f)
    queue = as_completed(list(live))
    try:
        for fut in queue:
            res = fut.result()
            live.discard(fut)
            fut.release()
            nxt = submit()
            if nxt is not None:
                live.add(nxt)
                queue.add(nxt)
            yield res
    finally:
        for f in list(live):
            f.cancel()


def batch_frames(game, params, players, strategies, b: BatchResult, run_id: str) -> tuple[pd.DataFrame, dict]:
    """One batch's results -> its slice of the tidy results frame and of each extra table, sorted
    by game index (and seat).  Concatenating the slices of all batches in game order gives the
    run's frames."""
    cols = list(ROW_FIELDS) + list(game.metric_columns)
    df = (pd.DataFrame(b.columns, columns=cols) if b.columns is not None
          else pd.DataFrame.from_records(b.rows, columns=cols))
    names = list(dict.fromkeys(strategies))
    df["strategy"] = pd.Categorical([strategies[int(i)] for i in df["strategy"]], categories=names)
    df["game_seed"] = df["game_seed"].astype("uint64")
    for c in ("game_index", "seat", "rank"):
        df[c] = df[c].astype("int64")
    df["win"] = df["win"].astype("float64")
    df = df.sort_values(["game_index", "seat"], kind="stable").reset_index(drop=True)
    front = pd.DataFrame({"run_id": pd.Categorical([run_id] * len(df)),
                          "game": pd.Categorical([game.id] * len(df))})
    df.insert(2, "players", np.full(len(df), players, dtype="int64"))
    rule_cols = {}
    for k, v in params.as_dict().items():
        if k in df.columns:
            raise RuntimeError(f"rule option {k!r} collides with a result column")
        rule_cols[k] = pd.Categorical([v] * len(df)) if isinstance(v, str) else np.full(len(df), v)
    ident = ["game_index", "game_seed", "players", "seat", "strategy"]
    df = pd.concat([front, df[ident], pd.DataFrame(rule_cols, index=df.index), df.drop(columns=ident)], axis=1)
    extra_frames = {}
    for name, recs in b.extras.items():
        if not recs:
            continue
        frame = pd.DataFrame.from_records(recs)
        if {"game_index", "seat"} <= set(frame.columns):
            # each row also names its run, game seed and strategy, so the table stands on its own
            keys = df[["run_id", "game_index", "game_seed", "seat", "strategy"]]
            frame = frame.merge(keys, on=["game_index", "seat"], how="left", validate="many_to_one")
            first = [c for c in ("run_id", "game_index", "game_seed", "round", "seat", "strategy") if c in frame]
            frame = frame[first + [c for c in frame.columns if c not in first]]
        frame = frame.sort_values([c for c in ("game_index", "round", "seat") if c in frame.columns],
                                  kind="stable").reset_index(drop=True)
        extra_frames[name] = compact(frame)
    return df, extra_frames


def compact(frame: pd.DataFrame) -> pd.DataFrame:
    """An extra table in compact dtypes: whole numbers as int32 (``game_index`` int64,
    ``game_seed`` uint64), text as categories.  Fixed types, so every part has the same schema."""
    out = {}
    for c in frame.columns:
        s = frame[c]
        if c == "game_index":
            out[c] = s.astype("int64")
        elif c == "game_seed":
            out[c] = s.astype("uint64")
        elif pd.api.types.is_bool_dtype(s):
            out[c] = s.astype("int8")
        elif pd.api.types.is_integer_dtype(s):
            out[c] = s.astype("int32")
        elif s.dtype == object or pd.api.types.is_string_dtype(s):
            out[c] = s.astype("category")
        else:
            out[c] = s
    return pd.DataFrame(out, index=frame.index)


def batch_tables(game, params, players, strategies, b: BatchResult, run_id: str) -> dict:
    """One batch as arrow tables: ``{name: table}`` for each extra table, then ``results``."""
    import pyarrow as pa
    df, extras = batch_frames(game, params, players, strategies, b, run_id)
    out = {name: pa.Table.from_pandas(f, preserve_index=False) for name, f in extras.items()}
    for name in game.extra_tables:  # every batch has a part of each extra table, maybe empty
        out.setdefault(name, pa.table({"game_index": pa.array([], pa.int64())}))
    out[store.RESULTS] = pa.Table.from_pandas(df, preserve_index=False)
    return out


def assemble(game, params, players, strategies, batch_results, seed, run_id: str | None = None
             ) -> tuple[pd.DataFrame, dict]:
    """Batch results -> the tidy results frame and the extra frames, sorted by game index."""
    run_id = run_id or f"{game.id}-{seed}"
    frames, extras = [], {}
    for b in sorted(batch_results, key=lambda b: b.start):
        df, ex = batch_frames(game, params, players, strategies, b, run_id)
        frames.append(df)
        for name, f in ex.items():
            extras.setdefault(name, []).append(f)
    nonempty = [f for f in frames if len(f)] or frames[:1]
    df = pd.concat(nonempty, ignore_index=True) if nonempty else pd.DataFrame()
    out = {}
    for name, fs in extras.items():
        f = pd.concat(fs, ignore_index=True)
        for c in f.columns:
            if f[c].dtype == object or pd.api.types.is_string_dtype(f[c]):
                f[c] = f[c].astype("category")
        out[name] = f
    return df, out


def write_csv(out: Path, names: list[str] | None = None) -> list[Path]:
    """Write ``results.csv`` (and ``<extra>.csv``) beside a run's parts, one part at a time, so
    memory stays bounded.  Returns the files written."""
    written = []
    for name in [store.RESULTS] + list(names or []):
        parts = store.part_files(out / name)
        if not parts:
            continue
        target = out / f"{name}.csv"
        tmp = out / f".{name}.csv.tmp"
        try:
            with open(tmp, "wb") as fh:
                header = True
                for p in parts:
                    t = pq.read_table(p)
                    if not t.num_rows:
                        continue
                    # the same text as pandas' to_csv, without loading the run
                    fh.write(t.to_pandas().to_csv(index=False, header=header).encode("utf-8"))
                    header = False
            os.replace(tmp, target)
        except OSError as e:
            tmp.unlink(missing_ok=True)
            raise store.StoreError(f"cannot write {target}: {e.strerror or type(e).__name__}") from None
        written.append(target)
    return written


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


def read_config(out: Path) -> dict:
    """The config.json of a run folder, for resuming it.  InputError (one line) when ``out`` is not
    a run folder, holds a complete run, or was written by a newer analyser."""
    out = Path(out)
    if not out.is_dir():
        raise InputError(f"{str(out)!r} is not a run folder (no such folder); give the --out folder of a run")
    try:
        config = json.loads((out / "config.json").read_text())
    except FileNotFoundError:
        raise InputError(f"{str(out)!r} is not a run folder (no config.json); give the --out folder of a run") from None
    except (OSError, ValueError) as e:
        raise InputError(f"{str(out)!r}: config.json cannot be read ({type(e).__name__}); "
                         "it is not a run that can be resumed") from None
    if not isinstance(config, dict) or not {"game", "seed", "strategies", "games_requested"} <= set(config):
        raise InputError(f"{str(out)!r} is not an analyser run folder (config.json lacks the run's game, "
                         "seed or strategies)")
    layout = config.get("layout", 1)
    made_by = str((config.get("versions") or {}).get("analyser", "0"))
    if not isinstance(layout, int) or layout > store.LAYOUT or _version_key(made_by) > _version_key(__version__):
        raise InputError(f"{str(out)!r} was written by analyser {made_by} (layout {layout}); this is analyser "
                         f"{__version__}, which cannot resume it; upgrade analyser")
    if layout < store.LAYOUT or "run_id" not in config:
        raise InputError(f"{str(out)!r} was written by an analyser without resumable runs "
                         "(one results.parquet); it cannot be resumed, start a new run")
    if config.get("status") == "complete":
        raise InputError(f"{str(out)!r} holds a complete run ({config.get('games_completed')} games); "
                         "nothing to resume")
    return config


def _version_key(v: str) -> tuple:
    import re
    return tuple(int(x) for x in re.findall(r"\d+", v)[:3])


def resume(out: str | Path, *, progress: bool | None = None, command: str | None = None) -> RunResult:
    """Continue the interrupted or failed run in ``out``: the same spec and run id, only the games
    that have no part on disk are played, and the union equals one uninterrupted run.  A part cut
    short by a kill is deleted and redone.  InputError for a folder that is not a run, a complete
    run, a run from a newer version, or one another process is writing."""
    out = Path(out)
    config = read_config(out)
    holder = store.holder_of(out)
    if holder is not None:
        raise InputError(f"{str(out)!r} is in use by another analyser run (PID {holder[0]} on {holder[1]}); "
                         "wait for it to stop")
    spec = spec_from_config(config)
    return run(spec, progress=progress, command=command, out=out, resume=True)


def spec_from_config(config: dict) -> RunSpec:
    """The RunSpec a config.json records (for resume)."""
    return RunSpec(game=config.get("title_source") or config["game"], strategies=list(config["strategies"]), players=config.get("players"),
                   games=int(config["games_requested"]), seed=int(config["seed"]),
                   jobs=config.get("jobs_requested", 0), rules=dict(config.get("rule_overrides") or {}),
                   batch_size=config.get("batch_size"), first_game=int(config.get("first_game") or 0),
                   game_timeout=float(config.get("game_timeout", 60.0)),
                   backend=config.get("backend") or "loky", scheduler=config.get("scheduler"))


def _read_parts(folder: Path, columns: list[str] | None = None, per_part=None,
                drop: tuple[str, ...] = ()) -> pd.DataFrame:
    """Every part of ``folder`` as one frame (only ``columns`` that exist, when given; without the
    ``drop`` columns).  ``per_part(frame)``, when given, shrinks each part before they are joined
    (e.g. smaller integer types), so the whole table is never held in its wide form."""
    import pyarrow as pa
    pieces = []
    for p in store.part_files(folder):
        try:
            schema = pq.read_schema(p)
            cols = [c for c in (schema.names if columns is None else columns) if c in schema.names and c not in drop]
            t = pq.read_table(p, columns=cols)
        except Exception as e:
            raise InputError(f"{str(p)!r} cannot be read: {type(e).__name__}") from None
        if not t.num_rows:
            continue
        if per_part is None:
            pieces.append(t)
        else:
            pieces.append(_narrow(t))
    if not pieces:
        return pd.DataFrame()
    table = pa.concat_tables(pieces, promote_options="permissive")
    del pieces
    if per_part is None:
        return table.to_pandas()
    # convert column by column, dropping each arrow column once converted, so the table is
    # never held twice
    data = {}
    for name in list(table.column_names):
        col = table.column(name)
        if pa.types.is_dictionary(col.type):
            data[name] = col.to_pandas().values
        else:
            data[name] = col.to_numpy()
        del col
        table = table.drop_columns([name])
    del table
    out = per_part(pd.DataFrame(data, copy=False))
    del data
    for c in out.columns:  # categories that differ from part to part (text in extra tables)
        if out[c].dtype == object or pd.api.types.is_string_dtype(out[c]):
            out[c] = out[c].astype("category")
    return out


def _distinct_text(col: pd.Series) -> list[str]:
    """The distinct values of a column as text, in order of appearance (cheap for categories)."""
    if isinstance(col.dtype, pd.CategoricalDtype):
        used = pd.unique(col.cat.codes)
        return [str(col.cat.categories[i]) for i in used if i >= 0]
    return [str(x) for x in pd.unique(col.astype(str))]


def _narrow(t):
    """An arrow table with its 64-bit whole numbers as int32 where the values fit (game seeds
    excepted), to keep many parts small in memory before they are joined."""
    import pyarrow as pa
    import pyarrow.compute as pc
    cols = []
    for name, col in zip(t.column_names, t.columns):
        if name != "game_seed" and pa.types.is_integer(col.type) and col.type.bit_width > 32 and len(col):
            mm = pc.min_max(col)
            lo, hi = mm["min"].as_py(), mm["max"].as_py()
            if lo is not None and -2 ** 15 <= lo and hi < 2 ** 15 and name != "game_index":
                col = col.cast(pa.int16())
            elif lo is not None and -2 ** 31 <= lo and hi < 2 ** 31:
                col = col.cast(pa.int32())
        cols.append(col)
    return pa.table(cols, names=t.column_names)


#: Title files (absolute paths) that a results table's ``config.json`` may name: those the user
#: gave on the command line (``--title``) or that this process already ran.
_TRUSTED_TITLE_FILES: set[str] = set()


def trust_title_file(source: str) -> None:
    """Allow :func:`load_results` to load the title file ``source`` (a path, with or without a
    ``:Class`` suffix) named by a run's ``config.json``.  Loading a title file runs its code, so a
    results folder from someone else never does that unless the user names the file."""
    _TRUSTED_TITLE_FILES.add(_title_file_key(source))


def is_trusted_title_file(source: str) -> bool:
    """True when :func:`trust_title_file` was called for ``source``'s file."""
    return _title_file_key(source) in _TRUSTED_TITLE_FILES


def _title_file_key(source: str) -> str:
    path = source
    head, sep, tail = source.rpartition(":")
    if sep and head and "/" not in tail and not tail.endswith(".py"):
        path = head  # a ./file.py:Class reference
    try:
        return str(Path(path).expanduser().resolve())
    except (OSError, RuntimeError, ValueError):
        return path


def load_results(path: Path, columns: list[str] | None = None, per_part=None,
                 extra_drop: tuple[str, ...] = ()) -> tuple[pd.DataFrame, dict[str, pd.DataFrame], dict]:
    """Read a run folder (its Parquet parts, or the single ``results.parquet`` of older runs), a
    results file (Parquet or CSV), with the extra tables and config.json.

    ``columns``: read only these result columns (those that exist), to keep memory down;
    ``per_part``: a function shrinking each part's frame before the parts are joined;
    ``extra_drop``: columns of the extra tables not to read.
    A single results file (and the whole table of a run folder, when no ``columns`` are asked
    for) is validated against its title's results schema (:func:`validate_results`) and the
    config against the table (:func:`validate_config`) before anything else uses them; the
    title's extra tables found beside a single file are validated too (:func:`validate_extra`).
    Raises InputError (one line naming the file, the column and the problem) otherwise.
    """
    from analyser.safeio import check_regular_file

    path = Path(path)
    if path.is_dir() and path.name == store.RESULTS and store.part_files(path):
        path = path.parent  # the parts folder itself: read its run
    folder = path if path.is_dir() else path.parent
    if path.is_dir() and (path / store.RESULTS).is_dir() and store.part_files(path / store.RESULTS):
        df = _read_parts(path / store.RESULTS, columns, per_part)
        path = path / store.RESULTS
        whole = columns is None
    else:
        given_folder = path.is_dir()
        if given_folder:
            path = folder / "results.parquet" if (folder / "results.parquet").exists() else folder / "results.csv"
        if not path.exists():
            kind = _experiment_kind(folder)
            if kind:
                tables = sorted(p.name for p in folder.glob("*.parquet"))
                pooled = (f"; to pool its games in one report elsewhere give {str(folder / tables[0])!r} --out DIR"
                          if tables else "")
                raise InputError(f"{str(folder)!r} is a {kind} folder, not a run: its report is "
                                 f"{str(folder / 'index.html')!r}{pooled}")
            if (folder / store.RESULTS).is_dir():
                raise InputError(f"{str(folder / store.RESULTS)!r} holds no finished part (part-*.parquet): the run "
                                 "has no finished games to report")
            if given_folder:
                raise InputError(f"{str(folder)!r} is not a run folder: it has no results/ parts, results.parquet "
                                 "or results.csv; give a run folder or a results file")
            raise InputError(f"results file {str(path)!r} does not exist; give a run folder, results.parquet "
                             "or results.csv")
        check_regular_file(path, "results file")
        df = _read_table(path, "results file")
        whole = True
    game, config = _title_and_config(df, folder, path)
    if whole:
        validate_results(df, game, path)
        if (folder / "config.json").exists() and not (isinstance(config, dict)
                                                      and config.get("kind") in EXPERIMENT_KINDS):
            validate_config(config, df, game, folder / "config.json", path)
    extras = {}
    for name in game.extra_tables:
        if (folder / name).is_dir():
            frame = _read_parts(folder / name, per_part=per_part, drop=extra_drop)
            if len(frame):
                extras[name] = frame
            continue
        for p in (folder / f"{name}.parquet", folder / f"{name}.csv"):
            if p.exists() and (p.suffix == ".parquet" or path.suffix != ".parquet"):
                check_regular_file(p, f"{name} table")
                extras[str(name)] = validate_extra(_read_table(p, f"{name} table"), game, name, p, df)
                break
    if path.suffix not in (".parquet", "") and path.name != store.RESULTS:  # CSV has no empty string: an empty text rule option reads as NaN
        for o in game.Params.options():
            if o["type"] == "str" and o["name"] in df.columns:
                df[o["name"]] = df[o["name"]].astype(object).where(df[o["name"]].notna(), "").astype(str)
    for col in game.metric_columns:  # an empty score trace (not recorded for that game) is ""
        if getattr(col, "kind", "") == "trace" and col in df.columns:
            df[col] = df[col].astype(object).where(df[col].notna(), "").astype(str)
    if "strategy" in df.columns:
        seen = _distinct_text(df["strategy"])
        order = [s for s in (config.get("strategies") or []) if isinstance(s, str) and s in set(seen)]
        categories = list(dict.fromkeys(order + seen))
        if isinstance(df["strategy"].dtype, pd.CategoricalDtype):  # without a text copy of the column
            col = df["strategy"].cat.rename_categories([str(c) for c in df["strategy"].cat.categories])
            df["strategy"] = col.cat.remove_unused_categories().cat.set_categories(categories)
        else:
            df["strategy"] = pd.Categorical(df["strategy"].astype(str), categories=categories)
    return df, extras, config


#: The kinds of folder an experiment writes (config.json ``kind``), each with its own report.
EXPERIMENT_KINDS = ("sweep", "tournament", "compare")


def _experiment_kind(folder: Path) -> str | None:
    """``sweep``, ``tournament`` or ``compare`` when ``folder`` holds that experiment's record."""
    from analyser.safeio import read_json
    try:
        config = read_json(folder / "config.json", "config file", max_bytes=10_000_000)
    except (InputError, OSError):
        return None
    kind = config.get("kind") if isinstance(config, dict) else None
    return kind if kind in EXPERIMENT_KINDS else None


def _title_and_config(df: pd.DataFrame, folder: Path, path: Path):
    """The title of a results frame (or of its first part) and the ``config.json`` beside it:
    ``(game, config)``.  A title from a file is loaded only when this process trusts that file.
    Raises InputError."""
    from analyser.safeio import read_json
    if "game" not in df.columns:
        raise InputError(f"{str(path)!r} is not an analyser results table; it lacks the column 'game' "
                         "(see README: What a run writes)")
    if df.empty:
        raise InputError(f"{str(path)!r} holds no games (a header and no rows)")
    games = _distinct_text(df["game"])
    if len(games) != 1 or df["game"].isna().any():
        raise InputError(f"{str(path)!r}: column 'game': every row must name the same title; "
                         f"{'some rows name none' if len(games) <= 1 else f'{len(games)} titles are mixed'}; "
                         "report one title at a time")
    config = {}
    if (folder / "config.json").exists():
        config = read_json(folder / "config.json", "config file", max_bytes=10_000_000)
    if isinstance(config, dict) and config.get("kind") in EXPERIMENT_KINDS:
        # a sweep's, tournament's or comparison's record describes many runs: keep only what it is
        config = {"kind": config["kind"], "command": config.get("command"), "versions": config.get("versions")
                  if isinstance(config.get("versions"), dict) else {}}
    title = str(games[0])
    # a title from a file is loaded again from its file (recorded by the run that made the table),
    # but only when this process already trusts that file: loading it runs its code
    source = config.get("title_source") if isinstance(config, dict) and config.get("game") == title else None
    if isinstance(source, str) and not is_trusted_title_file(source):
        raise InputError(f"{str(path)!r}: this run's title comes from the file {source!r}, and loading it runs "
                         f"that file's code; analyser does not do that unasked: pass --title {source} to trust it")
    from analyser.registry import game_ids, loaded_file_title
    if not isinstance(source, str) and title not in game_ids() and loaded_file_title(title) is not None:
        return loaded_file_title(title), config  # a title of one's own, named with --title
    if not isinstance(source, str) and title not in game_ids():
        raise InputError(f"{str(path)!r}: column 'game' names no title this analyser knows; it takes one of: "
                         f"{', '.join(game_ids())} (for a title of your own, pass --title FILE)")
    game = get_game(source if isinstance(source, str) else title)
    return game, config


def check_parts(out: Path, game, config: dict) -> list[list[int]]:
    """Check a run folder's parts before a report reads them: each part's footer names the games
    it holds and its file name agrees; no two parts hold the same game; each extra table has the
    parts the results have; and the games on disk are those ``config.json`` records as done.
    Returns the merged game ranges on disk.  Raises InputError (one line naming the part) for a
    damaged part, one copied or renamed by hand, or a missing one."""
    resume = f"remove it and run `analyser resume {out}` to play its games again"
    ranges = []
    previous = None
    for p in store.part_files(out / store.RESULTS):
        rng = store.part_range(p)
        if rng is None:
            raise InputError(f"part {str(p)!r} is damaged or not an analyser part (its footer cannot be read); {resume}")
        if p.name != store.part_name(rng[0]):
            raise InputError(f"part {str(p)!r} holds games {rng[0]} to {rng[1] - 1} but is named for another game: "
                             "a part renamed or copied by hand; remove it")
        if previous is not None and rng[0] < previous[1][1]:
            raise InputError(f"part {str(p)!r} holds games {rng[0]} to {rng[1] - 1}, which "
                             f"{str(previous[0])!r} holds too; remove the part that does not belong to this run")
        previous = (p, rng)
        ranges.append(rng)
    for name in game.extra_tables:
        folder = out / str(name)
        if not folder.is_dir():
            continue
        extra = {store.part_range(p) for p in store.part_files(folder)}
        lacking = [r for r in ranges if r not in extra]
        if extra and lacking:
            a, b = lacking[0]
            raise InputError(f"{str(folder)!r} lacks the part of games {a} to {b - 1} that {str(out / store.RESULTS)!r} "
                             f"has; {resume.replace('it', 'the results part', 1)}")
    merged = store.merge_ranges(ranges)
    done = config.get("games_done") if isinstance(config, dict) else None
    if isinstance(done, list) and all(isinstance(r, list) and len(r) == 2 for r in done):
        recorded = store.merge_ranges([(int(a), int(b)) for a, b in done])
        if recorded != merged:
            def show(rs):
                return ", ".join(f"{a}-{b - 1}" for a, b in rs[:4]) + (" ..." if len(rs) > 4 else "")
            raise InputError(f"{str(out / store.RESULTS)!r} holds games {show(merged) or 'none'}, but config.json "
                             f"records games {show(recorded) or 'none'} as done: a part is missing or was added by "
                             "hand; restore it, or remove the stray part")
    return merged


def open_run(out: Path):
    """A run folder with Parquet parts, opened for a streamed report without reading its whole
    table: ``(game, config, strategies)`` - the strategies in the order of the config's lineup,
    then of first appearance.  The config is checked against the first part.  Raises
    InputError."""
    from analyser import streamed

    out = Path(out)
    holder = store.holder_of(out)
    if holder is not None:
        raise InputError(f"{str(out)!r} is still being written by a run (PID {holder[0]} on {holder[1]}); report it "
                         "when the run has finished")
    parts = store.part_files(out / store.RESULTS)
    head = streamed.read_part(parts[0], ("game_seed",))
    game, config = _title_and_config(head, out, out / store.RESULTS)
    if (out / "config.json").exists():
        validate_config(config, head, game, out / "config.json", out / store.RESULTS)
    check_parts(out, game, config)
    seen = streamed.run_strategies(out)
    order = [s for s in (config.get("strategies") or []) if isinstance(s, str) and s in set(seen)]
    return game, config, list(dict.fromkeys(order + seen))


def _read_table(path: Path, what: str) -> pd.DataFrame:
    """A Parquet or CSV file as a DataFrame; InputError (naming the error type only) otherwise."""
    try:
        if path.suffix == ".parquet":
            return pd.read_parquet(path)
        return pd.read_csv(path)
    except pd.errors.EmptyDataError:
        raise InputError(f"{what} {str(path)!r} is empty; it needs at least a header line") from None
    except Exception as e:  # noqa: BLE001 - parsers raise many kinds; none may escape as a traceback
        kind = "Parquet" if path.suffix == ".parquet" else "CSV"
        takes = ("a results.parquet or results.csv as analyser writes them, or a run folder"
                 if what == "results file" else f"the {what} as analyser writes it")
        raise InputError(f"{what} {str(path)!r} cannot be read as {kind} ({type(e).__name__}); it takes "
                         f"{takes}") from None


def missing_tables(game, extras: dict) -> list[str]:
    """One note per extra table the title declares but ``extras`` lacks (or holds empty), e.g.
    ``"no rounds table: the bidding tables are left out"``."""
    out = []
    for name in game.extra_tables:
        frame = extras.get(str(name))
        if frame is None or len(frame) == 0:
            feeds = getattr(name, "feeds", "") or f"the figures built from {name}"
            out.append(f"no {name} table: {feeds} are left out")
    return out


def _kind_of(dtype) -> str:
    """``"int"``, ``"float"``, ``"bool"``, ``"text"`` or ``"other"`` for a pandas dtype or a
    pyarrow DataType (so a schema can be checked before a lazily read table is loaded)."""
    try:
        import pyarrow as pa
        if isinstance(dtype, pa.DataType):
            if pa.types.is_dictionary(dtype):
                dtype = dtype.value_type
            if pa.types.is_boolean(dtype):
                return "bool"
            if pa.types.is_integer(dtype):
                return "int"
            if pa.types.is_floating(dtype):
                return "float"
            if pa.types.is_string(dtype) or pa.types.is_large_string(dtype):
                return "text"
            if pa.types.is_null(dtype):
                return "float"  # all missing
            return "other"
    except ImportError:  # pragma: no cover - pyarrow is a dependency
        pass
    if isinstance(dtype, pd.CategoricalDtype):
        return _kind_of(dtype.categories.dtype) if len(dtype.categories) else "text"
    if pd.api.types.is_bool_dtype(dtype):
        return "bool"
    if pd.api.types.is_integer_dtype(dtype):
        return "int"
    if pd.api.types.is_float_dtype(dtype):
        return "float"
    if pd.api.types.is_string_dtype(dtype) or dtype == object:
        return "text"
    return "other"


_ACCEPTS = {"whole": {"int", "float"}, "count": {"int", "float"}, "number": {"int", "float"},
            "share": {"int", "float"}, "label": {"text", "int"}, "flag": {"bool", "int"},
            "trace": {"text", "int", "float"}}
#: A score trace: finite numbers separated by spaces (``encode_trace``), or nothing.
_TRACE = r"\s*(?:-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?:\s+-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)*)?\s*"


def validate_columns(columns: dict[str, Any], game, path, schema=None, what: str | None = None) -> None:
    """Check the column names and types of a results table against ``game.results_schema()``.

    ``columns`` maps each column name to its pandas dtype or pyarrow DataType (``dict(zip(
    schema.names, schema.types))`` for a pyarrow schema, ``df.dtypes.to_dict()`` for a frame), so
    this runs before any row is loaded.  Raises InputError naming the file, the column and what
    it takes.  Columns the schema does not know are ignored.  ``schema`` (``[(Metric,
    required)]``) and ``what`` (e.g. ``"rounds table"``) check another table of the title.
    """
    schema = game.results_schema() if schema is None else schema
    missing = [str(c) for c, required in schema if required and c not in columns]
    if missing:
        raise InputError(f"{str(path)!r} is not a {game.id} {what or 'results table'}: it lacks the column"
                         f"{'s' if len(missing) > 1 else ''} {', '.join(missing)} (see README: What a run writes)")
    for col, _ in schema:
        if col not in columns:
            continue
        kind = _kind_of(columns[col])
        ok = _ACCEPTS[col.kind] | ({"float"} if col.missing else set())
        if kind not in ok:
            held = {"text": "text", "bool": "true/false values", "int": "numbers", "float": "numbers"}.get(
                kind, "values of another type")
            raise InputError(f"{str(path)!r}: column {str(col)!r} holds {held}; it takes {col.accepts()}")


def _first_row(mask) -> int:
    """Position of the first True of a boolean array (rows are numbered from 1 in messages)."""
    return int(np.flatnonzero(np.asarray(mask))[0]) + 1


def _check_values(df: pd.DataFrame, schema, path) -> None:
    """Check every cell of the schema's columns (their types already checked): labels non-empty
    and short, flags 0/1, numbers finite (or missing where allowed), whole where whole numbers
    are needed, within their bounds.  Raises InputError naming the column and the first bad row;
    a number is shown, text never is."""
    where = repr(str(path))
    for col, _ in schema:
        if col not in df.columns:
            continue
        s = df[col]
        if col.kind == "label":
            if isinstance(s.dtype, pd.CategoricalDtype):
                s = s.astype(object)
            as_text = s.astype(str)
            empty = s.isna().to_numpy() | (as_text.str.strip() == "").to_numpy()
            if empty.any() and not col.missing:
                raise InputError(f"{where}: column {str(col)!r}: row {_first_row(empty)} is empty; "
                                 f"it takes {col.accepts()}")
            long = (as_text.str.len() > 1000).to_numpy()
            if long.any():
                raise InputError(f"{where}: column {str(col)!r}: row {_first_row(long)} holds text longer than "
                                 "1,000 characters")
            continue
        if col.kind == "trace":
            cells = s.astype(object)
            present = cells.notna().to_numpy()
            text = cells[present].astype(str)
            import pyarrow as pa
            import pyarrow.compute as pc
            arr = pa.array(text.to_numpy(dtype=object), type=pa.large_string())
            ok = pc.match_substring_regex(arr, f"^(?:{_TRACE})$").to_numpy(zero_copy_only=False)
            bad = ~ok.astype(bool) | (pc.utf8_length(arr).to_numpy(zero_copy_only=False) > 1_000_000)
            if bad.any():
                raise InputError(f"{where}: column {str(col)!r}: row {_first_row(_lift(bad, ~present))} is not "
                                 f"a score trace; it takes {col.accepts()}")
            if not col.missing and not present.all():
                raise InputError(f"{where}: column {str(col)!r}: row {_first_row(~present)} is empty; "
                                 f"it takes {col.accepts()}")
            continue
        if col.kind == "flag":
            if _kind_of(s.dtype) == "int" and not s.isin([0, 1]).all():
                raise InputError(f"{where}: column {str(col)!r}: row {_first_row(~s.isin([0, 1]))} is not 0 or 1; "
                                 f"it takes {col.accepts()}")
            continue
        nan = pd.isna(s).to_numpy()
        if nan.any() and not col.missing:
            raise InputError(f"{where}: column {str(col)!r}: row {_first_row(nan)} is empty; it takes {col.accepts()}")
        v = s.to_numpy()[~nan] if nan.any() else s.to_numpy()
        if v.dtype.kind == "f":
            bad = ~np.isfinite(v)
            if bad.any():
                raise InputError(f"{where}: column {str(col)!r}: row {_first_row(_lift(bad, nan))} is "
                                 f"{v[bad][0]}; it takes {col.accepts()}")
            if col.kind in ("whole", "count"):
                bad = v != np.floor(v)
                if bad.any():
                    raise InputError(f"{where}: column {str(col)!r}: row {_first_row(_lift(bad, nan))} is "
                                     f"{v[bad][0]:g}, not a whole number; it takes {col.accepts()}")
        low = col.low if col.low is not None else (0 if col.kind in ("count", "share") else None)
        high = col.high if col.high is not None else (1 if col.kind == "share" else None)
        for bad in ((v < low) if low is not None else None, (v > high) if high is not None else None):
            if bad is not None and bad.any():
                raise InputError(f"{where}: column {str(col)!r}: row {_first_row(_lift(bad, nan))} is "
                                 f"{v[bad][0]:g}; it takes {col.accepts()}")


def validate_results(df: pd.DataFrame, game, path) -> None:
    """Validate a results frame against ``game.results_schema()`` before any work is done on it.

    Checks: every required column present with the right type (:func:`validate_columns`);
    numbers finite and whole where whole numbers are needed, within their bounds; labels
    non-empty; one player count; seats ``0..players-1`` exactly once per game; ranks from 1 to
    players; wins (1/k for a k-way shared win) adding up to 1 in every game.  Raises
    InputError: one line naming the file, the column, the first bad row (counted from 1, after
    the header) and what the column takes.  Cell text is never quoted.
    """
    schema = game.results_schema()
    validate_columns(df.dtypes.to_dict(), game, path, schema)
    _check_values(df, schema, path)
    where = repr(str(path))
    if df["players"].nunique() > 1:
        raise InputError(f"{where}: column 'players': the table mixes player counts "
                         f"({', '.join(map(str, sorted(df['players'].unique())))}); report one player count at a time")
    players = int(df["players"].iloc[0])
    for name, top in (("seat", players - 1), ("rank", players)):
        bad = (df[name] > top).to_numpy()
        if bad.any():
            raise InputError(f"{where}: column {name!r}: row {_first_row(bad)} is {df[name].to_numpy()[bad][0]}; "
                             f"with {players} players it takes at most {top}")
    keys = (["run_id"] if "run_id" in df.columns else []) + ["game_index"]
    dup = df.duplicated(keys + ["seat"]).to_numpy()
    if dup.any():
        raise InputError(f"{where}: columns {', '.join(keys + ['seat'])}: row {_first_row(dup)} repeats a game "
                         "and seat; each game has one row per seat (runs joined by hand that share a seed need "
                         "their own run_id values)")
    g = df.groupby(keys, observed=True, sort=False)

    def name(key):  # "game 3" or "game 3 of run <game>-1-0a1b2c3d"
        if isinstance(key, tuple):
            run, index = key
            return f"game {int(index)} of run {run}" if len(str(run)) <= 100 else f"game {int(index)}"
        return f"game {int(key)}"
    sizes = g["seat"].size()
    if (sizes != players).any():
        first = sizes.index[np.flatnonzero((sizes != players).to_numpy())[0]]
        raise InputError(f"{where}: column 'seat': {name(first)} has {int(sizes.loc[first])} rows; "
                         f"with {players} players each game has one row per seat")
    wins = g["win"].sum()
    off = (wins - 1.0).abs() > 1e-6
    if off.any():
        first = wins.index[np.flatnonzero(off.to_numpy())[0]]
        raise InputError(f"{where}: column 'win': the wins of {name(first)} add up to {float(wins.loc[first]):g}; "
                         "they add up to 1 in every game (1/k each for a k-way shared win)")


def _lift(bad, nan):
    """A mask over the non-missing values, spread back over all rows (missing rows False)."""
    if not nan.any():
        return bad
    out = np.zeros(len(nan), dtype=bool)
    out[np.flatnonzero(~nan)[np.asarray(bad)]] = True
    return out


def validate_chunk(df: pd.DataFrame, game, path) -> None:
    """:func:`validate_results` for one chunk of whole games of a run folder read part by part;
    the message names the chunk's games, and its row numbers count within them."""
    lo, hi = int(df["game_index"].min()), int(df["game_index"].max())
    validate_results(df, game, f"{path} (games {lo} to {hi})")


def validate_config(config, df: pd.DataFrame, game, config_path, results_path) -> None:
    """Check that ``config.json`` belongs to the results beside it: a JSON object whose title,
    seed and run id agree with the table's.  A report's header and command come from the
    config, so a config of another run would mislead.  Raises InputError."""
    where = str(config_path)
    if not isinstance(config, dict):
        raise InputError(f"config file {where!r} holds a JSON {type(config).__name__}, not an object; "
                         "it must be the config.json of the run beside it (or move it away)")
    if config.get("game") != game.id:
        raise InputError(f"config file {where!r} is for another title than {str(results_path)!r} ({game.id}); "
                         "it must be the config.json of the run beside it (or move it away)")
    seed = config.get("seed")
    if not (isinstance(seed, int) and not isinstance(seed, bool)):
        raise InputError(f"config file {where!r}: 'seed' is not a whole number")
    if "run_id" in df.columns:
        ids = df["run_id"].astype(str).unique()
        run_id = config.get("run_id")
        if isinstance(run_id, str):
            agree = len(ids) == 1 and ids[0] == run_id
        else:  # a config written before runs recorded their id: the id starts <game>-<seed>
            run_id = f"{game.id}-{seed}"
            agree = all(i == run_id or i.startswith(run_id + "-") for i in ids)
        if not agree:
            shown = "the run " + ids[0] if len(ids) == 1 and len(ids[0]) < 100 else f"{len(ids)} runs"
            raise InputError(f"config file {where!r} is for the run {run_id}, but {str(results_path)!r} holds "
                             f"{shown}; it must be the config.json of the run beside it (or move it away)")
    for key in ("strategies", "rule_overrides", "rules", "versions"):
        if key in config and not isinstance(config[key], list if key == "strategies" else dict):
            raise InputError(f"config file {where!r}: {key!r} has the wrong type")
    if isinstance(config.get("strategies"), list) and not all(isinstance(s, str) for s in config["strategies"]):
        raise InputError(f"config file {where!r}: 'strategies' must be a list of text")


def validate_extra(frame: pd.DataFrame, game, name, path, results: pd.DataFrame) -> pd.DataFrame:
    """Validate an extra table against the columns its title declares
    (:class:`~analyser.core.ExtraTable`: ``game_index`` and ``seat`` always) with the same checks
    as the results, and check it belongs to the results beside it (its run ids are theirs).
    Returns the frame; raises InputError."""
    from analyser.core import Metric
    declared = [c for c in getattr(name, "columns", ()) if c not in ("game_index", "seat")]
    schema = [(c, True) for c in [Metric("game_index", "count"), Metric("seat", "count")] + declared]
    validate_columns(frame.dtypes.to_dict(), game, path, schema, what=f"{name} table")
    _check_values(frame, schema, path)
    if "run_id" in frame.columns and "run_id" in results.columns:
        if not set(frame["run_id"].astype(str).unique()) <= set(results["run_id"].astype(str).unique()):
            raise InputError(f"{str(path)!r}: column 'run_id': the {name} table is from another run than the results "
                             "beside it; keep a run's files together")
    return frame


def default_out(game_id: str) -> Path:
    """``reports/<game>-<timestamp>`` under the current directory."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    base = Path("reports") / f"{game_id}-{stamp}"
    p, k = base, 1
    while p.exists():
        k += 1
        p = Path(f"{base}-{k}")
    return p


def prepare_out(out: str | Path, replace_run: bool = True) -> Path:
    """Make ``out`` ready for a run's files and return it as a Path.

    A new or empty folder is used as it is.  A folder holding an earlier analyser run (its
    ``config.json``) has that run's files removed first when ``replace_run``, so no stale file
    survives beside the new ones.  Any other non-empty folder, an empty name or an unwritable
    place raises InputError.
    """
    if str(out).strip() == "":
        raise InputError("--out '' is not accepted; give a folder name")
    out = Path(out)
    check_writable(out)
    entries = sorted(p.name for p in out.iterdir())
    if not entries:
        return out
    previous = None
    if (out / "config.json").exists():
        from analyser.safeio import read_json
        try:
            previous = read_json(out / "config.json", "config file", max_bytes=10_000_000)
        except InputError:
            pass
    is_run = isinstance(previous, dict) and {"seed", "game", "status"} <= set(previous)
    if not replace_run:
        what = "holds a run, whose files a report there would overwrite" if is_run else \
            f"is not empty ({len(entries)} entries)"
        raise InputError(f"--out {str(out)!r} {what}; choose a new or empty folder (or leave out --out to rebuild "
                         "a run's report in its own folder)")
    if not is_run:
        raise InputError(f"--out {str(out)!r} is not empty ({len(entries)} entries) and holds no analyser run to "
                         "replace; choose a new or empty folder")
    holder = store.holder_of(out)
    if holder is not None:
        raise InputError(f"--out {str(out)!r} is in use by another analyser run (PID {holder[0]} on {holder[1]}); "
                         "wait for it or choose another folder")
    if previous.get("status") in ("running", "interrupted") and previous.get("games_completed"):
        raise InputError(f"--out {str(out)!r} holds an unfinished run ({previous.get('games_completed')} of "
                         f"{previous.get('games_requested')} games); continue it with `analyser resume {out}`, "
                         "or choose another folder")
    names = set(previous.get("files") or []) | {"config.json", "results.parquet", "results.csv", "summary.csv",
                                                 "index.html"}
    for name in sorted(names):
        if "/" not in name and "\\" not in name and name not in ("", ".", "..") and (out / name).is_file():
            (out / name).unlink(missing_ok=True)
    game = previous.get("game")
    tables = [store.RESULTS]
    try:
        tables += list(get_game(str(game)).extra_tables)
    except InputError:
        pass
    for name in tables:  # the part folders of the run replaced
        folder = out / name
        if folder.is_dir() and all(p.name.startswith(("part-", ".part-")) for p in folder.iterdir()):
            shutil.rmtree(folder)
    return out


def check_writable(out: Path) -> None:
    """Create ``out`` (with parents) and prove a file can be written there; InputError otherwise."""
    out = Path(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".analyser-write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as e:
        reason = e.strerror or type(e).__name__
        raise InputError(f"--out {str(out)!r} is not writable ({reason}); choose a folder you can write to") from None
