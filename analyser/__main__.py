"""``python -m analyser`` - the same as the ``analyser`` command."""

import os
import sys

# `python -m` puts the current folder first on sys.path; a user's file there named after a standard
# module (random.py, json.py) would shadow it.  Our own package is already imported, and user files
# are loaded by path (analyser.engine.userfiles), so the entry is not needed.
if sys.path and os.path.abspath(sys.path[0] or os.curdir) == os.getcwd():
    del sys.path[0]


def main() -> None:
    """The ``analyser`` command (the console script, and ``python -m analyser``): loads the
    command line (:func:`analyser.cli.main`) and runs it.  A Ctrl-C while its modules load, before
    any command has started (or at any moment a command does not handle), is one line and exit
    code 130, not a traceback."""
    try:
        from analyser.cli import main as command
        command()
    except KeyboardInterrupt:  # (a command's own stops are handled, and said, inside it)
        stops = sys.modules.get("analyser.run.stops")
        code = stops.exit_code() if stops is not None else 130
        sys.stderr.write(f"analyser: interrupted{' (SIGTERM)' if code == 143 else ''}\n")
        raise SystemExit(code) from None


if __name__ == "__main__":
    main()
