"""DAO report figures: a table per strategy and a box plot of cards taken.

The report reads a run chunk by chunk (:mod:`analyser.stats.streamed`), so the figures come in two steps:

* ``figure_sums(game, results, extras)`` reduces one chunk of whole games to small additive frames
  (``{name: DataFrame}``; see ``Game.figure_sums``):

  - ``"strategy"``: index ``strategy``; columns ``players`` (rows), and for each of ``busts``,
    ``cards``, ``colour_share`` its sum over the rows where it is given (``<metric>_sum``) and the
    number of those rows (``<metric>_n``; ``colour_share`` is NaN for a player without cards);
  - ``"cards"``: index (``strategy``, ``cards``); column ``players``: how many players ended a game
    with that many cards - at most strategies x 61 rows (a pile holds 0 to 60 cards).

* ``figure_tables_from(game, sums)`` returns ``[(caption, DataFrame)]`` and ``plots_from(game,
  sums, outdir, strategies)`` writes PNGs and returns ``[(file name, caption)]``.

pandas and the plotting module are used only inside the functions, so importing the title stays
light.
"""

from __future__ import annotations

import numpy as np

#: The per-seat metrics averaged in the table, and the table's name for each mean.
_MEANS = (("busts", "busts_per_game"), ("cards", "cards_per_player"),
          ("colour_share", "scoring_colour_share"))


def figure_sums(game, results, extras):
    """Additive sums of one chunk of whole games (see the module docstring)."""
    import pandas as pd

    g = results.groupby("strategy", observed=True)
    cols = {"players": g.size()}
    for metric, _ in _MEANS:
        cols[f"{metric}_sum"] = g[metric].sum()
        cols[f"{metric}_n"] = g[metric].count()
    per_strategy = pd.DataFrame(cols)
    cards = (pd.DataFrame({"strategy": results["strategy"], "cards": results["cards"]}).dropna()
             .groupby(["strategy", "cards"], observed=True).size().rename("players").to_frame())
    return {"strategy": per_strategy, "cards": cards}


def figure_tables_from(game, sums):
    """DAO figures per strategy: busts per game, cards per player, scoring-colour share (means
    over the players of each strategy; a mean over no players is NaN)."""
    import pandas as pd

    s = sums.get("strategy")
    if s is None or not len(s):
        return []
    table = pd.DataFrame({"strategy": s.index.array})  # categories (run order) stay categories
    for metric, name in _MEANS:
        n = s[f"{metric}_n"].to_numpy(dtype=float)
        with np.errstate(invalid="ignore", divide="ignore"):
            table[name] = np.where(n > 0, s[f"{metric}_sum"].to_numpy(dtype=float) / n, np.nan)
    return [("DAO figures per strategy (means per player per game)", table)]


def plots_from(game, sums, outdir, strategies):
    """A box plot of the cards each player held at the end of a game, per strategy."""
    from analyser.stats import plots

    cards = sums.get("cards")
    if cards is None or not len(cards):
        return []
    return [plots.metric_box_counts(cards["players"], strategies, "Cards taken per player per game",
                                    "cards in pile at game end", outdir / "cards.png")]
