"""The results schema: what ``analyser report`` accepts - the kinds of a results column
(:data:`COLUMN_KINDS`), a title's metric columns (:class:`Metric`), its extra tables
(:class:`ExtraTable`, :data:`COMPONENTS`) and the kinds of outcome (:data:`OUTCOMES`).
Re-exported by :mod:`analyser.engine.core`, the title contract."""

from __future__ import annotations

from dataclasses import dataclass

from typing import Sequence


#: Kinds of a results column and what each accepts (shown in messages and the README).
COLUMN_KINDS = {
    "whole": "whole numbers",
    "count": "whole numbers >= 0",
    "number": "finite numbers",
    "share": "numbers from 0 to 1",
    "label": "non-empty text",
    "flag": "true or false",
    "trace": "lists of finite numbers (as text: numbers separated by spaces)",
}


class Metric(str):
    """The name of a results column that carries its kind: a title lists these in
    ``metric_columns`` (and in an :class:`ExtraTable`), which declares its results schema once.

    It *is* the column name (a ``str``), so code that only needs names is unchanged.  ``kind`` is
    a key of :data:`COLUMN_KINDS`; ``missing=True`` allows empty cells (NaN), e.g. the turn a
    ship sank for a ship that never sank; ``low``/``high`` bound a number (inclusive).
    """

    kind: str
    missing: bool
    low: float | None
    high: float | None

    def __new__(cls, name: str, kind: str = "number", *, missing: bool = False,
                low: float | None = None, high: float | None = None):
        if kind not in COLUMN_KINDS:
            raise ValueError(f"column kind {kind!r} is not one of {', '.join(COLUMN_KINDS)}")
        obj = super().__new__(cls, name)
        obj.kind, obj.missing, obj.low, obj.high = kind, missing, low, high
        return obj

    def accepts(self) -> str:
        """What the column accepts, in words: ``"whole numbers >= 0 (or empty)"``."""
        text = COLUMN_KINDS[self.kind]
        if self.low is not None or self.high is not None:
            text = "whole numbers" if self.kind in ("whole", "count") else "numbers"
            low = self.low if self.low is not None else (0 if self.kind in ("count", "share") else None)
            high = self.high if self.high is not None else (1 if self.kind == "share" else None)
        else:
            low = high = None
        if low is not None and high is not None:
            text += f" from {low:g} to {high:g}"
        elif low is not None:
            text += f" >= {low:g}"
        elif high is not None:
            text += f" <= {high:g}"
        return text + (" (or empty)" if self.missing else "")


def as_metric(name: str) -> Metric:
    """``name`` as a :class:`Metric`; a plain string is taken as a finite number column."""
    return name if isinstance(name, Metric) else Metric(name)


class ExtraTable(str):
    """The name of an extra table a title writes beside the results (``<name>.parquet``), with
    the columns it must hold and what the report builds from it (``feeds``, e.g. "the bidding
    tables"), so a report made without it can say what was left out."""

    columns: tuple[Metric, ...]
    feeds: str

    def __new__(cls, name: str, columns: Sequence[Metric | str] = (), feeds: str = ""):
        obj = super().__new__(cls, name)
        obj.columns = tuple(as_metric(c) for c in columns)
        obj.feeds = feeds or f"the figures built from {name}"
        return obj


#: The component_counts table (ComponentHooks.components): one row per game, seat and component.
COMPONENTS = ExtraTable("component_counts", (Metric("component", "label"), Metric("count", "count", low=1)),
                        feeds="the component impact figures")


#: The columns every results table has, before the rule columns and the title's metrics.
#: ``players`` is bounded by the title's player range when a table is validated.
KEY_COLUMNS: tuple[Metric, ...] = (
    Metric("run_id", "label"), Metric("game", "label"), Metric("game_index", "count"),
    Metric("game_seed", "count", high=2**64 - 1), Metric("players", "count", low=1),
    Metric("seat", "count"), Metric("strategy", "label"),
)
#: What a title's ``Scoring.outcome`` may declare (see there).
OUTCOMES = ("highest score", "race", "other")


@dataclass(frozen=True)
class Scoring:
    """How a title's games are won and measured: what the report's figures read (one value per
    title, ``Game.scoring``; the defaults fit a game whose highest final score wins).

    * ``outcome`` (one of :data:`OUTCOMES`): ``"highest score"``: the highest final score wins,
      ties by the title's tie-break - every figure, the score-based skill share and each seat's
      score handicap included; ``"race"``: the first seat to reach a target wins at once, the
      others' scores say how far they got - no score-based skill share, and the seat compensation
      is a head start; ``"other"``: the score does not decide (the last ship afloat wins) - no
      figure that reads score differences.  ``outcome_note``: why, one sentence (the report's
      reason for leaving those figures out).
    * ``score_unit`` (plural: "points", "royals"), ``length_unit`` (what the ``turns`` metric
      counts), ``trace_unit`` (one step of the score trace: a round, a turn).
    * ``close_margin``: top two scores at most this far apart make a close game (the smallest
      swing of the scoring); None: no close-game figure, for the reason ``close_note`` gives.
    * The rule options the findings name: ``seat_bonus_rule`` (a start bonus, one whole number
      per seat, that a seat-compensation sweep varies; ``seat_bonus_unit`` when it is not counted
      in ``score_unit``), ``tie_break_rule`` (the tie finding's sweep), ``length_cap_rule`` (the
      long-tail finding's cap); "" for none.  ``tie_break_note``: where the tie-break decides only
      the winner, a sentence saying so (``analyser list``).
    """

    outcome: str = "highest score"
    outcome_note: str = ""
    score_unit: str = "points"
    length_unit: str = "turns"
    trace_unit: str = "steps"
    close_margin: float | None = 1
    close_note: str = ""
    seat_bonus_rule: str = ""
    seat_bonus_unit: str = ""
    tie_break_rule: str = ""
    tie_break_note: str = ""
    length_cap_rule: str = ""

    def __post_init__(self) -> None:
        if self.outcome not in OUTCOMES:
            raise ValueError(f"Scoring(outcome={self.outcome!r}): choose one of {', '.join(OUTCOMES)}")

    @property
    def score_decides(self) -> bool:
        """True when the highest final score wins."""
        return self.outcome == "highest score"

#: The outcome columns after the rule columns.
OUTCOME_COLUMNS: tuple[Metric, ...] = (Metric("score", "number"), Metric("rank", "count", low=1),
                                       Metric("win", "share"))
