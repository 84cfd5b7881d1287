"""``analyser tournament``: rank many strategies over balanced tables.

docs/commands/tournament.md is the contract: the tables (:func:`draw_tables`, each one run with
the tournament's root seed), the ratings (:func:`rate`) and the meta-game
(:mod:`analyser.stats.metagame`).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
import random
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from analyser import findings as findmod
from analyser.stats import analysis, designer, metagame
from analyser.io.csvsafe import to_csv
from analyser.experiments import stopping
from analyser.engine.core import InputError
from analyser.experiments.base import Cell, Experiment, recorded_outcome, stack_cells
from analyser.experiments.options import BOOTSTRAP, Session, TournamentOptions
from analyser.engine.registry import get_game, title_ref
from analyser.run import RunSpec, resolve
from analyser.run.store import write_json_atomic
from analyser.text import fixed, pct, phrase, plural, sentences, thousands

#: Most tables a tournament plays; beyond this the tables are a balanced sample.
MAX_TABLES = 60
#: Regularisation of the choix fits (keeps ratings finite when one strategy always wins).
ALPHA = 0.01
#: Decimals a rating is rounded to (far below the two that are shown).
ROUND = 9


def draw_tables(m: int, n: int, limit: int = MAX_TABLES) -> tuple[list[tuple[int, ...]], str]:
    """The tables (sorted strategy indices) and how they were chosen ("all combinations" or
    "balanced sample")."""
    if math.comb(m, n) <= limit:
        return list(itertools.combinations(range(m), n)), "all combinations"
    rng = random.Random(f"analyser-tournament/{m}/{n}")
    span = math.lcm(m, n)               # one cycle: every strategy appears span / m times
    per_cycle = span // n
    tables: list[tuple[int, ...]] = []
    for _ in range(max(1, limit // per_cycle)):
        while True:
            seq = []
            for _ in range(span // m):
                order = list(range(m))
                rng.shuffle(order)
                seq += order
            cycle = [tuple(sorted(seq[k * n:(k + 1) * n])) for k in range(per_cycle)]
            if all(len(set(t)) == n for t in cycle):
                break
        tables += cycle
    return tables, "balanced sample"


@dataclass
class TournamentResult:
    strategies: list[str]
    tables: list[tuple[int, ...]]
    design: str
    results: pd.DataFrame
    ranking: pd.DataFrame
    pairwise: pd.DataFrame
    config: dict
    stop: stopping.Stop
    error: BaseException | None = None
    interrupted: bool = False
    meta: metagame.MetaGame | None = None
    #: the tournament's findings (analyser.findings.tournament_findings), set by write_tournament
    findings: object = None


#: How the ratings are fitted, for the report (two seats, more seats).
RATING_MODELS = ("Bradley-Terry (choix.ilsr_pairwise_dense; a shared win counts one half to each)",
                 "Plackett-Luce by full pairwise breaking (choix.ilsr_pairwise_dense; a shared rank counts one "
                 "half to each)")


def game_matrices(frame: pd.DataFrame, names: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Per game number ``g`` (all tables' game ``g`` together, as they share its game seed): the
    matrix ``ahead[g, a, b]`` of how often strategy ``a`` finished ahead of ``b`` at a table of
    that game, a shared rank counting one half to each.  Returns ``(game numbers, ahead)`` of
    shapes (G,) and (G, m, m)."""
    d = frame.sort_values(["table", "game_index", "seat"], kind="stable")
    players = int(d["players"].iloc[0])
    nums, game = np.unique(d["game_index"].to_numpy()[::players], return_inverse=True)
    ahead = np.zeros((len(nums), len(names), len(names)))
    for sa, sb, score in _seat_pairs(d, names, players):
        np.add.at(ahead, (game, sa, sb), score)
    return nums, ahead


def _seat_pairs(d: pd.DataFrame, names: list[str], players: int):
    """For each ordered pair of seats of the games ``d`` (rows in table, game, seat order): the
    strategy indices at the two seats and the first's score against the second (1 ahead, 1/2 a
    shared rank, 0 behind), one entry per game."""
    index = {s: i for i, s in enumerate(names)}
    strat = np.array([index[s] for s in d["strategy"].astype(str)]).reshape(-1, players)
    ranks = d["rank"].to_numpy().reshape(-1, players)
    for a, b in itertools.permutations(range(players), 2):
        score = np.where(ranks[:, a] < ranks[:, b], 1.0, np.where(ranks[:, a] == ranks[:, b], 0.5, 0.0))
        yield strat[:, a], strat[:, b], score


