"""Shared fixtures: the registered titles, a CliRunner, and a run folder's lock held as a live run
holds it."""

import contextlib
import fcntl
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from analyser.engine.registry import game_ids


@pytest.fixture
def runner():
    return CliRunner()


def all_games():
    return game_ids()


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
