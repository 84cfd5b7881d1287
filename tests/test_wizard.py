"""Scenario tests for Wizard (RULES.md §Wizard): one per rule and ruling, on hand-built states.

Cards are written as codes: ``Z`` Wizard, ``N`` Jester, a suit letter (B blue, G green, R red,
Y yellow) and a rank 1-13, e.g. ``R7``.  Suits are numbered 0 blue, 1 green, 2 red, 3 yellow.
Hand-built states come from :func:`state` (a saved state that ``state_from_dict`` loads, with the
led suit, the trick's current winner and a pending trump replayed from the cards already in the
trick).
"""

import json
import math
import pickle
import random

import pytest

from analyser.engine.core import InputError
from analyser.titles.wizard import TITLE as GAME
from analyser.titles.wizard.rules import (BIDS, CHOOSE_TRUMP, FULL_DECK, JESTER, LED_FREE, LED_NONE, OVER,
                                   PLAY, PLAYS, TRUMP, WIZARD, Bid, Card, ChooseTrump, Play, RoundRecord,
                                   WizardParams, WizardPublic, beats, card_from_code, card_of, hand_groups,
                                   trick_winner)
from analyser.engine.registry import available_strategies, make_strategy
from analyser.engine.runner import play_game

B, G, R, Y = range(4)


def cards(*codes):
    """Cards from their codes: ``cards("R9", "Z")`` or ``cards("R9 Z")``."""
    return [card_from_code(c) for code in codes for c in code.split()]


