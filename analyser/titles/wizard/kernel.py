"""The numba kernel of Wizard's compiled engine (:mod:`analyser.titles.wizard.compiled`): the rules of
:mod:`analyser.titles.wizard.rules` and the built-in ``bot`` strategies of strategies/wizard.py
(bid random, expected or zero; play random or greedy).  The random streams and output writers are
the kit's (:mod:`analyser.engine.kerneljit`).  Importing this module imports numba.

Cards are numbered in hand order as ``Card.index``: 0 Jester, 1-52 the suited cards (blue 1-13,
green, red, yellow), 53 Wizard; a suit is -1 for a Jester or Wizard and a trump of -1 is none.  A
game's state lives in a :class:`~analyser.titles.wizard.compiled.Work` of arrays: ``hand[s, card]``
copies held, ``suits[s, suit]`` suited cards held per suit, ``dealt[s, X]`` what the round dealt
(cards per suit, then Wizards and Jesters), ``bids``, ``tricks`` (this round), ``scores``,
``stats[s, X]`` (per-round bid figures), ``state[X]`` the game's counters (``ROUND`` ...
``IN_ROUND``) and ``legal``, the legal actions of the decision at hand."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from analyser.engine.kerneljit import (game_streams, helper, jit, put_components, put_trace, randbelow, random,
                                       seed_streams, shared_ranks)

JESTER, WIZARD = 0, 53
BID, TRUMP, PLAY, OVER = range(4)
LED_NONE, LED_FREE = -1, -2
#: ``work.state[X]``: round, phase, dealer, starter, seat to act, trump (-1 none), trump pending
#: (a turned Wizard under first_card), bids made, led suit (-1 none, -2 free), the trick's winning
#: seat and card (-1 none), cards in the trick, the turned card (-1 none), tricks of the game,
#: tricks of the round.
ROUND, PHASE, DEALER, STARTER, CURRENT, TRUMP_SUIT, PENDING, N_BIDS, LED, WIN_SEAT, WIN_CARD, IN_TRICK, \
    TURNED, PLAYED, IN_ROUND = range(15)
#: ``work.dealt[s, X]`` past the four suits; ``work.stats[s, X]``.
WIZARDS, JESTERS = 4, 5
EXACT, OVER_BY, UNDER_BY, BID_SUM = range(4)
#: Strategy policy codes (:data:`analyser.titles.wizard.compiled.BID_CODES`, ``PLAY_CODES``).
BID_RANDOM, BID_EXPECTED, BID_ZERO = range(3)
PLAY_RANDOM, PLAY_GREEDY = range(2)
#: ``out.ints`` / ``out.floats`` columns (:data:`analyser.titles.wizard.compiled.INTS`, ``FLOATS``).
SCORE, RANK, TURNS = range(3)
WIN, EXACT_BIDS, OVER_BID, UNDER_BID, POINTS_PER_ROUND, MEAN_BID = range(6)


class Work(NamedTuple):
    """A game's state in the kernel (:mod:`analyser.titles.wizard.kernel` describes it)."""

    mt: np.ndarray
    ids: np.ndarray
    hand: np.ndarray
    suits: np.ndarray
    dealt: np.ndarray
    bids: np.ndarray
    tricks: np.ndarray
    scores: np.ndarray
    stats: np.ndarray
    state: np.ndarray
    legal: np.ndarray
    trace: np.ndarray
    held: np.ndarray


@jit
def play(seeds, rules, strategies, codes, bonus, out):
    """Play ``seeds.lineups.shape[0]`` games (a :class:`~analyser.engine.kernelkit.Seeds`) under
    ``rules`` with the ``strategies`` (:mod:`analyser.titles.wizard.compiled` records), the seats'
    start scores ``bonus`` and the components' ``codes``; fill ``out`` (a
    :class:`~analyser.engine.kernelkit.Out`).  Returns the games played."""
    G, n = seeds.lineups.shape
    w = Work(game_streams(n), np.zeros(60, np.int64), np.zeros((n, 54), np.int64), np.zeros((n, 4), np.int64),
             np.zeros((n, 6), np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64),
             np.zeros((n, 4), np.int64), np.zeros(15, np.int64), np.zeros(60, np.int64),
             np.zeros((n, rules.rounds), np.int64), np.zeros((n, rules.kinds), np.int64))
    for g in range(G):
        seed_streams(w.mt, seeds, g)
        play_game(w, seeds.lineups[g], rules, strategies, codes, bonus, out, g)
        if not put_trace(out, g, w.trace, rules.rounds):
            return g
        put_components(out, g, w.held)
        finish(out, g, w, bonus, rules.rounds)
    return G


