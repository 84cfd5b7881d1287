"""DAO (published as Dodekka): press-your-luck set collection.  Rules: rules.md (``analyser rules dao``).

This module is the model the other titles copy: ``DaoParams`` (every rule option), ``DaoState``
(plain data with a JSON round trip), ``DaoView`` (what one seat may see) and ``Dao`` (the
stateless forward model).

The rules, every ruling where the write-up is silent (the two-player halves, refills, ``unseen``)
and the ``seat_bonus`` variant are on the rules page (sections Cards, Setup, Turn, Refill, End,
Score and ties, Two-player variant, Seat bonus, Other rulings).

Actions are the two singletons :data:`TAKE` and :data:`REVEAL` (an enum, readable and hashable);
``legal_actions`` always returns ``(TAKE, REVEAL)`` in that order, because while the game runs the
display is never empty and the deck never is.
"""

from __future__ import annotations

import enum
from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from operator import itemgetter
from typing import Literal, NamedTuple

from analyser.engine.components import EVERYONE, face_down, face_up, seat_counters, seat_zones
from analyser.engine.core import COMPONENTS, Game, InputError, Metric, Params, Scoring, encode_trace, option, ranks_from
from analyser.engine.derive import View, shuffled
from analyser.engine.perseat import seat_values

COLOUR_NAMES = ("metal", "fire", "earth", "wood", "water", "gold", "sky", "stone", "ice", "shadow")


class Card(NamedTuple):
    """One card: ``colour`` index (0 = metal, 1 = fire, 2 = earth, 3 = wood, 4 = water) and value.

    A state holds its cards as plain ``(colour, value)`` tuples (:func:`dealt_deck`), equal to
    these: the rules read a card's fields at every step, and unpacking a named tuple costs some
    twenty times a plain one's.  ``Card(*card)`` names a card (``fire 3``)."""

    colour: int
    value: int

    def __str__(self) -> str:
        return f"{COLOUR_NAMES[self.colour]} {self.value}"


class Action(enum.Enum):
    """A DAO action (rules.md, Turn)."""

    TAKE = "take"
    REVEAL = "reveal"

    #: Hashed by identity (members are singletons, and Enum compares by identity): the search keys
    #: its tree by actions, and Enum's own __hash__ is a Python-level call.
    __hash__ = object.__hash__

    def __str__(self) -> str:
        return self.value


TAKE = Action.TAKE
REVEAL = Action.REVEAL
LEGAL = (TAKE, REVEAL)


@lru_cache(maxsize=64)
def parse_values(text: str) -> tuple[tuple[int, int], ...]:
    """Parse ``"0x1,1x4,2x3,3x3,4x1"`` (value x copies per colour) into ``((0, 1), (1, 4), ...)``.

    Raises :class:`InputError` on malformed text.
    """
    out = []
    for part in text.replace(" ", "").split(","):
        v, sep, c = part.partition("x")
        try:
            value, copies = int(v), int(c)
        except ValueError:
            raise InputError(f"rule values={text!r} is not accepted; write value x copies, "
                             "e.g. 0x1,1x4,2x3,3x3,4x1") from None
        if not sep or not 0 <= value <= 1000 or not 0 <= copies <= 1000:
            raise InputError(f"rule values={text!r} is not accepted; write value x copies with "
                             "values and copies from 0 to 1000, e.g. 0x1,1x4,2x3,3x3,4x1")
        out.append((value, copies))
    if not out or sum(c for _, c in out) == 0:
        raise InputError(f"rule values={text!r} is not accepted; a colour needs at least one card")
    return tuple(out)


