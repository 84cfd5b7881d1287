"""Scenario tests for Dragon Lairds (analyser/titles/dragon_lairds/rules.md): one per rule and ruling, on
hand-built states.

Cards are the ids of the approximate deck (``data/deck.csv``): per colour letter (Y yellow, O orange,
R red, G green, B blue) 01-12 Commoners, 13-20 Resources, 21-27 Lairds (27: High Wizard in yellow,
High Executioner in orange), 28-31 Havocs (Windfall tithe:4, Pillage raid:3, Slander scandal:2,
Dragon Fire purge).  Stacks are listed bottom first, the deck top card last.  Space indices:
0 havoc, 1 resource, 2 laird, 3 sale, 4.. commoner spaces 2..N.
"""

import json
import os
import pickle
import random

import pytest

from analyser.engine.core import InputError
from analyser.engine.registry import get_game, make_strategy
from analyser.engine.runner import play_game
from analyser.titles.dragon_lairds.rules import (CASH, CHALLENGE, KEEP, PASS, STAT_KEYS, Act, DragonParams,
                                                 card_cost, load_deck)

G = get_game("dragon-lairds")
COL = ["yellow", "orange", "red", "green", "blue"]
HAV, RES, LAI, SALE, C2, C3, C4 = 0, 1, 2, 3, 4, 5, 6


#: Fields of a hand-built state that hold cards: a stack of card ids, or one stack per entry.
STACKS, STACK_LISTS = ("deck", "discard", "used"), ("spaces", "hands", "play")


def st(players=3, colour=None, **kw):
    """A hand-built state, through the saved-state round trip: cards by their ids, colours by
    name, setup picks as an id or None; every field left out takes the value of the action phase
    of round 1 (start geld, 1 royal, empty stacks, no cup holder).  By default honour runs from the
    last seat to seat 0, so seat 0 is the lowest honour and acts first in the action phase."""
    n = players
    params = DragonParams(**kw.pop("params", {}))
    table = load_deck(params.components)
    honour = kw.pop("honour", list(range(n))[::-1])
    royals = kw.pop("royals", [1] * n)
    order = kw.pop("order", honour[::-1])
    turn_pos = kw.pop("turn_pos", 0)
    phase = kw.pop("phase", "actions")
    holder = kw.get("cup_holder", -1)
    d = {"params": params.as_dict(), "n": n, "colour": [table.colours.index(c) for c in colour or COL[:n]],
         "geld": params.start_money(n), "royals": royals, "honour": honour, "pawn": n, "round": 1, "phase": phase,
         "current": order[turn_pos] if phase == "actions" and order else 0, "deck": [],
         "spaces": [[] for _ in range(n + 3)], "discard": [], "hands": [[] for _ in range(n)],
         "play": [[] for _ in range(n)], "used": [], "pending": [[] for _ in range(n)], "picked": 0,
         "cup_holder": -1, "pot": params.cup_pot, "auction": None, "bids": [None] * n,
         "bidders": list(honour) if kw.get("auction") else [], "challenger": -1, "cursor": 0, "order": order,
         "turn_pos": turn_pos, "commoner_next": 0, "end": None, "final": None, "last_auction": None,
         "stats": [dict(dict.fromkeys(STAT_KEYS, 0), royals_start=r) for r in royals], "income": [[None] * n],
         "actions_taken": 0, "cup_open": holder < 0}
    for key, value in kw.items():
        if key in STACKS:
            value = [table.index[c] for c in value]
        elif key in STACK_LISTS:
            value = [[table.index[c] for c in stack] for stack in value]
        elif key == "pending":
            value = [[] if c is None else [table.index[c]] for c in value]
        d[key] = value
    return G.state_from_dict(json.loads(json.dumps(d)))


def ids(s, xs):
    return [s.deck_table.cards[c].id for c in xs]


def spaces(players, **named):
    out = [[] for _ in range(players + 3)]
    for k, v in named.items():
        out[{"havoc": HAV, "resource": RES, "laird": LAI, "sale": SALE, "c2": C2, "c3": C3, "c4": C4}[k]] = v
    return out


def bids(s, *amounts):
    for a in amounts:
        G.apply(s, Act("bid", a))


# -- the deck -------------------------------------------------------------------------------------

def test_default_deck_is_five_clans_of_31_designed_as_described():
    deck = load_deck("")
    assert deck.colours == tuple(COL)
    assert len(deck.cards) == 155
    for k in range(5):
        cards = [deck.cards[i] for i in deck.by_colour[k]]
        assert len(cards) == 31
        assert [sum(c.type == t for c in cards) for t in range(4)] == [4, 8, 7, 12]  # H R L C
        assert 1 <= sum(c.knight for c in cards) <= 4  # knights spread thin
        for c in cards:
            if c.finale:
                assert c.type == 2 and c.cost >= 7  # Finale Royals only on costly Lairds
    by_id = {c.id: c for c in deck.cards}
    assert by_id["Y27"].name == "High Wizard" and by_id["Y27"].ability == ("transmute", 2, 1)
    assert by_id["O27"].name == "High Executioner" and by_id["O27"].ability == ("execute", 0, 0)
    assert {c.ability[0] for c in deck.cards if c.type == 0} == {"tithe", "raid", "scandal", "purge"}


def write_deck(tmp_path, rows, name="deck.csv", header="id,name,type,colour,cost,currency,geld,royals,match,"
                                                       "finale,knight,ability"):
    p = tmp_path / name
    p.write_text("# a test deck\n" + header + "\n" + "\n".join(rows) + "\n")
    return str(p)


def small_rows(colours=("red", "blue"), per=6):
    rows = []
    for col in colours:
        for k in range(per):
            t = ["Commoner", "Resource", "Laird", "Havoc"][k % 4]
            cur, ab = ("royals", "tithe:2") if t == "Havoc" else ("geld", "")
            rows.append(f"{col[0].upper()}{col[1]}{k},{t} {k},{t},{col},{k + 1},{cur},1,0,,0,no,{ab}")
    return rows


def test_components_option_replaces_the_deck(tmp_path):
    path = write_deck(tmp_path, small_rows())
    p = DragonParams(components=path)
    deck = load_deck(path)
    assert deck.colours == ("red", "blue") and len(deck.cards) == 12
    s = G.initial_state(p, 2, random.Random(1))
    assert sorted(s.colour) == [0, 1]
    G.check_invariants(s)
    assert p.data_files()["components"].name == "deck.csv"
    with pytest.raises(InputError, match="2 colours.*3 players"):
        G.check_players(p, 3)


@pytest.mark.parametrize("rows, problem", [
    (["Zz0,x,Goblin,red,1,geld,1,0,,0,no,SECRET"], "type is not one of"),
    (["Zz0,x,Commoner,red,SECRET,geld,1,0,,0,no,"], "cost is not a whole number"),
    (["Zz1,x,Commoner,red,1,geld,1,0,,0,no,", "Zz1,y,Commoner,red,1,geld,1,0,,0,no,"], "ids must be unique"),
    (["Zz0,x,Havoc,red,1,geld,0,0,,0,no,tithe:1"], "currency must be royals for a Havoc"),
    (["Zz0,x,Havoc,red,1,royals,0,0,,0,no,SECRET:1"], "ability is not one of"),
    (["Zz0,x,Havoc,red,1,royals,0,0,,0,no,"], "a Havoc needs an ability"),
    (["Zz0,x,Commoner,red,1,geld,1,0,secret 2g,0,no,"], "match names a colour"),
    (["Zz0,x,Commoner,red,1,geld,1,0,,0,SECRET,"], "knight must be yes or no"),
    (["Zz0,x,Commoner,red,1,geld,1,0,,0,no"], "expected 12 fields, found 11"),
])
def test_bad_component_files_one_line_naming_file_and_line_never_content(tmp_path, rows, problem):
    path = write_deck(tmp_path, small_rows() + rows)
    line = 2 + len(small_rows()) + len(rows)  # comment, header, good rows, then the bad row last
    with pytest.raises(InputError) as e:
        load_deck(path)
    msg = str(e.value)
    assert "\n" not in msg and path in msg and f"line {line}:" in msg and problem in msg
    assert "SECRET" not in msg.upper().replace(path.upper(), "")


