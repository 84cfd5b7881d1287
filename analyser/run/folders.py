"""Output folders: the default ``--out``, making a folder ready for a run (replacing an earlier run's
files, refusing any other content or a folder in use), checking it can be written, and reading
the ``config.json`` of a run folder to resume it.

Every ``config.json`` analyser reads back (to resume, report, compare, replay or replace a run)
is read by :func:`read_config_file`: it may come from someone else, so it is bounded in size and
nesting like any file a user hands over (:mod:`analyser.io.files`), and it never names code that
is loaded unasked (:mod:`analyser.run.trust`).
"""

from __future__ import annotations

import contextlib
import re
import shlex
import shutil
from datetime import datetime
from pathlib import Path

from analyser import __version__
from analyser.engine.core import InputError
from analyser.engine.registry import game_ids, get_game
from analyser.io.records import RunRecord, check_record
from analyser.run import store
from analyser.run.trust import resume_command


def read_config_file(path: str | Path):
    """The parsed ``config.json`` at ``path`` (any JSON value; callers check its shape), read through
    the bounded reader: a regular file of at most :data:`~analyser.io.files.CONFIG_MAX_BYTES`, JSON
    nested at most :data:`~analyser.io.files.JSON_MAX_DEPTH` deep, whole numbers of at most 20
    digits, no ``NaN`` and no key given twice.  Raises InputError (one line naming the file)."""
    from analyser.io.files import CONFIG_MAX_BYTES, read_json
    return read_json(path, "config.json", max_bytes=CONFIG_MAX_BYTES)


def read_config(out: Path, complete_ok: bool = False) -> dict:
    """The config.json of a run folder, for resuming it.  InputError (one line) when ``out`` is not
    a run folder, holds a complete run (unless ``complete_ok``: a run to extend), was written by a
    newer analyser, or its config.json is not one a run writes (too large, too deeply nested, a
    field of the wrong type).  A run whose stopping rule (``--until-ci``) has not decided yet is
    not complete, whatever its last round says."""
    out = Path(out)
    if not out.is_dir():
        raise InputError(f"{str(out)!r} is not a run folder (no such folder); give the --out folder of a run")
    if not (out / "config.json").exists():
        if not any(p for p in out.iterdir() if not p.name.startswith(".")):
            raise InputError(f"{str(out)!r} is empty: the command that made it stopped before it recorded anything "
                             "(no game was played); run that command again")
        raise InputError(f"{str(out)!r} is not a run folder (no config.json); give the --out folder of a run")
    config = read_config_file(out / "config.json")
    if not isinstance(config, dict) or not {"game", "seed", "strategies", "games_requested"} <= set(config):
        raise InputError(f"{str(out)!r} is not an analyser run folder (config.json lacks the run's game, "
                         "seed or strategies)")
    layout = config.get("layout", 1)
    made_by = str((config.get("versions") or {}).get("analyser", "0")) if isinstance(config.get("versions"), dict) \
        else "0"
    if not isinstance(layout, int) or layout > store.LAYOUT or _version_key(made_by) > _version_key(__version__):
        raise InputError(f"{str(out)!r} was written by analyser {made_by[:40]} (layout {str(layout)[:20]}); this is "
                         f"analyser {__version__}, which cannot resume it; upgrade analyser")
    if layout < store.LAYOUT or "run_id" not in config:
        raise InputError(f"{str(out)!r} holds a run written by an older version of analyser (without resumable "
                         "runs), which this one does not read; run it again")
    check_record(RunRecord, config, f"config file {str(out / 'config.json')!r}")
    for folder in sorted(p for p in out.iterdir() if p.is_dir()):  # before a resume deletes or plays anything
        store.check_part_names(folder)
    if config.get("status") == "complete" and not complete_ok and not undecided(config) \
            and not missing_games(out, config):
        raise InputError(f"{str(out)!r} holds a complete run ({config.get('games_completed')} games); nothing to "
                         f"resume; write its report with: analyser report {shlex.quote(str(out))}")
    return config


