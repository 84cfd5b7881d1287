"""The command that reproduces a run or an experiment, rebuilt from its ``config.json``.

The command as typed may leave out what was drawn or defaulted (a fresh seed, the player count,
``--games``), so a report's "Reproduce" section shows :func:`reproduce_command` instead: the
command with the root seed and every option the results depend on (title, lineup, player count,
games, rule options, the stopping rule, and the time limit when it is not the default).  Options
the results do not depend on (``--jobs``, ``--batch-size``, ``--backend``, ``--out``) are left
out.  Every word is shell-quoted.
"""

from __future__ import annotations

import shlex

from analyser.engine.core import GAME_TIMEOUT


def _whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _texts(value) -> list[str] | None:
    return list(value) if isinstance(value, list) and all(isinstance(v, str) for v in value) else None


def _rules(value, flag: str) -> list[str]:
    if isinstance(value, dict):
        return [w for k, v in value.items() for w in (flag, f"{k}={v}")]
    return [w for v in _texts(value) or [] for w in (flag, v)]


def _common(config: dict) -> list[str]:
    """``--until-ci W`` when a stopping rule ended the run, ``--game-timeout S`` when not the default."""
    words = []
    stop = config.get("stopping")
    if isinstance(stop, dict) and isinstance(stop.get("until_ci"), (int, float)) and stop["until_ci"]:
        words += ["--until-ci", f"{stop['until_ci']:g}"]
    timeout = config.get("game_timeout")
    if isinstance(timeout, (int, float)) and not isinstance(timeout, bool) and timeout != GAME_TIMEOUT:
        words += ["--game-timeout", f"{timeout:g}"]
    return words


def reproduce_command(config: dict) -> str | None:
    """The full ``analyser`` command that plays the same games as the run or experiment whose
    ``config.json`` is ``config`` (simulate, sweep, tournament, compare), or None when the config
    lacks what it needs (a report of results joined by hand)."""
    if not isinstance(config, dict):
        return None
    kind, seed = config.get("kind"), config.get("seed")
    game = config.get("title_source") if isinstance(config.get("title_source"), str) else config.get("game")
    if kind == "compare" and isinstance(config.get("a"), dict) and isinstance(config["a"].get("source"), str):
        sources = [config.get(side, {}).get("source") for side in ("a", "b")]
        return " ".join(shlex.quote(w) for w in ["analyser", "compare", *sources]) if all(
            isinstance(s, str) for s in sources) else None
    if not isinstance(game, str) or not _whole(seed):
        return None
    players = config.get("players")
    size = ["--players", str(players)] if _whole(players) else []
    if kind in (None, "sweep", "tournament"):  # (None: a simulate run, whose record has rule_overrides)
        strategies, games = _texts(config.get("strategies")), config.get("games_requested")
        if not strategies or not _whole(games):
            return None
        words = ["analyser", kind or "simulate", game, *[w for s in strategies for w in ("-s", s)], *size,
                 "--games", str(games), "--seed", str(seed),
                 *_rules(config.get("rules" if kind else "rule_overrides"), "--rule")]
        if kind == "tournament" and _whole(config.get("bootstrap")):
            words += ["--bootstrap", str(config["bootstrap"])]
    elif kind == "ladder":
        budgets, games = _texts(config.get("budgets")), config.get("games_requested")
        strategy = config.get("strategy")
        if not budgets or not isinstance(strategy, str) or not _whole(games):
            return None
        words = ["analyser", "ladder", game, "--strategy", strategy, "--budgets", ",".join(budgets)]
        if isinstance(config.get("against"), str):
            words += ["--against", config["against"]]
        words += [*size, "--games", str(games), "--seed", str(seed), *_rules(config.get("rules"), "--rule")]
    elif kind == "compare":
        sides = [config.get(side) if isinstance(config.get(side), dict) else {} for side in ("a", "b")]
        lineups = [_texts(side.get("strategies")) for side in sides]
        if not all(lineups) or not _whole(config.get("games")):
            return None
        words = ["analyser", "compare", game]
        for flag, side, lineup in zip(("a", "b"), sides, lineups):
            words += [w for s in lineup for w in (f"--{flag}-strategy", s)]
            words += _rules(side.get("rule_overrides"), f"--{flag}")
        players = sides[0].get("players")
        size = ["--players", str(players)] if _whole(players) and players == sides[1].get("players") else size
        words += [*size, "--games", str(config["games"]), "--seed", str(seed)]
    else:
        return None
    return " ".join(shlex.quote(w) for w in words + _common(config))
