"""Designer metrics for every title: drama, luck against skill, decisiveness (docs/metrics.md,
"Designer metrics").  Each figure reads what the title declares about its outcome
(:class:`Outcome`); one that does not fit is left out with its reason (``attrs["left_out"]`` of
:func:`designer_rows`), never shown as a number.  Drama reads the score trace
(:data:`analyser.engine.core.TRACE_COLUMN`) of a title that records it.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from dataclasses import dataclass

from analyser.engine.traces import flatten
from analyser.stats.analysis import game_keys, per_game, percent, percent_ci, wilson
from analyser.engine.core import OUTCOMES, TRACE_COLUMN, InputError, Scoring
from analyser.text import amount, fixed, pct

#: Bootstrap resamples for the luck-skill interval.
BOOTSTRAP = 200
#: The Wald test of the strategy contrasts below which the skill share's interval may leave 0.
SKILL_TEST = 0.05


# --------------------------------------------------------------------------------------------
# What the title declares about its outcome
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Outcome:
    """Which figures fit a title, read from what it declares about its outcome: its
    ``Game.scoring`` (:class:`~analyser.engine.schema.Scoring`: the outcome, the units, the
    close-game margin and the notes).  :meth:`of` takes it from a title."""

    scoring: Scoring = Scoring()

    @classmethod
    def of(cls, game) -> "Outcome":
        """The declarations of ``game`` (a title instance or class; None: the defaults).  Raises
        InputError for an ``outcome`` that is not one of :data:`analyser.engine.core.OUTCOMES`."""
        if game is None:
            return cls()
        if isinstance(game, Outcome):
            return game
        kind = game.scoring.outcome
        if kind not in OUTCOMES:
            raise InputError(f"title {getattr(game, 'id', '?')!r} declares outcome={kind!r}; "
                             f"a title declares one of: {', '.join(OUTCOMES)}")
        return cls(game.scoring)

    @property
    def kind(self) -> str:
        """``scoring.outcome``: "highest score", "race" or "other"."""
        return self.scoring.outcome

    @property
    def close_margin(self) -> float | None:
        """``scoring.close_margin`` as a float (score units), or None."""
        margin = self.scoring.close_margin
        return None if margin is None else float(margin)

    @property
    def score_decides(self) -> bool:
        """The highest final score wins."""
        return self.scoring.score_decides

    @property
    def reason(self) -> str:
        """Why the figures that read score differences do not fit this title (one phrase)."""
        if self.scoring.outcome_note:
            return self.scoring.outcome_note.rstrip(".")
        if self.kind == "race":
            return ("a race: the first seat to reach the target wins and the game stops, so the other seats' "
                    f"{self.scoring.score_unit} say how far they got, not how well they played")
        return f"the title's winner is not the seat with the most {self.scoring.score_unit}"

    @property
    def close_applies(self) -> bool:
        return self.kind != "other" and self.close_margin is not None

    @property
    def close_reason(self) -> str:
        if self.kind == "other":
            return self.reason
        return (self.scoring.close_note or "the title declares no close-game margin").rstrip(".")

    @property
    def drama_applies(self) -> bool:
        """Lead changes, lead for good and deficit read the score trace as a race for the lead."""
        return self.kind != "other"


# --------------------------------------------------------------------------------------------
# Decisiveness
# --------------------------------------------------------------------------------------------

def decisiveness(df: pd.DataFrame, margin: float | None = 1.0) -> dict:
    """``tie_rate`` and ``close_rate`` (top-two margin <= ``margin``, in score units; NaN when
    ``margin`` is None) with Wilson 95% intervals, ``margin`` and ``games``."""
    g = per_game(df)
    n = len(g)
    tie = float(g["tie"].mean()) if n else math.nan
    close = float((g["margin"] <= margin + MARGIN_TOL).mean()) if n and margin is not None else math.nan
    tl, th = wilson(tie, n)
    cl, ch = wilson(close, n) if close == close else (math.nan, math.nan)
    return {"games": n, "tie_rate": tie, "tie_low": tl, "tie_high": th, "margin": margin,
            "close_rate": close, "close_low": cl, "close_high": ch}


#: Slack when comparing a score margin with the close margin (scores that are sums of fractions).
MARGIN_TOL = 1e-9


# --------------------------------------------------------------------------------------------
# Drama
# --------------------------------------------------------------------------------------------

def drama_per_game(df: pd.DataFrame) -> pd.DataFrame | None:
    """One row per game: keys, ``lead_changes``, ``lead_for_good_at``, ``deficit_overcome``
    (:func:`drama_arrays`); None when the title records no score trace."""
    if TRACE_COLUMN not in df.columns or not df[TRACE_COLUMN].notna().any():
        return None
    keys = game_keys(df)
    d = df.sort_values(keys + ["seat"], kind="stable")
    players = int(d["players"].iloc[0]) if "players" in d.columns else int(d["seat"].max()) + 1
    out = d[keys].iloc[::players].reset_index(drop=True)
    changes, good, deficit = drama_arrays(d[TRACE_COLUMN].to_numpy(dtype=object), d["win"].to_numpy(dtype=float),
                                          players)
    return out.assign(lead_changes=changes, lead_for_good_at=good, deficit_overcome=deficit)


def drama_arrays(traces: np.ndarray, wins: np.ndarray, players: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The drama of many games at once.  ``traces``/``wins``: one entry per row, the
    rows of a game together in seat order (``players`` rows per game); a trace is a list or array
    of numbers, or its text form (:mod:`analyser.engine.traces`), or missing (empty).  Returns per game
    ``(lead_changes, lead_for_good_at, deficit_overcome)`` as arrays (docs/metrics.md, "Drama"; the
    last two NaN for a shared win or an empty trace).  A game's trace is as long as its shortest
    seat's."""
    n_games = len(traces) // players
    counts, flat = flatten(traces)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    per_game = counts.reshape(n_games, players)
    steps = per_game.min(axis=1)
    width = int(steps.max()) if n_games else 0
    trace = np.full((n_games, max(width, 1), players), -np.inf)
    step_idx = np.arange(max(width, 1))
    valid = step_idx[None, :] < steps[:, None]                                  # games x steps
    for k in range(players):
        row_start = starts.reshape(n_games, players)[:, k]
        pos = row_start[:, None] + step_idx[None, :]
        trace[:, :, k] = np.where(valid, flat[np.minimum(pos, max(len(flat) - 1, 0))] if len(flat) else 0.0, -np.inf)
    top = trace.max(axis=2)
    sole = (trace == top[:, :, None]).sum(axis=2) == 1
    leader = np.where(sole & valid, trace.argmax(axis=2), -1)
    # lead changes: consecutive sole leaders (ties skipped) that differ
    g_of, s_of = np.nonzero(leader >= 0)
    seq = leader[g_of, s_of]
    same_game = g_of[1:] == g_of[:-1]
    changes = np.bincount(g_of[1:][same_game & (seq[1:] != seq[:-1])], minlength=n_games).astype(np.int64)
    win_mat = wins.reshape(n_games, players) > 0
    single = (win_mat.sum(axis=1) == 1) & (steps > 0)
    w = win_mat.argmax(axis=1)
    leads = (leader == w[:, None]) & valid
    last = np.maximum(steps - 1, 0)
    leads_last = leads[np.arange(n_games), last]
    not_leading = valid & ~leads
    first = (np.where(not_leading, step_idx[None, :] + 1, 0)).max(axis=1)     # one past the last step not led
    good = np.where(leads_last, first / np.maximum(steps, 1), 1.0)
    own = np.take_along_axis(trace, w[:, None, None].repeat(trace.shape[1], axis=1), axis=2)[:, :, 0]
    others = trace.copy()
    others[np.arange(n_games), :, w] = -np.inf
    if players > 1:
        with np.errstate(invalid="ignore"):  # steps past a game's end hold -inf on both sides
            gap = np.where(valid, others.max(axis=2) - own, -np.inf)
        deficit = np.maximum(0.0, gap.max(axis=1))
    else:
        deficit = np.zeros(n_games)
    good = np.where(single, good, np.nan)
    deficit = np.where(single, deficit, np.nan)
    return changes, good.astype(float), deficit.astype(float)


