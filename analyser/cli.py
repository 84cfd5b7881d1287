"""The ``analyser`` command line (click, thin): list, simulate, play, new, check, report, bench.

Every command is a thin layer over library functions.  Bad input (an unknown game, strategy,
rule or parameter, a malformed ``key=value``, a number out of range, an unwritable ``--out``)
prints one line naming the value and what is accepted, and exits with code 2.
"""

from __future__ import annotations

import contextlib
import json
import shlex
import sys
from pathlib import Path

import click

from analyser import __version__
from analyser.core import InputError, StrategyError, parse_key_values

EPILOG_SIMULATE = """\b
Examples (GAME is a title id from `analyser list`, which also names each title's
strategies, their parameters and the rule options; or a title of your own, as a file
FILE.py:CLASS or as a folder written by `analyser new`):
  analyser simulate GAME --strategy greedy
  analyser simulate GAME --strategy greedy --strategy random --games 5000
  analyser simulate GAME -s greedy -s NAME:key=value -s random --players 3 --rule KEY=VALUE
  analyser simulate GAME -s my_bots.py:cautious -s greedy --seed 7 --out reports/cautious
  analyser simulate ./my_game.py:MyGame -s random --games 500
  analyser simulate ./my-game -s greedy -s random --jobs 2
  analyser simulate GAME -s greedy --games 1000000 --out reports/big
  analyser resume reports/big        (continue a run that was interrupted)
  analyser simulate GAME -s greedy --backend dask --scheduler tcp://HOST:8786

\b
Seats: strategies fill the seats in order, cycling when there are fewer strategies than
players; the lineup rotates one seat every game, so each strategy sits in each seat
equally often (exactly, when --games is a multiple of --players), and its order is
reshuffled every --players games so neighbours vary too.
"""


def _one_line_error(message: str, code: int = 2):
    click.echo(f"analyser: error: {message}", err=True)
    sys.exit(code)


