"""Kingdomino Duel: draft dice, draw dominoes into your kingdom, race for spells.

The rules page is ``rules.md`` (``analyser rules kingdomino-duel``); this module implements it.  No pandas or
matplotlib here: figures live in :mod:`.figures`, the text drawing in :mod:`.render`.

The rules are on the rules page (sections Components, A round, Spells and the castle bonus, End
and scoring); the components (``components``, a CSV file) default to an **unverified
approximation**.

The rulings where the rules write-up is silent are on the rules page (section Rulings where the
write-up is silent), each with the rule option that changes it.

Variant ``seat_bonus`` (rules page, section Seat bonus): points added to a seat's score and to its
running score in ``history`` (the score trace); it changes who wins, nothing in play.

Actions (NamedTuples; they compare as tuples, so compare actions only within one legal list)
--------------------------------------------------------------------------------------------
* :class:`Draft` ``(dice, spell)`` - die numbers 0-3 (die 1-4 in the component file): one die at
  A's first pick, two at B's pick, or two at A's first pick with ``spell="S3"``.
* :class:`Place` ``(cell0, cell1, coat0, coat1, spell)`` - the seat's first die (lower die
  number) goes to ``cell0``, the second to ``cell1`` (cells are ``row * 16 + column``);
  ``coat0``/``coat1`` are the coats drawn (a ``?`` takes the chosen coat); ``spell`` is ``""``,
  ``"S1"``, ``"S2"`` or ``"S1+S2"``.  :data:`PASS` draws nothing.
* :class:`Turn` ``(slot, coat, crosses)`` - S4: turn the seat's die ``slot`` (0 or 1) to that face.
* :class:`Castle` ``(cell)`` - the castle bonus on the die drawn at ``cell``; :data:`NO_BONUS` skips.
* :class:`ChooseCoat` ``(coat)`` - S5; :class:`AddCross` ``(cell)`` - S6.

Legal order: drafts by die number (single picks, then S3 pairs); placements ordinary first, then
S1, S2, S1+S2 (the order within is given by :func:`placements`), then :data:`PASS` when allowed,
then S4 turns; castle: :data:`NO_BONUS` first; S5 coats
ascending; S6 cells ascending.  Identical dice give each drawing once.

Chance: only the dice, rolled at the start of each round with the rng handed to
``initial_state``/``apply``.  Everything else is public, so a view holds the whole state except
the opponent's not yet revealed drawing of the current round (rules page: Drawing is
simultaneous) and future dice, which do not exist until rolled.

Game length (``turns``) counts rounds.  Speed: a :class:`Kingdom` keeps its domains, their
boundaries and per-coat connection masks up to date as cells are drawn, so legal placements come
from bit masks; the legal actions of a decision are computed once and cached on the state (the
cache is not part of the state's data), and ordinary and spell placements are interned (the same
immutable tuple every time), since building a NamedTuple costs several dictionary look-ups.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Literal, NamedTuple, Optional, Union

from analyser.engine.components import derived, dice_faces, scratch, seat_counters, seat_secrets
from analyser.engine.core import COMPONENTS, Game, InputError, Metric, Params, Scoring, encode_trace, option
from analyser.engine.derive import View, clone
from analyser.engine.perseat import seat_values

COATS = ("dot", "double-dot", "stripe", "double-stripe", "quarters", "black")
SHORT = ("dt", "dd", "st", "ds", "qu", "bk")
JOKER = -1
SPELLS = ("S1", "S2", "S3", "S4", "S5", "S6")
S1, S2, S3, S4, S5, S6 = range(6)
EMPTY = -1
CASTLE = -2
OFF = -3  # an index past the map's last column (cells are numbered with a fixed row stride)
#: Cells are numbered ``row * STRIDE + column`` whatever the map's width (at most 15 columns), so
#: an action's cells read the same under any components file.
STRIDE = 16
#: Largest components file accepted, in bytes.
MAX_FILE_BYTES = 1_000_000
DATA = Path(__file__).resolve().parent / "data"
DEFAULT_COMPONENTS = DATA / "components.csv"


# --------------------------------------------------------------------------------------------
# Components
# --------------------------------------------------------------------------------------------

def face_name(face) -> str:
    """``(coat, crosses)`` -> ``"dot"``, ``"black+2"`` or ``"?"`` (``"?+1"`` with crosses)."""
    coat, x = face
    name = "?" if coat == JOKER else COATS[coat]
    return name + (f"+{x}" if x else "")


_FACE_IDS: dict = {}


def face_id(die: int, face) -> str:
    """The component id of ``face`` (``(coat, crosses)``) on die ``die`` (0-3): ``"die 2
    black+2"`` - the die's line in the components file and the face as written there (a face
    written twice on one die is one component).  The same string object every time."""
    key = (die, face)
    out = _FACE_IDS.get(key)
    if out is None:
        out = _FACE_IDS[key] = f"die {die + 1} {face_name(face)}"
    return out


def parse_face(text: str):
    """``"dot+1"`` -> ``(0, 1)``, ``"?"`` -> ``(JOKER, 0)``; ValueError (without the text) otherwise."""
    name, sep, x = text.strip().partition("+")
    crosses = 0
    if sep:
        if not x.isdigit() or not 1 <= int(x) <= 9:
            raise ValueError("crosses must be written +1 to +9")
        crosses = int(x)
    if name == "?":
        return (JOKER, crosses)
    if name not in COATS:
        raise ValueError("not a coat of arms")
    return (COATS.index(name), crosses)


@dataclass(frozen=True)
class Components:
    """Dice, map and spellbook (RULES page, Components).

    * ``dice[i]``: the six faces of die i (0-3) as ``(coat, crosses)``, coat ``JOKER`` for ``?``.
    * ``width`` x ``height`` cells, ``castle`` the castle's cell index (``row * STRIDE + column``).
    * ``rows[coat]``: ``(boxes, spell)`` of that coat's spellbook row (spell 0-5 = S1-S6), or
      ``(0, -1)`` when the coat has no row.
    * Geometry: ``nbrs[cell]``, ``edges`` (adjacent pairs ``u < v`` of non-castle cells),
      ``castle_adj`` (bit mask of cells touching the castle), ``free`` (bit mask of non-castle
      cells), ``adj_mask[cell]``.
    """

    dice: tuple
    width: int
    height: int
    castle: int
    rows: tuple
    source: str = ""

    @property
    def cells(self) -> int:
        """Length of a kingdom's cell lists (``height * STRIDE``; indices past the width are OFF)."""
        return self.height * STRIDE

    @property
    def valid(self) -> tuple:
        """The map's cell indices, row-major (the castle included)."""
        return tuple(r * STRIDE + c for r in range(self.height) for c in range(self.width))

    @property
    def faces(self) -> tuple:
        """Every distinct face of every die, in die order."""
        return tuple(dict.fromkeys(f for die in self.dice for f in die))

    def __post_init__(self):
        w, h = self.width, self.height
        nbrs, adj = [], []
        for c in range(h * STRIDE):
            r, col = divmod(c, STRIDE)
            ns = []
            if col < w:
                if r > 0:
                    ns.append(c - STRIDE)
                if col > 0:
                    ns.append(c - 1)
                if col < w - 1:
                    ns.append(c + 1)
                if r < h - 1:
                    ns.append(c + STRIDE)
            ns = tuple(n for n in ns if n != self.castle)
            nbrs.append(ns)
            adj.append(sum(1 << n for n in ns))  # distinct cells: the sum is the bit mask
        object.__setattr__(self, "nbrs", tuple(nbrs))
        object.__setattr__(self, "adj_mask", tuple(adj))
        valid = self.valid
        edges = tuple((u, v) for u in valid for v in nbrs[u] if u < v and u != self.castle)
        object.__setattr__(self, "edges", edges)
        object.__setattr__(self, "castle_adj", adj[self.castle])  # the castle's neighbours
        object.__setattr__(self, "free", sum(1 << c for c in valid if c != self.castle))


def _read_text(path: Path) -> str:
    """The text of a components file: a regular file of at most 1 MB in UTF-8.  Messages name
    the file, never its content."""
    where = f"components file {str(path)!r}"
    try:
        st = os.stat(path)
    except OSError as e:
        raise InputError(f"{where} cannot be read: {e.strerror or 'no such file'}") from None
    if not stat.S_ISREG(st.st_mode):
        raise InputError(f"{where} is not a regular file; give a CSV file")
    if st.st_size > MAX_FILE_BYTES:
        raise InputError(f"{where} is {st.st_size:,} bytes; at most {MAX_FILE_BYTES:,} are accepted")
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
    except OSError as e:
        raise InputError(f"{where} cannot be read: {e.strerror or e}") from None
    if len(data) > MAX_FILE_BYTES:
        raise InputError(f"{where} is larger than {MAX_FILE_BYTES:,} bytes")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError(f"{where} is not UTF-8 text; save it as a UTF-8 CSV file") from None


def _ints(text: str, n: int) -> list[int]:
    parts = text.split()
    if len(parts) != n or not all(p.lstrip("-").isdigit() for p in parts):
        raise ValueError
    return [int(p) for p in parts]


