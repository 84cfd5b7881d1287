"""DAO's compiled engine: the rules of :mod:`analyser.titles.dao.rules` and the built-in strategies
``threshold``, ``greedy``, ``colour`` and ``random`` (strategies/dao.py) in one numba kernel
(:mod:`analyser.compiled` describes the interface; docs/compiled.md the pattern).

What stays in Python, so that both engines play the very same games:

* the deal: ``random.Random(game_seed)`` draws one ``random()`` per card, as
  :func:`~analyser.titles.dao.rules.shuffled` does; ``random()`` is made of two raw Mersenne
  Twister words (``(a >> 5) * 2**26 + (b >> 6)`` over ``2**53``), so one ``getrandbits`` call gives
  every key of a deal and a stable argsort of the 53-bit integers is the order ``sorted`` gives;
* the ``random`` strategy's stream: ``random.Random(f"{game_seed}/seat/{k}")``, its ``random()``
  values drawn ahead the same way, at most ``2 * deck // players + 3`` per seat (a seat plays at
  most ``ceil(turns / players)`` turns per half, and a game has at most ``2 * deck`` turns);
* the lineup of each game (:func:`analyser.runner.lineup`).

The kernel then plays each game as :meth:`Dao.apply` does and fills the per-seat results
(score, rank, win share, cards, busts, colour share, turns), the score trace (one value per round
of turns) and each seat's count of every card kind (the components table).
"""

from __future__ import annotations

import dataclasses
import math
import random
import time
from functools import lru_cache

import numpy as np

from analyser.componenttable import _pack
from analyser.titles.dao.rules import full_deck

#: The built-in strategies the kernel plays, by name -> kernel code.
STRATEGY_CODES = {"threshold": 0, "greedy": 1, "colour": 2, "random": 3}
#: The rule options the kernel implements (a new option must be added here and to the kernel).
RULE_OPTIONS = frozenset({"bust_limit", "display_size", "colours", "values", "equal_exception", "tie_break",
                          "two_player_halves", "seat_bonus"})
_EXCEPTION = {"adjacent": 0, "front": 1, "off": 2}
_LIMIT = 2 ** 62
#: Bytes of scratch per batch slice: the kernel plays a batch in slices of about this size.
SLICE_BYTES = 16_000_000


def _play(order, halves, cut, card_c, card_v, card_k, lineups, skind, sp0, sp1, draws, bust_limit, display_size,
          colours, top_v, ex, most_cards, bonus, out_score, out_rank, out_win, out_cards, out_busts, out_share,
          out_turns, n_kinds, R, trace_flat, trace_len, comp_row, comp_kind, comp_count):
    """Play ``order.shape[0]`` games (deal ``g``: ``order[g]``, indexes into the unshuffled deck,
    top card last); fill the ``out_*`` arrays (``[game, seat]``), ``trace_flat`` (per game and
    seat, its score after each of the game's ``trace_len[game]`` rounds, at most ``R``) and the
    components table ``comp_*`` (per game and seat, each card kind it holds and how many).
    Returns ``(games played, trace values, component rows)``: fewer games only when a game broke
    a bound (a bug; the caller reports it)."""
    G, D = order.shape
    n = lineups.shape[1]
    B = draws.shape[2]
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
    used = np.zeros(n, np.int64)
    cur = np.zeros(n, np.int64)
    score = np.zeros(n, np.int64)
    unseen = np.zeros((colours, V), np.int64)
    comp = np.zeros((colours, V), np.int64)
    a = np.zeros(colours, np.int64)
    winner = np.zeros(n, np.bool_)
    for i in range(D):
        comp[card_c[i], card_v[i]] += 1
    for g in range(G):
        gain[:, :] = 0
        hc[:, :] = 0
        held[:] = 0
        pile[:] = 0
        done[:] = 0
        busts[:] = 0
        in_colour[:] = 0
        used[:] = 0
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
        need_refill = True
        end_half = False
        bad = False
        while True:
            if need_refill:  # rules: Refill (never busts); the last card out ends the half
                need_refill = False
                k = min(display_size, hi - lo)
                for _ in range(k):
                    hi -= 1
                    idx = order[g, hi]
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
                u = used[seat]
                if u >= B:
                    bad = True
                    break
                take = draws[g, seat, u] < 0.5
                used[seat] = u + 1
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
                current = (seat + 1) % n
                if head == tail:
                    head = 0
                    tail = 0
                    need_refill = True
            else:  # rules: Reveal, and a bust over the limit unless the equal-value exception holds
                hi -= 1
                idx = order[g, hi]
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
                    current = (seat + 1) % n
                    if busted:
                        need_refill = True
            if turn % n == 0:  # the score trace: every seat's running score after each round
                if rounds >= R:
                    bad = True
                    break
                for s in range(n):
                    tr[s, rounds] = cur[s]
                rounds += 1
        if bad:
            return g, tpos, cpos
        if turn % n != 0:
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
            for k in range(n_kinds):
                if held_kinds[s, k]:
                    comp_row[cpos] = g * n + s
                    comp_kind[cpos] = k
                    comp_count[cpos] = held_kinds[s, k]
                    cpos += 1
                    held_kinds[s, k] = 0
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


