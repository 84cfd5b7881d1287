"""Regenerate the worked examples in README.md and docs/: every quoted table or figure comes from the
command printed right above it.

A worked example is marked in the markdown like this::

    <!-- example: NAME -->
    ```sh
    analyser ... (one or more commands, exactly as a reader would type them)
    ```

    ... the generated part: tables, figures, an excerpt of the output ...
    <!-- /example -->

This script finds every marked example in README.md and docs/**/*.md, runs its commands at full
size as printed (each in a scratch folder of its own; `--out` is added to a command that has none,
which changes no result), reads what they write (summary.csv, cells.csv, ranking.csv,
pairwise.csv, compare.csv, config.json, the results and rounds tables, the printed output) and
rewrites the generated part between the command block and ``<!-- /example -->``. NAME picks the
renderer in RENDERERS below. Text outside the markers (the "Read:" paragraphs that interpret a
table) is never touched: when a table changes, the script says so, and its reading must be checked
by hand.

Running it twice changes nothing (every command has a fixed --seed, and results do not depend on
--jobs). It prints, per example, "unchanged" or the lines that changed.

    python tools/regenerate_examples.py                 # run everything, rewrite the files
    python tools/regenerate_examples.py --check         # exit 1 if any example would change
    python tools/regenerate_examples.py --only sweep-dao-limits --jobs 2
    python tools/regenerate_examples.py --list          # the examples and their commands
    python tools/regenerate_examples.py --keep DIR --reuse   # keep the runs in DIR; reuse those finished there

It exits with code 1 when an example failed (its part is left as it was) or, with --check, when one
would change.

The whole set took about 15 minutes of CPU time on the two-core development machine, most of it the
search player's strength ladder (docs/mcts.md).
"""

from __future__ import annotations

import argparse
import difflib
import json
import math
import re
import shlex
import shutil
import hashlib
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from statistics import NormalDist

ROOT = Path(__file__).resolve().parents[1]

#: One marked example: the opening marker, one ```sh block, the generated part, the closing marker.
EXAMPLE = re.compile(r"^<!-- example: (?P<name>[a-z0-9-]+) -->\n(?P<block>```sh\n(?P<commands>.*?)^```\n)"
                     r"(?P<generated>.*?)^<!-- /example -->$", re.S | re.M)
OPEN_MARK = re.compile(r"^<!-- example: (.*?) -->$", re.M)
CLOSE_MARK = re.compile(r"^<!-- /example -->$", re.M)

#: Commands whose results do not depend on --jobs, and which take it.
TAKES_JOBS = ("simulate", "sweep", "tournament", "compare")


# ---------------------------------------------------------------------------------------------
# finding examples
# ---------------------------------------------------------------------------------------------

def doc_files(root: Path = ROOT) -> list[Path]:
    """README.md and every markdown file under docs/, in a fixed order."""
    return [root / "README.md"] + sorted((root / "docs").rglob("*.md"))


@dataclass
class Example:
    name: str
    path: Path
    commands: list[str]
    generated: str
    span: tuple[int, int]  # of the generated part in the file's text


def commands_of(block: str) -> list[str]:
    return [line.strip() for line in block.splitlines() if line.strip().startswith("analyser ")]


def find_examples(path: Path, text: str | None = None) -> list[Example]:
    """The marked examples of one file. A marker that does not wrap exactly one ```sh block of
    commands followed by its generated part raises ValueError naming the file and the marker."""
    text = path.read_text() if text is None else text
    found = [Example(m["name"], path, commands_of(m["commands"]), m["generated"], m.span("generated"))
             for m in EXAMPLE.finditer(text)]
    opened = OPEN_MARK.findall(text)
    if len(opened) != len(found) or len(CLOSE_MARK.findall(text)) != len(found):
        good = {e.name for e in found}
        bad = [n for n in opened if n not in good] or opened
        raise ValueError(f"{path}: example marker(s) {', '.join(bad)} must wrap one ```sh block of commands "
                         "and end with <!-- /example -->")
    for e in found:
        if not e.commands:
            raise ValueError(f"{path}: example {e.name} has no `analyser ...` command in its ```sh block")
    return found


def all_examples(root: Path = ROOT) -> list[Example]:
    return [e for p in doc_files(root) for e in find_examples(p)]


# ---------------------------------------------------------------------------------------------
# running commands
# ---------------------------------------------------------------------------------------------

