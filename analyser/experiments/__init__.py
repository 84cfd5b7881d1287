"""The designer experiments: thin layers over the run package (:mod:`analyser.run`), where a cell
of a sweep, a table of a tournament and a side of a comparison are each one run.
:mod:`~analyser.experiments.base` is what they share (the API for new experiments); the modules
are listed in docs/architecture.md.

The experiments may import every layer below them (engine, io, run, results, stats, findings and
the report, whose pages they write); only the command line imports them.
"""
