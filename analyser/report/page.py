"""The report: PNG plots plus one self-contained ``index.html`` (plots embedded as base64), and
the page of an experiment (:func:`write_experiment_page`).  Joined runs whose rule options,
player count or lineup differ are *variants* (:func:`analyser.stats.analysis.variants`), shown
side by side and never pooled; runs of one variant are pooled by ``(run_id, game_index)``.
"""

from __future__ import annotations

import base64
import functools
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

import jinja2
import pandas as pd

from analyser.engine.runner import resolve_jobs
from analyser.report.reduce import chunk_pieces
from analyser.results import load_results, missing_tables
from analyser.run import store
from analyser.run.backends import plays_in_threads
from analyser.stats import analysis, plots, seats as seatmod, streamed
from analyser import findings as findmod
from analyser.report import components as reportcomponents, reduce as reducemod, summaries
from analyser.report.seats import (compensation_display, strategy_seat_display,  # noqa: F401 - used by the CLI too
                                   win_decimals)
from analyser.engine.core import COMPONENTS, InputError
from analyser.io.csvsafe import to_csv
from analyser.findings import FILE as FINDINGS_JSON, Findings  # the findings file beside index.html
from analyser.engine.registry import get_game
from analyser.run.reproduce import reproduce_command
from analyser.report.summaries import params_of
from analyser.report.tables import (PROSE_CHARS, WIDE_HINT, html_table, render_table,  # noqa: F401 - the page's API
                                    wrap_table as _wrap_table)
from analyser.stats.designer import Outcome
from analyser.stats.seats import assumption
from analyser.stats.streamed import open_run
from analyser.text import amount, fixed, number, pct, phrase, plural, signed


@dataclass
class Part:
    """The numbers of one variant: per strategy, per seat, across its games, and title tables."""

    label: str
    what: dict
    runs: list
    strategies: pd.DataFrame
    seats: pd.DataFrame
    run: dict
    title_tables: list[tuple[str, pd.DataFrame]]
    players: int
    #: the designer figures (analyser.stats.designer.designer_table): decisiveness, drama, skill share;
    #: ``designer.attrs["left_out"]``: the figures that do not fit the title, with the reason
    designer: pd.DataFrame | None = None
    #: each strategy's win rate in each seat (analysis.strategy_seat_summary)
    strategy_seats: pd.DataFrame | None = None
    #: each seat's score handicap to the fair share (analyser.stats.seats.compensation_from_sums), or
    #: None where the title's score does not decide the winner (``compensation_note`` says why)
    compensation: pd.DataFrame | None = None
    compensation_note: str = ""
    #: the findings of this variant (analyser.findings.collect: the seat finding among them)
    findings: Findings | None = None
    #: how the seats were filled (analyser.stats.seats.seating_note)
    seating: str = ""
    #: each component's effect on winning (:func:`analyser.stats.components.estimate`), None when the
    #: title records no components or the results have no component_counts table
    components: pd.DataFrame | None = None
    #: the component findings (:func:`analyser.findings.components.findings`)
    component_findings: list = field(default_factory=list)
    #: the title's special cases of the component table (``Game.component_tables``)
    component_tables: list = field(default_factory=list)


@dataclass
class Summary:
    """The numbers of a report: one :class:`Part` per variant (usually one)."""

    parts: list[Part]
    length_unit: str = "turns"
    score_unit: str = "points"
    #: What the report leaves out and why, e.g. "no rounds table: the bidding tables are left out".
    notes: list[str] = field(default_factory=list)

    @property
    def variants(self) -> bool:
        return len(self.parts) > 1

    @property
    def findings(self) -> list[Findings]:  # each variant's, in order
        return [p.findings for p in self.parts if p.findings is not None]

    def _stack(self, attr: str) -> pd.DataFrame:
        if not self.variants:
            return getattr(self.parts[0], attr)
        return pd.concat([getattr(p, attr).assign(variant=p.label) for p in self.parts], ignore_index=True)[
            ["variant"] + list(getattr(self.parts[0], attr).columns)]

    @property
    def strategies(self) -> pd.DataFrame:
        """Per strategy (and variant, when there are several), best first within a variant."""
        return self._stack("strategies")

    @property
    def seats(self) -> pd.DataFrame:
        return self._stack("seats")

    @property
    def run(self) -> dict:
        """The run figures of the only variant (with several, see ``parts``)."""
        return self.parts[0].run

    @property
    def title_tables(self) -> list[tuple[str, pd.DataFrame]]:
        if not self.variants:
            return self.parts[0].title_tables
        return [(f"{cap} - {p.label}", t) for p in self.parts for cap, t in p.title_tables]


