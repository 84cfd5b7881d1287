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
@click.option("--quiet", "-q", is_flag=True, help="No progress bar and no tables.")
def simulate(game, strategies, players, games, seed, jobs, rules, out, csv, batch_size, game_timeout,
             no_report, quiet):
    """Play many games of GAME between strategies and report who wins.

    Writes OUT/results.parquet (one row per game and seat), config.json (command, seed, versions,
    wall time), summary.csv, the PNG plots and a self-contained index.html, and prints the
    summary tables. A strategy that fails stops the run; the finished games are still written.
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
    result = experiments.run(spec, progress=False if quiet else None, command=_command_line())
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
    """Console-script entry point."""
    cli.main(prog_name="analyser")
