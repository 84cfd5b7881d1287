"""The report: PNG plots plus one self-contained ``index.html`` (plots embedded as base64).

``build_report(results, extras, config, outdir)`` writes everything and returns the summary, so
the CLI can print the same numbers in the terminal.

Joined results whose rule options, player count or lineup differ are *variants*
(:func:`analyser.analysis.variants`): every table and plot is computed per variant and shown side
by side (a ``variant`` column in the tables, one set of plots per variant); nothing is pooled
across variants.  Runs of the same variant are pooled, each game counted once by
``(run_id, game_index)``.
"""

from __future__ import annotations

import base64
import shlex
from dataclasses import dataclass, field
from pathlib import Path

import jinja2
import pandas as pd

from analyser import analysis, designer, plots
from analyser.registry import get_game


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
    #: the designer figures (analyser.designer.designer_table): decisiveness, drama, skill share
    designer: pd.DataFrame | None = None


@dataclass
class Summary:
    """The numbers of a report: one :class:`Part` per variant (usually one)."""

    parts: list[Part]
    length_unit: str = "turns"
    score_unit: str = "points"
    methods: dict = field(default_factory=dict)
    #: What the report leaves out and why, e.g. "no rounds table: the bidding tables are left out".
    notes: list[str] = field(default_factory=list)

    @property
    def variants(self) -> bool:
        return len(self.parts) > 1

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


def _subset_extras(extras: dict, runs: list) -> dict:
    out = {}
    for name, frame in extras.items():
        if "run_id" in frame.columns:
            frame = frame[frame["run_id"].astype(str).isin(runs)]
        out[name] = frame
    return out


def summarise(results: pd.DataFrame, extras: dict) -> Summary:
    """Summaries per variant of ``results`` (see the module docstring)."""
    game = get_game(str(results["game"].iloc[0]))
    rule_names = [o["name"] for o in game.Params.options()]
    labels, found = analysis.variants(results, rule_names)
    parts = []
    for v in found:
        df = results[(labels == v["label"]).to_numpy()] if len(found) > 1 else results
        sub_extras = _subset_extras(extras, v["runs"]) if len(found) > 1 else extras
        strategies = analysis.strategy_summary(df)
        parts.append(Part(v["label"], v["what"], v["runs"], strategies, analysis.seat_summary(df),
                          analysis.run_summary(df), game.figure_tables(df, sub_extras),
                          int(df["players"].iloc[0]),
                          designer.designer_table(df, getattr(game, "trace_unit", "steps"),
                                                  getattr(game, "score_unit", "points"))))
    from analyser.experiments import missing_tables
    methods = parts[0].strategies.attrs.get("methods", {})
    return Summary(parts, game.length_unit, game.score_unit,
                   {"strategy_win": methods.get("win"), "seat_win": parts[0].seats.attrs.get("methods", {}).get("win"),
                    "score": "cluster"}, missing_tables(game, extras or {}))


_ENV = jinja2.Environment(loader=jinja2.PackageLoader("analyser", "templates"),
                          autoescape=jinja2.select_autoescape(["html", "j2"]))


def _table_html(df: pd.DataFrame) -> str:
    html = analysis.format_table(df).to_html(index=False, classes="data", border=0, escape=True)
    return f'<div class="table-wrap">{html}</div>'  # scrolls sideways on a narrow screen; cells never wrap


def method_note(part: Part) -> str:
    """One sentence naming the interval method of each table (see :mod:`analyser.analysis`)."""
    name = analysis.METHODS
    sw = part.strategies.attrs.get("methods", {}).get("win") or "wilson"
    seat = part.seats.attrs.get("methods", {}).get("win") or "wilson"
    if sw == seat:
        wins = f"Win rates: {name[sw]}."
    else:
        wins = f"Win rate per strategy: {name[sw]}; per seat: {name[seat]}."
    return (f"95% intervals. {wins} Mean scores: {name['cluster']}. The Wilson interval is used only where "
            "each game gives a group at most one row and no win is shared.")


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
            cards.append({"label": "seat advantage", "value": f"{seats['gap']:.1f} pts",
                          "note": f"seat {seats['best']} over seat {seats['worst']} (95% CI {seats['gap_low']:.1f} "
                                  f"to {seats['gap_high']:.1f}; p = {seats['p']:.2g})"})
    else:
        best = part.strategies.iloc[0]
        cards.append({"label": "best win rate", "value": f"{best.win_rate * 100:.1f}%",
                      "note": f"{best.strategy} (95% CI {best.win_low * 100:.1f}-{best.win_high * 100:.1f}%)"})
        cards.append({"label": "fair share", "value": f"{100 / part.players:.1f}%", "note": "1 / players"})
    if "turns_mean" in run:
        cards.append({"label": "game length", "value": f"{run['turns_mean']:.1f}",
                      "note": f"{length_unit} on average (median {run['turns_median']:.0f}, 5-95% "
                              f"{run['turns_p5']:.0f}-{run['turns_p95']:.0f})"})
    if mirror:
        cards.append({"label": "score spread", "value": f"{run['score_sd']:.1f}",
                      "note": f"sd of final scores ({score_unit}); winner's mean margin {run['margin_mean']:.1f}"})
    cards.append({"label": "tie rate", "value": f"{run['tie_rate'] * 100:.1f}%", "note": "games with a shared win"})
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
    """What actually ran: ``in one process`` or ``on N worker processes``."""
    jobs = config.get("jobs")
    if not isinstance(jobs, int):
        return ""
    return "in one process" if jobs <= 1 else f"on {jobs} worker processes"


