"""Reading results: a run folder's Parquet parts, a single results file (Parquet or CSV) and the
``config.json`` beside them, all untrusted input.

Every table read whole is validated (:mod:`analyser.io.validate`) before anything uses it; a
run folder's parts are checked against their footers and ``config.json`` (:func:`check_parts`).
A title loaded from a file runs that file's code, so a results folder names one only when this
process trusts the file (:func:`trust_title_file`).
"""

from __future__ import annotations

import shlex

from pathlib import Path

import pandas as pd

from analyser.engine import traces
from analyser.engine.core import InputError
from analyser.io.csvsafe import restore_frame
from analyser.io.files import check_regular_file
from analyser.engine.registry import game_ids, get_game, is_title_file, loaded_file_title
from analyser.io.validate import validate_config, validate_extra, validate_results
from analyser.run import store
from analyser.run.folders import missing_games, read_config_file
from analyser.run.trust import Allowed, is_trusted_file, refusal, resume_command, trust_file


def _read_parts(folder: Path, columns: list[str] | None = None) -> pd.DataFrame:
    """Every part of ``folder`` as one frame (only ``columns`` that exist, when given)."""
    pieces = []
    for p in store.part_files(folder):
        t = store.read_part_table(p, columns)  # InputError naming a part that cannot be read
        if t.num_rows:
            pieces.append(t)
    if not pieces:
        return pd.DataFrame()
    return traces.concat_tables(pieces, f"the parts of {str(folder)!r}").to_pandas()


def _distinct_text(col: pd.Series) -> list[str]:
    """The distinct values of a column as text, in order of appearance (cheap for categories)."""
    if isinstance(col.dtype, pd.CategoricalDtype):
        used = pd.unique(col.cat.codes)
        return [str(col.cat.categories[i]) for i in used if i >= 0]
    return [str(x) for x in pd.unique(col.astype(str))]


#: Allow, or ask whether this process allows, :func:`load_results` to load a title file a run's
#: ``config.json`` names (loading it runs its code: the rule of :mod:`analyser.run.trust`).
trust_title_file = trust_file
is_trusted_title_file = is_trusted_file


def load_results(path: Path, columns: list[str] | None = None) -> tuple[pd.DataFrame, dict[str, pd.DataFrame], dict]:
    """Read a run folder (its Parquet parts, or the ``results.csv`` of ``--csv``), a results file
    (Parquet or CSV), with the extra tables and config.json.  A folder of an older layout (one
    ``results.parquet``) is refused in one line.

    ``columns``: read only these result columns (those that exist), to keep memory down.
    A single results file (and the whole table of a run folder, when no ``columns`` are asked
    for) is validated against its title's results schema (:func:`validate_results`) and the
    config against the table (:func:`validate_config`) before anything else uses them; the
    title's extra tables found beside a single file are validated too (:func:`validate_extra`).
    Raises InputError (one line naming the file, the column and the problem) otherwise.
    """
    path = Path(path)
    if path.is_dir() and path.name == store.RESULTS and store.part_files(path):
        path = path.parent  # the parts folder itself: read its run
    folder = path if path.is_dir() else path.parent
    if path.is_dir() and (path / store.RESULTS).is_dir() and store.part_files(path / store.RESULTS):
        df = _read_parts(path / store.RESULTS, columns)
        path = path / store.RESULTS
        whole = columns is None
    else:
        path = _results_file(path, folder)
        df = _read_table(path, "results file")
        whole = True
    game, config = title_and_config(df, folder, path)
    if whole:
        validate_results(df, game, path)
        if (folder / "config.json").exists() and not (isinstance(config, dict)
                                                      and config.get("kind") in EXPERIMENT_KINDS):
            validate_config(config, df, game, folder / "config.json", path)
    extras = _read_extras(game, folder, path, df)
    _restore_text(df, game, path)
    if "strategy" in df.columns:
        _order_strategies(df, config)
    return df, extras, config


