"""The run spec and its resolution: what defines a run (:class:`RunSpec`), the checks that turn it
into a title, rules, player count, job count and seed (:func:`resolve`), and what a run records
about itself: its id, the package versions and the data files its rules read.
"""

from __future__ import annotations

import functools
import hashlib
import math
import os
import platform
import re
import secrets
import sys
import uuid
from importlib import metadata
from dataclasses import dataclass, field
from pathlib import Path

import joblib
import numpy as np
import pandas as pd

from analyser import __version__
from analyser.engine import compiled, timelimit
from analyser.engine.core import GAME_TIMEOUT, InputError
from analyser.engine.params import GAME_TIMEOUT_RANGE, MAX_GAME_TIMEOUT
from analyser.engine.registry import default_lineup, get_game, make_strategy
from analyser.engine.runner import check_deal, resolve_jobs


#: Ways to run the batches: worker processes here (``loky``, joblib's default) or a Dask cluster.
BACKENDS = ("loky", "dask", "threading")
#: Most games one run may ask for.
MAX_GAMES = 10_000_000


@dataclass
class RunSpec:
    """Everything that defines a run.  ``seed=None`` draws a fresh seed (recorded)."""

    game: str
    strategies: list[str]
    players: int | None = None
    games: int = 2000
    seed: int | None = None
    jobs: int | None = None
    rules: dict[str, str] = field(default_factory=dict)
    batch_size: int | None = None
    game_timeout: float = GAME_TIMEOUT
    #: ``loky`` (worker processes on this machine) or ``dask`` (a dask.distributed cluster)
    backend: str = "loky"
    #: Dask scheduler address (``tcp://HOST:8786``); None with ``backend="dask"`` starts a LocalCluster
    scheduler: str | None = None
    #: Play only games ``first_game`` to ``games - 1`` (a hook for the stopping rule of
    #: :mod:`analyser.experiments.stopping`, which plays a run in rounds fixed in advance).  Game ``i`` is
    #: the same game whatever ``first_game``, so rounds concatenate into one run.
    first_game: int = 0
    #: ``auto`` (a title's compiled kernel when it covers the run, else Python), ``python`` or
    #: ``compiled`` (an InputError naming why when it cannot be used); see :mod:`analyser.engine.compiled`.
    engine: str = "auto"


def resolve(spec: RunSpec):
    """Validate a run spec; returns (game, params, players, jobs, seed).  Raises InputError."""
    game = get_game(spec.game)
    for name in game.path_options:  # a data file named relative to here must work in workers too
        if spec.rules.get(name):
            spec.rules[name] = str(Path(spec.rules[name]).expanduser().resolve())
    game.check_declarations()
    params = game.Params.from_overrides(spec.rules)
    if not spec.strategies:
        raise InputError(f"no --strategy given; name at least one, e.g. --strategy "
                         f"{(default_lineup(game.id) or ['random'])[0]}")
    problem = setting_problem(spec)
    if problem is not None:
        name, accepted = problem
        raise InputError(f"{SETTINGS[name][0]} {_shown(getattr(spec, name))} is not accepted; {accepted}")
    for s in spec.strategies:
        _try_strategy(s, spec.game, spec.game_timeout)  # fails early, in the main process, on one line
    m = len(spec.strategies)
    players = spec.players
    if players is None:  # the title's usual count; the strategies cycle over the seats
        players = max(game.default_players, min(m, game.max_players))
    game.check_players(params, players)
    check_deal(game, params, players)
    if m > players:
        raise InputError(f"{m} strategies for {players} seats; give at most {players} --strategy "
                         f"or raise --players (up to {game.max_players})")
    if spec.scheduler is not None:
        if spec.backend != "dask":
            raise InputError("--scheduler needs --backend dask")
        check_scheduler_address(spec.scheduler)
    if spec.backend == "dask":
        check_dask_installed()
    if spec.engine != "python":
        compiled.choose(game, params, players, spec.strategies, spec.engine)  # a bad --engine: one line
    jobs = resolve_jobs(spec.jobs)
    seed = spec.seed if spec.seed is not None else secrets.randbits(63)
    return game, params, players, jobs, seed


#: The settings of a run spec checked against bounds: attribute -> (how the command line names it,
#: the field of config.json that records it).
SETTINGS = {"games": ("--games", "games_requested"), "first_game": ("first game", "first_game"),
            "game_timeout": ("--game-timeout", "game_timeout"), "backend": ("--backend", "backend"),
            "batch_size": ("--batch-size", "batch_size"), "seed": ("--seed", "seed")}


def setting_problem(spec: RunSpec) -> tuple[str, str] | None:
    """The first setting of ``spec`` (:data:`SETTINGS`) that a run does not accept, as (its
    attribute, what is accepted), or None.  The caller names it: by its flag (a command line) or by
    its config.json field (a folder resumed)."""
    if not 0 < spec.games <= MAX_GAMES:
        return "games", f"give a number of games from 1 to {MAX_GAMES:,}"
    if not 0 <= spec.first_game < spec.games:
        return "first_game", f"it must lie in 0 to {spec.games - 1}"
    if not 0 <= spec.game_timeout <= MAX_GAME_TIMEOUT:  # (NaN fails both)
        return "game_timeout", GAME_TIMEOUT_RANGE
    if spec.backend not in BACKENDS:
        return "backend", "choose loky or dask"
    if spec.batch_size is not None and spec.batch_size <= 0:
        return "batch_size", "give a positive number"
    if spec.seed is not None and not 0 <= spec.seed < 2 ** 63:  # stored as a 64-bit whole number
        return "seed", f"give a whole number from 0 to {2 ** 63 - 1}"
    return None


