"""CPU seconds of a command's whole process tree, worker processes included, and its wall time.

    python benchmarks/tree_cpu.py -- analyser simulate dao --strategy greedy -q

``/usr/bin/time`` counts only the processes its command waits for: joblib's loky workers outlive
the main process (they are orphaned, then reaped by init), so their CPU is missing from its
figure.  This script makes itself the "child subreaper" of the command (Linux ``prctl``), so the
orphaned workers are reparented to it; it waits for every process of the tree and sums their CPU
(user + system, from ``wait4``: exact).  It also splits that CPU by lane (:func:`measure`): each
loky worker with the processes under it (the child a worker forks to play its batches under the
per-game time limit), and the main process with everything else.  It prints the wall time of the
command's main process, the tree's CPU seconds, the lanes and how many processes it reaped.
Linux only; needs psutil (the ``bench`` extra).
"""

import ctypes
import os
import sys
import time

import psutil

PR_SET_CHILD_SUBREAPER = 36
#: Seconds between two looks at the tree's processes (their CPU, for the split by lane).
SAMPLE = 0.05


def measure(cmd: list[str]) -> dict:
    """Run ``cmd`` to the end of its whole tree: its ``wall`` seconds (main process), exit ``code``,
    the tree's CPU seconds (``total``), the CPU of each loky worker's lane (``workers``, busiest
    first: the worker and the processes under it, from ``/proc`` sampled every :data:`SAMPLE`
    seconds, so a lane may miss its last few hundredths), and the ``main`` lane: the rest."""
    if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        sys.exit("tree_cpu.py: prctl(PR_SET_CHILD_SUBREAPER) failed (Linux only)")
    t0 = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        os.execvp(cmd[0], cmd)
    seen: dict[int, list] = {}  # pid -> [parent when first seen, a loky worker?, CPU seconds at the last look]
    total, reaped, wall, code = 0.0, 0, None, None
    while True:
        try:
            child, status, usage = os.wait4(-1, os.WNOHANG)
        except ChildProcessError:  # every process of the tree has ended
            break
        if child == 0:
            _look(seen, pid)
            time.sleep(SAMPLE)
            continue
        reaped += 1
        total += usage.ru_utime + usage.ru_stime
        if child == pid:
            wall, code = time.perf_counter() - t0, os.waitstatus_to_exitcode(status)
    workers = sorted((_lane(seen, p) for p, (_, worker, _) in seen.items() if worker), reverse=True)
    return {"wall": wall, "code": code, "total": total, "main": total - sum(workers), "workers": workers,
            "processes": reaped}


def _look(seen: dict, main: int) -> None:
    """Note the tree's new processes (a loky worker: a child of ``main`` that runs loky's
    bootstrap) and the CPU of each so far."""
    for p in psutil.Process().children(recursive=True):
        try:
            with p.oneshot():
                if p.pid not in seen:
                    parent = p.ppid()
                    seen[p.pid] = [parent, parent == main and "popen_loky_posix" in " ".join(p.cmdline()), 0.0]
                t = p.cpu_times()
                seen[p.pid][2] = t.user + t.system
        except psutil.Error:  # (ended between the listing and the look)
            continue


def _lane(seen: dict, top: int) -> float:
    """CPU seconds of ``top`` and every process seen under it ."""
    kids = [p for p, (parent, _, _) in seen.items() if parent == top]
    return seen[top][2] + sum(_lane(seen, k) for k in kids)


def main(argv: list[str]) -> None:
    cmd = argv[argv.index("--") + 1:] if "--" in argv else argv
    if not cmd:
        sys.exit("usage: python benchmarks/tree_cpu.py -- COMMAND [ARG ...]")
    m = measure(cmd)
    lanes = ", ".join(f"{c:.2f}" for c in m["workers"]) or "none"
    print(f"wall {m['wall']:.2f} s, tree CPU {m['total']:.2f} s (main lane {m['main']:.2f} s; worker lanes "
          f"{lanes}), {m['processes']} processes, exit code {m['code']}", file=sys.stderr)
    sys.exit(m["code"])


if __name__ == "__main__":
    main(sys.argv[1:])
