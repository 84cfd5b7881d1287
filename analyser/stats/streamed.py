"""Reports of any size: a run's tables read chunk by chunk, reduced to small additive sums.

A run folder holds its results as Parquet parts (:mod:`analyser.run.store`).  The report never loads
them whole: :func:`iter_chunks` reads only the columns it needs, part by part, and hands on
*chunks* of whole games (every seat of each game) cut at fixed game-index boundaries -
``CHUNK_GAMES`` games per chunk - whatever the batch size of the run.  Each chunk is reduced to
small additive frames (the core figures in :mod:`analyser.report.summaries`, the title figures by
``Game.figure_sums``), and the chunks' frames are combined in game order by
:func:`combine_sums`.  Since the chunks are the same for any ``--jobs``, batch size or backend,
so is every floating-point sum, and the report is identical too.

Memory is bounded by one chunk plus one part, not by the number of games.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Iterable, Iterator

import numpy as np
import pandas as pd

from analyser.engine.core import InputError
from analyser.io.validate import validate_config
from analyser.run import store
from analyser.run.read import check_parts, title_and_config
from analyser.run.store import read_part_table

#: Games per chunk.  Fixed (not tied to the run's batches) so that sums are identical for any
#: batch size; small enough that a chunk of a title with a large extra table (one row per round
#: and seat, some 60 rows per game) stays a few tens of MB.
CHUNK_GAMES = 10_000


def _combine_frames(a: pd.DataFrame, b: pd.DataFrame) -> pd.DataFrame:
    """``a`` and ``b`` added cell by cell (missing cells count 0); ``*_max`` / ``*_min`` columns
    by max / min."""
    if a is None or len(a.columns) == 0 and len(a) == 0:
        return b
    if b is None or len(b.columns) == 0 and len(b) == 0:
        return a
    index = a.index.union(b.index, sort=False) if not a.index.equals(b.index) else a.index
    try:
        index = index.sort_values()
    except TypeError:  # mixed types that do not sort: keep first-seen order
        pass
    cols = list(dict.fromkeys(list(a.columns) + list(b.columns)))
    if _numeric(a) and _numeric(b):  # (sums always are: every column at once)
        x, y = _values_on(a, index, cols), _values_on(b, index, cols)
    else:
        x, y = (np.column_stack([_column_on(f, index, c) for c in cols]) if cols else np.zeros((len(index), 0))
                for f in (a, b))
    names = [str(c) for c in cols]
    top = np.array([n.endswith("_max") for n in names], dtype=bool)
    low = np.array([n.endswith("_min") for n in names], dtype=bool) & ~top
    total = np.where(np.isnan(x), 0.0, x) + np.where(np.isnan(y), 0.0, y)
    total[:, top] = np.fmax(x[:, top], y[:, top])
    total[:, low] = np.fmin(x[:, low], y[:, low])
    out = {}
    for j, c in enumerate(cols):
        out[c] = total[:, j]
        whole = all(pd.api.types.is_integer_dtype(f[c]) for f in (a, b) if c in f.columns)
        if whole and not np.isnan(out[c]).any() and np.all(np.abs(out[c]) < 2 ** 53):
            out[c] = out[c].astype(np.int64)  # counts stay whole numbers (shown as such)
    return pd.DataFrame(out, index=index, columns=cols)


def _numeric(f: pd.DataFrame) -> bool:
    """Whether every column of ``f`` is a numpy number (or bool) column, and their names unique."""
    return f.columns.is_unique and all(isinstance(t, np.dtype) and t.kind in "biuf" for t in f.dtypes)


def _values_on(f: pd.DataFrame, index: pd.Index, cols: list) -> np.ndarray:
    """``f``'s values as floats on the rows ``index`` and the columns ``cols`` (a missing cell NaN)."""
    if not f.index.equals(index):
        f = f.reindex(index)
    if list(f.columns) != cols:
        f = f.reindex(columns=cols)
    return f.to_numpy(dtype=float)


