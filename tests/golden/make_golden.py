"""Regenerate ``tests/golden/results.json``: a SHA-256 of every column of the results (and extra
tables) of a few seeded runs per title and engine.  Run it only when a change is *meant* to change
the games (say so in the commit), then review the diff: ``python tests/golden/make_golden.py``."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pandas as pd

HERE = Path(__file__).parent
FILE = HERE / "results.json"

#: (title, strategies, players, games, seed, rules, engine)
CASES = [
    ("dao", ("greedy", "threshold", "colour", "random"), 4, 60, 11, {}, "python"),
    ("dao", ("greedy", "threshold"), 2, 60, 12, {}, "python"),
    ("dao", ("greedy", "threshold", "colour", "random"), 4, 60, 11, {}, "compiled"),
    ("dao", ("greedy", "threshold"), 2, 60, 12, {}, "compiled"),
    ("dao", ("colour", "random", "greedy"), 6, 40, 13, {"bust_limit": "12"}, "python"),
    ("wizard", ("expected", "bot:bid=zero", "bot:bid=expected,play=random", "random"), 4, 12, 21, {}, "python"),
    ("wizard", ("expected", "random"), 3, 10, 22, {}, "python"),
    ("wizard", ("expected", "bot:bid=zero"), 6, 6, 23, {}, "python"),
    ("wizard", ("expected", "bot:bid=zero", "bot:bid=expected,play=random", "random"), 4, 12, 21, {}, "compiled"),
    ("wizard", ("expected", "random"), 3, 10, 22, {}, "compiled"),
    ("wizard", ("expected", "bot:bid=zero"), 6, 6, 23, {}, "compiled"),
    ("tsuro-seas", ("survivor", "aggressive", "random"), 4, 30, 31, {}, "python"),
    ("tsuro-seas", ("survivor:depth=1", "random"), 2, 30, 32, {}, "python"),
    ("tsuro-seas", ("random",), 8, 10, 33, {}, "python"),
    ("kingdomino-duel", ("greedy", "spells"), 2, 30, 41, {}, "python"),
    ("kingdomino-duel", ("random", "greedy"), 2, 30, 42, {}, "python"),
    ("dragon-lairds", ("income", "royals-rush", "colour-set", "random"), 4, 20, 51, {}, "python"),
    ("dragon-lairds", ("income", "random"), 2, 20, 52, {}, "python"),
    ("dragon-lairds", ("colour-set", "royals-rush"), 5, 12, 53, {}, "python"),
]


def case_id(case) -> str:
    title, strategies, players, games, seed, rules, engine = case
    extra = ",".join(f"{k}={v}" for k, v in rules.items())
    return f"{title}/{'+'.join(strategies)}/{players}p/{games}g/seed{seed}/{engine}" + (f"/{extra}" if extra else "")


def frame_digest(frame: pd.DataFrame) -> str:
    """A digest of every column but ``run_id``, independent of categorical encodings."""
    frame = frame.drop(columns=[c for c in ("run_id",) if c in frame.columns])
    frame = frame.sort_values([c for c in ("game_index", "seat") if c in frame.columns], kind="stable")
    h = hashlib.sha256()
    for col in sorted(frame.columns):
        h.update(col.encode())
        h.update(json.dumps([_plain(v) for v in frame[col].tolist()], default=repr).encode())
    return h.hexdigest()


def _plain(value):
    if isinstance(value, float) and value != value:
        return "nan"
    if hasattr(value, "tolist"):
        return value.tolist()
    return value


def digests(case) -> dict[str, str]:
    from analyser.run.execute import run
    from analyser.run.spec import RunSpec
    title, strategies, players, games, seed, rules, engine = case
    result = run(RunSpec(game=title, strategies=list(strategies), players=players, games=games,
                         seed=seed, jobs=1, rules=dict(rules), engine=engine), progress=False)
    if result.error is not None:
        raise result.error
    out = {"results": frame_digest(result.results)}
    for name, frame in sorted(result.extras.items()):
        out[name] = frame_digest(frame)
    return out


def main() -> None:
    FILE.write_text(json.dumps({case_id(c): digests(c) for c in CASES}, indent=1) + "\n")
    print(f"wrote {FILE}", file=sys.stderr)


if __name__ == "__main__":
    main()
