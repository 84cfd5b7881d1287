"""The worker pool is handed batches in windows (:data:`analyser.run.backends.WINDOW_PER_JOB` per
worker), so finished batches waiting for the main process stay few; the run is the same."""

from __future__ import annotations

import joblib
import pandas as pd

from analyser.run import RunSpec, backends, run


def test_windows_of_batches_give_the_run_of_one_process(monkeypatch, tmp_path):
    spec = dict(game="dao", strategies=["greedy", "random"], players=2, games=300, seed=11, batch_size=20,
                engine="python")
    whole = run(RunSpec(**spec, jobs=1), progress=False, out=tmp_path / "one").results
    calls = []
    real = joblib.Parallel.__call__

    def counted(self, iterable):
        tasks = list(iterable)
        calls.append(len(tasks))
        return real(self, tasks)

    monkeypatch.setattr(joblib.Parallel, "__call__", counted)
    monkeypatch.setattr(backends, "WINDOW_PER_JOB", 2)
    windowed = run(RunSpec(**spec, jobs=2), progress=False, out=tmp_path / "two").results
    assert calls == [4, 4, 4, 3]  # 15 batches of 20 games, 2 per worker at a time
    cols = ["game_index", "game_seed", "seat", "strategy", "score", "win"]
    pd.testing.assert_frame_equal(windowed[cols].astype({"strategy": str}), whole[cols].astype({"strategy": str}))
