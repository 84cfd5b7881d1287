"""User files (strategy files, title files) load safely: a private module name, no lasting
sys.path change, a cache keyed by path and content, and no shadowing of standard modules in
worker processes (issue 8, section 2)."""

import json
import random
import subprocess
import sys
import textwrap

import pandas as pd
import pytest

from analyser.engine import userfiles
from analyser.engine.core import InputError
from analyser.run import RunSpec, run

TAKER = textwrap.dedent('''
    from analyser.engine.core import Strategy
    from analyser.titles.dao.rules import TAKE


    class Taker(Strategy):
        """Always takes the front card."""
        name = "taker"
        game = "dao"
        uses_rng = False

        def choose(self, view, legal, rng):
            return TAKE
''')


def test_a_strategy_file_named_after_a_standard_module_works_with_two_workers(tmp_path):
    (tmp_path / "random.py").write_text(TAKER)
    (tmp_path / "json.py").write_text(TAKER)
    cmd = [sys.executable, "-m", "analyser", "simulate", "dao", "-s", "random.py:taker", "-s", "json.py:taker",
           "-s", "greedy", "--players", "3", "--games", "24", "--jobs", "2", "--batch-size", "4", "--seed", "3", "--no-report",
           "-q", "--out", "out"]
    r = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr and "ImportError" not in r.stderr
    config = json.loads((tmp_path / "out" / "config.json").read_text())
    assert config["jobs"] == 2 and config["status"] == "complete"
    df = pd.read_parquet(tmp_path / "out" / "results")
    assert df["game_index"].nunique() == 24
    takers = df[df["strategy"].isin(["random.py:taker", "json.py:taker"])]
    assert len(takers) == 2 * 24 and (takers["busts"] == 0).all()


def test_loading_a_file_uses_a_private_name_and_leaves_sys_path_alone(tmp_path):
    f = tmp_path / "random.py"
    f.write_text(TAKER + "\nimport sys\nsys.path.insert(0, '/nowhere')\n")
    before = list(sys.path)
    module = userfiles.load(f, "strategy file")
    assert module.__name__.startswith(userfiles.PREFIX) and module.__name__ != "random"
    assert sys.path == before
    assert sys.modules["random"] is random and hasattr(random, "Random")
    assert userfiles.load(f) is module  # unchanged: loaded once
    assert not (tmp_path / "__pycache__").exists()


def test_an_edited_strategy_file_is_reloaded_between_two_runs_in_one_process(tmp_path):
    f = tmp_path / "bot.py"
    f.write_text(TAKER)
    spec = dict(game="dao", strategies=[f"{f}:taker", "greedy"], players=2, games=6, jobs=1, seed=5)
    first = run(RunSpec(**spec)).results
    mine = first[first["strategy"] == f"{f}:taker"]
    assert (mine["busts"] == 0).all()
    f.write_text(TAKER.replace("import TAKE", "import REVEAL").replace("return TAKE", "return REVEAL"))
    second = run(RunSpec(**spec)).results
    mine = second[second["strategy"] == f"{f}:taker"]
    assert mine["busts"].sum() > 0 and mine["cards"].sum() != first[first["strategy"] == f"{f}:taker"]["cards"].sum()


def test_a_broken_file_is_one_line_and_leaves_no_module_behind(tmp_path):
    f = tmp_path / "broken.py"
    f.write_text("import no_such_module_abc\n")
    with pytest.raises(InputError, match=r"strategy file '.*broken.py' failed to import: ModuleNotFoundError"):
        userfiles.load(f, "strategy file")
    # (this file's own module: another test's module may have "broken" in its folder's name)
    assert not [m for m in sys.modules if m.startswith(userfiles.PREFIX) and str(getattr(
        sys.modules[m], "__file__", "")) == str(f)]


def test_a_folder_loads_as_a_package_with_relative_imports(tmp_path):
    pkg = tmp_path / "my-game"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .rules import VALUE\n")
    (pkg / "rules.py").write_text("VALUE = 1\n")
    module = userfiles.load(pkg, "title folder")
    assert module.VALUE == 1 and sys.modules[module.__name__ + ".rules"].VALUE == 1
    (pkg / "rules.py").write_text("VALUE = 2\n")
    assert userfiles.load(pkg, "title folder").VALUE == 2
    with pytest.raises(InputError, match="without an __init__.py"):
        userfiles.load(tmp_path, "title folder")
