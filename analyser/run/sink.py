"""Where finished batches go: the sink that writes each batch as Parquet parts (or keeps it in
memory), and the conversion of a batch into its slice of the tidy results frame and extra tables.

Rows are sorted by ``(game_index, seat)`` within each batch, and batches are kept in game order,
so a run is identical whatever ``--jobs`` or batch size produced it.  :func:`write_csv` and
:func:`write_results` write a finished run's CSV files and a run kept in memory.
"""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from analyser.csvsafe import to_csv
from analyser.run import store
from analyser.runner import ROW_FIELDS, BatchResult

if TYPE_CHECKING:
    from analyser.run.execute import RunResult


def tables_to_frame(tables: list) -> pd.DataFrame:
    """Arrow tables of one run (in game order) -> one pandas frame; text columns written as
    categories come back as categories with one shared set of categories."""
    import pyarrow as pa
    tables = [t for t in tables if t.num_rows]
    if not tables:
        return pd.DataFrame()
    return pa.concat_tables(tables, promote_options="permissive").to_pandas()


class _Sink:
    """Where finished batches go: Parquet parts in ``out`` (with config.json rewritten after each
    part), or arrow tables in memory when there is no ``out``."""

    def __init__(self, out: Path | None, config: dict, done: dict[int, tuple[int, int]]):
        self.out = out
        self.config = config
        self.done = dict(done)
        self.tables: dict[str, list] = {}

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
    cols = list(ROW_FIELDS) + list(game.metric_columns)
    df = (pd.DataFrame(b.columns, columns=cols) if b.columns is not None
          else pd.DataFrame.from_records(b.rows, columns=cols))
    names = list(dict.fromkeys(strategies))
    df["strategy"] = pd.Categorical([strategies[int(i)] for i in df["strategy"]], categories=names)
    df["game_seed"] = df["game_seed"].astype("uint64")
    for c in ("game_index", "seat", "rank"):
        df[c] = df[c].astype("int64")
    df["win"] = df["win"].astype("float64")
    df = df.sort_values(["game_index", "seat"], kind="stable").reset_index(drop=True)
    front = pd.DataFrame({"run_id": pd.Categorical([run_id] * len(df)),
                          "game": pd.Categorical([game.id] * len(df))})
    df.insert(2, "players", np.full(len(df), players, dtype="int64"))
    rule_cols = {}
    for k, v in params.as_dict().items():
        if k in df.columns:
            raise RuntimeError(f"rule option {k!r} collides with a result column")
        rule_cols[k] = pd.Categorical([v] * len(df)) if isinstance(v, str) else np.full(len(df), v)
    ident = ["game_index", "game_seed", "players", "seat", "strategy"]
    df = pd.concat([front, df[ident], pd.DataFrame(rule_cols, index=df.index), df.drop(columns=ident)], axis=1)
    extra_frames = {}
    for name, recs in b.extras.items():
        if not recs:
            continue
        frame = pd.DataFrame.from_records(recs)
        if {"game_index", "seat"} <= set(frame.columns):
            # each row also names its run, game seed and strategy, so the table stands on its own
            keys = df[["run_id", "game_index", "game_seed", "seat", "strategy"]]
            frame = frame.merge(keys, on=["game_index", "seat"], how="left", validate="many_to_one")
            first = [c for c in ("run_id", "game_index", "game_seed", "round", "seat", "strategy") if c in frame]
            frame = frame[first + [c for c in frame.columns if c not in first]]
        frame = frame.sort_values([c for c in ("game_index", "round", "seat") if c in frame.columns],
                                  kind="stable").reset_index(drop=True)
        extra_frames[name] = compact(frame)
    if b.components is not None:
        from analyser.core import COMPONENTS
        extra_frames[str(COMPONENTS)] = components_frame(b.components, run_id)
    return df, extra_frames


def components_frame(cols: dict, run_id: str) -> pd.DataFrame:
    """A batch's components table (:func:`analyser.runner.component_columns`) as a frame:
    ``run_id``, ``game_index`` (int64), ``seat`` (int32), ``component`` (category), ``count``
    (int32), ordered by game, seat and component."""
    from analyser.runner import component_rows, unpack

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
    df, extras = batch_frames(game, params, players, strategies, b, run_id)
    out = {name: pa.Table.from_pandas(f, preserve_index=False) for name, f in extras.items()}
    for name in game.extra_tables:  # every batch has a part of each extra table, maybe empty
        out.setdefault(name, pa.table({"game_index": pa.array([], pa.int64())}))
    out[store.RESULTS] = pa.Table.from_pandas(df, preserve_index=False)
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
                    t = store.read_part_table(p)  # a resumed folder's parts may be anyone's
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


def write_results(result: RunResult, out: Path, csv: bool = False) -> list[Path]:
    """Write a run kept in memory into ``out`` in the run-folder layout (parts, config.json, and
    ``results.csv`` with ``csv``).  A run that was written with ``out`` already is there; then only
    the CSV files are written."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    if result.out is None or Path(result.out).resolve() != out.resolve():
        import pyarrow as pa
        df = result.results
        if len(df):
            first, last = int(df["game_index"].iloc[0]), int(df["game_index"].iloc[-1])
            written.append(store.write_part(pa.Table.from_pandas(df, preserve_index=False),
                                            out / store.RESULTS, first, last + 1))
            for name, frame in result.extras.items():
                written.append(store.write_part(pa.Table.from_pandas(frame, preserve_index=False),
                                                out / name, first, last + 1))
        store.write_json_atomic(out / "config.json", result.config)
        written.append(out / "config.json")
    if csv:
        written += write_csv(out, list(result.extras) if result.out is None else
                             [p.name for p in out.iterdir() if p.is_dir() and p.name != store.RESULTS])
    return written