@dataclass(frozen=True)
class DaoParams(Params):
    """Rule options of DAO (rules.md).  Defaults are the rules write-up's."""

    bust_limit: int = option(12, "display total above which a reveal busts (rules page: Turn)", low=0,
                             high=100000)
    display_size: int = option(3, "cards revealed into an empty display (setup and refill)", low=1, high=20)
    colours: int = option(5, "number of colours (metal, fire, earth, wood, water, ...)", low=1, high=10)
    values: str = option("0x1,1x4,2x3,3x3,4x1", "cards of each colour, as value x copies (values and "
                         "copies 0 to 1000; a deck of at most 10,000 cards)")
    equal_exception: str = option(
        "adjacent", "reveal equal in value to the card it is laid next to (adjacent), to the front "
        "card (front), or no exception (off) keeps the display (ruling equal_exception on the rules page)",
        choices=("adjacent", "front", "off"))
    tie_break: str = option("most_cards", "tied top scores: more cards wins, else shared (most_cards); "
                            "always shared (shared)", choices=("most_cards", "shared"))
    two_player_halves: str = option(
        "auto", "play two halves of the deck and add the scores: auto = only at 2 players",
        choices=("auto", "on", "off"))
    seat_bonus: str = option(
        "0", "variant: points each seat starts with, one number for all or one per seat separated by / "
        "(0/0/0/2), seat 0 first; added to the final score (rules page: Seat bonus)")

    def validate(self) -> None:
        seat_values(self.seat_bonus, name="seat_bonus")
        size = sum(c for _, c in parse_values(self.values)) * self.colours
        if size < self.display_size + 1:
            raise InputError(f"rule values={self.values!r} with colours={self.colours} makes a deck of {size} "
                             f"cards, too small for display_size={self.display_size}")
        if size > 10000:
            raise InputError(f"rule values={self.values!r} with colours={self.colours} makes a deck of {size} "
                             "cards; at most 10,000 are accepted")

    def bonus(self, n_players: int) -> tuple[int, ...]:
        """The start bonus of each seat (``seat_bonus``); InputError when it does not fit ``n_players``."""
        return _seat_bonus(self.seat_bonus, n_players)

    @property
    def value_counts(self) -> tuple[tuple[int, int], ...]:
        return parse_values(self.values)

    def halves(self, n_players: int) -> bool:
        """Whether the two-halves variant is played at ``n_players``."""
        return self.two_player_halves == "on" or (self.two_player_halves == "auto" and n_players == 2)


@lru_cache(maxsize=256)
def _seat_bonus(text: str, n_players: int) -> tuple[int, ...]:
    """:meth:`DaoParams.bonus` (cached: the scores read it at every call, a search at every rollout)."""
    return seat_values(text, n_players, name="seat_bonus")


@lru_cache(maxsize=64)
def full_deck(colours: int, values: str) -> tuple[Card, ...]:
    """The unshuffled deck, colour-major, ascending value (cached per composition)."""
    return tuple(Card(c, v) for c in range(colours) for v, n in parse_values(values) for _ in range(n))


@lru_cache(maxsize=64)
def dealt_deck(colours: int, values: str) -> tuple[tuple[int, int], ...]:
    """:func:`full_deck` as a state holds it: plain ``(colour, value)`` tuples (see :class:`Card`)."""
    return tuple(map(tuple, full_deck(colours, values)))


@lru_cache(maxsize=64)
def card_names(colours: int, values: str) -> dict[tuple[int, int], str]:
    """Each card of the deck -> its name, ``fire 3`` (cached per composition)."""
    return {card: str(card) for card in full_deck(colours, values)}


@lru_cache(maxsize=64)
def full_composition(colours: int, values: str) -> tuple[tuple[int, ...], ...]:
    """``[colour][value]`` card counts of the full deck (cached per composition)."""
    max_v = max(v for v, _ in parse_values(values))
    per_colour = [0] * (max_v + 1)
    for v, n in parse_values(values):
        per_colour[v] += n
    return tuple(tuple(per_colour) for _ in range(colours))


