"""Regenerate ``tests/golden/text/*.txt``: the words the product prints, held in one place.

The suite's tests assert behaviour (records, numbers, exit codes, the one-line shape of an error);
the wording lives here instead.  For each title and each experiment kind, a small seeded run's
terminal summary and the text of its report (``index.html`` without markup, plots or versions),
and for each title one ``analyser play`` trace; the findings' sentences on hand-built summaries,
one per branch (``finding_cases.py``); the catalogue (``analyser list``) and every command's help;
and one file of the one-line errors for a table of bad inputs (the command, its exit code, its
line).

After a change that is *meant* to change what the product says, regenerate and review the diff:

    python tests/golden/make_text_snapshots.py            # every snapshot
    python tests/golden/make_text_snapshots.py dao tune   # only these
    git diff tests/golden/text/

``tests/test_text_snapshots.py`` compares the current text with these files.
"""

from __future__ import annotations

import re
import sys
import tempfile
from html.parser import HTMLParser
from pathlib import Path

import analyser

HERE = Path(__file__).parent
#: The installed package's folder, shown as PACKAGE (a title's data files are named by their path).
PACKAGE = Path(analyser.__file__).resolve().parent
TEXT = HERE / "text"

#: Per title: a small seeded simulate (with its report) and one game of ``analyser play``.
TITLES = {
    "dao": (["-s", "greedy", "-s", "random", "--players", "4", "--games", "60"], ["-s", "greedy", "-s", "random"]),
    "wizard": (["-s", "expected", "-s", "random", "--players", "3", "--games", "12"],
               ["-s", "expected", "-s", "random", "--players", "3"]),
    "tsuro-seas": (["-s", "survivor", "-s", "random", "--players", "2", "--games", "40"],
                   ["-s", "survivor", "-s", "random"]),
    "kingdomino-duel": (["-s", "greedy", "-s", "random", "--games", "30"], ["-s", "greedy", "-s", "random"]),
    "dragon-lairds": (["-s", "income", "-s", "random", "--players", "2", "--games", "30"],
                      ["-s", "income", "-s", "random", "--players", "2"]),
}

#: Per experiment kind: one small seeded command (``--out``, ``--jobs`` and the seed are added).
EXPERIMENTS = {
    "sweep": ["sweep", "dao", "-s", "threshold:limit=6,9", "-s", "greedy", "--players", "2", "--games", "20",
              "--rule", "bust_limit=10,12"],
    "tournament": ["tournament", "dao", "-s", "greedy", "-s", "threshold", "-s", "random", "--players", "2",
                   "--games", "12"],
    "compare": ["compare", "dao", "-s", "greedy", "-s", "random", "--a", "bust_limit=10", "--b", "bust_limit=12",
                "--games", "30"],
    "ladder": ["ladder", "dao", "--budgets", "2,4", "--players", "2", "--games", "6"],
    "tune": ["tune", "dao", "--rule", "bust_limit=9..12", "-s", "greedy", "-s", "random", "-p", "2",
             "--target", "seat_gap=min", "--trials", "4", "--games", "20", "--batch", "2", "--recheck", "1",
             "--recheck-factor", "1"],
}

