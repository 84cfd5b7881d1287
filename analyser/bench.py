"""``analyser bench``: games per second per title, in one process and with joblib workers.

The one-process figure times :func:`analyser.runner.run_batch` directly (no joblib), so it is
the speed of the rules and strategies; the parallel figure goes through the full
:func:`analyser.experiments.run` path, workers start-up included.
"""

from __future__ import annotations

import time

from analyser import experiments
from analyser.core import InputError
from analyser.registry import game_ids, get_game
from analyser.runner import BatchJob, resolve_jobs, run_batch

#: title -> list of (label, strategies, players, games for one measurement)
CASES: dict[str, list[tuple[str, tuple[str, ...], int, int]]] = {
    "dao": [("4p threshold", ("threshold",), 4, 20000),
            ("4p greedy", ("greedy",), 4, 10000)],
    "wizard": [("4p expected+greedy", ("bot:bid=expected,play=greedy",), 4, 1000)],
    "tsuro-seas": [("4p random", ("random",), 4, 2000),
                   ("4p survivor depth 1", ("survivor:depth=1",), 4, 1000)],
}


def one_process(game: str, strategies, players: int, games: int, seed: int) -> float:
    """Games per second for one uninterrupted batch in this process."""
    job = BatchJob(game, (), tuple(strategies), players, seed, 0, games, 0.0)
    run_batch(BatchJob(game, (), tuple(strategies), players, seed, 0, min(20, games), 0.0))  # warm up
    t0 = time.perf_counter()
    res = run_batch(job)
    dt = time.perf_counter() - t0
    if res.error:
        raise RuntimeError(str(res.error))
    return games / dt


def parallel(game: str, strategies, players: int, games: int, seed: int, jobs: int) -> float:
    spec = experiments.RunSpec(game=game, strategies=list(strategies), players=players, games=games,
                               seed=seed, jobs=jobs)
    t0 = time.perf_counter()
    res = experiments.run(spec, progress=False)
    dt = time.perf_counter() - t0
    if res.error:
        raise RuntimeError(str(res.error))
    return games / dt


def run_bench(games: list[str], n_games: int | None, jobs: int, seed: int, echo=print) -> list[dict]:
    """Measure every case of the given titles (all registered titles when empty)."""
    ids = games or [g for g in game_ids() if g in CASES]
    for g in ids:
        get_game(g)
        if g not in CASES:
            raise InputError(f"no benchmark for {g!r}; benchmarks exist for: {', '.join(CASES)}")
    if n_games is not None and not 0 < n_games <= 10_000_000:
        raise InputError(f"--games {n_games} is not accepted; give a number from 1 to 10,000,000")
    if seed < 0:
        raise InputError(f"--seed {seed} is not accepted; give a whole number >= 0")
    jobs = resolve_jobs(jobs)
    rows = []
    echo(f"{'title':<12} {'case':<24} {'1 process':>20} {f'{jobs} jobs':>20} {'speed-up':>9}")
    for g in ids:
        for label, strategies, players, default_n in CASES[g]:
            n = n_games or default_n
            one = one_process(g, strategies, players, n, seed)
            n_par = n * jobs
            par = parallel(g, strategies, players, n_par, seed, jobs) if jobs > 1 else one
            rows.append({"game": g, "case": label, "games": n, "games_parallel": n_par, "one": one, "parallel": par})
            echo(f"{g:<12} {label:<24} {one:>8,.0f}/s ({n:>6} g) {par:>8,.0f}/s ({n_par:>6} g) {par / one:>8.2f}x")
    return rows