@dataclass
class Reduced:
    """One variant of a report reduced to sums (:mod:`analyser.report.summaries`, ``Game.figure_sums``):
    its label and settings, runs, player count, strategies (run order), the core and title sums,
    and the rows of each run's first game (rule values, lineup)."""

    label: str
    what: dict
    runs: list
    players: int
    strategies: list
    core: dict
    title: dict
    first: pd.DataFrame
    binary: bool = True
    #: the component sums (:func:`analyser.stats.components.chunk_sums`), for a title that records them
    components: dict = field(default_factory=dict)
    #: how many games the component and drama sums come from, when a sample
    #: (:func:`analyser.report.reduce.component_sample`)
    sample_note: str = ""


#: ``run_dir`` left out: the report is written in the run's own folder.
_OUTDIR = Path(".")  # (a sentinel, compared by identity)


def reduce_chunks(game, chunks, strategies: list, check=None, pieces=None, sample=None) -> list[Reduced]:
    """One pass over ``chunks`` (``(results, extras)`` of whole games, in game order), or the
    ``pieces`` already reduced from them (:func:`analyser.report.reduce.chunk_pieces`, in order):
    each run's sums, then the runs grouped into variants (:func:`analysis.variants`).
    ``check(chunk)`` validates a chunk; ``sample``: a large run's component sample.  Raises
    InputError for results that mix player counts or hold no games."""
    if pieces is None:
        pieces = (chunk_pieces(game, chunk, ext, strategies, check, sample) for chunk, ext in chunks)
    runs: dict[str, dict] = {}
    players = None
    for p, mixed, items in pieces:
        if players is None:
            players = p
        if p != players or mixed:
            raise InputError("the results mix player counts; report one player count at a time")
        for rid, piece in items:
            acc = runs.setdefault(rid, {"core": {}, "title": {}, "first": None, "binary": True,
                                        "components": {}})
            if acc["first"] is None or piece["lo"] < acc["first"]["game_index"].iloc[0]:
                acc["first"] = piece["first"]
            acc["binary"] = acc["binary"] and piece["binary"]
            acc["core"] = streamed.combine_sums(acc["core"], piece["core"])
            if game.records_components:
                acc["components"] = streamed.combine_sums(acc["components"], piece["components"])
            acc["title"] = streamed.combine_sums(acc["title"], piece["title"])
    if not runs:
        raise InputError("the results hold no games")
    first = pd.concat([r["first"] for r in runs.values()], ignore_index=True)
    for c in first.columns:
        if isinstance(first[c].dtype, pd.CategoricalDtype):
            first[c] = first[c].astype(str) if c != "strategy" else first[c]
    rule_names = [o["name"] for o in game.Params.options()]
    labels, found = analysis.variants(first, rule_names)
    out = []
    for v in found:
        core, title, comp = (functools.reduce(streamed.combine_sums, [runs[r][key] for r in v["runs"]], {})
                             for key in ("core", "title", "components"))
        mask = (labels == v["label"]).to_numpy()
        present = [s for s in strategies if s in core["strategy"].index]
        out.append(Reduced(v["label"], v["what"], v["runs"], players, present, core, title, first[mask],
                           all(runs[r]["binary"] for r in v["runs"]), comp))
        sampled = comp.get("comp_games", core.get("drama"))
        if sample is not None and sampled is not None:
            out[-1].sample_note = sample.note(int(sampled["games"].sum()))
    return out


