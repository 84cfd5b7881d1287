"""The component impact part of a report (:mod:`analyser.stats.components` gives the numbers): a
variant's estimates, findings and special tables, its HTML section, and ``components.csv``.

pandas and the component numbers are imported inside the functions."""

from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path

from analyser.stats import analysis
from analyser.findings.components import ASSOCIATION_LINE, FINDINGS_MAX
from analyser.io.csvsafe import to_csv
from analyser.report.summaries import params_of, recorded_rules
from analyser.report.tables import html_table
from analyser.text import markup


#: The folder of a report where the changed data files of its component findings are written.
INTERVENTIONS = "interventions"


def write_replacement(game, params, cid: str, folder: Path) -> tuple[str, str, str] | None:
    """The title's replacement of component ``cid`` (``Game.component_replacement``: the component
    given its peer group's typical effect) written into ``folder`` as ``OPTION-ID.csv``; returns
    ``(rule option, the file's path, what changed)``, or None when the title offers none.  The
    file the run read is never touched (for a built-in title it is inside the package).
    Raises OSError when the folder cannot be written."""
    rep = game.component_replacement(params, cid)
    if rep is None:
        return None
    option, text, what = rep
    folder.mkdir(parents=True, exist_ok=True)
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", cid) or "component"
    path = folder / f"{option}-{name}.csv"
    path.write_text(text, encoding="utf-8")
    return option, str(path), what


def _replacements(game, params, est, catalog: dict, folder: Path | None) -> dict:
    """Component id -> ``(option, path, what)`` for the listed components of a data file whose
    title offers a replacement, each written into ``folder/interventions``, or ``()`` where the
    title offers none (nothing without a folder, or where the file cannot be written: the finding
    then says how to make the copy)."""
    if folder is None or params is None or est is None or not len(est):
        return {}
    out = {}
    listed = est[est["p"].notna() & est["clear"]].head(FINDINGS_MAX)
    for cid in listed["component"].astype(str):
        info = catalog.get(cid) or {}
        if not (info.get("option") and info.get("file")):
            continue
        try:
            rep = write_replacement(game, params, cid, Path(folder) / INTERVENTIONS)
        except (OSError, ValueError, KeyError, IndexError):
            rep = None
        out[cid] = rep if rep is not None else ()  # (): tried, and the title has none
    return out


def changed_data_files(params, config: dict | None) -> list[str]:
    """The component data files the run's ``config.json`` records (``data_files``: path and
    SHA-256) that are no longer as the run read them: one short phrase each (``the components
    file /x/deck.csv changed since the run``, ``... is missing``); [] when all are unchanged or
    nothing is recorded (an older run)."""
    recorded = (config or {}).get("data_files")
    if not isinstance(recorded, dict) or not recorded:
        return []
    try:
        now = params.data_files() if params is not None and hasattr(params, "data_files") else {}
    except Exception:  # noqa: BLE001 - a path that no longer resolves: named below
        now = {}
    out = []
    for option, rec in recorded.items():
        if not isinstance(rec, dict) or not isinstance(rec.get("sha256"), str):
            continue
        path = Path(str(now.get(option) or rec.get("path") or ""))
        try:
            sha = hashlib.sha256(path.read_bytes()).hexdigest()
        except OSError:
            out.append(markup("report.j2", "data_file", option, rec.get("path"), True))
            continue
        if sha != rec["sha256"] and rec["sha256"] != "unreadable":
            out.append(markup("report.j2", "data_file", option, rec.get("path"), False))
    return out


