"""The generic search player (analyser.engine.search): ISMCTS on a toy title with a known optimal move,
no cheating through hidden information, the determinize hooks of every title, reproducibility
across jobs and batch sizes, and its errors."""

import random
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest

from analyser import run as runmod
from analyser.cli import cli
from analyser.engine.core import Game, InputError, Params, option
from analyser.engine.registry import available_strategies, game_ids, get_game, make_strategy
from analyser.engine.runner import play_game
from analyser.engine.search import MCTS, determinize_consistent, has_determinize, public_signature
from analyser.titles.wizard.rules import card_from_code, hand_groups

SEARCHABLE = [g for g in game_ids() if has_determinize(get_game(g))]


# -- a toy title: Nim -------------------------------------------------------------------------

@dataclass(frozen=True)
class NimParams(Params):
    piles: str = option("1,2,4", "pile sizes")


class NimState:
    def __init__(self, piles, current):
        self.piles = list(piles)
        self.current = current


class Nim(Game):
    """Two-player normal-play Nim: take any number from one pile; who takes the last object wins.
    Perfect information, so ``determinize`` copies the state the view shows."""

    id = "nim"
    name = "Nim"
    min_players = max_players = default_players = 2
    Params = NimParams

    def initial_state(self, params, n_players, rng):
        return NimState([int(x) for x in params.piles.split(",")], 0)

    def current_player(self, s):
        return s.current

    def legal_actions(self, s):
        return [(i, k) for i, p in enumerate(s.piles) for k in range(1, p + 1)]

    def apply(self, s, action, rng):
        i, k = action
        s.piles[i] -= k
        s.current = 1 - s.current if any(s.piles) else s.current  # the last mover stays as winner

    def is_terminal(self, s):
        return not any(s.piles)

    def scores(self, s):
        return [1 if (seat == s.current and self.is_terminal(s)) else 0 for seat in range(2)]

    def view(self, s, seat):
        return NimState(s.piles, s.current)

    def determinize(self, view, rng):
        return NimState(view.piles, view.current)


def nim_choice(piles: str, iterations: int, seed: int):
    game = Nim()
    params = NimParams(piles=piles)
    state = game.initial_state(params, 2, None)
    m = MCTS(iterations=iterations)
    m.attach(game)
    m.reset(0, params, 2)
    return m.choose(game.view(state, 0), game.legal_actions(state), random.Random(seed))


def test_toy_nim_finds_the_only_winning_move_at_a_small_budget():
    # 1 xor 2 xor 4 = 7: the only move to a zero nim-sum is taking 1 from the pile of 4 -> (1, 2, 3)
    # (seven moves to choose from; every other one loses against perfect play)
    for seed in range(8):
        assert nim_choice("1,2,4", 500, seed) == (2, 1)


def test_toy_nim_with_too_few_iterations_is_not_yet_sure():
    # sanity check that the test above measures the search: with 2 iterations it cannot know
    choices = {nim_choice("1,2,4", 2, seed) for seed in range(10)}
    assert choices != {(2, 1)}


# -- no cheating ------------------------------------------------------------------------------

def _choices(game, state, seat, spec, seed, repeats=3):
    m = make_strategy(spec, game.id)
    m.reset(seat, state.params, state.n)
    rng = random.Random(seed)
    legal = game.legal_actions(state)
    return [m.choose(game.view(state, seat), legal, rng) for _ in range(repeats)]


def test_dao_hidden_deck_order_does_not_change_the_choice():
    g = get_game("dao")
    a = g.initial_state(g.Params(), 4, random.Random(8))
    b = g.clone_state(a)
    b.deck = list(reversed(b.deck))
    assert a.deck != b.deck and g.view(a, 0).unseen == g.view(b, 0).unseen
    first = _choices(g, a, 0, "mcts:iterations=60", 5)
    assert first == _choices(g, b, 0, "mcts:iterations=60", 5)
    # the search does read the view: another display gives other statistics
    root_a = make_strategy("mcts:iterations=60", "dao")
    root_a.reset(0, a.params, 4)
    visits = {k: v.visits for k, v in root_a.search(g.view(a, 0), random.Random(5)).children.items()}
    assert sum(visits.values()) == 60 and len(visits) == 2


