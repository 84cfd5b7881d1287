"""Writing CSV files that are safe to open in a spreadsheet, and reading them back as written
(docs/results.md, "CSV files", is the contract).

Every CSV file analyser writes goes through :func:`to_csv`, which prefixes a *text* cell that
starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return with a single quote (OWASP's
advice on CSV injection); numbers are never changed, and column and index labels are text cells
too.  :func:`restore_frame` removes exactly one quote when analyser reads a CSV file back, so a
text cell that already starts with quotes and one of those characters gains one more quote, and
the round trip is exact.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

#: First characters that make a spreadsheet read a cell as a formula (OWASP, CSV injection).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def neutralise(text: str) -> str:
    """``text`` as a CSV cell a spreadsheet shows as text: a single quote in front when it starts
    (after any quotes) with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return."""
    return "'" + text if text.lstrip("'")[:1] in FORMULA_STARTS and text.lstrip("'") else text


def restore(text: str) -> str:
    """The inverse of :func:`neutralise`: one leading quote removed from a cell it would have
    quoted."""
    return text[1:] if text[:1] == "'" and text.lstrip("'")[:1] in FORMULA_STARTS and text.lstrip("'") else text


def _map_text(values, fn):
    return [fn(v) if isinstance(v, str) else v for v in values]


def _may_change(col: pd.Series) -> bool:
    """Whether any text cell of ``col`` starts with a quote or a formula character (a vectorised
    test, so the cells of a large column are only visited when one needs it)."""
    try:
        first = col.str[:1]
    except AttributeError:
        return True
    return bool(first.isin(FORMULA_STARTS + ("'",)).any())


def _map_labels(index: pd.Index, fn) -> pd.Index:
    if isinstance(index, pd.MultiIndex):
        return index.set_levels([_map_labels(level, fn) for level in index.levels])
    if index.dtype == object or pd.api.types.is_string_dtype(index.dtype):
        return pd.Index(_map_text(index, fn), name=fn(index.name) if isinstance(index.name, str) else index.name,
                        dtype=index.dtype)
    return index


def _map_frame(df: pd.DataFrame, fn) -> pd.DataFrame:
    """A copy of ``df`` with ``fn`` applied to every text cell, column label and index label (numbers
    untouched).  Categorical columns map their categories only, so a large column costs little."""
    out = df.copy(deep=False)
    for i in range(df.shape[1]):
        col = df.iloc[:, i]
        if isinstance(col.dtype, pd.CategoricalDtype):
            cats = col.cat.categories
            if cats.dtype == object or pd.api.types.is_string_dtype(cats.dtype):
                mapped = _map_text(cats, fn)
                if mapped != list(cats):
                    col = col.cat.rename_categories(mapped)
        elif (col.dtype == object or pd.api.types.is_string_dtype(col.dtype)) and _may_change(col):
            col = pd.Series(_map_text(col.tolist(), fn), index=col.index, dtype=col.dtype, name=col.name)
        out.isetitem(i, col)
    out.columns = _map_labels(df.columns, fn)
    out.index = _map_labels(df.index, fn)
    return out


def restore_frame(df: pd.DataFrame) -> pd.DataFrame:
    """A frame read from a CSV file analyser wrote, with its text cells and labels
    :func:`restore`\\ d (the inverse of what :func:`to_csv` writes)."""
    return _map_frame(df, restore)


def to_csv(df: pd.DataFrame, path: str | Path | None = None, **kwargs):
    """``df.to_csv(path, **kwargs)`` with every text cell and label neutralised (:func:`neutralise`).
    Every CSV file analyser writes goes through here.  Returns the text when ``path`` is None."""
    return _map_frame(df, neutralise).to_csv(path, **kwargs)
