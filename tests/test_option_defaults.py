"""A rule option whose default its own declaration refuses is the title's fault: reported in one
line naming the title and the option, before any --rule is read."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from analyser.cli import cli
from analyser.engine.core import InputError, Params, option
from analyser.engine.params import DeclarationFault
from analyser.engine.registry import get_game


@dataclass(frozen=True)
class BadDefault(Params):
    fine: str = option("a", "a choice", choices=("a", "b"))
    limit: int = option(3, "cards a seat may hold", low=5, high=9)


def test_the_fault_names_the_option_whose_default_is_refused():
    assert BadDefault.declaration_fault().startswith("rule option limit: ")
    assert Params.declaration_fault() is None and get_game("dao").Params.declaration_fault() is None
    with pytest.raises(DeclarationFault):
        BadDefault.from_overrides({"limit": "6"})


def test_a_title_with_a_refused_default_fails_its_declaration_check(monkeypatch):
    game = get_game("dao")
    monkeypatch.setattr(type(game), "Params", BadDefault)
    with pytest.raises(InputError) as e:
        game.check_declarations()
    assert str(e.value).split(": ")[:2] == ["dao", "rule option limit"] and "\n" not in str(e.value)


@pytest.mark.parametrize("command", ["simulate", "play", "check"])
def test_the_commands_report_it_as_the_titles_fault(runner, monkeypatch, tmp_path, command):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(type(get_game("dao")), "Params", BadDefault)
    args = [command, "dao"] + (["-s", "random"] if command != "check" else []) + ["--rule", "limit=6"]
    r = runner.invoke(cli, args)
    errors = [line for line in r.output.splitlines() if "error" in line]
    assert r.exit_code == 2 and len(errors) == 1 and "Traceback" not in r.output, r.output
    assert errors[0].split("error: ", 1)[1].split(": ")[:2] == ["dao", "rule option limit"]
