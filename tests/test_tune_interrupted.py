"""An interrupted tune's report counts its trials one way: the trials table, the card and the
summary agree on how many finished and how many games each unfinished trial played."""
import re

import pandas as pd

from analyser.engine.registry import get_game
from analyser.experiments import tune, tune_report

CELLS = [{"name": "trial-0000", "status": "interrupted", "games_done": [[0, 4]]},
         {"name": "trial-0001", "status": "complete", "games_done": [[0, 6], [6, 10]]}]


def _stopped_tune():
    """A tune of 24 trials stopped in its first batch: trials 0-2 asked, none told; trial 1's
    games all played, trial 0's partly, trial 2's not started."""
    game = get_game("dao")
    space = tune.parse_space(game, ["greedy", "random"], ["bust_limit=9..12"])
    targets = [tune.parse_target("seat_gap=min", game, space)]
    rows = [{"trial": k, "state": "running", "bust_limit": 9 + k, "seat_gap": float("nan"),
             "seat_gap.low": float("nan"), "seat_gap.high": float("nan"), "games": 0, "same_as": -1,
             "error": "", "undefined": "", "feasible": False, "score": float("nan"), "violation": 0.0}
            for k in range(3)]
    config = {"game": "dao", "trials": 24, "games_requested": 10, "seed": 5, "cells": CELLS,
              "status": "interrupted"}
    table = tune.games_played(pd.DataFrame(rows), config)
    return tune.TuneResult(space, targets, table, pd.DataFrame(), [], config, "interrupted")


def test_an_unfinished_trial_shows_the_games_its_folder_holds():
    res = _stopped_tune()
    assert res.trials["games"].tolist() == [4, 10, 0]
    assert res.trials["state"].tolist() == ["running"] * 3


def test_a_told_trial_keeps_the_games_it_was_told_with():
    table = pd.DataFrame({"trial": [0, 1], "state": ["complete", "running"], "games": [7, 0]})
    out = tune.games_played(table, {"cells": CELLS})
    assert out["games"].tolist() == [7, 10]


def test_the_card_and_the_summary_count_the_same_finished_trials(tmp_path):
    res = _stopped_tune()
    counts = tune_report.summary_record(res).counts
    assert (counts["finished"], counts["asked"]) == (1, 24)
    tune_report.write_tune(res, tmp_path)
    page = (tmp_path / "index.html").read_text()
    card = re.search(r'<div class="card"><span>trials</span><b>(\d+) / (\d+)</b>', page)
    assert card is not None and (int(card[1]), int(card[2])) == (1, 24)
