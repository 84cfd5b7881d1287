"""Findings: the short ordered list of plain sentences that opens every report (``simulate``,
``sweep``, ``tournament``, ``compare``), writes ``findings.json`` and closes the terminal summary
(README, "Findings").

A :class:`Finding` states one thing a designer may want to act on: its ``sentence`` (plain words,
with the figure and its 95% interval), its ``strength`` - ``clear``, ``possible`` or ``none found``
-, its ``evidence`` (the figure and the interval, as text), the ``threshold`` that decides the
strength (one sentence, the named constants of this module), and ``next``: the command that tests a
fix, or None where no concrete test exists.  A check that cannot run for the title or the data is
a :class:`LeftOut` with its reason (never a finding from a figure that does not apply, never
"nan").

**One function per kind.**  Each check reads a report's figures - the simulate report's
:class:`analyser.report.Part` and its per-chunk sums (:mod:`analyser.summaries`), so the report
stays memory-flat, or an experiment's tables - and returns findings and left-out lines.  The checks
of a run report are :data:`RUN_CHECKS`, in order of importance; adding a kind is one line there.
:func:`collect` runs them and orders the result (:meth:`Findings.ordered`): clear before possible,
then by importance; the ``none found`` lines after them (what was checked and why nothing
appeared), then the left-out lines.

Thresholds (README, "Findings", gives the reasons):

* seat advantage - :func:`analyser.seats.seat_findings` (chi-square p < ``SEAT_P`` and the best-worst
  gap's interval above 0);
* dominant strategy - the best win rate's 95% interval lies wholly above every other strategy's;
* never wins - a win rate whose 95% upper bound is below :data:`NEVER_WINS_SHARE` of the fair share;
* component outliers - the component analysis's own findings (:func:`component_outliers`: a
  component whose effect on winning is clear after the Benjamini-Hochberg correction, with its
  95% interval), taken from the part;
* luck share - the skill share's upper bound below :data:`LUCK_HIGH` of its ceiling (very high
  luck), or its lower bound above :data:`LUCK_LOW` of it (very low luck);
* runaway leader - the winner leads for good within the first :data:`RUNAWAY_AT` of the game in
  more than :data:`RUNAWAY_SHARE` of games with one winner;
* long tail - the 99th percentile of game length above :data:`TAIL_RATIO` times the median;
* high tie rate - a tie rate above :data:`TIE_RATE`;
* experiments: the best cell of a sweep and the cells like it, values that change the seat
  balance (homogeneity p < :data:`ALPHA`), the tournament's top rating, and a comparison's largest
  clear difference per unit (Holm-adjusted p < :data:`ALPHA`).
"""

from __future__ import annotations

import json
import math
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

import numpy as np

from analyser import analysis

#: The strengths, strongest first.
STRENGTHS = ("clear", "possible", "none found")
#: ``findings.json``'s schema name (bumped when a key changes meaning).
SCHEMA = "analyser.findings/1"

#: A strategy "never or almost never wins" when its win rate's 95% upper bound lies below this
#: share of the fair share (1/players): below 12.5% at two seats, 6.25% at four.
NEVER_WINS_SHARE = 0.25
#: Luck is "very high" when the skill share's 95% upper bound lies below this share of its
#: ceiling (the most the seating allows): the strategies explain almost nothing of who wins.
LUCK_HIGH = 0.05
#: Luck is "very low" when the skill share's 95% lower bound lies above this share of its
#: ceiling: the strategies explain most of who wins.
LUCK_LOW = 0.5
#: A runaway leader: the eventual winner takes the lead for good within this share of the
#: game's steps ...
RUNAWAY_AT = 0.25
#: ... in more than this share of the games with a single winner.  By the arcsine law a fair
#: coin-flip race between two does so in a third of games (2/pi x arcsin(sqrt(1/4)) = 1/3).
RUNAWAY_SHARE = 0.5
#: The game-length quantile read for the tail, and ...
TAIL_QUANTILE = 0.99
#: ... a long tail: that quantile above this many times the median.
TAIL_RATIO = 2.0
#: Games needed before a 99th percentile of game length is read.
TAIL_MIN_GAMES = 100
#: A high tie rate: more than this share of games end in a shared win.
TIE_RATE = 0.10
#: Significance level of the experiments' tests (sweep seat balance, compare with Holm's
#: correction).
ALPHA = 0.05


# --------------------------------------------------------------------------------------------
# The finding
# --------------------------------------------------------------------------------------------

@dataclass
class Finding:
    """One finding.  ``figure``/``interval``: the evidence as text (``interval`` "-" when the
    figure has none); ``next``: the command that tests a fix, or None; ``extra``: more keys
    for ``findings.json`` (a seat compensation, a component id)."""

    topic: str
    sentence: str
    strength: str
    figure: str
    interval: str
    threshold: str
    next: str | None = None
    extra: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.strength not in STRENGTHS:
            raise ValueError(f"strength {self.strength!r} is not one of {STRENGTHS}")

    @property
    def evidence(self) -> dict:
        return {"figure": self.figure, "interval": self.interval}

    @property
    def shown(self) -> bool:
        """Clear or possible: one of the report's findings (else a "none found" line)."""
        return self.strength != "none found"

    def to_json(self) -> dict:
        """``{topic, sentence, strength, evidence: {figure, interval}, threshold, next, ...}``."""
        return {"topic": self.topic, "sentence": self.sentence, "strength": self.strength,
                "evidence": self.evidence, "threshold": self.threshold, "next": self.next or None,
                **self.extra}

    @classmethod
    def of(cls, item: "Finding | dict") -> "Finding":
        """A finding from the dict shape of :func:`analyser.metagame.findings` and
        :func:`analyser.seats.seat_findings` (``next`` "" or missing: None; other keys kept)."""
        if isinstance(item, Finding):
            return item
        d = dict(item)
        ev = d.pop("evidence", {}) or {}
        known = {k: d.pop(k, "") for k in ("topic", "sentence", "strength", "threshold")}
        nxt = d.pop("next", None) or None
        return cls(known["topic"], known["sentence"], known["strength"], str(ev.get("figure", "-")),
                   str(ev.get("interval", "-")), known["threshold"], nxt, d)


