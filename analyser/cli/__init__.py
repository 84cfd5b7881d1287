"""The ``analyser`` command line (click, thin): list, rules, simulate, play, new, check, report, bench.

Every command is a thin layer over library functions.  Bad input (an unknown game, strategy,
rule or parameter, a malformed ``key=value``, a number out of range, an unwritable ``--out``)
prints one line naming the value and what is accepted, and exits with code 2.

:mod:`~analyser.cli.common` holds the click group, :func:`main` and the helpers the commands
share.  The group loads each command lazily (:data:`~analyser.cli.common.COMMANDS` names the
module and function of each): a command's module, and what it imports at module level, is
imported only when that command runs.  So ``analyser --help``, ``analyser list`` and a bad
command name start at once, without pandas, pyarrow or the worker pool.  The command modules:

* :mod:`~analyser.cli.catalog`: ``list``, ``rules`` (the titles and their rules pages; light);
* :mod:`~analyser.cli.authoring`: ``new``, ``check`` (a title of your own and its contract);
* :mod:`~analyser.cli.runs`: ``simulate``, ``resume`` (a run, and the summary it prints);
* :mod:`~analyser.cli.play`: ``play`` (one game, traced);
* :mod:`~analyser.cli.reports`: ``report`` (rebuilding a report from results);
* :mod:`~analyser.cli.experiments`: ``sweep``, ``tournament``, ``compare``, ``ladder``;
* :mod:`~analyser.cli.tuning`: ``tune``;
* :mod:`~analyser.cli.bench`: ``bench``;
* :mod:`~analyser.cli.folders`: what an output folder holds, and ``resume`` and ``report`` of an
  experiment folder (each kind rebuilt by its command's module);
* :mod:`~analyser.cli.supervised`: the click command class of every command that plays games or
  writes folders (stop signals counted, locks released).

The command line is the top layer: it may import every package of analyser, and nothing imports
it (but ``python -m analyser``).  Its modules import each other in one direction: ``common`` <-
``supervised`` <- ``experiments`` <- ``tuning`` <- ``folders`` <- ``reports`` <- ``runs``.
"""

from analyser.cli.common import AnalyserGroup, cli, main  # noqa: F401 - the console script (analyser.__main__:main) runs main
