"""Runs on a Dask cluster: a LocalCluster with two worker processes, kept small.

Skipped when dask.distributed is not installed (the ``dask`` extra; the ``test`` extra pulls it
in, so CI runs these)."""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import threading

import pandas as pd
import pytest

if importlib.util.find_spec("distributed") is None:  # (found, not imported: the other worker never needs it)
    pytest.skip("needs dask.distributed: pip install '.[dask]'", allow_module_level=True)

from analyser import run as runmod
from analyser.engine import runner  # noqa: E402
from analyser.run import cluster as clustermod  # noqa: E402

from test_stream import SPEC, cli, one_line, parts, reference, same_rows, wait_for  # noqa: E402

BOT = '''
from analyser.engine.core import Strategy
from analyser.titles.dao.rules import TAKE, REVEAL
class Shipped(Strategy):
    """Reveals up to 7, then takes."""
    name = "shipped"
    uses_rng = False
    def choose(self, view, legal, rng):
        return REVEAL if view.total < 7 else TAKE
'''


#: Under pytest-xdist (--dist loadgroup) the Dask files' tests run in one worker, so the cluster
#: (a session fixture) starts once, not once per worker or file.
pytestmark = pytest.mark.xdist_group("dask")


@pytest.fixture
def cluster(dask_cluster):
    return dask_cluster


def dask_spec(cluster, **kw):
    return runmod.RunSpec(**{**SPEC, "backend": "dask", "scheduler": cluster.scheduler_address, **kw})


def test_dask_results_equal_loky_and_one_job(cluster, tmp_path):
    res = runmod.run(dask_spec(cluster, games=60, batch_size=7), progress=False, out=tmp_path / "d")
    assert res.config["status"] == "complete" and res.config["backend"] == "dask"
    assert res.config["jobs"] == 2  # two single-threaded workers
    loky = runmod.run(runmod.RunSpec(**SPEC, games=60, jobs=2, batch_size=13), progress=False)
    same_rows(reference(60), res.results)
    same_rows(loky.results, res.results)


def test_a_local_cluster_of_its_own_plays_the_same_games(tmp_path):
    """--backend dask without --scheduler: the run starts (and stops) a LocalCluster of --jobs
    worker processes."""
    res = runmod.run(runmod.RunSpec(**SPEC, games=40, jobs=2, batch_size=10, backend="dask"), progress=False,
                     out=tmp_path / "own")
    assert res.config["status"] == "complete" and res.config["backend"] == "dask"
    assert res.config["scheduler"] is None and res.config["jobs"] == 2
    same_rows(reference(40), res.results)


def test_the_search_player_gives_the_same_results_on_dask(cluster, tmp_path):
    """mcts under an iteration budget is reproducible on any backend (its only randomness is the
    seat's own stream)."""
    lineup = ["mcts:iterations=20", "greedy"]
    res = runmod.run(dask_spec(cluster, games=6, batch_size=2, strategies=lineup), progress=False,
                     out=tmp_path / "m")
    assert res.config["status"] == "complete" and res.config["backend"] == "dask"
    same_rows(reference(6, strategies=lineup), res.results)


def test_a_strategy_file_is_uploaded_to_the_workers(cluster, tmp_path):
    path = tmp_path / "far_away.py"
    path.write_text(BOT)
    strategies = ["greedy", f"{path}:shipped"]
    res = runmod.run(dask_spec(cluster, games=30, strategies=strategies, batch_size=10), progress=False)
    expected = reference(30, strategies)
    same_rows(expected, res.results)
    # a worker that cannot see the file still plays it: Dask put a copy of it beside the worker
    job = runner.BatchJob("dao", (), tuple(strategies), 2, 11, 0, 5, 10.0)
    from distributed import Client
    with Client(cluster.scheduler_address) as client:
        uploads = clustermod.upload_user_code(client, job)
        path.unlink()
        out = client.submit(clustermod.play_uploaded, uploads, runner.run_batch, job, pure=False).result()
    assert [written for written, _ in uploads] == [str(path)]
    assert out.error is None and out.done == 5
    assert list(out.columns["score"]) == list(expected["score"][:10])


