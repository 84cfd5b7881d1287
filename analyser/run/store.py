"""The results store: a run folder whose tables are written one Parquet part per batch.

Layout of a run folder ``OUT``::

    OUT/config.json                     the run record: spec, status, games done (rewritten atomically)
    OUT/results/part-000000000.parquet  one part per finished batch, named by its first game index
    OUT/results/part-000002000.parquet  ...
    OUT/<extra>/part-000000000.parquet  a title's extra table (e.g. one row per round), one part per batch too
    OUT/.lock                           locked by the process writing the folder (its PID and host inside)

``pandas.read_parquet(OUT / "results")`` or ``pyarrow.dataset.dataset(OUT / "results")`` reads a
whole run; the zero-padded names sort in game order.  Each part is written under a temporary name
(``.part-....parquet.tmp``) and renamed into place, so a part that exists is complete: a process
killed in mid-write leaves only a temporary file, which :func:`scan_parts` removes.  Each part
names the games it holds in its Parquet key-value metadata (``analyser`` =
``{"start": a, "stop": b}``: games ``a`` to ``b - 1``), which is what a resumed run trusts.

A folder of an older layout (one ``results.parquet``) is not read: it is refused in one line.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import socket
from pathlib import Path
from typing import Any, Iterator

import pyarrow as pa
import pyarrow.parquet as pq

from analyser.engine.core import InputError

#: Digits in a part's file name (the first game index, zero padded).
PART_DIGITS = 9
RESULTS = "results"
LOCK = ".lock"
#: Version of the run-folder layout, recorded in config.json as ``layout``.
LAYOUT = 2
_META_KEY = b"analyser"


class StoreError(OSError):
    """A part or the run record could not be written (disk full, read-only, ...).  Its message is
    one line naming the file and the reason."""


def part_name(start: int) -> str:
    """``part-<start zero padded>.parquet``."""
    return f"part-{start:0{PART_DIGITS}d}.parquet"


def encode_part(table: pa.Table, start: int, stop: int) -> bytes:
    """The bytes of ``table``'s part (games ``start`` to ``stop - 1``): Parquet, zstd, with the
    games named in its footer, encoded as :func:`part_encodings` says.  Encoded where the batch
    was played (a worker), written here by :func:`write_part`."""
    meta = dict(table.schema.metadata or {})
    meta[_META_KEY] = json.dumps({"start": start, "stop": stop}).encode()
    sink = pa.BufferOutputStream()
    pq.write_table(table.replace_schema_metadata(meta), sink, compression="zstd", **part_encodings(table.schema))
    return sink.getvalue().to_pybytes()


#: The one column whose Parquet statistics (its least and greatest value per row group) a part
#: keeps: a reader that filters on games skips parts by it; no reader of analyser needs any.
STATISTICS = ("game_index",)


def part_encodings(schema: pa.Schema) -> dict:
    """How a part's columns are encoded (``pyarrow.parquet.write_table`` options): ``game_index``
    (ascending) and every list of whole numbers (a score trace) as deltas, ``game_seed`` (random
    words) plain, every other column by dictionary; statistics for :data:`STATISTICS` only.  The
    values read back are the same whatever the encoding: it saves CPU time and bytes."""
    special = {}
    for field in schema:
        if field.name == "game_index" and pa.types.is_integer(field.type):
            special[field.name] = "DELTA_BINARY_PACKED"
        elif field.name == "game_seed":
            special[field.name] = "PLAIN"
        elif pa.types.is_list(field.type) and pa.types.is_integer(field.type.value_type):
            special[f"{field.name}.list.element"] = "DELTA_BINARY_PACKED"
    plain = {path.split(".list.element")[0] for path in special}
    return {"use_dictionary": [f.name for f in schema if f.name not in plain], "column_encoding": special,
            "write_statistics": [c for c in STATISTICS if c in schema.names]}


def part_table(data: bytes | pa.Table) -> pa.Table:
    """The table of a part's bytes (:func:`encode_part`) as :func:`read_part_table` reads a part
    written by analyser: without its pandas metadata; a table is returned as it is."""
    if not isinstance(data, bytes):
        return data
    table = pq.read_table(pa.BufferReader(data))
    meta = {k: v for k, v in (table.schema.metadata or {}).items() if k != _PANDAS_KEY}
    return table.replace_schema_metadata(meta or None)


def write_part(table: pa.Table | bytes, folder: Path, start: int, stop: int) -> Path:
    """Write ``table`` (games ``start`` to ``stop - 1``; or the bytes :func:`encode_part` made of
    it) as ``folder/part-<start>.parquet``: to a temporary name, flushed to disk, then renamed.
    Raises :class:`StoreError`."""
    data = table if isinstance(table, bytes) else encode_part(table, start, stop)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / part_name(start)
    tmp = folder / f".{path.name}.tmp"
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as e:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
        raise StoreError(f"cannot write {path}: {e.strerror or type(e).__name__}") from None
    return path


def part_range(path: Path) -> tuple[int, int] | None:
    """The ``(start, stop)`` games a part holds, read from its footer; None when the file is not a
    complete analyser part (truncated, foreign or unreadable)."""
    try:
        meta = pq.read_schema(path).metadata or {}
        info = json.loads(meta[_META_KEY])
        return int(info["start"]), int(info["stop"])
    except Exception:
        return None


def scan_parts(folder: Path, clean: bool = False) -> dict[int, tuple[int, int]]:
    """``{start: (start, stop)}`` of the complete parts in ``folder``.  With ``clean``, temporary
    files and parts that cannot be read are deleted (they are redone by a resumed run)."""
    out: dict[int, tuple[int, int]] = {}
    if not folder.is_dir():
        return out
    for p in sorted(folder.iterdir()):
        if p.name.endswith(".tmp"):
            if clean:
                p.unlink(missing_ok=True)
            continue
        if not (p.name.startswith("part-") and p.suffix == ".parquet"):
            continue
        rng = part_range(p)
        if rng is None and clean:
            p.unlink(missing_ok=True)
        if rng is None or p.name != part_name(rng[0]):  # (a misnamed part is the user's: never deleted)
            continue
        out[rng[0]] = rng
    return out


def damaged_parts(folder: Path) -> list[Path]:
    """The files of ``folder`` named as parts whose footer cannot be read (cut short by a kill, or
    garbage): what :func:`scan_parts` with ``clean`` deletes and a resumed run plays again."""
    return [p for p in part_files(folder) if part_range(p) is None]


def check_part_names(folder: Path) -> None:
    """Refuse a readable part of ``folder`` whose footer's games disagree with its file name (a
    part renamed or copied by hand): it is the user's file, so no command deletes it or plays
    around it.  Raises InputError (one line naming the part) at the first one."""
    for p in part_files(folder):
        rng = part_range(p)
        if rng is not None and p.name != part_name(rng[0]):
            raise InputError(f"part {str(p)!r} holds games {rng[0]} to {rng[1] - 1} but is named for another game: "
                             f"a part renamed or copied by hand; remove it, or name it {part_name(rng[0])}")


def merge_ranges(ranges) -> list[list[int]]:
    """Sorted, merged ``[start, stop]`` ranges (touching ranges join)."""
    out: list[list[int]] = []
    for a, b in sorted(ranges):
        if b <= a:
            continue
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def overlap(ranges, others) -> int:
    """How many games two lists of merged ``[start, stop)`` ranges have in common."""
    return sum(max(0, min(b, d) - max(a, c)) for a, b in ranges for c, d in others)


def in_use_message(folder: Path, holder: tuple[int, str], lead: str = "", fix: str = "wait for it to stop",
                   who: str = "run") -> str:
    """The one line for a folder whose lock another live process holds (``holder``: pid, host):
    ``lead`` before the folder's name (``"--out "``), ``fix`` the remedy.  (The lock is the live
    process's own: removing the file would not free the folder, so the line never says to.)"""
    return f"{lead}{str(folder)!r} is in use by another analyser {who} (PID {holder[0]} on {holder[1]}); {fix}"


