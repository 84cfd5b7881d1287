"""Component impact: the components table the game loop records, the effect estimate (against
statsmodels), the findings, the report section, and planted faults in data files."""

import json
import shutil
import re
import shlex
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analyser.findings import components as component_findings
from analyser.stats import components as cm
from analyser.stats import streamed
from analyser.cli import cli
from analyser.engine.registry import get_game, strategy_factory
from analyser.run import RunSpec, run
from analyser.engine.runner import BatchJob, component_columns, component_rows, play_game, run_batch, unpack

TITLES = Path(__file__).resolve().parent.parent / "analyser" / "titles"


# -- the estimator ------------------------------------------------------------------------------

def synthetic(games=240, seats=3, seed=3):
    """A results table (two strategies in random seats, some shared wins) and a components table
    of four components, c0 tied to winning."""
    rng = np.random.default_rng(seed)
    rows = []
    for g in range(games):
        lineup = rng.integers(0, 2, seats)
        w = int(rng.integers(0, seats))
        shared = rng.random() < 0.15
        for s in range(seats):
            if shared:
                win = 0.5 if s in (w, (w + 1) % seats) else 0.0
            else:
                win = 1.0 if s == w else 0.0
            rows.append((g, s, "ab"[lineup[s]], win))
    res = pd.DataFrame(rows, columns=["game_index", "seat", "strategy", "win"])
    res["strategy"] = pd.Categorical(res["strategy"], categories=["a", "b"])
    comp = []
    for r in res.itertuples():
        for k in range(4):
            if rng.random() < 0.25 + 0.35 * r.win * (k == 0) + 0.1 * k:
                comp.append((r.game_index, r.seat, f"c{k}", int(rng.integers(1, 4))))
    return res, pd.DataFrame(comp, columns=["game_index", "seat", "component", "count"])


def numbers(text: str) -> list[float]:
    """The numbers of a figure, interval or reason text, in order ("-15.0 to -9.0 pp" -> [-15.0, -9.0])."""
    return [float(x) for x in re.findall(r"[-+]?\d+(?:\.\d+)?", str(text).replace(",", ""))]


def sums_of(res, comp, chunk=50, collapse=None):
    total = {}
    for lo in range(0, int(res["game_index"].max()) + 1, chunk):
        r = res[(res.game_index >= lo) & (res.game_index < lo + chunk)]
        c = comp[(comp.game_index >= lo) & (comp.game_index < lo + chunk)]
        total = streamed.combine_sums(total, cm.chunk_sums(r, c, collapse))
    return total


def statsmodels_fit(res, comp, name, copies=False):
    import statsmodels.formula.api as smf
    c = comp[comp.component == name].set_index(["game_index", "seat"])["count"]
    n = np.array([c.get((g, s), 0) for g, s in zip(res.game_index, res.seat)], dtype=float)
    d = res.assign(x=n if copies else (n > 0).astype(float), cell=res["strategy"].astype(str) + res["seat"].astype(str))
    return smf.ols("win ~ x + C(cell)", d).fit(cov_type="cluster", cov_kwds={"groups": d["game_index"]})


def test_the_estimate_from_additive_chunk_sums_equals_statsmodels_clustered_ols():
    res, comp = synthetic()
    est = cm.estimate(sums_of(res, comp)).set_index("component")
    for k in range(4):
        f = statsmodels_fit(res, comp, f"c{k}")
        e = est.loc[f"c{k}"]
        low, high = f.conf_int().loc["x"]
        assert e.effect == pytest.approx(f.params["x"] * 100, abs=1e-8)
        assert e.se == pytest.approx(f.bse["x"] * 100, abs=1e-8)
        assert (e.effect_low, e.effect_high) == pytest.approx((low * 100, high * 100), abs=1e-8)
        assert e.p == pytest.approx(f.pvalues["x"], rel=1e-7, abs=1e-12)
        g = statsmodels_fit(res, comp, f"c{k}", copies=True)
        assert e.per_copy == pytest.approx(g.params["x"] * 100, abs=1e-8)
        assert (e.per_copy_low, e.per_copy_high) == pytest.approx(tuple(g.conf_int().loc["x"] * 100), abs=1e-8)


def test_the_estimate_does_not_depend_on_how_the_games_are_cut_into_chunks(monkeypatch):
    res, comp = synthetic(games=120)
    a = cm.estimate(sums_of(res, comp, chunk=7))
    b = cm.estimate(sums_of(res, comp, chunk=200))
    pd.testing.assert_frame_equal(a, b, check_exact=False, rtol=1e-10)
    # nor on the groups of components and blocks of holders that bound a chunk's working memory
    monkeypatch.setattr(cm, "_ACCUMULATOR_CELLS", 40)
    monkeypatch.setattr(cm, "_BLOCK_HOLDERS", 13)
    c = cm.estimate(sums_of(res, comp, chunk=200))
    pd.testing.assert_frame_equal(a, c, check_exact=False, rtol=1e-10)


def test_bh_q_clear_and_ranking():
    from statsmodels.stats.multitest import multipletests
    res, comp = synthetic()
    est = cm.estimate(sums_of(res, comp))
    _, q, _, _ = multipletests(est["p"], method="fdr_bh")
    assert list(est["q"]) == pytest.approx(list(q))
    assert list(est["clear"]) == list(est["q"] <= cm.Q)
    assert est.iloc[0]["component"] == "c0" and est.iloc[0]["clear"] and est.iloc[0]["effect_low"] > 0
    rest = est[~est["clear"]]
    assert list(rest["p"]) == sorted(rest["p"])  # the others by p-value


def test_components_held_by_every_seat_by_none_or_only_by_whole_cells_have_no_estimate():
    res, comp = synthetic(games=60)
    extra = [(r.game_index, r.seat, "everyone", 1) for r in res.itertuples()]
    extra += [(r.game_index, r.seat, "only-a", 2) for r in res.itertuples() if r.strategy == "a"]
    extra += [(r.game_index, r.seat, "rare", 1) for r in res.itertuples() if r.win == 1][:5]
    comp = pd.concat([comp, pd.DataFrame(extra, columns=comp.columns)], ignore_index=True)
    catalog = {"never": {"what": "a card nobody got"}, "c1": {"what": "one"}}
    est = cm.estimate(sums_of(res, comp), catalog).set_index("component")
    assert est.loc["everyone", "reason"] and np.isnan(est.loc["everyone", "p"])
    assert est.loc["never", "reason"] and est.loc["never", "holders"] == 0 and np.isnan(est.loc["never", "p"])
    assert est.loc["never", "what"] == catalog["never"]["what"] and est.loc["c1", "what"] == "one"
    assert est.loc["only-a", "reason"] and np.isnan(est.loc["only-a", "p"])
    # five holders that all won: too few for a cluster-robust interval
    assert numbers(est.loc["rare", "reason"]) == [5, 30, 30] and np.isnan(est.loc["rare", "p"])
    assert est.loc["rare", "win_with"] == 1 and np.isnan(est.loc["rare", "effect"])
    assert set(est.index[-4:]) == {"everyone", "never", "only-a", "rare"}
    assert est.loc["c2", "share"] == pytest.approx((comp.component == "c2").sum() / len(res))
    n_est = est["p"].notna().sum()
    assert n_est == 4 and est.loc["everyone", "q"] != est.loc["everyone", "q"]  # NaN: not in the correction


