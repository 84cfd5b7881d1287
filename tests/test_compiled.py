"""The compiled engine (analyser.engine.compiled, analyser/titles/dao/compiled.py): DAO's numba kernel plays
the very games the Python path plays - every column of every row, the score traces and the
components table - for every rule option and player count; the engine is chosen, recorded and
refused as documented; without numba the Python path runs and says why once."""

import dataclasses
import json
import sys

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analyser.engine import compiled, traces
from analyser.cli import cli
from analyser.engine.core import InputError
from analyser.engine.registry import get_game
from analyser.run import RunSpec, run
from analyser.engine.runner import BatchJob, run_batch

pytest.importorskip("numba")

ALL = ("greedy", "threshold", "colour", "random")


def assert_same(py, co):
    """Two BatchResults hold the same games: every column (dtype included), trace and component row."""
    assert (co.done, co.error, co.interrupted) == (py.done, None, False)
    assert py.error is None and py.done > 0
    assert list(co.columns) == list(py.columns)
    for name, a in py.columns.items():
        b = co.columns[name]
        if isinstance(a, traces.Packed):
            assert isinstance(b, traces.Packed) and b.values.dtype == a.values.dtype and b.missing is None
            np.testing.assert_array_equal(b.values, a.values, err_msg=name)
            np.testing.assert_array_equal(b.offsets, a.offsets, err_msg=name)
        else:
            assert b.dtype == a.dtype, name
            np.testing.assert_array_equal(b, a, err_msg=name)
    assert co.components == py.components
    assert co.extras == py.extras


def both(strategies, players, rules=(), start=3, stop=43, seed=20240611):
    job = BatchJob("dao", tuple(sorted(rules)), tuple(strategies), players, seed, start, stop, 0.0)
    return run_batch(job), run_batch(dataclasses.replace(job, engine="compiled"))


# Every value of every rule option at least once, at every player count; the lineups take every
# built-in strategy (with parameters) into every seat.
GRID = [
    ({}, 4), ({}, 2), ({}, 3), ({}, 5), ({}, 6),
    ({"bust_limit": "0"}, 3), ({"bust_limit": "7"}, 4), ({"bust_limit": "40"}, 6),
    ({"display_size": "1"}, 5), ({"display_size": "6", "bust_limit": "25"}, 2),
    ({"colours": "1"}, 4), ({"colours": "3"}, 2), ({"colours": "10"}, 6),
    ({"values": "0x2,3x1,7x2"}, 3), ({"values": "0x1,5x0,3x2", "colours": "7"}, 5),
    ({"values": "1x1,10x3,12x1", "bust_limit": "20"}, 4),
    ({"equal_exception": "front"}, 4), ({"equal_exception": "off"}, 2), ({"equal_exception": "adjacent"}, 6),
    ({"tie_break": "shared"}, 3), ({"tie_break": "shared", "values": "0x3,1x3"}, 5),
    ({"two_player_halves": "on"}, 3), ({"two_player_halves": "on"}, 6), ({"two_player_halves": "off"}, 2),
    ({"two_player_halves": "auto", "tie_break": "shared"}, 2),
    ({"seat_bonus": "2"}, 4), ({"seat_bonus": "0/0/0/-3/5"}, 5), ({"seat_bonus": "1/-1"}, 2),
]


@pytest.mark.parametrize("rules,players", GRID, ids=[f"{p}p-" + ",".join(f"{k}={v}" for k, v in r.items())
                                                     for r, p in GRID])
def test_compiled_plays_the_python_games_for_every_rule_option_and_player_count(rules, players):
    lineup = ["greedy", "threshold:limit=8", "colour:min_value=2,start=1", "random"][:players]
    if players >= 5:
        lineup.append("threshold")
    assert_same(*both(lineup, players, tuple(rules.items())))


@pytest.mark.parametrize("spec", ["random", "greedy", "threshold:limit=0", "threshold:limit=30",
                                  "colour:min_value=0,start=0", "colour:min_value=4,start=4"])
def test_each_built_in_strategy_alone_fills_every_seat(spec):
    assert_same(*both([spec], 4, stop=30))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(2, 6), bust=st.integers(0, 30), size=st.integers(1, 5), colours=st.integers(1, 6),
       ex=st.sampled_from(["adjacent", "front", "off"]), tie=st.sampled_from(["most_cards", "shared"]),
       halves=st.sampled_from(["auto", "on", "off"]), bonus=st.integers(-3, 3),
       lineup=st.lists(st.sampled_from(["greedy", "threshold:limit=5", "colour", "random"]), min_size=1, max_size=2),
       seed=st.integers(0, 2 ** 63 - 1))
