"""Reading files a user hands us (component files, saved states), safely.

Every file that comes from outside goes through here, so three promises hold everywhere:

* **Bounded.**  Only a regular file is read (a device such as ``/dev/zero`` or ``/dev/urandom``,
  a FIFO, a socket or a folder is refused before a byte is read), and never more than
  ``max_bytes`` of it: a file that turns out larger is refused.  Files in ``/proc`` report a
  size of 0, so the cap is enforced on the bytes actually read, not on the size ``stat`` gives.
* **Quiet.**  No message ever quotes the file's content.  A message names the file, the line
  number and what was expected there, so pointing a rule option at ``/etc/shadow`` or
  ``/proc/self/environ`` cannot print a secret.
* **Typed.**  JSON is parsed with a nesting cap and with whole numbers bounded by their number of
  digits before Python converts them (a 5,000-digit number would otherwise hit Python's
  int-string limit); ``NaN``/``Infinity`` and duplicate keys are refused.

Errors are :class:`~analyser.engine.core.InputError` (one line; the CLI exits with code 2).
"""

from __future__ import annotations

import csv
import itertools
import json
import os
import re
import stat
from pathlib import Path
from typing import Any

from analyser.engine.core import InputError

#: Size cap of a component file (tile sets, layouts, card lists), in bytes.
COMPONENT_MAX_BYTES = 1_000_000
#: Size cap of a saved state (``analyser play --state``), in bytes.
STATE_MAX_BYTES = 4_000_000
#: Size cap of a run's or an experiment's ``config.json``, in bytes.
CONFIG_MAX_BYTES = 10_000_000
#: Deepest nesting of arrays and objects accepted in a JSON file.
JSON_MAX_DEPTH = 32
#: Most digits a JSON whole number may have (2**64 has 20).
JSON_MAX_DIGITS = 20


