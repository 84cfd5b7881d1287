"""The numba kernel of DAO's compiled engine (:mod:`analyser.titles.dao.compiled`): the rules of
:mod:`analyser.titles.dao.rules`, the built-in strategies of strategies/dao.py, and Python's
Mersenne Twister (``random.Random``: its seeding by ``init_by_array`` and its ``random()``), so that
a game deals and draws exactly what the Python path deals and draws.  Importing this module
imports numba (compiled functions are cached on disk, ``cache=True``)."""

from __future__ import annotations

import numba
import numpy as np

_jit = numba.njit(cache=True, nogil=True)

#: Mersenne Twister MT19937 constants (the generator behind ``random.Random``).
N, M = 624, 397
MATRIX_A, UPPER, LOWER, MASK = 0x9908B0DF, 0x80000000, 0x7FFFFFFF, 0xFFFFFFFF


def _start_state() -> np.ndarray:
    """``init_genrand(19650218)``, where every ``init_by_array`` starts (the same for every key)."""
    mt = np.zeros(N + 1, np.int64)
    mt[0] = 19650218
    for i in range(1, N):
        mt[i] = (1812433253 * (int(mt[i - 1]) ^ (int(mt[i - 1]) >> 30)) + i) & MASK
    return mt


START = _start_state()


@_jit
def _seed(mt, r, key, keylen):
    """Seed the stream ``mt[r]`` (``N`` words, then the position) as CPython's ``init_by_array``
    does with the 32-bit words ``key[:keylen]`` (what ``random.seed(int)`` passes: the int's words,
    least significant first)."""
    mt[r, :N] = START[:N]
    i, j = 1, 0
    prev = mt[r, 0]  # mt[r, i - 1], kept in a register (the loops are one long dependency chain)
    for _ in range(max(N, keylen)):
        prev = ((mt[r, i] ^ (((prev ^ (prev >> 30)) * 1664525) & MASK)) + key[j] + j) & MASK
        mt[r, i] = prev
        i += 1
        j += 1
        if i >= N:
            mt[r, 0] = mt[r, N - 1]
            i = 1
        if j >= keylen:
            j = 0
    for _ in range(N - 1):
        prev = ((mt[r, i] ^ (((prev ^ (prev >> 30)) * 1566083941) & MASK)) - i) & MASK
        mt[r, i] = prev
        i += 1
        if i >= N:
            mt[r, 0] = mt[r, N - 1]
            i = 1
    mt[r, 0] = 0x80000000
    mt[r, N] = N


@_jit
def _word(mt, r):
    """The next 32-bit word (``genrand_uint32``) of the stream ``mt[r]`` (indexed in place: a
    view per call would cost more than the word)."""
    if mt[r, N] >= N:
        for k in range(N - M):
            y = (mt[r, k] & UPPER) | (mt[r, k + 1] & LOWER)
            mt[r, k] = mt[r, k + M] ^ (y >> 1) ^ (MATRIX_A if y & 1 else 0)
        for k in range(N - M, N - 1):
            y = (mt[r, k] & UPPER) | (mt[r, k + 1] & LOWER)
            mt[r, k] = mt[r, k + M - N] ^ (y >> 1) ^ (MATRIX_A if y & 1 else 0)
        y = (mt[r, N - 1] & UPPER) | (mt[r, 0] & LOWER)
        mt[r, N - 1] = mt[r, M - 1] ^ (y >> 1) ^ (MATRIX_A if y & 1 else 0)
        mt[r, N] = 0
    y = mt[r, mt[r, N]]
    mt[r, N] += 1
    y ^= y >> 11
    y ^= (y << 7) & 0x9D2C5680
    y ^= (y << 15) & 0xEFC60000
    y ^= y >> 18
    return y


@_jit
def _random(mt, r):
    """``random.random()``: 53 bits from two words."""
    a = _word(mt, r) >> 5
    b = _word(mt, r) >> 6
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0)