@dataclass
class Run:
    """One command that ran: its arguments (after `analyser`), the folder it wrote (None for a
    command that writes none, such as `play`) and what it printed."""

    command: str
    args: list[str]
    out: Path | None
    stdout: str = ""

    @property
    def verb(self) -> str:
        return self.args[0]

    def option(self, *names: str) -> str | None:
        for i, a in enumerate(self.args):
            if a in names and i + 1 < len(self.args):
                return self.args[i + 1]
        return None

    def strategies(self, flag=("-s", "--strategy")) -> list[str]:
        return [self.args[i + 1] for i, a in enumerate(self.args[:-1]) if a in flag]

    @property
    def config(self) -> dict:
        return json.loads((self.out / "config.json").read_text())


def with_jobs(args: list[str], jobs: int | None) -> list[str]:
    if jobs is None or args[0] not in TAKES_JOBS:
        return args
    args = list(args)
    for flag in ("-j", "--jobs"):
        if flag in args:
            args[args.index(flag) + 1] = str(jobs)
            return args
    return args + ["--jobs", str(jobs)]


def plan(args: list[str], default: str = "out") -> tuple[list[str], str | None]:
    """The arguments to run (`--out DEFAULT` added to a command that writes a folder and names none,
    which changes no result) and the folder the command writes (None for `play`)."""
    if args[0] not in ("simulate", "sweep", "tournament", "compare"):
        return args, None
    named = Run("", args, None).option("-o", "--out")
    if named is None:
        return args + ["--out", default], default
    return args, named


def run_command(command: str, where: Path, jobs: int | None = None, python: str = sys.executable,
                reuse: bool = False) -> Run:
    """Run one `analyser ...` command in the folder `where` (created), as printed; a command that
    writes a folder and names none gets `--out out`. With `reuse`, a folder in which this very
    command already finished is read again instead."""
    args, named = plan(shlex.split(command)[1:])
    out = where / named if named else None
    done = where / "finished-command.txt"
    if reuse and done.exists() and done.read_text() == command:
        return Run(command, args, out, (where / "stdout.txt").read_text())
    if where.exists():
        shutil.rmtree(where)
    where.mkdir(parents=True)
    proc = subprocess.run([python, "-m", "analyser", *with_jobs(args, jobs)], cwd=where, capture_output=True,
                          text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"`{command}` exited with code {proc.returncode}:\n{proc.stdout[-2000:]}"
                           f"{proc.stderr[-2000:]}")
    (where / "stdout.txt").write_text(proc.stdout)
    done.write_text(command)
    return Run(command, args, out, proc.stdout)


def folder_for(command: str) -> str:
    """A stable scratch folder name for a command."""
    return hashlib.sha256(command.encode()).hexdigest()[:12]


# ---------------------------------------------------------------------------------------------
# formatting
# ---------------------------------------------------------------------------------------------

def pct(x: float, digits: int = 1) -> str:
    return f"{100 * x:.{digits}f}%"


def pct_ci(lo: float, hi: float, digits: int = 1) -> str:
    return f"{100 * lo:.{digits}f}-{100 * hi:.{digits}f}%"


def signed(x: float, digits: int = 2, unit: str = "") -> str:
    s = f"{x:+.{digits}f}"
    if float(s) == 0:
        s = f"{0:.{digits}f}"
    return s + unit


def to(lo: float, hi: float, digits: int = 2, unit: str = "") -> str:
    """An interval of a difference, signed: -13.6 to -10.1 pp."""
    return f"{signed(lo, digits)} to {signed(hi, digits)}{unit}"


def span(lo: float, hi: float, digits: int = 2) -> str:
    """An interval of a level, unsigned unless negative: 8.42 to 8.83."""
    return f"{lo:.{digits}f} to {hi:.{digits}f}"


def p_value(p: float) -> str:
    """2 significant digits; below 0.001 as a power of ten (1e-37); 0 (below the smallest double)
    as < 1e-300."""
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return ""
    if p == 0:
        return "< 1e-300"
    if p < 0.001:
        m, e = f"{p:.0e}".split("e")
        return f"{m}e{int(e)}"
    return f"{p:.2g}"


def whole(x: float) -> str:
    return f"{x:,.0f}"


def table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def read_csv(path: Path):
    import pandas as pd
    return pd.read_csv(path)


