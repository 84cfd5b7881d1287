"""Players of the Pig skeleton that ``analyser new`` writes, for the tests of the outcome figures
(a strategy file: ``tests/pig_players.py:optimal``, ``tests/pig_players.py:hold:n=20``).

* ``hold:n=20`` rolls until its turn total reaches ``n``, then holds.
* ``optimal`` maximises its probability of winning two-seat Pig, from a table computed by value
  iteration: ``Q[i, j]``, the probability that the seat to act wins at the start of its turn with
  ``i`` banked against ``j``, is improved sweep by sweep - each sweep walks the turn totals from the
  highest down, taking for each the better of rolling (a 1 hands the turn over, at ``1 - Q[j, i]``;
  a face ``f`` >= 2 moves to turn total ``k + f``, a win once ``i + k + f`` reaches the target) and
  holding (``1 - Q[j, i + k]``) - until it changes by less than 1e-10.

They read the view the skeleton gives (``scores``, ``turn_total``, ``seat``, and the target and
die from ``view.params`` or ``view.target``).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from analyser.core import Strategy

ROLL, HOLD = "roll", "hold"


def _rules(view) -> tuple[int, int]:
    params = getattr(view, "params", None)
    if params is not None:
        return int(params.target), int(params.die)
    return int(view.target), 6


class Hold(Strategy):
    """Rolls until the turn total reaches ``n``, then holds."""

    name = "hold"
    uses_rng = False

    def __init__(self, n: int = 20):
        self.n = n

    def choose(self, view, legal, rng):
        return HOLD if HOLD in legal and view.turn_total >= self.n else ROLL


class Optimal(Strategy):
    """The optimal two-seat Pig player (module docstring)."""

    name = "optimal"
    uses_rng = False

    def choose(self, view, legal, rng):
        if HOLD not in legal:
            return ROLL
        target, die = _rules(view)
        me, them = view.scores[view.seat], view.scores[1 - view.seat]
        return ROLL if roll_table(target, die)[me, them, view.turn_total] else HOLD


@lru_cache(maxsize=2)
def roll_table(target: int, die: int, tol: float = 1e-9) -> np.ndarray:
    """``roll[i, j, k]``: rolling is at least as good as holding with ``i`` banked, the opponent at
    ``j`` and turn total ``k`` (shape target x target x target)."""
    T = target
    i = np.arange(T)[:, None]
    j = np.arange(T)[None, :]
    Q = np.zeros((T, T))
    while True:
        roll = np.zeros((T, T, T), dtype=bool)
        # win[:, :, k] for k = 0 .. T + die: 1 wherever i + k reaches the target
        win = np.where(i[:, :, None] + np.arange(T + die + 1)[None, None, :] >= T, 1.0, 0.0)
        win = np.broadcast_to(win, (T, T, T + die + 1)).copy()
        ahead = win[:, :, T - 1 + 2:T - 1 + die + 1].sum(axis=2)  # sum over faces 2..die above k = T - 1
        bust = (1.0 - Q.T) / die                                   # the opponent to act at (j, i)
        for k in range(T - 1, -1, -1):
            rolled = bust + ahead / die
            if k:
                hold = np.where(i + k >= T, 1.0, 1.0 - Q[j, np.minimum(i + k, T - 1)])
                roll[:, :, k] = rolled >= hold
                value = np.where(i + k >= T, 1.0, np.maximum(rolled, hold))
            else:
                value = rolled
            win[:, :, k] = value
            ahead = ahead - win[:, :, k + die] + win[:, :, k + 1]  # the faces 2..die above k - 1
        change = float(np.abs(win[:, :, 0] - Q).max())
        Q = win[:, :, 0].copy()
        if change < tol:
            roll[:, :, 0] = True
            return roll


STRATEGIES = [Hold, Optimal]
