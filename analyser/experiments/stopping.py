"""The stopping rule ``--until-ci W``: play in rounds, stop once every win-rate interval is narrow.

A run of at most ``--games`` games is cut into rounds whose ends are fixed before anything is
played (:func:`round_ends`: they depend only on ``--games`` and the number of seats, never on
``--jobs``, the batch size or timing).  After each round the caller's check looks at the games so
far; when every reported 95% win-rate interval is at most ``W`` wide (in win-rate units: 0.05 =
5 percentage points), the run stops.  Because the rounds are fixed and game ``i`` is the same
game in any round, the games played - and so every number in the report - are identical for any
``--jobs``.

Each round is played with :func:`analyser.run.run` on games ``[a, b)`` (its
``first_game`` hook), and the rounds are joined with :func:`merge`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Sequence

import pandas as pd

from analyser.core import InputError

#: Number of rounds a run with a stopping rule is cut into (at most).
ROUNDS = 20
#: Fewest games in one round, before rounding up to a multiple of the seats.
MIN_ROUND = 200


def check_width(width: float | None) -> None:
    """InputError unless ``width`` is None or lies strictly between 0 and 1."""
    if width is None:
        return
    if not (isinstance(width, (int, float)) and math.isfinite(width) and 0 < width < 1):
        raise InputError(f"--until-ci {width} is not accepted; give an interval width between 0 and 1 "
                         "(exclusive), e.g. 0.04 for +/-2 percentage points")


def round_ends(games: int, players: int) -> list[int]:
    """The game counts after which the rule may stop: multiples of a round size that is a
    multiple of ``players`` - pass the lineup block (:func:`analyser.runner.lineup_block`: the
    number of seats, times more when the strategies share the seats unevenly) so that every
    strategy has played equally often in every seat - the last one being ``games``."""
    size = max(MIN_ROUND, math.ceil(games / ROUNDS))
    size = math.ceil(size / players) * players
    ends = list(range(size, games, size)) + [games]
    return ends


@dataclass
class Stop:
    """Why a run stopped: ``reason`` is one sentence for the report; ``rounds`` played,
    ``games`` per run, ``width`` the widest interval at the stop."""

    width_goal: float | None
    reason: str
    rounds: int = 1
    games: int = 0
    width: float = math.nan
    history: list[tuple[int, float]] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"until_ci": self.width_goal, "reason": self.reason, "rounds": self.rounds,
                "games": self.games, "widest_interval": None if math.isnan(self.width) else round(self.width, 5),
                "history": [[g, round(w, 5)] for g, w in self.history]}


def widest(frames: Sequence[pd.DataFrame]) -> float:
    """The widest 95% Wilson win-rate interval over the strategy and seat tables of each frame."""
    from analyser.analysis import seat_summary, strategy_summary

    out = 0.0
    for df in frames:
        if not len(df):
            return math.inf
        for table in (strategy_summary(df), seat_summary(df)):
            w = float((table["win_high"] - table["win_low"]).max())
            out = max(out, w if w == w else math.inf)
    return out


def play_rounds(games: int, players: int, width: float | None,
                play: Callable[[int, int], bool], measure: Callable[[], float]) -> Stop:
    """Drive the rounds.  ``play(a, b)`` plays games ``[a, b)`` of every run and returns False
    when a run failed or was interrupted (which stops at once); ``measure()`` gives the widest
    interval so far.  Without a ``width`` the whole run is one round."""
    if width is None:
        ok = play(0, games)
        return Stop(None, "all requested games were played" if ok else "the run failed or was interrupted",
                    1, games)
    start = 0
    stop = Stop(width, "", 0, 0)
    for end in round_ends(games, players):
        ok = play(start, end)
        stop.rounds += 1
        stop.games = end
        if not ok:
            stop.reason = "the run failed or was interrupted"
            return stop
        w = measure()
        stop.width = w
        stop.history.append((end, w))
        if w <= width:
            stop.reason = (f"every win-rate interval was at most {width:g} wide after {end:,} games "
                           f"(widest {w:.4f}); stopped early" if end < games else
                           f"every win-rate interval was at most {width:g} wide at the last round "
                           f"({end:,} games, widest {w:.4f})")
            return stop
        start = end
    stop.reason = (f"reached --games {games:,} before every win-rate interval was at most {width:g} wide "
                   f"(widest {stop.width:.4f})")
    return stop


def _same_run(frame: pd.DataFrame, first: pd.DataFrame) -> pd.DataFrame:
    if "run_id" in frame.columns and "run_id" in first.columns and len(first):
        frame = frame.copy()
        frame["run_id"] = pd.Categorical([str(first["run_id"].iloc[0])] * len(frame))
    return frame


def merge(parts: list) -> "object":
    """Join the :class:`~analyser.run.RunResult` of consecutive rounds of one run."""
    from analyser.run import RunResult

    parts = [p for p in parts if p is not None]
    if not parts:
        return None
    if len(parts) == 1:
        return parts[0]
    # the rounds are one run: they keep the first round's run id
    frames = [_same_run(p.results, parts[0].results) for p in parts if len(p.results)]
    df = pd.concat(frames, ignore_index=True) if frames else parts[0].results
    if frames:
        for c in parts[0].results.columns:
            if isinstance(parts[0].results[c].dtype, pd.CategoricalDtype):
                cats = list(dict.fromkeys(x for f in frames for x in f[c].cat.categories))
                df[c] = pd.Categorical(df[c].astype(object), categories=cats)
    extras: dict[str, pd.DataFrame] = {}
    for p in parts:
        for name, frame in p.extras.items():
            frame = _same_run(frame, parts[0].results)
            extras[name] = pd.concat([extras[name], frame], ignore_index=True) if name in extras else frame
    config = dict(parts[-1].config)
    # one run: the first round's id (the rows carry it) and first game
    for key in ("run_id", "first_game", "started"):
        if key in parts[0].config:
            config[key] = parts[0].config[key]
    if len(df):
        config["games_done"] = [[int(df["game_index"].min()), int(df["game_index"].max()) + 1]]
    config["games_completed"] = int(df["game_index"].nunique()) if len(df) else 0
    config["wall_seconds"] = round(sum(p.config.get("wall_seconds", 0) for p in parts), 3)
    config["started"] = parts[0].config.get("started")
    error = next((p.error for p in parts if p.error is not None), None)
    interrupted = any(p.interrupted for p in parts)
    return RunResult(df, extras, config, error, interrupted)


class StopPlaying(KeyboardInterrupt):
    """Ctrl-C while the runs of a sweep or tournament were spread over worker processes:
    ``results`` holds the runs that finished before it, in order (a prefix of the runs)."""

    def __init__(self, results: list):
        super().__init__()
        self.results = results


@dataclass
class Played:
    """The runs of a sweep or tournament after :func:`play_specs`: ``merged[k]`` is run ``k``'s
    joined :class:`~analyser.run.RunResult` (None for a run never reached after a
    failure or Ctrl-C), ``stop`` why play stopped, the first ``error``, whether it was
    ``interrupted``, and the wall ``seconds`` of play."""

    merged: list
    stop: Stop
    error: BaseException | None
    interrupted: bool
    seconds: float


def play_specs(specs: list, games: int, players: int, width: float | None, jobs: int, command: str,
               measure: Callable[[list], float], *, progress: bool | None, desc: str, what: str) -> Played:
    """Play every run spec of a sweep (cells) or a tournament (tables) in rounds (see
    :func:`play_rounds`), with a progress bar when ``progress`` is True, and when it is None
    only if stderr is a terminal (tqdm's ``disable=None``, as :func:`analyser.run.run`:
    a log redirected to a file gets no bar).  ``measure(parts)`` gives the
    widest interval from the rounds played so far (``parts[k]``: run ``k``'s RunResults).
    Ctrl-C keeps the runs that finished before it (``interrupted``); with none finished it is
    raised again.  ``what`` names the runs in the stop reason ("cells", "tables")."""
    import sys
    import time

    t0 = time.perf_counter()
    parts: list[list] = [[] for _ in specs]
    bar = None
    if progress is not False:
        from tqdm.auto import tqdm
        bar = tqdm(total=games * len(specs), unit="game", desc=desc, leave=False, file=sys.stderr,
                   disable=None if progress is None else not progress)

    def play(a: int, b: int) -> bool:
        try:
            results = play_many(specs, a, b, jobs, command,
                                on_done=(lambda k, n: bar.update(n)) if bar is not None else None)
        except StopPlaying as e:
            for k, r in enumerate(e.results):
                parts[k].append(r)
            raise
        for k, r in enumerate(results):
            parts[k].append(r)
        return len(results) == len(specs) and all(r.error is None and not r.interrupted for r in results)

    user_stop = False
    try:
        stop = play_rounds(games, players, width, play, lambda: measure(parts))
    except KeyboardInterrupt:  # Ctrl-C: the runs finished so far are kept and written
        if not any(parts):
            raise
        user_stop = True
        stop = Stop(width, f"interrupted (Ctrl-C); the {what} that finished before it are kept", 0, 0)
    finally:
        if bar is not None:
            bar.close()
    seconds = time.perf_counter() - t0
    merged = [merge(p) for p in parts]
    error = next((m.error for m in merged if m is not None and m.error is not None), None)
    interrupted = user_stop or any(m.interrupted for m in merged if m is not None)
    return Played(merged, stop, error, interrupted, seconds)


def _run_one(spec, command: str):
    from analyser.run import run
    return run(spec, progress=False, command=command)


def validate(game, specs: list, players: int) -> None:
    """Check every run of a sweep or tournament before any is played, cheaply: each distinct
    strategy spec is built once and each distinct rule set checked against the player count
    (InputError)."""
    from analyser.registry import make_strategy, title_ref

    for text in dict.fromkeys(s for sp in specs for s in sp.strategies):
        make_strategy(text, title_ref(game))
    for rules in dict.fromkeys(tuple(sorted(sp.rules.items())) for sp in specs):
        game.check_players(game.Params.from_overrides(dict(rules)), players)


def play_many(specs: list, a: int, b: int, jobs: int, command: str = "", on_done=None) -> list:
    """Play games ``[a, b)`` of every run spec and return their RunResults in order.

    With at least two runs per worker, whole runs go to ``jobs`` worker processes (each run plays
    its games in one process: a run of a sweep or a tournament is short, and starting workers
    inside every run would cost more than the games); otherwise the runs are played one after
    the other, each with ``jobs`` workers.  The games, and so the results, are the same either
    way.  ``on_done(k, games)`` is called as each run finishes (for a progress bar).
    """
    import dataclasses

    import joblib

    parts = [dataclasses.replace(sp, games=b, first_game=a, rules=dict(sp.rules)) for sp in specs]
    if jobs > 1 and len(parts) >= 2 * jobs:
        # one batch per run: each batch rebuilds its strategies from their specs, which costs more
        # than a short run's games when repeated (the batch size never changes the results)
        one = [dataclasses.replace(sp, jobs=1, batch_size=sp.batch_size or (b - a)) for sp in parts]
        out = []
        try:
            with joblib.Parallel(n_jobs=jobs, return_as="generator") as parallel:
                for k, r in enumerate(parallel(joblib.delayed(_run_one)(sp, command) for sp in one)):
                    r.config["jobs"] = jobs
                    out.append(r)
                    if on_done is not None:
                        on_done(k, b - a)
        except KeyboardInterrupt:  # keep the runs that finished: the caller writes them
            raise StopPlaying(out) from None
        return out
    out = []
    for k, sp in enumerate(parts):
        if jobs == 1:  # one process: one batch, so the strategies are built once
            sp = dataclasses.replace(sp, batch_size=sp.batch_size or (b - a))
        r = _run_one(sp, command)
        out.append(r)
        if on_done is not None:
            on_done(k, b - a)
        if r.error is not None or r.interrupted:
            break
    return out
