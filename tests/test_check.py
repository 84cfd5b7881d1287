"""`analyser check`: the conformance kit passes on every built-in title and on the skeleton, and
a deliberately broken toy title fails it with the right line (issue 11)."""

import re
import textwrap

import pytest

from analyser.kit.check import check_title
from analyser.cli import cli
from analyser.engine.registry import game_ids

#: A toy title with hidden information, and broken variants of it (one fault each).  Two seats hold
#: one hidden card each from a deck of 1-12; in turn they keep or swap with the deck's top card,
#: twice each; the higher card wins.
TOY = textwrap.dedent('''
    import random as global_random
    from dataclasses import dataclass

    from analyser.engine.core import Game, Params, Strategy, option


    @dataclass(frozen=True)
    class HighParams(Params):
        cards: int = option(12, "cards in the deck, numbered 1 to this", low=4, high=100)


    class High(Game):
        id = "high"
        name = "High card"
        min_players = 2
        max_players = 2
        default_players = 2
        Params = HighParams

        def shuffle(self, cards, rng):
            rng.shuffle(cards)

        def initial_state(self, params, n, rng):
            deck = list(range(1, params.cards + 1))
            self.shuffle(deck, rng)
            return {"deck": deck, "hands": [deck.pop(), deck.pop()], "step": 0}

        def current_player(self, s):
            return s["step"] % 2

        def legal_actions(self, s):
            return () if s["step"] >= 4 else ("keep", "swap")

        def apply(self, s, action, rng):
            if action == "swap":
                seat = s["step"] % 2
                s["hands"][seat], s["deck"][-1] = s["deck"][-1], s["hands"][seat]
            s["step"] += 1

        def is_terminal(self, s):
            return s["step"] >= 4

        def scores(self, s):
            return list(s["hands"]) if self.is_terminal(s) else [0, 0]

        def view(self, s, seat):
            return {"seat": seat, "card": s["hands"][seat], "deck_size": len(s["deck"]), "step": s["step"]}

        def step_bound(self, params, n):
            return 4

        def resample_hidden(self, s, seat, rng):
            t = self.clone_state(s)
            other = 1 - seat
            pool = t["deck"] + [t["hands"][other]]
            rng.shuffle(pool)
            t["hands"][other] = pool.pop()
            t["deck"] = pool
            return t

        def determinize(self, view, rng):
            seat = view["seat"]
            rest = [c for c in range(1, 13) if c != view["card"]]
            rng.shuffle(rest)
            hands = [0, 0]
            hands[seat], hands[1 - seat] = view["card"], rest.pop()
            return {"deck": rest[:view["deck_size"]], "hands": hands, "step": view["step"]}

        def metrics(self, s):
            return [{"turns": s["step"]}, {"turns": s["step"]}]

        def clone_state(self, s):
            return {"deck": list(s["deck"]), "hands": list(s["hands"]), "step": s["step"]}

        def state_to_dict(self, s):
            return {"game": self.id, **self.clone_state(s)}

        def state_from_dict(self, d):
            return {"deck": list(d["deck"]), "hands": list(d["hands"]), "step": int(d["step"])}

        def action_to_json(self, a):
            return a

        def action_from_json(self, d):
            return d


    class Swapper(Strategy):
        """Swaps a card below 7."""
        name = "swapper"
        game = ("high", "bad-shuffle", "stuck", "peek", "bad-determinize", "bad-json", "set-order")

        def choose(self, view, legal, rng):
            return "swap" if view["card"] < 7 else "keep"


    class BadShuffle(High):
        """The shuffle uses the global random module, not the rng it is given."""
        id = "bad-shuffle"

        def shuffle(self, cards, rng):
            global_random.shuffle(cards)


    class Stuck(High):
        """Offers no legal action at step 2 although the game is not over."""
        id = "stuck"

        def legal_actions(self, s):
            return () if s["step"] >= 2 else ("keep", "swap")


    class Peek(High):
        """The view shows the deck's top card."""
        id = "peek"

        def view(self, s, seat):
            return dict(super().view(s, seat), top=s["deck"][-1])


    class BadDeterminize(High):
        """determinize forgets how far the game has gone."""
        id = "bad-determinize"

        def determinize(self, view, rng):
            return dict(super().determinize(view, rng), step=0)


    class VandalHigh(High):
        """A live view (the state itself), with a strategy that changes it."""
        id = "vandal-high"

        def view(self, s, seat):
            return s


    class Vandal(Strategy):
        """Throws away the deck's top card, then keeps."""
        name = "vandal"
        game = "vandal-high"

        def choose(self, view, legal, rng):
            view["deck"].pop()
            return "keep"


    class SetOrder(High):
        """Deals in the order of a set of strings: the same in one process, not across processes."""
        id = "set-order"

        def shuffle(self, cards, rng):
            cards[:] = [int(c) for c in {str(c) for c in cards}]


    class BadJson(High):
        """Forgets the deck when loading a saved state."""
        id = "bad-json"

        def state_from_dict(self, d):
            return {"deck": sorted(d["deck"]), "hands": list(d["hands"]), "step": int(d["step"])}
''')


@pytest.fixture
def toy(tmp_path):
    path = tmp_path / "toy.py"
    path.write_text(TOY)
    return str(path)


#: Where a check failed: game seed, players and (when the game had started) step.
WHERE = re.compile(r"game seed (\d+) \((\d+) players\)(?:, step (\d+))?")


def where(line: str) -> tuple:
    """(players, step) of a failure line (step None when it names no step)."""
    return WHERE.match(line).groups()[1:]


def numbers(text: str) -> list[float]:
    return [float(x) for x in re.findall(r"\d+(?:\.\d+)?", text)]


