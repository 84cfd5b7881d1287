"""The title contract: what the engine derives from a state's declaration (copy, equality,
pickling, JSON, views, the re-deal behind resample_hidden and determinize), the public API at the
package root, and the cross-field check of rule options against the player count."""

import json
import pickle
import random
import re
from pathlib import Path

import pytest

import analyser
from analyser.cli import cli
from analyser.engine import derive
from analyser.engine.registry import load_title_file

ROOT = Path(__file__).resolve().parents[1]
PILE = load_title_file(str(ROOT / "docs" / "examples" / "pile_game" / "rules.py"))


def dealt(n=3, seed=5):
    state = PILE.initial_state(PILE.Params(), n, random.Random(seed))
    rng = random.Random(seed + 1)
    for _ in range(4):  # a few turns so the pile, scores and history hold something
        PILE.apply(state, PILE.legal_actions(state)[0], rng)
    return state


def test_a_copy_equals_the_state_and_shares_no_mutable_data():
    s = dealt()
    t = PILE.clone_state(s)
    assert t == s and t is not s
    t.hands[0].append(99)
    t.deck.pop()
    t.scores[1] += 5
    t.history[0][0] = -7
    assert t != s and 99 not in s.hands[0] and s.scores[1] != t.scores[1] and s.history[0][0] != -7


def test_pickling_and_the_json_round_trip_give_an_equal_state():
    s = dealt()
    assert pickle.loads(pickle.dumps(s)) == s
    data = json.loads(json.dumps(PILE.state_to_dict(s)))
    assert data["game"] == "pile" and data["hands"] == s.hands and data["params"]["limit"] == 15
    assert PILE.state_from_dict(data) == s


@pytest.mark.parametrize("field, value", [("scores", "high"), ("current", 1.5), ("turns", True),
                                          ("hands", [[1], "x"]), ("params", {"limit": "fifteen"})])
def test_a_saved_state_of_the_wrong_type_is_one_line_naming_the_field(field, value):
    data = PILE.state_to_dict(dealt())
    data[field] = value
    with pytest.raises(analyser.InputError) as e:
        PILE.state_from_dict(data)
    assert "\n" not in str(e.value) and field in str(e.value)


def test_an_unknown_or_missing_field_is_refused():
    data = PILE.state_to_dict(dealt())
    with pytest.raises(analyser.InputError, match="^not a pile state: colour"):
        PILE.state_from_dict({**data, "colour": 1})
    del data["n"]
    with pytest.raises(analyser.InputError, match="^not a pile state: n"):
        PILE.state_from_dict(data)


def test_a_view_shows_the_own_hand_and_only_the_sizes_of_what_is_hidden():
    s = dealt()
    v = PILE.view(s, 1)
    assert v.hand == s.hands[1] and v.hands_sizes == [len(h) for h in s.hands]
    assert v.deck_size == len(s.deck) and v.pile == s.pile and v.scores == s.scores and v.total == sum(s.pile)
    assert not hasattr(v, "deck") and not hasattr(v, "hands")
    assert v.unseen == sorted(s.deck + s.hands[0] + s.hands[2])
    PILE.apply(s, PILE.legal_actions(s)[0], random.Random(0))
    assert v.pile == s.pile and v.hand == s.hands[1]  # live: it reads through
    assert PILE.live_views


def test_resample_hidden_keeps_what_the_seat_sees_and_redraws_the_rest():
    s = dealt()
    for seat in range(3):
        changed = 0
        for k in range(20):
            t = PILE.resample_hidden(s, seat, random.Random(k))
            assert t.hands[seat] == s.hands[seat] and t.pile == s.pile and t.scores == s.scores
            assert [len(h) for h in t.hands] == [len(h) for h in s.hands] and len(t.deck) == len(s.deck)
            assert sorted(t.deck + sum((h for i, h in enumerate(t.hands) if i != seat), [])) == \
                sorted(s.deck + sum((h for i, h in enumerate(s.hands) if i != seat), []))
            changed += t != s
        assert changed > 10


def test_determinize_depends_on_the_unseen_cards_as_a_multiset_not_where_they_lie():
    s = dealt()
    other = PILE.clone_state(s)
    other.deck.reverse()
    other.hands[0], other.hands[2] = other.hands[2], other.hands[0]
    a = PILE.determinize(PILE.view(s, 1), random.Random(3))
    b = PILE.determinize(PILE.view(other, 1), random.Random(3))
    assert a == b and a.hands[1] == s.hands[1]
    a.hands[1].append(50)
    assert 50 not in s.hands[1]  # it shares nothing with the view's state


def test_every_public_name_imports_and_the_docs_use_only_public_names():
    for name in analyser.__all__:
        assert getattr(analyser, name) is not None
    used = set()
    texts = [p.read_text() for p in (ROOT / "docs").rglob("*.md")] + \
        [p.read_text() for p in (ROOT / "docs" / "examples").rglob("*.py")] + \
        [p.read_text() for p in (ROOT / "analyser" / "kit" / "templates").rglob("*.tmpl")] + \
        [p.read_text() for p in (ROOT / "strategies").glob("*.py")]
    for text in texts:
        for names in re.findall(r"from analyser import (?:\(([^)]*)\)|([\w, ]+))", text):
            names = "".join(names)
            used.update(n.strip().split(" as ")[0] for n in names.replace("\n", " ").split(",") if n.strip())
    assert used and used <= set(analyser.__all__)


