"""Summaries on hand-built result frames with known answers."""

import numpy as np
import pandas as pd
import pytest

from analyser import analysis


def test_wilson_known_values():
    lo, hi = analysis.wilson(0.5, 100)
    assert lo == pytest.approx(0.40383, abs=1e-4) and hi == pytest.approx(0.59617, abs=1e-4)
    lo, hi = analysis.wilson(0.0, 20)
    assert lo == 0.0 and hi == pytest.approx(0.16113, abs=1e-4)
    lo, hi = analysis.wilson(1.0, 10)
    assert hi == 1.0 and lo == pytest.approx(0.72247, abs=1e-4)
    lo, hi = analysis.wilson(np.array([0.25, 0.25]), np.array([10, 1000]))
    assert lo[0] < lo[1] < 0.25 < hi[1] < hi[0]
    assert all(np.isnan(analysis.wilson(0.5, 0)))


def frame():
    # 3 two-player games: A wins game 0, B wins game 1, game 2 is a shared win.
    return pd.DataFrame({
        "game": "dao", "players": 2,
        "game_index": [0, 0, 1, 1, 2, 2],
        "seat": [0, 1, 0, 1, 0, 1],
        "strategy": pd.Categorical(["A", "B", "B", "A", "A", "B"]),
        "score": [10.0, 4.0, 8.0, 2.0, 5.0, 5.0],
        "rank": [1, 2, 1, 2, 1, 1],
        "win": [1.0, 0.0, 1.0, 0.0, 0.5, 0.5],
        "turns": [30, 30, 40, 40, 50, 50],
    })


def test_strategy_summary_counts_shared_wins_as_halves():
    s = analysis.strategy_summary(frame()).set_index("strategy")
    assert s.loc["A", "win_rate"] == pytest.approx(0.5) and s.loc["B", "win_rate"] == pytest.approx(0.5)
    assert s.loc["A", "mean_score"] == pytest.approx((10 + 2 + 5) / 3)
    assert s.loc["A", "score_sd"] == pytest.approx(np.std([10, 2, 5], ddof=1))
    half = 1.959964 * np.std([10, 2, 5], ddof=1) / np.sqrt(3)
    assert s.loc["A", "score_low"] == pytest.approx(17 / 3 - half, rel=1e-5)
    assert s.loc["A", "n"] == 3


def test_seat_summary_and_run_summary():
    seats = analysis.seat_summary(frame()).set_index("seat")
    assert seats.loc[0, "win_rate"] == pytest.approx((1 + 1 + 0.5) / 3)
    assert seats.loc[0, "fair_share"] == 0.5
    run = analysis.run_summary(frame())
    assert run["games"] == 3 and run["tie_rate"] == pytest.approx(1 / 3)
    assert run["turns_mean"] == 40 and run["turns_median"] == 40


def test_per_game_margin_and_tie():
    g = analysis.per_game(frame()).set_index("game_index")
    assert list(g["margin"]) == [6.0, 6.0, 0.0]
    assert list(g["tie"]) == [False, False, True]


def test_format_table_merges_intervals_and_shows_percentages():
    t = analysis.format_table(analysis.strategy_summary(frame()))
    assert list(t.columns[:4]) == ["strategy", "player-games", "win rate", "95% CI"]
    assert t["win rate"].iloc[0] == "50.0%"
    assert "mean score 95% CI" in t.columns
