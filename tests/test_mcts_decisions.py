"""The generic search player makes the very same decisions, bit for bit, as the recorded ones.

tests/mcts_decisions.json holds, for every title with a determinize() hook and a few mcts
settings, the decisions of fixed-seed games: at each decision of a searching seat, the action it
chose and every root child's visit count and exact reward total.  They were recorded with the
search before its speed-up (issue 25 section 3), so a faster search, clone, determinize or
legal-action path that drew one random number differently, or walked the tree in another order,
fails here.  Regenerate (only for a deliberate change of the search's behaviour) with
``python tests/test_mcts_decisions.py``.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest

from analyser.engine.registry import get_game, make_strategy

RECORD = Path(__file__).with_name("mcts_decisions.json")

#: (title, mcts spec, game seed, players, first step searched): the default search and the other
#: code paths of the search loop (game horizon, a heuristic rollout policy, the score reward),
#: early in a game and later on (the steps before the first searched one are played at random).
CASES = [
    ("dao", "mcts:iterations=40", 1, 4, 0),
    ("dao", "mcts:iterations=25,horizon=game", 2, 3, 0),
    ("dao", "mcts:iterations=15,rollout=threshold/limit=8", 3, 4, 0),
    ("dao", "mcts:iterations=20,reward=score,c=1.2", 4, 2, 0),
    ("dao", "mcts:iterations=30", 5, 5, 40),
    ("dragon-lairds", "mcts:iterations=12", 1, 4, 0),
    ("dragon-lairds", "mcts:iterations=8,horizon=game", 2, 3, 0),
    ("dragon-lairds", "mcts:iterations=6,rollout=income", 3, 3, 0),
    ("dragon-lairds", "mcts:iterations=10", 4, 4, 150),
    ("kingdomino-duel", "mcts:iterations=10", 1, 2, 0),
    ("kingdomino-duel", "mcts:iterations=6,rollout=greedy", 2, 2, 0),
    ("kingdomino-duel", "mcts:iterations=8,horizon=game", 3, 2, 40),
    ("tsuro-seas", "mcts:iterations=12", 1, 4, 0),
    ("tsuro-seas", "mcts:iterations=8,rollout=survivor", 2, 3, 0),
    ("tsuro-seas", "mcts:iterations=10", 6, 3, 3),
    ("wizard", "mcts:iterations=30", 1, 4, 0),
    ("wizard", "mcts:iterations=20,horizon=game", 2, 3, 0),
    ("wizard", "mcts:iterations=10,rollout=expected", 3, 5, 0),
    ("wizard", "mcts:iterations=15", 4, 4, 200),
]

#: Decisions recorded per case (the searching seats' first ones).
DECISIONS = 24


def case_id(case) -> str:
    return f"{case[0]}|{case[1]}|seed={case[2]}|p={case[3]}|from={case[4]}"


def play_and_record(game_id: str, spec: str, seed: int, players: int, start: int,
                    decisions: int = DECISIONS) -> list:
    """Seats 0 and 2 search (``spec``) from step ``start`` on, the others (and every seat before
    ``start``) play at random; returns, for each search decision until ``decisions`` of them or
    the game's end: ``[step, seat, chosen action (JSON),
    [[visits, repr(total)] for each legal action in order, or None when it has no child]]``."""
    game = get_game(game_id)
    params = game.Params()
    chance = random.Random(seed)
    state = game.initial_state(params, players, chance)
    searchers = {}
    for k in range(players):
        if k % 2 == 0 and k <= 2:
            m = make_strategy(spec, game_id)
            m.reset(k, params, players)
            searchers[k] = (m, random.Random(f"{seed}/search/{k}"))
    pick = random.Random(f"{seed}/random")
    out = []
    step = 0
    while len(out) < decisions:
        seat, legal = game.turn(state)
        if not legal:
            break
        legal = list(legal)
        if seat in searchers and len(legal) > 1 and step >= start:
            m, rng = searchers[seat]
            view = game.view(state, seat)
            root = m.search(view, rng)
            stats = []
            for a in legal:
                child = root.children.get(a)
                stats.append(None if child is None else [child.visits, repr(child.total)])
            action = _best(root, legal)
            out.append([step, seat, game.action_to_json(action), stats])
        else:
            action = legal[int(pick.random() * len(legal))]
        game.apply(state, action, chance)
        step += 1
    return out


def _best(root, legal):
    """The action MCTS.choose plays from this root (the most visits, then the better mean, then
    the first in legal order) - checked against choose() itself in the test below."""
    best, best_key = legal[0], None
    for a in legal:
        child = root.children.get(a)
        if child is None:
            continue
        key = (child.visits, child.total / child.visits)
        if best_key is None or key > best_key:
            best, best_key = a, key
    return best


@pytest.fixture(scope="module")
def recorded():
    return json.loads(RECORD.read_text())


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_mcts_decisions_are_the_recorded_ones(case, recorded):
    got = play_and_record(*case)
    want = recorded[case_id(case)]
    assert len(got) == len(want) and len(got) >= 5
    for g, w in zip(got, want):
        assert g == w, f"decision at step {w[0]} (seat {w[1]}) differs"


def test_choose_plays_the_recorded_rule_for_the_best_child():
    # choose() and the record's _best() agree on real positions (so the record checks choose's rule)
    g = get_game("wizard")
    state = g.initial_state(g.Params(), 4, random.Random(5))
    m = make_strategy("mcts:iterations=30", "wizard")
    m.reset(0, state.params, 4)
    pick = random.Random(2)
    checked = 0
    while checked < 4:
        seat, legal = g.turn(state)
        if seat == 0 and len(legal) > 1:
            a = m.choose(g.view(state, 0), legal, random.Random(checked))
            root = make_strategy("mcts:iterations=30", "wizard")
            root.reset(0, state.params, 4)
            assert a == _best(root.search(g.view(state, 0), random.Random(checked)), list(legal))
            checked += 1
        g.apply(state, pick.choice(list(legal)), pick)


SAMPLES = Path(__file__).with_name("mcts_samples.json")
SAMPLED_TITLES = ["dao", "dragon-lairds", "kingdomino-duel", "tsuro-seas", "wizard"]


def determinize_digests(game_id: str) -> list[str]:
    """SHA-256 digests of ``state_to_dict(determinize(view, Random(k)))`` along random games of
    every player count (every 3rd step, two seats, two samples each), plus the draws the samples
    used: what the search's samples must stay, bit for bit."""
    import hashlib
    g = get_game(game_id)
    out = []
    for n in sorted({g.min_players, g.default_players, g.max_players}):
        for seed in range(2):
            chance, pick = random.Random(seed), random.Random(seed + 7)
            s = g.initial_state(g.Params(), n, chance)
            step = 0
            while not g.is_terminal(s) and step < 240:
                seat, legal = g.turn(s)
                if step % 3 == 0:
                    for k in (seat, (seat + 1) % n):
                        for j in range(2):
                            rng = random.Random(step * 10 + j)
                            d = g.state_to_dict(g.determinize(g.view(s, k), rng))
                            text = json.dumps(d, sort_keys=True, default=str) + repr(rng.random())
                            out.append(hashlib.sha256(text.encode()).hexdigest()[:16])
                g.apply(s, pick.choice(list(legal)), chance)
                step += 1
    return out


