"""The report's memory does not grow with the number of games (issue 9): a run enlarged tenfold
(benchmarks/replicate_run.py) is reported in about the same peak memory.  A soak test: it plays
20,000 games and reports 200,000, which takes a minute or two (`pytest -m soak`)."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _report_peak_mb(folder: Path) -> float:
    """Peak resident memory (MB) of `analyser report FOLDER` in a fresh process."""
    code = ("import resource, sys; from analyser.cli import cli\n"
            "try:\n    cli(['report', sys.argv[1]], standalone_mode=False)\n"
            "finally:\n    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n")
    out = subprocess.run([sys.executable, "-c", code, str(folder)], capture_output=True, text=True, timeout=1800)
    assert out.returncode == 0, out.stderr
    return int(out.stderr.strip().splitlines()[-1]) / 1024


@pytest.mark.soak
def test_report_memory_is_flat_from_20k_to_200k_games(tmp_path):
    small = tmp_path / "small"
    subprocess.run([sys.executable, "-m", "analyser", "simulate", "dao", "-s", "threshold", "-s", "greedy",
                    "--games", "20000", "--seed", "3", "-q", "--no-report", "--out", str(small)], check=True,
                   timeout=1800)
    big = tmp_path / "big"
    subprocess.run([sys.executable, str(ROOT / "benchmarks" / "replicate_run.py"), str(small), str(big), "10"],
                   check=True, timeout=1800)
    assert json.loads((big / "config.json").read_text())["games_completed"] == 200_000
    a, b = _report_peak_mb(small), _report_peak_mb(big)
    assert b < 1024, b
    assert b < a * 1.15 + 30, (a, b)  # ten times the games, about the same memory
    # and the same numbers: the big run repeats the small one ten times
    small_csv = (small / "summary.csv").read_text().splitlines()
    big_csv = (big / "summary.csv").read_text().splitlines()
    assert small_csv[0] == big_csv[0] and len(small_csv) == len(big_csv)
