"""``--backend`` and ``--scheduler`` of the experiment commands (``sweep``, ``tournament``,
``compare``, ``tune``, ``ladder``) and of ``resume``: where their games are played, with one pool
of workers for the whole command (:func:`analyser.run.backends.command_pool`).
"""

from __future__ import annotations

import click

from analyser.engine.core import InputError


def _cluster_options(f):
    """``--backend`` and ``--scheduler``: where an experiment's games are played."""
    for dec in reversed([
        click.option("--backend", type=click.Choice(["loky", "dask"]), default=None,
                     help="loky: worker processes on this machine (default). dask: a dask.distributed cluster "
                          "(--scheduler ADDRESS, or a LocalCluster when none is given); needs analyser[dask]."),
        click.option("--scheduler", default=None, metavar="ADDRESS",
                     help="Play every cell on this Dask scheduler, e.g. tcp://HOST:8786 (implies --backend dask); "
                          "the games come back here and are written here. Results do not depend on it."),
    ]):
        f = dec(f)
    return f


def _cluster(backend: str | None, scheduler: str | None) -> tuple[str | None, str | None]:
    """``--backend`` and ``--scheduler`` checked before any folder is made (InputError, one line):
    a well-formed address, ``--scheduler`` only with the dask backend, dask.distributed
    installed.  Returns them with the backend implied by ``--scheduler``."""
    from analyser.run import check_scheduler_address

    if scheduler is not None:
        check_scheduler_address(scheduler)
        if backend not in (None, "dask"):
            raise InputError(f"--scheduler needs --backend dask, not --backend {backend}")
        backend = "dask"
    if backend == "dask":
        try:
            import distributed  # noqa: F401
        except ImportError:
            raise InputError("--backend dask needs dask.distributed, which is not installed; "
                             "install it with: pip install 'analyser[dask]'") from None
    return backend, scheduler


def _pooled(play, backend: str | None, scheduler: str | None, jobs: int | None) -> int:
    """Run ``play()`` (an experiment, start to report) with one pool of workers for all of it
    (:func:`analyser.run.backends.command_pool`); its exit code."""
    from analyser.run.backends import command_pool

    with command_pool(backend, scheduler, jobs):
        return play()
