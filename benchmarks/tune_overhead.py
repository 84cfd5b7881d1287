"""What ``analyser tune`` costs over the games it plays: CPU seconds of a tune against one
``simulate`` of as many games, both with ``--jobs 1`` (so every CPU second is in one process
and counted) and both with their reports (or both without, ``--no-report``).

    python benchmarks/tune_overhead.py [--repeat 2] [--no-report] [--trials 16] [--games 2000]

The tune searches ``bust_limit`` of DAO (greedy against random, 2 seats); the simulate plays the
same lineup at the default rules for the number of games the tune played (its trials and its
re-check), so "the same games" is up to the small differences in game length between the rule
values.  CPU time (user + system of the child process, from ``resource.getrusage``) is used,
not wall time, because a shared machine's load changes the wall time from run to run; the best
of ``--repeat`` runs of each is taken.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path


def cpu_of(args: list[str]) -> float:
    """CPU seconds (user + system) of ``python -m analyser ARGS`` and the processes it waited for."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-m", "analyser", *args], check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--trials", type=int, default=16)
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--no-report", action="store_true")
    a = ap.parse_args()
    report = ["--no-report"] if a.no_report else []
    work = Path(tempfile.mkdtemp(prefix="analyser-tune-bench-"))
    try:
        tune = ["tune", "dao", "--rule", "bust_limit=9..16", "-s", "greedy", "-s", "random", "-p", "2",
                "--target", "seat_gap=min", "--trials", str(a.trials), "--games", str(a.games), "--batch", "4",
                "--recheck", "2", "--recheck-factor", "2", "--seed", "5", "-j", "1", "-q", *report]
        tune_cpu = min(cpu_of([*tune, "-o", str(work / f"tune{i}")]) for i in range(a.repeat))
        games = int(json.loads((work / "tune0" / "config.json").read_text())["games_completed"])
        sim = ["simulate", "dao", "-s", "greedy", "-s", "random", "-p", "2", "--games", str(games), "--seed", "5",
               "-j", "1", "-q", *report]
        sim_cpu = min(cpu_of([*sim, "-o", str(work / f"sim{i}")]) for i in range(a.repeat))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"games: {games:,} ({'no reports' if a.no_report else 'with reports'}; best of {a.repeat}, CPU seconds)")
    print(f"simulate: {sim_cpu:.2f} s   tune: {tune_cpu:.2f} s   tune adds {100 * (tune_cpu / sim_cpu - 1):+.1f}%")


if __name__ == "__main__":
    main()
