"""``analyser sweep``, ``analyser tournament`` and ``analyser compare``: the designer experiments,
each a thin layer over :mod:`analyser.experiments`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import shlex
from pathlib import Path

import click

from analyser.cli import supervised
from analyser.cli.common import builtin_strategies, check_plotting, check_root_seed, command_line, strip_specs
from analyser.cli.cluster import cluster, cluster_options, pooled
from analyser.engine.core import GAME_TIMEOUT, InputError, parse_key_values
from analyser.engine.registry import game_ids, get_game, title_ref
from analyser.experiments.options import (CompareOptions, LadderOptions, Session, SweepOptions,
                                          TournamentOptions)
from analyser.io.records import cells_complete
from analyser.run import RunSpec, WorkerDied, resume_command, stops, trusting
from analyser.text import terminal_table


EPILOG_SWEEP = """\b
Examples:
  analyser sweep GAME -s 'NAME:key=4..14' -s greedy --rule KEY=10,12,14
  analyser sweep GAME -s 'NAME:key=-1..1:0.25' -s NAME -s NAME --rule KEY=off,on
  analyser sweep GAME -s 'NAME:key=6,8,10' -s greedy --games 20000 --until-ci 0.03
(GAME, NAME, KEY: a title id, a strategy and a rule option from `analyser list GAME`;
docs/commands/sweep.md has a worked example.)

