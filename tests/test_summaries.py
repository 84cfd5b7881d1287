"""The streamed report (issue 9): core figures from additive sums chunk by chunk must give the
numbers the whole-table functions of analysis.py / designer.py give, for any chunk size, and a run
folder read part by part must give the same report for any batch size."""

from __future__ import annotations

import math

import matplotlib.cbook as cbook
import numpy as np
import pandas as pd
import pytest

from analyser.stats import analysis, designer, seats, streamed
from analyser.report import summaries
from analyser.engine.registry import get_game
from analyser.results import load_results
from analyser.run import RunSpec, run


def _run(tmp_path, game, strategies, games, seed, batch_size=None, players=None, name="run"):
    out = tmp_path / name
    spec = RunSpec(game=game, strategies=list(strategies), games=games, seed=seed, jobs=1,
                   players=players, batch_size=batch_size)
    run(spec, out=out)
    return out


def _close(a, b, what):
    if isinstance(a, float) or isinstance(b, float):
        if math.isnan(a) and math.isnan(b):
            return
        assert a == pytest.approx(b, rel=1e-9, abs=1e-12), what
    else:
        assert a == b, what


def _core(df, chunk_games):
    strategies = [str(s) for s in df["strategy"].cat.categories]
    players = int(df["players"].iloc[0])
    return streamed.reduce_sums(summaries.core_sums(c, strategies, players)
                                for c, _ in streamed.chunk_frame(df, {}, chunk_games)), strategies, players


#: Under pytest-xdist (--dist loadgroup) this file's tests run in one worker, so its module-scoped
#: fixtures are built once, not once per worker.
pytestmark = pytest.mark.xdist_group("test_summaries")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("summaries")
    return {
        # three unequal strategies, shared wins possible: the clustered intervals
        "dao": _run(tmp, "dao", ["greedy", "threshold", "random"], 600, 3, batch_size=90, name="dao"),
        # a strategy in two seats of every game: cluster-robust win rates, not Wilson
        "wizard": _run(tmp, "wizard", ["expected", "random"], 120, 5, players=4, name="wizard"),
        "tsuro-seas": _run(tmp, "tsuro-seas", ["survivor", "random"], 300, 7, name="tsuro"),
    }


def _run_summary(df: pd.DataFrame) -> dict:
    """The reference of ``summaries.run_figures``, from the whole frame."""
    games = analysis.per_game(df)
    n = len(games)
    tie_rate = float(games["tie"].mean()) if n else math.nan
    lo, hi = analysis.wilson(tie_rate, n)
    out = {"games": n, "tie_rate": tie_rate, "tie_low": lo, "tie_high": hi,
           "runs": int(df["run_id"].nunique()) if "run_id" in df.columns else 1,
           "score_sd": float(df["score"].std()) if len(df) > 1 else math.nan,
           "margin_mean": float(games["margin"].mean()) if n else math.nan}
    out["seats"] = analysis.seat_balance(df)
    out["mirror"] = analysis.mirror_strategies(df)
    if "turns" in games.columns and n:
        t = games["turns"]
        out.update(turns_mean=float(t.mean()), turns_sd=float(t.std()) if n > 1 else 0.0,
                   turns_median=float(t.median()), turns_p5=float(t.quantile(0.05)),
                   turns_p95=float(t.quantile(0.95)))
    return out


def _compensation(df: pd.DataFrame, kind: str) -> pd.DataFrame | None:
    """The reference seat compensation of a whole frame: every game its own block, resampled."""
    players = int(df["players"].iloc[0])
    game = df.groupby(analysis.game_keys(df), sort=True).ngroup().to_numpy()
    sums = seats.compensation_sums(game, df["seat"].to_numpy(), df["score"].to_numpy(), df["win"].to_numpy(),
                                   players, np.arange(game.max() + 1))
    return seats.compensation_from_sums(sums, players, kind)


