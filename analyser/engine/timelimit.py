"""Per-game time limits, enforced from outside the game.

A batch with a limit (``--game-timeout``) plays in a child process forked by the process that
runs it (:func:`supervised`; the batches of one run share one child).  The child notes in
memory it shares with its parent which game it is playing and when that game started; the
parent plays nothing and is the clock, on the child's own time: wall-clock time less the time
the child waited for a CPU (:func:`waited`), so a busy machine does not trip the limit.  At a game's
limit the parent asks the child to stop that game (a SIGALRM that raises :class:`Hang` in the
game, so the batch ends there with its finished games and the error); :func:`grace` seconds
later, if the child still runs (a strategy that catches everything, or code no signal
reaches), the parent kills it (SIGKILL), plays the batch's games before the hung one again (a
game depends on nothing but its seed and lineup) and reports the hung game.  So the same holds
in this process (``--jobs 1``), in a loky worker and on a Dask worker's thread, and a hung game
never takes down the process that writes the run.

``analyser play`` and the up-front start of each strategy are single calls in the command's own
process (the trace streams to its terminal): :func:`alarm` raises :class:`Hang` there, and a
block still running :func:`grace` seconds later ends the process through its ``give_up``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import multiprocessing
import os
import signal
import sys
import threading
import time
from typing import Any, Callable

#: Seconds between the parent's looks at the child's game.
POLL = 0.05


class Hang(BaseException):
    """Raised inside a game (or a strategy's start) that ran past its time limit."""


def grace(timeout: float) -> float:
    """Seconds a game may run on after it was asked to stop, before it is killed: ``timeout``
    clamped to 1-10."""
    return max(1.0, min(10.0, timeout))


@contextlib.contextmanager
def alarm(seconds: float, give_up: Callable[[], None]):
    """Limit the block, run in this process's main thread, to ``seconds`` of wall-clock time
    (0: none): :class:`Hang` is raised in it at the limit (SIGALRM), and ``give_up()`` is called
    from a timer thread :func:`grace` seconds later if the block still runs (it should end the
    process).  Without a main thread or SIGALRM only ``give_up`` applies."""
    if not seconds:
        yield
        return
    timer = threading.Timer(seconds + grace(seconds), give_up)
    timer.daemon = True
    timer.start()
    armed = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGALRM, _raise_hang) if armed else None
    try:
        if armed:
            signal.setitimer(signal.ITIMER_REAL, seconds)
        yield
    finally:
        if armed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        timer.cancel()


def _raise_hang(signum, frame):
    raise Hang()


# --------------------------------------------------------------------------------------------
# The child that plays a batch, and its parent, the clock
# --------------------------------------------------------------------------------------------

#: In a child: ``[game index, its start (time.monotonic), game asked to stop + 1, the stop
#: signal it received]`` shared with the parent; None in a process that plays under no parent's
#: clock.
_PROGRESS: Any = None
#: In a child: the parent's pid (a child whose parent is gone ends itself).
_PARENT = 0


def game_started(index: int) -> None:
    """Note that game ``index`` starts now (its time limit starts).  A no-op outside a child."""
    progress = _PROGRESS
    if progress is not None:
        progress[1] = 0.0  # (the parent reads the time, the index, then the time again)
        progress[0] = index
        progress[1] = time.monotonic()


def games_over() -> None:
    """Note that no game is being played (the batch is being packed): no limit runs."""
    if _PROGRESS is not None:
        _PROGRESS[1] = 0.0


class _Child:
    """A forked process that plays the batches of one run (``key``), one at a time, for the
    thread that made it; the run's process state (a strategy's class attributes, the strategy
    files loaded) lasts from batch to batch as it would in this process."""

    def __init__(self, key, play: Callable):
        self.key, self.owner = key, os.getpid()
        self.progress = multiprocessing.RawArray("d", 4)
        self.conn, theirs = multiprocessing.Pipe()
        self.pid = os.fork()
        if self.pid == 0:  # the child: serve batches, and end here whatever happens
            _serve(theirs, self.conn, self.progress, self.owner, play)
        theirs.close()

    def close(self) -> None:
        """End the child (whatever it is doing) and reap it."""
        self.conn.close()
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(self.pid, 0)


_LOCAL = threading.local()


def _child_for(key, play: Callable) -> _Child:
    """This thread's child for the run ``key``: the one already serving it, or a new one."""
    child = getattr(_LOCAL, "child", None)
    if child is not None and (child.key == key and child.owner == os.getpid()):
        return child
    if child is not None and child.owner == os.getpid():
        child.close()
    child = _LOCAL.child = _Child(key, play)
    return child


def _drop_child() -> None:
    child = getattr(_LOCAL, "child", None)
    if child is not None:
        _LOCAL.child = None
        child.close()


