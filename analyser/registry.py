"""One registry for titles and strategies.

Titles are registered lazily as ``module:attribute`` strings (RLCard style), so importing the
package does not import every title.  There is no central list: a title is a subpackage of
:mod:`analyser.titles` (the built-ins) or an entry point of the group ``analyser.titles``
(``my-game = "my_package:TITLE"``) published by any installed package.

Strategies are resolved from a *spec string* for a given title:

* ``greedy`` or ``threshold:limit=9`` - a built-in: a strategy named in the title's script in the
  top-level ``strategies/`` folder (installed with the package as ``analyser._builtin_strategies``);
* ``path/to/my_bots.py:cautious`` or ``my_bots.py:cautious:depth=2`` - the attribute ``cautious``
  (a :class:`~analyser.core.Strategy` subclass, a strategy name declared in the file's
  ``STRATEGIES``, or a plain ``choose(view, legal, rng)`` function) of a Python file, imported with
  :mod:`importlib`; ``my_bots.py`` alone works when the file defines exactly one strategy;
* a name published by an installed package under the entry-point group ``analyser.strategies``.

Parameters follow the name after a colon as ``key=value`` pairs separated by commas, and are
coerced from the annotations (or defaults) of the strategy's ``__init__``.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import sys
import typing
from dataclasses import dataclass
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

from analyser.core import FunctionStrategy, Game, InputError, Strategy, coerce

#: Entry-point group under which a title is published: ``name = "package.module:TITLE"``, the name
#: being the title id.  The built-in titles register there too (see ``pyproject.toml``).
TITLE_GROUP = "analyser.titles"
#: The package whose subpackages are the built-in titles, scanned when running from a source tree
#: whose entry points are not installed (or are out of date).
TITLES_PACKAGE = "analyser.titles"

ENTRY_POINT_GROUP = "analyser.strategies"

#: Generic strategies, offered for every title after its built-ins: name -> ``module:Class``.
#: A generic strategy's class has ``bind(game_id)``, called on every new instance, which attaches
#: the title (and raises InputError when the title lacks something the strategy needs).
GENERIC_STRATEGIES: dict[str, str] = {
    "mcts": "analyser.search:MCTS",
}


@lru_cache(maxsize=None)
def _title_targets() -> dict[str, str]:
    """title id -> ``module:attribute``, sorted by id.

    The subpackages of :data:`TITLES_PACKAGE` come first (package ``kingdomino_duel`` is the
    title ``kingdomino-duel``), then the entry points of :data:`TITLE_GROUP`; a plugin cannot
    replace a built-in title of the same id.
    """
    import pkgutil

    targets: dict[str, str] = {}
    package = importlib.import_module(TITLES_PACKAGE)
    for info in pkgutil.iter_modules(package.__path__):
        if info.ispkg and not info.name.startswith("_"):
            targets[info.name.replace("_", "-")] = f"{TITLES_PACKAGE}.{info.name}:TITLE"
    for ep in metadata.entry_points(group=TITLE_GROUP):
        targets.setdefault(ep.name, ep.value)
    return dict(sorted(targets.items()))


def game_ids() -> list[str]:
    """The ids of the registered titles (built-in packages and entry points), sorted."""
    return list(_title_targets())


@lru_cache(maxsize=None)
def get_game(game_id: str) -> Game:
    """The title registered as ``game_id``; InputError naming the accepted ids otherwise.

    A title target may name a :class:`Game` instance or a :class:`Game` subclass (instantiated
    once); its ``id`` must be the registered id.
    """
    targets = _title_targets()
    if game_id not in targets:
        raise InputError(f"unknown game {game_id!r}; choose one of: {', '.join(targets)}")
    module, _, attr = targets[game_id].partition(":")
    try:
        obj = importlib.import_module(module)
        for part in (attr or "TITLE").split("."):
            obj = getattr(obj, part)
    except Exception as e:  # a broken plugin: one line, not a traceback
        raise InputError(f"title {game_id!r} ({targets[game_id]}) failed to load: {type(e).__name__}: {e}") from None
    return _as_title(obj, game_id, targets[game_id])


def _as_title(obj, expected_id: str | None, where: str) -> Game:
    if inspect.isclass(obj) and issubclass(obj, Game):
        obj = obj()
    if not isinstance(obj, Game):
        raise InputError(f"{where} is not a title: it is a {type(obj).__name__}, not an analyser.core.Game")
    if expected_id is not None and getattr(obj, "id", None) != expected_id:
        raise InputError(f"{where} is registered as {expected_id!r} but its id is {getattr(obj, 'id', None)!r}")
    return obj


# --------------------------------------------------------------------------------------------
# Strategy specs
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class StrategySpec:
    """A parsed strategy spec: ``source`` is a built-in name or a file path, ``name`` the attribute
    inside a file (or None), ``params`` the raw ``key=value`` text values."""

    text: str
    source: str
    name: str | None
    params: tuple[tuple[str, str], ...]


def parse_spec(text: str) -> StrategySpec:
    """Split ``name[:k=v,...]`` or ``file.py[:name][:k=v,...]``.  InputError when malformed."""
    raw = text.strip()
    if not raw:
        raise InputError("empty strategy spec; write a name such as greedy or threshold:limit=9")
    parts = raw.split(":")
    # A Windows drive letter or a path with colons is not supported; keep the grammar simple.
    source = parts[0]
    rest = parts[1:]
    if ("/" in source or "." in source) and not source.endswith(".py"):
        raise InputError(f"strategy file {source!r} is not accepted; give a Python file ending in .py "
                         "(e.g. my_bots.py:name) or a built-in name (see analyser list)")
    name = None
    if source.endswith(".py") and rest and "=" not in rest[0]:
        name = rest[0]
        rest = rest[1:]
    if len(rest) > 1:
        raise InputError(f"malformed strategy spec {text!r}; write name:key=value,key=value")
    params: list[tuple[str, str]] = []
    if rest:
        for pair in rest[0].split(","):
            key, sep, value = pair.partition("=")
            if not sep or not key.strip() or not value.strip():
                raise InputError(f"malformed strategy parameter {pair!r} in {text!r}; write key=value")
            if key.strip() in dict(params):
                raise InputError(f"strategy parameter {key.strip()!r} is given twice in {text!r}; give it once")
            params.append((key.strip(), value.strip()))
    return StrategySpec(raw, source, name, tuple(params))


def builtin_dir() -> Path:
    """The folder of built-in strategy scripts: installed package data, else the source tree."""
    spec = importlib.util.find_spec("analyser._builtin_strategies")
    if spec is not None and spec.submodule_search_locations:
        return Path(list(spec.submodule_search_locations)[0])
    return Path(__file__).resolve().parent.parent / "strategies"


def _load_file(path: Path):
    """Import a Python file with importlib under a name derived from its absolute path."""
    path = path.resolve()
    key = "analyser_strategy_" + hashlib.sha1(str(path).encode()).hexdigest()[:12]
    if key in sys.modules:
        return sys.modules[key]
    spec = importlib.util.spec_from_file_location(key, path)
    if spec is None or spec.loader is None:
        raise InputError(f"strategy file {str(path)!r} cannot be imported; give a .py file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[key] = module
    try:
        spec.loader.exec_module(module)
    except (Exception, SystemExit) as e:  # a broken user file: one line, not a traceback
        del sys.modules[key]
        raise InputError(f"strategy file {str(path)!r} failed to import: {type(e).__name__}: {e}") from None
    return module


def _module_strategies(module) -> dict[str, Any]:
    """name -> Strategy class or function, from a module's ``STRATEGIES`` list (or its classes)."""
    found: dict[str, Any] = {}
    listed = getattr(module, "STRATEGIES", None)
    if listed is None:
        listed = [v for v in vars(module).values()
                  if inspect.isclass(v) and issubclass(v, Strategy) and v not in (Strategy, FunctionStrategy)
                  and v.__module__ == module.__name__]
    for obj in listed:
        found[getattr(obj, "name", "") or obj.__name__] = obj
    return found


