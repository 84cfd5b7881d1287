"""Wizard's compiled engine (analyser/titles/wizard/compiled.py, kernel.py): the numba kernel plays the
very games the Python path plays - every column of every row, the score traces, the components
table and the ``rounds`` extra table - for every rule option and player count and every built-in
strategy it covers; what it does not cover is refused with the reason and played in Python."""

import dataclasses

import numpy as np
import pytest

from analyser.engine import compiled, traces
from analyser.engine.core import InputError
from analyser.engine.registry import get_game
from analyser.engine.runner import BatchJob, run_batch

pytest.importorskip("numba")

DEFAULT = ("expected", "bot:bid=zero", "bot:bid=expected,play=random", "random")


def assert_same(py, co):
    """Two BatchResults hold the same games: every column (dtype included), trace, component row
    and extra-table cell (the same type of column, the same values)."""
    assert (co.done, co.error, co.interrupted) == (py.done, None, False)
    assert py.error is None and py.done > 0
    assert list(co.columns) == list(py.columns)
    for name, a in py.columns.items():
        b = co.columns[name]
        if isinstance(a, traces.Packed):
            assert isinstance(b, traces.Packed) and b.values.dtype == a.values.dtype and b.missing is None
            np.testing.assert_array_equal(b.values, a.values, err_msg=name)
            np.testing.assert_array_equal(b.offsets, a.offsets, err_msg=name)
        else:
            assert b.dtype == a.dtype, name
            np.testing.assert_array_equal(b, a, err_msg=name)
    assert co.components == py.components
    assert list(co.extras) == list(py.extras) == ["rounds"]
    ours, theirs = co.extras["rounds"], py.extras["rounds"]
    assert list(ours) == list(theirs)
    for key, a in theirs.items():
        b = ours[key]
        assert type(b) is type(a), key
        if isinstance(a, np.ndarray):
            assert b.dtype == a.dtype, key
            np.testing.assert_array_equal(b, a, err_msg=key)
        else:  # text, or whole numbers mixed with NaN: compared cell by cell, types included
            assert [(type(x), repr(x)) for x in b] == [(type(x), repr(x)) for x in a], key


def both(strategies, players, rules=(), start=3, stop=9, seed=20240611):
    job = BatchJob("wizard", tuple(sorted(rules)), tuple(strategies), players, seed, start, stop, 0.0)
    return run_batch(job), run_batch(dataclasses.replace(job, engine="compiled"))


# Every value of every rule option at least once, at every player count.
GRID = [
    ({}, 3), ({}, 4), ({}, 5), ({}, 6),
    ({"wizard_trump": "dealer_chooses"}, 4), ({"wizard_trump": "dealer_chooses"}, 6),
    ({"wizard_trump": "first_card"}, 5),
    ({"round_starter": "rotate"}, 3), ({"round_starter": "rotate"}, 5),
    ({"round_starter": "last_trick_winner"}, 6),
    ({"follow_suit": "official"}, 4), ({"follow_suit": "official"}, 3), ({"follow_suit": "seed"}, 6),
    ({"hook": "on"}, 3), ({"hook": "on"}, 4), ({"hook": "off"}, 5),
    ({"seat_bonus": "10"}, 4), ({"seat_bonus": "0/0/-20/30/1000"}, 5),
    ({"wizard_trump": "dealer_chooses", "round_starter": "rotate", "follow_suit": "official", "hook": "on"}, 6),
    ({"wizard_trump": "dealer_chooses", "hook": "on", "seat_bonus": "-1000"}, 3),
]


@pytest.mark.parametrize("rules,players", GRID, ids=[f"{p}p-" + ",".join(f"{k}={v}" for k, v in r.items())
                                                     for r, p in GRID])
def test_compiled_plays_the_python_games_for_every_rule_option_and_player_count(rules, players):
    lineup = list(DEFAULT) + ["bot:bid=random,play=greedy", "expected:bias=1.5"]
    assert_same(*both(lineup[:players], players, tuple(rules.items())))


@pytest.mark.parametrize("spec", ["expected", "random", "bot:bid=zero", "bot:bid=expected,play=random",
                                  "bot:bid=random,play=greedy", "wizard-bot:bid=zero,play=random",
                                  "expected:bias=-0.7", "bot:bid=expected,play=greedy,bias=20"])
def test_each_built_in_strategy_alone_fills_every_seat(spec):
    assert_same(*both([spec], 4, (("wizard_trump", "dealer_chooses"), ("hook", "on")), stop=7))


def test_uneven_lineups_and_a_later_batch_play_the_same_games():
    assert_same(*both(["expected", "random", "bot:bid=zero"], 5, start=41, stop=47, seed=7))


@pytest.mark.parametrize("spec", ["bot:bid=montecarlo,samples=2", "mcts:iterations=5"])
def test_what_the_kernel_does_not_play_is_refused_and_played_in_python(spec):
    game = get_game("wizard")
    params = game.Params.from_overrides({})
    engine, reason = compiled.choose(game, params, 4, ["expected", spec])
    assert engine == "python" and reason.startswith("strategy")
    with pytest.raises(InputError):
        compiled.choose(game, params, 4, ["expected", spec], "compiled")
    assert compiled.choose(game, params, 4, list(DEFAULT)) == ("compiled", None)
