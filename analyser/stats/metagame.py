"""The meta-game of a tournament: is there one strategy to play, or a rock-paper-scissors cycle?

The *meta-game* is the game whose moves are the tournament's strategies: a player picks one
strategy, and its payoff is the win share that strategy earns against the others.  Its payoffs
are estimated from the tables played (:func:`observations`, :func:`estimate`).

* **Two seats.**  The empirical game is the head-to-head matrix ``H[i, j]``: the win share of
  ``i`` in the games against ``j`` (a shared win counts one half).  ``M = H - 1/2`` is a symmetric
  zero-sum game (``M = -M.T``, diagonal 0, value 0).  Its equilibria are the mixes ``p`` with
  ``M @ p <= 0`` - no single strategy beats the mix - a convex polytope; :func:`max_entropy_nash`
  picks the one of maximum entropy (the choice of Balduzzi et al., "Re-evaluating Evaluation",
  NeurIPS 2018), which is unique, so the answer is deterministic, and which gives exact copies of
  a strategy equal shares of one weight.  Linear programs (``scipy.optimize.linprog``) find the
  polytope; pairs that never met (a balanced sample of tables) are filled from the Bradley-Terry
  ratings.
* **More seats.**  A table seats different strategies, so there is no head-to-head: strategy
  ``i``'s payoff against a mix ``x`` is its expected win share, minus the fair share ``1/n``, at
  a table of opponents drawn from ``x`` among the tables played (:func:`table_payoffs`).  The
  equilibrium is found by replicator dynamics (:func:`replicator`) from the uniform mix.  Not
  AlphaRank: it needs the payoff of one strategy against a table of copies of another, which a
  tournament never plays, and it answers with a ranking distribution, not an equilibrium.

**Nash averaging** (:func:`nash_average`): each strategy's payoff against the equilibrium mix,
in percentage points of win share above an even share.  A strategy in the support scores 0 (for
two seats exactly: the value of the game); one outside it scores below 0 by how much the mix
beats it.  Adding a copy of a strategy does not change it.

**Cycles** (:func:`cycles`): A beats B, B beats C and C beats A, where "beats" is finishing
ahead in more than half the games where both sit at the table (a shared rank counts one half).

**Uncertainty**: a percentile bootstrap over game numbers, as for the ratings (all tables' game
``i`` share the game seed, so they are resampled together), seeded from the run's seed.

:func:`analyse` does all of it for a tournament's results; :func:`findings` turns the answer into
sentences with their evidence, interval and threshold.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

from analyser.stats import metagame_copies as copies

#: An equilibrium weight below this is outside the support (the strategy is not played).
SUPPORT = 0.005
#: Feasibility tolerance of the two-seat equilibrium, in win share: a mix is an equilibrium
#: when no strategy gains more than this against it.
TOL = 1e-9
#: Replicator dynamics: how long the path runs, in time units where a payoff of 1 (a whole
#: win share) multiplies a weight by e per unit.  4000 lets a strategy 0.5 pp worse than the mix
#: fall by a factor e^20.
HORIZON = 4000.0
#: Added to every weight when tables of opponents are drawn from a mix (more than two seats), so
#: every table played keeps a chance and a payoff is defined at every mix.
FLOOR = 1e-6
#: An equilibrium weight at least this is a dominant (pure) strategy.
DOMINANT = 1 - SUPPORT
#: Solver residue: an equilibrium weight within this of 0 (or of 1) is shown as 0 (or 1).
RESIDUE = 1e-6
#: Games per table (game numbers, the bootstrap's unit) needed before a meta-game finding is
#: clear: a percentile bootstrap over a handful of games gives intervals far too narrow (two
#: games that split 1-1 resample to the same answer every time).
CLEAR_MIN_GAMES = 20
#: Decimals of the meta-game table's columns (and their intervals), whatever the intervals.
PLACES = {"weight": 1, "nash_average_pp": 1}


# --------------------------------------------------------------------------------------------
# Game theory on small matrices
# --------------------------------------------------------------------------------------------

def _check_matrix(payoff, square: bool = False) -> np.ndarray:
    a = np.asarray(payoff, dtype=float)
    if a.ndim != 2 or a.size == 0 or (square and a.shape[0] != a.shape[1]):
        raise ValueError(f"expected a non-empty {'square ' if square else ''}matrix, got shape {a.shape}")
    if not np.isfinite(a).all():
        raise ValueError("the payoff matrix has non-finite entries")
    return a


def _mix(x: np.ndarray) -> np.ndarray:
    x = np.clip(np.asarray(x, dtype=float), 0.0, None)
    s = x.sum()
    return x / s if s > 0 else np.full(len(x), 1.0 / len(x))


def solve_zero_sum(payoff) -> tuple[np.ndarray, np.ndarray, float]:
    """Optimal mixed strategies and value of a two-player zero-sum matrix game.

    ``payoff``: shape ``(r, c)``, what the row player wins (the column player loses it).
    Returns ``(row mix (r,), column mix (c,), value)``: the row mix wins at least ``value``
    against every column, the column mix gives away at most ``value`` to every row.

    Method: the linear program  max v  s.t.  ``payoff.T @ x >= v``, ``sum(x) = 1``, ``x >= 0``,
    solved with ``scipy.optimize.linprog`` (HiGHS); the column player's by the same program on
    ``-payoff.T``.  Raises ValueError for an empty or non-finite matrix.
    """
    a = _check_matrix(payoff)
    x, v = _maximin(a)
    y, _ = _maximin(-a.T)
    return x, y, v


def _maximin(a: np.ndarray) -> tuple[np.ndarray, float]:
    from scipy.optimize import linprog

    r, c = a.shape
    cost = np.zeros(r + 1)
    cost[-1] = -1.0
    a_ub = np.hstack([-a.T, np.ones((c, 1))])
    a_eq = np.hstack([np.ones((1, r)), np.zeros((1, 1))])
    res = linprog(cost, A_ub=a_ub, b_ub=np.zeros(c), A_eq=a_eq, b_eq=[1.0],
                  bounds=[(0, None)] * r + [(None, None)], method="highs")
    if res.status != 0:  # cannot happen for a finite matrix: the program is feasible and bounded
        raise RuntimeError(f"linear program failed: {res.message}")
    return _mix(res.x[:r]), float(res.x[-1])


def max_entropy_nash(payoff, tol: float = TOL) -> np.ndarray:
    """The maximum-entropy Nash equilibrium of a symmetric zero-sum game.

    ``payoff``: shape ``(m, m)``, antisymmetric (``payoff[i, j] = -payoff[j, i]``, diagonal 0):
    what strategy ``i`` gains against ``j``.  The game's value is 0 and its equilibria are the
    mixes ``p`` with ``payoff @ p <= tol`` (no strategy gains against ``p``): a convex polytope.
    Returns the mix (shape ``(m,)``, sums to 1) of largest Shannon entropy in it, which is unique;
    it is the equilibrium Nash averaging uses (Balduzzi et al. 2018), and it shares a weight
    equally between exact copies of a strategy.

    Method: one linear program per strategy (``scipy.optimize.linprog``) maximises its weight
    over the polytope.  When every maximiser is the same mix the equilibrium is unique and that
    is the answer; otherwise the entropy is maximised over the polytope with SLSQP
    (``scipy.optimize.minimize``), started from the mean of the maximisers (a point inside it),
    over the strategies some equilibrium uses.  Raises ValueError when ``payoff`` is not an
    antisymmetric finite square matrix.
    """
    from scipy.optimize import linprog, minimize

    a = _check_matrix(payoff, square=True)
    if not np.allclose(a, -a.T, rtol=0, atol=1e-9):
        raise ValueError("a symmetric zero-sum game needs an antisymmetric payoff matrix")
    a = (a - a.T) / 2
    m = len(a)
    if m == 1:
        return np.ones(1)
    corners = []
    for i in range(m):
        cost = np.zeros(m)
        cost[i] = -1.0
        res = linprog(cost, A_ub=a, b_ub=np.full(m, tol), A_eq=np.ones((1, m)), b_eq=[1.0],
                      bounds=[(0, None)] * m, method="highs")
        if res.status != 0:  # the polytope is never empty (a symmetric zero-sum game has value 0)
            raise RuntimeError(f"linear program failed: {res.message}")
        corners.append(_mix(res.x))
    corners = np.array(corners)
    if np.abs(corners - corners[0]).max() <= 1e-7:
        return corners[0]
    start = corners.mean(axis=0)
    free = np.flatnonzero(corners.max(axis=0) > 1e-9)
    sub = a[:, free]

    def neg_entropy(p):
        q = np.clip(p, 1e-300, None)
        return float(np.sum(q * np.log(q)))

    def grad(p):
        return np.log(np.clip(p, 1e-300, None)) + 1.0

    res = minimize(neg_entropy, start[free], jac=grad, method="SLSQP", bounds=[(0.0, 1.0)] * len(free),
                   constraints=[{"type": "ineq", "fun": lambda p: tol - sub @ p, "jac": lambda p: -sub},
                                {"type": "eq", "fun": lambda p: p.sum() - 1.0,
                                 "jac": lambda p: np.ones((1, len(p)))}],
                   options={"ftol": 1e-12, "maxiter": 500})
    best = np.zeros(m)
    best[free] = res.x
    best = _mix(best)
    if (a @ best).max() > 1e-7 or neg_entropy(best) > neg_entropy(start):
        return start  # SLSQP did not improve on a feasible point (does not happen on small games)
    return best


def nash_average(payoff, mix) -> np.ndarray:
    """Nash averaging: each strategy's payoff against the equilibrium mix.

    ``payoff``: ``(m, m)`` matrix of a symmetric game (``payoff[i, j]``: what ``i`` gains against
    ``j``); ``mix``: ``(m,)`` equilibrium weights.  Returns ``payoff @ mix``, shape ``(m,)``, in the
    payoff's units.  For the maximum-entropy equilibrium of a zero-sum game it is 0 for every
    strategy in the support and negative outside it (Balduzzi et al. 2018).
    """
    return _check_matrix(payoff, square=True) @ np.asarray(mix, dtype=float)


def regret(payoffs, mix) -> float:
    """How far ``mix`` is from an equilibrium: the most a single strategy gains over the mix's
    own average payoff, ``max(payoffs) - mix @ payoffs`` (``payoffs``: each strategy's payoff
    against ``mix``, shape ``(m,)``).  0 at an equilibrium, never below 0."""
    u = np.asarray(payoffs, dtype=float)
    return float(max(0.0, u.max() - np.asarray(mix, dtype=float) @ u))


def table_payoffs(mix, members, shares, floor: float = FLOOR) -> np.ndarray:
    """Each strategy's expected payoff at a table of opponents drawn from a mix (two or more seats).

    ``members``: ``(T, n)`` ints, the strategies seated at each table played (all different);
    ``shares``: ``(T, n)``, each one's payoff at that table (its win share minus ``1/n``);
    ``mix``: ``(m,)`` weights.  The opponents of strategy ``i`` are one of the tables played that
    seat ``i``, drawn with probability proportional to the product of its other strategies'
    weights, each weight plus ``floor`` (so every table keeps a chance and the payoff is defined at
    every mix): ``u_i = sum_t w_t s_ti / sum_t w_t``.  Returns shape ``(m,)``; 0 for a strategy at
    no table.
    """
    x = np.asarray(mix, dtype=float)
    members = np.asarray(members, dtype=int)
    shares = np.asarray(shares, dtype=float)
    logw = np.log(x + floor)[members].sum(axis=1)  # the factor of i itself is common to its tables
    w = np.exp(logw - logw.max())
    flat = members.ravel()
    num = np.bincount(flat, weights=(w[:, None] * shares).ravel(), minlength=len(x))
    den = np.bincount(flat, weights=np.repeat(w, members.shape[1]), minlength=len(x))
    return np.divide(num, den, out=np.zeros(len(x)), where=den > 0)


def replicator(payoff: Callable[[np.ndarray], np.ndarray], m: int,
               horizon: float = HORIZON) -> tuple[np.ndarray, float]:
    """An equilibrium by replicator dynamics  dx_i/dt = x_i (u_i(x) - x @ u(x))  from the uniform mix.

    ``payoff``: maps a mix (shape ``(m,)``) to each strategy's payoff against it (shape ``(m,)``).
    The path is integrated in log weights with ``scipy.integrate.solve_ivp`` (RK45) over
    ``[0, horizon]``.  Returns ``(mix, regret)``: the path's end, or the average of its second half
    when that is closer to an equilibrium (a path that keeps circling an equilibrium, as in
    rock-paper-scissors, has it as its time average), and that mix's :func:`regret` - 0 at an
    exact equilibrium.  Strategies a rest point drops decay exponentially, so their weights end
    small but not 0; :data:`SUPPORT` separates them.
    """
    from scipy.integrate import solve_ivp

    if m == 1:
        return np.ones(1), 0.0

    def soft(y):
        e = np.exp(y - y.max())
        return e / e.sum()

    def rhs(_t, y):
        x = soft(y)
        u = payoff(x)
        return u - x @ u

    grid = np.linspace(horizon / 2, horizon, 401)
    sol = solve_ivp(rhs, (0.0, horizon), np.zeros(m), method="RK45", t_eval=grid, rtol=1e-7, atol=1e-9)
    xs = np.array([soft(y) for y in sol.y.T]) if sol.y.size else np.full((1, m), 1.0 / m)
    end, avg = xs[-1], _mix(xs.mean(axis=0))
    r_end, r_avg = regret(payoff(end), end), regret(payoff(avg), avg)
    return (end, r_end) if r_end <= r_avg else (avg, r_avg)


def cycles(beats, low=None) -> list[dict]:
    """Rock-paper-scissors cycles among the strategies: A beats B, B beats C, C beats A.

    ``beats``: ``(m, m)``, the share of the games where both sit at the table that ``i`` finishes
    ahead of ``j`` (a shared rank counts one half; NaN where they never met); "beats" is a share
    above 1/2.  ``low``: ``(m, m)`` lower ends of the shares' 95% intervals, or None.
    Returns one dict per cycle - ``cycle`` (three indices, starting at the lowest), ``weakest``
    (the smallest of its three shares) and ``clear`` (every share's interval lies above 1/2) -
    strongest weakest link first.
    """
    b = np.asarray(beats, dtype=float)
    lo = None if low is None else np.asarray(low, dtype=float)
    out = []
    for i, j, k in itertools.combinations(range(len(b)), 3):
        for cyc in ((i, j, k), (i, k, j)):
            edges = [(cyc[0], cyc[1]), (cyc[1], cyc[2]), (cyc[2], cyc[0])]
            shares = [b[e] for e in edges]
            if all(s == s and s > 0.5 for s in shares):
                clear = lo is not None and all(lo[e] == lo[e] and lo[e] > 0.5 for e in edges)
                out.append({"cycle": cyc, "weakest": float(min(shares)), "clear": bool(clear)})
    out.sort(key=lambda c: (not c["clear"], -c["weakest"], c["cycle"]))
    return out


# --------------------------------------------------------------------------------------------
# From a tournament's results
# --------------------------------------------------------------------------------------------

@dataclass
class Observations:
    """A tournament's games reduced to what the meta-game needs, per row, so that a bootstrap
    resample is a weighted sum (``counts``: how often each game number is drawn).

    ``members``: ``(T, n)`` strategies at each table (seat order of the design); per player-game
    row: ``row_game`` (position of its game number), ``row_slot`` (``table * n + k``: its place in
    ``members``) and ``row_win`` (win share); per ordered pair of seats in a game: ``pair_game``,
    ``pair_a``, ``pair_b`` (strategies) and ``pair_ahead`` (1 if ``a`` finishes ahead, 1/2 on a
    shared rank, else 0)."""

    m: int
    players: int
    games: int
    members: np.ndarray
    row_game: np.ndarray
    row_slot: np.ndarray
    row_win: np.ndarray
    pair_game: np.ndarray
    pair_a: np.ndarray
    pair_b: np.ndarray
    pair_ahead: np.ndarray


def observations(frame: pd.DataFrame, names: list[str]) -> Observations:
    """The :class:`Observations` of a tournament results frame (columns ``table``,
    ``game_index``, ``seat``, ``strategy``, ``rank``, ``win``, ``players``)."""
    index = {s: i for i, s in enumerate(names)}
    d = frame.sort_values(["table", "game_index", "seat"], kind="stable")
    n = int(d["players"].iloc[0])
    table = d["table"].to_numpy(dtype=int)
    strat = np.array([index[s] for s in d["strategy"].astype(str)])
    uniq, gpos = np.unique(d["game_index"].to_numpy(), return_inverse=True)
    tables = np.unique(table)
    tpos = np.searchsorted(tables, table)
    members = np.zeros((len(tables), n), dtype=int)
    slot = np.zeros(len(d), dtype=int)
    for t in range(len(tables)):  # a table's strategies, ascending, as the tournament drew them
        rows = np.flatnonzero(tpos == t)
        seated = sorted(set(strat[rows].tolist()))
        members[t] = seated
        slot[rows] = t * n + np.searchsorted(seated, strat[rows])
    g = gpos.reshape(-1, n)[:, 0]
    s = strat.reshape(-1, n)
    r = d["rank"].to_numpy().reshape(-1, n)
    pg, pa, pb, ps = [], [], [], []
    for a, b in itertools.permutations(range(n), 2):
        pg.append(g)
        pa.append(s[:, a])
        pb.append(s[:, b])
        ps.append(np.where(r[:, a] < r[:, b], 1.0, np.where(r[:, a] == r[:, b], 0.5, 0.0)))
    return Observations(len(names), n, len(uniq), members, gpos, slot, d["win"].to_numpy(dtype=float),
                        np.concatenate(pg), np.concatenate(pa), np.concatenate(pb), np.concatenate(ps))


def estimate(obs: Observations, counts: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(shares (T, n), ahead (m, m))`` from the games, each game number weighted by
    ``counts`` (shape ``(games,)``; None: once each).  ``shares``: each seated strategy's mean win
    share at its table; ``ahead[i, j]``: the share of the games with both at the table that ``i``
    finishes ahead of ``j`` (NaN where they never met, and on the diagonal).  A table with no game
    in the resample gets NaN shares."""
    c = np.ones(obs.games) if counts is None else np.asarray(counts, dtype=float)
    size = obs.members.size
    wr = c[obs.row_game]
    tot = np.bincount(obs.row_slot, weights=wr * obs.row_win, minlength=size)
    cnt = np.bincount(obs.row_slot, weights=wr, minlength=size)
    shares = np.divide(tot, cnt, out=np.full(size, np.nan), where=cnt > 0).reshape(obs.members.shape)
    wp = c[obs.pair_game]
    key = obs.pair_a * obs.m + obs.pair_b
    a_tot = np.bincount(key, weights=wp * obs.pair_ahead, minlength=obs.m * obs.m)
    a_cnt = np.bincount(key, weights=wp, minlength=obs.m * obs.m)
    ahead = np.divide(a_tot, a_cnt, out=np.full(obs.m * obs.m, np.nan), where=a_cnt > 0).reshape(obs.m, obs.m)
    return shares, ahead


def head_to_head(members: np.ndarray, shares: np.ndarray, m: int, ratings=None) -> tuple[np.ndarray, np.ndarray]:
    """Two seats: ``(M, filled)``.  ``M[i, j]``: ``i``'s win share against ``j`` minus 1/2, shape
    ``(m, m)``, antisymmetric.  A pair that never met (or has no game in a resample) is filled
    from the Bradley-Terry ``ratings`` (log-strengths, shape ``(m,)``:
    ``1 / (1 + exp(r_j - r_i)) - 1/2``), or 0 without them; ``filled`` is the boolean mask of
    those entries."""
    mat = np.full((m, m), np.nan)
    for (a, b), (sa, sb) in zip(members, shares):
        if sa == sa and sb == sb:
            mat[a, b], mat[b, a] = sa - 0.5, sb - 0.5
    np.fill_diagonal(mat, 0.0)
    filled = np.isnan(mat)
    if filled.any():
        r = np.zeros(m) if ratings is None else np.asarray(ratings, dtype=float)
        model = 1.0 / (1.0 + np.exp(r[None, :] - r[:, None])) - 0.5
        mat = np.where(filled, model, mat)
    return (mat - mat.T) / 2, filled


def _solve(obs: Observations, shares: np.ndarray, ahead: np.ndarray, ratings, point_shares=None, group=None):
    """One equilibrium: (weights, nash averages in win share, regret, matrix for the heatmap, filled).
    ``group``: each strategy's class of indistinguishable strategies (shape ``(m,)``, classes
    0..k-1; None: each its own): the game is solved on the classes, and a class's weight is
    shared equally among its strategies, each with the class's Nash average."""
    if point_shares is not None:  # a table missing from a resample keeps its point estimate
        shares = np.where(np.isnan(shares), point_shares, shares)
    group = np.arange(obs.m) if group is None else np.asarray(group)
    k = int(group.max()) + 1
    size = np.bincount(group, minlength=k).astype(float)
    member = np.eye(k)[group]  # (m, k) indicator
    if obs.players == 2:
        mat, filled = head_to_head(obs.members, shares, obs.m, ratings)
        merged = member.T @ mat @ member / np.outer(size, size)
        np.fill_diagonal(merged, 0.0)
        pc = max_entropy_nash(merged)
        navc = nash_average(merged, pc)
        navc[np.abs(navc) < 1e-7] = 0.0  # the support's payoff is the game's value, 0, up to the solver's tolerance
        eps = regret(merged @ pc, pc)
        mat_out = mat + 0.5
    else:
        rel = np.nan_to_num(shares - 1.0 / obs.players)

        def pay(x):
            return table_payoffs(x, group[obs.members], rel)

        pc, eps = replicator(pay, k)
        navc, mat_out, filled = pay(pc), None, None
    pc = np.where(pc < RESIDUE, 0.0, np.where(pc > 1 - RESIDUE, 1.0, pc))  # solver residues
    pc = pc / pc.sum()
    return pc[group] / size[group], navc[group], eps, mat_out, filled


def _value(nav: np.ndarray, p: np.ndarray) -> float:
    """The equilibrium mix's own payoff against itself (0 for two seats)."""
    return float(p @ nav)


@dataclass
class MetaGame:
    """The meta-game of a tournament (see the module docstring).

    ``strategies``: names, in the tournament's order; ``players``: seats per table;
    ``method``: how the equilibrium was found; ``table``: one row per strategy, sorted by Nash
    average - ``weight`` (equilibrium weight, with ``weight_low``/``weight_high``), ``nash_average_pp``
    (percentage points of win share above an even share against the equilibrium mix, with
    ``_low``/``_high``), ``field_share`` (win share against a table drawn from a uniform mix of
    the others); ``game``: the empirical game as a matrix - for two seats the head-to-head win share
    of row against column, for more the row's mean win share at the tables played with the
    column; ``filled``: strategy pairs whose head-to-head came from the ratings; ``ahead``,
    ``ahead_low``, ``ahead_high``: finishing-ahead shares and 95% intervals (m, m); ``cycles``:
    :func:`cycles` with names; ``regret``: of the equilibrium, in percentage points;
    ``value``: the equilibrium mix's payoff against itself, in percentage points (0 for two
    seats; for more, a strategy never meets itself, and the support's Nash averages equal this
    rather than 0); ``classes``: the groups of two or more strategies that cannot be told
    apart (:func:`analyser.stats.metagame_copies.indistinguishable`), which share their class's weight equally; ``same``: the
    pairs behind them, with names ``a`` and ``b``; ``games``: game numbers (games per table), the
    bootstrap's unit: below :data:`CLEAR_MIN_GAMES` no finding is clear."""

    strategies: list[str]
    players: int
    method: str
    table: pd.DataFrame
    game: pd.DataFrame
    filled: list[tuple[str, str]]
    ahead: np.ndarray
    ahead_low: np.ndarray
    ahead_high: np.ndarray
    cycles: list[dict]
    regret: float
    value: float
    bootstrap: int
    games: int = 0
    classes: list[list[str]] = field(default_factory=list)
    same: list[dict] = field(default_factory=list)
    findings: list[dict] = field(default_factory=list)


METHOD_2 = "maximum-entropy Nash equilibrium of the head-to-head zero-sum game (linear programming, scipy)"
METHOD_N = "replicator dynamics from the uniform mix (scipy solve_ivp)"


def analyse(frame: pd.DataFrame, names: list[str], ratings=None, bootstrap: int = 50,
            seed: int = 0) -> MetaGame:
    """The meta-game of a tournament's results (``frame``: the tournament's results with a
    ``table`` column; ``names``: its strategies; ``ratings``: Bradley-Terry log-strengths in the
    order of ``names``, used to fill head-to-heads that were never played).  Intervals: percentile
    bootstrap over game numbers with ``bootstrap`` resamples drawn from ``seed``."""
    obs = observations(frame, names)
    m, n = obs.m, obs.players
    shares, ahead = estimate(obs)
    rng = np.random.default_rng([int(seed) % (2**32), 0x4D47])
    resamples, aheads = [], []
    for _ in range(bootstrap):
        counts = np.bincount(rng.integers(0, obs.games, obs.games), minlength=obs.games)
        bs, ba = estimate(obs, counts)
        resamples.append((bs, ba))
        aheads.append(np.where(np.isnan(ba), ahead, ba))
    paired = copies.exact_copies(frame, names)
    group, same = copies.indistinguishable(ahead, np.array(aheads).reshape(-1, m, m), paired)
    p, nav, eps, mat, filled = _solve(obs, shares, ahead, ratings, group=group)
    ws, navs = [], []
    for bs, ba in resamples:
        bp, bnav, _, _, _ = _solve(obs, bs, ba, ratings, point_shares=shares, group=group)
        ws.append(bp)
        navs.append(bnav)
    if bootstrap:
        w_lo, w_hi = np.percentile(np.array(ws), [2.5, 97.5], axis=0)
        n_lo, n_hi = np.percentile(np.array(navs), [2.5, 97.5], axis=0)
        a_lo, a_hi = np.percentile(np.array(aheads), [2.5, 97.5], axis=0)
    else:
        w_lo, w_hi, n_lo, n_hi, a_lo, a_hi = p, p, nav, nav, ahead, ahead
    rel = np.nan_to_num(shares - 1.0 / n)
    field_share = table_payoffs(np.ones(m), obs.members, rel) + 1.0 / n  # uniform mix of the others
    if n == 2:
        game = mat.copy()
    else:
        game = np.full((m, m), np.nan)
        for i, j in itertools.permutations(range(m), 2):
            at = [shares[t, list(obs.members[t]).index(i)] for t in range(len(obs.members))
                  if i in obs.members[t] and j in obs.members[t]]
            at = [s for s in at if s == s]
            if at:
                game[i, j] = float(np.mean(at))
    np.fill_diagonal(game, np.nan)
    pairs = [(names[i], names[j]) for i, j in zip(*np.nonzero(filled)) if i < j] if filled is not None else []
    table = pd.DataFrame({"strategy": names, "weight": p, "weight_low": np.minimum(w_lo, p),
                          "weight_high": np.maximum(w_hi, p), "nash_average_pp": nav * 100,
                          "nash_average_pp_low": np.minimum(n_lo, nav) * 100,
                          "nash_average_pp_high": np.maximum(n_hi, nav) * 100, "field_share": field_share})
    table["order"] = np.arange(m)
    table = (table.sort_values(["nash_average_pp", "weight", "order"], ascending=[False, False, True], kind="stable")
             .drop(columns="order").reset_index(drop=True))
    table.attrs["percent"] = ("weight", "weight_low", "weight_high")
    table.attrs["places"] = dict(PLACES)
    named, seen = [], set()
    for c in cycles(ahead, a_lo):  # a cycle through a strategy's copy is the same cycle
        key = tuple(group[list(c["cycle"])])
        turn = key.index(min(key))
        key = key[turn:] + key[:turn]
        if len(set(key)) == 3 and key not in seen:
            seen.add(key)
            named.append(dict(c, names=[names[k] for k in c["cycle"]]))
    meta = MetaGame(list(names), n, METHOD_2 if n == 2 else METHOD_N, table,
                    pd.DataFrame(game, index=names, columns=names), pairs, ahead, a_lo, a_hi, named,
                    eps * 100, _value(nav, p) * 100 if n > 2 else 0.0, bootstrap, obs.games,
                    classes=[[names[i] for i in np.flatnonzero(group == c)] for c in range(int(group.max()) + 1)
                             if (group == c).sum() > 1], same=[dict(d, a=names[d["i"]], b=names[d["j"]]) for d in same])
    meta.findings = findings(meta)
    return meta


# --------------------------------------------------------------------------------------------
# Findings
# --------------------------------------------------------------------------------------------

def _pct(x: float) -> str:
    from analyser.stats.analysis import fixed

    return fixed(x * 100, 1) + "%"


def _pp(x: float) -> str:
    """Percentage points with a sign, one decimal: ``+1.2``, ``-24.5``, ``0.0``."""
    return copies._sign(x)


def _few(meta: MetaGame) -> str:
    """Why a finding is not clear when the tournament is too short: '' when it is long enough."""
    if meta.games >= CLEAR_MIN_GAMES:
        return ""
    return (f"from only {meta.games} game{'s' if meta.games != 1 else ''} per table (a clear finding needs "
            f"{CLEAR_MIN_GAMES} or more)")


def _names(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def findings(meta: MetaGame) -> list[dict]:
    """The meta-game's findings: a dominant strategy, a rock-paper-scissors cycle, strategies no
    equilibrium mix uses, strategies that cannot be told apart.  One dict each: ``topic``
    ("dominant", "cycle", "unused", "indistinguishable"), ``sentence``,
    ``strength`` ("clear", "possible" or "none found"), ``evidence`` (``{"figure": ..., "interval":
    ...}``, strings) and ``threshold`` (the rule that makes it clear)."""
    t = meta.table
    boot = meta.bootstrap
    few = _few(meta)
    enough = f"; never clear from fewer than {CLEAR_MIN_GAMES} games per table"
    out = []
    top = t.sort_values("weight", ascending=False, kind="stable").iloc[0]
    thr = (f"pure when the equilibrium weight is at least {_pct(DOMINANT)}; clear when the lower end "
           f"of its 95% interval ({boot} bootstrap resamples) is too{enough}")
    ev = {"figure": f"{top['strategy']}: weight {_pct(top['weight'])}",
          "interval": f"{_pct(top['weight_low'])}-{_pct(top['weight_high'])}"}
    group = next((c for c in meta.classes if top["strategy"] in c), [top["strategy"]])
    k = len(group)
    if k > 1:
        ev = {"figure": f"{_names(group)}: weight {_pct(top['weight'] * k)} together",
              "interval": f"{_pct(top['weight_low'] * k)}-{_pct(top['weight_high'] * k)}"}
    if k > 1 and k == len(t):
        out.append({"topic": "dominant", "strength": "none found", "evidence": ev, "threshold": thr,
                    "sentence": f"No single strategy dominates: the {k} strategies cannot be told apart, so the "
                                f"equilibrium shares its weight equally among them ({_pct(top['weight'])} each)."})
    elif top["weight"] * k >= DOMINANT:
        steady = top["weight_low"] * k >= DOMINANT
        clear = steady and not few
        who = (f"{top['strategy']} is the strategy to play" if k == 1 else
               f"{_names(group)}, which cannot be told apart, are the strategies to play")
        out.append({"topic": "dominant", "strength": "clear" if clear else "possible", "evidence": ev, "threshold": thr,
                    "sentence": f"{who}: the meta-game equilibrium (the mix of strategies that no single strategy "
                                f"beats) puts all its weight on {'it' if k == 1 else 'them, shared equally'}"
                                + ("" if clear else f", though {few}" if steady else
                                   ", though not in every bootstrap resample") + "."})
    else:
        used = t[t["weight"] >= SUPPORT].sort_values("weight", ascending=False, kind="stable")
        mix = ", ".join(f"{r.strategy} {_pct(r.weight)}" for r in used.itertuples())
        out.append({"topic": "dominant", "strength": "none found", "evidence": ev, "threshold": thr,
                    "sentence": f"No single strategy dominates: the equilibrium (the mix of strategies that no "
                                f"single strategy beats) mixes {len(used)} strategies "
                                f"({mix})."})
    thr = ("each of the three shares of games finished ahead is above 50%; clear when each one's 95% "
           f"interval ({boot} bootstrap resamples) lies above 50%{enough}")
    if meta.cycles:
        c = meta.cycles[0]
        a, b, d = c["names"]
        idx = c["cycle"]
        edges = [(idx[0], idx[1]), (idx[1], idx[2]), (idx[2], idx[0])]
        fig = "; ".join(f"{meta.strategies[x]} ahead of {meta.strategies[y]} {_pct(meta.ahead[x, y])}" for x, y in edges)
        iv = "; ".join(f"{_pct(meta.ahead_low[x, y])}-{_pct(meta.ahead_high[x, y])}" for x, y in edges)
        more = len(meta.cycles) - 1
        out.append({"topic": "cycle", "strength": "clear" if c["clear"] and not few else "possible",
                    "evidence": {"figure": fig, "interval": iv}, "threshold": thr,
                    "sentence": f"Rock-paper-scissors cycle: {a} beats {b}, {b} beats {d}, {d} beats {a}"
                                + ("" if c["clear"] and not few else f" ({few})" if c["clear"] else
                                   " (not every link is clear of a coin flip)")
                                + (f"; {more} more cycle{'s' if more > 1 else ''} in the table of shares" if more else "")
                                + "."})
    else:
        out.append({"topic": "cycle", "strength": "none found", "evidence": {"figure": "no three strategies beat "
                    "each other in a circle", "interval": "-"}, "threshold": thr,
                    "sentence": "No rock-paper-scissors cycle: the strategies' head-to-head order has no loop."
                    if meta.players == 2 else "No rock-paper-scissors cycle: who finishes ahead of whom has no loop."})
    thr = (f"outside the support when the equilibrium weight is below {_pct(SUPPORT)}; clear when the upper end "
           f"of its 95% interval is too{enough}")
    unused = t[t["weight"] < SUPPORT]
    for steady, group in ((True, unused[unused["weight_high"] < SUPPORT]), (False, unused[unused["weight_high"] >= SUPPORT])):
        if not len(group):
            continue
        clear = steady and not few
        names = list(group["strategy"])
        weights = [_pct(r.weight) for r in group.itertuples()]
        spans = [f"{_pct(r.weight_low)}-{_pct(r.weight_high)}" for r in group.itertuples()]
        if len(names) > 1 and len(set(weights)) == 1 and len(set(spans)) == 1:
            fig, iv = f"{weights[0]} each", f"{spans[0]} each"
        else:
            fig = ", ".join(f"{s} {w}" for s, w in zip(names, weights))
            iv = ", ".join(f"{s} {w}" for s, w in zip(names, spans))
        navs = _names([_pp(x) for x in group["nash_average_pp"]]) + " pp"
        verb = "it is" if len(names) == 1 else "they are"
        out.append({"topic": "unused", "strength": "clear" if clear else "possible",
                    "evidence": {"figure": "weight " + fig, "interval": iv}, "threshold": thr,
                    "sentence": f"No equilibrium mix uses {_names(names)}: {verb} dominated in the meta-game"
                                + ("" if clear else f", though {few}" if steady else
                                   " in the point estimate, though some bootstrap resamples use "
                                   + ("it" if len(names) == 1 else "them"))
                                + f" (Nash average{'s' if len(names) > 1 else ''} - the win share against the "
                                  f"equilibrium mix above an even share - {navs}"
                                + (f", against {_pp(meta.value)} pp for the mix's own strategies" if meta.players > 2 else "")
                                + ")."})
    if not len(unused):
        low = t.sort_values("weight", kind="stable").iloc[0]
        out.append({"topic": "unused", "strength": "none found",
                    "evidence": {"figure": f"smallest weight: {low['strategy']} {_pct(low['weight'])}",
                                 "interval": f"{_pct(low['weight_low'])}-{_pct(low['weight_high'])}"},
                    "threshold": thr, "sentence": "Every strategy has a place in the equilibrium mix."})
    return out + copies.findings(meta)


def finding_lines(items: list[dict]) -> list[str]:
    """Findings as terminal lines: ``[strength] sentence (figure; 95% CI interval)``."""
    return [f"[{f['strength']}] {f['sentence']} ({f['evidence']['figure']}; 95% CI {f['evidence']['interval']})"
            if f["evidence"]["interval"] != "-" else f"[{f['strength']}] {f['sentence']}" for f in items]


# --------------------------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------------------------

def summary_text(meta: MetaGame, ratings: pd.DataFrame | None = None, findings: bool = True) -> str:
    """The meta-game for the terminal: the method, the table (with the ``ratings`` columns
    ``rating``/``rating_low``/``rating_high`` of the tournament's ranking when given) and, with
    ``findings``, the meta-game's findings, one per line (the tournament prints them among all
    its findings instead: :func:`analyser.findings.tournament_findings`)."""
    from analyser.stats.analysis import format_table

    table = with_ratings(meta, ratings)
    lines = [f"Meta-game: {meta.method}; Nash average in pp of win share above an even share "
             f"(1/{meta.players}) against the equilibrium mix."]
    with pd.option_context("display.width", 200, "display.max_columns", 30):
        lines.append(format_table(table).to_string(index=False))
    if findings:
        lines.append("Findings:")
        lines += ["  " + line for line in finding_lines(meta.findings)]
    return "\n".join(lines)


def with_ratings(meta: MetaGame, ratings: pd.DataFrame | None) -> pd.DataFrame:
    """:attr:`MetaGame.table` with the rating columns of a tournament ranking joined on."""
    table = meta.table
    if ratings is not None and len(ratings):
        cols = ["strategy", "rating", "rating_low", "rating_high"]
        table = table.merge(ratings[cols], on="strategy", how="left")
        table.attrs = dict(meta.table.attrs)
    return table


def plot(meta: MetaGame, path) -> tuple[str, str]:
    """``metagame.png``: the empirical game as a heatmap (rows and columns in Nash-average
    order) with the equilibrium weights and their 95% intervals as bars beside it.  Returns
    ``(file name, caption)``."""
    import matplotlib.pyplot as plt
    from matplotlib.colors import TwoSlopeNorm

    from analyser.stats import plots

    order = list(meta.table["strategy"])
    k = len(order)
    mat = meta.game.loc[order, order].to_numpy() * 100
    fair = 100 / meta.players
    w = meta.table["weight"].to_numpy() * 100
    lo = meta.table["weight_low"].to_numpy() * 100
    hi = meta.table["weight_high"].to_numpy() * 100
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(5.6 + 0.8 * k, 2.6 + 0.6 * k), sharey=True,
                                 gridspec_kw={"width_ratios": [max(k, 4), 3.0]})
    ax.imshow(mat, cmap="RdBu", norm=TwoSlopeNorm(vcenter=fair, vmin=0, vmax=100), aspect="auto")
    texts = []
    for i in range(k):
        for j in range(k):
            if mat[i, j] == mat[i, j]:
                dark = abs(mat[i, j] - fair) > 0.6 * (100 - fair if mat[i, j] > fair else fair)
                texts.append((ax, ax.text(j, i, f"{mat[i, j]:.0f}", ha="center", va="center", fontsize=plots.LABEL_PT,
                                          color="white" if dark else "black")))
            else:
                texts.append((ax, ax.text(j, i, "-", ha="center", va="center", fontsize=plots.LABEL_PT,
                                          color="#777777")))
    names = [plots.short(plots.label(s), 24) for s in order]
    ax.set_xticks(range(k), names, rotation=45, ha="right", fontsize=8)
    ax.set_yticks(range(k), names, fontsize=8)
    ax.set_xlabel(f"opponent (blue: the row wins more than {fair:.0f}%, red: less)", fontsize=9)
    ax.set_ylabel("strategy")
    what = "Row's win share against column (%)" if meta.players == 2 else "Row's win share at tables with column (%)"
    ax.set_title(what, fontsize=10.5, loc="left", fontweight="bold")
    y = np.arange(k)
    bx.barh(y, w, color="#3a6ea5", height=0.6, xerr=np.clip(np.vstack([w - lo, hi - w]), 0, None), capsize=3,
            error_kw={"elinewidth": 1.0, "ecolor": "#222222"})
    for yi, v, h in zip(y, w, hi):
        bx.text(min(h, 100) + 3, yi, f"{v:.0f}%", va="center", fontsize=8)
    bx.set_xlim(0, 130)
    bx.set_xticks([0, 25, 50, 75, 100])
    bx.tick_params(axis="y", left=False)
    plots.style(bx, "Equilibrium mix", "weight (%, 95% CI)", "")
    bx.set_title("Equilibrium mix", fontsize=10.5, loc="left", fontweight="bold")
    caption = ("The empirical meta-game: " + ("how often the row strategy wins against the column strategy (a shared "
               "win counts one half)" if meta.players == 2 else "the row strategy's mean win share at the tables it "
               "shared with the column strategy") + "; strategies in Nash-average order. Beside it, the weight of each "
               f"strategy in the equilibrium ({meta.method}) with its 95% bootstrap interval.")
    fig.tight_layout()  # as plots.save lays it out, so the cell labels fit the final cells
    plots.fit_cell_labels(fig, texts, k, k, 3)
    return plots.save(fig, Path(path), caption)
