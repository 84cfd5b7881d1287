"""Report figures of Kingdomino Duel: the score split into domain and spell points, the spells
gained and by whom (A or B in the round of the gain; first mover = seat 0, A in round 1, or
second mover), each spell's use by strategy and the win rate of the seats that used it, rounds
played, empty cells and how games ended.

The figures are computed in two steps (see ``Game.figure_sums`` in :mod:`analyser.engine.core`):
:func:`figure_sums` reduces one chunk of whole games to three small additive frames, and
:func:`figure_tables_from` / :func:`plots_from` build the tables and PNGs from the chunks'
combined sums:

* ``kd_strategy`` - index ``strategy``: ``players`` (player-games), ``order_min`` (the
  strategy's place in the run's order), sums of the per-player metrics (``score``,
  ``domain_points``, ...), ``castle_bonus`` (players who earned the castle bonus),
  ``gained_S1`` .. ``gained_S6`` (players who gained each spell) and ``used_S1`` .. ``used_S6``
  (players who used it);
* ``kd_spell_value`` - index (``spell``, ``group``: ``used`` or ``not used``): ``seats`` and
  ``wins`` (win shares summed; a shared win counts 1/k) - the win rate of the seats that used
  each spell and of those that did not;
* ``kd_spells`` - index (``spell``, ``mover``, ``role``): ``gains`` and ``round_sum`` (the sum of
  the rounds of those gains);
* ``kd_ends`` - index ``end``: ``games``, ``rounds_sum`` and ``empty_sum`` (empty cells left on
  both maps, summed over games).

pandas and the plotting API are imported inside the functions, so the rules never load them.
"""

from __future__ import annotations

import numpy as np

SPELL_NAMES = ("S1", "S2", "S3", "S4", "S5", "S6")
SPELL_HELP = {"S1": "ignore connection", "S2": "dice apart", "S3": "two dice at once", "S4": "turn a die",
              "S5": "+3 per domain", "S6": "add a cross"}

#: Per-player metrics summed per strategy (their means make the score-split table).
_METRICS = ("score", "domain_points", "spell_points", "spells", "spells_as_a", "spells_as_b", "largest_domain",
            "crosses", "empty_cells", "passes")


def spell_gains(results):
    """One row per spell gained: game_index (and run_id when present), spell, seat, strategy,
    round, role ("A"/"B": the seat's role in that round), mover ("first" = seat 0, "second")."""
    import pandas as pd

    frames = []
    keys = [c for c in ("run_id", "game_index") if c in results.columns]
    for k, name in enumerate(SPELL_NAMES):
        col = f"gained_s{k + 1}"
        got = results[results[col] > 0]
        rnd = got[col].astype(int)
        seat = got["seat"].astype(int)
        first = seat == 0
        frames.append(pd.DataFrame({**{c: got[c].to_numpy() for c in keys}, "spell": name,
                                    "seat": seat.to_numpy(), "strategy": got["strategy"].astype(str).to_numpy(),
                                    "round": rnd.to_numpy(),
                                    "role": (((rnd % 2) == 1) == first).map({True: "A", False: "B"}).to_numpy(),
                                    "mover": first.map({True: "first", False: "second"}).to_numpy()}))
    return pd.concat(frames, ignore_index=True)


