"""Experiments: turn a run spec into batches, run them with joblib, gather one tidy DataFrame.

The results frame has one row per (game, seat) with the columns of DESIGN.md: ``run_id``,
``game``, ``game_index``, ``game_seed``, ``players``, ``seat``, ``strategy``, one column per rule
option, ``score``, ``rank``, ``win`` (1/k for a k-way shared win), then the title's metric
columns (``turns`` is the game length).  Rows are sorted by (game_index, seat), so a run is
identical whatever ``--jobs`` or batch size produced it.
"""

from __future__ import annotations

import json
import math
from importlib import metadata
import platform
import secrets
import signal
import threading
import warnings
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import joblib
import numpy as np
import pandas as pd

from analyser import __version__
from analyser.core import InputError
from analyser.registry import get_game, make_strategy, title_ref
from analyser.runner import ROW_FIELDS, BatchJob, plan_batches, resolve_jobs, run_batch
from analyser.userfiles import safe_worker_path


#: Most games one run may ask for (results are held in memory).
MAX_GAMES = 10_000_000
#: Games played in-process first when ``--jobs`` is automatic, to time the run.
PILOT_GAMES = 50
#: Estimated seconds below which an automatic run does not start worker processes.
SMALL_RUN_SECONDS = 2.0


@dataclass
class RunSpec:
    """Everything that defines a run.  ``seed=None`` draws a fresh seed (recorded)."""

    game: str
    strategies: list[str]
    players: int | None = None
    games: int = 2000
    seed: int | None = None
    jobs: int | None = None
    rules: dict[str, str] = field(default_factory=dict)
    batch_size: int | None = None
    game_timeout: float = 60.0
    backend: str = "loky"
    #: Play only games ``first_game`` to ``games - 1`` (a hook for the stopping rule of
    #: :mod:`analyser.stopping`, which plays a run in rounds fixed in advance).  Game ``i`` is
    #: the same game whatever ``first_game``, so rounds concatenate into one run.
    first_game: int = 0


@dataclass
class RunResult:
    """A finished (or stopped) run: the results frame, extra tables, the config record, and the
    error or interruption that stopped it."""

    results: pd.DataFrame
    extras: dict[str, pd.DataFrame]
    config: dict[str, Any]
    error: BaseException | None = None
    interrupted: bool = False


def resolve(spec: RunSpec):
    """Validate a run spec; returns (game, params, players, jobs, seed).  Raises InputError."""
    game = get_game(spec.game)
    for name in game.path_options:  # a data file named relative to here must work in workers too
        if spec.rules.get(name):
            spec.rules[name] = str(Path(spec.rules[name]).expanduser().resolve())
    params = game.Params.from_overrides(spec.rules)
    if not spec.strategies:
        from analyser.registry import default_lineup
        raise InputError(f"no --strategy given; name at least one, e.g. --strategy "
                         f"{(default_lineup(game.id) or ['random'])[0]}")
    for s in spec.strategies:
        make_strategy(s, spec.game)  # fails early, in the main process, with a one-line message
    m = len(spec.strategies)
    players = spec.players
    if players is None:  # the title's usual count; the strategies cycle over the seats
        players = max(game.default_players, min(m, game.max_players))
    game.check_players(params, players)
    if m > players:
        raise InputError(f"{m} strategies for {players} seats; give at most {players} --strategy "
                         f"or raise --players (up to {game.max_players})")
    if not 0 < spec.games <= MAX_GAMES:
        raise InputError(f"--games {spec.games} is not accepted; give a number of games from 1 to {MAX_GAMES:,}")
    if not 0 <= spec.first_game < spec.games:
        raise InputError(f"first game {spec.first_game} is not accepted; it must lie in 0 to {spec.games - 1}")
    if not (spec.game_timeout >= 0 and math.isfinite(spec.game_timeout)):
        raise InputError(f"--game-timeout {spec.game_timeout} is not accepted; give seconds > 0, or 0 for no limit")
    if spec.batch_size is not None and spec.batch_size <= 0:
        raise InputError(f"--batch-size {spec.batch_size} is not accepted; give a positive number")
    jobs = resolve_jobs(spec.jobs)
    seed = spec.seed if spec.seed is not None else secrets.randbits(63)
    if seed < 0:
        raise InputError(f"--seed {seed} is not accepted; give a whole number >= 0")
    return game, params, players, jobs, seed


