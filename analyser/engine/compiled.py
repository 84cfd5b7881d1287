"""The compiled engine: a title may play through a numba-compiled kernel of its rules and of its
built-in strategies when every strategy of a run is one the kernel covers (docs/compiled.md).

The interface a title follows (a title's engine module shows it in full; docs/compiled.md):

* the title's Game class names its engine lazily, ``compiled_engine = "package.module:ENGINE"``,
  so nothing compiled is imported until a run asks for it;
* ``ENGINE.unsupported(game, params, players, strategies)`` returns ``None`` when the kernel
  covers that run (the title, its rule options, every strategy spec with its parameters), else a
  one-line reason;
* ``ENGINE.run_batch(job, game, params)`` plays games ``job.start`` to ``job.stop - 1`` and returns
  the :class:`~analyser.engine.runner.BatchResult` the Python path returns for them, column for column.

* ``ENGINE.kernel()`` imports the kernel and returns its numba-compiled entry point (one
  function with one set of argument types), whose machine code numba caches on disk.

A run's engine is ``auto`` (compiled when it can be, else Python, with the reason recorded),
``python`` or ``compiled`` (an :class:`~analyser.engine.core.InputError` naming why when it cannot be
used).  Before a run plays on a kernel, :func:`prepare` gets it ready in the process that starts the
run: compiled once (said on standard error) into numba's on-disk cache, where every worker
process of the machine loads it.  Results never depend on the engine: a kernel plays the very same
deals and draws.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import sys
from typing import Sequence

from analyser.engine.core import InputError
from analyser.engine.registry import get_game

#: The values of ``--engine``.
ENGINES = ("auto", "python", "compiled")

_said: set[str] = set()


#: Why a run without numba plays in Python (numba is a dependency: an install without it is broken,
#: or numba does not support this platform or Python yet).
NO_NUMBA = "numba is not installed (pip install numba)"


class KernelEngine:
    """The part of the interface every title's engine shares; a subclass adds ``run_batch`` and
    ``strategy_table(strategies)`` (the kernel's table of the specs; ValueError, the reason, for a
    spec the kernel does not cover) and sets ``name`` (as the reasons say it), ``game_id``,
    ``titles`` (the rules' Game class, then the title's), ``rule_methods`` (the kernel stands in
    for them: a subclass or a replaced one plays in Python), ``rule_options`` (those it
    implements) and ``entry`` (``"module:function"``, the numba entry point)."""

    name = game_id = entry = ""
    titles: tuple = ()
    rule_methods: tuple = ()
    rule_options: frozenset = frozenset()

    def unsupported(self, game, params, players: int, strategies: list[str]) -> str | None:
        """None when the kernel covers the run, else the reason (one line)."""
        rules = self.titles[0]
        if type(game) not in self.titles or game.id != self.game_id or getattr(game, "source", None):
            return f"the title is not the built-in {self.name}"
        changed = [m for m in self.rule_methods
                   if getattr(getattr(type(game), m, None), "__qualname__", None) != f"{rules.__name__}.{m}"
                   or getattr(type(game), m).__module__ != rules.__module__]
        if changed:  # a rule replaced at run time (a test's planted variant): only Python plays it
            return f"{self.name}'s {', '.join(changed)} is not the built-in one"
        extra = sorted({f.name for f in dataclasses.fields(params)} - self.rule_options)
        if extra:
            return f"the compiled kernel does not implement the rule option(s) {', '.join(extra)}"
        try:
            self.strategy_table(strategies)
        except ValueError as e:
            return str(e)
        return None

    def kernel(self):
        """The kernel's numba entry point (imports it, and numba)."""
        module, _, attr = self.entry.partition(":")
        return getattr(importlib.import_module(module), attr)


def numba_missing() -> str | None:
    """:data:`NO_NUMBA` when numba cannot be found in this process, else None (looked up, not
    imported: importing it is left to the process that plays the batches)."""
    if "numba" in sys.modules:
        return None if sys.modules["numba"] is not None else NO_NUMBA
    try:
        found = importlib.util.find_spec("numba")
    except (ImportError, ValueError):
        found = None
    return None if found is not None else NO_NUMBA


def engine_of(game):
    """The compiled engine a title declares (its ``compiled_engine``), or None."""
    target = game.compiled_engine
    if not target:
        return None
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr or "ENGINE")


