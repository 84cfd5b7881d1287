"""Built-in Kingdomino Duel strategies (analyser/titles/kingdomino_duel/rules.md).

Each answers every decision of the title: the draft (:class:`Draft`, S3 included), the S4 turn
(:class:`Turn`), the placement with its "?" coats and spells (:class:`Place`, :data:`PASS`), the
castle bonus (:class:`Castle`), and the S5 coat and S6 cell (:class:`ChooseCoat`,
:class:`AddCross`).

The evaluated strategies share one scoring of a drawing (:class:`Planner`):

* **points**: the exact change in domain points (:func:`pair_gain`), plus the change in S5
  points when the seat holds S5;
* ``crosses`` x the crosses drawn and ``size`` x the cells drawn next to a domain of their own
  coat (the weights a sweep can vary: crosses now against big domains later);
* **spellbook**: ``boxes`` per box the dice fill in a row still open, plus ``complete`` when a
  box completes the row (the spell), counted for the draft and S4, where it differs between
  choices (every placement of the same two dice fills the same boxes);
* a spell spent costs ``spell_cost`` (S1, S2, S3, S4), so it is used only for a clear gain.

A die's draft value is the value of its best single cell (a cell where it obeys connection and
that has an empty neighbour, so a domino fits) plus its spellbook value; it is worked out per
domain (every cell touching one domain gains the same), so the draft does not scan the map.
"""

from __future__ import annotations

from analyser.engine.core import Strategy
from analyser.titles.kingdomino_duel.rules import (ALL_COATS, JOKER, NO_BONUS, PASS, S5, STRIDE, Castle, ChooseCoat,
                                                   Draft, Place, Turn, bits, domains_after, pair_gain)

GAME = "kingdomino-duel"


class Random(Strategy):
    """Any legal action, uniformly at random (spells and the castle bonus included)."""

    name = "random"
    reuse = True  # reset (or nothing) restores every game: one instance per batch
    game = GAME

    def choose(self, view, legal, rng):
        return legal[int(rng.random() * len(legal))]