def summary(run: Run):
    """summary.csv of a simulate run, indexed by strategy."""
    return read_csv(run.out / "summary.csv").set_index("strategy")


def report_summary(run: Run):
    """The numbers of the run's report (analyser.report.page.summarise_run: the same code as `analyser report`),
    for the figures no CSV holds (seats, designer figures, title tables)."""
    from analyser.report.page import summarise_run
    return summarise_run(run.out)


def designer_value(run: Run, starts: str) -> str:
    d = report_summary(run).parts[0].designer
    row = d[d["figure"].str.startswith(starts)]
    if row.empty:
        raise KeyError(f"{run.command}: the report has no designer figure starting {starts!r}")
    return str(row["value"].iloc[0])


def results(run: Run, columns: list[str]):
    """Some columns of the run's results (its Parquet parts)."""
    import pandas as pd
    return pd.read_parquet(run.out / "results", columns=columns)


# ---------------------------------------------------------------------------------------------
# renderers: one per example name; each returns the generated markdown
# ---------------------------------------------------------------------------------------------

def strategies_table(run: Run, extra=None) -> str:
    s = summary(run)
    header = ["strategy", "player-games", "win rate", "95% CI", "mean score", "95% CI", "mean rank"]
    rows = []
    for name, r in s.iterrows():
        row = [f"`{name}`", whole(r["n"]), pct(r["win_rate"]), pct_ci(r["win_low"], r["win_high"]),
               f"{r['mean_score']:.2f}", span(r["score_low"], r["score_high"]), f"{r['mean_rank']:.2f}"]
        if extra:
            row += extra(name)
        rows.append(row)
    return header, rows


def render_tour_simulate(runs: list[Run]) -> str:
    run, = runs
    header, rows = strategies_table(run)
    rep = report_summary(run)
    seats = rep.seats
    seat_rows = [[int(r["seat"]), pct(r["win_rate"]), pct_ci(r["win_low"], r["win_high"])]
                 for _, r in seats.iterrows()]
    return "\n\n".join([
        "Strategies (`summary.csv`):", table(header, rows),
        "Seats (turn order; fair share " + pct(1 / run.config["players"]) + "):",
        table(["seat", "win rate", "95% CI"], seat_rows),
        "Seat balance: " + rep.run["seats"]["verdict"] + ".",
        "Skill share (designer figures), on the win share: " + designer_value(run, "skill share (")
        + "; score-based: " + designer_value(run, "skill share, score-based") + "."])


def render_compare(runs: list[Run]) -> str:
    run, = runs
    c = read_csv(run.out / "compare.csv")
    cfg = run.config
    a = ", ".join(f"{k}={v}" for k, v in cfg["a"]["rule_overrides"].items()) or ", ".join(cfg["a"]["strategies"])
    b = ", ".join(f"{k}={v}" for k, v in cfg["b"]["rule_overrides"].items()) or ", ".join(cfg["b"]["strategies"])
    rows = []
    for _, r in c.iterrows():
        rate = "rate" in r["figure"]
        if rate:
            vals = [pct(r["a"]), pct(r["b"]), signed(100 * r["diff"], 1, " pp"),
                    to(100 * r["low"], 100 * r["high"], 1, " pp")]
        else:
            vals = [f"{r['a']:.2f}", f"{r['b']:.2f}", signed(r["diff"]), to(r["low"], r["high"])]
        rows.append([r["figure"], *vals, p_value(r["p"])])
    paired = "paired" if cfg.get("paired") else "not paired"
    return "\n\n".join([
        f"{whole(cfg['games'])} games a side, {cfg['a']['players']} players, root seed {cfg['seed']} ({paired}); "
        f"`compare.csv`:",
        table(["figure", f"A ({a})", f"B ({b})", "A - B", "95% CI", "p"], rows)])


