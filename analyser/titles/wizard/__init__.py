"""The title object: the rules' Game bound to this title's figures and text drawing."""

from analyser.engine.deferred import Deferred
from analyser.titles.wizard.rules import WIZARD_IDS, Wizard as _Rules


class Wizard(_Rules):
    figure_sums = Deferred("analyser.titles.wizard.figures")
    figure_tables_from = Deferred("analyser.titles.wizard.figures")
    plots_from = Deferred("analyser.titles.wizard.figures")
    describe_state = Deferred("analyser.titles.wizard.render")
    step_events = Deferred("analyser.titles.wizard.render")
    trace_legend = Deferred("analyser.titles.wizard.render", "TRACE_LEGEND")
    compiled_engine = "analyser.titles.wizard.compiled:ENGINE"
    plot_sections = {"bid_heatmap.png": "Wizard bidding per strategy", "bid_accuracy.png": "Exact bids (%) by round"}
    bench_cases = (("4p expected+greedy", ("bot:bid=expected,play=greedy",), 4, 400, 2000),)
    mcts_bench_games = 1  # bench --mcts: 135 decisions per seat at 4 players
    component_note = ("Hands are dealt, not chosen, and measured per round: a hand is compared with the hands of "
                      "the same round (as many cards), seat and strategy, on the share of that round's tricks it took.")

    def component_tables(self, ids):
        """Wizards in hand: the rows ``"1 Wizard"`` to ``"4 Wizards"`` of the per-round table."""
        return [("Share of a round's tricks by Wizards in that round's hand (a special case of the component table, "
                 "measured per round against hands of the same round, seat and strategy)",
                 [c for c in WIZARD_IDS if c in ids])]

    def component_acts(self, title_sums, catalog):
        """The hands measured per round, where they act: per round and seat, the share of that
        round's tricks the seat took, on "the hand of that round held k Wizards / Jesters /
        trumps", within the same strategy, round and seat (:func:`figures.round_component_sums`,
        :func:`analyser.stats.components.estimate`; errors clustered by game and round).  None without
        the per-round sums."""
        from analyser.stats import components
        from analyser.stats.component_acts import measured_where_it_acts

        sums = {k[len("round_"):]: v for k, v in (title_sums or {}).items() if k.startswith("round_comp_")}
        if "comp_cells" not in sums:
            return None
        est = components.estimate(sums, catalog)
        note = ("Measured per round, where a hand acts: one row per round and seat; y = the share of that round's "
                "tricks the seat took (tricks / cards dealt); effect: the change in that share (pp) when the hand "
                "of that round held the component, against hands of the same strategy, round and seat without it "
                "- a linear model with one intercept per strategy, round and seat, errors clustered by game and "
                "round, 95% normal interval; q: Benjamini-Hochberg over the components with an estimate. "
                "components.csv: holders = rounds with it, seat_games = all rounds x seats, win_with / "
                "win_without = the mean share of the round's tricks with / without it.")
        wording = {"sentence": "{name}: a hand that holds it takes {size:.1f} pp {more} of that round's tricks than "
                               "a hand of the same round, seat and strategy without it",
                   "figure": "{effect:+.1f} pp of the round's tricks; {with_:.1f}% of the tricks in its {uses:,} "
                             "rounds, {without:.1f}% without it; {q}",
                   "verb_none": "changes the share of a round's tricks taken"}
        return measured_where_it_acts(est, note, wording)


TITLE = Wizard()
