"""The numba half of the kernel kit (:mod:`analyser.engine.kernelkit` is the host half): the random
streams a title's kernel shares with the Python engine, and the writers of its fixed output arrays.
Importing this module imports numba; a title's kernel module imports it, and nothing else does.

Random streams: Python's Mersenne Twister (``random.Random``, MT19937), one stream per row of an
``int64`` array ``mt[streams, N + 1]`` (``N`` words, then the position).  :func:`seed` seeds a row
as ``random.Random(x)`` does (``init_by_array`` with the key words :mod:`analyser.engine.kernelkit`
builds), :func:`word` is ``getrandbits(32)``, :func:`random` is ``random()``, :func:`randbelow` is
``randrange(n)`` and :func:`sort_keys` the keys of a "one ``random()`` per item, stable sort"
shuffle.  A game's streams (:func:`game_streams`, seeded by :func:`seed_streams`): one per seat (row
``seat``), for the seats whose strategy draws, and the game's chance stream (row ``players``),
seeded from the game seed.

Output (``out``, a :class:`~analyser.engine.kernelkit.Out`): a game's score trace
(:func:`put_trace`) and its components table rows (:func:`put_components`) go to the flat arrays
at the positions ``out.cursor`` holds.  Compiled functions are cached on disk (``cache=True``)."""

from __future__ import annotations

import numba
import numpy as np

jit = numba.njit(cache=True, nogil=True)
#: A kernel's helper, inlined where it is called (numba's own inlining): a call of a compiled
#: function that takes a record of arrays counts references to each array at every call, which
#: costs more than the work of a small helper.
helper = numba.njit(cache=True, nogil=True, inline="always")

#: Mersenne Twister MT19937 constants (the generator behind ``random.Random``).
N, M = 624, 397
MATRIX_A, UPPER, LOWER, MASK = 0x9908B0DF, 0x80000000, 0x7FFFFFFF, 0xFFFFFFFF
#: ``out.cursor`` slots: trace values and component rows written so far.
TRACE_AT, COMPONENT_AT = 0, 1


def _start_state() -> np.ndarray:
    """``init_genrand(19650218)``, where every ``init_by_array`` starts (the same for every key)."""
    mt = np.zeros(N + 1, np.int64)
    mt[0] = 19650218
    for i in range(1, N):
        mt[i] = (1812433253 * (int(mt[i - 1]) ^ (int(mt[i - 1]) >> 30)) + i) & MASK
    return mt


START = _start_state()


@jit
def seed(mt, r, key, keylen):
    """Seed the stream ``mt[r]`` as CPython's ``init_by_array`` does with the 32-bit words
    ``key[:keylen]`` (what ``random.seed`` passes: an int's words, least significant first)."""
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


@jit
def word(mt, r):
    """The next 32-bit word (``genrand_uint32``) of the stream ``mt[r]`` (indexed in place: a view
    per call would cost more than the word)."""
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


@jit
def random(mt, r):
    """``random.random()``: 53 bits from two words."""
    a = word(mt, r) >> 5
    b = word(mt, r) >> 6
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0)


@jit
def randbelow(mt, r, n):
    """``random.randrange(n)`` for ``0 < n < 2**32``: ``getrandbits(n.bit_length())`` until below ``n``."""
    k = 0
    while (n >> k) != 0:
        k += 1
    while True:
        x = word(mt, r) >> (32 - k)
        if x < n:
            return x


@jit
def sort_keys(mt, r, keys, count):
    """``keys[:count]``: one ``random()`` per item as a 53-bit whole number (the same order as the
    floats), so that a stable sort of them is a shuffle of ``sorted(items, key=random())``."""
    for i in range(count):
        hi = word(mt, r) >> 5
        keys[i] = (hi << 26) | (word(mt, r) >> 6)


#: Games whose chance streams :func:`seed_streams` seeds together.
SEED_BLOCK = 16


@jit
def game_streams(players):
    """A game's streams at ``players`` seats, unseeded (:func:`seed_streams` seeds them): row ``s``
    seat ``s``'s stream, row ``players`` the chance stream, then :data:`SEED_BLOCK` rows that hold the
    chance streams of the block of games under way."""
    return np.zeros((players + 1 + SEED_BLOCK, N + 1), np.int64)


