"""The one-time move of ``analyser/`` from 31 modules side by side into packages that name the layers
(issue 26, section 1).  Kept in the repository as the record of that move; it refuses to run twice.

Run it from the repository root, on a clean tree (everything committed)::

    python tools/relayout.py            # move the files with `git mv`, rewrite every reference
    python tools/relayout.py --dry-run  # say what it would move and which files it would rewrite

What it does, mechanically, from the one table :data:`MOVES` (old dotted module -> new one):

1. ``git mv`` every module of the table (and the templates folder, split between the report and the
   title kit), and writes the ``__init__.py`` of each new package (:data:`NEW_PACKAGES`).
2. Rewrites every reference to a moved module in every tracked text file under ``analyser/``,
   ``tests/``, ``strategies/``, ``tools/``, ``benchmarks/``, ``docs/``, ``.ci/`` and in
   ``README.md``, ``pyproject.toml`` and ``setup.py`` - files added since the table was written
   included, because it reads no file list of its own:

   * dotted names anywhere, in code or text: ``import analyser.core``, ``from analyser.core import
     X``, ``analyser.core.Game``, monkeypatch targets, ``module:attr`` specs, ``-m`` arguments,
     ``:mod:`` roles;
   * ``from analyser import a, b as c`` (parsed with :mod:`ast` in Python files, so parenthesised
     and indented imports are handled; one line at a time in other files): each moved name becomes
     ``from <new package> import <leaf> [as <old name>]``, so the code that uses the name is
     unchanged;
   * file paths: ``analyser/core.py`` -> ``analyser/engine/core.py``, ``analyser/templates/...``;
   * a few literal spellings that no rule above can place (:data:`LITERALS`), each checked.

It refuses to run when the tree has uncommitted changes, when the layout is already applied
(``analyser/engine/`` exists) and when a top-level module of ``analyser/`` is not in the table (a
module added after the table was written: add its line to :data:`MOVES` and run again), unless
``--allow-unplaced`` is given.  After it, run the tests that import broadly and commit the result.

It only moves and renames: no code changes meaning.  What the layers then needed by hand (the
import circles broken, the modules over the line cap split, each package's docstring) came in
the commits after it; ``tests/test_architecture.py`` holds the result.
"""

from __future__ import annotations

import argparse
import ast
import re
import subprocess
import sys
from pathlib import Path

#: old module -> new module: the whole move.  Packages of the old layout that stay where they are
#: (``run``, ``experiments``, ``findings``, ``cli``, ``titles``, and ``results``, whose ``__init__``
#: re-exports the reading API from its new homes) are not listed.
MOVES: dict[str, str] = {
    # engine: the title contract and playing games
    "analyser.core": "analyser.engine.core",
    "analyser.componenthooks": "analyser.engine.hooks",
    "analyser.traces": "analyser.engine.traces",
    "analyser.seeding": "analyser.engine.seeding",
    "analyser.componenttable": "analyser.engine.componenttable",
    "analyser.perseat": "analyser.engine.perseat",
    "analyser.userfiles": "analyser.engine.userfiles",
    "analyser.registry": "analyser.engine.registry",
    "analyser.runner": "analyser.engine.runner",
    "analyser.batchrecords": "analyser.engine.batchrecords",
    "analyser.compiled": "analyser.engine.compiled",
    "analyser.search": "analyser.engine.search",
    # io: files a user hands over, and CSV files written for spreadsheets
    "analyser.safeio": "analyser.io.files",
    "analyser.csvsafe": "analyser.io.csvsafe",
    "analyser.states": "analyser.io.states",
    "analyser.results.validate": "analyser.io.validate",
    # kit: what a title's author uses (analyser new, analyser check)
    "analyser.skeleton": "analyser.kit.skeleton",
    "analyser.check": "analyser.kit.check",
    # run: beside the run package's own modules
    "analyser.bench": "analyser.run.bench",
    "analyser.reproduce": "analyser.run.reproduce",
    "analyser.results.read": "analyser.run.read",  # analyser.results stays: the reading API, re-exported
    # stats: the numbers of a results frame
    "analyser.analysis": "analyser.stats.analysis",
    "analyser.designer": "analyser.stats.designer",
    "analyser.seats": "analyser.stats.seats",
    "analyser.components": "analyser.stats.components",
    "analyser.metagame": "analyser.stats.metagame",
    "analyser.metagame_copies": "analyser.stats.metagame_copies",
    "analyser.streamed": "analyser.stats.streamed",
    "analyser.plots": "analyser.stats.plots",
    # findings: the sentences
    "analyser.componentfindings": "analyser.findings.components",
    # report: the page
    "analyser.report": "analyser.report.page",
    "analyser.summaries": "analyser.report.summaries",
    "analyser.seatdisplay": "analyser.report.seats",
    "analyser.reportcomponents": "analyser.report.components",
    "analyser.templates": "analyser.report.templates",
    # experiments: a component confirmed by replaying the run's games (an experiment on the run)
    "analyser.componentconfirm": "analyser.experiments.confirm",
}