def builtin_strategies(game_id: str) -> dict[str, Any]:
    """The built-in strategies of a title: name -> class, from ``strategies/<game>.py``."""
    path = builtin_dir() / (game_id.replace("-", "_") + ".py")
    if not path.exists():
        return {}
    return _module_strategies(_load_file(path))


def default_lineup(game_id: str) -> list[str]:
    """The strategies used when none is named: the title script's ``DEFAULT_LINEUP``, else every
    built-in strategy in the order the script lists them."""
    path = builtin_dir() / (game_id.replace("-", "_") + ".py")
    if not path.exists():
        return []
    module = _load_file(path)
    return list(getattr(module, "DEFAULT_LINEUP", None) or _module_strategies(module))


def _entry_point_strategies(game_id: str) -> dict[str, Any]:
    found = {}
    for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
        try:
            obj = ep.load()
        except Exception as e:
            raise InputError(f"entry point {ep.name!r} of {ENTRY_POINT_GROUP} failed to load: {e}") from None
        games = getattr(obj, "game", None)
        if games is None or game_id == games or (isinstance(games, tuple) and game_id in games):
            found[ep.name] = obj
    return found


def generic_strategies() -> dict[str, Any]:
    """The generic strategies (usable for any title): name -> class."""
    out = {}
    for name, target in GENERIC_STRATEGIES.items():
        module, _, attr = target.partition(":")
        out[name] = getattr(importlib.import_module(module), attr)
    return out


