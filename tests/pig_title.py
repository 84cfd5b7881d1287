"""Pig with a start bonus, for tests of the seat compensation replayed (``--confirm-seats``).

The seats take turns, seat 0 first, rolling one die as often as they like: a 1 loses the turn's
points, any other face adds to the turn total, and holding banks it.  The first seat whose banked
score plus turn total reaches ``target`` wins at once (a race).  Rule option ``start_bonus``: the
points each seat starts with, one number for all or one per seat (``0/5``), seat 0 first - the
title's start-bonus option (``seat_bonus_rule``), in points like the score.

Strategy: ``hold`` (``hold:n=25``) rolls until its turn total reaches ``n``, then holds.  Between
hold:20 and hold:25 the start bonus for seat 1 that evens the seats is 5-6 points.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from analyser.engine.core import TRACE_COLUMN, Game, Metric, Params, Scoring, Strategy, encode_trace, option
from analyser.engine.perseat import seat_values


@dataclass(frozen=True)
class PigParams(Params):
    target: int = option(100, "score that wins the moment a seat reaches it", low=2, high=1000)
    start_bonus: str = option("0", "points each seat starts with, one number for all or one per seat (0/5)")

    def validate(self) -> None:
        seat_values(self.start_bonus, name="start_bonus", low=0, high=1000)


class PigState:
    def __init__(self, n, target, bonus):
        self.n, self.target = n, target
        self.scores = list(bonus)
        self.current, self.turn_total, self.turns = 0, 0, 1
        self.history, self.over = [], False


class Pig(Game):
    id = "pig-bonus"
    name = "Pig with a start bonus"
    min_players, max_players, default_players = 2, 4, 2
    Params = PigParams
    scoring = Scoring(outcome="race", score_unit="points", length_unit="turns", seat_bonus_rule="start_bonus",
                      trace_unit="turns")
    metric_columns = ("turns", Metric(TRACE_COLUMN, "trace", missing=True))

    def check_players(self, params, n_players):
        super().check_players(params, n_players)
        seat_values(params.start_bonus, n_players, name="start_bonus", low=0, high=1000)

    def initial_state(self, params, n_players, rng):
        return PigState(n_players, params.target, seat_values(params.start_bonus, n_players, name="start_bonus"))

    def current_player(self, s):
        return s.current

    def legal_actions(self, s):
        if s.over:
            return []
        return ["roll", "hold"] if s.turn_total > 0 else ["roll"]

    def apply(self, s, action, rng):
        if action == "roll":
            face = rng.randint(1, 6)
            if face == 1:
                s.turn_total = 0
                self._next(s)
                return
            s.turn_total += face
            if s.scores[s.current] + s.turn_total >= s.target:
                s.scores[s.current] += s.turn_total
                s.turn_total = 0
                s.history.append(list(s.scores))
                s.over = True
        else:
            s.scores[s.current] += s.turn_total
            s.turn_total = 0
            self._next(s)

    def _next(self, s):
        s.history.append(list(s.scores))
        s.turns += 1
        s.current = (s.current + 1) % s.n

    def is_terminal(self, s):
        return s.over

    def scores(self, s):
        return list(s.scores)

    def view(self, s, seat):
        return s

    def metrics(self, s):
        trace = encode_trace(s.history, s.n)
        return [{"turns": s.turns, TRACE_COLUMN: trace[k]} for k in range(s.n)]

    def describe_state(self, s):
        return f"scores {s.scores}, seat {s.current} has {s.turn_total} this turn"


GAME = Pig()


class Hold(Strategy):
    """Rolls until the turn total reaches ``n`` points, then holds."""

    name = "hold"
    game = "pig-bonus"
    uses_rng = False

    def __init__(self, n: int = 20):
        self.n = n

    def choose(self, view, legal, rng):
        return "hold" if "hold" in legal and view.turn_total >= self.n else "roll"


STRATEGIES = [Hold]


class PlainPig(Pig):
    """The same Pig without a start-bonus option declared: no compensation can be replayed."""

    scoring = dataclasses.replace(Pig.scoring, seat_bonus_rule="")
