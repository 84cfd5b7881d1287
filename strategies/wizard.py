"""Built-in Wizard strategies (analyser/titles/wizard/rules.md).  Each sees a :class:`~analyser.titles.wizard.rules.WizardView`.

A Wizard strategy is a bidding policy plus a playing policy, combined in one spec::

    bot:bid=expected,play=greedy,bias=-0.5      (also spelt wizard-bot:...)
    bot:bid=montecarlo,samples=30

Bidding policies (``bid=``):

* ``random`` - a uniformly random legal bid.
* ``expected`` - the sum over the hand of each card's estimated chance of winning a trick
  (:func:`card_chances`: Wizards, then trumps and side cards by how many unseen cards could beat
  them, against the number of players and the hand size), plus ``bias``, rounded and clipped to
  the legal bids.  Calibrated to be unbiased on average in a field of ``expected`` players.
* ``zero`` - always bid 0 (the nearest legal bid when the hook forbids 0).
* ``montecarlo`` - deal the cards this seat cannot see (not in its hand, not the turned card, not
  played) at random to the other seats, ``samples`` times; play each deal to the end of the round
  with the playing policy in every seat - the bids still missing come from ``expected``, this
  seat's own from ``expected`` without bias - and bid the most frequent number of tricks this seat
  took (ties: the higher expected score, then the lower bid).  Other seats' real bids are used.

Playing policies (``play=``): ``random`` (uniform over the legal cards) and ``greedy`` (see
:func:`greedy_play`).  With ``wizard_trump=dealer_chooses`` a dealing bot names the suit it holds
most of (ties: the higher rank total, then suit order; :func:`choose_trump`), except that a bot
with ``bid=random`` names a random suit.  Bids always come from the legal list, so the hook rule
is respected.
"""

from __future__ import annotations

import math
from functools import partial
from operator import sub

from analyser.engine.core import InputError, Strategy
from analyser.titles.wizard.rules import (CHOOSE_TRUMP, FULL_DECK, HAND_ORDER, JESTER, LED_FREE, LED_NONE, PLAY, PLAYS,
                                   TRUMP, WIZARD, Bid, WizardPublic, WizardState, hand_groups)
from analyser.titles.wizard import TITLE as WIZARD_GAME

GAME = "wizard"

BID_POLICIES = ("random", "expected", "zero", "montecarlo")
PLAY_POLICIES = ("random", "greedy")

#: How many of an opponent's cards that could beat ours are, on average, played into the same
#: trick, per trick in the round (see :func:`card_chances`).
COLLIDE = 2.5
#: Chance that a side-suit card gets a trick in which its suit is led (or it leads).
#: The two constants are tuned so that ``expected`` bidding with ``greedy`` play in all four seats
#: bids about what it takes: mean bid - tricks -0.07 overall and within +-0.25 in every round,
#: 49% exact bids (200 games, 4 players).
LED_FACTOR = 0.7


# --------------------------------------------------------------------------------------------
# Bidding
# --------------------------------------------------------------------------------------------

def _turned(tc, own_wizards: int) -> tuple[int, int | None, int]:
    """What the turned card ``tc`` tells a seat holding ``own_wizards`` Wizards: the Wizards it
    cannot see, and the turned card's suit and rank when it is a suited card (else None, 0)."""
    wizards = 4 - own_wizards
    if tc is None:
        return wizards, None, 0
    if tc.rank == WIZARD:
        return wizards - 1, None, 0
    if tc.rank == JESTER:
        return wizards, None, 0
    return wizards, tc.suit, tc.rank


