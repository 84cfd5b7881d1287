"""DAO's compiled engine: the rules of :mod:`analyser.titles.dao.rules` and the built-in strategies
``threshold``, ``greedy``, ``colour`` and ``random`` (strategies/dao.py) in one numba kernel
(:mod:`analyser.engine.compiled` describes the interface; docs/compiled.md the pattern).

Both engines play the very same games: the kernel (:mod:`analyser.titles.dao.kernel`) draws from
the kernel kit's streams (:mod:`analyser.engine.kernelkit`, :mod:`analyser.engine.kerneljit`: Python's
Mersenne Twister, seeded as the Python path seeds it, and its lineups), deals as
:func:`~analyser.engine.derive.shuffled` does (one ``random()`` per card, a stable sort), plays
each game as :meth:`Dao.apply` does and fills the kit's output arrays: the per-seat results
(score, rank, win share, cards, busts, colour share, turns), the score trace (one value per round
of turns) and each seat's count of every card kind (the components table).
"""

from __future__ import annotations

import time
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from analyser.engine.compiled import KernelEngine
from analyser.engine.kernelkit import Collector, OutputLayout, play_batch, result_names
from analyser.engine.registry import builtin_strategies, make_strategy, parse_spec
from analyser.titles.dao import Dao as Title
from analyser.titles.dao.rules import Dao, full_deck

#: The built-in strategies the kernel plays, by name -> kernel code.
STRATEGY_CODES = {"threshold": 0, "greedy": 1, "colour": 2, "random": 3}
#: The rule options the kernel implements (a new option must be added here and to the kernel).
RULE_OPTIONS = frozenset({"bust_limit", "display_size", "colours", "values", "equal_exception", "tie_break",
                          "two_player_halves", "seat_bonus"})
_EXCEPTION = {"adjacent": 0, "front": 1, "off": 2}
_LIMIT = 2 ** 62
#: Bytes of scratch per batch slice: the kernel plays a batch in slices of about this size.
SLICE_BYTES = 16_000_000
#: The kernel's per (game, seat) columns, in ``Out.ints`` / ``Out.floats`` order.
INTS = ("score", "rank", "cards", "busts", "turns")
FLOATS = ("win", "colour_share")


class Rules(NamedTuple):
    """The rule options as the kernel reads them: ``exception`` 0 adjacent, 1 front, 2 off;
    ``top_v`` the highest card value; ``halves`` and ``cut`` (the second half's deck is
    ``order[:cut]``); ``kinds`` the card kinds (component codes); ``rounds`` the most rounds of
    turns a game can have (the score trace's bound)."""

    bust_limit: int
    display_size: int
    colours: int
    top_v: int
    exception: int
    most_cards: bool
    halves: bool
    cut: int
    kinds: int
    rounds: int


class Deck(NamedTuple):
    """Per deck position: the card's colour, value and kind (its label's index, in text order)."""

    colour: np.ndarray
    value: np.ndarray
    kind: np.ndarray


class Strategies(NamedTuple):
    """Per strategy of the run: its kernel code and two parameters (threshold: limit; colour:
    min_value, start)."""

    code: np.ndarray
    p0: np.ndarray
    p1: np.ndarray


#: The rule methods the kernel stands in for: a subclass or a replaced method is played in Python.
_RULE_METHODS = ("initial_state", "legal_actions", "apply", "is_terminal", "scores", "metrics")


class DaoEngine(KernelEngine):
    """DAO's compiled engine (the interface of :mod:`analyser.engine.compiled`)."""

    name, game_id, titles, entry = "DAO", "dao", (Dao, Title), "analyser.titles.dao.kernel:play"
    rule_methods, rule_options = _RULE_METHODS, RULE_OPTIONS
    strategies = tuple(STRATEGY_CODES)

    def strategy_table(self, strategies) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per strategy spec: its kernel code and two parameters (threshold: limit; colour:
        min_value, start)."""
        return _strategy_table(tuple(strategies))

    def run_batch(self, job, game, params):
        """Games ``job.start`` to ``job.stop - 1`` as the Python path's :class:`BatchResult`."""
        t0 = time.perf_counter()
        n = job.players
        strategies = Strategies(*self.strategy_table(job.strategies))
        deck, labels = deck_of(params)
        D = len(deck.colour)
        rules = Rules(params.bust_limit, params.display_size, params.colours, max(v for v, _ in params.value_counts),
                      _EXCEPTION[params.equal_exception], params.tie_break == "most_cards", bool(params.halves(n)),
                      D - D // 2, len(labels), -(-2 * D // n) + 1)  # at most 2 * deck turns: each shows or takes a card
        bonus = np.array(params.bonus(n), dtype=np.int64)
        per_game = 8 * D * 4 + n * (8 * rules.rounds + 8 * 24 + 64)
        step = max(1, min(5000, SLICE_BYTES // per_game))
        play = self.kernel()
        collector = Collector(job.start, n, OutputLayout(result_names(game), INTS, FLOATS, "score_trace", rules.rounds,
                                                         labels, D))
        result = play_batch(job, collector, step, strategies.code == STRATEGY_CODES["random"],
                            lambda seeds, out: play(seeds, rules, deck, strategies, bonus, out), "DAO")
        result.seconds = time.perf_counter() - t0
        return result


def deck_of(params) -> tuple[Deck, list[str]]:
    """The deck in deal order as a :class:`Deck`, and the card kinds' labels (sorted)."""
    deck = full_deck(params.colours, params.values)
    labels = sorted({str(c) for c in deck})
    where = {t: i for i, t in enumerate(labels)}
    return Deck(np.array([c.colour for c in deck], dtype=np.int64), np.array([c.value for c in deck], dtype=np.int64),
                np.array([where[str(c)] for c in deck], dtype=np.int64)), labels


@lru_cache(maxsize=64)
def _strategy_table(strategies: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    builtins = builtin_strategies("dao")
    codes, p0, p1 = [], [], []
    for text in strategies:
        spec = parse_spec(text)
        code = STRATEGY_CODES.get(spec.source)
        if spec.source.endswith(".py") or code is None or spec.source not in builtins:
            raise ValueError(f"strategy {text!r} is not one the kernel plays (built-in "
                             f"{', '.join(STRATEGY_CODES)}, with their parameters)")
        inst = make_strategy(text, "dao")
        values = (inst.limit, 0) if code == 0 else (inst.min_value, inst.start) if code == 2 else (0, 0)
        if not all(isinstance(v, int) and -_LIMIT < v < _LIMIT for v in values):
            raise ValueError(f"strategy {text!r} has a parameter outside the kernel's whole numbers")
        codes.append(code)
        p0.append(values[0])
        p1.append(values[1])
    return (np.array(codes, dtype=np.int64), np.array(p0, dtype=np.int64), np.array(p1, dtype=np.int64))


ENGINE = DaoEngine()
