"""The run: turn a run spec into batches, run them with joblib (or Dask), gather one tidy DataFrame.

The results frame has one row per (game, seat) with the columns of DESIGN.md: ``run_id``,
``game``, ``game_index``, ``game_seed``, ``players``, ``seat``, ``strategy``, one column per rule
option, ``score``, ``rank``, ``win`` (1/k for a k-way shared win), then the title's metric
columns (``turns`` is the game length).  Rows are sorted by (game_index, seat), so a run is
identical whatever ``--jobs`` or batch size produced it.

A run is the one primitive every experiment (:mod:`analyser.experiments`) is built from.  One
job per module:

* :mod:`~analyser.run.spec`: the run spec, its resolution, run ids, versions, data-file record;
* :mod:`~analyser.run.execute`: :func:`run`, :func:`resume`, :class:`RunResult`, the execution loop;
* :mod:`~analyser.run.backends`: loky, threading and Dask dispatch, the watchdog;
* :mod:`~analyser.run.cluster`: the Dask client of a run or a command, its tasks, and the user's
  files uploaded to its workers;
* :mod:`~analyser.run.stops`: Ctrl-C and SIGTERM, one handler for runs and experiments;
* :mod:`~analyser.run.sink`: the sink that writes parts, batch -> frames and tables, CSV files;
* :mod:`~analyser.run.store`: the run-folder layout of Parquet parts, the lock;
* :mod:`~analyser.run.folders`: the default ``--out``, preparing and checking output folders, and
  reading a folder's ``config.json`` (bounded);
* :mod:`~analyser.run.trust`: a handed-over folder is data, never code (what its ``config.json``
  may make analyser load or contact).

:mod:`~analyser.run.read` reads a run folder or a results file back (untrusted input; the API is
re-exported by :mod:`analyser.results`), :mod:`~analyser.run.reproduce` rebuilds the command of a
run from its ``config.json`` and :mod:`~analyser.run.bench` measures games per second.

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
