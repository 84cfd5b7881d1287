"""``python -m analyser`` - the same as the ``analyser`` command."""

import os
import sys

# `python -m` puts the current folder first on sys.path; a user's file there named after a standard
# module (random.py, json.py) would shadow it.  Our own package is already imported, and user files
# are loaded by path (analyser.engine.userfiles), so the entry is not needed.
if sys.path and os.path.abspath(sys.path[0] or os.curdir) == os.getcwd():
    del sys.path[0]

from analyser import main  # noqa: E402

if __name__ == "__main__":
    main()