_kernel = None


def kernel():
    """The compiled kernel (compiled on first use, cached on disk by numba)."""
    global _kernel
    if _kernel is None:
        import numba
        _kernel = numba.njit(cache=True, nogil=True)(_play)
    return _kernel


class DaoEngine:
    """DAO's compiled engine (the interface of :mod:`analyser.compiled`)."""

    strategies = tuple(STRATEGY_CODES)

    def unsupported(self, game, params, players: int, strategies: list[str]) -> str | None:
        """None when the kernel covers the run, else the reason (one line)."""
        from analyser.titles.dao.rules import Dao
        if not isinstance(game, Dao) or game.id != "dao" or getattr(game, "source", None):
            return "the title is not the built-in DAO"
        extra = sorted({f.name for f in dataclasses.fields(params)} - RULE_OPTIONS)
        if extra:
            return f"the compiled kernel does not implement the rule option(s) {', '.join(extra)}"
        try:
            self.strategy_table(strategies)
        except ValueError as e:
            return str(e)
        return None

    def strategy_table(self, strategies) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per strategy spec: its kernel code and two parameters (threshold: limit; colour:
        min_value, start).  ValueError (the reason) for a spec the kernel does not cover."""
        return _strategy_table(tuple(strategies))

    def run_batch(self, job, game, params):
        """Games ``job.start`` to ``job.stop - 1`` as the Python path's :class:`BatchResult`."""
        from analyser.runner import ROW_FIELDS, BatchResult, GameFailure
        from analyser.seeding import game_seeds

        t0 = time.perf_counter()
        n, m = job.players, len(job.strategies)
        skind, sp0, sp1 = self.strategy_table(job.strategies)
        deck = full_deck(params.colours, params.values)
        D = len(deck)
        card_c = np.array([c.colour for c in deck], dtype=np.int64)
        card_v = np.array([c.value for c in deck], dtype=np.int64)
        labels = sorted({str(c) for c in deck})
        where = {t: i for i, t in enumerate(labels)}
        card_k = np.array([where[str(c)] for c in deck], dtype=np.int64)
        K = len(labels)
        top_v = max(v for v, _ in params.value_counts)
        halves = params.halves(n)
        cut = D - D // 2
        bonus = np.array(params.bonus(n), dtype=np.int64)
        ex = _EXCEPTION[params.equal_exception]
        most_cards = params.tie_break == "most_cards"
        uses_random = bool((skind == 3).any())
        B = 2 * D // n + 3 if uses_random else 1
        R = -(-2 * D // n) + 1
        per_game = 8 * D * 6 + n * (8 * R + 8 * B + 64)
        step = max(1, min(1000, SLICE_BYTES // per_game))
        play = kernel()
        names = list(ROW_FIELDS) + list(game.metric_columns)
        result = BatchResult(start=job.start, rows=[])
        parts: list[dict] = []
        comp_rows, comp_kinds, comp_counts = [], [], []
        present = np.zeros(K, dtype=bool)
        played = 0
        try:
            for a in range(job.start, job.stop, step):
                b = min(a + step, job.stop)
                G = b - a
                seeds = game_seeds(job.root_seed, a, b)
                lineups = _lineups(a, b, n, m)
                raw = b"".join([random.Random(s).getrandbits(64 * D).to_bytes(8 * D, "little") for s in seeds])
                w = np.frombuffer(raw, dtype="<u8").reshape(G, D)  # word 2i in the low half, 2i + 1 high
                order = np.argsort(((w & 0xFFFFFFFF) >> 5 << 26) | (w >> 38), axis=1, kind="stable")
                draws = np.zeros((G, n, B))
                if uses_random:
                    for g, k in zip(*np.nonzero(skind[lineups] == 3)):
                        r = random.Random(f"{seeds[g]}/seat/{k}").getrandbits(64 * B).to_bytes(8 * B, "little")
                        u = np.frombuffer(r, dtype="<u4").reshape(B, 2)
                        draws[g, k] = ((u[:, 0] >> 5) * 67108864.0 + (u[:, 1] >> 6)) * (1.0 / 9007199254740992.0)
                ints = [np.zeros((G, n), dtype=np.int64) for _ in range(5)]
                win, share = np.zeros((G, n)), np.zeros((G, n))
                turns = np.zeros(G, dtype=np.int64)
                trace_flat = np.empty(G * n * R, dtype=np.int64)
                trace_len = np.zeros(G, dtype=np.int64)
                comp = np.empty((3, G * D), dtype=np.int64)
                score, rank, cards, busts, _ = ints
                ok, used, rows = play(order, halves, cut, card_c, card_v, card_k, lineups, skind, sp0, sp1, draws,
                                      params.bust_limit, params.display_size, params.colours, top_v, ex, most_cards,
                                      bonus, score, rank, win, cards, busts, share, turns, K, R, trace_flat,
                                      trace_len, comp[0], comp[1], comp[2])
                parts.append({
                    "game_index": np.repeat(np.arange(a, a + ok, dtype=np.int64), n),
                    "game_seed": np.repeat(np.array(seeds[:ok], dtype=np.uint64), n),
                    "seat": np.tile(np.arange(n, dtype=np.int64), ok), "strategy": lineups[:ok].ravel(),
                    "score": score[:ok].ravel(), "rank": rank[:ok].ravel(), "win": win[:ok].ravel(),
                    "cards": cards[:ok].ravel(), "busts": busts[:ok].ravel(), "colour_share": share[:ok].ravel(),
                    "turns": np.repeat(turns[:ok], n),
                    "trace": trace_flat[:used],
                    "trace_len": np.repeat(trace_len[:ok], n)})
                comp_rows.append(comp[0, :rows] + played * n)
                comp_kinds.append(comp[1, :rows])
                comp_counts.append(comp[2, :rows])
                present[comp[1, :rows]] = True
                played += ok
                if ok < G:
                    result.error = GameFailure(f"game {a + ok} broke a bound of the compiled DAO kernel (a bug); "
                                               "play it with --engine python", seeds[ok], a + ok)
                    break
        except KeyboardInterrupt:
            result.interrupted = True
        result.done = played
        result.columns = _columns(parts, names)
        result.components = _components(comp_rows, comp_kinds, comp_counts, present, labels, job.start, n, played)
        result.seconds = time.perf_counter() - t0
        return result


@lru_cache(maxsize=64)
def _strategy_table(strategies: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    from analyser.registry import builtin_strategies, make_strategy, parse_spec
    builtins = builtin_strategies("dao")
    codes, p0, p1 = [], [], []
    for text in strategies:
        spec = parse_spec(text)
        code = STRATEGY_CODES.get(spec.source)
        if spec.source.endswith(".py") or code is None or spec.source not in builtins:
            raise ValueError(f"strategy {text!r} is not one the kernel plays (built-in "
                             f"{', '.join(STRATEGY_CODES)}, with their parameters)")
        inst = make_strategy(text, "dao")
        values = (inst.limit, 0) if code == 0 else (inst.min_value, inst.start) if code == 2 else (0, 0)
        if not all(isinstance(v, int) and -_LIMIT < v < _LIMIT for v in values):
            raise ValueError(f"strategy {text!r} has a parameter outside the kernel's whole numbers")
        codes.append(code)
        p0.append(values[0])
        p1.append(values[1])
    return (np.array(codes, dtype=np.int64), np.array(p0, dtype=np.int64), np.array(p1, dtype=np.int64))


def _lineups(a: int, b: int, n: int, m: int) -> np.ndarray:
    """``[game, seat]`` strategy indexes of games ``a`` to ``b - 1``: :func:`analyser.runner.lineup`
    for each, with one :func:`~analyser.runner.block_order` per block of ``n`` games."""
    from analyser.runner import block_order
    if m == 1:
        return np.zeros((b - a, n), dtype=np.int64)
    index = np.arange(a, b, dtype=np.int64)
    block, shift = np.divmod(index, n)
    first = int(block[0])
    orders = np.array([block_order(k, n) for k in range(first, int(block[-1]) + 1)], dtype=np.int64)
    base = (block % (m // math.gcd(m, n))) * n
    where = (np.arange(n, dtype=np.int64)[None, :] + shift[:, None]) % n
    return (base[:, None] + orders[block - first][np.arange(b - a)[:, None], where]) % m


def _columns(parts: list[dict], names: list[str]) -> dict:
    """The batch's columns as :func:`analyser.runner.to_columns` makes them."""
    from analyser import traces
    if not parts or not sum(len(p["seat"]) for p in parts):
        return {name: np.array([]) for name in names}
    out = {name: np.concatenate([p[name] for p in parts]) for name in names if name != "score_trace"}
    values = np.concatenate([p["trace"] for p in parts])
    if len(values) == 0 or (-2 ** 31 <= values.min() and values.max() < 2 ** 31):
        values = values.astype(np.int32)
    lengths = np.concatenate([p["trace_len"] for p in parts])
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    out["score_trace"] = traces.Packed(values, offsets, None)
    return {name: out[name] for name in names}


def _components(rows, kinds, counts, present, labels, start: int, n: int, games: int) -> dict:
    """The batch's components table as :func:`analyser.componenttable.component_columns` makes it:
    the labels of the kinds that occur (in text order, as the kinds are numbered), and the codes
    renumbered among them."""
    from analyser.componenttable import component_columns
    row = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)
    if not len(row):
        return component_columns([], [0] * (games * n), start, n, games)
    code = (np.cumsum(present) - 1)[np.concatenate(kinds)]
    return {"start": start, "players": n, "rows": _pack(np.bincount(row, minlength=games * n)), "code": _pack(code),
            "count": _pack(np.concatenate(counts)), "labels": [labels[i] for i in np.flatnonzero(present)]}


ENGINE = DaoEngine()