def _summary_of(game, reduced: list[Reduced], extra_names, config: dict | None = None,
                folder: Path | None = None) -> Summary:
    outcome = Outcome.of(game)
    parts = []
    for r in reduced:
        strategies = summaries.strategy_table(r.core, r.strategies, r.binary)
        seats = summaries.seat_table(r.core, r.players, r.binary)
        run = summaries.run_figures(r.core, len(r.runs))
        summaries.fix_mirrors(strategies, run.get("mirror") or [])
        tables = game.figure_tables_from(r.title)
        comp = seatmod.compensation_from_sums(r.core.get("seat_diff"), r.players, outcome.kind)
        note = "" if comp is not None else (outcome.reason if outcome.kind == "other" else "one seat only")
        counts = {str(s): int(n) for s, n in zip(strategies["strategy"], strategies["n"])}
        counts = {s: counts[s] for s in r.strategies if s in counts}
        part = Part(r.label, r.what, r.runs, strategies, seats, run, tables, r.players,
                    summaries.designer_figures(r.core, outcome),
                    summaries.strategy_seat_table(r.core, r.strategies, r.players, r.binary),
                    comp, note, None, seatmod.seating_note(len(_lineup_of(config, r)), r.players, counts))
        part.sample_note = r.sample_note
        if game.records_components and str(COMPONENTS) in [str(n) for n in extra_names]:
            reportcomponents.component_part(game, r, part, config, folder)
        parts.append(part)
    for r, part in zip(reduced, parts):  # once every part is filled in: the checks read all of it
        ctx = findmod.RunContext(game, outcome, part, r.core, config or {}, _lineup_of(config, r),
                                 _overrides_of(game, r.first, config), list(r.runs))
        part.findings = findmod.collect(ctx)
        if len(reduced) == 1:  # one variant: its findings need no label
            part.findings.label = ""
    notes = missing_tables(game, {n: [True] for n in extra_names})
    return Summary(parts, game.scoring.length_unit, game.scoring.score_unit, notes)


def _lineup_of(config: dict | None, r: Reduced) -> list[str]:
    """The lineup of a variant as it was given (``-s`` in order, repeats kept) when the config
    names it and it is the variant's, else the variant's strategies in run order."""
    given = [str(s) for s in (config or {}).get("strategies") or []]
    if given and set(given) == set(r.strategies):
        return given
    return list(r.strategies)


def _overrides_of(game, first: pd.DataFrame, config: dict | None) -> dict[str, str]:
    """The rule options of a variant that differ from the defaults, as the user types them (read
    from the rows of its first game: the truth, also for joined runs)."""
    defaults = {o["name"]: o["default"] for o in game.Params.options()}
    return {k: analysis.display_value(v) for k, v in summaries.recorded_rules(game, first).items()
            if v != defaults[k] and v == v}


def _reduce_frame(results: pd.DataFrame, extras: dict) -> tuple:
    """``(game, reduced variants, extra table names)`` of an in-memory ``results`` frame, reduced
    chunk by chunk like a run folder."""
    game = get_game(str(results["game"].iloc[0]))
    reduced = reduce_chunks(game, streamed.chunk_frame(results, extras), plots.strategy_names(results))
    return game, reduced, [n for n, f in (extras or {}).items() if f is not None and len(f)]


def summarise(results: pd.DataFrame, extras: dict) -> Summary:
    """Summaries per variant of an in-memory ``results`` frame (see the module docstring)."""
    return _summary_of(*_reduce_frame(results, extras))


_ENV = jinja2.Environment(loader=jinja2.PackageLoader("analyser.report", "templates"),
                          autoescape=jinja2.select_autoescape(["html", "j2"]))
# the templates spell numbers as the terminal and the PNGs do (analyser.text)
_ENV.filters.update(fixed=fixed, number=number, pct=pct, signed=signed, amount=amount, plural=plural)


def _anchor(text: str, used: set) -> str:
    """A unique HTML id made from ``text`` (lower case letters, digits and dashes)."""
    base = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:48].strip("-") or "section"
    name, k = base, 2
    while name in used:
        name, k = f"{base}-{k}", k + 1
    used.add(name)
    return name


def short_caption(caption: str, width: int = 60) -> str:
    """A table caption shortened for the contents list: parenthesised remarks and anything
    after a colon dropped, cut to ``width`` characters."""
    text, removed = caption, 1
    while removed:  # nested remarks too, innermost first
        text, removed = re.subn(r"\s*\([^()]*\)", "", text)
    text = text.split(": ")[0].strip() or caption
    if len(text) <= width:
        return text
    cut = text[:width - 3].rsplit(" ", 1)[0].rstrip(" ,;-")  # at a word's end, never inside a word
    return cut + "..."


#: Where the core plots go: the section (key of a report section) each illustrates.
CORE_PLOTS = {"win_rate.png": "strategies", "scores.png": "strategies", "seat_win_rate.png": "seats",
              "game_length.png": "length"}


