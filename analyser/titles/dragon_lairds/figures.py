"""Dragon Lairds figures: points by source, cup holdings and value, end triggers, rounds (tables);
income curves per round, cup holdings and net cup value, and royals by source (plots).  pandas and matplotlib are imported inside the functions."""

from __future__ import annotations

SOURCES = ("royals_start", "royals_tax", "royals_final_income", "royals_finale", "royals_sets", "hand_penalty",
           "royals_cup", "royals_effects", "royals_spent")


def _income(results, extras):
    """The income table joined with each row's strategy (None without it)."""
    inc = extras.get("income") if extras else None
    if inc is None or len(inc) == 0:
        return None
    if "strategy" in inc.columns:
        return inc
    on = [c for c in ("run_id", "game_index", "seat") if c in inc.columns and c in results.columns]
    return inc.merge(results[on + ["strategy"]], on=on, how="inner")


def figure_tables(game, results, extras):
    """Per strategy: royals by source (means per player per game; with the starting royal they add
    up to the mean score), Saurean Cup figures, and per run: end triggers and rounds played."""
    df = results.assign(royals_start=1)
    g = df.groupby("strategy", observed=True)
    points = g[list(SOURCES[1:])].mean().reset_index()
    points["score"] = g["score"].mean().to_numpy()
    points.columns = ["strategy", "tax", "final income", "finale", "colour sets", "hand penalty", "cup",
                      "effects", "spent", "score"]
    cup = g.agg(auctions_won=("cup_wins", "mean"), rounds_held=("cup_rounds", "mean"),
                challenges=("challenges", "mean"), geld_paid=("cup_paid", "mean"),
                geld_cashed=("cup_cashed", "mean"), net_geld=("cup_net_geld", "mean"),
                cup_royals=("royals_cup", "mean")).reset_index()
    games = df.drop_duplicates(["run_id", "game_index"] if "run_id" in df.columns else ["game_index"])
    ends = games.groupby("end").agg(games=("turns", "size"), mean_rounds=("turns", "mean")).reset_index()
    ends["share"] = ends["games"] / ends["games"].sum()
    rounds = games["turns"].describe()[["mean", "min", "25%", "50%", "75%", "max"]].to_frame("rounds").T
    out = [("Royals by source per strategy (means per player per game; start 1 + sources = score; hand "
            "penalty and spent (Havocs, cycling) are negative)", points),
           ("Saurean Cup per strategy (means per player per game): auctions won, rounds held at the "
            "round's end, challenges made, geld paid in bids and cashed; net value = cashed - paid "
            "(geld) and the royals the cup scored", cup),
           ("End trigger (royals: someone reached the royals target; deck: the last card was revealed; "
            "cap: max_rounds)", ends),
           ("Rounds played per game", rounds.reset_index(drop=True))]
    inc = _income(results, extras)
    if inc is not None:
        t = inc.groupby(["strategy", "round"], observed=True)[["geld", "royals"]].mean().unstack("strategy")
        t = t[t.index <= 12]
        t.columns = [f"{a} {b}" for a, b in t.columns]
        out.append(("Income collected at tax by round (means per seat that collected), rounds 1-12",
                    t.reset_index()))
    return out


def plots(game, results, extras, outdir):
    """Income curves (geld and royals collected per round, per strategy) and royals by source."""
    from analyser import plots as base

    import matplotlib.pyplot as plt
    import numpy as np

    figures = []
    names = [str(c) for c in base.strategy_names(results)]
    colours = base.strategy_colours(base.strategy_names(results))
    inc = _income(results, extras)
    if inc is not None:
        fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
        counts = inc.groupby("round").size()
        enough = counts[counts >= 20]
        top = int(enough.index.max() if len(enough) else counts.index.max())
        for ax, col in zip(axes, ("geld", "royals")):
            for name in names:
                sub = inc[(inc["strategy"] == name) & (inc["round"] <= top)]
                if len(sub) == 0:
                    continue
                m = sub.groupby("round")[col].mean()
                ax.plot(m.index, m.to_numpy(), marker="o", markersize=3, color=colours[name], label=name)
            base.style(ax, f"{col.capitalize()} income per round", "round", f"{col} collected at tax")
            ax.grid(axis="y", color="#dddddd", linewidth=0.8)
        axes[0].legend(frameon=False, title="strategy", fontsize=9)
        figures.append(base.save(fig, outdir / "income_curves.png",
                                 "Mean geld (left) and royals (right) each seat collected at tax, by round and "
                                 "strategy (rounds reached by at least 20 seats)."))
    figures.append(_cup_plot(results, outdir, names, colours))
    df = results.assign(royals_start=1)
    means = df.groupby("strategy", observed=True)[list(SOURCES)].mean()
    fig, ax = plt.subplots(figsize=(9, 1.6 + 0.6 * len(means)))
    labels = ["start", "tax", "final income", "finale", "colour sets", "hand penalty", "cup", "effects", "spent"]
    palette = plt.get_cmap("tab10").colors
    y = np.arange(len(means))
    pos = np.zeros(len(means))
    neg = np.zeros(len(means))
    for k, (col, label) in enumerate(zip(SOURCES, labels)):
        v = means[col].to_numpy()
        left = np.where(v >= 0, pos, neg + v)
        ax.barh(y, np.abs(v), left=left, color=palette[k % 10], label=label, height=0.6)
        pos += np.where(v >= 0, v, 0)
        neg += np.where(v < 0, v, 0)
    ax.set_yticks(y, [str(i) for i in means.index])
    ax.axvline(0, color="#333333", linewidth=0.8)
    ax.legend(frameon=False, fontsize=8, ncol=5, loc="upper center", bbox_to_anchor=(0.5, -0.18))
    base.style(ax, "Royals by source (means per player per game)", "royals", "")
    fig.tight_layout()
    figures.append(base.save(fig, outdir / "points_by_source.png",
                             "Where each strategy's royals come from; bars left of 0 are losses (hand penalty, "
                             "royals spent on Havocs and cycling)."))
    return figures


def cup_summary(results):
    """Per strategy (index), means per player per game: ``auctions won`` (``cup_wins``), ``rounds
    held`` (``cup_rounds``, rounds it held the Saurean Cup at the round's end), ``geld paid``
    (``cup_paid``, in winning bids), ``geld cashed`` (``cup_cashed``) and ``net geld``
    (``cup_net_geld`` = cashed - paid).  A pandas DataFrame; the source of the cup plot."""
    g = results.groupby("strategy", observed=True)
    out = g[["cup_wins", "cup_rounds", "cup_paid", "cup_cashed", "cup_net_geld"]].mean()
    out.columns = ["auctions won", "rounds held", "geld paid", "geld cashed", "net geld"]
    return out


def _cup_plot(results, outdir, names, colours):
    """Two panels: cup holdings (auctions won, rounds held) and the cup's value in geld (paid as a
    bar below 0, cashed above, the net as a diamond), per strategy."""
    from analyser import plots as base

    import matplotlib.pyplot as plt
    import numpy as np

    cup = cup_summary(results)
    order = [n for n in names if n in cup.index]
    cup = cup.loc[order]
    y = np.arange(len(order))
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 2.3 + 0.55 * len(order)), sharey=True)
    h = 0.38
    left.barh(y - h / 2, cup["auctions won"], height=h, color=[colours[n] for n in order], label="auctions won")
    left.barh(y + h / 2, cup["rounds held"], height=h, color=[colours[n] for n in order], alpha=0.45,
              hatch="//", edgecolor="#555555", label="rounds held")
    left.set_yticks(y, [base.label(n) for n in order])
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
