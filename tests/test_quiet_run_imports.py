"""A run asked for no report and no output (``simulate --no-report -q``) writes its games and
imports none of the report's heavy libraries (matplotlib, scipy); a run that prints its summary
does (the summary is the report's)."""

import json
import subprocess
import sys

PROBE = """
import io, json, sys, contextlib
from analyser.cli import main
sys.argv = ["analyser", *{args!r}]
with contextlib.redirect_stdout(io.StringIO()):
    try:
        main()
    except SystemExit as e:
        code = e.code
print(json.dumps({{"code": code, "heavy": sorted(m for m in ("matplotlib", "scipy") if m in sys.modules)}}))
"""


def loaded_by(*args: str) -> dict:
    out = subprocess.run([sys.executable, "-c", PROBE.format(args=list(args))], capture_output=True, text=True,
                         timeout=300, check=True)
    return json.loads(out.stdout.splitlines()[-1])


def test_a_quiet_run_without_a_report_imports_no_report_library(tmp_path):
    out = tmp_path / "quiet"
    assert loaded_by("simulate", "dao", "-n", "6", "--seed", "1", "-j", "1", "--engine", "python", "-q",
                     "--no-report", "-o", str(out)) == {"code": 0, "heavy": []}
    assert sorted(p.name for p in (out / "results").iterdir())  # its games are written
    assert json.loads((out / "config.json").read_text())["games_completed"] == 6


def test_a_run_that_prints_its_summary_loads_the_report(tmp_path):
    result = loaded_by("simulate", "dao", "-n", "6", "--seed", "1", "-j", "1", "--engine", "python",
                       "--no-report", "-o", str(tmp_path / "loud"))
    assert result["code"] == 0 and "matplotlib" in result["heavy"]
