"""Strategies of a tournament whose results cannot be told apart (exact copies, or strategies too
close for the games played), for the meta-game (:mod:`analyser.stats.metagame`): finding them, and the
finding that names them.  The meta-game is solved on their classes and a class's weight is shared
equally among its strategies."""

from __future__ import annotations

import numpy as np


def _pct(x: float) -> str:
    return f"{x * 100:.1f}%"


def _names(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def indistinguishable(ahead: np.ndarray, boot: np.ndarray) -> tuple[np.ndarray, list[dict]]:
    """Classes of strategies whose results cannot be told apart.

    ``ahead``: ``(m, m)`` shares of games finished ahead (NaN where two never met); ``boot``:
    ``(B, m, m)`` the same in each bootstrap resample (B may be 0).  Strategies ``i`` and ``j``
    cannot be told apart when the 95% percentile interval of ``i``'s share ahead of ``j``
    holds 1/2 and, against every other strategy both met, the interval of the difference of
    their shares holds 0 (exact copies: 1/2 and identical shares).  A strategy joins the first
    class, in the tournament's order, with every member of which it cannot be told apart.
    Returns ``(group (m,), pairs)``: each strategy's class (0..k-1, numbered by first member)
    and, per pair found, ``{"i", "j", "ahead", "low", "high", "exact"}``."""
    m = len(ahead)
    boot = np.asarray(boot, dtype=float).reshape(-1, m, m)

    def span(x):
        x = np.asarray(x, dtype=float)
        return (float(np.percentile(x, 2.5)), float(np.percentile(x, 97.5))) if len(x) else (np.nan, np.nan)

    def same(i, j):
        if ahead[i, j] != ahead[i, j]:
            return None
        lo, hi = span(boot[:, i, j]) if len(boot) else (ahead[i, j], ahead[i, j])
        if not lo <= 0.5 <= hi:
            return None
        exact = ahead[i, j] == 0.5
        for k in range(m):
            if k in (i, j) or ahead[i, k] != ahead[i, k] or ahead[j, k] != ahead[j, k]:
                continue
            d = ahead[i, k] - ahead[j, k]
            dlo, dhi = span(boot[:, i, k] - boot[:, j, k]) if len(boot) else (d, d)
            if not min(dlo, d) <= 0 <= max(dhi, d):
                return None
            exact = exact and d == 0
        return {"i": i, "j": j, "ahead": float(ahead[i, j]), "low": lo, "high": hi, "exact": bool(exact)}

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


def findings(meta) -> list[dict]:
    """One finding per class of strategies that cannot be told apart (:func:`indistinguishable`),
    in the dict shape of :func:`analyser.stats.metagame.findings`; ``meta``: its
    :class:`analyser.stats.metagame.MetaGame`."""
    out = []
    thr = ("cannot be told apart when the 95% interval of the share of games one finishes ahead of the other "
           "holds 50% and, against every other strategy, the 95% interval of the difference of their shares "
           f"holds 0 ({meta.bootstrap} bootstrap resamples); clear when they play exactly alike in these games")
    t = meta.table.set_index("strategy")
    for group in meta.classes:
        pairs = [d for d in meta.same if d["a"] in group and d["b"] in group]
        exact = all(d["exact"] for d in pairs)
        fig = "; ".join(f"{d['a']} ahead of {d['b']} {_pct(d['ahead'])}" for d in pairs)
        iv = "; ".join(f"{_pct(d['low'])}-{_pct(d['high'])}" for d in pairs)
        first = pairs[0]
        others = len(meta.strategies) > 2
        how = ("they play exactly alike in these games: each finishes ahead of the other in 50.0% of their games"
               + (" and has the same share against every other strategy" if others else "") if exact else
               f"{first['a']} finishes ahead of {first['b']} in {_pct(first['ahead'])} of their games (95% CI "
               f"{_pct(first['low'])}-{_pct(first['high'])}, which holds 50%)"
               + (", and against every other strategy their shares agree within their 95% intervals" if others else ""))
        out.append({"topic": "indistinguishable", "strength": "clear" if exact else "possible",
                    "evidence": {"figure": fig, "interval": iv}, "threshold": thr,
                    "sentence": f"{_names(group)} cannot be told apart: {how}; "
                                + (f"the equilibrium shares their weight equally ({_pct(t.loc[group[0], 'weight'])} "
                                   "each) rather than choose one on noise." if t.loc[group[0], "weight"] > 0 else
                                   "the meta-game counts them as one strategy (Nash average "
                                   f"{t.loc[group[0], 'nash_average_pp']:+.1f} pp each), which no equilibrium "
                                   "mix uses.")})
    return out
