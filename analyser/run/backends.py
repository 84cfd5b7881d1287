"""Where a run's batches are played: in this process, in loky (or threading) workers through
joblib, or on a Dask cluster; with the stops (:mod:`analyser.run.stops`) around them.

A parallel run's first Ctrl-C lets the running batches finish (:func:`analyser.run.stops.gentle`);
SIGTERM or a second Ctrl-C stop at once.  Wherever a batch plays, its games' time limit is kept
by the process that plays it (:mod:`analyser.engine.timelimit`); a worker that dies is reported
as :class:`WorkerDied`.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import os
import uuid
import warnings

import joblib

from analyser.engine.core import InputError
from analyser.run import stops, store
from analyser.engine.runner import resolve_jobs, run_batch
from analyser.engine.userfiles import safe_worker_path
from analyser.run.spec import RunSpec, check_scheduler_address


class WorkerDied(RuntimeError):
    """A worker process died under a batch (killed, or out of memory)."""


def dispatch_batches(batches, job, n_jobs, backend, client, keep, errors, work=run_batch) -> bool:
    """Run ``batches`` and hand each result to ``keep`` as it arrives.  Returns True when the run
    was interrupted.  Stops at the first failure once the batches before it are in.  ``work``
    plays one batch in a worker: :func:`analyser.engine.runner.run_batch`, or a picklable
    function of the batch's job that also packs it (:mod:`analyser.run.packing`); with one job
    the batches are played here by ``run_batch``."""
    parallel = n_jobs > 1 or client is not None
    waiting = {a for a, _ in batches}
    signals = stops.count()  # (a stop whose raise a library swallowed still stops the run)
    requested, collected = False, 0
    with stops.gentle() if parallel else stops.handled(), warnings.catch_warnings():
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
                requested = requested or res.interrupted or stops.count() != signals
                if requested:
                    # keep the batches that were running when Ctrl-C came: with n workers,
                    # n - 1 others may still be finishing
                    collected += 1
                    if collected >= n_jobs or n_jobs == 1:
                        break
        except KeyboardInterrupt:
            return True
        except store.StoreError:
            raise
        except Exception as e:
            if requested or stops.count() != signals:
                # Ctrl-C reached the workers too (a terminal sends it to the whole process group):
                # one that was starting or between batches died of it - an interrupt, not a fault
                return True
            # a worker process died (SIGKILL, out of memory): what it was playing is lost, the
            # rest is on disk
            errors.append(worker_death(e))
        finally:
            close = getattr(outputs, "close", None)
            if close is not None:
                close()
    return requested or stops.count() != signals


def worker_death(e: BaseException) -> BaseException:
    """What a worker's death (``e``, raised by the pool) tells the user."""
    name = type(e).__name__
    if "Terminated" in name or "BrokenProcessPool" in name or "KilledWorker" in name or name == "ChildProcessError":
        return WorkerDied("a worker process died (killed, or out of memory) and its games were lost; "
                          "the finished games are kept")
    return WorkerDied(f"the run stopped: {name}: {str(e).splitlines()[0] if str(e) else ''}".rstrip(": "))


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


def dask_client(spec: RunSpec):
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
        close_dask(client)


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


def dask_slots(client) -> int:
    try:
        return max(1, sum(client.nthreads().values()))
    except Exception:
        return 1


def close_dask(client) -> None:
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
