"""DAO (published as Dodekka): press-your-luck set collection.  RULES.md section "DAO (Dodekka)".

This module is the model the other titles copy: ``DaoParams`` (every rule option), ``DaoState``
(plain data with a JSON round trip), ``DaoView`` (what one seat may see) and ``Dao`` (the
stateless forward model).

Rules implemented (RULES.md §DAO):

* 60 cards, 5 colours x values ``0x1,1x4,2x3,3x3,4x1``; 3 revealed into the display; seat 0 starts.
* A turn is one action: :data:`TAKE` the front card (``display[0]``) or :data:`REVEAL` the top deck
  card onto the far end of the display.  After a reveal, if the display total exceeds
  ``bust_limit`` the active player takes the whole display (a *bust*), unless the equal-value
  exception applies (``equal_exception``).
* Refill: whenever the display is empty, ``display_size`` cards are revealed at once.
* End: the moment the last deck card is revealed.  A reveal of the last card resolves as any reveal
  (bust and exception included), then the game ends and the display leaves the game.  If the last
  card comes out during a refill the game ends there and nobody takes the display.
* Scoring: best net colour (sum of that colour minus one per other card); no cards scores 0.
* Ties: ``tie_break``.  Two-player variant: ``two_player_halves``.

Rulings where RULES.md is silent (each is fixed unless named as an option):

* ``two_player_halves=auto`` (default) turns the variant on at exactly 2 players; ``on`` plays
  halves at any player count and ``off`` never.  With halves the *first* half is the top
  ``floor(deck/2)`` cards of the shuffled deck; each half is scored on its own cards and the two
  half scores add up; ``tie_break=most_cards`` counts the cards of both halves.  The seat after
  the first half's starter starts the second half (RULES.md: the player who did not start).
* A refill when the deck holds fewer than ``display_size`` cards reveals what is left.
* A refill never busts: it is a setup step, not a reveal (the seed says "as at setup").
* ``unseen`` in a view counts every card not yet seen, including the other half's cards in the
  two-player variant: the split is random, so the next card is uniform over all unseen cards.
* Game length (``turns``) counts actions; the refill is not an action.

Actions are the two singletons :data:`TAKE` and :data:`REVEAL` (an enum, readable and hashable);
``legal_actions`` always returns ``(TAKE, REVEAL)`` in that order, because while the game runs the
display is never empty and the deck never is.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from analyser.core import Game, InputError, Params, option

COLOUR_NAMES = ("metal", "fire", "earth", "wood", "water", "gold", "sky", "stone", "ice", "shadow")


class Card(NamedTuple):
    """One card: ``colour`` index (0 = metal, 1 = fire, 2 = earth, 3 = wood, 4 = water) and value."""

    colour: int
    value: int

    def __str__(self) -> str:
        return f"{COLOUR_NAMES[self.colour]} {self.value}"


class Action(enum.Enum):
    """A DAO action (RULES.md §DAO, Turn)."""

    TAKE = "take"
    REVEAL = "reveal"

    def __str__(self) -> str:
        return self.value


TAKE = Action.TAKE
REVEAL = Action.REVEAL
LEGAL = (TAKE, REVEAL)


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
        if not sep or value < 0 or copies < 0:
            raise InputError(f"rule values={text!r} is not accepted; write value x copies with "
                             "values and copies >= 0, e.g. 0x1,1x4,2x3,3x3,4x1")
        out.append((value, copies))
    return tuple(out)


@dataclass(frozen=True)
class DaoParams(Params):
    """Rule options of DAO (RULES.md §DAO).  Defaults are the seed's rules."""

    bust_limit: int = option(12, "display total above which a reveal busts (RULES.md §DAO Turn)", low=0)
    display_size: int = option(3, "cards revealed into an empty display (setup and refill)", low=1, high=20)
    colours: int = option(5, "number of colours (metal, fire, earth, wood, water, ...)", low=1, high=10)
    values: str = option("0x1,1x4,2x3,3x3,4x1", "cards of each colour, as value x copies")
    equal_exception: str = option(
        "adjacent", "reveal equal in value to the card it is laid next to (adjacent), to the front "
        "card (front), or no exception (off) keeps the display (RULES.md ruling)",
        choices=("adjacent", "front", "off"))
    tie_break: str = option("most_cards", "tied top scores: more cards wins, else shared (most_cards); "
                            "always shared (shared)", choices=("most_cards", "shared"))
    two_player_halves: str = option(
        "auto", "play two halves of the deck and add the scores: auto = only at 2 players",
        choices=("auto", "on", "off"))

    def validate(self) -> None:
        counts = parse_values(self.values)
        if sum(c for _, c in counts) * self.colours < self.display_size + 1:
            raise InputError(f"rule values={self.values!r} with colours={self.colours} makes too small a "
                             f"deck for display_size={self.display_size}")

    @property
    def value_counts(self) -> tuple[tuple[int, int], ...]:
        return parse_values(self.values)

    def halves(self, n_players: int) -> bool:
        """Whether the two-halves variant is played at ``n_players``."""
        return self.two_player_halves == "on" or (self.two_player_halves == "auto" and n_players == 2)


