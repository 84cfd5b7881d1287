"""Findings: the short ordered list of plain sentences that opens every report and closes the
terminal summary (docs/findings.md).  Everything is importable from here.  May import the engine,
io, run, results and stats, never the report or the experiments that show the findings.
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
