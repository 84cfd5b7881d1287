"""The meta-game of a tournament: is there one strategy to play, or a rock-paper-scissors cycle?
docs/commands/tournament.md ("The meta-game") is the contract.  :func:`analyse` estimates the
payoffs from the tables played, finds the equilibrium (:mod:`analyser.stats.nash`: the maximum-
entropy Nash of the head-to-head game for two seats, replicator dynamics for more), its Nash
averages and the cycles, with a percentile bootstrap over game numbers (every table's game ``i``
shares its seed); :func:`findings` turns the answer into sentences.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from analyser.stats import metagame_copies as copies
from analyser.stats.analysis import format_table
from analyser.stats.nash import (  # noqa: F401  (the meta-game's solvers, by their names here too)
    FLOOR, HORIZON, SUPPORT, TOL, cycles, max_entropy_nash, nash_average,
    regret, replicator, table_payoffs)
from analyser.text import fixed, phrase, plural, terminal_table

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
# From a tournament's results
# --------------------------------------------------------------------------------------------

@dataclass
class Observations:
    """A tournament's games reduced to what the meta-game needs, so that a bootstrap resample is a
    weighted sum: ``members`` (T, n), the strategies at each table; per player-game row its game
    number's position, its place ``table * n + k`` in ``members`` and its win share; per ordered
    pair of seats in a game the two strategies and ``pair_ahead`` (1 if ``a`` finishes ahead, 1/2
    on a shared rank, else 0)."""

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
    """``(shares (T, n), ahead (m, m))`` from the games, each game number weighted by ``counts``
    (None: once each): each seated strategy's mean win share at its table (NaN: no game), and the
    share of the games with both at the table that ``i`` finishes ahead of ``j`` (NaN: never met)."""
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
    """Two seats: ``(M, filled)``, ``M[i, j]`` ``i``'s win share against ``j`` minus 1/2 (m, m;
    antisymmetric); a pair that never met is filled from the Bradley-Terry ``ratings``
    (``1 / (1 + exp(r_j - r_i)) - 1/2``; 0 without them), marked in ``filled``."""
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


@dataclass
class MetaGame:
    """The meta-game of a tournament (see the module docstring).  ``table``: one row per strategy,
    sorted by Nash average - ``weight`` (equilibrium weight), ``nash_average_pp`` (pp of win share
    above an even share against the equilibrium mix), each with ``_low``/``_high``, and
    ``field_share`` (against a uniform mix of the others); ``game``: the row's win share against
    (two seats) or at tables with (more) the column; ``filled``: pairs whose head-to-head came
    from the ratings; ``ahead``/``ahead_low``/``ahead_high``: finishing-ahead shares (m, m);
    ``regret`` and ``value`` (the mix's payoff against itself, 0 for two seats) in pp;
    ``classes``/``same``: strategies that cannot be told apart
    (:func:`analyser.stats.metagame_copies.indistinguishable`) and the pairs behind them;
    ``games``: games per table, the bootstrap's unit (below :data:`CLEAR_MIN_GAMES` no finding is
    clear)."""

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
    resamples = [estimate(obs, np.bincount(rng.integers(0, obs.games, obs.games), minlength=obs.games))
                 for _ in range(bootstrap)]
    aheads = [np.where(np.isnan(ba), ahead, ba) for _, ba in resamples]
    paired = copies.exact_copies(frame, names)
    group, same = copies.indistinguishable(ahead, np.array(aheads).reshape(-1, m, m), paired)
    p, nav, eps, mat, filled = _solve(obs, shares, ahead, ratings, group=group)
    solved = [_solve(obs, bs, ba, ratings, point_shares=shares, group=group) for bs, ba in resamples]
    ws, navs = [x[0] for x in solved], [x[1] for x in solved]
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
                    eps * 100, float(p @ nav) * 100 if n > 2 else 0.0, bootstrap, obs.games,
                    classes=[[names[i] for i in np.flatnonzero(group == c)] for c in range(int(group.max()) + 1)
                             if (group == c).sum() > 1], same=[dict(d, a=names[d["i"]], b=names[d["j"]]) for d in same])
    meta.findings = findings(meta)
    return meta


# --------------------------------------------------------------------------------------------
# Findings
# --------------------------------------------------------------------------------------------

def _few(meta: MetaGame) -> str:
    """Why a finding is not clear when the tournament is too short: '' when it is long enough."""
    if meta.games >= CLEAR_MIN_GAMES:
        return ""
    return (f"from only {plural(meta.games, 'game')} per table (a clear finding needs "
            f"{CLEAR_MIN_GAMES} or more)")


def findings(meta: MetaGame) -> list[dict]:
    """The meta-game's findings (topics "dominant", "cycle", "unused", "indistinguishable"), one
    dict each: ``topic``, ``sentence``, ``strength``, ``evidence`` (``{"figure", "interval"}``) and
    ``threshold``.  Words: ``sentences/metagame.j2``, reading the records of :func:`dominant_record`,
    :func:`cycle_record`, :func:`unused_records` and :func:`analyser.stats.metagame_copies.records`."""
    common = {"boot": meta.bootstrap, "min_games": CLEAR_MIN_GAMES, "few": _few(meta)}
    records = [("dominant", dominant_record(meta))] + ([("cycle", cycle_record(meta))]) + \
        [("unused", r) for r in unused_records(meta)] + [("indistinguishable", r) for r in copies.records(meta)]
    return [_said(topic, {**common, **r}) for topic, r in records]


def _said(topic: str, r: dict) -> dict:
    """A finding dict from a record: its sentence, evidence and threshold by the macros of
    ``metagame.j2`` named after the topic."""
    return {"topic": topic, "strength": r["strength"], "sentence": phrase("metagame.j2", topic, r),
            "evidence": {"figure": phrase("metagame.j2", topic + "_figure", r),
                         "interval": phrase("metagame.j2", topic + "_interval", r)},
            "threshold": phrase("metagame.j2", topic + "_threshold", r)}


def dominant_record(meta: MetaGame) -> dict:
    """The strategy (or class of strategies that cannot be told apart, ``group``) with the most
    equilibrium weight: ``kind`` ``alike`` (every strategy is one class), ``pure`` (its weight is at
    least :data:`DOMINANT`; ``steady`` when the interval's lower end is too) or ``mixed`` (``used``:
    the strategies of the mix and their weights)."""
    t = meta.table
    top = t.sort_values("weight", ascending=False, kind="stable").iloc[0]
    group = next((c for c in meta.classes if top["strategy"] in c), [top["strategy"]])
    k = len(group)
    r = {"strategy": top["strategy"], "group": list(group), "weight": top["weight"], "low": top["weight_low"],
         "high": top["weight_high"], "dominant": DOMINANT, "steady": top["weight_low"] * k >= DOMINANT}
    if k > 1 and k == len(t):
        return {**r, "kind": "alike", "strength": "none found"}
    if top["weight"] * k >= DOMINANT:
        return {**r, "kind": "pure", "strength": "clear" if r["steady"] and not _few(meta) else "possible"}
    used = t[t["weight"] >= SUPPORT].sort_values("weight", ascending=False, kind="stable")
    return {**r, "kind": "mixed", "strength": "none found", "used": list(zip(used["strategy"], used["weight"]))}


def cycle_record(meta: MetaGame) -> dict:
    """The first rock-paper-scissors cycle: its ``names`` and its three ``links`` (``(winner,
    loser, share ahead, low, high)``), whether every link is ``clear`` and how many ``more``
    cycles there are; ``links`` empty when there is none."""
    if not meta.cycles:
        return {"strength": "none found", "links": [], "players": meta.players}
    c = meta.cycles[0]
    idx = c["cycle"]
    links = [(meta.strategies[x], meta.strategies[y], meta.ahead[x, y], meta.ahead_low[x, y], meta.ahead_high[x, y])
             for x, y in ((idx[0], idx[1]), (idx[1], idx[2]), (idx[2], idx[0]))]
    return {"strength": "clear" if c["clear"] and not _few(meta) else "possible", "links": links,
            "names": list(c["names"]), "clear": c["clear"], "more": len(meta.cycles) - 1, "players": meta.players}


def unused_records(meta: MetaGame) -> list[dict]:
    """The strategies outside the equilibrium's support, as up to two records: those whose
    interval's upper end is below :data:`SUPPORT` too (``steady``) and the others; each with its
    ``rows`` (``(strategy, weight, low, high, Nash average pp)``).  With none, one record
    (``rows`` empty) naming the smallest weight."""
    t = meta.table
    unused = t[t["weight"] < SUPPORT]
    if not len(unused):
        low = t.sort_values("weight", kind="stable").iloc[0]
        return [{"strength": "none found", "rows": [], "smallest": (low["strategy"], low["weight"], low["weight_low"],
                                                                       low["weight_high"]), "support": SUPPORT}]
    out = []
    for steady, group in ((True, unused[unused["weight_high"] < SUPPORT]),
                          (False, unused[unused["weight_high"] >= SUPPORT])):
        if len(group):
            rows = list(zip(group["strategy"], group["weight"], group["weight_low"], group["weight_high"],
                            group["nash_average_pp"]))
            out.append({"strength": "clear" if steady and not _few(meta) else "possible", "steady": steady,
                        "rows": rows, "value": meta.value if meta.players > 2 else None, "support": SUPPORT})
    return out


# --------------------------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------------------------

def summary_text(meta: MetaGame, ratings: pd.DataFrame | None = None) -> str:
    """The meta-game for the terminal: the method and the table (with the ``ratings`` columns
    ``rating``/``rating_low``/``rating_high`` of the tournament's ranking when given); the
    tournament prints the meta-game's findings among all its findings."""
    table = with_ratings(meta, ratings)
    lines = [f"Meta-game: {meta.method}; Nash average in pp of win share above an even share "
             f"(1/{meta.players}) against the equilibrium mix."]
    with pd.option_context("display.width", 200, "display.max_columns", 30):
        lines.append(terminal_table(format_table(table)))
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
            v = mat[i, j]
            dark = v == v and abs(v - fair) > 0.6 * (100 - fair if v > fair else fair)
            colour = "#777777" if v != v else "white" if dark else "black"
            texts.append((ax, ax.text(j, i, fixed(v, 0) if v == v else "-", ha="center", va="center",
                                      fontsize=plots.LABEL_PT, color=colour)))
    names = [plots.short(plots.label(s), 24) for s in order]
    ax.set_xticks(range(k), names, rotation=45, ha="right", fontsize=8)
    ax.set_yticks(range(k), names, fontsize=8)
    ax.set_xlabel(f"opponent (blue: the row wins more than {fixed(fair, 0)}%, red: less)", fontsize=9)
    ax.set_ylabel("strategy")
    what = "Row's win share against column (%)" if meta.players == 2 else "Row's win share at tables with column (%)"
    ax.set_title(what, fontsize=10.5, loc="left", fontweight="bold")
    y = np.arange(k)
    bx.barh(y, w, color="#3a6ea5", height=0.6, xerr=np.clip(np.vstack([w - lo, hi - w]), 0, None), capsize=3,
            error_kw={"elinewidth": 1.0, "ecolor": "#222222"})
    for yi, v, h in zip(y, w, hi):
        bx.text(min(h, 100) + 3, yi, f"{fixed(v, 0)}%", va="center", fontsize=8)
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
