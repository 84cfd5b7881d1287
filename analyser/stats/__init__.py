"""The numbers of a results frame: summaries and intervals, designer metrics, seats, component
impact, the meta-game, the chunk-by-chunk sums of large runs and their plots (the modules:
docs/architecture.md).  May import :mod:`analyser.engine`, :mod:`analyser.io`, :mod:`analyser.run`
and :mod:`analyser.results`.
"""