class AnalyserGroup(click.Group):
    """A click group whose errors are one line (no usage dump, no traceback)."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        try:
            rv = super().main(args=args, prog_name=prog_name or "analyser", complete_var=complete_var,
                              standalone_mode=False, **extra)
        except click.exceptions.NoArgsIsHelpError as e:  # `analyser` alone: show the help
            click.echo(e.ctx.get_help())
            sys.exit(0)
        except click.UsageError as e:
            where = f" (see: {e.ctx.command_path} --help)" if e.ctx is not None else ""
            _one_line_error(e.format_message().replace("\n", " ") + where, e.exit_code)
        except click.ClickException as e:
            _one_line_error(e.format_message().replace("\n", " "), e.exit_code)
        except InputError as e:
            _one_line_error(str(e))
        except (click.Abort, KeyboardInterrupt):
            click.echo("analyser: interrupted", err=True)
            sys.exit(130)
        sys.exit(rv if isinstance(rv, int) else 0)


@click.group(cls=AnalyserGroup, context_settings={"help_option_names": ["-h", "--help"],
                                                   "max_content_width": 100})
@click.version_option(__version__, prog_name="analyser")
def cli():
    """Monte Carlo strategy analyser for tabletop games.

    Plays thousands of games between pluggable strategies and reports who wins, by how much,
    and whether the seat you sit in matters.

    \b
    Start here:
      analyser list                               titles, strategies, rule options
      analyser simulate GAME --strategy greedy    play 2000 games of GAME, write a report
      analyser play GAME --strategy greedy --strategy random --seed 1
      analyser new my-game                        start a title of your own
      analyser check ./my-game                    check a title keeps the contract

    \b
    Designer experiments (same deals everywhere, paired statistics):
      analyser sweep GAME -s 'NAME:key=4..14' -s greedy --rule KEY=10,12    a grid of cells
      analyser tournament GAME -s A -s B -s C -s D --players 3              ratings over tables
      analyser compare GAME -s greedy --a KEY=12 --b KEY=10                 A against B
      add --until-ci 0.04 to simulate, sweep or tournament to stop once intervals are narrow

    GAME is a title id shown by `analyser list`, or your own title's file or folder.
    """


# --------------------------------------------------------------------------------------------
# list
# --------------------------------------------------------------------------------------------

@cli.command("list")
@click.argument("game", required=False)
def list_cmd(game):
    """Show the titles, their strategies (with parameters) and their rule options.

    Give a GAME id to show only that title.
    """
    from analyser.registry import available_strategies, game_ids, get_game, strategy_doc, strategy_parameters

    ids = [get_game(game).id] if game else game_ids()
    for gid in ids:
        g = get_game(gid)
        count = (f"{g.min_players} players" if g.min_players == g.max_players else
                 f"{g.min_players}-{g.max_players} players (default {g.default_players})")
        click.secho(f"{gid}  -  {g.name}, {count}", bold=True)
        if g.summary:
            click.echo(f"  {g.summary}")
        click.echo(f"  rules: docs/rules/{gid}.md")
        if g.tie_break_note:
            click.echo(_wrap(f"ties: {g.tie_break_note}", 2))
        click.echo("  strategies (--strategy NAME or NAME:key=value,...):")
        for name, obj in available_strategies(gid).items():
            params = strategy_parameters(obj)
            sig = ",".join(f"{k}={('on' if d else 'off') if isinstance(d, bool) else d}" for k, (_, d) in params.items())
            click.echo(f"    {name}{':' + sig if sig else ''}")
            click.echo(_wrap(strategy_doc(obj), 8))
        click.echo("  rule options (--rule key=value), default first:")
        for o in g.Params.options():
            if o["choices"]:
                allowed = f" [{' | '.join(map(str, o['choices']))}]"
            elif o["low"] is not None or o["high"] is not None:
                lo = "" if o["low"] is None else f"{o['low']:,}"
                hi = "" if o["high"] is None else f"{o['high']:,}"
                allowed = f" [{lo} to {hi}]" if lo and hi else (f" [>= {lo}]" if lo else f" [<= {hi}]")
            elif o["type"] == "bool":
                allowed = " [on | off]"
            else:
                allowed = ""
            default = ("on" if o["default"] else "off") if isinstance(o["default"], bool) else o["default"]
            click.echo(f"    {o['name']}={default}{allowed}")
            click.echo(_wrap(o["doc"], 8))
        click.echo()


def _wrap(text: str, indent: int) -> str:
    import textwrap
    return textwrap.fill(text, width=96, initial_indent=" " * indent, subsequent_indent=" " * indent)


# --------------------------------------------------------------------------------------------
# simulate
# --------------------------------------------------------------------------------------------

def _command_line() -> str:
    return "analyser " + " ".join(shlex.quote(a) for a in sys.argv[1:]) if sys.argv else "analyser"


def _strip_specs(ctx, param, value):
    """Strategy specs as written, less surrounding blanks: ``-s ' greedy'`` is greedy (the spec is
    the strategy's label in every table, so a stray blank would make a second strategy)."""
    return tuple(v.strip() for v in value) if value else value


@cli.command(epilog=EPILOG_SIMULATE)
@click.argument("game")
@click.option("-s", "--strategy", "strategies", multiple=True, metavar="SPEC", callback=_strip_specs,
              help="Strategy spec, repeatable; seats are filled in order. NAME, NAME:key=value,... or "
                   "FILE.py:NAME. See `analyser list`. Default: every built-in strategy of the title.")
@click.option("-p", "--players", type=int, default=None,
              help="Number of seats. Default: the title's usual count (more if more strategies are given); "
                   "the strategies cycle over the seats.")
@click.option("-n", "--games", type=int, default=2000, show_default=True, help="Games to play.")
@click.option("--seed", type=int, default=None,
              help="Root seed. Default: a fresh seed, printed and recorded in config.json.")
@click.option("-j", "--jobs", type=int, default=0, show_default=True,
              help="Worker processes; 0 = all cores. Results do not depend on it.")
@click.option("-r", "--rule", "rules", multiple=True, metavar="KEY=VALUE",
              help="Rule option override, repeatable (see `analyser list GAME`).")
@click.option("-o", "--out", default=None, metavar="DIR",
              help="Output folder (new, empty, or an earlier run's, which is replaced). "
                   "Default: reports/<game>-<timestamp>.")
@click.option("--csv", is_flag=True, help="Also write results.csv (and the extra tables as CSV) at the end, from the Parquet parts.")
@click.option("--batch-size", type=int, default=None, help="Games per joblib task (default: automatic).")
@click.option("--game-timeout", type=float, default=60.0, show_default=True,
              help="Seconds one game may take before its strategy is reported as hung.")
@click.option("--no-report", is_flag=True, help="Write the results but skip the plots and HTML.")
@click.option("--backend", type=click.Choice(["loky", "dask"]), default=None,
              help="loky: worker processes on this machine (default). dask: a dask.distributed cluster "
                   "(--scheduler ADDRESS, or a LocalCluster when none is given); needs analyser[dask].")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Dask scheduler address, e.g. tcp://HOST:8786 (implies --backend dask).")
@click.option("--until-ci", type=float, default=None, metavar="W",
              help="Stop early once every win-rate 95% interval (strategies and seats) is at most W wide "
                   "(e.g. 0.04), checking at round ends fixed in advance; --games is the most played.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar and no tables.")
@click.option("--debug", is_flag=True, help="On a failure, also print the full traceback (always written to "
                                              "OUT/error.log).")
def simulate(game, strategies, players, games, seed, jobs, rules, out, csv, batch_size, game_timeout,
             no_report, backend, scheduler, until_ci, quiet, debug):
    """Play many games of GAME between strategies and report who wins.

    Writes each finished batch at once to OUT/results/part-<first game>.parquet (one row per
    game and seat; read the folder with pandas.read_parquet), config.json (command, seed,
    versions, status, games done), then summary.csv, the PNG plots and a self-contained
    index.html, and prints the summary tables. A strategy that fails, Ctrl-C, SIGTERM or a dead
    worker stops the run; the finished games stay on disk and `analyser resume OUT` continues it.
    Anything a strategy prints goes to standard error.
    """
    from analyser import experiments, stopping
    from analyser.registry import default_lineup, get_game

    stopping.check_width(until_ci)
    builtin_lineup = not strategies
    if builtin_lineup:
        g = get_game(game)
        # --players 0 is a bad value (checked in resolve), not "the default"
        strategies = default_lineup(g.id)[:max(players if players is not None else g.default_players, 1)]
    if scheduler is not None and backend is None:
        backend = "dask"
    spec = experiments.RunSpec(game=game, strategies=list(strategies), players=players, games=games,
                               seed=seed, jobs=jobs, rules=parse_key_values(rules, what="--rule"),
                               batch_size=batch_size, game_timeout=game_timeout, backend=backend or "loky",
                               scheduler=scheduler)
    g, params, n_players, n_jobs, root = experiments.resolve(spec)
    spec.seed = root
    _check_out_name(out)
    # the default folder is checked up front like --out: nothing is played into a folder that
    # cannot be written
    out = experiments.prepare_out(out if out is not None else experiments.default_out(g.id))
    if builtin_lineup and not quiet:  # only once the run is valid: a bad value stays a one-line error
        click.echo(f"No --strategy given: pitting the built-in strategies {', '.join(strategies)} "
                   "against each other.", err=True)
    if not quiet:
        fresh = " (fresh; pass --seed to repeat)" if seed is None else ""
        # (the worker count is decided once the run is timed, and recorded in config.json)
        where = f"; on dask {scheduler or '(a local cluster)'}" if spec.backend == "dask" else ""
        click.echo(f"{g.name}: {games} games, {_players_phrase(g, params, n_players)}, strategies "
                   f"{', '.join(strategies)}{_cycling(strategies, n_players)}; seed {root}{fresh}{where}; "
                   f"writing to {out}", err=True)
    if until_ci is None:
        result = experiments.run(spec, progress=False if quiet else None, command=_command_line(), out=out)
    else:  # played in rounds in memory, then written in the run-folder layout
        result = _run_until(spec, until_ci, n_players, quiet)
        experiments.write_results(result, out)
        result.out = out
    return _finish_run(result, spec, g, n_players, out, csv, no_report, quiet, debug)


def _finish_run(result, spec, g, n_players, out: Path, csv: bool, no_report: bool, quiet: bool,
                debug: bool = False) -> int:
    """After a run (new or resumed): CSV, report, config.json's file list, summary, exit code."""
    from analyser import experiments, store
    from analyser.registry import title_ref

    n_done = result.config["games_completed"]
    files: list[str] = []
    summary = path = report_error = None
    log: list[str] = []
    if n_done and not result.stop_requested:
        try:
            if csv:
                files += [p.name for p in experiments.write_csv(out, list(g.extra_tables))]
        except (OSError, store.StoreError) as e:
            _report_write_failure(e, out, n_done)
            return 1
        try:
            if not no_report:
                from analyser.report import build_report_from_run
                path, summary, figures = build_report_from_run(out)
                files += ["summary.csv", "index.html"] + figures
            elif not quiet:  # the summary is only printed: nothing to compute under --quiet
                from analyser.report import summarise_run
                summary = summarise_run(out)
        except KeyboardInterrupt:
            raise
        except Exception as e:  # the results are on disk; a report failure must not lose them
            import traceback
            report_error = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}".rstrip(": ")
            log.append("The report could not be built:\n" + traceback.format_exc())
            result.config["status"] = ("report failed" if result.config["status"] == "complete"
                                       else f"{result.config['status']}; report failed")
            result.config["report_error"] = report_error
    details = getattr(result.error, "details", "") if result.error is not None else ""
    if details:
        log.insert(0, f"{result.error}\n\n{details}")
    try:
        if log:
            (out / "error.log").write_text("\n".join(log), encoding="utf-8")
            files.append("error.log")
        # every file is written before anything goes to stdout, so a closed pipe loses nothing
        tables = [store.RESULTS] + [n for n in g.extra_tables if (out / n).is_dir()]
        result.config["files"] = sorted(set(files) | {"config.json"} | set(tables))
        store.write_json_atomic(out / "config.json", result.config)
    except OSError as e:
        _report_write_failure(e, out, n_done)
        return 1
    if summary is not None and not quiet:
        _print_summary(summary, n_players, result.config)
        click.echo(f"\nResults: {out / store.RESULTS} ({n_done} games)")
        if path:
            click.echo(f"Report:  {path}")
    code = 0
    if report_error is not None:
        click.echo(f"analyser: error: the report could not be built ({report_error}); the {n_done} games were "
                   f"written to {out} and its status says so (details in {out / 'error.log'})", err=True)
        code = 1
    if debug and log:
        click.echo("\n".join(log), err=True)
    if result.error is not None:
        if hasattr(result.error, "game_seed"):
            _report_failure(result.error, spec, title_ref(g), n_done, n_players, out, bool(details))
        else:
            click.echo(f"analyser: error: {result.error}. The {n_done} finished games are in {out}; "
                       f"continue with: analyser resume {shlex.quote(str(out))}", err=True)
        return 1
    if result.interrupted or result.stop_requested:
        click.echo(f"analyser: interrupted after {n_done} games; they are in {out}; continue with: "
                   f"analyser resume {shlex.quote(str(out))}", err=True)
        return 130
    return code


