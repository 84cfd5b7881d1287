"""``analyser tune``: bad input, the same study for any --jobs, agreement with an exhaustive
sweep (the same games), resume after SIGKILL, and (soak) the exact best reply in Pig."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import sqlite3
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from analyser.cli import cli

DAO = ["tune", "dao", "--rule", "bust_limit=9..15", "-s", "greedy", "-s", "random", "-p", "2",
       "--target", "seat_gap=min", "--trials", "6", "--games", "60", "--batch", "3", "--recheck", "2",
       "--recheck-factor", "2", "--seed", "5", "--no-report", "-q"]
#: The same without -q: the arguments of the uninterrupted tune the tests of this module share.
DAO_LOUD = [a for a in DAO if a != "-q"]


def invoke(runner, *args):
    return runner.invoke(cli, list(args), catch_exceptions=False)


@pytest.mark.parametrize("args, words", [
    (["--rule", "no_such=1..3"], "unknown rule 'no_such'"),
    (["--rule", "bust_limit=12..9"], "runs backwards"),
    (["--rule", "bust_limit=..9"], "empty range"),
    (["-s", "greedy:nope=1..3"], "unknown parameter 'nope'"),
    (["--rule", "bust_limit=9..12", "--target", "fun=max"], "unknown target 'fun'"),
    (["--rule", "bust_limit=9..12", "--target", "length=60..40"], "runs backwards"),
    (["--rule", "bust_limit=9..12", "--target", "win_rate:nobody=max"], "no -s is 'nobody'"),
    (["--target", "seat_gap=min"], "nothing to search"),
    # --prune compares one number per trial (it used to end in Optuna's NotImplementedError)
    (["--rule", "bust_limit=9..12", "--target", "seat_gap=min", "--target", "length=max", "--prune"],
     "--prune needs exactly one target to minimise, maximise or meet (NAME=min, max or a value); the targets "
     "give 2 objectives (seat_gap, length): leave --prune out"),
    (["--rule", "bust_limit=9..12", "--target", "seat_gap=0..5", "--prune"], "the targets give only range targets"),
    (["--rule", "bust_limit=9..12", "--target", "seat_gap=min", "--target", "seat_gap=max"],
     "--target seat_gap is given twice; give each figure once"),
])
def test_bad_input_is_one_line_and_exit_2(runner, tmp_path, args, words):
    base = ["tune", "dao", "-s", "greedy", "-s", "random", "-o", str(tmp_path / "out"), "-q"]
    if "--target" not in args:
        args = args + ["--target", "seat_gap=min"]
    r = runner.invoke(cli, base + args)
    assert r.exit_code == 2, r.output
    assert words in r.output
    assert len(r.output.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()  # refused before the folder is made


def test_a_range_on_a_choice_option_is_refused(runner, tmp_path):
    from analyser.engine.registry import get_game
    from analyser.engine.core import InputError
    from analyser.experiments import tune
    game = get_game("dao")
    choice = next(o["name"] for o in game.Params.options() if o["choices"])
    with pytest.raises(InputError, match="a range a..b needs a number option"):
        tune.parse_space(game, ["greedy"], [f"{choice}=1..3"])


def _trials(folder: Path) -> pd.DataFrame:
    return pd.read_csv(folder / "trials.csv")


def test_same_study_for_jobs_1_and_2_and_a_repeated_configuration_is_not_replayed(runner, tmp_path, uninterrupted):
    j1 = uninterrupted(DAO_LOUD)  # DAO with -j 1
    r = invoke(runner, *DAO, "-j", "2", "-o", str(tmp_path / "j2"))
    assert r.exit_code == 0, r.output
    a, b = _trials(j1), _trials(tmp_path / "j2")
    pd.testing.assert_frame_equal(a, b)
    assert len(a) == 6 and (a["state"] == "complete").all()
    assert pd.read_csv(j1 / "recheck.csv").equals(pd.read_csv(tmp_path / "j2" / "recheck.csv"))
    # a configuration asked twice has one cell and the first one's figures
    cells = sorted(p.name for p in (j1 / "cells").iterdir() if p.name.startswith("trial-"))
    firsts = a[a["same_as"] < 0]
    assert cells == [f"trial-{n:04d}" for n in firsts["trial"]]
    for _, row in a[a["same_as"] >= 0].iterrows():
        src = a[a["trial"] == row["same_as"]].iloc[0]
        assert row["bust_limit"] == src["bust_limit"] and row["seat_gap"] == src["seat_gap"]
    config = json.loads((j1 / "config.json").read_text())
    assert config["kind"] == "tune" and config["status"] == "complete"


def test_tune_agrees_with_an_exhaustive_sweep_on_the_same_games(runner, tmp_path):
    from analyser.stats import analysis
    args = list(DAO)
    args[args.index("--trials") + 1] = "5"
    r = invoke(runner, *args, "-j", "1", "-o", str(tmp_path / "t"))
    assert r.exit_code == 0, r.output
    r = invoke(runner, "sweep", "dao", "--rule", "bust_limit=9..15", "-s", "greedy", "-s", "random", "-p", "2",
               "--games", "60", "--seed", "5", "-j", "1", "-q", "--no-report", "-o", str(tmp_path / "s"))
    assert r.exit_code == 0, r.output
    sweep = pd.read_parquet(tmp_path / "s" / "sweep.parquet")
    exhaustive = {}
    for value, df in sweep.groupby("bust_limit", observed=True):
        s = analysis.seat_balance(df.drop(columns=["cell"]))
        exhaustive[int(value)] = (s["gap"], s["gap_low"], s["gap_high"])
    t = _trials(tmp_path / "t")
    for _, row in t.iterrows():  # every trial played the very games of the sweep's cell
        assert row["seat_gap"] == pytest.approx(exhaustive[int(row["bust_limit"])][0], abs=1e-9)
        # its interval is the sweep's, the low end kept at 0 or above (a gap is never negative)
        assert row["seat_gap.low"] == pytest.approx(max(0.0, exhaustive[int(row["bust_limit"])][1]), abs=1e-9)
        assert row["seat_gap.high"] == pytest.approx(exhaustive[int(row["bust_limit"])][2], abs=1e-9)
    assert (t["seat_gap.low"] == 0).any()  # (60 games: some intervals reach 0)
    config = json.loads((tmp_path / "t" / "config.json").read_text())
    best = t[t["trial"] == config["best"][0]].iloc[0]
    seen = sorted(set(t["bust_limit"]))
    sweep_best = min(seen, key=lambda v: exhaustive[v][0])
    # the tune's best is the sweep's best among the values it tried, and within the intervals of
    # the sweep's best over the whole grid
    assert exhaustive[int(best["bust_limit"])][0] == exhaustive[sweep_best][0]  # (equal gaps: either is best)
    overall = min(exhaustive, key=lambda v: exhaustive[v][0])
    assert best["seat_gap.low"] <= exhaustive[overall][2]


def _count_complete(db: Path) -> int:
    if not db.is_file():
        return 0
    try:  # read-only: never creates the file
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1) as con:
            return con.execute("select count(*) from trials where state = 'COMPLETE'").fetchone()[0]
    except sqlite3.Error:
        return 0


def forked(args, patch=lambda: None, env=None):
    """Start ``analyser ARGS`` in a child forked from this process (its imports are done, so it
    starts at once), after ``patch()`` and with ``env`` added to its environment there; returns
    the child (a ``multiprocessing`` process: ``exitcode`` is ``-9`` when it was SIGKILLed)."""
    def child():
        os.environ.update(env or {})
        patch()
        from analyser.cli import main
        sys.argv = ["analyser", *args]
        main()

    p = multiprocessing.get_context("fork").Process(target=child)
    p.start()
    return p


def exit_code(p, seconds: float = 300) -> int | None:
    """The exit code of the :func:`forked` child ``p`` once it ends (``-9``: SIGKILLed), or None
    when it still runs after ``seconds`` (it is killed then, so that no test leaves it behind)."""
    p.join(seconds)
    if p.is_alive():
        p.kill()
        p.join()
        return None
    return p.exitcode


#: Plays as DAO's random strategy; in a process whose TUNE_GATE names a file, its 270th game
#: (halfway through the second batch of three trials of 60 games) writes that file and waits
#: there, to be killed.
GATE = '''
import os, time
from analyser.engine.core import Strategy
from analyser.engine.registry import strategy_factory

class Gated(Strategy):
    name = "gated"
    games = 0
    def __init__(self):
        self.inner = strategy_factory("random", "dao")()
    def reset(self, seat, params, n_players):
        type(self).games += 1
        gate = os.environ.get("TUNE_GATE")
        if gate and type(self).games == 270:
            open(gate, "w").close()
            while True:
                time.sleep(1)
        self.inner.reset(seat, params, n_players)
    def choose(self, view, legal, rng):
        return self.inner.choose(view, legal, rng)
'''


def test_a_killed_tune_resumes_without_replaying_a_finished_trial_and_equals_an_uninterrupted_one(runner, tmp_path):
    gated = tmp_path / "gated.py"
    gated.write_text(GATE)
    args = [a for a in DAO if a not in ("-q",)]
    args[args.index("--trials") + 1] = "9"
    args[args.index("bust_limit=9..15")] = "bust_limit=6..20"
    args[args.index("random")] = f"{gated}:gated"
    killed = tmp_path / "killed"
    gate = tmp_path / "gate"
    # (--game-timeout 0: the games play in this process, so the strategy's count spans every trial;
    # under a limit each run's batches play in a child of their own)
    p = forked([*args, "-q", "-j", "1", "--game-timeout", "0", "-o", str(killed)], env={"TUNE_GATE": str(gate)})
    deadline = time.time() + 300  # the run writes the gate file, then waits mid-game: the kill lands there
    while time.time() < deadline and not gate.exists() and p.is_alive():
        time.sleep(0.05)
    os.kill(p.pid, signal.SIGKILL)
    p.join()
    assert gate.exists(), "the run ended before it reached the gate"
    done = _count_complete(killed / "tune.db")
    assert 2 <= done < 9, "the kill came too late to test a resume"
    record = json.loads((killed / "config.json").read_text())
    assert record["status"] == "running"
    parts = {q: q.stat().st_mtime_ns for q in (killed / "cells").rglob("part-*.parquet")}
    r = invoke(runner, "resume", str(killed), "--strategy", str(gated), "-q")
    assert r.exit_code == 0, r.output
    for q, mtime in parts.items():  # no finished part is written again
        assert q.exists() and q.stat().st_mtime_ns == mtime
    r = invoke(runner, *args, "-q", "-j", "1", "-o", str(tmp_path / "whole"))
    assert r.exit_code == 0, r.output
    pd.testing.assert_frame_equal(_trials(killed), _trials(tmp_path / "whole"))
    assert pd.read_csv(killed / "recheck.csv").equals(pd.read_csv(tmp_path / "whole" / "recheck.csv"))


def test_the_pruner_stops_trials_early_the_same_way_for_any_jobs(runner, tmp_path):
    args = ["tune", "dao", "--rule", "bust_limit=6..20", "--rule", "display_size=2..4", "-s", "greedy", "-s", "random",
            "-p", "2", "--target", "seat_gap=min", "--trials", "12", "--games", "80", "--batch", "4", "--prune",
            "--recheck", "1", "--recheck-factor", "1", "--seed", "4", "--no-report", "-q"]
    for j in ("1", "2"):
        assert invoke(runner, *args, "-j", j, "-o", str(tmp_path / j)).exit_code == 0
    a, b = _trials(tmp_path / "1"), _trials(tmp_path / "2")
    pd.testing.assert_frame_equal(a, b)
    pruned = a[a["state"] == "pruned"]
    assert len(pruned) >= 1 and (pruned["games"] < 80).all() and (pruned["trial"] >= 4).all()
    assert (a.loc[a["state"] == "complete", "games"] == 80).all()


def test_several_targets_give_a_pareto_front_and_a_report(runner, tmp_path):
    out = tmp_path / "m"
    r = invoke(runner, "tune", "dao", "--rule", "bust_limit=9..14", "-s", "greedy", "-s", "random", "-p", "2",
               "--target", "seat_gap=min", "--target", "length=max", "--target", "ties=0..50",
               "--trials", "6", "--games", "40", "--batch", "3", "--recheck", "2", "--recheck-factor", "1",
               "--seed", "3", "-j", "1", "-o", str(out))
    assert r.exit_code == 0, r.output
    config = json.loads((out / "config.json").read_text())
    t = _trials(out)
    front = t[t["trial"].isin(config["best"])]
    assert len(front) >= 1
    # no trial of the front is beaten on both objectives by another complete first-of-its-kind trial
    pool = t[(t["same_as"] < 0) & t["feasible"]]
    for _, f in front.iterrows():
        assert not ((pool["seat_gap"] <= f["seat_gap"]) & (pool["length"] >= f["length"])
                    & ((pool["seat_gap"] < f["seat_gap"]) | (pool["length"] > f["length"]))).any()
    html = (out / "index.html").read_text()
    assert "Pareto front" in html and "tune_history.png" in html and "Re-check of the best trials" in html
    assert (out / "tune_pareto.png").is_file()
    assert "cells/recheck-" in html and (out / "cells" / "trial-0000").is_dir()
    # flags read yes/no in every table, never Python's True/False
    flags = __import__("re").findall(r'<td class="text">(\w+)</td>', html)
    assert flags and set(flags) <= {"yes", "no", "complete", "pruned", "failed"}, set(flags)
    assert ">True<" not in html and ">False<" not in html


# --------------------------------------------------------------------------------------------
# Ground truth: Pig against its optimal player
# --------------------------------------------------------------------------------------------

def hold_against_optimal(n: int, roll_opt: np.ndarray, target: int, die: int = 6, tol: float = 1e-10) -> float:
    """The exact win probability of ``hold:n`` against the optimal player in two-seat Pig, seats
    alternating (the mean of moving first and second), by value iteration over (own banked, other
    banked, turn total) for each seat to act."""
    T, d = target, die
    mine, theirs = np.zeros((T, T)), np.zeros((T, T))  # [i, j] me to act / [j, i] opponent to act, k = 0
    ones = np.ones((T, T))
    while True:
        v = {}
        for k in range(T - 1, -1, -1):
            acc = theirs.T / d
            for f in range(2, d + 1):
                nxt = v[k + f] if k + f < T else ones
                won = np.zeros((T, T), bool)
                won[max(0, T - k - f):, :] = True
                acc = acc + np.where(won, 1.0, nxt) / d
            if 0 < k and k >= n:
                acc = ones.copy()
                acc[:T - k] = theirs.T[k:]
            acc[max(0, T - k):] = 1.0
            v[k] = acc
        new_mine = v[0]
        w = {}
        for k in range(T - 1, -1, -1):
            acc = new_mine.T / d
            for f in range(2, d + 1):
                nxt = w[k + f] if k + f < T else np.zeros((T, T))
                won = np.zeros((T, T), bool)
                won[max(0, T - k - f):, :] = True
                acc = acc + np.where(won, 0.0, nxt) / d
            if k > 0:
                hold = np.zeros((T, T))
                hold[:T - k] = new_mine.T[k:]
                acc = np.where(roll_opt[:, :, k], acc, hold)
            acc[max(0, T - k):] = 0.0
            w[k] = acc
        change = max(np.abs(new_mine - mine).max(), np.abs(w[0] - theirs).max())
        mine, theirs = new_mine, w[0]
        if change < tol:
            return float((mine[0, 0] + theirs[0, 0]) / 2)


@pytest.mark.soak
def test_pig_tune_finds_the_exact_best_reply_to_the_optimal_player(runner, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert invoke(runner, "new", "pig").exit_code == 0
    sys.path.insert(0, str(tmp_path))
    try:
        from pig.strategies import optimal_table
    finally:
        sys.path.remove(str(tmp_path))
    roll = optimal_table(100, 6)[1]
    exact = {n: hold_against_optimal(n, roll, 100) for n in range(15, 36)}
    best = max(exact, key=exact.get)
    r = invoke(runner, "tune", "./pig", "-s", "hold:n=15..35", "-s", "optimal", "--target", "win_rate:hold=max",
               "--trials", "40", "--games", "20000", "--batch", "6", "--recheck", "3", "--recheck-factor", "4",
               "--seed", "11", "-j", "2", "-q", "-o", "out")
    assert r.exit_code == 0, r.output
    rc = pd.read_csv(tmp_path / "out" / "recheck.csv")
    found = int(rc.sort_values("recheck_rank").iloc[0]["hold.n"])
    assert abs(found - best) <= 1, (found, best, exact)


def test_a_configuration_the_rules_refuse_is_a_failed_trial_not_a_failed_tune(runner, tmp_path):
    r = invoke(runner, "tune", "dao", "--rule", "display_size=2..20", "--rule", "colours=1", "-s", "greedy", "-s",
               "random", "-p", "2", "--target", "seat_gap=min", "--trials", "6", "--games", "30", "--batch", "3",
               "--recheck", "1", "--recheck-factor", "1", "--seed", "4", "-j", "1", "--no-report", "-q",
               "-o", str(tmp_path / "o"))
    assert r.exit_code == 0, r.output
    t = _trials(tmp_path / "o")
    failed = t[t["state"] == "fail"]
    assert len(failed) >= 1 and failed["error"].str.contains("display_size").all()
    assert (failed["display_size"] > 5).all()  # a 12-card deck in two halves fills a display of at most 5
    assert (t.loc[t["state"] == "complete", "display_size"] <= 5).all()


# --------------------------------------------------------------------------------------------
# At the edges: undefined, constant and inapplicable targets, importances, repeats, the grid,
# the study for other tools
# --------------------------------------------------------------------------------------------

# every card worth 0 and ties shared: every game is a four-way shared win
ALL_TIE = ["tune", "dao", "-s", "greedy", "-s", "threshold", "--players", "4", "--rule", "values=0x4",
           "--rule", "tie_break=shared", "--games", "12", "--recheck", "1", "--recheck-factor", "1", "--seed", "1",
           "-j", "1"]


def test_an_undefined_target_completes_its_trials_marked_undefined_and_is_said(runner, tmp_path):
    import optuna
    out = tmp_path / "u"
    r = invoke(runner, *ALL_TIE, "--rule", "bust_limit=9..15", "--target", "skill_share=max", "--trials", "3",
               "--batch", "3", "-o", str(out))
    assert r.exit_code == 0, r.output
    t = _trials(out)
    assert list(t["state"]) == ["complete"] * 3 and list(t["undefined"]) == ["skill_share"] * 3
    assert t["skill_share"].isna().all() and not t["feasible"].any()
    study = optuna.load_study(study_name="tune", storage=f"sqlite:///{out / 'tune.db'}")
    assert [tr.values for tr in study.trials] == [[-1e9]] * 3  # the worst value, never NaN
    assert json.loads((out / "config.json").read_text())["best"] == []
    assert ("The target skill_share is undefined in every trial (no seat's win share differs from another's in "
            "any game, so there is no difference in who wins to explain), so no configuration is better than "
            "another on it.") in r.output
    assert "Best trial" not in r.output
    page = (out / "index.html").read_text()
    assert "No trial is called best: the target skill_share is undefined in every trial (see the notes)" in page
    # nothing to draw: no empty history plot, and no sentence about a table that is not shown
    assert not (out / "tune_history.png").exists() and "tune_history.png" not in page
    assert "Each target&#39;s figure with its 95% interval" not in page and "Each target's figure" not in page
    assert "The target skill_share is undefined in every trial" in page


def test_a_constant_target_is_said_and_its_importances_are_left_out_with_the_reason(runner, tmp_path):
    out = tmp_path / "c"
    r = invoke(runner, *ALL_TIE, "--rule", "bust_limit=6..13", "--target", "ties=min", "--trials", "8",
               "--batch", "8", "--no-report", "-o", str(out))
    assert r.exit_code == 0, r.output
    t = _trials(out)
    assert (t["ties"] == 100).all() and len(t) == 8
    assert "The target ties is 100% in every trial, so no configuration is better than another on it." in r.output
    # none is called best, and the re-check says how many it replayed (it used to say "trial 0")
    assert json.loads((out / "config.json").read_text())["best"] == []
    assert ("The re-check replayed trial 0 on 12 fresh games: with one trial there is nothing to rank it "
            "against.") in r.output
    three = list(ALL_TIE)
    three[three.index("--recheck") + 1] = "3"
    r = invoke(runner, *three, "--rule", "bust_limit=6..13", "--target",
               "ties=min", "--trials", "8", "--batch", "8", "--recheck", "3", "-o", str(tmp_path / "c3"))
    assert r.exit_code == 0, r.output
    assert ("The re-check replayed 3 trials on 12 fresh games each; the target is the same in every trial, so the "
            "re-check ranks nothing and no trial is called best.") in r.output
    assert json.loads((tmp_path / "c3" / "config.json").read_text())["best"] == []
    page = (tmp_path / "c3" / "index.html").read_text()
    assert "No trial is called best: the target ties is the same in every trial (see the notes)" in page
    assert 'id="verifying-run"' not in page and 'id="pareto-front"' not in page and 'id="best-configuration"' in page
    assert ("Parameter importances are left out for an objective that does not vary over the 8 distinct finished "
            "trials (ties is 100 in every one of them): no parameter moves it.") in r.output
    assert "mattered most" not in r.output and "Best trial" not in r.output
    # one constant objective: no Pareto front of 1 "trials", and no re-check "winner" among equals
    assert "Pareto front" not in r.output and "still wins" not in r.output
    # --trials 8 covers the 8 points of 6..13: the grid is played, each point once
    assert sorted(t["bust_limit"]) == list(range(6, 14)) and (t["same_as"] < 0).all()
    assert "--trials 8 covers the whole grid of 8 points, so the grid was played: every point once" in r.output


def test_importances_are_left_out_below_the_minimum_of_finished_trials(runner, tmp_path):
    from analyser.experiments import tune
    out = tmp_path / "few"
    r = invoke(runner, "tune", "dao", "--rule", "bust_limit=6..20", "-s", "greedy", "-s", "random", "-p", "2",
               "--target", "length=min", "--trials", "3", "--games", "20", "--batch", "3", "--recheck", "1",
               "--recheck-factor", "1", "--seed", "2", "-j", "1", "-o", str(out))
    assert r.exit_code == 0, r.output
    assert tune.IMPORTANCE_MIN_TRIALS == 8
    distinct = int((_trials(out)["same_as"] < 0).sum())
    sentence = (f"Parameter importances are left out: {distinct} distinct finished trial{'' if distinct == 1 else 's'} "
                "with every target defined, below the 8 they need.")
    assert sentence in r.output and sentence in (out / "index.html").read_text()
    assert not (out / "tune_importance.png").exists()


def test_repeated_points_are_counted_and_said(runner, tmp_path):
    out = tmp_path / "rep"
    args = [a for a in DAO if a != "-q"]
    args[args.index("bust_limit=9..15")] = "bust_limit=9..12,14,16"  # 6 points, 6 trials: TPE repeats some
    args[args.index("--trials") + 1] = "5"
    r = invoke(runner, *args, "-j", "1", "-o", str(out))
    assert r.exit_code == 0, r.output
    t = _trials(out)
    repeats = t[t["same_as"] >= 0]
    assert len(repeats) >= 1  # (this seed's sampler asks a point twice)
    distinct = t.drop_duplicates("bust_limit")
    assert len(t) - len(repeats) == len(distinct)
    assert (f"The 5 trials visited {len(distinct)} distinct points; the {len(repeats)} repeat"
            f"{'s were' if len(repeats) > 1 else ' was'} not played again") in r.output
    assert "covers the whole grid" not in r.output


def test_the_study_names_its_metrics_and_opens_in_optuna_dashboard(runner, tmp_path):
    import io

    import optuna
    from optuna_dashboard import wsgi
    out = tmp_path / "names"
    r = invoke(runner, "tune", "dao", "--rule", "bust_limit=6..20", "-s", "greedy", "-s", "random", "-p", "2",
               "--target", "seat_gap=min", "--target", "length=50", "--target", "ties=0..40", "--trials", "2",
               "--games", "10", "--batch", "2", "--recheck", "0", "--seed", "2", "-j", "1", "--no-report", "-q",
               "-o", str(out))
    assert r.exit_code == 0, r.output
    url = f"sqlite:///{out / 'tune.db'}"
    study = optuna.load_study(study_name="tune", storage=url)
    assert study.metric_names == ["seat_gap", "|length - 50|"]
    app = wsgi(url)  # the dashboard's own server app, asked as its page asks
    status = {}

    def get(path):
        env = {"REQUEST_METHOD": "GET", "PATH_INFO": path, "QUERY_STRING": "", "SERVER_NAME": "localhost",
               "SERVER_PORT": "8080", "SERVER_PROTOCOL": "HTTP/1.1", "wsgi.url_scheme": "http",
               "wsgi.input": io.BytesIO(), "wsgi.errors": io.StringIO()}
        body = b"".join(app(env, lambda s, h, exc=None: status.update(code=s)))
        return json.loads(body)

    listed = get("/api/studies")["study_summaries"]
    assert [s["study_name"] for s in listed] == ["tune"] and status["code"].startswith("200")
    detail = get(f"/api/studies/{listed[0]['study_id']}")
    assert detail["objective_names"] == ["seat_gap", "|length - 50|"] and len(detail["trials"]) == 2


@pytest.mark.parametrize("target", ["close_games=min", "lead_changes=max"])
def test_a_target_that_does_not_apply_is_one_line_with_the_reason_and_the_targets_that_apply(runner, tmp_path,
                                                                                              target):
    out = tmp_path / "ts"
    r = runner.invoke(cli, ["tune", "tsuro-seas", "-s", "survivor:kaiju_penalty=1..3", "-s", "random",
                            "--target", target, "--trials", "2", "--games", "4", "-q", "-o", str(out)])
    assert r.exit_code == 2 and "Traceback" not in r.output
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and not out.exists()
    name = target.split("=")[0]
    assert f"target {name} does not apply to Tsuro of the Seas: the last ship afloat wins" in lines[0]
    assert lines[0].endswith("targets that apply: seat_gap, win_rate, length, skill_share, ties, elim_turn, "
                             "survived, elim_row, elim_col")


def test_close_games_uses_the_titles_close_margin():
    from analyser.stats import designer
    from analyser.experiments import tune
    from types import SimpleNamespace
    wizard = tune.get_game("wizard")
    space = SimpleNamespace(slots=[SimpleNamespace(head="random", text="random")] * 2, dims=[])
    t = tune.parse_target("close_games=max", wizard, space)
    assert wizard.scoring.close_margin == 10 and t.margin == 10.0
    # two games of two seats: top-two margins 10 and 20 points
    df = pd.DataFrame({"game_index": [0, 0, 1, 1], "seat": [0, 1, 0, 1], "score": [30.0, 20.0, 40.0, 20.0],
                       "win": [1.0, 0.0, 1.0, 0.0], "strategy": ["random"] * 4})
    v, lo, hi = tune.figure(df, t, ["random", "random"])
    assert v == 50.0 and designer.decisiveness(df, 1.0)["close_rate"] == 0.0
    assert (lo, hi) == pytest.approx(tuple(100 * x for x in designer.wilson(0.5, 2)))


def test_skill_share_applies_to_two_settings_of_one_strategy():
    """A new user's fault: ``-s threshold:limit=8..10 -s threshold:limit=4`` are two strategies
    (simulate measures their skill share), so skill_share applies; one strategy given once does not."""
    from types import SimpleNamespace
    from analyser.engine.registry import get_game
    from analyser.experiments import tune_targets
    dao = get_game("dao")
    two = SimpleNamespace(slots=[SimpleNamespace(head="threshold", text="threshold:limit=8..10"),
                                 SimpleNamespace(head="threshold", text="threshold:limit=4")], dims=[])
    one = SimpleNamespace(slots=[SimpleNamespace(head="threshold", text="threshold:limit=8..10")], dims=[])
    assert "skill_share" not in tune_targets.not_applying(dao, two)
    assert tune_targets.not_applying(dao, one)["skill_share"] == "it needs two strategies or more (-s A -s B)"


def test_a_recheck_of_one_trial_ranks_nothing_and_says_how_many_it_replayed(runner, tmp_path):
    """A new user's fault: --trials 1 --recheck 3 re-checked one trial, said it "still wins", and cut
    the 3 asked to 1 without a word; --trials 0 gave a message naming no value."""
    out = tmp_path / "one"
    r = invoke(runner, "tune", "dao", "--rule", "bust_limit=6..20", "-s", "greedy", "-s", "random", "-p", "2",
               "--target", "length=min", "--trials", "1", "--games", "10", "--batch", "1", "--recheck", "3",
               "--recheck-factor", "1", "--seed", "2", "-j", "1", "--no-report", "-o", str(out))
    assert r.exit_code == 0, r.output
    assert "still wins" not in r.output
    assert "with one trial there is nothing to rank it against." in r.output
    assert "The re-check was asked for 3 trials; 1 could be replayed" in r.output
    bad = invoke(runner, "tune", "dao", "--rule", "bust_limit=6..20", "-s", "greedy", "-s", "random",
                 "--target", "length=min", "--trials", "0", "-o", str(tmp_path / "zero"))
    lines = bad.output.strip().splitlines()
    assert bad.exit_code == 2 and len(lines) == 1 and "--trials 0 " in lines[0]


@pytest.mark.parametrize("trials", ["0", "100001", "1000000000"])
def test_trials_out_of_bounds_are_one_line_exit_2_before_any_folder(runner, tmp_path, trials):
    from analyser.cli.tuning import MAX_TRIALS
    out = tmp_path / "t"
    r = invoke(runner, "tune", "dao", "--rule", "bust_limit=6..20", "-s", "greedy", "-s", "random",
               "--target", "length=min", "--trials", trials, "-o", str(out))
    lines = r.output.strip().splitlines()
    assert r.exit_code == 2 and len(lines) == 1 and f"--trials {trials} " in lines[0]
    assert f"{MAX_TRIALS:,}" in lines[0]  # (what is accepted)
    assert not out.exists()


def kill_in_ask(at: int, after: bool):
    """A patch of optuna for :func:`forked`: SIGKILL as trial ``at`` is asked, just after its one
    write (``after``) or just before it (the trial is not asked)."""
    import optuna
    real = optuna.Study.set_user_attr

    def set_user_attr(self, key, value):
        if key == "asked" and value[-1]["number"] == at:
            if after:
                real(self, key, value)
            os.kill(os.getpid(), signal.SIGKILL)
        return real(self, key, value)
    optuna.Study.set_user_attr = set_user_attr


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    """``uninterrupted(args)``: the folder of the tune ``args`` played whole with ``-j 1``, played
    once per module (the tests only read it)."""
    made = {}

    def whole(args):
        if tuple(args) not in made:
            out = tmp_path_factory.mktemp("whole")
            r = CliRunner().invoke(cli, [*args, "-q", "-j", "1", "-o", str(out)], catch_exceptions=False)
            assert r.exit_code == 0, r.output
            made[tuple(args)] = out
        return made[tuple(args)]
    return whole


# (at 3, not after: killed before the batch's first ask, so the resume asks the whole batch; at 4,
# after: in the middle of a batch, the resume asks its rest; at 5, after: the batch all asked, the
# resume asks nothing and plays it)
@pytest.mark.parametrize("at, after", [(3, False), (4, True), (5, True)])
def test_a_kill_inside_the_ask_of_a_trial_resumes_to_the_uninterrupted_tune(runner, tmp_path, uninterrupted, at,
                                                                             after):
    # A SIGKILL as a trial is asked (before or after its one write) and before its cell is made:
    # the resumed tune asks and plays what the uninterrupted one did.
    args = [a for a in DAO if a not in ("-q",)]
    args[args.index("--trials") + 1] = "7"
    args += ["-s", "threshold:limit=10..30"]  # two parameters
    args[args.index("-p") + 1] = "3"
    whole = uninterrupted(args)
    trials = _trials(whole)
    first = next(c for c in trials.columns if c.startswith("rule.") or c == "bust_limit")
    killed = tmp_path / "killed"
    p = forked([*args, "-q", "-j", "1", "-o", str(killed)], lambda: kill_in_ask(at, after))
    assert exit_code(p) == -signal.SIGKILL
    import optuna
    study = optuna.load_study(study_name="tune", storage=f"sqlite:///{killed / 'tune.db'}")
    assert len(study.trials) == 3 and [r["number"] for r in study.user_attrs["asked"]][-1] == (at if after else at - 1)
    r = invoke(runner, "resume", str(killed), "-q")
    assert r.exit_code == 0, r.output
    pd.testing.assert_frame_equal(_trials(killed), trials)
    assert pd.read_csv(killed / "recheck.csv").equals(pd.read_csv(whole / "recheck.csv"))
    assert first in trials.columns


def kill_in_tell(told: int):
    """A patch of optuna for :func:`forked`: SIGKILL once ``told`` trials are told."""
    import optuna
    real = optuna.Study.add_trial

    def add_trial(self, trial):
        real(self, trial)
        if len(self.get_trials(deepcopy=False)) == told:  # killed between two tells of a batch
            os.kill(os.getpid(), signal.SIGKILL)
    optuna.Study.add_trial = add_trial


@pytest.mark.parametrize("told, prune", [(4, False), (5, True)])
def test_a_kill_between_two_tells_of_a_batch_resumes_to_the_uninterrupted_tune(runner, tmp_path, told, prune):
    args = [a for a in DAO if a not in ("-q",)] + ["--prune"] * prune
    args[args.index("--trials") + 1] = "9"
    args += ["-s", "threshold:limit=10..30"]
    args[args.index("-p") + 1] = "3"
    whole = tmp_path / "whole"
    r = invoke(runner, *args, "-q", "-j", "1", "-o", str(whole))
    assert r.exit_code == 0, r.output
    killed = tmp_path / "killed"
    p = forked([*args, "-q", "-j", "1", "-o", str(killed)], lambda: kill_in_tell(told))
    assert exit_code(p) == -signal.SIGKILL
    assert _count_complete(killed / "tune.db") <= told
    r = invoke(runner, "resume", str(killed), "-q")
    assert r.exit_code == 0, r.output
    pd.testing.assert_frame_equal(_trials(killed), _trials(whole))
    assert pd.read_csv(killed / "recheck.csv").equals(pd.read_csv(whole / "recheck.csv"))


@pytest.mark.parametrize("objectives, grid", [(1, False), (2, False), (1, True)])
def test_the_tunes_ask_gives_the_parameters_optunas_own_ask_gives(objectives, grid):
    # The tune asks each trial in a scratch copy of the study and writes it once, finished; the
    # values must be those of Optuna's study.ask with the same seeded sampler over the same
    # trials (TPE, NSGA-II and the grid).
    import optuna
    from optuna.distributions import FloatDistribution, IntDistribution
    from optuna.trial import TrialState
    from analyser.experiments import tune_study
    dists = {"a": IntDistribution(1, 9), "b": FloatDistribution(0.0, 1.0)}
    directions = ["minimize"] * objectives
    own, ours = (optuna.create_study(directions=directions) for _ in range(2))

    def sampler(k):
        if grid:
            return optuna.samplers.GridSampler({"a": [1, 5, 9], "b": [0.0, 0.5, 1.0]}, seed=0)
        if objectives > 1:
            return optuna.samplers.NSGAIISampler(population_size=3, seed=100 + k)
        return optuna.samplers.TPESampler(seed=100 + k, n_startup_trials=3)

    import warnings
    seen = []
    for k in range(9):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            own.sampler = sampler(k)
            own.ask(dists)
            number = tune_study.ask(ours, dists, sampler(k))
        a, b = own.trials[k], tune_study.trials(ours)[number]
        assert number == k and a.params == b.params and a.system_attrs == b.system_attrs
        seen.append(a.params)
        if k % 3 == 2:  # told in batches of three
            own.sampler = optuna.samplers.RandomSampler()  # (the grid's own stops a study told its last point)
            for n in range(k - 2, k + 1):
                p = own.trials[n].params
                vals = [p["a"] * p["b"] + i for i in range(objectives)]
                own.tell(n, vals if objectives > 1 else vals[0])
                tune_study.tell(ours, tune_study.trials(ours)[n], TrialState.COMPLETE, values=vals)
    assert len({tuple(sorted(p.items())) for p in seen}) > 3  # the samplers did vary the points
    assert [t.values for t in own.trials] == [t.values for t in ours.trials]


# --------------------------------------------------------------------------------------------
# A new user's faults: the best configuration against the re-check, the trial counts, the wording
# --------------------------------------------------------------------------------------------

SMALL_GRID = ["tune", "dao", "-s", "greedy", "-s", "threshold:limit=10,20,30", "--rule", "bust_limit=9..11",
              "--target", "seat_gap=min", "--trials", "9", "--games", "100", "--batch", "3", "--recheck-factor", "2",
              "-j", "1"]
_RECHECKED = "The re-check replayed the best 3 trials on 200 fresh games each: "


@pytest.mark.parametrize("seed, search_best, best, sentence, runner_up", [
    # the re-check's winners tie and the search's winner is not among them (it comes last there)
    (2, 6, 3, "the search's winner (trial 6) does NOT still win (it comes 3rd there); trials 3 and 8 tie for first "
              "on seat_gap, so the best configuration is trial 3, the lower-numbered of them (they tie on the "
              "search too).", 8),
    # one re-check winner that is not the search's
    (4, 6, 5, "the search's winner (trial 6) does NOT still win; trial 5 is best there, so the search's lead was "
              "noise; the best configuration is the re-check's winner, trial 5.", 6),
    # the search's winner ties for first on the re-check: it stays the best
    (6, 0, 0, "trials 0 and 4 tie on seat_gap there, so the re-check does not separate them; the best "
              "configuration stays the search's winner (trial 0), the lower-numbered of them (they tie on the "
              "search too).", 4),
])
def test_the_best_configuration_is_the_rechecks_winner_everywhere(runner, tmp_path, seed, search_best, best,
                                                                  sentence, runner_up):
    """A new user's fault: the re-check said "trials 10, 12 tie on seat_gap there, so none of them wins",
    yet the report and config.json named the search's winner (trial 17, last on the re-check) best,
    and the verifying run was another trial's."""
    out = tmp_path / "o"
    r = invoke(runner, *SMALL_GRID, "--seed", str(seed), "-o", str(out))
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert lines[2].startswith(f"Best trial on the search: {search_best} (")
    assert lines[3] == _RECHECKED + sentence
    assert lines[4] == (f"On the re-check, trial {best}'s seat_gap interval overlaps the runner-up's (trial "
                        f"{runner_up}): the two cannot be told apart at this many games.")
    config = json.loads((out / "config.json").read_text())
    assert config["best"] == [best] and config["search_best"] == [search_best]
    rc = pd.read_csv(out / "recheck.csv")
    assert int(rc.loc[rc["recheck_rank"] == 1, "trial"].iloc[0]) == best
    page = (out / "index.html").read_text()
    table = page[page.index('id="best-configuration"'):]
    table = table[:table.index("</table>")]
    assert table.count("<tr><td>") == 1 and f"<tr><td>{best}</td>" in table
    link = f"cells/recheck-{best:04d}/index.html"
    assert (f"<p>The full simulate report of the best configuration (trial {best}), played on its re-check games: "
            f'<a href="{link}">{link}</a></p>') in page
    assert "</a>," not in page and " , " not in page
    assert set(__import__("re").findall(r"cells/recheck-\d+/index.html", page)) == {link}
    moved = (f"Trial {best} is the re-check&#39;s winner; the search&#39;s winner, trial {search_best}, does not "
             "still win")
    assert (moved in page) == (best != search_best)


