"""What the engine derives from a state's declaration (:mod:`analyser.engine.components`): copy,
JSON round trip, a seat's view, and the re-deal behind ``resample_hidden`` and ``determinize``.

A state class is a dataclass (``slots=True`` is fastest).  :func:`spec` reads its fields once
and caches a :class:`StateSpec`:

* **copy** - generated code, one line per field, chosen by the field's annotation: immutable
  values (numbers, strings, tuples, named tuples, enums, frozen dataclasses such as the rule
  options) are shared, ``list[X]`` is copied with ``list()``, lists of lists level by level,
  ``dict``/``set`` likewise, an object with a ``copy()`` method by that method, a (mutable)
  dataclass by its own generated copy, anything else by ``copy.deepcopy``.  A
  :func:`~analyser.engine.components.scratch` field starts afresh; a
  :func:`~analyser.engine.components.derived` field is copied like any other.
* **equality and pickling** - the dataclass's own (scratch and derived fields are not compared).
* **JSON** - :func:`encode` turns values into JSON data (an enum member as its value's JSON - a
  member may be valued by another enum's member, so an interned value type is an enum -, tuples
  and named tuples as lists, rule options as a dict, a dataclass as an object of its fields but
  its scratch and derived ones); :func:`decode` turns JSON data back by the field's annotation
  and refuses a value of the wrong type with :class:`~analyser.engine.errors.InputError` naming
  the field.  No other class has a JSON form: a title writes no ``to_json``/``from_json``.
* **view** - a live view: an object with one read-only attribute per field that reads through to
  the state, so one view per seat serves a whole game.  A public field reads as it is; a
  per-seat hidden zone reads as the seat's own entry under the name without its plural ``s``
  (``hands`` -> ``hand``), with ``<name>_sizes`` for every seat's count; a face-down zone reads
  only as ``<name>_size``; a ``secrets`` field (one value per seat) reads as the seat's own
  entry under its name; hidden ``counters`` read as the seat's own number (``OWNER``) or not
  at all (``NOBODY``); scratch and derived fields are not there.  ``unseen`` lists, sorted, the cards the
  seat cannot see (a multiset the seat can work out).
* **re-deal** - the cards a seat cannot see, pooled in a fixed order, sorted (so the result never
  depends on where they were), shuffled with the rng and dealt back into the same places in the
  same numbers; each kind of card (``cards=`` of a declaration) is pooled and dealt on its own.
  ``resample_hidden(state, seat, rng)`` re-deals a copy of the state; ``determinize(view, rng)``
  re-deals a copy of the state behind the view: it depends on the public data and on the
  multiset of unseen cards only.
"""

from __future__ import annotations

import copy as copy_module
import dataclasses
import enum
import types
import typing
from functools import cached_property, lru_cache
from itertools import repeat, starmap
from operator import attrgetter
from typing import Any, Union

from analyser.engine.components import EVERYONE, NOBODY, OWNER, Component, component_of
from analyser.engine.errors import InputError
from analyser.engine.params import Params

_IMMUTABLE = (int, float, str, bool, bytes, type(None), complex, frozenset, enum.Enum)
_JSON_PLAIN = (int, float, str, bool, type(None))


# --------------------------------------------------------------------------------------------
# The spec of a state class
# --------------------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class FieldSpec:
    """One field of a state class: its name, annotation and declaration (None: a plain value)."""

    name: str
    annotation: Any
    component: Component | None
    required: bool

    @property
    def scratch(self) -> bool:
        return self.component is not None and self.component.kind == "scratch"

    @property
    def saved(self) -> bool:
        """Part of the JSON round trip and the views: neither scratch nor derived."""
        return not is_unsaved(self.component)

    @property
    def visible(self) -> str:
        return EVERYONE if self.component is None else self.component.visible


