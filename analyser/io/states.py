"""Saved states from users (``analyser play --state FILE``): read, validate, then build.

A saved state is untrusted input.  :func:`load_state` takes it through four gates, in order, so
nothing is allocated or played before it is known to be sound (docs/commands/play.md):

1. :func:`analyser.io.files.read_text` / :func:`~analyser.io.files.parse_json`: a regular file of at
   most :data:`~analyser.io.files.STATE_MAX_BYTES`, bounded JSON;
2. the player count against the title's player range before any per-seat list is built
   (``"players": 1e30`` is refused here, not allocated), and the rule options (``params``) in
   JSON terms, for every title alike (:func:`validate_params`);
3. the title's **state schema** (``Game.state_schema()``, a pydantic model built on
   :class:`StateModel`): strict types, every number within its range, every list within its
   length, per-seat lists one per player;
4. ``state_from_dict`` then ``check_invariants`` and a legal move for the seat to move.

Every failure is an :class:`~analyser.engine.core.InputError`: one line naming the file, the field and
what it takes.
"""

from __future__ import annotations

import dataclasses
import math
import re
import typing
from pathlib import Path
from typing import Any

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, Strict, ValidationError

from analyser.engine.core import InputError
from analyser.io.files import STATE_MAX_BYTES, parse_json, read_text
from analyser.io.records import field_path


