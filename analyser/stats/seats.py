"""Seat figures beyond the seat table: the seat compensation, the seat finding
(:func:`seat_findings`) and how the seats were filled.  docs/metrics.md ("Seat advantage", "Seat
compensation") is the contract: per seat, the handicap on the score lattice whose win rate lies
closest to the fair share, with a percentile bootstrap over games (over :data:`BLOCKS` blocks,
``game_index mod BLOCKS``, in a larger run), from counts of ``(block, seat, d)`` that add up per
chunk of games (``d``: the seat's score minus the best other score).
"""

from __future__ import annotations

import math
import shlex
from dataclasses import dataclass

import numpy as np
import pandas as pd

from analyser.engine.errors import InputError
from analyser.engine.perseat import seat_values
from analyser.text import pct, phrase, signed

#: Blocks of games for the compensation bootstrap (``game_index mod BLOCKS``).
BLOCKS = 200
#: Bootstrap resamples for the compensation interval.
BOOTSTRAP = 200
#: Score differences are rounded to this many decimals before they are counted.
DIGITS = 9
#: A seat finding is clear when the seat-balance test gives p below this and the best-worst gap's
#: 95% interval lies above 0.
SEAT_P = 0.05


# --------------------------------------------------------------------------------------------
# Compensation: counts
# --------------------------------------------------------------------------------------------

def differences(scores: np.ndarray) -> np.ndarray:
    """Per game and seat (``scores``: games x seats), the seat's score minus the best score of
    the other seats."""
    scores = np.asarray(scores, dtype=float)
    best_other = np.column_stack([np.delete(scores, k, axis=1).max(axis=1) for k in range(scores.shape[1])])
    return np.round(scores - best_other, DIGITS)


def compensation_sums(game: np.ndarray, seat: np.ndarray, score: np.ndarray, win: np.ndarray, players: int,
                      game_index: np.ndarray) -> pd.DataFrame:
    """The additive sums of one chunk: per (``block``, ``seat``, ``diff``) the games (``count``)
    and, where ``diff`` is 0, the seat's win shares in them (``tie_win``).  ``game``: each row's
    game (0..G-1), ``seat``/``score``/``win`` per row, ``game_index`` per game.  Empty with fewer
    than two seats."""
    index = pd.MultiIndex.from_arrays([[], [], []], names=["block", "seat", "diff"])
    if players < 2 or not len(game):
        return pd.DataFrame({"count": [], "tie_win": []}, index=index)
    n_games = len(game_index)
    wide = np.zeros((n_games, players))
    wins = np.zeros((n_games, players))
    np.add.at(wide, (game, seat), score)
    np.add.at(wins, (game, seat), win)
    d = differences(wide)
    block = np.repeat(game_index % BLOCKS, players)
    frame = pd.DataFrame({"block": block, "seat": np.tile(np.arange(players), n_games), "diff": d.ravel(),
                          "count": 1.0, "tie_win": np.where(d == 0, wins, 0.0).ravel()})
    return frame.groupby(["block", "seat", "diff"], sort=True).sum()


# --------------------------------------------------------------------------------------------
# Compensation: from counts to handicaps
# --------------------------------------------------------------------------------------------

def _handicaps(counts: np.ndarray, tie_win: np.ndarray, values: np.ndarray, games: float, fair: float,
               race: bool) -> tuple[np.ndarray, np.ndarray]:
    """Per seat the handicap and the win rate there, from ``counts`` (seats x values: games with
    each score difference ``values``, ascending), ``tie_win`` (seats) and ``games``."""
    seats = counts.shape[0]
    h_out, w_out = np.full(seats, math.nan), np.full(seats, math.nan)
    if games <= 0:
        return h_out, w_out
    zero = np.flatnonzero(values == 0)
    above = counts[:, ::-1].cumsum(axis=1)[:, ::-1] - counts  # games with a larger difference
    for k in range(seats):
        ties = counts[k, zero[0]] if len(zero) else 0.0
        share = tie_win[k] / ties if ties > 0 else 0.5
        cand = -values                                        # h at which a recorded d ties
        win = (above[k] + share * counts[k]) / games
        if not len(zero):                                     # h = 0 is always a candidate
            cand = np.append(cand, 0.0)
            win = np.append(win, counts[k][values > 0].sum() / games)
        keep = cand >= 0 if race else np.ones(len(cand), dtype=bool)
        cand, win = cand[keep], win[keep]
        order = np.lexsort((np.abs(cand), np.abs(win - fair)))
        h_out[k], w_out[k] = cand[order[0]] + 0.0, win[order[0]]
    return h_out, w_out


