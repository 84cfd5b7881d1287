"""``analyser tune``: search rule options and strategy parameters toward the designer's targets
(:mod:`analyser.experiments.tune`), an experiment like the others of :mod:`analyser.cli.experiments`,
which resumes and rebuilds it (``analyser resume OUT``, ``analyser report OUT``).
"""

from __future__ import annotations

from pathlib import Path

import click

from analyser.cli import supervised
from analyser.cli.common import check_plotting, check_root_seed, strip_specs
from analyser.cli.cluster import cluster, cluster_options, pooled
from analyser.cli.experiments import files_folder, new_session, outcome, prepare_out, write_guarded
from analyser.engine.core import GAME_TIMEOUT, InputError
from analyser.engine.registry import get_game, title_ref
from analyser.experiments.options import Session, TuneOptions
from analyser.run import RunSpec

#: The most trials one tune plays (``--trials``): each trial is a run of ``--games`` games.
MAX_TRIALS = 100_000


EPILOG_TUNE = """\b
Examples:
  analyser tune GAME --rule KEY=9..15 -s greedy -s random --target seat_gap=min --trials 20 --games 1000
  analyser tune GAME -s 'NAME:key=15..35' -s OTHER --target win_rate=max --trials 30
  analyser tune GAME --rule KEY=2..4 -s A -s B --target seat_gap=min --target length=40..60
\b
Search space: as sweep, every --rule or -s parameter given a range a..b[:step] or a list a,b,c
(a real-valued option with a..b and no step is searched continuously).
Targets: NAME=min, NAME=max, NAME=VALUE (get close to it) or NAME=LOW..HIGH (a constraint).
NAME: seat_gap (pp), win_rate or win_rate:SPEC (%), length, skill_share (%), lead_changes,
ties (%), close_games (%), or a number column of the title (analyser list GAME). One target:
TPE; several: NSGA-II and a Pareto front; a grid that --trials covers is played whole. Every
trial plays the same game seeds. The study is OUT/tune.db (optuna-dashboard
sqlite:///OUT/tune.db); analyser resume OUT continues it.
"""


@supervised.command(epilog=EPILOG_TUNE)
@click.argument("game")
@click.option("-s", "--strategy", "strategies", multiple=True, metavar="SPEC", callback=strip_specs, required=True,
              help="Strategy spec per slot, repeatable; parameters to search are ranges or lists: threshold:limit=6..12.")
@click.option("-r", "--rule", "rules", multiple=True, metavar="KEY=VALUES",
              help="Rule option, repeatable; a value, or a range a..b[:step] or list a,b,c to search.")
@click.option("-t", "--target", "targets", multiple=True, metavar="NAME=GOAL", required=True,
              help="What to aim for, repeatable: NAME=min|max|VALUE|LOW..HIGH (see below).")
@click.option("--trials", type=int, default=40, show_default=True, help="Trials (configurations) to play.")
@click.option("-n", "--games", type=int, default=2000, show_default=True, help="Games per trial.")
@click.option("--batch", type=int, default=8, show_default=True,
              help="Trials the sampler asks at a time (fixed, so results do not depend on --jobs).")
@click.option("--recheck", type=int, default=3, show_default=True, help="Best trials replayed on fresh games.")
@click.option("--recheck-factor", type=int, default=4, show_default=True,
              help="The re-check plays this many times --games per trial.")
@click.option("--prune", is_flag=True,
              help="One objective: stop a trial whose figure after a quarter, half or three quarters of its "
                   "games is worse than the median of the earlier trials there (Optuna's median pruner; "
                   "chance alone can cut a trial, so it trades certainty for speed).")
@click.option("-p", "--players", type=int, default=None, help="Number of seats.")
@click.option("--seed", type=int, default=None, callback=check_root_seed, help="Root seed (default: fresh, recorded).")
@click.option("-j", "--jobs", type=int, default=0, show_default=True,
              help="Worker processes; 0 = all cores. Results do not depend on it.")
@click.option("-o", "--out", default=None, metavar="DIR",
              help="Output folder (new, empty, or an earlier tune, which is replaced). Default: "
                   "reports/<game>-tune-<timestamp>.")
@click.option("--batch-size", type=int, default=None, help="Games per joblib task (default: automatic).")
@click.option("--game-timeout", type=float, default=GAME_TIMEOUT, show_default=True,
              help="Seconds one game may take before its strategy is reported as hung; 0 = no limit.")
@click.option("--no-report", is_flag=True, help="Write trials.csv but skip the plots and HTML.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar and no tables.")
@cluster_options
def tune(game, strategies, rules, targets, trials, games, batch, recheck, recheck_factor, prune, players, seed, jobs,
         out, batch_size, game_timeout, no_report, quiet, backend, scheduler):
    """Search rule options and strategy parameters of GAME for the values that best meet the targets.

    Each trial is a configuration asked of an Optuna sampler and played as a run folder
    OUT/cells/trial-NNNN, on the same game seeds as every other trial. The best few are replayed
    on fresh games (OUT/cells/recheck-NNNN) before one is called best. Writes trials.csv,
    recheck.csv (when trials were re-checked), the plots and index.html, whose verifying run links
    to the full report of the best configuration. Ctrl-C or a kill keeps every finished trial: `analyser resume OUT`.
    """
    from analyser.experiments import tune as tunemod

    backend, scheduler = cluster(backend, scheduler)
    if not 1 <= trials <= MAX_TRIALS:
        raise InputError(f"--trials {trials} is not accepted; give a whole number from 1 to {MAX_TRIALS:,}")
    if not no_report:
        check_plotting()
    g = get_game(game)
    # all input checked before the folder is touched
    space = tunemod.parse_space(g, list(strategies), list(rules))
    tunemod.check_targets([tunemod.parse_target(t, g, space) for t in targets], prune)
    out = prepare_out(out, g.id + "-tune", "tune", quiet)
    spec = RunSpec(game=title_ref(g), strategies=list(strategies), players=players, games=games, seed=seed,
                   jobs=jobs, batch_size=batch_size, game_timeout=game_timeout)
    options = TuneOptions(rules=list(rules), targets=list(targets), trials=trials, batch=batch, recheck=recheck,
                          recheck_factor=recheck_factor, prune=prune)
    return pooled(lambda: execute_tune(spec, options, new_session(out, quiet), no_report=no_report, quiet=quiet),
                  backend, scheduler, jobs, out)


def execute_tune(spec: RunSpec, options: TuneOptions, session: Session, *, no_report: bool, quiet: bool,
                 target: Path | None = None) -> int:
    """Play (or resume, or only read) the tune in ``session.out``, write its files and report into
    ``target`` (default ``out``), print its summary, and return the exit code."""
    from analyser.experiments import tune as tunemod

    out = Path(session.out)
    res = tunemod.run_tune(spec, options, session)
    target = files_folder(res.config, out, target)
    from analyser.experiments import tune_report
    code = write_guarded(lambda: tune_report.write_tune(res, target, report=not no_report), res.config, out)
    if code is not None:
        return code
    if not quiet:
        for line in tune_report.summary_sentences(res):
            click.echo(line)
        click.echo(f"\nTrials: {target / 'trials.csv'}\nStudy: {out / 'tune.db'} "
                   f"(optuna-dashboard sqlite:///{out.resolve() / 'tune.db'})")
        if not no_report:
            click.echo(f"Report: {target / 'index.html'}")
    count = tune_report.progress_text(res.trials["state"] if len(res.trials) else [], res.config,
                                      res.trials["trial"] if len(res.trials) else [])
    return outcome(res.config, res.error, res.interrupted, out, "trials", spec, count) if session.play else 0
