"""``analyser check TITLE``: the conformance kit.  Plays random games and checks the contract every
title must keep, built-in or a designer's own.

The checks are :data:`CHECKS` (what each promises: docs/own-game.md); each failure is one line
naming the game seed, the player count and the step.  Views are compared as plain data
(:func:`analyser.kit.views.view_data`).
"""

from __future__ import annotations

import difflib
import hashlib
import inspect
import json
import math
import os
import random
import subprocess
import sys
from pathlib import Path
from dataclasses import dataclass, field
from typing import Any, Callable

from analyser.engine.core import Game, InputError, StrategyError
from analyser.engine.registry import (GENERIC_STRATEGIES, available_strategies, get_game, rules_page, strategy_factory,
                                      title_ref)
from analyser.engine.runner import MAX_STEPS, GameFailure, game_seed, play_game
from analyser.engine.search import determinize_consistent, has_determinize
from analyser.kit.views import first_difference, view_data

#: The checks in the order they are reported, with what each one promises.
CHECKS = {
    "legal": "every running state has legal actions, all distinct, for a seat of the game",
    "apply": "applying a legal action never raises",
    "invariants": "the title's invariants hold during and at the end of every game",
    "bound": "every game ends within the declared step bound",
    "replay": "the same game seed gives the same trace twice in one process",
    "process": "the same game seed gives the same trace in a fresh process",
    "json": "states round-trip through JSON and a resumed game continues identically",
    "hidden": "a seat's view is unchanged when only what it cannot see is redrawn",
    "determinize": "determinize(view, rng) builds a state with the same view (titles that have it)",
    "results": "scores are finite, winners are among the seats, metrics are declared",
    "strategies": "the title's strategies play whole games without changing the state through their view",
}

#: Check the hidden information at every HIDDEN_EVERY-th step (and at most HIDDEN_PER_GAME times a game).
HIDDEN_EVERY = 5
HIDDEN_PER_GAME = 8
#: Check the title's invariants at every INVARIANTS_EVERY-th step (and at the end of every game).
INVARIANTS_EVERY = 3
#: Games each of the title's own strategies plays in the ``strategies`` check.
STRATEGY_GAMES = 2
#: At most this many failure lines are kept per check.
MAX_LINES = 10


@dataclass
class Failure:
    """One failed check: ``kind`` (a key of :data:`CHECKS`), the game seed, player count and step
    (None when not about one step), and a one-line message."""

    kind: str
    message: str
    game_seed: int | None = None
    players: int | None = None
    step: int | None = None

    def line(self) -> str:
        where = []
        if self.game_seed is not None:
            where.append(f"game seed {self.game_seed}" + (f" ({self.players} players)" if self.players else ""))
        if self.step is not None:
            where.append(f"step {self.step}")
        return (", ".join(where) + ": " if where else "") + " ".join(str(self.message).split())


@dataclass
class CheckResult:
    """What :func:`check_title` found: ``done[kind]`` counts the checks made, ``failed[kind]`` the
    failures (``failures`` keeps the first :data:`MAX_LINES` of each kind)."""

    title: str
    games: int
    steps: int = 0
    done: dict[str, int] = field(default_factory=lambda: {k: 0 for k in CHECKS})
    failed: dict[str, int] = field(default_factory=lambda: {k: 0 for k in CHECKS})
    failures: list[Failure] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)
    hidden_undeclared: bool = False
    #: what the title may have meant otherwise (a misspelt hook, the skeleton's rules page): one
    #: line each; warnings do not fail the check
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not any(self.failed.values())

    def add(self, failure: Failure) -> None:
        self.failed[failure.kind] += 1
        if self.failed[failure.kind] <= MAX_LINES:
            self.failures.append(failure)


class _Stop(Exception):
    """Ends one game's checks after its first failure (later steps would only repeat it)."""


# --------------------------------------------------------------------------------------------
# Playing
# --------------------------------------------------------------------------------------------

def _state_json(game: Game, state) -> str:
    return json.dumps(game.state_to_dict(state), sort_keys=True)


def _hashable(action) -> bool:
    try:
        hash(action)
    except TypeError:
        return False
    return True


