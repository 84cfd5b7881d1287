"""A batch's components table in compact form: what ``Game.components`` returned for each
(game, seat) of a batch, counted per component id and packed to travel from a worker to the
parent (:func:`component_columns`), and read back (:func:`unpack`, :func:`component_rows`).
:mod:`analyser.run.sink` turns it into the long table ``components`` (run_id, game_index, seat,
component, count) that :mod:`analyser.stats.components` analyses."""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np


def component_columns(ids: list, lens: list[int], start: int, n_players: int, games: int) -> dict[str, Any]:
    """The components table of a batch from what ``Game.components`` returned for its games in
    order: ``ids`` every entry of every (game, seat) one after another, ``lens`` how many each
    (game, seat) gave (``games * n_players`` of them, game ``start`` first).

    Returns, compactly (it travels from the worker; :func:`unpack` reads the arrays): ``rows``
    (per (game, seat) in order, its number of table rows), ``code`` and ``count`` (one per table
    row: the component, as an index into ``labels``, and its copies), ``labels`` (the ids as
    text, sorted), ``start`` and ``players``.  Rows run by game, seat and component id; each
    distinct id object is turned into text once.  :func:`component_rows` expands ``game_index``
    and ``seat``."""
    lens = lens[:games * n_players]
    ids = ids[:sum(lens)]
    out = {"start": start, "players": n_players}
    if not ids:
        zero = np.zeros(0, dtype=np.int64)
        return {**out, "rows": pack(np.zeros(len(lens), dtype=np.int64)), "code": pack(zero), "count": pack(zero),
                "labels": []}
    if type(ids[0]) is str:
        # text ids (hashes cached): a dict in C, without pandas in the worker
        table = dict.fromkeys(ids)
        text = [str(k) for k in table]
        keys = table
    else:
        # other ids (a card tuple hashes slowly): distinct objects by identity first - titles
        # return the same id objects game after game, and each stays alive in ``ids`` meanwhile
        import pandas as pd

        first, uniques = pd.factorize(np.fromiter(map(id, ids), dtype=np.int64, count=len(ids)), sort=False)
        where = np.empty(len(uniques), dtype=np.int64)
        where[first[::-1]] = np.arange(len(first) - 1, -1, -1)  # the first entry of each object
        text = [str(ids[i]) for i in where.tolist()]
        keys = None
    labels = sorted(set(text))  # ids that print the same share one code
    rank = {t: i for i, t in enumerate(labels)}
    if keys is not None:
        for k, t in zip(keys, text):
            keys[k] = rank[t]
        codes = np.fromiter(map(keys.__getitem__, ids), dtype=np.int64, count=len(ids))
    else:
        codes = np.array([rank[t] for t in text], dtype=np.int64)[first]
    row = np.repeat(np.arange(len(lens), dtype=np.int64), np.asarray(lens, dtype=np.int64))
    key = row * len(labels) + codes
    if len(lens) * len(labels) <= 4_000_000:  # a dense count is cheaper than sorting
        counts = np.bincount(key, minlength=len(lens) * len(labels))
        keys_ = np.flatnonzero(counts)
        counts = counts[keys_]
    else:
        keys_, counts = np.unique(key, return_counts=True)
    row, code = np.divmod(keys_, len(labels))
    return {**out, "rows": pack(np.bincount(row, minlength=len(lens))), "code": pack(code),
            "count": pack(counts), "labels": labels}


def pack(values: np.ndarray) -> tuple[str, bytes]:
    """Whole numbers >= 0 in the smallest unsigned type, compressed (zlib, level 1): a batch's
    result travels through the worker pool's pipe, and a short message is one that a worker
    killed while writing it is least likely to leave half-written."""
    top = int(values.max()) if len(values) else 0
    kind = "u1" if top < 2**8 else "u2" if top < 2**16 else "u4" if top < 2**32 else "u8"
    return kind, zlib.compress(np.ascontiguousarray(values, dtype=kind).tobytes(), 1)


def unpack(packed) -> np.ndarray:
    """The array :func:`pack` packed (an array given as is passes through), as int64."""
    if isinstance(packed, np.ndarray):
        return packed.astype(np.int64)
    kind, data = packed
    return np.frombuffer(zlib.decompress(data), dtype=kind).astype(np.int64)


def component_rows(cols: dict) -> tuple[np.ndarray, np.ndarray]:
    """``(game_index, seat)`` of each row of a batch's components table
    (:func:`component_columns`): int64 and int32 arrays."""
    rows = unpack(cols["rows"])
    pair = np.repeat(np.arange(len(rows), dtype=np.int64), rows)
    game, seat = np.divmod(pair, cols["players"])
    return game + cols["start"], seat.astype(np.int32)
