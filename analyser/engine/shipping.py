"""What a batch job carries to a worker on another machine (a Dask cluster), and how the worker
rebuilds it: the source of every strategy file (:func:`ship_sources`) and of a title given as a
file or folder (:func:`ship_title`), written back into a private temporary folder on the worker
(:func:`materialise_sources`, :func:`materialise_title`).  A local worker (loky) reads the files
where they are.  Re-exported by :mod:`analyser.engine.runner`."""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path
from typing import Sequence

from analyser.engine.core import InputError
from analyser.engine.registry import is_title_file, parse_spec, split_title_ref


def ship_sources(strategies: Sequence[str]) -> tuple[tuple[str, str], ...]:
    """The strategy files among ``strategies`` as ``(path as written, source text)`` pairs, to
    travel with a job to workers that may not see this machine's files."""
    out = []
    for text in strategies:
        spec = parse_spec(text)
        if spec.source.endswith(".py"):
            path = Path(spec.source).expanduser()
            out.append((spec.source, path.read_text(encoding="utf-8")))
    return tuple(dict.fromkeys(out))


#: The files of a title folder that travel to remote workers: code and data, no caches.
TITLE_FILE_SUFFIXES = (".py", ".csv", ".tsv", ".toml", ".json", ".txt", ".md", ".yaml", ".yml")
#: At most this many bytes of a title folder are shipped (InputError beyond).
TITLE_SHIP_BYTES = 20_000_000


def ship_title(ref: str) -> tuple[tuple[str, str], ...]:
    """The files of a title given by file or folder (``path[:NAME]``), as ``(path inside the
    title, source text)`` pairs - a single file as ``("name.py", text)``, a folder's files under
    its own name (``"my-game/rules.py"``; ``__pycache__``, hidden files and other suffixes than
    :data:`TITLE_FILE_SUFFIXES` left out) - so workers on other machines load the same title.
    ``()`` for a registered title.  Raises InputError for a folder above
    :data:`TITLE_SHIP_BYTES` or a file that is not UTF-8 text."""
    if not is_title_file(ref):
        return ()
    path, _ = split_title_ref(ref)
    path = path.resolve()
    files = [path] if path.is_file() else sorted(
        f for f in path.rglob("*") if f.is_file() and f.suffix in TITLE_FILE_SUFFIXES
        and not any(part.startswith(".") or part == "__pycache__" for part in f.relative_to(path).parts))
    out, total = [], 0
    for f in files:
        total += f.stat().st_size
        if total > TITLE_SHIP_BYTES:
            raise InputError(f"title folder {str(path)!r} holds more than {TITLE_SHIP_BYTES // 1_000_000} MB of code "
                             "and data; a title shipped to a cluster must be smaller")
        name = f.name if path.is_file() else f"{path.name}/{f.relative_to(path).as_posix()}"
        try:
            out.append((name, f.read_text(encoding="utf-8")))
        except UnicodeDecodeError:
            raise InputError(f"title file {str(f)!r} is not UTF-8 text; a title shipped to a cluster is text "
                             "files only") from None
    return tuple(out)


def materialise_title(ref: str, sources: Sequence[tuple[str, str]]) -> str:
    """The title reference ``ref`` pointing at a local copy of its shipped files (written once per
    content under the temporary folder, named by its SHA-256), ``:NAME`` kept."""
    if not sources:
        return ref
    content_key = hashlib.sha256(repr(tuple(sources)).encode("utf-8")).hexdigest()[:16]
    root = Path(tempfile.gettempdir()) / "analyser-titles" / content_key
    top = sources[0][0].split("/")[0]
    if not (root / top).exists():
        staging = Path(tempfile.mkdtemp(prefix=f".{content_key}-", dir=root.parent if root.parent.exists() else None))
        for name, text in sources:
            target = staging / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        root.mkdir(parents=True, exist_ok=True)
        try:
            os.replace(staging / top, root / top)
        except OSError:  # another worker got there first: its copy is the same content
            pass
    _, name = split_title_ref(ref)
    return str(root / top) + (f":{name}" if name else "")


def materialise_sources(strategies: Sequence[str], sources: Sequence[tuple[str, str]]) -> list[str]:
    """Strategy specs with each shipped file replaced by a local copy (written once per content
    under the temporary folder, named by its SHA-256), so a worker anywhere loads the same code."""
    if not sources:
        return list(strategies)
    copies = {}
    for written, text in sources:
        content_key = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
        folder = Path(tempfile.gettempdir()) / "analyser-strategies" / content_key
        target = folder / Path(written).name
        if not target.exists():
            folder.mkdir(parents=True, exist_ok=True)
            tmp = folder / f".{target.name}.{os.getpid()}.tmp"
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, target)
        copies[written] = str(target)
    out = []
    for text in strategies:
        spec = parse_spec(text)
        out.append(copies[spec.source] + text[len(spec.source):] if spec.source in copies else text)
    return out
