"""Signals in a loky worker (:func:`analyser.engine.runner.pool_worker_signals`): SIGTERM is
ignored (the run's own process takes it and ends the workers: a worker ended while it writes a
result into the pool's pipe would leave the pool waiting for ever on half a message), and SIGINT
interrupts a batch only while it plays; an idle worker ignores it instead of dying with a
traceback."""
import os
import signal

from joblib import Parallel, delayed

from analyser.engine.runner import pool_worker_signals


def _handlers_around_a_batch():
    before = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
    with pool_worker_signals():
        during = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
    after = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGTERM, before[0])
    signal.signal(signal.SIGINT, before[1])
    return during, after


def _ctrl_c_between_batches():
    with pool_worker_signals():
        pass
    os.kill(os.getpid(), signal.SIGINT)  # (as a terminal's Ctrl-C reaches the whole group)
    return "alive"


def test_a_pool_worker_ignores_sigterm_and_takes_sigint_only_during_a_batch():
    results = Parallel(n_jobs=2, backend="loky")(delayed(_handlers_around_a_batch)() for _ in range(2))
    during = (signal.SIG_IGN, signal.default_int_handler)
    after = (signal.SIG_IGN, signal.SIG_IGN)
    assert results == [(during, after), (during, after)]


def test_an_idle_pool_worker_survives_ctrl_c():
    assert Parallel(n_jobs=2, backend="loky")(delayed(_ctrl_c_between_batches)() for _ in range(4)) == ["alive"] * 4


def test_the_run_process_keeps_its_handlers():
    before = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
    assert _handlers_around_a_batch() == (before, before)
