"""``analyser new``: write a working skeleton of a title of your own.

The skeleton is a title package folder laid out like the built-in titles (``__init__.py``,
``rules.py``, ``rules.md`` (its rules page), ``figures.py``, ``render.py``) plus
``strategies.py`` (``hold``, ``optimal`` and ``random``) and ``tests/``.  Its rules are a tiny
complete game, Pig, so it runs at once: ``analyser simulate ./my-game -s hold -s random``.  The
templates live in ``analyser/kit/templates/new_title/``; the words ``__TITLE_ID__``,
``__TITLE_NAME__``, ``__CLASS__`` and ``__FOLDER__`` in them are replaced, so a template never
aligns a continuation line under something that follows one of them (its length changes).
"""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

from analyser.engine.core import InputError
from analyser.engine.registry import game_ids

ID_PATTERN = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")

#: template file -> path inside the new folder ({package} is the title id with '-' -> '_')
FILES = {f"{name}.tmpl": name for name in ("__init__.py", "rules.py", "rules.md", "figures.py", "render.py",
                                          "strategies.py")} | {
    "test_title.py.tmpl": "tests/test_{package}.py",
    "test_contract.py.tmpl": "tests/test_contract.py",
    "pytest.ini.tmpl": "tests/pytest.ini",
}


def class_name(title_id: str) -> str:
    """``"my-game"`` -> ``"MyGame"``."""
    return "".join(part.capitalize() for part in title_id.split("-"))


def write_skeleton(folder: str | Path) -> list[Path]:
    """Write the skeleton into ``folder`` (new, or empty); the title id is the folder's name.

    Returns the files written.  Raises :class:`InputError` when the name is not a valid id
    (lower-case letters, digits and single hyphens, starting with a letter), is the id of a
    registered title, or the folder exists and is not empty.
    """
    folder = Path(folder).expanduser()
    title_id = folder.name
    if not ID_PATTERN.match(title_id):
        raise InputError(f"title name {title_id!r} is not accepted; use lower-case letters, digits and single "
                         "hyphens, starting with a letter (e.g. my-game)")
    if title_id in game_ids():
        raise InputError(f"title name {title_id!r} is the id of a built-in title; choose another name")
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise InputError(f"{str(folder)!r} already exists and is not an empty folder; choose a new name")
    words = {"__TITLE_ID__": title_id, "__TITLE_NAME__": title_id.replace("-", " ").capitalize(),
             "__CLASS__": class_name(title_id), "__FOLDER__": str(folder)}
    templates = resources.files("analyser.kit.templates") / "new_title"
    written = []
    try:
        for template, target in FILES.items():
            text = (templates / template).read_text(encoding="utf-8")
            for key, value in words.items():
                text = text.replace(key, value)
            path = folder / target.format(package=title_id.replace("-", "_"))
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            written.append(path)
    except OSError as e:
        raise InputError(f"cannot write {str(folder)!r}: {e.strerror or e}") from None
    return written