def test_bad_component_files_header_encoding_size_and_kind(tmp_path):
    def refused(path, *needles):
        with pytest.raises(InputError) as e:
            load_deck(str(path))
        msg = str(e.value)
        assert "\n" not in msg and msg.startswith(f"components file {str(path)!r}"), msg
        assert all(n in msg for n in needles), msg
        assert "SECRET" not in msg.upper().replace(str(path).upper(), ""), msg

    refused(write_deck(tmp_path, small_rows(), header="id,name,SECRET"), "line 2:", "id,name,")
    raw = tmp_path / "latin.csv"
    raw.write_bytes(b"id,name\n\xff\xfe\n")
    refused(raw, "line 2:", "UTF-8")
    big = tmp_path / "big.csv"
    big.write_text("#" * 1_000_001)
    refused(big, "1,000,001 bytes", "1,000,000")
    refused(tmp_path, "folder;")
    refused(tmp_path / "missing.csv", "does not exist")
    refused(write_deck(tmp_path, small_rows(("red",)), name="one.csv"), "1 colour")
    quoted = write_deck(tmp_path, small_rows() + ['Zz0,"SECRET,Commoner,red,1,geld,1,0,,0,no,'], name="q.csv")
    refused(quoted, "not CSV")


def test_a_proc_file_is_capped_by_the_bytes_read_not_its_size(tmp_path, monkeypatch):
    import analyser.titles.dragon_lairds.rules as rules
    proc = "/proc/self/status"  # a regular file whose size reads as 0 however much it holds
    if not os.path.exists(proc):
        pytest.skip("no /proc here")
    assert os.stat(proc).st_size == 0
    monkeypatch.setattr(rules, "MAX_FILE_BYTES", 100)
    load_deck.cache_clear()
    try:
        with pytest.raises(InputError) as e:
            load_deck(proc)
        assert str(e.value).startswith(f"components file {proc!r} ") and "100 bytes," in str(e.value)
    finally:
        load_deck.cache_clear()
    monkeypatch.undo()
    with pytest.raises(InputError) as e:  # under the real cap: read, then refused by its header
        load_deck(proc)
    assert "line 1:" in str(e.value) and "\n" not in str(e.value)


def test_bad_components_on_the_command_line_exit_2_one_line(runner, tmp_path):
    from analyser.cli import cli
    bad = write_deck(tmp_path, ["Re0,x,Commoner,red,SECRET,geld,1,0,,0,no,"])
    r = runner.invoke(cli, ["simulate", "dragon-lairds", "-s", "income", "--rule", f"components={bad}",
                             "--out", str(tmp_path / "out")])
    assert r.exit_code == 2
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("analyser: error: ") and "line 3:" in lines[0]
    assert "SECRET" not in lines[0]


def test_components_file_is_made_absolute_and_recorded_with_sha256(tmp_path, monkeypatch):
    from analyser import run as runmod
    path = write_deck(tmp_path, small_rows())
    monkeypatch.chdir(tmp_path)
    spec = runmod.RunSpec(game="dragon-lairds", strategies=["income"], players=2, games=4, seed=1, jobs=1,
                          rules={"components": "deck.csv"})
    res = runmod.run(spec, progress=False)
    rec = res.config["data_files"]["components"]
    assert rec["path"] == path and len(rec["sha256"]) == 64


# -- setup ------------------------------------------------------------------------------------------

def test_setup_geld_colours_pawn_honour_scores_and_deal():
    s = G.initial_state(DragonParams(), 4, random.Random(3))
    assert s.geld == [15] * 4 and s.royals == [1] * 4 and s.pawn == 4
    assert len(set(s.colour)) == 4 and sorted(s.honour) == [0, 1, 2, 3]
    assert [len(h) for h in s.hands] == [4] * 4 and s.phase == "free" and s.current == 0
    assert len(s.deck) == 4 * 31 - 16
    assert {s.deck_table.cards[c].colour for c in s.deck} <= set(s.colour)
    G.check_invariants(s)


def test_seat_geld_variant_adds_start_money_per_seat():
    s = G.initial_state(DragonParams.from_overrides({"seat_geld": "0/0/1/3"}), 4, random.Random(3))
    assert s.geld == [15, 15, 16, 18] and s.royals == [1] * 4
    G.check_invariants(s)
    s = G.initial_state(DragonParams.from_overrides({"seat_geld": "2", "start_geld": "10"}), 3, random.Random(3))
    assert s.geld == [12, 12, 12]
    # a hand-built state without geld starts every seat with its start money too
    assert st(3, params={"seat_geld": "0/5/0"}).geld == [15, 20, 15]


@pytest.mark.parametrize("value, match", [("0/0/1", "gives 3 values for 4 seats"), ("-1", "within 0 to 1000"),
                                          ("a", r"one whole number for all seats \(such as 2\)")])
def test_seat_geld_bad_values_are_one_line_errors(value, match):
    with pytest.raises(InputError, match=match):
        G.check_players(DragonParams.from_overrides({"seat_geld": value}), 4)


def test_setup_free_card_not_a_havoc_then_fire_sale_rest_discarded_then_opening_auction():
    s = st(3, phase="free", current=0, round=0, hands=[["Y28", "Y01", "Y02", "Y03"], ["O28", "O29", "O30", "O31"],
                                               ["R28", "R21", "R13", "R01"]])
    assert [a.arg for a in G.legal_actions(s)] == ["Y01", "Y02", "Y03"]  # the Havoc is not offered
    G.apply(s, Act("free", "Y02"))
    assert G.current_player(s) == 2  # seat 1 holds only Havocs: it plays no free card
    assert G.view(s, 0).pending is not None and G.view(s, 2).pending is None  # picks are hidden
    assert s.play == [[], [], []]
    G.apply(s, Act("free", "R21"))
    assert ids(s, s.play[0]) == ["Y02"] and s.play[1] == [] and ids(s, s.play[2]) == ["R21"]
    assert s.phase == "sale" and s.current == 0
    G.apply(s, Act("sale", "Y28"))
    G.apply(s, Act("sale", "O31"))
    G.apply(s, Act("sale", "R01"))
    assert ids(s, s.spaces[SALE]) == ["Y28", "O31", "R01"]
    assert sorted(ids(s, s.discard)) == sorted(["Y01", "Y03", "O28", "O29", "O30", "R28", "R13"])
    assert s.hands == [[], [], []]
    assert s.phase == "auction" and s.auction == "open" and s.pot == 10 and s.round == 1


# -- the Saurean Cup --------------------------------------------------------------------------------

def test_opening_auction_highest_bid_wins_pays_gains_a_royal_pot_grows_then_refill():
    s = st(3, phase="auction", auction="open", honour=[2, 0, 1], current=2, geld=[9, 9, 9],
           deck=["Y02", "Y21", "Y13", "Y28"])
    assert len(G.legal_actions(s)) == 10  # bids 0..9 geld
    bids(s, 3, 5, 4)  # seats 2, 0, 1 in honour order
    assert s.cup_holder == 0 and s.geld == [4, 9, 9] and s.royals == [2, 1, 1] and s.pot == 11
    assert s.last_auction["bids"] == [5, 4, 3] and s.last_auction["winner"] == 0
    assert s.phase == "actions" and ids(s, s.spaces[HAV]) == ["Y28"]  # refilled


def test_opening_auction_tie_goes_by_honour_order_and_zero_bids_count():
    s = st(3, phase="auction", auction="open", honour=[2, 0, 1], current=2, deck=["Y21", "Y13", "Y28"])
    bids(s, 0, 0, 0)
    assert s.cup_holder == 2 and s.royals[2] == 2 and s.geld[2] == 15
    s = st(3, phase="auction", auction="open", honour=[1, 2, 0], current=1, deck=["Y21", "Y13", "Y28"])
    bids(s, 4, 4, 4)
    assert s.cup_holder == 1


