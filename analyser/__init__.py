"""analyser: a Monte Carlo strategy analyser for tabletop games.

Library entry points: :func:`analyser.run.run` plays a run and returns a tidy pandas
frame; :mod:`analyser.stats.analysis` summarises it; :mod:`analyser.report.page` draws the report.
:mod:`analyser.text`, at the root so every layer may use it, spells numbers and words for the
terminal, the HTML and the PNGs alike.
"""

__version__ = "0.1.0"
