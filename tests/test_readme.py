"""Every example in README.md runs (with fewer games, so the suite stays fast), and the README's
set-up commands match what CI runs."""

import re
import shlex
from pathlib import Path

from analyser.cli import cli

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", README, flags=re.S)


def example_commands() -> list[str]:
    return [line.strip() for b in blocks("sh") for line in b.splitlines()
            if line.strip().startswith("analyser ")]


def shrink(args: list[str]) -> list[str]:
    """Cap --games at 30 and run in one process, so every example takes a second or two; with the
    search player (mcts), cap its iterations at 4 and the games at 4 (1 for bench --mcts)."""
    out = [re.sub(r"iterations=\d+", "iterations=4", a) if a.startswith("mcts") else a for a in args]
    if "--mcts" in out:
        return out + ["--games", "1", "--iterations", "4"]
    if any(a.startswith("mcts") for a in out):
        for flag in ("--games", "-n"):
            if flag in out:
                i = out.index(flag)
                out[i + 1] = str(min(int(out[i + 1]), 4))
                break
        else:
            out += ["--games", "4"]
    for flag in ("--games", "-n"):
        if flag in out:
            i = out.index(flag)
            out[i + 1] = str(min(int(out[i + 1]), 30))
            break
    else:
        plays = out[0] in ("simulate", "bench", "check", "sweep", "tournament") or (
            out[0] == "compare" and any(f in out for f in ("-s", "--a", "--b", "--a-strategy", "--b-strategy")))
        if plays:
            out += ["--games", "30"]
    if out[0] in ("simulate", "bench", "sweep", "tournament", "compare") and not (
            out[0] == "compare" and not any(f in out for f in ("-s", "--a-strategy"))):
        for flag in ("--jobs", "-j"):
            if flag in out:
                out[out.index(flag) + 1] = "1"
                break
        else:
            out += ["--jobs", "1"]
    return out


def test_readme_has_the_two_setup_commands_and_ci_runs_the_test_one():
    setup = [b.strip() for b in blocks("sh") if b.strip().startswith("pip install")]
    assert setup[0] == "pip install . && analyser simulate dao --strategy greedy"
    assert setup[1] == "pip install '.[test]' && python -m pytest"
    assert setup[1] in (ROOT / ".ci" / "run").read_text()


def test_every_readme_example_runs(runner, tmp_path, monkeypatch):
    commands = example_commands()
    assert len(commands) >= 12
    monkeypatch.chdir(tmp_path)
    (tmp_path / "my_bots.py").write_text(blocks("python")[0])
    for command in commands:
        args = shrink(shlex.split(command)[1:])
        if args[0] == "resume":
            # the README shows resume after an interruption: cut the run short the way one does
            import json
            import shutil
            folder = tmp_path / args[1]
            config = json.loads((folder / "config.json").read_text())
            if config.get("kind"):  # an experiment: its last cell never started
                cell = config["cells"][-1]
                shutil.rmtree(folder / cell["folder"])
                cell.update(status="pending", games_done=[])
            for part in sorted((folder / "results").glob("part-*.parquet"))[1:]:
                part.unlink()
            config["status"] = "interrupted"
            (folder / "config.json").write_text(json.dumps(config))
        result = runner.invoke(cli, args, catch_exceptions=False)
        assert result.exit_code == 0, f"{command}\n{result.output}"
    assert (tmp_path / "reports" / "limit10" / "index.html").exists()
    assert (tmp_path / "reports" / "duel" / "results.csv").exists()
    assert (tmp_path / "reports" / "duel-again" / "index.html").exists()
    assert any(p.name.startswith("dao-") for p in (tmp_path / "reports").iterdir())


def test_readme_states_every_titles_results_columns():
    from analyser.registry import game_ids, get_game
    section = README[README.index("### The results schema"):README.index("The report opens with")]
    for gid in game_ids():
        g = get_game(gid)
        row = next((line for line in section.splitlines() if line.startswith(f"| `{gid}` |")), "")
        assert row, f"README's results schema has no row for {gid}"
        for col in g.metric_columns:
            if col == "score_trace":  # in the table of every column
                continue
            assert f"`{col}`" in row, f"README's results schema lacks {gid}'s column {col}"
