"""Strategy resolution: built-ins, files, plain functions, entry points, spec parsing."""

from importlib import metadata

import pytest

from analyser.engine import registry
from analyser.engine.core import FunctionStrategy, InputError
from analyser.titles.dao.rules import REVEAL, TAKE
from analyser.engine.registry import make_strategy, parse_spec


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
from analyser.engine.core import Strategy
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
    with pytest.raises(InputError, match="'missing'"):
        make_strategy(f"{f}:missing", "dao")
    with pytest.raises(InputError, match="plain function"):
        make_strategy(f"{f}:always_reveal:x=1", "dao")
    with pytest.raises(InputError, match="dao, not wizard"):
        make_strategy(f"{f}:eager", "wizard")


def test_broken_or_missing_file_is_one_line(tmp_path):
    f = tmp_path / "broken.py"
    f.write_text("def oops(:\n")
    with pytest.raises(InputError, match="SyntaxError"):
        make_strategy(f"{f}:x", "dao")
    with pytest.raises(InputError, match="does not exist"):
        make_strategy(str(tmp_path / "nothing.py"), "dao")


def test_entry_point_strategies(tmp_path, monkeypatch):
    (tmp_path / "third_party_bots.py").write_text('''
from analyser.engine.core import Strategy
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


# --- declared parameter bounds ------------------------------------------------------------------

def test_every_builtin_parameter_declares_what_it_accepts():
    checked = 0
    for gid in registry.game_ids():
        for name, obj in registry.available_strategies(gid).items():
            params = registry.strategy_parameters(obj)
            for owner in getattr(obj, "__mro__", ()):  # each class declares bounds of its own parameters
                declared = {**vars(owner).get("param_bounds", {}), **vars(owner).get("param_choices", {}),
                            **dict.fromkeys(vars(owner).get("param_strategies", ()))}
                stray = set(declared) - set(registry.strategy_parameters(owner))
                assert not stray, (gid, owner.__name__, stray)
            for key, (kind, default) in params.items():
                b = registry.parameter_bounds(obj, gid)[key]
                if kind in (int, float):
                    assert key in obj.param_bounds, f"{gid} {name}: {key} declares no bounds"
                    assert b["low"] <= default <= b["high"], (gid, name, key, default, b)
                elif kind is str:
                    assert b["choices"] and default in b["choices"], (gid, name, key, b)
                checked += 1
    assert checked >= 20  # every title's parameterised strategies were looked at


@pytest.mark.parametrize("spec, game, accepted", [
    ("threshold:limit=-5", "dao", "threshold takes limit from 0 to 100,000"),
    ("colour:start=1001", "dao", "colour takes start from 0 to 1,000"),
    ("survivor:depth=4", "tsuro-seas", "survivor takes depth from 1 to 3"),
    ("survivor:start=edge", "tsuro-seas", "survivor takes start as one of: safe, random"),
    ("bot:samples=0", "wizard", "bot takes samples from 1 to 10,000"),
    ("mcts:c=-1", "dao", "mcts takes c from 0 to 100"),
])
def test_out_of_bounds_parameter_is_one_line_naming_value_and_range(runner, spec, game, accepted):
    from analyser.cli import cli
    res = runner.invoke(cli, ["simulate", game, "-s", spec, "--games", "2"])
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert len(lines) == 1, res.output
    value = spec.rpartition(":")[2]
    assert value.partition("=")[0] in lines[0] and accepted in lines[0], lines[0]


def test_bounds_edges_are_accepted_and_a_sweep_checks_every_value():
    assert make_strategy("threshold:limit=0", "dao").limit == 0
    assert make_strategy("threshold:limit=100000", "dao").limit == 100_000
    from analyser.experiments.grid import parse_strategy
    assert parse_strategy("threshold:limit=0..2", "dao").params == [("limit", ["0", "1", "2"])]
    with pytest.raises(InputError, match=r"limit=-1 .*from 0"):
        parse_strategy("threshold:limit=-1..2", "dao")


def test_list_shows_what_parameters_accept(runner):
    from analyser.cli import cli
    res = runner.invoke(cli, ["list", "tsuro-seas"])
    assert res.exit_code == 0, res.output
    line = next(x.strip() for x in res.output.splitlines() if "accepts:" in x and "kaiju_penalty" in x)
    # each parameter with its range or choices
    accepts = dict(p.split(" ", 1) for p in line.split("accepts: ")[1].split("; "))
    assert accepts == {"depth": "1 to 3", "start": "safe | random", "kaiju_penalty": "0 to 100"}


def test_list_shows_the_rollouts_the_search_accepts(runner):
    from analyser.cli import cli
    out = runner.invoke(cli, ["list", "dao"]).output
    accepts = " ".join(out.split("    mcts:", 1)[1].split("rule options", 1)[0].split("accepts:", 1)[1].split())
    rollout = accepts.split("rollout ", 1)[1].split(";", 1)[0].split(" | ")
    assert rollout[0] == "random"
    assert set(rollout[1:]) == set(registry.available_strategies("dao")) - {"random", "mcts"}
