"""The layout shows the architecture (issue 26): the imports of ``analyser/``, read with ast (module
level and inside functions alike, ``if TYPE_CHECKING`` blocks included), form no circle between
modules, and no module imports from a layer above its own.  The layer order is declared here, once;
each package's ``__init__`` docstring says what it may import."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "analyser"

#: lowest first; a module may import its own layer and the layers below it.  A layer is a list of
#: module prefixes (a package and its modules); ``analyser`` alone is the root package (its version).
LAYERS = [
    ["analyser"],
    ["analyser.engine"],
    ["analyser.io"],
    ["analyser.kit"],
    ["analyser.run", "analyser.results"],  # results: the reading API, re-exported from run.read and io
    ["analyser.stats"],
    ["analyser.titles"],
    ["analyser.findings"],
    ["analyser.report"],
    ["analyser.experiments"],
    ["analyser.cli", "analyser.__main__"],
]


def modules() -> dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = modules()


def _owner(name: str) -> str:
    """The module a dotted name lives in: the name itself, or the nearest enclosing module."""
    while name not in MODULES and "." in name:
        name = name.rpartition(".")[0]
    return name


def imports_of(name: str, path: Path) -> dict[str, int]:
    """The analyser modules a module imports (-> the first line that does).  ``from P import x``
    is an import of the module ``P.x`` when ``x`` is a module, else of ``P``.  Importing ``P.x``
    runs ``P/__init__.py`` first, so it is an import of ``P`` as well, unless the importer is inside
    ``P`` (then ``P`` is already being imported)."""
    is_package = path.name == "__init__.py"
    found: dict[str, int] = {}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                here = name.split(".") if is_package else name.split(".")[:-1]
                here = here[:len(here) - node.level + 1]
                base = ".".join(here + ([base] if base else []))
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]
        for target in targets:
            if target == "analyser" or target.startswith("analyser."):
                target = _owner(target)
                if target != name:
                    found.setdefault(target, node.lineno)
                parent = target.rpartition(".")[0]
                while "." in parent:
                    if not name.startswith(parent + "."):
                        found.setdefault(parent, node.lineno)
                    parent = parent.rpartition(".")[0]
    return found


GRAPH = {name: imports_of(name, path) for name, path in MODULES.items()}


def layer(name: str) -> int:
    best, rank = -1, -1
    for i, prefixes in enumerate(LAYERS):
        for p in prefixes:
            if (name == p or name.startswith(p + ".")) and len(p) > best:
                best, rank = len(p), i
    return rank


def circles() -> list[list[str]]:
    """Every strongly connected set of more than one module (Tarjan), each as a sorted list."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found = []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(GRAPH.get(v, {})):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(GRAPH):
        if v not in index:
            visit(v)
    return sorted(found)


def test_every_module_has_a_layer():
    assert len(MODULES) > 60
    assert [m for m in MODULES if layer(m) < 0] == []


def test_the_imports_form_no_circle():
    assert circles() == []


def test_no_module_imports_from_a_layer_above_its_own():
    upward = [f"{m} (layer {layer(m)}) imports {t} (layer {layer(t)}), line {line}"
              for m, targets in sorted(GRAPH.items()) for t, line in sorted(targets.items())
              if layer(t) > layer(m)]
    assert upward == []


def test_the_engine_knows_no_title():
    """Titles are found by entry point (a string), never imported by the machinery."""
    assert [m for m, targets in GRAPH.items() if not m.startswith("analyser.titles")
            and any(t.startswith("analyser.titles.") for t in targets)] == []


@pytest.mark.parametrize("package", sorted({m for m, p in MODULES.items() if p.name == "__init__.py"
                                            and layer(m) > 0 and not m.startswith("analyser.titles.")}))
def test_each_package_says_what_it_holds_and_may_import(package):
    doc = ast.get_docstring(ast.parse(MODULES[package].read_text(encoding="utf-8"))) or ""
    if package in ("analyser.report.templates", "analyser.kit.templates"):
        return  # data folders: their package exists only to be found by importlib.resources
    assert len(doc) > 80 and "may import" in doc.lower(), package


def test_the_circle_finder_finds_a_circle():
    """The finder itself: a two-module circle and a three-module one, beside an acyclic chain."""
    global GRAPH
    kept = GRAPH
    try:
        GRAPH = {"a": {"b": 1}, "b": {"a": 1}, "c": {"d": 1}, "d": {"e": 1}, "e": {"c": 1}, "f": {"a": 1}}
        assert circles() == [["a", "b"], ["c", "d", "e"]]
    finally:
        GRAPH = kept


def test_paths_computed_from_a_moved_module_still_reach_the_source_tree(monkeypatch):
    """After the move into packages, a module one level deeper must climb one level more: from a
    source tree (as CI runs the tests, with the checkout first on the path), the built-in
    strategies are found beside the package, and ``analyser check`` hands its child the folder that
    holds the package."""
    import importlib.util

    from analyser.engine import registry

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "analyser._builtin_strategies" else real(name, *a))
    folder = registry.builtin_dir()
    assert (folder / "dao.py").is_file() and folder.name == "strategies"
    text = (Path(registry.__file__).resolve().parents[1] / "kit" / "check.py").read_text()
    assert "here = str(Path(__file__).resolve().parents[2])" in text