def available_strategies(game_id: str) -> dict[str, Any]:
    """Every strategy name usable for ``game_id`` without a file path: built-ins, then the generic
    strategies (such as ``mcts``), then entry points."""
    out = dict(builtin_strategies(game_id))
    for name, obj in generic_strategies().items():
        out.setdefault(name, obj)
    for name, obj in _entry_point_strategies(game_id).items():
        out.setdefault(name, obj)
    return out


def strategy_parameters(obj) -> dict[str, tuple[type, Any]]:
    """``{param: (type, default)}`` from the strategy class's ``__init__`` signature."""
    if not inspect.isclass(obj):
        return {}
    sig = inspect.signature(obj.__init__)
    try:
        hints = typing.get_type_hints(obj.__init__)
    except Exception:
        hints = {}
    out = {}
    for pname, p in list(sig.parameters.items())[1:]:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        kind = hints.get(pname)
        if kind not in (int, float, str, bool):
            kind = type(p.default) if p.default is not p.empty and p.default is not None else str
        out[pname] = (kind, p.default)
    return out


def strategy_doc(obj) -> str:
    """The first paragraph of a strategy's docstring, on one line."""
    doc = inspect.getdoc(obj) or ""
    return " ".join(doc.split("\n\n")[0].split())


def _resolve(spec: StrategySpec, game_id: str):
    if spec.source.endswith(".py"):
        path = Path(spec.source).expanduser()
        if not path.is_file():
            raise InputError(f"strategy file {spec.source!r} does not exist")
        module = _load_file(path)
        found = _module_strategies(module)
        if spec.name:
            obj = found.get(spec.name, getattr(module, spec.name, None))
            if obj is None or not (callable(obj)):
                raise InputError(f"strategy {spec.name!r} is not in {spec.source!r}; it defines: "
                                 f"{', '.join(found) or 'no strategies'}")
            return obj
        if len(found) == 1:
            return next(iter(found.values()))
        if "choose" in vars(module) and callable(module.choose):
            return module.choose
        raise InputError(f"strategy file {spec.source!r} defines {len(found)} strategies; name one as "
                         f"{spec.source}:NAME (one of: {', '.join(found) or 'none'})")
    available = available_strategies(game_id)
    if spec.source not in available:
        raise InputError(f"unknown strategy {spec.source!r} for {game_id}; choose one of: "
                         f"{', '.join(available)} (or a file such as my_bots.py:name)")
    return available[spec.source]


def strategy_factory(text: str, game_id: str):
    """A zero-argument callable that builds a fresh strategy from its spec for ``game_id``.

    The spec is parsed and resolved once; each call only instantiates.  The runner builds fresh
    instances for every game, so a strategy that keeps state between games cannot make results
    depend on the batch size.  Raises :class:`InputError` for an unknown strategy, an unknown
    parameter, a malformed ``key=value`` or a strategy written for another title.
    """
    spec = parse_spec(text)
    obj = _resolve(spec, game_id)
    games = getattr(obj, "game", None)
    if games is not None and game_id != games and not (isinstance(games, tuple) and game_id in games):
        raise InputError(f"strategy {text!r} is written for {games}, not {game_id}")
    if inspect.isclass(obj):
        accepted = strategy_parameters(obj)
        kwargs = {}
        for key, value in spec.params:
            if key not in accepted:
                raise InputError(f"unknown parameter {key!r} for strategy {spec.name or spec.source!r}; "
                                 f"accepted: {', '.join(accepted) or 'none'}")
            kwargs[key] = coerce(key, value, accepted[key][0], what="strategy parameter")

        binds = callable(getattr(obj, "bind", None))

        def build():
            inst = obj(**kwargs)
            if binds:  # a generic strategy: attach the title
                inst.bind(game_id)
            return inst
        try:
            inst = build()
        except InputError:
            raise
        except (Exception, SystemExit) as e:
            raise InputError(f"strategy {text!r} failed to start: {type(e).__name__}: {e}") from None
        if not hasattr(inst, "choose"):
            raise InputError(f"strategy {text!r} has no choose(view, legal, rng) method")
        return build
    if spec.params:
        raise InputError(f"strategy {spec.source!r} is a plain function and takes no parameters")
    if not callable(obj):
        raise InputError(f"strategy {text!r} is not callable")
    return lambda: FunctionStrategy(obj)


def make_strategy(text: str, game_id: str) -> Strategy:
    """Build one strategy instance from its spec string (see :func:`strategy_factory`)."""
    return strategy_factory(text, game_id)()
