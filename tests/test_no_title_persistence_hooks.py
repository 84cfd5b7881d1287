"""No title writes its own copy, JSON, dict or pickling methods: the engine derives them from the
state's declaration (analyser/engine/derive.py).  Checked on every title's Python files and on the
skeleton ``analyser new`` writes."""

from __future__ import annotations

import re
from pathlib import Path

import analyser

ROOT = Path(analyser.__file__).resolve().parent
#: The methods the engine derives (``Game``'s persistence hooks and a value type's own ones).
HOOKS = ("clone_state", "state_to_dict", "state_from_dict", "action_to_json", "action_from_json",
         "to_json", "from_json", "to_dict", "from_dict", "copy", "clone", "__copy__", "__deepcopy__",
         "__reduce__", "__reduce_ex__", "__getstate__", "__setstate__", "__getnewargs__", "__eq__")
DEF = re.compile(r"^\s*def (\w+)\(", re.M)


def title_files() -> list[Path]:
    files = sorted((ROOT / "titles").rglob("*.py")) + sorted((ROOT / "kit" / "templates").rglob("*.py.tmpl"))
    return [f for f in files if f.name not in ("test_title.py.tmpl", "test_contract.py.tmpl")]


def hooks_defined(text: str) -> list[str]:
    return [name for name in DEF.findall(text) if name in HOOKS]


#: A class with two hooks and a function whose name only starts like one.
SAMPLE = "class Card:\n    def __reduce__(self):\n        pass\n    def to_json(self): ...\ndef copy_of(x): ...\n"


def test_the_check_sees_a_hook():
    assert hooks_defined(SAMPLE) == ["__reduce__", "to_json"]


def test_every_title_and_the_skeleton_are_checked():
    names = {f.parent.name for f in title_files()}
    assert {"dao", "wizard", "tsuro_seas", "kingdomino_duel", "dragon_lairds", "new_title"} <= names
    assert any(f.name == "rules.py.tmpl" for f in title_files())


def test_no_title_defines_persistence_hooks():
    found = {str(f.relative_to(ROOT)): hooks_defined(f.read_text(encoding="utf-8")) for f in title_files()}
    assert {k: v for k, v in found.items() if v} == {}