def fit(wins: np.ndarray, initial=None, tol: float = 1e-8) -> np.ndarray:
    """Log-strengths (mean 0) from the matrix ``wins[a, b]`` (how often ``a`` finished ahead of
    ``b``; halves for ties): choix's iterative Luce spectral ranking, regularised by
    :data:`ALPHA`, started from ``initial`` when given (``tol``: its convergence tolerance).
    Symmetric in the strategies: permuting rows and columns together permutes the result."""
    import choix

    params = np.asarray(choix.ilsr_pairwise_dense(wins, alpha=ALPHA, initial_params=initial, tol=tol))
    # rounded far below any reported digit, so that equal strengths are equal numbers (the
    # stationary distribution carries rounding noise of about 1e-16) and -0.0 reads 0.0
    return np.round(params, ROUND) + 0.0


def rate(frame: pd.DataFrame, names: list[str], bootstrap: int = BOOTSTRAP, seed: int = 0) -> pd.DataFrame:
    """Ranking table: rating with bootstrap 95% interval, win rate with the interval simulate
    gives on the same games (:func:`analysis.strategy_summary`, named in ``attrs["win_method"]``),
    mean rank, games."""
    m = len(names)
    _, ahead = game_matrices(frame, names)
    point = fit(ahead.sum(axis=0))
    rng = np.random.default_rng(seed)
    reps = []
    for _ in range(bootstrap):
        weights = np.bincount(rng.integers(0, len(ahead), len(ahead)), minlength=len(ahead)).astype(float)
        reps.append(fit(np.tensordot(weights, ahead, axes=1), initial=point, tol=1e-5))
    reps = np.array(reps) if reps else np.full((1, m), np.nan)
    lo, hi = np.percentile(reps, [2.5, 97.5], axis=0)
    summary = analysis.strategy_summary(frame).set_index("strategy")
    s = summary.loc[names]
    out = pd.DataFrame({"strategy": names, "rating": point, "rating_low": lo, "rating_high": hi,
                        **{c: s[c].to_numpy() for c in ("win_rate", "win_low", "win_high", "mean_rank")},
                        "games": s["n"].to_numpy().astype(int)})
    out = out.sort_values("rating", ascending=False, kind="stable").reset_index(drop=True)
    out.insert(0, "rank", out["rating"].rank(method="min", ascending=False).astype(int))  # equal ratings share
    out.attrs["win_method"] = summary.attrs.get("methods", {}).get("win", "wilson")
    return out