def test_trial_counts_agree_when_a_tune_and_its_resume_are_interrupted(runner, tmp_path, monkeypatch):
    """A new user's fault: after a SIGTERM the summary said "6 of 12 trials finished" and the last
    line "interrupted (SIGTERM) with 8 of 9 trials complete"; resume said "3 of 3 trials complete"
    of a 12-trial tune, and during the re-check counted its cells as trials."""
    from analyser.experiments import base
    from analyser.run import stops
    out = tmp_path / "o"
    args = ["tune", "dao", "--rule", "bust_limit=6..20", "-s", "greedy", "-s", "random", "-p", "2", "--target",
            "seat_gap=min", "--trials", "12", "--games", "40", "--batch", "3", "--recheck", "2", "--recheck-factor",
            "2", "--seed", "5", "--no-report", "-j", "1", "-o", str(out)]
    real, calls = base.Experiment._play_to, []

    def play_to(self, games, jobs, bar):  # SIGTERM as the stop_at-th play of the command begins
        calls.append(games)
        if len(calls) == stop_at:
            raise KeyboardInterrupt
        return real(self, games, jobs, bar)

    monkeypatch.setattr(base.Experiment, "_play_to", play_to)
    monkeypatch.setattr(stops, "_received", [signal.SIGTERM])
    stop_at = 3  # the third batch: 6 trials told, 3 asked
    r = invoke(runner, *args)
    assert r.exit_code == 143, r.output
    assert r.output.splitlines()[0].startswith("6 of 12 trials finished, each on the same 40 games")
    assert r.stderr.splitlines()[-1].startswith(
        "analyser: interrupted (SIGTERM) with 6 of 12 trials finished; the re-check has not started; their games")
    calls.clear()
    stop_at = 3  # the resume plays the last two batches, then is stopped as its re-check begins
    r = invoke(runner, "resume", str(out))
    assert r.exit_code == 143, r.output
    assert r.stderr.splitlines()[0].startswith(f"Resuming {out}: 6 of 12 trials finished; the re-check has not "
                                               "started (")
    assert any(line.startswith("12 of 12 trials finished, each") for line in r.stdout.splitlines())
    assert r.stderr.splitlines()[-1].startswith(
        "analyser: interrupted (SIGTERM) with 12 of 12 trials finished; 0 of 2 re-check cells complete; their games")
    # a re-check cut short gives no verdict and no best (it used to rank the unplayed cells last)
    assert ("The re-check is not finished (0 of 2 trials replayed in full): no trial is called best until it is; "
            "analyser resume finishes it.") in r.stdout.splitlines()
    assert not any("still win" in line or "re-check replayed" in line for line in r.stdout.splitlines())
    config = json.loads((out / "config.json").read_text())
    assert config["best"] == [] and len(config["search_best"]) == 1
    assert not (out / "recheck.csv").exists()
    monkeypatch.setattr(base.Experiment, "_play_to", real)
    r = invoke(runner, "resume", str(out))
    assert r.exit_code == 0, r.output
    assert r.stderr.splitlines()[0].startswith(f"Resuming {out}: 12 of 12 trials finished; 0 of 2 re-check cells "
                                               "complete (")
    from analyser.experiments import tune_report
    config = json.loads((out / "config.json").read_text())
    assert tune_report.folder_progress(out, config) == "12 of 12 trials finished; 2 of 2 re-check cells complete"


