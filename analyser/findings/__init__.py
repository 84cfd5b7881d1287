"""Findings: the short ordered list of plain sentences that opens every report (``simulate``,
``sweep``, ``tournament``, ``compare``), writes ``findings.json`` and closes the terminal summary
(docs/findings.md, "Findings").  Each finding states its evidence, interval and threshold; the
modules are listed in docs/architecture.md.

Everything is importable from ``analyser.findings``.  The package may import :mod:`analyser.engine`,
:mod:`analyser.io`, :mod:`analyser.run`, :mod:`analyser.results` and :mod:`analyser.stats` (it reads
their figures), never the report or the experiments that show its findings.
"""

from analyser.findings.base import (STRENGTHS, FILE, SCHEMA, NEVER_WINS_SHARE, LUCK_HIGH, LUCK_LOW, RUNAWAY_AT,
                                    RUNAWAY_SHARE, TAIL_QUANTILE, TAIL_RATIO, TAIL_MIN_GAMES, TIE_RATE, ALPHA,
                                    Finding, LeftOut, Findings, document, write_json, lines, echo, pct, pct_ci,
                                    number, command, gather)
from analyser.findings.run import (
    RUN_CHECKS, Check, RunContext, ahead_of_all, collect, component_outliers, dominant_strategy, length_cap_command,
    long_tail, luck_rows, luck_share, never_wins, never_wins_rows, quantile_interval, replay_lost_game,
    runaway_leader, seat_advantage, tail_rows, tie_break_command, tie_rate, tie_rows)
from analyser.findings.experiments import compare_findings, sweep_findings, tournament_findings
