"""What a batch records, column by column, and how it becomes the columns that travel back from
a worker (:class:`analyser.engine.runner.BatchResult`): numpy arrays, packed score traces, extra tables as
``{key: values}`` and the components table."""

from __future__ import annotations

from operator import itemgetter
from typing import Any, Callable, Sequence

import numpy as np

from analyser.engine import traces
from analyser.engine.componenttable import component_columns
from analyser.engine.errors import GameFailure
from analyser.engine.seeding import game_seed

#: The columns every batch records first, per (game, seat), before the title's metrics.
ROW_FIELDS = ("game_index", "game_seed", "seat", "strategy", "score", "rank", "win")


class BatchRecords:
    """The records of a batch while it runs, column by column: per game its seed, and per (game,
    seat) in order the strategy index, score, rank, win share and the tuple of metric values
    (``metric_columns`` order); ``comp_ids`` / ``comp_lens`` as :func:`component_columns` takes
    them.  Game index and seat follow from the order, so they are not stored.  A game appends to
    every list before the batch counts it done, so :meth:`columns` trims whatever a stop left of a
    game that was not counted."""

    __slots__ = ("n", "start", "names", "metric_values", "seeds", "strategy", "score", "rank", "win", "metrics",
                 "comp_ids", "comp_lens")

    def __init__(self, game, n_players: int, start: int):
        self.n = n_players
        self.start = start
        self.names = list(ROW_FIELDS) + list(game.metric_columns)
        self.metric_values = _values_of(game.metric_columns)
        self.seeds: list[int] = []
        self.strategy: list[int] = []
        self.score: list = []
        self.rank: list = []
        self.win: list[float] = []
        self.metrics: list[tuple] = []
        self.comp_ids: list = []
        self.comp_lens: list[int] = []

    def columns(self, games: int) -> dict[str, Any]:
        """The first ``games`` games as {name: numpy array}, as :func:`to_columns` makes them from
        row tuples.  Raises :class:`analyser.engine.traces.TraceValueError` as it does (``row`` counted
        among the rows of these games)."""
        n, k = self.n, games * self.n
        if not games:
            return {name: np.array([]) for name in self.names}
        out = {"game_index": np.repeat(np.arange(self.start, self.start + games, dtype=np.int64), n),
               "game_seed": np.repeat(np.array(self.seeds[:games], dtype=np.uint64), n),
               "seat": np.tile(np.arange(n, dtype=np.int64), games)}
        cells = [self.strategy[:k], self.score[:k], self.rank[:k], self.win[:k]]
        cells += list(zip(*self.metrics[:k])) if len(self.names) > len(ROW_FIELDS) else []
        for name, values in zip(self.names[3:], cells):
            out[name] = _column(name, values)
        return out


def finish_columns(result, game, job=None) -> None:
    """Turn what a batch recorded into ``result.columns`` (and its extra tables into columns, its
    component ids into the components table), keeping only the ``result.done`` games it finished;
    a trace value that is no number ends the batch at its game (reported, the games before it
    kept).  Also called by a run's watchdog on the batch in progress."""
    rec, result.records = result.records, None
    names = list(ROW_FIELDS) + list(game.metric_columns)
    if rec is None:  # (rows given as tuples)
        rows = result.rows
        try:
            result.columns = to_columns(rows, names)
        except traces.TraceValueError as e:
            drop_from(result, rows, rows[e.row][0], job, str(e))
            result.columns = to_columns(rows, names)
        result.rows = []
    else:
        try:
            result.columns = rec.columns(result.done)
        except traces.TraceValueError as e:
            drop_from(result, [], rec.start + e.row // rec.n, job, str(e))
            result.columns = rec.columns(result.done)
    last = result.start + result.done  # extra rows of a game the batch did not count are dropped
    result.extras = {name: as_columns([r for r in recs if r["game_index"] < last]
                                      if recs and recs[-1]["game_index"] >= last else recs)
                     for name, recs in result.extras.items()}
    if rec is not None and game.records_components:
        try:
            result.components = component_columns(rec.comp_ids, rec.comp_lens, result.start, rec.n, result.done)
        except Exception as e:  # ids that cannot be counted: keep the games, report the title's fault
            if result.error is None:
                result.error = GameFailure(f"the components of games {result.start} to {last - 1} could not be "
                                           f"recorded: {type(e).__name__}: {e}",
                                           game_seed(job.root_seed, result.start) if job else 0, result.start)


def as_columns(records: list[dict]) -> list[dict] | dict[str, Any]:
    """An extra table's rows as ``{key: values}`` when every row has the same keys (in the first
    row's order, as ``pandas.DataFrame.from_records`` orders them), else the rows unchanged.  A
    column whose values are all ``int`` (or all ``float``, or all ``bool``) becomes the numpy array
    pandas would make of it (int64, float64, bool); any other column stays a list, for pandas to
    read as it reads the records."""
    if not records:
        return records
    keys = records[0].keys()
    if any(r.keys() != keys for r in records):
        return records
    out: dict[str, Any] = {}
    for k in keys:
        values = list(map(itemgetter(k), records))
        kinds = set(map(type, values))
        if len(kinds) == 1 and next(iter(kinds)) in (int, float, bool):
            arr = np.array(values)
            values = arr if arr.dtype.kind in "iufb" else values  # (ints beyond 64 bits stay a list)
        out[k] = values
    return out


def drop_from(result, rows: list[tuple], index: int, job, why: str) -> None:
    """Game ``index`` failed after play (``why``): keep only the games before it, as when its
    metrics raise, and report it (unless an earlier game already failed)."""
    rows[:] = [r for r in rows if r[0] < index]
    for recs in result.extras.values():
        recs[:] = [r for r in recs if r["game_index"] < index]
    result.done = index - job.start
    if result.error is None or (getattr(result.error, "game_index", None) or 0) >= index:
        result.error = GameFailure(f"game {index} failed after play: {why}", game_seed(job.root_seed, index), index)


def _values_of(names: Sequence[str]) -> Callable[[dict], tuple]:
    """A function giving the tuple of a metrics dict's values at ``names`` (KeyError for a
    missing one)."""
    if not names:
        return lambda m: ()
    if len(names) == 1:
        one = itemgetter(names[0])
        return lambda m: (one(m),)
    return itemgetter(*names)


def _column(name: str, values: Sequence[Any]) -> Any:
    """One column's cells -> a numpy array (object for text, uint64 for game seeds), or a
    :class:`analyser.engine.traces.Packed` column for a column of lists (:func:`analyser.engine.traces.pack`,
    which raises :class:`analyser.engine.traces.TraceValueError` for a value that is no finite number)."""
    if name == "game_seed":
        return np.array(values, dtype=np.uint64)
    if traces.is_trace_column(values):
        return traces.pack(values)
    arr = np.array(values)
    return arr if arr.dtype.kind in "biuf" else np.array(values, dtype=object)


def to_columns(rows: list[tuple], names: list[str]) -> dict[str, Any]:
    """Row tuples -> {name: numpy array} (see :func:`_column`)."""
    if not rows:
        return {name: np.array([]) for name in names}
    return {name: _column(name, values) for name, values in zip(names, zip(*rows))}
