"""Built-in Wizard strategies (RULES.md §Wizard).  Each sees a :class:`~analyser.games.wizard.WizardView`.

A Wizard strategy is a bidding policy plus a playing policy, combined in one spec::

    bot:bid=expected,play=greedy,bias=-0.5      (also spelt wizard-bot:...)
    bot:bid=montecarlo,samples=30

Bidding policies (``bid=``):

* ``random`` - a uniformly random legal bid.
* ``expected`` - the sum over the hand of each card's estimated chance of winning a trick
  (:func:`card_chances`), plus ``bias``, rounded and clipped to the legal bids.
* ``zero`` - always bid 0 (the nearest legal bid when the hook forbids 0).
* ``montecarlo`` - deal the cards this seat cannot see (not in its hand, not the turned card, not
  played) at random to the other seats, ``samples`` times; play each deal to the end of the round
  with the playing policy in every seat (other seats' missing bids come from ``expected``), and bid
  the most frequent number of tricks this seat took (ties: the higher expected score).

Playing policies (``play=``): ``random`` (uniform over the legal cards) and ``greedy`` (see
:func:`greedy_play`).  With ``wizard_trump=dealer_chooses`` every bot names the suit it holds most
of (ties: the higher rank total, then suit order).  Bids always come from the legal list, so the
hook rule is respected.
"""

from __future__ import annotations

import math

from analyser.core import InputError, Strategy
from analyser.games.wizard import (CHOOSE_TRUMP, FULL_DECK, HAND_ORDER, JESTER, PLAY, TRUMP, WIZARD, Bid,
                                   WizardState)
from analyser.games.wizard import GAME as WIZARD_GAME

GAME = "wizard"

BID_POLICIES = ("random", "expected", "zero", "montecarlo")
PLAY_POLICIES = ("random", "greedy")

#: How many of an opponent's cards that could beat ours are, on average, played into the same
#: trick, per trick in the round (a higher card tends to meet high cards: a little above 1).
COLLIDE = 1.5
#: Chance that a side-suit card gets a trick in which its suit is led (or it leads).
LED_FACTOR = 0.85


# --------------------------------------------------------------------------------------------
# Bidding
# --------------------------------------------------------------------------------------------

def card_chances(view) -> list[float]:
    """Estimated chance that each card of the hand (in hand order) wins a trick this round.

    Bids are made before any card of the round is played, so the cards the seat cannot see are
    the 60 minus its hand and the turned card.  Each of them sits in an opponent's hand with
    chance ``q = (players - 1) x hand_size / unseen``, and a card of an opponent's that could beat
    ours lands in the same trick with chance about ``min(1, COLLIDE / hand_size)``.  With ``b``
    such cards, the chance that none does is ``exp(-b x lam)``, ``lam`` = the product of the two.
    Beaters: of a Wizard, half the unseen Wizards (only an earlier one wins); of a trump, the
    unseen Wizards and higher trumps; of a side-suit card, the unseen Wizards, the unseen higher
    cards of its suit and the unseen trumps times the chance an opponent holds none of its suit -
    and a side-suit card only wins if its suit is led, so it is scaled by ``LED_FACTOR``.  A
    Jester never wins.  An undecided trump (a turned Wizard under ``first_card``) counts as none.
    """
    hand = view.hand
    size = len(hand)
    if not size:
        return []
    pub = view.public
    tc = pub.trump_card
    trump = pub.trump
    unseen = 60 - size - (tc is not None) - len(pub.played) - len(pub.trick)
    count = [0, 0, 0, 0]
    wizards = 4
    for c in hand:
        r = c.rank
        if r == WIZARD:
            wizards -= 1
        elif r != JESTER:
            count[c.suit] += 1
    tc_suit, tc_rank = None, 0
    if tc is not None:
        if tc.rank == WIZARD:
            wizards -= 1
        elif tc.rank != JESTER:
            tc_suit, tc_rank = tc.suit, tc.rank
    if unseen <= 0:
        return [1.0 if c.rank == WIZARD else 0.0 for c in hand]
    q = min(1.0, (pub.n - 1) * size / unseen)
    lam = q * min(1.0, COLLIDE / size)
    exp = math.exp
    trump_unseen = 0
    if trump is not None:
        trump_unseen = 13 - count[trump] - (tc_suit == trump)
    above = [0, 0, 0, 0]
    out = [0.0] * size
    for i in range(size - 1, -1, -1):  # hand order is ascending within a suit
        c = hand[i]
        r = c.rank
        if r == WIZARD:
            out[i] = exp(-0.5 * wizards * lam)
        elif r != JESTER:
            s = c.suit
            higher = 13 - r - above[s] - (tc_suit == s and tc_rank > r)
            above[s] += 1
            if s == trump:
                out[i] = exp(-(wizards + higher) * lam)
            else:
                b = wizards + higher
                if trump is not None:
                    in_suit = 13 - count[s] - (tc_suit == s)
                    b += trump_unseen * (1.0 - in_suit / unseen) ** size
                out[i] = LED_FACTOR * exp(-b * lam)
    return out


