"""Loading a title loads its rules only: its report figures and text drawing are loaded when first
used (:class:`analyser.engine.deferred.Deferred`), so ``analyser list`` imports none of them, nor
jinja2; the deferred attributes are the modules' own once read.  A run asked for no report and no
output imports none of the report's libraries."""

import json
import subprocess
import sys

import pytest

from analyser.engine.deferred import Deferred
from analyser.engine.registry import game_ids

PROBE = """
import io, json, sys, contextlib
from analyser.cli import main
sys.argv = ["analyser", *{args!r}]
with contextlib.redirect_stdout(io.StringIO()):
    try:
        main()
    except SystemExit as e:
        code = e.code
print(json.dumps({{"code": code, "modules": sorted(m for m in sys.modules if m.startswith({prefixes!r}))}}))
"""


def loaded_by(*args: str, prefixes=("analyser.titles.", "jinja2")) -> dict:
    """The exit code of ``analyser ARGS`` run in a fresh interpreter, and the modules it loaded
    whose names start with one of ``prefixes``."""
    code = PROBE.format(args=list(args), prefixes=tuple(prefixes))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True)
    return json.loads(out.stdout.splitlines()[-1])


def test_list_loads_every_titles_rules_and_no_figures_render_or_jinja2():
    result = loaded_by("list")
    packages = ["analyser.titles." + gid.replace("-", "_") for gid in game_ids()]
    assert result == {"code": 0, "modules": sorted(packages + [p + ".rules" for p in packages])}


def test_drawing_a_state_loads_the_render_module():
    code = ("import sys; from analyser.engine.registry import get_game; g = get_game('dao'); "
            "before = 'analyser.titles.dao.render' in sys.modules; g.describe_state; "
            "print(before, 'analyser.titles.dao.render' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.split() == ["False", "True"]


class _Owner:
    joined = Deferred("os.path", "join")
    sep = Deferred("os")


class _Child(_Owner):
    pass


@pytest.mark.parametrize("reader", [_Owner, _Owner(), _Child, _Child()])
def test_a_deferred_attribute_reads_as_the_modules_own(reader):
    import os
    assert reader.sep == os.sep
    if isinstance(reader, type):
        assert reader.joined is os.path.join
    else:
        # a function read on an instance is bound, as a plain class attribute would be
        assert reader.joined.__func__ is os.path.join and reader.joined.__self__ is reader


# -- a run asked for no report and no output ----------------------------------------------------------
# ``simulate --no-report -q`` writes its games and imports none of the report's heavy libraries
# (matplotlib, scipy); a run that prints its summary does (the summary is the report's).

REPORT_LIBRARIES = ("matplotlib", "scipy")


def test_a_quiet_run_without_a_report_imports_no_report_library(tmp_path):
    out = tmp_path / "quiet"
    assert loaded_by("simulate", "dao", "-n", "6", "--seed", "1", "-j", "1", "--engine", "python", "-q",
                     "--no-report", "-o", str(out), prefixes=REPORT_LIBRARIES) == {"code": 0, "modules": []}
    assert sorted(p.name for p in (out / "results").iterdir())  # its games are written
    assert json.loads((out / "config.json").read_text())["games_completed"] == 6


def test_a_run_that_prints_its_summary_loads_the_report(tmp_path):
    result = loaded_by("simulate", "dao", "-n", "6", "--seed", "1", "-j", "1", "--engine", "python",
                       "--no-report", "-o", str(tmp_path / "loud"), prefixes=REPORT_LIBRARIES)
    assert result["code"] == 0 and "matplotlib" in result["modules"]