def choose(game, params, players: int, strategies: Sequence[str], requested: str = "auto") -> tuple[str, str | None]:
    """The engine a run plays with: ``("compiled", None)`` or ``("python", reason)`` (reason None
    when ``python`` was asked for).  Raises :class:`InputError` for an unknown ``requested``, or
    when ``compiled`` was asked for and cannot be used (naming why)."""
    if requested not in ENGINES:
        raise InputError(f"--engine {requested!r} is not accepted; choose auto, python or compiled")
    if requested == "python":
        return "python", None
    engine = engine_of(game)
    if engine is None:
        reason = f"{game.id} has no compiled kernel"
    else:
        reason = engine.unsupported(game, params, players, list(strategies))
        if reason is None:
            reason = numba_missing()
    if reason is None:
        return "compiled", None
    if requested == "compiled":
        raise InputError(f"--engine compiled cannot be used: {reason}; use --engine auto or python")
    return "python", reason


def say_once(reason: str | None) -> None:
    """One line on standard error, once per process, when only numba (missing, or unable to load
    the kernel) keeps the kernel from a run it would have played (every other reason is recorded
    in config.json only)."""
    if reason and reason.startswith("numba") and reason not in _said:
        _said.add(reason)
        print(f"analyser: note: playing with the Python engine: {reason}", file=sys.stderr, flush=True)


def prepare(game, job, here: bool, say: bool = True) -> str | None:
    """Get ``game``'s kernel ready for a run, in the process that starts it.  Returns None, or the
    reason the kernel cannot load here (numba fails to import, or the kernel to compile or load):
    the run then plays in Python, and :func:`say_once` says why.

    When numba's on-disk cache holds no machine code of the kernel for this numba, this kernel's
    source and this processor, says "compiling the <title> kernel, first run only" on standard
    error (unless ``say`` is False: a quiet run) and compiles it here, into the cache, so that the
    run's worker processes load it instead of each compiling it.  ``here``: this process plays
    games of the run itself (the pilot batch or ``--jobs 1``), so the kernel is loaded now, and
    its one-time cost does not count in the time of the first batch.  ``job``: a one-game
    :class:`~analyser.engine.runner.BatchJob` of the run, played to compile or load the kernel (its
    result is discarded)."""
    engine = engine_of(game)
    try:
        kernel = engine.kernel()
        fresh = not on_disk(kernel)
        if fresh and say:
            print(f"analyser: note: compiling the {game.name} kernel, first run only (numba caches it for later "
                  "runs)", file=sys.stderr, flush=True)
        if fresh or here:
            warm = engine.run_batch(job, game, game.Params.from_overrides(dict(job.rules)))
            if warm.interrupted:  # (a Ctrl-C while it compiled stops the command, as anywhere else)
                raise KeyboardInterrupt
    except Exception as e:  # (not only ImportError: a broken numba or a failed compile leaves the run to Python)
        return f"numba cannot load the {game.name} kernel here ({type(e).__name__}: {_first_line(e)})"
    return None


def on_disk(kernel) -> bool:
    """Whether numba's on-disk cache holds machine code of the numba function ``kernel`` for this
    numba version, its source as it is now, and this processor: its next first call in a process
    loads rather than compiles.  (Read from numba's cache index, which numba offers no public call
    for; True when the index cannot be read, so that nothing is said.)"""
    try:
        index = kernel._cache._cache_file._load_index()
        magic = kernel.targetctx.codegen().magic_tuple()
    except Exception:
        return True
    return any(key[1] == magic for key in index)


def _first_line(error: BaseException) -> str:
    return str(error).splitlines()[0] if str(error) else ""


def run_batch(job, title: str):
    """Play a batch through the title's compiled engine (``title``: the batch's title reference,
    as :func:`analyser.engine.runner.local_ref` gives it on this worker).  Returns the
    :class:`~analyser.engine.runner.BatchResult`, or None where the kernel cannot play here - numba
    does not import on this worker (another machine of a cluster) or the kernel fails to compile or
    load, said once - and the caller plays the batch in Python instead: the results are the same."""
    try:
        import numba  # noqa: F401
    except Exception:  # (not only ImportError: a broken install must not lose the batch)
        return None
    game = get_game(title)
    params = game.Params.from_overrides(dict(job.rules))
    try:
        return engine_of(game).run_batch(job, game, params)
    except Exception as e:  # the kernel failed to compile or load here: the Python path plays the same games
        why = f"the compiled kernel failed ({type(e).__name__}: {_first_line(e)})"
        if why not in _said:
            _said.add(why)
            print(f"analyser: note: playing with the Python engine: {why}", file=sys.stderr, flush=True)
        return None
