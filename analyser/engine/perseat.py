"""Per-seat rule values: a rule option that gives each seat its own number, such as a start
bonus (``seat_bonus=0/0/0/2``), written so that it lives with the value lists of ``analyser
sweep`` (``--rule seat_bonus=0/0,0/2``: ``/`` between seats, ``,`` between cells).  Kept apart
from :mod:`analyser.engine.core` and light (no pandas), since titles' rules import it.
"""

from __future__ import annotations

from functools import lru_cache

from analyser.engine.core import MAX_NUMBER, InputError

#: Separates the per-seat values of a rule option such as a start bonus (``0/0/1/2``); not a
#: comma, which separates the values of a sweep (``--rule seat_bonus=0/0,0/2``).
SEAT_SEPARATOR = "/"


@lru_cache(maxsize=256)
def seat_values(text: str, n_players: int | None = None, *, name: str, low: int = -MAX_NUMBER,
                high: int = MAX_NUMBER) -> tuple[int, ...]:
    """A per-seat rule value: one whole number for every seat (``"2"``) or one per seat, seat 0
    first, separated by ``/`` (``"0/0/1/2"``).  With ``n_players`` the result has one value per
    seat (a single number repeated); without it, the values as written.  Raises
    :class:`InputError` naming the option ``name`` for a value that is not whole numbers within
    ``low``..``high``, or whose count is neither 1 nor ``n_players``."""
    parts = [p.strip() for p in str(text).split(SEAT_SEPARATOR)]
    try:
        values = tuple(int(p) for p in parts)
    except ValueError:
        raise InputError(f"rule {name}={text!r} is not accepted; give one whole number for all seats (such as 2) "
                         f"or one per seat, seat 0 first, separated by {SEAT_SEPARATOR} (such as 0/0/1/2)") from None
    for v in values:
        if not low <= v <= high:
            raise InputError(f"rule {name}={text!r} is not accepted; each value must lie within {low} to {high}")
    if n_players is None:
        return values
    if len(values) == 1:
        return values * n_players
    if len(values) != n_players:
        raise InputError(f"rule {name}={text!r} gives {len(values)} values for {n_players} seats; give one per seat "
                         f"or a single value for all")
    return values
