"""The ``analyser`` command line (click, thin): list, simulate, play, report, bench.

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
Examples:
  analyser simulate dao --strategy greedy
  analyser simulate dao --strategy greedy --strategy threshold:limit=6 --games 5000
  analyser simulate dao -s greedy -s colour -s random --players 3 --rule bust_limit=10
  analyser simulate dao -s my_bots.py:cautious -s greedy --seed 7 --out reports/cautious
  analyser simulate dao -s greedy -s threshold --games 1000000 --out reports/big
  analyser resume reports/big        (continue a run that was interrupted)
  analyser simulate dao -s greedy --backend dask --scheduler tcp://HOST:8786

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
      analyser list                              titles, strategies, rule options
      analyser simulate dao --strategy greedy    play 2000 games, write a report
      analyser play dao --strategy greedy --strategy random --seed 1
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
        click.secho(f"{gid}  -  {g.name}, {g.min_players}-{g.max_players} players "
                    f"(default {g.default_players})", bold=True)
        if g.summary:
            click.echo(f"  {g.summary}")
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


@cli.command(epilog=EPILOG_SIMULATE)
@click.argument("game")
@click.option("-s", "--strategy", "strategies", multiple=True, metavar="SPEC",
              help="Strategy spec, repeatable; seats are filled in order. NAME, NAME:key=value,... or "
                   "FILE.py:NAME. See `analyser list`. Default: every built-in strategy of the title.")
@click.option("-p", "--players", type=int, default=None,
              help="Number of seats. Default: the number of strategies, or the title's usual count.")
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
@click.option("--csv", is_flag=True, help="Also write results.csv beside results.parquet.")
@click.option("--batch-size", type=int, default=None, help="Games per joblib task (default: automatic).")
@click.option("--game-timeout", type=float, default=60.0, show_default=True,
              help="Seconds one game may take before its strategy is reported as hung.")
@click.option("--no-report", is_flag=True, help="Write the results but skip the plots and HTML.")
@click.option("--backend", type=click.Choice(["loky", "dask"]), default=None,
              help="loky: worker processes on this machine (default). dask: a dask.distributed cluster "
                   "(--scheduler ADDRESS, or a LocalCluster when none is given); needs analyser[dask].")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Dask scheduler address, e.g. tcp://HOST:8786 (implies --backend dask).")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar and no tables.")
def simulate(game, strategies, players, games, seed, jobs, rules, out, csv, batch_size, game_timeout,
             no_report, backend, scheduler, quiet):
    """Play many games of GAME between strategies and report who wins.

    Writes each finished batch at once to OUT/results/part-<first game>.parquet (one row per
    game and seat; read the folder with pandas.read_parquet), config.json (command, seed,
    versions, status, games done), then summary.csv, the PNG plots and a self-contained
    index.html, and prints the summary tables. A strategy that fails, Ctrl-C, SIGTERM or a dead
    worker stops the run; the finished games stay on disk and `analyser resume OUT` continues it.
    Anything a strategy prints goes to standard error.
    """
    from analyser import experiments
    from analyser.registry import default_lineup, get_game

    if not strategies:
        g = get_game(game)
        players = players or g.default_players
        strategies = default_lineup(g.id)[:players]
        if not quiet:
            click.echo(f"No --strategy given: pitting the built-in strategies {', '.join(strategies)} "
                       "against each other.", err=True)
    if scheduler is not None and backend is None:
        backend = "dask"
    spec = experiments.RunSpec(game=game, strategies=list(strategies), players=players, games=games,
                               seed=seed, jobs=jobs, rules=parse_key_values(rules, what="--rule"),
                               batch_size=batch_size, game_timeout=game_timeout, backend=backend or "loky",
                               scheduler=scheduler)
    g, params, n_players, n_jobs, root = experiments.resolve(spec)
    spec.seed = root
    # the default folder is checked up front like --out: nothing is played into a folder that
    # cannot be written
    out = experiments.prepare_out(out if out is not None else experiments.default_out(g.id))
    if not quiet:
        fresh = " (fresh; pass --seed to repeat)" if seed is None else ""
        where = f"dask {scheduler or 'LocalCluster'}" if spec.backend == "dask" else f"{n_jobs} job(s)"
        click.echo(f"{g.name}: {games} games, {n_players} players, strategies {', '.join(strategies)}; "
                   f"seed {root}{fresh}; {where}; writing to {out}", err=True)
    result = experiments.run(spec, progress=False if quiet else None, command=_command_line(), out=out)
    return _finish_run(result, spec, g, n_players, out, csv, no_report, quiet)


def _finish_run(result, spec, g, n_players, out: Path, csv: bool, no_report: bool, quiet: bool) -> int:
    """After a run (new or resumed): CSV, report, summary, config.json's file list, exit code."""
    from analyser import experiments, store

    n_done = result.config["games_completed"]
    files: list[str] = []
    if n_done and not result.stop_requested:
        try:
            if csv:
                files += [p.name for p in experiments.write_csv(out, list(g.extra_tables))]
            if not no_report:
                from analyser.report import build_report_from_run
                path, summary, figures = build_report_from_run(out)
                files += ["summary.csv", "index.html"] + figures
            else:
                from analyser.report import summarise_run
                summary, path = summarise_run(out), None
        except (OSError, store.StoreError) as e:
            _report_write_failure(e, out, n_done)
            return 1
        if not quiet:
            _print_summary(summary, n_players, result.config)
            click.echo(f"\nResults: {out / store.RESULTS} ({n_done} games)")
            if path:
                click.echo(f"Report:  {path}")
    tables = [store.RESULTS] + [n for n in g.extra_tables if (out / n).is_dir()]
    result.config["files"] = sorted(set(files) | {"config.json"} | set(tables))
    try:
        store.write_json_atomic(out / "config.json", result.config)
    except store.StoreError as e:
        _report_write_failure(e, out, n_done)
        return 1
    if result.error is not None:
        if isinstance(result.error, (StrategyError,)) or hasattr(result.error, "game_seed"):
            _report_failure(result.error, spec, g.id, n_done, n_players)
        else:
            click.echo(f"analyser: error: {result.error}. The {n_done} finished games are in {out}; "
                       f"continue with: analyser resume {shlex.quote(str(out))}", err=True)
        return 1
    if result.interrupted or result.stop_requested:
        click.echo(f"analyser: interrupted after {n_done} games; they are in {out}; continue with: "
                   f"analyser resume {shlex.quote(str(out))}", err=True)
        return 130
    return 0


