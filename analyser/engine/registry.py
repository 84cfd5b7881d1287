"""One registry for titles and strategies.

Titles are registered lazily as ``module:attribute`` strings (RLCard style), so importing the
package does not import every title.  There is no central list: a title is a subpackage of
:mod:`analyser.titles` (the built-ins) or an entry point of the group ``analyser.titles``
(``my-game = "my_package:TITLE"``) published by any installed package.

Strategies are resolved from a *spec string* for a given title (docs/strategies.md): a built-in
of the title's script in the top-level ``strategies/`` folder (``greedy``,
``threshold:limit=9``), an attribute of a Python file (``my_bots.py:cautious:depth=2``; the file
alone when it defines one strategy), or a name an installed package publishes under the
entry-point group ``analyser.strategies``.  ``key=value`` parameters are coerced from the
strategy's ``__init__`` and checked against the bounds it declares (:func:`parameter_bounds`).
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import pkgutil
import typing
from dataclasses import dataclass
from functools import lru_cache
from importlib import metadata, resources
from pathlib import Path
from typing import Any

from analyser.engine import userfiles
from analyser.engine.core import MAX_NUMBER, FunctionStrategy, Game, InputError, Strategy, coerce
from analyser.engine.errors import did_you_mean

#: Entry-point group under which a title is published: ``name = "package.module:TITLE"``, the name
#: being the title id.  The built-in titles register there too (see ``pyproject.toml``).
TITLE_GROUP = "analyser.titles"
#: The package whose subpackages are the built-in titles, scanned when running from a source tree
#: whose entry points are not installed (or are out of date).
TITLES_PACKAGE = "analyser.titles"

ENTRY_POINT_GROUP = "analyser.strategies"

#: Generic strategies, offered for every title after its built-ins: name -> ``module:Class``.
#: A generic strategy's class has ``bind(game_id)``, called on every new instance, which attaches
#: the title (and raises InputError when the title lacks something the strategy needs), and may
#: have ``unavailable_reason(game) -> str | None``: a title for which it gives a reason is not
#: offered the strategy (``analyser list`` leaves it out, and naming it gives the reason).
GENERIC_STRATEGIES: dict[str, str] = {
    "mcts": "analyser.engine.search:MCTS",
}


#: Title ids that a plugin registers although a built-in title has them: id -> the plugin targets
#: left unused (filled by :func:`_title_targets`).
_SHADOWED: dict[str, list[str]] = {}


@lru_cache(maxsize=None)
def _title_targets() -> dict[str, str]:
    """title id -> ``module:attribute``, sorted by id.

    The subpackages of :data:`TITLES_PACKAGE` come first (package ``sea_battle`` is the
    title ``sea-battle``), then the entry points of :data:`TITLE_GROUP`; a plugin cannot
    replace a built-in title of the same id (:func:`shadowed_titles` lists those that try).
    """
    targets: dict[str, str] = {}
    package = importlib.import_module(TITLES_PACKAGE)
    for info in pkgutil.iter_modules(package.__path__):
        if info.ispkg and not info.name.startswith("_"):
            targets[info.name.replace("_", "-")] = f"{TITLES_PACKAGE}.{info.name}:TITLE"
    _SHADOWED.clear()
    for ep in metadata.entry_points(group=TITLE_GROUP):
        if ep.name in targets and targets[ep.name] != ep.value:
            _SHADOWED.setdefault(ep.name, []).append(ep.value)  # a built-in's own entry is no clash
        targets.setdefault(ep.name, ep.value)
    return dict(sorted(targets.items()))


#: Where :func:`get_game` says that the id it was given is also a plugin's, shadowed (set by the
#: command line to print one line; None: say nothing, e.g. in worker processes).
_notice = None
_noted: set[str] = set()


def set_notice(handler) -> None:
    """Make :func:`get_game` call ``handler(line)`` once per title id when a plugin's title of that id
    is shadowed by a built-in (see :func:`shadow_note`); None turns it off."""
    global _notice
    _notice = handler


def shadowed_titles() -> dict[str, list[str]]:
    """Title ids that an installed plugin registers although a built-in title (or an earlier
    plugin) has them: id -> the plugin targets (``module:attribute``) left unused.  The built-in
    title is the one used."""
    _title_targets()
    return {k: list(v) for k, v in sorted(_SHADOWED.items())}


def shadow_note(game_id: str) -> str | None:
    """One line saying that a plugin's title of id ``game_id`` is shadowed by the built-in one, or
    None when no plugin clashes with it."""
    lost = shadowed_titles().get(game_id)
    if not lost:
        return None
    used = _title_targets().get(game_id, "")
    owner = "a built-in title" if used.startswith(TITLES_PACKAGE + ".") else f"the plugin {used}"
    return (f"the installed plugin {', '.join(lost)} registers the title id {game_id!r}, which {owner} has: "
            f"that one is used, not the plugin (give the plugin's title another id)")


def game_ids() -> list[str]:
    """The ids of the registered titles (built-in packages and entry points), sorted."""
    return list(_title_targets())


@lru_cache(maxsize=None)
def _registered_game(game_id: str) -> Game:
    targets = _title_targets()
    module, _, attr = targets[game_id].partition(":")
    try:
        obj = importlib.import_module(module)
        for part in (attr or "TITLE").split("."):
            obj = getattr(obj, part)
    except Exception as e:  # a broken plugin: one line, not a traceback
        raise InputError(f"title {game_id!r} ({targets[game_id]}) failed to load: {type(e).__name__}: {e}") from None
    return _as_title(obj, game_id, targets[game_id])


def get_game(game: str) -> Game:
    """The title named by ``game``: a registered id (see :func:`game_ids`), a title file
    ``path/to/my_game.py[:NAME]`` or a title package folder ``path/to/my-game[:NAME]`` (see
    :func:`load_title_file`), or the id of a file title already loaded in this process.

    Raises :class:`InputError` naming the accepted ids when ``game`` is none of these.
    """
    targets = _title_targets()
    if game in targets:
        if game in _SHADOWED and game not in _noted and _notice is not None:
            _noted.add(game)
            _notice(shadow_note(game))
        return _registered_game(game)
    if game in _file_titles and "/" not in game and not game.endswith(".py"):
        return _file_titles[game]  # a loaded title's id, even where a folder of that name lies here
    if is_title_file(game):
        return load_title_file(game)
    raise InputError(f"unknown game {game!r}{did_you_mean(game, targets)}; choose one of: {', '.join(targets)} "
                     "(or a title file such as ./my_game.py:MyGame, or a title folder such as ./my-game)")


# --------------------------------------------------------------------------------------------
# Titles from files
# --------------------------------------------------------------------------------------------

#: id -> the file title of that id loaded last in this process (so results name it by id).
_file_titles: dict[str, Game] = {}


def loaded_file_title(title_id: str) -> Game | None:
    """The title of id ``title_id`` that this process loaded from a file or folder, if any."""
    return _file_titles.get(title_id)
#: title source (absolute path[:NAME]) -> the module it was loaded from.
_file_modules: dict[str, Any] = {}
#: (module name, attribute) -> the title built from a Game subclass, so it is built once.
_file_instances: dict[tuple[str, str], Game] = {}


def split_title_ref(text: str) -> tuple[Path, str | None]:
    """``path[:NAME]`` -> (path, NAME or None); the path is a ``.py`` file or a folder."""
    head, sep, tail = text.rpartition(":")
    if sep and tail.isidentifier() and (head.endswith(".py") or Path(head).expanduser().is_dir()):
        return Path(head).expanduser(), tail
    return Path(text).expanduser(), None


def is_title_file(text: str) -> bool:
    """Whether ``text`` names a title by file or folder rather than by registered id: it ends in
    ``.py`` (optionally ``:NAME``), contains a ``/``, or is an existing folder."""
    path, _ = split_title_ref(text)
    return str(path).endswith(".py") or "/" in text or os.sep in text or path.is_dir()


def load_title_file(text: str) -> Game:
    """Load a title from a file or package folder, the safe way strategy files load (a unique
    private module name, no ``sys.path`` change, reloaded when edited; :mod:`analyser.engine.userfiles`).

    ``my_game.py:MyGame`` takes the attribute ``MyGame`` (a :class:`Game` subclass, built once,
    or an instance); ``my_game.py`` alone takes the file's ``TITLE``, else the one :class:`Game`
    subclass the file defines; a folder (a package with ``__init__.py``, as ``analyser new``
    writes) works the same way on its ``__init__.py``.  The title's ``source`` is set to the
    absolute reference, which worker processes load again.

    Raises :class:`InputError` for a missing file, an import failure, no or several titles in
    the file, a title without an ``id``, or an id that a registered title already uses.
    """
    path, name = split_title_ref(text)
    what = "title folder" if path.is_dir() else "title file"
    if not path.exists():
        raise InputError(f"{what} {str(path)!r} does not exist; give a registered title id "
                         f"({', '.join(game_ids())}), a file such as ./my_game.py:MyGame or a folder such as ./my-game")
    if not path.is_dir() and path.suffix != ".py":
        raise InputError(f"title file {str(path)!r} is not accepted; give a Python file ending in .py or a folder")
    module = userfiles.load(path, what)
    source = str(path.resolve()) + (f":{name}" if name else "")
    if name is not None:
        obj = getattr(module, name, None)
        if obj is None:
            raise InputError(f"{what} {str(path)!r} has no {name!r}; it defines: "
                             f"{', '.join(_titles_in(module)) or 'no Game subclass'}")
    elif isinstance(getattr(module, "TITLE", None), Game):
        obj = module.TITLE
    else:
        found = _titles_in(module)
        if len(found) != 1:
            raise InputError(f"{what} {str(path)!r} defines {len(found)} titles; set TITLE = MyGame() in it or "
                             f"name one as {text}:NAME (one of: {', '.join(found) or 'none'})")
        name = next(iter(found))
        obj = found[name]
    if inspect.isclass(obj):
        key = (module.__name__, name or "TITLE")
        if key not in _file_instances:
            _file_instances[key] = _as_title(obj, None, f"{what} {text!r}")
        title = _file_instances[key]
    else:
        title = _as_title(obj, None, f"{what} {text!r}")
    gid = getattr(title, "id", None)
    if not isinstance(gid, str) or not gid:
        raise InputError(f"{what} {str(path)!r}: the title has no id; set id = \"my-game\" on its Game class")
    if gid in _title_targets():
        raise InputError(f"{what} {str(path)!r} uses the id {gid!r} of a registered title; give it an id of its own")
    title.source = source
    _file_titles[gid] = title
    _file_modules[source] = module
    return title


def _titles_in(module) -> dict[str, Any]:
    """Game subclasses defined in a module (not imported into it), by name."""
    return {k: v for k, v in vars(module).items()
            if inspect.isclass(v) and issubclass(v, Game) and v is not Game and v.__module__ == module.__name__}


def title_ref(game: Game) -> str:
    """How another process names ``game``: its registered id, or its file ``source``."""
    return game.source or game.id


#: The file name of a title package's rules page (shipped with the package as package data).
RULES_PAGE = "rules.md"


def rules_page_location(game: Game):
    """Where ``game``'s rules page is or belongs: a title defined in a package (a folder with
    ``__init__.py``: the built-in titles, a folder written by ``analyser new``, a plugin package)
    keeps it as ``rules.md`` in that folder; a title defined in one file ``FILE.py`` as ``FILE.md``
    beside it.  Returns an :mod:`importlib.resources` Traversable (a :class:`~pathlib.Path` for a
    title loaded from a file or folder), whether or not the page exists; None when the title's
    module cannot be located."""
    if game.source:
        path, _ = split_title_ref(game.source)
        return path / RULES_PAGE if path.is_dir() else path.with_suffix(".md")
    target = _title_targets().get(game.id)
    if target is None:
        return None
    module_name = target.partition(":")[0]
    try:
        module = importlib.import_module(module_name)
    except Exception:
        return None
    if hasattr(module, "__path__"):  # a package: its page is package data
        return resources.files(module_name) / RULES_PAGE
    file = getattr(module, "__file__", None)
    return Path(file).with_suffix(".md") if file else None


def rules_page(game: Game):
    """``game``'s rules page (see :func:`rules_page_location`) when it exists, else None."""
    page = rules_page_location(game)
    return page if page is not None and page.is_file() else None