def render_sweep(runs: list[Run]) -> str:
    run, = runs
    cfg = run.config
    cells = read_csv(run.out / "cells.csv")
    focus = cells[cells["diff"].notna()].sort_values(["win_rate", "cell"], ascending=[False, True])
    dims = [d for d, _ in cfg["dims"]]
    focus_name = focus["strategy"].iloc[0].split(":")[0]
    like = focus[focus["tied_with_best"].astype(bool) | focus["best"].astype(bool)]
    shown = focus.head(max(4, len(like) + 2))
    rows = []
    for _, r in shown.iterrows():
        best = bool(r["best"])
        rows.append([*(str(r[d]) for d in dims), pct(r["win_rate"]), pct_ci(r["win_low"], r["win_high"]),
                     "0" if best else signed(100 * r["diff"], 1),
                     "" if best else to(100 * r["diff_low"], 100 * r["diff_high"], 1),
                     "best" if best else ("yes" if bool(r["tied_with_best"]) else "no")])
    n_cells = cells["cell"].nunique()
    parts = [
        f"{n_cells} cells x {whole(cfg['games_per_cell'])} games, {cfg['players']} players, seed {cfg['seed']}; "
        f"the best {len(shown)} cells of `cells.csv` (pairing: {cfg['pairing']['note']}):",
        table([*(f"`{d}`" for d in dims), f"win rate of {focus_name}", "95% CI", "difference from best (pp)",
               "paired 95% CI", "like the best"], rows)]
    if len(dims) == 2:  # the best value of the first option for each value of the second
        first, second = dims
        per = focus.groupby(second, sort=True).head(1).sort_values(second)
        parts += [f"The best `{first}` for each `{second}`:",
                  table([f"`{second}`", f"best `{first}`", f"win rate of {focus_name}", "95% CI"],
                        [[str(r[second]), str(r[first]), pct(r["win_rate"]), pct_ci(r["win_low"], r["win_high"])]
                         for _, r in per.iterrows()])]
    return "\n\n".join(parts)


def render_tournament(runs: list[Run]) -> str:
    run, = runs
    cfg = run.config
    r = read_csv(run.out / "ranking.csv")
    rows = [[int(x["rank"]), f"`{x['strategy']}`", f"{x['rating']:.2f}", span(x["rating_low"], x["rating_high"]),
             pct(x["win_rate"]), pct_ci(x["win_low"], x["win_high"]), f"{x['mean_rank']:.2f}", whole(x["games"])]
            for _, x in r.iterrows()]
    pw = read_csv(run.out / "pairwise.csv").set_index("Unnamed: 0")
    order = list(r["strategy"])
    pw_rows = [[f"`{a}`", *("" if a == b else pct(pw.loc[a, b], 0) for b in order)] for a in order]
    return "\n\n".join([
        f"{len(cfg['tables'])} tables ({cfg['design']}) x {whole(cfg['games_per_table'])} games, "
        f"{cfg['players']} players, seed {cfg['seed']}; ratings: {cfg['rating_model']}. `ranking.csv`:",
        table(["rank", "strategy", "rating", "95% CI", "win rate", "95% CI", "mean rank", "player-games"], rows),
        "How often the row strategy finishes ahead of the column strategy where both sit (`pairwise.csv`):",
        table(["", *(f"`{b}`" for b in order)], pw_rows)])


def render_metagame(runs: list[Run]) -> str:
    run, = runs
    cfg = run.config
    m = read_csv(run.out / "metagame.csv")
    rank = read_csv(run.out / "ranking.csv").set_index("strategy")["rank"]
    rows = [[f"`{x['strategy']}`", f"{x['rating']:.2f} ({int(rank[x['strategy']])})", span(x["rating_low"], x["rating_high"]),
             pct(x["weight"]), pct_ci(x["weight_low"], x["weight_high"]), signed(x["nash_average_pp"], 1),
             to(x["nash_average_pp_low"], x["nash_average_pp_high"], 1), pct(x["field_share"])]
            for _, x in m.iterrows()]
    game = read_csv(run.out / "empirical_game.csv").set_index("Unnamed: 0")
    order = list(m["strategy"])
    game_rows = [[f"`{a}`", *("" if a == b else pct(game.loc[a, b], 0) for b in order)] for a in order]
    findings = json.loads((run.out / "findings.json").read_text())
    if isinstance(findings, dict):  # the report's Findings (analyser.findings/1): those found
        findings = [f for f in findings.get("findings", []) if f.get("strength") != "none found"]
    found = [f"- *{f['strength']}*: {f['sentence']} ({f['evidence'].get('figure', '')}"
             + ("" if f["evidence"].get("interval") in ("-", "", None) else f"; 95% CI {f['evidence']['interval']}") + ")"
             for f in findings]
    return "\n\n".join([
        f"{len(cfg['strategies'])} strategies, {cfg['players']} players, seed {cfg['seed']}: "
        f"{whole(cfg['games_per_table'])} games at each of the tables ({cfg['design']}). Meta-game: "
        f"{cfg.get('metagame', '')}. `metagame.csv`, with the rating's rank from `ranking.csv`:",
        table(["strategy", "rating (rank)", "95% CI", "equilibrium weight", "95% CI", "Nash average (pp)", "95% CI",
               "field share"], rows),
        "The empirical game (`empirical_game.csv`): how often the row strategy wins against the column strategy:",
        table(["", *(f"`{b}`" for b in order)], game_rows),
        "Findings (`findings.json`):", "\n".join(found)])


