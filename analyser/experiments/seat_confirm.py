"""Check a seat compensation by replaying it (``analyser simulate --confirm-seats``).

The seat finding's compensation (:mod:`analyser.stats.seats`) is read from the recorded final
scores under the assumption that play would not change with it; it may (issue 28: a Pig head
start of +16 read that way left the first player at 42% when played).  The replay plays the run's
games again - the same root seed, so game ``i`` has the same game seed and seating
(:func:`analyser.experiments.confirm.replay`) - with the compensation given through the title's
start-bonus rule option (``Game.scoring.seat_bonus_rule``, e.g. a ``seat_bonus`` option), each seat behind
the fair share getting its handicap (rounded to a whole number) and the others nothing.

The figure is the win rate of the run's best seat in the replay, a mean of its per-game win
shares with a normal 95% interval (the games are independent).  The compensation is **clear**
when that interval holds the fair share (1/players).  Otherwise it *over-shoots* (the best seat
now wins less than its share) or *under-shoots* (still more), and a bisection over whole values
looks for the value that comes closest, at most :data:`MORE_REPLAYS` replays more:

* over-shooting, between 0 (the run itself: the recorded win rate) and the proposal;
* under-shooting, first twice the proposal; when that over-shoots, between the two.

With several seats behind, the bisection scales every seat's bonus together (the seat furthest
behind gets the value tried, the others their share of it, rounded).  Where the interval of a
value it played holds the fair share, that value evens the seats: the compensation is clear with
it (the nearest such value, when several do).  Otherwise the value whose replay's win rate lies
closest to the fair share is given with its figure.  Either way the finding's next command plays
the value it names, with the run's seed and game count.  The record goes into the run's
``config.json`` under ``seat_confirmations`` (run id -> record), where the report reads it; a run
that cannot be replayed (no start-bonus option, a bonus in another unit, no compensation) records
why, and the finding says it.
"""

from __future__ import annotations

import math
import shlex
from pathlib import Path

import numpy as np

from analyser.engine.perseat import seat_values
from analyser.experiments.confirm import replay, shares
from analyser.stats.components import Z95
from analyser.stats.seats import replay_verdict

#: Replays after the proposal's, at most (the bisection's budget).
MORE_REPLAYS = 4


def win_figure(a: np.ndarray, seat: int) -> dict:
    """``win``, ``low``, ``high``: the mean win share of ``seat`` over the games of ``a``
    (``games x players``) with a normal 95% interval, clipped to 0..1."""
    col = np.asarray(a, float)[:, seat]
    n = len(col)
    m = float(col.mean()) if n else math.nan
    se = float(col.std(ddof=1) / math.sqrt(n)) if n > 1 else math.nan
    return {"win": m, "low": max(0.0, m - Z95 * se), "high": min(1.0, m + Z95 * se)}


def proposal(comp, base: tuple[int, ...]) -> list[int]:
    """The start bonus per seat the compensation proposes on top of ``base``: each seat behind the
    fair share its handicap (a whole number), the others 0."""
    out = []
    for k, r in comp.sort_values("seat").reset_index(drop=True).iterrows():
        h = r["handicap"]
        behind = r["win_rate"] < r["fair_share"] and h == h
        out.append(int(round(float(h))) if behind else 0)
    return out


def scaled(step: list[int], t: int, base: tuple[int, ...]) -> str:
    """The rule value with the seat furthest behind at ``t`` and the others scaled with it."""
    top = max(step) if step else 0
    vals = [b + (int(round(s * t / top)) if top else 0) for s, b in zip(step, base)]
    return "/".join(str(v) for v in vals)


def _reason(game, comp, unit: str) -> str:
    option = game.scoring.seat_bonus_rule
    if not option:
        return "the title has no start-bonus rule option to replay a compensation with"
    other = game.scoring.seat_bonus_unit
    if other and other != unit:
        return (f"the title's start bonus ({option}) counts {other}, not {unit}, so a compensation read in "
                f"{unit} cannot be replayed with it")
    if comp is None:
        return "there is no score compensation to replay (the final score does not decide the winner)"
    return ""