def _as_title(obj, expected_id: str | None, where: str) -> Game:
    if inspect.isclass(obj) and issubclass(obj, Game):
        obj = obj()
    if not isinstance(obj, Game):
        raise InputError(f"{where} is not a title: it is a {type(obj).__name__}, not an analyser.engine.core.Game")
    if expected_id is not None and getattr(obj, "id", None) != expected_id:
        raise InputError(f"{where} is registered as {expected_id!r} but its id is {getattr(obj, 'id', None)!r}")
    whole = [m for m in ("figure_tables", "plots") if getattr(type(obj), m) is not getattr(Game, m)]
    if whole and type(obj).figure_sums is Game.figure_sums:
        raise InputError(f"{where} was written for an older version of analyser: it defines {' and '.join(whole)} on "
                         "the whole table, which this one does not call; define figure_sums, figure_tables_from "
                         "and plots_from instead (see docs/own-game.md)")
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
    return Path(__file__).resolve().parents[2] / "strategies"  # (analyser/engine/registry.py -> the source tree)


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


def _strategy_module(game_id: str):
    """The module holding a title's own strategies, or None: ``strategies/<package>.py`` for a
    registered title; for a file title the file itself, and for a title folder its
    ``strategies.py`` when it has one, else its ``__init__.py``."""
    game = get_game(game_id)
    if game.source is None:
        path = builtin_dir() / (game.id.replace("-", "_") + ".py")
        return userfiles.load(path, "strategy file") if path.exists() else None
    module = _file_modules.get(game.source)
    if module is None:  # loaded by id only: load again from the source
        load_title_file(game.source)
        module = _file_modules[game.source]
    if hasattr(module, "__path__") and importlib.util.find_spec(module.__name__ + ".strategies") is not None:
        try:
            return importlib.import_module(module.__name__ + ".strategies")
        except Exception as e:
            raise InputError(f"strategies of {game.source!r} failed to import: {type(e).__name__}: {e}") from None
    return module


