"""The ``analyser`` command line (click, thin): every command is a thin layer over library functions.

Bad input (an unknown game, strategy, rule or parameter, a malformed ``key=value``, a number out
of range, an unwritable ``--out``) prints one line naming the value and what is accepted, and
exits with code 2.  The group (:mod:`~analyser.cli.common`) loads each command's module only when
that command runs (:data:`~analyser.cli.common.COMMANDS`), so ``analyser --help``, ``analyser
list`` and a bad command name start at once.  The modules, one per command family, are listed in
docs/architecture.md.

The command line is the top layer: it may import every package of analyser, and nothing imports
it (but ``python -m analyser``).  Its modules import each other in one direction: ``common`` <-
``supervised`` <- ``experiments`` <- ``tuning`` <- ``folders`` <- ``reports`` <- ``runs``.
"""

from analyser.cli.common import AnalyserGroup, cli, main  # noqa: F401 - the console script (analyser.__main__:main) runs main
