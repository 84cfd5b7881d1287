"""The title object: the rules' Game bound to this title's figures and text drawing."""

from analyser.titles.wizard import figures, render
from analyser.titles.wizard.rules import Wizard as _Rules


class Wizard(_Rules):
    figure_sums = figures.figure_sums
    figure_tables_from = figures.figure_tables_from
    plots_from = figures.plots_from
    describe_state = render.describe_state
    step_events = render.step_events
    trace_legend = render.TRACE_LEGEND
    plot_sections = {"bid_heatmap.png": "Wizard bidding per strategy", "bid_accuracy.png": "Exact bids (%) by round"}
    bench_cases = (("4p expected+greedy", ("bot:bid=expected,play=greedy",), 4, 400, 2000),)
    mcts_bench_games = 1  # bench --mcts: 135 decisions per seat at 4 players


TITLE = Wizard()