def test_wizard_other_hands_do_not_change_the_choice():
    g = get_game("wizard")
    s = g.initial_state(g.Params(), 4, random.Random(3))
    pick = random.Random(1)
    while g.current_player(s) != 0 or s.phase != "play" or s.round < 2:  # a play decision in round 2
        g.apply(s, pick.choice(list(g.legal_actions(s))), random.Random(9))
    t = g.clone_state(s)
    # swap one card between two other seats' hands: same public part
    hands = t.hands
    hands[1][0], hands[2][0] = hands[2][0], hands[1][0]
    t.groups[1], t.groups[2] = hand_groups(hands[1]), hand_groups(hands[2])
    assert g.view(s, 0).public == g.view(t, 0).public and g.view(s, 0).hand == g.view(t, 0).hand
    assert s.hands != t.hands
    spec = "mcts:iterations=40"
    assert _choices(g, s, 0, spec, 2) == _choices(g, t, 0, spec, 2)


def test_tsuro_pile_and_other_hands_do_not_change_the_choice():
    g = get_game("tsuro-seas")
    s = g.initial_state(g.Params(), 3, random.Random(4))
    bots = [make_strategy("survivor", g.id) for _ in range(3)]
    for k, b in enumerate(bots):
        b.reset(k, s.params, 3)
    pick = random.Random(2)
    while not (s.phase == "place" and g.current_player(s) == 0 and s.turn > 3):
        seat, legal = g.turn(s)
        g.apply(s, bots[seat].choose(g.view(s, seat), legal, pick), random.Random(s.turn))
        assert not g.is_terminal(s)
    t = g.clone_state(s)
    t.pile = list(reversed(t.pile))
    t.hands[1], t.pile[-3:] = t.pile[-3:], t.hands[1]
    assert s.pile != t.pile and s.hands[1] != t.hands[1]
    spec = "mcts:iterations=20"
    assert _choices(g, s, 0, spec, 3, repeats=2) == _choices(g, t, 0, spec, 3, repeats=2)


def test_dragon_lairds_deck_hands_and_bids_do_not_change_the_choice():
    g = get_game("dragon-lairds")
    s = g.initial_state(g.Params(), 3, random.Random(5))
    pick = random.Random(3)
    while not (s.phase == "actions" and g.current_player(s) == 0 and s.round >= 2):
        g.apply(s, pick.choice(list(g.legal_actions(s))), None)
        assert not g.is_terminal(s)
    t = g.clone_state(s)
    t.deck = list(reversed(t.deck))
    t.hands[1], t.deck[-len(t.hands[1]):] = t.deck[-len(t.hands[1]):], t.hands[1]
    t.discard = list(reversed(t.discard))
    assert s.deck != t.deck
    spec = "mcts:iterations=20"
    assert _choices(g, s, 0, spec, 4, repeats=2) == _choices(g, t, 0, spec, 4, repeats=2)


def test_dragon_lairds_hidden_bids_are_sampled_not_read():
    g = get_game("dragon-lairds")
    s = g.initial_state(g.Params(), 3, random.Random(2))
    pick = random.Random(1)
    while not (s.phase == "auction" and s.cursor >= 1):
        g.apply(s, pick.choice(list(g.legal_actions(s))), None)
    first = s.bidders[0]
    seen = set()
    for k in range(30):
        d = g.determinize(g.view(s, s.current), random.Random(k))
        assert 0 <= d.bids[first] <= s.geld[first]
        seen.add(d.bids[first])
    assert len(seen) > 1  # drawn afresh, not copied from the real bid


# -- the determinize hooks ----------------------------------------------------------------------

