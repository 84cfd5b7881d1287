"""An experiment's cells read back from disk (analyser.experiments.base.PartCache): parts that
disagree with the cell's record are refused before any number is computed."""

import shutil

import pytest

from analyser.engine.core import InputError
from analyser.experiments.base import PartCache
from analyser.run import RunSpec, run


@pytest.fixture(scope="module")
def cell(tmp_path_factory):
    out = tmp_path_factory.mktemp("cell") / "cell-0000"
    run(RunSpec(game="dao", strategies=["greedy", "threshold"], players=2, games=60, seed=5, jobs=1, batch_size=20),
        progress=False, out=out)
    return out


def _parts(folder):
    return sorted((folder / "results").glob("part-*.parquet"))


def test_an_untouched_cell_reads_every_game(cell, tmp_path):
    df = PartCache(shutil.copytree(cell, tmp_path / "c")).frame()
    assert sorted(df["game_index"].unique()) == list(range(60))


@pytest.mark.parametrize("edit", ["moved away", "copied under another name", "doubled"])
def test_a_cell_whose_parts_disagree_with_its_record_is_refused(cell, tmp_path, edit):
    folder = shutil.copytree(cell, tmp_path / "c")
    first, last = _parts(folder)[0], _parts(folder)[-1]
    if edit == "moved away":  # no longer a part: 20 games fewer, silently
        first.rename(first.with_name("old.parquet"))
    elif edit == "copied under another name":
        shutil.copy(first, first.with_name("part-000000555.parquet"))
    else:  # the same games twice, each part under its own name: rewrite the last part as the first
        shutil.copy(first, last)
    with pytest.raises(InputError) as e:
        PartCache(folder).frame()
    assert "\n" not in str(e.value) and str(folder) in str(e.value)
