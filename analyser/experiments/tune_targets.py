"""The targets of ``analyser tune`` (docs/commands/tune.md defines each): parsing ``--target
NAME=GOAL`` and computing a target's figure with its 95% interval from one trial's games, with the
figures :mod:`analyser.stats.analysis` and :mod:`analyser.stats.designer` compute for any run."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from analyser.stats import analysis, designer
from analyser.engine.core import InputError, as_metric
from analyser.engine.errors import did_you_mean
from analyser.experiments.grid import NUMBER

#: Target names with their meaning (the title's own number columns are added per title).
VOCABULARY = {
    "seat_gap": "largest gap between two seats' win rates (percentage points)",
    "win_rate": "win rate of a strategy slot (%), win_rate:SPEC names the slot",
    "length": "mean game length (the title's length unit)",
    "skill_share": "share of within-game differences in who wins that the strategies explain (%)",
    "lead_changes": "mean changes of the sole leader per game",
    "ties": "games with a shared win (%)",
    "close_games": "games whose top two scores differ by at most the title's close margin (%)",
}

# --------------------------------------------------------------------------------------------
# Targets
# --------------------------------------------------------------------------------------------

@dataclass
class Target:
    """One ``--target``: ``text`` as written, figure ``name`` (``win_rate:threshold``), base name
    ``kind`` and its ``arg``, the ``goal`` (``min``, ``max``, ``value``, ``range``) with
    ``value`` or ``low``/``high``; ``slot`` for a win rate."""

    text: str
    name: str
    kind: str
    arg: str | None
    goal: str
    value: float = math.nan
    low: float = math.nan
    high: float = math.nan
    slot: int | None = None
    #: ``close_games``: the title's close margin in score units (``Game.scoring.close_margin``)
    margin: float | None = 1.0

    @property
    def is_objective(self) -> bool:
        return self.goal != "range"

    @property
    def direction(self) -> str:
        return "maximize" if self.goal == "max" else "minimize"

    def objective(self, v: float) -> float:
        return abs(v - self.value) if self.goal == "value" else v

    def violation(self, v: float) -> float:
        """How far ``v`` lies outside the range (0 inside; for a range target only)."""
        if self.goal != "range":
            return 0.0
        return max(0.0, self.low - v, v - self.high)

    def goal_text(self) -> str:
        return {"min": "as low as possible", "max": "as high as possible"}.get(
            self.goal, f"close to {self.value:g}" if self.goal == "value" else f"between {self.low:g} and {self.high:g}")


def title_figures(game) -> list[str]:
    """The title's own number columns a target may name (not the trace nor text labels)."""
    return [str(m) for m in map(as_metric, game.metric_columns)
            if m.kind in ("number", "count", "share", "whole") and str(m) != "turns"]


def parse_target(text: str, game, space) -> Target:
    """Parse one ``--target NAME=GOAL`` (InputError for an unknown name or a bad goal)."""
    name, sep, goal = text.partition("=")
    name, goal = name.strip(), goal.strip()
    own = title_figures(game)
    accepted = "seat_gap, win_rate[:SPEC], length, skill_share, lead_changes, ties, close_games" + \
        (", " + ", ".join(own) if own else "")
    if not sep or not name or not goal:
        raise InputError(f"malformed --target {text!r}; write NAME=min, NAME=max, NAME=VALUE or NAME=LOW..HIGH")
    kind, _, arg = name.partition(":")
    if kind not in VOCABULARY and kind not in own:
        raise InputError(f"unknown target {kind!r}{did_you_mean(kind, [*VOCABULARY, *own])}; accepted: {accepted}")
    if arg and kind != "win_rate":
        raise InputError(f"target {name!r}: only win_rate takes :SPEC")
    t = Target(text, name, kind, arg or None, "min")
    if goal in ("min", "max"):
        t.goal = goal
    elif ".." in goal:
        a, _, b = goal.partition("..")
        if not (NUMBER.match(a.strip()) and NUMBER.match(b.strip())):
            raise InputError(f"--target {text!r}: an empty or non-numeric range; write LOW..HIGH with numbers, e.g. 40..60")
        t.goal, t.low, t.high = "range", float(a), float(b)
        if t.low > t.high:
            raise InputError(f"--target {text!r}: the range runs backwards; write the smaller end first")
    elif NUMBER.match(goal):
        t.goal, t.value = "value", float(goal)
    else:
        raise InputError(f"--target {text!r}: the goal {goal!r} is not min, max, a number or a range LOW..HIGH")
    if kind == "win_rate":
        t.slot = _slot(arg, space) if arg else space.focus
    why = not_applying(game, space).get(kind)
    if why:
        raise InputError(f"target {kind} does not apply to {game.name}: {why}; targets that apply: "
                         + ", ".join(applying(game, space)))
    if kind == "close_games":
        t.margin = designer.Outcome.of(game).close_margin
    return t


