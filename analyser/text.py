"""Numbers and words as every output shows them: the terminal, the HTML report and the PNGs.

One rounding rule everywhere, half to even on the decimal value (:func:`fixed`; docs/results.md,
"Decimals follow the interval"): ``f"{45.15:.1f}"`` rounds the binary float 45.149... down, so
:func:`fixed` reads the float's shortest decimal first.  Negative numbers use the ASCII
hyphen-minus (a figure pasted into a spreadsheet reads back as a number); NaN and None show as
:data:`MISSING`.

Sentences come from jinja2 templates in ``analyser/sentences/`` that read records (:func:`sentences`,
:func:`phrase`); the templates spell numbers with this module's functions, as filters of the same
names.

This module sits at the root of the package: every layer may import it, and it imports nothing
of analyser.
"""

from __future__ import annotations

import functools
import math
import re
import unicodedata
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Iterable

import jinja2
import numpy as np

#: What a missing figure (None or NaN) shows as.
MISSING = "-"


def _missing(x) -> bool:
    if x is None:
        return True
    try:
        return math.isnan(float(x))
    except (TypeError, ValueError):
        return False


def fixed(x, places: int) -> str:
    """``x`` with exactly ``places`` decimals, rounded half to even on its decimal value (the
    shortest decimal of the float, to 12 significant digits).  ``-0`` shows as ``0``; NaN and
    infinities as ``%f`` does."""
    x = float(x)
    if not math.isfinite(x):
        return f"{x:.{places}f}"
    q = Decimal(f"{x:.12g}").quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_EVEN)
    return f"{abs(q) if q == 0 else q:f}"  # never -0


def _trim(text: str) -> str:
    return text.rstrip("0").rstrip(".") if "." in text else text


def _significant_places(x: float, significant: int) -> int:
    """The decimals that leave ``significant`` significant digits (none for a number of that many
    digits or more before the point: never scientific notation)."""
    if x == 0 or not math.isfinite(x):
        return 0
    return max(0, significant - 1 - math.floor(math.log10(abs(x))))


def number(x, decimals: int | None = None, significant: int = 3, trim: bool = False) -> str:
    """A figure for reading.  ``decimals`` given: exactly that many (a table column reads alike),
    or at most that many with ``trim`` (trailing zeros dropped: ``6.25``, ``12.5``, ``10``).
    Else a whole number shows without a point (``61``), and any other with ``significant``
    significant digits, trailing zeros dropped (``61.5``, ``1.33``, ``0.0123``, ``1234``; never
    ``1.23e+03``).  :data:`MISSING` for None or NaN."""
    if _missing(x):
        return MISSING
    x = float(x)
    if decimals is not None:
        return _trim(fixed(x, decimals)) if trim else fixed(x, decimals)
    if x.is_integer():
        return fixed(x, 0)
    places = _significant_places(x, significant)
    text = _trim(fixed(x, places))
    if text in ("0", "-0"):  # rounds to zero with these digits: show a little more rather than 0
        return _trim(fixed(x, _significant_places(x, 1)))
    return text


def pct(x, decimals: int | None = 1, significant: int = 3) -> str:
    """A proportion (0-1) as a percentage: ``pct(0.4515)`` -> ``45.2%``.  ``decimals=None``: the
    :func:`number` of the percentage (``12.5%``, ``6.25%``, ``10%``).  :data:`MISSING` for None or
    NaN."""
    if _missing(x):
        return MISSING
    return number(100 * float(x), decimals, significant) + "%"


def signed(x, decimals: int | None = 1, significant: int = 3) -> str:
    """A difference with its sign: ``+1.2``, ``-3.4``; a value that rounds to zero is ``0`` (no
    sign, no decimals).  ``decimals=None``: the :func:`number` of the value (``+6``, ``+2.5``).
    :data:`MISSING` for None or NaN."""
    if _missing(x):
        return MISSING
    text = number(x, decimals, significant)
    if not text.strip("-0."):
        return "0"
    return text if text.startswith("-") else "+" + text