def _column_on(f: pd.DataFrame, index: pd.Index, c) -> np.ndarray:
    """``f[c]`` as floats on the rows ``index`` (all NaN when ``f`` has no column ``c``)."""
    if c not in f.columns:
        return np.full(len(index), np.nan)
    col = f[c]
    return (col if f.index.equals(index) else col.reindex(index)).to_numpy(dtype=float)


def combine_sums(a: dict | None, b: dict | None) -> dict:
    """Two chunks' sums (``{name: DataFrame}``, see ``Game.figure_sums``) as one: frames of the
    same name added cell by cell over the union of their index and columns (a missing cell counts
    0); a column named ``*_max`` or ``*_min`` combined by max or min (NaN ignored).  The result's
    index is sorted.  A column that is whole numbers in both frames stays int64; others come back
    as float64."""
    a, b = a or {}, b or {}
    return {name: _combine_frames(a[name], b[name]) if name in a and name in b else a.get(name, b.get(name))
            for name in dict.fromkeys([*a, *b])}


def reduce_sums(parts: Iterable[dict]) -> dict:
    """:func:`combine_sums` over an iterable of chunk sums, in order."""
    return functools.reduce(combine_sums, parts, {})


def game_ids(df: pd.DataFrame) -> pd.DataFrame:
    """The (``run_id``, ``game_index``) columns that name each row's game (``run_id`` absent in
    hand-made tables)."""
    return df[[c for c in ("run_id", "game_index") if c in df.columns]]


def chunk_frame(results: pd.DataFrame, extras: dict | None = None,
                chunk_games: int = CHUNK_GAMES) -> Iterator[tuple[pd.DataFrame, dict]]:
    """An in-memory results frame (and its extra tables) as chunks of whole games: games with
    ``game_index // chunk_games`` equal (per run, runs in order of first appearance) form one
    chunk, in order.  Yields ``(results_chunk, extras_chunk)``."""
    extras = extras or {}
    if not len(results):
        return
    run = (results["run_id"].astype(str).to_numpy() if "run_id" in results.columns
           else np.zeros(len(results), dtype=object))
    block = results["game_index"].to_numpy() // chunk_games
    runs = pd.Categorical(run, categories=list(dict.fromkeys(run))).codes
    if runs.max() > 0:
        for name, frame in extras.items():
            if frame is not None and len(frame) and "run_id" not in frame.columns:
                raise InputError(f"the {name} table has no run_id column, but the results join several runs; "
                                 f"give each {name} row the run_id of its game (as analyser writes it)")
    order = pd.DataFrame({"run": runs, "block": block})
    for (r, b), idx in order.groupby(["run", "block"], sort=True).indices.items():
        chunk = results.iloc[idx]
        ext = {}
        for name, frame in extras.items():
            if frame is None or not len(frame):
                continue
            m = frame["game_index"].to_numpy() // chunk_games == b
            if "run_id" in frame.columns and "run_id" in results.columns:
                m &= frame["run_id"].astype(str).to_numpy() == run[idx[0]]
            ext[name] = frame[m]
        yield chunk, ext


def quantile_from_counts(values, counts, q: float) -> float:
    """The ``q`` quantile (0-1) of data given as distinct ``values`` with their ``counts``, by
    linear interpolation between order statistics - the same number as ``numpy.quantile`` /
    ``pandas.Series.quantile`` on the data written out.  NaN for no data."""
    v = np.asarray(values, dtype=float)
    c = np.asarray(counts, dtype=float)
    keep = c > 0
    v, c = v[keep], c[keep]
    if not len(v):
        return float("nan")
    order = np.argsort(v, kind="stable")
    v, c = v[order], c[order]
    cum = np.cumsum(c)  # cum[i] - 1 is the 0-based position of the last copy of v[i]
    h = (cum[-1] - 1) * q
    lo = np.floor(h)
    i = int(np.searchsorted(cum, lo + 1))  # the value at position lo
    j = int(np.searchsorted(cum, lo + 2)) if lo + 1 <= cum[-1] - 1 else i
    return float(v[i] + (h - lo) * (v[j] - v[i]))