def not_applying(game, space) -> dict[str, str]:
    """Target name -> why it does not apply to ``game`` with the lineup of ``space`` (the reasons
    the simulate report gives for leaving the same figure out)."""
    out = {}
    columns = [str(c) for c in game.metric_columns]
    outcome = designer.Outcome.of(game)
    if "turns" not in columns:
        out["length"] = "it records no game length (turns)"
    if "score_trace" not in columns:
        out["lead_changes"] = "it records no score trace, so it has no lead changes"
    elif not outcome.drama_applies:
        out["lead_changes"] = outcome.reason
    if not outcome.close_applies:
        out["close_games"] = outcome.close_reason
    if len({s.text for s in space.slots}) < 2:  # (threshold:limit=8..10 and threshold:limit=4 are two)
        out["skill_share"] = "it needs two strategies or more (-s A -s B)"
    return out


def applying(game, space) -> list[str]:
    """The target names that apply to ``game`` with the lineup of ``space``."""
    skip = not_applying(game, space)
    return [k for k in VOCABULARY if k not in skip] + title_figures(game)


def _slot(spec: str, space) -> int:
    texts = [s.text for s in space.slots]
    if spec.isdigit() and 1 <= int(spec) <= len(texts):
        return int(spec) - 1
    if spec in texts:
        return texts.index(spec)
    heads = [i for i, s in enumerate(space.slots) if s.head == spec or s.head.split(":")[-1] == spec]
    if len(heads) == 1:
        return heads[0]
    if len(heads) > 1:
        raise InputError(f"target win_rate:{spec}: {len(heads)} slots play {spec}; name one by position "
                         f"(win_rate:1 .. win_rate:{len(texts)}) or by the -s as written")
    raise InputError(f"target win_rate:{spec}: no -s is {spec!r}; accepted: {', '.join(texts)} or 1..{len(texts)}")


def _t_interval(x: np.ndarray) -> tuple[float, float, float]:
    from scipy import stats
    x = np.asarray(x, dtype=float)
    x = x[np.isfinite(x)]
    if not len(x):
        return math.nan, math.nan, math.nan
    m = float(x.mean())
    if len(x) < 2 or x.std(ddof=1) == 0:
        return m, m, m
    h = float(stats.t.ppf(0.975, len(x) - 1)) * float(x.std(ddof=1)) / math.sqrt(len(x))
    return m, m - h, m + h


def figure(df: pd.DataFrame, t: Target, specs: list[str]) -> tuple[float, float, float]:
    """Target ``t``'s figure on one trial's games ``df`` (its lineup ``specs``): ``(value, low,
    high)``, the 95% interval docs/commands/tune.md gives; NaN when the games cannot give it."""
    if not len(df):
        return math.nan, math.nan, math.nan
    if t.kind == "seat_gap":
        s = analysis.seat_balance(df)
        # the gap is the best seat's win rate less the worst's, never below 0: so is its interval
        lo = max(0.0, s["gap_low"]) if s["gap_low"] == s["gap_low"] else s["gap_low"]
        return s["gap"], lo, s["gap_high"]
    if t.kind == "win_rate":
        rows = df[df["strategy"].astype(str) == specs[t.slot]]
        m, lo, hi = analysis.win_rate_interval(rows)  # the simulate report's interval, never zero-width
        if lo != lo:
            lo = hi = m
        return 100 * m, 100 * lo, 100 * hi
    if t.kind == "length":
        return _t_interval(analysis.per_game(df)["turns"].to_numpy())
    if t.kind in ("ties", "close_games"):
        d = designer.decisiveness(df, t.margin)
        key = "tie" if t.kind == "ties" else "close"
        return 100 * d[f"{key}_rate"], 100 * d[f"{key}_low"], 100 * d[f"{key}_high"]
    if t.kind == "skill_share":
        ls = designer.luck_skill(df)
        if ls is None:
            return math.nan, math.nan, math.nan
        return 100 * ls["skill_share"], 100 * ls["skill_low"], 100 * ls["skill_high"]
    if t.kind == "lead_changes":
        dr = designer.drama_per_game(df)
        return _t_interval(dr["lead_changes"].to_numpy()) if dr is not None else (math.nan,) * 3
    values = df[t.kind].to_numpy(dtype=float)
    ok = np.isfinite(values)
    m, lo, hi = analysis.clustered_mean(values[ok], analysis.game_codes(df)[ok])
    return (m, lo, hi) if lo == lo else (m, m, m)
