"""Runs as a whole: determinism across jobs, batch sizes and backends; seat rotation; seeds;
failures that keep the finished games (DESIGN.md test layer 3)."""

import math
from collections import Counter

import numpy as np
import pandas as pd
import pytest

from analyser import run as runmod
from analyser.run import execute
from analyser.engine.core import InputError, StrategyError
from analyser.engine.runner import game_seed, game_seeds, lineup, lineup_block, plan_batches


def run(**kw):
    spec = runmod.RunSpec(**{"game": "dao", "strategies": ["greedy", "threshold"], "games": 60, "players": 2,
                             "seed": 42, "jobs": 1, **kw})
    return runmod.run(spec, progress=False)


def same_rows(a, b):
    """Equal row for row, apart from the run id (unique to each run)."""
    pd.testing.assert_frame_equal(a.drop(columns="run_id"), b.drop(columns="run_id"))


def test_same_seed_identical_for_any_jobs_batch_size_and_backend():
    a, b, c = (r.results for r in (run(jobs=1, batch_size=7), run(jobs=2, batch_size=13),
                                   run(jobs=2, batch_size=60, backend="threading")))
    # every run has its own run_id (<game>-<seed>-<8 hex>); everything else is identical
    ids = [str(x["run_id"].iloc[0]) for x in (a, b, c)]
    assert len(set(ids)) == 3 and all(i.startswith("dao-42-") and len(i) == len("dao-42-") + 8 for i in ids)
    pd.testing.assert_frame_equal(a.drop(columns="run_id"), b.drop(columns="run_id"))
    pd.testing.assert_frame_equal(a.drop(columns="run_id"), c.drop(columns="run_id"))
    assert len(a) == 60 * 2


def test_an_automatic_plan_for_several_workers_halves_its_last_batches_and_plays_the_same_games(tmp_path):
    two = runmod.run(runmod.RunSpec(game="dao", strategies=["greedy", "threshold"], games=800, players=2, seed=42,
                                    jobs=2, backend="threading", engine="python"), progress=False,
                     out=tmp_path / "two")
    starts = sorted(int(p.stem.split("-")[1]) for p in (tmp_path / "two" / "results").glob("part-*.parquet"))
    # batches of 50 (800 games, 2 workers, 8 each); the last two halved
    assert starts == list(range(0, 700, 50)) + [700, 725, 750, 775]
    assert two.config["batch_size"] == 50
    same_rows(two.results, run(games=800).results)


def test_an_automatic_plan_of_a_compiled_run_has_four_batches_per_worker_and_plays_the_same_games(tmp_path):
    two = runmod.run(runmod.RunSpec(game="dao", strategies=["greedy", "threshold"], games=800, players=2, seed=42,
                                    jobs=2, engine="compiled"), progress=False, out=tmp_path / "two")
    starts = sorted(int(p.stem.split("-")[1]) for p in (tmp_path / "two" / "results").glob("part-*.parquet"))
    # batches of 100 (800 games, 2 workers, 4 each); the last two halved
    assert starts == list(range(0, 600, 100)) + [600, 650, 700, 750]
    assert (two.config["batch_size"], two.config["engine"]) == (100, "compiled")
    same_rows(two.results, run(games=800, engine="python").results)


def test_a_compiled_run_batches_at_most_5000_games():
    assert execute.automatic_batch_size("compiled", [(0, 1_000_000)], 2) == 5000
    assert execute.automatic_batch_size("compiled", [(0, 20_000)], 1) == 5000
    assert execute.automatic_batch_size("compiled", [(100, 130)], 2) == 20
    assert execute.automatic_batch_size("python", [(0, 20_000)], 2) == 1250


def test_run_id_is_unique_per_run_and_recorded():
    a, b = run(games=4), run(games=4)
    ids = {str(a.results["run_id"].iloc[0]), str(b.results["run_id"].iloc[0])}
    assert len(ids) == 2 and all(i.startswith("dao-42-") for i in ids)
    assert a.config["run_id"] == str(a.results["run_id"].iloc[0])
    assert a.results["run_id"].dtype == "category" and (a.results["game_seed"] > 0).all()


def test_different_seed_differs():
    a = run(seed=1).results
    b = run(seed=2).results
    assert not a["score"].equals(b["score"])


