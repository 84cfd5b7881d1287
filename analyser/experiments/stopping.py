"""The stopping rule ``--until-ci W``: play in rounds, stop once every win-rate interval is narrow.

docs/commands/until-ci.md is the contract.  The round ends are fixed before anything is played
(:func:`round_ends`: they depend only on ``--games`` and the seats), so the games played are the
same for any ``--jobs``.  Each round extends the run folder of every run to the round's end, and
the record (:meth:`Stop.as_dict`) is written after each round, so a resumed run skips the rounds
its record has measured.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Sequence

import pandas as pd

from analyser.engine.core import InputError
from analyser.engine.registry import make_strategy, title_ref
from analyser.stats.analysis import seat_summary, strategy_summary
from analyser.text import fixed

#: Number of rounds a run with a stopping rule is cut into (at most).
ROUNDS = 20
#: Fewest games in one round, before rounding up to a multiple of the seats.
MIN_ROUND = 200


def check_width(width: float | None) -> None:
    """InputError unless ``width`` is None or lies strictly between 0 and 1."""
    if width is not None and not (isinstance(width, (int, float)) and math.isfinite(width) and 0 < width < 1):
        raise InputError(f"--until-ci {width} is not accepted; give an interval width between 0 and 1 "
                         "(exclusive), e.g. 0.04 for +/-2 percentage points")


def round_ends(games: int, players: int) -> list[int]:
    """The game counts after which the rule may stop: multiples of a round size that is a
    multiple of ``players`` - pass the lineup block (:func:`analyser.engine.runner.lineup_block`: the
    number of seats, times more when the strategies share the seats unevenly) so that every
    strategy has played equally often in every seat - the last one being ``games``."""
    size = max(MIN_ROUND, math.ceil(games / ROUNDS))
    size = math.ceil(size / players) * players
    return list(range(size, games, size)) + [games]


@dataclass
class Stop:
    """Why a run stopped: ``reason`` is one sentence for the report; ``rounds`` played,
    ``games`` per run, ``width`` the widest interval at the stop, ``history`` the ``(games,
    widest interval)`` after each round, ``decided`` whether the rule has stopped (False while
    rounds remain, or when play was cut short)."""

    width_goal: float | None
    reason: str
    rounds: int = 1
    games: int = 0
    width: float = math.nan
    history: list[tuple[int, float]] = field(default_factory=list)
    max_games: int | None = None
    decided: bool = False

    @classmethod
    def from_dict(cls, record: dict | None) -> "Stop":
        """The Stop a record written by :meth:`as_dict` describes (an empty one for none)."""
        record = record if isinstance(record, dict) else {}

        def number(key, kind):
            v = record.get(key)
            return kind(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) else None

        width = number("widest_interval", float)
        goal = number("until_ci", float)
        history = recorded_history(record)
        return cls(goal, str(record.get("reason") or "")[:500], len(history) if goal is not None else
                   (number("rounds", int) or 0), number("games", int) or 0, math.nan if width is None else width,
                   history, number("max_games", int), record.get("decided") is True)

    def as_dict(self) -> dict:
        return {"until_ci": self.width_goal, "reason": self.reason, "rounds": self.rounds,
                "games": self.games, "widest_interval": None if math.isnan(self.width) else round(self.width, 5),
                "history": [[g, round(w, 5)] for g, w in self.history], "max_games": self.max_games,
                "decided": self.decided}


def recorded_history(record) -> list[tuple[int, float]]:
    """The ``(games, widest interval)`` rounds of a stopping record written by :meth:`Stop.as_dict`
    (empty when there is none), for resuming."""
    if not isinstance(record, dict) or not isinstance(record.get("history"), list):
        return []
    out = []
    for item in record["history"]:
        try:
            out.append((int(item[0]), float(item[1])))
        except (TypeError, ValueError, IndexError, KeyError):
            break
    return out


def widest(frames: Sequence[pd.DataFrame]) -> float:
    """The widest 95% Wilson win-rate interval over the strategy and seat tables of each frame."""
    out = 0.0
    for df in frames:
        if not len(df):
            return math.inf
        for table in (strategy_summary(df), seat_summary(df)):
            w = float((table["win_high"] - table["win_low"]).max())
            out = max(out, w if w == w else math.inf)
    return out


def play_rounds(games: int, players: int, width: float | None,
                play: Callable[[int, int], bool], measure: Callable[[int], float], *,
                history: Sequence[tuple[int, float]] = (), on_round: Callable[[Stop], None] | None = None) -> Stop:
    """Drive the rounds.  ``play(a, b)`` makes every run complete up to game ``b`` (the round
    covers games ``[a, b)``; a resumed run also plays what it lacks before ``a``) and returns
    False when a run failed or was interrupted (which stops at once); ``measure(b)`` gives the
    widest interval over games ``0`` to ``b - 1``.  Without a ``width`` the whole run is one round.

    ``history``: the rounds a resumed run has measured already (from its record): they are not
    measured again, and play goes on at the next round.  ``on_round(stop)`` is called after each
    measured round (to write the record).  A history that does not fit the round ends of
    ``games`` and ``players`` is ignored (every round is measured again)."""
    if width is None:
        ok = play(0, games)
        return Stop(None, "all requested games were played" if ok else "the run failed or was interrupted",
                    1, games, max_games=games, decided=ok)
    ends = round_ends(games, players)
    history = list(history)
    if [g for g, _ in history] != ends[:len(history)] or len(history) >= len(ends):
        history = []
    stop = Stop(width, "", len(history), history[-1][0] if history else 0,
                history[-1][1] if history else math.nan, list(history), games)
    start = stop.games
    for end in ends[len(history):]:
        if not play(start, end):
            stop.reason = "the run failed or was interrupted"
            return stop
        w = measure(end)
        stop.rounds, stop.games, stop.width = stop.rounds + 1, end, w
        stop.history.append((end, w))
        if w <= width:
            stop.reason = (f"every win-rate interval was at most {width:g} wide after {end:,} games "
                           f"(widest {fixed(w, 4)}); stopped early" if end < games else
                           f"every win-rate interval was at most {width:g} wide at the last round "
                           f"({end:,} games, widest {fixed(w, 4)})")
            stop.decided = True
        elif end == games:
            stop.reason = (f"reached --games {games:,} before every win-rate interval was at most {width:g} wide "
                           f"(widest {fixed(stop.width, 4)})")
            stop.decided = True
        if on_round is not None:
            on_round(stop)
        if stop.decided:
            return stop
        start = end
    return stop


def validate(game, specs: list, players: int) -> None:
    """Check every run of a sweep or tournament before any is played, cheaply: each distinct
    strategy spec is built once and each distinct rule set checked against the player count
    (InputError)."""
    for text in dict.fromkeys(s for sp in specs for s in sp.strategies):
        make_strategy(text, title_ref(game))
    for rules in dict.fromkeys(tuple(sorted(sp.rules.items())) for sp in specs):
        game.check_players(game.Params.from_overrides(dict(rules)), players)
