"""``analyser list``, ``analyser rules``, ``analyser new`` and ``analyser check``: the titles, their
strategies and rule options; a title's rules page; a new title's skeleton; and the check that a
title keeps the contract of every title.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import click

from analyser.cli.common import _game_seed, _one_line_error, _root_seed, cli
from analyser.engine.core import InputError, parse_key_values


@cli.command("list")
@click.argument("game", required=False)
def list_cmd(game):
    """Show the titles, their strategies (with parameters) and their rule options.

    Give a GAME id to show only that title.
    """
    from analyser.engine import registry
    from analyser.engine.registry import (accepted_text, available_strategies, broken_strategy_plugins, default_lineup, game_ids, get_game,
                                          parameter_bounds, shadow_note, shadowed_titles, strategy_doc,
                                          strategy_parameters, unavailable_generic)

    registry.set_notice(None)  # a shadowed plugin is named below, with the other problems
    ids = [get_game(game).id] if game else game_ids()
    problems = []  # a broken or shadowed plugin: named on one line each, after the titles that load
    for gid in ids:
        try:
            g = get_game(gid)
        except InputError as e:  # a plugin that fails to import: the others are still listed
            problems.append(f"plugin {e}")
            continue
        count = (f"{g.min_players} players" if g.min_players == g.max_players else
                 f"{g.min_players}-{g.max_players} players (default {g.default_players})")
        click.secho(f"{gid}  -  {g.name}, {count}", bold=True)
        if g.summary:
            click.echo(f"  {g.summary}")
        click.echo(f"  rules: {_rules_hint(g, game if game else gid)}")
        if g.tie_break_note:
            click.echo(_wrap(f"ties: {g.tie_break_note}", 2))
        lineup = default_lineup(gid)
        if lineup:
            click.echo(_wrap(f"default lineup (no --strategy): {', '.join(lineup)} - one per seat, in order "
                             "(cut, or cycled, to the number of seats)", 2))
        click.echo("  strategies (--strategy NAME or NAME:key=value,...):")
        for name, obj in available_strategies(gid).items():
            params = strategy_parameters(obj)
            sig = ",".join(f"{k}={('on' if d else 'off') if isinstance(d, bool) else d}" for k, (_, d) in params.items())
            click.echo(f"    {name}{':' + sig if sig else ''}")
            click.echo(_wrap(strategy_doc(obj), 8))
            ranges = [f"{k} {text}" for k, b in parameter_bounds(obj).items() if (text := accepted_text(b))]
            if ranges:
                click.echo(_wrap(f"accepts: {'; '.join(ranges)}", 8))
        for name, reason in unavailable_generic(gid).items():
            click.echo(_wrap(f"(not offered: {reason})", 4))
        click.echo("  rule options (--rule key=value), default first:")
        for o in g.Params.options():
            if o["choices"]:
                allowed = f" [{' | '.join(map(str, o['choices']))}]"
            elif o["low"] is not None or o["high"] is not None:
                lo = "" if o["low"] is None else f"{o['low']:,}"
                hi = "" if o["high"] is None else f"{o['high']:,}"
                allowed = f" [{lo} to {hi}]" if lo and hi else (f" [>= {lo}]" if lo else f" [<= {hi}]")
            elif o["type"] == "bool":
                allowed = " [on | off]"
            else:
                allowed = ""
            default = ("on" if o["default"] else "off") if isinstance(o["default"], bool) else o["default"]
            click.echo(f"    {o['name']}={default}{allowed}")
            click.echo(_wrap(o["doc"], 8))
        click.echo()
    problems += [shadow_note(gid) for gid in shadowed_titles() if gid in ids]
    problems += list(broken_strategy_plugins().values())
    for line in problems:
        click.echo(f"analyser: warning: {line}", err=True)


def _rules_hint(g, ref: str) -> str:
    """How to read a title's rules page (``analyser rules REF``, REF as the user named the
    title), or that it has none and where it belongs."""
    from analyser.engine.registry import rules_page, rules_page_location

    if rules_page(g) is not None:
        return f"analyser rules {shlex.quote(ref)}"
    where = rules_page_location(g)
    return "no rules page" + (f" (write one as {where})" if where is not None else "")


@cli.command()
@click.argument("game")
@click.option("--path", "show_path", is_flag=True, help="Print where the rules page is instead of the page.")
def rules(game, show_path):
    """Print the rules page of GAME: the rules as implemented, every ruling and its rule option.

    The page ships with the title (rules.md in the title's package; FILE.md beside a title file
    FILE.py). It is Markdown, printed as it is to standard output (no pager).

    \b
    Examples:
      analyser rules GAME
      analyser rules GAME --path
      analyser rules ./my-game
    """
    from analyser.engine.registry import get_game, rules_page, rules_page_location

    g = get_game(game)
    page = rules_page(g)
    if page is None:  # not bad input: the title simply has none (exit 1, one line)
        where = rules_page_location(g)
        _one_line_error(f"{g.id} has no rules page" + (f"; write one as {where}" if where is not None else ""), 1)
    if show_path:
        click.echo(str(page))
    else:
        click.echo(page.read_text(encoding="utf-8"), nl=False)
    return 0


def _wrap(text: str, indent: int) -> str:
    import textwrap
    return textwrap.fill(text, width=96, initial_indent=" " * indent, subsequent_indent=" " * indent)


@cli.command()
@click.argument("name")
def new(name):
    """Start a title of your own: write a working skeleton into the new folder NAME.

    NAME (e.g. my-game) is also the title's id. The skeleton plays the dice game Pig, laid out
    like the built-in titles: rules.py (the rule options, the state, what a seat sees, the
    rules), rules.md (its rules page, for `analyser rules`), figures.py (one report table and
    one plot), render.py (the text for `analyser play`), strategies.py (hold:n=20, optimal and
    random) and tests/. Change the rules into your game's and run the same commands.

    \b
    Examples:
      analyser new my-game
      analyser check ./my-game
      analyser simulate ./my-game -s hold -s random --games 2000
      analyser play ./my-game -s hold -s random --seed 1
      python -m pytest my-game/tests
    """
    from analyser.kit.skeleton import write_skeleton

    files = write_skeleton(name)
    folder = Path(name)
    click.echo(f"Wrote the title {folder.name!r} (the dice game Pig, to change into yours) in {folder}/:")
    for path in files:
        click.echo(f"  {path}")
    ref = shlex.quote(str(folder) if folder.is_absolute() or str(folder).startswith(".") else f"./{folder}")
    click.echo("\nNext:")
    click.echo(f"  analyser check {ref}")
    click.echo(f"  analyser simulate {ref} -s hold -s random --games 2000")
    click.echo(f"  analyser play {ref} -s hold -s random --seed 1")
    click.echo(f"  python -m pytest {shlex.quote(str(folder / 'tests'))}")
    return 0


@cli.command()
@click.argument("game")
@click.option("-n", "--games", type=int, default=200, show_default=True, help="Random games to play.")
@click.option("--seed", type=int, default=1, show_default=True, callback=_root_seed, help="Root seed of the games.")
@click.option("-p", "--players", type=int, default=None,
              help="Check this player count only. Default: the title's least, usual and greatest in turn.")
@click.option("-r", "--rule", "rules", multiple=True, metavar="KEY=VALUE", help="Rule option override, repeatable.")
@click.option("--game-seed", "game_seeds", type=int, multiple=True, metavar="SEED", callback=_game_seed,
              help="Check only the game with this game seed (from a failure line), repeatable.")
@click.option("--no-fresh-process", is_flag=True, help="Skip replaying the games in a fresh Python process.")
def check(game, games, seed, players, rules, game_seeds, no_fresh_process):
    """Check that GAME keeps the contract of every title, by playing random games.

    GAME is a title id, a title file (FILE.py or FILE.py:CLASS) or a title folder. The checks:
    every running state has distinct legal actions; applying one never raises; the title's
    invariants hold; games end within the declared step bound; the same game seed gives the same
    game twice in one process and once in a fresh one; states round-trip through JSON and a game
    resumed from a saved state continues identically; a view does not show what its seat cannot
    see (the title's resample_hidden redraws that, and the view must not change); scores are
    finite and the winners are seats; the title's own strategies do not change the game through
    their view. Each failure is one line naming the game seed and the step. Exit code 1 when a
    check fails.

    \b
    Examples:
      analyser check GAME
      analyser check ./my-game --games 1000
      analyser check ./my-game --game-seed 1234567 --players 3
    """
    from analyser.kit.check import check_title, format_result
    from analyser.engine.registry import get_game

    g = get_game(game)
    if not game_seeds and not 0 < games <= 1_000_000:
        raise InputError(f"--games {games} is not accepted; give 1 to 1,000,000")
    what = f"{g.id} ({g.name})" + (f" from {g.source}" if g.source else "")
    plan = f"games with game seeds {', '.join(map(str, game_seeds))}" if game_seeds else f"{games} random games"
    click.echo(f"Checking {what}: {plan}" + (f", {players} players" if players else "") + f", seed {seed}")
    result = check_title(game, games=games, seed=seed, players=players,
                         rules=parse_key_values(rules, what="--rule"), game_seeds=list(game_seeds) or None,
                         fresh_process=not no_fresh_process)
    for line in format_result(result, g):
        click.echo(line)
    if result.ok:
        click.echo(f"Passed: {result.games} games, {result.steps:,} actions.")
        return 0
    failed = [k for k, v in result.failed.items() if v]
    click.echo(f"FAILED: {len(failed)} check(s) ({', '.join(failed)}), {sum(result.failed.values())} failure(s).")
    return 1