@pytest.mark.parametrize("gid", SEARCHABLE)
def test_determinize_is_consistent_through_random_games(gid):
    g = get_game(gid)
    checked = 0
    for n in sorted({g.min_players, g.default_players, g.max_players}):
        for seed in range(2):
            chance, pick = random.Random(seed), random.Random(seed + 50)
            s = g.initial_state(g.Params(), n, chance)
            step = 0
            while not g.is_terminal(s):
                seat, legal = g.turn(s)
                if step % 5 == 0 and step < 300:
                    for k in {seat, (seat + 1) % n}:
                        assert determinize_consistent(g, s, k, random.Random(step)) == [], (n, seed, step, k)
                        checked += 1
                g.apply(s, pick.choice(list(legal)), chance)
                step += 1
    assert checked > 20


@pytest.mark.parametrize("gid", SEARCHABLE)
def test_determinize_samples_hidden_parts_differently(gid):
    # The first decision of a random game whose seat to move cannot see everything: at once for
    # a dealt game, in Kingdomino Duel when B draws after A's hidden drawing.
    g = get_game(gid)
    chance, pick = random.Random(1), random.Random(2)
    s = g.initial_state(g.Params(), g.default_players, chance)
    while True:
        assert not g.is_terminal(s), f"no decision of {gid} with a hidden part to sample"
        view = g.view(s, g.current_player(s))
        samples = [g.state_to_dict(g.determinize(view, random.Random(k))) for k in range(5)]
        if any(a != samples[0] for a in samples[1:]):
            break
        g.apply(s, pick.choice(list(g.legal_actions(s))), chance)
    # and the same rng gives the same sample
    assert g.state_to_dict(g.determinize(view, random.Random(3))) == samples[3]


def test_determinize_consistent_reports_a_cheating_or_broken_hook():
    g = get_game("dao")
    s = g.initial_state(g.Params(), 3, random.Random(2))

    class Leaky(type(g)):
        def determinize(self, view, rng):  # gives the seat one more card than it holds
            d = super().determinize(view, rng)
            d.piles[view.seat].append(d.deck.pop())
            return d

    problems = determinize_consistent(Leaky(), s, 0, random.Random(1))
    assert any("piles" in p for p in problems)

    class Sharing(type(g)):
        def determinize(self, view, rng):
            d = super().determinize(view, rng)
            d.piles = view.piles  # shares the real state's lists
            return d

    assert any("share" in p for p in determinize_consistent(Sharing(), s, 0, random.Random(1)))
    assert determinize_consistent(Nim(), Nim().initial_state(NimParams(), 2, None), 0, random.Random(1)) == []
    bare = type("Bare", (Game,), {"id": "bare"})()
    assert determinize_consistent(bare, s, 0, None) == ["bare does not provide determinize(view, rng)"]


def test_wizard_determinize_respects_revealed_voids():
    g = get_game("wizard")
    # round 3, 3 players; seat 1 did not follow red in the first trick (played a green card)
    pub = {"params": {}, "n": 3, "n_rounds": 20, "round": 3, "phase": "play", "dealer": 2, "starter": 0,
           "current": 0, "trump_card": "Y13", "trump": 3, "bids": [1, 1, 1], "n_bids": 3, "tricks": [1, 0, 0],
           "scores": [0, 0, 0], "played": ["R5", "G7", "R1"], "leaders": [0, 0]}
    hands = [["R9", "B2"], ["G3", "Y4"], ["R2", "B5"]]
    groups = [[[a.card.code for a in grp] for grp in hand_groups(map(card_from_code, h))] for h in hands]
    d = {"pub": pub, "groups": groups, "tricks_played": 4}
    full = [c.code for c in __import__("analyser.titles.wizard.rules", fromlist=["FULL_DECK"]).FULL_DECK]
    used = [c for h in hands for c in h] + pub["played"] + ["Y13"]
    rest = list(range(len(full)))  # the undealt cards' positions in the full deck
    for c in used:
        rest.remove(next(i for i in rest if full[i] == c))
    d["undealt"] = rest
    s = g.state_from_dict(d)
    g.check_invariants(s)
    for k in range(200):
        sample = g.determinize(g.view(s, 0), random.Random(k))
        assert all(c.suit != 2 for c in sample.hands[1]), k  # never a red card for seat 1
        assert len(sample.hands[1]) == 2 and len(sample.hands[2]) == 2
    # seat 2 followed red, so it may well hold red
    assert any(any(c.suit == 2 for c in g.determinize(g.view(s, 0), random.Random(k)).hands[2])
               for k in range(50))


