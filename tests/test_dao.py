"""Scenario tests for DAO (RULES.md §DAO): one per rule and ruling, on hand-built states.

Cards are written as (colour, value) with colours 0 metal, 1 fire, 2 earth, 3 wood, 4 water.
Decks are listed top card LAST (the next reveal is ``deck[-1]``); displays front card first.
"""

import json
import pickle
import random
import re

import pytest

from analyser.engine.core import InputError
from analyser.titles.dao import TITLE as GAME
from analyser.titles.dao.rules import (REVEAL, TAKE, Card, DaoParams, DaoState, DaoView, full_deck, recount,
                                scoring_colour_cards)
from analyser.engine.registry import make_strategy
from analyser.engine.runner import play_game

M, F, E, W, A = range(5)  # metal, fire, earth, wood, water


def numbers(text: str) -> list[float]:
    """The numbers of a description, in order ("faces 2 and 6 of die 1" -> [2, 6, 1])."""
    return [float(x) for x in re.findall(r"\d+(?:\.\d+)?", text)]


def state(display, deck, players=4, piles=None, current=0, reserve=(), **params):
    """A hand-built DAO state; ``unseen``, totals and scores are derived from the cards."""
    def cards(xs):
        return [Card(*c) for c in xs]
    return recount(DaoState(
        params=DaoParams(**params), n=players, display=cards(display), deck=cards(deck), reserve=cards(reserve),
        piles=[cards(p) for p in piles] if piles is not None else [[] for _ in range(players)],
        half_scores=[[] for _ in range(players)], half_marks=[[] for _ in range(players)], current=current,
        busts=[0] * players, gain=[], unseen=[], n_unseen=0))


# -- components and setup ---------------------------------------------------------------------

def test_components_sixty_cards_five_colours_values():
    deck = full_deck(5, DaoParams().values)
    assert len(deck) == 60
    for colour in range(5):
        values = sorted(v for c, v in deck if c == colour)
        assert values == [0, 1, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4]
        assert sum(values) == 23


def test_setup_reveals_three_and_seat_zero_starts():
    s = GAME.initial_state(DaoParams(), 4, random.Random(1))
    assert len(s.display) == 3
    assert len(s.deck) == 57
    assert GAME.current_player(s) == 0
    assert GAME.legal_actions(s) == (TAKE, REVEAL)
    GAME.check_invariants(s)


def test_setup_player_count_is_checked():
    with pytest.raises(InputError, match="players=7"):
        GAME.initial_state(DaoParams(), 7, random.Random(1))


def test_colours_and_values_options_change_the_deck():
    p = DaoParams(colours=3, values="1x2,5x1")
    assert sorted(full_deck(p.colours, p.values)) == sorted([Card(c, v) for c in range(3) for v in (1, 1, 5)])
    with pytest.raises(InputError, match="values"):
        DaoParams(values="1x2,banana")


# -- take ---------------------------------------------------------------------------------------

def test_take_moves_front_card_to_own_pile_and_shifts_display():
    s = state([(E, 3), (F, 1), (M, 2)], [(W, 1)] * 5)
    GAME.apply(s, TAKE)
    assert s.piles[0] == [Card(E, 3)]
    assert s.display == [Card(F, 1), Card(M, 2)]
    assert s.total == 3
    assert GAME.current_player(s) == 1  # clockwise: next seat


def test_turn_order_wraps_clockwise():
    s = state([(E, 1)] * 3, [(W, 0)] * 10, players=3, current=2)
    GAME.apply(s, REVEAL)
    assert GAME.current_player(s) == 0


# -- reveal and bust ----------------------------------------------------------------------------

def test_reveal_at_or_below_limit_changes_nothing_else():
    s = state([(E, 4), (F, 4)], [(W, 1), (M, 4)])  # reveal M4: total 12
    GAME.apply(s, REVEAL)
    assert s.display == [Card(E, 4), Card(F, 4), Card(M, 4)]
    assert s.total == 12
    assert s.piles[0] == []
    assert s.busts == [0, 0, 0, 0]


