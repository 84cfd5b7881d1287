"""The title object: the rules' Game bound to this title's figures and text drawing."""

from pathlib import Path

from analyser.engine.deferred import Deferred
from analyser.io.files import read_component_rows
from analyser.titles.tsuro_seas.rules import DATA, TILE_NAMES, parse_pairs, tile_of
from analyser.titles.tsuro_seas.rules import TsuroSeas as _Rules


class TsuroSeas(_Rules):
    figure_sums = Deferred("analyser.titles.tsuro_seas.figures")
    figure_tables_from = Deferred("analyser.titles.tsuro_seas.figures")
    plots_from = Deferred("analyser.titles.tsuro_seas.figures")
    describe_state = Deferred("analyser.titles.tsuro_seas.render")
    step_events = Deferred("analyser.titles.tsuro_seas.render")
    plot_sections = {"elimination_heatmap.png": "Fate of ships per strategy",
                     "elimination_causes.png": "Fate of ships per strategy"}
    bench_cases = (("4p random", ("random",), 4, 1000, 4000),
                   ("4p survivor depth 1", ("survivor:depth=1",), 4, 400, 2000))
    mcts_bench_games = 8  # bench --mcts: a short game against random
    component_note = ("A ship that stays afloat longer places more tiles, so per game most tiles go with winning "
                      "whatever they are; the table measures each tile per placement instead: how often the "
                      "placing ship stays afloat through it, against the other tiles' placements.")

    def component_catalog(self, params):
        """The rules' catalog with one peer group for every tile: a ship afloat longer places
        more tiles of every kind, so a tile is compared with the other tiles, not with none."""
        out = super().component_catalog(params)
        for info in out.values():
            info["peers"] = "wake tiles"
        return out

    def component_acts(self, title_sums, catalog):
        """Tiles measured per placement, where they act: a ship afloat longer places more tiles of
        every kind, so per game every tile goes with winning.  Per placement: the share of a
        tile's placements its own ship stayed afloat through (not sent off the edge, into a
        ship, a daikaiju or a loop by that tile) against the same share over every other tile's
        placements (:func:`analyser.stats.component_acts.rate_estimate`; the figure sums'
        ``placements``).  None when no tile was placed."""
        from analyser.stats.component_acts import rate_estimate

        table = (title_sums or {}).get("placements")
        if table is None or not len(table):
            return None
        counts = {}
        for tile, row in table.iterrows():
            name = TILE_NAMES[int(tile)]
            n, k = counts.get(name, (0, 0))
            counts[name] = (n + int(row["placed"]), k + int(row["kept"]))
        note = ("Measured per placement, where a tile acts: kept afloat is the share of the tile's placements "
                "its own ship stayed afloat through (its path did not run off the edge, into a ship, a daikaiju "
                "or a loop); effect: that share minus the share over every other tile's placements (pp), "
                "Newcombe's 95% interval and Fisher's exact test, placements treated as independent (an "
                "approximation: one game's placements share a board). q: Benjamini-Hochberg over the tiles "
                "with an estimate. Per placement, not per game: a ship afloat longer places more tiles of every "
                "kind, so per game every tile goes with winning. components.csv: holders = placements of the "
                "tile, win_with / win_without = kept-afloat share of its placements / of the others'.")
        wording = {"sentence": "{name}: a placement of it keeps its own ship afloat {size:.1f} pp {more} often than "
                               "a placement of another tile",
                   "figure": "{effect:+.1f} pp; ship kept afloat in {with_:.1f}% of its {uses:,} placements, "
                             "{without:.1f}% for the other tiles' placements; {q}",
                   "verb_none": "keeps ships afloat more or less often"}
        return rate_estimate(counts, catalog, unit="placements", note=note, wording=wording)

    def component_replacement(self, params, cid: str):
        """Tile ``cid``'s copies given to the typical tile (the one with the most copies among the
        others; the first in file order on a tie), so the set keeps its size: ``(option, new file
        text, what changed)``; None for a tile not in the file or the only one."""
        path = Path(params.tiles).expanduser() if params.tiles else DATA / "tsuro_tiles.csv"
        rows = [(line, row, TILE_NAMES[tile_of(parse_pairs(row[1]))[0]]) for line, row in
                read_component_rows(path, "tiles", ["copies", "pairs"])]
        mine = [x for x in rows if x[2] == cid]
        others = [x for x in rows if x[2] != cid and int(x[1][0]) > 0]
        if not mine or not others:
            return None
        top = max(others, key=lambda x: int(x[1][0]))  # max keeps the first of equals
        moved = sum(int(x[1][0]) for x in mine)
        text = path.read_text(encoding="utf-8").splitlines(keepends=True)
        for line, row, _ in mine:
            text[line - 1] = text[line - 1].replace(f"{row[0]},", "0,", 1)
        text[top[0] - 1] = text[top[0] - 1].replace(f"{top[1][0]},", f"{int(top[1][0]) + moved},", 1)
        return "tiles", "".join(text), f"the {moved} cop{'y' if moved == 1 else 'ies'} of tile {cid} made tile {top[2]}"


TITLE = TsuroSeas()
