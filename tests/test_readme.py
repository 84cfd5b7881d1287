"""The README and the pages under docs/ are a contract.

- Every `analyser ...` example in README.md and in every markdown page under docs/ runs (with at
  most 30 games in one process - 6 for a command that is not a worked example, not the first of
  its kind on its page and not one whose folder another command reads - and each page building
  each kind of report once per title, by a worked example where one builds it, so the suite stays
  fast).
- Every marked worked example (docs/worked-examples.md) has its commands inside its markers, they
  run at that size, and tools/regenerate_examples.py can read their output and render the example.
- Every "Read:" paragraph sits right under a worked example; every relative link resolves.
- The README's set-up commands match what CI runs, and the results schema names every column.
"""

import importlib.util
import json
import re
import shlex
import shutil
import sys
from pathlib import Path

import pytest

from analyser.cli import cli

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def _load_regenerate():
    spec = importlib.util.spec_from_file_location("regenerate_examples", ROOT / "tools" / "regenerate_examples.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


regen = _load_regenerate()
PAGES = regen.doc_files(ROOT)


def rel(p: Path) -> str:
    return str(p.relative_to(ROOT))


def blocks(lang: str, text: str = README) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```", text, flags=re.S | re.M)


def example_commands(text: str = README) -> list[str]:
    return [line.strip() for b in blocks("sh", text) for line in b.splitlines()
            if line.strip().startswith("analyser ")]


def shrink(args: list[str]) -> list[str]:
    """Cap --games at 30 (a tune's --trials at 6) and run in one process, so every example takes a second or two; with the
    search player (mcts), cap its iterations at 4 and the games at 4 (1 for bench --mcts)."""
    out = [re.sub(r"iterations=\d+", "iterations=4", a) if a.startswith("mcts") else a for a in args]
    if out[0] == "ladder":  # a short ladder: mcts at 2 to 8 iterations, a few games, one process
        searches = "--strategy" not in out or out[out.index("--strategy") + 1].startswith("mcts")
        if searches:
            out = out[:out.index("--budgets")] + out[out.index("--budgets") + 2:] if "--budgets" in out else out
            out += ["--budgets", "2..8"]
        for flag in ("--games", "-n"):
            if flag in out:
                out[out.index(flag) + 1] = str(min(int(out[out.index(flag) + 1]), 4))
        return out + ([] if "--games" in out or "-n" in out else ["--games", "4"]) + ["--jobs", "1"]
    if "--mcts" in out:
        return out + ["--games", "1", "--iterations", "4"]
    if any(a.startswith("mcts") for a in out):
        for flag in ("--games", "-n"):
            if flag in out:
                i = out.index(flag)
                out[i + 1] = str(min(int(out[i + 1]), 4))
                break
        else:
            out += ["--games", "4"]
    for flag in ("--games", "-n"):
        if flag in out:
            i = out.index(flag)
            out[i + 1] = str(min(int(out[i + 1]), 30))
            break
    else:
        plays = out[0] in ("simulate", "bench", "check", "sweep", "tournament") or (
            out[0] == "compare" and any(f in out for f in ("-s", "--a", "--b", "--a-strategy", "--b-strategy")))
        if plays:
            out += ["--games", "30"]
    if out[0] == "tune" and "--trials" in out:  # a tune: a few trials
        i = out.index("--trials")
        out[i + 1] = str(min(int(out[i + 1]), 6))
    if out[0] in ("simulate", "bench", "sweep", "tournament", "compare", "tune") and not (
            out[0] == "compare" and not any(f in out for f in ("-s", "--a-strategy"))):
        for flag in ("--jobs", "-j"):
            if flag in out:
                out[out.index(flag) + 1] = "1"
                break
        else:
            out += ["--jobs", "1"]
    return out


#: The games of a command that is neither a worked example (whose rendered output depends on its
#: size) nor the first of its kind on its page (which keeps the size of :func:`shrink`), nor one
#: whose folder another command of the page reads: it is checked to run as documented (its
#: arguments parse, it exits 0, it writes its files), which any number of games shows.
FEW_GAMES = 6


def fewer_games(args: list[str]) -> list[str]:
    """``args`` (already shrunk) with --games/-n capped at :data:`FEW_GAMES`."""
    out = list(args)
    for flag in ("--games", "-n"):
        if flag in out:
            i = out.index(flag)
            out[i + 1] = str(min(int(out[i + 1]), FEW_GAMES))
    return out


def read_folders(commands: list[str]) -> set[str]:
    """Every word of a page's commands that is not the folder the command itself writes: the run
    folders a `resume`, `report`, `compare A B` or `play --from` reads are among them."""
    words = set()
    for c in commands:
        args = shlex.split(c)
        written = {i + 1 for i, a in enumerate(args) if a in ("-o", "--out")}
        words |= {a.rstrip("/") for i, a in enumerate(args) if i not in written}
    return words


def my_bots_source() -> str:
    """The strategy file the examples use (`my_bots.py`), from the page that shows it."""
    for page in PAGES:
        for b in blocks("python", page.read_text()):
            if b.startswith("# my_bots.py"):
                return b
    raise AssertionError("no page shows my_bots.py")


def test_readme_has_the_two_setup_commands_and_ci_runs_the_test_one():
    setup = [b.strip() for b in blocks("sh") if b.strip().startswith("pip install")]
    assert setup[0] == "pip install . && analyser simulate dao --strategy greedy"
    assert setup[1] == "pip install '.[test]' && python -m pytest -n auto"
    assert setup[1] in (ROOT / ".ci" / "run").read_text()


#: Files a page's examples must leave behind (beyond exit code 0).
WRITES = {
    "docs/commands/simulate.md": ["reports/limit10/index.html", "reports/duel/results.csv"],
    "docs/commands/report.md": ["reports/limit10/index.html", "reports/duel/results.csv",
                                "reports/duel-again/index.html"],
    "README.md": ["reports/tour/index.html"],
}

PAGES_WITH_COMMANDS = [p for p in PAGES if example_commands(p.read_text())]

#: The commands that build a report (plots and HTML) unless given --no-report.
REPORTING = ("simulate", "sweep", "ladder", "tune")


def report_once(args: list[str], page: str, reported: set) -> list[str]:
    """The arguments with --no-report added when the page builds a report of the same kind for the
    same title elsewhere (``reported``: those already built, and those its worked examples build,
    which their renderers read; the report costs more than the games at this size): every command
    still plays and prints in full, each page builds each kind of report once per title, and every
    folder whose report the page names (WRITES) or a worked example reads still gets one."""
    if args[0] not in REPORTING or "--no-report" in args:
        return args
    key = (args[0], args[1])
    folder = regen.Run("", args, None).option("-o", "--out")
    needed = folder is not None and f"{folder.rstrip('/')}/index.html" in WRITES.get(page, [])
    if key in reported and not needed:
        return args + ["--no-report"]
    reported.add(key)
    return args


def test_the_pages_hold_the_examples():
    assert len([c for p in PAGES for c in example_commands(p.read_text())]) >= 60
    assert {rel(p) for p in PAGES_WITH_COMMANDS} >= set(WRITES) | {"docs/commands/sweep.md", "docs/mcts.md"}


@pytest.mark.parametrize("page", PAGES_WITH_COMMANDS, ids=rel)
def test_every_example_on_the_page_runs_and_its_worked_examples_render(page, runner, tmp_path, monkeypatch,
                                                                       quick_ladder_speed):
    text = page.read_text()
    examples = regen.find_examples(page, text)
    in_example = {c for e in examples for c in e.commands}
    monkeypatch.chdir(tmp_path)
    if "my_bots.py" in text:
        (tmp_path / "my_bots.py").write_text(my_bots_source())
    ran: dict[str, object] = {}
    commands = example_commands(text)
    # (the kinds of report the worked examples build: the page's other commands of the kind skip theirs)
    reported = {(a[0], a[1]) for a in (shrink(shlex.split(c)[1:]) for c in in_example) if a[0] in REPORTING}
    read = read_folders(commands)  # (a folder another command reads keeps its size)
    sized = {shlex.split(c)[1] for c in in_example}  # kinds of command run at size on this page
    for command in commands:
        args = shrink(shlex.split(command)[1:])
        if command not in in_example:  # a worked example renders from its report's tables
            args = report_once(args, rel(page), reported)
            folder = (regen.Run("", args, None).option("-o", "--out") or "").rstrip("/")
            if args[0] in sized and folder not in read:
                args = fewer_games(args)
            sized.add(args[0])
        out = None
        if command in in_example:  # run it as tools/regenerate_examples.py does, so its folder is known
            args, named = regen.plan(args, default=f"example-{len(ran)}")
            out = tmp_path / named if named else None
        if args[0] == "resume":
            # the docs show resume after an interruption: cut the run short the way one does
            folder = tmp_path / args[1]
            config = json.loads((folder / "config.json").read_text())
            if config.get("kind"):  # an experiment: its last cell never started
                cell = config["cells"][-1]
                shutil.rmtree(folder / cell["folder"])
                cell.update(status="pending", games_done=[])
            for part in sorted((folder / "results").glob("part-*.parquet"))[1:]:
                part.unlink()
            config["status"] = "interrupted"
            (folder / "config.json").write_text(json.dumps(config))
        result = runner.invoke(cli, args, catch_exceptions=False)
        assert result.exit_code == 0, f"{rel(page)}: {command}\n{result.output}"
        ran[command] = regen.Run(command, args, out, result.stdout)
    for e in examples:
        rendered = regen.render(e.name, [ran[c] for c in e.commands])
        assert "| --- |" in rendered or "```text" in rendered, (e.name, rendered)
    for f in WRITES.get(rel(page), []):
        assert (tmp_path / f).exists(), f
    if rel(page) == "docs/commands/simulate.md":  # the default output folder
        assert any(p.name.startswith("dao-") for p in (tmp_path / "reports").iterdir())


def test_every_worked_example_is_marked_with_its_commands_and_has_a_renderer():
    examples = regen.all_examples(ROOT)  # raises on a marker without its ```sh block or its end
    names = {e.name for e in examples}
    assert names == set(regen.RENDERERS), "an example without a renderer, or a renderer without an example"
    for e in examples:
        assert e.commands, e.name
        for c in e.commands:
            assert "--seed" in c or c.split()[1] == "play", f"{e.name}: `{c}` needs a fixed --seed to regenerate alike"
        assert e.generated.strip(), f"{e.name} in {rel(e.path)} has not been generated: run tools/regenerate_examples.py"
    with pytest.raises(ValueError, match="broken"):
        regen.find_examples(Path("x.md"), "<!-- example: broken -->\nno command block\n<!-- /example -->\n")


def test_every_reading_sits_under_a_worked_example():
    """A "Read:" paragraph interprets figures: it must follow the example that produces them."""
    for page in PAGES:
        lines = page.read_text().splitlines()
        for i, line in enumerate(lines):
            if line.startswith("Read:"):
                before = [x for x in lines[:i] if x.strip()]
                assert before and before[-1] == "<!-- /example -->", f"{rel(page)}:{i + 1}: {line[:60]}"


def slug(heading: str) -> str:
    """GitHub's anchor for a heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = re.sub(r"^```.*?^```", "", page.read_text(), flags=re.S | re.M)
    return {slug(m) for m in re.findall(r"^#+ (.*)$", text, flags=re.M)} | set(re.findall(r'<a id="([^"]+)">', text))


def test_every_link_between_the_pages_resolves():
    checked = 0
    for page in PAGES:
        text = re.sub(r"^```.*?^```", "", page.read_text(), flags=re.S | re.M)
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            dest = (page.parent / path).resolve() if path else page
            assert dest.exists(), f"{rel(page)}: link to {target}: no such file"
            if anchor:
                assert anchor in anchors(dest), f"{rel(page)}: link to {target}: no such heading"
            checked += 1
    assert checked >= 40


def test_results_schema_states_every_titles_results_columns():
    from analyser.engine.registry import game_ids, get_game
    page = (ROOT / "docs" / "results.md").read_text()
    section = page[page.index("## The results schema"):page.index("The report opens with")]
    for gid in game_ids():
        g = get_game(gid)
        row = next((line for line in section.splitlines() if line.startswith(f"| `{gid}` |")), "")
        assert row, f"docs/results.md's results schema has no row for {gid}"
        for col in g.metric_columns:
            if col == "score_trace":  # in the table of every column
                continue
            assert f"`{col}`" in row, f"docs/results.md's results schema lacks {gid}'s column {col}"