def figure_sums(game, results, extras):
    """Additive sums of one chunk of whole games (the frames named in the module docstring)."""
    import pandas as pd

    from analyser.stats.streamed import strategy_order

    if not len(results):
        return {}
    df = results
    strategy = df["strategy"].astype(str).to_numpy()
    per = pd.DataFrame({"strategy": strategy, "players": 1.0, "order_min": strategy_order(df)})
    for c in _METRICS:
        per[c] = df[c].to_numpy(dtype=float)
    per["castle_bonus"] = (df["castle_round"].to_numpy() > 0).astype(float)
    for k, name in enumerate(SPELL_NAMES):
        per[f"gained_{name}"] = (df[f"gained_s{k + 1}"].to_numpy() > 0).astype(float)
    win = df["win"].to_numpy(dtype=float)
    rows, index = [], []
    for k, name in enumerate(SPELL_NAMES):
        used = df[f"used_s{k + 1}"].to_numpy() > 0
        per[f"used_{name}"] = used.astype(float)
        for group, mask in (("used", used), ("not used", ~used)):
            index.append((name, group))
            rows.append((float(mask.sum()), float(win[mask].sum())))
    value = pd.DataFrame(rows, columns=["seats", "wins"],
                         index=pd.MultiIndex.from_tuples(index, names=["spell", "group"])).sort_index()
    g = per.groupby("strategy", sort=True)
    by_strategy = g.sum()
    by_strategy["order_min"] = g["order_min"].min()

    gains = spell_gains(df)
    spells = (gains.assign(gains=1.0, round_sum=gains["round"].astype(float))
              .groupby(["spell", "mover", "role"], sort=True)[["gains", "round_sum"]].sum())

    keys = [c for c in ("run_id", "game_index") if c in df.columns]
    per_game = df.groupby(keys, observed=True, sort=False).agg(end=("end", "first"), rounds=("rounds", "first"),
                                                                empty=("empty_cells", "sum"))
    ends = pd.DataFrame({"end": per_game["end"].astype(str).to_numpy(), "games": 1.0,
                         "rounds_sum": per_game["rounds"].to_numpy(dtype=float),
                         "empty_sum": per_game["empty"].to_numpy(dtype=float)}).groupby("end", sort=True).sum()
    return {"kd_strategy": by_strategy.astype(np.float64), "kd_spells": spells, "kd_ends": ends,
            "kd_spell_value": value}


def _by_order(frame):
    """``kd_strategy`` rows in the run's order of strategies."""
    return frame.sort_values("order_min", kind="stable")


def figure_tables_from(game, sums):
    """Score split per strategy; spells gained and by whom; rounds and end conditions."""
    import pandas as pd

    if not sums or "kd_strategy" not in sums:
        return []
    st = _by_order(sums["kd_strategy"])
    players = st["players"]
    tables = []
    split = pd.DataFrame({"strategy": st.index.astype(str)})
    for c in _METRICS:
        split[c] = (st[c] / players).to_numpy()
    split["castle_bonus_share"] = (st["castle_bonus"] / players).to_numpy()
    tables.append(("Score split and kingdoms per strategy (means per player per game; spell points are S5's)",
                   split))

    ends = sums.get("kd_ends")
    n_games = float(ends["games"].sum()) if ends is not None else 0.0
    sp = sums.get("kd_spells")
    rows = []
    for name in SPELL_NAMES:
        sub = sp.xs(name, level="spell") if sp is not None and name in sp.index.get_level_values("spell") else None
        k = float(sub["gains"].sum()) if sub is not None else 0.0
        first = float(sub["gains"][sub.index.get_level_values("mover") == "first"].sum()) if k else 0.0
        a = float(sub["gains"][sub.index.get_level_values("role") == "A"].sum()) if k else 0.0
        rows.append({"spell": f"{name} ({SPELL_HELP[name]})", "gained_share": k / n_games if n_games else float("nan"),
                     "first_mover_share": first / k if k else float("nan"),
                     "player_A_share": a / k if k else float("nan"),
                     "mean_round": float(sub["round_sum"].sum()) / k if k else float("nan")})
    tables.append(("Spells: share of games in which each was gained; among those, the share gained by the first "
                   "mover (seat 0) and by player A (the roller of that round); mean round of the gain",
                   pd.DataFrame(rows)))
    tables.append(("Spell use by strategy: share of player-games in which the seat gained each spell and in "
                   "which it used it, and the share of gains it used (S1-S4 are used by choice; S5 and S6 "
                   "take effect when gained)", spell_use_table(st)))
    value = sums.get("kd_spell_value")
    if value is not None and len(value):
        tables.append(("Spell value, an association and not a causal effect: win rate of the seats that used "
                       "each spell and of the seats that did not, with 95% Wilson intervals, and the difference "
                       "in percentage points (pp)", spell_value_table(value)))

    if ends is not None and n_games:
        e = ends.reindex(sorted(ends.index, key=str))  # end conditions in alphabetical order
        table = pd.DataFrame({"end": e.index.astype(str), "games": e["games"].to_numpy().astype(np.int64),
                              "mean_rounds": (e["rounds_sum"] / e["games"]).to_numpy(),
                              "mean_empty_cells_both": (e["empty_sum"] / e["games"]).to_numpy(),
                              "games_share": (e["games"] / n_games).to_numpy()})
        total = pd.DataFrame({"end": ["all games"], "games": [int(n_games)],
                              "mean_rounds": [float(ends["rounds_sum"].sum()) / n_games],
                              "mean_empty_cells_both": [float(ends["empty_sum"].sum()) / n_games],
                              "games_share": [1.0]})
        tables.append(("How games ended (full_map: a player filled their map; no_draw: a round in which neither "
                       "player drew; max_rounds: the safety cap), rounds played and empty cells left on both maps",
                       pd.concat([table, total], ignore_index=True)))
    return tables