\b
Values: a list a,b,c (any option), a range a..b (whole numbers, step 1) or a..b:step
(numbers; -1..1:0.25). Every option with several values is varied; the cells are all
combinations (at most 10,000). Every cell plays the same game seeds, so game i is dealt alike in
every cell wherever the rules leave the deal unchanged (the report says when they do not).
The cells are ranked by the win rate of the first -s with a varied parameter (else the first -s).
"""


def _where(error, game: str, game_timeout: float) -> str:
    """`` (game i, game seed s; replay it with ...)`` for a failure that names its game: the
    `play` command that replays it (with the run's --game-timeout when the game hung)."""
    index, seed = getattr(error, "game_index", None), getattr(error, "game_seed", None)
    if seed is None:
        return ""
    hung = getattr(error, "kind", None) == "hung"
    limit = f" --game-timeout {game_timeout:g}" if hung or game_timeout != GAME_TIMEOUT else ""
    return (f" (game {index}, game seed {seed}" + (f", limit --game-timeout {game_timeout:g} s" if hung else "")
            + f"; replay it with analyser play {shlex.quote(game)} --seed {seed}{limit} and that game's lineup "
              "as -s)")


def prepare_out(out, default: str, kind: str, quiet: bool, parent="reports") -> Path:
    """The output folder of an experiment: ``--out`` (new, empty, or an earlier output of the
    same ``kind``, which is replaced, said on one line even under --quiet), else a new
    timestamped folder ``<parent>/<default>-<timestamp>``; InputError (one line) for a folder
    that holds another kind of output, anything else, or cannot be written."""
    from analyser.run import default_out, describe_output, prepare_out, previous_output

    target = default_out(default, parent) if out is None else Path(out)
    fresh = not target.exists()
    previous = previous_output(target) if out is not None else None
    folder = prepare_out(target, kind=kind)
    if previous is not None:
        click.echo(f"Replacing {describe_output(previous, folder)}.", err=True)
    if fresh:  # made here: gone again if the command stops before writing anything (a bad -s, say)
        click.get_current_context().call_on_close(lambda: _drop_if_empty(folder))
    return folder


def _drop_if_empty(folder: Path) -> None:
    with contextlib.suppress(OSError):
        folder.rmdir()  # only an empty folder


def _common_run_options(f):
    for dec in reversed([
        click.option("-p", "--players", type=int, default=None, help="Number of seats."),
        click.option("--seed", type=int, default=None, callback=check_root_seed,
                     help="Root seed (default: fresh, recorded)."),
        click.option("-j", "--jobs", type=int, default=0, show_default=True,
                     help="Worker processes; 0 = all cores. Results do not depend on it."),
        click.option("-o", "--out", default=None, metavar="DIR",
                     help="Output folder (new, empty, or an earlier output of the same command, which is "
                          "replaced). Default: reports/<game>-<command>-<timestamp>."),
        click.option("--until-ci", type=float, default=None, metavar="W",
                     help="Stop once every reported win-rate 95% interval is at most W wide, at round ends "
                          "fixed in advance (--games is the most played)."),
        click.option("--batch-size", type=int, default=None, help="Games per joblib task (default: automatic)."),
        click.option("--game-timeout", type=float, default=GAME_TIMEOUT, show_default=True,
                     help="Seconds one game may take before its strategy is reported as hung; 0 = no limit."),
        click.option("--quiet", "-q", is_flag=True, help="No progress bar and no tables."),
    ]):
        f = dec(f)
    return f


@supervised.command(epilog=EPILOG_SWEEP)
@click.argument("game")
@click.option("-s", "--strategy", "strategies", multiple=True, metavar="SPEC", callback=strip_specs, required=True,
              help="Strategy spec per slot, repeatable; parameters may be lists or ranges: threshold:limit=4..14.")
@click.option("-r", "--rule", "rules", multiple=True, metavar="KEY=VALUES",
              help="Rule option, repeatable; a value, a list a,b,c or a range a..b[:step].")
@click.option("-n", "--games", type=int, default=2000, show_default=True, help="Games per cell.")
@click.option("--no-report", is_flag=True, help="Write sweep.parquet and cells.csv but skip the plots and HTML.")
@_common_run_options
@cluster_options
def sweep(game, strategies, rules, games, no_report, players, seed, jobs, out, until_ci, batch_size,
          game_timeout, quiet, backend, scheduler):
    """Play every combination of strategy parameters and rule options of GAME, on the same deals.

    Each cell is a run folder OUT/cells/cell-NNNN whose games stream to disk as they are played.
    Then writes OUT/sweep.parquet (every game of every cell, the varied values as columns),
    cells.csv (one row per cell and strategy), the plots and index.html, and prints the best cells
    with their paired difference from the best. A failure (exit 1), Ctrl-C (130) or SIGTERM (143)
    keeps every finished game; `analyser resume OUT` finishes the sweep.
    """
    from analyser.experiments import stopping

    stopping.check_width(until_ci)
    backend, scheduler = cluster(backend, scheduler)
    if not no_report:
        check_plotting()
    g = get_game(game)
    out = prepare_out(out, g.id + "-sweep", "sweep", quiet)
    spec = RunSpec(game=title_ref(g), strategies=list(strategies), players=players, games=games, seed=seed,
                   jobs=jobs, batch_size=batch_size, game_timeout=game_timeout)
    options = SweepOptions(rules=list(rules), until_ci=until_ci)
    return pooled(lambda: execute_sweep(spec, options, new_session(out, quiet), no_report=no_report, quiet=quiet),
                  backend, scheduler, jobs, out)


def new_session(out: Path, quiet: bool) -> Session:
    """The session of an experiment this command starts in ``out``."""
    return Session(out, command_line(), progress=False if quiet else None)


def execute_sweep(spec: RunSpec, options: SweepOptions, session: Session, *, no_report: bool, quiet: bool,
                  target: Path | None = None) -> int:
    """Play (or resume, or with ``session.play`` false only read) the sweep into ``session.out``,
    write its files and report into ``target`` (default ``out``), print its best cells, and
    return the exit code."""
    from analyser.experiments.sweep import run_sweep, write_sweep

    out = Path(session.out)
    res = run_sweep(spec, options, session)
    target = files_folder(res.config, out, target)
    code = write_guarded(lambda: write_sweep(res, target, report=not no_report), res.config, out)
    if code is not None:
        return code
    if not quiet and len(res.cells):
        import pandas as pd
        from analyser.stats.analysis import format_table
        gr = res.grid
        f = res.cells[res.cells["slot"] == gr.focus].sort_values("win_rate", ascending=False)
        mirror = bool(f["fixed"].all())  # the focus fills every seat: what varies is each seat's win rate
        cols = ["cell", *[c for c, _ in gr.dims], "win_rate", "win_low", "win_high", "diff", "diff_low", "diff_high",
                "best", "tied_with_best"]
        if mirror:
            seats = {c: f"seat{c[4:-4]}_rate" for c in f.columns if c.startswith("seat") and c.endswith("_win")}
            f = f.sort_values("cell").rename(columns=seats)
            cols = ["cell", *[c for c, _ in gr.dims], "seat_p", *seats.values()]
        click.echo(f"\n{len(gr.cells)} cells x {res.config['games_per_cell']:,} games; seed {res.config['seed']}. "
                   f"Focus: {gr.slots[gr.focus].text}. {res.pairing['note']}.")
        click.echo(f"Stopped: {res.stop.reason}.")
        if mirror:
            click.echo("The focus strategy fills every seat, so its win rate is 1/players by construction: each "
                       "seat's win rate per cell (seat p: chi-square test of equal seats).")
        with pd.option_context("display.width", 160, "display.max_columns", 30):
            from analyser.experiments import sweep as sweepmod
            shown = f if len(f) <= sweepmod.TERMINAL_CELLS else f.head(sweepmod.TERMINAL_SHOWN)
            click.echo(terminal_table(format_table(sweepmod.display_cells(shown[cols]), digits=1)))
            if len(shown) < len(f):
                click.echo(f"... {len(f) - len(shown)} more cells not shown (the best {len(shown)} of {len(f)}; "
                           "cells.csv and the report have all)")
        if res.findings is not None:
            from analyser import findings
            findings.echo([res.findings])
        click.echo(f"\nCells: {target / 'cells.csv'}\nGames: {target / 'sweep.parquet'}")
        if not no_report:
            click.echo(f"Report: {target / 'index.html'}")
    return outcome(res.config, res.error, res.interrupted, out, "cells", spec) if session.play else 0


def files_folder(config: dict, out: Path, target: Path | None) -> Path:
    """Where an experiment's files go: its own folder, or ``target`` (a report rebuilt elsewhere,
    whose config.json names the experiment folder as ``source`` and is no experiment record)."""
    if target is None or Path(target).resolve() == Path(out).resolve():
        return out
    config.pop("experiment", None)
    config["source"] = str(out)
    return Path(target)


def write_guarded(write, config: dict, out: Path) -> int | None:
    """Write an experiment's files and report.  A Ctrl-C or SIGTERM meanwhile ends the command
    with one line (the games are all on disk: the report can be rebuilt), and so does a disk that
    refuses the files of a complete experiment; their exit code then, else None.  (When play
    itself failed, a report that cannot be written adds nothing to the failure's own line.)"""
    try:
        write()
    except KeyboardInterrupt:
        how = " (SIGTERM)" if stops.exit_code() == 143 else ""
        nxt = (f"rebuild the report with: analyser report {shlex.quote(str(out))}" if config.get("status") == "complete"
               else f"continue with: {resume_command(out, config)}")
        click.echo(f"analyser: interrupted{how} while writing the report; the games are in {out} "
                   f"(status {config.get('status')}); {nxt}", err=True)
        return stops.exit_code()
    except OSError as e:
        if config.get("status") == "complete":
            click.echo(f"analyser: error: cannot write the report in {out} ({e.strerror or type(e).__name__}); "
                       f"the games are all there: rebuild it with analyser report {shlex.quote(str(out))}", err=True)
            return 1
    return None


def outcome(config: dict, error, interrupted: bool, out: Path, what: str, spec: RunSpec | None = None,
            count: str | None = None) -> int:
    """The one line and exit code of an experiment that stopped early: 1 for a failure, 130 for
    Ctrl-C, 143 for SIGTERM; 0 when it is complete.  ``spec`` (the experiment's) names the title
    and game time limit of a failed game's replay line.  ``count`` says how far it got (default:
    its cells complete, ``3 of 8 cells complete``)."""
    count = count or f"{cells_complete(config)} of {len(config.get('cells') or [])} {what} complete"
    again = f"continue with: {resume_command(out, config)}"
    if error is not None:
        replay = _where(error, str((spec.game if spec else None) or config.get("game") or "GAME"),
                        float((spec.game_timeout if spec else None) or GAME_TIMEOUT))
        text = ("a worker process died (killed, or out of memory) and the games it was playing were lost"
                if isinstance(error, WorkerDied) else str(error))
        click.echo(f"analyser: error: {text}{replay}. The finished games were written to {out} ({count})"
                   + ("." if replay else f"; {again}"), err=True)
        return 1
    if interrupted:
        code = stops.exit_code()
        how = " (SIGTERM)" if code == 143 else ""
        click.echo(f"analyser: interrupted{how} with {count}; their games are in "
                   f"{out}; {again}", err=True)
        return code
    return 0


@supervised.command()
@click.argument("game")
@click.option("-s", "--strategy", "strategies", multiple=True, metavar="SPEC", callback=strip_specs, required=True,
              help="Strategy spec, repeatable (at least --players different ones).")
@click.option("-r", "--rule", "rules", multiple=True, metavar="KEY=VALUE", help="Rule option override.")
@click.option("-n", "--games", type=int, default=4000, show_default=True,
              help="Games in all, shared equally between the tables (rounded up to whole rotations).")
@click.option("--bootstrap", type=click.IntRange(10, 10000), default=50, show_default=True,
              help="Bootstrap resamples for the rating and meta-game intervals.")
@_common_run_options
@cluster_options
def tournament(game, strategies, rules, games, bootstrap, players, seed, jobs, out, until_ci, batch_size,
               game_timeout, quiet, backend, scheduler):
    """Rank strategies of GAME over balanced tables, with ratings and intervals.

    Every table seats different strategies; all combinations are played when there are at most 60,
    else a balanced sample. Ratings: Bradley-Terry (2 seats) or Plackett-Luce (more), fitted with
    choix, with bootstrap intervals over games; then the meta-game: its Nash equilibrium mix, Nash
    averages, rock-paper-scissors cycles and findings. Each table is a run folder
    OUT/cells/table-NN whose games stream to disk; a failure (exit 1), Ctrl-C (130) or SIGTERM
    (143) keeps every finished game, and `analyser resume OUT` finishes the tournament.

    \b
    Examples:
      analyser tournament GAME -s greedy -s random -s NAME -s 'NAME:key=6' -s 'NAME:key=9' --players 4
      analyser tournament GAME -s greedy -s random -s NAME --players 3 --games 3000 --until-ci 0.04
    """
    from analyser.experiments import stopping

    stopping.check_width(until_ci)
    backend, scheduler = cluster(backend, scheduler)
    check_plotting()
    g = get_game(game)
    out = prepare_out(out, g.id + "-tournament", "tournament", quiet)
    spec = RunSpec(game=title_ref(g), strategies=list(strategies), players=players, games=games, seed=seed,
                   jobs=jobs, rules=parse_key_values(rules, what="--rule"), batch_size=batch_size,
                   game_timeout=game_timeout)
    options = TournamentOptions(until_ci=until_ci, bootstrap=bootstrap)
    return pooled(lambda: execute_tournament(spec, options, new_session(out, quiet), quiet=quiet),
                  backend, scheduler, jobs, out)


def execute_tournament(spec: RunSpec, options: TournamentOptions, session: Session, *, quiet: bool,
                       target: Path | None = None) -> int:
    """Play (or resume, or only read) the tournament in ``session.out``, write its files and
    report into ``target`` (default ``out``), print the ranking, and return the exit code."""
    from analyser.experiments.tournament import run_tournament, write_tournament

    out = Path(session.out)
    t = run_tournament(spec, options, session)
    for note in t.config.get("notes") or []:  # (a strategy given twice: said, even with -q)
        click.echo(f"Note: {note}", err=True)
    target = files_folder(t.config, out, target)
    code = write_guarded(lambda: write_tournament(t, target), t.config, out)
    if code is not None:
        return code
    if not quiet and len(t.ranking):
        import pandas as pd
        from analyser.stats.analysis import format_table
        click.echo(f"\n{len(t.tables)} tables ({t.design}) x {t.config['games_per_table']:,} games, "
                   f"{t.config['players']} players; seed {t.config['seed']}. Ratings: {t.config['rating_model']}.")
        click.echo(f"Stopped: {t.stop.reason}.")
        with pd.option_context("display.width", 160, "display.max_columns", 30):
            click.echo(terminal_table(format_table(t.ranking)))
        if t.meta is not None:
            from analyser.stats import metagame
            click.echo("\n" + metagame.summary_text(t.meta, t.ranking))
        if t.findings is not None:
            from analyser import findings
            findings.echo([t.findings])
        click.echo(f"\nReport: {target / 'index.html'}")
    return outcome(t.config, t.error, t.interrupted, out, "tables", spec) if session.play else 0


@supervised.command()
@click.argument("targets", nargs=-1, required=True)
@click.option("-s", "--strategy", "strategies", multiple=True, metavar="SPEC", callback=strip_specs,
              help="Lineup of both sides (GAME form); default: the title's built-in lineup, as simulate.")
@click.option("--a", "a_rules", multiple=True, metavar="KEY=VALUE", help="Rule override of side A, repeatable.")
@click.option("--b", "b_rules", multiple=True, metavar="KEY=VALUE", help="Rule override of side B, repeatable.")
@click.option("--a-strategy", "a_strategies", multiple=True, metavar="SPEC", callback=strip_specs, help="Lineup of side A (instead of -s).")
@click.option("--b-strategy", "b_strategies", multiple=True, metavar="SPEC", callback=strip_specs, help="Lineup of side B (instead of -s).")
@click.option("-r", "--rule", "rules", multiple=True, metavar="KEY=VALUE", help="Rule override of both sides.")
@click.option("-p", "--players", type=int, default=None, help="Number of seats.")
@click.option("-n", "--games", type=int, default=5000, show_default=True, help="Games per side.")
@click.option("--seed", type=int, default=None, callback=check_root_seed,
              help="Root seed of both sides (default: fresh, recorded).")
@click.option("-j", "--jobs", type=int, default=0, show_default=True, help="Worker processes; 0 = all cores.")
@click.option("-o", "--out", default=None, metavar="DIR",
              help="Output folder (new, empty, or an earlier comparison, which is replaced). Default: "
                   "reports/<game>-compare-<timestamp>, or <game>-compare-<timestamp> beside RUN_A.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar and no table.")
@click.option("--batch-size", type=int, default=None,
              help="Games per joblib task of each side (default: automatic); the results do not depend on it.")
@click.option("--title", "title_file", default=None, metavar="FILE",
              help="Two run folders of a title of your own: its file or folder. Loading it runs its code, "
                   "so it is never loaded unless you name it here.")
@click.option("--trust", is_flag=True,
              help="Two run folders: load the title file their config.json names (only for folders you made or "
                   "trust: loading a file runs its code).")
@cluster_options
def compare(targets, strategies, a_rules, b_rules, a_strategies, b_strategies, rules, players, games, seed, jobs,
            out, quiet, batch_size, title_file, trust, backend, scheduler):
    """Compare A with B on the same game seeds: two rule sets or lineups of GAME, or two run folders.

    Every figure is A - B with a 95% interval and a p-value (paired bootstrap and McNemar's test
    for win rates; paired t-test and Wilcoxon for scores and game length). Sides played here are
    run folders OUT/a and OUT/b whose games stream to disk; a stopped comparison (exit 1, 130 for
    Ctrl-C, 143 for SIGTERM) is finished by `analyser resume OUT`.

    \b
    Examples:
      analyser compare GAME -s greedy --a KEY=12 --b KEY=10 --games 5000
      analyser compare GAME --a-strategy greedy --a-strategy random --b-strategy greedy --b-strategy NAME
      analyser compare reports/run-a reports/run-b
    """
    from analyser.experiments import compare as cmpmod
    from analyser.results import trust_title_file

    backend, scheduler = cluster(backend, scheduler)
    check_plotting()
    if title_file:
        trust_title_file(title_file)
    first = targets[0]
    if len(targets) == 2 and not (first in game_ids() and not Path(first).exists()):
        if strategies or a_rules or b_rules or a_strategies or b_strategies or rules or batch_size is not None:
            raise InputError("comparing two run folders takes no -s, --a, --b, --rule or --batch-size; they come "
                             "from the runs")
        if backend is not None:
            raise InputError("comparing two run folders plays no games; leave --backend and --scheduler out")
        if Path(targets[0]).resolve() == Path(targets[1]).resolve():
            raise InputError(f"{targets[0]!r} and {targets[1]!r} are the same run; give two different run folders")
        if out is not None:  # checked before the runs are read
            target = Path(out).resolve()
            for run_dir in targets:
                if target == Path(run_dir).resolve() or target in Path(run_dir).resolve().parents:
                    raise InputError(f"--out {out!r} holds the run {run_dir!r} being compared; choose another folder")
            out_dir = prepare_out(out, "", "compare", quiet)
        with trusting(trust):
            cmp = cmpmod.compare_runs(targets[0], targets[1], command=command_line())
        if out is None:  # a new folder beside RUN_A: an earlier comparison there is kept
            out_dir = prepare_out(None, f"{cmp.config['game']}-compare", "compare", quiet,
                                  parent=Path(targets[0]).parent)
    elif len(targets) == 1:
        if trust:
            raise InputError("--trust is for two run folders (it loads the title file they name); GAME takes none")
        g = get_game(first)
        common = parse_key_values(rules, what="--rule")
        ra = {**common, **parse_key_values(a_rules, what="--a")}
        rb = {**common, **parse_key_values(b_rules, what="--b")}
        # with no lineup named, both sides play the title's built-in lineup, as simulate and play do
        la = list(a_strategies or strategies) or list(builtin_strategies(g, players))
        lb = list(b_strategies or strategies) or list(builtin_strategies(g, players))
        if ra == rb and la == lb:
            raise InputError("sides A and B are the same; give --a/--b rule overrides or --a-strategy/--b-strategy")
        sa = RunSpec(game=title_ref(g), strategies=la, players=players, games=games, seed=seed, jobs=jobs,
                     rules=ra, batch_size=batch_size)
        sb = dataclasses.replace(sa, strategies=lb, rules=rb)
        out_dir = prepare_out(out, g.id + "-compare", "compare", quiet)
        return pooled(lambda: execute_compare(sa, CompareOptions(sb), new_session(out_dir, quiet), quiet=quiet),
                      backend, scheduler, jobs, out_dir)
    else:
        raise InputError(f"compare takes GAME (with --a/--b) or two run folders; got {len(targets)} arguments")
    return _compare_finish(cmp, out_dir, quiet)


def execute_compare(sa: RunSpec, options: CompareOptions, session: Session, *, quiet: bool,
                    target: Path | None = None) -> int:
    """Play (or resume, or only read) sides A (``sa``) and B (``options.b``) in ``out/a`` and
    ``out/b``, then write the comparison into ``target`` (default ``out``) and print it; the exit
    code."""
    from analyser.experiments import compare as cmpmod

    out = Path(session.out)
    cmp = cmpmod.compare_specs(sa, options, session)
    if cmp.status != "complete":
        if not session.play:
            raise InputError(f"{str(out)!r} holds a comparison whose sides are not complete (status "
                             f"{cmp.status}); finish it with: analyser resume {shlex.quote(str(out))}")
        return outcome(cmp.config, cmp.error, cmp.interrupted, out, "sides", sa)
    return _compare_finish(cmp, files_folder(cmp.config, out, target), quiet, source=out)


def _compare_finish(cmp, out_dir: Path, quiet: bool, source: Path | None = None) -> int:
    from analyser.experiments import compare as cmpmod

    code = write_guarded(lambda: cmpmod.write_compare(cmp, out_dir), cmp.config, source or out_dir)
    if code is not None:
        return code
    if not quiet:
        import pandas as pd
        click.echo(f"\n{cmp.note}.")
        click.echo(f"A: {cmpmod.describe_side(cmp.config['a'])}\nB: {cmpmod.describe_side(cmp.config['b'])}")
        with pd.option_context("display.width", 180, "display.max_columns", 30, "display.max_colwidth", 40):
            click.echo(terminal_table(cmpmod.display_table(cmp.table).drop(columns=["test"])))
        for k, v in cmp.seats.items():
            click.echo(f"Seat balance {k.upper()}: {v['verdict']}")
        from analyser import findings
        findings.echo([cmp.findings])
        click.echo(f"\nReport: {out_dir / 'index.html'}")
    return 0


EPILOG_LADDER = """\b
Examples:
  analyser ladder GAME                                  (mcts, 25..400 iterations, 200 games a level)
  analyser ladder GAME --budgets 25..1600 --games 400 --seed 1
  analyser ladder GAME --against greedy --budgets 25..800
  analyser ladder GAME --strategy 'mcts:iterations,c=1.0' --budgets 50,100,200,400
  analyser ladder GAME --strategy NAME:KEY --budgets 2..16
(GAME, NAME, KEY: a title id, a strategy and one of its numeric parameters, from `analyser list GAME`.)

\b
--strategy NAME:PARAM[,key=value...]: the parameter written without = is laddered (mcts alone
means mcts:iterations); the others stay fixed. It must be a numeric (int or float) parameter.
--budgets A..B doubles from A up to B (B must be A doubled a whole number of times); a list
a,b,c gives the values in ascending order (whole numbers for an int parameter).

\b
Head to head (default): level k plays budget b[k+1] (the stronger side) against b[k], in the
title's usual player count (-p to change it). The seats are split as evenly as the count allows
and rotated, as simulate seats -s STRONGER -s WEAKER: half each at an even count; at an odd
count the two sides take the extra seat in turn. With --against SPEC: every budget plays SPEC
instead (a strength curve).

\b
Per level: the side's win rate (its share of each game's win) with a 95% cluster-robust
interval (the game as the cluster), the fair share (its seats over the players, averaged over
the games: 1/2), and decisions per second.
Skill depth: a doubling is clear when the 95% interval of its gain lies wholly above 0 (head to
head: the stronger side's interval above the fair share; with --against: the paired change in
win rate from the budget below, on the same games). The depth is the number of clear doublings
counted from the smallest budget up to the first that is not clear.
"""


@supervised.command(epilog=EPILOG_LADDER)
@click.argument("game")
@click.option("--strategy", "strategy", default="mcts:iterations", show_default=True, metavar="NAME:PARAM",
              help="The laddered strategy and its numeric parameter (written without =); other parameters as "
                   "key=value after it.")
@click.option("--budgets", default="25..400", show_default=True, metavar="A..B|a,b,c",
              help="Values of the laddered parameter: A..B doubles from A up to B, or an ascending list.")
@click.option("--against", default=None, metavar="SPEC",
              help="Play every budget against this fixed opponent (a strength curve) instead of head to head.")
@click.option("-r", "--rule", "rules", multiple=True, metavar="KEY=VALUE", help="Rule option override.")
@click.option("-n", "--games", type=int, default=200, show_default=True, help="Games per level.")
@click.option("-p", "--players", type=int, default=None, help="Number of seats (default: the title's usual count).")
@click.option("--seed", type=int, default=None, callback=check_root_seed, help="Root seed (default: fresh, recorded).")
@click.option("-j", "--jobs", type=int, default=0, show_default=True,
              help="Worker processes; 0 = all cores. Results do not depend on it.")
@click.option("-o", "--out", default=None, metavar="DIR",
              help="Output folder (new, empty, or an earlier ladder, which is replaced). Default: "
                   "reports/<game>-ladder-<timestamp>.")
@click.option("--batch-size", type=int, default=None, help="Games per joblib task (default: automatic).")
@click.option("--game-timeout", type=float, default=None,
              help="Seconds one game may take before its strategy is reported as hung; 0 = no limit. Default: "
                   "scaled to the measured cost of a game of the top level (20 times its CPU seconds, at least "
                   f"{GAME_TIMEOUT:g}), so a busy machine does not trip it.")
@click.option("--no-report", is_flag=True, help="Write ladder.parquet and levels.csv but skip the plot and HTML.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar and no table.")
@cluster_options
def ladder(game, strategy, budgets, against, rules, games, players, seed, jobs, out, batch_size, game_timeout,
           no_report, quiet, backend, scheduler):
    """Skill depth of GAME: does a bigger search budget keep winning?

    Plays mcts (or --strategy) at each doubling of its budget against the budget below (or
    against one fixed opponent with --against), and finds the skill depth: how many doublings
    clearly pay. Each level is a run folder OUT/cells/<level> whose games stream to disk (it is
    exactly the simulate run of its two specs with the ladder's --seed). Then writes
    OUT/levels.csv (one row per level), ladder.parquet (every game), ladder_curve.png and
    index.html, and prints the levels and the depth. A failure (exit 1), Ctrl-C (130) or SIGTERM
    (143) keeps every finished game; `analyser resume OUT` finishes the ladder.
    """
    from analyser.experiments import ladder as laddermod

    backend, scheduler = cluster(backend, scheduler)
    if not no_report:
        check_plotting()
    g = get_game(game)
    ls = laddermod.parse_ladder_strategy(strategy, title_ref(g))  # bad input: one line before a folder exists
    laddermod.parse_budgets(budgets, ls.kind)
    out = prepare_out(out, g.id + "-ladder", "ladder", quiet)
    spec = RunSpec(game=title_ref(g), strategies=[], players=players, games=games, seed=seed, jobs=jobs,
                   rules=parse_key_values(rules, what="--rule"), batch_size=batch_size, game_timeout=game_timeout)
    options = LadderOptions(strategy=strategy, budgets=budgets, against=against)
    return pooled(lambda: execute_ladder(spec, options, new_session(out, quiet), no_report=no_report, quiet=quiet),
                  backend, scheduler, jobs, out)


def execute_ladder(spec: RunSpec, options: LadderOptions, session: Session, *, no_report: bool, quiet: bool,
                   target: Path | None = None) -> int:
    """Play (or resume, or only read) the ladder in ``session.out``, write its files and report
    into ``target`` (default ``out``), print the levels and the depth, and return the exit
    code."""
    from analyser.experiments import ladder as laddermod
    from analyser.experiments import ladder_report

    out = Path(session.out)
    res = laddermod.run_ladder(spec, options, session)
    target = files_folder(res.config, out, target)
    code = write_guarded(lambda: ladder_report.write_ladder(res, target, report=not no_report), res.config, out)
    if code is not None:
        return code
    if not quiet and len(res.table):
        import pandas as pd
        curve = res.config.get("against") is not None
        click.echo(f"\n{len(res.levels)} levels x {res.config['games_requested']:,} games, {res.config['players']} "
                   f"players; seed {res.config['seed']}. Win rate: 95% cluster-robust interval.")
        with pd.option_context("display.width", 200, "display.max_columns", 30):
            click.echo(terminal_table(ladder_report.display_levels(res.table, res.gains, curve)))
        for f in laddermod.findings(res.gains, res.depth, param=res.config["parameter"],
                                    against=res.config.get("against"), source=res.config["strategy"].split(":")[0]):
            click.echo(f"\n{f['sentence']} Evidence: {f['evidence']['figure']}, 95% interval "
                       f"{f['evidence']['interval']}.")
        click.echo("\nEach level replays, game for game, with:")
        for k, lv in enumerate(res.levels):
            click.echo(f"  level {k + 1}: {laddermod.replay_command(res.config, lv)}")
        click.echo(f"\nLevels: {target / 'levels.csv'}\nGames: {target / 'ladder.parquet'}")
        if not no_report:
            click.echo(f"Report: {target / 'index.html'}")
    limit = res.config.get("game_timeout")  # (the default one scaled to the cost of a game)
    ran = dataclasses.replace(spec, game_timeout=limit if limit is not None else GAME_TIMEOUT)
    return outcome(res.config, res.error, res.interrupted, out, "levels", ran) if session.play else 0
