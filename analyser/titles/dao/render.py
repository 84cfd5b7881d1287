"""Text drawing of a DAO state for `analyser play`."""

from __future__ import annotations

from analyser.titles.dao.rules import DaoState


def describe_state(game, s: DaoState) -> str:
    disp = ", ".join(str(c) for c in s.display) or "(empty)"
    scores = game.scores(s)
    half = f" half {s.half + 1}" if s.params.halves(s.n) else ""
    lines = [f"deck {len(s.deck)}{half} | display [{disp}] total {s.total}"]
    for seat in range(s.n):
        lines.append(f"  seat {seat}: {len(s.piles[seat])} cards, score {scores[seat]}")
    return "\n".join(lines)
