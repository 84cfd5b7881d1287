"""Report plots (matplotlib, Agg backend - set here and only here).

The public plotting API for titles' ``figures`` modules: :func:`style` (title, labels, grid),
:func:`save` (tight layout, write the PNG, close), :func:`strategy_colours` and
:func:`strategy_names`, plus the ready-made :func:`metric_box`.  Every plot function writes one
PNG and returns ``(file name, caption)``.  Axes are labelled and the
titles say what is shown; intervals are 95%.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

PALETTE = ["#3a6ea5", "#e07b39", "#4f9d69", "#c44e52", "#8172b3", "#937860", "#da8bc3", "#8c8c8c"]
DPI = 110


def style(ax, title: str, xlabel: str, ylabel: str) -> None:
    ax.set_title(title, fontsize=12, loc="left", fontweight="bold")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.spines[["top", "right"]].set_visible(False)
    ax.grid(axis="x", color="#dddddd", linewidth=0.8)
    ax.set_axisbelow(True)


def save(fig, path: Path, caption: str) -> tuple[str, str]:
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path.name, caption


def strategy_colours(names) -> dict[str, str]:
    """One fixed colour per strategy, by its order in the run, so every plot agrees."""
    return {str(n): PALETTE[i % len(PALETTE)] for i, n in enumerate(names)}


def strategy_names(df: pd.DataFrame) -> list[str]:
    s = df["strategy"]
    return [str(x) for x in (s.cat.categories if hasattr(s, "cat") else pd.unique(s))]


def win_rate(summary: pd.DataFrame, players: int, path: Path, colours: dict | None = None) -> tuple[str, str]:
    """Horizontal bars of win rate per strategy with 95% Wilson interval bars and the fair share."""
    s = summary.iloc[::-1]
    colours = colours or strategy_colours(summary["strategy"])
    fig, ax = plt.subplots(figsize=(8, 1.5 + 0.55 * len(s)))
    y = np.arange(len(s))
    rate = s["win_rate"].to_numpy() * 100
    err = np.clip(np.vstack([rate - s["win_low"].to_numpy() * 100, s["win_high"].to_numpy() * 100 - rate]), 0, None)
    ax.barh(y, rate, color=[colours.get(str(n), PALETTE[0]) for n in s["strategy"]], height=0.6,
            xerr=err, capsize=4, error_kw={"elinewidth": 1.2})
    ax.axvline(100 / players, color="#555555", linestyle="--", linewidth=1,
               label=f"fair share 1/{players} = {100 / players:.1f}%")
    for yi, r, hi in zip(y, rate, s["win_high"].to_numpy() * 100):
        ax.text(hi + 0.8, yi, f"{r:.1f}%", va="center", fontsize=9)
    ax.set_yticks(y, [str(x) for x in s["strategy"]])
    ax.set_xlim(0, min(100, max(s["win_high"].max() * 100 * 1.2 + 6, 100 / players * 1.5)))
    ax.legend(frameon=False, loc="lower right", fontsize=8)
    style(ax, "Win rate per strategy (bars: 95% Wilson interval)", "win rate (%, a shared win split)", "")
    return save(fig, path, "Win rate per strategy with 95% confidence intervals. The dashed line is "
                            "the fair share 1/players.")


def score_distribution(df: pd.DataFrame, path: Path, colours: dict | None = None,
                       unit: str = "points") -> tuple[str, str]:
    """Overlaid step histograms of final score per strategy, with the means marked."""
    colours = colours or strategy_colours(strategy_names(df))
    fig, ax = plt.subplots(figsize=(8, 4.2))
    lo, hi = df["score"].min(), df["score"].max()
    bins = np.arange(np.floor(lo) - 0.5, np.ceil(hi) + 1.5, max(1, int(np.ceil((hi - lo + 1) / 50))))
    for i, (name, grp) in enumerate(df.groupby("strategy", observed=True)):
        colour = colours.get(str(name), PALETTE[i % len(PALETTE)])
        ax.hist(grp["score"], bins=bins, histtype="stepfilled", alpha=0.25, color=colour,
                weights=np.full(len(grp), 100 / len(grp)))
        ax.hist(grp["score"], bins=bins, histtype="step", linewidth=1.6, color=colour, label=str(name),
                weights=np.full(len(grp), 100 / len(grp)))
        ax.axvline(grp["score"].mean(), color=colour, linestyle=":", linewidth=1.5)
    ax.legend(frameon=False, title="strategy (dotted: mean)")
    style(ax, "Final score distribution per strategy", f"final score ({unit})", "share of players (%)")
    ax.grid(axis="y", color="#dddddd", linewidth=0.8)
    return save(fig, path, "Distribution of final scores per strategy; each curve sums to 100%.")


def seat_win_rate(seats: pd.DataFrame, path: Path) -> tuple[str, str]:
    """Win rate by seat (turn order) with 95% Wilson intervals against the fair share."""
    fig, ax = plt.subplots(figsize=(8, 3.8))
    x = seats["seat"].to_numpy()
    rate = seats["win_rate"].to_numpy() * 100
    high = seats["win_high"].to_numpy() * 100
    err = np.clip(np.vstack([rate - seats["win_low"].to_numpy() * 100, high - rate]), 0, None)
    ax.bar(x, rate, color=PALETTE[0], width=0.6, yerr=err, capsize=5)
    fair = seats["fair_share"].iloc[0] * 100
    ax.axhline(fair, color="#c44e52", linestyle="--", linewidth=1.2, label=f"fair share {fair:.1f}%")
    for xi, r in zip(x, rate):
        ax.text(xi, r / 2, f"{r:.1f}%", ha="center", va="center", fontsize=9, color="white", fontweight="bold")
    ax.set_ylim(0, max(high.max(), fair) * 1.25)
    ax.set_xticks(x, [f"seat {s}" for s in x])
    ax.legend(frameon=False, loc="upper right")
    style(ax, "Win rate by seat: turn-order advantage (bars: 95% interval)", "seat (turn order)", "win rate (%)")
    ax.grid(axis="y", color="#dddddd", linewidth=0.8)
    ax.grid(axis="x", visible=False)
    return save(fig, path, "Win rate by seat (seat numbers are positions in the turn order at the start of "
                            "the game). The intervals are per seat: with several "
                            "seats one may miss the fair share by chance; the report's seat-balance test "
                            "judges all seats at once.")


def game_length(games: pd.DataFrame, path: Path, unit: str = "turns") -> tuple[str, str]:
    """Histogram of game length with mean and median marked."""
    fig, ax = plt.subplots(figsize=(8, 3.8))
    t = games["turns"]
    bins = np.arange(t.min() - 0.5, t.max() + 1.5, max(1, int(np.ceil((t.max() - t.min() + 1) / 40))))
    ax.hist(t, bins=bins, color=PALETTE[2], alpha=0.85, weights=np.full(len(t), 100 / len(t)))
    ax.axvline(t.mean(), color="#333333", linestyle="--", linewidth=1.2, label=f"mean {t.mean():.1f}")
    ax.axvline(t.median(), color="#333333", linestyle=":", linewidth=1.2, label=f"median {t.median():.0f}")
    ax.legend(frameon=False)
    style(ax, f"Game length ({unit} per game)", f"{unit} per game", "share of games (%)")
    ax.grid(axis="y", color="#dddddd", linewidth=0.8)
    return save(fig, path, f"How long games last, in {unit}.")


def metric_box(df: pd.DataFrame, column: str, title: str, xlabel: str, path: Path) -> tuple[str, str]:
    """Box plot of a per-seat metric per strategy."""
    colours = strategy_colours(strategy_names(df))
    groups = [(str(k), g[column].dropna().to_numpy()) for k, g in df.groupby("strategy", observed=True)][::-1]
    fig, ax = plt.subplots(figsize=(8, 1.4 + 0.6 * len(groups)))
    horizontal = ({"orientation": "horizontal"} if tuple(map(int, matplotlib.__version__.split(".")[:2])) >= (3, 10)
                  else {"vert": False})
    bp = ax.boxplot([g for _, g in groups], patch_artist=True, widths=0.5, **horizontal,
                    medianprops={"color": "#222222"})
    for (name, _), box in zip(groups, bp["boxes"]):
        box.set_facecolor(colours[name])
        box.set_alpha(0.6)
    ax.set_yticks(range(1, len(groups) + 1), [k for k, _ in groups])
    style(ax, title, xlabel, "")
    return save(fig, path, title + " (box: middle half; whiskers: 1.5 IQR).")