def test_sealed_bids_are_hidden_from_views_until_the_auction_ends():
    s = st(3, phase="auction", auction="open", honour=[0, 1, 2], current=0, deck=["Y21", "Y13", "Y28"])
    G.apply(s, Act("bid", 7))
    v = G.view(s, 1)
    assert v.bids_made == 1 and v.auction == "open"
    public = [a for a in dir(v) if not a.startswith("_")]
    assert "bids" not in public and "deck" not in public and "discard" not in public
    assert v.hand is s.hands[1] and not hasattr(v, "hands")  # only its own hand
    assert v.last_auction is None
    bids(s, 2, 1)
    assert v.last_auction["bids"] == [7, 2, 1]


def challenge_state(**kw):
    d = dict(honour=[0, 1, 2], cup_holder=0, pot=12, current=1, order=[2, 1, 0], turn_pos=1,
             geld=[10, 10, 10], cup_open=False)
    d.update(kw)
    return st(3, **d)


def test_challenge_holder_plus_one_and_knights_plus_two_ties_more_knights():
    s = challenge_state(play=[[], [], ["R05"]])  # seat 2 has a knight (Militia)
    assert CHALLENGE in G.legal_actions(s)
    G.apply(s, CHALLENGE)
    assert s.phase == "auction" and s.auction == "challenge" and s.current == 0
    bids(s, 4, 5, 3)  # effective: holder 4+1 = 5, seat 1 5, seat 2 3+2 = 5
    assert s.last_auction["effective"] == [5, 5, 5]
    assert s.cup_holder == 2  # tie: more knights
    assert s.geld == [10, 10, 7] and s.royals == [1, 1, 2] and s.pot == 13
    assert s.phase == "actions" and s.current == 0  # the challenge was seat 1's action
    assert s.stats[1]["challenges"] == 1


def test_challenge_tie_with_equal_knights_goes_by_honour_and_the_holder_bonus_counts():
    s = challenge_state()
    G.apply(s, CHALLENGE)
    bids(s, 4, 5, 0)  # holder 4+1 = 5 ties seat 1's 5: honour order keeps the holder
    assert s.cup_holder == 0 and s.geld[0] == 6 and s.royals[0] == 2
    s = challenge_state(honour=[1, 0, 2], current=2, order=[2, 0, 1], turn_pos=0)
    G.apply(s, CHALLENGE)
    bids(s, 5, 5, 0)  # seats 1, 0, 2: holder 5+1 beats seat 1's 5 although seat 1 is first in honour
    assert s.cup_holder == 0


def test_the_holder_cannot_challenge_and_nobody_can_while_the_cup_is_with_the_bank():
    s = challenge_state(current=0, turn_pos=2)
    assert CHALLENGE not in G.legal_actions(s)
    s = challenge_state(cup_holder=-1)
    assert CHALLENGE not in G.legal_actions(s)


def test_end_of_round_keep_scores_half_the_pot_rounded_up():
    s = st(3, phase="cup", cup_holder=1, current=1, pot=11, cup_open=False, deck=["Y02", "Y21", "Y13", "Y28"])
    assert G.legal_actions(s) == [KEEP, CASH]
    G.apply(s, KEEP)
    assert s.royals[1] == 1 + 6 and s.pot == 11 and s.cup_holder == 1
    assert s.round == 2 and s.phase == "actions"  # no auction: the cup is held


def test_end_of_round_cash_takes_the_pot_and_a_new_auction_opens_next_round():
    s = st(3, phase="cup", cup_holder=1, current=1, pot=11, cup_open=False, deck=["Y21", "Y13", "Y28", "Y01"])
    G.apply(s, CASH)
    assert s.geld[1] == 15 + 11 and s.cup_holder == -1 and s.pot == 10
    assert s.phase == "auction" and s.auction == "open" and s.round == 2


def final_state(**kw):
    """Seat 1 keeps the cup at the end of a round; the refill then reveals the deck's last card."""
    d = dict(phase="cup", cup_holder=1, current=1, pot=10, cup_open=False, honour=[2, 0, 1],
             deck=["Y21"], spaces=spaces(3, havoc=["Y28", "Y29"], resource=["Y13", "Y14"]))
    d.update(kw)
    return st(3, **d)


def test_final_auction_plain_winner_pays_and_scores_the_pot_ties_by_honour():
    s = final_state(geld=[6, 6, 6])
    G.apply(s, KEEP)  # +5 royals to seat 1, then the last card is revealed
    assert s.end == "deck" and s.phase == "auction" and s.auction == "final"
    before = list(s.royals)
    bids(s, 6, 6, 2)  # seats 2, 0, 1: 2 and 0 tie, seat 2 is first in honour
    assert s.phase == "over" and G.is_terminal(s) and G.legal_actions(s) == ()
    assert s.royals[2] == before[2] + 10 and s.geld[2] == 0
    assert s.royals[0] == before[0] and s.royals[1] == before[1]


def test_final_auction_challenge_option_uses_holder_and_knight_bonuses():
    s = final_state(geld=[6, 6, 6], params={"final_auction": "challenge"})
    G.apply(s, KEEP)
    bids(s, 6, 6, 5)  # seat 1 holds the cup: 5 + 1 = 6 ties; honour order [2, 0, 1] picks seat 2
    assert s.last_auction["effective"] == [6, 6, 6] and s.last_auction["winner"] == 2
    s = final_state(geld=[6, 6, 6], params={"final_auction": "challenge"}, play=[[], ["O05"], []])
    G.apply(s, KEEP)
    bids(s, 6, 6, 3)  # seat 1: 3 + 1 + 2 (knight) = 6 ties at 6 but has the most knights
    assert s.last_auction["winner"] == 1


# -- refill ------------------------------------------------------------------------------------------

def refill_state(**kw):
    d = dict(phase="cup", cup_holder=0, current=0, pot=10, cup_open=False,
             spaces=spaces(3, havoc=["Y28", "Y29"], resource=["Y13"], c2=["Y01"]),
             deck=["Y30", "Y14", "Y21", "Y04", "Y03", "Y02"])
    d.update(kw)
    return st(3, **d)


def test_refill_moves_bottom_cards_to_the_fire_sale_and_reveals_until_havoc_resource_laird():
    s = refill_state()
    G.apply(s, KEEP)
    assert ids(s, s.spaces[SALE]) == ["Y28", "Y13", "Y01"]  # in space order
    assert ids(s, s.spaces[HAV]) == ["Y29"]
    assert ids(s, s.spaces[RES]) == ["Y14"] and ids(s, s.spaces[LAI]) == ["Y21"]
    assert ids(s, s.spaces[C2]) == ["Y02", "Y04"] and ids(s, s.spaces[C3]) == ["Y03"]  # 2, 3, 2
    assert ids(s, s.deck) == ["Y30"]  # stopped once Havoc, Resource and Laird each hold a card
    assert s.phase == "actions" and s.pawn == 3


def test_refill_commoner_cycle_continue_carries_on_from_the_last_refill():
    s = refill_state(params={"commoner_cycle": "continue"}, commoner_next=1)
    G.apply(s, KEEP)
    assert ids(s, s.spaces[C3]) == ["Y02", "Y04"] and ids(s, s.spaces[C2]) == ["Y03"]
    s = refill_state(commoner_next=1)  # restart (default) ignores where the last refill stopped
    G.apply(s, KEEP)
    assert ids(s, s.spaces[C2]) == ["Y02", "Y04"]


def test_the_last_card_revealed_ends_the_game_at_once():
    s = refill_state(deck=["Y21", "Y02"])
    G.apply(s, KEEP)
    assert s.end == "deck" and s.deck == [] and s.phase == "auction" and s.auction == "final"
    assert s.final is not None


# -- the action phase --------------------------------------------------------------------------------

def test_action_phase_lowest_honour_first_pawn_advances_per_pass_and_halt_ends_it():
    s = st(3, params={"halt_space": 5}, honour=[1, 2, 0], pawn=3, deck=["Y21", "Y13", "Y28"] * 0)
    assert s.order == [0, 2, 1]
    seen = []
    for _ in range(6):
        seen.append(G.current_player(s))
        G.apply(s, PASS)
        if len(seen) == 3:
            assert s.pawn == 4
    assert seen == [0, 2, 1, 0, 2, 1]
    assert s.phase != "actions"  # pawn reached 5: tax and reset followed at once
    assert s.income[0] == [[0, 0]] * 3