class StateModel(BaseModel):
    """Base of every title's state schema: strict types (no string-to-number or 0/1-to-bool
    coercion) and no unknown keys.  Titles declare fields with ``Annotated[int, Field(ge=.., le=..)]``
    and lists with ``Field(max_length=..)``, and check cross-field rules (one list per seat) in a
    ``model_validator(mode="after")`` that raises ``ValueError`` with a short reason.

    A field ``state_from_dict`` derives when it is left out is declared ``name: T = None`` (not
    ``T | None``): the default is not validated, so leaving it out is fine, while an explicit
    ``null`` is refused like any other value of the wrong type."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)


# Building blocks for state schemas (all strict: a whole number is a JSON integer, not a float,
# a string or a boolean).

def whole(low: int, high: int):
    """A whole number from ``low`` to ``high`` (inclusive)."""
    return Annotated[int, Strict(), Field(ge=low, le=high)]


def items(item, max_length: int, min_length: int = 0):
    """A JSON array of ``item`` with ``min_length`` to ``max_length`` entries."""
    return Annotated[list[item], Field(min_length=min_length, max_length=max_length)]


def fixed(*parts):
    """A JSON array of exactly these parts in order, e.g. ``fixed(whole(0, 5), whole(0, 5))`` for a
    ``[row, col]`` square (read as a tuple)."""
    return Annotated[tuple[parts], Strict(False)]  # the array itself may be a list; its parts stay strict


def text(max_length: int = 100):
    """A JSON string of at most ``max_length`` characters."""
    return Annotated[str, Field(max_length=max_length)]


_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,39}$")


def schema_error(e: ValidationError) -> str:
    """The first error of a pydantic validation, as ``field[0].sub: reason`` (no input quoted)."""
    err = e.errors(include_input=False, include_url=False)[0]
    msg = err["msg"]
    if err["type"] == "extra_forbidden":
        msg = "is not a field of this state"
    elif err["type"] == "missing":
        msg = "is missing"
    elif msg.startswith("Value error, "):
        msg = msg[len("Value error, "):]
    elif msg.startswith("Input should be"):
        msg = "should be" + msg[len("Input should be"):]
    loc = [x for x in err["loc"] if not (isinstance(x, str) and x.startswith("function-"))]
    masked = (p if isinstance(p, int) or _NAME.match(str(p)) else "<key>" for p in loc)  # never echo an odd key
    where = field_path(tuple(masked)) or "the state"
    return f"{where}: {msg}"


def validate_params(game, params: Any) -> None:
    """The ``params`` of a saved state against the title's rule options, as JSON: an object whose
    keys are rule options, a flag ``true`` or ``false``, a whole number a JSON integer, a number
    finite, a text a string; each within the option's range or choices.  Raises InputError
    (``params.NAME: ...``, naming what the state file must hold; no value from the file quoted)."""
    if not isinstance(params, dict):
        raise InputError("params: should be a JSON object of rule options (name: value)")
    hints = typing.get_type_hints(game.Params)
    fields = {f.name: f for f in dataclasses.fields(game.Params)}
    for key, value in params.items():
        if key not in fields:
            shown = key if isinstance(key, str) and _NAME.match(key) else "<key>"
            raise InputError(f"params.{shown}: is not a rule option of {game.id} (it has: {', '.join(fields)})")
        kind, meta, where = hints.get(key, str), fields[key].metadata, f"params.{key}"
        low, high, choices = meta.get("low"), meta.get("high"), meta.get("choices")
        span = (f" from {low:g} to {high:g}" if low is not None and high is not None else
                f" >= {low:g}" if low is not None else f" <= {high:g}" if high is not None else "")
        if kind is bool:
            if not isinstance(value, bool):
                raise InputError(f"{where}: should be JSON true or false (a saved state holds the flag itself; "
                                 f"on/off is how --rule {key}=on|off writes it)")
        elif kind in (int, float):
            if isinstance(value, bool) or not isinstance(value, (int, kind)) or (
                    isinstance(value, float) and not math.isfinite(value)) or (
                    low is not None and value < low) or (high is not None and value > high):
                what = f"a whole number{span} (a JSON integer)" if kind is int else f"a number{span}"
                raise InputError(f"{where}: should be {what}")
        elif not isinstance(value, str) or (choices and value not in choices):
            raise InputError(f"{where}: should be " + (f"one of the JSON strings {', '.join(map(str, choices))}"
                                                       if choices else "a JSON string"))


#: The keys a saved state may hold its player count under (the state field ``n`` or ``players``),
#: checked against the title's range before any per-seat list is built.
PLAYER_COUNT_KEYS = ("players", "n")


def validate_state_dict(game, data: dict) -> None:
    """Gates 2 and 3 on a state dict: the player count and the rule options, then the title's
    schema.  Raises InputError (without a file name; :func:`load_state` adds it)."""
    for key in PLAYER_COUNT_KEYS:
        if key not in data:
            continue
        n = data[key]
        if isinstance(n, bool) or not isinstance(n, int):
            raise InputError(f"{key}: should be a whole number from {game.min_players} to {game.max_players}")
        if not game.min_players <= n <= game.max_players:
            raise InputError(f"{key}: {n} is not accepted for {game.id}; choose {game.min_players} to "
                             f"{game.max_players}")
    if "params" in data:
        validate_params(game, data["params"])
    schema = game.state_schema()
    if schema is not None:
        try:
            schema.model_validate(data)
        except ValidationError as e:
            raise InputError(schema_error(e)) from None


def load_state(game, path: str | Path):
    """Read the saved state in ``path`` for ``game`` through the four gates above and return it.

    ``path`` holds a JSON object: a state (``state_to_dict``), or one line of a ``--json`` trace
    (its ``state``) or its last line (``final``).  Raises InputError.
    """
    where = f"--state {str(path)!r}"
    text = read_text(path, "--state", STATE_MAX_BYTES)
    lines = [x for x in text.splitlines() if x.strip()]
    if len(lines) > 1 and all(x.lstrip().startswith("{") and x.rstrip().endswith("}") for x in lines[:2]):
        raise InputError(f"{where} holds {len(lines)} JSON lines (a whole trace); save the one line you want "
                         "to continue from in its own file")
    data = parse_json(text, where)
    if isinstance(data, dict) and isinstance(data.get("state"), dict):
        data = data["state"]
    elif isinstance(data, dict) and isinstance(data.get("final"), dict):
        data = data["final"]
    if not isinstance(data, dict):
        raise InputError(f"{where} holds a JSON {type(data).__name__}, not a {game.id} state object")
    if "game" in data and data["game"] != game.id:
        named = isinstance(data["game"], str) and _NAME.match(data["game"].replace("-", "_"))
        other = data["game"] if named else "another title's"
        raise InputError(f"{where} holds a {other} state, not {game.id}")
    try:
        validate_state_dict(game, data)
    except InputError as e:
        raise InputError(f"{where}: {e}") from None
    try:
        state = game.state_from_dict(data)
        game.check_invariants(state)
        terminal = game.is_terminal(state)
        seat = game.current_player(state) if not terminal else 0
        n = len(game.scores(state))
        if not 0 <= seat < n:
            raise ValueError(f"the seat to move, {seat}, is not one of the {n} seats")
        if not terminal:
            if not game.legal_actions(state):
                raise ValueError("nobody can move")
            game.view(state, seat)
    except InputError as e:
        raise InputError(f"{where}: {e}") from None
    except AssertionError as e:
        raise InputError(f"{where} is not a possible {game.id} state: {str(e) or 'a rules invariant fails'}") from None
    except Exception as e:  # noqa: BLE001 - whatever the rules raise on a bad state is one line
        short = str(e).replace("\n", " ")
        short = short if len(short) <= 200 else short[:200] + "..."
        raise InputError(f"{where} is not a valid {game.id} state: {type(e).__name__}: {short}") from None
    return state


def seat_lists(model: Any, n: int, *names: str) -> None:
    """Raise ValueError unless each named list field of ``model`` holds one entry per seat (``n``).
    A helper for the ``model_validator`` of a title's schema."""
    for name in names:
        value = getattr(model, name, None)
        if value is not None and len(value) != n:
            raise ValueError(f"{name} holds {len(value)} entries; it needs one per player ({n})")