def card_chances(view) -> list[float]:
    """Estimated chance that each card of the hand (in hand order) wins a trick this round.

    Bids are made before any card of the round is played, so the cards the seat cannot see are
    the 60 minus its hand and the turned card (and any card already played).  Each of them sits
    in an opponent's hand with chance ``q = (players - 1) x hand_size / unseen``, and a card of an
    opponent's that could beat ours lands in the same trick with chance about
    ``min(1, COLLIDE / hand_size)``.  With ``b`` such cards, the chance that none does is
    ``exp(-b x lam)``, ``lam`` being the product of the two.  Beaters: of a Wizard, half the unseen
    Wizards (only an earlier one wins); of a trump, the unseen Wizards and higher trumps; of a
    side-suit card, the unseen Wizards, the unseen higher cards of its suit, and the unseen trumps
    times the chance that an opponent holds none of the suit - and a side-suit card only wins if
    its suit is led, so it is scaled by ``LED_FACTOR``.  A Jester never wins.  An undecided trump
    (a turned Wizard under ``first_card``) counts as no trump.
    """
    groups = view.groups
    lens = [*map(len, groups)]
    size = sum(lens)
    if not size:
        return []
    jesters = lens[0] + lens[6]
    own_wizards = lens[5] + lens[7]
    pub = view.public
    tc = pub.trump_card
    trump = pub.trump
    unseen = 60 - size - (tc is not None) - len(pub.played) - len(pub.trick)
    wizards, tc_suit, tc_rank = _turned(tc, own_wizards)
    if unseen <= 0:
        return [0.0] * (size - own_wizards) + [1.0] * own_wizards
    q = (pub.n - 1) * size / unseen
    lam = (q if q < 1.0 else 1.0) * (COLLIDE / size if size > COLLIDE else 1.0)
    table = _exp_table(lam)
    out = [0.0] * jesters
    trump_unseen = 0 if trump is None else 13 - lens[trump + 1] - (tc_suit == trump)
    for s in range(4):
        k = lens[s + 1]
        if not k:
            continue
        grp = groups[s + 1]
        # beaters of the card at position i (ascending): the unseen Wizards and the 13 - rank
        # higher cards of the suit, less the k - 1 - i own ones above it and the turned card
        top = wizards + 14 - k
        if s == tc_suit:
            chances = [table[top - a.card.rank + i - (tc_rank > a.card.rank)] for i, a in enumerate(grp)]
        else:
            chances = map(table.__getitem__, map(sub, range(top, top + k), map(_RANK, grp)))
        if s != trump:
            factor = LED_FACTOR
            if trump_unseen:
                in_suit = 13 - k - (tc_suit == s)
                factor *= math.exp(-trump_unseen * (1.0 - in_suit / unseen) ** size * lam)
            chances = map(factor.__mul__, chances)
        out += chances
    if own_wizards:
        out += [math.exp(-0.5 * wizards * lam)] * own_wizards
    return out


#: rank of the card of a play action
_RANKS = {a: a.card.rank for a in PLAYS.values()}
_RANK = _RANKS.__getitem__


_EXP_TABLES: dict[float, list[float]] = {}


def _exp_table(lam: float) -> list[float]:
    """``[exp(-b * lam) for b in 0..59]``, cached per ``lam``."""
    t = _EXP_TABLES.get(lam)
    if t is None:
        if len(_EXP_TABLES) > 4096:
            _EXP_TABLES.clear()
        t = _EXP_TABLES[lam] = [math.exp(-b * lam) for b in range(60)]
    return t


def expected_tricks(view) -> float:
    """Sum of :func:`card_chances` over the hand.  Before the round's first card (when bids are
    made) it is computed here with plain loops and no per-card list, for speed."""
    pub = view.public
    if pub.played or pub.trick:
        return sum(card_chances(view))
    groups = view.groups
    size = pub.round
    tc = pub.trump_card
    trump = pub.trump
    unseen = 60 - size - (tc is not None)
    own_wizards = len(groups[5]) + len(groups[7])
    wizards, tc_suit, tc_rank = _turned(tc, own_wizards)
    if unseen <= 0:
        return float(own_wizards)
    q = (pub.n - 1) * size / unseen
    lam = (q if q < 1.0 else 1.0) * (COLLIDE / size if size > COLLIDE else 1.0)
    table = _EXP_TABLES.get(lam) or _exp_table(lam)
    total = math.exp(-0.5 * wizards * lam) * own_wizards if own_wizards else 0.0
    trump_unseen = 0 if trump is None else 13 - len(groups[trump + 1]) - (tc_suit == trump)
    rank = _RANKS
    for s in (0, 1, 2, 3):
        grp = groups[s + 1]
        if not grp:
            continue
        k = len(grp)
        i = wizards + 14 - k  # beaters of the lowest card, plus its rank (see card_chances)
        part = 0.0
        if s == tc_suit:
            for a in grp:
                r = rank[a]
                part += table[i - r - (tc_rank > r)]
                i += 1
        else:
            for a in grp:
                part += table[i - rank[a]]
                i += 1
        if s == trump:
            total += part
        elif trump_unseen:
            total += part * LED_FACTOR * math.exp(
                -trump_unseen * (1.0 - (13 - k - (tc_suit == s)) / unseen) ** size * lam)
        else:
            total += part * LED_FACTOR
    return total


def nearest_bid(target: int, legal) -> Bid:
    """The legal bid nearest ``target`` (ties: the lower bid).  ``legal`` is ascending."""
    best = legal[0]
    for b in legal:
        if abs(b.n - target) < abs(best.n - target):
            best = b
    return best


