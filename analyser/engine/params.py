"""Rule parameters: the :class:`Params` dataclass every title's rule options subclass, declared
with :func:`option` (default, help text, choices, bounds), and the coercion of ``--rule
key=value`` text (:func:`coerce`, :func:`parse_key_values`).  Re-exported by
:mod:`analyser.engine.core`, the title contract."""

from __future__ import annotations

import dataclasses
import math
import typing
from dataclasses import dataclass, field
from typing import Any, Sequence

from analyser.engine.errors import InputError, did_you_mean


#: Seconds one game may take by default before its strategy is reported as hung
#: (``--game-timeout`` of simulate, the experiments and play).
GAME_TIMEOUT = 60.0

#: The largest ``--game-timeout`` accepted, in seconds (about 11.6 days; the operating system's
#: timers take no more than this reliably).
MAX_GAME_TIMEOUT = 1_000_000.0

#: What ``--game-timeout`` accepts, said in its error line.
GAME_TIMEOUT_RANGE = f"give seconds from 0 (no limit) to {MAX_GAME_TIMEOUT:,.0f}"

#: Largest magnitude any numeric rule option may take (keeps results in 64-bit columns).
MAX_NUMBER = 10**9

_TRUE = {"on", "true", "yes", "1"}
_FALSE = {"off", "false", "no", "0"}


class DeclarationFault(InputError):
    """A title's declaration refuses itself (a rule option's default outside its own range):
    the title is at fault, not the command line; the caller names the title."""


def option(default: Any, doc: str, *, choices: Sequence[Any] | None = None,
           low: float | None = None, high: float | None = None) -> Any:
    """Declare one rule option of a :class:`Params` dataclass.

    ``doc`` is shown by ``analyser list``; it should name the ruling or the section of the title's rules page.
    ``choices`` restricts a string option; ``low``/``high`` bound a number (inclusive).
    """
    return field(default=default, metadata={"doc": doc, "choices": tuple(choices) if choices else None,
                                            "low": low, "high": high})


@dataclass(frozen=True)
class Params:
    """Base class of every title's rule parameters (a frozen dataclass).

    Subclasses declare fields with :func:`option`.  Values are validated on construction; an
    invalid value raises :class:`InputError` naming the option, the value and what is accepted.
    """

    def __post_init__(self) -> None:
        hints = typing.get_type_hints(type(self))
        for f in dataclasses.fields(self):
            check_value(f.name, getattr(self, f.name), hints.get(f.name, str), f.metadata)
        self.validate()

    @classmethod
    def declaration_fault(cls) -> str | None:
        """The first option whose default its own declaration refuses (its type, choices or
        bounds), in one line naming the option, or None: a fault of the title, not of a ``--rule``."""
        hints = typing.get_type_hints(cls)
        for f in dataclasses.fields(cls):
            try:
                check_value(f.name, f.default, hints.get(f.name, str), f.metadata)
            except InputError as e:
                return (f"rule option {f.name}: its declared default {f.default!r} is refused by its own "
                        f"declaration ({str(e).partition('; ')[2] or e})")
        return None

    def validate(self) -> None:
        """Cross-field checks; subclasses override and raise :class:`InputError`."""

    def check_players(self, n_players: int) -> None:
        """Cross-field checks that also see the player count (say, hands too large for the deck
        at that count); subclasses override and raise :class:`InputError`.  Runs before any game
        is played (``Game.check_players``)."""

    @classmethod
    def options(cls) -> list[dict[str, Any]]:
        """One dict per option: name, type name, default, doc, choices, low, high."""
        hints = typing.get_type_hints(cls)
        return [{"name": f.name, "type": hints.get(f.name, str).__name__, "default": f.default,
                 "doc": f.metadata.get("doc", ""), "choices": f.metadata.get("choices"),
                 "low": f.metadata.get("low"), "high": f.metadata.get("high")}
                for f in dataclasses.fields(cls)]

    @classmethod
    def from_overrides(cls, overrides: dict[str, str] | None = None) -> "Params":
        """Build parameters from ``{"name": "text value"}`` overrides (``--rule name=value``).

        Raises :class:`InputError` for an unknown name or a value that does not parse, and
        :class:`DeclarationFault` (an InputError) when an option's own default breaks its
        declaration.
        """
        overrides = overrides or {}
        fault = cls.declaration_fault()
        if fault is not None:
            raise DeclarationFault(fault)
        hints = typing.get_type_hints(cls)
        names = [f.name for f in dataclasses.fields(cls)]
        kwargs: dict[str, Any] = {}
        for key, text in overrides.items():
            if key not in names:
                raise InputError(f"unknown rule {key!r}{did_you_mean(key, names)}; this title accepts: "
                                 f"{', '.join(names)}")
            kwargs[key] = coerce(key, text, hints.get(key, str), what="rule")
        return cls(**kwargs)

    def as_dict(self) -> dict[str, Any]:
        """The option values as a plain dict (JSON-friendly)."""
        return dataclasses.asdict(self)