@lru_cache(maxsize=64)
def full_deck(colours: int, values: str) -> tuple[Card, ...]:
    """The unshuffled deck, colour-major, ascending value (cached per composition)."""
    return tuple(Card(c, v) for c in range(colours) for v, n in parse_values(values) for _ in range(n))


class DaoState:
    """Full DAO state, hidden information included.

    * ``deck``: the current half's face-down deck, top card last; ``reserve``: the second half.
    * ``display``: face-up cards, the takeable front card first.
    * ``piles[seat]``: every card the seat took, in order; ``net[seat][colour]``: the seat's net score
      with that colour in the current half (colour sum minus the other cards), kept incrementally.
    * ``half_scores[seat]``: scores of finished halves; ``half_marks[seat]``: the pile length at the
      end of each finished half.
    * ``unseen[colour][value]``: cards not yet seen by anyone (public knowledge).
    """

    __slots__ = ("params", "n", "deck", "reserve", "display", "total", "piles", "net", "half_scores", "half_marks",
                 "unseen", "n_unseen", "current", "starter", "turn", "busts", "over", "half")

    def __init__(self, params, n, deck, reserve, display, total, piles, net, half_scores, half_marks,
                 unseen, n_unseen, current, starter, turn, busts, over, half):
        self.params = params
        self.n = n
        self.deck = deck
        self.reserve = reserve
        self.display = display
        self.total = total
        self.piles = piles
        self.net = net
        self.half_scores = half_scores
        self.half_marks = half_marks
        self.unseen = unseen
        self.n_unseen = n_unseen
        self.current = current
        self.starter = starter
        self.turn = turn
        self.busts = busts
        self.over = over
        self.half = half

    def __eq__(self, other):
        return isinstance(other, DaoState) and all(getattr(self, k) == getattr(other, k) for k in self.__slots__)

    def __getstate__(self):
        return {k: getattr(self, k) for k in self.__slots__}

    def __setstate__(self, d):
        for k, v in d.items():
            setattr(self, k, v)


class DaoView:
    """What a seat sees: everything but the order of the deck.

    ``display`` (front first), ``total``, ``piles``, ``net`` and ``unseen`` are the state's own
    lists - read them, never change them.  ``deck_size`` is the current deck's size.
    """

    __slots__ = ("seat", "display", "total", "piles", "net", "unseen", "n_unseen", "deck_size",
                 "params", "n_players")

    def __init__(self, state: DaoState, seat: int):
        self.seat = seat
        self.display = state.display
        self.total = state.total
        self.piles = state.piles
        self.net = state.net
        self.unseen = state.unseen
        self.n_unseen = state.n_unseen
        self.deck_size = len(state.deck)
        self.params = state.params
        self.n_players = state.n


def scoring_colour_cards(cards) -> int:
    """How many of ``cards`` are of their best net colour (ties: the lowest colour index)."""
    if not cards:
        return 0
    sums: dict[int, list[int]] = {}
    for c, v in cards:
        e = sums.setdefault(c, [0, 0])
        e[0] += v
        e[1] += 1
    best = max(sorted(sums.items()), key=lambda kv: kv[1][0] + kv[1][1])
    return best[1][1]


def best_net(net) -> int:
    """A seat's score for the current half: the best net colour (0 with no cards)."""
    return max(net)