def _report_write_failure(e: BaseException, out: Path, n_done: int) -> None:
    reason = str(e) if isinstance(e, OSError) and str(e).startswith("cannot write") else \
        f"cannot write in {out}: {getattr(e, 'strerror', None) or type(e).__name__}"
    click.echo(f"analyser: error: {reason}. The {n_done} finished games stay in {out / 'results'}.", err=True)


def _players_phrase(g, params, n_players: int) -> str:
    """``4 players``, plus any rule the count switches on (from the title's count_notes)."""
    notes = g.count_notes(params, n_players)
    return f"{n_players} players" + (f" ({'; '.join(notes)})" if notes else "")


def _cycling(strategies, n_players: int) -> str:
    m = len(strategies)
    return f" (cycling over the {n_players} seats)" if m < n_players and m > 1 else (
        " in every seat" if m == 1 and n_players > 1 else "")


def _check_out_name(out) -> None:
    """``--out`` must be a name the file system and Parquet writer can take: valid UTF-8."""
    if out is None:
        return
    try:
        str(out).encode("utf-8")
    except UnicodeEncodeError:
        shown = str(out).encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        raise InputError(f"--out {shown!r} is not valid UTF-8; choose a folder name in UTF-8") from None


def _run_until(spec, width: float, players: int, quiet: bool):
    """Play ``spec`` in rounds until every win-rate interval is at most ``width`` wide."""
    import dataclasses

    from analyser import experiments, stopping

    parts = []

    def play(a, b):
        r = experiments.run(dataclasses.replace(spec, games=b, first_game=a), progress=False if quiet else None,
                            command=_command_line())
        parts.append(r)
        return r.error is None and not r.interrupted

    stop = stopping.play_rounds(spec.games, players, width, play,
                                lambda: stopping.widest([stopping.merge(parts).results]))
    result = stopping.merge(parts)
    result.config["stopping"] = stop.as_dict()
    result.config["games_requested"] = spec.games
    if not quiet:
        click.echo(f"Stopped: {stop.reason}.", err=True)
    return result


def _print_summary(summary, players: int, config: dict) -> None:
    import pandas as pd

    from analyser.analysis import METHODS
    from analyser.report import ran_on

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
        wall = config.get("wall_seconds")
        if isinstance(wall, (int, float)):
            click.echo(f"\nWall time {wall:.2f} s {ran_on(config)}".rstrip())
        if config.get("stopping"):
            click.echo(f"Stopping rule: {config['stopping']['reason']}")


def _print_part(part, summary, methods) -> None:
    from analyser.analysis import format_table, percent

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
        click.echo(format_table(part.strategies).to_string(index=False))
        if r.get("mirror"):
            click.echo(f"(mirror match: {', '.join(r['mirror'])} fills every seat, so its win rate is "
                       "1/players by construction; see the seats)")
    click.echo()
    seat_method = methods[part.seats.attrs.get("methods", {}).get("win", "wilson")]
    click.secho(f"Seats (turn order; fair share {100 / players:.1f}%; win rate: {seat_method})", bold=True)
    click.echo(format_table(part.seats[["seat", "n", "win_rate", "win_low", "win_high",
                                        "mean_score", "score_low", "score_high"]]).to_string(index=False))
    click.echo(f"Seat balance: {r['seats']['verdict']}")
    line = f"\nGames {r['games']}; ties {percent(r['tie_rate'], r.get('tie_low'), r.get('tie_high'))}"
    if "turns_mean" in r:
        line += (f"; game length {r['turns_mean']:.1f} {summary.length_unit} (median {r['turns_median']:.0f}, "
                 f"5-95% {r['turns_p5']:.0f}-{r['turns_p95']:.0f})")
    line += f"; score sd {r['score_sd']:.1f} {summary.score_unit}"
    click.echo(line)
    if part.designer is not None:
        click.echo()
        click.secho("Designer figures (see README, Designer metrics)", bold=True)
        click.echo(part.designer.to_string(index=False, header=False))
    for caption, table in part.title_tables:
        click.echo()
        click.secho(caption, bold=True)
        click.echo(format_table(table).to_string(index=False))


def _report_failure(error, spec, game_id: str, n_done: int, players: int, out=None, logged=False) -> None:
    """One line: what failed, in which game, with its seed, and the command that replays it
    (``out``: where error.log holds the full traceback)."""
    from analyser.runner import lineup

    index = getattr(error, "game_index", None)
    seed = getattr(error, "game_seed", None)
    where = f" (game {index}, game seed {seed})" if seed is not None else ""
    replay = ""
    if seed is not None and index is not None:
        words = ["analyser", "play", game_id]
        for i in lineup(index, players, len(spec.strategies)):
            words += ["-s", spec.strategies[i]]
        for k, v in spec.rules.items():
            words += ["--rule", f"{k}={v}"]
        words += ["--seed", str(seed)]
        replay = " Replay: " + " ".join(shlex.quote(w) for w in words)
        if out is not None:
            replay += f" (or: analyser play --from {shlex.quote(str(out))} --game-index {index})."
    log = f" Full traceback: {out / 'error.log'} (or --debug)." if logged else ""
    click.echo(f"analyser: error: {error}{where}. The {n_done} finished games were written.{replay}{log}", err=True)


