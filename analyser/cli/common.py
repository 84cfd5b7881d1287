"""The click group of the ``analyser`` command line, :func:`main`, and the helpers the command
modules share (option callbacks, the one-line error, the command line a folder records).

The group imports a command's module (:data:`COMMANDS`) only when that command runs or its own
``--help`` is asked for, so ``analyser --help``, ``analyser list`` and a mistyped command import
neither pandas nor pyarrow, nor the worker pool.  This module imports only click and the engine's
errors."""

from __future__ import annotations

import contextlib
import importlib
import os
import shlex
import signal
import sys

import click

from analyser import __version__
from analyser.engine.errors import InputError, did_you_mean

#: Every command: its name -> (``module:function`` defining it, the line ``analyser --help`` shows
#: for it).  The line is the first sentence of the command's docstring (a test keeps them equal),
#: so the group's help needs no command module.
COMMANDS: dict[str, tuple[str, str]] = {
    "bench": ("analyser.cli.bench:bench",
             "Print games per second for each title: the rules in one process (best of --repeat), and whole runs "
             "with 1 job and with --jobs workers, with the speed-up."),
    "check": ("analyser.cli.authoring:check",
             "Check that GAME keeps the contract of every title, by playing random games."),
    "compare": ("analyser.cli.experiments:compare",
               "Compare A with B on the same game seeds: two rule sets or lineups of GAME, or two run "
               "folders."),
    "ladder": ("analyser.cli.experiments:ladder",
              "Skill depth of GAME: does a bigger search budget keep winning?"),
    "list": ("analyser.cli.catalog:list_cmd",
            "Show the titles, or one title's strategies (with parameters) and rule options."),
    "new": ("analyser.cli.authoring:new",
           "Start a title of your own: write a working skeleton into the new folder NAME."),
    "play": ("analyser.cli.play:play",
            "Play one game of GAME and print a readable turn-by-turn trace."),
    "report": ("analyser.cli.reports:report",
              "Rebuild the report (plots, summary.csv, index.html) from a run folder or a results file."),
    "resume": ("analyser.cli.runs:resume",
              "Continue an interrupted or failed run or experiment in FOLDER (its --out)."),
    "rules": ("analyser.cli.catalog:rules",
             "Print the rules page of GAME: the rules as implemented, every ruling and its rule option."),
    "simulate": ("analyser.cli.runs:simulate",
                "Play many games of GAME between strategies and report who wins."),
    "sweep": ("analyser.cli.experiments:sweep",
             "Play every combination of strategy parameters and rule options of GAME, on the same deals."),
    "tournament": ("analyser.cli.experiments:tournament",
                  "Rank strategies of GAME over balanced tables, with ratings and intervals."),
    "tune": ("analyser.cli.tuning:tune",
            "Search rule options and strategy parameters of GAME for the values that best meet the "
            "targets."),
}


def one_line_error(message: str, code: int = 2):
    click.echo(f"analyser: error: {message}", err=True)
    sys.exit(code)


def say_note(line: str) -> None:
    """A note on standard error (``analyser: note: ...``), such as a plugin title a built-in shadows."""
    click.echo(f"analyser: note: {line}", err=True)


