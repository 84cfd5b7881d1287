"""Report layout and plots (issue 22): precision that follows the interval, p-values below the
float range, histogram bins on the score lattice, readable heatmap labels, every compared figure
in compare.png, CJK fonts, the page's width, contents list and plot placement, and progress bars
only on a terminal."""

import re
import shutil
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from matplotlib.patches import Rectangle, StepPatch

from markupsafe import escape

from analyser.stats import analysis, designer, plots
from analyser.report import page as report
from analyser.experiments import compare, grid, sweep
from analyser.run import RunSpec, run
from analyser.cli import cli
from analyser.engine.registry import default_lineup, game_ids, get_game


def invoke(runner, *args):
    return runner.invoke(cli, list(args), catch_exceptions=False)


# -- precision follows the interval ----------------------------------------------------------------

def test_decimals_follow_the_half_width():
    assert analysis.decimals(2.2) == 1      # 2,000 games: +/-2.2 pp
    assert analysis.decimals(0.3) == 2      # 100,000 games: +/-0.3 pp
    assert analysis.decimals(0.031) == 3
    assert analysis.decimals(15.0) == 0
    assert analysis.decimals(9.99) == 1 and analysis.decimals(10.0) == 0
    assert analysis.decimals(float("nan")) == 1 and analysis.decimals(0.0, default=2) == 2
    assert analysis.decimals(1e-9) == analysis.MOST_DECIMALS
    # a column: its median row (one row near 0% does not lengthen the others)
    assert analysis.decimals([5.0, 4.0, 0.6]) == 1


def test_one_helper_formats_win_rates_in_tables_cards_and_the_designer_table():
    wide = pd.DataFrame({"strategy": ["a", "b"], "win_rate": [0.41234, 0.1], "win_low": [0.39, 0.08],
                         "win_high": [0.434, 0.122], "fair_share": [0.5, 0.5]})
    t = analysis.format_table(wide)
    assert list(t["win rate"]) == ["41.2%", "10.0%"] and list(t["95% CI"]) == ["39.0-43.4%", "8.0-12.2%"]
    assert list(t["fair share"]) == ["50.0%", "50.0%"]
    narrow = wide.assign(win_low=wide["win_rate"] - 0.003, win_high=wide["win_rate"] + 0.003)  # 100,000 games
    t = analysis.format_table(narrow)
    assert list(t["win rate"]) == ["41.23%", "10.00%"] and t["95% CI"].iloc[0] == "40.93-41.53%"
    # an interval of another figure (a rating, a mean score, a difference in pp) follows the same rule
    t = analysis.format_table(pd.DataFrame({"rating": [1.1234], "rating_low": [1.0], "rating_high": [1.25]}))
    assert t["rating"].iloc[0] == "1.12" and t["rating 95% CI"].iloc[0] == "1.00 to 1.25"
    assert analysis.percent(0.41234, 0.409, 0.415) == "41.23%"
    assert analysis.percent_ci(0.409, 0.415) == "40.90-41.50%"
    rows = dict(designer.designer_rows({"tie_rate": 0.01234, "tie_low": 0.0113, "tie_high": 0.0134,
                                        "close_rate": 0.3, "close_low": 0.25, "close_high": 0.35}, None, None).values)
    assert rows["tie rate (shared wins)"] == "1.23% (95% CI 1.13-1.34%)"  # +/-0.1 pp
    assert rows["close games (top two within 1 point)"] == "30.0% (95% CI 25.0-35.0%)"  # +/-5 pp


