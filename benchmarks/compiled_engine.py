"""Games per second of a title's compiled engine against the Python engine, in one process, in CPU time.

    python benchmarks/compiled_engine.py                       # DAO: the four lineups of docs/compiled.md
    python benchmarks/compiled_engine.py --python-games 3000 --batches 40
    python benchmarks/compiled_engine.py --title wizard --python-games 200 --batches 5

Both engines play the same games (tests/test_compiled.py checks it); the compiled one plays
``--batches`` batches of 2,000 games, as a run's workers do, after one warm-up batch that loads
the kernel (compiling it on the very first run).  CPU time (``time.process_time``) is reported,
since a loaded machine stretches the wall-clock time."""

from __future__ import annotations

import argparse
import dataclasses
import time

from analyser.engine.runner import BatchJob, run_batch

#: Per title: the lineups measured (Wizard: its default lineup, and ``expected`` in every seat).
LINEUPS = {"dao": (("threshold",), ("greedy",), ("greedy", "threshold", "colour", "random"), ("random",)),
           "wizard": (("expected", "bot:bid=zero", "bot:bid=expected,play=random", "random"), ("expected",))}


def rate(job: BatchJob, batches: list[tuple[int, int]]) -> float:
    """Games per CPU second over ``batches``."""
    t = time.process_time()
    for a, b in batches:
        run_batch(dataclasses.replace(job, start=a, stop=b))
    return sum(b - a for a, b in batches) / (time.process_time() - t)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python-games", type=int, default=3000)
    ap.add_argument("--batches", type=int, default=40)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--title", choices=sorted(LINEUPS), default="dao")
    args = ap.parse_args()
    for lineup in LINEUPS[args.title]:
        job = BatchJob(args.title, (), lineup, args.players, 99, 0, 20, 0.0)
        run_batch(job)
        run_batch(dataclasses.replace(job, engine="compiled"))  # warm up: load the kernel
        python = rate(job, [(0, args.python_games)])
        fast = rate(dataclasses.replace(job, engine="compiled"),
                    [(k * 2000, (k + 1) * 2000) for k in range(args.batches)])
        print(f"{'+'.join(lineup):60s} python {python:9,.0f}/s  compiled {fast:9,.0f}/s  {fast / python:5.1f}x")


if __name__ == "__main__":
    main()