def _report_write_failure(e: BaseException, out: Path, n_done: int) -> None:
    reason = str(e) if isinstance(e, OSError) and str(e).startswith("cannot write") else \
        f"cannot write in {out}: {getattr(e, 'strerror', None) or type(e).__name__}"
    click.echo(f"analyser: error: {reason}. The {n_done} finished games stay in {out / 'results'}.", err=True)


def _print_summary(summary, players: int, config: dict) -> None:
    from analyser.analysis import format_table
    import pandas as pd

    with pd.option_context("display.width", 160, "display.max_columns", 30):
        click.echo()
        click.secho("Strategies (win rate with 95% Wilson interval; shared wins split)", bold=True)
        click.echo(format_table(summary.strategies).to_string(index=False))
        if summary.run.get("mirror"):
            click.echo(f"(mirror match: {', '.join(summary.run['mirror'])} fills every seat, so its win rate is "
                       "1/players by construction; see the seats)")
        click.echo()
        click.secho(f"Seats (turn order; fair share {100 / players:.1f}%)", bold=True)
        click.echo(format_table(summary.seats[["seat", "n", "win_rate", "win_low", "win_high",
                                               "mean_score", "score_low", "score_high"]]).to_string(index=False))
        click.echo(f"Seat balance: {summary.run['seats']['verdict']}")
        r = summary.run
        line = f"\nGames {r['games']}; ties {100 * r['tie_rate']:.1f}%"
        if "turns_mean" in r:
            line += (f"; game length {r['turns_mean']:.1f} {summary.length_unit} (median {r['turns_median']:.0f}, "
                     f"5-95% {r['turns_p5']:.0f}-{r['turns_p95']:.0f})")
        wall = config.get("wall_seconds")
        click.echo(line + (f"; wall time {wall:.2f} s" if isinstance(wall, (int, float)) else ""))
        for caption, table in summary.title_tables:
            click.echo()
            click.secho(caption, bold=True)
            click.echo(format_table(table).to_string(index=False))


