"""The numba kernel of DAO's compiled engine (:mod:`analyser.titles.dao.compiled`): the rules of
:mod:`analyser.titles.dao.rules` and the built-in strategies of strategies/dao.py.  The random
streams and the output writers are the kit's (:mod:`analyser.engine.kerneljit`), so a game deals
and draws exactly what the Python path deals and draws.  Importing this module imports numba.

A game's state lives in a :class:`~analyser.titles.dao.compiled.Work` of arrays: per seat
(``seat[s, X]``, X one of ``HELD`` ... ``CUR``), per seat and colour (``gain``: the colour's score
so far, each card counting value + 1; ``in_hand``: its cards), the table's counters
(``table[X]``, X one of ``HEAD`` ... ``TURN``), the display (deck positions ``display[HEAD:TAIL]``)
and the cards not yet seen (``unseen[colour, value]``)."""

from __future__ import annotations

import numpy as np

from analyser.engine.kerneljit import jit, put_components, put_trace, random, seed_game, sort_keys, streams
from analyser.titles.dao.compiled import Work

#: ``work.seat[s, X]``: cards held this half, cards taken in the game, points of finished halves,
#: busts, cards of the best colour at each half's end, the running score (for the trace).
HELD, PILE, DONE, BUSTS, IN_COLOUR, CUR = range(6)
#: ``work.table[X]``: the display's front and end, its total, the deck's remaining range
#: ``order[LO:HI]`` (dealt from HI down), unseen cards, the half (0, 1), its starting seat, the
#: seat to play, turns so far.
HEAD, TAIL, TOTAL, LO, HI, UNSEEN, HALF, STARTER, CURRENT, TURN = range(10)
#: Strategy codes (:data:`analyser.titles.dao.compiled.STRATEGY_CODES`).
THRESHOLD, GREEDY, COLOUR, RANDOM = range(4)
#: ``out.ints`` columns (:data:`analyser.titles.dao.compiled.INTS`) and ``out.floats`` ones.
SCORE, RANK, CARDS, BUSTS_OUT, TURNS = range(5)
WIN, SHARE = range(2)
#: Equal-value exception codes.
ADJACENT, FRONT, OFF = range(3)
LOW = -(10 ** 9)


@jit
def play(seeds, rules, deck, strategies, bonus, out):
    """Play ``seeds.lineups.shape[0]`` games (``seeds``: a :class:`~analyser.engine.kernelkit.Seeds`)
    under ``rules`` (a :class:`~analyser.titles.dao.compiled.Rules`) with the cards ``deck`` (a
    :class:`~analyser.titles.dao.compiled.Deck`), the ``strategies`` (a
    :class:`~analyser.titles.dao.compiled.Strategies`) and the seats' start scores ``bonus``; fill
    ``out`` (a :class:`~analyser.engine.kernelkit.Out`).  Returns the games played: fewer only when a
    game broke a bound (a bug; the caller reports it)."""
    G, n = seeds.lineups.shape
    D = len(deck.colour)
    w = Work(streams(n + 1), np.zeros(D, np.int64), np.zeros(D, np.int64), np.zeros((n, 6), np.int64),
             np.zeros((n, rules.colours), np.int64), np.zeros((n, rules.colours), np.int64), np.zeros(10, np.int64),
             np.empty(D + 1, np.int64), np.zeros((rules.colours, rules.top_v + 1), np.int64),
             np.zeros((n, rules.kinds), np.int64), np.zeros((n, rules.rounds), np.int64),
             np.zeros(rules.colours, np.int64), np.zeros(n, np.int64))
    for g in range(G):
        seed_game(w.mt, seeds, g)
        deal(w, n, D)
        start_game(w, rules, deck, bonus)
        rounds = play_turns(w, seeds.lineups[g], rules, deck, strategies, bonus)
        if rounds < 0 or not put_trace(out, g, w.trace, rounds):
            return g
        put_components(out, g, w.held_kinds)
        finish(out, g, w, rules, bonus)
    return G


