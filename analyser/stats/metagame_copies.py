"""Strategies of a tournament whose results cannot be told apart (exact copies, or strategies too
close for the games played): finding them (:func:`exact_copies`, :func:`indistinguishable`) and
the finding that names them.  The meta-game (:mod:`analyser.stats.metagame`) is solved on their
classes, a class's weight shared equally among its strategies.  Exact copies are told by play:
every table plays the same game seeds, so two strategies that play alike give the same results
in the same seat beside the same opponents.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

#: Paired games (see :func:`exact_copies`) needed, all with identical results, before two
#: strategies are said to play exactly alike.
EXACT_MIN_GAMES = 30
#: The results compared game by game (those the frame has).
RESULT_COLUMNS = ("rank", "win", "score")


def exact_copies(frame: pd.DataFrame, names: list[str]) -> dict[tuple[int, int], dict]:
    """Paired games of every two strategies, and whether their results were identical in all: for
    each pair ``i < j`` with a paired game (a game seating ``i`` and not ``j``, and the game of the
    same seed at another table seating ``j`` in ``i``'s place beside the same opponents),
    ``{"games": paired games, "differ": how many gave different results}``.  ``frame``: a
    tournament's results; empty for a frame without tables."""
    if not len(frame) or "table" not in frame:
        return {}
    index = {s: i for i, s in enumerate(names)}
    seed = "game_seed" if "game_seed" in frame else "game_index"
    cols = [c for c in RESULT_COLUMNS if c in frame]
    d = frame.sort_values(["table", "game_index", "seat"], kind="stable")
    n = int(d["players"].iloc[0]) if "players" in d else int(d["seat"].max()) + 1
    strat = np.array([index[s] for s in d["strategy"].astype(str)]).reshape(-1, n)
    res = d[cols].to_numpy(dtype=float).reshape(-1, n * len(cols)) if cols else np.zeros((len(strat), 0))
    seeds = d[seed].to_numpy()[::n]
    games = {(int(g) if isinstance(g, (int, np.integer)) else g, tuple(line)): k
             for k, (g, line) in enumerate(zip(seeds.tolist(), strat.tolist()))}
    m = len(names)
    out: dict[tuple[int, int], dict] = {}
    for (g, line), k in games.items():
        present = set(line)
        for pos, i in enumerate(line):
            for j in range(m):
                if j in present or j < i:  # each pair once: from the game seating the lower index
                    continue
                other = games.get((g, line[:pos] + (j,) + line[pos + 1:]))
                if other is None:
                    continue
                rec = out.setdefault((i, j), {"games": 0, "differ": 0})
                rec["games"] += 1
                rec["differ"] += int(not np.array_equal(res[k], res[other]))
    return out


def indistinguishable(ahead: np.ndarray, boot: np.ndarray,
                      paired: dict | None = None) -> tuple[np.ndarray, list[dict]]:
    """Classes of strategies whose results cannot be told apart: ``i`` and ``j`` play exactly alike
    (``paired``: :func:`exact_copies`; identical results in at least :data:`EXACT_MIN_GAMES`
    paired games), or the 95% interval of ``i``'s share ahead of ``j`` holds 1/2 and, against each
    other strategy both met, that of the difference of their shares holds 0.  ``ahead``: (m, m)
    shares finished ahead (NaN: never met); ``boot``: (B, m, m) in each resample.  A strategy joins
    the first class, in order, it cannot be told apart from in full.  Returns ``(group (m,),
    pairs)``: each strategy's class and, per pair, ``{"i", "j", "ahead", "low", "high", "exact",
    "paired", "differ"}``."""
    m = len(ahead)
    paired = paired or {}
    boot = np.asarray(boot, dtype=float).reshape(-1, m, m)

    def span(x):
        x = np.asarray(x, dtype=float)
        return (float(np.percentile(x, 2.5)), float(np.percentile(x, 97.5))) if len(x) else (np.nan, np.nan)

    def same(i, j):
        rec = paired.get((min(i, j), max(i, j)), {"games": 0, "differ": 0})
        extra = {"paired": rec["games"], "differ": rec["differ"]}
        exact = rec["differ"] == 0 and rec["games"] >= EXACT_MIN_GAMES
        if ahead[i, j] != ahead[i, j]:
            if not exact:
                return None
            return {"i": i, "j": j, "ahead": np.nan, "low": np.nan, "high": np.nan, "exact": True, **extra}
        lo, hi = span(boot[:, i, j]) if len(boot) else (ahead[i, j], ahead[i, j])
        found = {"i": i, "j": j, "ahead": float(ahead[i, j]), "low": lo, "high": hi, "exact": bool(exact), **extra}
        if exact:
            return found
        if not lo <= 0.5 <= hi:
            return None
        for k in range(m):
            if k in (i, j) or ahead[i, k] != ahead[i, k] or ahead[j, k] != ahead[j, k]:
                continue
            d = ahead[i, k] - ahead[j, k]
            dlo, dhi = span(boot[:, i, k] - boot[:, j, k]) if len(boot) else (d, d)
            if not min(dlo, d) <= 0 <= max(dhi, d):
                return None
        return found

    group, members, pairs = np.zeros(m, dtype=int), [], []
    for i in range(m):
        for c, who in enumerate(members):
            found = [same(j, i) for j in who]
            if all(found):
                group[i] = c
                who.append(i)
                pairs += found
                break
        else:
            group[i] = len(members)
            members.append([i])
    return group, pairs


def records(meta) -> list[dict]:
    """One record per class of strategies that cannot be told apart, for the ``indistinguishable``
    macros of ``sentences/metagame.j2`` (``meta``: the :class:`analyser.stats.metagame.MetaGame`):
    clear only when every pair of the class plays exactly alike, else possible."""
    out = []
    t = meta.table.set_index("strategy")
    for group in meta.classes:
        pairs = [d for d in meta.same if d["a"] in group and d["b"] in group]
        exact = all(d["exact"] for d in pairs)
        out.append({"group": list(group), "pairs": pairs, "met": [d for d in pairs if d["ahead"] == d["ahead"]],
                    "exact": exact, "strength": "clear" if exact else "possible",
                    "others": len(meta.strategies) > 2, "weight": t.loc[group[0], "weight"],
                    "nash_average_pp": t.loc[group[0], "nash_average_pp"], "boot": meta.bootstrap,
                    "columns": "/".join(RESULT_COLUMNS), "exact_min": EXACT_MIN_GAMES})
    return out
