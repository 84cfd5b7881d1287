"""Designer metrics for every title: drama, luck against skill, decisiveness (README, "Designer
metrics").  All read a results frame (one row per game and seat); none needs extra games.

* **Drama** reads the ``score_trace`` column (:data:`analyser.core.TRACE_COLUMN`) that a title
  records when it lists it in ``metric_columns``: per seat, its score after every step of the
  game (a round, a turn or a trick, as the title's ``trace_unit`` says), as a text of
  space-separated numbers.  A title that does not record it gets "not recorded", nothing else.

  - *lead changes*: how many times the sole leader changes (a tie for the lead keeps the last
    sole leader; taking the first sole lead is not a change);
  - *lead for good at*: the fraction of the game's steps played before the eventual winner
    takes the sole lead and keeps it to the end (0 = led throughout, 1 = only at the end or
    only by tie-break);
  - *largest deficit overcome*: the most points the eventual winner trailed the leader by, at
    any step.
  Games with a shared win have no single winner and are left out of the last two.

* **Luck against skill**: the *skill share* is the partial eta squared of the strategy in a
  two-way fixed-effects analysis of variance of the score with the game (its deal) as the
  block (Cohen, J. (1973), "Eta-squared and partial eta-squared in fixed factor ANOVA designs",
  Educational and Psychological Measurement 33, 107-112): of the score differences between
  seats of the same game, the share the strategies explain.  The rest - the *luck share* -
  is what the deal, the turn order and the interplay of the seats explain.  Its 95% interval
  is a percentile bootstrap over games.  It needs two strategies or more.

* **Decisiveness**: the tie rate (games whose win is shared) and the *close-game rate*: games
  whose top two scores differ by at most 1 point (ties and tie-breaks included).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from analyser.analysis import game_keys, per_game, wilson
from analyser.core import TRACE_COLUMN

#: Bootstrap resamples for the luck-skill interval.
BOOTSTRAP = 200


# --------------------------------------------------------------------------------------------
# Decisiveness
# --------------------------------------------------------------------------------------------

def decisiveness(df: pd.DataFrame, margin: float = 1.0) -> dict:
    """``tie_rate`` and ``close_rate`` (top-two margin <= ``margin``) with Wilson 95% intervals,
    and ``games``."""
    g = per_game(df)
    n = len(g)
    tie = float(g["tie"].mean()) if n else math.nan
    close = float((g["margin"] <= margin).mean()) if n else math.nan
    tl, th = wilson(tie, n)
    cl, ch = wilson(close, n)
    return {"games": n, "tie_rate": tie, "tie_low": tl, "tie_high": th,
            "close_rate": close, "close_low": cl, "close_high": ch}


# --------------------------------------------------------------------------------------------
# Drama
# --------------------------------------------------------------------------------------------

def has_trace(df: pd.DataFrame) -> bool:
    return TRACE_COLUMN in df.columns and df[TRACE_COLUMN].notna().any()


def game_drama(trace: np.ndarray, winners: list[int]) -> tuple[int, float, float]:
    """Drama of one game from its trace (steps x seats array of scores after each step) and the
    seats that won: ``(lead_changes, lead_for_good_at, deficit_overcome)`` (the last two NaN for
    a shared win or an empty trace)."""
    steps = trace.shape[0]
    if steps == 0:
        return 0, math.nan, math.nan
    top = trace.max(axis=1)
    at_top = trace == top[:, None]
    sole = at_top.sum(axis=1) == 1
    leader = np.where(sole, trace.argmax(axis=1), -1)
    seq = leader[leader >= 0]
    changes = int(np.count_nonzero(seq[1:] != seq[:-1])) if len(seq) > 1 else 0
    if len(winners) != 1:
        return changes, math.nan, math.nan
    w = winners[0]
    leads = leader == w
    if not leads[-1]:
        good = 1.0
    else:
        not_leading = np.flatnonzero(~leads)
        first = int(not_leading[-1]) + 1 if len(not_leading) else 0
        good = first / steps
    others = np.delete(trace, w, axis=1)
    deficit = float(max(0.0, (others.max(axis=1) - trace[:, w]).max())) if others.shape[1] else 0.0
    return changes, good, deficit


def drama_per_game(df: pd.DataFrame) -> pd.DataFrame | None:
    """One row per game: keys, ``lead_changes``, ``lead_for_good_at``, ``deficit_overcome``
    (what :func:`game_drama` gives for each game, computed for all games at once); None when the
    title records no score trace."""
    if not has_trace(df):
        return None
    keys = game_keys(df)
    d = df.sort_values(keys + ["seat"], kind="stable")
    players = int(d["players"].iloc[0]) if "players" in d.columns else int(d["seat"].max()) + 1
    out = d[keys].iloc[::players].reset_index(drop=True)
    changes, good, deficit = drama_arrays(d[TRACE_COLUMN].astype(str).to_numpy(), d["win"].to_numpy(dtype=float),
                                          players)
    return out.assign(lead_changes=changes, lead_for_good_at=good, deficit_overcome=deficit)


def drama_arrays(traces: np.ndarray, wins: np.ndarray, players: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`game_drama` of many games at once.  ``traces``/``wins``: one entry per row, the
    rows of a game together in seat order (``players`` rows per game).  Returns per game
    ``(lead_changes, lead_for_good_at, deficit_overcome)`` as arrays (the last two NaN for a
    shared win or an empty trace).  A game's trace is as long as its shortest seat's."""
    n_games = len(traces) // players
    import pyarrow as pa
    import pyarrow.compute as pc

    lists = pc.utf8_split_whitespace(pc.utf8_trim_whitespace(pa.array(traces, type=pa.large_string())))
    tokens = lists.flatten()
    keep = pc.not_equal(tokens, "")
    counts = np.asarray(pc.list_value_length(lists).to_numpy(zero_copy_only=False), dtype=np.int64)
    counts -= np.add.reduceat(np.r_[~keep.to_numpy(zero_copy_only=False), False].astype(np.int64),
                              np.r_[0, np.cumsum(counts)[:-1]]) if len(counts) else 0
    flat = pc.cast(pc.filter(tokens, keep), pa.float64()).to_numpy(zero_copy_only=False)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    per_game = counts.reshape(n_games, players)
    steps = per_game.min(axis=1)
    width = int(steps.max()) if n_games else 0
    trace = np.full((n_games, max(width, 1), players), -np.inf)
    step_idx = np.arange(max(width, 1))
    valid = step_idx[None, :] < steps[:, None]                                  # games x steps
    for k in range(players):
        row_start = starts.reshape(n_games, players)[:, k]
        pos = row_start[:, None] + step_idx[None, :]
        trace[:, :, k] = np.where(valid, flat[np.minimum(pos, max(len(flat) - 1, 0))] if len(flat) else 0.0, -np.inf)
    top = trace.max(axis=2)
    sole = (trace == top[:, :, None]).sum(axis=2) == 1
    leader = np.where(sole & valid, trace.argmax(axis=2), -1)
    # lead changes: consecutive sole leaders (ties skipped) that differ
    g_of, s_of = np.nonzero(leader >= 0)
    seq = leader[g_of, s_of]
    same_game = g_of[1:] == g_of[:-1]
    changes = np.bincount(g_of[1:][same_game & (seq[1:] != seq[:-1])], minlength=n_games).astype(np.int64)
    win_mat = wins.reshape(n_games, players) > 0
    single = (win_mat.sum(axis=1) == 1) & (steps > 0)
    w = win_mat.argmax(axis=1)
    leads = (leader == w[:, None]) & valid
    last = np.maximum(steps - 1, 0)
    leads_last = leads[np.arange(n_games), last]
    not_leading = valid & ~leads
    first = (np.where(not_leading, step_idx[None, :] + 1, 0)).max(axis=1)     # one past the last step not led
    good = np.where(leads_last, first / np.maximum(steps, 1), 1.0)
    own = np.take_along_axis(trace, w[:, None, None].repeat(trace.shape[1], axis=1), axis=2)[:, :, 0]
    others = trace.copy()
    others[np.arange(n_games), :, w] = -np.inf
    if players > 1:
        with np.errstate(invalid="ignore"):  # steps past a game's end hold -inf on both sides
            gap = np.where(valid, others.max(axis=2) - own, -np.inf)
        deficit = np.maximum(0.0, gap.max(axis=1))
    else:
        deficit = np.zeros(n_games)
    good = np.where(single, good, np.nan)
    deficit = np.where(single, deficit, np.nan)
    return changes, good.astype(float), deficit.astype(float)


