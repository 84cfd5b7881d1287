"""Built-in DAO strategies (analyser/titles/dao/rules.md).  Each sees a :class:`~analyser.titles.dao.rules.DaoView`.

Listed by ``analyser list``; used as ``--strategy NAME[:key=value,...]``.
"""

from __future__ import annotations

from analyser.engine.core import Strategy
from analyser.titles.dao.rules import REVEAL, TAKE

GAME = "dao"


class Random(Strategy):
    """Take or reveal with equal probability."""

    name = "random"
    reuse = True  # reset (or nothing) restores every game: one instance per batch
    game = GAME

    def choose(self, view, legal, rng):
        return legal[0] if rng.random() < 0.5 else legal[1]


class Threshold(Strategy):
    """Reveal while the display total is at most `limit` and the deck is not empty; otherwise take
    the front card.

    limit: display total (card values) up to which it still reveals; default 10.
    """

    name = "threshold"
    reuse = True  # reset (or nothing) restores every game: one instance per batch
    game = GAME
    uses_rng = False
    #: a display total, so from 0 to the largest bust_limit a rule accepts
    param_bounds = {"limit": (0, 100_000)}

    def __init__(self, limit: int = 10):
        self.limit = limit

    def choose(self, view, legal, rng):
        # "and the deck is not empty" always holds while the game runs: revealing the last card
        # ends it (analyser/titles/dao/rules.md End), so no decision is ever asked with an empty deck.
        return REVEAL if view.total <= self.limit else TAKE


def take_gain(gain, card) -> int:
    """Change of a seat's score from taking ``card``.

    ``gain[colour]`` is the seat's value sum plus card count per colour this half (see
    :class:`~analyser.titles.dao.rules.DaoState`); the net score with colour k is ``gain[k] - held``.
    Taking (c, v) raises ``gain[c]`` by v + 1 and ``held`` by 1.
    """
    c, v = card
    top = max(gain)
    if gain[c] == top:
        other = max(gain[:c] + gain[c + 1:]) if len(gain) > 1 else -10**9
    else:
        other = top
    mine = gain[c] + v + 1
    return (mine if mine > other else other) - 1 - top


def reveal_gain(view, gain) -> float:
    """Expected change of the seat's score from a reveal, over the unseen cards.

    A reveal that does not bust changes nothing; a bust counts as taking the whole display plus
    the new card.  The next card is taken as uniform over ``view.unseen`` (the public composition,
    analyser/titles/dao/rules.md).  ``gain`` as in :func:`take_gain`.
    """
    p = view.params
    unseen = view.unseen
    top_v = len(unseen[0]) - 1
    room = p.bust_limit - view.total          # a new card of value v busts when v > room
    if room >= top_v:
        return 0.0
    lo = room + 1 if room >= 0 else 0         # the bust values are lo..top_v
    display = view.display
    ex = p.equal_exception
    skip = display[-1][1] if ex == "adjacent" else (display[0][1] if ex == "front" else -1)
    # A[k]: gain after taking the display (before the new card)
    a = gain[:]
    for c, v in display:
        a[c] += v + 1
    top_a = max(a)
    arg = a.index(top_a)
    second_a = max(a[:arg] + a[arg + 1:]) if len(a) > 1 else -10**9
    lose = len(display) + 1 + max(gain)       # held grows by |D| + 1
    total = 0
    for c, counts in enumerate(unseen):
        other = second_a if c == arg else top_a
        base = a[c] + 1
        if base + top_v <= other:
            # the new card cannot lift this colour above the best other colour: every bust
            # value scores the same, so only the number of such cards matters
            n = sum(counts[lo:])
            if lo <= skip <= top_v:
                n -= counts[skip]
            total += n * (other - lose)
            continue
        for v in range(lo, top_v + 1):
            cnt = counts[v]
            if cnt and v != skip:
                x = base + v
                total += cnt * ((x if x > other else other) - lose)
    return total / view.n_unseen


class Greedy(Strategy):
    """Choose the action with the higher expected immediate change in its own score.

    A take is worth the change the front card makes; a reveal is averaged over the unseen cards
    (public composition), a bust counting as taking the whole display.  Ties reveal.
    """

    name = "greedy"
    reuse = True  # reset (or nothing) restores every game: one instance per batch
    game = GAME
    uses_rng = False

    def choose(self, view, legal, rng):
        gain = view.gain[view.seat]
        take = take_gain(gain, view.display[0])
        return TAKE if take > reveal_gain(view, gain) else REVEAL


class Colour(Strategy):
    """Commit to its best colour and take only cards of that colour worth at least `min_value`;
    otherwise reveal.  With no cards yet, any card worth at least `start` starts its colour.

    min_value: the least value of a committed-colour card it takes; default 1.
    start: the least value of a first card; default 2.
    """

    name = "colour"
    reuse = True  # reset (or nothing) restores every game: one instance per batch
    game = GAME
    uses_rng = False
    #: card values, which the values rule bounds to 0..1000
    param_bounds = {"min_value": (0, 1000), "start": (0, 1000)}

    def __init__(self, min_value: int = 1, start: int = 2):
        self.min_value = min_value
        self.start = start

    def choose(self, view, legal, rng):
        c, v = view.display[0]
        if not view.held[view.seat]:  # no cards this half: nothing to commit to yet
            return TAKE if v >= self.start else REVEAL
        gain = view.gain[view.seat]
        best = gain.index(max(gain))  # ties: the lowest colour index
        return TAKE if c == best and v >= self.min_value else REVEAL


STRATEGIES = [Random, Threshold, Greedy, Colour]
DEFAULT_LINEUP = ["greedy", "threshold", "colour", "random"]