@dataclass
class LeftOut:
    """A check that does not apply to the title or cannot run on the data, with the reason."""

    topic: str
    reason: str

    def to_json(self) -> dict:
        return {"topic": self.topic, "reason": self.reason}


@dataclass
class Findings:
    """The findings of one report (or one variant of it), ordered (:meth:`ordered`)."""

    items: list[Finding] = field(default_factory=list)
    left_out: list[LeftOut] = field(default_factory=list)
    #: the variant these belong to ("" for a report of one variant)
    label: str = ""

    @property
    def shown(self) -> list[Finding]:
        """Clear and possible findings, in order."""
        return [f for f in self.items if f.shown]

    @property
    def checked(self) -> list[Finding]:
        """The checks that ran and found nothing, in order."""
        return [f for f in self.items if not f.shown]

    def __iter__(self):
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def topic(self, name: str) -> list[Finding]:
        return [f for f in self.items if f.topic == name]

    @staticmethod
    def ordered(items: Iterable[Finding], importance: list[str]) -> list[Finding]:
        """Clear before possible before none found; within a strength, by the topic's place in
        ``importance`` (unknown topics last), then as given."""
        rank = {t: i for i, t in enumerate(importance)}
        indexed = list(enumerate(items))
        indexed.sort(key=lambda p: (STRENGTHS.index(p[1].strength), rank.get(p[1].topic, len(rank)), p[0]))
        return [f for _, f in indexed]

    def to_json(self) -> dict:
        out = {"findings": [f.to_json() for f in self.items], "left_out": [x.to_json() for x in self.left_out]}
        return {"variant": self.label, **out} if self.label else out


def document(command: str, game: str, groups: list[Findings]) -> dict:
    """``findings.json``: ``{"schema", "command", "game", "findings": [...], "left_out": [...]}``
    for one variant; with several, ``"variants": [{"variant", "findings", "left_out"}, ...]``
    instead of the two lists."""
    head = {"schema": SCHEMA, "command": command, "game": game}
    if len(groups) == 1 and not groups[0].label:
        return {**head, **groups[0].to_json()}
    return {**head, "variants": [g.to_json() for g in groups]}


def write_json(path: Path, command: str, game: str, groups: list[Findings]) -> Path:
    """Write :func:`document` to ``path`` (UTF-8, indented); returns the path."""
    path.write_text(json.dumps(document(command, game, groups), indent=2, default=_plain) + "\n", encoding="utf-8")
    return path


def _plain(value):
    if isinstance(value, np.generic):
        return value.item()
    return str(value)


def lines(groups: list[Findings], indent: str = "  ") -> list[str]:
    """The findings for the terminal: a numbered line per clear or possible finding (strength,
    sentence; then its evidence and the command that tests it), one line per check that found
    nothing, one per left-out check."""
    out: list[str] = []
    for g in groups:
        if g.label and len(groups) > 1:
            out.append(f"Variant {g.label}:")
        pad = indent if g.label and len(groups) > 1 else ""
        if not g.shown:
            out.append(f"{pad}Nothing found (the checks that ran are below).")
        for i, f in enumerate(g.shown, 1):
            out.append(f"{pad}{i}. [{f.strength}] {f.sentence}")
            ev = f"Evidence: {f.figure}" + (f" (95% CI {f.interval})" if _has_interval(f) else "") + "."
            out.append(f"{pad}   {ev}")
            if f.next:
                out.append(f"{pad}   Test it: {f.next}")
        if g.checked:
            out.append(f"{pad}Checked, none found:")
            out += [f"{pad}{indent}- {f.topic}: {f.sentence}" for f in g.checked]
        if g.left_out:
            out.append(f"{pad}Left out:")
            out += [f"{pad}{indent}- {x.topic}: {x.reason}." for x in g.left_out]
    return out


def _has_interval(f: Finding) -> bool:
    return f.interval not in ("-", "", "see components.csv")


def echo(groups: list[Findings]) -> None:
    """Print :func:`lines` under a bold "Findings" heading (click)."""
    import click

    click.echo()
    click.secho("Findings (clear, then possible; thresholds in the report and README, Findings)", bold=True)
    for line in lines(groups):
        click.echo(line)


# --------------------------------------------------------------------------------------------
# Formatting
# --------------------------------------------------------------------------------------------

def pct(value: float, low: float | None = None, high: float | None = None) -> str:
    """``41.2%`` with the decimals the interval calls for (:func:`analysis.percent`)."""
    return analysis.percent(value, low, high)


def pct_ci(low: float, high: float) -> str:
    """``39.0-43.4%`` (:func:`analysis.percent_ci`)."""
    return analysis.percent_ci(low, high)


def with_ci(value: float, low: float, high: float) -> str:
    """``41.2% (95% CI 39.0-43.4%)``."""
    return f"{pct(value, low, high)} (95% CI {pct_ci(low, high)})"