def test_reveal_over_limit_takes_whole_display():
    # RULES/seed example: revealing a water 4 makes 14; the player takes all 5 cards.
    disp = [(E, 3), (F, 1), (W, 4), (M, 2)]
    s = state(disp, [(F, 0), (M, 0), (E, 0), (W, 0), (A, 4)])
    GAME.apply(s, REVEAL)
    assert sorted(s.piles[0]) == sorted([Card(*c) for c in disp] + [Card(A, 4)])
    assert s.busts[0] == 1
    # the display emptied, so three new cards were revealed at once
    assert s.display == [Card(W, 0), Card(E, 0), Card(M, 0)]


def test_bust_limit_option():
    s = state([(E, 3), (F, 3)], [(W, 0)] * 3 + [(M, 2)], bust_limit=7)
    GAME.apply(s, REVEAL)  # total 8 > 7
    assert s.busts[0] == 1 and len(s.piles[0]) == 3


def test_equal_exception_adjacent_example_no_bust():
    # RULES.md: display [1, 4, 4], reveal a 4: total 13, equal to the adjacent 4 -> no bust.
    s = state([(E, 1), (F, 4), (M, 4)], [(W, 0)] * 3 + [(A, 4)])
    GAME.apply(s, REVEAL)
    assert s.piles[0] == []
    assert s.total == 13
    assert len(s.display) == 4
    assert s.busts[0] == 0


def test_equal_exception_adjacent_example_bust():
    # RULES.md: display [4, 3, 2], reveal a 4: total 13, the 4 differs from the 2 -> bust.
    s = state([(E, 4), (F, 3), (M, 2)], [(W, 0)] * 3 + [(A, 4)])
    GAME.apply(s, REVEAL)
    assert len(s.piles[0]) == 4 and s.busts[0] == 1


def test_equal_exception_front_compares_with_front_card():
    s = state([(E, 4), (F, 3), (M, 2)], [(W, 0)] * 3 + [(A, 4)], equal_exception="front")
    GAME.apply(s, REVEAL)
    assert s.piles[0] == [] and s.total == 13
    s = state([(E, 1), (F, 4), (M, 4)], [(W, 0)] * 3 + [(A, 4)], equal_exception="front")
    GAME.apply(s, REVEAL)
    assert s.busts[0] == 1 and len(s.piles[0]) == 4


def test_equal_exception_off_always_busts():
    s = state([(E, 1), (F, 4), (M, 4)], [(W, 0)] * 3 + [(A, 4)], equal_exception="off")
    GAME.apply(s, REVEAL)
    assert s.busts[0] == 1


def test_cards_kept_by_the_exception_may_not_be_taken_and_stay_for_the_next_player():
    s = state([(E, 1), (F, 4), (M, 4)], [(W, 0)] * 3 + [(A, 4)])
    GAME.apply(s, REVEAL)
    assert GAME.current_player(s) == 1
    assert s.total == 13
    GAME.apply(s, TAKE)  # seat 1 may take only the front card
    assert s.piles[1] == [Card(E, 1)]
    assert s.piles[0] == []


def test_reveal_when_display_already_over_limit_busts_unless_equal():
    s = state([(E, 4), (F, 4), (M, 4), (W, 4)], [(W, 0)] * 3 + [(A, 1)])
    GAME.apply(s, REVEAL)  # 17 > 12 and 1 != 4
    assert s.busts[0] == 1 and len(s.piles[0]) == 5


# -- refill ---------------------------------------------------------------------------------------

def test_refill_after_taking_last_display_card():
    s = state([(E, 2)], [(W, 0), (M, 1), (F, 2), (A, 3)])
    GAME.apply(s, TAKE)
    assert s.display == [Card(A, 3), Card(F, 2), Card(M, 1)]
    assert len(s.deck) == 1


def test_refill_uses_display_size_option():
    s = state([(E, 2)], [(W, 0)] * 3 + [(M, 1), (F, 2)], display_size=2)
    GAME.apply(s, TAKE)
    assert s.display == [Card(F, 2), Card(M, 1)]


def test_refill_never_busts():
    s = state([(E, 2)], [(W, 0), (M, 4), (F, 4), (A, 4), (E, 4)], bust_limit=5)
    GAME.apply(s, TAKE)
    assert s.total == 12 and s.busts == [0, 0, 0, 0] and len(s.display) == 3


# -- end of the game -------------------------------------------------------------------------------