def compensation_from_sums(sums: pd.DataFrame, players: int, kind: str = "highest score",
                           bootstrap: int = BOOTSTRAP, seed: int = 0) -> pd.DataFrame | None:
    """Per seat: ``win_rate`` (recorded), ``fair_share``, ``handicap`` (score units; the head
    start in a race) with ``handicap_low``/``handicap_high`` (bootstrap 95%, on the lattice),
    ``win_at_handicap`` and ``tie_share``; from :func:`compensation_sums` combined over chunks.
    None with no games, fewer than two seats, or ``kind == "other"``."""
    if sums is None or not len(sums) or players < 2 or kind == "other":
        return None
    s = sums.sort_index()
    blocks = s.index.get_level_values("block").unique().sort_values()
    values = np.sort(s.index.get_level_values("diff").unique().to_numpy(dtype=float))
    b_pos = blocks.get_indexer(s.index.get_level_values("block"))
    v_pos = np.searchsorted(values, s.index.get_level_values("diff").to_numpy(dtype=float))
    k_pos = s.index.get_level_values("seat").to_numpy(dtype=np.int64)
    arr = np.zeros((len(blocks), players, len(values)))
    ties = np.zeros((len(blocks), players))
    np.add.at(arr, (b_pos, k_pos, v_pos), s["count"].to_numpy(dtype=float))
    np.add.at(ties, (b_pos, k_pos), s["tie_win"].to_numpy(dtype=float))
    return _from_arrays(arr, ties, values, players, kind, bootstrap, seed)


def _from_arrays(arr, ties, values, players, kind, bootstrap, seed) -> pd.DataFrame:
    """The compensation table from per-unit counts (units x seats x values) and tie win shares
    (units x seats), resampling the units (blocks of games)."""
    fair = 1.0 / players
    race = kind == "race"
    per_unit = arr[:, 0, :].sum(axis=1)

    def at(w):
        counts = np.tensordot(w, arr, axes=1)
        return _handicaps(counts, w @ ties, values, float(w @ per_unit), fair, race)

    h, win_at = at(np.ones(len(arr)))
    counts = arr.sum(axis=0)
    games = float(per_unit.sum())
    zero = values == 0
    win0 = (counts[:, values > 0].sum(axis=1) + ties.sum(axis=0)) / games
    tie_n = counts[:, zero].sum(axis=1) if zero.any() else np.zeros(players)
    tie_share = np.where(tie_n > 0, ties.sum(axis=0) / np.where(tie_n > 0, tie_n, 1), math.nan)
    rng = np.random.default_rng(seed)
    nb = len(arr)
    reps = [at(np.bincount(rng.integers(0, nb, nb), minlength=nb).astype(float)) for _ in range(bootstrap)]
    rep = np.array([r[0] for r in reps]) if reps else np.full((1, len(h)), np.nan)
    cols = [col[~np.isnan(col)] for col in rep.T]
    lows = [float(np.percentile(col, 2.5, method="lower")) if len(col) else math.nan for col in cols]
    highs = [float(np.percentile(col, 97.5, method="higher")) if len(col) else math.nan for col in cols]
    out = pd.DataFrame({"seat": np.arange(len(h)), "win_rate": win0, "fair_share": fair, "handicap": h,
                        "handicap_low": lows, "handicap_high": highs, "win_at_handicap": win_at,
                        "tie_share": tie_share})
    out.attrs.update(kind=kind, games=int(games), bootstrap=bootstrap)
    return out


