"""Tabletop components a game state is made of, and who may see each (docs/own-game.md).

A title's state is a dataclass of plain values and components.  Each component is a field
declared with one of the functions below (named so that a field called ``deck`` or ``hands``
cannot hide them in the class body); the declaration says what the field holds and who may see
it (:data:`EVERYONE`; :data:`OWNER`: a seat sees its own entry and the others' sizes;
:data:`NOBODY`: every seat sees the size only), and that is all the engine needs to derive the
state's copy, equality, pickling, JSON round trip, each seat's view, ``resample_hidden`` and the
default ``determinize`` (:mod:`analyser.engine.derive`)::

    @dataclass(slots=True)
    class CardState:
        params: CardParams
        n: int
        deck: list[Card] = face_down()          # nobody sees the cards, the size is public
        hands: list[list[Card]] = seat_zones()  # each seat sees its own hand, the others' sizes
        pile: list[Card] = face_up()            # everyone sees the cards
        scores: list[int] = seat_counters()     # one number per seat
        current: int = 0                   # a plain value: public

Zones are plain lists (a deck's top card is its last: ``deck.pop()`` draws) of immutable cards.
Values held in fields are plain values, enums (an interned value type), tuples and named tuples,
frozen dataclasses, or dataclasses of such values and of lists, dicts and sets of them: a title
writes no ``copy``, ``to_json``/``from_json``, ``__eq__`` or pickling methods.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

#: Who may see a component: every seat, only the seat that owns the entry, or no seat.
EVERYONE = "everyone"
OWNER = "owner"
NOBODY = "nobody"
VISIBILITIES = (EVERYONE, OWNER, NOBODY)


@dataclass(frozen=True)
class Component:
    """A state field's declaration.

    ``kind``: what the field holds - ``zone`` (an ordered list of cards), ``hands`` (one zone per
    seat), ``secrets`` (one value per seat that only its seat sees), ``dice`` (the faces
    showing), ``counters`` (one number per seat: scores, coins, a track), ``grid`` (rows of
    cells), ``derived`` (kept from the saved fields, not saved) or ``scratch`` (not part of the
    state).  ``visible``: one of
    :data:`VISIBILITIES`.  ``cards``: the kind of card a zone holds ("" = the game's cards); a
    re-deal keeps each kind in the zones of that kind."""

    kind: str
    visible: str = EVERYONE
    cards: str = ""

    @property
    def per_seat(self) -> bool:
        """True for a field holding one entry per seat (hands, counters, secrets)."""
        return self.kind in ("hands", "counters", "secrets")


def _declare(component: Component, factory=list, compare: bool = True):
    if component.visible not in VISIBILITIES:
        raise ValueError(f"visible={component.visible!r}; choose one of {', '.join(VISIBILITIES)}")
    return dataclasses.field(default_factory=factory, compare=compare, metadata={"component": component})


def zone(visible: str = EVERYONE, cards: str = ""):
    """An ordered zone of cards (a list; the top card last), seen by ``visible``; ``cards``: the
    kind of card it holds when the game has more than one ("" = the game's cards)."""
    return _declare(Component("zone", visible, cards))


def face_down(cards: str = ""):
    """A face-down zone of cards (a deck): no seat sees the cards, every seat sees how many.
    ``cards``: the kind of card it holds when the game has more than one."""
    return zone(NOBODY, cards)


def face_up():
    """A face-up zone of cards everyone sees (a display, a discard pile, a pile on the table)."""
    return zone(EVERYONE)


def seat_zones(visible: str = OWNER, cards: str = ""):
    """One zone of cards per seat (``hands[seat]``); by default each seat sees only its own.
    ``cards``: the kind of card they hold when the game has more than one."""
    return _declare(Component("hands", visible, cards))


def seat_secrets(factory=list):
    """One value per seat (``secrets[seat]``) that only its seat sees: a choice made face down
    and not yet revealed, a private flag; ``factory()`` gives the default (one entry per seat).
    A seat's view reads its own entry; the values are not cards, so the derived
    ``resample_hidden`` and ``determinize`` leave them as they are: a title that declares secrets
    writes those two hooks (only it knows what else a secret could be)."""
    return _declare(Component("secrets", OWNER), factory=factory)


def dice_faces():
    """The faces showing on a set of dice (a list of numbers), seen by everyone.  Roll with the
    rng the rules are given: ``state.dice[:] = [rng.randint(1, 6) for _ in state.dice]``."""
    return _declare(Component("dice", EVERYONE))


def seat_counters(visible: str = EVERYONE):
    """One number per seat (``scores[seat]``): scores, coins, a score track; seen by everyone
    by default.  ``OWNER``: each seat sees only its own number; ``NOBODY``: no seat sees them (a
    sealed bid).  Hidden numbers are not cards: ``resample_hidden`` keeps them as they are, and a
    title with ``NOBODY`` counters writes ``determinize`` (the engine cannot guess them)."""
    return _declare(Component("counters", visible))


def grid_cells():
    """A grid board: a list of rows, each a list of cells (immutable values, None for empty);
    seen by everyone."""
    return _declare(Component("grid", EVERYONE))



def derived(factory=list):
    """A value the rules keep up to date from the saved fields (the domains of a map drawn on a
    grid): copied with the state, but left out of equality, the JSON round trip and views.  The
    dataclass's ``__post_init__`` builds it from the saved fields (``factory()`` is only its
    placeholder), so a value read back from JSON has it again."""
    return _declare(Component("derived", NOBODY), factory=factory, compare=False)


def scratch(factory=dict):
    """A cache the rules keep for speed, not part of the state: left out of equality, the JSON
    round trip and views; a copy starts it afresh from ``factory()``."""
    return _declare(Component("scratch", NOBODY), factory=factory, compare=False)


def component_of(field: dataclasses.Field) -> Component | None:
    """The declaration of a state field, or None for a plain value (public)."""
    return field.metadata.get("component")