@jit
def seed_streams(mt, seeds, g):
    """Seed game ``g``'s streams in ``mt`` (:func:`game_streams`; ``seeds``, a
    :class:`~analyser.engine.kernelkit.Seeds`): the chance stream, and the stream of each seat whose
    strategy draws.  Called for games 0, 1, 2, ... in order: the first game of each block of
    :data:`SEED_BLOCK` seeds the chance streams of the whole block (:func:`seed_chances`), and each
    game takes its own from there."""
    n = seeds.seat_keylen.shape[1]
    at = g % SEED_BLOCK
    if at == 0:
        seed_chances(mt[n + 1:], seeds, g)
    mt[n, :] = mt[n + 1 + at, :]
    for s in range(n):
        if seeds.seat_keylen[g, s]:
            seed(mt, s, seeds.seat_key[g, s], seeds.seat_keylen[g, s])


@jit
def seed_chances(block, seeds, first):
    """Seed the chance streams of games ``first`` on (``seeds``, a
    :class:`~analyser.engine.kernelkit.Seeds`; as many as ``block`` has rows, fewer at the slice's
    end) into the rows of ``block``, each as :func:`seed` does, the streams step by step together:
    a stream's seeding is one long chain of dependent steps, and the processor overlaps the chains
    of different streams."""
    count = min(block.shape[0], seeds.key.shape[0] - first)
    if count <= 0:
        return
    if np.any(seeds.keylen[first:first + count] > N):  # (never: a game seed's key has at most two words)
        for k in range(count):
            seed(block, k, seeds.key[first + k], seeds.keylen[first + k])
        return
    prev = np.empty(count, np.int64)
    j = np.zeros(count, np.int64)
    for k in range(count):
        block[k, :N] = START[:N]
        prev[k] = block[k, 0]
    i = 1
    for _ in range(N):
        for k in range(count):
            p = ((block[k, i] ^ (((prev[k] ^ (prev[k] >> 30)) * 1664525) & MASK))
                 + seeds.key[first + k, j[k]] + j[k]) & MASK
            block[k, i] = p
            prev[k] = p
            j[k] = j[k] + 1 if j[k] + 1 < seeds.keylen[first + k] else 0
        i += 1
        if i >= N:
            for k in range(count):
                block[k, 0] = block[k, N - 1]
            i = 1
    for _ in range(N - 1):
        for k in range(count):
            p = ((block[k, i] ^ (((prev[k] ^ (prev[k] >> 30)) * 1566083941) & MASK)) - i) & MASK
            block[k, i] = p
            prev[k] = p
        i += 1
        if i >= N:
            for k in range(count):
                block[k, 0] = block[k, N - 1]
            i = 1
    for k in range(count):
        block[k, 0] = 0x80000000
        block[k, N] = N


@jit
def put_trace(out, g, trace, rounds):
    """Game ``g``'s score trace: ``trace[seat, :rounds]`` per seat, seat 0 first.  False when
    ``rounds`` is more than the batch allowed for (a bound broken: a bug)."""
    if rounds > trace.shape[1]:
        return False
    at = out.cursor[TRACE_AT]
    for s in range(trace.shape[0]):
        for r in range(rounds):
            out.trace[at] = trace[s, r]
            at += 1
    out.cursor[TRACE_AT] = at
    out.trace_len[g] = rounds
    return True


@jit
def put_components(out, g, held):
    """Game ``g``'s rows of the components table: per seat, each kind ``k`` with ``held[seat, k]``
    copies (none when 0), kinds ascending; ``held`` is cleared."""
    n, kinds = held.shape
    at = out.cursor[COMPONENT_AT]
    for s in range(n):
        first = at
        for k in range(kinds):
            if held[s, k]:
                out.comp[0, at] = g * n + s
                out.comp[1, at] = k
                out.comp[2, at] = held[s, k]
                at += 1
                held[s, k] = 0
        out.comp_rows[g * n + s] = at - first
    out.cursor[COMPONENT_AT] = at


@helper
def above(score, tie, t, s):
    """Whether seat ``t`` places above seat ``s``: a higher score, or the same and a higher ``tie``."""
    return score[t] > score[s] or (score[t] == score[s] and tie[t] > tie[s])


@jit
def shared_ranks(out, g, score, tie, rank_column, win_column):
    """Game ``g``'s win shares (``out.floats[g, :, win_column]``) and ranks (``out.ints[g, :,
    rank_column]``): seats compare by ``score``, then by ``tie`` (``score`` again: no tie-break);
    the seats no seat places above share the win, and a seat's rank is 1 plus the seats placed above
    it (:meth:`analyser.engine.core.Game.ranks_given` by default, with ``score`` as ``tie``)."""
    n = len(score)
    k = 0
    for s in range(n):
        r = 1
        for t in range(n):
            if above(score, tie, t, s):
                r += 1
        out.ints[g, s, rank_column] = r
        if r == 1:
            k += 1
    for s in range(n):
        out.floats[g, s, win_column] = 1.0 / k if out.ints[g, s, rank_column] == 1 else 0.0