def test_game_ends_when_last_card_is_revealed_and_display_leaves_the_game():
    s = state([(E, 1), (F, 1)], [(M, 2)])
    GAME.apply(s, REVEAL)
    assert GAME.is_terminal(s)
    assert GAME.legal_actions(s) == ()
    assert s.display == [] and sorted(s.out) == sorted([Card(E, 1), Card(F, 1), Card(M, 2)])
    assert s.piles[0] == []


def test_last_card_reveal_is_resolved_as_any_reveal_bust():
    s = state([(E, 4), (F, 4), (M, 3)], [(A, 2)])
    GAME.apply(s, REVEAL)
    assert GAME.is_terminal(s)
    assert len(s.piles[0]) == 4 and s.busts[0] == 1
    assert GAME.scores(s)[0] == 4 - 3  # best colour: earth 4 (or fire 4) minus 3 other cards


def test_last_card_reveal_exception_applies_too():
    s = state([(E, 4), (F, 4), (M, 3)], [(A, 3)])
    GAME.apply(s, REVEAL)
    assert GAME.is_terminal(s) and s.piles[0] == [] and len(s.out) == 4


def test_last_card_revealed_during_refill_ends_game_nobody_takes():
    s = state([(E, 2)], [(W, 0), (M, 1)])
    GAME.apply(s, TAKE)  # refill reveals M1 and W0: the last deck card
    assert GAME.is_terminal(s)
    assert s.piles[0] == [Card(E, 2)]
    assert sorted(s.out) == sorted([Card(W, 0), Card(M, 1)])
    assert all(p == [] for p in s.piles[1:])


def test_illegal_action_is_rejected():
    s = state([(E, 2)], [(W, 0)] * 4)
    with pytest.raises(ValueError, match="illegal"):
        GAME.apply(s, "steal")


# -- scoring ---------------------------------------------------------------------------------------

def test_score_seed_example_earth_eleven_minus_five():
    earth = [(E, 3), (E, 4), (E, 0), (E, 2), (E, 2)]
    others = [(F, 1), (M, 2), (W, 3), (A, 1), (F, 0)]
    s = state([(W, 1)], [(W, 0)] * 4, piles=[earth + others, [], [], []])
    assert GAME.scores(s)[0] == 6


def test_score_uses_best_net_colour_not_highest_sum():
    # red {4}, blue {1,1,1}, green {0}: blue nets 3 - 2 = 1, red nets 4 - 4 = 0.
    s = state([(W, 1)], [(W, 0)] * 4, piles=[[(F, 4), (A, 1), (A, 1), (A, 1), (E, 0)], [], [], []])
    assert GAME.scores(s)[0] == 1


def test_no_cards_scores_zero_and_scores_can_be_negative():
    s = state([(W, 1)], [(W, 0)] * 4, piles=[[], [(F, 0), (A, 0), (E, 0)], [], []])
    assert GAME.scores(s)[:2] == [0, -2]


def test_highest_score_wins():
    s = state([(W, 1)], [(W, 0)], piles=[[(E, 4)], [(E, 3)], [], []])
    GAME.apply(s, REVEAL)
    assert GAME.winners(s) == [0]
    assert GAME.ranks(s) == [1, 2, 3, 3]


def test_tie_break_most_cards_then_shared():
    piles = [[(E, 3)], [(F, 2), (F, 2), (M, 1)], [(A, 3)], []]  # scores 3, 3 (4+... ), 3
    s = state([(W, 1)], [(W, 0)], piles=piles)
    GAME.apply(s, REVEAL)
    assert GAME.scores(s)[:3] == [3, 3, 3]
    assert GAME.winners(s) == [1]  # three cards beat one
    s = state([(W, 1)], [(W, 0)], piles=[[(E, 3)], [(F, 3)], [], []])
    GAME.apply(s, REVEAL)
    assert GAME.winners(s) == [0, 1]  # equal cards: shared


def test_tie_break_shared_option():
    piles = [[(E, 3)], [(F, 2), (F, 2), (M, 1)], [], []]
    s = state([(W, 1)], [(W, 0)], piles=piles, tie_break="shared")
    GAME.apply(s, REVEAL)
    assert GAME.winners(s) == [0, 1]


# -- seat bonus (a variant) --------------------------------------------------------------------------

