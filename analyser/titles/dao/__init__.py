"""The title object: the rules' Game bound to this title's figures and text drawing."""

from analyser.engine.deferred import Deferred
from analyser.titles.dao.rules import Dao as _Rules


class Dao(_Rules):
    figure_sums = Deferred("analyser.titles.dao.figures")
    figure_tables_from = Deferred("analyser.titles.dao.figures")
    plots_from = Deferred("analyser.titles.dao.figures")
    describe_state = Deferred("analyser.titles.dao.render")
    step_events = Deferred("analyser.titles.dao.render")
    plot_sections = {"cards.png": "DAO figures per strategy"}
    bench_cases = (("4p threshold", ("threshold",), 4, 10000, 50000),
                   ("4p greedy", ("greedy",), 4, 4000, 20000))
    mcts_bench_games = 10  # bench --mcts: about 15 decisions per seat
    #: The numba kernel of the rules and the built-in strategies (analyser.engine.compiled, docs/compiled.md).
    compiled_engine = "analyser.titles.dao.compiled:ENGINE"

    #: Why the colours differ, when a rule variant makes one colour's cards score differently
    #: (then each card keeps its own row, compared with the same value in the other colours).
    #: Empty: no DAO rule option does - every colour scores only as a seat's best colour,
    #: whichever it is - so the same value in another colour is the same card.
    colours_differ = ""

    def _collapsed(self) -> bool:
        return not self.colours_differ

    def component_collapse(self, ids):
        """The same value in every colour is one card (``fire 3``, ``water 3`` -> ``value 3``):
        by the rules a card scores its value in the seat's scoring colour (its best colour,
        whichever that is) and -1 in any other, so no colour is worth more than another.  None
        merged when :attr:`colours_differ` names a rule that makes a colour differ."""
        if not self._collapsed():
            return {}
        return {cid: "value " + cid.rsplit(" ", 1)[-1] for cid in ids if " " in cid}

    def component_catalog(self, params):
        """The rules' catalog.  Colours alike (the rules): one entry per value, ``value 3``, the
        cards of that value in every colour, with the fix of that value (one copy fewer in every
        colour) and the merge said (``collapsed``); its peer group the other values (a seat that
        takes more cards loses more whatever they are, so a value is read against the rest).
        Colours differing (:attr:`colours_differ`): one entry per colour and value, each card's
        peer group the cards of the same value in the other colours."""
        out = super().component_catalog(params)
        if self._collapsed():
            merged = {}
            why = ("the same value in every colour is one row (fire 3, water 3, ... -> value 3): a card scores its "
                   "value in its holder's scoring colour, the best colour at the end whichever it is, and costs 1 "
                   "point in any other, so the rules make no colour worth more than another")
            for cid, info in out.items():
                value = cid.rsplit(" ", 1)[-1]
                if f"value {value}" not in merged:
                    copies = info["what"].rsplit(", ", 1)[-1]
                    merged[f"value {value}"] = {**info, "what": f"card of value {value} in any colour, {copies}",
                                                "peers": "card values", "collapsed": why}
            return merged
        for cid, info in out.items():
            value = cid.rsplit(" ", 1)[-1]
            info["peers"] = f"value-{value} cards of the other colours"
            info["collapsed"] = f"each colour kept apart: {self.colours_differ}"
        return out


TITLE = Dao()