def data_file_record(params) -> dict[str, dict[str, str]]:
    """Every component file the rules read, with its absolute path and SHA-256, so a run can be
    traced to the exact data it used."""
    import hashlib

    from analyser.safeio import read_bytes
    files = params.data_files() if hasattr(params, "data_files") else {}
    out = {}
    for name, path in files.items():
        try:
            digest = hashlib.sha256(read_bytes(path, f"{name} file")).hexdigest()  # bounded, regular files only
        except InputError:
            digest = "unreadable"
        out[name] = {"path": str(Path(path).resolve()), "sha256": digest}
    return out


def package_versions() -> dict[str, str]:
    """Versions of Python and the libraries a run depends on (read from package metadata, so
    nothing is imported just to ask)."""
    out = {"analyser": __version__, "python": platform.python_version(), "numpy": np.__version__,
           "pandas": pd.__version__, "joblib": joblib.__version__,
           "matplotlib": metadata.version("matplotlib"), "click": metadata.version("click"),
           "scipy": metadata.version("scipy"), "statsmodels": metadata.version("statsmodels")}
    try:
        import pyarrow
        out["pyarrow"] = pyarrow.__version__
    except ImportError:
        pass
    return out


def run(spec: RunSpec, *, progress: bool | None = None, command: str | None = None) -> RunResult:
    """Play a run and gather the results.  Never loses finished games: a strategy failure or
    Ctrl-C stops the run and the result carries the games completed so far and the error.

    ``progress``: ``None`` shows a bar only on a terminal.
    """
    from tqdm.auto import tqdm

    game, params, players, jobs, seed = resolve(spec)
    strategies = tuple(spec.strategies)
    rules = tuple(sorted(spec.rules.items()))

    def job(a: int, b: int) -> BatchJob:
        return BatchJob(title_ref(game), rules, strategies, players, seed, a, b, spec.game_timeout)

    t0 = time.perf_counter()
    started = datetime.now(timezone.utc).isoformat(timespec="seconds")
    results: list = []
    error: BaseException | None = None
    interrupted = False
    bar = tqdm(total=spec.games - spec.first_game, unit="game", desc=f"{game.id}", disable=(None if progress is None else not progress),
               leave=False, file=sys.stderr)
    start = spec.first_game
    if spec.jobs in (None, 0) and jobs > 1 and spec.games - start > PILOT_GAMES:
        # A pilot batch in this process: when the whole run is short, starting workers would cost
        # more than it saves, so the rest runs here too.  Results do not depend on it.
        pilot = run_batch(job(start, start + PILOT_GAMES))
        results.append(pilot)
        bar.update(pilot.done)
        error, interrupted = pilot.error, pilot.interrupted
        start += PILOT_GAMES
        if pilot.seconds / PILOT_GAMES * (spec.games - start) < SMALL_RUN_SECONDS:
            jobs = 1
    batches = plan_batches(spec.games, jobs, spec.batch_size, start=start)
    n_jobs = max(1, min(jobs, len(batches)))
    stop = _StopRequest(n_jobs > 1)
    errors = [error] if error is not None else []
    try:
        if not errors and not interrupted and batches:
            with stop, warnings.catch_warnings():
                # joblib warns about cancelled or unused tasks when we stop early; that is intended
                warnings.filterwarnings("ignore", category=UserWarning, module="joblib")
                with safe_worker_path(), joblib.Parallel(n_jobs=n_jobs, backend=spec.backend, pre_dispatch="n_jobs",
                                                         return_as="generator_unordered") as parallel:
                    outputs = parallel(joblib.delayed(run_batch)(job(a, b)) for a, b in batches)
                    waiting = {a for a, _ in batches}
                    try:
                        for res in outputs:
                            results.append(res)
                            waiting.discard(res.start)
                            bar.update(res.done)
                            if res.error is not None:
                                errors.append(res.error)
                            if errors:
                                # batches go out in order, so every batch that starts before the
                                # first failure is running or done: wait for those, drop the rest
                                first = min(e.game_index or 0 for e in errors)
                                if not any(a <= first for a in waiting):
                                    break
                                continue
                            if res.interrupted:
                                stop.requested = True
                            if stop.requested:
                                # keep the batches that were running when Ctrl-C came: with n
                                # workers, n - 1 others may still be finishing
                                stop.collected += 1
                                if stop.collected >= n_jobs:
                                    break
                    finally:
                        outputs.close()
    except KeyboardInterrupt:
        interrupted = True
    finally:
        bar.close()
    # the failure reported is the one in the earliest game, whatever the number of workers
    error = min(errors, key=lambda e: getattr(e, "game_index", None) or 0) if errors else None
    interrupted = (interrupted or stop.requested) and error is None
    wall = time.perf_counter() - t0
    frame, extras = assemble(game, params, players, strategies, results, seed)
    config = {
        "command": command or "", "game": game.id, "game_name": game.name, "title_source": game.source,
        "seed": seed,
        "games_requested": spec.games, "games_completed": int(frame["game_index"].nunique()) if len(frame) else 0,
        "players": players, "strategies": list(strategies), "rules": params.as_dict(),
        "rule_overrides": dict(spec.rules), "jobs": n_jobs, "batch_size": (batches[0][1] - batches[0][0]) if batches else PILOT_GAMES,
        "wall_seconds": round(wall, 3), "versions": package_versions(),
        "started": started,
        "status": "interrupted" if interrupted else ("failed" if error else "complete"),
        "error": str(error) if error else None,
        "data_files": data_file_record(params),
        "run_id": str(frame["run_id"].iloc[0]) if len(frame) else None,  # report checks the results agree
    }
    return RunResult(frame, extras, config, error, interrupted)