def test_game_seed_is_the_spawned_child_of_the_root_seed_sequence():
    child = np.random.SeedSequence(42).spawn(5)[3]
    lo, hi = child.generate_state(2, np.uint32).tolist()
    assert game_seed(42, 3) == lo | (hi << 32)
    assert game_seed(42, 3) != game_seed(42, 4)


@pytest.mark.parametrize("root", [0, 1, 42, 2 ** 32 - 1, 2 ** 32, 2 ** 63 + 5, 2 ** 64 - 1, 2 ** 96 + 7, 2 ** 128 - 1,
                                  2 ** 128 + 12345, 98765432109876543210987654321098765432109876543210])
def test_a_batchs_game_seeds_at_once_are_numpys_one_by_one(root):
    """The batch's seeds hash the game indices as arrays; they must be numpy's SeedSequence
    children exactly, for roots of one to six 32-bit words and indices up to and past 2**32."""
    for start, stop in ((0, 40), (123_456, 123_470), (2 ** 32 - 6, 2 ** 32 + 3)):
        assert game_seeds(root, start, stop) == [game_seed(root, i) for i in range(start, stop)]
    assert game_seeds(root, 5, 5) == []


def test_results_frame_columns_and_types():
    df = run(games=8, players=4).results
    assert list(df.columns[:7]) == ["run_id", "game", "game_index", "game_seed", "players", "seat", "strategy"]
    for rule in ("bust_limit", "display_size", "colours", "values", "equal_exception", "tie_break",
                 "two_player_halves"):
        assert rule in df.columns
    for col in ("score", "rank", "win", "cards", "busts", "colour_share", "turns"):
        assert col in df.columns
    assert df["strategy"].dtype == "category"
    assert df["game_seed"].dtype == "uint64"
    assert (df.groupby("game_index")["win"].sum().round(9) == 1.0).all()  # one win shared per game
    assert (df["bust_limit"] == 12).all()


def test_seat_rotation_puts_each_strategy_in_each_seat_equally():
    df = run(strategies=["greedy", "threshold", "random"], players=3, games=30).results
    counts = df.groupby(["strategy", "seat"], observed=True).size().unstack()
    assert (counts.to_numpy() == 10).all()
    assert lineup(0, 4, 2) == [0, 1, 0, 1]
    assert lineup(1, 4, 2) == [1, 0, 1, 0]
    assert lineup(2, 3, 3) == [2, 0, 1]


