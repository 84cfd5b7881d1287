"""The engine: the title contract and playing games.  The lowest layer: it may import no other
package of analyser (titles are found by entry point, a string, never imported here).

* :mod:`~analyser.engine.core`: the contract every title keeps - rule parameters, the game, the
  strategy, the errors (:class:`~analyser.engine.core.InputError` is the one-line, exit-2 error);
* :mod:`~analyser.engine.hooks`: the component hooks of a game;
* :mod:`~analyser.engine.traces`: score traces (the ``score_trace`` column);
* :mod:`~analyser.engine.perseat`: per-seat rule values (``seat_bonus=0/0/2``);
* :mod:`~analyser.engine.seeding`: the seed of each game of a run;
* :mod:`~analyser.engine.userfiles`: loading a user's Python file or folder safely;
* :mod:`~analyser.engine.registry`: titles and strategies by name;
* :mod:`~analyser.engine.runner`: the game loop and a batch of games;
* :mod:`~analyser.engine.componenttable`: a batch's components table, packed for the trip home;
* :mod:`~analyser.engine.search`: the generic search player (``mcts``).
"""
