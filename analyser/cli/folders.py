"""What an output folder holds (:func:`folder_kind`), and ``analyser resume`` and ``analyser report``
of an experiment folder (a sweep, tournament, comparison, ladder or tune): its record read and
type-checked as untrusted input, then the experiment played again by its command's module
(:mod:`analyser.cli.experiments`, :mod:`analyser.cli.tuning`) with only the missing games."""

from __future__ import annotations

import dataclasses
import shlex
from pathlib import Path

import click

from analyser.cli.cluster import pooled
from analyser.cli.common import command_line
from analyser.cli.experiments import execute_compare, execute_ladder, execute_sweep, execute_tournament
from analyser.cli.tuning import MAX_TRIALS, execute_tune
from analyser.engine.core import InputError
from analyser.run import Allowed, guard_folder_config, prepare_out, read_config_file, store
from analyser.io.records import cells_complete
from analyser.run.folders import cell_folder_ok
from analyser.experiments import tune_study
from analyser.experiments.base import KINDS, read_record
from analyser.experiments.tune_report import folder_progress
from analyser.experiments.options import Session, options_from_record
from analyser.run.spec import RunSpec, setting_problem


def folder_kind(folder: Path, with_cells: bool = False) -> str | None:
    """The experiment kind recorded in ``folder``'s config.json (sweep, tournament, compare), or
    None for a run folder (or anything else, which reading it as a run then refuses).  With
    ``with_cells``, only an experiment whose record lists its cells (written by this analyser,
    and not a comparison of two run folders) counts."""
    try:
        config = read_config_file(Path(folder) / "config.json")
    except (InputError, OSError):
        return None
    kind = config.get("kind") if isinstance(config, dict) else None
    if with_cells and not isinstance(config.get("experiment") if isinstance(config, dict) else None, dict):
        return None
    return kind if kind in KINDS else None


def resume_experiment(folder: Path, kind: str, allowed=None, *, no_report: bool = False,
                      quiet: bool = False, jobs: int | None = None) -> int:
    """``analyser resume FOLDER`` for a sweep, tournament or comparison: play only the games each
    cell lacks, then write the report as the uninterrupted command would (exit code as the
    command's), with ``jobs`` workers (None: the experiment's own ``--jobs``).  The folder is data: a title or strategy file its record names loads only as
    ``allowed`` says (:func:`analyser.run.trust.guard_folder_config`)."""
    allowed = allowed or Allowed()
    config = _record(folder, kind)
    files = config.get("files")
    written = isinstance(files, list) and all(isinstance(f, str) and f and "/" not in f and f != ".."
                                              and (Path(folder) / f).is_file() for f in files)
    if config.get("status") == "complete" and written:
        raise InputError(f"{str(folder)!r} holds a complete {kind}; nothing to resume (rebuild its report with: "
                         f"analyser report {shlex.quote(str(folder))})")
    holder = store.holder_of(folder)
    if holder is not None:
        raise InputError(store.in_use_message(folder, holder, who="process"))
    spec, options = _guarded_given(folder, kind, config, allowed)
    if jobs is not None:  # (the results do not depend on it)
        spec = dataclasses.replace(spec, jobs=jobs)
        if kind == "compare":
            options = dataclasses.replace(options, b=dataclasses.replace(options.b, jobs=jobs))
    if kind == "tune" and (Path(folder) / "tune.db").is_file():  # a study of an older format: one line
        tune_study.load(folder)
    for c in config["cells"]:  # a damaged part of a cell: named as report names it (its games are played again)
        if cell_folder_ok(c.get("folder")):
            for part in store.damaged_parts(Path(folder) / c["folder"] / store.RESULTS):
                click.echo(f"analyser: note: part {str(part)!r} is damaged or not an analyser part (its footer "
                           "cannot be read); it is removed and its games are played again", err=True)
    count = f"{cells_complete(config)} of {len(config['cells'])} {_cell_word(kind)} complete"
    if kind == "tune" and not quiet:  # trials out of --trials (from tune.db), the re-check's cells apart
        count = folder_progress(folder, config)
    if config.get("status") == "complete":  # stopped while its files were written (SIGTERM): write them
        if not quiet:
            whole = count if kind == "tune" else f"its {len(config['cells'])} {_cell_word(kind)} are complete"
            click.echo(f"Resuming {folder}: {whole}, but its files were not all written; writing them "
                       "(nothing is played)", err=True)
        session = Session(folder, command_line(), progress=False, resume=True, play=False)
        return pooled(lambda: _again(kind, spec, options, session, no_report=no_report, quiet=quiet),
                      None, None, 1, folder)
    if not quiet:
        played = config.get("games_completed")
        played = played if isinstance(played, int) and not isinstance(played, bool) and played >= 0 else 0
        click.echo(f"Resuming {folder}: {count} ({played:,} games played so far, in all); "
                   f"seed {config.get('seed')}", err=True)
    # the cluster is the command line's (--scheduler) or none: the record names no scheduler, and
    # one its cells' folders name is never contacted (they are played from the spec above)
    session = Session(folder, command_line(), progress=False if quiet else None, resume=True)
    return pooled(lambda: _again(kind, spec, options, session, no_report=no_report, quiet=quiet),
                  "dask" if allowed.scheduler else None, allowed.scheduler, spec.jobs, folder)


