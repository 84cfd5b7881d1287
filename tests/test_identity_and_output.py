"""Run identity, joined runs, user strings, output edge cases and replays (issue 8)."""

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analyser.stats import analysis, plots
from analyser.report import page as report
from analyser.cli import cli
from analyser.engine.registry import game_ids, get_game
from analyser.results import load_results

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-c", "import sys; from analyser.cli import main; sys.argv[0] = 'analyser'; main()"]


def invoke(runner, *args):
    return runner.invoke(cli, list(args), catch_exceptions=False)


def sim(runner, out, *args):
    r = invoke(runner, "simulate", *args, "-j", "1", "--out", str(out), "-q")
    assert r.exit_code == 0, r.output
    return out


# -- 1. run identity ----------------------------------------------------------------------------

def test_joined_same_seed_runs_with_different_rules_are_variants_and_every_count_is_right(runner, tmp_path):
    a = sim(runner, tmp_path / "a", "dao", "-s", "greedy", "-s", "random", "-n", "60", "--seed", "7",
            "--rule", "bust_limit=10", "--no-report")
    b = sim(runner, tmp_path / "b", "dao", "-s", "greedy", "-s", "random", "-n", "60", "--seed", "7", "--no-report")
    ra, rb = (pd.read_parquet(x / "results") for x in (a, b))
    assert ra["run_id"].iloc[0] != rb["run_id"].iloc[0]  # same seed, still two runs
    assert ra["run_id"].iloc[0].startswith("dao-7-") and (ra["game_seed"] == rb["game_seed"]).all()
    joined = tmp_path / "joined"
    joined.mkdir()
    pd.concat([ra, rb]).to_parquet(joined / "results.parquet")
    r = invoke(runner, "report", str(joined / "results.parquet"), "--out", str(joined / "report"))
    assert r.exit_code == 0, r.output
    assert "2 variants" in r.output
    heads = [line.split()[2:4] for line in r.output.splitlines() if line.startswith("=== Variant: ")]
    assert heads == [["bust_limit=10", "(60"], ["bust_limit=12", "(60"]]  # one head per variant, with its games
    summary = report.summarise(pd.concat([ra, rb]), {})
    assert [p.label for p in summary.parts] == ["bust_limit=10", "bust_limit=12"]
    for part, own in zip(summary.parts, (ra, rb)):
        alone = report.summarise(own, {}).parts[0]
        assert part.run["games"] == alone.run["games"] == 60
        for key in ("tie_rate", "turns_mean", "turns_median", "turns_p5", "turns_p95", "score_sd", "margin_mean"):
            assert part.run[key] == pytest.approx(alone.run[key]), key
        assert part.run["seats"]["verdict"] == alone.run["seats"]["verdict"]
        pd.testing.assert_frame_equal(part.strategies, alone.strategies)
        pd.testing.assert_frame_equal(part.seats, alone.seats)
        assert list(part.strategies["n"]) == [120, 120] and list(part.seats["n"]) == [60] * 4
        for (c1, t1), (c2, t2) in zip(part.title_tables, alone.title_tables):
            assert c1 == c2
            pd.testing.assert_frame_equal(t1, t2)
    assert summary.parts[0].run["turns_mean"] != summary.parts[1].run["turns_mean"]
    table = pd.read_csv(joined / "report" / "summary.csv")
    assert list(table.columns[:3]) == ["variant", "strategy", "n"]
    assert list(table["n"]) == [120] * 4
    html = (joined / "report" / "index.html").read_text()
    assert "2 variants." in html and "120 games" in html and "Variant 1: bust_limit=10" in html
    assert (joined / "report" / "v1-win_rate.png").exists() and (joined / "report" / "v2-cards.png").exists()