def test_the_summary_says_how_many_trials_were_pruned(runner, tmp_path):
    """A new user's fault: with --prune the summary said "7 of 12 trials finished" of the others nothing."""
    out = tmp_path / "o"
    r = invoke(runner, "tune", "dao", "--rule", "bust_limit=6..20", "--rule", "display_size=2..4", "-s", "greedy",
               "-s", "random", "-p", "2", "--target", "seat_gap=min", "--trials", "12", "--games", "80", "--batch",
               "4", "--prune", "--recheck", "1", "--recheck-factor", "1", "--seed", "4", "--no-report", "-j", "1",
               "-o", str(out))
    assert r.exit_code == 0, r.output
    t = _trials(out)
    done, pruned = int((t["state"] == "complete").sum()), int((t["state"] == "pruned").sum())
    assert pruned >= 2 and done + pruned == 12
    lines = r.output.splitlines()
    assert lines[0].startswith(f"{done} of 12 trials finished, each on the same 80 games")
    # each pruned trial with the games it played (trials.csv's), fewer than the 80 asked
    cut = t[t["state"] == "pruned"].sort_values("trial")
    played = list(zip(cut["trial"].astype(int), cut["games"].astype(int)))
    assert all(0 < g < 80 for _, g in played)
    from analyser.experiments.tune_report import progress_text, pruned_games
    assert pruned_games(t) == played
    named = lines[1].split(" (", 1)[1].split(" of its ")[0].split(", ")
    assert named == [f"trial {k} after {g}" for k, g in played]
    assert progress_text(t["state"], {"trials": 12}) == f"{done} of 12 trials finished ({pruned} more pruned)"
    assert (progress_text(["complete"] * 7 + ["pruned"] * 4 + ["fail"], {"trials": 12})
            == "7 of 12 trials finished (4 more pruned, 1 failed)")
    assert (progress_text(["complete"] * 5 + ["running"] * 3, {"trials": 12})
            == "5 of 12 trials finished; the re-check has not started")


