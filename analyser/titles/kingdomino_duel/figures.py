"""Report figures of Kingdomino Duel: the score split into domain and spell points, the spells
gained and by whom (A or B in the round of the gain; first mover = seat 0, A in round 1, or
second mover), rounds played, empty cells and how games ended.

pandas and the plotting API are imported inside the functions, so the rules never load them.
"""

from __future__ import annotations

SPELL_NAMES = ("S1", "S2", "S3", "S4", "S5", "S6")
SPELL_HELP = {"S1": "ignore connection", "S2": "dice apart", "S3": "two dice at once", "S4": "turn a die",
              "S5": "+3 per domain", "S6": "add a cross"}
ENDS = ("full_map", "no_draw", "max_rounds")


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


def _games(results) -> int:
    keys = [c for c in ("run_id", "game_index") if c in results.columns]
    return int(results[keys].drop_duplicates().shape[0])


def figure_tables(game, results, extras):
    """Score split per strategy; spells gained and by whom; rounds and end conditions."""
    import pandas as pd

    df = results
    tables = []
    g = df.groupby("strategy", observed=True)
    split = g.agg(score=("score", "mean"), domain_points=("domain_points", "mean"),
                  spell_points=("spell_points", "mean"), spells=("spells", "mean"),
                  spells_as_a=("spells_as_a", "mean"), spells_as_b=("spells_as_b", "mean"),
                  largest_domain=("largest_domain", "mean"), crosses=("crosses", "mean"),
                  empty_cells=("empty_cells", "mean"), passes=("passes", "mean"),
                  castle_bonus_share=("castle_round", lambda x: (x > 0).mean())).reset_index()
    tables.append(("Score split and kingdoms per strategy (means per player per game; spell points are S5's)",
                   split))
    n_games = _games(df)
    gains = spell_gains(df)
    rows = []
    for name in SPELL_NAMES:
        sub = gains[gains["spell"] == name]
        k = len(sub)
        rows.append({"spell": f"{name} ({SPELL_HELP[name]})", "gained_share": k / n_games if n_games else float("nan"),
                     "first_mover_share": (sub["mover"] == "first").mean() if k else float("nan"),
                     "player_A_share": (sub["role"] == "A").mean() if k else float("nan"),
                     "mean_round": sub["round"].mean() if k else float("nan")})
    tables.append(("Spells: share of games in which each was gained; among those, the share gained by the first "
                   "mover (seat 0) and by player A (the roller of that round); mean round of the gain",
                   pd.DataFrame(rows)))
    if len(gains):
        who = pd.crosstab(gains["strategy"], gains["spell"]).reindex(columns=list(SPELL_NAMES), fill_value=0)
        players = df.groupby("strategy", observed=True).size()
        who = who.div(players.reindex(who.index).to_numpy(), axis=0).reset_index()
        who.columns.name = None
        tables.append(("Spells gained per player-game, by strategy", who))
    keys = [c for c in ("run_id", "game_index") if c in df.columns]
    per_game = df.groupby(keys, observed=True).agg(end=("end", "first"), rounds=("rounds", "first"),
                                                   empty=("empty_cells", "sum")).reset_index()
    ends = per_game.groupby("end").agg(games=("rounds", "size"), mean_rounds=("rounds", "mean"),
                                       mean_empty_cells_both=("empty", "mean")).reset_index()
    ends["games_share"] = ends["games"] / len(per_game)
    total = pd.DataFrame({"end": ["all games"], "games": [len(per_game)], "mean_rounds": [per_game["rounds"].mean()],
                          "mean_empty_cells_both": [per_game["empty"].mean()], "games_share": [1.0]})
    tables.append(("How games ended (full_map: a player filled their map; no_draw: a round in which neither "
                   "player drew; max_rounds: the safety cap), rounds played and empty cells left on both maps",
                   pd.concat([ends, total], ignore_index=True)))
    return tables


def plots(game, results, extras, outdir):
    """``score_split.png`` (domain and spell points per strategy) and ``spells.png`` (who gains
    each spell: first or second mover, A or B)."""
    from analyser import plots as P  # sets the Agg backend first
    import matplotlib.pyplot as plt
    import numpy as np

    out = []
    names = P.strategy_names(results)
    g = results.groupby("strategy", observed=True)
    dom = g["domain_points"].mean().reindex(names)
    spell = g["spell_points"].mean().reindex(names)
    fig, ax = plt.subplots(figsize=(8, 1.6 + 0.6 * len(names)))
    y = np.arange(len(names))[::-1]
    ax.barh(y, dom.to_numpy(), color=P.PALETTE[0], height=0.6, label="domain points")
    ax.barh(y, spell.to_numpy(), left=dom.to_numpy(), color=P.PALETTE[1], height=0.6, label="spell points (S5)")
    for yi, d, s in zip(y, dom.to_numpy(), spell.to_numpy()):
        ax.text(d + s + 0.5, yi, f"{d + s:.1f}", va="center", fontsize=9)
    ax.set_yticks(y, names)
    ax.legend(frameon=False, loc="lower right", fontsize=8)
    P.style(ax, "Mean final score per strategy, split", "points per player per game", "")
    out.append(P.save(fig, outdir / "score_split.png",
                      "Mean final score per strategy: points from domains (cells x crosses) and from the S5 spell."))
    gains = spell_gains(results)
    n_games = max(1, _games(results))
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.8), sharey=True)
    x = np.arange(len(SPELL_NAMES))
    for ax, col, labels, title in ((axes[0], "mover", ("first", "second"), "by turn order"),
                                   (axes[1], "role", ("A", "B"), "by role in that round")):
        bottom = np.zeros(len(SPELL_NAMES))
        for i, lab in enumerate(labels):
            share = np.array([((gains["spell"] == sp) & (gains[col] == lab)).sum() / n_games * 100
                              for sp in SPELL_NAMES])
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
    return out