def expected_tricks(view) -> float:
    """Sum of :func:`card_chances` over the hand."""
    return sum(card_chances(view))


def nearest_bid(target: int, legal) -> Bid:
    """The legal bid nearest ``target`` (ties: the lower bid).  ``legal`` is ascending."""
    best = legal[0]
    for b in legal:
        if abs(b.n - target) < abs(best.n - target):
            best = b
    return best


def bid_expected(view, legal, bias: float = 0.0) -> Bid:
    """``expected`` bidding: round(expected tricks + bias) clipped to 0..r, else the nearest legal."""
    r = view.public.round
    target = max(0, min(r, round(expected_tricks(view) + bias)))
    if len(legal) == r + 1:  # no bid is hooked
        return legal[target]
    return nearest_bid(target, legal)


def choose_trump(view):
    """The suit the seat holds most of (ties: higher rank total, then suit order)."""
    count = [0] * 4
    total = [0] * 4
    for c in view.hand:
        if JESTER < c.rank < WIZARD:
            count[c.suit] += 1
            total[c.suit] += c.rank
    best = max(range(4), key=lambda s: (count[s], total[s], -s))
    return CHOOSE_TRUMP[best]


# --------------------------------------------------------------------------------------------
# Playing
# --------------------------------------------------------------------------------------------

def power(card, trump) -> int:
    """A card's strength for the greedy policy: Jester 0, side suit 1-13, trump 51-63, Wizard 100."""
    r = card.rank
    if r == WIZARD:
        return 100
    if r == JESTER:
        return 0
    if card.suit == trump:
        return 50 + r
    return r


def greedy_play(view, legal):
    """``greedy`` playing.  Short of its bid: lead its strongest card; when following, win the
    trick with the cheapest card that takes the lead, or else throw its weakest card.  At or over
    its bid: lead its weakest card; when following, play the strongest card that stays below the
    current winner (shedding danger safely); if every card would take the lead, play the strongest
    when last to play (the trick is its anyway) and the weakest otherwise.  "Strongest" and
    "weakest" follow :func:`power`; ties go to the first in hand order.  (:func:`power` and
    :func:`~analyser.games.wizard.beats` are inlined here for speed.)"""
    seat = view.seat
    pub = view.public
    short = pub.bids[seat] > pub.tricks[seat]
    trump = pub.trump
    trick = pub.trick
    if not trick:
        best = None
        bp = -1 if short else 1000
        for a in legal:
            c = a.card
            r = c.rank
            p = 100 if r == WIZARD else 0 if r == JESTER else 50 + r if c.suit == trump else r
            if (p > bp) if short else (p < bp):
                best, bp = a, p
        return best
    w = pub.win_card
    wr = w.rank
    if wr == WIZARD:  # nothing can take the trick
        best = None
        bp = 1000 if short else -1
        for a in legal:
            c = a.card
            r = c.rank
            p = 100 if r == WIZARD else 0 if r == JESTER else 50 + r if c.suit == trump else r
            if (p < bp) if short else (p > bp):
                best, bp = a, p
        return best
    w_jester = wr == JESTER
    w_trump = not w_jester and w.suit == trump
    led = pub.led
    last = len(trick) == pub.n - 1
    win_best = lose_best = None
    if short:
        wp = lp = 1000
    else:
        lp = -1
        wp = -1 if last else 1000
    for a in legal:
        c = a.card
        r = c.rank
        if r == WIZARD:
            p, wins = 100, True
        elif r == JESTER:
            p, wins = 0, False
        else:
            s = c.suit
            if s == trump:
                p = 50 + r
                wins = w_jester or not w_trump or r > wr
            else:
                p = r
                wins = w_jester or (not w_trump and s == led and r > wr)
        if wins:
            if (p > wp) if (last and not short) else (p < wp):
                win_best, wp = a, p
        elif (p < lp) if short else (p > lp):
            lose_best, lp = a, p
    if short:
        return win_best if win_best is not None else lose_best
    return lose_best if lose_best is not None else win_best


def random_play(view, legal, rng):
    return legal[rng.randrange(len(legal))]


# --------------------------------------------------------------------------------------------
# Monte Carlo bidding
# --------------------------------------------------------------------------------------------