def drama_summary(df: pd.DataFrame) -> dict | None:
    """Means across games (and the share of games with a lead change, the 90th percentile of the
    deficit overcome); None when no trace is recorded."""
    g = drama_per_game(df)
    if g is None or not len(g):
        return None
    return {"games": len(g),
            "lead_changes": float(g["lead_changes"].mean()),
            "any_lead_change": float((g["lead_changes"] > 0).mean()),
            "lead_for_good_at": float(g["lead_for_good_at"].mean()),
            "deficit_overcome": float(g["deficit_overcome"].mean()),
            "deficit_p90": float(g["deficit_overcome"].quantile(0.9)) if g["deficit_overcome"].notna().any() else math.nan,
            "deficit_max": float(g["deficit_overcome"].max())}


# --------------------------------------------------------------------------------------------
# Luck against skill
# --------------------------------------------------------------------------------------------

def _skill_fit(y, game, strat, n_games, n_strats, weights) -> tuple[float, np.ndarray]:
    """Partial eta squared of the strategy with the game as block, with per-game weights, and the
    strategies' fitted effects (minimum-norm least squares, so they sum to 0)."""
    w_row = weights[game]
    wsum_g = np.bincount(game, weights=w_row, minlength=n_games)
    ok = wsum_g > 0

    def centred(v):  # v minus its game's weighted mean
        mean_g = np.zeros(n_games)
        mean_g[ok] = np.bincount(game, weights=w_row * v, minlength=n_games)[ok] / wsum_g[ok]
        return v - mean_g[game]

    yw = centred(y)
    X = np.column_stack([centred((strat == k).astype(float)) for k in range(n_strats)])
    xx = (X * w_row[:, None]).T @ X
    xy = (X * w_row[:, None]).T @ yw
    return share_from_normal(xx, xy, float(np.sum(w_row * yw ** 2)))


