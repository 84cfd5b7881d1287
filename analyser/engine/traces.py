"""Score traces: each seat's score after every step of a game, the ``score_trace`` results column.

A title returns, per seat, a list of numbers (:func:`analyser.engine.core.encode_trace`); a run stores
the column as an Arrow list column, which pandas reads back as one numpy array per row:

* ``list<int32>`` when every value of the batch is a whole number held as an ``int`` (or a bool)
  and fits in 32 bits, ``list<int64>`` when one does not fit, ``list<double>`` when any value is a
  ``float``; a float must be finite.  The type is chosen per batch, so the parts of a run differ
  only when some batch needs int64 or holds a float and another does not: analyser's readers
  promote them (:func:`concat_tables`), while ``pandas.read_parquet`` of the whole folder takes
  the first part's type and refuses the others (read such a run part by part).

The text form ``"0 3 3 7"`` - finite numbers separated by white space - is what a CSV cell holds
(``--csv`` writes it); every reader here takes both, and also the form pandas writes when it saves a list column as CSV (``"[0 3 3 7]"``,
``"[0, 3, 3, 7]"``: numbers separated by spaces or commas inside square brackets).
"""

from __future__ import annotations

import reprlib
from itertools import chain
from typing import Any, Sequence

import numpy as np

from analyser.engine.errors import InputError

#: Most values one trace cell may hold (a text cell: at most this many characters).
MAX_VALUES = 1_000_000

_NUMBER = r"-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?"
_BODY = rf"(?:{_NUMBER}(?:(?:\s*,\s*|\s+){_NUMBER})*)?"
#: A text trace: numbers separated by white space (or commas), optionally inside square brackets.
TEXT_PATTERN = rf"^\s*(?:\[\s*{_BODY}\s*\]|{_BODY})\s*$"

_SEQUENCES = (list, tuple, np.ndarray)


class TraceValueError(ValueError):
    """A title's trace holds a value that is not a finite number; ``row`` is the position of the
    first such cell among the cells given to :func:`to_arrow`."""

    def __init__(self, message: str, row: int):
        super().__init__(message)
        self.row = row


def is_trace_column(values: Sequence[Any]) -> bool:
    """True when ``values`` (one cell per row) hold lists: a column for :func:`to_arrow`.  A
    column of text (a title that writes the text form itself) is kept as text.  The first cell
    decides, unless it is None (a trace not recorded)."""
    first = values[0] if len(values) else None
    if first is not None:
        return isinstance(first, _SEQUENCES)
    return any(isinstance(v, _SEQUENCES) for v in values)


class Packed:
    """A batch's trace column packed for the trip from a worker: ``values`` (every row's values
    one after the other: int32, int64 or float64), ``offsets`` (int64, rows + 1: row ``i`` holds
    ``values[offsets[i]:offsets[i + 1]]``) and ``missing`` (bool per row, or None).  Numpy only, so
    a worker never imports pyarrow (nor the pandas that pyarrow's list conversion pulls in);
    :meth:`to_arrow` makes the Arrow column in the process that writes it."""

    __slots__ = ("values", "offsets", "missing")

    def __init__(self, values: np.ndarray, offsets: np.ndarray, missing: np.ndarray | None = None):
        self.values, self.offsets, self.missing = values, offsets, missing

    def __reduce__(self):
        return (Packed, (self.values, self.offsets, self.missing))

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def to_arrow(self):
        """The column as an Arrow ``list<int32>``, ``list<int64>`` or ``list<double>`` array."""
        import pyarrow as pa
        mask = pa.array(self.missing) if self.missing is not None and self.missing.any() else None
        offsets = self.offsets.astype(np.int32) if (not len(self.values) or len(self.values) < 2 ** 31) else None
        if offsets is None:
            return pa.LargeListArray.from_arrays(pa.array(self.offsets), pa.array(self.values), mask=mask)
        return pa.ListArray.from_arrays(pa.array(offsets), pa.array(self.values), mask=mask)