@dataclass(slots=True, kw_only=True)
class DaoState:
    """Full DAO state, hidden information included.

    * ``deck``: the current half's face-down deck, top card last; ``reserve``: the second half
      (face down too).
    * ``display``: face-up cards, the takeable front card first; ``total``: their value sum.
    * ``piles[seat]``: every card the seat took, in order (public: rules.md).
    * ``gain[seat][colour]``: value sum plus card count of that colour among the seat's cards of
      the current half, and ``held[seat]``: the seat's card count in the current half.  The net
      score with colour ``k`` is ``gain[k] - held`` (colour sum minus one per other card), so a
      take updates two numbers instead of every colour.
    * ``half_scores[seat]``: scores of finished halves; ``half_marks[seat]``: the pile length at
      the end of each finished half.
    * ``out``: cards out of the game (a display left when a half or the game ended).
    * ``unseen[colour][value]``: cards not yet seen by anyone (public knowledge), ``n_unseen``.
    * ``events``: ``(turn, seat, score)`` each time a seat's score changed (a take or a bust),
      ``turn`` counting the turns played so far; the source of the ``score_trace`` metric.
    """

    params: DaoParams
    n: int
    # (the second half first: the unseen cards are dealt in field order, the reserve's share first)
    reserve: list[Card] = face_down()
    deck: list[Card] = face_down()
    display: list[Card] = face_up()
    total: int = 0
    piles: list[list[Card]] = seat_zones(EVERYONE)
    gain: list[list[int]]
    held: list[int] = seat_counters()
    half_scores: list[list[int]]
    half_marks: list[list[int]]
    out: list[Card] = face_up()
    unseen: list[list[int]]
    n_unseen: int
    current: int = 0
    starter: int = 0
    turn: int = 0
    busts: list[int] = seat_counters()
    over: bool = False
    half: int = 0
    events: list[tuple[int, int, int]] = field(default_factory=list)

    def __repr__(self):
        return f"DaoState(players={self.n}, deck={len(self.deck)}, display={self.display}, turn={self.turn})"


def recount(s: DaoState) -> DaoState:
    """Set the fields a DAO state derives from its cards (``total``, ``gain``, ``held``,
    ``unseen``, ``n_unseen``) from the cards where they lie, and return ``s``: how a scenario or a
    hand-edited state is completed."""
    p = s.params
    s.total = sum(c[1] for c in s.display)
    s.gain = [[0] * p.colours for _ in range(s.n)]
    s.held = [0] * s.n
    for seat, pile in enumerate(s.piles):
        start = s.half_marks[seat][-1] if s.half_marks[seat] and not s.over else 0
        for c, v in pile[start:]:
            s.gain[seat][c] += v + 1
            s.held[seat] += 1
    width = max(v for v, _ in p.value_counts) + 1
    s.unseen = [[0] * width for _ in range(p.colours)]
    for c, v in s.deck + s.reserve:
        s.unseen[c][v] += 1
    s.n_unseen = len(s.deck) + len(s.reserve)
    return s


class DaoView(View):
    """What one seat sees: everything but the order of the face-down cards (rules.md: piles are
    public).  A live view: the attributes read through to the game state (read them, never change
    them), so one view per seat serves a whole game.

    * ``display`` (front first), ``total``, ``piles``, ``gain``, ``held``, ``unseen`` (counts
      ``[colour][value]`` of the cards nobody has seen, including the other half's in the
      two-player variant), ``n_unseen``, and the public record ``half_scores``, ``half_marks``,
      ``out``, ``current``, ``starter``, ``turn``, ``busts``, ``over``, ``half``, ``events``,
      ``params``: as in :class:`DaoState`.
    * ``deck_size`` and ``reserve_size`` (the second half's face-down cards; 0 otherwise).
    * ``net(seat)`` (net score per colour in the current half) and ``score(seat)``.
    """

    __slots__ = ()

    @property
    def n_players(self) -> int:
        return self._state.n

    def net(self, seat: int | None = None) -> list[int]:
        """Net score per colour for ``seat`` (default: own) in the current half."""
        s = self._state
        seat = self.seat if seat is None else seat
        held = s.held[seat]
        return [g - held for g in s.gain[seat]]

    def score(self, seat: int | None = None) -> int:
        """Score of ``seat`` (default: own) so far: its start bonus (``seat_bonus``), finished
        halves and the current half."""
        s = self._state
        seat = self.seat if seat is None else seat
        return s.params.bonus(s.n)[seat] + sum(s.half_scores[seat]) + max(s.gain[seat]) - s.held[seat]