def place_figures(game, figures: list[dict], prefix: str, captions: list[str]) -> tuple[dict, list[list[dict]]]:
    """Which section each plot goes in.  ``figures``: dicts with ``name`` (file name, with the
    variant ``prefix``); ``captions``: the title tables' captions in order.  Returns the core
    sections' plots (``strategies``, ``seats``, ``length``, and ``more`` for a title plot that
    names no table) and, per title table, its plots.  A title says which table a plot
    illustrates in ``Game.plot_sections`` (file name -> the opening words of the caption)."""
    core: dict[str, list] = {"strategies": [], "seats": [], "length": [], "more": []}
    per_table: list[list] = [[] for _ in captions]
    wanted = getattr(game, "plot_sections", None) or {}
    for f in figures:
        name = f["name"][len(prefix):] if prefix and f["name"].startswith(prefix) else f["name"]
        if name in CORE_PLOTS:
            core[CORE_PLOTS[name]].append(f)
            continue
        opening = str(wanted.get(name, "")).strip().lower()
        at = next((k for k, c in enumerate(captions) if opening and str(c).lower().startswith(opening)), None)
        (per_table[at] if at is not None else core["more"]).append(f)
    return core, per_table


def method_note(part: Part) -> str:
    """One sentence naming the interval method of each table (see :mod:`analyser.stats.analysis`)."""
    name = analysis.METHODS
    sw = part.strategies.attrs.get("methods", {}).get("win") or "wilson"
    seat = part.seats.attrs.get("methods", {}).get("win") or "wilson"
    return phrase("report.j2", "method_note", name[sw], name[seat], name["cluster"])


def headline(part: Part, length_unit: str, score_unit: str) -> list[dict]:
    """The cards at the top of the report: for a mirror match (one strategy in every seat) what
    can be learned from it - seat advantage, game length, score spread - instead of a win rate
    that is 1/players by construction."""
    run = part.run
    seats = run["seats"]
    cards = []
    mirror = bool(run["mirror"]) and len(part.strategies) == 1
    if mirror:
        if seats.get("best") is not None:
            d = analysis.decimals((seats["gap_high"] - seats["gap_low"]) / 2)
            cards.append({"label": "seat advantage", "value": f"{fixed(seats['gap'], d)} pp",
                          "note": phrase("report.j2", "seat_card", seats, d)})
    else:
        best = part.strategies.iloc[0]
        cards.append({"label": "best win rate", "value": analysis.percent(best.win_rate, best.win_low, best.win_high),
                      "note": phrase("report.j2", "best_card", best.to_dict())})
        cards.append({"label": "fair share", "value": analysis.percent(1 / part.players, best.win_low, best.win_high),
                      "note": "1 / players"})
    if "turns_mean" in run:
        cards.append({"label": "game length", "value": fixed(run['turns_mean'], 1),
                      "note": phrase("report.j2", "length_card", run, length_unit)})
    if mirror:
        cards.append({"label": "score spread", "value": fixed(run['score_sd'], 1),
                      "note": phrase("report.j2", "score_card", run, score_unit)})
    cards.append({"label": "tie rate", "value": analysis.percent(run["tie_rate"], run.get("tie_low"), run.get("tie_high")),
                  "note": phrase("report.j2", "tie_card", run)})
    return cards


def rule_values(game, results: pd.DataFrame, config: dict) -> dict[str, str]:
    """Each rule option's value as the user types it (``on``/``off``, ``(built-in)``); the rows
    are the truth, also for results joined by hand ("mixed" lists every value)."""
    rules = {}
    for o in game.Params.options():
        if o["name"] in results.columns:
            values = list(dict.fromkeys(analysis.display_value(v) for v in pd.unique(results[o["name"]])))
            rules[o["name"]] = values[0] if len(values) == 1 else ", ".join(values) + " (mixed)"
        elif o["name"] in (config.get("rules") or {}):
            rules[o["name"]] = analysis.display_value(config["rules"][o["name"]])
    return rules


def ran_on(config: dict) -> str:
    """What actually ran: ``in one process``, ``on N worker processes``, or ``on N threads of one
    process`` (:func:`analyser.run.backends.plays_in_threads`)."""
    jobs = config.get("jobs")
    if not isinstance(jobs, int):
        return ""
    return phrase("report.j2", "ran_on", jobs, jobs > 1 and plays_in_threads(config.get("backend"), config.get("engine")))


