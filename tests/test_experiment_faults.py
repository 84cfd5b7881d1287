"""Experiments that survive: the fault matrix of issue 21, with real faults.

Each experiment - a ``sweep``, a ``tournament``, a ``ladder`` and a ``simulate --until-ci`` run - is played by a
real ``python -m analyser`` process and hit by a real fault once some of its cells (or rounds)
are complete: SIGTERM, SIGINT, SIGKILL of a worker process, or a disk that fills up (a small
tmpfs in a private mount namespace).  The process is frozen (SIGSTOP) while the fault is set up,
so the fault lands mid-play however loaded the machine is.  Then: one line on standard error,
the documented exit code (143, 130, 1), a ``config.json`` that says what is on disk, and
``analyser resume OUT`` gives the same rows, row for row, and the same report tables as an
uninterrupted run with the same seed.

The whole matrix runs under ``-m soak``; a cheaper set (one fault of each kind) runs by default.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from analyser.cli import cli
from analyser.run import store
from test_stream import children, in_namespace, needs_namespace, one_line, start, wait_for

EXPERIMENTS = {
    # 12 cells x 50 games
    "sweep": ["sweep", "dao", "-s", "threshold:limit=4..9", "-s", "greedy", "--rule", "bust_limit=10,12", "-p", "2",
              "--games", "50", "--seed", "3", "--no-report"],
    # 10 tables (5 strategies, 3 seats) x 30 games (a multiple of the 6 seat orders)
    "tournament": ["tournament", "dao", "-s", "greedy", "-s", "colour", "-s", "random", "-s", "threshold:limit=6",
                   "-s", "threshold:limit=9", "-p", "3", "--games", "250", "--seed", "3"],
    # 5 levels (mcts at 1 to 32 iterations) x 60 games; only under -m soak
    "ladder": ["ladder", "dao", "--budgets", "1..32", "-p", "2", "--games", "60", "--seed", "3", "--no-report"],
    # rounds of 200 games; the interval never gets this narrow, so all 4 rounds are played
    "until": ["simulate", "dao", "-s", "greedy", "-s", "threshold", "-p", "2", "--games", "800", "--until-ci",
              "0.01", "--seed", "4", "--no-report"],
}
#: What the one line says, and the exit code, per fault.
EXPECT = {"term": ("interrupted (SIGTERM)", 143), "int": ("interrupted", 130),
          "kill": ("worker process died", 1), "full": ("No space left on device", 1)}


class _References(dict):
    """Each experiment played once without a fault (in this process, one worker), when a test
    first asks for it."""

    def __init__(self, base: Path):
        super().__init__()
        self.base = base

    def __missing__(self, name: str) -> Path:
        from click.testing import CliRunner

        folder = self.base / name
        r = CliRunner().invoke(cli, [*EXPERIMENTS[name], "-j", "1", "-q", "--out", str(folder)])
        assert r.exit_code == 0, r.output
        self[name] = folder
        return folder


#: Under pytest-xdist (--dist loadgroup) this file's tests run in one worker, so its module-scoped
#: fixtures are built once, not once per worker.
pytestmark = pytest.mark.xdist_group("test_experiment_faults")


@pytest.fixture(scope="module")
def references(tmp_path_factory):
    return _References(tmp_path_factory.mktemp("references"))


def read(out: Path) -> dict:
    return json.loads((out / "config.json").read_text())


def on_disk(folder: Path) -> list[list[int]]:
    return store.merge_ranges(store.scan_parts(folder / store.RESULTS).values())


def progress(name: str, out: Path) -> int:
    """Cells complete (sweep, tournament) or rounds measured (--until-ci) so far."""
    try:
        if name == "until":
            return len(read(out)["stopping"]["history"])
        return sum(1 for p in (out / "cells").glob("*/config.json") if json.loads(p.read_text())["status"] == "complete")
    except (OSError, ValueError, KeyError, TypeError):
        return 0


def mid_round(out: Path) -> bool:
    """An --until-ci run between two batches of a round (not between rounds)."""
    try:
        cfg = read(out)
        return len(cfg["stopping"]["history"]) >= 2 and cfg["games_completed"] % 200 != 0
    except (OSError, ValueError, KeyError, TypeError):
        return False


def check_truthful(name: str, out: Path, status: tuple[str, ...]) -> None:
    """The record says what is on disk: the status, and the games of every cell."""
    cfg = read(out)
    assert cfg["status"] in status, cfg["status"]
    assert not (out / ".lock").exists()
    if name == "until":
        assert cfg["games_done"] == on_disk(out)
        assert cfg["stopping"]["decided"] is False and len(cfg["stopping"]["history"]) >= 2
        return
    assert 2 <= sum(c["status"] == "complete" for c in cfg["cells"]) < len(cfg["cells"])
    for cell in cfg["cells"]:
        folder = out / cell["folder"]
        assert cell["games_done"] == on_disk(folder), cell
        if (folder / "config.json").exists():
            own = read(folder)
            assert own["status"] == cell["status"] and own["games_done"] == cell["games_done"], (own, cell)
            assert not (folder / store.LOCK).exists()
        else:
            assert cell["status"] == "pending" and cell["games_done"] == []


def same_as_reference(name: str, out: Path, reference: Path, resumed: bool = True) -> None:
    """Row for row (less the run ids, unique to each run), the report's tables and its findings."""
    if name == "until":
        a, b = pd.read_parquet(reference / "results"), pd.read_parquet(out / "results")
        assert b["run_id"].nunique() == 1  # the rounds and the resumption are one run
    else:
        table = f"{name}.parquet"
        key = {"sweep": "cell", "tournament": "table", "ladder": "level"}[name]
        a, b = pd.read_parquet(reference / table), pd.read_parquet(out / table)
        assert (b.groupby(key)["run_id"].nunique() == 1).all()
    pd.testing.assert_frame_equal(a.drop(columns="run_id"), b.drop(columns="run_id"))
    for f in ("cells.csv", "ranking.csv", "pairwise.csv", "findings.json"):
        if (reference / f).exists():
            assert (out / f).read_text() == (reference / f).read_text(), f
    if name == "ladder":  # (less the decisions per second: timings)
        speed = ["side_dps", "other_dps"]
        pd.testing.assert_frame_equal(pd.read_csv(reference / "levels.csv").drop(columns=speed),
                                      pd.read_csv(out / "levels.csv").drop(columns=speed))
    ra, rb = read(reference)["stopping"], read(out)["stopping"]
    assert ra == rb
    assert read(out)["status"] == "complete" and len(read(out).get("resumed") or []) == int(resumed)