def render_until_ci(runs: list[Run]) -> str:
    run, = runs
    st = run.config["stopping"]
    rows = [[i + 1, whole(g), f"{w:.4f}"] for i, (g, w) in enumerate(st["history"])]
    return "\n\n".join([
        f"`stopping` in `config.json`: \"{st['reason']}\"; {st['rounds']} round{'s' if st['rounds'] != 1 else ''}, {whole(st['games'])} of "
        f"{whole(run.config['games_requested'])} games. The widest interval after each round:",
        table(["round", "games", "widest 95% interval"], rows)])


def render_skill_share(runs: list[Run]) -> str:
    def share(run: Run, starts: str) -> tuple[float, float, float]:
        value = designer_value(run, starts)
        # "33.56% (95% CI 33.33-33.90%); luck share 66.44%": the share, then the interval's two ends
        numbers = [float(x) for x in re.findall(r"\d+(?:\.\d+)?", value.replace("95% CI", ""))]
        if len(numbers) < 3:
            raise ValueError(f"{run.command}: cannot read the skill share from {value!r}")
        return numbers[0], numbers[1], numbers[2]

    rows = []
    for run in runs:
        lineup = ", ".join(f"`{s}`" for s in run.strategies())
        row = [lineup, whole(run.config["games_completed"])]
        for starts in ("skill share (", "skill share, score-based"):
            value, lo, hi = share(run, starts)
            row += [f"{value:.1f}%", f"{lo:.1f}-{hi:.1f}%"]
        rows.append(row)
    return table(["strategies (cycling over the seats)", "games", "skill share (win share)", "95% CI",
                  "score-based", "95% CI"], rows)


def render_wizard_calibration(runs: list[Run]) -> str:
    run, = runs
    import pandas as pd
    rounds = pd.read_parquet(run.out / "rounds", columns=["round", "bid", "tricks", "exact"])
    gap = rounds["bid"] - rounds["tricks"]
    per_round = gap.groupby(rounds["round"]).mean()
    worst = per_round.abs().idxmax()
    rows = [["mean bid minus tricks taken, per round and seat", signed(gap.mean())],
            ["largest mean gap in any one round", f"{signed(per_round[worst])} (round {worst})"],
            ["bids exact", pct(rounds["exact"].mean(), 0)]]
    return "\n\n".join([f"{whole(run.config['games_completed'])} games, `rounds/` table:",
                        table(["figure", "value"], rows)])


def per_strategy_mean(run: Run, column: str) -> dict:
    df = results(run, ["strategy", column])
    return df.groupby("strategy", observed=True)[column].mean().to_dict()


def render_kd_spells(runs: list[Run]) -> str:
    rows = []
    for run in runs:
        s = summary(run)
        spells = per_strategy_mean(run, "spells")
        for name in run.strategies():
            r = s.loc[name]
            rows.append([f"`{name}`", pct(r["win_rate"]), pct_ci(r["win_low"], r["win_high"]),
                         f"{spells[name]:.2f}", f"{r['mean_score']:.1f}"])
    n = whole(runs[0].config["games_completed"])
    return "\n\n".join([f"{n} games each; the first run's two rows, then the second's:",
                        table(["strategy", "win rate", "95% CI", "spells gained per game", "mean score"], rows)])


def render_summary_table(runs: list[Run]) -> str:
    run, = runs
    header, rows = strategies_table(run)
    return "\n\n".join([f"{whole(run.config['games_completed'])} games, {run.config['players']} players, "
                        f"seed {run.config['seed']}; `summary.csv`:", table(header, rows)])


def render_tsuro_start(runs: list[Run]) -> str:
    run, = runs
    survived = per_strategy_mean(run, "survived")
    header, rows = strategies_table(run, extra=lambda name: [pct(survived[name])])
    return "\n\n".join([f"{whole(run.config['games_completed'])} games, {run.config['players']} players, "
                        f"seed {run.config['seed']}; the score is the ship's own turns completed afloat:",
                        table(header + ["ships afloat at the end"], rows)])


