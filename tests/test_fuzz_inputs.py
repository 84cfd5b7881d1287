"""Property-based fuzzing of the three doors that take files from users (issue 10), for every
registered title: mutated saved states, mutated results tables, random bytes as component files.

Each input either is refused with one InputError line (the CLI's exit 2) or is used correctly
(a state plays legally to the end, with the rules' invariants holding after every step; a
table gives a summary).  Never another exception.  The default suite runs a few examples per
title; ``-m soak`` runs many more.
"""

import copy
import json

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analyser import run as runmod
from analyser.io import files as safeio
from analyser.engine.core import InputError
from analyser.engine.registry import available_strategies, game_ids, get_game, make_strategy
from analyser.results import load_results
from analyser.engine.runner import play_game
from analyser.io.states import load_state

TITLES = game_ids()
# the default suite runs the same cases every time (derandomize); the soak draws fresh ones
QUICK = settings(max_examples=15, deadline=None, database=None, derandomize=True,
                 suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
SOAK = settings(max_examples=400, deadline=None, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

_STATES: dict[str, list[dict]] = {}


def valid_states(gid: str) -> list[dict]:
    """Saved states of one game of ``gid`` (random play, seed 11) at its start, a quarter, the
    middle and near the end, as ``state_to_dict`` writes them."""
    if gid not in _STATES:
        g = get_game(gid)
        n = g.default_players
        strats = [make_strategy(_random_strategy(gid), gid) for _ in range(n)]
        seen = []
        play_game(g, g.Params(), strats, ["x"] * n, 11, on_step=lambda s, seat, a: seen.append(g.state_to_dict(s)))
        k = len(seen)
        _STATES[gid] = [json.loads(json.dumps(seen[i])) for i in sorted({0, k // 4, k // 2, max(0, k - 3)})]
    return _STATES[gid]


def _random_strategy(gid):
    names = list(available_strategies(gid))
    return "random" if "random" in names else names[0]


# -- mutations of a JSON value ------------------------------------------------------------------

def _paths(value, path=()):
    yield path
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, path + (i,))


def _get(value, path):
    for p in path:
        value = value[p]
    return value


ODD_VALUES = ["text", "no", "", 1.5, -1, 0, True, False, None, [], {}, 10**19, -(10**19), 2**63, 1e30, 36, 10**6,
              [[0, 0]], {"a": 1}]


@st.composite
def mutated_state(draw, gid):
    """A valid saved state of ``gid`` with one to three mutations."""
    states = valid_states(gid)
    data = copy.deepcopy(states[draw(st.integers(0, len(states) - 1))])
    for _ in range(draw(st.integers(1, 3))):
        data = _mutate(draw, data)
    return data


def _mutate(draw, data):
    paths = [p for p in _paths(data) if p]
    if not paths:
        return data
    path = paths[draw(st.integers(0, len(paths) - 1))]
    parent, key = _get(data, path[:-1]), path[-1]
    kind = draw(st.sampled_from(["drop", "type", "range", "duplicate", "swap", "move"]))
    if kind == "drop":
        del parent[key]
    elif kind == "type":
        parent[key] = draw(st.sampled_from(ODD_VALUES))
    elif kind == "range":
        v = parent[key]
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            parent[key] = draw(st.integers(-(10**19), 10**19))
        else:
            parent[key] = v + draw(st.sampled_from([-1, 1, -100, 100, 10**9, -(10**9), 10**18]))
    elif kind == "duplicate":  # a card, a tile, a seat entry appears twice
        lists = [p for p in _paths(data) if isinstance(_get(data, p), list) and _get(data, p)]
        if lists:
            lst = _get(data, lists[draw(st.integers(0, len(lists) - 1))])
            i = draw(st.integers(0, len(lst) - 1))
            if draw(st.booleans()):
                lst.append(copy.deepcopy(lst[i]))
            else:
                lst[draw(st.integers(0, len(lst) - 1))] = copy.deepcopy(lst[i])
    elif kind == "move":  # an entry moved from one list to another: a card changes places
        lists = [p for p in _paths(data) if isinstance(_get(data, p), list)]
        src = [p for p in lists if _get(data, p)]
        if src:
            a = _get(data, src[draw(st.integers(0, len(src) - 1))])
            b = _get(data, lists[draw(st.integers(0, len(lists) - 1))])
            b.append(a.pop(draw(st.integers(0, len(a) - 1))))
    else:  # swap two entries of one list
        v = parent[key]
        if isinstance(v, list) and len(v) > 1:
            i, j = draw(st.integers(0, len(v) - 1)), draw(st.integers(0, len(v) - 1))
            v[i], v[j] = v[j], v[i]
    return data


def check_state_property(gid, data, tmp_path):
    g = get_game(gid)
    p = tmp_path / "state.json"
    p.write_text(json.dumps(data))
    try:
        state = load_state(g, p)
    except InputError as e:
        assert "\n" not in str(e) and str(e).startswith("--state ")
        return
    assert g.describe_state(state)  # `analyser play` draws it first
    n = len(g.scores(state))
    strats = [make_strategy(_random_strategy(gid), gid) for _ in range(n)]
    params = getattr(state, "params", g.Params())
    final = play_game(g, params, strats, ["x"] * n, 3, state=state,
                      on_step=lambda s, seat, a: g.check_invariants(s))
    assert g.is_terminal(final)
    g.check_invariants(final)


@pytest.mark.parametrize("gid", TITLES)
def test_valid_saved_states_load_and_play(gid, tmp_path):
    for data in valid_states(gid):
        check_state_property(gid, data, tmp_path)


@pytest.mark.parametrize("gid", TITLES)
def test_mutated_saved_states_are_refused_on_one_line_or_play_legally(gid, tmp_path):
    @QUICK
    @given(mutated_state(gid))
    def prop(data):
        check_state_property(gid, data, tmp_path)
    prop()


@pytest.mark.soak
@pytest.mark.parametrize("gid", TITLES)
def test_mutated_saved_states_soak(gid, tmp_path):
    @SOAK
    @given(mutated_state(gid))
    def prop(data):
        check_state_property(gid, data, tmp_path)
    prop()


# -- mutations of a results table ---------------------------------------------------------------

_RUNS: dict[str, tuple] = {}


def valid_run(gid):
    if gid not in _RUNS:
        res = runmod.run(runmod.RunSpec(game=gid, strategies=[_random_strategy(gid)], games=6, seed=2,
                                        jobs=1), progress=False)
        _RUNS[gid] = (res.results, res.extras)
    return _RUNS[gid]


ODD_CELLS = ["text", "", None, float("inf"), float("-inf"), float("nan"), -1, 10**6, 1e30, True, 0.5, -0.5]


@st.composite
def mutated_results(draw, gid):
    df, _ = valid_run(gid)
    df = df.copy()
    for c in df.columns:  # plain columns, as a CSV built by hand would give
        if isinstance(df[c].dtype, pd.CategoricalDtype):
            df[c] = df[c].astype(object)
    kind = draw(st.sampled_from(["drop", "cell", "column", "duplicate", "relabel"]))
    col = df.columns[draw(st.integers(0, len(df.columns) - 1))]
    if kind == "drop":
        df = df.drop(columns=[col])
    elif kind == "cell":
        row = draw(st.integers(0, len(df) - 1))
        df[col] = df[col].astype(object)
        df.iat[row, df.columns.get_loc(col)] = draw(st.sampled_from(ODD_CELLS))
    elif kind == "column":
        df[col] = draw(st.sampled_from(ODD_CELLS))
    elif kind == "duplicate":
        df = pd.concat([df, df.iloc[[draw(st.integers(0, len(df) - 1))]]], ignore_index=True)
    else:
        df["game"] = draw(st.sampled_from(TITLES + ["chess", ""]))
    return df, draw(st.sampled_from(["csv", "parquet"]))


def check_results_property(gid, case, tmp_path, full=False):
    from analyser.report.page import summarise
    df, fmt = case
    folder = tmp_path / "run"
    folder.mkdir(exist_ok=True)
    for f in folder.iterdir():
        f.unlink()
    p = folder / f"results.{fmt}"
    try:
        df.to_csv(p, index=False) if fmt == "csv" else df.to_parquet(p, index=False)
    except Exception:  # noqa: BLE001 - pyarrow cannot store this mix of types: a CSV can
        p = folder / "results.csv"
        df.to_csv(p, index=False)
    try:
        results, extras, config = load_results(p)
    except InputError as e:
        assert "\n" not in str(e) and str(p) in str(e)
        return
    summary = summarise(results, extras)
    assert len(summary.strategies) >= 1
    if full:  # the whole report: plots and HTML
        from analyser.report.page import build_report
        path, _, _ = build_report(results, extras, config or {"seed": "unknown"}, tmp_path / "report")
        assert path.exists()


@pytest.mark.parametrize("gid", TITLES)
def test_mutated_results_are_refused_on_one_line_or_reported(gid, tmp_path):
    @QUICK
    @given(mutated_results(gid))
    def prop(case):
        check_results_property(gid, case, tmp_path)
    prop()


@pytest.mark.soak
@pytest.mark.parametrize("gid", TITLES)
def test_mutated_results_soak(gid, tmp_path):
    @SOAK
    @given(mutated_results(gid))
    def prop(case):
        check_results_property(gid, case, tmp_path)
    prop()

    @settings(SOAK, max_examples=40)
    @given(mutated_results(gid))
    def full(case):
        check_results_property(gid, case, tmp_path, full=True)
    full()


# -- component files ----------------------------------------------------------------------------

PATH_OPTIONS = [(gid, opt) for gid in TITLES for opt in get_game(gid).path_options]


def _leaks(message: str, content: bytes, name: str, width: int = 6) -> str | None:
    """A run of ``width`` characters of ``content`` found in ``message`` (the file name removed)."""
    text = message.replace(name, "")
    body = content.decode("utf-8", "replace")
    for i in range(len(body) - width + 1):
        piece = body[i:i + width]
        if piece.strip() and piece in text:
            return piece
    return None


def check_component_property(gid, option, content, tmp_path, secret=None):
    """``content`` as the component file of ``option``: refused on one line that quotes nothing
    of ``secret`` (default: the whole content), or accepted."""
    g = get_game(gid)
    p = tmp_path / "component.csv"
    p.write_bytes(content)
    try:
        params = g.Params.from_overrides({option: str(p)})
    except InputError as e:
        assert "\n" not in str(e)
        if secret is not False:
            leak = _leaks(str(e), content if secret is None else secret, str(p))
            assert leak is None, f"the message quotes {leak!r} from the file: {e}"
        return
    assert getattr(params, option) == str(p)


@pytest.mark.skipif(not PATH_OPTIONS, reason="no title takes a component file")
@pytest.mark.parametrize("gid, option", PATH_OPTIONS)
def test_random_bytes_as_a_component_file(gid, option, tmp_path):
    @QUICK
    @given(st.one_of(st.binary(max_size=300),
                     st.text(alphabet=st.characters(codec="utf-8"), max_size=300).map(lambda t: t.encode())))
    def prop(content):
        check_component_property(gid, option, content, tmp_path)
    prop()

    # near-valid rows reach the per-line checks; they hold the words of the messages themselves,
    # so only the outcome (one line or accepted) is checked here
    @QUICK
    @given(st.lists(st.text(alphabet="0123456789,xyz #-\"gold blue up", max_size=30), max_size=12)
           .map(lambda rows: "\n".join(rows).encode()))
    def rows(content):
        check_component_property(gid, option, content, tmp_path, secret=False)
    rows()


@pytest.mark.soak
@pytest.mark.parametrize("gid, option", PATH_OPTIONS)
def test_random_bytes_as_a_component_file_soak(gid, option, tmp_path):
    @SOAK
    @given(st.binary(max_size=3000))
    def prop(content):
        check_component_property(gid, option, content, tmp_path)
    prop()


SHADOW = (b"root:$6$Zq0saltSALT$kQ9hashedhashedhashedpasswordhash0123456789abcdef:19700:0:99999:7:::\n"
          b"daemon:*:19700:0:99999:7:::\n")
ENVIRON = b"PATH=/usr/local/sbin:/usr/bin\x00API_TOKEN=sk-live-4f9a8b7c6d5e\x00HOME=/root\x00"
#: (a header the file may rightly have, the secret after it)
SECRETS = [
    (b"", SHADOW), (b"", ENVIRON),
    (b"copies,pairs\n", SHADOW), (b"copies,pairs\n", ENVIRON.replace(b"\x00", b"\n")),
    (b"copies,pairs\n", b"sk-live-4f9a8b7c6d5e,01 23 45 67\n"), (b"copies,pairs\n", b"1,sk-live-4f9a8b7c6d5e\n"),
    (b"copies,pairs\n", b"1,01 23 45 67\n1,01 23 45 67 API_TOKEN=sk-live-4f9a8b7c6d5e\n"),
    (b"colour,number,face1,face2,face3,face4,face5\n", b"API_TOKEN=sk-live-4f9a8b7c6d5e,1,up,up,up,up,up\n"),
    (b"colour,number,face1,face2,face3,face4,face5\n", b"gold,1,up,up,up,up,sk-live-4f9a8b7c6d5e\n"),
]


@pytest.mark.skipif(not PATH_OPTIONS, reason="no title takes a component file")
@pytest.mark.parametrize("gid, option", PATH_OPTIONS)
@pytest.mark.parametrize("header, secret", SECRETS, ids=range(len(SECRETS)))
def test_no_message_quotes_a_secret_from_a_component_file(gid, option, header, secret, tmp_path):
    check_component_property(gid, option, header + secret, tmp_path, secret=secret)


def test_proc_self_environ_is_never_echoed(monkeypatch):
    monkeypatch.setenv("ANALYSER_TEST_SECRET", "hunter2-secret-value")
    for gid, option in PATH_OPTIONS:
        try:
            get_game(gid).Params.from_overrides({option: "/proc/self/environ"})
        except InputError as e:
            assert "hunter2" not in str(e) and "PATH=" not in str(e)


@pytest.mark.parametrize("content", [SHADOW, ENVIRON, b"game,score\ndao,API_TOKEN=sk-live-4f9a8b7c6d5e\n"],
                         ids=range(3))
def test_no_message_quotes_a_secret_from_a_state_or_results_file(content, tmp_path):
    from click.testing import CliRunner

    from analyser.cli import cli
    p = tmp_path / "secret.csv"
    p.write_bytes(content)
    for args in (["play", TITLES[0], "-s", _random_strategy(TITLES[0]), "--state", str(p)], ["report", str(p)]):
        r = CliRunner().invoke(cli, args)
        assert r.exit_code == 2 and "Traceback" not in r.output, r.output
        leak = _leaks(r.output, content, str(p))
        assert leak is None, f"the message quotes {leak!r}: {r.output}"


def test_random_bytes_through_the_generic_component_reader(tmp_path):
    p = tmp_path / "c.csv"

    @QUICK
    @given(st.binary(max_size=400))
    def prop(content):
        p.write_bytes(content)
        try:
            rows = safeio.read_component_rows(p, "cards", ["name", "count"])
        except InputError as e:
            assert _leaks(str(e), content, str(p)) is None, str(e)
            return
        assert all(isinstance(line, int) and isinstance(row, list) for line, row in rows)
    prop()
