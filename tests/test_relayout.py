"""tools/relayout.py, the one-time move into layer packages (issue 26): its rewriting of references,
on texts like the ones it met, and its refusal to run on a tree where the layout is applied."""

import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SPEC = importlib.util.spec_from_file_location("relayout", ROOT / "tools" / "relayout.py")
relayout = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(relayout)


def test_from_analyser_imports_keep_the_names_the_code_uses():
    src = ("from analyser import __version__, report, plots as P, run\n"
           "def f():\n"
           "    from analyser import (core,\n"
           "                          findings as fm)\n")
    assert relayout.rewrite("x.py", src) == (
        "from analyser import __version__, run\n"
        "from analyser.report import page as report\n"
        "from analyser.stats import plots as P\n"
        "def f():\n"
        "    from analyser.engine import core\n"
        "    from analyser import findings as fm\n")


def test_dotted_names_in_code_strings_and_docs_are_rewritten_once():
    src = ('import analyser.core as c\nmonkeypatch.setattr("analyser.runner.MAX_STEPS", 5)\n'
           'spec = "analyser.report:build_report"  # :mod:`analyser.reportcomponents`\n'
           'x = "analyser.run.store"; y = "myanalyser.core"; z = "analyser.titles.dao"\n')
    assert relayout.rewrite("t.py", src) == (
        'import analyser.engine.core as c\nmonkeypatch.setattr("analyser.engine.runner.MAX_STEPS", 5)\n'
        'spec = "analyser.report.page:build_report"  # :mod:`analyser.report.components`\n'
        'x = "analyser.run.store"; y = "myanalyser.core"; z = "analyser.titles.dao"\n')


def test_paths_and_one_line_imports_in_markdown():
    md = ("The contract is `analyser/core.py`; the skeleton's templates are in\n"
          "`analyser/templates/new_title/`, the page's in `analyser/templates/`.\n"
          "    from analyser import registry, plots  # the registry\n")
    assert relayout.rewrite("docs/x.md", md) == (
        "The contract is `analyser/engine/core.py`; the skeleton's templates are in\n"
        "`analyser/kit/templates/new_title/`, the page's in `analyser/report/templates/`.\n"
        "    from analyser.engine import registry\n"
        "    from analyser.stats import plots  # the registry\n")


def test_an_aligned_continuation_moves_with_its_parenthesis_and_a_hanging_one_stays():
    src = ("from analyser.registry import (a, b,\n"
           "                               c)\n"
           "from analyser.findings.run import (\n"
           "    d, e)\n")
    assert relayout.rewrite("x.py", src) == (
        "from analyser.engine.registry import (a, b,\n"
        "                                      c)\n"
        "from analyser.findings.run import (\n"
        "    d, e)\n")


def test_every_move_lands_in_a_package_of_the_layout_and_none_twice():
    targets = list(relayout.MOVES.values())
    assert len(targets) == len(set(targets))
    for new in targets:
        assert (ROOT / Path(*new.split("."))).with_suffix(".py").is_file() or (ROOT / Path(*new.split("."))).is_dir()
    for old in relayout.MOVES:
        assert not (ROOT / Path(*old.split("."))).with_suffix(".py").exists(), old


def test_it_refuses_to_run_twice():
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "relayout.py"), "--dry-run"], cwd=ROOT,
                       capture_output=True, text=True)
    assert r.returncode == 1 and "already applied" in r.stderr
