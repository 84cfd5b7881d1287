"""The command line through click's CliRunner (DESIGN.md test layer 5) and report generation."""

import json
import os
import re

import pandas as pd
import pytest
from pathlib import Path

from analyser.cli import cli


def invoke(runner, *args):
    return runner.invoke(cli, list(args), catch_exceptions=False)


def one_line_error(result, *needles):
    assert result.exit_code == 2, result.output
    lines = [x for x in result.output.splitlines() if x.strip()]
    assert len(lines) == 1, result.output
    assert lines[0].startswith("analyser: error: ")
    assert "Traceback" not in result.output
    for n in needles:
        assert n in lines[0]


def test_no_arguments_shows_help(runner):
    r = invoke(runner)
    assert r.exit_code == 0 and "simulate" in r.output and "Start here" in r.output


def test_help_teaches_with_examples(runner):
    r = invoke(runner, "simulate", "--help")
    assert r.exit_code == 0  # (the words of every command's help: the catalog text snapshot)
    examples = [line.split() for line in r.output.splitlines() if line.strip().startswith("analyser simulate GAME")]
    assert ["analyser", "simulate", "GAME", "--strategy", "greedy"] in examples
    assert "analyser play GAME" in invoke(runner, "play", "--help").output


def test_list_shows_one_line_per_title(runner):
    from analyser.engine.registry import available_strategies, default_lineup, game_ids
    r = invoke(runner, "list")
    assert r.exit_code == 0
    lines = r.output.splitlines()
    rows = {line.split()[0]: line for line in lines[1:1 + len(game_ids())]}
    assert list(rows) == game_ids()
    assert rows["dao"].split()[:5] == ["dao", "DAO", "(Dodekka)", "2-6", "(4)"]
    assert rows["kingdomino-duel"].split()[3:5] == ["2", str(len(available_strategies("kingdomino-duel")))]
    for gid, row in rows.items():
        assert row.endswith(", ".join(default_lineup(gid))), gid
    assert "threshold:limit=10" not in r.output  # (the details are for `list GAME`)


def test_list_of_a_title_shows_its_strategies_parameters_and_rules(runner):
    r = invoke(runner, "list", "dao")
    assert r.exit_code == 0
    assert r.output.split()[:5] == ["dao", "-", "DAO", "(Dodekka),", "2-6"]
    assert "threshold:limit=10" in r.output
    assert "greedy" in r.output and "colour:min_value=1,start=2" in r.output

    def accepted(output, option):
        """The default and the accepted values of a rule option's line: (``key=default``, [values])."""
        line = next(x.strip() for x in output.splitlines() if x.strip().startswith(option + "="))
        head, _, rest = line.partition(" [")
        return head, rest.split("]")[0].replace(" to ", " | ").split(" | ")

    assert accepted(r.output, "equal_exception") == ("equal_exception=adjacent", ["adjacent", "front", "off"])
    assert accepted(r.output, "two_player_halves") == ("two_player_halves=auto", ["auto", "on", "off"])
    assert accepted(r.output, "display_size") == ("display_size=3", ["1", "20"])
    assert accepted(r.output, "bust_limit") == ("bust_limit=12", ["0", "100,000"])
    assert accepted(r.output, "colours") == ("colours=5", ["1", "10"])
    assert "tie_break=most_cards" in r.output
    # booleans: on/off, as --rule takes them
    assert accepted(invoke(runner, "list", "wizard").output, "hook") == ("hook=off", ["on", "off"])


@pytest.fixture(scope="module")
def simulated(tmp_path_factory):
    """A run with its report and results.csv (the folder, and the command's result), shared by
    the tests that read them."""
    from click.testing import CliRunner
    out = tmp_path_factory.mktemp("simulated") / "run"
    r = invoke(CliRunner(), "simulate", "dao", "-s", "greedy", "-s", "threshold:limit=6", "--games", "40",
               "--seed", "5", "--jobs", "1", "--out", str(out), "--csv", "--players", "2")
    return out, r