# --------------------------------------------------------------------------------------------
# play
# --------------------------------------------------------------------------------------------

@cli.command()
@click.argument("game", required=False)
@click.option("-s", "--strategy", "strategies", multiple=True, metavar="SPEC", callback=_strip_specs,
              help="Strategy spec per seat, in seat order (cycled to fill the seats).")
@click.option("-p", "--players", type=int, default=None,
              help="Number of seats. Default: the title's usual count (more if more strategies are given).")
@click.option("--seed", type=int, default=None,
              help="Game seed (the game_seed column of the results replays that game). Default: fresh.")
@click.option("-r", "--rule", "rules", multiple=True, metavar="KEY=VALUE", help="Rule option override.")
@click.option("--json", "as_json", is_flag=True,
              help="Print the trace as JSON lines: {step, seat, strategy, action, events, state (before)}.")
@click.option("--state", "state_file", type=click.Path(path_type=Path), default=None,
              help="Continue from a saved state: a JSON file holding a state, or one line of a --json trace.")
@click.option("--from", "from_dir", type=click.Path(path_type=Path), default=None, metavar="OUT",
              help="Replay a game of an earlier run: its folder (with config.json). Needs --game-index; "
                   "the lineup, rules and game seed are that game's.")
@click.option("--game-index", type=int, default=None, help="With --from: which game of the run (game_index column).")
@click.option("--debug", is_flag=True, help="When a strategy raises, print its full traceback.")
def play(game, strategies, players, seed, rules, as_json, state_file, from_dir, game_index, debug):
    """Play one game of GAME and print a readable turn-by-turn trace.

    \b
    Examples:
      analyser play GAME --strategy greedy --strategy random --seed 1
      analyser play GAME -s greedy -s random --seed 1 --json > trace.jsonl
      analyser play --from reports/my-run --game-index 17
    """
    import secrets

    from analyser.registry import get_game, make_strategy
    from analyser.runner import play_game

    labels = None
    if from_dir is not None:
        if strategies or rules or players is not None or seed is not None or state_file is not None:
            raise InputError("--from takes the lineup, rules and seed from the run; leave out --strategy, --rule, "
                             "--players, --seed and --state")
        game, labels, rule_map, seed = _replay_from(from_dir, game, game_index)
        g = get_game(game)
        params = g.Params.from_overrides(rule_map)
        players = len(labels)
    else:
        if game_index is not None:
            raise InputError("--game-index needs --from OUT (the run folder it indexes)")
        if game is None:
            raise InputError("no GAME given; name a title (see `analyser list`) or replay a run with --from OUT "
                             "--game-index N")
        g = get_game(game)
        params = g.Params.from_overrides(parse_key_values(rules, what="--rule"))
    state = None
    if state_file is not None:
        if rules or players is not None:
            raise InputError("--rule and --players come from the saved --state; leave them out")
        state = _load_state(g, state_file)
        params = state.params if hasattr(state, "params") else params
        players = _state_players(g, state)
    if labels is None:
        if not strategies:
            from analyser.registry import default_lineup
            raise InputError(f"no --strategy given; name one per seat, e.g. --strategy "
                             f"{(default_lineup(g.id) or ['random'])[0]}")
        m = len(strategies)
        if players is None:
            players = max(g.default_players, min(m, g.max_players))
        g.check_players(params, players)
        if m > players:
            raise InputError(f"{m} strategies for {players} seats; give at most {players} --strategy")
        labels = [strategies[s % m] for s in range(players)]
    # anything a strategy prints goes to standard error: the trace (and --json) stays clean
    real_out = sys.stdout
    with contextlib.redirect_stdout(sys.stderr):
        strats = [make_strategy(label, g.id) for label in labels]
    seed = seed if seed is not None else secrets.randbits(63)
    if seed < 0:
        raise InputError(f"--seed {seed} is not accepted; give a whole number >= 0")
    step = {"n": 0}
    events = g.step_events
    legend = g.trace_legend

    def on_step(st, seat, action):
        step["n"] += 1
        if as_json:
            rec = {"step": step["n"], "seat": seat, "strategy": labels[seat],
                   "action": g.action_to_json(action), "state": g.state_to_dict(st)}
            pending.append(rec)  # printed once the action is applied, with the events it caused
        else:
            click.echo(g.describe_state(st), file=real_out)
            click.secho(f"step {step['n']}: seat {seat} ({labels[seat]}) -> {g.describe_action(action)}", bold=True,
                        file=real_out)
        before.append((g.clone_state(st), action))

    pending: list[dict] = []
    before: list = []

    def flush(st):
        """Events of the last action, read once the action is applied (the next step, or the end)."""
        if not before:
            return
        prev, action = before.pop()
        said = events(prev, action, st)
        if as_json:
            rec = pending.pop()
            rec["events"] = said
            click.echo(json.dumps(rec), file=real_out)
        else:
            for e in said:
                click.echo(f"  >> {e}", file=real_out)

    def hook(st, seat, action):
        flush(st)
        on_step(st, seat, action)

    if not as_json:
        click.echo(f"{g.name}, {_players_phrase(g, params, players)}, game seed {seed}: " +
                   ", ".join(f"seat {i} {lab}" for i, lab in enumerate(labels)))
        if legend:
            click.echo(f"Legend: {legend}")
    from analyser.runner import GameFailure
    try:
        with contextlib.redirect_stdout(sys.stderr):
            final = play_game(g, params, strats, labels, seed, on_step=hook, state=state)
    except StrategyError as e:
        if debug and e.details:
            click.echo(e.details, err=True)
        _one_line_error(f"{e} (game seed {e.game_seed})" + ("" if debug or not e.details else "; --debug shows "
                                                                                        "the full traceback"), 1)
    except GameFailure as e:
        _one_line_error(f"{e} (game seed {e.game_seed})", 1)
    flush(final)
    scores, winners = g.scores(final), g.winners(final)
    if as_json:
        click.echo(json.dumps({"final": g.state_to_dict(final), "scores": scores, "winners": winners,
                               "game_seed": seed, "lineup": labels}))
    else:
        click.echo(g.describe_state(final))
        click.secho("Final scores: " + ", ".join(f"seat {i} ({labels[i]}) {s}" for i, s in enumerate(scores)),
                    bold=True)
        names = " and ".join(f"seat {w} ({labels[w]})" for w in winners)
        click.secho(("Shared win: " if len(winners) > 1 else "Winner: ") + names, bold=True)
    return 0


