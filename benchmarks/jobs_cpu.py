"""What ``--jobs 2`` costs in CPU over ``--jobs 1``, per title, at ``analyser bench``'s default game
counts: a measure of the parallel path that a loaded machine does not distort.

    python benchmarks/jobs_cpu.py [GAME ...]

For each title's first bench case (:func:`analyser.run.bench.cases`), a whole run
(:func:`analyser.run.run`, no report) with ``--jobs 2`` and then ``--jobs 1`` on the same games,
after a short warm-up that starts the loky workers (as ``analyser bench`` does).  It prints the
CPU seconds of this process and of the two worker processes (from ``/proc/PID/stat``: the loky
workers outlive the run, so ``getrusage`` cannot see them), the ``--jobs 1`` CPU, and the
speed-up two idle cores would allow: ``2 * cpu(jobs 1) / cpu(jobs 2, all processes)``, capped at 2
(it ignores the last batch's tail and the hand-over latency, so the wall figure on an idle
machine is somewhat lower).  The wall seconds are printed too, with the machine's load average:
on a shared machine they measure the load more than the code.  Linux only.
"""

from __future__ import annotations

import os
import sys
import time

from analyser.run.bench import cases
from analyser.engine.registry import game_ids, get_game
from analyser.run import RunSpec, run


def workers_cpu() -> float:
    """CPU seconds so far of the processes of joblib's reusable loky executor."""
    from joblib.externals.loky import reusable_executor
    ex = reusable_executor._executor
    total = 0.0
    for pid in (ex._processes if ex is not None else {}):
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def main(ids: list[str]) -> None:
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; CPU seconds")
    for g in ids or game_ids():
        label, strategies, players, _, games = cases(get_game(g))[0]
        spec = dict(game=g, strategies=list(strategies), players=players, seed=1)
        run(RunSpec(**spec, games=40, jobs=2), progress=False)  # warm-up: the workers start here
        c0, k0, w0 = time.process_time(), workers_cpu(), time.perf_counter()
        run(RunSpec(**spec, games=games, jobs=2), progress=False)
        main_cpu, work_cpu, wall2 = time.process_time() - c0, workers_cpu() - k0, time.perf_counter() - w0
        c0, w0 = time.process_time(), time.perf_counter()
        run(RunSpec(**spec, games=games, jobs=1), progress=False)
        one, wall1 = time.process_time() - c0, time.perf_counter() - w0
        both = main_cpu + work_cpu
        print(f"{g:<16} {label:<22} {games:>7,} games: 2 jobs {main_cpu:6.2f} main + {work_cpu:6.2f} workers = "
              f"{both:6.2f}; 1 job {one:6.2f}; CPU overhead {100 * (both / one - 1):+5.1f}%; "
              f"idle 2-core bound {min(2.0, 2 * one / both):.2f}x; wall {wall1:.1f} s / {wall2:.1f} s", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