def builtin_strategies(game_id: str) -> dict[str, Any]:
    """A title's own strategies: name -> class or function, from ``strategies/<package>.py`` (a
    registered title) or from the title's file or folder (a file title)."""
    module = _strategy_module(game_id)
    if module is None:
        return {}
    gid = get_game(game_id).id
    return {name: obj for name, obj in _module_strategies(module).items() if _plays(obj, gid)}


def _plays(obj, game_id: str) -> bool:
    """Whether a strategy is written for ``game_id`` (or for any title: no ``game``)."""
    games = getattr(obj, "game", None)
    return games is None or game_id == games or (isinstance(games, tuple) and game_id in games)


def default_lineup(game_id: str) -> list[str]:
    """The strategies used when none is named: the title script's ``DEFAULT_LINEUP``, else every
    built-in strategy in the order the script lists them."""
    module = _strategy_module(game_id)
    if module is None:
        return []
    return list(getattr(module, "DEFAULT_LINEUP", None) or builtin_strategies(game_id))


_ENTRY_POINTS: dict = {}


def _entry_points(group: str) -> list:
    """``importlib.metadata.entry_points(group=group)``, read once per process: the scan of every
    installed distribution takes tens of milliseconds, and a tune or ladder resolves strategies for
    each of its cells.  Keyed by the function itself as well, so a replaced one (a test's) is read."""
    key = (metadata.entry_points, group)
    if key not in _ENTRY_POINTS:
        _ENTRY_POINTS[key] = list(metadata.entry_points(group=group))
    return _ENTRY_POINTS[key]


