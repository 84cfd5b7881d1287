"""Built-in Tsuro of the Seas strategies (analyser/titles/tsuro_seas/rules.md).

Each sees a :class:`~analyser.titles.tsuro_seas.rules.TsuroView` and answers every decision of the title:
a start point (:class:`Start`), a start-point move after a daikaiju blocks it (:class:`MoveStart`),
a placement (:class:`Place`) and the elimination-bonus exchange (:class:`Exchange`).

Shared measures:

* *room* of a square: the free squares (no tile, no daikaiju) within two steps of it, itself
  included (:func:`analyser.titles.tsuro_seas.rules.room`), less ``kaiju_penalty`` for every daikaiju next
  to it -- how much open sea lies ahead of a ship that faces that square.  A placement's value
  (:meth:`_Base.static`) is the room ahead of where the ship stops, less ``kaiju_penalty`` per
  daikaiju next to the tile it then rests on and 3 per other ship facing the same square; a
  placement that sinks the ship is worth ``DEAD``.  Lookahead (``survivor:depth=2`` and up) adds
  half the value of the best follow-up placement from the tiles left in hand, or takes 500 off
  when every follow-up sinks the ship.
* start policy ``start=safe``: the free start point whose square in front has the most room, with
  penalties for a daikaiju on or next to that square, for another ship already facing it (a tile
  laid for that ship would move ours too) and for the four corner squares (two edges to fall off);
  ``start=random`` picks any.  The same score chooses where to move a blocked ship.
"""

from __future__ import annotations

from analyser.engine.core import Strategy
from analyser.titles.tsuro_seas.rules import (DIAMOND, KNBR, NO_EXCHANGE, ROTATIONS, SIZE, STOP, Exchange, Place,
                                       resolve)

GAME = "tsuro-seas"

DEAD = -1000.0
#: weight of the best follow-up placement's value in a lookahead (the current one weighs 1)
LOOKAHEAD_WEIGHT = 0.5
CORNERS = frozenset((0, SIZE - 1, SIZE * (SIZE - 1), SIZE * SIZE - 1))
DIAMOND_SETS = tuple(frozenset(d) for d in DIAMOND)


def square_room(board, kaiju, sq: int, penalty: float, filled: int = -1) -> float:
    """Room ahead of a ship facing ``sq`` (see the module docstring); ``filled`` is a square to
    count as taken (a tile just laid but not in ``board``)."""
    free = 0
    for x in DIAMOND[sq]:
        if board[x] < 0 and kaiju[x] < 0 and x != filled:
            free += 1
    k = 0
    for d in range(4):
        nb = KNBR[sq * 4 + d]
        if nb >= 0 and kaiju[nb] >= 0:
            k += 1
    return free - penalty * k


def start_score(view, st: int, penalty: float = 2.0) -> float:
    """How good a start point (ship state ``st``) looks for the ``start=safe`` policy."""
    sq = st >> 3
    if view.kaiju[sq] >= 0 or view.board[sq] >= 0:
        return DEAD
    score = square_room(view.board, view.kaiju, sq, penalty)
    for seat, other in enumerate(view.positions):
        if seat != view.seat and other >= 0 and other >> 3 == sq:
            score -= 3
    if sq in CORNERS:
        score -= 2
    return score


def _best(items, rng):
    """The item with the highest score (ties broken with ``rng`` when given, else the first)."""
    top = max(v for v, _ in items)
    best = [a for v, a in items if v == top]
    if len(best) == 1 or rng is None:
        return best[0]
    return best[int(rng.random() * len(best))]


def _mine(results, seat):
    for r in results:
        if r[0] == seat:
            return r
    raise AssertionError("the active ship is not among the placement's results")


def _after(board, pos, square, code, results):
    """Board and positions after a placement with ``results`` (copies)."""
    b = list(board)
    b[square] = code
    p = list(pos)
    for seat, fate, end, _ in results:
        p[seat] = end if fate == STOP else -1
    return b, p


