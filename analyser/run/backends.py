"""Where a run's batches are played: in this process, in loky (or threading) workers through
joblib, or on a Dask cluster; with the signal handling and the watchdog around them.

Ctrl-C and SIGTERM never lose finished games: a write in progress holds them (:class:`_Deferred`),
a parallel run's first Ctrl-C lets the running batches finish (:class:`_StopRequest`), and SIGTERM
raises :class:`Terminated`.  Which of the two stopped the process is remembered
(:func:`stop_exit_code`), so a command ends with 143 after SIGTERM and 130 after Ctrl-C.  A game that ignores its time limit is ended by the watchdog; a worker
that dies is reported as :class:`WorkerDied`, or as the hung game the watchdog killed.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import os
import signal
import sys
import threading
import uuid
import warnings
from pathlib import Path

import joblib

from analyser.engine import runner
from analyser.engine.core import InputError, StrategyError
from analyser.run import store
from analyser.engine.runner import resolve_jobs, run_batch
from analyser.engine.userfiles import safe_worker_path
from analyser.run.spec import RunSpec, check_scheduler_address


class _Deferred:
    """Hold Ctrl-C and SIGTERM while a part or config.json is written, so neither is left half
    written; a signal that arrived is delivered when the write is done (``deliver``) or only
    noted (``final``: the last write of the run)."""

    def __init__(self, deliver: bool = True):
        self.deliver = deliver
        self.pending: int | None = None
        self.told = False
        self.active = threading.current_thread() is threading.main_thread()
        self.previous: dict = {}

    def _hold(self, signum, frame):
        _note(signum)
        if self.pending is not None and not self.deliver and not self.told:
            # (a second signal: say why it does not stop at once; the first is simply honoured, and
            # the command's own last line says so)
            self.told = True
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


class _StopGuard:
    """For the whole of a run in the main thread: the first Ctrl-C (or SIGTERM) stops the run as
    before, by raising; once the run is stopping or finishing (:meth:`stopping`), later signals
    are only noted, so nothing can cut the final write of the parts and config.json short.  A
    noted signal is reported through ``pending``; the caller exits as interrupted."""

    def __init__(self):
        self.active = threading.current_thread() is threading.main_thread()
        self.finishing = False
        self.pending: int | None = None
        self.previous: dict = {}

    def _handle(self, signum, frame):
        _note(signum)
        if self.finishing:
            if self.pending is None:
                print("\nanalyser: finishing the write of the results and config.json first", file=sys.stderr)
            self.pending = signum
            return
        self.finishing = True
        raise Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()

    def stopping(self) -> None:
        self.finishing = True

    def __enter__(self):
        if self.active:
            for s in (signal.SIGINT, signal.SIGTERM):
                self.previous[s] = signal.signal(s, self._handle)
        return self

    def __exit__(self, *exc):
        if self.active:
            for s, h in self.previous.items():
                signal.signal(s, h)
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
        _note(signum)
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


#: The stop signals this process has received (SIGINT, SIGTERM), for the exit code.
_received: set[int] = set()


#: How many Ctrl-C or SIGTERM signals this process has received (see :func:`signals_received`).
_count = [0]


def _note(signum: int) -> None:
    _received.add(int(signum))
    _count[0] += 1
    runner.note_stop()  # (a batch playing in this process ends at its next game boundary)


def signals_received() -> int:
    """How many Ctrl-C or SIGTERM signals this process has received so far.  A handler raises to
    stop what runs; when the raise lands inside a callback Python ignores exceptions in (a weakref
    finaliser, a ``__del__``), it is lost ("Exception ignored in ..."), so a loop that must stop
    compares this count with the one it started with."""
    return _count[0]


def stop_exit_code() -> int:
    """The exit code of a command that a signal stopped: 143 (128 + 15) once SIGTERM has arrived
    (``kill``, ``timeout``), else 130 (128 + 2, Ctrl-C)."""
    return 143 if signal.SIGTERM in _received else 130


@contextlib.contextmanager
def sigterm_raises():
    """SIGTERM raises :class:`Terminated` in the main thread for the duration (and is remembered
    for :func:`stop_exit_code`), so whatever is running stops the way Ctrl-C stops it and what
    is finished is written; outside the main thread, nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        _note(signum)
        raise Terminated()

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def stop_signals_counted():
    """For the whole of a command: Ctrl-C raises KeyboardInterrupt as Python's own handler does,
    and SIGTERM raises :class:`Terminated`; both are counted (:func:`signals_received`), so a
    loop can tell that a stop came even when its raise was swallowed.  A Ctrl-C the process was
    started to ignore stays ignored; outside the main thread, nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_int(signum, frame):
        _note(signum)
        raise KeyboardInterrupt

    def on_term(signum, frame):
        _note(signum)
        raise Terminated()

    previous = {signal.SIGTERM: signal.signal(signal.SIGTERM, on_term)}
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        previous[signal.SIGINT] = signal.signal(signal.SIGINT, on_int)
    try:
        yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h)


class WorkerDied(RuntimeError):
    """A worker process died under a batch (killed, or out of memory)."""


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


def _dispatch(batches, job, n_jobs, backend, client, keep, errors, on_hang, hang_dir, work=run_batch) -> bool:
    """Run ``batches`` and hand each result to ``keep`` as it arrives.  Returns True when the run
    was interrupted.  Stops at the first failure once the batches before it are in.  ``work``
    plays one batch in a worker: :func:`analyser.engine.runner.run_batch`, or a picklable
    function of the batch's job that also packs it (:mod:`analyser.run.packing`); with one job
    the batches are played here by ``run_batch``."""
    stop = _StopRequest(n_jobs > 1 or client is not None)
    waiting = {a for a, _ in batches}
    signals = signals_received()  # (a signal whose raise a library swallowed still stops the run)
    with stop, _sigterm_raises(), warnings.catch_warnings(), _watchdog_here(on_hang):
        # joblib warns about cancelled or unused tasks when we stop early; that is intended
        warnings.filterwarnings("ignore", category=UserWarning, module="joblib")
        if client is not None:
            outputs = _dask_results(client, batches, job, n_jobs, work)
        elif n_jobs == 1:  # (in this process: the caller makes the parts of each result)
            outputs = (run_batch(job(a, b)) for a, b in batches)
        else:
            outputs = _loky_results(batches, job, n_jobs, backend, work)  # (inside safe_worker_path)
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
                if res.interrupted or signals_received() != signals:
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
            if stop.requested:
                # Ctrl-C reached the workers too (a terminal sends it to the whole process group):
                # one that was starting or between batches died of it - an interrupt, not a fault
                return True
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
                          "the finished games are kept")
    return WorkerDied(f"the run stopped: {name}: {str(e).splitlines()[0] if str(e) else ''}".rstrip(": "))


def _sigterm_raises():
    """SIGTERM in the main process raises :class:`Terminated`, so workers are stopped and what is
    finished is written (the default would kill this process and orphan the workers)."""
    return sigterm_raises()


#: Batches handed to the worker pool at a time, per worker.  joblib keeps every finished batch
#: until this process takes it; when the workers finish batches faster than it writes them (the
#: compiled engine), an unbounded hand-out would hold most of a long run in memory.  Windows of
#: this many batches per worker bound that, at the cost of the pool idling briefly between them.
WINDOW_PER_JOB = 16


def _loky_results(batches, job, n_jobs, backend, work=run_batch):
    batches = list(batches)
    window = max(1, WINDOW_PER_JOB * n_jobs)
    with safe_worker_path(), joblib.Parallel(n_jobs=n_jobs, backend=backend, pre_dispatch="n_jobs",
                                             return_as="generator_unordered") as parallel:
        for i in range(0, len(batches), window):
            outputs = parallel(joblib.delayed(work)(job(a, b)) for a, b in batches[i:i + window])
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
    return _new_client(spec.scheduler, spec.jobs)


def _new_client(address: str | None, jobs: int | None):
    """A client to the scheduler at ``address``, or to a new LocalCluster of ``jobs`` workers."""
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
        workers = resolve_jobs(jobs)
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


#: The Dask client of the command being run (:func:`command_pool`), or None.
_POOL: contextvars.ContextVar = contextvars.ContextVar("analyser_pool", default=None)


@contextlib.contextmanager
def command_pool(backend: str | None = None, scheduler: str | None = None, jobs: int | None = None):
    """The workers of one whole command (a sweep, tournament, comparison, tune or ladder, and
    their resumption): started once, used by every run inside the block, stopped at its end.

    ``scheduler`` (``tcp://HOST:8786``) or ``backend="dask"``: one ``dask.distributed`` client, to
    that scheduler or to a LocalCluster of ``jobs`` single-threaded workers (all cores for 0 or
    None); every :func:`analyser.run.run` in the block sends its batches there and writes what
    comes back here, so the workers need no shared disk.  Yields the client.  Otherwise (``loky``,
    the default) yields None: the runs use joblib's reusable loky executor, whose worker
    processes outlive each run, so they too start once per command.

    InputError (one line) for a malformed or silent scheduler, or dask.distributed missing."""
    if scheduler is None and backend != "dask":
        yield None
        return
    if backend not in (None, "dask"):
        raise InputError(f"--scheduler needs --backend dask, not --backend {backend}")
    client = _new_client(scheduler, jobs)
    token = _POOL.set(client)
    try:
        yield client
    finally:
        _POOL.reset(token)
        _close_dask(client)


def pool_client():
    """The Dask client of the enclosing :func:`command_pool`, or None."""
    return _POOL.get()


def client_address(client) -> str | None:
    """The scheduler address a client dials, or None for a LocalCluster this process started."""
    if getattr(client, "_analyser_cluster", None) is not None:
        return None
    try:
        return str(client.scheduler.address)
    except Exception:
        return None


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


def _dask_results(client, batches, job, slots, work=run_batch):
    """Submit the batches with at most ``2 * slots`` in flight; yield results as they finish.  A
    worker lost mid-batch has its batch rescheduled by the scheduler (each batch is a pure task
    keyed by its games, so nothing is doubled)."""
    from distributed import as_completed
    pending = iter(batches)
    run_key = uuid.uuid4().hex[:8]

    def submit():
        for a, b in pending:
            return client.submit(work, job(a, b), key=f"analyser-batch-{run_key}-{a}", pure=False)
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
