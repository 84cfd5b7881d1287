"""``analyser simulate`` and ``analyser resume``: play a run into its folder (or continue one), then
write its CSV files and report, print its summary and report a failure with the command that
replays its game.
"""

from __future__ import annotations

import dataclasses
import os
import shlex
import traceback
from pathlib import Path

import click

from analyser.cli import supervised
from analyser.cli.cluster import stop_record
from analyser.cli.common import (builtin_strategies, check_out_name, check_plotting, check_root_seed, command_line,
                                 players_phrase, strip_specs)
from analyser.cli.folders import folder_kind, resume_experiment
from analyser.cli.reports import print_summary
from analyser.engine.core import GAME_TIMEOUT, InputError, parse_key_values
from analyser.engine.registry import get_game, title_ref
from analyser.engine.runner import lineup, lineup_block, resolve_jobs
from analyser import run as runmod
from analyser.experiments import stopping
from analyser.experiments.base import PartCache
from analyser.io.files import read_json
from analyser.run import (RunSpec, default_out, describe_output, prepare_out, previous_output, resolve, resume_command,
                          stops, store, write_csv)
from analyser.run.cluster import command_pool
from analyser.run.execute import locks_kept
from analyser.run.folders import missing_games, undecided
from analyser.run.trust import named_code
from analyser.text import plural
from analyser.report.reduce import worker_sums


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
players; when they do not divide the seats evenly (3 strategies at 4 seats) each strategy
takes the extra seat in turn, so every strategy plays the same number of games. The lineup
rotates one seat every game, so each strategy sits in each seat equally often (exactly,
every players x strategies / gcd games: 4 games for 2 at 4 seats, 12 for 3 at 4), and its
order is reshuffled every --players games so neighbours vary too. The report says how the
seats were filled.
"""


@supervised.command(epilog=EPILOG_SIMULATE)
@click.argument("game")
@click.option("-s", "--strategy", "strategies", multiple=True, metavar="SPEC", callback=strip_specs,
              help="Strategy spec, repeatable; seats are filled in order. NAME, NAME:key=value,... or "
                   "FILE.py:NAME. See `analyser list`. Default: the title's default lineup (shown by `analyser list "
                   "GAME`), one strategy per seat.")
@click.option("-p", "--players", type=int, default=None,
              help="Number of seats. Default: the title's usual count (more if more strategies are given); "
                   "the strategies cycle over the seats.")
@click.option("-n", "--games", type=int, default=2000, show_default=True, help="Games to play.")
@click.option("--seed", type=int, default=None, callback=check_root_seed,
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
@click.option("--game-timeout", type=float, default=GAME_TIMEOUT, show_default=True,
              help="Seconds one game may take before its strategy is reported as hung; 0 = no limit.")
@click.option("--no-report", is_flag=True, help="Write the results but skip the plots and HTML.")
@click.option("--backend", type=click.Choice(["loky", "dask"]), default=None,
              help="loky: worker processes on this machine (default). dask: a dask.distributed cluster "
                   "(--scheduler ADDRESS, or a LocalCluster when none is given); needs analyser[dask].")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Dask scheduler address, e.g. tcp://HOST:8786 (implies --backend dask).")
@click.option("--engine", type=click.Choice(["auto", "python", "compiled"]), default="auto", show_default=True,
              help="auto: a title's compiled kernel (numba) plays the run when every strategy is "
                   "one it covers (a title's built-ins), else Python; python: always Python; compiled: the kernel or "
                   "an error naming why not. Results do not depend on it.")
@click.option("--until-ci", type=float, default=None, metavar="W",
              help="Stop early once every win-rate 95% interval (strategies and seats) is at most W wide "
                   "(e.g. 0.04), checking at round ends fixed in advance; --games is the most played.")
@click.option("--confirm-components", is_flag=True,
              help="After the run, test the (at most 3) components whose association with winning passes the "
                   "correction: the same games again with each replaced by a typical peer; the report says "
                   "confirmed or not confirmed (docs/components.md).")
@click.option("--confirm-seats", is_flag=True,
              help="After the run, check the seat compensation by replaying it: the same games again with the "
                   "proposed start bonus (the title's rule option, e.g. seat_bonus); where it misses the fair "
                   "share, at most 4 more replays look for the whole value that comes closest "
                   "(docs/commands/simulate.md).")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar and no tables.")
@click.option("--debug", is_flag=True, help="On a failure, also print the full traceback (always written to "
                                              "OUT/error.log).")
@locks_kept()  # (the folder stays locked from the first game to the report's last line)
def simulate(game, strategies, players, games, seed, jobs, rules, out, csv, batch_size, game_timeout,
             no_report, backend, scheduler, engine, until_ci, quiet, debug, confirm_components=False,
             confirm_seats=False):
    """Play many games of GAME between strategies and report who wins.

    Writes each finished batch at once to OUT/results/part-<first game>.parquet (one row per
    game and seat; read the folder with pandas.read_parquet), config.json (command, seed,
    versions, status, games done), then summary.csv, the PNG plots and a self-contained
    index.html, and prints the summary tables. A strategy that fails, Ctrl-C, SIGTERM or a dead
    worker stops the run; the finished games stay on disk and `analyser resume OUT` continues it.
    Anything a strategy prints goes to standard error.
    """
    stopping.check_width(until_ci)
    if not (no_report and quiet):  # the report, or the summary printed without it, imports matplotlib
        check_plotting()
    builtin_lineup = not strategies
    if builtin_lineup:  # the same lineup as play's (--players 0 is a bad value, checked in resolve)
        strategies = builtin_strategies(get_game(game), players)
    if scheduler is not None and backend is None:
        backend = "dask"
    spec = RunSpec(game=game, strategies=list(strategies), players=players, games=games,
                   seed=seed, jobs=jobs, rules=parse_key_values(rules, what="--rule"),
                   batch_size=batch_size, game_timeout=game_timeout, backend=backend or "loky",
                   scheduler=scheduler, engine=engine)
    g, params, n_players, n_jobs, root = resolve(spec)
    spec.seed = root
    check_out_name(out)
    # the default folder is checked up front like --out: nothing is played into a folder that
    # cannot be written
    previous = previous_output(out) if out is not None else None
    folder = None
    try:
        # the workers first (one Dask client for the whole run, all its rounds): a scheduler that
        # does not answer is refused before the output folder is made
        with command_pool(spec.backend, spec.scheduler, spec.jobs):
            folder = prepare_out(out if out is not None else default_out(g.id))
            # replacing an earlier run is said on one line, even under --quiet: nothing is replaced silently
            replacing = f"replacing {describe_output(previous, folder)}" if previous is not None else None
            if replacing and quiet:
                click.echo(replacing[0].upper() + replacing[1:] + ".", err=True)
            if builtin_lineup and not quiet:  # only once the run is valid: a bad value stays a one-line error
                click.echo(f"No --strategy given: pitting the built-in strategies {', '.join(strategies)} "
                           "against each other (the title's default lineup; see `analyser list`).", err=True)
            if not quiet:
                fresh = " (fresh; pass --seed to repeat)" if seed is None else ""
                m = len(strategies)
                cycling = (f" (cycling over the {n_players} seats)" if 1 < m < n_players else
                           " in every seat" if m == 1 and n_players > 1 else "")
                # (the worker count is decided once the run is timed, and recorded in config.json)
                where = f"; on dask {scheduler or '(a local cluster)'}" if spec.backend == "dask" else ""
                click.echo(f"{g.name}: {games} games, {players_phrase(g, params, n_players)}, strategies "
                           f"{', '.join(strategies)}{cycling}; seed {root}{fresh}{where}; "
                           f"{replacing or f'writing to {folder}'}", err=True)
            if until_ci is None:
                result = runmod.run(spec, progress=False if quiet else None, command=command_line(), out=folder,
                                    sums=None if (no_report and quiet) else worker_sums(spec.games, spec.seed))
            else:  # played in rounds, each extending the run folder
                result = _run_until(spec, until_ci, n_players, quiet, folder)
            if confirm_components:
                _confirm("components", result, spec, folder, quiet)
            if confirm_seats:
                _confirm("seats", result, spec, folder, quiet)
    except KeyboardInterrupt:  # (after the games: as a run ends, or as a replay or the pool stops)
        if folder is None:
            raise
        return _interrupted_after_play(folder)
    return _finish_run(result, spec, g, n_players, folder, Finish(csv, no_report, quiet, debug))


def _interrupted_after_play(out: Path) -> int:
    """A Ctrl-C or SIGTERM that reached the command outside the run's own handling (as the run
    ended, between its last round and its files): one line that says what the folder holds and
    the command that goes on from it; the stop's exit code."""
    how, config = stop_record(out)
    if config is None:
        click.echo(f"analyser: interrupted{how}; nothing was recorded in {out}", err=True)
    elif config.get("status") == "complete" and not undecided(config):
        n = config.get("games_completed") or 0
        click.echo(f"analyser: interrupted{how} after the run's {plural(n, 'game')} {'was' if n == 1 else 'were'} "
                   f"written to {out}; write its report with: analyser report {shlex.quote(str(out))}", err=True)
    else:
        click.echo(f"analyser: interrupted{how} after {plural(config.get('games_completed') or 0, 'game')}; they are "
                   f"in {out}; continue with: {resume_command(out, config)}", err=True)
    return stops.exit_code()


