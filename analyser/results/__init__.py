"""Results files, which are untrusted input: reading a run folder or a results file
(:mod:`~analyser.run.read`) and validating what was read (:mod:`~analyser.io.validate`).

Only the names: this package re-exports the reading API from those two modules, in the run layer,
and may import what they may (:mod:`analyser.engine`, :mod:`analyser.io`, :mod:`analyser.run`).
"""

from analyser.run.read import (EXPERIMENT_KINDS, check_parts, is_trusted_title_file, load_results, missing_tables,
                               trust_title_file)
from analyser.io.validate import (validate_chunk, validate_columns, validate_config, validate_extra,
                                  validate_results)

__all__ = ["EXPERIMENT_KINDS", "check_parts", "is_trusted_title_file", "load_results", "missing_tables",
           "trust_title_file", "validate_chunk", "validate_columns", "validate_config", "validate_extra",
           "validate_results"]
