"""The command line starts at once: ``analyser --help``, ``analyser list`` (with or without a
title) and a bad-input error load none of the heavy libraries (the group imports a command's module
only when it runs).  Each case runs in a fresh interpreter, which then reports its exit code and
the heavy modules in ``sys.modules``."""

import json
import subprocess
import sys

import click
import pytest

from analyser.cli.common import COMMANDS, cli

HEAVY = ("pandas", "pyarrow", "matplotlib", "scipy", "statsmodels", "optuna", "numba", "dask", "joblib")

PROBE = """
import json, sys
from analyser.cli import main
sys.argv = ["analyser", *{args!r}]
try:
    main()
except SystemExit as e:
    code = e.code
sys.stdout.flush()
sys.stderr.write("\\nPROBE " + json.dumps({{"code": code, "heavy": [m for m in {heavy!r} if m in sys.modules]}}) + "\\n")
"""


def probe(*args: str) -> tuple[dict, str]:
    proc = subprocess.run([sys.executable, "-c", PROBE.format(args=list(args), heavy=HEAVY)],
                          capture_output=True, text=True, timeout=120)
    lines = proc.stderr.splitlines()
    return json.loads(lines[-1].removeprefix("PROBE ")), "\n".join(lines[:-1]).strip()


@pytest.mark.parametrize("args, code", [
    (["--help"], 0),
    (["list"], 0),
    (["list", "dao"], 0),
    (["list", "wizzard"], 2),        # an unknown title
    (["lst"], 2),                    # an unknown command
    (["list", "--no-such-flag"], 2),
])
def test_help_list_and_bad_input_load_no_heavy_library(args, code):
    result, err = probe(*args)
    assert result == {"code": code, "heavy": []}, err
    if code == 2:
        assert len(err.splitlines()) == 1, err


def test_the_group_help_lines_are_the_commands_own():
    """The group's help shows a line per command without importing its module; each line is the
    one the command's docstring gives, and each name maps to a command of that name."""
    ctx = click.Context(cli)
    for name, (_, line) in COMMANDS.items():
        command = cli.get_command(ctx, name)
        assert command.name == name
        assert click.Command(name, help=line).get_short_help_str(200) == command.get_short_help_str(200), name


def test_an_unknown_command_suggests_the_closest_name():
    result, err = probe("simulte")
    assert result["code"] == 2
    assert "'simulate'" in err