def test_halt_space_sets_the_number_of_turns():
    for halt, turns in ((8, 5), (4, 1)):
        s = st(3, params={"halt_space": halt}, pawn=3)
        n = 0
        while s.phase == "actions" and s.round == 1:
            G.apply(s, PASS)
            n += 1
        assert n == 3 * turns


def test_buy_costs_off_colour_plus_two_and_fire_sale_half_rounded_up_after_modifiers():
    s = st(3, spaces=spaces(3, resource=["R14"], sale=["R14"] * 0 + ["Y14"], c2=["R01"]))
    r14, y14 = s.deck_table.index["R14"], s.deck_table.index["Y14"]
    assert card_cost(s, 0, y14, RES) == 5  # own colour: printed cost
    assert card_cost(s, 0, r14, RES) == 7  # off-colour: +2
    assert card_cost(s, 0, y14, SALE) == 3  # 5 / 2 rounded up
    assert card_cost(s, 0, r14, SALE) == 4  # (5 + 2) / 2 = 3.5 rounded up, after the surcharge
    assert card_cost(s, 2, r14, SALE) == 3
    down = st(3, params={"fire_sale_rounding": "down", "off_colour_surcharge": 3})
    assert card_cost(down, 0, r14, SALE) == 4 and card_cost(down, 0, y14, SALE) == 2


def test_buy_pays_and_puts_the_card_in_play_and_ends_the_turn():
    s = st(3, honour=[2, 1, 0], spaces=spaces(3, resource=["Y13", "R14"], sale=["R13"]))
    assert s.current == 0
    G.apply(s, Act("buy", RES))
    assert ids(s, s.play[0]) == ["R14"] and s.geld[0] == 15 - 7 and ids(s, s.spaces[RES]) == ["Y13"]
    assert s.current == 1
    G.apply(s, Act("buy", SALE))
    assert ids(s, s.play[1]) == ["R13"] and s.geld[1] == 15 - 3  # (4 + 2) / 2


def test_buy_is_offered_only_when_affordable():
    s = st(3, geld=[6, 15, 15], spaces=spaces(3, laird=["R26"], resource=["Y13"]))
    legal = G.legal_actions(s)
    assert Act("buy", RES) in legal and Act("buy", LAI) not in legal


def test_take_into_hand_and_the_hand_limit():
    s = st(3, spaces=spaces(3, laird=["R26"]), hands=[["Y01", "Y02", "Y03"], [], []])
    assert Act("take", LAI) in G.legal_actions(s)
    G.apply(s, Act("take", LAI))
    assert ids(s, s.hands[0]) == ["Y01", "Y02", "Y03", "R26"] and s.spaces[LAI] == [] and s.geld[0] == 15
    s = st(3, spaces=spaces(3, laird=["R26"]), hands=[["Y01", "Y02", "Y03", "Y04"], [], []])
    assert not [a for a in G.legal_actions(s) if a.kind == "take"]


def test_play_from_hand_pays_cost_and_off_colour_surcharge():
    s = st(3, hands=[["R13", "Y13"], [], []])
    G.apply(s, Act("play", "R13"))
    assert s.geld[0] == 15 - 6 and ids(s, s.play[0]) == ["R13"] and ids(s, s.hands[0]) == ["Y13"]
    s = st(3, hands=[["R13"], [], []], params={"hand_surcharge": False})
    G.apply(s, Act("play", "R13"))
    assert s.geld[0] == 15 - 4


def test_pay_one_royal_to_cycle_is_free_and_repeatable():
    s = st(3, royals=[2, 1, 1], spaces=spaces(3, havoc=["Y28", "Y29", "Y30"], laird=["Y21"]))
    legal = G.legal_actions(s)
    assert Act("cycle", HAV) in legal and Act("cycle", LAI) not in legal  # one card: no change
    G.apply(s, Act("cycle", HAV))
    assert ids(s, s.spaces[HAV]) == ["Y30", "Y28", "Y29"] and s.royals[0] == 1 and s.current == 0
    G.apply(s, Act("cycle", HAV))
    assert ids(s, s.spaces[HAV]) == ["Y29", "Y30", "Y28"] and s.royals[0] == 0 and s.current == 0
    assert not [a for a in G.legal_actions(s) if a.kind == "cycle"]  # no royal left
    assert s.stats[0]["royals_spent"] == -2


def test_high_wizard_once_per_round_until_the_next_refill():
    s = st(3, play=[["Y27"], [], []], geld=[5, 15, 15], honour=[2, 1, 0], pawn=7,
           params={"halt_space": 8}, cup_holder=1, cup_open=False,
           deck=["Y30", "Y14", "Y21", "Y28"])
    use = Act("use", "Y27")
    assert use in G.legal_actions(s)
    G.apply(s, use)  # transmute:2:1
    assert s.geld[0] == 3 and s.royals[0] == 2 and s.stats[0]["royals_effects"] == 1
    G.apply(s, PASS)
    G.apply(s, PASS)  # the pass ends: tax, reset, cup choice
    assert s.phase == "cup"
    G.apply(s, KEEP)  # round 2: refill
    assert s.round == 2 and s.phase == "actions" and s.used == []
    while s.current != 0:
        G.apply(s, PASS)
    assert use in G.legal_actions(s)


def test_high_wizard_needs_the_geld():
    s = st(3, play=[["Y27"], [], []], geld=[1, 15, 15])
    assert Act("use", "Y27") not in G.legal_actions(s)


def test_high_executioner_discards_the_top_card_of_a_chosen_space():
    s = st(3, colour=["orange", "yellow", "red"], play=[["O27"], [], []],
           spaces=spaces(3, laird=["Y21", "R26"], sale=["Y01"]))
    legal = [a for a in G.legal_actions(s) if a.kind == "use"]
    assert legal == [Act("use", "O27", LAI), Act("use", "O27", SALE)]
    G.apply(s, Act("use", "O27", LAI))
    assert ids(s, s.spaces[LAI]) == ["Y21"] and ids(s, s.discard) == ["R26"]
    assert not [a for a in G.legal_actions(s) if a.kind == "use"]


def test_havocs_cost_royals_resolve_at_once_and_go_to_the_bottom_of_the_discard():
    s = st(3, royals=[5, 1, 3], geld=[15, 2, 15], discard=["Y01"],
           spaces=spaces(3, havoc=["Y29", "Y30"]))
    G.apply(s, Act("buy", HAV))  # Slander scandal:2, 3 royals
    assert s.royals == [2, 0, 1] and ids(s, s.discard) == ["Y30", "Y01"] and s.play[0] == []
    assert s.stats[1]["royals_effects"] == -1 and s.stats[2]["royals_effects"] == -2
    assert s.current == 1
    assert Act("buy", HAV) in G.legal_actions(st(3, royals=[1, 4, 1], spaces=spaces(3, havoc=["Y29"]), current=1))
    assert Act("buy", HAV) not in G.legal_actions(st(3, royals=[1, 3, 1], spaces=spaces(3, havoc=["Y29"]), current=1))


def test_havoc_effects_raid_tithe_purge():
    s = st(3, royals=[9, 9, 9], geld=[15, 2, 5], spaces=spaces(3, havoc=["Y28", "Y31", "Y29"], laird=["Y21"],
                                                                  sale=["Y01"], c3=["Y02", "Y03"]))
    G.apply(s, Act("buy", HAV))  # raid:3
    assert s.geld == [15, 0, 2]
    s.current = 0
    G.apply(s, Act("buy", HAV))  # purge: the top card of every board space but the Fire Sale
    assert s.spaces[LAI] == [] and ids(s, s.spaces[C3]) == ["Y02"] and ids(s, s.spaces[SALE]) == ["Y01"]
    assert s.spaces[HAV] == [] and ids(s, s.discard) == ["Y31", "Y29", "Y28", "Y21", "Y03"]
    s = st(3, royals=[9, 9, 9], spaces=spaces(3, havoc=["Y28"]))
    G.apply(s, Act("buy", HAV))  # tithe:4
    assert s.geld == [19, 15, 15] and s.royals[0] == 8