def test_a_worker_killed_mid_run_loses_nothing_and_doubles_nothing(cluster, tmp_path):
    from distributed import Client
    out = tmp_path / "k"
    games = 3000
    box = {}
    t = threading.Thread(target=lambda: box.update(res=runmod.run(
        dask_spec(cluster, games=games, batch_size=50), progress=False, out=out)))
    t.start()
    wait_for(lambda: len(parts(out)) >= 3)
    with Client(cluster.scheduler_address) as client:
        pids = client.run(os.getpid)
    os.kill(sorted(pids.values())[0], signal.SIGKILL)
    t.join(240)
    res = box["res"]
    assert res.error is None and res.config["status"] == "complete", res.error
    df = pd.read_parquet(out / "results")
    assert df["game_index"].is_monotonic_increasing and df["game_index"].nunique() == games
    same_rows(reference(games), df)
    wait_for(lambda: len(cluster.scheduler_info["workers"]) == 2, 60)  # the nanny restarted it


def test_unreachable_or_malformed_scheduler_is_one_line_exit_2(tmp_path, monkeypatch):
    from click.testing import CliRunner
    from analyser.cli import cli as command
    monkeypatch.setenv("ANALYSER_DASK_CONNECT_TIMEOUT", "1")
    for until in ([], ["--until-ci", "0.1"]):  # (in this process: the refusal is no matter of processes)
        r = CliRunner().invoke(command, ["simulate", "dao", "-s", "greedy", "-n", "5", "--scheduler",
                                         "tcp://127.0.0.1:9", *until, "--out", str(tmp_path / "u")])
        lines = r.output.strip().splitlines()
        assert r.exit_code == 2 and len(lines) == 1 and "did not answer" in lines[0], r.output
        assert not (tmp_path / "u").exists()  # refused before the output folder is made
    for bad in ("127.0.0.1", "tcp://", "http://host:8786", "tcp://host:port"):
        r = CliRunner().invoke(command, ["simulate", "dao", "-s", "greedy", "-n", "5", "--scheduler", bad,
                                         "--out", str(tmp_path / "m")])
        lines = r.output.strip().splitlines()
        assert r.exit_code == 2 and len(lines) == 1 and "--scheduler" in lines[0] and "tcp://HOST:8786" in lines[0]


def test_scheduler_without_dask_installed_is_one_line_exit_2(tmp_path):
    code = ("import sys; sys.modules['distributed'] = None; from analyser.cli import main; "
            f"sys.argv = ['analyser', 'simulate', 'dao', '-s', 'greedy', '-n', '5', '--out', {str(tmp_path / 'n')!r}, "
            "'--scheduler', 'tcp://127.0.0.1:8786']; main()")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "pip install 'analyser[dask]'" in one_line(r)


def test_a_title_folder_is_uploaded_to_the_workers(cluster, tmp_path):
    """A title of one's own (a folder, as `analyser new` writes it) reaches the workers through
    Dask's upload: a worker that cannot see the folder still plays it, game for game as the folder
    here does."""
    import shutil
    import zipfile

    from distributed import Client

    from analyser.kit.skeleton import write_skeleton

    folder = tmp_path / "far-game"
    write_skeleton(folder)
    (folder / "__pycache__").mkdir(exist_ok=True)
    (folder / "__pycache__" / "rules.cpython-311.pyc").write_bytes(b"stale")
    (folder / ".notes").write_text("not sent")
    archive = clustermod.packed(folder, tmp_path)
    names = zipfile.ZipFile(archive).namelist()
    assert "rules.py" in names and "__init__.py" in names
    assert not any("__pycache__" in n or n.startswith(".") for n in names)
    ref = str(folder)
    strategies = ("hold", "random")
    job = runner.BatchJob(ref, (), strategies, 2, 5, 0, 6, 10.0)
    here = runner.run_batch(job)
    assert here.error is None and here.done == 6
    with Client(cluster.scheduler_address) as client:
        uploads = clustermod.upload_user_code(client, job)
        shutil.rmtree(folder)
        out = client.submit(clustermod.play_uploaded, uploads, runner.run_batch, job, pure=False).result()
    assert [written for written, _ in uploads] == [ref]
    assert out.error is None and out.done == 6
    assert list(out.columns["score"]) == list(here.columns["score"])
    assert list(out.columns["game_seed"]) == list(here.columns["game_seed"])


def test_a_run_of_a_title_file_on_dask_equals_one_job(cluster, tmp_path):
    from analyser.kit.skeleton import write_skeleton
    folder = tmp_path / "dice-game"
    write_skeleton(folder)
    spec = dict(game=str(folder), strategies=["hold", "random"], games=24, seed=4, batch_size=5)
    res = runmod.run(runmod.RunSpec(**spec, backend="dask", scheduler=cluster.scheduler_address),
                     progress=False)
    one = runmod.run(runmod.RunSpec(**spec, jobs=1), progress=False)
    assert res.config["status"] == "complete"
    same_rows(one.results, res.results)
