"""Shared fixtures: the registered titles, a CliRunner, the compiled kernels made ready once per
suite run, a run folder's lock held as a live run holds it, the Dask test files' cluster of
worker processes, and ladders that time their budgets briefly."""

import contextlib
import fcntl
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from analyser.engine import compiled
from analyser.engine.registry import default_lineup, game_ids, get_game
from analyser.engine.runner import BatchJob


@pytest.fixture
def runner():
    return CliRunner()


def all_games():
    return game_ids()


@pytest.fixture(scope="session", autouse=True)
def compiled_kernels_shared_out():
    """Under pytest-xdist with several workers (the whole suite), the titles' numba kernels that
    numba's cache does not hold yet are shared out: worker k compiles the k-th (and every
    n-th after it) first thing, so that on a fresh checkout the workers compile different kernels
    side by side, and later tests load them from the cache instead of each worker compiling each
    kernel.  With the kernels cached this only looks at the cache; in one process a kernel is
    compiled where a test first needs it."""
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if workers < 2 or not worker.startswith("gw") or compiled.numba_missing():
        return
    titles = [g for g in game_ids() if compiled.engine_of(get_game(g)) is not None]
    for title in titles[int(worker[2:])::workers]:
        game = get_game(title)
        if compiled.on_disk(compiled.engine_of(game).kernel()):
            continue
        lineup = tuple(default_lineup(title))
        if compiled.choose(game, game.Params(), game.default_players, lineup)[0] == "compiled":
            job = BatchJob(title, (), lineup, game.default_players, 1, 0, 1, 0.0, engine="compiled")
            compiled.prepare(game, job, here=True, say=False)


@pytest.fixture
def hold_lock():
    """``hold_lock(folder, line)``: a context manager holding ``folder``'s run lock as a live run
    does (an operating-system lock on ``folder/.lock``, whose file names the holder: ``line``)."""
    @contextlib.contextmanager
    def hold(folder, line: str):
        fd = os.open(Path(folder) / ".lock", os.O_RDONLY | os.O_CREAT)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            (Path(folder) / ".lock").write_text(line)
            yield
        finally:
            os.close(fd)  # (the lock goes; the file stays, as a killed run leaves it)
    return hold


@pytest.fixture(scope="session")
def dask_cluster():
    """A LocalCluster of two single-threaded worker processes, each under a nanny that restarts it
    when it is killed; a test that kills one waits for the restart before it ends.  The test files
    that use it share one xdist group ("dask"), so one worker starts it once."""
    import logging

    from distributed import LocalCluster
    c = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                     silence_logs=logging.ERROR)
    yield c
    c.close()


@pytest.fixture
def quick_ladder_speed(monkeypatch):
    """A ladder times each budget's decisions for ``SPEED_SECONDS`` of CPU (a speed figure of the
    machine, never a result: no figure of a level depends on it); under this fixture it times
    one pass over its positions."""
    from analyser.experiments import ladder
    monkeypatch.setattr(ladder, "SPEED_SECONDS", 0.0)
