"""A handed-over folder is data, never code: what a run's or an experiment's ``config.json`` may make
analyser load or contact.

A folder's ``config.json`` can name a title file or folder (``title_source``, or ``game`` given as a
path), strategy files (``bots.py:cautious`` in a lineup, or a file reached through a parameter such
as ``mcts:rollout=bots.py``) and a Dask scheduler.  Loading a file runs its code, and contacting a
scheduler sends it work; someone who mails you a folder must not be able to do either.  So the
rule, for every command that reads a folder it did not create (``resume``, ``report``, ``compare
RUN_A RUN_B``, ``play --from``, and the experiment folders ``resume`` continues):

* a title file, or a strategy file, that the folder names is loaded only when this command line
  names the same file again (``--title FILE``, ``--strategy FILE``), or says ``--trust`` (load
  every file the folder names), or this process already ran that file (a run made in the same
  Python session, through the library);
* a scheduler is contacted only when the command line names it (``--scheduler ADDRESS``);
  ``--trust`` does not extend to it.  A run that used a scheduler resumes on this machine;
* built-in titles and strategies, and those of installed packages (entry points), are installed
  code, not the folder's: a folder may name them freely.

:func:`guard_folder_config` applies the rule to one config before anything is loaded; it is the
one place the rule lives.  Its refusals are one :class:`~analyser.engine.core.InputError` line naming the
file and the flag that allows it.
"""

from __future__ import annotations

import contextlib
import contextvars
import copy
import shlex
from dataclasses import dataclass
from pathlib import Path

from analyser.engine.core import InputError
from analyser.engine.registry import game_ids, is_title_file, parse_spec

#: Code files (resolved absolute paths) that this process may load when a folder's config.json
#: names them: those named on the command line, and those this process ran itself.
_TRUSTED_FILES: set[str] = set()
#: Set (for one command) by ``--trust``: every code file a folder names may load.
_TRUST_ALL: contextvars.ContextVar[bool] = contextvars.ContextVar("analyser_trust_all", default=False)


def code_file_key(source: str) -> str:
    """The file (or folder) a code reference points at, as a resolved absolute path: ``a/b.py``,
    ``a/b.py:Name``, ``./my-game:Name`` or ``~/x.py`` (relative paths against the current folder,
    where loading them would look)."""
    path = source
    head, sep, tail = source.rpartition(":")
    if sep and head and "/" not in tail and not tail.endswith(".py"):
        path = head  # a ./file.py:Name reference
    try:
        return str(Path(path).expanduser().resolve())
    except (OSError, RuntimeError, ValueError):
        return path


def trust_file(source: str) -> None:
    """Allow a folder's config.json to name the code file ``source`` (a path, with or without a
    ``:Name`` suffix) for the rest of this process: the user named it on the command line, or this
    process ran it."""
    _TRUSTED_FILES.add(code_file_key(source))


def is_trusted_file(source: str) -> bool:
    """True under ``--trust`` (:func:`trusting`), or when :func:`trust_file` was called for
    ``source``'s file."""
    return _TRUST_ALL.get() or code_file_key(source) in _TRUSTED_FILES


@contextlib.contextmanager
def trusting(enabled: bool = True):
    """While the block runs, every code file a folder names may load (``--trust``); the previous
    setting is restored afterwards.  The scheduler rule is not affected."""
    token = _TRUST_ALL.set(bool(enabled) or _TRUST_ALL.get())
    try:
        yield
    finally:
        _TRUST_ALL.reset(token)


@dataclass(frozen=True)
class Allowed:
    """What the command line allows a folder's config.json to load or contact.

    ``trust``: ``--trust`` (every code file the folder names); ``titles`` and ``strategies``: the
    title files and strategy specs named on the command line (only their files count, so
    ``--strategy bots.py`` allows ``bots.py:cautious:depth=2``); ``scheduler``: ``--scheduler``.
    ``title_flag`` and ``strategy_flag`` are how the command names them, for messages (None: the
    command takes no such file, only ``--trust``)."""

    trust: bool = False
    titles: tuple[str, ...] = ()
    strategies: tuple[str, ...] = ()
    scheduler: str | None = None
    title_flag: str | None = "--title"
    strategy_flag: str | None = "--strategy"


@dataclass
class GuardedConfig:
    """A config.json that passed :func:`guard_folder_config`: ``config`` is a copy in which the
    backend and scheduler are the command line's (a scheduler named only in the folder is
    dropped), and ``notes`` are one-line messages for the user (e.g. where the run continues)."""

    config: dict
    notes: list[str]


def strategy_files(spec: str) -> list[str]:
    """The code files a strategy spec would load: its own file (``bots.py:cautious``) and any file
    reached through a parameter that is itself a strategy spec (``mcts:rollout=bots.py``, where
    ``/`` stands for ``:``).  A spec that does not parse names the files it appears to name."""
    try:
        parsed = parse_spec(spec)
    except InputError:
        head = spec.split(":")[0].strip()
        return [head] if head.endswith(".py") else []
    found = [parsed.source] if parsed.source.endswith(".py") else []
    for _, value in parsed.params:
        if ".py" in value and value != spec:
            found += strategy_files(value.replace("/", ":").replace("+", ","))
    return found


