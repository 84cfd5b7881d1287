"""The Dask backend: a client to a scheduler (or to a LocalCluster of this machine), one client for
a whole command (:func:`command_pool`), a run's batches as Dask tasks (:func:`dask_results`),
and the user's own code on the workers (:func:`upload_user_code`).

A title given as a file or folder and the strategy files a run names reach the workers through
Dask's own upload (:class:`distributed.diagnostics.plugin.UploadFile`, the worker plugin behind
``Client.upload_file``): a file as it is, a folder as a zip archive, each under a name of its
content, registered once per scheduler, so a worker that joins later (one the nanny restarted
after a kill) gets them too.  A worker plays a batch from the copy in its own directory
(:func:`play_uploaded`), under the name the run gave the file, so its results are the same.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import functools
import hashlib
import logging
import os
import shutil
import tempfile
import uuid
import zipfile
from pathlib import Path

from analyser.engine.core import InputError
from analyser.engine.registry import is_title_file, parse_spec, split_title_ref
from analyser.engine.runner import BatchJob, resolve_jobs, run_batch
from analyser.run.spec import RunSpec, check_dask_installed, check_scheduler_address

#: Seconds to wait for a Dask scheduler before giving up (environment: ANALYSER_DASK_CONNECT_TIMEOUT).
DASK_CONNECT_TIMEOUT = 10

#: Dask settings of the LocalCluster a command starts: its servers check their event loop every
#: second (not every 20 ms) and the machine every 5 s (not every 0.5 s), and the workers do not
#: sample the stacks of their tasks for Dask's profiler (every 10 ms).  Those serve Dask's
#: dashboard, which this cluster does not open; left on, they cost a tenth of a core per second
#: of the run's wall time.
QUIET = {"distributed.admin.tick.interval": "1s", "distributed.admin.system-monitor.interval": "5s",
         "distributed.worker.profile.enabled": False}


def dask_client(spec: RunSpec):
    """A ``dask.distributed`` client: to ``spec.scheduler``, or to a new LocalCluster with one
    single-threaded worker per job.  InputError (one line) when dask is missing, the address is
    malformed or the scheduler does not answer."""
    return new_client(spec.scheduler, spec.jobs)


def new_client(address: str | None, jobs: int | None):
    """A client to the scheduler at ``address``, or to a new LocalCluster of ``jobs`` workers."""
    if address is not None:
        check_scheduler_address(address)
    check_dask_installed()
    import dask
    from distributed import Client, LocalCluster
    logging.getLogger("distributed").setLevel(logging.ERROR)
    if address is None:
        workers = resolve_jobs(jobs)
        # no memory limit (as loky workers have none) and QUIET: an idle cluster costs little CPU
        with dask.config.set(QUIET):
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, memory_limit=0,
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
    client = new_client(scheduler, jobs)
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


def dask_results(client, batches, job, slots, work=run_batch):
    """Submit the batches with at most ``2 * slots`` in flight; yield results as they finish.  A
    worker lost mid-batch has its batch rescheduled by the scheduler (each batch is a pure task
    keyed by its games, so nothing is doubled).  The user's files the batches name are uploaded
    first (:func:`upload_user_code`)."""
    batches = list(batches)
    uploads = upload_user_code(client, job(*batches[0])) if batches else ()
    if uploads:
        work = functools.partial(play_uploaded, uploads, work)
    return _submitted(client, batches, job, slots, work)


def _submitted(client, batches, job, slots, work):
    from distributed import as_completed
    pending = iter(batches)
    run_key = uuid.uuid4().hex[:8]

    def submit():
        for a, b in pending:
            return client.submit(work, job(a, b), key=f"analyser-batch-{run_key}-{a}", pure=False)
        return None

    live = {f for f in (submit() for _ in range(2 * slots)) if f is not None}
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


# --------------------------------------------------------------------------------------------
# The user's code on the workers
# --------------------------------------------------------------------------------------------

#: At most this many bytes of a title folder are uploaded (InputError beyond).
UPLOAD_BYTES = 20_000_000


def user_files(job: BatchJob) -> list[str]:
    """The files and folders ``job`` names, as it names them: its title's path when the title is
    a file or folder, and each strategy file."""
    named = [str(split_title_ref(job.game)[0])] if is_title_file(job.game) else []
    named += [spec.source for spec in map(parse_spec, job.strategies) if spec.source.endswith(".py")]
    return list(dict.fromkeys(named))


def upload_user_code(client, job: BatchJob) -> tuple[tuple[str, str], ...]:
    """Upload the files ``job`` names (:func:`user_files`) to every worker of ``client``'s
    cluster, now and later; ``((path as the job names it, uploaded file name), ...)``.  InputError
    for a title folder above :data:`UPLOAD_BYTES`."""
    from distributed.diagnostics.plugin import UploadFile
    out = []
    with tempfile.TemporaryDirectory(prefix="analyser-upload-") as tmp:
        for written in user_files(job):
            path = packed(Path(written).expanduser(), Path(tmp))
            plugin = UploadFile(str(path), load=False)
            plugin.idempotent = True  # (registered once per scheduler under its content's name)
            client.register_plugin(plugin, name=f"analyser-upload-{path.name}")
            out.append((written, path.name))
    return tuple(out)


def packed(path: Path, tmp: Path) -> Path:
    """``path`` (a ``.py`` file, or a folder zipped without hidden files and ``__pycache__``) as
    a file in ``tmp`` named by the SHA-256 of its content."""
    if path.is_dir():
        files = sorted(f for f in path.rglob("*") if f.is_file() and not any(
            part.startswith(".") or part == "__pycache__" for part in f.relative_to(path).parts))
        if sum(f.stat().st_size for f in files) > UPLOAD_BYTES:
            raise InputError(f"title folder {str(path)!r} holds more than {UPLOAD_BYTES // 1_000_000} MB; "
                             "a title sent to a cluster must be smaller")
        source = tmp / "title.zip"
        with zipfile.ZipFile(source, "w", zipfile.ZIP_DEFLATED) as archive:
            for f in files:
                archive.write(f, f.relative_to(path).as_posix())
    else:
        source = path
    data = source.read_bytes()
    target = tmp / f"analyser_{hashlib.sha256(data).hexdigest()[:16]}{'.zip' if path.is_dir() else '.py'}"
    target.write_bytes(data)
    return target


def play_uploaded(uploads: tuple[tuple[str, str], ...], work, job: BatchJob):
    """A Dask worker's task: ``work(job)``, with the files of ``uploads`` (:func:`upload_user_code`)
    found where Dask put them on this worker."""
    from distributed import get_worker
    folder = Path(get_worker().local_directory)
    local = tuple((written, str(unpacked(folder / name))) for written, name in uploads)
    return work(dataclasses.replace(job, local=local))


def unpacked(path: Path) -> Path:
    """An uploaded file as a worker plays it: a ``.py`` file as it is, a zipped folder extracted
    beside it (once; a worker that finds it there already keeps that copy)."""
    if path.suffix != ".zip":
        return path
    target = path.with_suffix("")
    if not target.is_dir():
        staging = Path(tempfile.mkdtemp(prefix=".unzip-", dir=path.parent))
        with zipfile.ZipFile(path) as archive:
            archive.extractall(staging)
        try:
            os.replace(staging, target)
        except OSError:  # another task of this worker got there first: the same content
            shutil.rmtree(staging, ignore_errors=True)
    return target
