"""Views as plain data, for ``analyser check`` (:mod:`analyser.kit.check`): a seat's view turned
into nested lists, dicts and scalars (:func:`view_data`: every public attribute - slots,
properties, instance attributes; not methods or names starting with ``_`` - recursively), so two views compare with ``==``, and the
first place two of them differ (:func:`first_difference`)."""

from __future__ import annotations

from dataclasses import fields, is_dataclass
from enum import Enum
from typing import Any

from analyser.engine.core import Params
from analyser.engine.search import public_names


def view_data(value: Any, depth: int = 0) -> Any:
    """``value`` (a view, or anything reachable from it) as JSON-like plain data, for comparing
    two views.  Methods and names starting with ``_`` are left out; depth is capped at 8."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, Enum):
        return ["enum", type(value).__name__, view_data(value.value, depth + 1)]
    if depth > 8:
        return repr(value)
    if isinstance(value, Params):
        return {"params": value.as_dict()}
    if isinstance(value, (list, tuple)):
        return [view_data(v, depth + 1) for v in value]
    if isinstance(value, dict):
        if all(isinstance(k, str) for k in value):
            return {"dict": {k: view_data(v, depth + 1) for k, v in value.items()}}
        return {"dict": sorted((repr(view_data(k, depth + 1)), view_data(v, depth + 1)) for k, v in value.items())}
    if isinstance(value, (set, frozenset)):
        return {"set": sorted(repr(view_data(v, depth + 1)) for v in value)}
    if is_dataclass(value):
        return {f.name: view_data(getattr(value, f.name), depth + 1) for f in fields(value)
                if not f.name.startswith("_")}
    out = {}
    for name in public_names(value):
        try:
            item = getattr(value, name)
        except Exception as e:  # a property that cannot be read is part of what the view shows
            item = f"<{type(e).__name__}>"
        if callable(item) and not isinstance(item, (type, Enum)):
            continue
        out[name] = view_data(item, depth + 1)
    return {type(value).__name__: out}


def first_difference(a: Any, b: Any, path: str = "view") -> str:
    """Where two :func:`view_data` values first differ, as a path such as ``view.display[2]``."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b), key=str):
            if a.get(k) != b.get(k):
                # type-name and container keys are not attributes: leave them out of the path
                return first_difference(a.get(k), b.get(k),
                                         path if k in ("dict", "set") or k[:1].isupper() else f"{path}.{k}")
        return path
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{path} (length {len(a)} vs {len(b)})"
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return first_difference(x, y, f"{path}[{i}]")
    return path
