"""The experiment: a set of runs (its *cells*) played into one folder, that resumes and loses nothing.

Every designer experiment (``sweep``, ``tournament``, ``compare``, ``ladder``, ``tune``) turns
its input into cells (a :class:`~analyser.run.RunSpec` and a name each) and hands them to
:class:`Experiment`, which plays each cell with :func:`analyser.run.run` into its own run folder
and reads the results back (:meth:`Experiment.results`).  The folder, its record, the workers and
what faults leave on disk are docs/experiments.md; the record's options are
:mod:`analyser.experiments.options`.

Example (a two-cell experiment of one's own: one rule option at two values; ``game_id``,
``option`` and the strategies are a title's)::

    import dataclasses

    from analyser.experiments.base import Cell, Experiment, Session
    from analyser.run import RunSpec

    spec = RunSpec(game_id, ["greedy", "random"], players=2, games=500, seed=7)
    cells = [Cell(f"{option}-{v}", dataclasses.replace(spec, rules={option: v})) for v in ("10", "14")]
    with Experiment.begin(Session("reports/two-values"), "two-values", cells, run=spec,
                          fields={"game": game_id, "seed": 7}) as exp:
        outcome = exp.play(jobs=2, games=500, players=2)
        frames = [exp.results(k) for k in range(len(cells))]   # read back from OUT/cells/<name>
    # ... analyse ``frames``; outcome.status is complete, interrupted or failed, outcome.error
    # the failure; resume later with Session(..., resume=True) and the same cells.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shlex
import shutil
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from analyser.engine.core import InputError
from analyser.engine.userfiles import safe_worker_path
from analyser.experiments import stopping
from analyser.experiments.options import Session, record_of
from analyser.io.files import read_json
from analyser.run import prepare_out, stops, store
from analyser.run.backends import WorkerDied, worker_death
from analyser.run.cluster import dask_slots, pool_client
from analyser.run.sink import tables_to_frame
from analyser.io.records import CellRecord, ExperimentRecord, RunFields, check_record
from analyser.run.spec import RunSpec, package_versions
from analyser.run.folders import KIND_NAMES, cell_folder_ok, read_config_file

#: Version of the experiment-folder layout, recorded as ``experiment.layout`` (2: the run spec and
#: the kind's options; 1 kept the command's arguments, and is not read).
LAYOUT = 2
#: The kinds of experiment folder (config.json ``kind``).
KINDS = ("sweep", "tournament", "compare", "ladder", "tune")
#: Most games in one Parquet part of a cell, so a long cell streams to disk as it plays.
PART_GAMES = 2000
#: Seconds between rewrites of the record while many short cells finish (it is always written
#: when play stops; the cells' own folders are the truth a resume reads).
SAVE_EVERY = 0.5

@dataclass
class Cell:
    """One cell: a ``name`` (unique in the experiment), the run ``spec`` it plays (its ``games``
    is ignored: :meth:`Experiment.play` says how many), and its ``folder`` relative to the
    experiment folder (default ``cells/<name>``)."""

    name: str
    spec: RunSpec
    folder: str | None = None

    @property
    def path(self) -> str:
        return self.folder or f"cells/{self.name}"


@dataclass
class Outcome:
    """How play ended: ``status`` (``complete``, ``interrupted`` or ``failed``), the ``stop``
    record, the first ``error``, whether it was ``interrupted`` and the wall ``seconds``."""

    status: str
    stop: stopping.Stop
    error: BaseException | None
    interrupted: bool
    seconds: float


class CellFailed(RuntimeError):
    """A cell's run failed in a worker that could not report it (the record in its folder names
    the failure)."""


def read_record(out: Path, kinds=KINDS) -> dict:
    """The record of the experiment folder ``out``; InputError (one line) when it is not one, is
    of another kind, or was written by an analyser that could not resume it."""
    out = Path(out)
    if not (out / "config.json").is_file():
        raise InputError(f"{str(out)!r} is not an experiment folder (no config.json)")
    config = read_config_file(out / "config.json")
    kind = config.get("kind") if isinstance(config, dict) else None
    if kind not in kinds:
        raise InputError(f"{str(out)!r} is not a {' or '.join(kinds)} folder")
    info = config.get("experiment")
    if not isinstance(info, dict) and isinstance(config.get("source"), str):
        raise InputError(f"{str(out)!r} holds a report rebuilt from the {kind} in {config['source']!r}; "
                         "resume or report that folder")
    if not isinstance(info, dict) or not isinstance(config.get("cells"), list):
        raise InputError(f"{str(out)!r} holds a {kind} written by an older version of analyser (without resumable "
                         f"experiments), which this one does not read; run the {kind} again")
    layout = info.get("layout")
    if isinstance(layout, int) and not isinstance(layout, bool) and layout > LAYOUT:
        raise InputError(f"{str(out)!r} holds a {kind} of a newer layout ({layout}); upgrade analyser to resume it")
    if layout != LAYOUT or "arguments" in info:
        raise InputError(f"{str(out)!r} holds a {kind} written by an older version of analyser, which this one "
                         f"does not resume or report; {_again(kind, config.get('command'))}")
    fix = "restore the file, or start the experiment again"
    check_record(ExperimentRecord, config, f"{str(out)!r}: config.json", fix=fix)
    for i, c in enumerate(config["cells"]):  # a hand-edited cell record: one line naming it and the field
        name = f" ({c['name'][:60]})" if isinstance(c.get("name"), str) else ""
        check_record(CellRecord, c, f"{str(out)!r}: cell record {i + 1}{name} in config.json", fix=fix)
    return config


def _again(kind: str, command) -> str:
    """What to run instead of resuming a folder of an older layout: its own command again."""
    if isinstance(command, str) and command.startswith("analyser ") and len(command) <= 300 \
            and command.isprintable():
        return f"run it again with: {command}"
    return f"run the {kind} again"



class Experiment:
    """An experiment folder being played (see the module docstring).  Use :meth:`begin` as a
    context manager; it holds the folder's lock until the block ends."""

    def __init__(self, out: Path, kind: str, cells: list[Cell], config: dict, session: Session,
                 lock: store.RunLock | None = None):
        self.out = out
        self.kind = kind
        self.cells = cells
        self.config = config
        self.command = session.command
        #: the progress bar of :meth:`play` (True, None: only on a terminal, False), and its label
        self.progress = session.progress
        self.desc = f"{kind} {config.get('game') or ''}".strip()
        self.temporary = session.out is None  # (a folder of its own, deleted by close)
        self.lock = lock
        self._parts = [PartCache(out / c.path) for c in cells]
        self._saved = 0.0
        self._signals = stops.count()  # signals acted on (a lost one stops the next play)
        self.error: BaseException | None = None
        self.interrupted = False

    # ----------------------------------------------------------------------------------------
    # Opening
    # ----------------------------------------------------------------------------------------

    @classmethod
    def begin(cls, session: Session, kind: str, cells: list[Cell], *, run: RunSpec | None = None,
              options=None, fields: dict | None = None) -> "Experiment":
        """Open the experiment folder ``session.out`` for ``cells``: a new one (made ready by
        :func:`analyser.run.prepare_out`, every cell ``pending``; ``out=None``: a temporary folder,
        deleted when the block ends), or with ``session.resume`` the one there, which must hold an
        experiment of this ``kind`` with these very cells.  ``session.play`` false only reads (no
        lock, nothing written).  ``tune`` may begin with no cells and :meth:`add_cells` later.
        ``run`` (default: the first cell's spec) and ``options`` are what the record keeps to
        rebuild the experiment (:func:`~analyser.experiments.options.record_of`); ``fields`` are
        the kind's own record fields.  InputError (one line) otherwise, or when another process is
        playing the folder."""
        if (not cells and run is None) or len({c.name for c in cells}) != len(cells) \
                or not all(cell_folder_ok(c.path) for c in cells):
            raise ValueError("an experiment needs cells with distinct plain names")
        out = Path(tempfile.mkdtemp(prefix=f"analyser-{kind}-")) if session.out is None else Path(session.out)
        if session.resume:
            config = _resumed_record(out, kind, cells, session)
        else:
            out = prepare_out(out, kind=kind if kind in KIND_NAMES else "run")
            config = {"kind": kind, "command": session.command, **(fields or {}), "status": "running", "error": None,
                      "started": _now(), "cells": [_cell_entry(c) for c in cells], "games_completed": 0,
                      "experiment": {"layout": LAYOUT, **record_of(run or cells[0].spec, options)},
                      "versions": package_versions()}
        lock = store.RunLock(out).acquire() if session.play else None
        try:
            exp = cls(out, kind, cells, config, session, lock)
        except BaseException:  # (a Ctrl-C here would leave the lock behind)
            if lock is not None:
                lock.release()
            raise
        try:
            for k in range(len(cells)):
                exp._read_cell(k, settle=session.play)
            if session.play:
                config.update(status="running", error=None, pid=os.getpid())
                exp.save()
        except BaseException:
            exp.close()
            raise
        return exp

    def __enter__(self) -> "Experiment":
        return self

    def __exit__(self, *exc) -> bool:
        self.close()
        return False

    def close(self) -> None:
        """Release the folder's lock (and delete a temporary folder)."""
        if self.lock is not None:
            self.lock.release()
            self.lock = None
        if self.temporary:
            shutil.rmtree(self.out, ignore_errors=True)

    def add_cells(self, cells: list[Cell]) -> None:
        """Append ``cells`` (new names) to the experiment and its record (saved), each
        ``pending`` or as its folder says (for an experiment whose cells are made as it plays)."""
        names = {c.name for c in self.cells}
        for c in cells:
            if c.name in names or not cell_folder_ok(c.path):
                raise ValueError(f"cell {c.name!r} is already in the experiment or has no plain name")
            names.add(c.name)
            self.cells.append(c)
            self._parts.append(PartCache(self.out / c.path))
            self.config["cells"].append(_cell_entry(c))
            self._read_cell(len(self.cells) - 1, settle=self.lock is not None)
        if self.lock is not None:
            self.save()

    def folder(self, k: int) -> Path:
        return self.out / self.cells[k].path

    # ----------------------------------------------------------------------------------------
    # The record
    # ----------------------------------------------------------------------------------------

    def save(self, force: bool = True) -> None:
        """Rewrite ``config.json`` (atomically; Ctrl-C and SIGTERM are held meanwhile).  With
        ``force=False`` at most every :data:`SAVE_EVERY` seconds."""
        if not force and time.monotonic() - self._saved < SAVE_EVERY:
            return
        self.config["games_completed"] = sum(b - a for c in self.config["cells"] for a, b in c.get("games_done") or [])
        self.config["updated"] = _now()
        with stops.held():
            store.write_json_atomic(self.out / "config.json", self.config)
        self._saved = time.monotonic()

    def _save_quietly(self, force: bool = True) -> None:
        """:meth:`save` while playing: a record that cannot be written (a full disk) does not stop
        play by itself; the cells' folders hold the truth, and the last save reports it."""
        with contextlib.suppress(store.StoreError):
            self.save(force)

    def _read_cell(self, k: int, settle: bool = False) -> None:
        """Cell ``k``'s status and games from its folder (with ``settle``, a cell left ``running``
        by a process that is gone, such as a killed worker, is marked ``interrupted``, with the
        games its parts hold)."""
        entry = self.config["cells"][k]
        folder = self.folder(k)
        path = folder / "config.json"
        if not path.is_file():
            entry.update(status="pending", games_done=[])
            return
        try:
            cfg = read_json(path, "cell config file", max_bytes=10_000_000)
        except (InputError, OSError):
            cfg = {}
        if isinstance(cfg, dict):  # a hand-edited record: one line naming the cell and the field
            check_record(RunFields, cfg, f"{str(path)!r} (the record of cell {self.cells[k].name})")
        done = store.merge_ranges(store.scan_parts(folder / store.RESULTS).values())
        status = cfg.get("status") if isinstance(cfg, dict) else None
        gone = settle and store.holder_of(folder) is None  # (a dead process holds no lock)
        if status == "running" and gone:
            # its writer is gone (a worker killed mid-cell): say so, with what is on disk
            cfg.update(status="interrupted", games_done=done, games_completed=sum(b - a for a, b in done))
            cfg.pop("pid", None)
            with contextlib.suppress(OSError):
                store.write_json_atomic(path, cfg)
            status = "interrupted"
        if gone:  # (a worker killed before it removed the lock's file leaves the file behind)
            with contextlib.suppress(OSError):
                (folder / store.LOCK).unlink(missing_ok=True)
        entry.update(status=status if isinstance(status, str) else "interrupted", games_done=done)
        if isinstance(cfg, dict) and cfg.get("error"):
            entry["error"] = str(cfg["error"])
        else:
            entry.pop("error", None)

    def stopped_between_plays(self, what: str = "cells") -> Outcome:
        """The :class:`Outcome` of a Ctrl-C or SIGTERM that arrived outside :meth:`play` (an
        experiment that plays in steps, deciding what to play next between them): the record
        says ``interrupted`` and is saved, later signals only noted meanwhile, so ``analyser
        resume`` goes on from it.  ``what`` names the cells in the stop's reason."""
        with stops.held(final=True):
            stop = stopping.Stop(None, _stopped_by(what), 0, 0)
            self.config.update(status="interrupted", error=None, stopping=stop.as_dict())
            self.config.pop("pid", None)
            error = None
            try:
                self.save()
            except store.StoreError as e:  # the disk refuses the record: the cells' folders hold the truth
                error = e
        return Outcome("failed" if error else "interrupted", stop, error, True, 0.0)

    def cell_config(self, k: int) -> dict | None:
        """Cell ``k``'s run record (its folder's ``config.json``), or None."""
        try:
            cfg = read_json(self.folder(k) / "config.json", "cell config file", max_bytes=10_000_000)
        except (InputError, OSError):
            return None
        return cfg if isinstance(cfg, dict) else None

    def _complete_to(self, k: int, games: int) -> bool:
        done = self.config["cells"][k].get("games_done") or []
        return bool(done) and done[0][0] <= 0 and done[0][1] >= games

    # ----------------------------------------------------------------------------------------
    # Playing
    # ----------------------------------------------------------------------------------------

    def play(self, *, jobs: int, games: int, players: int, until_ci: float | None = None,
             measure=None, what: str = "cells", final: bool = True) -> Outcome:
        """Play every cell to ``games`` (with ``until_ci``: in the rounds of the stopping rule,
        ``measure(b)`` giving the widest interval over games ``0`` to ``b - 1``, read with
        :meth:`results`).  ``jobs``: worker processes; the session's ``progress``: True shows a
        bar (games of all cells, labelled :attr:`desc`), None only on a terminal, False never.
        ``what`` names the cells in the reason of a stop.  ``final=False``: more play follows
        (the record stays ``running`` when this play completes).  Returns the :class:`Outcome`;
        the record says it too.  Never raises for a fault in a cell, Ctrl-C or SIGTERM."""
        t0 = time.perf_counter()
        history = stopping.recorded_history(self.config.get("stopping")) if until_ci is not None else []
        bar = None
        progress = self.progress
        if progress is not False:  # (None: only on a terminal, as analyser.run.run)
            bar = tqdm(total=games * len(self.cells), initial=min(games * len(self.cells),
                                                                 int(_number(self.config.get("games_completed")))),
                       unit="game", desc=self.desc, leave=False, file=sys.stderr,
                       disable=None if progress is None else not progress)
        self.error: BaseException | None = None
        self.interrupted = False
        stop = None

        def on_round(s: stopping.Stop) -> None:
            self.config["stopping"] = s.as_dict()
            self._save_quietly()

        ending = contextlib.ExitStack()
        ending.enter_context(stops.handled(once=True))  # the first stop ends play; later ones are noted
        try:
            if stops.count() > self._signals:  # a stop whose exception was lost (stops.count)
                raise KeyboardInterrupt
            stop = stopping.play_rounds(games, players, until_ci, lambda a, b: self._play_to(b, jobs, bar),
                                        measure if measure is not None else (lambda b: 0.0),
                                        history=history, on_round=on_round)
        except KeyboardInterrupt:  # SIGTERM or a second Ctrl-C between cells or while measuring
            self.interrupted = True
        finally:
            ending.enter_context(stops.held(final=True))  # a stop after play is noted, never cuts the final write
            if bar is not None:
                bar.close()
        with ending:
            for k in range(len(self.cells)):
                if self.config["cells"][k].get("status") != "complete":
                    self._read_cell(k, settle=True)
            failed = [c for c in self.config["cells"] if c.get("status") == "failed" and c.get("error")]
            if failed and not self.interrupted and (self.error is None or isinstance(self.error, WorkerDied)):
                # a cell's worker died after its run recorded why
                self.error = CellFailed(f"cell {failed[0]['name']}: {failed[0]['error']}")
            if self.error is not None or self.interrupted:
                # the rounds measured so far (written after each one) stay in the record, for resume
                stop = (stopping.Stop.from_dict(self.config.get("stopping")) if until_ci is not None
                        else stopping.Stop(None, "", 0, 0))
                stop.width_goal, stop.max_games, stop.decided = until_ci, games, False
                if self.error is not None:
                    stop.reason = "the run failed or was interrupted"
                else:
                    stop.reason = _stopped_by(what)
            if stops.count() > self._signals and not self.interrupted and self.error is None:
                # a signal whose exception was lost while the cells played: the run stops all the same
                self.interrupted = True
                stop = stop or stopping.Stop(None, "", 0, 0)
                stop.reason, stop.decided = _stopped_by(what), False
            if self.interrupted:
                self._signals = stops.count()
            status = "failed" if self.error is not None else "interrupted" if self.interrupted else "complete"
            seconds = time.perf_counter() - t0
            self.config.update(status=status if final or status != "complete" else "running",
                               error=str(self.error) if self.error is not None else None,
                               stopping=stop.as_dict())
            self.config["play_seconds"] = round(_number(self.config.get("play_seconds")) + seconds, 3)
            self.config.pop("pid", None)
            try:
                self.save()
            except store.StoreError as e:  # the disk refuses even the record: the cells' folders hold the truth
                self.error = self.error or e
                status = "failed"
        return Outcome(status, stop, self.error, self.interrupted, seconds)

    def _cell_spec(self, k: int, games: int, workers: int, whole: bool) -> RunSpec:
        """Cell ``k``'s spec up to ``games``.  ``whole``: the cell plays in one worker process
        (``jobs=1``); else it uses its own ``jobs`` (``workers`` of them).  In one process the
        batches are large (its strategies are built once per batch), at most :data:`PART_GAMES`
        games so the cell streams to disk, unless ``--batch-size`` says otherwise."""
        spec = self.cells[k].spec
        done = self.config["cells"][k].get("games_done") or []
        first = done[0][1] if done and done[0][0] == 0 else 0
        size = spec.batch_size
        if size is None and (whole or workers == 1):
            size = max(1, min(games - first, PART_GAMES))
        return dataclasses.replace(spec, games=games, first_game=0, rules=dict(spec.rules),
                                   strategies=list(spec.strategies), jobs=1 if whole else spec.jobs, batch_size=size)

    def _play_to(self, games: int, jobs: int, bar) -> bool:
        """Make every cell complete up to ``games``.  False when play must stop (a failure or an
        interruption, recorded on ``self``)."""
        todo = [k for k in range(len(self.cells)) if not self._complete_to(k, games)]
        if not todo:
            return True
        client = pool_client()
        if client is not None:
            # on a Dask cluster each cell's batches go to the workers and come back here to be
            # written (the workers need no shared disk), one cell after another
            jobs = dask_slots(client)
        elif jobs > 1 and len(todo) >= 2 * jobs:
            return self._play_parallel(todo, games, jobs, bar)
        for k in todo:
            before = sum(b - a for a, b in self.config["cells"][k].get("games_done") or [])
            self.config["cells"][k]["status"] = "running"
            self._save_quietly()
            try:
                summary = _play_cell(k, self.folder(k), self._cell_spec(k, games, jobs, whole=False), self.command)
            except (InputError, OSError) as e:  # the cell's folder cannot be written (a full disk) or used
                self._read_cell(k, settle=True)
                self.error = e
                return False
            self._note(summary, bar, before)
            self._save_quietly()
            if summary["error"] is not None:
                self.error = summary["error"]
                return False
            if summary["interrupted"]:
                self.interrupted = True
                return False
        return True

    def _note(self, summary: dict, bar, before: int) -> None:
        k = summary["cell"]
        entry = self.config["cells"][k]
        entry.update(status=summary["status"], games_done=summary["games_done"])
        if summary["error"] is not None:
            entry["error"] = str(summary["error"])
        for start, stop, table in summary.get("parts") or ():
            self._parts[k].add(start, stop, table)  # (the figures need not read them back)
        if bar is not None:
            bar.update(max(0, sum(b - a for a, b in summary["games_done"]) - before))

    def _play_parallel(self, todo: list[int], games: int, jobs: int, bar) -> bool:
        """Whole cells on ``jobs`` worker processes.  The first Ctrl-C starts no new cell and lets
        the running ones finish; SIGTERM or a second Ctrl-C stop at once (the workers are
        stopped; their cells keep the parts they wrote)."""
        import joblib

        signals = stops.count()  # (the first Ctrl-C only asks: no new cell starts)
        asked: list[int] = []  # (a cell that was interrupted: its worker had the Ctrl-C too)
        failed: list[tuple[int, BaseException]] = []
        before = {k: sum(b - a for a, b in self.config["cells"][k].get("games_done") or []) for k in todo}

        specs = {k: self._cell_spec(k, games, 1, whole=True) for k in todo}

        def tasks():  # (read by joblib as workers free up: no new cell after a stop)
            for k in todo:
                if stops.count() != signals or asked or failed:
                    return
                yield joblib.delayed(_play_cell)(k, self.folder(k), specs[k], self.command)

        with stops.gentle(), warnings.catch_warnings(), safe_worker_path(), \
                joblib.Parallel(n_jobs=jobs, return_as="generator_unordered", pre_dispatch="n_jobs",
                                batch_size=1) as parallel:
            # joblib warns about cancelled or unused tasks when we stop early; that is intended
            warnings.filterwarnings("ignore", category=UserWarning, module="joblib")
            outputs = parallel(tasks())
            try:
                for summary in outputs:
                    self._note(summary, bar, before[summary["cell"]])
                    self._save_quietly(force=False)
                    if summary["error"] is not None:
                        failed.append((summary["cell"], summary["error"]))
                    elif summary["interrupted"]:
                        asked.append(summary["cell"])
            except KeyboardInterrupt:
                self.interrupted = True
            except (InputError, store.StoreError) as e:
                failed.append((len(self.cells), e))
            except Exception as e:  # a worker process died (SIGKILL, out of memory)
                failed.append((len(self.cells), worker_death(e)))
            finally:
                close = getattr(outputs, "close", None)
                if close is not None:
                    close()
        if failed:
            self.error = min(failed, key=lambda x: x[0])[1]
            return False
        if asked or stops.count() != signals:
            self.interrupted = True
        return not self.interrupted

    # ----------------------------------------------------------------------------------------
    # Reading back
    # ----------------------------------------------------------------------------------------

    def results(self, k: int, below: int | None = None) -> pd.DataFrame:
        """Cell ``k``'s results frame read from its folder's parts, in game order (games ``0`` to
        ``below - 1`` only, when given).  Parts already read are kept in memory, so reading after
        every round costs only the new parts."""
        return self._parts[k].frame(below)


