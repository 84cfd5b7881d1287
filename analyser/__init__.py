"""analyser: a Monte Carlo strategy analyser for tabletop games.

Library entry points: :func:`analyser.run.run` plays a run and returns a tidy pandas
frame; :mod:`analyser.stats.analysis` summarises it; :mod:`analyser.report.page` draws the report.
"""

__version__ = "0.1.0"


def main() -> None:
    """The ``analyser`` command (the console script, and ``python -m analyser``): loads the
    command line (:func:`analyser.cli.main`) and runs it.  A Ctrl-C while its modules load, before
    any command has started (or at any moment a command does not handle), is one line and exit
    code 130, not a traceback."""
    import sys
    try:
        from analyser.cli import main as command
        command()
    except KeyboardInterrupt:  # (a command's own stops are handled, and said, inside it)
        backends = sys.modules.get("analyser.run.backends")
        code = backends.stop_exit_code() if backends is not None else 130
        sys.stderr.write(f"analyser: interrupted{' (SIGTERM)' if code == 143 else ''}\n")
        raise SystemExit(code) from None