def test_seat_bonus_adds_to_the_final_score_and_changes_the_winner():
    # seat 0 scores 4, seat 1 scores 3 plus a 2-point start bonus: seat 1 wins
    s = state([(W, 1)], [(W, 0)], piles=[[(E, 4)], [(E, 3)], [], []], seat_bonus="0/2/0/0")
    GAME.apply(s, REVEAL)
    assert GAME.scores(s) == [4, 5, 0, 0]
    assert GAME.winners(s) == [1] and GAME.ranks(s) == [2, 1, 3, 3]


def test_seat_bonus_single_value_applies_to_every_seat_and_shows_in_view_and_trace():
    s = state([(W, 1)], [(W, 0)] * 3, piles=[[(E, 4)], [], [], []], seat_bonus="3", display_size=1)
    assert GAME.view(s, 2).score() == 3 and GAME.view(s, 0).score() == 7
    for _ in range(3):  # seats 0, 1, 2 take; the last refill empties the deck and ends the game
        GAME.apply(s, TAKE)
    assert GAME.is_terminal(s) and GAME.scores(s) == [6, 3, 3, 3]  # earth 4 - 1 for the wood card, + 3
    trace = [m["score_trace"] for m in GAME.metrics(s)]
    assert [int(t[-1]) for t in trace] == GAME.scores(s)


def test_seat_bonus_tie_goes_to_the_tie_break():
    # 3 + 1 bonus ties 4; most_cards: seat 1 holds two cards, seat 0 one
    s = state([(W, 1)], [(W, 0)], piles=[[(E, 4)], [(F, 3), (F, 0)], [], []], seat_bonus="0/1/0/0")
    GAME.apply(s, REVEAL)
    assert GAME.scores(s)[:2] == [4, 4] and GAME.winners(s) == [1]


@pytest.mark.parametrize("value, players, match", [
    ("0/x", 4, "give one whole number for all seats \\(such as 2\\) or one per seat"),
    ("0/0/1", 4, "gives 3 values for 4 seats"),
    ("1,2", 4, "give one whole number for all seats \\(such as 2\\) or one per seat"),
])
def test_seat_bonus_bad_values_are_one_line_errors(value, players, match):
    with pytest.raises(InputError, match=match):
        GAME.check_players(DaoParams.from_overrides({"seat_bonus": value}), players)


# -- two-player variant ---------------------------------------------------------------------------

def test_two_player_halves_default_on_at_two_players():
    s = GAME.initial_state(DaoParams(), 2, random.Random(3))
    assert len(s.deck) + len(s.display) == 30 and len(s.reserve) == 30
    s4 = GAME.initial_state(DaoParams(), 4, random.Random(3))
    assert s4.reserve == []
    s_off = GAME.initial_state(DaoParams(two_player_halves="off"), 2, random.Random(3))
    assert s_off.reserve == [] and len(s_off.deck) == 57
    s_on = GAME.initial_state(DaoParams(two_player_halves="on"), 3, random.Random(3))
    assert len(s_on.reserve) == 30


def test_two_player_halves_scores_add_and_other_player_starts_second_half():
    half2 = [(W, 0), (W, 0), (W, 0), (A, 1), (A, 1), (A, 1)]
    s = state([(E, 4), (E, 3)], [(M, 0)], players=2, reserve=half2,
              piles=[[(E, 2)], [(F, 1)]], current=0)
    GAME.apply(s, REVEAL)  # last card of half 1: total 7, no bust; half ends
    assert not GAME.is_terminal(s)
    assert s.half_scores == [[2], [1]]
    assert GAME.current_player(s) == 1  # seat 1 did not start half 1
    assert s.display == [Card(A, 1), Card(A, 1), Card(A, 1)]
    GAME.apply(s, TAKE)  # seat 1 takes water 1
    GAME.apply(s, TAKE)  # seat 0 takes water 1
    GAME.apply(s, REVEAL)  # seat 1 reveals W0; total 1
    GAME.apply(s, REVEAL)  # seat 0 reveals W0
    GAME.apply(s, REVEAL)  # seat 1 reveals the last W0: game over
    assert GAME.is_terminal(s)
    # half 2: each has one water 1 -> 1 point; the half-1 earth/fire cards do not combine with it
    assert GAME.scores(s) == [2 + 1, 1 + 1]
    assert s.half_scores == [[2, 1], [1, 1]]