#: folders moved whole (old -> new, relative to the repository root), after the modules
FOLDER_MOVES: list[tuple[str, str]] = [
    ("analyser/templates/new_title", "analyser/kit/templates/new_title"),
    ("analyser/templates", "analyser/report/templates"),
]

#: file paths named in text (longest first when matched)
PATHS: dict[str, str] = {
    **{"/".join(old.split(".")) + ".py": "/".join(new.split(".")) + ".py"
       for old, new in MOVES.items() if old != "analyser.templates"},
    **dict(FOLDER_MOVES),
}

#: (file, text after the general rules, new text): spellings no general rule places (the templates
#: folder is split in two); each must be found once or more
LITERALS: list[tuple[str, str, str]] = [
    ("analyser/kit/skeleton.py", 'resources.files("analyser.report.templates")',
     'resources.files("analyser.kit.templates")'),
    ("analyser/report/page.py", 'jinja2.PackageLoader("analyser", "templates")',
     'jinja2.PackageLoader("analyser.report", "templates")'),
    ("pyproject.toml", '"analyser.report.templates" = ["*.j2", "new_title/*.tmpl"]',
     '"analyser.report.templates" = ["*.j2"]\n"analyser.kit.templates" = ["new_title/*.tmpl"]'),
]

#: the new packages and the docstring of each ``__init__.py`` (the layer order is declared once,
#: in tests/test_architecture.py; each docstring says what its package may import)
NEW_PACKAGES: dict[str, str] = {
    "analyser/engine": '''"""The engine: the title contract and playing games (the lowest layer; it imports no other
package of analyser).

* :mod:`~analyser.engine.core`: the contract every title keeps - rule parameters, the game, the
  strategy, the errors (:class:`~analyser.engine.core.InputError` is the one-line, exit-2 error);
* :mod:`~analyser.engine.hooks`: the component hooks of a game;
* :mod:`~analyser.engine.traces`: score traces (the ``score_trace`` column);
* :mod:`~analyser.engine.perseat`: per-seat rule values (``seat_bonus=0/0/2``);
* :mod:`~analyser.engine.seeding`: the seed of each game of a run;
* :mod:`~analyser.engine.userfiles`: loading a user's Python file or folder safely;
* :mod:`~analyser.engine.registry`: titles and strategies by name;
* :mod:`~analyser.engine.runner`: the game loop and a batch of games;
* :mod:`~analyser.engine.componenttable`: a batch's components table, packed for the trip home;
* :mod:`~analyser.engine.search`: the generic search player (``mcts``).
"""
''',
    "analyser/io": '''"""Files across the boundary: what a user hands over, read safely, and CSV files written to be
opened in a spreadsheet.  May import :mod:`analyser.engine` only.

* :mod:`~analyser.io.files`: reading a user's files (component files, saved states) with bounds;
* :mod:`~analyser.io.states`: saved states (``analyser play --state``): read, validate, build;
* :mod:`~analyser.io.csvsafe`: CSV cells neutralised for spreadsheets, read back as written;
* :mod:`~analyser.io.validate`: results tables and their ``config.json`` validated as untrusted
  input (column types, every cell, the table as a whole).
"""
''',
    "analyser/kit": '''"""The title author's kit: ``analyser new`` (:mod:`~analyser.kit.skeleton`, from the templates in
``templates/new_title/``) and ``analyser check`` (:mod:`~analyser.kit.check`, the conformance
kit).  May import :mod:`analyser.engine` and :mod:`analyser.io`.
"""
''',
    "analyser/kit/templates": "",
    "analyser/stats": '''"""The numbers of a results frame: summaries and intervals, designer metrics, seats, component
impact, the meta-game, the chunk-by-chunk sums of large runs and their plots.  May import
:mod:`analyser.engine`, :mod:`analyser.io`, :mod:`analyser.run` and :mod:`analyser.results`.

* :mod:`~analyser.stats.analysis`: win rates, intervals, formatting by the interval;
* :mod:`~analyser.stats.designer`: drama, luck against skill, decisiveness;
* :mod:`~analyser.stats.seats`: seat compensation and the seat figures;
* :mod:`~analyser.stats.components`: each component's effect on winning;
* :mod:`~analyser.stats.metagame`: the meta-game of a tournament;
* :mod:`~analyser.stats.streamed`: a run's tables read chunk by chunk into additive sums;
* :mod:`~analyser.stats.plots`: the matplotlib figures (the Agg backend is set there only).
"""
''',
    "analyser/report": '''"""The report: the page (:mod:`~analyser.report.page`: PNG plots and one self-contained
``index.html``), its core numbers from additive sums (:mod:`~analyser.report.summaries`), its seat
tables (:mod:`~analyser.report.seats`), its component section (:mod:`~analyser.report.components`)
and its jinja2 templates (``templates/``).  May import every layer below it: engine, io, run,
results, stats and findings.
"""
''',
}