def _results_file(path: Path, folder: Path) -> Path:
    """The single results file ``path`` names (a folder's ``results.csv``), checked to be a regular
    file; InputError naming what the path is instead (an experiment's folder, a run without
    finished parts, a folder of an older layout, nothing)."""
    given_folder = path.is_dir()
    if given_folder and (folder / "results.parquet").exists():
        raise InputError(f"{str(folder)!r} holds a run written by an older version of analyser (one "
                         "results.parquet), which this one does not read; run it again")
    if given_folder:
        path = folder / "results.csv"
    if not path.exists():
        kind = _experiment_kind(folder)
        if kind:
            tables = sorted(p.name for p in folder.glob("*.parquet"))
            pooled = (f"; to pool its games in one report elsewhere give {str(folder / tables[0])!r} --out DIR"
                      if tables else "")
            raise InputError(f"{str(folder)!r} is a {kind} folder, not a run: its report is "
                             f"{str(folder / 'index.html')!r}{pooled}")
        if (folder / store.RESULTS).is_dir():
            raise InputError(f"{str(folder / store.RESULTS)!r} holds no finished part (part-*.parquet): the run "
                             "has no finished games to report")
        if given_folder:
            raise InputError(f"{str(folder)!r} is not a run folder: it has no results/ parts, results.parquet "
                             "or results.csv; give a run folder or a results file")
        raise InputError(f"results file {str(path)!r} does not exist; give a run folder, results.parquet "
                         "or results.csv")
    check_regular_file(path, "results file")
    return path


def _read_extras(game, folder: Path, path: Path, df: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The title's extra tables beside the results read from ``path``: a run's parts (not empty),
    or a single Parquet or CSV file (a CSV only beside CSV results), validated against ``df``."""
    extras = {}
    for name in game.extra_tables:
        if (folder / name).is_dir():
            frame = _read_parts(folder / name)
            if len(frame):
                extras[name] = frame
            continue
        for p in (folder / f"{name}.parquet", folder / f"{name}.csv"):
            if p.exists() and (p.suffix == ".parquet" or path.suffix != ".parquet"):
                check_regular_file(p, f"{name} table")
                extras[str(name)] = validate_extra(_read_table(p, f"{name} table"), game, name, p, df)
                break
    return extras


def _restore_text(df: pd.DataFrame, game, path: Path) -> None:
    """Text columns as written (in place): CSV has no empty string, so an empty text rule option
    read from CSV is "" again, and an empty score trace (not recorded for that game) is ""."""
    if path.suffix not in (".parquet", "") and path.name != store.RESULTS:  # CSV has no empty string: an empty text rule option reads as NaN
        for o in game.Params.options():
            if o["type"] == "str" and o["name"] in df.columns:
                df[o["name"]] = df[o["name"]].astype(object).where(df[o["name"]].notna(), "").astype(str)
    for col in game.metric_columns:  # an empty score trace (not recorded for that game) is ""
        if getattr(col, "kind", "") == "trace" and col in df.columns:
            df[col] = df[col].astype(object).where(df[col].notna(), "")  # (a list, or text from CSV)


def _order_strategies(df: pd.DataFrame, config: dict) -> None:
    """The strategy column (in place) as categories in the run's order (config.json's
    ``strategies``), then any other in order of appearance."""
    seen = _distinct_text(df["strategy"])
    order = [s for s in (config.get("strategies") or []) if isinstance(s, str) and s in set(seen)]
    categories = list(dict.fromkeys(order + seen))
    if isinstance(df["strategy"].dtype, pd.CategoricalDtype):  # without a text copy of the column
        col = df["strategy"].cat.rename_categories([str(c) for c in df["strategy"].cat.categories])
        df["strategy"] = col.cat.remove_unused_categories().cat.set_categories(categories)
    else:
        df["strategy"] = pd.Categorical(df["strategy"].astype(str), categories=categories)


#: The kinds of folder an experiment writes (config.json ``kind``), each with its own report.
EXPERIMENT_KINDS = ("sweep", "tournament", "compare", "ladder")


def _experiment_kind(folder: Path) -> str | None:
    """``sweep``, ``tournament`` or ``compare`` when ``folder`` holds that experiment's record."""
    try:
        config = read_config_file(folder / "config.json")
    except (InputError, OSError):
        return None
    kind = config.get("kind") if isinstance(config, dict) else None
    return kind if kind in EXPERIMENT_KINDS else None


