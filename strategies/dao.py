"""Built-in DAO strategies (RULES.md §DAO).  Each sees a :class:`~analyser.games.dao.DaoView`.

Listed by ``analyser list``; used as ``--strategy NAME[:key=value,...]``.
"""

from __future__ import annotations

from analyser.core import Strategy
from analyser.games.dao import REVEAL, TAKE

GAME = "dao"


class Random(Strategy):
    """Take or reveal with equal probability."""

    name = "random"
    game = GAME

    def choose(self, view, legal, rng):
        return legal[0] if rng.random() < 0.5 else legal[1]


class Threshold(Strategy):
    """Reveal while the display total is at most `limit` and the deck is not empty; otherwise take
    the front card.

    limit: display total (card values) up to which it still reveals; default 8.
    """

    name = "threshold"
    game = GAME
    uses_rng = False

    def __init__(self, limit: int = 8):
        self.limit = limit

    def choose(self, view, legal, rng):
        return REVEAL if view.total <= self.limit and view.deck_size > 0 else TAKE


def take_gain(net, card) -> int:
    """Change of a seat's score (best net colour) from taking ``card``; ``net`` as in DaoState."""
    c, v = card
    best = max(net)
    other = max((x for k, x in enumerate(net) if k != c), default=-10**9)
    return max(net[c] + v, other - 1) - best


def reveal_gain(view, net) -> float:
    """Expected change of the seat's score from a reveal, over the unseen cards.

    A reveal that does not bust changes nothing; a bust counts as taking the whole display plus
    the new card.  The next card is taken as uniform over ``view.unseen`` (the public composition).
    """
    p = view.params
    display = view.display
    total = view.total
    unseen = view.unseen
    limit = p.bust_limit
    ex = p.equal_exception
    last_v = display[-1][1]
    front_v = display[0][1]
    # net after taking the display, before the new card: A[k] = net[k] + sum(v+1 of colour k) - |D| - 1
    size = len(display) + 1
    a = [x - size for x in net]
    for c, v in display:
        a[c] += v + 1
    # top two of A for the "best other colour" of each possible new card
    order = sorted(range(len(a)), key=a.__getitem__, reverse=True)
    top, top_k = a[order[0]], order[0]
    second = a[order[1]] if len(a) > 1 else -10**9
    best = max(net)
    ev = 0.0
    n = view.n_unseen
    for colour, counts in enumerate(unseen):
        other = second if colour == top_k else top
        base = a[colour] + 1
        for v, cnt in enumerate(counts):
            if not cnt or total + v <= limit:
                continue
            if (ex == "adjacent" and v == last_v) or (ex == "front" and v == front_v):
                continue
            ev += cnt * (max(base + v, other) - best)
    return ev / n if n else 0.0


class Greedy(Strategy):
    """Choose the action with the higher expected immediate change in its own score.

    A take is worth the change the front card makes; a reveal is averaged over the unseen cards
    (public composition), a bust counting as taking the whole display.  Ties reveal.
    """

    name = "greedy"
    game = GAME
    uses_rng = False

    def choose(self, view, legal, rng):
        net = view.net[view.seat]
        take = take_gain(net, view.display[0])
        # a reveal cannot bust while even the highest unseen value keeps the total within the limit
        if view.total + len(view.unseen[0]) - 1 <= view.params.bust_limit:
            return TAKE if take > 0 else REVEAL
        return TAKE if take > reveal_gain(view, net) else REVEAL


class Colour(Strategy):
    """Commit to its best colour and take only cards of that colour worth at least `min_value`;
    otherwise reveal.  With no cards yet, any card worth at least `start` starts its colour.

    min_value: the least value of a committed-colour card it takes; default 1.
    start: the least value of a first card; default 2.
    """

    name = "colour"
    game = GAME
    uses_rng = False

    def __init__(self, min_value: int = 1, start: int = 2):
        self.min_value = min_value
        self.start = start

    def choose(self, view, legal, rng):
        c, v = view.display[0]
        net = view.net[view.seat]
        if max(net) == min(net):  # no cards this half (or no colour ahead): nothing to commit to
            return TAKE if v >= self.start else REVEAL
        best = max(range(len(net)), key=net.__getitem__)
        return TAKE if c == best and v >= self.min_value else REVEAL


STRATEGIES = [Random, Threshold, Greedy, Colour]
