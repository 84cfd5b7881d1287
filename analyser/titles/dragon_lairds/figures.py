"""Dragon Lairds figures: points by source, cup holdings and value, end triggers, rounds (tables);
income curves per round, cup holdings and net cup value, and royals by source (plots).

The figures are computed in two steps (see ``Game.figure_sums`` in :mod:`analyser.engine.core`):
:func:`figure_sums` reduces one chunk of whole games to four small additive frames, and
:func:`figure_tables_from` / :func:`plots_from` build the tables and PNGs from the chunks'
combined sums:

* ``dl_strategy`` - index ``strategy``: ``players`` (player-games), ``order_min`` (the strategy's
  place in the run's order) and sums of the per-player columns (royals by source, score, cup);
* ``dl_ends`` - index ``end``: ``games`` and ``rounds_sum``;
* ``dl_rounds`` - index ``rounds`` (rounds played, a whole number): ``games`` - the value counts
  from which the quartiles of the rounds table are taken exactly;
* ``dl_income`` - index (``strategy``, ``round``): ``seats`` (seats that collected at tax),
  ``geld_sum`` and ``royals_sum``.

pandas and matplotlib are imported inside the functions."""

from __future__ import annotations

import numpy as np

SOURCES = ("royals_start", "royals_tax", "royals_final_income", "royals_finale", "royals_sets", "hand_penalty",
           "royals_cup", "royals_effects", "royals_spent")
#: Per-player columns summed per strategy, besides the royals by source.
_CUP = ("cup_wins", "cup_rounds", "challenges", "cup_paid", "cup_cashed", "cup_net_geld")
_LABELS = ("start", "tax", "final income", "finale", "colour sets", "hand penalty", "cup", "effects", "spent")


def _income(results, extras):
    """The income table with each row's strategy taken from ``results`` (its seat in its game);
    None without it."""
    inc = extras.get("income") if extras else None
    if inc is None or len(inc) == 0:
        return None
    on = [c for c in ("run_id", "game_index", "seat") if c in inc.columns and c in results.columns]
    if "seat" not in on or "game_index" not in on:
        return inc if "strategy" in inc.columns else None
    left = inc.drop(columns=["strategy"], errors="ignore")
    right = results[on + ["strategy"]]
    if "run_id" in on:  # categories of the two tables may differ: match on the text
        left = left.assign(run_id=left["run_id"].astype(str))
        right = right.assign(run_id=right["run_id"].astype(str))
    return left.merge(right, on=on, how="inner")


def figure_sums(game, results, extras):
    """Additive sums of one chunk of whole games (the frames named in the module docstring)."""
    import pandas as pd

    from analyser.stats.streamed import strategy_order

    if not len(results):
        return {}
    df = results
    per = pd.DataFrame({"strategy": df["strategy"].astype(str).to_numpy(), "players": 1.0, "order_min": strategy_order(df)})
    for c in SOURCES[1:] + ("score",) + _CUP:
        per[c] = df[c].to_numpy(dtype=float)
    g = per.groupby("strategy", sort=True)
    by_strategy = g.sum().astype(np.float64)
    by_strategy["order_min"] = g["order_min"].min().astype(np.float64)
    games = df.drop_duplicates(["run_id", "game_index"] if "run_id" in df.columns else ["game_index"])
    turns = games["turns"].to_numpy(dtype=float)
    ends = pd.DataFrame({"end": games["end"].astype(str).to_numpy(), "games": 1.0, "rounds_sum": turns}
                        ).groupby("end", sort=True).sum()
    rounds = pd.DataFrame({"rounds": turns, "games": 1.0}).groupby("rounds", sort=True).sum()
    out = {"dl_strategy": by_strategy, "dl_ends": ends, "dl_rounds": rounds}
    inc = _income(results, extras)
    if inc is not None and len(inc):
        out["dl_income"] = pd.DataFrame({"strategy": inc["strategy"].astype(str).to_numpy(),
                                         "round": inc["round"].to_numpy(dtype=np.int64), "seats": 1.0,
                                         "geld_sum": inc["geld"].to_numpy(dtype=float),
                                         "royals_sum": inc["royals"].to_numpy(dtype=float)}
                                        ).groupby(["strategy", "round"], sort=True).sum()
    if "buys" in df.columns:
        out.update(buy_component_sums(df))
    return out