#: Bad inputs: each is refused with one line and an exit code.  An experiment's --out is a fresh folder;
#: EMPTY_FOLDER is an empty folder, A_FILE a file (both shown as OUT).
ERRORS = [
    ["simulate", "chess", "-s", "x"],
    ["simulate", "dao", "-s", "genius"],
    ["simulate", "dao", "-s", "threshold:lim=3"],
    ["simulate", "dao", "-s", "greedy", "--rule", "bust_limt=3"],
    ["simulate", "dao", "-s", "greedy", "--rule", "bust_limit"],
    ["simulate", "dao", "-s", "greedy", "--rule", "bust_limit=lots"],
    ["simulate", "dao", "-s", "greedy", "--players", "9"],
    ["simulate", "dao", "-s", "greedy", "--games", "0"],
    ["simulate", "dao", "-s", "greedy", "--games", "-5"],
    ["simulate", "dao", "-s", "greedy", "--out", "/proc/nope/x"],
    ["simulate", "dao", "-s", "greedy", "--out", "/etc/passwd"],
    ["simulate", "dao", "-s", "greedy", "--gamez", "3"],
    ["simulate", "wizzard", "-s", "greedy"],
    ["simulate", "dao", "-s", "gredy"],
    ["simulate", "dao", "-s", "threshold:limt=3"],
    ["simulate", "dao", "-s", "greedy", "--rule", "bustlimit=3"],
    ["smulate", "dao"],
    ["play", "dao", "-s", "greedy", "--players", "1"],
    ["play", "dao", "-s", "threshhold", "-s", "greedy"],
    ["list", "go"],
    ["list", "kingdomino"],
    ["report", "/nonexistent/results.parquet"],
    ["bench", "chess"],
    ["tune", "dao", "-s", "greedy", "-s", "random", "--rule", "bust_limit=9..12", "--target", "seat_gap=min",
     "--out", "/etc/passwd/t"],
    ["tune", "dao", "-s", "greedy", "-s", "random", "--rule", "no_such=1..3", "--target", "seat_gap=min"],
    ["tune", "dao", "-s", "greedy", "-s", "random", "--rule", "bust_limit=12..9", "--target", "seat_gap=min"],
    ["tune", "dao", "-s", "greedy", "-s", "random", "--rule", "bust_limit=..9", "--target", "seat_gap=min"],
    ["tune", "dao", "-s", "greedy:nope=1..3", "-s", "random", "--target", "seat_gap=min"],
    ["tune", "dao", "-s", "greedy", "-s", "random", "--rule", "bust_limit=9..12", "--target", "fun=max"],
    ["tune", "dao", "-s", "greedy", "-s", "random", "--rule", "bust_limit=9..12", "--target", "length=60..40"],
    ["tune", "dao", "-s", "greedy", "-s", "random", "--rule", "bust_limit=9..12", "--target", "win_rate:nobody=max"],
    ["tune", "dao", "-s", "greedy", "-s", "random", "--target", "seat_gap=min"],
    ["tune", "dao", "-s", "greedy", "-s", "random", "--rule", "bust_limit=9..12", "--target", "seat_gap=min",
     "--target", "length=max", "--prune"],
    ["tune", "dao", "-s", "greedy", "-s", "random", "--rule", "bust_limit=9..12", "--target", "seat_gap=0..5",
     "--prune"],
    ["tune", "dao", "-s", "greedy", "-s", "random", "--rule", "bust_limit=9..12", "--target", "seat_gap=min",
     "--target", "seat_gap=max"],
    ["sweep", "dao", "-s", "greedy", "--players", "9"],
    ["tournament", "dao", "-s", "greedy", "--players", "2"],
    ["compare", "dao", "-s", "greedy"],
    ["ladder", "dao", "--budgets", "8..2"],
    ["ladder", "dao", "--budgets", "0,4"],
    ["simulate", "kingdomino-duel", "--players", "3"],
    ["bench", "dao", "--engine", "fast"],
    ["bench", "dragon-lairds", "--engine", "compiled"],
    ["bench", "dao", "--mcts", "--engine", "compiled"],
    ["bench", "--mcts", "--engine", "fast"],
    ["bench", "--mcts", "--iterations", "0"],
    ["resume", "EMPTY_FOLDER"],
    ["resume", "A_FILE"],
    ["simulate", "dao", "-s", "greedy", "--out", "A_FILE/sub"],
]

#: The catalogue and the help: `analyser list` (and per title) and every command's --help.
CATALOG = [["list"], *[["list", t] for t in TITLES], ["--help"],
           *[[c, "--help"] for c in ("simulate", "play", "list", "rules", "report", "resume", "bench", "new", "check",
                                     "sweep", "tournament", "compare", "ladder", "tune")]]

SEED = "5"


def names() -> list[str]:
    return [*TITLES, *EXPERIMENTS, "findings", "catalog", "errors"]


def invoke(args: list[str]):
    from click.testing import CliRunner

    from analyser.cli import cli
    return CliRunner().invoke(cli, args, prog_name="analyser", terminal_width=80)


class _Text(HTMLParser):
    """The visible text of a report page: one line per block, table cells separated by ' | '."""
    BLOCKS = {"p", "div", "li", "tr", "h1", "h2", "h3", "h4", "table", "section", "br", "caption", "dt", "dd",
              "summary", "details", "pre", "ul", "ol", "figure", "figcaption", "header", "nav", "footer"}

    def __init__(self):
        super().__init__()
        self.parts: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag, attrs):
        self.hidden += tag in ("script", "style")
        self.parts.append("\n" if tag in self.BLOCKS else " | " if tag in ("td", "th") else "")

    def handle_endtag(self, tag):
        self.hidden -= tag in ("script", "style")
        self.parts.append("\n" if tag in self.BLOCKS else "")

    def handle_data(self, data):
        if not self.hidden:
            self.parts.append(data)


def page_text(html: str) -> str:
    """``index.html`` as text, up to its Versions section (versions, start time and wall time vary)."""
    parser = _Text()
    parser.feed(html)
    lines = [re.sub(r"\s+", " ", line).strip() for line in "".join(parser.parts).splitlines()]
    lines = [line for line in lines if line]
    if "Versions" in lines:
        lines = lines[:len(lines) - lines[::-1].index("Versions") - 1]
    for i, line in enumerate(lines[:-1]):
        if line in ("wall time", "started"):
            lines[i + 1] = "<varies>"
    return "\n".join(lines)


