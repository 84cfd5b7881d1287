"""Make a large run folder from a smaller one, for measuring the report's memory at sizes that take
too long to simulate on one machine.

    python benchmarks/replicate_run.py SOURCE_RUN TARGET_DIR TIMES

Writes ``TIMES`` copies of every part of ``SOURCE_RUN`` (results and extra tables) into
``TARGET_DIR``, copy ``k`` with its game indices shifted by ``k * games``, and a config.json whose
game counts say so.  The games repeat, so the numbers of the report are those of the source run
(with intervals ``sqrt(TIMES)`` too narrow); what it measures is the memory and time the report
takes for that many games.  Used for the 10,000,000-game figure of issue 9."""

import json
import shutil
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from analyser.run import store


def main(source: str, target: str, times: str) -> None:
    src, dst, times = Path(source), Path(target), int(times)
    config = json.loads((src / "config.json").read_text())
    games = int(config["games_completed"])
    dst.mkdir(parents=True, exist_ok=False)
    folders = [p for p in src.iterdir() if p.is_dir() and store.part_files(p)]
    for folder in folders:
        for part in store.part_files(folder):
            table = pq.read_table(part)
            start, stop = store.part_range(part)
            for k in range(times):
                shift = k * games
                i = table.schema.get_field_index("game_index")
                shifted = table.set_column(i, "game_index",
                                           pc.add(table.column("game_index"), pa.scalar(shift, table.column("game_index").type)))
                store.write_part(shifted, dst / folder.name, start + shift, stop + shift)
    config.update(games_completed=games * times, games_requested=games * times, games_done=[[0, games * times]])
    (dst / "config.json").write_text(json.dumps(config, indent=1))
    for name in ("index.html", "summary.csv"):
        if (src / name).exists():
            shutil.copy(src / name, dst / name)


if __name__ == "__main__":
    main(*sys.argv[1:4])