def _relabel(sums: dict) -> dict:
    """``sums`` with every index level named ``strategy`` made plot-safe (:func:`plots.label`)."""
    out = {}
    for name, frame in sums.items():
        idx = frame.index
        if "strategy" in (idx.names or []):
            if isinstance(idx, pd.MultiIndex):
                level = idx.names.index("strategy")
                frame = frame.set_axis(idx.set_levels(idx.levels[level].map(lambda x: plots.label(x)), level=level))
            else:
                frame = frame.set_axis(idx.map(lambda x: plots.label(x)).rename("strategy"))
        out[name] = frame
    return out


def _figures(game, r: Reduced, outdir: Path, prefix: str, part: Part) -> list[tuple[str, str]]:
    names = [plots.label(s) for s in r.strategies]
    colours = plots.strategy_colours(names)
    strategies = part.strategies.assign(strategy=[plots.label(s) for s in part.strategies["strategy"]])
    method = "Wilson" if part.strategies.attrs.get("methods", {}).get("win") == "wilson" else "cluster-robust"
    core = _relabel({"scores": r.core["scores"]})
    fixed = [plots.label(x) for x in part.run.get("mirror", [])]
    figures = [plots.win_rate(strategies, r.players, outdir / f"{prefix}win_rate.png", colours, method, fixed),
               plots.score_distribution_counts(core["scores"], outdir / f"{prefix}scores.png", colours,
                                               game.scoring.score_unit, names),
               plots.seat_win_rate(part.seats, outdir / f"{prefix}seat_win_rate.png")]
    turns = r.core.get("turns")
    if turns is not None and len(turns) > 1:  # a fixed length needs no plot
        figures.append(plots.game_length_counts(turns, outdir / f"{prefix}game_length.png", game.scoring.length_unit))
    target = outdir
    if prefix:
        target = outdir / f".{prefix}title"
        target.mkdir(exist_ok=True)
    drawn = game.plots_from(_relabel(r.title), target, names)
    if prefix:
        for name, caption in drawn:
            (target / name).replace(outdir / f"{prefix}{name}")
            figures.append((f"{prefix}{name}", caption))
        target.rmdir()
    else:
        figures += drawn
    return figures


def build_report(results: pd.DataFrame, extras: dict, config: dict, outdir: Path,
                 run_dir: Path | None = _OUTDIR) -> tuple[Path, Summary, list[str]]:
    """Write the PNGs, ``summary.csv`` and ``index.html`` into ``outdir`` from an in-memory
    results frame; return the HTML path, the summary and the PNG file names.  Needs at least one
    finished game.  The frame is reduced chunk by chunk, as a run folder is
    (:func:`build_report_from_run`).  ``run_dir``: as :func:`write_report`."""
    game, reduced, present = _reduce_frame(results, extras)
    return write_report(game, reduced, present, config, outdir, run_dir)


