"""The run record's model (analyser.io.records): which values of a read-back config.json pass."""

import pytest

from analyser.engine.core import InputError
from analyser.io.records import RunRecord, check_record

CONFIG = {"game": "dao", "run_id": "dao-4", "seed": 4, "players": 4}


def test_a_run_record_as_written_passes_and_one_without_a_run_id_is_left_to_its_reader():
    assert check_record(RunRecord, CONFIG, "config.json").run_id == "dao-4"
    older = {k: v for k, v in CONFIG.items() if k != "run_id"}
    assert check_record(RunRecord, older, "config.json").run_id is None


@pytest.mark.parametrize("field, value", [("run_id", None), ("run_id", ""), ("seed", -5), ("seed", 2**64),
                                          ("seed", True), ("players", 0)])
def test_a_field_analyser_never_writes_is_refused_in_one_line_naming_it(field, value):
    with pytest.raises(InputError) as e:
        check_record(RunRecord, {**CONFIG, field: value}, "config.json")
    assert str(e.value).startswith(f"config.json: the field {field!r} is ") and "\n" not in str(e.value)
