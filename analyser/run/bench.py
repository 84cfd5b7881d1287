"""``analyser bench`` (docs/commands/bench.md): games per second per title and case, the rules
alone in one process (:func:`one_process`, best of ``repeat``) and the whole ``simulate`` path
with one and with ``--jobs`` workers (:func:`full_run`), after a warm-up run of each kind; and with
``--mcts``, decisions per second of the search player (:func:`run_mcts_bench`).
"""

from __future__ import annotations

import dataclasses
import time

from analyser.engine import compiled
from analyser.engine.compiled import ENGINES
from analyser.engine.core import InputError
from analyser.engine.registry import default_lineup, game_ids, get_game, make_strategy
from analyser.run import RunSpec, run
from analyser.engine.runner import BatchJob, game_seed, play_game, resolve_jobs, run_batch
from analyser.engine.search import has_determinize


def cases(game) -> list[tuple[str, tuple[str, ...], int, int, int]]:
    """The benchmark cases of a title: its ``bench_cases``, else its default lineup at its usual
    player count (1,000 games for the one-process figure, 4,000 for the runs)."""
    if game.bench_cases:
        return list(game.bench_cases)
    players = game.default_players
    lineup = tuple(default_lineup(game.id)[:players]) or ("random",)
    return [(f"{players}p default lineup", lineup, players, 1000, 4000)]


def one_process(game: str, strategies, players: int, games: int, seed: int, repeat: int = 3,
                engine: str = "python") -> float:
    """Games per second of one uninterrupted batch in this process, best of ``repeat``."""
    job = BatchJob(game, (), tuple(strategies), players, seed, 0, games, 0.0, engine=engine)
    run_batch(dataclasses.replace(job, stop=min(20, games)))  # warm up
    best = 0.0
    for _ in range(repeat):
        t0 = time.perf_counter()
        res = run_batch(job)
        dt = time.perf_counter() - t0
        if res.error:
            raise RuntimeError(str(res.error))
        best = max(best, games / dt)
    return best


def full_run(game: str, strategies, players: int, games: int, seed: int, jobs: int, engine: str = "auto") -> float:
    """Games per second of a whole ``simulate`` run (no report) with ``jobs`` workers."""
    spec = RunSpec(game=game, strategies=list(strategies), players=players, games=games,
                   seed=seed, jobs=jobs, engine=engine)
    t0 = time.perf_counter()
    res = run(spec, progress=False)
    dt = time.perf_counter() - t0
    if res.error:
        raise RuntimeError(str(res.error))
    return games / dt


