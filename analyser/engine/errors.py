"""The errors of analyser: :class:`InputError` (bad input from the user: one line, exit code 2)
and :class:`StrategyError` (a strategy raised, returned an illegal action or hung: everything to
replay its game), with where a strategy's own exception came from (:func:`strategy_frame`).
Re-exported by :mod:`analyser.engine.core`, where titles and plugins import them from.
:func:`did_you_mean` suggests the accepted name closest to a mistyped one, for those messages."""

from __future__ import annotations

import difflib
import functools
import inspect
import os
import traceback
from typing import Iterable


class InputError(ValueError):
    """Bad input from the user (unknown name, malformed value, out-of-range number).

    The message is one line naming the bad value and what is accepted; the CLI prints it and
    exits with code 2.
    """


def did_you_mean(name: str, accepted: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` naming the accepted name closest to ``name`` (difflib's
    :func:`~difflib.get_close_matches`), or ``""`` when none is close: to follow the bad value
    in a one-line InputError."""
    close = difflib.get_close_matches(str(name), [str(a) for a in accepted], n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


class StrategyError(RuntimeError):
    """A strategy raised, returned an illegal action, or hung.

    Attributes name everything needed to reproduce the failing game with ``analyser play``.
    """

    def __init__(self, message: str, *, strategy: str, seat: int, game_seed: int,
                 game_index: int | None = None, kind: str = "raised", details: str = ""):
        super().__init__(message)
        self.strategy = strategy
        self.seat = seat
        self.game_seed = game_seed
        self.game_index = game_index
        self.kind = kind
        #: The strategy's full traceback (``kind == "raised"``), for ``OUT/error.log`` and ``--debug``.
        self.details = details

    def __reduce__(self):  # picklable across joblib workers
        return (functools.partial(StrategyError, strategy=self.strategy, seat=self.seat, game_seed=self.game_seed,
                                  game_index=self.game_index, kind=self.kind, details=self.details), (str(self),))


def strategy_frame(exc: BaseException, strategy) -> tuple[str, str]:
    """Where a strategy's own exception came from: ``(" at FILE:LINE", full traceback text)``.

    FILE:LINE is the innermost frame in the file that defines the strategy (its class, or the
    function a :class:`FunctionStrategy` wraps), else the innermost frame; FILE is relative to
    the working folder when it lies under it.
    """
    frames = traceback.extract_tb(exc.__traceback__)
    target = getattr(strategy, "fn", None) or type(strategy)
    try:
        src = os.path.realpath(inspect.getsourcefile(target) or "")
    except (TypeError, OSError):
        src = ""
    mine = [f for f in frames if src and os.path.realpath(f.filename) == src]
    frame = (mine or frames[1:] or frames or [None])[-1]
    details = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    if frame is None:
        return "", details
    path = frame.filename
    try:
        rel = os.path.relpath(path)
        path = rel if not rel.startswith("..") else path
    except ValueError:
        pass
    return f" at {path}:{frame.lineno}", details


class GameFailure(RuntimeError):
    """A game failed outside a strategy's decision: the rules raised (a bug, or a strategy that
    changed its view or returned a look-alike action), or the game did not end.  Carries the
    game seed (and the game index once known)."""

    def __init__(self, message: str, game_seed: int, game_index: int | None = None):
        super().__init__(message)
        self.game_seed = game_seed
        self.game_index = game_index

    def __reduce__(self):
        return (GameFailure, (str(self), self.game_seed, self.game_index))
