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
    files = params.data_files() if hasattr(params, "data_files") else {}
    out = {}
    for name, path in files.items():
        try:
            digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
        except OSError:
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

    Raises InputError when the file is missing or is not an analyser results table.
    """
    path = Path(path)
    folder = path if path.is_dir() else path.parent
    if path.is_dir():
        path = folder / "results.parquet" if (folder / "results.parquet").exists() else folder / "results.csv"
    if not path.exists():
        raise InputError(f"results file {str(path)!r} does not exist; give a results.parquet, results.csv "
                         "or the run folder")
    try:
        df = pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_csv(path)
    except Exception as e:
        raise InputError(f"results file {str(path)!r} cannot be read: {type(e).__name__}") from None
    needed = {"game", "game_index", "seat", "strategy", "score", "win"}
    if not needed <= set(df.columns):
        raise InputError(f"{str(path)!r} is not an analyser results table; it lacks the columns "
                         f"{', '.join(sorted(needed - set(df.columns)))}")
    config = {}
    if (folder / "config.json").exists():
        try:
            config = json.loads((folder / "config.json").read_text())
        except ValueError:
            config = {}
    games = df["game"].astype(str).unique()
    if len(games) != 1:
        raise InputError(f"{str(path)!r} mixes titles ({', '.join(games)}); report one title at a time")
    source = config.get("title_source") if config.get("game") == str(games[0]) else None
    game = get_game(source or str(games[0]))  # a title from a file is loaded again from its file
    if "players" in df.columns and df["players"].nunique() > 1:
        raise InputError(f"{str(path)!r} mixes player counts ({', '.join(map(str, sorted(df['players'].unique())))}); "
                         "report one player count at a time")
    extras = {}
    for name in game.extra_tables:
        for p in (folder / f"{name}.parquet", folder / f"{name}.csv"):
            if p.exists() and (p.suffix == ".parquet" or path.suffix != ".parquet"):
                try:
                    extras[name] = pd.read_parquet(p) if p.suffix == ".parquet" else pd.read_csv(p)
                except Exception as e:
                    raise InputError(f"{str(p)!r} cannot be read: {type(e).__name__}") from None
                break
    if path.suffix != ".parquet":  # CSV has no empty string: an empty text rule option reads as NaN
        for o in game.Params.options():
            if o["type"] == "str" and o["name"] in df.columns:
                df[o["name"]] = df[o["name"]].astype(object).where(df[o["name"]].notna(), "").astype(str)
    order = [s for s in (config.get("strategies") or []) if s in set(df["strategy"].astype(str))]
    seen = list(pd.unique(df["strategy"].astype(str)))
    df["strategy"] = pd.Categorical(df["strategy"].astype(str),
                                    categories=list(dict.fromkeys(order + seen)))
    return df, extras, config


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
    try:
        previous = json.loads((out / "config.json").read_text())
    except (OSError, ValueError):
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