def assumption(kind: str, unit: str) -> str:
    """The assumption a compensation figure rests on, in one sentence."""
    if kind == "race":
        return (f"Head starts in {unit}, read from the recorded final scores: a seat that ended within h {unit} of "
                "the winner would have reached the target first with a head start of h. It assumes play would "
                "not change if the head start existed; the winner may overshoot the target, so the head start "
                "read this way is, if anything, too large.")
    return (f"Handicaps in {unit} added to a seat's final score, read from the recorded final scores: it assumes "
            "play would not change if the handicap existed. A handicap that ties the seat with its best "
            "opponent counts the seat's recorded tie-break share (half when it never tied).")


# --------------------------------------------------------------------------------------------
# Findings and notes
# --------------------------------------------------------------------------------------------

def handicap_text(row, unit: str, kind: str) -> str:
    """``+6 points (95% CI +4 to +8; win rate 49.8% there)`` for one seat of the compensation."""
    if row["handicap"] != row["handicap"]:
        return "n/a"
    if kind == "race" and row["handicap"] == 0 and row["win_rate"] >= row["fair_share"]:
        return "none (at or above the fair share; a head start goes to the seats behind)"
    return (f"{signed(row['handicap'], None)} {unit} (95% CI {signed(row['handicap_low'], None)} to "
            f"{signed(row['handicap_high'], None)}; win rate {pct(row['win_at_handicap'])} there)")


def _check_record(next_command: str, replay: dict | None = None, unit: str = "",
                  bonus: tuple[str, str] | None = None, plan: dict | None = None, word: str = "handicap") -> dict:
    """How the finding checks a compensation read from the recorded scores (play may change with
    it): ``kind`` ``replayed`` (``replay``, the record of a seat replay: :func:`_replay_record`),
    ``other unit`` (the start-bonus option ``bonus`` counts another unit than the score's, so the
    sweep shows how far it moves the gap), ``not replayed`` (``reason``), ``sweep`` or ``none``;
    ``plan``: the sweep's :func:`sweep_plan`.  ``seats.j2`` (``check``) says it."""
    r = {"word": word, "unit": unit, "what": bonus[1] if bonus and bonus[1] else unit, "plan": plan,
         "bonus": bonus[0] if bonus else ""}
    if replay and replay.get("replayed"):
        return {**r, "kind": "replayed", "replay": _replay_record(replay)}
    if bonus and next_command and bonus[1] and unit and bonus[1] != unit and not replay:
        return {**r, "kind": "other unit"}
    if replay:
        return {**r, "kind": "not replayed", "reason": replay.get("reason") or "the replay gave no figure"}
    return {**r, "kind": "sweep" if next_command else "none"}


def replay_verdict(tried: list[dict], fair: float, clear: bool) -> tuple[str | None, dict | None]:
    """``(evens, closest)`` of the values a seat replay played (``tried``: ``value``, ``t``, ``win``,
    ``low``, ``high``; ``t`` 0 is the run as played, the proposal the first with ``t`` above 0):
    ``evens`` the value that evens the seats - the proposal when ``clear``, else the bisection value
    nearest the fair share among those whose interval holds it - or None; ``closest`` (None when
    ``clear``) the value the finding names: that one, else the value nearest the fair share."""
    if clear:
        return next((r["value"] for r in tried if r["t"]), None), None
    near = lambda r: (abs(r["win"] - fair), r["t"])  # noqa: E731
    holds = [r for r in tried if r["t"] and r["low"] is not None and r["high"] is not None
             and r["low"] <= fair <= r["high"]]
    if holds:
        best = min(holds, key=near)
        return best["value"], best
    return None, (min(tried, key=near) if tried else None)


def _verdict(rep: dict) -> tuple[str | None, dict | None]:
    """``(evens, closest)`` of a replay record (:func:`replay_verdict`, as the replay recorded it)."""
    return (rep["value"] if rep.get("clear") else rep.get("evens")), rep.get("closest")