def supervised(job, play: Callable):
    """``play(job)`` in a child process under ``job.game_timeout`` per game (see the module
    docstring); the batches of one run share one child.  Returns ``(what play returned,
    None)``, or ``(None, index)`` when the child had to be killed in game ``index``.  A stop here
    (KeyboardInterrupt) is passed on to the child, which ends its game and returns what it
    finished; KeyboardInterrupt when it returns nothing.  ChildProcessError when the child died
    otherwise (killed from outside, or out of memory)."""
    key = (play, dataclasses.replace(job, start=0, stop=0))
    child = _child_for(key, play)
    try:
        child.conn.send(job)
    except OSError:  # (the idle child was ended: by a Ctrl-C at the terminal, say)
        _drop_child()
        child = _child_for(key, play)
        child.conn.send(job)
    stopped = False
    try:
        try:
            killed = _watch(job.game_timeout, child.pid, child.conn, child.progress)
        except KeyboardInterrupt:
            stopped = True
            with contextlib.suppress(ProcessLookupError):
                os.kill(child.pid, signal.SIGINT)
            if _watch(job.game_timeout, child.pid, child.conn, None) is not None:
                raise KeyboardInterrupt from None
            killed = None
        if killed is not None:
            _drop_child()
            return None, killed
        result = child.conn.recv()
    except (EOFError, OSError):
        _drop_child()
        if stopped:
            raise KeyboardInterrupt from None
        raise ChildProcessError(f"the process playing games {job.start} to {job.stop - 1} died (killed, or "
                                "out of memory)") from None
    except BaseException:
        _drop_child()
        raise
    _take_stop(child.progress)
    if isinstance(result, BaseException):
        raise result
    return result, None


def _take_stop(progress) -> None:
    """A stop signal the child received (its own handler ended its batch) is this process's too:
    its handler here notes it (the run then ends as one stopped by that signal)."""
    signum, progress[3] = int(progress[3]), 0.0
    handler = signal.getsignal(signum) if signum else None
    if callable(handler) and threading.current_thread() is threading.main_thread():
        with contextlib.suppress(KeyboardInterrupt):
            handler(signum, None)


def _noting(handler: Callable, signum: int, frame) -> None:
    """The child's stop handler: the inherited one, after noting the signal for the parent."""
    _PROGRESS[3] = max(_PROGRESS[3], signum)  # (SIGTERM, the larger, decides the exit code)
    handler(signum, frame)


def _watch(limit: float, pid: int, receive, progress) -> int | None:
    """Wait for the child's result; stop a game past ``limit``, kill it past the grace.  Returns
    the index of the game it killed, or None once the result (or the end of the pipe) is there.
    Without ``progress``: the child was asked to stop; it is killed after the grace.  Time is the
    child's own: wall-clock time less the time it waited for a CPU (:func:`waited`)."""
    asked = None if progress is not None else (-1, time.monotonic() - waited(pid))
    seen = None  # ((game index, its start), its start on the child's own clock)
    while not receive.poll(POLL):
        wait = waited(pid)
        now = time.monotonic() - wait
        if asked is not None and now - asked[1] > grace(limit):
            os.kill(pid, signal.SIGKILL)
            return asked[0]
        if progress is None:
            continue
        started = progress[1]
        index = int(progress[0])
        if not started or started != progress[1]:
            continue
        if seen is None or seen[0] != (index, started):  # (a game seen for the first time)
            seen = ((index, started), started - wait)
        if now - seen[1] <= limit:
            continue
        if asked is None or asked[0] != index:  # (a game over its limit: asked once to stop)
            progress[2] = index + 1
            os.kill(pid, signal.SIGALRM)
            asked = (index, now)
    return None


def waited(pid: int) -> float:
    """Seconds process ``pid`` has spent ready to run but waiting for a CPU (Linux:
    ``/proc/PID/schedstat``); 0 where that is not known.  A busy machine makes a game wait, not
    play longer: its time limit leaves the wait out, while a strategy that sleeps, or waits on a
    lock or a socket, is still stopped."""
    try:
        with open(f"/proc/{pid}/schedstat", "rb") as f:
            return int(f.read().split()[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return 0.0


def _serve(conn, parent_end, progress, parent: int, play: Callable) -> None:
    """The child's life: play each batch the parent sends and send back its result, until the
    parent closes its end (or is gone)."""
    global _PROGRESS, _PARENT
    try:
        parent_end.close()
        _close_inherited(conn.fileno())  # (a run lock of the parent's, among others, is not the child's)
        _PROGRESS, _PARENT = progress, parent
        signal.signal(signal.SIGALRM, _on_alarm)
        signal.setitimer(signal.ITIMER_REAL, 1.0, 1.0)  # (looks for its parent every second)
        for signum in (signal.SIGINT, signal.SIGTERM):
            handler = signal.getsignal(signum)
            if callable(handler):
                signal.signal(signum, functools.partial(_noting, handler))
        while True:
            try:
                job = conn.recv()
            except EOFError:
                break
            try:
                result = play(job)
            except Exception as e:  # (a fault of the program's own: raised again in the parent)
                result = e
            games_over()
            conn.send(result)
    except BaseException:
        pass
    finally:
        with contextlib.suppress(BaseException):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(0)


def _close_inherited(keep: int) -> None:
    """Close the descriptors the child inherited, but standard input, output, error and ``keep``."""
    top = os.sysconf("SC_OPEN_MAX") if hasattr(os, "sysconf") else 65536
    os.closerange(3, keep)
    os.closerange(keep + 1, top)


def _on_alarm(signum, frame):
    """The child's SIGALRM: end the child when its parent is gone; raise :class:`Hang` when the
    parent asked to stop the game it is playing."""
    if os.getppid() != _PARENT:
        os._exit(1)
    progress = _PROGRESS
    if progress[1] and progress[2] == progress[0] + 1:
        progress[2] = 0.0
        raise Hang()
