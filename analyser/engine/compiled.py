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

A run's engine is ``auto`` (compiled when it can be, else Python, with the reason recorded),
``python`` or ``compiled`` (an :class:`~analyser.engine.core.InputError` naming why when it cannot be
used).  Results never depend on the engine: a kernel plays the very same deals and draws.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from typing import Sequence

from analyser.engine.core import InputError

#: The values of ``--engine``.
ENGINES = ("auto", "python", "compiled")

_said: set[str] = set()


#: Why a run without numba plays in Python.
NO_NUMBA = "numba is not installed (pip install 'analyser[fast]')"


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
    """One line on standard error, once per process, when only numba is missing for a run that
    the kernel would have played (every other reason is recorded in config.json only)."""
    if reason and reason.startswith("numba") and reason not in _said:
        _said.add(reason)
        print(f"analyser: note: playing with the Python engine: {reason}", file=sys.stderr, flush=True)


def run_batch(job, title: str):
    """Play a batch through the title's compiled engine (``title``: the batch's title reference,
    as :func:`analyser.engine.shipping.materialise_title` gives it on this worker).  Returns the
    :class:`~analyser.engine.runner.BatchResult`, or None where the kernel cannot play here - numba
    does not import on this worker (another machine of a cluster) or the kernel fails to compile or
    load, said once - and the caller plays the batch in Python instead: the results are the same."""
    from analyser.engine.registry import get_game

    try:
        import numba  # noqa: F401
    except Exception:  # (not only ImportError: a broken install must not lose the batch)
        return None
    game = get_game(title)
    params = game.Params.from_overrides(dict(job.rules))
    try:
        return engine_of(game).run_batch(job, game, params)
    except Exception as e:  # the kernel failed to compile or load here: the Python path plays the same games
        why = f"the compiled kernel failed ({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''})"
        if why not in _said:
            _said.add(why)
            print(f"analyser: note: playing with the Python engine: {why}", file=sys.stderr, flush=True)
        return None