class PartCache:
    """The results of a run folder read part by part, each part once (for reading a run after
    every round of the stopping rule)."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self.parts: dict[str, tuple[tuple[int, int], object]] = {}
        self._checked = False

    def add(self, start: int, stop: int, table) -> None:
        """The part of games ``start`` to ``stop - 1`` as just written (``table``), kept so that it
        is not read back."""
        self.parts[store.part_name(start)] = ((start, stop), table)

    def frame(self, below: int | None = None) -> pd.DataFrame:
        """Games ``0`` to ``below - 1`` (all when None) as one frame in game order.  InputError
        (one line) for parts on disk that disagree with the cell's record (:meth:`check`)."""
        import pyarrow.parquet as pq

        if not self._checked:
            self.check()
        for p in store.part_files(self.folder / store.RESULTS):
            if p.name not in self.parts:
                rng = store.part_range(p)
                if rng is not None:
                    self.parts[p.name] = (rng, pq.read_table(p))
        chosen = [(rng, t) for _, (rng, t) in sorted(self.parts.items()) if below is None or rng[0] < below]
        df = tables_to_frame([t for _, t in chosen])
        if below is not None and len(df) and any(rng[1] > below for rng, _ in chosen):
            df = df[df["game_index"] < below].reset_index(drop=True)
        return df

    def check(self) -> None:
        """Before the parts on disk are first read: none renamed or copied by hand, and, for a
        cell whose record says it is complete, the games on disk are those it records as done (a
        part moved away or added would change the numbers silently).  InputError, one line."""
        self._checked = True
        results = self.folder / store.RESULTS
        store.check_part_names(results)
        path = self.folder / "config.json"
        config = read_config_file(path) if path.is_file() else None
        done = config.get("games_done") if isinstance(config, dict) and config.get("status") == "complete" else None
        if not (isinstance(done, list) and all(isinstance(r, list) and len(r) == 2 for r in done)):
            return
        ranges = [r for r in map(store.part_range, store.part_files(results)) if r is not None]
        disk = store.merge_ranges(ranges)
        recorded = store.merge_ranges((int(a), int(b)) for a, b in done)
        doubled = sum(b - a for a, b in ranges) != sum(b - a for a, b in disk)  # (parts that overlap)
        if disk != recorded or doubled:
            shown = ", ".join(f"{a}-{b - 1}" for a, b in disk[:4]) or "none"
            raise InputError(f"{str(results)!r} holds games {shown}, but its config.json records "
                             f"{sum(b - a for a, b in recorded):,} games as done: a part is missing, doubled or "
                             f"was added by hand; restore the cell's parts, or play its games again with: "
                             f"analyser resume {shlex.quote(str(self.folder))}")


