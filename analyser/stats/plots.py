"""Report plots (matplotlib, Agg backend - set here and only here): the public plotting API for
titles' ``figures`` modules (:func:`style`, :func:`save`, :func:`strategy_colours`,
:func:`strategy_names`, :func:`metric_box_counts`).  Every plot function writes one PNG and
returns ``(file name, caption)``; intervals are 95%.  User strings reach a plot only through
:func:`label`, which makes them safe for matplotlib.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import hashlib
import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.layout_engine import TightLayoutEngine  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from analyser.stats.analysis import decimals
from analyser.text import fixed, pct, wrap  # noqa: E402

PALETTE = ["#3a6ea5", "#e07b39", "#4f9d69", "#c44e52", "#8172b3", "#937860", "#da8bc3", "#8c8c8c",
           "#c9a227", "#2a9d8f", "#7a8c1e", "#1f4e79"]
DPI = 110

#: Fonts that claim every code point but draw placeholder boxes: never a real fallback.
_PLACEHOLDER_FONTS = ("Last Resort",)


def _register_system_fonts() -> None:
    """Make fonts installed after matplotlib built its font cache known to it (in this process):
    matplotlib reads the system's fonts once and caches the list, so a CJK font installed later
    would otherwise stay unused until the cache is deleted."""
    from matplotlib import font_manager
    known = {f.fname for f in font_manager.fontManager.ttflist}
    try:
        found = font_manager.findSystemFonts()
    except Exception:  # no font directories to read: nothing to add
        return
    for path in sorted(found):
        if path not in known:
            try:
                font_manager.fontManager.addfont(path)
            except Exception:  # an unreadable font file is simply not a candidate
                continue


def _fallback_order(entry) -> tuple:
    """Sort key of a fallback candidate: sans before serif and mono, upright regular first."""
    name = entry.name.lower()
    return ("serif" in name.replace("sans serif", ""), "mono" in name, entry.style != "normal",
            entry.weight not in (400, "normal", "regular"), entry.name)


@functools.lru_cache(maxsize=None)
def _font_charmaps() -> tuple[tuple[str, frozenset], ...]:
    """(family name, code points) of every installed font, default family first, then the
    fallback candidates (:func:`_fallback_order`)."""
    from matplotlib import font_manager, ft2font
    _register_system_fonts()
    default = font_manager.findfont(font_manager.FontProperties(family=plt.rcParams["font.family"]))
    out, seen = [], set()
    candidates = sorted(font_manager.fontManager.ttflist, key=_fallback_order)
    for path, name in [(default, None)] + [(f.fname, f.name) for f in candidates]:
        if path in seen or (name and name.startswith(_PLACEHOLDER_FONTS)):
            continue
        seen.add(path)
        try:
            font = ft2font.FT2Font(path)
            out.append((name or font.family_name, frozenset(font.get_charmap())))
        except Exception:  # an unreadable font file is simply not a candidate
            continue
    return tuple(out)


def _drawable(ch: str) -> bool:
    """True when the default font, or an installed fallback font, has a glyph for ``ch``;
    a fallback family that has it is added to matplotlib's family list."""
    code = ord(ch)
    if ch.isspace() or code < 0x80:
        return True
    fonts = _font_charmaps()
    if code in fonts[0][1]:
        return True
    for name, chars in fonts[1:]:
        if code in chars:
            family = list(plt.rcParams["font.family"])
            if name not in family:
                plt.rcParams["font.family"] = family + [name]
            return True
    return False


def label(text) -> str:
    """A user string made safe to show in a plot (legend, tick or title).

    * ``$`` becomes ``\\$`` so matplotlib never parses it as mathtext;
    * a leading ``_`` gets a space in front, so a legend does not hide the entry;
    * a character that no installed font can draw becomes its code point (``<U+68CB>``), so the
      label stays readable and no missing-glyph warning is raised.
    """
    text = "".join("\\$" if ch == "$" else ch if _drawable(ch) else f"<U+{ord(ch):04X}>" for ch in str(text))
    return " " + text if text.startswith("_") else text