def resume(out: Path) -> None:
    """``analyser resume OUT`` in this process, with one job (the games do not depend on it)."""
    from click.testing import CliRunner

    r = CliRunner().invoke(cli, ["resume", str(out), "-q", "-j", "1"] + (["--no-report"] if "until" in out.name else []))
    assert r.exit_code == 0, r.output


def fault_by_signal(name: str, fault: str, tmp_path: Path) -> tuple[Path, subprocess.CompletedProcess]:
    out = tmp_path / name
    jobs = "2" if fault == "kill" else "1"
    proc = start(*EXPERIMENTS[name], "-j", jobs, "-q", "--out", out)
    try:
        if fault == "kill" and name == "until":  # a worker dies while a round is being played
            wait_for(lambda: mid_round(out) or proc.poll() is not None, 240)
        else:
            wait_for(lambda: progress(name, out) >= 2 or proc.poll() is not None, 240)
        assert proc.poll() is None, "the experiment finished before the fault"
        os.kill(proc.pid, signal.SIGSTOP)
        try:
            if fault == "kill":
                workers = [c for c in children(proc.pid) if "LokyProcess" in Path(f"/proc/{c}/cmdline").read_text()]
                assert workers
                os.kill(workers[0], signal.SIGKILL)
            else:
                os.kill(proc.pid, signal.SIGTERM if fault == "term" else signal.SIGINT)
        finally:
            os.kill(proc.pid, signal.SIGCONT)
        stdout, stderr = proc.communicate(timeout=240)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return out, subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)


