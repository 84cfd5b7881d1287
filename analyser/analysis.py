"""Summaries of a results frame (one row per game and seat; see :mod:`analyser.experiments`).

Intervals are 95% by default:

* win rate: Wilson score interval on the mean of ``win`` (a shared win counts 1/k), with ``n`` the
  number of (game, seat) rows.  With shared wins this is an approximation: the rows are not
  exactly Bernoulli, but the Wilson interval stays well inside [0, 1] and is close to the normal
  interval at the sample sizes used here.
* mean score: normal approximation, mean +/- z * sd / sqrt(n).  Rows of the same game are
  correlated (a mirror match puts one strategy in several seats), so read it as an approximation.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

Z95 = 1.959963984540054


def wilson(p: float | np.ndarray, n: float | np.ndarray, z: float = Z95):
    """Wilson score interval ``(low, high)`` for a proportion ``p`` observed over ``n`` trials.

    Works element-wise on arrays.  ``n == 0`` gives ``(nan, nan)``.
    """
    p = np.asarray(p, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        denom = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
        low = np.where(n > 0, np.clip(np.minimum(centre - half, p), 0, 1), np.nan)
        high = np.where(n > 0, np.clip(np.maximum(centre + half, p), 0, 1), np.nan)
    if low.ndim == 0:
        return float(low), float(high)
    return low, high


def _rate_table(df: pd.DataFrame, by: str) -> pd.DataFrame:
    g = df.groupby(by, observed=True)
    out = g.agg(n=("win", "size"), win_rate=("win", "mean"), mean_score=("score", "mean"),
                score_sd=("score", "std")).reset_index()
    lo, hi = wilson(out["win_rate"].to_numpy(), out["n"].to_numpy())
    out.insert(3, "win_low", lo)
    out.insert(4, "win_high", hi)
    half = Z95 * out["score_sd"] / np.sqrt(out["n"])  # NaN (no interval) for a single row
    out.insert(6, "score_low", out["mean_score"] - half)
    out.insert(7, "score_high", out["mean_score"] + half)
    return out


def strategy_summary(df: pd.DataFrame) -> pd.DataFrame:
    """Per strategy: ``n`` rows, ``win_rate`` with ``win_low``/``win_high`` (Wilson 95%),
    ``mean_score`` with ``score_low``/``score_high`` (95%) and ``score_sd``, ``mean_rank``;
    sorted by win rate, best first."""
    out = _rate_table(df, "strategy")
    out["mean_rank"] = df.groupby("strategy", observed=True)["rank"].mean().reindex(out["strategy"]).to_numpy()
    return out.sort_values("win_rate", ascending=False, kind="stable").reset_index(drop=True)


def seat_summary(df: pd.DataFrame) -> pd.DataFrame:
    """Per seat (turn order): win rate with Wilson 95% interval, mean score; the turn-order
    advantage is the gap from ``1 / players``."""
    out = _rate_table(df, "seat")
    out["fair_share"] = 1.0 / df["players"].iloc[0] if len(df) else np.nan
    return out


def game_keys(df: pd.DataFrame) -> list[str]:
    """The columns that identify one game: (``run_id``, ``game_index``), so results of several
    runs joined by hand are not merged."""
    return ["run_id", "game_index"] if "run_id" in df.columns else ["game_index"]


def per_game(df: pd.DataFrame) -> pd.DataFrame:
    """One row per game: its keys, ``turns`` (if recorded), ``tie`` (the win was shared),
    ``top_score``, ``margin`` (top score minus the best other score)."""
    keys = game_keys(df)
    g = df.groupby(keys, sort=True, observed=True)
    out = pd.DataFrame({"tie": g["win"].max() < 1.0 - 1e-9, "top_score": g["score"].max()})
    ordered = df.sort_values(keys + ["score"], ascending=[True] * len(keys) + [False], kind="stable")
    pos = ordered.groupby(keys, observed=True).cumcount()
    second = ordered.loc[pos.to_numpy() == 1].set_index(keys)["score"]
    out["margin"] = out["top_score"] - second
    if "turns" in df.columns:
        out["turns"] = g["turns"].first()
    return out.reset_index()


def run_summary(df: pd.DataFrame) -> dict:
    """Across the run: games, tie rate (with Wilson 95%), and game length in turns (mean, sd,
    median, 5th and 95th percentiles)."""
    games = per_game(df)
    n = len(games)
    tie_rate = float(games["tie"].mean()) if n else math.nan
    lo, hi = wilson(tie_rate, n)
    out = {"games": n, "tie_rate": tie_rate, "tie_low": lo, "tie_high": hi}
    out["seats"] = seat_balance(df)
    out["mirror"] = mirror_strategies(df)
    if "turns" in games.columns and n:
        t = games["turns"]
        out.update(turns_mean=float(t.mean()), turns_sd=float(t.std()) if n > 1 else 0.0,
                   turns_median=float(t.median()), turns_p5=float(t.quantile(0.05)),
                   turns_p95=float(t.quantile(0.95)))
    return out


RENAME = {"n": "player-games", "win_rate": "win rate", "mean_score": "mean score", "score_sd": "score sd",
          "mean_rank": "mean rank", "fair_share": "fair share"}


def chi2_sf(x: float, df: int) -> float:
    """Upper tail probability of the chi-square distribution with ``df`` degrees of freedom
    (exact closed forms for integer ``df``)."""
    if x <= 0:
        return 1.0
    if df % 2 == 0:
        term = total = math.exp(-x / 2)
        for k in range(1, df // 2):
            term *= (x / 2) / k
            total += term
        return min(1.0, total)
    # odd df: P = erfc(sqrt(x/2)) + sqrt(2x/pi) e^{-x/2} * sum_{k=1}^{(df-1)/2} x^{k-1} / (1*3*...*(2k-1))
    total = math.erfc(math.sqrt(x / 2))
    term = math.sqrt(2 * x / math.pi) * math.exp(-x / 2)
    for k in range(1, (df - 1) // 2 + 1):
        if k > 1:
            term *= x / (2 * k - 1)
        total += term
    return min(1.0, total)


def seat_balance(df: pd.DataFrame) -> dict:
    """Is the game fair to every seat?  A chi-square test of the wins per seat (shared wins
    split) against equal shares, over all seats at once - so it does not cry wolf the way
    eyeballing several 95% intervals does.  Returns ``chi2``, ``df``, ``p`` and a ``verdict``.

    It counts wins per seat whatever the strategies; with unequal strategies the rotation of seats
    spreads them evenly, so the test still measures the seat.
    """
    seats = df.groupby("seat")["win"].sum()
    k = len(seats)
    total = float(seats.sum())
    if k < 2 or total <= 0:
        return {"chi2": math.nan, "df": max(0, k - 1), "p": math.nan, "verdict": "not enough games to judge"}
    expected = total / k
    chi2 = float(((seats - expected) ** 2 / expected).sum())
    p = chi2_sf(chi2, k - 1)
    best = int(seats.idxmax())
    if p < 0.05:
        verdict = (f"seats differ more than chance explains (chi-square {chi2:.1f}, df {k - 1}, p = {p:.3g}); "
                   f"seat {best} does best")
    else:
        verdict = (f"no evidence of a turn-order advantage (chi-square {chi2:.1f}, df {k - 1}, p = {p:.2f})")
    return {"chi2": chi2, "df": k - 1, "p": p, "verdict": verdict}


def mirror_strategies(df: pd.DataFrame) -> list[str]:
    """Strategies that fill every seat of every game they play (a mirror match): their win rate
    is 1/players by construction."""
    per_game = df.groupby(game_keys(df) + ["strategy"], observed=True).size().reset_index(name="seats")
    out = []
    for name, grp in per_game.groupby("strategy", observed=True):
        if (grp["seats"] == df["players"].iloc[0]).all():
            out.append(str(name))
    return out


def format_table(df: pd.DataFrame, digits: int = 2) -> pd.DataFrame:
    """A display copy for the terminal and the report: proportions (``win_rate``, and any float
    column named ``*_share``, ``*_rate`` or ``*_accuracy``) as percentages, each interval
    pair (``x_low``/``x_high``) merged into one "95% CI" column, numbers rounded, readable
    headers.  Title tables pass through with their floats rounded."""
    out = pd.DataFrame(index=df.index)
    pct = {"win_rate", "win_low", "win_high", "fair_share"}
    for c in df.columns:
        if c.endswith("_low") and c[:-4] + "_high" in df.columns:
            hi = c[:-4] + "_high"
            if c in pct:
                out["95% CI" if c == "win_low" else f"{c[:-4]} 95% CI"] = [
                    f"{a * 100:.1f}-{b * 100:.1f}%" for a, b in zip(df[c], df[hi])]
            else:
                out[f"{c[:-4]} 95% CI"] = ["n/a" if (a != a or b != b) else f"{a:.{digits}f} to {b:.{digits}f}"
                                           for a, b in zip(df[c], df[hi])]
        elif c.endswith("_high") and c[:-5] + "_low" in df.columns:
            continue
        elif c in pct or (c.endswith(("_share", "_rate", "_accuracy")) and pd.api.types.is_float_dtype(df[c])):
            out[RENAME.get(c, c.replace("_", " "))] = (df[c] * 100).map(lambda x: "-" if x != x else f"{x:.1f}%")
        elif pd.api.types.is_float_dtype(df[c]):
            out[RENAME.get(c, c.replace("_", " "))] = df[c].map(lambda x: "-" if x != x else f"{x:.{digits}f}")
        else:
            out[RENAME.get(c, c.replace("_", " "))] = df[c]
    return out.rename(columns={"score 95% CI": "mean score 95% CI"})
