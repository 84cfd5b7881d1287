"""Component findings: the sentences a report gives for the estimates of
:func:`analyser.components.estimate` (one per clear component, with its evidence, threshold and
the command that tests a fix), and their terminal lines."""

from __future__ import annotations

# --------------------------------------------------------------------------------------------

#: Clear components named one by one in the findings (the rest in one more finding).
FINDINGS_MAX = 5


def _command(words) -> str:
    import shlex

    return " ".join(shlex.quote(str(w)) for w in words)


def next_command(cid: str, info: dict, *, game: str, strategies, games: int, players: int | None = None,
                 rules: dict | None = None) -> str:
    """The command that tests a fix of component ``cid``: with a data file, a ``compare`` of the
    file against a copy with the component's line edited; with a rule override that changes it
    (``info["fix"]``), a ``compare`` of the rules as run against the override; else a new run
    with a fresh seed and four times the games, to confirm the effect."""
    rules = {k: v for k, v in (rules or {}).items() if v not in (None, "")}
    base = ["analyser", "compare", game]
    for s in strategies:
        base += ["-s", s]
    if players:
        base += ["-p", players]
    option, path, line, fix = (info.get("option") or "", info.get("file") or "", info.get("line"),
                               info.get("fix") or "")
    n = max(int(games), 1000)

    def against(key: str, b_value: str) -> str:
        """``compare`` of the rules as run (A) against ``key`` set to ``b_value`` (B)."""
        words = list(base)
        for k, v in rules.items():
            if k != key:
                words += ["-r", f"{k}={v}"]
        if key in rules:
            words += ["--a", f"{key}={rules[key]}"]
        return _command(words + ["--b", b_value, "--games", n])

    if option and path:
        where = f"line {line} of {path}" if line else f"the entry of {cid} in {path}"
        then = against(option, f"{option}=fixed.csv")
        return f"copy {path} to fixed.csv, change {where} (component {cid}), then: {then}"
    if fix:
        return against(fix.partition("=")[0], fix)
    words = ["analyser", "simulate", game]
    for s in strategies:
        words += ["-s", s]
    if players:
        words += ["-p", players]
    for k, v in rules.items():
        words += ["-r", f"{k}={v}"]
    words += ["--games", 4 * n, "--seed", "2"]
    return "confirm with a fresh seed and more games: " + _command(words)


def findings(est, *, game: str, catalog: dict | None = None, strategies=(), games: int = 0,
             players: int | None = None, rules: dict | None = None) -> list[dict]:
    """The component findings of one variant, in the shape of :func:`analyser.metagame.findings`:
    dicts with ``topic`` ("component"), ``sentence``, ``strength`` ("clear", "possible" or "none
    found"), ``evidence`` {``figure``, ``interval``}, ``threshold`` and ``next`` (the command
    that tests a fix, :func:`next_command`).  One finding per clear component, the first
    :data:`FINDINGS_MAX` in rank order (then one listing the rest); with none clear, the
    strongest component that passes a 95% interval on its own ("possible"), else "none found".
    ``[]`` without estimates."""
    import pandas as pd

    from analyser.components import Q

    if est is None or not len(est):
        return []
    catalog = catalog or {}
    scored = est[est["p"].notna()]
    n = len(scored)
    threshold = (f"clear when the Benjamini-Hochberg q over the title's {n} components with an estimate is at most "
                 f"{Q:g} (a 95% interval that excludes 0 is then implied)")
    ctx = {"game": game, "strategies": list(strategies), "games": games, "players": players, "rules": rules}

    def name(r):
        return f"{r.component} ({r.what})" if r.what else str(r.component)

    def evidence(r):
        return {"figure": f"{r.effect:+.1f} pp; win rate {r.win_with * 100:.1f}% with it, {r.win_without * 100:.1f}% "
                          f"without; held by {r.share * 100:.1f}% of seat-games; q "
                          f"{'< 0.001' if r.q < 0.001 else f'= {r.q:.3f}'}",
                "interval": f"{r.effect_low:+.1f} to {r.effect_high:+.1f} pp"}

    def sentence(r, lead=""):
        more = "more" if r.effect > 0 else "less"
        return (f"{lead}{name(r)}: a seat that has it wins {abs(r.effect):.1f} pp {more} often than the same "
                f"strategy in the same seat without it.")

    out = []
    clear = scored[scored["clear"]]
    for r in clear.head(FINDINGS_MAX).itertuples():
        out.append({"topic": "component", "component": r.component, "strength": "clear", "evidence": evidence(r),
                    "threshold": threshold, "sentence": sentence(r),
                    "next": next_command(r.component, catalog.get(r.component, {}), **ctx)})
    rest = clear.iloc[FINDINGS_MAX:]
    if len(rest):
        ids = ", ".join(f"{r.component} ({r.effect:+.1f} pp)" for r in rest.itertuples())
        out.append({"topic": "component", "component": "", "strength": "clear",
                    "evidence": {"figure": f"{len(rest)} more components", "interval": "see components.csv"},
                    "threshold": threshold, "sentence": f"{len(rest)} more components have a clear effect: {ids}.",
                    "next": "the ranked table and components.csv"})
    if len(clear):
        return out
    if not n:
        out.append({"topic": "component", "component": "", "strength": "none found",
                    "evidence": {"figure": "no component has an estimate", "interval": "-"}, "threshold": threshold,
                    "sentence": "No component could be compared: each is held by every seat or by none (see the "
                                "reasons in the table).", "next": ""})
        return out
    top = scored.sort_values("p", kind="stable").iloc[0]
    r = next(scored.loc[[top.name]].itertuples())
    if pd.notna(r.p) and r.p < 0.05:
        out.append({"topic": "component", "component": r.component, "strength": "possible", "evidence": evidence(r),
                    "threshold": threshold,
                    "sentence": sentence(r) [:-1] + f", but the effect is not clear after the correction over "
                                                    f"{n} components.",
                    "next": next_command(r.component, catalog.get(r.component, {}), **ctx)})
    else:
        out.append({"topic": "component", "component": r.component, "strength": "none found",
                    "evidence": evidence(r), "threshold": threshold,
                    "sentence": f"No component changes the win rate clearly: the strongest, {name(r)}, has q = "
                                f"{r.q:.2f}.", "next": next_command(r.component, catalog.get(r.component, {}), **ctx)})
    return out


def finding_lines(items: list[dict]) -> list[str]:
    """Findings as terminal lines: ``[strength] sentence (figure; 95% CI interval)``."""
    return [f"[{f['strength']}] {f['sentence']} ({f['evidence']['figure']}; 95% CI {f['evidence']['interval']})"
            if f["evidence"]["interval"] not in ("-", "see components.csv") else f"[{f['strength']}] {f['sentence']}"
            for f in items]
