"""Component findings: the sentences a report gives for the estimates of
:func:`analyser.stats.components.estimate` (one per clear component, with its evidence, threshold and
the command that tests a fix), and their terminal lines."""

from __future__ import annotations

from analyser.stats.components import CONFIRM_MIN_PP, Q
import shlex
from analyser.text import fixed, pct, signed

# --------------------------------------------------------------------------------------------

#: Component findings in the report's numbered list at most (the rest stay in the table).
FINDINGS_MAX = 3


def _command(words) -> str:
    return " ".join(shlex.quote(str(w)) for w in words)


def next_command(cid: str, info: dict, *, game: str, strategies, games: int, players: int | None = None,
                 rules: dict | None = None, replacement: tuple[str, str, str] | None = None,
                 seed: int | str | None = None) -> str:
    """The command that tests a fix of component ``cid``: with ``replacement`` (``(option, path,
    what)``: the changed data file the report wrote into its folder), a ``compare`` of the rules
    as run against that file; with a data file the title cannot change itself (``replacement``
    ``()``: it was asked and has no typical peer for it, which is said), how to make a copy
    with the component's line edited and the ``compare`` on it; with a rule override that changes it
    (``info["fix"]``), a ``compare`` of the rules as run against the override; else a new run
    with a fresh seed and four times the games, to confirm the effect.  A ``compare`` plays the
    run's own games (its ``seed`` and game count), so side A repeats the run and the two sides are
    paired; without a recorded seed, at least 1,000 games on a seed of its own."""
    rules = {k: v for k, v in (rules or {}).items() if v not in (None, "")}
    base = ["analyser", "compare", game]
    for s in strategies:
        base += ["-s", s]
    if players:
        base += ["-p", players]
    option, path, line, fix = (info.get("option") or "", info.get("file") or "", info.get("line"),
                               info.get("fix") or "")
    n = max(int(games), 1000)
    seeded = seed is not None and str(seed).strip().lstrip("-").isdigit()

    def against(key: str, b_value: str) -> str:
        """``compare`` of the rules as run (A) against ``key`` set to ``b_value`` (B)."""
        words = list(base)
        for k, v in rules.items():
            if k != key:
                words += ["-r", f"{k}={v}"]
        if key in rules:
            words += ["--a", f"{key}={rules[key]}"]
        tail = ["--games", int(games), "--seed", seed] if seeded else ["--games", n]
        return _command(words + ["--b", b_value] + tail)

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
    words = ["analyser", "simulate", game]
    for s in strategies:
        words += ["-s", s]
    if players:
        words += ["-p", players]
    for k, v in rules.items():
        words += ["-r", f"{k}={v}"]
    words += ["--games", 4 * n]  # no --seed: a fresh one (printed and recorded), never the run's own games
    return "confirm with a fresh seed (drawn and recorded by the run) and more games: " + _command(words)


#: What an association can and cannot show, in the one line the report gives beside the table.
ASSOCIATION_LINE = ("An association shows which components go with winning, not which make a seat win: a seat "
                    "that is already ahead can afford, keep or be dealt more of some components, so only an "
                    "intervention (the same games with the component replaced) can confirm a cause.")


