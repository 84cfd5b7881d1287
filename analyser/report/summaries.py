"""The report's core numbers from additive sums, chunk by chunk (see :mod:`analyser.stats.streamed`).

:func:`core_sums` reduces one chunk of whole games (one row per game and seat) to small frames
that add up (:func:`analyser.stats.streamed.combine_sums`); the table functions turn the total
into the numbers :mod:`analyser.stats.analysis` and :mod:`analyser.stats.designer` compute on a
whole frame (the tests hold the two to 1e-9):

* a win rate or mean score with its interval needs, per group (strategy or seat), the sums of
  :func:`analyser.stats.analysis.cluster_sums`;
* game length, score and deficit distributions are value counts (whole numbers in every
  title), so medians, percentiles and histograms are exact;
* the seat-balance gap needs the seats' win cross-products ``sum_g w_g w_g'`` over games;
* the skill share (partial eta squared, game as block) needs, after centring each game on its
  own means, ``X'X``, ``X'y`` and ``y'y`` of the strategy indicators ``X`` and the score ``y``;
  they are kept per *block* of games (``game_index mod`` :data:`BLOCKS`) for the bootstrap
  interval, which resamples blocks.  With fewer games than blocks a block is one game, the
  bootstrap over games of :func:`analyser.stats.designer.luck_skill`.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from analyser.stats import analysis, designer, seats, streamed
from analyser.engine.core import TRACE_COLUMN
from analyser.findings import RUNAWAY_AT

#: Blocks of games for the skill-share bootstrap (``game_index mod BLOCKS``).
BLOCKS = 1000


def _codes(series: pd.Series, categories: list) -> np.ndarray:
    """Each value's position in ``categories`` (-1: none).  A categorical of exactly those
    categories, in that order, already holds them as its codes."""
    names = [str(c) for c in categories]
    dtype = series.dtype
    if isinstance(dtype, pd.CategoricalDtype) and list(dtype.categories) == names:
        return series.cat.codes.to_numpy().astype(np.int64)
    return pd.Categorical(series.astype(str), categories=names).codes.astype(np.int64)


def _group_sums(keys: np.ndarray, k: int, game: np.ndarray, win: np.ndarray, score: np.ndarray,
                rank: np.ndarray, index: pd.Index) -> pd.DataFrame:
    """Per group ``0..k-1``: the sums a clustered interval needs (see the module docstring)."""
    n_games = int(game.max()) + 1 if len(game) else 1
    pair = keys * n_games + game
    uniq, inv = np.unique(pair, return_inverse=True)
    n_c = np.bincount(inv).astype(float)
    sw = np.bincount(inv, weights=win)
    ss = np.bincount(inv, weights=score)
    owner = uniq // n_games

    def per_key(values, on=None):
        return np.bincount(owner if on is None else keys, weights=values, minlength=k)[:k]

    out = pd.DataFrame({
        "n": np.bincount(keys, minlength=k)[:k].astype(float),
        "win_sum": per_key(win, keys), "score_sum": per_key(score, keys),
        "score_sq": per_key(score * score, keys), "rank_sum": per_key(rank, keys),
        "win_c2": per_key(sw * sw), "win_cn": per_key(sw * n_c),
        "score_c2": per_key(ss * ss), "score_cn": per_key(ss * n_c), "n_c2": per_key(n_c * n_c),
        "games": per_key(np.ones(len(uniq))),
    }, index=index)
    nc_max = np.zeros(k)
    np.maximum.at(nc_max, owner, n_c)
    out["nc_max"] = nc_max
    return out[out["n"] > 0]


def _value_counts(values: np.ndarray, name: str, extra: dict | None = None) -> pd.DataFrame:
    v, c = np.unique(values[~np.isnan(values)], return_counts=True)
    idx = pd.Index(v, name=name)
    return pd.DataFrame({"count": c.astype(float), **(extra or {})}, index=idx)


def core_sums(df: pd.DataFrame, strategies: list, players: int, drama: bool = True) -> dict[str, pd.DataFrame]:
    """The additive sums of one chunk of whole games of one player count (``strategy``, ``seat``,
    ``win``, ``score``, ``rank``, ``game_index``; optionally ``run_id``, ``turns``, a score trace).
    ``strategies``: the run's strategy names in order (the same for every chunk); ``drama=False``
    leaves out the drama sums (a chunk outside a large run's sample)."""
    if not len(df):
        return {}
    game = analysis.game_codes(df)
    n_games = int(game.max()) + 1
    win = df["win"].to_numpy(dtype=float)
    score = df["score"].to_numpy(dtype=float)
    rank = df["rank"].to_numpy(dtype=float)
    strat = _codes(df["strategy"], strategies)
    seat = df["seat"].to_numpy(dtype=np.int64)
    k = len(strategies)
    names = pd.Index([str(s) for s in strategies], name="strategy")
    out = {
        "strategy": _group_sums(strat, k, game, win, score, rank, names),
        "seat": _group_sums(seat, players, game, win, score, rank, pd.Index(range(players), name="seat")),
        "strategy_seat": _group_sums(strat * players + seat, k * players, game, win, score, rank,
                                     pd.MultiIndex.from_product([[str(s) for s in strategies], range(players)],
                                                                names=["strategy", "seat"])),
    }
    out["strategy"]["lost_index_min"] = pd.Series(_first_lost(df, win, strat, k),
                                                  index=names).reindex(out["strategy"].index)
    out["games"], margin = _game_sums(game, n_games, win, score)
    # the top-two margins as value counts: the close-game rate for any margin the title declares
    out["margins"] = _value_counts(margin, "margin")
    if "turns" in df.columns:
        turns = np.full(n_games, np.nan)
        turns[game[::-1]] = df["turns"].to_numpy(dtype=float)[::-1]  # each game's first row
        out["turns"] = _value_counts(turns, "turns")
    out["scores"] = (pd.DataFrame({"strategy": pd.Categorical.from_codes(strat, [str(s) for s in strategies]),
                                   "score": score})
                     .groupby(["strategy", "score"], observed=True).size().astype(float).to_frame("count"))
    out["seat_cross"] = _seat_cross(game, seat, win, n_games, players)
    out["mirror"] = _mirror_sums(strat, game, n_games, players, names)
    if drama and TRACE_COLUMN in df.columns and df[TRACE_COLUMN].notna().any():
        out.update(_drama_sums(df))
    # skill share: within-game centred normal equations per block of games
    if k >= 2:
        out["skill"] = _skill_sums(df, game, n_games, strat, k, score, win)
    # seat compensation: counts of each seat's score difference to its best opponent
    out["seat_diff"] = seats.compensation_sums(game, seat, score, win, players, _first_index(df, game, n_games))
    return out


def _first_lost(df: pd.DataFrame, win: np.ndarray, strat: np.ndarray, k: int) -> np.ndarray:
    """Each strategy's first lost game (its ``game_index``; NaN if it lost none): the findings
    replay one (:func:`analyser.findings.never_wins`)."""
    lost = win <= 0
    first_lost = np.full(k, np.inf)
    np.minimum.at(first_lost, strat[lost], df["game_index"].to_numpy(dtype=float)[lost])
    first_lost[np.isinf(first_lost)] = np.nan
    return first_lost


def _game_sums(game: np.ndarray, n_games: int, win: np.ndarray,
               score: np.ndarray) -> tuple[pd.DataFrame, np.ndarray]:
    """Per game: tie, top score, margin.  The sums over the chunk's games (games, ties, the
    margins' sum and count, rows and the score's sums), and each game's margin of the top score
    over the second (NaN for a game of one row)."""
    order = np.lexsort((-score, game))
    g_sorted, s_sorted = game[order], score[order]
    first = np.flatnonzero(np.r_[True, g_sorted[1:] != g_sorted[:-1]])
    top = s_sorted[first]
    nxt = np.minimum(first + 1, len(s_sorted) - 1)  # the row after each game's top row
    same = (first + 1 < len(g_sorted)) & (g_sorted[nxt] == g_sorted[first])
    margin = top - np.where(same, s_sorted[nxt], np.nan)
    top_win = np.zeros(n_games)
    np.maximum.at(top_win, game, win)
    tie = top_win < 1.0 - 1e-9
    has_margin = ~np.isnan(margin)
    sums = pd.DataFrame({
        "games": [float(n_games)], "ties": [float(tie.sum())],
        "margin_sum": [float(margin[has_margin].sum())], "margin_n": [float(has_margin.sum())],
        "rows": [float(len(score))], "score_sum": [float(score.sum())], "score_sq": [float((score * score).sum())],
    }, index=pd.Index([0], name="all"))
    return sums, margin


def _seat_cross(game: np.ndarray, seat: np.ndarray, win: np.ndarray, n_games: int, players: int) -> pd.DataFrame:
    """Seat balance: cross-products of the seats' wins over games."""
    wide = np.zeros((n_games, players))
    np.add.at(wide, (game, seat), win)
    cross = wide.T @ wide
    return pd.DataFrame(cross, index=pd.Index(range(players), name="seat"),
                        columns=[f"s{j}" for j in range(players)])


def _mirror_sums(strat: np.ndarray, game: np.ndarray, n_games: int, players: int, names: pd.Index) -> pd.DataFrame:
    """Mirror: per strategy, the games it plays in, and the games where it fills every seat."""
    k = len(names)
    pair_n = np.bincount(strat * n_games + game, minlength=k * n_games).reshape(k, n_games)
    return pd.DataFrame({"games_in": (pair_n > 0).sum(axis=1).astype(float),
                         "games_full": (pair_n == players).sum(axis=1).astype(float)},
                        index=names.copy())


def _drama_sums(df: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Drama: lead changes, when the winner leads for good, and the deficits overcome (value
    counts), from the score traces; empty when no game has one."""
    d = designer.drama_per_game(df)
    if d is None or not len(d):
        return {}
    good = d["lead_for_good_at"].to_numpy(dtype=float)
    deficit = d["deficit_overcome"].to_numpy(dtype=float)
    return {
        "drama": pd.DataFrame({
            "games": [float(len(d))], "changes_sum": [float(d["lead_changes"].sum())],
            "any_change": [float((d["lead_changes"] > 0).sum())],
            "good_sum": [float(np.nansum(good))], "good_n": [float((~np.isnan(good)).sum())],
            # games whose winner leads for good early (analyser.findings.runaway_leader)
            "early_n": [float((good <= RUNAWAY_AT + 1e-12).sum())],
        }, index=pd.Index([0], name="all")),
        "deficit": _value_counts(deficit, "deficit")}


def _first_index(df, game, n_games) -> np.ndarray:
    """Each game's ``game_index`` (from its first row)."""
    first_index = np.zeros(n_games, dtype=np.int64)
    first_index[game[::-1]] = df["game_index"].to_numpy(dtype=np.int64)[::-1]
    return first_index


def _skill_sums(df, game, n_games, strat, k, score, win) -> pd.DataFrame:
    per_game_n = np.bincount(game, minlength=n_games).astype(float)
    yd = score - (np.bincount(game, weights=score, minlength=n_games) / per_game_n)[game]
    wd = win - (np.bincount(game, weights=win, minlength=n_games) / per_game_n)[game]
    X = np.zeros((len(score), k))
    X[np.arange(len(score)), strat] = 1.0
    for j in range(k):
        X[:, j] -= (np.bincount(game, weights=X[:, j], minlength=n_games) / per_game_n)[game]
    block_of_game = _first_index(df, game, n_games) % BLOCKS
    blocks, binv = np.unique(block_of_game[game], return_inverse=True)
    cols = {}
    for a in range(k):
        for b in range(a, k):
            cols[f"xx{a}_{b}"] = np.bincount(binv, weights=X[:, a] * X[:, b], minlength=len(blocks))
        cols[f"xy{a}"] = np.bincount(binv, weights=X[:, a] * yd, minlength=len(blocks))
        cols[f"xw{a}"] = np.bincount(binv, weights=X[:, a] * wd, minlength=len(blocks))
    cols["yy"] = np.bincount(binv, weights=yd * yd, minlength=len(blocks))
    cols["ww"] = np.bincount(binv, weights=wd * wd, minlength=len(blocks))
    cols["games"] = np.bincount(block_of_game, minlength=BLOCKS)[blocks].astype(float)
    return pd.DataFrame(cols, index=pd.Index(blocks, name="block"))


# --------------------------------------------------------------------------------------------
# From the sums to the tables
# --------------------------------------------------------------------------------------------

def strategy_table(sums: dict, strategies: list, binary: bool) -> pd.DataFrame:
    """As :func:`analysis.strategy_summary`: per strategy, best first."""
    s = sums["strategy"]
    s = s.reindex([str(x) for x in strategies if str(x) in s.index])
    out, methods = analysis.interval_table(s, "strategy", binary)
    out["mean_rank"] = (s["rank_sum"] / s["n"]).to_numpy()
    out["strategy"] = pd.Categorical(out["strategy"], categories=[str(x) for x in strategies])
    out = out.sort_values("win_rate", ascending=False, kind="stable").reset_index(drop=True)
    out.attrs["methods"] = methods
    return out


def seat_table(sums: dict, players: int, binary: bool) -> pd.DataFrame:
    """As :func:`analysis.seat_summary`: per seat, with the fair share."""
    s = sums["seat"].sort_index()
    out, methods = analysis.interval_table(s, "seat", binary)
    out["seat"] = out["seat"].astype(int)
    out = out.sort_values("seat").reset_index(drop=True)
    out["fair_share"] = 1.0 / players
    out.attrs["methods"] = methods
    return out


def _quantiles(counts: pd.DataFrame) -> dict:
    v = counts.index.to_numpy(dtype=float)
    c = counts["count"].to_numpy(dtype=float)
    n = c.sum()
    mean = float((v * c).sum() / n)
    sd = math.sqrt(max(0.0, float((c * (v - mean) ** 2).sum()) / (n - 1))) if n > 1 else 0.0
    return {"n": n, "mean": mean, "sd": sd, "median": streamed.quantile_from_counts(v, c, 0.5),
            "p5": streamed.quantile_from_counts(v, c, 0.05), "p95": streamed.quantile_from_counts(v, c, 0.95),
            "p90": streamed.quantile_from_counts(v, c, 0.9), "max": float(v[c > 0].max())}


def run_figures(sums: dict, runs: int) -> dict:
    """Across the run: games, tie rate (with Wilson 95%: one 0/1 per game), game length (mean,
    sd, median, 5th and 95th percentiles), score spread (sd of all final scores and the mean
    margin of the winner), the seat balance, and the mirror-match strategies."""
    g = sums["games"].iloc[0]
    n = int(g["games"])
    tie_rate = g["ties"] / n if n else math.nan
    lo, hi = analysis.wilson(tie_rate, n)
    rows = g["rows"]
    score_sd = (math.sqrt(max(0.0, (g["score_sq"] - g["score_sum"] ** 2 / rows) / (rows - 1)))
                if rows > 1 else math.nan)
    out = {"games": n, "tie_rate": float(tie_rate), "tie_low": lo, "tie_high": hi, "runs": runs,
           "score_sd": score_sd, "margin_mean": g["margin_sum"] / g["margin_n"] if g["margin_n"] else math.nan}
    out["seats"] = analysis.seat_balance_from_sums(sums["seat"].sort_index()["win_sum"], sums["seat_cross"],
                                                   float(sums["games"]["games"].sum()))
    mirror = sums["mirror"]
    out["mirror"] = [str(s) for s, r in mirror.iterrows() if r["games_in"] > 0 and r["games_in"] == r["games_full"]]
    if "turns" in sums and n and sums["turns"]["count"].sum() > 0:
        q = _quantiles(sums["turns"])
        out.update(turns_mean=q["mean"], turns_sd=q["sd"] if n > 1 else 0.0, turns_median=q["median"],
                   turns_p5=q["p5"], turns_p95=q["p95"])
    return out


def skill_share(sums: dict, bootstrap: int | None = None, seed: int = 0, on: str = "win") -> dict | None:
    """As :func:`analyser.stats.designer.luck_skill` (``on``: ``"win"`` or ``"score"``), resampling
    blocks of games (module docstring)."""
    bootstrap = designer.BOOTSTRAP if bootstrap is None else bootstrap
    if "skill" not in sums or (sums["strategy"]["n"] > 0).sum() < 2:
        return None
    sk = sums["skill"].sort_index()
    k = sum(1 for c in sk.columns if c.startswith("xy"))
    present = [a for a in range(k) if sums["strategy"]["n"].iloc[a] > 0] if len(sums["strategy"]) == k else list(range(k))
    blocks = sk.to_numpy(dtype=float)
    cols = {c: i for i, c in enumerate(sk.columns)}
    xy_name, yy_name = ("xw", "ww") if on == "win" else ("xy", "yy")

    def fit(w):
        tot = w @ blocks
        xx = np.zeros((len(present), len(present)))
        for i, a in enumerate(present):
            for j, b in enumerate(present):
                xx[i, j] = tot[cols[f"xx{min(a, b)}_{max(a, b)}"]]
        xy = np.array([tot[cols[f"{xy_name}{a}"]] for a in present])
        return designer.share_from_normal(xx, xy, float(tot[cols[yy_name]]))

    nb = len(sk)
    point, beta = fit(np.ones(nb))
    rng = np.random.default_rng(seed)
    reps = [fit(np.bincount(rng.integers(0, nb, nb), minlength=nb).astype(float)) for _ in range(bootstrap)]
    return {"skill_share": point, **designer.skill_interval(point, reps, beta), "luck_share": 1 - point,
            "games": int(sk["games"].sum()), "bootstrap": bootstrap, "on": on}


def designer_figures(sums: dict, outcome=None) -> pd.DataFrame:
    """As :func:`analyser.stats.designer.designer_table` (``outcome``: the title or an
    :class:`analyser.stats.designer.Outcome`)."""
    outcome = designer.Outcome.of(outcome)
    g = sums["games"].iloc[0]
    n = int(g["games"])
    tie = g["ties"] / n if n else math.nan
    margin = outcome.close_margin if outcome.close_applies else None
    close = math.nan
    if n and margin is not None:
        m = sums["margins"] if "margins" in sums else pd.DataFrame({"count": []})
        close = float(m["count"][m.index.to_numpy(dtype=float) <= margin + designer.MARGIN_TOL].sum()) / n
    tl, th = analysis.wilson(tie, n)
    cl, ch = analysis.wilson(close, n) if close == close else (math.nan, math.nan)
    d = {"games": n, "tie_rate": tie, "tie_low": tl, "tie_high": th, "margin": margin, "close_rate": close,
         "close_low": cl, "close_high": ch}
    dr = None
    if "drama" in sums:
        s = sums["drama"].iloc[0]
        q = _quantiles(sums["deficit"]) if "deficit" in sums and len(sums["deficit"]) else None
        dr = {"games": int(s["games"]), "lead_changes": s["changes_sum"] / s["games"],
              "any_lead_change": s["any_change"] / s["games"],
              "lead_for_good_at": s["good_sum"] / s["good_n"] if s["good_n"] else math.nan,
              "deficit_overcome": q["mean"] if q else math.nan, "deficit_p90": q["p90"] if q else math.nan,
              "deficit_max": q["max"] if q else math.nan}
    score = skill_share(sums, on="score") if outcome.score_decides else None
    win = skill_share(sums, on="win")
    table = designer.designer_rows(d, dr, win, score, outcome)
    table.attrs["skill"] = win  # the record behind the row (analyser.findings.luck_share)
    return table


def strategy_seat_table(sums: dict, strategies: list, players: int, binary: bool) -> pd.DataFrame:
    """As :func:`analysis.strategy_seat_summary` (strategies in run order, seats ascending)."""
    return analysis.strategy_seat_rows(sums["strategy_seat"], [str(x) for x in strategies], players, binary)


def grouped_win_rates(df: pd.DataFrame, keys: list[str], within: str) -> pd.DataFrame:
    """Win rates of many groups at once (a sweep's cells and slots), each with the interval
    :func:`analysis.strategy_summary` gives on the games of its ``within`` value alone: ``keys``
    and the :func:`analysis.interval_table` columns plus ``win_method``, sorted by ``keys``."""
    if not len(df):
        return pd.DataFrame(columns=keys + ["n", "win_rate", "win_low", "win_high", "mean_score", "score_low",
                                            "score_high", "score_sd", "win_method"])
    sums = analysis.cluster_sums(df, keys)
    win = df["win"].to_numpy(dtype=float)
    odd = pd.Series(~((win == 0) | (win == 1))).groupby(df[within].to_numpy(), sort=True).any()
    out = []
    for value, sub in sums.groupby(level=keys.index(within), sort=True):
        flat = sub.set_axis(pd.RangeIndex(len(sub), name="row"))
        table, methods = analysis.interval_table(flat, "row", not bool(odd[value]))
        table = table.drop(columns="row")
        for i, k in enumerate(keys):
            table.insert(i, k, sub.index.get_level_values(k).to_numpy())
        table["win_method"] = methods["win"]
        out.append(table)
    return pd.concat(out, ignore_index=True)


def fix_mirrors(strategies: pd.DataFrame, mirror: list[str]) -> None:
    """A strategy that fills every seat of its games (a mirror match) wins 1/players by
    construction: its interval is that one value (``win_low`` = ``win_high`` = ``win_rate``, also
    in summary.csv), and the tables say "fixed" in place of an interval."""
    if not mirror or "strategy" not in strategies.columns:
        return
    m = strategies["strategy"].astype(str).isin([str(x) for x in mirror]).to_numpy()
    if m.any():
        strategies.loc[m, "win_low"] = strategies.loc[m, "win_high"] = strategies.loc[m, "win_rate"]
        strategies.attrs["fixed"] = [str(x) for x in strategies.loc[m, "strategy"]]


def recorded_rules(game, df: pd.DataFrame) -> dict:
    """Each rule option the rows record: its value in the first row, as a plain Python value."""
    names = [o["name"] for o in game.Params.options() if o["name"] in df.columns and len(df)]
    return {n: (lambda v: v.item() if hasattr(v, "item") else v)(df[n].iloc[0]) for n in names}


def params_of(game, df: pd.DataFrame):
    """The rule parameters recorded in the rows (first row), or the defaults when absent."""
    try:
        return game.Params(**recorded_rules(game, df))
    except Exception:
        return game.Params()
