"""Title-specific parts of issue 8: DAO ranks and count notes, play traces with named events,
Tsuro of the Seas score, trace events, saved-state rotation, pool and joined tables."""

import json
import random
import re

import pandas as pd
import pytest
from click.testing import CliRunner

from analyser.report import page as report
from analyser.cli import cli
from analyser.engine.registry import get_game, make_strategy
from analyser.engine.runner import play_game
from analyser.titles.dao import TITLE as DAO
from analyser.titles.dao.rules import REVEAL, Card, DaoParams, DaoState, recount
from analyser.titles.tsuro_seas import TITLE as TSURO
from analyser.titles.tsuro_seas.render import new_events

M, F, E, W, A = range(5)
SINK = re.compile(r"seat \d eliminated \(")


def invoke(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def dao_state(display, deck, piles, **params):
    def cards(xs):
        return [Card(*c) for c in xs]
    return recount(DaoState(params=DaoParams(**params), n=4, display=cards(display), deck=cards(deck), reserve=[],
                            piles=[cards(p) for p in piles], half_scores=[[] for _ in piles],
                            half_marks=[[] for _ in piles], busts=[0] * 4, gain=[], unseen=[], n_unseen=0))


# -- DAO ---------------------------------------------------------------------------------------------

def test_dao_most_cards_tie_break_orders_the_other_ranks_too():
    # seat 0 wins on 4; seats 1 and 2 tie on 3 with 1 and 3 cards; seat 3 has nothing
    piles = [[(E, 4), (E, 0)], [(F, 3)], [(A, 2), (A, 2), (M, 1)], []]
    s = dao_state([(W, 1)], [(W, 0)], piles)
    DAO.apply(s, REVEAL)
    assert DAO.scores(s) == [4, 3, 3, 0]
    assert DAO.winners(s) == [0]
    assert DAO.ranks(s) == [1, 3, 2, 4]  # more cards ranks seat 2 above seat 1
    shared = dao_state([(W, 1)], [(W, 0)], piles, tie_break="shared")
    DAO.apply(shared, REVEAL)
    assert DAO.ranks(shared) == [1, 2, 2, 4]
    # the batch runner uses the same ranks
    assert DAO.ranks_given(s, DAO.scores(s), DAO.winners(s)) == [1, 3, 2, 4]


def test_dao_two_players_state_the_two_halves_in_the_header(tmp_path):
    r = invoke("simulate", "dao", "-s", "greedy", "-s", "random", "-p", "2", "-n", "4", "-j", "1", "--no-report",
               "--out", str(tmp_path / "r"))
    assert ("4 games, 2 players (two halves of the deck, scores added: two_player_halves=auto at 2 players), "
            "strategies greedy, random;") in r.stderr
    assert DAO.count_notes(DaoParams(), 4) == []
    assert DAO.count_notes(DaoParams(two_player_halves="on"), 3) == [
        "two halves of the deck, scores added: two_player_halves=on at any count"]


def test_dao_trace_names_busts():
    r = invoke("play", "dao", "-s", "greedy", "-s", "random", "-s", "threshold", "--seed", "1")
    assert r.exit_code == 0
    assert "  >> BUST: seat 0 revealed water 1, display total 14 > bust_limit 12; seat 0 takes all 9 cards" in r.output
    assert "no bust: display total 13 > bust_limit 12, but wood 3 equals the card it is laid next to" in r.output


# -- Wizard -----------------------------------------------------------------------------------------

def test_wizard_trace_has_a_legend_once_and_names_trick_winners():
    r = invoke("play", "wizard", "-s", "expected", "-s", "random", "--seed", "3")
    assert r.exit_code == 0
    assert r.output.count("Legend: ") == 1 and "Z = Wizard" in r.output and "N = Jester" in r.output
    wins = [x for x in r.output.splitlines() if x.startswith("  >> trick won by seat ")]
    assert len(wins) == 15 * 16 // 2  # every trick of a 4-player game
    assert all(" with " in x for x in wins)
    assert "  >> round 1 over: seat 0 bid" in r.output


# -- Tsuro of the Seas ---------------------------------------------------------------------------------

def play_tsuro(seed, n=4, specs=("random",), **rules):
    """Play one game through the API; return (states before each action, actions, final state)."""
    params = TSURO.Params.from_overrides(rules)
    strats = [make_strategy(specs[i % len(specs)], TSURO.id) for i in range(n)]
    trail = []
    final = play_game(TSURO, params, strats, [specs[i % len(specs)] for i in range(n)], seed,
                      on_step=lambda st, seat, a: trail.append((TSURO.clone_state(st), a)))
    return trail, final


def test_tsuro_trace_events_keep_placements_before_a_turn_without_decision():
    skipped = 0
    for seed in range(40):
        trail, final = play_tsuro(seed)
        afters = [st for st, _ in trail[1:]] + [final]
        seen = []
        for (before, action), after in zip(trail, afters):
            ev = new_events(before, after)
            seen += ev
            if type(action).__name__ == "Place":
                assert ev[0][0] == "place" and ev[0][2:4] == (action.tile, action.rotation)
            if after.turn - before.turn >= 2:
                skipped += 1
        # every ship's sinking and every placement is in the trace once
        sinks = sorted(e[1] for e in seen if e[0] == "sink")
        assert sinks == sorted(i for i in range(4) if not final.alive[i])
        places = sum(1 for _, a in trail if type(a).__name__ == "Place")
        assert sum(1 for e in seen if e[0] == "place") == places
    assert skipped > 0  # the case of the bug: a placement followed by a turn without a decision


def test_tsuro_json_trace_lines_carry_their_events():
    r = invoke("play", "tsuro-seas", "-s", "random", "--seed", "5", "--json")
    lines = [json.loads(x) for x in r.output.splitlines()]
    steps = lines[:-1]
    assert all("events" in x for x in steps)
    placed = [x for x in steps if x["action"]["type"] == "Place"]
    assert placed and all(x["events"][0].startswith(f"seat {x['seat']} places #{x['action']['tile']} ")
                          for x in placed)
    sunk = [e for x in steps for e in x["events"] if SINK.match(e)]
    final = lines[-1]["final"]
    assert len(sunk) == sum(1 for a in final["alive"] if not a) > 0


def test_tsuro_score_counts_the_ships_own_turns_afloat(monkeypatch):
    actives = {}
    original = type(TSURO)._begin_turn

    def spy(self, s, rng):
        original(self, s, rng)
        actives.setdefault(id(s), {})
        if s.turn not in actives[id(s)] and (s.phase != "over" or s.end_reason != "max_turns"):
            actives[id(s)][s.turn] = s.active
    monkeypatch.setattr(type(TSURO), "_begin_turn", spy)
    checked = 0
    for seed in range(30):
        actives.clear()
        trail, final = play_tsuro(seed)
        turns = next(iter(actives.values())) if actives else {}
        expected = []
        for seat in range(4):
            sunk = final.elim_turn[seat]
            expected.append(sum(1 for t, a in turns.items() if a == seat and (sunk == 0 or sunk > t)))
        assert TSURO.scores(final) == expected
        old = [final.elim_turn[i] - 1 if final.elim_turn[i] else final.turn for i in range(4)]
        checked += TSURO.scores(final) != old
    assert checked > 20  # the old global count differs in almost every game


def test_tsuro_loading_a_state_honours_an_edited_daikaiju_rotation():
    trail, _ = play_tsuro(3)
    d = TSURO.state_to_dict(trail[6][0])
    k = next(k for k, sq in enumerate(d["kaiju_sq"]) if sq >= 0)
    rot = d["kaiju_rot"][k]
    d["kaiju_rot"][k] = (rot + 1) % 4
    s = TSURO.state_from_dict(d)
    assert s.kaiju_rot[k] == (rot + 1) % 4 and s.kaiju[s.kaiju_sq[k]] == k
    assert TSURO.state_to_dict(s)["kaiju_rot"][k] == (rot + 1) % 4


def test_tsuro_sunk_hands_leave_the_pool_when_a_placement_ends_the_game():
    ended_by_placement = 0
    for seed in range(60):
        trail, final = play_tsuro(seed, n=2, specs=("aggressive",))
        assert final.pool == [[], []]
        TSURO.check_invariants(final)
        last = trail[-1][1]
        if type(last).__name__ == "Place" and final.end_reason == "last_ship":
            ended_by_placement += 1
    assert ended_by_placement > 0


def test_tsuro_title_tables_count_joined_runs_by_run_and_game(tmp_path):
    runner = CliRunner()
    frames = []
    for name in ("a", "b"):
        out = tmp_path / name
        r = runner.invoke(cli, ["simulate", "tsuro-seas", "-s", "random", "-p", "2", "-n", "30", "--seed", "9",
                                "-j", "1", "--no-report", "-q", "--out", str(out)])
        assert r.exit_code == 0, r.output
        frames.append(pd.read_parquet(out / "results"))
    alone = dict(report.summarise(frames[0], {}).title_tables)
    joined = dict(report.summarise(pd.concat(frames), {}).title_tables)
    surv_a = alone["Survivors at the end of the game"].set_index("survivors")
    surv_j = joined["Survivors at the end of the game"].set_index("survivors")
    assert surv_j["games"].sum() == 60
    assert (surv_j["games"] == 2 * surv_a["games"]).all()
    assert list(surv_j["share"]) == pytest.approx(list(surv_a["share"]))


# -- leaked internals --------------------------------------------------------------------------------

LEAKS = ("RULES.md", "../shared/", "shared/DESIGN", "the seed's", " (seed)", "digest", "the seed says")


def test_product_text_names_no_internal_write_up_and_each_title_has_a_rules_page():
    from pathlib import Path
    root = Path(__file__).resolve().parents[1]
    from analyser.engine.registry import game_ids
    out = invoke("list").output + "".join(invoke("list", gid).output for gid in game_ids())
    texts = {"analyser list": out, "README.md": (root / "README.md").read_text()}
    for p in list((root / "analyser").rglob("*.py")) + list((root / "strategies").glob("*.py")) + list(
            (root / "docs").rglob("*.md")) + list((root / "analyser").rglob("*.md")) + list(
            (root / "analyser").rglob("*.j2")) + list((root / "analyser").rglob("*.tmpl")):
        texts[str(p)] = p.read_text(encoding="utf-8").replace("hexdigest", "").replace("digest =", "").replace(
            '"sha256": digest', "").replace(").digest()", ")")  # hashlib's method, not a write-up
    for name, text in texts.items():
        for leak in LEAKS:
            assert leak not in text, (name, leak)
    from analyser.engine.registry import game_ids, rules_page
    for gid in game_ids():
        page = rules_page(get_game(gid)).read_text(encoding="utf-8")
        assert f"rules: analyser rules {gid}" in out
        for o in get_game(gid).Params.options():  # every rule option is on its rules page
            assert f"`{o['name']}" in page, (gid, o["name"])