def drama_summary(df: pd.DataFrame) -> dict | None:
    """Means across games (and the share of games with a lead change, the 90th percentile of the
    deficit overcome); None when no trace is recorded."""
    g = drama_per_game(df)
    if g is None or not len(g):
        return None
    return {"games": len(g),
            "lead_changes": float(g["lead_changes"].mean()),
            "any_lead_change": float((g["lead_changes"] > 0).mean()),
            "lead_for_good_at": float(g["lead_for_good_at"].mean()),
            "deficit_overcome": float(g["deficit_overcome"].mean()),
            "deficit_p90": float(g["deficit_overcome"].quantile(0.9)) if g["deficit_overcome"].notna().any() else math.nan,
            "deficit_max": float(g["deficit_overcome"].max())}


# --------------------------------------------------------------------------------------------
# Luck against skill
# --------------------------------------------------------------------------------------------

def _skill_share(y, game, strat, n_games, n_strats, weights) -> float:
    """Partial eta squared of the strategy with the game as block, with per-game weights."""
    w_row = weights[game]
    wsum_g = np.bincount(game, weights=w_row, minlength=n_games)
    ok = wsum_g > 0
    mean_g = np.zeros(n_games)
    mean_g[ok] = np.bincount(game, weights=w_row * y, minlength=n_games)[ok] / wsum_g[ok]
    yw = y - mean_g[game]
    X = np.zeros((len(y), n_strats))
    X[np.arange(len(y)), strat] = 1.0
    for k in range(n_strats):
        m = np.zeros(n_games)
        m[ok] = np.bincount(game, weights=w_row * X[:, k], minlength=n_games)[ok] / wsum_g[ok]
        X[:, k] -= m[game]
    sw = np.sqrt(w_row)
    beta, *_ = np.linalg.lstsq(X * sw[:, None], yw * sw, rcond=None)
    fitted = X @ beta
    ss_within = float(np.sum(w_row * yw ** 2))
    ss_strat = float(np.sum(w_row * fitted ** 2))
    return ss_strat / ss_within if ss_within > 0 else math.nan


