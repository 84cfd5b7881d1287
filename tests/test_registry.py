"""Strategy resolution: built-ins, files, plain functions, entry points, spec parsing."""

from importlib import metadata

import pytest

from analyser import registry
from analyser.core import FunctionStrategy, InputError
from analyser.titles.dao.rules import REVEAL, TAKE
from analyser.registry import make_strategy, parse_spec


def test_parse_spec_shapes():
    s = parse_spec("threshold:limit=9")
    assert (s.source, s.name, s.params) == ("threshold", None, (("limit", "9"),))
    s = parse_spec("bots/my_bots.py:cautious:margin=2,deep=on")
    assert (s.source, s.name, s.params) == ("bots/my_bots.py", "cautious", (("margin", "2"), ("deep", "on")))
    s = parse_spec("my_bots.py:margin=2")
    assert (s.source, s.name, s.params) == ("my_bots.py", None, (("margin", "2"),))
    with pytest.raises(InputError, match="malformed"):
        parse_spec("a:b=1:c=2")
    with pytest.raises(InputError, match="empty"):
        parse_spec("  ")


def test_builtin_parameters_are_coerced():
    assert make_strategy("threshold:limit=7", "dao").limit == 7
    c = make_strategy("colour:min_value=2,start=3", "dao")
    assert (c.min_value, c.start) == (2, 3)


def test_file_strategy_class_function_and_single(tmp_path):
    f = tmp_path / "bots.py"
    f.write_text('''
from analyser.core import Strategy
from analyser.titles.dao.rules import TAKE, REVEAL

class Eager(Strategy):
    name = "eager"
    game = "dao"
    def __init__(self, when: int = 0):
        self.when = when
    def choose(self, view, legal, rng):
        return TAKE

def always_reveal(view, legal, rng):
    return REVEAL

STRATEGIES = [Eager]
''')
    s = make_strategy(f"{f}:eager:when=3", "dao")
    assert s.when == 3 and s.choose(None, (TAKE, REVEAL), None) is TAKE
    fn = make_strategy(f"{f}:always_reveal", "dao")
    assert isinstance(fn, FunctionStrategy) and fn.choose(None, (TAKE, REVEAL), None) is REVEAL
    assert make_strategy(str(f), "dao").choose(None, (TAKE, REVEAL), None) is TAKE  # the one listed
    with pytest.raises(InputError, match="'missing' is not in"):
        make_strategy(f"{f}:missing", "dao")
    with pytest.raises(InputError, match="plain function and takes no parameters"):
        make_strategy(f"{f}:always_reveal:x=1", "dao")
    with pytest.raises(InputError, match="written for dao, not wizard"):
        make_strategy(f"{f}:eager", "wizard")


def test_broken_or_missing_file_is_one_line(tmp_path):
    f = tmp_path / "broken.py"
    f.write_text("def oops(:\n")
    with pytest.raises(InputError, match="failed to import: SyntaxError"):
        make_strategy(f"{f}:x", "dao")
    with pytest.raises(InputError, match="does not exist"):
        make_strategy(str(tmp_path / "nothing.py"), "dao")


def test_entry_point_strategies(tmp_path, monkeypatch):
    (tmp_path / "third_party_bots.py").write_text('''
from analyser.core import Strategy
from analyser.titles.dao.rules import TAKE

class Hoarder(Strategy):
    """Always takes."""
    game = "dao"
    uses_rng = False
    def choose(self, view, legal, rng):
        return TAKE
''')
    monkeypatch.syspath_prepend(str(tmp_path))
    ep = metadata.EntryPoint(name="hoarder", value="third_party_bots:Hoarder", group=registry.ENTRY_POINT_GROUP)
    real = metadata.entry_points
    monkeypatch.setattr(registry.metadata, "entry_points",
                        lambda group=None, **kw: [ep] if group == registry.ENTRY_POINT_GROUP else real(group=group))
    assert "hoarder" in registry.available_strategies("dao")
    assert make_strategy("hoarder", "dao").choose(None, (TAKE, REVEAL), None) is TAKE
    assert "hoarder" not in registry.available_strategies("wizard")


def test_builtin_strategies_ship_with_docs():
    found = registry.builtin_strategies("dao")
    assert list(found) == ["random", "threshold", "greedy", "colour"]
    for obj in found.values():
        assert registry.strategy_doc(obj)