@pytest.mark.parametrize("title", ["dao", "wizard", "tsuro-seas"])
@pytest.mark.parametrize("chunk_games", [29, 100_000])
def test_core_figures_from_sums_equal_the_whole_table_functions(runs, title, chunk_games):
    df, _, _ = load_results(runs[title])
    total, strategies, players = _core(df, chunk_games)
    binary = bool(np.all((df["win"] == 0) | (df["win"] == 1)))
    want = analysis.strategy_summary(df)
    got = summaries.strategy_table(total, strategies, binary)
    assert got.attrs["methods"] == want.attrs["methods"]
    pd.testing.assert_frame_equal(got.assign(strategy=got["strategy"].astype(str)),
                                  want.assign(strategy=want["strategy"].astype(str)), check_dtype=False, rtol=1e-9)
    pd.testing.assert_frame_equal(summaries.seat_table(total, players, binary), analysis.seat_summary(df),
                                  check_dtype=False, rtol=1e-9)
    want_run, got_run = _run_summary(df), summaries.run_figures(total, 1)
    assert set(got_run) == set(want_run)
    for key, value in want_run.items():
        if key == "seats":
            for k, v in value.items():
                _close(got_run["seats"][k], v, k)
        else:
            _close(got_run[key], value, key)
    # the designer table: decisiveness and drama exact; the skill share's point estimate exact
    # (its interval resamples blocks of games, which are single games below 1,000 games)
    game = get_game(title)
    got_d, want_d = summaries.designer_figures(total, game), designer.designer_table(df, game)
    pd.testing.assert_frame_equal(got_d, want_d)
    assert got_d.attrs["left_out"] == want_d.attrs["left_out"]
    # each strategy's win rate in each seat
    got_ss = summaries.strategy_seat_table(total, strategies, players, binary)
    want_ss = analysis.strategy_seat_summary(df)
    assert got_ss.attrs["methods"] == want_ss.attrs["methods"]
    pd.testing.assert_frame_equal(got_ss.assign(strategy=got_ss["strategy"].astype(str)),
                                  want_ss.assign(strategy=want_ss["strategy"].astype(str)), check_dtype=False,
                                  rtol=1e-9)
    # the seat compensation: the same handicaps and (below 200 games per block) intervals
    kind = game.scoring.outcome
    got_c = seats.compensation_from_sums(total["seat_diff"], players, kind)
    want_c = _compensation(df, kind)
    if kind == "other":
        assert got_c is None and want_c is None
    else:
        pd.testing.assert_frame_equal(got_c.drop(columns=["handicap_low", "handicap_high"]),
                                      want_c.drop(columns=["handicap_low", "handicap_high"]), rtol=1e-9)
        if df["game_index"].nunique() <= seats.BLOCKS:
            pd.testing.assert_frame_equal(got_c, want_c, rtol=1e-9)


def test_the_mirror_match_and_wilson_paths(tmp_path):
    out = _run(tmp_path, "dao", ["greedy"], 200, 11)
    df, _, _ = load_results(out)
    total, strategies, players = _core(df, 13)
    run_fig = summaries.run_figures(total, 1)
    assert run_fig["mirror"] == ["greedy"] == analysis.mirror_strategies(df)
    assert summaries.skill_share(total) is None  # one strategy: no skill share
    binary = bool(np.all((df["win"] == 0) | (df["win"] == 1)))
    seats = summaries.seat_table(total, players, binary)
    assert seats.attrs["methods"]["win"] == analysis.seat_summary(df).attrs["methods"]["win"]
    assert list(seats["n"]) == [200] * 4


def test_skill_share_resamples_blocks_of_games(runs):
    df, _, _ = load_results(runs["dao"])
    total, _, _ = _core(df, 50)
    got = summaries.skill_share(total)
    want = designer.luck_skill(df)
    assert got["skill_share"] == pytest.approx(want["skill_share"], rel=1e-9)
    assert got["p"] == pytest.approx(want["p"], rel=1e-6)
    score_got, score_want = summaries.skill_share(total, on="score"), designer.luck_skill(df, on="score")
    for key in ("skill_share", "skill_low", "skill_high"):
        assert score_got[key] == pytest.approx(score_want[key], rel=1e-9, abs=1e-12)
    # 600 games from game 0, fewer than the blocks: each block is one game, as in the bootstrap over games
    assert len(total["skill"]) == 600
    assert got["skill_low"] == pytest.approx(want["skill_low"], rel=1e-9)
    assert got["skill_high"] == pytest.approx(want["skill_high"], rel=1e-9)
    # more games than blocks: the blocks hold several games each and the sums stay BLOCKS rows
    big = pd.concat([df.assign(game_index=df["game_index"] + k * 600) for k in range(3)], ignore_index=True)
    total_big, _, _ = _core(big, 400)
    assert len(total_big["skill"]) == summaries.BLOCKS
    assert total_big["skill"]["games"].sum() == 1800


def test_sums_stay_small(runs):
    df, _, _ = load_results(runs["dao"])
    total, strategies, players = _core(df, 61)
    assert len(total["strategy"]) == 3 and len(total["seat"]) == players
    assert len(total["games"]) == 1
    assert len(total["scores"]) <= 3 * (df["score"].max() - df["score"].min() + 1)
    assert len(total["turns"]) == df.groupby("game_index")["turns"].first().nunique()


