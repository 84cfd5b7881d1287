"""What ``analyser tune`` costs over the games it plays, against one ``simulate`` of the same games.

    python benchmarks/tune_overhead.py [--repeat 2] [--no-report] [--trials 40] [--games 2000]

Both commands run with ``--jobs 1`` in a fresh process each (imports included), so every CPU
second is in that process and counted: user + system time from ``resource.getrusage``, not wall
time, because a shared machine's load changes the wall time from run to run.  Inside each, the
CPU time spent playing the games (in :func:`analyser.engine.runner.run_batch`) is added up, so

* ``simulate``'s cost per game-second is ``total / games`` of one simulate (its set-up, writing
  the parts and, unless ``--no-report``, its report);
* a tune's trials play other rule values than one simulate could, so "one simulate of the same
  games" is the tune's own game CPU times that factor; the tune's figure is its total CPU over that.

The tune (its defaults otherwise: batches of 8, the best 3 re-checked on 4 times the games)
searches ``bust_limit`` of DAO and the limit of ``threshold`` against ``greedy`` (2 seats), for
the highest win rate of threshold; the simulate plays threshold (limit 10) against greedy for
as many games as the tune played.  The best of ``--repeat`` runs of each is taken.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = r'''
import json, resource, sys, time
import analyser.engine.runner as runner
from analyser.run import backends, execute
played = [0.0]
real = runner.run_batch
def timed(job):
    c = time.process_time()
    try:
        return real(job)
    finally:
        played[0] += time.process_time() - c
backends.run_batch = execute.run_batch = timed
from analyser.cli import cli
try:
    cli.main(sys.argv[1:], standalone_mode=False)
finally:
    r = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({"total": r.ru_utime + r.ru_stime, "games": played[0]}))
'''


def measure(args: list[str]) -> dict:
    """CPU seconds of ``analyser ARGS`` in a fresh process: ``total`` and ``games`` (in run_batch)."""
    out = subprocess.run([sys.executable, "-c", CHILD, *args], check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--trials", type=int, default=40)
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--no-report", action="store_true")
    a = ap.parse_args()
    report = ["--no-report"] if a.no_report else []
    work = Path(tempfile.mkdtemp(prefix="analyser-tune-bench-"))
    try:
        tune = ["tune", "dao", "--rule", "bust_limit=9..16", "-s", "threshold:limit=4..20", "-s", "greedy", "-p", "2",
                "--target", "win_rate=max", "--trials", str(a.trials), "--games", str(a.games), "--seed", "5",
                "-j", "1", "-q", *report]
        t = min((measure([*tune, "-o", str(work / f"tune{i}")]) for i in range(a.repeat)), key=lambda m: m["total"])
        games = int(json.loads((work / "tune0" / "config.json").read_text())["games_completed"])
        sim = ["simulate", "dao", "-s", "threshold", "-s", "greedy", "-p", "2", "--games", str(games), "--seed", "5",
               "-j", "1", "-q", *report]
        s = min((measure([*sim, "-o", str(work / f"sim{i}")]) for i in range(a.repeat)), key=lambda m: m["total"])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    same = t["games"] * s["total"] / s["games"]  # one simulate of the tune's very games
    print(f"{games:,} games ({'no reports' if a.no_report else 'with reports'}; best of {a.repeat}; CPU seconds)")
    print(f"simulate of {games:,} games: {s['total']:.2f} s, of which playing {s['games']:.2f} s")
    print(f"tune: {t['total']:.2f} s, of which playing {t['games']:.2f} s; one simulate of those games: {same:.2f} s")
    print(f"tune adds {100 * (t['total'] / same - 1):+.1f}% over one simulate of the same games")


if __name__ == "__main__":
    main()
