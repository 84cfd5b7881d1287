"""A command's run folder stays locked from its first game to the end of its report: no other
command can replace the folder while the report reads its parts."""

import subprocess
from pathlib import Path
import sys

from click.testing import CliRunner

from analyser.cli import cli, runs as cli_runs
from analyser.run import RunSpec, execute, run, store

TRY_LOCK = ("import sys\nfrom analyser.engine.core import InputError\nfrom analyser.run import store\n"
            "try:\n    store.RunLock(sys.argv[1]).acquire()\nexcept InputError:\n    sys.exit(3)\n")


def _other_process_can_lock(folder) -> bool:
    return subprocess.run([sys.executable, "-c", TRY_LOCK, str(folder)]).returncode == 0


def test_a_kept_lock_holds_past_the_run_and_is_re_entered_by_the_next_run(tmp_path):
    out = tmp_path / "r"
    spec = RunSpec(game="dao", strategies=["random"], players=2, games=6, seed=1, jobs=1, engine="python")
    with execute.locks_kept():
        first = run(spec, progress=False, out=out)
        assert first.config["status"] == "complete"
        assert not _other_process_can_lock(out)
        # a second run into the folder (a round of --until-ci) re-enters the lock this process holds
        again = run(spec, progress=False, out=out, resume=True)
        assert again.error is None
        assert not _other_process_can_lock(out)
    assert _other_process_can_lock(out)
    assert store.holder_of(out) is None


def test_simulate_holds_its_folder_while_it_writes_the_report(tmp_path, monkeypatch):
    seen = []
    real = cli_runs._finish_run

    def finish(result, spec, g, n_players, out, *rest, **kw):
        seen.append(_other_process_can_lock(out))
        return real(result, spec, g, n_players, out, *rest, **kw)

    monkeypatch.setattr(cli_runs, "_finish_run", finish)
    out = tmp_path / "s"
    r = CliRunner().invoke(cli, ["simulate", "dao", "-s", "random", "-n", "20", "-j", "1", "--seed", "2",
                                 "--engine", "python", "--no-report", "-q", "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert seen == [False]
    assert _other_process_can_lock(out)


def _interrupted_copy(tmp_path, name: str, edit) -> "Path":
    """A complete 40-game DAO run with its last part removed (so resume has games to play), and
    ``edit(config)`` applied to its config.json."""
    import json

    out = tmp_path / name
    spec = RunSpec(game="dao", strategies=["random"], players=2, games=40, seed=7, jobs=1, batch_size=10,
                   engine="python")
    run(spec, progress=False, out=out)
    store.part_files(out / store.RESULTS)[-1].unlink()
    config = json.loads((out / "config.json").read_text())
    edit(config)
    (out / "config.json").write_text(json.dumps(config))
    return out


def test_resume_refuses_a_config_whose_seed_or_rules_are_not_those_of_its_games(tmp_path):
    def seed(c):
        c["seed"] = 8

    def rule(c):
        c["rules"]["bust_limit"] = c["rules"]["bust_limit"] + 1
        c["rule_overrides"] = {"bust_limit": c["rules"]["bust_limit"]}

    for name, edit, field in (("seed", seed, "seed 8"), ("rule", rule, "bust_limit=")):
        out = _interrupted_copy(tmp_path, name, edit)
        before = sorted(p.name for p in (out / store.RESULTS).iterdir())
        r = CliRunner().invoke(cli, ["resume", str(out), "-q", "--no-report"])
        assert r.exit_code == 2, r.output
        assert len(r.output.strip().splitlines()) == 1 and field in r.output and "config.json" in r.output
        assert sorted(p.name for p in (out / store.RESULTS).iterdir()) == before  # nothing played, nothing removed
    untouched = _interrupted_copy(tmp_path, "fine", lambda c: None)
    r = CliRunner().invoke(cli, ["resume", str(untouched), "-q", "--no-report"])
    assert r.exit_code == 0, r.output