def test_two_player_halves_each_half_scored_on_its_own_cards():
    # With the union, seat 0 would score earth 2 + 4 - ... ; per half it is 2 then 4.
    s = state([(E, 4)], [(M, 0)], players=2, reserve=[(W, 0)] * 5 + [(E, 4)], piles=[[(E, 2), (F, 1)], []])
    GAME.apply(s, REVEAL)  # half 1 ends: seat 0 scores max(earth 2 - 1, fire 1 - 1) = 1
    assert s.half_scores[0] == [1]
    assert s.display == [Card(E, 4), Card(W, 0), Card(W, 0)]
    GAME.apply(s, REVEAL)  # seat 1 (starts half 2) reveals W0
    GAME.apply(s, TAKE)  # seat 0 takes E4
    assert GAME.scores(s)[0] == 1 + 4


# -- views and hidden information --------------------------------------------------------------------

def test_view_hides_deck_order_but_shows_public_composition():
    s = state([(E, 1), (F, 2)], [(W, 0), (A, 3), (M, 4)])
    v = GAME.view(s, 1)
    public = [a for a in dir(v) if not a.startswith("_")]
    assert "deck" not in public and "reserve" not in public
    assert v.deck_size == 3
    assert v.unseen[A][3] == 1 and v.unseen[M][4] == 1 and v.unseen[W][0] == 1
    assert v.n_unseen == 3
    GAME.apply(s, REVEAL)
    assert v.unseen[M][4] == 0 and v.n_unseen == 2 and v.total == 7  # live view


def test_json_and_pickle_round_trip_mid_game():
    s = GAME.initial_state(DaoParams(two_player_halves="on"), 3, random.Random(9))
    r = random.Random(2)
    for _ in range(40):
        GAME.apply(s, r.choice(GAME.legal_actions(s)))
    again = GAME.state_from_dict(json.loads(json.dumps(GAME.state_to_dict(s))))
    assert again == s
    assert pickle.loads(pickle.dumps(s)) == s
    assert GAME.clone_state(s) == s and GAME.clone_state(s) is not s


def test_malformed_state_is_an_input_error_naming_the_field():
    with pytest.raises(InputError) as e:
        GAME.state_from_dict({"n": 2})
    assert "params" in str(e.value) and "\n" not in str(e.value)


# -- metrics ------------------------------------------------------------------------------------------

def test_metrics_cards_busts_and_scoring_colour_share():
    s = state([(E, 4), (F, 4), (M, 3)], [(A, 2)], piles=[[(E, 3), (E, 2), (F, 0)], [], [], []])
    GAME.apply(s, REVEAL)  # bust on the last card: seat 0 takes E4 F4 M3 A2
    m = GAME.metrics(s)
    assert m[0]["cards"] == 7 and m[0]["busts"] == 1
    # earth: 3+2+4 = 9 minus 4 others = 5 is the best colour; 3 of 7 cards are earth
    assert m[0]["colour_share"] == pytest.approx(3 / 7)
    assert m[1]["cards"] == 0 and m[1]["colour_share"] != m[1]["colour_share"]  # NaN
    assert m[0]["turns"] == 1
    assert scoring_colour_cards([Card(F, 4), Card(A, 1), Card(A, 1), Card(A, 1)], 5) == 3


# -- strategies ---------------------------------------------------------------------------------------

def view_for(s, seat=0):
    return DaoView(s, seat)


def test_threshold_reveals_up_to_limit_then_takes():
    t = make_strategy("threshold:limit=6", "dao")
    assert t.choose(view_for(state([(E, 3), (F, 3)], [(W, 0)] * 3)), (TAKE, REVEAL), None) is REVEAL
    assert t.choose(view_for(state([(E, 4), (F, 3)], [(W, 0)] * 3)), (TAKE, REVEAL), None) is TAKE


def test_greedy_takes_a_card_of_its_colour_when_reveal_cannot_bust():
    s = state([(E, 3)], [(W, 0)] * 5, piles=[[(E, 2)], [], [], []])
    g = make_strategy("greedy", "dao")
    assert g.choose(view_for(s), (TAKE, REVEAL), None) is TAKE  # +3 now, a reveal cannot bust
    s = state([(F, 0)], [(W, 0)] * 5, piles=[[(E, 2)], [], [], []])
    assert g.choose(view_for(s), (TAKE, REVEAL), None) is REVEAL  # taking F0 costs 1


