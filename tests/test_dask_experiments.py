"""Every experiment on a Dask cluster (``--scheduler``): the same games as a local run, nothing lost
when a worker dies, and ``resume OUT --scheduler`` taking the address from the command line only.

Skipped without dask.distributed (the ``dask`` extra; the ``test`` extra pulls it in).  The
clusters are small LocalClusters: threads for the equality tests (quick to start), processes for
the killed worker."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import logging
import os
import shutil
import signal
import threading
from pathlib import Path

import pandas as pd
import pytest

if importlib.util.find_spec("distributed") is None:  # (found, not imported: the other worker never needs it)
    pytest.skip("needs dask.distributed: pip install '.[dask]'", allow_module_level=True)

from analyser.cli import cli  # noqa: E402
from analyser.experiments.options import Session, SweepOptions  # noqa: E402
from analyser.run import RunSpec  # noqa: E402
from analyser.run import cluster as clustermod  # noqa: E402

from test_stream import wait_for  # noqa: E402

#: One worker runs the Dask files' tests, so each cluster (the threads one here, a module fixture, and
#: the processes one, a session fixture) starts once, not once per worker.
pytestmark = [pytest.mark.xdist_group("dask"), pytest.mark.usefixtures("quick_ladder_speed")]


@pytest.fixture(scope="module")
def cluster():
    from distributed import LocalCluster
    c = LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None,
                     silence_logs=logging.ERROR)
    yield c
    c.close()


def invoke(*args):
    from click.testing import CliRunner
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def cell_folders(out: Path) -> list[Path]:
    """The run folders of an experiment (its cells, or a comparison's sides), in name order."""
    found = sorted((out / "cells").iterdir()) if (out / "cells").is_dir() else []
    return found + [out / s for s in ("a", "b") if (out / s / "config.json").is_file()]


def games_of(folder: Path) -> pd.DataFrame:
    df = pd.read_parquet(folder / "results").drop(columns="run_id")
    return df.sort_values(["game_index", "seat"]).reset_index(drop=True)


def same_experiment(a: Path, b: Path) -> int:
    """Every cell of ``a`` holds the very games of the same cell of ``b``; returns the games."""
    fa, fb = cell_folders(a), cell_folders(b)
    assert [f.name for f in fa] == [f.name for f in fb] and fa
    n = 0
    for x, y in zip(fa, fb):
        dx, dy = games_of(x), games_of(y)
        pd.testing.assert_frame_equal(dx, dy, check_categorical=False)
        n += dx["game_index"].nunique()
    return n


EXPERIMENTS = {
    "sweep": ["sweep", "dao", "-s", "threshold:limit=6..8", "-s", "greedy", "-p", "2", "--games", "60",
              "--seed", "3", "--no-report"],
    "tournament": ["tournament", "dao", "-s", "greedy", "-s", "random", "-s", "threshold", "-p", "2",
                   "--games", "120", "--seed", "4", "--bootstrap", "10"],
    "compare": ["compare", "dao", "-s", "greedy", "-s", "random", "--a", "bust_limit=12", "--b", "bust_limit=10",
                "-p", "2", "--games", "80", "--seed", "5"],
    "ladder": ["ladder", "dao", "--strategy", "threshold:limit", "--budgets", "4,8,12", "--against", "greedy",
               "--games", "20", "--seed", "6", "--no-report"],
    "tune": ["tune", "dao", "--rule", "bust_limit=9..12", "-s", "greedy", "-s", "random", "-p", "2",
             "--target", "seat_gap=min", "--trials", "4", "--games", "40", "--batch", "2", "--recheck", "1",
             "--recheck-factor", "2", "--seed", "7", "--no-report"],
}


@pytest.mark.parametrize("kind", list(EXPERIMENTS))
def test_every_experiment_on_the_cluster_plays_the_games_of_a_local_run(cluster, tmp_path, kind):
    args = EXPERIMENTS[kind] + ["-q"]
    here = invoke(*args, "-j", "1", "-o", tmp_path / "here")
    assert here.exit_code == 0, here.output
    there = invoke(*args, "--scheduler", cluster.scheduler_address, "-o", tmp_path / "there")
    assert there.exit_code == 0, there.output
    assert same_experiment(tmp_path / "here", tmp_path / "there") >= 60
    cell = json.loads((cell_folders(tmp_path / "there")[0] / "config.json").read_text())
    assert cell["backend"] == "dask" and cell["jobs"] == 2  # the cluster's two workers played it
    assert json.loads((cell_folders(tmp_path / "here")[0] / "config.json").read_text())["backend"] == "loky"
    if kind == "tune":  # the study (written by this process only) asks and scores the same trials
        pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "here" / "trials.csv"),
                                      pd.read_csv(tmp_path / "there" / "trials.csv"))