def write_report(game, reduced: list[Reduced], extra_names, config: dict,
                 outdir: Path, run_dir: Path | None = _OUTDIR) -> tuple[Path, Summary, list[str]]:
    """The report of reduced variants (:func:`reduce_chunks`): PNGs, ``summary.csv``, ``findings.json``
    and ``index.html`` in ``outdir``.  Returns the HTML path, the summary and the PNG file names.
    ``run_dir`` is the run folder that holds the games, named in the page's ``play --from``
    command (by default ``outdir``, a run's own report); None when no one folder does (a report
    of a results file, or of several runs), and the page gives ``play GAME ... --seed`` instead."""
    outdir.mkdir(parents=True, exist_ok=True)
    summary = _summary_of(game, reduced, extra_names, config, outdir)
    to_csv(summary.strategies, outdir / "summary.csv", index=False)
    reportcomponents.write_components_csv(summary, outdir)
    sections = []
    all_figures = []
    used: set = {"findings", "reproduce", "rules", "data-files", "versions"}
    toc = [{"id": "findings", "text": "Findings"}]
    for i, (part, r) in enumerate(zip(summary.parts, reduced)):
        section, entries, figures = _variant_section(game, part, r, outdir, i + 1 if summary.variants else None,
                                                     used)
        sections.append(section)
        toc += entries
        all_figures += figures
    toc += _closing_toc(config, summary.variants)
    all_strategies = list(dict.fromkeys(s for r in reduced for s in r.strategies))
    strategies = config.get("strategies") or all_strategies
    first = pd.concat([r.first for r in reduced], ignore_index=True)
    page = _ENV.get_template("report.html.j2").render(
        title=f"{game.name}: {', '.join(strategies)}",
        game=game, config=config, sections=sections, variants=summary.variants,
        strategies=strategies, games=sum(s["games"] for s in sections),
        rules=rule_values(game, first, config), length_unit=game.scoring.length_unit,
        versions=config.get("versions", {}), command=reproduce_command(config) or config.get("command") or
        "(not recorded)", typed=config.get("command") if isinstance(config.get("command"), str) else "",
        replay_hint=_replay_hint(game, config, all_strategies), ran_on=ran_on(config), notes=summary.notes, toc=toc,
        from_dir=shlex.quote(str(outdir if run_dir is _OUTDIR else run_dir)) if run_dir is not None else "",
        findings=summary.findings)
    path = outdir / "index.html"
    path.write_text(page, encoding="utf-8")
    findmod.write_json(outdir / FINDINGS_JSON, "simulate", game.source or game.id, summary.findings)
    return path, summary, all_figures


def _variant_section(game, part, r: Reduced, outdir: Path, variant: int | None,
                     used: set) -> tuple[dict, list[dict], list[str]]:
    """One variant's part of the page: its section (for the template), its entries in the table of
    contents and the PNG files it drew into ``outdir``.  ``variant``: its number when the report
    has several (its files and anchors are prefixed with it), else None.  ``used``: the anchors
    taken so far (this section's are added)."""
    prefix = f"v{variant}-" if variant else ""
    tag = f"v{variant} " if variant else ""
    with plots.drawing():
        figures = _figures(game, r, outdir, prefix, part)
        component_section = reportcomponents.component_section(part, outdir, prefix, game.component_note)
    drawn = [name for name, _ in figures]
    if component_section and component_section["figure"]:
        drawn.append(component_section["figure"]["name"])
    embedded = [{"name": name, "caption": caption,
                 "data": base64.b64encode((outdir / name).read_bytes()).decode("ascii")}
                for name, caption in figures]
    captions = [cap for cap, _ in part.title_tables]
    figs, per_table = place_figures(game, embedded, prefix, captions)
    ids = {key: _anchor(tag + text, used) for key, text in (
        ("variant", "variant"), ("seats", "turn order"), ("strategies", "strategies"),
        ("length", "game length"), ("designer", "designer figures"), ("components", "component impact"),
        ("more", "more plots"))}
    title_tables = [{"caption": cap, "table": html_table(t), "figures": per_table[k],
                     "id": _anchor(tag + short_caption(cap), used)} for k, (cap, t) in enumerate(part.title_tables)]
    toc = _section_toc(part, variant, ids, figs, title_tables)
    section = _section_fields(game, part, params_of(game, r.first))
    section.update(title_tables=title_tables, figs=figs, ids=ids, components=component_section)
    return section, toc, drawn


def _section_toc(part, variant: int | None, ids: dict, figs: dict, title_tables: list[dict]) -> list[dict]:
    """A variant section's entries in the table of contents: the parts it has, in page order."""
    toc = []
    if variant:
        toc.append({"id": ids["variant"], "text": f"Variant {variant}: {part.label}", "group": True})
    toc += [{"id": ids["seats"], "text": "Turn order"}, {"id": ids["strategies"], "text": "Strategies"}]
    if figs["length"]:
        toc.append({"id": ids["length"], "text": "Game length"})
    if part.designer is not None:
        toc.append({"id": ids["designer"], "text": "Designer figures"})
    toc += [{"id": t["id"], "text": short_caption(t["caption"])} for t in title_tables]
    if part.components is not None:
        toc.append({"id": ids["components"], "text": "Component impact"})
    if figs["more"]:
        toc.append({"id": ids["more"], "text": "More plots"})
    return toc