class _StopRequest:
    """Ctrl-C during a parallel run: the first one asks the workers' running batches to finish
    (their games are kept), a second one stops at once.  Sequential runs keep Python's default
    handling: the batch in progress catches KeyboardInterrupt and returns its finished games."""

    def __init__(self, active: bool):
        self.active = active and threading.current_thread() is threading.main_thread()
        self.requested = False
        self.collected = 0
        self.previous = None

    def __enter__(self):
        if self.active:
            self.previous = signal.signal(signal.SIGINT, self._handle)
        return self

    def _handle(self, signum, frame):
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True
        print("\nanalyser: interrupted - keeping the games in progress (Ctrl-C again to stop at once)",
              file=sys.stderr)

    def __exit__(self, *exc):
        if self.active:
            signal.signal(signal.SIGINT, self.previous)
        return False


def assemble(game, params, players, strategies, batch_results, seed) -> tuple[pd.DataFrame, dict]:
    """Batch results -> the tidy results frame and the extra frames, sorted by game index."""
    cols = list(ROW_FIELDS) + list(game.metric_columns)
    parts = [pd.DataFrame(b.columns, columns=cols) if b.columns is not None
             else pd.DataFrame.from_records(b.rows, columns=cols)
             for b in sorted(batch_results, key=lambda b: b.start)]
    parts = [p for p in parts if len(p)]
    df = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=cols)
    names = list(dict.fromkeys(strategies))
    df["strategy"] = pd.Categorical([strategies[i] for i in df["strategy"]], categories=names)
    df["game_seed"] = df["game_seed"].astype("uint64")
    for c in ("game_index", "seat", "rank"):
        df[c] = df[c].astype("int64")
    df["win"] = df["win"].astype("float64")
    df = df.sort_values(["game_index", "seat"], kind="stable").reset_index(drop=True)
    run_id = f"{game.id}-{seed}-{secrets.token_hex(4)}"  # unique per run; the seed has its own column
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
    extras = {}
    for b in sorted(batch_results, key=lambda b: b.start):
        for name, recs in b.extras.items():
            extras.setdefault(name, []).extend(recs)
    extra_frames = {}
    for name, recs in extras.items():
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
        extra_frames[name] = frame
    return df, extra_frames