def test_the_sums_stay_the_same_size_as_games_grow():
    """Memory stays flat: the sums are bounded by components x (strategy, seat) pairs, not games."""
    res, comp = synthetic(games=100)
    small = cm.chunk_sums(res, comp)
    res2, comp2 = synthetic(games=1000)
    big = sums_of(res2, comp2, chunk=100)
    for name in small:
        assert len(big[name]) <= 4 * 6 * 6 and len(big[name]) <= max(len(small[name]), 1) * 1.5 + 10


# -- recording ----------------------------------------------------------------------------------

def test_component_columns_count_copies_per_game_and_seat_in_id_order():
    out = component_columns(["b", "a", "b", "c", "x" + "y", "xy"], [3, 1, 0, 2], 10, 2, 2)
    assert out["labels"] == ["a", "b", "c", "xy"] and unpack(out["rows"]).tolist() == [2, 1, 0, 1]
    game, seat = component_rows(out)
    rows = list(zip(game.tolist(), seat.tolist(), [out["labels"][c] for c in unpack(out["code"])],
                    unpack(out["count"]).tolist()))
    assert rows == [(10, 0, "a", 1), (10, 0, "b", 2), (10, 1, "c", 1), (11, 1, "xy", 2)]
    # a game cut short (not counted as done) leaves nothing behind
    assert unpack(component_columns(["a", "b"], [1, 1, 1], 0, 1, 2)["count"]).tolist() == [1, 1]
    # ids that are not text (a card) count by their text, shared with equal text ids
    from analyser.titles.dao.rules import Card
    out = component_columns([Card(1, 2), Card(0, 1), Card(1, 2), "fire 2"], [2, 1, 1, 0], 0, 2, 2)
    assert out["labels"] == ["fire 2", "metal 1"] and unpack(out["code"]).tolist() == [0, 1, 0, 0]


@pytest.mark.parametrize("title,lineup,players", [
    ("dao", ("threshold", "greedy"), 4), ("wizard", ("expected", "bot"), 3),
    ("tsuro-seas", ("random",), 3), ("kingdomino-duel", ("greedy", "random"), 2),
    ("dragon-lairds", ("income", "random"), 3)])
def test_the_game_loop_records_what_components_returns_for_each_game(title, lineup, players):
    game = get_game(title)
    r = run_batch(BatchJob(title, (), lineup, players, 5, 3, 9, 0.0))
    assert r.error is None
    got = Counter()
    games, seats = component_rows(r.components)
    for g, s, c, n in zip(games, seats, unpack(r.components["code"]), unpack(r.components["count"])):
        got[(int(g), int(s), r.components["labels"][c])] += int(n)
    want = Counter()
    from analyser.engine.runner import game_seed, lineup as seats_of
    for i in range(3, 9):
        names = [lineup[k] for k in seats_of(i, players, len(lineup))]
        strats = [strategy_factory(n, title)() for n in names]
        state = play_game(game, game.Params(), strats, names, game_seed(5, i))
        for seat, ids in enumerate(game.components(state)):
            for x in ids:
                want[(i, seat, str(x))] += 1
    assert got == want and sum(want.values()) > 0


def test_the_components_table_is_the_same_for_any_batch_size_and_jobs(tmp_path):
    spec = dict(game="dao", strategies=["threshold", "greedy"], players=3, games=60, seed=4)
    a = run(RunSpec(**spec, jobs=1, batch_size=7), progress=False)
    b = run(RunSpec(**spec, jobs=2, batch_size=25), progress=False)
    fa, fb = a.extras["component_counts"], b.extras["component_counts"]
    assert list(fa.columns) == ["run_id", "game_index", "seat", "component", "count"]
    pd.testing.assert_frame_equal(fa.drop(columns="run_id").astype({"component": str}),
                                  fb.drop(columns="run_id").astype({"component": str}))
    assert fa["count"].min() >= 1 and fa["game_index"].nunique() == 60


# -- planted faults -------------------------------------------------------------------------------

def planted_deck(tmp_path):
    """The shipped Dragon Lairds deck with one cheap card (Y05 Militia, cost 2) paying 10 royals a round."""
    text = (TITLES / "dragon_lairds" / "data" / "deck.csv").read_text()
    line = "Y05,Militia,Commoner,yellow,2,geld,1,0,,0,yes,"
    assert line in text.splitlines()
    path = tmp_path / "deck.csv"
    path.write_text(text.replace(line, "Y05,Militia,Commoner,yellow,2,geld,1,10,,0,yes,"))
    return path, text.splitlines().index(line) + 1


def planted_faces(tmp_path):
    """The shipped Kingdomino Duel components with one overpowered face: die 2's first face, quarters,
    made a ? with five crosses."""
    text = (TITLES / "kingdomino_duel" / "data" / "components.csv").read_text()
    line = "die,2,quarters stripe double-dot+1 double-stripe+1 dot black"
    assert line in text.splitlines()
    path = tmp_path / "components.csv"
    path.write_text(text.replace(line, "die,2,?+5 stripe double-dot+1 double-stripe+1 dot black"))
    return path, text.splitlines().index(line) + 1


