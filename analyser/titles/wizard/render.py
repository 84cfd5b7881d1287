"""Text drawing of a Wizard state for `analyser play`."""

from __future__ import annotations

from analyser.titles.wizard.rules import SUITS, WizardState


def trump_words(s: WizardState) -> str:
    """The trump suit's name, "set by the first suited card" (a turned Wizard under
    ``wizard_trump=first_card``, before that card) or "none"."""
    if s.trump is not None:
        return SUITS[s.trump]
    return "set by the first suited card" if s.trump_pending else "none"


def describe_state(game, s: WizardState) -> str:
    n = s.n
    tc = s.trump_card
    lines = [f"round {s.round}/{s.n_rounds} ({s.phase}), dealer seat {s.dealer}, starter seat {s.starter}"
             f" | turned {tc if tc is not None else 'no card'}, trump {trump_words(s)}"]
    for seat in range(n):
        bid = "-" if s.bids[seat] is None else s.bids[seat]
        hand = " ".join(c.code for c in s.hands[seat]) or "(empty)"
        lines.append(f"  seat {seat}: bid {bid}, tricks {s.tricks[seat]}, score {s.scores[seat]} | {hand}")
    if s.trick:
        lead = s.leaders[-1]
        cards = ", ".join(f"seat {(lead + i) % n} {c}" for i, c in enumerate(s.trick))
        lines.append(f"  trick: {cards} (winning: seat {s.win_seat})")
    return "\n".join(lines)


#: Printed once at the top of an `analyser play` trace.
TRACE_LEGEND = ("hands list cards as suit letter + rank: B = blue, G = green, R = red, Y = yellow (B7 = blue 7); "
                "Z = Wizard (beats everything), N = Jester (loses to everything)")


def step_events(game, before: WizardState, action, after: WizardState) -> list[str]:
    """What one action did, in words, for the `analyser play` trace: who won a finished trick and
    with which card, trump fixed by the first suited card, a round's result and the next deal."""
    out = []
    n = before.n
    same_round = after.round == before.round
    if before.trump is None and before.trump_pending and after.trump is not None and same_round:
        out.append(f"trump is now {SUITS[after.trump]}: the first suited card of the round's first trick "
                   "(wizard_trump=first_card)")
    if after.tricks_played > before.tricks_played:
        if same_round:
            winner = next(i for i in range(n) if after.tricks[i] > before.tricks[i])
            cards = after.played[-n:]
        else:
            winner = after.log[-1].last_winner
            cards = list(before.trick) + [getattr(action, "card", action)]
        lead = before.leaders[-1]
        card = cards[(winner - lead) % n]
        shown = f" with {card}" if hasattr(card, "rank") else ""
        out.append(f"trick won by seat {winner}{shown} (led by seat {lead})")
    if not same_round or after.phase == "over" and before.phase != "over":
        if after.log and len(after.log) > len(before.log):
            r = after.log[-1]
            res = ", ".join(f"seat {i} bid {b} took {t} ({'+' if p >= 0 else ''}{p})"
                            for i, (b, t, p) in enumerate(zip(r.bids, r.tricks, r.points)))
            out.append(f"round {r.round} over: {res}")
        if not same_round:
            tc = after.trump_card
            out.append(f"round {after.round} dealt: turned {tc if tc is not None else 'no card'}, "
                       f"trump {trump_words(after)}")
    return out