def stack_cells(frames: list, name: str, numbers, categories=None) -> pd.DataFrame:
    """The cells' results ``frames`` (None and empty ones left out) as one frame: each with its
    number from ``numbers`` as column ``name``, first, and ``-<name><number>`` added to its run
    ids; ``strategy`` and ``run_id`` categorical (the strategies in the order of ``categories``
    when given)."""
    parts = []
    for k, df in zip(numbers, frames):
        if df is not None and len(df):
            run_ids = df["run_id"].astype(str) + f"-{name}{k}"
            df = df.assign(strategy=df["strategy"].astype(str), run_id=run_ids)
            df.insert(0, name, np.full(len(df), k, dtype="int64"))
            parts.append(df)
    if not parts:
        return pd.DataFrame()
    out = pd.concat(parts, ignore_index=True)
    out["strategy"] = pd.Categorical(out["strategy"], categories=categories)
    out["run_id"] = pd.Categorical(out["run_id"])
    return out


def _number(value) -> float:
    """A number a record holds (it may come from anyone), else 0."""
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and value == value and abs(value) < 1e15
    return float(value) if ok else 0.0


def _stopped_by(what: str) -> str:
    """The stop's reason of an experiment that a signal stopped, its ``what`` named."""
    how = "SIGTERM" if stops.exit_code() == 143 else "Ctrl-C"
    return f"interrupted ({how}); the {what} that finished before it are kept"