def luck_skill(df: pd.DataFrame, bootstrap: int = BOOTSTRAP, seed: int = 0) -> dict | None:
    """``skill_share`` (partial eta squared of the strategy, game as block) with a percentile
    bootstrap 95% interval over games (``skill_low``/``skill_high``) and ``luck_share`` =
    1 - skill share.  None with fewer than two strategies."""
    strategies = df["strategy"].astype(str)
    if strategies.nunique() < 2:
        return None
    keys = game_keys(df)
    game = df.groupby(keys, sort=False, observed=True).ngroup().to_numpy()
    strat = pd.factorize(strategies)[0]
    y = df["score"].to_numpy(dtype=float)
    n_games, n_strats = int(game.max()) + 1, int(strat.max()) + 1
    point = _skill_share(y, game, strat, n_games, n_strats, np.ones(n_games))
    rng = np.random.default_rng(seed)
    reps = []
    for _ in range(bootstrap):
        w = np.bincount(rng.integers(0, n_games, n_games), minlength=n_games).astype(float)
        reps.append(_skill_share(y, game, strat, n_games, n_strats, w))
    finite = [r for r in reps if math.isfinite(r)]  # none when every game is a tie: no interval, no warning
    lo, hi = np.percentile(finite, [2.5, 97.5]) if finite else (math.nan, math.nan)
    return {"skill_share": point, "skill_low": float(lo), "skill_high": float(hi), "luck_share": 1 - point,
            "games": n_games, "bootstrap": bootstrap}


