"""analyser: a Monte Carlo strategy analyser for tabletop games.

Library entry points: :func:`analyser.run.run` plays a run and returns a tidy pandas
frame; :mod:`analyser.stats.analysis` summarises it; :mod:`analyser.report.page` draws the report.
"""

__version__ = "0.1.0"