def share_text(x: float) -> str:
    """A threshold share for a sentence, to at most two decimals: ``12.5%``, ``6.25%``, ``8.33%``,
    ``10%``."""
    return f"{100 * x:.2f}".rstrip("0").rstrip(".") + "%"


def number(x: float) -> str:
    """``61``, ``61.5``, ``1.33``."""
    return f"{x:g}" if float(x).is_integer() else f"{x:.3g}"


def command(words: Iterable) -> str:
    """A shell command from its words (each quoted as needed)."""
    return " ".join(shlex.quote(str(w)) for w in words)


def _finite(*values) -> bool:
    return all(v is not None and isinstance(v, (int, float, np.floating)) and math.isfinite(v) for v in values)


# --------------------------------------------------------------------------------------------
# A run report: the context and the registry of checks
# --------------------------------------------------------------------------------------------

@dataclass
class RunContext:
    """What a run report's checks read: the title, its declarations
    (:class:`analyser.designer.Outcome`), one variant's :class:`analyser.report.Part` and its
    core sums (:func:`analyser.summaries.core_sums`, combined), the run's ``config.json``, the
    lineup as given, the rule options that differ from the defaults (as typed) and the
    variant's run ids."""

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
        for s in (self.lineup if strategies is None else strategies):
            words += ["-s", s]
        words += ["--players", self.players]
        for k, v in self.rules.items():
            if k not in skip:
                words += ["--rule", f"{k}={v}"]
        return words


Check = Callable[[RunContext], Iterable["Finding | dict | LeftOut"] | None]


def seat_advantage(ctx: RunContext) -> list:
    """Is a seat ahead, and what would compensate it (:func:`analyser.seats.seat_findings`),
    with the ``analyser sweep`` of the title's start-bonus option that tests it."""
    from analyser import seats as seatmod

    part = ctx.part
    if ctx.players < 2:
        return [LeftOut("seat advantage", "the game has one seat")]
    cmd = seatmod.sweep_command(ctx.game, ctx.lineup, ctx.players, ctx.rules, ctx.games, part.compensation)
    return seatmod.seat_findings(part.seats, part.run["seats"], part.compensation, unit=ctx.outcome.score_unit,
                                 kind=ctx.outcome.kind, reason=part.compensation_note, next_command=cmd)


def _compared(ctx: RunContext):
    """The strategy table without strategies that fill every seat of their games (their win rate
    is 1/players by construction), or a LeftOut when fewer than two remain."""
    table = ctx.part.strategies
    mirror = set(ctx.part.run.get("mirror") or [])
    table = table[~table["strategy"].astype(str).isin(mirror)]
    return table


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
    other's value; none found otherwise.  ``gloss``: what the figure is, said once."""
    rows = sorted(rows, key=lambda r: -r[1])
    (name, v, lo, hi), rest = rows[0], rows[1:]
    second = rest[0]

    def value(x, a, b) -> str:
        if unit == "%":
            return pct(x, a, b)
        return f"{x:.{analysis.decimals((b - a) / 2, default=2)}f}"

    def span(a, b) -> str:
        if unit == "%":
            return pct_ci(a, b)
        d = analysis.decimals((b - a) / 2, default=2)
        return f"{a:.{d}f} to {b:.{d}f}"

    def show(x, a, b) -> str:
        return f"{value(x, a, b)} (95% CI {span(a, b)})"

    threshold = (f"clear when the best {subject}'s 95% interval of {what} lies wholly above every other "
                 f"{subject}'s interval; possible when its lower end lies above every other {subject}'s {what} "
                 "but the intervals overlap")
    figure = f"{what}: {name} {value(v, lo, hi)}; next best {second[0]} {value(*second[1:])}"
    interval = f"{name} {span(lo, hi)}; {second[0]} {span(second[2], second[3])}"
    others = "the other" if len(rest) == 1 else f"every other {subject}"
    runner = "the other" if len(rest) == 1 else "the next best"
    if unit == "%":
        says = f"wins {value(v, lo, hi)} of its games (95% CI {span(lo, hi)})"
        says2 = f"wins {show(*second[1:])}"
    else:
        says = f"has a {what}{f' ({gloss})' if gloss else ''} of {show(v, lo, hi)}"
        says2 = f"has {show(*second[1:])}"
    if lo > max(r[3] for r in rest):
        strength = "clear"
        sentence = (f"{name} is ahead of {others}: it {says}, an interval above "
                    f"{'the other' if len(rest) == 1 else 'every other'} one's; {runner}, {second[0]}, {says2}.")
    elif lo > max(r[1] for r in rest):
        strength = "possible"
        sentence = (f"{name} is probably ahead of {others}: it {says}; {runner}, {second[0]}, {says2}, and the "
                    "two intervals overlap.")
    else:
        strength = "none found"
        sentence = (f"No {subject} is clearly ahead of {others}: {name} {says} and {second[0]} {says2}; they cannot "
                    "be told apart.")
    return Finding(topic, sentence, strength, figure, interval, threshold,
                   next_command if strength != "none found" else None)


def never_wins(ctx: RunContext) -> list:
    """Strategies that never or almost never win: the upper end of the win rate's interval below
    :data:`NEVER_WINS_SHARE` of the fair share."""
    table = _compared(ctx)
    if len(table) < 2:
        return [LeftOut("never wins", "needs two strategies or more (in a mirror match the one strategy wins "
                                      "1/players by construction)")]
    return never_wins_rows(table, ctx.players, lambda s: replay_lost_game(ctx, s))