def test_wizard_exact_deal_when_voids_are_tight():
    from analyser.titles.wizard.rules import CARD_VALUES, _deal_exact
    red = [c for c in CARD_VALUES if c.suit == 2][:2]
    blue = [c for c in CARD_VALUES if c.suit == 0][:2]
    # seat 1 void in red, seat 2 void in blue, no deck: only one deal is possible
    hands = _deal_exact(red + blue, [1, 2], [0, 2, 2], [0, 1 << 2, 1 << 0], random.Random(1).random)
    assert sorted(c.index for c in hands[1]) == sorted(c.index for c in blue)
    assert sorted(c.index for c in hands[2]) == sorted(c.index for c in red)
    assert hands[-1] == []
    with pytest.raises(ValueError, match="voids"):
        _deal_exact(red + blue, [1, 2], [0, 2, 2], [0, 1 << 2, 1 << 2], random.Random(1).random)


# -- as a strategy in runs -------------------------------------------------------------------------

@pytest.mark.parametrize("gid", game_ids())
def test_mcts_is_offered_for_every_title(gid):
    assert "mcts" in available_strategies(gid)


@pytest.mark.parametrize("gid", SEARCHABLE)
def test_mcts_plays_legal_games_with_each_option(gid):
    g = get_game(gid)
    n = g.default_players
    specs = ["mcts:iterations=4", "mcts:iterations=4,horizon=game,c=1.5", "mcts:time_ms=1",
             "mcts:iterations=3,rollout=random"] + ["random"] * (n - 4)
    final = play_game(g, g.Params(), [make_strategy(x, gid) for x in specs[:n]], specs[:n], 12)
    assert g.is_terminal(final)


def test_rollout_policy_and_score_reward_for_dao():
    g = get_game("dao")
    specs = ["mcts:iterations=5,rollout=threshold/limit=8", "mcts:iterations=5,reward=score", "greedy"]
    final = play_game(g, g.Params(), [make_strategy(x, "dao") for x in specs], specs, 3)
    assert g.is_terminal(final)
    assert make_strategy("mcts:rollout=threshold/limit=8", "dao")._rollout_factory().limit == 8


@pytest.mark.parametrize("spec, match", [
    ("mcts:iterations=0", "iterations=0"),
    ("mcts:reward=best", "reward='best'"),
    ("mcts:horizon=turn", "horizon='turn'"),
    ("mcts:rollout=mcts", "rollout=mcts"),
    ("mcts:rollout=nosuch", "unknown strategy 'nosuch'"),
    ("mcts:time_ms=-1", "time_ms=-1"),
    ("mcts:depth=2", "unknown parameter 'depth'"),
])
def test_bad_parameters_are_one_line_input_errors(spec, match):
    with pytest.raises(InputError, match=match):
        make_strategy(spec, "dao")


def test_score_reward_needs_a_declared_range():
    with pytest.raises(InputError, match="reward=score needs a declared score range"):
        make_strategy("mcts:reward=score", "wizard")


def test_title_without_the_hook_gets_a_clear_message(monkeypatch, runner):
    with pytest.raises(InputError, match=r"mcts needs determinize\(\)"):
        MCTS().attach(type("Bare", (Game,), {"id": "bare"})())
    pig = str(Path(__file__).with_name("pig_title.py")) + ":Pig"  # no State, no determinize
    with pytest.raises(InputError, match=r"mcts needs determinize\(\)"):
        make_strategy("mcts", pig)
    r = runner.invoke(cli, ["simulate", pig, "-s", "mcts", "--games", "2", "--no-report"])
    assert r.exit_code == 2
    lines = [x for x in r.output.splitlines() if x.strip()]
    assert len(lines) == 1 and "mcts needs determinize()" in lines[0]