def bid_expected(view, legal, bias: float = 0.0) -> Bid:
    """``expected`` bidding: expected tricks + bias, rounded half up, clipped to 0..r, else (the
    hook) the nearest legal bid."""
    r = view.public.round
    target = math.floor(expected_tricks(view) + bias + 0.5)
    target = 0 if target < 0 else r if target > r else target
    if len(legal) == r + 1:  # no bid is hooked
        return legal[target]
    return nearest_bid(target, legal)


def choose_trump(view):
    """The suit the seat holds most of (ties: higher rank total, then suit order)."""
    groups = view.groups
    best = max(range(4), key=lambda s: (len(groups[s + 1]), sum(a.card.rank for a in groups[s + 1]), -s))
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


def _key(card, trump, led) -> int:
    """Trick strength: a card played now takes the lead iff its key beats the winner's key.
    Wizard 100, trump 50 + rank, led suit rank, another suit rank while no suit is led (only
    Jesters so far) and 0 once one is, Jester -1.  An earlier Wizard keeps the lead: equal keys
    do not beat."""
    r = card.rank
    if r == WIZARD:
        return 100
    if r == JESTER:
        return -1
    if card.suit == trump:
        return 50 + r
    if card.suit == led or not 0 <= led < 4:
        return r
    return 0


#: ``_POWER[trump][play]`` and ``_KEY[trump][led][play or card]``: the two functions above as dicts
#: over the play actions (and, for ``_KEY``, the cards), for trump None or 0-3 and each led state.
_PLAYS = list(PLAYS.values())
_POWER = {t: {a: power(a.card, t) for a in _PLAYS} for t in (None, 0, 1, 2, 3)}
_KEY = {t: {led: {x: _key(a.card, t, led) for a in _PLAYS for x in (a, a.card)}
            for led in (LED_NONE, 0, 1, 2, 3, LED_FREE)} for t in (None, 0, 1, 2, 3)}


def greedy_play(view, legal):
    """``greedy`` playing.  Short of its bid: lead its strongest card; when following, win the
    trick with the cheapest card that takes the lead, or else throw its weakest card.  At or over
    its bid: lead its weakest card; when following, play the strongest card that stays below the
    current winner (shedding danger safely); if every card would take the lead, play the strongest
    when last to play (the trick is its anyway) and the weakest otherwise.  "Strongest" and
    "weakest" follow :func:`power` (ties: the first in hand order); "takes the lead" follows
    :func:`_key`, which agrees with :func:`~analyser.titles.wizard.rules.beats`."""
    return _greedy(None, view, legal, None)


def _greedy(other, view, legal, rng):
    """:func:`greedy_play` in the phase of play; ``other(view, legal, rng)`` decides otherwise.
    (Plain loops: on a handful of cards they beat ``min``/``max`` with a key function.)"""
    pub = view.public
    if pub.phase != PLAY:
        return other(view, legal, rng)
    seat = view.seat
    trump = pub.trump
    power = _POWER[trump]
    best = legal[0]
    bp = power[best]
    if pub.bids[seat] > pub.tricks[seat]:  # short of the bid
        if not pub.trick:  # lead the strongest card: a Wizard, the top trump, the top side card
            g = view.groups
            if g[5]:
                return g[5][0]
            if trump is not None and g[trump + 1]:
                return g[trump + 1][-1]
            for grp in (g[1], g[2], g[3], g[4]):
                if grp and power[grp[-1]] > bp:
                    best, bp = grp[-1], power[grp[-1]]
            return best
        key = _KEY[trump][pub.led]
        bar = key[pub.win_card]
        win = None  # the cheapest card that takes the lead; else the weakest card (best)
        wp = 1000
        for a in legal:
            p = power[a]
            if key[a] > bar:
                if p < wp:
                    win, wp = a, p
            elif p < bp:
                best, bp = a, p
        return best if win is None else win
    if not pub.trick:  # lead the weakest card: a Jester, the lowest side card, the lowest trump
        g = view.groups
        if g[0]:
            return g[0][0]
        low = None
        lp = 1000
        for grp in (g[1], g[2], g[3], g[4]):
            if grp and power[grp[0]] < lp:
                low, lp = grp[0], power[grp[0]]
        return best if low is None else low
    key = _KEY[trump][pub.led]
    bar = key[pub.win_card]
    lose = None  # the strongest card that stays below the winner
    lp = -1
    last = len(pub.trick) == pub.n - 1
    for a in legal:
        p = power[a]
        if key[a] <= bar:
            if p > lp:
                lose, lp = a, p
        elif (p > bp) if last else (p < bp):
            best, bp = a, p
    return best if lose is None else lose