def missing_ranges(done, games: int) -> list[tuple[int, int]]:
    """The game ranges of ``0..games-1`` not covered by ``done``."""
    out, at = [], 0
    for a, b in merge_ranges(done):
        if a > at:
            out.append((at, min(a, games)))
        at = max(at, b)
    if at < games:
        out.append((at, games))
    return [(a, b) for a, b in out if b > a]


def part_files(folder: Path) -> list[Path]:
    """The complete part files of ``folder`` in game order (temporary files skipped)."""
    if not folder.is_dir():
        return []
    return [p for p in sorted(folder.glob("part-*.parquet"))]


def check_part_run(path: Path, ids, run_id: str | None) -> None:
    """Refuse a results part holding games of another run than ``run_id`` (the run its folder's
    config.json names): InputError, one line naming the part, the other run and what to do.
    ``ids``: the part's run ids (its ``run_id`` column's distinct values, as read).  The one check
    of a part copied in from another run, or of a config.json whose ``run_id`` was edited, for
    ``resume`` and ``report`` alike."""
    other = sorted({str(x) for x in ids} - {run_id})
    if other:
        raise InputError(f"part {str(path)!r} holds games of the run {other[0][:100]}, but its folder's config.json "
                         f"is for the run {str(run_id)[:100]}: a part copied in from another run, or an edited run_id; "
                         "put back the run's own part and config.json, or play the run again")