def fault_by_full_disk(name: str, tmp_path: Path) -> tuple[Path, subprocess.CompletedProcess]:
    """Play into a tmpfs that fills up after a few cells (or rounds), then copy the folder out."""
    keep = tmp_path / name
    size = {"sweep": "100k", "tournament": "100k", "ladder": "100k", "until": "420k"}[name]
    args = " ".join(f"'{a}'" for a in EXPERIMENTS[name])
    r = in_namespace(f'''
        mount -t tmpfs -o size={size} tmpfs "$M" || exit 99
        "$PY" -m analyser {args} -j 1 -q --out "$M/{name}" 2> "{tmp_path}/err"
        echo "rc=$?"
        cat "{tmp_path}/err" >&2
        cp -r "$M/{name}" "{keep}"
    ''', tmp_path)
    code = int(r.stdout.split("rc=")[1].split()[0]) if "rc=" in r.stdout else -1
    return keep, subprocess.CompletedProcess([], code, r.stdout, r.stderr)


MATRIX = [(name, fault) for name in EXPERIMENTS for fault in EXPECT]
#: One fault of each kind, and each experiment, in the default run; the rest under -m soak.
DEFAULT = {("sweep", "term"), ("tournament", "kill"), ("until", "int"), ("sweep", "full")}


@pytest.mark.parametrize("name, fault", [
    pytest.param(n, f, marks=() if (n, f) in DEFAULT else pytest.mark.soak, id=f"{n}-{f}") for n, f in MATRIX])
def test_fault_keeps_what_is_finished_and_resume_equals_an_uninterrupted_run(references, tmp_path, name, fault):
    if fault == "full":
        if needs_namespace.args[0]:  # (the skip condition of test_stream's full-disk tests)
            pytest.skip(needs_namespace.kwargs["reason"])
        out, r = fault_by_full_disk(name, tmp_path)
    else:
        out, r = fault_by_signal(name, fault, tmp_path)
    needle, code = EXPECT[fault]
    resumed = r.returncode != 0
    if not resumed:  # (a killed worker that had just finished the round's last batch: nothing was lost)
        assert fault == "kill" and name == "until" and read(out)["status"] == "complete"
    else:
        assert r.returncode == code, r.stderr
        line = one_line(r)
        assert needle in line and str(out.name) in line, line
        if fault != "full":  # (a full disk may keep the record it last could write)
            check_truthful(name, out, ("failed",) if code == 1 else ("interrupted",))
        resume(out)
    same_as_reference(name, out, references[name], resumed)


# --------------------------------------------------------------------------------------------
# Resume and report of experiment folders: the cases that are refused, and the API
# --------------------------------------------------------------------------------------------

def invoke(*args):
    from click.testing import CliRunner
    return CliRunner().invoke(cli, [str(a) for a in args])


def refused(r, *needles) -> None:
    lines = [x for x in r.output.splitlines() if x.startswith("analyser:")]
    assert r.exit_code == 2 and len(lines) == 1 and "Traceback" not in r.output, r.output
    assert all(n in lines[0] for n in needles), lines[0]