def random_play(view, legal, rng):
    """``random`` playing: a uniformly random legal card."""
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
    pub = WizardPublic(view.params, n, r, round=r, phase=view.phase, dealer=view.dealer, starter=view.starter,
                       current=seat, trump_card=view.trump_card, trump=view.trump,
                       trump_pending=view.trump_pending, bids=list(view.bids),
                       n_bids=sum(b is not None for b in view.bids), tricks=list(view.tricks),
                       scores=list(view.scores), played=list(view.played), leaders=list(view.leaders),
                       trick=list(view.trick), led=view.led, win_seat=view.win_seat, win_card=view.win_card)
    return WizardState(pub, groups=[hand_groups(h) for h in hands], undealt=[FULL_DECK.index(c) for c in pool[k:]])


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
    return s.tricks[seat] if not s.log else s.log[-1].tricks[seat]


def bid_montecarlo(view, legal, rng, samples: int, play: str) -> Bid:
    """``montecarlo`` bidding (see the module docstring)."""
    guess = max(0, min(view.round, math.floor(expected_tricks(view) + 0.5)))
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
    reuse = True  # reset (or nothing) restores every game: one instance per batch
    game = GAME
    param_bounds = {"bias": (-20, 20), "samples": (1, 10_000)}  # 20: the most tricks in a round
    param_choices = {"bid": BID_POLICIES, "play": PLAY_POLICIES}

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
        # Speed: the loop calls ``choose`` ~400 times a game, so it is specialised here - greedy
        # play calls the bid policy itself, and the expected bid skips the dispatch below.
        decide = partial(_expected_or_trump, self.bias) if bid == "expected" else self._decide
        if play == "greedy":
            self.choose = partial(_greedy, decide)
        # expected and zero bids and greedy play draw nothing: the game loop then builds no stream
        self.uses_rng = not (play == "greedy" and bid in ("expected", "zero"))

    def choose(self, view, legal, rng):
        if view.public.phase == PLAY:
            return legal[rng.randrange(len(legal))] if self.play == "random" else greedy_play(view, legal)
        return self._decide(view, legal, rng)

    def _decide(self, view, legal, rng):
        """A bid, or the dealer's trump choice."""
        if view.public.phase == TRUMP:  # random bidders name a random trump
            return choose_trump(view) if self.bid != "random" else legal[rng.randrange(len(legal))]
        kind = self.bid
        if kind == "expected":
            return bid_expected(view, legal, self.bias)
        if kind == "zero":
            return nearest_bid(0, legal)
        if kind == "random":
            return legal[rng.randrange(len(legal))]
        return bid_montecarlo(view, legal, rng, self.samples, self.play)


def _expected_or_trump(bias, view, legal, rng):
    """``expected`` bidding, or the dealer's trump choice."""
    if view.public.phase == TRUMP:
        return choose_trump(view)
    r = view.public.round
    target = math.floor(expected_tricks(view) + bias + 0.5)  # half up: bias=0.5 on 0.0 bids 1
    target = 0 if target < 0 else r if target > r else target
    return legal[target] if len(legal) == r + 1 else nearest_bid(target, legal)


class WizardBot(Bot):
    """Another name for `bot` (same parameters)."""

    name = "wizard-bot"
    reuse = True  # reset (or nothing) restores every game: one instance per batch


class RandomPreset(Bot):
    """Random legal bids and random legal cards (bot:bid=random,play=random)."""

    name = "random"
    reuse = True  # reset (or nothing) restores every game: one instance per batch

    def __init__(self):
        super().__init__(bid="random", play="random")


class ExpectedPreset(Bot):
    """Bid the expected number of tricks plus bias, play greedily (bot:bid=expected,play=greedy).

    bias: added to the expected number of tricks before rounding; default 0.
    """

    name = "expected"
    reuse = True  # reset (or nothing) restores every game: one instance per batch

    def __init__(self, bias: float = 0.0):
        super().__init__(bid="expected", play="greedy", bias=bias)


STRATEGIES = [Bot, WizardBot, RandomPreset, ExpectedPreset]

#: `analyser simulate wizard` without --strategy: four different behaviours (not one bot under
#: its several names).
DEFAULT_LINEUP = ["expected", "bot:bid=zero", "bot:bid=expected,play=random", "random"]
