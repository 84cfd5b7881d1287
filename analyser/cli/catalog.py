"""``analyser list`` and ``analyser rules``: the titles (a table of them, or one title's
strategies and rule options) and a title's rules page.  Imports the registry of titles, never the
worker layer, pandas or pyarrow: these commands start at once."""

from __future__ import annotations

import shlex
import textwrap

import click

from analyser.cli.common import one_line_error, say_note
from analyser.engine import registry
from analyser.engine.errors import InputError
from analyser.engine.registry import (accepted_text, available_strategies, broken_strategy_plugins, default_lineup,
                                      game_ids, get_game, parameter_bounds, rules_page, rules_page_location,
                                      shadow_note, shadowed_titles, strategy_doc, strategy_parameters,
                                      unavailable_generic)


EPILOG_LIST = """\b
Examples:
  analyser list                    (every title: id, name, players, strategies, default lineup)
  analyser list GAME               (one title: its strategies, their parameters, its rule options)
  analyser list ./my_game.py:MyGame
  analyser list ./my-game          (a title of your own, as written by `analyser new`)
"""


@click.command("list", epilog=EPILOG_LIST)
@click.argument("game", required=False)
def list_cmd(game):
    """Show the titles, or one title's strategies (with parameters) and rule options.

    Without GAME: one line per title (its id, name, players, how many strategies it has and the
    lineup played when no --strategy is given). With GAME (a title id, or your own title's file or
    folder): its summary, strategies with their parameters and accepted values, and rule options
    with their defaults and accepted values.
    """
    registry.set_notice(None)  # a shadowed plugin is named below, with the other problems
    if game:
        g = get_game(game)
        _print_title(g, game)
        ids = [g.id]
    else:
        ids = game_ids()
        _print_table(ids)
    problems = [line for gid in shadowed_titles() if gid in ids and (line := shadow_note(gid))]
    problems += list(broken_strategy_plugins().values())
    for line in problems:
        click.echo(f"analyser: warning: {line}", err=True)


def _print_table(ids: list[str]) -> None:
    """One line per registered title; a title whose plugin fails to load is named on standard
    error (one line) and the others are still listed."""
    rows, broken = [], []
    for gid in ids:
        try:
            g = get_game(gid)
        except InputError as e:
            broken.append(f"plugin {e}")
            continue
        players = (str(g.min_players) if g.min_players == g.max_players else
                   f"{g.min_players}-{g.max_players} ({g.default_players})")
        rows.append((gid, g.name, players, str(len(available_strategies(gid))), ", ".join(default_lineup(gid))))
    header = ("id", "name", "players", "strategies", "default lineup (no --strategy)")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header) - 1)]
    for row in [header, *rows]:
        click.echo("  ".join(cell.ljust(w) for cell, w in zip(row, widths)) + "  " + row[-1])
    click.echo("\nanalyser list GAME: its strategies and rule options;  analyser rules GAME: its rules page")
    for line in broken:
        click.echo(f"analyser: warning: {line}", err=True)


def _print_title(g, ref: str) -> None:
    """A title's details: summary, rules page, ties, default lineup, strategies, rule options."""
    gid = g.id
    count = (f"{g.min_players} players" if g.min_players == g.max_players else
             f"{g.min_players}-{g.max_players} players (default {g.default_players})")
    click.secho(f"{gid}  -  {g.name}, {count}", bold=True)
    if g.summary:
        click.echo(f"  {g.summary}")
    where = rules_page_location(g) if rules_page(g) is None else None  # (a title without a page: where it belongs)
    hint = (f"analyser rules {shlex.quote(ref)}" if rules_page(g) is not None else
            "no rules page" + (f" (write one as {where})" if where is not None else ""))
    click.echo(f"  rules: {hint}")
    if g.scoring.tie_break_note:
        click.echo(_wrap(f"ties: {g.scoring.tie_break_note}", 2))
    lineup = default_lineup(gid)
    if lineup:
        click.echo(_wrap(f"default lineup (no --strategy): {', '.join(lineup)} - one per seat, in order "
                         "(cut, or cycled, to the number of seats)", 2))
    _print_strategies(gid)
    click.echo("  rule options (--rule key=value), default first:")
    for o in g.Params.options():
        click.echo(f"    {o['name']}={_shown(o['default'])}{_allowed(o)}")
        click.echo(_wrap(o["doc"], 8))


def _print_strategies(gid: str) -> None:
    click.echo("  strategies (--strategy NAME or NAME:key=value,...):")
    for name, obj in available_strategies(gid).items():
        params = strategy_parameters(obj)
        sig = ",".join(f"{k}={('on' if d else 'off') if isinstance(d, bool) else d}" for k, (_, d) in params.items())
        click.echo(f"    {name}{':' + sig if sig else ''}")
        click.echo(_wrap(strategy_doc(obj), 8))
        ranges = [f"{k} {text}" for k, b in parameter_bounds(obj, gid).items() if (text := accepted_text(b))]
        if ranges:
            click.echo(_wrap(f"accepts: {'; '.join(ranges)}", 8))
    for name, reason in unavailable_generic(gid).items():
        click.echo(_wrap(f"(not offered: {reason})", 4))


def _shown(value) -> str:
    return ("on" if value else "off") if isinstance(value, bool) else str(value)


def _allowed(o: dict) -> str:
    """`` [a | b]``, `` [1 to 9]``, `` [>= 1]``, `` [on | off]`` or nothing: what a rule option accepts."""
    if o["choices"]:
        return f" [{' | '.join(map(str, o['choices']))}]"
    if o["low"] is not None or o["high"] is not None:
        lo = "" if o["low"] is None else f"{o['low']:,}"
        hi = "" if o["high"] is None else f"{o['high']:,}"
        return f" [{lo} to {hi}]" if lo and hi else (f" [>= {lo}]" if lo else f" [<= {hi}]")
    return " [on | off]" if o["type"] == "bool" else ""


@click.command()
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
    registry.set_notice(say_note)  # a plugin title that a built-in shadows is said once
    g = get_game(game)
    page = rules_page(g)
    if page is None:  # not bad input: the title simply has none (exit 1, one line)
        where = rules_page_location(g)
        one_line_error(f"{g.id} has no rules page" + (f"; write one as {where}" if where is not None else ""), 1)
    if show_path:
        click.echo(str(page))
    else:
        click.echo(page.read_text(encoding="utf-8"), nl=False)
    return 0


def _wrap(text: str, indent: int) -> str:
    return textwrap.fill(text, width=96, initial_indent=" " * indent, subsequent_indent=" " * indent)