def test_resume_refuses_what_it_cannot_finish(tmp_path, hold_lock):
    sw = tmp_path / "sw"
    args = ["sweep", "dao", "-s", "threshold:limit=4,8", "-s", "greedy", "-p", "2", "--games", "6", "--seed", "1",
            "-j", "1", "-q", "--no-report", "--out", sw]
    assert invoke(*args).exit_code == 0
    refused(invoke("resume", sw), "complete sweep", "nothing to resume", "analyser report")
    record = read(sw)
    # an unfinished sweep is neither replaced by a new command nor resumed while a process holds it
    (sw / "config.json").write_text(json.dumps({**record, "status": "interrupted"}))
    refused(invoke(*args), "unfinished sweep", "analyser resume")
    holder = subprocess.Popen(["sleep", "60"])
    try:
        with hold_lock(sw, f"{holder.pid} {os.uname().nodename}\n"):
            refused(invoke("resume", sw), "in use", str(holder.pid))
    finally:
        holder.kill()
        holder.wait()
    (sw / ".lock").unlink()
    # a record whose cells do not match its arguments, and one written before experiments resumed
    changed = json.loads(json.dumps(record))
    changed["status"] = "interrupted"
    changed["cells"][1]["strategies"] = ["threshold:limit=5", "greedy"]
    (sw / "config.json").write_text(json.dumps(changed))
    refused(invoke("resume", sw), "cell-0001", "does not match")
    old = {k: v for k, v in record.items() if k not in ("experiment", "cells")}
    (sw / "config.json").write_text(json.dumps({**old, "status": "interrupted"}))
    refused(invoke("resume", sw), "without resumable experiments")
    # a comparison of two run folders plays nothing
    for name in ("r1", "r2"):
        assert invoke("simulate", "dao", "-s", "greedy", "-s", "random", "-p", "2", "--games", "6", "--seed", "5",
                      "-j", "1", "-q", "--no-report", "--out", tmp_path / name).exit_code == 0
    assert invoke("compare", tmp_path / "r1", tmp_path / "r2", "-q", "--out", tmp_path / "c").exit_code == 0
    refused(invoke("resume", tmp_path / "c"), "two run folders", "nothing to resume")


def test_an_experiment_folder_of_the_older_layout_is_one_line_and_exit_2(tmp_path):
    """A folder whose record keeps the command's arguments (layout 1) is neither resumed nor
    reported: one line, exit 2, naming the folder and the command that made it."""
    sw = tmp_path / "sw"
    assert invoke("sweep", "dao", "-s", "threshold:limit=4,8", "-s", "greedy", "-p", "2", "--games", "4",
                  "--seed", "1", "-j", "1", "-q", "--no-report", "--out", sw).exit_code == 0
    record = read(sw)
    command = f"analyser sweep dao -s threshold:limit=4,8 -s greedy --out {sw}"
    record.update(status="interrupted", command=command,
                  experiment={"layout": 1, "arguments": {"game_id": "dao", "games": 4, "seed": 1}})
    (sw / "config.json").write_text(json.dumps(record))
    for args in (("resume", sw), ("report", sw)):
        r = invoke(*args)
        refused(r, repr(str(sw)), command)
        assert r.output.strip().endswith(command)


@pytest.mark.parametrize("where, field, value, accepted", [
    ("record", "players", True, "a whole number of seats from 1 to 1,000"),
    ("cell", "run_id", 5, "text (the run's id)"),
    ("cell", "players", True, "a whole number of seats from 1 to 1,000"),
])
def test_a_hand_edited_cell_record_is_one_line_for_report_and_resume(tmp_path, where, field, value, accepted):
    sw = tmp_path / "sw"
    assert invoke("sweep", "dao", "-s", "threshold:limit=4,8", "-s", "greedy", "-p", "2", "--games", "4", "--seed", "1",
                  "-j", "1", "-q", "--no-report", "--out", sw).exit_code == 0
    record = read(sw)
    record["status"] = "interrupted"
    if where == "record":  # the experiment's own record of its cells
        record["cells"][0][field] = value
    else:  # the cell folder's run record
        own = read(sw / "cells" / "cell-0000")
        (sw / "cells" / "cell-0000" / "config.json").write_text(json.dumps({**own, field: value}))
    (sw / "config.json").write_text(json.dumps(record))
    shown = "true" if value is True else str(value)
    for command in (("report", sw, "--out", tmp_path / "page"), ("resume", sw)):
        refused(invoke(*command), "cell-0000", f"the field {field!r} is {shown}", accepted)