def _figures(game, results, extras, outdir: Path, prefix: str, players: int, part: Part) -> list[tuple[str, str]]:
    safe = plots.safe_strategies(results)
    colours = plots.strategy_colours(plots.strategy_names(safe))
    strategies = part.strategies.assign(strategy=[plots.label(s) for s in part.strategies["strategy"]])
    method = "Wilson" if part.strategies.attrs.get("methods", {}).get("win") == "wilson" else "cluster-robust"
    figures = [plots.win_rate(strategies, players, outdir / f"{prefix}win_rate.png", colours, method),
               plots.score_distribution(safe, outdir / f"{prefix}scores.png", colours, game.score_unit),
               plots.seat_win_rate(part.seats, outdir / f"{prefix}seat_win_rate.png")]
    games = analysis.per_game(results)
    if "turns" in games.columns and games["turns"].nunique() > 1:  # a fixed length needs no plot
        figures.append(plots.game_length(games, outdir / f"{prefix}game_length.png", game.length_unit))
    if prefix:
        tmp = outdir / f".{prefix}title"
        tmp.mkdir(exist_ok=True)
        for name, caption in game.plots(safe, extras, tmp):
            (tmp / name).replace(outdir / f"{prefix}{name}")
            figures.append((f"{prefix}{name}", caption))
        tmp.rmdir()
    else:
        figures += game.plots(safe, extras, outdir)
    return figures


def build_report(results: pd.DataFrame, extras: dict, config: dict, outdir: Path) -> tuple[Path, Summary, list[str]]:
    """Write the PNGs, ``summary.csv`` and ``index.html`` into ``outdir``; return the HTML path,
    the summary and the PNG file names.  Needs at least one finished game."""
    outdir.mkdir(parents=True, exist_ok=True)
    game = get_game(str(results["game"].iloc[0]))
    summary = summarise(results, extras)
    summary.strategies.to_csv(outdir / "summary.csv", index=False)
    labels = analysis.variants(results, [o["name"] for o in game.Params.options()])[0] if summary.variants else None
    sections = []
    all_figures = []
    for i, part in enumerate(summary.parts):
        if summary.variants:
            df = results[(labels == part.label).to_numpy()]
            prefix = f"v{i + 1}-"
            sub_extras = _subset_extras(extras, part.runs)
        else:
            df, prefix, sub_extras = results, "", extras
        figures = _figures(game, df, sub_extras, outdir, prefix, part.players, part)
        all_figures += [name for name, _ in figures]
        embedded = [{"name": name, "caption": caption,
                     "data": base64.b64encode((outdir / name).read_bytes()).decode("ascii")}
                    for name, caption in figures]
        sections.append({
            "label": part.label, "what": part.what, "runs": part.runs, "run": part.run, "players": part.players,
            "games": part.run["games"], "cards": headline(part, game.length_unit, game.score_unit),
            "strategy_table": _table_html(part.strategies), "seat_table": _table_html(part.seats),
            "title_tables": [(cap, _table_html(t)) for cap, t in part.title_tables], "figures": embedded,
            "designer_table": (part.designer.to_html(index=False, header=False, classes="data", border=0)
                               if part.designer is not None else ""),
            "mirror": part.run["mirror"], "method_note": method_note(part), "only_mirror": bool(part.run["mirror"]) and len(part.strategies) == 1,
            "count_notes": game.count_notes(_params_of(game, df), part.players)})
    replay = ["analyser", "play", game.source or game.id]
    for s in config.get("strategies") or list(results["strategy"].cat.categories):
        replay += ["-s", str(s)]
    for k, v in (config.get("rule_overrides") or {}).items():
        replay += ["--rule", f"{k}={v}"]
    replay_hint = " ".join(shlex.quote(w) for w in replay) + " --seed GAME_SEED"
    strategies = config.get("strategies") or [str(s) for s in results["strategy"].cat.categories]
    page = _ENV.get_template("report.html.j2").render(
        title=f"{game.name}: {', '.join(strategies)}",
        game=game, config=config, sections=sections, variants=summary.variants,
        strategies=strategies, games=sum(s["games"] for s in sections),
        rules=rule_values(game, results, config), length_unit=game.length_unit,
        versions=config.get("versions", {}), command=config.get("command") or "(not recorded)",
        replay_hint=replay_hint, ran_on=ran_on(config), notes=summary.notes,
        from_dir=shlex.quote(str(outdir)))
    path = outdir / "index.html"
    path.write_text(page, encoding="utf-8")
    return path, summary, all_figures


