"""Nothing is overwritten silently (issue 22): default output folders are new timestamped
folders for every command; a folder holding another kind of output is refused in one line; a
folder replaced by the same kind of output is said on one line, even under --quiet."""

import json

import pytest

from analyser.cli import cli

SIM = ["-s", "greedy", "-s", "random", "--games", "8", "--jobs", "1", "--no-report"]


def run(runner, *args):
    return runner.invoke(cli, list(args))


def test_simulate_over_a_complete_run_says_it_replaces_it(runner, tmp_path):
    out = str(tmp_path / "r")
    assert run(runner, "simulate", "dao", *SIM, "--seed", "1", "-q", "--out", out).exit_code == 0
    r = run(runner, "simulate", "dao", *SIM, "--seed", "2", "--out", out)
    assert r.exit_code == 0
    header = r.stderr.strip().splitlines()[0]
    assert header.endswith(f"; seed 2; replacing the complete run in {out} (8 games)") and "writing to" not in header
    r = run(runner, "simulate", "dao", *SIM, "--seed", "3", "-q", "--out", out)
    assert r.exit_code == 0 and r.stderr == f"Replacing the complete run in {out} (8 games).\n"
    assert json.loads((tmp_path / "r" / "config.json").read_text())["seed"] == 3
    r = run(runner, "simulate", "dao", *SIM, "--seed", "4", "--out", str(tmp_path / "new"))
    assert r.stderr.strip().splitlines()[0].endswith(f"writing to {tmp_path / 'new'}")


@pytest.mark.parametrize("first, second, message", [
    (["simulate", "dao", *SIM, "-q"], ["sweep", "dao", "-s", "greedy", "-s", "random", "--rule", "bust_limit=10,12",
                                       "--games", "4", "--jobs", "1", "-q"],
     "holds the complete run (8 games), not a sweep; a sweep replaces only an earlier sweep"),
    (["sweep", "dao", "-s", "greedy", "-s", "random", "--rule", "bust_limit=10,12", "--games", "4", "--jobs", "1",
      "-q"], ["tournament", "dao", "-s", "greedy", "-s", "random", "-s", "threshold", "-s", "colour", "--games",
              "4", "--jobs", "1", "-q"],
     "holds the complete sweep (2 cells), not a tournament"),
    (["tournament", "dao", "-s", "greedy", "-s", "random", "-s", "threshold", "-s", "colour", "--games", "4",
      "--jobs", "1", "-q"], ["simulate", "dao", *SIM, "-q"], "holds the complete tournament (1 table), not a run"),
    (["compare", "dao", "-s", "greedy", "--a", "bust_limit=10", "--b", "bust_limit=12", "--games", "4", "--jobs",
      "1", "-q"], ["tournament", "dao", "-s", "greedy", "-s", "random", "-s", "threshold", "-s", "colour",
                   "--games", "4", "--jobs", "1", "-q"], "holds the complete comparison (4 games per side), not a"),
])
def test_a_folder_holding_another_kind_of_output_is_refused_in_one_line(runner, tmp_path, first, second, message):
    out = str(tmp_path / "o")
    assert run(runner, *first, "--out", out).exit_code == 0
    before = sorted(p.name for p in (tmp_path / "o").iterdir())
    r = run(runner, *second, "--out", out)
    assert r.exit_code == 2 and message in r.output and len(r.output.strip().splitlines()) == 1, r.output
    assert sorted(p.name for p in (tmp_path / "o").iterdir()) == before  # nothing touched


def test_a_comparison_replaces_an_earlier_one_whole_and_says_so(runner, tmp_path):
    """Comparing two rule sets writes the sides a/ and b/; a comparison of two runs into the same
    folder replaces all of it, so the folder never mixes two comparisons."""
    out = tmp_path / "c"
    assert run(runner, "compare", "dao", "-s", "greedy", "--a", "bust_limit=10", "--b", "bust_limit=12", "--games",
               "4", "--jobs", "1", "-q", "--out", str(out)).exit_code == 0
    assert (out / "a" / "config.json").is_file() and (out / "b").is_dir()
    for seed in ("1", "2"):
        assert run(runner, "simulate", "dao", *SIM, "--seed", seed, "-q", "--out", str(tmp_path / f"r{seed}")
                   ).exit_code == 0
    r = run(runner, "compare", str(tmp_path / "r1"), str(tmp_path / "r2"), "-q", "--out", str(out))
    assert r.exit_code == 0 and r.stderr == f"Replacing the complete comparison in {out} (4 games per side).\n"
    assert not (out / "a").exists() and not (out / "b").exists()
    assert json.loads((out / "config.json").read_text())["a"]["source"] == str(tmp_path / "r1")
    r = run(runner, "compare", str(tmp_path / "r1"), str(out / "x"), "-q", "--out", str(tmp_path))
    assert r.exit_code == 2 and "holds the run" in r.output and "being compared" in r.output


