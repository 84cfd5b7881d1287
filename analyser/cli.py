"""The ``analyser`` command line (click, thin): list, simulate, play, report, bench.

Every command is a thin layer over library functions.  Bad input (an unknown game, strategy,
rule or parameter, a malformed ``key=value``, a number out of range, an unwritable ``--out``)
prints one line naming the value and what is accepted, and exits with code 2.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import click

from analyser import __version__
from analyser.core import InputError, StrategyError, parse_key_values

EPILOG_SIMULATE = """\b
Examples (GAME is a title id from `analyser list`, which also names each title's
strategies, their parameters and the rule options):
  analyser simulate GAME --strategy greedy
  analyser simulate GAME --strategy greedy --strategy random --games 5000
  analyser simulate GAME -s greedy -s NAME:key=value -s random --players 3 --rule KEY=VALUE
  analyser simulate GAME -s my_bots.py:cautious -s greedy --seed 7 --out reports/cautious

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

    \b
    Designer experiments (same deals everywhere, paired statistics):
      analyser sweep GAME -s 'NAME:key=4..14' -s greedy --rule KEY=10,12    a grid of cells
      analyser tournament GAME -s A -s B -s C -s D --players 3              ratings over tables
      analyser compare GAME -s greedy --a KEY=12 --b KEY=10                 A against B
      add --until-ci 0.04 to simulate, sweep or tournament to stop once intervals are narrow

    GAME is a title id shown by `analyser list`.
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
@click.option("--until-ci", type=float, default=None, metavar="W",
              help="Stop early once every win-rate 95% interval (strategies and seats) is at most W wide "
                   "(e.g. 0.04), checking at round ends fixed in advance; --games is the most played.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar and no tables.")
