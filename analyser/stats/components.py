"""Component impact: each component's effect on winning, from the ``component_counts`` table.

A title that records components (:meth:`analyser.engine.core.Game.components`) writes one row per game,
seat and component with the number of copies the seat acquired, held or played (the
:data:`analyser.engine.core.COMPONENTS` table).  This module turns that table, with the results, into
one estimate per component, reduced chunk by chunk into small additive sums like every other
figure of the report (:mod:`analyser.stats.streamed`), so memory does not grow with the number of games.

The estimator (docs/components.md, "Component impact", defines it for users):

* One row per game and seat: ``y`` = the seat's win share (1 for a win, 1/k for a win shared by
  k seats, else 0) and ``x`` = 1 when the seat has the component (count > 0), else 0.
* A linear probability model per component: ``y = beta * x + alpha[strategy, seat] + e``, with
  one intercept per (strategy, seat) pair, fitted by ordinary least squares.  ``beta`` is the
  change in win probability when a seat has the component, compared within the same strategy in
  the same seat (the within estimator: ``x`` and ``y`` centred on their (strategy, seat) means).
* Standard errors are cluster-robust with the game as the cluster (the seats of one game share
  its deal and its outcome), with the small-sample factor ``G/(G-1) * (N-1)/(N-K)`` (G games,
  N rows, K = 1 + the number of (strategy, seat) pairs) - the same numbers as statsmodels'
  ``OLS(...).fit(cov_type="cluster")`` on the table written out.  The 95% interval is
  ``beta +/- 1.96 se`` and the p-value two-sided, both from the normal distribution.
* The p-values of all the title's components with an estimate are corrected for the false
  discovery rate (Benjamini-Hochberg, :func:`statsmodels.stats.multitest.multipletests` with
  ``method="fdr_bh"``); a component is *clear* when its adjusted q is at most :data:`Q` (0.05).
  Clear components have a 95% interval that excludes zero.
* The same model with ``x`` = the number of copies gives the *per-copy* slope (reported beside,
  not corrected, not ranked).
* A component held by every seat, by no seat, or - within every (strategy, seat) pair - by all
  seats or by none has no comparison to make: it gets no estimate and the reason instead; so
  does one held by fewer than :data:`MIN_HOLDERS` seat-games (or missing from fewer), where the
  cluster-robust interval is unreliable.

Additive sums.  The coefficient needs per (strategy, seat) pair the rows, the sum of ``y``, and
per component the sums of ``x``, ``x*x`` and ``x*y``.  The cluster "meat" ``sum over games of
(sum over the game's rows of xc*e)^2`` (``xc`` the centred ``x``, ``e`` the residual) depends on
the coefficient and the pair means, known only at the end; but each row's ``xc*e`` is a fixed
linear combination of the monomials ``(x*y, x, x*x, y, 1)`` whose weights depend only on the
row's (strategy, seat) pair and on those final numbers.  So the square of a game's sum is a
quadratic form in the per-game sums of the monomials by pair, and its sum over games needs only
the sums over games of the products of two rows' monomials, per pair of (strategy, seat) pairs -
additive over chunks.  One pass over the games gives the exact cluster-robust variance
(:func:`chunk_sums`, :func:`estimate`).  Only rows that hold the component carry ``x``, so the
work per chunk grows with the component_counts table, not with components x rows.

pandas, numpy, scipy and statsmodels are imported inside the functions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from analyser.text import fixed, signed, wrap

#: False-discovery-rate level: a component is clear when its Benjamini-Hochberg q is at most this.
Q = 0.05
#: The normal quantile of a two-sided 95% interval.
#: The least change (pp) in the holders' win rate that confirms an association by intervention
#: (:mod:`analyser.experiments.confirm`): a replay that moves it by less does not show the
#: component matters, however narrow its interval.
CONFIRM_MIN_PP = 1.0
Z95 = 1.959963984540054
#: Clear components drawn in the forest plot at most (the largest effects; the table has all).
FOREST_MAX = 30
#: Seat-games with the component, and without it, an estimate needs at least: with fewer, the
#: cluster-robust interval is unreliable (a handful of holders that all won gives a tiny one).
MIN_HOLDERS = 30

_A = ("xy", "x", "xx")  # monomials of a row that holds the component (zero for the others)
_B = ("y", "1")         # monomials of every row
_VARIANTS = ("h", "c")  # h: has the component (x = 1 or 0); c: copies (x = count)


def _codes(column, sort: bool) -> tuple[np.ndarray, list[str]]:
    """A column's integer codes (-1: missing) and the texts they stand for: a categorical's
    categories, else its distinct values as text (sorted when ``sort``, else first seen)."""
    import pandas as pd

    if isinstance(column.dtype, pd.CategoricalDtype):
        return column.cat.codes.to_numpy(dtype=np.int64), [str(c) for c in column.cat.categories]
    codes, uniq = pd.factorize(column.astype(str), sort=sort)
    return codes, [str(c) for c in uniq]


def _cells(results):
    """Per row of ``results`` (sorted by game and seat): the (strategy, seat) pair code, the win
    share, the game group, and the labels.  Returns a dict."""
    gi = results["game_index"].to_numpy(dtype=np.int64)
    seat = results["seat"].to_numpy(dtype=np.int64)
    scode, names = _codes(results["strategy"], sort=False)
    y = results["win"].to_numpy(dtype=float)
    keep = scode >= 0
    if not keep.all():
        gi, seat, scode, y = gi[keep], seat[keep], scode[keep], y[keep]
    order = np.lexsort((seat, gi))
    if not np.all(order == np.arange(len(order))):
        gi, seat, scode, y = gi[order], seat[order], scode[order], y[order]
    n_seats = int(seat.max()) + 1 if len(seat) else 1
    new = np.ones(len(gi), dtype=bool)
    new[1:] = gi[1:] != gi[:-1]
    start = np.flatnonzero(new)
    size = np.diff(np.append(start, len(gi)))
    game = np.cumsum(new) - 1
    return {"gi": gi, "seat": seat, "cell": scode * n_seats + seat, "y": y, "names": names, "S": n_seats,
            "C": len(names) * n_seats, "start": start, "size": size, "game": game}


def _pairs(first, size_of, start_of):
    """For each entry ``r`` of ``first``, every position ``start_of[r] .. start_of[r] +
    size_of[r] - 1``: returns ``(r repeated, position)``."""
    total = int(size_of.sum())
    rep = np.repeat(np.arange(len(first)), size_of)
    offsets = np.arange(total) - np.repeat(np.cumsum(size_of) - size_of, size_of)
    return rep, np.repeat(start_of, size_of) + offsets


def _frame(key, columns: dict, dims, labels, names):
    """Sums by a flat integer key as a frame of the non-empty keys: ``dims`` the sizes of the
    key's parts (most significant first), ``labels[i]`` maps part i's codes to index values,
    ``names`` the index level names; ``columns`` name -> per-entry weights, or a function that
    makes them (called when needed, so one column is alive at a time), or None (a count)."""
    import pandas as pd

    n = int(np.prod(dims))
    count = np.bincount(key, minlength=n)
    nz = np.flatnonzero(count)
    parts = np.unravel_index(nz, dims)
    index = pd.MultiIndex.from_arrays([np.asarray(labels[i], dtype=object)[parts[i]] for i in range(len(dims))],
                                      names=names)
    data = {}
    for name, w in columns.items():
        if w is None:
            data[name] = count[nz].astype(np.int64)
        else:  # a function makes the weights: one column of per-entry floats alive at a time
            data[name] = np.bincount(key, weights=w() if callable(w) else w, minlength=n)[nz]
    return pd.DataFrame(data, index=index)


def chunk_sums(results, components, collapse=None) -> dict[str, Any]:
    """The additive sums of one chunk of whole games of one run: ``results`` its results rows
    (``game_index``, ``seat``, ``strategy``, ``win``), ``components`` its rows of the component_counts
    table (``game_index``, ``seat``, ``component``, ``count``; None or empty: no seat held
    anything).  Frames (combined by :func:`analyser.stats.streamed.combine_sums`):

    ``comp_games``  index ``all``: ``games``
    ``comp_cells``  index (``strategy``, ``seat``): ``n`` rows, ``y`` sum of win shares
    ``comp_bb``     index (``strategy``, ``seat``, ``strategy_j``, ``seat_j``), over pairs of rows
                    of one game (a row with itself included): ``yy``, ``y1``, ``1y``, ``11``
    ``comp_x``      index (``component``, ``strategy``, ``seat``): ``h_x`` holders, ``h_xy`` their
                    win shares, ``c_x``, ``c_xx``, ``c_xy`` the same with x = copies
    ``comp_ab``     index (``component``, pair i, pair j): over a holder i and any row j of its
                    game, ``{h,c}_{a}{b}`` = sum of monomial a of i (xy, x, xx) times b of j (y, 1)
    ``comp_aa``     the same over two holders of one game: ``{h,c}_{a}_{b}``

    ``collapse`` (``Game.component_collapse``: ids -> a dict) merges components identical by the
    rules: a recorded id it maps is counted under its new id, copies added up.  Component rows
    whose (game, seat) has no results row are ignored."""
    t = _cells(results)
    out = _row_sums(t)
    held = _holdings(t, components, collapse)
    if held is not None:
        out.update(_holder_sums(t, held))
    return out


def _labels(t) -> tuple[list, list]:
    """The strategy and the seat of each cell code of ``t`` (:func:`_cells`)."""
    S, C, names = t["S"], t["C"], t["names"]
    return [names[c // S] for c in range(C)], [c % S for c in range(C)]


def _row_sums(t) -> dict[str, Any]:
    """The sums of :func:`chunk_sums` over every row (``comp_games``, ``comp_cells``, ``comp_bb``)."""
    import pandas as pd

    cell, y, C = t["cell"], t["y"], t["C"]
    cell_strategy, cell_seat = _labels(t)
    out = {"comp_games": pd.DataFrame({"games": [len(t["start"])]}, index=pd.Index(["all"], name="games"))}
    cells = _frame(cell, {"n": None, "y": y}, (C,), [np.arange(C)], ["cell"])
    codes = cells.index.get_level_values(0)
    cells.index = pd.MultiIndex.from_arrays([np.asarray(cell_strategy, dtype=object)[codes],
                                             np.asarray(cell_seat)[codes]], names=["strategy", "seat"])
    out["comp_cells"] = cells
    game = t["game"]
    i, j = _pairs(np.arange(len(cell)), t["size"][game], t["start"][game])
    bb = _frame(cell[i] * C + cell[j], {"yy": y[i] * y[j], "y1": y[i], "1y": y[j], "11": None}, (C, C),
                [np.arange(C), np.arange(C)], ["i", "j"])
    out["comp_bb"] = _relevel(bb, [0, 1], [(cell_strategy, cell_seat)] * 2, _PAIR_NAMES)
    return out


_PAIR_NAMES = ["strategy", "seat", "strategy_j", "seat_j"]
#: Results rows times components up to which duplicated component rows are merged through one
#: dense array (:func:`_merge`); above, by sorting.
_DENSE_MERGE = 4_000_000


@dataclass
class _Held:
    """Who holds what in one chunk (:func:`_holdings`): one entry per (results row, component),
    in order of results row then component: ``pos`` the results row, ``kcode`` the component
    (a position in ``text``, the ids in order), ``count`` its copies (positive)."""

    pos: np.ndarray
    kcode: np.ndarray
    count: np.ndarray
    text: list


def _component_codes(components, collapse) -> tuple[np.ndarray, list]:
    """Each component row's code in the sorted ids (-1: no id) and those ids, after ``collapse``."""
    kcode, labels = _codes(components["component"], sort=True)
    if collapse is not None:
        merged = collapse(labels)
        labels = [merged.get(x, x) for x in labels]
    # several categories may print the same: one code per text
    text = sorted(set(labels))  # in id order, whatever order the parts listed them in
    where = {t: i for i, t in enumerate(text)}
    remap = np.array([where[x] for x in labels] + [-1], dtype=np.int64)
    return remap[np.where(kcode < 0, len(labels), kcode)], text