def test_joined_runs_of_one_variant_count_every_game_once_by_run_and_index(runner, tmp_path):
    a = sim(runner, tmp_path / "a", "dao", "-s", "greedy", "-n", "20", "--seed", "3", "--no-report")
    b = sim(runner, tmp_path / "b", "dao", "-s", "greedy", "-n", "20", "--seed", "3", "--no-report")
    both = pd.concat([pd.read_parquet(x / "results") for x in (a, b)])
    s = report.summarise(both, {})
    assert not s.variants and s.run["games"] == 40 and s.run["runs"] == 2
    assert len(analysis.per_game(both)) == 40


# -- 3. user strings ------------------------------------------------------------------------------

NASTY = '''
from analyser.engine.core import Strategy
from analyser.titles.dao.rules import REVEAL, TAKE


class Nasty(Strategy):
    """Ca$h <script>alert(1)</script> & 棋手 _under: takes at 8."""

    name = "_ca$h<script>&棋手"
    game = "dao"

    def choose(self, view, legal, rng):
        return TAKE if view.total >= 8 else REVEAL


STRATEGIES = [Nasty]
'''


def test_simulate_with_a_nasty_strategy_name_writes_pngs_escapes_html_and_stays_quiet(tmp_path):
    (tmp_path / "Ba$$in.py").write_text(NASTY, encoding="utf-8")
    out = tmp_path / "out"
    proc = subprocess.run(CLI + ["simulate", "dao", "-s", "Ba$$in.py:_ca$h<script>&棋手", "-s", "greedy",
                                 "-n", "16", "-j", "1", "--seed", "1", "--out", str(out), "-q"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == "" and proc.stdout == ""
    cfg = json.loads((out / "config.json").read_text())
    assert cfg["status"] == "complete"
    for name in ("win_rate.png", "scores.png", "seat_win_rate.png", "cards.png"):
        assert (out / name).stat().st_size > 1000
    html = (out / "index.html").read_text(encoding="utf-8")
    # the page's one script (it marks tables wider than the window) comes after the content
    assert html.count("<script>") == 1 and "<script>" not in html.split("</main>")[0]
    assert "_ca$h&lt;script&gt;&amp;棋手" in html


def test_label_is_the_one_place_that_makes_user_strings_safe(monkeypatch):
    assert plots.label("Ba$$in.py:cautious") == "Ba\\$\\$in.py:cautious"
    assert plots.label("_cautious") == " _cautious"
    assert plots.label("plain") == "plain"
    # no installed font draws these: readable code points, never boxes
    monkeypatch.setattr(plots, "_font_charmaps", lambda: (("DejaVu Sans", frozenset(range(0x250))),))
    assert plots.label("棋a") == "<U+68CB>a"
    # a font that has the glyph is used (added to the family list) and the text is kept
    fonts = (("DejaVu Sans", frozenset(range(0x250))), ("Noto Sans CJK JP", frozenset({0x68CB})))
    monkeypatch.setattr(plots, "_font_charmaps", lambda: fonts)
    monkeypatch.setitem(plots.plt.rcParams, "font.family", ["sans-serif"])
    assert plots.label("棋a") == "棋a"
    cjk = "Noto Sans CJK JP"  # a font name
    assert cjk in plots.plt.rcParams["font.family"]


def test_a_report_failure_keeps_the_results_and_says_so(runner, tmp_path, monkeypatch):
    def broken(*a, **k):
        raise ValueError("Expected end of text, found '$'")
    monkeypatch.setattr(plots, "win_rate", broken)
    out = tmp_path / "out"
    r = invoke(runner, "simulate", "dao", "-s", "greedy", "-n", "8", "-j", "1", "--out", str(out), "-q")
    assert r.exit_code == 1
    errors = [x for x in r.output.splitlines() if x.startswith("analyser: error:")]
    assert len(errors) == 1 and "Traceback" not in r.output
    assert "(ValueError: Expected end" in errors[0] and "report" in errors[0].split()
    assert len(pd.read_parquet(out / "results")) == 32
    cfg = json.loads((out / "config.json").read_text())
    assert cfg["status"] == "report failed" and cfg["games_completed"] == 8
    assert "error.log" in cfg["files"] and "Traceback" in (out / "error.log").read_text()


def test_strategy_colours_are_stable_per_name():
    one = plots.strategy_colours(["greedy", "random"])
    two = plots.strategy_colours(["threshold", "random", "greedy"])
    assert one["greedy"] == two["greedy"] and one["random"] == two["random"]
    assert plots.strategy_colours(["random", "greedy"]) == one
    many = plots.strategy_colours([f"s{i}" for i in range(6)])
    assert len(set(many.values())) == 6  # collisions take the next free colour


def test_score_distribution_uses_small_multiples_from_four_strategies(tmp_path):
    import matplotlib.image
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"strategy": pd.Categorical(np.repeat(list("abcd"), 50)), "score": rng.integers(0, 20, 200)})
    for rows, name in ((df, "four.png"), (df[df["strategy"].isin(["a", "b"])], "two.png")):
        counts = rows.groupby(["strategy", "score"], observed=True).size().astype(float).to_frame("count")
        plots.score_distribution_counts(counts, tmp_path / name)
    h4 = matplotlib.image.imread(tmp_path / "four.png").shape[0]
    h2 = matplotlib.image.imread(tmp_path / "two.png").shape[0]
    assert h4 > h2 * 1.3  # one panel per strategy