@_jit
def play(deal_key, deal_keylen, seat_key, seat_keylen, halves, cut, card_c, card_v, card_k, lineups, skind, sp0,
         sp1, bust_limit, display_size,
          colours, top_v, ex, most_cards, bonus, out_score, out_rank, out_win, out_cards, out_busts, out_share,
          out_turns, n_kinds, R, trace_flat, trace_len, comp_rows, comp_row, comp_kind, comp_count):
    """Play ``lineups.shape[0]`` games: game ``g`` deals the deck from the Mersenne Twister seeded
    with the key ``deal_key[g, :deal_keylen[g]]`` (as ``random.Random(game_seed)`` is seeded) and
    seat ``s`` playing ``random`` draws from the one seeded with ``seat_key[g, s, :seat_keylen[g, s]]``
    (``random.Random(f"{game_seed}/seat/{s}")``); fill the ``out_*`` arrays (``[game, seat]``), ``trace_flat`` (per game and
    seat, its score after each of the game's ``trace_len[game]`` rounds, at most ``R``) and the
    components table (``comp_rows[game * players + seat]`` kinds of card held, each as a row of
    ``comp_row`` (game * players + seat), ``comp_kind`` and ``comp_count``).
    Returns ``(games played, trace values, component rows)``: fewer games only when a game broke
    a bound (a bug; the caller reports it)."""
    G, n = lineups.shape
    D = len(card_c)
    mt = np.zeros((n + 1, N + 1), np.int64)  # a stream per seat, and the deal's (last)
    keys = np.zeros(D, np.int64)
    tr = np.zeros((n, R), np.int64)
    held_kinds = np.zeros((n, n_kinds), np.int64)
    tpos = 0
    cpos = 0
    V = top_v + 1
    display = np.empty(D + 1, np.int64)
    gain = np.zeros((n, colours), np.int64)
    hc = np.zeros((n, colours), np.int64)
    held = np.zeros(n, np.int64)
    pile = np.zeros(n, np.int64)
    done = np.zeros(n, np.int64)
    busts = np.zeros(n, np.int64)
    in_colour = np.zeros(n, np.int64)
    cur = np.zeros(n, np.int64)
    score = np.zeros(n, np.int64)
    unseen = np.zeros((colours, V), np.int64)
    comp = np.zeros((colours, V), np.int64)
    a = np.zeros(colours, np.int64)
    winner = np.zeros(n, np.bool_)
    for i in range(D):
        comp[card_c[i], card_v[i]] += 1
    for g in range(G):
        _seed(mt, n, deal_key[g], deal_keylen[g])  # the deal: one random() per card, sorted (rules.shuffled)
        for i in range(D):
            hi_word = _word(mt, n) >> 5
            keys[i] = (hi_word << 26) | (_word(mt, n) >> 6)
        order = np.argsort(keys, kind="mergesort")
        for s in range(n):
            if seat_keylen[g, s]:
                _seed(mt, s, seat_key[g, s], seat_keylen[g, s])
        gain[:, :] = 0
        hc[:, :] = 0
        held[:] = 0
        pile[:] = 0
        done[:] = 0
        busts[:] = 0
        in_colour[:] = 0
        for s in range(n):
            cur[s] = bonus[s]
        unseen[:, :] = comp
        n_unseen = D
        lo = cut if halves else 0
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
        bad = False
        while True:
            if need_refill:  # rules: Refill (never busts); the last card out ends the half
                need_refill = False
                k = min(display_size, hi - lo)
                for _ in range(k):
                    hi -= 1
                    idx = order[hi]
                    unseen[card_c[idx], card_v[idx]] -= 1
                    display[tail] = idx
                    tail += 1
                    total += card_v[idx]
                n_unseen -= k
                if hi == lo:
                    end_half = True
            if end_half:  # score the half; the display leaves the game
                end_half = False
                for s in range(n):
                    best = 0
                    top = gain[s, 0]
                    for c in range(1, colours):
                        if gain[s, c] > top:
                            top = gain[s, c]
                            best = c
                    done[s] += top - held[s]
                    in_colour[s] += hc[s, best]
                head = 0
                tail = 0
                total = 0
                if halves and half == 0:
                    half = 1
                    lo = 0
                    hi = cut
                    gain[:, :] = 0
                    hc[:, :] = 0
                    held[:] = 0
                    starter = (starter + 1) % n
                    current = starter
                    need_refill = True
                    continue
                break
            seat = current
            si = lineups[g, seat]
            kind = skind[si]
            front = display[head]
            fc = card_c[front]
            fv = card_v[front]
            if kind == 1 or kind == 2:  # the best colour so far (ties: the lowest index)
                top = gain[seat, 0]
                best = 0
                for c in range(1, colours):
                    if gain[seat, c] > top:
                        top = gain[seat, c]
                        best = c
            if kind == 0:  # threshold: reveal while the display total is at most the limit
                take = total > sp0[si]
            elif kind == 2:  # colour
                if held[seat] == 0:
                    take = fv >= sp1[si]
                else:
                    take = fc == best and fv >= sp0[si]
            elif kind == 3:  # random: one random() per decision
                take = _random(mt, seat) < 0.5
            else:  # greedy: the take's score change against a reveal's expected change
                if gain[seat, fc] == top:
                    other = -(10 ** 9)
                    for c in range(colours):
                        if c != fc and gain[seat, c] > other:
                            other = gain[seat, c]
                else:
                    other = top
                mine = gain[seat, fc] + fv + 1
                take_gain = (mine if mine > other else other) - 1 - top
                room = bust_limit - total
                if room >= top_v:
                    reveal_gain = 0.0
                else:
                    low = room + 1 if room >= 0 else 0
                    if ex == 0:
                        skip = card_v[display[tail - 1]]
                    elif ex == 1:
                        skip = fv
                    else:
                        skip = -1
                    for c in range(colours):
                        a[c] = gain[seat, c]
                    for j in range(head, tail):
                        d = display[j]
                        a[card_c[d]] += card_v[d] + 1
                    top_a = a[0]
                    arg = 0
                    for c in range(1, colours):
                        if a[c] > top_a:
                            top_a = a[c]
                            arg = c
                    second_a = -(10 ** 9)
                    for c in range(colours):
                        if c != arg and a[c] > second_a:
                            second_a = a[c]
                    lose = (tail - head) + 1 + top
                    tot = 0
                    for c in range(colours):
                        other = second_a if c == arg else top_a
                        base = a[c] + 1
                        for v in range(low, top_v + 1):
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
                held_kinds[seat, card_k[front]] += 1
                turn += 1
                top = gain[seat, 0]
                for c in range(1, colours):
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
                c0 = card_c[idx]
                v0 = card_v[idx]
                unseen[c0, v0] -= 1
                n_unseen -= 1
                prev_v = card_v[display[tail - 1]]
                display[tail] = idx
                tail += 1
                total += v0
                busted = False
                if total > bust_limit:
                    if not ((ex == 0 and v0 == prev_v) or (ex == 1 and v0 == card_v[display[head]])):
                        for j in range(head, tail):
                            d = display[j]
                            gain[seat, card_c[d]] += card_v[d] + 1
                            hc[seat, card_c[d]] += 1
                            held_kinds[seat, card_k[d]] += 1
                        held[seat] += tail - head
                        pile[seat] += tail - head
                        head = 0
                        tail = 0
                        total = 0
                        busts[seat] += 1
                        top = gain[seat, 0]
                        for c in range(1, colours):
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
                    bad = True
                    break
                for s in range(n):
                    tr[s, rounds] = cur[s]
                rounds += 1
        if bad:
            return g, tpos, cpos
        if in_round:
            if rounds >= R:
                return g, tpos, cpos
            for s in range(n):
                tr[s, rounds] = cur[s]
            rounds += 1
        trace_len[g] = rounds
        for s in range(n):
            for r in range(rounds):
                trace_flat[tpos] = tr[s, r]
                tpos += 1
            first = cpos
            for k in range(n_kinds):
                if held_kinds[s, k]:
                    comp_row[cpos] = g * n + s
                    comp_kind[cpos] = k
                    comp_count[cpos] = held_kinds[s, k]
                    cpos += 1
                    held_kinds[s, k] = 0
            comp_rows[g * n + s] = cpos - first
        out_turns[g] = turn
        # scores, winners (tie_break) and ranks (Dao.ranks_given)
        top = bonus[0] + done[0]
        for s in range(n):
            score[s] = bonus[s] + done[s]
            if score[s] > top:
                top = score[s]
        most = -1
        for s in range(n):
            if score[s] == top and pile[s] > most:
                most = pile[s]
        k = 0
        for s in range(n):
            winner[s] = score[s] == top and (not most_cards or pile[s] == most)
            if winner[s]:
                k += 1
        for s in range(n):
            r = 1
            if most_cards:
                for t in range(n):
                    if score[t] > score[s] or (score[t] == score[s] and pile[t] > pile[s]):
                        r += 1
            elif not winner[s]:
                r += k
                for t in range(n):
                    if not winner[t] and score[t] > score[s]:
                        r += 1
            out_score[g, s] = score[s]
            out_rank[g, s] = r
            out_win[g, s] = 1.0 / k if winner[s] else 0.0
            out_cards[g, s] = pile[s]
            out_busts[g, s] = busts[s]
            out_share[g, s] = in_colour[s] / pile[s] if pile[s] else np.nan
    return G, tpos, cpos
