"""The ``secrets`` component (analyser.engine.components): one value per seat that only its seat
sees - its view reads the seat's own entry, the copy copies it, JSON keeps it, and the re-deal
of hidden cards leaves it alone."""

import random
from dataclasses import dataclass

from analyser import View, face_down, seat_secrets
from analyser.engine import derive


@dataclass(slots=True)
class SealedState:
    n: int
    bids: list[int | None] = seat_secrets(lambda: [None, None])
    deck: list[int] = face_down()
    round: int = 1


def test_a_seat_sees_its_own_secret_only():
    s = SealedState(2, bids=[5, None], deck=[1, 2, 3])
    v0, v1 = derive.view(s, 0), derive.view(s, 1)
    assert (v0.bids, v1.bids) == (5, None)
    assert not hasattr(v0, "bids_sizes") and v0.deck_size == 3 and v0.round == 1
    s.bids[1] = 7  # a live view reads through
    assert (v0.bids, v1.bids) == (5, 7)
    assert isinstance(v0, View) and v0.unseen == [1, 2, 3]  # the deck's cards; the bids are not cards


def test_secrets_are_copied_saved_and_left_alone_by_the_redeal():
    s = SealedState(2, bids=[5, None], deck=[1, 2, 3])
    t = derive.clone(s)
    assert t == s and t.bids is not s.bids
    assert derive.state_to_dict(s) == {"n": 2, "bids": [5, None], "deck": [1, 2, 3], "round": 1}
    assert derive.from_fields(SealedState, derive.state_to_dict(s), "state") == s
    r = derive.resample_hidden(s, 0, random.Random(3))
    assert r.bids == [5, None] and sorted(r.deck) == [1, 2, 3]
    assert SealedState(2).bids == [None, None]  # the factory gives the default