def buy_component_sums(results):
    """The cards measured per purchase, adjusted for the buyer's standing: one row per card a
    seat took (the ``buys`` metric: ``id:round:rank``), y = the buyer's win share, the card as its
    component, and one intercept per strategy, seat, round and rank by royals at that moment, so
    a card is compared with the other cards taken from the same standing
    (:func:`analyser.stats.components.chunk_sums`; each purchase its own cluster).  Keys
    ``buy_comp_*``; ``{}`` without purchases."""
    import pandas as pd

    from analyser.stats import components

    has = results["buys"].notna().to_numpy()
    if not has.any():
        return {}
    sub = results[has]
    items = sub["buys"].astype(str).str.split()
    n = items.str.len().to_numpy()
    flat = items.explode().to_numpy(dtype=object)
    parts = pd.Series(flat).str.rsplit(":", n=2, expand=True)
    strat = np.repeat(sub["strategy"].astype(str).to_numpy(), n)
    seat = np.repeat(sub["seat"].to_numpy(dtype=np.int64), n)
    win = np.repeat(sub["win"].to_numpy(dtype=float), n)
    label = pd.Series(strat).str.cat([pd.Series(seat).astype(str), parts[1], parts[2]], sep=" / ").to_numpy()
    run = (np.repeat(sub["run_id"].astype(str).to_numpy(), n) if "run_id" in sub.columns else np.zeros(len(flat)))
    game = np.repeat(sub["game_index"].to_numpy(dtype=np.int64), n)
    # one cluster per purchase, numbered by its game and place among the game's purchases (the same
    # in any chunking: a chunk holds whole games)
    order = pd.DataFrame({"run": run, "game": game}).groupby(["run", "game"], sort=False).cumcount().to_numpy()
    gi = game * 4096 + order
    res = pd.DataFrame({"game_index": gi, "seat": 0, "strategy": label, "win": win})
    comp = pd.DataFrame({"game_index": gi, "seat": 0, "component": parts[0].to_numpy(), "count": 1})
    return {"buy_" + k: v for k, v in components.chunk_sums(res, comp).items()}


def _by_order(frame):
    """``dl_strategy`` rows in the run's order of strategies."""
    return frame.sort_values("order_min", kind="stable")


def _means(st, columns):
    """Means per player per game of ``columns`` of a ``dl_strategy`` frame."""
    return st[list(columns)].div(st["players"], axis=0)


def figure_tables_from(game, sums):
    """Per strategy: royals by source (means per player per game; with the starting royal they add
    up to the mean score), Saurean Cup figures, and per run: end triggers and rounds played; the
    income collected at tax by round when the run has its income table."""
    import pandas as pd

    from analyser.stats.streamed import quantile_from_counts

    if not sums or "dl_strategy" not in sums:
        return []
    st = _by_order(sums["dl_strategy"])
    names = st.index.astype(str)
    points = _means(st, SOURCES[1:] + ("score",)).reset_index(drop=True)
    points.insert(0, "strategy", names)
    points.columns = ["strategy", "tax", "final income", "finale", "colour sets", "hand penalty", "cup", "effects",
                      "spent", "score"]
    cup = _means(st, ("cup_wins", "cup_rounds", "challenges", "cup_paid", "cup_cashed", "cup_net_geld",
                      "royals_cup")).reset_index(drop=True)
    cup.columns = ["auctions_won", "rounds_held", "challenges", "geld_paid", "geld_cashed", "net_geld", "cup_royals"]
    cup.insert(0, "strategy", names)
    e = sums["dl_ends"]
    ends = pd.DataFrame({"end": e.index.astype(str), "games": e["games"].to_numpy().astype(np.int64),
                         "mean_rounds": (e["rounds_sum"] / e["games"]).to_numpy()})
    ends["share"] = ends["games"] / ends["games"].sum()
    ends.attrs["percent"] = ["share"]  # a share of games: shown as a percentage
    r = sums["dl_rounds"]
    v, c = r.index.to_numpy(dtype=float), r["games"].to_numpy(dtype=float)
    rounds = pd.DataFrame({"mean": [float(np.sum(v * c) / np.sum(c))], "min": [float(v[c > 0].min())],
                           **{f"{int(q * 100)}%": [quantile_from_counts(v, c, q)] for q in (0.25, 0.5, 0.75)},
                           "max": [float(v[c > 0].max())]})
    out = [("Royals by source per strategy (means per player per game; start 1 + sources = score; hand "
            "penalty and spent (Havocs, cycling) are negative)", points),
           ("Saurean Cup per strategy (means per player per game): auctions won, rounds held at the "
            "round's end, challenges made, geld paid in bids and cashed; net value = cashed - paid "
            "(geld) and the royals the cup scored", cup),
           ("End trigger (royals: someone reached the royals target; deck: the last card was revealed; "
            "cap: max_rounds)", ends),
           ("Rounds played per game", rounds)]
    inc = sums.get("dl_income")
    if inc is not None and len(inc):
        played = inc.index.get_level_values("round").astype(np.int64)
        inc = inc[played <= 12]
        if len(inc):
            shown = inc.index.get_level_values("round").astype(np.int64)
            first, last = int(shown.min()), int(shown.max())
            order = [n for n in names if n in set(inc.index.get_level_values("strategy"))]
            t = pd.DataFrame(index=pd.RangeIndex(first, last + 1, name="round"))  # one row per round named
            for col in ("geld", "royals"):
                m = (inc[f"{col}_sum"] / inc["seats"]).unstack("strategy")
                m.index = m.index.astype(np.int64)
                for n in order:
                    t[f"{col} {n}"] = m[n].reindex(t.index)
            span = f"round {first}" if first == last else f"rounds {first}-{last}"
            later = f"; rounds {last + 1}-{int(played.max())} are not shown" if played.max() > last else ""
            out.append((f"Income collected at tax by round (means per seat that collected), {span}{later}",
                        t.reset_index()))
    return out


