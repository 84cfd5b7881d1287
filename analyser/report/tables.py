"""The HTML tables of every report page: a display frame as an escaped ``table.data``
(:func:`render_table`), formatted like the run report's tables (:func:`html_table`), in a box that
scrolls sideways with the hint the page shows then (:func:`wrap_table`).  May import the layers
below the report (here only :mod:`analyser.stats`)."""

from __future__ import annotations

from html import escape
import re

import pandas as pd

from analyser.stats import analysis


#: Shown above a table that is wider than the window (the page's script reveals it).
WIDE_HINT = "This table is wider than the window: scroll it sideways (a shadow marks the hidden side)."


def wrap_table(html: str) -> str:
    """An HTML table in a box that scrolls sideways when the window is narrower than the table
    (cells never wrap; headers wrap at spaces first), with the hint the page shows then."""
    return f'<p class="wide-hint">{WIDE_HINT}</p><div class="table-wrap">{html}</div>'


#: A text column with a cell longer than this (characters) is prose: its cells wrap.
PROSE_CHARS = 48


def render_table(df: pd.DataFrame, header: bool = True) -> str:
    """A display frame (cells already formatted) as an escaped HTML ``table.data``.  Numbers are
    right-aligned, text columns left-aligned.  Cells do not wrap (an interval stays on one
    line), except in a prose column - a text column with a cell longer than
    :data:`PROSE_CHARS` characters, such as a verdict - whose cells wrap."""
    def numeric(v) -> bool:  # a number as the tables print it: 12.3, -0.5 pp, 41.2%, < 1e-300, -, n/a
        return bool(re.match(r"^\s*([<>]\s*)?[-+]?(\d|\.\d)", str(v))) or str(v).strip() in ("-", "n/a", "")

    kinds = []
    for c in df.columns:
        text = len(df) and not pd.api.types.is_numeric_dtype(df[c]) and not all(numeric(v) for v in df[c])
        kinds.append(("prose" if max(len(str(v)) for v in df[c]) > PROSE_CHARS else "text") if text else "")
    cls = [f' class="{k}"' if k else "" for k in kinds]
    out = ['<table class="data">']
    if header:
        out.append("<thead><tr>" + "".join(f"<th{a}>{escape(str(c))}</th>" for c, a in zip(df.columns, cls))
                   + "</tr></thead>")
    out.append("<tbody>")
    for row in df.itertuples(index=False):
        out.append("<tr>" + "".join(f"<td{a}>{escape(str(v))}</td>" for v, a in zip(row, cls)) + "</tr>")
    out.append("</tbody></table>")
    return "\n".join(out)


def html_table(df: pd.DataFrame, formatted: bool = False) -> str:
    """A frame as an HTML table, formatted like the run report's tables
    (:func:`analyser.stats.analysis.format_table`), or shown as it is when ``formatted`` (its cells
    and headers already read as they should)."""
    return wrap_table(render_table(df if formatted else analysis.format_table(df)))