def test_resume_of_a_sweep_names_a_damaged_part_of_a_cell(tmp_path):
    args = ["sweep", "dao", "-s", "threshold:limit=4,8", "-s", "greedy", "-p", "2", "--games", "20", "--seed", "2",
            "-j", "1", "-q", "--no-report", "--batch-size", "5"]
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    assert invoke(*args, "--out", whole).exit_code == 0
    assert invoke(*args, "--out", cut).exit_code == 0
    part = sorted((cut / "cells" / "cell-0001" / "results").glob("part-*.parquet"))[1]
    part.write_bytes(b"garbage")
    record = read(cut)
    record["status"] = "interrupted"
    (cut / "config.json").write_text(json.dumps(record))
    r = invoke("resume", cut)
    assert r.exit_code == 0, r.output
    assert f"analyser: note: part '{part}' is damaged or not an analyser part" in r.output
    a, b = pd.read_parquet(whole / "sweep.parquet"), pd.read_parquet(cut / "sweep.parquet")
    pd.testing.assert_frame_equal(a.drop(columns="run_id"), b.drop(columns="run_id"))


def test_report_rebuilds_an_interrupted_sweep_from_its_cells_and_resume_finishes_it(tmp_path):
    """A sweep cut short after its first cell: `report` rebuilds the page of the finished cell
    (saying the sweep is unfinished), and `resume` plays the rest and equals one whole sweep."""
    import shutil

    args = ["sweep", "dao", "-s", "threshold:limit=4,8", "-s", "greedy", "-p", "2", "--games", "10", "--seed", "2",
            "-j", "1", "-q"]
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    assert invoke(*args, "--out", whole).exit_code == 0
    assert invoke(*args, "--out", cut).exit_code == 0
    record = read(cut)
    shutil.rmtree(cut / "cells" / "cell-0001")
    record["cells"][1].update(status="pending", games_done=[])
    record["status"] = "interrupted"
    (cut / "config.json").write_text(json.dumps(record))
    r = invoke("report", cut)
    assert r.exit_code == 0, r.output
    assert "Sweep interrupted" in (cut / "index.html").read_text()
    assert set(pd.read_parquet(cut / "sweep.parquet")["cell"]) == {0}
    r = invoke("resume", cut, "-q")
    assert r.exit_code == 0, r.output
    a, b = pd.read_parquet(whole / "sweep.parquet"), pd.read_parquet(cut / "sweep.parquet")
    pd.testing.assert_frame_equal(a.drop(columns="run_id"), b.drop(columns="run_id"))
    assert (whole / "cells.csv").read_text() == (cut / "cells.csv").read_text()
    assert "Sweep interrupted" not in (cut / "index.html").read_text()


def test_the_experiment_api_of_the_docstring(tmp_path):
    """The example in analyser.experiments.base, as a kind of one's own would use it."""
    import dataclasses

    from analyser.experiments.base import Cell, Experiment, Session
    from analyser.run import RunSpec, run

    spec = RunSpec("dao", ["greedy", "threshold"], players=2, games=40, seed=7, jobs=1)
    cells = [Cell("low", dataclasses.replace(spec, rules={"bust_limit": "10"})),
             Cell("high", dataclasses.replace(spec, rules={"bust_limit": "14"}))]
    out = tmp_path / "limits"
    with Experiment.begin(Session(out), "limits", cells, run=spec, fields={"game": "dao", "seed": 7}) as exp:
        outcome = exp.play(jobs=1, games=40, players=2)
        frames = [exp.results(k) for k in range(len(cells))]
    assert outcome.status == "complete" and outcome.error is None
    assert [c["status"] for c in read(out)["cells"]] == ["complete", "complete"]
    assert (out / "cells" / "high" / "results").is_dir() and not (out / ".lock").exists()
    for cell, frame in zip(cells, frames):
        alone = run(dataclasses.replace(cell.spec), progress=False).results
        pd.testing.assert_frame_equal(frame.drop(columns="run_id"), alone.drop(columns="run_id"))
    # resumed with the same cells: nothing is missing, nothing is played
    with Experiment.begin(Session(out, resume=True), "limits", cells) as exp:
        assert exp.play(jobs=1, games=40, players=2).status == "complete"
    assert len(read(out)["resumed"]) == 1 and read(out / "cells" / "low").get("resumed") is None


