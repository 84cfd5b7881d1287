"""Faults a break-it pass found at the edges: each refused or handled as the rest of its kind, with
exit codes and records checked (not wording)."""

import json
import shutil

import pytest
from click.testing import CliRunner

from analyser.cli import cli
from analyser.io.records import RunRecord, check_record
from analyser.run.stops import GIVE_UP_AFTER

#: Under pytest-xdist (--dist loadgroup) this file's tests run in one worker, so its module-scoped
#: fixtures are built once.
pytestmark = pytest.mark.xdist_group("test_edges_faults")


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def error_line(result, code=2) -> str:
    """The one line of a refusal (exit ``code``, no traceback)."""
    lines = [x for x in result.output.splitlines() if x.strip()]
    assert result.exit_code == code and len(lines) == 1, result.output
    assert lines[0].startswith("analyser: error: ") and "Traceback" not in result.output
    return lines[0]


def simulate(out, *extra):
    result = invoke("simulate", "dao", "-s", "greedy", "-s", "random", "-n", "6", "-j", "1", "-q", "--no-report",
                    "--seed", "1", "--batch-size", "3", "--out", out, *extra)
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    """Two finished 6-game DAO runs of the same seed (so the same games, another run id), parts of 3 games."""
    root = tmp_path_factory.mktemp("two_runs")
    return simulate(root / "a"), simulate(root / "b")


def interrupted_copy(src, dst):
    shutil.copytree(src, dst)
    config = json.loads((dst / "config.json").read_text())
    (dst / "config.json").write_text(json.dumps({**config, "status": "interrupted"}))
    return dst


# -- one check of a part of another run, for resume and report ------------------------------------

def test_resume_and_report_refuse_a_part_of_another_run_with_one_line(two_runs, tmp_path):
    a, b = two_runs
    run = interrupted_copy(a, tmp_path / "mixed")
    part = sorted((run / "results").glob("part-*.parquet"))[1]
    shutil.copyfile(b / "results" / part.name, part)
    lines = {command: error_line(invoke(command, run, "-q")) for command in ("resume", "report")}
    assert lines["resume"] == lines["report"]  # one check, from one place
    assert repr(str(part)) in lines["report"]
    assert json.loads((run / "config.json").read_text())["status"] == "interrupted"  # nothing written


def test_an_edited_run_id_is_refused_by_resume_and_report_alike(two_runs, tmp_path):
    a, _ = two_runs
    run = interrupted_copy(a, tmp_path / "edited")
    config = json.loads((run / "config.json").read_text())
    (run / "config.json").write_text(json.dumps({**config, "run_id": config["run_id"] + "-x"}))
    first = sorted((run / "results").glob("part-*.parquet"))[0]
    lines = {command: error_line(invoke(command, run, "-q")) for command in ("resume", "report")}
    assert lines["resume"] == lines["report"] and repr(str(first)) in lines["resume"]


# -- a run record's games_requested below the games already played --------------------------------

@pytest.mark.parametrize("command", ["resume", "report"])
def test_games_requested_below_the_games_played_is_refused(two_runs, tmp_path, command):
    a, _ = two_runs
    run = interrupted_copy(a, tmp_path / "fewer")
    config = json.loads((run / "config.json").read_text())
    assert config["games_completed"] == 6
    (run / "config.json").write_text(json.dumps({**config, "games_requested": 5}))
    line = error_line(invoke(command, run, "-q"))
    assert repr(str(run / "config.json")) in line and "'games_requested' is 5" in line
    assert json.loads((run / "config.json").read_text())["status"] == "interrupted"  # nothing played or written
    assert not (run / "index.html").exists()
    # the games played are still allowed, and more
    for games in (6, 9):
        assert check_record(RunRecord, {**config, "games_requested": games}, "x").games_requested == games


# -- a count of one reads in the singular -------------------------------------------------------

@pytest.mark.parametrize("x, unit, shown", [
    (1, "points", "1 point"), (1.0, "turns afloat", "1 turn afloat"), (2, "royals", "2 royals"),
    (0.5, "points", "0.5 points"), (1, "geld", "1 geld"), (1000, "points", "1000 points")])
def test_an_amount_of_one_takes_the_singular_unit(x, unit, shown):
    from analyser.text import amount
    assert amount(x, unit) == shown