def render_play_last_step(runs: list[Run]) -> str:
    run, = runs
    lines = run.stdout.rstrip("\n").splitlines()
    start = max(i for i, line in enumerate(lines) if line.startswith("step "))
    body = "\n".join(line.rstrip() for line in lines[start:])
    return f"The last step of that game, as printed:\n\n```text\n{body}\n```"


def render_mcts_ladder(runs: list[Run]) -> str:
    rows, more = [], []
    for run in runs:
        s = summary(run)
        names = run.strategies()
        best = next(n for n in names if n != "random" and not n.startswith("mcts"))

        def cell(n):
            r = s.loc[n]
            return f"{pct(r['win_rate'])} ({pct_ci(r['win_low'], r['win_high'])})"
        mcts = [n for n in names if n.startswith("mcts")]
        rows.append([f"`{run.config['game']}`", whole(run.config["games_completed"]), cell("random"),
                     f"`{best}` {cell(best)}", *(cell(n) for n in mcts)])
        strong = mcts[-1]
        if run.config["game"] == "wizard":
            rep = report_summary(run)
            bid = next(t for name, t in rep.parts[0].title_tables if name.startswith("Wizard bidding"))
            bid = bid.set_index("strategy")
            for n in (strong, best):
                more.append(["`wizard`", f"`{n}`", f"exact bids {pct(bid.loc[n, 'exact_rate'], 0)} of its rounds; "
                             f"{bid.loc[n, 'points_per_round']:.1f} points a round"])
        if run.config["game"] == "dragon-lairds":
            for n in (strong, best):
                r = s.loc[n]
                wins = r["win_rate"] * r["n"]
                more.append(["`dragon-lairds`", f"`{n}`", f"won {wins:g} of {whole(r['n'])} games; "
                             f"{r['mean_score']:.1f} royals a game"])
    labels = [f"`{n}`" for n in runs[0].strategies() if n.startswith("mcts")]
    return "\n\n".join([
        "Win rate with the 95% interval the summary prints (4 players, one of each strategy at every table, "
        "seats rotated):",
        table(["title", "games", "`random`", "best heuristic", *labels], rows),
        "Beside the win rates:", table(["title", "strategy", "figure"], more)])


def render_cluster_effect(runs: list[Run]) -> str:
    run, = runs
    s = summary(run)
    import scipy.stats
    rows = []
    for name, r in s.iterrows():
        games = run.config["games_completed"]
        t = scipy.stats.t.ppf(0.975, games - 1)
        cluster_se = (r["score_high"] - r["score_low"]) / (2 * t)
        naive_se = r["score_sd"] / math.sqrt(r["n"])
        ratio = cluster_se / naive_se
        coverage = 2 * NormalDist().cdf(1.96 / ratio) - 1
        rows.append([f"`{name}`", whole(r["n"]), f"{r['mean_score']:.2f}", span(r["score_low"], r["score_high"]),
                     f"{ratio:.2f}", pct(coverage, 0)])
    return "\n\n".join([
        f"{whole(run.config['games_completed'])} games, {run.config['players']} players, seed {run.config['seed']}. "
        "The naive interval would treat every player-game as independent (standard deviation / sqrt(player-games)); "
        "its coverage is what a 95% normal interval that narrow covers when the cluster-robust one is right "
        "(2 Phi(1.96 / ratio) - 1):",
        table(["strategy", "player-games", "mean score", "cluster-robust 95% CI",
               "cluster-robust / naive width", "coverage of the naive interval"], rows)])


RENDERERS = {
    "tour-simulate": render_tour_simulate,
    "compare-bust-limit": render_compare,
    "sweep-dao-limits": render_sweep,
    "tournament-dao": render_tournament,
    "tournament-metagame": render_metagame,
    "until-ci-stop": render_until_ci,
    "skill-share-wizard": render_skill_share,
    "wizard-calibration": render_wizard_calibration,
    "kd-spells": render_kd_spells,
    "kd-play": render_play_last_step,
    "dl-cup": render_summary_table,
    "tsuro-start": render_tsuro_start,
    "mcts-ladder": render_mcts_ladder,
    "cluster-effect": render_cluster_effect,
}