@pytest.mark.parametrize("case", ["dragon-lairds", "kingdomino-duel"])
def test_a_planted_component_is_found_first_clear_and_named_in_a_finding(runner, tmp_path, case):
    if case == "dragon-lairds":
        path, line = planted_deck(tmp_path)
        planted, games, extra = "Y05", 100, []
    else:
        path, line = planted_faces(tmp_path)
        planted, games, extra = "die 2 ?+5", 150, []
    out = tmp_path / "run"
    r = runner.invoke(cli, ["simulate", case, "--rule", f"components={path}", "--games", str(games), "--seed", "1",
                            "--jobs", "1", "--out", str(out), "-q"] + extra)
    assert r.exit_code == 0, r.output
    table = pd.read_csv(out / "components.csv")
    top = table.iloc[0]
    assert top["component"] == planted and bool(top["clear"]) and top["effect_low"] > 0 and top["q"] <= cm.Q
    # ranked by the effect against its peer group (the title declares one): the largest first
    assert top["peers"] >= 1 and top["vs_peers"] > 0
    key = "per_cost" if case == "dragon-lairds" else "vs_peers"  # a card's cost: per unit of it
    assert table.loc[table["clear"], key].abs().max() == top[key]
    html = (out / "index.html").read_text()
    assert "Component impact" in html and "components.png" in html
    assert "Data file:" not in html  # the file the run read is unchanged: the report says nothing of it
    # the finding names the component by its id, with its interval, and the line of the file to edit
    from analyser.report.page import summarise_run
    part = summarise_run(out).parts[0]
    first = part.component_findings[0]
    # an association alone is never "clear": possible until an intervention confirms it
    assert first["strength"] == "possible" and first["component"] == planted and planted in first["sentence"]
    assert "confirmed" in first["sentence"].split() or "confirmed." in first["sentence"].split()
    assert len(part.component_findings) <= component_findings.FINDINGS_MAX == 3
    assert set(first) >= {"topic", "sentence", "strength", "evidence", "threshold", "next"}
    assert f"{top['vs_peers_low']:+.1f} to {top['vs_peers_high']:+.1f} pp" == first["evidence"]["interval"]
    assert f"{top['vs_peers']:+.1f} pp" in first["sentence"]
    # read without a folder to write into: how to make the copy, never an edit of the file the run read
    assert first["next"].split()[:4] == ["copy", str(path), "to", "fixed.csv,"] and f" line {line} " in first["next"]
    assert "--b components=fixed.csv" in first["next"]
    assert first["next"].split("then: ")[1].startswith(f"analyser compare {case} ")
    # the report itself writes the changed file into the run folder, and its next command plays it
    changed = out / "interventions" / f"components-{re.sub(r'[^A-Za-z0-9_.-]+', '_', planted)}.csv"
    assert changed.is_file() and changed.read_text() != path.read_text()
    edited = [i for i, (a, b) in enumerate(zip(path.read_text().splitlines(), changed.read_text().splitlines()))
              if a != b]
    assert edited == [line - 1]  # only the component's own line changed
    data = json.loads((out / "findings.json").read_text())
    told = next(f for f in data["findings"] if planted in f["sentence"])
    assert f" {changed}; " in told["next"] and f"analyser compare {case} " in told["next"]
    assert told["next"].endswith(f"--a components={path} --b components={changed} --games {games} --seed 1")
    assert path.read_text() != changed.read_text()  # the run's own file is left as it was
    if case == "dragon-lairds":  # as printed, its side A plays the run's very games: the sides are paired
        import shlex
        words = shlex.split(told["next"].split("play the same games on it: ")[1])
        assert words[:2] == ["analyser", "compare"]
        r = runner.invoke(cli, words[1:] + ["-j", "1", "-q", "-o", str(tmp_path / "cmp")])
        assert r.exit_code == 0, r.output
        cols = ["game_index", "seat", "strategy", "score", "win"]
        ran = pd.read_parquet(out / "results", columns=cols).sort_values(["game_index", "seat"], ignore_index=True)
        side_a = pd.read_parquet(tmp_path / "cmp" / "a" / "results", columns=cols).sort_values(
            ["game_index", "seat"], ignore_index=True)
        pd.testing.assert_frame_equal(side_a.astype({"strategy": str}), ran.astype({"strategy": str}))


# -- the report -----------------------------------------------------------------------------------

def test_report_section_csv_and_wizard_special_case(runner, tmp_path):
    out = tmp_path / "w"
    r = runner.invoke(cli, ["simulate", "wizard", "-s", "expected", "-s", "bot", "-p", "3", "--games", "60",
                            "--seed", "2", "--jobs", "1", "--out", str(out), "-q"])
    assert r.exit_code == 0, r.output
    table = pd.read_csv(out / "components.csv")
    assert list(table.columns) == list(cm.COLUMNS)
    assert {"1 Wizard", "2 Wizards", "1 Jester"} <= set(table["component"])
    html = (out / "index.html").read_text()
    assert "tricks by Wizards" in html
    assert "Component impact" in html
    assert get_game("wizard").component_note.split(":")[0] in html  # the title's component_note
    # without a components table (a run from before it was recorded) the section is left out, and said so
    import shutil
    shutil.rmtree(out / "component_counts")
    (out / "components.csv").unlink()
    rep = tmp_path / "again"
    r = runner.invoke(cli, ["report", str(out), "--out", str(rep)])
    assert r.exit_code == 0, r.output
    html = (rep / "index.html").read_text()
    assert "no component_counts table" in html
    assert "Component impact" not in html and not (rep / "components.csv").exists()


def test_findings_shape_and_none_found():
    res, comp = synthetic(games=80)
    comp = comp[comp.component != "c0"]  # the component tied to winning removed
    est = cm.estimate(sums_of(res, comp))
    items = component_findings.findings(est, component_findings.Rerun("dao", ["a", "b"], 80))
    assert len(items) == 1 and items[0]["strength"] in ("none found", "possible")
    for f in items:
        assert set(f) >= {"topic", "sentence", "strength", "evidence", "threshold", "next"}
        assert set(f["evidence"]) == {"figure", "interval"}
    clear = component_findings.findings(cm.estimate(sums_of(*synthetic())), component_findings.Rerun("dao", ["a", "b"], 240),
                                        catalog={"c0": {"option": "values", "fix": "values=0x1,1x4"}})
    assert clear[0]["strength"] == "possible" and clear[0]["component"] == "c0"
    assert shlex.split(clear[0]["next"]) == ["analyser", "compare", "dao", "-s", "a", "-s", "b", "--b",
                                             "values=0x1,1x4", "--games", "1000"]


def test_components_that_cannot_be_counted_keep_the_games_and_name_the_fault(monkeypatch):
    from analyser.titles.dao.rules import Dao

    class Bad:
        def __str__(self):
            raise ValueError("no text")

    bad = Bad()
    monkeypatch.setattr(Dao, "components", lambda self, s: [[bad] for _ in range(s.n)])
    r = run_batch(BatchJob("dao", (), ("threshold",), 3, 1, 0, 4, 0.0))
    assert r.done == 4 and len(r.columns["game_index"]) == 12 and r.components is None
    assert "0 to 3" in str(r.error) and "ValueError: no text" in str(r.error)  # the games and the cause