@dataclass(frozen=True)
class _Midgame:
    """Where a checked game goes on from: its state, its chance and pick streams, and the number
    of steps played to reach it."""
    state: Any
    chance: random.Random
    pick: random.Random
    step: int


def _play(game: Game, params, n: int, gs: int, *, stop_at: int | None = None, start: _Midgame | None = None,
          on_state: Callable | None = None, states: list | None = None):
    """Play uniformly random legal actions from a new game (or from ``start``) to the end, or
    until ``stop_at`` steps have been played.

    Returns ``(trace, state, chance, pick, step)``; ``trace`` lists ``(seat, action as JSON)``.
    ``on_state(state, step, seat, legal)`` runs before each action (the checks hook in there);
    ``states``, when given, collects a hash of the state's JSON before each action.
    """
    if start is None:
        chance = random.Random(gs)
        pick = random.Random(f"{gs}/check")
        state, step = game.initial_state(params, n, chance), 0
    else:
        state, chance, pick, step = start.state, start.chance, start.pick, start.step
    declared = game.step_bound(params, n)
    bound = MAX_STEPS if declared is None else min(int(declared), MAX_STEPS)
    trace = []
    while not game.is_terminal(state):
        if stop_at is not None and step >= stop_at:
            break
        if step >= bound:
            raise _Bound(step, bound)
        seat, legal = game.current_player(state), list(game.legal_actions(state))
        if states is not None:
            states.append(hashlib.sha1(_state_json(game, state).encode()).hexdigest())
        if on_state is not None:
            on_state(state, step, seat, legal)
        if not legal:
            raise _NoLegal(step)
        action = legal[pick.randrange(len(legal))] if len(legal) > 1 else legal[0]
        trace.append((seat, json.dumps(game.action_to_json(action), sort_keys=True)))
        step += 1
        try:
            game.apply(state, action, chance)
        except Exception as e:
            raise _ApplyFailed(step, action, e) from None
    return trace, state, chance, pick, step


class _Bound(Exception):
    def __init__(self, step, bound):
        self.step, self.bound = step, bound


class _NoLegal(Exception):
    def __init__(self, step):
        self.step = step


class _ApplyFailed(Exception):
    def __init__(self, step, action, error):
        self.step, self.action, self.error = step, action, error


def _trace_hash(trace, final_json: str) -> str:
    return hashlib.sha256(json.dumps([trace, final_json]).encode()).hexdigest()


def trace_hashes(ref: str, rules: dict[str, str], games: list[tuple[int, int]]) -> list[str | None]:
    """SHA-256 of the trace and final state of each ``(game seed, players)`` game (None when the
    game failed); run in a fresh process by the ``process`` check."""
    game = get_game(ref)
    params = game.Params.from_overrides(rules)
    out = []
    for gs, n in games:
        try:
            trace, state, *_ = _play(game, params, n, gs)
            out.append(_trace_hash(trace, _state_json(game, state)))
        except Exception:
            out.append(None)
    return out


# --------------------------------------------------------------------------------------------
# The checks
# --------------------------------------------------------------------------------------------

def _check_hidden(game: Game, result: CheckResult, state, step: int, seat_to_act: int, legal, rng,
                  where: dict) -> bool:
    """The ``hidden`` check (and the ``determinize`` hook's, :func:`_check_determinize`) for every
    seat at one state; False after a failure (the game goes on, without further checks of hidden
    information)."""
    n = where["players"]
    for seat in range(n):
        before = view_data(game.view(state, seat))
        try:
            other = game.resample_hidden(state, seat, rng)
        except NotImplementedError:
            result.hidden_undeclared = True
            result.add(Failure("hidden", "the title declares no resample_hidden(state, seat, rng), so what its "
                                         "views hide cannot be checked; return a copy of the state with what "
                                         "the seat cannot see drawn again (a copy, if nothing is hidden)"))
            return False
        except Exception as e:
            result.add(Failure("hidden", f"resample_hidden(state, seat {seat}) raised {type(e).__name__}: {e}",
                               step=step, **where))
            return False
        result.done["hidden"] += 1
        after = view_data(game.view(other, seat))
        if after != before:
            result.add(Failure("hidden", f"seat {seat}'s view changed when only what it cannot see was redrawn "
                                         f"(at {first_difference(before, after)}): the view shows hidden "
                                         "information, or resample_hidden changed something the seat sees",
                               step=step, **where))
            return False
        if seat == seat_to_act and list(game.legal_actions(other)) != legal:
            result.add(Failure("hidden", f"the legal actions of seat {seat} (to act) changed when only what it "
                                         "cannot see was redrawn: they depend on hidden information",
                               step=step, **where))
            return False
        try:
            game.check_invariants(other)
        except AssertionError as e:
            result.add(Failure("hidden", f"the state resample_hidden made for seat {seat} breaks an invariant: "
                                         f"{e}", step=step, **where))
            return False
        at = SeatAt(state, step, seat, seat_to_act, legal, before)
        if not _check_determinize(game, result, at, rng, where):
            return False
    return True