def pack(cells: Sequence[Any]) -> Packed:
    """One list cell per row (lists, tuples or numpy arrays of numbers; ``None`` = not recorded)
    -> a :class:`Packed` column whose values are int32 (whole numbers that fit), int64 or float64
    (see the module docstring).  Raises :class:`TraceValueError` naming the first row whose cell is
    not a list of finite numbers, or holds more than :data:`MAX_VALUES` values."""
    missing = None
    n = len(cells)
    try:
        lengths = np.fromiter(map(len, cells), dtype=np.int64, count=n)
    except TypeError:  # a None (or a cell that is no list)
        missing = np.fromiter((c is None for c in cells), dtype=bool, count=n)
        for i, c in enumerate(cells):
            if c is not None and not isinstance(c, _SEQUENCES):
                raise TraceValueError(f"its score trace is a {type(c).__name__}, not a list of numbers", i) from None
        lengths = np.fromiter((0 if c is None else len(c) for c in cells), dtype=np.int64, count=n)
    for i in np.flatnonzero(lengths > MAX_VALUES)[:1]:
        raise TraceValueError(f"its score trace holds {int(lengths[i]):,} values; at most {MAX_VALUES:,} are "
                              "accepted", int(i))
    flat = list(chain.from_iterable(c for c in cells if c is not None)) if missing is not None else \
        list(chain.from_iterable(cells))
    values = _values(flat)
    if values is not None:
        offsets = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        return Packed(values, offsets, missing)
    # name the first cell that is not a list of finite numbers
    for i, c in enumerate(cells):
        if c is not None and not isinstance(c, _SEQUENCES):
            raise TraceValueError(f"its score trace is a {type(c).__name__}, not a list of numbers", i)
        for v in (() if c is None else c):
            if not _finite_number(v):
                raise TraceValueError(f"its score trace holds {reprlib.repr(v)}, not a finite number", i)
    raise TraceValueError("its score traces mix values that do not make one column of numbers", 0)


def _values(flat: list) -> np.ndarray | None:
    """The values of a batch's traces as one array: int32 (whole numbers that fit), int64, or
    float64 (all finite); None when they are not all finite numbers."""
    try:
        a = np.array(flat)
    except (TypeError, ValueError, OverflowError):
        return None
    if not len(a):
        return np.zeros(0, dtype=np.int32)
    if a.dtype.kind == "b":
        return a.astype(np.int32)
    if a.dtype.kind in "iu":
        lo, hi = int(a.min()), int(a.max())
        if -2 ** 31 <= lo and hi < 2 ** 31:
            return a.astype(np.int32)
        return a.astype(np.int64) if hi < 2 ** 63 else None
    if a.dtype.kind == "f":
        a = a.astype(np.float64, copy=False)
        return a if np.isfinite(a).all() else None
    return None


def unpack_columns(columns: dict) -> dict:
    """A batch's columns with every :class:`Packed` trace column as an Arrow list array (which
    pandas turns into one numpy array per row)."""
    if not any(isinstance(v, Packed) for v in columns.values()):
        return columns
    return {k: (v.to_arrow() if isinstance(v, Packed) else v) for k, v in columns.items()}


def _finite_number(v) -> bool:
    if isinstance(v, (bool, np.bool_)):
        return True
    if isinstance(v, (int, np.integer)):
        return -2 ** 63 <= int(v) < 2 ** 63
    if isinstance(v, (float, np.floating)):
        return bool(np.isfinite(v))
    return False