class Planner(Strategy):
    """Draft and draw by a weighted value: points gained now, crosses, domain growth and spellbook
    boxes (see the module docstring); spells and the castle bonus when they pay."""

    name = "planner"
    reuse = True  # reset (or nothing) restores every game: one instance per batch
    game = GAME
    uses_rng = False
    crosses = 0.0
    size = 0.0
    boxes = 0.25
    complete = 2.0
    spell_cost = 2.0
    #: the castle bonus is used on a domain of at least this many cells, or once the map has at
    #: most ``castle_late`` empty cells
    castle_min = 4
    castle_late = 6
    _key = None

    def reset(self, seat, params, n_players) -> None:
        super().reset(seat, params, n_players)
        self._key = None  # the round memo belongs to one game

    # -- values ---------------------------------------------------------------------------
    def _box_value(self, view, face) -> float:
        """Spellbook value of drawing ``face`` (fills a box when uncrossed and not a ?)."""
        coat, x = face
        if coat == JOKER or x or view.row_owner[coat] >= 0:
            return 0.0
        size = view.comp.rows[coat][0]
        if not size:
            return 0.0
        have = view.boxes[view.seat][coat]
        v = self.boxes
        if have + 1 >= size:
            v += self.complete
        return v

    def _tables(self, view) -> list:
        """The memo of cell values for this seat's map, kept for the round (the map changes only
        when the drawings are revealed): per coat, lazily, a list over cells of ``(s, base)``:
        drawing ``x`` crosses there gains ``s * x + base`` points, ``s - 1`` cells of its coat
        touching it.  Where a coat does not connect (None) it touches no cell of its coat:
        ``(1, 0)``."""
        m = view.maps[view.seat]
        key = (view.round, id(m), m.n_empty)
        if self._key != key:
            self._key = key
            self._cells = [None] * 6
            self._best = {}
            e = m.empty
            self._fits = e & ((e << 1) | (e >> 1) | (e << STRIDE) | (e >> STRIDE))  # a domino fits
        return self._cells

    def _table(self, m, cells: list, k: int) -> list:
        """Coat ``k``'s row of the memo: ``(s, base)`` per cell where it connects, else None
        (meaning ``(1, 0)``); built on first use in the round."""
        rows = [None] * len(m.cell_coat)
        coats, dom, ds, dx, nbrs = m.cell_coat, m.dom, m.dsize, m.dcross, m.comp.nbrs
        x = m.ok[k]
        while x:
            low = x & -x
            x ^= low
            c = low.bit_length() - 1
            seen = []
            s = xs = b = 0
            for n in nbrs[c]:
                if coats[n] == k:
                    d = dom[n]
                    if d not in seen:
                        seen.append(d)
                        s += ds[d]
                        xs += dx[d]
                        b += ds[d] * dx[d]
            rows[c] = (s + 1, (s + 1) * xs - b)
        cells[k] = rows
        return rows

    def _cell(self, m, cells: list, c: int, k: int):
        e = (cells[k] or self._table(m, cells, k))[c]
        return (1, 0) if e is None else e

    def _best_cell(self, m, cells: list, k: int, x: int):
        """Best value of drawing coat ``k`` with ``x`` crosses on a connecting cell where a domino
        fits, or None when there is none.  Worked out per domain: a cell touching one domain of
        ``k`` (``s`` cells, ``X`` crosses) gains ``(s + 1) * x + X``; a cell touching only the
        castle gains ``x``; cells touching several domains are scanned one by one."""
        key = k * 16 + x
        best = self._best.get(key, 0.5)
        if best != 0.5:
            return best
        fits = self._fits
        bound, ds, dx = m.bound, m.dsize, m.dcross
        labels = m.by_coat[k]
        acc = multi = 0
        for d in labels:
            b = bound[d]
            multi |= acc & b
            acc |= b
        size = self.size
        best = x if m.comp.castle_adj & fits & ~acc else None
        for d in labels:
            if bound[d] & fits & ~multi:
                v = (ds[d] + 1) * x + dx[d] + size
                if best is None or v > best:
                    best = v
        if multi & fits:
            for c in bits(multi & fits):
                s, base = self._cell(m, cells, c, k)
                v = s * x + base + size
                if best is None or v > best:
                    best = v
        self._best[key] = best
        return best

    def _face_value(self, view, face, tabs: list) -> float:
        """Draft value of one die: its best single cell plus its spellbook value."""
        m = view.maps[view.seat]
        coat, x = face
        best = None
        for k in (ALL_COATS if coat == JOKER else (coat,)):
            v = self._best_cell(m, tabs, k, x)  # tabs: the cell memo of _tables
            if v is not None and (best is None or v > best):
                best = v
        if best is None:
            return -5.0  # cannot be drawn ordinarily
        return best + self.crosses * x + self._box_value(view, face)

    # -- decisions --------------------------------------------------------------------------
    def choose(self, view, legal, rng):
        a0 = legal[0]
        t = type(a0)
        if t is Place or a0 is PASS or t is Turn:
            return self._place(view, legal)
        if t is Draft:
            return self._draft(view, legal)
        if t is Castle:
            return self._castle(view, legal)
        if t is ChooseCoat:
            m = view.map
            counts = [m.domains_of(k, view.params.s5_domains == "scoring") for k in range(6)]
            return legal[counts.index(max(counts))]
        # S6: the cell in the largest domain gains most (one point per cell of its domain)
        m = view.map
        return max(legal, key=lambda a: m.dsize[m.dom[a.cell]])

    def _draft(self, view, legal):
        tabs = self._tables(view)
        vals = [self._face_value(view, f, tabs) for f in view.roll]
        singles = [a for a in legal if len(a.dice) == 1]
        pairs = [a for a in legal if len(a.dice) == 2]
        if not singles:  # B's pick of two
            return max(pairs, key=lambda a: vals[a.dice[0]] + vals[a.dice[1]])
        best = max(singles, key=lambda a: vals[a.dice[0]])
        if pairs:  # S3: worth it when the best pair beats the best die plus the worst leftover
            rest = [vals[i] for i in range(4) if i != best.dice[0]]
            without = vals[best.dice[0]] + min(rest)
            pair = max(pairs, key=lambda a: vals[a.dice[0]] + vals[a.dice[1]])
            if vals[pair.dice[0]] + vals[pair.dice[1]] - self.spell_cost > without:
                return pair
        return best

    def _place(self, view, legal):
        m = view.maps[view.seat]
        s5 = view.s5_coat if view.spell_owner[S5] == view.seat else -1
        s5_points = view.params.s5_points
        f0, f1 = view.faces
        x0, x1 = f0[1], f1[1]
        cells = self._tables(view)
        table = self._table
        adj = m.comp.adj_mask
        size = self.size
        cost = self.spell_cost
        best, bv = None, None
        turns = []
        for a in legal:
            if type(a) is not Place:
                if type(a) is Turn:
                    turns.append(a)
                continue
            c0, c1, k0, k1 = a[0], a[1], a[2], a[3]
            if k0 == k1 and (adj[c0] >> c1) & 1:
                v = pair_gain(m, c0, c1, k0, k1, x0, x1)
                if size:
                    tab = cells[k0] or table(m, cells, k0)
                    for c in (c0, c1):
                        if tab[c] is not None and tab[c][0] > 1:
                            v += size
            else:
                e = (cells[k0] or table(m, cells, k0))[c0]
                if e is None:
                    v = x0
                else:
                    v = e[0] * x0 + e[1]
                    if size and e[0] > 1:
                        v += size
                e = (cells[k1] or table(m, cells, k1))[c1]
                if e is None:
                    v += x1
                else:
                    v += e[0] * x1 + e[1]
                    if size and e[0] > 1:
                        v += size
            if s5 >= 0 and (k0 == s5 or k1 == s5):
                v += s5_points * domains_after(m, c0, c1, k0, k1, s5)
            if a[4]:
                v -= cost * (2 if a[4] == "S1+S2" else 1)
            if bv is None or v > bv:
                best, bv = a, v
        if turns:
            # S4: the turn that most improves its die's draft value, if clearly worth it
            faces = view.faces
            old = [self._face_value(view, f, cells) for f in faces]
            g, t = max(((self._face_value(view, (t.coat, t.crosses), cells) - old[t.slot], t) for t in turns),
                       key=lambda p: p[0])
            if g > cost or (best is None and g > 0):
                return t
        if best is None or (bv < 0 and PASS in legal):
            return PASS
        return best

    def _castle(self, view, legal):
        p = view.pending
        m = view.map
        options = []
        for a in legal:
            if a is NO_BONUS:
                continue
            # the domain the marked cell ends in: its own coat's neighbours, plus the other cell
            c, k = (p.cell0, p.coat0) if a.cell == p.cell0 else (p.cell1, p.coat1)
            other, ok = (p.cell1, p.coat1) if a.cell == p.cell0 else (p.cell0, p.coat0)
            seen = set()
            cells = [c] + ([other] if ok == k and (m.comp.adj_mask[c] >> other) & 1 else [])
            size = len(cells)
            for cell in cells:
                for n in m.comp.nbrs[cell]:
                    if m.cell_coat[n] == k and m.dom[n] not in seen:
                        seen.add(m.dom[n])
                        size += m.dsize[m.dom[n]]
            options.append((size, a))
        if not options:
            return NO_BONUS
        size, a = max(options, key=lambda o: o[0])
        if size >= self.castle_min or m.n_empty <= self.castle_late:
            return a
        return NO_BONUS