def _section_fields(game, part, params) -> dict:
    """The tables, figures and sentences of a variant's section that its summary part gives
    (the template's names)."""
    run = part.run
    length_text = phrase("report.j2", "length_text", run, game.scoring.length_unit) if "turns_mean" in run else ""
    return {
        "label": part.label, "what": part.what, "runs": part.runs, "run": part.run, "players": part.players,
        "games": part.run["games"], "cards": headline(part, game.scoring.length_unit, game.scoring.score_unit),
        "strategy_table": html_table(part.strategies), "seat_table": html_table(part.seats),
        "length_text": length_text,
        "tie_text": phrase("report.j2", "tie_text", run),
        "designer_table": (_wrap_table(render_table(part.designer, header=False))
                           if part.designer is not None else ""),
        "mirror": part.run["mirror"], "method_note": method_note(part), "only_mirror": bool(part.run["mirror"]) and len(part.strategies) == 1,
        "left_out": part.designer.attrs.get("left_out", []) if part.designer is not None else [],
        "sample_note": getattr(part, "sample_note", ""),
        "strategy_seat_table": html_table(strategy_seat_display(part.strategy_seats), formatted=True)
        if part.strategy_seats is not None and len(part.strategies) > 1 else "",
        "compensation_table": html_table(compensation_display(part.compensation, game.scoring.score_unit,
                                                                      win_decimals(part.seats)), formatted=True)
        if part.compensation is not None else "",
        "compensation_note": part.compensation_note, "seating": part.seating,
        "compensation_kind": part.compensation.attrs.get("kind", "") if part.compensation is not None else "",
        "assumption": assumption(game.scoring.outcome, game.scoring.score_unit),
        "count_notes": game.count_notes(params, part.players), "report_notes": game.report_notes(params)}


def _closing_toc(config: dict, variants: bool) -> list[dict]:
    """The table of contents' entries after the variants: how to reproduce, the rules, the data
    files (when the run named any) and the versions."""
    toc = [{"id": "reproduce", "text": "Reproduce", "group": variants}, {"id": "rules", "text": "Rule parameters"}]
    if config.get("data_files"):
        toc.append({"id": "data-files", "text": "Component data files"})
    toc.append({"id": "versions", "text": "Versions"})
    return toc


def _replay_hint(game, config: dict, all_strategies: list[str]) -> str:
    """The ``analyser play`` command that replays one game of the report, given its game seed."""
    replay = ["analyser", "play", game.source or game.id]
    replay += [w for s in config.get("strategies") or all_strategies for w in ("-s", str(s))]
    replay += [w for k, v in (config.get("rule_overrides") or {}).items() for w in ("--rule", f"{k}={v}")]
    return " ".join(shlex.quote(w) for w in replay) + " --seed GAME_SEED"


def reduce_run(out: Path, opened: tuple | None = None, jobs: int = 1, chunk_games: int | None = None,
                known=None):
    """A run folder reduced part by part: ``(game, reduced, extra table names, config)``.
    ``opened``: what :func:`analyser.stats.streamed.open_run` returned for it; ``jobs``: worker
    processes (0: every core; the same report for any number); ``known``: the chunks the run's
    workers reduced.  A folder without parts (its ``results.csv`` only) is read whole."""
    out = Path(out)
    if not store.part_files(out / store.RESULTS):
        df, extras, config = load_results(out)
        game = get_game(str(df["game"].iloc[0])) if not isinstance(config.get("title_source"), str) else \
            get_game(config["title_source"])
        reduced = reduce_chunks(game, streamed.chunk_frame(df, extras), plots.strategy_names(df))
        return game, reduced, [n for n, f in extras.items() if len(f)], config
    game, config, strategies = opened if opened is not None else open_run(out)
    names = [str(n) for n in game.extra_tables if (out / str(n)).is_dir() and store.part_files(out / str(n))]
    where = out / store.RESULTS

    run_id = config.get("run_id") if isinstance(config, dict) else None
    chunk_games = chunk_games or streamed.CHUNK_GAMES
    parallel = jobs != 1 and not game.source  # a title from a file is reduced here (a worker names a title by id)
    key = (config.get("games_requested"), config.get("seed")) if isinstance(config, dict) else (None, None)
    sample = reducemod.component_sample(*key, chunk_games)
    plan = reducemod.chunk_plan(out, chunk_games) if parallel or known is not None else None
    ready = reducemod.known_blocks(known, plan, out, chunk_games, strategies, key) if plan is not None else {}
    if plan is not None and (ready or len(plan) >= reducemod.PARALLEL_MIN_CHUNKS):
        rest = [(b, parts) for b, parts in plan if b not in ready]
        run = reducemod.RunChunks(out, tuple(names), chunk_games, tuple(strategies), run_id, sample=sample)
        if parallel and len(rest) >= reducemod.PARALLEL_MIN_CHUNKS:
            computed = reducemod.parallel_pieces(game, run, rest, resolve_jobs(jobs))
        else:
            computed = ((b, reducemod.block_pieces_of(game, run, b, parts)) for b, parts in rest)
        pieces = _in_order(plan, ready, computed)
        return game, reduce_chunks(game, (), strategies, pieces=pieces, sample=sample), names, config
    chunks = streamed.iter_run_chunks(out, names, chunk_games, run_id=run_id if isinstance(run_id, str) else None)
    return game, reduce_chunks(game, chunks, strategies, reducemod.run_check(game, where, run_id),
                               sample=sample), names, config


