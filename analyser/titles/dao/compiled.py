"""DAO's compiled engine: the rules of :mod:`analyser.titles.dao.rules` and the built-in strategies
``threshold``, ``greedy``, ``colour`` and ``random`` (strategies/dao.py) in one numba kernel
(:mod:`analyser.engine.compiled` describes the interface; docs/compiled.md the pattern).

How both engines play the very same games: the kernel (:mod:`analyser.titles.dao.kernel`)
carries Python's Mersenne Twister, so it seeds the deal's stream from the game seed as
``random.Random(game_seed)`` does (the game seed's 32-bit words, ``init_by_array``) and shuffles as
:func:`~analyser.titles.dao.rules.shuffled` does (one ``random()`` per card, a stable sort); a
``random`` seat's stream ``random.Random(f"{game_seed}/seat/{k}")`` is seeded from the key this
module builds (:func:`string_keys`: the text and its SHA-512 hash); the lineup of each game is
:func:`analyser.engine.runner.lineup`'s.

The kernel then plays each game as :meth:`Dao.apply` does and fills the per-seat results
(score, rank, win share, cards, busts, colour share, turns), the score trace (one value per round
of turns) and each seat's count of every card kind (the components table).
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import time
from functools import lru_cache

import numpy as np

from analyser.engine.componenttable import _pack
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


#: 32-bit words of the longest seat-stream seed key: ``f"{game_seed}/seat/{k}"`` (at most 27
#: bytes) and its SHA-512 hash (64 bytes).
KEY_WORDS = 24


def string_keys(texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """The keys ``random.Random(text)`` seeds its Mersenne Twister with, for each text not longer
    than 32 bytes: ``([text, KEY_WORDS] words, [text] key lengths)``.  Seed version 2 reads the
    text's UTF-8 bytes followed by their SHA-512 hash as one big-endian whole number, and passes
    on its 32-bit words, least significant first: the bytes reversed, read four at a time.  (A
    text that starts with a byte other than 0 - a seat stream's starts with a digit - has a
    nonzero top byte, so its key has ``ceil(bytes / 4)`` words.)"""
    blobs, lengths = [], []
    for text in texts:
        data = text.encode()
        whole = (data + hashlib.sha512(data).digest())[::-1]
        lengths.append(-(-len(whole) // 4))
        blobs.append(whole.ljust(4 * KEY_WORDS, b"\0"))
    words = np.frombuffer(b"".join(blobs), dtype="<u4").reshape(len(texts), KEY_WORDS).astype(np.int64)
    return words, np.array(lengths, dtype=np.int64)


#: The rule methods the kernel stands in for: a subclass or a replaced method is played in Python.
_RULE_METHODS = ("initial_state", "legal_actions", "apply", "is_terminal", "scores", "metrics")

class DaoEngine:
    """DAO's compiled engine (the interface of :mod:`analyser.engine.compiled`)."""

    strategies = tuple(STRATEGY_CODES)

    def unsupported(self, game, params, players: int, strategies: list[str]) -> str | None:
        """None when the kernel covers the run, else the reason (one line)."""
        from analyser.titles.dao.rules import Dao
        from analyser.titles.dao import Dao as Title
        if type(game) not in (Dao, Title) or game.id != "dao" or getattr(game, "source", None):
            return "the title is not the built-in DAO"
        changed = [m for m in _RULE_METHODS
                   if getattr(getattr(type(game), m, None), "__qualname__", None) != f"Dao.{m}"
                   or getattr(type(game), m).__module__ != Dao.__module__]
        if changed:  # a rule replaced at run time (a test's planted variant): only Python plays it
            return f"DAO's {', '.join(changed)} is not the built-in one"
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

    def kernel(self):
        """The kernel's numba entry point, :func:`analyser.titles.dao.kernel.play` (imports numba)."""
        from analyser.titles.dao.kernel import play
        return play

    def run_batch(self, job, game, params):
        """Games ``job.start`` to ``job.stop - 1`` as the Python path's :class:`BatchResult`."""
        from analyser.engine.runner import ROW_FIELDS, BatchResult, GameFailure
        from analyser.engine.seeding import game_seeds

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
        R = -(-2 * D // n) + 1  # a game has at most 2 * deck turns (each reveals or takes a card)
        per_game = 8 * D * 4 + n * (8 * R + 8 * KEY_WORDS + 64)
        step = max(1, min(5000, SLICE_BYTES // per_game))
        play = self.kernel()
        names = list(ROW_FIELDS) + list(game.metric_columns)
        result = BatchResult(start=job.start, rows=[])
        parts: list[dict] = []
        comp_sizes, comp_kinds, comp_counts = [], [], []
        present = np.zeros(K, dtype=bool)
        played = 0
        try:
            for a in range(job.start, job.stop, step):
                b = min(a + step, job.stop)
                G = b - a
                seeds = game_seeds(job.root_seed, a, b)
                lineups = _lineups(a, b, n, m)
                s64 = np.array(seeds, dtype=np.uint64)
                deal_key = np.stack([s64 & 0xFFFFFFFF, s64 >> 32], axis=1).astype(np.int64)
                deal_keylen = np.where(s64 >> 32, 2, 1).astype(np.int64)
                seat_key = np.zeros((G, n, KEY_WORDS if uses_random else 1), dtype=np.int64)
                seat_keylen = np.zeros((G, n), dtype=np.int64)
                if uses_random:
                    where = np.nonzero(skind[lineups] == 3)
                    seat_key[where], seat_keylen[where] = string_keys(
                        [f"{seeds[g]}/seat/{k}" for g, k in zip(*(w.tolist() for w in where))])
                ints = [np.zeros((G, n), dtype=np.int64) for _ in range(5)]
                win, share = np.zeros((G, n)), np.zeros((G, n))
                turns = np.zeros(G, dtype=np.int64)
                trace_flat = np.empty(G * n * R, dtype=np.int64)
                trace_len = np.zeros(G, dtype=np.int64)
                comp = np.empty((3, G * D), dtype=np.int64)
                comp_rows = np.zeros(G * n, dtype=np.int64)
                score, rank, cards, busts, _ = ints
                ok, used, rows = play(deal_key, deal_keylen, seat_key, seat_keylen, halves, cut, card_c, card_v,
                                      card_k, lineups, skind, sp0, sp1, params.bust_limit, params.display_size, params.colours, top_v, ex, most_cards,
                                      bonus, score, rank, win, cards, busts, share, turns, K, R, trace_flat,
                                      trace_len, comp_rows, comp[0], comp[1], comp[2])
                parts.append({
                    "game_index": np.repeat(np.arange(a, a + ok, dtype=np.int64), n),
                    "game_seed": np.repeat(np.array(seeds[:ok], dtype=np.uint64), n),
                    "seat": np.tile(np.arange(n, dtype=np.int64), ok), "strategy": lineups[:ok].ravel(),
                    "score": score[:ok].ravel(), "rank": rank[:ok].ravel(), "win": win[:ok].ravel(),
                    "cards": cards[:ok].ravel(), "busts": busts[:ok].ravel(), "colour_share": share[:ok].ravel(),
                    "turns": np.repeat(turns[:ok], n),
                    "trace": trace_flat[:used],
                    "trace_len": np.repeat(trace_len[:ok], n)})
                comp_sizes.append(comp_rows[:ok * n])
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
        result.components = _components(comp_sizes, comp_kinds, comp_counts, present, labels, job.start, n, played)
        result.seconds = time.perf_counter() - t0
        return result


@lru_cache(maxsize=64)
def _strategy_table(strategies: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    from analyser.engine.registry import builtin_strategies, make_strategy, parse_spec
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
    """``[game, seat]`` strategy indexes of games ``a`` to ``b - 1``: :func:`analyser.engine.runner.lineup`
    for each, with one :func:`~analyser.engine.runner.block_order` per block of ``n`` games."""
    from analyser.engine.runner import block_order
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
    """The batch's columns as :func:`analyser.engine.runner.to_columns` makes them."""
    from analyser.engine import traces
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


def _components(sizes, kinds, counts, present, labels, start: int, n: int, games: int) -> dict:
    """The batch's components table as :func:`analyser.engine.componenttable.component_columns` makes it:
    the labels of the kinds that occur (in text order, as the kinds are numbered), and the codes
    renumbered among them."""
    from analyser.engine.componenttable import component_columns
    def joined(parts):
        return parts[0] if len(parts) == 1 else np.concatenate(parts)
    code = joined(kinds) if kinds else np.zeros(0, dtype=np.int64)
    if not len(code):
        return component_columns([], [0] * (games * n), start, n, games)
    if not present.all():  # renumber among the kinds that occur
        code = (np.cumsum(present) - 1)[code]
    return {"start": start, "players": n, "rows": _pack(joined(sizes)), "code": _pack(code),
            "count": _pack(joined(counts)), "labels": [labels[i] for i in np.flatnonzero(present)]}


ENGINE = DaoEngine()
