"""Peak memory of a command and its whole process tree (workers included).

    python benchmarks/peak_rss.py -- analyser simulate dao -s threshold --games 1000000 -q

Samples every 0.2 s with psutil; prints the wall time, the peak RSS of the main process, of the
largest single process and of the sum over the tree (all in MB); with ``PEAK_RSS_EACH=1`` in the
environment, also each process's peak and its CPU seconds at its last sample.  Used for the memory figures of
issue 9 (results streamed to disk)."""

import os
import subprocess
import sys
import time

import psutil


def main(argv):
    cmd = argv[argv.index("--") + 1:] if "--" in argv else argv
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd)
    root = psutil.Process(proc.pid)
    peak_main = peak_one = peak_sum = 0
    each = {}  # pid -> [name, last CPU seconds seen, peak RSS]
    while proc.poll() is None:
        try:
            procs = [root] + root.children(recursive=True)
            rss = []
            for p in procs:
                try:
                    rss.append((p.pid, p.memory_info().rss))
                    seen = each.setdefault(p.pid, [" ".join(p.cmdline()[1:4])[:70], 0.0, 0])
                    cpu = p.cpu_times()
                    seen[1], seen[2] = cpu.user + cpu.system, max(seen[2], rss[-1][1])
                except psutil.Error:
                    pass
            main_rss = dict(rss).get(root.pid, 0)
            peak_main = max(peak_main, main_rss)
            peak_one = max([peak_one] + [r for _, r in rss])
            peak_sum = max(peak_sum, sum(r for _, r in rss))
        except psutil.Error:
            pass
        time.sleep(0.2)
    wall = time.perf_counter() - t0
    mb = 1024 * 1024
    print(f"exit {proc.returncode}; wall {wall:.1f} s; peak RSS main {peak_main / mb:.0f} MB, "
          f"largest process {peak_one / mb:.0f} MB, whole tree {peak_sum / mb:.0f} MB", file=sys.stderr)
    if os.environ.get("PEAK_RSS_EACH"):
        for pid, (name, cpu, peak) in each.items():
            print(f"  pid {pid} {name}: CPU {cpu:.1f} s (last sample), peak RSS {peak / mb:.0f} MB", file=sys.stderr)
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
