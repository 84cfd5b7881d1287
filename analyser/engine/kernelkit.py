"""The host half of the kernel kit: what a title's compiled engine (:mod:`analyser.engine.compiled`)
hands its numba kernel, and how the kernel's fixed output arrays become the
:class:`~analyser.engine.runner.BatchResult` the Python engine returns, column for column.  The numba
half (random streams, output writers) is :mod:`analyser.engine.kerneljit`; this module imports
numpy only, so a run that does not play on a kernel never loads numba.

* :func:`seeds_of`: a slice of games as the kernel sees them (:class:`Seeds`): the key words of
  each game's chance stream ``random.Random(game_seed)``, of each drawing seat's stream
  ``random.Random(f"{game_seed}/seat/{k}")`` (:func:`string_keys`), and the lineups
  (:func:`lineups`, as :func:`analyser.engine.runner.lineup` seats them).
* :class:`Collector`: per slice, the output arrays (:class:`Out`) the kernel fills - per (game,
  seat) whole-number and real columns, the score traces and the components table - and, at the
  end of the batch, the result's columns and components table.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from typing import NamedTuple, Sequence

import numpy as np

from analyser.engine import traces
from analyser.engine.batchrecords import ROW_FIELDS
from analyser.engine.componenttable import component_columns, pack
from analyser.engine.errors import GameFailure
from analyser.engine.runner import BatchResult, block_order
from analyser.engine.seeding import game_seeds

#: 32-bit words of the longest seat-stream seed key: ``f"{game_seed}/seat/{k}"`` (at most 27
#: bytes) and its SHA-512 hash (64 bytes).
KEY_WORDS = 24


class Seeds(NamedTuple):
    """A slice of games for a kernel: the chance stream's key ``key[g, :keylen[g]]``, each seat's
    ``seat_key[g, s, :seat_keylen[g, s]]`` (length 0: the seat's strategy draws nothing, no stream)
    and ``lineups[g, s]``, the index of the strategy in seat ``s``."""

    key: np.ndarray
    keylen: np.ndarray
    seat_key: np.ndarray
    seat_keylen: np.ndarray
    lineups: np.ndarray


class Out(NamedTuple):
    """A slice's output arrays, filled by the kernel: ``ints[g, s, i]`` / ``floats[g, s, j]`` the
    per (game, seat) columns; ``trace`` the score traces one after another (per game, per seat,
    ``trace_len[g]`` values each); the components table as ``comp_rows[g * players + s]`` rows of
    ``comp`` (``[0]`` game * players + seat, ``[1]`` kind, ``[2]`` count); ``cursor`` the trace
    values and component rows written (:mod:`analyser.engine.kerneljit`); ``extra[g]`` whole numbers
    of the title's own per game (its extra tables, read by the title's engine: :attr:`Collector.extras`)."""

    ints: np.ndarray
    floats: np.ndarray
    trace: np.ndarray
    trace_len: np.ndarray
    comp_rows: np.ndarray
    comp: np.ndarray
    cursor: np.ndarray
    extra: np.ndarray


def string_keys(texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """The keys ``random.Random(text)`` seeds its Mersenne Twister with, for each text not longer
    than 32 bytes: ``([text, KEY_WORDS] words, [text] key lengths)``.  Seed version 2 reads the
    text's UTF-8 bytes followed by their SHA-512 hash as one big-endian whole number, and passes
    on its 32-bit words, least significant first: the bytes reversed, read four at a time.  (A
    text that starts with a byte other than 0 - a seat stream's starts with a digit - has a
    nonzero top byte, so its key has ``ceil(bytes / 4)`` words.)"""
    blobs, lengths = [], []
    for text in texts:
        data = text.encode()
        whole = (data + hashlib.sha512(data).digest())[::-1]
        lengths.append(-(-len(whole) // 4))
        blobs.append(whole.ljust(4 * KEY_WORDS, b"\0"))
    words = np.frombuffer(b"".join(blobs), dtype="<u4").reshape(len(texts), KEY_WORDS).astype(np.int64)
    return words, np.array(lengths, dtype=np.int64)


def seeds_of(seeds: list[int], a: int, n: int, m: int, draws: np.ndarray) -> Seeds:
    """Games ``a`` to ``a + len(seeds) - 1`` (game seeds ``seeds``) at ``n`` seats among ``m``
    strategies; ``draws[i]``: strategy ``i`` draws from its seat's stream."""
    G = len(seeds)
    s64 = np.array(seeds, dtype=np.uint64)
    key = np.stack([s64 & 0xFFFFFFFF, s64 >> 32], axis=1).astype(np.int64)
    keylen = np.where(s64 >> 32, 2, 1).astype(np.int64)
    seats = lineups(a, a + G, n, m)
    where = np.nonzero(draws[seats])
    seat_key = np.zeros((G, n, KEY_WORDS if len(where[0]) else 1), dtype=np.int64)
    seat_keylen = np.zeros((G, n), dtype=np.int64)
    if len(where[0]):
        seat_key[where], seat_keylen[where] = string_keys(
            [f"{seeds[g]}/seat/{k}" for g, k in zip(*(w.tolist() for w in where))])
    return Seeds(key, keylen, seat_key, seat_keylen, seats)