def simulate(game, strategies, players, games, seed, jobs, rules, out, csv, batch_size, game_timeout,
             no_report, until_ci, quiet):
    """Play many games of GAME between strategies and report who wins.

    Writes OUT/results.parquet (one row per game and seat), config.json (command, seed, versions,
    wall time), summary.csv, the PNG plots and a self-contained index.html, and prints the
    summary tables. A strategy that fails stops the run; the finished games are still written.
    """
    from analyser import experiments, stopping
    from analyser.registry import default_lineup, get_game

    stopping.check_width(until_ci)
    if not strategies:
        g = get_game(game)
        players = players or g.default_players
        strategies = default_lineup(g.id)[:players]
        if not quiet:
            click.echo(f"No --strategy given: pitting the built-in strategies {', '.join(strategies)} "
                       "against each other.", err=True)
    spec = experiments.RunSpec(game=game, strategies=list(strategies), players=players, games=games,
                               seed=seed, jobs=jobs, rules=parse_key_values(rules, what="--rule"),
                               batch_size=batch_size, game_timeout=game_timeout)
    g, params, n_players, n_jobs, root = experiments.resolve(spec)
    spec.seed = root
    out = experiments.prepare_out(out) if out is not None else experiments.default_out(g.id)
    if not quiet:
        fresh = " (fresh; pass --seed to repeat)" if seed is None else ""
        click.echo(f"{g.name}: {games} games, {n_players} players, strategies {', '.join(strategies)}; "
                   f"seed {root}{fresh}; {n_jobs} job(s)", err=True)
    if until_ci is None:
        result = experiments.run(spec, progress=False if quiet else None, command=_command_line())
    else:
        result = _run_until(spec, until_ci, n_players, quiet)
    n_done = result.config["games_completed"]
    files: list[str] = []
    if n_done:
        files += [p.name for p in experiments.write_results(result, out, csv=csv)]
        if not no_report:
            from analyser.report import build_report
            path, summary, figures = build_report(result.results, result.extras, result.config, out)
            files += ["summary.csv", "index.html"] + figures
        else:
            from analyser.report import summarise
            summary, path = summarise(result.results, result.extras), None
        if not quiet:
            _print_summary(summary, n_players, result.config)
            click.echo(f"\nResults: {out / 'results.parquet'}")
            if path:
                click.echo(f"Report:  {path}")
    result.config["files"] = sorted(set(files) | {"config.json"})
    (out / "config.json").write_text(json.dumps(result.config, indent=2, default=str) + "\n")
    if result.error is not None:
        _report_failure(result.error, spec, g.id, n_done, n_players)
        return 1
    if result.interrupted:
        click.echo(f"analyser: interrupted after {n_done} games; those were written to {out}", err=True)
        return 130
    return 0


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
        if config.get("stopping"):
            click.echo(f"Stopping rule: {config['stopping']['reason']}")
        if summary.designer is not None:
            click.echo()
            click.secho("Designer figures (see README, Designer metrics)", bold=True)
            click.echo(summary.designer.to_string(index=False, header=False))
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
      analyser play GAME --strategy greedy --strategy random --seed 1
      analyser play GAME -s greedy -s random --seed 1 --json > trace.jsonl
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
    strats = [make_strategy(label, g.id) for label in labels]
    seed = seed if seed is not None else secrets.randbits(63)
    if seed < 0:
        raise InputError(f"--seed {seed} is not accepted; give a whole number >= 0")
    step = {"n": 0}

    def on_step(st, seat, action):
        step["n"] += 1
        if as_json:
            click.echo(json.dumps({"step": step["n"], "seat": seat, "strategy": labels[seat],
                                   "action": g.action_to_json(action), "state": g.state_to_dict(st)}))
        else:
            click.echo(g.describe_state(st))
            click.secho(f"step {step['n']}: seat {seat} ({labels[seat]}) -> {g.describe_action(action)}", bold=True)

    if not as_json:
        click.echo(f"{g.name}, {players} players, game seed {seed}: " +
                   ", ".join(f"seat {i} {lab}" for i, lab in enumerate(labels)))
    from analyser.runner import GameFailure
    try:
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
    """Rebuild the report (plots, summary.csv, index.html) from a results file or run folder.

    \b
    Examples:
      analyser report reports/GAME-20261130-101500
      analyser report my_joined_results.csv --out reports/joined
    """
    from analyser import experiments
    from analyser.report import build_report

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
@click.option("-s", "--strategy", "strategies", multiple=True, metavar="SPEC", required=True,
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
    res = run_sweep(g.id, list(strategies), list(rules), players=players, games=games, seed=seed, jobs=jobs,
                    until_ci=until_ci, batch_size=batch_size, game_timeout=game_timeout, progress=not quiet,
                    command=_command_line())
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
            from analyser.sweep import display_cells
            click.echo(format_table(display_cells(f[cols].head(15)), digits=1).to_string(index=False))
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
@click.option("-s", "--strategy", "strategies", multiple=True, metavar="SPEC", required=True,
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
    t = run_tournament(g.id, list(strategies), players=players, games=games, seed=seed, jobs=jobs,
                       until_ci=until_ci, rules=parse_key_values(rules, what="--rule"), batch_size=batch_size,
                       game_timeout=game_timeout, bootstrap=bootstrap, progress=not quiet, command=_command_line())
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
@click.option("-s", "--strategy", "strategies", multiple=True, metavar="SPEC",
              help="Lineup of both sides (GAME form).")
@click.option("--a", "a_rules", multiple=True, metavar="KEY=VALUE", help="Rule override of side A, repeatable.")
@click.option("--b", "b_rules", multiple=True, metavar="KEY=VALUE", help="Rule override of side B, repeatable.")
@click.option("--a-strategy", "a_strategies", multiple=True, metavar="SPEC", help="Lineup of side A (instead of -s).")
@click.option("--b-strategy", "b_strategies", multiple=True, metavar="SPEC", help="Lineup of side B (instead of -s).")
@click.option("-r", "--rule", "rules", multiple=True, metavar="KEY=VALUE", help="Rule override of both sides.")
@click.option("-p", "--players", type=int, default=None, help="Number of seats.")
@click.option("-n", "--games", type=int, default=5000, show_default=True, help="Games per side.")
@click.option("--seed", type=int, default=None, help="Root seed of both sides (default: fresh, recorded).")
@click.option("-j", "--jobs", type=int, default=0, show_default=True, help="Worker processes; 0 = all cores.")
@click.option("-o", "--out", default=None, metavar="DIR", help="Output folder.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar and no table.")
def compare(targets, strategies, a_rules, b_rules, a_strategies, b_strategies, rules, players, games, seed, jobs,
            out, quiet):
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

    first = targets[0]
    if len(targets) == 2 and not (first in game_ids() and not Path(first).exists()):
        if strategies or a_rules or b_rules or a_strategies or b_strategies or rules:
            raise InputError("comparing two run folders takes no -s, --a, --b or --rule; they come from the runs")
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
        sa = experiments.RunSpec(game=g.id, strategies=la, players=players, games=games, seed=seed, jobs=jobs, rules=ra)
        sb = experiments.RunSpec(game=g.id, strategies=lb, players=players, games=games, seed=seed, jobs=jobs, rules=rb)
        out_dir = experiments.prepare_out(out) if out is not None else experiments.default_out(g.id + "-compare")
        cmp = cmpmod.compare_specs(sa, sb, command=_command_line(), progress=not quiet, out=out_dir)
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
      analyser bench GAME --games 2000 --jobs 2
    """
    from analyser.bench import run_bench

    run_bench(list(games), n_games, jobs, seed, echo=click.echo, repeat=repeat)
    return 0


def main():
    """Console-script entry point."""
    cli.main(prog_name="analyser")