class Greedy(Planner):
    """Draft and draw for the largest immediate score gain (domain points and S5 points), with
    spellbook boxes worth a little and a completed row a bit more; spells when they clearly pay."""

    name = "greedy"
    reuse = True  # reset (or nothing) restores every game: one instance per batch


class Spells(Planner):
    """Plays for spells: drafts uncrossed dice that fill spellbook rows it can still win (a box
    worth `boxes` points, a completed row `complete` more), then draws like greedy."""

    name = "spells"
    reuse = True  # reset (or nothing) restores every game: one instance per batch
    param_bounds = {"boxes": (-100, 100), "complete": (-100, 100)}

    def __init__(self, boxes: float = 1.0, complete: float = 4.0):
        self.boxes = boxes
        self.complete = complete


class Builder(Planner):
    """Weighs crosses now against domain size: each cross drawn is worth `crosses` extra points and
    each cell drawn next to a domain of its own coat `size` extra points, on top of the immediate
    gain (vary them in a sweep)."""

    name = "builder"
    reuse = True  # reset (or nothing) restores every game: one instance per batch
    param_bounds = {"crosses": (-100, 100), "size": (-100, 100)}

    def __init__(self, crosses: float = 1.0, size: float = 0.5):
        self.crosses = crosses
        self.size = size


STRATEGIES = [Random, Greedy, Spells, Builder]
DEFAULT_LINEUP = ["greedy", "spells"]