def _finished(result) -> bool:
    """A run that finished: only then are its games replayed."""
    return not (result.error is not None or result.interrupted or result.stop_requested
                or result.config.get("status") != "complete")


def _confirm(kind: str, result, spec, out: Path, quiet: bool) -> None:
    """``--confirm-components`` (the interventions of :mod:`analyser.experiments.confirm`) or
    ``--confirm-seats`` (the replayed compensation of :mod:`analyser.experiments.seat_confirm`),
    only after a run that finished, recorded in config.json for the report.  A failure is one
    line (for the seats also recorded as the reason nothing was replayed); the games stay as they are."""
    from analyser.experiments import confirm, seat_confirm

    if not _finished(result):
        return
    seats = kind == "seats"
    if not quiet:
        click.echo(f"Checking the seat compensation: the same games again with it (and at most "
                   f"{seat_confirm.MORE_REPLAYS} more replays where it misses)" if seats else
                   f"Confirming components: the same games again with each replaced (at most "
                   f"{confirm.CONFIRM_MAX})", err=True)
    try:
        record = seat_confirm.confirm_seats(out, spec) if seats else confirm.confirm(out, spec)
    except KeyboardInterrupt:
        raise
    except Exception as e:  # noqa: BLE001 - the run's games are safe; the report says why nothing was confirmed
        why = f"{type(e).__name__}: {e}"
        click.echo(f"analyser: warning: the seat compensation could not be replayed ({why})" if seats else
                   f"analyser: warning: the components could not be confirmed ({why}); the findings stay possible",
                   err=True)
        if not seats:
            return
        record = {"replayed": False, "reason": f"the replay failed ({why})"}
    if seats and not record.get("replayed") and not quiet:
        click.echo(f"Nothing replayed: {record.get('reason', '')}.", err=True)
    result.config[f"{'seat' if seats else 'component'}_confirmations"] = {str(result.config.get("run_id")): record}
    store.write_json_atomic(out / "config.json", result.config)