def _describe_kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISFIFO(mode):
        return "a pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def read_bytes(path: str | Path, what: str, max_bytes: int = COMPONENT_MAX_BYTES) -> bytes:
    """The bytes of the regular file ``path``, at most ``max_bytes`` of them.

    ``what`` names the file in messages (e.g. ``"tiles file"``, ``"--state"``).  Raises
    :class:`InputError` when the file is missing, unreadable, not a regular file (device, FIFO,
    socket, folder; refused without blocking) or larger than ``max_bytes``.
    """
    name = str(path)
    st = _stat_regular(path, what)
    if st.st_size > max_bytes:
        raise InputError(f"{what} {name!r} is {st.st_size:,} bytes; the most accepted is {max_bytes:,}")
    try:
        # O_NONBLOCK: should the path be swapped for a FIFO after the check, open does not hang
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as e:
        raise InputError(f"{what} {name!r} cannot be read: {e.strerror or type(e).__name__}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise InputError(f"{what} {name!r} is {_describe_kind(os.fstat(fd).st_mode)}; give a regular file")
        chunks, size = [], 0
        while size <= max_bytes:
            chunk = os.read(fd, min(1 << 16, max_bytes + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as e:
        raise InputError(f"{what} {name!r} cannot be read: {e.strerror or type(e).__name__}") from None
    finally:
        os.close(fd)
    if size > max_bytes:
        raise InputError(f"{what} {name!r} is larger than {max_bytes:,} bytes, the most accepted")
    return b"".join(chunks)


def read_text(path: str | Path, what: str, max_bytes: int = COMPONENT_MAX_BYTES) -> str:
    """:func:`read_bytes` decoded as UTF-8 (a byte-order mark, as Excel writes, is dropped).

    A file that is not UTF-8 text, or holds NUL bytes, raises :class:`InputError` naming the
    line of the first bad byte (never the bytes).
    """
    data = read_bytes(path, what, max_bytes)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise InputError(f"{what} {str(path)!r}: line {line}: not UTF-8 text; save it as UTF-8") from None
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        raise InputError(f"{what} {str(path)!r}: line {line}: a NUL byte; this is not a text file")
    return text


def read_component_file(path: str | Path, what: str, max_bytes: int = COMPONENT_MAX_BYTES) -> str:
    """The text of a component file named by a rule option (a tile set, a layout, a card list).

    ``what`` is the rule option, e.g. ``"tiles"``; messages then read ``tiles file 'x.csv': ...``.
    Same promises and errors as :func:`read_text`, with the component-file cap of 1 MB.
    """
    return read_text(path, f"{what} file", max_bytes)


def read_component_rows(path: str | Path, what: str, header: list[str],
                        max_bytes: int = COMPONENT_MAX_BYTES) -> list[tuple[int, list[str]]]:
    """A component CSV file as ``[(line number, [field, ...]), ...]`` after its header.

    Blank lines and lines starting with ``#`` are skipped; fields are stripped.  The first
    remaining line must be ``header`` (case-insensitive).  Raises :class:`InputError` naming the
    file and line, never quoting them.
    """
    text = read_component_file(path, what, max_bytes)
    lines = [(i + 1, ln) for i, ln in enumerate(text.splitlines()) if ln.strip() and not ln.lstrip().startswith("#")]
    if not lines:
        raise InputError(f"{what} file {str(path)!r} is empty; it needs the header {','.join(header)}")
    reader = csv.reader([ln for _, ln in lines], strict=True)
    try:
        rows = list(reader)
    except csv.Error as e:
        line = lines[min(max(reader.line_num, 1), len(lines)) - 1][0]
        raise InputError(f"{what} file {str(path)!r}: line {line}: not CSV ({_csv_reason(e)})") from None
    got = [h.strip().lower() for h in rows[0]]
    if got != header:
        raise InputError(f"{what} file {str(path)!r}: line {lines[0][0]}: expected the header "
                         f"{','.join(header)}")
    return [(lines[i][0], [x.strip() for x in row]) for i, row in enumerate(rows) if i > 0]


def _csv_reason(e: csv.Error) -> str:
    # csv errors describe the syntax ("unexpected end of data"), but may quote a character: keep
    # only the words before any quote
    return re.split(r"['\"]", str(e), maxsplit=1)[0].strip() or "malformed quoting"


# --------------------------------------------------------------------------------------------
# JSON
# --------------------------------------------------------------------------------------------

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_BRACKETS = re.compile(r"[\[\]{}]")


class _JSONLimit(ValueError):
    pass


def _parse_int(s: str) -> int:
    if len(s.lstrip("-")) > JSON_MAX_DIGITS:
        raise _JSONLimit(f"a whole number with {len(s.lstrip('-')):,} digits; the most accepted is "
                         f"{JSON_MAX_DIGITS}")
    return int(s)


def _parse_constant(s: str):
    raise _JSONLimit(f"{s} is not a number JSON accepts here; give a finite number")


def _no_duplicates(pairs):
    out = {}
    for k, v in pairs:
        if k in out:
            raise _JSONLimit("an object names the same key twice")
        out[k] = v
    return out


def parse_json(text: str, what: str, max_depth: int = JSON_MAX_DEPTH) -> Any:
    """Parse JSON ``text`` from a user with a nesting cap, bounded whole numbers, no NaN or
    infinity and no duplicate keys.  ``what`` names the source in messages.  The message of a
    syntax error gives the line and column, never the text."""
    marks = _BRACKETS.findall(_STRING.sub("", text))  # (strings skipped)
    depth = max(itertools.accumulate((1 if m in "[{" else -1 for m in marks), initial=0))
    if depth > max_depth:
        raise InputError(f"{what} nests arrays and objects {depth} deep; the most accepted is {max_depth}")
    try:
        return json.loads(text, parse_int=_parse_int, parse_constant=_parse_constant,
                          object_pairs_hook=_no_duplicates)
    except _JSONLimit as e:
        raise InputError(f"{what}: {e}") from None
    except json.JSONDecodeError as e:
        raise InputError(f"{what} is not JSON: {e.msg.removesuffix(' at')} at line {e.lineno}, column {e.colno}") from None
    except (RecursionError, ValueError):
        raise InputError(f"{what} is not JSON that can be read") from None


def read_json(path: str | Path, what: str, max_bytes: int = STATE_MAX_BYTES,
              max_depth: int = JSON_MAX_DEPTH) -> Any:
    """:func:`read_text` then :func:`parse_json`: a bounded, strictly parsed JSON file."""
    text = read_text(path, what, max_bytes)
    return parse_json(text, f"{what} {str(path)!r}", max_depth)


def check_regular_file(path: str | Path, what: str) -> Path:
    """``path`` as a Path when it is an existing regular file; :class:`InputError` otherwise
    (missing, a device such as ``/dev/zero``, a FIFO, a socket).  For files read by a library
    (Parquet, CSV) that may legitimately be large, so no size cap applies."""
    p = Path(path)
    _stat_regular(p, what)
    return p


def _stat_regular(path: str | Path, what: str) -> os.stat_result:
    """``os.stat(path)`` of an existing regular file; :class:`InputError` (one line naming the
    file) when it is missing, unreadable, or a device, FIFO, socket or folder."""
    name = str(path)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise InputError(f"{what} {name!r} does not exist") from None
    except OSError as e:
        raise InputError(f"{what} {name!r} cannot be read: {e.strerror or type(e).__name__}") from None
    if not stat.S_ISREG(st.st_mode):
        raise InputError(f"{what} {name!r} is {_describe_kind(st.st_mode)}; give a regular file")
    return st