def test_simulate_writes_results_config_summary_and_report(simulated):
    out, r = simulated
    assert r.exit_code == 0, r.output
    for name in ("results", "results.csv", "config.json", "summary.csv", "index.html",
                 "win_rate.png", "scores.png", "seat_win_rate.png", "game_length.png", "cards.png"):
        assert (out / name).exists(), name
    df = pd.read_parquet(out / "results")
    assert len(df) == 40 * 2 and set(df["strategy"]) == {"greedy", "threshold:limit=6"}
    cfg = json.loads((out / "config.json").read_text())
    assert cfg["seed"] == 5 and cfg["games_completed"] == 40 and cfg["status"] == "complete"
    assert cfg["rules"]["bust_limit"] == 12 and "pandas" in cfg["versions"]
    assert cfg["wall_seconds"] > 0 and cfg["command"].startswith("analyser")
    summary = pd.read_csv(out / "summary.csv")
    assert set(summary["strategy"]) == {"greedy", "threshold:limit=6"}
    assert summary["win_rate"].sum() == pytest.approx(1.0)
    html = (out / "index.html").read_text()
    assert html.count("data:image/png;base64,") == 5 + (out / "components.png").exists()
    assert "Seed 5" in html and "bust_limit" in html and "greedy" in html
    assert "Strategies" in r.output and "Seats" in r.output and "Report:" in r.output


def test_simulate_without_seed_prints_and_records_a_fresh_seed(runner, tmp_path):
    r = invoke(runner, "simulate", "dao", "-s", "random", "--games", "8", "-j", "1", "--out",
               str(tmp_path), "--no-report")
    assert r.exit_code == 0
    assert not (tmp_path / "index.html").exists()  # --no-report
    cfg = json.loads((tmp_path / "config.json").read_text())
    assert f"seed {cfg['seed']} (fresh" in r.output


def test_simulate_without_strategy_pits_the_builtins(runner, tmp_path):
    r = invoke(runner, "simulate", "dao", "--games", "8", "-j", "1", "--out", str(tmp_path), "--no-report")
    assert r.exit_code == 0
    assert set(pd.read_parquet(tmp_path / "results")["strategy"]) == {"greedy", "threshold", "colour",
                                                                             "random"}


@pytest.mark.parametrize("args, needles", [
    (["simulate", "chess", "-s", "x"], ["unknown game 'chess'", "dao"]),
    (["simulate", "dao", "-s", "genius"], ["unknown strategy 'genius'", "greedy"]),
    (["simulate", "dao", "-s", "threshold:lim=3"], ["unknown parameter 'lim'", "limit"]),
    (["simulate", "dao", "-s", "greedy", "--rule", "bust_limt=3"], ["unknown rule 'bust_limt'", "bust_limit"]),
    (["simulate", "dao", "-s", "greedy", "--rule", "bust_limit"], ["malformed --rule 'bust_limit'", "key=value"]),
    (["simulate", "dao", "-s", "greedy", "--rule", "bust_limit=lots"], ["bust_limit='lots'", "whole number"]),
    (["simulate", "dao", "-s", "greedy", "--players", "9"], ["--players 9", "2 to 6"]),
    (["simulate", "dao", "-s", "greedy", "--games", "0"], ["--games 0"]),
    (["simulate", "dao", "-s", "greedy", "--games", "-5"], ["--games -5"]),
    (["simulate", "dao", "-s", "greedy", "--out", "/proc/nope/x"], ["--out '/proc/nope/x' is not writable"]),
    # a file where the folder should be (mkdir says only "File exists")
    (["simulate", "dao", "-s", "greedy", "--out", "/etc/passwd"],
     ["--out '/etc/passwd' is not a folder: '/etc/passwd' is a file; give a folder"]),
    (["tune", "dao", "-s", "greedy", "-s", "random", "--rule", "bust_limit=9..12", "--target", "seat_gap=min",
      "--out", "/etc/passwd/t"], ["--out '/etc/passwd/t' is not a folder: '/etc/passwd' is a file"]),
    (["simulate", "dao", "-s", "greedy", "--gamez", "3"], ["No such option '--gamez'"]),
    (["play", "dao", "-s", "greedy", "--players", "1"], ["--players 1", "2 to 6"]),
    (["list", "go"], ["unknown game 'go'"]),
    (["report", "/nonexistent/results.parquet"], ["does not exist"]),
    (["bench", "chess"], ["unknown game 'chess'"]),
])
def test_bad_input_one_line_exit_2(runner, args, needles):
    one_line_error(invoke(runner, *args), *needles)