def _command(spec, players: int, games: int, option: str, value: str) -> str:
    words = ["analyser", "simulate", spec.game]
    for s in spec.strategies:
        words += ["-s", s]
    words += ["--players", players, "--games", games, "--seed", spec.seed]
    for k, v in spec.rules.items():
        if k != option:
            words += ["--rule", f"{k}={v}"]
    words += ["--rule", f"{option}={value}"]
    return " ".join(shlex.quote(str(w)) for w in words)


def confirm_seats(out: Path, spec, progress: bool = False, more: int = MORE_REPLAYS) -> dict:
    """Replay the compensation of the run in ``out`` (played from ``spec``) and return its record:
    ``replayed`` False with a ``reason``, or True with ``option``, ``value``, ``seat`` (the best
    seat), ``fair``, ``games``, ``win``/``low``/``high`` (the replay), ``clear``, ``direction``
    ("over", "under" or ""), ``tried`` (every value played: ``value``, ``win``, ``low``,
    ``high``; the run itself as the value with no bonus), ``closest`` (one of ``tried``, when not
    clear: the one that evens the seats, else the nearest), ``evens`` (the value whose interval
    holds the fair share, or None; see
    :func:`analyser.stats.seats.replay_verdict`) and ``command`` (the ``analyser simulate``
    of the value the finding names - the proposal when clear, else ``closest`` - with the run's
    seed and game count)."""
    import pandas as pd

    from analyser.report.page import summarise_run
    from analyser.run import resolve

    summary = summarise_run(out)
    if len(summary.parts) != 1:
        return {"replayed": False, "reason": "the run has several variants"}
    part = summary.parts[0]
    game, params, players, _, _ = resolve(spec)
    comp = part.compensation
    reason = _reason(game, comp, game.scoring.score_unit)
    if reason:
        return {"replayed": False, "reason": reason}
    found = [f.to_json() if hasattr(f, "to_json") else f for f in part.findings.topic("seat advantage")]
    if found and found[0].get("strength") == "none found":
        return {"replayed": False, "reason": "no seat is clearly ahead, so no compensation is proposed"}
    balance = part.run.get("seats") or {}
    best = balance.get("best")
    if best is None:
        return {"replayed": False, "reason": "there are not enough games to judge the seats"}
    best = int(best)
    option = game.scoring.seat_bonus_rule
    base = seat_values(str(getattr(params, option)), players, name=option)
    step = proposal(comp, base)
    if not any(step):
        return {"replayed": False, "reason": "no whole-number compensation is proposed (every seat behind has a "
                                             "handicap of 0)"}
    results = pd.read_parquet(out / "results")
    games = int(results["game_index"].max()) + 1
    fair = 1.0 / players
    recorded = {"value": "/".join(str(b) for b in base), "t": 0,
                **win_figure(shares(results, games, players), best)}
    top = max(step)

    def play(t: int) -> dict:
        value = scaled(step, t, base)
        b = replay(spec, {option: value}, games, progress)
        return {"value": value, "t": t, **win_figure(shares(b.results, games, players), best)}

    first = play(top)
    tried = [recorded, first]
    clear = first["low"] <= fair <= first["high"]
    direction = "" if clear else ("over" if first["high"] < fair else "under")
    budget = more
    if direction == "under" and budget:
        double = play(2 * top)
        tried.append(double)
        budget -= 1
        lo, hi = (top, 2 * top) if double["win"] < fair else (None, None)
    elif direction == "over":
        lo, hi = 0, top
    else:
        lo = hi = None
    while lo is not None and budget and hi - lo > 1:
        mid = (lo + hi) // 2
        r = play(mid)
        tried.append(r)
        budget -= 1
        lo, hi = (mid, hi) if r["win"] > fair else (lo, mid)
    evens, closest = replay_verdict(tried, fair, clear)
    named = first if closest is None else closest
    record = {"replayed": True, "option": option, "value": first["value"], "seat": best, "fair": fair,
              "games": games, "win": first["win"], "low": first["low"], "high": first["high"], "clear": clear,
              "direction": direction, "tried": sorted(tried, key=lambda r: r["t"]), "closest": closest,
              "evens": evens, "command": _command(spec, players, games, option, named["value"])}
    return _finite(record)


def _finite(x):
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_finite(v) for v in x]
    return None if isinstance(x, float) and not math.isfinite(x) else x
