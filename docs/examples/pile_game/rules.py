"""Pile: a card game with hidden hands and a draw pile, in the shape of every title.

Each seat holds a hand of cards (numbers 1 to ``top``, ``copies`` of each).  On its turn a seat
plays one card face up onto the shared pile, then draws from the deck.  If the pile's total is
exactly ``limit``, the seat scores the pile's card count and the pile is cleared; over ``limit``
it loses one point and the pile is cleared.  The game ends when no seat holds a card.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from analyser import (TRACE_COLUMN, Game, InputError, Metric, Params, Strategy, View, encode_trace, face_down,
                      face_up, option, seat_counters, seat_zones)


@dataclass(frozen=True)
class PileParams(Params):
    top: int = option(9, "highest card value", low=2, high=20)
    copies: int = option(4, "copies of each value in the deck", low=1, high=10)
    hand: int = option(3, "cards in each starting hand", low=1, high=10)
    limit: int = option(15, "pile total that scores", low=2, high=200)


@dataclass(slots=True)
class PileState:
    params: PileParams
    n: int
    deck: list[int] = face_down()          # face down: its size is public
    hands: list[list[int]] = seat_zones()  # each seat sees its own
    pile: list[int] = face_up()          # face up
    scores: list[int] = seat_counters()
    history: list[list[int]] = field(default_factory=list)  # the scores after each turn
    current: int = 0
    turns: int = 0


class PileView(View):
    """What a seat sees: ``hand``, ``hands_sizes``, ``deck_size``, ``pile``, ``scores``, ..."""

    __slots__ = ()

    @property
    def total(self) -> int:
        return sum(self.pile)


class Pile(Game):
    id = "pile"
    name = "Pile"
    summary = "play a card on the pile; hit the limit exactly to score"
    min_players, max_players, default_players = 2, 4, 3
    Params, State, View = PileParams, PileState, PileView
    metric_columns = ("turns", Metric(TRACE_COLUMN, "trace", missing=True))

    def check_players(self, params: PileParams, n_players: int) -> None:
        super().check_players(params, n_players)
        if n_players * params.hand > params.top * params.copies:
            raise InputError(f"--players {n_players} with hand={params.hand} needs more than the "
                             f"{params.top * params.copies} cards of the deck; lower hand or raise copies")

    def initial_state(self, params: PileParams, n_players: int, rng) -> PileState:
        cards = [v for v in range(1, params.top + 1) for _ in range(params.copies)]
        rng.shuffle(cards)
        hands_ = [[cards.pop() for _ in range(params.hand)] for _ in range(n_players)]
        return PileState(params, n_players, deck=cards, hands=hands_, scores=[0] * n_players)

    def current_player(self, s: PileState) -> int:
        return s.current

    def legal_actions(self, s: PileState) -> list[int]:
        """The distinct values in the hand of the seat to play, ascending; none once over."""
        return sorted(set(s.hands[s.current]))

    def apply(self, s: PileState, card: int, rng) -> None:
        seat = s.current
        s.hands[seat].remove(card)
        s.pile.append(card)
        total = sum(s.pile)
        if total >= s.params.limit:
            s.scores[seat] += len(s.pile) if total == s.params.limit else -1
            s.pile.clear()
        if s.deck:
            s.hands[seat].append(s.deck.pop())
        s.turns += 1
        s.history.append(list(s.scores))
        s.current = next((k % s.n for k in range(seat + 1, seat + 1 + s.n) if s.hands[k % s.n]), seat)

    def is_terminal(self, s: PileState) -> bool:
        return not any(s.hands)

    def scores(self, s: PileState) -> list[int]:
        return list(s.scores)

    def metrics(self, s: PileState) -> list[dict]:
        trace = encode_trace(s.history, s.n)
        return [{"turns": s.turns, TRACE_COLUMN: trace[k]} for k in range(s.n)]

    def step_bound(self, params: PileParams, n_players: int) -> int:
        return params.top * params.copies


TITLE = Pile()


class Closest(Strategy):
    """Play the card that brings the pile nearest the limit without passing it, else the lowest."""

    name = "closest"
    game = "pile"
    uses_rng = False
    reuse = True

    def choose(self, view: PileView, legal, rng):
        room = view.params.limit - view.total
        fitting = [c for c in legal if c <= room]
        return max(fitting) if fitting else min(legal)


class Random(Strategy):
    """A legal card at random."""

    name = "random"
    game = "pile"
    reuse = True

    def choose(self, view, legal, rng):
        return rng.choice(legal)
