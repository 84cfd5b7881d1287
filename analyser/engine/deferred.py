"""Class attributes taken from another module when first read, so that loading a title does not
load its report figures or its text drawing (``analyser list`` reads only names and counts).

    class MyGame(_Rules):
        figure_sums = Deferred("my_package.figures")
        trace_legend = Deferred("my_package.render", "TRACE_LEGEND")

The first read of the attribute (on the class or an instance) imports the module, puts the
module's attribute on the class in place of the :class:`Deferred` and returns it as a plain class
attribute would be returned (a function read on an instance is a bound method).
"""

from __future__ import annotations

import importlib
from typing import Any


class Deferred:
    """A class attribute that is ``getattr(import_module(module), name)``; ``name`` defaults to the
    attribute's own name in the class."""

    def __init__(self, module: str, name: str | None = None) -> None:
        self.module = module
        self.name = name
        self.owner: type | None = None
        self.attr = ""

    def __set_name__(self, owner: type, attr: str) -> None:
        self.owner, self.attr = owner, attr
        if self.name is None:
            self.name = attr

    def __get__(self, obj: Any, objtype: type | None = None) -> Any:
        value = getattr(importlib.import_module(self.module), self.name)
        setattr(self.owner, self.attr, value)  # later reads find the plain attribute
        return getattr(obj if obj is not None else objtype or self.owner, self.attr)
