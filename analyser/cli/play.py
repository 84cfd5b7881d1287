"""``analyser play``: one game with a readable turn-by-turn trace (or JSON lines), from a seed, a
saved state, or a game of an earlier run.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import secrets
import shlex
import sys
from pathlib import Path
from typing import Any

import click

from analyser.cli import supervised
from analyser.cli.common import builtin_strategies, check_game_seed, one_line_error, players_phrase, strip_specs
from analyser.engine.core import GAME_TIMEOUT, InputError, StrategyError, parse_key_values
from analyser.engine.params import GAME_TIMEOUT_RANGE, MAX_GAME_TIMEOUT
from analyser.engine.registry import get_game, is_title_file, make_strategy
from analyser.engine.runner import GameFailure, check_deal, game_seed, lineup, play_game, time_limit
from analyser.io.states import load_state
from analyser.run import Allowed, guard_folder_config, read_config_file
from analyser.run.folders import KIND_NAMES, cell_folder_ok


@supervised.command()
@click.argument("game", required=False)
@click.option("-s", "--strategy", "strategies", multiple=True, metavar="SPEC", callback=strip_specs,
              help="Strategy spec per seat, in seat order (cycled to fill the seats). Default: the title's "
                   "built-in lineup, as simulate uses.")
@click.option("-p", "--players", type=int, default=None,
              help="Number of seats. Default: the title's usual count (more if more strategies are given).")
@click.option("--seed", type=int, default=None, callback=check_game_seed,
              help="Game seed (the game_seed column of the results replays that game). Default: fresh.")
@click.option("-r", "--rule", "rules", multiple=True, metavar="KEY=VALUE", help="Rule option override.")
@click.option("--json", "as_json", is_flag=True,
              help="Print the trace as JSON lines: {step, seat, strategy, action, events, state (before)}.")
@click.option("--state", "state_file", type=click.Path(path_type=Path), default=None,
              help="Continue from a saved state: a JSON file holding a state, or one line of a --json trace.")
@click.option("--from", "from_dir", type=click.Path(path_type=Path), default=None, metavar="OUT",
              help="Replay a game of an earlier run: its folder (with config.json; of an experiment, one "
                   "cell's folder). Needs --game-index; "
                   "the lineup, rules, game seed and --game-timeout are that game's.")
@click.option("--game-index", type=int, default=None, help="With --from: which game of the run (game_index column).")
@click.option("--game-timeout", type=float, default=GAME_TIMEOUT, show_default=True,
              help="Seconds the game may take before its strategy is reported as hung; 0 = no limit (as in "
                   "simulate).")
@click.option("--trust", is_flag=True,
              help="With --from: load the title and strategy files the run's config.json names (only for a folder "
                   "you made or trust: loading a file runs its code).")
@click.option("--debug", is_flag=True, help="When a strategy raises, print its full traceback.")
def play(game, strategies, players, seed, rules, as_json, state_file, from_dir, game_index, game_timeout, trust,
         debug):
    """Play one game of GAME and print a readable turn-by-turn trace.

    \b
    Examples:
      analyser play GAME --strategy greedy --strategy random --seed 1
      analyser play GAME -s greedy -s random --seed 1 --json > trace.jsonl
      analyser play --from reports/my-run --game-index 17
      analyser play GAME -s NAME --seed 1234 --game-timeout 5
    """
    asked = PlayOptions(game=game, strategies=strategies, players=players, seed=seed, rules=rules,
                        state_file=state_file, from_dir=from_dir, game_index=game_index, game_timeout=game_timeout,
                        trust=trust)
    if not 0 <= game_timeout <= MAX_GAME_TIMEOUT:  # (NaN fails both)
        raise InputError(f"--game-timeout {game_timeout:g} is not accepted; {GAME_TIMEOUT_RANGE}")
    chosen = _game_of_run(asked) if from_dir is not None else _game_of_title(asked)
    g, labels = chosen.g, chosen.labels
    # anything a strategy prints goes to standard error: the trace (and --json) stays clean
    real_out = sys.stdout
    with contextlib.redirect_stdout(sys.stderr):
        strats = [make_strategy(label, g.id) for label in labels]
    if chosen.default_lineup:  # only once the lineup is valid: a bad value stays a one-line error
        click.echo(f"No --strategy given: playing the title's default lineup {', '.join(chosen.default_lineup)} "
                   "(see `analyser list`).", err=True)
    seed = chosen.seed if chosen.seed is not None else secrets.randbits(63)
    trace = _Trace(g, labels, as_json, real_out)
    if not as_json:
        click.echo(f"{g.name}, {players_phrase(g, chosen.params, len(labels))}, game seed {seed}: " +
                   ", ".join(f"seat {i} {lab}" for i, lab in enumerate(labels)))
        if g.trace_legend:
            click.echo(f"Legend: {g.trace_legend}")
    final = _play_traced(chosen, strats, seed, trace, debug)
    trace.flush(final)
    _print_outcome(g, final, labels, seed, as_json)
    return 0


@dataclasses.dataclass(frozen=True)
class PlayOptions:
    """What the command line of ``analyser play`` says about the game to play."""
    game: str | None
    strategies: tuple[str, ...]
    players: int | None
    seed: int | None
    rules: tuple[str, ...]
    state_file: Path | None
    from_dir: Path | None
    game_index: int | None
    game_timeout: float
    trust: bool


@dataclasses.dataclass(frozen=True)
class _Chosen:
    """One game to play: the title, its rules, the strategy label per seat, the saved state it
    continues from (or None), its time limit and game seed (None: a fresh one), and the title's
    default lineup when no ``--strategy`` was given (else None)."""
    g: Any
    params: Any
    labels: list[str]
    state: Any
    game_timeout: float
    seed: int | None
    default_lineup: list[str] | None = None


def _game_of_run(asked: PlayOptions) -> _Chosen:
    """Game ``--game-index`` of the run in ``--from``: its lineup, rules, seed and time limit (the
    run's, unless ``--game-timeout`` is given)."""
    if (asked.strategies or asked.rules or asked.players is not None or asked.seed is not None
            or asked.state_file is not None):
        raise InputError("--from takes the lineup, rules and seed from the run; leave out --strategy, --rule, "
                         "--players, --seed and --state")
    game, labels, rule_map, seed, run_timeout = _replay_from(asked.from_dir, asked.game, asked.game_index, asked.trust)
    game_timeout = asked.game_timeout
    if click.get_current_context().get_parameter_source("game_timeout").name == "DEFAULT":
        game_timeout = run_timeout  # the run's limit, unless given here
    g = get_game(game)
    g.check_declarations()
    return _Chosen(g, g.Params.from_overrides(rule_map), labels, None, game_timeout, seed)


def _game_of_title(asked: PlayOptions) -> _Chosen:
    """A game of GAME: its rules from ``--rule`` (or the saved ``--state``), the lineup from
    ``--strategy`` (or the title's default lineup), cycled over the seats."""
    if asked.game_index is not None:
        raise InputError("--game-index needs --from OUT (the run folder it indexes)")
    if asked.trust:
        raise InputError("--trust needs --from OUT (it loads the files that run folder names)")
    if asked.game is None:
        raise InputError("no GAME given; name a title (see `analyser list`) or replay a run with --from OUT "
                         "--game-index N")
    g = get_game(asked.game)
    g.check_declarations()
    params = g.Params.from_overrides(parse_key_values(asked.rules, what="--rule"))
    players, state = asked.players, None
    if asked.state_file is not None:
        if asked.rules or asked.players is not None:
            raise InputError("--rule and --players come from the saved --state; leave them out")
        state = load_state(g, asked.state_file)
        params = state.params if hasattr(state, "params") else params
        players = len(g.scores(state))
    default_lineup = None if asked.strategies else builtin_strategies(g, players)
    strategies = asked.strategies or default_lineup
    labels = _seat_labels(g, params, players, strategies)
    return _Chosen(g, params, labels, state, asked.game_timeout, asked.seed, default_lineup)


def _seat_labels(g, params, players: int | None, strategies) -> list[str]:
    """The strategy per seat: ``strategies`` cycled over ``players`` seats (by default the title's
    usual count, more if more strategies are given)."""
    m = len(strategies)
    if players is None:
        players = max(g.default_players, min(m, g.max_players))
    g.check_players(params, players)
    check_deal(g, params, players)
    if m > players:
        raise InputError(f"{m} strategies for {players} seats; give at most {players} --strategy")
    return [strategies[s % m] for s in range(players)]


class _Trace:
    """Prints a game as it is played, to ``out``: per step the state and the action (or, under
    ``--json``, one JSON line per step), then the events the action caused, read once it is
    applied (at the next step, or at the end: :meth:`flush`)."""

    def __init__(self, g, labels: list[str], as_json: bool, out):
        self.g, self.labels, self.as_json, self.out = g, labels, as_json, out
        self.n = 0
        self.pending: list[dict] = []
        self.before: list = []

    def hook(self, st, seat, action) -> None:
        """The ``on_step`` of :func:`play_game`: the last action's events, then this step."""
        self.flush(st)
        self.step(st, seat, action)

    def step(self, st, seat, action) -> None:
        g = self.g
        self.n += 1
        if self.as_json:
            rec = {"step": self.n, "seat": seat, "strategy": self.labels[seat],
                   "action": g.action_to_json(action), "state": g.state_to_dict(st)}
            self.pending.append(rec)  # printed once the action is applied, with the events it caused
        else:
            click.echo(g.describe_state(st), file=self.out)
            click.secho(f"step {self.n}: seat {seat} ({self.labels[seat]}) -> {g.describe_action(action)}",
                        bold=True, file=self.out)
        self.before.append((g.clone_state(st), action))

    def flush(self, st) -> None:
        """Events of the last action, read once the action is applied (the next step, or the end)."""
        if not self.before:
            return
        prev, action = self.before.pop()
        said = self.g.step_events(prev, action, st)
        if self.as_json:
            rec = self.pending.pop()
            rec["events"] = said
            click.echo(json.dumps(rec), file=self.out)
        else:
            for e in said:
                click.echo(f"  >> {e}", file=self.out)


def _play_traced(chosen: _Chosen, strats, seed: int, trace: _Trace, debug: bool):
    """The final state of the game, played under its time limit with ``trace`` on each step; a
    strategy's failure (or a hung one) or a broken game ends the command with one line."""
    game_timeout = chosen.game_timeout
    try:
        with contextlib.redirect_stdout(sys.stderr), time_limit(game_timeout, seed):
            return play_game(chosen.g, chosen.params, strats, chosen.labels, seed, on_step=trace.hook,
                             state=chosen.state)
    except StrategyError as e:
        if e.kind == "hung":
            one_line_error(f"{e} (--game-timeout {game_timeout:g} s; game seed {e.game_seed}); give a larger "
                           "--game-timeout, or 0 for no limit", 1)
        if debug and e.details:
            click.echo(e.details, err=True)
        one_line_error(f"{e} (game seed {e.game_seed})" + ("" if debug or not e.details else "; --debug shows "
                                                                                        "the full traceback"), 1)
    except GameFailure as e:
        one_line_error(f"{e} (game seed {e.game_seed})", 1)


def _print_outcome(g, final, labels: list[str], seed: int, as_json: bool) -> None:
    """The final state, scores and winners (with the tie-break that decided them): readable, or
    one JSON line."""
    scores, winners = g.scores(final), g.winners(final)
    decided_by = g.tie_break_reason(final, scores, winners)
    if as_json:
        click.echo(json.dumps({"final": g.state_to_dict(final), "scores": scores, "winners": winners,
                               "decided_by": decided_by, "game_seed": seed, "lineup": labels}))
        return
    click.echo(g.describe_state(final))
    click.secho("Final scores: " + ", ".join(f"seat {i} ({labels[i]}) {s}" for i, s in enumerate(scores)),
                bold=True)
    names = " and ".join(f"seat {w} ({labels[w]})" for w in winners)
    click.secho(("Shared win: " if len(winners) > 1 else "Winner: ") + names
                + (f", by the tie-break: {decided_by}" if decided_by else ""), bold=True)


def _refuse_experiment(folder: Path, config) -> None:
    """InputError when ``config`` (the config.json of ``folder``) is an experiment's record (any
    ``kind``: a sweep, tournament, comparison, ladder or tune, or a report rebuilt from one): one
    game index is played in each of its cells, so the line names the cells' run folders, each of
    which ``--from`` accepts."""
    kind = config.get("kind") if isinstance(config, dict) else None
    if kind is None or kind == "run":
        return
    name = KIND_NAMES.get(kind, "experiment") if isinstance(kind, str) else "experiment"
    cells = config.get("cells") if isinstance(config.get("cells"), list) else []
    folders = [str(Path(folder) / c["folder"]) for c in cells
               if isinstance(c, dict) and cell_folder_ok(c.get("folder"))
               and (Path(folder) / c["folder"] / "config.json").is_file()]
    if folders:
        shown = ", ".join(shlex.quote(f) for f in folders[:3])
        shown += f" ... ({len(folders)} in all)" if len(folders) > 3 else ""
        raise InputError(f"--from {str(folder)!r} is a {name} folder, not a run's: one game index is played in "
                         f"each of its cells, which are run folders ({shown}); give one of them as --from")
    raise InputError(f"--from {str(folder)!r} is a {name} folder, not a run's: one game index is played in each "
                     "of its cells; give a simulate run's folder, or replay one row with analyser play GAME -s ... "
                     "--seed GAME_SEED (its game_seed column)")


def _replay_from(folder: Path, game: str | None, index: int | None, trust: bool = False):
    """(game id, strategy per seat, rule overrides, game seed, game time limit) of game ``index``
    of the run in ``folder``, from its config.json.  InputError when the folder, the title or the
    index does not fit, or when the run names a title or strategy file that the command line does
    not allow (GAME naming the title file, or ``--trust``; :mod:`analyser.run.trust`)."""
    if index is None:
        raise InputError("--from needs --game-index N (the game_index column of the run's results)")
    if not Path(folder).is_dir():
        what = "is a file" if Path(folder).exists() else "does not exist"
        raise InputError(f"--from {str(folder)!r} {what}; give the folder of an analyser run")
    if not (Path(folder) / "config.json").exists():
        raise InputError(f"--from {str(folder)!r} holds no config.json; give the folder of an analyser run")
    config = read_config_file(Path(folder) / "config.json")
    _refuse_experiment(folder, config)
    need = {"game", "seed", "strategies", "players"}
    if not isinstance(config, dict) or not need <= set(config):
        raise InputError(f"--from {str(folder)!r}: config.json is not an analyser run's (it lacks "
                         f"{', '.join(sorted(need - set(config if isinstance(config, dict) else {})))})")
    def whole(v):
        return isinstance(v, int) and not isinstance(v, bool)
    kinds_ok = (isinstance(config["game"], str) and len(config["game"]) <= 40 and whole(config["seed"])
                and config["seed"] >= 0 and whole(config["players"]) and 1 <= config["players"] <= 100
                and isinstance(config["strategies"], list) and 0 < len(config["strategies"]) <= 100
                and all(isinstance(x, str) for x in config["strategies"])
                and isinstance(config.get("rule_overrides") or {}, dict)
                and isinstance(config.get("title_source") or "", str)
                and all(whole(config.get(k) or 0) for k in ("games_requested", "games_completed")))
    if not kinds_ok:
        raise InputError(f"--from {str(folder)!r}: config.json is not an analyser run's (a field has the wrong type)")
    if game is not None and is_title_file(game) and not isinstance(config.get("title_source"), str):
        raise InputError(f"--from {str(folder)!r} is a run of the registered title {config['game']!r}; leave GAME out")
    titles = (game,) if game is not None and is_title_file(game) else ()
    config = guard_folder_config(config, folder, Allowed(trust=trust, titles=titles, strategy_flag=None,
                                                         title_flag="the title file as GAME:")).config
    if game is not None and game != config["game"] and get_game(game).id != config["game"]:
        raise InputError(f"--from {str(folder)!r} is a {config['game']} run, not {game}; leave GAME out")
    total = config.get("games_requested") or config.get("games_completed") or 0
    if not 0 <= index < total:
        raise InputError(f"--game-index {index} is not accepted; the run has games 0 to {total - 1}")
    strategies = list(config["strategies"])
    players = int(config["players"])
    labels = [strategies[i] for i in lineup(index, players, len(strategies))]
    # a title loaded from a file is named by its file (title_source), which loads in any process
    title = config.get("title_source") or config["game"]
    timeout = config.get("game_timeout", GAME_TIMEOUT)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 <= timeout < float("inf"):
        timeout = GAME_TIMEOUT
    return (title, labels, dict(config.get("rule_overrides") or {}), game_seed(int(config["seed"]), index),
            float(timeout))
