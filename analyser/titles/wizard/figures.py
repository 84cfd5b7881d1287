"""Wizard report figures: bidding tables per strategy and by round, a heat map of tricks taken
against tricks bid, and bid accuracy by round.

The figures are computed in the two steps of the streamed report (``Game.figure_sums`` in
:mod:`analyser.engine.core`, :mod:`analyser.stats.streamed`):

* ``figure_sums(game, results, extras)`` reduces one chunk of whole games - its rows of the
  ``rounds`` table (one row per round and seat) - to five small additive frames, whatever the
  number of games:

  ``wizard_round``    index (``strategy``, ``round``); columns ``rounds`` (count) and the sums
                      ``exact``, ``bid``, ``tricks``, ``over``, ``under``, ``points``
  ``wizard_heat``     index (``strategy``, ``tricks``, ``bid``); column ``rounds`` (count)
  ``wizard_wizards``  index (``strategy``, ``wizards``); columns ``rounds``, ``exact``
  ``wizard_jesters``  index (``strategy``, ``jesters``); columns ``rounds``, ``exact``
  ``wizard_order``    index (``strategy``); column ``order_min``: the strategy's place in the
                      run's line-up, so the tables list strategies in run order
  ``round_comp_*``    the component sums (:func:`analyser.stats.components.chunk_sums`) of the hands
                      measured per round (:func:`round_component_sums`)

  (``over``: tricks short of the bid, ``under``: tricks beyond it, 0 when met.)  Their size is
  bounded by strategies x rounds x bids x tricks, never by games or rows.
* ``figure_tables_from(game, sums)`` returns ``[(caption, DataFrame)]`` and ``plots_from(game,
  sums, outdir, strategies)`` writes PNGs and returns ``[(file name, caption)]``.

pandas, numpy and matplotlib are used only inside the functions, so importing the title stays
light.
"""

from __future__ import annotations

import numpy as np
from analyser.titles.wizard.rules import JESTER_IDS, TRUMP_IDS, WIZARD_IDS

#: Columns of the heat map with fewer rounds than this stay grey (too few to show a share).
HEATMAP_MIN_ROUNDS = 10


def _strategy_codes(results, rounds):
    """``(codes, names, place)`` for the rows of ``rounds``: each row's strategy as an int code
    into ``names`` (-1: no strategy), and per name its place in the run's line-up.  The rounds
    table's own ``strategy`` column is used when it has one (analyser writes it); otherwise each
    row is matched to its results row on (``run_id``, ``game_index``, ``seat``)."""
    import pandas as pd

    if "strategy" in rounds.columns:
        s = rounds["strategy"]
    else:
        line_up = results["strategy"]
        if not isinstance(line_up.dtype, pd.CategoricalDtype):
            line_up = line_up.astype(str).astype("category")
        at = _match_rows(results, rounds)
        s = pd.Series(pd.Categorical.from_codes(np.where(at >= 0, line_up.cat.codes.to_numpy()[at], -1),
                                                categories=line_up.cat.categories))
    if isinstance(s.dtype, pd.CategoricalDtype):
        codes = s.cat.codes.to_numpy()
        cats = [str(c) for c in s.cat.categories]
        order = np.arange(len(cats))
    else:
        codes, uniques = pd.factorize(s.astype(object).where(s.notna(), None), sort=False)
        cats = [str(c) for c in uniques]
        order = np.arange(len(cats))
        line_up = results["strategy"] if results is not None and "strategy" in results.columns else None
        if line_up is not None and isinstance(line_up.dtype, pd.CategoricalDtype):
            place = {str(c): i for i, c in enumerate(line_up.cat.categories)}
            order = np.array([place.get(c, len(place) + i) for i, c in enumerate(cats)])
    if "strategy" in rounds.columns and results is not None and len(cats):
        cats = _results_names(results, rounds, codes, cats)
    # several categories may print the same: merge them under one name
    names = list(dict.fromkeys(cats))
    remap = np.array([names.index(c) for c in cats] + [-1], dtype=np.int64)
    place = np.full(len(names), np.inf)
    for c, o in zip(cats, order):
        place[names.index(c)] = min(place[names.index(c)], o)
    return remap[np.where(codes < 0, len(cats), codes)], names, place