def recorded_outcome(config: dict) -> Outcome:
    """The :class:`Outcome` a record says (to rebuild a report without playing)."""
    status = str(config.get("status") or "interrupted")[:40]
    error = CellFailed(str(config["error"])[:2000]) if config.get("error") else None
    return Outcome(status, stopping.Stop.from_dict(config.get("stopping")), error, status == "interrupted",
                   _number(config.get("play_seconds")))


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _cell_entry(c: Cell) -> dict:
    """A new cell's entry in the record."""
    return {"name": c.name, "folder": c.path, "strategies": list(c.spec.strategies), "rules": dict(c.spec.rules),
            "status": "pending", "games_done": []}


def _resumed_record(out: Path, kind: str, cells: list[Cell], session: Session) -> dict:
    """The record of the experiment in ``out`` to resume with ``cells`` (checked against it); when
    it is to be played, not in use by another process, with this resumption noted."""
    config = read_record(out, (kind,))
    _check_cells(out, config, cells)
    if session.play:
        holder = store.holder_of(out)
        if holder is not None:
            raise InputError(store.in_use_message(out, holder, who="process"))
        config["resumed"] = list(config.get("resumed") or []) + [
            {"at": _now(), "command": session.command, "games_before": int(config.get("games_completed") or 0)}]
    return config


