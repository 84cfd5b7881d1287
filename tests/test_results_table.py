"""A batch's results columns become one Arrow table: the fast path (the first row's schema, the
score traces taken as Arrow lists) gives the table the slow path gives, and a column whose first
value is missing (text after None) takes the slow path rather than failing."""
import numpy as np
import pandas as pd
import pyarrow as pa

from analyser.run.sink import results_table


def _columns(cause):
    return {"game_index": np.arange(3, dtype="int64"), "score": np.array([1.0, 2.0, 3.0]),
            "elim_cause": np.array(cause, dtype=object),
            "trace": pa.array([[0, 1], [2], [3, 4, 5]], type=pa.list_(pa.int64()))}


def _slow(columns):
    plain = {c: (v.to_pylist() if isinstance(v, pa.Array) else v) for c, v in columns.items()}
    return pa.Table.from_pandas(pd.DataFrame(plain), preserve_index=False)


def test_the_fast_path_gives_the_table_of_the_slow_one():
    cols = _columns(["edge", "loop", None])
    table = results_table(cols)
    assert table.to_pylist() == _slow(cols).to_pylist()
    assert table.schema.field("trace").type == pa.list_(pa.int64())


def test_text_after_a_missing_first_value_is_kept():
    cols = _columns([None, "edge", "loop"])
    table = results_table(cols)
    assert table.column("elim_cause").to_pylist() == [None, "edge", "loop"]
    assert table.to_pylist() == _slow(cols).to_pylist()