def test_variants_get_their_own_estimates_and_a_variant_column(tmp_path):
    from analyser.report.page import build_report
    runs = [run(RunSpec(game="dao", strategies=["threshold", "greedy"], players=3, games=120, seed=1, jobs=1,
                        rules={"bust_limit": str(b)}), progress=False) for b in (12, 9)]
    results = pd.concat([r.results for r in runs], ignore_index=True)
    counts = pd.concat([r.extras["component_counts"] for r in runs], ignore_index=True)
    _, summary, _ = build_report(results, {"component_counts": counts}, {}, tmp_path)
    assert summary.variants and all(p.components is not None for p in summary.parts)
    table = pd.read_csv(tmp_path / "components.csv")
    assert list(table.columns[:2]) == ["variant", "component"]
    assert table["variant"].nunique() == 2 and len(table) == 2 * 5  # one row per value (the colours merged)
    # each variant's estimate is its own run's
    alone = cm.estimate(sums_of(runs[1].results.assign(strategy=runs[1].results["strategy"].astype(str)),
                                runs[1].extras["component_counts"], collapse=get_game("dao").component_collapse))
    second = table[table["variant"] == summary.parts[1].label].set_index("component")
    for r in alone.itertuples():
        assert second.loc[r.component, "holders"] == r.holders
        if not np.isnan(r.effect):
            assert second.loc[r.component, "effect"] == pytest.approx(r.effect, rel=1e-9)


def test_the_component_report_is_identical_for_any_batch_size(tmp_path, monkeypatch):
    """Parts of different batch sizes list the components in different orders; the sums (and so
    every figure of components.csv) do not depend on it, nor on the chunk's groups and blocks."""
    from analyser.report.page import build_report_from_run
    monkeypatch.setattr(cm, "_BLOCK_HOLDERS", 50)
    monkeypatch.setattr(cm, "_ACCUMULATOR_CELLS", 200)
    texts = []
    for k, batch in enumerate((7, 40)):
        out = tmp_path / f"r{k}"
        run(RunSpec(game="dao", strategies=["threshold", "greedy"], players=3, games=80, seed=6, jobs=1,
                    batch_size=batch), progress=False, out=out)
        build_report_from_run(out)
        texts.append((out / "components.csv").read_text())
    assert texts[0] == texts[1] and texts[0].count("\n") == 6


def test_at_most_three_findings_possible_until_confirmed_and_clear_only_when_confirmed():
    """Issue 28: at most 3 component findings; an association is "possible"; an intervention
    whose paired interval excludes 0 makes it "clear" (with the paired figure as evidence), one
    that includes 0 leaves it "possible" and says "not confirmed"."""
    res, comp = synthetic(games=400)
    # five more components tied to winning, so six pass the correction
    extra = [(r.game_index, r.seat, f"w{k}", 1) for r in res.itertuples() for k in range(5)
             if (r.win > 0) == ((r.game_index * 7 + r.seat * 3 + k) % 5 != 0)]
    comp = pd.concat([comp, pd.DataFrame(extra, columns=comp.columns)], ignore_index=True)
    est = cm.estimate(sums_of(res, comp))
    assert int(est["clear"].sum()) > component_findings.FINDINGS_MAX
    items = component_findings.findings(est, component_findings.Rerun("dao", ["a", "b"], 400))
    assert len(items) == component_findings.FINDINGS_MAX and {f["strength"] for f in items} == {"possible"}
    assert [f["component"] for f in items] == list(est["component"][:3])
    # the threshold says how many pass, so the ones not listed are not lost from sight
    assert numbers(items[0]["threshold"])[-2:] == [int(est["clear"].sum()), component_findings.FINDINGS_MAX]
    first, second = items[0]["component"], items[1]["component"]
    conf = {first: {"confirmed": True, "figure": "-12.0 pp", "interval": "-15.0 to -9.0 pp", "command": "X"},
            second: {"confirmed": False, "figure": "-1.0 pp", "interval": "-4.0 to +2.0 pp", "command": "Y"}}
    items = component_findings.findings(est, component_findings.Rerun("dao", ["a", "b"], 400), confirmations=conf)
    assert items[0]["strength"] == "clear" and items[0]["sentence"].startswith(f"Confirmed: {first}")
    assert numbers(items[0]["evidence"]["figure"]) == [-12.0] and items[0]["next"] == "X"
    assert numbers(items[0]["evidence"]["interval"]) == [-15.0, -9.0]
    assert items[1]["strength"] == "possible" and items[1]["sentence"].startswith(f"Not confirmed: {second}")
    assert "-4.0" in items[1]["sentence"] and "+2.0" in items[1]["sentence"] and items[2]["strength"] == "possible"


def test_paired_change_of_the_holders_and_the_seat_gap():
    """The intervention's figures by hand: 4 games, 2 seats; seat 0 holds the component in games
    0-2 and wins them as played, loses two of them once it is replaced."""
    from analyser.experiments import confirm as cc

    a = np.array([[1, 0], [1, 0], [1, 0], [0, 1]], float)
    b = np.array([[0, 1], [0, 1], [1, 0], [0, 1]], float)
    h = np.array([[1, 0], [1, 0], [1, 0], [0, 0]], bool)
    ch = cc.paired_change(a, b, h, 2, 4, best=0, worst=1)
    d = np.array([-1, -1, 0, 0.0])  # per game, the holders' change
    se = np.sqrt(4 / 3 * ((d - (-2 / 3) * h.sum(axis=1)) ** 2).sum()) / 3
    assert ch["change"] == pytest.approx(-200 / 3) and ch["low"] == pytest.approx(100 * (-2 / 3 - cm.Z95 * se))
    g = np.array([-2, -2, 0, 0.0])
    assert ch["gap_change"] == pytest.approx(-100) and ch["gap_high"] == pytest.approx(
        100 * (-1 + cm.Z95 * g.std(ddof=1) / 2))
    assert cc.verdict(ch, effect=+20.0) is (ch["high"] < 0) and not cc.verdict(ch, effect=-20.0)


def test_dragon_lairds_replacement_gives_a_card_its_peers_typical_effect(tmp_path):
    """Y01 (cost-1 Peasant) planted with 5 royals: the intervention file gives it back the effect
    of the other cost-1 Commoners, changing only its line; a card like all its peers has none."""
    game = get_game("dragon-lairds")
    text = (TITLES / "dragon_lairds" / "data" / "deck.csv").read_text()
    line = "Y01,Peasant,Commoner,yellow,1,geld,1,0,,0,no,"
    path = tmp_path / "deck.csv"
    path.write_text(text.replace(line, "Y01,Peasant,Commoner,yellow,1,geld,1,5,,0,no,"))
    option, new, what = game.component_replacement(game.Params(components=str(path)), "Y01")
    assert option == "components" and new == text and "Commoner" in what and "typical" in what.split()
    assert game.component_replacement(game.Params(), "Y01") is None


