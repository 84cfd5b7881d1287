"""Confirm a component finding by intervention (``analyser simulate --confirm-components``).

docs/components.md ("Findings: possible until confirmed") is the contract: the run's games are
played again (same root seed) with one component replaced by its peer group's typical member, or
with the catalog's ``fix`` rule override, and the change in the holders' win rate and in the seat
gap is measured (:func:`paired_change`).
"""

from __future__ import annotations

import dataclasses
import math
import shlex
from pathlib import Path

import numpy as np

from analyser.report.components import INTERVENTIONS, write_replacement
from analyser.stats.components import CONFIRM_MIN_PP, Z95
from analyser.text import signed

#: Components confirmed at most, the first that pass the correction in the report's rank order.
CONFIRM_MAX = 3
#: Why a listed component has no intervention (``Game.component_replacement`` gave none, and no rule
#: option removes it).
NO_REPLACEMENT = ("the title offers no replacement that changes it: it has no peer, or it already has its peer "
                  "group's typical effect (so putting a typical peer in its place would change nothing), and no "
                  "rule option removes it")


def paired_change(a, b, holders, players: int, games: int, best: int, worst: int) -> dict:
    """The two paired figures of the module docstring from win shares as played (``a``) and with
    the component replaced (``b``), each a ``games x players`` array, and ``holders`` a boolean
    array of the same shape (the seat-games that held the component as played).  Returns
    ``change``, ``low``, ``high`` (holders, pp) and ``gap_change``, ``gap_low``, ``gap_high``
    (best seat ``best`` minus worst seat ``worst``, pp); nan where there is nothing to compare."""
    a, b, h = np.asarray(a, float), np.asarray(b, float), np.asarray(holders, bool)
    out = {}
    n_h = float(h.sum())
    d = ((b - a) * h).sum(axis=1)                     # per game: the holders' change in win shares
    if n_h > 0 and games > 1:
        change = float(d.sum() / n_h)
        resid = d - change * h.sum(axis=1)
        se = math.sqrt(games / (games - 1) * float((resid ** 2).sum())) / n_h
        out.update(change=100 * change, low=100 * (change - Z95 * se), high=100 * (change + Z95 * se))
    else:
        out.update(change=math.nan, low=math.nan, high=math.nan)
    g = (b[:, best] - b[:, worst]) - (a[:, best] - a[:, worst])
    if games > 1:
        m, se = float(g.mean()), float(g.std(ddof=1) / math.sqrt(games))
        out.update(gap_change=100 * m, gap_low=100 * (m - Z95 * se), gap_high=100 * (m + Z95 * se))
    else:
        out.update(gap_change=math.nan, gap_low=math.nan, gap_high=math.nan)
    return out


def verdict(change: dict, effect: float) -> bool:
    """Confirmed: the holders' interval excludes 0 on the side opposite to the association's
    tested ``effect`` (pp; the effect against the peer group where the title declares one) -
    replacing a component that goes with winning makes its holders win less - and the change is
    at least :data:`CONFIRM_MIN_PP` in size."""
    lo, hi, mid = change["low"], change["high"], change.get("change", float("nan"))
    if not (np.isfinite(lo) and np.isfinite(hi) and np.isfinite(mid)) or abs(mid) < CONFIRM_MIN_PP:
        return False
    return hi < 0 if effect > 0 else lo > 0


def tested_effect(row) -> float:
    """The effect an association was listed for (pp): against its peers where the title declares
    a peer group (``vs_peers``), else against none (``effect``)."""
    peers = getattr(row, "vs_peers", float("nan"))
    return float(peers) if peers == peers else float(row.effect)


def intervention(game, params, cid: str, info: dict, folder: Path) -> tuple[str, str, str] | None:
    """``(option, value, what)`` of the intervention on ``cid``: the title's replacement file
    written into ``folder`` (its path is the value), else the catalog's ``fix`` override; None
    when the title offers neither."""
    rep = write_replacement(game, params, cid, folder)
    if rep is not None:
        return rep
    fix = info.get("fix") or ""
    if fix and "=" in fix:
        option, _, value = fix.partition("=")
        return option, value, f"the rule override {fix}"
    return None