def test_a_run_read_part_by_part_gives_the_same_report_for_any_batch_size(tmp_path):
    from analyser.report.page import build_report_from_run
    a = _run(tmp_path, "dao", ["greedy", "random"], 450, 21, batch_size=40, name="a")
    b = _run(tmp_path, "dao", ["greedy", "random"], 450, 21, batch_size=450, name="b")
    _, sa, _ = build_report_from_run(a)
    _, sb, _ = build_report_from_run(b)
    assert (a / "summary.csv").read_bytes() == (b / "summary.csv").read_bytes()
    pd.testing.assert_frame_equal(sa.seats, sb.seats)
    assert sa.run == sb.run
    assert sa.parts[0].designer.equals(sb.parts[0].designer)
    assert [t.to_dict() for _, t in sa.title_tables] == [t.to_dict() for _, t in sb.title_tables]
    # and the same numbers as the whole table
    df, _, _ = load_results(a)
    assert sa.run["games"] == 450 == df["game_index"].nunique()
    assert sa.strategies["win_rate"].tolist() == pytest.approx(analysis.strategy_summary(df)["win_rate"].tolist())


def test_run_chunks_hold_whole_games_in_order_with_their_extra_rows(runs):
    df, extras, _ = load_results(runs["wizard"])
    chunks = list(streamed.iter_run_chunks(runs["wizard"], ["rounds"], chunk_games=17))
    assert len(chunks) == math.ceil(120 / 17)
    for i, (c, e) in enumerate(chunks):
        games = c["game_index"].to_numpy()
        assert games.min() == 17 * i and games.max() == min(17 * i + 16, 119)
        assert len(c) == 4 * c["game_index"].nunique()
        assert set(e["rounds"]["game_index"]) == set(games)
    joined = pd.concat([e["rounds"] for _, e in chunks], ignore_index=True)
    assert len(joined) == len(extras["rounds"])
    assert (joined["game_index"].to_numpy() == extras["rounds"]["game_index"].to_numpy()).all()


def test_quantiles_and_boxes_from_counts_match_numpy_and_matplotlib():
    rng = np.random.default_rng(4)
    for _ in range(100):
        x = np.concatenate([rng.integers(0, 9, rng.integers(1, 40)), rng.integers(0, 60, rng.integers(0, 3))])
        v, c = np.unique(x.astype(float), return_counts=True)
        for q in (0, 0.05, 0.25, 0.5, 0.9, 0.95, 1):
            assert streamed.quantile_from_counts(v, c, q) == pytest.approx(np.quantile(x, q))
        got, want = streamed.box_stats_from_counts(v, c), cbook.boxplot_stats(x.astype(float))[0]
        for k in ("q1", "med", "q3", "whislo", "whishi", "mean"):
            assert got[k] == pytest.approx(want[k])
        assert set(got["fliers"]) == set(want["fliers"])


def test_combine_sums_adds_cells_and_keeps_max_and_min():
    a = {"t": pd.DataFrame({"n": [1.0, 2.0], "v_max": [3.0, 4.0], "v_min": [1.0, 1.0]},
                           index=pd.Index(["x", "y"], name="strategy"))}
    b = {"t": pd.DataFrame({"n": [5.0], "v_max": [9.0], "v_min": [0.0]}, index=pd.Index(["y"], name="strategy")),
         "u": pd.DataFrame({"k": [1.0]})}
    out = streamed.combine_sums(a, b)
    assert out["t"].to_dict() == {"n": {"x": 1.0, "y": 7.0}, "v_max": {"x": 3.0, "y": 9.0},
                                  "v_min": {"x": 1.0, "y": 0.0}}
    assert out["u"]["k"].tolist() == [1.0]


def _game_drama(trace: np.ndarray, winners: list[int]) -> tuple[int, float, float]:
    """The reference: drama of one game from its trace (steps x seats array of scores after each
    step) and the seats that won, ``(lead_changes, lead_for_good_at, deficit_overcome)`` (the last
    two NaN for a shared win or an empty trace), one game at a time."""
    steps = trace.shape[0]
    if steps == 0:
        return 0, math.nan, math.nan
    top = trace.max(axis=1)
    at_top = trace == top[:, None]
    sole = at_top.sum(axis=1) == 1
    leader = np.where(sole, trace.argmax(axis=1), -1)
    seq = leader[leader >= 0]
    changes = int(np.count_nonzero(seq[1:] != seq[:-1])) if len(seq) > 1 else 0
    if len(winners) != 1:
        return changes, math.nan, math.nan
    w = winners[0]
    leads = leader == w
    if not leads[-1]:
        good = 1.0
    else:
        not_leading = np.flatnonzero(~leads)
        first = int(not_leading[-1]) + 1 if len(not_leading) else 0
        good = first / steps
    others = np.delete(trace, w, axis=1)
    deficit = float(max(0.0, (others.max(axis=1) - trace[:, w]).max())) if others.shape[1] else 0.0
    return changes, good, deficit