class _Base(Strategy):
    """Common decisions: start points, start-point moves and the exchange."""

    game = GAME
    param_bounds = {"kaiju_penalty": (0, 100)}
    param_choices = {"start": ("safe", "random")}

    def __init__(self, start: str = "safe", kaiju_penalty: float = 2.0):
        if start not in ("safe", "random"):
            raise ValueError(f"start={start!r} is not accepted; use safe or random")
        self.start = start
        self.kaiju_penalty = kaiju_penalty

    def choose(self, view, legal, rng):
        first = legal[0]
        if isinstance(first, Place):
            return self.place(view, legal, rng)
        if isinstance(first, Exchange):
            return self.exchange(view, legal, rng)
        # Start or MoveStart: both carry (square, port)
        if self.start == "random":
            return legal[int(rng.random() * len(legal))]
        scored = []
        for a in legal:
            st = (a.square[0] * SIZE + a.square[1]) * 8 + a.port
            scored.append((start_score(view, st, self.kaiju_penalty), a))
        return _best(scored, rng)

    def place(self, view, legal, rng):
        raise NotImplementedError

    def static(self, view, board, results, seat, square) -> float:
        """Value of the position after a placement: DEAD if ``seat``'s ship sinks, else the room
        ahead, less ``kaiju_penalty`` per daikaiju next to the tile the ship is then on (it may
        land on it) and 3 per other ship facing the same square (its tile would move ours too)."""
        mine = _mine(results, seat)
        if mine[1] != STOP:
            return DEAD
        front = mine[2] >> 3
        kaiju = view.kaiju
        v = square_room(board, kaiju, front, self.kaiju_penalty, filled=square)
        on = mine[3]
        for d in range(4):
            nb = KNBR[on * 4 + d]
            if nb >= 0 and kaiju[nb] >= 0:
                v -= self.kaiju_penalty
        moved = {r[0]: r for r in results}
        for other, st in enumerate(view.positions):
            if other == seat:
                continue
            r = moved.get(other)
            if r is not None:
                st = r[2] if r[1] == STOP else -1
            if st >= 0 and st >> 3 == front:
                v -= 3
        return v

    def tile_value(self, view, tile: int) -> float:
        """Best static value of ``tile`` laid in front of this seat's ship now (for the exchange)."""
        seat = view.seat
        sq = view.positions[seat] >> 3
        board = list(view.board)
        best = DEAD
        for r in ROTATIONS[tile]:
            board[sq] = tile * 4 + r
            res = resolve(board, view.kaiju, view.positions, sq)
            best = max(best, self.static(view, view.board, res, seat, sq))
        return best

    def exchange(self, view, legal, rng):
        """Swap the weakest own tiles for the strongest offered ones while that gains value."""
        mine = sorted((self.tile_value(view, t), t) for t in view.hand)
        offered = sorted(((self.tile_value(view, t), t) for t in view.pool), reverse=True)
        give, take = [], []
        for (vm, tm), (vo, to) in zip(mine, offered):
            if vo > vm and tm != to:
                give.append(tm)
                take.append(to)
        choice = Exchange(tuple(sorted(give)), tuple(sorted(take)))
        return choice if choice in legal else NO_EXCHANGE


class Random(_Base):
    """Any legal action, uniformly at random: start point, placement, start-point move and exchange."""

    name = "random"
    reuse = True  # reset (or nothing) restores every game: one instance per batch

    def __init__(self):
        super().__init__(start="random")

    def choose(self, view, legal, rng):
        return legal[int(rng.random() * len(legal))]