def _match_rows(results, rows):
    """Per row of ``rows``, the position in ``results`` of the row with the same (``run_id``,
    ``game_index``, ``seat``) - ``run_id`` only when both frames have it - or -1 for none.
    Integer keys and a binary search, no merge: cheap on a chunk of 600,000 rounds rows."""
    import pandas as pd

    if not len(results) or not all(c in f.columns for c in ("game_index", "seat") for f in (results, rows)):
        return np.full(len(rows), -1, dtype=np.int64)
    with_runs = "run_id" in results.columns and "run_id" in rows.columns
    runs = pd.Index(pd.unique(results["run_id"].astype(str))) if with_runs else None

    def run_pos(col):
        if isinstance(col.dtype, pd.CategoricalDtype):
            where = runs.get_indexer(col.cat.categories.astype(str))
            codes = col.cat.codes.to_numpy()
            return np.where(codes >= 0, where[codes], -1)
        return runs.get_indexer(col.astype(str))

    games = max(int(results["game_index"].max()), int(rows["game_index"].max())) + 1
    seats = max(int(results["seat"].max()), int(rows["seat"].max())) + 1

    def key(frame):
        k = frame["game_index"].to_numpy().astype(np.int64) * seats + frame["seat"].to_numpy().astype(np.int64)
        if with_runs:
            r = run_pos(frame["run_id"])
            k = np.where(r >= 0, r * (games * seats) + k, -1)
        return k

    have = key(results)
    order = np.argsort(have, kind="stable")  # the first of repeated keys comes first
    sorted_keys = have[order]
    want = key(rows)
    i = np.minimum(np.searchsorted(sorted_keys, want), len(sorted_keys) - 1)
    hit = (sorted_keys[i] == want) & (want >= 0)
    return np.where(hit, order[i], -1)


def _results_names(results, rounds, codes, cats):
    """``cats`` (the rounds table's strategy names, by code) as the results frame spells them:
    one rounds row per strategy is looked up in ``results`` on (``run_id``, ``game_index``,
    ``seat``), so a results frame whose names were made plot-safe names the sums the same way.
    A name not found stays as it is."""
    if "strategy" not in results.columns:
        return cats
    # one row per game and seat (the first round) is enough to meet every strategy of the chunk
    first_round = np.flatnonzero(rounds["round"].to_numpy() == rounds["round"].min()) if "round" in rounds.columns \
        else np.arange(len(rounds))
    found, first = np.unique(codes[first_round], return_index=True)
    keep = found >= 0
    at = _match_rows(results, rounds.iloc[first_round[first[keep]]])
    names = results["strategy"].to_numpy()
    hit = [names[i] if i >= 0 else None for i in at]
    out = list(cats)
    for code, name in zip(found[keep], hit):
        if name is not None and name == name:
            out[code] = str(name)
    return out


def _sum_by(keys, labels, level_names, weights):
    """Counts and sums of the rows grouped by integer ``keys`` (one 0-based code array per
    level, the strategy first; ``labels[i]`` maps level i's codes to its index values): a frame
    with the non-empty groups only, column ``rounds`` (count) then one column per ``weights``
    entry (name -> per-row values, or a function that makes them: called one at a time, so
    only one column of per-row floats is alive at once)."""
    import pandas as pd

    sizes = tuple(len(l) for l in labels)
    flat = np.ravel_multi_index(keys, sizes) if len(keys) > 1 else keys[0]
    n = int(np.prod(sizes))
    count = np.bincount(flat, minlength=n)
    keep = np.flatnonzero(count)
    where = np.unravel_index(keep, sizes)
    index = pd.MultiIndex.from_arrays([np.asarray(labels[i], dtype=object if i == 0 else np.int64)[where[i]]
                                       for i in range(len(keys))], names=level_names)
    data = {"rounds": count[keep].astype(float)}
    for name, w in weights.items():
        data[name] = np.bincount(flat, weights=w() if callable(w) else w, minlength=n)[keep]
    return pd.DataFrame(data, index=index)


