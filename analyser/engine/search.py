"""A generic search player for every title: single-observer information-set Monte Carlo tree
search (SO-ISMCTS; P. I. Cowling, E. J. Powley and D. Whitehouse, "Information Set Monte Carlo
Tree Search", IEEE Transactions on Computational Intelligence and AI in Games 4(2), 2012,
pp. 120-143: algorithm 3, with the availability counts of section IV).

For the seat that must decide, each iteration samples a full state from the seat's view with the
title's ``Game.determinize(view, rng)`` (the search never sees the real state), walks the one tree
all samples share (a node is the sequence of actions since the decision; chance is not a node:
"open loop"), choosing by UCB1 with availability counts among the actions legal in this sample,
expands one untried action at random, rolls out with the rollout policy (to the end of the game,
or of the round with ``horizon=round`` where the title declares ``Game.stage``) and adds each
seat's reward in [0, 1] to the nodes its choices lead to.  The action played is the root child
with the most visits (ties: the better mean reward, then the first legal action).  The
parameters, the rewards and the horizon: docs/mcts.md.

Every random number comes from the ``rng`` the game loop hands to ``choose``, so a fixed seed
gives identical games for any ``--jobs``, batch size or backend; ``time_ms`` budgets by the clock
and is not reproducible.  The optional hook ``determinizer`` (:func:`sampler`) makes sampling
cheaper without changing a decision; :func:`determinize_consistent` checks a title's hook.
"""

from __future__ import annotations

import copy
import math
import time
from typing import Any, Callable

from analyser.engine import derive
from analyser.engine.core import Game, InputError, Strategy, ranks_from
from analyser.engine.registry import get_game, strategy_factory

#: Largest iteration budget accepted (a guard against typos such as iterations=1000000000).
MAX_ITERATIONS = 10_000_000


def has_determinize(game: Game) -> bool:
    """Whether ``game`` provides the ``determinize(view, rng)`` hook (overrides the base one)."""
    return game.can_determinize


class _Node:
    """One tree node: the action sequence leading here, from the deciding seat's point of view.

    ``seat`` chose the action into the node; ``total`` sums that seat's rewards over ``visits``;
    ``avail`` counts the visits of the parent in which the action was legal (availability counts).
    """

    __slots__ = ("children", "visits", "avail", "total", "seat")

    def __init__(self, seat: int):
        self.children: dict[Any, _Node] = {}
        self.visits = 0
        self.avail = 1
        self.total = 0.0
        self.seat = seat


