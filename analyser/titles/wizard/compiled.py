"""Wizard's compiled engine: the rules of :mod:`analyser.titles.wizard.rules` (every rule option, 3 to
6 players) and the built-in strategies ``bot`` / ``wizard-bot`` with ``bid=random|expected|zero``
and ``play=random|greedy``, ``random`` and ``expected`` (strategies/wizard.py) in one numba kernel,
:mod:`analyser.titles.wizard.kernel` (:mod:`analyser.engine.compiled` describes the interface).
``bid=montecarlo`` and ``mcts`` play in Python.

Both engines play the very same games: the kernel draws from the kernel kit's streams
(:mod:`analyser.engine.kernelkit`), deals each round as ``Wizard._deal`` does (a Fisher-Yates pass
over the deck positions, ``int(random() * m)`` per draw), asks a strategy only when it has more
than one legal action (as the game loop does) and draws a random choice as ``randrange`` does.
The ``expected`` bid's tables of exponentials are worked out here, in Python, with the very
floating-point operations of :func:`strategies.wizard.expected_tricks`, so the kernel adds and
multiplies the same numbers in the same order.  It fills the per-seat results, the score trace
(the running totals after each round), the components table (Wizards, Jesters and trumps dealt
per round) and the ``rounds`` extra table.
"""

from __future__ import annotations

import math
import sys
import time
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from analyser.engine.compiled import KernelEngine
from analyser.engine.kernelkit import Collector, OutputLayout, play_batch, result_names
from analyser.engine.registry import builtin_strategies, make_strategy, parse_spec
from analyser.titles.wizard import Wizard as Title
from analyser.titles.wizard.rules import Wizard

#: The built-in strategies the kernel plays (their ``bid`` / ``play`` policies decide).
STRATEGY_NAMES = ("bot", "wizard-bot", "random", "expected")
BID_CODES = {"random": 0, "expected": 1, "zero": 2}
PLAY_CODES = {"random": 0, "greedy": 1}
#: The rule options the kernel implements (a new option must be added here and to the kernel).
RULE_OPTIONS = frozenset({"wizard_trump", "round_starter", "follow_suit", "hook", "seat_bonus"})
#: The rule methods the kernel stands in for: a subclass or a replaced method is played in Python.
_RULE_METHODS = ("initial_state", "legal_actions", "apply", "is_terminal", "scores", "metrics", "extra_records",
                 "components")
#: The kernel's per (game, seat) columns, in ``Out.ints`` / ``Out.floats`` order.
INTS = ("score", "rank", "turns")
FLOATS = ("win", "exact_bids", "over_bid", "under_bid", "points_per_round", "mean_bid")
#: ``Out.extra[g, round - 1, seat, X]``: the ``rounds`` table (trumps -1: no trump suit; trump -1:
#: none; trump card 0 none, 1 wizard, 2 jester, 3 suit).
EXTRA = ("bid", "tricks", "points", "wizards", "jesters", "trumps", "trump", "trump_card", "starter")
SUIT_NAMES = ("blue", "green", "red", "yellow")
TURNED = ("none", "wizard", "jester", "suit")
SLICE_GAMES = 2000
#: Cards in the deck.
DECK = 60


class Rules(NamedTuple):
    """The rule options as the kernel reads them, and the tables of the ``expected`` bid."""

    dealer_chooses: bool
    rotate: bool
    seed_follow: bool
    hook: bool
    rounds: int
    exp: np.ndarray
    wizard_exp: np.ndarray
    led: np.ndarray
    led_factor: float
    kinds: int


class Codes(NamedTuple):
    """The components' kernel codes (indexes of the sorted labels): ``wizards[k]`` of "k Wizards",
    ``jesters[k]``, ``trumps[k]`` of "k trumps"."""

    wizards: np.ndarray
    jesters: np.ndarray
    trumps: np.ndarray


class Strategies(NamedTuple):
    """Per strategy of the run: its bid policy (:data:`BID_CODES`), play policy
    (:data:`PLAY_CODES`) and bias."""

    bid: np.ndarray
    play: np.ndarray
    bias: np.ndarray


class WizardEngine(KernelEngine):
    """Wizard's compiled engine (the interface of :mod:`analyser.engine.compiled`)."""

    name, game_id, titles, entry = "Wizard", "wizard", (Wizard, Title), "analyser.titles.wizard.kernel:play"
    rule_methods, rule_options = _RULE_METHODS, RULE_OPTIONS
    strategies = STRATEGY_NAMES

    def strategy_table(self, strategies) -> Strategies:
        """Per strategy spec: its bid and play policy codes and bias."""
        return _strategy_table(tuple(strategies))

    def run_batch(self, job, game, params):
        """Games ``job.start`` to ``job.stop - 1`` as the Python path's :class:`BatchResult`."""
        t0 = time.perf_counter()
        n = job.players
        strategies = self.strategy_table(job.strategies)
        rounds = DECK // n
        exp, wizard_exp, led = bid_tables(n)
        labels, codes = component_codes(game, params)
        rules = Rules(params.wizard_trump == "dealer_chooses", params.round_starter == "rotate",
                      params.follow_suit == "seed", bool(params.hook), rounds, exp, wizard_exp, led,
                      bid_constants()[1], len(labels))
        bonus = np.array(params.bonus(n), dtype=np.int64)
        play = self.kernel()
        collector = Collector(job.start, n, OutputLayout(result_names(game), INTS, FLOATS, "score_trace", rounds, labels,
                                                         n * 3 * rounds, (rounds, n, len(EXTRA))))
        draws = ~((strategies.play == PLAY_CODES["greedy"]) & (strategies.bid != BID_CODES["random"]))
        result = play_batch(job, collector, SLICE_GAMES, draws,
                            lambda seeds, out: play(seeds, rules, strategies, codes, bonus, out), "Wizard")
        if result.done:
            result.extras = {"rounds": rounds_table(np.concatenate(collector.extras), job.start, n)}
        result.seconds = time.perf_counter() - t0
        return result