class StateSpec:
    """What the engine derives for one state class; build it with :func:`spec`."""

    def __init__(self, cls: type):
        if not dataclasses.is_dataclass(cls):
            raise TypeError(f"{cls.__name__} is not a dataclass; a title's state is a dataclass "
                            "of plain values and components (analyser.engine.components)")
        hints = typing.get_type_hints(cls)
        self.cls = cls
        self.fields = tuple(
            FieldSpec(f.name, hints.get(f.name, Any), component_of(f),
                      f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING)
            for f in dataclasses.fields(cls))
        self.saved = tuple(f for f in self.fields if f.saved)
        self.clone = _make_clone(cls, self.fields)

    def hidden_places(self, state, seat: int) -> list[tuple[list, int, int]]:
        """``(list, start, count)`` of every place holding cards ``seat`` cannot see, in the
        order of the fields and, within a per-seat field, of the seats.  Only zones and hands
        hold cards: hidden counters are numbers, never re-dealt."""
        return [place for group in self.hidden_groups(state, seat) for place in group]

    def hidden_groups(self, state, seat: int) -> list[list[tuple[list, int, int]]]:
        """:meth:`hidden_places` grouped by the kind of card (``Component.cards``), the groups in
        the order of their first field: a re-deal deals each group among its own places."""
        groups: dict[str, list] = {}
        for name, per_seat, owner, cards in self.hidden:
            places = groups.setdefault(cards, [])
            value = getattr(state, name)
            if not per_seat:
                places.append((value, 0, len(value)))
                continue
            for k, hand in enumerate(value):
                if not owner or k != seat:
                    places.append((hand, 0, len(hand)))
        return list(groups.values())

    @cached_property
    def hidden(self) -> tuple[tuple[str, bool, bool, str], ...]:
        """``(name, per seat, seen by its owner, kind of card)`` of each zone some seat cannot see."""
        return tuple((f.name, f.component.kind == "hands", f.component.visible == OWNER, f.component.cards)
                     for f in self.fields if f.component is not None
                     and f.component.kind in ("zone", "hands")  # cards, not numbers
                     and f.component.visible != EVERYONE)


@lru_cache(maxsize=None)
def spec(cls: type) -> StateSpec:
    """The (cached) :class:`StateSpec` of a state class."""
    return StateSpec(cls)


# --------------------------------------------------------------------------------------------
# Copy
# --------------------------------------------------------------------------------------------

def _is_immutable(ann) -> bool:
    origin = typing.get_origin(ann)
    if ann is Any:
        return False
    if origin is tuple:
        return all(_is_immutable(a) for a in typing.get_args(ann) if a is not Ellipsis)
    if origin in (Union, types.UnionType):
        return all(_is_immutable(a) for a in typing.get_args(ann))
    if origin is typing.Literal:
        return True
    if not isinstance(ann, type):
        return False
    if issubclass(ann, _IMMUTABLE + (tuple,)) or (dataclasses.is_dataclass(ann) and ann.__dataclass_params__.frozen):
        return True  # (a tuple subclass: a named tuple)
    return bool(getattr(ann, "__immutable__", False))


def _copy_expr(ann, var: str, depth: int = 0) -> str:
    """Python source that copies ``var`` of annotation ``ann``."""
    if _is_immutable(ann):
        return var
    origin, args = typing.get_origin(ann), typing.get_args(ann)
    item = f"_x{depth}"
    if origin in (Union, types.UnionType) and type(None) in args:
        rest = [a for a in args if a is not type(None)]
        if len(rest) == 1:
            return f"(None if {var} is None else {_copy_expr(rest[0], var, depth)})"
    if origin is list and args:
        inner = _copy_expr(args[0], item, depth + 1)
        if inner == item:
            return f"list({var})"
        for kind in ("list", "dict", "set"):
            if inner == f"{kind}({item})":
                return f"list(map({kind}, {var}))"  # the comprehension's result, built in C
        return f"[{inner} for {item} in {var}]"
    if origin is dict and len(args) == 2:
        inner = _copy_expr(args[1], item, depth + 1)
        return f"dict({var})" if inner == item else f"{{_k{depth}: {inner} for _k{depth}, {item} in {var}.items()}}"
    if origin is set and args and _is_immutable(args[0]):
        return f"set({var})"
    if isinstance(ann, type) and callable(getattr(ann, "copy", None)) and ann not in (list, dict, set):
        return f"{var}.copy()"
    if isinstance(ann, type) and dataclasses.is_dataclass(ann):
        return f"_clone({var})"
    return f"_deepcopy({var})"


def _make_clone(cls: type, fields: tuple[FieldSpec, ...]):
    """A function ``clone(state) -> state`` generated for ``cls``: one assignment per field."""
    lines = ["def clone(s):", "    t = _new(_cls)"]
    env = {"_new": object.__new__, "_cls": cls, "_deepcopy": copy_module.deepcopy, "_clone": clone}
    for i, f in enumerate(fields):
        if f.scratch:
            field = next(x for x in dataclasses.fields(cls) if x.name == f.name)
            env[f"_factory{i}"] = field.default_factory
            lines.append(f"    t.{f.name} = _factory{i}()")
        else:
            lines.append(f"    t.{f.name} = {_copy_expr(f.annotation, f's.{f.name}')}")
    lines.append("    return t")
    exec("\n".join(lines), env)  # noqa: S102 - source built above from field names and annotations
    return env["clone"]