# -- tax, reset, end --------------------------------------------------------------------------------

def tax_state(**kw):
    d = dict(players=2, colour=["yellow", "orange"], honour=[1, 0], pawn=7, turn_pos=1, cup_holder=-1,
             play=[["Y22", "Y23", "Y03"], ["Y25", "Y04"]], deck=["Y21", "Y13", "Y28"] * 0 + ["O21", "O13", "O28"])
    d.update(kw)
    return st(**d)


def test_tax_collects_income_with_colour_matched_values_not_finale():
    s = tax_state()
    assert s.current == 1  # order [0, 1]: seat 1 (highest honour) acts last in the pass
    G.apply(s, PASS)
    # seat 0 (yellow): Baron 3r matched + Earl 3r, Herder 2g matched; seat 1 (orange): Duke 3r, Herder 1g
    assert s.income[0] == [[2, 6], [1, 3]]
    assert s.royals == [7, 4] and s.geld == [17, 16]
    assert s.stats[0]["royals_finale"] == 0


def test_tax_in_honour_order_stops_when_a_seat_reaches_60_royals():
    s = tax_state(royals=[10, 58])
    G.apply(s, PASS)
    assert s.end == "royals" and s.income[0] == [None, [1, 3]]  # seat 0 never collected
    assert s.geld == [15, 16]
    assert s.phase == "auction" and s.auction == "final"


def test_honour_reorders_by_royals_then_cards_in_play_then_earlier_order():
    s = st(3, honour=[2, 0, 1], pawn=7, turn_pos=2, royals=[5, 5, 5], cup_holder=-1,
           play=[["Y01"], ["O01", "O02"], ["R01", "R02"]], deck=["Y21", "Y13", "Y28"])
    G.apply(s, PASS)
    assert s.honour == [2, 1, 0]
    s = st(3, honour=[2, 0, 1], pawn=7, turn_pos=2, royals=[5, 9, 5], cup_holder=-1, deck=["Y21", "Y13", "Y28"])
    G.apply(s, PASS)
    assert s.honour == [1, 2, 0]


def test_60_royals_during_the_action_phase_ends_the_game_at_once():
    s = st(3, play=[["Y27"], [], []], royals=[59, 1, 1])
    G.apply(s, Act("use", "Y27"))
    assert s.end == "royals" and s.phase == "auction" and s.auction == "final"


def test_final_scoring_income_finale_colour_sets_and_hand_penalties():
    s = final_state(play=[["Y22", "R23", "O21", "Y13"], [], []], hands=[["Y01", "R26"], [], []])
    G.apply(s, KEEP)
    f = {row[0]: row[1:] for row in s.final}
    # royals income once more 3 (Baron, matched) + 3 + 2; finale 2 + 3; Lairds of 3 colours + a Resource;
    # hand: own-colour card -5, red Archduke -12
    assert f[0] == (8, 5, 8, 17)
    st0 = s.stats[0]
    assert (st0["royals_final_income"], st0["royals_finale"], st0["royals_sets"], st0["hand_penalty"]) == (8, 5, 8, -17)
    assert s.royals[0] == 1 + 8 + 5 + 8 - 17
    assert s.geld[0] == 15  # no geld at final scoring


def test_colour_set_bonus_is_at_most_10_per_type(tmp_path):
    rows = [f"C{k},c,Commoner,{col},1,geld,0,0,,0,no," for k, col in
            enumerate(["red", "blue", "pink", "teal", "gold", "grey"])]
    rows += [f"X{k},x,Laird,red,1,geld,0,0,,0,no," for k in range(5)]
    for col in ("blue", "pink", "teal", "gold", "grey"):
        rows += [f"{col}{k},x,Laird,{col},1,geld,0,0,,0,no," for k in range(5)]
    path = write_deck(tmp_path, rows)
    s = st(2, colour=["red", "blue"], params={"components": path}, phase="cup", cup_holder=0, current=0,
           pot=0, cup_open=False, play=[[f"C{k}" for k in range(6)], ["C1"]], deck=["X0"])
    G.apply(s, KEEP)
    assert s.stats[0]["royals_sets"] == 10 and s.stats[1]["royals_sets"] == 2


def test_max_rounds_caps_the_game():
    s = st(3, params={"max_rounds": 4}, round=4, phase="cup", cup_holder=0, current=0, cup_open=False,
           deck=["Y21", "Y13", "Y28"])
    G.apply(s, KEEP)
    assert s.end == "cap" and s.auction == "final"


def test_a_cash_then_the_cap_gives_the_final_auction_a_fresh_pot_or_none():
    # round 4 of max_rounds=4: seat 0 cashes a 13-geld pot, so the cup is with the bank and no
    # auction opens before the cap ends the game
    def cashed(**params):
        s = st(3, params={"max_rounds": 4, **params}, round=4, phase="cup", cup_holder=0, current=0, pot=13,
               cup_open=False, geld=[5, 7, 9], deck=["Y21", "Y13", "Y28"])
        G.apply(s, CASH)
        assert s.end == "cap" and s.geld[0] == 5 + 13 and s.cup_holder == -1
        return s
    s = cashed()
    assert s.phase == "auction" and s.auction == "final" and s.pot == 10  # the ruling: a fresh cup_pot
    before = list(s.royals)
    bids(s, *[{0: 2, 1: 4, 2: 3}[seat] for seat in s.honour])
    assert s.phase == "over" and s.last_auction["winner"] == 1
    assert s.royals[1] == before[1] + 10 and s.geld[1] == 7 - 4 and s.stats[1]["royals_cup"] == 10
    s = cashed(cup_pot=6)
    assert s.pot == 6 and s.auction == "final"  # the fresh pot is cup_pot
    s = cashed(cap_after_cash="none")
    assert s.phase == "over" and G.is_terminal(s) and s.auction is None and G.legal_actions(s) == ()
    assert s.last_auction is None or s.last_auction["kind"] != "final"
    # the option changes nothing when the cup is held at the cap
    s = st(3, params={"max_rounds": 4, "cap_after_cash": "none"}, round=4, phase="cup", cup_holder=0, current=0,
           pot=13, cup_open=False, deck=["Y21", "Y13", "Y28"])
    G.apply(s, KEEP)
    assert s.end == "cap" and s.auction == "final" and s.pot == 13


def test_winners_shared_or_by_honour():
    s = st(3, phase="over", royals=[9, 9, 3], honour=[1, 0, 2], play=[["Y01"], [], []])
    assert G.winners(s) == [0, 1]
    s = st(3, phase="over", royals=[9, 9, 3], honour=[1, 0, 2], play=[["Y01"], [], []],
           params={"tie_break": "honour"})
    assert G.winners(s) == [0]  # more cards in play among the tied


# -- persistence, invariants, actions ----------------------------------------------------------------

def test_state_json_pickle_clone_round_trip_mid_game():
    s = G.initial_state(DragonParams(), 4, random.Random(5))
    r = random.Random(6)
    for _ in range(60):
        G.apply(s, r.choice(G.legal_actions(s)))
    again = G.state_from_dict(json.loads(json.dumps(G.state_to_dict(s))))
    assert again == s and pickle.loads(pickle.dumps(s)) == s
    c = G.clone_state(s)
    assert c == s and c is not s and c.spaces is not s.spaces and c.spaces[0] is not s.spaces[0]
    assert c.stats[0] is not s.stats[0] and c.income[-1] is not s.income[-1]
    c.spaces[0].append(0)
    assert c != s


def saved_mid_game(tmp_path, **changes):
    """A saved two-player state of a random game 40 actions in, with ``changes`` to its fields
    (a change to None leaves the field out), written to a file; returns the path and the state."""
    s = G.initial_state(DragonParams(), 2, random.Random(4))
    r = random.Random(5)
    for _ in range(40):
        G.apply(s, r.choice(G.legal_actions(s)))
    data = {k: v for k, v in dict(G.state_to_dict(s), **changes).items() if not (k in changes and v is None)}
    path = tmp_path / "state.json"
    path.write_text(json.dumps(data))
    return path, s