def test_drama_of_many_games_at_once_equals_game_drama_game_by_game():
    rng = np.random.default_rng(9)
    for players in (1, 2, 3, 4):
        games, traces, wins, want = 60, [], [], []
        for g in range(games):
            steps = int(rng.integers(0, 7))
            mat = rng.integers(0, 4, size=(steps, players)).cumsum(axis=0).astype(float)
            winners = list(rng.choice(players, size=int(rng.integers(1, players + 1)), replace=False))
            for k in range(players):
                sep = "\t" if g % 5 == 0 else ("  " if g % 7 == 0 else " ")
                traces.append(sep.join(str(int(v)) for v in mat[:, k]))
                wins.append(1.0 / len(winners) if k in winners else 0.0)
            want.append(_game_drama(mat, sorted(int(w) for w in winners)))
        got = designer.drama_arrays(np.array(traces, dtype=object), np.array(wins), players)
        want = np.array(want, dtype=float)
        for i in range(3):
            np.testing.assert_allclose(np.asarray(got[i], dtype=float), want[:, i], equal_nan=True)


def test_joined_runs_with_an_extra_table_that_cannot_name_its_run_are_refused(runs, tmp_path):
    """Two runs joined by hand whose rounds table lacks run_id: its rows cannot be told apart, so
    the report refuses in one line instead of counting them twice."""
    from analyser.report import page as report
    from analyser.engine.core import InputError
    df, extras, _ = load_results(runs["wizard"])
    other = df.assign(run_id=df["run_id"].astype(str) + "-b")
    both = pd.concat([df.assign(run_id=df["run_id"].astype(str)), other], ignore_index=True)
    rounds = extras["rounds"].drop(columns=["run_id"], errors="ignore")
    with pytest.raises(InputError, match="rounds.*run_id"):
        report.summarise(both, {"rounds": pd.concat([rounds, rounds], ignore_index=True)})
    # with run_id each run's rounds are its own: the tables equal one run's
    r = extras["rounds"].assign(run_id=extras["rounds"]["run_id"].astype(str))
    joined = report.summarise(both, {"rounds": pd.concat([r, r.assign(run_id=r["run_id"] + "-b")], ignore_index=True)})
    alone = report.summarise(df, extras)
    (cap_a, t_a), (cap_j, t_j) = alone.title_tables[0], joined.title_tables[0]
    assert cap_a == cap_j and t_j["rounds"].tolist() == [2 * x for x in t_a["rounds"].tolist()]


def _copy_run(src, dst):
    import shutil
    shutil.copytree(src, dst)
    return dst