# --------------------------------------------------------------------------------------------
# One table for reports
# --------------------------------------------------------------------------------------------

def _one(unit: str) -> str:
    """The singular of a score unit: ``points`` -> ``point``, ``turns afloat`` -> ``turn afloat``."""
    first, _, rest = unit.partition(" ")
    first = first[:-1] if first.endswith("s") and not first.endswith("ss") else first
    return f"{first} {rest}".strip()


def designer_table(df: pd.DataFrame, trace_unit: str = "steps", score_unit: str = "points") -> pd.DataFrame:
    """The designer figures of one run as a two-column table (figure, value) for reports.

    ``score_unit`` is the title's ``Game.score_unit`` (points, turns afloat, ...), used by the
    close-game and deficit figures, which measure score differences."""
    return designer_rows(decisiveness(df), drama_summary(df), luck_skill(df), trace_unit, score_unit)


def _finite(*values) -> bool:
    return all(isinstance(v, (int, float)) and math.isfinite(v) for v in values)


def _percent(value: float, low: float, high: float, none: str) -> str:
    """``12.3% (95% CI 10.1-14.6%)``, with the decimals the interval calls for
    (:func:`analyser.analysis.decimals`); ``none`` (what the data lacks) when the value is not a
    number, ``(95% CI n/a)`` when only the interval is not: never "nan"."""
    from analyser.analysis import percent, percent_ci
    if not _finite(value):
        return none
    return f"{percent(value, low, high)} (95% CI {percent_ci(low, high)})"


def designer_rows(d: dict, dr: dict | None, ls: dict | None, trace_unit: str = "steps",
                  score_unit: str = "points") -> pd.DataFrame:
    """The (figure, value) table of :func:`designer_table` from its three parts: the
    :func:`decisiveness`, :func:`drama_summary` and :func:`luck_skill` records.  A figure the
    data cannot give (no game with a single winner, no score difference within a game) says
    why instead of showing "nan"."""
    from analyser.analysis import percent

    rows = []
    no_games = "n/a (no games)"
    rows.append(("tie rate (shared wins)", _percent(d["tie_rate"], d["tie_low"], d["tie_high"], no_games)))
    rows.append((f"close games (top two within 1 {_one(score_unit)})",
                 _percent(d["close_rate"], d["close_low"], d["close_high"], no_games)))
    if dr is None:
        rows.append(("drama", "not recorded by this title (no score trace)"))
    else:
        single = "n/a (no game has a single winner: every game was a shared win)"
        rows.append(("lead changes per game", f"{dr['lead_changes']:.2f} (games with one or more: "
                                              f"{100 * dr['any_lead_change']:.0f}%)" if _finite(dr["lead_changes"])
                     else no_games))
        rows.append(("winner takes the lead for good at", f"{100 * dr['lead_for_good_at']:.0f}% of the game's "
                                                          f"{trace_unit} (mean)" if _finite(dr["lead_for_good_at"])
                     else single))
        rows.append(("largest deficit overcome", f"{dr['deficit_overcome']:.2f} {score_unit} on average; 90th "
                                                 f"percentile {dr['deficit_p90']:.1f}, most {dr['deficit_max']:.1f}"
                     if _finite(dr["deficit_overcome"], dr["deficit_p90"], dr["deficit_max"]) else single))
    if ls is None:
        rows.append(("skill share", "n/a (needs two strategies or more)"))
    elif not _finite(ls["skill_share"]):
        rows.append(("skill share (partial eta squared)", "n/a (no game decided by score: every seat of a "
                                                          "game scored the same)"))
    else:
        rows.append(("skill share (partial eta squared)",
                     _percent(ls["skill_share"], ls["skill_low"], ls["skill_high"], "n/a")
                     + f"; luck share {percent(ls['luck_share'], ls['skill_low'], ls['skill_high'])}"))
    return pd.DataFrame(rows, columns=["figure", "value"])
