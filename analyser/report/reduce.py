"""A run's results reduced to sums chunk by chunk, in this process or in worker processes.

A report never holds a run's whole table: it reads the results in chunks of whole games (games
whose ``game_index // CHUNK_GAMES`` is equal, :data:`analyser.stats.streamed.CHUNK_GAMES`) and
turns each chunk into *pieces*, one per run in it (:func:`chunk_pieces`): the core sums
(:func:`analyser.report.summaries.core_sums`), the component sums and the title's sums.  The
caller adds the pieces up in chunk order (:func:`analyser.report.page.reduce_chunks`).

With several jobs, the pieces of a run folder's chunks are computed in worker processes
(:func:`parallel_pieces`, joblib's loky backend, one chunk per task) and still added up in the
main process in chunk order, so the report is the same, to the last digit, for any number of
jobs: every piece is computed from the same rows either way, and the sums are combined in the same
order.  Only a built-in or installed title is reduced in workers (a worker names it by its id);
a title from a file is reduced here, in this process.
"""

from __future__ import annotations

import warnings
import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from analyser.engine.core import COMPONENTS, InputError
from analyser.engine.registry import get_game
from analyser.engine.userfiles import safe_worker_path
from analyser.io.validate import validate_chunk

#: Chunks a run needs at least before its reduction is spread over worker processes.
PARALLEL_MIN_CHUNKS = 3
#: Games a run may have for its component and drama figures to use every game; above it they
#: come from a seeded sample of :data:`SAMPLE_GAMES` games (whole chunks), the rest of the report
#: from all.
SAMPLE_ABOVE = 200_000
#: Games in the sample of a larger run.
SAMPLE_GAMES = 200_000


@dataclass(frozen=True)
class Sample:
    """The chunks whose component and drama sums a large run's report uses (:func:`component_sample`):
    chunk indices ``blocks`` of ``chunk_games`` games each, out of the run's ``games``."""

    blocks: frozenset
    chunk_games: int
    games: int

    def covers(self, first_game: int) -> bool:
        """Whether the chunk that holds game ``first_game`` is in the sample."""
        return first_game // self.chunk_games in self.blocks

    def note(self, sampled: int) -> str:
        """One sentence for the report: how many games the sampled figures come from."""
        from analyser.text import phrase
        return phrase("report.j2", "sample_note", sampled, self.games, self.chunk_games, SAMPLE_ABOVE)