def write_results(result: RunResult, out: Path, csv: bool = False) -> list[Path]:
    """Write ``results.parquet`` (and ``results.csv``), extra tables and ``config.json`` into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    p = out / "results.parquet"
    result.results.to_parquet(p, index=False)
    written.append(p)
    if csv:
        p = out / "results.csv"
        result.results.to_csv(p, index=False)
        written.append(p)
    for name, frame in result.extras.items():
        p = out / f"{name}.parquet"
        frame.to_parquet(p, index=False)
        written.append(p)
        if csv:
            p = out / f"{name}.csv"
            frame.to_csv(p, index=False)
            written.append(p)
    p = out / "config.json"
    p.write_text(json.dumps(result.config, indent=2, default=str) + "\n")
    written.append(p)
    return written


def load_results(path: Path) -> tuple[pd.DataFrame, dict[str, pd.DataFrame], dict]:
    """Read a results file (Parquet or CSV) or a run folder, with its extras and config.json.

    The table is validated against its title's results schema (:func:`validate_results`) and
    the config against the table (:func:`validate_config`) before anything else uses them; the
    title's extra tables found beside it are validated too (:func:`validate_extra`).  Raises
    InputError (one line naming the file, the column and the problem) otherwise.
    """
    from analyser.safeio import check_regular_file, read_json

    path = Path(path)
    folder = path if path.is_dir() else path.parent
    if path.is_dir():
        path = folder / "results.parquet" if (folder / "results.parquet").exists() else folder / "results.csv"
    if not path.exists():
        raise InputError(f"results file {str(path)!r} does not exist; give a results.parquet, results.csv "
                         "or the run folder")
    check_regular_file(path, "results file")
    df = _read_table(path, "results file")
    if "game" not in df.columns:
        raise InputError(f"{str(path)!r} is not an analyser results table; it lacks the column 'game' "
                         "(see README: What a run writes)")
    if df.empty:
        raise InputError(f"{str(path)!r} holds no games (a header and no rows)")
    games = df["game"].dropna().astype(str).unique()
    if len(games) != 1 or df["game"].isna().any():
        raise InputError(f"{str(path)!r}: column 'game': every row must name the same title; "
                         f"{'some rows name none' if len(games) <= 1 else f'{len(games)} titles are mixed'}; "
                         "report one title at a time")
    config = {}
    if (folder / "config.json").exists():
        config = read_json(folder / "config.json", "config file", max_bytes=10_000_000)
    title = str(games[0])
    # a title from a file is loaded again from its file (recorded by the run that made the table)
    source = config.get("title_source") if isinstance(config, dict) and config.get("game") == title else None
    from analyser.registry import game_ids
    if not isinstance(source, str) and title not in game_ids():
        raise InputError(f"{str(path)!r}: column 'game' names no title this analyser knows; it takes one of: "
                         f"{', '.join(game_ids())}")
    game = get_game(source if isinstance(source, str) else title)
    validate_results(df, game, path)
    if (folder / "config.json").exists():
        validate_config(config, df, game, folder / "config.json", path)
    extras = {}
    for name in game.extra_tables:
        for p in (folder / f"{name}.parquet", folder / f"{name}.csv"):
            if p.exists() and (p.suffix == ".parquet" or path.suffix != ".parquet"):
                check_regular_file(p, f"{name} table")
                extras[str(name)] = validate_extra(_read_table(p, f"{name} table"), game, name, p, df)
                break
    if path.suffix != ".parquet":  # CSV has no empty string: an empty text rule option reads as NaN
        for o in game.Params.options():
            if o["type"] == "str" and o["name"] in df.columns:
                df[o["name"]] = df[o["name"]].astype(object).where(df[o["name"]].notna(), "").astype(str)
    for col in game.metric_columns:  # an empty score trace (not recorded for that game) is ""
        if getattr(col, "kind", "") == "trace" and col in df.columns:
            df[col] = df[col].astype(object).where(df[col].notna(), "").astype(str)
    order = [s for s in (config.get("strategies") or []) if isinstance(s, str) and s in set(df["strategy"].astype(str))]
    seen = list(pd.unique(df["strategy"].astype(str)))
    df["strategy"] = pd.Categorical(df["strategy"].astype(str),
                                    categories=list(dict.fromkeys(order + seen)))
    return df, extras, config


def _read_table(path: Path, what: str) -> pd.DataFrame:
    """A Parquet or CSV file as a DataFrame; InputError (naming the error type only) otherwise."""
    try:
        if path.suffix == ".parquet":
            return pd.read_parquet(path)
        return pd.read_csv(path)
    except pd.errors.EmptyDataError:
        raise InputError(f"{what} {str(path)!r} is empty; it needs at least a header line") from None
    except Exception as e:  # noqa: BLE001 - parsers raise many kinds; none may escape as a traceback
        raise InputError(f"{what} {str(path)!r} cannot be read as {'Parquet' if path.suffix == '.parquet' else 'CSV'}: "
                         f"{type(e).__name__}") from None


def missing_tables(game, extras: dict) -> list[str]:
    """One note per extra table the title declares but ``extras`` lacks (or holds empty), e.g.
    ``"no rounds table: the bidding tables are left out"``."""
    out = []
    for name in game.extra_tables:
        frame = extras.get(str(name))
        if frame is None or len(frame) == 0:
            feeds = getattr(name, "feeds", "") or f"the figures built from {name}"
            out.append(f"no {name} table: {feeds} are left out")
    return out


def _kind_of(dtype) -> str:
    """``"int"``, ``"float"``, ``"bool"``, ``"text"`` or ``"other"`` for a pandas dtype or a
    pyarrow DataType (so a schema can be checked before a lazily read table is loaded)."""
    try:
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
            return "other"
    except ImportError:  # pragma: no cover - pyarrow is a dependency
        pass
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
            "trace": {"text", "int", "float"}}
#: A score trace: finite numbers separated by spaces (``encode_trace``), or nothing.
_TRACE = r"\s*(?:-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?:\s+-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)*)?\s*"


def validate_columns(columns: dict[str, Any], game, path, schema=None, what: str | None = None) -> None:
    """Check the column names and types of a results table against ``game.results_schema()``.

    ``columns`` maps each column name to its pandas dtype or pyarrow DataType (``dict(zip(
    schema.names, schema.types))`` for a pyarrow schema, ``df.dtypes.to_dict()`` for a frame), so
    this runs before any row is loaded.  Raises InputError naming the file, the column and what
    it takes.  Columns the schema does not know are ignored.  ``schema`` (``[(Metric,
    required)]``) and ``what`` (e.g. ``"rounds table"``) check another table of the title.
    """
    schema = game.results_schema() if schema is None else schema
    missing = [str(c) for c, required in schema if required and c not in columns]
    if missing:
        raise InputError(f"{str(path)!r} is not a {game.id} {what or 'results table'}: it lacks the column"
                         f"{'s' if len(missing) > 1 else ''} {', '.join(missing)} (see README: What a run writes)")
    for col, _ in schema:
        if col not in columns:
            continue
        kind = _kind_of(columns[col])
        ok = _ACCEPTS[col.kind] | ({"float"} if col.missing else set())
        if kind not in ok:
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
            cells = s.astype(object)
            present = cells.notna().to_numpy()
            text = cells[present].astype(str)
            bad = ~text.str.fullmatch(_TRACE).fillna(False).to_numpy() | (text.str.len() > 1_000_000).to_numpy()
            if bad.any():
                raise InputError(f"{where}: column {str(col)!r}: row {_first_row(_lift(bad, ~present))} is not "
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
    validate_columns(df.dtypes.to_dict(), game, path, schema)
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


def validate_config(config, df: pd.DataFrame, game, config_path, results_path) -> None:
    """Check that ``config.json`` belongs to the results beside it: a JSON object whose title,
    seed and run id agree with the table's.  A report's header and command come from the
    config, so a config of another run would mislead.  Raises InputError."""
    where = str(config_path)
    if not isinstance(config, dict):
        raise InputError(f"config file {where!r} holds a JSON {type(config).__name__}, not an object; "
                         "it must be the config.json of the run beside it (or move it away)")
    if config.get("game") != game.id:
        raise InputError(f"config file {where!r} is for another title than {str(results_path)!r} ({game.id}); "
                         "it must be the config.json of the run beside it (or move it away)")
    seed = config.get("seed")
    if not (isinstance(seed, int) and not isinstance(seed, bool)):
        raise InputError(f"config file {where!r}: 'seed' is not a whole number")
    if "run_id" in df.columns:
        ids = df["run_id"].astype(str).unique()
        run_id = config.get("run_id")
        if isinstance(run_id, str):
            agree = len(ids) == 1 and ids[0] == run_id
        else:  # a config written before runs recorded their id: the id starts <game>-<seed>
            run_id = f"{game.id}-{seed}"
            agree = all(i == run_id or i.startswith(run_id + "-") for i in ids)
        if not agree:
            shown = "the run " + ids[0] if len(ids) == 1 and len(ids[0]) < 100 else f"{len(ids)} runs"
            raise InputError(f"config file {where!r} is for the run {run_id}, but {str(results_path)!r} holds "
                             f"{shown}; it must be the config.json of the run beside it (or move it away)")
    for key in ("strategies", "rule_overrides", "rules", "versions"):
        if key in config and not isinstance(config[key], list if key == "strategies" else dict):
            raise InputError(f"config file {where!r}: {key!r} has the wrong type")
    if isinstance(config.get("strategies"), list) and not all(isinstance(s, str) for s in config["strategies"]):
        raise InputError(f"config file {where!r}: 'strategies' must be a list of text")


def validate_extra(frame: pd.DataFrame, game, name, path, results: pd.DataFrame) -> pd.DataFrame:
    """Validate an extra table against the columns its title declares
    (:class:`~analyser.core.ExtraTable`: ``game_index`` and ``seat`` always) with the same checks
    as the results, and check it belongs to the results beside it (its run ids are theirs).
    Returns the frame; raises InputError."""
    from analyser.core import Metric
    declared = [c for c in getattr(name, "columns", ()) if c not in ("game_index", "seat")]
    schema = [(c, True) for c in [Metric("game_index", "count"), Metric("seat", "count")] + declared]
    validate_columns(frame.dtypes.to_dict(), game, path, schema, what=f"{name} table")
    _check_values(frame, schema, path)
    if "run_id" in frame.columns and "run_id" in results.columns:
        if not set(frame["run_id"].astype(str).unique()) <= set(results["run_id"].astype(str).unique()):
            raise InputError(f"{str(path)!r}: column 'run_id': the {name} table is from another run than the results "
                             "beside it; keep a run's files together")
    return frame


def default_out(game_id: str) -> Path:
    """``reports/<game>-<timestamp>`` under the current directory."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    base = Path("reports") / f"{game_id}-{stamp}"
    p, k = base, 1
    while p.exists():
        k += 1
        p = Path(f"{base}-{k}")
    return p