def finishes_ahead(frame: pd.DataFrame, names: list[str]) -> pd.DataFrame:
    """Matrix (row A, column B): the share of games with both at the table in which A finishes
    ahead of B (a shared rank counts one half)."""
    ahead, met = np.zeros((len(names), len(names))), np.zeros((len(names), len(names)))
    d = frame.sort_values(["table", "game_index", "seat"], kind="stable")
    for sa, sb, score in _seat_pairs(d, names, int(d["players"].iloc[0])):
        np.add.at(ahead, (sa, sb), score)
        np.add.at(met, (sa, sb), 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = ahead / met
    return pd.DataFrame(share, index=names, columns=names)


def strategy_names(strategies: list[str]) -> tuple[list[str], list[str]]:
    """The tournament's strategies, each once in the order given, and those given more than
    once; InputError (one line) for fewer than two different ones."""
    names = list(dict.fromkeys(s.strip() for s in strategies))
    given = [s.strip() for s in strategies]
    twice = [s for s in names if given.count(s) > 1]
    if len(names) < 2 and twice:
        raise InputError(f"-s {twice[0]} is given {given.count(twice[0])} times and is the only strategy; a "
                         "tournament needs at least two different --strategy (a copy under another name plays "
                         "as a strategy of its own)")
    if len(names) < 2:
        raise InputError("a tournament needs at least two different --strategy")
    return names, twice


def meetings(tables: list[tuple[int, ...]], m: int) -> dict:
    """The fewest and most tables at which a pair of the ``m`` strategies meets."""
    meets = np.zeros((m, m), dtype=int)
    for t in tables:
        for a, b in itertools.combinations(t, 2):
            meets[a, b] += 1
            meets[b, a] += 1
    off = meets[~np.eye(m, dtype=bool)]
    return {"fewest": int(off.min()), "most": int(off.max())}


@dataclass
class _Plan:
    """A tournament checked and laid out: its strategies, tables, design, root seed, workers,
    seats, games per table and cells."""

    names: list[str]
    twice: list[str]
    tables: list[tuple[int, ...]]
    design: str
    root: int
    n_jobs: int
    players: int
    per_table: int
    cells: list[Cell]


def _plan(game, spec: RunSpec) -> _Plan:
    """Check the tournament of ``spec`` and lay out its tables (each a cell); InputError first."""
    names, twice = strategy_names(spec.strategies)
    n = spec.players if spec.players is not None else game.default_players
    if len(names) < n:
        raise InputError(f"{len(names)} strategies for {n} seats; a tournament seats different strategies at "
                         f"every table, so give at least {n} --strategy or lower --players")
    tables, design = draw_tables(len(names), n)
    per_table = max(n, math.ceil(spec.games / len(tables) / n) * n)
    base = dataclasses.replace(spec, game=title_ref(game), strategies=[names[i] for i in tables[0]], players=n,
                               games=per_table, rules=dict(spec.rules))
    _, _, _, n_jobs, root = resolve(base)
    specs = [dataclasses.replace(base, strategies=[names[i] for i in t], seed=root, rules=dict(base.rules))
             for t in tables]
    stopping.validate(game, specs, n)  # every table valid before anything runs
    cells = [Cell(f"table-{k:02d}", s) for k, s in enumerate(specs)]
    return _Plan(names, twice, tables, design, root, n_jobs, n, per_table, cells)


def run_tournament(spec: RunSpec, options: TournamentOptions | None = None,
                   session: Session | None = None) -> TournamentResult:
    """Play the tables and rate the strategies ``spec.strategies``.  ``spec.games`` is the total
    over all tables.  Each table is a cell ``out/cells/table-<k>``, played as ``session``
    (:class:`~analyser.experiments.options.Session`) says."""
    options, session = options or TournamentOptions(), session or Session()
    stopping.check_width(options.until_ci)
    game = get_game(spec.game)
    plan = _plan(game, spec)
    names, n = plan.names, plan.players
    given = [s.strip() for s in spec.strategies]
    fields = {"game": title_ref(game), "game_name": game.name, "seed": plan.root,
              "strategies": names, "players": n, "tables": [[names[i] for i in t] for t in plan.tables],
              "design": plan.design, "table_meetings": meetings(plan.tables, len(names)),
              "games_requested": spec.games, "rules": dict(spec.rules),
              "notes": [duplicate_note(s, given.count(s)) for s in plan.twice]}
    run = dataclasses.replace(spec, game=title_ref(game), seed=plan.root, rules=dict(spec.rules))
    with Experiment.begin(session, "tournament", plan.cells, run=run, options=options, fields=fields) as exp:
        def games(below: int | None = None) -> pd.DataFrame:
            tables = range(len(plan.cells))
            return stack_cells([exp.results(k, below) for k in tables], "table", tables, names)

        def measure(b: int) -> float:
            s = analysis.strategy_summary(games(b))
            return float((s["win_high"] - s["win_low"]).max())

        if session.play:
            outcome = exp.play(jobs=plan.n_jobs, games=plan.per_table, players=n, until_ci=options.until_ci,
                               measure=measure, what="tables")
        else:
            outcome = recorded_outcome(exp.config)
        frame = games()
        config = dict(exp.config)
    return _rated(plan, frame, config, outcome, options.bootstrap)


def _rated(plan: _Plan, frame: pd.DataFrame, config: dict, outcome, bootstrap: int) -> TournamentResult:
    """The tournament's result from its games: ratings, who finishes ahead and the meta-game of a
    complete tournament (ratings from some of the tables would be biased, strategies sitting at
    different numbers of them: an unfinished tournament keeps its games for resume, and rates
    nothing)."""
    names, n, root = plan.names, plan.players, plan.root
    whole = len(frame) and outcome.status == "complete"
    ranking = rate(frame, names, bootstrap=bootstrap, seed=root % (2**32)) if whole else pd.DataFrame()
    pairwise = finishes_ahead(frame, names) if whole else pd.DataFrame()
    meta = None
    if whole:
        bt = ranking.set_index("strategy")["rating"].reindex(names).to_numpy() if n == 2 else None
        meta = metagame.analyse(frame, names, ratings=bt, bootstrap=bootstrap, seed=root)
    stop, error = outcome.stop, outcome.error
    config.update({"games_per_table": int(stop.games), "jobs": plan.n_jobs,
                   "rating_model": RATING_MODELS[0] if n == 2 else RATING_MODELS[1],
                   "bootstrap": bootstrap, "metagame": metagame.METHOD_2 if n == 2 else metagame.METHOD_N,
                   "stopping": stop.as_dict(), "status": outcome.status, "error": str(error) if error else None})
    return TournamentResult(names, plan.tables, plan.design, frame, ranking, pairwise, config, stop, error,
                            outcome.interrupted, meta)


def duplicate_note(spec: str, times: int) -> str:
    """The sentence for a strategy given more than once (played once: a table seats different
    strategies)."""
    return phrase("tournament.j2", "duplicate", spec, times)


def plot_pairwise(t: TournamentResult, outdir: Path) -> tuple[str, str]:
    from analyser.stats import plots
    import matplotlib.pyplot as plt

    order = list(t.ranking["strategy"])
    mat = t.pairwise.loc[order, order].to_numpy() * 100
    k = len(order)
    fig, ax = plt.subplots(figsize=(2.5 + 0.9 * k, 1.8 + 0.7 * k))
    im = ax.imshow(mat, cmap="RdBu", vmin=0, vmax=100)
    texts = []
    for i in range(k):
        for j in range(k):
            if i != j and mat[i, j] == mat[i, j]:
                texts.append((ax, ax.text(j, i, fixed(mat[i, j], 0), ha="center", va="center", fontsize=plots.LABEL_PT,
                                          color="white" if abs(mat[i, j] - 50) > 30 else "black")))
    names = [plots.short(plots.label(s)) for s in order]
    ax.set_xticks(range(k), names, rotation=45, ha="right", fontsize=9)
    ax.set_yticks(range(k), names, fontsize=9)
    fig.colorbar(im, ax=ax, shrink=0.8, label="% of shared games finishing ahead")
    ax.set_title("Row finishes ahead of column (%)", fontsize=12, loc="left", fontweight="bold")
    ax.set_xlabel("opponent")
    ax.set_ylabel("strategy")
    fig.tight_layout()  # as plots.save lays it out, so the labels fit the final cells
    plots.fit_cell_labels(fig, texts, k, k, 3)
    return plots.save(fig, outdir / "pairwise.png", phrase("tournament.j2", "pairwise_caption"))


def plot_ratings(t: TournamentResult, outdir: Path) -> tuple[str, str]:
    from analyser.stats import plots
    import matplotlib.pyplot as plt

    r = t.ranking.iloc[::-1]
    fig, ax = plt.subplots(figsize=(8, 1.4 + 0.45 * len(r)))
    y = np.arange(len(r))
    ax.errorbar(r["rating"], y, xerr=np.clip(np.vstack([r["rating"] - r["rating_low"], r["rating_high"] - r["rating"]]),
                                              0, None), fmt="o", color="#3a6ea5", capsize=4)
    ax.set_yticks(y, [plots.short(plots.label(s)) for s in r["strategy"]], fontsize=9)
    ax.axvline(0, color="#888888", lw=0.8)
    plots.style(ax, "Ratings with 95% bootstrap intervals", "rating (log-strength, mean 0)", "")
    return plots.save(fig, outdir / "ratings.png", phrase("tournament.j2", "ratings_caption", t.config))


def metagame_note(t: TournamentResult) -> str:
    """What the meta-game table shows and how it was computed."""
    return phrase("tournament.j2", "metagame_note", t.config, t.meta, metagame.SUPPORT)


def _cards(t: TournamentResult) -> list[tuple[str, str, str]]:
    """The headline cards of a tournament's page: the top rated, the equilibrium mix, the tables,
    the games and the seed."""
    best = t.ranking.iloc[0]
    cards = [("top rated", str(best["strategy"]), phrase("tournament.j2", "rating_card", best.to_dict())),
             ("tables", str(len(t.tables)), t.design),
             ("games per table", thousands(t.config["games_per_table"]), plural(t.config["players"], "player")),
             ("seed", str(t.config["seed"]), "root seed of every table")]
    if t.meta is not None:
        used = t.meta.table[t.meta.table["weight"] >= metagame.SUPPORT]
        mix = list(zip(used["strategy"], used["weight"]))
        cards.insert(1, ("equilibrium mix", str(mix[0][0]) if len(mix) == 1 else plural(len(mix), "strategy", "strategies"),
                         phrase("tournament.j2", "mix_card", mix)))
    return cards


def write_tournament(t: TournamentResult, outdir: Path) -> list[str]:
    """Write the tournament's tables, ``findings.json`` (``t.findings``:
    :func:`analyser.findings.tournament_findings`), plots, ``index.html`` and ``config.json``;
    return the file names."""
    from analyser.stats import plots
    from analyser.report import page as reportmod

    outdir.mkdir(parents=True, exist_ok=True)
    files = []
    if not len(t.results) or not len(t.ranking):  # (an unfinished tournament: see run_tournament)
        write_json_atomic(outdir / "config.json", t.config)
        return files
    t.results.to_parquet(outdir / "tournament.parquet", index=False)
    to_csv(t.ranking, outdir / "ranking.csv", index=False)
    to_csv(t.pairwise, outdir / "pairwise.csv")
    files += ["tournament.parquet", "ranking.csv", "pairwise.csv"]
    game = get_game(t.config["game"])
    seats = analysis.seat_summary(t.results)
    seat_strat = reportmod.strategy_seat_display(analysis.strategy_seat_summary(t.results))
    order = list(t.ranking["strategy"])
    ahead = t.pairwise.loc[order, order].map(lambda v: pct(v, 1))
    ahead = ahead.rename_axis("row ahead of column").reset_index()
    figures = [plot_ratings(t, outdir), plot_pairwise(t, outdir),
               plots.seat_win_rate(seats, outdir / "seat_win_rate.png")]
    meta = t.meta
    if meta is not None:
        figures.insert(0, metagame.plot(meta, outdir / "metagame.png"))
        meta_table = metagame.with_ratings(meta, t.ranking)
        to_csv(meta_table, outdir / "metagame.csv", index=False)
        to_csv(meta.game, outdir / "empirical_game.csv")
        files += ["metagame.csv", "empirical_game.csv"]
    bal = analysis.seat_balance(t.results)
    t.findings = findings = findmod.tournament_findings(t, meta.findings if meta is not None else [], seats, bal)
    findmod.write_json(outdir / "findings.json", "tournament", t.config["game"], [findings])
    files.append("findings.json")
    say = functools.partial(phrase, "tournament.j2")
    sections = [("Meta-game", reportmod.html_table(meta_table), metagame_note(t))] if meta is not None else []
    method = analysis.METHODS[analysis.strategy_summary(t.results).attrs["methods"]["win"]]
    sections += [("Ranking", reportmod.html_table(t.ranking), say("ranking_note", t.config, method)),
                 ("Turn order", reportmod.html_table(seats[["seat", "n", "win_rate", "win_low", "win_high", "mean_score"]]),
                  say("seats_note", bal["verdict"])),
                 ("Win rate by strategy and seat", reportmod.html_table(seat_strat, formatted=True),
                  say("seat_strategy_note")),
                 ("Who finishes ahead of whom", reportmod.html_table(ahead, formatted=True), say("ahead_note")),
                 ("Designer figures", reportmod.html_table(designer.designer_table(t.results, game)),
                  "Defined in docs/metrics.md (Designer metrics).")]
    reportmod.write_experiment_page(outdir, reportmod.ExperimentPage(
        title=say("title", t.config), lead=", ".join(t.strategies), cards=_cards(t),
        notes=sentences("tournament.j2", r=dict(t.config, stop=t.stop.reason)), sections=sections, figures=figures,
        config=t.config, findings=findings,
        figure_sections={"metagame.png": "Meta-game", "ratings.png": "Ranking", "seat_win_rate.png": "Turn order",
                         "pairwise.png": "Who finishes ahead of whom"}))
    files += [n for n, _ in figures] + ["index.html"]
    t.config["files"] = sorted(set(files) | {"config.json"})
    write_json_atomic(outdir / "config.json", t.config)
    return files