@pytest.mark.parametrize("args, suggested", [
    (["simulate", "wizzard", "-s", "greedy"], "wizard"),                              # a title
    (["list", "kingdomino"], "kingdomino-duel"),
    (["simulate", "dao", "-s", "gredy"], "greedy"),                                   # a strategy
    (["play", "dao", "-s", "threshhold", "-s", "greedy"], "threshold"),
    (["simulate", "dao", "-s", "threshold:limt=3"], "limit"),                         # its parameter
    (["simulate", "dao", "-s", "greedy", "--rule", "bustlimit=3"], "bust_limit"),     # a rule option
    (["smulate", "dao"], "simulate"),                                                 # a command
    (["sweep", "dao", "-s", "greedy", "--rule", "bust_limt=9..11"], "bust_limit"),    # sweep and tune too
    (["sweep", "dao", "-s", "threshold:limt=1,2"], "limit"),
    (["tune", "dao", "-s", "greedy", "--rule", "bust_limt=9..11", "--target", "seat_gap=min"], "bust_limit"),
    (["tune", "dao", "-s", "greedy", "--rule", "bust_limit=9..11", "--target", "seat_gapp=min"], "seat_gap"),
    (["tune", "dao", "-s", "greedy", "--rule", "bust_limit=9..11", "--target", "bust=min"], "busts"),
])
def test_a_mistyped_name_gets_the_closest_accepted_one(runner, args, suggested):
    r = invoke(runner, *args)
    one_line_error(r)
    assert f"{suggested!r}?" in r.output  # (the closest name, then the accepted ones)


def test_unwritable_out_that_is_a_file(runner, tmp_path):
    f = tmp_path / "file.txt"
    f.write_text("x")
    # the value given and the file in its way (the words: the errors text snapshot)
    one_line_error(invoke(runner, "simulate", "dao", "-s", "greedy", "--out", str(f / "sub")),
                   f"--out '{f / 'sub'}'", f"'{f}'")


def test_failing_strategy_exit_1_names_strategy_seat_seed_and_keeps_games(runner, tmp_path):
    bot = tmp_path / "flaky.py"
    bot.write_text('''
from analyser.engine.core import Strategy
from analyser.titles.dao.rules import TAKE, REVEAL

class Flaky(Strategy):
    """Fails on its 200th decision (counted across games)."""
    name = "flaky"
    calls = 0
    def choose(self, view, legal, rng):
        type(self).calls += 1
        if type(self).calls == 200:
            raise RuntimeError("lost my cards")
        return REVEAL if view.total < 8 else TAKE
''')
    out = tmp_path / "out"
    r = invoke(runner, "simulate", "dao", "-s", f"{bot}:flaky", "-s", "greedy", "--games", "50", "-j", "1",
               "--seed", "9", "--batch-size", "5", "--out", str(out))
    assert r.exit_code == 1
    err = [x for x in r.output.splitlines() if x.startswith("analyser: error:")]
    assert len(err) == 1
    line = err[0]
    assert "flaky" in line and "seat" in line and "RuntimeError:" in line and "lost my cards" in line
    assert "game seed" in line
    df = pd.read_parquet(out / "results")
    assert 0 < df["game_index"].nunique() < 50
    assert json.loads((out / "config.json").read_text())["status"] == "failed"
    # the printed replay command reproduces the failure on that exact game
    replay = line.split("Replay: ")[1].split(" (or: ")[0].split()
    assert replay[:2] == ["analyser", "play"]
    seed = int(line.split("game seed ")[1].split(")")[0])
    assert replay[-1] == str(seed)