def never_wins_rows(table, players: int, next_for: Callable[[str], str | None] = lambda s: None) -> list:
    """:func:`never_wins` on a strategy table (``strategy``, ``win_rate``, ``win_low``,
    ``win_high``, ``n``)."""
    fair = 1.0 / players
    limit = NEVER_WINS_SHARE * fair
    threshold = (f"clear when the upper end of a strategy's 95% interval of win rate is below {share_text(limit)} "
                 f"(a quarter of the fair share, 1/{players}); possible when its win rate is below that but the "
                 "interval reaches above it")
    out = []
    for r in table.sort_values("win_rate", kind="stable").itertuples():
        if r.win_rate >= limit:
            continue
        clear = r.win_high < limit
        never = r.win_rate == 0
        games = f"its {int(r.n):,} player-games" if hasattr(r, "n") and r.n == r.n else "its games"
        if never:
            sentence = (f"{r.strategy} never won: not one of {games} (95% CI of its win rate "
                        f"{pct_ci(r.win_low, r.win_high)}), against a fair share of {share_text(fair)}.")
        else:
            sentence = (f"{r.strategy} {'almost never wins' if clear else 'may almost never win'}: "
                        f"{pct(r.win_rate, r.win_low, r.win_high)} of {games} (95% CI "
                        f"{pct_ci(r.win_low, r.win_high)}), against a fair share of {share_text(fair)}.")
        nxt = next_for(str(r.strategy))
        if nxt:
            sentence += " Watch a game it lost to see why (the command below)."
        out.append(Finding("never wins", sentence, "clear" if clear else "possible",
                           f"{r.strategy}: win rate {pct(r.win_rate, r.win_low, r.win_high)}",
                           pct_ci(r.win_low, r.win_high), threshold, nxt, {"strategy": str(r.strategy)}))
    if out:
        return out
    low = table.sort_values("win_rate", kind="stable").iloc[0]
    return [Finding("never wins",
                    f"No strategy almost never wins: the weakest, {low['strategy']}, wins "
                    f"{with_ci(low['win_rate'], low['win_low'], low['win_high'])}, not below {share_text(limit)} "
                    f"(a quarter of the fair share, {share_text(fair)}).",
                    "none found",
                    f"{low['strategy']}: win rate {pct(low['win_rate'], low['win_low'], low['win_high'])}",
                    pct_ci(low["win_low"], low["win_high"]), threshold)]


