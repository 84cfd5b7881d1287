"""A toy title for tests of tournaments and drama: every seat picks a number from 1 to 6 once per
round for three rounds and scores it plus a die; the highest total wins (ties shared).  A strategy
that always picks ``k`` is stronger the larger ``k``: a planted strength order."""

from __future__ import annotations

from dataclasses import dataclass

from analyser.engine.core import Game, Params, Scoring, Strategy, encode_trace, option


@dataclass(frozen=True)
class ToyParams(Params):
    rounds: int = option(3, "rounds played", low=1, high=20)


class ToyState:
    def __init__(self, n, rounds):
        self.n, self.rounds = n, rounds
        self.round, self.current = 0, 0
        self.scores = [0] * n
        self.history = []


class Toy(Game):
    id = "toy"
    name = "Toy"
    min_players, max_players, default_players = 2, 6, 3
    Params = ToyParams
    metric_columns = ("turns", "score_trace")
    #: How games are won and measured: what the report's figures read (see Scoring).
    scoring = Scoring(
        trace_unit="rounds")

    def initial_state(self, params, n_players, rng):
        return ToyState(n_players, params.rounds)

    def current_player(self, s):
        return s.current

    def legal_actions(self, s):
        return [] if s.round >= s.rounds else [1, 2, 3, 4, 5, 6]

    def apply(self, s, action, rng):
        s.scores[s.current] += action + rng.randint(1, 6)
        s.current += 1
        if s.current == s.n:
            s.current = 0
            s.round += 1
            s.history.append(list(s.scores))

    def is_terminal(self, s):
        return s.round >= s.rounds

    def scores(self, s):
        return list(s.scores)

    def view(self, s, seat):
        return s

    def metrics(self, s):
        trace = encode_trace(s.history, s.n)
        return [{"turns": s.rounds, "score_trace": trace[k]} for k in range(s.n)]

    def describe_state(self, s):
        return str(s.scores)


GAME = Toy()


class Fixed(Strategy):
    """Always pick ``k``."""

    name = "fixed"
    game = "toy"
    uses_rng = False

    def __init__(self, k: int = 1):
        self.k = k

    def choose(self, view, legal, rng):
        return self.k


STRATEGIES = [Fixed]
