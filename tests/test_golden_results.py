"""Golden results: the same seed gives the same games, every column, row for row, for every title
and engine.  A change that is meant to change the games regenerates ``tests/golden/results.json``
with ``python tests/golden/make_golden.py`` and says so."""

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "golden"))
from make_golden import CASES, FILE, case_id, digests  # noqa: E402

GOLDEN = json.loads(FILE.read_text())


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_games_equal_the_golden_results(case):
    assert digests(case) == GOLDEN[case_id(case)]
