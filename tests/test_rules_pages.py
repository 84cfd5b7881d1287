"""Rules pages ship with the package (issue 22): each title package holds its page as package
data (``rules.md``), ``analyser rules TITLE`` prints it, ``analyser list`` points at it, and a
title of one's own gets one from ``analyser new``."""

import subprocess
import sys
import zipfile
from importlib import resources
from pathlib import Path

import pytest

from analyser.cli import cli
from analyser.engine.registry import game_ids, get_game, rules_page

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("gid", game_ids())
def test_each_title_package_holds_its_rules_page_as_package_data(gid):
    package = f"analyser.titles.{gid.replace('-', '_')}"
    page = resources.files(package) / "rules.md"
    text = page.read_text(encoding="utf-8")
    assert text.startswith("# ") and f"(`{gid}`" in text.splitlines()[0]
    assert rules_page(get_game(gid)).read_text(encoding="utf-8") == text


@pytest.mark.parametrize("gid", game_ids())
def test_rules_prints_the_page_and_path_its_location(runner, gid):
    r = runner.invoke(cli, ["rules", gid])
    assert r.exit_code == 0, r.output
    page = resources.files(f"analyser.titles.{gid.replace('-', '_')}") / "rules.md"
    assert r.output == page.read_text(encoding="utf-8")
    r = runner.invoke(cli, ["rules", gid, "--path"])
    assert r.exit_code == 0 and Path(r.output.strip()).read_text(encoding="utf-8") == page.read_text(
        encoding="utf-8")
    assert Path(r.output.strip()).name == "rules.md" and "analyser" in Path(r.output.strip()).parts


def test_list_points_at_the_rules_command(runner):
    for gid in game_ids():
        out = runner.invoke(cli, ["list", gid]).output
        assert f"  rules: analyser rules {gid}\n" in out
    assert "docs/rules" not in out


def test_a_title_file_without_a_rules_page_is_said_in_one_line(runner):
    toy = str(ROOT / "tests" / "toy_title.py")
    r = runner.invoke(cli, ["rules", toy])
    assert r.exit_code == 1
    assert r.output.strip() == f"analyser: error: toy has no rules page; write one as {ROOT / 'tests' / 'toy_title.md'}"
    assert f"rules: no rules page (write one as {ROOT / 'tests' / 'toy_title.md'})" in runner.invoke(
        cli, ["list", toy]).output


def test_a_new_title_has_its_own_rules_page(runner, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert runner.invoke(cli, ["new", "sea-dice"]).exit_code == 0
    r = runner.invoke(cli, ["rules", "./sea-dice"])
    assert r.exit_code == 0 and r.output.startswith("# Sea dice (`sea-dice`)")
    assert "**Ruling `max_turns`**" in r.output and "analyser rules\n./sea-dice" in r.output
    assert runner.invoke(cli, ["rules", "./sea-dice", "--path"]).output.strip() == str(
        (tmp_path / "sea-dice" / "rules.md").resolve())
    assert "rules: analyser rules ./sea-dice" in runner.invoke(cli, ["list", "./sea-dice"]).output


def test_no_product_text_points_at_the_old_rules_folder():
    texts = [ROOT / "README.md", ROOT / "pyproject.toml"]
    texts += [p for p in (ROOT / "analyser").rglob("*") if p.suffix in (".py", ".md", ".j2", ".tmpl", ".csv")]
    texts += list((ROOT / "strategies").glob("*.py"))
    for p in texts:
        assert "docs/rules" not in p.read_text(encoding="utf-8"), p


@pytest.mark.soak
def test_the_built_wheel_contains_every_rules_page_and_template(tmp_path):
    """Builds the wheel as `pip install .` would (an isolated build) and lists it."""
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", str(ROOT), "-w", str(tmp_path)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    (wheel,) = tmp_path.glob("analyser-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for gid in game_ids():
        assert f"analyser/titles/{gid.replace('-', '_')}/rules.md" in names, gid
    assert "analyser/kit/templates/new_title/rules.md.tmpl" in names