def figure_sums(game, results, extras):
    """The additive sums (see the module docstring) of one chunk of whole games: ``results`` its
    results rows, ``extras["rounds"]`` its rounds rows (columns ``round``, ``bid``, ``tricks``,
    ``points``, ``exact``, ``wizards``, ``jesters`` and either ``strategy`` or the keys
    ``game_index``, ``seat`` (and ``run_id``) of the results rows).  ``{}`` without a rounds
    table.  One ``numpy.bincount`` per sum, no per-row Python: about 0.1 s and 35 MB of working
    memory for a chunk of 10,000 games of 4 players (600,000 rounds rows); the per-round component
    sums (:func:`round_component_sums`) add about 0.14 s of CPU per 24,000 rounds rows (400 games of
    4 players), so some 3.5 s for such a chunk."""
    import pandas as pd

    rounds = extras.get("rounds") if extras else None
    if rounds is None or len(rounds) == 0:
        return {}
    code, names, place = _strategy_codes(results, rounds)
    mine = code >= 0
    if not mine.all():
        rounds, code = rounds[mine], code[mine]
    if not len(rounds):
        return {}

    def col(name):
        return rounds[name].to_numpy().astype(np.int64)

    def value(name):
        return lambda: rounds[name].to_numpy(dtype=float)

    def offset(values):
        lo = int(values.min())
        return values - lo, np.arange(lo, int(values.max()) + 1)

    strat = np.asarray(names, dtype=object)
    bid, tricks = col("bid"), col("tricks")
    round_key, round_labels = offset(col("round"))
    out = {"wizard_round": _sum_by(
        [code, round_key], [strat, round_labels], ["strategy", "round"],
        {"exact": value("exact"), "bid": value("bid"), "tricks": value("tricks"),
         "over": lambda: np.clip(bid - tricks, 0, None).astype(float),
         "under": lambda: np.clip(tricks - bid, 0, None).astype(float), "points": value("points")})}
    del round_key
    top = int(max(bid.max(), tricks.max()))
    cards = np.arange(top + 1)  # bids and tricks are 0 or more
    out["wizard_heat"] = _sum_by([code, tricks, bid], [strat, cards, cards], ["strategy", "tricks", "bid"], {})
    for name in ("wizards", "jesters"):
        key, labels = offset(col(name))
        out[f"wizard_{name}"] = _sum_by([code, key], [strat, labels], ["strategy", name],
                                        {"exact": value("exact")})
    seen = np.flatnonzero(np.bincount(code, minlength=len(names)))
    out["wizard_order"] = pd.DataFrame({"order_min": place[seen].astype(float)},
                                       index=pd.Index(strat[seen], name="strategy"))
    out.update(round_component_sums(rounds, strat[code]))
    return out