def plots_from(game, sums, outdir, strategies):
    """Income curves (geld and royals collected per round, per strategy), the Saurean Cup per
    strategy and royals by source, from combined sums.  ``strategies``: the run's strategy names,
    plot-safe, in order."""
    from analyser.stats import plots as base

    import matplotlib.pyplot as plt

    if not sums or "dl_strategy" not in sums:
        return []
    figures = []
    st = sums["dl_strategy"]
    names = [n for n in strategies if n in st.index] + [n for n in _by_order(st).index if n not in strategies]
    colours = base.strategy_colours(names)
    inc = sums.get("dl_income")
    if inc is not None and len(inc):
        fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
        counts = inc["seats"].groupby(level="round").sum()
        enough = counts[counts >= 20]
        top = int(enough.index.max() if len(enough) else counts.index.max())
        rounds = inc.index.get_level_values("round")
        for ax, col in zip(axes, ("geld", "royals")):
            for name in names:
                sel = (inc.index.get_level_values("strategy") == name) & (rounds <= top) & (inc["seats"] > 0)
                sub = inc[sel]
                if len(sub) == 0:
                    continue
                m = sub[f"{col}_sum"] / sub["seats"]
                ax.plot(sub.index.get_level_values("round").to_numpy(), m.to_numpy(), marker="o", markersize=3,
                        color=colours[name], label=name)
            base.style(ax, f"{col.capitalize()} income per round", "round", f"{col} collected at tax")
            ax.grid(axis="y", color="#dddddd", linewidth=0.8)
        axes[0].legend(frameon=False, title="strategy", fontsize=9)
        figures.append(base.save(fig, outdir / "income_curves.png",
                                 "Mean geld (left) and royals (right) each seat collected at tax, by round and "
                                 "strategy (rounds reached by at least 20 seats)."))
    figures.append(_cup_plot(cup_summary_from(sums), outdir, names, colours))
    means = _means(st.reindex(names), SOURCES[1:])
    means.insert(0, "royals_start", 1.0)
    fig, ax = plt.subplots(figsize=(9, 1.6 + 0.6 * len(means)))
    palette = plt.get_cmap("tab10").colors
    y = np.arange(len(means))
    pos = np.zeros(len(means))
    neg = np.zeros(len(means))
    for k, (col, label) in enumerate(zip(SOURCES, _LABELS)):
        v = means[col].to_numpy()
        left = np.where(v >= 0, pos, neg + v)
        ax.barh(y, np.abs(v), left=left, color=palette[k % 10], label=label, height=0.6)
        pos += np.where(v >= 0, v, 0)
        neg += np.where(v < 0, v, 0)
    ax.set_yticks(y, [str(i) for i in means.index])
    # The bars' edges are sticky, so matplotlib added no margin and the longest bars ran into the
    # frame: pad both ends by hand.  The run's first strategy is on top, as in the cup plot.
    lo, hi = min(float(neg.min()), 0.0), max(float(pos.max()), 0.0)
    pad = 0.04 * (hi - lo or 1.0)
    ax.set_xlim(lo - pad, hi + pad)
    ax.set_ylim(len(means) - 0.4, -0.6)
    ax.axvline(0, color="#333333", linewidth=0.8)
    ax.legend(frameon=False, fontsize=8, ncol=5, loc="upper center", bbox_to_anchor=(0.5, -0.18))
    base.style(ax, "Royals by source (means per player per game)", "royals", "")
    fig.tight_layout()
    figures.append(base.save(fig, outdir / "points_by_source.png",
                             "Where each strategy's royals come from; bars left of 0 are losses (hand penalty, "
                             "royals spent on Havocs and cycling)."))
    return figures