def test_greedy_reveal_expectation_matches_hand_computation():
    from importlib import import_module
    from analyser.engine.registry import builtin_strategies
    mod = import_module(builtin_strategies("dao")["greedy"].__module__)
    # display total 11 with the front a fire 0; unseen: one metal 4 (bust), one water 1 (no bust).
    s = state([(F, 0), (E, 4), (W, 4), (A, 3)], [(M, 4), (A, 1)], piles=[[], [], [], []])
    v = view_for(s)
    # A bust (p = 1/2) takes F0 E4 W4 A3 M4: every colour nets 4+1-5 = 0 at best -> change 0.
    assert mod.reveal_gain(v, s.gain[0]) == pytest.approx(0.0)
    s = state([(F, 0), (E, 4), (W, 4), (A, 3)], [(M, 4), (A, 1)], piles=[[(F, 3)], [], [], []])
    v = view_for(s)
    # before: fire 3 -> score 3.  Bust: fire 3+0 minus 4 others = -1, every other colour 4 - 5;
    # change -4 with p = 1/2 -> -2.  Taking F0 changes nothing (fire 3 + 0).
    assert mod.reveal_gain(v, s.gain[0]) == pytest.approx(-2.0)
    assert mod.take_gain(s.gain[0], Card(F, 0)) == 0
    assert make_strategy("greedy", "dao").choose(v, (TAKE, REVEAL), None) is TAKE
    # with the front a metal 1 instead, taking costs 1 and the reveal still costs 2 -> take
    assert mod.take_gain(s.gain[0], Card(M, 1)) == -1


def test_colour_strategy_takes_only_its_colour():
    c = make_strategy("colour", "dao")
    s = state([(F, 3)], [(W, 0)] * 5, piles=[[(E, 2), (E, 3)], [], [], []])
    assert c.choose(view_for(s), (TAKE, REVEAL), None) is REVEAL
    s = state([(E, 1)], [(W, 0)] * 5, piles=[[(E, 2), (E, 3)], [], [], []])
    assert c.choose(view_for(s), (TAKE, REVEAL), None) is TAKE


def test_colour_strategy_commits_with_a_single_colour():
    c = make_strategy("colour", "dao")
    s = state([(M, 1)], [(M, 0)] * 5, piles=[[(M, 2)], [], [], []], colours=1)
    assert c.choose(view_for(s), (TAKE, REVEAL), None) is TAKE


def test_random_strategy_uses_its_own_stream():
    r = make_strategy("random", "dao")
    s = state([(F, 3)], [(W, 0)] * 5)
    picks = [r.choose(view_for(s), (TAKE, REVEAL), random.Random(k)) for k in range(40)]
    assert set(picks) == {TAKE, REVEAL}


# -- golden seeded playthrough ------------------------------------------------------------------------

def test_golden_playthrough_greedy_vs_threshold():
    """A fixed game: any change to the rules, the shuffle or these strategies shows here."""
    strats = [make_strategy(x, "dao") for x in ("greedy", "threshold", "colour", "random")]
    labels = ["greedy", "threshold", "colour", "random"]
    actions = []
    final = play_game(GAME, DaoParams(), strats, labels, 20260101,
                      on_step=lambda st, seat, a: actions.append(a.value[0]))
    assert "".join(actions[:24]) == GOLDEN_ACTIONS
    assert GAME.scores(final) == GOLDEN_SCORES
    assert final.turn == GOLDEN_TURNS


# Recorded from the engine on 2026-11-30; t = take, r = reveal.
GOLDEN_ACTIONS = "trrrrtrttrtrtrrrrrrtrtrr"
GOLDEN_SCORES = [6, -1, -2, 5]
GOLDEN_TURNS = 56


