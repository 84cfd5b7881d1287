"""Score traces as typed list columns (issue 22): the title-facing ``encode_trace``, the Arrow list
column a run writes, the text form of CSV files and older runs, validation of untrusted cells, and
results and drama figures that did not change with the storage."""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from analyser.stats import designer, streamed
from analyser import run as runmod
from analyser.engine import traces
from analyser.cli import cli
from analyser.engine.core import InputError, encode_trace
from analyser.engine.registry import default_lineup, game_ids, get_game
from analyser.run.read import load_results
from analyser.run import store
from analyser.engine.runner import game_seed


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


#: Under pytest-xdist (--dist loadgroup) this file's tests run in one worker, so its module-scoped
#: fixtures are built once, not once per worker.
pytestmark = pytest.mark.xdist_group("test_traces")


@pytest.fixture(scope="module")
def dao_run(tmp_path_factory):
    """60 DAO games with --csv: the Parquet parts and results.csv of one run."""
    out = tmp_path_factory.mktemp("traces") / "dao"
    r = invoke("simulate", "dao", "-s", "greedy", "-s", "threshold", "-n", "60", "-j", "1", "--seed", "3",
               "--batch-size", "25", "--out", out, "--csv", "--no-report", "-q")
    assert r.exit_code == 0, r.output
    return out


# -- encode_trace and the packed column -------------------------------------------------------

def test_encode_trace_gives_each_seat_its_scores_step_by_step():
    history = [[0, 1], [3, 1], [3, 4]]
    assert encode_trace(history, 2) == [(0, 3, 3), (1, 1, 4)]
    assert encode_trace([], 3) == [(), (), ()]
    assert encode_trace([(1.5, 2)], 2) == [(1.5,), (2,)]  # values as given
    assert encode_trace([[1, 2, 9]], 2) == [(1,), (2,)]  # seats beyond n_players are not read
    with pytest.raises(ValueError, match="3 seats"):
        encode_trace([[1, 2]], 3)


@pytest.mark.parametrize("cells, kind", [
    ([[0, 3, 3, 7], [1], []], pa.list_(pa.int32())),
    ([[0, 2 ** 40], [1]], pa.list_(pa.int64())),
    ([[0, 1.5], [2]], pa.list_(pa.float64())),
    ([[True, False], [1]], pa.list_(pa.int32())),
    ([np.array([1, 2], dtype=np.int64), (3,)], pa.list_(pa.int32())),
])
def test_a_batch_of_traces_packs_into_one_typed_list_column(cells, kind):
    packed = traces.pack(cells)
    arr = packed.to_arrow()
    assert arr.type == kind
    assert arr.to_pylist() == [[float(v) if kind.value_type == pa.float64() else int(v) for v in c] for c in cells]


def test_a_trace_not_recorded_is_a_null_list():
    arr = traces.pack([[1, 2], None, [3]]).to_arrow()
    assert arr.to_pylist() == [[1, 2], None, [3]]


@pytest.mark.parametrize("cells, row, shown", [
    ([[1, 2], [3, float("nan")]], 1, "nan"),
    ([[1], [2], [float("inf")]], 2, "inf"),
    ([[1, "x"]], 0, "'x'"),
    ([[1], "0 3"], 1, "str"),
    ([[1], [None]], 1, "None"),
])
def test_a_value_that_is_no_finite_number_names_its_row(cells, row, shown):
    with pytest.raises(traces.TraceValueError) as e:
        traces.pack(cells)
    assert e.value.row == row and shown in str(e.value)


