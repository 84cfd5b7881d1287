"""Tsuro of the Seas: geometry, data files, scenario tests per rule and ruling, persistence,
strategies and figures.  RULES.md §Tsuro of the Seas; rulings in analyser/titles/tsuro_seas/rules.py."""

from __future__ import annotations

import json
import math
import pickle
import random
import re
from collections import Counter

import pytest

from analyser.engine.core import InputError
from analyser.titles.tsuro_seas import TITLE as GAME
from analyser.titles.tsuro_seas import rules as ts
from analyser.titles.tsuro_seas.rules import (NEXT, ROTATIONS, START_POINTS, TILE_NAMES, Exchange, MoveStart,
                                       Place, Start, TsuroParams, TsuroState, load_tiles, parse_pairs,
                                       rotate_layout, tile_of)
from analyser.engine.registry import make_strategy
from analyser.io.validate import validate_columns

# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------


def numbers(text: str) -> list[float]:
    """The numbers of a description, in order ("faces 2 and 6 of die 1" -> [2, 6, 1])."""
    return [float(x) for x in re.findall(r"\d+(?:\.\d+)?", text)]


def sq(r, c):
    return r * 7 + c


def st(r, c, p):
    """Ship state: facing square (r, c), entering it through port p."""
    return sq(r, c) * 8 + p


def tid(pairs: str) -> int:
    return tile_of(parse_pairs(pairs))[0]


def place(pairs: str) -> Place:
    """The Place action laying exactly the oriented layout ``pairs``."""
    return Place(*tile_of(parse_pairs(pairs)))


class Script:
    """A stand-in for random.Random whose random() returns scripted values (dice via die())."""

    def __init__(self, values):
        self.values = list(values)

    def random(self):
        assert self.values, "the rules drew more random numbers than scripted"
        return self.values.pop(0)


def die(*faces):
    """random() values that make int(random() * 6) + 1 give these faces."""
    return [(f - 0.5) / 6 for f in faces]


def build(n=2, ships=None, tiles=None, kaiju=None, hands=None, pile=None, active=0, phase="place",
          params=None, stack=None, turn=1):
    """A hand-built state: ``tiles`` {(r, c): oriented pairs}, ``kaiju`` {(r, c): (id, rotation)},
    ``ships`` {seat: (r, c, port)} (missing seats are already eliminated)."""
    ships = ships or {}
    s = TsuroState(params=params or TsuroParams(), players=n, phase=phase, current=active, active=active, turn=turn,
                   board=[-1] * 49, kaiju=[-1] * 49, kaiju_sq=[-1] * 10, kaiju_rot=[0] * 10,
                   kaiju_stack=list(stack or []), pile=list(pile or []),
                   hands=[list(h) for h in hands] if hands else [[] for _ in range(n)],
                   pos=[-1] * n, alive=[True] * n, elim_turn=[0] * n, elim_cause=[""] * n,
                   elim_square=[-1] * n, tasks=[], face=0, reloc=[], winners=[], end_reason="",
                   events=[], prev_events=[], afloat=[0] * n, pool=[[] for _ in range(n)])
    for (r, c), pairs in (tiles or {}).items():
        t, rot = tile_of(parse_pairs(pairs))
        s.board[sq(r, c)] = t * 4 + rot
    for (r, c), (k, rot) in (kaiju or {}).items():
        s.kaiju[sq(r, c)] = k
        s.kaiju_sq[k] = sq(r, c)
        s.kaiju_rot[k] = rot
    for seat in range(n):
        if seat in ships:
            s.pos[seat] = st(*ships[seat])
        else:
            s.alive[seat] = False
            s.elim_turn[seat] = max(1, turn - 1)
            s.elim_cause[seat] = "edge"
    return s


FILLER = "01 23 45 67"  # a tile joining each side's two ports (a U-turn on every side)
SAFE = "04 15 26 37"    # straight across both ways
# tile layouts named by their port pairs (test data, not text)
T01_25_37_46, T06_15_23_47, T04_13_26_57 = "01 25 37 46", "06 15 23 47", "04 13 26 57"


def begin(s, seat, rng):
    """Start ``seat``'s turn (the daikaiju step) on a hand-built state."""
    s.current = seat
    s.phase = "turn"
    GAME._begin_turn(s, rng)


def tile_count(s):
    return sum(1 for c in s.board if c >= 0) + len(s.pile) + sum(map(len, s.hands)) + sum(map(len, s.pool))


# --------------------------------------------------------------------------------------------
# geometry and data
# --------------------------------------------------------------------------------------------

def test_port_neighbour_map():
    # port p meets port [5,4,7,6,1,0,3,2][p] of the neighbour across that side
    assert ts.OPP == (5, 4, 7, 6, 1, 0, 3, 2)
    assert NEXT[sq(3, 3) * 8 + 0] == st(2, 3, 5)   # top-left -> the square above, bottom-left
    assert NEXT[sq(3, 3) * 8 + 1] == st(2, 3, 4)
    assert NEXT[sq(3, 3) * 8 + 2] == st(3, 4, 7)   # right-top -> the square right, left-top
    assert NEXT[sq(3, 3) * 8 + 3] == st(3, 4, 6)
    assert NEXT[sq(3, 3) * 8 + 4] == st(4, 3, 1)
    assert NEXT[sq(3, 3) * 8 + 5] == st(4, 3, 0)
    assert NEXT[sq(3, 3) * 8 + 6] == st(3, 2, 3)
    assert NEXT[sq(3, 3) * 8 + 7] == st(3, 2, 2)
    assert NEXT[sq(0, 4) * 8 + 1] == -1 and NEXT[sq(6, 6) * 8 + 3] == -1 and NEXT[sq(2, 0) * 8 + 6] == -1


def test_rotation_maps_port_p_to_p_plus_2():
    lay = parse_pairs(T01_25_37_46)
    once = rotate_layout(lay, 1)
    assert ts.layout_name(once) == T06_15_23_47   # 0-1 -> 2-3, 2-5 -> 4-7, 3-7 -> 5-1, 4-6 -> 6-0
    for p in range(8):
        assert once[(p + 2) % 8] == (lay[p] + 2) % 8
    assert rotate_layout(lay, 4) == lay


def test_35_classes_and_distinct_rotations():
    assert len(TILE_NAMES) == 35
    assert sum(len(r) for r in ROTATIONS) == 105      # every pairing of 8 ports exactly once
    assert ROTATIONS[tid(FILLER)] == (0,)       # fully symmetric tiles keep one rotation
    assert ROTATIONS[tid(SAFE)] == (0,)
    assert len(ROTATIONS[tid(T01_25_37_46)]) == 4


def test_tile_set_is_56_tiles_covering_all_35_classes():
    tiles = load_tiles("")
    assert len(tiles) == 56
    counts = Counter(tiles)
    assert len(counts) == 35
    assert counts[tid(T01_25_37_46)] == 4
    assert counts[tid(T04_13_26_57)] == 3
    assert sorted(Counter(counts.values()).items()) == [(1, 17), (2, 16), (3, 1), (4, 1)]