def test_a_p_value_below_the_float_range_prints_as_less_than_1e_300():
    assert analysis.format_p(0.0) == "< 1e-300" and analysis.format_p(5e-324) == "< 1e-300"
    assert analysis.format_p(0.01234) == "0.0123" and analysis.format_p(float("nan")) == "-"
    assert analysis.p_text(0.0) == "p < 1e-300" and analysis.p_text(0.0456) == "p = 0.046"
    assert "p < 1e-300" in analysis.seat_verdict(2000.0, 0.0, 2, 0, 1, 40.0, 38.0, 42.0)["verdict"]
    t = analysis.format_table(pd.DataFrame({"cell": [1, 2], "p": [0.0, 0.5], "seat_p": [1e-310, 0.25]}))
    assert list(t["p"]) == ["< 1e-300", "0.5"] and list(t["seat p"]) == ["< 1e-300", "0.25"]
    table = pd.DataFrame([{"figure": "game length", "a": 67.8, "b": 48.2, "diff": 19.6, "low": 18.7, "high": 20.4,
                           "p": 0.0, "p_wilcoxon": 1e-98, "test": "paired t; Wilcoxon"}])
    shown = compare.display_table(table).iloc[0]
    assert shown["p"] == "< 1e-300" and shown["p (Wilcoxon)"] == "1e-98"
    assert shown["A - B"] == "+19.60" and shown["95% CI"] == "+18.70 to +20.40"


# -- histograms on the score lattice ---------------------------------------------------------------

def test_lattice_step_is_the_gcd_of_the_differences():
    assert plots.lattice_step([-40, 10, 30, 120]) == 10
    assert plots.lattice_step([3, 4, 9]) == 1
    assert plots.lattice_step([0.5, 1.5, 2.0]) == 0.5
    assert plots.lattice_step([7]) is None and plots.lattice_step([0.1234567, 0.5]) is None


def test_lattice_bins_hold_the_same_number_of_lattice_points():
    scores = np.arange(-600, 450, 10)            # Wizard-like: 105 multiples of 10
    edges = plots.lattice_bins(scores, most=50)
    widths = np.diff(edges)
    assert np.allclose(widths, 30) and len(widths) <= 50      # 3 steps per bin, never 22 or 24
    held = np.histogram(scores, edges)[0]
    assert (held == 3).all()
    small = plots.lattice_bins(np.array([2, 4, 6, 10]), most=50)
    assert np.allclose(np.diff(small), 2) and small[0] == 1 and small[-1] == 11


def bar_heights(ax) -> list[float]:
    """The heights of an axes' histogram bars, drawn a patch per bar or as one step outline."""
    out = []
    for p in ax.patches:
        out += list(p.get_data().values) if isinstance(p, StepPatch) else [p.get_height()] * isinstance(p, Rectangle)
    return out


def test_score_histogram_of_an_even_spread_on_a_lattice_has_no_comb(tmp_path, monkeypatch):
    heights = {}
    real_save = plots.save

    def keep(fig, path, caption):
        heights[path.name] = [bar_heights(ax) for ax in fig.axes]
        return real_save(fig, path, caption)

    monkeypatch.setattr(plots, "save", keep)
    scores = np.arange(-600, 450, 10)  # every multiple of 10 equally often, for four strategies (one panel each)
    counts = pd.DataFrame({"count": 1.0}, index=pd.MultiIndex.from_product([list("abcd"), scores],
                                                                          names=["strategy", "score"]))
    plots.score_distribution_counts(counts, tmp_path / "scores.png", order=list("abcd"))
    panels = [bars for bars in heights["scores.png"] if bars]
    assert len(panels) == 4
    for bars in panels:  # 35 bars of 3 scores each, all as tall: no comb
        assert len(bars) == 35 and max(bars) == pytest.approx(min(bars)) == pytest.approx(300 / 105)


# -- sweep heatmap labels --------------------------------------------------------------------------

