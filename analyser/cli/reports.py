"""``analyser report``: rebuild a report from a run folder or a results file; and the summary
tables every command that reports a run prints.
"""

from __future__ import annotations

from pathlib import Path

import click
import pandas as pd

from analyser import findings
from analyser.cli import supervised
from analyser.cli.common import check_out_name, check_plotting
from analyser.cli.folders import folder_kind, report_experiment
from analyser.engine.core import InputError
from analyser.engine.registry import get_game
from analyser.engine.runner import resolve_jobs
from analyser.report.seats import compensation_display, strategy_seat_display, win_decimals
from analyser.results import load_results, trust_title_file
from analyser.run import check_writable, default_out, prepare_out, store, trusting
from analyser.stats.analysis import METHODS, format_table, percent
from analyser.stats.seats import assumption
from analyser.stats.streamed import open_run
from analyser.text import fixed, terminal_table


@supervised.command()
@click.argument("results", type=click.Path(path_type=Path))
@click.option("-o", "--out", default=None, metavar="DIR",
              help="Output folder (new or empty). Default: the run's own folder (its report is rebuilt), or "
                   "for a results file outside a run folder a new reports/<game>-report-<timestamp>.")
@click.option("--title", "title_file", default=None, metavar="FILE",
              help="For a run of a title of your own: its file or folder (as in the run's config.json). "
                   "Loading it runs its code, so it is never loaded unless you name it here.")
@click.option("--trust", is_flag=True,
              help="Load the title file the run's config.json names (only for a folder you made or trust: "
                   "loading a file runs its code).")
@click.option("--quiet", "-q", is_flag=True,
              help="No tables: only the line naming the report (an experiment folder: as its command's -q).")
@click.option("-j", "--jobs", type=int, default=0, show_default=True,
              help="Worker processes that read a large run folder's chunks of games; 0 = all cores. The "
                   "report does not depend on it.")
def report(results, out, title_file, trust, quiet, jobs):
    """Rebuild the report (plots, summary.csv, index.html) from a run folder or a results file.

    Reads a run folder's Parquet parts (results/part-*.parquet), or a results.parquet /
    results.csv given by path. A folder is data, never
    code: the title file its config.json names is loaded only with --title FILE or --trust.

    \b
    Examples:
      analyser report reports/GAME-20261130-101500
      analyser report my_joined_results.csv --out reports/joined
    """
    resolve_jobs(jobs)  # a bad count: one line, before anything is read
    with trusting(trust):
        return _report(results, out, title_file, quiet, jobs)


def _report(results, out, title_file, quiet=False, jobs=1):
    check_plotting()  # before the report module imports matplotlib
    from analyser.report.page import build_report, reduce_run, write_report

    check_out_name(out)
    if title_file:
        trust_title_file(title_file)
        get_game(title_file)  # loaded now: a results file without its config.json names the title by id
    kind = folder_kind(results, with_cells=True) if results.is_dir() else None
    if kind is not None:  # a sweep, tournament or comparison: its own report, rebuilt from its cells
        if out is not None and Path(out).resolve() == results.resolve():
            out = None
        return report_experiment(results, kind, out=Path(out) if out is not None else None, title_file=title_file,
                                 quiet=quiet)
    if results.is_dir() and results.name == "results" and any(results.glob("part-*.parquet")):
        results = results.parent
    streamed = results.is_dir() and bool(store.part_files(results / store.RESULTS))
    if streamed:  # read part by part below; here only the title and config checks
        opened = open_run(results)
        config = opened[1]
    else:
        df, extras, config = load_results(results)
        if df.empty:
            raise InputError(f"{str(results)!r} holds no games")
    source = results if results.is_dir() else results.parent
    if out is not None and Path(out).resolve() == source.resolve():
        out = None  # --out naming the run's own folder: rebuilt in place
    kind = (config or {}).get("kind")
    if out is None and kind in ("sweep", "tournament", "compare", "ladder"):  # its own page would be replaced
        raise InputError(f"{str(results)!r} is from a {kind}, whose own report is in {str(source)!r}; "
                         f"give --out DIR to write a pooled report elsewhere")
    # the run's own folder: a run folder, or a results file beside its run's config.json
    own_folder = results.is_dir() or (results.parent / "config.json").is_file()
    if out is None and own_folder:
        out = source
        check_writable(out, "the run folder")
        if not quiet:
            click.echo(f"Rebuilding the report in {out} (its index.html, summary.csv and plots are replaced).",
                       err=True)
    elif out is None:  # a results file of its own: a new folder, never files beside it
        out = prepare_out(default_out(f"{df['game'].iloc[0]}-report"), replace_run=False)
    else:
        out = prepare_out(out, replace_run=False)
    # the folder whose games `play --from` replays: the run's own, wherever the report is written
    run_dir = source if own_folder and (source / "config.json").is_file() and not kind else None
    if streamed:
        game, reduced, names, config = reduce_run(results, opened, jobs)
        config = config or {"seed": "unknown", "strategies": list(dict.fromkeys(s for r in reduced for s in r.strategies))}
        path, summary, _ = write_report(game, reduced, names, config, out, run_dir)
        players = reduced[0].players
    else:
        config = config or {"seed": "unknown", "strategies": list(df["strategy"].cat.categories)}
        path, summary, _ = build_report(df, extras, config, out, run_dir)
        players = int(df["players"].iloc[0])
    if not quiet:
        print_summary(summary, players, config)
        click.echo()
    click.echo(f"Report: {path}")
    return 0