@dataclass(frozen=True)
class SeatAt:
    """One seat at one state of a checked game, as the ``determinize`` check sees it: the state, the step,
    the seat and the seat to act, the legal actions and the seat's view data
    (:func:`analyser.kit.views.view_data`)."""
    state: Any
    step: int
    seat: int
    seat_to_act: int
    legal: list
    before: Any


def _check_determinize(game: Game, result: CheckResult, at: SeatAt, rng, where: dict) -> bool:
    """The ``determinize(view, rng) -> state`` hook, when the title has one: the state it builds
    from a seat's view must show that seat the same view, offer the same legal actions when the
    seat is to act, and pass ``check_invariants``.  False after a failure."""
    state, step, seat = at.state, at.step, at.seat
    if not has_determinize(game):  # the base class's determinize only raises NotImplementedError
        return True
    determinize = game.determinize
    try:
        built = determinize(game.view(state, seat), rng)
        game.check_invariants(built)
    except Exception as e:
        result.add(Failure("determinize", f"determinize(view of seat {seat}, rng) failed: {type(e).__name__}: {e}",
                           step=step, **where))
        return False
    result.done["determinize"] += 1
    after = view_data(game.view(built, seat))
    if after != at.before:
        result.add(Failure("determinize", f"the state determinize built from seat {seat}'s view shows that seat "
                                          f"another view (at {first_difference(at.before, after)})", step=step, **where))
        return False
    if seat == at.seat_to_act and list(game.legal_actions(built)) != at.legal:
        result.add(Failure("determinize", f"the state determinize built from seat {seat}'s view offers other "
                                          "legal actions", step=step, **where))
        return False
    # the search player's own check: also the same scores, the view left unchanged, and no data
    # shared between the built state and the real one
    problems = determinize_consistent(game, state, seat, rng)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        result.add(Failure("determinize", f"determinize from seat {seat}'s view: {problems[0]}{more}",
                           step=step, **where))
        return False
    return True


def _check_results(game: Game, result: CheckResult, state, n: int, step: int, where: dict) -> None:
    result.done["results"] += 1
    try:
        scores = list(game.scores(state))
        winners = list(game.winners(state))
        ranks = list(game.ranks(state))
        metrics = game.metrics(state)
    except Exception as e:
        result.add(Failure("results", f"scoring the finished game raised {type(e).__name__}: {e}", step=step, **where))
        return
    problem = None
    if len(scores) != n:
        problem = f"scores has {len(scores)} entries for {n} seats"
    elif not all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in scores):
        problem = f"a score is not a finite number: {scores}"
    elif not winners or sorted(set(winners)) != winners or not all(isinstance(w, int) and 0 <= w < n for w in winners):
        problem = f"the winners {winners} are not distinct seats 0-{n - 1} in ascending order"
    elif len(ranks) != n or any(ranks[w] != 1 for w in winners):
        problem = f"the ranks {ranks} do not give the winners {winners} rank 1"
    elif len(metrics) != n:
        problem = f"metrics has {len(metrics)} entries for {n} seats"
    else:
        for seat, m in enumerate(metrics):
            missing = [c for c in tuple(game.metric_columns) + ("turns",) if c not in m]
            if missing:
                problem = f"metrics of seat {seat} lack the declared columns {', '.join(missing)}"
                break
    if problem:
        result.add(Failure("results", problem, step=step, **where))


