"""The run: turn a run spec into batches, run them with joblib (or Dask), gather one tidy DataFrame.

The results frame has one row per (game, seat) (docs/results.md): ``run_id``,
``game``, ``game_index``, ``game_seed``, ``players``, ``seat``, ``strategy``, one column per rule
option, ``score``, ``rank``, ``win`` (1/k for a k-way shared win), then the title's metric
columns (``turns`` is the game length).  Rows are sorted by (game_index, seat), so a run is
identical whatever ``--jobs`` or batch size produced it.

A run is the one primitive every experiment (:mod:`analyser.experiments`) is built from.  The
modules, one job each, are listed in docs/architecture.md; the reading API
(:mod:`~analyser.run.read`) is re-exported by :mod:`analyser.results`.

The run package may import :mod:`analyser.engine` and :mod:`analyser.io`; the statistics, the
findings, the report, the experiments and the command line are built on it, never the reverse.
"""

from analyser.run.backends import WorkerDied
from analyser.run.execute import ResumePlan, RunResult, resume, resume_spec, run, write_results
from analyser.run.folders import (check_writable, default_out, describe_output, prepare_out, previous_output,
                                  read_config, read_config_file)
from analyser.run.sink import assemble, batch_frames, batch_tables, compact, tables_to_frame, write_csv
from analyser.run.stops import Terminated
from analyser.run.spec import (BACKENDS, MAX_GAMES, RunSpec, check_scheduler_address, data_file_record, new_run_id,
                               package_versions, resolve, spec_from_config)
from analyser.run.trust import Allowed, guard_folder_config, resume_command, trust_file, trusting

__all__ = ["Allowed", "BACKENDS", "MAX_GAMES", "ResumePlan", "RunResult", "RunSpec", "Terminated", "WorkerDied",
           "assemble", "batch_frames", "batch_tables", "check_scheduler_address", "check_writable", "compact",
           "data_file_record", "default_out", "describe_output", "guard_folder_config", "new_run_id",
           "package_versions", "prepare_out", "previous_output", "read_config", "read_config_file", "resolve",
           "resume", "resume_command", "resume_spec", "run", "spec_from_config", "tables_to_frame", "trust_file",
           "trusting", "write_csv", "write_results"]
