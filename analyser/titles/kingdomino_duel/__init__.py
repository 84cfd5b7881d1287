"""Kingdomino Duel (``kingdomino-duel``): the title object binding rules, figures and text drawing.

Rules: :mod:`.rules` (rules.md); report figures: :mod:`.figures` (reduced
chunk by chunk: ``figure_sums``, then ``figure_tables_from`` / ``plots_from``); the text drawing
for ``analyser play``: :mod:`.render`; component data: ``data/components.csv`` (an unverified
approximation, replaceable with ``--rule components=FILE``).
"""

from collections import Counter
from pathlib import Path

from analyser.engine.deferred import Deferred
from analyser.titles.kingdomino_duel.rules import DEFAULT_COMPONENTS, KingdominoDuel as _Rules, component_lines


class KingdominoDuel(_Rules):
    figure_sums = Deferred("analyser.titles.kingdomino_duel.figures")
    figure_tables_from = Deferred("analyser.titles.kingdomino_duel.figures")
    plots_from = Deferred("analyser.titles.kingdomino_duel.figures")
    describe_state = Deferred("analyser.titles.kingdomino_duel.render")
    step_events = Deferred("analyser.titles.kingdomino_duel.render")
    trace_legend = Deferred("analyser.titles.kingdomino_duel.render", "TRACE_LEGEND")
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

    def component_replacement(self, params, cid: str):
        """Face ``cid`` (``die N FACE``) replaced on its die by the die's typical other face (the
        one written most often among the other faces; the first on a tie, said so when every
        other face appears once): ``(option, new file
        text, what changed)``; None for a spell, or a die whose faces are all that face."""
        parts = cid.split(" ", 2)
        if len(parts) != 3 or parts[0] != "die":
            return None
        number, face = parts[1], parts[2]
        line = component_lines(params.components).get(("die", number))
        path = Path(params.components).expanduser() if params.components else DEFAULT_COMPONENTS
        text = path.read_text(encoding="utf-8").splitlines(keepends=True)
        if not line or line > len(text):
            return None
        row = text[line - 1].rstrip("\r\n")
        head, _, faces = row.rpartition(",")
        tokens = faces.split()
        others = [t for t in tokens if t != face]
        if face not in tokens or not others:
            return None
        typical, times = Counter(others).most_common(1)[0]
        text[line - 1] = head + "," + " ".join(typical if t == face else t for t in tokens) + text[line - 1][len(row):]
        why = ("its die's typical face" if times > 1 else
               "the first of its die's other faces (each of them appears once, so none is typical)")
        return "components", "".join(text), f"face {face} of die {number} made {typical}, {why}"


TITLE = KingdominoDuel()