def lattice_step(values) -> float | None:
    """The step of the lattice the values lie on: the greatest common divisor of their
    differences (10 for scores that are multiples of 10, 1 for most counts), found when the
    values are whole numbers after scaling by 1, 2, 4, 5, 10, 100 or 1000; None for fewer than
    two distinct values or values on no such lattice."""
    v = np.unique(np.asarray(values, dtype=float))
    v = v[np.isfinite(v)]
    if len(v) < 2:
        return None
    for m in (1, 2, 4, 5, 10, 100, 1000):
        scaled = v * m
        whole = np.round(scaled)
        if np.all(np.abs(scaled - whole) <= 1e-6 * max(1.0, float(np.abs(scaled).max()))):
            return float(np.gcd.reduce(np.diff(whole).astype(np.int64))) / m
    return None


def lattice_bins(values, most: int = 50) -> np.ndarray:
    """Histogram bin edges for ``values`` (shape (n,)): on a lattice (:func:`lattice_step`), bins a
    whole number of steps wide, centred on the lattice points, at most ``most`` (so no bin is
    emptier than its neighbours by construction); else ``most`` equal bins; a single value one
    bin of width 1 around it."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    lo, hi = float(v.min()), float(v.max())
    step = lattice_step(v)
    if step is None:
        if hi == lo:
            return np.array([lo - 0.5, lo + 0.5])
        return np.linspace(lo, hi, most + 1)
    points = int(round((hi - lo) / step)) + 1
    k = math.ceil(points / most)
    return lo - step / 2 + np.arange(math.ceil(points / k) + 1) * k * step


def bars(ax, values, weights, bins, **style) -> None:
    """A histogram of ``values`` (weighted by ``weights``) over the bin edges ``bins``, drawn as
    ``Axes.hist`` draws its default bars - touching filled bars from 0, no edges - but as one
    filled step outline (``Axes.stairs``) instead of a patch per bin, which costs matplotlib far
    less to lay out and draw.  ``style``: the patch's colour, alpha, ..."""
    heights, edges = np.histogram(values, bins=bins, weights=weights)
    ax.stairs(heights, edges, fill=True, linewidth=0, **style)


def short(text, width: int = 32) -> str:
    """A tick label of at most ``width`` characters a line, so a long label does not push the plot
    off its figure: words wrap at spaces onto a second line (never cut inside a word); a label
    that does not fit so (a long strategy spec, a path) is cut in the middle with ``...``, keeping
    its start and its end."""
    text = str(text)
    if len(text) <= width:
        return text
    lines = wrap(text, width)
    if len(lines) <= 2 and all(len(line) <= width for line in lines):
        return "\n".join(lines)
    keep = (width - 3) // 2
    return text[:keep] + "..." + text[-(width - 3 - keep):]


def safe_strategies(df: pd.DataFrame) -> pd.DataFrame:
    """A copy of a results frame whose ``strategy`` column holds :func:`label` s (same order)."""
    out = df.copy()
    s = out["strategy"]
    if hasattr(s, "cat"):
        out["strategy"] = s.cat.rename_categories([label(c) for c in s.cat.categories])
    else:
        out["strategy"] = s.map(label)
    return out


def style(ax, title: str, xlabel: str, ylabel: str) -> None:
    ax.set_title(title, fontsize=12, loc="left", fontweight="bold")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.spines[["top", "right"]].set_visible(False)
    ax.grid(axis="x", color="#dddddd", linewidth=0.8)
    ax.set_axisbelow(True)