def _holdings(t, components, collapse) -> _Held | None:
    """The holdings of the chunk ``t`` (:func:`_cells`) from its component rows, or None when no
    seat holds anything."""
    if components is None or not len(components):
        return None
    S = t["S"]
    # each component row -> its results row (binary search on game * S + seat)
    have = t["gi"] * S + t["seat"]
    seat = components["seat"].to_numpy(dtype=np.int64)
    want = components["game_index"].to_numpy(dtype=np.int64) * S + seat
    at = np.minimum(np.searchsorted(have, want), len(have) - 1)
    kcode, text = _component_codes(components, collapse)
    count = components["count"].to_numpy(dtype=float)
    hit = (have[at] == want) & (seat < S) & (kcode >= 0) & (count > 0)
    if not hit.any():
        return None
    pos, kcode, count = _merge(at[hit] * len(text) + kcode[hit], count[hit], len(have), len(text))
    return _Held(pos, kcode, count, text)


def _merge(key, count, rows: int, K: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(results row, component, copies)`` of the keys ``row * K + component`` (``rows``
    results rows, ``K`` components), one entry per key in key order, the copies of a repeated
    key added up in the order of the rows: analyser writes each (row, component) once, but a
    collapse (:func:`_component_codes`) or a table made by hand repeats keys."""
    if len(key) > 1 and not np.all(key[1:] > key[:-1]):
        if rows * K <= _DENSE_MERGE:
            seen = np.bincount(key, minlength=rows * K)
            summed = np.bincount(key, weights=count, minlength=rows * K)
            key = np.flatnonzero(seen)
            count = summed[key]
            del seen, summed
        else:
            key, inv = np.unique(key, return_inverse=True)
            count = np.bincount(inv, weights=count)
    pos, kcode = np.divmod(key, K)
    return pos, kcode, count


def _holder_sums(t, held: _Held) -> dict[str, Any]:
    """The sums of :func:`chunk_sums` over the holders (``comp_x``, ``comp_ab``, ``comp_aa``)."""
    C = t["C"]
    K = len(held.text)
    cell_strategy, cell_seat = _labels(t)
    ci, yi, count = t["cell"][held.pos], t["y"][held.pos], held.count
    xcols = {"h_x": None, "h_xy": yi, "c_x": count, "c_xx": count * count, "c_xy": count * yi}
    fx = _frame(held.kcode * C + ci, xcols, (K, C), [held.text, np.arange(C)], ["component", "cell"])
    out = {"comp_x": _relevel(fx, [1], [(cell_strategy, cell_seat)], ["component", "strategy", "seat"])}
    ab, aa = _holder_pairs(held, t)
    names = ["component"] + _PAIR_NAMES
    for name, sums in (("comp_ab", ab), ("comp_aa", aa)):
        out[name] = _relevel(_pair_frame(sums, held.text, C), [1, 2], [(cell_strategy, cell_seat)] * 2, names)
    return out


#: Cells of one group of components in :func:`_holder_pairs` (components x cells x cells), and
#: holders per block of pairs: together they bound a chunk's working memory and fix the order in
#: which each sum is added up.
_ACCUMULATOR_CELLS = 400_000
_BLOCK_HOLDERS = 40_000


def _holder_pairs(held: _Held, t):
    """The AB and AA sums (see :func:`chunk_sums`) of the holdings ``held``: ``(ab, aa)``, each
    ``(keys, {column: sums})`` over the non-empty keys ``(component * C + cell i) * C + cell j``,
    ascending.

    Components are taken in groups of at most :data:`_ACCUMULATOR_CELLS` keys, and their holders
    in blocks of about :data:`_BLOCK_HOLDERS` (never splitting a game's holders of one component),
    so the working memory does not grow with the chunk; a key's sum adds its terms in the order
    of the holders within a block, then the blocks' sums in order."""
    C, K = t["C"], len(held.text)
    # by component, then game (the holdings come by results row, so by game: a stable sort)
    order = np.argsort(held.kcode.astype(np.int16) if K < 2 ** 15 else held.kcode, kind="stable")
    kcode, pos, count = held.kcode[order], held.pos[order], held.count[order]
    game = t["game"][pos]
    del order
    # a new (component, game) group of holders
    new = np.ones(len(kcode), dtype=bool)
    new[1:] = (kcode[1:] != kcode[:-1]) | (game[1:] != game[:-1])
    base = kcode * C + t["cell"][pos]
    per = max(1, _ACCUMULATOR_CELLS // (C * C))
    k_bounds = np.searchsorted(kcode, np.arange(0, K + per, per))
    ab, aa = [], []
    for lo, hi in zip(k_bounds[:-1].tolist(), k_bounds[1:].tolist()):
        for b0, b1 in (_block_edges(new[lo:hi], lo, hi) if lo < hi else []):
            block = _Block(pos[b0:b1], game[b0:b1], count[b0:b1], base[b0:b1], new[b0:b1])
            ab.append(_ab_sums(block, t))
            aa.append(_aa_sums(block, t))
    return _combine(ab), _combine(aa)


def _block_edges(new, lo: int, hi: int) -> list[tuple[int, int]]:
    """Blocks ``(first, end)`` of about :data:`_BLOCK_HOLDERS` holders between ``lo`` and ``hi``,
    each starting where ``new`` (per holder from ``lo``) starts a (component, game) group."""
    starts = lo + np.flatnonzero(new)
    edges = [lo]
    at = np.searchsorted(starts, np.arange(lo + _BLOCK_HOLDERS, hi, _BLOCK_HOLDERS))
    for st in starts[at[at < len(starts)]]:
        if st > edges[-1]:
            edges.append(int(st))
    edges.append(hi)
    return list(zip(edges[:-1], edges[1:]))


@dataclass
class _Block:
    """A block of holders of :func:`_holder_pairs`: their results rows ``pos``, ``game``s and
    ``count``s (copies), ``base`` = component * C + cell, and ``new`` (a holder that starts a
    (component, game) group)."""

    pos: np.ndarray
    game: np.ndarray
    count: np.ndarray
    base: np.ndarray
    new: np.ndarray


def _sums_by_key(key, columns: dict) -> tuple[np.ndarray, dict]:
    """``(keys, {name: sums})`` over the distinct values of ``key`` (ascending), each key's terms
    added in their order; ``columns``: name -> per-entry weights, None (the count, as floats), or
    the name of a column before it (the same sums)."""
    keys, inv = np.unique(key, return_inverse=True)
    out = {}
    for name, w in columns.items():
        if isinstance(w, str):
            out[name] = out[w]
        elif w is None:
            out[name] = np.bincount(inv, minlength=len(keys)).astype(float)
        else:
            out[name] = np.bincount(inv, weights=w, minlength=len(keys))
    return keys, out


def _combine(parts: list) -> tuple[np.ndarray, dict]:
    """The blocks' ``(keys, {name: sums})`` as one, a key's sums added block by block in order."""
    if len(parts) == 1:
        return parts[0]
    keys = np.concatenate([k for k, _ in parts])
    cols = {name: np.concatenate([c[name] for _, c in parts]) for name in parts[0][1]}
    if np.all(keys[1:] > keys[:-1]):
        return keys, cols
    keys, inv = np.unique(keys, return_inverse=True)
    return keys, {name: np.bincount(inv, weights=v, minlength=len(keys)) for name, v in cols.items()}


def _ab_sums(b: _Block, t) -> tuple[np.ndarray, dict]:
    """The AB sums of a block (a holder with every row of its game): ``{h,c}_{a}{b}``.  With x =
    has (x = 1 for a holder) the monomials (xy, x, xx) are (y, 1, 1), so their sums repeat."""
    cell, y, C = t["cell"], t["y"], t["C"]
    r, j = _pairs(np.arange(len(b.pos)), t["size"][b.game], t["start"][b.game])
    yi, yj = y[b.pos][r], y[j]
    cnt = b.count[r]
    cols = {"h_xyy": yi * yj, "h_xy1": yi, "h_xy": yj, "h_x1": None, "h_xxy": "h_xy", "h_xx1": "h_x1"}
    for a, w in zip(_A, (cnt * yi, cnt, cnt * cnt)):
        cols[f"c_{a}y"] = w * yj
        cols[f"c_{a}1"] = w
    return _sums_by_key(b.base[r] * C + cell[j], cols)


def _aa_sums(b: _Block, t) -> tuple[np.ndarray, dict]:
    """The AA sums of a block (two holders of one component in one game, a holder with itself
    included): ``{h,c}_{a}_{b}``; the repeated sums of x = has counted once."""
    y, C = t["y"], t["C"]
    gstart = np.flatnonzero(b.new)
    gsize = np.diff(np.append(gstart, len(b.pos)))
    member = np.cumsum(b.new) - 1
    r1, r2 = _pairs(np.arange(len(b.pos)), gsize[member], gstart[member])
    yb = y[b.pos]
    y1, y2 = yb[r1], yb[r2]
    cols = {"h_xy_xy": y1 * y2, "h_xy_x": y1, "h_xy_xx": "h_xy_x", "h_x_xy": y2, "h_x_x": None,
            "h_x_xx": "h_x_x", "h_xx_xy": "h_x_xy", "h_xx_x": "h_x_x", "h_xx_xx": "h_x_x"}
    c1, c2 = b.count[r1], b.count[r2]
    for a, wa in zip(_A, (c1 * y1, c1, c1 * c1)):
        for c_, wb in zip(_A, (c2 * y2, c2, c2 * c2)):
            cols[f"c_{a}_{c_}"] = wa * wb
    return _sums_by_key(b.base[r1] * C + t["cell"][b.pos[r2]], cols)


def _pair_frame(sums, text, C):
    """The sums of :func:`_holder_pairs` as one frame indexed by (component, cell i, cell j)."""
    import pandas as pd

    keys, cols = sums
    k, i, j = np.unravel_index(keys, (len(text), C, C))
    index = pd.MultiIndex.from_arrays([np.asarray(text, dtype=object)[k], i, j], names=["component", "i", "j"])
    return pd.DataFrame(cols, index=index)


def _relevel(frame, levels, maps, names):
    """``frame`` with each index level in ``levels`` (cell codes) replaced by two levels
    (strategy, seat) through ``maps`` (per level: (strategy per cell, seat per cell))."""
    import pandas as pd

    arrays = []
    for k in range(frame.index.nlevels):
        values = frame.index.get_level_values(k)
        if k in levels:
            strat, seat = maps[levels.index(k)]
            codes = values.to_numpy(dtype=np.int64)
            arrays.append(np.asarray(strat, dtype=object)[codes])
            arrays.append(np.asarray(seat, dtype=np.int64)[codes])
        else:
            arrays.append(values.to_numpy())
    return frame.set_axis(pd.MultiIndex.from_arrays(arrays, names=names))


# --------------------------------------------------------------------------------------------
# Estimates
# --------------------------------------------------------------------------------------------

#: Columns of :func:`estimate`'s table, in order (``components.csv``).
COLUMNS = ("component", "what", "holders", "seat_games", "share", "mean_copies", "win_with", "win_without",
           "effect", "effect_low", "effect_high", "se", "p", "q", "clear", "per_copy", "per_copy_low",
           "per_copy_high", "reason", "peer_group", "peers", "vs_peers", "vs_peers_low", "vs_peers_high", "vs_peers_p",
           "cost", "per_cost")


class _Table:
    """One sums frame as arrays for :func:`estimate`: its rows grouped by component, the cell
    codes (positions among the (strategy, seat) pairs) of its pair levels, and its values."""

    def __init__(self, frame, cells, cols, shape):
        import pandas as pd

        idx = frame.index
        nlev = idx.nlevels
        self.shape = shape
        self.values = frame[list(cols)].to_numpy(dtype=float).reshape((len(frame),) + shape)

        def codes(level):
            mi = pd.MultiIndex.from_arrays([idx.get_level_values(level).astype(str),
                                            idx.get_level_values(level + 1).astype(np.int64)])
            return cells.get_indexer(mi)

        pair = nlev >= 4
        self.ci = codes(nlev - 4 if pair else nlev - 2)
        self.cj = codes(nlev - 2) if pair else None
        self.rows = {}
        if nlev in (3, 5):  # a component level first
            comp = idx.get_level_values(0).astype(str).to_numpy()
            order = np.argsort(comp, kind="stable")
            names, start = np.unique(comp[order], return_index=True)
            bounds = list(start) + [len(order)]
            self.rows = {str(k): order[bounds[i]:bounds[i + 1]] for i, k in enumerate(names)}

    def dense(self, C, rows=None):
        """The rows (all, or those of one component) as a dense ``[C, (C,) *shape]`` array."""
        rows = slice(None) if rows is None else rows
        ci = self.ci[rows]
        keep = ci >= 0
        if self.cj is None:
            out = np.zeros((C,) + self.shape)
            np.add.at(out, ci[keep], self.values[rows][keep])
            return out
        cj = self.cj[rows]
        keep &= cj >= 0
        out = np.zeros((C, C) + self.shape)
        np.add.at(out, (ci[keep], cj[keep]), self.values[rows][keep])
        return out


@dataclass
class _Model:
    """What every component's fit shares (:func:`_model`): the (strategy, seat) cells
    (``cell_index``), per cell the rows ``n`` and win shares ``Y``, the pair sums ``BB``
    (dense ``[C, C, 2, 2]``) and the small-sample factor ``corr`` of the cluster-robust variance."""

    cell_index: Any
    n: np.ndarray
    Y: np.ndarray
    BB: np.ndarray
    corr: float

    @property
    def C(self) -> int:
        return len(self.n)

    @property
    def N(self) -> float:
        return float(self.n.sum())


@dataclass
class _Holding:
    """One component's sums by cell for one variant of ``x`` (has, or copies): ``X``, ``XX``,
    ``XY`` per cell, and the dense pair sums ``AA`` (``[C, C, 3, 3]``) and ``AB`` (``[C, C, 3, 2]``)."""

    X: np.ndarray
    XX: np.ndarray
    XY: np.ndarray
    AA: np.ndarray
    AB: np.ndarray


def _fit(m: _Model, h: _Holding) -> tuple[float, float]:
    """One within estimate: ``(beta, se)`` from the sums by cell (see the module docstring);
    ``(nan, nan)`` when ``x`` does not vary within any cell."""
    n, Y, X = m.n, m.Y, h.X
    mask = n > 0
    nn = np.where(mask, n, 1)
    xbar = np.where(mask, X / nn, 0.0)
    ybar = np.where(mask, Y / nn, 0.0)
    sxx = float(np.sum(h.XX - X * xbar))
    sxy = float(np.sum(h.XY - X * ybar))
    scale = float(np.sum(h.XX))
    if not scale or sxx <= 1e-9 * scale:
        return float("nan"), float("nan")
    beta = sxy / sxx
    wa = np.stack([np.ones_like(xbar), -ybar + 2 * beta * xbar, np.full_like(xbar, -beta)], axis=1)
    wb = np.stack([-xbar, xbar * ybar - beta * xbar * xbar], axis=1)
    meat = (np.einsum("ga,ghab,hb->", wa, h.AA, wa) + 2 * np.einsum("ga,ghab,hb->", wa, h.AB, wb)
            + np.einsum("ga,ghab,hb->", wb, m.BB, wb))
    var = m.corr * max(meat, 0.0) / (sxx * sxx)
    return beta, float(np.sqrt(var))


def _model(sums: dict) -> _Model:
    """The shared part of the fits from combined :func:`chunk_sums` (with ``comp_cells``)."""
    import pandas as pd

    cells = sums["comp_cells"]
    cell_index = pd.MultiIndex.from_arrays([cells.index.get_level_values(0).astype(str),
                                            cells.index.get_level_values(1).astype(np.int64)])
    n = cells["n"].to_numpy(dtype=float)
    Y = cells["y"].to_numpy(dtype=float)
    N = float(n.sum())
    G = float(sums["comp_games"]["games"].sum())
    k_params = 1 + int(np.count_nonzero(n))
    corr = (G / (G - 1)) * ((N - 1) / (N - k_params)) if G > 1 and N > k_params else float("nan")
    BB = _Table(sums["comp_bb"], cell_index, ["yy", "y1", "1y", "11"], (2, 2)).dense(len(cells))
    return _Model(cell_index, n, Y, BB, corr)


def _holder_tables(sums: dict, cell_index) -> dict:
    """The holders' sums as :class:`_Table` (None: no such sums): ``"x"`` (``comp_x``), and
    ``(kind, variant)`` for kind ``ab``/``aa`` and variant ``h``/``c``."""
    def table(name, cols, shape):
        f = sums.get(name)
        return _Table(f, cell_index, cols, shape) if f is not None and len(f) else None

    tables = {"x": table("comp_x", ["h_x", "h_xy", "c_x", "c_xx", "c_xy"], (5,))}
    for v in _VARIANTS:
        tables[("ab", v)] = table("comp_ab", [f"{v}_{a}{b}" for a in _A for b in _B], (3, 2))
        tables[("aa", v)] = table("comp_aa", [f"{v}_{a}_{b}" for a in _A for b in _A], (3, 3))
    return tables


def _holdings_of(cid: str, x: np.ndarray, tables: dict, C: int) -> dict[str, _Holding]:
    """The component ``cid``'s :class:`_Holding` per variant (``h``, ``c``), from its dense
    ``comp_x`` rows ``x`` (``[C, 5]``) and its pair sums in ``tables`` (:func:`_holder_tables`)."""
    out = {}
    for v, (X, XX, XY) in (("h", (x[:, 0], x[:, 0], x[:, 1])), ("c", (x[:, 2], x[:, 3], x[:, 4]))):
        dense = {}
        for kind, shape in (("ab", (3, 2)), ("aa", (3, 3))):
            t = tables[(kind, v)]
            r = t.rows.get(cid) if t is not None else None
            dense[kind] = t.dense(C, r) if r is not None else np.zeros((C, C) + shape)
        out[v] = _Holding(X, XX, XY, dense["aa"], dense["ab"])
    return out


def _component_row(cid: str, info: dict, m: _Model, tables: dict) -> dict:
    """One row of :func:`estimate` (without its rank, q and peers): the component ``cid``
    (``info``: its catalog entry) from the shared sums ``m`` and the holders' ``tables``."""
    from scipy.special import ndtr  # the normal's tail: scipy.stats.norm.sf without its overhead

    N, total_y = m.N, float(m.Y.sum())
    row = {"component": cid, "what": info.get("what", ""), "seat_games": int(N)}
    tx = tables["x"]
    ix = tx.rows.get(cid) if tx is not None else None
    if ix is None:
        row.update(holders=0, share=0.0, mean_copies=float("nan"), win_with=float("nan"),
                   win_without=total_y / N if N else float("nan"), reason="held by no seat")
        return row
    x = tx.dense(m.C, ix)
    H, WH = float(x[:, 0].sum()), float(x[:, 1].sum())
    row.update(holders=int(round(H)), share=H / N, mean_copies=float(x[:, 2].sum()) / H if H else float("nan"),
               win_with=WH / H if H else float("nan"),
               win_without=(total_y - WH) / (N - H) if N > H else float("nan"))
    if H >= N:
        row["reason"] = "held by every seat"
        return row
    if min(H, N - H) < MIN_HOLDERS:
        row["reason"] = (f"held by {'only' if H < N - H else 'all but'} {int(round(min(H, N - H)))} seat-games: "
                         f"an estimate needs {MIN_HOLDERS} with and {MIN_HOLDERS} without")
        return row
    fits = {v: _fit(m, h) for v, h in _holdings_of(cid, x, tables, m.C).items()}
    beta, se = fits["h"]
    if not np.isfinite(beta):
        row["reason"] = ("held by all seats or by none within each strategy and seat: no comparison "
                         "within a strategy and seat")
        return row
    if not np.isfinite(se) or se <= 0:
        row.update(effect=beta * 100, reason="no spread in winning to compare" if np.isfinite(se) else
                   "too few games for an interval")
        return row
    slope, slope_se = fits["c"]
    row.update(effect=beta * 100, se=se * 100, effect_low=(beta - Z95 * se) * 100,
               effect_high=(beta + Z95 * se) * 100, p=float(2 * ndtr(-abs(beta / se))),
               per_copy=slope * 100, per_copy_low=(slope - Z95 * slope_se) * 100,
               per_copy_high=(slope + Z95 * slope_se) * 100, reason="")
    return row


def estimate(sums: dict, catalog: dict | None = None) -> Any:
    """Every component's effect on winning from combined :func:`chunk_sums` (one run, or the
    runs of one variant), as a frame with :data:`COLUMNS`, ranked: clear components first by the
    size of their effect (against the peer group where the title declares one, per unit of cost
    when every such component has a cost: a cheap card out of line comes before a dear one), then
    the other estimates by p-value, then the components without an estimate (with the
    ``reason``).  ``catalog``: ``Game.component_catalog`` - its components are
    listed (in its order among equals) and described (``what``), those no seat held included.

    Units: ``share``, ``win_with``, ``win_without`` are fractions; ``effect``, its interval and
    ``se`` and the ``per_copy`` slope are in percentage points.  ``holders`` counts seat-games
    with at least one copy, ``seat_games`` all of them.  Empty frame without sums."""
    import pandas as pd

    catalog = catalog or {}
    if not sums or "comp_cells" not in sums or not len(sums["comp_cells"]):
        return pd.DataFrame(columns=list(COLUMNS))
    m = _model(sums)
    tables = _holder_tables(sums, m.cell_index)
    held = list(tables["x"].rows) if tables["x"] is not None else []
    ids = list(dict.fromkeys([str(c) for c, v in catalog.items() if v.get("always", True)] + held))
    rows = [_component_row(cid, catalog.get(cid, {}), m, tables) for cid in ids]
    return _ranked(pd.DataFrame(rows), catalog)


def _ranked(out, catalog: dict) -> Any:
    """:func:`estimate`'s rows completed (every column, the peers, BH q, clear) and ranked."""
    from statsmodels.stats.multitest import multipletests

    for c in COLUMNS:
        if c not in out.columns:
            out[c] = np.nan if c not in ("reason", "what", "peer_group") else ""
    _against_peers(out, catalog)
    tested = out["vs_peers_p"].where(out["vs_peers_p"].notna(), out["p"])
    est = tested.notna().to_numpy()
    out["q"] = np.nan
    out["clear"] = False
    if est.any():
        reject, q, _, _ = multipletests(tested[est].to_numpy(dtype=float), alpha=Q, method="fdr_bh")
        out.loc[est, "q"] = q
        out.loc[est, "clear"] = reject
    out["clear"] = out["clear"].astype(bool)
    out["reason"] = out["reason"].fillna("")
    group = np.where(out["clear"], 0, np.where(est, 1, 2))
    peered = out["vs_peers"].notna()
    by_cost = bool(peered.any() and out.loc[peered, "per_cost"].notna().all())
    key = out["per_cost"] if by_cost else out["vs_peers"].where(peered, out["effect"])
    size = -key.abs().fillna(0).to_numpy()
    p = tested.fillna(1).to_numpy()
    order = np.lexsort((np.arange(len(out)), np.where(group == 0, size, p), group))
    out = out.iloc[order][list(COLUMNS)].reset_index(drop=True)
    notes = list(dict.fromkeys(str(v["collapsed"]) for v in catalog.values() if (v or {}).get("collapsed")))
    out.attrs["collapsed"] = "; ".join(notes)
    return out


def _against_peers(out, catalog: dict) -> None:
    """Fill the peer columns of :func:`estimate`'s rows in place: a component whose catalog entry
    names a ``peers`` group (the title's grouping: same kind, cost or value) is compared with the
    mean effect of the other members of that group that have an estimate - ``vs_peers`` (pp)
    = its effect minus that mean, with a normal 95% interval and p-value whose standard error
    is ``sqrt(se^2 + sum(se_j^2) / k^2)`` (k peers; the estimates are treated as independent,
    an approximation: they come from the same games).  ``cost`` (the catalog's ``cost``) and
    ``per_cost`` = ``vs_peers`` per unit of cost, where the cost is above 0."""
    from scipy.special import ndtr  # the normal's tail: scipy.stats.norm.sf without its overhead

    out["peer_group"] = [str((catalog.get(str(c)) or {}).get("peers") or "") for c in out["component"]]
    out["cost"] = [float((catalog.get(str(c)) or {}).get("cost", np.nan)) for c in out["component"]]
    ok = out["se"].notna() & out["effect"].notna()
    for label in dict.fromkeys(x for x in out["peer_group"] if x):
        members = out.index[(out["peer_group"] == label) & ok]
        for i in members:
            others = [j for j in members if j != i]
            if not others:
                continue
            k = len(others)
            mean = float(out.loc[others, "effect"].mean())
            se = float(np.sqrt(out.at[i, "se"] ** 2 + float((out.loc[others, "se"] ** 2).sum()) / k ** 2))
            d = float(out.at[i, "effect"]) - mean
            out.at[i, "peers"] = k
            out.at[i, "vs_peers"] = d
            out.at[i, "vs_peers_low"], out.at[i, "vs_peers_high"] = d - Z95 * se, d + Z95 * se
            out.at[i, "vs_peers_p"] = float(2 * ndtr(-abs(d / se))) if se > 0 else np.nan
    cost = out["cost"].to_numpy(dtype=float)
    out["per_cost"] = np.where(cost > 0, out["vs_peers"].to_numpy(dtype=float) / np.where(cost > 0, cost, 1), np.nan)


def report_table(est) -> Any:
    """The ranked table of the report: id, what it is, share of seat-games holding it, win rate
    with / without (%), effect in pp with its 95% interval (or the reason for no estimate), BH q,
    clear.  (The per-copy slope is in components.csv.)"""
    import pandas as pd

    if est is None or not len(est):
        return pd.DataFrame()

    def pct(v):
        return "-" if pd.isna(v) else fixed(v * 100, 1)

    def pp(v, lo, hi):
        return "-" if pd.isna(v) or pd.isna(lo) else f"{signed(v)} ({signed(lo)} to {signed(hi)})"

    def qtext(q):
        return "-" if pd.isna(q) else ("<0.001" if q < 0.001 else fixed(q, 3))

    out = pd.DataFrame([{"rank": k, "component": r.component, "what": r.what or "-", "held by (%)": pct(r.share),
                         "win with (%)": pct(r.win_with), "win without (%)": pct(r.win_without),
                         "effect, pp (95% CI)": pp(r.effect, r.effect_low, r.effect_high) if not r.reason else r.reason,
                         "against peers, pp (95% CI)": pp(r.vs_peers, r.vs_peers_low, r.vs_peers_high),
                         "q (BH)": qtext(r.q), f"q <= {Q:g}": "yes" if r.clear else "no"}
                        for k, r in enumerate(est.itertuples(), 1)])
    if (out["against peers, pp (95% CI)"] == "-").all():  # the title declares no peer groups
        out = out.drop(columns=["against peers, pp (95% CI)"])
    return out


def method_note(est) -> str:
    """One paragraph naming the estimator, the interval, the correction and what "clear" means."""
    n_est = int(est["p"].notna().sum()) if est is not None and len(est) else 0
    n_clear = int(est["clear"].sum()) if est is not None and len(est) else 0
    if est is not None and est.attrs.get("measure"):
        return str(est.attrs["measure"])
    collapsed = (est.attrs.get("collapsed") or "") if est is not None else ""
    peers = (f"Collapsed: {collapsed}. " if collapsed else "") + ("Against peers: the effect minus the mean effect of the other components of its peer group (the "
             "title's grouping: same kind, cost or value), the two estimates' errors combined as if independent; "
             "where a peer group exists, q and the ranking use it. " if est is not None and len(est)
             and est["vs_peers"].notna().any() else "")
    return (peers + f"Effect: the change in win probability (pp) when a seat has the component (at least one copy), "
            f"against seats of the same strategy in the same seat without it - a linear probability model with "
            f"one intercept per strategy and seat, errors clustered by game, 95% normal interval. q: "
            f"Benjamini-Hochberg adjusted over the {n_est} components with an estimate; {n_clear} pass "
            f"q <= {Q:g}. components.csv also has the per-copy slope: the same model on the number of copies. Held by: share of seat-games "
            f"with at least one copy. An effect is an association: a component a winning seat tends to get "
            f"(because it wins) shows one too, so a finding stays possible until an intervention confirms it.")


#: A forest plot's labels wrap at this many display columns, at spaces (never inside a word).
LABEL_CHARS = 44
#: ... and its title, at this many.
TITLE_CHARS = 52


def forest_rows(est):
    """The rows of the forest plot: the clear components, largest first, at most
    :data:`FOREST_MAX`, each with the estimate its test used (``drawn``, ``drawn_low``,
    ``drawn_high``, pp): against its peers where it has a peer group (q and the ranking use that
    one), else against none; ``against``: "peers" or "none"; ``label``: its name and what it is,
    wrapped at spaces into lines of :data:`LABEL_CHARS` columns."""
    clear = est[est["clear"]].head(FOREST_MAX).copy()
    peered = clear["vs_peers"].notna()
    for col, peer_col in (("effect", "vs_peers"), ("effect_low", "vs_peers_low"), ("effect_high", "vs_peers_high")):
        clear["drawn" + col[len("effect"):]] = clear[peer_col].where(peered, clear[col])
    clear["against"] = np.where(peered, "peers", "none")
    clear["label"] = ["\n".join(wrap(f"{r.component} - {r.what}" if r.what else str(r.component), LABEL_CHARS))
                      for r in clear.itertuples()]
    return clear


def forest_title(rows, total: int) -> str:
    """What the forest plot draws: the effect each clear component's test used (against its peers,
    against none, or each its own, marked), and how many of ``total`` clear ones are shown."""
    kinds = set(rows["against"])
    what = ("effect against peers" if kinds == {"peers"} else "effect against none" if kinds == {"none"}
            else "effect against peers (dots) or none (squares)")
    count = f"the {len(rows)} largest of {total}" if total > len(rows) else str(total)
    return "\n".join(wrap(f"Passing the correction ({count}): {what}", TITLE_CHARS))


def forest_plot(est, path, title: str = "") -> tuple[str, str] | None:
    """A forest plot of the clear components (:func:`forest_rows`: the estimate each one's test
    used, with its 95% interval, pp), largest first; written to ``path``.  Returns ``(file name,
    caption)``, or None when no component is clear (nothing is written)."""
    from analyser.stats import plots as base  # sets the Agg backend

    import matplotlib.pyplot as plt

    if est is None or not len(est) or not est["clear"].any():
        return None
    total = int(est["clear"].sum())
    rows = forest_rows(est)
    k = len(rows)
    lines = max(label.count("\n") + 1 for label in rows["label"])
    fig, ax = plt.subplots(figsize=(8.5, 1.2 + (0.18 + 0.14 * lines) * k))
    ypos = np.arange(k)[::-1]
    eff = rows["drawn"].to_numpy(dtype=float)
    colours = np.where(eff > 0, "#3a6ea5", "#c44e52")
    ax.hlines(ypos, rows["drawn_low"].to_numpy(dtype=float), rows["drawn_high"].to_numpy(dtype=float),
              color=colours, linewidth=2)
    for against, marker in (("peers", "o"), ("none", "s")):
        on = (rows["against"] == against).to_numpy()
        ax.scatter(eff[on], ypos[on], color=colours[on], zorder=3, s=22, marker=marker)
    ax.axvline(0, color="#888888", linewidth=0.8)
    ax.set_yticks(ypos)
    ax.set_yticklabels(["\n".join(base.label(line) for line in x.split("\n")) for x in rows["label"]], fontsize=8.5)
    ax.set_ylim(-0.7, k - 0.3)
    base.style(ax, title or forest_title(rows, total), "change in win probability (pp, 95% interval)", "")
    ax.grid(axis="x", color="#dddddd", linewidth=0.8)
    fig.tight_layout()
    peers = "against the mean of its peer group where it has one (the estimate its q tests), else against none"
    return base.save(fig, path, "Components whose association with win probability passes the "
                                f"Benjamini-Hochberg correction (q <= {Q:g}): the change in percentage points when a "
                                f"seat has it, within the same strategy and seat, {peers}, with its 95% interval "
                                "(errors clustered by game)" + (f"; the {k} largest of {total}" if total > k else "")
                     + ". An association, not a cause: see the findings for the interventions that test it.")


def special_tables(est, specs) -> list[tuple[str, Any]]:
    """The title's special cases of the component table (``Game.component_tables``): for each
    ``(caption, ids)``, the rows of :func:`report_table` of those ids, in that order, with the
    per-copy slope beside (pp per copy, 95% interval)."""
    import pandas as pd

    if est is None or not len(est):
        return []
    table = report_table(est).drop(columns=["rank"])
    table["per copy, pp (95% CI)"] = [
        "-" if pd.isna(r.per_copy) else f"{signed(r.per_copy)} ({signed(r.per_copy_low)} to {signed(r.per_copy_high)})"
        for r in est.itertuples()]
    by_id = {str(c): i for i, c in enumerate(table["component"])}
    rows = [(caption, [by_id[i] for i in ids if i in by_id]) for caption, ids in specs]
    return [(caption, table.iloc[r].reset_index(drop=True)) for caption, r in rows if r]