@pytest.mark.soak
def test_planted_dragon_lairds_card_is_confirmed_by_the_intervention(runner, tmp_path):
    """Issue 28's fixture: Y01 (cost 1) given 5 royals is confirmed by replaying the same games
    with it replaced; the finding is "clear" with the paired interval and a next command that runs
    on the file written into the run folder."""
    text = (TITLES / "dragon_lairds" / "data" / "deck.csv").read_text()
    path = tmp_path / "deck.csv"
    path.write_text(text.replace("Y01,Peasant,Commoner,yellow,1,geld,1,0,,0,no,",
                                 "Y01,Peasant,Commoner,yellow,1,geld,1,5,,0,no,"))
    out = tmp_path / "run"
    r = runner.invoke(cli, ["simulate", "dragon-lairds", "--players", "4", "--rule", f"components={path}", "--games",
                            "1500", "--seed", "3", "--jobs", "1", "--out", str(out), "-q", "--confirm-components"])
    assert r.exit_code == 0, r.output
    from analyser.report.page import summarise_run
    items = summarise_run(out).parts[0].component_findings
    y01 = items[0]
    assert y01["strength"] == "clear" and y01["sentence"].startswith("Confirmed: Y01")
    assert f"--b components={out / 'interventions' / 'components-Y01.csv'}" in y01["next"]
    assert (out / "interventions" / "components-Y01.csv").read_text() == text
    assert all(f["strength"] == "possible" for f in items if f["component"] and f["strength"] != "clear")


def test_confirm_components_records_paired_interventions_and_only_they_make_a_finding_clear(runner, tmp_path):
    """A small planted Dragon Lairds run (Y05 paying 10 royals, 100 games, no report) with
    --confirm-components: config.json records at most 3 interventions, each on a file written into
    the run folder, and a component finding is "clear" exactly when its intervention confirms it
    (here Y05 is confirmed and a listed peer, Y03, is not)."""
    path, _ = planted_deck(tmp_path)
    text = (TITLES / "dragon_lairds" / "data" / "deck.csv").read_text()
    out = tmp_path / "run"
    r = runner.invoke(cli, ["simulate", "dragon-lairds", "-p", "4", "--rule", f"components={path}", "--games", "100",
                            "--seed", "1", "--jobs", "1", "--out", str(out), "-q", "--no-report",
                            "--confirm-components"])
    assert r.exit_code == 0, r.output
    config = json.loads((out / "config.json").read_text())
    (records,) = config["component_confirmations"].values()
    assert 1 <= len(records) <= 3
    assert records["Y05"]["tested"] is True and records["Y05"]["confirmed"] is True
    assert any(rec["tested"] and not rec["confirmed"] for rec in records.values())  # tested, not confirmed
    for cid, rec in records.items():
        if rec["tested"] is False:  # the title offers no replacement for it: said, with the reason
            assert not rec["confirmed"] and "replacement" in rec["why"].split()
            continue
        assert rec["games"] == 100 and rec["low"] <= rec["change"] <= rec["high"]
        words = shlex.split(rec["command"])
        assert words[:3] == ["analyser", "compare", "dragon-lairds"] and words[-4:] == ["--games", "100", "--seed", "1"]
        i = words.index("-p")
        assert words[i:i + 5] == ["-p", "4", "--a", f"components={path}", "--b"]
        assert words[i + 5].startswith(f"components={out / 'interventions'}")
    from analyser.report.page import summarise_run
    items = [f for f in summarise_run(out).parts[0].component_findings if f["component"]]
    assert items and len(items) <= 3
    for f in items:
        rec = records.get(str(f["component"]))
        assert (f["strength"] == "clear") is bool(rec and rec["confirmed"])
    assert {f["strength"] for f in items} == {"clear", "possible"}
    # the planted card comes first against its peers (the other cost-2 Commoners), and is confirmed
    assert items[0]["component"] == "Y05" and items[0]["strength"] == "clear"
    assert "3 other Commoners" in items[0]["sentence"]  # its peers: the other cost-2 Commoners
    assert (out / "interventions" / "components-Y05.csv").read_text() == text


def test_symmetric_dao_control_merges_the_colours_and_lists_no_colour(runner, tmp_path):
    """The symmetric control of issue 28 (every DAO colour alike): the same value in another
    colour is the same card by the rules, so the table has one row per value, its note says
    which merge was made and why, and no finding names a colour.  A value is read against the
    other values (more cards lose more whatever they are); none is clear unconfirmed."""
    out = tmp_path / "run"
    r = runner.invoke(cli, ["simulate", "dao", "-s", "greedy", "-s", "colour", "-s", "threshold", "-s", "random",
                            "--games", "600", "--seed", "7", "--jobs", "1", "--out", str(out), "-q"])
    assert r.exit_code == 0, r.output
    table = pd.read_csv(out / "components.csv")
    assert sorted(table["component"]) == ["value 0", "value 1", "value 2", "value 3", "value 4"]
    assert (table["peer_group"] == "card values").all() and table["vs_peers"].notna().all()
    # every colour's cards were recorded apart (the data keeps them); the estimate merges them
    counts = pd.read_parquet(out / "component_counts")
    assert counts["component"].astype(str).nunique() == 25
    holders = counts[counts["component"].astype(str).str.endswith(" 0") & (counts["count"] > 0)]
    assert table.set_index("component").loc["value 0", "holders"] == len(holders.groupby(["game_index", "seat"]))
    # a 0 is worth least and a 4 most by the rules: read against the other values, so they show
    v = table.set_index("component")["vs_peers"]
    assert v["value 0"] < 0 < v["value 4"]
    html = (out / "index.html").read_text()
    assert "Collapsed:" in html and "-&gt; value 3" in html
    from analyser.report.page import summarise_run
    items = summarise_run(out).parts[0].component_findings
    assert items and len(items) <= 3
    assert all(str(f["component"]).startswith("value ") and f["strength"] == "possible" for f in items)
    assert "4 other" in items[0]["sentence"]  # its peers: the other card values