def test_start_points_order():
    assert len(START_POINTS) == 56 and len(set(START_POINTS)) == 56
    assert START_POINTS[:3] == (st(0, 0, 0), st(0, 0, 1), st(0, 1, 0))
    assert START_POINTS[14:16] == (st(0, 6, 2), st(0, 6, 3))
    assert START_POINTS[28:30] == (st(6, 6, 4), st(6, 6, 5))
    assert START_POINTS[-1] == st(0, 0, 7)
    assert all(NEXT[x] == -1 for x in START_POINTS)


def test_custom_tile_file_and_errors(tmp_path):
    good = tmp_path / "tiles.csv"
    good.write_text("# my set\ncopies,pairs\n20,23 45 67 01\n10,04 15 26 37\n")
    p = TsuroParams.from_overrides({"tiles": str(good)})
    assert Counter(load_tiles(p.tiles)) == {tid(FILLER): 20, tid(SAFE): 10}
    s = GAME.initial_state(p, 4, random.Random(1))
    assert tile_count(s) == 30
    bad = tmp_path / "bad.csv"
    bad.write_text("copies,pairs\n2,01 23 45 66\n")
    with pytest.raises(InputError, match=r"bad\.csv.*line 2"):
        TsuroParams.from_overrides({"tiles": str(bad)})
    with pytest.raises(InputError, match="missing.csv"):
        TsuroParams.from_overrides({"tiles": str(tmp_path / "missing.csv")})
    header = tmp_path / "header.csv"
    header.write_text("n,tile\n1,01 23 45 67\n")
    with pytest.raises(InputError, match="header"):
        TsuroParams(tiles=str(header))
    small = tmp_path / "small.csv"
    small.write_text("copies,pairs\n6,01 23 45 67\n")
    with pytest.raises(InputError, match="at least 9"):
        GAME.initial_state(TsuroParams(tiles=str(small)), 3, random.Random(1))


def test_daikaiju_layout_file(tmp_path):
    layout = ts.load_daikaiju("")
    # tile n rotates on face n; faces n+1..n+4 move up, left, down, right (cyclic)
    up, right, down, left, rot = range(5)
    assert layout[0] == (rot, up, left, down, right)       # gold 1
    assert layout[1] == layout[0]                          # blue 1
    assert layout[2 * 2] == (down, right, rot, up, left)   # gold 3
    bad = tmp_path / "k.csv"
    bad.write_text("colour,number,face1,face2,face3,face4,face5\ngold,1,up,up,up,up,jump\n")
    with pytest.raises(InputError, match=r"k\.csv.*line 2: .*face5") as e:
        TsuroParams(daikaiju_layout=str(bad))
    assert "jump" not in str(e.value)  # the file's content is never quoted
    short = tmp_path / "short.csv"
    short.write_text("colour,number,face1,face2,face3,face4,face5\ngold,1,up,up,up,up,up\n")
    with pytest.raises(InputError, match="lacks"):
        TsuroParams(daikaiju_layout=str(short))


