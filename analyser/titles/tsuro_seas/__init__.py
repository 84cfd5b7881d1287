"""The title object: the rules' Game bound to this title's figures and text drawing."""

from analyser.titles.tsuro_seas import figures, render
from analyser.titles.tsuro_seas.rules import TsuroSeas as _Rules


class TsuroSeas(_Rules):
    figure_sums = figures.figure_sums
    figure_tables_from = figures.figure_tables_from
    plots_from = figures.plots_from
    describe_state = render.describe_state
    step_events = render.step_events
    plot_sections = {"elimination_heatmap.png": "Fate of ships per strategy",
                     "elimination_causes.png": "Fate of ships per strategy"}
    bench_cases = (("4p random", ("random",), 4, 1000, 4000),
                   ("4p survivor depth 1", ("survivor:depth=1",), 4, 400, 2000))
    mcts_bench_games = 8  # bench --mcts: a short game against random

    def component_catalog(self, params):
        """The rules' catalog with one peer group for every tile: a ship afloat longer places
        more tiles of every kind, so a tile is compared with the other tiles, not with none."""
        out = super().component_catalog(params)
        for info in out.values():
            info["peers"] = "wake tiles"
        return out


TITLE = TsuroSeas()