def test_a_dao_colour_worth_more_comes_first_as_that_colour(tmp_path, monkeypatch):
    """Issue 28's fixture: a DAO where one colour's cards are worth more (each metal card scores 2
    more at the end; play is unchanged).  Compared with the same value in the other colours, the
    first components are the five metal cards, above their peers."""
    from analyser.report.page import build_report
    from analyser.titles.dao import Dao as Title
    from analyser.titles.dao.rules import Dao

    plain = Dao.scores

    def scores(self, s):
        out = plain(self, s)
        if s.over:
            out = [v + 2 * sum(1 for c in s.piles[k] if c[0] == 0) for k, v in enumerate(out)]
        return out

    monkeypatch.setattr(Dao, "scores", scores)
    # a rule that makes a colour differ keeps the colours apart (else they are one card per value)
    monkeypatch.setattr(Title, "colours_differ", "metal cards score 2 more (the planted rule)")
    r = run(RunSpec(game="dao", strategies=["greedy", "threshold"], players=4, games=300, seed=2, jobs=1),
            progress=False)
    build_report(r.results, {"component_counts": r.extras["component_counts"]}, {}, tmp_path)
    table = pd.read_csv(tmp_path / "components.csv")
    assert table["clear"].any()
    listed = table[table["clear"]]
    metal = listed["component"].str.startswith("metal ")
    assert metal.iloc[:5].all() and (listed.loc[metal, "vs_peers"] > 0).all()
    # a card of another colour is listed only below its peers (whose mean the metal card raises)
    assert (listed.loc[~metal, "vs_peers"] < 0).all()
    assert table.iloc[0]["component"].startswith("metal ") and len(table) == 25
    html = (tmp_path / "index.html").read_text()
    assert "metal cards" in html and "score 2 more" in html  # why the colours stay apart


def test_kingdomino_and_tsuro_replacements_keep_the_file_valid_and_change_only_that_component(tmp_path):
    """Kingdomino Duel: the planted face ``?+5`` becomes its die's typical other face; Tsuro of the
    Seas: a tile's copies go to the tile with the most copies, so the set keeps its size."""
    path, line = planted_faces(tmp_path)
    game = get_game("kingdomino-duel")
    option, text, what = game.component_replacement(game.Params(components=str(path)), "die 2 ?+5")
    lines = text.splitlines()
    assert option == "components"
    faces = "stripe stripe double-dot+1 double-stripe+1 dot black"  # its die's faces, ?+5 made its typical other
    assert lines[line - 1].split(",") == ["die", "2", faces]
    assert lines[:line - 1] + lines[line:] == (path.read_text().splitlines()[:line - 1]
                                               + path.read_text().splitlines()[line:])
    assert "?+5" in what and game.component_replacement(game.Params(), "S1") is None
    (tmp_path / "k.csv").write_text(text)
    assert "die 2 ?+5" not in game.component_catalog(game.Params(components=str(tmp_path / "k.csv")))

    game = get_game("tsuro-seas")
    option, text, what = game.component_replacement(game.Params(), "01 23 45 67")
    (tmp_path / "t.csv").write_text(text)
    params = game.Params(tiles=str(tmp_path / "t.csv"))
    catalog = game.component_catalog(params)
    one, most = "01 23 45 67", "01 25 37 46"  # tile ids: the one-copy tile, the tile with the most copies
    assert option == "tiles" and one not in catalog
    assert numbers(catalog[most]["what"]) == [5, 56] and one in what


@pytest.mark.parametrize("title,lineup,players,games", [
    ("dao", ("threshold", "greedy"), 4, 300), ("wizard", ("expected", "bot"), 3, 100),
    ("tsuro-seas", ("random",), 3, 200), ("kingdomino-duel", ("greedy", "random"), 2, 200),
    ("dragon-lairds", ("income", "random"), 3, 150)])
def test_on_the_unmodified_titles_no_component_finding_is_clear_without_an_intervention(
        tmp_path, title, lineup, players, games):
    """Issue 28's acceptance: an association alone is never "clear"; at most 3 component findings
    (the summary the report is written from: no page or plots needed)."""
    from analyser.report.page import summarise
    r = run(RunSpec(game=title, strategies=list(lineup), players=players, games=games, seed=11, jobs=1),
            progress=False)
    summary = summarise(r.results, {"component_counts": r.extras["component_counts"]})
    items = summary.parts[0].component_findings
    assert items and len(items) <= component_findings.FINDINGS_MAX
    assert all(f["strength"] in ("possible", "none found") for f in items)


def test_tsuro_seas_tile_that_sends_its_ship_back_to_the_edge_is_named(tmp_path):
    """Issue 28's fixture: a Tsuro of the Seas tile file where one tile (01 23 45 67: every port
    joined to its neighbour on the same side, a U-turn back the way the ship came) has 12
    copies.  Measured per placement (did the placing ship stay afloat through it?), that tile is
    the component finding, below its peers; per game every tile would read positive."""
    from analyser.report.page import build_report
    src = (Path(__file__).parent.parent / "analyser/titles/tsuro_seas/data/tsuro_tiles.csv").read_text()
    lines = [("12,01 23 45 67" if x.startswith("1,01 23 45 67") else x) for x in src.splitlines()]
    path = tmp_path / "tiles.csv"
    path.write_text("\n".join(lines) + "\n")
    r = run(RunSpec(game="tsuro-seas", strategies=["random"], players=3, games=200, seed=11, jobs=1,
                    rules={"tiles": str(path)}), progress=False)
    placed = r.results["placements"].dropna().str.split().explode()
    assert set(placed.str.partition(":")[2]) == {"0", "1"}
    _, summary, _ = build_report(r.results, {"component_counts": r.extras["component_counts"]}, {}, tmp_path / "rep")
    items = summary.parts[0].component_findings
    tile = "01 23 45 67"
    assert items[0]["component"] == tile and items[0]["strength"] == "possible"
    assert "afloat" in items[0]["sentence"] and "less often" in items[0]["sentence"]
    table = pd.read_csv(tmp_path / "rep" / "components.csv").set_index("component")
    u = table.loc["01 23 45 67"]
    from analyser.titles.tsuro_seas.rules import TILE_NAMES
    uses = (placed.str.partition(":")[0] == str(TILE_NAMES.index("01 23 45 67"))).sum()
    assert u["clear"] and u["effect_high"] < 0 and u["holders"] == uses
    assert table["clear"].sum() == 1
    assert "Measured per placement" in (tmp_path / "rep" / "index.html").read_text()


def test_rate_estimate_interval_and_test_come_from_the_libraries():
    """Per-use rates: Newcombe's interval and Fisher's exact p of each component against the rest."""
    from scipy.stats import fisher_exact
    from statsmodels.stats.proportion import confint_proportions_2indep
    from analyser.stats.component_acts import rate_estimate
    out = rate_estimate({"a": (100, 60), "b": (300, 270), "c": (10, 10)}, unit="placements").set_index("component")
    low, high = confint_proportions_2indep(60, 100, 280, 310, method="newcomb", compare="diff")
    assert out.loc["a", "effect"] == pytest.approx((0.6 - 280 / 310) * 100)
    assert (out.loc["a", "effect_low"], out.loc["a", "effect_high"]) == pytest.approx((low * 100, high * 100))
    assert out.loc["a", "p"] == pytest.approx(fisher_exact([[60, 40], [280, 30]]).pvalue)
    assert numbers(out.loc["c", "reason"]) == [30] and np.isnan(out.loc["c", "p"])
    assert out.index[0] in ("a", "b") and bool(out.loc["a", "clear"])