def report_experiment(folder: Path, kind: str, out: Path | None = None, title_file: str | None = None,
                      quiet: bool = False) -> int:
    """``analyser report FOLDER`` for a sweep, tournament or comparison: rebuild its report from
    its cells' folders (in ``out`` when given), playing nothing.  A title or strategy file the
    record names loads only with ``--title FILE`` or ``--trust``."""
    config = _record(folder, kind)
    spec, options = _guarded_given(folder, kind, config, Allowed(titles=(title_file,) if title_file else (),
                                                                 strategy_flag=None))
    target = None
    if out is not None:
        target = prepare_out(out, replace_run=False)
    session = Session(folder, command_line(), progress=False, resume=True, play=False)
    return _again(kind, spec, options, session, no_report=False, quiet=quiet, target=target)


def _record(folder: Path, kind: str) -> dict:
    raw = read_config_file(Path(folder) / "config.json")
    side = raw.get("a") if isinstance(raw, dict) else None
    if kind == "compare" and isinstance(side, dict) and side.get("source"):
        raise InputError(f"{str(folder)!r} compares two run folders; it plays nothing, so there is nothing to resume "
                         "or rebuild here: compare them again")
    return read_record(folder, (kind,))


#: What the record of each kind keeps under ``experiment.run`` (the run spec: name -> accepted
#: types) and ``experiment.options`` (the kind's options), checked before any of it is used: the
#: folder may come from anyone.
_SPEC = {"game": (str,), "strategies": (list,), "players": (int, type(None)), "games": (int,), "seed": (int,),
         "jobs": (int, type(None)), "rules": (dict,), "batch_size": (int, type(None)), "game_timeout": (int, float),
         "backend": (str,), "scheduler": (type(None),), "first_game": (int,), "engine": (str,)}
_OPTIONS = {
    "sweep": {"rules": (list,), "until_ci": (int, float, type(None))},
    "tournament": {"until_ci": (int, float, type(None)), "bootstrap": (int,)},
    "compare": {"b": _SPEC},  # side B's run spec, checked against _SPEC
    "tune": {"rules": (list,), "targets": (list,), "trials": (int,), "batch": (int,), "recheck": (int,),
             "recheck_factor": (int,), "prune": (bool,)},
    "ladder": {"strategy": (str,), "budgets": (str,), "against": (str, type(None))},
}


def _checked(where: str, values, schema: dict, what: str = "run spec") -> dict:
    def ok(v, types):
        if isinstance(types, dict):  # a nested schema (a comparison's side)
            return isinstance(v, dict)
        if isinstance(v, bool):
            return bool in types
        if isinstance(v, list):
            return list in types and all(isinstance(x, str) for x in v)
        if isinstance(v, dict):
            return dict in types and all(isinstance(k, str) and (isinstance(x, str) or isinstance(x, dict))
                                         for k, x in v.items())
        return isinstance(v, types)
    if not isinstance(values, dict) or set(values) != set(schema):
        raise InputError(f"{where}: its experiment {what} are not the ones analyser writes; it cannot be used")
    for key, v in values.items():
        if not ok(v, schema[key]):
            raise InputError(f"{where}: its experiment {what} {key!r} has the wrong type; it cannot be used")
    _check_settings(where, values)
    return dict(values)


#: The run settings of an experiment's run spec, checked against the bounds a run accepts
#: (:func:`analyser.run.spec.setting_problem`).
_SETTINGS = ("games", "seed", "batch_size", "game_timeout", "first_game", "backend")


def _check_settings(where: str, values: dict) -> None:
    """The run settings of an experiment's run spec, and a tune's trials, within what the command
    accepts; InputError naming the file and the field (a record edited by hand), not a flag the
    user never gave."""
    given = {k: values[k] for k in _SETTINGS if values.get(k) is not None}
    problem = setting_problem(RunSpec(game="", strategies=[], **given))
    if problem is None and "trials" in values and not 1 <= values["trials"] <= MAX_TRIALS:
        problem = "trials", f"give a whole number from 1 to {MAX_TRIALS:,}"
    if problem is not None:
        key, accepted = problem
        raise InputError(f"{where}: its experiment setting {key!r} is {values[key]!r}, which is not accepted; "
                         f"{accepted}")


def _guarded_given(folder: Path, kind: str, config: dict, allowed) -> tuple[RunSpec, object]:
    """The run spec and options that rebuild the experiment in ``folder``, type-checked, after the
    trust rule (a title file named with --title from another place replaces the recorded one)."""
    where = str(Path(folder) / "config.json")
    info = config["experiment"]
    run = _checked(where, info.get("run"), _SPEC)
    options = _checked(where, info.get("options"), _OPTIONS[kind], what="options")
    if kind == "compare":
        options["b"] = _checked(where, options["b"], _SPEC)
    guard_folder_config(config, folder, allowed)  # raises for a file the command line does not allow
    if allowed.titles:
        run["game"] = allowed.titles[0]
        if kind == "compare":
            options["b"]["game"] = allowed.titles[0]
    return options_from_record(kind, run, options)


def _cell_word(kind: str) -> str:
    return {"sweep": "cells", "tournament": "tables", "compare": "sides", "ladder": "levels", "tune": "trials"}.get(kind, "cells")


def _again(kind: str, spec: RunSpec, options, session: Session, *, no_report: bool, quiet: bool,
           target: Path | None = None) -> int:
    execute = {"sweep": execute_sweep, "tune": execute_tune, "ladder": execute_ladder}.get(kind)
    if execute is not None:
        return execute(spec, options, session, no_report=no_report, quiet=quiet, target=target)
    execute = execute_tournament if kind == "tournament" else execute_compare
    return execute(spec, options, session, quiet=quiet, target=target)
