"""``analyser ladder``: does thinking harder pay?  Skill depth by doubling a strategy's budget.

docs/commands/ladder.md is the contract (the laddered strategy, the budgets, the two designs, the
figures per level and the skill depth).  Every level is one cell played with the ladder's root
seed: it is the run ``analyser simulate TITLE -s STRONGER -s WEAKER --seed ROOT``.  Decisions per
second depend on the machine, so they are not part of the reproducible results.
"""

from __future__ import annotations

import copy
import dataclasses
import math
import random
import shlex
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd

from analyser.stats import analysis
from analyser.engine.core import GAME_TIMEOUT, InputError
from analyser.experiments.base import Cell, Experiment, recorded_outcome, stack_cells
from analyser.experiments.options import DEFAULT_STRATEGY, LadderOptions, Session
from analyser.engine.registry import (get_game, parse_spec, resolve_strategy, strategy_factory, strategy_parameters,
                                      title_ref)
from analyser.engine.seeding import game_seed
from analyser.run import RunSpec, resolve
from analyser.text import phrase

#: Most levels in one ladder (a guard against typos such as 1..1e9).
MAX_LEVELS = 24
#: Games per batch of a level unless --batch-size says otherwise (a search player's games are slow:
#: a level streams a part every few games).  Results do not depend on it.
LEVEL_BATCH = 10
#: Positions the decisions-per-second figure is timed on, and the least CPU time spent on each
#: budget (the positions are played again until it is reached).
SPEED_POSITIONS = 12
SPEED_SECONDS = 0.5
#: The default per-game time limit of a ladder (no --game-timeout): this many times the CPU
#: seconds a game of its dearest level is estimated to take (:func:`auto_game_timeout`), at least
#: :data:`GAME_TIMEOUT`; the limit is wall-clock time, and 20 keeps a loaded machine from tripping it.
AUTO_TIMEOUT_FACTOR = 20
#: Decisions timed, at the top level's two budgets, for that estimate.
AUTO_TIMEOUT_POSITIONS = 4


@dataclass(frozen=True)
class LadderStrategy:
    """A laddered strategy: ``source`` (its name or file), ``param`` (the laddered parameter),
    its ``kind`` (int or float) and the ``fixed`` ``key=value`` parameters, in the order given."""

    text: str
    source: str
    param: str
    kind: type
    fixed: tuple[str, ...]

    def spec(self, value) -> str:
        """The strategy spec at ``value`` of the laddered parameter: ``mcts:iterations=400``."""
        return f"{self.source}:" + ",".join([f"{self.param}={format_value(value)}", *self.fixed])


