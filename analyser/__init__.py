"""analyser: a Monte Carlo strategy analyser for tabletop games.

The public API, for titles and strategies of your own, is importable from here (:data:`PUBLIC`)
and stays put when internal modules move::

    from analyser import Game, Params, option, Strategy, face_down, face_up, seat_zones

Library entry points for runs: :func:`analyser.run.run` plays a run and returns a tidy pandas
frame; :mod:`analyser.stats.analysis` summarises it; :mod:`analyser.report.page` draws the report.
:mod:`analyser.text`, at the root so every layer may use it, spells numbers and words for the
terminal, the HTML and the PNGs alike.

The names load on first use, so ``import analyser`` stays cheap for the command line.
"""

import importlib

__version__ = "0.1.0"

_MODULES = {
    "analyser.engine.core": ("Game", "Params", "option", "Metric", "Scoring", "ExtraTable", "TRACE_COLUMN",
                             "encode_trace", "InputError", "Strategy", "StrategyError"),
    "analyser.engine.components": ("face_down", "face_up", "zone", "seat_zones", "seat_secrets", "dice_faces",
                                   "seat_counters", "grid_cells", "derived", "scratch", "EVERYONE", "OWNER",
                                   "NOBODY"),
    "analyser.engine.derive": ("View",),
    "analyser.engine.runner": ("play_game",),
    "analyser.engine.registry": ("make_strategy", "get_game", "load_title_file"),
    "analyser.kit.check": ("check_title",),
}
#: public name -> the module that defines it
PUBLIC = {name: module for module, names in _MODULES.items() for name in names}

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
