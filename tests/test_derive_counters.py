"""Counters with a visibility (analyser.engine.components.counters): what the derived view shows
of them and that the derived resample_hidden keeps them (they are numbers, not cards)."""

import random
from dataclasses import dataclass

from analyser.engine import components as part
from analyser.engine import derive


@dataclass(slots=True)
class Sealed:
    deck: list[int] = part.face_down()
    hands: list[list[int]] = part.seat_zones()
    coins: list[int] = part.seat_counters()
    marks: list[int] = part.seat_counters(part.OWNER)
    bids: list[int | None] = part.seat_counters(part.NOBODY)


def state():
    return Sealed(deck=[1, 2, 3, 4, 5, 6], hands=[[7, 8], [9, 10]], coins=[3, 4], marks=[11, 12], bids=[5, None])


def test_the_view_shows_public_counters_the_own_number_of_owner_counters_and_no_hidden_bid():
    s = state()
    v = derive.view(s, 1)
    assert v.coins == [3, 4] and v.marks == 12 and derive.view(s, 0).marks == 11
    assert not hasattr(v, "bids") and not hasattr(v, "bids_size") and not hasattr(v, "marks_size")
    assert v.unseen == [1, 2, 3, 4, 5, 6, 7, 8]  # the cards, never the numbers


def test_resample_hidden_redeals_cards_only_and_keeps_every_counter():
    s = state()
    for seed in range(20):
        t = derive.resample_hidden(s, 1, random.Random(seed))
        assert (t.coins, t.marks, t.bids) == ([3, 4], [11, 12], [5, None])
        assert t.hands[1] == [9, 10] and sorted(t.deck + t.hands[0]) == [1, 2, 3, 4, 5, 6, 7, 8]
    assert any(derive.resample_hidden(s, 1, random.Random(k)).deck != s.deck for k in range(20))