def named_code(config) -> dict[str, list[str]]:
    """Every code reference a config.json holds, wherever it sits (a run's record, an experiment's
    record with its sides and cells): ``{"title": [...], "strategy": [...], "scheduler": [...]}``,
    each in order of appearance without repeats.  A title is ``title_source``, or ``game`` when it is
    a path rather than a registered id; a strategy is every file in a ``strategies`` list."""
    out: dict[str, list[str]] = {"title": [], "strategy": [], "scheduler": []}
    ids = set(game_ids())

    def add(kind, value):
        if value not in out[kind]:
            out[kind].append(value)

    def walk(node, depth=0):
        if depth > 40:  # a config.json is read with a nesting cap; this is a second stop
            return
        if isinstance(node, list):
            for v in node:
                walk(v, depth + 1)
            return
        if not isinstance(node, dict):
            return
        for key, value in node.items():
            if key == "title_source" and isinstance(value, str) and value:
                add("title", value)
            elif key == "game" and isinstance(value, str) and value not in ids and is_title_file(value):
                add("title", value)
            elif key == "strategies" and isinstance(value, list):
                for spec in value:
                    if isinstance(spec, str):
                        for f in strategy_files(spec):
                            add("strategy", f)
            elif key == "scheduler" and isinstance(value, str) and value:
                add("scheduler", value)
            else:
                walk(value, depth + 1)
    walk(config)
    return out


def guard_folder_config(config: dict, folder, allowed: Allowed = Allowed()) -> GuardedConfig:
    """Apply the rule of this module to the ``config.json`` of ``folder`` before anything it names
    is loaded.

    Raises InputError (one line naming the file, and the flag that allows it) for a title file or
    a strategy file that neither ``allowed`` names nor this process trusts (:func:`is_trusted_file`).
    Returns the config with the command line's title and scheduler: a title file named with
    ``--title`` from another place than the one recorded (the folder came from another machine)
    replaces the recorded one (whoever loads it checks that its id is the run's); a scheduler named
    only in the folder is dropped (the run continues on this machine, with the ``loky`` backend)
    and a note says so; ``allowed.scheduler`` replaces it (backend ``dask``).  The config passed
    in is not changed.
    """
    folder = Path(folder)
    named = named_code(config)
    guarded = copy.deepcopy(config) if isinstance(config, dict) else {}
    if allowed.titles and not named["title"]:
        raise InputError(f"{str(folder)!r} holds a run of the registered title {str(guarded.get('game'))[:40]!r}; "
                         f"{allowed.title_flag or '--title'} is only for a title of your own, leave it out")
    if allowed.titles and not {code_file_key(t) for t in named["title"]} & {code_file_key(t) for t in allowed.titles}:
        # the run's title, named by the user from where it is on this machine: the run continues with it
        # (the run checks that its id is the run's)
        for key in ("title_source", "game"):
            if isinstance(guarded.get(key), str) and guarded[key] in named["title"]:
                guarded[key] = allowed.titles[0]
        named["title"] = [allowed.titles[0]]
    with trusting(allowed.trust):
        cli_files = {code_file_key(t) for t in allowed.titles}
        for spec in allowed.strategies:
            cli_files |= {code_file_key(f) for f in strategy_files(spec)}
        for kind in ("title", "strategy"):
            for ref in named[kind]:
                if code_file_key(ref) in cli_files or is_trusted_file(ref):
                    continue
                raise InputError(refusal(folder, kind, ref, allowed))
    unused = [s for s in allowed.strategies
              if not {code_file_key(f) for f in strategy_files(s)} & {code_file_key(f) for f in named["strategy"]}]
    if unused:
        shown = ", ".join(named["strategy"]) or "none"
        raise InputError(f"--strategy {unused[0]!r} names no strategy file of the run in {str(folder)!r} (its "
                         f"strategy files: {shown}); on resume, --strategy only allows the run's own files to load")
    notes = []
    if allowed.scheduler is not None:
        guarded["backend"], guarded["scheduler"] = "dask", allowed.scheduler
    elif named["scheduler"] or guarded.get("scheduler"):
        used = (named["scheduler"] or [str(guarded.get("scheduler"))])[0]
        guarded["scheduler"] = None
        if guarded.get("backend") == "dask":
            guarded["backend"] = "loky"
        notes.append(f"{str(folder)!r} ran on the Dask scheduler {used!r}, which analyser contacts only when the "
                     f"command line names it: continuing on this machine (pass --scheduler ADDRESS to use a cluster)")
    return GuardedConfig(guarded, notes)


def refusal(folder, kind: str, ref: str, allowed: Allowed = Allowed()) -> str:
    """The one-line message refusing the ``kind`` (``title`` or ``strategy``) file ``ref`` named
    by the config.json of ``folder``."""
    what = "title file" if kind == "title" else "strategy file"
    if kind == "title" and Path(code_file_key(ref)).is_dir():
        what = "title folder"
    shown = code_file_key(ref)
    flag = allowed.title_flag if kind == "title" else allowed.strategy_flag
    name = (f"pass {flag} {shlex.quote(ref)} to load it (or --trust, to load every file the folder names)" if flag
            else "pass --trust to load it (and every file the folder names)")
    return (f"{str(Path(folder) / 'config.json')!r} names the {what} {shown!r}; loading it runs its code, and "
            f"analyser loads no code a folder names unless told to: {name}")


def resume_command(out, config: dict | None) -> str:
    """``analyser resume OUT`` with the flags that let the run's own files load (``--title FILE``,
    ``--strategy FILE``), quoted for a shell: the command a message tells the user to run."""
    words = ["analyser", "resume", str(out)]
    if isinstance(config, dict):
        named = named_code(config)
        for ref in named["title"]:
            words += ["--title", ref]
        for ref in named["strategy"]:
            words += ["--strategy", ref]
    return " ".join(shlex.quote(w) for w in words)