def shares(results, games: int, players: int) -> np.ndarray:
    """Win shares per game and seat (``games x players``) of a results frame."""
    out = np.zeros((games, players))
    gi = results["game_index"].to_numpy(dtype=np.int64)
    keep = gi < games
    out[gi[keep], results["seat"].to_numpy(dtype=np.int64)[keep]] = results["win"].to_numpy(dtype=float)[keep]
    return out


def _command(spec, option: str, value: str, games: int) -> str:
    words = ["analyser", "compare", spec.game]
    for s in spec.strategies:
        words += ["-s", s]
    if spec.players:
        words += ["-p", spec.players]
    for k, v in spec.rules.items():
        if k != option:
            words += ["-r", f"{k}={v}"]
    if option in spec.rules:
        words += ["--a", f"{option}={spec.rules[option]}"]
    words += ["--b", f"{option}={value}", "--games", games, "--seed", spec.seed]
    return " ".join(shlex.quote(str(w)) for w in words)


def replay(spec, rules: dict, games: int, progress: bool = False):
    """The run of ``spec`` played again from its first game with the rule options ``rules`` on top
    of its own: the same root seed, so game ``i`` has the same game seed and seating (the
    intervention of a component, the replayed compensation of :mod:`analyser.experiments.seat_confirm`).
    Returns the :class:`analyser.run.RunResult`, in memory."""
    from analyser.run import run

    b_spec = dataclasses.replace(spec, rules={**spec.rules, **rules}, first_game=0, games=games)
    return run(b_spec, progress=progress)


def confirm(out: Path, spec, top: int = CONFIRM_MAX, progress: bool = False) -> dict:
    """Confirm the first ``top`` components that pass the correction in the run folder ``out``
    (played from ``spec``, its seed recorded): play the same games with each replaced, and
    return ``{component id: record}`` (``confirmed``, ``figure``, ``interval``, ``command``,
    ``what``, the numbers of :func:`paired_change`, ``games``).  A component without an
    intervention is left out.  The caller records them in ``config.json``."""
    import pandas as pd

    from analyser.report.page import summarise_run
    from analyser.run import resolve

    summary = summarise_run(out)
    if len(summary.parts) != 1 or summary.parts[0].components is None:
        return {}
    part = summary.parts[0]
    est = part.components
    listed = est[est["clear"] & est["p"].notna()].head(top)
    if not len(listed):
        return {}
    game, params, players, _, _ = resolve(spec)
    catalog = game.component_catalog(params)
    results = pd.read_parquet(out / "results")
    counts = pd.read_parquet(out / "component_counts")
    ids = counts["component"].astype(str)
    merged = game.component_collapse(sorted(set(ids)))
    counts = counts.assign(component=ids.map(lambda x: merged.get(x, x)))
    games = int(results["game_index"].max()) + 1
    a = shares(results, games, players)
    rate = a.mean(axis=0)
    best, worst = int(np.argmax(rate)), int(np.argmin(rate))
    records = {}
    for r in listed.itertuples():
        cid = str(r.component)
        act = intervention(game, params, cid, catalog.get(cid, {}), out / INTERVENTIONS)  # (the changed data files go there)
        if act is None:  # said in its finding, not skipped in silence
            records[cid] = {"tested": False, "confirmed": False, "why": NO_REPLACEMENT}
            continue
        option, value, what = act
        b = replay(spec, {option: value}, games, progress)
        held = counts[(counts["component"].astype(str) == cid) & (counts["count"] > 0)]
        h = np.zeros((games, players), dtype=bool)
        gi = held["game_index"].to_numpy(dtype=np.int64)
        h[gi[gi < games], held["seat"].to_numpy(dtype=np.int64)[gi < games]] = True
        ch = paired_change(a, shares(b.results, games, players), h, players, games, best, worst)
        records[cid] = {**ch, "tested": True, "confirmed": verdict(ch, tested_effect(r)), "what": what, "games": games,
                        "figure": f"holders' win rate {signed(ch['change'])} pp over {games:,} paired games, with "
                                  f"{what}",
                        "gap": f"the gap between seat {best} and seat {worst} changes by {signed(ch['gap_change'])} pp "
                               f"(95% CI {signed(ch['gap_low'])} to {signed(ch['gap_high'])})",
                        "interval": f"{signed(ch['low'])} to {signed(ch['high'])} pp",
                        "command": _command(spec, option, value, games)}
    return {k: {n: (None if isinstance(v, float) and not math.isfinite(v) else v) for n, v in rec.items()}
            for k, rec in records.items()}