def test_play_prints_a_readable_trace(runner):
    r = invoke(runner, "play", "dao", "-s", "greedy", "-s", "random", "--seed", "1")
    assert r.exit_code == 0
    assert "game seed 1" in r.output
    steps = [line.split()[:5] for line in r.output.splitlines() if line.startswith("step ")]
    assert steps[0] == ["step", "1:", "seat", "0", "(greedy)"]
    assert "display [" in r.output and "Final scores:" in r.output
    assert "Winner: seat" in r.output or "Shared win:" in r.output


def test_play_json_trace_and_continue_from_a_saved_state(runner, tmp_path):
    r = invoke(runner, "play", "dao", "-s", "greedy", "-s", "threshold", "-s", "colour", "--seed", "4", "--json",
               "--players", "3")
    assert r.exit_code == 0
    lines = [json.loads(x) for x in r.output.splitlines()]
    steps, final = lines[:-1], lines[-1]
    assert steps[0]["step"] == 1 and steps[0]["seat"] == 0 and steps[0]["action"] in ("take", "reveal")
    assert steps[0]["state"]["game"] == "dao" and len(steps[0]["state"]["display"]) == 3
    assert "final" in final and len(final["scores"]) == 3
    # continue from turn 10's state: the deterministic strategies replay the same ending
    saved = tmp_path / "turn10.json"
    saved.write_text(json.dumps(steps[9]))
    r2 = invoke(runner, "play", "dao", "-s", "greedy", "-s", "threshold", "-s", "colour", "--state", str(saved),
                "--json")
    assert r2.exit_code == 0, r2.output
    final2 = json.loads(r2.output.splitlines()[-1])
    assert final2["scores"] == final["scores"]
    assert json.loads(r2.output.splitlines()[0])["step"] == 1


