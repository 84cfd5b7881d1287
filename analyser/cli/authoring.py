"""``analyser new`` and ``analyser check``: a new title's skeleton, and the check that a title
keeps the contract of every title (by playing random games)."""

from __future__ import annotations

import shlex
from pathlib import Path

import click

from analyser.cli import supervised
from analyser.cli.common import check_game_seed, check_root_seed
from analyser.engine.core import InputError, parse_key_values
from analyser.engine.registry import get_game
from analyser.kit.check import check_title, format_result
from analyser.kit.skeleton import write_skeleton


@supervised.command()
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


@supervised.command()
@click.argument("game")
@click.option("-n", "--games", type=int, default=200, show_default=True, help="Random games to play.")
@click.option("--seed", type=int, default=1, show_default=True, callback=check_root_seed,
              help="Root seed of the games.")
@click.option("-p", "--players", type=int, default=None,
              help="Check this player count only. Default: the title's least, usual and greatest in turn.")
@click.option("-r", "--rule", "rules", multiple=True, metavar="KEY=VALUE", help="Rule option override, repeatable.")
@click.option("--game-seed", "game_seeds", type=int, multiple=True, metavar="SEED", callback=check_game_seed,
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
