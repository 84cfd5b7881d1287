"""Tsuro of the Seas: lay wake tiles, sail your ship, dodge sea monsters.  Rules: rules.md (``analyser rules tsuro-seas``).

The module follows the DAO model: ``TsuroParams`` (every rule option), ``TsuroState`` (a dataclass
of plain values and components: the engine derives its copy, JSON round trip, views and re-deal of
what a seat cannot see), ``TsuroView`` (helpers on what one seat may see) and ``TsuroSeas`` (the
stateless forward model).  2-8 players (default 4) on a 7x7 board.

Geometry
--------
Squares are ``(row, col)``, row 0 at the top, stored as ``sq = row * 7 + col``.  Every square has 8
ports, numbered clockwise from the top side's left port: 0 top-left, 1 top-right, 2 right-top,
3 right-bottom, 4 bottom-right, 5 bottom-left, 6 left-bottom, 7 left-top.  Port ``p`` meets port
``OPP[p] = [5,4,7,6,1,0,3,2][p]`` of the neighbour across that side.  A wake tile joins the 8 ports
in 4 pairs; turning it 90 degrees clockwise maps port ``p`` to ``p + 2 (mod 8)``.  There are 105
ways to pair 8 ports and 35 classes of them up to rotation; every class has a fixed *tile id*
0-34 (the classes sorted by their name, the digit pairs of the smallest rotation, e.g.
``"01 25 37 46"``), so a state never depends on which tile file was loaded.  ``Place(tile, r)``
lays tile ``tile`` turned ``r`` quarter turns clockwise from that smallest rotation.

A ship is kept as the *square in front of it* and the port of that square it will enter
(``st = sq * 8 + port``): a ship on a start point faces an edge square through an edge port; a ship
that has sailed sits on the border between the last tile it crossed (the tile it is *on*) and the
empty square ahead.  A ship is on its start point exactly when the square behind it is off the
board (a ship that reaches the edge any other way is eliminated).

The rules, every ruling where the write-up is silent (each with its rule option where one
exists) and the score are on the rules page (sections Board, ports and tiles, Dice, Daikaiju,
Setup, A turn, End, Score, ranks and figures).  The start points are the 56 edge ports listed
clockwise from the top-left corner (:data:`START_POINTS`).

Actions (small hashable NamedTuples; note that NamedTuples compare as tuples, so compare actions
only within one legal list): :class:`Start`, :class:`MoveStart` (square as ``(row, col)``, port),
:class:`Place` (tile id, rotation) and :class:`Exchange`.  Legal placements: the distinct tiles in
hand in ascending id, each in its distinct rotations 0-3 (a symmetric tile keeps only the first
rotation of each different layout).  Exchanges: ``Exchange((), ())`` (none) first, then by size,
``give`` and ``take`` in order, leaving out those that give and take the same tile class.
Start-point moves: staying put (``MoveStart`` to its own point) first, then the free points of
that edge, clockwise.

Hidden information, declared once on :class:`TsuroState`: a seat's view holds its own hand, the
board, ships and daikaiju, the pile's size and every hand's size, never another hand nor the
pile's order; the exchange pool is shown only to the active seat while it exchanges (it is that
seat's own per-seat entry); the daikaiju stack shows its size and contents, not its order.  The
default ``determinize`` and ``resample_hidden`` deal the unseen tiles (the pile, the other hands
and a pool offered to another seat) again, and shuffle the daikaiju stack on its own.

Speed: tile layouts, port maps and neighbour maps are precomputed into flat lists; the legal
placements and their outcomes are computed once per decision and cached on the state (the cache
is not part of the state's data).  A route can only loop back to its own first state (the step map
on (square, port) states is injective), so a loop is detected by meeting that state again, with a
step cap as a safeguard.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from operator import attrgetter
from pathlib import Path
from typing import Literal, NamedTuple

from analyser.engine import components
from analyser.engine.components import face_down, scratch, seat_counters
from analyser.engine.core import COMPONENTS, Game, InputError, Metric, Params, Scoring, encode_trace, option
from analyser.engine.derive import View
from analyser.io.files import read_component_rows

# --------------------------------------------------------------------------------------------
# Geometry (precomputed)
# --------------------------------------------------------------------------------------------

SIZE = 7
SQUARES = SIZE * SIZE
OPP = (5, 4, 7, 6, 1, 0, 3, 2)
EDGE_NAMES = ("top", "right", "bottom", "left")
#: board direction -> (d_row, d_col): 0 up, 1 right, 2 down, 3 left (also the side of ports 2d, 2d+1)
DIRS = ((-1, 0), (0, 1), (1, 0), (0, -1))


def _neighbour(sq: int, d: int) -> int:
    r, c = divmod(sq, SIZE)
    r, c = r + DIRS[d][0], c + DIRS[d][1]
    return r * SIZE + c if 0 <= r < SIZE and 0 <= c < SIZE else -1


#: KNBR[sq * 4 + d]: the square next to ``sq`` in direction d, or -1 off the board
KNBR = tuple(_neighbour(sq, d) for sq in range(SQUARES) for d in range(4))
#: NEXT[sq * 8 + q]: leaving ``sq`` through port q -> the state (square * 8 + entry port) entered, -1 off board
NEXT = tuple((KNBR[sq * 4 + q // 2] * 8 + OPP[q]) if KNBR[sq * 4 + q // 2] >= 0 else -1
             for sq in range(SQUARES) for q in range(8))


def rotate_layout(conn, r: int) -> tuple[int, ...]:
    """The layout ``conn`` (``conn[p]`` = port joined to p) turned r quarter turns clockwise."""
    out = [0] * 8
    for p in range(8):
        out[(p + 2 * r) % 8] = (conn[p] + 2 * r) % 8
    return tuple(out)


def layout_name(conn) -> str:
    """``"01 25 37 46"``: the pairs of a layout, each pair and the list in ascending order."""
    return " ".join(f"{p}{conn[p]}" for p in range(8) if p < conn[p])


def _all_layouts(conn=(-1,) * 8):
    """Every layout (4 port pairs) that completes ``conn`` (-1: a port not yet joined)."""
    if -1 not in conn:
        yield conn
        return
    a = conn.index(-1)
    for b in range(a + 1, 8):
        if conn[b] == -1:
            yield from _all_layouts(tuple(b if p == a else a if p == b else q for p, q in enumerate(conn)))


def canonical_name(conn) -> str:
    """The name of a layout's smallest rotation (the class name)."""
    return min(layout_name(rotate_layout(conn, r)) for r in range(4))


def parse_pairs(text: str) -> tuple[int, ...]:
    """``"01 25 37 46"`` -> layout tuple; ValueError unless it is 4 pairs covering ports 0-7 once."""
    parts = text.split()
    if len(parts) != 4 or any(len(x) != 2 or not x.isdigit() for x in parts):
        raise ValueError(f"{text!r} is not four two-digit port pairs such as 01 25 37 46")
    conn = [-1] * 8
    for a, b in ((int(x[0]), int(x[1])) for x in parts):
        if a > 7 or b > 7 or a == b or conn[a] != -1 or conn[b] != -1:
            raise ValueError(f"{text!r} does not join each of the ports 0-7 exactly once")
        conn[a], conn[b] = b, a
    return tuple(conn)


