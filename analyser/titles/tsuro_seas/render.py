"""Text drawing of a Tsuro of the Seas state (the board as a grid) for `analyser play`."""

from __future__ import annotations

from analyser.text import plural
from analyser.titles.tsuro_seas.rules import (KAIJU_NAMES, LAYOUTS, NEXT, ROTATE, SHIP_MARKS, SIZE, SQUARES,
                                              TILE_NAMES, TsuroState, layout_name, load_daikaiju)


def describe_state(game, s: TsuroState) -> str:
    """The board as a 7x7 grid (each square shows its tile's port pairs or its daikaiju;
    ship seat numbers sit on the ports), then ships, hands, pile and the turn's events."""
    W, H = 6, 4
    grid = [[" "] * (SIZE * W + 1) for _ in range(SIZE * H + 1)]
    for r in range(SIZE + 1):
        grid[r * H] = ["-"] * (SIZE * W + 1)
    for c in range(SIZE + 1):
        for y in range(SIZE * H + 1):
            grid[y][c * W] = "+" if y % H == 0 else "|"
    for sq in range(SQUARES):
        r, c = divmod(sq, SIZE)
        y0, x0 = r * H, c * W
        if s.kaiju[sq] >= 0:
            k = s.kaiju[sq]
            lay = load_daikaiju(s.params.daikaiju_layout)[k]
            arrows = "".join("@" if a == ROTATE else "^>v<"[(a + s.kaiju_rot[k]) & 3] for a in lay)
            lines = [KAIJU_NAMES[k].replace(" ", ""), "~~~~~", arrows]
        elif s.board[sq] >= 0:
            code = s.board[sq]
            pairs = layout_name(LAYOUTS[code]).split()
            lines = [f"{pairs[0]} {pairs[1]}", f"{pairs[2]} {pairs[3]}", f"#{code >> 2:<2}r{code & 3}"]
        else:
            lines = ["", "  .  ", ""]
        for i, text in enumerate(lines):
            for j, ch in enumerate(text[:5].ljust(5)):
                grid[y0 + 1 + i][x0 + 1 + j] = ch
    port_xy = {0: (0, 2), 1: (0, 4), 2: (1, 6), 3: (3, 6), 4: (4, 4), 5: (4, 2), 6: (3, 0), 7: (1, 0)}
    for seat, st in enumerate(s.pos):
        if st >= 0:
            sq, p = st >> 3, st & 7
            dy, dx = port_xy[p]
            grid[(sq // SIZE) * H + dy][(sq % SIZE) * W + dx] = SHIP_MARKS[seat]
    lines = ["     " + "".join(f"{c:^{W}}" for c in range(SIZE))]
    for y, row in enumerate(grid):
        label = f"{y // H:>3}  " if y % H == 2 else "     "
        lines.append(label + "".join(row))
    lines.append("legend: a tile square shows its 4 port pairs (ports 0-7 clockwise from top-left) "
                 "and #id r rotation; daikaiju: name, then its action on die faces 1-5 "
                 "(^ > v < move, @ turn); letters on the borders are ships (A = seat 0, B = seat 1, ...), each "
                 "facing the empty square next to it.")
    p = s.params
    head = f"turn {s.turn}, phase {s.phase}"
    if s.phase != "over":
        head += f", seat {s.current} to act (active seat {s.active})"
    head += f"; pile {plural(len(s.pile), 'tile')}"
    if p.daikaiju == "on":
        head += f"; daikaiju stack {len(s.kaiju_stack)}"
    lines.append(head)
    for seat in range(s.n):
        hand = " ".join(f"#{t}[{TILE_NAMES[t]}]" for t in s.hands[seat])
        if s.alive[seat] and s.pos[seat] >= 0:
            st = s.pos[seat]
            where = f"facing {_sq(st >> 3)} through port {st & 7}" + (" (start point)" if NEXT[st] < 0 else "")
        elif s.alive[seat]:
            where = "not placed yet"
        else:
            where = f"sunk in turn {s.elim_turn[seat]} ({s.elim_cause[seat]}) at {_sq(s.elim_square[seat])}"
        lines.append(f"  seat {seat} ({SHIP_MARKS[seat]}): {where}; hand {hand or '-'}")
    if s.phase == "over":
        lines.append(f"  game over ({s.end_reason}); winners: {', '.join(map(str, s.winners)) or 'none'}")
    for label, evs in (("earlier (since the last decision)", s.prev_events), ("this turn", s.events)):
        if evs:
            lines.append(f"  {label}: " + "; ".join(event_text(e) for e in evs))
    return "\n".join(lines)


def _sq(sq: int) -> str:
    return f"({sq // SIZE},{sq % SIZE})"


def _st(st: int) -> str:
    return f"{_sq(st >> 3)}/{st & 7}"


#: Event kind -> its words (the event tuples of ``TsuroState.events``).
EVENT_TEXT = {
    "start": lambda e: f"seat {e[1]} starts at {_st(e[2])}",
    "three": lambda e: f"rule of three: {e[1]} new daikaiju",
    "roll": lambda e: f"dice {e[1]}+{e[2]}={e[1] + e[2]}",
    "face": lambda e: f"daikaiju die {e[1]}" + (" (new daikaiju)" if e[1] == 6 else ""),
    "rotate": lambda e: f"{KAIJU_NAMES[e[1]]} turns at {_sq(e[2])}",
    "off": lambda e: f"{KAIJU_NAMES[e[1]]} leaves the board from {_sq(e[2])}",
    "move": lambda e: f"{KAIJU_NAMES[e[1]]} {_sq(e[2])} -> {_sq(e[3])}",
    "new": lambda e: f"{KAIJU_NAMES[e[1]]} placed at {_sq(e[2])}",
    "crush": lambda e: f"{KAIJU_NAMES[e[1]]} removes {KAIJU_NAMES[e[2]]} at {_sq(e[3])}",
    "sunk_tile": lambda e: f"tile #{e[2]} at {_sq(e[1])} goes under the pile",
    "sink": lambda e: f"seat {e[1]} eliminated ({e[2]}) at {_sq(e[3])}",
    "relocate": lambda e: f"seat {e[1]} moves its start {_st(e[2])} -> {_st(e[3])}",
    "place": lambda e: f"seat {e[1]} places #{e[2]} r{e[3]} at {_sq(e[4])}",
    "sail": lambda e: f"seat {e[1]} sails {_st(e[2])} -> {_st(e[3])}",
    "exchange": lambda e: f"seat {e[1]} exchanges {e[2]} tile(s)",
    "draw": lambda e: f"seat {e[1]} draws {e[2]}",
    "end": lambda e: f"game ends ({e[1]})",
}


def event_text(e) -> str:
    words = EVENT_TEXT.get(e[0])
    return words(e) if words else str(e)


def new_events(before, after) -> list:
    """The event tuples an action added: ``after``'s log minus what ``before`` already showed.
    Turns that begin during the action move the log into ``prev_events``, which keeps every turn
    since the last decision, so nothing is lost even when a turn passes without a decision."""
    if after.turn == before.turn:
        return list(after.events[len(before.events):])
    return list(after.prev_events[len(before.events):]) + list(after.events)


def step_events(game, before, action, after) -> list[str]:
    """What one action did, in words, for the `analyser play` trace (every event of the action,
    through any turns that passed without a decision, up to the next decision)."""
    return [event_text(e) for e in new_events(before, after)]