TITLE = '''
from dataclasses import dataclass
from analyser.engine.core import Game, Params, Strategy, encode_trace, option


@dataclass(frozen=True)
class P(Params):
    rounds: int = option(2, "rounds", low=1, high=5)


class S:
    def __init__(self, n):
        self.n, self.round, self.current, self.scores, self.history = n, 0, 0, [0] * n, []


class Broken(Game):
    id, name = "broken", "Broken trace"
    min_players = max_players = default_players = 2
    Params = P
    metric_columns = ("score_trace",)

    def initial_state(self, params, n, rng):
        return S(n)

    def current_player(self, s):
        return s.current

    def legal_actions(self, s):
        return [] if s.round >= 2 else [1, 2]

    def apply(self, s, action, rng):
        s.scores[s.current] += rng.randint(1, 6)
        s.current = (s.current + 1) % s.n
        if s.current == 0:
            s.round += 1
            s.history.append(list(s.scores))

    def is_terminal(self, s):
        return s.round >= 2

    def scores(self, s):
        return list(s.scores)

    def view(self, s, seat):
        return s

    def metrics(self, s):
        history = [[float("nan") if v == 12 else v for v in h] for h in s.history]  # a bug: 12 is nan
        trace = encode_trace(history, s.n)
        return [{"score_trace": trace[k]} for k in range(s.n)]


GAME = Broken()


class First(Strategy):
    name, game, uses_rng = "first", "broken", False

    def choose(self, view, legal, rng):
        return legal[0]


STRATEGIES = [First]
'''


def test_a_title_whose_trace_holds_nan_fails_that_game_and_keeps_the_games_before(tmp_path):
    path = tmp_path / "broken.py"
    path.write_text(TITLE)
    res = runmod.run(runmod.RunSpec(game=str(path), strategies=[f"{path}:first"], games=200, seed=1, jobs=1),
                     progress=False)
    err = res.error
    assert err is not None and "holds nan" in str(err)
    bad = err.game_index
    assert 0 < bad < 200 and err.game_seed == game_seed(1, bad)  # the seed that replays it
    df = res.results
    assert sorted(df["game_index"].unique()) == list(range(bad))  # every finished game before it is kept
    assert all(np.isfinite(np.asarray(t, dtype=float)).all() for t in df["score_trace"])


# -- round trip: Parquet list column, CSV text ------------------------------------------------

def test_a_run_writes_its_traces_as_an_int32_list_column_and_csv_as_text(dao_run):
    parts = store.part_files(dao_run / store.RESULTS)
    assert len(parts) == 3
    for p in parts:
        assert pq.read_schema(p).field("score_trace").type == pa.list_(pa.int32())
    from_parquet = pd.read_parquet(dao_run / "results")
    from_csv = pd.read_csv(dao_run / "results.csv")
    assert len(from_parquet) == len(from_csv) == 60 * 4
    want = [" ".join(str(int(v)) for v in t) for t in from_parquet["score_trace"]]
    assert from_csv["score_trace"].tolist() == want
    assert all(t[-1] == s for t, s in zip(from_parquet["score_trace"], from_parquet["score"]))


def test_report_reads_lists_text_and_pandas_csv_alike(dao_run, tmp_path):
    """The same run read from its Parquet parts, from --csv, and from a CSV pandas wrote from the
    parts (``[0 3 3 7]`` cells) gives the same drama figures; so do the report's chunks."""
    parquet, _, _ = load_results(dao_run)
    csv, _, _ = load_results(dao_run / "results.csv")
    pandas_csv = tmp_path / "results.csv"
    pd.read_parquet(dao_run / "results").to_csv(pandas_csv, index=False)
    assert pd.read_csv(pandas_csv)["score_trace"].iloc[0].startswith("[")
    by_pandas, _, _ = load_results(pandas_csv)
    want = designer.drama_per_game(parquet)
    for df in (csv, by_pandas):
        pd.testing.assert_frame_equal(designer.drama_per_game(df).drop(columns="run_id", errors="ignore"),
                                      want.drop(columns="run_id", errors="ignore"), check_dtype=False)
    chunks = [designer.drama_per_game(c) for c, _ in streamed.iter_run_chunks(dao_run, chunk_games=20)]
    pd.testing.assert_frame_equal(pd.concat(chunks, ignore_index=True), want)
    r = invoke("report", pandas_csv, "--out", tmp_path / "report")
    assert r.exit_code == 0 and "lead changes" in r.output, r.output