#: the 35 tile classes, by id: their names (smallest rotation) in ascending order
TILE_NAMES: tuple[str, ...] = tuple(sorted({canonical_name(c) for c in _all_layouts()}))
TILE_ID = {name: i for i, name in enumerate(TILE_NAMES)}
N_TILES = len(TILE_NAMES)
#: LAYOUTS[tile * 4 + r]: the layout of tile ``tile`` turned r quarter turns
LAYOUTS = tuple(rotate_layout(parse_pairs(TILE_NAMES[t]), r) for t in range(N_TILES) for r in range(4))
#: CONN[code * 8 + p] with code = tile * 4 + r: the port joined to p
CONN = tuple(q for lay in LAYOUTS for q in lay)
#: ROTATIONS[tile]: the rotations giving distinct layouts (first of each)
ROTATIONS = tuple(tuple(r for r in range(4) if LAYOUTS[t * 4 + r] not in LAYOUTS[t * 4:t * 4 + r])
                  for t in range(N_TILES))


def tile_of(conn) -> tuple[int, int]:
    """``(tile id, rotation)`` of a layout."""
    t = TILE_ID[canonical_name(conn)]
    return t, LAYOUTS.index(tuple(conn), t * 4, t * 4 + 4) - t * 4


def _start_points() -> tuple[int, ...]:
    out = []
    out += [c * 8 + p for c in range(SIZE) for p in (0, 1)]                              # top
    out += [(r * SIZE + SIZE - 1) * 8 + p for r in range(SIZE) for p in (2, 3)]            # right
    out += [((SIZE - 1) * SIZE + c) * 8 + p for c in reversed(range(SIZE)) for p in (4, 5)]  # bottom
    out += [(r * SIZE) * 8 + p for r in reversed(range(SIZE)) for p in (6, 7)]              # left
    return tuple(out)