def round_component_sums(rounds, strategy):
    """The hands measured per round: :func:`analyser.stats.components.chunk_sums` over one row per round
    and seat (the rounds rows; ``strategy`` each row's strategy name), with ``y`` = the share of
    that round's tricks the seat took (tricks / cards dealt, 0-1), the components the hand of
    that round held (``"k Wizards"``, ``"k Jesters"``, ``"k trumps"`` as
    :meth:`analyser.titles.wizard.rules.Wizard.components` names them, one copy each), and one
    intercept per strategy, round and seat (the "game" of the sums is the game and round).  So an
    effect compares hands of the same round size, seat and strategy.  Keys ``round_comp_*``."""
    import pandas as pd

    from analyser.stats import components

    rnd = rounds["round"].to_numpy(dtype=np.int64)
    gi = rounds["game_index"].to_numpy(dtype=np.int64) * 64 + rnd  # at most 60 rounds
    seat = rounds["seat"].to_numpy(dtype=np.int64)
    cell = pd.Series([f"{a} / round {b}" for a, b in zip(strategy, rnd)])
    res = pd.DataFrame({"game_index": gi, "seat": seat, "strategy": cell.to_numpy(),
                        "win": rounds["tricks"].to_numpy(dtype=float) / rnd})
    parts = []
    for name, ids in (("wizards", WIZARD_IDS), ("jesters", JESTER_IDS), ("trumps", TRUMP_IDS)):
        if name not in rounds.columns:
            continue
        v = rounds[name].to_numpy(dtype=float)
        keep = ~np.isnan(v) & ((v > 0) if name != "trumps" else True)
        labels = np.asarray(ids, dtype=object)
        parts.append(pd.DataFrame({"game_index": gi[keep], "seat": seat[keep],
                                   "component": labels[v[keep].astype(np.int64)], "count": 1}))
    comp = pd.concat(parts, ignore_index=True).sort_values(["game_index", "seat"], kind="stable")
    sums = components.chunk_sums(res, comp)
    return {"round_" + k: v for k, v in sums.items()}


def _ordered(sums):
    """The strategies of ``sums`` in run order."""
    order = sums.get("wizard_order")
    names = list(dict.fromkeys(str(s) for s in sums["wizard_round"].index.get_level_values("strategy")))
    if order is None:
        return names
    rank = {str(k): v for k, v in order["order_min"].items()}
    return sorted(names, key=lambda s: (rank.get(s, float("inf")), names.index(s)))


def figure_tables_from(game, sums):
    """Per strategy: bid accuracy, over/under-bids, points per round; exact bids and points by
    round; exact bids by the number of Wizards and of Jesters in hand.  From combined
    :func:`figure_sums`; ``[]`` without them."""
    import pandas as pd

    if not sums or "wizard_round" not in sums or not len(sums["wizard_round"]):
        return []
    names = _ordered(sums)
    by_round = sums["wizard_round"]
    tot = by_round.groupby(level="strategy", sort=False).sum().reindex(names)
    n = tot["rounds"]
    per = pd.DataFrame({"strategy": names, "rounds": n.astype("int64").to_numpy(),
                        "exact_rate": (tot["exact"] / n).to_numpy(), "mean_bid": (tot["bid"] / n).to_numpy(),
                        "mean_tricks": (tot["tricks"] / n).to_numpy(), "over_bid": (tot["over"] / n).to_numpy(),
                        "under_bid": (tot["under"] / n).to_numpy(),
                        "points_per_round": (tot["points"] / n).to_numpy()})
    out = [("Wizard bidding per strategy (means per round; over bid / under bid: tricks short of / "
            "beyond the bid, 0 when met)", per)]

    def pivot(frame, value, by, scale=1.0):
        t = (frame[value] / frame["rounds"]).unstack("strategy") * scale
        t = t[[s for s in names if s in t.columns]].sort_index()
        t.columns = [str(c) for c in t.columns]
        t.index = t.index.astype("int64")
        t.index.name = by
        return t.reset_index()

    out.append(("Exact bids (%) by round (round r deals r cards), per strategy",
                pivot(by_round, "exact", "round", 100)))
    out.append(("Mean points by round, per strategy", pivot(by_round, "points", "round")))
    for col, label in (("wizards", "Wizards"), ("jesters", "Jesters")):
        frame = sums[f"wizard_{col}"]
        counts = frame["rounds"].groupby(level=col).sum().astype("int64").rename("rounds")
        counts.index = counts.index.astype("int64")
        counts = counts.sort_index().reset_index()
        out.append((f"Exact bids (%) by number of {label} in hand, per strategy (rounds: all strategies)",
                    counts.merge(pivot(frame, "exact", col, 100), on=col)))
    return out


