"""``analyser bench``: games per second for each title (or the speed of the generic search
player), a thin layer over :mod:`analyser.run.bench`.
"""

from __future__ import annotations

import click

from analyser.cli import supervised
from analyser.cli.common import check_root_seed
from analyser.engine.compiled import ENGINES
from analyser.engine.core import InputError
from analyser.run.bench import run_bench, run_mcts_bench


@supervised.command()
@click.argument("games", nargs=-1)
@click.option("-n", "--games", "n_games", type=int, default=None,
              help="Games per measurement (default: per case, tens of seconds in all).")
@click.option("-j", "--jobs", type=int, default=0, show_default=True,
              help="Workers for the parallel figure; 0 = all cores.")
@click.option("--repeat", type=int, default=3, show_default=True,
              help="Repetitions of the one-process figure; the best is shown.")
@click.option("--seed", type=int, default=1, show_default=True, callback=check_root_seed,
              help="Root seed of the games.")
@click.option("--mcts", "mcts", is_flag=True,
              help="Time the generic search player instead: decisions per second of "
                   "mcts:iterations=N (--iterations) in one process; --games is then games per title.")
@click.option("--iterations", type=int, default=100, show_default=True,
              help="With --mcts: the search's iterations per decision.")
@click.option("--engine", default="auto", show_default=True, metavar="auto|python|compiled",
              help="Engine of every figure: auto (what simulate would use for the case), python, or "
                   "compiled (for a title that has a compiled kernel).  With --mcts only python: the search "
                   "player has no compiled path.")
def bench(games, n_games, jobs, repeat, seed, mcts, iterations, engine):
    """Print games per second for each title: the rules in one process (best of --repeat), and
    whole runs with 1 job and with --jobs workers, with the speed-up.

    Give title ids to bench only those.  With --mcts, print the speed of the generic search
    player instead (milliseconds and decisions per second, in seat 0 against random).

    \b
    Examples:
      analyser bench
      analyser bench GAME --games 2000 --jobs 2
      analyser bench GAME --engine python
      analyser bench --mcts
      analyser bench GAME --mcts --iterations 400 --games 4
    """
    if mcts:
        if engine not in ENGINES:
            raise InputError(f"--engine {engine!r} is not accepted; choose auto, python or compiled")
        if engine == "compiled":
            raise InputError(f"--engine {engine!r} is not accepted with --mcts: the search player plays in "
                             "Python only; give --engine python or leave it out")
        run_mcts_bench(list(games), iterations, n_games, seed, echo=click.echo)
        return 0
    run_bench(list(games), n_games, jobs, seed, echo=click.echo, repeat=repeat, engine=engine)
    return 0