def findings(est, *, game: str, catalog: dict | None = None, strategies=(), games: int = 0,
             players: int | None = None, rules: dict | None = None,
             confirmations: dict | None = None, replacements: dict | None = None,
             seed: int | str | None = None) -> list[dict]:
    """The component findings of one variant, in the shape of :func:`analyser.stats.metagame.findings`:
    dicts with ``topic`` ("component"), ``component``, ``sentence``, ``strength`` ("clear",
    "possible" or "none found"), ``evidence`` {``figure``, ``interval``}, ``threshold`` and
    ``next`` (the command that tests a fix, :func:`next_command`; ``replacements``: component id
    -> the changed data file written for it, ``(option, path, what)``).

    At most :data:`FINDINGS_MAX` findings, the components that pass the Benjamini-Hochberg
    correction in rank order (the rest stay in the table).  An association is never "clear" on
    its own: it is "possible" until an intervention confirms it.  ``confirmations``: component id
    -> ``{"confirmed": bool, "figure": str, "interval": str, "command": str}`` (the paired
    intervention of :mod:`analyser.experiments.confirm`); a confirmed component is "clear" and its
    evidence is the paired figure, a component the intervention does not confirm stays
    "possible" and says so.  With no component passing the correction, one "none found" that
    names the strongest.  ``[]`` without estimates."""
    import pandas as pd

    if est is None or not len(est):
        return []
    catalog = catalog or {}
    confirmations = confirmations or {}
    acts = est.attrs.get("wording") or {}  # measured where it acts (rate_estimate), not per seat-game
    scored = est[est["p"].notna()]
    n = len(scored)
    threshold = (f"an association is listed when the Benjamini-Hochberg q over the title's {n} components with an "
                 f"estimate (of the effect against the peer group, where the title declares one) is at most {Q:g}; "
                 f"it is possible until an intervention confirms it: clear when the "
                 "paired 95% interval of the change in the holder's win rate, with the component replaced, excludes 0 "
                 f"on the side the association predicts and the change is at least {CONFIRM_MIN_PP:g} pp")
    ctx = {"game": game, "strategies": list(strategies), "games": games, "players": players, "rules": rules,
           "seed": seed}

    def name(r):
        return f"{r.component} ({r.what})" if r.what else str(r.component)

    def peered(r) -> bool:
        return pd.notna(getattr(r, "vs_peers", float("nan")))

    def evidence(r):
        q = f"q {'< 0.001' if r.q < 0.001 else f'= {fixed(r.q, 3)}'}"
        if acts:
            lead = f"{signed(r.vs_peers)} pp against its {int(r.peers)} peers, " if peered(r) else ""
            return {"figure": lead + acts["figure"].format(effect=r.effect, with_=r.win_with * 100,
                                                           without=r.win_without * 100, uses=int(r.holders), q=q),
                    "interval": (f"{signed(r.vs_peers_low)} to {signed(r.vs_peers_high)} pp" if peered(r)
                                 else f"{signed(r.effect_low)} to {signed(r.effect_high)} pp")}
        if peered(r):
            return {"figure": f"{signed(r.vs_peers)} pp against its {int(r.peers)} peers ({signed(r.effect)} pp against "
                              f"none, {signed(r.effect_low)} to {signed(r.effect_high)}); win rate {pct(r.win_with)} "
                              f"with it; held by {pct(r.share)} of seat-games; {q}",
                    "interval": f"{signed(r.vs_peers_low)} to {signed(r.vs_peers_high)} pp"}
        return {"figure": f"{signed(r.effect)} pp; win rate {pct(r.win_with)} with it, {pct(r.win_without)} "
                          f"without; held by {pct(r.share)} of seat-games; {q}",
                "interval": f"{signed(r.effect_low)} to {signed(r.effect_high)} pp"}

    def association(r):
        more = "more" if r.effect > 0 else "less"
        if acts:
            text = acts["sentence"].format(name=name(r), size=abs(r.effect), more=more)
        else:
            text = (f"{name(r)}: a seat that has it wins {fixed(abs(r.effect), 1)} pp {more} often than the same strategy "
                    f"in the same seat without it")
        if peered(r):
            unit = (catalog.get(str(r.component)) or {}).get("cost_unit", "")
            cost = (f", {signed(r.per_cost)} pp per {unit or 'unit of cost'}"
                    if pd.notna(getattr(r, "per_cost", float("nan"))) else "")
            text += (f", {signed(r.vs_peers)} pp against its peers (the mean of the {int(r.peers)} other "
                     f"{r.peer_group}{cost})")
        return text

    out = []
    listed = scored[scored["clear"]]
    for r in listed.head(FINDINGS_MAX).itertuples():
        c = confirmations.get(str(r.component))
        item = {"topic": "component", "component": r.component, "evidence": evidence(r), "threshold": threshold,
                "next": next_command(r.component, catalog.get(r.component, {}), **ctx,
                                     replacement=(replacements or {}).get(str(r.component)))}
        amount = "" if c is None else (f"{signed(c['change'])} pp" if isinstance(c.get("change"), (int, float)) else c.get("figure", ""))
        if c is None:
            item.update(strength="possible",
                        sentence=f"Possibly {association(r)} - an association, not yet confirmed by an "
                                 f"intervention.")
        elif c.get("tested") is False:
            item.update(strength="possible",
                        sentence=f"Possibly {association(r)} - an association; no intervention was played for it: "
                                 f"{c.get('why') or 'the title offers none'}.")
        elif c.get("confirmed"):
            item.update(strength="clear", evidence={"figure": c["figure"], "interval": c["interval"]},
                        next=c.get("command") or item["next"],
                        sentence=f"Confirmed: {association(r)}, and replacing it changes its holders' win rate by "
                                 f"{amount} (95% CI {c['interval']}) over the same games{'; ' + c['gap'] if c.get('gap') else ''}.")
        else:
            item.update(strength="possible", next=c.get("command") or item["next"],
                        sentence=f"Not confirmed: {association(r)}, but replacing it changes its holders' win rate "
                                 f"by {amount} (95% CI {c['interval']}) over the same games, not clearly against "
                                 f"the association{'; ' + c['gap'] if c.get('gap') else ''}.")
        out.append(item)
    if len(listed):
        return out
    if not n:
        return [{"topic": "component", "component": "", "strength": "none found",
                 "evidence": {"figure": "no component has an estimate", "interval": "-"}, "threshold": threshold,
                 "sentence": "No component could be compared: each is held by every seat or by none (see the "
                             "reasons in the table).", "next": ""}]
    tested = scored["vs_peers_p"].where(scored["vs_peers_p"].notna(), scored["p"]) if "vs_peers_p" in scored \
        else scored["p"]
    r = next(scored.loc[[tested.sort_values(kind="stable").index[0]]].itertuples())
    against = " against its peers" if peered(r) else ""
    return [{"topic": "component", "component": r.component, "strength": "none found", "evidence": evidence(r),
             "threshold": threshold,
             "sentence": f"No component {acts['verb_none'] if acts else 'goes with winning'} after the correction over {n} components: the "
                         f"strongest association{against}, {name(r)}, has q = {fixed(r.q, 2)}.", "next": ""}]


def finding_lines(items: list[dict]) -> list[str]:
    """Findings as terminal lines: ``[strength] sentence (figure; 95% CI interval)``."""
    return [f"[{f['strength']}] {f['sentence']} ({f['evidence']['figure']}; 95% CI {f['evidence']['interval']})"
            if f["evidence"]["interval"] not in ("-", "see components.csv") else f"[{f['strength']}] {f['sentence']}"
            for f in items]