def _entry_point_strategies(game_id: str, broken: dict[str, str] | None = None) -> dict[str, Any]:
    """The strategies installed packages publish for ``game_id``.  One that fails to load is left
    out (so one broken package does not stop the others, nor the built-ins) and its one-line
    reason goes into ``broken`` (name -> reason) when given."""
    found = {}
    for ep in _entry_points(ENTRY_POINT_GROUP):
        try:
            obj = ep.load()
        except Exception as e:  # noqa: BLE001 - any import error of a plugin
            if broken is not None:
                broken[ep.name] = (f"strategy plugin {ep.name!r} ({ep.value}) failed to load: "
                                   f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}").rstrip(": ")
            continue
        if _plays(obj, game_id):
            found[ep.name] = obj
    return found


def broken_strategy_plugins() -> dict[str, str]:
    """The strategies of installed packages that fail to load: name -> one-line reason."""
    broken: dict[str, str] = {}
    _entry_point_strategies("", broken)
    return broken


def generic_strategies() -> dict[str, Any]:
    """The generic strategies (usable for any title): name -> class."""
    return {name: getattr(importlib.import_module(target.partition(":")[0]), target.partition(":")[2])
            for name, target in GENERIC_STRATEGIES.items()}


def unavailable_generic(game_id: str) -> dict[str, str]:
    """The generic strategies that cannot play ``game_id``: name -> the one-line reason."""
    game = get_game(game_id)
    reasons = {name: obj.unavailable_reason(game) for name, obj in generic_strategies().items()
               if callable(getattr(obj, "unavailable_reason", None))}
    return {name: reason for name, reason in reasons.items() if reason}


