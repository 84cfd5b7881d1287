"""`analyser new`: a working skeleton of a designer's own title (issue 11)."""

import json
import subprocess
import sys

import pandas as pd
import pytest

from analyser.cli import cli


def invoke(runner, *args):
    return runner.invoke(cli, list(args), catch_exceptions=False)


def test_new_writes_a_title_that_runs_at_once(runner, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = invoke(runner, "new", "my-game")
    assert r.exit_code == 0, r.output
    assert "analyser simulate ./my-game -s greedy -s random --games 2000" in r.output
    for name in ("__init__.py", "rules.py", "figures.py", "render.py", "strategies.py", "tests/test_my_game.py"):
        assert (tmp_path / "my-game" / name).is_file(), name
    r = invoke(runner, "simulate", "./my-game", "-s", "greedy", "-s", "random", "--games", "200", "--jobs", "2",
               "--batch-size", "50", "--seed", "4", "--out", "out")
    assert r.exit_code == 0, r.output
    assert "Dice per strategy" in r.output
    config = json.loads((tmp_path / "out" / "config.json").read_text())
    assert config["game"] == "my-game" and config["jobs"] == 2
    assert {"busts.png", "index.html"} <= set(config["files"])
    df = pd.read_parquet(tmp_path / "out" / "results")
    wins = df.groupby("strategy", observed=True)["win"].sum()
    assert df["game_index"].nunique() == 200 and wins["greedy"] > 140  # holding at 20 beats coin flips
    r = invoke(runner, "play", "./my-game", "-s", "greedy", "-s", "random", "--seed", "1")
    assert r.exit_code == 0 and "turn total" in r.output and "Winner: seat" in r.output
    r = invoke(runner, "list", "./my-game")
    assert r.exit_code == 0 and "greedy:hold_at=20" in r.output and "max_turns=1000" in r.output


def test_the_skeletons_own_tests_pass_and_its_rules_stay_light(runner, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert invoke(runner, "new", "pig").exit_code == 0
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "pig/tests"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and " passed" in r.stdout, r.stdout + r.stderr
    code = ("import sys; from analyser.registry import get_game; g = get_game('./pig'); "
            "print(g.id, g.name, sorted(m for m in sys.modules if m.split('.')[0] in ('pandas', 'matplotlib')))")
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert r.stdout.strip() == "pig Pig []", r.stderr


@pytest.mark.parametrize("name, message", [
    ("My_Game", "title name 'My_Game' is not accepted; use lower-case letters"),
    ("dao", "is the id of a built-in title"),
    ("taken", "already exists and is not an empty folder"),
])
def test_new_refuses_bad_names_in_one_line(runner, tmp_path, monkeypatch, name, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "notes.txt").write_text("mine")
    r = runner.invoke(cli, ["new", name])
    assert r.exit_code == 2 and message in r.output and len(r.output.strip().splitlines()) == 1
    assert (tmp_path / "taken" / "notes.txt").read_text() == "mine"