def test_greedy_expectations_match_brute_force_on_random_states():
    """take_gain and reveal_gain against a plain re-computation: apply every unseen card to a
    copy of the state and average the change of the seat's score."""
    from importlib import import_module
    from analyser.engine.registry import builtin_strategies
    mod = import_module(builtin_strategies("dao")["greedy"].__module__)
    rng = random.Random(8)
    checked = 0
    for game in range(40):
        params = DaoParams(equal_exception=("adjacent", "front", "off")[game % 3])
        s = GAME.initial_state(params, 3, random.Random(game))
        for _ in range(rng.randrange(0, 40)):
            if GAME.is_terminal(s):
                break
            GAME.apply(s, rng.choice(GAME.legal_actions(s)))
        if GAME.is_terminal(s):
            continue
        seat = s.current
        before = GAME.scores(s)[seat]
        # take: the change the front card makes
        t = GAME.clone_state(s)
        GAME.apply(t, TAKE)
        assert mod.take_gain(s.gain[seat], s.display[0]) == GAME.scores(t)[seat] - before
        # reveal: every unseen card equally likely next
        total, n = 0, 0
        for c, row in enumerate(s.unseen):
            for v, k in enumerate(row):
                if k:
                    t = GAME.clone_state(s)
                    t.deck.append(Card(c, v))  # put that card on top
                    GAME.apply(t, REVEAL)
                    total += k * (GAME.scores(t)[seat] - before if t.half == s.half else 0)
                    n += k
        if s.reserve == [] and len(s.deck) == 1:
            continue  # the game would end: the brute force would score a finished game
        assert mod.reveal_gain(DaoView(s, seat), s.gain[seat]) == pytest.approx(total / n)
        checked += 1
    assert checked > 25


# -- report figures, chunk by chunk (issue 9) ---------------------------------------------------------

#: Under pytest-xdist (--dist loadgroup) this file's tests run in one worker, so its module-scoped
#: fixtures are built once, not once per worker.
pytestmark = pytest.mark.xdist_group("test_dao")


@pytest.fixture(scope="module")
def dao_run():
    from analyser import run as runmod
    spec = runmod.RunSpec(game="dao", strategies=["greedy", "threshold", "random"], players=4,
                          games=300, seed=11, jobs=1)
    return runmod.run(spec, progress=False)


def _chunked_sums(results, extras, chunk_games):
    from analyser.stats.streamed import chunk_frame, reduce_sums
    return reduce_sums(GAME.figure_sums(c, e) for c, e in chunk_frame(results, extras, chunk_games))


@pytest.fixture(scope="module")
def chunked_sums(dao_run):
    """The run's figure sums over chunks of 7 games, combined."""
    return _chunked_sums(dao_run.results, dao_run.extras, 7)


def test_figure_tables_from_chunks_equal_the_whole_frame_and_plain_means(dao_run, chunked_sums):
    import pandas as pd
    df, extras = dao_run.results, dao_run.extras
    assert df["colour_share"].isna().any()  # players without cards: left out of the share's mean
    whole = GAME.figure_tables(df, extras)
    chunked = GAME.figure_tables_from(chunked_sums)
    assert [c for c, _ in whole] == [c for c, _ in chunked] == [
        "DAO figures per strategy (means per player per game)"]
    pd.testing.assert_frame_equal(whole[0][1], chunked[0][1], rtol=1e-9, atol=1e-9)
    table = chunked[0][1]
    assert list(table["strategy"]) == ["greedy", "threshold", "random"]  # the run's order
    plain = df.groupby("strategy", observed=True)[["busts", "cards", "colour_share"]].mean()
    for col, name in (("busts", "busts_per_game"), ("cards", "cards_per_player"),
                      ("colour_share", "scoring_colour_share")):
        assert table[name].to_numpy() == pytest.approx(plain[col].to_numpy(), rel=1e-9, abs=1e-9)


def test_figure_sums_stay_small(dao_run, chunked_sums):
    df = dao_run.results
    n_strategies = df["strategy"].nunique()
    for sums in (GAME.figure_sums(df, {}), chunked_sums):
        assert len(sums["strategy"]) == n_strategies
        assert sums["strategy"]["players"].sum() == len(df)
        assert len(sums["cards"]) <= n_strategies * 61  # 0 to 60 cards in a pile
        assert sums["cards"]["players"].sum() == len(df)
        assert list(sums["cards"].index.names) == ["strategy", "cards"]