def component_sample(games, seed, chunk_games: int) -> Sample | None:
    """The sample of a run of ``games`` games (its requested count) and root ``seed`` for the
    component and drama sums:
    None (every game) up to :data:`SAMPLE_ABOVE` games; above, :data:`SAMPLE_GAMES` games' worth
    of whole chunks drawn without replacement by a generator seeded with ``seed``, so the same
    run always has the same sample, whichever process reduces a chunk."""
    if not isinstance(games, int) or games <= SAMPLE_ABOVE or not isinstance(seed, int) or seed < 0:
        return None
    n_blocks = -(-games // chunk_games)
    take = min(n_blocks, max(1, SAMPLE_GAMES // chunk_games))
    rng = np.random.default_rng([seed, 0x5A4D])
    return Sample(frozenset(int(b) for b in rng.choice(n_blocks, take, replace=False)), chunk_games, games)


def split_extras(extras: dict, run) -> dict:
    """The extra tables' rows of the run ``run`` (None: all rows).  Raises InputError when the
    results join several runs and an extra table cannot say which run a row belongs to."""
    out = {}
    for name, frame in extras.items():
        if run is not None:
            if "run_id" not in frame.columns:
                raise InputError(f"the {name} table has no run_id column, but the results join several runs; "
                                 f"give each {name} row the run_id of its game (as analyser writes it)")
            frame = frame[frame["run_id"].astype(str).to_numpy() == run]
        out[name] = frame
    return out


def chunk_pieces(game, chunk: pd.DataFrame, ext: dict, strategies: list, check=None,
                 sample: Sample | None = None) -> tuple[int, bool, list]:
    """One chunk of whole games (``chunk``: its results rows; ``ext``: its extra tables) as
    ``(players, mixed, pieces)``: the player count of its first row, whether it mixes player
    counts, and per run in it (in order of first appearance) ``(run id, piece)`` where a piece
    holds ``lo`` (its lowest game index), ``first`` (that game's rows), ``binary`` (every win
    is 0 or 1), ``core``, ``components`` and ``title`` sums, and for a title that does not reduce
    chunks ``frame`` and ``extras`` (its rows).  ``check(chunk)`` validates it first (raises
    InputError).  ``sample``: the sample of a large run (:func:`component_sample`); a chunk
    outside it has no component or drama sums."""
    from analyser.stats import components
    from analyser.report import summaries

    if check is not None:
        check(chunk)
    players = int(chunk["players"].iloc[0])
    mixed = bool(chunk["players"].nunique() > 1)
    runs = chunk_runs(chunk)
    pieces = []
    for rid, sub in runs:
        sub = sub.assign(strategy=strategy_categories(sub["strategy"], strategies))
        sub_ext = split_extras(ext, rid if len(runs) > 1 else None)
        lo = sub["game_index"].min()
        w = sub["win"].to_numpy(dtype=float)
        sampled = sample is None or sample.covers(int(lo))
        piece = {"lo": lo, "first": detached(sub[sub["game_index"].to_numpy() == lo]),
                 "binary": bool(np.all((w == 0) | (w == 1))),
                 "core": summaries.core_sums(sub, strategies, players, sampled), "components": {},
                 "title": game.figure_sums(sub, sub_ext)}
        if game.records_components and sampled:
            piece["components"] = components.chunk_sums(sub, sub_ext.get(str(COMPONENTS)), game.component_collapse)
        pieces.append((rid, piece))
    return players, mixed, pieces


def chunk_runs(chunk: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    """``(run id, rows)`` of each run of ``chunk`` in order of first appearance (the run id as
    text; ``"run"`` for a table without ``run_id``).  A categorical column of one run (what a
    part holds) is read from its codes, without turning every row into text."""
    if "run_id" not in chunk.columns:
        return [("run", chunk)]
    column = chunk["run_id"]
    if isinstance(column.dtype, pd.CategoricalDtype) and len(column):
        codes = column.cat.codes.to_numpy()
        if codes[0] >= 0 and (codes == codes[0]).all():
            return [(str(column.cat.categories[codes[0]]), chunk)]
    ids = column.astype(str).to_numpy()
    order = list(dict.fromkeys(ids))
    return [(r, chunk[ids == r]) for r in order] if len(order) > 1 else [(order[0], chunk)]


def detached(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` that shares no memory with it: each array in an object column (a score
    trace read from a part is a view of the whole chunk's values) copied too, so a piece kept until
    the report does not keep its chunk's columns alive."""
    out = frame.copy()
    for c in out.columns:
        if out[c].dtype == object:
            cells = np.empty(len(out), dtype=object)
            for i, v in enumerate(out[c].tolist()):
                cells[i] = v.copy() if isinstance(v, np.ndarray) else v
            out[c] = cells
    return out


def strategy_categories(column: pd.Series, strategies: list) -> pd.Categorical:
    """``column`` (strategy names) as a categorical of the categories ``strategies``, in that
    order (a name not among them: missing).  A categorical of text is recoded, not rebuilt from
    its text."""
    dtype = column.dtype
    if (isinstance(dtype, pd.CategoricalDtype) and not dtype.ordered
            and all(isinstance(c, str) for c in dtype.categories)):
        return column.cat.set_categories(strategies).array
    return pd.Categorical(column.astype(str), categories=strategies)


def run_check(game, where: Path, run_id):
    """The check of a run folder's chunk: its rows valid for ``game``
    (:func:`analyser.results.validate_chunk`) and, when the config names its ``run_id``, every
    row of that run (parts copied in from another run are named).  Raises InputError."""
    def check(chunk):
        validate_chunk(chunk, game, where)
        if isinstance(run_id, str) and "run_id" in chunk.columns:
            ids = set(chunk["run_id"].astype(str).unique())
            if ids != {run_id}:
                lo, hi = int(chunk["game_index"].min()), int(chunk["game_index"].max())
                other = sorted(ids - {run_id})[0] if ids - {run_id} else run_id
                raise InputError(f"{str(where)!r}: the parts of games {lo} to {hi} hold games of the run "
                                 f"{other[:100]}, but config.json is for the run {run_id}; parts of another run "
                                 "were copied in: remove them")
    return check


def chunk_plan(folder: Path, chunk_games: int) -> list[tuple[int, list[str]]] | None:
    """The chunks of a run folder's results: ``[(block, [part file names])]`` in game order,
    each block the games ``block * chunk_games`` to ``(block + 1) * chunk_games - 1`` and the parts
    that hold any of them (from each part's footer).  None when a part's footer cannot say
    which games it holds (the serial reader names the part)."""
    from analyser.run import store

    blocks: dict[int, list[str]] = {}
    for p in store.part_files(Path(folder) / store.RESULTS):
        rng = store.part_range(p)
        if rng is None or rng[1] <= rng[0]:
            return None
        for b in range(rng[0] // chunk_games, (rng[1] - 1) // chunk_games + 1):
            blocks.setdefault(b, []).append(p.name)
    return sorted(blocks.items())


@dataclass(frozen=True)
class RunChunks:
    """What reading and reducing any chunk of one run folder needs (the same for each chunk of a
    report): the run ``folder``, its extra tables' ``names``, ``chunk_games`` games per chunk, the
    report's order of ``strategies``, the ``run_id`` its config names (not a string: any), the
    columns to ``drop`` as the parts are read, and the component ``sample``
    (:func:`component_sample`; None: every chunk)."""

    folder: Path
    names: tuple
    chunk_games: int
    strategies: tuple
    run_id: Any = None
    drop: tuple = ()
    sample: Sample | None = None


def read_block(run: RunChunks, block: int, part_names: list) -> tuple[pd.DataFrame, dict] | None:
    """The games of ``block`` as ``(results chunk, extra chunks)``, read from the parts
    ``part_names`` of the run folder (its results and its extra tables); None when the block
    holds no game.  Raises InputError (a part changed by hand or copied in)."""
    from analyser.run import store
    from analyser.stats.streamed import read_checked_part

    root = Path(run.folder)
    run_id = run.run_id if isinstance(run.run_id, str) else None
    frames, ext_frames = [], {n: [] for n in run.names}
    for name in part_names:
        df = read_checked_part(root / store.RESULTS / name, run.drop, run_id)
        if not len(df):
            continue
        frames.append(_in_block(df, block, run.chunk_games))
        for n in run.names:
            e = _extra_part(root / str(n) / name, run.drop)
            if e is not None:
                ext_frames[n].append(_in_block(e, block, run.chunk_games))
    frames = [f for f in frames if len(f)]
    if not frames:
        return None
    return _joined(frames), {n: _joined(v) for n, v in ext_frames.items() if v}


def _in_block(df: pd.DataFrame, block: int, chunk_games: int) -> pd.DataFrame:
    """The rows of ``df`` whose game is in ``block``."""
    return df[df["game_index"].to_numpy() // chunk_games == block]


def _extra_part(path: Path, drop: tuple) -> pd.DataFrame | None:
    """An extra table's part, None when it is missing or holds no row."""
    from analyser.stats.streamed import read_part

    if not path.is_file():
        return None
    e = read_part(path, drop)
    return e if len(e) else None


def _joined(frames: list) -> pd.DataFrame:
    return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]


def block_pieces(title: str, run: RunChunks, block: int, part_names: list) -> tuple[int, bool, list] | None:
    """:func:`chunk_pieces` of one chunk of a run folder, read from its parts (a worker's task):
    the games of ``block`` in the parts ``part_names`` (:func:`read_block`).  ``title``: the
    title's registered id.  None when the block holds no game.  Raises InputError (a part
    changed by hand, or rows that do not validate)."""
    return block_pieces_of(get_game(title), run, block, part_names)


def block_pieces_of(game, run: RunChunks, block: int, part_names: list) -> tuple[int, bool, list] | None:
    """:func:`block_pieces` for the title object ``game`` (in this process)."""
    from analyser.run import store

    read = read_block(run, block, part_names)
    if read is None:
        return None
    chunk, ext = read
    check = run_check(game, Path(run.folder) / store.RESULTS, run.run_id)
    return chunk_pieces(game, chunk, ext, list(run.strategies), check, run.sample)


def table_pieces(game, tables: dict, strategies: list, sample: Sample | None = None) -> tuple[int, bool, list]:
    """:func:`chunk_pieces` of a batch that is one whole chunk, from its arrow tables without
    pandas metadata, as :func:`analyser.run.store.read_part_table` reads its parts back
    (``results`` and the extra tables by name): the sums :func:`block_pieces` computes from those parts on disk, in the worker that
    played the batch (:class:`analyser.run.packing.ChunkSums`).  Not validated: the rows were just
    made by analyser."""
    from analyser.run import store
    from analyser.stats.streamed import table_frame

    chunk = table_frame(tables[store.RESULTS])
    ext = {str(n): table_frame(t) for n, t in tables.items() if n != store.RESULTS and t.num_rows}
    return chunk_pieces(game, chunk, ext, strategies, sample=sample)


def worker_sums(games: int, seed: int):
    """The :class:`analyser.run.packing.ChunkSums` the workers of a run of ``games`` games with
    root ``seed`` compute for its report: :func:`table_pieces` of each batch that is a whole
    chunk of :data:`analyser.stats.streamed.CHUNK_GAMES` games, with the run's component sample."""
    from analyser.run.packing import ChunkSums
    from analyser.stats.streamed import CHUNK_GAMES

    return ChunkSums(CHUNK_GAMES, functools.partial(table_pieces, sample=component_sample(games, seed, CHUNK_GAMES)),
                     (games, seed))


def known_blocks(known, plan: list, root: Path, chunk_games: int, strategies: list, key=None) -> dict:
    """The chunks of ``plan`` (:func:`chunk_plan`) whose sums the workers computed while they
    played (``known``: :class:`analyser.run.packing.KnownChunks`, or None): block -> sums, for
    each block held by one part whose games are exactly those the sums were computed from, with
    the same chunk size, order of strategies and ``key`` (the run's games requested and seed,
    which fix its component sample)."""
    from analyser.run import store

    if (known is None or known.chunk_games != chunk_games or list(known.strategies) != list(strategies)
            or known.key != key):
        return {}
    out = {}
    for block, parts in plan:
        start = block * chunk_games
        got = known.chunks.get(start)
        if got is None or parts != [store.part_name(start)]:
            continue
        if store.part_range(root / store.RESULTS / parts[0]) == (start, got[0]):
            out[block] = got[1]
    return out


def parallel_pieces(game, run: RunChunks, plan: list, jobs: int):
    """The pieces of every chunk of ``plan`` (:func:`chunk_plan`) of the run folder ``run``,
    computed by ``jobs`` worker processes and yielded in chunk order as ``(block, pieces)``
    (pieces None: no game)."""

    import joblib

    with safe_worker_path(), warnings.catch_warnings(), \
            joblib.Parallel(n_jobs=jobs, pre_dispatch="2 * n_jobs", return_as="generator") as par:
        # loky replaces a worker whose memory grew by more than 300 MB since its first task (the
        # simulation's workers, reused here, hold a chunk's tables) and warns "A worker stopped while
        # some jobs were given to the executor"; no task is lost (a worker that dies raises), so the
        # warning says nothing to the user
        warnings.filterwarnings("ignore", message="A worker stopped while some jobs were given",
                                category=UserWarning)
        out = par(joblib.delayed(block_pieces)(game.id, run, block, parts) for block, parts in plan)
        try:
            for (block, _), item in zip(plan, out):
                yield block, item
        finally:
            out.close()
