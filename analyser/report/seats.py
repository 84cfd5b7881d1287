"""The seat tables of a report for reading: strategy by seat, and the seat compensation (the
numbers come from :mod:`analyser.report.summaries` and :mod:`analyser.stats.seats`)."""

from __future__ import annotations

import pandas as pd

from analyser.stats import analysis
from analyser.text import pct, signed


def strategy_seat_display(table: pd.DataFrame) -> pd.DataFrame:
    """The strategy-by-seat table for reading: one row per strategy, one column per seat, each
    cell its win rate there with the 95% interval (``52.1% (49.0-55.2%)``), ``-`` where it never
    sat."""
    seats = sorted(int(x) for x in pd.unique(table["seat"]))
    d = win_decimals(table)  # one column's decimals

    def cell(r) -> str:
        return (f"{analysis.percent(r['win_rate'], places=d)} "
                f"({analysis.percent_ci(r['win_low'], r['win_high'], places=d)})")

    rows = []
    for name in dict.fromkeys(table["strategy"].astype(str)):
        sub = table[table["strategy"].astype(str) == name].set_index("seat")
        cells = {f"seat {k}": cell(sub.loc[k]) if k in sub.index else "-" for k in seats}
        rows.append({"strategy": name, **cells})
    return pd.DataFrame(rows)


def win_decimals(seats: pd.DataFrame) -> int:
    """The decimals of the seat table's win rates (:func:`analyser.text.decimals` of their 95%
    intervals, the median row), which every table of win rates per seat shows."""
    return analysis.decimals((seats["win_high"] - seats["win_low"]).to_numpy() * 50)


def compensation_display(table: pd.DataFrame, unit: str, places: int = 1) -> pd.DataFrame:
    """The seat compensation for reading: per seat its win rate, the handicap (head start in a
    race) with its 95% interval, the win rate at that handicap and the tie-break share.  The win
    rates show ``places`` decimals: the seat table's (:func:`win_decimals`)."""
    kind = table.attrs.get("kind", "highest score")
    word = "head start" if kind == "race" else "handicap"
    rows = []
    for _, r in table.iterrows():
        ahead = kind == "race" and r["win_rate"] >= r["fair_share"]  # a head start goes to the seats behind
        h, lo, tie = r["handicap"], r["handicap_low"], r["tie_share"]
        ci = f"{signed(lo, None)} to {signed(r['handicap_high'], None)}" if lo == lo else "n/a"
        rows.append({"seat": int(r["seat"]), "win rate": pct(r["win_rate"], places),
                     f"{word} ({unit})": "none (ahead)" if ahead else signed(h, None) if h == h else "n/a",
                     "95% CI": "-" if ahead else ci,
                     f"win rate with the {word}": "-" if ahead else pct(r["win_at_handicap"], places),
                     "tie-break share": "-" if ahead or tie != tie else pct(tie, 0)})
    return pd.DataFrame(rows)
