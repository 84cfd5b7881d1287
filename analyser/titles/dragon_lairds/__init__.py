"""Dragon Lairds title package: rules in :mod:`.rules`, figures in :mod:`.figures` (reduced chunk
by chunk: ``figure_sums``, then ``figure_tables_from`` / ``plots_from``), the text drawing in
:mod:`.render`, the approximate deck in ``data/deck.csv``."""

from analyser.titles.dragon_lairds import figures, render
from analyser.titles.dragon_lairds.rules import DragonLairds as _Rules


class DragonLairds(_Rules):
    figure_sums = figures.figure_sums
    figure_tables_from = figures.figure_tables_from
    plots_from = figures.plots_from
    describe_state = render.describe_state
    plot_sections = {"points_by_source.png": "Royals by source", "cup.png": "Saurean Cup",
                     "income_curves.png": "Income collected at tax"}
    bench_cases = (("4p income", ("income",), 4, 1000, 4000),)


TITLE = DragonLairds()