def _replay_from(folder: Path, game: str | None, index: int | None):
    """(game id, strategy per seat, rule overrides, game seed) of game ``index`` of the run in
    ``folder``, from its config.json.  InputError when the folder, the title or the index does not fit."""
    from analyser.registry import get_game
    from analyser.runner import game_seed, lineup

    if index is None:
        raise InputError("--from needs --game-index N (the game_index column of the run's results)")
    from analyser.safeio import read_json
    if not (Path(folder) / "config.json").exists():
        raise InputError(f"--from {str(folder)!r} holds no config.json; give the folder of an analyser run")
    config = read_json(Path(folder) / "config.json", "--from config file", max_bytes=10_000_000)
    kind = config.get("kind") if isinstance(config, dict) else None
    if kind in ("sweep", "tournament", "compare"):  # game_index repeats over cells/tables/sides
        raise InputError(f"--from {str(folder)!r} is a {kind} folder, where one game index is played in every "
                         f"{'cell' if kind == 'sweep' else 'table' if kind == 'tournament' else 'side'}; "
                         f"give a simulate run's folder, or replay one row with analyser play GAME -s ... "
                         f"--seed GAME_SEED (its game_seed column)")
    need = {"game", "seed", "strategies", "players"}
    if not isinstance(config, dict) or not need <= set(config):
        raise InputError(f"--from {str(folder)!r}: config.json is not an analyser run's (it lacks "
                         f"{', '.join(sorted(need - set(config if isinstance(config, dict) else {})))})")
    def whole(v):
        return isinstance(v, int) and not isinstance(v, bool)
    kinds_ok = (isinstance(config["game"], str) and len(config["game"]) <= 40 and whole(config["seed"])
                and config["seed"] >= 0 and whole(config["players"]) and 1 <= config["players"] <= 100
                and isinstance(config["strategies"], list) and 0 < len(config["strategies"]) <= 100
                and all(isinstance(x, str) for x in config["strategies"])
                and isinstance(config.get("rule_overrides") or {}, dict)
                and all(whole(config.get(k) or 0) for k in ("games_requested", "games_completed")))
    if not kinds_ok:
        raise InputError(f"--from {str(folder)!r}: config.json is not an analyser run's (a field has the wrong type)")
    if game is not None and game != config["game"] and get_game(game).id != config["game"]:
        raise InputError(f"--from {str(folder)!r} is a {config['game']} run, not {game}; leave GAME out")
    total = config.get("games_requested") or config.get("games_completed") or 0
    if not 0 <= index < total:
        raise InputError(f"--game-index {index} is not accepted; the run has games 0 to {total - 1}")
    strategies = list(config["strategies"])
    players = int(config["players"])
    labels = [strategies[i] for i in lineup(index, players, len(strategies))]
    # a title loaded from a file is named by its file (title_source), which loads in any process
    title = config.get("title_source") or config["game"]
    return title, labels, dict(config.get("rule_overrides") or {}), game_seed(int(config["seed"]), index)


def _load_state(g, path: Path):
    """Read a saved state through the bounded reader and the title's state schema."""
    from analyser.states import load_state
    return load_state(g, path)


def _state_players(g, state) -> int:
    return len(g.scores(state))


# --------------------------------------------------------------------------------------------
# new
# --------------------------------------------------------------------------------------------

@cli.command()
@click.argument("name")
def new(name):
    """Start a title of your own: write a working skeleton into the new folder NAME.

    NAME (e.g. my-game) is also the title's id. The skeleton plays the dice game Pig, laid out
    like the built-in titles: rules.py (the rule options, the state, what a seat sees, the
    rules), figures.py (one report table and one plot), render.py (the text for `analyser play`),
    strategies.py (random and greedy) and tests/. Change the rules into your game's and run the
    same commands.

    \b
    Examples:
      analyser new my-game
      analyser check ./my-game
      analyser simulate ./my-game -s greedy -s random --games 2000
      analyser play ./my-game -s greedy -s random --seed 1
      python -m pytest my-game/tests
    """
    from analyser.skeleton import write_skeleton

    files = write_skeleton(name)
    folder = Path(name)
    click.echo(f"Wrote the title {folder.name!r} (the dice game Pig, to change into yours) in {folder}/:")
    for path in files:
        click.echo(f"  {path}")
    ref = shlex.quote(str(folder) if folder.is_absolute() or str(folder).startswith(".") else f"./{folder}")
    click.echo("\nNext:")
    click.echo(f"  analyser check {ref}")
    click.echo(f"  analyser simulate {ref} -s greedy -s random --games 2000")
    click.echo(f"  analyser play {ref} -s greedy -s random --seed 1")
    click.echo(f"  python -m pytest {shlex.quote(str(folder / 'tests'))}")
    return 0


@cli.command()
@click.argument("game")
@click.option("-n", "--games", type=int, default=200, show_default=True, help="Random games to play.")
@click.option("--seed", type=int, default=1, show_default=True, help="Root seed of the games.")
@click.option("-p", "--players", type=int, default=None,
              help="Check this player count only. Default: the title's least, usual and greatest in turn.")
@click.option("-r", "--rule", "rules", multiple=True, metavar="KEY=VALUE", help="Rule option override, repeatable.")
@click.option("--game-seed", "game_seeds", type=int, multiple=True, metavar="SEED",
              help="Check only the game with this game seed (from a failure line), repeatable.")
@click.option("--no-fresh-process", is_flag=True, help="Skip replaying the games in a fresh Python process.")
def check(game, games, seed, players, rules, game_seeds, no_fresh_process):
    """Check that GAME keeps the contract of every title, by playing random games.

    GAME is a title id, a title file (FILE.py or FILE.py:CLASS) or a title folder. The checks:
    every running state has distinct legal actions; applying one never raises; the title's
    invariants hold; games end within the declared step bound; the same game seed gives the same
    game twice in one process and once in a fresh one; states round-trip through JSON and a game
    resumed from a saved state continues identically; a view does not show what its seat cannot
    see (the title's resample_hidden redraws that, and the view must not change); scores are
    finite and the winners are seats; the title's own strategies do not change the game through
    their view. Each failure is one line naming the game seed and the step. Exit code 1 when a
    check fails.

    \b
    Examples:
      analyser check GAME
      analyser check ./my-game --games 1000
      analyser check ./my-game --game-seed 1234567 --players 3
    """
    from analyser.check import check_title, format_result
    from analyser.registry import get_game

    g = get_game(game)
    if not game_seeds and not 0 < games <= 1_000_000:
        raise InputError(f"--games {games} is not accepted; give 1 to 1,000,000")
    what = f"{g.id} ({g.name})" + (f" from {g.source}" if g.source else "")
    plan = f"games with game seeds {', '.join(map(str, game_seeds))}" if game_seeds else f"{games} random games"
    click.echo(f"Checking {what}: {plan}" + (f", {players} players" if players else "") + f", seed {seed}")
    result = check_title(game, games=games, seed=seed, players=players,
                         rules=parse_key_values(rules, what="--rule"), game_seeds=list(game_seeds) or None,
                         fresh_process=not no_fresh_process)
    for line in format_result(result, g):
        click.echo(line)
    if result.ok:
        click.echo(f"Passed: {result.games} games, {result.steps:,} actions.")
        return 0
    failed = [k for k, v in result.failed.items() if v]
    click.echo(f"FAILED: {len(failed)} check(s) ({', '.join(failed)}), {sum(result.failed.values())} failure(s).")
    return 1


