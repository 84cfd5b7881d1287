"""Tsuro of the Seas report figures: elimination tables, a 7x7 heat map of where ships were
eliminated and the causes per strategy.

The report reads a run chunk by chunk (:mod:`analyser.stats.streamed`), so the figures come in two steps:

* ``figure_sums(game, results, extras)`` reduces one chunk of whole games (a game is
  (``run_id``, ``game_index``); its per-game figures are taken inside the chunk) to small
  additive frames (``{name: DataFrame}``; see ``Game.figure_sums``), each bounded by the seats,
  strategies, causes, ends, squares or turn counts it is indexed by, never by the games:

  - ``"seat"``: index ``seat``; ``ships`` (rows), ``survived_sum``/``survived_n`` (ships afloat at
    the end / rows where given), ``elim_turn_sum``/``elim_turn_n`` (over the sunk ships);
  - ``"seat_elim_turn"``: index (``seat``, ``elim_turn``); ``ships``: sunk ships per turn sunk;
  - ``"causes"``: index ``strategy``; one column per cause (edge, daikaiju, collision, loop,
    survived, and any other): ships that ended that way;
  - ``"survivors"``: index ``survivors`` (ships afloat at the end of a game); ``games``, ``shared``
    (games whose top seat took less than a whole win);
  - ``"ends"``: index ``end`` (how the game ended); ``games``, ``shared``, ``turns_sum``,
    ``turns_n``;
  - ``"turns"``: index ``turns`` (game length); ``games``;
  - ``"squares"``: index (``elim_row``, ``elim_col``); ``ships`` sunk on that square;
  - ``"placements"``: index ``tile`` (its index in ``TILE_NAMES``); ``placed`` (placements of it),
    ``kept`` (those its own ship stayed afloat through; the ``placements`` metric).

* ``figure_tables_from(game, sums)`` returns ``[(caption, DataFrame)]`` and ``plots_from(game,
  sums, outdir, strategies)`` writes PNGs and returns ``[(file name, caption)]``.

pandas, numpy and matplotlib are used only inside the functions, so importing the title stays
light.
"""

from __future__ import annotations

import numpy as np

from analyser.titles.tsuro_seas.rules import SIZE

#: The causes shown, in order (the ``cause`` metric's values).
CAUSES = ("edge", "daikaiju", "collision", "loop", "survived")


def figure_sums(game, results, extras):
    """Additive sums of one chunk of whole games (see the module docstring)."""
    import pandas as pd

    from analyser.stats.streamed import game_ids

    df = results
    seat_no = df["seat"].to_numpy()
    g = df.groupby("seat", observed=True)
    seat = pd.DataFrame({"ships": g.size(), "survived_sum": g["survived"].sum(),
                         "survived_n": g["survived"].count(), "elim_turn_sum": g["elim_turn"].sum(),
                         "elim_turn_n": g["elim_turn"].count()})
    elim = df["elim_turn"].to_numpy(dtype=float)
    sunk = ~np.isnan(elim)
    sunk_turns = (pd.DataFrame({"seat": seat_no[sunk], "elim_turn": elim[sunk]})
                  .groupby(["seat", "elim_turn"]).size().rename("ships").to_frame())
    known = df["cause"].notna().to_numpy()
    causes = (pd.DataFrame({"strategy": df["strategy"][known], "cause": df["cause"][known].astype(str)})
              .groupby(["strategy", "cause"], observed=True).size().unstack("cause", fill_value=0))
    causes.columns = [str(c) for c in causes.columns]
    # per game (a game is (run_id, game_index); a chunk holds whole games)
    code = game_ids(df).groupby(list(game_ids(df).columns), sort=False, observed=True).ngroup().to_numpy()
    first = np.unique(code, return_index=True)[1]  # each game's first row
    n = len(first)
    win = df["win"].to_numpy(dtype=float)
    top = np.full(n, -np.inf)
    np.maximum.at(top, code, np.where(np.isnan(win), -np.inf, win))
    per_game = pd.DataFrame({
        "survivors": np.bincount(code, weights=df["survived"].fillna(0).to_numpy(dtype=float), minlength=n),
        "shared": (top < 1.0 - 1e-9).astype(np.int64),
        "turns": df["turns"].to_numpy(dtype=float)[first],
        "end": df["end"].to_numpy()[first]})
    g = per_game.astype({"survivors": np.int64}).groupby("survivors")
    survivors = pd.DataFrame({"games": g.size(), "shared": g["shared"].sum()})
    g = per_game[pd.notna(per_game["end"])].astype({"end": str}).groupby("end")
    ends = pd.DataFrame({"games": g.size(), "shared": g["shared"].sum(), "turns_sum": g["turns"].sum(),
                         "turns_n": g["turns"].count()})
    turns = per_game["turns"].dropna().astype(np.int64).value_counts().rename("games").to_frame()
    turns.index.name = "turns"
    row, col = df["elim_row"].to_numpy(dtype=float), df["elim_col"].to_numpy(dtype=float)
    on = ~(np.isnan(row) | np.isnan(col))
    squares = (pd.DataFrame({"elim_row": row[on].astype(int), "elim_col": col[on].astype(int)})
               .groupby(["elim_row", "elim_col"]).size().rename("ships").to_frame())
    out = {"seat": seat, "seat_elim_turn": sunk_turns, "causes": causes, "survivors": survivors,
           "ends": ends, "turns": turns, "squares": squares}
    codes = df["placements"].dropna().astype(str).str.split().explode().dropna()
    pair = codes.str.partition(":")
    tile = pair[0].astype(np.int64).to_numpy()
    kept = pair[2].astype(np.int64).to_numpy()
    out["placements"] = (pd.DataFrame({"tile": tile, "placed": np.ones(len(tile), dtype=np.int64), "kept": kept})
                         .groupby("tile").sum())
    return out


