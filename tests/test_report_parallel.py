"""The report's reduction in worker processes (:mod:`analyser.report.reduce`) gives the very
sums of the reduction in this process, chunk for chunk, whatever the parts' batch boundaries."""

from __future__ import annotations

import pandas as pd
import pytest

from analyser.cli import cli
from analyser.report import page, reduce as reducemod


def _same(a, b):
    assert len(a) == len(b) and len(a) >= 1
    for x, y in zip(a, b):
        assert (x.label, x.players, x.strategies, x.binary, x.runs) == (y.label, y.players, y.strategies, y.binary,
                                                                        y.runs)
        for attr in ("core", "title", "components"):
            da, db = getattr(x, attr), getattr(y, attr)
            assert list(da) == list(db), attr
            for k in da:
                if isinstance(da[k], pd.DataFrame):
                    pd.testing.assert_frame_equal(da[k], db[k], check_exact=True)
                else:
                    assert da[k] == db[k], (attr, k)
        pd.testing.assert_frame_equal(x.first.reset_index(drop=True), y.first.reset_index(drop=True))


@pytest.mark.parametrize("title, args", [
    ("dao", ["-s", "greedy", "-s", "random", "--games", "260", "--batch-size", "70"]),  # component counts
    ("wizard", ["-s", "expected", "-s", "random", "-p", "3", "--games", "260", "--batch-size", "70"]),  # rounds
])
def test_the_reduction_in_workers_equals_the_one_in_this_process(runner, tmp_path, title, args):
    out = tmp_path / "run"
    r = runner.invoke(cli, ["simulate", title, *args, "--seed", "4", "-j", "1", "-q", "--no-report", "-o", str(out)])
    assert r.exit_code == 0, r.output
    chunk = 50
    plan = reducemod.chunk_plan(out, chunk)
    # parts of 70 games over chunks of 50: some chunks are read from two parts
    assert len(plan) >= reducemod.PARALLEL_MIN_CHUNKS and any(len(parts) > 1 for _, parts in plan)
    here = page.reduce_run(out, jobs=1, chunk_games=chunk)
    there = page.reduce_run(out, jobs=2, chunk_games=chunk)
    assert here[2] == there[2] and here[0].id == there[0].id
    _same(here[1], there[1])


def test_report_jobs_is_checked_and_gives_the_same_files(runner, tmp_path):
    out = tmp_path / "run"
    r = runner.invoke(cli, ["simulate", "dao", "-s", "greedy", "--games", "300", "--seed", "2", "-j", "1", "-q",
                            "-o", str(out)])
    assert r.exit_code == 0, r.output
    before = {n: (out / n).read_bytes() for n in ("summary.csv", "components.csv", "findings.json")}
    r = runner.invoke(cli, ["report", str(out), "-j", "2", "-q"])
    assert r.exit_code == 0, r.output
    assert {n: (out / n).read_bytes() for n in before} == before
    r = runner.invoke(cli, ["report", str(out), "-j", "-3", "-q"])
    assert r.exit_code == 2 and "--jobs -3 is not accepted" in r.output
    assert len(r.output.strip().splitlines()) == 1


def test_a_part_changed_by_hand_is_named_the_same_by_workers_and_by_this_process(runner, tmp_path):
    import pyarrow.parquet as pq

    from analyser.engine.core import InputError

    out = tmp_path / "run"
    r = runner.invoke(cli, ["simulate", "dao", "-s", "greedy", "--games", "400", "--batch-size", "100", "--seed", "2",
                            "-j", "1", "-q", "--no-report", "-o", str(out)])
    assert r.exit_code == 0, r.output
    part = sorted((out / "results").glob("part-*.parquet"))[1]  # games 100 to 199
    table = pq.read_table(part)
    meta = table.schema.metadata
    gi = table.column("game_index").to_numpy() + 150  # moved outside the games its footer names
    import pyarrow as pa
    table = table.set_column(table.schema.get_field_index("game_index"), "game_index", pa.array(gi))
    pq.write_table(table.replace_schema_metadata(meta), part)
    said = []
    for jobs in (1, 2):
        with pytest.raises(InputError) as e:
            page.reduce_run(out, jobs=jobs, chunk_games=100)
        said.append(str(e.value))
    assert said[0] == said[1] == (f"part {str(part)!r} holds games 250 to 349, outside the games 100 to 199 its "
                                  "footer names: a part changed by hand; remove it")