@jit
def play_game(w, lineup, rules, strategies, codes, bonus, out, g):
    """One game, from the deal of round 1 to the end of the last round.  The card plays (the
    legal cards, the strategy's choice, the rules' update of the trick) are written out here, in
    one function that reads its arrays once: a helper handed arrays at every card would cost
    more than the card (numba counts references to them)."""
    n = len(lineup)
    mt, hand, suits, legal, state, bids, tricks = w.mt, w.hand, w.suits, w.legal, w.state, w.bids, w.tricks
    seed_follow = rules.seed_follow
    w.scores[:] = bonus
    w.stats[:, :] = 0
    state[:] = 0
    deal(w, 1, 0, rules)
    while state[PHASE] != OVER:
        seat = state[CURRENT]
        si = lineup[seat]
        phase = state[PHASE]
        if phase == BID:
            make_bid(w, seat, choose_bid(w, seat, strategies.bid[si], strategies.bias[si], rules))
            continue
        if phase == TRUMP:
            state[TRUMP_SUIT] = choose_trump(w, seat, strategies.bid[si])
            state[PHASE] = BID
            state[CURRENT] = state[STARTER]
            continue
        # the legal cards, in hand order (Wizard.legal_actions)
        led = state[LED]
        trump = state[TRUMP_SUIT]
        count = 0
        follow = led >= 0 and suits[seat, led] > 0  # must follow the led suit (or, by seed_follow, trump)
        also = trump if (follow and seed_follow and trump >= 0 and trump != led and suits[seat, trump]) else -1
        if hand[seat, JESTER]:
            legal[count] = JESTER
            count += 1
        for suit in range(4):
            if (suit == led or suit == also) if follow else suits[seat, suit] > 0:
                for c in range(1 + 13 * suit, 14 + 13 * suit):
                    if hand[seat, c]:
                        legal[count] = c
                        count += 1
        if hand[seat, WIZARD]:
            legal[count] = WIZARD
            count += 1
        # the strategy's card: the only one, a random one, or the greedy one (greedy_play)
        if count == 1:
            card = legal[0]
        elif strategies.play[si] == PLAY_RANDOM:
            card = legal[randbelow(mt, seat, count)]
        else:
            best = legal[0]
            bp = power(best, trump)
            short = bids[seat] > tricks[seat]
            if state[IN_TRICK] == 0 and short:  # lead the strongest: a Wizard, the top trump, a top card
                if hand[seat, WIZARD]:
                    card = WIZARD
                elif trump >= 0 and suits[seat, trump]:
                    card = 13 + 13 * trump
                    while not hand[seat, card]:
                        card -= 1
                else:
                    for suit in range(4):
                        if suits[seat, suit]:
                            top = 13 + 13 * suit
                            while not hand[seat, top]:
                                top -= 1
                            if power(top, trump) > bp:
                                best, bp = top, power(top, trump)
                    card = best
            elif state[IN_TRICK] == 0:  # lead the weakest: a Jester, else a bottom card
                if hand[seat, JESTER]:
                    card = JESTER
                else:
                    low = -1
                    lp = 1000
                    for suit in range(4):
                        if suits[seat, suit]:
                            c = 1 + 13 * suit
                            while not hand[seat, c]:
                                c += 1
                            if power(c, trump) < lp:
                                low, lp = c, power(c, trump)
                    card = best if low < 0 else low
            else:
                bar = key(state[WIN_CARD], trump, led)
                pick = -1  # short: the cheapest card that takes the lead; else the strongest below it
                pp = 1000 if short else -1
                last = state[IN_TRICK] == n - 1
                for i in range(count):
                    a = legal[i]
                    p = power(a, trump)
                    if short:
                        if key(a, trump, led) > bar:
                            if p < pp:
                                pick, pp = a, p
                        elif p < bp:
                            best, bp = a, p
                    elif key(a, trump, led) <= bar:
                        if p > pp:
                            pick, pp = a, p
                    elif (p > bp) if last else (p < bp):
                        best, bp = a, p
                card = best if pick < 0 else pick
        # the rules: the card leaves the hand; the led suit and the trick's winner (Wizard.apply)
        hand[seat, card] -= 1
        wc = state[WIN_CARD]
        if card == WIZARD:
            if wc != WIZARD:  # the first Wizard takes the lead for good
                state[WIN_CARD] = card
                state[WIN_SEAT] = seat
            if led == LED_NONE:
                state[LED] = LED_FREE
        elif card == JESTER:
            if wc == -1:  # a Jester leads only while nothing else was played
                state[WIN_CARD] = card
                state[WIN_SEAT] = seat
        else:
            suit = suit_of(card)
            r = rank_of(card)
            suits[seat, suit] -= 1
            if suit == led:
                if wc != WIZARD and r > rank_of(wc) and suit_of(wc) == suit:
                    state[WIN_CARD] = card
                    state[WIN_SEAT] = seat
            else:
                if led < 0:
                    if state[PENDING]:  # the round's first suited card names trump
                        state[TRUMP_SUIT] = suit
                        state[PENDING] = 0
                    if led == LED_NONE:
                        state[LED] = suit
                if wc == -1 or wc == JESTER or (wc != WIZARD and suit == state[TRUMP_SUIT]
                                                and (suit_of(wc) != suit or r > rank_of(wc))):
                    state[WIN_CARD] = card
                    state[WIN_SEAT] = seat
        state[IN_TRICK] += 1
        if state[IN_TRICK] < n:
            state[CURRENT] = (seat + 1) % n
            continue
        # the trick is over: its winner takes it and leads the next; the last ends the round
        winner = state[WIN_SEAT]
        tricks[winner] += 1
        state[PLAYED] += 1
        state[IN_ROUND] += 1
        state[PENDING] = 0  # a first trick without a suited card: no trump this round
        state[IN_TRICK] = 0
        state[LED] = LED_NONE
        state[WIN_SEAT] = -1
        state[WIN_CARD] = -1
        if state[IN_ROUND] < state[ROUND]:
            state[CURRENT] = winner
        else:
            end_round(w, winner, rules, codes, out, g)