def test_same_seed_same_results_for_any_jobs_and_batch_size():
    def run(**kw):
        spec = runmod.RunSpec(game="dao", strategies=["mcts:iterations=8", "greedy"], games=8, seed=4,
                              **kw)
        res = runmod.run(spec, progress=False)
        assert res.error is None
        return res.results.drop(columns="run_id")  # every run has its own id
    a = run(jobs=1, batch_size=3)
    b = run(jobs=2, batch_size=5)
    pd.testing.assert_frame_equal(a, b)
    c = run(jobs=2, batch_size=8, backend="threading")
    pd.testing.assert_frame_equal(a, c)


def test_mcts_beats_random_in_dao():
    spec = runmod.RunSpec(game="dao", strategies=["mcts:iterations=50", "random"], players=2, games=8,
                          seed=1, jobs=1)
    res = runmod.run(spec, progress=False).results
    rate = res.groupby("strategy")["win"].mean()
    assert rate["mcts:iterations=50"] > 0.6


@pytest.mark.soak
@pytest.mark.parametrize("gid", SEARCHABLE)
def test_mcts_400_beats_random_in_every_title(gid):
    g = get_game(gid)
    spec = runmod.RunSpec(game=gid, strategies=["mcts:iterations=400", "random"], players=g.default_players,
                          games=4 * g.default_players, seed=2, jobs=0)
    res = runmod.run(spec, progress=False).results
    rate = res.groupby("strategy", observed=True)["win"].mean()
    assert rate["mcts:iterations=400"] > rate["random"] + 0.2


def test_analyser_check_runs_the_determinize_check_only_where_the_hook_exists(monkeypatch):
    from analyser.kit.check import check_title
    result = check_title("dao", games=2, seed=1, fresh_process=False)
    assert result.ok and result.done["determinize"] > 0
    pig = get_game(str(Path(__file__).with_name("pig_title.py")) + ":Pig")  # no State, no determinize
    assert has_determinize(get_game("dao")) and not has_determinize(pig)  # (test_check: then skipped)


def test_analyser_check_reports_a_determinize_that_shares_the_real_state(monkeypatch):
    from analyser.kit.check import check_title
    dao_class = type(get_game("dao"))
    honest = dao_class.determinize

    def sharing(self, view, rng):
        d = honest(self, view, rng)
        d.piles = view.piles  # the real state's own lists
        return d

    monkeypatch.setattr(dao_class, "determinize", sharing)
    result = check_title("dao", games=1, seed=1, fresh_process=False)
    assert result.failed["determinize"] >= 1


def test_kingdomino_duel_the_other_seats_hidden_drawing_does_not_change_the_choice():
    g = get_game("kingdomino-duel")
    chance, pick = random.Random(6), random.Random(2)
    s = g.initial_state(g.Params(), 2, chance)
    while not (s.phase == "place" and s.current != s.a and s.round >= 3 and type(s.pending[s.a]).__name__ == "Place"):
        g.apply(s, pick.choice(list(g.legal_actions(s))), chance)
        assert not g.is_terminal(s)
    b = s.current
    t = g.clone_state(s)
    others = [g.resample_hidden(s, b, random.Random(k)).pending[s.a] for k in range(50)]
    t.pending[s.a] = next(x for x in others if type(x) is type(s.pending[s.a]) and x != s.pending[s.a])
    t.bonus[s.a] = -1 if s.bonus[s.a] >= 0 else t.pending[s.a].cell0
    assert t.pending[s.a] != s.pending[s.a]
    assert public_signature(g.view(s, b)) == public_signature(g.view(t, b))

    def choices(state):
        m = make_strategy("mcts:iterations=30", "kingdomino-duel")
        m.reset(b, state.params, 2)
        rng = random.Random(4)
        return [m.choose(g.view(state, b), g.legal_actions(state), rng) for _ in range(2)]

    assert choices(s) == choices(t)
    # and B's samples of A's drawing vary (drawn from A's choices, not read from the state)
    seen = {g.determinize(g.view(s, b), random.Random(k)).pending[s.a] for k in range(20)}
    assert len(seen) > 1
