"""What ``analyser tune`` costs over the games it plays: CPU seconds of a tune against one
``simulate`` of as many games, both with ``--jobs 1`` by default (every CPU second in one
process; with ``--jobs N`` the workers' CPU is counted once they exit) and both with their reports (or both without, ``--no-report``).

    python benchmarks/tune_overhead.py [--repeat 2] [--no-report] [--trials 40] [--games 2000] [--jobs 1]

The tune (its defaults otherwise: batches of 8, the best 3 re-checked on 4 times the games)
searches ``bust_limit`` of DAO and the limit of ``threshold`` against ``greedy`` (2 seats), for
the highest win rate of threshold; the simulate plays threshold (limit 10) against greedy at the
default rules for as many games as the tune played (its trials and its re-check), so "the same
games" is up to the differences in game length between the values tried.  CPU time (user + system of the child process, from ``resource.getrusage``) is used,
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
    ap.add_argument("--trials", type=int, default=40)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--no-report", action="store_true")
    a = ap.parse_args()
    report = ["--no-report"] if a.no_report else []
    work = Path(tempfile.mkdtemp(prefix="analyser-tune-bench-"))
    try:
        tune = ["tune", "dao", "--rule", "bust_limit=9..16", "-s", "threshold:limit=4..20", "-s", "greedy", "-p", "2",
                "--target", "win_rate=max", "--trials", str(a.trials), "--games", str(a.games), "--seed", "5",
                "-j", str(a.jobs), "-q", *report]
        tune_cpu = min(cpu_of([*tune, "-o", str(work / f"tune{i}")]) for i in range(a.repeat))
        games = int(json.loads((work / "tune0" / "config.json").read_text())["games_completed"])
        sim = ["simulate", "dao", "-s", "threshold", "-s", "greedy", "-p", "2", "--games", str(games), "--seed", "5",
               "-j", str(a.jobs), "-q", *report]
        sim_cpu = min(cpu_of([*sim, "-o", str(work / f"sim{i}")]) for i in range(a.repeat))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"games: {games:,} ({'no reports' if a.no_report else 'with reports'}; best of {a.repeat}, CPU seconds)")
    print(f"simulate: {sim_cpu:.2f} s   tune: {tune_cpu:.2f} s   tune adds {100 * (tune_cpu / sim_cpu - 1):+.1f}%")


if __name__ == "__main__":
    main()