def title_and_config(df: pd.DataFrame, folder: Path, path: Path):
    """The title of a results frame (or of its first part) and the ``config.json`` beside it:
    ``(game, config)``.  A title from a file is loaded only when this process trusts that file.
    Raises InputError."""
    if "game" not in df.columns:
        raise InputError(f"{str(path)!r} is not an analyser results table; it lacks the column 'game' "
                         "(see docs/results.md, What a run writes)")
    if df.empty:
        raise InputError(f"{str(path)!r} holds no games (a header and no rows)")
    games = _distinct_text(df["game"])
    if len(games) != 1 or df["game"].isna().any():
        raise InputError(f"{str(path)!r}: column 'game': every row must name the same title; "
                         f"{'some rows name none' if len(games) <= 1 else f'{len(games)} titles are mixed'}; "
                         "report one title at a time")
    config = {}
    if (folder / "config.json").exists():
        config = read_config_file(folder / "config.json")
    title = str(games[0])
    source = None
    if isinstance(config, dict) and config.get("kind") in EXPERIMENT_KINDS:
        # a sweep's, tournament's or comparison's record describes many runs: keep only what it is,
        # and the title file it names (its ``game``), when it names one
        named = config.get("game")
        if isinstance(named, str) and named not in game_ids() and is_title_file(named) and title not in game_ids():
            source = named
        config = {"kind": config["kind"], "command": config.get("command"), "versions": config.get("versions")
                  if isinstance(config.get("versions"), dict) else {}}
    elif isinstance(config, dict) and config.get("game") == title:
        source = config.get("title_source")
    # a title from a file is loaded again from its file (recorded by the run that made the table),
    # but only when this command line named that file (or said --trust): loading it runs its code
    if source is not None and not isinstance(source, str):
        raise InputError(f"{str(folder / 'config.json')!r}: the field 'title_source' is not a file name; it is "
                         "not a config.json analyser writes")
    if isinstance(source, str) and not is_trusted_file(source):
        named = loaded_file_title(title)
        if named is not None and named.source and is_trusted_file(named.source):
            source = named.source  # the run's title, named with --title from where it is on this machine
        else:
            raise InputError(refusal(folder, "title", source, Allowed(strategy_flag=None)))
    if not isinstance(source, str) and title not in game_ids() and loaded_file_title(title) is not None:
        return loaded_file_title(title), config  # a title of one's own, named with --title
    if not isinstance(source, str) and title not in game_ids():
        raise InputError(f"{str(path)!r}: column 'game' names no title this analyser knows; it takes one of: "
                         f"{', '.join(game_ids())} (for a title of your own, pass --title FILE)")
    game = get_game(source if isinstance(source, str) else title)
    return game, config