#: the new module names (where an import's continuation lines may have moved)
NEW_MODULES = frozenset(MOVES.values())

ROOTS = ["analyser", "tests", "strategies", "tools", "benchmarks", "docs", ".ci"]
FILES = ["README.md", "pyproject.toml", "setup.py"]
TEXT_SUFFIXES = {".py", ".md", ".toml", ".tmpl", ".j2", ".txt", ".cfg", ".ini", ".rst", ".sh", ".yml", ".yaml",
                 ".json", ".html", ".css", ".js", ""}
ME = "tools/relayout.py"

_DOTTED = re.compile(r"(?<![\w.])(" + "|".join(re.escape(m) for m in sorted(MOVES, key=len, reverse=True))
                     + r")(?![\w])")
_PATH = re.compile(r"(?<![\w/.])(" + "|".join(re.escape(p) for p in sorted(PATHS, key=len, reverse=True))
                   + r")(?![\w])")
# `from analyser import a, b as c` on one line of a text file (docs, templates), optionally a doctest
_FROM_LINE = re.compile(r"^(?P<indent>[ \t]*(?:>>> )?)from analyser import (?P<names>[\w ,]+?)"
                        r"(?P<tail>[ \t]*(?:#.*)?)$", re.M)


def git(*args: str) -> str:
    return subprocess.run(["git", *args], check=True, capture_output=True, text=True).stdout


def from_analyser(names: list[tuple[str, str | None]], indent: str) -> str | None:
    """The statements that replace ``from analyser import <names>`` (``(name, asname)`` pairs), one
    per package, in the order the names came; None when no name moved."""
    groups: dict[str, list[str]] = {}
    moved = False
    for name, asname in names:
        new = MOVES.get(f"analyser.{name}")
        if new is None:
            parent, leaf = "analyser", name
        else:
            moved = True
            parent, leaf = new.rsplit(".", 1)
        bound = asname or name
        groups.setdefault(parent, []).append(leaf if bound == leaf else f"{leaf} as {bound}")
    if not moved:
        return None
    lines = [f"from {parent} import {', '.join(items)}" for parent, items in groups.items()]
    return ("\n" + indent).join(lines)


def rewrite_python_imports(text: str) -> str:
    """Rewrite every ``from analyser import ...`` statement of a Python source (found with ast)."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return rewrite_text_imports(text)
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    edits = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "analyser" and node.level == 0:
            indent = text[starts[node.lineno - 1]:starts[node.lineno - 1] + node.col_offset]
            new = from_analyser([(a.name, a.asname) for a in node.names],
                                indent if indent.strip() == "" else " " * node.col_offset)
            if new is not None:
                edits.append((starts[node.lineno - 1] + node.col_offset,
                              starts[node.end_lineno - 1] + node.end_col_offset, new))
    for begin, end, new in sorted(edits, reverse=True):
        text = text[:begin] + new + text[end:]
    return realign(text)


def _owner_moved(module: str) -> bool:
    """Whether ``module`` is a moved module or inside one (a moved package)."""
    return module in NEW_MODULES or module.startswith(tuple(f"{m}." for m in NEW_MODULES))


def realign(text: str) -> str:
    """Continuation lines of a parenthesised ``from <moved module> import (a, b,`` aligned again
    under the parenthesis, which moved when the module's name grew (a hanging indent, with nothing
    after the parenthesis on the first line, is left as it is)."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return text
    lines = text.splitlines(keepends=True)
    for node in ast.walk(tree):
        if not (isinstance(node, ast.ImportFrom) and node.end_lineno > node.lineno
                and _owner_moved(node.module or "")):
            continue
        first = lines[node.lineno - 1]
        paren = first.find("(", node.col_offset)
        if paren < 0 or first[paren + 1:].strip().startswith("#") or not first[paren + 1:].strip():
            continue
        for i in range(node.lineno, node.end_lineno):
            body = lines[i].lstrip(" ")
            if body.strip() and not body.startswith(")"):
                lines[i] = " " * (paren + 1) + body
    return "".join(lines)


