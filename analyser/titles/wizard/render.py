"""Text drawing of a Wizard state for `analyser play`."""

from __future__ import annotations

from analyser.titles.wizard.rules import SUITS, WizardState


def describe_state(game, s: WizardState) -> str:
    n = s.n
    tc = s.trump_card
    if s.trump is not None:
        trump = SUITS[s.trump]
    elif s.trump_pending:
        trump = "set by the first suited card"
    else:
        trump = "none"
    turned = str(tc) if tc is not None else "no card"
    lines = [f"round {s.round}/{s.n_rounds} ({s.phase}), dealer seat {s.dealer}, starter seat {s.starter}"
             f" | turned {turned}, trump {trump}"]
    for seat in range(n):
        bid = "-" if s.bids[seat] is None else s.bids[seat]
        hand = " ".join(c.code for c in s.hands[seat]) or "(empty)"
        lines.append(f"  seat {seat}: bid {bid}, tricks {s.tricks[seat]}, score {s.scores[seat]} | {hand}")
    if s.trick:
        lead = s.leaders[-1]
        cards = ", ".join(f"seat {(lead + i) % n} {c}" for i, c in enumerate(s.trick))
        lines.append(f"  trick: {cards} (winning: seat {s.win_seat})")
    return "\n".join(lines)
