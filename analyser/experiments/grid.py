"""The value grammar of ``analyser sweep`` and the grid of cells it spans.

docs/commands/sweep.md is the contract (values, lists, ranges; the cells are the product of the
varied values in the order written, the last changing fastest, at most :data:`MAX_CELLS`).  Every
refusal is one :class:`~analyser.engine.core.InputError` line, before anything is played.
"""

from __future__ import annotations

import itertools
import math
import re
import typing
from dataclasses import dataclass, field
from fractions import Fraction

from analyser.engine.core import InputError
from analyser.engine.registry import check_parameter, parse_spec, resolve_strategy, strategy_parameters, title_ref
from analyser.engine.errors import did_you_mean

#: Most cells one sweep may have.
MAX_CELLS = 10_000
#: Most values one range may produce (a guard against typing 1..1e9).
MAX_RANGE_VALUES = 10_000

_NUM = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
_RANGE = re.compile(rf"^({_NUM})?\.\.({_NUM})?(?::(.*))?$")
#: A number as written on the command line (``4``, ``-0.25``, ``1e3``).
NUMBER = re.compile(rf"^{_NUM}$")


def expand(text: str, *, name: str, kind: type = str, choices=None) -> list[str]:
    """The values of one written value (a single value, a list, ranges) as text, in order.

    ``name`` labels error messages (``rule bust_limit`` or ``strategy parameter limit``);
    ``kind`` is the option's type (``int``, ``float``, ``bool``, ``str``) and ``choices`` its
    accepted values, if any: a range is accepted only for ``int`` and ``float``.  Values are
    returned as text so the caller coerces and validates them as it would a single value.
    Raises :class:`InputError`.
    """
    text = text.strip()
    if not text:
        raise InputError(f"{name}: empty value; give a value, a list a,b,c or a range a..b")
    out: list[str] = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            raise InputError(f"{name}={text!r}: empty list entry; write a,b,c with no empty item")
        if ".." not in item:
            out.append(item)
            continue
        if kind not in (int, float) or choices:
            accepted = (", ".join(map(str, choices)) if choices else
                        ("on, off" if kind is bool else "text values"))
            raise InputError(f"{name}={text!r}: a range a..b needs a number option, but this one takes "
                             f"{accepted}; list the values instead, e.g. a,b")
        out.extend(_range_values(item, name=name, kind=kind))
    # keep the first of repeated values (a repeated cell would be the same game twice)
    return list(dict.fromkeys(out))


def _range_values(item: str, *, name: str, kind: type) -> list[str]:
    m = _RANGE.match(item)
    if not m:
        raise InputError(f"{name}={item!r} is not a range; write a..b or a..b:step with numbers")
    a, b, step = m.group(1), m.group(2), m.group(3)
    if a is None or b is None or (step is not None and not step.strip()):
        raise InputError(f"{name}={item!r} is an empty range; give both ends (and a step after ':'), "
                         "e.g. 4..14 or 0..1:0.25")
    try:
        fa, fb = Fraction(a), Fraction(b)
        fs = Fraction(step.strip()) if step is not None else Fraction(1)
    except (ValueError, ZeroDivisionError):
        raise InputError(f"{name}={item!r}: the step {step!r} is not a number; write a..b:step") from None
    if fa > fb:
        raise InputError(f"{name}={item!r}: the range runs backwards ({a} > {b}); write the smaller end first")
    if fs <= 0:
        raise InputError(f"{name}={item!r}: the step must be positive")
    count = math.floor((fb - fa) / fs) + 1
    if count > MAX_RANGE_VALUES:
        raise InputError(f"{name}={item!r} gives {count:,} values; at most {MAX_RANGE_VALUES:,} are accepted")
    values = [fa + i * fs for i in range(count)]
    if kind is int:
        if any(v.denominator != 1 for v in values):
            raise InputError(f"{name}={item!r} gives values that are not whole numbers; this option takes "
                             "whole numbers, so use a whole-number step")
        return [str(int(v)) for v in values]
    return [str(int(float(v))) if float(v).is_integer() else repr(float(v)) for v in values]