def state(hands, **kw):
    """A hand-built state, loaded from its saved form (``state_to_dict``'s JSON); ``hands`` is one
    string of card codes per seat, ``trick`` and ``played`` strings of codes, ``deck`` a list of
    codes, ``trump`` a suit name or None, ``rules`` the rule options.  Left out: round = largest
    hand + finished tricks, phase "play" when every bid is in else "bid", ``current`` = next seat
    of the trick (or the next bidder), ``leaders`` = [starter] in play, ``trump`` from
    ``trump_card``; the led suit, the trick's winner and (in the round's first trick) a pending
    trump are replayed from ``trick``."""
    rules = kw.pop("rules", {})
    params = WizardParams(**rules)
    n = len(hands)
    for key in ("trick", "played"):
        if isinstance(kw.get(key), str):
            kw[key] = kw[key].split()
    played, trick = kw.pop("played", []), kw.pop("trick", [])
    bids = kw.pop("bids", [None] * n)
    rnd = kw.pop("round", max(len(h.split()) for h in hands) + len(played) // n)
    starter = kw.pop("starter", 0)
    phase = kw.pop("phase", PLAY if all(b is not None for b in bids) else "bid")
    leaders = kw.pop("leaders", [starter] if phase == PLAY else [])
    tc = kw.pop("trump_card", None)
    turned = card_from_code(tc) if tc is not None else None
    if "trump" in kw:
        trump = kw.pop("trump")
        trump = None if trump is None else ["blue", "green", "red", "yellow"].index(trump)
    else:
        trump = turned.suit if turned is not None and turned.rank not in (JESTER, WIZARD) else None
    pending = (turned is not None and turned.rank == WIZARD and params.wizard_trump == "first_card"
               and trump is None and not played)
    lead = leaders[-1] if leaders else starter
    if "current" in kw:
        current = kw.pop("current")
    elif phase == PLAY:
        current = (lead + len(trick)) % n
    else:
        current = (starter + sum(b is not None for b in bids)) % n
    led, win_card, win_seat = LED_NONE, None, None
    for i, c in enumerate(cards(" ".join(trick))):
        if c.rank not in (JESTER, WIZARD) and pending:
            trump, pending = c.suit, False
        if beats(c, win_card, led, trump):
            win_card, win_seat = c, (lead + i) % n
        if led == LED_NONE and c.rank != JESTER:
            led = LED_FREE if c.rank == WIZARD else c.suit
    pub = {"params": rules, "n": n, "n_rounds": kw.pop("n_rounds", 60 // n), "round": rnd, "phase": phase,
           "dealer": kw.pop("dealer", (starter - 1) % n), "starter": starter, "current": current,
           "trump_card": tc, "trump": trump, "trump_pending": pending, "bids": bids,
           "n_bids": sum(b is not None for b in bids), "tricks": kw.pop("tricks", [0] * n),
           "scores": kw.pop("scores", list(params.bonus(n))), "played": played, "leaders": leaders,
           "trick": trick, "led": led, "win_seat": win_seat, "win_card": win_card and win_card.code}
    groups = [[[a.card.code for a in grp] for grp in hand_groups(cards(h))] for h in hands]
    d = {"game": "wizard", "pub": pub, "groups": groups,
         "undealt": [FULL_DECK.index(c) for c in cards(" ".join(kw.pop("deck", [])))],
         "log": kw.pop("log", []), "tricks_played": kw.pop("tricks_played", 0)}
    assert not kw, kw
    return GAME.state_from_dict(json.loads(json.dumps(d)))


def plays(text):
    return [PLAYS[c] for c in cards(text)]


def legal_codes(s):
    return [a.card.code for a in GAME.legal_actions(s)]


def play_all(s, text, rng=None):
    for a in plays(text):
        GAME.apply(s, a, rng or random.Random(0))


class Chance:
    """A stand-in for ``random.Random`` that makes the deal put chosen deck positions first.

    ``Chance({4: 59})`` puts the card at deck position 59 (a Wizard) at place 4 of the shuffle
    (the deal's Fisher-Yates pass draws ``int(random() * (60 - i))`` for place ``i``); every other
    draw is 0, which keeps the unshuffled order.  Deck positions: Jesters 0-3, blue 1-13 at 4-16,
    green 17-29, red 30-42, yellow 43-55, Wizards 56-59.
    """

    def __init__(self, picks=None):
        self.picks = dict(picks or {})
        self.order = list(range(60))
        self.i = 0

    def random(self):
        i = self.i
        self.i += 1
        want = self.picks.get(i)
        j = i if want is None else self.order.index(want)
        assert j >= i
        self.order[i], self.order[j] = self.order[j], self.order[i]
        return (j - i + 0.5) / (60 - i)


def dealt(n, r, picks=None, **rules):
    """A state whose round ``r`` was just dealt with :class:`Chance` (last trick winner seat 1)."""
    s = GAME.initial_state(WizardParams(**rules), n, random.Random(0))
    GAME._deal(s, r, 1, Chance(picks))
    return s


# -- components and setup ---------------------------------------------------------------------

def test_components_sixty_cards_four_suits_wizards_and_jesters():
    assert len(FULL_DECK) == 60
    for suit in range(4):
        assert sorted(c.rank for c in FULL_DECK if c.suit == suit and c.rank not in (JESTER, WIZARD)) == \
            list(range(1, 14))
    assert sum(c.rank == WIZARD for c in FULL_DECK) == 4
    assert sum(c.rank == JESTER for c in FULL_DECK) == 4


def test_wizards_and_jesters_have_no_suit():
    assert card_from_code("Z").suit is None and card_from_code("N").suit is None
    assert str(card_from_code("Z")) == "Wizard" and str(card_from_code("N")) == "Jester"
    with pytest.raises(ValueError):
        card_of(WIZARD, 2)
    with pytest.raises(ValueError):
        card_of(JESTER, 0)
    assert card_of(7, 2) is Card.R7 and card_of(WIZARD) is Card.Z


class _NoSuit:
    """A Wizard or Jester whose suit may never be read."""

    def __init__(self, rank):
        self.rank = rank
        self.code = "Z" if rank == WIZARD else "N"
        self.index = 53 if rank == WIZARD else 0

    @property
    def suit(self):
        raise AssertionError("the suit of a Wizard or Jester was read")


class _PlayOf:
    """A play action of a stand-in card (a :class:`Play` member holds a real card)."""

    def __init__(self, card):
        self.card = card


def test_rules_never_read_the_suit_of_a_wizard_or_jester():
    z, n = _NoSuit(WIZARD), _NoSuit(JESTER)
    r5, r9, b2 = cards("R5 R9 B2")
    for trick in ([n, r5, z, b2], [z, r5, n], [n, n, z, r9], [r5, n, z, z], [n, n, n]):
        trick_winner(trick, B)
        trick_winner(trick, None)
    for card in (z, n, r5):
        for winner in (None, z, n, r9):
            for led in (LED_NONE, LED_FREE, R):
                beats(card, winner, led, B)
    # the forward model too: seat 1 holds a suitless Wizard and Jester, seat 2 follows
    s = state(["R5 B3", "R2 G4", "R9 R1", "B1 B4"], bids=[0, 0, 0, 0], trump_card="B2")
    play_n, play_z = _PlayOf(n), _PlayOf(z)
    s.groups[1][0][:] = [play_n]
    s.groups[1][5][:] = [play_z]
    GAME.apply(s, PLAYS[card_from_code("R5")], None)
    assert play_n in GAME.legal_actions(s) and play_z in GAME.legal_actions(s)
    GAME.apply(s, play_n, None)
    GAME.apply(s, PLAYS[card_from_code("R9")], None)
    GAME.apply(s, PLAYS[card_from_code("B1")], None)
    assert s.tricks == [0, 0, 0, 1]


@pytest.mark.parametrize("players, rounds", [(3, 20), (4, 15), (5, 12), (6, 10)])
def test_rounds_are_sixty_over_players(players, rounds):
    s = GAME.initial_state(WizardParams(), players, random.Random(1))
    assert s.n_rounds == rounds
    assert s.round == 1 and all(len(h) == 1 for h in s.hands)
    GAME.check_invariants(s)


def test_round_r_deals_r_cards_each():
    s = dealt(4, 7)
    assert [len(h) for h in s.hands] == [7, 7, 7, 7]
    assert len(s.deck) == 60 - 28 - 1
    GAME.check_invariants(s)


def test_player_count_is_checked():
    with pytest.raises(InputError, match="players=7"):
        GAME.initial_state(WizardParams(), 7, random.Random(1))
    with pytest.raises(InputError, match="players=2"):
        GAME.initial_state(WizardParams(), 2, random.Random(1))


def test_a_full_game_plays_every_round_and_deals_round_r_cards():
    s = GAME.initial_state(WizardParams(), 5, random.Random(3))
    rng = random.Random(4)
    sizes = []
    while not GAME.is_terminal(s):
        if s.phase == "bid" and s.n_bids == 0:
            sizes.append([len(h) for h in s.hands])
        GAME.apply(s, rng.choice(GAME.legal_actions(s)), rng)
    assert sizes == [[r] * 5 for r in range(1, 13)]
    assert [rec.round for rec in s.log] == list(range(1, 13))
    assert s.tricks_played == sum(range(1, 13))
    assert GAME.legal_actions(s) == ()
    GAME.check_invariants(s)


# -- trump ------------------------------------------------------------------------------------

def test_turned_suited_card_makes_its_suit_trump():
    s = dealt(4, 1)  # unshuffled: the four Jesters are dealt, blue 1 is turned
    assert s.trump_card == card_from_code("B1") and s.trump == B and not s.trump_pending
    assert s.phase == "bid"


def test_turned_jester_means_no_trump():
    s = dealt(3, 1)  # unshuffled, 3 players: three Jesters dealt, the fourth turned
    assert s.trump_card == card_from_code("N") and s.trump is None and not s.trump_pending


def test_turned_wizard_first_card_rule_waits_for_the_first_suited_card():
    s = dealt(4, 1, {4: 59})
    assert s.trump_card == card_from_code("Z") and s.trump is None and s.trump_pending
    assert s.phase == "bid"  # no dealer decision under the seed rule


def test_first_card_rule_first_suited_card_of_first_trick_sets_trump():
    s = state(["N R5", "G9 G2", "Y3 B4", "R1 B6"], bids=[0, 0, 0, 0], trump_card="Z")
    assert s.trump_pending and s.trump is None
    play_all(s, "N")  # a Jester names nothing
    assert s.trump_pending and s.led == LED_NONE
    play_all(s, "G9")  # first suited card: green is trump and led
    assert s.trump == G and not s.trump_pending and s.led == G
    play_all(s, "Y3 R1")
    assert s.tricks == [0, 1, 0, 0]
    assert s.trump == G  # stays for the round


def test_first_card_rule_after_a_wizard_lead_the_first_suited_card_still_sets_trump():
    s = state(["Z R5", "G9 G2", "Y3 B4", "R1 B6"], bids=[0, 0, 0, 0], trump_card="Z")
    play_all(s, "Z")
    assert s.led == LED_FREE and s.trump_pending
    play_all(s, "G2")
    assert s.trump == G and s.led == LED_FREE


def test_first_card_rule_no_suited_card_in_first_trick_means_no_trump():
    s = state(["N R5", "N G2", "Z B4", "N B6"], bids=[0, 0, 0, 0], trump_card="Z")
    play_all(s, "N N Z N")
    assert s.trump is None and not s.trump_pending
    assert s.tricks == [0, 0, 1, 0]
    play_all(s, "B4")  # seat 2 leads the second trick: blue is led, not trump
    assert s.trump is None and s.led == B


def test_first_card_rule_state_from_dict_replays_a_pending_trump():
    s = state(["R5", "G2", "B4 B7", "B6 B8"], bids=[0, 0, 0, 0], trump_card="Z", trick="N Y7",
              leaders=[0], round=2)
    assert s.trump == Y and not s.trump_pending and s.led == Y and s.win_seat == 1


def test_dealer_chooses_rule_gives_the_dealer_a_trump_decision():
    s = dealt(4, 2, {8: 59}, wizard_trump="dealer_chooses")
    assert s.phase == TRUMP and s.trump is None and not s.trump_pending
    assert GAME.current_player(s) == s.dealer == 0  # starter is seat 1 (last trick winner)
    assert tuple(GAME.legal_actions(s)) == CHOOSE_TRUMP
    GAME.apply(s, ChooseTrump(Y), None)
    assert s.trump == Y and s.phase == "bid" and GAME.current_player(s) == s.starter == 1


def test_dealer_chooses_only_when_a_wizard_is_turned():
    s = dealt(4, 1, wizard_trump="dealer_chooses")
    assert s.phase == "bid" and s.trump == B


def test_last_round_has_no_turned_card_and_no_trump():
    for n, r in ((3, 20), (4, 15), (5, 12), (6, 10)):
        s = GAME.initial_state(WizardParams(), n, random.Random(2))
        GAME._deal(s, r, 0, random.Random(5))
        assert s.trump_card is None and s.trump is None and not s.trump_pending and s.deck == []
        GAME.check_invariants(s)


# -- starting player, dealer and bidding ------------------------------------------------------

def test_seat_zero_starts_round_one_under_both_rules():
    for rule in ("last_trick_winner", "rotate"):
        s = GAME.initial_state(WizardParams(round_starter=rule), 4, random.Random(1))
        assert s.starter == 0 and s.dealer == 3 and GAME.current_player(s) == 0


def _finish_round_one(rule):
    s = state(["R5", "R9", "R2", "N"], bids=[0, 0, 0, 0], trump_card="B3", rules={"round_starter": rule},
              round=1, starter=0, dealer=3)
    play_all(s, "R5 R9 R2 N", random.Random(7))
    return s


def test_last_trick_winner_starts_next_round_and_deals_from_the_right():
    s = _finish_round_one("last_trick_winner")
    assert s.round == 2 and s.log[-1].last_winner == 1
    assert s.starter == 1 and s.dealer == 0 and GAME.current_player(s) == 1


def test_rotate_rule_moves_the_deal_clockwise_and_left_of_dealer_starts():
    s = _finish_round_one("rotate")
    assert s.round == 2 and s.dealer == 0 and s.starter == 1
    # round 3 under rotate: dealer seat 1, starter seat 2, whoever won the last trick
    GAME._deal(s, 3, 3, random.Random(1))
    assert s.dealer == 1 and s.starter == 2 and GAME.current_player(s) == 2
    GAME._deal(s, 6, 3, random.Random(1))
    assert s.dealer == 0 and s.starter == 1


def test_bidding_goes_round_from_the_starter_and_the_starter_leads():
    s = dealt(4, 3)  # starter seat 1
    order = []
    for bid in (1, 0, 2, 3):
        order.append(GAME.current_player(s))
        assert GAME.legal_actions(s) == BIDS[3]
        GAME.apply(s, Bid(bid), None)
    assert order == [1, 2, 3, 0]
    assert s.bids == [3, 1, 0, 2] and s.phase == PLAY
    assert GAME.current_player(s) == 1 and s.leaders == [1]


def test_bids_are_public():
    s = dealt(4, 2)
    GAME.apply(s, Bid(2), None)
    assert GAME.view(s, 3).bids == [None, 2, None, None]


def test_bid_out_of_range_is_rejected():
    s = dealt(4, 2)
    with pytest.raises(ValueError, match="0 to 2"):
        GAME.apply(s, Bid(3), None)
    with pytest.raises(ValueError):
        GAME.apply(s, PLAYS[card_from_code("N")], None)


def test_hook_forbids_the_last_bid_that_makes_the_total_right():
    s = state(["R5 B3 Y1", "R2 G4 Y2", "R9 R1 Y3", "B1 B4 Y4"], bids=[1, None, 0, 1], starter=2,
              rules={"hook": True})
    assert GAME.current_player(s) == 1 and s.phase == "bid"
    assert GAME.legal_actions(s) == (Bid(0), Bid(2), Bid(3))


def test_hook_only_binds_the_last_bidder_and_only_in_range():
    s = state(["R5 B3", "R2 G4", "R9 R1", "B1 B4"], bids=[None, None, None, None], rules={"hook": True})
    assert GAME.legal_actions(s) == BIDS[2]  # first bidder
    s = state(["R5 B3", "R2 G4", "R9 R1", "B1 B4"], bids=[2, 1, None, 1], starter=3, rules={"hook": True})
    assert GAME.current_player(s) == 2
    assert GAME.legal_actions(s) == BIDS[2]  # total already over 2: nothing to forbid


def test_hook_off_allows_any_bid():
    s = state(["R5 B3 Y1", "R2 G4 Y2", "R9 R1 Y3", "B1 B4 Y4"], bids=[1, None, 0, 1], starter=2)
    assert GAME.legal_actions(s) == BIDS[3]


def test_hook_option_accepts_on_and_off():
    assert WizardParams.from_overrides({"hook": "on"}).hook is True
    assert WizardParams.from_overrides({"hook": "off"}).hook is False
    with pytest.raises(InputError):
        WizardParams.from_overrides({"hook": "maybe"})
    with pytest.raises(InputError, match="wizard_trump"):
        WizardParams.from_overrides({"wizard_trump": "random"})


# -- following --------------------------------------------------------------------------------

def test_must_follow_the_led_suit_wizard_and_jester_always_allowed():
    s = state(["G7", "N R3 R8 G5 Y2 Z", "B1", "B2"], bids=[0] * 4, trump_card="B5", trick="R9")
    assert legal_codes(s) == ["N", "R3", "R8", "Z"]


def test_seed_rule_allows_a_trump_instead_of_following():
    s = state(["G7", "N R3 G5 Y2 Y8 Z", "B1", "B2"], bids=[0] * 4, trump_card="Y5", trick="R9")
    assert legal_codes(s) == ["N", "R3", "Y2", "Y8", "Z"]
    GAME.apply(s, PLAYS[card_from_code("Y2")], None)
    assert s.win_seat == 1


def test_official_rule_allows_only_wizard_or_jester_instead():
    s = state(["G7", "N R3 G5 Y2 Y8 Z", "B1", "B2"], bids=[0] * 4, trump_card="Y5", trick="R9",
              rules={"follow_suit": "official"})
    assert legal_codes(s) == ["N", "R3", "Z"]
    with pytest.raises(ValueError, match="must follow red"):
        GAME.apply(s, PLAYS[card_from_code("Y2")], None)


def test_not_following_is_rejected():
    s = state(["G7", "R3 G5", "B1", "B2"], bids=[0] * 4, trump_card="Y5", trick="R9")
    with pytest.raises(ValueError, match="must follow red"):
        GAME.apply(s, PLAYS[card_from_code("G5")], None)
    with pytest.raises(ValueError, match="seat 1's hand"):
        GAME.apply(s, PLAYS[card_from_code("R4")], None)


def test_void_in_the_led_suit_plays_anything():
    for rule in ("seed", "official"):
        s = state(["G7", "N G5 Y2 B8 Z", "B1", "B2"], bids=[0] * 4, trump_card="Y5", trick="R9",
                  rules={"follow_suit": rule})
        assert legal_codes(s) == ["N", "B8", "G5", "Y2", "Z"]


def test_wizard_led_means_no_led_suit_and_anything_goes():
    s = state(["G7", "R3 G5 Y2", "B1", "B2"], bids=[0] * 4, trump_card="Y5", trick="Z")
    assert s.led == LED_FREE
    assert legal_codes(s) == ["G5", "R3", "Y2"]


def test_jester_led_then_the_first_suited_card_sets_the_led_suit():
    s = state(["G7", "G1", "R3 G5 Y2", "B2"], bids=[0] * 4, trump_card="Y5", trick="N")
    assert s.led == LED_NONE
    assert legal_codes(s) == ["G1"]
    GAME.apply(s, PLAYS[card_from_code("G1")], None)
    assert s.led == G
    assert legal_codes(s) == ["G5", "Y2"]  # seat 2 must follow green (or trump, seed rule)


def test_jester_then_wizard_leaves_no_led_suit():
    s = state(["G7", "G1", "R3 G5 Y2", "B2"], bids=[0] * 4, trump_card="Y5", trick="N Z")
    assert s.led == LED_FREE and legal_codes(s) == ["G5", "R3", "Y2"]


def test_a_wizard_after_a_suit_was_led_changes_nothing():
    s = state(["G7", "G1", "R3 G5 Y2", "B2"], bids=[0] * 4, trump_card="B5", trick="R9 Z", leaders=[0])
    assert s.led == R and s.win_seat == 1
    assert legal_codes(s) == ["R3"]


def test_duplicate_wizards_and_jesters_are_listed_once():
    s = state(["N N R3 Z Z", "B1 B3 B4 B5 B6", "B2 B7 B8 B9 B10", "B11 B12 B13 G1 G2"], bids=[0] * 4)
    assert legal_codes(s) == ["N", "R3", "Z"]


# -- winning tricks ---------------------------------------------------------------------------

def test_first_wizard_wins():
    s = state(["R9 G1", "Z G2", "Z G3", "Y13 G4"], bids=[0] * 4, trump_card="Y5", leaders=[0])
    play_all(s, "R9 Z Z Y13")
    assert s.tricks == [0, 1, 0, 0] and GAME.current_player(s) == 1
    assert trick_winner(cards("R9", "Z", "Z", "Y13"), Y) == 1


def test_highest_trump_wins_over_a_higher_led_card():
    s = state(["R9 G1", "Y2 G2", "R13 G3", "Y8 G4"], bids=[0] * 4, trump_card="Y5")
    play_all(s, "R9 Y2 R13 Y8")
    assert s.tricks == [0, 0, 0, 1] and GAME.current_player(s) == 3
    assert trick_winner(cards("R9", "Y2", "R13", "Y8"), Y) == 3


def test_highest_card_of_the_led_suit_wins_without_trump():
    s = state(["R9 G1", "B13 G2", "R11 G3", "R10 G4"], bids=[0] * 4, trump_card="Y5")
    play_all(s, "R9 B13 R11 R10")
    assert s.tricks == [0, 0, 1, 0]
    assert trick_winner(cards("R9", "B13", "R11", "R10"), Y) == 2
    assert trick_winner(cards("R9", "B13", "R11", "R10"), None) == 2


def test_only_jesters_the_first_jester_wins():
    s = state(["N G1", "N G2", "N G3", "N G4"], bids=[0] * 4, starter=2, leaders=[2], trump_card="Y5")
    play_all(s, "N N N N")
    assert s.tricks == [0, 0, 1, 0] and GAME.current_player(s) == 2
    assert trick_winner(cards("N N N"), Y) == 0


def test_jester_led_loses_to_any_suited_card():
    s = state(["N G1", "B2 G2", "B1 G3", "G9 G4"], bids=[0] * 4, trump_card="Y5")
    play_all(s, "N B2 B1 G9")
    assert s.tricks == [0, 1, 0, 0]


def test_the_winner_leads_the_next_trick():
    s = state(["R9 G1", "Y2 G2", "R13 G3", "Y8 G4"], bids=[0] * 4, trump_card="Y5")
    play_all(s, "R9 Y2 R13 Y8")
    assert GAME.current_player(s) == 3 and s.leaders == [0, 3]
    assert s.trick == [] and s.played == cards("R9", "Y2", "R13", "Y8")


def test_incremental_winner_matches_reference_in_random_games():
    for seed in range(4):
        s = GAME.initial_state(WizardParams(), 3 + seed, random.Random(seed))
        rng = random.Random(seed + 10)
        while not GAME.is_terminal(s):
            GAME.apply(s, rng.choice(GAME.legal_actions(s)), rng)
            GAME.check_invariants(s)  # includes win_seat == trick_winner(...)


# -- scoring and the end ----------------------------------------------------------------------

def test_scoring_exact_over_and_under():
    # round 2, last trick: seat 0 bid 1 and has 1, seat 1 bid 0 / has 0, seat 2 bid 2 / has 0,
    # seat 3 bid 0 / has 0 and will take this trick
    s = state(["G1", "G2", "G3", "G9"], bids=[1, 0, 2, 0], tricks=[1, 0, 0, 0], round=2,
              played="R9 R2 R3 R4", leaders=[0, 0], trump_card="B5", scores=[10, 0, -10, 30])
    play_all(s, "G1 G2 G3 G9", random.Random(1))
    assert s.log[-1].tricks == [1, 0, 0, 1]
    assert s.log[-1].points == [30, 20, -20, -10]
    assert s.scores == [40, 20, -30, 20]
    assert s.round == 3 and s.phase == "bid"


def test_exact_zero_bid_scores_twenty():
    s = state(["G1", "G2", "G3", "G9"], bids=[0, 0, 0, 1], round=1, trump_card="B5")
    play_all(s, "G1 G2 G3 G9", random.Random(1))
    assert s.log[-1].points == [20, 20, 20, 30]


def test_game_ends_after_the_last_round_and_highest_total_wins():
    s = state(["G1", "G2", "G3", "G9"], bids=[0, 0, 0, 1], round=15, n_rounds=15, played=[],
              scores=[100, 90, 120, 80])
    play_all(s, "G1 G2 G3 G9", random.Random(1))
    assert s.phase == OVER and GAME.is_terminal(s) and GAME.legal_actions(s) == ()
    assert GAME.scores(s) == [120, 110, 140, 110]
    assert GAME.winners(s) == [2]


def test_tied_top_scores_share_the_win():
    s = state(["G1", "G2", "G3", "G9"], bids=[0, 0, 0, 1], round=15, scores=[100, 120, 100, 80])
    play_all(s, "G1 G2 G3 G9", random.Random(1))
    assert GAME.scores(s) == [120, 140, 120, 110]
    s = state(["G1", "G2", "G3", "G9"], bids=[0, 0, 0, 1], round=15, scores=[120, 100, 120, 80])
    play_all(s, "G1 G2 G3 G9", random.Random(1))
    assert GAME.winners(s) == [0, 2] and GAME.ranks(s)[:3] == [1, 3, 1]


def test_seat_bonus_variant_starts_the_scores_there_and_keeps_the_round_scoring():
    s = GAME.initial_state(WizardParams.from_overrides({"seat_bonus": "0/0/0/10"}), 4, random.Random(0))
    assert s.scores == [0, 0, 0, 10] and list(GAME.view(s, 0).scores) == [0, 0, 0, 10]
    # round 1 scored on top of the bonus: the invariant (bonus + logged points) holds throughout
    rng = random.Random(3)
    while s.round == 1:
        GAME.apply(s, rng.choice(GAME.legal_actions(s)), rng)
        GAME.check_invariants(s)
    points = s.log[-1].points
    assert s.scores == [points[0], points[1], points[2], 10 + points[3]]
    m = GAME.metrics(s)
    assert m[3]["score_trace"] == (10 + points[3],) and m[3]["points_per_round"] == points[3]
    # a hand-built state without scores starts from the bonus too
    assert state(["G1", "G2", "G3", "G9"], rules={"seat_bonus": "5"}).scores == [5, 5, 5, 5]
    with pytest.raises(InputError, match="2 values.*4 seats"):
        GAME.check_players(WizardParams.from_overrides({"seat_bonus": "0/10"}), 4)


def test_metrics_and_round_records():
    s = state(["G1", "G2", "G3", "G9"], bids=[1, 0, 2, 0], tricks=[1, 0, 0, 0], round=2, n_rounds=2,
              played="R9 R2 R3 R4", leaders=[0, 0], trump_card="B5",
              log=[{"round": 1, "dealer": 3, "starter": 0, "trump_card": "Z", "trump": 2, "bids": [1, 0, 0, 0],
                    "tricks": [1, 0, 0, 0], "points": [30, 20, 20, 20], "wizards": [1, 0, 0, 0],
                    "jesters": [0, 0, 1, 0], "trumps": None, "last_winner": 0}],
              scores=[30, 20, 20, 20], tricks_played=2)
    play_all(s, "G1 G2 G3 G9", random.Random(1))
    m = GAME.metrics(s)
    assert m[0] == {"exact_bids": 1.0, "over_bid": 0.0, "under_bid": 0.0, "points_per_round": 30.0,
                    "mean_bid": 1.0, "turns": 3, "score_trace": (30, 60)}
    # the score trace: running totals after each round, ending at the final score
    assert [m[k]["score_trace"][-1] for k in range(4)] == GAME.scores(s)
    assert m[2]["exact_bids"] == 0.5 and m[2]["over_bid"] == 1.0 and m[2]["under_bid"] == 0.0
    assert m[3]["under_bid"] == 0.5 and m[3]["points_per_round"] == 5.0
    rows = GAME.extra_records(s)["rounds"]
    assert len(rows) == 8
    # trumps dealt per round and seat (the per-round component measure): none in a log without them
    trumps = [row.pop("trumps") for row in rows]
    assert all(math.isnan(t) for t in trumps[:4]) and trumps[4:] == [0, 0, 0, 0]  # round 2: green hands, blue trump
    assert rows[0] == {"round": 1, "seat": 0, "bid": 1, "tricks": 1, "points": 30, "exact": 1, "wizards": 1,
                       "jesters": 0, "trump": "red", "trump_card": "wizard", "bid_position": 0}
    # Wizards and Jesters dealt: counted among the round's played cards (here none)
    assert rows[6] == {"round": 2, "seat": 2, "bid": 2, "tricks": 0, "points": -20, "exact": 0, "wizards": 0,
                       "jesters": 0, "trump": "blue", "trump_card": "suit", "bid_position": 2}


# -- information, persistence, display --------------------------------------------------------

def test_view_holds_own_hand_and_public_information_only():
    s = GAME.initial_state(WizardParams(), 4, random.Random(9))
    GAME._deal(s, 5, 0, random.Random(9))
    v = GAME.view(s, 2)
    assert v.hand == s.hands[2] and v.seat == 2 and v.n_players == 4
    # of the hidden fields, a seat sees its own hand and the sizes only
    assert not hasattr(v, "hands") and not hasattr(v, "undealt") and not hasattr(v, "deck")
    assert v.groups_sizes == [5, 5, 5, 5] and v.undealt_size == len(s.undealt) == 60 - 21
    hidden = s.hands[0] + s.hands[1] + s.hands[3] + s.deck
    assert [c.index for c in v.unseen] == sorted(c.index for c in hidden)
    assert isinstance(v.public, WizardPublic)
    assert not {"hands", "groups", "deck"} & set(WizardPublic.__slots__)
    assert v.groups is s.groups[2]
    for name in ("trump_card", "trump", "bids", "tricks", "played", "trick", "scores", "led", "win_card"):
        assert getattr(v, name) == getattr(s, name)


def test_view_is_live():
    s = dealt(4, 2)
    v = GAME.view(s, 0)
    GAME.apply(s, Bid(1), None)
    assert v.bids[1] == 1 and v.hand == s.hands[0]
    GAME._deal(s, 3, 0, random.Random(2))
    assert len(v.hand) == 3 and v.round == 3


def test_json_pickle_and_clone_round_trip_mid_trick():
    s = state(["R9 G1", "Z G2", "R3 G5 Y2", "B2 B9"], bids=[0, 1, 0, 1], trump_card="Z", trick="N Z",
              leaders=[0], round=3)
    back = GAME.state_from_dict(json.loads(json.dumps(GAME.state_to_dict(s))))
    assert back == s
    assert pickle.loads(pickle.dumps(s)) == s
    c = GAME.clone_state(s)
    assert c == s
    GAME.apply(c, PLAYS[card_from_code("R3")], None)
    assert c != s and s.trick == cards("N Z")
    assert pickle.loads(pickle.dumps(card_from_code("R7"))) is card_from_code("R7")


def test_malformed_state_is_an_input_error():
    with pytest.raises(InputError, match="pub: missing"):
        GAME.state_from_dict({"players": 4})
    with pytest.raises(InputError, match="unknown Wizard card"):
        state(["R14", "G1", "G2", "G3"])


def test_actions_are_small_readable_and_round_trip():
    for a, data in ((Bid(2), {"type": "Bid", "n": 2}), (PLAYS[card_from_code("R7")], "R7"),
                    (PLAYS[card_from_code("Z")], "Z"), (ChooseTrump(G), {"type": "ChooseTrump", "suit": 1})):
        assert GAME.action_to_json(a) == data
        assert GAME.action_from_json(json.loads(json.dumps(data))) is a or GAME.action_from_json(data) == a
        hash(a)
    with pytest.raises(InputError, match=r"^[^\n]+$"):  # an enum action in the older {"type": ...} form
        GAME.action_from_json({"type": "Play", "card": "N"})
    assert GAME.describe_action(PLAYS[card_from_code("R7")]) == "play red 7"
    assert GAME.describe_action(Bid(0)) == "bid 0"
    for bad in ("Q3", "play:R7", {"type": "Play", "card": "Q3"}, {"type": "Bid", "n": "2"}):
        with pytest.raises(InputError):
            GAME.action_from_json(bad)


def test_describe_state_shows_round_trump_bids_and_trick():
    s = state(["R9 G1", "Z G2", "R3 G5", "B2 B9"], bids=[0, 1, 0, 1], trump_card="Y3", trick="R9",
              round=2)
    text = GAME.describe_state(s)
    assert "round 2/15" in text and "trump yellow" in text and "seat 1: bid 1" in text
    assert "trick: seat 0 red 9 (winning: seat 0)" in text


def test_no_global_random_state_is_used():
    random.seed(123)
    before = random.getstate()
    specs = ["expected", "random", "bot:bid=montecarlo,samples=2", "bot:bid=zero"]
    play_game(GAME, WizardParams(wizard_trump="dealer_chooses", hook=True),
              [make_strategy(x, "wizard") for x in specs], specs, 5)
    assert random.getstate() == before


# -- strategies -------------------------------------------------------------------------------

def test_builtin_strategy_names_and_aliases():
    names = set(available_strategies("wizard"))
    assert {"bot", "wizard-bot", "random", "expected"} <= names
    bot = make_strategy("wizard-bot:bid=expected,bias=-0.5", "wizard")
    assert bot.bid == "expected" and bot.bias == -0.5 and bot.play == "greedy"
    assert make_strategy("random", "wizard").bid == "random"
    e = make_strategy("expected", "wizard")
    assert (e.bid, e.play) == ("expected", "greedy")
    with pytest.raises(InputError, match="bid='always'"):
        make_strategy("bot:bid=always", "wizard")
    with pytest.raises(InputError, match="play="):
        make_strategy("bot:play=smart", "wizard")


def _choose(spec, s, seed=0):
    bot = make_strategy(spec, "wizard")
    seat = GAME.current_player(s)
    bot.reset(seat, s.params, s.n)
    return bot.choose(GAME.view(s, seat), GAME.legal_actions(s), random.Random(seed))


def test_greedy_short_of_its_bid_wins_as_cheaply_as_possible():
    s = state(["G7", "R10 R12 Y3 Z", "B1", "B2"], bids=[0, 1, 0, 0], trump_card="Y5", trick="R9")
    assert _choose("expected", s) == PLAYS[card_from_code("R10")]
    s = state(["G7", "G10 G12 Y3 Y9 Z", "B1", "B2"], bids=[0, 1, 0, 0], trump_card="Y5", trick="R9")
    assert _choose("expected", s) == PLAYS[card_from_code("Y3")]  # void: the lowest trump


def test_greedy_at_its_bid_ducks_with_the_highest_losing_card():
    s = state(["G7", "R3 R8 R12 Z", "B1", "B2"], bids=[0, 0, 0, 0], trump_card="Y5", trick="R9")
    assert _choose("expected", s) == PLAYS[card_from_code("R8")]
    # a Wizard already leads: shed the own Wizard
    s = state(["G7", "R3 R8 Z", "B1", "B2"], bids=[0, 0, 0, 0], trump_card="Y5", trick="Z")
    assert _choose("expected", s) == PLAYS[card_from_code("Z")]


def test_greedy_forced_to_win_takes_with_the_highest_when_last_else_the_lowest():
    s = state(["G2", "G3", "G4", "R8 R11"], bids=[0, 0, 0, 0], trump_card="Y5", trick="R2 R3 R4", leaders=[0])
    assert _choose("expected", s) == PLAYS[card_from_code("R11")]
    s = state(["G2", "R8 R11", "R4", "R5"], bids=[0, 0, 0, 0], trump_card="Y5", trick="R2")
    assert _choose("expected", s) == PLAYS[card_from_code("R8")]


def test_greedy_leads_strongest_when_short_and_weakest_when_not():
    s = state(["N R3 Y2 R12", "B1", "B2", "B3"], bids=[1, 0, 0, 0], trump_card="Y5")
    assert _choose("expected", s) == PLAYS[card_from_code("Y2")]  # a trump beats red 12
    s = state(["N R3 Y2 R12", "B1", "B2", "B3"], bids=[0, 0, 0, 0], trump_card="Y5")
    assert _choose("expected", s) == PLAYS[card_from_code("N")]


def test_expected_bidding_counts_wizards_and_high_trumps():
    strong = state(["Z Z Y13 Y12 R13", "B1 B2 B3 B4 B5", "G1 G2 G3 G4 G5", "R1 R2 R3 R4 R5"], trump_card="Y5")
    weak = state(["N B2 G3 R4 Y1", "B1 B3 B4 B5 B6", "G1 G2 G4 G5 G6", "R1 R2 R3 R5 R6"], trump_card="Y5")
    assert _choose("expected", strong) == Bid(4)
    assert _choose("expected", weak) == Bid(0)
    assert _choose("expected:bias=2", weak) == Bid(2)
    assert _choose("bot:bid=expected,bias=-3", strong) == Bid(1)
    assert _choose("bot:bid=zero", strong) == Bid(0)


def test_bots_respect_the_hook():
    s = state(["R5 B3 Y1", "R2 G4 Y2", "R9 R1 Y3", "N B4 Y4"], bids=[1, 2, None, 0], starter=3,
              rules={"hook": True})
    assert GAME.current_player(s) == 2 and Bid(0) not in GAME.legal_actions(s)
    assert _choose("bot:bid=zero", s) == Bid(1)
    for spec in ("expected", "random", "bot:bid=montecarlo,samples=3"):
        assert _choose(spec, s) in GAME.legal_actions(s)


def test_dealer_picks_the_suit_it_holds_most_of():
    s = state(["R5 B3 G1", "R2 G4 G12 R1 Y9", "R9 R4 Y3", "N B4 Y4"], phase="trump", current=1,
              trump_card="Z", trump=None, rules={"wizard_trump": "dealer_chooses"})
    assert _choose("expected", s) == ChooseTrump(G)  # two greens, two reds: greens rank higher
    assert len({_choose("random", s, seed) for seed in range(12)}) > 1  # a random bidder: any suit


def test_montecarlo_samples_only_unseen_cards_and_bids_legally():
    from importlib import import_module
    from analyser.engine.registry import builtin_strategies
    W = import_module(builtin_strategies("wizard")["bot"].__module__)  # works installed or from source
    s = dealt(4, 5)
    v = GAME.view(s, 1)
    for seed in range(5):
        sample = W.sample_state(v, random.Random(seed))
        assert sample.hands[1] == s.hands[1]
        others = [c for k in (0, 2, 3) for c in sample.hands[k]]
        assert len(others) == 15 and all(len(h) == 5 for h in sample.hands)
        mine = list(s.hands[1]) + [s.trump_card]
        for c in others:
            assert others.count(c) + mine.count(c) <= (4 if c.rank in (JESTER, WIZARD) else 1)
        GAME.check_invariants(sample)
    bid = _choose("bot:bid=montecarlo,samples=8", s)
    assert bid in BIDS[5]


def test_every_strategy_plays_full_games_under_every_rule_option():
    specs = ["expected", "random", "bot:bid=montecarlo,samples=2,play=random", "wizard-bot:bid=zero"]
    rules = [{}, {"wizard_trump": "dealer_chooses", "round_starter": "rotate"},
             {"follow_suit": "official", "hook": True}]
    for i, r in enumerate(rules):
        final = play_game(GAME, WizardParams(**r), [make_strategy(x, "wizard") for x in specs], specs, 40 + i)
        assert GAME.is_terminal(final)
        GAME.check_invariants(final)
        if r.get("hook"):
            for rec in final.log:
                assert sum(rec.bids) != rec.round


def test_expected_beats_random():
    specs = ["expected", "random", "expected", "random"]
    totals = [0, 0, 0, 0]
    for seed in range(6):
        final = play_game(GAME, WizardParams(), [make_strategy(x, "wizard") for x in specs], specs, seed)
        totals = [t + x for t, x in zip(totals, GAME.scores(final))]
    assert totals[0] + totals[2] > totals[1] + totals[3] + 1000


def test_golden_playthrough():
    """A seeded game between fixed strategies; a rule or strategy change shows up here."""
    specs = ["expected", "bot:bid=zero", "random", "expected:bias=0.5"]
    final = play_game(GAME, WizardParams(), [make_strategy(x, "wizard") for x in specs], specs, 2024)
    assert GAME.scores(final) == GOLDEN_SCORES
    assert [rec.bids for rec in final.log[:3]] == GOLDEN_FIRST_BIDS


GOLDEN_SCORES = [110, 20, -270, 30]
GOLDEN_FIRST_BIDS = [[1, 0, 0, 1], [0, 0, 2, 1], [0, 0, 1, 1]]


# -- results and report hooks -----------------------------------------------------------------

def test_figure_tables_and_plots(tmp_path):
    from analyser.run import assemble
    from analyser.engine.runner import BatchJob, run_batch
    strategies = ("expected", "random")
    res = run_batch(BatchJob("wizard", (), strategies, 4, 3, 0, 8, 0.0))
    assert res.error is None and res.done == 8
    results, extras = assemble(GAME, WizardParams(), 4, strategies, [res], 3)
    rounds = extras["rounds"]
    assert len(rounds) == 8 * 15 * 4
    assert {"game_index", "round", "seat", "bid", "tricks", "points", "wizards", "jesters", "trump"} <= set(rounds)
    tables = GAME.figure_tables(results, extras)
    captions = [c for c, _ in tables]
    assert len(tables) == 5
    per = tables[0][1].set_index("strategy")
    # the rounds table names each row's strategy; check it against the results rows
    check = rounds.merge(results[["game_index", "seat", "strategy"]], on=["game_index", "seat"])
    assert (check["strategy_x"].astype(str) == check["strategy_y"].astype(str)).all()
    mine = rounds
    exp = mine[mine["strategy"] == "expected"]
    assert per.loc["expected", "rounds"] == len(exp) == 8 * 15 * 2
    assert per.loc["expected", "exact_rate"] == pytest.approx(exp["exact"].mean())
    assert per.loc["expected", "points_per_round"] == pytest.approx(exp["points"].mean())
    by_round = tables[1][1].set_index("round")
    assert list(by_round.index) == list(range(1, 16))
    assert by_round.loc[1, "expected"] == pytest.approx(exp[exp["round"] == 1]["exact"].mean() * 100)
    points = tables[2][1].set_index("round")
    assert points.loc[15, "random"] == pytest.approx(
        mine[(mine["strategy"] == "random") & (mine["round"] == 15)]["points"].mean())
    assert "Wizards" in captions[3] and "Jesters" in captions[4]
    by_wiz = tables[3][1].set_index("wizards")
    assert by_wiz["rounds"].sum() == len(rounds)
    one = mine[(mine["wizards"] == 1) & (mine["strategy"] == "expected")]
    assert by_wiz.loc[1, "expected"] == pytest.approx(one["exact"].mean() * 100)
    figures = GAME.plots(results, extras, tmp_path)
    names = [n for n, _ in figures]
    assert names == ["bid_heatmap.png", "bid_accuracy.png"]
    for n in names:
        assert (tmp_path / n).stat().st_size > 10_000


# -- streamed report: figure sums over chunks of whole games ------------------------------------

STREAM_LINE_UP = ("random", "expected", "bot:bid=zero", "expected:bias=0.5")  # not in sorted order
#: Games of the streamed-report run: enough for several uneven chunks of 7 and of 13 games.
STREAM_GAMES = 60


#: Under pytest-xdist (--dist loadgroup) this file's tests run in one worker, so its module-scoped
#: fixtures are built once, not once per worker.
pytestmark = pytest.mark.xdist_group("test_wizard")


@pytest.fixture(scope="module")
def wizard_run():
    """A real run of :data:`STREAM_GAMES` games, 4 players: (results, extras)."""
    from analyser.run import assemble
    from analyser.engine.runner import BatchJob, run_batch
    res = run_batch(BatchJob("wizard", (), STREAM_LINE_UP, 4, 5, 0, STREAM_GAMES, 0.0))
    assert res.error is None and res.done == STREAM_GAMES
    return assemble(GAME, WizardParams(), 4, STREAM_LINE_UP, [res], 5)


def chunked_sums(results, extras, chunk_games):
    from analyser.stats.streamed import chunk_frame, reduce_sums
    chunks = list(chunk_frame(results, extras, chunk_games=chunk_games))
    assert len(chunks) == -(-STREAM_GAMES // chunk_games)
    return reduce_sums(GAME.figure_sums(r, e) for r, e in chunks)


def assert_same_tables(a, b):
    import pandas as pd
    assert [c for c, _ in a] == [c for c, _ in b]
    for (_, x), (_, y) in zip(a, b):
        pd.testing.assert_frame_equal(x.reset_index(drop=True), y.reset_index(drop=True),
                                      check_dtype=False, check_exact=False, rtol=0, atol=1e-9)


def test_tables_from_many_chunks_equal_one_chunk_and_plain_pandas(wizard_run):
    import pandas as pd
    results, extras = wizard_run
    one = GAME.figure_tables_from(GAME.figure_sums(results, extras))
    many = GAME.figure_tables_from(chunked_sums(results, extras, 7))
    assert len(one) == 5
    assert_same_tables(one, many)
    assert_same_tables(one, GAME.figure_tables(results, extras))
    # the per-strategy table against plain pandas on the whole rounds table, in line-up order
    r = extras["rounds"].assign(strategy=lambda d: d["strategy"].astype(str))
    r = r.assign(over=(r["bid"] - r["tricks"]).clip(lower=0), under=(r["tricks"] - r["bid"]).clip(lower=0))
    g = r.groupby("strategy")
    plain = pd.DataFrame({"rounds": g.size(), "exact_rate": g["exact"].mean(), "mean_bid": g["bid"].mean(),
                          "mean_tricks": g["tricks"].mean(), "over_bid": g["over"].mean(),
                          "under_bid": g["under"].mean(), "points_per_round": g["points"].mean()})
    per = many[0][1]
    assert list(per["strategy"]) == list(STREAM_LINE_UP)
    assert list(per["rounds"]) == [STREAM_GAMES * 15] * 4 and per["rounds"].dtype.kind == "i"
    pd.testing.assert_frame_equal(per.set_index("strategy"), plain.loc[list(STREAM_LINE_UP)],
                                  check_dtype=False, check_names=False, check_exact=False, rtol=1e-12)
    # by round and by Wizards in hand, against plain pandas too
    by_round = many[1][1].set_index("round")
    assert list(by_round.columns) == list(STREAM_LINE_UP)
    plain_round = r.pivot_table(index="round", columns="strategy", values="exact", aggfunc="mean") * 100
    plain_round.index = plain_round.index.astype("int64")
    pd.testing.assert_frame_equal(by_round, plain_round[list(STREAM_LINE_UP)], check_names=False,
                                  check_dtype=False, check_exact=False, rtol=1e-12, check_column_type=False)
    by_wiz = many[3][1].set_index("wizards")
    assert by_wiz["rounds"].to_dict() == r.groupby("wizards").size().to_dict()


def test_rounds_without_a_strategy_column_are_matched_to_the_results(wizard_run):
    results, extras = wizard_run
    want = GAME.figure_tables_from(GAME.figure_sums(results, extras))
    bare = {"rounds": extras["rounds"].drop(columns=["strategy"])}
    assert_same_tables(want, GAME.figure_tables_from(chunked_sums(results, bare, 13)))
    # no run ids either (a hand-made rounds.csv), and rows in another order
    barer = {"rounds": bare["rounds"].drop(columns=["run_id"]).iloc[::-1]}
    assert_same_tables(want, GAME.figure_tables_from(GAME.figure_sums(results, barer)))
    # a rounds row whose game is not in the results counts for no strategy
    half = STREAM_GAMES // 2
    stray = {"rounds": bare["rounds"].assign(game_index=bare["rounds"]["game_index"] + half)}
    per = GAME.figure_tables_from(GAME.figure_sums(results, stray))[0][1]
    assert per["rounds"].sum() == (STREAM_GAMES - half) * 15 * 4


def test_figure_sums_stay_small_and_keep_the_strategy_as_an_index_level(wizard_run):
    results, extras = wizard_run
    sums = chunked_sums(results, extras, 7)
    r = extras["rounds"]
    s, rounds, top = 4, 15, int(max(r["bid"].max(), r["tricks"].max()))
    bounds = {"wizard_round": s * rounds, "wizard_heat": s * (top + 1) ** 2, "wizard_wizards": s * 5,
              "wizard_jesters": s * 5, "wizard_order": s}
    assert set(k for k in sums if not k.startswith("round_comp_")) == set(bounds)
    for name, frame in sums.items():
        if name.startswith("round_comp_"):  # the hands measured per round: components x strategy, round, seat
            continue
        assert 0 < len(frame) <= bounds[name], name
        assert frame.index.names[0] == "strategy" and "strategy" not in frame.columns
    assert len(sums["wizard_round"]) == s * rounds
    # the heat map's counts add up to every round of every seat
    assert sums["wizard_heat"]["rounds"].sum() == len(r) == STREAM_GAMES * 15 * 4
    cells = sums["round_comp_cells"]
    assert len(cells) <= s * rounds * 4 and cells["n"].sum() == len(r)
    assert len(sums["round_comp_x"]) <= (4 + 4 + 16) * s * rounds * 4  # Wizards, Jesters, trumps 0-15
    assert GAME.figure_sums(results, {}) == {} and GAME.figure_tables_from({}) == []


ODD_NAMES = {"random": "Ba$$in.py:cautious", "expected": "_plain"}  # mathtext and a hidden legend entry


def odd_named(results, extras):
    """The run with two strategies renamed as a user's strategy files might be."""
    def rename(frame):
        return frame.assign(strategy=frame["strategy"].cat.rename_categories(lambda c: ODD_NAMES.get(c, c)))
    return rename(results), {"rounds": rename(extras["rounds"])}


def test_plots_from_combined_sums_draw_what_the_whole_table_draws(wizard_run, tmp_path):
    """Whole table, plot-safe results (the in-memory path) against sums over chunks of 7 games
    whose strategy levels are made plot-safe afterwards (the streamed report): the same pixels."""
    import matplotlib.image as mpimg
    import numpy as np
    from analyser.stats import plots
    results, extras = odd_named(*wizard_run)
    whole, chunked = tmp_path / "whole", tmp_path / "chunked"
    whole.mkdir()
    chunked.mkdir()
    assert [n for n, _ in GAME.plots(plots.safe_strategies(results), extras, whole)] == [
        "bid_heatmap.png", "bid_accuracy.png"]
    sums = {}
    for name, frame in chunked_sums(results, extras, 7).items():
        idx = frame.index
        if idx.nlevels > 1:
            level = idx.names.index("strategy")
            sums[name] = frame.set_axis(idx.set_levels(idx.levels[level].map(plots.label), level=level))
        else:
            sums[name] = frame.set_axis(idx.map(plots.label).rename("strategy"))
    line_up = [plots.label(ODD_NAMES.get(s, s)) for s in STREAM_LINE_UP]
    figures = GAME.plots_from(sums, chunked, line_up)
    assert [n for n, _ in figures] == ["bid_heatmap.png", "bid_accuracy.png"]
    for n, _ in figures:
        assert (chunked / n).stat().st_size > 10_000
        assert np.array_equal(mpimg.imread(whole / n), mpimg.imread(chunked / n)), n
    assert GAME.plots_from({}, chunked, line_up) == []


def test_sums_name_strategies_as_the_results_do(wizard_run):
    """The in-memory report path hands the figures a results frame with plot-safe names and the
    rounds table as written: the sums take the results' spelling."""
    from analyser.stats import plots
    results, extras = odd_named(*wizard_run)
    sums = GAME.figure_sums(plots.safe_strategies(results), extras)
    want = [plots.label(ODD_NAMES.get(s, s)) for s in STREAM_LINE_UP]
    assert want[:2] == ["Ba\\$\\$in.py:cautious", " _plain"]
    assert list(sums["wizard_order"].sort_values("order_min").index) == want
    assert GAME.figure_tables_from(sums)[0][1]["strategy"].tolist() == want


# -- components (component impact) -----------------------------------------------------------

def test_components_are_the_wizards_jesters_and_trumps_dealt_each_round():
    s = state(["Z N B3", "Z Z G4", "B1 B2 R5"], round=3)
    def rec(r, wizards, jesters, trumps):
        return RoundRecord(r, 2, 0, "B1", None if trumps is None else 0, [0] * 3, [r, 0, 0], [0] * 3, wizards,
                           jesters, trumps, 0)

    s.log = [rec(1, [1, 0, 0], [0, 0, 0], [0, 1, 0]), rec(2, [0, 2, 0], [1, 0, 0], None),
             rec(3, [1, 2, 0], [1, 0, 0], [1, 0, 2])]
    assert GAME.components(s) == [["1 Wizard", "0 trumps", "1 Jester", "1 Wizard", "1 Jester", "1 trump"],
                                  ["1 trump", "2 Wizards", "2 Wizards", "0 trumps"],
                                  ["0 trumps", "2 trumps"]]
    assert GAME.component_tables(["2 Wizards", "1 Wizard", "3 trumps"])[0][1] == ["1 Wizard", "2 Wizards"]


@pytest.mark.parametrize("rule", ["first_card", "dealer_chooses"])
def test_the_round_log_counts_the_trumps_dealt_to_each_seat(rule):
    """Trumps dealt = the cards of the round's trump suit each seat played (every dealt card is
    played), whether trump came from the turned card, the dealer or the first suited card."""
    params = GAME.Params.from_overrides({"wizard_trump": rule})
    seen_pending = False
    for seed in range(25):
        played = {}

        def on_step(s, seat, action):
            if hasattr(action, "card"):
                played.setdefault(s.round, []).append((seat, action.card))

        strategies = [make_strategy("random", "wizard") for _ in range(4)]
        s = play_game(GAME, params, strategies, ["random"] * 4, seed, on_step=on_step)
        for rec in s.log:
            t = rec.trump
            want = None if t is None else [sum(1 for k, c in played[rec.round] if k == seat and c.suit == t)
                                           for seat in range(4)]
            assert rec.trumps == want
            seen_pending |= rec.trump_card == "Z" and t is not None
    assert seen_pending
    # a state copied mid-round (no count kept) counts the played cards at the round's end
    s = GAME.initial_state(params, 4, random.Random(1))
    strategies = [make_strategy("random", "wizard") for _ in range(4)]
    rng = random.Random(2)
    while s.round < 3 or s.phase != "play" or len(s.played) < 4:
        seat, legal = GAME.turn(s)
        GAME.apply(s, strategies[seat].choose(GAME.view(s, seat), legal, rng), rng)
    copy = GAME.state_from_dict(json.loads(json.dumps(GAME.state_to_dict(s))))
    assert copy.round_trumps is None
    for t in (s, copy):
        r = random.Random(3)
        while t.round == 3:
            seat, legal = GAME.turn(t)
            GAME.apply(t, legal[0], r)
    assert copy.log[-1].trumps == s.log[-1].trumps and s.log[-1].round == 3


def _saved_state(phase: str, players: int = 4, seed: int = 3) -> dict:
    """A state from random legal play, stopped at the first ``phase`` turn after round 1, as JSON."""
    rng = random.Random(seed)
    params = GAME.Params()
    s = GAME.initial_state(params, players, rng)
    while not (GAME.is_terminal(s) or (s.pub.phase == phase and s.pub.round > 1)):
        legal = GAME.legal_actions(s)
        GAME.apply(s, legal[int(rng.random() * len(legal))], rng)
    return json.loads(json.dumps(GAME.state_to_dict(s)))


@pytest.mark.parametrize("phase, field, shift", [
    ("bid", "current", 1),  # a seat bidding out of turn
    ("play", "starter", 1),  # a starter who did not lead the first trick
    ("bid", "dealer", 2),  # a dealer who is not right of the starter
])
def test_a_saved_state_out_of_turn_is_refused_in_one_line(tmp_path, phase, field, shift):
    from analyser.io.states import load_state
    data = _saved_state(phase)
    path = tmp_path / "state.json"
    path.write_text(json.dumps(data))
    assert load_state(GAME, path).pub.phase == phase  # the untouched state loads
    data["pub"][field] = (data["pub"][field] + shift) % data["pub"]["n"]
    path.write_text(json.dumps(data))
    with pytest.raises(InputError) as e:
        load_state(GAME, path)
    assert "\n" not in str(e.value) and str(e.value).startswith("--state")


def _suited_turn(data):
    """Seed 3's first round-2 bid turns a suited card (the state the cases below edit)."""
    card = data["pub"]["trump_card"]
    assert card is not None and card[0] in "BGRY" and data["pub"]["trump"] is not None
    return data


@pytest.mark.parametrize("edit", [
    lambda d: d["pub"].update(phase="bid"),  # every bid made, yet still bidding: a bid loop
    lambda d: d["pub"].update(trump=None),  # a suited card turned, yet no trump
])
def test_a_saved_state_whose_phase_or_trump_no_deal_reaches_is_refused(tmp_path, edit):
    from analyser.io.states import load_state
    data = _suited_turn(_saved_state("play"))
    path = tmp_path / "state.json"
    path.write_text(json.dumps(data))
    load_state(GAME, path)  # the untouched state loads
    edit(data)
    path.write_text(json.dumps(data))
    with pytest.raises(InputError) as e:
        load_state(GAME, path)
    assert "\n" not in str(e.value) and str(e.value).startswith("--state")