# -- 4. output edge cases ---------------------------------------------------------------------------

def test_list_into_head_ends_quietly_like_unix_tools(tmp_path):
    first = subprocess.run(CLI + ["list"], capture_output=True, text=True, timeout=120).stdout.splitlines()[0]
    script = shlex.join(CLI) + " list | head -1; echo \"status ${PIPESTATUS[0]}\" >&2"
    proc = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.stdout.splitlines() == [first]
    assert proc.stderr.strip() in ("status 0", "status 141"), proc.stderr  # 141 = killed by SIGPIPE


def test_simulate_into_head_still_writes_every_file(tmp_path):
    out = tmp_path / "run"
    script = (shlex.join(CLI) + f" simulate dao -s greedy -n 4 -j 1 --seed 2 --out '{out}' | "
              "head -c 1 >/dev/null")
    subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=300)
    cfg = json.loads((out / "config.json").read_text())
    assert "cards.png" in cfg["files"] and "index.html" in cfg["files"]
    assert all((out / f).exists() for f in cfg["files"])


def test_cjk_strategy_names_keep_the_terminal_tables_aligned(runner, tmp_path):
    """Columns are padded by display width: a CJK character takes two terminal columns, and a
    name typed decomposed (a macOS file name: ガ as カ and a combining mark) as many as composed."""
    import unicodedata

    from analyser.text import width

    code = "from analyser.titles.dao.rules import TAKE\n\ndef choose(view, legal, rng):\n    return TAKE\n"
    bots = [tmp_path / "慎重な戦略.py", tmp_path / unicodedata.normalize("NFD", "ガチ戦略.py")]
    for bot in bots:
        bot.write_text(code)
    r = invoke(runner, "simulate", "dao", "-s", str(bots[0]), "-s", str(bots[1]), "-s", "greedy", "-n", "9", "-j",
               "1", "--seed", "1", "--no-report", "--out", tmp_path / "run")
    assert r.exit_code == 0, r.output
    lines = r.output.split("\nStrategies (")[1].splitlines()[1:5]  # header, then the three strategies
    assert any("慎重な戦略" in x for x in lines) and any("ガチ戦略" in unicodedata.normalize("NFC", x) for x in lines)
    assert len({width(x) for x in lines}) == 1, lines
    seats = r.output.split("Win rate by strategy and seat")[1].splitlines()[1:5]
    assert len({width(x) for x in seats}) == 1, seats