# --------------------------------------------------------------------------------------------
# report and bench
# --------------------------------------------------------------------------------------------

@cli.command()
@click.argument("results", type=click.Path(path_type=Path))
@click.option("-o", "--out", default=None, metavar="DIR",
              help="Output folder (new or empty). Default: the folder holding RESULTS.")
@click.option("--title", "title_file", default=None, metavar="FILE",
              help="For a run of a title of your own: its file or folder (as in the run's config.json). "
                   "Loading it runs its code, so it is never loaded unless you name it here.")
def report(results, out, title_file):
    """Rebuild the report (plots, summary.csv, index.html) from a run folder or a results file.

    Reads a run folder's Parquet parts (results/part-*.parquet), the single results.parquet
    of older runs, or a results.parquet / results.csv given by path.

    \b
    Examples:
      analyser report reports/GAME-20261130-101500
      analyser report my_joined_results.csv --out reports/joined
    """
    from analyser import experiments, store
    from analyser.report import _reduce_run, build_report, write_report
    from analyser.registry import get_game

    _check_out_name(out)
    if title_file:
        experiments.trust_title_file(title_file)
        get_game(title_file)  # loaded now: a results file without its config.json names the title by id
    if results.is_dir() and results.name == "results" and any(results.glob("part-*.parquet")):
        results = results.parent
    streamed = results.is_dir() and bool(store.part_files(results / store.RESULTS))
    if streamed:  # read part by part below; here only the title and config checks
        opened = experiments.open_run(results)
        config = opened[1]
    else:
        df, extras, config = experiments.load_results(results)
        if df.empty:
            raise InputError(f"{str(results)!r} holds no games")
    source = results if results.is_dir() else results.parent
    if out is not None and Path(out).resolve() == source.resolve():
        out = None  # --out naming the run's own folder: rebuilt in place
    kind = (config or {}).get("kind")
    if out is None and kind in ("sweep", "tournament", "compare"):  # its own page would be replaced
        raise InputError(f"{str(results)!r} is from a {kind}, whose own report is in {str(source)!r}; "
                         f"give --out DIR to write a pooled report elsewhere")
    if out is None:
        out = source
        experiments.check_writable(out)
    else:
        out = experiments.prepare_out(out, replace_run=False)
    if streamed:
        game, reduced, names, config = _reduce_run(results, opened)
        config = config or {"seed": "unknown", "strategies": list(dict.fromkeys(s for r in reduced for s in r.strategies))}
        path, summary, _ = write_report(game, reduced, names, config, out)
        players = reduced[0].players
    else:
        config = config or {"seed": "unknown", "strategies": list(df["strategy"].cat.categories)}
        path, summary, _ = build_report(df, extras, config, out)
        players = int(df["players"].iloc[0])
    _print_summary(summary, players, config)
    click.echo(f"\nReport: {path}")
    return 0


# --------------------------------------------------------------------------------------------
# sweep, tournament, compare
# --------------------------------------------------------------------------------------------

EPILOG_SWEEP = """\b
Examples:
  analyser sweep GAME -s 'NAME:key=4..14' -s greedy --rule KEY=10,12,14
  analyser sweep GAME -s 'NAME:key=-1..1:0.25' -s NAME -s NAME --rule KEY=off,on
  analyser sweep GAME -s 'NAME:key=6,8,10' -s greedy --games 20000 --until-ci 0.03
(GAME, NAME, KEY: a title id, a strategy and a rule option from `analyser list GAME`; the
README has worked examples.)

\b
Values: a list a,b,c (any option), a range a..b (whole numbers, step 1) or a..b:step
(numbers; -1..1:0.25). Every option with several values is varied; the cells are all
combinations (at most 10,000). Every cell plays the same game seeds, so game i is dealt alike in
every cell wherever the rules leave the deal unchanged (the report says when they do not).
The cells are ranked by the win rate of the first -s with a varied parameter (else the first -s).
"""


def _where(error) -> str:
    """`` (game i, game seed s)`` for a failure that names its game, to replay it with `play`."""
    index, seed = getattr(error, "game_index", None), getattr(error, "game_seed", None)
    return f" (game {index}, game seed {seed}; replay it with analyser play --seed {seed})" if seed is not None else ""


def _common_run_options(f):
    for dec in reversed([
        click.option("-p", "--players", type=int, default=None, help="Number of seats."),
        click.option("--seed", type=int, default=None, help="Root seed (default: fresh, recorded)."),
        click.option("-j", "--jobs", type=int, default=0, show_default=True,
                     help="Worker processes; 0 = all cores. Results do not depend on it."),
        click.option("-o", "--out", default=None, metavar="DIR",
                     help="Output folder (new, empty, or an earlier analyser output, which is replaced)."),
        click.option("--until-ci", type=float, default=None, metavar="W",
                     help="Stop once every reported win-rate 95% interval is at most W wide, at round ends "
                          "fixed in advance (--games is the most played)."),
        click.option("--batch-size", type=int, default=None, help="Games per joblib task (default: automatic)."),
        click.option("--game-timeout", type=float, default=60.0, show_default=True,
                     help="Seconds one game may take before its strategy is reported as hung."),
        click.option("--quiet", "-q", is_flag=True, help="No progress bar and no tables."),
    ]):
        f = dec(f)
    return f


@cli.command(epilog=EPILOG_SWEEP)
@click.argument("game")
@click.option("-s", "--strategy", "strategies", multiple=True, metavar="SPEC", callback=_strip_specs, required=True,
              help="Strategy spec per slot, repeatable; parameters may be lists or ranges: threshold:limit=4..14.")
@click.option("-r", "--rule", "rules", multiple=True, metavar="KEY=VALUES",
              help="Rule option, repeatable; a value, a list a,b,c or a range a..b[:step].")