def replay_lost_game(ctx: RunContext, strategy: str) -> str | None:
    """``analyser play TITLE -s ... --seed S`` replaying the first game ``strategy`` lost (its
    game index is in the sums), with that game's lineup and the run's rules; None when the
    variant is not the single run its config describes (joined runs) or no loss is recorded."""
    from analyser.runner import game_seed, lineup

    config = ctx.config or {}
    seed, given = config.get("seed"), config.get("strategies")
    s = ctx.sums.get("strategy")
    if (not isinstance(seed, int) or not isinstance(given, list) or not given or len(ctx.runs) != 1
            or config.get("run_id") != ctx.runs[0] or s is None or "lost_index_min" not in s.columns
            or strategy not in s.index):
        return None
    index = s.loc[strategy, "lost_index_min"]
    if not _finite(index):
        return None
    index = int(index)
    seats = [str(given[i]) for i in lineup(index, ctx.players, len(given))]
    words = ctx.base_words("play", seats) + ["--seed", game_seed(seed, index)]
    return command(words)


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
    (:mod:`analyser.designer`)."""
    d = ctx.part.designer
    skill = d.attrs.get("skill") if d is not None else None
    if skill is None:
        return [LeftOut("luck share", "needs two strategies or more")]
    return luck_rows(skill, ctx.players, len(_compared(ctx)))


def luck_rows(skill: dict, players: int, strategies: int) -> list:
    """:func:`luck_share` on a skill-share record (``skill_share``, ``skill_low``,
    ``skill_high``)."""
    s, lo, hi = skill.get("skill_share"), skill.get("skill_low"), skill.get("skill_high")
    if not _finite(s):
        return [LeftOut("luck share", "no game has a winner and a loser, so nothing separates skill from luck")]
    if not _finite(lo, hi):
        return [LeftOut("luck share", "the skill share has no interval (too few games)")]
    ceiling, m = _ceiling(players, max(strategies, 1))
    most = "" if ceiling >= 1 else f" (at most {pct(ceiling, 0, 0.02)} is possible with {m} seats per strategy)"
    high, low = LUCK_HIGH * ceiling, LUCK_LOW * ceiling
    if ceiling >= 1:
        threshold = (f"very high luck when the upper end of the skill share's 95% interval is below "
                     f"{share_text(high)}; very low luck when its lower end is above {share_text(low)}; possible "
                     "when only the skill share itself passes")
    else:
        threshold = (f"very high luck when the upper end of the skill share's 95% interval is below "
                     f"{share_text(LUCK_HIGH)} of the most it can be with {m} seats per strategy "
                     f"({pct(ceiling, 0, 0.02)}), that is below {share_text(high)}; very low luck when its lower end "
                     f"is above {share_text(LUCK_LOW)} of that, {share_text(low)}; possible when only the skill share "
                     "itself passes")
    show = f"{pct(s, lo, hi)} (95% CI {pct_ci(lo, hi)})"
    figure = f"skill share {pct(s, lo, hi)}"
    iv = pct_ci(lo, hi)
    gloss = ("the share of the differences in who wins, between the seats of one game, that the strategy "
             "sitting there explains")
    if s < high:
        strength = "clear" if hi < high else "possible"
        sentence = (f"Luck {'decides' if strength == 'clear' else 'may decide'} most of who wins between these "
                    f"strategies, even where one wins more often: the skill share ({gloss}) is {show}{most}, so the "
                    f"luck share - the deal, the turn order and the other seats - is about {pct(1 - s, lo, hi)}.")
        return [Finding("luck share", sentence, strength, figure, iv, threshold)]
    if s > low:
        strength = "clear" if lo > low else "possible"
        sentence = (f"Skill {'decides' if strength == 'clear' else 'may decide'} most of who wins between these "
                    f"strategies: the skill share ({gloss}) is {show}{most}; luck - the deal, the turn order and "
                    "the other seats - explains the rest.")
        return [Finding("luck share", sentence, strength, figure, iv, threshold)]
    return [Finding("luck share", f"The luck share is neither very high nor very low: the skill share is {show}{most}.",
                    "none found", figure, iv, threshold)]


def runaway_leader(ctx: RunContext) -> list:
    """A runaway leader: the eventual winner takes the lead for good within the first
    :data:`RUNAWAY_AT` of the game in more than :data:`RUNAWAY_SHARE` of games with one winner
    (from the score trace; the drama figures of :mod:`analyser.designer`)."""
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
    if not n > 0 or not _finite(early):
        return [LeftOut(topic, "no game has a single winner")]
    share = early / n
    lo, hi = analysis.wilson(share, n)
    unit = outcome.trace_unit
    threshold = (f"clear when the Wilson 95% interval of the share of games (with one winner) in which the winner "
                 f"takes the lead for good within the first {share_text(RUNAWAY_AT)} of the game's {unit} lies "
                 f"above {share_text(RUNAWAY_SHARE)}; possible when the share itself does (a fair coin-flip race "
                 "between two does so in a third of games)")
    figure = f"winner leads for good within the first quarter in {pct(share, lo, hi)} of {int(n):,} games"
    nxt = None
    if share > RUNAWAY_SHARE:
        strength = "clear" if lo > RUNAWAY_SHARE else "possible"
        sentence = (f"The leader {'runs away' if strength == 'clear' else 'may run away'}: in "
                    f"{pct(share, lo, hi)} of the games with one winner (95% CI {pct_ci(lo, hi)}), more than half, the "
                    f"eventual winner takes the lead within the first quarter of the game's {unit} and keeps it to "
                    "the end.")
        compared = _compared(ctx)
        if len(compared) >= 2:
            best = str(compared.iloc[0]["strategy"])
            nxt = command(ctx.base_words("simulate", [best]) + ["--games", max(ctx.games, 1000)])
            sentence += (f" A stronger strategy leads early anyway: the command below plays {best} against itself, "
                         "to see whether the lead still runs away between equals.")
    else:
        strength = "none found"
        sentence = (f"No runaway leader: the eventual winner leads for good from the first quarter of the game in "
                    f"{pct(share, lo, hi)} of the games with one winner (95% CI {pct_ci(lo, hi)}), not more than "
                    "half.")
    return [Finding(topic, sentence, strength, figure, pct_ci(lo, hi), threshold, nxt)]


def quantile_interval(values: np.ndarray, counts: np.ndarray, q: float) -> tuple[float, float, float]:
    """The ``q`` quantile of data given as value counts (:func:`analyser.streamed.quantile_from_counts`)
    with its distribution-free 95% interval from order statistics: the values at ranks
    ``binom.ppf(0.025, n, q)`` and ``binom.ppf(0.975, n, q) + 1`` (1-based, clipped to 1..n)."""
    from scipy import stats

    from analyser.streamed import quantile_from_counts

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
    unit = ctx.game.length_unit
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
    from analyser.streamed import quantile_from_counts

    topic = "long tail"
    threshold = (f"clear when the distribution-free 95% interval of the 99th percentile of game length lies wholly "
                 f"above {number(TAIL_RATIO)} times the median; possible when the percentile itself does")
    present = values[counts > 0]
    median = quantile_from_counts(values, counts, 0.5)
    if len(present) == 1:
        return [Finding(topic, f"No long tail: every game lasted {number(present[0])} {unit}.", "none found",
                        f"every game {number(present[0])} {unit}", "-", threshold)]
    p99, lo, hi = quantile_interval(values, counts, TAIL_QUANTILE)
    if not median > 0:
        return [LeftOut(topic, "the median game length is 0")]
    ratio = p99 / median
    figure = f"99th percentile {number(p99)} {unit}, median {number(median)}: {ratio:.2f} times"
    iv = f"{number(lo)} to {number(hi)} {unit}"
    if ratio > TAIL_RATIO:
        strength = "clear" if lo > TAIL_RATIO * median else "possible"
        p95 = quantile_from_counts(values, counts, 0.95)
        sentence = (f"Game length has a long tail: the longest 1% of games last {number(p99)} {unit} or more (the "
                    f"99th percentile, 95% CI {number(lo)} to {number(hi)}), "
                    f"{ratio:.{2 if round(ratio, 1) == TAIL_RATIO else 1}f} times the median of "
                    f"{number(median)}.")
        nxt = next_for(p95)
        if nxt:
            sentence += f" The command below tests a cap at the 95th percentile, {number(math.ceil(p95))} {unit}."
        return [Finding(topic, sentence, strength, figure, iv, threshold, nxt)]
    return [Finding(topic, f"No long tail of game length: the 99th percentile, {number(p99)} {unit} (95% CI "
                           f"{number(lo)} to {number(hi)}), is {ratio:.{2 if round(ratio, 1) == TAIL_RATIO else 1}f} times the "
                           f"median of {number(median)}, not above {number(TAIL_RATIO)} times.",
                    "none found", figure, iv, threshold)]


def length_cap_command(ctx: RunContext, p95: float) -> str | None:
    """``analyser compare`` of the run's rules against a length cap at the 95th percentile,
    through the title's ``Game.length_cap_rule``; None when it declares none."""
    option = getattr(ctx.game, "length_cap_rule", "")
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
    if not _finite(rate, lo, hi):
        return [LeftOut(topic, "no games")]
    threshold = (f"clear when the Wilson 95% interval of the share of games with a shared win lies above "
                 f"{share_text(TIE_RATE)}; possible when the share itself does")
    figure = f"tie rate {pct(rate, lo, hi)} of {games:,} games"
    if rate > TIE_RATE:
        strength = "clear" if lo > TIE_RATE else "possible"
        sentence = (f"{'Many' if strength == 'clear' else 'Perhaps many'} games end in a shared win: "
                    f"{pct(rate, lo, hi)} of {games:,} (95% CI {pct_ci(lo, hi)}), more than one in ten."
                    + (" The command below plays every tie-break the title offers." if next_command else ""))
        return [Finding(topic, sentence, strength, figure, pct_ci(lo, hi), threshold, next_command)]
    return [Finding(topic, f"Shared wins are not common: {pct(rate, lo, hi)} of {games:,} games (95% CI "
                           f"{pct_ci(lo, hi)}).", "none found", figure,
                    pct_ci(lo, hi), threshold)]