def _cause_shares(causes):
    """Share of each strategy's ships per cause (rows sum to 1 over every cause seen), in the
    columns of :data:`CAUSES`."""
    total = causes.sum(axis=1)
    return causes.reindex(columns=list(CAUSES), fill_value=0).div(total, axis=0)


def figure_tables_from(game, sums):
    """Elimination turn per seat, causes of elimination per strategy, survivors per game,
    shared-win rate by how games ended, and game length."""
    import pandas as pd

    from analyser.stats.streamed import quantile_from_counts

    if "seat" not in sums or not len(sums["seat"]):
        return []

    def ratio(num, den):
        num, den = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)

    tables = []
    s = sums["seat"]
    elim = sums.get("seat_elim_turn")
    medians = []
    for seat_no in s.index:
        if elim is not None and seat_no in elim.index.get_level_values("seat"):
            part = elim.xs(seat_no, level="seat")["ships"]
            medians.append(quantile_from_counts(part.index.to_numpy(dtype=float), part.to_numpy(), 0.5))
        else:
            medians.append(np.nan)
    seat = pd.DataFrame({"seat": s.index.to_numpy(), "ships": s["ships"].to_numpy().astype(np.int64),
                         "survived": ratio(s["survived_sum"], s["survived_n"]),
                         "mean_elim_turn": ratio(s["elim_turn_sum"], s["elim_turn_n"]),
                         "median_elim_turn": medians})
    seat.attrs["percent"] = ["survived"]  # shares: shown as percentages
    tables.append(("Elimination turn per seat (among sunk ships; survived = share afloat at the end)", seat))
    causes = _cause_shares(sums.get("causes", pd.DataFrame()))
    causes.insert(0, "strategy", causes.index.array)
    causes = causes.reset_index(drop=True)
    causes.attrs["percent"] = [c for c in causes.columns if c != "strategy"]
    tables.append(("Fate of ships per strategy (share of ships: cause of elimination, or survived)", causes))
    surv = sums["survivors"]
    n_games = surv["games"].sum()
    tables.append(("Survivors at the end of the game", pd.DataFrame(
        {"survivors": surv.index.to_numpy().astype(int), "games": surv["games"].to_numpy().astype(np.int64),
         "share": surv["games"].to_numpy() / n_games}).pipe(_percent, ["share"])))
    turns = sums.get("turns", pd.DataFrame({"games": []}))
    values, counts = turns.index.to_numpy(dtype=float), turns["games"].to_numpy(dtype=float)
    e = sums.get("ends", pd.DataFrame(columns=["games", "shared", "turns_sum", "turns_n"]))
    ends = pd.DataFrame({"end": e.index.astype(str), "games": e["games"].to_numpy().astype(np.int64),
                         "shared_win_rate": ratio(e["shared"], e["games"]),
                         "mean_turns": ratio(e["turns_sum"], e["turns_n"])})
    total = pd.DataFrame({"end": ["all games"], "games": [int(n_games)],
                          "shared_win_rate": [float(ratio(surv["shared"].sum(), n_games))],
                          "mean_turns": [float(ratio(np.sum(values * counts), counts.sum()))]})
    tables.append(("Shared-win rate by how games ended (last_ship, all_sunk = simultaneous elimination, "
                   "no_tiles, max_turns = cap)", pd.concat([ends, total], ignore_index=True)))
    tables[-1][1].attrs["percent"] = ["shared_win_rate"]
    tables.append(("Game length in turns", pd.DataFrame(
        {"games": [int(n_games)], "mean": [float(ratio(np.sum(values * counts), counts.sum()))],
         "median": [quantile_from_counts(values, counts, 0.5)],
         "p5": [quantile_from_counts(values, counts, 0.05)],
         "p95": [quantile_from_counts(values, counts, 0.95)],
         "max": [turns.index[counts > 0].max() if (counts > 0).any() else np.nan]})))
    return tables


