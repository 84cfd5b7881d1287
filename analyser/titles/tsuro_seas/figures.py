"""Tsuro of the Seas report figures: elimination tables, a 7x7 heat map of where ships were
eliminated and the causes per strategy.

``figure_tables(game, results, extras)`` returns ``[(caption, DataFrame)]`` and ``plots(game,
results, extras, outdir)`` writes PNGs and returns ``[(file name, caption)]``.  pandas, numpy and
matplotlib are used only inside the functions, so importing the title stays light.
"""

from __future__ import annotations

from analyser.titles.tsuro_seas.rules import SIZE


def figure_tables(game, results, extras):
    """Elimination turn per seat, causes of elimination per strategy, survivors per game,
    shared-win rate by how games ended, and game length."""
    import pandas as pd

    from analyser.analysis import game_keys

    df = results
    tables = []
    g = df.groupby("seat", observed=True)
    seat = g.agg(ships=("survived", "size"), survived=("survived", "mean"),
                 mean_elim_turn=("elim_turn", "mean"), median_elim_turn=("elim_turn", "median")).reset_index()
    tables.append(("Elimination turn per seat (among sunk ships; survived = share afloat at the end)", seat))
    causes = pd.crosstab(df["strategy"], df["cause"], normalize="index").reset_index()
    causes.columns.name = None
    for c in ("edge", "daikaiju", "collision", "loop", "survived"):
        if c not in causes.columns:
            causes[c] = 0.0
    causes = causes[["strategy", "edge", "daikaiju", "collision", "loop", "survived"]]
    tables.append(("Fate of ships per strategy (share of ships: cause of elimination, or survived)", causes))
    per_game = df.groupby(game_keys(df), observed=True).agg(  # a game is (run_id, game_index)
        survivors=("survived", "sum"), turns=("turns", "first"), end=("end", "first"), top=("win", "max"))
    surv = per_game["survivors"].value_counts().sort_index()
    tables.append(("Survivors at the end of the game", pd.DataFrame(
        {"survivors": surv.index.astype(int), "games": surv.to_numpy(),
         "share": surv.to_numpy() / len(per_game)})))
    per_game["shared"] = per_game["top"] < 1.0 - 1e-9
    ends = per_game.groupby("end").agg(games=("shared", "size"), shared_win_rate=("shared", "mean"),
                                       mean_turns=("turns", "mean")).reset_index()
    total = pd.DataFrame({"end": ["all games"], "games": [len(per_game)],
                          "shared_win_rate": [per_game["shared"].mean()],
                          "mean_turns": [per_game["turns"].mean()]})
    tables.append(("Shared-win rate by how games ended (last_ship, all_sunk = simultaneous elimination, "
                   "no_tiles, max_turns = cap)", pd.concat([ends, total], ignore_index=True)))
    t = per_game["turns"]
    tables.append(("Game length in turns", pd.DataFrame(
        {"games": [len(t)], "mean": [t.mean()], "median": [t.median()], "p5": [t.quantile(0.05)],
         "p95": [t.quantile(0.95)], "max": [t.max()]})))
    return tables


def plots(game, results, extras, outdir):
    """A 7x7 heatmap of where ships were eliminated, and the causes per strategy."""
    from analyser import plots  # noqa: F401  (sets the Agg backend first)
    import matplotlib.pyplot as plt
    import numpy as np

    out = []
    sunk = results.dropna(subset=["elim_row", "elim_col"])
    counts = np.zeros((SIZE, SIZE))
    for r, c in zip(sunk["elim_row"].astype(int), sunk["elim_col"].astype(int)):
        counts[r, c] += 1
    share = counts / max(1, len(sunk)) * 100
    fig, ax = plt.subplots(figsize=(6.4, 5.6))
    im = ax.imshow(share, cmap="magma_r", origin="upper", vmin=0)  # 0 = white: no false hotspots
    vmax = share.max() if share.max() > 0 else 1
    for r in range(SIZE):
        for c in range(SIZE):
            ax.text(c, r, f"{share[r, c]:.1f}", ha="center", va="center", fontsize=8,
                    color="white" if share[r, c] > 0.6 * vmax else "#222222")
    ax.set_xticks(range(SIZE))
    ax.set_yticks(range(SIZE))
    ax.set_xlabel("board column (0 = left)")
    ax.set_ylabel("board row (0 = top)")
    ax.set_title(f"Where ships were eliminated ({len(sunk)} ships, % per square)", fontsize=11,
                 loc="left", fontweight="bold")
    cb = fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    cb.set_label("share of eliminated ships (%)")
    out.append(plots.save(fig, outdir / "elimination_heatmap.png",
                           "Where ships were eliminated: the square each sunk ship was on (for a loop "
                           "or head-on meeting the new tile's square), as a share of all eliminations."))
    causes = ["edge", "daikaiju", "collision", "loop", "survived"]
    tab = results.groupby("strategy", observed=True)["cause"].value_counts(normalize=True).unstack(fill_value=0)
    tab = tab.reindex(columns=causes, fill_value=0) * 100
    fig, ax = plt.subplots(figsize=(8, 1.6 + 0.6 * len(tab)))
    left = np.zeros(len(tab))
    colours = ["#c44e52", "#8172b3", "#e07b39", "#937860", "#4f9d69"]
    y = np.arange(len(tab))
    for c, col in zip(causes, colours):
        v = tab[c].to_numpy()
        ax.barh(y, v, left=left, color=col, label=c, height=0.6)
        for yi, (l, w) in enumerate(zip(left, v)):
            if w >= 6:
                ax.text(l + w / 2, yi, f"{w:.0f}%", ha="center", va="center", fontsize=8, color="white")
        left += v
    ax.set_yticks(y, [str(s) for s in tab.index])
    ax.set_xlim(0, 100)
    ax.legend(frameon=False, ncol=5, loc="upper center", bbox_to_anchor=(0.5, -0.35 if len(tab) < 3 else -0.2))
    plots.style(ax, "Fate of ships per strategy", "share of ships (%)", "")
    out.append(plots.save(fig, outdir / "elimination_causes.png",
                           "How each strategy's ships ended: eliminated at the edge, by a daikaiju, "
                           "in a collision or a loop, or afloat at the end."))
    return out