class Dao(Game):
    """The DAO forward model (RULES.md §DAO).  See the module docstring for the rulings."""

    id = "dao"
    name = "DAO (Dodekka)"
    summary = "press-your-luck card collecting: take the front card or reveal and risk a bust"
    min_players = 2
    max_players = 6
    default_players = 4
    Params = DaoParams
    metric_columns = ("cards", "busts", "colour_share", "turns")

    # -- forward model ------------------------------------------------------------------
    def initial_state(self, params: DaoParams, n_players: int, rng) -> DaoState:
        """Shuffle with ``rng`` (a ``random.Random``) and reveal the first display.

        Raises :class:`InputError` if ``n_players`` is outside 2-6.
        """
        if not self.min_players <= n_players <= self.max_players:
            raise InputError(f"players={n_players} is not accepted for dao; choose {self.min_players}"
                             f" to {self.max_players}")
        deck = list(full_deck(params.colours, params.values))
        rng.shuffle(deck)
        reserve: list[Card] = []
        if params.halves(n_players):
            cut = len(deck) - len(deck) // 2
            reserve, deck = deck[:cut], deck[cut:]
        max_v = max(v for v, _ in params.value_counts)
        unseen = [[0] * (max_v + 1) for _ in range(params.colours)]
        for c in full_deck(params.colours, params.values):
            unseen[c[0]][c[1]] += 1
        s = DaoState(params=params, n=n_players, deck=deck, reserve=reserve, display=[], total=0,
                     piles=[[] for _ in range(n_players)],
                     net=[[0] * params.colours for _ in range(n_players)],
                     half_scores=[[] for _ in range(n_players)],
                     half_marks=[[] for _ in range(n_players)], unseen=unseen,
                     n_unseen=len(deck) + len(reserve), current=0, starter=0, turn=0,
                     busts=[0] * n_players, over=False, half=0)
        self._refill(s, params)
        return s

    def current_player(self, s: DaoState) -> int:
        return s.current

    def legal_actions(self, s: DaoState):
        return LEGAL if not s.over else ()

    def is_terminal(self, s: DaoState) -> bool:
        return s.over

    def view(self, s: DaoState, seat: int) -> DaoView:
        return DaoView(s, seat)

    def apply(self, s: DaoState, action, rng=None) -> None:
        """Play ``action`` for the current seat.  Raises ValueError on an illegal action."""
        seat = s.current
        p = s.params
        display = s.display
        if action is TAKE:
            card = display.pop(0)
            s.total -= card[1]
            net = s.net[seat]
            net[card[0]] += card[1] + 1
            for k in range(len(net)):
                net[k] -= 1
            s.piles[seat].append(card)
        elif action is REVEAL:
            card = s.deck.pop()
            s.unseen[card[0]][card[1]] -= 1
            s.n_unseen -= 1
            prev = display[-1]
            front = display[0]
            display.append(card)
            s.total += card[1]
            if s.total > p.bust_limit:
                ex = p.equal_exception
                if not ((ex == "adjacent" and card[1] == prev[1]) or (ex == "front" and card[1] == front[1])):
                    self._gain_all(s, seat)
                    s.busts[seat] += 1
            if not s.deck:
                s.turn += 1
                self._end_half(s, p)
                return
        else:
            raise ValueError(f"illegal DAO action {action!r}; legal: take, reveal")
        s.turn += 1
        s.current = (seat + 1) % s.n
        if not s.display:
            self._refill(s, p)

    def _gain_all(self, s: DaoState, seat: int) -> None:
        net = s.net[seat]
        pile = s.piles[seat]
        for card in s.display:
            net[card[0]] += card[1] + 1
            pile.append(card)
        k = len(s.display)
        for i in range(len(net)):
            net[i] -= k
        s.display = []
        s.total = 0

    def _refill(self, s: DaoState, p: DaoParams) -> None:
        for _ in range(min(p.display_size, len(s.deck))):
            card = s.deck.pop()
            s.unseen[card[0]][card[1]] -= 1
            s.n_unseen -= 1
            s.display.append(card)
            s.total += card[1]
        if not s.deck:
            self._end_half(s, p)

    def _end_half(self, s: DaoState, p: DaoParams) -> None:
        """Score the half; start the second half if there is one, else end the game."""
        for seat in range(s.n):
            s.half_scores[seat].append(best_net(s.net[seat]))
            s.half_marks[seat].append(len(s.piles[seat]))
        s.display = []
        s.total = 0
        if s.reserve:
            s.deck, s.reserve = s.reserve, []
            s.half += 1
            s.net = [[0] * p.colours for _ in range(s.n)]
            s.starter = (s.starter + 1) % s.n
            s.current = s.starter
            self._refill(s, p)
        else:
            s.over = True

    # -- results ------------------------------------------------------------------------
    def scores(self, s: DaoState) -> list[int]:
        """Final (or running) score per seat: finished halves plus the current half."""
        out = []
        for seat in range(s.n):
            done = sum(s.half_scores[seat])
            out.append(done if s.over else done + best_net(s.net[seat]))
        return out

    def winners(self, s: DaoState) -> list[int]:
        """Highest score; ``tie_break=most_cards``: more cards among the tied, else shared."""
        sc = self.scores(s)
        best = max(sc)
        tied = [i for i in range(s.n) if sc[i] == best]
        if len(tied) > 1 and s.params.tie_break == "most_cards":
            most = max(len(s.piles[i]) for i in tied)
            tied = [i for i in tied if len(s.piles[i]) == most]
        return tied

    def metrics(self, s: DaoState) -> list[dict[str, float]]:
        """Per seat: cards taken, busts, the share of cards in the scoring colour, game turns.

        The scoring colour is the best net colour of the seat's cards, per half when halves are
        played (``half_marks``); ``colour_share`` is NaN for
        a seat with no cards.
        """
        out = []
        for seat in range(s.n):
            pile = s.piles[seat]
            share = float("nan")
            if pile:
                marks = [0] + s.half_marks[seat] + ([] if s.over else [len(pile)])
                share = sum(scoring_colour_cards(pile[a:b]) for a, b in zip(marks, marks[1:])) / len(pile)
            out.append({"cards": len(pile), "busts": s.busts[seat], "colour_share": share,
                        "turns": s.turn})
        return out

    # -- persistence and display -----------------------------------------------------------
    def clone_state(self, s: DaoState) -> DaoState:
        return DaoState(s.params, s.n, list(s.deck), list(s.reserve), list(s.display), s.total,
                        [list(p) for p in s.piles], [list(x) for x in s.net],
                        [list(h) for h in s.half_scores], [list(m) for m in s.half_marks],
                        [list(u) for u in s.unseen], s.n_unseen,
                        s.current, s.starter, s.turn, list(s.busts), s.over, s.half)

    def state_to_dict(self, s: DaoState) -> dict:
        """JSON-ready dict; cards are ``[colour, value]`` pairs, decks top card last."""
        def cards(xs):
            return [[c[0], c[1]] for c in xs]
        return {"game": self.id, "params": s.params.as_dict(), "players": s.n, "deck": cards(s.deck), "reserve": cards(s.reserve),
                "display": cards(s.display), "piles": [cards(p) for p in s.piles],
                "net": [list(x) for x in s.net], "half_scores": [list(h) for h in s.half_scores],
                "half_marks": [list(m) for m in s.half_marks],
                "unseen": [list(u) for u in s.unseen], "current": s.current, "starter": s.starter,
                "turn": s.turn, "busts": list(s.busts), "over": s.over, "half": s.half}

    def state_from_dict(self, d: dict) -> DaoState:
        """Inverse of :meth:`state_to_dict`.  Raises InputError on a malformed state."""
        try:
            def cards(xs):
                return [Card(int(c), int(v)) for c, v in xs]
            display = cards(d["display"])
            unseen = [list(map(int, u)) for u in d["unseen"]]
            return DaoState(params=DaoParams(**d.get("params", {})), n=int(d["players"]), deck=cards(d["deck"]), reserve=cards(d["reserve"]),
                            display=display, total=sum(c[1] for c in display),
                            piles=[cards(p) for p in d["piles"]], net=[list(map(int, x)) for x in d["net"]],
                            half_scores=[list(map(int, h)) for h in d["half_scores"]],
                            half_marks=[list(map(int, m)) for m in d["half_marks"]], unseen=unseen,
                            n_unseen=sum(map(sum, unseen)), current=int(d["current"]),
                            starter=int(d["starter"]), turn=int(d["turn"]), busts=list(map(int, d["busts"])),
                            over=bool(d["over"]), half=int(d["half"]))
        except (KeyError, TypeError, ValueError) as e:
            raise InputError(f"not a DAO state: {e!r} is missing or malformed") from None

    def action_to_json(self, action: Action) -> str:
        return action.value

    def action_from_json(self, data) -> Action:
        try:
            return Action(data)
        except ValueError:
            raise InputError(f"unknown DAO action {data!r}; accepted: take, reveal") from None

    def describe_state(self, s: DaoState) -> str:
        disp = ", ".join(str(c) for c in s.display) or "(empty)"
        scores = self.scores(s)
        half = f" half {s.half + 1}" if s.params.halves(s.n) else ""
        lines = [f"deck {len(s.deck)}{half} | display [{disp}] total {s.total}"]
        for seat in range(s.n):
            lines.append(f"  seat {seat}: {len(s.piles[seat])} cards, score {scores[seat]}")
        return "\n".join(lines)

    # -- analysis hooks --------------------------------------------------------------------
    def figure_tables(self, results, extras):
        """DAO figures per strategy: busts per game, cards per player, scoring-colour share."""
        g = results.groupby("strategy", observed=True)
        table = g.agg(busts_per_game=("busts", "mean"), cards_per_player=("cards", "mean"),
                      scoring_colour_share=("colour_share", "mean")).reset_index()
        return [("DAO figures per strategy (means per player per game)", table)]

    def plots(self, results, extras, outdir):
        from analyser import plots
        return [plots.metric_box(results, "cards", "Cards taken per player per game",
                                 "cards in pile at game end", outdir / "cards.png")]


GAME = Dao()