def plots_from(game, sums, outdir, strategies):
    """A 7x7 heatmap of where ships were eliminated, and the causes per strategy (strategies in
    the run's order, first at the bottom)."""
    from analyser.stats import plots  # first: it sets the Agg backend
    import matplotlib.pyplot as plt
    import pandas as pd

    out = []
    squares = sums.get("squares")
    counts = np.zeros((SIZE, SIZE))
    if squares is not None:
        for (r, c), n in squares["ships"].items():
            counts[int(r), int(c)] += n
    n_sunk = int(counts.sum())
    share = counts / max(1, n_sunk) * 100
    fig, ax = plt.subplots(figsize=(6.4, 5.6))
    im = ax.imshow(share, cmap="magma_r", origin="upper", vmin=0)  # 0 = white: no false hotspots
    vmax = share.max() if share.max() > 0 else 1
    texts = [(ax, ax.text(c, r, f"{share[r, c]:.1f}", ha="center", va="center", fontsize=plots.LABEL_PT,
                          color="white" if share[r, c] > 0.6 * vmax else "#222222"))
             for r in range(SIZE) for c in range(SIZE)]
    ax.set_xticks(range(SIZE))
    ax.set_yticks(range(SIZE))
    ax.set_xlabel("board column (0 = left)")
    ax.set_ylabel("board row (0 = top)")
    ax.set_title(f"Where ships were eliminated ({n_sunk} ships, % per square)", fontsize=11,
                 loc="left", fontweight="bold")
    cb = fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    cb.set_label("share of eliminated ships (%)")
    fig.tight_layout()  # as plots.save lays it out, so the labels fit the final cells
    plots.fit_cell_labels(fig, texts, SIZE, SIZE, max(len(t.get_text()) for _, t in texts))
    out.append(plots.save(fig, outdir / "elimination_heatmap.png",
                           "Where ships were eliminated: the square each sunk ship was on (for a loop "
                           "or head-on meeting the new tile's square), as a share of all eliminations."))
    causes = list(CAUSES)
    tab = sums.get("causes", pd.DataFrame())
    tab = tab[tab.sum(axis=1) > 0]
    names = [str(n) for n in tab.index]
    order = [n for n in map(str, strategies) if n in names] + [n for n in names if n not in map(str, strategies)]
    tab = _cause_shares(tab).set_axis(names).reindex(order) * 100
    if not len(tab):
        return out
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


def _percent(table, columns):
    """``table`` with ``columns`` marked as shares, which the report shows as percentages."""
    table.attrs["percent"] = list(columns)
    return table