def test_the_report_of_one_game_says_no_count_of_one_in_the_plural(tmp_path):
    import re
    out = tmp_path / "one"
    result = invoke("simulate", "dao", "-s", "greedy", "-s", "random", "-n", "1", "-j", "1", "-q", "--seed", "1",
                    "--out", out)
    assert result.exit_code == 0, result.output
    html = (out / "index.html").read_text()
    assert re.findall(r"\b1 (games|points|royals|trials|components|seats)\b", html) == []
    assert re.findall(r"\b1 (game|point)\b", html)  # (the counts are there, in the singular)


# -- the watchdog's message names the game once -------------------------------------------------

STUBBORN = '''
import time
from analyser.engine.core import Strategy


class Stubborn(Strategy):
    """Swallows the time limit's stop and goes on: only the watchdog ends it."""
    name = "stubborn"

    def choose(self, view, legal, rng):
        while True:
            try:
                while True:
                    time.sleep(0.01)
            except BaseException:
                pass


STRATEGIES = [Stubborn]
'''


def test_the_watchdogs_message_names_the_game_once(tmp_path):
    import re
    bot = tmp_path / "stubborn.py"
    bot.write_text(STUBBORN)
    out = tmp_path / "run"
    result = invoke("simulate", "dao", "-s", bot, "-s", "random", "-n", "2", "-j", "1", "-q", "--no-report",
                    "--game-timeout", "0.2", "--seed", "1", "--out", out)
    line = next(x for x in result.output.splitlines() if x.startswith("analyser: error: "))
    assert result.exit_code == 1
    assert re.findall(r"\bgame \d+\b", line.split(" Replay: ")[0]) == ["game 0"]
    assert json.loads((out / "config.json").read_text())["status"] == "failed"


# -- one rule for the decimals of a seat's win rate ----------------------------------------------

@pytest.mark.parametrize("games, shown", [(30, ["50%", "47%"]), (3000, ["50.0%", "47.0%"]),
                                          (300_000, ["50.00%", "47.00%"])])
def test_the_compensation_table_shows_win_rates_as_the_seat_table_does(games, shown):
    import numpy as np
    import pandas as pd

    from analyser.report.seats import compensation_display, win_decimals
    from analyser.stats.analysis import format_table
    rate = np.array([0.5, 0.47])
    half = 1.96 * np.sqrt(rate * (1 - rate) / games)
    seats = pd.DataFrame({"seat": [0, 1], "n": [games] * 2, "win_rate": rate, "win_low": rate - half,
                          "win_high": rate + half})
    comp = pd.DataFrame({"seat": [0, 1], "win_rate": rate, "fair_share": [0.5, 0.5], "handicap": [0.0, 1.0],
                         "handicap_low": [-1.0, 0.0], "handicap_high": [1.0, 2.0], "win_at_handicap": [0.5, 0.5],
                         "tie_share": [np.nan, np.nan]})
    assert list(format_table(seats)["win rate"]) == shown
    assert list(compensation_display(comp, "points", win_decimals(seats))["win rate"]) == shown


# -- the luck finding is never clear on a handful of games or a zero-width interval --------------

@pytest.mark.parametrize("skill, strength", [
    ({"skill_share": 0.0, "skill_low": 0.0, "skill_high": 0.0, "games": 7}, "possible"),
    ({"skill_share": 0.0, "skill_low": 0.0, "skill_high": 0.01, "games": 7}, "possible"),
    ({"skill_share": 0.0, "skill_low": 0.0, "skill_high": 0.0, "games": 500}, "possible"),
    ({"skill_share": 0.0, "skill_low": 0.0, "skill_high": 0.01, "games": 500}, "clear"),
    ({"skill_share": 0.7, "skill_low": 0.7, "skill_high": 0.7, "games": 500}, "possible"),
    ({"skill_share": 0.7, "skill_low": 0.6, "skill_high": 0.8, "games": 19}, "possible"),
    ({"skill_share": 0.7, "skill_low": 0.6, "skill_high": 0.8, "games": 20}, "clear")])
def test_the_luck_finding_needs_games_and_an_interval_to_be_clear(skill, strength):
    from analyser.findings.run import CLEAR_MIN_GAMES, luck_rows
    assert CLEAR_MIN_GAMES == 20
    (f,) = luck_rows(skill, players=2, strategies=2)
    assert f.strength == strength
    # the evidence states the interval, the threshold the minimum sample
    assert f.interval.endswith("%") and "-" in f.interval and str(CLEAR_MIN_GAMES) in f.threshold