@contextlib.contextmanager
def drawing():
    """Draw a batch of figures with the objects that already exist (imported modules, the run's
    frames) set aside by the garbage collector (``gc.freeze``), and given back to it after: the
    collections that drawing triggers then look at the figures' short-lived objects only, not at
    every object of the process."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def save(fig, path: Path, caption: str) -> tuple[str, str]:
    """Lay ``fig`` out tightly (as ``Figure.tight_layout``), write it to ``path`` and close it.

    The layout is applied once, without leaving a layout engine on the figure, so ``savefig``
    draws the figure once (a figure with an engine is drawn twice: a dry run, then the PNG)."""
    TightLayoutEngine().execute(fig)
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path.name, caption


def strategy_colours(names) -> dict[str, str]:
    """A stable colour per strategy name: a hash of the name picks a palette slot, so the same
    name has the same colour in every report.  When two names of one report hash to the same slot
    the later one (in sorted order) takes the next free slot."""
    out: dict[str, str] = {}
    taken: set[int] = set()
    for n in sorted({str(x) for x in names}):
        slot = int(hashlib.sha1(n.strip().encode("utf-8")).hexdigest(), 16) % len(PALETTE)
        for k in range(len(PALETTE)):
            if (slot + k) % len(PALETTE) not in taken or len(taken) >= len(PALETTE):
                slot = (slot + k) % len(PALETTE)
                break
        taken.add(slot)
        out[n] = PALETTE[slot]
    return out


def strategy_names(df: pd.DataFrame) -> list[str]:
    s = df["strategy"]
    return [str(x) for x in (s.cat.categories if hasattr(s, "cat") else pd.unique(s))]


#: The smallest size (points) of a heatmap cell's label: 9 pt is 14 pixels at :data:`DPI`.
LABEL_PT = 9.0


def fit_cell_labels(fig, texts: list, nx: int, ny: int, chars: int, most: float = 12.0) -> None:
    """Scale heatmap cell labels to their cells once the figure is laid out: each as large as
    its cell allows (``chars`` characters wide, one line high; ``texts``: ``(axes, Text)`` pairs,
    the axes showing ``nx`` x ``ny`` cells), between :data:`LABEL_PT` and ``most`` points.  Size
    the figure so that the cells hold ``chars`` characters at :data:`LABEL_PT` (about
    ``0.62 * chars * LABEL_PT + 8`` points wide)."""
    if not texts:
        return
    fig.canvas.draw()
    for ax, text in texts:
        box = ax.get_window_extent()
        w_pt = box.width / nx * 72 / fig.dpi
        h_pt = box.height / ny * 72 / fig.dpi
        text.set_fontsize(max(LABEL_PT, min((w_pt - 6) / (0.62 * chars), h_pt / 1.7, most)))


def rate_label(rate: float, places: int) -> str:
    """A win rate (0-1) as the plots print it, with ``places`` decimals: the figure the report's
    tables and the terminal show for it (:func:`analyser.text.pct`)."""
    return pct(rate, places)


def win_rate(summary: pd.DataFrame, players: int, path: Path, colours: dict | None = None,
             method: str = "Wilson", mirrors=()) -> tuple[str, str]:
    """Horizontal bars of win rate per strategy with 95% interval bars (``method`` names how they
    were computed) and the fair share.  ``mirrors``: strategies whose win rate is fixed by
    construction (a mirror match: they fill every seat of their games), drawn without an
    interval bar."""
    s = summary.iloc[::-1]
    colours = colours or strategy_colours(summary["strategy"])
    fig, ax = plt.subplots(figsize=(8, 1.5 + 0.55 * len(s)))
    y = np.arange(len(s))
    rate = s["win_rate"].to_numpy() * 100
    free = np.array([str(n) not in {str(f) for f in mirrors} for n in s["strategy"]])
    err = np.clip(np.vstack([rate - s["win_low"].to_numpy() * 100, s["win_high"].to_numpy() * 100 - rate]), 0, None)
    ax.barh(y, rate, color=[colours.get(str(n), PALETTE[0]) for n in s["strategy"]], height=0.6)
    if free.any():
        ax.errorbar(rate[free], y[free], xerr=err[:, free], fmt="none", ecolor="black", elinewidth=1.2, capsize=4)
    ax.axvline(100 / players, color="#555555", linestyle="--", linewidth=1,
               label=f"fair share 1/{players} = {fixed(100 / players, 1)}%")
    places = decimals((s["win_high"].to_numpy() - s["win_low"].to_numpy())[free] * 50) if free.any() else 1
    for yi, r, p, hi, f in zip(y, rate, s["win_rate"], s["win_high"].to_numpy() * 100, free):
        ax.text((hi if f else r) + 0.8, yi, rate_label(p, places) + ("" if f else " (fixed: fills every seat)"),
                va="center", fontsize=9)
    ax.set_yticks(y, [short(x) for x in s["strategy"]])
    ax.set_xlim(0, min(100, max(s["win_high"].max() * 100 * 1.2 + 6, 100 / players * 1.5)))
    ax.legend(frameon=False, loc="lower right", fontsize=8)
    style(ax, f"Win rate per strategy ({method} 95% CI)" if free.any() else "Win rate per strategy",
          "win rate (%, a shared win split)", "")
    return save(fig, path, "Win rate per strategy with 95% confidence intervals"
                + ("" if free.all() else " (none for a strategy that fills every seat: its win rate is 1/players "
                   "by construction)") + ". The dashed line is the fair share 1/players.")


def score_distribution_counts(counts: pd.DataFrame, path: Path, colours: dict | None = None,
                              unit: str = "points", order: list | None = None) -> tuple[str, str]:
    """Final score per strategy: overlaid step histograms for up to three strategies; from four
    on, small multiples (one panel per strategy on a shared score axis) so the curves do not blur
    into each other.  Means are marked.  ``counts``: a ``count`` column indexed by
    (``strategy``, ``score``); ``order``: the strategies in the order to draw them."""
    order = [str(s) for s in (order or pd.unique(counts.index.get_level_values("strategy")))]
    colours = colours or strategy_colours(order)
    scores = counts.index.get_level_values("score").to_numpy(dtype=float)
    bins = lattice_bins(scores[counts["count"].to_numpy(dtype=float) > 0], most=50)
    groups = []
    for name in order:
        try:
            sub = counts.xs(name, level="strategy")
        except KeyError:
            continue
        sub = sub[sub["count"] > 0]
        if len(sub):
            v, c = sub.index.to_numpy(dtype=float), sub["count"].to_numpy(dtype=float)
            groups.append((name, v, c, float((v * c).sum() / c.sum())))
    if len(groups) <= 3:
        fig, ax = plt.subplots(figsize=(8, 4.2))
        for i, (name, v, c, mean) in enumerate(groups):
            colour = colours.get(name, PALETTE[i % len(PALETTE)])
            w = c * 100 / c.sum()
            ax.hist(v, bins=bins, histtype="stepfilled", alpha=0.25, color=colour, weights=w)
            ax.hist(v, bins=bins, histtype="step", linewidth=1.6, color=colour, label=name, weights=w)
            ax.axvline(mean, color=colour, linestyle=":", linewidth=1.5)
        ax.legend(frameon=False, title="strategy (dotted: mean)")
        style(ax, "Final score distribution per strategy", f"final score ({unit})", "share of players (%)")
        ax.grid(axis="y", color="#dddddd", linewidth=0.8)
        return save(fig, path, "Distribution of final scores per strategy; each curve sums to 100%.")
    fig, axes = plt.subplots(len(groups), 1, figsize=(8, 1.0 + 1.25 * len(groups)), sharex=True, sharey=True)
    for i, (ax, (name, v, c, mean)) in enumerate(zip(axes, groups)):
        colour = colours.get(name, PALETTE[i % len(PALETTE)])
        bars(ax, v, c * 100 / c.sum(), bins, color=colour, alpha=0.8)
        ax.axvline(mean, color="#222222", linestyle=":", linewidth=1.3)
        ax.text(1.0, 0.85, f"{name}  (mean {fixed(mean, 1)})", transform=ax.transAxes, ha="right",
                va="top", fontsize=9, fontweight="bold", color=colour)
        ax.spines[["top", "right"]].set_visible(False)
        ax.grid(axis="both", color="#eeeeee", linewidth=0.8)
        ax.set_axisbelow(True)
    axes[0].set_title("Final score distribution, one panel per strategy (dotted: mean)", fontsize=12, loc="left",
                      fontweight="bold")
    axes[-1].set_xlabel(f"final score ({unit})")
    fig.supylabel("share of players (%)", fontsize=10)
    return save(fig, path, "Distribution of final scores, one panel per strategy on a shared axis; each panel "
                           "sums to 100%.")


def seat_win_rate(seats: pd.DataFrame, path: Path) -> tuple[str, str]:
    """Win rate by seat (turn order) with 95% Wilson intervals against the fair share."""
    fig, ax = plt.subplots(figsize=(8, 3.8))
    x = seats["seat"].to_numpy()
    rate = seats["win_rate"].to_numpy() * 100
    high = seats["win_high"].to_numpy() * 100
    err = np.clip(np.vstack([rate - seats["win_low"].to_numpy() * 100, high - rate]), 0, None)
    ax.bar(x, rate, color=PALETTE[0], width=0.6, yerr=err, capsize=5)
    fair = seats["fair_share"].iloc[0] * 100
    ax.axhline(fair, color="#c44e52", linestyle="--", linewidth=1.2, label=f"fair share {fixed(fair, 1)}%")
    places = decimals((high - seats["win_low"].to_numpy() * 100) / 2)  # as the tables
    for xi, r, p in zip(x, rate, seats["win_rate"]):
        ax.text(xi, r / 2, rate_label(p, places), ha="center", va="center", fontsize=9, color="white", fontweight="bold")
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


def game_length_counts(counts: pd.DataFrame, path: Path, unit: str = "turns") -> tuple[str, str]:
    """Histogram of game length with mean and median marked; ``counts``: games (column
    ``count``) per length (the index)."""
    from analyser.stats.streamed import quantile_from_counts
    fig, ax = plt.subplots(figsize=(8, 3.8))
    v = counts.index.to_numpy(dtype=float)
    c = counts["count"].to_numpy(dtype=float)
    v, c = v[c > 0], c[c > 0]
    bins = lattice_bins(v, most=40)
    if (lattice_step(v) or 0) >= 1 and float(lattice_step(v)).is_integer():  # whole lengths: whole ticks
        from matplotlib.ticker import MaxNLocator
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    bars(ax, v, c * 100 / c.sum(), bins, color=PALETTE[2], alpha=0.85)
    mean = float((v * c).sum() / c.sum())
    median = quantile_from_counts(v, c, 0.5)
    ax.axvline(mean, color="#333333", linestyle="--", linewidth=1.2, label=f"mean {fixed(mean, 1)}")
    ax.axvline(median, color="#333333", linestyle=":", linewidth=1.2, label=f"median {fixed(median, 0)}")
    ax.legend(frameon=False)
    style(ax, f"Game length ({unit} per game)", f"{unit} per game", "share of games (%)")
    ax.grid(axis="y", color="#dddddd", linewidth=0.8)
    return save(fig, path, f"How long games last, in {unit}.")


def _strategy_boxes(stats: list[dict], colours: dict, title: str, xlabel: str, path: Path) -> tuple[str, str]:
    """Horizontal boxes, one per entry of ``stats`` (the dicts ``Axes.bxp`` takes, bottom to top;
    ``label`` is the strategy name), filled in the strategy's colour."""
    fig, ax = plt.subplots(figsize=(8, 1.4 + 0.6 * len(stats)))
    horizontal = ({"orientation": "horizontal"} if tuple(map(int, matplotlib.__version__.split(".")[:2])) >= (3, 10)
                  else {"vert": False})
    bp = ax.bxp(stats, patch_artist=True, widths=0.5, **horizontal,
                boxprops={"linestyle": "solid"},  # what Axes.boxplot passes with patch_artist
                medianprops={"color": "#222222"})
    for st, box in zip(stats, bp["boxes"]):
        box.set_facecolor(colours[st["label"]])
        box.set_alpha(0.6)
    ax.set_yticks(range(1, len(stats) + 1), [short(st["label"]) for st in stats])
    style(ax, title, xlabel, "")
    return save(fig, path, title + " (box: middle half; whiskers: 1.5 IQR).")