def rewrite_text_imports(text: str) -> str:
    def one(m: re.Match) -> str:
        names = []
        for part in m["names"].split(","):
            words = part.split()
            if len(words) == 1:
                names.append((words[0], None))
            elif len(words) == 3 and words[1] == "as":
                names.append((words[0], words[2]))
            else:
                return m[0]
        new = from_analyser(names, m["indent"])
        return m[0] if new is None else m["indent"] + new + m["tail"]
    return _FROM_LINE.sub(one, text)


def rewrite(path: str, text: str) -> str:
    """One file's text with every reference to a moved module rewritten."""
    text = _DOTTED.sub(lambda m: MOVES[m[1]], text)
    text = _PATH.sub(lambda m: PATHS[m[1]], text)
    return rewrite_python_imports(text) if path.endswith(".py") else rewrite_text_imports(text)


def text_files() -> list[str]:
    listed = git("ls-files", "-z", "--", *ROOTS, *FILES).split("\0")
    return sorted(p for p in listed if p and p != ME and Path(p).suffix in TEXT_SUFFIXES and Path(p).is_file())


def preflight(allow_unplaced: bool) -> None:
    if not Path("analyser/__init__.py").is_file() or not Path(".git").exists():
        sys.exit("relayout: run from the repository root")
    if Path("analyser/engine").exists() or not Path("analyser/core.py").exists():
        sys.exit("relayout: the layout is already applied (analyser/engine/ exists); nothing to do")
    if git("status", "--porcelain"):
        sys.exit("relayout: the tree has uncommitted changes; commit or stash them first")
    missing = [m for m in MOVES if m != "analyser.templates"
               and not Path("/".join(m.split(".")) + ".py").is_file()]
    if missing:
        sys.exit(f"relayout: modules of the table are missing: {', '.join(missing)}")
    placed = {m.rsplit(".", 1)[1] for m in MOVES if m.count(".") == 1} | {"__init__", "__main__"}
    unplaced = sorted(p.name for p in Path("analyser").glob("*.py") if p.stem not in placed)
    if unplaced and not allow_unplaced:
        sys.exit(f"relayout: top-level modules the table does not place: {', '.join(unplaced)} "
                 "(add them to MOVES, or pass --allow-unplaced to leave them where they are)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dry-run", action="store_true", help="say what would move and change; touch nothing")
    ap.add_argument("--allow-unplaced", action="store_true",
                    help="leave top-level modules that the table does not place where they are")
    args = ap.parse_args(argv)
    preflight(args.allow_unplaced)

    moves = [("/".join(o.split(".")) + ".py", "/".join(n.split(".")) + ".py")
             for o, n in MOVES.items() if o != "analyser.templates"] + FOLDER_MOVES
    if args.dry_run:
        for old, new in moves:
            print(f"git mv {old} {new}")
        changed = [p for p in text_files() if rewrite(p, Path(p).read_text(encoding="utf-8", errors="strict"))
                   != Path(p).read_text(encoding="utf-8")]
        print(f"{len(changed)} files to rewrite (paths before the move):", *changed, sep="\n  ")
        return 0

    for old, new in moves:
        Path(new).parent.mkdir(parents=True, exist_ok=True)
        git("mv", old, new)
    changed = 0
    for p in text_files():
        try:
            old = Path(p).read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        new = rewrite(p, old)
        for where, before, after in LITERALS:
            if p == where:
                if before not in new:
                    print(f"relayout: warning: {where}: {before!r} not found; check it by hand", file=sys.stderr)
                new = new.replace(before, after)
        if new != old:
            Path(p).write_text(new, encoding="utf-8")
            changed += 1
    for folder, doc in NEW_PACKAGES.items():  # after the rewriting, which would read their new names as old
        init = Path(folder) / "__init__.py"
        if not init.exists():
            init.parent.mkdir(parents=True, exist_ok=True)
            init.write_text(doc, encoding="utf-8")
    git("add", "-A", "--", *ROOTS, *FILES)
    print(f"relayout: moved {len(moves)} modules and folders, rewrote {changed} files; "
          "now run the import tests and commit")
    return 0


if __name__ == "__main__":
    sys.exit(main())