def _in_order(plan: list, ready: dict, computed):
    """The pieces of every block of ``plan`` in block order: from ``ready`` (block -> pieces) or
    from ``computed`` (``(block, pieces or None)`` of the other blocks, in order)."""
    computed = iter(computed)
    for block, _ in plan:
        item = ready.get(block)
        if item is None:
            got, item = next(computed)
            assert got == block
        if item is not None:
            yield item


def build_report_from_run(out: Path, jobs: int = 1, known=None) -> tuple[Path, Summary, list[str]]:
    """:func:`build_report` for a run folder, read part by part (:func:`reduce_run`): memory stays
    bounded by one chunk of games per job, whatever the number of games."""
    game, reduced, names, config = reduce_run(out, jobs=jobs, known=known)
    return write_report(game, reduced, names, config, Path(out))


def summarise_run(out: Path, known=None) -> Summary:
    """:func:`summarise` for a run folder, read part by part (``known``: as :func:`reduce_run`)."""
    game, reduced, names, config = reduce_run(out, known=known)
    return _summary_of(game, reduced, names, config)


@dataclass
class ExperimentPage:
    """What the ``index.html`` of a sweep, tournament, comparison, ladder or tune shows: ``sections``
    are (heading, HTML table or "", note), ``figures`` (PNG file name, caption), ``config`` gives
    the command and versions; ``figure_sections`` maps a PNG to the heading it illustrates (the
    others go in a "Plots" section)."""

    title: str
    lead: str
    cards: list
    notes: list
    sections: list
    figures: list
    config: dict
    findings: Findings | None = None
    figure_sections: dict | None = None


def write_experiment_page(outdir: Path, page: ExperimentPage) -> Path:
    """Write ``page`` as ``outdir/index.html``: findings at the top, the cards, notes, a contents
    list, the sections with their PNGs embedded, and how to reproduce.  Returns its path."""
    config, findings, placed = page.config, page.findings, page.figure_sections or {}
    used: set = {"findings", "plots", "reproduce", "versions"}
    blocks = [{"heading": h, "table": t, "note": n, "figures": [], "id": _anchor(h, used)}
              for h, t, n in page.sections]
    by_heading = {b["heading"]: b for b in blocks}
    rest = []
    for name, caption in page.figures:
        data = base64.b64encode((outdir / name).read_bytes()).decode("ascii")
        f = {"name": name, "caption": caption, "data": data}
        (by_heading[placed[name]]["figures"] if placed.get(name) in by_heading else rest).append(f)
    toc = ([{"id": "findings", "text": "Findings"}] if findings is not None else []) + \
        [{"id": b["id"], "text": short_caption(b["heading"])} for b in blocks]
    if rest:
        toc.append({"id": "plots", "text": "Plots"})
    toc += [{"id": "reproduce", "text": "Reproduce"}, {"id": "versions", "text": "Versions"}]
    html = _ENV.get_template("experiment.html.j2").render(
        title=page.title, lead=page.lead, cards=page.cards, notes=page.notes, sections=blocks, figures=rest,
        toc=toc, findings=[findings] if findings is not None else [],
        command=reproduce_command(config) or config.get("command") or "(not recorded)", config=config,
        typed=config.get("command") if isinstance(config.get("command"), str) else "",
        versions=config.get("versions", {}))
    path = outdir / "index.html"
    path.write_text(html, encoding="utf-8")
    return path
