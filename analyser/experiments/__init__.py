"""The designer experiments: thin layers over the run package (:mod:`analyser.run`), where a cell
of a sweep, a table of a tournament and a side of a comparison are each one run.

* :mod:`~analyser.experiments.base`: what they share - an experiment folder of cells, each a run
  folder, played, resumed after any fault and read back as one (the API for new experiments);
* :mod:`~analyser.experiments.options`: what each experiment takes besides its run spec (its own
  options dataclass) and where it plays (a session);
* :mod:`~analyser.experiments.grid`: the grid of a sweep (values, ranges, cells);
* :mod:`~analyser.experiments.sweep`: every cell of a grid on the same deals, paired against the best;
* :mod:`~analyser.experiments.tournament`: balanced tables and their ratings;
* :mod:`~analyser.experiments.compare`: A against B on the same game seeds, or two run folders;
* :mod:`~analyser.experiments.ladder`: skill depth, a strategy's budget doubled level by level
  (its page and files: :mod:`~analyser.experiments.ladder_report`);
* :mod:`~analyser.experiments.stopping`: the stopping rule (rounds fixed in advance, ``--until-ci``);
* :mod:`~analyser.experiments.tune`, :mod:`~analyser.experiments.tune_targets` and
  :mod:`~analyser.experiments.tune_report`: the search toward a designer's targets.

The experiments may import every layer below them (engine, io, run, results, stats, findings and
the report, whose pages they write); only the command line imports them.
"""
