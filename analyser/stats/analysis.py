"""Summaries of a results frame (one row per game and seat): per strategy and per seat, the seat
balance, and the *variants* of joined runs (:func:`variants`, never pooled).  A game is
``(run_id, game_index)`` everywhere (:func:`game_keys`).  Intervals are 95%, by the rules of
docs/results.md, "How the numbers are computed"; each table names its method (:data:`METHODS`).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

# the one rounding rule and the decimals an interval calls for, in analyser.text (analysis.fixed, ...)
from analyser.text import MOST_DECIMALS, P_FLOOR, decimals, fixed, p_text, percent, percent_ci  # noqa: F401


Z95 = 1.959963984540054

#: Names of the interval methods, as the report and the terminal print them.
METHODS = {
    "wilson": "Wilson score interval",
    "cluster": "cluster-robust interval with the game as the cluster (CR1, t with games - 1 df)",
}


def wilson(p: float | np.ndarray, n: float | np.ndarray, alpha: float = 0.05):
    """Wilson score interval ``(low, high)`` for a proportion ``p`` observed over ``n`` trials:
    ``statsmodels`` ``proportion_confint(p * n, n, method="wilson")``.

    Works element-wise on arrays.  ``n == 0`` gives ``(nan, nan)``.
    """
    from statsmodels.stats.proportion import proportion_confint  # (lazy: 0.7 s to import with scipy.stats)
    p = np.asarray(p, dtype=float)
    n = np.asarray(n, dtype=float)
    safe = np.where(n > 0, n, 1.0)
    low, high = proportion_confint(p * safe, safe, alpha=alpha, method="wilson")
    low = np.where(n > 0, np.clip(np.minimum(low, p), 0, 1), np.nan)
    high = np.where(n > 0, np.clip(np.maximum(high, p), 0, 1), np.nan)
    if low.ndim == 0:
        return float(low), float(high)
    return low, high


def game_keys(df: pd.DataFrame) -> list[str]:
    """The columns that identify one game: (``run_id``, ``game_index``), so results of several
    runs joined by hand are not merged."""
    return ["run_id", "game_index"] if "run_id" in df.columns else ["game_index"]


def game_codes(df: pd.DataFrame) -> np.ndarray:
    """An integer per row naming its game (0..G-1), from :func:`game_keys`."""
    return df.groupby(game_keys(df), sort=False, observed=True).ngroup().to_numpy()


def clustered_mean(values, clusters, alpha: float = 0.05) -> tuple[float, float, float]:
    """Mean of ``values`` with a cluster-robust ``(low, high)`` interval, ``clusters`` naming the
    cluster (game) of each value.

    The estimate is the intercept of ``values ~ 1`` by least squares; its variance is the CR1
    sandwich ``G/(G-1) * sum_c (sum_{i in c} e_i)^2 / n^2`` (statsmodels ``cov_type="cluster"``),
    and the interval uses the t quantile with ``G - 1`` degrees of freedom.  Fewer than two
    clusters give ``(mean, nan, nan)``.
    """
    y = np.asarray(values, dtype=float)
    c = np.asarray(clusters)
    n = len(y)
    if n == 0:
        return math.nan, math.nan, math.nan
    mean = float(y.mean())
    _, inv = np.unique(c, return_inverse=True)
    sums = np.bincount(inv, weights=y - mean)
    g = len(sums)
    if g < 2:
        return mean, math.nan, math.nan
    var = g / (g - 1) * float(np.sum(sums ** 2)) / (n * n)
    from scipy import stats  # (lazy: scipy.stats takes a while to import)
    half = float(stats.t.ppf(1 - alpha / 2, g - 1)) * math.sqrt(var)
    return mean, mean - half, mean + half


def clustered_from_sums(total, c2, cn, nc2, n, groups) -> tuple[float, float, float]:
    """:func:`clustered_mean` from sums over the values and their clusters: ``total`` (of the
    values), ``c2``/``cn``/``nc2`` (over the clusters, of ``S_c^2``, ``S_c n_c`` and ``n_c^2``;
    ``S_c`` the cluster's sum, ``n_c`` its values), ``n`` values in ``groups`` clusters."""
    if n == 0:
        return math.nan, math.nan, math.nan
    mean = total / n
    if groups < 2:
        return mean, math.nan, math.nan
    ss = max(0.0, c2 - 2 * mean * cn + mean * mean * nc2)
    var = groups / (groups - 1) * ss / (n * n)
    from scipy import stats  # (lazy: a worker that only sums a chunk never needs scipy)
    half = float(stats.t.ppf(0.975, groups - 1)) * math.sqrt(var)
    return mean, mean - half, mean + half


def cluster_sums(df: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Per value of ``keys`` (sorted): the sums :func:`interval_table` reads - ``n`` rows, the
    ``win``/``score`` sums (``win_sum``, ``score_sum``, ``score_sq``) and over its games ``c``
    (:func:`game_codes`) the sums of ``S_c^2`` and ``S_c n_c`` of the win and the score and of
    ``n_c^2``, its ``games`` and the most rows it has in one game (``nc_max``)."""
    win = df["win"].to_numpy(dtype=float)
    score = df["score"].to_numpy(dtype=float)
    rows = pd.DataFrame({**{k: df[k].to_numpy() for k in keys}, "game": game_codes(df), "win": win,
                         "score": score, "score2": score * score})
    per = rows.groupby(keys + ["game"], sort=True, observed=True).agg(
        S=("win", "sum"), n_c=("win", "size"), T=("score", "sum"), score_sq=("score2", "sum"))
    per = per.assign(win_c2=per["S"] ** 2, win_cn=per["S"] * per["n_c"], n_c2=per["n_c"] ** 2,
                     score_c2=per["T"] ** 2, score_cn=per["T"] * per["n_c"])
    sums = per.groupby(level=keys, sort=True).agg(
        n=("n_c", "sum"), win_sum=("S", "sum"), score_sum=("T", "sum"), score_sq=("score_sq", "sum"),
        win_c2=("win_c2", "sum"), win_cn=("win_cn", "sum"), score_c2=("score_c2", "sum"),
        score_cn=("score_cn", "sum"), n_c2=("n_c2", "sum"), games=("n_c", "size"), nc_max=("n_c", "max"))
    return sums.astype(float)


def interval_table(sums: pd.DataFrame, by: str, binary: bool) -> tuple[pd.DataFrame, dict]:
    """Per row of ``sums`` (:func:`cluster_sums`; its index values become the ``by`` column):
    ``n``, ``win_rate`` and ``mean_score`` with their 95% intervals, ``score_sd``; and the methods
    used (module docstring: Wilson when every game gives each group at most one row and, by
    ``binary``, no win is shared)."""
    once = bool((sums["nc_max"] <= 1).all())
    win_method = "wilson" if once and binary else "cluster"
    rows = []
    for key, r in sums.iterrows():
        n = r["n"]
        if win_method == "wilson":
            rate = r["win_sum"] / n
            lo, hi = wilson(rate, n)
        else:
            rate, lo, hi = clustered_from_sums(r["win_sum"], r["win_c2"], r["win_cn"], r["n_c2"], n, r["games"])
            if not hi - lo > 0:  # no spread at all (never or always won): Wilson over the games
                lo, hi = wilson(rate, r["games"])
            lo, hi = max(0.0, lo), min(1.0, hi)  # a share stays within 0-100%
        m, slo, shi = clustered_from_sums(r["score_sum"], r["score_c2"], r["score_cn"], r["n_c2"], n, r["games"])
        sd = math.sqrt(max(0.0, (r["score_sq"] - n * m * m) / (n - 1))) if n > 1 else math.nan
        rows.append({by: key, "n": int(n), "win_rate": rate, "win_low": lo, "win_high": hi, "mean_score": m,
                     "score_low": slo, "score_high": shi, "score_sd": sd})
    out = pd.DataFrame(rows, columns=[by, "n", "win_rate", "win_low", "win_high", "mean_score", "score_low",
                                      "score_high", "score_sd"])
    return out, {"win": win_method, "score": "cluster"}


def _group_intervals(df: pd.DataFrame, by: str) -> tuple[pd.DataFrame, dict]:
    """:func:`interval_table` per value of ``by``, in the column's order (its categories, or
    first appearance)."""
    col = df[by]
    keys = [c for c in col.cat.categories if (col == c).any()] if hasattr(col, "cat") else pd.unique(col)
    win = df["win"].to_numpy(dtype=float)
    out, methods = interval_table(cluster_sums(df, [by]).reindex(keys), by, bool(np.all((win == 0) | (win == 1))))
    if hasattr(col, "cat"):
        out[by] = pd.Categorical(out[by], categories=col.cat.categories)
    return out, methods


def win_rate_interval(rows: pd.DataFrame) -> tuple[float, float, float]:
    """The win rate of ``rows`` (the rows of one strategy or seat, one or more per game) with its
    95% interval, by the rule every table uses (see the module docstring): ``(rate, low, high)``
    as shares 0-1, NaN for no rows.  A rate with no spread (never or always won) gets the Wilson
    interval over the games played, never a zero-width one."""
    if not len(rows):
        return math.nan, math.nan, math.nan
    out, _ = _group_intervals(rows.assign(_one=0), "_one")
    r = out.iloc[0]
    return float(r["win_rate"]), float(r["win_low"]), float(r["win_high"])


def strategy_summary(df: pd.DataFrame) -> pd.DataFrame:
    """Per strategy: ``n`` rows (player-games), ``win_rate`` with ``win_low``/``win_high``,
    ``mean_score`` with ``score_low``/``score_high`` and ``score_sd``, ``mean_rank``; sorted by
    win rate, best first.  ``out.attrs["methods"]`` names the interval method of the win rate and
    of the mean score (keys of :data:`METHODS`)."""
    out, methods = _group_intervals(df, "strategy")
    out["mean_rank"] = df.groupby("strategy", observed=True)["rank"].mean().reindex(out["strategy"]).to_numpy()
    out = out.sort_values("win_rate", ascending=False, kind="stable").reset_index(drop=True)
    out.attrs["methods"] = methods
    return out


def seat_summary(df: pd.DataFrame) -> pd.DataFrame:
    """Per seat (turn order): win rate and mean score with their 95% intervals; the turn-order
    advantage is the gap from ``fair_share = 1 / players``.  ``out.attrs["methods"]`` as in
    :func:`strategy_summary`."""
    out, methods = _group_intervals(df, "seat")
    out = out.sort_values("seat").reset_index(drop=True)
    out["fair_share"] = 1.0 / df["players"].iloc[0] if len(df) else np.nan
    out.attrs["methods"] = methods
    return out


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


def format_p(p, digits: int = 3) -> str:
    """A p-value for a table cell: ``digits`` significant digits, :data:`P_FLOOR` when it is
    below the float range (0 after underflow), ``-`` for NaN."""
    if p is None or p != p:
        return "-"
    if p < 1e-300:
        return P_FLOOR
    return f"{p:.{digits}g}"


RENAME = {"n": "player-games", "win_rate": "win rate", "mean_score": "mean score", "score_sd": "score sd",
          "mean_rank": "mean rank", "fair_share": "fair share"}

#: A gap between two seats' win rates below this (in percentage points) is called small in
#: practice, however many games made it detectable.
SMALL_GAP = 3.0


def seat_balance(df: pd.DataFrame) -> dict:
    """Is the game fair to every seat (docs/results.md, "Seat balance")?  Returns ``chi2``, ``df``
    and ``p`` (``scipy.stats.chisquare`` of the wins per seat), ``best``, ``worst``, ``gap`` (best
    minus worst seat's win rate, pp) with ``gap_low``/``gap_high`` (a paired t interval over
    games) and ``verdict`` (worded by p and by the gap against :data:`SMALL_GAP`)."""
    game = game_codes(df)
    seat = df["seat"].to_numpy(dtype=np.int64)
    wide = np.zeros((int(game.max()) + 1, int(seat.max()) + 1) if len(df) else (0, 0))
    np.add.at(wide, (game, seat), df["win"].to_numpy(dtype=float))
    cross = pd.DataFrame(wide.T @ wide, columns=[f"s{j}" for j in range(wide.shape[1])])
    return seat_balance_from_sums(df.groupby("seat")["win"].sum(), cross, len(wide))


def seat_balance_from_sums(seats: pd.Series, cross: pd.DataFrame, games: float) -> dict:
    """:func:`seat_balance` from each seat's win total (``seats``, indexed by seat), the
    cross-products of the seats' wins over the games (``cross.loc[i, f"s{j}"]``: the sum over
    games of seat ``i``'s wins times seat ``j``'s) and the number of ``games``."""
    k = len(seats)
    total = float(seats.sum())
    blank = {"chi2": math.nan, "df": max(0, k - 1), "p": math.nan, "best": None, "worst": None,
             "gap": math.nan, "gap_low": math.nan, "gap_high": math.nan}
    if k < 2 or total <= 0 or games < 2:
        return {**blank, "verdict": "not enough games to judge (needs two games or more)"}
    from scipy import stats
    chi2, p = stats.chisquare(seats.to_numpy(dtype=float))
    chi2, p = float(chi2), float(p)
    best = int(seats.idxmax())
    worst = int(seats.drop(index=best).idxmin())  # another seat, also when every seat won as often
    m = float(games)
    gap = float((seats[best] - seats[worst]) / m * 100)  # the mean over games of the paired difference
    sq = float(cross.loc[best, f"s{best}"] + cross.loc[worst, f"s{worst}"] - 2 * cross.loc[best, f"s{worst}"]) * 1e4
    sd = math.sqrt(max(0.0, (sq - m * gap * gap) / (m - 1)))
    if sd > 1e-9 * max(1.0, abs(gap)):
        lo, hi = stats.t.interval(0.95, m - 1, loc=gap, scale=sd / math.sqrt(m))
    else:
        lo = hi = gap
    return seat_verdict(chi2, p, k, best, worst, gap, float(lo), float(hi))


def clip_interval(low: float, high: float, least: float, most: float) -> tuple[float, float]:
    """An interval ``(low, high)`` cut to the values the figure can take, ``least`` to ``most``
    (a share 0-1, a difference of two shares -1 to +1 or -100 to +100 pp): a normal or t
    interval from a few games reaches past them.  NaN stays NaN."""
    return tuple(x if x != x else float(min(most, max(least, x))) for x in (low, high))


def seat_verdict(chi2: float, p: float, k: int, best: int, worst: int, gap: float, lo: float, hi: float) -> dict:
    """The :func:`seat_balance` record and its wording, from the chi-square test over ``k``
    seats and the best-worst gap (percentage points of win rate) with its 95% interval ``lo``-``hi``.
    The interval is clipped to what a difference of two win rates can be, -100 to +100 pp
    (:func:`clip_interval`: a t interval from a few games reaches past it)."""
    lo, hi = clip_interval(lo, hi, -100.0, 100.0)
    d = decimals((hi - lo) / 2)
    effect = (f"seat {best} wins {fixed(gap, d)} pp more often than seat {worst} "
              f"(95% CI {fixed(lo, d)} to {fixed(hi, d)} pp)")
    test = f"chi-square {fixed(chi2, 1)}, df {k - 1}, {p_text(p)}"
    if p >= 0.05:
        if hi < SMALL_GAP:
            verdict = f"no seat advantage worth noting: {effect}; {test}"
        else:
            verdict = (f"no clear evidence of a seat advantage, but a gap of up to {fixed(hi, d)} pp is not "
                       f"ruled out: {effect}; {test}")
    else:
        strength = "strong evidence" if p < 0.001 else ("some evidence" if p < 0.01 else "weak evidence")
        size = "small in practice" if gap < SMALL_GAP else "large enough to matter"
        verdict = f"{strength} of a seat advantage, {size}: {effect}; {test}"
    return {"chi2": chi2, "df": k - 1, "p": p, "best": best, "worst": worst, "gap": gap, "gap_low": float(lo),
            "gap_high": float(hi), "verdict": verdict}


def mirror_strategies(df: pd.DataFrame) -> list[str]:
    """Strategies that fill every seat of every game they play (a mirror match): their win rate
    is 1/players by construction."""
    seats = df.groupby(game_keys(df) + ["strategy"], observed=True).size().reset_index(name="seats")
    full = (seats["seats"] == df["players"].iloc[0]).groupby(seats["strategy"], observed=True).all()
    return [str(name) for name, yes in full.items() if yes]


def display_value(value) -> str:
    """A rule value as the user types it: ``on``/``off`` for booleans, ``(built-in)`` for an
    empty file option, whole floats without ``.0`` noise kept as given."""
    if isinstance(value, (bool, np.bool_)):
        return "on" if value else "off"
    if value is None or (isinstance(value, float) and math.isnan(value)) or value == "":
        return "(built-in)"
    return str(value)


def figure_unit(figure: str, score_unit: str = "points", length_unit: str = "turns") -> tuple[str, str, float]:
    """``(group, unit, scale)`` of a compared figure (a row of ``analyser compare``'s table, named
    as there: ``"win rate: greedy"``, ``"mean score: x"``, ``"game length"``...): rates are shown
    in % and their differences in percentage points (scale 100); the other figures in their own
    units (scale 1)."""
    if "rate" in figure:
        return "rates", "percentage points", 100.0
    if figure.startswith("mean score"):
        return "mean scores", score_unit, 1.0
    if figure == "game length":
        return "game length", length_unit, 1.0
    if figure == "lead changes per game":
        return "lead changes", "lead changes per game", 1.0
    return figure, "", 1.0


def variants(df: pd.DataFrame, rule_names) -> tuple[pd.Series, list[dict]]:
    """Split joined results into variants: runs that share the player count, every rule option
    in ``rule_names`` and the lineup (the strategies of a game, with their seat counts).

    Returns ``(label per row, [{"label", "runs", "what"}...])`` in order of first appearance; a
    single variant is labelled ``"all"``.  ``what`` maps each setting that differs between
    variants to this variant's value, as the user types it.
    """
    df = df.reset_index(drop=True)
    run = df["run_id"].astype(str) if "run_id" in df.columns else pd.Series("run", index=df.index)
    first_game = df.groupby(run.to_numpy(), sort=False)["game_index"].transform("min")
    mask = (df["game_index"] == first_game).to_numpy()
    first = df[mask]
    settings: dict[str, dict[str, str]] = {}
    for rid, grp in first.groupby(run[mask].to_numpy(), sort=False):
        counts = grp["strategy"].astype(str).value_counts()
        lineup = ", ".join(f"{s} x{c}" if c > 1 else s for s, c in sorted(counts.items()))
        rec = {"players": str(int(grp["players"].iloc[0])) if "players" in grp else "?", "lineup": lineup}
        for name in rule_names:
            if name in grp.columns:
                rec[name] = display_value(grp[name].iloc[0])
        settings[rid] = rec
    keys = {rid: tuple(sorted(rec.items())) for rid, rec in settings.items()}
    distinct = list(dict.fromkeys(keys.values()))
    if len(distinct) <= 1:
        return pd.Series("all", index=df.index), [{"label": "all", "runs": list(settings), "what": {}}]
    names = list(next(iter(settings.values())))
    differ = [n for n in names if len({settings[r].get(n) for r in settings}) > 1]
    out = []
    for key in distinct:
        rec = dict(key)
        what = {n: rec.get(n, "") for n in differ}
        label = "; ".join(f"{n}={v}" if n not in ("lineup",) else v for n, v in what.items())
        out.append({"label": label, "runs": [r for r in settings if keys[r] == key], "what": what})
    return run.map({r: v["label"] for v in out for r in v["runs"]}), out


def format_table(df: pd.DataFrame, digits: int = 2) -> pd.DataFrame:
    """A display copy for the terminal and the report: proportions (``win_rate``, and any float
    column named ``*_share``, ``*_rate`` or ``*_accuracy``) as percentages, each interval
    pair (``x_low``/``x_high``) merged into one "95% CI" column, p-values (``p``, ``p_*``,
    ``*_p``) by :func:`format_p`, readable headers.  An interval and the figure it belongs to
    (``x``, ``x_rate``, ``x_share`` or ``mean_x``; ``fair_share`` goes with ``win``) get the
    decimals its half-width calls for (:func:`decimals`, the median row of the column);
    other floats get ``digits``, and percentages without an interval one decimal.  Title
    tables pass through with their floats rounded; a table may name more share columns to show
    as percentages in ``df.attrs["percent"]``, and fix a column's decimals (with its interval's)
    whatever its intervals in ``df.attrs["places"]`` (``{column: decimals}``), so that it reads
    alike from run to run.  Every figure is rounded by :func:`fixed`."""
    out = pd.DataFrame(index=df.index)
    cols = list(df.columns)
    pct = {"win_rate", "win_low", "win_high", "fair_share"} | set(df.attrs.get("percent", ()))

    def is_float(c):
        return pd.api.types.is_float_dtype(df[c])

    def is_pct(c):
        return c in pct or (c.endswith(("_share", "_rate", "_accuracy")) and is_float(c))

    places: dict[str, int] = {}
    pct_pairs = set()
    for c in cols:
        if c.endswith("_low") and c[:-4] + "_high" in cols:
            base = c[:-4]
            points = [x for x in (base, base + "_rate", base + "_share", "mean_" + base) if x in cols]
            scaled = c in pct or any(is_pct(x) for x in points)
            if scaled:
                pct_pairs.add(c)
            half = (df[base + "_high"].to_numpy(dtype=float) - df[c].to_numpy(dtype=float)) / 2
            d = decimals(half * (100 if scaled else 1), default=1 if scaled else digits)
            places[c] = d
            for x in points:
                places.setdefault(x, d)
    if "win_low" in places and "fair_share" in cols:
        places.setdefault("fair_share", places["win_low"])
    for c, d in dict(df.attrs.get("places", {})).items():
        for x in (c, c + "_low"):
            if x in cols:
                places[x] = int(d)
    for c in cols:
        name = RENAME.get(c, c.replace("_", " "))
        if c.endswith("_low") and c[:-4] + "_high" in cols:
            hi = c[:-4] + "_high"
            label = RENAME.get(c[:-4], c[:-4].replace("_", " "))
            d = places[c]
            if c in pct_pairs:
                fills = set(df.attrs.get("fixed", ())) if c == "win_low" and "strategy" in df.columns else set()
                names = df["strategy"].astype(str) if fills else [""] * len(df)
                out["95% CI" if c == "win_low" else f"{label} 95% CI"] = [
                    "fixed: fills every seat" if name in fills else
                    "n/a" if (a != a or b != b) else f"{fixed(a * 100, d)}-{fixed(b * 100, d)}%"
                    for a, b, name in zip(df[c], df[hi], names)]
            else:
                out[f"{label} 95% CI"] = ["n/a" if (a != a or b != b) else f"{fixed(a, d)} to {fixed(b, d)}"
                                           for a, b in zip(df[c], df[hi])]
        elif c.endswith("_high") and c[:-5] + "_low" in cols:
            continue
        elif (c == "p" or c.startswith("p_") or c.endswith("_p")) and is_float(c):
            out[name] = df[c].map(format_p)
        elif is_pct(c):
            d = places.get(c, 1)
            out[name] = (df[c] * 100).map(lambda x, d=d: "-" if x != x else fixed(x, d) + "%")
        elif is_float(c):
            d = places.get(c, digits)
            out[name] = df[c].map(lambda x, d=d: "-" if x != x else fixed(x, d))
        else:
            out[name] = df[c]
    return out.rename(columns={"score 95% CI": "mean score 95% CI"})


def strategy_seat_summary(df: pd.DataFrame) -> pd.DataFrame:
    """Each strategy's win rate in each seat it played (:func:`strategy_seat_rows`)."""
    s = df["strategy"]
    names = [str(c) for c in (s.cat.categories if hasattr(s, "cat") else pd.unique(s.astype(str)))]
    win = df["win"].to_numpy(dtype=float)
    sums = cluster_sums(df.assign(strategy=s.astype(str)), ["strategy", "seat"])
    return strategy_seat_rows(sums, names, int(df["players"].iloc[0]), bool(np.all((win == 0) | (win == 1))))


def strategy_seat_rows(sums: pd.DataFrame, names: list[str], players: int, binary: bool) -> pd.DataFrame:
    """Each strategy's win rate in each seat it played (``n`` rows, ``win_rate``, ``win_low``,
    ``win_high``, ``mean_score``), strategies in the order of ``names`` and seats ascending, from
    ``sums`` indexed by (strategy, seat) (:func:`cluster_sums`); the interval by
    :func:`interval_table` (one row per game in each cell: Wilson unless wins are shared).
    ``out.attrs["methods"]`` as in :func:`strategy_summary`."""
    s = sums[sums["n"] > 0]
    s = s.reindex([(a, b) for a in names for b in range(players) if (a, b) in s.index])
    out, methods = interval_table(s.set_axis(pd.RangeIndex(len(s), name="row")), "row", binary)
    out.insert(0, "strategy", pd.Categorical([a for a, _ in s.index], categories=names))
    out.insert(1, "seat", [int(b) for _, b in s.index])
    out = out.drop(columns=["row", "score_low", "score_high", "score_sd"])
    out.attrs["methods"] = methods
    return out