def run_bench(games: list[str], n_games: int | None, jobs: int, seed: int, echo=print,
              repeat: int = 3, engine: str = "auto") -> list[dict]:
    """Measure every case of the given titles (all registered titles when empty).

    ``n_games`` replaces both game counts of every case; ``engine`` as in the module docstring.
    Returns one dict per case (with the ``engine`` it played).
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
    if engine not in ENGINES:
        raise InputError(f"--engine {engine!r} is not accepted; choose auto, python or compiled")
    # every case's engine (the one simulate would play) decided, or refused, before the first line
    engines = {(g, k): compiled.choose(get_game(g), get_game(g).Params(), case[2], list(case[1]), engine)[0]
               for g in ids for k, case in enumerate(plan[g])}
    echo(f"{'title':<15} {'case':<21} {'engine':<8} {'rules, 1 process':>22} {'1 job':>10} {f'{jobs} jobs':>10} "
         f"{'speed-up':>9} {'run games':>10}")
    for g in ids:
        first = plan[g][0]
        warm = engines[g, 0]
        full_run(g, first[1], first[2], 20, seed, 1, warm)  # warm-up: imports and caches
        if jobs > 1:
            full_run(g, first[1], first[2], 20 * jobs, seed, jobs, warm)  # warm-up: start the workers
        for k, (label, strategies, players, n_rules, n_run) in enumerate(plan[g]):
            n1, n2 = (n_games, n_games) if n_games else (n_rules, n_run)
            used = engines[g, k]
            rules = one_process(g, strategies, players, n1, seed, repeat, used)
            one = full_run(g, strategies, players, n2, seed, 1, used)
            many = full_run(g, strategies, players, n2, seed, jobs, used) if jobs > 1 else one
            rows.append({"game": g, "case": label, "engine": used, "rules": rules, "one_job": one, "jobs": jobs,
                         "many_jobs": many, "games_rules": n1, "games_run": n2})
            many_text = f"{many:>8,.0f}/s" if jobs > 1 else f"{'-':>10}"
            ratio = f"{many / one:>8.2f}x" if jobs > 1 else f"{'-':>9}"
            echo(f"{g:<15} {label:<21} {used:<8} {rules:>9,.0f}/s (best of {repeat}) {one:>8,.0f}/s {many_text} "
                 f"{ratio} {n2:>10,}")
    return rows


class _Timed:
    """Wraps a strategy and adds up the wall-clock and CPU time its ``choose`` calls take."""

    def __init__(self, inner):
        self.inner = inner
        self.uses_rng = getattr(inner, "uses_rng", True)
        self.seconds = 0.0
        self.cpu = 0.0
        self.decisions = 0

    def reset(self, seat, params, n_players):
        self.inner.reset(seat, params, n_players)

    def choose(self, view, legal, rng):
        t0, c0 = time.perf_counter(), time.process_time()
        action = self.inner.choose(view, legal, rng)
        self.seconds += time.perf_counter() - t0
        self.cpu += time.process_time() - c0
        self.decisions += 1
        return action


def mcts_speed(game_id: str, iterations: int, n_games: int, seed: int) -> dict:
    """Time ``mcts:iterations=N`` in seat 0 against ``random`` over ``n_games`` whole games at the
    title's usual player count; returns decisions, seconds, ms per decision (wall clock and CPU
    time: on a busy shared machine the CPU figure is the one that measures the code), decisions
    per second and iterations per second (by CPU time; one process)."""
    game = get_game(game_id)
    n = game.default_players
    params = game.Params()
    spec = f"mcts:iterations={iterations}"
    specs = [spec] + ["random"] * (n - 1)
    seconds = cpu = 0.0
    decisions = 0
    for i in range(n_games):
        timed = _Timed(make_strategy(spec, game_id))
        strategies = [timed] + [make_strategy("random", game_id) for _ in range(n - 1)]
        play_game(game, params, strategies, specs, game_seed(seed, i))
        seconds += timed.seconds
        cpu += timed.cpu
        decisions += timed.decisions
    nan = float("nan")
    per = cpu / decisions if decisions and cpu > 0 else nan
    return {"game": game_id, "iterations": iterations, "games": n_games, "decisions": decisions,
            "seconds": seconds, "cpu_seconds": cpu,
            "ms_per_decision": 1000 * seconds / decisions if decisions else nan,
            "cpu_ms_per_decision": 1000 * per,
            "decisions_per_second": 1 / per, "iterations_per_second": iterations / per}


def run_mcts_bench(games: list[str], iterations: int, n_games: int | None, seed: int, echo=print) -> list[dict]:
    """``bench --mcts``: :func:`mcts_speed` for each title with a ``determinize`` hook (or the
    titles given).  ``n_games`` replaces each title's ``mcts_bench_games``."""
    if not 1 <= iterations <= 1_000_000:
        raise InputError(f"--iterations {iterations} is not accepted; give 1 to 1,000,000")
    if n_games is not None and not 0 < n_games <= 100_000:
        raise InputError(f"--games {n_games} is not accepted; give a number from 1 to 100,000")
    if seed < 0:
        raise InputError(f"--seed {seed} is not accepted; give a whole number >= 0")
    ids = games or [g for g in game_ids() if has_determinize(get_game(g))]
    for g in ids:
        if not has_determinize(get_game(g)):
            raise InputError(f"mcts needs determinize(): {g!r} does not provide it, so it has no mcts benchmark")
    echo(f"mcts:iterations={iterations} in seat 0, random elsewhere, one process; per second figures by "
         "CPU time")
    echo(f"{'title':<16} {'players':>7} {'games':>6} {'decisions':>10} {'ms/decision':>12} "
         f"{'CPU ms/dec.':>12} {'decisions/s':>12} {'iterations/s':>13}")
    rows = []
    for g in ids:
        k = n_games or get_game(g).mcts_bench_games
        row = mcts_speed(g, iterations, k, seed)
        rows.append(row)
        echo(f"{g:<16} {get_game(g).default_players:>7} {k:>6} {row['decisions']:>10,} "
             f"{row['ms_per_decision']:>12.1f} {row['cpu_ms_per_decision']:>12.1f} "
             f"{row['decisions_per_second']:>12.1f} "
             f"{row['iterations_per_second']:>13,.0f}")
    return rows
