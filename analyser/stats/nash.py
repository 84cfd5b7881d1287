"""Game theory on the small matrices of a meta-game (:mod:`analyser.stats.metagame`, whose
docstring gives the methods and their sources): the two-seat zero-sum equilibrium of maximum
entropy, Nash averaging, regret, the payoffs of a mix at tables of more seats, replicator
dynamics and the cycles of a "beats" relation.  Pure numerics on numpy arrays; scipy's
``linprog`` and ``solve_ivp`` do the solving."""

from __future__ import annotations

import itertools
from typing import Callable

import numpy as np

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


def _check_matrix(payoff) -> np.ndarray:
    a = np.asarray(payoff, dtype=float)
    if a.ndim != 2 or a.size == 0 or a.shape[0] != a.shape[1]:
        raise ValueError(f"expected a non-empty square matrix, got shape {a.shape}")
    if not np.isfinite(a).all():
        raise ValueError("the payoff matrix has non-finite entries")
    return a


def _mix(x: np.ndarray) -> np.ndarray:
    x = np.clip(np.asarray(x, dtype=float), 0.0, None)
    s = x.sum()
    return x / s if s > 0 else np.full(len(x), 1.0 / len(x))


def max_entropy_nash(payoff, tol: float = TOL) -> np.ndarray:
    """The maximum-entropy Nash equilibrium of a symmetric zero-sum game.

    ``payoff``: shape ``(m, m)``, antisymmetric (``payoff[i, j] = -payoff[j, i]``, diagonal 0):
    what strategy ``i`` gains against ``j``.  The game's value is 0 and its equilibria are the
    mixes ``p`` with ``payoff @ p <= tol`` (no strategy gains against ``p``): a convex polytope.
    Returns the mix (shape ``(m,)``, sums to 1) of largest Shannon entropy in it, which is unique
    (the equilibrium of Nash averaging, Balduzzi et al. 2018).  Method: per strategy a linear
    program maximises its weight over the polytope; if the maximisers differ, SLSQP maximises the
    entropy from their mean.  Raises ValueError when ``payoff`` is not an antisymmetric finite
    square matrix.
    """
    from scipy.optimize import linprog, minimize

    a = _check_matrix(payoff)
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
    """Nash averaging: each strategy's payoff against the equilibrium ``mix`` (m,), ``payoff @
    mix``, in the units of ``payoff`` (m, m; ``payoff[i, j]``: what ``i`` gains against ``j``).
    At the maximum-entropy equilibrium: 0 in the support, negative outside it."""
    return _check_matrix(payoff) @ np.asarray(mix, dtype=float)


def regret(payoffs, mix) -> float:
    """How far ``mix`` is from an equilibrium: the most a single strategy gains over the mix's
    own average payoff, ``max(payoffs) - mix @ payoffs`` (``payoffs``: each strategy's payoff
    against ``mix``, shape ``(m,)``).  0 at an equilibrium, never below 0."""
    u = np.asarray(payoffs, dtype=float)
    return float(max(0.0, u.max() - np.asarray(mix, dtype=float) @ u))


def table_payoffs(mix, members, shares, floor: float = FLOOR) -> np.ndarray:
    """Each strategy's expected payoff at a table of opponents drawn from a mix (two or more seats).

    ``members``: ``(T, n)`` ints, the (different) strategies at each table played; ``shares``:
    ``(T, n)``, each one's payoff there (its win share minus ``1/n``); ``mix``: ``(m,)`` weights.
    Strategy ``i`` meets one of its tables, drawn with probability proportional to the product of
    its other strategies' weights plus ``floor``: ``u_i = sum_t w_t s_ti / sum_t w_t``.  Returns
    shape ``(m,)``; 0 for a strategy at no table.
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

    ``payoff``: maps a mix (shape ``(m,)``) to each strategy's payoff against it (shape ``(m,)``);
    the path is integrated in log weights (``solve_ivp``, RK45) over ``[0, horizon]``.  Returns
    ``(mix, regret)``: the path's end, or the average of its second half when that is closer to an
    equilibrium (a path circling one, as in rock-paper-scissors), and its :func:`regret`.  Dropped
    strategies end small but not 0; :data:`SUPPORT` separates them.
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

    ``beats``: ``(m, m)`` shares of the games with both at the table that ``i`` finishes ahead of
    ``j`` (NaN: never met); "beats" is above 1/2.  ``low``: their 95% lower ends, or None.  Returns
    per cycle ``cycle`` (three indices, lowest first), ``weakest`` (its smallest share) and ``clear``
    (every lower end above 1/2), strongest weakest link first.
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