def _hand_built(n_front: int):
    """A tune result of two objectives whose re-check keeps ``n_front`` trials on the front."""
    from analyser.engine.registry import get_game
    from analyser.experiments import tune
    game = get_game("dao")
    space = tune.parse_space(game, ["greedy", "random"], ["bust_limit=9..12"])
    targets = [tune.parse_target(x, game, space) for x in ("seat_gap=min", "length=max")]
    rows = [{"trial": k, "state": "complete", "bust_limit": 9 + k, "seat_gap": 5.0 - k, "seat_gap.low": 1.0 - k,
             "seat_gap.high": 9.0 - k, "length": 20.0 + k, "length.low": 18.0 + k, "length.high": 22.0 + k,
             "games": 10, "same_as": -1, "error": "", "undefined": "", "feasible": True, "objective1": 5.0 - k,
             "objective2": 20.0 + k, "score": 5.0 - k, "violation": 0.0} for k in range(3)]
    rc = pd.DataFrame(rows).drop(columns=["state", "same_as", "error"]).assign(
        games=40, folder=[f"cells/recheck-{k:04d}" for k in range(3)], on_front=[k < n_front for k in range(3)],
        search_rank=[1, 2, 3])
    res = tune.TuneResult(space, targets, pd.DataFrame(rows), rc, [0, 1, 2],
                          {"trials": 3, "games_requested": 10}, "complete", search_best=[0, 1, 2])
    res.best, res.verifying = tune.front_after_recheck([0, 1, 2], rc, targets)
    return res


