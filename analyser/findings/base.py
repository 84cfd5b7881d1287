"""The finding, the list, ``findings.json``, the terminal lines and the formatting.  docs/findings.md
is the contract: each check, its evidence and its threshold (the named constants here).

A :class:`Finding` has a ``sentence``, a ``strength`` (:data:`STRENGTHS`), its ``evidence``, the
``threshold`` that decides the strength and ``next``: the command that tests a fix, or None.  A
check that cannot run for the title or the data is a :class:`LeftOut` with its reason.
:meth:`Findings.ordered`: clear before possible, then by importance; then the others.
"""

from __future__ import annotations

import json
import math
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

import click
import numpy as np

from analyser.text import layout, number, percent, percent_ci

#: The strengths, strongest first.
STRENGTHS = ("clear", "possible", "none found")
#: The findings file every report writes beside its ``index.html`` (:func:`document`).
FILE = "findings.json"
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

    @property
    def has_interval(self) -> bool:
        """Whether ``interval`` is an interval to print after the figure."""
        return self.interval not in ("-", "", "see components.csv")

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
        """A finding from the dict shape of :func:`analyser.stats.metagame.findings` and
        :func:`analyser.stats.seats.seat_findings` (``next`` "" or missing: None; other keys kept)."""
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
        ``importance`` (unknown topics last), then as given (a stable sort)."""
        rank = {t: i for i, t in enumerate(importance)}
        return sorted(items, key=lambda f: (STRENGTHS.index(f.strength), rank.get(f.topic, len(rank))))

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
    return value.item() if isinstance(value, np.generic) else str(value)


def lines(groups: list[Findings], indent: str = "  ") -> list[str]:
    """The findings for the terminal (``sentences/findings_terminal.j2``): a numbered line per
    clear or possible finding (strength, sentence; then its evidence and the command that tests
    it), one line per check that found nothing, one per left-out check."""
    return layout("findings_terminal.j2", groups=groups, indent=indent)


def echo(groups: list[Findings]) -> None:
    """Print :func:`lines` under a bold "Findings" heading (click)."""
    click.echo()
    click.secho("Findings (clear, then possible; thresholds in the report and docs/findings.md)", bold=True)
    for line in lines(groups):
        click.echo(line)


# --------------------------------------------------------------------------------------------
# Formatting
# --------------------------------------------------------------------------------------------

#: ``41.2%`` with the decimals the interval calls for, and ``39.0-43.4%``.
pct, pct_ci = percent, percent_ci


def command(words: Iterable) -> str:
    """A shell command from its words (each quoted as needed)."""
    return " ".join(shlex.quote(str(w)) for w in words)


def all_finite(*values) -> bool:
    return all(v is not None and isinstance(v, (int, float, np.floating)) and math.isfinite(v) for v in values)


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
            f.topic = f.topic or topic
            if f.topic not in importance:
                importance.append(f.topic)
            items.append(f)
    return Findings(Findings.ordered(items, importance), left, label)