def test_a_handed_over_experiment_loads_no_file_its_record_names(tmp_path, monkeypatch):
    """The trust rule of resume and report holds for an experiment folder too: a strategy file
    its record names is loaded only when the command line names it (or says --trust)."""
    import shutil

    from analyser.run import trust

    (tmp_path / "bots.py").write_text("import pathlib as _p\n_p.Path(__file__).parent.joinpath('ran').write_text('')\n"
                                      "def choose(view, legal, rng):\n    return legal[0]\n")
    sw = tmp_path / "sw"
    r = subprocess.run([sys.executable, "-m", "analyser", "sweep", "dao", "-s", str(tmp_path / "bots.py"), "-s", "greedy",
                        "--rule", "bust_limit=10,12", "-p", "2", "--games", "6", "--seed", "1", "-j", "1", "-q",
                        "--no-report", "--out", str(sw)], capture_output=True, text=True, timeout=240)
    assert r.returncode == 0, r.stderr
    record = read(sw)
    shutil.rmtree(sw / "cells" / "cell-0001")
    record["cells"][1].update(status="pending", games_done=[])
    (sw / "config.json").write_text(json.dumps({**record, "status": "interrupted"}))
    (tmp_path / "ran").unlink()
    monkeypatch.setattr(trust, "_TRUSTED_FILES", set())
    refused(invoke("resume", sw), "strategy file", "--strategy", "--trust")
    refused(invoke("report", sw), "strategy file", "--trust")
    assert not (tmp_path / "ran").exists() and not (sw / "cells" / "cell-0001").exists()
    r = invoke("resume", sw, "--strategy", tmp_path / "bots.py", "-q", "--no-report")
    assert r.exit_code == 0, r.output
    assert (tmp_path / "ran").exists() and read(sw)["status"] == "complete"


# --------------------------------------------------------------------------------------------
# A tournament stopped by SIGTERM: halfway through its tables, during its last table, and while
# its files are being written; `resume` finishes each one as one uninterrupted tournament
# --------------------------------------------------------------------------------------------

#: 4 strategies at 2 seats: 6 tables x 40 games
SMALL_TOURNAMENT = ["tournament", "dao", "-s", "greedy", "-s", "colour", "-s", "random", "-s", "threshold:limit=9",
                    "-p", "2", "--games", "240", "--seed", "8", "--batch-size", "10"]


@pytest.fixture(scope="module")
def small_tournament(tmp_path_factory):
    out = tmp_path_factory.mktemp("reference") / "t"
    r = invoke(*SMALL_TOURNAMENT, "-j", "1", "-q", "--out", out)
    assert r.exit_code == 0, r.output
    return out


def same_tournament(out: Path, reference: Path) -> None:
    a, b = pd.read_parquet(reference / "tournament.parquet"), pd.read_parquet(out / "tournament.parquet")
    pd.testing.assert_frame_equal(a.drop(columns="run_id"), b.drop(columns="run_id"))
    for f in ("ranking.csv", "pairwise.csv", "metagame.csv", "findings.json"):
        assert (out / f).read_text() == (reference / f).read_text(), f
    assert read(out)["status"] == "complete" and all((out / f).is_file() for f in read(out)["files"])


@pytest.mark.parametrize("tables_done", [3, pytest.param(5, marks=pytest.mark.soak)])  # halfway; the last table
def test_sigterm_between_tables_and_resume_equals_the_whole_tournament(small_tournament, tmp_path, tables_done):
    out = tmp_path / "t"
    proc = start(*SMALL_TOURNAMENT, "-j", "1", "-q", "--out", out)
    try:
        wait_for(lambda: progress("tournament", out) >= tables_done or proc.poll() is not None, 240)
        if proc.poll() is not None:  # (a loaded machine may let it finish first: nothing to check then)
            pytest.skip("the tournament finished before the signal")
        os.kill(proc.pid, signal.SIGTERM)
        stdout, stderr = proc.communicate(timeout=240)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    r = subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)
    if r.returncode == 0:  # the signal came after the last write: nothing was cut
        return same_tournament(out, small_tournament)
    assert r.returncode == 143, r.stderr
    # a signal that lands in a table's final write is first told that the write finishes
    lines = [x for x in r.stderr.splitlines() if x.startswith("analyser:")]
    assert len(lines) in (1, 2) and "Traceback" not in r.stderr, r.stderr
    assert "interrupted (SIGTERM)" in lines[-1]
    cfg = read(out)
    if cfg["status"] != "complete":  # (else it stopped while writing its files: the case below)
        assert cfg["status"] == "interrupted" and tables_done <= sum(c["status"] == "complete" for c in cfg["cells"]) < 6
    resume(out)
    same_tournament(out, small_tournament)