def metric_box(df: pd.DataFrame, column: str, title: str, xlabel: str, path: Path) -> tuple[str, str]:
    """Box plot of a per-seat metric per strategy."""
    from matplotlib import cbook
    colours = strategy_colours(strategy_names(df))
    groups = [(str(k), g[column].dropna().to_numpy()) for k, g in df.groupby("strategy", observed=True)][::-1]
    stats = [cbook.boxplot_stats(values, labels=[name])[0] for name, values in groups]
    return _strategy_boxes(stats, colours, title, xlabel, path)


def metric_box_counts(counts: pd.Series, strategies: list[str], title: str, xlabel: str,
                      path: Path) -> tuple[str, str]:
    """Box plots of a per-seat metric per strategy from value counts: ``counts`` indexed by
    (``strategy``, value), how many rows had that value (0 or a NaN value ignored); ``strategies``:
    the run's order, first at the top (a name with no counts gets no box; unlisted names come
    last).  The quartiles, whiskers and outliers of the rows written out
    (:func:`analyser.stats.streamed.box_stats_from_counts`)."""
    from analyser.stats.streamed import box_stats_from_counts
    present = [str(s) for s in dict.fromkeys(counts.index.get_level_values(0))]
    order = [s for s in map(str, strategies) if s in present] + [s for s in present if s not in map(str, strategies)]
    by_name = {str(k): grp.droplevel(0) for k, grp in counts.groupby(level=0, observed=True, sort=False)}
    stats = [box_stats_from_counts(by_name[name].index.to_numpy(dtype=float), by_name[name].to_numpy(dtype=float), name)
             for name in order][::-1]
    stats = [st for st in stats if not np.isnan(st["med"])]
    return _strategy_boxes(stats, strategy_colours(list(map(str, strategies)) + order), title, xlabel, path)
