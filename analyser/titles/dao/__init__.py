"""The title object: the rules' Game bound to this title's figures and text drawing."""

from analyser.titles.dao import figures, render
from analyser.titles.dao.rules import Dao as _Rules


class Dao(_Rules):
    figure_sums = figures.figure_sums
    figure_tables_from = figures.figure_tables_from
    plots_from = figures.plots_from
    describe_state = render.describe_state
    step_events = render.step_events
    plot_sections = {"cards.png": "DAO figures per strategy"}
    bench_cases = (("4p threshold", ("threshold",), 4, 10000, 50000),
                   ("4p greedy", ("greedy",), 4, 4000, 20000))
    mcts_bench_games = 10  # bench --mcts: about 15 decisions per seat
    #: The numba kernel of the rules and the built-in strategies (analyser.compiled, docs/compiled.md).
    compiled_engine = "analyser.titles.dao.compiled:ENGINE"

    def component_catalog(self, params):
        """The rules' catalog with each card's peer group: the cards of the same value in the
        other colours (the rules treat the colours alike, so a card is compared with its own
        value in another colour; a colour that scores differently stands out against them)."""
        out = super().component_catalog(params)
        for cid, info in out.items():
            value = cid.rsplit(" ", 1)[-1]
            info["peers"] = f"value-{value} cards of the other colours"
        return out


TITLE = Dao()
