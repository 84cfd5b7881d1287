"""Kingdomino Duel (``kingdomino-duel``): the title object binding rules, figures and text drawing.

Rules: :mod:`.rules` (rules.md); report figures: :mod:`.figures` (reduced
chunk by chunk: ``figure_sums``, then ``figure_tables_from`` / ``plots_from``); the text drawing
for ``analyser play``: :mod:`.render`; component data: ``data/components.csv`` (an unverified
approximation, replaceable with ``--rule components=FILE``).
"""

from analyser.titles.kingdomino_duel import figures, render
from analyser.titles.kingdomino_duel.rules import KingdominoDuel as _Rules


class KingdominoDuel(_Rules):
    figure_sums = figures.figure_sums
    figure_tables_from = figures.figure_tables_from
    plots_from = figures.plots_from
    describe_state = render.describe_state
    step_events = render.step_events
    trace_legend = render.TRACE_LEGEND
    plot_sections = {"score_split.png": "Score split", "spells.png": "Spells: share of games",
                     "spell_value.png": "Spell value"}
    bench_cases = (("2p greedy", ("greedy",), 2, 1000, 4000),
                   ("2p random", ("random",), 2, 1000, 4000))

    def component_catalog(self, params):
        """The rules' catalog with each component's peer group: the other faces of the same die
        (drawn as often as it), or the other spells."""
        out = super().component_catalog(params)
        for cid, info in out.items():
            info["peers"] = f"faces of {info['what'].rsplit(' of ', 1)[-1]}" if cid.startswith("die ") else "spells"
        return out


TITLE = KingdominoDuel()