def tie_break_command(ctx: RunContext) -> str | None:
    """``analyser sweep`` over every value of the title's tie-break option
    (``Game.tie_break_rule``), whose cells give each one's tie rate; None when it declares none
    or the option has no list of values."""
    option = getattr(ctx.game, "tie_break_rule", "")
    if not option:
        return None
    choices = next((o["choices"] for o in ctx.game.Params.options() if o["name"] == option), None)
    if not choices:
        return None
    words = ctx.base_words("sweep", skip=(option,)) + ["--games", max(ctx.games, 1000)]
    return command(words + ["--rule", f"{option}={','.join(map(str, choices))}"])


def component_outliers(ctx: RunContext) -> list:
    """Components whose effect on winning is clear after the Benjamini-Hochberg correction over
    the title's components (issue 18 section 3, :mod:`analyser.components`), with their 95%
    intervals.  The hook: the component analysis puts its findings on the part as
    ``part.component_findings`` (dicts in the shape of :func:`analyser.seats.seat_findings`:
    ``sentence``, ``strength``, ``evidence`` {``figure``, ``interval``}, ``threshold``, ``next``,
    more keys kept, such as ``component``) and its estimates as ``part.components`` (None when
    the title records no components); this check takes them into the report's one list, under
    this topic.  A part without those attributes (no component analysis) adds nothing."""
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
        out.append(f)
    return out


#: The checks of a run report, in order of importance: (topic, check).  A check returns findings
#: (:class:`Finding` or the dict shape of :func:`analyser.seats.seat_findings`) and
#: :class:`LeftOut` lines.  Adding a kind is one line here (and its README entry).
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


def gather(results: Iterable[tuple[str, Callable[[], Iterable | None]]], label: str = "") -> Findings:
    """Findings from ``(topic, thunk)`` pairs in order of importance: each thunk's findings
    (dicts converted, the topic filled in where missing) and left-out lines, ordered."""
    items: list[Finding] = []
    left: list[LeftOut] = []
    importance = []
    for topic, thunk in results:
        importance.append(topic)
        for x in thunk() or []:
            if isinstance(x, LeftOut):
                left.append(x if x.topic else LeftOut(topic, x.reason))
                continue
            f = Finding.of(x)
            if not f.topic:
                f.topic = topic
            if f.topic not in importance:
                importance.append(f.topic)
            items.append(f)
    return Findings(Findings.ordered(items, importance), left, label)


# --------------------------------------------------------------------------------------------
# Experiments
# --------------------------------------------------------------------------------------------

def sweep_findings(res, game) -> Findings:
    """A sweep's findings: the best cell and the cells like it (the paired difference of the
    focus strategy's win rate from the best cell), and whether the varied values change the
    seat balance.  ``res``: :class:`analyser.experiments.sweep.SweepResult`."""
    cells = res.cells
    if cells is None or not len(cells):
        return Findings([], [LeftOut("best cell", "no games were played")])
    g = res.grid
    dims = [c for c, _ in g.dims]
    focus = cells[cells["slot"] == g.focus].sort_values("win_rate", ascending=False, kind="stable")
    return gather([("best cell", lambda: _best_cell(focus, dims, g.slots[g.focus].head)),
                   ("seat balance across cells", lambda: _seat_cells(focus, dims, res.results))])


def _cell_name(row, dims: list[str]) -> str:
    return ", ".join(f"{c}={row[c]}" for c in dims) or "the only cell"