@dataclasses.dataclass(frozen=True)
class Finish:
    """What the command asked for once the games are played: ``--csv``, ``--no-report``,
    ``--quiet`` and ``--debug``."""
    csv: bool
    no_report: bool
    quiet: bool
    debug: bool = False


@dataclasses.dataclass
class _Written:
    """What :func:`_write_outputs` wrote and found: the files, the summary and report page, and
    the report's failure (one line for the terminal, the traceback for error.log)."""
    files: list[str] = dataclasses.field(default_factory=list)
    summary: object = None
    path: Path | None = None
    report_error: str | None = None
    log: list[str] = dataclasses.field(default_factory=list)


def _finish_run(result, spec, g, n_players, out: Path, asked: Finish) -> int:
    """After a run (new or resumed): CSV, report, config.json's file list, summary, exit code."""
    n_done = result.config["games_completed"]
    try:
        written = _write_outputs(result, g, out, asked)
    except KeyboardInterrupt:  # Ctrl-C (again) while the CSV or the report is written: the games are safe
        nxt = (f"rebuild the report with: analyser report {out}" if result.config.get("status") == "complete"
               else f"continue with: {resume_command(out, result.config)}")
        click.echo(f"analyser: interrupted while writing the summary files; the finished games ({n_done:,}) are in "
                   f"{out}; {nxt}", err=True)
        return stops.exit_code()
    if written is None:
        return 1
    details = getattr(result.error, "details", "") if result.error is not None else ""
    if details:
        written.log.insert(0, f"{result.error}\n\n{details}")
    if not _record_files(result, g, out, written):
        return 1
    if written.summary is not None and not asked.quiet:
        print_summary(written.summary, n_players, result.config)
        click.echo(f"\nResults: {out / store.RESULTS} ({plural(n_done, 'game')})")
        if written.path:
            click.echo(f"Report:  {written.path}")
    code = 0
    if written.report_error is not None:
        click.echo(f"analyser: error: the report could not be built ({written.report_error}); the finished games "
                   f"({n_done:,}) were written to {out} and its status says so (details in {out / 'error.log'})", err=True)
        code = 1
    if asked.debug and written.log:
        click.echo("\n".join(written.log), err=True)
    if result.error is not None:
        if hasattr(result.error, "game_seed"):
            _report_failure(result.error, spec, title_ref(g), n_done, n_players, out, bool(details))
        else:
            click.echo(f"analyser: error: {result.error}. The finished games ({n_done:,}) are in {out}; "
                       f"continue with: {resume_command(out, result.config)}", err=True)
        return 1
    if result.interrupted or result.stop_requested:
        how = " (SIGTERM)" if stops.exit_code() == 143 else ""
        click.echo(f"analyser: interrupted{how} after {plural(n_done, 'game')}; they are in {out}; continue with: "
                   f"{resume_command(out, result.config)}", err=True)
        return stops.exit_code()
    return code