def write_json_atomic(path: Path, data: dict[str, Any]) -> None:
    """Write JSON to a temporary name and rename it over ``path``.  Raises :class:`StoreError`."""
    tmp = path.with_name(f".{path.name}.tmp")
    text = (json.dumps(data, indent=2, default=str) + "\n").encode("utf-8")
    try:
        with open(tmp, "wb") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except OSError as e:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
        if e.errno == errno.ENOSPC and path.exists():
            # a full disk has no room for a second copy: overwrite the record in place, in the
            # blocks it already owns (it only grows by a few bytes between writes)
            try:
                with open(path, "r+b") as fh:
                    fh.write(text)
                    fh.truncate()
                    fh.flush()
                    os.fsync(fh.fileno())
                return
            except OSError:
                pass
        raise StoreError(f"cannot write {path}: {e.strerror or type(e).__name__}") from None


def iter_tables(folder: Path, columns: list[str] | None = None) -> Iterator[pa.Table]:
    """Each part of ``folder`` as an Arrow table (only ``columns`` when given), in game order; read
    by :func:`read_part_table` (InputError naming a part that cannot be read)."""
    for p in part_files(folder):
        yield read_part_table(p, columns)


#: The schema-metadata key under which pandas records how to rebuild its frame.
_PANDAS_KEY = b"pandas"


def read_part_table(path: Path, columns: list[str] | None = None, drop: tuple[str, ...] = (),
                    what: str = "part") -> pa.Table:
    """A Parquet part (or any Parquet results file) as an Arrow table, safe to turn into pandas.

    Only ``columns`` (those that exist) when given, less ``drop``.  The file may come from
    someone else, so the pandas metadata pandas wrote into it (how to rebuild the frame's index
    and dtypes) is checked first (:func:`check_pandas_metadata`) and then left out: analyser never
    needs it (its tables have no index, and Arrow's own types give the same frame), so what pandas
    would do with it cannot go wrong.  Index columns it names are left out too.  Raises
    InputError (one line naming the file, ``what`` saying what it is) when the file cannot be read
    or its metadata is broken."""
    try:
        schema = pq.read_schema(path)
    except Exception as e:  # noqa: BLE001 - a damaged file raises many kinds
        raise InputError(f"{what} {str(path)!r} cannot be read: {type(e).__name__}") from None
    index = check_pandas_metadata(schema, path, what)
    names = schema.names if columns is None else [c for c in columns if c in schema.names]
    cols = [c for c in names if c not in drop and c not in index]
    try:
        table = pq.read_table(path, columns=cols)
    except Exception as e:  # noqa: BLE001
        fix = ""
        if what == "part" and Path(path).parent.name == RESULTS:  # (its footer reads: the data itself is damaged)
            import shlex
            fix = (f"; its data is damaged: remove it, and `analyser resume "
                   f"{shlex.quote(str(Path(path).parent.parent))}` plays its games again")
        raise InputError(f"{what} {str(path)!r} cannot be read: {type(e).__name__}{fix}") from None
    meta = {k: v for k, v in (table.schema.metadata or {}).items() if k != _PANDAS_KEY}
    return table.replace_schema_metadata(meta or None)


