"""Dragon Lairds (龍王爭霸): a card-drafting engine game with auctions for the Saurean Cup.

Rules page: ``rules.md`` (``analyser rules dragon-lairds``).  Built like :mod:`analyser.titles.dao.rules`:
``DragonParams`` (every rule option), ``DragonState`` (a dataclass of plain values and
components declaring who sees what, from which the engine derives its copy, JSON round trip,
views and ``resample_hidden``), ``DragonView`` (the helpers strategies read on a seat's view) and
``DragonLairds`` (the stateless forward model).

Components: the publisher's card list is not public, so the title ships an **approximate deck**
(``data/deck.csv``, 5 clans x 31 cards, its design rationale in its header); ``components=FILE``
replaces it (:func:`load_deck`).  A game with N players uses the cards of the N players' clans.

The rules, every ruling where the write-up is silent (each a rule option where it changes play)
and the ``seat_geld`` variant are on the rules page (sections Setup, A round, End, The Saurean
Cup, Rulings, Seat bonus).  Saurean Cup bids are sealed: no view shows a bid of the running
auction; setup picks are simultaneous (no view shows another seat's pick until all have picked).

Actions are :class:`Act` named tuples ``(kind, arg, target)`` (their JSON is derived:
``{"type": "Act", "kind": "buy", "arg": 2, "target": -1}``; :meth:`DragonLairds.describe_action`
says one in words).  ``legal_actions``
order: buy per space (space order), take per space, play per hand card, use per ability card
(and target), cycle per space, challenge, pass; bids ascending; keep, cash; setup picks in
hand order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property, lru_cache
from operator import attrgetter
from pathlib import Path
from typing import Any, Literal, NamedTuple, Optional

from analyser.engine import components as part
from analyser.engine.core import COMPONENTS, ExtraTable, Game, InputError, Metric, Params, Scoring, option
from analyser.engine.derive import View, shuffled
from analyser.engine.perseat import seat_values
from analyser.io.files import read_component_rows

DATA = Path(__file__).resolve().parent / "data"
DEFAULT_DECK = DATA / "deck.csv"
MAX_FILE_BYTES = 1_000_000

HAVOC, RESOURCE, LAIRD, COMMONER = 0, 1, 2, 3
TYPES = ("Havoc", "Resource", "Laird", "Commoner")
#: Effect kinds and their number of whole-number parameters.
EFFECTS = {"tithe": 1, "raid": 1, "scandal": 1, "purge": 0, "transmute": 2, "execute": 0}
HEADER = ["id", "name", "type", "colour", "cost", "currency", "geld", "royals", "match", "finale",
          "knight", "ability"]

# phases
FREE, SALE, AUCTION, ACTIONS, CUP, OVER = "free", "sale", "auction", "actions", "cup", "over"


class Card(NamedTuple):
    """One card of the deck file.  ``type`` is an index into :data:`TYPES`, ``colour`` an index
    into the deck's colour names; ``match`` is ``(colour, geld, royals)`` or None; ``ability`` is
    ``(kind, a, b)`` or None."""

    id: str
    name: str
    type: int
    colour: int
    cost: int
    geld: int
    royals: int
    match: tuple | None
    finale: int
    knight: bool
    ability: tuple | None


class Deck(NamedTuple):
    """A loaded deck: ``cards`` (file order), ``colours`` (names, first appearance order),
    ``index`` (card id -> position in ``cards``), ``by_colour[c]`` (positions of colour c).

    For speed the rules also read per-position columns (``cost``, ``colour``, ``type``) and the
    interned actions that name each card (``play_acts``, ``free_acts``, ``sale_acts``)."""

    cards: tuple
    colours: tuple
    index: dict
    by_colour: tuple
    cost: tuple
    colour: tuple
    type: tuple
    play_acts: tuple
    free_acts: tuple
    sale_acts: tuple


def _bad(path, line, problem):
    where = f": line {line}" if line else ""
    return InputError(f"components file {str(path)!r}{where}: {problem}")


_ID = re.compile(r"^[A-Za-z0-9_-]{1,24}$")
_COLOUR = re.compile(r"^[a-z]{1,20}$")
_MATCH = re.compile(r"^([a-z]{1,20}) (?:(\d{1,2})g)?(?:(\d{1,2})r)?$")


def _int(text, path, line, what, high=99):
    if not re.fullmatch(r"\d{1,3}", text) or int(text) > high:
        raise _bad(path, line, f"{what} is not a whole number from 0 to {high}")
    return int(text)


def _ability(text, path, line):
    if not text:
        return None
    kind, *args = text.split(":")
    if kind not in EFFECTS or len(args) != EFFECTS[kind]:
        raise _bad(path, line, "ability is not one of tithe:N, raid:N, scandal:N, purge, transmute:G:R, "
                               "execute")
    nums = [_int(a, path, line, f"the {kind} amount", 99) for a in args]
    return (kind, *(nums + [0, 0])[:2])


@lru_cache(maxsize=16)
def load_deck(path: str = "") -> Deck:
    """Load and check a deck file (``""``: the built-in approximate deck).  Cached per path.

    The file is a UTF-8 CSV with the header :data:`HEADER` (``#`` lines are comments), a regular
    file of at most 1,000,000 bytes, read with :func:`analyser.io.files.read_component_rows`.  Raises :class:`InputError` with one line naming the file, the line and the
    problem; messages never repeat the file's content.
    """
    p = Path(path).expanduser() if path else DEFAULT_DECK
    # the shared safe reader: a regular file (devices, pipes and /proc files refused or capped by
    # the bytes actually read), UTF-8, at most MAX_FILE_BYTES; one-line errors naming file and line
    rows = read_component_rows(p, "components", HEADER, MAX_FILE_BYTES)
    for line, row in rows:
        if len(row) != len(HEADER):
            raise _bad(p, line, f"expected {len(HEADER)} fields, found {len(row)}")
    cards, colours, index = [], [], {}
    for line, row in rows:
        cid, name, typ, colour, cost, cur, geld, royals, match, finale, knight, ability = row
        if not _ID.match(cid):
            raise _bad(p, line, "id must be 1-24 letters, digits, - or _")
        if cid in index:
            raise _bad(p, line, f"id is used on line {cards[index[cid]][1]} already; ids must be unique")
        if len(name) > 40:
            raise _bad(p, line, "name is longer than 40 characters")
        if typ.capitalize() not in TYPES:
            raise _bad(p, line, "type is not one of Laird, Resource, Commoner, Havoc")
        t = TYPES.index(typ.capitalize())
        if not _COLOUR.match(colour):
            raise _bad(p, line, "colour must be one lower-case word of at most 20 letters")
        if colour not in colours:
            colours.append(colour)
        if cur.lower() != ("royals" if t == HAVOC else "geld"):
            raise _bad(p, line, "currency must be royals for a Havoc and geld for other cards")
        m = None
        if match:
            mm = _MATCH.match(match)
            if not mm or (mm.group(2) is None and mm.group(3) is None):
                raise _bad(p, line, "match must be empty or a colour and an income, e.g. yellow 2g or red 1g2r")
            m = (mm.group(1), int(mm.group(2) or 0), int(mm.group(3) or 0))
        if knight.lower() not in ("yes", "no"):
            raise _bad(p, line, "knight must be yes or no")
        ab = _ability(ability, p, line)
        if t == HAVOC and ab is None:
            raise _bad(p, line, "a Havoc needs an ability (its effect)")
        card = Card(cid, name or cid, t, colours.index(colour), _int(cost, p, line, "cost"),
                    _int(geld, p, line, "geld"), _int(royals, p, line, "royals"), m,
                    _int(finale, p, line, "finale"), knight.lower() == "yes", ab)
        index[cid] = len(cards)
        cards.append((card, line))
    if len(colours) < 2 or len(colours) > 10:
        raise _bad(p, 0, f"holds {len(colours)} colour(s); a deck needs 2 to 10")
    if len(cards) > 2000:
        raise _bad(p, 0, "holds more than 2,000 cards")
    out = []
    for card, line in cards:
        if card.match is not None:
            if card.match[0] not in colours:
                raise _bad(p, line, "match names a colour no card of the file has")
            card = card._replace(match=(colours.index(card.match[0]), card.match[1], card.match[2]))
        out.append(card)
    by_colour = tuple(tuple(i for i, c in enumerate(out) if c.colour == k) for k in range(len(colours)))
    for k, ids in enumerate(by_colour):
        if len(ids) < 5:
            raise _bad(p, 0, f"colour {k + 1} of the file has {len(ids)} cards; every colour needs at least 5")
    return Deck(tuple(out), tuple(colours), index, by_colour, tuple(c.cost for c in out),
                tuple(c.colour for c in out), tuple(c.type for c in out),
                tuple(Act("play", c.id) for c in out), tuple(Act("free", c.id) for c in out),
                tuple(Act("sale", c.id) for c in out))


@dataclass(frozen=True)
class DragonParams(Params):
    """Rule options of Dragon Lairds (rules page ``rules.md``)."""

    halt_space: int = option(8, "pawn space that ends the action phase; the pawn starts on the player "
                                "count and advances one space per full pass (rules: Round 2)", low=1, high=50)
    end_royals: int = option(60, "royals that end the game at once (rules: End)", low=1, high=10000)
    start_geld: int = option(15, "geld each player starts with (rules: Setup)", low=0, high=1000)
    seat_geld: str = option("0", "variant: extra start geld per seat, one number for all or one per seat "
                            "separated by / (0/0/1/2), seat 0 first (rules page: Seat bonus)")
    hand_limit: int = option(4, "cards a hand may hold (rules: Round 2)", low=0, high=20)
    off_colour_surcharge: int = option(2, "extra cost of a card whose colour is not yours (rules: Round 2)",
                                       low=0, high=50)
    fire_sale_rounding: str = option("up", "half price in the Fire Sale rounds up (rules) or down (variant)",
                                     choices=("up", "down"))
    hand_surcharge: bool = option(True, "playing a card from hand also pays the off-colour surcharge (ruling)")
    commoner_cycle: str = option("restart", "each refill deals Commoners from space 2 (restart) or carries "
                                 "the 2..N cycle on from the last refill (continue) (ruling)",
                                 choices=("restart", "continue"))
    cup_pot: int = option(10, "geld the bank puts under the Saurean Cup for a new auction (rules: Saurean Cup)",
                          low=0, high=1000)
    challenge_bidders: str = option("all", "who bids when the cup is challenged: every player (all) or only "
                                    "the holder and the challenger (duel) (ruling)", choices=("all", "duel"))
    final_auction: str = option("plain", "final cup auction: plain sealed bids, ties by honour (plain), or "
                                "with the holder +1 and knight +2 bonuses and challenge ties (challenge) (ruling)",
                                choices=("plain", "challenge"))
    tie_break: str = option("shared", "equal top scores share the win (shared) or the higher honour "
                            "position wins (honour) (ruling)", choices=("shared", "honour"))
    max_rounds: int = option(60, "safety cap on rounds; a capped game is scored as ended (end = cap)",
                             low=1, high=1000)
    cap_after_cash: str = option(
        "fresh_pot", "the cup was cashed and the game then stops at the max_rounds cap: the final auction "
        "is for a fresh cup_pot (fresh_pot, ruling) or there is no final auction (none)",
        choices=("fresh_pot", "none"))
    components: str = option("", "deck file (CSV, see data/deck.csv); empty = the built-in APPROXIMATE deck")

    def validate(self) -> None:
        seat_values(self.seat_geld, name="seat_geld", low=0, high=1000)
        load_deck(self.components)

    def start_money(self, n_players: int) -> list[int]:
        """Each seat's start geld: ``start_geld`` plus its ``seat_geld`` (InputError when
        ``seat_geld`` does not fit ``n_players``)."""
        extra = seat_values(self.seat_geld, n_players, name="seat_geld", low=0, high=1000)
        return [self.start_geld + e for e in extra]

    def data_files(self) -> dict[str, Path]:
        """The component files these rules read: option name -> path (built-in or given)."""
        return {"components": Path(self.components).expanduser() if self.components else DEFAULT_DECK}

    @cached_property
    def table(self) -> Deck:
        """The deck the rules play with (:func:`load_deck` of ``components``), loaded once."""
        return load_deck(self.components)


class Act(NamedTuple):
    """An action: ``kind`` with an argument (space index, card id or bid) and a ``target`` space
    (only for ``use`` with a targeted ability, else -1).

    Kinds: ``buy``/``take``/``cycle`` (arg = space index), ``play`` (arg = card id), ``use``
    (arg = card id, target = space or -1), ``challenge``, ``pass``, ``bid`` (arg = geld),
    ``keep``/``cash`` (cup choice), ``free``/``sale`` (setup picks, arg = card id).
    """

    kind: Literal["buy", "take", "cycle", "play", "use", "challenge", "pass", "bid", "keep", "cash", "free", "sale"]
    arg: int | str | None = None
    target: int = -1


PASS = Act("pass")
CHALLENGE = Act("challenge")
KEEP = Act("keep")
CASH = Act("cash")
#: Interned actions per space index.
BUY = tuple(Act("buy", i) for i in range(16))
TAKE = tuple(Act("take", i) for i in range(16))
CYCLE = tuple(Act("cycle", i) for i in range(16))
_BIDS: list[Act] = [Act("bid", i) for i in range(201)]


def bid_actions(top: int) -> list:
    """``Act("bid", 0..top)``, interned."""
    if top >= len(_BIDS):
        _BIDS.extend(Act("bid", i) for i in range(len(_BIDS), top + 1))
    return _BIDS[:top + 1]


#: Index of the Dragon Fire Sale among the spaces; commoner space k (2..N) has index k + 2.
SALE_SPACE = 3


def space_name(i: int) -> str:
    """havoc, resource, laird, sale (indices 0-3), commoner2 ... (index k + 2 for space k)."""
    return ("havoc", "resource", "laird", "sale")[i] if i < 4 else f"commoner{i - 2}"


Phase = Literal["free", "sale", "auction", "actions", "cup", "over"]
AuctionKind = Literal["open", "challenge", "final"]
EndTrigger = Literal["royals", "deck", "cap"]


def _none():
    return None


@dataclass(slots=True, kw_only=True)
class DragonState:
    """Full state, hidden information included.  Cards are positions in the deck table
    (``load_deck(params.components).cards``, also :attr:`deck_table`); stacks list the bottom
    card first, top last.  Who sees what is declared with the components:

    * ``colour[seat]`` (deck colour index), ``geld`` and ``royals`` (the score; counters),
      ``honour`` (seats, highest honour first), ``pawn``, ``round`` (1-based once play begins),
      ``phase``, ``current``: public.
    * ``deck`` (top last) and ``discard`` (top last): face down, their sizes public; ``spaces``
      (``n + 3`` stacks, named by :func:`space_name`, all revealed face up), ``play`` (cards in play
      per seat), ``used`` (ability cards used this round): public; ``hands``: each seat its own.
    * Setup: ``pending[seat]`` the pick a seat laid face down (0 or 1 card; its own seat sees
      it), ``picked`` how many seats picked.
    * Cup: ``cup_holder`` (-1 = bank), ``pot``, ``cup_open`` (an auction opens the next round);
      a running auction: ``auction`` (None, "open", "challenge" or "final"), ``bids`` (sealed:
      no seat sees them, None for a seat that has not bid), ``bidders`` (seats in bidding
      order), ``cursor`` (next bidder), ``challenger``; ``last_auction`` (public record of the
      last finished one: kind, bids, effective bids, winner, challenger, round).
    * Action phase: ``order`` (seats, lowest honour first), ``turn_pos``; ``commoner_next``.
    * ``end``: None or the trigger ("royals", "deck", "cap"); ``final`` (final scoring per seat:
      seat, income, finale, sets, penalty); ``stats`` (per seat royals by source and cup
      figures), ``income`` (per round, per seat ``[geld, royals]`` collected at tax, None if the
      seat did not collect), ``actions_taken``.

    Scratch (not part of the state's value, None in a copy or a loaded state): ``tally``, per
    seat the Havocs it bought or played (card positions, in order; they go to the discard pile,
    so ``play`` does not keep them), for :meth:`DragonLairds.components`; ``bought``, per seat
    ``(card, round, rank)`` of every card it took (the setup card, bought or played cards,
    Havocs), ``rank`` its place by royals at that moment (1 = most; ties share the better
    place), for the ``buys`` metric.  Both are lists in a game dealt by ``initial_state``.
    """

    params: DragonParams
    n: int
    colour: list[int]
    geld: list[int] = part.seat_counters()
    royals: list[int] = part.seat_counters()
    honour: list[int]
    pawn: int
    round: int
    phase: Phase
    current: int
    deck: list[int] = part.face_down()
    spaces: list[list[int]]
    discard: list[int] = part.zone(part.NOBODY)
    hands: list[list[int]] = part.seat_zones()
    play: list[list[int]] = part.seat_zones(part.EVERYONE)
    used: list[int] = part.face_up()
    pending: list[list[int]] = part.seat_zones()
    picked: int
    cup_holder: int
    pot: int
    auction: AuctionKind | None
    bids: list[int | None] = part.seat_counters(part.NOBODY)
    bidders: list[int]
    challenger: int
    cursor: int
    order: list[int]
    turn_pos: int
    commoner_next: int
    end: EndTrigger | None
    final: list[tuple[int, int, int, int, int]] | None
    last_auction: dict[str, Any] | None
    stats: list[dict[str, int]]
    income: list[list[list[int] | None]]
    actions_taken: int
    cup_open: bool
    tally: list | None = part.scratch(_none)
    bought: list | None = part.scratch(_none)

    @property
    def deck_table(self) -> Deck:
        """The deck the cards are positions in (``load_deck(params.components)``)."""
        return self.params.table

    def __repr__(self):
        return f"DragonState(players={self.n}, round={self.round}, phase={self.phase!r})"


STAT_KEYS = ("royals_start", "royals_tax", "royals_final_income", "royals_finale", "royals_sets", "hand_penalty",
             "royals_cup", "royals_effects", "royals_spent", "cup_wins", "cup_paid", "cup_cashed", "cup_rounds",
             "challenges")


class DragonView(View):
    """What one seat may see: the fields of :class:`DragonState` as their declarations allow
    (derived: ``geld``, ``royals``, ``spaces``, ``play``, ``deck_size``, ``discard_size``,
    ``hands`` (its own) and ``hands_sizes``, ``pending`` sizes, ``last_auction``, ... ; never
    other hands, the deck order, the discard pile's cards, the bids of the running auction),
    and the helpers strategies read: ``n_players``, ``cards`` (the deck table: ``cards[i]`` is a
    :class:`Card`), ``colours`` (names), ``index`` (card id -> position), ``hand`` and
    ``hand_sizes``, ``pending`` (its own setup pick or None), ``picks`` (which seats laid one),
    ``bids_made`` (how many seats have bid in the running auction - never the amounts),
    ``knights(seat)`` and ``cost(card, space)``."""

    __slots__ = ()

    n_players = property(attrgetter("_state.n"))

    @property
    def cards(self):
        return self._state.params.table.cards

    @property
    def colours(self):
        return self._state.params.table.colours

    @property
    def index(self) -> dict:
        """Card id -> position in ``cards``."""
        return self._state.params.table.index

    @property
    def hand(self) -> list[int]:
        return self._state.hands[self.seat]

    @property
    def hand_sizes(self) -> list[int]:
        return [len(h) for h in self._state.hands]

    @property
    def pending(self) -> int | None:
        """This seat's setup pick laid face down, or None."""
        mine = self._state.pending[self.seat]
        return mine[0] if mine else None

    @property
    def picks(self) -> list[bool]:
        """Per seat: whether it has laid a setup pick face down (what it picked stays hidden)."""
        return [bool(p) for p in self._state.pending]

    @property
    def bids_made(self) -> int:
        return self._state.cursor if self._state.auction else 0

    def knights(self, seat: int | None = None) -> int:
        s = self._state
        cards = s.params.table.cards
        return sum(1 for c in s.play[self.seat if seat is None else seat] if cards[c].knight)

    def cost(self, card: int, space: int = -1) -> int:
        """What this seat pays for ``card`` bought from ``space`` (-1: played from hand)."""
        return card_cost(self._state, self.seat, card, space)


def card_cost(s: DragonState, seat: int, card: int, space: int) -> int:
    """Cost of ``card`` for ``seat``: printed cost, +``off_colour_surcharge`` if its colour is not
    the seat's (from hand only with ``hand_surcharge``), halved in the Fire Sale (``space`` = the
    last space) after the other modifiers, rounded per ``fire_sale_rounding`` (rules: Round 2)."""
    c = s.params.table.cards[card]
    p = s.params
    cost = c.cost
    if c.colour != s.colour[seat] and (space >= 0 or p.hand_surcharge):
        cost += p.off_colour_surcharge
    if space == SALE_SPACE:
        cost = (cost + 1) // 2 if p.fire_sale_rounding == "up" else cost // 2
    return cost


def income_of(card: Card, colour: int) -> tuple[int, int]:
    """``(geld, royals)`` a card pays a seat of ``colour`` at tax: its colour-matched value when
    its marking names that colour (rules: Round 3)."""
    m = card.match
    if m is not None and m[0] == colour:
        return m[1], m[2]
    return card.geld, card.royals


class DragonLairds(Game):
    """The Dragon Lairds forward model.  See the module docstring for the rules and rulings."""

    id = "dragon-lairds"
    name = "Dragon Lairds"
    summary = ("card drafting with taxes and auctions for the Saurean Cup (APPROXIMATE deck: the real "
               "card list is not public)")
    min_players = 2
    max_players = 5
    default_players = 4
    Params = DragonParams
    path_options = ("components",)
    #: How games are won and measured: what the report's figures read (see Scoring).
    scoring = Scoring(
        length_unit="rounds",
        score_unit="royals",
        # Royals come one at a time (a tax, an income, a set): close when the top two are one royal apart.
        close_margin=1,
        # The start-money variant a seat-compensation sweep varies (geld, one per seat).
        seat_bonus_rule="seat_geld",
        # The tie-break option the tie-rate finding sweeps, and the safety cap on rounds the
        # long-tail finding tests.
        tie_break_rule="tie_break",
        length_cap_rule="max_rounds",
        seat_bonus_unit="geld")
    metric_columns = (Metric("end", "label"),) + tuple(Metric(c, "count") for c in (
        "turns", "actions", "geld_end", "cards_in_play", "knights")) + tuple(Metric(c, "whole") for c in (
            "royals_tax", "royals_final_income", "royals_finale", "royals_sets")) + (
        Metric("hand_penalty", "whole", high=0), Metric("royals_cup", "whole"),
        Metric("royals_effects", "whole"), Metric("royals_spent", "whole")) + tuple(
            Metric(c, "count") for c in ("cup_wins", "cup_paid", "cup_cashed", "cup_rounds")) + (
        Metric("cup_net_geld", "whole"), Metric("challenges", "count"), Metric("buys", "label", missing=True))
    extra_tables = (ExtraTable("income", (Metric("round", "count", low=1), Metric("geld", "whole"),
                                          Metric("royals", "whole")), feeds="the income tables and curves"),
                    COMPONENTS)
    State = DragonState
    View = DragonView
    action_types = (Act,)

    def report_notes(self, params: DragonParams) -> list[str]:
        """The report's note on the deck (rules page, "The deck is an approximation"): the
        built-in deck is an approximation, replaced with ``--rule components=FILE``; a run with
        its own deck names the file."""
        if params.components:
            return [f"Deck: this run used the deck file {params.components} (--rule components), not the "
                    "built-in approximate deck; its SHA-256 is under Component data files below."]
        return ["Deck: an approximation. The publisher's card list is not public, so these results come from a "
                "deck designed for the simulator (analyser/titles/dragon_lairds/data/deck.csv, 5 clans x 31 "
                "cards). They say how the mechanics behave on that deck, not how the published game does. "
                "Replace it with --rule components=FILE."]

    # -- set-up ---------------------------------------------------------------------------
    def check_players(self, params: DragonParams, n_players: int) -> None:
        """The player range, a colour per player, and cards enough to deal 4 to everyone."""
        super().check_players(params, n_players)
        params.start_money(n_players)
        deck = load_deck(params.components)
        if len(deck.colours) < n_players:
            raise InputError(f"the deck has {len(deck.colours)} colours; {n_players} players need one each")
        smallest = sorted(len(ids) for ids in deck.by_colour)[:n_players]
        if sum(smallest) < 4 * n_players + 1:
            raise InputError(f"the deck's colours hold too few cards to deal 4 to each of {n_players} players")

    def initial_state(self, params: DragonParams, n_players: int, rng) -> DragonState:
        """Shuffle with ``rng`` and deal (rules: Setup).  InputError outside 2-5 players."""
        self.check_players(params, n_players)
        n = n_players
        table = load_deck(params.components)
        kings = list(range(len(table.colours)))
        rng.shuffle(kings)
        colour = kings[:n]
        deck = [i for k in sorted(colour) for i in table.by_colour[k]]
        rng.shuffle(deck)
        honour = list(range(n))
        rng.shuffle(honour)
        hands = [[deck.pop() for _ in range(4)] for _ in range(n)]
        stats = [dict.fromkeys(STAT_KEYS, 0) for _ in range(n)]
        for st in stats:
            st["royals_start"] = 1
        s = DragonState(params=params, n=n, colour=colour, geld=params.start_money(n), royals=[1] * n,
                        honour=honour, pawn=n, round=0, phase=FREE, current=0, deck=deck,
                        spaces=[[] for _ in range(n + 3)], discard=[], hands=hands, play=[[] for _ in range(n)],
                        used=[], pending=[[] for _ in range(n)], picked=0, cup_holder=-1, pot=params.cup_pot, auction=None,
                        bids=[None] * n, bidders=[], challenger=-1, cursor=0, order=[], turn_pos=0,
                        commoner_next=0, end=None, final=None, last_auction=None, stats=stats, income=[],
                        actions_taken=0, cup_open=True)
        s.tally = [[] for _ in range(n)]
        s.bought = [[] for _ in range(n)]
        self._setup_next(s, rng)
        return s

    # -- protocol -------------------------------------------------------------------------
    def current_player(self, s: DragonState) -> int:
        return s.current

    def is_terminal(self, s: DragonState) -> bool:
        return s.phase == OVER

    def turn(self, s: DragonState):
        return s.current, self.legal_actions(s)

    def legal_actions(self, s: DragonState):
        """Legal actions of the current seat (order: see the module docstring); () once over."""
        phase = s.phase
        if phase == ACTIONS:
            return self._main_actions(s)
        if phase == AUCTION:
            return bid_actions(s.geld[s.current])
        if phase == CUP:
            return [KEEP, CASH]
        if phase == FREE:
            t = s.params.table
            return [t.free_acts[c] for c in s.hands[s.current] if t.type[c] != HAVOC]
        if phase == SALE:
            acts = s.params.table.sale_acts
            return [acts[c] for c in s.hands[s.current]]
        return ()

    def _main_actions(self, s: DragonState) -> list:
        """The action-phase actions; costs inlined from :func:`card_cost` (the hot path)."""
        seat = s.current
        table = s.params.table
        ccost, ccol, ctype = table.cost, table.colour, table.type
        p = s.params
        mine = s.colour[seat]
        sur = p.off_colour_surcharge
        geld, royals = s.geld[seat], s.royals[seat]
        spaces = s.spaces
        out = []
        nonempty = []
        for i, stack in enumerate(spaces):
            if stack:
                nonempty.append(i)
                c = stack[-1]
                cost = ccost[c] if ccol[c] == mine else ccost[c] + sur
                if i == SALE_SPACE:
                    cost = (cost + 1) // 2 if p.fire_sale_rounding == "up" else cost // 2
                if cost <= (royals if ctype[c] == HAVOC else geld):
                    out.append(BUY[i])
        hand = s.hands[seat]
        if len(hand) < p.hand_limit:
            out += [TAKE[i] for i in nonempty]
        if hand:
            hs = sur if p.hand_surcharge else 0
            acts = table.play_acts
            for c in hand:
                cost = ccost[c] if ccol[c] == mine else ccost[c] + hs
                if cost <= (royals if ctype[c] == HAVOC else geld):
                    out.append(acts[c])
        cards = table.cards
        used = s.used
        for c in s.play[seat]:
            ab = cards[c].ability
            if ab is not None and c not in used:
                kind = ab[0]
                if kind == "execute":
                    out += [Act("use", cards[c].id, i) for i in nonempty]
                elif kind != "transmute" or geld >= ab[1]:
                    out.append(Act("use", cards[c].id))
        if royals >= 1:
            out += [CYCLE[i] for i in nonempty if len(spaces[i]) >= 2]
        if s.cup_holder >= 0 and s.cup_holder != seat:
            out.append(CHALLENGE)
        out.append(PASS)
        return out

    # -- apply ------------------------------------------------------------------------------
    def apply(self, s: DragonState, action, rng=None) -> None:
        """Play ``action`` for the current seat and run the automatic steps (refill, tax, reset)
        up to the next decision.  ``rng`` is unused after the deal: the deck order is fixed by
        the shuffle.  Raises ValueError on an action that is not legal here."""
        kind = action[0]
        seat = s.current
        phase = s.phase
        if phase == ACTIONS:
            self._apply_main(s, seat, action)
        elif phase == AUCTION and kind == "bid":
            amount = action[1]
            if not (isinstance(amount, int) and 0 <= amount <= s.geld[seat]):
                raise ValueError(f"bid {amount!r} is not 0..{s.geld[seat]}")
            s.bids[seat] = amount
            s.cursor += 1
            if s.cursor < len(s.bidders):
                s.current = s.bidders[s.cursor]
            else:
                self._resolve_auction(s)
        elif phase == CUP and kind in ("keep", "cash"):
            self._cup_choice(s, seat, kind == "keep")
        elif phase in (FREE, SALE) and kind == ("free" if phase == FREE else "sale"):
            c = self._hand_card(s, seat, action[1])
            if phase == FREE and s.params.table.cards[c].type == HAVOC:
                raise ValueError("a Havoc cannot be the free card")
            s.hands[seat].remove(c)
            s.pending[seat] = [c]
            s.picked += 1
            self._setup_next(s, rng)
        else:
            raise ValueError(f"action {action!r} is not legal in phase {phase}")

    def _hand_card(self, s, seat, cid) -> int:
        c = s.params.table.index.get(cid)
        if c is None or c not in s.hands[seat]:
            raise ValueError(f"card {cid!r} is not in seat {seat}'s hand")
        return c

    def _setup_next(self, s: DragonState, rng) -> None:
        """Move the setup on: the next seat to pick, or reveal the picks (rules: Setup)."""
        n = s.n
        cards = s.params.table.cards
        while s.phase in (FREE, SALE):
            nxt = s.picked
            if s.phase == FREE:
                while nxt < n and all(cards[c].type == HAVOC for c in s.hands[nxt]):
                    nxt += 1  # only Havocs: no free card (ruling)
                s.picked = nxt
            if nxt < n:
                s.current = nxt
                return
            if s.phase == FREE:
                for seat in range(n):
                    for c in s.pending[seat]:
                        s.play[seat].append(c)
                        self._took(s, seat, c)
                s.phase = SALE
            else:
                fs = s.spaces[SALE_SPACE]
                for seat in range(n):
                    fs.extend(s.pending[seat])
                    s.discard.extend(s.hands[seat])
                    s.hands[seat] = []
                s.phase = ACTIONS  # placeholder until the round starts
                s.pending = [[] for _ in range(n)]
                s.picked = 0
                self._start_round(s)
                return
            s.pending = [[] for _ in range(n)]
            s.picked = 0

    # -- round flow -----------------------------------------------------------------------
    def _start_round(self, s: DragonState) -> None:
        """Next round: cap check, the cup auction when the cup is with the bank, then refill."""
        if s.end is not None:
            return
        if s.round >= s.params.max_rounds:
            self._end(s, "cap")
            return
        s.round += 1
        s.income.append([None] * s.n)
        if s.cup_holder < 0 and s.cup_open:
            self._open_auction(s, "open")
            return
        self._refill(s)

    def _refill(self, s: DragonState) -> None:
        """Rules: Round 1.  Ends the game at once when the last deck card is revealed."""
        n = s.n
        spaces = s.spaces
        fs = spaces[SALE_SPACE]
        s.used = []
        fs.extend([stack.pop(0) for i, stack in enumerate(spaces) if stack and i != SALE_SPACE])
        cards = s.params.table.cards
        deck = s.deck
        nxt = 0 if s.params.commoner_cycle == "restart" else s.commoner_next
        while not (spaces[0] and spaces[1] and spaces[2]):
            if not deck:  # only in hand-built states: the last reveal ends the game
                self._end(s, "deck")
                return
            c = deck.pop()
            t = cards[c].type
            if t == COMMONER:
                spaces[4 + nxt].append(c)
                nxt = (nxt + 1) % (n - 1)
            else:
                spaces[t].append(c)
            if not deck:
                s.commoner_next = nxt
                self._end(s, "deck")
                return
        s.commoner_next = nxt
        s.pawn = n
        s.order = s.honour[::-1]
        s.turn_pos = 0
        s.phase = ACTIONS
        if s.pawn >= s.params.halt_space:
            self._tax(s)
        else:
            s.current = s.order[0]

    def _next_turn(self, s: DragonState) -> None:
        s.actions_taken += 1
        s.turn_pos += 1
        if s.turn_pos == s.n:
            s.turn_pos = 0
            s.pawn += 1
            if s.pawn >= s.params.halt_space:
                self._tax(s)
                return
        s.current = s.order[s.turn_pos]

    def _gain_royals(self, s: DragonState, seat: int, k: int, source: str) -> bool:
        """Add ``k`` royals from ``source``; True (and the game ends) when ``end_royals`` is reached."""
        s.royals[seat] += k
        s.stats[seat][source] += k
        if k > 0 and s.royals[seat] >= s.params.end_royals and s.end is None:
            self._end(s, "royals")
            return True
        return False

    def _tax(self, s: DragonState) -> None:
        """Rules: Round 3, highest honour first; stops at once when a seat reaches ``end_royals``."""
        cards = s.params.table.cards
        rec = s.income[-1]
        for seat in s.honour:
            col = s.colour[seat]
            g = r = 0
            for c in s.play[seat]:
                a, b = income_of(cards[c], col)
                g += a
                r += b
            s.geld[seat] += g
            rec[seat] = [g, r]
            if r and self._gain_royals(s, seat, r, "royals_tax"):
                return
        self._reset(s)

    def _reset(self, s: DragonState) -> None:
        """Rules: Round 4, then the end-of-round cup choice."""
        n = s.n
        s.pawn = n
        s.discard.extend(s.spaces[SALE_SPACE])
        s.spaces[SALE_SPACE] = []
        pos = {seat: i for i, seat in enumerate(s.honour)}
        s.honour = sorted(range(n), key=lambda x: (-s.royals[x], -len(s.play[x]), pos[x]))
        if s.cup_holder >= 0:
            s.phase = CUP
            s.current = s.cup_holder
        else:
            self._start_round(s)

    def _cup_choice(self, s: DragonState, seat: int, keep: bool) -> None:
        st = s.stats[seat]
        st["cup_rounds"] += 1
        if keep and self._gain_royals(s, seat, (s.pot + 1) // 2, "royals_cup"):
            return  # the cup's royals ended the game
        if not keep:
            s.geld[seat] += s.pot
            st["cup_cashed"] += s.pot
            s.pot = s.params.cup_pot
            s.cup_holder = -1
            s.cup_open = True
        self._start_round(s)

    # -- the Saurean Cup ------------------------------------------------------------------
    def _open_auction(self, s: DragonState, kind: str, challenger: int = -1) -> None:
        s.phase = AUCTION
        s.auction = kind
        s.challenger = challenger
        s.bidders = list(s.honour)
        if kind == "challenge" and s.params.challenge_bidders == "duel":
            s.bidders = [x for x in s.honour if x in (s.cup_holder, challenger)]
        s.bids = [None] * s.n
        s.cursor = 0
        s.current = s.bidders[0]

    def _auction_winner(self, s: DragonState, kind: str) -> tuple[int, list[int]]:
        """``(winner, effective bids)`` of the finished auction (rules: Saurean Cup): highest
        effective bid; ``challenge`` (and ``final_auction=challenge``) adds +1 to the holder and
        +2 per knight, ties by more knights then honour order; otherwise ties by honour order.
        Only the seats in ``bidders`` take part (``challenge_bidders=duel``: holder and challenger);
        the others' effective bids are None."""
        n = s.n
        bonus = kind == "challenge" or (kind == "final" and s.params.final_auction == "challenge")
        cards = s.params.table.cards
        pos = {seat: i for i, seat in enumerate(s.honour)}
        eff = list(s.bids)
        knights = [0] * n
        if bonus:
            for seat in s.bidders:
                knights[seat] = sum(1 for c in s.play[seat] if cards[c].knight)
                eff[seat] = s.bids[seat] + 2 * knights[seat] + (1 if seat == s.cup_holder else 0)
        best = max(s.bidders, key=lambda x: (eff[x], knights[x], -pos[x]))
        return best, eff

    def _resolve_auction(self, s: DragonState) -> None:
        kind = s.auction
        win, eff = self._auction_winner(s, kind)
        bid = s.bids[win]
        s.geld[win] -= bid
        st = s.stats[win]
        st["cup_paid"] += bid
        st["cup_wins"] += 1
        s.last_auction = {"kind": kind, "bids": list(s.bids), "effective": eff, "winner": win,
                          "challenger": s.challenger, "round": s.round}
        s.auction = None
        s.bids = [None] * s.n
        s.bidders = []
        s.cursor = 0
        challenger = s.challenger
        s.challenger = -1
        s.cup_holder = win
        if kind == "final":
            self._gain_royals(s, win, s.pot, "royals_cup")
            s.phase = OVER
            s.current = 0
            return
        s.cup_open = False
        s.pot += 1
        if self._gain_royals(s, win, 1, "royals_cup"):
            return
        if kind == "open":
            self._refill(s)
        else:
            s.phase = ACTIONS
            s.current = challenger
            self._next_turn(s)

    # -- actions --------------------------------------------------------------------------
    def _apply_main(self, s: DragonState, seat: int, action) -> None:
        kind = action[0]
        cards = s.params.table.cards
        if kind == "pass":
            self._next_turn(s)
            return
        if kind == "cycle":
            i = action[1]
            stack = s.spaces[i]
            if s.royals[seat] < 1 or len(stack) < 2:
                raise ValueError("cycling needs a royal and two cards in the space")
            s.royals[seat] -= 1
            s.stats[seat]["royals_spent"] -= 1
            stack.insert(0, stack.pop())
            return
        if kind == "buy":
            i = action[1]
            stack = s.spaces[i]
            if not stack:
                raise ValueError("buy from an empty space")
            c = stack[-1]
            self._pay(s, seat, c, card_cost(s, seat, c, i))
            stack.pop()
            if self._gain_card(s, seat, c):
                return
        elif kind == "take":
            i = action[1]
            if not s.spaces[i] or len(s.hands[seat]) >= s.params.hand_limit:
                raise ValueError("take needs a card in the space and room in hand")
            s.hands[seat].append(s.spaces[i].pop())
        elif kind == "play":
            c = self._hand_card(s, seat, action[1])
            self._pay(s, seat, c, card_cost(s, seat, c, -1))
            s.hands[seat].remove(c)
            if self._gain_card(s, seat, c):
                return
        elif kind == "use":
            c = s.params.table.index.get(action[1])
            if c is None or c not in s.play[seat] or c in s.used or cards[c].ability is None:
                raise ValueError(f"no unused ability {action[1]!r} in play")
            ab = cards[c].ability
            if ab[0] == "execute":
                t = action[2]
                if not (0 <= t < len(s.spaces)) or not s.spaces[t]:
                    raise ValueError("execute needs a space with a card")
            elif ab[0] == "transmute" and s.geld[seat] < ab[1]:
                raise ValueError("transmute needs the geld")
            s.used.append(c)
            if self._effect(s, seat, ab, action[2]):
                return
        elif kind == "challenge":
            if s.cup_holder < 0 or s.cup_holder == seat:
                raise ValueError("no cup to challenge")
            s.stats[seat]["challenges"] += 1
            self._open_auction(s, "challenge", seat)
            return
        else:
            raise ValueError(f"action {action!r} is not legal in the action phase")
        self._next_turn(s)

    def _pay(self, s: DragonState, seat: int, c: int, cost: int) -> None:
        if s.params.table.cards[c].type == HAVOC:
            if s.royals[seat] < cost:
                raise ValueError("not enough royals")
            s.royals[seat] -= cost
            s.stats[seat]["royals_spent"] -= cost
        else:
            if s.geld[seat] < cost:
                raise ValueError("not enough geld")
            s.geld[seat] -= cost

    def _gain_card(self, s: DragonState, seat: int, c: int) -> bool:
        """A bought or played card: into play, or a Havoc's effect then the discard's bottom."""
        card = s.params.table.cards[c]
        self._took(s, seat, c)
        if card.type == HAVOC:
            s.discard.insert(0, c)
            if s.tally is not None:
                s.tally[seat].append(c)
            return self._effect(s, seat, card.ability, -1)
        s.play[seat].append(c)
        return False

    @staticmethod
    def _took(s: DragonState, seat: int, c: int) -> None:
        """Record card ``c`` taken by ``seat`` with the round and the seat's rank by royals now."""
        if s.bought is not None:
            mine = s.royals[seat]
            s.bought[seat].append((c, s.round, 1 + sum(1 for r in s.royals if r > mine)))

    def _effect(self, s: DragonState, seat: int, ab, target: int) -> bool:
        """Resolve an effect (deck file header); True when it ended the game."""
        kind, a, b = ab
        if kind == "tithe":
            s.geld[seat] += a
        elif kind == "raid":
            for o in range(s.n):
                if o != seat:
                    s.geld[o] = max(0, s.geld[o] - a)
        elif kind == "scandal":
            for o in range(s.n):
                if o != seat:
                    lost = min(a, max(0, s.royals[o]))
                    s.royals[o] -= lost
                    s.stats[o]["royals_effects"] -= lost
        elif kind == "purge":
            s.discard.extend([stack.pop() for i, stack in enumerate(s.spaces) if stack and i != SALE_SPACE])
        elif kind == "transmute":
            s.geld[seat] -= a
            return self._gain_royals(s, seat, b, "royals_effects")
        elif kind == "execute":
            s.discard.append(s.spaces[target].pop())
        return False

    # -- end --------------------------------------------------------------------------------
    def _end(self, s: DragonState, trigger: str) -> None:
        """Final scoring (rules: End), then the final cup auction."""
        s.end = trigger
        cards = s.params.table.cards
        final = []
        for seat in sorted(range(s.n), key=lambda x: (s.royals[x], -s.honour.index(x))):  # lowest first
            col = s.colour[seat]
            inc = sum(income_of(cards[c], col)[1] for c in s.play[seat])
            finale = sum(cards[c].finale for c in s.play[seat])
            sets = 0
            for t in (LAIRD, RESOURCE, COMMONER):
                sets += min(10, 2 * len({cards[c].colour for c in s.play[seat] if cards[c].type == t}))
            penalty = sum(5 if cards[c].colour == col else cards[c].cost for c in s.hands[seat])
            st = s.stats[seat]
            st["royals_final_income"] += inc
            st["royals_finale"] += finale
            st["royals_sets"] += sets
            st["hand_penalty"] -= penalty
            s.royals[seat] += inc + finale + sets - penalty
            final.append((seat, inc, finale, sets, penalty))
        s.final = sorted(final)
        s.auction = None
        if trigger == "cap" and s.cup_holder < 0 and s.params.cap_after_cash == "none":
            s.phase = OVER  # the cup was cashed and no auction opened since: no final auction
            s.current = 0
            return
        self._open_auction(s, "final")

    # -- results ------------------------------------------------------------------------
    def scores(self, s: DragonState) -> list[int]:
        """Royals per seat (final once the game is over)."""
        return list(s.royals)

    def winners(self, s: DragonState) -> list[int]:
        """Most royals; ``tie_break=honour``: the first of the tied in the final honour order."""
        sc = s.royals
        best = max(sc)
        tied = [i for i in range(s.n) if sc[i] == best]
        if len(tied) > 1 and s.params.tie_break == "honour":
            pos = {seat: i for i, seat in enumerate(s.honour)}
            tied = [min(range(s.n), key=lambda x: (-sc[x], -len(s.play[x]), pos[x]))]
        return tied

    def metrics(self, s: DragonState) -> list[dict]:
        """Per seat: ``end`` trigger (royals, deck, cap), ``turns`` (rounds begun), ``actions``
        (action-phase turns of the game), ``geld_end``, ``cards_in_play``, ``knights``, royals by
        source (``royals_tax`` ... ``royals_spent``, ``hand_penalty`` <= 0; with the starting
        royal they add up to the score) and cup figures (auctions won, geld paid, geld cashed,
        rounds held, ``cup_net_geld`` = cashed - paid, challenges made) and ``buys``: every card the
        seat took, in order, as ``id:round:rank`` separated by spaces (``rank`` its place by royals
        at that moment, 1 = most; NaN when it took none or the state was loaded mid-game)."""
        cards = s.params.table.cards
        out = []
        for seat in range(s.n):
            st = s.stats[seat]
            m = {"end": s.end or "none", "turns": s.round, "actions": s.actions_taken, "geld_end": s.geld[seat],
                 "cards_in_play": len(s.play[seat]),
                 "knights": sum(1 for c in s.play[seat] if cards[c].knight)}
            m.update((k, st[k]) for k in STAT_KEYS[1:])
            m["cup_net_geld"] = st["cup_cashed"] - st["cup_paid"]
            m["buys"] = " ".join(f"{cards[c].id}:{r}:{k}" for c, r, k in
                                 (s.bought[seat] if s.bought is not None else ())) or float("nan")
            out.append(m)
        return out

    def extra_records(self, s: DragonState) -> dict[str, list[dict]]:
        """``{"income": rows}``: one row per round and seat that collected tax: ``round``, ``seat``,
        ``geld`` and ``royals`` collected."""
        return {"income": [{"round": r, "seat": seat, "geld": x[0], "royals": x[1]}
                           for r, rec in enumerate(s.income, start=1)
                           for seat, x in enumerate(rec) if x is not None]}

    def components(self, s: DragonState) -> list[list[str]]:
        """Per seat, every card it bought or played (rules page, Round 2; the free card of the
        setup included), one entry per card, by its id in the deck file (``Y05``): the cards in
        play, then the Havocs it resolved (recorded only in a game dealt by ``initial_state``)."""
        cards = s.params.table.cards
        tally = s.tally or [[] for _ in range(s.n)]
        return [[cards[c].id for c in s.play[seat]] + [cards[c].id for c in tally[seat]] for seat in range(s.n)]

    def component_catalog(self, params: DragonParams) -> dict[str, dict]:
        """Every card of the deck file (``components``; the built-in approximate deck when
        empty), in file order: name, colour, type and cost, and its line in the file."""
        path = params.data_files()["components"]
        deck = load_deck(params.components)
        lines = {row[0]: line for line, row in read_component_rows(path, "components", HEADER, MAX_FILE_BYTES)
                 if row}
        out = {}
        for c in deck.cards:
            cost = f"{c.cost} {'royals' if c.type == HAVOC else 'geld'}"
            out[c.id] = {"what": f"{c.name}, {deck.colours[c.colour]} {TYPES[c.type]}, cost {cost}",
                         "option": "components", "file": str(path), "line": lines.get(c.id), "fix": ""}
        return out

    def check_invariants(self, s: DragonState) -> None:
        """Cards are conserved (deck + spaces + discard + hands + play + setup picks = the cards of
        the seats' colours, each once); the honour order is a permutation; royals equal the sum
        of their sources; money is never negative; hands respect the limit outside setup."""
        table = s.params.table
        everything = list(s.deck) + [c for st in s.spaces for c in st] + list(s.discard)
        for seat in range(s.n):
            everything += s.hands[seat] + s.play[seat] + s.pending[seat]
        expected = sorted(i for k in s.colour for i in table.by_colour[k])
        assert sorted(everything) == expected, "cards not conserved"
        assert sorted(s.honour) == list(range(s.n)), "honour order"
        for seat in range(s.n):
            st = s.stats[seat]
            total = sum(st[k] for k in STAT_KEYS[:9])
            assert total == s.royals[seat], f"royals of seat {seat} do not add up ({total} != {s.royals[seat]})"
            assert s.geld[seat] >= 0, "negative geld"
            if s.phase not in (FREE, SALE):
                assert len(s.hands[seat]) <= s.params.hand_limit, "hand over the limit"

    # -- search -------------------------------------------------------------------------------
    def determinize(self, view: DragonView, rng) -> DragonState:
        """A full state consistent with ``view`` (for :mod:`analyser.engine.search`).

        Board, cards in play, money, royals, honour and the round's progress are copied from the
        view, with the seat's own hand and setup pick.  The cards it has not seen (the game's
        cards minus the spaces, the cards in play and its own hand and pick) are shuffled with
        ``rng`` and dealt: each other seat's hand (``hand_sizes``), a setup pick to each other
        seat that laid one (``picks``; not a Havoc during the free pick), the deck
        (``deck_size``, in random order) and the discard pile (the rest: its cards never come
        back into play).  The bids already made in a running auction are hidden, so each is
        drawn uniformly from 0 to the bidder's geld.  Nothing is inferred from what seats chose (nor
        from a seat passing over the free pick because it holds only Havocs).
        """
        n, seat = view.n_players, view.seat
        table = view.params.table
        known = {c for st in view.spaces for c in st}
        for p in view.play:
            known.update(p)
        known.update(view.hand)
        own = view.pending
        if own is not None:
            known.add(own)
        unseen = [i for k in sorted(view.colour) for i in table.by_colour[k] if i not in known]
        pool = shuffled(unseen, rng)
        picks = view.picks
        pending = [[] for _ in range(n)]
        if own is not None:
            pending[seat].append(own)
        for k in range(n):
            if k != seat and picks[k]:
                at = next((i for i, c in enumerate(pool) if view.phase != FREE or table.type[c] != HAVOC), 0)
                pending[k].append(pool.pop(at))
        hands = []
        sizes = view.hand_sizes
        for k in range(n):
            if k == seat:
                hands.append(list(view.hand))
            else:
                hands.append(pool[:sizes[k]])
                del pool[:sizes[k]]
        deck_size = view.deck_size
        deck, discard = pool[:deck_size], pool[deck_size:]
        bids = [None] * n
        if view.auction:
            for k in view.bidders[:view.cursor]:
                bids[k] = int(rng.random() * (view.geld[k] + 1))  # the view shows no bid, not even its own
        final = view.final
        last = view.last_auction
        return DragonState(
            params=view.params, n=n, colour=list(view.colour), geld=list(view.geld), royals=list(view.royals),
            honour=list(view.honour), pawn=view.pawn, round=view.round, phase=view.phase, current=view.current,
            deck=deck, spaces=[list(x) for x in view.spaces], discard=discard, hands=hands,
            play=[list(p) for p in view.play], used=list(view.used), pending=pending, picked=view.picked,
            cup_holder=view.cup_holder, pot=view.pot, auction=view.auction, bids=bids,
            bidders=list(view.bidders), challenger=view.challenger, cursor=view.cursor, order=list(view.order),
            turn_pos=view.turn_pos, commoner_next=view.commoner_next, end=view.end,
            final=None if final is None else list(final),
            last_auction=None if last is None else {k: (list(v) if isinstance(v, list) else v)
                                                    for k, v in last.items()},
            stats=[dict(x) for x in view.stats], income=[[None if x is None else list(x) for x in r]
                                                         for r in view.income],
            actions_taken=view.actions_taken, cup_open=view.cup_open)

    # -- persistence (derived from DragonState; the saved-state schema) -------------------
    def state_schema(self):
        """The saved-state schema (:mod:`analyser.io.states`), checked before :meth:`state_from_dict`."""
        return _state_schema(self.min_players, self.max_players)

    def describe_action(self, a: Act) -> str:
        words = ACTION_TEXT.get(a.kind)
        return words(a) if words else a.kind


#: Action kind -> its words (:meth:`DragonLairds.describe_action`).
ACTION_TEXT = {
    "buy": lambda a: f"buy the top card of {space_name(a.arg)}",
    "take": lambda a: f"take the top card of {space_name(a.arg)}",
    "cycle": lambda a: f"pay 1 royal: top card of {space_name(a.arg)} to its bottom",
    "play": lambda a: f"play {a.arg} from hand",
    "use": lambda a: f"use {a.arg}" + (f" on {space_name(a.target)}" if a.target >= 0 else ""),
    "bid": lambda a: f"bid {a.arg} geld",
    "free": lambda a: f"play {a.arg} free",
    "sale": lambda a: f"put {a.arg} in the Fire Sale",
    "keep": lambda a: "keep the cup (score half the pot)",
    "cash": lambda a: "cash the cup (take the pot, return the cup)",
}


@lru_cache(maxsize=None)
def _state_schema(min_players: int, max_players: int):
    from pydantic import model_validator

    from analyser.io.states import StateModel, fixed, items, seat_lists, text, whole

    most = 2000  # a deck file holds at most 2,000 cards
    card, seat, money = whole(0, most - 1), whole(0, max_players - 1), whole(0, 10**7)
    score = whole(-(10**7), 10**7)
    seat_or_none = whole(-1, max_players - 1)
    stack = items(card, most)
    per_seat = max_players

    class LastAuction(StateModel):
        kind: Literal["open", "challenge", "final"]
        bids: items(Optional[money], per_seat)
        effective: items(Optional[score], per_seat)
        winner: seat
        challenger: seat_or_none
        round: whole(0, 10**6)

    class DragonStateSchema(StateModel):
        game: Literal["dragon-lairds"] = "dragon-lairds"
        params: dict[text(40), bool | int | float | text(4096)]
        n: whole(min_players, max_players)
        colour: items(whole(0, 9), per_seat)
        geld: items(money, per_seat)
        royals: items(score, per_seat)
        honour: items(seat, per_seat)
        pawn: whole(0, 1000)
        round: whole(0, 10**6)
        phase: Literal[FREE, SALE, AUCTION, ACTIONS, CUP, OVER]
        current: seat
        deck: stack
        spaces: items(stack, per_seat + 3)
        discard: stack
        hands: items(stack, per_seat)
        play: items(stack, per_seat)
        used: stack
        pending: items(items(card, 1), per_seat)
        picked: whole(0, per_seat)
        cup_holder: seat_or_none
        pot: money
        auction: Optional[Literal["open", "challenge", "final"]]
        bids: items(Optional[money], per_seat)
        bidders: items(seat, per_seat)
        challenger: seat_or_none
        cursor: whole(0, per_seat - 1)
        order: items(seat, per_seat)
        turn_pos: whole(0, per_seat - 1)
        commoner_next: whole(0, per_seat)
        end: Optional[Literal["royals", "deck", "cap"]]
        final: Optional[items(fixed(seat, score, score, score, score), per_seat)]
        last_auction: Optional[LastAuction]
        stats: items(dict[Literal[STAT_KEYS], score], per_seat)
        income: items(items(Optional[fixed(score, score)], per_seat), 10**5)
        actions_taken: whole(0, 10**9)
        cup_open: bool

        @model_validator(mode="after")
        def _per_seat(self):
            n = self.n
            seat_lists(self, n, "colour", "geld", "royals", "honour", "hands", "play", "pending", "bids", "stats")
            if len(self.spaces) != n + 3:
                raise ValueError(f"spaces holds {len(self.spaces)} stacks; {n} players need {n + 3}")
            if len(set(self.colour)) != n:
                raise ValueError("colour needs one distinct colour per player")
            for name in ("current", "cup_holder", "challenger", "cursor", "turn_pos"):
                value = getattr(self, name)
                if value >= n:
                    raise ValueError(f"{name} is {value}; there are {n} seats")
            if sorted(self.honour) != list(range(n)):
                raise ValueError("honour must list every seat once")
            for name in ("bidders", "order"):
                value = getattr(self, name)
                if any(x >= n for x in value) or len(set(value)) != len(value):
                    raise ValueError(f"{name} must name distinct seats below {n}")
            if (self.phase == AUCTION) != (self.auction is not None):
                raise ValueError("an auction phase needs an auction kind and vice versa")
            if self.auction and (self.cursor >= len(self.bidders) or self.bidders[self.cursor] != self.current):
                raise ValueError("bidders must list the current bidder at the cursor")
            if any(b is not None and b > self.geld[k] for k, b in enumerate(self.bids)):
                raise ValueError("a bid must lie between 0 and the bidder's geld")
            for k, st in enumerate(self.stats):
                if set(st) != set(STAT_KEYS):
                    raise ValueError(f"stats[{k}] needs exactly the keys {', '.join(STAT_KEYS)}")
            if any(len(rec) != n for rec in self.income):
                raise ValueError(f"income needs one entry per player ({n}) in every round")
            return self

    return DragonStateSchema