def _write_outputs(result, g, out: Path, asked: Finish) -> _Written | None:
    """The CSV files and the report (or only the summary, to print), as ``asked``; None once a
    CSV file could not be written (said in one line).  Nothing after a stop (Ctrl-C, SIGTERM:
    the command ends now, and resume writes it) or after the disk refused a part (nothing more
    can be written there); the CSV files still after a Ctrl-C, when asked for."""
    written = _Written()
    n_done = result.config["games_completed"]
    disk = isinstance(result.error, store.StoreError)
    stopped = result.interrupted or result.stop_requested or disk
    if not (n_done and not result.stop_requested and not disk and (asked.csv or not stopped)):
        return written
    try:
        if asked.csv:
            written.files += [p.name for p in write_csv(out, list(g.extra_tables))]
    except (OSError, store.StoreError) as e:
        _report_write_failure(e, out, n_done, result.config)
        return None
    if stopped:
        return written
    try:
        _write_report(result, out, asked, written)
    except KeyboardInterrupt:
        raise
    except Exception as e:  # the results are on disk; a report failure must not lose them
        written.report_error = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}".rstrip(": ")
        written.log.append("The report could not be built:\n" + traceback.format_exc())
        result.config["status"] = ("report failed" if result.config["status"] == "complete"
                                   else f"{result.config['status']}; report failed")
        result.config["report_error"] = written.report_error
    return written


def _write_report(result, out: Path, asked: Finish, written: _Written) -> None:
    """The report of a finished run (its files added to ``written``), or under ``--no-report``
    only the summary to print (nothing to compute under ``--quiet``)."""
    if asked.no_report and asked.quiet:  # (the report's module pulls in matplotlib: not needed here)
        return
    from analyser.report.page import FINDINGS_JSON, build_report_from_run, summarise_run
    if not asked.no_report:
        report_jobs = max(1, min(int(result.config.get("jobs") or 1), os.cpu_count() or 1))
        written.path, written.summary, figures = build_report_from_run(out, jobs=report_jobs, known=result.known)
        written.files += ["summary.csv", FINDINGS_JSON, "index.html"] + figures
        if (out / "components.csv").exists():
            written.files.append("components.csv")
    elif not asked.quiet:
        written.summary = summarise_run(out, known=result.known)



