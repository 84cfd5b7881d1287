"""The numba kernel of DAO's compiled engine (:mod:`analyser.titles.dao.compiled`): the rules of
:mod:`analyser.titles.dao.rules` and the built-in strategies of strategies/dao.py.  The random
streams, their seeding and the output writers are the kit's (:mod:`analyser.engine.kerneljit`), so a
game deals and draws exactly what the Python path deals and draws.  Importing this module imports
numba.

Three functions: :func:`play` (the batch: per game, seed, deal, play, write the results),
:func:`play_game` (one game's turns: the rules and the strategies' decisions) and :func:`finish`
(scores, winners and ranks), the last two inlined into the first.  The turns stay one function on
purpose: numba counts references to every array handed to a function (an atomic operation each),
and a call per turn cost three times the game (measured: 38.9 against 12.6 us a game).  A game's
arrays come in a :class:`~analyser.titles.dao.compiled.Work` record, read into local names once
per game."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from analyser.engine.kerneljit import (game_streams, helper, jit, put_components, put_trace, random, seed_streams,
                                       shared_ranks, sort_keys)

#: ``work.seat[X, s]``: cards held this half, cards taken in the game, points of finished halves,
#: busts, cards of the best colour at each half's end, the running score (for the trace).
HELD, PILE, DONE, BUSTS, IN_COLOUR, CUR = range(6)
#: ``out.ints`` columns (:data:`analyser.titles.dao.compiled.INTS`) and ``out.floats`` ones.
SCORE, RANK, CARDS, BUSTS_OUT, TURNS = range(5)
WIN, SHARE = range(2)


class Work(NamedTuple):
    """A game's arrays in the kernel: the random streams, the deal's keys, per seat its figures
    (``seat[X, s]``: held this half, taken, points of finished halves, busts, cards of the best
    colour, running score), per seat and colour its gain (value + 1 a card) and cards, the
    display, the unseen cards per colour and value, the kinds of card held, the score trace and
    a colour-sized scratch row."""

    mt: np.ndarray
    keys: np.ndarray
    seat: np.ndarray
    gain: np.ndarray
    in_hand: np.ndarray
    display: np.ndarray
    unseen: np.ndarray
    held_kinds: np.ndarray
    trace: np.ndarray
    sums: np.ndarray


@jit
def play(seeds, rules, deck, strategies, bonus, out):
    """Play ``seeds.lineups.shape[0]`` games (``seeds``: a :class:`~analyser.engine.kernelkit.Seeds`)
    under ``rules`` (a :class:`~analyser.titles.dao.compiled.Rules`) with the cards ``deck`` (a
    :class:`~analyser.titles.dao.compiled.Deck`), the ``strategies`` (a
    :class:`~analyser.titles.dao.compiled.Strategies`) and the seats' start scores ``bonus``; fill
    ``out`` (a :class:`~analyser.engine.kernelkit.Out`).  Returns the games played: fewer only when
    a game broke a bound (a bug; the caller reports it)."""
    G, n = seeds.lineups.shape
    D = len(deck.colour)
    w = Work(game_streams(n), np.zeros(D, np.int64), np.zeros((6, n), np.int64),
             np.zeros((n, rules.colours), np.int64), np.zeros((n, rules.colours), np.int64),
             np.empty(D + 1, np.int64), np.zeros((rules.colours, rules.top_v + 1), np.int64),
             np.zeros((n, rules.kinds), np.int64), np.zeros((n, rules.rounds), np.int64), np.zeros(rules.colours, np.int64))
    for g in range(G):
        seed_streams(w.mt, seeds, g)
        sort_keys(w.mt, n, w.keys, D)  # the deal: one random() per card, sorted (rules.shuffled)
        order = np.argsort(w.keys, kind="mergesort")
        rounds, turns = play_game(w, order, seeds.lineups[g], rules, deck, strategies, bonus)
        if rounds < 0 or not put_trace(out, g, w.trace, rounds):
            return g
        put_components(out, g, w.held_kinds)
        finish(out, g, w.seat, rules.most_cards, bonus, turns)
    return G


@helper
def play_game(w, order, lineup, rules, deck, strategies, bonus):
    """Play one game dealt in ``order`` (deck positions, dealt from the end) with the strategies
    ``lineup`` seats, as :meth:`Dao.apply` plays it; fill ``w`` (the per-seat figures, the score
    trace, the kinds of card held).  Returns ``(rounds of the trace, turns)``, rounds -1 when the
    game ran past the rounds it was given (a bug)."""
    n = len(lineup)
    D = len(order)
    mt, seat_figures, gain, hc, display, unseen, held_kinds, tr, a = (w.mt, w.seat, w.gain, w.in_hand, w.display,
                                                                      w.unseen, w.held_kinds, w.trace, w.sums)
    held, pile, done = seat_figures[HELD], seat_figures[PILE], seat_figures[DONE]
    busts, in_colour, cur = seat_figures[BUSTS], seat_figures[IN_COLOUR], seat_figures[CUR]
    colour_of, value_of, kind_of = deck.colour, deck.value, deck.kind
    bust_limit, R = rules.bust_limit, rules.rounds
    ex = rules.exception
    seat_figures[:, :] = 0
    gain[:, :] = 0
    hc[:, :] = 0
    for s in range(n):
        cur[s] = bonus[s]
    unseen[:, :] = 0
    for i in range(D):
        unseen[colour_of[i], value_of[i]] += 1
    n_unseen = D
    lo = rules.cut if rules.halves else 0
    hi = D
    head = 0
    tail = 0
    total = 0
    half = 0
    starter = 0
    current = 0
    turn = 0
    rounds = 0
    in_round = 0
    need_refill = True
    end_half = False
    while True:
        if need_refill:  # rules: Refill (never busts); the last card out ends the half
            need_refill = False
            k = min(rules.display_size, hi - lo)
            for _ in range(k):
                hi -= 1
                idx = order[hi]
                unseen[colour_of[idx], value_of[idx]] -= 1
                display[tail] = idx
                tail += 1
                total += value_of[idx]
            n_unseen -= k
            if hi == lo:
                end_half = True
        if end_half:  # score the half; the display leaves the game
            end_half = False
            for s in range(n):
                best = 0
                top = gain[s, 0]
                for c in range(1, rules.colours):
                    if gain[s, c] > top:
                        top = gain[s, c]
                        best = c
                done[s] += top - held[s]
                in_colour[s] += hc[s, best]
            head = 0
            tail = 0
            total = 0
            if rules.halves and half == 0:
                half = 1
                lo = 0
                hi = rules.cut
                gain[:, :] = 0
                hc[:, :] = 0
                held[:] = 0
                starter = (starter + 1) % n
                current = starter
                need_refill = True
                continue
            break
        seat = current
        si = lineup[seat]
        kind = strategies.code[si]
        front = display[head]
        fc = colour_of[front]
        fv = value_of[front]
        if kind == 1 or kind == 2:  # the best colour so far (ties: the lowest index)
            top = gain[seat, 0]
            best = 0
            for c in range(1, rules.colours):
                if gain[seat, c] > top:
                    top = gain[seat, c]
                    best = c
        if kind == 0:  # threshold: reveal while the display total is at most the limit
            take = total > strategies.p0[si]
        elif kind == 2:  # colour
            if held[seat] == 0:
                take = fv >= strategies.p1[si]
            else:
                take = fc == best and fv >= strategies.p0[si]
        elif kind == 3:  # random: one random() per decision
            take = random(mt, seat) < 0.5
        else:  # greedy: the take's score change against a reveal's expected change
            if gain[seat, fc] == top:
                other = -(10 ** 9)
                for c in range(rules.colours):
                    if c != fc and gain[seat, c] > other:
                        other = gain[seat, c]
            else:
                other = top
            mine = gain[seat, fc] + fv + 1
            take_gain = (mine if mine > other else other) - 1 - top
            room = rules.bust_limit - total
            if room >= rules.top_v:
                reveal_gain = 0.0
            else:
                low = room + 1 if room >= 0 else 0
                if ex == 0:
                    skip = value_of[display[tail - 1]]
                elif ex == 1:
                    skip = fv
                else:
                    skip = -1
                for c in range(rules.colours):
                    a[c] = gain[seat, c]
                for j in range(head, tail):
                    d = display[j]
                    a[colour_of[d]] += value_of[d] + 1
                top_a = a[0]
                arg = 0
                for c in range(1, rules.colours):
                    if a[c] > top_a:
                        top_a = a[c]
                        arg = c
                second_a = -(10 ** 9)
                for c in range(rules.colours):
                    if c != arg and a[c] > second_a:
                        second_a = a[c]
                lose = (tail - head) + 1 + top
                tot = 0
                for c in range(rules.colours):
                    other = second_a if c == arg else top_a
                    base = a[c] + 1
                    for v in range(low, rules.top_v + 1):
                        cnt = unseen[c, v]
                        if cnt != 0 and v != skip:
                            x = base + v
                            tot += cnt * ((x if x > other else other) - lose)
                reveal_gain = tot / n_unseen
            take = take_gain > reveal_gain
        if take:  # rules: Take the front card
            head += 1
            total -= fv
            gain[seat, fc] += fv + 1
            hc[seat, fc] += 1
            held[seat] += 1
            pile[seat] += 1
            held_kinds[seat, kind_of[front]] += 1
            turn += 1
            top = gain[seat, 0]
            for c in range(1, rules.colours):
                if gain[seat, c] > top:
                    top = gain[seat, c]
            cur[seat] = bonus[seat] + done[seat] + top - held[seat]
            current = seat + 1 if seat + 1 < n else 0
            if head == tail:
                head = 0
                tail = 0
                need_refill = True
        else:  # rules: Reveal, and a bust over the limit unless the equal-value exception holds
            hi -= 1
            idx = order[hi]
            c0 = colour_of[idx]
            v0 = value_of[idx]
            unseen[c0, v0] -= 1
            n_unseen -= 1
            prev_v = value_of[display[tail - 1]]
            display[tail] = idx
            tail += 1
            total += v0
            busted = False
            if total > rules.bust_limit:
                if not ((ex == 0 and v0 == prev_v) or (ex == 1 and v0 == value_of[display[head]])):
                    for j in range(head, tail):
                        d = display[j]
                        gain[seat, colour_of[d]] += value_of[d] + 1
                        hc[seat, colour_of[d]] += 1
                        held_kinds[seat, kind_of[d]] += 1
                    held[seat] += tail - head
                    pile[seat] += tail - head
                    head = 0
                    tail = 0
                    total = 0
                    busts[seat] += 1
                    top = gain[seat, 0]
                    for c in range(1, rules.colours):
                        if gain[seat, c] > top:
                            top = gain[seat, c]
                    cur[seat] = bonus[seat] + done[seat] + top - held[seat]
                    busted = True
            turn += 1
            if hi == lo:
                end_half = True
            else:
                current = seat + 1 if seat + 1 < n else 0
                if busted:
                    need_refill = True
        in_round += 1
        if in_round == n:  # the score trace: every seat's running score after each round
            in_round = 0
            if rounds >= R:
                return -1, turn
            for s in range(n):
                tr[s, rounds] = cur[s]
            rounds += 1
    if in_round:
        if rounds >= R:
            return -1, turn
        for s in range(n):
            tr[s, rounds] = cur[s]
        rounds += 1
    return rounds, turn


@helper
def finish(out, g, seat_figures, most_cards, bonus, turns):
    """Game ``g``'s results: scores, winners and ranks (``Dao.ranks_given``: by score, then, under
    ``tie_break=most_cards``, by cards taken), cards, busts, colour share and turns."""
    n = len(bonus)
    pile, done, busts, in_colour = (seat_figures[PILE], seat_figures[DONE], seat_figures[BUSTS],
                                    seat_figures[IN_COLOUR])
    score = np.empty(n, np.int64)
    for s in range(n):
        score[s] = bonus[s] + done[s]
    shared_ranks(out, g, score, pile if most_cards else score, RANK, WIN)
    for s in range(n):
        out.ints[g, s, SCORE] = score[s]
        out.ints[g, s, CARDS] = pile[s]
        out.ints[g, s, BUSTS_OUT] = busts[s]
        out.floats[g, s, SHARE] = in_colour[s] / pile[s] if pile[s] else np.nan
        out.ints[g, s, TURNS] = turns
