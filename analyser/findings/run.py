"""The checks of a run report (``simulate``, ``report``, ``resume``) and their registry,
:data:`RUN_CHECKS` (README, "Findings"; the thresholds are the constants of
:mod:`analyser.findings`)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

import numpy as np

from analyser.engine.runner import game_seed, lineup
from analyser.stats import analysis, seats as seatmod
from analyser.stats.metagame import CLEAR_MIN_GAMES
from analyser.findings.base import (LUCK_HIGH, LUCK_LOW, NEVER_WINS_SHARE, RUNAWAY_AT, RUNAWAY_SHARE, TAIL_MIN_GAMES,
                                    TAIL_QUANTILE, TAIL_RATIO, TIE_RATE, Finding, Findings, LeftOut, all_finite, command,
                                    gather, pct, pct_ci)
from analyser.text import number, phrase

# --------------------------------------------------------------------------------------------
# A run report: the context and the registry of checks
# --------------------------------------------------------------------------------------------

@dataclass
class RunContext:
    """What a run report's checks read: the title, its :class:`analyser.stats.designer.Outcome`,
    one variant's :class:`analyser.report.page.Part` and its combined core sums, ``config.json``,
    the lineup as given, the rule options that differ from the defaults and the run ids."""

    game: Any
    outcome: Any
    part: Any
    sums: dict
    config: dict
    lineup: list[str]
    rules: dict[str, str]
    runs: list[str] = field(default_factory=list)

    @property
    def title(self) -> str:
        """The title as a command names it (its id, or its file for a title of your own)."""
        return self.game.source or self.game.id

    @property
    def players(self) -> int:
        return int(self.part.players)

    @property
    def games(self) -> int:
        return int(self.part.run["games"])

    def base_words(self, verb: str, strategies: list[str] | None = None, skip: tuple[str, ...] = ()) -> list:
        """``analyser VERB TITLE -s ... --players N`` with the run's rule options (except
        ``skip``) as ``--rule``."""
        words: list = ["analyser", verb, self.title]
        words += [w for s in (self.lineup if strategies is None else strategies) for w in ("-s", s)]
        words += ["--players", self.players]
        return words + [w for k, v in self.rules.items() if k not in skip for w in ("--rule", f"{k}={v}")]


Check = Callable[[RunContext], Iterable["Finding | dict | LeftOut"] | None]


def seat_advantage(ctx: RunContext) -> list:
    """Is a seat ahead, and what would compensate it (:func:`analyser.stats.seats.seat_findings`),
    with the ``analyser sweep`` of the title's start-bonus option that tests it, or what the
    replay of ``simulate --confirm-seats`` showed (``config.json``'s ``seat_confirmations``)."""
    part = ctx.part
    if ctx.players < 2:
        return [LeftOut("seat advantage", "the game has one seat")]
    seed = ctx.config.get("seed") if len(ctx.runs) == 1 else None
    cmd = seatmod.sweep_command(ctx.game, ctx.lineup, ctx.players, ctx.rules, ctx.games, part.compensation,
                                seed)
    plan = seatmod.sweep_plan(ctx.game, ctx.players, ctx.rules, part.compensation) if cmd else None
    recorded = ctx.config.get("seat_confirmations") or {}
    replay = recorded.get(str(ctx.runs[0])) if len(ctx.runs) == 1 and isinstance(recorded, dict) else None
    unit = ctx.outcome.scoring.score_unit
    said = seatmod.SeatContext(unit=unit, kind=ctx.outcome.kind, reason=part.compensation_note, next_command=cmd,
                               replay=replay if isinstance(replay, dict) else None,
                               bonus=(ctx.game.scoring.seat_bonus_rule, ctx.game.scoring.seat_bonus_unit or unit),
                               sweep=plan)
    return seatmod.seat_findings(part.seats, part.run["seats"], part.compensation, said)


def _compared(ctx: RunContext):
    """The strategy table without strategies that fill every seat of their games (their win rate
    is 1/players by construction)."""
    mirror = set(ctx.part.run.get("mirror") or [])
    return ctx.part.strategies[~ctx.part.strategies["strategy"].astype(str).isin(mirror)]


def dominant_strategy(ctx: RunContext) -> list:
    """A strategy ahead of every other, its win rate's interval clear of theirs."""
    table = _compared(ctx)
    if len(table) < 2:
        return [LeftOut("dominant strategy", "needs two strategies or more that share games (a mirror match "
                                             "measures the seats)")]
    rows = [(str(r.strategy), r.win_rate, r.win_low, r.win_high) for r in table.itertuples()]
    return [ahead_of_all("dominant strategy", rows, what="win rate", unit="%", subject="strategy")]


def ahead_of_all(topic: str, rows: list[tuple[str, float, float, float]], *, what: str, unit: str,
                 subject: str, next_command: str | None = None, gloss: str = "") -> Finding:
    """Is the first of ``rows`` (name, value, low, high) by value ahead of every other?  ``unit``
    "%": values are proportions shown in %; else plain numbers (a rating).  Clear when its
    interval lies wholly above every other's; possible when its lower end lies above every
    other's value; none found otherwise.  ``gloss``: what the figure is, said once.  The words
    are ``sentences/run.j2`` (``ahead``) reading the record."""
    rows = sorted(rows, key=lambda r: -r[1])
    lo, rest = rows[0][2], rows[1:]
    strength = ("clear" if lo > max(r[3] for r in rest) else "possible" if lo > max(r[1] for r in rest)
                else "none found")
    r = {"first": rows[0], "second": rest[0], "others": len(rest), "what": what, "unit": unit, "subject": subject,
         "gloss": gloss, "strength": strength}
    return Finding(topic, phrase("run.j2", "ahead", r), strength, phrase("run.j2", "ahead_figure", r),
                   phrase("run.j2", "ahead_interval", r), phrase("run.j2", "ahead_threshold", r),
                   next_command if strength != "none found" else None)


def never_wins(ctx: RunContext) -> list:
    """Strategies that never or almost never win: the upper end of the win rate's interval below
    :data:`NEVER_WINS_SHARE` of the fair share."""
    table = _compared(ctx)
    if len(table) < 2:
        return [LeftOut("never wins", "needs two strategies or more (in a mirror match the one strategy wins "
                                      "1/players by construction)")]
    return never_wins_rows(table, ctx.players, lambda s: replay_lost_game(ctx, s))


def never_wins_rows(table, players: int, next_for: Callable[[str], str | None] = lambda s: None,
                    classes=()) -> list:
    """:func:`never_wins` on a strategy table (``strategy``, ``win_rate``, ``win_low``,
    ``win_high``, ``n``).  ``classes``: groups of strategy names that cannot be told apart (a
    tournament's :attr:`analyser.stats.metagame.MetaGame.classes`); when the weakest is in one, the
    "none found" line names the whole group rather than pick one of them on noise."""
    fair = 1.0 / players
    limit = NEVER_WINS_SHARE * fair
    threshold = phrase("run.j2", "never_threshold", limit, players)
    out = []
    for r in table.sort_values("win_rate", kind="stable").itertuples():
        if r.win_rate >= limit:
            continue
        nxt = next_for(str(r.strategy))
        rec = {"strategy": r.strategy, "rate": r.win_rate, "low": r.win_low, "high": r.win_high, "fair": fair,
               "n": int(r.n) if hasattr(r, "n") and r.n == r.n else None, "clear": r.win_high < limit,
               "watch": bool(nxt)}
        out.append(Finding("never wins", phrase("run.j2", "never", rec), "clear" if rec["clear"] else "possible",
                           phrase("run.j2", "never_figure", [rec]), pct_ci(r.win_low, r.win_high), threshold, nxt,
                           {"strategy": str(r.strategy)}))
    return out or [_weakest(table, classes, limit, fair, threshold)]


def _weakest(table, classes, limit: float, fair: float, threshold: str) -> Finding:
    """The "none found" line of :func:`never_wins_rows`: the weakest strategy, or the whole class
    of strategies that cannot be told apart it belongs to."""
    low = table.sort_values("win_rate", kind="stable").iloc[0]
    group = next((list(c) for c in classes if str(low["strategy"]) in c), None) or [str(low["strategy"])]
    rows = table.set_index(table["strategy"].astype(str)).loc[group]
    recs = [{"strategy": s, "rate": r.win_rate, "low": r.win_low, "high": r.win_high} for s, r in
            zip(group if len(group) > 1 else [low["strategy"]], rows.itertuples())]
    return Finding("never wins", phrase("run.j2", "never_none", recs, limit, fair), "none found",
                   phrase("run.j2", "never_figure", recs), "; ".join(pct_ci(x["low"], x["high"]) for x in recs),
                   threshold)


def replay_lost_game(ctx: RunContext, strategy: str) -> str | None:
    """``analyser play TITLE -s ... --seed S`` replaying the first game ``strategy`` lost (its
    game index is in the sums), with that game's lineup and the run's rules; None when the
    variant is not the single run its config describes (joined runs) or no loss is recorded."""
    config = ctx.config or {}
    seed, given = config.get("seed"), config.get("strategies")
    s = ctx.sums.get("strategy")
    if (not isinstance(seed, int) or not isinstance(given, list) or not given or len(ctx.runs) != 1
            or config.get("run_id") != ctx.runs[0] or s is None or "lost_index_min" not in s.columns
            or strategy not in s.index):
        return None
    index = s.loc[strategy, "lost_index_min"]
    if not all_finite(index):
        return None
    seats = [str(given[i]) for i in lineup(int(index), ctx.players, len(given))]
    return command(ctx.base_words("play", seats) + ["--seed", game_seed(seed, int(index))])


def _ceiling(players: int, strategies: int) -> tuple[float, int]:
    """The most the skill share on the win share can be with this seating, and the seats ``m``
    each strategy holds in a game: ``(n - m) / (m (n - 1))`` when the strategies divide the
    ``n`` seats evenly (the share if one strategy won every game), 1 when each holds one seat;
    1 (the conservative value) when they hold different numbers of seats."""
    if strategies >= players or players % strategies:
        return 1.0, 1
    m = players // strategies
    return (players - m) / (m * (players - 1)), m


def luck_share(ctx: RunContext) -> list:
    """A luck share that is very high (the strategies explain almost nothing of who wins) or very
    low (they explain most of it), from the skill share on the win share
    (:mod:`analyser.stats.designer`)."""
    d = ctx.part.designer
    skill = d.attrs.get("skill") if d is not None else None
    if skill is None:
        return [LeftOut("luck share", "needs two strategies or more")]
    return luck_rows(skill, ctx.players, len(_compared(ctx)))


def luck_rows(skill: dict, players: int, strategies: int) -> list:
    """:func:`luck_share` on a skill-share record (``skill_share``, ``skill_low``,
    ``skill_high``, ``games``).  Never clear from fewer than :data:`CLEAR_MIN_GAMES` games, nor
    on an interval of zero width (a bootstrap over a handful of games resamples to one answer),
    as the meta-game's findings."""
    s, lo, hi = skill.get("skill_share"), skill.get("skill_low"), skill.get("skill_high")
    if not all_finite(s):
        return [LeftOut("luck share", "no game has a winner and a loser, so nothing separates skill from luck")]
    if not all_finite(lo, hi):
        return [LeftOut("luck share", "the skill share has no interval (too few games)")]
    ceiling, m = _ceiling(players, max(strategies, 1))
    high, low = LUCK_HIGH * ceiling, LUCK_LOW * ceiling
    r = {"s": s, "lo": lo, "hi": hi, "ceiling": ceiling, "m": m, "high": high, "low": low, "luck_high": LUCK_HIGH,
         "luck_low": LUCK_LOW, "min_games": CLEAR_MIN_GAMES}
    if s < high:
        r.update(kind="luck", strength="clear" if hi < high else "possible")
    elif s > low:
        r.update(kind="skill" if s > 0.5 else "low luck", strength="clear" if lo > low else "possible")
    else:
        r.update(kind="", strength="none found")
    few = skill.get("games") is not None and skill["games"] < CLEAR_MIN_GAMES  # (a record without: not known)
    if r["strength"] == "clear" and (hi <= lo or few):
        r["strength"] = "possible"
    return [Finding("luck share", phrase("run.j2", "luck", r), r["strength"], f"skill share {pct(s, lo, hi)}",
                    pct_ci(lo, hi), phrase("run.j2", "luck_threshold", r))]


def runaway_leader(ctx: RunContext) -> list:
    """A runaway leader: the eventual winner takes the lead for good within the first
    :data:`RUNAWAY_AT` of the game in more than :data:`RUNAWAY_SHARE` of games with one winner
    (from the score trace; the drama figures of :mod:`analyser.stats.designer`)."""
    outcome = ctx.outcome
    topic = "runaway leader"
    if not outcome.drama_applies:
        return [LeftOut(topic, outcome.reason)]
    dr = ctx.sums.get("drama")
    if dr is None or not len(dr):
        return [LeftOut(topic, "this title records no score trace, so who leads during a game is not known")]
    row = dr.iloc[0]
    n = float(row.get("good_n", 0.0))
    early = float(row.get("early_n", math.nan))
    if not n > 0 or not all_finite(early):
        return [LeftOut(topic, "no game has a single winner")]
    share = early / n
    lo, hi = analysis.wilson(share, n)
    strength = ("clear" if lo > RUNAWAY_SHARE else "possible") if share > RUNAWAY_SHARE else "none found"
    r = {"share": share, "lo": lo, "hi": hi, "n": int(n), "unit": outcome.scoring.trace_unit, "at": RUNAWAY_AT,
         "most": RUNAWAY_SHARE, "strength": strength, "best": None}
    nxt = None
    compared = _compared(ctx)
    if strength != "none found" and len(compared) >= 2:
        r["best"] = str(compared.iloc[0]["strategy"])
        nxt = command(ctx.base_words("simulate", [r["best"]]) + ["--games", max(ctx.games, 1000)])
    return [Finding(topic, phrase("run.j2", "runaway", r), strength, phrase("run.j2", "runaway_figure", r),
                    pct_ci(lo, hi), phrase("run.j2", "runaway_threshold", r), nxt)]


def quantile_interval(values: np.ndarray, counts: np.ndarray, q: float) -> tuple[float, float, float]:
    """The ``q`` quantile of data given as value counts (:func:`analyser.stats.streamed.quantile_from_counts`)
    with its distribution-free 95% interval from order statistics: the values at ranks
    ``binom.ppf(0.025, n, q)`` and ``binom.ppf(0.975, n, q) + 1`` (1-based, clipped to 1..n)."""
    from scipy import stats

    from analyser.stats.streamed import quantile_from_counts

    order = np.argsort(values, kind="stable")
    v, c = np.asarray(values, float)[order], np.asarray(counts, float)[order]
    n = int(c.sum())
    cum = np.cumsum(c)
    lo_rank = int(max(1, stats.binom.ppf(0.025, n, q)))
    hi_rank = int(min(n, stats.binom.ppf(0.975, n, q) + 1))
    at = lambda rank: float(v[int(np.searchsorted(cum, rank))])  # noqa: E731 - the value at a 1-based rank
    return quantile_from_counts(v, c, q), at(lo_rank), at(hi_rank)


def long_tail(ctx: RunContext) -> list:
    """A long tail of game length: the 99th percentile above :data:`TAIL_RATIO` times the median,
    from the value counts of game length (exact quantiles)."""
    topic = "long tail"
    turns = ctx.sums.get("turns")
    unit = ctx.game.scoring.length_unit
    if turns is None or not len(turns) or turns["count"].sum() <= 0:
        return [LeftOut(topic, "this title records no game length")]
    values = turns.index.to_numpy(dtype=float)
    counts = turns["count"].to_numpy(dtype=float)
    n = int(counts.sum())
    if n < TAIL_MIN_GAMES:
        return [LeftOut(topic, f"needs {TAIL_MIN_GAMES} games or more to read a 99th percentile ({n:,} played)")]
    return tail_rows(values, counts, unit, lambda p95: length_cap_command(ctx, p95))


def tail_rows(values: np.ndarray, counts: np.ndarray, unit: str,
              next_for: Callable[[float], str | None] = lambda p95: None) -> list:
    """:func:`long_tail` on value counts of game length."""
    from analyser.stats.streamed import quantile_from_counts

    topic = "long tail"
    threshold = phrase("run.j2", "tail_threshold", TAIL_RATIO)
    present = values[counts > 0]
    median = quantile_from_counts(values, counts, 0.5)
    if len(present) == 1:
        return [Finding(topic, f"No long tail: every game lasted {number(present[0])} {unit}.", "none found",
                        f"every game {number(present[0])} {unit}", "-", threshold)]
    p99, lo, hi = quantile_interval(values, counts, TAIL_QUANTILE)
    if not median > 0:
        return [LeftOut(topic, "the median game length is 0")]
    ratio = p99 / median
    p95 = quantile_from_counts(values, counts, 0.95)
    r = {"p99": p99, "lo": lo, "hi": hi, "median": median, "unit": unit, "ratio": ratio, "limit": TAIL_RATIO,
         "cap": math.ceil(p95),
         "strength": ("clear" if lo > TAIL_RATIO * median else "possible") if ratio > TAIL_RATIO else "none found"}
    nxt = next_for(p95) if ratio > TAIL_RATIO else None
    r["tested"] = bool(nxt)
    return [Finding(topic, phrase("run.j2", "tail", r), r["strength"], phrase("run.j2", "tail_figure", r),
                    f"{number(lo)} to {number(hi)} {unit}", threshold, nxt)]


def length_cap_command(ctx: RunContext, p95: float) -> str | None:
    """``analyser compare`` of the run's rules against a length cap at the 95th percentile,
    through the title's ``length_cap_rule`` (an optional class attribute of the title, the
    option's name; README, "Designer metrics"); None when it declares none."""
    option = ctx.game.scoring.length_cap_rule
    if not option:
        return None
    words = ctx.base_words("compare", skip=(option,)) + ["--a", f"{option}={int(math.ceil(p95))}"]
    if option in ctx.rules:
        words += ["--b", f"{option}={ctx.rules[option]}"]
    return command(words + ["--games", max(ctx.games, 1000)])


def tie_rate(ctx: RunContext) -> list:
    """A high tie rate: more than :data:`TIE_RATE` of games end in a shared win."""
    run = ctx.part.run
    return tie_rows(run["tie_rate"], run.get("tie_low"), run.get("tie_high"), int(run["games"]),
                    tie_break_command(ctx))


def tie_rows(rate: float, lo: float, hi: float, games: int, next_command: str | None = None) -> list:
    """:func:`tie_rate` from a tie rate and its Wilson interval."""
    topic = "tie rate"
    if not all_finite(rate, lo, hi):
        return [LeftOut(topic, "no games")]
    strength = ("clear" if lo > TIE_RATE else "possible") if rate > TIE_RATE else "none found"
    r = {"rate": rate, "lo": lo, "hi": hi, "games": games, "limit": TIE_RATE, "strength": strength,
         "tested": bool(next_command)}
    return [Finding(topic, phrase("run.j2", "ties", r), strength, phrase("run.j2", "ties_figure", r), pct_ci(lo, hi),
                    phrase("run.j2", "ties_threshold", r), next_command if strength != "none found" else None)]


def tie_break_command(ctx: RunContext) -> str | None:
    """``analyser sweep`` over every value of the title's tie-break option
    (``tie_break_rule``, an optional class attribute of the title), whose cells give each one's tie rate; None when it declares none
    or the option has no list of values."""
    option = ctx.game.scoring.tie_break_rule
    if not option:
        return None
    choices = next((o["choices"] for o in ctx.game.Params.options() if o["name"] == option), None)
    if not choices:
        return None
    words = ctx.base_words("sweep", skip=(option,)) + ["--games", max(ctx.games, 1000)]
    return command(words + ["--rule", f"{option}={','.join(map(str, choices))}"])


def component_outliers(ctx: RunContext) -> list:
    """The part's ``component_findings`` (:mod:`analyser.findings.components`: the components clear
    after the Benjamini-Hochberg correction) under this topic; ``part.components`` None: the
    title records no components; a part without it adds nothing."""
    part = ctx.part
    if not hasattr(part, "components"):
        return []
    if part.components is None:
        return [LeftOut("component outliers", "this title records no components, or the results have no "
                                              "component table")]
    out = []
    for item in getattr(part, "component_findings", None) or []:
        f = Finding.of(item)
        f.topic = "component outliers"
        if not f.extra.get("component"):  # the line that lists the rest points to the table: no command
            f.next = None
        out.append(f)
    return out


#: The checks of a run report, in order of importance: (topic, check).  A check returns findings
#: (:class:`Finding` or their dict shape) and :class:`LeftOut` lines.
RUN_CHECKS: list[tuple[str, Check]] = [
    ("seat advantage", seat_advantage),
    ("dominant strategy", dominant_strategy),
    ("never wins", never_wins),
    ("component outliers", component_outliers),
    ("luck share", luck_share),
    ("runaway leader", runaway_leader),
    ("long tail", long_tail),
    ("tie rate", tie_rate),
]


def collect(ctx: RunContext, checks: list[tuple[str, Check]] | None = None) -> Findings:
    """Run ``checks`` (default :data:`RUN_CHECKS`) on one variant and order the result."""
    checks = RUN_CHECKS if checks is None else checks
    return gather(((topic, lambda c=check: c(ctx)) for topic, check in checks), label=ctx.part.label)