def box_stats_from_counts(values, counts, label: str = "", whis: float = 1.5) -> dict:
    """The numbers matplotlib's ``Axes.bxp`` draws for one box (quartiles, median, whiskers at the
    most extreme values within ``whis`` IQR, outliers as distinct values, mean), from distinct
    ``values`` and their ``counts`` - the box ``Axes.boxplot`` would draw of the data written
    out."""
    v = np.asarray(values, dtype=float)
    c = np.asarray(counts, dtype=float)
    keep = (c > 0) & ~np.isnan(v)
    v, c = v[keep], c[keep]
    q1, med, q3 = (quantile_from_counts(v, c, q) for q in (0.25, 0.5, 0.75))
    iqr = q3 - q1
    lo_fence, hi_fence = q1 - whis * iqr, q3 + whis * iqr
    inside = v[(v >= lo_fence) & (v <= hi_fence)]
    return {"label": label, "q1": q1, "med": med, "q3": q3, "iqr": iqr,
            "whislo": min(float(inside.min()), q1) if len(inside) else q1,
            "whishi": max(float(inside.max()), q3) if len(inside) else q3,
            "fliers": np.sort(v[(v < lo_fence) | (v > hi_fence)]),
            "mean": float(np.sum(v * c) / np.sum(c)) if len(v) else float("nan")}


def read_part(path, drop: tuple[str, ...] = ()) -> pd.DataFrame:
    """One Parquet part as a frame, without the ``drop`` columns; text as categories, a list
    column (the score traces) as one numpy array per row.  Raises InputError (one line) when it
    cannot be read."""
    return table_frame(read_part_table(path, drop=drop))  # its pandas metadata checked, then left out


def table_frame(table) -> pd.DataFrame:
    """A part's arrow table (read as :func:`analyser.run.store.read_part_table` reads it) as the
    frame :func:`read_part` gives: text as categories, a list column as one array per row."""
    import pyarrow as pa

    lists = {f.name for f in table.schema if pa.types.is_list(f.type) or pa.types.is_large_list(f.type)}
    df = table.to_pandas()
    del table
    for c in df.columns:
        if df[c].dtype == object and c not in lists:  # (a score trace stays one array per row)
            df[c] = df[c].astype("category")
    return df


def run_strategies(folder) -> list[str]:
    """The strategy names of a run folder's parts, in order of first appearance (reads only the
    ``strategy`` column)."""
    names: dict[str, None] = {}
    for p in store.part_files(folder / store.RESULTS):
        table = store.read_part_table(p, ["strategy"])
        if "strategy" not in table.column_names:
            raise InputError(f"part {str(p)!r} lacks the column 'strategy'; it is not an analyser part")
        col = table.column("strategy")
        for chunk in col.chunks:
            values = chunk.dictionary if hasattr(chunk, "dictionary") else chunk.unique()
            for v in values.to_pylist():
                names.setdefault(str(v), None)
    return list(names)


def read_checked_part(path, drop: tuple[str, ...] = (), run_id: str | None = None) -> pd.DataFrame:
    """:func:`read_part` of a results part whose games lie within the games its footer names and,
    with ``run_id`` (the run its folder's config.json names), whose rows are all of that run.
    Raises InputError (one line naming the part) for a part changed by hand or copied in from
    another run."""
    df = read_part(path, drop)
    if len(df) and isinstance(run_id, str) and "run_id" in df.columns:
        store.check_part_run(path, df["run_id"].astype(str).unique(), run_id)
    if len(df):
        rng = store.part_range(path)
        lo, hi = int(df["game_index"].min()), int(df["game_index"].max())
        if rng is not None and not (rng[0] <= lo and hi < rng[1]):
            raise InputError(f"part {str(path)!r} holds games {lo} to {hi}, outside the games {rng[0]} to "
                             f"{rng[1] - 1} its footer names: a part changed by hand; remove it")
    return df