def spell_use_table(st):
    """One row per strategy (the run's order) and spell: ``gained_share`` and ``used_share`` (of
    the strategy's player-games) and ``used_when_gained`` (used / gained, NaN without a gain),
    from a ``kd_strategy`` frame with the ``used_S*`` columns."""
    import pandas as pd

    rows = []
    for name, row in st.iterrows():
        n = float(row["players"])
        for sp in SPELL_NAMES:
            g, u = float(row[f"gained_{sp}"]), float(row[f"used_{sp}"])
            rows.append({"strategy": str(name), "spell": f"{sp} ({SPELL_HELP[sp]})",
                         "player_games": int(n), "gained_share": g / n if n else np.nan,
                         "used_share": u / n if n else np.nan, "used_when_gained": u / g if g else np.nan})
    table = pd.DataFrame(rows)
    table.attrs["percent"] = ["gained_share", "used_share", "used_when_gained"]
    return table


def spell_value_table(value):
    """One row per spell: seats that used it and their win rate with its 95% Wilson interval
    (:func:`analyser.stats.analysis.wilson`, statsmodels' ``proportion_confint``), the same for the
    seats that did not, and ``difference_pp`` (used - not used, percentage points); from the
    ``kd_spell_value`` sums."""
    import pandas as pd

    from analyser.stats.analysis import wilson

    rows = []
    for sp in SPELL_NAMES:
        row = {"spell": f"{sp} ({SPELL_HELP[sp]})"}
        rates = {}
        for group, key in (("used", "used"), ("not used", "not")):
            seats = float(value["seats"].get((sp, group), 0.0))
            wins = float(value["wins"].get((sp, group), 0.0))
            rate = wins / seats if seats else np.nan
            low, high = wilson(rate if seats else 0.0, seats)
            rates[key] = rate
            row.update({f"seats_{key}": int(seats), f"{key}_win_rate": rate, f"{key}_win_low": low,
                        f"{key}_win_high": high})
        row["difference_pp"] = (rates["used"] - rates["not"]) * 100
        rows.append(row)
    table = pd.DataFrame(rows)
    table.attrs["percent"] = ["used_win_rate", "used_win_low", "used_win_high", "not_win_rate", "not_win_low",
                              "not_win_high"]
    return table


