"""Output folders: the default ``--out``, making a folder ready for a run (replacing an earlier run's
files, refusing any other content or a folder in use), checking it can be written, and reading
the ``config.json`` of a run folder to resume it.

Every ``config.json`` analyser reads back (to resume, report, compare, replay or replace a run)
is read by :func:`read_config_file`: it may come from someone else, so it is bounded in size and
nesting like any file a user hands over (:mod:`analyser.safeio`), and it never names code that
is loaded unasked (:mod:`analyser.run.trust`).
"""

from __future__ import annotations

import shutil
from datetime import datetime
from pathlib import Path

from analyser import __version__
from analyser.core import InputError
from analyser.run import store
from analyser.run.trust import resume_command


def read_config_file(path: str | Path):
    """The parsed ``config.json`` at ``path`` (any JSON value; callers check its shape), read through
    the bounded reader: a regular file of at most :data:`~analyser.safeio.CONFIG_MAX_BYTES`, JSON
    nested at most :data:`~analyser.safeio.JSON_MAX_DEPTH` deep, whole numbers of at most 20
    digits, no ``NaN`` and no key given twice.  Raises InputError (one line naming the file)."""
    from analyser.safeio import CONFIG_MAX_BYTES, read_json
    return read_json(path, "config.json", max_bytes=CONFIG_MAX_BYTES)


def read_config(out: Path) -> dict:
    """The config.json of a run folder, for resuming it.  InputError (one line) when ``out`` is not
    a run folder, holds a complete run, was written by a newer analyser, or its config.json is not
    one a run writes (too large, too deeply nested, a field of the wrong type)."""
    out = Path(out)
    if not out.is_dir():
        raise InputError(f"{str(out)!r} is not a run folder (no such folder); give the --out folder of a run")
    if not (out / "config.json").exists():
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
        raise InputError(f"{str(out)!r} was written by an analyser without resumable runs "
                         "(one results.parquet); it cannot be resumed, start a new run")
    if config.get("status") == "complete":
        raise InputError(f"{str(out)!r} holds a complete run ({config.get('games_completed')} games); "
                         "nothing to resume")
    return config


def _version_key(v: str) -> tuple:
    import re
    return tuple(int(x) for x in re.findall(r"\d+", v)[:3])


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
        try:
            previous = read_config_file(out / "config.json")
        except InputError:
            pass
    is_run = isinstance(previous, dict) and {"seed", "game", "status"} <= set(previous)
    if not replace_run:
        what = "holds a run, whose files a report there would overwrite" if is_run else \
            f"is not empty ({len(entries)} entries)"
        raise InputError(f"--out {str(out)!r} {what}; choose a new or empty folder (or leave out --out to rebuild "
                         "a run's report in its own folder)")
    if not is_run:
        raise InputError(f"--out {str(out)!r} is not empty ({len(entries)} entries) and holds no analyser run to "
                         "replace; choose a new or empty folder")
    holder = store.holder_of(out)
    if holder is not None:
        raise InputError(f"--out {str(out)!r} is in use by another analyser run (PID {holder[0]} on {holder[1]}); "
                         "wait for it or choose another folder")
    if previous.get("status") in ("running", "interrupted") and previous.get("games_completed"):
        raise InputError(f"--out {str(out)!r} holds an unfinished run ({previous.get('games_completed')} of "
                         f"{previous.get('games_requested')} games); continue it with `{resume_command(out, previous)}`, "
                         "or choose another folder")
    listed = [n for n in previous.get("files") or [] if isinstance(n, str)] \
        if isinstance(previous.get("files"), list) else []
    names = set(listed) | {"config.json", "results.parquet", "results.csv", "summary.csv",
                                                 "index.html"}
    for name in sorted(names):
        if "/" not in name and "\\" not in name and name not in ("", ".", "..") and (out / name).is_file():
            (out / name).unlink(missing_ok=True)
    # the part folders of the run replaced: those its record lists, and a built-in title's tables (the
    # title is never loaded from a file here: the folder's record names it, and a folder is data)
    tables = [store.RESULTS] + listed
    game = previous.get("game")
    from analyser.registry import game_ids, get_game
    if isinstance(game, str) and game in game_ids():
        try:
            tables += [str(t) for t in get_game(game).extra_tables]
        except InputError:
            pass
    for name in dict.fromkeys(tables):
        if not name or "/" in name or "\\" in name or name in (".", ".."):
            continue
        folder = out / name
        if folder.is_dir() and all(p.name.startswith(("part-", ".part-")) for p in folder.iterdir()):
            shutil.rmtree(folder)
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