#: the 56 start points as ship states, clockwise from the top-left corner
START_POINTS = _start_points()
EDGE_STARTS = tuple(tuple(x for x in START_POINTS if (x & 7) // 2 == e) for e in range(4))

# --------------------------------------------------------------------------------------------
# Actions
# --------------------------------------------------------------------------------------------


class Start(NamedTuple):
    """Put the ship on a start point: the edge ``square`` ``(row, col)`` and its edge ``port``."""

    square: tuple[int, int]
    port: int


class MoveStart(NamedTuple):
    """Move a ship on its start point to another start point on the same edge (its own = stay)."""

    square: tuple[int, int]
    port: int


class Place(NamedTuple):
    """Lay wake tile ``tile`` (id 0-34) turned ``rotation`` quarter turns clockwise."""

    tile: int
    rotation: int


class Exchange(NamedTuple):
    """Elimination bonus: give the tiles ``give`` from hand for ``take`` from the eliminated hands."""

    give: tuple[int, ...]
    take: tuple[int, ...]


NO_EXCHANGE = Exchange((), ())


def state_square(st: int) -> tuple[int, int]:
    return divmod(st >> 3, SIZE)


START_ACTION = {x: Start(state_square(x), x & 7) for x in START_POINTS}
MOVE_ACTION = {x: MoveStart(state_square(x), x & 7) for x in START_POINTS}
ACTION_STATE = {a: x for x, a in START_ACTION.items()}
ACTION_STATE.update({a: x for x, a in MOVE_ACTION.items()})
PLACE_ACTION = tuple(Place(t, r) for t in range(N_TILES) for r in range(4))

# --------------------------------------------------------------------------------------------
# Component data
# --------------------------------------------------------------------------------------------

DATA = Path(__file__).resolve().parent / "data"
ACTIONS = ("up", "right", "down", "left", "rotate")
ROTATE = 4
SHIP_MARKS = "ABCDEFGH"
KAIJU_NAMES = tuple(f"{'gold' if k % 2 == 0 else 'blue'} {k // 2 + 1}" for k in range(10))


@lru_cache(maxsize=16)
def load_tiles(path: str = "") -> tuple[int, ...]:
    """The tile ids of a tile set, one per physical tile, in file order (cached per path).

    ``path`` is a CSV file with the columns ``copies,pairs`` (``#`` lines are comments); ``""`` is
    the built-in 56-tile set.  Raises :class:`InputError` naming the file and the problem.
    """
    p = Path(path).expanduser() if path else DATA / "tsuro_tiles.csv"
    out: list[int] = []
    seen: dict[int, int] = {}
    for line, row in read_component_rows(p, "tiles", ["copies", "pairs"]):
        if len(row) != 2:
            raise InputError(f"tiles file {str(p)!r}: line {line}: expected 2 fields (copies,pairs), got {len(row)}")
        try:
            copies = int(row[0])
        except ValueError:
            raise InputError(f"tiles file {str(p)!r}: line {line}: expected the copies as a whole number from "
                             "0 to 100") from None
        if not 0 <= copies <= 100:
            raise InputError(f"tiles file {str(p)!r}: line {line}: copies {copies} is not accepted; give 0 to 100")
        try:
            conn = parse_pairs(row[1])
        except ValueError:  # its message quotes the text: name the line and what is expected
            raise InputError(f"tiles file {str(p)!r}: line {line}: expected four two-digit port pairs joining "
                             "each port 0-7 once, such as 01 25 37 46") from None
        tile = tile_of(conn)[0]
        if tile in seen:
            raise InputError(f"tiles file {str(p)!r}: line {line}: the tile {TILE_NAMES[tile]} is on line {seen[tile]} "
                             "already (perhaps in another rotation); give each tile once, with its copies")
        seen[tile] = line
        out += [tile] * copies
    if len(out) < 3:
        raise InputError(f"tiles file {str(p)!r} holds {len(out)} tile(s); a game needs at least 3 per player")
    return tuple(out)


@lru_cache(maxsize=16)
def load_daikaiju(path: str = "") -> tuple[tuple[int, ...], ...]:
    """Daikaiju layout: ``layout[k][face - 1]`` = action index into :data:`ACTIONS` for daikaiju k
    (k = 2 * (number - 1) + (0 gold, 1 blue)).  Cached per path; InputError on a bad file."""
    p = Path(path).expanduser() if path else DATA / "tsuro_daikaiju.csv"
    header = ["colour", "number", "face1", "face2", "face3", "face4", "face5"]
    layout: list[tuple[int, ...] | None] = [None] * 10
    for line, row in read_component_rows(p, "daikaiju_layout", header):
        if len(row) != 7:
            raise InputError(f"daikaiju_layout file {str(p)!r}: line {line}: expected 7 fields, got {len(row)}")
        colour, number = row[0].lower(), row[1]
        if colour not in ("gold", "blue") or number not in ("1", "2", "3", "4", "5"):
            raise InputError(f"daikaiju_layout file {str(p)!r}: line {line}: expected a daikaiju: gold or blue, "
                             "then a number 1-5")
        k = 2 * (int(number) - 1) + (colour == "blue")
        if layout[k] is not None:
            raise InputError(f"daikaiju_layout file {str(p)!r}: line {line}: {colour} {number} is listed twice")
        acts = []
        for face, a in enumerate(row[2:], 1):
            if a.lower() not in ACTIONS:
                raise InputError(f"daikaiju_layout file {str(p)!r}: line {line}: expected face{face} to be one of "
                                 + ", ".join(ACTIONS))
            acts.append(ACTIONS.index(a.lower()))
        layout[k] = tuple(acts)
    missing = [KAIJU_NAMES[k] for k in range(10) if layout[k] is None]
    if missing:
        raise InputError(f"daikaiju_layout file {str(p)!r} lacks {', '.join(missing)}; it needs gold and blue 1-5")
    return tuple(layout)  # type: ignore[arg-type]


def daikaiju_count(n_players: int) -> int:
    """Daikaiju on the board at the start: 6 for 2-4 players, 5 for 5-6, 4 for 7-8."""
    return 6 if n_players <= 4 else 5 if n_players <= 6 else 4


# --------------------------------------------------------------------------------------------
# Parameters
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class TsuroParams(Params):
    """Rule options of Tsuro of the Seas (rules.md).  Defaults: the rules write-up's rules."""

    daikaiju: str = option("on", "play with the daikaiju and the dice (on) or the variant without (off)",
                           choices=("on", "off"))
    dice_coordinates: str = option(
        "skip_centre", "dice to squares: faces 1-3 -> 0-2 and 4-6 -> 4-6 (skip_centre), face f -> f-1 "
        "(first_six) or any of 0-6 (uniform, not physical); gold die = column, blue = row",
        choices=("skip_centre", "first_six", "uniform"))
    rule_of_three: str = option(
        "refill", "with fewer than 3 daikaiju on the board: place until there are 3 (refill), place one "
        "(one, the write-up's wording), or nothing (off); a placement replaces that turn's roll",
        choices=("refill", "one", "off"))
    start_relocation: str = option(
        "any", "a daikaiju arriving in front of a ship on its start point lets its owner move it along "
        "the edge: any ship, the active one included (any), or only the other ships, the active one "
        "being eliminated (others)", choices=("any", "others"))
    elimination_bonus: str = option(
        "on", "the active player may exchange tiles with the hands its placement eliminated",
        choices=("on", "off"))
    max_turns: int = option(500, "safety cap on turns; a capped game is a shared win of the survivors",
                            low=1)
    tiles: str = option("", "wake tile set: a CSV file (copies,pairs); empty = the built-in 56 tiles "
                        "(unverified table)")
    daikaiju_layout: str = option("", "daikaiju arrows: a CSV file (colour,number,face1..face5); empty = "
                                  "the built-in layout (unverified)")

    def validate(self) -> None:
        load_tiles(self.tiles)
        load_daikaiju(self.daikaiju_layout)

    def data_files(self) -> dict[str, Path]:
        """The component files these rules read: option name -> path (built-in or given)."""
        return {"tiles": Path(self.tiles).expanduser() if self.tiles else DATA / "tsuro_tiles.csv",
                "daikaiju_layout": (Path(self.daikaiju_layout).expanduser() if self.daikaiju_layout
                                    else DATA / "tsuro_daikaiju.csv")}


# --------------------------------------------------------------------------------------------
# Routes and placements (pure functions, shared with the strategies)
# --------------------------------------------------------------------------------------------

STOP, EDGE, DAIKAIJU, LOOP, MEET, SAME = range(6)
FATE_CAUSE = ("", "edge", "daikaiju", "loop", "collision", "collision")
_CAP = SQUARES * 8 + 1


def route(board, kaiju, start: int, square: int, meet_mask: int) -> tuple[int, int, int]:
    """Follow the route of a ship at state ``start`` (its front square must hold a tile).

    Returns ``(fate, end, last)``: fate STOP (``end`` = the state it stops at), EDGE, DAIKAIJU
    (``end`` = the daikaiju square), LOOP, or MEET (``end`` = the port of ``square`` it leaves through
    into a ship's position; ``meet_mask`` has bit p set for each ship facing ``square`` at port p);
    ``last`` is the last square it crossed.
    """
    st = start
    steps = 0
    while True:
        sq = st >> 3
        q = CONN[(board[sq] << 3) | (st & 7)]
        if sq == square and (meet_mask >> q) & 1:
            return MEET, q, sq
        nx = NEXT[(sq << 3) | q]
        if nx < 0:
            return EDGE, -1, sq
        nsq = nx >> 3
        if kaiju[nsq] >= 0:
            return DAIKAIJU, nsq, sq
        if board[nsq] < 0:
            return STOP, nx, sq
        if nx == start:
            return LOOP, -1, sq
        steps += 1
        if steps > _CAP:
            return LOOP, -1, sq
        st = nx


def behind(st: int) -> int:
    """The square behind a ship (the tile it is on), or -1 for a ship on its start point."""
    nx = NEXT[st]
    return nx >> 3 if nx >= 0 else -1


def resolve(board, kaiju, pos, square: int) -> list[tuple[int, int, int, int]]:
    """Outcome of the tile now on ``square`` for every ship it affects.

    ``board[square]`` must already hold the new tile; ``pos`` lists each seat's ship state (-1 = no
    ship).  Returns ``[(seat, fate, end, where)]`` for every moving ship (seat order) plus any
    resting ship that a mover ends on (fate SAME): ``end`` is the stop state for STOP, ``where`` the
    square recorded as where it is lost (see the module docstring).
    """
    n = len(pos)
    movers = [s for s in range(n) if pos[s] >= 0 and pos[s] >> 3 == square]
    if len(movers) == 1:  # the usual case, kept fast: one ship, no meeting possible
        s = movers[0]
        fate, end, last = route(board, kaiju, pos[s], square, 0)
        if fate == STOP:
            if end not in pos:
                return [(s, STOP, end, last)]
        else:
            return [(s, fate, end, square if fate == LOOP else last)]
    mask = sum(1 << (pos[s] & 7) for s in movers)  # ships face the square through distinct ports
    out = []
    for s in movers:
        fate, end, last = route(board, kaiju, pos[s], square, mask)
        if fate == MEET or fate == LOOP:
            last = square
        out.append([s, fate, end, last])
    if len(movers) > 1:
        at_port = {pos[s] & 7: s for s in movers}
        for r in out:
            if r[1] == MEET:
                partner = at_port[r[2]]
                for o in out:
                    if o[0] == partner:
                        o[1], o[3] = MEET, square
    ends: dict[int, list] = {}
    for r in out:
        if r[1] == STOP:
            ends.setdefault(r[2], []).append(r)
    if ends:
        for s in range(n):
            if pos[s] >= 0 and pos[s] >> 3 != square and pos[s] in ends:
                b = behind(pos[s])
                r = [s, STOP, pos[s], b if b >= 0 else pos[s] >> 3]
                ends[pos[s]].append(r)
                out.append(r)
        for group in ends.values():
            if len(group) > 1:
                for r in group:
                    r[1] = SAME
    return [tuple(r) for r in out]


def suicidal(results, seat: int) -> bool:
    """A placement the rules forbid unless every placement is so: ``seat``'s route ends at the edge,
    at a daikaiju or in a loop, or two ships end on the same wake in the same direction."""
    for s, f, _, _ in results:  # a loop, not any(): this runs for every placement considered
        if f == SAME or (s == seat and (f == EDGE or f == DAIKAIJU or f == LOOP)):
            return True
    return False


def room(board, kaiju, sq: int) -> int:
    """Free squares (no tile, no daikaiju) within two steps (Manhattan) of ``sq``, ``sq`` included."""
    return sum(1 for x in DIAMOND[sq] if board[x] < 0 and kaiju[x] < 0)


def _diamond(sq: int) -> tuple[int, ...]:
    r, c = divmod(sq, SIZE)
    return tuple(rr * SIZE + cc for rr in range(SIZE) for cc in range(SIZE) if abs(rr - r) + abs(cc - c) <= 2)


DIAMOND = tuple(_diamond(sq) for sq in range(SQUARES))

# --------------------------------------------------------------------------------------------
# State and view
# --------------------------------------------------------------------------------------------

def _nothing():
    """The start of a scratch field that holds nothing yet."""
    return None


def _true():
    return True


@dataclass(slots=True)
class TsuroState:
    """Full Tsuro of the Seas state, hidden information included.

    * ``players``: the number of seats (also ``n``); ``phase``: ``start`` (choosing start points), ``relocate`` (a start-point move decision),
      ``place``, ``exchange`` or ``over``; ``current`` decides; ``active`` is whose turn it is;
      ``turn`` counts turns (1 = the first turn).
    * ``board[sq]``: ``tile * 4 + rotation`` or -1; ``kaiju[sq]``: daikaiju id or -1; ``kaiju_sq[k]``
      and ``kaiju_rot[k]``: square (-1 when not on the board) and rotation of daikaiju k (id
      ``2 * (number - 1) + (0 gold, 1 blue)``).
    * ``pos[seat]``: ship state ``square * 8 + port`` (square in front, entry port), -1 if none.
    * ``alive``, ``elim_turn`` (0 = afloat), ``elim_cause``, ``elim_square`` (-1 = none).
    * ``tasks``: daikaiju steps still to do this turn (id = that daikaiju acts, -1 = place one);
      ``face``: the die face of this turn's step (0 = none); ``reloc``: seats with a pending
      start-point move, first = deciding.
    * ``winners``, ``end_reason`` once over; ``events``: this turn's log as small tuples (for the
      text display and the trace); ``prev_events``: the log of the earlier turns since the last
      decision (usually the previous turn; several when turns passed without a decision, e.g. a
      ship sunk in its daikaiju step, so no event is lost between two decisions).
    * ``afloat[seat]``: the ship's own turns completed afloat (its score).

    Hidden information (components): ``pile``, the draw pile (bottom first, top last), face down;
    ``hands[seat]``, tile ids, each seen by its owner; ``pool[seat]``, the tiles the elimination
    bonus offers to ``seat`` (only the active seat's entry is ever filled, in the exchange phase),
    seen by that seat; ``kaiju_stack``, the unplaced daikaiju (top last), face down and a kind of
    card of its own (which ones are in it is public: :attr:`TsuroView.stack_contents`).

    Scratch (not part of the state's value; a copy starts them afresh): ``cache``, the legal
    actions and placement outcomes of the current decision; ``fresh``, set by ``apply`` so that
    the first turn beginning during an action starts ``prev_events`` anew; ``tally``, per seat, the
    id of every wake tile it placed (:meth:`TsuroSeas.components`), a list in a game dealt by
    ``initial_state``, None in a copy or a loaded state; ``placed``, per seat, ``(tile, kept)`` of
    every wake tile it placed (``kept``: its own ship stayed afloat through that placement), for
    the ``placements`` metric; None like ``tally``.
    """

    params: TsuroParams
    players: int
    phase: str
    current: int
    active: int
    turn: int
    board: list[int]
    kaiju: list[int]
    kaiju_sq: list[int]
    kaiju_rot: list[int]
    pos: list[int]
    alive: list[bool]
    elim_turn: list[int]
    elim_cause: list[str]
    elim_square: list[int]
    tasks: list[int]
    face: int
    reloc: list[int]
    winners: list[int]
    end_reason: str
    events: list[tuple[int | str, ...]]
    prev_events: list[tuple[int | str, ...]]
    afloat: list[int] = seat_counters()
    pile: list[int] = face_down()
    hands: list[list[int]] = components.seat_zones()
    pool: list[list[int]] = components.seat_zones()
    kaiju_stack: list[int] = face_down(cards="daikaiju")
    cache: tuple | None = scratch(_nothing)
    fresh: bool = scratch(_true)
    tally: list | None = scratch(_nothing)
    placed: list | None = scratch(_nothing)

    @property
    def n(self) -> int:
        """The number of seats (``players``)."""
        return self.players


class TsuroView(View):
    """What a seat sees: everything public plus its own hand (a live view of the state).

    Besides the state's public fields (``board``, ``kaiju``, ``kaiju_sq``, ``kaiju_rot``, ``pos``,
    ``alive``, ``current``, ``active``, ``phase``, ``turn``, ``elim_turn``, ``elim_cause``,
    ``elim_square``, ``tasks``, ``face``, ``reloc``, ``afloat``, ...: the state's own lists -- read
    them, never change them), ``hands`` (this seat's hand), ``hands_sizes``, ``pile_size`` and
    ``kaiju_stack_size``: ``hand`` is this seat's hand as a tuple; ``hand_sizes`` every seat's hand
    size; ``positions`` the ships (``pos``); ``n_players`` (``players``); ``pool`` the tiles offered for
    exchange (only to the active seat in the exchange phase); ``stack_size`` and
    ``stack_contents`` the daikaiju stack's size and contents (ascending ids: which ones is
    public, their order is not).  ``preview(action)`` gives the outcome of a placement (see
    :func:`resolve`).
    """

    __slots__ = ()

    #: the number of seats (``players``); the ships (``pos``): read through like the fields
    n_players = property(attrgetter("_state.players"))
    positions = property(attrgetter("_state.pos"))

    @property
    def hand(self) -> tuple[int, ...]:
        return tuple(self._state.hands[self.seat])

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        return tuple(len(h) for h in self._state.hands)

    @property
    def pool(self) -> tuple[int, ...]:
        return tuple(self._state.pool[self.seat])

    @property
    def stack_size(self) -> int:
        return len(self._state.kaiju_stack)

    @property
    def stack_contents(self) -> tuple[int, ...]:
        return tuple(sorted(self._state.kaiju_stack))

    def preview(self, action: Place):
        """Outcome of placing ``action`` in front of the active ship: ``[(seat, fate, end, where)]``."""
        s = self._state
        if s.cache is not None and s.phase == "place":
            res = s.cache[1].get(action)
            if res is not None:
                return res
        sq = s.pos[s.active] >> 3
        board = list(s.board)
        board[sq] = action.tile * 4 + action.rotation
        return resolve(board, s.kaiju, s.pos, sq)


# --------------------------------------------------------------------------------------------
# The forward model
# --------------------------------------------------------------------------------------------

def _coord(rng, mode: str) -> int:
    if mode == "uniform":
        return int(rng.random() * SIZE)
    f = int(rng.random() * 6) + 1
    return f if mode == "skip_centre" and f > 3 else f - 1


def dice_square(rng, mode: str) -> int:
    """One square from the dice: the gold die (column) then the blue die (row)."""
    col = _coord(rng, mode)
    row = _coord(rng, mode)
    return row * SIZE + col


class TsuroSeas(Game):
    """The Tsuro of the Seas forward model (rules.md).  See the module docstring."""

    id = "tsuro-seas"
    name = "Tsuro of the Seas"
    summary = "lay wake tiles to steer your ship; the last ship afloat wins; sea monsters roam"
    min_players = 2
    max_players = 8
    default_players = 4
    Params = TsuroParams
    State = TsuroState
    View = TsuroView
    action_types = (Start, MoveStart, Place, Exchange)
    #: How games are won and measured: what the report's figures read (see Scoring).
    scoring = Scoring(
        score_unit="turns afloat",
        # The last ship afloat wins (rules.md, "End"), not the most turns afloat.
        outcome="other",
        outcome_note="the last ship afloat wins, and a ship's score counts its own turns afloat, so every ship "
                    "still afloat has the same score: a score margin, a lead or a deficit says when the others "
                    "sank, not how close the game was",
        close_margin=None,
        trace_unit="turns",
        # The safety cap on turns the long-tail finding tests.
        length_cap_rule="max_turns")
    metric_columns = (Metric("turns", "count"), Metric("elim_turn", "count", missing=True),
                      Metric("cause", "label"), Metric("survived", "count", high=1),
                      Metric("elim_row", "count", missing=True, high=SIZE - 1),
                      Metric("elim_col", "count", missing=True, high=SIZE - 1), Metric("end", "label"),
                      Metric("score_trace", "trace", missing=True), Metric("placements", "label", missing=True))
    extra_tables = (COMPONENTS,)

    # -- set-up ---------------------------------------------------------------------------
    path_options = ("tiles", "daikaiju_layout")

    def check_players(self, params: TsuroParams, n_players: int) -> None:
        """The player range, and enough tiles to deal 3 to everyone."""
        super().check_players(params, n_players)
        n = len(load_tiles(params.tiles))
        if n < 3 * n_players:
            raise InputError(f"the tile set {params.tiles or 'built-in'!r} holds {n} tiles; "
                             f"{n_players} players need at least {3 * n_players}")

    def initial_state(self, params: TsuroParams, n_players: int, rng) -> TsuroState:
        """Deal, place the starting daikaiju; seat 0 then chooses a start point."""
        self.check_players(params, n_players)
        tiles = list(load_tiles(params.tiles))
        rng.shuffle(tiles)
        hands = [[tiles.pop() for _ in range(3)] for _ in range(n_players)]
        s = TsuroState(params=params, players=n_players, phase="start", current=0, active=0, turn=0,
                       board=[-1] * SQUARES, kaiju=[-1] * SQUARES, kaiju_sq=[-1] * 10, kaiju_rot=[0] * 10,
                       kaiju_stack=[], pile=tiles, hands=hands, pos=[-1] * n_players,
                       alive=[True] * n_players, elim_turn=[0] * n_players, elim_cause=[""] * n_players,
                       elim_square=[-1] * n_players, tasks=[], face=0, reloc=[], winners=[],
                       end_reason="", events=[], prev_events=[], afloat=[0] * n_players,
                       pool=[[] for _ in range(n_players)])
        s.tally = [[] for _ in range(n_players)]
        s.placed = [[] for _ in range(n_players)]
        if params.daikaiju == "on":
            stack = list(range(10))
            rng.shuffle(stack)
            s.kaiju_stack = stack
            for _ in range(daikaiju_count(n_players)):
                k = stack.pop()
                sq = self._free_dice_square(s, rng)
                s.kaiju_rot[k] = int(rng.random() * 4)
                s.kaiju[sq] = k
                s.kaiju_sq[k] = sq
        return s

    def _free_dice_square(self, s: TsuroState, rng) -> int:
        mode = s.params.dice_coordinates
        while True:
            sq = dice_square(rng, mode)
            if s.kaiju[sq] < 0:
                return sq

    # -- queries ----------------------------------------------------------------------------
    def current_player(self, s: TsuroState) -> int:
        return s.current

    def turn(self, s: TsuroState):
        return s.current, self.legal_actions(s)

    def is_terminal(self, s: TsuroState) -> bool:
        return s.phase == "over"

    def legal_actions(self, s: TsuroState):
        """Legal actions of ``s.current`` in a documented order (see the module docstring)."""
        if s.cache is not None:
            return s.cache[0]
        phase = s.phase
        info = None
        if phase == "place":
            legal, info = self._placements(s)
        elif phase == "start":
            taken = s.pos
            legal = tuple(START_ACTION[x] for x in START_POINTS if x not in taken)
        elif phase == "relocate":
            legal = self._relocations(s, s.reloc[0])
        elif phase == "exchange":
            legal = self._exchanges(s.hands[s.active], s.pool[s.active])
        else:
            legal = ()
        s.cache = (legal, info)
        return legal

    def _placements(self, s: TsuroState):
        a = s.active
        pos = s.pos
        sq = pos[a] >> 3
        board, kaiju = s.board, s.kaiju
        ok = []
        every = []
        info = {}
        for tile in sorted(set(s.hands[a])):
            base = tile * 4
            for r in ROTATIONS[tile]:
                act = PLACE_ACTION[base + r]
                board[sq] = base + r
                res = resolve(board, kaiju, pos, sq)
                info[act] = res
                every.append(act)
                if not suicidal(res, a):
                    ok.append(act)
        board[sq] = -1
        return tuple(ok or every), info

    def _relocations(self, s: TsuroState, seat: int):
        st = s.pos[seat]
        return (MOVE_ACTION[st],) + tuple(MOVE_ACTION[x] for x in EDGE_STARTS[(st & 7) >> 1] if x != st
                                          and x not in s.pos and s.board[x >> 3] < 0 and s.kaiju[x >> 3] < 0)

    @staticmethod
    def _exchanges(hand, pool):
        out = [NO_EXCHANGE]
        h, p = sorted(hand), sorted(pool)
        for k in range(1, len(h) + 1):
            gives = sorted(set(itertools.combinations(h, k)))
            takes = sorted(set(itertools.combinations(p, k)))
            out += [Exchange(g, t) for g in gives for t in takes if not set(g) & set(t)]
        return tuple(out)

    # -- apply ------------------------------------------------------------------------------
    def apply(self, s: TsuroState, action, rng) -> None:
        """Play ``action`` for ``s.current``; ValueError if it is not legal (every action, once the
        game is over)."""
        legal = self.legal_actions(s)
        phase = s.phase
        s.fresh = True
        if phase == "place":
            res = s.cache[1].get(action) if action in legal else None
            if res is None:
                raise ValueError(f"illegal Tsuro placement {action!r}")
            s.cache = None
            self._place(s, action, res, rng)
        elif action not in legal:
            raise ValueError(f"illegal Tsuro action {action!r} in phase {phase}")
        elif phase == "start":
            s.cache = None
            seat = s.current
            x = ACTION_STATE[action]
            s.pos[seat] = x
            s.events.append(("start", seat, x))
            if seat + 1 < s.n:
                s.current = seat + 1
            else:
                s.current = 0
                self._begin_turn(s, rng)
        elif phase == "relocate":
            s.cache = None
            seat = s.reloc.pop(0)
            x = ACTION_STATE[action]
            if x != s.pos[seat]:
                s.events.append(("relocate", seat, s.pos[seat], x))
                s.pos[seat] = x
            self._run_step(s, rng)
        elif phase == "exchange":
            s.cache = None
            hand, pool = s.hands[s.active], s.pool[s.active]
            for t in action.give:
                hand.remove(t)
                pool.append(t)
            for t in action.take:
                pool.remove(t)
                hand.append(t)
            if action.give:
                s.events.append(("exchange", s.active, len(action.give)))
            s.pile[:0] = pool
            s.pool[s.active] = []
            self._finish_turn(s, rng)

    # -- turn sequence ----------------------------------------------------------------------
    def _begin_turn(self, s: TsuroState, rng) -> None:
        if s.turn >= s.params.max_turns:
            self._end(s, "max_turns", [i for i in range(s.n) if s.alive[i]])
            return
        s.turn += 1
        if s.fresh:  # the first turn to begin since the last decision
            s.prev_events = s.events
            s.fresh = False
        else:  # a turn passed without a decision: keep its events with the earlier ones
            s.prev_events = s.prev_events + s.events
        s.events = ev = []
        s.active = s.current
        s.face = 0
        p = s.params
        if p.daikaiju == "on":
            on_board = [k for k in range(10) if s.kaiju_sq[k] >= 0]
            three = p.rule_of_three
            if three != "off" and len(on_board) < 3 and s.kaiju_stack:
                k = (3 - len(on_board)) if three == "refill" else 1
                s.tasks = [-1] * min(k, len(s.kaiju_stack))
                ev.append(("three", len(s.tasks)))
            else:
                g = int(rng.random() * 6) + 1
                b = int(rng.random() * 6) + 1
                ev.append(("roll", g, b))
                if 6 <= g + b <= 8:
                    f = int(rng.random() * 6) + 1
                    s.face = f
                    ev.append(("face", f))
                    if f <= 5:
                        s.tasks = on_board
                    elif s.kaiju_stack:
                        s.tasks = [-1]
        self._run_step(s, rng)

    def _run_step(self, s: TsuroState, rng) -> None:
        """Carry on the daikaiju step up to a decision, then go to the placement (or next turn)."""
        while True:
            while s.reloc:
                seat = s.reloc[0]
                st = s.pos[seat]
                if s.alive[seat] and st >= 0 and NEXT[st] < 0 and len(self._relocations(s, seat)) > 1:
                    s.phase = "relocate"
                    s.current = seat
                    return
                s.reloc.pop(0)
            if not s.tasks:
                break
            k = s.tasks.pop(0)
            if k >= 0:
                self._kaiju_act(s, k)
            else:
                self._kaiju_place(s, rng)
            if s.phase == "over":
                return
        a = s.active
        if s.alive[a] and s.kaiju[s.pos[a] >> 3] >= 0:
            self._sink(s, [(a, "daikaiju", self._where(s.pos[a]))])
            if s.phase == "over":
                return
        if not s.alive[a]:
            self._next_turn(s, rng)
            return
        hand = s.hands[a]
        if not hand and s.pile:
            self._draw(s, a)
        if not hand:
            self._end(s, "no_tiles", [i for i in range(s.n) if s.alive[i]])
            return
        s.phase = "place"
        s.current = a

    @staticmethod
    def _where(st: int) -> int:
        b = behind(st)
        return b if b >= 0 else st >> 3

    def _kaiju_act(self, s: TsuroState, k: int) -> None:
        sq = s.kaiju_sq[k]
        if sq < 0:
            return
        act = load_daikaiju(s.params.daikaiju_layout)[k][s.face - 1]
        if act == ROTATE:
            s.kaiju_rot[k] = (s.kaiju_rot[k] + 3) & 3
            s.events.append(("rotate", k, sq))
            return
        t = KNBR[sq * 4 + ((act + s.kaiju_rot[k]) & 3)]
        s.kaiju[sq] = -1
        if t < 0:
            s.kaiju_sq[k] = -1
            s.events.append(("off", k, sq))
            return
        s.events.append(("move", k, sq, t))
        self._kaiju_arrive(s, k, t)

    def _kaiju_place(self, s: TsuroState, rng) -> None:
        if not s.kaiju_stack:
            return
        k = s.kaiju_stack.pop()
        t = self._free_dice_square(s, rng)
        s.kaiju_rot[k] = int(rng.random() * 4)
        s.events.append(("new", k, t, s.kaiju_rot[k]))
        self._kaiju_arrive(s, k, t)

    def _kaiju_arrive(self, s: TsuroState, k: int, t: int) -> None:
        victims = []
        j = s.kaiju[t]
        empty = False
        if j >= 0:
            s.kaiju_sq[j] = -1
            s.events.append(("crush", k, j, t))
        elif s.board[t] >= 0:
            tile = s.board[t] >> 2
            s.board[t] = -1
            s.pile.insert(0, tile)
            s.events.append(("sunk_tile", t, tile))
            for seat in self._turn_order(s):
                st = s.pos[seat]
                if st >= 0 and behind(st) == t:
                    victims.append((seat, "daikaiju", t))
        else:
            empty = True
        s.kaiju[t] = k
        s.kaiju_sq[k] = t
        if empty:
            a = s.active
            relocate_active = s.params.start_relocation == "any"
            for seat in self._turn_order(s):
                st = s.pos[seat]
                if st >= 0 and st >> 3 == t:
                    on_start = NEXT[st] < 0
                    if seat == a and not (on_start and relocate_active):
                        victims.append((seat, "daikaiju", self._where(st)))
                    elif on_start:
                        s.reloc.append(seat)
        if victims:
            self._sink(s, victims)

    @staticmethod
    def _turn_order(s: TsuroState):
        a = s.active
        return [(a + i) % s.n for i in range(s.n)]

    def _sink(self, s: TsuroState, victims, pool: list | None = None) -> None:
        """Eliminate ``victims`` [(seat, cause, square)] at once; their hands go under the pile
        (or into ``pool``); then check the end of the game."""
        returned = []
        for seat, cause, where in victims:
            s.alive[seat] = False
            s.pos[seat] = -1
            s.elim_turn[seat] = s.turn
            s.elim_cause[seat] = cause
            s.elim_square[seat] = where
            s.events.append(("sink", seat, cause, where))
            if pool is not None and seat != s.active:
                pool.extend(s.hands[seat])
            else:
                returned.extend(s.hands[seat])
            s.hands[seat] = []
        s.pile[:0] = returned  # under the pile as one block
        left = [i for i in range(s.n) if s.alive[i]]
        if not left:
            self._end(s, "all_sunk", sorted(v[0] for v in victims))
        elif len(left) == 1:
            self._end(s, "last_ship", left)

    def _end(self, s: TsuroState, reason: str, winners) -> None:
        if reason != "max_turns" and s.turn and s.alive[s.active]:
            s.afloat[s.active] += 1  # the game ended in this ship's turn, with the ship afloat
        s.phase = "over"
        s.end_reason = reason
        s.winners = list(winners)
        s.tasks = []
        s.reloc = []
        s.cache = None
        s.events.append(("end", reason))

    def _place(self, s: TsuroState, action: Place, res, rng) -> None:
        a = s.active
        sq = s.pos[a] >> 3
        code = action.tile * 4 + action.rotation
        s.hands[a].remove(action.tile)
        s.board[sq] = code
        if s.tally is not None:
            s.tally[a].append(TILE_NAMES[action.tile])
        if s.placed is not None:
            s.placed[a].append((action.tile, all(r[0] != a or r[1] == STOP for r in res)))
        s.events.append(("place", a, action.tile, action.rotation, sq))
        order = {seat: i for i, seat in enumerate(self._turn_order(s))}
        victims = []
        for seat, fate, end, where in sorted(res, key=lambda r: order[r[0]]):
            if fate == STOP:
                if s.pos[seat] != end:
                    s.events.append(("sail", seat, s.pos[seat], end))
                    s.pos[seat] = end
            else:
                victims.append((seat, FATE_CAUSE[fate], where))
        bonus = s.params.elimination_bonus == "on"
        if victims:
            pool = []
            self._sink(s, victims, pool if bonus and all(v[0] != a for v in victims) else None)
            if s.phase == "over":  # no exchange at the end: the sunk hands go under the pile
                s.pile[:0] = pool
                return
            if s.alive[a] and pool and s.hands[a]:
                s.pool[a] = pool  # offered to the active seat only
                s.phase = "exchange"
                s.current = a
                return
            s.pile[:0] = pool
        self._finish_turn(s, rng)

    def _draw(self, s: TsuroState, seat: int) -> None:
        hand, pile = s.hands[seat], s.pile
        k = 0
        while len(hand) < 3 and pile:
            hand.append(pile.pop())
            k += 1
        if k:
            s.events.append(("draw", seat, k))

    def _finish_turn(self, s: TsuroState, rng) -> None:
        if s.alive[s.active]:
            self._draw(s, s.active)
        self._next_turn(s, rng)

    def _next_turn(self, s: TsuroState, rng) -> None:
        n = s.n
        a = s.active
        if s.alive[a]:
            s.afloat[a] += 1
        for i in range(1, n + 1):
            seat = (a + i) % n
            if s.alive[seat]:
                break
        s.current = seat
        s.phase = "turn"
        self._begin_turn(s, rng)

    # -- results ----------------------------------------------------------------------------
    def scores(self, s: TsuroState) -> list[int]:
        """The ship's own turns completed afloat (rules.md, "Score"): a turn of its
        own counts when the ship is still afloat at its end, or when the game ends in that turn
        with the ship afloat (``last_ship``, ``no_tiles``).  Counting the ship's own turns, not the
        game's, keeps the score fair between seats: a ship sunk in round 3 scores 2 in any seat."""
        return list(s.afloat)

    def winners(self, s: TsuroState) -> list[int]:
        if s.phase == "over":
            return sorted(s.winners)
        return [i for i in range(s.n) if s.alive[i]]

    def components(self, s: TsuroState) -> list[list[str]]:
        """Per seat, the wake tiles it placed (rules page, Place), one entry per placement: the
        tile's id is its pairs in the smallest rotation, as the tiles file names it (e.g.
        ``"01 25 37 46"``; :data:`TILE_NAMES`).  A tile a daikaiju later knocks off still counts.
        Recorded only in a game dealt by ``initial_state`` (empty lists for a state loaded
        mid-game)."""
        return s.tally if s.tally is not None else [[] for _ in range(s.n)]

    def component_catalog(self, params: TsuroParams) -> dict[str, dict]:
        """Every tile of the tile set (``tiles``; the built-in file when empty), in file order:
        its copies, and its line in the file so a designer can edit it."""
        path = Path(params.tiles).expanduser() if params.tiles else DATA / "tsuro_tiles.csv"
        tiles = load_tiles(params.tiles)
        out = {}
        for line, row in read_component_rows(path, "tiles", ["copies", "pairs"]):
            tile = tile_of(parse_pairs(row[1]))[0]
            copies = tiles.count(tile)
            if copies:
                out[TILE_NAMES[tile]] = {"what": f"wake tile, {copies} of {len(tiles)}", "option": "tiles",
                                         "file": str(path), "line": line, "fix": ""}
        return out

    def metrics(self, s: TsuroState) -> list[dict]:
        """Per seat: ``turns`` (game length), ``elim_turn`` (NaN if afloat), ``cause`` (edge, daikaiju,
        collision, loop or survived), ``survived`` (0/1), ``elim_row``/``elim_col`` (NaN if afloat),
        ``end`` (how the game ended: last_ship, all_sunk, no_tiles, max_turns), ``score_trace``
        (the score - own turns afloat - after each turn, :meth:`_score_history`; see
        :func:`analyser.engine.core.encode_trace`), ``placements``: every wake tile the seat placed, in
        order, as ``tile:kept`` separated by spaces - ``tile`` its index in :data:`TILE_NAMES`,
        ``kept`` 1 when the ship stayed afloat through that placement, 0 when the placement sank
        it (its path off the edge, into a ship, a daikaiju or a loop); NaN when it placed none (or in a state loaded mid-game)."""
        nan = math.nan
        trace = encode_trace(self._score_history(s), s.n)
        out = []
        for i in range(s.n):
            sq = s.elim_square[i]
            sunk = s.elim_turn[i] > 0
            out.append({"turns": s.turn, "elim_turn": float(s.elim_turn[i]) if sunk else nan,
                        "cause": s.elim_cause[i] if sunk else "survived", "survived": 0 if sunk else 1,
                        "elim_row": float(sq // SIZE) if sunk and sq >= 0 else nan,
                        "elim_col": float(sq % SIZE) if sunk and sq >= 0 else nan,
                        "end": s.end_reason or "running", "score_trace": trace[i],
                        "placements": " ".join(f"{t}:{int(kept)}" for t, kept in
                                               (s.placed[i] if s.placed is not None else ())) or nan})
        return out

    # -- for `analyser check` -----------------------------------------------------------------
    def step_bound(self, params: TsuroParams, n_players: int) -> int:
        """One start point per seat, then at most ``max_turns`` turns of at most one placement,
        one exchange and one start-point move per ship for each of the 10 daikaiju."""
        return n_players + params.max_turns * (2 + 10 * n_players)

    def check_invariants(self, s: TsuroState) -> None:
        """Tiles conserved (board + pile + hands + exchange pool = the tile set), hands of at most 3,
        daikaiju squares consistent, ships only on distinct valid points, eliminated ships
        without tiles, and at a decision no live ship facing a tile."""
        held = Counter(c >> 2 for c in s.board if c >= 0) + Counter(s.pile)
        for h in s.hands + s.pool:
            held += Counter(h)
        tile_set = Counter(load_tiles(s.params.tiles))
        if held != tile_set:  # every tile exactly as often as the tile set holds it
            extra, short = held - tile_set, tile_set - held
            raise AssertionError("tiles not conserved: " + "; ".join(
                part for part in (f"{sum(extra.values())} too many (tile {min(extra)} first)" if extra else "",
                                  f"{sum(short.values())} missing (tile {min(short)} first)" if short else "") if part))
        assert all(len(h) <= 3 for h in s.hands), "a hand holds more than 3 tiles"
        on = [k for k in range(10) if s.kaiju_sq[k] >= 0]
        assert sorted(k for k in s.kaiju if k >= 0) == on, "daikaiju squares disagree"
        assert all(s.kaiju[s.kaiju_sq[k]] == k for k in on)
        assert len(set(on) | set(s.kaiju_stack)) == len(on) + len(s.kaiju_stack) <= 10
        live = [st for st in s.pos if st >= 0]
        assert len(set(live)) == len(live), "two ships on one point"
        for seat in range(s.n):
            if not s.alive[seat]:
                assert s.pos[seat] < 0 and not s.hands[seat] and s.elim_cause[seat]
            elif s.phase != "start" or s.pos[seat] >= 0:
                st = s.pos[seat]
                assert 0 <= st < SQUARES * 8, f"seat {seat} has no ship"
                assert s.board[st >> 3] < 0, f"seat {seat} faces a tile"
        if s.phase == "over":
            assert s.winners and s.end_reason

    # -- persistence ------------------------------------------------------------------------
    def _score_history(self, s: TsuroState) -> list[list[int]]:
        """Every seat's score (own turns afloat) after each turn, rebuilt from the final state: turn
        1 is seat 0's, each next turn the next seat still afloat (``elim_turn``), and a turn counts
        for its ship when the ship is afloat at its end (the game's last turn too, whether the game
        ends in it or at ``max_turns``).  Empty when the rebuilt totals do not match ``afloat``
        (then the trace is not recorded for that game)."""
        n, last = s.n, s.turn
        if last <= 0:
            return []

        def afloat_after(seat, t):
            e = s.elim_turn[seat]
            return e == 0 or e > t

        history, cur, active = [], [0] * n, 0
        for t in range(1, last + 1):
            if t > 1:
                for i in range(1, n + 1):
                    seat = (active + i) % n
                    if afloat_after(seat, t - 1):
                        active = seat
                        break
            if afloat_after(active, t):
                cur[active] += 1
            history.append(list(cur))
        return history if cur == list(s.afloat) else []

    def state_schema(self):
        """The saved-state schema (:mod:`analyser.io.states`)."""
        return _state_schema(self.min_players, self.max_players)

    # -- display ----------------------------------------------------------------------------
    def describe_action(self, action) -> str:
        if isinstance(action, (Start, MoveStart)):
            r, c = action.square
            verb = "start" if isinstance(action, Start) else "move to start point"
            return f"{verb} at ({r},{c}) port {action.port} ({EDGE_NAMES[action.port // 2]} edge)"
        if isinstance(action, Place):
            lay = layout_name(LAYOUTS[action.tile * 4 + action.rotation])
            return f"place tile #{action.tile} [{TILE_NAMES[action.tile]}] turned {action.rotation}/4 -> {lay}"
        if isinstance(action, Exchange):
            if not action.give:
                return "keep my tiles (no exchange)"
            return (f"exchange {', '.join(f'#{t}' for t in action.give)} for "
                    f"{', '.join(f'#{t}' for t in action.take)}")
        return str(action)


#: The events of a turn's log as saved (kind -> the kinds of its fields: i whole number, s text).
EVENT_FIELDS = {"start": "ii", "three": "i", "roll": "ii", "face": "i", "rotate": "ii", "off": "ii",
                "move": "iii", "new": "iii", "crush": "iii", "sunk_tile": "ii", "sink": "isi",
                "relocate": "iii", "place": "iiii", "sail": "iii", "exchange": "ii", "draw": "ii", "end": "s"}


@lru_cache(maxsize=None)
def _state_schema(min_players: int, max_players: int):
    from pydantic import model_validator

    from analyser.io.states import StateModel, items, seat_lists, text, whole

    square, tile, rot = whole(-1, SQUARES - 1), whole(0, N_TILES - 1), whole(0, 3)
    seat, kaiju, most = whole(0, max_players - 1), whole(0, 9), 100 * N_TILES  # copies cap 100 per tile
    big = whole(-(10**9), 10**9)

    class TsuroStateSchema(StateModel):
        game: Literal["tsuro-seas"] = "tsuro-seas"
        params: dict[text(40), bool | int | float | text(4096)] = {}
        players: whole(min_players, max_players)
        phase: Literal["start", "relocate", "place", "exchange", "over"]
        current: seat
        active: seat
        turn: whole(0, 100_000)  # and at most the max_turns rule option (checked below)
        board: items(whole(-1, 4 * N_TILES - 1), SQUARES, SQUARES)
        kaiju: items(whole(-1, 9), SQUARES, SQUARES)
        kaiju_sq: items(square, 10, 10)
        kaiju_rot: items(rot, 10, 10)
        pos: items(whole(-1, 8 * SQUARES - 1), max_players)
        alive: items(bool, max_players)
        elim_turn: items(whole(0, 10**9), max_players)
        elim_cause: items(Literal["", "edge", "daikaiju", "loop", "collision"], max_players)
        elim_square: items(square, max_players)
        tasks: items(whole(-1, 9), 20)
        face: whole(0, 6)
        reloc: items(seat, max_players)
        winners: items(seat, max_players)
        end_reason: text(40)
        events: items(items(big | text(40), 5, 1), 500)
        prev_events: items(items(big | text(40), 5, 1), 500)
        afloat: items(whole(0, 10**9), max_players)
        pile: items(tile, most)
        hands: items(items(tile, 3), max_players)
        pool: items(items(tile, most), max_players)
        kaiju_stack: items(kaiju, 10)

        @model_validator(mode="after")
        def _per_seat(self):
            n = self.players
            seat_lists(self, n, "hands", "pool", "pos", "alive", "elim_turn", "elim_cause", "elim_square",
                       "afloat")
            cap = self.params.get("max_turns", 500)
            if isinstance(cap, int) and self.turn > cap:
                raise ValueError(f"turn is {self.turn}; the max_turns rule option ends the game at {cap}")
            if any(e > self.turn for e in self.elim_turn) or any(a > self.turn for a in self.afloat):
                raise ValueError("elim_turn and afloat cannot exceed turn")
            for name in ("current", "active"):
                if getattr(self, name) >= n:
                    raise ValueError(f"{name} is seat {getattr(self, name)}; there are {n} seats")
            for name in ("reloc", "winners"):
                value = getattr(self, name)
                if any(x >= n for x in value) or len(set(value)) != len(value):
                    raise ValueError(f"{name} must name distinct seats below {n}")
            if any(p for k, p in enumerate(self.pool) if self.phase != "exchange" or k != self.active):
                raise ValueError("pool: only the active seat's entry holds tiles, in the exchange phase")
            for name in ("events", "prev_events"):
                for i, e in enumerate(getattr(self, name)):
                    spec = EVENT_FIELDS.get(e[0]) if isinstance(e[0], str) else None
                    if spec is None or len(e) != len(spec) + 1 or any(
                            isinstance(x, str) != (k == "s") for x, k in zip(e[1:], spec)):
                        raise ValueError(f"{name}[{i}] is not an event of this title's log")
                    kaiju_fields = {"rotate": 1, "off": 1, "move": 1, "new": 1, "crush": 2}.get(e[0], 0)
                    if any(not 0 <= x <= 9 for x in e[1:1 + kaiju_fields]):
                        raise ValueError(f"{name}[{i}] names no daikaiju (0-9)")
            return self

    return TsuroStateSchema
