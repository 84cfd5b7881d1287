"""The title package layout (issue 11): one package per title under analyser/titles/, rules modules
free of pandas and matplotlib, figures and text drawing bound to the title object."""

import json
import subprocess
import sys

import pytest

from analyser.registry import game_ids, get_game



def _package(gid: str) -> str:
    return "analyser.titles." + gid.replace("-", "_")


@pytest.mark.parametrize("gid", game_ids())
def test_rules_module_imports_neither_pandas_nor_matplotlib(gid):
    code = (f"import sys, json; import {_package(gid)}.rules; "
            "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('pandas', 'matplotlib'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []


@pytest.mark.parametrize("gid", game_ids())
def test_title_package_imports_neither_pandas_nor_matplotlib(gid):
    # figures.py imports them lazily, inside its functions: loading a title stays light
    code = (f"import sys, json; import {_package(gid)}; "
            "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('pandas', 'matplotlib'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []


@pytest.mark.parametrize("gid", game_ids())
def test_title_binds_its_figures_and_render(gid):
    import importlib
    pkg = importlib.import_module(_package(gid))
    title = get_game(gid)
    assert title is pkg.TITLE and title.id == gid
    assert title.figure_tables.__func__ is pkg.figures.figure_tables
    assert title.plots.__func__ is pkg.figures.plots
    assert title.describe_state.__func__ is pkg.render.describe_state
