"""The sums a run's workers compute while they play (:mod:`analyser.run.packing`) give the very
report the parts give when read back, and a large run's component figures come from a seeded
sample of whole chunks whichever process reduces them (:func:`analyser.report.reduce.component_sample`)."""

from __future__ import annotations

import functools

import pytest

from analyser.report import page, reduce as reducemod
from analyser.run import RunSpec, run, store
from analyser.run.packing import ChunkSums
from test_report_parallel import _same

CHUNK = 500
SPEC = dict(game="dao", strategies=["greedy", "random"], games=2300, seed=11, engine="compiled")


def _played(tmp_path, sample=None, jobs=1, games=SPEC["games"]):
    sums = ChunkSums(CHUNK, functools.partial(reducemod.table_pieces, sample=sample), (games, SPEC["seed"]))
    out = tmp_path / "run"
    result = run(RunSpec(**{**SPEC, "games": games}, jobs=jobs), progress=False, out=out, sums=sums)
    assert result.config["status"] == "complete"
    return out, result.known


def test_the_workers_sums_are_the_reports_and_spare_reading_the_parts(tmp_path, monkeypatch):
    out, known = _played(tmp_path)
    # batches of whole chunks: 0-499, ..., 2000-2299 (the last one the run's end)
    assert sorted(known.chunks) == [0, 500, 1000, 1500, 2000] and known.chunks[2000][0] == 2300
    assert [p.name for p in store.part_files(out / store.RESULTS)][:2] == [store.part_name(0), store.part_name(500)]
    read_back = page.reduce_run(out, jobs=1, chunk_games=CHUNK)
    monkeypatch.setattr(reducemod, "block_pieces_of", None)  # no chunk is read back
    reported = page.reduce_run(out, jobs=1, chunk_games=CHUNK, known=known)
    _same(read_back[1], reported[1])


def test_sums_made_in_worker_processes_are_the_reports_too(tmp_path, monkeypatch):
    out, known = _played(tmp_path, jobs=2, games=4000)  # (two workers need four chunks each)
    assert sorted(known.chunks) == list(range(0, 4000, CHUNK))
    read_back = page.reduce_run(out, jobs=1, chunk_games=CHUNK)
    monkeypatch.setattr(reducemod, "block_pieces_of", None)
    _same(read_back[1], page.reduce_run(out, jobs=1, chunk_games=CHUNK, known=known)[1])


def test_sums_of_other_games_than_the_parts_hold_are_not_used(tmp_path):
    out, known = _played(tmp_path)
    start = 1000
    known.chunks[start] = (known.chunks[start][0] - 1, known.chunks[start][1])  # not the part's games
    plan = reducemod.chunk_plan(out, CHUNK)
    key = (SPEC["games"], SPEC["seed"])
    ready = reducemod.known_blocks(known, plan, out, CHUNK, ["greedy", "random"], key)
    assert sorted(ready) == [0, 1, 3, 4]
    assert reducemod.known_blocks(known, plan, out, CHUNK, ["random", "greedy"], key) == {}
    assert reducemod.known_blocks(known, plan, out, CHUNK, ["greedy", "random"], (2300, 12)) == {}


def test_a_large_runs_component_sample_is_seededwhole_chunks(monkeypatch):
    assert reducemod.component_sample(reducemod.SAMPLE_ABOVE, 5, 10_000) is None
    a = reducemod.component_sample(1_000_000, 5, 10_000)
    assert a == reducemod.component_sample(1_000_000, 5, 10_000)
    assert len(a.blocks) == reducemod.SAMPLE_GAMES // 10_000 and max(a.blocks) < 100
    assert a.blocks != reducemod.component_sample(1_000_000, 6, 10_000).blocks
    assert a.covers(min(a.blocks) * 10_000 + 9_999) and not a.covers(min(set(range(100)) - a.blocks) * 10_000)


def test_a_sampled_run_reports_the_same_components_from_workers_and_from_parts(tmp_path, monkeypatch):
    monkeypatch.setattr(reducemod, "SAMPLE_ABOVE", 1000)
    monkeypatch.setattr(reducemod, "SAMPLE_GAMES", 1000)
    sample = reducemod.component_sample(SPEC["games"], SPEC["seed"], CHUNK)
    assert len(sample.blocks) == 2
    out, known = _played(tmp_path, sample)
    read_back = page.reduce_run(out, jobs=1, chunk_games=CHUNK)
    reported = page.reduce_run(out, jobs=1, chunk_games=CHUNK, known=known)
    _same(read_back[1], reported[1])
    (r,) = reported[1]
    sampled = sum(min(SPEC["games"], (b + 1) * CHUNK) - b * CHUNK for b in sample.blocks)
    assert int(r.components["comp_games"]["games"].sum()) == sampled
    assert int(r.core["drama"]["games"].sum()) == sampled
    assert int(r.core["games"]["games"].sum()) == SPEC["games"]  # the rest of the report: every game
    assert r.sample_note == sample.note(sampled)


@pytest.mark.parametrize("start, stop, whole", [
    (0, 500, True), (500, 1000, True), (2000, 2300, True), (50, 500, False), (0, 1000, False), (0, 0, False)])
def test_only_a_batch_within_one_chunk_from_its_start_is_reduced(start, stop, whole):
    from analyser.run.packing import whole_chunk
    assert whole_chunk(start, stop, CHUNK) is whole
