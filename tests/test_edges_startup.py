"""Loading a title loads its rules only: its report figures and text drawing are loaded when first
used (:class:`analyser.engine.deferred.Deferred`), so ``analyser list`` imports none of them, nor
jinja2; the deferred attributes are the modules' own once read."""

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
print(json.dumps({{"code": code, "modules": sorted(m for m in sys.modules
                                                   if m.startswith(("analyser.titles.", "jinja2")))}}))
"""


def loaded_by(*args: str) -> dict:
    out = subprocess.run([sys.executable, "-c", PROBE.format(args=list(args))], capture_output=True, text=True,
                         timeout=120, check=True)
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