@helper
def rank_of(card):
    """Jester 0, a suited card 1-13, Wizard 14."""
    if card == JESTER:
        return 0
    if card == WIZARD:
        return 14
    return (card - 1) % 13 + 1


@helper
def suit_of(card):
    """A suited card's suit (0-3); -1 for a Jester or Wizard."""
    if card == JESTER or card == WIZARD:
        return -1
    return (card - 1) // 13


# -- rules ----------------------------------------------------------------------------------

@helper
def deal(w, r, last_winner, rules):
    """Deal round ``r`` (``Wizard._deal``): dealer and starter, a Fisher-Yates pass over the deck
    positions stopped once the dealt cards and the turned card are drawn, seat ``k`` the ``k``-th
    ``r`` cards, trump from the turned card."""
    ids, hand, suits, dealt_, mt = w.ids, w.hand, w.suits, w.dealt, w.mt
    n = w.hand.shape[0]
    st = w.state
    if rules.rotate:
        st[DEALER] = (r - 2) % n
        st[STARTER] = (st[DEALER] + 1) % n
    else:
        st[STARTER] = 0 if r == 1 else last_winner
        st[DEALER] = (st[STARTER] - 1) % n
    for i in range(60):
        ids[i] = i
    dealt = n * r
    for i in range(dealt + 1 if dealt < 60 else 60):
        j = i + int(random(mt, n) * (60 - i))
        x = ids[i]
        ids[i] = ids[j]
        ids[j] = x
    hand[:, :] = 0
    suits[:, :] = 0
    dealt_[:, :] = 0
    for k in range(n):
        for i in range(k * r, (k + 1) * r):
            card = card_at(ids[i])
            hand[k, card] += 1
            suit = suit_of(card)
            if suit >= 0:
                suits[k, suit] += 1
                dealt_[k, suit] += 1
            elif card == WIZARD:
                dealt_[k, WIZARDS] += 1
            else:
                dealt_[k, JESTERS] += 1
    st[ROUND] = r
    st[TURNED] = card_at(ids[dealt]) if dealt < 60 else -1
    w.bids[:] = 0
    w.tricks[:] = 0
    st[N_BIDS] = 0
    st[IN_TRICK] = 0
    st[IN_ROUND] = 0
    st[LED] = LED_NONE
    st[WIN_SEAT] = -1
    st[WIN_CARD] = -1
    st[PENDING] = 0
    st[PHASE] = BID
    st[CURRENT] = st[STARTER]
    st[TRUMP_SUIT] = -1
    turned = st[TURNED]
    if turned == WIZARD:
        if rules.dealer_chooses:
            st[PHASE] = TRUMP
            st[CURRENT] = st[DEALER]
        else:
            st[PENDING] = 1
    elif turned > JESTER:
        st[TRUMP_SUIT] = suit_of(turned)


