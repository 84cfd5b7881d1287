"""Loading a user's Python file or folder (a strategy file, a title file, a title package) safely.

* **A unique private module name.**  A file is imported as ``_analyser_file_<hash>``, where the
  hash covers its absolute path and its content, never under its own name: a strategy file named
  ``random.py`` or ``json.py`` cannot stand in for the standard module of that name, in this
  process or in a worker.  A folder (a title package) is imported the same way as a package, so
  its ``__init__.py`` reaches its own modules with relative imports (``from .rules import Pig``).
* **No lasting ``sys.path`` change.**  Nothing is added to ``sys.path`` to import the file, and a
  change the file itself makes while it is imported is undone afterwards.
* **Edits are seen.**  The cache is keyed by path and content hash (SHA-256 of the file, or of
  every ``.py`` file of a folder), so a file edited between two runs in one process is imported
  again; an unchanged file is imported once.  The file is compiled from the bytes just hashed
  (no ``__pycache__`` is read or written for it), so a quick edit that keeps the size and the
  modification time cannot bring back the old code.
* **Worker processes** are started by joblib with ``python -m``, which puts the current folder
  first on their ``sys.path``; a ``random.py`` there would replace the standard module before any
  of our code runs.  :func:`safe_worker_path` sets ``PYTHONSAFEPATH`` (Python 3.11+) while
  workers start, so they never put the current folder on ``sys.path``.

A broken file is one :class:`~analyser.engine.core.InputError` line naming the file and the exception.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.machinery
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

from analyser.engine.core import InputError

#: Prefix of the module names under which user files are imported.
PREFIX = "_analyser_file_"

_cache: dict[tuple[str, str], ModuleType] = {}


def content_hash(path: Path) -> str:
    """SHA-256 of a file's bytes, or of a folder's ``.py`` files (their relative paths and
    bytes, in sorted order; ``__pycache__`` and hidden folders are skipped)."""
    h = hashlib.sha256()
    if path.is_dir():
        for f in sorted(path.rglob("*.py")):
            rel = f.relative_to(path)
            if any(part == "__pycache__" or part.startswith(".") for part in rel.parts):
                continue
            h.update(str(rel).encode() + b"\0" + f.read_bytes() + b"\0")
    else:
        h.update(path.read_bytes())
    return h.hexdigest()


class _FreshLoader(importlib.machinery.SourceFileLoader):
    """Compile the source every time (never a cached ``.pyc``)."""

    def get_code(self, fullname):
        return self.source_to_code(self.get_data(self.path), self.path)


def load(path: str | Path, what: str = "file") -> ModuleType:
    """Import the Python file (or package folder) at ``path`` under a private name; cached by
    path and content.  ``what`` names it in error messages ("strategy file", "title file").

    Raises :class:`InputError` when the file does not exist or fails to import.
    """
    path = Path(path).expanduser()
    try:
        path = path.resolve()
        content = content_hash(path)
    except OSError as e:
        raise InputError(f"{what} {str(path)!r} cannot be read: {e.strerror or e}") from None
    key = (str(path), content)
    if key in _cache:
        return _cache[key]
    name = PREFIX + hashlib.sha256(f"{path}\0{content}".encode()).hexdigest()[:16]
    source = path / "__init__.py" if path.is_dir() else path  # (a folder: imported as a package)
    if path.is_dir() and not source.is_file():
        raise InputError(f"{what} {str(path)!r} is a folder without an __init__.py; give a title "
                         "package folder (as `analyser new` writes) or a .py file")
    package = {"submodule_search_locations": [str(path)]} if path.is_dir() else {}
    spec = importlib.util.spec_from_file_location(name, source, loader=_FreshLoader(name, str(source)), **package)
    if spec is None:
        raise InputError(f"{what} {str(path)!r} cannot be imported; give a .py file")
    module = importlib.util.module_from_spec(spec)
    saved_path, saved_bytecode = list(sys.path), sys.dont_write_bytecode
    sys.modules[name] = module
    sys.dont_write_bytecode = True  # a package's own modules: no .pyc beside the user's files
    try:
        spec.loader.exec_module(module)
    except (Exception, SystemExit) as e:  # a broken user file: one line, not a traceback
        for mod in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
            del sys.modules[mod]
        raise InputError(f"{what} {str(path)!r} failed to import: {type(e).__name__}: {e}") from None
    finally:
        sys.dont_write_bytecode = saved_bytecode
        if sys.path != saved_path:
            sys.path[:] = saved_path
    _cache[key] = module
    return module


@contextlib.contextmanager
def safe_worker_path():
    """While the block runs, new Python processes (joblib workers) start with ``PYTHONSAFEPATH=1``:
    they do not put the current folder on ``sys.path``, so a user's ``random.py`` or ``json.py``
    there cannot shadow the standard module.  The previous value is restored afterwards."""
    before = os.environ.get("PYTHONSAFEPATH")
    os.environ["PYTHONSAFEPATH"] = "1"
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("PYTHONSAFEPATH", None)
        else:
            os.environ["PYTHONSAFEPATH"] = before