def _report_failure(error, spec, game_id: str, n_done: int, players: int) -> None:
    """One line: what failed, in which game, with its seed, and the command that replays it."""
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
    click.echo(f"analyser: error: {error}{where}. The {n_done} finished games were written.{replay}", err=True)


# --------------------------------------------------------------------------------------------
# play
# --------------------------------------------------------------------------------------------

@cli.command()
@click.argument("game")
@click.option("-s", "--strategy", "strategies", multiple=True, metavar="SPEC",
              help="Strategy spec per seat, in seat order (cycled to fill the seats).")
@click.option("-p", "--players", type=int, default=None, help="Number of seats.")
@click.option("--seed", type=int, default=None,
              help="Game seed (the game_seed column of results.parquet replays that game). Default: fresh.")
@click.option("-r", "--rule", "rules", multiple=True, metavar="KEY=VALUE", help="Rule option override.")
@click.option("--json", "as_json", is_flag=True,
              help="Print the trace as JSON lines: {step, seat, strategy, action, state (before)}.")
@click.option("--state", "state_file", type=click.Path(path_type=Path), default=None,
              help="Continue from a saved state: a JSON file holding a state, or one line of a --json trace.")
def play(game, strategies, players, seed, rules, as_json, state_file):
    """Play one game of GAME and print a readable turn-by-turn trace.

    \b
    Examples:
      analyser play dao --strategy greedy --strategy random --seed 1
      analyser play dao -s greedy -s threshold --seed 1 --json > trace.jsonl
    """
    import secrets

    from analyser.registry import get_game, make_strategy
    from analyser.runner import play_game

    g = get_game(game)
    params = g.Params.from_overrides(parse_key_values(rules, what="--rule"))
    state = None
    if state_file is not None:
        if rules or players is not None:
            raise InputError("--rule and --players come from the saved --state; leave them out")
        state = _load_state(g, state_file)
        params = state.params if hasattr(state, "params") else params
        players = _state_players(g, state)
    if not strategies:
        from analyser.registry import default_lineup
        raise InputError(f"no --strategy given; name one per seat, e.g. --strategy "
                         f"{(default_lineup(g.id) or ['random'])[0]}")
    m = len(strategies)
    if players is None:
        players = m if m >= g.min_players else g.default_players
    if not g.min_players <= players <= g.max_players:
        raise InputError(f"--players {players} is not accepted for {g.id}; choose {g.min_players} to {g.max_players}")
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

    def on_step(st, seat, action):
        step["n"] += 1
        if as_json:
            click.echo(json.dumps({"step": step["n"], "seat": seat, "strategy": labels[seat],
                                   "action": g.action_to_json(action), "state": g.state_to_dict(st)}),
                       file=real_out)
        else:
            click.echo(g.describe_state(st), file=real_out)
            click.secho(f"step {step['n']}: seat {seat} ({labels[seat]}) -> {g.describe_action(action)}", bold=True,
                        file=real_out)

    if not as_json:
        click.echo(f"{g.name}, {players} players, game seed {seed}: " +
                   ", ".join(f"seat {i} {lab}" for i, lab in enumerate(labels)))
    from analyser.runner import GameFailure
    try:
        with contextlib.redirect_stdout(sys.stderr):
            final = play_game(g, params, strats, labels, seed, on_step=on_step, state=state)
    except StrategyError as e:
        _one_line_error(f"{e} (game seed {e.game_seed})", 1)
    except GameFailure as e:
        _one_line_error(f"{e} (game seed {e.game_seed})", 1)
    scores, winners = g.scores(final), g.winners(final)
    if as_json:
        click.echo(json.dumps({"final": g.state_to_dict(final), "scores": scores, "winners": winners}))
    else:
        click.echo(g.describe_state(final))
        click.secho("Final scores: " + ", ".join(f"seat {i} ({labels[i]}) {s}" for i, s in enumerate(scores)),
                    bold=True)
        names = " and ".join(f"seat {w} ({labels[w]})" for w in winners)
        click.secho(("Shared win: " if len(winners) > 1 else "Winner: ") + names, bold=True)
    return 0