def test_heatmap_labels_are_readable_and_tell_neighbours_apart(tmp_path, monkeypatch):
    g = grid.build(get_game("dao"), ["threshold:limit=6..8", "greedy"], ["bust_limit=10,12"])
    rates = [0.1004, 0.1012, 0.0996, 0.2031, 0.3, 0.25]    # three neighbours that round to 10
    rows = []
    for c, r in zip(g.cells, rates):
        rows.append({"cell": c.index, **{k: int(v) for k, v in c.values.items()}, "slot": 0,
                     "win_rate": r, "win_low": r - 0.003, "win_high": r + 0.003, "diff": r - 0.3,
                     "diff_low": r - 0.31, "diff_high": r - 0.29, "best": r == 0.3, "tied_with_best": r == 0.3})
    cells = pd.DataFrame(rows)
    seen = []
    real = plots.fit_cell_labels

    def record(fig, texts, nx, ny, chars):
        real(fig, texts, nx, ny, chars)
        seen.extend((t.get_text(), t.get_fontsize(), ax.get_window_extent().width / nx) for ax, t in texts)

    monkeypatch.setattr(plots, "fit_cell_labels", record)
    sweep.plot_sweep(g, cells, tmp_path, "threshold")
    texts = sorted(t for t, _, _ in seen)
    assert texts == ["10.04", "10.12", "20.31", "25.00", "30.00", "9.96"]  # +/-0.3 pp: two decimals
    assert all(size >= sweep.LABEL_PT for _, size, _ in seen)
    # each label fits its cell: about 0.62 em per character at its size, in pixels at the figure's dpi
    assert all(len(t) * 0.62 * size * 100 / 72 < cell for t, size, cell in seen)


# -- compare.png shows every compared figure --------------------------------------------------------

def test_compare_plot_shows_every_figure_in_its_own_units(tmp_path, monkeypatch):
    table = pd.DataFrame([
        {"figure": "win rate: greedy", "a": 0.4, "b": 0.41, "diff": -0.01, "low": -0.03, "high": 0.01, "p": 0.2},
        {"figure": "mean score: greedy", "a": 3.2, "b": 3.1, "diff": 0.1, "low": -0.2, "high": 0.3, "p": 0.9},
        {"figure": "game length", "a": 67.8, "b": 48.0, "diff": 19.8, "low": 18.9, "high": 20.6, "p": 0.0},
        {"figure": "tie rate", "a": 0.01, "b": 0.01, "diff": 0.0, "low": -0.01, "high": 0.01, "p": 1.0},
        {"figure": "lead changes per game", "a": 2.0, "b": 1.7, "diff": 0.3, "low": 0.1, "high": 0.4, "p": 1e-5},
    ]).assign(p_wilcoxon=np.nan, test="")
    cmp = compare.Comparison(table, True, "paired", {}, {}, 600)
    seen = {}
    real_save = plots.save

    def keep(fig, path, caption):
        seen["titles"] = [ax.get_title(loc="left") for ax in fig.axes]
        seen["ticks"] = [t.get_text() for ax in fig.axes for t in ax.get_yticklabels()]
        seen["xlabels"] = [ax.get_xlabel() for ax in fig.axes]
        return real_save(fig, path, caption)

    monkeypatch.setattr(plots, "save", keep)
    compare.plot_compare(cmp, tmp_path, "points", "turns")
    assert sorted(seen["ticks"]) == sorted(table["figure"])
    assert seen["xlabels"] == ["A - B (percentage points)", "A - B (points)", "A - B (turns)",
                               "A - B (lead changes per game)"]
    assert seen["titles"][2] == "Game length: A - B (turns)"


# -- CJK strategy names in PNGs ---------------------------------------------------------------------

def test_a_font_installed_after_matplotlib_cached_its_list_is_found(tmp_path, monkeypatch):
    from matplotlib import font_manager
    src = Path(font_manager.findfont("DejaVu Sans"))
    late = tmp_path / "LateFont.ttf"
    shutil.copy(src, late)
    monkeypatch.setattr(font_manager.fontManager, "ttflist", list(font_manager.fontManager.ttflist))
    monkeypatch.setattr(font_manager, "findSystemFonts", lambda *a, **k: [str(late)])
    assert str(late) not in {f.fname for f in font_manager.fontManager.ttflist}
    plots._register_system_fonts()
    assert str(late) in {f.fname for f in font_manager.fontManager.ttflist}