@lru_cache(maxsize=16)
def load_components(path: str = "") -> Components:
    """Read a components CSV file (``""`` = the built-in approximation); cached per path.

    Format: see the header of ``data/components.csv``.  Raises :class:`InputError` with one line
    naming the file, the line and the problem (never quoting the file's content): a die without
    six faces, an unknown coat of arms, a castle outside the map, a die, map entry, coat or spell
    given twice, a missing die or map size, a file that is not a regular UTF-8 file of at most
    1 MB.
    """
    p = Path(path).expanduser() if path else DEFAULT_COMPONENTS
    where = f"components file {str(p)!r}"
    text = _read_text(p)
    lines = [(i + 1, raw.strip()) for i, raw in enumerate(text.splitlines())]
    records = [(i, line) for i, line in lines if line and not line.startswith("#")]
    if not records:
        raise InputError(f"{where} is empty; it needs the header part,name,values and the records")
    first, header = records[0]
    if [h.strip().lower() for h in header.split(",")] != ["part", "name", "values"]:
        raise InputError(f"{where}: line {first}: the header must be part,name,values")
    dice: dict[int, tuple] = {}
    size = castle = None
    castle_line = 0
    rows: dict[int, tuple[int, int]] = {}
    spell_line: dict[int, int] = {}
    seen: dict[tuple, int] = {}
    for line, rec in records[1:]:
        fields = [f.strip() for f in rec.split(",")]
        if len(fields) != 3:
            raise InputError(f"{where}: line {line}: expected 3 fields (part,name,values), got {len(fields)}")
        part, name, values = fields[0].lower(), fields[1].lower(), fields[2]
        key = (part, name)
        if key in seen and part in ("die", "map", "spell"):
            raise InputError(f"{where}: line {line}: this {part} entry is on line {seen[key]} already; give it once")
        seen[key] = line
        if part == "die":
            if name not in ("1", "2", "3", "4"):
                raise InputError(f"{where}: line {line}: a die is numbered 1 to 4")
            faces = values.split()
            if len(faces) != 6:
                raise InputError(f"{where}: line {line}: die {name} has {len(faces)} faces; a die needs exactly 6")
            parsed = []
            for j, f in enumerate(faces):
                try:
                    parsed.append(parse_face(f))
                except ValueError as e:
                    raise InputError(f"{where}: line {line}: face {j + 1} of die {name}: {e}; use one of "
                                     f"{', '.join(COATS)} (with +1 or +2 for crosses) or ?") from None
            dice[int(name) - 1] = tuple(parsed)
        elif part == "map":
            if name == "size":
                try:
                    w, h = _ints(values, 2)
                except ValueError:
                    raise InputError(f"{where}: line {line}: map size needs two whole numbers, "
                                     "columns then rows") from None
                if not (2 <= w <= 15 and 2 <= h <= 15):
                    raise InputError(f"{where}: line {line}: map size {w} x {h} is not accepted; "
                                     "give 2 to 15 columns and rows")
                size = (w, h)
            elif name == "castle":
                try:
                    castle = tuple(_ints(values, 2))
                except ValueError:
                    raise InputError(f"{where}: line {line}: castle needs two whole numbers, "
                                     "row then column (0-based)") from None
                castle_line = line
            else:
                raise InputError(f"{where}: line {line}: a map entry is size or castle")
        elif part == "spell":
            if name not in COATS:
                raise InputError(f"{where}: line {line}: a spell row needs a coat of arms; use one of "
                                 + ", ".join(COATS))
            parts = values.split()
            if (len(parts) != 2 or not parts[0].isdigit() or not 1 <= int(parts[0]) <= 20
                    or parts[1].upper() not in SPELLS):
                raise InputError(f"{where}: line {line}: a spell row needs 1 to 20 boxes and a spell "
                                 "S1 to S6, e.g. 5 S1")
            sp = SPELLS.index(parts[1].upper())
            if sp in spell_line:
                raise InputError(f"{where}: line {line}: spell {SPELLS[sp]} is on line {spell_line[sp]} "
                                 "already; each spell sits on one row")
            spell_line[sp] = line
            rows[COATS.index(name)] = (int(parts[0]), sp)
        else:
            raise InputError(f"{where}: line {line}: unknown part; use die, map or spell")
    missing = [str(i + 1) for i in range(4) if i not in dice]
    if missing:
        raise InputError(f"{where} lacks die {', '.join(missing)}; it needs dice 1 to 4")
    if size is None:
        raise InputError(f"{where} lacks the map size (map,size,COLUMNS ROWS)")
    if castle is None:
        raise InputError(f"{where} lacks the castle (map,castle,ROW COLUMN)")
    w, h = size
    r, c = castle
    if not (0 <= r < h and 0 <= c < w):
        raise InputError(f"{where}: line {castle_line}: the castle at row {r}, column {c} is outside the "
                         f"{w} x {h} map (rows 0-{h - 1}, columns 0-{w - 1})")
    return Components(dice=tuple(dice[i] for i in range(4)), width=w, height=h, castle=r * STRIDE + c,
                      rows=tuple(rows.get(k, (0, -1)) for k in range(6)), source=str(p))


def component_lines(path: str = "") -> dict[tuple[str, str], int]:
    """The line of each ``die`` and ``spell`` entry of a components file (``""``: the built-in
    one) as ``{(part, name): line}`` - e.g. ``("die", "2")``, ``("spell", "black")`` - for the
    component report.  The file is read as :func:`load_components` reads it (call that first:
    this one does not check it again)."""
    p = Path(path).expanduser() if path else DEFAULT_COMPONENTS
    out = {}
    for i, raw in enumerate(_read_text(p).splitlines()):
        fields = [f.strip().lower() for f in raw.strip().split(",")]
        if len(fields) == 3 and fields[0] in ("die", "spell") and (fields[0], fields[1]) not in out:
            out[(fields[0], fields[1])] = i + 1
    return out


# --------------------------------------------------------------------------------------------
# Parameters
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class KingdominoParams(Params):
    """Rule options of Kingdomino Duel (rules.md).  Defaults: the rules
    write-up, and our rulings where it is silent."""

    components: str = option(
        "", "dice faces, map and spellbook: a CSV file (part,name,values); empty = the built-in "
        "components, an UNVERIFIED approximation (see the README)")
    must_draw: bool = option(True, "drawing is compulsory when a placement without a spell exists "
                             "(ruling); off: a player may always draw nothing")
    stalemate_end: str = option(
        "neither_drew", "the game ends after a round in which neither player drew (neither_drew, "
        "ruling) or neither player had any legal placement, spells included (neither_could)",
        choices=("neither_drew", "neither_could"))
    s4_faces: str = option("own", "S4 turns a die to one of its own faces (own, ruling) or to any face "
                           "of any die (any)", choices=("own", "any"))
    combine_spells: bool = option(False, "S1 and S2 may be used together in one placement (ruling: off)")
    s5_domains: str = option("all", "S5 counts every domain of the chosen coat (all, ruling) or only "
                             "domains with a cross (scoring)", choices=("all", "scoring"))
    s5_points: int = option(3, "points per domain of the coat chosen with S5", low=0, high=100)
    cross_cap: int = option(0, "most crosses on one cell for S6 and the castle bonus; 0 = no cap (ruling)",
                            low=0, high=20)
    castle_bonus: bool = option(True, "the castle bonus: once per game, a cross on one of the two dice "
                                "drawn this round")
    full_map_end: str = option(
        "finish_round", "when a player fills their last cell: finish the round, spellbook step included "
        "(finish_round, ruling) or stop right after the drawing (at_once)",
        choices=("finish_round", "at_once"))
    tie_break: str = option(
        "any_domain", "tied scores: the larger single domain of any coat wins (any_domain, ruling), of a "
        "scoring domain (scoring_domain), or ties are shared (shared)",
        choices=("any_domain", "scoring_domain", "shared"))
    max_rounds: int = option(100, "safety cap on rounds; a capped game ends as usual with end=max_rounds",
                             low=1, high=10000)
    seat_bonus: str = option(
        "0", "variant: points each seat starts with, one number for both or one per seat separated by / "
        "(0/3), seat 0 first; added to the score (rules page: Seat bonus)")

    def validate(self) -> None:
        self.bonus()
        load_components(self.components)

    def bonus(self) -> tuple[int, int]:
        """Each seat's start points (``seat_bonus``); InputError unless it gives 1 or 2 values."""
        return seat_values(self.seat_bonus, 2, name="seat_bonus")

    @cached_property
    def comp(self) -> Components:
        """The components these rules read (:func:`load_components`; kept on the options, since
        the rules and the views read it at every round)."""
        return load_components(self.components)

    def data_files(self) -> dict[str, Path]:
        """The component file these rules read: option name -> path (built-in or given)."""
        return {"components": Path(self.components).expanduser() if self.components else DEFAULT_COMPONENTS}


# --------------------------------------------------------------------------------------------
# Actions
# --------------------------------------------------------------------------------------------

class Draft(NamedTuple):
    """Take the dice ``dice`` (numbers 0-3): one at A's first pick, two at B's pick, two at A's
    first pick with ``spell="S3"``."""

    dice: tuple[int, ...]
    spell: str = ""


class Place(NamedTuple):
    """Draw the first die (lower number) at ``cell0`` as ``coat0`` and the second at ``cell1`` as
    ``coat1``; ``spell``: "", "S1", "S2" or "S1+S2"."""

    cell0: int
    cell1: int
    coat0: int
    coat1: int
    spell: str


class Pass(NamedTuple):
    """Draw nothing this round."""


class Turn(NamedTuple):
    """S4: turn die ``slot`` (0 = the seat's lower-numbered die) to the face ``(coat, crosses)``."""

    slot: int
    coat: int
    crosses: int


class Castle(NamedTuple):
    """Castle bonus: a cross on the die drawn at ``cell``; ``cell = -1`` skips the bonus."""

    cell: int


class ChooseCoat(NamedTuple):
    """S5: the coat of arms whose domains score ``s5_points`` each."""

    coat: int


class AddCross(NamedTuple):
    """S6: add a cross to the drawn cell ``cell``."""

    cell: int