def test_compiled_matches_python_on_drawn_rules(players, bust, size, colours, ex, tie, halves, bonus, lineup, seed):
    rules = {"bust_limit": str(bust), "display_size": str(size), "colours": str(colours), "equal_exception": ex,
             "tie_break": tie, "two_player_halves": halves, "seat_bonus": str(bonus)}
    assert_same(*both(lineup, players, tuple(rules.items()), start=0, stop=12, seed=seed))


def test_a_run_is_the_same_for_any_batch_size_and_engine():
    spec = RunSpec(game="dao", strategies=list(ALL), games=90, seed=11, jobs=1, batch_size=13)
    a = run(spec, progress=False)
    b = run(dataclasses.replace(spec, batch_size=40), progress=False)
    c = run(dataclasses.replace(spec, engine="python"), progress=False)
    assert (a.config["engine"], b.config["engine"], c.config["engine"]) == ("compiled", "compiled", "python")
    for other in (b, c):
        x, y = a.results.drop(columns="run_id"), other.results.drop(columns="run_id")
        assert x.equals(y)
        assert a.extras["component_counts"].drop(columns="run_id").equals(
            other.extras["component_counts"].drop(columns="run_id"))


def test_the_engine_is_chosen_and_the_reason_recorded(tmp_path):
    game = get_game("dao")
    params = game.Params()
    assert compiled.choose(game, params, 4, ["greedy", "threshold:limit=3"]) == ("compiled", None)
    assert compiled.choose(game, params, 4, ["greedy"], "python") == ("python", None)
    own = tmp_path / "bots.py"
    own.write_text("def choose(view, legal, rng):\n    return legal[0]\n")
    engine, why = compiled.choose(game, params, 4, ["greedy", f"{own}"])
    assert engine == "python" and f"{own}" in why and "kernel" in why.split()  # the strategy the kernel lacks
    engine, why = compiled.choose(get_game("kingdomino-duel"), get_game("kingdomino-duel").Params(), 2, ["random"])
    assert engine == "python" and why.split()[0] == "kingdomino-duel" and "kernel" in why.split()
    with pytest.raises(InputError, match=r"--engine compiled .*'mcts'"):
        compiled.choose(game, params, 4, ["mcts"], "compiled")
    with pytest.raises(InputError, match=r"--engine 'fast'"):
        compiled.choose(game, params, 4, ["greedy"], "fast")


def test_config_json_and_the_summary_name_the_engine(tmp_path):
    out = tmp_path / "run"
    res = CliRunner().invoke(cli, ["simulate", "dao", "-s", "greedy", "-s", "random", "-n", "40", "--seed", "3",
                                   "-j", "1", "-o", str(out), "--no-report", "-q"])
    assert res.exit_code == 0, res.output
    config = json.loads((out / "config.json").read_text())
    assert (config["engine"], config["engine_requested"], config["engine_note"]) == ("compiled", "auto", None)
    from types import SimpleNamespace

    from analyser.cli.reports import print_summary
    empty = SimpleNamespace(variants=[], parts=[], notes=[], findings=[])
    with CliRunner().isolation() as streams:
        print_summary(empty, 2, config)
    assert "Engine: compiled (" in streams[0].getvalue().decode()
    res = CliRunner().invoke(cli, ["simulate", "dao", "-s", "greedy", "-n", "20", "--seed", "3", "-j", "1",
                                   "-o", str(out), "--no-report", "-q", "--engine", "python"])
    assert res.exit_code == 0, res.output
    assert json.loads((out / "config.json").read_text())["engine"] == "python"


@pytest.mark.parametrize("title,engine", [("dao", "auto"), ("dao", "python"), ("wizard", "auto"), ("wizard", "python"),
                                          ("kingdomino-duel", "auto")])
def test_the_printed_summary_names_the_engine_the_run_played(tmp_path, title, engine):
    out = tmp_path / "run"
    res = CliRunner().invoke(cli, ["simulate", title, "-n", "12", "--seed", "3", "-j", "1", "-o", str(out),
                                   "--no-report", "--engine", engine])
    assert res.exit_code == 0, res.output
    config = json.loads((out / "config.json").read_text())
    named = [line.split()[1] for line in res.stdout.splitlines() if line.startswith("Engine: ")]
    assert named == [config["engine"]]
    assert config["engine"] == ("compiled" if title != "kingdomino-duel" and engine == "auto" else "python")


def test_engine_compiled_that_cannot_be_used_is_one_line_exit_2(tmp_path):
    res = CliRunner().invoke(cli, ["simulate", "dao", "-s", "greedy", "-s", "mcts:iterations=2", "-n", "4",
                                   "--engine", "compiled", "-o", str(tmp_path / "x")])
    assert res.exit_code == 2
    assert res.output.strip().count("\n") == 0
    assert res.output.split("analyser: error: ")[1].startswith("--engine compiled ")
    assert "'mcts:iterations=2'" in res.output
    assert "Traceback" not in res.output
    res = CliRunner().invoke(cli, ["simulate", "dao", "-s", "greedy", "--engine", "fast"])
    assert res.exit_code == 2 and "'fast'" in res.output and "'auto', 'python', 'compiled'" in res.output


