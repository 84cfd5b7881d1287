"""The report: PNG plots plus one self-contained ``index.html`` (plots embedded as base64).

``build_report(results, extras, config, outdir)`` writes everything and returns the summary
frames, so the CLI can print the same numbers in the terminal.
"""

from __future__ import annotations

import base64
import shlex
from dataclasses import dataclass
from pathlib import Path

import jinja2
import pandas as pd

from analyser import analysis, plots
from analyser.registry import get_game


@dataclass
class Summary:
    """The numbers of a report: per strategy, per seat, across the run, and title tables."""

    strategies: pd.DataFrame
    seats: pd.DataFrame
    run: dict
    title_tables: list[tuple[str, pd.DataFrame]]
    length_unit: str = "turns"


def summarise(results: pd.DataFrame, extras: dict) -> Summary:
    game = get_game(str(results["game"].iloc[0]))
    return Summary(analysis.strategy_summary(results), analysis.seat_summary(results),
                   analysis.run_summary(results), game.figure_tables(results, extras), game.length_unit)


_ENV = jinja2.Environment(loader=jinja2.PackageLoader("analyser", "templates"),
                          autoescape=jinja2.select_autoescape(["html", "j2"]))


def _table_html(df: pd.DataFrame) -> str:
    return analysis.format_table(df).to_html(index=False, classes="data", border=0, escape=True)


def build_report(results: pd.DataFrame, extras: dict, config: dict, outdir: Path) -> tuple[Path, Summary, list[str]]:
    """Write the PNGs, ``summary.csv`` and ``index.html`` into ``outdir``; return the HTML path,
    the summary and the PNG file names.  Needs at least one finished game."""
    outdir.mkdir(parents=True, exist_ok=True)
    game = get_game(str(results["game"].iloc[0]))
    summary = summarise(results, extras)
    summary.strategies.to_csv(outdir / "summary.csv", index=False)
    players = int(results["players"].iloc[0])
    colours = plots.strategy_colours(plots.strategy_names(results))
    figures = [plots.win_rate(summary.strategies, players, outdir / "win_rate.png", colours),
               plots.score_distribution(results, outdir / "scores.png", colours, game.score_unit),
               plots.seat_win_rate(summary.seats, outdir / "seat_win_rate.png")]
    games = analysis.per_game(results)
    if "turns" in games.columns and games["turns"].nunique() > 1:  # a fixed length needs no plot
        figures.append(plots.game_length(games, outdir / "game_length.png", game.length_unit))
    figures += game.plots(results, extras, outdir)
    embedded = []
    for name, caption in figures:
        data = base64.b64encode((outdir / name).read_bytes()).decode("ascii")
        embedded.append({"name": name, "caption": caption, "data": data})
    rules = {}
    for o in game.Params.options():
        if o["name"] in results.columns:  # the rows are the truth, also for results joined by hand
            values = [v if v != "" else "(built-in)" for v in pd.unique(results[o["name"]].astype(str))]
            rules[o["name"]] = values[0] if len(values) == 1 else ", ".join(values) + " (mixed)"
        elif o["name"] in (config.get("_rules_from_rows") or {}):
            rules[o["name"]] = config["_rules_from_rows"][o["name"]]
        elif o["name"] in (config.get("rules") or {}):
            rules[o["name"]] = config["rules"][o["name"]]
    replay = ["analyser", "play", game.id]
    for s in config.get("strategies") or list(results["strategy"].cat.categories):
        replay += ["-s", str(s)]
    for k, v in (config.get("rule_overrides") or {}).items():
        replay += ["--rule", f"{k}={v}"]
    replay_hint = " ".join(shlex.quote(w) for w in replay) + " --seed GAME_SEED"
    run = summary.run
    page = _ENV.get_template("report.html.j2").render(
        title=f"{game.name}: {', '.join(map(str, results['strategy'].cat.categories))}",
        game=game, config=config, run=run, players=players,
        strategy_table=_table_html(summary.strategies),
        seat_table=_table_html(summary.seats),
        title_tables=[(cap, _table_html(t)) for cap, t in summary.title_tables],
        figures=embedded, rules=rules, length_unit=game.length_unit, versions=config.get("versions", {}),
        command=config.get("command") or "(not recorded)", best=summary.strategies.iloc[0],
        replay_hint=replay_hint)
    path = outdir / "index.html"
    path.write_text(page, encoding="utf-8")
    return path, summary, [name for name, _ in figures]


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
    """A run folder's results and extra tables read for the report: without the game seeds and
    the per-row rule columns (the report takes the rules from the first part), whole numbers in
    the smallest integer types.  Returns ``(results, extras, config)``."""
    from analyser import experiments, store
    import pyarrow.parquet as pq

    parts = store.part_files(Path(out) / store.RESULTS)
    if not parts:
        df, extras, config = experiments.load_results(out)
        return _downcast(df), {k: _downcast(v) for k, v in extras.items()}, config
    schema = pq.read_schema(parts[0])
    game = get_game(str(pq.read_table(parts[0], columns=["game"]).column(0)[0]))
    rule_names = {o["name"] for o in game.Params.options()}
    keep = ["players"] + [c for c in schema.names if c not in rule_names and c not in ("game_seed", "players")]
    df, extras, config = experiments.load_results(out, columns=keep, per_part=_downcast_part,
                                                  extra_drop=("game_seed", "run_id"))
    first = pq.read_table(parts[0], columns=[c for c in schema.names if c in rule_names]).slice(0, 1).to_pandas()
    config = dict(config)
    config["_rules_from_rows"] = {c: first[c].iloc[0] for c in first.columns}
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