def test_sigterm_while_the_tables_are_written_and_resume_writes_them(small_tournament, tmp_path):
    """The signal lands as the ranking table is written, after every game is on disk."""
    out = tmp_path / "t"
    hook = ("import os, signal, sys\n"
            "import analyser.experiments.tournament as t\n"
            "write = t.to_csv\n"
            "def stopped(*a, **k):\n"
            "    os.kill(os.getpid(), signal.SIGTERM)\n"
            "    return write(*a, **k)\n"
            "t.to_csv = stopped\n"
            "from analyser.cli import main\n"
            "sys.argv = ['analyser'] + sys.argv[1:]\n"
            "main()\n")
    r = subprocess.run([sys.executable, "-c", hook, *SMALL_TOURNAMENT, "-j", "1", "-q", "--out", str(out)],
                       capture_output=True, text=True, timeout=240)
    assert r.returncode == 143, r.stderr
    line = one_line(r)
    assert "interrupted (SIGTERM) while writing the report" in line and str(out) in line, line
    assert read(out)["status"] == "complete" and "files" not in read(out)
    assert not (out / "index.html").exists()
    resume(out)
    same_tournament(out, small_tournament)
    refused(invoke("resume", out), "complete tournament", "nothing to resume")  # now written to the end


STOPPED_AFTER_PLAY = {  # an experiment, and a function it calls after its games are played, outside its writes
    "sweep": (["sweep", "dao", "-s", "threshold:limit=4,6", "-s", "greedy", "-p", "2", "--games", "20", "--seed", "3"],
              "analyser.experiments.sweep", "combine"),
    "tournament": (["tournament", "dao", "-s", "greedy", "-s", "colour", "-s", "random", "-p", "2", "--games", "24",
                    "--seed", "8"], "analyser.experiments.tournament", "rate"),
    "ladder": (["ladder", "dao", "--budgets", "1..4", "-p", "2", "--games", "6", "--seed", "3"],
               "analyser.experiments.ladder", "level_table"),
}


@pytest.mark.parametrize("name", list(STOPPED_AFTER_PLAY))
def test_sigterm_as_the_report_is_computed_names_the_command_that_writes_it(tmp_path, name):
    """It said only "analyser: interrupted": now the one line ends with the command to run, and
    that command writes the report."""
    import shlex

    args, module, function = STOPPED_AFTER_PLAY[name]
    out = tmp_path / name
    hook = ("import os, signal, sys\n"
            f"import {module} as m\n"
            f"real = m.{function}\n"
            "def stopped(*a, **k):\n"
            "    os.kill(os.getpid(), signal.SIGTERM)\n"
            "    return real(*a, **k)\n"
            f"m.{function} = stopped\n"
            "from analyser.cli import main\n"
            "sys.argv = ['analyser'] + sys.argv[1:]\n"
            "main()\n")
    r = subprocess.run([sys.executable, "-c", hook, *args, "-j", "1", "-q", "--out", str(out)],
                       capture_output=True, text=True, timeout=240)
    assert r.returncode == 143, r.stderr
    assert read(out)["status"] == "complete" and not (out / "index.html").exists()
    named = one_line(r).rsplit(": ", 1)[1]
    assert shlex.split(named) == ["analyser", "report", str(out)]
    done = invoke(*shlex.split(named)[1:], "-q")
    assert done.exit_code == 0, done.output
    assert (out / "index.html").is_file()