def clone(state):
    """A copy of ``state`` that shares no mutable data with it."""
    return spec(type(state)).clone(state)


# --------------------------------------------------------------------------------------------
# JSON
# --------------------------------------------------------------------------------------------

def encode(value) -> Any:
    """JSON data for a state's or an action's value (see the module docstring)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value.value if isinstance(value, enum.Enum) else value
    if isinstance(value, enum.Enum):
        return encode(value.value)
    if isinstance(value, Params):
        return value.as_dict()
    if isinstance(value, (list, tuple)):
        return [encode(x) for x in value]
    if isinstance(value, dict):
        return {str(k): encode(v) for k, v in value.items()}
    if isinstance(value, (set, frozenset)):
        return sorted(encode(x) for x in value)
    if dataclasses.is_dataclass(value):
        return {f.name: encode(getattr(value, f.name)) for f in dataclasses.fields(value)
                if not is_unsaved(component_of(f))}
    raise TypeError(f"a {type(value).__name__} has no JSON form: make it a plain value, an enum, a named tuple "
                    "or a dataclass")


def _wrong(path: str, expected: str, data) -> InputError:
    shown = repr(data)
    shown = shown if len(shown) <= 40 else shown[:37] + "..."
    return InputError(f"{path}: expected {expected}, got {shown}")


def decode(ann, data, path: str = "value"):
    """The value of annotation ``ann`` that :func:`encode` turned into ``data``.  Raises
    :class:`InputError` naming ``path`` when ``data`` does not fit."""
    if ann is Any:
        return data
    origin, args = typing.get_origin(ann), typing.get_args(ann)
    if origin in (Union, types.UnionType):
        if data is None and type(None) in args:
            return None
        for a in args:
            if a is type(None):
                continue
            try:
                return decode(a, data, path)
            except InputError:
                continue
        raise _wrong(path, " or ".join(getattr(a, "__name__", str(a)) for a in args), data)
    if origin is typing.Literal:
        if data in args:
            return data
        raise _wrong(path, " or ".join(map(repr, args)), data)
    if origin is list:
        if not isinstance(data, list):
            raise _wrong(path, "a list", data)
        inner = args[0] if args else Any
        return [decode(inner, x, f"{path}[{i}]") for i, x in enumerate(data)]
    if origin is tuple:
        if not isinstance(data, list):
            raise _wrong(path, "a list", data)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(decode(args[0], x, f"{path}[{i}]") for i, x in enumerate(data))
        if args and len(args) != len(data):
            raise _wrong(path, f"a list of {len(args)}", data)
        return tuple(decode(a, x, f"{path}[{i}]") for i, (a, x) in enumerate(zip(args, data)))
    if origin is dict:
        if not isinstance(data, dict):
            raise _wrong(path, "an object", data)
        key, inner = args if args else (str, Any)
        return {decode(key, k, path) if key is not str else k: decode(inner, v, f"{path}.{k}")
                for k, v in data.items()}
    if origin in (set, frozenset):
        if not isinstance(data, list):
            raise _wrong(path, "a list", data)
        return origin(decode(args[0] if args else Any, x, path) for x in data)
    return _decode_class(ann, data, path)


#: The plain JSON annotations: what each accepts (in a message), and whether a JSON value fits.
_SCALARS = {
    bool: ("true or false", lambda d: isinstance(d, bool)),
    int: ("a whole number", lambda d: isinstance(d, int) and not isinstance(d, bool)),
    float: ("a number", lambda d: isinstance(d, (int, float)) and not isinstance(d, bool)),
    str: ("text", lambda d: isinstance(d, str)),
    type(None): ("null", lambda d: d is None),
}


def _decode_class(ann, data, path: str):
    if ann in _SCALARS:
        expected, fits = _SCALARS[ann]
        if not fits(data):
            raise _wrong(path, expected, data)
        return float(data) if ann is float else data
    if isinstance(ann, type) and issubclass(ann, enum.Enum):
        return _decode_member(ann, data, path)
    if isinstance(ann, type) and issubclass(ann, Params):
        if not isinstance(data, dict):
            raise _wrong(path, "an object of rule options", data)
        try:
            return ann(**data)
        except (TypeError, InputError) as e:
            raise InputError(f"{path}: {e}") from None
    if isinstance(ann, type) and issubclass(ann, tuple) and hasattr(ann, "_fields"):
        hints = typing.get_type_hints(ann)
        if not isinstance(data, list) or len(data) != len(ann._fields):
            raise _wrong(path, f"a list of {len(ann._fields)} ({', '.join(ann._fields)})", data)
        return ann(*(decode(hints.get(n, Any), x, f"{path}.{n}") for n, x in zip(ann._fields, data)))
    if dataclasses.is_dataclass(ann):
        return from_fields(ann, data, path)
    raise TypeError(f"{path}: no JSON form is known for {ann!r}; make it a plain value, an enum, a named tuple "
                    "or a dataclass")


def _decode_member(ann: type[enum.Enum], data, path: str):
    """The member of enum ``ann`` whose value :func:`encode` turned into ``data``; a value that is
    not plain JSON (another enum's member, a named tuple) is decoded by its own type first."""
    kind = type(next(iter(ann)).value)
    try:
        return ann(data if kind in _JSON_PLAIN else decode(kind, data, path))
    except (ValueError, InputError):
        values = [encode(m.value) for m in ann]
        shown = ", ".join(map(repr, values[:8])) + (f", ... ({len(values)} in all)" if len(values) > 8 else "")
        raise _wrong(path, "one of " + shown, data) from None


def from_fields(cls: type, data, path: str):
    """An instance of dataclass ``cls`` from a JSON object of its fields (scratch and derived
    fields and fields with a default may be left out; any other key is refused).  A ValueError of
    the class's own checks (``__post_init__``) becomes an InputError naming ``path``, but at the
    top (``state``), where the caller names the title."""
    if not isinstance(data, dict):
        raise _wrong(path, "an object", data)
    hints = typing.get_type_hints(cls)
    known, kwargs = set(), {}
    for f in dataclasses.fields(cls):
        if is_unsaved(component_of(f)):
            continue
        known.add(f.name)
        where = f.name if path == "state" else f"{path}.{f.name}"
        if f.name in data:
            kwargs[f.name] = decode(hints.get(f.name, Any), data[f.name], where)
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise InputError(f"{where}: missing")
    extra = sorted(k for k in data if k not in known)
    if extra:
        raise InputError(f"{extra[0]}: not a field of the state; the fields are {', '.join(sorted(known))}")
    if path == "state":
        return cls(**kwargs)
    try:
        return cls(**kwargs)
    except ValueError as e:
        raise InputError(f"{path}: {e}") from None


def is_unsaved(component: Component | None) -> bool:
    """True for a scratch or derived field: not saved, compared or shown."""
    return component is not None and component.kind in ("scratch", "derived")


def state_to_dict(state) -> dict:
    """The state's fields as JSON data (scratch and derived fields left out)."""
    return {f.name: encode(getattr(state, f.name)) for f in spec(type(state)).saved}


# --------------------------------------------------------------------------------------------
# Views
# --------------------------------------------------------------------------------------------

class View:
    """What one seat may see of a state: read-only attributes that read through to the state
    (see the module docstring).  ``seat`` is the seat; ``unseen`` the sorted cards it cannot
    see.  A title may subclass it (``Game.View``) to add helpers; the engine adds the fields,
    but not a name the subclass defines itself (which then reads as the subclass says)."""

    __slots__ = ("_state", "_seat")

    def __new__(cls, state, seat: int):
        # ``DaoView(state, seat)`` builds the view class with the fields of ``state``'s class
        if "_fields_of" not in cls.__dict__:
            cls = view_class(type(state), cls)
        return object.__new__(cls)

    def __init__(self, state, seat: int):
        self._state = state
        self._seat = seat

    @property
    def seat(self) -> int:
        """The seat this view belongs to (read-only: a view never shows another seat's hand)."""
        return self._seat

    @property
    def unseen(self) -> list:
        """The cards this seat cannot see, sorted: the multiset the default ``determinize``
        deals from."""
        places = spec(type(self._state)).hidden_places(self._state, self._seat)
        return pooled(places)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seat={self.seat})"