def _load_state(g, path: Path):
    """Read a saved state: a JSON object (a state, or one line of a ``--json`` trace holding one)."""
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise InputError(f"--state {str(path)!r} does not exist") from None
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"--state {str(path)!r} cannot be read: {getattr(e, 'strerror', None) or e}") from None
    lines = [x for x in text.splitlines() if x.strip()]
    if len(lines) > 1 and text.lstrip().startswith("{") and all(x.lstrip().startswith("{") for x in lines[:2]):
        try:
            json.loads(lines[0])
            raise InputError(f"--state {str(path)!r} holds {len(lines)} JSON lines (a whole trace); save the one "
                             "line you want to continue from in its own file")
        except json.JSONDecodeError:
            pass  # one JSON object written over several lines
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(f"--state {str(path)!r} is not JSON: {e}") from None
    if isinstance(data, dict) and isinstance(data.get("state"), dict):
        data = data["state"]
    elif isinstance(data, dict) and isinstance(data.get("final"), dict):
        data = data["final"]
    if not isinstance(data, dict):
        raise InputError(f"--state {str(path)!r} holds a JSON {type(data).__name__}, not a {g.id} state object")
    if data.get("game") not in (None, g.id):
        raise InputError(f"--state {str(path)!r} holds a {data.get('game')} state, not {g.id}")
    try:
        state = g.state_from_dict(data)
        g.check_invariants(state)
        seat = g.current_player(state) if not g.is_terminal(state) else 0
        n = len(g.scores(state))
        if not 0 <= seat < n:
            raise ValueError(f"the seat to move, {seat}, is not one of the {n} seats")
        if not g.is_terminal(state):
            if not g.legal_actions(state):
                raise ValueError("nobody can move")
            g.view(state, seat)
    except InputError as e:
        raise InputError(f"--state {str(path)!r}: {e}") from None
    except Exception as e:
        raise InputError(f"--state {str(path)!r} is not a valid {g.id} state: {type(e).__name__}: {e}") from None
    return state


def _state_players(g, state) -> int:
    return len(g.scores(state))


# --------------------------------------------------------------------------------------------
# report and bench
# --------------------------------------------------------------------------------------------

@cli.command()
@click.argument("results", type=click.Path(path_type=Path))
@click.option("-o", "--out", default=None, metavar="DIR",
              help="Output folder (new or empty). Default: the folder holding RESULTS.")
def report(results, out):
    """Rebuild the report (plots, summary.csv, index.html) from a run folder or a results file.

    Reads a run folder's Parquet parts (results/part-*.parquet), the single results.parquet
    of older runs, or a results.parquet / results.csv given by path.

    \b
    Examples:
      analyser report reports/dao-20261130-101500
      analyser report my_joined_results.csv --out reports/joined
    """
    from analyser import experiments
    from analyser.report import build_report, load_run_for_report

    if results.is_dir() and results.name == "results" and any(results.glob("part-*.parquet")):
        results = results.parent
    if results.is_dir():
        df, extras, config = load_run_for_report(results)
    else:
        df, extras, config = experiments.load_results(results)
    if df.empty:
        raise InputError(f"{str(results)!r} holds no games")
    source = results if results.is_dir() else results.parent
    if out is None:
        out = source
        experiments.check_writable(out)
    else:
        out = experiments.prepare_out(out, replace_run=False)
    config = config or {"seed": "unknown", "strategies": list(df["strategy"].cat.categories)}
    path, summary, _ = build_report(df, extras, config, out)
    _print_summary(summary, int(df["players"].iloc[0]), config)
    click.echo(f"\nReport: {path}")
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
      analyser simulate dao -s greedy -s threshold --games 1000000 --out reports/big
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
def bench(games, n_games, jobs, repeat, seed):
    """Print games per second for each title: the rules in one process (best of --repeat), and
    whole runs with 1 job and with --jobs workers, with the speed-up.

    Give title ids to bench only those.

    \b
    Examples:
      analyser bench
      analyser bench dao --games 2000 --jobs 2
    """
    from analyser.bench import run_bench

    run_bench(list(games), n_games, jobs, seed, echo=click.echo, repeat=repeat)
    return 0


def main():
    """Console-script entry point."""
    cli.main(prog_name="analyser")