def _shown(value) -> str:
    return repr(value) if isinstance(value, str) else str(value)


def _try_strategy(text: str, game_id: str, timeout: float) -> None:
    """Build strategy ``text`` once, under the game time limit: InputError when it fails or does
    not start in time.  One that also ignores the alarm is stopped by a timer that ends the
    process with a one-line message (exit 2), since nothing else can stop it."""
    if not (timeout and timeout > 0 and math.isfinite(timeout)):  # a bad limit is refused later, on one line
        make_strategy(text, game_id)
        return

    def give_up():
        print(f"analyser: error: strategy {text!r} did not start within {timeout:g} s (--game-timeout) and "
              "ignored the stop signal", file=sys.stderr, flush=True)
        os._exit(2)

    with timelimit.alarm(timeout, give_up):
        try:
            make_strategy(text, game_id)
        except timelimit.Hang:
            raise InputError(f"strategy {text!r} did not start within {timeout:g} s (--game-timeout)") from None


def data_file_record(params) -> dict[str, dict[str, str]]:
    """Every component file the rules read, with its absolute path and SHA-256, so a run can be
    traced to the exact data it used."""
    from analyser.io.files import read_bytes
    files = params.data_files() if hasattr(params, "data_files") else {}
    out = {}
    for name, path in files.items():
        try:
            digest = hashlib.sha256(read_bytes(path, f"{name} file")).hexdigest()  # bounded, regular files only
        except InputError:
            digest = "unreadable"
        out[name] = {"path": str(Path(path).resolve()), "sha256": digest}
    return out


def package_versions() -> dict[str, str]:
    """Versions of Python and the libraries a run depends on (read from package metadata, so
    nothing is imported just to ask; read once per process, since every cell of an experiment
    records them)."""
    return dict(_package_versions())


@functools.lru_cache(maxsize=1)
def _package_versions() -> dict[str, str]:
    return {"analyser": __version__, "python": platform.python_version(), "numpy": np.__version__,
            "pandas": pd.__version__, "joblib": joblib.__version__,
            "matplotlib": metadata.version("matplotlib"), "click": metadata.version("click"),
            "scipy": metadata.version("scipy"), "statsmodels": metadata.version("statsmodels"),
            "pyarrow": metadata.version("pyarrow")}


def new_run_id(game_id: str, seed: int) -> str:
    """A run id unique to one run: ``<game>-<seed>-<8 hex digits>`` (the seed stays in its own
    column; a resumed run keeps its id)."""
    return f"{game_id}-{seed}-{uuid.uuid4().hex[:8]}"


def spec_from_config(config: dict, where: str = "config.json") -> RunSpec:
    """The RunSpec a config.json records (for resume).  The config comes from a folder, so each
    field is checked for its type, then its bounds: InputError (one line naming the file, ``where``,
    and the field) otherwise.  Pass the config through
    :func:`analyser.run.trust.guard_folder_config` first: this function loads nothing, but the spec
    it returns names the files a run would load."""
    def field(name, kinds, default=None, required=False):
        value = config.get(name, default)
        if value is None and not required:
            return None
        if isinstance(value, bool) or not isinstance(value, kinds):
            raise InputError(f"{where}: the field {name!r} is not what a run writes there; it is not a run "
                             "that can be resumed")
        return value

    strategies = field("strategies", list, required=True)
    if not strategies or len(strategies) > 1000 or not all(isinstance(s, str) for s in strategies):
        raise InputError(f"{where}: the field 'strategies' is not a list of strategy specs; it is not a run "
                         "that can be resumed")
    rules = field("rule_overrides", dict) or {}
    if not all(isinstance(k, str) and isinstance(v, (str, int, float)) and not isinstance(v, bool)
               for k, v in rules.items()):
        raise InputError(f"{where}: the field 'rule_overrides' is not a map of rule options to values; it is "
                         "not a run that can be resumed")
    spec = RunSpec(game=field("title_source", str) or field("game", str, required=True),
                   strategies=list(strategies), players=field("players", int),
                   games=field("games_requested", int, required=True), seed=field("seed", int, required=True),
                   jobs=field("jobs_requested", int, 0), rules=dict(rules),
                   batch_size=field("batch_size", int), first_game=field("first_game", int) or 0,
                   game_timeout=float(field("game_timeout", (int, float), GAME_TIMEOUT)),
                   backend=field("backend", str) or "loky", scheduler=field("scheduler", str),
                   engine=field("engine_requested", str) or "auto")
    problem = setting_problem(spec)
    if problem is not None:  # (a config.json edited by hand): its field, not a flag the user never gave
        name, accepted = problem
        raise InputError(f"{where}: the field {SETTINGS[name][1]!r} is {_shown(getattr(spec, name))}, which is "
                         f"not accepted; {accepted}")
    return spec


def check_scheduler_address(address: str) -> None:
    """``tcp://HOST:PORT`` (or ``tls://``, ``inproc://``, ``ws://``, ``wss://``); InputError otherwise."""
    if not re.fullmatch(r"(tcp|tls|ws|wss)://[A-Za-z0-9_.\-\[\]:]+:\d{1,5}|inproc://\S+", address or ""):
        raise InputError(f"--scheduler {address!r} is not accepted; give a scheduler address such as "
                         "tcp://HOST:8786")


def check_dask_installed() -> None:
    """InputError (one line) when dask.distributed, which ``--backend dask`` needs, is not installed."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise InputError("--backend dask needs dask.distributed, which is not installed; "
                         "install it with: pip install 'analyser[dask]'") from None