def sample_state(view, rng) -> WizardState:
    """A full state consistent with ``view`` (bidding phase): the cards the seat cannot see are
    shuffled and dealt to the other seats; the sample ends after this round."""
    n = view.n_players
    seat = view.seat
    pool = list(FULL_DECK)
    for c in view.hand:
        pool.remove(c)
    if view.trump_card is not None:
        pool.remove(view.trump_card)
    for c in view.played:
        pool.remove(c)
    for c in view.trick:
        pool.remove(c)
    rng.shuffle(pool)
    r = view.public.round
    hands = []
    k = 0
    for s in range(n):
        if s == seat:
            hands.append(list(view.hand))
        else:
            h = pool[k:k + r]
            h.sort(key=HAND_ORDER)
            hands.append(h)
            k += r
    wiz = [h.count(FULL_DECK[-1]) for h in hands]
    jes = [h.count(FULL_DECK[0]) for h in hands]
    return WizardState(params=view.params, n=n, n_rounds=r, round=r, phase=view.phase, dealer=view.dealer,
                       starter=view.starter, current=seat, hands=hands, deck=pool[k:],
                       trump_card=view.trump_card, trump=view.trump, trump_pending=view.trump_pending,
                       bids=list(view.bids), n_bids=sum(b is not None for b in view.bids),
                       tricks=list(view.tricks), scores=list(view.scores), played=list(view.played),
                       leaders=list(view.leaders), trick=list(view.trick), led=view.led,
                       win_seat=view.win_seat, win_card=view.win_card, wizards=wiz, jesters=jes, log=[],
                       tricks_played=0)


def rollout_tricks(view, own_bid: int, rng, play: str) -> int:
    """Tricks this seat takes in one sampled deal, bidding ``own_bid`` and playing ``play`` in
    every seat (other seats bid with ``expected``)."""
    g = WIZARD_GAME
    s = sample_state(view, rng)
    seat = view.seat
    while s.phase != "over":
        cur = s.current
        legal = g.legal_actions(s)
        if len(legal) == 1:
            a = legal[0]
        elif s.phase == PLAY:
            v = g.view(s, cur)
            a = greedy_play(v, legal) if play == "greedy" else random_play(v, legal, rng)
        elif s.phase == TRUMP:
            a = choose_trump(g.view(s, cur))
        elif cur == seat:
            a = nearest_bid(own_bid, legal)
        else:
            a = bid_expected(g.view(s, cur), legal)
        g.apply(s, a, rng)
    return s.tricks[seat] if not s.log else s.log[-1]["tricks"][seat]


def bid_montecarlo(view, legal, rng, samples: int, play: str) -> Bid:
    """``montecarlo`` bidding (see the module docstring)."""
    guess = max(0, min(view.round, round(expected_tricks(view))))
    counts = [0] * (view.round + 1)
    for _ in range(samples):
        counts[rollout_tricks(view, guess, rng, play)] += 1
    total = max(1, samples)

    def expected_score(b):
        return sum(c * (20 + 10 * t if t == b else -10 * abs(t - b)) for t, c in enumerate(counts)) / total

    return max(legal, key=lambda a: (counts[a.n], expected_score(a.n), -a.n))


# --------------------------------------------------------------------------------------------
# Strategies
# --------------------------------------------------------------------------------------------

class Bot(Strategy):
    """A bidding policy plus a playing policy: bid=random|expected|zero|montecarlo,
    play=random|greedy.

    bid: bidding policy (random, expected, zero, montecarlo); default expected.
    play: playing policy (random, greedy); default greedy.
    bias: added to the expected number of tricks before rounding (bid=expected); default 0.
    samples: sampled deals per bid (bid=montecarlo); default 20.
    """

    name = "bot"
    game = GAME

    def __init__(self, bid: str = "expected", play: str = "greedy", bias: float = 0.0, samples: int = 20):
        if bid not in BID_POLICIES:
            raise InputError(f"strategy parameter bid={bid!r} is not accepted; choose one of: "
                             + ", ".join(BID_POLICIES))
        if play not in PLAY_POLICIES:
            raise InputError(f"strategy parameter play={play!r} is not accepted; choose one of: "
                             + ", ".join(PLAY_POLICIES))
        if samples < 1:
            raise InputError(f"strategy parameter samples={samples} is not accepted; give at least 1")
        self.bid = bid
        self.play = play
        self.bias = float(bias)
        self.samples = int(samples)

    def choose(self, view, legal, rng):
        phase = view.public.phase
        if phase == PLAY:
            if self.play == "greedy":
                return greedy_play(view, legal)
            return legal[rng.randrange(len(legal))]
        if phase == TRUMP:
            return choose_trump(view)
        kind = self.bid
        if kind == "expected":
            return bid_expected(view, legal, self.bias)
        if kind == "zero":
            return nearest_bid(0, legal)
        if kind == "random":
            return legal[rng.randrange(len(legal))]
        return bid_montecarlo(view, legal, rng, self.samples, self.play)


class WizardBot(Bot):
    """Another name for `bot` (same parameters)."""

    name = "wizard-bot"


class RandomPreset(Bot):
    """Random legal bids and random legal cards (bot:bid=random,play=random)."""

    name = "random"

    def __init__(self):
        super().__init__(bid="random", play="random")


class ExpectedPreset(Bot):
    """Bid the expected number of tricks plus bias, play greedily (bot:bid=expected,play=greedy).

    bias: added to the expected number of tricks before rounding; default 0.
    """

    name = "expected"

    def __init__(self, bias: float = 0.0):
        super().__init__(bid="expected", play="greedy", bias=bias)


STRATEGIES = [Bot, WizardBot, RandomPreset, ExpectedPreset]