@pytest.mark.parametrize("kept, dropped, front", [(1, [1, 2], [0]), (2, [2], [0, 1]), (3, [], [0, 1, 2])])
def test_the_front_recheck_record_counts_the_trials_kept_and_dropped(kept, dropped, front):
    # the words (singular and plural) are held by the findings snapshot (tests/golden/finding_cases.py)
    from analyser.experiments.tune_report import summary_record
    r = summary_record(_hand_built(kept)).recheck
    assert (r.kind, r.replayed, r.games, r.kept, r.dropped, r.front, r.unplayed) == ("front", 3, 40, kept, dropped,
                                                                                     front, [])


def test_a_front_trial_the_recheck_finds_dominated_leaves_best_and_the_verifying_run():
    """A new user's fault: with two targets, a front trial dominated on the re-check stayed in
    "best" (config.json, the terminal, the table), and the verifying run was simply the first
    re-check cell."""
    from analyser.experiments import tune
    from analyser.experiments.tune_report import _moved_record, summary_record
    res = _hand_built(2)
    assert res.best == [0, 1] and res.search_best == [0, 1, 2]
    # seat_gap=min is the first objective: of the kept trials 0 (5.0) and 1 (4.0), trial 1 is lower
    assert res.verifying == "cells/recheck-0001"
    assert _moved_record(res) == {"gone": [2]}  # the best note says trial 2 was left off the front
    said = summary_record(res)
    assert (said.best, said.front_size, [b.trial for b in said.trials]) == ("front", 3, [0, 1, 2])
    # a front trial not replayed (--recheck below the front's size) stays on it, and is said
    rc = res.recheck[res.recheck["trial"] != 1]
    best, verifying = tune.front_after_recheck([0, 1, 2], rc, res.targets)
    assert best == [0, 1] and verifying == "cells/recheck-0000"
    res.recheck, res.best = rc, best
    r = summary_record(res).recheck
    assert (r.replayed, r.kept, r.dropped, r.front, r.unplayed) == (2, 1, [2], [0, 1], [1])
    # asked for more than the front holds: the reason is the front's size
    res = _hand_built(3)
    res.recheck_asked = 4
    r = summary_record(res).recheck
    assert (r.asked, r.replayed, r.several, r.front_size) == (4, 3, True, 3)