# --------------------------------------------------------------------------------------------
# Strategy specs with varied parameters
# --------------------------------------------------------------------------------------------

@dataclass
class SlotGrid:
    """One ``-s`` of a sweep: the strategy name part and, per parameter, its values (text)."""

    text: str
    head: str                          # "threshold" or "bots.py:cautious"
    params: list[tuple[str, list[str]]] = field(default_factory=list)

    def spec(self, chosen: dict[str, str]) -> str:
        """The plain strategy spec with the given value for every parameter."""
        if not self.params:
            return self.head
        return self.head + ":" + ",".join(f"{k}={chosen[k]}" for k, _ in self.params)


def split_strategy(text: str) -> tuple[str, list[tuple[str, str]]]:
    """``'threshold:limit=4,6,8,x=1'`` -> ``('threshold', [('limit', '4,6,8'), ('x', '1')])``.

    A comma-separated piece without ``=`` continues the previous parameter's list.
    """
    raw = text.strip()
    if not raw:
        raise InputError("empty strategy spec; write a name such as greedy or threshold:limit=4..14")
    parts = raw.split(":")
    head_parts = [parts[0]]
    rest = parts[1:]
    if parts[0].endswith(".py") and rest and "=" not in rest[0]:
        head_parts.append(rest[0])
        rest = rest[1:]
    # a range step also uses ':' (limit=0..1:0.25), so join what follows the name back together
    body = ":".join(rest)
    params: list[tuple[str, str]] = []
    if rest:
        for piece in body.split(","):
            key, sep, value = piece.partition("=")
            if sep and key.strip() and ".." not in key:
                if key.strip() in dict(params):
                    raise InputError(f"strategy parameter {key.strip()!r} is given twice in {text!r}; give it once")
                params.append((key.strip(), value.strip()))
            elif params:
                k, v = params[-1]
                params[-1] = (k, f"{v},{piece.strip()}")
            else:
                raise InputError(f"malformed strategy parameter {piece!r} in {text!r}; write key=value")
    return ":".join(head_parts), params


def parse_strategy(text: str, game_id: str) -> SlotGrid:
    """Parse one ``-s`` of a sweep against the strategy's parameter types (InputError)."""
    head, params = split_strategy(text)
    spec = parse_spec(head)
    obj = resolve_strategy(spec, game_id)
    accepted = strategy_parameters(obj)
    grid = SlotGrid(text=text.strip(), head=head)
    for key, value in params:
        if key not in accepted:
            raise InputError(f"unknown parameter {key!r}{did_you_mean(key, accepted)} for strategy "
                             f"{spec.name or spec.source!r}; "
                             f"accepted: {', '.join(accepted) or 'none'}")
        kind = accepted[key][0]
        values = expand(value, name=f"strategy parameter {key}", kind=kind)
        for v in values:
            check_parameter(obj, spec.name or spec.source, key, v)
        grid.params.append((key, values))
    return grid


def parse_rules(pairs, params_cls) -> list[tuple[str, list[str]]]:
    """``["bust_limit=10,12", "hook=on"]`` -> ``[("bust_limit", ["10", "12"]), ("hook", ["on"])]``,
    each value checked against the option's type and choices (InputError)."""
    hints = typing.get_type_hints(params_cls)
    options = {o["name"]: o for o in params_cls.options()}
    out: list[tuple[str, list[str]]] = []
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key = key.strip()
        if not sep or not key or not value.strip():
            raise InputError(f"malformed --rule {pair!r}; write key=value, key=a,b,c or key=a..b")
        if key not in options:
            raise InputError(f"unknown rule {key!r}{did_you_mean(key, options)}; this title accepts: "
                             f"{', '.join(options)}")
        if key in dict(out):
            raise InputError(f"--rule {key!r} is given twice; give it once (list several values as a,b,c)")
        kind = hints.get(key, str)
        values = expand(value, name=f"rule {key}", kind=kind, choices=options[key]["choices"])
        for v in values:
            params_cls.from_overrides({key: v})
        out.append((key, values))
    return out


