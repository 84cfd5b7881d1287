"""The title package layout (issue 11): one package per title under analyser/titles/, rules modules
free of pandas and matplotlib, figures and text drawing bound to the title object."""

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from analyser.engine.core import InputError
from analyser.engine.registry import game_ids, get_game

ROOT = Path(__file__).resolve().parents[1]



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
    for part in ("figures", "render"):  # loaded when first used (analyser.engine.deferred)
        importlib.import_module(f"{_package(gid)}.{part}")
    assert title is pkg.TITLE and title.id == gid
    if hasattr(pkg.figures, "figure_sums"):  # streamed figures: the core composes the two steps
        for hook in ("figure_sums", "figure_tables_from", "plots_from"):
            assert getattr(title, hook).__func__ is getattr(pkg.figures, hook)
        assert not hasattr(pkg.figures, "figure_tables") and not hasattr(pkg.figures, "plots")
        assert "figure_tables" not in vars(type(title)) and "plots" not in vars(type(title))
    else:
        assert title.figure_tables.__func__ is pkg.figures.figure_tables
        assert title.plots.__func__ is pkg.figures.plots
    assert title.describe_state.__func__ is pkg.render.describe_state


# -- registry: entry points and the source-tree scan ------------------------------------------

def test_builtin_titles_are_in_the_entry_point_table_and_found_without_it(monkeypatch):
    from analyser.engine import registry
    with open(ROOT / "pyproject.toml", "rb") as f:
        table = tomllib.load(f)["project"]["entry-points"][registry.TITLE_GROUP]
    assert sorted(table) == game_ids()
    for gid, target in table.items():
        assert target == f"analyser.titles.{gid.replace('-', '_')}:TITLE"
    # a source tree whose entry points are not installed still finds every built-in title
    monkeypatch.setattr(registry.metadata, "entry_points", lambda group=None, **kw: [])
    registry._title_targets.cache_clear()
    try:
        assert registry.game_ids() == sorted(table)
    finally:
        registry._title_targets.cache_clear()


def test_a_title_published_by_another_package_is_found(monkeypatch, tmp_path):
    from importlib import metadata

    from analyser.engine import registry
    (tmp_path / "third_party_title.py").write_text(
        "from analyser.titles.dao.rules import Dao\n\n"
        "class Copy(Dao):\n    id = 'dao-copy'\n    name = 'A copy'\n\nTITLE = Copy()\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    eps = [metadata.EntryPoint(name="dao-copy", value="third_party_title:TITLE", group=registry.TITLE_GROUP),
           metadata.EntryPoint(name="dao", value="third_party_title:TITLE", group=registry.TITLE_GROUP),
           metadata.EntryPoint(name="broken", value="no_such_module_xyz:TITLE", group=registry.TITLE_GROUP)]
    monkeypatch.setattr(registry.metadata, "entry_points",
                        lambda group=None, **kw: eps if group == registry.TITLE_GROUP else [])
    registry._title_targets.cache_clear()
    registry._registered_game.cache_clear()
    try:
        assert "dao-copy" in registry.game_ids() and "broken" in registry.game_ids()
        assert registry.get_game("dao-copy").name == "A copy"
        assert type(registry.get_game("dao")).__module__ == "analyser.titles.dao"  # a built-in is not replaced
        with pytest.raises(InputError, match=r"title 'broken' \(no_such_module_xyz:TITLE\) failed to load: "
                                             "ModuleNotFoundError"):
            registry.get_game("broken")
    finally:
        registry._title_targets.cache_clear()
        registry._registered_game.cache_clear()


# Where a title may be named: its package, its strategies script, its tests, its rules page and the
# entry-point table.  The machinery (core, runner, run, results, experiments, report, cli, ...) knows none.
MACHINERY = sorted(p for p in (ROOT / "analyser").rglob("*") if p.is_file() and p.suffix in (".py", ".j2")
                   and "titles" not in p.relative_to(ROOT / "analyser").parts)


def test_the_machinery_names_no_title():
    words = set()
    for gid in game_ids():
        words |= {gid, gid.replace("-", "_")}
    pattern = re.compile(r"\b(" + "|".join(sorted(map(re.escape, words))) + r")\b", re.I)
    found = [f"{p.relative_to(ROOT)}:{i}: {line.strip()}" for p in MACHINERY
             for i, line in enumerate(p.read_text().splitlines(), 1) if pattern.search(line)]
    assert len(MACHINERY) > 8 and found == []