def test_one_client_serves_the_whole_experiment(cluster, tmp_path, monkeypatch):
    made = []
    real = clustermod.new_client

    def counted(address, jobs):
        made.append(address)
        return real(address, jobs)
    monkeypatch.setattr(clustermod, "new_client", counted)
    r = invoke(*EXPERIMENTS["sweep"], "-q", "--scheduler", cluster.scheduler_address, "-o", tmp_path / "s")
    assert r.exit_code == 0, r.output
    assert made == [cluster.scheduler_address]  # three cells, one client
    assert len(cell_folders(tmp_path / "s")) == 3


def _cut(out: Path) -> None:
    """Make the finished experiment ``out`` look stopped after its first cell (a kill)."""
    record = json.loads((out / "config.json").read_text())
    for k, c in enumerate(record["cells"]):
        if k:
            shutil.rmtree(out / c["folder"])
            c.update(status="pending", games_done=[])
    record["status"] = "interrupted"
    (out / "config.json").write_text(json.dumps(record))


def test_resume_on_the_scheduler_the_command_line_names_equals_an_uninterrupted_run(cluster, tmp_path):
    args = EXPERIMENTS["sweep"] + ["-q", "-j", "1"]
    assert invoke(*args, "-o", tmp_path / "whole").exit_code == 0
    assert invoke(*args, "-o", tmp_path / "cut").exit_code == 0
    _cut(tmp_path / "cut")
    r = invoke("resume", tmp_path / "cut", "-q", "--no-report", "--scheduler", cluster.scheduler_address)
    assert r.exit_code == 0, r.output
    assert same_experiment(tmp_path / "whole", tmp_path / "cut") == 180
    backends_used = [json.loads((f / "config.json").read_text())["backend"] for f in cell_folders(tmp_path / "cut")]
    assert backends_used == ["loky", "dask", "dask"]


def test_a_scheduler_the_folder_names_is_never_dialled(cluster, tmp_path, monkeypatch):
    """An experiment played on a cluster, handed over cut short: resume without --scheduler plays
    here, whatever address its record and its cells' records name."""
    args = EXPERIMENTS["sweep"] + ["-q"]
    assert invoke(*args, "-j", "1", "-o", tmp_path / "whole").exit_code == 0
    assert invoke(*args, "--scheduler", cluster.scheduler_address, "-o", tmp_path / "cut").exit_code == 0
    _cut(tmp_path / "cut")
    record = json.loads((tmp_path / "cut" / "config.json").read_text())
    record["scheduler"] = cluster.scheduler_address  # as a record from elsewhere might say
    (tmp_path / "cut" / "config.json").write_text(json.dumps(record))
    dialled = []
    monkeypatch.setattr(clustermod, "new_client", lambda address, jobs: dialled.append(address))
    monkeypatch.setattr("analyser.run.execute.dask_client", lambda spec: dialled.append(spec.scheduler))
    r = invoke("resume", tmp_path / "cut", "-q", "--no-report")
    assert r.exit_code == 0, r.output
    assert dialled == []
    assert same_experiment(tmp_path / "whole", tmp_path / "cut") == 180
    assert [json.loads((f / "config.json").read_text())["backend"]
            for f in cell_folders(tmp_path / "cut")] == ["dask", "loky", "loky"]


