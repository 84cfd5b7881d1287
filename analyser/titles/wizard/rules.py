"""Wizard (神機妙算): trick taking with exact bids.  Rules: rules.md (``analyser rules wizard``).

``WizardParams`` (every rule option), ``WizardState`` (the state, declared with the engine's
components: its copy, equality, pickling, JSON round trip and each seat's view are derived,
:mod:`analyser.engine.derive`), ``WizardView`` (the helpers of what one seat may see) and
``Wizard`` (the stateless forward model).

The rules and the ``seat_bonus`` variant are on the rules page (sections Cards, Rounds and the
deal, Trump, Bidding, Playing a trick, Score, Seat bonus).  Wizards and Jesters have no suit
(:class:`Card` gives them ``suit=None``): every rule reads the rank first.  Every score is a
multiple of 10, so the close-game margin (``Wizard.scoring.close_margin``) is 10 points.

The rulings where the rules write-up is silent are the rules page's **Ruling** entries, each
naming the rule option that changes it.

Information: a seat's :class:`WizardView` holds its own hand (``groups``/``hand``), every hand's
size, the undealt cards' count, the log of finished rounds and the public part of the state
(:class:`WizardPublic`: the turned card, trump, bids, tricks, scores, the cards of the round's
finished tricks and of the current trick, who leads and who is winning it) - never another hand
or the undealt cards (declared ``seat_zones()`` and ``face_down()`` in :class:`WizardState`).

Actions: :class:`Bid` ``(n)`` and :class:`ChooseTrump` ``(suit)`` are named tuples; :class:`Play`
``(card)`` is an enum (one member per card, valued by the :class:`Card` member).  Their JSON (derived):
``{"type": "Bid", "n": 2}``, ``"R7"`` (a play: the card's code), ``{"type": "ChooseTrump",
"suit": 1}``.  ``legal_actions`` order: bids
ascending; plays in hand order (Jesters, then blue, green, red, yellow by ascending rank, then
Wizards), each distinct card once; trump choices blue, green, red, yellow.

Speed (a 4-player game is 540 decisions; see docs/speed.md for figures): cards and plays are enum members,
so hashing and equality are identity checks; each hand is kept as eight lists of play actions
(:func:`hand_groups`), so ``legal_actions`` is a concatenation of lists, not a scan; the led suit
and the trick's current winner are updated incrementally as each card is played; views are live
(one per seat and game, holding the shared public part); the deal is a Fisher-Yates pass that
stops once the dealt cards and the turned card are drawn.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass, field
from enum import Enum
from functools import lru_cache
from operator import attrgetter
from random import Random as _Random
from typing import Literal, NamedTuple, Optional

from analyser.engine import components
from analyser.engine.components import face_up, scratch, seat_counters
from analyser.engine.core import COMPONENTS, ExtraTable, Game, InputError, Metric, Params, Scoring, encode_trace, option
from analyser.engine.derive import View, shuffled
from analyser.engine.perseat import seat_values

SUITS = ("blue", "green", "red", "yellow")
SUIT_LETTERS = "BGRY"
JESTER = 0   #: rank of a Jester (lowest)
WIZARD = 14  #: rank of a Wizard (highest)

#: ``WizardState.led`` before any card other than a Jester was played in the trick.
LED_NONE = -1
#: ``WizardState.led`` when a Wizard opened the trick: no led suit, anything may be played.
#: (Both are negative, so ``led >= 0`` means "a suit is led".)
LED_FREE = -2

BID, TRUMP, PLAY, OVER = "bid", "trump", "play", "over"


#: The cards' codes in hand order: the Jester ``N``, blue ``B1``-``B13``, green, red, yellow, the Wizard ``Z``.
CODES = ("N",) + tuple(f"{letter}{rank}" for letter in SUIT_LETTERS for rank in range(1, 14)) + ("Z",)


class Card(Enum):
    """A card: ``rank`` 1-13 with ``suit`` 0-3 (blue, green, red, yellow); a Wizard is rank 14 and a
    Jester rank 0, both with ``suit=None`` (they have no suit).

    One member per distinct card, named and valued by its ``code`` (``Card.R7``, ``Card.Z``,
    ``Card.N``; ``Card("R7")``); :func:`card_of` finds one by rank and suit.  A member is its own
    only copy (also after pickling), so equality and hashing are identity, which keeps hand
    bookkeeping cheap; its JSON is its code.  ``index`` is the position in hand order (Jester 0,
    blue 1..13 = 1-13, green 14-26, red 27-39, yellow 40-52, Wizard 53).  Cards do not order; sort
    them by ``index``.
    """

    _ignore_ = ("_code",)
    for _code in CODES:
        vars()[_code] = _code

    #: Hashed by identity (members are singletons): Enum's own __hash__ is a Python-level call.
    __hash__ = object.__hash__

    def __init__(self, code: str):
        self.code = code
        self.index = CODES.index(code)
        if code in ("N", "Z"):
            self.rank, self.suit = (JESTER if code == "N" else WIZARD), None
        else:
            self.rank, self.suit = int(code[1:]), SUIT_LETTERS.index(code[0])

    def __repr__(self) -> str:
        return f"Card({self.code})"

    def __str__(self) -> str:
        if self.rank == WIZARD:
            return "Wizard"
        if self.rank == JESTER:
            return "Jester"
        return f"{SUITS[self.suit]} {self.rank}"


def card_of(rank: int, suit: int | None = None) -> Card:
    """The card of ``rank`` (1-13 with ``suit`` 0-3; :data:`WIZARD` or :data:`JESTER` without a
    suit).  Raises ValueError for any other pair."""
    if rank in (JESTER, WIZARD) and suit is None:
        return Card.N if rank == JESTER else Card.Z
    if suit in (0, 1, 2, 3) and rank in range(1, 14):
        return Card(f"{SUIT_LETTERS[suit]}{rank}")
    raise ValueError(f"no Wizard card has rank {rank!r} and suit {suit!r}")


WIZARD_CARD = Card.Z
JESTER_CARD = Card.N
#: The distinct card values in hand order: Jester, blue 1..13, green, red, yellow, Wizard.
CARD_VALUES: tuple[Card, ...] = tuple(Card)
#: The full deck: 4 Jesters, 52 suited cards, 4 Wizards (unshuffled, in hand order).
FULL_DECK: tuple[Card, ...] = ((JESTER_CARD,) * 4 + CARD_VALUES[1:-1] + (WIZARD_CARD,) * 4)
#: Sort key of hand order (``card.index``).
HAND_ORDER = attrgetter("index")


def slot_of(card: Card) -> int:
    """Index of the card's group in a hand: 0 Jesters, 1-4 the suits, 5 Wizards (the first copy
    of a Jester or Wizard; further copies go to groups 6 and 7, see :func:`hand_groups`)."""
    r = card.rank
    return 0 if r == JESTER else 5 if r == WIZARD else card.suit + 1


def card_from_code(code: str) -> Card:
    """``"Z"``, ``"N"``, ``"R7"`` -> the card.  Raises InputError on anything else."""
    c = Card.__members__.get(str(code).strip().upper())
    if c is None:
        raise InputError(f"unknown Wizard card {code!r}; write Z (Wizard), N (Jester) or a suit letter "
                         "B, G, R, Y with a rank 1-13, e.g. R7")
    return c


class Bid(NamedTuple):
    """Announce ``n`` tricks for this round."""

    n: int

    def __str__(self) -> str:
        return f"bid {self.n}"


class Play(Enum):
    """Play ``card`` to the current trick.

    One member per distinct card, named like it and valued by it (``Play.R7``; ``Play(card)``),
    so play actions hash and compare by identity, which keeps hand bookkeeping and the strategies'
    lookups cheap; its JSON is the card's code (``"R7"``).  ``repr``: ``Play(R7)``; ``str``:
    ``play red 7``.
    """

    _ignore_ = ("_card",)
    for _card in Card:
        vars()[_card.name] = _card

    __hash__ = object.__hash__

    def __init__(self, card: Card):
        self.card = card

    def __repr__(self) -> str:
        return f"Play({self.card.code})"

    def __str__(self) -> str:
        return f"play {self.card}"


class ChooseTrump(NamedTuple):
    """The dealer names ``suit`` (0-3) as trump (``wizard_trump=dealer_chooses``, Wizard turned)."""

    suit: int

    def __str__(self) -> str:
        return f"choose trump {SUITS[self.suit]}"


#: Interned actions: ``PLAYS[card]``, ``BIDS[r]`` = bids 0..r, ``CHOOSE_TRUMP`` = the four suits.
PLAYS: dict[Card, Play] = {c: Play(c) for c in CARD_VALUES}
BIDS: tuple[tuple[Bid, ...], ...] = tuple(tuple(Bid(i) for i in range(r + 1)) for r in range(61))
CHOOSE_TRUMP: tuple[ChooseTrump, ...] = tuple(ChooseTrump(s) for s in range(4))
#: Per position of :data:`FULL_DECK` (the deal works on positions 0-59; sorted positions are hand
#: order): its play action and its group in a hand (0-5, see hand_groups).
_DECK_PLAY: tuple[Play, ...] = tuple(PLAYS[c] for c in FULL_DECK)
_DECK_SLOT: tuple[int, ...] = tuple(slot_of(c) for c in FULL_DECK)
#: Per deck position: the bit of its suit in a void mask (0 for Jesters and Wizards, which follow anything).
_DECK_SUIT_BIT: tuple[int, ...] = tuple(0 if c.suit is None else 1 << c.suit for c in FULL_DECK)
#: A deck position holding each card value (the first, for Jesters and Wizards).
_POSITION: dict[Card, int] = {}
for _i, _c in enumerate(FULL_DECK):
    _POSITION.setdefault(_c, _i)
del _i, _c


def hand_groups(hand) -> list[list[Play]]:
    """A hand as eight lists of play actions: 0 a Jester (at most one), 1-4 the blue, green, red
    and yellow cards in ascending rank, 5 a Wizard (at most one), 6 and 7 the further Jesters and
    Wizards.  Groups 0-5 hold each distinct playable card once, in hand order, so
    ``legal_actions`` is a concatenation of groups instead of a scan of the hand.  (Plain lists:
    the interpreter's fast paths for indexing apply to ``list`` itself, not to a subclass.)"""
    groups: list[list[Play]] = [[], [], [], [], [], [], [], []]
    for c in sorted(hand, key=HAND_ORDER):
        k = slot_of(c)
        if k in (0, 5) and groups[k]:
            k += 6 if k == 0 else 2
        groups[k].append(PLAYS[c])
    return groups


def position_groups(h: list[int]) -> list[list[Play]]:
    """:func:`hand_groups` of a hand given as ascending positions in :data:`FULL_DECK` (Jesters
    0-3, blue 4-16, green 17-29, red 30-42, yellow 43-55, Wizards 56-59): how the deal and the
    determinizer build hands."""
    b1, b5 = bisect_left(h, 4), bisect_left(h, 56)
    g = [[], [], [], [], [], [], [], []]
    for i in h[b1:b5]:
        g[_DECK_SLOT[i]].append(_DECK_PLAY[i])
    if b1:  # one Jester playable, the others in group 6
        g[0].append(_DECK_PLAY[0])
        g[6] = [_DECK_PLAY[0]] * (b1 - 1)
    if b5 < len(h):  # the same for Wizards (group 5 and 7)
        g[5].append(_DECK_PLAY[59])
        g[7] = [_DECK_PLAY[59]] * (len(h) - b5 - 1)
    return g


def groups_hand(groups) -> list[Card]:
    """The cards of a hand held as :func:`hand_groups`, in hand order."""
    return [a.card for k in _HAND_ORDER_GROUPS for a in groups[k]]


_HAND_ORDER_GROUPS = (0, 6, 1, 2, 3, 4, 5, 7)


@dataclass(frozen=True)
class WizardParams(Params):
    """Rule options of Wizard (rules.md).  Defaults are the rules write-up's."""

    wizard_trump: str = option(
        "first_card", "a turned Wizard: the first suited card of the first trick sets trump "
        "(first_card, seed) or the dealer picks trump after seeing their hand (dealer_chooses, publisher)",
        choices=("first_card", "dealer_chooses"))
    round_starter: str = option(
        "last_trick_winner", "who starts (bids first, leads) a round: the winner of the previous round's "
        "last trick (last_trick_winner, the write-up) or the seat after a rotating dealer (rotate, publisher); "
        "seat 0 starts round 1 either way", choices=("last_trick_winner", "rotate"))
    follow_suit: str = option(
        "seed", "holding the led suit, you may instead play a trump, Wizard or Jester (seed: the write-up's rule) or only a "
        "Wizard or Jester (official)", choices=("seed", "official"))
    hook: bool = option(False, "on: the last bidder may not bid the number that makes the bids total "
                               "the round's tricks (off: any bid)")
    seat_bonus: str = option(
        "0", "variant: points each seat starts with, one number for all or one per seat separated by / "
        "(0/0/0/10), seat 0 first, -1000 to 1000 (rules page: Seat bonus)")

    def validate(self) -> None:
        seat_values(self.seat_bonus, name="seat_bonus", low=-1000, high=1000)

    def bonus(self, n_players: int) -> tuple[int, ...]:
        """Each seat's start score (``seat_bonus``); InputError when it does not fit ``n_players``."""
        return seat_values(self.seat_bonus, n_players, name="seat_bonus", low=-1000, high=1000)


#: Component ids (:meth:`Wizard.components`): Wizards, Jesters and trumps dealt in a round, by count.
WIZARD_IDS = tuple(f"{k} Wizard{'' if k == 1 else 's'}" for k in range(5))
JESTER_IDS = tuple(f"{k} Jester{'' if k == 1 else 's'}" for k in range(5))
TRUMP_IDS = tuple(f"{k} trump{'' if k == 1 else 's'}" for k in range(14))

#: Fields of :class:`WizardPublic`: what every seat may know.
PUBLIC_FIELDS = ("params", "n", "n_rounds", "round", "phase", "dealer", "starter", "current", "trump_card",
                 "trump", "trump_pending", "bids", "n_bids", "tricks", "scores", "played", "leaders", "trick",
                 "led", "win_seat", "win_card")


@dataclass(slots=True)
class WizardPublic:
    """The public part of a Wizard state: everything every seat may know.

    * ``params``, ``n`` (players), ``round`` (1-based), ``n_rounds``, ``phase`` (``"trump"``,
      ``"bid"``, ``"play"``, ``"over"``), ``dealer``, ``starter`` (bids first, leads the first
      trick), ``current`` (seat to act).
    * ``trump_card``: the turned card (None in the last round); ``trump``: trump suit or None;
      ``trump_pending``: a Wizard was turned under ``wizard_trump=first_card`` and no suited card
      has been played yet (``trump`` is then None).
    * ``bids[seat]`` (None until bid; ``n_bids`` made so far), ``tricks[seat]`` this round,
      ``scores[seat]`` running totals.
    * ``played``: the cards of the round's finished tricks in play order; ``trick``: the cards of
      the current trick (so every card played this round is ``played + trick``); ``leaders``: the
      leader of each trick of the round, the current one last (the seat of ``(played + trick)[i]``
      is ``(leaders[i // n] + i % n) % n``).
    * ``led``: the trick's led suit, or :data:`LED_NONE` / :data:`LED_FREE`; ``win_seat`` and
      ``win_card``: who is winning the current trick so far (None before its first card), kept
      incrementally as cards are played.
    """

    params: WizardParams
    n: int
    n_rounds: int
    round: int = 1
    phase: str = BID
    dealer: int = 0
    starter: int = 0
    current: int = 0
    trump_card: Card | None = None
    trump: int | None = None
    trump_pending: bool = False
    bids: list[int | None] = seat_counters()
    n_bids: int = 0
    tricks: list[int] = seat_counters()
    scores: list[int] = seat_counters()
    played: list[Card] = face_up()
    leaders: list[int] = field(default_factory=list)
    trick: list[Card] = face_up()
    led: int = LED_NONE
    win_seat: int | None = None
    win_card: Card | None = None


@dataclass(slots=True)
class RoundRecord:
    """A finished round, for the results: its number, dealer, starter, the turned card's code
    and the trump suit (None: no trump), and per seat the bid, the tricks taken, the points, and
    the Wizards, Jesters and ``trumps`` (cards of the trump suit; None without one) it was dealt;
    ``last_winner`` took the round's last trick.

    Never changed once made, so copies of a state share it (``__immutable__``); not frozen,
    because a frozen dataclass is several times slower to make, once per round of every game."""

    __immutable__ = True

    round: int
    dealer: int
    starter: int
    trump_card: str | None
    trump: int | None
    bids: list[int]
    tricks: list[int]
    points: list[int]
    wizards: list[int]
    jesters: list[int]
    trumps: list[int] | None
    last_winner: int


def _none():
    return None


@dataclass(slots=True)
class WizardState:
    """Full Wizard state: the public part ``pub`` (a :class:`WizardPublic`) plus the hands.

    Every public field is also readable and writable as an attribute of the state itself
    (``state.trump`` is ``state.pub.trump``); the rules' hot paths use ``pub`` directly.

    * ``groups[seat]``: the seat's hand as play actions in eight groups (see
      :func:`hand_groups`; its JSON: eight lists of card codes), seen by that seat only;
      ``hands[seat]`` (computed) lists the same cards in hand order.
    * ``undealt``: the positions in :data:`FULL_DECK` of the undealt cards under the trump card,
      seen by no seat (``deck``, computed, lists them as cards).
    * ``log``: one :class:`RoundRecord` per finished round (public: every card of a finished
      round was played face up); ``tricks_played``: tricks finished in the game (``turns``).

    Not part of the state's value (a copy starts them afresh): ``round_trumps``, the trump cards
    dealt to each seat this round, counted from the hands once trump is known, and
    ``round_dealt``, the Wizards and Jesters dealt to each seat, counted at the deal, for the log
    (None before, and in a copied state: the round's end then counts the played cards); ``stop``
    (False but in a search's samples, see :meth:`Wizard.determinizer`): the round's end only
    scores the round and draws what the next deal would draw.
    """

    pub: WizardPublic
    groups: list[list[list[Play]]] = components.seat_zones()
    undealt: list[int] = components.face_down()
    log: list[RoundRecord] = field(default_factory=list)
    tricks_played: int = 0
    round_trumps: list[int] | None = scratch(_none)
    round_dealt: tuple[list[int], list[int]] | None = scratch(_none)
    stop: bool = scratch(bool)

    @property
    def deck(self) -> list[Card]:
        """The undealt cards under the trump card (hidden from everyone), as cards."""
        return [FULL_DECK[i] for i in self.undealt]

    @property
    def hands(self) -> list[list[Card]]:
        """Every seat's hand as cards in hand order (a fresh copy, built from ``groups``)."""
        return [groups_hand(g) for g in self.groups]


def _state_field(name: str) -> property:
    get = attrgetter("pub." + name)

    def put(self, value):
        setattr(self.pub, name, value)

    return property(get, put if name not in ("params", "n") else None,
                    doc=f"``{name}`` of the public part (see :class:`WizardPublic`).")


for _name in PUBLIC_FIELDS:
    setattr(WizardState, _name, _state_field(_name))


class WizardView(View):
    """What a seat sees (derived from the state's declaration): its ``seat``, its own hand
    (``groups``, ``hand``), every seat's hand size (``groups_sizes``), the undealt cards' count
    (``undealt_size``), the round log and ``public`` (the :class:`WizardPublic` part of the
    state) - never another hand or the deck.

    Every public field is also an attribute of the view (``view.trump``, ``view.trick``,
    ``view.bids``, ...; ``view.n_players`` = ``view.n``).  The view is live: it is the game's own
    data, kept up to date as the game goes on - read it during ``choose`` and never change it;
    copy what you want to keep.  Fast strategies read ``view.public`` once and use its fields.
    (``public`` and ``groups`` are bound when the view is made: the rules never replace the
    state's public part or a seat's hand, only change them in place.)
    """

    __slots__ = ("public", "groups")

    def __init__(self, state: WizardState, seat: int):
        View.__init__(self, state, seat)
        self.public = state.pub
        self.groups = state.groups[seat]

    @property
    def hand(self) -> list[Card]:
        """The seat's cards in hand order (a fresh list each time).  ``groups`` holds the same hand
        as play actions (see :func:`hand_groups`)."""
        return groups_hand(self.groups)

    @property
    def groups_sizes(self) -> list[int]:
        """The number of cards in every seat's hand."""
        return [sum(map(len, g)) for g in self._state.groups]

    @property
    def unseen(self) -> list[Card]:
        """The cards this seat cannot see, in hand order: the 60 less its hand, the turned card
        and the cards played this round."""
        return unseen_cards(self)

    n_players = property(attrgetter("public.n"), doc="Number of players (``public.n``).")


for _name in PUBLIC_FIELDS:
    setattr(WizardView, _name, property(attrgetter("public." + _name),
                                        doc=f"``{_name}`` of the public part (see :class:`WizardPublic`)."))
del _name


def unseen_cards(view: WizardView) -> list[Card]:
    """The cards ``view``'s seat cannot see, in hand order (see :attr:`WizardView.unseen`)."""
    left = [4] + [1] * 52 + [4]  # by Card.index: Jester, 52 suited cards, Wizard
    for grp in view.groups:
        for a in grp:
            left[a.card.index] -= 1
    p = view.public
    for c in p.played + p.trick:
        left[c.index] -= 1
    if p.trump_card is not None:
        left[p.trump_card.index] -= 1
    return [CARD_VALUES[i] for i, k in enumerate(left) for _ in range(k)]


def _deal_exact(pool: list, seats: list[int], sizes: list[int], voids: list[int], random) -> list:
    """Deal ``pool``: ``sizes[k]`` cards to each seat ``k`` of ``seats``, never a card of a suit in
    the seat's ``voids[k]`` bit mask, the rest last (a list indexed by seat plus the rest as its
    last element).  The determinizer's fallback when its quick deals fail: the cards are placed one
    at a time, each with a seat (or the rest) chosen at random in proportion to its free places
    among those that may take it and leave a deal of the remaining cards possible (Hall's condition
    on every set of suits).  ``random`` is ``rng.random``.  Raises ValueError when no deal respects
    the voids."""
    n = len(sizes)
    slots = list(seats) + [n]  # n = the rest (undealt), which takes anything
    free = {k: sizes[k] for k in seats}
    free[n] = len(pool) - sum(sizes[k] for k in seats)
    masks = {k: voids[k] for k in seats}
    masks[n] = 0
    count = [0, 0, 0, 0]
    for c in pool:
        if c.suit is not None:
            count[c.suit] += 1

    def feasible() -> bool:
        for subset in range(1, 16):
            need = sum(count[s] for s in range(4) if subset >> s & 1)
            room = sum(free[k] for k in slots if subset & ~masks[k])
            if need > room:
                return False
        return True

    if free[n] < 0 or not feasible():
        raise ValueError("no deal of the unseen cards respects the revealed voids")
    out: list = [[] for _ in range(n + 1)]
    for c in pool:
        s = c.suit
        if s is not None:
            count[s] -= 1
        choices = []
        for k in slots:
            if free[k] and (s is None or not masks[k] >> s & 1):
                free[k] -= 1
                if feasible():
                    choices.append(k)
                free[k] += 1
        weights = [free[k] for k in choices]
        x = random() * sum(weights)
        pick = choices[-1]
        for k, w in zip(choices, weights):
            if x < w:
                pick = k
                break
            x -= w
        free[pick] -= 1
        out[pick].append(c)
    return out


def _dealt_counts(p: WizardPublic) -> tuple[list[int], list[int], list[int]]:
    """Per seat, the Wizards, the Jesters and the cards of the trump suit (all 0 without one)
    among the round's played cards (at the round's end: the cards each seat was dealt)."""
    n, trump, leaders = p.n, p.trump, p.leaders
    wizards, jesters, trumps = [0] * n, [0] * n, [0] * n
    for i, c in enumerate(p.played):
        r = c.rank
        seat = (leaders[i // n] + i % n) % n
        if r == WIZARD:
            wizards[seat] += 1
        elif r == JESTER:
            jesters[seat] += 1
        elif c.suit == trump:
            trumps[seat] += 1
    return wizards, jesters, trumps


def trick_winner(cards, trump: int | None) -> int:
    """Index (position in play order) of the card that wins a finished or partial trick.

    The first Wizard; else the highest trump; else the highest card of the led suit (the suit of
    the first card that is not a Jester); if only Jesters were played, the first Jester.  This is
    the reference version; :meth:`Wizard.apply` keeps the same answer incrementally.
    """
    led = None
    for i, c in enumerate(cards):
        if c.rank == WIZARD:
            return i
        if led is None and c.rank != JESTER:
            led = c.suit
    if led is None:
        return 0
    best, best_key = 0, -1
    for i, c in enumerate(cards):
        if c.rank == JESTER:
            continue
        if trump is not None and c.suit == trump:
            key = 100 + c.rank
        elif c.suit == led:
            key = c.rank
        else:
            continue
        if key > best_key:
            best, best_key = i, key
    return best


def beats(card: Card, winner: Card | None, led: int, trump: int | None) -> bool:
    """Whether ``card`` played now would take the lead of a trick currently won by ``winner``
    (None: an empty trick).  ``led`` is the trick's led state before ``card``."""
    if winner is None:
        return True
    wr = winner.rank
    if wr == WIZARD:
        return False
    r = card.rank
    if r == WIZARD:
        return True
    if r == JESTER:
        return False
    if wr == JESTER:  # only Jesters so far: the first suited card takes the lead
        return True
    s = card.suit
    if s == trump:
        return winner.suit != trump or r > wr
    return s == led and winner.suit == s and r > wr


class Wizard(Game):
    """The Wizard forward model (rules.md).  See the module docstring for the rulings."""

    id = "wizard"
    name = "Wizard"
    summary = "trick taking: bid the exact number of tricks you will take each round"
    min_players = 3
    max_players = 6
    default_players = 4
    Params = WizardParams
    metric_columns = (Metric("exact_bids", "share"), Metric("over_bid", "number", low=0),
                      Metric("under_bid", "number", low=0), Metric("points_per_round", "number"),
                      Metric("mean_bid", "number", low=0), Metric("turns", "count"), Metric("score_trace", "trace", missing=True))
    #: How games are won and measured: what the report's figures read (see Scoring).
    scoring = Scoring(
        trace_unit="rounds",
        length_unit="tricks",
        # Scores move in tens (module docstring): a game is close when the top two are one trick apart.
        close_margin=10,
        # The start-score variant a seat-compensation sweep varies (points, one per seat).
        seat_bonus_rule="seat_bonus")
    extra_tables = (ExtraTable("rounds", (Metric("round", "count", low=1), Metric("bid", "count"),
                                          Metric("tricks", "count"), Metric("points", "whole"),
                                          Metric("exact", "count", high=1), Metric("wizards", "count"),
                                          Metric("jesters", "count"), Metric("trumps", "count", missing=True)),
                               feeds="the bidding tables and plots"), COMPONENTS)
    State = WizardState
    View = WizardView
    action_types = (Bid, Play, ChooseTrump)

    # -- forward model ------------------------------------------------------------------
    def initial_state(self, params: WizardParams, n_players: int, rng) -> WizardState:
        """Deal round 1 with ``rng`` (a ``random.Random``).  InputError outside 3-6 players."""
        if not self.min_players <= n_players <= self.max_players:
            raise InputError(f"players={n_players} is not accepted for wizard; choose {self.min_players}"
                             f" to {self.max_players}")
        n = n_players
        pub = WizardPublic(params, n, len(FULL_DECK) // n, round=0, bids=[None] * n, tricks=[0] * n,
                           scores=list(params.bonus(n)))
        s = WizardState(pub, groups=[[[] for _ in range(8)] for _ in range(n)])
        self._deal(s, 1, 0, rng)
        return s

    def check_players(self, params: WizardParams, n_players: int) -> None:
        """The player range, and a ``seat_bonus`` that fits it."""
        super().check_players(params, n_players)
        params.bonus(n_players)

    def current_player(self, s: WizardState) -> int:
        return s.pub.current

    def turn(self, s: WizardState):
        return s.pub.current, self.legal_actions(s)

    def is_terminal(self, s: WizardState) -> bool:
        return s.pub.phase == OVER

    def legal_actions(self, s: WizardState):
        """Bids 0..r ascending (minus the hooked bid); the distinct playable cards in hand order
        (Jesters, blue, green, red, yellow, Wizards); the four trump suits in suit order; nothing
        once the game is over.  A fresh list or a shared tuple: never change it."""
        p = s.pub
        if p.phase == PLAY:
            g = s.groups[p.current]
            led = p.led
            if led >= 0:
                follow = g[led + 1]
                if follow:  # holding the led suit: follow it, or play a Wizard or Jester ...
                    t = p.trump
                    if t is None or t == led or not g[t + 1] or p.params.follow_suit != "seed":
                        return g[0] + follow + g[5]
                    # ... or, under follow_suit=seed, a trump
                    return g[0] + (follow + g[t + 1] if led < t else g[t + 1] + follow) + g[5]
            return [*g[0], *g[1], *g[2], *g[3], *g[4], *g[5]]
        phase = p.phase
        if phase == BID:
            r = p.round
            if p.params.hook and p.n_bids == p.n - 1:
                forbidden = r - sum(b for b in p.bids if b is not None)
                if 0 <= forbidden <= r:
                    return BIDS[r][:forbidden] + BIDS[r][forbidden + 1:]
            return BIDS[r]
        if phase == TRUMP:
            return CHOOSE_TRUMP
        return ()

    def apply(self, s: WizardState, action, rng=None) -> None:
        """Play ``action`` for the current seat; ``rng`` deals the next round when one ends.

        Raises ValueError for an action of the wrong kind for the phase, a card not in hand, a
        card that breaks the follow rule, or a bid out of range (it does not check the hook: that
        is ``legal_actions``' job, as for every title)."""
        p = s.pub
        if p.phase == PLAY:
            try:
                card = action.card
                r = card.rank
            except (TypeError, IndexError, AttributeError):
                raise ValueError(f"illegal Wizard action {action!r}: a card must be played now") from None
            seat = p.current
            g = s.groups[seat]
            led = p.led
            # Ranks: 0 Jester, 14 Wizard.  Each branch takes the card from the hand (ValueError
            # when it is not there) and updates the led suit and the trick's winner so that they
            # always equal what trick_winner() would say.
            if r == 14:
                if g[7]:
                    g[7].pop()
                elif g[5]:
                    g[5].pop()
                else:
                    raise ValueError(f"illegal Wizard play {card}: not in seat {seat}'s hand")
                wc = p.win_card
                if wc is None or wc.rank != 14:  # the first Wizard takes the lead for good
                    p.win_card = card
                    p.win_seat = seat
                if led == -1:
                    p.led = LED_FREE
            elif r == 0:
                if g[6]:
                    g[6].pop()
                elif g[0]:
                    g[0].pop()
                else:
                    raise ValueError(f"illegal Wizard play {card}: not in seat {seat}'s hand")
                if p.win_card is None:  # a Jester leads only while nothing else was played
                    p.win_card = card
                    p.win_seat = seat
            else:
                suit = card.suit
                # holding the led suit: follow it, or (follow_suit=seed) play a trump
                if suit != led and led >= 0 and g[led + 1] and (
                        suit != p.trump or p.params.follow_suit != "seed"):
                    raise ValueError(f"illegal Wizard play {card}: seat {seat} must follow {SUITS[led]}")
                try:
                    g[suit + 1].remove(action)
                except ValueError:
                    raise ValueError(f"illegal Wizard play {card}: not in seat {seat}'s hand") from None
                if suit == led:  # following the led suit, the usual case
                    wc = p.win_card  # not None: the led suit came from a played card
                    wr = wc.rank
                    if wr != 14 and r > wr and wc.suit == suit:
                        p.win_card = card
                        p.win_seat = seat
                else:
                    if led < 0:
                        if p.trump_pending:  # the round's first suited card names trump
                            p.trump = suit
                            p.trump_pending = False
                            # trumps dealt: those in hand, and this card (the trick's others are
                            # Jesters and Wizards)
                            s.round_trumps = [len(h[suit + 1]) + (k == seat) for k, h in enumerate(s.groups)]
                        if led == -1:  # the first card that is not a Jester: its suit is led
                            p.led = led = suit
                    wc = p.win_card
                    # it wins over nothing or only Jesters, or as a trump over a lower card that is no Wizard
                    if wc is None or wc.rank == 0 or (
                            wc.rank != 14 and suit == p.trump and (wc.suit != suit or r > wc.rank)):
                        p.win_card = card
                        p.win_seat = seat
            trick = p.trick
            trick.append(card)
            n = p.n
            if len(trick) < n:
                p.current = (seat + 1) % n
            else:
                self._end_trick(s, p, rng)
        elif type(action) is Bid and p.phase == BID:
            seat = p.current
            if not 0 <= action.n <= p.round:
                raise ValueError(f"illegal Wizard action {action!r}: bid 0 to {p.round} tricks now")
            p.bids[seat] = action.n
            p.n_bids += 1
            if p.n_bids == p.n:
                p.phase = PLAY
                p.current = p.starter
                p.leaders.append(p.starter)
                t = p.trump  # known by now unless a turned Wizard leaves it to the first suited card
                s.round_trumps = None if t is None else [len(g[t + 1]) for g in s.groups]
            else:
                p.current = (seat + 1) % p.n
        elif type(action) is ChooseTrump and p.phase == TRUMP and action.suit in (0, 1, 2, 3):
            p.trump = action.suit
            p.phase = BID
            p.current = p.starter
        elif p.phase == OVER:
            raise ValueError("the game is over")
        else:
            wanted = f"bid 0 to {p.round} tricks" if p.phase == BID else "the dealer chooses a trump suit"
            raise ValueError(f"illegal Wizard action {action!r}: {wanted} now")

    def _end_trick(self, s: WizardState, p: WizardPublic, rng) -> None:
        p.played += p.trick
        w = p.win_seat
        p.tricks[w] += 1
        s.tricks_played += 1
        p.trump_pending = False  # a first trick without a suited card: no trump this round
        p.trick = []
        p.led = LED_NONE
        p.win_seat = p.win_card = None
        if any(s.groups[w]):  # cards left: the winner leads the next trick
            p.current = w
            p.leaders.append(w)
        else:
            self._end_round(s, p, w, rng)

    def _end_round(self, s: WizardState, p: WizardPublic, last_winner: int, rng) -> None:
        points = [20 + 10 * t if t == b else -10 * abs(t - b) for b, t in zip(p.bids, p.tricks)]
        for i, x in enumerate(points):
            p.scores[i] += x
        if s.stop and p.round < p.n_rounds:
            # a search's sample that stops at the round's end (determinizer): only the next
            # round's number, and the random draws of its deal (see _deal), so the search's
            # random stream goes on as if it had been dealt
            dealt = p.n * (p.round + 1)
            draws = dealt + 1 if dealt < len(FULL_DECK) else len(FULL_DECK)
            if type(rng) is _Random:
                rng.getrandbits(64 * draws)  # CPython: one random() takes two 32-bit words, as 64 bits do
            else:
                rnd = rng.random
                for _ in range(draws):
                    rnd()
            p.round += 1
            s.round_trumps = None
            return
        tc = p.trump_card
        trump = p.trump
        trumps = s.round_trumps if trump is not None else None
        dealt = s.round_dealt
        if dealt is None or (trump is not None and trumps is None):
            # a state copied or loaded mid-round: every card dealt this round was played, so
            # count each seat's Wizards, Jesters and trumps among the played cards
            wizards, jesters, counted = _dealt_counts(p)
            if trump is not None and trumps is None:
                trumps = counted
        else:
            wizards, jesters = dealt
        s.round_trumps = s.round_dealt = None
        s.log.append(RoundRecord(p.round, p.dealer, p.starter, tc.code if tc is not None else None, trump,
                                 list(p.bids), list(p.tricks), points, wizards, jesters, trumps, last_winner))
        if p.round >= p.n_rounds:
            p.phase = OVER
            return
        self._deal(s, p.round + 1, last_winner, rng)

    def _deal(self, s: WizardState, r: int, last_winner: int, rng) -> None:
        """Deal round ``r`` with ``rng``; set dealer, starter, trump and the phase.

        The shuffle is a Fisher-Yates pass over the 60 deck positions that stops once the dealt
        cards and the turned card are drawn (the order of the undealt rest is never used); each
        draw is ``int(rng.random() * m)``, whose bias for m <= 60 is below 1e-14.  Seat 0 gets the
        first ``r`` cards drawn, seat 1 the next ``r``, ...; the next card is turned for trump.
        """
        p = s.pub
        n = p.n
        params = p.params
        if params.round_starter == "rotate":
            p.dealer = (r - 2) % n  # round 1: the last seat deals and seat 0 starts
            p.starter = (p.dealer + 1) % n
        else:
            p.starter = 0 if r == 1 else last_winner
            p.dealer = (p.starter - 1) % n
        size = len(FULL_DECK)
        dealt = n * r
        # a Fisher-Yates shuffle of the deck positions, stopped once the dealt cards and the
        # turned card are drawn
        ids = list(range(size))
        rnd = rng.random
        for i in range(dealt + 1 if dealt < size else size):
            j = i + int(rnd() * (size - i))
            ids[i], ids[j] = ids[j], ids[i]
        groups = s.groups
        wizards, jesters = [0] * n, [0] * n
        for k in range(n):
            g = position_groups(sorted(ids[k * r:(k + 1) * r]))
            groups[k][:] = g  # in place: the seat's live view holds this list
            wizards[k] = len(g[5]) + len(g[7])
            jesters[k] = len(g[0]) + len(g[6])
        s.round_dealt = (wizards, jesters)
        p.round = r
        p.trump_card = tc = FULL_DECK[ids[dealt]] if dealt < size else None
        s.undealt = ids[dealt + 1:]
        p.bids = [None] * n
        p.n_bids = 0
        p.tricks = [0] * n
        p.played = []
        p.leaders = []
        p.trick = []
        p.led = LED_NONE
        p.win_seat = p.win_card = None
        p.trump_pending = False
        p.phase = BID
        p.current = p.starter
        p.trump = None
        if tc is not None:
            if tc.rank == WIZARD:
                if params.wizard_trump == "dealer_chooses":
                    p.phase = TRUMP
                    p.current = p.dealer
                else:
                    p.trump_pending = True
            elif tc.rank != JESTER:
                p.trump = tc.suit

    # -- search -----------------------------------------------------------------------------
    def determinize(self, view: WizardView, rng) -> WizardState:
        """A full state consistent with ``view`` (for :mod:`analyser.engine.search`).

        The public part and the seat's own hand are copied from the view.  The cards the seat has
        not seen (not in its hand, not played this round, not the turned card) are shuffled with
        ``rng`` and dealt to the other seats, each getting the number of cards it holds now; the
        rest become the undealt deck.  Voids are respected: a seat that did not follow a led suit
        this round (playing another suited card that was not, under ``follow_suit=seed``, a
        trump) holds no card of that suit, and is dealt none.  Nothing else is inferred (not from
        bids, not from earlier rounds).  Seats with voids are dealt first, each from the
        cards it may hold, which keeps a deal without voids uniform and one with voids close to
        uniform; if that fails (a tight last round), an exact assignment that checks Hall's
        condition on the suits after every card is used.

        The sample's ``log`` of the finished rounds and its scores are the public ones.
        """
        return self.determinizer(view)(rng)

    def determinizer(self, view: WizardView, stop_at_stage: bool = False):
        """``sample(rng) -> state``: :meth:`determinize` of ``view`` with everything that does not
        depend on ``rng`` worked out once (the unseen cards, hand sizes, voids, the public part),
        so that each of a search's samples only deals (the search calls it once per decision and
        the sample once per iteration; the view must not change in between).  ``sample(rng)``
        draws exactly what ``determinize(view, rng)`` draws and returns an equal state.

        ``stop_at_stage`` (a search with ``horizon=round``, which stops where :meth:`stage`
        changes): the sample's round end scores the round and moves to the next round's number
        but deals nothing and logs nothing; it draws the random numbers the deal would, so the
        search's stream is the same (see :func:`analyser.engine.search.sampler`).

        keeps the search 1.9x faster: benchmarks/mcts_speed.py, 2026-12-07"""
        p = view.public
        n, seat, r = p.n, view.seat, p.round
        # unseen cards: the full deck minus the own hand, the round's played cards and the turned card
        left = [4] + [1] * 52 + [4]  # by Card.index: Jester, 52 suited cards, Wizard
        own = view.groups
        for grp in own:
            for a in grp:
                left[a.card.index] -= 1
        done_cards = p.played + p.trick
        for c in done_cards:
            left[c.index] -= 1
        if p.trump_card is not None:
            left[p.trump_card.index] -= 1
        unseen = [CARD_VALUES[i] for i, k in enumerate(left) for _ in range(k)]
        # hand sizes now, and the voids this round's play revealed
        sizes = [r] * n
        voids = [0] * n  # bit mask of suits
        if p.phase == PLAY or done_cards:
            seed_rule = p.params.follow_suit == "seed"
            trump = p.trump
            led = LED_NONE
            for i, c in enumerate(done_cards):
                if i % n == 0:
                    led = LED_NONE
                who = (p.leaders[i // n] + i % n) % n
                sizes[who] -= 1
                rank = c.rank
                if rank == WIZARD:
                    if led == LED_NONE:
                        led = LED_FREE
                elif rank != JESTER:
                    if led >= 0 and c.suit != led and not (seed_rule and c.suit == trump):
                        voids[who] |= 1 << led
                    if led == LED_NONE:
                        led = c.suit
        others = [k for k in range(n) if k != seat]
        log = view.log
        done = len(p.played) // n
        tricks_played = (r - 1) * r // 2 + (r if p.phase == OVER else done)
        scalars = (p.params, n, p.n_rounds, r, p.phase, p.dealer, p.starter, p.current, p.trump_card, p.trump,
                   p.trump_pending, p.n_bids, p.led, p.win_seat, p.win_card)
        bids, tricks, scores, played, leaders, trick = p.bids, p.tricks, p.scores, p.played, p.leaders, p.trick
        dealt_to = [(k, sizes[k]) for k in others]
        no_voids = not any(voids[k] for k in others)
        positions = [_POSITION[c] for c in unseen]  # ascending: deck positions are in hand order
        new_state, new_public = WizardState.__new__, WizardPublic.__new__
        # with voids: the seats dealt most voids first, each with its mask
        void_order = [(k, voids[k], sizes[k]) for k in sorted(others, key=lambda k: -bin(voids[k]).count("1"))]
        void_sizes = [(k, size) for k, _, size in void_order]
        bits = _DECK_SUIT_BIT

        def sample(rng) -> WizardState:
            groups = [None] * n
            # the unseen deck positions shuffled (a random key each), then dealt in seat order;
            # with voids, each seat takes the first cards it may hold (8 tries, then _deal_exact)
            pool = shuffled(positions, rng)
            if no_voids:
                hands = []
                at = 0
                for k, size in dealt_to:
                    hands.append(pool[at:at + size])
                    at += size
                undealt = pool[at:]
            else:
                for _attempt in range(8):
                    rest = pool
                    hands = []
                    for k, mask, size in void_order:
                        if mask:
                            take, keep = [], []
                            for x in rest:
                                if len(take) < size and not mask & bits[x]:
                                    take.append(x)
                                else:
                                    keep.append(x)
                        else:
                            take, keep = rest[:size], rest[size:]
                        if len(take) < size:
                            break
                        hands.append(take)
                        rest = keep
                    else:
                        undealt = rest
                        break
                    pool = shuffled(pool, rng)
                else:
                    dealt = _deal_exact([FULL_DECK[x] for x in pool], others, sizes, voids, rng.random)
                    hands = [[_POSITION[c] for c in dealt[k]] for k, _, _ in void_order]
                    undealt = [_POSITION[c] for c in dealt[-1]]
            for (k, _), h in zip(dealt_to if no_voids else void_sizes, hands):
                h.sort()
                groups[k] = position_groups(h)
            groups[seat] = [list(g) for g in own]
            q = new_public(WizardPublic)
            (q.params, q.n, q.n_rounds, q.round, q.phase, q.dealer, q.starter, q.current, q.trump_card, q.trump,
             q.trump_pending, q.n_bids, q.led, q.win_seat, q.win_card) = scalars
            q.bids, q.tricks, q.scores, q.played = list(bids), list(tricks), list(scores), list(played)
            q.leaders, q.trick = list(leaders), list(trick)
            s = new_state(WizardState)
            s.pub = q
            s.groups, s.undealt = groups, undealt
            s.log, s.tricks_played = list(log), tricks_played
            s.round_trumps = s.round_dealt = None
            s.stop = stop_at_stage
            return s

        return sample

    def stage(self, s: WizardState) -> int:
        """The round being played (1-based); rounds are the natural horizon of a search."""
        return s.pub.round

    # -- results ------------------------------------------------------------------------
    def scores(self, s: WizardState) -> list[int]:
        """Running totals (final totals once the game is over)."""
        return list(s.scores)

    def metrics(self, s: WizardState) -> list[dict[str, float]]:
        """Per seat over the finished rounds: ``exact_bids`` (share of rounds bid exactly),
        ``over_bid`` / ``under_bid`` (mean tricks short of / beyond the bid per round, 0 when met),
        ``points_per_round``, ``mean_bid``, ``turns`` = tricks played in the game, and
        ``score_trace``: the seat's running total after each finished round (read from the round
        log; see :func:`analyser.engine.core.encode_trace`)."""
        k = len(s.log)
        bonus = s.params.bonus(s.n)
        history, running = [], list(bonus)
        for rec in s.log:
            running = [a + b for a, b in zip(running, rec.points)]
            history.append(running)
        trace = encode_trace(history, s.n)
        out = []
        for seat in range(s.n):
            exact = over = under = bid_sum = 0
            for rec in s.log:
                b, t = rec.bids[seat], rec.tricks[seat]
                bid_sum += b
                if t == b:
                    exact += 1
                elif b > t:
                    over += b - t
                else:
                    under += t - b
            nan = float("nan")
            out.append({"exact_bids": exact / k if k else nan, "over_bid": over / k if k else nan,
                        "under_bid": under / k if k else nan,
                        "points_per_round": (s.scores[seat] - bonus[seat]) / k if k else nan,
                        "mean_bid": bid_sum / k if k else nan, "turns": s.tricks_played,
                        "score_trace": trace[seat]})
        return out

    def extra_records(self, s: WizardState) -> dict[str, list[dict]]:
        """``{"rounds": rows}``: one row per (finished round, seat): round, seat, bid, tricks, points,
        exact (0/1), wizards, jesters and trumps (cards of the trump suit; NaN in a round with no
        trump suit) dealt to the seat, trump (suit name or "none"),
        trump_card ("suit", "jester", "wizard" or "none": what was turned), bid_position (0 = bid
        first)."""
        rows = []
        n = s.n
        for rec in s.log:
            tc = rec.trump_card
            kind = "none" if tc is None else "wizard" if tc == "Z" else "jester" if tc == "N" else "suit"
            trump = SUITS[rec.trump] if rec.trump is not None else "none"
            r = rec.round
            starter = rec.starter
            bids, tricks, points, wiz, jes = rec.bids, rec.tricks, rec.points, rec.wizards, rec.jesters
            trumps = rec.trumps
            for seat in range(n):
                b, t = bids[seat], tricks[seat]
                rows.append({"round": r, "seat": seat, "bid": b, "tricks": t, "points": points[seat],
                             "exact": int(b == t), "wizards": wiz[seat], "jesters": jes[seat],
                             "trumps": trumps[seat] if trumps is not None else float("nan"),
                             "trump": trump, "trump_card": kind, "bid_position": (seat - starter) % n})
        return {"rounds": rows}

    def components(self, s: WizardState) -> list[list[str]]:
        """Per seat, one entry per finished round for what it was dealt (read from the round
        log): ``"k Wizards"`` and ``"k Jesters"`` (k = 1-4; ``"1 Wizard"``, ``"1 Jester"``) and,
        in a round with a trump suit, ``"k trumps"`` (k = 0-13 cards of the trump suit; under
        ``wizard_trump=first_card`` the suit that became trump).  So the count of ``"2 Wizards"``
        is the number of rounds in which the seat held exactly two Wizards (rules page,
        Deal and Trump).  Rounds without a Wizard (or Jester) are not recorded: every seat has
        them (round 1 deals one card), so they could not be compared."""
        out = [[] for _ in range(s.n)]
        for rec in s.log:
            for ids, w, j in zip(out, rec.wizards, rec.jesters):
                if w:
                    ids.append(WIZARD_IDS[w])
                if j:
                    ids.append(JESTER_IDS[j])
            for ids, t in zip(out, rec.trumps or ()):
                ids.append(TRUMP_IDS[t])
        return out

    def component_catalog(self, params: WizardParams) -> dict[str, dict]:
        """What each component is: the number of Wizards, of Jesters (1-4) and of trumps (0-13)
        dealt to a seat in one round; none comes from a data file.  Trump counts a run never saw
        are not listed."""
        out = {}
        for ids, what in ((WIZARD_IDS, "Wizards"), (JESTER_IDS, "Jesters"), (TRUMP_IDS, "trumps")):
            for k, cid in enumerate(ids):
                if not k and what != "trumps":
                    continue
                out[cid] = {"what": f"dealt exactly {k} {what} in a round" if k != 1 else f"dealt one {what[:-1]} in a round",
                            "option": "", "file": "", "line": None, "fix": "", "always": what != "trumps"}
        return out

    # -- for `analyser check` -----------------------------------------------------------------
    def step_bound(self, params: WizardParams, n_players: int) -> int:
        """Round r has at most one trump choice, one bid per seat and r cards played per seat."""
        rounds = len(FULL_DECK) // n_players
        return sum(1 + n_players + n_players * r for r in range(1, rounds + 1))

    def resample_hidden(self, s: WizardState, seat: int, rng) -> WizardState:
        """A copy with the other seats' hands and the undealt cards shuffled together with ``rng``
        and dealt back in the same sizes (what ``seat`` cannot see).  It does not keep what play
        revealed, such as a seat that did not follow suit.  Written here rather than derived: the
        hands are held as play-action groups (:func:`hand_groups`) and the undealt cards as deck
        positions, not as the plain zones of cards the derived re-deal shuffles."""
        t = self.clone_state(s)
        hands = t.hands
        others = [k for k in range(t.n) if k != seat]
        pool = [c for k in others for c in hands[k]] + t.deck
        rng.shuffle(pool)
        i = 0
        for k in others:
            size = len(hands[k])
            hands[k], i = pool[i:i + size], i + size
        t.groups = [hand_groups(h) for h in hands]
        t.undealt = [_POSITION[c] for c in pool[i:]]
        return t

    def check_invariants(self, s: WizardState) -> None:
        """Cards are conserved (hands + deck + turned card + played + trick = the 60 cards), hand
        groups hold the right cards in hand order, hand sizes match the trick count, bids and
        tricks add up, scores equal the logged points, and the incrementally kept led suit and
        trick winner agree with :func:`trick_winner`.  Raises AssertionError."""
        p = s.pub
        n = p.n
        cards = [c for h in s.hands for c in h] + list(s.deck) + list(p.played) + list(p.trick)
        if p.trump_card is not None:
            cards.append(p.trump_card)
        assert sorted(c.index for c in cards) == [c.index for c in FULL_DECK], "cards not conserved"
        for g in s.groups:
            assert len(g) == 8
            for k, grp in enumerate(g):
                assert all(slot_of(a.card) == (0 if k == 6 else 5 if k == 7 else k) for a in grp), "group"
                assert [a.card.index for a in grp] == sorted(a.card.index for a in grp), "group order"
            assert len(g[0]) <= 1 and len(g[5]) <= 1 and (g[0] or not g[6]) and (g[5] or not g[7])
        assert p.n_bids == sum(b is not None for b in p.bids), "bid count"
        self._check_turn_order(p)
        done = len(p.played) // n
        assert len(p.played) % n == 0 and sum(p.tricks) == done, "tricks"
        if p.phase in (BID, TRUMP):
            assert not p.played and not p.trick and all(t == 0 for t in p.tricks)
            assert all(len(h) == p.round for h in s.hands), "hand size"
        if p.phase == PLAY:
            assert p.n_bids == n and len(p.leaders) == done + 1, "leaders"
            lead = p.leaders[-1]
            for seat, h in enumerate(s.hands):
                in_trick = (seat - lead) % n < len(p.trick)
                assert len(h) == p.round - done - in_trick, "hand size"
            assert p.current == (lead + len(p.trick)) % n, "current seat"
        if p.trick:
            assert p.win_seat == (p.leaders[-1] + trick_winner(p.trick, p.trump)) % n, "trick winner"
            first = next((c for c in p.trick if c.rank != JESTER), None)
            expected = LED_NONE if first is None else LED_FREE if first.rank == WIZARD else first.suit
            assert p.led == expected, "led suit"
        else:
            assert p.led == LED_NONE and p.win_seat is None and p.win_card is None
        assert p.trump is None or not p.trump_pending
        if s.log or p.round <= 1:  # a hand-built state may leave out the earlier rounds' log
            bonus = p.params.bonus(n)
            assert [bonus[i] + sum(rec.points[i] for rec in s.log) for i in range(n)] == list(p.scores), "scores"
            assert s.tricks_played == sum(rec.round for rec in s.log) + (0 if p.phase == OVER else done)

    @staticmethod
    def _check_turn_order(p: WizardPublic) -> None:
        """The dealer sits right of the starter (``round_starter``: round 1 starts at seat 0, and
        under ``rotate`` round ``r`` is dealt by seat ``r - 2``); a turned suited card is trump, a
        turned Jester (or no card) makes none; bids go round from the starter,
        the dealer names a turned Wizard's suit before any bid, and the first trick is the
        starter's lead.  Raises AssertionError."""
        n = p.n
        assert p.dealer == (p.starter - 1) % n, "the dealer sits right of the starter"
        if p.params.round_starter == "rotate" or p.round == 1:
            assert p.dealer == (p.round - 2) % n, "dealer of the round"
        tc = p.trump_card
        if tc is None or tc.rank == JESTER:
            assert p.trump is None and not p.trump_pending, "no trump without a turned suit"
        elif tc.rank != WIZARD:
            assert p.trump == tc.suit and not p.trump_pending, "the turned card's suit is trump"
        if p.phase == BID:
            assert p.n_bids < n, "a bid is still to come"
            bidders = {(p.starter + k) % n for k in range(p.n_bids)}
            assert all((b is not None) == (seat in bidders) for seat, b in enumerate(p.bids)), "bids in seat order"
            assert p.current == (p.starter + p.n_bids) % n, "current seat"
        elif p.phase == TRUMP:
            assert p.n_bids == 0 and p.current == p.dealer, "the dealer names trump"
        elif p.phase == PLAY:
            assert p.leaders[0] == p.starter, "the starter leads the first trick"

    # -- saved states and display ---------------------------------------------------------
    def state_schema(self):
        """The saved-state schema (:mod:`analyser.io.states`); one deck is :meth:`check_invariants`' job."""
        return _state_schema(self)


@lru_cache(maxsize=None)
def _state_schema(game: Wizard):
    from pydantic import field_validator, model_validator

    from analyser.io.states import StateModel, items, seat_lists, text, validate_params, whole

    min_players, max_players = game.min_players, game.max_players

    n_cards = len(FULL_DECK)
    seat = whole(0, max_players - 1)
    code = text(3)
    suit = Optional[whole(0, 3)]
    round_points = whole(-10 * n_cards, 10 * n_cards)

    class RoundRecordSchema(StateModel):
        round: whole(1, n_cards)
        dealer: seat
        starter: seat
        trump_card: Optional[code]
        trump: suit
        bids: items(whole(0, n_cards), max_players)
        tricks: items(whole(0, n_cards), max_players)
        points: items(round_points, max_players)
        wizards: items(whole(0, 4), max_players)
        jesters: items(whole(0, 4), max_players)
        trumps: Optional[items(whole(0, 13), max_players)]
        last_winner: seat

    class PublicSchema(StateModel):
        params: dict[text(40), bool | int | float | text(200)]
        n: whole(min_players, max_players)
        n_rounds: whole(1, n_cards)
        round: whole(1, n_cards) = None
        phase: Literal[BID, TRUMP, PLAY, OVER] = None
        dealer: seat = None
        starter: seat = None
        current: seat = None
        trump_card: Optional[code] = None
        trump: suit = None
        trump_pending: bool = None
        bids: items(Optional[whole(0, n_cards)], max_players) = None
        n_bids: whole(0, max_players) = None
        tricks: items(whole(0, n_cards), max_players) = None
        scores: items(whole(-10 * n_cards * n_cards, 10 * n_cards * n_cards), max_players) = None
        played: items(code, n_cards) = None
        leaders: items(seat, n_cards + 1) = None
        trick: items(code, max_players) = None
        led: whole(LED_FREE, 3) = None
        win_seat: Optional[seat] = None
        win_card: Optional[code] = None

        @field_validator("params")
        @classmethod
        def _rule_options(cls, value):
            try:
                validate_params(game, value)  # each option as JSON: a flag true or false, ...
            except InputError as e:
                raise ValueError(str(e).removeprefix("params.")) from None
            return value

    class WizardStateSchema(StateModel):
        game: Literal["wizard"] = "wizard"
        pub: PublicSchema
        groups: items(items(items(code, n_cards), 8, 8), max_players) = None
        undealt: items(whole(0, n_cards - 1), n_cards) = None
        log: items(RoundRecordSchema, n_cards) = None
        tricks_played: whole(0, n_cards * n_cards) = None

        @model_validator(mode="after")
        def _per_seat(self):
            p = self.pub
            n = p.n
            seat_lists(p, n, "bids", "tricks", "scores")
            seat_lists(self, n, "groups")
            for name in ("dealer", "starter", "current", "win_seat"):
                if getattr(p, name) is not None and getattr(p, name) >= n:
                    raise ValueError(f"pub.{name} is seat {getattr(p, name)}; there are {n} seats")
            if any(x >= n for x in p.leaders or []):
                raise ValueError(f"pub.leaders must name seats below {n}")
            if p.n_rounds > n_cards // n:
                raise ValueError(f"pub.n_rounds is {p.n_rounds}; {n} players have at most {n_cards // n} rounds")
            if p.round is not None and p.round > p.n_rounds:
                raise ValueError(f"pub.round is {p.round}; the game has {p.n_rounds} rounds")
            cards = p.round if p.round is not None else 1
            for k, b in enumerate(p.bids or []):
                if b is not None and b > cards:
                    raise ValueError(f"pub.bids[{k}] is {b}; a bid is 0 to the {cards} cards dealt this round")
            for k, h in enumerate(self.groups or []):
                size = sum(map(len, h))
                if size > cards:
                    raise ValueError(f"groups[{k}] holds {size} cards; round {cards} deals {cards}")
            log = self.log or []
            if len(log) >= p.n_rounds + 1:
                raise ValueError(f"log holds {len(log)} rounds; the game has {p.n_rounds}")
            for i, rec in enumerate(log):
                for name in ("bids", "tricks", "points", "wizards", "jesters") + (("trumps",) if rec.trumps else ()):
                    if len(getattr(rec, name)) != n:
                        raise ValueError(f"log[{i}].{name} needs one entry per player ({n})")
                if rec.dealer >= n or rec.starter >= n or rec.last_winner >= n:
                    raise ValueError(f"log[{i}] names a seat beyond the {n} seats")
                if rec.round > p.n_rounds or any(b > rec.round for b in rec.bids) or sum(rec.tricks) != rec.round:
                    raise ValueError(f"log[{i}]: bids and tricks must fit round {rec.round}")
            return self

    return WizardStateSchema
