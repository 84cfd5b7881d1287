"""The product's words: for each title and each experiment kind, a small seeded run's terminal
summary and report text, and the one-line errors of a table of bad inputs, equal the snapshots in
``tests/golden/text/``.  The other tests assert behaviour; a change of wording shows here once, as
a diff to review, and is accepted by regenerating: ``python tests/golden/make_text_snapshots.py``."""

import difflib
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "golden"))
from make_text_snapshots import error_snapshot, names, path, refusals, render  # noqa: E402


def same_as_snapshot(name, actual):
    expected = path(name).read_text(encoding="utf-8")
    if actual != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True),
                                            f"tests/golden/text/{name}.txt", "now"))
        pytest.fail(f"the text of {name!r} changed:\n{diff}\nIf the change is meant, regenerate and review "
                    f"the diff: python tests/golden/make_text_snapshots.py {name}", pytrace=False)


@pytest.mark.parametrize("name", [n for n in names() if n != "errors"])
def test_text_equals_the_snapshot(name, quick_ladder_speed):  # (the ladder's speeds are masked)
    same_as_snapshot(name, render(name))


def test_bad_inputs_are_one_line_exit_2_and_say_what_the_snapshot_says(tmp_path):
    done = refusals(tmp_path)
    for args, result in done:
        lines = result.output.strip().splitlines()
        assert (result.exit_code, len(lines)) == (2, 1), (args, result.output)
        assert lines[0].startswith("analyser: error: ") and "Traceback" not in result.output, args
    same_as_snapshot("errors", error_snapshot(tmp_path, done))