def test_comparing_two_runs_twice_writes_two_timestamped_folders_beside_run_a(runner, tmp_path):
    for seed in ("1", "2"):
        assert run(runner, "simulate", "dao", *SIM, "--seed", seed, "-q", "--out", str(tmp_path / "runs" / seed)
                   ).exit_code == 0
    for _ in range(2):
        r = run(runner, "compare", str(tmp_path / "runs" / "1"), str(tmp_path / "runs" / "2"), "-q")
        assert r.exit_code == 0 and r.stderr == ""
    made = sorted(p.name for p in (tmp_path / "runs").iterdir() if p.name.startswith("dao-compare-"))
    assert len(made) == 2 and not (tmp_path / "runs" / "compare").exists()
    for name in made:
        assert {p.name for p in (tmp_path / "runs" / name).iterdir()} >= {"config.json", "index.html", "compare.csv"}


def test_default_folders_of_every_command_are_new_and_timestamped(runner, tmp_path, monkeypatch):
    import re
    monkeypatch.chdir(tmp_path)
    commands = {
        "dao-": ["simulate", "dao", *SIM, "-q"],
        "dao-sweep-": ["sweep", "dao", "-s", "greedy", "-s", "random", "--rule", "bust_limit=10,12", "--games", "4",
                       "--jobs", "1", "-q", "--no-report"],
        "dao-tournament-": ["tournament", "dao", "-s", "greedy", "-s", "random", "-p", "2", "--games", "4", "--jobs", "1",
                            "-q"],
        "dao-compare-": ["compare", "dao", "-s", "greedy", "--a", "bust_limit=10", "--b", "bust_limit=12", "--games",
                         "4", "--jobs", "1", "-q"],
    }
    for prefix, args in commands.items():
        for _ in range(2):
            assert run(runner, *args).exit_code == 0
        made = [p.name for p in (tmp_path / "reports").iterdir()
                if re.fullmatch(re.escape(prefix) + r"\d{8}-\d{6}(-\d+)?", p.name)]
        assert len(made) == 2, (prefix, made)


def test_a_report_of_a_results_file_goes_to_a_new_folder_not_beside_the_file(runner, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert run(runner, "simulate", "dao", *SIM, "--seed", "1", "-q", "--csv", "--out", "r").exit_code == 0
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "joined.csv").write_bytes((tmp_path / "r" / "results.csv").read_bytes())
    (tmp_path / "mine" / "index.html").write_text("my own page")
    r = run(runner, "report", "mine/joined.csv")
    assert r.exit_code == 0 and (tmp_path / "mine" / "index.html").read_text() == "my own page"
    (made,) = (tmp_path / "reports").iterdir()
    assert made.name.startswith("dao-report-") and (made / "index.html").is_file()
    # a run's own folder (or its results file) rebuilds that run's report in place, and says so
    r = run(runner, "report", "r/results.csv")
    assert r.exit_code == 0 and r.stderr.startswith("Rebuilding the report in r (")
    assert len(list((tmp_path / "reports").iterdir())) == 1


@pytest.mark.parametrize("args", [
    ["sweep", "dao", "-s", "threshold:limit=9..4", "-s", "greedy"],
    ["tournament", "dao", "-s", "greedy"],
    ["compare", "dao", "-s", "no-such-strategy", "--a", "bust_limit=10", "--b", "bust_limit=12"],
])
def test_a_refused_experiment_leaves_no_folder_behind(runner, tmp_path, monkeypatch, args):
    monkeypatch.chdir(tmp_path)
    r = run(runner, *args)
    assert r.exit_code == 2 and len(r.output.strip().splitlines()) == 1
    assert not (tmp_path / "reports").exists() or not any((tmp_path / "reports").iterdir())
    r = run(runner, *args, "--out", "mine")
    assert r.exit_code == 2 and not (tmp_path / "mine").exists()