@pytest.mark.parametrize("data, needle", [
    ({"colour": None}, "colour"),
    ({"n": 9}, "n: "),
    ({"colour": [0, 0]}, "colour"),
    ({"hands": [[9999], []]}, "hands"),
    ({"hands": [["Y01"], []]}, "hands"),
    ({"honour": [0, 0]}, "honour"),
    ({"phase": "lunch"}, "phase"),
    ({"geld": [1]}, "geld"),
    ({"pot": -1}, "pot"),
    ({"bids": [99, None]}, "bid"),
    ({"pending": [[1, 2], []]}, "pending"),
    ({"params": {"hand_limit": -3}}, "hand_limit"),
])
def test_malformed_state_is_one_line_input_error(tmp_path, data, needle):
    from analyser.io.states import load_state
    path, _ = saved_mid_game(tmp_path, **data)
    with pytest.raises(InputError) as e:
        load_state(G, path)
    assert "\n" not in str(e.value) and needle in str(e.value)


def test_a_saved_state_loads_as_it_was(tmp_path):
    from analyser.io.states import load_state
    path, s = saved_mid_game(tmp_path)
    assert load_state(G, path) == s


def test_invariants_catch_a_duplicated_or_missing_card():
    s = G.initial_state(DragonParams(), 3, random.Random(2))
    G.check_invariants(s)
    s.discard.append(s.deck[-1])
    with pytest.raises(AssertionError, match="conserved"):
        G.check_invariants(s)
    s = G.initial_state(DragonParams(), 3, random.Random(2))
    s.royals[0] += 1
    with pytest.raises(AssertionError, match="add up"):
        G.check_invariants(s)


def test_action_json_round_trip_and_unknown_actions():
    for a in (Act("buy", 0), Act("take", 5), Act("cycle", 3), Act("play", "Y12"), Act("use", "O27", 3),
              Act("use", "Y27"), Act("bid", 12), Act("free", "Y03"), Act("sale", "Y07"), PASS, CHALLENGE,
              KEEP, CASH):
        text = G.action_to_json(a)
        assert G.action_from_json(json.loads(json.dumps(text))) == a
        assert isinstance(G.describe_action(a), str)
    assert G.action_to_json(Act("buy", 5)) == {"type": "Act", "kind": "buy", "arg": 5, "target": -1}
    for bad in ({"type": "Act", "kind": "attack", "arg": 5, "target": -1}, {"type": "Move", "kind": "buy"},
                {"type": "Act", "kind": "buy", "arg": [5], "target": -1}):
        with pytest.raises(InputError) as e:
            G.action_from_json(bad)
        assert "\n" not in str(e.value)


# -- strategies and metrics --------------------------------------------------------------------------

def decide(spec, s):
    bot = make_strategy(spec, "dragon-lairds")
    seat = G.current_player(s)
    bot.reset(seat, s.params, s.n)
    return bot.choose(G.view(s, seat), G.legal_actions(s), random.Random(0))


def test_income_buys_most_income_per_cost_royals_rush_a_laird_colour_set_a_new_colour():
    s = st(3, geld=[12, 15, 15], spaces=spaces(3, resource=["Y13"], laird=["Y26"], c2=["O12"]),
           play=[["Y01"], [], []])
    # income per cost: Quarry 2/4, Archduke 16/12, Guildmaster (off-colour) 3/7
    assert decide("income", s) == Act("buy", LAI)
    s = st(3, geld=[9, 15, 15], spaces=spaces(3, resource=["Y20"], laird=["Y21"], c2=["Y01"]))
    assert decide("royals-rush", s) == Act("buy", LAI)
    s = st(3, geld=[9, 15, 15], spaces=spaces(3, c2=["Y06"], c3=["O06"]), play=[["Y01"], [], []])
    assert decide("income", s) == Act("buy", C2)
    assert decide("colour-set", s) == Act("buy", C3)  # orange is a new Commoner colour


def test_high_executioner_policy_denies_the_costliest_top_card_and_passes_on_an_empty_board():
    s = st(3, colour=["orange", "yellow", "red"], geld=[0, 15, 15], play=[["O27"], [], []],
           spaces=spaces(3, laird=["Y21", "R26"], c2=["Y01"]))
    assert decide("income", s) == Act("use", "O27", LAI)
    s = st(3, colour=["orange", "yellow", "red"], play=[["O27"], [], []])
    assert decide("income", s) == PASS


def test_cup_policy_bids_a_fraction_of_the_pot_and_all_geld_in_the_final():
    s = st(3, phase="auction", auction="open", honour=[0, 1, 2], current=0, pot=11, geld=[20, 5, 5])
    assert decide("income", s) == Act("bid", 5)
    assert decide("income:cup=0.8", s) == Act("bid", 8)
    assert decide("income:cup=0", s) == Act("bid", 0)
    s = st(3, phase="auction", auction="final", honour=[0, 1, 2], current=0, pot=11, geld=[20, 5, 5])
    assert decide("royals-rush", s) == Act("bid", 20)


def test_cup_policy_challenges_when_its_bid_beats_the_holders_likely_bid_and_keeps_the_cup():
    s = challenge_state(geld=[2, 10, 10])
    assert decide("income", s) == CHALLENGE  # 6 against 2 + 1
    s = challenge_state(geld=[10, 10, 10])
    assert decide("income", s) != CHALLENGE  # 6 against 6 + 1
    s = st(3, phase="cup", cup_holder=1, current=1, pot=11, cup_open=False)
    assert decide("colour-set", s) == KEEP


def test_metrics_add_up_to_the_score_and_name_the_end_trigger():
    specs = ["income", "royals-rush", "colour-set", "random"]
    strats = [make_strategy(x, "dragon-lairds") for x in specs]
    s = play_game(G, DragonParams(), strats, specs, 12)
    G.check_invariants(s)
    for seat, m in enumerate(G.metrics(s)):
        total = 1 + sum(m[k] for k in ("royals_tax", "royals_final_income", "royals_finale", "royals_sets",
                                       "hand_penalty", "royals_cup", "royals_effects", "royals_spent"))
        assert total == G.scores(s)[seat]
        assert m["end"] in ("royals", "deck", "cap") and m["turns"] == s.round
    rows = G.extra_records(s)["income"]
    assert rows and {"round", "seat", "geld", "royals"} <= set(rows[0])


def snapshot(view):
    """Everything a view shows, as plain data (its public attributes and per-seat knights)."""
    out = {}
    for name in dir(view):
        if name.startswith("_") or name in ("cost", "knights"):
            continue
        value = getattr(view, name)
        out[name] = repr(value)
    out["knights"] = [view.knights(k) for k in range(view.n_players)]
    return out


def test_views_show_nothing_hidden_other_hands_deck_order_running_bids():
    base = dict(phase="auction", auction="challenge", honour=[1, 2, 0], cup_holder=2, current=0, bidders=[1, 2, 0],
                cursor=2, cup_open=False, challenger=1, spaces=spaces(3, laird=["Y21"]), discard=["Y05"],
                hands=[["Y01"], ["O01", "O02"], ["R01"]], deck=["Y02", "Y03", "Y04"], bids=[None, 3, 7])
    a = st(3, **base)
    # the same cards unseen by seat 0, dealt to other places, and other sealed bids
    b = st(3, **dict(base, hands=[["Y01"], ["R01", "Y05"], ["Y02"]], deck=["Y04", "O02", "Y03"], bids=[None, 9, 0],
                     discard=["O01"]))
    assert snapshot(G.view(a, 0)) == snapshot(G.view(b, 0))
    assert G.view(a, 0).hand_sizes == [1, 2, 1] and G.view(a, 0).bids_made == 2
    c = st(3, **dict(base, hands=[["Y09"], ["O01", "O02"], ["R01"]]))
    assert snapshot(G.view(a, 0)) != snapshot(G.view(c, 0))  # the seat's own hand is shown