@pytest.mark.parametrize("gid", SAMPLED_TITLES)
def test_determinize_samples_are_the_recorded_ones(gid):
    want = json.loads(SAMPLES.read_text())[gid]
    got = determinize_digests(gid)
    assert len(got) == len(want) > 50
    bad = [i for i, (a, b) in enumerate(zip(got, want)) if a != b]
    assert not bad, f"{len(bad)} samples differ, the first at {bad[0]}"


def test_a_subclass_that_changes_the_rules_is_searched_through_them():
    # the speed hook (determinizer) stands in for determinize only in the class that defines it:
    # a subclass overriding determinize is searched through its own method
    from analyser.engine.search import MCTS
    wizard = get_game("wizard")
    calls = []

    class Counting(type(wizard)):
        def determinize(self, view, rng):
            calls.append("determinize")
            return super().determinize(view, rng)

    game = Counting()
    s = game.initial_state(game.Params(), 4, random.Random(1))
    m = MCTS(iterations=20)
    m.attach(game)
    m.reset(0, s.params, 4)
    root = m.search(game.view(s, 0), random.Random(2))
    assert calls.count("determinize") == 20 and root.children
    plain = make_strategy("mcts:iterations=20", "wizard")
    plain.reset(0, s.params, 4)
    same = plain.search(wizard.view(s, 0), random.Random(2))
    assert {a: (c.visits, c.total) for a, c in root.children.items()} == \
        {a: (c.visits, c.total) for a, c in same.children.items()}


if __name__ == "__main__":  # regenerate the records (a deliberate change of the search only)
    SAMPLES.write_text(json.dumps({g: determinize_digests(g) for g in SAMPLED_TITLES}) + "\n")
    data = {case_id(c): play_and_record(*c) for c in CASES}
    RECORD.write_text(json.dumps(data, indent=None, separators=(",", ":")).replace("]],[", "]],\n[") + "\n")
    print(f"wrote {RECORD} ({sum(len(v) for v in data.values())} decisions)", file=sys.stderr)
