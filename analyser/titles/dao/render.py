"""Text drawing of a DAO state for `analyser play`."""

from __future__ import annotations

from analyser.text import plural
from analyser.titles.dao.rules import Card, DaoState


def describe_state(game, s: DaoState) -> str:
    disp = ", ".join(str(Card(*c)) for c in s.display) or "(empty)"
    scores = game.scores(s)
    half = f" half {s.half + 1}" if s.params.halves(s.n) else ""
    lines = [f"deck {len(s.deck)}{half} | display [{disp}] total {s.total}"]
    for seat in range(s.n):
        lines.append(f"  seat {seat}: {plural(len(s.piles[seat]), 'card')}, score {scores[seat]}")
    return "\n".join(lines)


def step_events(game, before: DaoState, action, after: DaoState) -> list[str]:
    """What one action did, in words, for the `analyser play` trace: a bust (and by how much),
    a reveal saved by the equal-value exception, a refill, the end of a half or of the game."""
    seat = before.current
    p = before.params
    out = []
    took = len(after.piles[seat]) - len(before.piles[seat])
    if after.busts[seat] > before.busts[seat]:
        card = Card(*after.piles[seat][-1])
        total = before.total + card.value
        out.append(f"BUST: seat {seat} revealed {card}, display total {total} > bust_limit {p.bust_limit}; "
                   f"seat {seat} takes {'the' if took == 1 else 'all'} {plural(took, 'card')}")
    elif len(before.deck) > len(after.deck) and took == 0 and before.half == after.half:
        card = Card(*after.display[-1]) if after.display else None
        total = before.total + (card.value if card else 0)
        if card is not None and total > p.bust_limit:
            out.append(f"no bust: display total {total} > bust_limit {p.bust_limit}, but {card} equals the "
                       f"{'card it is laid next to' if p.equal_exception == 'adjacent' else 'front card'} "
                       f"(equal_exception={p.equal_exception})")
    if after.half > before.half:
        out.append(f"half {before.half + 1} over: the deck is empty; half {after.half + 1} starts with seat "
                   f"{after.current}")
    elif took and took >= len(before.display) and after.display and not after.over:
        out.append(f"display emptied: {plural(len(after.display), 'card')} revealed into it")
    if after.over and not before.over:
        last = Card(*before.deck[0]) if before.deck else None  # drawn from its end: the bottom card comes out last
        out.append(f"game over: the last deck card, {last}, is out" if last is not None
                   else "game over: the last deck card is out")
    return out