def test_a_sigterm_between_two_plays_is_recorded_counted_alike_and_resumes_to_the_whole_tune(runner, tmp_path,
                                                                                          monkeypatch, uninterrupted):
    """A new user's fault: a SIGTERM while the trials of a batch were being told (their games all
    on disk) left config.json "running", printed a bare "interrupted (SIGTERM)", and the resume
    header said "0 of 6 trials finished (240 games)" of trials it did not play again."""
    from analyser.experiments import tune
    from analyser.run import stops
    args = [a for a in DAO if a != "-q"] + ["-j", "1"]
    real, calls = tune._set_figures, []

    def set_figures(*a, **k):  # SIGTERM as the second trial of the first batch is told
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*a, **k)

    monkeypatch.setattr(tune, "_set_figures", set_figures)
    monkeypatch.setattr(stops, "_received", [signal.SIGTERM])
    out = tmp_path / "o"
    r = invoke(runner, *args, "-o", str(out))
    assert r.exit_code == 143, r.output
    record = json.loads((out / "config.json").read_text())
    assert record["status"] == "interrupted"
    assert record["stopping"]["reason"] == "interrupted (SIGTERM); the trials that finished before it are kept"
    # the first batch of 3 has its games on disk: trial 0 was told, trials 1 and 2 were not
    assert [c["status"] for c in record["cells"]] == ["complete"] * 3
    said = ("3 of 6 trials finished; the re-check has not started")
    assert r.stderr.splitlines()[-1].startswith(f"analyser: interrupted (SIGTERM) with {said}; their games are in ")
    assert r.stdout.splitlines()[0].startswith("3 of 6 trials finished, each on the same 60 games")
    monkeypatch.setattr(tune, "_set_figures", real)
    monkeypatch.setattr(stops, "_received", [])
    r = invoke(runner, "resume", str(out))
    assert r.exit_code == 0, r.output
    assert r.stderr.splitlines()[0] == f"Resuming {out}: {said} (180 games played so far, in all); seed 5"
    whole = uninterrupted(DAO_LOUD)
    pd.testing.assert_frame_equal(_trials(out), _trials(whole))
    assert pd.read_csv(out / "recheck.csv").equals(pd.read_csv(whole / "recheck.csv"))


