"""The ``analyser`` command line (click, thin): every command is a thin layer over library functions.

Bad input prints one line naming the value and what is accepted, and exits with code 2.  The
group (:mod:`~analyser.cli.common`) loads each command's module only when that command runs.  The
modules and the one direction they import each other in are docs/architecture.md.  The command
line may import every package of analyser, and nothing imports it (but ``python -m analyser``).
"""

from analyser.cli.common import AnalyserGroup, cli, main  # noqa: F401 - the console script (analyser.__main__:main) runs main
