"""The numbers of a results frame: summaries and intervals, designer metrics, seats, component
impact, the meta-game, the chunk-by-chunk sums of large runs and their plots.  May import
:mod:`analyser.engine`, :mod:`analyser.io`, :mod:`analyser.run` and :mod:`analyser.results`.

* :mod:`~analyser.stats.analysis`: win rates, intervals, formatting by the interval;
* :mod:`~analyser.stats.designer`: drama, luck against skill, decisiveness;
* :mod:`~analyser.stats.seats`: seat compensation and the seat figures;
* :mod:`~analyser.stats.components`: each component's effect on winning;
* :mod:`~analyser.stats.metagame`: the meta-game of a tournament;
* :mod:`~analyser.stats.streamed`: a run's tables read chunk by chunk into additive sums;
* :mod:`~analyser.stats.plots`: the matplotlib figures (the Agg backend is set there only).
"""