def test_without_numba_the_python_path_runs_and_says_why_once(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "numba", None)
    monkeypatch.setattr(compiled, "_said", set())
    game = get_game("dao")
    assert compiled.choose(game, game.Params(), 4, ["greedy"]) == ("python", compiled.NO_NUMBA)
    with pytest.raises(InputError, match=r"\(pip install numba\)"):
        compiled.choose(game, game.Params(), 4, ["greedy"], "compiled")
    spec = RunSpec(game="dao", strategies=["greedy"], games=8, seed=1, jobs=1)
    first = run(spec, progress=False)
    again = run(spec, progress=False)
    assert first.config["engine"] == "python" and first.config["engine_note"] == compiled.NO_NUMBA
    err = capsys.readouterr().err
    assert err.count(compiled.NO_NUMBA) == 1  # said once
    assert first.results.drop(columns="run_id").equals(again.results.drop(columns="run_id"))
    # a batch sent to a worker without numba is played in Python, with the same games
    job = BatchJob("dao", (), ("random", "greedy"), 2, 5, 0, 10, 0.0, engine="compiled")
    fallback = run_batch(job)
    monkeypatch.delitem(sys.modules, "numba")
    assert_same(run_batch(dataclasses.replace(job, engine="python")), fallback)


def test_a_kernel_numba_cannot_load_leaves_the_run_to_python_said_once(monkeypatch, capsys, tmp_path):
    """numba imports but the kernel does not load (a broken install, a failed compile): the run
    plays in Python, records why and says it once; ``--engine compiled`` is refused in one line."""
    from analyser.titles.dao import compiled as dao_compiled

    def broken(self):
        raise ImportError("no machine code here")
    monkeypatch.setattr(dao_compiled.DaoEngine, "kernel", broken)
    monkeypatch.setattr(compiled, "_said", set())
    spec = RunSpec(game="dao", strategies=["greedy"], games=8, seed=1, jobs=1)
    first = run(spec, progress=False)
    again = run(spec, progress=False)
    note = first.config["engine_note"]
    assert (first.config["engine"], again.config["engine"], again.config["engine_note"]) == ("python", "python", note)
    assert "DAO (Dodekka)" in note and "(ImportError" in note
    assert capsys.readouterr().err.count(note) == 1
    assert first.results.drop(columns="run_id").equals(again.results.drop(columns="run_id"))
    res = CliRunner().invoke(cli, ["simulate", "dao", "-s", "greedy", "-n", "8", "--engine", "compiled", "-q",
                                   "--no-report", "-o", str(tmp_path / "run")])
    assert res.exit_code == 2 and res.output.strip().count("\n") == 0


def test_the_first_compile_is_said_once_and_a_cached_kernel_is_not_loaded_for_workers(monkeypatch, capsys):
    """:func:`compiled.prepare`: nothing cached - say so (unless the run is quiet) and compile (play
    the one-game batch); cached and this process plays nothing - neither; cached and this process
    plays - load it (play it)."""
    from analyser.titles.dao import compiled as dao_compiled

    game = get_game("dao")
    job = BatchJob("dao", (), ("greedy",), 4, 1, 0, 1, 0.0, engine="compiled")
    played = []
    real = dao_compiled.DaoEngine.run_batch
    monkeypatch.setattr(dao_compiled.DaoEngine, "run_batch", lambda *a: played.append(1) or real(*a))
    for cached, here, say, plays, lines in [(False, False, True, 1, 1), (True, False, True, 0, 0),
                                            (True, True, True, 1, 0), (False, True, True, 1, 1),
                                            (False, False, False, 1, 0)]:
        monkeypatch.setattr(compiled, "on_disk", lambda kernel: cached)
        played.clear()
        assert compiled.prepare(game, job, here, say) is None
        assert (len(played), len(capsys.readouterr().err.splitlines())) == (plays, lines)