def test_wizard_hands_measured_per_round_read_wizards_and_trumps_positive(tmp_path):
    """Issue 28: Wizard's hands measured per round, against that round's share of tricks within
    the same strategy, round and seat: Wizards and many trumps read positive, Jesters and no
    trump negative (per game, trumps read negative and Jesters positive)."""
    from analyser.report.page import build_report
    r = run(RunSpec(game="wizard", strategies=["expected", "bot"], players=3, games=60, seed=11, jobs=1),
            progress=False)
    rounds = r.extras["rounds"]
    assert rounds["trumps"].notna().any() and rounds.loc[rounds["trump"] == "none", "trumps"].isna().all()
    _, summary, _ = build_report(r.results, {"component_counts": r.extras["component_counts"], "rounds": rounds},
                                 {}, tmp_path)
    table = pd.read_csv(tmp_path / "components.csv").set_index("component")
    assert table.loc["1 Wizard", "effect_low"] > 0 and table.loc["2 Wizards", "effect_low"] > 0
    assert table.loc["4 trumps", "effect"] > 0 and table.loc["0 trumps", "effect_high"] < 0
    assert table.loc["1 Jester", "effect_high"] < 0
    # one row per round and seat: the rounds with a Wizard, out of all rounds x seats
    assert table.loc["1 Wizard", "holders"] == (rounds["wizards"] == 1).sum()
    assert table.loc["1 Wizard", "seat_games"] == len(rounds)
    items = summary.parts[0].component_findings
    assert items and all(f["strength"] == "possible" for f in items)
    assert "tricks" in items[0]["sentence"] and "round" in items[0]["sentence"]
    assert "Measured per round" in (tmp_path / "index.html").read_text()


def test_dragon_lairds_purchases_are_adjusted_for_the_buyers_standing(tmp_path):
    """Issue 28: adjust for what a seat already had when it took a component.  Dragon Lairds
    records every card taken with the round and the seat's rank by royals at that moment (the
    ``buys`` metric); the table compares a card with the other cards taken from the same
    standing (one intercept per strategy, seat, round and rank) and its note says so.  The
    effect is the statsmodels OLS with those fixed effects on the purchases written out."""
    import statsmodels.formula.api as smf
    from analyser.report.page import build_report
    r = run(RunSpec(game="dragon-lairds", strategies=["income", "random"], players=3, games=150, seed=11, jobs=1),
            progress=False)
    res = r.results
    rows = [(b.rsplit(":", 2), s, seat, w) for bs, s, seat, w in zip(res["buys"], res["strategy"].astype(str),
                                                                     res["seat"], res["win"]) for b in bs.split()]
    buys = pd.DataFrame([{"card": c, "round": int(rd), "rank": int(k), "strategy": s, "seat": seat, "win": w}
                         for (c, rd, k), s, seat, w in rows])
    assert buys["rank"].between(1, 3).all() and (buys.loc[buys["round"] == 0, "rank"] == 1).all()
    # every card the components table records is a purchase, in the same numbers
    counts = r.extras["component_counts"]
    assert len(buys) == counts["count"].sum()
    _, summary, _ = build_report(res, {"component_counts": counts}, {}, tmp_path)
    table = pd.read_csv(tmp_path / "components.csv").set_index("component")
    assert table["seat_games"].iloc[0] == len(buys)
    est = table[table["effect"].notna()]
    cid = est.index[0]
    buys["x"] = (buys["card"] == cid).astype(float)
    buys["cell"] = (buys["strategy"] + "/" + buys["seat"].astype(str) + "/" + buys["round"].astype(str) + "/"
                    + buys["rank"].astype(str))
    fit = smf.ols("win ~ x + C(cell)", data=buys).fit()
    assert table.loc[cid, "effect"] == pytest.approx(fit.params["x"] * 100, rel=1e-6)
    assert table.loc[cid, "holders"] == (buys["card"] == cid).sum()
    html = (tmp_path / "index.html").read_text()
    assert "round and rank" in html  # the adjustment made (for what the buyer already had)
    items = summary.parts[0].component_findings
    assert items and all(f["strength"] in ("possible", "none found") for f in items)


@pytest.mark.parametrize("title,lineup,players", [("tsuro-seas", ("random",), 3), ("wizard", ("expected", "bot"), 3),
                                                  ("dragon-lairds", ("income", "random"), 3)])
def test_measures_where_components_act_do_not_depend_on_the_batch_size(tmp_path, title, lineup, players):
    """Per placement, per round and per purchase, the sums are additive over chunks of whole
    games: the same components.csv for any batch size (the report's table, written without its
    figures and page)."""
    from analyser.report.components import write_components_csv
    from analyser.report.page import summarise_run
    texts = []
    for k, batch in enumerate((7, 40)):
        out = tmp_path / f"r{k}"
        run(RunSpec(game=title, strategies=list(lineup), players=players, games=40, seed=6, jobs=1,
                    batch_size=batch), progress=False, out=out)
        write_components_csv(summarise_run(out), out)
        texts.append((out / "components.csv").read_text())
    assert texts[0] == texts[1] and texts[0].count("\n") > 5


def test_a_confirmation_follows_the_tested_effect_and_needs_a_change_of_a_point_or_more():
    """The faults a new user found: value 4 of DAO was listed for +11.0 pp against its peers (its
    effect against none, -9.8 pp, is not what was tested), and its replacement raised the holders'
    win rate by +1.7 pp (+0.8 to +2.6): that contradicts the association, so it is not confirmed.
    A replacement that moves the holders' win rate by +0.2 pp (+0.1 to +0.3) confirms nothing,
    however narrow its interval (less than CONFIRM_MIN_PP, 1 pp)."""
    from types import SimpleNamespace

    from analyser.experiments import confirm as cc

    value4 = SimpleNamespace(effect=-9.8, vs_peers=11.0)
    assert cc.tested_effect(value4) == 11.0
    assert cc.tested_effect(SimpleNamespace(effect=-9.8, vs_peers=float("nan"))) == -9.8
    rise = {"change": 1.7, "low": 0.8, "high": 2.6}
    assert not cc.verdict(rise, cc.tested_effect(value4))       # the replay goes against +11.0 pp
    assert cc.verdict(rise, -9.8)                                 # (it would confirm a -9.8 pp association)
    tiny = {"change": 0.2, "low": 0.1, "high": 0.3}
    assert cm.CONFIRM_MIN_PP == 1.0 and not cc.verdict(tiny, -10.1)
    assert cc.verdict({"change": -1.2, "low": -2.0, "high": -0.4}, +5.0)