def _replay_record(rep: dict) -> dict:
    """A replayed compensation for ``seats.j2``: the ``seat``, ``option``, ``value`` and ``games``
    played, the seat's ``win`` rate with its interval against the ``fair`` share, ``clear``, or
    ``over`` and the value ``close`` the bisection names (``evened`` when it evens the seats), and
    the ``n`` values replayed besides the run as played."""
    evens, close = _verdict(rep)
    return {"seat": int(rep["seat"]), "option": rep["option"], "value": rep["value"], "games": int(rep["games"]),
            "win": rep["win"], "low": rep["low"], "high": rep["high"], "fair": rep["fair"],
            "clear": bool(rep.get("clear")), "over": rep.get("direction") == "over", "close": close,
            "evened": bool(close and evens and close.get("value") == evens), "n": len(rep.get("tried") or []) - 1}


@dataclass(frozen=True)
class SeatContext:
    """What a seat finding says beside the seat table: the score ``unit`` and the outcome
    ``kind``; ``reason``: why no compensation applies; ``next_command``: the ``analyser sweep``
    command that tests the compensation with real games, or "" (``bonus``: its option and what
    it counts, see :func:`_check_record`; ``sweep``: its :func:`sweep_plan`); ``replay``: the
    compensation replayed (``simulate --confirm-seats``), or None."""

    unit: str = "points"
    kind: str = "highest score"
    reason: str = ""
    next_command: str = ""
    replay: dict | None = None
    bonus: tuple[str, str] | None = None
    sweep: dict | None = None


def seat_findings(seats: pd.DataFrame, balance: dict, comp: pd.DataFrame | None,
                  ctx: SeatContext = SeatContext()) -> list[dict]:
    """The seat finding of a run, in the shape of :func:`analyser.stats.metagame.findings`: is a seat
    ahead (the seat table and its :func:`analyser.stats.analysis.seat_balance` record), how clear
    that is, and the compensation ``comp`` (:func:`compensation_from_sums`; None where it does not
    apply).  ``ctx``: the sweep that tests it and what a replay showed; where one was replayed,
    ``compensation_check`` is "clear" when the interval of the proposal or of a value the
    bisection played holds the fair share, else "not clear".  Words: ``sentences/seats.j2``."""
    unit, kind, reason, next_command = ctx.unit, ctx.kind, ctx.reason, ctx.next_command
    replay, bonus, sweep = ctx.replay, ctx.bonus, ctx.sweep
    threshold = phrase("seats.j2", "threshold", p=SEAT_P)
    if balance.get("best") is None:
        return [{"topic": "seat advantage", "strength": "none found", "threshold": threshold, "next": "",
                 "evidence": {"figure": "-", "interval": "-"}, "sentence": phrase("seats.j2", "too_few")}]
    r = seat_record(seats, balance)
    if comp is not None and r["strength"] != "none found":
        r["compensation"] = _compensation_record(comp, r["worst"], unit, kind,
                                                 _check_record(next_command, replay, unit, bonus,
                                                               _sweep_of(comp, sweep, next_command, unit, bonus),
                                                               _word(kind)))
    r.update(reason=reason if comp is None and r["strength"] != "none found" else "",
             not_replayed=(replay.get("reason") or "no figure") if replay is not None and not replay.get("replayed")
             and r["compensation"] is None else None)
    out = {"topic": "seat advantage", "strength": r["strength"], "sentence": phrase("seats.j2", "finding", r),
           "evidence": {"figure": phrase("seats.j2", "figure", r), "interval": phrase("seats.j2", "interval", r)},
           "threshold": threshold, "next": next_command if r["strength"] != "none found" else ""}
    if r["compensation"] is not None:
        _add_compensation(out, comp, replay)
    return [out]