def test_a_target_column_of_the_report_tables_has_one_count_of_decimals(runner, tmp_path):
    """A new user's fault: in "All trials" one column read 0.00 (-0.44 to 0.44) beside 11.1 (4.8 to
    17.4): each cell took the decimals of its own interval."""
    import re
    out = tmp_path / "o"
    # threshold:limit=3 never wins here (0.0%, a narrower interval than the others')
    r = invoke(runner, "tune", "dao", "-s", "greedy", "-s", "threshold:limit=0..40", "-p", "2", "--target",
               "seat_gap=min", "--target", "win_rate:threshold=max", "--trials", "8", "--games", "60", "--seed", "5",
               "--recheck", "1", "-q", "-j", "1", "-o", str(out))
    assert r.exit_code == 0, r.output
    page = (out / "index.html").read_text()
    section = page[page.index('id="all-trials"'):]
    section = section[:section.index("</table>")]
    t = _trials(out)
    assert (t["win_rate:threshold"] == 0).any() and (t["win_rate:threshold"] > 10).any()
    # a win rate of 0% over 60 games is not certain: Wilson's interval, 0 to 6.0%, as simulate says
    never = t[t["win_rate:threshold"] == 0].iloc[0]
    assert never["win_rate:threshold.low"] == 0 and never["win_rate:threshold.high"] == pytest.approx(6.0171, abs=1e-3)
    from analyser.stats.analysis import decimals
    for k, name in ((0, "seat_gap"), (1, "win_rate:threshold")):  # the k-th figure of each row
        cells = re.findall(r"<td>(-?[0-9.]+) \((-?[0-9.]+) to (-?[0-9.]+)\)</td>", section)[k::2]
        assert len(cells) == 8
        places = {len(x.partition(".")[2]) for cell in cells for x in cell}
        assert places == {decimals(((t[name + ".high"] - t[name + ".low"]) / 2).to_numpy(float))}, cells


