"""Rock-paper-scissors as a title, for tests of the tournament's meta-game: a known cycle.

Two seats each throw once (seat 0 first, but seat 1's view does not show seat 0's throw, so the
throws are simultaneous in effect).  Paper beats rock, rock beats scissors, scissors beats paper;
the winner scores 1, the loser 0; equal throws score 0 each and share the win.

Rule option ``tremble``: the chance that a throw is replaced by one drawn uniformly from the game's
random stream (0 by default: pure strategies meet deterministically).  With a tremble the results
are noisy but the game stays symmetric, so its meta-game equilibrium is still one third each.

Strategies: ``rock``, ``paper`` and ``scissors`` always throw their move; ``stone`` is an exact
copy of ``rock`` under another name.
"""

from __future__ import annotations

from dataclasses import dataclass

from analyser.engine.core import Game, Params, Scoring, Strategy, encode_trace, option

MOVES = ("rock", "paper", "scissors")
BEATS = {"paper": "rock", "rock": "scissors", "scissors": "paper"}


@dataclass(frozen=True)
class RpsParams(Params):
    tremble: float = option(0.0, "chance that a throw is replaced by a uniformly random one", low=0.0, high=1.0)


class RpsState:
    def __init__(self, tremble: float):
        self.tremble = tremble
        self.throws: list[str | None] = [None, None]
        self.current = 0


class Rps(Game):
    id = "rps"
    name = "Rock-paper-scissors"
    min_players, max_players, default_players = 2, 2, 2
    Params = RpsParams
    metric_columns = ("turns", "score_trace")
    #: How games are won and measured: what the report's figures read (see Scoring).
    scoring = Scoring(
        trace_unit="throws")

    def initial_state(self, params, n_players, rng):
        return RpsState(params.tremble)

    def current_player(self, s):
        return s.current

    def legal_actions(self, s):
        return [] if s.current >= 2 else list(MOVES)

    def apply(self, s, action, rng):
        if s.tremble and rng.random() < s.tremble:
            action = MOVES[rng.randrange(3)]
        s.throws[s.current] = action
        s.current += 1

    def is_terminal(self, s):
        return s.current >= 2

    def scores(self, s):
        a, b = s.throws
        if a is None or b is None or a == b:
            return [0, 0]
        return [1, 0] if BEATS[a] == b else [0, 1]

    def view(self, s, seat):
        return {"seat": seat}  # the other seat's throw is never shown

    def metrics(self, s):
        trace = encode_trace([self.scores(s)], 2)
        return [{"turns": 1, "score_trace": trace[k]} for k in range(2)]

    def describe_state(self, s):
        return f"throws {s.throws}"


GAME = Rps()


class Rock(Strategy):
    """Always throw rock."""

    name = "rock"
    game = "rps"
    uses_rng = False
    move = "rock"

    def choose(self, view, legal, rng):
        return self.move


class Paper(Rock):
    """Always throw paper."""

    name = "paper"
    move = "paper"


class Scissors(Rock):
    """Always throw scissors."""

    name = "scissors"
    move = "scissors"


class Stone(Rock):
    """An exact copy of rock under another name."""

    name = "stone"


STRATEGIES = [Rock, Paper, Scissors, Stone]