def print_summary(summary, players: int, config: dict) -> None:
    from analyser.report.page import ran_on  # (the report's module: it imports matplotlib)

    with pd.option_context("display.width", 160, "display.max_columns", 30):
        if summary.variants:
            click.echo()
            click.secho(f"{len(summary.parts)} variants (runs whose rules, player count or lineup differ): "
                        "shown one after the other, never pooled", bold=True)
        for part in summary.parts:
            if summary.variants:
                click.echo()
                click.secho(f"=== Variant: {part.label} ({part.run['games']} games, {len(part.runs)} run(s)) ===",
                            bold=True)
            _print_part(part, summary, METHODS)
        if summary.notes:
            click.echo()
        for note in summary.notes:
            click.echo(f"Left out: {note}")
        findings.echo(summary.findings)
        wall = config.get("wall_seconds")
        if isinstance(wall, (int, float)):
            click.echo(f"\nWall time {fixed(wall, 2)} s {ran_on(config)}".rstrip())
        if config.get("engine") == "compiled":
            click.echo("Engine: compiled (the title's numba kernel of its rules and built-in strategies)")
        elif config.get("engine") == "python":
            why = config.get("engine_note") or ("asked for" if config.get("engine_requested") == "python" else None)
            click.echo(f"Engine: python (the title's Python rules{'; ' + why if why else ''})")
        if config.get("stopping"):
            click.echo(f"Stopping rule: {config['stopping']['reason']}")


def _print_part(part, summary, methods) -> None:
    players = part.players
    win_method = methods[part.strategies.attrs.get("methods", {}).get("win", "wilson")]
    r = part.run
    only_mirror = bool(r.get("mirror")) and len(part.strategies) == 1
    click.echo()
    if only_mirror:
        click.echo(f"Mirror match: {', '.join(r['mirror'])} fills every seat, so its win rate is 1/players by "
                   "construction. What it measures: the seat advantage, game length, score spread and the title "
                   "figures.")
    else:
        click.secho(f"Strategies (win rate: {win_method}; mean score: cluster-robust by game; 95%; shared "
                    "wins split)", bold=True)
        click.echo(terminal_table(format_table(part.strategies)))
        if r.get("mirror"):
            click.echo(f"(mirror match: {', '.join(r['mirror'])} fills every seat, so its win rate is "
                       "1/players by construction; see the seats)")
        if part.seating:
            click.echo(f"Seats: {part.seating}")
        if part.strategy_seats is not None:
            click.echo()
            click.secho("Win rate by strategy and seat (95% CI)", bold=True)
            click.echo(terminal_table(strategy_seat_display(part.strategy_seats)))
    click.echo()
    seat_method = methods[part.seats.attrs.get("methods", {}).get("win", "wilson")]
    click.secho(f"Seats (turn order; fair share {fixed(100 / players, 1)}%; win rate: {seat_method})", bold=True)
    click.echo(terminal_table(format_table(part.seats[["seat", "n", "win_rate", "win_low", "win_high",
                                                       "mean_score", "score_low", "score_high"]])))
    click.echo(f"Seat balance: {r['seats']['verdict']}")
    if part.compensation is not None:
        click.echo()
        click.secho(f"Seat compensation ({summary.score_unit}; bootstrap 95% CI)", bold=True)
        click.echo(terminal_table(compensation_display(part.compensation, summary.score_unit,
                                                                 win_decimals(part.seats))))
        click.echo(assumption(part.compensation.attrs.get("kind", "highest score"), summary.score_unit))
    elif part.compensation_note:
        click.echo(f"Left out: seat compensation: {part.compensation_note}")
    line = f"\nGames {r['games']}; ties {percent(r['tie_rate'], r.get('tie_low'), r.get('tie_high'))}"
    if "turns_mean" in r:
        line += (f"; game length {fixed(r['turns_mean'], 1)} {summary.length_unit} (median {fixed(r['turns_median'], 0)}, "
                 f"5-95% {fixed(r['turns_p5'], 0)}-{fixed(r['turns_p95'], 0)})")
    line += f"; score sd {fixed(r['score_sd'], 1)} {summary.score_unit}"
    click.echo(line)
    if part.designer is not None:
        click.echo()
        click.secho("Designer figures (see docs/metrics.md)", bold=True)
        click.echo(terminal_table(part.designer, header=False))
        for line in part.designer.attrs.get("left_out", []):
            click.echo(f"Left out: {line}")
    for caption, table in part.title_tables:
        click.echo()
        click.secho(caption, bold=True)
        click.echo(terminal_table(format_table(table)))