class MCTS(Strategy):
    """Information-set Monte Carlo tree search (Cowling, Powley and Whitehouse 2012): a strong
    generic player for any title with a determinize() hook.

    iterations: search iterations per decision (1 to 10,000,000); each samples the hidden
    information afresh, walks the shared tree and plays one rollout.
    c: UCB1 exploration constant (rewards lie in [0, 1]; 0.7 is about 1/sqrt(2)).
    rollout: the rollout policy: random, or a strategy of the title (write its parameters with /
    for : and + for , e.g. rollout=threshold/limit=8).
    reward: rank (from the seat's final rank; default) or score (the score scaled by the title's
    declared score range).
    horizon: game (roll out to the end) or round (stop at the end of the current round where the
    title declares rounds with stage(); elsewhere the same as game).
    time_ms: if above 0, search for this many milliseconds per decision instead of a fixed
    number of iterations (NOT reproducible: the count depends on the machine).
    """

    name = "mcts"
    game = None  # every title that provides determinize()
    param_bounds = {"iterations": (1, MAX_ITERATIONS), "c": (0, 100), "time_ms": (0, 3_600_000)}
    param_choices = {"reward": ("rank", "score"), "horizon": ("game", "round")}
    #: ``rollout`` names a strategy of the title (``analyser list TITLE`` shows which).
    param_strategies = ("rollout",)
    #: Parameters whose budget the clock decides (the work done depends on the machine and its
    #: load): an experiment that must be reproducible refuses to vary them (``analyser ladder``).
    clock_params = ("time_ms",)

    def __init__(self, iterations: int = 200, c: float = 0.7, rollout: str = "random",
                 reward: str = "rank", horizon: str = "round", time_ms: int = 0):
        if not 1 <= iterations <= MAX_ITERATIONS:
            raise InputError(f"mcts iterations={iterations} is not accepted; give 1 to {MAX_ITERATIONS:,}")
        if not 0 <= c <= 100:
            raise InputError(f"mcts c={c} is not accepted; give a number from 0 to 100")
        if reward not in ("rank", "score"):
            raise InputError(f"mcts reward={reward!r} is not accepted; choose rank or score")
        if horizon not in ("game", "round"):
            raise InputError(f"mcts horizon={horizon!r} is not accepted; choose game or round")
        if not 0 <= time_ms <= 3_600_000:
            raise InputError(f"mcts time_ms={time_ms} is not accepted; give 0 (use iterations) to 3,600,000")
        if not rollout.strip():
            raise InputError("mcts rollout='' is not accepted; give random or a strategy name")
        self.iterations = iterations
        self.c = c
        self.rollout = rollout
        self.reward = reward
        self.horizon = horizon
        self.time_ms = time_ms
        self._game: Game | None = None
        self._rollout_factory: Callable | None = None
        self._rollout_players: list | None = None
        self._range: tuple[float, float] | None = None
        self._last_stage: int | None = None

    # -- binding to a title (called by the registry) -----------------------------------------
    @staticmethod
    def unavailable_reason(game: Game) -> str | None:
        """Why ``mcts`` cannot play ``game`` (one line), or None when it can: the title must
        provide ``determinize``.  The registry offers ``mcts`` only for the titles it can play."""
        if has_determinize(game):
            return None
        return (f"mcts needs determinize(): the title {getattr(game, 'id', type(game).__name__)!r} does not "
                "provide Game.determinize(view, rng), so it cannot be searched")

    def bind(self, game_id: str) -> None:
        """Attach the title's forward model.  Raises InputError when the title has no
        ``determinize`` hook, when ``reward=score`` meets a title without a score range, or when
        the rollout strategy is unknown."""
        game = get_game(game_id)
        self.attach(game)
        spec = self.rollout.replace("/", ":").replace("+", ",")  # (so mcts:rollout=threshold/limit=8 parses)
        if spec != "random":
            if spec.split(":")[0] == "mcts":
                raise InputError("mcts rollout=mcts is not accepted; give random or a heuristic strategy")
            self._rollout_factory = strategy_factory(spec, game_id)

    def attach(self, game: Game) -> None:
        """Attach a :class:`Game` object directly (a title outside the registry, e.g. in tests);
        the rollout policy must then be ``random``.  Raises InputError as :meth:`bind`."""
        game_id = getattr(game, "id", type(game).__name__)
        reason = self.unavailable_reason(game)
        if reason is not None:
            raise InputError(reason)
        if self.reward == "score" and game.score_range is None:
            raise InputError(f"mcts reward=score needs a declared score range, which {game_id} does not "
                             "give; use reward=rank")
        self._game = game

    def reset(self, seat, params, n_players):
        super().reset(seat, params, n_players)
        self._range = None
        game = self._game
        self._last_stage = None if game.last_stage is None else game.last_stage(params, n_players)
        if self.reward == "score":
            lo, hi = game.score_range(params, n_players)
            self._range = (lo, max(hi - lo, 1e-9))
        if self._rollout_factory is not None:
            self._rollout_players = []
            for k in range(n_players):
                st = self._rollout_factory()
                if hasattr(st, "reset"):
                    st.reset(k, params, n_players)
                self._rollout_players.append(st)

    # -- the search --------------------------------------------------------------------------
    def choose(self, view, legal, rng):
        if len(legal) == 1:
            return legal[0]
        if self._game is None:
            raise RuntimeError("mcts is not bound to a title (build it with analyser.engine.registry.make_strategy)")
        children = self.search(view, rng).children
        tried = [a for a in legal if a in children]  # (max keeps the first of equal keys)
        if not tried:
            return legal[0]
        return max(tried, key=lambda a: (children[a].visits, children[a].total / children[a].visits))

    def search(self, view, rng) -> _Node:
        """Run the search from ``view`` and return the root node (children keyed by action)."""
        game = self._game
        stage = game.stage if self.horizon == "round" else None
        sample = sampler(game, view, stage is not None)
        last_stage = self._last_stage
        # (turn() is current_player() and legal_actions(); the seat is needed only to expand)
        turn, apply, legal_actions, current_player = game.turn, game.apply, game.legal_actions, game.current_player
        c = self.c
        log, sqrt, floor = math.log, math.sqrt, math.floor
        rnd = rng.random
        root = _Node(-1)
        root_stage = None
        root_scores = None
        deadline = time.perf_counter() + self.time_ms / 1000 if self.time_ms else None
        budget = self.iterations if deadline is None else MAX_ITERATIONS
        players = self._rollout_players
        rewards_of = self._rewards
        for it in range(budget):
            if deadline is not None and it and time.perf_counter() >= deadline:
                break
            state = sample(rng)
            if stage is not None and root_stage is None:
                root_stage = stage(state)
                if root_stage == last_stage:
                    stage = None  # the last stage: a rollout ends with the game, as horizon=game
                else:
                    root_scores = game.scores(state)
            node = root
            path = []
            # selection and expansion
            while True:
                acts = legal_actions(state)
                if not acts or (stage is not None and stage(state) != root_stage):
                    break
                children = node.children
                untried = None
                best = None
                best_value = -1.0
                get = children.get
                for a in acts:
                    child = get(a)
                    if child is None:
                        if untried is None:
                            untried = [a]
                        else:
                            untried.append(a)
                        continue
                    avail = child.avail = child.avail + 1
                    if untried is None:
                        visits = child.visits
                        value = child.total / visits + c * sqrt(log(avail) / visits)
                        if value > best_value:
                            best, best_value = child, value
                            best_action = a
                if untried is not None:
                    k = len(untried)
                    a = untried[0] if k == 1 else (untried[1] if rnd() >= 0.5 else untried[0]) if k == 2 else untried[floor(rnd() * k)]
                    child = _Node(current_player(state))
                    children[a] = child
                    path.append(child)
                    apply(state, a, rng)
                    break
                path.append(best)
                apply(state, best_action, rng)
                node = best
            # rollout (the same draws in the same order as one loop with both tests; split so the
            # common cases test only what they need)
            if players is None and stage is None:
                while True:
                    acts = legal_actions(state)
                    if not acts:
                        break
                    k = len(acts)
                    if k == 2:
                        apply(state, acts[1] if rnd() >= 0.5 else acts[0], rng)
                    else:
                        apply(state, acts[floor(rnd() * k)] if k > 1 else acts[0], rng)
            elif players is None:
                while True:
                    acts = legal_actions(state)
                    if not acts or stage(state) != root_stage:
                        break
                    k = len(acts)
                    if k == 2:
                        apply(state, acts[1] if rnd() >= 0.5 else acts[0], rng)
                    else:
                        apply(state, acts[floor(rnd() * k)] if k > 1 else acts[0], rng)
            else:
                view_of = game.view
                while True:
                    seat, acts = turn(state)
                    if not acts or (stage is not None and stage(state) != root_stage):
                        break
                    a = acts[0] if len(acts) == 1 else players[seat].choose(view_of(state, seat), acts, rng)
                    apply(state, a, rng)
            # back-up
            rewards = rewards_of(state, root_scores)
            for node in path:
                node.visits += 1
                node.total += rewards[node.seat]
        return root

    def _rewards(self, state, root_scores) -> list[float]:
        """Each seat's reward in [0, 1] at the end of a rollout (see the module docstring)."""
        game = self._game
        if self._range is not None:
            lo, span = self._range
            return [min(1.0, max(0.0, (s - lo) / span)) for s in game.scores(state)]
        if game.is_terminal(state) or root_scores is None:
            ranks = game.ranks(state)
        else:  # ranked by the points gained since the decision, the top gain winning
            gained = [a - b for a, b in zip(game.scores(state), root_scores)]
            top = max(gained)
            ranks = ranks_from(gained, [i for i, g in enumerate(gained) if g == top])
        n = len(ranks)
        return [(n - r) / (n - 1) for r in ranks]