@helper
def card_at(position):
    """The card at a deck position (Jesters 0-3, the suited cards 4-55, Wizards 56-59)."""
    if position < 4:
        return JESTER
    if position >= 56:
        return WIZARD
    return position - 3


@helper
def hooked(w, rules):
    """The bid the hook forbids now (-1: none)."""
    n = w.hand.shape[0]
    r = w.state[ROUND]
    if rules.hook and w.state[N_BIDS] == n - 1:
        forbidden = r - w.bids.sum()
        if 0 <= forbidden <= r:
            return forbidden
    return -1


@helper
def make_bid(w, seat, bid):
    """Record the seat's bid; the last bid starts the play."""
    n = w.hand.shape[0]
    st = w.state
    w.bids[seat] = bid
    st[N_BIDS] += 1
    if st[N_BIDS] == n:
        st[PHASE] = PLAY
        st[CURRENT] = st[STARTER]
    else:
        st[CURRENT] = (seat + 1) % n


@helper
def end_round(w, last_winner, rules, codes, out, g):
    """Score the round (exact bid 20 + 10 a trick, else -10 a trick off), record it (trace,
    components, the rounds table, the bid figures) and deal the next round, or end the game."""
    bids, tricks, scores, trace, stats, dealt, held = w.bids, w.tricks, w.scores, w.trace, w.stats, w.dealt, w.held
    st = w.state
    n = w.hand.shape[0]
    r = st[ROUND]
    trump = st[TRUMP_SUIT]
    turned = st[TURNED]
    kind = 0 if turned < 0 else 1 if turned == WIZARD else 2 if turned == JESTER else 3
    for s in range(n):
        b = bids[s]
        t = tricks[s]
        points = 20 + 10 * t if t == b else -10 * abs(t - b)
        scores[s] += points
        trace[s, r - 1] = scores[s]
        stats[s, BID_SUM] += b
        if t == b:
            stats[s, EXACT] += 1
        elif b > t:
            stats[s, OVER_BY] += b - t
        else:
            stats[s, UNDER_BY] += t - b
        wizards = dealt[s, WIZARDS]
        jesters = dealt[s, JESTERS]
        trumps = dealt[s, trump] if trump >= 0 else -1
        if wizards:
            held[s, codes.wizards[wizards]] += 1
        if jesters:
            held[s, codes.jesters[jesters]] += 1
        if trumps >= 0:
            held[s, codes.trumps[trumps]] += 1
        row = out.extra[g, r - 1, s]
        row[0] = b
        row[1] = t
        row[2] = points
        row[3] = wizards
        row[4] = jesters
        row[5] = trumps
        row[6] = trump
        row[7] = kind
        row[8] = st[STARTER]
    if r >= rules.rounds:
        st[PHASE] = OVER
    else:
        deal(w, r + 1, last_winner, rules)


@helper
def finish(out, g, w, bonus, rounds):
    """Game ``g``'s results: scores, win shares and ranks (the default ones), the bid figures per
    round and the tricks played."""
    n = w.hand.shape[0]
    shared_ranks(out, g, w.scores, w.scores, RANK, WIN)
    for s in range(n):
        out.ints[g, s, SCORE] = w.scores[s]
        out.ints[g, s, TURNS] = w.state[PLAYED]
        out.floats[g, s, EXACT_BIDS] = w.stats[s, EXACT] / rounds
        out.floats[g, s, OVER_BID] = w.stats[s, OVER_BY] / rounds
        out.floats[g, s, UNDER_BID] = w.stats[s, UNDER_BY] / rounds
        out.floats[g, s, POINTS_PER_ROUND] = (w.scores[s] - bonus[s]) / rounds
        out.floats[g, s, MEAN_BID] = w.stats[s, BID_SUM] / rounds


# -- strategies -----------------------------------------------------------------------------