def seat_record(seats: pd.DataFrame, balance: dict) -> dict:
    """The seat finding's figures: ``best``/``worst`` seat and their win rates, the ``fair`` share,
    the best seat's own 95% interval ``own`` (``(low, high)``, None where the table has none), the
    best-worst ``gap`` with its interval, the chi-square ``p`` and the ``strength``."""
    rate = seats.set_index("seat")["win_rate"]
    best, worst = balance["best"], balance["worst"]
    p, lo = balance["p"], balance["gap_low"]
    strength = "clear" if p < SEAT_P and lo > 0 else ("possible" if p < SEAT_P or lo > 0 else "none found")
    own = None
    if {"win_low", "win_high"} <= set(seats.columns):  # the seat's own interval, where the table has it
        row = seats.set_index("seat").loc[best]
        own = (row["win_low"], row["win_high"])
    return {"best": best, "worst": worst, "win_best": rate[best], "win_worst": rate[worst], "fair": 1.0 / len(rate),
            "own": own, "gap": balance["gap"], "gap_low": lo, "gap_high": balance["gap_high"], "p": p,
            "strength": strength, "seats": len(rate), "compensation": None}


def _word(kind: str) -> str:
    return "head start" if kind == "race" else "handicap"


def _sweep_of(comp: pd.DataFrame, sweep: dict | None, next_command: str, unit: str, bonus) -> dict | None:
    """The sweep plan the sentence names: ``sweep``, else read from ``comp`` where a sweep is offered."""
    if sweep is None and next_command:
        return _plan(comp, not bool(bonus and bonus[1] and bonus[1] != unit), None)
    return sweep


def _compensation_record(comp: pd.DataFrame, worst, unit: str, kind: str, check: dict) -> dict:
    """The compensation clause's figures: the ``word`` (handicap or head start), and per seat
    behind its handicap as text (``moved``: ``(seat, text)``) or, where the closest handicap is 0,
    its win rate (``still``: ``(seat, win rate at 0)``); ``check``: what the figure has not
    been (:func:`_check_record`).  At two seats only the worst seat is named."""
    behind = comp.set_index("seat").loc[[worst]] if len(comp) == 2 else \
        comp[comp["win_rate"] < comp["fair_share"]].set_index("seat")
    moved = behind[behind["handicap"] != 0]
    still = behind[behind["handicap"] == 0]  # a 0 handicap changes nothing: never said to even the seats
    return {"word": _word(kind), "unit": unit, "two": len(comp) == 2, "check": check,
            "moved": [(int(k), handicap_text(r, unit, kind)) for k, r in moved.iterrows()],
            "still": [(int(k), r["win_at_handicap"]) for k, r in still.iterrows()]}


def _add_compensation(out: dict, comp: pd.DataFrame, replay: dict | None) -> None:
    """The finding's ``compensation`` per seat, and what a replay of it showed."""
    out["compensation"] = {int(r["seat"]): {"handicap": float(r["handicap"]), "low": float(r["handicap_low"]),
                                            "high": float(r["handicap_high"])} for _, r in comp.iterrows()}
    if replay is not None:
        out["replay"] = replay
        if replay.get("replayed"):
            out["compensation_check"] = "clear" if _verdict(replay)[0] else "not clear"
            if replay.get("command"):
                out["next"] = replay["command"]  # the value the finding names, on the run's games


#: The sweep's multiples of each seat's handicap where the start bonus counts the score: up to
#: twice it, and three times where several seats are behind (each handicap is read one at a time,
#: the other seats unchanged; given to every seat behind at once, they may fall short).
FACTORS = (0.5, 1.0, 1.5, 2.0)
FACTORS_SEVERAL = FACTORS + (3.0,)
#: The sweep's start bonuses where the bonus counts another unit: doubling from 1, at least to 8
#: and on to the largest lead the run's own start bonus planted.
DOUBLING = (1, 2, 4, 8)