def test_a_trace_that_starts_below_zero_survives_the_spreadsheet_quote_of_results_csv(tmp_path):
    """results.csv quotes a text cell that starts with "-" for spreadsheets (``'-10 20``); the
    report reads it back as the same numbers as the Parquet parts."""
    out = tmp_path / "wizard"
    r = invoke("simulate", "wizard", "-n", "12", "-j", "1", "--seed", "3", "--out", out, "--csv", "--no-report", "-q")
    assert r.exit_code == 0, r.output
    raw = pd.read_csv(out / "results.csv")["score_trace"].astype(str)
    assert raw.str.startswith("'-").any()
    parquet, _, _ = load_results(out)
    csv, _, _ = load_results(out / "results.csv")
    assert isinstance(csv["score_trace"].iloc[0], str)  # read as text, the quote taken off
    want, got = traces.flatten(parquet["score_trace"]), traces.flatten(csv["score_trace"])
    assert (want[0] == got[0]).all() and (want[1] == got[1]).all() and (got[1] < 0).any()


@pytest.mark.parametrize("cell, row", [("3 7 nan", 4), ("1e999", 2), ("[1 2", 7), ("1,,2", 1), ("3 x", 5),
                                       ("- 3", 3)])
def test_a_bad_trace_cell_in_a_csv_is_refused_naming_its_row(dao_run, tmp_path, cell, row):
    df = pd.read_csv(dao_run / "results.csv")
    df["score_trace"] = df["score_trace"].astype(object)
    df.loc[row - 1, "score_trace"] = cell
    path = tmp_path / "results.csv"
    df.to_csv(path, index=False)
    r = invoke("report", path, "--out", tmp_path / "out")
    lines = [x for x in r.output.splitlines() if x.strip()]
    assert r.exit_code == 2 and len(lines) == 1, r.output
    assert f"column 'score_trace': row {row} " in lines[0]
    assert cell not in lines[0]  # cell text is never quoted


@pytest.mark.parametrize("values, kind", [([1.0, float("inf")], pa.float64()), ([1.0, float("nan")], pa.float64())])
def test_a_non_finite_value_in_a_parquet_list_cell_is_refused(dao_run, tmp_path, values, kind):
    df = pd.read_parquet(dao_run / "results")
    cells = [list(map(float, t)) for t in df["score_trace"]]
    cells[9] = values
    table = pa.Table.from_pandas(df.drop(columns="score_trace"), preserve_index=False)
    table = table.append_column("score_trace", pa.array(cells, type=pa.list_(kind)))
    path = tmp_path / "results.parquet"
    pq.write_table(table, path)
    r = invoke("report", path, "--out", tmp_path / "out")
    assert r.exit_code == 2 and "column 'score_trace':" in r.output and " row 10 " in r.output, r.output


def test_nested_or_text_lists_in_parquet_are_refused(dao_run, tmp_path):
    df = pd.read_parquet(dao_run / "results")
    for bad in (pa.array([[["1"]]] * len(df)), pa.array([["1", "2"]] * len(df))):
        table = pa.Table.from_pandas(df.drop(columns="score_trace"), preserve_index=False)
        path = tmp_path / "results.parquet"
        pq.write_table(table.append_column("score_trace", bad), path)
        r = invoke("report", path, "--out", tmp_path / "out")
        assert r.exit_code == 2 and "score_trace" in r.output and "Traceback" not in r.output, r.output