def test_plots_from_combined_sums_write_the_cards_box_plot(dao_run, chunked_sums, tmp_path):
    from analyser.stats import plots
    files = GAME.plots_from(chunked_sums, tmp_path, ["greedy", "threshold", "random"])
    assert [f for f, _ in files] == ["cards.png"]
    assert (tmp_path / "cards.png").stat().st_size > 1000
    # the whole-frame hook draws the same figure from the same sums
    (tmp_path / "whole").mkdir()
    whole = GAME.plots(plots.safe_strategies(dao_run.results), dao_run.extras, tmp_path / "whole")
    assert [f for f, _ in whole] == ["cards.png"]
    assert (tmp_path / "whole" / "cards.png").read_bytes() == (tmp_path / "cards.png").read_bytes()


def test_metric_box_counts_draws_what_metric_box_draws_from_rows(tmp_path):
    """The box plot from value counts is the box plot of the rows written out (pixel for pixel,
    on data whose outliers are distinct values: a repeated outlier is drawn once)."""
    import numpy as np
    import pandas as pd
    from matplotlib import image

    from analyser.stats import plots
    rng = np.random.default_rng(3)
    rows = pd.DataFrame({"strategy": pd.Categorical(["greedy"] * 400 + ["random"] * 300 + ["x"] * 5,
                                                    categories=["random", "greedy", "x"]),
                         "cards": np.concatenate([rng.integers(5, 20, 399), [45], rng.integers(10, 30, 298),
                                                  [0, 55], [3, 3, 4, 9, 9]]).astype(float)})
    rows.loc[7, "cards"] = np.nan  # a missing value is left out by both
    counts = rows.dropna().groupby(["strategy", "cards"], observed=True).size()
    a = plots.metric_box(rows, "cards", "Cards", "cards", tmp_path / "rows.png")
    b = plots.metric_box_counts(counts, ["random", "greedy", "x"], "Cards", "cards", tmp_path / "counts.png")
    assert a == ("rows.png", b[1]) and b[0] == "counts.png"
    assert np.array_equal(image.imread(tmp_path / "rows.png"), image.imread(tmp_path / "counts.png"))


# -- components (component impact) -----------------------------------------------------------

def test_components_are_the_cards_taken_by_colour_and_value_busts_included():
    s = state([(E, 3), (F, 1), (W, 4), (M, 2)], [(F, 0), (M, 0), (E, 0), (W, 0), (A, 4)])
    GAME.apply(s, TAKE)  # seat 0 takes the earth 3
    GAME.apply(s, REVEAL)  # seat 1 reveals the water 4: 11, no bust
    GAME.apply(s, REVEAL)  # seat 2 reveals the wood 0: still 11, no bust
    held = GAME.components(s)
    assert [str(c) for c in held[0]] == ["earth 3"] and held[1] == [] and held[2] == []
    s = state([(E, 3), (F, 1), (W, 4), (M, 2)], [(F, 0), (M, 0), (E, 0), (W, 0), (A, 4)])
    GAME.apply(s, REVEAL)  # the bust hands seat 0 all five cards
    assert sorted(str(c) for c in GAME.components(s)[0]) == ["earth 3", "fire 1", "metal 2", "water 4", "wood 4"]
    from analyser.titles.dao.rules import Dao as Rules
    catalog = Rules.component_catalog(GAME, DaoParams())  # the rules' catalog: every colour and value
    assert list(catalog)[:5] == ["metal 0", "metal 1", "metal 2", "metal 3", "metal 4"] and len(catalog) == 25
    assert catalog["fire 3"]["what"].split()[0] == "fire" and numbers(catalog["fire 3"]["what"]) == [3, 3]
    assert catalog["fire 3"]["fix"] == "values=0x1,1x4,2x3,3x2,4x1"
    # the title merges the colours (alike by the rules): one entry per value, the same fix
    merged = GAME.component_catalog(DaoParams())
    assert list(merged) == ["value 0", "value 1", "value 2", "value 3", "value 4"]
    assert "fire" not in merged["value 3"]["what"] and numbers(merged["value 3"]["what"]) == [3, 3]
    assert merged["value 3"]["fix"] == "values=0x1,1x4,2x3,3x2,4x1"
    assert GAME.component_collapse(["fire 3", "water 3", "metal 0"]) == {
        "fire 3": "value 3", "water 3": "value 3", "metal 0": "value 0"}