_colour_of = itemgetter(0)


def scoring_colour_cards(cards, colours: int) -> int:
    """How many of ``cards`` are of their best net colour (ties: the lowest colour index)."""
    gain = [0] * colours
    count = [0] * colours
    for c, v in cards:
        gain[c] += v + 1
        count[c] += 1
    return count[gain.index(max(gain))] if cards else 0


class Dao(Game):
    """The DAO forward model (rules.md).  See the module docstring for the rulings."""

    id = "dao"
    name = "DAO (Dodekka)"
    summary = "press-your-luck card collecting: take the front card or reveal and risk a bust"
    min_players = 2
    max_players = 6
    default_players = 4
    Params = DaoParams
    State = DaoState
    View = DaoView
    action_types = (Action,)
    metric_columns = (Metric("cards", "count"), Metric("busts", "count"),
                      Metric("colour_share", "share", missing=True), Metric("turns", "count"),
                      Metric("score_trace", "trace", missing=True))
    #: How games are won and measured: what the report's figures read (see Scoring).
    scoring = Scoring(
        # One step of the score trace: a round of turns (one turn per seat).
        trace_unit="rounds",
        # Scores move by single points (a card adds its value to its colour, or costs 1): a game is
        # close when the top two are one point apart.
        close_margin=1,
        # The start-bonus variant a seat-compensation sweep varies (points, one per seat).
        seat_bonus_rule="seat_bonus",
        # The tie-break option the tie-rate finding sweeps.
        tie_break_rule="tie_break")
    extra_tables = (COMPONENTS,)
    #: Component impact (docs/components.md): more cards usually mean more penalty points, whatever the cards.
    component_note = ("A card outside a seat's best colour costs it a point and a bust hands the seat the whole "
                      "display, so a seat holding more cards tends to lose whatever they are: most effects are "
                      "negative. Compare the cards with each other (one far from the rest stands out) rather "
                      "than with 0.")

    # -- forward model ------------------------------------------------------------------
    def check_players(self, params: DaoParams, n_players: int) -> None:
        """The player range, and with halves each half must fill the display and leave a card."""
        super().check_players(params, n_players)
        params.bonus(n_players)
        size = len(full_deck(params.colours, params.values))
        if params.halves(n_players) and size // 2 < params.display_size + 1:
            raise InputError(f"a deck of {size} cards cannot be split into halves of at least "
                             f"display_size + 1 = {params.display_size + 1} cards; set two_player_halves=off "
                             "or use more cards")

    def initial_state(self, params: DaoParams, n_players: int, rng) -> DaoState:
        """Shuffle with ``rng`` (a ``random.Random``) and reveal the first display.

        Raises :class:`InputError` if ``n_players`` is outside 2-6.
        """
        if not self.min_players <= n_players <= self.max_players:
            raise InputError(f"players={n_players} is not accepted for dao; choose {self.min_players}"
                             f" to {self.max_players}")
        deck = shuffled(dealt_deck(params.colours, params.values), rng)
        reserve: list[Card] = []
        if params.halves(n_players):
            cut = len(deck) - len(deck) // 2
            reserve, deck = deck[:cut], deck[cut:]
        unseen = [list(u) for u in full_composition(params.colours, params.values)]
        s = DaoState(params=params, n=n_players, deck=deck, reserve=reserve, unseen=unseen,
                     n_unseen=len(deck) + len(reserve), piles=[[] for _ in range(n_players)],
                     gain=[[0] * params.colours for _ in range(n_players)], held=[0] * n_players,
                     half_scores=[[] for _ in range(n_players)], half_marks=[[] for _ in range(n_players)],
                     busts=[0] * n_players)
        self._refill(s, params)
        return s

    def current_player(self, s: DaoState) -> int:
        return s.current

    def legal_actions(self, s: DaoState):
        """``(TAKE, REVEAL)`` while the game runs, ``()`` once it is over."""
        return () if s.over else LEGAL

    def turn(self, s: DaoState):
        return s.current, (() if s.over else LEGAL)

    def is_terminal(self, s: DaoState) -> bool:
        return s.over

    def apply(self, s: DaoState, action, rng=None) -> None:
        """Play ``action`` for the current seat (rules.md Turn, Refill, End).

        ``rng`` is unused: DAO has no chance after the shuffle.  Raises ValueError on an action
        that is neither TAKE nor REVEAL.  Must not be called once the game is over (the loop stops
        when ``legal_actions`` is empty).
        """
        seat = s.current
        display = s.display
        if action is TAKE:
            card = display.pop(0)
            c, v = card
            s.total -= v
            gain = s.gain[seat]
            gain[c] += v + 1
            held = s.held
            k = held[seat] = held[seat] + 1
            s.piles[seat].append(card)
            turn = s.turn = s.turn + 1
            done = s.half_scores[seat]  # scores of finished halves (none in the first half)
            s.events.append((turn, seat, sum(done) + max(gain) - k if done else max(gain) - k))
            s.current = (seat + 1) % s.n
            if not display:
                self._refill(s, s.params)
            return
        if action is not REVEAL:
            raise ValueError(f"illegal DAO action {action!r}; legal: take, reveal")
        deck = s.deck
        card = deck.pop()
        c, v = card
        s.unseen[c][v] -= 1
        s.n_unseen -= 1
        display.append(card)
        total = s.total = s.total + v
        turn = s.turn = s.turn + 1
        p = s.params
        if total > p.bust_limit and self._busts(display, v, p.equal_exception):
            self._take_display(s, seat, turn)
            if deck:
                s.current = (seat + 1) % s.n
                self._refill(s, p)  # only a bust empties the display on a reveal
                return
        elif deck:
            s.current = (seat + 1) % s.n
            return
        self._end_half(s, p)

    @staticmethod
    def _busts(display: list[Card], v: int, exception: str) -> bool:
        """Whether a reveal of value ``v`` (the display's last card) over the limit busts: not when
        the equal-value exception keeps the display (rules.md Turn)."""
        if exception == "adjacent":
            return v != display[-2][1]
        return exception != "front" or v != display[0][1]

    def _take_display(self, s: DaoState, seat: int, turn: int) -> None:
        """A bust: ``seat`` takes the whole display (its score event at ``turn``)."""
        gain = s.gain[seat]
        display = s.display
        s.piles[seat].extend(display)
        for c, v in display:
            gain[c] += v + 1
        held = s.held
        k = held[seat] = held[seat] + len(display)
        s.display = []
        s.total = 0
        s.busts[seat] += 1
        done = s.half_scores[seat]
        s.events.append((turn, seat, sum(done) + max(gain) - k if done else max(gain) - k))

    def _refill(self, s: DaoState, p: DaoParams) -> None:
        deck, unseen = s.deck, s.unseen
        k = min(p.display_size, len(deck))
        cards = deck[:-k - 1:-1]  # the top k cards, top first (as revealed one by one)
        del deck[len(deck) - k:]
        s.display.extend(cards)
        total = s.total
        for c, v in cards:
            unseen[c][v] -= 1
            total += v
        s.total = total
        s.n_unseen -= k
        if not deck:
            self._end_half(s, p)

    def _end_half(self, s: DaoState, p: DaoParams) -> None:
        """Score the half; start the second half if there is one, else end the game."""
        for seat in range(s.n):
            s.half_scores[seat].append(max(s.gain[seat]) - s.held[seat])
            s.half_marks[seat].append(len(s.piles[seat]))
        s.out.extend(s.display)
        s.display = []
        s.total = 0
        if s.reserve:
            s.deck, s.reserve = s.reserve, []
            s.half += 1
            s.gain = [[0] * p.colours for _ in range(s.n)]
            s.held = [0] * s.n
            s.starter = (s.starter + 1) % s.n
            s.current = s.starter
            self._refill(s, p)
        else:
            s.over = True

    # -- search -----------------------------------------------------------------------------
    def stage(self, s: DaoState) -> int:
        """The half being played (0, or 1 in the second half of the two-player variant)."""
        return s.half

    def last_stage(self, params: DaoParams, n_players: int) -> int:
        """The second half with the two-halves variant, else the one half."""
        return 1 if params.halves(n_players) else 0

    def score_range(self, params: DaoParams, n_players: int) -> tuple[float, float]:
        """The range ``mcts:reward=score`` scales DAO scores by: a twelfth of the deck below zero
        to a colour's value sum above (per half played); the usual scores lie well inside."""
        deck = len(full_deck(params.colours, params.values))
        top = sum(v * k for v, k in params.value_counts)
        halves = 2 if params.halves(n_players) else 1
        return (-deck / 12 * halves, top * halves)

    # -- results ------------------------------------------------------------------------
    def scores(self, s: DaoState) -> list[int]:
        """Final (or running) score per seat: its start bonus (``seat_bonus``), finished halves
        and the current half."""
        bonus = s.params.bonus(s.n)
        if s.over:
            return [b + sum(done) for b, done in zip(bonus, s.half_scores)]
        return [b + sum(done) + max(gain) - held for b, done, gain, held in zip(bonus, s.half_scores, s.gain, s.held)]

    def ranks(self, s: DaoState) -> list[int]:
        """:meth:`ranks_given` from one scoring (``tie_break=most_cards`` needs no winners: it ranks
        by score, then cards)."""
        scores = self.scores(s)
        most_cards = s.params.tie_break == "most_cards"
        return self.ranks_given(s, scores, () if most_cards else self._winners(s, scores))

    def ranks_given(self, s: DaoState, scores, winners) -> list[int]:
        """Ranks (1 = best).  ``tie_break=most_cards`` orders every tie by cards taken, not only the
        tie for the win: seats tied on score rank by card count, and share a rank only when that is
        equal too (rules.md, "Ties").  ``shared``: equal scores share a rank."""
        if s.params.tie_break != "most_cards":
            return ranks_from(scores, winners)
        keys = list(zip(scores, map(len, s.piles)))
        order = sorted(keys)
        n = len(keys)
        return [1 + n - bisect_right(order, k) for k in keys]  # 1 + the seats with a greater key

    def count_notes(self, params: DaoParams, n_players: int) -> list[str]:
        """The two-halves variant when the count (or the option) switches it on."""
        if not params.halves(n_players):
            return []
        why = "at 2 players" if params.two_player_halves == "auto" else "at any count"
        return [f"two halves of the deck, scores added: two_player_halves={params.two_player_halves} {why}"]

    def winners(self, s: DaoState) -> list[int]:
        """Highest score; ``tie_break=most_cards``: more cards among the tied, else shared."""
        return self._winners(s, self.scores(s))

    def _winners(self, s: DaoState, sc: list[int]) -> list[int]:
        best = max(sc)
        tied = [i for i in range(s.n) if sc[i] == best]
        if len(tied) > 1 and s.params.tie_break == "most_cards":
            most = max(len(s.piles[i]) for i in tied)
            tied = [i for i in tied if len(s.piles[i]) == most]
        return tied

    def tie_break_reason(self, s: DaoState, scores, winners) -> str:
        """Under ``tie_break=most_cards``: the tied seats' cards, which decided (rules.md, "Ties")."""
        top = max(scores)
        tied = [i for i in range(s.n) if scores[i] == top]
        if sorted(winners) == tied:
            return ""
        cards = ", ".join(f"seat {i} took {len(s.piles[i])}" for i in tied)
        return f"tied on {top} points, more cards wins (rule tie_break=most_cards): {cards} cards"

    def metrics(self, s: DaoState) -> list[dict[str, float]]:
        """Per seat: cards taken, busts, the share of cards in the scoring colour, game turns.

        The scoring colour is the best net colour of the seat's cards, per half when halves are
        played (``half_marks``); ``colour_share`` is NaN for
        a seat with no cards.  ``score_trace``: the seat's running score after each round of turns
        (:meth:`_score_history`, :func:`analyser.engine.core.encode_trace`).
        """
        trace = encode_trace(self._score_history(s), s.n)
        colours = s.params.colours
        out = []
        for seat in range(s.n):
            pile = s.piles[seat]
            share = float("nan")
            if pile:
                in_colour = 0
                marks = s.half_marks[seat]
                if s.over and len(marks) == 1:  # one half, played out
                    a, b = 0, marks[0]
                else:
                    marks = [0] + marks + ([] if s.over else [len(pile)])
                    for a, b in zip(marks[:-2], marks[1:-1]):  # finished earlier halves
                        in_colour += scoring_colour_cards(pile[a:b], colours)
                    a, b = marks[-2], marks[-1]
                # the last (or current) half: its gain is still in the state
                gain = s.gain[seat]
                best = gain.index(max(gain))
                last = pile if a == 0 and b == len(pile) else pile[a:b]
                in_colour += list(map(_colour_of, last)).count(best)
                share = in_colour / len(pile)
            out.append({"cards": len(pile), "busts": s.busts[seat], "colour_share": share,
                        "turns": s.turn, "score_trace": trace[seat]})
        return out

    def components(self, s: DaoState) -> list[list[str]]:
        """Per seat, the cards it took (``piles``, both halves with ``two_player_halves``), one
        entry per card: the component id is the card's colour and value, e.g. ``fire 3``
        (:class:`Card` prints so)."""
        name = card_names(s.params.colours, s.params.values).__getitem__
        return [list(map(name, pile)) for pile in s.piles]

    def component_catalog(self, params: DaoParams) -> dict[str, dict]:
        """Every colour and value of the deck under ``params`` (colour-major, values ascending),
        with a fix to test: the ``values`` option with one copy fewer of that value (in every
        colour: the rules treat the colours alike)."""
        counts = params.value_counts
        out = {}
        for colour in range(params.colours):
            for value, copies in counts:
                if not copies:
                    continue
                fewer = ",".join(f"{v}x{c - 1 if v == value else c}" for v, c in counts)
                out[str(Card(colour, value))] = {
                    "what": f"{COLOUR_NAMES[colour]} card of value {value}, {copies} per colour",
                    "option": "values", "file": "", "line": None, "fix": f"values={fewer}"}
        return out

    def _score_history(self, s: DaoState) -> list[list[int]]:
        """Every seat's running score after each round of ``n`` turns (the last round may be
        short), rebuilt from ``events``: ``history[round][seat]``."""
        n = s.n
        bonus = s.params.bonus(n)
        history, cur = [], list(bonus)
        events = s.events
        k = 0
        for r in range(-(-s.turn // n)):
            end = (r + 1) * n
            while k < len(events) and events[k][0] <= end:
                cur[events[k][1]] = bonus[events[k][1]] + events[k][2]
                k += 1
            history.append(list(cur))
        return history

    # -- for `analyser check` -----------------------------------------------------------------
    def step_bound(self, params: DaoParams, n_players: int) -> int:
        """Every action reveals a deck card or takes a display card, and each card is revealed and
        taken at most once: at most twice the deck size."""
        return 2 * len(full_deck(params.colours, params.values))

    def check_invariants(self, s: DaoState) -> None:
        """Cards are conserved: deck + reserve + display + piles + out = the full deck (as a
        multiset), ``total`` matches the display, ``unseen`` matches deck + reserve, and
        ``gain``/``held`` match the current half's cards.  Raises AssertionError."""
        everything = Counter(s.deck) + Counter(s.reserve) + Counter(s.display) + Counter(s.out)
        for pile in s.piles:
            everything += Counter(pile)
        assert everything == Counter(full_deck(s.params.colours, s.params.values)), "cards not conserved"
        assert s.total == sum(c[1] for c in s.display), "display total"
        hidden = Counter(s.deck) + Counter(s.reserve)
        for c, row in enumerate(s.unseen):
            for v, k in enumerate(row):
                assert hidden[Card(c, v)] == k, "unseen composition"
        for seat, pile in enumerate(s.piles):
            start = s.half_marks[seat][-1] if (s.half_marks[seat] and not s.over) else (
                s.half_marks[seat][-2] if len(s.half_marks[seat]) > 1 else 0)
            cards = pile[start:]
            gain = [0] * s.params.colours
            for c, v in cards:
                gain[c] += v + 1
            assert s.gain[seat] == gain and s.held[seat] == len(cards), "gain/held"

    # -- saved states --------------------------------------------------------------------
    def state_schema(self):
        """The saved-state schema (:mod:`analyser.io.states`); one deck is :meth:`check_invariants`' job."""
        return _state_schema(self.min_players, self.max_players)


@lru_cache(maxsize=None)
def _state_schema(min_players: int, max_players: int):
    from pydantic import model_validator

    from analyser.io.states import StateModel, fixed, items, seat_lists, text, whole

    deck_max = 10000  # DaoParams.validate: at most 10,000 cards
    card = fixed(whole(0, 9), whole(0, deck_max))  # colours 1-10; values as the values option allows
    cards = items(card, deck_max)
    seat = whole(0, max_players - 1)

    class DaoStateSchema(StateModel):
        game: Literal["dao"] = "dao"
        params: dict[text(40), bool | int | float | text(4096)] = {}
        n: whole(min_players, max_players)
        deck: cards
        reserve: cards = []
        display: cards
        total: whole(0, 10 * deck_max) = 0
        piles: items(cards, max_players)
        gain: items(items(whole(0, 10 * deck_max), 10), max_players)
        held: items(whole(0, deck_max), max_players)
        half_scores: items(items(whole(-deck_max, 10 * deck_max), 2), max_players)
        half_marks: items(items(whole(0, deck_max), 2), max_players)
        out: cards = []
        unseen: items(items(whole(0, deck_max), deck_max), 10)
        n_unseen: whole(0, deck_max)
        current: seat = 0
        starter: seat = 0
        turn: whole(0, 2 * deck_max) = 0  # each turn reveals or takes a card: at most twice the deck
        busts: items(whole(0, 10**9), max_players)
        over: bool = False
        half: whole(0, 1) = 0
        events: items(fixed(whole(0, 2 * deck_max + 1), seat, whole(-(10**6), 10**6)), 4 * deck_max) = []

        @model_validator(mode="after")
        def _per_seat(self):
            n = self.n
            seat_lists(self, n, "piles", "gain", "held", "half_scores", "half_marks", "busts")
            for name in ("current", "starter"):
                if getattr(self, name) >= n:
                    raise ValueError(f"{name} is seat {getattr(self, name)}; there are {n} seats")
            if any(e[1] >= n for e in self.events):
                raise ValueError(f"events must name seats below {n}")
            if [e[0] for e in self.events] != sorted(e[0] for e in self.events):
                raise ValueError("events must be in turn order")
            for k, marks in enumerate(self.half_marks):
                pile = len(self.piles[k])
                if list(marks) != sorted(marks) or any(m > pile for m in marks):
                    raise ValueError(f"half_marks[{k}] must rise and stay within the seat's pile of {pile} cards")
            return self

    return DaoStateSchema
