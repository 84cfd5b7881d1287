"""Shared fixtures: the registered titles and a CliRunner."""

import pytest
from click.testing import CliRunner

from analyser.engine.registry import game_ids


@pytest.fixture
def runner():
    return CliRunner()


def all_games():
    return game_ids()