def _record_files(result, g, out: Path, written: _Written) -> bool:
    """error.log (when there is a log) and config.json's file list, written before anything goes
    to stdout (so a closed pipe loses nothing).  False once that failed and was said in one line
    (a run's own failure, said later, is the one line instead)."""
    try:
        if written.log:
            (out / "error.log").write_text("\n".join(written.log), encoding="utf-8")
            written.files.append("error.log")
        tables = [store.RESULTS] + [n for n in g.extra_tables if (out / n).is_dir()]
        result.config["files"] = sorted(set(written.files) | {"config.json"} | set(tables))
        store.write_json_atomic(out / "config.json", result.config)
    except OSError as e:
        if result.error is None:  # (else the run's own failure below is the one line)
            _report_write_failure(e, out, result.config["games_completed"], result.config)
            return False
    return True


def _report_write_failure(e: BaseException, out: Path, n_done: int, config: dict) -> None:
    """One line for a file of the run that could not be written after play (a full or read-only
    disk), naming the command that finishes the folder once it can be written: ``analyser
    report OUT`` for a complete run, else ``analyser resume OUT``."""
    reason = str(e) if isinstance(e, OSError) and str(e).startswith("cannot write") else \
        f"cannot write in {out}: {getattr(e, 'strerror', None) or type(e).__name__}"
    nxt = (f"analyser report {shlex.quote(str(out))}" if config.get("status") == "complete"
           else resume_command(out, config))
    click.echo(f"analyser: error: {reason}. The {n_done} finished games stay in {out / 'results'}; once it can be "
               f"written, finish with: {nxt}", err=True)


def _run_until(spec, width: float, players: int, quiet: bool, out: Path, resume: bool = False):
    """Play ``spec`` into the run folder ``out`` in the rounds of the stopping rule, until every
    win-rate interval is at most ``width`` wide: each round extends the folder, and the rule's
    record (``stopping`` in config.json, ``decided`` false while rounds remain) is written after
    each round.  ``resume=True`` continues an interrupted run in ``out`` at the round its record
    reached.  Returns the run's :class:`~analyser.run.RunResult`, its config carrying the record."""
    reader = PartCache(out)
    last: dict = {}
    previous = None
    if resume:
        previous = read_json(out / "config.json", "config file", max_bytes=10_000_000).get("stopping")
        last["record"] = stopping.Stop.from_dict(previous)

    signals = stops.count()

    def play(a: int, b: int) -> bool:
        if "result" in last and stops.count() != signals:
            return False  # a Ctrl-C between rounds whose raise a library swallowed (while measuring)
        first = "result" not in last
        record = last.get("record") or stopping.Stop(width, "", 0, 0, max_games=spec.games)
        r = runmod.run(dataclasses.replace(spec, games=b, first_game=0), progress=False if quiet else None,
                       command=command_line(), out=out, resume="round" if not first else resume,
                       record={"stopping": record.as_dict()})
        last["result"] = r
        return r.error is None and not r.interrupted and not r.stop_requested

    def on_round(stop: "stopping.Stop") -> None:
        result = last["result"]
        result.config["stopping"] = stop.as_dict()
        if not stop.decided:  # more rounds follow: the run goes on
            result.config["status"] = "running"
        last["record"] = stop
        with stops.held():
            store.write_json_atomic(out / "config.json", result.config)

    try:
        stop = stopping.play_rounds(spec.games, lineup_block(players, len(spec.strategies)), width, play, lambda b: stopping.widest([reader.frame(b)]),
                                    history=stopping.recorded_history(previous), on_round=on_round)
    except KeyboardInterrupt:  # SIGTERM or Ctrl-C between rounds, while measuring
        if "result" not in last:
            raise
        stop = last.get("record") or stopping.Stop(width, "", 0, 0, max_games=spec.games)
        last["result"].interrupted = True
        last["result"].config["status"] = "interrupted"
    result = last["result"]
    if not stop.decided:
        if result.error is None:  # (a round complete, but the rule goes on: the run is unfinished)
            result.interrupted = True
            result.config["status"] = "interrupted"
        how = "SIGTERM" if stops.exit_code() == 143 else "Ctrl-C"
        stop.reason = ("the run failed" if result.error is not None else
                       f"interrupted ({how}) before the rule decided; `analyser resume` goes on")
    result.config["stopping"] = stop.as_dict()
    if stop.decided:
        result.config["games_requested"] = spec.games
    if not quiet and stop.decided:
        click.echo(f"Stopped: {stop.reason}.", err=True)
    return result