def test_a_listed_component_the_title_cannot_replace_says_no_intervention_was_played():
    res, comp = synthetic(games=400)
    est = cm.estimate(sums_of(res, comp))
    first = component_findings.findings(est, component_findings.Rerun("dao", ["a", "b"], 400))[0]["component"]
    conf = {first: {"tested": False, "confirmed": False, "why": "the title offers no replacement for it"}}
    item = component_findings.findings(est, component_findings.Rerun("dao", ["a", "b"], 400), confirmations=conf)[0]
    assert item["strength"] == "possible"
    assert item["sentence"].endswith(conf[first]["why"] + ".")  # the reason, as the confirmation gave it
    assert "1 pp" in item["threshold"]


def test_the_fresh_seed_command_plays_new_games_not_the_runs_own():
    """A new user's fault: Wizard's "confirm with a fresh seed" named --seed 2, the run's own seed
    (so its first games were the very games being checked).  The command names no seed: the run
    draws a fresh one and records it."""
    cmd = component_findings.next_command("W", {}, component_findings.Rerun("wizard", ["random"], 400, 3))
    assert "--seed" not in cmd  # the run draws a fresh one
    assert shlex.split(cmd.split(": ")[-1]) == ["analyser", "simulate", "wizard", "-s", "random", "-p", "3", "--games",
                                                "4000"]


def test_a_replaced_face_says_whether_it_took_its_dies_typical_face_or_only_the_first():
    game = get_game("kingdomino-duel")
    params = game.Params()
    # die 1 writes "dot" twice: that is its typical face
    option, text, what = game.component_replacement(params, "die 1 stripe")
    assert [what.split()[i] for i in (1, 4, 6)] == ["stripe", "1", "dot,"] and "typical" in what.split()
    faces = "? dot double-stripe+1 dot double-dot+1 dot"
    assert ["die", "1", faces] in [x.split(",") for x in text.splitlines()]
    # every other face of die 3 appears once: the first is taken, and said so
    option, text, what = game.component_replacement(params, "die 3 black+2")
    assert [what.split()[i] for i in (1, 4, 6)] == ["black+2", "3", "double-dot,"] and "first" in what.split()


def test_a_data_file_component_without_a_typical_peer_says_so_in_its_next_command():
    from analyser.experiments import confirm as cc

    info = {"option": "components", "file": "/x/deck.csv", "line": 12}
    cmd = component_findings.next_command(
        "R01", info, component_findings.Rerun("dragon-lairds", ["income"], 800, 4, {"components": "/x/deck.csv"}, 7),
        replacement=())
    assert "typical peer" in cmd.split("; ")[0] and " line 12 " in cmd  # why, then how to test a change
    assert cmd.split("copy ")[1].split()[:3] == ["/x/deck.csv", "to", "fixed.csv,"]
    assert cmd.split()[-8:] == ["--a", "components=/x/deck.csv", "--b", "components=fixed.csv", "--games", "800",
                                "--seed", "7"]
    plain = component_findings.next_command(
        "R01", info, component_findings.Rerun("dragon-lairds", ["income"], 800, 4, {"components": "/x/deck.csv"}))
    assert plain.startswith("copy /x/deck.csv") and plain.endswith("--games 1000")  # no seed recorded: its own
    assert "typical effect" in cc.NO_REPLACEMENT


def test_a_report_rebuilt_after_its_data_file_changed_or_went_missing_says_so(runner, tmp_path):
    path, line = planted_deck(tmp_path)
    out = tmp_path / "run"
    # (a report of a run whose data file is unchanged says nothing of it: the planted-component test)
    r = runner.invoke(cli, ["simulate", "dragon-lairds", "--rule", f"components={path}", "--games", "20", "--seed",
                            "1", "--jobs", "1", "--out", str(out), "-q", "--no-report"])
    assert r.exit_code == 0, r.output
    path.write_text(path.read_text().replace("Y02,", "Y02,", 1) + "\n")  # one byte more: another file
    shutil.rmtree(out / "interventions", ignore_errors=True)
    r = runner.invoke(cli, ["report", str(out), "-q"])
    assert r.exit_code == 0, r.output
    html = (out / "index.html").read_text()
    note = re.search(r"<b>Data file:</b>([^<]*)", html).group(1)
    assert str(path.resolve()) in note and "changed" in note.split()
    assert not (out / "interventions").exists()  # no changed copy of a file the run did not read
    path.unlink()
    r = runner.invoke(cli, ["report", str(out), "-q"])
    assert r.exit_code == 0, r.output
    note = re.search(r"<b>Data file:</b>([^<]*)", (out / "index.html").read_text()).group(1)
    assert str(path.resolve()) in note and "missing," in note.split()


def _clear_estimates():
    import math

    nan = math.nan
    return pd.DataFrame({
        "component": ["value 0", "lair", "gem"],
        "what": ["card of value 0 in any colour, 1 per colour, a long description of it", "", "a gem"],
        "clear": [True, True, False],
        "effect": [-11.2, 4.0, 1.0], "effect_low": [-15.8, 1.0, -1.0], "effect_high": [-6.6, 7.0, 3.0],
        "vs_peers": [-9.5, nan, nan], "vs_peers_low": [-15.7, nan, nan], "vs_peers_high": [-3.4, nan, nan]})


def test_the_forest_plot_draws_the_estimate_that_passed_and_wraps_labels_at_spaces(tmp_path):
    from analyser.stats import components as comp
    from analyser.text import width

    est = _clear_estimates()
    rows = comp.forest_rows(est)
    assert rows["component"].tolist() == ["value 0", "lair"]                       # the clear ones only
    assert rows["against"].tolist() == ["peers", "none"]
    assert rows[["drawn", "drawn_low", "drawn_high"]].values.tolist() == [[-9.5, -15.7, -3.4], [4.0, 1.0, 7.0]]
    assert all(lo < 0 for lo, hi in zip(rows["drawn_low"], rows["drawn_high"]) if hi < 0)  # no interval crosses 0
    label = rows["label"].iloc[0]
    assert label.replace("\n", " ") == "value 0 - " + est["what"].iloc[0]        # nothing cut, no word split
    assert label.count("\n") >= 1 and all(width(line) <= comp.LABEL_CHARS for line in label.split("\n"))
    assert "peers" in comp.forest_title(rows, 2) and "none" in comp.forest_title(rows, 2)
    assert "none" not in comp.forest_title(rows.iloc[:1], 1)
    assert comp.forest_plot(est, tmp_path / "f.png")[0] == "f.png" and (tmp_path / "f.png").stat().st_size > 0
