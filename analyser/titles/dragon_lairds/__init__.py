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

    def component_replacement(self, params, cid: str):
        """Card ``cid`` given the effect of the typical card of its peer group - the other cards
        of the same type and cost (in the same currency) in the deck file: the most common
        combination of income, colour match, finale, knight and ability among them (the first in
        file order on a tie).  ``(option, new file text, what changed)``; None for a card with no
        peer or one whose effect is already the typical one."""
        return _replacement(params, cid)

    def component_catalog(self, params):
        """The rules' catalog with each card's peer group (the cards of the same type and cost in
        the same currency) and its cost, for the effect per unit of cost."""
        from analyser.titles.dragon_lairds.rules import HAVOC, TYPES, load_deck

        out = super().component_catalog(params)
        for c in load_deck(params.components).cards:
            if c.id in out:
                currency = "royals" if c.type == HAVOC else "geld"
                out[c.id].update(peers=f"{TYPES[c.type]}s of cost {c.cost} {currency}", cost=float(c.cost),
                                 cost_unit=currency)
        return out


#: Columns of the deck file that say what a card does (kept: id, name, type, colour, cost, currency).
_EFFECT = ("geld", "royals", "match", "finale", "knight", "ability")


def _replacement(params, cid):
    from collections import Counter

    from analyser.safeio import read_component_rows
    from analyser.titles.dragon_lairds.rules import HEADER, MAX_FILE_BYTES

    path = params.data_files()["components"]
    rows = {row[0]: (line, row) for line, row in read_component_rows(path, "components", HEADER, MAX_FILE_BYTES)
            if row}
    if cid not in rows:
        return None
    line, row = rows[cid]
    col = {name: i for i, name in enumerate(HEADER)}
    kind = tuple(row[col[k]] for k in ("type", "cost", "currency"))
    peers = [r for k, (_, r) in rows.items() if k != cid and tuple(r[col[c]] for c in ("type", "cost", "currency")) == kind]
    if not peers:
        return None
    effects = [tuple(r[col[c]] for c in _EFFECT) for r in peers]
    typical = Counter(effects).most_common(1)[0][0] if effects else None  # most_common keeps first-seen order on ties
    if typical == tuple(row[col[c]] for c in _EFFECT):
        return None
    new = list(row)
    for c, v in zip(_EFFECT, typical):
        new[col[c]] = v
    text = path.read_text(encoding="utf-8").splitlines(keepends=True)
    end = "\n" if text[line - 1].endswith("\n") else ""
    text[line - 1] = ",".join(new) + end
    what = (f"{cid} given the effect of a typical {kind[0]} of cost {kind[1]} {kind[2]} "
            f"({', '.join(f'{c} {v}' for c, v in zip(_EFFECT, typical) if v not in ('', '0', 'no'))  or 'no income'}; "
            f"{len(peers)} peers)")
    return "components", "".join(text), what


TITLE = DragonLairds()
