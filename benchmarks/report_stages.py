"""CPU seconds of each stage a worker goes through for one batch of a run written to disk.

    python benchmarks/report_stages.py [--title dao] [--strategy threshold] [--games 10000]
                                       [--engine compiled] [--repeat 3]

Plays one batch (a whole chunk of the report, games 0 to GAMES - 1, seed 1), then times, best of
``--repeat`` in CPU time (``time.process_time``, so a loaded machine matters little): the play,
the batch's arrow tables (:func:`analyser.run.sink.batch_tables`), the Parquet encoding of each
table (:func:`analyser.run.store.encode_part`), and the report's sums of the chunk
(:func:`analyser.report.reduce.table_pieces`) split into the core sums, the component sums and
the title's sums.  Used for the report-at-scale figures of issue 36.
"""

import argparse
import time

from analyser.engine.registry import get_game
from analyser.engine.runner import BatchJob, run_batch
from analyser.report import reduce as reducemod
from analyser.run import store
from analyser.run.sink import batch_tables


def best(fn, repeat):
    out, times = None, []
    for _ in range(repeat):
        t0 = time.process_time()
        out = fn()
        times.append(time.process_time() - t0)
    return out, min(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--title", default="dao")
    ap.add_argument("--strategy", default="threshold")
    ap.add_argument("--games", type=int, default=10_000)
    ap.add_argument("--engine", default="compiled")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--sample", action="store_true", help="reduce as a chunk inside a large run's sample")
    a = ap.parse_args()
    game = get_game(a.title)
    params = game.Params.from_overrides({})
    players = game.default_players if hasattr(game, "default_players") else 4
    strategies = (a.strategy,) * players
    job = BatchJob(a.title, (), strategies, players, 1, 0, a.games, 60.0, engine=a.engine)
    run_batch(job)  # load and compile once
    res, t_play = best(lambda: run_batch(job), a.repeat)
    tables, t_tables = best(lambda: batch_tables(game, params, players, strategies, res, "run"), a.repeat)
    rows = [("play", t_play), ("batch_tables", t_tables)]
    for name, t in tables.items():
        _, t_enc = best(lambda: store.encode_part(t, 0, a.games), a.repeat)
        rows.append((f"encode {name} ({t.num_rows:,} rows)", t_enc))
    read = {name: t.replace_schema_metadata(None) for name, t in tables.items()}
    _, t_sums = best(lambda: reducemod.table_pieces(game, read, [a.strategy]), a.repeat)
    rows.append(("report sums (table_pieces)", t_sums))
    for label, seconds in rows:
        print(f"{label:40s} {seconds:8.3f} CPU s")


if __name__ == "__main__":
    main()