class Survivor(_Base):
    """Lay the tile whose route leaves its own ship the most room ahead (free squares within two
    steps of the square it then faces, less penalties for daikaiju next to that square or to the
    tile it rests on and for another ship facing the same square), looking `depth` of its own
    placements ahead; picks start points with the `start` policy.

    depth: own placements looked at (1 = only this one; 2 also tries the tiles left in hand on the
    next turn, ignoring opponents, daikaiju and the unknown draw); default 1.
    start: start-point policy, safe (most room, away from daikaiju, corners and other ships) or
    random; default safe.
    kaiju_penalty: room lost per daikaiju next to the square ahead or to the tile it rests on;
    default 2.
    """

    name = "survivor"
    reuse = True  # reset (or nothing) restores every game: one instance per batch
    param_bounds = {**_Base.param_bounds, "depth": (1, 3)}  # a hand holds at most 3 tiles

    def __init__(self, depth: int = 1, start: str = "safe", kaiju_penalty: float = 2.0):
        super().__init__(start, kaiju_penalty)
        if depth < 1:
            raise ValueError(f"depth={depth} is not accepted; use 1 or more")
        self.depth = depth

    def place(self, view, legal, rng):
        seat = view.seat
        sq = view.positions[seat] >> 3
        hand = list(view.hand)
        scored = []
        seen = {}  # placements that move only this ship and end alike score alike
        for a in legal:
            res = view.preview(a)
            if len(res) == 1:
                key = res[0][1:]
                v = seen.get(key)
                if v is None:
                    v = seen[key] = self.static(view, view.board, res, seat, sq)
            else:
                v = self.static(view, view.board, res, seat, sq)
            if v > DEAD and self.depth > 1:
                rest = list(hand)
                rest.remove(a.tile)
                if rest:
                    board, pos = _after(view.board, view.positions, sq, a.tile * 4 + a.rotation, res)
                    v2 = self._lookahead(view, board, pos, rest, self.depth - 1)
                    v = v + LOOKAHEAD_WEIGHT * v2 if v2 > DEAD else v - 500
            scored.append((v, a))
        return _best(scored, rng)

    def _lookahead(self, view, board, pos, hand, depth) -> float:
        """Best value of this seat's next placement from ``hand`` on ``board`` (depth levels)."""
        seat = view.seat
        sq = pos[seat] >> 3
        best = DEAD
        for tile in sorted(set(hand)):
            for r in ROTATIONS[tile]:
                code = tile * 4 + r
                board[sq] = code
                res = resolve(board, view.kaiju, pos, sq)
                board[sq] = -1
                v = self.static(view, board, res, seat, sq)
                if v > DEAD and depth > 1:
                    rest = list(hand)
                    rest.remove(tile)
                    if rest:
                        b2, p2 = _after(board, pos, sq, code, res)
                        v2 = self._lookahead(view, b2, p2, rest, depth - 1)
                        v = v + LOOKAHEAD_WEIGHT * v2 if v2 > DEAD else v - 500
                best = max(best, v)
        return best


class Aggressive(_Base):
    """Lay the tile that eliminates the most opponents; among those, one its own ship survives,
    then the one leaving it the most room ahead.  Picks start points with the `start` policy.

    safe: put its own survival before eliminations (never sacrifice the ship to sink others);
    default off.
    start: start-point policy, safe or random; default safe.
    kaiju_penalty: room lost per daikaiju next to the square ahead; default 2.
    """

    name = "aggressive"
    reuse = True  # reset (or nothing) restores every game: one instance per batch

    def __init__(self, safe: bool = False, start: str = "safe", kaiju_penalty: float = 2.0):
        super().__init__(start, kaiju_penalty)
        self.safe = safe

    def place(self, view, legal, rng):
        seat = view.seat
        sq = view.positions[seat] >> 3
        scored = []
        seen = {}
        for a in legal:
            res = view.preview(a)
            if len(res) == 1:  # only its own ship moves: no kills, and equal ends score alike
                kills = 0
                key = res[0][1:]
                v = seen.get(key)
                if v is None:
                    v = seen[key] = self.static(view, view.board, res, seat, sq)
            else:
                kills = sum(1 for r in res if r[0] != seat and r[1] != STOP)
                v = self.static(view, view.board, res, seat, sq)
            alive = v > DEAD
            key = (alive, kills, v) if self.safe else (kills, alive, v)
            scored.append((key, a))
        return _best(scored, rng)


STRATEGIES = [Random, Survivor, Aggressive]
#: `analyser simulate tsuro-seas` without --strategy.
DEFAULT_LINEUP = ["survivor", "aggressive", "random"]