def _plan(comp: pd.DataFrame, same_unit: bool, base: tuple | None) -> dict | None:
    """The sweep's amounts: ``same_unit``, ``behind`` (the seats behind), ``amounts`` (the
    factors of the handicap, or the bonuses in the other unit) and ``cells`` (per cell the bonus
    added to each seat, the run as played first)."""
    behind = (comp["win_rate"] < comp["fair_share"]).to_numpy()
    if not behind.any():
        return None
    base = tuple(base) if base is not None else (0,) * len(behind)
    if same_unit:
        step = [max(1.0, abs(h)) if b else 0.0 for h, b in zip(comp["handicap"].fillna(1.0), behind)]
        amounts = FACTORS_SEVERAL if behind.sum() > 1 else FACTORS
        added = [[int(round(s * f)) if s else 0 for s in step] for f in amounts]
    else:
        lead = max(base) - min(base)
        amounts = list(DOUBLING)
        while amounts[-1] < lead:
            amounts.append(2 * amounts[-1])
        added = [[a if b else 0 for b in behind] for a in amounts]
    return {"same_unit": same_unit, "behind": int(behind.sum()), "amounts": tuple(amounts),
            "cells": [[0] * len(behind)] + added}


def sweep_plan(game, players: int, rules: dict, comp: pd.DataFrame | None) -> dict | None:
    """What :func:`sweep_command` plays (see :func:`_plan`; ``option`` and ``base``, the run's own
    value of the title's start-bonus option, are added), or None where it plays nothing."""
    option = game.scoring.seat_bonus_rule
    if not option or comp is None:
        return None
    try:
        base = seat_values(rules.get(option, "0"), players, name=option)
    except InputError:
        base = (0,) * players
    plan = _plan(comp, not game.scoring.seat_bonus_unit, base)
    return plan and {**plan, "option": option, "base": tuple(base)}


def sweep_command(game, strategies: list[str], players: int, rules: dict, games: int,
                  comp: pd.DataFrame | None, seed: int | str | None = None) -> str:
    """The ``analyser sweep`` command that tests a seat compensation with real games through the
    title's start-bonus option (``Game.scoring.seat_bonus_rule``), on the run's ``seed`` when
    given: the run's own value of the option first, then the bonuses of :func:`sweep_plan` added
    to it (docs/metrics.md, "Seat compensation").  "" when the title has no such option or no
    seat is behind."""
    plan = sweep_plan(game, players, rules, comp)
    if plan is None:
        return ""
    option, base = plan["option"], plan["base"]
    cells = ["/".join(str(b + a) for a, b in zip(added, base)) for added in plan["cells"]]
    cells = list(dict.fromkeys(cells))
    words = ["analyser", "sweep", game.source or game.id] + [w for s in strategies for w in ("-s", s)]
    words += ["--players", str(players), "--games", str(games)]
    if seed is not None and str(seed).isdigit():  # the run's own games: its first cell repeats the run
        words += ["--seed", str(seed)]
    words += [w for k, v in rules.items() if k != option for w in ("--rule", f"{k}={v}")]
    words += ["--rule", f"{option}={','.join(cells)}"]
    return " ".join(shlex.quote(w) for w in words)


def seating_note(strategies: int, players: int, player_games: dict[str, int]) -> str:
    """How the seats were filled, in one sentence: ``3 strategies at 4 seats: each strategy takes
    the extra seat in turn; each played 2,667 player-games`` (see :func:`analyser.engine.runner.lineup`).
    ``player_games``: strategy -> rows."""
    counts = sorted(set(player_games.values()))
    if strategies == 1:
        rule = f"one strategy in all {players} seats (a mirror match)"
    elif strategies == players:
        rule = f"{strategies} strategies at {players} seats: one seat each, rotating"
    elif players % strategies == 0:
        rule = f"{strategies} strategies at {players} seats: {players // strategies} seats each in every game, rotating"
    else:
        extra = players % strategies
        rule = (f"{strategies} strategies at {players} seats: each strategy takes "
                + ("the extra seat" if extra == 1 else f"one of the {extra} extra seats") + " in turn")
    if len(counts) == 1:
        return f"{rule}; each played {counts[0]:,} player-games"
    if counts[-1] - counts[0] <= max(1, 0.01 * counts[-1]):
        return f"{rule}; each played {counts[0]:,} to {counts[-1]:,} player-games (the last block of games was cut short)"
    listed = ", ".join(f"{name} {n:,}" for name, n in player_games.items())
    return f"{rule}; player-games were unequal: {listed}"