@pytest.mark.parametrize("args, words", [
    (["--scheduler", "tcp://host:port"], "tcp://HOST:8786"),
    (["--scheduler", "tcp://127.0.0.1:8786", "--backend", "loky"], "--scheduler needs --backend dask"),
])
def test_a_bad_scheduler_is_one_line_exit_2_before_the_folder_is_made(tmp_path, args, words):
    for kind in EXPERIMENTS:
        r = invoke(*EXPERIMENTS[kind], *args, "-o", tmp_path / kind)
        lines = r.output.strip().splitlines()
        assert r.exit_code == 2 and len(lines) == 1 and words in lines[0], (kind, r.output)
        assert not (tmp_path / kind).exists()


def test_a_silent_scheduler_is_one_line_exit_2(tmp_path, monkeypatch):
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("ANALYSER_DASK_CONNECT_TIMEOUT", "1")
    r = invoke(*EXPERIMENTS["ladder"], "--scheduler", f"tcp://127.0.0.1:{port}", "-o", tmp_path / "l")
    lines = r.output.strip().splitlines()
    assert r.exit_code == 2 and len(lines) == 1 and "did not answer" in lines[0]
    assert not (tmp_path / "l").exists()


def test_a_worker_killed_mid_experiment_loses_nothing(dask_cluster, tmp_path):
    """A worker process SIGKILLed while a sweep plays: the scheduler plays its batch again
    elsewhere, and every cell equals the local run's."""
    from distributed import Client

    from analyser.experiments.sweep import run_sweep

    spec = RunSpec("dao", ["threshold:limit=6,9", "greedy"], players=2, games=600, seed=8, batch_size=50)
    run_sweep(dataclasses.replace(spec, jobs=1), SweepOptions(), Session(tmp_path / "here"))
    box = {}
    address = dask_cluster.scheduler_address

    def play():
        with clustermod.command_pool(scheduler=address):
            box["res"] = run_sweep(dataclasses.replace(spec, jobs=0), SweepOptions(), Session(tmp_path / "there"))
    t = threading.Thread(target=play)
    t.start()
    wait_for(lambda: len(list((tmp_path / "there" / "cells" / "cell-0000" / "results").glob("*.parquet")))
             >= 3 if (tmp_path / "there" / "cells" / "cell-0000" / "results").is_dir() else False)
    with Client(address) as client:
        pids = client.run(os.getpid)
    assert t.is_alive()  # the kill comes mid-experiment
    os.kill(sorted(pids.values())[0], signal.SIGKILL)
    t.join(240)
    res = box["res"]
    assert res.error is None and res.config["status"] == "complete", res.error
    assert same_experiment(tmp_path / "here", tmp_path / "there") == 1200
    wait_for(lambda: len(dask_cluster.scheduler_info["workers"]) == 2, 60)  # the nanny restarted it


def test_a_stopping_rule_run_plays_all_its_rounds_on_one_client(cluster, tmp_path, monkeypatch):
    made = []
    real = clustermod.new_client
    monkeypatch.setattr(clustermod, "new_client", lambda address, jobs: made.append(address) or real(address, jobs))
    args = ["simulate", "dao", "-s", "greedy", "-s", "random", "-p", "2", "--games", "1600", "--seed", "9",
            "--until-ci", "0.1", "--no-report", "-q"]
    here = invoke(*args, "-j", "1", "-o", tmp_path / "here")
    there = invoke(*args, "--scheduler", cluster.scheduler_address, "-o", tmp_path / "there")
    assert here.exit_code == 0 and there.exit_code == 0, there.output
    assert made == [cluster.scheduler_address]
    rounds = json.loads((tmp_path / "there" / "config.json").read_text())["stopping"]["history"]
    assert len(rounds) >= 2 and rounds == json.loads((tmp_path / "here" / "config.json").read_text())["stopping"]["history"]
    pd.testing.assert_frame_equal(games_of(tmp_path / "here"), games_of(tmp_path / "there"), check_categorical=False)