def _best_cell(focus, dims: list[str], focus_label: str) -> list:
    topic = "best cell"
    if len(focus) < 2:
        return [LeftOut(topic, "the sweep has one cell")]
    if bool(focus["fixed"].all()):
        return [LeftOut(topic, "the focus strategy fills every seat, so its win rate is 1/players in every cell "
                               "by construction; the seat balance is the figure that moves")]
    best = focus.iloc[0]
    others = focus.iloc[1:]
    tied = others[others["tied_with_best"].astype(bool)]
    apart = others[~others["tied_with_best"].astype(bool)]
    threshold = ("clear when every other cell's win rate is below the best's by a paired 95% interval (by game) "
                 "that excludes 0; possible when some cells cannot be told apart from the best; none found when no "
                 "cell can")
    name = _cell_name(best, dims)
    figure = f"best cell {name}: {focus_label} win rate {pct(best['win_rate'], best['win_low'], best['win_high'])}"
    iv = pct_ci(best["win_low"], best["win_high"])
    head = f"The best cell is {name}: {focus_label} wins {with_ci(best['win_rate'], best['win_low'], best['win_high'])}"
    if not len(tied):
        second = others.iloc[0]
        d = analysis.decimals((second["diff_high"] - second["diff_low"]) * 50)
        sentence = (f"{head}, ahead of every other cell; the runner-up, {_cell_name(second, dims)}, is "
                    f"{-100 * second['diff']:.{d}f} pp behind (paired 95% CI {-100 * second['diff_high']:.{d}f} to "
                    f"{-100 * second['diff_low']:.{d}f} pp).")
        return [Finding(topic, sentence, "clear", figure, iv, threshold)]
    listed = "; ".join(_cell_name(r, dims) for _, r in tied.head(8).iterrows())
    more = f" and {len(tied) - 8} more" if len(tied) > 8 else ""
    if len(apart):
        sentence = (f"{head}; {len(tied)} other cell{'s' if len(tied) > 1 else ''} cannot be told apart from it "
                    f"(paired 95% interval of the difference includes 0): {listed}{more}.")
        return [Finding(topic, sentence, "possible", figure, iv, threshold)]
    return [Finding(topic, f"No cell stands out: every cell's win rate for {focus_label} is within the paired 95% "
                           f"interval of the best, {name} "
                           f"({pct(best['win_rate'], best['win_low'], best['win_high'])}).",
                    "none found", figure, iv, threshold)]


def _seat_cells(focus, dims: list[str], results) -> list:
    """Do the cells' values change the seat balance?  The chi-square test of homogeneity of the
    wins per seat across cells (cells x seats), with the most and least even cells named."""
    from scipy import stats

    topic = "seat balance across cells"
    seat_cols = sorted((c for c in focus.columns if c.startswith("seat") and c.endswith("_win")),
                       key=lambda c: int(c[4:-4]))
    if len(focus) < 2 or len(seat_cols) < 2:
        return [LeftOut(topic, "needs two cells or more" if len(focus) < 2 else "the game has one seat")]
    wins = focus[seat_cols].to_numpy(dtype=float) * focus["games"].to_numpy(dtype=float)[:, None]
    keep = wins.sum(axis=0) > 0
    if keep.sum() < 2:
        return [LeftOut(topic, "only one seat ever won")]
    p = float(stats.chi2_contingency(wins[:, keep] + 0.0, correction=False).pvalue)
    threshold = (f"clear when the chi-square test of homogeneity of the wins per seat across the cells gives "
                 f"p < {ALPHA:g} (the cells share game seeds, which makes the test conservative); the cells "
                 "named are the most and the least even by their own chi-square test of equal seats")
    even = focus.sort_values("seat_p", ascending=False, kind="stable").iloc[0]
    uneven = focus.sort_values("seat_p", ascending=True, kind="stable").iloc[0]

    def seats_of(r) -> str:
        return ", ".join(f"seat {c[4:-4]} {pct(r[c], 0, 0.02)}" for c in seat_cols)

    figure = (f"most even: {_cell_name(even, dims)} ({seats_of(even)}; {analysis.p_text(even['seat_p'])}); least even: "
              f"{_cell_name(uneven, dims)} ({seats_of(uneven)}; {analysis.p_text(uneven['seat_p'])})")
    iv = f"homogeneity {analysis.p_text(p)}"
    if p < ALPHA and even["cell"] != uneven["cell"]:
        sentence = (f"The values change the seat balance: at {_cell_name(uneven, dims)} the seats are least even "
                    f"({seats_of(uneven)}; {analysis.p_text(uneven['seat_p'])}), at {_cell_name(even, dims)} most "
                    f"even ({seats_of(even)}; {analysis.p_text(even['seat_p'])}).")
        return [Finding(topic, sentence, "clear", figure, "-", threshold, None, {"homogeneity_p": p})]
    return [Finding(topic, f"The values do not change the seat balance detectably (chi-square test of homogeneity "
                           f"across the cells, {analysis.p_text(p)}).", "none found", figure, "-", threshold, None,
                    {"homogeneity_p": p})]