@jit
def deal(w, n, D):
    """The deck's order: one ``random()`` per card from the chance stream, stably sorted
    (:func:`analyser.titles.dao.rules.shuffled`)."""
    sort_keys(w.mt, n, w.keys, D)
    w.order[:] = np.argsort(w.keys, kind="mergesort")


@jit
def start_game(w, rules, deck, bonus):
    """A fresh game: nothing held, every card unseen, the first half's deck range."""
    w.seat[:, :] = 0
    w.seat[:, CUR] = bonus
    w.gain[:, :] = 0
    w.in_hand[:, :] = 0
    w.unseen[:, :] = 0
    D = len(deck.colour)
    for i in range(D):
        w.unseen[deck.colour[i], deck.value[i]] += 1
    w.table[:] = 0
    w.table[LO] = rules.cut if rules.halves else 0
    w.table[HI] = D
    w.table[UNSEEN] = D


@jit
def play_turns(w, lineup, rules, deck, strategies, bonus):
    """Play the game's turns to its end, recording the score trace.  Returns the trace's rounds,
    or -1 when the game ran past the rounds it was given (a bug)."""
    n = len(lineup)
    R = w.trace.shape[1]
    t = w.table
    rounds = 0
    in_round = 0
    refill_due = True
    half_over = False
    while True:
        if refill_due:
            half_over = refill(w, rules, deck)
            refill_due = False
        if half_over:
            score_half(w, rules)
            if rules.halves and t[HALF] == 0:
                second_half(w, rules, n)
                refill_due = True
                half_over = False
                continue
            break
        seat = t[CURRENT]
        si = lineup[seat]
        if decide(w, seat, strategies.code[si], strategies.p0[si], strategies.p1[si], rules, deck):
            refill_due = take(w, seat, deck, bonus)
        else:
            half_over, refill_due = reveal(w, seat, rules, deck, bonus)
        in_round += 1
        if in_round == n:  # the score trace: every seat's running score after each round
            in_round = 0
            if rounds >= R:
                return -1
            w.trace[:, rounds] = w.seat[:, CUR]
            rounds += 1
    if in_round:
        if rounds >= R:
            return -1
        w.trace[:, rounds] = w.seat[:, CUR]
        rounds += 1
    return rounds


@jit
def best_colour(w, seat):
    """The seat's best colour so far (ties: the lowest index) and its gain."""
    best = 0
    top = w.gain[seat, 0]
    for c in range(1, w.gain.shape[1]):
        if w.gain[seat, c] > top:
            top = w.gain[seat, c]
            best = c
    return best, top


@jit
def running_score(w, seat, bonus):
    """The seat's running score: its start score, finished halves and this half's best colour
    less the cards it holds."""
    _, top = best_colour(w, seat)
    w.seat[seat, CUR] = bonus[seat] + w.seat[seat, DONE] + top - w.seat[seat, HELD]


@jit
def refill(w, rules, deck):
    """rules: Refill (never busts).  Returns whether the last card out ended the half."""
    t = w.table
    k = min(rules.display_size, t[HI] - t[LO])
    for _ in range(k):
        t[HI] -= 1
        show(w, w.order[t[HI]], deck)
    return t[HI] == t[LO]


@jit
def show(w, card, deck):
    """Turn ``card`` face up at the end of the display."""
    t = w.table
    w.unseen[deck.colour[card], deck.value[card]] -= 1
    t[UNSEEN] -= 1
    w.display[t[TAIL]] = card
    t[TAIL] += 1
    t[TOTAL] += deck.value[card]


@jit
def score_half(w, rules):
    """Score the half (each seat's best colour less the cards it holds); the display leaves."""
    for s in range(w.seat.shape[0]):
        best, top = best_colour(w, s)
        w.seat[s, DONE] += top - w.seat[s, HELD]
        w.seat[s, IN_COLOUR] += w.in_hand[s, best]
    w.table[HEAD] = 0
    w.table[TAIL] = 0
    w.table[TOTAL] = 0