def available_strategies(game_id: str) -> dict[str, Any]:
    """Every strategy name usable for ``game_id`` (an id or a title file reference) without a
    file path: the title's own, then the generic strategies (such as ``mcts``) that can play the
    title, then entry points."""
    out = dict(builtin_strategies(game_id))
    unavailable = unavailable_generic(game_id)
    for name, obj in generic_strategies().items():
        if name not in unavailable:
            out.setdefault(name, obj)
    for name, obj in _entry_point_strategies(get_game(game_id).id).items():
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


def parameter_bounds(obj, game: str | None = None) -> dict[str, dict[str, Any]]:
    """What each parameter of a strategy class accepts: ``{param: {"low", "high", "choices"}}``.

    A strategy declares them as rule options do, in two class attributes: ``param_bounds``
    (``{"limit": (0, 100)}``, inclusive; None for an open end) for numbers and ``param_choices``
    (``{"start": ("safe", "random")}``) for text.  A third, ``param_strategies``, names the text
    parameters whose value is another strategy of the title (mcts's ``rollout``): given ``game``,
    their choices are ``random`` and the title's strategies but the class's own.  A number
    without declared bounds accepts +/- :data:`~analyser.engine.core.MAX_NUMBER`; text without
    choices accepts any non-empty text.  An entry naming no parameter of ``__init__`` is ignored
    here (a test keeps the built-ins clean).
    """
    params = strategy_parameters(obj)
    declared = getattr(obj, "param_bounds", None) or {}
    choices = dict(getattr(obj, "param_choices", None) or {})
    if game is not None and getattr(obj, "param_strategies", ()):
        others = ("random",) + tuple(n for n in available_strategies(game) if n not in ("random", obj.name))
        choices.update({name: others for name in obj.param_strategies})
    out = {}
    for name, (kind, _) in params.items():
        low = high = None
        if kind in (int, float):
            low, high = declared.get(name, (-MAX_NUMBER, MAX_NUMBER))
        named = choices.get(name) if kind is str else None
        out[name] = {"low": low, "high": high, "choices": tuple(named) if named else None}
    return out


def accepted_text(bounds: dict[str, Any]) -> str:
    """What one parameter accepts, as ``analyser list`` shows it: ``0 to 100``, ``>= 1``,
    ``safe | random``, or "" when it takes any value of its type."""
    if bounds["choices"]:
        return " | ".join(map(str, bounds["choices"]))
    low, high = bounds["low"], bounds["high"]
    if low is None and high is None or (low == -MAX_NUMBER and high == MAX_NUMBER):
        return ""
    if low is not None and high is not None:
        return f"{low:,} to {high:,}"
    return f">= {low:,}" if low is not None else f"<= {high:,}"