def tournament_findings(t, meta_findings: list[dict], seats=None, balance: dict | None = None) -> Findings:
    """A tournament's findings: the top rating (interval clear of every other), the meta-game's
    findings (:func:`analyser.metagame.findings`), the strategies that never win and, given the
    seat table (:func:`analyser.analysis.seat_summary`) and its ``balance``
    (:func:`analyser.analysis.seat_balance`), a seat advantage over all tables
    (:func:`analyser.seats.seat_findings`; no score compensation: the tables mix strategies).
    ``t``: :class:`analyser.experiments.tournament.TournamentResult`."""
    ranking = t.ranking
    model = str(t.config.get("rating_model", "rating")).split(" (")[0]  # "Bradley-Terry", "Plackett-Luce"

    def top():
        if ranking is None or len(ranking) < 2:
            return [LeftOut("dominant strategy", "needs two rated strategies or more")]
        rows = [(str(r.strategy), r.rating, r.rating_low, r.rating_high) for r in ranking.itertuples()]
        f = ahead_of_all("dominant strategy", rows, what=f"{model} rating", unit="", subject="strategy",
                         gloss="a strength fitted to who finished ahead of whom, 0 on average")
        return [f]

    def never():
        table = analysis.strategy_summary(t.results) if len(t.results) else None
        if table is None or len(table) < 2:
            return [LeftOut("never wins", "needs two strategies or more")]
        return never_wins_rows(table, int(t.config["players"]))

    def seat():
        from analyser import seats as seatmod
        if seats is None or balance is None:
            return []
        if len(seats) < 2:
            return [LeftOut("seat advantage", "the game has one seat")]
        return seatmod.seat_findings(seats, balance, None, reason="a tournament's tables mix strategies; "
                                     "analyser simulate of one lineup estimates it")

    return gather([("seat advantage", seat), ("dominant strategy", top), ("dominant", lambda: meta_findings),
                   ("cycle", lambda: []), ("unused", lambda: []), ("never wins", never)])


def compare_findings(cmp, score_unit: str = "points", length_unit: str = "turns") -> Findings:
    """A comparison's findings: per unit (rates, mean scores, game length, lead changes) the
    largest clear difference A - B, clear when its Holm-adjusted p-value (over every figure of
    the table) is below :data:`ALPHA` and its 95% interval excludes 0; possible when only the
    unadjusted p is.  ``cmp``: :class:`analyser.experiments.compare.Comparison`."""
    from statsmodels.stats.multitest import multipletests

    from analyser.experiments.compare import _unit

    table = cmp.table
    topic = "largest difference"
    threshold = (f"clear when the Holm-adjusted p-value (over the {len(table)} figures compared) is below {ALPHA:g} "
                 f"and the 95% interval of A - B excludes 0; possible when only the unadjusted p-value is below "
                 f"{ALPHA:g}")
    ok = table["p"].notna().to_numpy()
    adjusted = np.full(len(table), np.nan)
    if ok.any():
        adjusted[ok] = multipletests(table["p"].to_numpy(dtype=float)[ok], alpha=ALPHA, method="holm")[1]
    table = table.assign(p_holm=adjusted)
    excludes = (table["low"] > 0) | (table["high"] < 0)
    table = table.assign(clear=(table["p_holm"] < ALPHA) & excludes, possible=(table["p"] < ALPHA) & excludes)
    out = []
    groups: dict[str, list] = {}
    for i, r in table.iterrows():
        group, unit, scale = _unit(r["figure"], score_unit, length_unit)
        groups.setdefault(group, []).append((i, r, unit, scale))
    for group, rows in groups.items():
        for strength in ("clear", "possible"):
            pick = [x for x in rows if bool(x[1][strength])]
            if pick:
                i, r, unit, scale = max(pick, key=lambda x: abs(x[1]["diff"]) * x[3])
                out.append(_difference(r, unit, scale, strength, group, threshold,
                                       sum(bool(x[1]["clear"]) for x in rows), len(rows)))
                break
    if not out:
        best = table.sort_values("p", kind="stable").iloc[0] if ok.any() else None
        figure = (f"smallest p-value: {best['figure']} ({analysis.p_text(best['p'])}; Holm-adjusted "
                  f"{analysis.p_text(best['p_holm'])})" if best is not None else "no figure could be tested")
        out.append(Finding(topic, f"No figure differs clearly between A and B ({len(table)} compared).", "none found",
                           figure, "-", threshold))
    return gather([(topic, lambda: out)])


def _difference(r, unit: str, scale: float, strength: str, group: str, threshold: str, n_clear: int,
                n_group: int = 0) -> Finding:
    """One difference of the comparison table as a sentence in its units."""
    pp = unit == "percentage points"
    d = analysis.decimals((r["high"] - r["low"]) * scale / 2, default=1 if pp else 2)
    u = " pp" if pp else (f" {unit}" if unit else "")
    what = str(r["figure"])

    def side(v):
        return f"{scale * v:.{d}f}{'%' if pp else ''}"

    up = r["diff"] > 0
    size = f"{abs(scale * r['diff']):.{d}f}"
    if what.startswith("win rate: ") or what.startswith("mean score: "):
        kind, _, name = what.partition(": ")
        head = f"{name}'s {kind} is {size}{u} {'higher' if up else 'lower'}"
    elif what == "game length":
        head = f"Games last {size}{u} {'longer' if up else 'shorter'}"
    elif what == "lead changes per game":
        head = f"Games have {size} {'more' if up else 'fewer'} lead changes"
    else:
        head = f"The {what} is {size}{u} {'higher' if up else 'lower'}"
    diff = f"{scale * r['diff']:+.{d}f}{u}"
    iv = f"{scale * r['low']:+.{d}f} to {scale * r['high']:+.{d}f}{u}"
    among = f"the largest {'clear ' if strength == 'clear' else ''}difference in {group}"
    if n_clear > 1:
        among += f"; {n_clear} of the {n_group} differ clearly"
    hedge = "" if strength == "clear" else ", possibly,"
    sentence = (f"{head}{hedge} in A than in B: {side(r['a'])} against {side(r['b'])} (95% CI of "
                f"A - B {iv}; Holm-adjusted {analysis.p_text(r['p_holm'])}; {among}).")
    return Finding("largest difference", sentence, strength, f"{what}: A - B = {diff}", iv, threshold, None,
                   {"compared": what, "group": group})
