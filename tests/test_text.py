"""analyser.text: one rounding rule and one spelling of numbers for the terminal, the HTML and the
PNGs (issue 35, item 2)."""

import math

import pandas as pd
from hypothesis import given, strategies as st

from analyser import text
from analyser.stats import analysis, plots

finite = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e9, max_value=1e9)


def test_half_even_on_the_decimal_value():
    assert text.fixed(45.15, 1) == "45.2" and text.fixed(45.25, 1) == "45.2"
    assert text.fixed(0.4515 * 100, 1) == "45.2"
    assert text.pct(0.4515) == "45.2%" and text.pct(0.5075) == "50.8%" and text.pct(0.4925) == "49.2%"
    assert text.fixed(2.5, 0) == "2" and text.fixed(3.5, 0) == "4"


def test_one_win_rate_reads_alike_in_the_report_table_and_on_the_plot():
    table = pd.DataFrame({"strategy": ["a"], "win_rate": [0.4515], "win_low": [0.4], "win_high": [0.5]})
    table.attrs["places"] = {"win_rate": 1}
    cells = analysis.format_table(table).iloc[0].tolist()
    assert plots.rate_label(0.4515, 1) in cells
    assert plots.rate_label(0.4515, 1) == text.pct(0.4515, 1) == "45.2%"


@given(finite, st.integers(0, 4))
def test_no_output_is_ever_minus_zero(x, places):
    for out in (text.fixed(x, places), text.number(x, places), text.number(x), text.pct(x / 1e6, places),
                text.signed(x, places), text.signed(x, None)):
        assert out.lstrip("+-").strip("0.%") or not out.startswith("-"), out
        assert out.rstrip("%") not in ("-0", "-0.0", "-0.00", "-0.000", "-0.0000", "+0", "+0.0")


@given(finite, st.integers(0, 4))
def test_fixed_reads_back_as_the_value_rounded(x, places):
    out = text.fixed(x, places)
    assert len(out.partition(".")[2]) == places
    assert abs(float(out) - x) <= 0.5 * 10 ** -places * (1 + 1e-9) + abs(x) * 1e-11


@given(finite, st.integers(0, 3))
def test_signed_carries_the_sign_of_what_it_shows(x, places):
    out = text.signed(x, places)
    shown = float(out)
    if shown == 0:
        assert out == "0"
    else:
        assert out[0] == ("+" if x > 0 else "-")
        assert math.copysign(1, shown) == math.copysign(1, x)


def test_signed_and_number():
    assert [text.signed(v) for v in (1.23, -3.45, -0.04, 0.0, -3e-12)] == ["+1.2", "-3.4", "0", "0", "0"]
    assert [text.signed(v, None) for v in (6, -2.5, 0)] == ["+6", "-2.5", "0"]
    assert [text.number(v) for v in (61, 61.5, 4 / 3, 1234.5, 0.012345, 2.0)] == ["61", "61.5", "1.33", "1234",
                                                                                "0.0123", "2"]
    assert text.number(1 / 12 * 100, 2, trim=True) == "8.33" and text.number(12.5, 2, trim=True) == "12.5"
    assert text.number(10.0, 2, trim=True) == "10"


def test_missing_figures_show_a_dash():
    assert {text.pct(math.nan), text.number(None), text.signed(math.nan), text.thousands(math.nan)} == {text.MISSING}


def test_plural_names_list_and_thousands():
    assert [text.plural(n, "card") for n in (0, 1, 2, 1000)] == ["0 cards", "1 card", "2 cards", "1,000 cards"]
    assert text.plural(2, "body", "bodies") == "2 bodies"
    assert [text.names_list(x) for x in ([], ["a"], ["a", "b"], ["a", "b", "c"])] == ["", "a", "a and b",
                                                                                    "a, b and c"]
    assert text.names_list(["a", "b"], "or") == "a or b"
    assert text.thousands(1234567) == "1,234,567" and text.thousands(2.5) == "2"


def test_display_width_counts_wide_characters_twice():
    assert text.width("慎重な戦略") == 10 and text.width("greedy") == 6 and text.width("e\u0301") == 1


@given(st.lists(st.text(alphabet="abc慎重 ", min_size=1, max_size=12), min_size=1, max_size=8), st.integers(4, 30))
def test_wrap_never_splits_a_word(words, chars):
    source = " ".join(words)
    lines = text.wrap(source, chars)
    assert " ".join(lines).split() == source.split()  # every word whole, in order
    assert all(text.width(line) <= chars or " " not in line for line in lines)


def test_terminal_tables_pad_by_display_width_composed_or_not():
    import unicodedata

    names = ["慎重な戦略", unicodedata.normalize("NFD", "ガチ戦略"), "greedy", "e\u0301t\u00e9"]
    table = pd.DataFrame({"strategy": names, "win rate": ["10%", "20%", "30%", "40%"]})
    lines = text.terminal_table(table).splitlines()
    assert len(lines) == 5 and len({text.width(line) for line in lines}) == 1, lines
    assert text.terminal_table(table, header=False).count("\n") == 3


def test_a_meta_game_value_that_rounds_to_zero_is_not_said_to_differ_from_zero():
    """A 3-player tournament of strategies that tie in every game: Nash averages of -3e-12."""
    from types import SimpleNamespace

    from analyser.experiments import tournament

    def note(value):
        meta = SimpleNamespace(players=3, method="replicator dynamics", regret=0.0, value=value, bootstrap=10,
                               filled=[])
        return tournament.metagame_note(SimpleNamespace(meta=meta, config={"rating_model": "Bradley-Terry"}))

    assert "-0" not in note(-3e-12) and "not 0" not in note(-3e-12)
    assert "-1.5 pp" in note(-1.5) and "not 0" in note(-1.5)


def test_plot_tick_labels_wrap_at_spaces_and_cut_only_a_spec_without_them():
    label = plots.short("close-game rate (margin <= 1) of the strongest strategy", 32)
    assert label.replace("\n", " ") == "close-game rate (margin <= 1) of the strongest strategy"
    assert all(len(line) <= 32 for line in label.split("\n"))
    spec = plots.short("/home/someone/strategies/very_long_strategy_file_name.py:limit=3", 32)
    assert len(spec) == 32 and spec.startswith("/home/") and spec.endswith("limit=3")


def test_every_sentence_template_ships_and_compiles():
    """The sentence templates ship with the package and compile (a syntax error shows here, not in a
    report)."""
    from importlib import resources
    names = sorted(p.name for p in resources.files("analyser.sentences").iterdir() if p.name.endswith(".j2"))
    assert {"tune.j2", "seats.j2", "metagame.j2", "components.j2", "run.j2"} <= set(names)
    assert all(text._templates().get_template(name).name == name for name in names)


def test_a_record_key_named_like_a_dict_method_is_the_record_s_value(tmp_path):
    """``r.clear`` of a dict record is its key, never ``dict.clear`` (always true)."""
    env = text._templates()
    template = env.from_string("{{ 'yes' if r.clear else 'no' }} {{ r.items }}")
    assert template.render(r={"clear": False, "items": 3}) == "no 3"


def test_paragraphs_are_one_line_each_and_an_item_is_indented():
    assert text._paragraphs("a\n  b c\n\n- d\n   e\n \n\n") == ["a b c", "  d e"]
