"""Speed of the generic search player (``mcts``): decisions per second per title, and an estimate
of the default Wizard ladder's time.

    python benchmarks/mcts_speed.py                         # every searchable title, 100 iterations
    python benchmarks/mcts_speed.py --iterations 200 --json after.json
    python benchmarks/mcts_speed.py --compare before.json   # also the ratio to an earlier run
    python benchmarks/mcts_speed.py --ladder                # also estimate `analyser ladder wizard`
    python benchmarks/mcts_speed.py wizard --repeat 3       # one title, best of three

**Decisions per second** are :func:`analyser.run.bench.mcts_speed` (the figure ``analyser bench --mcts``
prints): ``mcts:iterations=N`` in seat 0 against ``random`` over whole games at the title's usual
player count, timing only the search's decisions, by CPU time (``time.process_time``) - the
machine is shared, and a process's CPU time does not grow much when others compete for the cores
(it still varies by some 10% on a loaded machine: ``--repeat`` keeps the best of several runs).
The games are fixed by ``--seed``, and a faster search that decides the same (see
tests/test_mcts_decisions.py) plays the very same games, so two versions are timed on the same
decisions.

**The ladder estimate** (``--ladder``): the default ``analyser ladder wizard`` plays budgets
25..400 head to head (50 v 25, 100 v 50, 200 v 100, 400 v 200), 200 games a level at 4 players,
the two sides in two seats each.  The script plays ``--ladder-games`` such games per level (the
level's stronger side in seats 0 and 2), times their CPU seconds and multiplies by 200, then
divides by 2 for ``-j 2`` on two free cores (the levels' games are independent, so two workers
share them evenly; worker start-up and the report are a few seconds and are left out).

Run the script with another checkout first on ``PYTHONPATH`` to measure that version
(``PYTHONPATH=/path/to/other/checkout python benchmarks/mcts_speed.py --json before.json``).
"""

from __future__ import annotations

import argparse
import json
import os
import time

from analyser.run.bench import mcts_speed
from analyser.engine.registry import game_ids, get_game, make_strategy
from analyser.engine.runner import game_seed, play_game
from analyser.engine.search import has_determinize

LADDER_LEVELS = ((50, 25), (100, 50), (200, 100), (400, 200))
LADDER_GAMES = 200


def ladder_estimate(games: int, seed: int) -> dict:
    """CPU seconds per game of each default Wizard ladder level (``games`` games each, 4 players)
    and the estimated minutes of the whole ladder on 1 and on 2 cores."""
    game = get_game("wizard")
    params = game.Params()
    levels = []
    for hi, lo in LADDER_LEVELS:
        specs = [f"mcts:iterations={b}" for b in (hi, lo, hi, lo)]
        cpu = 0.0
        for i in range(games):
            strategies = [make_strategy(s, "wizard") for s in specs]
            c0 = time.process_time()
            play_game(game, params, strategies, specs, game_seed(seed, i))
            cpu += time.process_time() - c0
        levels.append({"level": f"{hi} v {lo}", "cpu_seconds_per_game": cpu / games})
    total = sum(x["cpu_seconds_per_game"] for x in levels) * LADDER_GAMES
    return {"levels": levels, "cpu_minutes": total / 60, "minutes_on_2_cores": total / 2 / 60}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("titles", nargs="*", help="title ids (default: every title with determinize())")
    ap.add_argument("--iterations", type=int, default=100)
    ap.add_argument("--games", type=int, default=None, help="games per title (default: the title's mcts_bench_games)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=1, help="time each title this many times and keep the best")
    ap.add_argument("--ladder", action="store_true", help="also estimate the default Wizard ladder")
    ap.add_argument("--ladder-games", type=int, default=1, help="games per ladder level timed")
    ap.add_argument("--only-ladder", action="store_true", help="the ladder estimate only")
    ap.add_argument("--json", default=None, help="write the figures to this JSON file")
    ap.add_argument("--compare", default=None, help="a JSON file of an earlier run: print the ratios")
    a = ap.parse_args(argv)
    before = json.load(open(a.compare)) if a.compare else None
    out: dict = {"iterations": a.iterations, "load": os.getloadavg()[0], "titles": {}}
    print(f"mcts:iterations={a.iterations} in seat 0, random elsewhere; CPU time; load average "
          f"{out['load']:.2f} on {os.cpu_count()} cores")
    if not a.only_ladder:
        ids = a.titles or [g for g in game_ids() if has_determinize(get_game(g))]
        print(f"{'title':<16} {'decisions':>9} {'CPU ms/dec.':>12} {'decisions/s':>12} {'iterations/s':>13}"
              + (f" {'before':>9} {'ratio':>7}" if before else ""))
        for g in ids:
            k = a.games or get_game(g).mcts_bench_games
            row = max((mcts_speed(g, a.iterations, k, a.seed) for _ in range(a.repeat)),
                      key=lambda r: r["decisions_per_second"])
            out["titles"][g] = row
            line = (f"{g:<16} {row['decisions']:>9,} {row['cpu_ms_per_decision']:>12.2f} "
                    f"{row['decisions_per_second']:>12.1f} {row['iterations_per_second']:>13,.0f}")
            old = (before or {}).get("titles", {}).get(g)
            if old:
                line += f" {old['decisions_per_second']:>9.1f} {row['decisions_per_second'] / old['decisions_per_second']:>6.2f}x"
            print(line, flush=True)
    if a.ladder or a.only_ladder:
        est = ladder_estimate(a.ladder_games, a.seed)
        out["ladder"] = est
        for x in est["levels"]:
            print(f"ladder wizard {x['level']:>10}: {x['cpu_seconds_per_game']:.2f} CPU s per game")
        print(f"default Wizard ladder: {est['cpu_minutes']:.1f} CPU minutes, about {est['minutes_on_2_cores']:.1f} "
              "minutes on 2 free cores (-j 2)")
        old = (before or {}).get("ladder")
        if old:
            print(f"  before: {old['minutes_on_2_cores']:.1f} minutes on 2 cores "
                  f"({old['cpu_minutes'] / est['cpu_minutes']:.2f}x)")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
