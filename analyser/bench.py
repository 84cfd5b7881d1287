"""``analyser bench``: games per second per title, in one process and with joblib workers.

Three figures per case:

* **rules**: :func:`analyser.runner.run_batch` timed directly in this process (no joblib, no
  DataFrame) - the speed of the rules, the strategies and the game loop.  Best of ``repeat``
  runs, because a shared machine's speed varies from run to run.
* **1 job** and **N jobs**: the full :func:`analyser.experiments.run` path (batches, workers,
  gathering the DataFrame) with ``--jobs 1`` and ``--jobs N`` on the same games; the speed-up is
  their ratio.  Each title first plays a short warm-up run of both kinds, so one-time start-up
  (imports, starting the worker processes) is not charged to whichever case comes first.
"""

from __future__ import annotations

import time

from analyser import experiments
from analyser.core import InputError
from analyser.registry import default_lineup, game_ids, get_game
from analyser.runner import BatchJob, resolve_jobs, run_batch


def cases(game) -> list[tuple[str, tuple[str, ...], int, int, int]]:
    """The benchmark cases of a title: its ``bench_cases``, else its default lineup at its usual
    player count (1,000 games for the one-process figure, 4,000 for the runs)."""
    if game.bench_cases:
        return list(game.bench_cases)
    players = game.default_players
    lineup = tuple(default_lineup(game.id)[:players]) or ("random",)
    return [(f"{players}p default lineup", lineup, players, 1000, 4000)]


def one_process(game: str, strategies, players: int, games: int, seed: int, repeat: int = 3) -> float:
    """Games per second of one uninterrupted batch in this process, best of ``repeat``."""
    run_batch(BatchJob(game, (), tuple(strategies), players, seed, 0, min(20, games), 0.0))  # warm up
    best = 0.0
    for _ in range(repeat):
        t0 = time.perf_counter()
        res = run_batch(BatchJob(game, (), tuple(strategies), players, seed, 0, games, 0.0))
        dt = time.perf_counter() - t0
        if res.error:
            raise RuntimeError(str(res.error))
        best = max(best, games / dt)
    return best


def full_run(game: str, strategies, players: int, games: int, seed: int, jobs: int) -> float:
    """Games per second of a whole ``simulate`` run (no report) with ``jobs`` workers."""
    spec = experiments.RunSpec(game=game, strategies=list(strategies), players=players, games=games,
                               seed=seed, jobs=jobs)
    t0 = time.perf_counter()
    res = experiments.run(spec, progress=False)
    dt = time.perf_counter() - t0
    if res.error:
        raise RuntimeError(str(res.error))
    return games / dt


def run_bench(games: list[str], n_games: int | None, jobs: int, seed: int, echo=print,
              repeat: int = 3) -> list[dict]:
    """Measure every case of the given titles (all registered titles when empty).

    ``n_games`` replaces both game counts of every case.  Returns one dict per case.
    """
    ids = games or game_ids()
    plan = {g: cases(get_game(g)) for g in ids}
    if n_games is not None and not 0 < n_games <= 10_000_000:
        raise InputError(f"--games {n_games} is not accepted; give a number from 1 to 10,000,000")
    if seed < 0:
        raise InputError(f"--seed {seed} is not accepted; give a whole number >= 0")
    if not 1 <= repeat <= 100:
        raise InputError(f"--repeat {repeat} is not accepted; give 1 to 100")
    jobs = resolve_jobs(jobs)
    rows = []
    echo(f"{'title':<15} {'case':<21} {'rules, 1 process':>22} {'1 job':>10} {f'{jobs} jobs':>10} "
         f"{'speed-up':>9} {'run games':>10}")
    for g in ids:
        first = plan[g][0]
        full_run(g, first[1], first[2], 20, seed, 1)  # warm-up: imports and caches
        if jobs > 1:
            full_run(g, first[1], first[2], 20 * jobs, seed, jobs)  # warm-up: start the workers
        for label, strategies, players, n_rules, n_run in plan[g]:
            n1, n2 = (n_games, n_games) if n_games else (n_rules, n_run)
            rules = one_process(g, strategies, players, n1, seed, repeat)
            one = full_run(g, strategies, players, n2, seed, 1)
            many = full_run(g, strategies, players, n2, seed, jobs) if jobs > 1 else one
            rows.append({"game": g, "case": label, "rules": rules, "one_job": one, "jobs": jobs,
                         "many_jobs": many, "games_rules": n1, "games_run": n2})
            many_text = f"{many:>8,.0f}/s" if jobs > 1 else f"{'-':>10}"
            ratio = f"{many / one:>8.2f}x" if jobs > 1 else f"{'-':>9}"
            echo(f"{g:<15} {label:<21} {rules:>9,.0f}/s (best of {repeat}) {one:>8,.0f}/s {many_text} "
                 f"{ratio} {n2:>10,}")
    return rows