def share_from_normal(xx: np.ndarray, xy: np.ndarray, yy: float) -> tuple[float, np.ndarray]:
    """The skill share and the strategies' effects from the within-game normal equations
    ``X'X``, ``X'y`` and ``y'y`` (the strategy indicators and the outcome centred on each game's
    means): ``beta' X'X beta / y'y`` with ``beta`` the minimum-norm solution of
    ``X'X beta = X'y``."""
    beta = np.linalg.pinv(xx, rcond=1e-10, hermitian=True) @ xy
    ss_strat = float(beta @ xx @ beta)
    return (ss_strat / yy if yy > 1e-12 else math.nan), beta


def skill_interval(point: float, reps: list[tuple[float, np.ndarray]], beta: np.ndarray) -> dict:
    """The skill share's 95% interval from bootstrap replicates ``(share, effects)``: the
    percentile interval, with its lower end 0 when the Wald test of the strategy contrasts
    (effect of each strategy minus the first's, covariance from the replicates) gives
    p >= :data:`SKILL_TEST` (module docstring).  Returns ``skill_low``, ``skill_high``, ``p``."""
    from scipy import stats

    finite = [r for r, _ in reps if math.isfinite(r)]  # an outcome that never varies has no skill share
    if not finite or point != point:
        return {"skill_low": math.nan, "skill_high": math.nan, "p": math.nan}
    lo, hi = np.percentile(finite, [2.5, 97.5])
    contrasts = np.array([b[1:] - b[0] for r, b in reps if math.isfinite(r)])
    d = beta[1:] - beta[0]
    p = math.nan
    if len(contrasts) > 2 and len(d):
        cov = np.atleast_2d(np.cov(contrasts, rowvar=False))
        rank = int(np.linalg.matrix_rank(cov, tol=1e-12 * max(1.0, float(np.abs(cov).max()))))
        if rank:
            wald = float(d @ np.linalg.pinv(cov, rcond=1e-10, hermitian=True) @ d)
            p = float(stats.chi2.sf(wald, rank))
        else:
            p = 1.0 if float(np.abs(d).max()) < 1e-12 else 0.0
    if not p < SKILL_TEST:
        lo = 0.0
    return {"skill_low": float(lo), "skill_high": float(hi), "p": p}


def luck_skill(df: pd.DataFrame, bootstrap: int = BOOTSTRAP, seed: int = 0, on: str = "win") -> dict | None:
    """``skill_share`` (partial eta squared of the strategy, game as block) of ``on`` - ``"win"``,
    each seat's win share (the outcome), or ``"score"``, its final score - with a bootstrap 95%
    interval over games (``skill_low``/``skill_high``; module docstring), the Wald test's ``p``
    and ``luck_share`` = 1 - skill share.  None with fewer than two strategies."""
    strategies = df["strategy"].astype(str)
    if strategies.nunique() < 2:
        return None
    keys = game_keys(df)
    game = df.groupby(keys, sort=False, observed=True).ngroup().to_numpy()
    strat = pd.factorize(strategies)[0]
    y = df[on].to_numpy(dtype=float)
    n_games, n_strats = int(game.max()) + 1, int(strat.max()) + 1
    point, beta = _skill_fit(y, game, strat, n_games, n_strats, np.ones(n_games))
    rng = np.random.default_rng(seed)
    reps = [_skill_fit(y, game, strat, n_games, n_strats,
                       np.bincount(rng.integers(0, n_games, n_games), minlength=n_games).astype(float))
            for _ in range(bootstrap)]
    return {"skill_share": point, **skill_interval(point, reps, beta), "luck_share": 1 - point,
            "games": n_games, "bootstrap": bootstrap, "on": on}


# --------------------------------------------------------------------------------------------
# One table for reports
# --------------------------------------------------------------------------------------------