def check_pandas_metadata(schema: pa.Schema, path: Path, what: str = "part") -> set[str]:
    """The index columns named by the pandas metadata of a Parquet file's ``schema`` (usually
    none).  The metadata is JSON read with the caps of :func:`analyser.io.files.parse_json`; it must
    be an object whose ``index_columns`` are column names of the file or range indexes of exactly
    the file's number of rows, and whose ``columns`` is a list of objects.  Raises InputError (one
    line naming the file) otherwise: a truncated block, a huge range index, a deep nesting."""
    from analyser.io.files import parse_json
    raw = (schema.metadata or {}).get(_PANDAS_KEY)
    if raw is None:
        return set()
    where = f"{what} {str(path)!r}: its pandas metadata"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{where} is not UTF-8 text; the file is damaged or not written by pandas") from None
    meta = parse_json(text, where)
    bad = f"{where} is not what pandas writes"
    if not isinstance(meta, dict) or not isinstance(meta.get("index_columns", []), list) \
            or not isinstance(meta.get("columns", []), list) or not all(isinstance(c, dict) for c in meta.get("columns", [])):
        raise InputError(f"{bad} (index_columns and columns must be lists); the file is damaged")
    index = set()
    rows = None
    for entry in meta.get("index_columns", []):
        if isinstance(entry, str):
            if entry not in schema.names:
                raise InputError(f"{bad}: it names the index column {entry[:40]!r}, which the file lacks")
            index.add(entry)
            continue
        ok = isinstance(entry, dict) and entry.get("kind") == "range" and all(
            isinstance(entry.get(k), int) and not isinstance(entry.get(k), bool) for k in ("start", "stop", "step"))
        if not ok or entry["step"] == 0:
            raise InputError(f"{bad}: an index is neither a column name nor a range (start, stop, step)")
        if rows is None:
            rows = _row_count(path)
        a, b, step = entry["start"], entry["stop"], entry["step"]
        length = max(0, (b - a + step - (1 if step > 0 else -1)) // step)
        if length != rows:
            raise InputError(f"{bad}: its range index has {length:,} rows, but the file holds {rows:,}; the file is "
                             "damaged")
    return index


def check_folder_parts(out: Path) -> None:
    """Check the pandas metadata of every part in the run folder ``out`` (its results and any
    extra table), reading only their footers: InputError (one line naming the part) for a broken
    one.  A part whose footer cannot be read at all is left to :func:`scan_parts` (a part cut
    short by a kill, which a resumed run plays again)."""
    for folder in sorted(p for p in Path(out).iterdir() if p.is_dir()):
        for p in part_files(folder):
            try:
                schema = pq.read_schema(p)
            except Exception:  # noqa: BLE001 - a damaged part: redone by a resumed run
                continue
            check_pandas_metadata(schema, p)


def _row_count(path: Path) -> int:
    try:
        return pq.ParquetFile(path).metadata.num_rows
    except Exception as e:  # noqa: BLE001
        raise InputError(f"{str(path)!r} cannot be read: {type(e).__name__}") from None


# --------------------------------------------------------------------------------------------
# The lock
# --------------------------------------------------------------------------------------------

#: The run locks this process has taken and not yet released: path -> the :class:`RunLock`.
_HELD: dict[str, "RunLock"] = {}


def held_locks() -> set[str]:
    """The paths of the run locks this process holds now (see :func:`release_held_locks`)."""
    return set(_HELD)


def release_held_locks(keep: set[str] = frozenset()) -> list[str]:
    """Release every run lock this process holds, except the paths in ``keep``, and return the
    paths released.  A command calls it as its last step, so a lock whose own release a Ctrl-C
    cut short leaves no file behind.  The operating system drops the lock itself when the process
    ends, whatever ends it."""
    removed = []
    for path in sorted(set(_HELD) - set(keep)):
        lock = _HELD.pop(path)
        if isinstance(lock, RunLock) and _let_go(lock):
            removed.append(path)
    return removed


def _let_go(lock: "RunLock") -> bool:
    """Remove a held lock's file and drop the lock (the file first, while the lock still guards
    it); False when ``lock`` is not held."""
    fd, lock.fd = lock.fd, None
    if fd is None:
        return False
    with contextlib.suppress(OSError):
        lock.path.unlink(missing_ok=True)
    os.close(fd)  # (closing the descriptor drops its lock)
    return True


def _locked(path: Path, create: bool) -> int | None:
    """A read-only descriptor of ``path`` holding its exclusive lock (``fcntl.flock``), or None
    when another descriptor holds it.  Read-only: the lock keeps no file open for writing."""
    fd = os.open(path, os.O_RDONLY | (os.O_CREAT if create else 0), 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    except BaseException:
        os.close(fd)
        raise
    return fd


class RunLock:
    """An operating-system lock (``flock``) on ``OUT/.lock`` while a run writes the folder; the
    file names the holder (``<pid> <host>``) for the message of a second run, which refuses
    (InputError).  A process that dies, however it dies, holds no lock any more."""

    def __init__(self, folder: Path):
        self.path = Path(folder) / LOCK
        self.fd: int | None = None
        #: the lock this process already held on the folder (re-entered: nothing more is taken)
        self.outer: RunLock | None = None

    def acquire(self) -> "RunLock":
        folder = self.path.parent
        outer = _HELD.get(str(self.path))
        if outer is not None and outer is not self and outer.fd is not None:
            self.outer = outer  # (a command holds the folder around its runs and its report)
            return self
        _HELD[str(self.path)] = self  # (before the lock: a signal from here on leaves nothing behind)
        try:
            while self.fd is None:
                fd = _locked(self.path, create=True)
                if fd is None:
                    _HELD.pop(str(self.path), None)
                    raise InputError(in_use_message(folder, holder_of(folder) or (0, "?"), "--out ",
                                                    "wait for it, choose another folder"))
                try:  # (the file its last holder removed as this process took it: take the new one)
                    same = os.path.samestat(os.fstat(fd), os.stat(self.path))
                except FileNotFoundError:
                    same = False
                self.fd = fd if same else os.close(fd)
            with os.fdopen(os.open(self.path, os.O_WRONLY | os.O_TRUNC), "w") as fh:
                fh.write(f"{os.getpid()} {socket.gethostname()}\n")
        except OSError as e:
            self.release()
            raise InputError(f"--out {str(folder)!r} is not writable ({e.strerror or type(e).__name__}); choose "
                             "a folder you can write to") from None
        except InputError:
            raise
        except BaseException:
            self.release()
            raise
        return self

    def release(self) -> None:
        if self.outer is not None:  # (re-entered: the outer holder lets go)
            self.outer = None
            return
        _let_go(self)
        _HELD.pop(str(self.path), None)

    def __enter__(self):
        return self.acquire()

    def __exit__(self, *exc):
        self.release()
        return False


def holder_of(folder: Path) -> tuple[int, str] | None:
    """``(pid, host)`` of another process holding ``folder``'s run lock, else None (no lock file,
    or one no process holds: what a killed run leaves)."""
    path = Path(folder) / LOCK
    try:
        fd = _locked(path, create=False)
        text = path.read_text(errors="replace").split() if fd is None else []
    except OSError:  # (no lock file, or one this process cannot open: no run of its own can be writing)
        return None
    if fd is not None:
        os.close(fd)
        return None
    pid = int(text[0]) if text and text[0].isdigit() else 0
    host = text[1] if len(text) > 1 else socket.gethostname()
    return None if (pid, host) == (os.getpid(), socket.gethostname()) else (pid, host)