def missing_games(out: Path, config: dict) -> int:
    """How many of the games a run's ``config.json`` records as done (``games_done``) have no
    readable part on disk (a part removed or damaged since): a complete run missing games is
    resumed, and only those games are played again.  0 when the record cannot say (a malformed
    ``games_done``, or a run played in ``--until-ci`` rounds, which is not replayed this way)."""
    record = config.get("games_done")
    if isinstance(config.get("stopping"), dict) and config["stopping"].get("until_ci") is not None:
        return 0
    try:
        top = int(config.get("games_requested"))
        recorded = store.merge_ranges((max(0, int(a)), min(int(b), top)) for a, b in record)
    except (TypeError, ValueError):
        return 0
    disk = store.merge_ranges(store.scan_parts(Path(out) / store.RESULTS).values())
    return sum(b - a for a, b in recorded) - store.overlap(recorded, disk)


def undecided(config: dict) -> bool:
    """True for a run played in rounds (``--until-ci``) whose stopping rule has not decided yet."""
    record = config.get("stopping")
    return isinstance(record, dict) and record.get("until_ci") is not None and record.get("decided") is False


def _version_key(v: str) -> tuple:
    return tuple(int(x) for x in re.findall(r"\d+", v)[:3])


def default_out(game_id: str, parent: str | Path = "reports") -> Path:
    """``reports/<game>-<timestamp>`` under the current directory (or ``<parent>/<game>-<timestamp>``):
    a new folder every time (``-2``, ``-3`` ... when one of that second exists), so a default
    output never replaces an earlier one.  ``game_id`` may carry the command (``GAME-sweep``)."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    base = Path(parent) / f"{game_id}-{stamp}"
    p, k = base, 1
    while p.exists():
        k += 1
        p = Path(f"{base}-{k}")
    return p


#: What each kind of analyser output is called in messages (config.json ``kind``; a run has none).
KIND_NAMES = {"run": "run", "sweep": "sweep", "tournament": "tournament", "compare": "comparison", "ladder": "ladder", "tune": "tune"}


def previous_output(out: str | Path) -> dict | None:
    """The config.json of the analyser output (a run or an experiment) that ``out`` holds, with
    its ``kind`` filled in (``run`` for a run), or None when ``out`` holds none."""
    out = Path(out)
    if not (out / "config.json").is_file():
        return None
    try:
        previous = read_config_file(out / "config.json")
    except InputError:
        return None
    if not (isinstance(previous, dict) and {"seed", "game", "status"} <= set(previous)):
        return None
    kind = previous.get("kind")
    return {**previous, "kind": kind if isinstance(kind, str) and kind in KIND_NAMES else "run"}


def describe_output(previous: dict, where: str | Path | None = None) -> str:
    """``the complete run (2,000 games)``, ``the failed run in OUT (312 of 1,000 games)``, ``the
    complete sweep (12 cells)``: what a folder holds (``where``: the folder, named after the
    kind), for the line that says it is replaced or why it is refused."""
    kind, status = previous["kind"], previous.get("status")
    what = f"the {status + ' ' if isinstance(status, str) and status.isalpha() else ''}{KIND_NAMES[kind]}"
    if where is not None:
        what += f" in {where}"
    done, asked = previous.get("games_completed"), previous.get("games_requested")
    if kind == "run" and isinstance(done, int):
        games = f"{done:,} games" if done == asked or not isinstance(asked, int) else f"{done:,} of {asked:,} games"
        return f"{what} ({games})"
    counts = {"sweep": ("cells", "cell", "cells"), "tournament": ("tables", "table", "tables"),
              "ladder": ("budgets", "budget", "budgets"),
              "compare": ("games", "game per side", "games per side"), "tune": ("trials", "trial", "trials")}
    for key, one, many in [counts[kind]] if kind in counts else counts.values():
        n = previous.get(key)
        n = len(n) if isinstance(n, list) else n
        if isinstance(n, int) and not isinstance(n, bool):
            return f"{what} ({n:,} {one if n == 1 else many})"
    return what


def prepare_out(out: str | Path, replace_run: bool = True, kind: str = "run") -> Path:
    """Make ``out`` ready for the files of a ``kind`` of output (``run``: simulate; ``sweep``,
    ``tournament``, ``compare``) and return it as a Path.

    A new or empty folder is used as it is.  A folder holding an earlier analyser output of the
    same kind (its ``config.json``) has that output's files removed first when ``replace_run``,
    so no stale file survives beside the new ones (say so with :func:`previous_output` and
    :func:`describe_output` before calling this).  Every check comes before anything is removed:
    a folder that also holds anything not part of that output (a file of the user's beside it, or
    inside one of its folders), an output in use or unfinished, another kind of output (a run
    where a sweep goes, a tournament where a comparison goes), any other non-empty folder, an
    empty name or an unwritable place raises InputError (one line), with the folder untouched.
    """
    if str(out).strip() == "":
        raise InputError("--out '' is not accepted; give a folder name")
    out = Path(out)
    check_writable(out)
    entries = sorted(p.name for p in out.iterdir())
    leftovers = _leftovers(out)
    if set(entries) <= {p.name for p in leftovers}:  # (what a process killed as it began left)
        _remove(out, leftovers)
        return out
    previous = previous_output(out)
    is_run = previous is not None
    if not replace_run:
        what = f"holds {describe_output(previous)}, whose files a report there would overwrite" if is_run else \
            f"is not empty ({len(entries)} {'entry' if len(entries) == 1 else 'entries'})"
        raise InputError(f"--out {str(out)!r} {what}; choose a new or empty folder (or leave out --out to rebuild "
                         "a run's report in its own folder)")
    _remove(out, _replacement(out, previous, len(entries), kind))  # (every check first, in _replacement)
    return out


def _leftovers(out: Path) -> set[Path]:
    """What a run killed as it began leaves in its folder and nothing else needs: a lock that no
    live process holds, and empty folders.  A folder holding only these counts as empty."""
    found = {p for p in out.iterdir() if p.is_dir() and not p.is_symlink() and not any(p.iterdir())}
    lock = out / store.LOCK
    if lock.is_file() and not lock.is_symlink() and store.holder_of(out) is None:
        found.add(lock)
    return found


def _replacement(out: Path, previous: dict | None, n_entries: int, kind: str) -> set[Path]:
    """Every check before a folder's earlier output is replaced, then what to remove (the entries
    of :func:`_replaced_entries`).  InputError (one line) when ``out`` holds no analyser output,
    another kind, one in use or unfinished, or anything beside it; nothing is removed here."""
    holder = store.holder_of(out)  # (first: a run that has just begun has written no record yet)
    if holder is not None:
        raise InputError(store.in_use_message(out, holder, "--out ", "wait for it, choose another folder"))
    if previous is None:
        raise InputError(f"--out {str(out)!r} is not empty ({n_entries} {'entry' if n_entries == 1 else 'entries'}) "
                         "and holds no analyser run to replace; choose a new or empty folder")
    if previous["kind"] != kind:
        raise InputError(f"--out {str(out)!r} holds {describe_output(previous)}, not a {KIND_NAMES[kind]}; a "
                         f"{KIND_NAMES[kind]} replaces only an earlier {KIND_NAMES[kind]}, so choose a new or empty "
                         "folder (or leave out --out)")
    if (previous.get("status") in ("running", "interrupted") or undecided(previous)) and previous.get("games_completed"):
        what = f"an unfinished {KIND_NAMES.get(previous.get('kind'), 'run')}"
        raise InputError(f"--out {str(out)!r} holds {what[:60]} ({previous.get('games_completed')} of "
                         f"{previous.get('games_requested')} games); continue it with `{resume_command(out, previous)}`, "
                         "or choose another folder")
    doomed = _replaced_entries(out, previous, kind)
    kept = _foreign_entries(out, doomed)
    if kept:  # a replacement removes all of the folder or nothing
        shown = ", ".join(repr(str(p.relative_to(out))) for p in kept[:3]) + (" ..." if len(kept) > 3 else "")
        raise InputError(f"--out {str(out)!r} holds {describe_output(previous)} and also {shown}, which is not "
                         f"part of it; nothing was removed: move {'that' if len(kept) == 1 else 'those'} out, or "
                         "choose a new or empty folder")
    return doomed


def _replaced_entries(out: Path, previous: dict, kind: str) -> set[Path]:
    """The files and folders of the earlier output ``previous`` in ``out``: those its record lists
    (``files``, the cell folders of an experiment, the sides of a comparison), the files every run
    writes, its part folders (holding only parts) and a lock file no process holds.  Nothing is
    removed here; a name from the record is taken only when it is a plain name inside ``out``."""
    listed = [n for n in previous.get("files") or [] if isinstance(n, str)] \
        if isinstance(previous.get("files"), list) else []
    names = set(listed) | {"config.json", "results.parquet", "results.csv", "summary.csv", "index.html",
                           "components.csv", store.LOCK}
    if kind == "compare":
        names |= {"a", "b"}  # the sides of a comparison of rule sets or lineups (run folders)
    doomed: set[Path] = set()
    for name in names:
        if not _plain(name):
            continue
        path = out / name
        if path.is_file() and not path.is_symlink():
            doomed.add(path)
        elif path.is_dir() and not path.is_symlink() and previous_output(path) is not None:
            doomed.add(path)  # a run the output held (a comparison's sides a/, b/)
    doomed |= _cell_folders(out, previous)
    # the part folders of the run replaced: those its record lists, and a built-in title's tables (the
    # title is never loaded from a file here: the folder's record names it, and a folder is data)
    tables = [store.RESULTS] + listed
    game = previous.get("game")
    if isinstance(game, str) and game in game_ids():
        try:
            tables += [str(t) for t in get_game(game).extra_tables]
        except InputError:
            pass
    for name in tables:
        folder = out / name
        if _plain(name) and folder.is_dir() and not folder.is_symlink() and \
                all(p.name.startswith(("part-", ".part-")) for p in folder.iterdir()):
            doomed.add(folder)
    return doomed


def _plain(name: str) -> bool:
    """A plain file or folder name (no separator, not ``.`` or ``..``)."""
    return bool(name) and "/" not in name and "\\" not in name and name not in (".", "..")


def _foreign_entries(out: Path, doomed: set[Path]) -> list[Path]:
    """What ``out`` holds beyond ``doomed`` and the folders made only of doomed entries (such as
    ``cells/`` of an experiment): what a replacement would leave behind, sorted; inside a folder
    partly the output's (a part folder, ``cells/``), the entries that are not."""
    def covered(path: Path) -> bool:
        if path in doomed:
            return True
        return path.is_dir() and not path.is_symlink() and all(covered(p) for p in path.iterdir())

    def left(folder: Path) -> list[Path]:  # (inside a folder partly the output's, its other entries)
        found = []
        for path in sorted(folder.iterdir()):
            if covered(path):
                continue
            mixed = path.is_dir() and not path.is_symlink() and any(covered(p) or _has_parts(p) for p in path.iterdir())
            found += left(path) if mixed else [path]
        return found

    return left(out)


