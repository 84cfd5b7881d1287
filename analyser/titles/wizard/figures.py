"""Wizard report figures: bidding tables per strategy and by round, a heat map of tricks taken
against tricks bid, and bid accuracy by round.

``figure_tables(game, results, extras)`` returns ``[(caption, DataFrame)]`` and ``plots(game,
results, extras, outdir)`` writes PNGs and returns ``[(file name, caption)]``.  pandas, numpy and
matplotlib are used only inside the functions, so importing the title stays light.
"""

from __future__ import annotations


def _rounds(results, extras):
    """The rounds table joined with each row's strategy (None without a rounds table)."""
    rounds = extras.get("rounds") if extras else None
    if rounds is None or len(rounds) == 0:
        return None
    if "strategy" in rounds.columns:  # written by analyser: it names each row's strategy
        return rounds
    on = [c for c in ("run_id", "game_index", "seat") if c in rounds.columns and c in results.columns]
    return rounds.merge(results[on + ["strategy"]], on=on, how="inner")


def figure_tables(game, results, extras):
    """Per strategy: bid accuracy, over/under-bids, points per round; exact bids and points by
    round; exact bids by the number of Wizards and of Jesters in hand."""
    df = _rounds(results, extras)
    if df is None:
        return []
    df = df.assign(over=(df["bid"] - df["tricks"]).clip(lower=0),
                   under=(df["tricks"] - df["bid"]).clip(lower=0))
    g = df.groupby("strategy", observed=True)
    per = g.agg(rounds=("exact", "size"), exact_rate=("exact", "mean"), mean_bid=("bid", "mean"),
                mean_tricks=("tricks", "mean"), over_bid=("over", "mean"), under_bid=("under", "mean"),
                points_per_round=("points", "mean")).reset_index()
    out = [("Wizard bidding per strategy (means per round; over bid / under bid: tricks short of / "
            "beyond the bid, 0 when met)", per)]

    def pivot(value, by, scale=1.0):
        t = df.pivot_table(index=by, columns="strategy", values=value, aggfunc="mean", observed=True) * scale
        t.columns = [str(c) for c in t.columns]
        return t.reset_index()

    out.append(("Exact bids (%) by round (round r deals r cards), per strategy", pivot("exact", "round", 100)))
    out.append(("Mean points by round, per strategy", pivot("points", "round")))
    for col, label in (("wizards", "Wizards"), ("jesters", "Jesters")):
        counts = df.groupby(col).size().rename("rounds").reset_index()
        out.append((f"Exact bids (%) by number of {label} in hand, per strategy (rounds: all strategies)",
                    counts.merge(pivot("exact", col, 100), on=col)))
    return out


#: Columns of the heat map with fewer rounds than this stay grey (too few to show a share).
HEATMAP_MIN_ROUNDS = 10


def plots(game, results, extras, outdir):
    """Heat maps of tricks taken against tricks bid (one panel per strategy) and the share of
    exact bids by round."""
    from analyser import plots as base  # sets the Agg backend
    from analyser.analysis import wilson

    import matplotlib.pyplot as plt
    import numpy as np

    df = _rounds(results, extras)
    if df is None:
        return []
    names = [str(c) for c in base.strategy_names(results) if (df["strategy"] == c).any()]
    colours = base.strategy_colours(base.strategy_names(results))
    top = int(max(df["bid"].max(), df["tricks"].max()))
    k = len(names)
    cols = 2 if k == 4 else min(k, 3)
    rows = (k + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.3 * cols + 1.4, 4.1 * rows + 1.0), squeeze=False,
                             constrained_layout=True)
    cmap = plt.get_cmap("viridis").with_extremes(bad="#e8e8e8")
    image = None
    for i, name in enumerate(names):
        ax = axes[i // cols][i % cols]
        sub = df[df["strategy"] == name]
        grid = np.zeros((top + 1, top + 1))
        np.add.at(grid, (sub["tricks"].to_numpy(), sub["bid"].to_numpy()), 1)
        per_bid = grid.sum(axis=0, keepdims=True)
        share = np.where(per_bid >= HEATMAP_MIN_ROUNDS, grid / np.maximum(per_bid, 1) * 100, np.nan)
        image = ax.imshow(share, origin="lower", cmap=cmap, vmin=0, vmax=100, aspect="equal",
                          interpolation="nearest")
        ax.plot([-0.5, top + 0.5], [-0.5, top + 0.5], color="white", linewidth=0.9, linestyle=":")
        ax.set_title(f"{name}\nexact {sub['exact'].mean() * 100:.1f}% of {len(sub)} rounds", fontsize=10)
        ax.set_xlabel("tricks bid")
        ax.set_ylabel("tricks taken")
        step = 1 if top <= 10 else 2
        ax.set_xticks(range(0, top + 1, step))
        ax.set_yticks(range(0, top + 1, step))
    for j in range(k, rows * cols):
        axes[j // cols][j % cols].axis("off")
    fig.suptitle("Tricks taken against tricks bid: where the rounds with each bid ended (%)",
                 fontsize=12, fontweight="bold", x=0.01, ha="left")
    fig.colorbar(image, ax=axes.ravel().tolist(), shrink=0.85, label="share of the rounds with this bid (%)")
    path = outdir / "bid_heatmap.png"
    fig.savefig(path, dpi=base.DPI)
    plt.close(fig)
    figures = [(path.name, "Tricks taken (rows) against tricks bid (columns), per strategy. Each column "
                           "shows how the rounds with that bid ended and sums to 100%; the dotted "
                           "diagonal is an exact bid, cells above it took more tricks than bid. Grey: "
                           f"bids made in fewer than {HEATMAP_MIN_ROUNDS} rounds.")]

    fig, ax = plt.subplots(figsize=(9.5 if len(names) > 4 else 8, 4.2))
    for name in names:
        by = df[df["strategy"] == name].groupby("round")["exact"].agg(["mean", "size"])
        lo, hi = wilson(by["mean"].to_numpy(), by["size"].to_numpy())
        ax.plot(by.index, by["mean"] * 100, marker="o", markersize=3.5, color=colours[name], label=name)
        ax.fill_between(by.index, lo * 100, hi * 100, color=colours[name], alpha=0.15, linewidth=0)
    ax.set_ylim(0, 100)
    ax.set_xticks(sorted(df["round"].unique()))
    if len(names) > 4:  # many curves: the legend goes beside the plot, not over the data
        ax.legend(frameon=False, title="strategy", fontsize=9, loc="upper left", bbox_to_anchor=(1.01, 1))
    else:
        ax.legend(frameon=False, title="strategy", fontsize=9)
    base.style(ax, "Bid accuracy by round: share of exact bids (bands: 95% Wilson interval)",
                "round (= cards in hand)", "exact bids (%)")
    ax.grid(axis="y", color="#dddddd", linewidth=0.8)
    figures.append(base.save(fig, outdir / "bid_accuracy.png",
                              "Share of rounds in which each strategy took exactly the tricks it bid, "
                              "by round (round r deals r cards)."))
    return figures
