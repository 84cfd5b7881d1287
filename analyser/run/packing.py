"""A batch made ready for the run folder where it was played: in the worker.

A worker that plays a batch of a run written to disk (:func:`play_packed`) also turns it into
what the main process needs, so that process only writes files and adds up sums:

* each table of the batch (results, the title's extra tables, components) as the bytes of its
  Parquet part (:func:`analyser.run.store.encode_part`), which the main process writes under a
  temporary name and renames (:func:`analyser.run.store.write_part`), as it wrote the tables it
  encoded itself before; the parts are identical, row for row;
* when the batch holds a whole chunk of the report (:data:`analyser.stats.streamed.CHUNK_GAMES`
  games, aligned), that chunk reduced to the report's sums (:func:`analyser.report.reduce.chunk_pieces`,
  the same function on the same rows, in the same types, as the report would compute from the
  parts), so the report
  of the run needs not read those parts back (:class:`analyser.report.reduce.Known`).

The batch's columns are dropped once packed, so what travels back is a few compressed parts and
small sums.  A batch that failed or was interrupted is packed too: its finished games are written.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from analyser.engine.registry import get_game
from analyser.engine.runner import BatchJob, BatchResult, local_ref, run_batch
from analyser.run import store
from analyser.run.sink import batch_tables


@dataclass(frozen=True)
class ChunkSums:
    """How the layer that reports a run has a worker reduce a batch that is a whole chunk of games:
    ``chunk_games`` games per chunk (aligned: chunk ``k`` is games ``k * chunk_games`` on), and
    ``reduce(game, tables, strategies)``, a module-level function (picklable by name) of the
    title, the batch's arrow tables (without pandas metadata, as the report reads its parts back)
    and the report's order of strategies, returning the chunk's sums."""

    chunk_games: int
    reduce: Callable
    #: what the sums depend on beyond the rows (e.g. the run's games and seed), recorded with them
    key: Any = None


@dataclass(frozen=True)
class Packing:
    """What a worker needs to pack a batch of a run: its ``run_id``, the report's order of
    ``strategies`` and the :class:`ChunkSums` to compute (None: none)."""

    run_id: str
    strategies: tuple[str, ...] = ()
    sums: ChunkSums | None = None


@dataclass
class KnownChunks:
    """The sums the workers computed for a report (:class:`ChunkSums`): ``chunk_games``, the
    ``strategies`` they were computed with, and ``chunks``: first game -> ``(stop, sums)`` of
    each batch that was a whole chunk.  The report uses one only when that chunk's parts on
    disk hold exactly those games."""

    chunk_games: int
    strategies: tuple[str, ...]
    chunks: dict[int, tuple[int, Any]]
    #: the :class:`ChunkSums` ``key`` they were computed with
    key: Any = None


def play_packed(packing: Packing, job: BatchJob) -> BatchResult:
    """:func:`analyser.engine.runner.run_batch`, then :func:`pack` (a worker's task)."""
    return pack(packing, job, run_batch(job))


def pack(packing: Packing, job: BatchJob, res: BatchResult) -> BatchResult:
    """``res`` with ``parts`` (table name -> Parquet bytes of games ``res.start`` to
    ``res.start + res.done - 1``, results last) and, for a batch that is one whole chunk,
    ``pieces`` (:func:`analyser.report.reduce.chunk_pieces` of it); its columns dropped."""
    game = get_game(local_ref(job, job.game))
    params = game.Params.from_overrides(dict(job.rules))
    tables = batch_tables(game, params, job.players, job.strategies, res, packing.run_id)
    stop = res.start + res.done
    # the batch's columns are in its tables now: dropped before the sums, so they are not held twice
    res.rows, res.columns, res.extras, res.components = [], None, {}, None
    res.parts = {name: store.encode_part(t, res.start, stop) for name, t in tables.items()} if res.done else {}
    res.pieces = chunk_sums(packing, game, res, tables)
    return res


def chunk_sums(packing: Packing, game, res: BatchResult, tables: dict):
    """The sums of a finished batch (``tables``: its arrow tables) that starts a chunk and stays
    within it, or None (no sums asked for, a batch that failed or was interrupted, or one across
    chunks).  A batch short of its chunk's end is reduced too: the report uses the sums only when
    the chunk's parts on disk hold exactly these games (:func:`analyser.report.reduce.known_blocks`)."""
    sums = packing.sums
    if sums is None or res.error is not None or res.interrupted or not whole_chunk(
            res.start, res.start + res.done, sums.chunk_games):
        return None
    # the tables as the report reads them back from the parts (no pandas metadata: the frame comes
    # from Arrow's own types), so the sums are the report's own
    read = {name: t.replace_schema_metadata(None) for name, t in tables.items()}
    return sums.reduce(game, read, list(packing.strategies))


def whole_chunk(start: int, stop: int, chunk_games: int) -> bool:
    """Whether games ``start`` to ``stop - 1`` begin a chunk and stay within it."""
    return start % chunk_games == 0 and stop > start and (stop - 1) // chunk_games == start // chunk_games