def test_a_report_written_elsewhere_replays_from_the_folder_that_holds_the_games(runner, tmp_path, monkeypatch):
    """A new user's fault: `report RUN --out ELSEWHERE` wrote `play --from ELSEWHERE`, a folder
    with no games, so the command the page gave failed."""
    monkeypatch.chdir(tmp_path)
    sim = [a for a in SIM if a != "--no-report"]
    assert run(runner, "simulate", "dao", *sim, "--seed", "1", "-q", "--csv", "--out", "r").exit_code == 0

    def replay_note(folder):
        page = (tmp_path / folder / "index.html").read_text()
        return page[page.index("Replay any single game"):].split("</p>")[0]

    assert "<code>analyser play --from r --game-index N</code>" in replay_note("r")
    assert run(runner, "report", "r", "--out", "elsewhere", "-q").exit_code == 0
    note = replay_note("elsewhere")
    assert "<code>analyser play --from r --game-index N</code>" in note
    # the command the page gives works, from the folder it names
    r = runner.invoke(cli, ["play", "--from", "r", "--game-index", "3"])
    assert r.exit_code == 0, r.output
    # a results file of its own has no run folder: the page gives the lineup and the game seed
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "joined.csv").write_bytes((tmp_path / "r" / "results.csv").read_bytes())
    assert run(runner, "report", "mine/joined.csv", "--out", "joined", "-q").exit_code == 0
    note = replay_note("joined")
    assert "--from" not in note
    assert "<code>analyser play dao -s greedy -s random --seed GAME_SEED</code>" in note and "game_seed column" in note


def _snapshot(folder):
    """Every file below ``folder`` -> its bytes."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


SWEEP = ["sweep", "dao", "-s", "greedy", "-s", "random", "--rule", "bust_limit=10,12", "--games", "4", "--jobs", "1",
         "-q", "--no-report"]


@pytest.mark.parametrize("command", [["simulate", "dao", *SIM, "-q"], SWEEP], ids=["run", "sweep"])
def test_an_output_holding_a_file_of_the_users_is_refused_with_nothing_removed(runner, tmp_path, command):
    """A complete run's folder that also held notes.txt: "Replacing the complete run ...", the run
    deleted, then the new run refused (issue 34).  Everything is checked before anything is removed."""
    out = tmp_path / "rep_x"
    assert run(runner, *command, "--seed", "1", "--out", str(out)).exit_code == 0
    (out / "notes.txt").write_text("mine\n")
    (out / "cells" if (out / "cells").is_dir() else out / "results").joinpath("keep.txt").write_text("mine too\n")
    before = _snapshot(out)
    r = run(runner, *command, "--seed", "2", "--out", str(out))
    assert r.exit_code == 2, r.output
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("analyser: error: ") and "'notes.txt'" in lines[0], r.stderr
    assert _snapshot(out) == before
    (out / "notes.txt").unlink()
    r = run(runner, *command, "--seed", "2", "--out", str(out))  # (a file inside one of its folders is the user's too)
    assert r.exit_code == 2 and "keep.txt" in r.stderr
    next(out.rglob("keep.txt")).unlink()
    assert run(runner, *command, "--seed", "2", "--out", str(out)).exit_code == 0
    assert json.loads((out / "config.json").read_text())["seed"] == 2


def test_a_folder_holding_only_what_a_killed_start_left_is_used_as_empty(runner, tmp_path, hold_lock):
    """A run (or an experiment's cell played in a worker) killed between taking its lock and
    writing its record leaves a stale lock and an empty folder: that counts as empty; a lock a
    live process holds does not."""
    import socket
    from analyser.run import store
    out = tmp_path / "run"
    (out / "results").mkdir(parents=True)
    (out / store.LOCK).write_text(f"999999999 {socket.gethostname()}\n")  # a process gone from this host
    r = runner.invoke(cli, ["simulate", "dao", "-s", "greedy", "--games", "20", "-j", "1", "--no-report", "-q",
                            "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert (out / "config.json").is_file() and not (out / store.LOCK).exists()
    held = tmp_path / "held"
    held.mkdir()
    with hold_lock(held, f"1 {socket.gethostname()}\n"):  # (a live process holds it)
        r = runner.invoke(cli, ["simulate", "dao", "-s", "greedy", "--games", "20", "-j", "1", "--no-report", "-q",
                                "--out", str(held)])
    assert r.exit_code == 2 and (held / store.LOCK).read_text().startswith("1 ")