# --------------------------------------------------------------------------------------------
# setup
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("players,count", [(2, 6), (3, 6), (4, 6), (5, 5), (6, 5), (7, 4), (8, 4)])
def test_daikaiju_count_by_players(players, count):
    s = GAME.initial_state(TsuroParams(), players, random.Random(players))
    assert sum(1 for k in s.kaiju if k >= 0) == count
    assert len(s.kaiju_stack) == 10 - count
    assert all(len(h) == 3 for h in s.hands) and len(s.pile) == 56 - 3 * players
    # skip_centre: the centre row and column are never targeted by the dice
    assert all(k < 0 for i, k in enumerate(s.kaiju) if i // 7 == 3 or i % 7 == 3)


def test_daikaiju_off_setup_and_game():
    p = TsuroParams(daikaiju="off")
    s = GAME.initial_state(p, 4, random.Random(3))
    assert s.kaiju == [-1] * 49 and s.kaiju_stack == []
    rng, pick = random.Random(3), random.Random(4)
    while not GAME.is_terminal(s):
        GAME.apply(s, pick.choice(GAME.legal_actions(s)), rng)
        assert all(e[0] not in ("roll", "face", "move", "new", "three") for e in s.events)
    assert "daikaiju" not in s.elim_cause


def test_dice_coordinates_each_way():
    faces = die(1, 3, 4, 6)
    assert [ts._coord(Script(faces[i:i + 1]), "skip_centre") for i in range(4)] == [0, 2, 4, 6]
    assert [ts._coord(Script(faces[i:i + 1]), "first_six") for i in range(4)] == [0, 2, 3, 5]
    assert ts._coord(Script([0.999]), "uniform") == 6 and ts._coord(Script([3.5 / 7]), "uniform") == 3
    # gold die = column, blue die = row
    assert ts.dice_square(Script(die(2, 5)), "skip_centre") == sq(5, 1)
    assert ts.dice_square(Script(die(2, 5)), "first_six") == sq(4, 1)
    counts = Counter(ts.dice_square(random.Random(i), "first_six") for i in range(2000))
    assert all(x // 7 < 6 and x % 7 < 6 for x in counts)
    counts = Counter(ts.dice_square(random.Random(i), "uniform") for i in range(3000))
    assert len(counts) == 49


def test_start_choice_is_a_decision_in_seat_order():
    s = GAME.initial_state(TsuroParams(), 3, random.Random(7))
    assert s.phase == "start" and GAME.current_player(s) == 0
    legal = GAME.legal_actions(s)
    assert len(legal) == 56 and legal[0] == Start((0, 0), 0) and legal[-1] == Start((0, 0), 7)
    GAME.apply(s, Start((0, 3), 1), random.Random(1))
    assert GAME.current_player(s) == 1
    legal = GAME.legal_actions(s)
    assert len(legal) == 55 and Start((0, 3), 1) not in legal and Start((0, 3), 0) in legal


# --------------------------------------------------------------------------------------------
# placement and movement
# --------------------------------------------------------------------------------------------

def test_legal_placements_distinct_rotations_in_order():
    a, b = tid(T01_25_37_46), tid(FILLER)
    s = build(ships={0: (3, 3, 0), 1: (6, 6, 4)}, tiles={(2, 3): SAFE}, hands=[[a, b, a], []])
    legal = GAME.legal_actions(s)
    assert legal == tuple(sorted({Place(b, 0)} | {Place(a, r) for r in range(4)}))
    assert [x.tile for x in legal] == sorted(x.tile for x in legal)


def test_route_moves_to_the_end_and_draws_back_to_three():
    # ship 0 on (2,3) faces (3,3) through port 0; a straight tile carries it to (4,3), then on
    # through a straight tile already at (4,3) to (5,3)
    s = build(n=3, ships={0: (3, 3, 0), 1: (6, 6, 4), 2: (0, 0, 0)}, tiles={(2, 3): SAFE, (4, 3): SAFE},
              hands=[[tid(SAFE)], [1, 2, 3], [4, 5, 6]], pile=[7, 8, 9])
    GAME.apply(s, place(SAFE), random.Random(0))
    assert s.pos[0] == st(5, 3, 0)
    assert s.hands[0] == [9, 8, 7] and s.pile == []
    assert s.active == 1 and s.turn == 2


def test_one_tile_moves_several_ships():
    # ships 0 and 1 both face (3,3): 0 from above (port 0), 1 from the right (port 3)
    s = build(n=3, ships={0: (3, 3, 0), 1: (3, 3, 3), 2: (6, 0, 5)},
              tiles={(2, 3): SAFE, (3, 4): SAFE}, hands=[[tid(SAFE)], [1], [2]],
              params=TsuroParams(daikaiju="off"))
    # 0 -> 4 (down: stops facing (4,3)); 3 -> 7 (left: stops facing (3,2))
    GAME.apply(s, place(SAFE), random.Random(0))
    assert s.pos[0] == st(4, 3, 1) and s.pos[1] == st(3, 2, 2)
    assert all(s.alive)


def test_head_on_meeting_is_legal_and_eliminates_both():
    # ships 0 (port 0) and 1 (port 1) face (3,3) from above; a tile joining 0-1 turns each into the other
    head_on = "01 25 36 47"
    s = build(n=3, ships={0: (3, 3, 0), 1: (3, 3, 1), 2: (6, 0, 5)}, tiles={(2, 3): SAFE},
              hands=[[tid(head_on), tid(SAFE)], [1], [2]], params=TsuroParams(daikaiju="off"))
    legal = GAME.legal_actions(s)
    assert place(head_on) in legal            # legal although non-suicidal placements exist
    assert place(SAFE) in legal
    res = GAME.view(s, 0).preview(place(head_on))
    assert sorted((r[0], r[1]) for r in res) == [(0, ts.MEET), (1, ts.MEET)]
    GAME.apply(s, place(head_on), random.Random(0))
    assert s.alive == [False, False, True]
    assert s.elim_cause[:2] == ["collision", "collision"] and s.elim_square[:2] == [sq(3, 3)] * 2
    assert s.phase == "over" and s.winners == [2] and s.end_reason == "last_ship"


def test_simultaneous_elimination_of_all_survivors_is_a_shared_win():
    head_on = "01 25 36 47"
    s = build(n=3, ships={0: (3, 3, 0), 1: (3, 3, 1)}, tiles={(2, 3): SAFE},
              hands=[[tid(head_on)], [1], []], params=TsuroParams(daikaiju="off"), turn=5)
    GAME.apply(s, place(head_on), random.Random(0))
    assert s.phase == "over" and s.end_reason == "all_sunk"
    assert GAME.winners(s) == [0, 1]
    assert GAME.ranks(s) == [1, 1, 3]
    m = GAME.metrics(s)
    assert [x["survived"] for x in m] == [0, 0, 0] and m[0]["cause"] == "collision" and m[0]["elim_turn"] == 5


def test_route_through_the_new_tile_twice():
    # (3,3): enter 7 -> exit 2 -> (3,4) 7->5 -> (4,4) 0->6 -> (4,3) 3->1 -> back into (3,3) at 4 -> 0 -> stop facing (2,3)
    tiles = {(3, 2): FILLER, (3, 4): "01 23 46 57", (4, 4): "06 12 34 57", (4, 3): "02 13 45 67"}
    twice = "04 13 27 56"
    s = build(ships={0: (3, 3, 7), 1: (6, 0, 5)}, tiles=tiles, hands=[[tid(twice)], [1]],
              params=TsuroParams(daikaiju="off"))
    assert place(twice) in GAME.legal_actions(s)
    GAME.apply(s, place(twice), random.Random(0))
    assert s.alive[0] and s.pos[0] == st(2, 3, 5)


LOOP_TILES = {(3, 2): "01 24 35 67", (3, 4): "01 23 46 57", (4, 4): "06 12 34 57", (4, 3): "01 24 36 57",
              (4, 2): "02 13 45 67"}
LOOP = "01 27 34 56"   # enter (3,3) at 7, out at 2, round (3,4) (4,4) (4,3) (4,2) (3,2) and back in at 7


def test_loop_is_detected_on_square_and_port_and_is_illegal():
    s = build(ships={0: (3, 3, 7), 1: (6, 0, 5)}, tiles=LOOP_TILES, hands=[[tid(LOOP), tid(SAFE)], [1]],
              params=TsuroParams(daikaiju="off"))
    res = GAME.view(s, 0).preview(place(LOOP))
    assert res == [(0, ts.LOOP, -1, sq(3, 3))]
    legal = GAME.legal_actions(s)
    assert place(LOOP) not in legal and place(SAFE) in legal


def test_forced_loop_eliminates():
    # daikaiju block the two stopping points of the other rotations, so every placement is suicidal
    s = build(n=3, ships={0: (3, 3, 7), 1: (6, 0, 5), 2: (0, 6, 1)}, tiles=LOOP_TILES,
              kaiju={(2, 3): (4, 0), (5, 3): (5, 0)}, hands=[[tid(LOOP)], [1], [2]], pile=[9])
    legal = GAME.legal_actions(s)
    assert len(legal) == 4 and place(LOOP) in legal
    rng = Script(die(1, 1))        # next turn: dice sum 2, no daikaiju movement
    GAME.apply(s, place(LOOP), rng)
    assert not s.alive[0] and s.elim_cause[0] == "loop" and s.elim_square[0] == sq(3, 3)
    assert s.phase == "place" and s.active == 1


def test_forced_move_fallback_when_every_placement_is_suicidal():
    # ship on the top edge of (0,3); daikaiju left, right and below: every exit is the edge or a daikaiju
    s = build(n=3, ships={0: (0, 3, 0), 1: (6, 0, 5), 2: (6, 6, 4)},
              kaiju={(0, 2): (2, 0), (0, 4): (3, 0), (1, 3): (4, 0)},
              hands=[[tid(SAFE), tid(T01_25_37_46)], [1], [2]], pile=[5, 6])
    legal = GAME.legal_actions(s)
    assert set(legal) == {Place(tid(SAFE), 0)} | {Place(tid(T01_25_37_46), r) for r in range(4)}
    # the straight tile sends the ship down into the daikaiju at (1,3)
    GAME.apply(s, Place(tid(SAFE), 0), Script(die(1, 1)))
    assert not s.alive[0] and s.elim_cause[0] == "daikaiju" and s.elim_square[0] == sq(0, 3)
    # 0-1 joined: straight back off the top edge
    s = build(n=3, ships={0: (0, 3, 0), 1: (6, 0, 5), 2: (6, 6, 4)},
              kaiju={(0, 2): (2, 0), (0, 4): (3, 0), (1, 3): (4, 0)}, hands=[[tid("01 25 36 47")], [1], [2]])
    GAME.apply(s, place("01 25 36 47"), Script(die(1, 1)))
    assert s.elim_cause[0] == "edge" and s.elim_square[0] == sq(0, 3)


def test_edge_exit_of_another_ship_and_collision_rules():
    # active 0 faces (0,3) from below... laid tile sends ship 1 (on its start point at (0,3) port 1)
    # off the top edge while 0 sails on: legal (eliminating others is allowed)
    kill = T01_25_37_46  # 1 -> 0: ship 1 enters at 1 and leaves through 0, off the board
    s = build(n=3, ships={0: (0, 3, 4), 1: (0, 3, 1), 2: (6, 0, 5)}, tiles={(1, 3): SAFE},
              hands=[[tid(kill)], [1, 2], [3]], params=TsuroParams(daikaiju="off"))
    res = dict((r[0], r[1]) for r in GAME.view(s, 0).preview(place(kill)))
    assert res == {0: ts.STOP, 1: ts.EDGE}
    assert place(kill) in GAME.legal_actions(s)


def test_two_ships_on_the_same_wake_same_direction():
    # ship 1 rests facing (3,5), on (3,4) whose 7-2 path it came along from (3,3) (a square a
    # daikaiju emptied). Ship 0 faces (3,3) from above; a tile joining 0-2 sends it along the same wake.
    same = "02 13 46 57"
    s = build(n=3, ships={0: (3, 3, 0), 1: (3, 5, 7), 2: (6, 0, 5)}, tiles={(2, 3): SAFE, (3, 4): "01 27 34 56"},
              hands=[[tid(same), tid(SAFE)], [1], [2]], params=TsuroParams(daikaiju="off"))
    res = sorted(GAME.view(s, 0).preview(place(same)))
    assert [(r[0], r[1]) for r in res] == [(0, ts.SAME), (1, ts.SAME)]
    assert place(same) not in GAME.legal_actions(s)
    # forced: both are eliminated as a collision
    s.hands[0] = [tid(same)]
    s.cache = None
    s.kaiju[sq(4, 3)] = 0           # make every other placement suicidal too
    s.kaiju_sq[0] = sq(4, 3)
    s.kaiju[sq(3, 2)] = 1
    s.kaiju_sq[1] = sq(3, 2)
    assert place(same) in GAME.legal_actions(s)
    assert all(ts.suicidal(GAME.view(s, 0).preview(a), 0) for a in GAME.legal_actions(s))
    GAME.apply(s, place(same), Script(die(1, 1)))
    assert s.alive == [False, False, True] and s.elim_cause[:2] == ["collision", "collision"]


def test_start_point_ship_moves_when_a_tile_is_laid_in_front_of_it():
    # ship 1 on its start point (0,3) port 1 and active ship 0 (from below, port 4) both face (0,3);
    # the tile sends 0 out through port 2 and ship 1 out through port 6
    both = "03 16 24 57"
    s = build(n=3, ships={0: (0, 3, 4), 1: (0, 3, 1), 2: (6, 0, 5)}, tiles={(1, 3): SAFE},
              hands=[[tid(both)], [1], [2]], params=TsuroParams(daikaiju="off"))
    GAME.apply(s, place(both), random.Random(0))
    assert s.pos[0] == st(0, 4, 7) and s.pos[1] == st(0, 2, 3) and all(s.alive)


def test_exchange_list_leaves_out_same_tile_swaps():
    legal = GAME._exchanges([10, 11], [10, 20])
    assert legal[0] == Exchange((), ())
    assert Exchange((10,), (10,)) not in legal and Exchange((10, 11), (10, 20)) not in legal
    assert legal[1:] == (Exchange((10,), (20,)), Exchange((11,), (10,)), Exchange((11,), (20,)))


# --------------------------------------------------------------------------------------------
# elimination bonus, pile and end
# --------------------------------------------------------------------------------------------

def test_elimination_bonus_exchange_and_returned_tiles():
    kill = T01_25_37_46
    s = build(n=3, ships={0: (0, 3, 4), 1: (0, 3, 1), 2: (6, 0, 5)}, tiles={(1, 3): SAFE},
              hands=[[tid(kill), 10, 11], [20, 21, 22], [30]], pile=[1, 2, 3, 4],
              params=TsuroParams(daikaiju="off"))
    GAME.apply(s, place(kill), random.Random(0))
    assert not s.alive[1] and s.elim_cause[1] == "edge"
    assert s.phase == "exchange" and GAME.current_player(s) == 0
    legal = GAME.legal_actions(s)
    assert legal[0] == Exchange((), ())
    assert Exchange((10,), (21,)) in legal and Exchange((10, 11), (20, 22)) in legal
    assert len(legal) == 1 + 2 * 3 + 1 * 3
    view = GAME.view(s, 0)
    assert view.pool == (20, 21, 22) and GAME.view(s, 2).pool == ()
    GAME.apply(s, Exchange((10,), (21,)), random.Random(0))
    assert sorted(s.hands[0][:2]) == [11, 21] and len(s.hands[0]) == 3
    # the rest of the pool goes under the pile (the given tile last: it came back to the pool last)
    assert s.pile[:3] == [20, 22, 10]
    assert s.hands[0][2] == 4 and s.pile[3:] == [1, 2, 3]


def test_no_bonus_when_off_or_active_sinks():
    kill = T01_25_37_46
    s = build(n=3, ships={0: (0, 3, 4), 1: (0, 3, 1), 2: (6, 0, 5)}, tiles={(1, 3): SAFE},
              hands=[[tid(kill), 10], [20, 21], [30]], pile=[1],
              params=TsuroParams(daikaiju="off", elimination_bonus="off"))
    GAME.apply(s, place(kill), random.Random(0))
    assert s.phase == "place" and s.active == 2
    # ship 1's hand went under the pile [1] -> [20, 21, 1]; seat 0 then drew 1 and 21
    assert s.pile == [20] and s.hands[0] == [10, 1, 21]


def test_no_tile_to_place_ends_in_a_shared_win_of_the_survivors():
    # the pile is empty and the active player has no tile: every surviving ship shares the win
    s = build(n=4, ships={0: (3, 3, 0), 1: (6, 0, 5), 2: (6, 6, 4)}, tiles={(2, 3): SAFE},
              hands=[[tid(SAFE)], [], [1], []], params=TsuroParams(daikaiju="off"), turn=30)
    GAME.apply(s, place(SAFE), random.Random(0))
    assert s.phase == "over" and s.end_reason == "no_tiles"
    assert GAME.winners(s) == [0, 1, 2]
    assert [m["survived"] for m in GAME.metrics(s)] == [1, 1, 1, 0]
    assert all(m["turns"] == 31 for m in GAME.metrics(s))


def test_empty_hand_draws_before_placing_when_the_pile_refilled():
    s = build(n=3, ships={0: (3, 3, 0), 1: (6, 0, 5), 2: (6, 6, 4)}, tiles={(2, 3): SAFE},
              hands=[[tid(SAFE)], [], [1]], pile=[5, 6], params=TsuroParams(daikaiju="off"))
    GAME.apply(s, place(SAFE), random.Random(0))
    assert s.pile == [] and s.hands[0] == [6, 5]
    # seat 1 had no tile after its last draw, but the pile was refilled meanwhile? here the pile is
    # empty, so the game ends for lack of tiles
    assert s.phase == "over" and s.end_reason == "no_tiles"
    s = build(n=3, ships={0: (3, 3, 0), 1: (6, 0, 5), 2: (6, 6, 4)}, tiles={(2, 3): SAFE},
              hands=[[tid(SAFE)], [], [1]], pile=[5, 6, 7, 8], params=TsuroParams(daikaiju="off"))
    GAME.apply(s, place(SAFE), random.Random(0))
    assert s.phase == "place" and s.active == 1 and s.hands[1] == [5] and s.hands[0] == [8, 7, 6]


def test_max_turns_cap_is_a_shared_win_of_survivors():
    s = build(n=4, ships={0: (3, 3, 0), 1: (6, 0, 5), 2: (6, 6, 4)}, tiles={(2, 3): SAFE},
              hands=[[tid(SAFE)], [1], [2], []], pile=[3, 4], params=TsuroParams(daikaiju="off", max_turns=2),
              turn=2)
    s.afloat = [1, 1, 1, 0]  # seats 0-2 finished one turn of their own afloat; seat 3 is out
    GAME.apply(s, place(SAFE), random.Random(0))
    assert s.phase == "over" and s.end_reason == "max_turns" and s.turn == 2
    # the score counts each ship's own turns afloat: seat 0 just finished its second
    assert GAME.winners(s) == [0, 1, 2] and GAME.scores(s) == [2, 1, 1, 0]
    assert [m["end"] for m in GAME.metrics(s)] == ["max_turns"] * 4
    # from a real deal the cap holds too
    s = GAME.initial_state(TsuroParams(max_turns=3), 4, random.Random(11))
    rng, pick = random.Random(11), random.Random(12)
    while not GAME.is_terminal(s):
        GAME.apply(s, pick.choice(GAME.legal_actions(s)), rng)
    assert s.turn <= 3


# --------------------------------------------------------------------------------------------
# daikaiju
# --------------------------------------------------------------------------------------------
# default layout, face 2: number 1 moves "up" in its own frame, number 2 rotates, 3 right, 4 down, 5 left

def _turn_state(n=3, kaiju=None, tiles=None, ships=None, **kw):
    ships = ships or {0: (3, 3, 0), 1: (6, 0, 5), 2: (6, 6, 4)}
    tiles = {(2, 3): SAFE, **(tiles or {})}
    return build(n=n, ships=ships, tiles=tiles, kaiju=kaiju,
                 hands=[[tid(SAFE)], [1], [2], [3]][:n], pile=[7, 8, 9], phase="turn", **kw)


def test_sum_6_7_8_triggers_one_die_for_all_daikaiju():
    kaiju = {(0, 0): (2, 0), (6, 6): (3, 0), (5, 0): (0, 1)}   # gold 2, blue 2 rotate; gold 1 faces right
    for g, b, moved in ((1, 4, False), (2, 4, True), (3, 4, True), (4, 4, True), (4, 5, False), (6, 6, False)):
        s = _turn_state(kaiju=kaiju)
        rng = Script(die(g, b) + (die(2) if moved else []))
        begin(s, 0, rng)
        assert not rng.values
        assert (s.kaiju_sq[0] == sq(5, 1)) == moved
        assert (s.kaiju_rot[2] == 3) == moved       # rotate = a quarter turn counter-clockwise
        assert s.phase == "place" and s.current == 0


def test_daikaiju_off_the_board_is_removed_from_the_game():
    s = _turn_state(kaiju={(0, 0): (0, 0), (6, 6): (2, 0), (5, 0): (3, 0)})   # gold 1 at the top-left, facing up
    begin(s, 0, Script(die(3, 4, 2)))
    assert s.kaiju_sq[0] == -1 and s.kaiju[sq(0, 0)] == -1 and 0 not in s.kaiju_stack


def test_daikaiju_onto_a_wake_tile_sinks_it_and_the_ship_on_it():
    # ship 1 is on the tile at (4,1) (facing (4,2) through its port 7); gold 1 at (4,0) turned right
    s = _turn_state(kaiju={(4, 0): (0, 1), (0, 0): (2, 0), (6, 6): (3, 0)}, tiles={(4, 1): SAFE},
                    ships={0: (3, 3, 0), 1: (4, 2, 7), 2: (6, 6, 4)})
    begin(s, 0, Script(die(3, 4, 2)))
    assert s.kaiju[sq(4, 1)] == 0 and s.board[sq(4, 1)] == -1
    # the tile went under the pile, then ship 1's hand under it
    assert s.pile[:3] == [1, tid(SAFE), 7]
    assert not s.alive[1] and s.elim_cause[1] == "daikaiju" and s.elim_square[1] == sq(4, 1)
    assert s.alive[0] and s.phase == "place"


def test_daikaiju_onto_another_daikaiju_removes_it_priority_gold_first():
    # gold 1 (right) and blue 1 (left) both move into (2,1): gold acts first, blue lands on it
    s = _turn_state(kaiju={(2, 0): (0, 1), (2, 2): (1, 3), (0, 6): (2, 0)})
    begin(s, 0, Script(die(3, 4, 2)))
    assert s.kaiju[sq(2, 1)] == 1 and s.kaiju_sq[0] == -1 and s.kaiju_sq[1] == sq(2, 1)
    moves = [e for e in s.events if e[0] in ("move", "crush")]
    assert moves == [("move", 0, sq(2, 0), sq(2, 1)), ("move", 1, sq(2, 2), sq(2, 1)), ("crush", 1, 0, sq(2, 1))]


def test_removed_daikaiju_does_not_act():
    # gold 1 moves onto blue 2 (which would rotate later in the order): blue 2 is gone and never acts
    s = _turn_state(kaiju={(5, 5): (0, 1), (5, 6): (3, 0), (0, 0): (2, 0)})
    begin(s, 0, Script(die(3, 4, 2)))
    assert s.kaiju_sq[3] == -1 and s.kaiju[sq(5, 6)] == 0
    assert not any(e[0] == "rotate" and e[1] == 3 for e in s.events)


def test_daikaiju_onto_the_square_in_front_of_the_active_ship_eliminates_it():
    # active ship 0 faces (3,3); gold 1 at (3,2) turned right moves into it
    s = _turn_state(kaiju={(3, 2): (0, 1), (0, 0): (2, 0), (6, 6): (3, 0)})
    # the turn passes to seat 1, whose daikaiju step follows at once (dice 1+1: nothing)
    begin(s, 0, Script(die(3, 4, 2) + die(1, 1)))
    assert not s.alive[0] and s.elim_cause[0] == "daikaiju" and s.elim_square[0] == sq(2, 3)
    assert s.phase == "place" and s.current == 1 and s.turn == 3   # the hand-built state was in turn 1


def test_daikaiju_in_front_of_another_ship_does_not_eliminate_it():
    s = _turn_state(kaiju={(3, 2): (0, 1), (0, 0): (2, 0), (6, 6): (3, 0)})
    begin(s, 1, Script(die(3, 4, 2)))      # seat 1 is active; ship 0 is not
    assert s.alive[0] and s.kaiju[sq(3, 3)] == 0
    # ruling: on ship 0's own turn the daikaiju still in front eliminates it after the step
    begin(s, 0, Script(die(1, 1) + die(1, 1)))
    assert not s.alive[0] and s.elim_cause[0] == "daikaiju"


def test_daikaiju_in_front_of_a_start_point_ship_lets_it_relocate():
    # ship 1 on its start point (0,3) port 1; gold 1 at (1,3) facing up moves into (0,3)
    s = _turn_state(kaiju={(1, 3): (0, 0), (0, 0): (2, 0), (6, 6): (3, 0)}, tiles={(0, 5): SAFE},
                    ships={0: (4, 4, 0), 1: (0, 3, 1), 2: (6, 0, 5)})
    s.board[sq(2, 3)] = -1
    s.board[sq(3, 4)] = s.board[sq(0, 5)]    # ship 0 sits on a tile at (3,4)
    begin(s, 0, Script(die(3, 4, 2)))
    assert s.phase == "relocate" and GAME.current_player(s) == 1
    legal = GAME.legal_actions(s)
    # stay first, then free top-edge points whose square ahead is empty, clockwise
    assert legal[0] == MoveStart((0, 3), 1)
    assert legal[1:] == tuple(MoveStart((0, c), p) for c in (1, 2, 4, 6) for p in (0, 1))
    GAME.apply(s, MoveStart((0, 4), 0), random.Random(0))
    assert s.pos[1] == st(0, 4, 0) and s.phase == "place" and s.current == 0


def test_relocation_of_the_active_ship_depends_on_start_relocation():
    kaiju = {(1, 3): (0, 0), (0, 0): (2, 0), (6, 6): (3, 0)}
    ships = {0: (0, 3, 0), 1: (6, 0, 5), 2: (6, 6, 4)}
    s = _turn_state(kaiju=kaiju, ships=ships)
    begin(s, 0, Script(die(3, 4, 2)))
    assert s.phase == "relocate" and s.current == 0
    GAME.apply(s, MoveStart((0, 5), 1), random.Random(0))
    assert s.alive[0] and s.phase == "place" and s.pos[0] == st(0, 5, 1)
    # staying put: the after-step ruling eliminates it
    s = _turn_state(kaiju=kaiju, ships=ships)
    begin(s, 0, Script(die(3, 4, 2)))
    GAME.apply(s, MoveStart((0, 3), 0), Script(die(1, 1)))
    assert not s.alive[0] and s.elim_cause[0] == "daikaiju"
    # start_relocation=others: the active ship is eliminated at once
    s = _turn_state(kaiju=kaiju, ships=ships, params=TsuroParams(start_relocation="others"))
    begin(s, 0, Script(die(3, 4, 2) + die(1, 1)))
    assert not s.alive[0] and s.elim_square[0] == sq(0, 3)


def test_rule_of_three_refill_one_off():
    kaiju = {(0, 0): (2, 0), (6, 6): (3, 0)}
    # refill: one daikaiju short -> one placed from the stack (dice + rotation), no roll
    s = _turn_state(kaiju=kaiju, stack=[9, 8, 7])
    begin(s, 0, Script(die(2, 5) + [0.3]))
    assert s.kaiju[sq(5, 1)] == 7 and s.kaiju_rot[7] == 1 and s.kaiju_stack == [9, 8]
    assert not any(e[0] == "roll" for e in s.events)
    # refill with one on the board: two placed; re-roll onto a square holding a daikaiju
    s = _turn_state(kaiju={(0, 0): (2, 0)}, stack=[9, 8, 7])
    begin(s, 0, Script(die(1, 1) + die(2, 5) + [0.0] + die(6, 6) + [0.9]))
    assert s.kaiju[sq(5, 1)] == 7 and s.kaiju[sq(6, 6)] == 8 and s.kaiju_rot[8] == 3
    # one: a single daikaiju per turn
    s = _turn_state(kaiju={(0, 0): (2, 0)}, stack=[9, 8, 7], params=TsuroParams(rule_of_three="one"))
    begin(s, 0, Script(die(2, 5) + [0.0]))
    assert sum(1 for k in s.kaiju if k >= 0) == 2
    # off: the roll as usual
    s = _turn_state(kaiju={(0, 0): (2, 0)}, stack=[9, 8, 7], params=TsuroParams(rule_of_three="off"))
    begin(s, 0, Script(die(1, 1)))
    assert sum(1 for k in s.kaiju if k >= 0) == 1 and ("roll", 1, 1) in s.events
    # an empty stack: the roll goes ahead
    s = _turn_state(kaiju=kaiju, stack=[])
    begin(s, 0, Script(die(1, 1)))
    assert ("roll", 1, 1) in s.events


def test_daikaiju_placed_by_dice_on_a_wake_tile_removes_it():
    # face 6: a new daikaiju from the stack lands (dice 2,5 -> (5,1)) on a tile with ship 1 on it
    s = _turn_state(kaiju={(0, 0): (2, 0), (6, 6): (3, 0), (0, 6): (4, 0)}, tiles={(5, 1): SAFE},
                    ships={0: (3, 3, 0), 1: (5, 2, 7), 2: (6, 0, 5)}, stack=[6])
    begin(s, 0, Script(die(3, 4, 6) + die(2, 5) + [0.6]))
    assert s.kaiju[sq(5, 1)] == 6 and s.kaiju_rot[6] == 2 and s.board[sq(5, 1)] == -1
    assert s.pile[:2] == [1, tid(SAFE)] and not s.alive[1] and s.elim_cause[1] == "daikaiju"


# --------------------------------------------------------------------------------------------
# persistence, view, display
# --------------------------------------------------------------------------------------------

def _midgame(seed=5, players=4, steps=30):
    s = GAME.initial_state(TsuroParams(), players, random.Random(seed))
    rng, pick = random.Random(seed), random.Random(seed + 1)
    for _ in range(steps):
        if GAME.is_terminal(s):
            break
        GAME.apply(s, pick.choice(GAME.legal_actions(s)), rng)
    return s


def test_json_pickle_clone_round_trip():
    for seed in range(6):
        s = _midgame(seed)
        d = GAME.state_to_dict(s)
        assert d["game"] == "tsuro-seas" and d["params"]["max_turns"] == 500
        back = GAME.state_from_dict(json.loads(json.dumps(d)))
        assert back == s and back.params == s.params
        assert pickle.loads(pickle.dumps(s)) == s
        c = GAME.clone_state(s)
        assert c == s and c.board is not s.board
        if not GAME.is_terminal(s):
            a = GAME.legal_actions(s)[0]
            assert GAME.action_from_json(json.loads(json.dumps(GAME.action_to_json(a)))) == a
            GAME.apply(c, a, random.Random(1))
            GAME.apply(back, a, random.Random(1))
            assert c == back
    with pytest.raises(InputError):
        GAME.state_from_dict({"players": 2})
    with pytest.raises(InputError):
        GAME.action_from_json({"jump": 1})


def test_resample_hidden_redeals_what_each_seat_cannot_see_and_keeps_daikaiju_apart():
    kill = T01_25_37_46
    s = build(n=3, ships={0: (0, 3, 4), 1: (0, 3, 1), 2: (6, 0, 5)}, tiles={(1, 3): SAFE},
              hands=[[tid(kill), 10, 11], [20, 21, 22], [30, 31, 32]], pile=[1, 2, 3, 4, 5, 6], stack=[7, 8, 9],
              params=TsuroParams(daikaiju="on"))
    GAME.apply(s, place(kill), random.Random(0))
    assert s.phase == "exchange" and s.pool == [[20, 21, 22], [], []]
    tiles = Counter(s.pile) + sum((Counter(h) for h in s.hands + s.pool), Counter())
    for seat in range(3):
        moved = 0
        for k in range(8):
            t = GAME.resample_hidden(s, seat, random.Random(k))
            assert sorted(t.kaiju_stack) == [7, 8, 9]  # the stack keeps its daikaiju, no tile joins it
            assert Counter(t.pile) + sum((Counter(h) for h in t.hands + t.pool), Counter()) == tiles
            assert t.hands[seat] == s.hands[seat] and [len(h) for h in t.hands] == [len(h) for h in s.hands]
            assert [len(p) for p in t.pool] == [3, 0, 0] and t.board == s.board
            if seat == 0:  # the exchanger sees what it is offered
                assert t.pool[0] == s.pool[0]
            moved += t.pool[0] != s.pool[0] or t.pile != s.pile
        assert moved > 0
    assert GAME.view(s, 0).pool == (20, 21, 22) and GAME.view(s, 1).pool == () == GAME.view(s, 2).pool


def test_same_seed_same_game():
    a, b = _midgame(9, steps=200), _midgame(9, steps=200)
    assert a == b


def test_view_hides_other_hands_and_pile_order():
    s = _midgame(3, steps=8)
    v = GAME.view(s, 1)
    assert v.hand == tuple(s.hands[1]) and not hasattr(v, "hands") and v.pile_size == len(s.pile)
    assert list(v.hand_sizes) == v.hands_sizes == [len(h) for h in s.hands]
    assert v.stack_size == v.kaiju_stack_size == len(s.kaiju_stack)
    assert v.stack_contents == tuple(sorted(s.kaiju_stack)) and v.pool == ()
    for hidden in ("pile", "kaiju_stack", "cache", "fresh", "tally", "placed"):
        assert not hasattr(v, hidden)
    for name in dir(v):
        if not name.startswith("_"):
            val = getattr(v, name)
            assert val is not s.pile and val is not s.hands and val is not s.pool and val is not s.kaiju_stack


def test_random_playouts_conserve_tiles_and_end():
    for players in range(2, 9):
        for seed in range(3):
            params = TsuroParams(dice_coordinates=("skip_centre", "first_six", "uniform")[seed],
                                 rule_of_three=("refill", "one", "off")[seed])
            s = GAME.initial_state(params, players, random.Random(seed))
            rng, pick = random.Random(seed + 50), random.Random(seed + 99)
            while not GAME.is_terminal(s):
                legal = GAME.legal_actions(s)
                assert legal
                GAME.apply(s, pick.choice(legal), rng)
                assert tile_count(s) == 56
                GAME.check_invariants(s)
            assert GAME.winners(s) and s.end_reason in ("last_ship", "all_sunk", "no_tiles", "max_turns")
            m = GAME.metrics(s)
            for i, row in enumerate(m):
                assert row["survived"] == int(s.alive[i])
                assert math.isnan(row["elim_turn"]) == bool(s.alive[i])


def test_describe_state_and_action():
    s = build(n=2, ships={0: (3, 3, 0), 1: (0, 5, 1)}, tiles={(2, 3): T01_25_37_46}, kaiju={(4, 4): (0, 1)},
              hands=[[1], [2]])
    text = GAME.describe_state(s)
    assert "01 25" in text and "37 46" in text and "gold1" in text and "legend" in text
    assert "seat 1 (B): facing (0,5) through port 1 (start point)" in text
    assert GAME.describe_action(Start((0, 3), 1)) == "start at (0,3) port 1 (top edge)"
    assert "turned 1/4" in GAME.describe_action(Place(0, 1))
    assert GAME.describe_action(Exchange((), ())) == "keep my tiles (no exchange)"


# --------------------------------------------------------------------------------------------
# strategies and figures
# --------------------------------------------------------------------------------------------

def _play(specs, seed, params=None):
    from analyser.engine.runner import play_game
    strats = [make_strategy(x, "tsuro-seas") for x in specs]
    return play_game(GAME, params or TsuroParams(), strats, list(specs), seed)


def test_strategies_play_legal_games():
    for seed in range(4):
        s = _play(["random", "survivor", "aggressive", "survivor:depth=2,start=random"], seed)
        assert GAME.is_terminal(s)
        s = _play(["aggressive:safe=on", "survivor"], seed, TsuroParams(daikaiju="off"))
        assert GAME.is_terminal(s)


def test_aggressive_sinks_an_opponent_and_survivor_keeps_room():
    kill = T01_25_37_46
    s = build(n=3, ships={0: (0, 3, 4), 1: (0, 3, 1), 2: (6, 0, 5)}, tiles={(1, 3): SAFE},
              hands=[[tid(kill), tid(FILLER)], [1], [2]], params=TsuroParams(daikaiju="off"))
    legal = GAME.legal_actions(s)
    agg = make_strategy("aggressive", "tsuro-seas")
    agg.reset(0, s.params, 3)
    choice = agg.choose(GAME.view(s, 0), legal, random.Random(0))
    assert dict((r[0], r[1]) for r in GAME.view(s, 0).preview(choice))[1] != ts.STOP
    surv = make_strategy("survivor", "tsuro-seas")
    surv.reset(0, s.params, 3)
    choice = surv.choose(GAME.view(s, 0), legal, random.Random(0))
    assert choice in legal and not ts.suicidal(GAME.view(s, 0).preview(choice), 0)


def test_safe_start_policy_avoids_daikaiju_and_corners():
    s = GAME.initial_state(TsuroParams(), 4, random.Random(2))
    surv = make_strategy("survivor", "tsuro-seas")
    surv.reset(0, s.params, 4)
    a = surv.choose(GAME.view(s, 0), GAME.legal_actions(s), random.Random(0))
    f = sq(*a.square)
    assert s.kaiju[f] < 0 and f not in (0, 6, 42, 48)
    assert all(s.kaiju[ts.KNBR[f * 4 + d]] < 0 for d in range(4) if ts.KNBR[f * 4 + d] >= 0)


def test_metrics_tables_and_plots(tmp_path):
    from analyser import run as runmod
    spec = runmod.RunSpec(game="tsuro-seas", strategies=["survivor", "random"], players=3, games=30,
                          seed=4, jobs=1)
    res = runmod.run(spec, progress=False)
    df = res.results
    for col in ("turns", "elim_turn", "cause", "survived", "elim_row", "elim_col", "end"):
        assert col in df.columns
    assert set(df["cause"]) <= {"edge", "daikaiju", "collision", "loop", "survived"}
    assert (df["survived"] == 1).sum() == df["elim_row"].isna().sum()
    tables = GAME.figure_tables(df, res.extras)
    assert len(tables) == 5
    files = GAME.plots(df, res.extras, tmp_path)
    assert [f for f, _ in files] == ["elimination_heatmap.png", "elimination_causes.png"]
    assert all((tmp_path / f).stat().st_size > 1000 for f, _ in files)


# -- report figures, chunk by chunk (issue 9) ---------------------------------------------------------

#: Under pytest-xdist (--dist loadgroup) this file's tests run in one worker, so its module-scoped
#: fixtures are built once, not once per worker.
pytestmark = pytest.mark.xdist_group("test_tsuro_seas")


@pytest.fixture(scope="module")
def tsuro_run():
    from analyser import run as runmod
    spec = runmod.RunSpec(game="tsuro-seas", strategies=["survivor", "random", "aggressive"],
                          players=3, games=300, seed=11, jobs=1)
    return runmod.run(spec, progress=False)


def _chunked_sums(results, extras, chunk_games):
    from analyser.stats.streamed import chunk_frame, reduce_sums
    return reduce_sums(GAME.figure_sums(c, e) for c, e in chunk_frame(results, extras, chunk_games))


@pytest.fixture(scope="module")
def chunked_sums(tsuro_run):
    """The run's figure sums over chunks of 7 games, combined."""
    return _chunked_sums(tsuro_run.results, tsuro_run.extras, 7)


def test_results_written_before_placements_were_kept_are_refused(tsuro_run, tmp_path):
    """A results table without the placements column (an older version's) is refused in one
    line naming the file."""
    path = tmp_path / "old.csv"
    df = tsuro_run.results.drop(columns=["placements"])
    with pytest.raises(InputError, match=r"^[^\n]+$") as err:
        validate_columns(df.dtypes.to_dict(), GAME, path)
    assert str(path) in str(err.value)


def test_figure_tables_from_chunks_equal_the_whole_frame_and_plain_pandas(tsuro_run, chunked_sums):
    import pandas as pd
    df, extras = tsuro_run.results, tsuro_run.extras
    whole = GAME.figure_tables(df, extras)
    chunked = GAME.figure_tables_from(chunked_sums)
    assert [c for c, _ in whole] == [c for c, _ in chunked] and len(whole) == 5
    for (_, a), (_, b) in zip(whole, chunked):
        pd.testing.assert_frame_equal(a, b, rtol=1e-9, atol=1e-9)
    tables = {c.split(" (")[0]: t for c, t in chunked}
    # the same numbers, computed from the rows with plain pandas
    seat = df.groupby("seat").agg(ships=("survived", "size"), survived=("survived", "mean"),
                                  mean=("elim_turn", "mean"), median=("elim_turn", "median"))
    t = tables["Elimination turn per seat"]
    assert list(t["seat"]) == [0, 1, 2] and list(t["ships"]) == [300, 300, 300]
    for a, b in (("survived", "survived"), ("mean_elim_turn", "mean"), ("median_elim_turn", "median")):
        assert t[a].to_numpy() == pytest.approx(seat[b].to_numpy(), rel=1e-9)
    shares = pd.crosstab(df["strategy"], df["cause"], normalize="index")
    t = tables["Fate of ships per strategy"].set_index("strategy")
    assert list(t.index) == ["survivor", "random", "aggressive"]  # the run's order
    assert list(t.columns) == ["edge", "daikaiju", "collision", "loop", "survived"]
    for cause in t.columns:
        want = shares[cause].to_numpy() if cause in shares.columns else 0.0
        assert t[cause].to_numpy() == pytest.approx(want, abs=1e-12)
    games = df.groupby("game_index").agg(turns=("turns", "first"), survivors=("survived", "sum"),
                                         end=("end", "first"), top=("win", "max"))
    t = tables["Game length in turns"].iloc[0]
    assert t["games"] == 300 and t["max"] == games["turns"].max()
    for name, want in (("mean", games["turns"].mean()), ("median", games["turns"].median()),
                       ("p5", games["turns"].quantile(0.05)), ("p95", games["turns"].quantile(0.95))):
        assert t[name] == pytest.approx(want, rel=1e-9)
    t = tables["Survivors at the end of the game"].set_index("survivors")["games"]
    assert t.to_dict() == games["survivors"].value_counts().to_dict()
    t = tables["Shared-win rate by how games ended"].set_index("end")
    shared = games["top"] < 1 - 1e-9
    assert t.loc["all games", "shared_win_rate"] == pytest.approx(shared.mean())
    for end, grp in games.groupby("end"):
        assert t.loc[end, "games"] == len(grp)
        assert t.loc[end, "shared_win_rate"] == pytest.approx(shared[grp.index].mean())
        assert t.loc[end, "mean_turns"] == pytest.approx(grp["turns"].mean(), rel=1e-9)


def test_figure_sums_stay_small(tsuro_run, chunked_sums):
    df = tsuro_run.results
    n_strategies, n_seats = df["strategy"].nunique(), df["seat"].nunique()
    cap = int(df["max_turns"].max())
    for sums in (GAME.figure_sums(df, {}), chunked_sums):
        assert len(sums["seat"]) == n_seats
        assert len(sums["seat_elim_turn"]) <= n_seats * cap
        assert len(sums["causes"]) == n_strategies and len(sums["causes"].columns) <= 5
        assert len(sums["survivors"]) <= 4  # 0 to 3 ships afloat
        assert len(sums["ends"]) <= 4 and len(sums["turns"]) <= cap
        assert len(sums["squares"]) <= ts.SIZE * ts.SIZE
        assert sums["squares"]["ships"].sum() == df["elim_row"].notna().sum()
        assert sums["survivors"]["games"].sum() == 300


def test_plots_from_combined_sums_write_both_figures(tsuro_run, chunked_sums, tmp_path):
    from analyser.stats import plots
    files = GAME.plots_from(chunked_sums, tmp_path, ["survivor", "random", "aggressive"])
    assert [f for f, _ in files] == ["elimination_heatmap.png", "elimination_causes.png"]
    (tmp_path / "whole").mkdir()
    whole = GAME.plots(plots.safe_strategies(tsuro_run.results), tsuro_run.extras, tmp_path / "whole")
    for f, _ in files:
        assert (tmp_path / f).stat().st_size > 1000
        assert (tmp_path / "whole" / f).read_bytes() == (tmp_path / f).read_bytes()


# --------------------------------------------------------------------------------------------
# components (component impact)
# --------------------------------------------------------------------------------------------

def test_components_are_the_tiles_each_seat_placed_by_tile_id():
    s = build(n=3, ships={0: (3, 3, 0), 1: (6, 6, 4), 2: (0, 0, 0)}, tiles={(2, 3): SAFE, (4, 3): SAFE},
              hands=[[tid(SAFE)], [1, 2, 3], [4, 5, 6]], pile=[7, 8, 9])
    assert s.tally is None and GAME.components(s) == [[], [], []]  # a hand-built state records nothing
    s.tally = [[], [], []]
    GAME.apply(s, place(SAFE), random.Random(0))
    assert GAME.components(s) == [[TILE_NAMES[tid(SAFE)]], [], []] and TILE_NAMES[tid(SAFE)] == SAFE
    assert GAME.clone_state(s).tally is None  # a copy is not recorded
    dealt = GAME.initial_state(TsuroParams(), 4, random.Random(1))
    assert dealt.tally == [[], [], [], []] and dealt.placed == [[], [], [], []]
    # per placement (the placements metric): the tile and whether its own ship stayed afloat
    s = build(n=3, ships={0: (3, 3, 0), 1: (6, 6, 4), 2: (0, 0, 0)}, tiles={(2, 3): SAFE, (4, 3): SAFE},
              hands=[[tid(SAFE)], [1, 2, 3], [4, 5, 6]], pile=[7, 8, 9])
    s.placed = [[], [], []]
    GAME.apply(s, place(SAFE), random.Random(0))
    assert s.placed == [[(tid(SAFE), s.alive[0])], [], []]
    assert GAME.metrics(s)[0]["placements"] == f"{tid(SAFE)}:{int(s.alive[0])}"
    assert math.isnan(GAME.metrics(s)[1]["placements"])
    catalog = GAME.component_catalog(TsuroParams())
    assert len(catalog) == 35 and catalog[T01_25_37_46]["line"] == 9
    assert numbers(catalog[T01_25_37_46]["what"]) == [4, 56] and catalog[T01_25_37_46]["option"] == "tiles"