@click.option("-n", "--games", type=int, default=2000, show_default=True, help="Games per cell.")
@click.option("--no-report", is_flag=True, help="Write sweep.parquet and cells.csv but skip the plots and HTML.")
@_common_run_options
def sweep(game, strategies, rules, games, no_report, players, seed, jobs, out, until_ci, batch_size,
          game_timeout, quiet):
    """Play every combination of strategy parameters and rule options of GAME, on the same deals.

    Writes OUT/sweep.parquet (every game of every cell, the varied values as columns), cells.csv
    (one row per cell and strategy), the plots and index.html, and prints the best cells with
    their paired difference from the best.
    """
    from analyser import experiments, stopping
    from analyser.registry import get_game
    from analyser.sweep import run_sweep, write_sweep

    stopping.check_width(until_ci)
    g = get_game(game)
    out = experiments.prepare_out(out) if out is not None else experiments.default_out(g.id + "-sweep")
    from analyser.registry import title_ref
    res = run_sweep(title_ref(g), list(strategies), list(rules), players=players, games=games, seed=seed, jobs=jobs,
                    until_ci=until_ci, batch_size=batch_size, game_timeout=game_timeout,
                    progress=False if quiet else None, command=_command_line())
    write_sweep(res, out, report=not no_report)
    if not quiet and len(res.cells):
        import pandas as pd
        from analyser.analysis import format_table
        gr = res.grid
        f = res.cells[res.cells["slot"] == gr.focus].sort_values("win_rate", ascending=False)
        cols = ["cell", *[c for c, _ in gr.dims], "win_rate", "win_low", "win_high", "diff", "diff_low", "diff_high",
                "tied_with_best"]
        click.echo(f"\n{len(gr.cells)} cells x {res.config['games_per_cell']:,} games; seed {res.config['seed']}. "
                   f"Focus: {gr.slots[gr.focus].text}. {res.pairing['note']}.")
        click.echo(f"Stopped: {res.stop.reason}.")
        with pd.option_context("display.width", 160, "display.max_columns", 30):
            from analyser import sweep as sweepmod
            shown = f if len(f) <= sweepmod.TERMINAL_CELLS else f.head(sweepmod.TERMINAL_SHOWN)
            click.echo(format_table(sweepmod.display_cells(shown[cols]), digits=1).to_string(index=False))
            if len(shown) < len(f):
                click.echo(f"... {len(f) - len(shown)} more cells not shown (the best {len(shown)} of {len(f)}; "
                           "cells.csv and the report have all)")
        click.echo(f"\nCells: {out / 'cells.csv'}\nGames: {out / 'sweep.parquet'}")
        if not no_report:
            click.echo(f"Report: {out / 'index.html'}")
    if res.error is not None:
        click.echo(f"analyser: error: {res.error}{_where(res.error)}. The finished games were written to {out}.",
                   err=True)
        return 1
    return 130 if res.interrupted else 0


@cli.command()
@click.argument("game")
@click.option("-s", "--strategy", "strategies", multiple=True, metavar="SPEC", callback=_strip_specs, required=True,
              help="Strategy spec, repeatable (at least --players different ones).")
@click.option("-r", "--rule", "rules", multiple=True, metavar="KEY=VALUE", help="Rule option override.")
@click.option("-n", "--games", type=int, default=4000, show_default=True,
              help="Games in all, shared equally between the tables (rounded up to whole rotations).")
@click.option("--bootstrap", type=click.IntRange(10, 10000), default=50, show_default=True,
              help="Bootstrap resamples for the rating intervals.")
@_common_run_options
def tournament(game, strategies, rules, games, bootstrap, players, seed, jobs, out, until_ci, batch_size,
               game_timeout, quiet):
    """Rank strategies of GAME over balanced tables, with ratings and intervals.

    Every table seats different strategies; all combinations are played when there are at most 60,
    else a balanced sample. Ratings: Bradley-Terry (2 seats) or Plackett-Luce (more), fitted with
    choix, with bootstrap intervals over games.

    \b
    Examples:
      analyser tournament GAME -s greedy -s random -s NAME -s 'NAME:key=6' -s 'NAME:key=9' --players 4
      analyser tournament GAME -s greedy -s random -s NAME --players 3 --games 3000 --until-ci 0.04
    """
    from analyser import experiments, stopping
    from analyser.registry import get_game
    from analyser.tournament import run_tournament, write_tournament

    stopping.check_width(until_ci)
    g = get_game(game)
    out = experiments.prepare_out(out) if out is not None else experiments.default_out(g.id + "-tournament")
    from analyser.registry import title_ref
    t = run_tournament(title_ref(g), list(strategies), players=players, games=games, seed=seed, jobs=jobs,
                       until_ci=until_ci, rules=parse_key_values(rules, what="--rule"), batch_size=batch_size,
                       game_timeout=game_timeout, bootstrap=bootstrap, progress=False if quiet else None,
                       command=_command_line())
    write_tournament(t, out)
    if not quiet and len(t.ranking):
        import pandas as pd
        from analyser.analysis import format_table
        click.echo(f"\n{len(t.tables)} tables ({t.design}) x {t.config['games_per_table']:,} games, "
                   f"{t.config['players']} players; seed {t.config['seed']}. Ratings: {t.config['rating_model']}.")
        click.echo(f"Stopped: {t.stop.reason}.")
        with pd.option_context("display.width", 160, "display.max_columns", 30):
            click.echo(format_table(t.ranking).to_string(index=False))
        click.echo(f"\nReport: {out / 'index.html'}")
    if t.error is not None:
        click.echo(f"analyser: error: {t.error}{_where(t.error)}. The finished games were written to {out}.",
                   err=True)
        return 1
    return 130 if t.interrupted else 0


@cli.command()
@click.argument("targets", nargs=-1, required=True)
@click.option("-s", "--strategy", "strategies", multiple=True, metavar="SPEC", callback=_strip_specs,
              help="Lineup of both sides (GAME form).")
@click.option("--a", "a_rules", multiple=True, metavar="KEY=VALUE", help="Rule override of side A, repeatable.")
@click.option("--b", "b_rules", multiple=True, metavar="KEY=VALUE", help="Rule override of side B, repeatable.")
@click.option("--a-strategy", "a_strategies", multiple=True, metavar="SPEC", callback=_strip_specs, help="Lineup of side A (instead of -s).")
@click.option("--b-strategy", "b_strategies", multiple=True, metavar="SPEC", callback=_strip_specs, help="Lineup of side B (instead of -s).")
@click.option("-r", "--rule", "rules", multiple=True, metavar="KEY=VALUE", help="Rule override of both sides.")
@click.option("-p", "--players", type=int, default=None, help="Number of seats.")
@click.option("-n", "--games", type=int, default=5000, show_default=True, help="Games per side.")
@click.option("--seed", type=int, default=None, help="Root seed of both sides (default: fresh, recorded).")
@click.option("-j", "--jobs", type=int, default=0, show_default=True, help="Worker processes; 0 = all cores.")
@click.option("-o", "--out", default=None, metavar="DIR", help="Output folder.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar and no table.")
@click.option("--title", "title_file", default=None, metavar="FILE",
              help="Two run folders of a title of your own: its file or folder. Loading it runs its code, "
                   "so it is never loaded unless you name it here.")