def test_play_state_errors_are_one_line(runner, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    one_line_error(invoke(runner, "play", "dao", "-s", "greedy", "--state", str(bad)), "is not JSON")
    one_line_error(invoke(runner, "play", "dao", "-s", "greedy", "--state", str(tmp_path / "none.json")),
                   "does not exist")


def test_report_rebuilds_from_results(runner, tmp_path, simulated):
    # (a run's own folder rebuilds in place or elsewhere: tests/test_output_folders.py)
    run, _ = simulated
    r = invoke(runner, "report", str(run / "results.csv"), "--out", str(tmp_path / "from_csv"))
    assert r.exit_code == 0, r.output
    assert "Strategies (" in r.output  # without -q the report prints its tables
    html = (tmp_path / "from_csv" / "index.html").read_text()
    forest = (tmp_path / "from_csv" / "components.png").exists()  # the component impact plot, when one is clear
    assert "Seed 5" in html and html.count("data:image/png;base64,") == 5 + forest
    a = pd.read_csv(run / "summary.csv")
    b = pd.read_csv(tmp_path / "from_csv" / "summary.csv")
    pd.testing.assert_frame_equal(a, b)


def test_report_rejects_a_foreign_table(runner, tmp_path):
    p = tmp_path / "other.csv"
    pd.DataFrame({"a": [1]}).to_csv(p, index=False)
    one_line_error(invoke(runner, "report", str(p)), str(p))


def test_bench_prints_games_per_second(runner):
    r = invoke(runner, "bench", "dao", "--games", "30", "--jobs", "1")
    assert r.exit_code == 0, r.output
    assert "4p threshold" in r.output and "/s" in r.output and "best of" in r.output


def test_bench_names_the_engine_of_every_figure_and_plays_the_one_asked_for(runner):
    from analyser.engine.compiled import numba_missing
    from analyser.run.bench import run_bench

    lines = []
    rows = run_bench(["dragon-lairds"], 20, 1, 1, echo=lines.append, repeat=1)
    assert {r["engine"] for r in rows} == {"python"}  # no kernel: auto plays Python
    assert lines[0].split()[:3] == ["title", "case", "engine"] and lines[1][38:46].strip() == "python"
    rows = run_bench(["dao"], 20, 1, 1, echo=lines.append, repeat=1, engine="python")
    assert {r["engine"] for r in rows} == {"python"}
    if numba_missing() is None:
        rows = run_bench(["dao"], 20, 1, 1, echo=lines.append, repeat=1)
        assert {r["engine"] for r in rows} == {"compiled"}  # what simulate would choose
    one_line_error(invoke(runner, "bench", "dao", "--engine", "fast"), "--engine 'fast'")


def test_bench_refuses_an_engine_it_cannot_use_before_printing_anything(runner):
    """A new user's fault: `bench dragon-lairds --engine compiled` printed the table's header, then
    the error; `bench --mcts --engine compiled` ignored --engine."""
    r = invoke(runner, "bench", "dragon-lairds", "--engine", "compiled")
    assert r.exit_code == 2 and r.stdout == ""  # (the lines' words: the errors text snapshot)
    one_line_error(r, "--engine compiled", "dragon-lairds")
    r = invoke(runner, "bench", "dao", "--mcts", "--engine", "compiled")
    assert r.exit_code == 2 and r.stdout == ""
    one_line_error(r, "--engine 'compiled'", "--mcts")
    one_line_error(invoke(runner, "bench", "--mcts", "--engine", "fast"), "--engine 'fast'")


def test_bench_mcts_prints_decisions_per_second(runner):
    r = invoke(runner, "bench", "dao", "--mcts", "--iterations", "5", "--games", "1")
    assert r.exit_code == 0, r.output
    assert "ms/decision" in r.output and "mcts:iterations=5" in r.output
    line = [x for x in r.output.splitlines() if x.startswith("dao ")][0].split()
    assert line[1:3] == ["4", "1"] and int(line[3]) > 5  # players, games, decisions
    one_line_error(invoke(runner, "bench", "--mcts", "--iterations", "0"), "--iterations 0")


def test_wizard_rounds_table_names_its_strategy_and_survives_a_report_rebuild(runner, tmp_path):
    out = tmp_path / "wiz"
    r = invoke(runner, "simulate", "wizard", "-s", "expected", "-s", "random", "-s", "bot:bid=zero", "-n", "6",
               "-j", "1", "--seed", "3", "--out", str(out), "-q")
    assert r.exit_code == 0, r.output
    rounds = pd.read_parquet(out / "rounds")
    assert list(rounds.columns[:6]) == ["run_id", "game_index", "game_seed", "round", "seat", "strategy"]
    assert len(rounds) == 6 * 20 * 3  # 3 players: 20 rounds
    results = pd.read_parquet(out / "results")
    merged = rounds.merge(results[["game_index", "seat", "strategy"]], on=["game_index", "seat"])
    assert (merged["strategy_x"].astype(str) == merged["strategy_y"].astype(str)).all()
    before = (out / "index.html").read_text()
    r = invoke(runner, "report", str(out))
    assert r.exit_code == 0, r.output
    after = (out / "index.html").read_text()
    heads = [re.findall(r"<h[23][^>]*>(.*?)</h[23]>", page) for page in (before, after)]
    assert heads[0] == heads[1] and any(h.startswith("Exact bids") for h in heads[0])
    assert after.count("data:image/png;base64,") == before.count("data:image/png;base64,")


def test_default_lineup_fills_the_titles_usual_seat_count(runner, tmp_path):
    r = invoke(runner, "simulate", "tsuro-seas", "-n", "4", "-j", "1", "--out", str(tmp_path / "t"), "-q",
               "--no-report")
    assert r.exit_code == 0, r.output
    df = pd.read_parquet(tmp_path / "t" / "results")
    assert (df["players"] == 4).all()
    assert set(df["strategy"]) == {"survivor", "aggressive", "random"}


def test_missing_values_show_as_a_dash():
    from analyser.stats.analysis import format_table
    t = format_table(pd.DataFrame({"x": [1.0, float("nan")], "hit_rate": [0.5, float("nan")]}))
    assert list(t["x"]) == ["1.00", "-"] and list(t["hit rate"]) == ["50.0%", "-"]


@pytest.mark.parametrize("args, needles", [
    (["--games", "0"], ["--games 0"]),
    (["--players", "9"], ["--players 9", "2 to 6"]),
    (["--players", "0"], ["--players 0", "2 to 6"]),
    (["--rule", "bust_limit=lots"], ["bust_limit='lots'", "whole number"]),
    (["--seed", "-1"], ["--seed -1"]),
    (["--seed", str(2 ** 63)], [f"--seed {2 ** 63}", f"0 to {2 ** 63 - 1}"]),
    (["--out", "/proc/nope/x"], ["--out '/proc/nope/x' is not writable"]),
])
def test_bad_input_without_strategy_is_still_one_line(runner, args, needles):
    """The 'No --strategy given' notice comes only once the run is valid, so a bad value stays a
    one-line error; --players 0 is refused, not read as the default."""
    one_line_error(invoke(runner, "simulate", "dao", *args), *needles)


def test_tsuro_report_states_score_differences_in_turns_afloat(runner, tmp_path):
    """Tsuro of the Seas scores turns afloat: its report (terminal and page) never calls a score
    'points', and leaves out the figures that read score margins (the last ship afloat wins)."""
    r = invoke(runner, "simulate", "tsuro-seas", "-s", "survivor", "-s", "random", "--games", "8", "--seed", "1",
               "-j", "1", "--out", str(tmp_path))
    assert r.exit_code == 0, r.output
    html = (tmp_path / "index.html").read_text()
    for text in (r.output, html):
        assert "within 1 point" not in text and "points on average" not in text
        assert "score sd" in text and "turns afloat" in text
        assert "Left out:" in text and "close games;" in text  # (why: the tsuro-seas text snapshot)


@pytest.mark.parametrize("kind", ["sweep", "tournament", "compare"])
def test_play_from_an_experiment_folder_is_refused_not_misreplayed(runner, tmp_path, kind):
    """A sweep or tournament plays each game index in every cell or table, so --from cannot
    say which game is meant (it used to replay table 0's lineup, or fail on a range spec)."""
    (tmp_path / "config.json").write_text(json.dumps({
        "kind": kind, "game": "dao", "seed": 1, "players": 4, "games_requested": 10,
        "strategies": ["threshold:limit=4..14:5", "greedy"]}))
    one_line_error(invoke(runner, "play", "--from", str(tmp_path), "--game-index", "0"), repr(str(tmp_path)))


@pytest.mark.parametrize("kind", ["tune", "sweep", "a-kind-of-a-later-analyser"])
def test_play_from_an_experiment_folder_names_its_cells_run_folders(runner, tmp_path, kind):
    """Any folder whose record has a kind is not a run's: a tune whose lineup has no range used
    to replay trial 0's games as if they were the folder's. The line names the cells' folders,
    each of which --from replays."""
    cell = tmp_path / "cells" / "trial-0000"
    r = invoke(runner, "simulate", "dao", "-s", "greedy", "-s", "random", "--games", "4", "--seed", "1", "-j", "1",
               "-q", "--no-report", "--out", str(cell))
    assert r.exit_code == 0, r.output
    (tmp_path / "config.json").write_text(json.dumps({
        "kind": kind, "game": "dao", "seed": 1, "players": 4, "games_requested": 4, "strategies": ["greedy", "random"],
        "cells": [{"name": "trial-0000", "folder": "cells/trial-0000"}, {"name": "gone", "folder": "cells/gone"}]}))
    r = invoke(runner, "play", "--from", str(tmp_path), "--game-index", "0")
    one_line_error(r, str(cell))
    assert str(tmp_path / "cells" / "gone") not in r.output  # (a folder that is not there is not offered)
    assert invoke(runner, "play", "--from", str(cell), "--game-index", "0").exit_code == 0


def test_report_does_not_overwrite_an_experiments_own_page(runner, tmp_path):
    """`analyser report SWEEP/sweep.parquet` used to replace the sweep's index.html with a pooled
    simulate-style page; it is refused in one line and the page is kept."""
    sw = tmp_path / "sw"
    r = invoke(runner, "sweep", "dao", "-s", "threshold:limit=4,8", "-s", "greedy", "--games", "4", "--seed", "1",
               "-j", "1", "--out", str(sw))
    assert r.exit_code == 0, r.output
    page = (sw / "index.html").read_text()
    one_line_error(invoke(runner, "report", str(sw / "sweep.parquet")), str(sw))
    assert (sw / "index.html").read_text() == page
    # the folder itself: its own report is rebuilt from its cells, the same page
    (sw / "index.html").unlink()
    r = invoke(runner, "report", str(sw))
    assert r.exit_code == 0, r.output
    assert (sw / "index.html").read_text() == page
    # and the pooled report elsewhere works: one variant per cell (their lineups differ)
    r = invoke(runner, "report", str(sw / "sweep.parquet"), "--out", str(tmp_path / "pooled"))
    assert r.exit_code == 0, r.output
    assert "2 variants" in r.output and (tmp_path / "pooled" / "v2-win_rate.png").exists()
    assert (sw / "index.html").read_text() == page


def test_play_json_without_seed_records_the_game_seed_to_replay_it(runner):
    """A --json trace with a fresh seed names it on its final line; replaying that seed gives the
    same trace (the text trace prints it in its header)."""
    first = invoke(runner, "play", "dao", "-s", "greedy", "-s", "random", "--json")
    assert first.exit_code == 0
    final = json.loads(first.output.splitlines()[-1])
    assert final["lineup"] == ["greedy", "random", "greedy", "random"]
    again = invoke(runner, "play", "dao", "-s", "greedy", "-s", "random", "--json", "--seed", str(final["game_seed"]))
    assert again.output == first.output


def test_strategy_specs_lose_surrounding_blanks(runner, tmp_path):
    """`-s ' greedy'` is the strategy greedy, labelled greedy, not a second strategy ' greedy'."""
    r = invoke(runner, "simulate", "dao", "-s", " greedy", "-s", "random ", "--games", "4", "--seed", "1", "-j", "1",
               "--no-report", "--out", str(tmp_path))
    assert r.exit_code == 0, r.output
    assert set(pd.read_parquet(tmp_path / "results")["strategy"]) == {"greedy", "random"}


def test_a_fixed_player_count_reads_as_one_number(runner):
    """Kingdomino Duel seats exactly 2: `list` says '2 players' (not '2-2 players') and a wrong
    --players says 'choose 2' (not '2 to 2')."""
    r = invoke(runner, "list", "kingdomino-duel")
    assert r.exit_code == 0 and r.output.split()[4:6] == ["2", "players"] and "2-2" not in r.output
    one_line_error(invoke(runner, "simulate", "kingdomino-duel", "--players", "3"), "--players 3", "choose 2")
    assert "2 to 2" not in invoke(runner, "simulate", "kingdomino-duel", "--players", "3").output


def test_compare_refuses_a_run_with_itself(runner, tmp_path):
    """Comparing a run folder with itself used to print an all-zero comparison with p = 1."""
    run = tmp_path / "run"
    assert invoke(runner, "simulate", "dao", "-s", "greedy", "-s", "random", "--games", "4", "--seed", "1", "-j", "1",
                  "--no-report", "--out", str(run)).exit_code == 0
    one_line_error(invoke(runner, "compare", str(run), str(tmp_path / "." / "run")), str(run))


def test_a_title_table_may_mark_shares_to_show_as_percentages():
    from analyser.stats.analysis import format_table
    t = pd.DataFrame({"seat": [0, 1], "survived": [0.2275, 0.5], "turns": [3.14159, 2.0]})
    t.attrs["percent"] = ["survived"]
    out = format_table(t)
    assert list(out["survived"]) == ["22.8%", "50.0%"] and list(out["turns"]) == ["3.14", "2.00"]


def test_a_run_folder_that_cannot_be_written_names_itself_not_an_out_that_was_not_given():
    from analyser.engine.core import InputError
    from analyser.run.folders import check_writable

    with pytest.raises(InputError) as e:
        check_writable(Path("/proc/nope/run"), label := "the run folder")
    # it names the folder as the caller calls it, and the option that would change it
    assert str(e.value).startswith(f"{label} '/proc/nope/run' ") and "--out DIR" in str(e.value)


def test_resume_of_an_empty_folder_says_to_run_the_command_again(runner, tmp_path):
    empty = tmp_path / "killed-early"
    empty.mkdir()
    r = runner.invoke(cli, ["resume", str(empty)])
    one_line_error(r, repr(str(empty)))  # (the words: the errors text snapshot)
    (empty / "notes.txt").write_text("mine")
    r = runner.invoke(cli, ["resume", str(empty)])
    one_line_error(r, repr(str(empty)), "config.json")


def test_resume_takes_jobs_and_the_games_are_the_same(runner, tmp_path):
    """`resume` had no --jobs: a run begun on a larger machine continued with its count. With
    --jobs N the missing games are played on N workers, the same games row for row; a bad count
    is one line before the folder is touched."""
    out = tmp_path / "r"
    r = invoke(runner, "simulate", "dao", "-s", "greedy", "-s", "random", "--games", "400", "--batch-size", "100",
               "--seed", "2", "-j", "1", "-q", "--no-report", "--out", str(out))
    assert r.exit_code == 0, r.output
    before = pd.read_parquet(out / "results").sort_values(["game_index", "seat"]).reset_index(drop=True)
    parts = sorted((out / "results").glob("part-*.parquet"))
    for part in parts[1::2]:
        part.unlink()
    one_line_error(invoke(runner, "resume", str(out), "--jobs", "-1"))
    assert len(list((out / "results").glob("part-*.parquet"))) == 2
    r = invoke(runner, "resume", str(out), "-j", "2", "-q", "--no-report")
    assert r.exit_code == 0, r.output
    config = json.loads((out / "config.json").read_text())
    assert config["status"] == "complete" and config["jobs_requested"] == 2
    after = pd.read_parquet(out / "results").sort_values(["game_index", "seat"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(before, after)
    # a run begun with more workers than this machine takes continues on all its cores
    (out / "config.json").write_text(json.dumps({**config, "jobs_requested": 4 * (os.cpu_count() or 1) + 1}))
    parts[1].unlink()
    r = invoke(runner, "resume", str(out), "-q", "--no-report")
    assert r.exit_code == 0, r.output
    assert json.loads((out / "config.json").read_text())["jobs_requested"] == 0


def test_resume_of_an_experiment_takes_jobs(runner, tmp_path):
    out = tmp_path / "sw"
    r = invoke(runner, "sweep", "dao", "-s", "threshold:limit=4,8", "-s", "random", "--games", "8", "--seed", "1",
               "-j", "1", "-q", "--no-report", "--out", str(out))
    assert r.exit_code == 0, r.output
    cell = out / "cells" / "cell-0001"
    before = pd.read_parquet(cell / "results")
    record = json.loads((out / "config.json").read_text())
    record["status"] = "interrupted"
    record.pop("files")
    (out / "config.json").write_text(json.dumps(record))
    for part in (cell / "results").glob("part-*.parquet"):
        part.unlink()
    r = invoke(runner, "resume", str(out), "--jobs", "2", "-q", "--no-report")
    assert r.exit_code == 0, r.output
    assert json.loads((cell / "config.json").read_text())["jobs_requested"] == 2
    pd.testing.assert_frame_equal(before, pd.read_parquet(cell / "results"))