def lineups(a: int, b: int, n: int, m: int) -> np.ndarray:
    """``[game, seat]`` strategy indexes of games ``a`` to ``b - 1``: :func:`analyser.engine.runner.lineup`
    for each, with one :func:`~analyser.engine.runner.block_order` per block of ``n`` games."""
    if m == 1:
        return np.zeros((b - a, n), dtype=np.int64)
    index = np.arange(a, b, dtype=np.int64)
    block, shift = np.divmod(index, n)
    first = int(block[0])
    orders = np.array([block_order(k, n) for k in range(first, int(block[-1]) + 1)], dtype=np.int64)
    base = (block % (m // math.gcd(m, n))) * n
    where = (np.arange(n, dtype=np.int64)[None, :] + shift[:, None]) % n
    return (base[:, None] + orders[block - first][np.arange(b - a)[:, None], where]) % m


@dataclass(frozen=True)
class OutputLayout:
    """What a title's kernel fills for a batch.  ``names``: the result's columns in order
    (``ROW_FIELDS`` and the title's metrics); ``ints`` / ``floats``: the names of the per (game,
    seat) columns the kernel fills in ``Out.ints`` / ``Out.floats``, in their order there (int64
    and float64 columns); ``trace``: the name of the score trace column (None: none), of at most
    ``rounds`` values per seat; ``labels``: the component kinds' labels by kernel code (sorted as
    text), of which a game records at most ``per_game``; ``extra``: the shape of ``Out.extra[g]``
    (``(0,)``: none)."""

    names: Sequence[str]
    ints: Sequence[str]
    floats: Sequence[str]
    trace: str | None
    rounds: int
    labels: Sequence[str]
    per_game: int
    extra: tuple = (0,)


class Collector:
    """A batch's output, slice by slice: games from ``start`` at ``n`` seats, laid out as
    ``layout`` says (:class:`OutputLayout`)."""

    def __init__(self, start: int, n: int, layout: OutputLayout):
        self.start, self.n, self.names = start, n, list(layout.names)
        self.int_names, self.float_names, self.trace_name = list(layout.ints), list(layout.floats), layout.trace
        self.rounds, self.labels, self.per_game = layout.rounds, list(layout.labels), layout.per_game
        extra = layout.extra
        self.parts: list[dict] = []
        self.comp_parts: list[tuple] = []
        self.present = np.zeros(len(self.labels), dtype=bool)
        self.games = 0
        self.extra_shape = tuple(extra)
        #: ``Out.extra`` of the games kept, slice by slice.
        self.extras: list[np.ndarray] = []

    def slice(self, G: int) -> Out:
        """Empty output arrays for ``G`` games."""
        n = self.n
        return Out(np.zeros((G, n, len(self.int_names)), np.int64), np.zeros((G, n, len(self.float_names))),
                   np.empty(G * n * self.rounds, np.int64), np.zeros(G, np.int64), np.zeros(G * n, np.int64),
                   np.empty((3, G * self.per_game), np.int64), np.zeros(2, np.int64),
                   np.zeros((G,) + self.extra_shape, np.int64))

    def keep(self, out: Out, seeds: list[int], lineup: np.ndarray, a: int, ok: int) -> None:
        """The first ``ok`` games of a slice that starts at game ``a``: ``out`` as the kernel filled it."""
        n = self.n
        part = {"game_index": np.repeat(np.arange(a, a + ok, dtype=np.int64), n),
                "game_seed": np.repeat(np.array(seeds[:ok], dtype=np.uint64), n),
                "seat": np.tile(np.arange(n, dtype=np.int64), ok), "strategy": lineup[:ok].ravel()}
        for i, name in enumerate(self.int_names):
            part[name] = out.ints[:ok, :, i].ravel()
        for j, name in enumerate(self.float_names):
            part[name] = out.floats[:ok, :, j].ravel()
        part["trace"] = out.trace[:out.cursor[0]]
        part["trace_len"] = np.repeat(out.trace_len[:ok], n)
        self.parts.append(part)
        rows = out.cursor[1]
        self.comp_parts.append((out.comp_rows[:ok * n], out.comp[1, :rows], out.comp[2, :rows]))
        self.present[out.comp[1, :rows]] = True
        self.extras.append(out.extra[:ok])
        self.games += ok

    def columns(self) -> dict:
        """The batch's columns as :func:`analyser.engine.batchrecords.finish_columns` makes them."""
        parts, names = self.parts, self.names
        if not parts or not sum(len(p["seat"]) for p in parts):
            return {name: np.array([]) for name in names}
        out = {name: np.concatenate([p[name] for p in parts]) for name in names if name != self.trace_name}
        if self.trace_name is not None:
            values = np.concatenate([p["trace"] for p in parts])
            if len(values) == 0 or (-2 ** 31 <= values.min() and values.max() < 2 ** 31):
                values = values.astype(np.int32)
            lengths = np.concatenate([p["trace_len"] for p in parts])
            offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
            np.cumsum(lengths, out=offsets[1:])
            out[self.trace_name] = traces.Packed(values, offsets, None)
        return {name: out[name] for name in names}

    def components(self) -> dict:
        """The batch's components table as :func:`analyser.engine.componenttable.component_columns`
        makes it: the labels of the kinds that occur, and the codes renumbered among them."""
        def joined(i):
            pieces = [p[i] for p in self.comp_parts]
            return pieces[0] if len(pieces) == 1 else np.concatenate(pieces)
        code = joined(1) if self.comp_parts else np.zeros(0, dtype=np.int64)
        if not len(code):
            return component_columns([], [0] * (self.games * self.n), self.start, self.n, self.games)
        present = self.present
        if not present.all():  # renumber among the kinds that occur
            code = (np.cumsum(present) - 1)[code]
        return {"start": self.start, "players": self.n, "rows": pack(joined(0)), "code": pack(code),
                "count": pack(joined(2)), "labels": [self.labels[i] for i in np.flatnonzero(present)]}


def result_names(game) -> list[str]:
    """The columns of a title's batch result, in order."""
    return list(ROW_FIELDS) + list(game.metric_columns)


def play_batch(job, collector: Collector, step: int, draws: np.ndarray, play, title: str):
    """Games ``job.start`` to ``job.stop - 1`` as the Python path's :class:`BatchResult`, played in
    slices of ``step`` games by ``play(seeds, out) -> games played`` (a :class:`Seeds` and the
    slice's :class:`Out`; fewer games than given only when a game broke a bound of the kernel: the
    batch stops there with a :class:`GameFailure` naming ``title``).  ``draws[i]``: strategy ``i``
    draws from its seat's stream.  The caller times the batch (``seconds``)."""
    n, m = job.players, len(job.strategies)
    result = BatchResult(start=job.start, rows=[])
    try:
        for a in range(job.start, job.stop, step):
            b = min(a + step, job.stop)
            seeds = game_seeds(job.root_seed, a, b)
            games = seeds_of(seeds, a, n, m, draws)
            out = collector.slice(b - a)
            ok = play(games, out)
            collector.keep(out, seeds, games.lineups, a, ok)
            if ok < b - a:
                result.error = GameFailure(f"game {a + ok} broke a bound of the compiled {title} kernel (a bug); "
                                           "play it with --engine python", seeds[ok], a + ok)
                break
    except KeyboardInterrupt:
        result.interrupted = True
    result.done = collector.games
    result.columns = collector.columns()
    result.components = collector.components()
    return result
