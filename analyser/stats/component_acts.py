"""Components measured where they act - per placement, per round, per purchase - rather than per
seat-game (a title's ``component_acts`` hook, :mod:`analyser.engine.hooks`): the rate estimate of
uses (:func:`rate_estimate`) and the mark that an estimate frame was measured so
(:func:`measured_where_it_acts`), which the component findings read for their wording."""

from __future__ import annotations

import numpy as np
from analyser.stats.components import COLUMNS, MIN_HOLDERS, Q, Z95


def rate_estimate(counts, catalog: dict | None = None, *, unit: str = "placements", note: str = "",
                  wording: dict | None = None):
    """Components measured where they act, as a rate per use rather than per seat-game: ``counts``
    ``{component id: (uses, good)}`` (e.g. a tile's placements and those its ship stayed afloat
    through).  A component's *effect*: its good rate minus that of every other component's uses
    (pp), with Newcombe's 95% interval and Fisher's exact p (the uses treated as independent: an
    approximation; ``se`` is the interval's width / 3.92), Benjamini-Hochberg over the estimates,
    ranked as :func:`analyser.stats.components.estimate`; under ``MIN_HOLDERS`` uses (its own or
    the others') no estimate, with the reason.  Returns the :data:`analyser.stats.components.COLUMNS`
    frame (``holders`` = uses, ``win_with``/``win_without`` = good rates), marked by
    :func:`measured_where_it_acts`."""
    import pandas as pd
    from statsmodels.stats.multitest import multipletests
    from scipy.stats import fisher_exact
    from statsmodels.stats.proportion import confint_proportions_2indep

    catalog = catalog or {}
    ids = list(catalog) + sorted(c for c in counts if c not in catalog)
    total_n = sum(int(n) for n, _ in counts.values())
    total_k = sum(int(k) for _, k in counts.values())
    rows = []
    for cid in ids:
        n, k = (int(x) for x in counts.get(cid, (0, 0)))
        on, ok = total_n - n, total_k - k
        row = {c: np.nan for c in COLUMNS}
        row.update(component=cid, what=str((catalog.get(cid) or {}).get("what") or ""), holders=n,
                   seat_games=total_n, share=n / total_n if total_n else np.nan, reason="", peer_group="",
                   win_with=k / n if n else np.nan, win_without=ok / on if on else np.nan, clear=False)
        if n < MIN_HOLDERS or on < MIN_HOLDERS:
            row["reason"] = f"fewer than {MIN_HOLDERS} {unit}" + ("" if n < MIN_HOLDERS else " of the others")
        else:
            d = k / n - ok / on
            if k + ok in (0, n + on):  # every use good (or none): nothing to compare
                row["reason"] = f"every one of the {unit} alike"
            else:
                low, high = confint_proportions_2indep(k, n, ok, on, method="newcomb", compare="diff", alpha=0.05)
                p = fisher_exact([[k, n - k], [ok, on - ok]]).pvalue
                row.update(effect=d * 100, se=(high - low) / (2 * Z95) * 100, effect_low=low * 100,
                           effect_high=high * 100, p=float(p))
        rows.append(row)
    out = pd.DataFrame(rows, columns=list(COLUMNS))
    est = out["p"].notna().to_numpy()
    if est.any():
        reject, q, _, _ = multipletests(out.loc[est, "p"].to_numpy(dtype=float), alpha=Q, method="fdr_bh")
        out.loc[est, "q"] = q
        out.loc[est, "clear"] = reject
    out["clear"] = out["clear"].astype(bool)
    group = np.where(out["clear"], 0, np.where(est, 1, 2))
    size = -out["effect"].abs().fillna(0).to_numpy()
    order = np.lexsort((np.arange(len(out)), np.where(group == 0, size, out["p"].fillna(1).to_numpy()), group))
    out = out.iloc[order].reset_index(drop=True)
    return measured_where_it_acts(out, note, wording or {})


def measured_where_it_acts(est, note: str, wording: dict):
    """Mark an estimate frame as measured where its components act (per placement, per round),
    not per seat-game: ``note`` replaces the table's method note, and ``wording`` gives the
    findings' phrases: ``sentence`` (a format string with ``{name}``, ``{size}`` - the effect's
    size in pp - and ``{more}`` - "more" or "less"), ``figure`` (with ``{effect}``, ``{with_}``,
    ``{without}`` - the with / without means in % - ``{uses}`` and ``{q}``) and ``verb_none``
    (what no component does, for the none-found sentence).  Returns ``est``."""
    est.attrs["measure"] = note
    est.attrs["wording"] = dict(wording)
    return est