def test_a_run_folder_whose_parts_disagree_with_its_record_is_refused(runs, tmp_path):
    """Parts missing, copied, renamed or from another run are refused in one line before any
    number is computed (they used to be counted, or left out, silently)."""
    from analyser.engine.core import InputError
    from analyser.report.page import summarise_run
    src = runs["dao"]
    parts = sorted(p.name for p in (src / "results").glob("part-*.parquet"))
    assert len(parts) == 7  # 600 games in batches of 90
    missing = _copy_run(src, tmp_path / "missing")
    (missing / "results" / parts[2]).unlink()
    with pytest.raises(InputError, match=r"0-179, 270-599,.*0-599"):
        summarise_run(missing)
    copied = _copy_run(src, tmp_path / "copied")
    (copied / "results" / "part-000099999.parquet").write_bytes((copied / "results" / parts[0]).read_bytes())
    with pytest.raises(InputError, match=r"part-000099999.parquet'.*0 to 89"):
        summarise_run(copied)
    damaged = _copy_run(src, tmp_path / "damaged")
    data = (damaged / "results" / parts[3]).read_bytes()
    (damaged / "results" / parts[3]).write_bytes(data[: len(data) // 2])
    with pytest.raises(InputError, match=r"damaged.*analyser resume"):
        summarise_run(damaged)
    # a part of another run of the same games: same name, same footer, another run id
    other = _run(tmp_path, "dao", ["greedy", "threshold", "random"], 600, 3, batch_size=90, name="other")
    foreign = _copy_run(src, tmp_path / "foreign")
    (foreign / "results" / parts[5]).write_bytes((other / "results" / parts[5]).read_bytes())
    # (named by the part, for the serial reader and the report's workers alike)
    from analyser.report.page import reduce_run
    for jobs in (1, 2):  # chunks of 90 games: 7 chunks, so 2 jobs reduce them in the report's workers
        # the part, then the run it holds and the run of the folder (the words: a one-line error)
        with pytest.raises(InputError, match=f"^part '{foreign / 'results' / parts[5]}' .*run .*config.json.*run "):
            reduce_run(foreign, jobs=jobs, chunk_games=90)
    # the untouched run is read (its figures; the page and its plots are another test's)
    summary = summarise_run(_copy_run(src, tmp_path / "fine"))
    assert summary.run["games"] == 600


def test_resume_names_a_damaged_part_as_report_does(runs, tmp_path):
    """`resume` says which part it plays again, and counts the games on disk, not the record's."""
    import json

    from click.testing import CliRunner

    from analyser.cli import cli
    run = _copy_run(runs["dao"], tmp_path / "damaged")
    part = sorted((run / "results").glob("part-*.parquet"))[3]
    part.write_bytes(b"garbage")
    record = json.loads((run / "config.json").read_text())
    (run / "config.json").write_text(json.dumps({**record, "status": "interrupted"}))
    r = CliRunner().invoke(cli, ["report", str(run)])
    assert r.exit_code == 2 and str(part) in r.output and "is damaged" in r.output, r.output
    r = CliRunner().invoke(cli, ["resume", str(run), "--no-report"])
    assert r.exit_code == 0, r.output
    note = next(line for line in r.output.splitlines() if line.startswith("analyser: note:"))
    assert f"part '{part}' " in note and "damaged" in note
    assert "510 of 600" in r.output  # the record says 600: the damaged part's 90 are played again
    pd.testing.assert_frame_equal(pd.read_parquet(runs["dao"] / "results"), pd.read_parquet(run / "results"))


@pytest.mark.parametrize("status", ["interrupted", "complete"])
def test_resume_refuses_a_renamed_part_and_deletes_nothing(runs, tmp_path, status):
    """A readable part under another game's name is the user's file: `resume` refuses it in one
    line, as `report` does, before it deletes or plays anything."""
    import json

    from click.testing import CliRunner

    from analyser.cli import cli
    run = _copy_run(runs["dao"], tmp_path / "renamed")
    part = sorted((run / "results").glob("part-*.parquet"))[3]
    part.rename(part.with_name("part-000099999.parquet"))
    record = json.loads((run / "config.json").read_text())
    (run / "config.json").write_text(json.dumps({**record, "status": status}))
    before = sorted((p.name, p.stat().st_size) for p in run.rglob("*") if p.is_file())
    for command in (["resume", str(run), "--no-report"], ["report", str(run)]):
        r = CliRunner().invoke(cli, command)
        assert r.exit_code == 2 and len(r.output.strip().splitlines()) == 1, r.output
        assert "part-000099999.parquet" in r.output
    assert sorted((p.name, p.stat().st_size) for p in run.rglob("*") if p.is_file()) == before


def test_a_missing_extra_part_is_refused(runs, tmp_path):
    from analyser.engine.core import InputError
    from analyser.report.page import build_report_from_run
    run = _copy_run(runs["wizard"], tmp_path / "w")
    first = sorted((run / "rounds").glob("part-*.parquet"))[0]
    first.unlink()
    with pytest.raises(InputError, match=r"rounds'.*games 0 to"):
        build_report_from_run(run)


def test_a_run_still_being_written_is_not_reported(runs, tmp_path, hold_lock):
    import socket
    import subprocess

    from analyser.engine.core import InputError
    from analyser.report.page import summarise_run
    run = _copy_run(runs["dao"], tmp_path / "live")
    writer = subprocess.Popen(["sleep", "60"])
    try:
        with hold_lock(run, f"{writer.pid} {socket.gethostname()}"):
            with pytest.raises(InputError, match=f"\\(PID {writer.pid}"):
                summarise_run(run)
    finally:
        writer.kill()
        writer.wait()
    summary = summarise_run(run)  # the writer is gone: its lock is stale
    assert summary.run["games"] == 600


def test_combined_counts_stay_whole_numbers():
    a = {"t": pd.DataFrame({"n": [1, 2], "mean_sum": [0.5, 1.0]}, index=pd.Index(["x", "y"], name="strategy"))}
    b = {"t": pd.DataFrame({"n": [5], "mean_sum": [0.25]}, index=pd.Index(["y"], name="strategy"))}
    out = streamed.combine_sums(a, b)["t"]
    assert out["n"].dtype == np.int64 and out["n"].tolist() == [1, 7]
    assert out["mean_sum"].dtype == np.float64 and out["mean_sum"].tolist() == [0.5, 1.25]