def _resumed_jobs(given: int | None, recorded: int | None) -> int | None:
    """The worker count a resumed run plays with: ``--jobs`` when given, else the run's own; a
    recorded count more than this machine takes (the run began on a larger one) becomes 0 (all
    cores), said in one note.  The results do not depend on it."""
    if given is not None:
        return given
    try:
        resolve_jobs(recorded)
    except InputError:
        click.echo(f"analyser: note: the run was started with --jobs {recorded}, more than this machine takes; it "
                   "continues on all cores (give --jobs N to choose)", err=True)
        return 0
    return recorded


def _report_failure(error, spec, game_id: str, n_done: int, players: int, out=None, logged=False) -> None:
    """One line: what failed, in which game, with its seed, and the command that replays it
    (``out``: where error.log holds the full traceback)."""
    index = getattr(error, "game_index", None)
    seed = getattr(error, "game_seed", None)
    limit = f"--game-timeout {spec.game_timeout:g} s" if getattr(error, "kind", None) == "hung" else ""
    where = (f" (game {index}, game seed {seed}" + (f"; {limit}" if limit else "") + ")") if seed is not None else (
        f" ({limit})" if limit else "")
    replay = ""
    if seed is not None and index is not None:
        words = ["analyser", "play", game_id]
        for i in lineup(index, players, len(spec.strategies)):
            words += ["-s", spec.strategies[i]]
        for k, v in spec.rules.items():
            words += ["--rule", f"{k}={v}"]
        words += ["--seed", str(seed)]
        hung = getattr(error, "kind", None) == "hung"
        if hung or spec.game_timeout != GAME_TIMEOUT:  # the replay stops where the run did
            words += ["--game-timeout", f"{spec.game_timeout:g}"]
        replay = " Replay: " + " ".join(shlex.quote(w) for w in words)
        if out is not None:
            named = named_code({"title_source": game_id if "/" in game_id else None,  # a file title
                                "strategies": list(spec.strategies)})
            trust = " --trust" if named["title"] or named["strategy"] else ""  # the run's own files
            replay += f" (or: analyser play --from {shlex.quote(str(out))} --game-index {index}{trust})."
    log = f" Full traceback: {out / 'error.log'} (or --debug)." if logged else ""
    done = f"The {n_done:,} finished games were" if n_done != 1 else "The 1 finished game was"
    click.echo(f"analyser: error: {error}{where}. {done} written.{replay}{log}", err=True)


@supervised.command()
@click.argument("folder", type=click.Path(path_type=Path))
@click.option("--csv", is_flag=True, help="Also write results.csv when the run completes.")
@click.option("--no-report", is_flag=True, help="Write the results but skip the plots and HTML.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar and no tables.")
@click.option("--title", "title_file", default=None, metavar="FILE",
              help="The run's title file or folder, when it is a title of your own: loading it runs its code, so "
                   "the file the run's config.json names is loaded only when you name it here.")
@click.option("-s", "--strategy", "strategy_files", multiple=True, metavar="FILE", callback=strip_specs,
              help="A strategy file the run uses (FILE.py, or its spec FILE.py:NAME), repeatable: loaded only when "
                   "named here. The lineup itself always comes from the run.")
@click.option("--trust", is_flag=True,
              help="Load every title and strategy file the run's config.json names (only for a folder you made "
                   "or trust: loading a file runs its code).")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Continue on this Dask scheduler (tcp://HOST:8786). A scheduler the run's config.json names is "
                   "never contacted: without this option the run continues on this machine.")
@click.option("-j", "--jobs", type=int, default=None,
              help="Worker processes; 0 = all cores. Default: the --jobs the run (or experiment) was started with. "
                   "Results do not depend on it.")