def _one_game(game: Game, params, n: int, gs: int, result: CheckResult) -> str | None:
    """All in-process checks of one game; returns the hash of its trace (None if it failed)."""
    where = {"game_seed": gs, "players": n}
    hidden_rng = random.Random(f"{gs}/hidden")
    seen = {"hidden": 0}

    def on_state(state, step, seat, legal):
        result.done["legal"] += 1
        if not 0 <= seat < n:
            result.add(Failure("legal", f"the seat to act is {seat!r}, not one of the {n} seats", step=step, **where))
            raise _Stop
        unhashable = next((a for a in legal if not _hashable(a)), None)
        if unhashable is not None:
            result.add(Failure("legal", f"the legal action {unhashable!r} is a {type(unhashable).__name__}, which "
                                        "cannot be hashed: actions are plain values (a tuple, not a list)",
                               step=step, **where))
            raise _Stop
        if len(set(legal)) != len(legal):  # (every action hashable: checked above)
            result.add(Failure("legal", "the legal actions are not distinct: "
                                        + ", ".join(game.describe_action(a) for a in legal[:12]), step=step, **where))
            raise _Stop
        if step > 0 and step % INVARIANTS_EVERY == 0:
            result.done["invariants"] += 1
            try:
                game.check_invariants(state)
            except Exception as e:
                result.add(Failure("invariants", f"{type(e).__name__}: {e or 'check_invariants failed'}",
                                   step=step, **where))
                raise _Stop from None
        # every HIDDEN_EVERY-th step from an offset that varies by game, so short games and every
        # phase of a game are visited
        if legal and step % HIDDEN_EVERY == gs % HIDDEN_EVERY and seen["hidden"] < HIDDEN_PER_GAME \
                and not result.hidden_undeclared:
            seen["hidden"] += 1
            if not _check_hidden(game, result, state, step, seat, legal, hidden_rng, where):
                seen["hidden"] = HIDDEN_PER_GAME

    try:
        try:
            trace, state, _, _, steps = _play(game, params, n, gs, on_state=on_state)
        except _NoLegal as e:
            result.add(Failure("legal", "no legal action, but the game is not over", step=e.step, **where))
            return None
        except _ApplyFailed as e:
            result.add(Failure("apply", f"apply({game.describe_action(e.action)}) raised "
                                        f"{type(e.error).__name__}: {e.error}", step=e.step, **where))
            return None
        except _Bound as e:
            result.add(Failure("bound", f"the game did not end within its step bound of {e.bound:,} actions",
                               step=e.step, **where))
            return None
        except _Stop:
            return None
        except Exception as e:  # the rules failed outside apply (initial_state, legal_actions, view)
            result.add(Failure("apply", f"the rules raised {type(e).__name__}: {e}", **where))
            return None
        result.steps += steps
        result.done["apply"] += steps
        result.done["bound"] += 1
        try:
            game.check_invariants(state)
        except Exception as e:
            result.add(Failure("invariants", f"at the end: {type(e).__name__}: {e}", step=steps, **where))
            return None
        _check_results(game, result, state, n, steps, where)
        final = _state_json(game, state)
        if list(game.legal_actions(state)):
            result.add(Failure("legal", "the game is over but legal_actions is not empty", step=steps, **where))
        _check_replay_and_resume(game, params, n, gs, trace, final, result, where)
        return _trace_hash(trace, final)
    except _Stop:
        return None


def _first_divergence(game: Game, params, n: int, gs: int) -> int | None:
    """Two more runs of the seed, with a hash of every state: the first step where they
    differ (None when these two agree)."""
    runs = []
    for _ in range(2):
        states: list = []
        try:
            trace, end, *_ = _play(game, params, n, gs, states=states)
            states.append(hashlib.sha1(_state_json(game, end).encode()).hexdigest())
        except Exception:
            pass
        runs.append(states)
    return next((i for i, (x, y) in enumerate(zip(*runs)) if x != y),
                None if len(runs[0]) == len(runs[1]) else min(map(len, runs)))