@pytest.mark.parametrize("args, needle", [
    (["simulate", "dragon-lairds", "-s", "income", "--rule", "halt_space=0"], "halt_space=0 is too small"),
    (["simulate", "dragon-lairds", "-s", "income", "--rule", "final_auction=sudden"], "plain, challenge"),
    (["simulate", "dragon-lairds", "-s", "income", "--players", "6"], "2 to 5"),
    (["simulate", "dragon-lairds", "-s", "income:cup=lots"], "cup"),
])
def test_bad_rule_values_and_players_exit_2_one_line(runner, tmp_path, args, needle):
    from analyser.cli import cli
    r = runner.invoke(cli, args + ["--out", str(tmp_path / "o")])
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert r.exit_code == 2 and len(lines) == 1 and needle in lines[0], r.output


def test_play_rejects_a_malformed_state_file_in_one_line(runner, tmp_path):
    from analyser.cli import cli
    bad = tmp_path / "state.json"
    data = dict(G.state_to_dict(st(3)), colour=[0, 7, 2])  # the deck has 5 colours
    bad.write_text(json.dumps(data))
    r = runner.invoke(cli, ["play", "dragon-lairds", "-s", "income", "--state", str(bad)])
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert r.exit_code == 2 and len(lines) == 1 and str(bad) in lines[0], r.output


def test_list_says_the_deck_is_an_approximation(runner):
    from analyser.cli import cli
    r = runner.invoke(cli, ["list", "dragon-lairds"])
    assert r.exit_code == 0 and "APPROXIMATE deck" in r.output and "cup=0.5" in r.output


def test_the_report_says_the_deck_is_an_approximation():
    note = " ".join(G.report_notes(DragonParams()))
    assert "approximation" in note and "not public" in note and "--rule components=FILE" in note
    from analyser.titles.dragon_lairds.rules import DEFAULT_DECK
    own = " ".join(G.report_notes(DragonParams(components=str(DEFAULT_DECK))))
    assert str(DEFAULT_DECK) in own and "not the built-in approximate deck" in own


def test_challenge_bidders_duel_only_holder_and_challenger_bid():
    s = challenge_state(params={"challenge_bidders": "duel"}, play=[[], [], ["R05", "R18"]])
    G.apply(s, CHALLENGE)
    assert s.bidders == [0, 1] and G.view(s, 2).bidders == [0, 1]
    bids(s, 2, 3)  # seat 2 (two knights) does not bid; the holder's 2 + 1 ties seat 1's 3: honour
    assert s.cup_holder == 0 and s.last_auction["effective"] == [3, 3, None]
    assert s.phase == "actions"


def random_game(params, n, seed):
    chance, pick = random.Random(seed), random.Random(seed + 1)
    s = G.initial_state(params, n, chance)
    steps = 0
    while not G.is_terminal(s):
        G.apply(s, pick.choice(G.legal_actions(s)), chance)
        G.check_invariants(s)
        steps += 1
        assert steps < 50_000
    return s


@pytest.mark.parametrize("options", [
    {"commoner_cycle": "continue", "final_auction": "challenge", "challenge_bidders": "duel"},
    {"halt_space": 3, "hand_limit": 0, "fire_sale_rounding": "down", "tie_break": "honour"},
    {"end_royals": 15, "start_geld": 0, "cup_pot": 0, "hand_surcharge": False, "off_colour_surcharge": 0},
    {"max_rounds": 2},
    {"max_rounds": 3, "cap_after_cash": "none"},
])
def test_random_games_under_other_rule_options_end_with_invariants(options):
    for n in (2, 5):
        s = random_game(DragonParams(**options), n, 7)
        assert s.end in ("royals", "deck", "cap") and len(G.winners(s)) >= 1
        if "max_rounds" in options:
            assert s.round <= options["max_rounds"]


@pytest.mark.soak
def test_soak_many_random_games_every_player_count():
    for n in range(2, 6):
        for seed in range(300):
            random_game(DragonParams(), n, seed)


def test_figures_tables_and_plots_from_a_small_run(tmp_path):
    from analyser import run as runmod
    spec = runmod.RunSpec(game="dragon-lairds", strategies=["income", "random"], players=3, games=6, seed=4,
                          jobs=1)
    res = runmod.run(spec, progress=False)
    tables = dict(G.figure_tables(res.results, res.extras))
    by_source = next(v for k, v in tables.items() if k.startswith("Royals by source"))
    row = by_source.set_index("strategy").loc["income"]
    parts = ["tax", "final income", "finale", "colour sets", "hand penalty", "cup", "effects", "spent"]
    assert abs(1 + row[parts].sum() - row["score"]) < 1e-9  # the sources add up to the score
    ends = next(v for k, v in tables.items() if k.startswith("End trigger"))
    assert ends["games"].sum() == 6
    files = [name for name, _ in G.plots(res.results, res.extras, tmp_path)]
    assert files == ["income_curves.png", "cup.png", "points_by_source.png"]
    assert all((tmp_path / f).stat().st_size > 0 for f in files)
    # the cup plot's numbers are the cup table's: net geld = cashed - paid, per strategy
    from analyser.titles.dragon_lairds.figures import cup_summary
    plotted = cup_summary(res.results)
    table = next(v for k, v in tables.items() if k.startswith("Saurean Cup")).set_index("strategy")
    for name in ("income", "random"):
        assert plotted.loc[name, "net geld"] == table.loc[name, "net_geld"]
        assert plotted.loc[name, "auctions won"] == table.loc[name, "auctions_won"]
        assert abs(plotted.loc[name, "geld cashed"] - plotted.loc[name, "geld paid"]
                   - plotted.loc[name, "net geld"]) < 1e-9


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_builtin_strategies_play_legal_games_at_every_player_count(players):
    from analyser.engine.runner import BatchJob, run_batch
    lineup = ("income", "royals-rush:cup=0.9", "colour-set:cup=0", "random")
    res = run_batch(BatchJob("dragon-lairds", (), lineup, players, 11, 0, 25, 0.0))
    assert res.error is None and res.done == 25


@pytest.mark.soak
def test_soak_builtin_strategies_many_games():
    from analyser.engine.runner import BatchJob, run_batch
    for players in range(2, 6):
        res = run_batch(BatchJob("dragon-lairds", (), ("income", "royals-rush", "colour-set", "random"), players,
                                 99, 0, 3000, 0.0))
        assert res.error is None, res.error


def test_describe_state_draws_spaces_and_seats_in_honour_order():
    s = st(3, honour=[2, 0, 1], geld=[3, 4, 5], royals=[6, 7, 8], spaces=spaces(3, laird=["Y21", "R26"]),
           play=[["Y01"], [], []], hands=[[], ["O02"], []], cup_holder=1, pot=12)
    text = G.describe_state(s)
    lines = text.splitlines()
    assert lines[0].startswith("round 1, actions") and "cup: seat 1, pot 12 geld" in lines[0]
    assert "laird      top R26 Archduke (Laird, red, cost 12g) | under: Y21" in text
    assert [ln.split(":")[0].strip() for ln in lines[-3:]] == ["honour 1", "honour 2", "honour 3"]
    assert "seat 2 (red) geld 5, royals 8" in lines[-3] and "hand: O02" in lines[-1]


def test_same_seed_same_results_for_any_jobs_and_batch_size():
    import pandas as pd

    from analyser import run as runmod

    def run(**kw):
        spec = runmod.RunSpec(game="dragon-lairds", strategies=["income", "colour-set", "random"], players=3,
                              games=24, seed=9, **kw)
        return runmod.run(spec, progress=False)
    a, b = run(jobs=1, batch_size=5), run(jobs=2, batch_size=11)
    # every run has its own run_id; everything else is identical
    assert a.results["run_id"].iloc[0] != b.results["run_id"].iloc[0]
    pd.testing.assert_frame_equal(a.results.drop(columns="run_id"), b.results.drop(columns="run_id"))
    pd.testing.assert_frame_equal(a.extras["income"].drop(columns="run_id", errors="ignore"),
                                  b.extras["income"].drop(columns="run_id", errors="ignore"))


# -- report figures reduced chunk by chunk (issue 9) ---------------------------------------------

#: Under pytest-xdist (--dist loadgroup) this file's tests run in one worker, so its module-scoped
#: fixtures are built once, not once per worker.
pytestmark = pytest.mark.xdist_group("test_dragon_lairds")