#: Figures that differ between two plays of the same seed: speeds and times.
VOLATILE = [
    (re.compile(r"\b[\d,]+(\.\d+)? (games|decisions)/s\b"), r"<n> \2/s"),
    (re.compile(r"\b\d+(\.\d+)? ?(s|ms|seconds|minutes)\b"), r"<t> \2"),
]


def clean(text: str, out: Path) -> str:
    text = re.sub(re.escape(str(out)) + r"(/e\d+)?", "OUT", text)
    text = text.replace(str(PACKAGE), "PACKAGE")  # (where the package is installed: a checkout, a venv)
    lines = [line.rstrip() for line in text.splitlines() if not line.startswith("analyser: note: compiling")]
    text = "\n".join(lines).strip("\n")
    for pattern, repl in VOLATILE:
        text = pattern.sub(repl, text)
    # the ladder's table ends with the two searches' decisions per second
    if "decisions/s" in text:
        text = re.sub(r"(?m)^(\s+\d+\s+\d+\s+\d+\s+\d+ .*?)\s+[\d,]+\s+[\d,]+$", r"\1 <speed> <speed>", text)
        text = re.sub(r"(?m)^(\|(?: [^|]+ \|){10}) [\d,]+ \| [\d,]+$", r"\1 <speed> | <speed>", text)
    return text


def head_and_tail(text: str, head: int = 60, tail: int = 30) -> str:
    """A long trace's opening and ending, with the number of lines left out between them."""
    lines = text.splitlines()
    if len(lines) <= head + tail:
        return text
    return "\n".join([*lines[:head], f"[... {len(lines) - head - tail} lines ...]", *lines[-tail:]])


def run_snapshot(args: list[str], out: Path) -> str:
    result = invoke(args)
    lines = [f"$ analyser {' '.join(args)}".replace(str(out), "OUT"), f"exit {result.exit_code}", "",
             "--- terminal", clean(result.output, out)]
    page = out / "index.html"
    if page.exists():
        lines += ["", "--- report (index.html as text)", clean(page_text(page.read_text(encoding="utf-8")), out)]
    return "\n".join(lines) + "\n"


def refusals(tmp: Path) -> list[tuple[list[str], object]]:
    """Each bad input of ERRORS with its click result (an experiment gets a fresh --out under tmp)."""
    done = []
    for i, args in enumerate(ERRORS):
        place = tmp / f"e{i}"
        if "EMPTY_FOLDER" in args:
            place.mkdir()
        elif any("A_FILE" in a for a in args):
            place.write_text("x")
        given = [a.replace("EMPTY_FOLDER", str(place)).replace("A_FILE", str(place)) for a in args]
        experiment = args[0] in ("tune", "sweep", "tournament", "compare", "ladder") and "--out" not in args
        done.append((args, invoke([*given, "--out", str(place)] if experiment else given)))
    return done


def error_snapshot(tmp: Path, done=None) -> str:
    return "\n".join(f"$ analyser {' '.join(args)}\nexit {result.exit_code}\n{clean(result.output, tmp)}\n"
                     for args, result in done or refusals(tmp))


def render(name: str) -> str:
    """The snapshot text of ``name`` (a title id, an experiment kind, ``findings`` or ``errors``)."""
    if name == "catalog":
        return "\n".join(f"$ analyser {' '.join(args)}\nexit {r.exit_code}\n{r.output.rstrip()}\n"
                         for args, r in ((args, invoke(args)) for args in CATALOG))
    if name == "findings":
        import finding_cases
        return finding_cases.text()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        if name == "errors":
            return error_snapshot(tmp)
        out = tmp / "out"
        if name in TITLES:
            simulate, play = TITLES[name]
            text = run_snapshot(["simulate", name, *simulate, "--seed", SEED, "--jobs", "1", "--engine", "python",
                                 "--out", str(out)], out)
            trace = invoke(["play", name, *play, "--seed", SEED])
            return (text + f"\n--- analyser play {name} {' '.join(play)} --seed {SEED}\nexit {trace.exit_code}\n"
                    + head_and_tail(clean(trace.output, out)) + "\n")
        return run_snapshot([*EXPERIMENTS[name], "--seed", SEED, "--jobs", "1", "--out", str(out)], out)


def path(name: str) -> Path:
    return TEXT / f"{name}.txt"


def main(argv: list[str]) -> None:
    unknown = [n for n in argv if n not in names()]
    if unknown:
        sys.exit(f"unknown snapshot {', '.join(unknown)}; known: {', '.join(names())}")
    TEXT.mkdir(exist_ok=True)
    for name in argv or names():
        path(name).write_text(render(name), encoding="utf-8")
        print(f"wrote {path(name)}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