def _has_parts(path: Path) -> bool:
    return path.name.startswith(("part-", ".part-"))


def _remove(out: Path, doomed: set[Path]) -> None:
    """Remove the entries :func:`_replaced_entries` found, then the folders they leave empty."""
    for path in sorted(doomed, key=lambda p: len(p.parts), reverse=True):
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink(missing_ok=True)
    for folder in sorted((p for p in out.iterdir() if p.is_dir() and not p.is_symlink()), reverse=True):
        with contextlib.suppress(OSError):
            for inner in folder.iterdir():
                if inner.is_dir() and not inner.is_symlink():
                    inner.rmdir()  # (only an empty one)
            folder.rmdir()


#: a cell folder's name in an experiment's record: one or two plain names
_CELL_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*(/[A-Za-z0-9][A-Za-z0-9_.-]*)?$")


def cell_folder_ok(text) -> bool:
    """A cell folder named in a record: one or two plain names below the experiment folder."""
    return isinstance(text, str) and bool(_CELL_NAME.match(text)) and ".." not in text


def _cell_folders(out: Path, previous: dict) -> set[Path]:
    """The cell run folders of an earlier experiment's record (``cells``: each one's ``folder``,
    a plain relative name below ``out``)."""
    cells = previous.get("cells")
    if not isinstance(cells, list) or not isinstance(previous.get("experiment"), dict):
        return set()
    folders = (cell.get("folder") if isinstance(cell, dict) else None for cell in cells)
    return {out / f for f in folders if cell_folder_ok(f) and (out / f).is_dir() and not (out / f).is_symlink()}


def check_writable(out: Path, what: str = "") -> None:
    """Create ``out`` (with parents) and prove a file can be written there; InputError otherwise,
    naming the folder as ``what`` says (default: the ``--out`` given)."""
    out = Path(out)
    clash = next((p for p in (out, *out.parents) if p.exists() and not p.is_dir()), None)
    if clash is not None:  # (mkdir would say only "File exists")
        name = "--out" if not what else what
        raise InputError(f"{name} {str(out)!r} is not a folder: {str(clash)!r} is a file; give a folder"
                         + (" with --out DIR" if what else ""))
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".analyser-write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as e:
        reason = e.strerror or type(e).__name__
        if what:
            raise InputError(f"{what} {str(out)!r} is not writable ({reason}); give --out DIR to write the report "
                             "to a folder you can write to") from None
        raise InputError(f"--out {str(out)!r} is not writable ({reason}); choose a folder you can write to") from None