def format_value(value) -> str:
    """A budget as it is written in a spec and a table: ``400``, ``0.5``."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def parse_ladder_strategy(text: str, game_id: str) -> LadderStrategy:
    """Parse ``--strategy NAME:PARAM[,key=value...]`` (``mcts`` alone means ``mcts:iterations``).

    InputError (one line) when the strategy is unknown for the title, no parameter or several are
    left without ``=``, or the parameter is not a numeric (int or float) parameter of it."""
    raw = (text or "").strip()
    source, _, rest = raw.rpartition(":") if raw.count(":") else (raw, "", "")
    if not source:
        raise InputError(f"--strategy {text!r} is not accepted; write NAME:PARAM, e.g. {DEFAULT_STRATEGY} "
                         "or threshold:limit")
    items = [x.strip() for x in rest.split(",")] if rest else []
    bare = [x for x in items if x and "=" not in x]
    fixed = tuple(x for x in items if x and "=" in x)
    if not bare and source == "mcts":
        bare = ["iterations"]
    if len(bare) != 1:
        raise InputError(f"--strategy {text!r}: name exactly one parameter to ladder, written without =, "
                         f"e.g. {DEFAULT_STRATEGY} or threshold:limit,other=1 (found {len(bare)})")
    param = bare[0]
    spec = parse_spec(source + (":" + ",".join(fixed) if fixed else ""))  # malformed key=value: one line
    obj = resolve_strategy(spec, game_id)
    accepted = strategy_parameters(obj)
    numeric = [k for k, (t, _) in accepted.items() if t in (int, float)]
    if param not in accepted:
        raise InputError(f"--strategy {text!r}: {source} has no parameter {param!r}; its numeric parameters: "
                         f"{', '.join(numeric) or 'none'}")
    if param in dict(x.split("=", 1) for x in fixed):
        raise InputError(f"--strategy {text!r}: {param} is the laddered parameter; do not also give it a value")
    _refuse_clock_budget(text, obj, param, fixed)
    kind = accepted[param][0]
    if kind not in (int, float):
        raise InputError(f"--strategy {text!r}: {param} is not a numeric parameter of {source} "
                         f"({kind.__name__}); its numeric parameters: {', '.join(numeric) or 'none'}")
    return LadderStrategy(raw, source, param, kind, fixed)


def _refuse_clock_budget(text: str, obj, param: str, fixed: tuple[str, ...]) -> None:
    """InputError (one line) when the laddered parameter, or a fixed one set above 0, is one whose
    budget the clock decides (the strategy's ``clock_params``, e.g. ``mcts`` ``time_ms``): a level
    would then depend on the machine and its load, not on the seed, so it could not be replayed
    or resumed row for row, and a busy machine would shrink every budget."""
    clock = tuple(getattr(obj, "clock_params", ()) or ())
    if not clock:
        return
    given = dict(x.split("=", 1) for x in fixed)
    timed = [k for k in clock if k == param or given.get(k, "0").strip() not in ("0", "0.0", "")]
    if timed:
        raise InputError(f"--strategy {text!r}: {timed[0]} is a budget the machine's speed decides, which a ladder "
                         f"does not accept (not reproducible); ladder a budget of work instead, e.g. "
                         f"{DEFAULT_STRATEGY}")


def parse_budgets(text: str, kind: type = int) -> list:
    """The budgets of ``--budgets``: ``A..B`` (``A``, ``2A``, ``4A``, ... up to ``B``, which must be
    ``A`` doubled a whole number of times) or a list ``a,b,c`` in ascending order; at least two
    values, at most :data:`MAX_LEVELS` + 1, every one above 0 (whole numbers for an int
    parameter).  InputError (one line) otherwise."""
    raw = (text or "").strip()
    accepted = "write A..B (A doubled up to B, e.g. 25..1600) or an ascending list a,b,c of numbers above 0"

    def number(s: str):
        try:
            v = float(s)
        except ValueError:
            raise InputError(f"--budgets {text!r}: {s.strip()!r} is not a number; {accepted}") from None
        if not (math.isfinite(v) and v > 0):
            raise InputError(f"--budgets {text!r}: {s.strip()!r} is not above 0; {accepted}")
        if kind is int:
            if not v.is_integer():
                raise InputError(f"--budgets {text!r}: {s.strip()!r} is not a whole number, which this "
                                 f"parameter needs; {accepted}")
            return int(v)
        return v

    if ".." in raw:
        a_text, _, b_text = raw.partition("..")
        a, b = number(a_text), number(b_text)
        if not b > a:
            raise InputError(f"--budgets {text!r}: the top {b_text.strip()} must be above the bottom "
                             f"{a_text.strip()}; {accepted}")
        k = math.log2(b / a)
        if abs(k - round(k)) > 1e-9:
            raise InputError(f"--budgets {text!r}: {b_text.strip()} is not {a_text.strip()} doubled a whole number "
                             f"of times (e.g. {a_text.strip()}..{format_value(a * 2 ** max(1, math.floor(k)))}); "
                             f"or give a list a,b,c")
        values = [a * 2 ** i for i in range(int(round(k)) + 1)]
        values = [int(v) if kind is int else float(v) for v in values]
    else:
        values = [number(s) for s in raw.split(",")] if raw else []
        if len(values) < 2 or any(y <= x for x, y in zip(values, values[1:])):
            raise InputError(f"--budgets {text!r}: give at least two values in ascending order; {accepted}")
    if len(values) > MAX_LEVELS + 1:
        raise InputError(f"--budgets {text!r} gives {len(values) - 1} levels; at most {MAX_LEVELS}")
    return values


@dataclass
class Level:
    """One level: its cell ``name``, the ``budget`` of the laddered side (the stronger side's head
    to head), the ``lower`` budget (head to head; None on a strength curve), and the two specs
    (``side`` first, then ``other``)."""

    name: str
    budget: float
    lower: float | None
    side: str
    other: str


def replay_command(config: dict, level: Level) -> str:
    """The ``analyser simulate`` command that plays ``level`` again, game for game: its two specs
    as ``-s`` (the side first), the ladder's players, games, root seed and rule overrides (from
    the ladder's ``config``), quoted for a shell."""
    words = ["analyser", "simulate", str(config["game"]), "-s", level.side, "-s", level.other,
             "--players", str(config["players"]), "--games", str(config["games_requested"]),
             "--seed", str(config["seed"])]
    for key, value in sorted((config.get("rules") or {}).items()):
        words += ["--rule", f"{key}={value}"]
    return " ".join(shlex.quote(w) for w in words)


def build_levels(strategy: LadderStrategy, budgets: list, against: str | None) -> list[Level]:
    """The levels of a ladder (see the module docstring)."""
    width = max(len(format_value(b)) for b in budgets)
    pad = lambda b: format_value(b).replace(".", "p").rjust(width, "0")  # noqa: E731
    if against is None:
        return [Level(f"level-{pad(hi)}-vs-{pad(lo)}", hi, lo, strategy.spec(hi), strategy.spec(lo))
                for lo, hi in zip(budgets, budgets[1:])]
    return [Level(f"budget-{pad(b)}", b, None, strategy.spec(b), against) for b in budgets]


@dataclass
class LadderResult:
    levels: list[Level]
    table: pd.DataFrame            # one row per level (level_table)
    gains: pd.DataFrame            # one row per doubling (doubling_table)
    depth: dict                    # skill_depth
    results: pd.DataFrame          # every game of every level, with `level` and `budget`
    config: dict
    error: BaseException | None = None
    interrupted: bool = False


def run_ladder(spec: RunSpec, options: LadderOptions | None = None, session: Session | None = None, *,
               speed: bool = True) -> LadderResult:
    """Parse and check the ladder of ``options`` with ``spec``'s settings (its strategies are
    unused; InputError, one line, before any game), play every level (a cell), time the budgets
    (not with ``speed=False``), and analyse.  ``spec.game_timeout=None``: the limit is
    :func:`auto_game_timeout`'s, recorded as ``game_timeout`` with ``game_timeout_auto``."""
    options, session = options or LadderOptions(), session or Session()
    game = get_game(spec.game)
    ladder = parse_ladder_strategy(options.strategy, title_ref(game))
    values = parse_budgets(options.budgets, ladder.kind)
    against = _against(options.against, ladder, values)
    levels = build_levels(ladder, values, against)
    rules = dict(spec.rules)
    base = dataclasses.replace(spec, game=title_ref(game), strategies=[levels[-1].side, levels[-1].other],
                               rules=dict(rules), batch_size=spec.batch_size if spec.batch_size is not None
                               else LEVEL_BATCH,
                               game_timeout=GAME_TIMEOUT if spec.game_timeout is None else spec.game_timeout)
    _, _, n_players, n_jobs, root = resolve(base)
    if n_players < 2:
        raise InputError(f"a ladder needs at least 2 seats; --players {n_players} is not accepted")
    game_timeout, auto = spec.game_timeout, None
    if game_timeout is None:
        game_timeout, auto = auto_game_timeout(game, levels[-1], n_players, rules, root)
    base = dataclasses.replace(base, game_timeout=game_timeout, seed=root, players=n_players)
    specs = [dataclasses.replace(base, strategies=[lv.side, lv.other], rules=dict(rules)) for lv in levels]
    for s in specs[:-1]:
        for text in s.strategies:  # every budget accepted before anything runs (the top one was above)
            strategy_factory(text, title_ref(game))
    # the dearest level first: with whole levels on the workers, the longest starts at once and the
    # cheaper ones fill the other workers meanwhile (results do not depend on the order)
    cells = [Cell(lv.name, s) for lv, s in reversed(list(zip(levels, specs)))]
    fields = {"game": title_ref(game), "game_name": game.name, "seed": root, "games_requested": spec.games,
              "players": n_players, "strategy": ladder.text, "parameter": ladder.param,
              "budgets": [format_value(b) for b in values], "against": against, "rules": rules,
              "design": "strength curve" if against else "head to head",
              "game_timeout": game_timeout, "game_timeout_auto": auto}
    run = dataclasses.replace(spec, game=title_ref(game), seed=root, rules=rules, game_timeout=game_timeout)
    with Experiment.begin(session, "ladder", cells, run=run, options=dataclasses.replace(options, against=against),
                          fields=fields) as exp:
        if session.play:
            outcome = exp.play(jobs=n_jobs, games=spec.games, players=n_players, what="levels")
            if speed and outcome.status == "complete":
                _measure(exp, lambda todo: measure_speed(game, ladder, todo, n_players, rules, root), values)
        else:
            outcome = recorded_outcome(exp.config)
        frames = [exp.results(len(cells) - 1 - k) for k in range(len(cells))]  # in budget order
        config = dict(exp.config)
    table = level_table(levels, frames, n_players, config.get("speed"))
    gains = doubling_table(levels, frames, table, against is not None)
    depth = skill_depth(gains)
    results = combine(levels, frames)
    config.update({"jobs": n_jobs, "status": outcome.status, "error": str(outcome.error) if outcome.error else None,
                   "depth": depth["depth"]})
    config["replay"] = {lv.name: replay_command(config, lv) for lv in levels}
    return LadderResult(levels, table, gains, depth, results, config, outcome.error, outcome.interrupted)


def _against(text: str | None, ladder: LadderStrategy, values: list) -> str | None:
    """The fixed opponent ``--against`` (stripped), or None; InputError for an empty one or one of
    the laddered budgets."""
    if text is None:
        return None
    against = text.strip()
    if not against:
        raise InputError("--against '' is not accepted; give a strategy spec such as greedy")
    if against in {ladder.spec(b) for b in values}:
        raise InputError(f"--against {against!r} is the laddered strategy at one of the budgets; give another "
                         "opponent, or play that budget head to head without --against")
    return against


def _measure(exp: Experiment, measure, values: list) -> None:
    """Time the budgets not timed yet (``measure(budgets)``: their speed records) into the record."""
    measured = dict(exp.config.get("speed") or {})
    todo = [b for b in values if format_value(b) not in measured]
    if todo:
        measured.update(measure(todo))
        exp.config["speed"] = measured
        exp.save()


def side_games(frame: pd.DataFrame, side: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per game of a level's results ``frame``, in game order: ``(game_index, share, seats)``,
    the share of the win that went to the seats of ``side`` (a spec; a shared win counts its
    share) and how many seats it had."""
    if not len(frame):
        return np.array([], dtype=np.int64), np.array([]), np.array([])
    mine = (frame["strategy"].astype(str).to_numpy() == side)
    won = np.where(mine, frame["win"].to_numpy(dtype=float), 0.0)
    g = frame["game_index"].to_numpy()
    order = np.argsort(g, kind="stable")
    g, won, mine = g[order], won[order], mine[order].astype(float)
    keys, start = np.unique(g, return_index=True)
    return keys, np.add.reduceat(won, start), np.add.reduceat(mine, start)


def share_interval(shares: np.ndarray, games: np.ndarray) -> tuple[float, float, float]:
    """Mean share with its 95% cluster-robust interval (the game as the cluster, as
    :func:`analyser.stats.analysis.clustered_mean`); with no spread at all the Wilson interval over
    the games; clipped to 0-1.  ``(nan, nan, nan)`` with no games."""
    if not len(shares):
        return math.nan, math.nan, math.nan
    rate, lo, hi = analysis.clustered_mean(shares, games)
    if not hi - lo > 0:
        lo, hi = analysis.wilson(rate, len(shares))
    return rate, max(0.0, lo), min(1.0, hi)


def gain_interval(diffs: np.ndarray, games: np.ndarray) -> tuple[float, float, float]:
    """Mean of per-game differences with the 95% cluster-robust interval (each game its own
    cluster); with no spread at all the interval is the mean itself.  NaN with no games."""
    if not len(diffs):
        return math.nan, math.nan, math.nan
    m, lo, hi = analysis.clustered_mean(diffs, games)
    if not hi - lo > 0:
        lo = hi = m
    return m, lo, hi


def level_table(levels: list[Level], frames: list[pd.DataFrame], players: int, speed: dict | None) -> pd.DataFrame:
    """One row per level: ``level`` (1, 2, ...), ``budget`` (the laddered side's), ``lower`` (its
    opponent's budget head to head, else NaN), ``side`` and ``other`` (specs), ``games``,
    ``seats`` (the side's mean seats a game, of ``players``), ``win_rate`` with
    ``win_low``/``win_high`` (95%, cluster-robust), ``fair_share`` (the mean over games of the
    side's seats / players), ``gain_pp`` (win rate minus fair share, percentage points) with
    ``gain_low_pp``/``gain_high_pp`` (the cluster-robust interval of the per-game share minus
    the per-game fair share), ``side_dps`` and ``other_dps`` (decisions per second of the two
    budgets; NaN when not measured or not a budget)."""
    speed = speed if isinstance(speed, dict) else {}

    def dps(budget):
        if budget is None or (isinstance(budget, float) and math.isnan(budget)):
            return math.nan
        entry = speed.get(format_value(budget))
        if not isinstance(entry, dict):
            return math.nan
        n, s = entry.get("decisions"), entry.get("seconds")
        ok = all(isinstance(x, (int, float)) and not isinstance(x, bool) and x == x for x in (n, s))
        return float(n) / float(s) if ok and s > 0 else math.nan

    rows = []
    for k, (lv, df) in enumerate(zip(levels, frames)):
        g, shares, seats = side_games(df, lv.side)
        rate, lo, hi = share_interval(shares, g)
        fair = float(seats.mean()) / players if len(g) else math.nan
        gain, glo, ghi = gain_interval(shares - seats / players, g)
        rows.append({"level": k + 1, "budget": lv.budget, "lower": lv.lower if lv.lower is not None else math.nan,
                     "side": lv.side, "other": lv.other, "games": len(shares),
                     "seats": float(seats.mean()) if len(g) else math.nan, "players": players,
                     "win_rate": rate, "win_low": lo, "win_high": hi, "fair_share": fair,
                     "gain_pp": gain * 100, "gain_low_pp": glo * 100, "gain_high_pp": ghi * 100,
                     "side_dps": dps(lv.budget), "other_dps": dps(lv.lower)})
    return pd.DataFrame(rows)


def doubling_table(levels: list[Level], frames: list[pd.DataFrame], table: pd.DataFrame, curve: bool) -> pd.DataFrame:
    """One row per doubling (``from`` budget -> ``to`` budget): ``gain_pp`` with ``gain_low_pp``
    and ``gain_high_pp`` (95%) and ``verdict`` (``clear``, ``unclear`` or ``loss``; see
    :func:`skill_depth`).  Head to head a doubling is a level: its gain is the stronger side's win
    rate over the fair share.  On a strength curve it is the change in the laddered side's win
    rate between consecutive budgets, paired by game (the mean per-game difference over the games
    both levels played, with the cluster-robust interval, each game its own cluster)."""
    rows = []
    if not curve:
        for r in table.itertuples():
            rows.append({"from": r.lower, "to": r.budget, "games": r.games, "gain_pp": r.gain_pp,
                         "gain_low_pp": r.gain_low_pp, "gain_high_pp": r.gain_high_pp})
    else:
        per = [dict(zip(*side_games(df, lv.side)[:2])) for lv, df in zip(levels, frames)]
        for k in range(1, len(levels)):
            both = sorted(set(per[k]) & set(per[k - 1]))
            d = np.array([per[k][i] - per[k - 1][i] for i in both], dtype=float)
            m, lo, hi = gain_interval(d, np.array(both))
            rows.append({"from": levels[k - 1].budget, "to": levels[k].budget, "games": len(d), "gain_pp": m * 100,
                         "gain_low_pp": lo * 100, "gain_high_pp": hi * 100})
    out = pd.DataFrame(rows, columns=["from", "to", "games", "gain_pp", "gain_low_pp", "gain_high_pp"])
    out["verdict"] = [verdict(lo, hi) for lo, hi in zip(out["gain_low_pp"], out["gain_high_pp"])]
    return out


def verdict(low_pp: float, high_pp: float) -> str:
    """``clear`` when a gain's 95% interval lies wholly above 0, ``loss`` wholly below, else
    ``unclear`` (also for an interval that could not be computed)."""
    if low_pp == low_pp and low_pp > 0:
        return "clear"
    if high_pp == high_pp and high_pp < 0:
        return "loss"
    return "unclear"


def skill_depth(gains: pd.DataFrame) -> dict:
    """The skill depth of a doubling table (:func:`doubling_table`, in budget order): the number
    of ``clear`` doublings counted from the first, up to the first that is not clear.

    Returns ``depth``; ``pays_up_to`` (the top budget of the last counted doubling, None at depth
    0); ``stops`` (the first doubling not clear, as ``(from, to, verdict)``, None when all are);
    ``later_clear`` (clear doublings after that, as ``(from, to)``); ``losses`` (doublings whose
    gain is wholly below 0); ``doublings`` (how many were played)."""
    v = list(gains["verdict"]) if len(gains) else []
    depth = next((i for i, x in enumerate(v) if x != "clear"), len(v))
    rows = gains.to_dict("records") if len(gains) else []
    return {"depth": depth, "doublings": len(v),
            "pays_up_to": float(rows[depth - 1]["to"]) if depth else None,
            "stops": (float(rows[depth]["from"]), float(rows[depth]["to"]), rows[depth]["verdict"])
            if depth < len(v) else None,
            "later_clear": [(float(r["from"]), float(r["to"])) for r in rows[depth + 1:] if r["verdict"] == "clear"],
            "losses": [(float(r["from"]), float(r["to"])) for r in rows if r["verdict"] == "loss"]}


def findings(gains: pd.DataFrame, depth: dict, *, param: str, against: str | None, source: str) -> list[dict]:
    """The Findings of a ladder (dicts as :func:`analyser.stats.metagame.findings`): the skill
    depth, and the first doubling that clearly loses; the words are ``sentences/ladder.j2``
    reading :func:`finding_records`."""
    return [{"topic": topic, "strength": r["strength"], "sentence": phrase("ladder.j2", topic, r),
             "evidence": {"figure": phrase("ladder.j2", topic + "_figure", r),
                          "interval": phrase("ladder.j2", topic + "_interval", r)},
             "threshold": phrase("ladder.j2", topic + "_threshold", r)}
            for topic, r in finding_records(gains, depth, param=param, against=against, source=source)]


def finding_records(gains: pd.DataFrame, depth: dict, *, param: str, against: str | None,
                    source: str) -> list[tuple[str, dict]]:
    """``(topic, record)`` of the ladder's findings: ``depth`` (the :func:`skill_depth` figures
    with the doubling that shows it: the top one when every doubling pays, the first when none
    does, else the last that pays) and, when a doubling's gain lies wholly below 0, ``loss`` (the
    first such).  Budgets are written as in a spec (:func:`format_value`); ``gain_pp``,
    ``gain_low_pp``, ``gain_high_pp``: the doubling's gain and its 95% interval in pp."""
    if not len(gains):
        return []
    d = depth["depth"]
    row = gains.iloc[-1] if d == depth["doublings"] else gains.iloc[max(d - 1, 0)]
    common = {"param": param, "against": against, "source": source}

    def doubling(r) -> dict:
        return {"from": format_value(r["from"]), "to": format_value(r["to"]), "gain_pp": r["gain_pp"],
                "gain_low_pp": r["gain_low_pp"], "gain_high_pp": r["gain_high_pp"], "games": int(r["games"])}

    stop = depth["stops"]
    out = [("depth", {**common, **doubling(row), "strength": "clear" if d else "none found", "depth": d,
                      "doublings": depth["doublings"],
                      "pays_up_to": format_value(depth["pays_up_to"]) if d else None,
                      "stop_to": format_value(stop[1]) if stop else None, "stop_verdict": stop[2] if stop else None,
                      "later": [(format_value(a), format_value(b)) for a, b in depth["later_clear"]]})]
    if depth["losses"]:
        a, b = depth["losses"][0]
        r = gains[(gains["from"] == a) & (gains["to"] == b)].iloc[0]
        out.append(("loss", {**common, **doubling(r), "strength": "clear"}))
    return out


def combine(levels: list[Level], frames: list[pd.DataFrame]) -> pd.DataFrame:
    """Every game of every level as one frame, with ``level`` (1, 2, ...) and ``budget`` first."""
    out = stack_cells(frames, "level", range(1, len(levels) + 1))
    if len(out):
        out.insert(1, "budget", np.array([float(lv.budget) for lv in levels])[out["level"].to_numpy() - 1])
    return out


# --------------------------------------------------------------------------------------------
# Decisions per second
# --------------------------------------------------------------------------------------------

def speed_positions(game, params, players: int, root: int, count: int = SPEED_POSITIONS) -> list:
    """Up to ``count`` decision points (``(state, seat)``, copies) spread evenly over the first
    games of the ladder's game seeds, played by ``random`` in every seat."""
    found = []
    for i in range(3):
        found += random_decisions(game, params, players, game_seed(root, i))
        if len(found) >= 4 * count:
            break
    return spread(found, count)


def spread(found: list, count: int) -> list:
    """Up to ``count`` items of ``found`` spread evenly over it."""
    if len(found) <= count:
        return found
    step = len(found) / count
    return [found[int(i * step)] for i in range(count)]


def random_decisions(game, params, players: int, gs: int) -> list:
    """The decision points (``(state, seat)``, copies; a seat with one legal action is none) of
    one game played by ``random`` in every seat with the game seed ``gs``."""
    make = strategy_factory("random", title_ref(game))
    found = []
    chance = random.Random(gs)
    state = game.initial_state(params, players, chance)
    bots = [make() for _ in range(players)]
    for k, b in enumerate(bots):
        if hasattr(b, "reset"):
            b.reset(k, params, players)
    rng = random.Random(f"{gs}/speed")
    for _ in range(100_000):
        seat, legal = game.turn(state)
        if not legal:
            break
        if len(legal) > 1:
            found.append((copy.deepcopy(state), seat))
        a = legal[0] if len(legal) == 1 else bots[seat].choose(game.view(state, seat), legal, rng)
        game.apply(state, a, chance)
    return found


def auto_game_timeout(game, level: Level, players: int, rules: dict, root: int) -> tuple[float, dict]:
    """The default per-game time limit of a ladder whose dearest level is ``level``: the CPU
    seconds of a game estimated as (decisions in a game played by ``random`` with the ladder's
    first game seed) x (the CPU time of one decision of the dearer of the level's two specs, the
    mean over :data:`AUTO_TIMEOUT_POSITIONS` of them), times :data:`AUTO_TIMEOUT_FACTOR`, rounded
    up to whole seconds and at least :data:`GAME_TIMEOUT`.  Returns ``(seconds, record)``, the
    record (``cpu_seconds_per_game``, ``decisions_per_game``, ``factor``) for ``config.json``.
    A limit, not a result: it depends on the machine, and no game depends on it."""
    params = game.Params.from_overrides(dict(rules))
    decisions = random_decisions(game, params, players, game_seed(root, 0))
    positions = spread(decisions, AUTO_TIMEOUT_POSITIONS)
    per_decision = 0.0
    for text in (level.side, level.other):
        seconds, n = time_decisions(game, strategy_factory(text, title_ref(game)), positions, params, players, root)
        per_decision = max(per_decision, seconds / n if n else 0.0)
    per_game = per_decision * len(decisions)
    limit = max(GAME_TIMEOUT, float(math.ceil(AUTO_TIMEOUT_FACTOR * per_game)))
    return limit, {"cpu_seconds_per_game": round(per_game, 4), "decisions_per_game": len(decisions),
                   "factor": AUTO_TIMEOUT_FACTOR}


def measure_speed(game, ladder: LadderStrategy, budgets: list, players: int, rules: dict, root: int) -> dict:
    """Decisions per second of the laddered strategy at each budget: ``{budget text: {"decisions":
    n, "seconds": s}}``, the CPU time (:func:`time.process_time`) of one decision on each of
    :func:`speed_positions`, in this process, played again until :data:`SPEED_SECONDS` are spent
    on the budget (with the copies of the positions).
    Depends on the machine: a speed figure, not a result."""
    params = game.Params.from_overrides(dict(rules))
    positions = speed_positions(game, params, players, root)
    out = {}
    for b in budgets:
        make = strategy_factory(ladder.spec(b), title_ref(game))
        seconds, decisions = 0.0, 0
        start = time.process_time()  # (the copies count towards the limit, not towards the figure)
        while positions and (decisions == 0 or time.process_time() - start < SPEED_SECONDS):
            took, n = time_decisions(game, make, positions, params, players, root)
            seconds += took
            decisions += n
        out[format_value(b)] = {"decisions": decisions, "seconds": round(seconds, 6)}
    return out


def time_decisions(game, make, positions: list, params, players: int, root: int) -> tuple[float, int]:
    """One decision of a fresh strategy from ``make`` on each of ``positions`` (copies): the CPU
    seconds (:func:`time.process_time`) the decisions took, and how many."""
    seconds = 0.0
    for i, (state, seat) in enumerate(positions):
        st = make()
        if hasattr(st, "reset"):
            st.reset(seat, params, players)
        s = copy.deepcopy(state)
        legal = game.turn(s)[1]
        view = game.view(s, seat)
        rng = random.Random(f"{root}/speed/{i}")
        t0 = time.process_time()
        st.choose(view, legal, rng)
        seconds += time.process_time() - t0
    return seconds, len(positions)