#: The most decimals :func:`decimals` ever asks for.
MOST_DECIMALS = 4
def decimals(half_width, default: int = 1) -> int:
    """How many decimals to show a number whose 95% interval has half-width ``half_width``
    (in the unit shown): the digit below the half-width's leading digit (docs/results.md,
    "Decimals follow the interval"); an array (a table column) by its median finite
    half-width.  No finite positive half-width: ``default``.  At most :data:`MOST_DECIMALS`."""
    h = np.asarray(half_width, dtype=float).ravel()
    h = h[np.isfinite(h) & (h > 0)]
    if not len(h):
        return default
    return int(min(MOST_DECIMALS, max(0, 1 - math.floor(math.log10(float(np.median(h)))))))


def percent(value, low=None, high=None, places: int | None = None) -> str:
    """A proportion (0-1) as a percentage with the decimals its interval ``low``-``high``
    (proportions) calls for (:func:`decimals`), or ``places``; ``-`` for NaN."""
    if value is None or value != value:
        return "-"
    d = places if places is not None else decimals(_half_pp(low, high))
    return fixed(100 * value, d) + "%"


def percent_ci(low, high, places: int | None = None) -> str:
    """A 95% interval of proportions as ``a-b%`` with the decimals of :func:`decimals`."""
    if low is None or high is None or low != low or high != high:
        return "n/a"
    d = places if places is not None else decimals(_half_pp(low, high))
    return f"{fixed(100 * low, d)}-{fixed(100 * high, d)}%"


def _half_pp(low, high):
    """The half-width of an interval of proportions, in percentage points (NaN without one)."""
    if low is None or high is None:
        return math.nan
    return (np.asarray(high, dtype=float) - np.asarray(low, dtype=float)) * 50


#: How a p-value too small for a float (it underflows to 0) is printed.
P_FLOOR = "< 1e-300"


def p_text(p, digits: int = 2) -> str:
    """``p = 0.012`` for running text (``p < 1e-300`` below the float range, ``p n/a`` for NaN)."""
    if p is None or p != p:
        return "p n/a"
    if p < 1e-300:
        return "p " + P_FLOOR
    return f"p = {p:.{digits}g}"


def thousands(n) -> str:
    """A count with thousands separators: ``12,345`` (a float is rounded half to even first)."""
    if _missing(n):
        return MISSING
    return f"{int(Decimal(fixed(n, 0))):,}"


def plural(n, noun: str, plural_form: str | None = None) -> str:
    """``1 card``, ``2 cards``, ``1,000 games``; ``plural_form`` for an irregular plural
    (``plural(3, "body", "bodies")``)."""
    word = noun if n == 1 else (plural_form or noun + "s")
    return f"{thousands(n)} {word}"


def amount(x, unit: str) -> str:
    """``x`` (as :func:`number` shows it) and ``unit``, a unit named in the plural (``points``,
    ``turns afloat``, ``geld``), in the singular when ``x`` shows as 1: ``1 point``,
    ``1 turn afloat``, ``2 points``, ``0.5 points``, ``1 geld``."""
    shown = number(x)
    if shown == "1":
        head, sep, rest = unit.partition(" ")
        unit = (head[:-1] if head.endswith("s") and not head.endswith("ss") else head) + sep + rest
    return f"{shown} {unit}"


def ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th``, ``11th``, ``21st``."""
    n = int(n)
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def estimate(value, low=None, high=None, places: int = 1, unit: str = "") -> str:
    """A figure with its interval, ``value (low to high)``, each with ``places`` decimals and the
    ``unit`` (``"%"``, ``" pp"``) after the value; the :func:`number` of the value alone without an
    interval; :data:`MISSING` for a missing value."""
    if _missing(value):
        return MISSING
    if _missing(low):
        return number(value) + unit
    return f"{fixed(value, places)}{unit} ({fixed(low, places)} to {fixed(high, places)})"


def yes_no(flag) -> str:
    """``yes`` or ``no`` for a table cell (never Python's ``True``); :data:`MISSING` for None or NaN."""
    return MISSING if _missing(flag) else ("yes" if flag else "no")


def names_list(items: Iterable, conjunction: str = "and") -> str:
    """``a``, ``a and b``, ``a, b and c``; ``""`` for none."""
    items = [str(x) for x in items]
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {conjunction} {items[-1]}"


def width(text: str) -> int:
    """Terminal columns ``text`` takes: two for a wide or full-width character (Unicode East Asian
    Width W or F, as CJK script), none for a combining mark, one otherwise."""
    return sum(0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1
               for ch in str(text))


def terminal(text) -> str:
    """``text`` as a terminal table cell: composed (Unicode NFC), so that a character typed as a
    base and a combining mark (a file name from macOS is decomposed: ``が`` is ``か`` and U+3099)
    takes the columns :func:`width` and the table's padding count for it."""
    return unicodedata.normalize("NFC", str(text))


def terminal_table(table, header: bool = True) -> str:
    """A pandas table (its cells already text, as ``analysis.format_table`` gives them) for the
    terminal: every text cell and heading composed (:func:`terminal`), columns padded by display
    width (a wide or full-width character, as CJK script, takes two columns), no index.  The one
    place the terminal's tables are laid out."""
    import pandas as pd  # (the caller has it already: a table is a DataFrame)

    cells = table.map(lambda v: terminal(v) if isinstance(v, str) else v)
    cells.columns = [terminal(c) if isinstance(c, str) else c for c in table.columns]
    with pd.option_context("display.unicode.east_asian_width", True):
        return cells.to_string(index=False, header=header)


def wrap(text: str, chars: int) -> list[str]:
    """``text`` broken into lines of at most ``chars`` display columns, at spaces only; a single
    word longer than a line stands on its own line, whole."""
    lines: list[str] = []
    for word in str(text).split():
        if lines and width(lines[-1]) + 1 + width(word) <= chars:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines


# --------------------------------------------------------------------------------------------
# Sentences from templates
# --------------------------------------------------------------------------------------------

#: The filters the sentence templates spell numbers and words with (this module's functions).
FILTERS = {"fixed": fixed, "percent": percent, "percent_ci": percent_ci, "decimals": decimals, "p_text": p_text,
           "number": number, "pct": pct, "signed": signed, "thousands": thousands,
           "plural": plural, "names": names_list, "ordinal": ordinal, "estimate": estimate, "amount": amount}


class _RecordEnvironment(jinja2.Environment):
    """Templates over records: ``r.key`` of a dict is its item ``key`` first (a key such as
    ``clear`` or ``items`` is never the dict's method of that name)."""

    def getattr(self, obj, attribute):
        if isinstance(obj, dict) and attribute in obj:
            return obj[attribute]
        return super().getattr(obj, attribute)


@functools.cache
def _templates() -> jinja2.Environment:
    env = _RecordEnvironment(loader=jinja2.PackageLoader("analyser", "sentences"), autoescape=False,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                             extensions=["jinja2.ext.do"])
    env.filters.update(FILTERS)
    return env


def _paragraphs(text: str) -> list[str]:
    """Blank-line separated paragraphs, each on one line with its white space collapsed; a
    paragraph that starts with ``- `` is an item under the line before it, indented two spaces."""
    out = []
    for block in re.split(r"\n[ \t]*\n", text):
        words = " ".join(block.split())
        if words:
            out.append("  " + words[2:] if words.startswith("- ") else words)
    return out


def sentences(template: str, **record) -> list[str]:
    """The lines the template ``template`` (a file of ``analyser/sentences/``) writes from
    ``record``: one per paragraph (paragraphs are separated by a blank line; the white space
    inside one collapses to single spaces, so a template may wrap a sentence over several lines;
    a paragraph starting ``- `` shows indented by two spaces, as an item of the line before)."""
    return _paragraphs(_templates().get_template(template).render(**record))


def layout(template: str, **record) -> list[str]:
    """The lines the template ``template`` writes from ``record``, as written (for a layout of
    lines, such as the terminal's findings, where :func:`sentences` would join them)."""
    return _templates().get_template(template).render(**record).splitlines()


def markup(template: str, macro: str, *args, **kwargs) -> str:
    """The text of the macro ``macro`` of ``template`` called with ``args``/``kwargs``, as written
    (stripped, white space kept: for HTML whose values, such as paths, must stay exact)."""
    return str(getattr(_templates().get_template(template).module, macro)(*args, **kwargs)).strip()


def phrase(template: str, macro: str, *args, **kwargs) -> str:
    """The text of the macro ``macro`` of ``template`` called with ``args``/``kwargs``, its white
    space collapsed to single spaces."""
    return " ".join(str(getattr(_templates().get_template(template).module, macro)(*args, **kwargs)).split())