def sampler(game: Game, view, stop_at_stage: bool = False) -> Callable[[Any], Any]:
    """``sample(rng) -> state`` for one decision's search: the title's optional
    ``determinizer(view, stop_at_stage)`` hook when it has one (it works out once what does not
    depend on ``rng``), else ``determinize(view, rng)`` each time.  Either way a sample equals
    ``determinize(view, rng)`` and draws the same random numbers; with ``stop_at_stage`` (a search
    that stops where ``stage()`` changes) a title's sample may end its stage without setting the
    next one up, provided it draws the random numbers that set-up would, ``stage()`` then names
    the next stage and ``scores()`` / ``is_terminal()`` / ``ranks()`` answer as the full state
    would."""
    make = own_hook(game, "determinizer", "determinize")
    if make is not None:
        return make(view, stop_at_stage)
    if game.State is not None and type(game).determinize is Game.determinize:
        return derive.sampler(view)  # the derived determinize, its pool sorted once
    determinize = game.determinize
    return lambda rng: determinize(view, rng)


def own_hook(game: Game, hook: str, *covers: str):
    """``game``'s bound method ``hook``, or None when it has none or when a subclass overrides
    one of the methods it stands in for (``covers``) without overriding the hook too: a
    ``determinizer`` stands in for ``determinize``, so a subclass that changes that is searched
    through it."""
    def owner(name):
        return next((k for k in type(game).__mro__ if name in vars(k)), None)
    home = owner(hook)
    if home is None or any(owner(name) is not home for name in covers):
        return None
    return getattr(game, hook)


