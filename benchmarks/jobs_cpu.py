"""How fast ``--jobs 2`` could be against ``--jobs 1`` on two idle cores, per title, measured in
CPU seconds (which a loaded machine does not distort, as it does the wall time).

    python benchmarks/jobs_cpu.py [GAME ...] [--games N] [--engine python|compiled] [--repeat R] [--cli]

For each title's first bench case (:func:`analyser.run.bench.cases`, at its game count unless
``--games``), a run with ``--jobs 2`` then ``--jobs 1`` on the same games, ``--repeat`` times,
alternated.  By default the run alone, as ``analyser simulate`` plays it (:func:`analyser.run.run`
into a run folder, the workers packing and reducing each batch), in this process after a short
warm-up that starts the loky workers; ``--cli`` the whole ``analyser simulate ... -q`` command
instead (start-up, play and report), in a fresh process tree (``benchmarks/tree_cpu.py``).

The CPU is split by lane: a loky worker with the child it forks to play its batches under the
per-game time limit (one runs at a time: the worker only watches the clock), and the main
process with the rest (its own child at ``--jobs 1``).  A lane runs on one core at a time, so on
two cores a ``--jobs 2`` run takes at least

    before + max(main during, busiest worker, (main during + all workers) / 2) + after

seconds, where ``before`` and ``after`` are the main lane's CPU before the first batch is
handed out and after the last result came back (nothing else runs then), and ``main during`` its
CPU in between (writing each part as it comes).  ``--jobs 1`` takes at least its CPU, so the
**ceiling** printed is ``cpu(jobs 1) / that bound``: what the wall-time speed-up on an idle
machine can reach at best (it can only be lower: hand-over latency, and at the tail one worker
idles while the other ends its last batch only as far as their CPU differs).  With ``--cli`` the
main lane cannot be split in time (start-up and report are counted in ``main during``).  The
wall seconds and the load average are printed too: on a shared machine they measure the load.
Linux only; needs psutil (the ``bench`` extra).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile

import psutil

from analyser.engine.registry import game_ids, get_game
from analyser.report.reduce import worker_sums
from analyser.run import RunSpec, execute, run
from analyser.run.bench import cases
from tree_cpu import measure


def lane_cpu(proc: psutil.Process, skip=()) -> float:
    """CPU seconds so far of ``proc`` and the processes under it (the ended ones it reaped
    included), leaving out the subtrees of ``skip`` (pids)."""
    try:
        t = proc.cpu_times()
        kids = proc.children()
    except psutil.NoSuchProcess:
        return 0.0
    return (t.user + t.system + t.children_user + t.children_system
            + sum(lane_cpu(c, skip) for c in kids if c.pid not in skip))


def worker_pids() -> list[int]:
    from joblib.externals.loky import reusable_executor
    ex = reusable_executor._executor
    return list(ex._processes) if ex is not None else []


def play(spec: RunSpec, folder: str) -> dict:
    """Run ``spec`` into ``folder`` as ``simulate`` does: the CPU of the main lane before, during
    and after its batches are dispatched, and of each worker's lane (busiest first)."""
    me, workers = psutil.Process(), worker_pids()
    main = lambda: lane_cpu(me, skip=workers)  # noqa: E731
    before = {w: lane_cpu(psutil.Process(w)) for w in workers}  # (alive: the warm-up has just used them)
    marks, dispatch = [main()], execute.dispatch_batches

    def timed(*args, **kwargs):
        marks.append(main())
        try:
            return dispatch(*args, **kwargs)
        finally:
            marks.append(main())

    execute.dispatch_batches = timed
    try:
        res = run(spec, out=folder, progress=False, sums=worker_sums(spec.games, spec.seed))
    finally:
        execute.dispatch_batches = dispatch
    if res.error is not None:
        raise RuntimeError(str(res.error))
    marks.append(main())
    lanes = sorted((lane_cpu(psutil.Process(w)) - before[w] for w in workers), reverse=True)
    return {"before": marks[1] - marks[0], "during": marks[2] - marks[1], "after": marks[3] - marks[2],
            "workers": lanes}


def cli(spec: RunSpec, folder: str) -> dict:
    """The whole ``analyser simulate ... -q`` of ``spec``, in the same shape as :func:`play`."""
    cmd = ["analyser", "simulate", spec.game, "-p", str(spec.players), "--games", str(spec.games), "--seed",
           str(spec.seed), "-j", str(spec.jobs), "--engine", spec.engine, "-q", "--out", folder]
    for s in spec.strategies:
        cmd += ["-s", s]
    m = measure(cmd)
    if m["code"] != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited with {m['code']}")
    return {"before": 0.0, "during": m["main"], "after": 0.0, "workers": m["workers"]}


def bound(m: dict) -> float:
    """The least wall seconds of a run with CPU ``m`` on two cores (see the module docstring)."""
    work = m["workers"]
    return m["before"] + max(m["during"], max(work, default=0.0), (m["during"] + sum(work)) / 2) + m["after"]


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("games", nargs="*", metavar="GAME")
    ap.add_argument("--games", dest="n", type=int, help="games per run (default: the bench case's)")
    ap.add_argument("--engine", default="python", choices=["python", "compiled"])
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--cli", action="store_true", help="the whole simulate command, report included")
    args = ap.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; engine {args.engine}; "
          f"{'whole simulate command' if args.cli else 'play alone'}; CPU seconds (main lane before+during+after)")
    measure_one = cli if args.cli else play
    for g in args.games or game_ids():
        label, strategies, players, _, games = cases(get_game(g))[0]
        spec = dict(game=g, strategies=list(strategies), players=players, seed=1, engine=args.engine)
        games = args.n or games
        with tempfile.TemporaryDirectory() as tmp:
            best1 = best2 = None
            for r in range(args.repeat):
                if not args.cli:  # warm-up: the workers start here (loky ends them after a while idle)
                    play(RunSpec(**spec, games=40, jobs=2), f"{tmp}/warm")
                two = measure_one(RunSpec(**spec, games=games, jobs=2), f"{tmp}/two")
                one = measure_one(RunSpec(**spec, games=games, jobs=1), f"{tmp}/one")
                cpu1 = one["before"] + one["during"] + one["after"] + sum(one["workers"])
                best1 = cpu1 if best1 is None else min(best1, cpu1)
                best2 = two if best2 is None or bound(two) < bound(best2) else best2
                print(f"  {g} run {r + 1}: jobs 1 {cpu1:.2f}; jobs 2 {_shape(two)}; ceiling {cpu1 / bound(two):.2f}x",
                      flush=True)
        print(f"{g:<16} {label:<22} {games:>7,} games: jobs 1 {best1:6.2f}; jobs 2 {_shape(best2)}; "
              f"ceiling {best1 / bound(best2):.2f}x (best of {args.repeat})", flush=True)


def _shape(m: dict) -> str:
    lanes = " + ".join(f"{w:.2f}" for w in m["workers"])
    total = m["before"] + m["during"] + m["after"] + sum(m["workers"])
    return f"main {m['before']:.2f}+{m['during']:.2f}+{m['after']:.2f}, workers {lanes} = {total:.2f}"


if __name__ == "__main__":
    main(sys.argv[1:])