def check_value(name: str, value: Any, kind: type, meta) -> None:
    """Raise :class:`InputError` when rule option ``name`` (type ``kind``; ``meta``, its
    declaration: choices, low, high) refuses ``value``."""
    if kind is bool and not isinstance(value, bool):
        raise InputError(f"rule {name}={value!r} is not accepted; use on or off")
    if kind in (int, float) and (isinstance(value, bool) or not isinstance(value, (int, float))):
        raise InputError(f"rule {name}={value!r} is not accepted; it takes a number")
    if kind in (int, float) and not (-MAX_NUMBER <= value <= MAX_NUMBER):  # also rejects nan
        raise InputError(f"rule {name}={value!r} is not accepted; numbers must lie within +/-{MAX_NUMBER:,}")
    if meta.get("choices") and value not in meta["choices"]:
        raise InputError(f"rule {name}={value!r} is not accepted; choose one of: "
                         + ", ".join(map(str, meta["choices"])))
    if meta.get("low") is not None and value < meta["low"]:
        raise InputError(f"rule {name}={value!r} is too small; the least accepted is {meta['low']}")
    if meta.get("high") is not None and value > meta["high"]:
        raise InputError(f"rule {name}={value!r} is too large; the most accepted is {meta['high']}")


def coerce(name: str, text: Any, kind: type, *, what: str) -> Any:
    """Convert the text ``text`` to ``kind`` (bool, int, float or str) or raise :class:`InputError`."""
    if not isinstance(text, str):
        return text
    t = text.strip()
    if kind is bool:
        if t.lower() in _TRUE:
            return True
        if t.lower() in _FALSE:
            return False
        raise InputError(f"{what} {name}={text!r} is not accepted; use on or off (also yes/no, true/false, 1/0)")
    if kind is int:
        try:
            return int(t)
        except ValueError:
            raise InputError(f"{what} {name}={text!r} is not accepted; it takes a whole number") from None
    if kind is float:
        try:
            value = float(t)
        except ValueError:
            raise InputError(f"{what} {name}={text!r} is not accepted; it takes a number") from None
        if not math.isfinite(value):
            raise InputError(f"{what} {name}={text!r} is not accepted; it takes a finite number")
        return value
    return t


def parse_key_values(pairs: Sequence[str], *, what: str) -> dict[str, str]:
    """Parse ``["a=1", "b=x"]`` into ``{"a": "1", "b": "x"}``; a malformed pair or a key given
    twice raises InputError."""
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise InputError(f"malformed {what} {pair!r}; write it as key=value")
        if key.strip() in out:
            raise InputError(f"{what} {key.strip()!r} is given twice ({out[key.strip()]!r} and "
                             f"{value.strip()!r}); give it once")
        out[key.strip()] = value.strip()
    return out