def designer_table(df: pd.DataFrame, outcome=None) -> pd.DataFrame:
    """The designer figures of one run as a (figure, value) table for reports (:func:`designer_rows`);
    ``outcome``: the title, an :class:`Outcome` or None (:meth:`Outcome.of`)."""
    outcome = Outcome.of(outcome)
    win = luck_skill(df, on="win")
    score = luck_skill(df, on="score") if outcome.score_decides else None
    table = designer_rows(decisiveness(df, outcome.close_margin if outcome.close_applies else None),
                          drama_summary(df), win, score, outcome)
    table.attrs["skill"] = win  # the record behind the row (analyser.findings.luck_share)
    return table


def _finite(*values) -> bool:
    return all(isinstance(v, (int, float)) and math.isfinite(v) for v in values)


def _percent(value: float, low: float, high: float, none: str) -> str:
    """``12.3% (95% CI 10.1-14.6%)``, with the decimals the interval calls for
    (:func:`analyser.stats.analysis.decimals`); ``none`` (what the data lacks) when the value is not a
    number, ``(95% CI n/a)`` when only the interval is not: never "nan"."""
    if not _finite(value):
        return none
    return f"{percent(value, low, high)} (95% CI {percent_ci(low, high)})"


def designer_rows(d: dict, dr: dict | None, win: dict | None, score: dict | None = None,
                  outcome: Outcome | None = None) -> pd.DataFrame:
    """The (figure, value) table of :func:`designer_table` from its parts: the
    :func:`decisiveness`, :func:`drama_summary` and :func:`luck_skill` (on the win share, and on
    the score where the score decides) records.  A figure the data cannot give (no game with a
    single winner, no difference within a game) says why instead of showing "nan";
    ``attrs["left_out"]``: the figures that do not fit the title, one line per reason."""
    outcome = outcome or Outcome()
    unit = outcome.scoring.score_unit
    rows, left_out = [], []
    no_games = "n/a (no games)"
    rows.append(("tie rate (shared wins)", _percent(d["tie_rate"], d["tie_low"], d["tie_high"], no_games)))
    if outcome.close_applies:
        rows.append((f"close games (top two within {amount(outcome.close_margin, unit)})",
                     _percent(d["close_rate"], d["close_low"], d["close_high"], no_games)))
    else:
        left_out.append(f"close games: {outcome.close_reason}")
    if dr is None:
        rows.append(("drama", "not recorded by this title (no score trace)"))
    elif not outcome.drama_applies:
        left_out.append(f"lead changes, lead for good and deficit overcome: {outcome.reason}")
    else:
        single = "n/a (no game has a single winner: every game was a shared win)"
        rows.append(("lead changes per game", f"{fixed(dr['lead_changes'], 2)} (games with one or more: "
                                              f"{pct(dr['any_lead_change'], 0)})" if _finite(dr["lead_changes"])
                     else no_games))
        rows.append(("winner takes the lead for good at", f"{pct(dr['lead_for_good_at'], 0)} of the game's "
                                                          f"{outcome.scoring.trace_unit} (mean)" if _finite(dr["lead_for_good_at"])
                     else single))
        rows.append(("largest deficit overcome", f"{fixed(dr['deficit_overcome'], 2)} {unit} on average; 90th "
                                                 f"percentile {fixed(dr['deficit_p90'], 1)}, most {fixed(dr['deficit_max'], 1)}"
                     if _finite(dr["deficit_overcome"], dr["deficit_p90"], dr["deficit_max"]) else single))
    rows.append(_skill_row("skill share (partial eta squared of the win share)", win,
                           "no game has a winner and a loser: every win was shared by every seat"))
    if outcome.score_decides:
        rows.append(_skill_row("skill share, score-based (partial eta squared of the score)", score,
                               "no game decided by score: every seat of a game scored the same"))
    else:
        left_out.append(f"the score-based skill share: {outcome.reason}")
    out = pd.DataFrame(rows, columns=["figure", "value"])
    out.attrs["left_out"] = _grouped(left_out)
    return out


def _grouped(lines: list[str]) -> list[str]:
    """``figure: reason`` lines with the same reason joined into one (``a; b: reason``)."""
    by_reason: dict[str, list[str]] = {}
    for line in lines:
        figure, _, reason = line.partition(": ")
        by_reason.setdefault(reason, []).append(figure)
    return [f"{'; '.join(figures)}: {reason}" for reason, figures in by_reason.items()]


def _skill_row(label: str, ls: dict | None, why: str) -> tuple[str, str]:
    if ls is None:
        return label, "n/a (needs two strategies or more)"
    if not _finite(ls["skill_share"]):
        return label, f"n/a ({why})"
    lo, hi = ls["skill_low"], ls["skill_high"]
    text = f"{_percent(ls['skill_share'], lo, hi, 'n/a')}; luck share {percent(ls['luck_share'], lo, hi)}"
    if lo == 0 and ls["skill_share"] > 0:
        text += "; the strategies cannot be told apart"
    return label, text