def test_parts_with_text_and_list_traces_are_one_line_and_text_and_lists_flatten_alike(dao_run):
    """A run begun when traces were text and resumed after (an older format): refused in one
    line; a frame holding both forms (a CSV file beside lists) still flattens."""
    parts = store.part_files(dao_run / store.RESULTS)
    old = pq.read_table(parts[0])
    old = old.set_column(old.schema.get_field_index("score_trace"), "score_trace", traces.as_text(old["score_trace"]))
    with pytest.raises(InputError) as e:
        traces.concat_tables([old, pq.read_table(parts[1])], "here")
    assert len(str(e.value).splitlines()) == 1 and str(e.value).startswith("here ")
    mixed = pd.concat([old.to_pandas(), pq.read_table(parts[1]).to_pandas()], ignore_index=True)
    counts, values = traces.flatten(mixed["score_trace"])
    assert len(counts) == len(mixed) and counts.sum() == len(values) and (counts > 0).all()


# -- nothing else changed ---------------------------------------------------------------------

#: Each title's default lineup, seed 7: the results fingerprint (every column but run_id, traces as
#: numbers) and the drama figures, computed on main (text traces) before this change.
BEFORE = {
    "dao": (300, "a74dc4b8cff5406d62b692c25800a18b64209c6a1cfb360c1345957897230e64",
        {"games": 300, "lead_changes": 2.0033333333333334, "any_lead_change": 0.8366666666666667,
         "lead_for_good_at": 0.6341598819853463, "deficit_overcome": 2.85, "deficit_p90": 6.0,
         "deficit_max": 10.0}),
    "wizard": (30, "6b92c69df1d0aef026941aa5de6653d1648270e9006b7ed700098183dd9a51f6",
        {"games": 30, "lead_changes": 2.0, "any_lead_change": 0.7666666666666667,
         "lead_for_good_at": 0.42444444444444435, "deficit_overcome": 37.666666666666664, "deficit_p90": 90.0,
         "deficit_max": 120.0}),
    # + placements (issue 28; every other column as before)
    "tsuro-seas": (60, "7df317420b5073936dd2edcd07c924d6aaa756a9b4ed9773f3b4f07126310396",
        {"games": 60, "lead_changes": 0.5166666666666667, "any_lead_change": 0.48333333333333334,
         "lead_for_good_at": 0.966944046869228, "deficit_overcome": 0.7543859649122807, "deficit_p90": 1.0,
         "deficit_max": 1.0}),
    "kingdomino-duel": (30, "9dc87f77e57ff2724cb37da07d47a2b167672a62fc1d2b369aee327ea7bdfb6b",
        {"games": 30, "lead_changes": 1.4666666666666666, "any_lead_change": 0.7,
         "lead_for_good_at": 0.31843825249398, "deficit_overcome": 5.233333333333333,
         "deficit_p90": 15.100000000000001, "deficit_max": 19.0}),
    # + buys (issue 28; every other column as before)
    "dragon-lairds": (20, "33b9d45d0a204307e40f200d96520f9cb70e9b97084681383ef1891e378aa45e", None),
}


def fingerprint(df: pd.DataFrame) -> str:
    """SHA-256 of every column but run_id, value by value (a trace as its numbers)."""
    h = hashlib.sha256()
    df = df.drop(columns=["run_id"])
    for c in df.columns:
        if c == "score_trace":
            vals = [" ".join(repr(float(v)) for v in (t.split() if isinstance(t, str) else t)) for t in df[c]]
        else:
            vals = [repr(x.item() if hasattr(x, "item") else x) for x in df[c].astype(object)]
        h.update(c.encode() + b"\0" + "\x1f".join(vals).encode() + b"\0")
    return h.hexdigest()


@pytest.mark.parametrize("game_id", game_ids())
def test_every_titles_results_and_drama_are_as_before(game_id):
    if game_id not in BEFORE:
        pytest.skip(f"{game_id} is newer than this check")
    games, digest, drama = BEFORE[game_id]
    g = get_game(game_id)
    df = runmod.run(runmod.RunSpec(game=game_id, strategies=default_lineup(game_id)[:g.default_players], games=games,
                                   seed=7, jobs=1), progress=False).results
    assert fingerprint(df) == digest
    got = designer.drama_summary(df)
    if drama is None:
        assert got is None
    else:
        assert got == pytest.approx(drama, rel=1e-12)
