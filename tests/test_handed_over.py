"""A handed-over folder is data, never code (issue 21, section 2).

Someone mails you a run folder whose config.json names a title folder, a strategy file and a Dask
scheduler.  ``resume``, ``report``, ``compare`` and ``play --from`` load and contact only what the
command line names; each file here writes a marker file when it is imported, so a test sees
whether it ran.  Then the hostile folders (a config.json too deep or too large, parts with broken
pandas metadata), CSV injection, and a broken plugin.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import types
from importlib import metadata
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from analyser.io import csvsafe
from analyser.engine import registry
from analyser.cli import cli
from analyser.run import trust

MARK = "import pathlib as _p\n_p.Path(__file__).parent.joinpath({name!r}).write_text('ran')\n"

BOTS = MARK.format(name="strategy.marker") + '''
def choose(view, legal, rng):
    return legal[0]
'''


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def lines_of(result):
    return [x for x in result.output.splitlines() if x.strip()]


def one_line_error(result, *needles):
    assert result.exit_code == 2, result.output
    lines = lines_of(result)
    assert len(lines) == 1 and lines[0].startswith("analyser: error: ") and "Traceback" not in result.output, \
        result.output
    for n in needles:
        assert n in lines[0], lines[0]
    return lines[0]


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


#: Under pytest-xdist (--dist loadgroup) this file's tests run in one worker, so its module-scoped
#: fixtures are built once, not once per worker.
pytestmark = pytest.mark.xdist_group("test_handed_over")


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """A run of a title folder of one's own and a strategy file, made in another process (so this
    one never imported them): ``done`` is the complete run; ``cut`` the same run cut short, whose
    config.json also names a Dask scheduler on a closed port."""
    base = tmp_path_factory.mktemp("handed")
    assert invoke("new", base / "mygame").exit_code == 0
    init = base / "mygame" / "__init__.py"
    init.write_text(MARK.format(name="title.marker") + init.read_text())
    (base / "bots.py").write_text(BOTS)
    r = subprocess.run([sys.executable, "-m", "analyser", "simulate", str(base / "mygame"), "-s", str(base / "bots.py"),
                        "-s", "hold", "-n", "40", "-j", "1", "--batch-size", "10", "--seed", "5",
                        "--out", str(base / "done"), "--no-report", "-q"], capture_output=True, text=True, timeout=240)
    assert r.returncode == 0, r.stderr
    shutil.copytree(base / "done", base / "cut")
    for p in sorted((base / "cut" / "results").glob("part-*.parquet"))[2:]:
        p.unlink()
    config = json.loads((base / "cut" / "config.json").read_text())
    config.update(status="interrupted", games_done=[[0, 20]], games_completed=20, backend="dask",
                  scheduler=f"tcp://127.0.0.1:{closed_port()}")
    (base / "cut" / "config.json").write_text(json.dumps(config))
    return base


@pytest.fixture
def folder(made, tmp_path, monkeypatch):
    """A fresh copy of ``made`` (its files at the same paths), with no marker, nothing trusted by
    this process, and any Dask client recorded instead of made."""
    for m in made.rglob("*.marker"):
        m.unlink()
    for name in ("done", "cut"):
        shutil.rmtree(tmp_path / name, ignore_errors=True)
        shutil.copytree(made / name, tmp_path / name)
    monkeypatch.setattr(trust, "_TRUSTED_FILES", set())
    calls = []

    def no_dask(spec):
        calls.append(spec.scheduler)
        from analyser.engine.core import InputError
        raise InputError(f"(test) a Dask client for {spec.scheduler}")
    monkeypatch.setattr("analyser.run.execute.dask_client", no_dask)
    return types.SimpleNamespace(base=made, done=tmp_path / "done", cut=tmp_path / "cut", dask_calls=calls,
                                 title=str(made / "mygame"), bots=str(made / "bots.py"))


def markers(f):
    return sorted(p.name for p in f.base.rglob("*.marker"))


# -- the acceptance: nothing the folder names runs unless the command line says so ---------------

@pytest.mark.parametrize("named, refused, flag", [
    ((), "title folder", "--title"),
    (("--strategy", "BOTS"), "title folder", "--title"),
    (("--title", "TITLE"), "strategy file", "--strategy"),
])
def test_resume_loads_no_file_the_folder_names(folder, named, refused, flag):
    args = [{"BOTS": folder.bots, "TITLE": folder.title}.get(a, a) for a in named]
    before = (folder.cut / "config.json").read_text()
    line = one_line_error(invoke("resume", folder.cut, *args), refused, f"pass {flag} ", "--trust")
    assert (folder.title if flag == "--title" else folder.bots) in line
    assert markers(folder) == [] and folder.dask_calls == []
    assert (folder.cut / "config.json").read_text() == before and len(list((folder.cut / "results").iterdir())) == 2


def test_report_compare_and_play_load_no_title_the_folder_names(folder, tmp_path):
    one_line_error(invoke("report", folder.done, "--out", tmp_path / "r1"), "title folder", "pass --title ")
    one_line_error(invoke("compare", folder.done, folder.cut, "--out", tmp_path / "c1"), "title folder")
    one_line_error(invoke("play", "--from", folder.done, "--game-index", "3"), "title folder", "--trust")
    # the title named as GAME is allowed, the strategy file in the lineup is not
    one_line_error(invoke("play", folder.title, "--from", folder.done, "--game-index", "3"), "strategy file",
                   "pass --trust")
    assert markers(folder) == []


def test_resume_with_the_files_named_runs_here_never_on_the_folders_scheduler(folder):
    r = invoke("resume", folder.cut, "--title", folder.title, "--strategy", folder.bots, "-q", "--no-report")
    assert r.exit_code == 0, r.output
    config = json.loads((folder.cut / "config.json").read_text())
    assert config["status"] == "complete" and config["games_done"] == [[0, 40]]
    note = [x for x in lines_of(r) if x.startswith("analyser: note: ")]
    assert len(note) == 1 and "'tcp://127.0.0.1:" in note[0] and "--scheduler ADDRESS" in note[0]
    assert folder.dask_calls == [] and config["backend"] == "loky" and config["scheduler"] is None
    assert markers(folder) == ["strategy.marker", "title.marker"]  # the named files did run
    done = pd.read_parquet(folder.done / "results").drop(columns=["run_id"])
    pd.testing.assert_frame_equal(pd.read_parquet(folder.cut / "results").drop(columns=["run_id"]), done)


def test_trust_loads_the_files_but_never_the_scheduler(folder, tmp_path):
    r = invoke("resume", folder.cut, "--trust", "-q", "--no-report")
    assert r.exit_code == 0 and "analyser: note: " in r.output and folder.dask_calls == [], r.output
    assert json.loads((folder.cut / "config.json").read_text())["status"] == "complete"
    r = invoke("report", folder.done, "--trust", "--out", tmp_path / "r2")
    assert r.exit_code == 0 and (tmp_path / "r2" / "index.html").exists(), r.output


def test_a_scheduler_is_contacted_only_when_the_command_line_names_it(folder, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", types.ModuleType("distributed"))  # installed or not
    address = f"tcp://127.0.0.1:{closed_port()}"
    one_line_error(invoke("resume", folder.cut, "--trust", "--scheduler", address, "-q"),
                   "Dask client", address)
    assert folder.dask_calls == [address]


def test_the_run_title_from_another_place_is_used_once_its_id_is_checked(folder, tmp_path):
    moved = tmp_path / "moved"
    shutil.copytree(folder.title, moved)
    r = invoke("resume", folder.cut, "--title", moved, "--strategy", folder.bots, "-q", "--no-report")
    assert r.exit_code == 0, r.output
    assert json.loads((folder.cut / "config.json").read_text())["title_source"] == str(moved)
    other = tmp_path / "other"
    shutil.copytree(folder.title, other)
    (other / "__init__.py").write_text((other / "__init__.py").read_text() + "\nTITLE.id = 'othergame'\n")
    one_line_error(invoke("resume", folder.done, "--title", other), "complete run")
    config = json.loads((folder.done / "config.json").read_text())
    config["status"] = "interrupted"
    (folder.done / "config.json").write_text(json.dumps(config))
    one_line_error(invoke("resume", folder.done, "--title", other, "--trust"), "'mygame'",
                   "'othergame'")


def test_flags_that_name_nothing_of_the_run_are_refused(folder, tmp_path):
    stray = tmp_path / "stray.py"
    stray.write_text("def choose(view, legal, rng):\n    return legal[0]\n")
    one_line_error(invoke("resume", folder.cut, "--trust", "--strategy", stray), str(stray))
    builtin = tmp_path / "builtin"
    assert invoke("simulate", "dao", "-s", "greedy", "-n", "4", "-j", "1", "--out", builtin, "-q",
                  "--no-report").exit_code == 0
    config = json.loads((builtin / "config.json").read_text())
    config["status"] = "interrupted"
    (builtin / "config.json").write_text(json.dumps(config))
    one_line_error(invoke("resume", builtin, "--title", folder.title), "registered title 'dao'")
    assert markers(folder) == []


def test_a_rollout_strategy_file_inside_a_parameter_is_a_file_too():
    assert trust.strategy_files("mcts:rollout=bots.py") == ["bots.py"]
    assert trust.strategy_files("mcts:rollout=bots.py/cautious/depth=2") == ["bots.py"]
    assert trust.strategy_files("a/b.py:x:k=1") == ["a/b.py"] and trust.strategy_files("greedy") == []
    named = trust.named_code({"game": "dao", "a": {"strategies": ["x.py:y", "greedy"]}, "scheduler": "tcp://h:1"})
    assert named == {"title": [], "strategy": ["x.py"], "scheduler": ["tcp://h:1"]}


# -- hostile folders: one line and exit 2 --------------------------------------------------------

@pytest.mark.parametrize("content, needle", [
    ('{"game": ' + "[" * 100_000 + "]" * 100_000 + "}", "nests arrays and objects 100001 deep"),
    (" " * 10_000_001, "is 10,000,001 bytes; the most accepted is 10,000,000"),
    ('{"game": "dao", "seed": ' + "9" * 5000 + ', "strategies": [], "games_requested": 1}', "5,000 digits"),
])
def test_a_deep_or_oversized_config_json_is_one_line(folder, content, needle):
    (folder.cut / "config.json").write_text(content)
    for args in (["resume", folder.cut], ["report", folder.cut], ["play", "--from", folder.cut, "--game-index", "1"]):
        one_line_error(invoke(*args), "config.json", needle)


def _rewrite_pandas_metadata(part: Path, change):
    table = pq.read_table(part)
    meta = dict(table.schema.metadata)
    meta[b"pandas"] = change(meta[b"pandas"])
    pq.write_table(table.replace_schema_metadata(meta), part)


def _range_index(stop):
    def change(raw):
        doc = json.loads(raw)
        doc["index_columns"] = [{"kind": "range", "name": None, "start": 0, "stop": stop, "step": 1}]
        return json.dumps(doc).encode()
    return change


@pytest.mark.parametrize("change, needle", [
    (lambda raw: raw[: len(raw) // 2], "its pandas metadata is not JSON: "),
    (_range_index(10 ** 30), "its pandas metadata: a whole number with 31 digits"),
    (_range_index(10 ** 15), "its range index has 1,000,000,000,000,000 rows, but the file holds"),
    (lambda raw: json.dumps({"index_columns": [{"kind": "range", "start": 0}], "columns": []}).encode(),
     "neither a column name nor a range"),
])
def test_a_part_with_broken_pandas_metadata_is_one_line_naming_it(runs, tmp_path, change, needle):
    run = tmp_path / "run"
    shutil.copytree(runs, run)
    part = sorted((run / "results").glob("part-*.parquet"))[1]
    _rewrite_pandas_metadata(part, change)
    one_line_error(invoke("report", run, "--out", tmp_path / "o"), f"part {str(part)!r}", needle)
    single = tmp_path / "results.parquet"
    shutil.copy(part, single)
    one_line_error(invoke("report", single, "--out", tmp_path / "o2"), f"results file {str(single)!r}", needle)
    with pytest.raises(Exception) as e:
        from analyser.results import load_results
        load_results(run, columns=["score"])
    assert type(e.value).__name__ == "InputError" and str(part) in str(e.value)
    config = json.loads((run / "config.json").read_text())
    config.update(status="interrupted", games_requested=30)
    (run / "config.json").write_text(json.dumps(config))
    one_line_error(invoke("resume", run, "-q"), f"part {str(part)!r}", needle)  # before any game is played
    assert len(list((run / "results").iterdir())) == 2


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    out = tmp_path_factory.mktemp("dao") / "run"
    assert invoke("simulate", "dao", "-s", "greedy", "-s", "random", "-n", "20", "-j", "1", "--batch-size", "10",
                  "--seed", "4", "--out", out, "-q", "--no-report").exit_code == 0
    return out


# -- CSV injection ------------------------------------------------------------------------------

def test_every_csv_the_tool_writes_goes_through_the_neutralising_writer():
    root = Path(__file__).resolve().parents[1] / "analyser"
    direct = [str(p.relative_to(root)) for p in root.rglob("*.py")
              if ".to_csv(" in p.read_text() and p.name != "csvsafe.py"]
    assert direct == []


def test_text_cells_are_neutralised_and_numbers_are_not():
    df = pd.DataFrame({"strategy": pd.Categorical(["=cmd|' /C calc'!A0", "greedy", "+1", "'@x"]),
                       "score": [-3, 2, -1, 0], "mean": [-1.5, 0.25, -0.0, 7.0],
                       "trace": ["-2 3", "1 2", None, "\tx"]},
                      index=pd.Index(["-a", "b", "c", "d"], name="@idx"))
    df.columns = ["strategy", "score", "mean", "=trace"]
    text = csvsafe.to_csv(df)
    rows = text.splitlines()
    assert rows[0] == "'@idx,strategy,score,mean,'=trace"
    neutralised = "'-a,'=cmd|' /C calc'!A0,-3,-1.5,'-2 3"  # each formula-looking cell quoted
    assert rows[1] == neutralised
    assert rows[3] == "c,'+1,-1,-0.0," and rows[4] == "d,''@x,0,7.0,'\tx"
    back = csvsafe.restore_frame(pd.read_csv(__import__("io").StringIO(text), index_col=0))
    assert list(back.columns) == list(df.columns) and list(back.index) == list(df.index)
    assert back["strategy"].tolist() == list(df["strategy"]) and back["score"].tolist() == [-3, 2, -1, 0]
    for s in ["", "'", "=", "'=", "''=", "-1", "a=b", "@"]:
        assert csvsafe.restore(csvsafe.neutralise(s)) == s


def test_results_and_summary_csv_neutralise_a_formula_strategy_and_report_reads_it_back(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "=cmd.py").write_text("def choose(view, legal, rng):\n    return legal[-1]\n")
    r = invoke("simulate", "dao", "-s", "=cmd.py", "-s", "greedy", "-n", "12", "-j", "1", "--seed", "3", "--csv",
               "--out", "run")
    assert r.exit_code == 0, r.output
    results = (tmp_path / "run" / "results.csv").read_text()
    summary = (tmp_path / "run" / "summary.csv").read_text()
    for text in (results, summary):
        cells = [c for line in text.splitlines() for c in line.split(",")]
        assert "'=cmd.py" in cells and "=cmd.py" not in cells
    parquet = pd.read_parquet(tmp_path / "run" / "results")
    raw = pd.read_csv(tmp_path / "run" / "results.csv")
    for col in ("score", "rank", "win", "game_seed"):  # numbers stay numbers
        assert raw[col].tolist() == parquet[col].tolist()
    # the report from results.csv names the strategy as the parts do: the same summary.csv
    r = invoke("report", tmp_path / "run" / "results.csv", "--out", "again")
    table = [line.split()[0] for line in r.output.splitlines() if line.split() and "=cmd.py" in line.split()[0]]
    assert r.exit_code == 0 and table and set(table) == {"=cmd.py"}, r.output  # the strategy table's cells
    assert (tmp_path / "again" / "summary.csv").read_text() == summary


def test_report_of_a_hostile_results_csv_writes_a_neutralised_summary(runs, tmp_path):
    df = pd.read_parquet(runs / "results").astype({"strategy": object})
    df["strategy"] = df["strategy"].map({"greedy": "=cmd|' /C calc'!A0", "random": "@SUM(1+1)"})
    df.to_csv(tmp_path / "evil.csv", index=False)  # a file made by hand: nothing neutralised in it
    r = invoke("report", tmp_path / "evil.csv", "--out", tmp_path / "o")
    assert r.exit_code == 0, r.output
    summary = pd.read_csv(tmp_path / "o" / "summary.csv")
    assert sorted(summary["strategy"]) == ["'=cmd|' /C calc'!A0", "'@SUM(1+1)"]


# -- plugins --------------------------------------------------------------------------------------

@pytest.fixture
def plugins(tmp_path, monkeypatch):
    (tmp_path / "fake_dao.py").write_text("from analyser.titles.dao.rules import Dao\n\n"
                                          "class Fake(Dao):\n    id = 'dao'\n    name = 'Fake'\n\nTITLE = Fake()\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    titles = [metadata.EntryPoint(name="broken", value="no_such_module_xyz:TITLE", group=registry.TITLE_GROUP),
              metadata.EntryPoint(name="dao", value="fake_dao:TITLE", group=registry.TITLE_GROUP),
              metadata.EntryPoint(name="dao", value="analyser.titles.dao:TITLE", group=registry.TITLE_GROUP)]
    bots = [metadata.EntryPoint(name="brokenbot", value="no_such_module_xyz:Bot", group=registry.ENTRY_POINT_GROUP)]
    monkeypatch.setattr(registry.metadata, "entry_points",
                        lambda group=None, **kw: titles if group == registry.TITLE_GROUP else
                        bots if group == registry.ENTRY_POINT_GROUP else [])
    monkeypatch.setattr(registry, "_noted", set())
    registry._title_targets.cache_clear()
    registry._registered_game.cache_clear()
    yield
    registry._title_targets.cache_clear()
    registry._registered_game.cache_clear()


def test_list_with_a_broken_plugin_still_lists_the_built_in_titles(plugins):
    r = CliRunner().invoke(cli, ["list"], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    table = r.stdout.split("\n\n")[0].splitlines()[1:]  # (below its header: one line per title)
    listed = [x.split()[0] for x in table]
    assert listed == ["dao", "dragon-lairds", "kingdomino-duel", "tsuro-seas", "wizard"]
    assert "Fake" not in r.stdout
    warnings = r.stderr.splitlines()
    assert len(warnings) == 3 and all(w.startswith("analyser: warning: ") for w in warnings), r.stderr
    # each warning names the plugin, its entry point and the cause
    assert all(x in warnings[0] for x in ("'broken'", "(no_such_module_xyz:TITLE)", "ModuleNotFoundError"))
    assert "fake_dao:TITLE" in warnings[1] and "'dao'," in warnings[1]
    assert all(x in warnings[2] for x in ("'brokenbot'", "(no_such_module_xyz:Bot)", "ModuleNotFoundError"))


def test_a_shadowed_id_is_said_once_when_used_and_a_broken_strategy_plugin_stops_nothing(plugins, tmp_path):
    r = CliRunner().invoke(cli, ["simulate", "dao", "-s", "greedy", "-s", "random", "-n", "4", "-j", "1", "-q",
                                 "--no-report", "--out", tmp_path / "o"], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    assert [x for x in r.stderr.splitlines() if x.startswith("analyser: note:") and "fake_dao:TITLE" in x] != []
    assert r.stderr.count("fake_dao:TITLE") == 1
    one_line_error(invoke("simulate", "dao", "-s", "brokenbot", "-n", "4", "--out", tmp_path / "p"),
                   "'brokenbot'", "(no_such_module_xyz:Bot)")
    one_line_error(invoke("simulate", "broken", "-s", "random", "-n", "4", "--out", tmp_path / "q"),
                   "'broken'", "(no_such_module_xyz:TITLE)")


@pytest.mark.parametrize("stopping,named", [("x", "the field 'stopping' is"),
                                            ({"history": "x", "until_ci": "a"}, "the field 'stopping.until_ci' is"),
                                            ({"until_ci": 0.1}, "the field 'stopping.reason' is")])
def test_a_broken_stopping_record_is_one_line(tmp_path, stopping, named):
    """The --until-ci record of a handed-over run is shown in the report and the terminal: a
    record of the wrong shape is refused in one line before anything is written."""
    out = tmp_path / "ci"
    r = invoke("simulate", "dao", "-s", "greedy", "-s", "random", "-n", "600", "--until-ci", "0.2", "--seed", "1",
               "-j", "1", "--out", str(out), "-q", "--no-report")
    assert r.exit_code == 0, r.output
    cfg = json.loads((out / "config.json").read_text())
    assert cfg["stopping"]["reason"]
    cfg["stopping"] = stopping
    (out / "config.json").write_text(json.dumps(cfg))
    r = invoke("report", str(out))
    assert r.exit_code == 2 and named in r.output and "Traceback" not in r.output
    assert not (out / "index.html").exists()


@pytest.mark.parametrize("field, value", [("players", True), ("run_id", 5), ("seed", "7"), ("games_done", [[0]]),
                                          ("strategies", ["greedy", 3]), ("game", None)])
def test_a_hand_edited_run_record_is_one_line_naming_the_file_and_field_for_report_and_resume(tmp_path, field,
                                                                                            value):
    out = tmp_path / "run"
    r = invoke("simulate", "dao", "-s", "greedy", "-s", "random", "-n", "8", "--seed", "1", "-j", "1",
               "--out", out, "-q", "--no-report")
    assert r.exit_code == 0, r.output
    cfg = json.loads((out / "config.json").read_text())
    (out / "config.json").write_text(json.dumps({**cfg, field: value, "status": "interrupted"}))
    for command in (("report", out), ("resume", out)):
        line = one_line_error(invoke(*command), str(out / "config.json"))
        assert f"'{field}" in line  # (the field, or the item of it, that is wrong)
    assert not (out / "index.html").exists()