@jit
def second_half(w, rules, n):
    """The second half: the other part of the deck, nothing held, the next seat starts."""
    t = w.table
    t[HALF] = 1
    t[LO] = 0
    t[HI] = rules.cut
    w.gain[:, :] = 0
    w.in_hand[:, :] = 0
    w.seat[:, HELD] = 0
    t[STARTER] = (t[STARTER] + 1) % n
    t[CURRENT] = t[STARTER]


@jit
def gain_card(w, seat, card, deck):
    """``card`` joins the seat's cards."""
    c = deck.colour[card]
    w.gain[seat, c] += deck.value[card] + 1
    w.in_hand[seat, c] += 1
    w.held_kinds[seat, deck.kind[card]] += 1


@jit
def take(w, seat, deck, bonus):
    """rules: Take the front card.  Returns whether the display is empty (a refill is due)."""
    t = w.table
    front = w.display[t[HEAD]]
    t[HEAD] += 1
    t[TOTAL] -= deck.value[front]
    gain_card(w, seat, front, deck)
    w.seat[seat, HELD] += 1
    w.seat[seat, PILE] += 1
    t[TURN] += 1
    running_score(w, seat, bonus)
    t[CURRENT] = (seat + 1) % w.seat.shape[0]
    if t[HEAD] == t[TAIL]:
        t[HEAD] = 0
        t[TAIL] = 0
        return True
    return False


@jit
def reveal(w, seat, rules, deck, bonus):
    """rules: Reveal, and a bust over the limit unless the equal-value exception holds (the seat
    takes the whole display).  Returns (the half is over, a refill is due)."""
    t = w.table
    last = deck.value[w.display[t[TAIL] - 1]]
    t[HI] -= 1
    card = w.order[t[HI]]
    show(w, card, deck)
    front = deck.value[w.display[t[HEAD]]]
    v = deck.value[card]
    busted = False
    if t[TOTAL] > rules.bust_limit:
        if not ((rules.exception == ADJACENT and v == last) or (rules.exception == FRONT and v == front)):
            bust(w, seat, deck, bonus)
            busted = True
    t[TURN] += 1
    if t[HI] == t[LO]:
        return True, False
    t[CURRENT] = (seat + 1) % w.seat.shape[0]
    return False, busted


@jit
def bust(w, seat, deck, bonus):
    """The seat takes the whole display."""
    t = w.table
    for j in range(t[HEAD], t[TAIL]):
        gain_card(w, seat, w.display[j], deck)
    w.seat[seat, HELD] += t[TAIL] - t[HEAD]
    w.seat[seat, PILE] += t[TAIL] - t[HEAD]
    w.seat[seat, BUSTS] += 1
    t[HEAD] = 0
    t[TAIL] = 0
    t[TOTAL] = 0
    running_score(w, seat, bonus)


@jit
def decide(w, seat, code, p0, p1, rules, deck):
    """The seat's strategy: whether it takes the front card (else it reveals)."""
    if code == THRESHOLD:
        return w.table[TOTAL] > p0
    if code == COLOUR:
        return colour_takes(w, seat, p0, p1, deck)
    if code == RANDOM:
        return random(w.mt, seat) < 0.5
    return greedy_takes(w, seat, rules, deck)


@jit
def colour_takes(w, seat, min_value, start, deck):
    """colour: with nothing held, take a card of value ``start`` or more; then only cards of the
    best colour worth ``min_value`` or more."""
    front = w.display[w.table[HEAD]]
    if w.seat[seat, HELD] == 0:
        return deck.value[front] >= start
    best, _ = best_colour(w, seat)
    return deck.colour[front] == best and deck.value[front] >= min_value


@jit
def greedy_takes(w, seat, rules, deck):
    """greedy: take when the take's score change beats a reveal's expected change."""
    front = w.display[w.table[HEAD]]
    _, top = best_colour(w, seat)
    return take_gain(w, seat, front, top, deck) > reveal_gain(w, seat, top, rules, deck)


