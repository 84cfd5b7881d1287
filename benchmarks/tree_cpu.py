"""CPU seconds of a command's whole process tree, worker processes included, and its wall time.

    python benchmarks/tree_cpu.py -- analyser simulate dao --strategy greedy -q

``/usr/bin/time`` counts only the processes its command waits for: joblib's loky workers outlive
the main process (they are orphaned, then reaped by init), so their CPU is missing from its
figure.  This script makes itself the "child subreaper" of the command (Linux ``prctl``), so the
orphaned workers are reparented to it; it waits for every process of the tree and sums their CPU
(user + system, from ``wait4``).  It prints the wall time of the command's main process, the
tree's CPU seconds and how many processes it reaped; with ``TREE_CPU_EACH=1`` in the environment,
also each process's CPU seconds and peak resident memory (``ru_maxrss``).  Linux only.
"""

import ctypes
import os
import sys
import time

PR_SET_CHILD_SUBREAPER = 36


def main(argv: list[str]) -> None:
    cmd = argv[argv.index("--") + 1:] if "--" in argv else argv
    if not cmd:
        sys.exit("usage: python benchmarks/tree_cpu.py -- COMMAND [ARG ...]")
    if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        sys.exit("tree_cpu.py: prctl(PR_SET_CHILD_SUBREAPER) failed (Linux only)")
    t0 = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        os.execvp(cmd[0], cmd)
    cpu, reaped, wall, code, each = 0.0, 0, None, None, []
    while True:
        try:
            child, status, usage = os.wait4(-1, 0)
        except ChildProcessError:  # every process of the tree has ended
            break
        reaped += 1
        cpu += usage.ru_utime + usage.ru_stime
        each.append((child, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024))
        if child == pid:
            wall, code = time.perf_counter() - t0, os.waitstatus_to_exitcode(status)
    print(f"wall {wall:.2f} s, tree CPU {cpu:.2f} s, {reaped} processes, exit code {code}", file=sys.stderr)
    if os.environ.get("TREE_CPU_EACH"):
        for child, secs, peak in each:
            print(f"  pid {child}{' (main)' if child == pid else ''}: {secs:.2f} CPU s, peak RSS {peak:.0f} MB",
                  file=sys.stderr)
    sys.exit(code)


if __name__ == "__main__":
    main(sys.argv[1:])