# --------------------------------------------------------------------------------------------
# Cells
# --------------------------------------------------------------------------------------------

@dataclass
class Cell:
    """One cell: its number, the lineup (plain strategy specs), the rule overrides, and the
    varied values (column name -> value text)."""

    index: int
    strategies: list[str]
    rules: dict[str, str]
    values: dict[str, str]


@dataclass
class Grid:
    """The parsed sweep: the slots, the rules, the varied dimensions (column, values) and cells."""

    slots: list[SlotGrid]
    rules: list[tuple[str, list[str]]]
    dims: list[tuple[str, list[str]]]
    cells: list[Cell]
    dim_kinds: dict[str, str]

    @property
    def focus(self) -> int:
        """The slot whose win rate ranks the cells: the first strategy with a varied parameter,
        else the first strategy."""
        return next((i for i, s in enumerate(self.slots) if any(len(v) > 1 for _, v in s.params)), 0)


def column_name(slots: list[SlotGrid], i: int, key: str) -> str:
    """Column for slot ``i``'s parameter ``key``: ``threshold.limit``, or ``s2.threshold.limit``
    when another slot has the same strategy name."""
    name = slots[i].head.split(":")[-1]
    same = [j for j, s in enumerate(slots) if s.head.split(":")[-1] == name and any(k == key for k, _ in s.params)]
    return f"{name}.{key}" if len(same) <= 1 else f"s{i}.{name}.{key}"


def build(game, strategies: list[str], rules: list[str]) -> Grid:
    """Parse the ``-s`` and ``--rule`` values of a sweep and form its cells (InputError on bad
    input, including more than :data:`MAX_CELLS` cells).  Every cell's rules are validated."""
    ref = title_ref(game)
    slots = [parse_strategy(s, ref) for s in strategies]
    rule_values = parse_rules(rules, game.Params)
    hints = typing.get_type_hints(game.Params)
    dims: list[tuple[str, list[str]]] = []
    kinds: dict[str, str] = {}
    for i, s in enumerate(slots):
        accepted = strategy_parameters(resolve_strategy(parse_spec(s.head), ref))
        for key, values in s.params:
            if len(values) > 1:
                col = column_name(slots, i, key)
                dims.append((col, values))
                kinds[col] = accepted[key][0].__name__
    for key, values in rule_values:
        if len(values) > 1:
            dims.append((key, values))
            kinds[key] = hints.get(key, str).__name__
    total = math.prod(len(v) for _, v in dims)
    if total > MAX_CELLS:
        sizes = " x ".join(str(len(v)) for _, v in dims)
        raise InputError(f"the sweep has {total:,} cells ({sizes}); at most {MAX_CELLS:,} are accepted - "
                         "narrow a range or use a larger step")
    cells = []
    for k, combo in enumerate(itertools.product(*[v for _, v in dims])):
        chosen = dict(zip([c for c, _ in dims], combo))
        specs = [s.spec({key: (chosen[column_name(slots, i, key)] if len(values) > 1 else values[0])
                         for key, values in s.params}) for i, s in enumerate(slots)]
        rules_k = {key: (chosen[key] if len(values) > 1 else values[0]) for key, values in rule_values}
        try:
            game.Params.from_overrides(rules_k)
        except InputError as e:
            raise InputError(f"cell {', '.join(f'{c}={v}' for c, v in chosen.items())}: {e}") from None
        cells.append(Cell(k, specs, rules_k, chosen))
    return Grid(slots, rule_values, dims, cells, kinds)