def check_parts(out: Path, game, config: dict) -> list[list[int]]:
    """Check a run folder's parts before a report reads them: each part's footer names the games
    it holds and its file name agrees; no two parts hold the same game; each extra table has the
    parts the results have; and the games on disk are those ``config.json`` records as done.
    Returns the merged game ranges on disk.  Raises InputError (one line naming the part) for a
    damaged part, one copied or renamed by hand, or a missing one."""
    resume = f"remove it and run `{resume_command(out, config)}` to play its games again"
    store.check_part_names(out / store.RESULTS)
    ranges = []
    previous = None
    for p in store.part_files(out / store.RESULTS):
        rng = store.part_range(p)
        if rng is None:
            raise InputError(f"part {str(p)!r} is damaged or not an analyser part (its footer cannot be read); {resume}")
        if previous is not None and rng[0] < previous[1][1]:
            raise InputError(f"part {str(p)!r} holds games {rng[0]} to {rng[1] - 1}, which "
                             f"{str(previous[0])!r} holds too; remove the part that does not belong to this run")
        previous = (p, rng)
        ranges.append(rng)
    for name in game.extra_tables:
        folder = out / str(name)
        if not folder.is_dir():
            continue
        extra = {store.part_range(p) for p in store.part_files(folder)}
        lacking = [r for r in ranges if r not in extra]
        if extra and lacking:
            a, b = lacking[0]
            raise InputError(f"{str(folder)!r} lacks the part of games {a} to {b - 1} that {str(out / store.RESULTS)!r} "
                             f"has; {resume.replace('it', 'the results part', 1)}")
    merged = store.merge_ranges(ranges)
    done = config.get("games_done") if isinstance(config, dict) else None
    if isinstance(done, list) and all(isinstance(r, list) and len(r) == 2 for r in done):
        recorded = store.merge_ranges([(int(a), int(b)) for a, b in done])
        if recorded != merged:
            def show(rs):
                return ", ".join(f"{a}-{b - 1}" for a, b in rs[:4]) + (" ..." if len(rs) > 4 else "")
            covered = store.overlap(recorded, merged)
            lacking = sum(b - a for a, b in recorded) > covered
            stray = sum(b - a for a, b in merged) > covered
            what = ("a part is missing" if lacking and not stray else "a part was added by hand" if stray and not lacking
                    else "a part is missing or was added by hand")
            if lacking and not stray and missing_games(out, config) > 0:
                fix = "restore it, or play its games again with: analyser resume " + shlex.quote(str(out))
            elif lacking and not stray:
                fix = ("restore it (a run played in --until-ci rounds cannot play a lost part again: play the run "
                       "again)")
            elif stray and not lacking:
                fix = "remove the stray part"
            else:
                fix = "restore the missing part, or remove the stray part"
            raise InputError(f"{str(out / store.RESULTS)!r} holds games {show(merged) or 'none'}, but config.json "
                             f"records games {show(recorded) or 'none'} as done: {what}; {fix}")
    return merged


def _read_table(path: Path, what: str) -> pd.DataFrame:
    """A Parquet or CSV file as a DataFrame; InputError (naming the error type only) otherwise."""
    kind = "Parquet" if path.suffix == ".parquet" else "CSV"
    takes = ("a results.parquet or results.csv as analyser writes them, or a run folder"
             if what == "results file" else f"the {what} as analyser writes it")
    try:
        if path.suffix == ".parquet":
            import pyarrow.parquet as pq
            pq.read_schema(path)  # (not Parquet at all: refused here)
            return store.read_part_table(path, what=what).to_pandas()  # its pandas metadata checked, left out
        return restore_frame(pd.read_csv(path))  # text cells neutralised for spreadsheets come back as written
    except InputError:
        raise
    except pd.errors.EmptyDataError:
        raise InputError(f"{what} {str(path)!r} is empty; it needs at least a header line") from None
    except Exception as e:  # noqa: BLE001 - parsers raise many kinds; none may escape as a traceback
        raise InputError(f"{what} {str(path)!r} cannot be read as {kind} ({type(e).__name__}); it takes "
                         f"{takes}") from None


def missing_tables(game, extras: dict) -> list[str]:
    """One note per extra table the title declares but ``extras`` lacks (or holds empty), e.g.
    ``"no rounds table: the bidding tables are left out"``."""
    out = []
    for name in game.extra_tables:
        frame = extras.get(str(name))
        if frame is None or len(frame) == 0:
            feeds = getattr(name, "feeds", "") or f"the figures built from {name}"
            out.append(f"no {name} table: {feeds} are left out")
    return out