@jit
def take_gain(w, seat, front, top, deck):
    """The score change of taking ``front`` (the seat's best gain now ``top``)."""
    fc = deck.colour[front]
    if w.gain[seat, fc] == top:
        other = LOW
        for c in range(w.gain.shape[1]):
            if c != fc and w.gain[seat, c] > other:
                other = w.gain[seat, c]
    else:
        other = top
    mine = w.gain[seat, fc] + deck.value[front] + 1
    return (mine if mine > other else other) - 1 - top


@jit
def reveal_gain(w, seat, top, rules, deck):
    """The expected score change of revealing: 0 when no unseen card can bust, else over the
    unseen cards, the loss of taking the display with the card on it when it busts."""
    t = w.table
    room = rules.bust_limit - t[TOTAL]
    if room >= rules.top_v:
        return 0.0
    low = room + 1 if room >= 0 else 0
    if rules.exception == ADJACENT:
        skip = deck.value[w.display[t[TAIL] - 1]]
    elif rules.exception == FRONT:
        skip = deck.value[w.display[t[HEAD]]]
    else:
        skip = -1
    a = w.sums  # the seat's gains with the display taken
    for c in range(rules.colours):
        a[c] = w.gain[seat, c]
    for j in range(t[HEAD], t[TAIL]):
        d = w.display[j]
        a[deck.colour[d]] += deck.value[d] + 1
    top_a = a[0]
    arg = 0
    for c in range(1, rules.colours):
        if a[c] > top_a:
            top_a = a[c]
            arg = c
    second_a = LOW
    for c in range(rules.colours):
        if c != arg and a[c] > second_a:
            second_a = a[c]
    lose = (t[TAIL] - t[HEAD]) + 1 + top
    tot = 0
    for c in range(rules.colours):
        other = second_a if c == arg else top_a
        base = a[c] + 1
        for v in range(low, rules.top_v + 1):
            cnt = w.unseen[c, v]
            if cnt != 0 and v != skip:
                x = base + v
                tot += cnt * ((x if x > other else other) - lose)
    return tot / t[UNSEEN]


@jit
def finish(out, g, w, rules, bonus):
    """Game ``g``'s results: scores, winners (``tie_break``), ranks (``Dao.ranks_given``), cards,
    busts, colour share and turns."""
    n = w.seat.shape[0]
    score = w.score
    top = bonus[0] + w.seat[0, DONE]
    for s in range(n):
        score[s] = bonus[s] + w.seat[s, DONE]
        if score[s] > top:
            top = score[s]
    most = -1
    for s in range(n):
        if score[s] == top and w.seat[s, PILE] > most:
            most = w.seat[s, PILE]
    k = 0
    for s in range(n):
        if winner(w, s, score, top, most, rules.most_cards):
            k += 1
    for s in range(n):
        won = winner(w, s, score, top, most, rules.most_cards)
        out.ints[g, s, SCORE] = score[s]
        out.ints[g, s, RANK] = rank(w, s, score, top, most, k, rules.most_cards)
        out.floats[g, s, WIN] = 1.0 / k if won else 0.0
        pile = w.seat[s, PILE]
        out.ints[g, s, CARDS] = pile
        out.ints[g, s, BUSTS_OUT] = w.seat[s, BUSTS]
        out.floats[g, s, SHARE] = w.seat[s, IN_COLOUR] / pile if pile else np.nan
        out.ints[g, s, TURNS] = w.table[TURN]


@jit
def winner(w, s, score, top, most, most_cards):
    """Whether seat ``s`` shares the win: the top score, and under ``most_cards`` the most cards."""
    return score[s] == top and (not most_cards or w.seat[s, PILE] == most)


@jit
def rank(w, s, score, top, most, k, most_cards):
    """Seat ``s``'s rank (``Dao.ranks_given``): under ``most_cards`` by score then cards; else the
    ``k`` winners first, then by score."""
    n = len(score)
    r = 1
    if most_cards:
        for t in range(n):
            if score[t] > score[s] or (score[t] == score[s] and w.seat[t, PILE] > w.seat[s, PILE]):
                r += 1
    elif not winner(w, s, score, top, most, most_cards):
        r += k
        for t in range(n):
            if not winner(w, t, score, top, most, most_cards) and score[t] > score[s]:
                r += 1
    return r