def plots_from(game, sums, outdir, strategies):
    """Heat maps of tricks taken against tricks bid (one panel per strategy) and the share of
    exact bids by round, from combined :func:`figure_sums`.  ``strategies``: the run's strategy
    names in order (plot-safe, as the sums' ``strategy`` levels are).  ``[]`` without sums."""
    from analyser.stats import plots as base  # sets the Agg backend
    from analyser.stats.analysis import wilson

    import matplotlib.pyplot as plt

    if not sums or "wizard_heat" not in sums or not len(sums["wizard_heat"]):
        return []
    heat = sums["wizard_heat"]["rounds"]
    by_round = sums["wizard_round"]
    present = list(dict.fromkeys(str(s) for s in heat.index.get_level_values("strategy")))
    names = [str(s) for s in strategies if str(s) in present]
    names += [s for s in _ordered(sums) if s not in names and s in present]
    colours = base.strategy_colours(list(strategies) + names)
    top = int(max(heat.index.get_level_values("tricks").max(), heat.index.get_level_values("bid").max()))
    per = by_round.groupby(level="strategy", sort=False)[["rounds", "exact"]].sum()
    k = len(names)
    cols = 2 if k == 4 else min(k, 3)
    rows = (k + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.3 * cols + 1.4, 4.1 * rows + 1.0), squeeze=False,
                             constrained_layout=True)
    cmap = plt.get_cmap("viridis").with_extremes(bad="#e8e8e8")
    image = None
    for i, name in enumerate(names):
        ax = axes[i // cols][i % cols]
        cells = heat.xs(name, level="strategy")
        grid = np.zeros((top + 1, top + 1))
        grid[cells.index.get_level_values("tricks").to_numpy(dtype=int),
             cells.index.get_level_values("bid").to_numpy(dtype=int)] = cells.to_numpy()
        per_bid = grid.sum(axis=0, keepdims=True)
        share = np.where(per_bid >= HEATMAP_MIN_ROUNDS, grid / np.maximum(per_bid, 1) * 100, np.nan)
        image = ax.imshow(share, origin="lower", cmap=cmap, vmin=0, vmax=100, aspect="equal",
                          interpolation="nearest")
        ax.plot([-0.5, top + 0.5], [-0.5, top + 0.5], color="white", linewidth=0.9, linestyle=":")
        n = int(per.loc[name, "rounds"])
        ax.set_title(f"{name}\nexact {per.loc[name, 'exact'] / n * 100:.1f}% of {n} rounds", fontsize=10)
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
    fig.set_dpi(base.DPI)  # lay out at the PNG's resolution, once: savefig then draws without a layout pass
    fig.get_layout_engine().execute(fig)
    fig.set_layout_engine("none")
    fig.savefig(path, dpi=base.DPI)
    plt.close(fig)
    figures = [(path.name, "Tricks taken (rows) against tricks bid (columns), per strategy. Each column "
                           "shows how the rounds with that bid ended and sums to 100%; the dotted "
                           "diagonal is an exact bid, cells above it took more tricks than bid. Grey: "
                           f"bids made in fewer than {HEATMAP_MIN_ROUNDS} rounds.")]

    fig, ax = plt.subplots(figsize=(9.5 if len(names) > 4 else 8, 4.2))
    for name in names:
        by = by_round.xs(name, level="strategy").sort_index()
        by = by[by["rounds"] > 0]
        rate = (by["exact"] / by["rounds"]).to_numpy()
        x = by.index.to_numpy(dtype=int)
        lo, hi = wilson(rate, by["rounds"].to_numpy())
        ax.plot(x, rate * 100, marker="o", markersize=3.5, color=colours[name], label=name)
        ax.fill_between(x, lo * 100, hi * 100, color=colours[name], alpha=0.15, linewidth=0)
    ax.set_ylim(0, 100)
    ax.set_xticks(sorted(int(r) for r in set(by_round.index.get_level_values("round"))))
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