@helper
def choose_trump(w, seat, bid_policy):
    """The dealer's trump: a random suit for a random bidder, else the suit it holds most of
    (ties: the higher rank total, then suit order)."""
    hand = w.hand[seat]
    if bid_policy == BID_RANDOM:
        return randbelow(w.mt, seat, 4)
    best = 0
    best_count = -1
    best_total = -1
    for suit in range(4):
        total = 0
        for c in range(1 + 13 * suit, 14 + 13 * suit):
            total += hand[c] * rank_of(c)
        count = w.suits[seat, suit]
        if count > best_count or (count == best_count and total > best_total):
            best, best_count, best_total = suit, count, total
    return best


@helper
def choose_bid(w, seat, policy, bias, rules):
    """The seat's bid, asked only when it has a choice (the hook may leave one bid)."""
    r = w.state[ROUND]
    forbidden = hooked(w, rules)
    count = r + 1 if forbidden < 0 else r
    if count == 1:
        return 1 - forbidden if forbidden >= 0 else 0
    if policy == BID_RANDOM:
        i = randbelow(w.mt, seat, count)
        return i if forbidden < 0 or i < forbidden else i + 1
    if policy == BID_ZERO:
        return nearest_bid(0, forbidden, r)
    target = np.floor(expected_tricks(w, seat, rules) + bias + 0.5)
    target = 0 if target < 0 else r if target > r else int(target)
    if forbidden < 0:
        return target
    return nearest_bid(target, forbidden, r)


@helper
def nearest_bid(target, forbidden, r):
    """The legal bid nearest ``target`` (ties: the lower), bids 0..r but ``forbidden``."""
    best = 1 if forbidden == 0 else 0
    for b in range(r + 1):
        if b != forbidden and abs(b - target) < abs(best - target):
            best = b
    return best


@helper
def expected_tricks(w, seat, rules):
    """``expected`` bidding's sum of each card's chance of a trick, before the round's first card
    (strategies/wizard.py ``expected_tricks``; the exponentials come from the tables in ``rules``)."""
    hand, suits = w.hand[seat], w.suits[seat]
    st = w.state
    size = st[ROUND]
    turned = st[TURNED]
    t = 0 if turned < 0 else 1
    own_wizards = w.hand[seat, WIZARD]
    wizards = 4 - own_wizards
    tc_suit = -1
    tc_rank = 0
    if turned == WIZARD:
        wizards -= 1
    elif turned > JESTER:
        tc_suit = suit_of(turned)
        tc_rank = rank_of(turned)
    if 60 - size - t <= 0:
        return float(own_wizards)
    table = rules.exp[size, t]
    total = rules.wizard_exp[size, t, wizards] * own_wizards if own_wizards else 0.0
    trump = st[TRUMP_SUIT]
    trump_unseen = 0 if trump < 0 else 13 - suits[trump] - (1 if tc_suit == trump else 0)
    for suit in range(4):
        k = suits[suit]
        if not k:
            continue
        i = wizards + 14 - k  # beaters of the lowest card, plus its rank
        part = 0.0
        for c in range(1 + 13 * suit, 14 + 13 * suit):
            if hand[c]:
                r = rank_of(c)
                part += table[i - r - (1 if suit == tc_suit and tc_rank > r else 0)]
                i += 1
        if suit == trump:
            total += part
        elif trump_unseen:
            in_suit = 13 - k - (1 if tc_suit == suit else 0)
            total += part * rules.led_factor * rules.led[size, t, trump_unseen, in_suit]
        else:
            total += part * rules.led_factor
    return total


@helper
def power(card, trump):
    """A card's strength for the greedy policy: Jester 0, side suit 1-13, trump 51-63, Wizard 100."""
    if card == WIZARD:
        return 100
    if card == JESTER:
        return 0
    if suit_of(card) == trump:
        return 50 + rank_of(card)
    return rank_of(card)


@helper
def key(card, trump, led):
    """Trick strength: a card played now takes the lead iff its key beats the winner's (Wizard
    100, trump 50 + rank, the led suit - or any suit while none is led - its rank, another suit 0,
    Jester -1)."""
    if card == WIZARD:
        return 100
    if card == JESTER:
        return -1
    suit = suit_of(card)
    if suit == trump:
        return 50 + rank_of(card)
    if suit == led or led < 0:
        return rank_of(card)
    return 0