def check_parameter(obj, label: str, key: str, value: Any) -> Any:
    """Coerce one parameter value (text or a number) for the strategy class ``obj`` and check it
    against the declared bounds (:func:`parameter_bounds`).  Returns the value; raises
    :class:`InputError`, one line naming the strategy (``label``), the value and what is accepted,
    for an unknown parameter, a value that does not parse or one out of bounds."""
    accepted = strategy_parameters(obj)
    if key not in accepted:
        raise InputError(f"unknown parameter {key!r}{did_you_mean(key, accepted)} for strategy {label!r}; "
                         f"accepted: {', '.join(accepted) or 'none'}")
    kind = accepted[key][0]
    value = coerce(key, value, kind, what="strategy parameter")
    b = parameter_bounds(obj)[key]
    shown = value if kind is not str else repr(value)
    if kind in (int, float) and not isinstance(value, bool):
        if (b["low"] is not None and value < b["low"]) or (b["high"] is not None and value > b["high"]):
            raise InputError(f"strategy parameter {key}={shown} is not accepted; {label} takes {key} "
                             f"from {accepted_text(b) or 'any number'}")
    elif kind is str and b["choices"] and value not in b["choices"]:
        raise InputError(f"strategy parameter {key}={shown} is not accepted; {label} takes {key} "
                         f"as one of: {', '.join(b['choices'])}")
    return value


def strategy_doc(obj) -> str:
    """The first paragraph of a strategy's docstring, on one line."""
    doc = inspect.getdoc(obj) or ""
    return " ".join(doc.split("\n\n")[0].split())


def resolve_strategy(spec: StrategySpec, game_id: str):
    if spec.source.endswith(".py"):
        path = Path(spec.source).expanduser()
        if not path.is_file():
            raise InputError(f"strategy file {spec.source!r} does not exist")
        module = userfiles.load(path, "strategy file")  # (under a private name)
        found = _module_strategies(module)
        if spec.name:
            obj = found.get(spec.name, getattr(module, spec.name, None))
            if obj is None or not (callable(obj)):
                raise InputError(f"strategy {spec.name!r} is not in {spec.source!r}{did_you_mean(spec.name, found)}; "
                                 f"it defines: {', '.join(found) or 'no strategies'}")
            return obj
        if len(found) == 1:
            return next(iter(found.values()))
        if "choose" in vars(module) and callable(module.choose):
            return module.choose
        raise InputError(f"strategy file {spec.source!r} defines {len(found)} strategies; name one as "
                         f"{spec.source}:NAME (one of: {', '.join(found) or 'none'})")
    available = available_strategies(game_id)
    if spec.source not in available:
        reason = unavailable_generic(game_id).get(spec.source)
        if reason:
            raise InputError(reason)
        broken: dict[str, str] = {}
        _entry_point_strategies(get_game(game_id).id, broken)
        if spec.source in broken:
            raise InputError(broken[spec.source])
        raise InputError(f"unknown strategy {spec.source!r}{did_you_mean(spec.source, available)} for {game_id}; "
                         "choose one of: "
                         f"{', '.join(available)} (or a file such as my_bots.py:name)")
    return available[spec.source]


def strategy_factory(text: str, game_id: str):
    """A zero-argument callable that builds a fresh strategy from its spec for ``game_id``.

    The spec is parsed and resolved once; each call only instantiates.  The runner builds fresh
    instances for every game (one per seat and batch for a class that declares ``reuse = True``:
    its ``reset`` restores every game), so a strategy that keeps state between games cannot make
    results depend on the batch size.  Raises :class:`InputError` for an unknown strategy, an unknown
    parameter, a malformed ``key=value`` or a strategy written for another title.
    """
    spec = parse_spec(text)
    obj = resolve_strategy(spec, game_id)
    game_id = get_game(game_id).id  # a strategy names its title by id, also for a file title
    if not _plays(obj, game_id):
        raise InputError(f"strategy {text!r} is written for {obj.game}, not {game_id}")
    if inspect.isclass(obj):
        label = spec.name or spec.source
        kwargs = {key: check_parameter(obj, label, key, value) for key, value in spec.params}

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