def _check_cells(out: Path, config: dict, cells: list[Cell]) -> None:
    recorded = config.get("cells")
    if not isinstance(recorded, list) or len(recorded) != len(cells):
        raise InputError(f"{str(out)!r}: its config.json records {len(recorded) if isinstance(recorded, list) else 'no'} "
                         f"cells, but its run spec and options give {len(cells)}; it cannot be resumed")
    for c, r in zip(cells, recorded):
        ok = (isinstance(r, dict) and r.get("name") == c.name and r.get("folder") == c.path
              and r.get("strategies") == list(c.spec.strategies) and r.get("rules") == dict(c.spec.rules))
        if not ok:
            raise InputError(f"{str(out)!r}: cell {c.name} in config.json does not match the cell its run spec "
                             "and options give; it cannot be resumed")


def _play_cell(k: int, folder: Path, spec: RunSpec, command: str) -> dict:
    """Run or resume cell ``k`` in ``folder`` up to ``spec.games`` (in this process or a worker);
    a summary goes back with the results of the batches it wrote (``parts``: ``(start, stop,
    arrow table)``, the tables of its parts, so the experiment analyses them without reading the
    parts back), the games stay on disk."""
    from analyser.run import run

    resume = (folder / "config.json").is_file()
    parts: list = []
    r = run(spec, progress=False, command=command, out=folder, resume=resume,
            on_part=lambda a, b, table: parts.append((a, b, table)))
    return {"cell": k, "status": r.config.get("status"), "games_done": list(r.config.get("games_done") or []),
            "error": r.error, "interrupted": bool(r.interrupted or r.stop_requested), "parts": parts}
