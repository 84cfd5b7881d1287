"""analyser: a Monte Carlo strategy analyser for tabletop games.

The public API, for titles and strategies of your own, is importable from here and stays put when
internal modules move::

    from analyser import Game, Params, option, Strategy, face_down, face_up, seat_zones

* the title contract: :class:`Game`, :class:`Params`, :func:`option`, :class:`Metric`, :class:`Scoring`,
  :data:`TRACE_COLUMN`, :func:`encode_trace`, :class:`ExtraTable`, :class:`InputError`;
* the components a state is made of (:mod:`analyser.engine.components`): :func:`face_down`,
  :func:`face_up`, :func:`zone`, :func:`seat_zones`, :func:`seat_secrets`, :func:`seat_counters`,
  :func:`dice_faces`, :func:`grid_cells`, :func:`derived`, :func:`scratch`, with who may see them (:data:`EVERYONE`, :data:`OWNER`, :data:`NOBODY`), and
  :class:`View`, the base of a seat's view;
* strategies: :class:`Strategy`, :class:`StrategyError`;
* playing and checking: :func:`play_game`, :func:`check_title`, :func:`make_strategy`,
  :func:`get_game`, :func:`load_title_file`.

Library entry points for runs: :func:`analyser.run.run` plays a run and returns a tidy pandas
frame; :mod:`analyser.stats.analysis` summarises it; :mod:`analyser.report.page` draws the report.
:mod:`analyser.text`, at the root so every layer may use it, spells numbers and words for the
terminal, the HTML and the PNGs alike.

The names load on first use, so ``import analyser`` stays cheap for the command line.
"""

import importlib

__version__ = "0.1.0"

#: public name -> the module that defines it
PUBLIC = {
    "Game": "analyser.engine.core",
    "Params": "analyser.engine.core",
    "option": "analyser.engine.core",
    "Metric": "analyser.engine.core",
    "Scoring": "analyser.engine.core",
    "ExtraTable": "analyser.engine.core",
    "TRACE_COLUMN": "analyser.engine.core",
    "encode_trace": "analyser.engine.core",
    "InputError": "analyser.engine.core",
    "Strategy": "analyser.engine.core",
    "StrategyError": "analyser.engine.core",
    "face_down": "analyser.engine.components",
    "face_up": "analyser.engine.components",
    "zone": "analyser.engine.components",
    "seat_zones": "analyser.engine.components",
    "seat_secrets": "analyser.engine.components",
    "dice_faces": "analyser.engine.components",
    "seat_counters": "analyser.engine.components",
    "grid_cells": "analyser.engine.components",
    "derived": "analyser.engine.components",
    "scratch": "analyser.engine.components",
    "EVERYONE": "analyser.engine.components",
    "OWNER": "analyser.engine.components",
    "NOBODY": "analyser.engine.components",
    "View": "analyser.engine.derive",
    "play_game": "analyser.engine.runner",
    "make_strategy": "analyser.engine.registry",
    "get_game": "analyser.engine.registry",
    "load_title_file": "analyser.engine.registry",
    "check_title": "analyser.kit.check",
}

__all__ = sorted(PUBLIC) + ["__version__"]


def __getattr__(name: str):
    module = PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'analyser' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return __all__