def test_a_closed_pipe_stops_the_worker_processes_at_once(tmp_path):
    """`analyser simulate ... | head -c 1`: the reader goes away while the pool idles after play;
    the process ends by SIGPIPE and takes its workers with it (they used to idle for 300 s)."""
    import signal
    import time

    from test_stream import alive, children
    # (the Python engine: a compiled run's batches are played by threads of the main process, without workers)
    proc = subprocess.Popen(CLI + ["simulate", "dao", "-s", "greedy", "-s", "random", "-n", "40", "-j", "2",
                                   "--engine", "python",
                                   "--batch-size", "10", "--seed", "3", "--no-report", "--out", str(tmp_path / "run")],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        import fcntl
        fcntl.fcntl(proc.stdout.fileno(), getattr(fcntl, "F_SETPIPE_SZ", 1031), 4096)  # less than the summary
        assert proc.stdout.read(1)  # the summary (over 5 kB): play is over, the pool is idle
        workers = [c for c in children(proc.pid) if "LokyProcess" in Path(f"/proc/{c}/cmdline").read_text()]
        assert len(workers) == 2
        proc.stdout.close()
        assert proc.wait(timeout=60) == -signal.SIGPIPE
        end = time.monotonic() + 60  # (however loaded the machine: they used to idle for 300 s)
        while any(alive(w) for w in workers) and time.monotonic() < end:
            time.sleep(0.05)
        assert not [w for w in workers if alive(w)]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_out_that_is_not_utf8_is_refused_up_front(runner, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    bad = os.fsdecode(b"run-\xff")
    r = invoke(runner, "simulate", "dao", "-s", "greedy", "-n", "4", "--out", bad)
    assert r.exit_code == 2
    lines = [x for x in r.output.splitlines() if x.strip()]
    assert len(lines) == 1 and "UTF-8" in lines[0]
    assert list(tmp_path.iterdir()) == []  # nothing played, nothing written
    r = invoke(runner, "report", "somewhere/results.parquet", "--out", bad)
    assert r.exit_code == 2 and "UTF-8" in r.output


@pytest.mark.parametrize("game", game_ids())
def test_report_tables_are_the_same_from_parquet_and_csv(runner, tmp_path, game):
    out = sim(runner, tmp_path / "run", game, "-n", "8", "--seed", "4", "--csv", "--no-report")
    pq, pq_extras, config = load_results(out)
    csv, csv_extras, _ = load_results(out / "results.csv")
    g = get_game(game)
    assert report.rule_values(g, pq, config) == report.rule_values(g, csv, config)
    a, b = report.summarise(pq, pq_extras), report.summarise(csv, csv_extras)
    for x, y in [(a.strategies, b.strategies), (a.seats, b.seats)] + [
            (t1, t2) for (_, t1), (_, t2) in zip(a.title_tables, b.title_tables)]:
        pd.testing.assert_frame_equal(analysis.format_table(x), analysis.format_table(y))
    assert [c for c, _ in a.title_tables] == [c for c, _ in b.title_tables]
    assert a.run["seats"]["verdict"] == b.run["seats"]["verdict"]


# -- 5. numbers and headers ---------------------------------------------------------------------------

def test_players_default_to_the_usual_count_and_the_header_says_what_ran(runner, tmp_path):
    out = tmp_path / "run"
    r = invoke(runner, "simulate", "dao", "-s", "greedy", "-s", "random", "-n", "60", "-j", "0", "--out", str(out))
    assert r.exit_code == 0, r.output
    head = r.stderr.splitlines()[0]
    assert "60 games," in head and "4 players," in head and "greedy, random (cycling" in head
    assert "job" not in r.stderr
    df = pd.read_parquet(out / "results")
    assert set(df["players"]) == {4}
    cfg = json.loads((out / "config.json").read_text())
    pool = "threads of one process" if cfg["engine"] == "compiled" else "worker processes"
    where = "in one process" if cfg["jobs"] == 1 else f"on {cfg['jobs']} {pool}"
    assert f"s {where}" in r.stdout and where in (out / "index.html").read_text()


@pytest.mark.parametrize("config, shown", [
    ({"jobs": 1, "engine": "compiled", "backend": "loky"}, "in one process"),
    ({"jobs": 2, "engine": "compiled", "backend": "loky"}, "on 2 threads of one process"),
    ({"jobs": 2, "engine": "compiled", "backend": "dask"}, "on 2 worker processes"),
    ({"jobs": 2, "engine": "python", "backend": "loky"}, "on 2 worker processes"),
    ({"jobs": None}, ""),
])
def test_the_summary_says_whether_the_jobs_were_threads_or_worker_processes(config, shown):
    assert report.ran_on(config) == shown


def test_rule_values_show_as_typed(runner, tmp_path):
    out = sim(runner, tmp_path / "run", "tsuro-seas", "-s", "random", "-n", "4", "--rule", "daikaiju=off")
    html = (out / "index.html").read_text()
    assert "<dt>daikaiju</dt><dd>off</dd>" in html and "<dt>tiles</dt><dd>(built-in)</dd>" in html
    assert "False" not in html.split('<h2 id="rules">Rule parameters</h2>')[1].split("</dl>")[0]


def test_a_mirror_match_leads_with_what_it_can_measure(runner, tmp_path):
    out = tmp_path / "m"
    r = invoke(runner, "simulate", "dao", "-s", "greedy", "-n", "40", "-j", "1", "--seed", "1", "--out", str(out))
    html = (out / "index.html").read_text()
    headline = html.split('<div class="headline">')[1].split("</div>\n</div>")[0]
    assert "best win rate" not in headline
    for card in ("seat advantage", "game length", "score spread", "tie rate"):
        assert f"<span>{card}</span>" in headline
    assert "Strategies (win rate" not in r.output and "Seat balance:" in r.output




# -- 6. replays and strategy errors -------------------------------------------------------------------

def test_play_from_a_run_replays_that_game_with_its_lineup_and_rules(runner, tmp_path):
    out = sim(runner, tmp_path / "run", "dao", "-s", "greedy", "-s", "threshold:limit=6", "-s", "colour",
              "-n", "20", "--seed", "5", "--rule", "bust_limit=11")
    r = invoke(runner, "play", "--from", str(out), "--game-index", "17", "--json")
    assert r.exit_code == 0, r.output
    lines = [json.loads(x) for x in r.output.splitlines()]
    df = pd.read_parquet(out / "results")
    game = df[df["game_index"] == 17].sort_values("seat")
    assert lines[-1]["scores"] == list(game["score"])
    assert [x["strategy"] for x in lines[:-1] if x["step"] <= 4] == list(game["strategy"].astype(str))[:4]
    assert lines[0]["state"]["params"]["bust_limit"] == 11
    bad = invoke(runner, "play", "--from", str(out), "--game-index", "20")
    assert bad.exit_code == 2 and "0 to 19" in bad.output


BOOM = '''
from analyser.engine.core import Strategy


def helper(view):
    raise ValueError("no luck")


class Boom(Strategy):
    name = "boom"
    game = "dao"

    def choose(self, view, legal, rng):
        return helper(view)


STRATEGIES = [Boom]
'''


def test_a_strategy_error_names_its_file_and_line_and_logs_the_traceback(runner, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bots.py").write_text(BOOM)
    r = invoke(runner, "simulate", "dao", "-s", "bots.py:boom", "-n", "4", "-j", "1", "--out", "run", "-q")
    assert r.exit_code == 1
    errors = [x for x in r.output.splitlines() if x.startswith("analyser: error:")]
    assert len(errors) == 1 and "Traceback" not in r.output
    assert "ValueError: no luck" in errors[0] and "bots.py:6" in errors[0] and "run/error.log" in errors[0]
    log = (tmp_path / "run" / "error.log").read_text()
    assert "Traceback" in log and "in helper" in log
    d = invoke(runner, "simulate", "dao", "-s", "bots.py:boom", "-n", "4", "-j", "1", "--out", "run", "-q",
               "--debug")
    assert "Traceback" in d.stderr
    p = invoke(runner, "play", "dao", "-s", "bots.py:boom", "--seed", "1")
    assert p.exit_code == 1 and "at bots.py:6" in p.stderr and "Traceback" not in p.output
    assert "Traceback" in invoke(runner, "play", "dao", "-s", "bots.py:boom", "--seed", "1",
                                                         "--debug").stderr