@pytest.fixture(scope="module")
def small_run():
    from analyser import run as runmod
    spec = runmod.RunSpec(game="dragon-lairds", strategies=["income", "random"], players=3, games=40, seed=8,
                          jobs=1)
    return runmod.run(spec, progress=False)


def _chunked_sums(results, extras, chunk_games):
    from analyser.stats.streamed import chunk_frame, reduce_sums
    return reduce_sums(G.figure_sums(r, e) for r, e in chunk_frame(results, extras, chunk_games))


def test_figure_tables_from_many_chunks_equal_one_chunk_and_plain_pandas(small_run):
    import numpy as np
    import pandas as pd

    df, extras = small_run.results, small_run.extras
    many = G.figure_tables_from(_chunked_sums(df, extras, 7))
    one = G.figure_tables_from(G.figure_sums(df, extras))
    assert [c for c, _ in many] == [c for c, _ in one] and len(many) == 5
    for (_, a), (_, b) in zip(many, one):
        pd.testing.assert_frame_equal(a, b, check_exact=False, rtol=1e-9, atol=1e-9)
    # royals by source and the cup, computed directly on the whole frame
    tables = {c.split(" ")[0]: t for c, t in many}
    points = tables["Royals"].set_index("strategy")
    cup = tables["Saurean"].set_index("strategy")
    assert list(points.index) == ["income", "random"]  # the run's order
    for name, sub in df.groupby(df["strategy"].astype(str)):
        for col, src in (("tax", "royals_tax"), ("colour sets", "royals_sets"), ("hand penalty", "hand_penalty"),
                         ("spent", "royals_spent"), ("score", "score")):
            assert abs(points.loc[name, col] - sub[src].mean()) < 1e-9
        for col, src in (("auctions_won", "cup_wins"), ("net_geld", "cup_net_geld"), ("challenges", "challenges")):
            assert abs(cup.loc[name, col] - sub[src].mean()) < 1e-9
    # rounds played per game: the quartiles from value counts are pandas' own
    turns = df.drop_duplicates("game_index")["turns"]
    want = turns.describe()[["mean", "min", "25%", "50%", "75%", "max"]].to_numpy(dtype=float)
    assert np.allclose(tables["Rounds"].iloc[0].to_numpy(dtype=float), want, rtol=0, atol=1e-9)
    assert tables["End"]["games"].sum() == 40
    # income by round: the mean geld each seat of a strategy collected at tax
    inc = extras["income"]
    income = tables["Income"].set_index("round")
    for (name, rnd), sub in inc.groupby([inc["strategy"].astype(str), "round"]):
        if rnd <= 12:
            assert abs(income.loc[rnd, f"geld {name}"] - sub["geld"].mean()) < 1e-9
            assert abs(income.loc[rnd, f"royals {name}"] - sub["royals"].mean()) < 1e-9


def test_plots_from_combined_sums_write_the_pngs(small_run, tmp_path):
    from analyser.stats.plots import label
    sums = _chunked_sums(small_run.results, small_run.extras, 7)
    files = G.plots_from(sums, tmp_path, [label(s) for s in ("income", "random")])
    assert [f for f, _ in files] == ["income_curves.png", "cup.png", "points_by_source.png"]
    assert all((tmp_path / f).stat().st_size > 1000 for f, _ in files)


def test_income_heading_names_the_rounds_shown_and_end_shares_are_percentages(small_run):
    import pandas as pd

    sums = _chunked_sums(small_run.results, small_run.extras, 7)
    tables = G.figure_tables_from(sums)
    caption, income = next((c, t) for c, t in tables if c.startswith("Income"))
    last = int(small_run.extras["income"]["round"].max())
    assert last < 12 and caption.endswith(f"rounds 1-{last}")
    assert list(income["round"]) == list(range(1, last + 1))
    ends = next(t for c, t in tables if c.startswith("End trigger"))
    assert ends.attrs["percent"] == ["share"] and abs(ends["share"].sum() - 1) < 1e-9
    # longer games: the table stops at round 12 and the heading says which rounds are left out
    inc = sums["dl_income"]
    extra = inc.xs(last, level="round", drop_level=False).rename(index={last: 15}, level="round")
    longer = dict(sums, dl_income=pd.concat([inc, extra]))
    caption, income = next((c, t) for c, t in G.figure_tables_from(longer) if c.startswith("Income"))
    assert caption.endswith(f"rounds 1-{last}; rounds {last + 1}-15 are not shown")
    assert list(income["round"]) == list(range(1, last + 1))


def test_the_points_by_source_bars_fit_inside_the_frame(small_run, tmp_path, monkeypatch):
    from analyser.stats import plots as base
    from analyser.stats.plots import label
    seen = {}
    save = base.save

    def spy(fig, path, caption):
        if path.name == "points_by_source.png":
            ax = fig.axes[0]
            seen["xlim"], seen["ylim"] = ax.get_xlim(), ax.get_ylim()
            seen["bars"] = [(p.get_x(), p.get_x() + p.get_width(), p.get_y(), p.get_y() + p.get_height())
                            for p in ax.patches]
        return save(fig, path, caption)
    monkeypatch.setattr(base, "save", spy)
    sums = _chunked_sums(small_run.results, small_run.extras, 7)
    G.plots_from(sums, tmp_path, [label(s) for s in ("income", "random")])
    (x0, x1), (y_bottom, y_top) = seen["xlim"], seen["ylim"]
    assert y_top < y_bottom  # the run's first strategy on top
    margin = 0.02 * (x1 - x0)
    for left, right, low, high in seen["bars"]:
        assert x0 + margin <= left and right <= x1 - margin  # no bar runs into the frame
        assert y_top < low and high < y_bottom


def test_figure_sums_are_small(small_run):
    sums = _chunked_sums(small_run.results, small_run.extras, 7)
    assert {k for k in sums if not k.startswith("buy_comp_")} == {"dl_strategy", "dl_ends", "dl_rounds", "dl_income"}
    assert sums["dl_strategy"].shape[0] == 2  # one row per strategy
    assert sums["dl_strategy"]["players"].sum() == 120  # every seat of every game counted once
    assert sums["dl_ends"].shape[0] <= 3
    rounds = int(small_run.results["turns"].max())
    assert sums["dl_rounds"].shape[0] <= rounds  # value counts of rounds played
    assert sums["dl_income"].shape[0] <= 2 * rounds  # strategy x round
    assert sums["dl_income"]["seats"].sum() == len(small_run.extras["income"])
    # the purchases measured against the same standing: one row per card taken (the buys metric)
    buys = small_run.results["buys"].dropna().str.split().str.len().sum()
    assert sums["buy_comp_cells"]["n"].sum() == buys == sum(len(x) for x in small_run.results["buys"].dropna().str.split())
    assert sums["buy_comp_x"]["h_x"].sum() == buys


# -- components (component impact) --------------------------------------------------------------

def test_components_are_the_cards_bought_or_played_havocs_included_by_deck_id():
    s = st(3, honour=[2, 1, 0], royals=[1, 1, 5], spaces=spaces(3, resource=["Y13", "R14"], havoc=["Y28"]),
           hands=[[], ["R13"], []])
    s.tally = [[], [], []]
    G.apply(s, Act("buy", RES))  # seat 0 buys R14
    G.apply(s, Act("play", "R13"))  # seat 1 plays R13 from hand
    G.apply(s, Act("buy", HAV))  # seat 2 buys the Havoc Y28 (royals): resolved, to the discard
    assert G.components(s) == [["R14"], ["R13"], ["Y28"]] and ids(s, s.discard)[0] == "Y28"
    assert G.clone_state(s).tally is None  # a copy is not recorded
    catalog = G.component_catalog(G.Params())
    assert len(catalog) == 155 and catalog["Y05"]["what"].split(", ")[:2] == ["Militia", "yellow Commoner"]
    assert catalog["Y05"]["what"].endswith("2 geld")
    assert catalog["Y05"]["line"] == 58 and catalog["Y28"]["what"].endswith("cost 1 royals")