def compare(targets, strategies, a_rules, b_rules, a_strategies, b_strategies, rules, players, games, seed, jobs,
            out, quiet, title_file):
    """Compare A with B on the same game seeds: two rule sets or lineups of GAME, or two run folders.

    Every figure is A - B with a 95% interval and a p-value (paired bootstrap and McNemar's test
    for win rates; paired t-test and Wilcoxon for scores and game length).

    \b
    Examples:
      analyser compare GAME -s greedy --a KEY=12 --b KEY=10 --games 5000
      analyser compare GAME --a-strategy greedy --a-strategy random --b-strategy greedy --b-strategy NAME
      analyser compare reports/run-a reports/run-b
    """
    from analyser import compare as cmpmod, experiments
    from analyser.registry import game_ids

    if title_file:
        experiments.trust_title_file(title_file)
    first = targets[0]
    if len(targets) == 2 and not (first in game_ids() and not Path(first).exists()):
        if strategies or a_rules or b_rules or a_strategies or b_strategies or rules:
            raise InputError("comparing two run folders takes no -s, --a, --b or --rule; they come from the runs")
        if Path(targets[0]).resolve() == Path(targets[1]).resolve():
            raise InputError(f"{targets[0]!r} and {targets[1]!r} are the same run; give two different run folders")
        cmp = cmpmod.compare_runs(targets[0], targets[1], command=_command_line())
        default = Path(targets[0]).parent / "compare"
    elif len(targets) == 1:
        from analyser.registry import default_lineup, get_game
        g = get_game(first)
        common = parse_key_values(rules, what="--rule")
        ra = {**common, **parse_key_values(a_rules, what="--a")}
        rb = {**common, **parse_key_values(b_rules, what="--b")}
        la = list(a_strategies or strategies)
        lb = list(b_strategies or strategies)
        if not la or not lb:
            raise InputError(f"name the lineup with -s (both sides) or --a-strategy/--b-strategy, e.g. -s "
                             f"{(default_lineup(g.id) or ['random'])[0]}")
        if ra == rb and la == lb:
            raise InputError("sides A and B are the same; give --a/--b rule overrides or --a-strategy/--b-strategy")
        from analyser.registry import title_ref
        sa = experiments.RunSpec(game=title_ref(g), strategies=la, players=players, games=games, seed=seed, jobs=jobs,
                                 rules=ra)
        sb = experiments.RunSpec(game=title_ref(g), strategies=lb, players=players, games=games, seed=seed, jobs=jobs,
                                 rules=rb)
        out_dir = experiments.prepare_out(out) if out is not None else experiments.default_out(g.id + "-compare")
        cmp = cmpmod.compare_specs(sa, sb, command=_command_line(), progress=False if quiet else None, out=out_dir)
        default = out_dir
    else:
        raise InputError(f"compare takes GAME (with --a/--b) or two run folders; got {len(targets)} arguments")
    if len(targets) == 2:
        out_dir = experiments.prepare_out(out) if out is not None else default
        experiments.check_writable(out_dir)
    cmpmod.write_compare(cmp, out_dir)
    if not quiet:
        import pandas as pd
        click.echo(f"\n{cmp.note}.")
        click.echo(f"A: {cmpmod.describe_side(cmp.config['a'])}\nB: {cmpmod.describe_side(cmp.config['b'])}")
        with pd.option_context("display.width", 180, "display.max_columns", 30, "display.max_colwidth", 40):
            click.echo(cmpmod.display_table(cmp.table).drop(columns=["test"]).to_string(index=False))
        for k, v in cmp.seats.items():
            click.echo(f"Seat balance {k.upper()}: {v['verdict']}")
        click.echo(f"\nReport: {out_dir / 'index.html'}")
    return 0


@cli.command()
@click.argument("folder", type=click.Path(path_type=Path))
@click.option("--csv", is_flag=True, help="Also write results.csv when the run completes.")
@click.option("--no-report", is_flag=True, help="Write the results but skip the plots and HTML.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar and no tables.")
def resume(folder, csv, no_report, quiet):
    """Continue an interrupted or failed run in FOLDER (its --out).

    Plays only the games that have no finished part on disk, with the same seed, strategies,
    rules and batch size, so the whole run equals one uninterrupted run, row for row. A part cut
    short by a kill is detected and played again. Refuses a folder that is not a run, a complete
    run, a run from a newer analyser, or a run another process is writing.

    \b
    Examples:
      analyser simulate GAME -s greedy --games 1000000 --out reports/big
      (Ctrl-C, a kill, a crash...)
      analyser resume reports/big
    """
    from analyser import experiments
    from analyser.registry import get_game

    config = experiments.read_config(folder)
    spec = experiments.spec_from_config(config)
    g, params, n_players, n_jobs, root = experiments.resolve(spec)
    if not quiet:
        click.echo(f"Resuming {folder}: {config.get('games_completed', 0)} of {spec.games} games done; "
                   f"seed {root}", err=True)
    result = experiments.resume(folder, progress=False if quiet else None, command=_command_line())
    return _finish_run(result, spec, get_game(spec.game), n_players, folder, csv, no_report, quiet)


@cli.command()
@click.argument("games", nargs=-1)
@click.option("-n", "--games", "n_games", type=int, default=None,
              help="Games per measurement (default: per case, tens of seconds in all).")
@click.option("-j", "--jobs", type=int, default=0, show_default=True,
              help="Workers for the parallel figure; 0 = all cores.")
@click.option("--repeat", type=int, default=3, show_default=True,
              help="Repetitions of the one-process figure; the best is shown.")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--mcts", "mcts", is_flag=True,
              help="Time the generic search player instead: decisions per second of "
                   "mcts:iterations=N (--iterations) in one process; --games is then games per title.")
@click.option("--iterations", type=int, default=100, show_default=True,
              help="With --mcts: the search's iterations per decision.")
def bench(games, n_games, jobs, repeat, seed, mcts, iterations):
    """Print games per second for each title: the rules in one process (best of --repeat), and
    whole runs with 1 job and with --jobs workers, with the speed-up.

    Give title ids to bench only those.  With --mcts, print the speed of the generic search
    player instead (milliseconds and decisions per second, in seat 0 against random).

    \b
    Examples:
      analyser bench
      analyser bench GAME --games 2000 --jobs 2
      analyser bench --mcts
      analyser bench GAME --mcts --iterations 400 --games 4
    """
    if mcts:
        from analyser.bench import run_mcts_bench
        run_mcts_bench(list(games), iterations, n_games, seed, echo=click.echo)
        return 0
    from analyser.bench import run_bench

    run_bench(list(games), n_games, jobs, seed, echo=click.echo, repeat=repeat)
    return 0


def main():
    """Console-script entry point.  A closed stdout (``analyser list | head -1``) ends the
    process quietly the way Unix tools do (default SIGPIPE action); ``simulate`` writes all its
    files before it prints anything to stdout, so they are complete whatever the pipe does."""
    import signal
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    cli.main(prog_name="analyser")