def test_a_tune_report_written_elsewhere_names_the_study_and_the_verifying_run_where_they_are(runner, tmp_path):
    """A new user's fault: `report TUNE -o NEW` printed `Study: NEW/tune.db`, a file that does not
    exist, and left the verifying run out without a word."""
    out, new = tmp_path / "t", tmp_path / "new"
    r = invoke(runner, *[a for a in DAO if a != "--no-report"], "-j", "1", "-o", str(out))
    assert r.exit_code == 0, r.output
    verifying = json.loads((out / "config.json").read_text())["best"][0]
    r = invoke(runner, "report", str(out), "-o", str(new))
    assert r.exit_code == 0, r.output
    study = out.resolve() / "tune.db"
    assert f"Study: {out / 'tune.db'} (optuna-dashboard sqlite:///{study})" in r.output
    assert not (new / "tune.db").exists()
    page = (new / "index.html").read_text()
    assert f"optuna-dashboard sqlite:///{study}" in page
    run = out / f"cells/recheck-{verifying:04d}"
    assert (f"The verifying run's games are in {run} (this report was written elsewhere): its own report is "
            f"{run / 'index.html'}, and analyser report rebuilds it.") in page
    assert (run / "index.html").is_file()


def test_a_signal_whose_exception_was_lost_still_stops_the_tune(runner, tmp_path, monkeypatch, uninterrupted):
    """A new user's fault: a SIGTERM whose exception landed in a weakref callback ("Exception ignored
    in ...") was lost: the tune played on to the end and exited 0."""
    from analyser.experiments import tune
    from analyser.run import stops
    real, calls = tune._set_figures, []

    def set_figures(*a, **k):  # a signal arrives as the second trial is told, and its raise is lost
        calls.append(1)
        if len(calls) == 2:
            stops.note(signal.SIGTERM)
        return real(*a, **k)

    monkeypatch.setattr(tune, "_set_figures", set_figures)
    monkeypatch.setattr(stops, "_received", [])
    out = tmp_path / "o"
    r = invoke(runner, *[a for a in DAO if a != "-q"], "-j", "1", "-o", str(out))
    assert r.exit_code == 143, r.output
    record = json.loads((out / "config.json").read_text())
    assert record["status"] == "interrupted"
    # the first batch was told; the next play stopped before a game of the second batch
    assert [c["status"] for c in record["cells"]][:3] == ["complete"] * 3 and len(record["cells"]) > 3
    assert all(not c["games_done"] for c in record["cells"][3:])
    assert r.stderr.splitlines()[-1].startswith("analyser: interrupted (SIGTERM) with 3 of 6 trials finished")
    monkeypatch.setattr(tune, "_set_figures", real)
    monkeypatch.setattr(stops, "_received", [])
    r = invoke(runner, "resume", str(out), "-q")
    assert r.exit_code == 0, r.output
    pd.testing.assert_frame_equal(_trials(out), _trials(uninterrupted(DAO_LOUD)))


def test_a_front_recheck_of_one_trial_and_no_recheck_are_said_as_they_are():
    """A new user's faults: "The re-check replayed 1 trials of the front ...; 1 of them stays
    non-dominated among themselves", and a --recheck 0 tune named a best without a word."""
    from analyser.experiments import tune
    from analyser.experiments.tune_report import summary_record
    res = _hand_built(3)
    res.recheck = res.recheck.head(1)
    res.best, res.verifying = tune.front_after_recheck([0, 1, 2], res.recheck, res.targets)
    r = summary_record(res).recheck
    assert (r.kind, r.replayed, r.trial, r.dropped, r.unplayed) == ("front", 1, 0, [], [1, 2])
    res = _hand_built(3)
    res.recheck, res.best, res.recheck_asked = res.recheck.head(0), [0, 1, 2], 0
    r = summary_record(res).recheck
    assert r.left_out and (r.kind, r.replayed) == ("", 0)


def test_a_tune_of_an_older_format_is_one_line_and_exit_2(runner, tmp_path):
    # a study written before trials were written finished (no format attribute; its running
    # trials may lack parameters): resume refuses it in one line, before anything is played
    out = tmp_path / "o"
    r = invoke(runner, *DAO, "-j", "1", "-o", str(out))
    assert r.exit_code == 0, r.output
    with sqlite3.connect(out / "tune.db") as con:
        con.execute("delete from study_user_attributes where key = 'format'")
    record = json.loads((out / "config.json").read_text())
    (out / "config.json").write_text(json.dumps({**record, "status": "interrupted"}))
    before = sorted(p.relative_to(out) for p in out.rglob("*"))
    r = invoke(runner, "resume", str(out))
    lines = r.stderr.strip().splitlines()
    assert r.exit_code == 2 and len(lines) == 1 and lines[0].startswith("analyser: error: "), r.output
    assert str(out) in lines[0]
    assert sorted(p.relative_to(out) for p in out.rglob("*")) == before
