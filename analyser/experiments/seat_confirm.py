"""Check a seat compensation by replaying it (``analyser simulate --confirm-seats``).

docs/commands/simulate.md (``--confirm-seats``) is the contract: the run's games are played again
(:func:`analyser.experiments.confirm.replay`) with the title's start-bonus rule option set to the
proposed compensation, and, where it misses the fair share, at most :data:`MORE_REPLAYS` more
replays bisect over whole values.
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


def proposal(comp) -> list[int]:
    """The start bonus per seat the compensation proposes (on top of the rule's own): each seat
    behind the fair share its handicap (a whole number), the others 0."""
    return [int(round(float(r.handicap))) if r.win_rate < r.fair_share and r.handicap == r.handicap else 0
            for r in comp.sort_values("seat").itertuples()]


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
    step = proposal(comp)
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