def pooled(places: list[tuple[list, int, int]]) -> list:
    """The cards in ``places`` (``(list, start, count)``), sorted (:func:`sorted_cards`)."""
    return sorted_cards([card for place, start, count in places for card in place[start:start + count]])


def sorted_cards(cards: list) -> list:
    """``cards`` in a fixed order that depends on the cards only (their own order, or their
    ``repr`` where they have none)."""
    try:
        return sorted(cards)
    except TypeError:
        return sorted(cards, key=repr)


@lru_cache(maxsize=None)
def view_class(state_cls: type, base: type) -> type:
    """The view class of ``state_cls`` built on ``base`` (cached per pair)."""
    attrs: dict[str, Any] = {"__slots__": (), "_fields_of": state_cls}
    # a name the title's view class defines (a slot, a property, a helper) is its own: it may give
    # an attribute a meaning of its own or a faster way to read it; View's own names give way
    own = {name for k in base.__mro__ if k not in (View, object) for name in vars(k)}
    for f in spec(state_cls).fields:
        if not f.saved:
            continue
        if f.visible == EVERYONE:
            attrs[f.name] = property(attrgetter(f"_state.{f.name}"))
        elif f.component.kind == "secrets":
            attrs[f.name] = property(_own(f.name))
        elif f.component.kind == "hands":
            attrs[f.name + "_sizes"] = property(_sizes(f.name))
            if f.visible == OWNER:  # the seat's own entry: the name without its plural s (hands -> hand)
                attrs[f.name[:-1] if f.name.endswith("s") and len(f.name) > 1 else f.name] = property(_own(f.name))
        elif f.component.kind == "counters":
            if f.visible == OWNER:
                attrs[f.name] = property(_own(f.name))
        else:
            attrs[f.name + "_size"] = property(_size(f.name))
    attrs = {k: v for k, v in attrs.items() if k in ("__slots__", "_fields_of") or k not in own}
    return type(f"{state_cls.__name__}View", (base,), attrs)