def iter_run_chunks(folder, extra_names=(), chunk_games: int = CHUNK_GAMES,
                    drop: tuple[str, ...] = (), run_id: str | None = None) -> Iterator[tuple[pd.DataFrame, dict]]:
    """A run folder's results (and its extra tables) as chunks of whole games, part by part:
    games with ``game_index // chunk_games`` equal form one chunk, in game order.  Holds at most
    one chunk and one part in memory.  Yields ``(results_chunk, extras_chunk)``.  Each part is
    read by :func:`read_checked_part` (with ``run_id``: of that run only)."""
    folder = Path(folder)
    parts = store.part_files(folder / store.RESULTS)
    buf: list[pd.DataFrame] = []
    ext_buf: dict[str, list[pd.DataFrame]] = {n: [] for n in extra_names}
    ext_files = {n: {p.name: p for p in store.part_files(folder / str(n))} if (folder / str(n)).is_dir() else {}
                 for n in extra_names}

    def emit(upto: int | None):
        """Chunks of the buffer whose block is below ``upto`` (all when None)."""
        nonlocal buf, ext_buf
        if not buf:
            return
        df = pd.concat(buf, ignore_index=True) if len(buf) > 1 else buf[0]
        ext = {n: (pd.concat(v, ignore_index=True) if len(v) > 1 else v[0]) for n, v in ext_buf.items() if v}
        blocks = df["game_index"].to_numpy() // chunk_games
        ready = blocks < upto if upto is not None else np.ones(len(df), dtype=bool)
        if not ready.any():
            buf, ext_buf = [df], {n: ([ext[n]] if n in ext else []) for n in ext_buf}
            return
        done, rest = df[ready], df[~ready]
        ext_blocks = {n: f["game_index"].to_numpy() // chunk_games for n, f in ext.items()}
        for b in pd.unique(blocks[ready]):
            sel = blocks[ready] == b
            yield done[sel], {n: f[ext_blocks[n] == b] for n, f in ext.items()}
        buf = [rest] if len(rest) else []
        ext_buf = {n: ([ext[n][ext_blocks[n] >= upto]] if n in ext and upto is not None else [])
                   for n in ext_buf}

    for p in parts:
        df = read_checked_part(p, drop, run_id)
        if not len(df):
            continue
        buf.append(df)
        for n in extra_names:
            q = ext_files[n].get(p.name)
            if q is not None:
                e = read_part(q, drop)
                if len(e):
                    ext_buf[n].append(e)
        yield from emit(int(df["game_index"].min()) // chunk_games)
    yield from emit(None)


def strategy_order(results: pd.DataFrame) -> np.ndarray:
    """Per row, a key whose minimum over a strategy's rows gives the run's order of strategies
    (the category position when ``strategy`` is categorical, else first appearance: game index,
    then seat).  A title keeps it in its sums as an ``order_min`` column, so that
    ``figure_tables_from`` can list strategies in run order after :func:`combine_sums` has
    sorted the index."""
    s = results["strategy"]
    if hasattr(s, "cat"):
        return s.cat.codes.to_numpy(dtype=np.int64)
    return results["game_index"].to_numpy(dtype=np.int64) * 1000 + results["seat"].to_numpy(dtype=np.int64)


def open_run(out: Path):
    """A run folder with Parquet parts, opened for a streamed report without reading its whole
    table: ``(game, config, strategies)`` - the strategies in the order of the config's lineup,
    then of first appearance.  The config is checked against the first part.  Raises
    InputError."""
    out = Path(out)
    holder = store.holder_of(out)
    if holder is not None:
        raise InputError(f"{str(out)!r} is still being written by a run (PID {holder[0]} on {holder[1]}); report it "
                         "when the run has finished")
    parts = store.part_files(out / store.RESULTS)
    head = read_part(parts[0], ("game_seed",))
    game, config = title_and_config(head, out, out / store.RESULTS)
    run_id = config.get("run_id") if isinstance(config, dict) else None
    if isinstance(run_id, str) and "run_id" in head.columns:  # (as resume says it: the first part named)
        store.check_part_run(parts[0], head["run_id"].astype(str).unique(), run_id)
    if (out / "config.json").exists():
        validate_config(config, head, game, out / "config.json", out / store.RESULTS)
    check_parts(out, game, config)
    seen = run_strategies(out)
    order = [s for s in (config.get("strategies") or []) if isinstance(s, str) and s in set(seen)]
    return game, config, list(dict.fromkeys(order + seen))
