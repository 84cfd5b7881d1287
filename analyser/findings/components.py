"""Component findings: the sentences a report gives for the estimates of
:func:`analyser.stats.components.estimate` (one per clear component, with its evidence, threshold and
the command that tests a fix)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import pandas as pd

from analyser.findings.base import command
from analyser.stats.components import CONFIRM_MIN_PP, Q
from analyser.text import phrase

# --------------------------------------------------------------------------------------------

#: Component findings in the report's numbered list at most (the rest stay in the table).
FINDINGS_MAX = 3


@dataclass(frozen=True)
class Rerun:
    """The run a component finding's next command plays again: its title (id or file), its
    strategy specs, its game count, its seats (None: the title's usual count), the rule options
    that differ from the defaults, and its recorded root seed (None: not one run's)."""

    game: str
    strategies: Sequence[str]
    games: int
    players: int | None = None
    rules: dict | None = None
    seed: int | str | None = None


def next_command(cid: str, info: dict, run: Rerun, replacement: tuple[str, str, str] | None = None) -> str:
    """The command that tests a fix of component ``cid`` in ``run``: a ``compare`` of the rules as
    run against the changed file (``replacement``: ``(option, path, what)``), against a copy to
    edit (a data file with no replacement; ``()``: the title has no typical peer, which is said),
    or against the rule override ``info["fix"]``; else a new run with a fresh seed and four times
    the games.  A ``compare`` replays the run's seed and game count where recorded."""
    game, strategies, games, players, seed = run.game, run.strategies, run.games, run.players, run.seed
    rules = {k: v for k, v in (run.rules or {}).items() if v not in (None, "")}
    lineup = [w for s in strategies for w in ("-s", s)] + (["-p", players] if players else [])
    option, path, line, fix = (info.get("option") or "", info.get("file") or "", info.get("line"),
                               info.get("fix") or "")
    n = max(int(games), 1000)
    seeded = seed is not None and str(seed).strip().lstrip("-").isdigit()

    def against(key: str, b_value: str) -> str:
        """``compare`` of the rules as run (A) against ``key`` set to ``b_value`` (B)."""
        words = ["analyser", "compare", game] + lineup
        words += [w for k, v in rules.items() if k != key for w in ("-r", f"{k}={v}")]
        if key in rules:
            words += ["--a", f"{key}={rules[key]}"]
        tail = ["--games", int(games), "--seed", seed] if seeded else ["--games", n]
        return command(words + ["--b", b_value] + tail)

    if replacement:
        r_option, r_path, what = replacement
        return (f"the changed file ({what}) is written to {r_path}; play the same games on it: "
                + against(r_option, f"{r_option}={r_path}"))
    if option and path:
        where = f"line {line} of fixed.csv" if line else f"the entry of {cid} in fixed.csv"
        then = against(option, f"{option}=fixed.csv")
        lead = ("the title has no typical peer to put in its place (it has no peer, or already has its peers' "
                "typical effect); to test a change of your own, " if replacement == () else "")
        return (f"{lead}copy {path} to fixed.csv, change {where} (component {cid}; never the original), "
                f"then: {then}")
    if fix:
        return against(fix.partition("=")[0], fix)
    rest = [w for k, v in rules.items() for w in ("-r", f"{k}={v}")]
    words = ["analyser", "simulate", game] + lineup + rest
    words += ["--games", 4 * n]  # no --seed: a fresh one (printed and recorded), never the run's own games
    return "confirm with a fresh seed (drawn and recorded by the run) and more games: " + command(words)


#: What an association can and cannot show, in the one line the report gives beside the table.
ASSOCIATION_LINE = ("An association shows which components go with winning, not which make a seat win: a seat "
                    "that is already ahead can afford, keep or be dealt more of some components, so only an "
                    "intervention (the same games with the component replaced) can confirm a cause.")


def findings(est, run: Rerun, *, catalog: dict | None = None, confirmations: dict | None = None,
             replacements: dict | None = None) -> list[dict]:
    """The component findings of one variant (played as ``run``), in the shape of
    :func:`analyser.stats.metagame.findings` plus ``component`` (docs/components.md): at most
    :data:`FINDINGS_MAX`, the components that pass the Benjamini-Hochberg correction in rank
    order, each "possible" until its intervention (``confirmations``: component id -> ``{"confirmed",
    "figure", "interval", "command"}``, :mod:`analyser.experiments.confirm`) confirms it; else one
    "none found" naming the strongest; ``[]`` without estimates.  ``next``: :func:`next_command`
    (``replacements``: component id -> the changed data file, ``(option, path, what)``)."""
    if est is None or not len(est):
        return []
    catalog, confirmations = catalog or {}, confirmations or {}
    acts = est.attrs.get("wording") or {}  # measured where it acts (rate_estimate), not per seat-game
    scored = est[est["p"].notna()]
    listed = scored[scored["clear"]]
    threshold = phrase("components.j2", "threshold", len(scored), Q, CONFIRM_MIN_PP, len(listed), FINDINGS_MAX)
    out = []
    for r in listed.head(FINDINGS_MAX).itertuples():
        rec = component_record(r, catalog, acts)
        nxt = next_command(r.component, catalog.get(r.component, {}), run,
                           replacement=(replacements or {}).get(str(r.component)))
        out.append(_listed(rec, confirmations.get(str(r.component)), threshold, nxt))
    if len(listed):
        return out
    if not len(scored):
        return [{"topic": "component", "component": "", "strength": "none found",
                 "evidence": {"figure": "no component has an estimate", "interval": "-"}, "threshold": threshold,
                 "sentence": phrase("components.j2", "none_compared"), "next": ""}]
    return [_strongest(scored, catalog, acts, threshold)]


def component_record(r, catalog: dict, acts: dict) -> dict:
    """A component's figures for its sentence and evidence (``sentences/components.j2``): its
    ``name``, ``effect`` with its interval, win rates ``with``/``without``, ``share``, ``q``, and
    where read against its peers (``peered``) ``vs_peers`` with its interval, ``peers``,
    ``peer_group``, ``per_cost``; with the title's ``acts`` wording, ``acts_sentence``/``acts_figure``."""
    peered = pd.notna(getattr(r, "vs_peers", float("nan")))
    per_cost = getattr(r, "per_cost", float("nan"))
    rec = {"component": r.component, "name": f"{r.component} ({r.what})" if r.what else str(r.component),
           "effect": r.effect, "effect_low": r.effect_low, "effect_high": r.effect_high, "with": r.win_with,
           "without": r.win_without, "share": r.share, "q": r.q, "peered": peered,
           "acts_sentence": None, "acts_figure": None, "verb_none": acts.get("verb_none") if acts else None}
    if peered:
        rec.update(vs_peers=r.vs_peers, vs_peers_low=r.vs_peers_low, vs_peers_high=r.vs_peers_high, peers=int(r.peers),
                   peer_group=r.peer_group, per_cost=per_cost if pd.notna(per_cost) else None,
                   cost_unit=(catalog.get(str(r.component)) or {}).get("cost_unit", ""))
    if acts:
        rec["acts_sentence"] = acts["sentence"].format(name=rec["name"], size=abs(r.effect),
                                                       more="more" if r.effect > 0 else "less")
        rec["acts_figure"] = acts["figure"].format(effect=r.effect, with_=r.win_with * 100,
                                                   without=r.win_without * 100, uses=int(r.holders),
                                                   q=phrase("components.j2", "q_text", r.q))
    return rec


def _evidence(rec: dict) -> dict:
    return {"figure": phrase("components.j2", "figure", rec), "interval": phrase("components.j2", "interval", rec)}


def _listed(rec: dict, c: dict | None, threshold: str, nxt: str) -> dict:
    """The finding of a component that passes the correction, with its intervention ``c`` (None:
    not played)."""
    item = {"topic": "component", "component": rec["component"], "evidence": _evidence(rec), "threshold": threshold,
            "next": nxt,
            "strength": "clear" if c and c.get("tested") is not False and c.get("confirmed") else "possible"}
    if c is not None and c.get("tested") is not False:
        item["next"] = c.get("command") or nxt
        if c.get("confirmed"):
            item["evidence"] = {"figure": c["figure"], "interval": c["interval"]}
    change = (c or {}).get("change")
    item["sentence"] = phrase("components.j2", "listed", rec, c,
                              change if isinstance(change, (int, float)) else None)
    return item


def _strongest(scored, catalog: dict, acts: dict, threshold: str) -> dict:
    """The "none found" finding: the strongest association (against its peers where tested so)."""
    tested = scored["vs_peers_p"].where(scored["vs_peers_p"].notna(), scored["p"]) if "vs_peers_p" in scored \
        else scored["p"]
    r = next(scored.loc[[tested.sort_values(kind="stable").index[0]]].itertuples())
    rec = component_record(r, catalog, acts)
    return {"topic": "component", "component": r.component, "strength": "none found", "evidence": _evidence(rec),
            "threshold": threshold, "sentence": phrase("components.j2", "strongest", rec, len(scored)), "next": ""}