# -- a second Ctrl-C ends a run whose strategy ignores the first ---------------------------------

DEAF = '''
import os
import time
from pathlib import Path

from analyser.engine.core import Strategy

CALLS = [0]


class Deaf(Strategy):
    """Plays its first move at once for a few games, then writes the gate file and loops for ever,
    swallowing every stop; the first stop it swallows, it notes in the file ``DEAF_GATE.caught``
    with the time it came (``time.monotonic``, the clock of the stop handler)."""
    name = "deaf"

    def choose(self, view, legal, rng):
        CALLS[0] += 1
        gate = Path(os.environ["DEAF_GATE"])
        caught = gate.with_suffix(".caught")
        if CALLS[0] > 300 and not gate.exists():
            gate.write_text("looping")
            while True:
                try:
                    while True:
                        pass
                except BaseException:
                    if not caught.exists():
                        caught.write_text(repr(time.monotonic()))
        return legal[0]


STRATEGIES = [Deaf]
'''


def test_a_second_ctrl_c_ends_a_run_whose_strategy_ignores_the_first(tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time
    (tmp_path / "deaf.py").write_text(DEAF)
    gate, out = tmp_path / "gate", tmp_path / "run"
    proc = subprocess.Popen([sys.executable, "-m", "analyser", "simulate", "dao", "-s", "./deaf.py", "-s", "random",
                             "-n", "40", "--batch-size", "2", "-j", "1", "--game-timeout", "0", "--seed", "1",
                             "--out", str(out), "-q", "--no-report"], cwd=tmp_path,
                            env={**os.environ, "DEAF_GATE": str(gate)}, stderr=subprocess.PIPE, text=True)
    caught = gate.with_suffix(".caught")
    try:
        deadline = time.monotonic() + 120
        while not gate.exists():  # (wait on the file: the strategy is in its loop once it exists)
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        while not caught.exists():  # (wait on the file: the first stop was raised, and swallowed)
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        # the play goes on; the second Ctrl-C comes once the first is GIVE_UP_AFTER old on the
        # handler's own clock (one that comes sooner is a double tap, which lets the play finish)
        while time.monotonic() < float(caught.read_text()) + GIVE_UP_AFTER:
            time.sleep(0.05)
        assert proc.poll() is None
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=60) == 130
    finally:
        proc.kill()
    stderr = proc.stderr.read()
    assert "Traceback" not in stderr and len([x for x in stderr.splitlines() if x.strip()]) == 1
    # the finished batches are on disk, and resume plays the rest of the run
    parts = sorted(p.name for p in (out / "results").glob("part-*.parquet"))
    assert parts and parts[0] == "part-000000000.parquet"
    result = subprocess.run([sys.executable, "-m", "analyser", "resume", str(out), "--strategy", "./deaf.py", "-q",
                             "--no-report"], cwd=tmp_path, env={**os.environ, "DEAF_GATE": str(gate)},
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    config = json.loads((out / "config.json").read_text())
    assert (config["status"], config["games_completed"]) == ("complete", 40)


# -- a run's status is one a run writes -----------------------------------------------------------

@pytest.mark.parametrize("command", ["report", "resume"])
@pytest.mark.parametrize("status", ["weird", "", "complete; deleted", 3])
def test_a_status_no_run_writes_is_refused(two_runs, tmp_path, command, status):
    a, _ = two_runs
    run = shutil.copytree(a, tmp_path / "odd")
    config = json.loads((run / "config.json").read_text())
    (run / "config.json").write_text(json.dumps({**config, "status": status}))
    line = error_line(invoke(command, run, "-q"))
    assert repr(str(run / "config.json")) in line and "'status'" in line
    assert not (run / "index.html").exists()


@pytest.mark.parametrize("status", ["running", "complete", "interrupted", "failed", "report failed",
                                    "interrupted; report failed", "failed; report failed", None])
def test_every_status_a_run_writes_is_read(two_runs, status):
    config = json.loads((two_runs[0] / "config.json").read_text())
    assert check_record(RunRecord, {**config, "status": status}, "x").status == status