def cup_summary_from(sums):
    """Per strategy (index, in the run's order), means per player per game: ``auctions won``
    (``cup_wins``), ``rounds held`` (``cup_rounds``, rounds it held the Saurean Cup at the round's
    end), ``geld paid`` (``cup_paid``, in winning bids), ``geld cashed`` (``cup_cashed``) and ``net
    geld`` (``cup_net_geld`` = cashed - paid), from combined :func:`figure_sums`.  A pandas
    DataFrame; the source of the cup plot."""
    out = _means(_by_order(sums["dl_strategy"]), ("cup_wins", "cup_rounds", "cup_paid", "cup_cashed", "cup_net_geld"))
    out.columns = ["auctions won", "rounds held", "geld paid", "geld cashed", "net geld"]
    return out


def cup_summary(results):
    """:func:`cup_summary_from` of a whole in-memory results frame."""
    return cup_summary_from(figure_sums(None, results, {}))


def _cup_plot(cup, outdir, names, colours):
    """Two panels: cup holdings (auctions won, rounds held) and the cup's value in geld (paid as a
    bar below 0, cashed above, the net as a diamond), per strategy; ``cup`` is
    :func:`cup_summary_from`, ``names`` are plot-safe and drawn as given."""
    from analyser.stats import plots as base

    import matplotlib.pyplot as plt

    order = [n for n in names if n in cup.index]
    cup = cup.loc[order]
    y = np.arange(len(order))
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 2.3 + 0.55 * len(order)), sharey=True)
    h = 0.38
    left.barh(y - h / 2, cup["auctions won"], height=h, color=[colours[n] for n in order], label="auctions won")
    left.barh(y + h / 2, cup["rounds held"], height=h, color=[colours[n] for n in order], alpha=0.45,
              hatch="//", edgecolor="#555555", label="rounds held")
    left.set_yticks(y, order)
    left.invert_yaxis()
    from matplotlib.patches import Patch
    left.legend(handles=[Patch(color="#777777", label="auctions won"),
                         Patch(facecolor="#777777", alpha=0.45, hatch="//", edgecolor="#555555", label="rounds held")],
                frameon=False, fontsize=9, ncol=2, loc="upper center", bbox_to_anchor=(0.5, -0.22))
    base.style(left, "Saurean Cup holdings", "per player per game", "")
    right.barh(y, -cup["geld paid"], height=0.6, color="#c44e52", label="geld paid in bids")
    right.barh(y, cup["geld cashed"], height=0.6, color="#55a868", label="geld cashed")
    right.scatter(cup["net geld"], y, marker="D", s=40, color="#222222", zorder=3, label="net value")
    right.axvline(0, color="#333333", linewidth=0.8)
    right.legend(frameon=False, fontsize=9, ncol=3, loc="upper center", bbox_to_anchor=(0.5, -0.22))
    base.style(right, "Net cup value (geld)", "geld per player per game", "")
    for ax in (left, right):
        ax.grid(axis="x", color="#dddddd", linewidth=0.8)
        ax.set_axisbelow(True)
    return base.save(fig, outdir / "cup.png",
                     "Saurean Cup per strategy, means per player per game. Left: auctions won and rounds "
                     "the cup was held at a round's end. Right: geld paid in winning bids (below 0), geld "
                     "cashed (above 0) and the net value, cashed - paid (diamond).")
