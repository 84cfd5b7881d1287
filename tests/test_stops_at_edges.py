"""Stops at the edges of a command (a break-it pass): a Ctrl-C as a run ends, while the worker
pool stops, while the command's modules load; the lock message; a damaged part's message; a
hand-edited record of games."""

from __future__ import annotations

import json
import pytest
from click.testing import CliRunner

from analyser.cli import cli


def _simulate(out, *extra):
    return ["simulate", "dao", "-s", "greedy", "-s", "random", "--games", "40", "--seed", "1", "-j", "1", "-q",
            "--no-report", "--out", str(out), *extra]


def test_a_ctrl_c_as_the_run_ends_names_the_command_that_goes_on(tmp_path, monkeypatch):
    """It was a bare "analyser: interrupted" (the --until-ci rule had decided, nothing said the
    report was missing); now the line says what the folder holds and what to run."""
    import analyser.run as runs

    real = runs.run

    def then_interrupted(*a, **k):
        real(*a, **k)
        raise KeyboardInterrupt

    monkeypatch.setattr(runs, "run", then_interrupted)
    out = tmp_path / "r"
    r = CliRunner().invoke(cli, _simulate(out))
    assert r.exit_code == 130
    assert r.stderr == (f"analyser: interrupted after the run's 40 games were written to {out}; write its report "
                        f"with: analyser report {out}\n")

    def at_once(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(runs, "run", at_once)
    out = tmp_path / "n"
    r = CliRunner().invoke(cli, _simulate(out))
    assert r.exit_code == 130 and r.stderr == f"analyser: interrupted; nothing was recorded in {out}\n"

    def half(spec, **k):  # (a run cut short whose own handling the stop escaped)
        import dataclasses
        real(dataclasses.replace(spec, games=20), **k)
        cfg = json.loads((out / "config.json").read_text())
        cfg["status"] = "interrupted"
        (out / "config.json").write_text(json.dumps(cfg))
        raise KeyboardInterrupt

    monkeypatch.setattr(runs, "run", half)
    out = tmp_path / "h"
    r = CliRunner().invoke(cli, _simulate(out))
    assert r.exit_code == 130
    assert r.stderr == f"analyser: interrupted after 20 games; they are in {out}; continue with: analyser resume {out}\n"


def test_a_ctrl_c_while_the_worker_pool_stops_is_one_line_with_the_stop_exit_code(monkeypatch, capsys):
    """A Ctrl-C in the last second of a -j 2 command landed in loky's exit hook: "Exception
    ignored" with a 12-line traceback, and exit code 0.  The pool is now stopped inside the
    command's handling."""
    from analyser.cli import common

    calls = []

    class Pool:
        def __init__(self, stop):
            self.stop = stop

        def shutdown(self, wait):
            calls.append(wait)
            if self.stop:
                raise KeyboardInterrupt

    from joblib.externals.loky import reusable_executor

    monkeypatch.setattr(reusable_executor, "_executor", Pool(False))
    common._stop_worker_pool(0)  # (a pool that stops: nothing said, the command's exit code stands)
    assert calls == [True] and capsys.readouterr().err == ""
    monkeypatch.setattr(reusable_executor, "_executor", Pool(True))
    with pytest.raises(SystemExit) as stop:
        common._stop_worker_pool(0)
    assert stop.value.code == 130
    assert capsys.readouterr().err == ("analyser: interrupted while the worker processes were stopped; the command "
                                       "had finished its work\n")
    with pytest.raises(SystemExit) as stop:  # (a command that failed keeps its own exit code)
        common._stop_worker_pool(2)
    assert stop.value.code == 2


def test_a_ctrl_c_while_the_command_loads_is_one_line(monkeypatch, capsys):
    """A Ctrl-C in the first second (while pandas and the rest load) printed a 30-line traceback."""
    import analyser.__main__ as entry
    import analyser.cli

    def loading(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(analyser.cli, "main", loading)
    with pytest.raises(SystemExit) as stop:
        entry.main()
    assert stop.value.code in (130, 143)  # (143 once this process has had a SIGTERM, as stop_exit_code says)
    assert capsys.readouterr().err.startswith("analyser: interrupted")


def test_a_lock_of_a_live_process_says_how_to_free_the_folder(tmp_path, hold_lock):
    """A folder copied from another machine, or a PID reused after a restart, left a lock with no
    remedy in the message."""
    from analyser.run import store

    out = tmp_path / "r"
    assert CliRunner().invoke(cli, _simulate(out)).exit_code == 0
    cfg = json.loads((out / "config.json").read_text())
    cfg["status"] = "interrupted"  # (a run to resume)
    (out / "config.json").write_text(json.dumps(cfg))
    lock = str(out / store.LOCK)
    with hold_lock(out, "1 elsewhere-host\n"):
        r = CliRunner().invoke(cli, ["resume", str(out), "-q", "--no-report"])
        assert r.exit_code == 2
        assert r.output.strip().endswith("is in use by another analyser run (PID 1 on elsewhere-host); wait for it "
                                         "to stop"), r.output
        r = CliRunner().invoke(cli, _simulate(out))
        assert r.exit_code == 2
        assert r.output.strip().endswith("(PID 1 on elsewhere-host); wait for it, choose another folder"), r.output
        assert lock not in r.output  # (removing the file of a live lock would not free the folder)


def test_a_part_with_damaged_data_and_a_hand_edited_record(tmp_path):
    """A part whose footer reads but whose data does not said only "cannot be read: OSError"; a
    record claiming more games than the run asked for printed a false note and replayed nothing."""
    out = tmp_path / "r"
    assert CliRunner().invoke(cli, _simulate(out, "--batch-size", "20")).exit_code == 0
    part = sorted((out / "results").glob("part-*.parquet"))[1]
    data = bytearray(part.read_bytes())
    data[3000:3060] = b"X" * 60
    part.write_bytes(bytes(data))
    r = CliRunner().invoke(cli, ["report", str(out)])
    assert r.exit_code == 2
    assert r.output.strip().endswith(f"part {str(part)!r} cannot be read: OSError; its data is damaged: remove it, "
                                     f"and `analyser resume {out}` plays its games again"), r.output
    part.unlink()
    assert CliRunner().invoke(cli, ["resume", str(out), "-q", "--no-report"]).exit_code == 0
    cfg = json.loads((out / "config.json").read_text())
    assert cfg["games_done"] == [[0, 40]] and cfg["status"] == "complete"
    cfg["games_done"] = [[0, 40], [40, 80]]  # (edited by hand: more than the 40 games asked for)
    (out / "config.json").write_text(json.dumps(cfg))
    r = CliRunner().invoke(cli, ["resume", str(out), "-q", "--no-report"])
    assert r.exit_code == 2 and "holds a complete run (40 games); nothing to resume" in r.output, r.output


def test_a_part_lost_from_an_until_ci_run_is_said_as_it_is(tmp_path):
    """The message advised "remove the stray part" where there was none; resume cannot replay a
    lost part of a run played in rounds, so the message says to restore it or play the run again."""
    out = tmp_path / "u"
    r = CliRunner().invoke(cli, _simulate(out, "--until-ci", "0.01", "--games", "400"))
    assert r.exit_code == 0, r.output
    parts = sorted((out / "results").glob("part-*.parquet"))
    parts[1].unlink()
    r = CliRunner().invoke(cli, ["report", str(out)])
    assert r.exit_code == 2
    assert r.output.strip().endswith("as done: a part is missing; restore it (a run played in --until-ci rounds "
                                     "cannot play a lost part again: play the run again)"), r.output


def _hooked(hook: str, *args) -> "subprocess.CompletedProcess":
    """``python -m analyser ARGS`` in a fresh process after ``hook`` (Python) has run."""
    import subprocess
    import sys
    code = hook + "\nfrom analyser.cli import main\nsys.argv = ['analyser'] + sys.argv[1:]\nmain()\n"
    return subprocess.run([sys.executable, "-c", "import os, signal, sys\n" + code, *map(str, args)],
                          capture_output=True, text=True, timeout=300)


def test_resume_after_a_sigkill_in_the_report_phase_names_analyser_report(tmp_path):
    """A SIGKILL while the report is built leaves a complete run with no report; resume refused
    without a next step, and now names the command that writes it."""
    import shlex
    out = tmp_path / "r"
    killed = _hooked("import analyser.report.page as p\n"
                     "p.build_report_from_run = lambda *a, **k: os.kill(os.getpid(), signal.SIGKILL)",
                     "simulate", "dao", "-s", "greedy", "-s", "random", "--games", "40", "--seed", "1", "-j", "1",
                     "-q", "--out", out)
    assert killed.returncode == -9
    assert json.loads((out / "config.json").read_text())["status"] == "complete"
    assert not (out / "index.html").exists()
    r = CliRunner().invoke(cli, ["resume", str(out)])
    assert r.exit_code == 2 and len(r.output.strip().splitlines()) == 1, r.output
    named = shlex.split(r.output.strip().rsplit(": ", 1)[1])
    assert named == ["analyser", "report", str(out)]
    r = CliRunner().invoke(cli, [*named[1:], "-q"])
    assert r.exit_code == 0, r.output
    assert (out / "index.html").is_file()


SWALLOWER = '''
import os, signal
from analyser.engine.core import Strategy
from analyser.titles.dao.rules import TAKE, REVEAL


class Swallower(Strategy):
    """Plays like a threshold bot; after STOP_AFTER decisions it sends its own process SIGTERM
    inside a block that catches everything (as a library may), so the stop's raise is lost."""
    name = "swallower"
    uses_rng = False
    calls = 0
    def choose(self, view, legal, rng):
        type(self).calls += 1
        if type(self).calls == int(os.environ.get("STOP_AFTER", "0") or 0):
            try:
                os.kill(os.getpid(), signal.SIGTERM)
                sum(range(1000))  # (the handler runs here, and its raise is swallowed)
            except BaseException:
                pass
        return REVEAL if view.total < 8 else TAKE
'''


def test_sigterm_in_a_jobs_1_run_stops_at_the_next_game_and_writes_no_report(tmp_path):
    """SIGTERM to a --jobs 1 run took 50 s: its raise was lost inside a game, the run played its
    batch to the end, then built the whole report.  Now it ends after the game in progress, with
    the finished games written, no report, and the line names the command that goes on."""
    import os
    import shlex
    import subprocess
    import sys
    bots = tmp_path / "swallow.py"
    bots.write_text(SWALLOWER)
    out = tmp_path / "r"
    args = ["simulate", "dao", "-p", "2", "-s", "greedy", "-s", f"{bots}:swallower", "--games", "400",
            "--batch-size", "400", "--seed", "3", "-j", "1", "-q", "--out", str(out)]
    r = subprocess.run([sys.executable, "-m", "analyser", *args], capture_output=True, text=True, timeout=300,
                       env={**os.environ, "STOP_AFTER": "30"})
    assert r.returncode == 143, r.stderr
    cfg = json.loads((out / "config.json").read_text())
    assert cfg["status"] == "interrupted" and 0 < cfg["games_completed"] < 400
    assert not (out / "index.html").exists() and not (out / "summary.csv").exists()
    lines = [x for x in r.stderr.splitlines() if x.startswith("analyser:")]
    assert len(lines) == 1, r.stderr
    command = shlex.split(lines[0].split("continue with: ")[1])
    assert command == ["analyser", "resume", str(out), "--strategy", str(bots)]
    r = CliRunner().invoke(cli, [*command[1:], "-q", "--no-report"])  # (in this process: the signal was the run's)
    assert r.exit_code == 0, r.output
    assert json.loads((out / "config.json").read_text())["games_completed"] == 400


@pytest.mark.parametrize("size", ["40k", "120k"])  # a part of the title's extra table, and of the results
def test_a_full_disk_in_simulate_is_one_line_naming_resume(tmp_path, size):
    """The disk-full message did not say to resume, and one case printed a second line (the
    report's failure): now one line ending with the command that goes on."""
    import shlex
    from test_stream import in_namespace, needs_namespace
    if needs_namespace.args[0]:
        pytest.skip(needs_namespace.kwargs["reason"])
    keep = tmp_path / "copy"
    r = in_namespace(f'''
        mount -t tmpfs -o size={size} tmpfs "$M" || exit 99
        "$PY" -m analyser simulate dao -p 2 -s greedy -s threshold -n 3000 --seed 11 -j 1 --batch-size 100 \\
            --out "$M/run" -q 2> "{tmp_path}/err"
        echo "rc=$?"
        cp -r "$M/run" "{keep}"
    ''', tmp_path)
    assert "rc=1" in r.stdout, r.stdout + r.stderr
    err = (tmp_path / "err").read_text()
    lines = [x for x in err.splitlines() if x.strip()]
    assert len(lines) == 1 and lines[0].startswith("analyser: error: "), err
    assert shlex.split(lines[0].split("continue with: ")[1]) == ["analyser", "resume", str(tmp_path / "mnt" / "run")]
    assert json.loads((keep / "config.json").read_text())["status"] in ("failed", "running")
    r = CliRunner().invoke(cli, ["resume", str(keep), "-q", "--no-report"])
    assert r.exit_code == 0, r.output
    assert json.loads((keep / "config.json").read_text())["games_completed"] == 3000
