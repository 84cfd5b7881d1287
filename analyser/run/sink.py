"""Where finished batches go: the sink that writes each batch as Parquet parts (or keeps it in
memory), and the conversion of a batch into its slice of the tidy results frame and extra tables.

Rows are sorted by ``(game_index, seat)`` within each batch, and batches are kept in game order,
so a run is identical whatever ``--jobs`` or batch size produced it.  :func:`write_csv` writes
a finished run's CSV files (:func:`analyser.run.execute.write_results` writes a whole run).
"""

from __future__ import annotations

import os
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from analyser.engine import traces
from analyser.engine.core import COMPONENTS
from analyser.io.csvsafe import to_csv
from analyser.run import store
from analyser.engine.runner import BatchResult, ROW_FIELDS, component_rows, unpack


def tables_to_frame(tables: list) -> pd.DataFrame:
    """Arrow tables of one run (in game order) -> one pandas frame; text columns written as
    categories come back as categories with one shared set of categories."""
    import pyarrow as pa
    tables = [t for t in tables if t.num_rows]
    if not tables:
        return pd.DataFrame()
    return pa.concat_tables(tables, promote_options="permissive").to_pandas()


class Sink:
    """Where finished batches go: Parquet parts in ``out`` (with config.json rewritten after each
    part), or arrow tables in memory when there is no ``out``."""

    def __init__(self, out: Path | None, config: dict, done: dict[int, tuple[int, int]]):
        self.out = out
        self.config = config
        self.done = dict(done)
        self.tables: dict[str, list] = {}
        #: chunk -> ``(start, stop, sums)`` of the batches that were a whole chunk of the report
        #: (:mod:`analyser.run.packing`)
        self.pieces: dict[int, tuple] = {}

    def add(self, start: int, stop: int, tables: dict) -> None:
        """``tables``: name -> arrow table of games ``start`` to ``stop - 1`` (``results`` last)."""
        if stop <= start:
            return
        if self.out is None:
            for name, t in tables.items():
                self.tables.setdefault(name, []).append((start, t))
        else:
            # extra tables first: a results part on disk means its whole batch is there
            for name, t in tables.items():
                if name != store.RESULTS:
                    store.write_part(t, self.out / name, start, stop)
            store.write_part(tables[store.RESULTS], self.out / store.RESULTS, start, stop)
        self.done[start] = (start, stop)
        self.config["games_done"] = store.merge_ranges(self.done.values())
        self.config["games_completed"] = sum(b - a for a, b in self.done.values())
        self.save()

    def save(self) -> None:
        if self.out is not None:
            self.config["updated"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
            store.write_json_atomic(self.out / "config.json", self.config)

    def memory_tables(self) -> dict[str, list]:
        return {k: [t for _, t in sorted(v, key=lambda x: x[0])] for k, v in self.tables.items()}


def batch_frames(game, params, players, strategies, b: BatchResult, run_id: str) -> tuple[pd.DataFrame, dict]:
    """One batch's results -> its slice of the tidy results frame and of each extra table, sorted
    by game index (and seat).  Concatenating the slices of all batches in game order gives the
    run's frames."""
    columns, extra_frames = batch_columns(game, params, players, strategies, b, run_id)
    return pd.DataFrame(columns), extra_frames


def batch_columns(game, params, players, strategies, b: BatchResult, run_id: str) -> tuple[dict, dict]:
    """:func:`batch_frames` with the results as columns (name -> array, in order; a score trace
    column may be an Arrow list array), from which :func:`results_table` makes its table."""
    cols = [str(c) for c in list(ROW_FIELDS) + list(game.metric_columns)]
    if b.columns is not None:
        data = {str(k): v for k, v in traces.unpack_columns(b.columns).items()}
    else:
        frame = pd.DataFrame.from_records(b.rows, columns=cols)
        data = {c: frame[c].to_numpy() for c in cols}
    n = len(data["game_index"])
    index = np.asarray(data["game_index"]).astype("int64")
    seat = np.asarray(data["seat"]).astype("int64")
    if n > 1 and not ((index[1:] > index[:-1]) | ((index[1:] == index[:-1]) & (seat[1:] > seat[:-1]))).all():
        order = np.lexsort((seat, index))  # (a batch's rows come in order; this is the fallback)
        data = {c: (v.take(order) if hasattr(v, "take") else np.asarray(v)[order]) for c, v in data.items()}
        index, seat = index[order], seat[order]
    names = list(dict.fromkeys(strategies))
    if n:  # strategy indices -> categories (one code per lineup entry, no loop over rows)
        code_of = np.array([names.index(s) for s in strategies], dtype=np.int64)
        strategy = pd.Categorical.from_codes(code_of[np.asarray(data["strategy"]).astype(np.int64)],
                                             dtype=_dtype_of(tuple(names)))
    else:
        strategy = pd.Categorical([], categories=names)
    out = {"run_id": _same(run_id, n), "game": _same(game.id, n), "game_index": index,
           "game_seed": np.asarray(data["game_seed"]).astype("uint64"), "players": np.full(n, players, dtype="int64"),
           "seat": seat, "strategy": strategy}
    for k, v in params.as_dict().items():
        if k in data:
            raise RuntimeError(f"rule option {k!r} collides with a result column")
        out[k] = _same(v, n) if isinstance(v, str) else np.full(n, v)
    for c in cols[4:]:  # score, rank, win, then the title's metrics
        v = data[c]
        out[c] = (np.asarray(v).astype("int64") if c == "rank" else np.asarray(v).astype("float64") if c == "win"
                  else v)
    keys = None  # (the results' keys as a frame, made for the first extra table that joins them)
    extra_frames = {}
    for name, recs in b.extras.items():
        if not recs:
            continue
        # rows as {key: values} (batchrecords.as_columns), or as records
        frame = pd.DataFrame(recs) if isinstance(recs, dict) else pd.DataFrame.from_records(recs)
        if {"game_index", "seat"} <= set(frame.columns):
            # each row also names its run, game seed and strategy, so the table stands on its own
            if keys is None:
                keys = pd.DataFrame({c: out[c] for c in ("run_id", "game_index", "game_seed", "seat", "strategy")})
            frame = _with_keys(frame, keys, players)
        by = [c for c in ("game_index", "round", "seat") if c in frame.columns]
        if not _sorted(frame, by):
            frame = frame.sort_values(by, kind="stable").reset_index(drop=True)
        extra_frames[name] = compact(frame)
    if b.components is not None:
        extra_frames[str(COMPONENTS)] = components_frame(b.components, run_id)
    return out, extra_frames


def results_table(columns: dict):
    """A batch's results columns (:func:`batch_columns`) as the Arrow table
    ``pyarrow.Table.from_pandas(pandas.DataFrame(columns), preserve_index=False)``: the same
    schema, pandas metadata and values, but an Arrow list column (a score trace) is taken as it
    is instead of through one numpy array per row and back."""
    import pyarrow as pa
    lists = {c: v for c, v in columns.items() if isinstance(v, pa.ListArray) and v.null_count == 0 and len(v)}
    if lists:
        head = pa.Table.from_pandas(pd.DataFrame({c: v[:1] for c, v in columns.items()}), preserve_index=False,
                                    nthreads=1)
        rest = pa.Table.from_pandas(pd.DataFrame({c: v for c, v in columns.items() if c not in lists}),
                                    preserve_index=False, nthreads=1)
        # the first row gives the whole table's schema unless a column's first value is missing
        # (an object column of None, then text): then the slow way below
        if (all(head.schema.field(c).type == v.type for c, v in lists.items())
                and all(head.schema.field(f.name).type == f.type for f in rest.schema)):
            return pa.Table.from_arrays([lists[c] if c in lists else rest.column(c) for c in columns],
                                        schema=head.schema)
    # one thread: for frames of this size pyarrow's default starts a thread pool per call
    return pa.Table.from_pandas(pd.DataFrame(columns), preserve_index=False, nthreads=1)


def _with_keys(frame: pd.DataFrame, df: pd.DataFrame, players: int) -> pd.DataFrame:
    """An extra table's rows joined to their results rows on (game_index, seat): run_id,
    game_seed and strategy added, the columns ordered run_id, game_index, game_seed, round, seat,
    strategy, then the rest.  A batch's results hold every seat of each game in order, so a row's
    results row is found by position; otherwise (never in a run) by a pandas merge."""
    gi = frame["game_index"].to_numpy()
    seat = frame["seat"].to_numpy()
    res_gi, res_seat = df["game_index"].to_numpy(), df["seat"].to_numpy()
    pos = None
    if len(df) and len(df) % players == 0 and gi.dtype.kind in "iu" and seat.dtype.kind in "iu":
        pos = (gi.astype(np.int64) - int(res_gi[0])) * players + seat.astype(np.int64)
        if not (((pos >= 0) & (pos < len(df))).all() and (res_gi[np.clip(pos, 0, len(df) - 1)] == gi).all()
                and (res_seat[np.clip(pos, 0, len(df) - 1)] == seat).all()):
            pos = None
    if pos is None:
        keys = df[["run_id", "game_index", "game_seed", "seat", "strategy"]]
        joined = frame.merge(keys, on=["game_index", "seat"], how="left", validate="many_to_one")
    else:
        joined = {c: frame[c] for c in frame.columns}
        for c in ("run_id", "game_seed", "strategy"):
            joined[c] = df[c].array.take(pos) if c != "game_seed" else df[c].to_numpy()[pos]
    first = [c for c in ("run_id", "game_index", "game_seed", "round", "seat", "strategy") if c in joined]
    order = first + [c for c in (joined.columns if pos is None else joined) if c not in first]
    return joined[order] if pos is None else pd.DataFrame({c: joined[c] for c in order})


def _sorted(frame: pd.DataFrame, by: list[str]) -> bool:
    """True when ``frame``'s rows are in ascending order of ``by`` (lexicographic)."""
    if len(frame) < 2 or not by:
        return True
    cols = [frame[c].to_numpy() for c in by]
    if any(c.dtype.kind not in "iuf" for c in cols):
        return False
    equal = np.ones(len(frame) - 1, dtype=bool)
    ok = np.zeros(len(frame) - 1, dtype=bool)
    for c in cols:
        ok |= equal & (c[1:] > c[:-1])
        equal &= c[1:] == c[:-1]
    return bool((ok | equal).all())


def _same(text: str, n: int) -> pd.Categorical:
    """A categorical column of ``n`` rows that all hold ``text`` (built from codes: the same
    column as ``pd.Categorical([text] * n)`` without a list of ``n`` strings to factorize)."""
    if not n:
        return pd.Categorical([])
    return pd.Categorical.from_codes(np.zeros(n, dtype=np.int8), dtype=_dtype_of((text,)))


@lru_cache(maxsize=256)
def _dtype_of(categories: tuple[str, ...]) -> pd.CategoricalDtype:
    """The categorical dtype of ``categories`` (checked once, then shared by every batch)."""
    return pd.CategoricalDtype(list(categories))


def components_frame(cols: dict, run_id: str) -> pd.DataFrame:
    """A batch's components table (:func:`analyser.engine.runner.component_columns`) as a frame:
    ``run_id``, ``game_index`` (int64), ``seat`` (int32), ``component`` (category), ``count``
    (int32), ordered by game, seat and component."""
    game, seat = component_rows(cols)
    return pd.DataFrame({
        "run_id": pd.Categorical.from_codes(np.zeros(len(game), dtype=np.int8), categories=[run_id]),
        "game_index": game, "seat": seat,
        "component": pd.Categorical.from_codes(unpack(cols["code"]).astype(np.int32), categories=list(cols["labels"])),
        "count": unpack(cols["count"]).astype(np.int32)})


def compact(frame: pd.DataFrame) -> pd.DataFrame:
    """An extra table in compact dtypes: whole numbers as int32 (``game_index`` int64,
    ``game_seed`` uint64), text as categories.  Fixed types, so every part has the same schema."""
    out = {}
    for c in frame.columns:
        s = frame[c]
        if c == "game_index":
            out[c] = s.astype("int64")
        elif c == "game_seed":
            out[c] = s.astype("uint64")
        elif pd.api.types.is_bool_dtype(s):
            out[c] = s.astype("int8")
        elif pd.api.types.is_integer_dtype(s):
            out[c] = s.astype("int32")
        elif s.dtype == object or pd.api.types.is_string_dtype(s):
            out[c] = s.astype("category")
        else:
            out[c] = s
    return pd.DataFrame(out, index=frame.index)


def batch_tables(game, params, players, strategies, b: BatchResult, run_id: str) -> dict:
    """One batch as arrow tables: ``{name: table}`` for each extra table, then ``results``."""
    import pyarrow as pa
    columns, extras = batch_columns(game, params, players, strategies, b, run_id)
    out = {name: pa.Table.from_pandas(f, preserve_index=False, nthreads=1) for name, f in extras.items()}
    for name in game.extra_tables:  # every batch has a part of each extra table, maybe empty
        out.setdefault(name, pa.table({"game_index": pa.array([], pa.int64())}))
    out[store.RESULTS] = results_table(columns)
    return out


def assemble(game, params, players, strategies, batch_results, seed, run_id: str | None = None
             ) -> tuple[pd.DataFrame, dict]:
    """Batch results -> the tidy results frame and the extra frames, sorted by game index."""
    run_id = run_id or f"{game.id}-{seed}"
    frames, extras = [], {}
    for b in sorted(batch_results, key=lambda b: b.start):
        df, ex = batch_frames(game, params, players, strategies, b, run_id)
        frames.append(df)
        for name, f in ex.items():
            extras.setdefault(name, []).append(f)
    nonempty = [f for f in frames if len(f)] or frames[:1]
    df = pd.concat(nonempty, ignore_index=True) if nonempty else pd.DataFrame()
    out = {}
    for name, fs in extras.items():
        f = pd.concat(fs, ignore_index=True)
        for c in f.columns:
            if f[c].dtype == object or pd.api.types.is_string_dtype(f[c]):
                f[c] = f[c].astype("category")
        out[name] = f
    return df, out


def write_csv(out: Path, names: list[str] | None = None) -> list[Path]:
    """Write ``results.csv`` (and ``<extra>.csv``) beside a run's parts, one part at a time, so
    memory stays bounded.  Returns the files written."""
    written = []
    for name in [store.RESULTS] + list(names or []):
        parts = store.part_files(out / name)
        if not parts:
            continue
        target = out / f"{name}.csv"
        tmp = out / f".{name}.csv.tmp"
        try:
            with open(tmp, "wb") as fh:
                header = True
                for p in parts:
                    # a resumed folder's parts may be anyone's; score traces as text "0 3 3 7"
                    t = traces.table_as_text(store.read_part_table(p))
                    if not t.num_rows:
                        continue
                    # the same text as pandas' to_csv (text cells neutralised for spreadsheets),
                    # without loading the run
                    fh.write(to_csv(t.to_pandas(), index=False, header=header).encode("utf-8"))
                    header = False
            os.replace(tmp, target)
        except OSError as e:
            tmp.unlink(missing_ok=True)
            raise store.StoreError(f"cannot write {target}: {e.strerror or type(e).__name__}") from None
        written.append(target)
    return written