def component_part(game, r, part, config: dict | None = None, folder: Path | None = None) -> None:
    """Fill ``part``'s component estimates, findings and special tables from ``r``'s sums, with the
    interventions ``config.json`` records for a variant of one run.  The catalog comes from the
    rules the rows record; where they cannot be rebuilt here (a data file is missing or changed)
    the components are listed by id only.  With ``folder`` (the report's), each listed component
    of a data file gets its changed file written (:func:`write_replacement`)."""
    from analyser.findings import components as component_findings
    from analyser.stats import components

    values = recorded_rules(game, r.first)
    try:
        params = game.Params(**values)
        catalog = game.component_catalog(params)
    except Exception:  # noqa: BLE001 - a missing or changed data file: ids only
        params, catalog = params_of(game, r.first), {}
        folder = None
    part.component_data_note = ""
    part.component_sample_note = getattr(r, "sample_note", "")
    changed = changed_data_files(params if catalog else None, config) if len(getattr(r, "runs", [])) == 1 else []
    if changed:  # described from another file than the run read: ids only, and no changed copy of it
        catalog, folder = {}, None
        part.component_data_note = ("; ".join(changed) + ", so the components are listed by id only (their names, "
                                    "peers and lines come from the file the run read) and no changed copy is "
                                    "written; restore the file to see them")
    est = components.estimate(r.components, catalog)
    acts = game.component_acts(r.title or {}, catalog)
    if acts is not None and len(acts) and acts["p"].notna().any():
        est = acts  # measured where it acts (the title's own measure), not per seat-game
    defaults = {o["name"]: o["default"] for o in game.Params.options()}
    rules = {k: analysis.display_value(v) for k, v in values.items() if v != defaults.get(k)}
    part.components = est
    recorded = (config or {}).get("component_confirmations") or {}
    runs = [str(x) for x in getattr(r, "runs", [])]
    confirmations = recorded.get(runs[0]) if len(runs) == 1 and isinstance(recorded, dict) else None
    part.component_confirmations = confirmations if isinstance(confirmations, dict) else None
    rerun = component_findings.Rerun(game.source or game.id, list(r.strategies), part.run["games"],
                                     None if r.players == game.default_players else r.players, rules,
                                     (config or {}).get("seed") if len(runs) == 1 else None)
    part.component_findings = component_findings.findings(
        est, rerun, catalog=catalog, confirmations=part.component_confirmations,
        replacements=_replacements(game, params, est, catalog, folder))
    part.component_tables = components.special_tables(est, game.component_tables(list(est["component"])))


#: Rows of the ranked component table shown in the report (components.csv has them all).
COMPONENT_ROWS = 25


def write_components_csv(summary, outdir: Path) -> None:
    """``components.csv``: every component's estimate (:data:`analyser.stats.components.COLUMNS`), one
    block per variant (a ``variant`` column first when there are several).  Not written when the
    report has no component estimates."""
    import pandas as pd

    frames = [(p.label, p.components) for p in summary.parts if p.components is not None]
    if not frames:
        (outdir / "components.csv").unlink(missing_ok=True)
        return
    if summary.variants:
        table = pd.concat([f.assign(variant=label) for label, f in frames], ignore_index=True)
        table = table[["variant"] + [c for c in table.columns if c != "variant"]]
    else:
        table = frames[0][1]
    to_csv(table, outdir / "components.csv", index=False)


def component_section(part, outdir: Path, prefix: str, title_note: str = "") -> dict | None:
    """The "Component impact" section of one variant: findings, the ranked table (its first
    :data:`COMPONENT_ROWS` rows), the special cases, the method note, the title's warning
    (``Game.component_note``) and the forest plot of the clear components
    (``<prefix>components.png``, embedded; None when none is clear)."""
    from analyser.stats import components

    est = part.components
    if est is None:
        return None
    table = components.report_table(est)
    shown = table.head(COMPONENT_ROWS)
    drawn = components.forest_plot(est, outdir / f"{prefix}components.png")
    if drawn is None:  # no clear component: no plot, and none left from an earlier report
        (outdir / f"{prefix}components.png").unlink(missing_ok=True)
    data = None if drawn is None else base64.b64encode((outdir / drawn[0]).read_bytes()).decode("ascii")
    figure = None if drawn is None else {"name": drawn[0], "caption": drawn[1], "data": data}
    n_est = int(est["p"].notna().sum())
    return {"findings": part.component_findings, "table": html_table(shown) if len(shown) else "",
            "rows": len(table), "shown": len(shown), "estimated": n_est, "n_clear": int(est["clear"].sum()),
            "threshold": part.component_findings[0]["threshold"] if part.component_findings else "",
            "special": [(cap, html_table(t)) for cap, t in part.component_tables],
            "note": components.method_note(est), "figure": figure, "title_note": title_note,
            "association": ASSOCIATION_LINE, "data_note": getattr(part, "component_data_note", ""),
            "sample_note": getattr(part, "component_sample_note", ""),
            "n_confirmed": (sum(1 for f in part.component_findings if f.get("strength") == "clear")
                            if getattr(part, "component_confirmations", None) else None)}
