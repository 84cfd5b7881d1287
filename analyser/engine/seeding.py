"""Game seeds: the seed of each game of a run, from the run's root seed.  Game ``i`` of a run
with root seed ``S`` has the seed numpy's ``SeedSequence(S, spawn_key=(i,))`` gives as two 32-bit
words (lo, hi): a 64-bit integer that depends on ``S`` and ``i`` alone, whatever the jobs, batches
or backend.  :func:`game_seeds` gives a batch's seeds at once.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np


def game_seed(root_seed: int, index: int) -> int:
    """The game seed of game ``index`` of a run with root seed ``root_seed`` (a 64-bit integer)."""
    lo, hi = np.random.SeedSequence(root_seed, spawn_key=(index,)).generate_state(2, np.uint32).tolist()
    return lo | (hi << 32)


# numpy.random.SeedSequence's constants (its hash mixing of 32-bit words, pool of 4 words)
_INIT_A, _MULT_A, _INIT_B, _MULT_B = 0x43B0D7E5, 0x931E8875, 0x8B51F9DD, 0x58F38DED
_MIX_L, _MIX_R, _M32 = 0xCA01F9DD, 0x4973F715, 0xFFFFFFFF


@lru_cache(maxsize=64)
def _root_pool(root_seed: int) -> tuple[tuple[int, ...], int]:
    """SeedSequence(root_seed, spawn_key=(i,)) before ``i`` is mixed in: the pool after the root's
    words (padded to the pool size), and the running hash constant.  Every game of a run shares
    it; only the game index is mixed in per game."""
    words = []
    n = root_seed
    while True:
        words.append(n & _M32)
        n >>= 32
        if not n:
            break
    words += [0] * (4 - len(words))
    h = _INIT_A

    def hashmix(v):
        nonlocal h
        v ^= h
        h = (h * _MULT_A) & _M32
        v = (v * h) & _M32
        return v ^ (v >> 16)

    def mix(x, y):
        r = (_MIX_L * x - _MIX_R * y) & _M32
        return r ^ (r >> 16)

    pool = [hashmix(w) for w in words[:4]]
    for src in range(4):
        for dst in range(4):
            if src != dst:
                pool[dst] = mix(pool[dst], hashmix(pool[src]))
    for w in words[4:]:
        for dst in range(4):
            pool[dst] = mix(pool[dst], hashmix(w))
    return tuple(pool), h


def game_seeds(root_seed: int, start: int, stop: int) -> list[int]:
    """:func:`game_seed` of games ``start`` to ``stop - 1`` at once: numpy's SeedSequence hashing
    done on arrays of game indices (the root's part once), the same numbers for a fraction of the
    cost.  Game indices of 2**32 and beyond, or a root seed that is not a whole number >= 0, take
    :func:`game_seed` one by one."""
    if stop <= start:
        return []
    if not (isinstance(root_seed, int) and root_seed >= 0 and stop <= 2 ** 32):
        return [game_seed(root_seed, i) for i in range(start, stop)]
    pool, h = _root_pool(root_seed)
    key = np.arange(start, stop, dtype=np.uint32)
    u32 = np.uint32
    with np.errstate(over="ignore"):
        words = []
        for dst in range(4):
            v = key ^ u32(h)
            h = (h * _MULT_A) & _M32
            v *= u32(h)
            v ^= v >> u32(16)
            r = u32(_MIX_L) * u32(pool[dst]) - u32(_MIX_R) * v
            words.append(r ^ (r >> u32(16)))
        hb, out = _INIT_B, []
        for i in range(2):
            v = words[i] ^ u32(hb)
            hb = (hb * _MULT_B) & _M32
            v *= u32(hb)
            out.append(v ^ (v >> u32(16)))
    seeds = (out[0].astype(np.uint64) | (out[1].astype(np.uint64) << np.uint64(32))).tolist()
    if seeds[0] != game_seed(root_seed, start):  # never expected; numpy's own hashing decides
        return [game_seed(root_seed, i) for i in range(start, stop)]
    return seeds
