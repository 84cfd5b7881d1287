"""Text drawing of a Kingdomino Duel state for ``analyser play``: both maps side by side, then the
spellbook, the dice and the spells; the trace's legend and its named events (``step_events``).

A cell is four characters: the coat's two-letter code (dt dot, dd double-dot, st stripe,
ds double-stripe, qu quarters, bk black) followed by one ``+`` per cross (a digit beyond two),
``[##]`` for the castle and ``.`` for an empty cell.  A drawing not yet revealed to the other
player is listed under the maps.
"""

from __future__ import annotations

from analyser.titles.kingdomino_duel.rules import (CASTLE, COATS, EMPTY, SHORT, SPELLS, Pass, Place,
                                                   at, face_name)

LEGEND = ("cells: dt dot, dd double-dot, st stripe, ds double-stripe, qu quarters, bk black; + per cross; "
          "[##] castle")


def _cell(coat: int, crosses: int) -> str:
    if coat == CASTLE:
        return "[##]"
    if coat == EMPTY:
        return " .  "
    mark = "+" * crosses if crosses <= 2 else str(crosses)
    return f"{SHORT[coat]}{mark}".ljust(4)


def map_lines(game, state, seat: int) -> list[str]:
    """The rows of ``seat``'s map, with column and row numbers."""
    comp = state.comp
    m = state.maps[seat]
    lines = ["    " + " ".join(f" {c:<3}" for c in range(comp.width))]
    for r in range(comp.height):
        cells = " ".join(_cell(m.coat[r][c], m.cross[r][c]) for c in range(comp.width))
        lines.append(f" {r:>2} {cells}")
    return lines


def describe_state(game, s) -> str:
    """Both maps, the spellbook, the dice and the spells, as text (one string, several lines)."""
    comp = s.comp
    scores = game.scores(s)
    b = 1 - s.a
    if s.phase == "over":
        head = f"Game over after round {s.round} ({s.end.replace('_', ' ')})"
    else:
        head = (f"Round {s.round}: player A = seat {s.a}, B = seat {b}; {s.phase.replace('_', ' ')}, "
                f"seat {s.current} to decide")
    out = [head]
    dice = "  ".join(f"{d + 1}:{face_name(f)}" + (f"(seat {s.owner[d]})" if s.owner[d] >= 0 else "")
                     for d, f in enumerate(s.roll))
    out.append(f"Dice: {dice}")
    width = 4 + 5 * comp.width + 3
    left, right = map_lines(game, s, 0), map_lines(game, s, 1)
    titles = [f"seat {seat} ({'A' if seat == s.a else 'B'}): {scores[seat]} points, {s.maps[seat].n_empty} empty"
              for seat in (0, 1)]
    out.append(titles[0].ljust(width) + titles[1])
    out += [l.ljust(width) + r for l, r in zip(left, right)]
    for seat in (0, 1):
        p = s.pending[seat]
        if p is None or s.phase not in ("place", "castle"):
            continue
        if type(p) is Pass:
            out.append(f"this round seat {seat} draws nothing")
        elif type(p) is Place:
            f0, f1 = s.faces[seat]
            bonus = f", castle bonus at {at(s.bonus[seat])}" if s.bonus[seat] >= 0 else ""
            spell = f" using {p.spell}" if p.spell else ""
            out.append(f"this round seat {seat} draws {COATS[p.coat0]} ({face_name(f0)}) at {at(p.cell0)} and "
                       f"{COATS[p.coat1]} ({face_name(f1)}) at {at(p.cell1)}{spell}{bonus} (not yet revealed)")
    out.append("Spellbook (boxes filled / row length):        seat 0        seat 1")
    for coat in range(6):
        size, sp = comp.rows[coat]
        if size == 0:
            continue
        cols = []
        for seat in (0, 1):
            owner = s.row_owner[coat]
            if owner == seat:
                text = "GAINED"
            elif owner >= 0:
                text = "struck"
            else:
                text = "#" * s.boxes[seat][coat] + "." * (size - s.boxes[seat][coat])
            cols.append(f"{text:<14}")
        out.append(f"  {COATS[coat]:<14} {SPELLS[sp]} {size:>2} boxes".ljust(46) + "".join(cols))
    held = []
    for sp in range(6):
        owner = s.spell_owner[sp]
        if owner >= 0:
            extra = f" on {COATS[s.s5_coat]}" if sp == 4 and s.s5_coat >= 0 else ""
            held.append(f"{SPELLS[sp]} seat {owner} (round {s.spell_round[sp]}, "
                        f"{'used' if s.spell_used[sp] else 'unused'}){extra}")
    out.append("Spells: " + ("; ".join(held) if held else "none gained yet"))
    castle = [f"seat {seat} " + (f"used in round {s.castle_round[seat]}" if s.castle_round[seat] else "unused")
              for seat in (0, 1)]
    out.append("Castle bonus: " + ", ".join(castle))
    return "\n".join(out)


TRACE_LEGEND = LEGEND + "; cells in actions are (row,column), counted from 0"


def step_events(game, before, action, after) -> list[str]:
    """What one action did, in words, for the `analyser play` trace.  When the step revealed the
    drawings: who drew nothing, a castle bonus used, spells gained and rows struck.  Then the
    next round's roles and dice, or the end of the game with the scores."""
    out = []
    if before.phase in ("place", "castle") and after.phase not in ("place", "castle"):
        # both drawings were revealed during this step, then the spellbook step ran
        out += [f"seat {seat} drew nothing this round" for seat in (before.a, 1 - before.a)
                if after.passes[seat] > before.passes[seat]]
        out += [f"seat {seat} used the castle bonus" for seat in (0, 1)
                if after.castle_round[seat] and not before.castle_round[seat]]
        for coat in range(6):
            gained = after.row_owner[coat]
            if gained >= 0 and before.row_owner[coat] < 0:
                sp = SPELLS[after.comp.rows[coat][1]]
                out.append(f"SPELL: seat {gained} completed the {COATS[coat]} row and gains {sp}; "
                           f"seat {1 - gained}'s {COATS[coat]} row is struck")
    if after.phase == "over" and before.phase != "over":
        sc = game.scores(after)
        how = {"full_map": "a map is full", "no_draw": "neither player drew this round",
               "max_rounds": "the max_rounds cap"}[after.end]
        out.append(f"game over after round {after.round}: {how}; scores {sc[0]} - {sc[1]}")
    elif after.round > before.round:
        dice = ", ".join(face_name(f) for f in after.roll)
        out.append(f"round {after.round}: seat {after.a} is A and rolls {dice}")
    return out