def test_a_rule_and_player_count_that_cannot_deal_are_refused_before_any_game(runner, tmp_path):
    out = tmp_path / "run"
    result = runner.invoke(cli, ["simulate", str(ROOT / "docs/examples/pile_game/rules.py"), "-s", "random",
                                 "--players", "4", "--rule", "hand=10", "--rule", "copies=1", "--out", str(out)])
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1
    assert "players 4" in result.output and not out.exists()


def test_a_deal_that_fails_is_refused_before_any_game(runner, tmp_path, monkeypatch):
    def refuse(params, n, rng):
        raise ValueError("not enough cards")
    monkeypatch.setattr(PILE, "initial_state", refuse)
    out = tmp_path / "run"
    result = runner.invoke(cli, ["simulate", str(ROOT / "docs/examples/pile_game/rules.py"), "-s", "random",
                                 "--games", "5", "--out", str(out)])
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1 and not out.exists()


def test_the_own_game_page_shows_the_example_file_as_it_is_and_every_declaration():
    page = (ROOT / "docs" / "own-game.md").read_text()
    block = re.search(r"<!-- example-file: (\S+) -->\n```python\n(.*?)```\n<!-- /example-file -->", page, re.S)
    assert block and (ROOT / block.group(1)).read_text() == block.group(2)
    code = block.group(2)
    assert sum(1 for line in code[:code.index("TITLE = ")].splitlines() if line.strip()) <= 100
    table = page[page.index("| role | declaration | default |"):]
    documented = set(re.findall(r"`(\w+)", table))
    public = {name for name in dir(analyser.Game) if not name.startswith("_")}
    required = {"initial_state", "current_player", "legal_actions", "apply", "is_terminal", "scores", "metrics"}
    assert public - required <= documented


def test_the_skeleton_rules_stay_short_and_write_only_the_rules():
    text = (ROOT / "analyser" / "kit" / "templates" / "new_title" / "rules.py.tmpl").read_text()
    assert sum(1 for line in text.splitlines() if line.strip()) <= 100
    written = set(re.findall(r"^    def (\w+)\(", text, re.M))
    assert {"view", "clone_state", "state_to_dict", "state_from_dict", "resample_hidden", "determinize"} & written == set()
    assert len(written - {"_next_turn"}) <= 8


def test_a_view_cannot_be_turned_to_another_seat():
    v = PILE.view(dealt(), 1)
    with pytest.raises(AttributeError):
        v.seat = 0
    assert v.seat == 1


def test_a_rule_option_named_like_a_result_column_is_refused_before_any_game(runner, tmp_path):
    source = (ROOT / "docs" / "examples" / "pile_game" / "rules.py").read_text()
    (tmp_path / "clash.py").write_text(source.replace('    limit: int = option(15, "pile total that scores"',
                                                      '    turns: int = option(15, "pile total that scores"'))
    for args in (["simulate", "-s", "random", "--out", str(tmp_path / "run")], ["check"], ["play", "-s", "random"]):
        result = runner.invoke(cli, [args[0], str(tmp_path / "clash.py")] + args[1:])
        errors = [line for line in result.output.splitlines() if line.startswith("analyser: error")]
        assert result.exit_code == 2 and len(errors) == 1 and "'turns'" in errors[0]
    assert not (tmp_path / "run").exists()


def test_a_state_that_is_not_a_dataclass_and_a_missing_method_are_named(runner, tmp_path):
    source = (ROOT / "docs" / "examples" / "pile_game" / "rules.py").read_text()
    (tmp_path / "plain.py").write_text(source.replace("@dataclass(slots=True)\nclass PileState:", "class PileState:"))
    result = runner.invoke(cli, ["simulate", str(tmp_path / "plain.py"), "-s", "random", "--games", "3"])
    assert result.exit_code == 2 and "PileState" in result.output and len(result.output.strip().splitlines()) == 1
    with pytest.raises(NotImplementedError, match="is_terminal"):
        analyser.Game.is_terminal(PILE, None)


def test_a_play_whose_rules_cannot_deal_is_one_line(runner, monkeypatch):
    def refuse(params, n, rng):
        raise IndexError("pop from empty list")
    monkeypatch.setattr(PILE, "initial_state", refuse)
    result = runner.invoke(cli, ["play", str(ROOT / "docs/examples/pile_game/rules.py"), "-s", "random", "--seed", "1"])
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1 and "Traceback" not in result.output


def test_a_loaded_titles_id_wins_over_a_folder_of_that_name_here(runner, tmp_path, monkeypatch):
    (tmp_path / "pile").mkdir()  # a folder named like the title id, without __init__.py
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(cli, ["simulate", str(ROOT / "docs/examples/pile_game/rules.py"), "-s", "mcts:iterations=5",
                                 "--games", "2", "-j", "1", "--no-report", "--out", "run"])
    assert result.exit_code == 0, result.output


def test_check_refuses_a_legal_action_that_cannot_be_hashed(tmp_path):
    source = (ROOT / "docs" / "examples" / "pile_game" / "rules.py").read_text()
    (tmp_path / "lists.py").write_text(source.replace(
        "        return sorted(set(s.hands[s.current]))", "        return [[c] for c in sorted(set(s.hands[s.current]))]"))
    result = analyser.check_title(str(tmp_path / "lists.py"), games=3, fresh_process=False, strategies=False)
    assert result.failed["legal"] == 3 and "list" in result.failures[0].message