def lines(result, kind):
    return [f.line() for f in result.failures if f.kind == kind]


def test_the_toy_title_passes_every_check(toy):
    result = check_title(f"{toy}:High", games=40)
    assert result.ok, [f.line() for f in result.failures]
    assert result.done["hidden"] > 0 and result.done["determinize"] > 0 and result.done["process"] == 40
    assert result.done["strategies"] == 2


def test_a_shuffle_with_the_global_random_module_fails_replay_naming_seed_and_step(toy):
    result = check_title(f"{toy}:BadShuffle", games=10, fresh_process=False)
    assert result.failed["replay"] >= 9 and set(result.failed) - {"replay"} <= set(result.failed)
    assert all(v == 0 for k, v in result.failed.items() if k != "replay")
    assert where(lines(result, "replay")[0]) == ("2", "0")  # players, step (its words: docs, the check's own)


def test_an_order_that_changes_with_the_hash_seed_fails_in_a_fresh_process(toy):
    result = check_title(f"{toy}:SetOrder", games=8, strategies=False)
    assert result.failed["replay"] == 0 and result.failed["process"] >= 6
    assert where(lines(result, "process")[0]) == ("2", None) and "hash seed" in lines(result, "process")[0]


def test_an_empty_legal_list_in_a_running_game_fails_legal(toy):
    result = check_title(f"{toy}:Stuck", games=5, fresh_process=False)
    assert result.failed["legal"] == 5
    assert where(lines(result, "legal")[0]) == ("2", "2") and "no legal action" in lines(result, "legal")[0]


def test_a_view_that_shows_hidden_information_fails_hidden(toy):
    result = check_title(f"{toy}:Peek", games=10, fresh_process=False, strategies=False)
    assert result.failed["hidden"] >= 5
    assert where(lines(result, "hidden")[0])[0] == "2" and "(at view.top)" in lines(result, "hidden")[0]


def test_a_determinize_that_changes_the_view_fails_determinize(toy):
    result = check_title(f"{toy}:BadDeterminize", games=10, fresh_process=False, strategies=False)
    assert result.failed["determinize"] >= 1 and result.failed["hidden"] == 0
    assert where(lines(result, "determinize")[0])[0] == "2" and "determinize" in lines(result, "determinize")[0]


def test_a_strategy_that_changes_its_view_is_caught(toy):
    result = check_title(f"{toy}:VandalHigh", games=3, fresh_process=False)
    bad = lines(result, "strategies")
    assert len(bad) == 1 and where(bad[0]) == ("2", "1")
    assert "'vandal'" in bad[0] and "seat 0" in bad[0] and bad[0].endswith("(deck changed)")


def test_a_state_that_does_not_survive_json_fails_json(toy):
    result = check_title(f"{toy}:BadJson", games=10, fresh_process=False, strategies=False)
    assert result.failed["json"] >= 5 and "(keys: deck)" in lines(result, "json")[0]


def test_check_command_fails_with_exit_1_and_one_line_per_failure(runner, toy):
    r = runner.invoke(cli, ["check", f"{toy}:Stuck", "--games", "3", "--no-fresh-process"])
    assert r.exit_code == 1
    assert "  FAIL  legal " in r.output
    verdict = r.output.strip().splitlines()[-1]
    assert verdict.startswith("FAILED:") and numbers(verdict) == [1, 3] and "(legal)" in verdict
    (failure,) = [x for x in r.output.splitlines() if WHERE.search(x)][:1]
    seed = WHERE.search(failure).group(1)
    r = runner.invoke(cli, ["check", f"{toy}:Stuck", "--game-seed", seed, "--no-fresh-process"])
    assert r.exit_code == 1 and [WHERE.search(x).groups() for x in r.output.splitlines() if WHERE.search(x)] == [
        (seed, "2", "2")]
    r = runner.invoke(cli, ["check", f"{toy}:High", "--games", "5"])
    verdict = r.output.strip().splitlines()[-1]
    assert r.exit_code == 0 and verdict.startswith("Passed:") and numbers(verdict) == [5, 20]


@pytest.mark.parametrize("gid", game_ids())
def test_check_passes_on_every_built_in_title(runner, gid):
    r = runner.invoke(cli, ["check", gid, "--games", "6"])
    assert r.exit_code == 0, r.output
    assert "FAIL" not in r.output and "  ok    hidden " in r.output and "  ok    process " in r.output


def test_check_passes_on_the_skeleton(runner, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert runner.invoke(cli, ["new", "pig"]).exit_code == 0
    r = runner.invoke(cli, ["check", "./pig", "--games", "20"])
    assert r.exit_code == 0, r.output
    assert "Passed: 20 games" in r.output
    # the skeleton's determinize hook (what mcts needs) is checked too
    assert "  ok    determinize " in r.output and "not reached" not in r.output
    # a title that neither declares its State nor writes determinize: skipped, not "not reached"
    rules = tmp_path / "pig" / "rules.py"
    rules.write_text(rules.read_text().replace("    Params, State = ", "    Params, _State = "))
    r = runner.invoke(cli, ["check", "./pig", "--games", "20", "--no-fresh-process"])
    assert r.exit_code == 1 and "  skip  determinize" in r.output and "not reached" not in r.output


def test_the_strategies_are_checked_at_a_player_count_the_rules_accept():
    # three seat bonuses: the rules refuse Wizard's usual four players, so the strategies play three
    result = check_title("wizard", games=3, rules={"seat_bonus": "0/0/10"}, fresh_process=False)
    assert result.done["strategies"] > 0 and result.failed["strategies"] == 0