def as_text(array):
    """An Arrow list array (or chunked array) of numbers as the text form, one string per row
    (``"0 3 3 7"``; a null list stays null)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    return pc.binary_join(pc.cast(array, pa.list_(pa.string())), " ")


def table_as_text(table):
    """``table`` with every list-of-numbers column (the score traces) as the text form, for CSV."""
    import pyarrow as pa
    for i, field in enumerate(table.schema):
        kind = field.type
        if ((pa.types.is_list(kind) or pa.types.is_large_list(kind))
                and (pa.types.is_integer(kind.value_type) or pa.types.is_floating(kind.value_type))):
            table = table.set_column(i, field.name, as_text(table.column(i)))
    return table


def concat_tables(tables: list, where: str = "the parts of a run"):
    """Arrow tables (parts of one run) as one: as ``pyarrow.concat_tables`` with permissive
    promotion (int32 lists with double lists make double lists).  Parts that hold a column in
    two types otherwise (score traces as text, as an older version of analyser wrote them, beside
    lists) raise InputError (one line naming ``where``)."""
    import pyarrow as pa
    try:
        return pa.concat_tables(tables, promote_options="permissive")
    except (pa.ArrowTypeError, pa.ArrowInvalid):
        raise InputError(f"{where} hold a column in two types (score traces as text, as an older version of "
                         "analyser wrote them), which this one does not read; run it again") from None


def _present(cells: np.ndarray) -> np.ndarray:
    import pandas as pd
    return ~np.asarray(pd.isna(cells), dtype=bool) if len(cells) else np.zeros(0, dtype=bool)


def _text_ok(texts: np.ndarray) -> np.ndarray:
    """Per text cell: a valid text trace of at most :data:`MAX_VALUES` characters."""
    import pyarrow as pa
    import pyarrow.compute as pc
    arr = pa.array(texts, type=pa.large_string())
    ok = np.asarray(pc.match_substring_regex(arr, TEXT_PATTERN).to_numpy(zero_copy_only=False), dtype=bool)
    return ok & (pc.utf8_length(arr).to_numpy(zero_copy_only=False) <= MAX_VALUES)


def _cell_ok(cell) -> bool:
    """A list cell that is a flat list of finite numbers, at most :data:`MAX_VALUES` long."""
    try:
        a = np.asarray(cell)
    except (ValueError, TypeError):
        return False
    if a.ndim != 1 or len(a) > MAX_VALUES:
        return False
    if a.dtype.kind in "iub":
        return True
    return a.dtype.kind == "f" and bool(np.isfinite(a).all())


def check(series) -> tuple[np.ndarray, np.ndarray]:
    """Validate the cells of a trace column read from an untrusted file: ``(bad, present)``, two
    boolean arrays over the rows.  ``present``: the cell is not missing; ``bad``: a present cell
    that is neither a valid text trace (see the module docstring; at most :data:`MAX_VALUES`
    characters) nor a flat list of finite numbers (at most :data:`MAX_VALUES` values).  A number
    (a CSV column whose every trace is one number) is read as its text."""
    cells = np.asarray(series.to_numpy(dtype=object) if hasattr(series, "to_numpy") else series, dtype=object)
    present = _present(cells)
    bad = np.zeros(len(cells), dtype=bool)
    idx = np.flatnonzero(present)
    if not len(idx):
        return bad, present
    live = cells[idx]
    is_list = np.fromiter((isinstance(c, _SEQUENCES) for c in live), dtype=bool, count=len(live))
    if (~is_list).any():
        texts = np.array([c if isinstance(c, str) else str(c) for c in live[~is_list]], dtype=object)
        ok = _text_ok(texts)
        if ok.any():  # numbers too large for a float (1e999) are not finite either
            counts, values = _parse_text(texts[ok])
            finite = np.isfinite(values)
            if not finite.all():
                rows = np.repeat(np.arange(len(counts)), counts)
                ok[np.flatnonzero(ok)[np.unique(rows[~finite])]] = False
        bad[idx[~is_list]] = ~ok
    if is_list.any():
        lists = live[is_list]
        ok = None
        if all(isinstance(c, np.ndarray) and c.ndim == 1 for c in lists):
            try:
                flat = np.concatenate(lists)
            except ValueError:
                flat = None
            if flat is not None and flat.dtype.kind in "iubf":
                lengths = np.fromiter(map(len, lists), dtype=np.int64, count=len(lists))
                ok = lengths <= MAX_VALUES
                if flat.dtype.kind == "f":
                    finite = np.isfinite(flat)
                    if not finite.all():
                        rows = np.repeat(np.arange(len(lists)), lengths)
                        ok &= np.bincount(rows[~finite], minlength=len(lists)) == 0
        if ok is None:  # mixed, nested or non-numeric cells: one by one
            ok = np.fromiter((_cell_ok(c) for c in lists), dtype=bool, count=len(lists))
        bad[idx[is_list]] = ~ok
    return bad, present


def _parse_text(texts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Valid text traces -> (values per row, every value as float64, in row order)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    arr = pc.replace_substring_regex(pa.array(texts, type=pa.large_string()), r"[\[\],]", " ")
    lists = pc.utf8_split_whitespace(pc.utf8_trim_whitespace(arr))
    tokens = pc.list_flatten(lists)
    parents = np.asarray(pc.list_parent_indices(lists).to_numpy(zero_copy_only=False), dtype=np.int64)
    keep = np.asarray(pc.not_equal(tokens, "").to_numpy(zero_copy_only=False), dtype=bool)
    counts = np.bincount(parents[keep], minlength=len(texts)).astype(np.int64)
    values = pc.cast(pc.filter(tokens, pa.array(keep)), pa.float64()).to_numpy(zero_copy_only=False)
    return counts, np.asarray(values, dtype=np.float64)


def flatten(cells) -> tuple[np.ndarray, np.ndarray]:
    """Trace cells (one per row: lists or arrays of numbers, text traces, or missing) -> ``(counts,
    values)``: how many values each row holds (0 when missing) and all values as float64, row
    after row.  The cells must be valid (:func:`check`)."""
    cells = np.asarray(cells.to_numpy(dtype=object) if hasattr(cells, "to_numpy") else cells, dtype=object)
    n = len(cells)
    present = _present(cells)
    is_list = np.fromiter((isinstance(c, _SEQUENCES) for c in cells), dtype=bool, count=n)
    is_text = present & ~is_list
    if not is_list.any():
        counts = np.zeros(n, dtype=np.int64)
        if not is_text.any():
            return counts, np.zeros(0)
        texts = np.array([c if isinstance(c, str) else str(c) for c in cells[is_text]], dtype=object)
        c, values = _parse_text(texts)
        counts[is_text] = c
        return counts, values
    if is_list.all() and all(isinstance(c, np.ndarray) for c in cells):  # as a run's parts are read
        counts = np.fromiter(map(len, cells), dtype=np.int64, count=n)
        return counts, np.concatenate(list(cells)).astype(np.float64, copy=False)
    rows = [np.asarray(c, dtype=np.float64) if isinstance(c, _SEQUENCES) else None for c in cells]
    if is_text.any():
        texts = np.array([c if isinstance(c, str) else str(c) for c in cells[is_text]], dtype=object)
        c, values = _parse_text(texts)
        starts = np.concatenate([[0], np.cumsum(c)])
        for k, i in enumerate(np.flatnonzero(is_text)):
            rows[i] = values[starts[k]:starts[k + 1]]
    empty = np.zeros(0)
    rows = [empty if r is None else r for r in rows]
    counts = np.fromiter(map(len, rows), dtype=np.int64, count=n)
    return counts, (np.concatenate(rows) if n else empty)


def encode_trace(history: Sequence[Sequence[float]], n_players: int) -> list[tuple[float, ...]]:
    """Per seat, the tuple of its scores after each step: ``history[t][seat]`` -> ``out[seat][t]``
    (``[(0, 3, 3, 7), ...]``), the values as given (whole numbers stay ``int``).  This is the
    ``score_trace`` metric a title returns for each seat; the run stores the column as an Arrow
    list column (:mod:`analyser.engine.traces`).  Tuples, not lists: the garbage collector skips a tuple
    of numbers, which matters for a batch of thousands of rows.  An empty history gives empty
    tuples.  Raises ValueError when a step holds fewer than ``n_players`` scores."""
    if not history:
        return [()] * n_players
    out = list(zip(*history))[:n_players]
    if len(out) < n_players:
        raise ValueError(f"a score trace needs a score for each of the {n_players} seats at every step; a step "
                         f"holds {len(out)}")
    return out