def rounds_table(extra: np.ndarray, start: int, n: int) -> dict:
    """The ``rounds`` extra table as the Python path's batch gives it (``{key: values}``, a column
    of mixed whole and real numbers as a list) from ``Out.extra`` of the games played."""
    games, rounds = extra.shape[0], extra.shape[1]
    flat = extra.reshape(games * rounds * n, len(EXTRA))
    col = {k: flat[:, i] for i, k in enumerate(EXTRA)}
    seat = np.tile(np.arange(n, dtype=np.int64), games * rounds)
    trumps = col["trumps"]
    has = trumps >= 0
    if has.all():
        trumps_out = trumps.copy()
    elif not has.any():
        trumps_out = np.full(len(trumps), np.nan)
    else:  # whole numbers (Python ints) and NaN, as the Python path's rows give them
        trumps_out = trumps.astype(object)
        trumps_out[~has] = float("nan")
        trumps_out = trumps_out.tolist()
    names = np.array(("none",) + SUIT_NAMES, dtype=object)
    return {"round": np.tile(np.repeat(np.arange(1, rounds + 1, dtype=np.int64), n), games), "seat": seat,
            "bid": col["bid"].copy(), "tricks": col["tricks"].copy(), "points": col["points"].copy(),
            "exact": (col["bid"] == col["tricks"]).astype(np.int64), "wizards": col["wizards"].copy(),
            "jesters": col["jesters"].copy(), "trumps": trumps_out,
            "trump": names[col["trump"] + 1].tolist(),
            "trump_card": np.array(TURNED, dtype=object)[col["trump_card"]].tolist(),
            "bid_position": (seat - col["starter"]) % n,
            "game_index": np.repeat(np.arange(start, start + games, dtype=np.int64), rounds * n)}


def component_codes(game, params) -> tuple[list[str], Codes]:
    """The components' labels (sorted, as the components table sorts them) and their codes, from
    the title's catalog (``"k Wizards"`` / ``"k Jesters"``, k = 1-4; ``"k trumps"``, k = 0-13)."""
    labels = sorted(game.component_catalog(params))
    codes = {"wizard": np.full(5, -1, np.int64), "jester": np.full(5, -1, np.int64), "trump": np.full(14, -1, np.int64)}
    for i, label in enumerate(labels):
        count, what = label.split(" ", 1)
        codes[what.lower().rstrip("s")][int(count)] = i
    return labels, Codes(codes["wizard"], codes["jester"], codes["trump"])


@lru_cache(maxsize=None)
def bid_constants() -> tuple[float, float]:
    """``COLLIDE`` and ``LED_FACTOR`` of the built-in Wizard strategies (strategies/wizard.py)."""
    module = sys.modules[type(make_strategy("expected", "wizard")).__module__]
    return module.COLLIDE, module.LED_FACTOR


@lru_cache(maxsize=None)
def bid_tables(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ``expected`` bid's exponentials at ``n`` players, per round ``r`` and turned card
    (``t`` 1: a card was turned), computed as :func:`strategies.wizard.expected_tricks` computes
    them: ``exp[r, t, b] = exp(-b * lam)``, ``wizard_exp[r, t, w] = exp(-0.5 * w * lam)`` and
    ``led[r, t, trump_unseen, in_suit]``, the factor of a side suit with ``in_suit`` unseen cards
    of its suit (``LED_FACTOR`` not included)."""
    collide = bid_constants()[0]
    rounds = DECK // n
    exp = np.zeros((rounds + 1, 2, 60))
    wizard_exp = np.zeros((rounds + 1, 2, 5))
    led = np.zeros((rounds + 1, 2, 14, 14))
    for size in range(1, rounds + 1):
        for t in (0, 1):
            unseen = 60 - size - t
            if unseen <= 0:
                continue
            q = (n - 1) * size / unseen
            lam = (q if q < 1.0 else 1.0) * (collide / size if size > collide else 1.0)
            exp[size, t] = [math.exp(-b * lam) for b in range(60)]
            wizard_exp[size, t] = [math.exp(-0.5 * w * lam) for w in range(5)]
            for tu in range(1, 14):
                for in_suit in range(14):
                    led[size, t, tu, in_suit] = math.exp(-tu * (1.0 - in_suit / unseen) ** size * lam)
    return exp, wizard_exp, led


@lru_cache(maxsize=64)
def _strategy_table(strategies: tuple[str, ...]) -> Strategies:
    builtins = builtin_strategies("wizard")
    bid, play, bias = [], [], []
    for text in strategies:
        spec = parse_spec(text)
        if spec.source.endswith(".py") or spec.source not in STRATEGY_NAMES or spec.source not in builtins:
            raise ValueError(f"strategy {text!r} is not one the kernel plays (built-in {', '.join(STRATEGY_NAMES)} "
                             "with bid=random|expected|zero, with their parameters)")
        inst = make_strategy(text, "wizard")
        if inst.bid not in BID_CODES or inst.play not in PLAY_CODES:
            raise ValueError(f"strategy {text!r} is not one the kernel plays (bid={inst.bid} plays in Python)")
        bid.append(BID_CODES[inst.bid])
        play.append(PLAY_CODES[inst.play])
        bias.append(float(inst.bias))
    return Strategies(np.array(bid, dtype=np.int64), np.array(play, dtype=np.int64), np.array(bias, dtype=np.float64))


ENGINE = WizardEngine()