def test_fallback_prefers_an_upright_regular_sans_font():
    from matplotlib.font_manager import FontEntry
    fonts = [FontEntry(name="Noto Serif CJK JP", style="normal", weight=400),
             FontEntry(name="Noto Sans CJK JP", style="normal", weight=700),
             FontEntry(name="Noto Sans CJK JP", style="normal", weight=400)]
    best = sorted(fonts, key=plots._fallback_order)[0]
    assert (best.name, best.weight) == ("Noto Sans CJK JP", 400)


def _cjk_font_installed() -> bool:
    plots._font_charmaps.cache_clear()
    return any(0x7B56 in chars for _, chars in plots._font_charmaps()[1:])


def test_a_cjk_strategy_name_is_drawn_with_an_installed_cjk_font(tmp_path, monkeypatch):
    monkeypatch.setitem(plots.plt.rcParams, "font.family", list(plots.plt.rcParams["font.family"]))
    if not _cjk_font_installed():
        pytest.skip("no CJK font installed (e.g. Debian's fonts-noto-cjk)")
    name = plots.label("策略.py:c")
    assert name == "策略.py:c"
    summary = pd.DataFrame({"strategy": [name, "greedy"], "win_rate": [0.5, 0.5], "win_low": [0.4, 0.4],
                            "win_high": [0.6, 0.6]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a missing glyph warns
        plots.win_rate(summary, 2, tmp_path / "w.png")
    plots._font_charmaps.cache_clear()


# -- the page: width, wide tables, contents, plots in their sections --------------------------------

def test_the_page_uses_the_window_width_and_wide_tables_scroll_visibly():
    css = (Path(report.__file__).parent / "templates" / "style.css.j2").read_text()
    assert "max-width: 980px" not in css and "width: 100%" in css
    assert "overflow-x: auto" in css and "white-space: nowrap" in css and "::-webkit-scrollbar" in css
    html = report.html_table(pd.DataFrame({"cell": [1], "verdict": ["x " * 40]}))
    assert html.startswith(f'<p class="wide-hint">{report.WIDE_HINT}</p><div class="table-wrap"><table class="data">')
    assert '<td class="prose">' in html and "<td>1</td>" in html  # long text wraps; numbers never do
    assert report.short_caption("Exact bids (%) by round (round r deals r cards), per strategy") == \
        "Exact bids by round, per strategy"
    assert report.short_caption("Spells: share of games in which each was gained") == "Spells"
    # a long caption is cut at the end of a word
    assert report.short_caption("How games ended, rounds played and empty cells left on boards (per strategy)") == \
        "How games ended, rounds played and empty cells left on..."


def _sections(html: str) -> dict[str, str]:
    """h2 id -> the HTML up to the next h2."""
    parts = re.split(r'<h2[^>]* id="([^"]+)"[^>]*>', html)
    return {parts[k]: parts[k + 1] for k in range(1, len(parts) - 1, 2)}


@pytest.mark.parametrize("game_id", game_ids())
def test_every_title_plot_sits_under_the_table_it_illustrates(game_id, tmp_path):
    game = get_game(game_id)
    lineup = default_lineup(game_id)[:game.default_players]
    spec = RunSpec(game=game_id, strategies=lineup, games=12, seed=1, jobs=1)
    r = run(spec, progress=False)
    path, summary, pngs = report.build_report(r.results, r.extras, r.config, tmp_path)
    html = path.read_text(encoding="utf-8")
    sections = _sections(html)
    toc = html.split('<nav class="toc">')[1].split("</nav>")[0]
    assert set(re.findall(r'href="#([^"]+)"', toc)) == set(sections)       # the contents link every section
    # the page opens with the contents, then the headline figures, then the findings (README, docs/results.md)
    assert html.index('<nav class="toc">') < html.index('<div class="headline">') < html.index('<h2 id="findings"')
    captions = [c for c, _ in summary.title_tables]
    # (components.png is the report's own component section's forest plot, drawn when one passes)
    title_pngs = [p for p in pngs if p not in report.CORE_PLOTS and p != "components.png"]
    assert set(game.plot_sections) == set(title_pngs), "plot_sections names the title's plots"
    assert "more-plots" not in sections
    for png, opening in game.plot_sections.items():
        caption = next(c for c in captions if c.lower().startswith(opening.lower()))
        home = [k for k, body in sections.items() if body.split("</h2>")[0] == str(escape(caption))]
        assert len(home) == 1 and f"({png})</figcaption>" in sections[home[0]], (png, caption)
    assert "(win_rate.png)</figcaption>" in sections["strategies"]
    assert "(seat_win_rate.png)</figcaption>" in sections["turn-order"]


def test_a_title_plot_that_names_no_table_goes_under_more_plots(tmp_path, monkeypatch):
    game = get_game("dao")
    monkeypatch.setattr(type(game), "plot_sections", {})
    r = run(RunSpec(game="dao", strategies=["greedy", "random"], games=8, seed=1, jobs=1),
                        progress=False)
    html = report.build_report(r.results, r.extras, r.config, tmp_path)[0].read_text(encoding="utf-8")
    sections = _sections(html)
    assert "(cards.png)</figcaption>" in sections["more-plots"] and 'href="#more-plots"' in html


# -- sweep, tournament, compare: terminal output and progress bars ---------------------------------

def test_sweep_lists_every_cell_or_says_how_many_are_hidden(runner, tmp_path, monkeypatch):
    args = ["sweep", "dao", "-s", "threshold:limit=6..8", "-s", "greedy", "--rule", "bust_limit=10,12",
            "--games", "6", "--jobs", "1", "--seed", "1", "--players", "2", "--no-report"]
    r = invoke(runner, *args, "--out", str(tmp_path / "a"))
    assert r.exit_code == 0, r.output
    # the table: after its header, before the findings
    table = r.output.split("Stopped:")[1].split("\nFindings")[0].split("\nCells:")[0].strip().splitlines()[2:]
    assert len([line for line in table if line.strip()]) == 6 and "not shown" not in r.output
    monkeypatch.setattr(sweep, "TERMINAL_CELLS", 5)   # more cells than this: the best 4 and a count
    monkeypatch.setattr(sweep, "TERMINAL_SHOWN", 4)
    r = invoke(runner, *args, "--out", str(tmp_path / "b"))
    assert "... 2 more cells not shown (the best 4 of 6; cells.csv and the report have all)" in r.output


def test_sweep_tournament_and_compare_draw_no_bar_into_a_redirected_log(runner, tmp_path):
    """CliRunner's stderr is not a terminal, like a log file: no bar (a bar draws '|' and 'game/s')."""
    for args in (["sweep", "dao", "-s", "threshold:limit=6,7", "-s", "greedy", "--games", "4"],
                 ["tournament", "dao", "-s", "greedy", "-s", "random", "-s", "threshold", "--players", "2",
                  "--games", "6"],
                 ["compare", "dao", "-s", "greedy", "-s", "random", "--a", "bust_limit=10", "--b", "bust_limit=12",
                  "--games", "4"]):
        r = runner.invoke(cli, args + ["--jobs", "1", "--seed", "1", "--out", str(tmp_path / args[0])],
                          catch_exceptions=False)
        assert r.exit_code == 0, r.output
        assert "game/s" not in r.output and "it/s" not in r.output and "\r" not in r.output, args[0]
        html = (tmp_path / args[0] / "index.html").read_text(encoding="utf-8")
        assert html.index('<nav class="toc">') < html.index('<div class="headline">') < html.index("<h2"), args[0]