def _params_of(game, df: pd.DataFrame):
    """The rule parameters recorded in the rows (first row), or the defaults when absent."""
    values = {}
    for o in game.Params.options():
        if o["name"] in df.columns and len(df):
            v = df[o["name"]].iloc[0]
            values[o["name"]] = v.item() if hasattr(v, "item") else v
    try:
        return game.Params(**values)
    except Exception:
        return game.Params()


def _downcast(df: pd.DataFrame) -> pd.DataFrame:
    """Whole-number columns (except ``game_seed``) in the smallest signed integer type that holds
    them, column by column, so no second copy of the frame is made."""
    import numpy as np
    for c in list(df.columns):
        if c == "game_seed" or not pd.api.types.is_integer_dtype(df[c]) or not len(df):
            continue
        lo, hi = int(df[c].min()), int(df[c].max())
        for t in (np.int8, np.int16, np.int32, np.int64):
            if np.iinfo(t).min <= lo and hi <= np.iinfo(t).max:
                if df[c].dtype != t:
                    df[c] = df[c].astype(t)
                break
    return df


def load_run_for_report(out: Path):
    """A run folder's results and extra tables read for the report: without the game seeds,
    whole numbers in small integer types, part by part.  Returns ``(results, extras, config)``."""
    from analyser import experiments, store
    import pyarrow.parquet as pq

    parts = store.part_files(Path(out) / store.RESULTS)
    if not parts:
        df, extras, config = experiments.load_results(out)
        return _downcast(df), {k: _downcast(v) for k, v in extras.items()}, config
    schema = pq.read_schema(parts[0])
    keep = [c for c in schema.names if c != "game_seed"]
    df, extras, config = experiments.load_results(out, columns=keep, per_part=_downcast_part,
                                                  extra_drop=("game_seed", "run_id"))
    return df, extras, config


def _downcast_part(df: pd.DataFrame) -> pd.DataFrame:
    """One part in small types: its whole numbers in int8/int16/int32 by a fixed rule per column
    (the smallest type that holds the part's values, at least int16 for counts and scores that
    may grow), so the parts join without a wide copy."""
    import numpy as np
    for c in list(df.columns):
        if c == "game_seed" or not pd.api.types.is_integer_dtype(df[c]) or not len(df):
            continue
        lo, hi = int(df[c].min()), int(df[c].max())
        t = np.int32 if c == "game_index" or not (-2 ** 15 <= lo and hi < 2 ** 15) else np.int16
        if c == "game_index" and hi >= 2 ** 31:
            t = np.int64
        df[c] = df[c].astype(t)
    return df


def build_report_from_run(out: Path) -> tuple[Path, Summary, list[str]]:
    """:func:`build_report` for a run folder, reading only what the report needs."""
    df, extras, config = load_run_for_report(out)
    return build_report(df, extras, config, Path(out))


def summarise_run(out: Path) -> Summary:
    """:func:`summarise` for a run folder, reading only what the summary needs."""
    df, extras, _ = load_run_for_report(out)
    return summarise(df, extras)
def html_table(df: pd.DataFrame) -> str:
    """A frame as an HTML table, formatted like the run report's tables."""
    return _table_html(df)


def write_experiment_page(outdir: Path, *, title: str, lead: str, cards: list[tuple[str, str, str]],
                          notes: list[str], sections: list[tuple[str, str, str]],
                          figures: list[tuple[str, str]], config: dict) -> Path:
    """The ``index.html`` of a sweep, tournament or comparison: headline cards (label, value,
    detail), notes, sections (heading, HTML table, note), the PNGs embedded, and how to
    reproduce.  Returns its path."""
    embedded = []
    for name, caption in figures:
        data = base64.b64encode((outdir / name).read_bytes()).decode("ascii")
        embedded.append({"name": name, "caption": caption, "data": data})
    page = _ENV.get_template("experiment.html.j2").render(
        title=title, lead=lead, cards=cards, notes=notes, sections=sections, figures=embedded,
        command=config.get("command") or "(not recorded)", config=config,
        versions=config.get("versions", {}))
    path = outdir / "index.html"
    path.write_text(page, encoding="utf-8")
    return path
