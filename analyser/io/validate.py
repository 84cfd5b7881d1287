"""Validating results tables, which are untrusted input: the column names and types a title's
results schema asks for, then every cell (finite numbers, whole where whole numbers are needed,
bounds, labels and score traces), then the table as a whole (seats, ranks, wins adding up to 1),
and the ``config.json`` (:mod:`analyser.io.records`) and extra tables beside it.  Each check raises InputError with one line
naming the file, the column, the first bad row and what the column takes; cell text is never
quoted.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from analyser.engine import traces
from analyser.engine.core import InputError, Metric
from analyser.io.records import RunRecord, check_record


def _kind_of(dtype) -> str:
    """``"int"``, ``"float"``, ``"bool"``, ``"text"``, ``"list"`` (a pyarrow list of numbers: a
    score trace) or ``"other"`` for a pandas dtype or a
    pyarrow DataType (so a schema can be checked before a lazily read table is loaded)."""
    import pyarrow as pa
    if isinstance(dtype, pa.DataType):
        if pa.types.is_dictionary(dtype):
            dtype = dtype.value_type
        if pa.types.is_boolean(dtype):
            return "bool"
        if pa.types.is_integer(dtype):
            return "int"
        if pa.types.is_floating(dtype):
            return "float"
        if pa.types.is_string(dtype) or pa.types.is_large_string(dtype):
            return "text"
        if pa.types.is_null(dtype):
            return "float"  # all missing
        if pa.types.is_list(dtype) or pa.types.is_large_list(dtype):
            return "list" if _kind_of(dtype.value_type) in ("int", "float") else "other"
        return "other"
    if isinstance(dtype, pd.CategoricalDtype):
        return _kind_of(dtype.categories.dtype) if len(dtype.categories) else "text"
    if pd.api.types.is_bool_dtype(dtype):
        return "bool"
    if pd.api.types.is_integer_dtype(dtype):
        return "int"
    if pd.api.types.is_float_dtype(dtype):
        return "float"
    if pd.api.types.is_string_dtype(dtype) or dtype == object:
        return "text"
    return "other"


_ACCEPTS = {"whole": {"int", "float"}, "count": {"int", "float"}, "number": {"int", "float"},
            "share": {"int", "float"}, "label": {"text", "int"}, "flag": {"bool", "int"},
            "trace": {"text", "int", "float", "list"}}


#: What a cell of each kind is called in a message.
_HELD = {"text": "text", "bool": "a true/false value", "int": "a number", "float": "a number"}


def _cell_kind(value) -> str | None:
    """The kind of one cell (None when missing): a value a CSV file gave as text counts as the
    number or true/false it spells, since a CSV file has no types."""
    if value is None or (isinstance(value, float) and value != value):
        return None
    if isinstance(value, (bool, np.bool_)):
        return "bool"
    if isinstance(value, (int, np.integer)):
        return "int"
    if isinstance(value, (float, np.floating)):
        return "float"
    if isinstance(value, str):
        t = value.strip()
        if t.lower() in ("true", "false"):
            return "bool"
        try:
            float(t)
        except ValueError:
            return "text"
        return "int" if t.lstrip("+-").isdigit() else "float"
    return "other"


def _first_wrong_cell(series: pd.Series, ok: set[str]) -> tuple[int, str] | None:
    """(row counted from 1, what it holds) of the first cell whose kind a column does not take."""
    values = series.astype(object).to_numpy() if isinstance(series.dtype, pd.CategoricalDtype) else series.to_numpy()
    for k, value in enumerate(values):
        kind = _cell_kind(value)
        if kind is not None and kind not in ok:
            return k + 1, _HELD.get(kind, "a value of another type")
    return None


def validate_columns(columns: dict[str, Any], game, path, schema=None, what: str | None = None,
                     frame: pd.DataFrame | None = None) -> None:
    """Check the column names and types of a results table against ``game.results_schema()``.

    ``columns`` maps each column name to its pandas dtype or pyarrow DataType (``dict(zip(
    schema.names, schema.types))`` for a pyarrow schema, ``df.dtypes.to_dict()`` for a frame), so
    this runs before any row is loaded.  Raises InputError naming the file, the column and what
    it takes, and, when the rows are at hand (``frame``), the first row that does not fit
    (counted from 1 after the header; its text never quoted).  Columns the schema does not know
    are ignored; a results table that lacks only metric columns of the title, and holds no column
    the title does not know, is one of an older version (one with columns of its own is another
    title's).  ``schema`` (``[(Metric, required)]``) and ``what`` (e.g. ``"rounds table"``)
    check another table of the title.
    """
    schema = game.results_schema() if schema is None else schema
    missing = [str(c) for c, required in schema if required and c not in columns]
    metrics = {str(c) for c in game.metric_columns}
    foreign = {str(c) for c in columns} - {str(c) for c, _ in schema}  # (another title's metrics)
    if missing and what is None and set(missing) <= metrics and not foreign:
        raise InputError(f"{str(path)!r} was written by an older version of analyser, which this one does not "
                         f"read: it lacks the column{'s' if len(missing) > 1 else ''} {', '.join(missing)}; "
                         "run it again")
    if missing:
        raise InputError(f"{str(path)!r} is not a {game.id} {what or 'results table'}: it lacks the column"
                         f"{'s' if len(missing) > 1 else ''} {', '.join(missing)} (see docs/results.md, What a run writes)")
    for col, _ in schema:
        if col not in columns:
            continue
        kind = _kind_of(columns[col])
        ok = _ACCEPTS[col.kind] | ({"float"} if col.missing else set())
        if kind not in ok:
            wrong = _first_wrong_cell(frame[col], ok) if frame is not None and col in frame.columns else None
            if wrong is not None:
                raise InputError(f"{str(path)!r}: column {str(col)!r}: row {wrong[0]} holds {wrong[1]}; it takes "
                                 f"{col.accepts()}")
            held = {"text": "text", "bool": "true/false values", "int": "numbers", "float": "numbers"}.get(
                kind, "values of another type")
            raise InputError(f"{str(path)!r}: column {str(col)!r} holds {held}; it takes {col.accepts()}")


def _first_row(mask) -> int:
    """Position of the first True of a boolean array (rows are numbered from 1 in messages)."""
    return int(np.flatnonzero(np.asarray(mask))[0]) + 1


def _check_values(df: pd.DataFrame, schema, path) -> None:
    """Check every cell of the schema's columns (their types already checked): labels non-empty
    and short, flags 0/1, numbers finite (or missing where allowed), whole where whole numbers
    are needed, within their bounds.  Raises InputError naming the column and the first bad row;
    a number is shown, text never is."""
    where = repr(str(path))
    for col, _ in schema:
        if col not in df.columns:
            continue
        s = df[col]
        if col.kind == "label":
            if isinstance(s.dtype, pd.CategoricalDtype):
                s = s.astype(object)
            as_text = s.astype(str)
            empty = s.isna().to_numpy() | (as_text.str.strip() == "").to_numpy()
            if empty.any() and not col.missing:
                raise InputError(f"{where}: column {str(col)!r}: row {_first_row(empty)} is empty; "
                                 f"it takes {col.accepts()}")
            long = (as_text.str.len() > 1000).to_numpy()
            if long.any():
                raise InputError(f"{where}: column {str(col)!r}: row {_first_row(long)} holds text longer than "
                                 "1,000 characters")
            continue
        if col.kind == "trace":
            bad, present = traces.check(s)
            if bad.any():
                raise InputError(f"{where}: column {str(col)!r}: row {_first_row(bad)} is not "
                                 f"a score trace; it takes {col.accepts()}")
            if not col.missing and not present.all():
                raise InputError(f"{where}: column {str(col)!r}: row {_first_row(~present)} is empty; "
                                 f"it takes {col.accepts()}")
            continue
        if col.kind == "flag":
            if _kind_of(s.dtype) == "int" and not s.isin([0, 1]).all():
                raise InputError(f"{where}: column {str(col)!r}: row {_first_row(~s.isin([0, 1]))} is not 0 or 1; "
                                 f"it takes {col.accepts()}")
            continue
        nan = pd.isna(s).to_numpy()
        if nan.any() and not col.missing:
            raise InputError(f"{where}: column {str(col)!r}: row {_first_row(nan)} is empty; it takes {col.accepts()}")
        v = s.to_numpy()[~nan] if nan.any() else s.to_numpy()
        if v.dtype.kind == "f":
            bad = ~np.isfinite(v)
            if bad.any():
                raise InputError(f"{where}: column {str(col)!r}: row {_first_row(_lift(bad, nan))} is "
                                 f"{v[bad][0]}; it takes {col.accepts()}")
            if col.kind in ("whole", "count"):
                bad = v != np.floor(v)
                if bad.any():
                    raise InputError(f"{where}: column {str(col)!r}: row {_first_row(_lift(bad, nan))} is "
                                     f"{v[bad][0]:g}, not a whole number; it takes {col.accepts()}")
        low = col.low if col.low is not None else (0 if col.kind in ("count", "share") else None)
        high = col.high if col.high is not None else (1 if col.kind == "share" else None)
        for bad in ((v < low) if low is not None else None, (v > high) if high is not None else None):
            if bad is not None and bad.any():
                raise InputError(f"{where}: column {str(col)!r}: row {_first_row(_lift(bad, nan))} is "
                                 f"{v[bad][0]:g}; it takes {col.accepts()}")


def validate_results(df: pd.DataFrame, game, path) -> None:
    """Validate a results frame against ``game.results_schema()`` before any work is done on it.

    Checks: every required column present with the right type (:func:`validate_columns`);
    numbers finite and whole where whole numbers are needed, within their bounds; labels
    non-empty; one player count; seats ``0..players-1`` exactly once per game; ranks from 1 to
    players; wins (1/k for a k-way shared win) adding up to 1 in every game.  Raises
    InputError: one line naming the file, the column, the first bad row (counted from 1, after
    the header) and what the column takes.  Cell text is never quoted.
    """
    schema = game.results_schema()
    validate_columns(df.dtypes.to_dict(), game, path, schema, frame=df)
    _check_values(df, schema, path)
    where = repr(str(path))
    if df["players"].nunique() > 1:
        raise InputError(f"{where}: column 'players': the table mixes player counts "
                         f"({', '.join(map(str, sorted(df['players'].unique())))}); report one player count at a time")
    players = int(df["players"].iloc[0])
    for name, top in (("seat", players - 1), ("rank", players)):
        bad = (df[name] > top).to_numpy()
        if bad.any():
            raise InputError(f"{where}: column {name!r}: row {_first_row(bad)} is {df[name].to_numpy()[bad][0]}; "
                             f"with {players} players it takes at most {top}")
    keys = (["run_id"] if "run_id" in df.columns else []) + ["game_index"]
    dup = df.duplicated(keys + ["seat"]).to_numpy()
    if dup.any():
        raise InputError(f"{where}: columns {', '.join(keys + ['seat'])}: row {_first_row(dup)} repeats a game "
                         "and seat; each game has one row per seat (runs joined by hand that share a seed need "
                         "their own run_id values)")
    g = df.groupby(keys, observed=True, sort=False)

    def name(key):  # "game 3" or "game 3 of run <game>-1-0a1b2c3d"
        if isinstance(key, tuple):
            run, index = key
            return f"game {int(index)} of run {run}" if len(str(run)) <= 100 else f"game {int(index)}"
        return f"game {int(key)}"
    sizes = g["seat"].size()
    if (sizes != players).any():
        first = sizes.index[np.flatnonzero((sizes != players).to_numpy())[0]]
        raise InputError(f"{where}: column 'seat': {name(first)} has {int(sizes.loc[first])} rows; "
                         f"with {players} players each game has one row per seat")
    wins = g["win"].sum()
    off = (wins - 1.0).abs() > 1e-6
    if off.any():
        first = wins.index[np.flatnonzero(off.to_numpy())[0]]
        raise InputError(f"{where}: column 'win': the wins of {name(first)} add up to {float(wins.loc[first]):g}; "
                         "they add up to 1 in every game (1/k each for a k-way shared win)")


def _lift(bad, nan):
    """A mask over the non-missing values, spread back over all rows (missing rows False)."""
    if not nan.any():
        return bad
    out = np.zeros(len(nan), dtype=bool)
    out[np.flatnonzero(~nan)[np.asarray(bad)]] = True
    return out


def validate_chunk(df: pd.DataFrame, game, path) -> None:
    """:func:`validate_results` for one chunk of whole games of a run folder read part by part;
    the message names the chunk's games, and its row numbers count within them."""
    lo, hi = int(df["game_index"].min()), int(df["game_index"].max())
    validate_results(df, game, f"{path} (games {lo} to {hi})")


def validate_config(config, df: pd.DataFrame, game, config_path, results_path) -> None:
    """Check that ``config.json`` belongs to the results beside it: a run record
    (:class:`analyser.io.records.RunRecord`) whose title and run id agree with the table's.  A
    report's header and command come from the config, so a config of another run would
    mislead.  Raises InputError."""
    where = f"config file {str(config_path)!r}"
    check_record(RunRecord, config, where, fix="it must be the config.json of the run beside it, or be moved away")
    if config.get("game") != game.id:
        raise InputError(f"{where} is for another title than {str(results_path)!r} ({game.id}); "
                         "it must be the config.json of the run beside it, or be moved away")
    run_id = config.get("run_id")
    if run_id is None:
        raise InputError(f"{where} was written by an older version of analyser, which this one does not read; "
                         "run it again")
    if "run_id" in df.columns:
        ids = df["run_id"].astype(str).unique()
        if not (len(ids) == 1 and ids[0] == run_id):
            shown = "the run " + ids[0] if len(ids) == 1 and len(ids[0]) < 100 else f"{len(ids)} runs"
            raise InputError(f"{where} is for the run {run_id}, but {str(results_path)!r} holds "
                             f"{shown}; it must be the config.json of the run beside it, or be moved away")


def validate_extra(frame: pd.DataFrame, game, name, path, results: pd.DataFrame) -> pd.DataFrame:
    """Validate an extra table against the columns its title declares
    (:class:`~analyser.engine.core.ExtraTable`: ``game_index`` and ``seat`` always) with the same checks
    as the results, and check it belongs to the results beside it (its run ids are theirs).
    Returns the frame; raises InputError."""
    declared = [c for c in getattr(name, "columns", ()) if c not in ("game_index", "seat")]
    schema = [(c, True) for c in [Metric("game_index", "count"), Metric("seat", "count")] + declared]
    validate_columns(frame.dtypes.to_dict(), game, path, schema, what=f"{name} table", frame=frame)
    _check_values(frame, schema, path)
    if "run_id" in frame.columns and "run_id" in results.columns:
        if not set(frame["run_id"].astype(str).unique()) <= set(results["run_id"].astype(str).unique()):
            raise InputError(f"{str(path)!r}: column 'run_id': the {name} table is from another run than the results "
                             "beside it; keep a run's files together")
    return frame