def plots_from(game, sums, outdir, strategies):
    """``score_split.png`` (domain and spell points per strategy), ``spells.png`` (who gains
    each spell: first or second mover, A or B) and ``spell_value.png`` (win rate of the seats that used each spell and of those that did not,
    95% Wilson intervals), from combined sums.  ``strategies``: the run's strategy names,
    plot-safe, in order."""
    from analyser.stats import plots as P  # sets the Agg backend first
    import matplotlib.pyplot as plt

    if not sums or "kd_strategy" not in sums:
        return []
    out = []
    st = sums["kd_strategy"]
    names = [n for n in strategies if n in st.index] + [n for n in _by_order(st).index if n not in strategies]
    st = st.reindex(names)
    dom = st["domain_points"] / st["players"]
    spell = st["spell_points"] / st["players"]
    fig, ax = plt.subplots(figsize=(8, 2.2 + 0.6 * len(names)))
    y = np.arange(len(names))[::-1]
    ax.barh(y, dom.to_numpy(), color=P.PALETTE[0], height=0.6, label="domain points")
    ax.barh(y, spell.to_numpy(), left=dom.to_numpy(), color=P.PALETTE[1], height=0.6, label="spell points (S5)")
    total = (dom + spell).to_numpy()
    for yi, v in zip(y, total):
        ax.text(v + 0.01 * max(float(np.nanmax(total)), 1.0), yi, f"{v:.1f}", va="center", fontsize=9)
    ax.set_xlim(0, 1.12 * max(float(np.nanmax(total)), 1.0))  # room for the totals' labels
    ax.set_yticks(y, names)
    # below the axes, out of the bars' way (inside, it covered a bar and its total)
    ax.legend(frameon=False, fontsize=8, ncol=2, loc="upper center", bbox_to_anchor=(0.5, -0.22))
    P.style(ax, "Mean final score per strategy, split", "points per player per game", "")
    out.append(P.save(fig, outdir / "score_split.png",
                      "Mean final score per strategy: points from domains (cells x crosses) and from the S5 spell."))
    ends = sums.get("kd_ends")
    n_games = max(1.0, float(ends["games"].sum()) if ends is not None else 0.0)
    sp = sums.get("kd_spells")
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.8), sharey=True)
    x = np.arange(len(SPELL_NAMES))
    for ax, col, labels, title in ((axes[0], "mover", ("first", "second"), "by turn order"),
                                   (axes[1], "role", ("A", "B"), "by role in that round")):
        counts = (sp["gains"].groupby(level=["spell", col]).sum() if sp is not None and len(sp)
                  else None)
        bottom = np.zeros(len(SPELL_NAMES))
        for i, lab in enumerate(labels):
            share = np.array([(float(counts.get((s, lab), 0.0)) if counts is not None else 0.0) / n_games * 100
                              for s in SPELL_NAMES])
            ax.bar(x, share, bottom=bottom, color=P.PALETTE[i], width=0.6,
                   label=f"{lab} mover" if col == "mover" else f"player {lab}")
            bottom += share
        ax.set_xticks(x, SPELL_NAMES)
        ax.set_ylim(0, 105)
        ax.legend(frameon=False, fontsize=8, loc="upper right")
        P.style(ax, f"Spells gained, {title}", "spell", "share of games (%)")
        ax.grid(axis="y", color="#dddddd", linewidth=0.8)
        ax.grid(axis="x", visible=False)
    out.append(P.save(fig, outdir / "spells.png",
                      "How often each spell was gained (share of games), split by who gained it: the first mover "
                      "(seat 0, player A in round 1) or the second, and player A (who rolled that round) or B."))
    value = sums.get("kd_spell_value")
    if value is not None and len(value):
        out.append(_value_plot(spell_value_table(value), outdir))
    return out


def _value_plot(table, outdir):
    """``spell_value.png``: per spell, the win rate of the seats that used it and of those that
    did not, with 95% Wilson intervals (``table`` is :func:`spell_value_table`)."""
    from analyser.stats import plots as P
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 4.2))
    x = np.arange(len(table))
    for dx, key, label, colour in ((-0.13, "used", "seats that used it", P.PALETTE[0]),
                                   (0.13, "not", "seats that did not", "#888888")):
        rate = table[f"{key}_win_rate"].to_numpy(dtype=float) * 100
        low = table[f"{key}_win_low"].to_numpy(dtype=float) * 100
        high = table[f"{key}_win_high"].to_numpy(dtype=float) * 100
        ok = ~np.isnan(rate)
        ax.errorbar(x[ok] + dx, rate[ok], yerr=[rate[ok] - low[ok], high[ok] - rate[ok]], fmt="o", color=colour,
                    capsize=3, markersize=6, label=label)
        for xi, r, h, n in zip(x[ok] + dx, rate[ok], high[ok], table[f"seats_{key}"].to_numpy()[ok]):
            ax.text(xi, min(h + 2, 103), f"n={n:,}", ha="center", fontsize=7, color="#555555")
    ax.axhline(50, color="#333333", linewidth=0.8, linestyle=":")
    ax.set_xticks(x, [s.replace(" (", "\n(") for s in table["spell"]], fontsize=8)
    ax.set_ylim(0, 108)
    ax.legend(frameon=False, fontsize=8, ncol=2, loc="upper center", bbox_to_anchor=(0.5, -0.2))
    P.style(ax, "Win rate of the seats that used each spell, and of those that did not", "", "win rate (%)")
    ax.grid(axis="y", color="#dddddd", linewidth=0.8)
    ax.grid(axis="x", visible=False)
    return P.save(fig, outdir / "spell_value.png",
                  "Win rate of the seats that used each spell and of the seats that did not, with 95% Wilson "
                  "intervals and the number of seats (n); the dotted line is 50%. Seats count as independent (the "
                  "not-used group holds both seats of games where nobody used the spell, which makes its interval "
                  "wider than needed). This is an association, "
                  "not the effect of the spell: seats that gain a spell may already be ahead, and a stronger "
                  "strategy that uses a spell more often lifts that spell's rate. S5 and S6 are used whenever "
                  "gained.")
