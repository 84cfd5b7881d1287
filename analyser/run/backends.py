"""Where a run's batches are played: in this process, in loky (or threading) workers through
joblib, or on a Dask cluster; with the stops (:mod:`analyser.run.stops`) around them.

Batches of a title's compiled engine (:mod:`analyser.engine.compiled`) asked of loky are played by
threads of this process instead (:func:`pool_backend`): the kernel lets go of the GIL while it
plays, so the threads play in parallel, without a second and third process importing pandas,
pyarrow and numba again and loading the kernel, nor the parts and sums pickled between them.
The games, their parts and their sums are the same.

A parallel run's first Ctrl-C lets the running batches finish (:func:`analyser.run.stops.gentle`);
SIGTERM or a second Ctrl-C stop at once.  Wherever a batch plays, its games' time limit is kept
by the process that plays it (:mod:`analyser.engine.timelimit`); a worker that dies is reported
as :class:`WorkerDied`.
"""

from __future__ import annotations

import warnings

import joblib

from analyser.engine.runner import run_batch
from analyser.run import cluster, stops, store
from analyser.engine.userfiles import safe_worker_path


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
            outputs = cluster.dask_results(client, batches, job, n_jobs, work)
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


def plays_in_threads(backend: str | None, engine: str | None) -> bool:
    """Whether a run's jobs are threads of this process: loky's batches of a compiled engine (the
    kernel plays without the GIL, and only built-in strategies, which the time limit per game
    never stops)."""
    return (backend or "loky") == "loky" and engine == "compiled"


def pool_backend(backend: str, job) -> str:
    """The joblib backend that plays batches like ``job`` (a :class:`analyser.engine.runner.BatchJob`)
    when ``backend`` is asked for: ``threading`` where :func:`plays_in_threads`, else ``backend``."""
    return "threading" if plays_in_threads(backend, job.engine) else backend


def _loky_results(batches, job, n_jobs, backend, work=run_batch):
    batches = list(batches)
    window = max(1, WINDOW_PER_JOB * n_jobs)
    if batches:
        backend = pool_backend(backend, job(*batches[0]))
    with safe_worker_path(), joblib.Parallel(n_jobs=n_jobs, backend=backend, pre_dispatch="n_jobs",
                                             return_as="generator_unordered") as parallel:
        for i in range(0, len(batches), window):
            outputs = parallel(joblib.delayed(work)(job(a, b)) for a, b in batches[i:i + window])
            try:
                yield from outputs
            finally:
                outputs.close()