def test_on_disk_reads_numbas_cache_of_a_function(tmp_path, monkeypatch):
    (tmp_path / "tiny_kernel.py").write_text("import numba\n\n@numba.njit(cache=True)\ndef twice(x):\n"
                                             "    return 2 * x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import tiny_kernel
    assert not compiled.on_disk(tiny_kernel.twice)
    assert tiny_kernel.twice(21) == 42
    assert compiled.on_disk(tiny_kernel.twice)


def test_the_pilot_batch_does_not_count_the_one_time_load(monkeypatch):
    """An automatic --jobs run times a pilot batch in this process to decide whether to start
    workers: the kernel's one-time load (here stubbed to take 1,000 s of the engine's clock) is
    done before it, so the pilot of a default 2,000-game run still finds the run short and starts
    no workers."""
    import os
    from types import SimpleNamespace

    from analyser.titles.dao import compiled as dao_compiled

    now = [0.0]
    play = dao_compiled.DaoEngine().kernel()
    loaded = []

    def first_call_loads(*args):
        if not loaded:  # the first call in a process loads (or compiles) the machine code
            loaded.append(1)
            now[0] += 1000.0
        return play(*args)

    def kernel(self):
        return first_call_loads
    monkeypatch.setattr(dao_compiled.DaoEngine, "kernel", kernel)
    monkeypatch.setattr(dao_compiled, "time", SimpleNamespace(perf_counter=lambda: now[0]))
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    res = run(RunSpec(game="dao", strategies=["greedy"], seed=4), progress=False)
    assert loaded == [1]
    assert (res.config["engine"], res.config["jobs"], res.config["games_completed"]) == ("compiled", 1, 2000)


def test_a_resumed_run_keeps_its_requested_engine(tmp_path):
    from analyser.run import spec_from_config
    out = tmp_path / "run"
    run(RunSpec(game="dao", strategies=["greedy"], games=10, seed=2, jobs=1, engine="python"), progress=False,
        out=out)
    config = json.loads((out / "config.json").read_text())
    assert spec_from_config(config).engine == "python"


def test_two_workers_play_the_games_one_python_process_plays():
    spec = RunSpec(game="dao", strategies=["random", "greedy", "colour"], games=120, seed=8, jobs=2, batch_size=25)
    two = run(spec, progress=False)
    one = run(dataclasses.replace(spec, jobs=1, engine="python", batch_size=None), progress=False)
    assert (two.config["engine"], two.config["jobs"]) == ("compiled", 2)
    assert two.results.drop(columns="run_id").equals(one.results.drop(columns="run_id"))


def test_compiled_batches_asked_of_loky_play_in_threads_and_write_the_same_folder(tmp_path):
    from analyser.run.backends import pool_backend

    job = BatchJob("dao", (), ("greedy",), 4, 1, 0, 9, 5.0, engine="compiled")
    assert [pool_backend(b, job) for b in ("loky", "dask", "threading")] == ["threading", "dask", "threading"]
    assert pool_backend("loky", dataclasses.replace(job, engine="python")) == "loky"
    spec = RunSpec(game="dao", strategies=["threshold", "greedy"], games=300, seed=5, jobs=2, batch_size=40)
    two = run(spec, progress=False, out=tmp_path / "two")
    one = run(dataclasses.replace(spec, jobs=1, engine="python"), progress=False, out=tmp_path / "one")
    assert (two.config["engine"], two.config["jobs"], two.config["status"]) == ("compiled", 2, "complete")
    read = {k: pd.read_parquet(tmp_path / k / "results").drop(columns="run_id") for k in ("one", "two")}
    assert len(read["two"]) == 1200 and read["two"].equals(read["one"])


def test_a_kernel_that_fails_in_a_worker_leaves_the_batch_to_python(monkeypatch, capsys):
    from analyser.titles.dao import compiled as dao_compiled

    def broken(*args):
        raise RuntimeError("no machine code here")
    monkeypatch.setattr(dao_compiled.DaoEngine, "run_batch", broken)
    monkeypatch.setattr(compiled, "_said", set())
    job = BatchJob("dao", (), ("greedy", "random"), 3, 4, 0, 9, 0.0, engine="compiled")
    assert_same(run_batch(dataclasses.replace(job, engine="python")), run_batch(job))
    assert "(RuntimeError: no machine" in capsys.readouterr().err  # the kernel's failure, then Python plays


def test_a_replaced_rule_method_or_a_subclass_is_played_in_python(monkeypatch):
    """The kernel stands in for DAO's own rules only: a subclass, or a rule method replaced at run
    time (a planted variant), is refused by the compiled engine with the reason, and ``auto``
    plays it in Python."""
    from analyser.engine.compiled import choose
    from analyser.engine.registry import get_game
    from analyser.titles.dao.rules import Dao

    game = get_game("dao")
    assert choose(game, game.Params(), 4, ["greedy"], "auto") == ("compiled", None)

    class Variant(type(game)):
        pass

    sub = Variant()
    sub.id = "dao"
    engine, why = choose(sub, game.Params(), 4, ["greedy"], "auto")
    assert engine == "python" and why.endswith("built-in DAO")

    monkeypatch.setattr(Dao, "scores", lambda self, s: [0] * len(s.piles))
    engine, why = choose(game, game.Params(), 4, ["greedy"], "auto")
    assert engine == "python" and why.split()[:2] == ["DAO's", "scores"]  # the replaced method, named