def prepare_out(out: str | Path, replace_run: bool = True) -> Path:
    """Make ``out`` ready for a run's files and return it as a Path.

    A new or empty folder is used as it is.  A folder holding an earlier analyser run (its
    ``config.json``) has that run's files removed first when ``replace_run``, so no stale file
    survives beside the new ones.  Any other non-empty folder, an empty name or an unwritable
    place raises InputError.
    """
    if str(out).strip() == "":
        raise InputError("--out '' is not accepted; give a folder name")
    out = Path(out)
    check_writable(out)
    entries = sorted(p.name for p in out.iterdir())
    if not entries:
        return out
    previous = None
    if (out / "config.json").exists():
        from analyser.safeio import read_json
        try:
            previous = read_json(out / "config.json", "config file", max_bytes=10_000_000)
        except InputError:
            pass
    if not replace_run or not (isinstance(previous, dict) and {"seed", "game", "status"} <= set(previous)):
        raise InputError(f"--out {str(out)!r} is not empty ({len(entries)} entries) and "
                         f"{'' if replace_run else 'would be overwritten; '}holds no analyser run to replace; "
                         "choose a new or empty folder")
    names = set(previous.get("files") or []) | {"config.json", "results.parquet", "results.csv", "summary.csv",
                                                 "index.html"}
    for name in sorted(names):
        if "/" not in name and "\\" not in name and name not in ("", ".", ".."):
            (out / name).unlink(missing_ok=True)
    return out


def check_writable(out: Path) -> None:
    """Create ``out`` (with parents) and prove a file can be written there; InputError otherwise."""
    out = Path(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".analyser-write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as e:
        reason = e.strerror or type(e).__name__
        raise InputError(f"--out {str(out)!r} is not writable ({reason}); choose a folder you can write to") from None