PASS = Pass()
NO_BONUS = Castle(-1)
#: The draft's legal lists, built once: A's first pick (without and with S3), and B's pick of two
#: of the three dice left after A's pick of die ``i`` (``SECOND_PICKS[i]``).
FIRST_PICKS = tuple(Draft((i,)) for i in range(4))
FIRST_PICKS_S3 = FIRST_PICKS + tuple(Draft((i, j), "S3") for i in range(4) for j in range(i + 1, 4))
SECOND_PICKS = tuple(tuple(Draft((f[i], f[j])) for i in range(3) for j in range(i + 1, 3))
                     for f in ([d for d in range(4) if d != taken] for taken in range(4)))
COAT_CHOICES = tuple(ChooseCoat(k) for k in range(6))


# --------------------------------------------------------------------------------------------
# Kingdoms (one player's map, with its domains kept up to date)
# --------------------------------------------------------------------------------------------

def _none():
    return None


@dataclass(slots=True, repr=False)
class Kingdom:
    """One player's map.

    Saved (its JSON, and what two maps are compared by): ``coat`` and ``cross``, the map's rows
    (row 0 first) of coats - ``EMPTY`` (-1), ``CASTLE`` (-2) or the coat drawn (0-5,
    :data:`COATS`) - and of crosses.  A map is built from those rows (:func:`new_kingdom` for an
    empty one): ``__post_init__`` checks them (ValueError, one line, on a map that is not a
    rectangle of 2 to 15 rows and columns with one castle, a coat outside -2..5, or crosses
    outside 0..99 or on an empty cell) and draws the cells in row-major order.

    Kept up to date from those (derived: copied, not saved), by cell (``row * STRIDE + column``):

    * ``cell_coat[cell]``: the cell's coat, ``OFF`` (-3) past the last column;
      ``cell_cross[cell]``: its crosses.
    * ``dom[cell]``: the domain label of a drawn cell (a cell of the domain), else -1;
      ``dsize[label]``, ``dcross[label]``: cells and crosses of that domain; ``members[label]``.
    * ``bound[label]``: bit mask of the empty cells touching that domain; ``by_coat[coat]``: the
      labels of that coat's domains.
    * ``ok[coat]``: bit mask of the empty cells where that coat obeys connection (touching the
      castle or a drawn cell of that coat); ``empty``: bit mask of empty cells; ``n_empty``.
    * ``points``: the domain points (sum over domains of cells x crosses), kept up to date by
      :meth:`draw` and :meth:`add_cross`.
    * ``comp``: the :class:`Components` it is drawn on (its geometry only, until its state binds
      it to the rules' components).

    Read it, never change it (strategies get the state's own object in their view).
    """

    coat: list[list[int]]
    cross: list[list[int]]
    comp: Components | None = derived(_none)
    cell_coat: list[int] = derived()
    cell_cross: list[int] = derived()
    dom: list[int] = derived()
    dsize: list[int] = derived()
    dcross: list[int] = derived()
    members: list[list[int] | None] = derived()
    bound: list[int] = derived()
    by_coat: list[list[int]] = derived()
    ok: list[int] = derived()
    empty: int = derived(int)
    n_empty: int = derived(int)
    points: int = derived(int)

    def __post_init__(self):
        cells = _map_cells(self.coat, self.cross)
        castles = [c for c, k, _ in cells if k == CASTLE]
        if len(castles) != 1:
            raise ValueError(f"a map has one castle (coat -2), not {len(castles)}")
        self.clear(geometry(len(self.coat[0]), len(self.coat), castles[0]))
        for c, k, _ in cells:
            if k >= 0:
                self.draw(c, k, 0)
        for c, k, x in cells:
            for _ in range(x if k >= 0 else 0):
                self.add_cross(c)

    def clear(self, comp: Components) -> None:
        """Every cell empty but the castle, the saved rows included."""
        n = comp.cells
        self.comp = comp
        self.coat = [[EMPTY] * comp.width for _ in range(comp.height)]
        self.cross = [[0] * comp.width for _ in range(comp.height)]
        self.coat[comp.castle // STRIDE][comp.castle % STRIDE] = CASTLE
        self.cell_coat = [OFF] * n
        for c in comp.valid:
            self.cell_coat[c] = EMPTY
        self.cell_coat[comp.castle] = CASTLE
        self.cell_cross = [0] * n
        self.dom = [-1] * n
        self.dsize = [0] * n
        self.dcross = [0] * n
        self.members = [None] * n
        self.bound = [0] * n
        self.by_coat = [[] for _ in range(6)]
        self.empty = comp.free
        self.n_empty = comp.width * comp.height - 1
        self.ok = [comp.castle_adj] * 6
        self.points = 0

    def draw(self, cell: int, coat: int, crosses: int) -> None:
        """Draw ``coat`` with ``crosses`` at the empty ``cell``; merges domains."""
        comp = self.comp
        bit = 1 << cell
        self.cell_coat[cell] = coat
        self.cell_cross[cell] = crosses
        row, col = cell // STRIDE, cell % STRIDE
        self.coat[row][col] = coat
        self.cross[row][col] = crosses
        self.empty &= ~bit
        self.n_empty -= 1
        ok = self.ok
        nb = comp.adj_mask[cell] & self.empty
        for k in range(6):
            ok[k] &= ~bit
        ok[coat] |= nb
        dom, dsize, dcross, members, bound = self.dom, self.dsize, self.dcross, self.members, self.bound
        coats = self.cell_coat
        for n in comp.nbrs[cell]:  # the cell is no longer an empty cell next to those domains
            d = dom[n]
            if d >= 0:
                bound[d] &= ~bit
        label, size, xs, mem, bnd = cell, 1, crosses, [cell], nb
        dom[cell] = cell
        merged = False
        points = self.points
        for n in comp.nbrs[cell]:
            if coats[n] != coat or dom[n] == label:
                continue
            other = dom[n]
            merged = True
            points -= dsize[other] * dcross[other]  # the merged domain scores as part of the new one
            size += dsize[other]
            xs += dcross[other]
            bnd |= bound[other]
            if dsize[other] > len(mem):  # relabel the smaller side
                for m in mem:
                    dom[m] = other
                members[other].extend(mem)
                members[label] = None
                dsize[label] = dcross[label] = bound[label] = 0
                label, mem = other, members[other]
            else:
                for m in members[other]:
                    dom[m] = label
                mem.extend(members[other])
                members[other] = None
                dsize[other] = dcross[other] = bound[other] = 0
        dsize[label], dcross[label], members[label], bound[label] = size, xs, mem, bnd
        self.points = points + size * xs
        if merged:
            self.by_coat[coat] = [d for d in self.by_coat[coat] if members[d] is not None and d != label] + [label]
        else:
            self.by_coat[coat].append(label)

    def add_cross(self, cell: int) -> None:
        d = self.dom[cell]
        self.cell_cross[cell] += 1
        self.cross[cell // STRIDE][cell % STRIDE] += 1
        self.dcross[d] += 1
        self.points += self.dsize[d]

    def labels(self) -> list[int]:
        """Domain labels, ascending."""
        return [c for c, m in enumerate(self.members) if m is not None]

    def domain_points(self) -> int:
        """Sum over domains of cells x crosses (kept up to date: :attr:`points`)."""
        return self.points

    def domains_of(self, coat: int, scoring_only: bool = False) -> int:
        """Number of separate domains of ``coat`` (only those with a cross if ``scoring_only``)."""
        labels = self.by_coat[coat]
        return sum(1 for d in labels if self.dcross[d] > 0) if scoring_only else len(labels)

    def largest(self, scoring_only: bool = False) -> int:
        """Cells of the largest domain (with a cross if ``scoring_only``), 0 if none."""
        ds, dx = self.dsize, self.dcross
        return max((ds[c] for c, m in enumerate(self.members) if m is not None and (dx[c] > 0 or not scoring_only)),
                   default=0)


def new_kingdom(comp: Components) -> Kingdom:
    """An empty map drawn on ``comp`` (only its castle): what ``Kingdom`` builds from such rows,
    without reading them."""
    k = object.__new__(Kingdom)
    k.clear(comp)
    return k


def _map_cells(coats, crosses) -> list[tuple[int, int, int]]:
    """``(cell, coat, crosses)`` of every cell of a map's rows, row-major; ValueError (one line)
    unless they are a rectangle of 2 to 15 rows and columns, coats -2..5 and crosses 0..99 (0 on
    an empty cell or the castle)."""
    if not (2 <= len(coats) <= 15 and len(crosses) == len(coats)):
        raise ValueError("coat and cross need the same 2 to 15 rows")
    width = len(coats[0])
    if not 2 <= width <= 15 or any(len(r) != width for r in coats + crosses):
        raise ValueError("every row of coat and cross needs the same 2 to 15 cells")
    cells = [(r * STRIDE + c, k, x) for r, (kr, xr) in enumerate(zip(coats, crosses))
             for c, (k, x) in enumerate(zip(kr, xr))]
    if any(not CASTLE <= k <= 5 for _, k, _ in cells):
        raise ValueError("a cell's coat is -1 (empty), -2 (the castle) or 0 to 5")
    if any(not 0 <= x <= 99 or (x and k < 0) for _, k, x in cells):
        raise ValueError("a cell's crosses are 0 to 99, and 0 on an empty cell or the castle")
    return cells


@lru_cache(maxsize=64)
def geometry(width: int, height: int, castle: int) -> Components:
    """Components holding only a map's geometry (no dice, no spellbook): what a kingdom read back
    from JSON is drawn on until its state binds it to the rules' components."""
    return Components(dice=(), width=width, height=height, castle=castle, rows=())


def cell_gain(k: Kingdom, cell: int, coat: int, crosses: int) -> int:
    """Domain points gained by drawing ``coat`` with ``crosses`` at the empty ``cell`` alone."""
    coats, dom, ds, dx = k.cell_coat, k.dom, k.dsize, k.dcross
    seen0 = seen1 = seen2 = -1
    s = x = b = 0
    for n in k.comp.nbrs[cell]:
        if coats[n] == coat:
            d = dom[n]
            if d != seen0 and d != seen1 and d != seen2:
                seen2, seen1, seen0 = seen1, seen0, d
                s += ds[d]
                x += dx[d]
                b += ds[d] * dx[d]
    return (s + 1) * (x + crosses) - b


def pair_gain(k: Kingdom, c0: int, c1: int, coat0: int, coat1: int, x0: int, x1: int) -> int:
    """Domain points gained by drawing two cells (adjacent or not), merging domains exactly."""
    if coat0 != coat1 or not (k.comp.adj_mask[c0] >> c1) & 1:
        return cell_gain(k, c0, coat0, x0) + cell_gain(k, c1, coat1, x1)
    coats, dom, ds, dx = k.cell_coat, k.dom, k.dsize, k.dcross
    seen = []
    s = x = b = 0
    nbrs = k.comp.nbrs
    for cell in (c0, c1):
        for n in nbrs[cell]:
            if coats[n] == coat0:
                d = dom[n]
                if d not in seen:
                    seen.append(d)
                    s += ds[d]
                    x += dx[d]
                    b += ds[d] * dx[d]
    return (s + 2) * (x + x0 + x1) - b


def domains_after(k: Kingdom, c0: int, c1: int, coat0: int, coat1: int, coat: int) -> int:
    """Change in the number of domains of ``coat`` if the two cells are drawn."""
    delta = 0
    merged: list[int] = []
    adjacent = (k.comp.adj_mask[c0] >> c1) & 1
    for cell, kc in ((c0, coat0), (c1, coat1)):
        if kc != coat:
            continue
        labels = {k.dom[n] for n in k.comp.nbrs[cell] if k.cell_coat[n] == coat}
        if merged and adjacent:  # the second cell joins the first one's domain
            new = labels - set(merged)
            delta -= len(new)
            merged.extend(new)
        else:
            delta += 1 - len(labels)
            merged.extend(labels)
            merged.append(-2 - cell)
    return delta


def at(cell: int) -> str:
    """``"(row,column)"`` of a cell index."""
    return f"({cell // STRIDE},{cell % STRIDE})"


def bits(mask: int) -> list[int]:
    """Indices of the set bits of ``mask``, ascending, as a list."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


ALL_COATS = tuple(range(6))
#: Ordinary placements are immutable and recur in every game: interned by cells and coats, since
#: building a NamedTuple costs several times a dictionary look-up.
_ORDINARY: dict[int, Place] = {}
_S1: dict[int, Place] = {}
_S2: dict[int, Place] = {}


def placements(k: Kingdom, f0, f1, spells: tuple = (), combine: bool = False) -> tuple[list, list]:
    """Legal drawings of the faces ``f0``, ``f1`` (``(coat, crosses)``) on kingdom ``k``.

    ``spells`` holds the placement spells usable now (``"S1"``, ``"S2"``).  Returns
    ``(ordinary, with_spells)`` as lists of :class:`Place`.  Order: for each coat of the first
    die, each coat of the second (ascending; a ``?`` ranges over all six): first the drawings whose
    first die connects (its cell ascending, then the second cell ascending), then those where only
    the second die connects (its cell ascending, then the first).  Spell drawings follow: S1
    (neither die connects), S2 (apart, each connecting), S1+S2 (apart, not both connecting), each
    for every coat pair, cells ascending.  Two identical faces give each drawing once (the first
    die on the lower cell).
    """
    comp = k.comp
    empty, ok, adj = k.empty, k.ok, comp.adj_mask
    c0 = ALL_COATS if f0[0] == JOKER else (f0[0],)
    c1 = ALL_COATS if f1[0] == JOKER else (f1[0],)
    same = f0 == f1
    out = []
    append = out.append
    get = _ORDINARY.get
    for a in c0:
        oka = ok[a]
        # the first die connects at u (whatever the second die's coat): (u, v) pairs, found once
        firsts = []
        x = oka
        while x:
            low = x & -x
            x ^= low
            u = low.bit_length() - 1
            y = adj[u] & empty
            while y:
                lv = y & -y
                y ^= lv
                v = lv.bit_length() - 1
                if not same or u < v:
                    firsts.append((u << 14) | (v << 6))
        for b in c1:
            ab = a * 6 + b
            for uv in firsts:
                key = uv | ab
                p = get(key)
                if p is None:
                    p = _ORDINARY[key] = Place(uv >> 14, (uv >> 6) & 255, a, b, "")
                append(p)
            x = ok[b]
            while x:  # only the second die connects, at v
                low = x & -x
                x ^= low
                v = low.bit_length() - 1
                y = adj[v] & empty & ~oka
                while y:
                    lu = y & -y
                    y ^= lu
                    u = lu.bit_length() - 1
                    if not same or u < v:
                        key = (u << 14) | (v << 6) | ab
                        p = get(key)
                        if p is None:
                            p = _ORDINARY[key] = Place(u, v, a, b, "")
                        append(p)
    extra: list = []
    if not spells:
        return out, extra
    for spell, interned in (("S1", _S1), ("S2", _S2)):
        if spell not in spells:
            continue
        get = interned.get
        for a in c0:
            for b in c1:
                okb = ok[b]
                ab = a * 6 + b
                for u in bits(empty & ~ok[a] if spell == "S1" else ok[a]):
                    far = adj[u] & empty & ~okb if spell == "S1" else okb & ~adj[u] & ~(1 << u)
                    for v in bits(far):
                        if not same or u < v:
                            key = (u << 14) | (v << 6) | ab
                            p = get(key)
                            if p is None:
                                p = interned[key] = Place(u, v, a, b, spell)
                            extra.append(p)
    if combine and "S1" in spells and "S2" in spells:
        for a in c0:
            oka = ok[a]
            for b in c1:
                okb = ok[b]
                for u in bits(empty):
                    far = empty & ~adj[u] & ~(1 << u)
                    if (oka >> u) & 1:
                        far &= ~okb
                    for v in bits(far):
                        if not same or u < v:
                            extra.append(Place(u, v, a, b, "S1+S2"))
    return out, extra


# --------------------------------------------------------------------------------------------
# State and view
# --------------------------------------------------------------------------------------------

DRAFT_A, DRAFT_B, PLACE, CASTLE_STEP, SPELL, OVER = "draft_a", "draft_b", "place", "castle", "spell", "over"
PHASES = (DRAFT_A, DRAFT_B, PLACE, CASTLE_STEP, SPELL, OVER)
ENDS = ("full_map", "no_draw", "max_rounds")


@dataclass(slots=True, repr=False)
class KingdominoState:
    """Full state: everything in this game is public, except each seat's drawing of the current
    round (its S4 turn, placement and castle bonus), declared as :func:`secrets`, until both
    have drawn.

    * ``maps[seat]``: :class:`Kingdom` (saved as its rows of coats and crosses).
    * ``roll[die]``: the face ``(coat, crosses)`` rolled on each die this round; ``round``
      (1-based), ``a`` (seat of player A this round), ``phase`` (draft_a, draft_b, place, castle,
      spell, over), ``current`` (the seat deciding); ``owner[die]``: seat or -1.
    * Secrets, per seat: ``hand`` (its die numbers, ascending), ``faces`` (their faces now, after
      an S4 turn), ``turned`` (S4 used this round), ``pending`` (this round's drawing: a
      :class:`Place`, :data:`PASS`, or None = not yet; drawn on the map when both have decided),
      ``bonus`` (castle cell this round or -1), ``could`` (the seat had a legal placement, spells
      included, this round).
    * ``boxes[seat][coat]``: boxes filled; ``row_owner[coat]``: seat that gained that row's
      spell, or -1 (then the other's row is struck).
    * ``spell_owner[sp]``, ``spell_used[sp]``, ``spell_round[sp]`` (round gained, 0 = not),
      ``s5_coat`` (-1 = none); ``castle_round[seat]`` (0 = unused).
    * ``queue``: S5/S6 decisions still to make, ``[(seat, spell)]``; ``end``: how the game ended.
    * ``passes[seat]``: rounds the seat drew nothing; ``stuck[seat]``: rounds with no legal
      placement at all.
    * ``history``: both seats' scores ``(seat 0, seat 1)`` after each finished round (domain
      points plus S5 points), the source of the ``score_trace`` metric.

    Scratch (not part of the state's value): ``cache``, the legal actions of the decision;
    ``tally``, per seat the id of every die face it drew onto its map
    (:meth:`KingdominoDuel.components`) - a list in a game set up by ``initial_state``, None in a
    copy or a loaded state.  ``comp`` is the rules' :class:`Components` (``params.comp``).
    """

    params: KingdominoParams
    maps: list[Kingdom]
    roll: list[tuple[int, int]] = dice_faces()
    round: int = 1
    a: int = 0
    phase: Literal[PHASES] = DRAFT_A
    current: int = 0
    owner: list[int] = field(default_factory=lambda: [-1] * 4)
    hand: list[list[int]] = seat_secrets(lambda: [[], []])
    faces: list[list[tuple[int, int]]] = seat_secrets(lambda: [[], []])
    turned: list[bool] = seat_secrets(lambda: [False, False])
    pending: list[Place | Pass | None] = seat_secrets(lambda: [None, None])
    bonus: list[int] = seat_secrets(lambda: [-1, -1])
    could: list[bool] = seat_secrets(lambda: [False, False])
    boxes: list[list[int]] = field(default_factory=lambda: [[0] * 6, [0] * 6])
    row_owner: list[int] = field(default_factory=lambda: [-1] * 6)
    spell_owner: list[int] = field(default_factory=lambda: [-1] * 6)
    spell_used: list[bool] = field(default_factory=lambda: [False] * 6)
    spell_round: list[int] = field(default_factory=lambda: [0] * 6)
    s5_coat: int = -1
    castle_round: list[int] = seat_counters()
    queue: list[tuple[int, int]] = field(default_factory=list)
    end: Literal[("",) + ENDS] = ""
    passes: list[int] = seat_counters()
    stuck: list[int] = seat_counters()
    history: list[tuple[int, int]] = field(default_factory=list)
    cache: list | None = scratch(_none)
    tally: list | None = scratch(_none)

    def __post_init__(self):
        comp = self.params.comp
        for seat, m in enumerate(self.maps):
            if m.comp is not comp:
                g = m.comp
                if (g.width, g.height, g.castle) != (comp.width, comp.height, comp.castle):
                    raise ValueError(f"maps[{seat}] is {g.width} x {g.height} with the castle at {at(g.castle)}; "
                                     f"the components give {comp.width} x {comp.height} with the castle at "
                                     f"{at(comp.castle)}")
                m.comp = comp

    @property
    def comp(self) -> Components:
        """The rules' components (``params.comp``)."""
        return self.params.comp

    def __repr__(self):
        return f"KingdominoState(round={self.round}, phase={self.phase}, a={self.a})"


def holds(s: KingdominoState, seat: int, sp: int) -> bool:
    """``seat`` holds spell ``sp`` unused (gained in an earlier round: a spell is gained after
    the round's drawing, so this is always so when it can be used)."""
    return s.spell_owner[sp] == seat and not s.spell_used[sp]


def seat_placements(s: KingdominoState, seat: int, faces) -> tuple[list, list]:
    """:func:`placements` of the two ``faces`` on ``seat``'s map, with the placement spells it holds."""
    spells = tuple(SPELLS[sp] for sp in (S1, S2) if holds(s, seat, sp))
    return placements(s.maps[seat], faces[0], faces[1], spells, s.params.combine_spells)


def bonus_cells(s: KingdominoState, drawing: Place, faces) -> list[int]:
    """The cells of ``drawing`` whose die (face in ``faces``) may take the castle bonus's cross
    under ``cross_cap``."""
    cap = s.params.cross_cap
    return [c for c, f in ((drawing.cell0, faces[0]), (drawing.cell1, faces[1])) if not cap or f[1] < cap]


def cross_cells(m: Kingdom, cap: int) -> list[int]:
    """The drawn cells of ``m`` that may take one more cross (``cap``: ``cross_cap``, 0 = no cap)."""
    return [c for c, k in enumerate(m.cell_coat) if k >= 0 and (not cap or m.cell_cross[c] < cap)]


def spell_points(s: KingdominoState, seat: int) -> int:
    """S5 points of ``seat``: ``s5_points`` per domain of the chosen coat (``s5_domains``)."""
    if s.spell_owner[S5] != seat or s.s5_coat < 0:
        return 0
    return s.params.s5_points * s.maps[seat].domains_of(s.s5_coat, s.params.s5_domains == "scoring")


class KingdominoView(View):
    """What a seat may know: every field of the state (read through to it: the state's own
    lists and :class:`Kingdom` objects - read them, never change them), except the other seat's
    secrets: ``hand``, ``faces``, ``turned``, ``pending``, ``bonus`` and ``could`` are this seat's
    own.  The maps are as drawn before this round's reveal; future dice are not rolled yet.

    Helpers: ``comp`` (:class:`Components`), ``role`` ("A" or "B"), ``map`` (this seat's
    kingdom), ``spells()`` (spell numbers this seat holds unused, 0 = S1)."""

    __slots__ = ()

    @property
    def comp(self) -> Components:
        return self.params.comp

    @property
    def role(self) -> str:
        return "A" if self.seat == self.a else "B"

    @property
    def map(self) -> Kingdom:
        """This seat's own kingdom."""
        return self.maps[self.seat]

    def spells(self) -> list[int]:
        """Spells this seat holds and has not used (0 = S1 ... 5 = S6)."""
        owner, used = self.spell_owner, self.spell_used
        return [sp for sp in range(6) if owner[sp] == self.seat and not used[sp]]


# --------------------------------------------------------------------------------------------
# The forward model
# --------------------------------------------------------------------------------------------

def _roll(comp: Components, rng) -> list:
    random = rng.random
    return [die[int(random() * 6)] for die in comp.dice]


class KingdominoDuel(Game):
    """The Kingdomino Duel forward model (rules.md).  See the module docstring."""

    id = "kingdomino-duel"
    name = "Kingdomino Duel"
    summary = ("draft dice, draw dominoes into your kingdom, race for spells (dice, map and spellbook: an "
               "UNVERIFIED approximation; replace with --rule components=FILE)")
    min_players = 2
    max_players = 2
    default_players = 2
    Params, State, View = KingdominoParams, KingdominoState, KingdominoView
    action_types = (Draft, Place, Pass, Turn, Castle, ChooseCoat, AddCross)
    path_options = ("components",)
    #: How games are won and measured: what the report's figures read (see Scoring).
    scoring = Scoring(
        length_unit="rounds",
        trace_unit="rounds",
        # One more cell in a domain with one cross is one point: close when the top two are a point apart.
        close_margin=1,
        # The start-points variant a seat-compensation sweep varies (points, one per seat).
        seat_bonus_rule="seat_bonus",
        # The tie-break option the tie-rate finding sweeps, and the safety cap on rounds the
        # long-tail finding tests.
        tie_break_rule="tie_break",
        length_cap_rule="max_rounds")
    metric_columns = tuple(Metric(c, "count") for c in (
        "domain_points", "spell_points", "spells", "spells_as_a", "spells_as_b", "spells_used",
        "gained_s1", "gained_s2", "gained_s3", "gained_s4", "gained_s5", "gained_s6")) + tuple(
        Metric(f"used_s{k}", "count", high=1) for k in range(1, 7)) + tuple(Metric(c, "count") for c in (
        "castle_round", "passes", "empty_cells", "largest_domain", "crosses", "rounds")) + (
        Metric("end", "label"), Metric("turns", "count"), Metric("score_trace", "trace", missing=True))
    extra_tables = (COMPONENTS,)
    #: Component impact (docs/components.md): faces are chosen from the roll, spells won by a race.
    component_note = ("A face is drawn by the seat that chose it from the roll (or was left it), and a spell goes to "
                      "the seat that fills its row first: an effect mixes what a face or spell is worth with the play "
                      "that led to it.")

    def report_notes(self, params: KingdominoParams) -> list[str]:
        """The report's note on the components (rules page, "Components (an approximation)"): the
        built-in dice, map and spellbook are an unverified approximation, replaced with
        ``--rule components=FILE``; a run with its own file names it."""
        if params.components:
            return [f"Components: this run used the components file {params.components} (--rule components), "
                    "not the built-in approximation; its SHA-256 is under Component data files below."]
        return ["Components: an unverified approximation. The publisher prints the dice, the map and the "
                "spellbook only as pictures; the built-in ones (analyser/titles/kingdomino_duel/data/"
                "components.csv) follow a public fan implementation and nobody has checked them against the "
                "physical game. These results describe the game with those components. Replace them with "
                "--rule components=FILE."]

    # -- set-up ---------------------------------------------------------------------------
    def initial_state(self, params: KingdominoParams, n_players: int, rng) -> KingdominoState:
        """Empty maps; round 1 with seat 0 as player A; the dice rolled with ``rng``."""
        self.check_players(params, n_players)
        comp = params.comp
        return KingdominoState(params, [new_kingdom(comp), new_kingdom(comp)], _roll(comp, rng), castle_round=[0, 0],
                               passes=[0, 0], stuck=[0, 0], tally=[[], []])

    # -- queries ----------------------------------------------------------------------------
    def current_player(self, s: KingdominoState) -> int:
        return s.current

    def is_terminal(self, s: KingdominoState) -> bool:
        return s.phase == OVER

    def turn(self, s: KingdominoState):
        return s.current, self.legal_actions(s)

    def legal_actions(self, s: KingdominoState):
        """Legal actions of ``s.current`` in the documented order (see the module docstring)."""
        if s.cache is not None:
            return s.cache
        phase = s.phase
        seat = s.current
        if phase == PLACE:
            legal = self._place_actions(s, seat)
        elif phase == DRAFT_A:
            legal = list(FIRST_PICKS_S3 if holds(s, seat, S3) else FIRST_PICKS)
        elif phase == DRAFT_B:
            legal = list(SECOND_PICKS[next(i for i in range(4) if s.owner[i] >= 0)])
        elif phase == CASTLE_STEP:
            legal = [NO_BONUS] + [Castle(c) for c in bonus_cells(s, s.pending[seat], s.faces[seat])]
        elif phase == SPELL:
            _, sp = s.queue[0]
            if sp == S5:
                legal = list(COAT_CHOICES)
            else:
                legal = [AddCross(c) for c in cross_cells(s.maps[seat], s.params.cross_cap)]
        else:
            legal = []
        s.cache = legal
        return legal

    def _place_actions(self, s: KingdominoState, seat: int) -> list:
        ordinary, extra = seat_placements(s, seat, s.faces[seat])
        legal = ordinary + extra
        if not ordinary or not s.params.must_draw:
            legal.append(PASS)
        if holds(s, seat, S4) and not s.turned[seat]:
            legal += self._turns(s, seat)
        return legal

    def _turns(self, s: KingdominoState, seat: int) -> list:
        out = []
        for slot, die in enumerate(s.hand[seat]):
            options = s.comp.dice[die] if s.params.s4_faces == "own" else s.comp.faces
            seen = [s.faces[seat][slot]]
            for f in options:
                if f not in seen:
                    seen.append(f)
                    out.append(Turn(slot, f[0], f[1]))
        return out

    def step_bound(self, params: KingdominoParams, n_players: int) -> int:
        """At most ``max_rounds`` rounds of at most 2 drafts, 2 x (an S4 turn, a drawing, a castle
        choice) and 2 spell choices: 10 actions a round."""
        return 10 * params.max_rounds

    def resample_hidden(self, s: KingdominoState, seat: int, rng) -> KingdominoState:
        """A copy with what ``seat`` cannot see drawn again with ``rng``: while the drawings are
        not yet revealed, the other seat's drawing of this round (its S4 turn, placement and
        castle bonus) is replaced by another of its legal choices.  Future dice are not in the
        state, and nothing else is hidden."""
        t = self.clone_state(s)
        o = 1 - seat
        if t.phase not in (PLACE, CASTLE_STEP) or t.pending[o] is None:
            return t
        acting = t.current == o  # o is choosing its castle bonus: it must keep a drawing
        if not acting:
            t.faces[o] = [t.roll[d] for d in t.hand[o]]
            t.turned[o] = False
            if holds(t, o, S4) and rng.random() < 0.5:
                turn = self._turns(t, o)
                pick = turn[int(rng.random() * len(turn))]
                t.faces[o][pick.slot] = (pick.coat, pick.crosses)
                t.turned[o] = True
        ordinary, extra = seat_placements(t, o, t.faces[o])
        options = ordinary + extra
        if not acting and (not ordinary or not t.params.must_draw):
            options.append(PASS)
        if not options:
            return self.clone_state(s)
        new = options[int(rng.random() * len(options))]
        t.pending[o] = new
        t.bonus[o] = -1
        if not acting and type(new) is Place and t.params.castle_bonus and not t.castle_round[o]:
            cells = [-1] + bonus_cells(t, new, t.faces[o])
            t.bonus[o] = cells[int(rng.random() * len(cells))]
        t.cache = None
        return t

    # -- search ---------------------------------------------------------------------------
    def determinize(self, view: KingdominoView, rng) -> KingdominoState:
        """A full state consistent with ``view`` (for :mod:`analyser.engine.search`).  Everything public
        is copied from the view (no data shared); the other seat's hand is the dice it owns, with
        their rolled faces.  Hidden, and drawn with ``rng`` (a ``random.Random``) from the other
        seat's legal choices, while the two drawings of a round are not yet revealed (module
        docstring, "the two players draw at the same time"): its S4 turn of this round (if it
        holds S4, with probability 1/2), its drawing when it has drawn (a placement, or
        :data:`PASS` where allowed) and its castle bonus.  Future dice are not in a state: the
        rng handed to ``apply`` rolls them.  Reads only public attributes of the view."""
        seat, o = view.seat, 1 - view.seat
        t = KingdominoState(
            params=view.params, round=view.round, a=view.a, phase=view.phase,
            current=view.current, roll=list(view.roll), owner=list(view.owner), hand=[[], []], faces=[[], []],
            turned=[False, False], pending=[None, None], bonus=[-1, -1], could=[False, False],
            maps=[clone(m) for m in view.maps], boxes=[list(b) for b in view.boxes],
            row_owner=list(view.row_owner), spell_owner=list(view.spell_owner), spell_used=list(view.spell_used),
            spell_round=list(view.spell_round), s5_coat=view.s5_coat, castle_round=list(view.castle_round),
            queue=list(view.queue), end=view.end, passes=list(view.passes), stuck=list(view.stuck),
            history=list(view.history))
        t.hand[seat] = list(view.hand)
        t.faces[seat] = list(view.faces)
        t.turned[seat], t.could[seat] = view.turned, view.could
        t.pending[seat], t.bonus[seat] = view.pending, view.bonus
        if view.hand:  # the dice are dealt (drawing, or after this round's reveal)
            t.hand[o] = [d for d in range(4) if t.owner[d] == o]
            t.faces[o] = [t.roll[d] for d in t.hand[o]]
        if t.phase not in (PLACE, CASTLE_STEP):
            return t
        if not (o == t.a or t.current == o):
            return t  # the other seat draws second and has not started: nothing hidden
        rolled = list(t.faces[o])
        t.could[o] = any(seat_placements(t, o, rolled))
        acting = t.phase == CASTLE_STEP and t.current == o  # o chooses its castle bonus: it drew a domino
        drew = o == t.a and t.current != o
        turns = self._turns(t, o) if holds(t, o, S4) else []
        tries = [None]
        if turns and rng.random() < 0.5:
            tries = [turns[int(rng.random() * len(turns))], None]
        if acting:  # it must have a placement, and a die that may take the castle's cross
            extra_turns = list(turns)
            while extra_turns:
                tries.append(extra_turns.pop(int(rng.random() * len(extra_turns))))
        cap = t.params.cross_cap
        for turn in tries:
            faces = list(rolled)
            if turn is not None:
                faces[turn.slot] = (turn.coat, turn.crosses)
            ordinary, extra = seat_placements(t, o, faces)
            if acting and (not ordinary + extra or (cap and min(f[1] for f in faces) >= cap)):
                continue
            t.faces[o] = faces
            t.turned[o] = turn is not None
            t.could[o] = t.could[o] or bool(ordinary or extra)
            if drew or acting:
                choice = ordinary + extra
                if not acting and (not ordinary or not t.params.must_draw):
                    choice.append(PASS)
                new = choice[int(rng.random() * len(choice))]
                t.pending[o] = new
                if drew and type(new) is Place and t.params.castle_bonus and not t.castle_round[o]:
                    cells = [-1] + bonus_cells(t, new, faces)
                    t.bonus[o] = cells[int(rng.random() * len(cells))]
            break
        return t

    # -- apply ------------------------------------------------------------------------------
    def apply(self, s: KingdominoState, action, rng) -> None:
        """Play ``action`` for ``s.current``.  ``rng`` rolls the dice of the next round.  Raises
        ValueError on an action of the wrong kind for the phase."""
        s.cache = None
        phase = s.phase
        seat = s.current
        if phase == PLACE:
            if type(action) is Place:
                s.pending[seat] = action  # spells used are marked at the reveal
                if s.params.castle_bonus and not s.castle_round[seat] and (
                        not s.params.cross_cap or min(f[1] for f in s.faces[seat]) < s.params.cross_cap):
                    s.phase = CASTLE_STEP
                    return
                self._next_drawer(s, rng)
            elif type(action) is Pass:
                s.pending[seat] = PASS
                self._next_drawer(s, rng)
            elif type(action) is Turn:
                s.faces[seat][action.slot] = (action.coat, action.crosses)
                s.turned[seat] = True
                if any(type(a) is Place for a in self.legal_actions(s)):
                    s.could[seat] = True
            else:
                raise ValueError(f"expected a placement, pass or turn, not {action!r}")
            return
        if phase == DRAFT_A:
            if type(action) is not Draft:
                raise ValueError(f"expected a draft, not {action!r}")
            a, b = s.a, 1 - s.a
            for d in action.dice:
                s.owner[d] = a
            if len(action.dice) == 2:  # S3: A takes two, B the other two
                s.spell_used[S3] = True
                s.owner = [b if o < 0 else o for o in s.owner]
                self._start_drawing(s)
            else:
                s.phase = DRAFT_B
                s.current = b
            return
        if phase == DRAFT_B:
            if type(action) is not Draft or len(action.dice) != 2:
                raise ValueError(f"expected a draft of two dice, not {action!r}")
            for d in action.dice:
                s.owner[d] = seat
            s.owner = [s.a if o < 0 else o for o in s.owner]
            self._start_drawing(s)
            return
        if phase == CASTLE_STEP:
            if type(action) is not Castle:
                raise ValueError(f"expected a castle bonus choice, not {action!r}")
            s.bonus[seat] = action.cell
            self._next_drawer(s, rng)
            return
        if phase == SPELL:
            who, sp = s.queue.pop(0)
            if sp == S5:
                s.s5_coat = action.coat
            else:
                s.maps[who].add_cross(action.cell)
            self._after_spells(s, rng)
            return
        raise ValueError("the game is over")

    def _start_drawing(self, s: KingdominoState) -> None:
        for seat in (0, 1):
            s.hand[seat] = [d for d in range(4) if s.owner[d] == seat]
            s.faces[seat] = [s.roll[d] for d in s.hand[seat]]
        s.phase = PLACE
        s.current = s.a
        self._enter_place(s)

    def _enter_place(self, s: KingdominoState) -> None:
        seat = s.current
        legal = self.legal_actions(s)
        s.could[seat] = legal[0] is not PASS and type(legal[0]) is Place
        if not s.could[seat]:
            s.stuck[seat] += 1

    def _next_drawer(self, s: KingdominoState, rng) -> None:
        s.cache = None
        if s.current == s.a:
            s.current = 1 - s.a
            s.phase = PLACE
            self._enter_place(s)
            return
        self._reveal(s, rng)

    def _reveal(self, s: KingdominoState, rng) -> None:
        """Both have decided: draw on the maps, then the spellbook step (A first)."""
        p = s.params
        order = (s.a, 1 - s.a)
        boxes_due = {}
        full = False
        for seat in order:
            act = s.pending[seat]
            m = s.maps[seat]
            if s.turned[seat]:  # the turn spends S4, whether or not the seat then draws
                s.spell_used[S4] = True
            if type(act) is not Place:  # PASS, or None
                s.passes[seat] += 1
                boxes_due[seat] = []
                continue
            if "S1" in act.spell:
                s.spell_used[S1] = True
            if "S2" in act.spell:
                s.spell_used[S2] = True
            f0, f1 = s.faces[seat]
            x0 = f0[1] + (1 if s.bonus[seat] == act.cell0 else 0)
            x1 = f1[1] + (1 if s.bonus[seat] == act.cell1 else 0)
            m.draw(act.cell0, act.coat0, x0)
            m.draw(act.cell1, act.coat1, x1)
            if s.tally is not None:  # the faces drawn, as die and face (after an S4 turn)
                d0, d1 = s.hand[seat]
                s.tally[seat] += (face_id(d0, f0), face_id(d1, f1))
            if s.bonus[seat] >= 0:
                s.castle_round[seat] = s.round
            drawn = ((f0, act.coat0, act.cell0), (f1, act.coat1, act.cell1))
            boxes_due[seat] = [coat for f, coat, cell in drawn
                               if f[0] != JOKER and f[1] == 0 and s.bonus[seat] != cell]
            full = full or m.n_empty == 0
        if full and p.full_map_end == "at_once":
            s.history.append(tuple(self.scores(s)))
            self._finish(s, "full_map")
            return
        rows = s.comp.rows
        for seat in order:
            for coat in boxes_due[seat]:
                size, sp = rows[coat]
                if size == 0 or s.row_owner[coat] >= 0:
                    continue  # no row, or gained / struck: no more boxes
                s.boxes[seat][coat] += 1
                if s.boxes[seat][coat] >= size:
                    s.row_owner[coat] = seat
                    s.spell_owner[sp] = seat
                    s.spell_round[sp] = s.round
                    if sp in (S5, S6):
                        s.queue.append((seat, sp))
        for seat, sp in s.queue:
            if sp == S6 and not cross_cells(s.maps[seat], p.cross_cap):
                s.spell_used[S6] = True  # nothing to mark (cross_cap): the spell is lost
        s.queue = [(seat, sp) for seat, sp in s.queue if not (sp == S6 and s.spell_used[S6])]
        self._after_spells(s, rng)

    def _after_spells(self, s: KingdominoState, rng) -> None:
        if s.queue:
            seat, sp = s.queue[0]
            s.spell_used[sp] = True  # S5 or S6: spent when gained
            s.phase = SPELL
            s.current = seat
            s.cache = None
            return
        s.history.append(tuple(self.scores(s)))  # the round is over
        p = s.params
        if any(m.n_empty == 0 for m in s.maps):
            self._finish(s, "full_map")
            return
        drew = [type(s.pending[x]) is Place for x in (0, 1)]
        if not any(s.could if p.stalemate_end == "neither_could" else drew):  # a stalemate round
            self._finish(s, "no_draw")
            return
        if s.round >= p.max_rounds:
            self._finish(s, "max_rounds")
            return
        s.round += 1
        s.a = 1 - s.a
        s.roll = _roll(s.comp, rng)
        s.owner = [-1] * 4
        s.hand = [[], []]
        s.faces = [[], []]
        s.turned = [False, False]
        s.pending = [None, None]
        s.bonus = [-1, -1]
        s.could = [False, False]
        s.phase = DRAFT_A
        s.current = s.a
        s.cache = None

    def _finish(self, s: KingdominoState, how: str) -> None:
        s.phase = OVER
        s.end = how
        s.queue = []
        s.cache = []

    # -- results ------------------------------------------------------------------------
    def scores(self, s: KingdominoState) -> list[int]:
        """Domain points plus S5 points per seat (running totals before the end), plus the seat's
        start points (``seat_bonus``)."""
        bonus = s.params.bonus()
        return [bonus[seat] + s.maps[seat].domain_points() + spell_points(s, seat) for seat in (0, 1)]

    def winners(self, s: KingdominoState) -> list[int]:
        """Highest score; tied: the larger single domain (``tie_break``), else shared."""
        sc = self.scores(s)
        best = max(sc)
        tied = [i for i in (0, 1) if sc[i] == best]
        if len(tied) > 1 and s.params.tie_break != "shared":
            scoring = s.params.tie_break == "scoring_domain"
            big = [s.maps[i].largest(scoring) for i in tied]
            tied = [i for i, b in zip(tied, big) if b == max(big)]
        return tied

    def metrics(self, s: KingdominoState) -> list[dict]:
        """Per seat: domain and spell (S5) points, spells gained (in all, as A, as B, used),
        ``gained_s1``..``gained_s6`` (the round the seat gained that spell, 0 = not),
        ``used_s1``..``used_s6`` (1 if the seat used that spell: S1-S4 by choice, S5 and S6 at
        once when gained - an S6 lost under ``cross_cap`` counts as used), the round of the
        castle bonus (0 = unused), rounds it drew nothing, empty cells left, its largest domain,
        crosses on its map, rounds played (also ``turns``), how the game ended (``full_map``,
        ``no_draw``, ``max_rounds``; empty while running) and ``score_trace``: the seat's score
        after each finished round (``history``, :func:`analyser.engine.core.encode_trace`)."""
        out = []
        trace = encode_trace(s.history, 2)
        for seat in (0, 1):
            m = s.maps[seat]
            mine = [sp for sp in range(6) if s.spell_owner[sp] == seat]
            # seat 0 is A in odd rounds
            as_a = sum(1 for sp in mine if (s.spell_round[sp] % 2 == 1) == (seat == 0))
            row = {"domain_points": m.domain_points(), "spell_points": spell_points(s, seat),
                   "spells": len(mine), "spells_as_a": as_a, "spells_as_b": len(mine) - as_a,
                   "spells_used": sum(1 for sp in mine if s.spell_used[sp])}
            mine_at = [s.spell_owner[sp] == seat for sp in range(6)]
            row.update({f"gained_s{sp + 1}": s.spell_round[sp] if mine_at[sp] else 0 for sp in range(6)})
            row.update({f"used_s{sp + 1}": int(mine_at[sp] and s.spell_used[sp]) for sp in range(6)})
            row.update({"castle_round": s.castle_round[seat], "passes": s.passes[seat], "empty_cells": m.n_empty,
                        "largest_domain": m.largest(), "crosses": sum(m.cell_cross), "rounds": s.round, "end": s.end,
                        "turns": s.round, "score_trace": trace[seat]})
            out.append(row)
        return out

    def components(self, s: KingdominoState) -> list[list[str]]:
        """Per seat: every die face it drew onto its map, one entry per face drawn (rules page,
        Round): ``"die 2 black+2"`` (:func:`face_id`; a face turned by S4 counts as the face it
        was turned to, on the same die), then the spells it gained, ``"S1"`` to ``"S6"``
        (Spellbook).  Faces are recorded only in a game set up by ``initial_state`` (a state
        loaded mid-game records its spells only)."""
        tally = s.tally or [[], []]
        owner = s.spell_owner
        return [tally[seat] + [SPELLS[sp] for sp in range(6) if owner[sp] == seat] for seat in (0, 1)]

    def component_catalog(self, params: KingdominoParams) -> dict[str, dict]:
        """Every face of every die (die order, then face order; a face written twice on a die is
        one component) and every spell with a spellbook row, each with its line in the components
        file (``components``; the built-in file when empty)."""
        comp = params.comp
        lines = component_lines(params.components)
        path = str(Path(params.components).expanduser() if params.components else DEFAULT_COMPONENTS)
        out = {}
        for d, die in enumerate(comp.dice):
            for face in dict.fromkeys(die):
                where = [str(j + 1) for j, f in enumerate(die) if f == face]
                faces = f"face {where[0]}" if len(where) == 1 else f"faces {', '.join(where[:-1])} and {where[-1]}"
                out[face_id(d, face)] = {"what": f"{faces} of die {d + 1}", "option": "components", "file": path,
                                         "line": lines.get(("die", str(d + 1))), "fix": ""}
        for coat, (boxes, sp) in enumerate(comp.rows):
            if sp >= 0:
                out[SPELLS[sp]] = {"what": f"spell {SPELLS[sp]}: {COATS[coat]} row of {boxes} boxes",
                                   "option": "components", "file": path,
                                   "line": lines.get(("spell", COATS[coat])), "fix": ""}
        return out

    def check_invariants(self, s: KingdominoState) -> None:
        """Domains match the cells, masks match the map, dice are drafted 1-2-1 (2-2 with S3),
        spellbook rows are consistent (a gained row strikes the other's; boxes within the row),
        every spell has at most one owner, and the turn order holds (:meth:`_check_turn_order`).
        Raises AssertionError (what a loaded state is checked by after ``state_from_dict``)."""
        comp = s.comp
        for seat in (0, 1):
            m = s.maps[seat]
            fresh = new_kingdom(comp)
            for c, k in enumerate(m.cell_coat):
                if k >= 0:
                    fresh.draw(c, k, 0)
            for c, k in enumerate(m.cell_coat):
                if k >= 0:
                    fresh.dcross[fresh.dom[c]] += m.cell_cross[c]
            assert m.cell_coat[comp.castle] == CASTLE, "castle cell"
            assert all(m.coat[r][c] == m.cell_coat[r * STRIDE + c] and m.cross[r][c] == m.cell_cross[r * STRIDE + c]
                       for r in range(comp.height) for c in range(comp.width)), "the saved rows"
            assert m.empty == fresh.empty and m.n_empty == fresh.n_empty, "empty cells"
            assert m.points == sum(fresh.dsize[d] * fresh.dcross[d] for d in fresh.labels()), "domain points"
            assert m.ok == fresh.ok, "connection masks"
            assert sorted((m.dsize[d], m.dcross[d]) for d in m.labels()) == sorted(
                (fresh.dsize[d], fresh.dcross[d]) for d in fresh.labels()), "domains"
            for d in m.labels():
                assert all(m.dom[c] == d for c in m.members[d]), "domain labels"
                near = 0
                for c in m.members[d]:
                    near |= comp.adj_mask[c]
                assert m.bound[d] == near & m.empty, "domain boundary"
            for coat in range(6):
                assert sorted(m.by_coat[coat]) == [d for d in m.labels() if m.cell_coat[d] == coat], "domains by coat"
            assert all(x >= 0 for x in m.cell_cross), "crosses"
            assert all(0 <= b <= size for b, (size, _) in zip(s.boxes[seat], comp.rows)), "boxes"
            s1_drawn = s.spell_used[S1] and s.spell_owner[S1] == seat
            assert s1_drawn or _reached_from_castle(m) == 1 + sum(k >= 0 for k in m.cell_coat), \
                f"a drawn cell of seat {seat}'s map is not joined to the castle, and seat {seat} drew no S1"
        assert len(s.history) == s.round - (s.phase != OVER), "one score pair per finished round (history)"
        for seat in (0, 1):
            p = s.pending[seat] if s.pending else None
            cells = (p.cell0, p.cell1) if type(p) is Place else ()
            assert s.bonus[seat] == -1 or s.bonus[seat] in cells, \
                f"the castle bonus of seat {seat} is on no cell of its drawing"
        for coat in range(6):
            owner = s.row_owner[coat]
            if owner >= 0:
                assert s.boxes[owner][coat] == comp.rows[coat][0], "a gained row is full"
                assert s.spell_owner[comp.rows[coat][1]] == owner, "row owner holds its spell"
        if s.phase in (PLACE, CASTLE_STEP):
            assert sorted(s.hand[0] + s.hand[1]) == [0, 1, 2, 3] and len(s.hand[0]) == 2, "draft"
        if s.phase == DRAFT_B:
            assert s.owner.count(s.a) == 1 and s.owner.count(-1) == 3, "first pick"
        for sp in range(6):
            assert not s.spell_used[sp] or s.spell_owner[sp] >= 0, "a used spell has an owner"
        self._check_turn_order(s)

    def _check_turn_order(self, s: KingdominoState) -> None:
        """The seat to move is the one the phase asks (A at the first pick, B at the second, A then
        B while drawing, the first queued seat at a spell choice); during the draft nobody holds
        dice; while drawing each seat holds the dice it owns, with one face per die, and a drawing
        not yet revealed is on empty cells; the round is within ``max_rounds``.  Raises
        AssertionError (one line)."""
        phase, a, cur = s.phase, s.a, s.current
        assert 1 <= s.round <= s.params.max_rounds, f"round {s.round} is not 1 to max_rounds={s.params.max_rounds}"
        assert phase != SPELL or s.queue, "phase spell needs a queue"
        want = {DRAFT_A: a, DRAFT_B: 1 - a, SPELL: s.queue[0][0] if s.queue else cur}.get(phase)
        assert want is None or cur == want, f"current={cur}, but in phase {phase} seat {want} decides"
        if phase == DRAFT_A:
            assert s.owner == [-1] * 4, "before the first pick no die has an owner"
        if phase in (DRAFT_A, DRAFT_B):
            assert s.hand == [[], []] and s.faces == [[], []], "during the draft no seat holds dice yet"
        if phase in (PLACE, CASTLE_STEP):
            for seat in (0, 1):
                assert s.hand[seat] == [d for d in range(4) if s.owner[d] == seat], \
                    f"hand of seat {seat} is not the dice it owns"
                assert len(s.faces[seat]) == 2, f"faces of seat {seat} need one face per die"
                p = s.pending[seat]
                if type(p) is Place:
                    m = s.maps[seat]
                    assert p.cell0 != p.cell1 and all(0 <= c < len(m.cell_coat) and m.cell_coat[c] == EMPTY
                                                      for c in (p.cell0, p.cell1)), \
                        f"pending drawing of seat {seat} is not on two empty cells"
            assert cur != 1 - a or s.pending[a] is not None, \
                f"seat {cur} draws second, but seat {a} has not drawn yet"
            assert cur != a or s.pending[1 - a] is None, f"seat {1 - a} draws second, but its drawing is made"
            assert phase != PLACE or s.pending[cur] is None, f"seat {cur} is to draw, but its drawing is made"
            assert phase != CASTLE_STEP or type(s.pending[cur]) is Place, "phase castle needs the seat's drawing"
        for seat in (0, 1):
            assert not s.turned[seat] or s.spell_owner[S4] == seat, \
                f"turned[{seat}] is true, but seat {seat} does not hold S4"

    def state_schema(self):
        """The saved-state schema (:mod:`analyser.io.states`), checked before ``state_from_dict``."""
        return _state_schema()

    def describe_action(self, action) -> str:
        words = ACTION_TEXT.get(type(action))
        return words(action) if words else str(action)


#: Action type -> its words (:meth:`KingdominoDuel.describe_action`).
ACTION_TEXT = {
    Draft: lambda a: ("take " + " and ".join(f"die {d + 1}" for d in a.dice)
                      + (" (spell S3)" if a.spell else "")),
    Place: lambda a: (f"draw {COATS[a.coat0]} at {at(a.cell0)} and {COATS[a.coat1]} at {at(a.cell1)}"
                      + (f" using {a.spell}" if a.spell else "")),
    Pass: lambda a: "draw nothing",
    Turn: lambda a: f"S4: turn die {('first', 'second')[a.slot]} to {face_name((a.coat, a.crosses))}",
    Castle: lambda a: f"castle bonus: a cross at {at(a.cell)}" if a.cell >= 0 else "keep the castle bonus",
    ChooseCoat: lambda a: f"S5: {COATS[a.coat]} domains score at the end",
    AddCross: lambda a: f"S6: a cross at {at(a.cell)}",
}


def _reached_from_castle(m: Kingdom) -> int:
    """How many drawn cells of ``m`` (coats of arms 0-5, and the castle) a walk from the castle through drawn,
    orthogonally adjacent cells reaches.  Every drawing obeys connection (rules.md, "A round")
    unless it uses spell S1, so on a map whose seat drew no S1 it is every drawn cell."""
    comp = m.comp
    drawn = sum(1 << c for c, k in enumerate(m.cell_coat) if k >= 0) | 1 << comp.castle
    reached = frontier = 1 << comp.castle
    while frontier:
        near = 0
        rest = frontier
        while rest:
            c = (rest & -rest).bit_length() - 1
            near |= comp.adj_mask[c]
            rest &= rest - 1
        frontier = near & drawn & ~reached
        reached |= frontier
    return bin(reached).count("1")


def _state_schema():
    from pydantic import model_validator

    from analyser.io.states import StateModel, fixed, items, text, whole

    seat, seat_or_none = whole(0, 1), whole(-1, 1)
    cell = whole(0, 15 * STRIDE - 1)
    coat = whole(0, 5)
    face = fixed(whole(JOKER, 5), whole(0, 9))  # [coat, crosses]; coat -1 is "?"
    count = whole(0, 10**6)

    def per_seat(item):
        return items(item, 2, 2)

    def per(item, n):
        return items(item, n, n)

    class MapJson(StateModel):
        coat: items(items(whole(CASTLE, 5), 15, 2), 15, 2)
        cross: items(items(whole(0, 99), 15, 2), 15, 2)

    class KingdominoStateSchema(StateModel):
        game: Literal["kingdomino-duel"] = "kingdomino-duel"
        params: dict[text(40), bool | int | float | text(4096)] = {}
        maps: per_seat(MapJson)
        roll: per(face, 4)
        round: whole(1, 10000) = 1
        a: seat = 0
        phase: Literal[PHASES] = DRAFT_A
        current: seat = 0
        owner: per(seat_or_none, 4) = None
        hand: per_seat(items(whole(0, 3), 4)) = None
        faces: per_seat(items(face, 2)) = None
        turned: per_seat(bool) = None
        pending: per_seat(Optional[Union[fixed(cell, cell, coat, coat, Literal["", "S1", "S2", "S1+S2"]),
                                         fixed()]]) = None
        bonus: per_seat(whole(-1, 15 * STRIDE - 1)) = None
        could: per_seat(bool) = None
        boxes: per_seat(per(whole(0, 100), 6)) = None
        row_owner: per(seat_or_none, 6) = None
        spell_owner: per(seat_or_none, 6) = None
        spell_used: per(bool, 6) = None
        spell_round: per(whole(0, 10000), 6) = None
        s5_coat: whole(-1, 5) = -1
        castle_round: per_seat(whole(0, 10000))
        queue: items(fixed(seat, whole(S5, S6)), 4) = None
        end: Literal[("",) + ENDS] = ""
        passes: per_seat(count)
        stuck: per_seat(count)
        history: items(per_seat(whole(-10**6, 10**6)), 10000) = None

        @model_validator(mode="after")
        def _consistent(self):
            if self.hand is not None and len(set(self.hand[0] + self.hand[1])) != len(self.hand[0] + self.hand[1]):
                raise ValueError("hand holds a die twice")
            for k, r in enumerate(self.spell_round or []):
                if r > self.round:
                    raise ValueError(f"spell_round[{k}] is {r}, after the current round {self.round}")
            for k, r in enumerate(self.castle_round or []):
                if r > self.round:
                    raise ValueError(f"castle_round[{k}] is {r}, after the current round {self.round}")
            return self

    return KingdominoStateSchema