# --------------------------------------------------------------------------------------------
# Checking a title's determinize hook
# --------------------------------------------------------------------------------------------

_NAMES: dict[type, tuple[str, ...]] = {}


def public_names(obj) -> list[str]:
    """The public data attribute names of ``obj``: its classes' slots and properties and its own
    instance attributes whose names do not start with ``_`` (cached per class but the last)."""
    cls = type(obj)
    names = _NAMES.get(cls)
    if names is None:
        found: dict[str, None] = {}
        for klass in reversed(cls.__mro__):
            slots = vars(klass).get("__slots__", ())
            found.update(dict.fromkeys((slots,) if isinstance(slots, str) else slots))
            found.update((name, None) for name, value in vars(klass).items() if isinstance(value, property))
        names = _NAMES[cls] = tuple(n for n in found if not n.startswith("_"))
    if hasattr(obj, "__dict__"):
        return list(names) + [n for n in vars(obj) if not n.startswith("_") and n not in names]
    return list(names)


def public_signature(view) -> dict[str, Any]:
    """Every public data attribute of a view (:func:`public_names`; methods left out), as a
    name -> value dict, for comparing two views."""
    out = {}
    for name in public_names(view):
        try:
            value = getattr(view, name)
        except AttributeError:
            continue
        if not callable(value):
            out[name] = value
    return out


def determinize_consistent(game: Game, state, seat: int, rng) -> list[str]:
    """Check ``game.determinize`` on one state: a list of problems, empty when all is well.

    The sample ``determinize(game.view(state, seat), rng)`` must show ``seat`` the same view
    (:func:`public_signature`), seat to move and (``seat``'s turn) legal actions, pass
    ``check_invariants``, leave the view it was shown unchanged and share no mutable data with the
    real state.  Raises nothing for a faulty hook: an exception inside it is a problem.
    """
    if not has_determinize(game):
        return [f"{game.id} does not provide determinize(view, rng)"]
    view = game.view(state, seat)
    before = copy.deepcopy(public_signature(view))
    try:
        sample = game.determinize(view, rng)
    except Exception as e:
        return [f"determinize raised {type(e).__name__}: {e}"]
    problems = []
    if sample is state:
        return ["determinize returned the real state itself"]
    after = public_signature(view)
    for name in before:
        if before[name] != after.get(name):
            problems.append(f"determinize changed the view's {name!r}")
    mine = public_signature(game.view(sample, seat))
    for name, value in before.items():
        if name not in mine:
            problems.append(f"the sample's view has no {name!r}")
        elif mine[name] != value:
            problems.append(f"the sample's view differs in {name!r}: {mine[name]!r} instead of {value!r}")
    real_seat, real_legal = game.turn(state)
    sample_seat, sample_legal = game.turn(sample)
    if real_seat != sample_seat:
        problems.append(f"seat to move {sample_seat} instead of {real_seat}")
    elif real_seat == seat and list(real_legal) != list(sample_legal):
        problems.append(f"legal actions {list(sample_legal)!r} instead of {list(real_legal)!r}")
    try:
        game.check_invariants(sample)
    except AssertionError as e:
        problems.append(f"the sample breaks the title's invariants: {e}")
    if sample_legal:
        try:
            game.apply(sample, sample_legal[0], rng)
        except Exception as e:
            problems.append(f"the sample cannot be played on: {type(e).__name__}: {e}")
        now = public_signature(game.view(state, seat))
        for name, value in before.items():
            if now.get(name) != value:
                problems.append(f"playing on the sample changed the real state ({name!r}): they share data")
    return problems
