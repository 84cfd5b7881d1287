"""DAO report figures: a table per strategy and a box plot of cards taken.

``figure_tables(game, results, extras)`` returns ``[(caption, DataFrame)]`` and ``plots(game,
results, extras, outdir)`` writes PNGs and returns ``[(file name, caption)]``.  pandas and the
plotting module are used only inside the functions, so importing the title stays light.
"""

from __future__ import annotations


def figure_tables(game, results, extras):
    """DAO figures per strategy: busts per game, cards per player, scoring-colour share."""
    g = results.groupby("strategy", observed=True)
    table = g.agg(busts_per_game=("busts", "mean"), cards_per_player=("cards", "mean"),
                  scoring_colour_share=("colour_share", "mean")).reset_index()
    return [("DAO figures per strategy (means per player per game)", table)]


def plots(game, results, extras, outdir):
    from analyser import plots
    return [plots.metric_box(results, "cards", "Cards taken per player per game",
                             "cards in pile at game end", outdir / "cards.png")]