@pytest.mark.parametrize("m, n", [(3, 4), (2, 3), (4, 6), (5, 6), (2, 4), (3, 3), (1, 5)])
def test_uneven_lineups_give_every_strategy_the_same_games_in_every_seat(m, n):
    """Over every block of lineup_block(n, m) games each strategy plays the same number of
    player-games and sits in each seat equally often, whatever the block; each strategy takes the
    extra seat in turn (3 strategies at 4 seats: one of them in two seats of every game)."""
    block = lineup_block(n, m)
    assert block == n * m // math.gcd(m, n)
    for start in (0, block, 17 * block):
        seats = [lineup(i, n, m) for i in range(start, start + block)]
        per_seat = Counter((x, s) for lu in seats for s, x in enumerate(lu))
        assert set(per_seat.values()) == {block // m} and len(per_seat) == m * n
    if m == 3 and n == 4:
        doubled = [Counter(lineup(b * 4, 4, 3)).most_common(1)[0][0] for b in range(3)]
        assert sorted(doubled) == [0, 1, 2]


def test_lineups_where_the_strategies_divide_the_seats_are_unchanged():
    """m divides n: one base lineup S[t mod m], as earlier versions seated (results stay the same)."""
    from analyser.engine.runner import block_order
    for m, n in ((1, 4), (2, 4), (4, 4), (3, 6), (2, 2)):
        for i in range(60):
            block, shift = divmod(i, n)
            order = block_order(block, n)
            assert lineup(i, n, m) == [order[(s + shift) % n] % m for s in range(n)]


def test_lineups_vary_who_sits_after_whom():
    """Each block of n games is balanced by seat, and the order inside blocks changes, so no
    strategy always sits right after the same one (a plain rotation would)."""
    after = {}
    for i in range(300):
        seats = lineup(i, 3, 3)
        for s in range(3):
            after[(seats[s], seats[(s + 1) % 3])] = after.get((seats[s], seats[(s + 1) % 3]), 0) + 1
    # strategy 1 follows 0 and 2 follows 0, each a fair part of the time
    assert 0.35 < after[(0, 1)] / (after[(0, 1)] + after[(0, 2)]) < 0.65
    for b in range(50):
        block = [lineup(b * 4 + r, 4, 4) for r in range(4)]
        for seat in range(4):
            assert sorted(g[seat] for g in block) == [0, 1, 2, 3]


def test_rule_overrides_reach_the_games_and_the_rows():
    df = run(rules={"bust_limit": "20"}, games=20).results
    assert (df["bust_limit"] == 20).all()
    base = run(games=20).results
    assert df["busts"].mean() < base["busts"].mean()


def test_plan_batches_cover_every_game_once():
    for games, jobs, size in ((1, 2, None), (1000, 2, None), (1001, 3, 7), (50, 1, 50)):
        b = plan_batches(games, jobs, size)
        assert b[0][0] == 0 and b[-1][1] == games
        assert all(x[1] == y[0] for x, y in zip(b, b[1:]))


@pytest.mark.parametrize("kw, match", [
    ({"game": "chess"}, "unknown game 'chess'; choose one of: dao"),
    ({"strategies": ["nope"]}, "unknown strategy 'nope' for dao"),
    ({"strategies": ["threshold:depth=2"]}, "unknown parameter 'depth' for strategy 'threshold'; accepted: limit"),
    ({"strategies": ["threshold:limit=high"]}, "limit='high'"),
    ({"strategies": ["threshold:limit"]}, "malformed strategy parameter 'limit'"),
    ({"rules": {"bust": "3"}}, "unknown rule 'bust'"),
    ({"rules": {"tie_break": "coin"}}, "tie_break='coin' is not accepted; choose one of: most_cards, shared"),
    ({"players": 7}, "--players 7 is not accepted for dao; choose 2 to 6"),
    ({"players": 1}, "choose 2 to 6"),
    ({"games": 0}, "--games 0 is not accepted"),
    ({"strategies": ["greedy"] * 3, "players": 2}, "3 strategies for 2 seats"),
])
def test_bad_input_is_one_line_naming_the_value(kw, match):
    with pytest.raises(InputError) as e:
        run(**kw)
    assert match in str(e.value)
    assert "\n" not in str(e.value)


BAD = '''
from analyser.engine.core import Strategy
from analyser.titles.dao.rules import TAKE

class Crashes(Strategy):
    """Raises once the class has been asked `after` times (counted across games)."""
    name = "crashes"
    calls = 0
    def __init__(self, after: int = 100):
        self.after = after
    def choose(self, view, legal, rng):
        type(self).calls += 1
        if type(self).calls > self.after:
            raise ZeroDivisionError("boom")
        return TAKE

class Illegal(Strategy):
    name = "illegal"
    def choose(self, view, legal, rng):
        return "fold"

class Sleeper(Strategy):
    name = "sleeper"
    def choose(self, view, legal, rng):
        import time
        time.sleep(30)

STRATEGIES = [Crashes, Illegal, Sleeper]
'''


@pytest.fixture
def bad_file(tmp_path):
    p = tmp_path / "bad_bots.py"
    p.write_text(BAD)
    return str(p)


def test_strategy_that_raises_stops_the_run_and_keeps_finished_games(bad_file):
    res = run(strategies=[f"{bad_file}:crashes:after=300", "greedy"], games=40, batch_size=5)
    assert isinstance(res.error, StrategyError)
    e = res.error
    assert e.strategy.endswith("crashes:after=300") and "ZeroDivisionError: boom" in str(e)
    assert e.game_index is not None and e.game_seed == game_seed(42, e.game_index)
    done = res.results["game_index"].unique()
    assert 0 < len(done) < 40 and e.game_index not in done
    assert res.config["status"] == "failed"


def test_illegal_action_is_reported_with_seat_and_seed(bad_file):
    res = run(strategies=["greedy", f"{bad_file}:illegal"], games=10)
    assert isinstance(res.error, StrategyError) and res.error.kind == "illegal"
    assert "'fold'" in str(res.error) and str(res.error).split("legal were: ")[1].startswith("take, reveal")
    assert res.error.seat == 1 and res.error.game_index == 0


def test_hanging_strategy_is_reported_as_hung(bad_file):
    # (1 s: loading the strategy file counts towards the first game's time, however loaded the machine;
    # two jobs: should the watchdog have to end a worker, it is a pool's, never this test's process)
    res = run(strategies=["greedy", f"{bad_file}:sleeper"], games=4, game_timeout=1.0, jobs=2, batch_size=2)
    assert isinstance(res.error, StrategyError) and res.error.kind == "hung"
    assert "in time" in str(res.error)


def test_keyboard_interrupt_keeps_finished_games(tmp_path):
    p = tmp_path / "ctrl_c.py"
    p.write_text('''
from analyser.engine.core import Strategy
from analyser.titles.dao.rules import TAKE
class CtrlC(Strategy):
    name = "ctrlc"
    uses_rng = False
    calls = 0
    def choose(self, view, legal, rng):
        type(self).calls += 1
        if type(self).calls > 500:
            raise KeyboardInterrupt
        return TAKE
''')
    res = run(strategies=[f"{p}:ctrlc", "greedy"], games=50, batch_size=10)
    assert res.interrupted and res.config["status"] == "interrupted"
    assert 0 < res.results["game_index"].nunique() < 50


def test_extra_table_rows_travel_as_columns_that_make_the_same_frame():
    """A batch sends an extra table as {key: values} (numpy for all-int, all-float or all-bool
    columns); pandas must build the very frame it builds from the rows."""
    from analyser.engine.batchrecords import as_columns
    rows = [{"round": 1, "seat": 0, "points": 20, "share": 0.5, "exact": True, "trump": "red", "big": 2 ** 70,
             "mixed": 1, "flag": True, "maybe": None},
            {"round": 1, "seat": 1, "points": -10, "share": 1.0, "exact": False, "trump": "red", "big": 3,
             "mixed": 2.5, "flag": 1, "maybe": 4}]
    cols = as_columns(rows)
    assert isinstance(cols, dict) and isinstance(cols["points"], np.ndarray) and isinstance(cols["flag"], list)
    pd.testing.assert_frame_equal(pd.DataFrame(cols), pd.DataFrame.from_records(rows))
    ragged = rows + [{"round": 2, "seat": 0}]
    assert as_columns(ragged) is ragged  # rows with other keys stay rows



REUSE = '''
from analyser.engine.core import Strategy
from analyser.titles.dao.rules import TAKE, REVEAL

class Counted(Strategy):
    """Counts its constructions and the games it saw; reveals on its first move of a game."""
    name = "counted"
    uses_rng = False
    reuse = True
    built = 0
    def __init__(self):
        type(self).built += 1
    def reset(self, seat, params, n_players):
        self.first = True
    def choose(self, view, legal, rng):
        first, self.first = self.first, False
        return REVEAL if first or view.total < 8 else TAKE

class Fresh(Counted):
    """The same, without declaring reuse itself: built for every game."""
    name = "fresh"
'''


def test_a_strategy_declaring_reuse_is_built_once_per_seat_and_batch_and_plays_alike(tmp_path):
    from analyser.engine.registry import strategy_factory
    from analyser.engine.runner import BatchJob, run_batch
    p = tmp_path / "reuse_bots.py"
    p.write_text(REUSE)
    counted = strategy_factory(f"{p}:counted", "dao")().__class__
    base = counted.built
    res = run_batch(BatchJob("dao", (), (f"{p}:counted", "greedy"), 2, 5, 0, 12, 0.0))
    assert res.error is None and res.done == 12
    assert counted.built - base == 3  # one when the spec is checked, then one per seat for 12 games
    fresh = strategy_factory(f"{p}:fresh", "dao")().__class__
    base = fresh.built
    other = run_batch(BatchJob("dao", (), (f"{p}:fresh", "greedy"), 2, 5, 0, 12, 0.0))
    assert fresh.built - base == 13  # the flag is not inherited: the check, then one per game
    for name in ("score", "rank", "win", "cards", "busts"):  # the same games, move for move
        assert np.array_equal(res.columns[name], other.columns[name])
    one = run_batch(BatchJob("dao", (), (f"{p}:counted", "greedy"), 2, 5, 0, 6, 0.0))
    two = run_batch(BatchJob("dao", (), (f"{p}:counted", "greedy"), 2, 5, 6, 12, 0.0))
    assert np.array_equal(np.concatenate([one.columns["score"], two.columns["score"]]), res.columns["score"])


def test_a_batch_stopped_mid_game_keeps_only_the_games_it_counted():
    """A stop (Ctrl-C, a time limit) between the columns of a game: every column is cut to the
    games the batch counted as done."""
    from analyser.engine.registry import get_game
    from analyser.engine.runner import BatchJob, BatchRecords, BatchResult, finish_columns
    game = get_game("dao")
    rec = BatchRecords(game, 4, 10)
    rec.seeds += [11, 22, 33]  # the third game was stopped after its seed and strategies
    rec.strategy += [0] * 12
    rec.score += [5, -1, 2, 0] * 2 + [7]
    rec.rank += [1, 4, 2, 3] * 2
    rec.win += [1.0, 0.0, 0.0, 0.0] * 2
    rec.metrics += [(3, 1, 0.5, 40, (1, 2, 5))] * 8
    res = BatchResult(start=10, rows=[], records=rec, done=2)
    finish_columns(res, game, BatchJob("dao", (), ("threshold",), 4, 9, 10, 13, 0.0))
    assert res.records is None and {len(v) for v in res.columns.values()} == {8}
    assert res.columns["game_index"].tolist() == [10] * 4 + [11] * 4
    assert res.columns["game_seed"].tolist() == [11] * 4 + [22] * 4
    assert res.columns["seat"].tolist() == [0, 1, 2, 3] * 2 and res.columns["score"].tolist() == [5, -1, 2, 0] * 2


SLOW = '''
import time
from analyser.engine.core import Strategy
from analyser.titles.dao.rules import TAKE

class Slow(Strategy):
    """Thinks 0.3 s over its first move of every game, and 5 s in the game where
    the first front card is worth `stall` (never, by default)."""
    name = "slow"
    uses_rng = False
    def __init__(self, stall: int = -1):
        self.stall = stall
    def reset(self, seat, params, n_players):
        self.first = True
    def choose(self, view, legal, rng):
        if self.first:
            self.first = False
            time.sleep(5 if view.display[0][1] == self.stall else 0.3)
        return TAKE
'''


def test_the_time_limit_is_per_game_within_a_batch_and_names_the_game_that_ran_over(tmp_path):
    from analyser.engine.runner import BatchJob, run_batch
    p = tmp_path / "slow_bots.py"
    p.write_text(SLOW)
    # one batch of 4 games, 0.3 s each: the batch outlasts the 1 s limit, no game does (a game
    # has 0.7 s to spare on its own clock, however loaded the machine)
    res = run_batch(BatchJob("dao", (), (f"{p}:slow", "greedy"), 2, 4, 0, 4, 1.0))
    assert res.error is None and res.done == 4
    # the first game whose opening front card (seen by the slow seat) is a 3 stalls: the third
    res = run_batch(BatchJob("dao", (), (f"{p}:slow:stall=3", "greedy"), 2, 4, 0, 12, 1.0))
    e = res.error
    assert isinstance(e, StrategyError) and e.kind == "hung" and "in time" in str(e)
    assert e.game_index == res.done == 2 and e.game_seed == game_seed(4, e.game_index)
    assert res.columns["game_index"].tolist() == [i for i in range(res.done) for _ in range(2)]


def test_the_time_limit_leaves_out_the_time_a_game_waits_for_a_cpu(tmp_path, monkeypatch):
    """The parent keeps the clock on the child's own time: wall-clock time less the time it was
    ready to run but waited for a CPU (a busy machine).  Here every second counts as waiting, so
    a game 0.3 s long stays within a 0.2 s limit; counted as it really is, it does not."""
    import time

    from analyser.engine import timelimit
    from analyser.engine.runner import BatchJob, run_batch
    p = tmp_path / "slow_bots.py"
    p.write_text(SLOW)
    job = BatchJob("dao", (), (f"{p}:slow", "greedy"), 2, 4, 0, 2, 0.2)
    t0 = time.monotonic()
    monkeypatch.setattr(timelimit, "waited", lambda pid: time.monotonic() - t0)
    res = run_batch(job)
    assert res.error is None and res.done == 2
    monkeypatch.undo()
    res = run_batch(job)
    assert isinstance(res.error, StrategyError) and res.error.kind == "hung" and res.error.game_index == 0
    assert res.done == 0
