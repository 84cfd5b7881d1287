"""Dragon Lairds title package: rules in :mod:`.rules`, figures in :mod:`.figures` (reduced chunk
by chunk: ``figure_sums``, then ``figure_tables_from`` / ``plots_from``), the text drawing in
:mod:`.render`, the approximate deck in ``data/deck.csv``."""

from analyser.io.files import read_component_rows
from collections import Counter

from analyser.engine.deferred import Deferred
from analyser.titles.dragon_lairds.rules import (HAVOC, HEADER, MAX_FILE_BYTES, TYPES, DragonLairds as _Rules,
                                                 load_deck)


class DragonLairds(_Rules):
    figure_sums = Deferred("analyser.titles.dragon_lairds.figures")
    figure_tables_from = Deferred("analyser.titles.dragon_lairds.figures")
    plots_from = Deferred("analyser.titles.dragon_lairds.figures")
    describe_state = Deferred("analyser.titles.dragon_lairds.render")
    plot_sections = {"points_by_source.png": "Royals by source", "cup.png": "Saurean Cup",
                     "income_curves.png": "Income collected at tax"}
    bench_cases = (("4p income", ("income",), 4, 1000, 4000),)

    def component_replacement(self, params, cid: str):
        """Card ``cid`` given the effect of the typical card of its peer group - the other cards
        of the same type and cost (in the same currency) in the deck file: the most common
        combination of income, colour match, finale, knight and ability among them (the first in
        file order on a tie).  ``(option, new file text, what changed)``; None for a card with no
        peer or one whose effect is already the typical one."""
        path = params.data_files()["components"]
        found = read_component_rows(path, "components", HEADER, MAX_FILE_BYTES)
        rows = {row[0]: (line, row) for line, row in found if row}
        if cid not in rows:
            return None
        line, row = rows[cid]
        col = {name: i for i, name in enumerate(HEADER)}
        same = ("type", "cost", "currency")
        kind = tuple(row[col[k]] for k in same)
        peers = [r for k, (_, r) in rows.items() if k != cid and tuple(r[col[c]] for c in same) == kind]
        if not peers:
            return None
        effects = [tuple(r[col[c]] for c in _EFFECT) for r in peers]
        typical = Counter(effects).most_common(1)[0][0]  # most_common keeps first-seen order on ties
        if typical == tuple(row[col[c]] for c in _EFFECT):
            return None
        new = list(row)
        for c, v in zip(_EFFECT, typical):
            new[col[c]] = v
        text = path.read_text(encoding="utf-8").splitlines(keepends=True)
        end = "\n" if text[line - 1].endswith("\n") else ""
        text[line - 1] = ",".join(new) + end
        effect = ", ".join(f"{c} {v}" for c, v in zip(_EFFECT, typical) if v not in ("", "0", "no"))
        what = (f"{cid} given the effect of a typical {kind[0]} of cost {kind[1]} {kind[2]} "
                f"({effect or 'no income'}; {len(peers)} peers)")
        return "components", "".join(text), what

    component_note = ("A seat with more geld buys more cards, and dearer ones, so costly cards tend to go with "
                      "winning whatever they do. The table compares each purchase with the other cards taken from "
                      "the same standing (round and rank by royals), and a card with its peers of the same cost.")

    def component_acts(self, title_sums, catalog):
        """The cards measured per purchase, adjusted for what the buyer already had: the buyer's
        win share on "this purchase was card X", within the same strategy, seat, round and rank
        by royals at that moment (:func:`figures.buy_component_sums`,
        :func:`analyser.stats.components.estimate`, which also compares a card with its peers of the
        same type and cost, per unit of cost).  Each purchase is its own cluster (a seat's
        purchases share its outcome, so the intervals are somewhat too narrow: a finding stays
        possible until its intervention confirms it).  None without the purchase sums."""
        from analyser.stats import components
        from analyser.stats.component_acts import measured_where_it_acts

        sums = {k[len("buy_"):]: v for k, v in (title_sums or {}).items() if k.startswith("buy_comp_")}
        if "comp_cells" not in sums:
            return None
        est = components.estimate(sums, catalog)
        note = ("Measured per purchase and adjusted for what the buyer already had: one row per card a seat took "
                "(the setup card, bought or played cards, Havocs), y = the buyer's win share, x = the purchase was "
                "this card; one intercept per strategy, seat, round and rank by royals at the moment of the "
                "purchase, so a card is compared with the other cards taken from the same standing (the "
                "adjustment made: round and rank; not geld in hand). Against peers: that effect minus the mean of "
                "the other cards of its type and cost; per cost: pp per unit. Each purchase is its own cluster "
                "(a seat's purchases share its outcome, so the intervals are somewhat too narrow); q: "
                "Benjamini-Hochberg over the cards with an estimate. components.csv: holders = purchases of the "
                "card, seat_games = all purchases, win_with / win_without = the buyers' win share.")
        wording = {"sentence": "{name}: a seat that took it wins {size:.1f} pp {more} often than a seat that took "
                               "another card from the same standing (round and rank by royals)",
                   "figure": "{effect:+.1f} pp against none; buyers' win share {with_:.1f}% over its {uses:,} "
                             "purchases, {without:.1f}% for the other purchases; {q}",
                   "verb_none": "goes with winning from the same standing"}
        return measured_where_it_acts(est, note, wording)

    def component_catalog(self, params):
        """The rules' catalog with each card's peer group (the cards of the same type and cost in
        the same currency) and its cost, for the effect per unit of cost."""
        out = super().component_catalog(params)
        for c in load_deck(params.components).cards:
            if c.id in out:
                currency = "royals" if c.type == HAVOC else "geld"
                out[c.id].update(peers=f"{TYPES[c.type]}s of cost {c.cost} {currency}", cost=float(c.cost),
                                 cost_unit=currency)
        return out


#: Columns of the deck file that say what a card does (kept: id, name, type, colour, cost, currency).
_EFFECT = ("geld", "royals", "match", "finale", "knight", "ability")


TITLE = DragonLairds()
