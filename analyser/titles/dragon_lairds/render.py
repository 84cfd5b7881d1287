"""Text drawing of a Dragon Lairds state for ``analyser play`` (everything, hidden cards included:
``play`` shows the whole table to the person watching)."""

from __future__ import annotations

from analyser.titles.dragon_lairds.rules import TYPES, space_name


def describe_state(game, s) -> str:
    """Several lines: round, phase, pawn and cup; every space (top card last, with its name and
    cost); then per seat in honour order: colour, geld, royals, cards in play and hand."""
    t = s.deck_table
    cards = t.cards
    cup = f"cup: seat {s.cup_holder}" if s.cup_holder >= 0 else "cup: bank"
    head = (f"round {s.round}, {s.phase}" + (f" ({s.auction} auction)" if s.auction else "")
            + f", pawn {s.pawn}/{s.params.halt_space}, deck {len(s.deck)}, {cup}, pot {s.pot} geld")
    if s.end:
        head += f", ended by {s.end}"
    lines = [head]
    for i, stack in enumerate(s.spaces):
        if stack:
            top = cards[stack[-1]]
            under = " ".join(cards[c].id for c in stack[:-1])
            lines.append(f"  {space_name(i):<10} top {top.id} {top.name} ({TYPES[top.type]}, {t.colours[top.colour]}, "
                         f"cost {top.cost}{'r' if top.type == 0 else 'g'})" + (f" | under: {under}" if under else ""))
        else:
            lines.append(f"  {space_name(i):<10} (empty)")
    for rank, seat in enumerate(s.honour, start=1):
        play = " ".join(cards[c].id for c in s.play[seat]) or "-"
        hand = " ".join(cards[c].id for c in s.hands[seat]) or "-"
        lines.append(f"  honour {rank}: seat {seat} ({t.colours[s.colour[seat]]}) geld {s.geld[seat]}, "
                     f"royals {s.royals[seat]} | play: {play} | hand: {hand}")
    return "\n".join(lines)
