"""A loky worker ignores SIGTERM (the run's own process takes it and ends the workers): a
worker ended by a group-wide SIGTERM while it writes a result into the pool's pipe would leave
the pool waiting for ever on half a message."""
import signal

from joblib import Parallel, delayed

from analyser.engine.runner import ignore_sigterm_in_a_pool_worker


def _sigterm_after_the_call():
    before = signal.getsignal(signal.SIGTERM)
    ignore_sigterm_in_a_pool_worker()
    after = signal.getsignal(signal.SIGTERM)
    signal.signal(signal.SIGTERM, before)
    return after


def test_a_pool_worker_ignores_sigterm():
    afters = Parallel(n_jobs=2, backend="loky")(delayed(_sigterm_after_the_call)() for _ in range(2))
    assert afters == [signal.SIG_IGN, signal.SIG_IGN]


def test_the_run_process_keeps_its_sigterm_handler():
    before = signal.getsignal(signal.SIGTERM)
    assert _sigterm_after_the_call() == before
