"""The stop of a command: one handler for Ctrl-C (SIGINT) and SIGTERM, shared by runs and
experiments.

A stop raises where the command is - ``KeyboardInterrupt`` for Ctrl-C, :class:`Terminated` for
SIGTERM - so whatever runs ends the way Ctrl-C ends it, and what is finished is written; except:

* inside :func:`held` (a part or ``config.json`` being written, which an atomic rename makes
  whole or absent): the stop is noted and raised when the block ends; with ``final=True`` (the
  last write of a run or experiment) it is only noted;
* inside :func:`gentle` (a parallel run or experiment): a first Ctrl-C only asks to stop - the
  running batches or cells finish and are kept - and the next stop raises;
* once a stop has been raised inside ``handled(once=True)`` (a run, an experiment's play), a
  later one inside a write is only noted, so nothing cuts the final write short; a later Ctrl-C
  outside any write means the first did not end the play (a strategy in this process that
  swallows it and loops on, with no time limit): the process ends at once (:func:`give_up`),
  keeping the parts already written.

Every stop is counted (:func:`count`), so a loop can tell that one came even when its raise was
lost (a library that catches everything around a callback), and a batch playing in this process
ends at its next game.  :func:`exit_code`: 143 once SIGTERM arrived, else 130.  Outside the main
thread nothing here changes anything (signals reach only the main thread).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time

from analyser.engine import runner

#: The stop signals this process has received, in order.
_received: list[int] = []


class _State:
    installed = False
    held = 0  # depth of held blocks
    final = False  # a held block is the last write: its stop is only noted
    pending: int | None = None  # the stop noted in the held blocks
    told = False  # the "finishing the write" line was said
    gentle = False  # a first Ctrl-C only asks
    asked = False
    once = False  # the innermost handled block takes one stop ...
    raised = False  # ... and has raised it: later ones are noted
    raised_at = 0.0  # when (time.monotonic) it raised


_state = _State()


class Terminated(KeyboardInterrupt):
    """SIGTERM (``kill``, ``timeout``): handled like Ctrl-C, with exit code 143."""


def count() -> int:
    """How many stops (Ctrl-C, SIGTERM) this process has received so far."""
    return len(_received)


def exit_code() -> int:
    """The exit code of a command a stop ended: 143 (128 + 15) once SIGTERM has arrived, else 130."""
    return 143 if signal.SIGTERM in _received else 130


def note(signum: int) -> None:
    """Count a stop: it sets the exit code, and a batch playing in this process ends at its next
    game boundary.  (The handler calls it; so may a test, for a stop whose raise was lost.)"""
    _received.append(int(signum))
    runner.note_stop()


def _on_signal(signum: int, frame) -> None:
    note(signum)
    if (_state.raised and not _state.held and signum == signal.SIGINT
            and time.monotonic() - _state.raised_at >= GIVE_UP_AFTER):
        give_up()
    if _state.held or _state.raised:
        if (_state.final or _state.raised) and not _state.told:
            _state.told = True
            print("\nanalyser: finishing the write of the results and config.json first", file=sys.stderr)
        if _state.held:
            _state.pending = signum
        return
    if _state.gentle and signum == signal.SIGINT and not _state.asked:
        _state.asked = True
        print("\nanalyser: interrupted - keeping the games in progress (Ctrl-C again to stop at once)",
              file=sys.stderr)
        return
    _state.raised, _state.raised_at = _state.once, time.monotonic()
    _raise(signum)


#: Seconds after a raised stop before a further Ctrl-C outside a write ends the process at once
#: (:func:`give_up`): one that comes sooner (a double tap) only lets the unwinding and its final
#: write finish.
GIVE_UP_AFTER = 0.5


def give_up() -> None:
    """End the process at once (a second Ctrl-C that the play did not answer): one line on standard
    error, exit code :func:`exit_code`.  The parts and records already written stay as they are:
    ``analyser resume`` plays the games not on disk."""
    print("\nanalyser: stopped at once (Ctrl-C again): the first stop did not end the play (a strategy that "
          "ignores it?); the games already written are kept, and `analyser resume` plays the rest",
          file=sys.stderr, flush=True)
    os._exit(exit_code())


def _raise(signum: int):
    raise Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()


def _main() -> bool:
    return threading.current_thread() is threading.main_thread()


@contextlib.contextmanager
def _swapped(**values):
    """The fields of ``_state`` set to ``values`` for the block, then restored."""
    before = {k: getattr(_state, k) for k in values}
    for k, v in values.items():
        setattr(_state, k, v)
    try:
        yield
    finally:
        for k, v in before.items():
            setattr(_state, k, v)


@contextlib.contextmanager
def handled(once: bool = False):
    """The stop handler installed for the block (nested blocks share it); with ``once``, the
    block takes one stop and notes the later ones.  A Ctrl-C the process was started to ignore
    stays ignored."""
    if not _main():
        yield
        return
    scope = _swapped(once=True, raised=False, told=False) if once else contextlib.nullcontext()
    if _state.installed:
        with scope:
            yield
        return
    previous = {signal.SIGTERM: signal.signal(signal.SIGTERM, _on_signal)}
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        previous[signal.SIGINT] = signal.signal(signal.SIGINT, _on_signal)
    try:
        with _swapped(installed=True), scope:
            yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h)


@contextlib.contextmanager
def held(final: bool = False):
    """Stops noted, not raised, for the block; a stop noted is raised as the outermost held block
    ends without an error of its own, unless the block (or one around it) is ``final``."""
    if not _main():
        yield
        return
    outer = _state.held == 0
    with _swapped(held=_state.held + 1, final=_state.final or final), handled():
        failed = True
        try:
            yield
            failed = False
        finally:
            pending = _state.pending if outer else None
            if outer:
                _state.pending, _state.told = None, False
    if pending is not None and not failed and not final and not _state.final:
        _state.raised, _state.raised_at = _state.once, time.monotonic()
        _raise(pending)


@contextlib.contextmanager
def gentle():
    """A parallel run or experiment: the first Ctrl-C only asks to stop (:func:`count` says it
    came); SIGTERM, and a second Ctrl-C, raise."""
    if not _main():
        yield
        return
    with _swapped(gentle=True, asked=False), handled():
        yield