class AnalyserGroup(click.Group):
    """A click group whose errors are one line (no usage dump, no traceback), and which imports a
    command's module only when the command is used (:data:`COMMANDS`)."""

    def list_commands(self, ctx):
        return sorted(COMMANDS)

    def get_command(self, ctx, cmd_name):
        if cmd_name not in COMMANDS:
            return None
        module, _, name = COMMANDS[cmd_name][0].partition(":")
        return getattr(importlib.import_module(module), name)

    def resolve_command(self, ctx, args):
        """Click's lookup, with a "did you mean" for a mistyped command name."""
        name = click.utils.make_str(args[0]) if args else None
        if name is not None and name not in COMMANDS and not name.startswith("-"):
            raise click.UsageError(f"no such command {name!r}{did_you_mean(name, COMMANDS)}; choose one of: "
                                   f"{', '.join(sorted(COMMANDS))}", ctx)
        return super().resolve_command(ctx, args)

    def format_commands(self, ctx, formatter):
        """The commands and their lines, from :data:`COMMANDS` (no command module is imported)."""
        limit = formatter.width - 6 - max(map(len, COMMANDS))
        rows = [(name, click.Command(name, help=COMMANDS[name][1]).get_short_help_str(limit))
                for name in sorted(COMMANDS)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except BrokenPipeError:  # (before click's own handler, which would leave the worker pool idling)
            _stdout_closed()

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        # The resource tracker of the worker pool (started with this interpreter's -W options)
        # warns of semaphores that a stopped pool leaves to it; it cleans them up, so after the
        # one-line message of an interrupted command the two-line warning is only noise.
        quiet_tracker = "ignore:resource_tracker:UserWarning"
        if quiet_tracker not in sys.warnoptions:
            sys.warnoptions.append(quiet_tracker)
        try:
            rv = super().main(args=args, prog_name=prog_name or "analyser", complete_var=complete_var,
                              standalone_mode=False, **extra)
        except click.exceptions.NoArgsIsHelpError as e:  # `analyser` alone: show the help
            click.echo(e.ctx.get_help())
            sys.exit(0)
        except click.UsageError as e:
            where = f" (see: {e.ctx.command_path} --help)" if e.ctx is not None else ""
            one_line_error(e.format_message().replace("\n", " ") + where, e.exit_code)
        except click.ClickException as e:
            one_line_error(e.format_message().replace("\n", " "), e.exit_code)
        except InputError as e:
            one_line_error(str(e))
        except (click.Abort, KeyboardInterrupt):
            # SIGTERM is counted (143) only once a command that plays games loaded the worker layer;
            # before that it ends the process by default, so a stop seen here is a Ctrl-C (130)
            stops = sys.modules.get("analyser.run.stops")
            code = stops.exit_code() if stops is not None else 130
            click.echo(f"analyser: interrupted{' (SIGTERM)' if code == 143 else ''}", err=True)
            sys.exit(code)
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
      analyser list                               the titles, one line each
      analyser list GAME                          its strategies and rule options
      analyser rules GAME                         the rules of GAME as implemented, every ruling
      analyser simulate GAME --strategy greedy    play 2000 games of GAME, write a report
      analyser play GAME --strategy greedy --strategy random --seed 1
      analyser new my-game                        start a title of your own
      analyser check ./my-game                    check a title keeps the contract

    \b
    Designer experiments (same deals everywhere, paired statistics):
      analyser sweep GAME -s 'NAME:key=4..14' -s greedy --rule KEY=10,12    a grid of cells
      analyser tournament GAME -s A -s B -s C -s D --players 3              ratings over tables
      analyser compare GAME -s greedy --a KEY=12 --b KEY=10                 A against B
      analyser ladder GAME --budgets 25..1600                               skill depth (mcts doubled)
      analyser tune GAME --rule KEY=9..15 -s A -s B --target seat_gap=min   search toward targets
      add --until-ci 0.04 to simulate, sweep or tournament to stop once intervals are narrow

    GAME is a title id shown by `analyser list`, or your own title's file or folder.
    """


def command_line() -> str:
    return "analyser " + " ".join(shlex.quote(a) for a in sys.argv[1:]) if sys.argv else "analyser"


def strip_specs(ctx, param, value):
    """Strategy specs as written, less surrounding blanks: ``-s ' greedy'`` is greedy (the spec is
    the strategy's label in every table, so a stray blank would make a second strategy)."""
    return tuple(v.strip() for v in value) if value else value


#: A run's root seed (``--seed`` of simulate and the experiments, check and bench) and a game
#: seed (``play --seed``, ``check --game-seed``; the results' game_seed column) are stored as
#: 64-bit whole numbers: signed for the root seed, unsigned for a game seed.
ROOT_SEED_MAX = 2 ** 63 - 1
GAME_SEED_MAX = 2 ** 64 - 1


def _bounded_seed(value, option: str, high: int, what: str):
    if value is not None and not 0 <= value <= high:
        raise InputError(f"{option} {value} is not accepted; give a whole number from 0 to {high} ({what})")
    return value


def check_root_seed(ctx, param, value):
    """Click callback: a root seed within 0 to :data:`ROOT_SEED_MAX` (InputError, one line)."""
    return _bounded_seed(value, param.opts[0], ROOT_SEED_MAX, "a root seed")


def check_game_seed(ctx, param, value):
    """Click callback: game seed(s) within 0 to :data:`GAME_SEED_MAX` (InputError, one line)."""
    for v in (value if isinstance(value, tuple) else (value,)):
        _bounded_seed(v, param.opts[0], GAME_SEED_MAX, "a game seed, as in the game_seed column")
    return value


def builtin_strategies(g, players: int | None) -> tuple[str, ...]:
    """The strategies a command plays when no ``--strategy`` is given: the title's built-in
    lineup (:func:`analyser.engine.registry.default_lineup`), cut to the player count (the title's usual
    count when none is given), as ``simulate`` does; InputError when the title has none."""
    from analyser.engine.registry import default_lineup  # (lazy: it imports numpy; --help stays light)

    lineup = default_lineup(g.id)
    if not lineup:
        raise InputError(f"no --strategy given and {g.id} has no built-in strategies; name one per seat "
                         "(e.g. my_bots.py:NAME)")
    return tuple(lineup[:max(players if players is not None else g.default_players, 1)])


def check_plotting() -> None:
    """Before the first game of a command that draws plots: matplotlib must import as the
    environment sets it up.  An MPLBACKEND it does not accept (say ``nonsense``) fails its import,
    which would otherwise surface only once every game had been played; InputError (one line)."""
    try:
        import matplotlib  # noqa: F401  (reads MPLBACKEND)
    except ValueError as e:
        if "backend" not in str(e):
            raise
        raise InputError(f"MPLBACKEND={os.environ.get('MPLBACKEND', '')!r} is not a backend matplotlib accepts "
                         "(e.g. Agg); unset it or set MPLBACKEND=Agg (the plots are drawn with Agg whatever it "
                         "names)") from None


def players_phrase(g, params, n_players: int) -> str:
    """``4 players``, plus any rule the count switches on (from the title's count_notes)."""
    notes = g.count_notes(params, n_players)
    return f"{n_players} players" + (f" ({'; '.join(notes)})" if notes else "")


def check_out_name(out) -> None:
    """``--out`` must be a name the file system and Parquet writer can take: valid UTF-8."""
    if out is None:
        return
    try:
        str(out).encode("utf-8")
    except UnicodeEncodeError:
        shown = str(out).encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        raise InputError(f"--out {shown!r} is not valid UTF-8; choose a folder name in UTF-8") from None


def main():
    """Console-script entry point.  A closed stdout (``analyser list | head -1``) ends the
    process quietly the way Unix tools do (killed by SIGPIPE, exit status 141), after shutting
    its worker processes down (:func:`_stdout_closed`); ``simulate`` writes all its files before
    it prints anything to stdout, so they are complete whatever the pipe does."""
    try:
        try:
            try:
                cli.main(prog_name="analyser")
            finally:  # what is still buffered meets the closed pipe here, not at interpreter exit
                sys.stdout.flush()
        except SystemExit as done:
            _stop_worker_pool(done.code)
            raise
    except BrokenPipeError:
        _stdout_closed()


def _stop_worker_pool(code) -> None:
    """The command is over: stop the reusable worker pool here, where a Ctrl-C or SIGTERM is still
    handled, rather than at interpreter exit (where it was "Exception ignored" with a traceback,
    and exit code 0).  A stop while the pool shuts down ends the process with the stop's exit
    code and one line; the command's own work (files, output) was done."""
    pool = getattr(sys.modules.get("joblib.externals.loky.reusable_executor"), "_executor", None)
    if pool is None:
        return
    from analyser.run import stops  # (lazy: the run layer imports pandas; --help stays light)
    try:
        with stops.handled():
            pool.shutdown(wait=True)
    except KeyboardInterrupt:
        stop = stops.exit_code()
        click.echo(f"analyser: interrupted{' (SIGTERM)' if stop == 143 else ''} while the worker processes were "
                   "stopped; the command had finished its work", err=True)
        sys.exit(stop if code in (0, None) else code)
    except Exception:  # noqa: BLE001 - ending anyway; the pool's own exit hook stops what is left
        pass


def _stdout_closed() -> None:
    """The reader of standard output went away (``| head``): kill the worker pool at once (the
    reusable loky pool would otherwise idle for its 300 s timeout after this process ends), then
    end by SIGPIPE as a Unix tool does."""
    with contextlib.suppress(Exception):  # ending anyway; a pool that cannot be reached is gone
        from joblib.externals.loky import reusable_executor
        pool = reusable_executor._executor  # (None when no pool was started: nothing to stop)
        if pool is not None:
            for pid in list(getattr(pool, "_processes", {})):  # now: shutdown() below only asks its
                with contextlib.suppress(OSError):              # manager thread, which this process outruns
                    os.kill(pid, signal.SIGKILL)
            pool.shutdown(wait=False, kill_workers=True)
    # nothing more reaches the closed pipe (Python's exit flush would complain)
    with contextlib.suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGPIPE)
    sys.exit(141)