def _check_replay_and_resume(game: Game, params, n: int, gs: int, trace, final: str,
                             result: CheckResult, where: dict) -> None:
    """Play the game again (every action and the final state must repeat); on the way, save the
    state as JSON at a step drawn at random and load it back (the JSON must repeat), then play
    on from the loaded state with the same random streams (the rest must repeat too)."""
    at = random.Random(f"{gs}/resume").randrange(len(trace) + 1)
    result.done["replay"] += 1
    try:
        head, state, chance, pick, _ = _play(game, params, n, gs, stop_at=at)
        saved, streams = _state_json(game, state), (chance.getstate(), pick.getstate())
        tail, end, *_ = _play(game, params, n, gs, start=_Midgame(state, chance, pick, at))
        end_json = _state_json(game, end)
    except Exception as e:
        result.add(Failure("replay", f"the second run of the same seed failed: {type(e).__name__}: "
                                     f"{getattr(e, 'error', e)}", step=getattr(e, "step", None), **where))
        return
    if head + tail != trace or end_json != final:
        t = _first_divergence(game, params, n, gs)
        if t is None:
            t = next((i for i, (x, y) in enumerate(zip(head + tail, trace)) if x != y), min(len(trace), len(head + tail)))
        result.add(Failure("replay", "the second run of the same seed went differently: the rules use randomness "
                                     "other than the rng they are given, or an order that varies (a set, a dict of "
                                     "objects)", step=t, **where))
        return
    result.done["json"] += 1
    try:
        loaded = game.state_from_dict(json.loads(saved))
        resaved = _state_json(game, loaded)
    except Exception as e:
        result.add(Failure("json", f"loading the state saved as JSON failed: {type(e).__name__}: {e}",
                           step=at, **where))
        return
    if resaved != saved:
        a, b = json.loads(saved), json.loads(resaved)
        keys = [k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
        result.add(Failure("json", f"the state loaded from JSON saves differently (keys: {', '.join(keys)})",
                           step=at, **where))
        return
    chance, pick = random.Random(), random.Random()
    chance.setstate(streams[0])
    pick.setstate(streams[1])
    try:
        rest, end, *_ = _play(game, params, n, gs, start=_Midgame(loaded, chance, pick, at))
        end_json = _state_json(game, end)
    except Exception as e:
        result.add(Failure("json", f"the game resumed from its saved state failed: {type(e).__name__}: "
                                   f"{getattr(e, 'error', e)}", step=getattr(e, "step", at), **where))
        return
    if rest != trace[at:] or end_json != final:
        t = next((i for i, (x, y) in enumerate(zip(rest, trace[at:])) if x != y), len(rest))
        result.add(Failure("json", f"the game resumed from the state saved at step {at} continues differently "
                                   "(the JSON leaves out something the rules use)", step=at + t, **where))


def _check_fresh_process(game: Game, ref: str, rules: dict[str, str], plan, hashes, result: CheckResult) -> None:
    games = [(gs, n) for (gs, n), d in zip(plan, hashes) if d is not None]
    if not games:
        return
    env = dict(os.environ)
    env["PYTHONHASHSEED"] = str((int(env["PYTHONHASHSEED"]) + 1) if env.get("PYTHONHASHSEED", "").isdigit() else 1)
    # the child imports this very analyser (also from a source tree that is not installed)
    here = str(Path(__file__).resolve().parents[2])  # the folder holding the analyser package
    env["PYTHONPATH"] = os.pathsep.join([here] + [x for x in env.get("PYTHONPATH", "").split(os.pathsep) if x])
    code = ("import json, sys; from analyser.kit.check import trace_hashes; "
            "print(json.dumps(trace_hashes(*json.loads(sys.argv[1]))))")
    try:
        out = subprocess.run([sys.executable, "-P", "-c", code, json.dumps([ref, rules, games])], capture_output=True,
                             text=True, env=env, timeout=3600)
        theirs = json.loads(out.stdout.strip().splitlines()[-1])
    except Exception as e:
        result.add(Failure("process", f"the fresh process could not replay the games: {type(e).__name__}: {e}"))
        return
    mine = [d for d in hashes if d is not None]
    for (gs, n), a, b in zip(games, mine, theirs):
        result.done["process"] += 1
        if a != b:
            result.add(Failure("process", "a fresh process played this seed differently (the rules depend on "
                                          "the hash seed, e.g. iterating a set of strings, or on the clock)",
                               game_seed=gs, players=n))


class _Mutated(Exception):
    pass


class _Watched:
    """Wraps a strategy: the game state (``holder["state"]``) must be the same after ``choose``."""

    def __init__(self, inner, game: Game, holder: dict):
        self.inner, self.game, self.holder = inner, game, holder
        self.uses_rng = getattr(inner, "uses_rng", True)
        # where the strategy's own code lives, so an error names its file and line, not this one
        self.fn = getattr(inner, "fn", None) or type(inner)

    def reset(self, seat, params, n_players):
        reset = getattr(self.inner, "reset", None)
        if reset is not None:
            reset(seat, params, n_players)

    def choose(self, view, legal, rng):
        before = _state_json(self.game, self.holder["state"])
        action = self.inner.choose(view, legal, rng)
        after = _state_json(self.game, self.holder["state"])
        if after != before:  # reported by the game loop's step hook, outside the strategy's call
            a, b = json.loads(before), json.loads(after)
            keys = [k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
            self.holder["mutated"] = f"changed the game state through its view ({', '.join(keys)} changed)"
        return action


def _check_strategies(game: Game, ref: str, params, root: int, result: CheckResult, counts: list[int]) -> None:
    """Each of the title's own strategies fills every seat for :data:`STRATEGY_GAMES` games at the
    title's usual player count, or the first of ``counts`` (those the rules accept) when the rules
    refuse it; it must not raise, return an illegal action, or change the state while it chooses."""
    try:  # the title's own: not the generic ones (mcts), which play through determinize, checked above
        names = [name for name in available_strategies(ref) if name not in GENERIC_STRATEGIES]
    except InputError as e:
        result.add(Failure("strategies", f"the title's strategies failed to load: {e}"))
        return
    n = game.default_players if game.default_players in counts else counts[0]
    for k, name in enumerate(names):
        try:
            build = strategy_factory(name, ref)
        except InputError as e:
            result.add(Failure("strategies", str(e)))
            continue
        for g in range(STRATEGY_GAMES):
            gs = game_seed(root, 1_000_000 + k * STRATEGY_GAMES + g)
            holder: dict[str, Any] = {"step": 0}

            def count(state, seat, action):
                holder["step"] += 1
                if "mutated" in holder:
                    raise _Mutated(f"strategy {name!r} in seat {seat} {holder['mutated']}")

            result.done["strategies"] += 1
            try:
                state = holder["state"] = game.initial_state(params, n, random.Random(gs))
                strats = [_Watched(build(), game, holder) for _ in range(n)]
                play_game(game, params, strats, [name] * n, gs, state=state, on_step=count)
            except _Mutated as e:
                result.add(Failure("strategies", str(e), game_seed=gs, players=n, step=holder["step"]))
                break
            except StrategyError as e:
                result.add(Failure("strategies", str(e), game_seed=gs, players=n, step=holder["step"] + 1))
                break
            except GameFailure:
                break  # the rules failed, not the strategy: the checks of the rules report that
            except Exception as e:
                result.add(Failure("strategies", f"a game of strategy {name!r} failed: {type(e).__name__}: {e}",
                                   game_seed=gs, players=n, step=holder["step"] + 1))
                break


def check_title(ref: str, *, games: int = 200, seed: int = 1, players: int | None = None,
                rules: dict[str, str] | None = None, game_seeds: list[int] | None = None,
                fresh_process: bool = True, strategies: bool = True) -> CheckResult:
    """Run every check on the title ``ref`` (an id, a title file or a folder).

    Plays ``games`` random games (game ``i`` has the game seed ``game_seed(seed, i)`` and, unless
    ``players`` is given, cycles through the title's least, usual and greatest player counts),
    or exactly the given ``game_seeds``.  Raises :class:`InputError` for a bad title, rule or
    player count; everything the title does wrong is in the result.
    """
    game = get_game(ref)
    ref = title_ref(game)
    rules = dict(rules or {})
    game.check_declarations()
    params = game.Params.from_overrides(rules)
    if players is not None:
        game.check_players(params, players)
        counts = [players]
    else:
        counts = _accepted(game, params, sorted({game.min_players, game.default_players, game.max_players}))
        if not counts:
            raise InputError(f"no player count from {game.min_players} to {game.max_players} is accepted under "
                             "these rules; give --players")
    if game_seeds:
        plan = [(gs, counts[i % len(counts)]) for i, gs in enumerate(game_seeds)]
    else:
        if not 0 < games <= 1_000_000:
            raise InputError(f"--games {games} is not accepted; give 1 to 1,000,000")
        plan = [(game_seed(seed, i), counts[i % len(counts)]) for i in range(games)]
    result = CheckResult(title=game.id, games=len(plan))
    hashes = [_one_game(game, params, n, gs, result) for gs, n in plan]
    if fresh_process:
        _check_fresh_process(game, ref, rules, plan, hashes, result)
    else:
        result.skipped["process"] = "not run (--no-fresh-process)"
    if strategies:
        _check_strategies(game, ref, params, seed, result, _accepted(game, params, [game.default_players] + counts))
    else:
        result.skipped["strategies"] = "not run"
    if not has_determinize(game):  # the base class's determinize only raises NotImplementedError
        result.skipped.setdefault("determinize", "the title has no determinize(view, rng)")
    result.warnings = contract_warnings(game)
    return result


def _accepted(game: Game, params, counts: list[int]) -> list[int]:
    """The player counts of ``counts`` that ``game.check_players`` accepts under ``params``."""
    out = []
    for n in counts:
        try:
            game.check_players(params, n)
            out.append(n)
        except InputError:
            pass
    return out


#: The first words of the note ``analyser new`` puts at the top of the skeleton's rules page.
SKELETON_PAGE_NOTE = "> **The skeleton's page.**"


def contract_warnings(game: Game) -> list[str]:
    """One line for each public method of the title that the title contract does not know (a
    misspelt hook such as ``step_bnd`` is never called), with the contract's nearest name, and
    one when the rules page is still the skeleton's."""
    known = {name for name in dir(Game) if not name.startswith("_")}
    lines = []
    for cls in type(game).__mro__:
        if cls is Game or not issubclass(cls, Game) or cls.__module__.startswith("analyser.engine"):
            continue
        for name, value in vars(cls).items():
            if name.startswith("_") or name in known or not inspect.isfunction(value):
                continue
            near = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.75)
            lines.append(f"{cls.__name__}.{name} is not part of the title contract, so the engine never calls it"
                         + (f"; did you mean {near[0]}?" if near else "; if it is a helper, name it _" + name))
    page = rules_page(game)
    if page is not None and SKELETON_PAGE_NOTE in page.read_text(encoding="utf-8"):
        lines.append("the rules page is still the skeleton's (its note at the top says so): write your "
                     "game's rules there and delete the note")
    return lines


def format_result(result: CheckResult, game: Game) -> list[str]:
    """The report printed by ``analyser check``: one line per check, then each failure's line."""
    lines = []
    for kind, promise in CHECKS.items():
        if result.failed[kind]:
            lines.append(f"  FAIL  {kind:<11} {promise}: {result.failed[kind]} failure(s)")
            for f in [f for f in result.failures if f.kind == kind]:
                lines.append(f"        {f.line()}")
            if result.failed[kind] > MAX_LINES:
                lines.append(f"        ... and {result.failed[kind] - MAX_LINES} more")
        elif kind in result.skipped:
            lines.append(f"  skip  {kind:<11} {result.skipped[kind]}")
        elif result.done[kind] == 0:
            lines.append(f"  --    {kind:<11} not reached: every game stopped at an earlier failure")
        else:
            note = ""
            if kind == "bound" and game.step_bound(game.Params(), game.default_players) is None:
                note = f"; the title declares no step_bound, so the game loop's cap of {MAX_STEPS:,} applies"
            lines.append(f"  ok    {kind:<11} {promise} ({result.done[kind]:,} checked{note})")
    lines += [f"  warn  {w}" for w in result.warnings]
    return lines