def _own(name: str):
    get = attrgetter(name)
    return lambda self: get(self._state)[self._seat]


def _sizes(name: str):
    get = attrgetter(name)
    return lambda self: [len(h) for h in get(self._state)]


def _size(name: str):
    get = attrgetter(name)
    return lambda self: len(get(self._state))


def view(state, seat: int, base: type = View):
    """A live view of ``state`` for ``seat``."""
    return view_class(type(state), base)(state, seat)


# --------------------------------------------------------------------------------------------
# Re-dealing what a seat cannot see
# --------------------------------------------------------------------------------------------

def shuffled(pool: list, rng) -> list:
    """``pool`` in a uniformly random order: sorted by one ``rng.random()`` key per card (drawn
    in the order of the pool; equal keys keep the pool's order)."""
    n = len(pool)
    keys = list(starmap(rng.random, repeat((), n)))
    return list(map(pool.__getitem__, sorted(range(n), key=keys.__getitem__)))


def deal(places: list[tuple[list, int, int]], cards: list) -> None:
    """Deal ``cards`` in order into ``places`` (``(list, start, count)``), each its count."""
    at = 0
    for place, start, count in places:
        place[start:start + count] = cards[at:at + count]
        at += count


def sampler(seat_view: View):
    """``sample(rng) -> state`` equal to ``determinize(seat_view, rng)``, drawing the same random
    numbers, with the pools of unseen cards sorted once and where they go worked out once: what
    one decision of the search samples many times (the state behind the view must not change in
    between)."""
    state, seat = seat_view._state, seat_view._seat
    state_spec = spec(type(state))
    clone_state = state_spec.clone
    base = clone_state(state)
    deals = [(pooled(places), _addresses(state_spec, base, places))
             for places in state_spec.hidden_groups(base, seat)]

    def sample(rng):
        out = clone_state(base)
        for pool, addresses in deals:
            cards = shuffled(pool, rng)
            at = 0
            for name, k, start, count in addresses:
                place = getattr(out, name) if k is None else getattr(out, name)[k]
                place[start:start + count] = cards[at:at + count]
                at += count
        return out

    return sample


def _addresses(state_spec: StateSpec, state, places: list[tuple[list, int, int]]) -> list[tuple]:
    """Where each of ``places`` (from :meth:`StateSpec.hidden_groups` of ``state``) lies in the
    state, ``(field name, seat or None, start, count)``, so the same places are found in a copy."""
    where = {}
    for name, per_seat, _, _ in state_spec.hidden:
        value = getattr(state, name)
        if per_seat:
            where.update((id(hand), (name, k)) for k, hand in enumerate(value))
        else:
            where[id(value)] = (name, None)
    return [where[id(place)] + (start, count) for place, start, count in places]


def resample_hidden(state, seat: int, rng):
    """A copy of ``state`` with what ``seat`` cannot see dealt again: each kind of card pooled,
    shuffled with ``rng`` (:func:`shuffled`) and dealt back, in the order of their first field."""
    out = clone(state)
    for places in spec(type(state)).hidden_groups(out, seat):
        deal(places, shuffled(pooled(places), rng))
    return out


def determinize(seat_view: View, rng):
    """A full state consistent with ``seat_view``: the public data and the seat's own cards as
    they are, the cards it cannot see dealt again (from their multiset, which the seat can work
    out, never from where they lie)."""
    return resample_hidden(seat_view._state, seat_view._seat, rng)
