"""The ``analyser`` command line (click, thin): list, rules, simulate, play, new, check, report, bench.

Every command is a thin layer over library functions.  Bad input (an unknown game, strategy,
rule or parameter, a malformed ``key=value``, a number out of range, an unwritable ``--out``)
prints one line naming the value and what is accepted, and exits with code 2.

:mod:`~analyser.cli.common` holds the click group, :func:`main` and the helpers the commands
share; each command family has its own module, which registers its commands on the group when
imported (this package imports them all):

* :mod:`~analyser.cli.catalog`: ``list``, ``rules``, ``new``, ``check`` (the titles, their rules
  pages and their contract);
* :mod:`~analyser.cli.runs`: ``simulate``, ``resume`` (a run, and the summary it prints);
* :mod:`~analyser.cli.play`: ``play`` (one game, traced);
* :mod:`~analyser.cli.reports`: ``report`` (rebuilding a report from results);
* :mod:`~analyser.cli.experiments`: ``sweep``, ``tournament``, ``compare``, ``ladder``;
* :mod:`~analyser.cli.tuning`: ``tune``;
* :mod:`~analyser.cli.bench`: ``bench``;
* :mod:`~analyser.cli.folders`: what an output folder holds, and ``resume`` and ``report`` of an
  experiment folder (each kind rebuilt by its command's module).

The command line is the top layer: it may import every package of analyser, and nothing imports
it (but ``python -m analyser``).  Its modules import each other in one direction: ``common`` <-
``experiments`` <- ``tuning`` <- ``folders`` <- ``reports`` <- ``runs``.
"""

from analyser.cli.common import AnalyserGroup, cli, main  # noqa: F401 - the console script (analyser.__main__:main) runs main
from analyser.cli import bench, catalog, experiments, folders, play, reports, runs, tuning  # noqa: E402,F401
