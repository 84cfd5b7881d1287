"""The re-deal behind resample_hidden and determinize keeps each kind of card (``cards=`` of a
component declaration) among the zones of that kind; one kind deals as before."""

from __future__ import annotations

import random
from dataclasses import dataclass

from analyser.engine import derive
from analyser.engine.components import face_down, seat_zones


@dataclass(slots=True)
class TwoKinds:
    tiles: list[int] = face_down()
    held: list[list[int]] = seat_zones()
    monsters: list[int] = face_down(cards="monsters")


@dataclass(slots=True)
class OneKind:
    tiles: list[int] = face_down()
    held: list[list[int]] = seat_zones()


def test_a_redeal_never_moves_a_card_to_a_zone_of_another_kind():
    s = TwoKinds(tiles=[1, 2, 3, 4], held=[[5, 6], [7, 8]], monsters=[0, 1, 2])
    seen = set()
    for k in range(40):
        t = derive.resample_hidden(s, 0, random.Random(k))
        assert sorted(t.monsters) == [0, 1, 2] and t.held[0] == [5, 6]
        assert sorted(t.tiles + t.held[1]) == [1, 2, 3, 4, 7, 8] and len(t.held[1]) == 2
        seen.add((tuple(t.tiles), tuple(t.monsters)))
    assert len(seen) > 20  # both kinds are shuffled
    assert s == TwoKinds(tiles=[1, 2, 3, 4], held=[[5, 6], [7, 8]], monsters=[0, 1, 2])


def test_one_kind_deals_the_sorted_unseen_cards_shuffled_into_the_same_places():
    s = OneKind(tiles=[9, 2, 4], held=[[5], [7, 1]])
    t = derive.resample_hidden(s, 0, random.Random(3))
    pool = derive.shuffled([1, 2, 4, 7, 9], random.Random(3))  # sorted, then in random-key order
    assert sorted(pool) == [1, 2, 4, 7, 9] and t.tiles == pool[:3] and t.held == [[5], pool[3:]]