def render(name: str, runs: list[Run]) -> str:
    """The generated part of example `name` (with a blank line before and after)."""
    if name not in RENDERERS:
        raise KeyError(f"no renderer for example {name!r}; known: {', '.join(sorted(RENDERERS))}")
    return "\n" + RENDERERS[name](runs).strip("\n") + "\n\n"


# ---------------------------------------------------------------------------------------------
# main
# ---------------------------------------------------------------------------------------------

def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="change no file; exit 1 if an example would change")
    ap.add_argument("--only", action="append", default=[], metavar="NAME", help="only this example (repeatable)")
    ap.add_argument("--jobs", type=int, default=None, help="run the commands with this many workers "
                    "(results do not depend on it; default: as printed)")
    ap.add_argument("--keep", type=Path, default=None, help="run in this folder and keep what the commands write")
    ap.add_argument("--reuse", action="store_true", help="with --keep: read again the runs of commands that "
                    "already finished there instead of playing them again (after a change to the code, do not)")
    ap.add_argument("--list", action="store_true", help="list the examples and their commands, run nothing")
    a = ap.parse_args(argv)

    examples = all_examples()
    if a.only:
        unknown = set(a.only) - {e.name for e in examples}
        if unknown:
            ap.error(f"no example named {', '.join(sorted(unknown))}")
        examples = [e for e in examples if e.name in a.only]
    if a.list:
        for e in examples:
            print(f"{e.name}  ({e.path.relative_to(ROOT)})")
            for c in e.commands:
                print(f"    {c}")
        return 0
    missing = [e.name for e in examples if e.name not in RENDERERS]
    if missing:
        print(f"no renderer for {', '.join(missing)}", file=sys.stderr)
        return 2

    if a.reuse and not a.keep:
        ap.error("--reuse needs --keep DIR")
    scratch = a.keep or Path(tempfile.mkdtemp(prefix="examples-"))
    done: dict[str, Run] = {}
    generated: dict[tuple, str] = {}  # (path, name, commands) -> the new generated part
    changed, failed = [], []
    for e in examples:
        try:
            runs = []
            for c in e.commands:
                if c not in done:
                    print(f"[{e.name}] {c}", file=sys.stderr, flush=True)
                    done[c] = run_command(c, scratch / folder_for(c), a.jobs, reuse=a.reuse)
                runs.append(done[c])
            new = render(e.name, runs)
        except Exception as exc:  # report it, go on with the others, exit 1 at the end
            failed.append(e)
            print(f"{e.name} ({e.path.relative_to(ROOT)}): FAILED - {type(exc).__name__}: {exc}")
            continue
        rel = e.path.relative_to(ROOT)
        if e.generated == new:
            print(f"{e.name} ({rel}): unchanged")
            continue
        changed.append(e)
        generated[(e.path, e.name, tuple(e.commands))] = new
        print(f"{e.name} ({rel}): CHANGED - re-read the text that interprets it")
        for line in difflib.unified_diff(e.generated.splitlines(), new.splitlines(), "before", "after",
                                         n=0, lineterm=""):
            if not line.startswith(("---", "+++", "@@")):
                print("    " + line)
    if not a.check:
        # read each file again now, so edits made while the commands ran are kept
        for path in {p for p, _, _ in generated}:
            text = path.read_text()
            for x in reversed(find_examples(path, text)):
                key = (path, x.name, tuple(x.commands))
                if key in generated:
                    start, end = x.span
                    text = text[:start] + generated.pop(key) + text[end:]
            path.write_text(text)
        for path, name, _ in generated:
            print(f"  NOT WRITTEN: {name} in {path.relative_to(ROOT)} changed its commands while running")
    print(f"\n{len(examples)} examples: {len(changed)} changed, "
          f"{len(examples) - len(changed) - len(failed)} unchanged, {len(failed)} failed"
          + (" (--check: no file written)" if a.check and changed else ""))
    for e in changed:
        print(f"  changed: {e.name} in {e.path.relative_to(ROOT)} - re-read the text that interprets it")
    for e in failed:
        print(f"  FAILED: {e.name} in {e.path.relative_to(ROOT)} (its part is left as it was)")
    if not a.keep:
        shutil.rmtree(scratch, ignore_errors=True)
    return 1 if failed or (a.check and changed) else 0


if __name__ == "__main__":
    sys.exit(main())
