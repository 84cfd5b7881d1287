"""``--backend`` and ``--scheduler`` of the experiment commands (``sweep``, ``tournament``,
``compare``, ``tune``, ``ladder``) and of ``resume``: where their games are played, with one pool
of workers for the whole command (:func:`analyser.run.cluster.command_pool`).
"""

from __future__ import annotations

import shlex
from pathlib import Path

import click

from analyser.engine.core import InputError
from analyser.run import check_scheduler_address, read_config_file, resume_command, stops
from analyser.run.cluster import command_pool


def cluster_options(f):
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


def cluster(backend: str | None, scheduler: str | None) -> tuple[str | None, str | None]:
    """``--backend`` and ``--scheduler`` checked before any folder is made (InputError, one line):
    a well-formed address, ``--scheduler`` only with the dask backend, dask.distributed
    installed.  Returns them with the backend implied by ``--scheduler``."""
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


def pooled(play, backend: str | None, scheduler: str | None, jobs: int | None, out: Path | None = None) -> int:
    """Run ``play()`` (an experiment, start to report) with one pool of workers for all of it
    (:func:`analyser.run.cluster.command_pool`); its exit code.  With the experiment's folder
    ``out``, a Ctrl-C or SIGTERM that reaches here (past the experiment's own handling: while its
    figures are computed or its report written) ends with :func:`stopped_experiment`'s line."""
    try:
        with command_pool(backend, scheduler, jobs):
            return play()
    except KeyboardInterrupt:
        if out is None:
            raise
        return stopped_experiment(out)


def stop_record(out: Path) -> tuple[str, dict | None]:
    """What a line about a stop outside the play reads: ``" (SIGTERM)"`` or ``""`` as the stop
    was, and the folder's ``config.json`` as a dict (None when there is none that reads)."""
    try:
        config = read_config_file(Path(out) / "config.json")
    except (InputError, OSError):
        config = None
    return (" (SIGTERM)" if stops.exit_code() == 143 else ""), (config if isinstance(config, dict) else None)


def stopped_experiment(out: Path) -> int:
    """One line for an experiment stopped outside its play, naming the command that finishes it:
    ``analyser report OUT`` when its record says every game is played, else ``analyser resume
    OUT``; the stop's exit code (130, or 143 after SIGTERM)."""
    how, config = stop_record(out)
    if config is None:
        click.echo(f"analyser: interrupted{how}; nothing was recorded in {out}", err=True)
    elif config.get("status") == "complete":
        click.echo(f"analyser: interrupted{how} while writing the report; the games are all in {out}; write it "
                   f"with: analyser report {shlex.quote(str(out))}", err=True)
    else:
        click.echo(f"analyser: interrupted{how}; the finished games are in {out}; continue with: "
                   f"{resume_command(out, config)}", err=True)
    return stops.exit_code()