@locks_kept()
def resume(folder, csv, no_report, quiet, title_file, strategy_files, trust, scheduler, jobs):
    """Continue an interrupted or failed run or experiment in FOLDER (its --out).

    Plays only the games that have no finished part on disk, with the same seed, strategies,
    rules and batch size, so the whole run equals one uninterrupted run, row for row. A part cut
    short by a kill is detected and played again. Refuses a folder that is not a run, a complete
    run (unless parts went missing: then only their games are played again), a run from a newer
    analyser, or a run another process is writing.

    A sweep, tournament or comparison folder is finished the same way, cell by cell, and a
    --until-ci run goes on at the round its record reached; then the report is written as the
    uninterrupted command would.

    A run folder is data, never code: a title file or strategy file that its config.json names is
    loaded only when you name it again (--title, --strategy) or pass --trust, and a Dask scheduler
    only when you give --scheduler.

    \b
    Examples:
      analyser simulate GAME -s greedy --games 1000000 --out reports/big
      (Ctrl-C, a kill, a crash...)
      analyser resume reports/big
      analyser resume reports/big --jobs 2
      analyser resume reports/mine --strategy my_bots.py
    """
    if not (no_report and quiet):  # the report, or the summary printed without it, imports matplotlib
        check_plotting()
    if scheduler is not None:
        runmod.check_scheduler_address(scheduler)
    if jobs is not None:
        resolve_jobs(jobs)  # a bad count: one line, before the folder is read
    allowed = runmod.Allowed(trust=trust, titles=(title_file,) if title_file else (), strategies=strategy_files,
                             scheduler=scheduler)
    kind = folder_kind(folder)
    if kind is not None:
        return resume_experiment(folder, kind, allowed, no_report=no_report, quiet=quiet, jobs=jobs)
    plan = runmod.resume_spec(folder, allowed)
    for note in plan.notes:  # what the folder asked for and this command does instead: always said
        click.echo(f"analyser: note: {note}", err=True)
    if not csv and (Path(folder) / "results.csv").is_file():
        # the interrupted command was asked for --csv and wrote its finished games: the file
        # would otherwise stay behind with fewer games than the run
        csv = True
        click.echo("analyser: note: results.csv (written by the interrupted command) is rewritten with every game",
                   err=True)
    spec = plan.spec
    spec.jobs = _resumed_jobs(jobs, spec.jobs)
    config = plan.config
    g, params, n_players, n_jobs, root = runmod.resolve(spec)
    rounds = undecided(config) or (isinstance(config.get("stopping"), dict)
                                   and config["stopping"].get("until_ci") is not None)
    if rounds:  # a run played in rounds (--until-ci): on to the round its record reached
        width = config["stopping"]["until_ci"]
        stopping.check_width(width)
        most = config["stopping"].get("max_games")
        if isinstance(most, int) and not isinstance(most, bool) and spec.games <= most <= runmod.MAX_GAMES:
            spec.games = most
    for part in store.damaged_parts(Path(folder) / store.RESULTS):  # named as report names it: always said
        click.echo(f"analyser: note: part {str(part)!r} is damaged or not an analyser part (its footer cannot be "
                   "read); it is removed and its games are played again", err=True)
    lost = missing_games(Path(folder), config) if config.get("status") == "complete" else 0
    if lost:  # (a complete run is resumable only when parts went missing: read_config)
        click.echo(f"analyser: note: the run is complete, but {lost:,} of its games have no part on disk (a part "
                   "was removed or damaged); they are played again", err=True)
    if not quiet:  # the games the parts on disk hold (the record may claim more, if a part is damaged)
        on_disk = sum(b - a for a, b in store.merge_ranges(store.scan_parts(Path(folder) / store.RESULTS).values()))
        click.echo(f"Resuming {folder}: {on_disk} of {spec.games} games done; seed {root}", err=True)
    if rounds:
        result = _run_until(spec, width, n_players, quiet, folder, resume=True)
    else:
        result = runmod.run(spec, progress=False if quiet else None, command=command_line(), out=folder, resume=True)
    return _finish_run(result, spec, get_game(spec.game), n_players, folder, Finish(csv, no_report, quiet))
