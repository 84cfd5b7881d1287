"""Kingdomino Duel: scenario tests on hand-built states, one per rule and ruling of
analyser/titles/kingdomino_duel/rules.md, plus the component file, the state JSON and the strategies."""

import json
import random
import re
import subprocess
import sys

import pytest
from click.testing import CliRunner

from analyser.cli import cli
from analyser.engine.core import InputError
from analyser.engine.registry import get_game, make_strategy
from analyser.engine.runner import play_game
from analyser.titles.kingdomino_duel import rules as R
from analyser.titles.kingdomino_duel.rules import (NO_BONUS, PASS, STRIDE, AddCross, Castle, ChooseCoat, Draft,
                                                   Place, Turn, load_components, new_kingdom, parse_face)

G = get_game("kingdomino-duel")
TOKENS = {name: k for k, name in enumerate(R.SHORT)}


def numbers(text: str) -> list[float]:
    """The numbers of a description, in order ("faces 2 and 6 of die 1" -> [2, 6, 1])."""
    return [float(x) for x in re.findall(r"\d+(?:\.\d+)?", text)]


def cell(r, c):
    return r * STRIDE + c


def grid(rows):
    """Map rows of tokens (`.` empty, `##` castle, `dt`, `dt+`, `bk++`, ...) -> the map's JSON:
    its rows of coats (-1 empty, -2 the castle) and of crosses."""
    coats, crosses = [], []
    for line in rows:
        toks = line.split()
        coats.append([R.EMPTY if t == "." else R.CASTLE if t == "##" else TOKENS[t.rstrip("+")] for t in toks])
        crosses.append([t.count("+") for t in toks])
    return {"coat": coats, "cross": crosses}


EMPTY_MAP = [". . . . . . .", ". . . . . . .", ". . . ## . . .", ". . . . . . .", ". . . . . . ."]


def make(maps=(EMPTY_MAP, EMPTY_MAP), phase="place", roll=("dot", "dot", "dot", "dot"), hand=((0, 1), (2, 3)),
         a=0, current=None, rules=None, enter=True, **kw):
    """A state from its saved form: maps as token rows, faces as names (``"dot+1"``), ``s5_coat``
    as a coat's name; any other field as saved."""
    params = G.Params.from_overrides(rules or {})
    owner = [-1] * 4
    for seat, h in enumerate(hand):
        for d in h:
            owner[d] = seat
    faces = [list(parse_face(f)) for f in roll]
    d = {"params": params.as_dict(), "maps": [grid(m) for m in maps], "roll": faces,
         "phase": phase, "a": a, "current": a if current is None else current, "owner": owner,
         "hand": [list(h) for h in hand], "faces": [[faces[i] for i in h] for h in hand],
         "castle_round": [0, 0], "passes": [0, 0], "stuck": [0, 0]}
    if isinstance(kw.get("s5_coat"), str):
        kw["s5_coat"] = R.COATS.index(kw["s5_coat"])
    d.update(kw)
    s = G.state_from_dict(d)
    if phase == "place" and enter:
        G._enter_place(s)
    return s


def places(s):
    return [x for x in G.legal_actions(s) if type(x) is Place]


# --------------------------------------------------------------------------------------------
# Components
# --------------------------------------------------------------------------------------------

def test_default_components_match_the_rules_write_up():
    comp = load_components()
    die1 = ("?", "dot", "double-stripe+1", "stripe", "double-dot+1", "dot")
    die3 = ("double-dot", "stripe", "black+2", "quarters+2", "dot", "double-stripe")
    assert comp.dice[0] == tuple(map(parse_face, die1)) and comp.dice[2] == tuple(map(parse_face, die3))
    assert (comp.width, comp.height, divmod(comp.castle, STRIDE)) == (7, 5, (2, 3))
    assert new_kingdom(comp).n_empty == 34
    spells = {R.COATS[k]: (n, R.SPELLS[sp]) for k, (n, sp) in enumerate(comp.rows)}
    assert spells == {"dot": (5, "S1"), "stripe": (5, "S2"), "double-dot": (4, "S3"),
                      "double-stripe": (4, "S4"), "black": (3, "S5"), "quarters": (3, "S6")}


def write_components(tmp_path, lines, name="c.csv"):
    p = tmp_path / name
    p.write_text("part,name,values\n" + "\n".join(lines) + "\n")
    return str(p)


GOOD = ["die,1,? dot double-stripe+1 stripe double-dot+1 dot",
        "die,2,quarters stripe double-dot+1 double-stripe+1 dot black",
        "die,3,double-dot stripe black+2 quarters+2 dot double-stripe",
        "die,4,double-stripe stripe+1 ? stripe dot+1 double-dot",
        "map,size,7 5", "map,castle,2 3", "spell,dot,5 S1", "spell,stripe,5 S2"]


@pytest.mark.parametrize("change, problem", [
    ((0, "die,1,? dot SECRET stripe double-dot+1 dot"), "line 2: face 3 of die 1: not a coat of arms"),
    ((1, "die,2,quarters stripe dot black"), "line 3: die 2 has 4 faces; a die needs exactly 6"),
    ((5, "map,castle,5 3"), "line 7: the castle at row 5, column 3 is outside the 7 x 5 map"),
    ((5, "map,castle,1 7"), "outside the 7 x 5 map"),
    ((3, "die,1,dot dot dot dot dot dot"), "line 5: this die entry is on line 2 already"),
    ((3, "spell,black,3 S1"), "line 8: spell S1 is on line 5 already"),
    ((3, "spell,SECRET,3 S5"), "line 5: a spell row needs a coat of arms"),
    ((4, "map,size,1 5"), "line 6: map size 1 x 5 is not accepted"),
    ((2, "nonsense,SECRET,x"), "line 4: unknown part"),
    ((2, "die,3,dot,SECRET"), "line 4: expected 3 fields"),
    ((3, "# die 4 left out"), "lacks die 4"),
])
def test_bad_component_files_are_rejected_with_file_line_and_problem(tmp_path, change, problem):
    lines = list(GOOD)
    lines[change[0]] = change[1]
    path = write_components(tmp_path, lines)
    with pytest.raises(InputError) as e:
        load_components(path)
    msg = str(e.value)
    assert path in msg and problem in msg and "\n" not in msg
    assert "SECRET" not in msg  # the file's content is never echoed


def test_component_files_must_be_small_regular_utf8_files(tmp_path):
    with pytest.raises(InputError, match="regular file"):
        load_components(str(tmp_path))
    big = tmp_path / "big.csv"
    big.write_text("#" * (R.MAX_FILE_BYTES + 1))
    with pytest.raises(InputError, match="at most 1,000,000"):
        load_components(str(big))
    raw = tmp_path / "raw.csv"
    raw.write_bytes(b"part,name,values\n\xff\xfe SECRET")
    with pytest.raises(InputError, match="not UTF-8") as e:
        load_components(str(raw))
    assert "SECRET" not in str(e.value)
    with pytest.raises(InputError, match="cannot be read"):
        load_components(str(tmp_path / "missing.csv"))
    bad_header = tmp_path / "h.csv"
    bad_header.write_text("# comment\nkind,SECRET,values\n")
    with pytest.raises(InputError, match="line 2: .*part,name,values") as e:
        load_components(str(bad_header))
    assert "SECRET" not in str(e.value)


def test_a_replacement_file_changes_the_game(tmp_path):
    lines = [ln.replace("map,size,7 5", "map,size,3 3").replace("map,castle,2 3", "map,castle,1 1") for ln in GOOD]
    path = write_components(tmp_path, lines)
    params = G.Params.from_overrides({"components": path})
    s = G.initial_state(params, 2, random.Random(1))
    assert s.maps[0].n_empty == 8 and s.comp.width == 3
    assert all(f in params.comp.dice[i] for i, f in enumerate(s.roll))


def test_components_path_is_made_absolute_and_recorded_with_sha256(tmp_path, monkeypatch):
    import hashlib
    from analyser import run as runmod
    path = write_components(tmp_path, GOOD)
    monkeypatch.chdir(tmp_path)
    spec = runmod.RunSpec(game="kingdomino-duel", strategies=["random"], players=2, games=2, seed=1, jobs=1,
                          rules={"components": "c.csv"})
    res = runmod.run(spec, progress=False)
    rec = res.config["data_files"]["components"]
    assert rec["path"] == path and rec["sha256"] == hashlib.sha256(open(path, "rb").read()).hexdigest()
    assert res.config["rules"]["components"] == path


def test_cli_rejects_a_bad_component_file_with_one_line_and_exit_2(tmp_path):
    lines = list(GOOD)
    lines[1] = "die,2,quarters stripe"
    path = write_components(tmp_path, lines)
    out = subprocess.run([sys.executable, "-m", "analyser", "simulate", "kingdomino-duel", "-s", "random",
                          "--games", "2", "--no-report", "--rule", f"components={path}", "--out", str(tmp_path / "o")],
                         capture_output=True, text=True)
    assert out.returncode == 2
    assert out.stderr.strip().count("\n") == 0 and "die 2" in out.stderr and "2 faces" in out.stderr


def test_list_says_the_components_are_an_approximation():
    out = subprocess.run([sys.executable, "-m", "analyser", "list", "kingdomino-duel"], capture_output=True, text=True)
    assert out.returncode == 0
    assert "UNVERIFIED approximation" in out.stdout and "components=" in out.stdout


def test_help_list_and_a_run_without_strategies_agree_on_the_default_lineup(runner, tmp_path):
    import pandas as pd

    from analyser.cli import cli
    from analyser.engine.registry import default_lineup
    assert default_lineup(G.id) == ["greedy", "spells"]
    listed = runner.invoke(cli, ["list", "kingdomino-duel"])
    line = next(x for x in listed.output.splitlines() if "(no --strategy):" in x)
    assert listed.exit_code == 0 and line.split("(no --strategy): ")[1].startswith("greedy, spells")
    helped = runner.invoke(cli, ["simulate", "--help"])
    assert "every built-in strategy" not in helped.output and "default lineup" in " ".join(helped.output.split())
    out = tmp_path / "run"
    ran = runner.invoke(cli, ["simulate", "kingdomino-duel", "--games", "4", "--seed", "1", "--jobs", "1",
                              "--no-report", "--out", str(out)])
    assert ran.exit_code == 0, ran.output
    assert "greedy, spells" in ran.output  # the run says which lineup it played
    assert sorted(set(pd.read_parquet(out / "results")["strategy"].astype(str))) == ["greedy", "spells"]


def test_the_report_says_the_components_are_an_unverified_approximation():
    note = " ".join(G.report_notes(G.Params()))
    assert "unverified approximation" in note and "--rule components=FILE" in note
    own = " ".join(G.report_notes(G.Params.from_overrides({"components": str(R.DEFAULT_COMPONENTS)})))
    assert "approximation" not in own.replace("not the built-in approximation", "") and "components.csv" in own


# --------------------------------------------------------------------------------------------
# Domains and scoring
# --------------------------------------------------------------------------------------------

SCORED = ["dt+ dt  .   .   .   .   .",
          "dt  .   dt+ .   .   .   .",
          ".   dt  dt  ##  .   .   .",
          ".   .   .   .   .   .   st",
          "qu  .   .   .   .   .   ."]


def test_domains_score_cells_times_crosses_separately_and_never_diagonally():
    s = make(maps=(SCORED, EMPTY_MAP))
    m = s.maps[0]
    # two dot domains of 3 cells and 1 cross each, touching only diagonally: 3 + 3
    assert m.domains_of(R.COATS.index("dot")) == 2
    assert m.domain_points() == 6
    # the stripe and quarters domains have no cross: no points
    assert G.scores(s) == [6, 0]
    assert m.largest() == 3


def test_joining_two_domains_merges_their_cells_and_crosses():
    s = make(maps=(SCORED, EMPTY_MAP))
    m = s.maps[0]
    m.draw(cell(1, 1), R.COATS.index("dot"), 0)  # joins both dot domains
    assert m.domains_of(0) == 1 and m.largest() == 7 and m.domain_points() == 7 * 2


def test_pair_gain_matches_rescoring_from_scratch():
    rng = random.Random(4)
    for _ in range(200):
        m = new_kingdom(load_components())
        for _ in range(rng.randrange(0, 20)):
            free = R.bits(m.empty)
            if len(free) < 3:
                break
            m.draw(rng.choice(free), rng.randrange(6), rng.choice((0, 0, 1, 2)))
        free = R.bits(m.empty)
        c0, c1 = rng.sample(free, 2)
        k0, k1, x0, x1 = rng.randrange(6), rng.choice((0, 1, 2)), rng.randrange(3), rng.randrange(3)
        before = m.domain_points()
        gain = R.pair_gain(m, c0, c1, k0, k1, x0, x1)
        m.draw(c0, k0, x0)
        m.draw(c1, k1, x1)
        assert m.domain_points() - before == gain


# --------------------------------------------------------------------------------------------
# Round structure: roles, draft, connection, stuck player
# --------------------------------------------------------------------------------------------

def test_draft_order_is_one_two_one_and_roles_swap_every_round():
    s = G.initial_state(G.Params(), 2, random.Random(2))
    assert (s.round, s.a, s.current, s.phase) == (1, 0, 0, "draft_a")
    assert G.legal_actions(s) == [Draft((0,)), Draft((1,)), Draft((2,)), Draft((3,))]
    G.apply(s, Draft((2,)), random.Random(0))
    assert (s.phase, s.current) == ("draft_b", 1)
    assert G.legal_actions(s) == [Draft((0, 1)), Draft((0, 3)), Draft((1, 3))]
    G.apply(s, Draft((0, 3)), random.Random(0))
    assert s.hand == [[1, 2], [0, 3]]  # A took the last die
    assert (s.phase, s.current) == ("place", 0)
    rng = random.Random(0)
    while s.round == 1:
        G.apply(s, G.legal_actions(s)[0], rng)
    assert (s.round, s.a, s.current, s.phase) == (2, 1, 1, "draft_a")


def test_connection_touch_castle_or_same_coat_never_diagonal():
    rows = [". . . . . . .",
            "st . . . . . .",
            ". . . ## . . .",
            ". . . . . . .",
            ". . . . . . bk"]
    s = make(maps=(rows, EMPTY_MAP), roll=("dot", "stripe", "black", "quarters"), hand=((0, 1), (2, 3)))
    legal = places(s)
    dot, stripe = R.COATS.index("dot"), R.COATS.index("stripe")
    # the stripe die may sit next to the stripe at (1,0), the dot die anywhere next to it
    assert Place(cell(0, 1), cell(0, 0), dot, stripe, "") in legal
    # touching the castle (2,3) is enough for either die, whatever its coat
    assert Place(cell(1, 3), cell(0, 3), dot, stripe, "") in legal
    # (2,1) is diagonal to nothing useful: the stripe at (1,0) touches it only diagonally
    assert Place(cell(3, 1), cell(2, 1), dot, stripe, "") not in legal
    # a different coat next to the drawn stripe does not connect the dot
    assert Place(cell(2, 0), cell(3, 0), dot, stripe, "") not in legal
    for p in legal:
        ok = any(c in (cell(1, 3), cell(2, 2), cell(2, 4), cell(3, 3)) for c in (p.cell0, p.cell1)) or \
            p.cell1 in (cell(0, 0), cell(2, 0), cell(1, 1))
        assert ok, p


def test_a_stuck_player_draws_nothing_and_fills_no_box():
    full = ["dt dt dt dt dt dt dt", "dt dt dt dt dt dt dt", ". dt dt ## dt dt .", "dt dt dt dt dt dt dt",
            "dt dt dt dt dt dt dt"]  # two empty cells, not adjacent
    s = make(maps=(full, EMPTY_MAP), roll=("dot", "dot", "stripe", "stripe"))
    assert G.legal_actions(s) == [PASS]
    assert s.stuck == [1, 0] and s.could == [False, False]
    rng = random.Random(0)
    G.apply(s, PASS, rng)
    G.apply(s, G.legal_actions(s)[0], rng)  # B draws
    while s.phase in ("castle",):
        G.apply(s, NO_BONUS, rng)
    assert s.passes == [1, 0] and s.boxes[0] == [0] * 6 and s.maps[0].n_empty == 2
    assert s.round == 2  # B drew, so the game goes on


# --------------------------------------------------------------------------------------------
# Spellbook
# --------------------------------------------------------------------------------------------

def play_round(s, first, second, bonus=(NO_BONUS, NO_BONUS)):
    rng = random.Random(0)
    G.apply(s, first, rng)
    if s.phase == "castle":
        G.apply(s, bonus[0], rng)
    G.apply(s, second, rng)
    if s.phase == "castle":
        G.apply(s, bonus[1], rng)
    return s


def test_uncrossed_coats_fill_boxes_crosses_and_jokers_do_not():
    s = make(roll=("dot", "stripe+1", "?", "black"), hand=((0, 1), (2, 3)))
    dot, stripe, black = 0, 2, 5
    play_round(s, Place(cell(1, 3), cell(0, 3), dot, stripe, ""), Place(cell(1, 3), cell(0, 3), dot, black, ""))
    assert s.boxes[0][dot] == 1 and s.boxes[0][stripe] == 0  # the crossed stripe fills no box
    assert s.boxes[1][dot] == 0 and s.boxes[1][black] == 1  # the ? drawn as dot fills no box


def test_castle_bonus_adds_a_cross_once_and_its_die_fills_no_box():
    s = make(roll=("dot", "stripe", "dot", "black"), hand=((0, 1), (2, 3)))
    play_round(s, Place(cell(1, 3), cell(0, 3), 0, 2, ""), Place(cell(1, 3), cell(0, 3), 0, 5, ""),
               bonus=(Castle(cell(1, 3)), NO_BONUS))
    assert s.maps[0].cell_cross[cell(1, 3)] == 1 and s.castle_round == [1, 0]
    assert s.boxes[0][0] == 0 and s.boxes[0][2] == 1  # the marked dot fills no box
    assert G.scores(s)[0] == 1
    # round 2: seat 0 has used its bonus, so it is not asked again
    s2 = make(roll=("dot", "stripe", "dot", "black"), castle_round=[1, 0])
    G.apply(s2, Place(cell(1, 3), cell(0, 3), 0, 2, ""), random.Random(0))
    assert s2.phase == "place" and s2.current == 1


def test_castle_bonus_off_and_cross_cap():
    s = make(roll=("dot", "stripe", "dot", "black"), rules={"castle_bonus": "off"})
    G.apply(s, Place(cell(1, 3), cell(0, 3), 0, 2, ""), random.Random(0))
    assert s.phase == "place" and s.current == 1
    s = make(roll=("dot+1", "stripe", "dot", "black"), rules={"cross_cap": "1"})
    G.apply(s, Place(cell(1, 3), cell(0, 3), 0, 2, ""), random.Random(0))
    assert G.legal_actions(s) == [NO_BONUS, Castle(cell(0, 3))]  # the dot already has its 1 cross


def test_a_completed_row_gains_the_spell_and_strikes_the_other_row():
    s = make(roll=("black", "dot", "black", "stripe"), boxes=[[0, 0, 0, 0, 0, 2], [0, 0, 0, 0, 0, 1]])
    play_round(s, Place(cell(1, 3), cell(0, 3), 5, 0, ""), Place(cell(1, 3), cell(0, 3), 5, 2, ""))
    assert s.row_owner[5] == 0 and s.spell_owner[R.S5] == 0 and s.spell_round[R.S5] == 1
    assert s.boxes[1][5] == 1  # B's box in the struck row is not filled
    assert s.phase == "spell" and s.current == 0 and G.legal_actions(s)[0] == ChooseCoat(0)


def test_a_wins_a_tie_for_a_row_in_the_same_round():
    for a in (0, 1):
        s = make(roll=("black", "dot", "black", "stripe"), a=a, hand=((0, 1), (2, 3)),
                 boxes=[[0, 0, 0, 0, 0, 2], [0, 0, 0, 0, 0, 2]])
        play_round(s, Place(cell(1, 3), cell(0, 3), 5, 0 if a == 0 else 2, ""),
                   Place(cell(1, 3), cell(0, 3), 5, 2 if a == 0 else 0, ""))
        assert s.spell_owner[R.S5] == a, f"A = seat {a} should win the tie"
        assert s.boxes[1 - a][5] == 2


def test_struck_and_gained_rows_take_no_more_boxes():
    s = make(roll=("black", "dot", "black", "stripe"), row_owner=[-1, -1, -1, -1, -1, 1],
             boxes=[[0] * 6, [0, 0, 0, 0, 0, 3]], spell_owner=[-1, -1, -1, -1, 1, -1])
    play_round(s, Place(cell(1, 3), cell(0, 3), 5, 0, ""), Place(cell(1, 3), cell(0, 3), 5, 2, ""))
    assert s.boxes[0][5] == 0 and s.boxes[1][5] == 3


# --------------------------------------------------------------------------------------------
# Spells
# --------------------------------------------------------------------------------------------

def owning(spells, seat=0):
    return [seat if sp in spells else -1 for sp in range(6)]


def test_s1_ignores_connection_only_where_needed():
    s = make(roll=("dot", "stripe", "dot", "black"), spell_owner=owning([R.S1]))
    legal = G.legal_actions(s)
    far = Place(cell(0, 0), cell(0, 1), 0, 2, "S1")
    assert far in legal
    assert Place(cell(1, 3), cell(0, 3), 0, 2, "S1") not in legal  # connects anyway: no spell
    assert PASS not in legal  # an ordinary placement exists: drawing is compulsory
    play_round(s, far, Place(cell(1, 3), cell(0, 3), 0, 5, ""))
    assert s.maps[0].cell_coat[cell(0, 0)] == 0 and s.spell_used[R.S1]


def test_s2_places_the_dice_apart_each_connecting():
    rows = ["st . . . . . .", ". . . . . . .", ". . . ## . . .", ". . . . . . .", ". . . . . . ."]
    s = make(maps=(rows, EMPTY_MAP), roll=("dot", "stripe", "dot", "black"), spell_owner=owning([R.S2]))
    legal = G.legal_actions(s)
    apart = Place(cell(1, 3), cell(1, 0), 0, 2, "S2")  # dot by the castle, stripe by the stripe
    assert apart in legal
    assert Place(cell(0, 0 + 2), cell(1, 0), 0, 2, "S2") not in legal  # the dot at (0,2) connects to nothing
    assert all(not (s.comp.adj_mask[p.cell0] >> p.cell1) & 1 for p in legal if type(p) is Place and p.spell == "S2")
    assert not any(p.spell == "S1+S2" for p in legal if type(p) is Place)
    play_round(s, apart, Place(cell(1, 3), cell(0, 3), 0, 5, ""))
    assert s.maps[0].cell_coat[cell(1, 0)] == 2 and s.maps[0].domains_of(2) == 1 and s.spell_used[R.S2]


def test_s1_and_s2_combine_only_with_the_option():
    rows = EMPTY_MAP
    s = make(maps=(rows, rows), roll=("dot", "stripe", "dot", "black"), spell_owner=owning([R.S1, R.S2]),
             rules={"combine_spells": "on"})
    assert Place(cell(0, 0), cell(4, 6), 0, 2, "S1+S2") in G.legal_actions(s)
    s = make(maps=(rows, rows), roll=("dot", "stripe", "dot", "black"), spell_owner=owning([R.S1, R.S2]))
    assert not any(type(p) is Place and p.spell == "S1+S2" for p in G.legal_actions(s))


def test_s3_takes_two_dice_at_the_first_pick():
    s = make(phase="draft_a", hand=((), ()), faces=[[], []], spell_owner=owning([R.S3]))
    s.owner = [-1] * 4
    legal = G.legal_actions(s)
    assert legal[:4] == [Draft((i,)) for i in range(4)] and Draft((1, 3), "S3") in legal
    assert G.describe_action(Draft((1, 3), "S3")) == "take die 2 and die 4 (spell S3)"
    G.apply(s, Draft((1, 3), "S3"), random.Random(0))
    assert s.hand == [[1, 3], [0, 2]] and s.phase == "place" and s.spell_used[R.S3]
    # B (seat 1) holding S3 cannot use it as B
    s = make(phase="draft_a", hand=((), ()), faces=[[], []], spell_owner=owning([R.S3], seat=1))
    s.owner = [-1] * 4
    assert len(G.legal_actions(s)) == 4


def test_s4_turns_a_die_to_one_of_its_own_faces_or_any_face():
    s = make(roll=("dot", "quarters", "dot", "black"), spell_owner=owning([R.S4]))
    turns = [a for a in G.legal_actions(s) if type(a) is Turn]
    die1 = load_components().dice[0]
    assert {(t.coat, t.crosses) for t in turns if t.slot == 0} == set(die1) - {parse_face("dot")}
    G.apply(s, Turn(0, R.COATS.index("double-dot"), 1), random.Random(0))
    assert s.faces[0][0] == (1, 1) and not any(type(a) is Turn for a in G.legal_actions(s))
    assert not s.spell_used[R.S4]  # revealed with the drawing
    play_round(s, G.legal_actions(s)[0], Place(cell(1, 3), cell(0, 3), 0, 5, ""))
    assert s.spell_used[R.S4]
    s = make(roll=("dot", "quarters", "dot", "black"), spell_owner=owning([R.S4]), rules={"s4_faces": "any"})
    turns = [a for a in G.legal_actions(s) if type(a) is Turn and a.slot == 0]
    assert (R.COATS.index("black"), 2) in {(t.coat, t.crosses) for t in turns}  # a face of die 3


def test_s5_scores_per_domain_of_the_chosen_coat():
    rows = ["dt+ . dt . . . .", ". . . . . . .", ". . . ## . . .", ". . . . . . .", ". . . . . . ."]
    s = make(maps=(rows, EMPTY_MAP), spell_owner=owning([R.S5]), s5_coat="dot")
    assert G.scores(s)[0] == 1 + 3 * 2  # two dot domains, the one without a cross counts too
    assert R.spell_points(s, 0) == 6
    s = make(maps=(rows, EMPTY_MAP), spell_owner=owning([R.S5]), s5_coat="dot", rules={"s5_domains": "scoring"})
    assert R.spell_points(s, 0) == 3


def test_s5_points_option_and_s6_offers_only_cells_below_the_cross_cap():
    rows = ["dt+ . dt . . . .", ". . . . . . .", ". . . ## . . .", ". . . . . . .", ". . . . . . ."]
    s = make(maps=(rows, EMPTY_MAP), spell_owner=owning([R.S5]), s5_coat="dot", rules={"s5_points": "5"})
    assert R.spell_points(s, 0) == 10
    capped = ["dt+ . . . . . .", ". . . . . . .", ". . . ## . . .", ". . . . . . .", ". . . . . . ."]
    s = make(maps=(capped, EMPTY_MAP), roll=("quarters+1", "dot+1", "dot", "black"), rules={"cross_cap": "1"},
             boxes=[[0, 0, 0, 0, 2, 0], [0] * 6])
    play_round(s, Place(cell(1, 3), cell(0, 3), 4, 0, ""), Place(cell(1, 3), cell(0, 3), 0, 5, ""))
    assert s.boxes[0][4] == 2  # a crossed quarters fills no box: S6 not gained this way
    s = make(maps=(capped, EMPTY_MAP), roll=("quarters", "dot+1", "dot", "black"), rules={"cross_cap": "1"},
             boxes=[[0, 0, 0, 0, 2, 0], [0] * 6], castle_round=[1, 0])
    G.apply(s, Place(cell(1, 3), cell(0, 3), 4, 0, ""), random.Random(0))
    G.apply(s, Place(cell(1, 3), cell(0, 3), 0, 5, ""), random.Random(0))
    G.apply(s, NO_BONUS, random.Random(0))
    # seat 0 completed quarters (S6); its cells: dot+1 (capped), dot+1 (capped), quarters (free)
    assert s.spell_owner[R.S6] == 0 and s.phase == "spell"
    assert G.legal_actions(s) == [AddCross(cell(1, 3))]


def test_s5_and_s6_take_effect_at_once_a_first():
    s = make(roll=("black", "quarters", "quarters", "black"), a=1, hand=((2, 3), (0, 1)), current=1,
             boxes=[[0, 0, 0, 0, 2, 0], [0, 0, 0, 0, 0, 2]])
    play_round(s, Place(cell(1, 3), cell(0, 3), 5, 4, ""), Place(cell(1, 3), cell(0, 3), 4, 5, ""))
    assert s.queue == [(1, R.S5), (0, R.S6)] and s.current == 1 and s.phase == "spell"
    G.apply(s, ChooseCoat(5), random.Random(0))
    assert s.s5_coat == 5 and s.current == 0
    assert G.legal_actions(s) == [AddCross(cell(0, 3)), AddCross(cell(1, 3))]
    G.apply(s, AddCross(cell(1, 3)), random.Random(0))
    assert s.maps[0].cell_cross[cell(1, 3)] == 1 and s.round == 2 and s.spell_used[R.S6]


# --------------------------------------------------------------------------------------------
# Once-per-game resources when the player draws nothing (each spell, the castle bonus)
# --------------------------------------------------------------------------------------------

# Two empty cells that do not touch: a seat with this map has no placement and draws nothing.
STUCK = ["dt dt dt dt dt dt dt", "dt dt dt dt dt dt dt", ". dt dt ## dt dt .", "dt dt dt dt dt dt dt",
         "dt dt dt dt dt dt dt"]


def play_first_until(s, done, rng=None):
    """Play the first legal action until ``done(s)``; returns ``s``."""
    rng = rng or random.Random(0)
    while not done(s):
        assert not G.is_terminal(s)
        G.apply(s, G.legal_actions(s)[0], rng)
    return s


def test_an_s4_turn_is_spent_even_when_the_player_then_draws_nothing():
    # seat 0 (A) holds S4 and has no placement: it may still turn a die, then draws nothing
    s = make(maps=(STUCK, EMPTY_MAP), roll=("dot", "stripe", "dot", "black"), spell_owner=owning([R.S4]))
    legal = G.legal_actions(s)
    assert PASS in legal and any(type(a) is Turn for a in legal)
    rng = random.Random(0)
    G.apply(s, Turn(0, R.COATS.index("double-stripe"), 1), rng)
    assert G.legal_actions(s)[0] is PASS and not any(type(a) is Turn for a in G.legal_actions(s))
    G.apply(s, PASS, rng)
    G.apply(s, Place(cell(1, 3), cell(0, 3), 0, 5, ""), rng)  # B draws
    if s.phase == "castle":
        G.apply(s, NO_BONUS, rng)
    assert s.round == 2 and s.passes == [1, 0]
    assert s.spell_used[R.S4] and not R.holds(s, 0, R.S4)  # the turn spent S4
    assert G.metrics(s)[0]["spells_used"] == 1
    # round 2: seat 0 draws again (as B) and is not offered a second turn
    play_first_until(s, lambda t: t.phase == "place" and t.current == 0)
    assert not any(type(a) is Turn for a in G.legal_actions(s))


def test_the_seed_9_random_game_turns_a_die_with_s4_only_once():
    # seat 1 turned a die in round 17, drew nothing, and (before the fix) turned again in round 18
    specs = ["random", "random"]
    turns = []

    def on_step(state, seat, action):
        if type(action) is Turn:
            turns.append((state.round, seat))

    final = play_game(G, G.Params(), [make_strategy(x, G.id) for x in specs], specs, 9, on_step=on_step)
    assert turns == [(17, 1)]
    assert final.spell_owner[R.S4] == 1 and final.spell_used[R.S4]


@pytest.mark.parametrize("spell", ["S1", "S2"])
def test_a_placement_spell_is_kept_when_the_player_draws_nothing(spell):
    sp = R.SPELLS.index(spell)
    # The castle is walled in; the empty 2 x 2 corner touches only black, and (0,4) and (2,6) are
    # single empty cells next to dots: stripe and quarters connect nowhere (only S1 places them),
    # and two dots connect only at (0,4) and (2,6), which do not touch (only S2 places them).
    rows = [". . bk dt . dt dt", ". . bk dt dt dt dt", "bk bk bk ## dt dt .", "dt dt dt dt dt dt dt",
            "dt dt dt dt dt dt dt"]
    roll = ("stripe", "quarters", "dot", "black") if spell == "S1" else ("dot", "dot", "dot", "black")
    s = make(maps=(rows, EMPTY_MAP), roll=roll, spell_owner=owning([sp]))
    legal = G.legal_actions(s)
    assert PASS in legal and any(type(a) is Place and a.spell == spell for a in legal)
    assert not any(type(a) is Place and not a.spell for a in legal)
    play_round(s, PASS, Place(cell(1, 3), cell(0, 3), 0, 5, ""))
    assert s.round == 2 and not s.spell_used[sp] and R.holds(s, 0, sp)  # declined: still held, unused
    # used in a later round, it is spent and never offered again
    use = next(a for a in legal if type(a) is Place and a.spell == spell)
    t = make(maps=(rows, EMPTY_MAP), roll=roll, spell_owner=owning([sp]))
    play_round(t, use, Place(cell(1, 3), cell(0, 3), 0, 5, ""))
    assert t.spell_used[sp] and not R.holds(t, 0, sp)
    play_first_until(t, lambda x: x.phase == "place" and x.current == 0)
    assert not any(type(a) is Place and a.spell for a in G.legal_actions(t))


def test_s3_is_spent_at_the_draft_even_when_the_player_then_draws_nothing():
    s = make(maps=(STUCK, EMPTY_MAP), phase="draft_a", hand=((), ()), faces=[[], []], spell_owner=owning([R.S3]))
    s.owner = [-1] * 4
    G.apply(s, Draft((0, 1), "S3"), random.Random(0))
    assert s.spell_used[R.S3] and G.legal_actions(s) == [PASS]  # seat 0 is stuck
    play_first_until(s, lambda t: t.round == 2)
    assert s.passes == [1, 0] and s.spell_used[R.S3] and not R.holds(s, 0, R.S3)
    # round 3: seat 0 is A again and picks one die, without S3
    play_first_until(s, lambda t: t.round == 3)
    assert s.a == 0 and s.phase == "draft_a" and G.legal_actions(s) == [Draft((i,)) for i in range(4)]


def test_s5_and_s6_are_chosen_once_and_a_player_drawing_nothing_gains_none():
    # seat 0 gained S5 and S6 earlier and has used both; it now draws nothing
    s = make(maps=(STUCK, EMPTY_MAP), roll=("black", "quarters", "black", "quarters"),
             boxes=[[0, 0, 0, 0, 3, 3], [0] * 6], row_owner=[-1, -1, -1, -1, 0, 0],
             spell_owner=owning([R.S5, R.S6]), spell_used=[False, False, False, False, True, True],
             spell_round=[0, 0, 0, 0, 1, 1], s5_coat="dot", round=2)
    play_round(s, PASS, Place(cell(1, 3), cell(0, 3), 5, 4, ""))
    assert s.round == 3 and s.phase == "draft_a" and s.queue == [] and s.s5_coat == 0
    assert s.boxes == [[0, 0, 0, 0, 3, 3], [0] * 6]  # B's rows are struck; seat 0 drew nothing
    # seat 0 one box short of S5 draws nothing: the row stays open and nothing is gained
    s = make(maps=(STUCK, EMPTY_MAP), roll=("black", "black", "dot", "dot"), boxes=[[0, 0, 0, 0, 0, 2], [0] * 6])
    play_round(s, PASS, Place(cell(1, 3), cell(0, 3), 0, 0, ""))
    assert s.spell_owner[R.S5] == -1 and s.boxes[0][5] == 2 and s.round == 2


def test_the_castle_bonus_is_kept_by_a_player_who_draws_nothing_and_offered_once():
    s = make(maps=(STUCK, EMPTY_MAP), roll=("dot", "stripe", "dot", "black"))
    rng = random.Random(0)
    G.apply(s, PASS, rng)
    assert s.phase == "place" and s.current == 1  # no castle step after drawing nothing
    G.apply(s, Place(cell(1, 3), cell(0, 3), 0, 5, ""), rng)
    G.apply(s, Castle(cell(1, 3)), rng)  # B takes its bonus
    assert s.castle_round == [0, 1] and s.bonus == [-1, -1]
    # round 2: seat 1 (A) drew its bonus already and is not asked again; seat 0 draws nothing again
    s2 = make(maps=(STUCK, EMPTY_MAP), roll=("dot", "stripe", "dot", "black"), a=1, hand=((2, 3), (0, 1)),
              castle_round=[0, 1], round=2)
    G.apply(s2, Place(cell(1, 3), cell(0, 3), 0, 2, ""), rng)
    assert s2.phase == "place" and s2.current == 0
    G.apply(s2, PASS, rng)
    assert s2.castle_round == [0, 1] and s2.round == 3


def test_random_games_never_use_a_once_per_game_resource_twice():
    """200 random games under options that change the spells and the bonus: each spell is used
    at most once, the castle bonus at most once per seat, and an S4 turn always spends S4 (the
    draw-nothing path included, which these games reach)."""
    option_sets = [{}, {"must_draw": "off"}, {"cross_cap": "1"}, {"s4_faces": "any", "combine_spells": "on"}]
    turn_then_pass = 0
    for g in range(200):
        params = G.Params.from_overrides(option_sets[g % len(option_sets)])
        chance, pick = random.Random(g), random.Random(g + 1000)
        s = G.initial_state(params, 2, chance)
        uses = {"S1": 0, "S2": 0, "S3": 0, "S4": 0, "S5": 0, "S6": 0}
        bonus = [0, 0]
        turned_round = None
        while not G.is_terminal(s):
            legal = G.legal_actions(s)
            act, seat, rnd = legal[int(pick.random() * len(legal))], s.current, s.round
            kind = type(act)
            if kind is Turn:
                uses["S4"] += 1
                turned_round = rnd
            elif kind is Place and act.spell:
                for sp in act.spell.split("+"):
                    uses[sp] += 1
            elif kind is Draft and act.spell:
                uses["S3"] += 1
            elif kind is ChooseCoat:
                uses["S5"] += 1
            elif kind is AddCross:
                uses["S6"] += 1
            elif kind is Castle and act.cell >= 0:
                bonus[seat] += 1
            if act is PASS and turned_round == rnd and s.turned[seat]:
                turn_then_pass += 1
            G.apply(s, act, chance)
            if s.round > rnd and turned_round == rnd:
                assert s.spell_used[R.S4], f"game {g}: S4 turned in round {rnd} but not spent"
        assert max(uses.values()) <= 1 and max(bonus) <= 1, (g, uses, bonus)
        for k, sp in enumerate(R.SPELLS):
            if uses[sp]:
                assert s.spell_used[k], (g, sp)
        assert [bool(r) for r in s.castle_round] == [bool(b) for b in bonus], g
    assert turn_then_pass >= 2  # the draw-nothing path after an S4 turn was exercised


# --------------------------------------------------------------------------------------------
# Score trace (one entry per finished round)
# --------------------------------------------------------------------------------------------

def rescored(s):
    """Both scores recomputed from the maps' cells alone (a flood fill per domain), plus S5."""
    out = []
    for seat, m in enumerate(s.maps):
        seen, total, domains = set(), 0, {k: 0 for k in range(6)}
        for c, coat in enumerate(m.cell_coat):
            if coat < 0 or c in seen:
                continue
            stack, cells, crosses = [c], 0, 0
            seen.add(c)
            while stack:
                x = stack.pop()
                cells += 1
                crosses += m.cell_cross[x]
                for n in (x - 1, x + 1, x - STRIDE, x + STRIDE):
                    if 0 <= n < len(m.cell_coat) and abs(n % STRIDE - x % STRIDE) <= 1 and m.cell_coat[n] == coat \
                            and n not in seen:
                        seen.add(n)
                        stack.append(n)
            total += cells * crosses
            domains[coat] += 1 if (crosses or s.params.s5_domains == "all") else 0
        if s.spell_owner[R.S5] == seat and s.s5_coat >= 0:
            total += s.params.s5_points * domains[s.s5_coat]
        out.append(total)
    return tuple(out)


def test_the_score_trace_records_both_scores_after_each_round_s5_included():
    s = make(roll=("black", "dot+1", "black", "stripe"), boxes=[[0, 0, 0, 0, 0, 2], [0] * 6])
    assert s.history == []
    play_round(s, Place(cell(1, 3), cell(0, 3), 5, 0, ""), Place(cell(1, 3), cell(0, 3), 5, 2, ""))
    assert s.phase == "spell" and s.history == []  # seat 0's S5 choice still belongs to round 1
    G.apply(s, ChooseCoat(5), random.Random(0))  # one black domain: 3 points
    assert s.round == 2 and s.history == [(1 + 3, 0)] == [rescored(s)]
    # the castle bonus and a merge count at once
    s = make(roll=("dot+1", "dot", "stripe", "black"))
    play_round(s, Place(cell(1, 3), cell(0, 3), 0, 0, ""), Place(cell(1, 3), cell(0, 3), 2, 5, ""),
               bonus=(Castle(cell(0, 3)), NO_BONUS))
    assert s.history == [(2 * 2, 0)]
    # full_map_end=at_once: the last round is recorded once, before the game stops
    almost = ["dt dt dt dt dt dt dt", "dt dt dt dt dt dt dt", "dt dt . ## dt dt dt", "dt dt . dt dt dt dt",
              "dt dt dt dt dt dt dt"]
    s = make(maps=(almost, EMPTY_MAP), roll=("dot+1", "dot", "black", "black"), rules={"full_map_end": "at_once"},
             round=4, history=[[0, 0], [0, 0], [0, 0]])
    play_round(s, Place(cell(2, 2), cell(3, 2), 0, 0, ""), Place(cell(1, 3), cell(0, 3), 5, 5, ""))
    assert s.phase == "over" and len(s.history) == 4 and s.history[-1] == rescored(s) == (34, 0)
    m = G.metrics(s)
    assert m[0]["score_trace"] == (0, 0, 0, 34) and m[1]["score_trace"] == (0, 0, 0, 0)


@pytest.mark.parametrize("rules", [{}, {"s5_domains": "scoring", "s5_points": "2"}, {"full_map_end": "at_once"}])
def test_random_games_trace_every_round_and_end_on_the_final_score(rules):
    params = G.Params.from_overrides(rules)
    for seed in range(8):
        chance, pick = random.Random(seed), random.Random(seed + 50)
        s = G.initial_state(params, 2, chance)
        while not G.is_terminal(s):
            legal = G.legal_actions(s)
            rnd = s.round
            G.apply(s, legal[int(pick.random() * len(legal))], chance)
            if s.round > rnd or G.is_terminal(s):
                assert len(s.history) == rnd and s.history[-1] == rescored(s)
        assert len(s.history) == s.round
        assert [m["score_trace"] for m in G.metrics(s)] == [tuple(h[seat] for h in s.history) for seat in (0, 1)]
        assert list(s.history[-1]) == G.scores(s)
    back = G.state_from_dict(json.loads(json.dumps(G.state_to_dict(s))))
    assert back.history == s.history and back == s


# --------------------------------------------------------------------------------------------
# Rulings: must_draw, end conditions, tie-break, hidden drawing
# --------------------------------------------------------------------------------------------

def test_must_draw_off_allows_drawing_nothing():
    s = make(roll=("dot", "stripe", "dot", "black"))
    assert PASS not in G.legal_actions(s)
    s = make(roll=("dot", "stripe", "dot", "black"), rules={"must_draw": "off"})
    assert PASS in G.legal_actions(s)


def test_only_spell_placements_let_the_player_pass_or_use_the_spell():
    full = ["dt dt dt dt dt dt dt", "dt dt dt dt dt dt dt", ". . dt ## dt dt dt", "dt dt dt dt dt dt dt",
            "dt dt dt dt dt dt dt"]
    s = make(maps=(full, EMPTY_MAP), roll=("stripe", "black", "dot", "black"), spell_owner=owning([R.S1]))
    legal = G.legal_actions(s)
    assert PASS in legal and Place(cell(2, 0), cell(2, 1), 2, 5, "S1") in legal
    assert not any(type(p) is Place and not p.spell for p in legal)


def neither_draws(s):
    rng = random.Random(0)
    G.apply(s, PASS, rng)
    G.apply(s, PASS, rng)


def test_game_ends_after_a_round_in_which_neither_player_drew():
    full = ["dt dt dt dt dt dt dt", "dt dt dt dt dt dt dt", ". dt dt ## dt dt .", "dt dt dt dt dt dt dt",
            "dt dt dt dt dt dt dt"]
    s = make(maps=(full, full))
    assert s.stuck == [1, 0]
    neither_draws(s)
    assert s.phase == "over" and s.end == "no_draw" and G.legal_actions(s) == []


def test_stalemate_neither_could_ignores_a_declined_spell():
    full = ["dt dt dt dt dt dt dt", "dt dt dt dt dt dt dt", ". . dt ## dt dt dt", "dt dt dt dt dt dt dt",
            "dt dt dt dt dt dt dt"]
    for rule, over in (("neither_drew", True), ("neither_could", False)):
        s = make(maps=(full, full), roll=("stripe", "black", "stripe", "black"), spell_owner=owning([R.S1]),
                 rules={"stalemate_end": rule})
        neither_draws(s)
        assert (s.phase == "over") is over, rule


def test_full_map_ends_the_game_after_the_round_or_at_once():
    almost = ["dt dt dt dt dt dt dt", "dt dt dt dt dt dt dt", "dt dt . ## dt dt dt", "dt dt . dt dt dt dt",
              "dt dt dt dt dt dt dt"]
    for rule in ("finish_round", "at_once"):
        s = make(maps=(almost, EMPTY_MAP), roll=("black", "black", "black", "black"), rules={"full_map_end": rule},
                 boxes=[[0, 0, 0, 0, 0, 1], [0] * 6])
        play_round(s, Place(cell(2, 2), cell(3, 2), 5, 5, ""), Place(cell(1, 3), cell(0, 3), 5, 5, ""))
        if rule == "finish_round":
            # the spellbook step ran: seat 0 completed black (S5) and chooses its coat
            assert s.phase == "spell" and s.spell_owner[R.S5] == 0
            G.apply(s, ChooseCoat(5), random.Random(0))
        else:
            assert s.boxes[0][5] == 1 and s.spell_owner[R.S5] == -1
        assert s.phase == "over" and s.end == "full_map" and s.maps[1].n_empty == 32


def test_max_rounds_caps_the_game():
    s = make(round=3, rules={"max_rounds": "3"}, roll=("dot", "stripe", "dot", "black"))
    play_round(s, Place(cell(1, 3), cell(0, 3), 0, 2, ""), Place(cell(1, 3), cell(0, 3), 0, 5, ""))
    assert s.phase == "over" and s.end == "max_rounds" and G.metrics(s)[0]["rounds"] == 3


def test_tie_break_largest_domain_then_shared():
    big = ["dt+ dt . . . . .", ". . . . . . .", ". . . ## . . .", ". . . . . . .", "st st st . . . ."]
    small = ["dt+ dt . . . . .", ". . . . . . .", ". . . ## . . .", ". . . . . . .", ". . . . . . ."]
    s = make(maps=(small, big))
    assert G.scores(s) == [2, 2]
    assert G.winners(s) == [1]  # a 3-cell stripe domain, scoring or not
    assert G.winners(make(maps=(small, big), rules={"tie_break": "scoring_domain"})) == [0, 1]
    assert G.winners(make(maps=(small, big), rules={"tie_break": "shared"})) == [0, 1]
    assert G.winners(make(maps=(small, small))) == [0, 1]


def test_seat_bonus_variant_adds_start_points_and_can_change_the_winner():
    big = ["dt+ dt . . . . .", ". . . . . . .", ". . . ## . . .", ". . . . . . .", "st st st . . . ."]
    small = ["dt+ dt . . . . .", ". . . . . . .", ". . . ## . . .", ". . . . . . .", ". . . . . . ."]
    s = make(maps=(small, big), rules={"seat_bonus": "1/0"})
    assert G.scores(s) == [3, 2] and G.winners(s) == [0]  # the point decides before the tie-break
    s = make(maps=(small, big), rules={"seat_bonus": "2"})
    assert G.scores(s) == [4, 4] and G.winners(s) == [1]  # equal bonuses: the tie-break as before
    # the score trace counts the bonus from the first round on
    s = make(roll=("dot+1", "dot", "stripe", "black"), rules={"seat_bonus": "0/3"})
    play_round(s, Place(cell(1, 3), cell(0, 3), 0, 0, ""), Place(cell(1, 3), cell(0, 3), 2, 5, ""),
               bonus=(Castle(cell(0, 3)), NO_BONUS))
    assert s.history == [(2 * 2, 3)]
    with pytest.raises(InputError, match="3 values.*2 seats"):
        G.Params.from_overrides({"seat_bonus": "0/1/2"})


def test_the_other_players_drawing_is_hidden_until_both_have_drawn():
    s = make(roll=("dot", "stripe", "dot", "black"), spell_owner=owning([R.S4]))
    rng = random.Random(0)
    G.apply(s, Turn(1, 4, 0), rng)
    G.apply(s, Place(cell(1, 3), cell(0, 3), 0, 4, ""), rng)
    G.apply(s, Castle(cell(0, 3)), rng)
    v = G.view(s, 1)
    assert v.maps[0].n_empty == 34 and v.pending is None and not v.spell_used[R.S4]
    assert v.castle_round == [0, 0] and not hasattr(v, "_s")
    assert list(v.faces) == [(0, 0), (5, 0)] and v.hand == [2, 3]  # seat 1's own dice
    assert (v.turned, v.bonus, v.role) == (False, -1, "B")  # not seat 0's S4 turn or castle bonus
    assert (s.turned[0], s.bonus[0]) == (True, cell(0, 3))
    G.apply(s, Place(cell(1, 3), cell(0, 3), 0, 5, ""), rng)
    G.apply(s, NO_BONUS, rng)
    v = G.view(s, 1)
    assert v.maps[0].n_empty == 32 and v.spell_used[R.S4] and v.castle_round[0] == 1


def test_dice_come_from_the_rng_handed_to_the_rules():
    a = G.initial_state(G.Params(), 2, random.Random(9))
    b = G.initial_state(G.Params(), 2, random.Random(9))
    assert a.roll == b.roll
    rolls = {tuple(G.initial_state(G.Params(), 2, random.Random(k)).roll) for k in range(30)}
    assert len(rolls) > 20


# --------------------------------------------------------------------------------------------
# State JSON, actions, display
# --------------------------------------------------------------------------------------------

def test_state_round_trip_and_malformed_states(tmp_path):
    # seat 0 drew S1, so its map may hold drawings cut off from the castle
    s = make(maps=(SCORED, EMPTY_MAP), spell_owner=owning([R.S1, R.S5]), spell_used=[True] + [False] * 5,
             s5_coat="dot")
    d = json.loads(json.dumps(G.state_to_dict(s)))
    back = G.state_from_dict(d)
    assert back == s and G.state_to_dict(back) == d and G.scores(back) == G.scores(s) == [6 + 2 * 3, 0]  # S5: dot
    assert d["maps"][0] == grid(SCORED) and d["roll"] == [[0, 0]] * 4 and d["s5_coat"] == 0
    _load(tmp_path, d)  # the unchanged state loads
    maps = [grid(SCORED), grid(EMPTY_MAP)]
    wrong = json.loads(json.dumps(maps))
    wrong[0]["coat"][0][0] = 9
    castles = json.loads(json.dumps(maps))
    castles[0]["coat"][0][0] = R.CASTLE
    crossed = json.loads(json.dumps(maps))
    crossed[0]["cross"][0][6] = 1  # an empty cell
    narrow = json.loads(json.dumps(maps))
    narrow[1] = {k: [row[:6] for row in v] for k, v in narrow[1].items()}
    for key, value, problem in [("maps", wrong, "maps[0]"), ("maps", castles, "castle"),
                                ("maps", crossed, "crosses"), ("maps", narrow, "maps[1] is 6 x 5"),
                                ("phase", "bidding", "phase"), ("current", 2, "current"),
                                ("boxes", [[9, 0, 0, 0, 0, 0], [0] * 6], "boxes"),
                                ("roll", [[0, 0]], "roll"), ("hand", [[0, 0], [2, 3]], "hand"),
                                ("pending", [[0, 0, 0, 0, ""], None], "pending drawing of seat 0"),
                                ("pending", [[cell(0, 0), cell(0, 1), 0, 0, ""], None], "pending drawing of seat 0"),
                                ("phase", "draft_b", "first pick"),
                                ("phase", "draft_a", "no die has an owner")]:
        bad = dict(d)
        bad[key] = value
        with pytest.raises(InputError) as e:
            _load(tmp_path, bad)
        msg = str(e.value)
        assert problem in msg and "\n" not in msg and msg.startswith("--state"), msg
    with pytest.raises(InputError, match="maps: missing"):
        G.state_from_dict({k: v for k, v in d.items() if k != "maps"})


def test_actions_round_trip_and_read_well():
    for a in (Draft((1,)), Draft((0, 2)), Draft((0, 2), "S3"), Place(cell(1, 2), cell(1, 3), 0, 5, "S2"), PASS, Turn(1, -1, 0),
              Castle(cell(0, 1)), NO_BONUS, ChooseCoat(3), AddCross(cell(4, 6))):
        assert G.action_from_json(json.loads(json.dumps(G.action_to_json(a)))) == a
    assert G.describe_action(Place(cell(1, 2), cell(1, 3), 0, 5, "S2")) == "draw dot at (1,2) and black at (1,3) using S2"
    with pytest.raises(InputError):
        G.action_from_json({"fly": 1})


def test_describe_state_draws_both_maps_and_the_spellbook():
    s = make(maps=(SCORED, EMPTY_MAP), boxes=[[2, 0, 0, 0, 0, 0], [0] * 6])
    text = G.describe_state(s)
    assert "seat 0 (A): 6 points" in text and "seat 1 (B): 0 points" in text
    assert "dt+" in text and "[##]" in text
    assert "dot            S1  5 boxes" in text and "##..." in text


# --------------------------------------------------------------------------------------------
# Strategies
# --------------------------------------------------------------------------------------------

def test_greedy_draws_the_placement_with_the_largest_gain():
    rng = random.Random(3)
    g = make_strategy("greedy", G.id)
    checked = 0
    for seed in range(40):
        s = G.initial_state(G.Params(), 2, random.Random(seed))
        while not G.is_terminal(s) and checked < 300:
            legal = G.legal_actions(s)
            if s.phase == "place" and any(type(a) is Place and not a.spell for a in legal) and \
                    s.spell_owner[R.S5] != s.current:
                g.reset(s.current, s.params, 2)
                g._key = None
                pick = g.choose(G.view(s, s.current), legal, None)
                if type(pick) is Place and not pick.spell:
                    m = s.maps[s.current]
                    f0, f1 = s.faces[s.current]
                    gains = [R.pair_gain(m, a.cell0, a.cell1, a.coat0, a.coat1, f0[1], f1[1])
                             for a in legal if type(a) is Place and not a.spell]
                    assert R.pair_gain(m, pick.cell0, pick.cell1, pick.coat0, pick.coat1, f0[1], f1[1]) == max(gains)
                    checked += 1
            G.apply(s, legal[int(rng.random() * len(legal))], random.Random(seed))
    assert checked > 100


def test_builtin_strategies_beat_random():
    specs = ["greedy", "random"]
    wins = 0
    for seed in range(30):
        strats = [make_strategy(x, G.id) for x in specs]
        final = play_game(G, G.Params(), strats, specs, seed)
        wins += 0 in G.winners(final)
    assert wins >= 25


def test_builder_weights_trade_crosses_against_domain_size():
    rows = ["dt dt . . . . .", ". . . . . . .", ". . . ## . . .", ". . . . . . .", ". . . . . . ."]
    s = make(maps=(rows, EMPTY_MAP), phase="draft_a", roll=("dot", "black+1", "stripe", "quarters"),
             hand=((), ()), faces=[[], []])
    legal = G.legal_actions(s)
    picks = {}
    for spec in ("builder:crosses=0,size=5", "builder:crosses=5,size=0"):
        st = make_strategy(spec, G.id)
        st.reset(0, s.params, 2)
        picks[spec] = st.choose(G.view(s, 0), legal, None)
    # a dot next to the dot domain is worth size; the black die's cross is worth crosses
    assert picks == {"builder:crosses=0,size=5": Draft((0,)), "builder:crosses=5,size=0": Draft((1,))}


# --------------------------------------------------------------------------------------------
# Every option through whole games
# --------------------------------------------------------------------------------------------

OPTION_SETS = [{}, {"must_draw": "off"}, {"stalemate_end": "neither_could"}, {"s4_faces": "any"},
               {"combine_spells": "on"}, {"s5_domains": "scoring", "s5_points": "1"}, {"cross_cap": "1"},
               {"castle_bonus": "off"}, {"full_map_end": "at_once"}, {"tie_break": "scoring_domain"},
               {"max_rounds": "5"}]


def random_games(rules, seeds, check=True):
    params = G.Params.from_overrides(rules)
    ends = []
    for seed in seeds:
        chance, pick = random.Random(seed), random.Random(seed + 7)
        s = G.initial_state(params, 2, chance)
        steps = 0
        while not G.is_terminal(s):
            legal = G.legal_actions(s)
            assert legal
            G.apply(s, legal[int(pick.random() * len(legal))], chance)
            steps += 1
            if check:
                G.check_invariants(s)
            assert steps < 20000
        assert s.round <= params.max_rounds
        ends.append(s.end)
    return ends


@pytest.mark.parametrize("rules", OPTION_SETS, ids=lambda r: ",".join(f"{k}={v}" for k, v in r.items()) or "defaults")
def test_random_games_under_every_option_keep_the_invariants(rules):
    ends = random_games(rules, range(6))
    assert set(ends) <= set(R.ENDS)
    if rules == {"max_rounds": "5"}:
        assert ends == ["max_rounds"] * 6


@pytest.mark.soak
def test_soak_many_games_under_every_option():
    for rules in OPTION_SETS:
        random_games(rules, range(300))
    specs = ["greedy", "spells"]
    for seed in range(500):
        final = play_game(G, G.Params(), [make_strategy(x, G.id) for x in specs], specs, seed)
        G.check_invariants(final)


def test_a_spell_gained_in_a_round_is_usable_from_the_next_round_and_s4_combines_with_s1():
    s = make(roll=("dot", "stripe", "dot", "black"), boxes=[[4, 0, 0, 0, 0, 0], [0] * 6])
    assert not any(type(a) is Place and a.spell for a in G.legal_actions(s))
    play_round(s, Place(cell(1, 3), cell(0, 3), 0, 2, ""), Place(cell(1, 3), cell(0, 3), 0, 5, ""))
    assert s.spell_owner[R.S1] == 0 and s.spell_round[R.S1] == 1 and s.round == 2
    # round 2: seat 1 is A; seat 0 (B) may now draw with S1
    rng = random.Random(0)
    G.apply(s, Draft((0,)), rng)
    G.apply(s, Draft((1, 2)), rng)
    G.apply(s, G.legal_actions(s)[0], rng)  # A (seat 1) draws
    if s.phase == "castle":
        G.apply(s, NO_BONUS, rng)
    assert s.current == 0 and any(type(a) is Place and a.spell == "S1" for a in G.legal_actions(s))
    # S4 and S1 in one round: after an S4 turn the S1 placements are still offered
    s = make(roll=("dot", "stripe", "dot", "black"), spell_owner=owning([R.S1, R.S4]))
    G.apply(s, next(a for a in G.legal_actions(s) if type(a) is Turn), random.Random(0))
    assert any(type(a) is Place and a.spell == "S1" for a in G.legal_actions(s))


def test_play_trace_names_spells_passes_rounds_and_the_end():
    s = make(roll=("black", "dot", "black", "stripe"), boxes=[[0, 0, 0, 0, 0, 2], [0] * 6])
    rng = random.Random(0)
    G.apply(s, Place(cell(1, 3), cell(0, 3), 5, 0, ""), rng)
    G.apply(s, NO_BONUS, rng)
    G.apply(s, Place(cell(1, 3), cell(0, 3), 5, 2, ""), rng)
    before = G.clone_state(s)
    G.apply(s, Castle(cell(1, 3)), rng)
    events = G.step_events(before, Castle(cell(1, 3)), s)
    assert events == ["seat 1 used the castle bonus",
                      "SPELL: seat 0 completed the black row and gains S5; seat 1's black row is struck"]
    before = G.clone_state(s)
    G.apply(s, ChooseCoat(5), rng)
    events = G.step_events(before, ChooseCoat(5), s)
    assert len(events) == 1 and events[0].startswith("round 2: seat 1 is A and rolls ")
    full = ["dt dt dt dt dt dt dt", "dt dt dt dt dt dt dt", ". dt dt ## dt dt .", "dt dt dt dt dt dt dt",
            "dt dt dt dt dt dt dt"]
    s = make(maps=(full, full))
    G.apply(s, PASS, rng)
    before = G.clone_state(s)
    G.apply(s, PASS, rng)
    assert G.step_events(before, PASS, s) == ["seat 0 drew nothing this round", "seat 1 drew nothing this round",
                                              "game over after round 1: neither player drew this round; scores 0 - 0"]
    assert "(row,column)" in G.trace_legend


def test_same_seed_same_results_for_any_jobs_and_batch_size():
    import pandas as pd

    from analyser import run as runmod

    def run(**kw):
        spec = runmod.RunSpec(game="kingdomino-duel", strategies=["greedy", "builder:crosses=2,size=0"],
                              players=2, games=24, seed=9, **kw)
        return runmod.run(spec, progress=False)
    a, b = run(jobs=1, batch_size=5), run(jobs=2, batch_size=11)
    pd.testing.assert_frame_equal(a.results.drop(columns="run_id"), b.results.drop(columns="run_id"))
    assert set(a.results["end"]) <= {"full_map", "no_draw"} and a.results["rounds"].min() > 5


def test_resample_hidden_redraws_only_the_unrevealed_drawing():
    from analyser.kit.check import view_data
    s = make(roll=("dot", "stripe", "dot", "black"), spell_owner=owning([R.S4]))
    rng = random.Random(0)
    G.apply(s, Turn(1, 4, 0), rng)
    G.apply(s, Place(cell(1, 3), cell(0, 3), 0, 4, ""), rng)
    G.apply(s, Castle(cell(0, 3)), rng)
    seen = set()
    for k in range(30):
        t = G.resample_hidden(s, 1, random.Random(k))
        assert view_data(G.view(t, 1)) == view_data(G.view(s, 1))
        assert G.legal_actions(t) == G.legal_actions(s)
        G.check_invariants(t)
        seen.add((t.pending[0], tuple(t.faces[0]), t.bonus[0]))
    assert len(seen) > 10  # seat 0's drawing, faces and bonus really are drawn again
    # seat 0 sees its own drawing: nothing of it is redrawn for seat 0
    t = G.resample_hidden(s, 0, random.Random(1))
    assert t.pending == s.pending and t.faces == s.faces and t.bonus == s.bonus


# -- saved states: the schema and the turn order (analyser play --state) ------------------------

def _mid_game_state(kind):
    """A state of a real game (seed 4) in the first decision of phase ``kind``, as a dict."""
    rng = random.Random(4)
    s = G.initial_state(G.Params(), 2, rng)
    while s.phase != kind:
        legal = G.legal_actions(s)
        G.apply(s, legal[int(rng.random() * len(legal))], rng)
    return json.loads(json.dumps(G.state_to_dict(s)))


def _load(tmp_path, data):
    from analyser.io.states import load_state
    p = tmp_path / "state.json"
    p.write_text(json.dumps(data))
    return load_state(G, p)


@pytest.mark.parametrize("key, value, problem", [
    ("passes", [0], "passes: List should have at least 2 items"),  # found by the soak: accepted, then IndexError in play
    ("stuck", [0, 0, 0], "stuck"),
    ("turned", [0, False], "turned[0]: should be a valid boolean"),
    ("could", ["yes", True], "could[0]"),
    ("round", "3", "round: should be a valid integer"),
    ("owner", [0, 1, 0], "owner"),
    ("spell_used", [False] * 5, "spell_used"),
    ("queue", [[0, "S3"]], "queue[0][1]"),
    ("pending", [[0, 1, 0, 0, "S9"], None], "pending[0]"),
    ("bonus", [999, -1], "bonus[0]"),
    ("spell_round", [99, 0, 0, 0, 0, 0], "spell_round[0] is 99, after the current round"),
])
def test_a_malformed_saved_state_is_refused_by_the_schema_in_one_line(tmp_path, key, value, problem):
    data = _mid_game_state("place")
    data[key] = value
    with pytest.raises(InputError) as e:
        _load(tmp_path, data)
    msg = str(e.value)
    assert problem in msg and "\n" not in msg and msg.startswith("--state"), msg


@pytest.mark.parametrize("kind, change, problem", [
    ("draft_b", lambda d: d.update(current=d["a"]), "in phase draft_b seat"),
    ("draft_a", lambda d: d.update(current=1 - d["a"]), "in phase draft_a seat"),
    ("draft_a", lambda d: d.update(hand=[[0], []]), "during the draft no seat holds dice"),
    ("place", lambda d: d.update(hand=[d["hand"][1], d["hand"][0]]), "is not the dice it owns"),
    ("place", lambda d: d.update(current=1 - d["a"]), "has not drawn yet"),
    ("place", lambda d: d.update(turned=[True, True]), "does not hold S4"),
])
def test_a_saved_state_out_of_turn_order_is_refused(tmp_path, kind, change, problem):
    data = _mid_game_state(kind)
    _load(tmp_path, data)  # the unchanged state loads
    change(data)
    with pytest.raises(InputError) as e:
        _load(tmp_path, data)
    assert problem in str(e.value) and "\n" not in str(e.value), str(e.value)


def _draw_on_a_far_corner(d):
    rows = d["maps"][0]["coat"]
    assert rows[0][0] == -1 and rows[1][0] == -1 and rows[0][1] == -1  # empty, and nothing drawn beside it
    rows[0][0] = 0


@pytest.mark.parametrize("change", [
    _draw_on_a_far_corner,  # a drawing cut off from the castle with no S1 drawn
    lambda d: d.update(history=[[99, 99]]),  # a score pair for a round that has not finished
    lambda d: d.update(bonus=[3, -1]),  # a castle bonus on a cell its drawing does not use
])
def test_a_saved_state_no_game_reaches_is_refused_in_one_line(tmp_path, change):
    data = _mid_game_state("place")
    assert data["round"] == 1 and _load(tmp_path, data).history == []  # the unchanged state loads
    change(data)
    with pytest.raises(InputError) as e:
        _load(tmp_path, data)
    assert str(e.value).startswith("--state") and "\n" not in str(e.value)


def test_a_saved_state_from_mid_game_loads_and_plays_to_the_end(tmp_path):
    for kind in ("draft_a", "draft_b", "place", "castle"):
        s = _load(tmp_path, _mid_game_state(kind))
        assert s.phase == kind
        rng = random.Random(1)
        while not G.is_terminal(s):
            legal = G.legal_actions(s)
            G.apply(s, legal[int(rng.random() * len(legal))], rng)
        G.check_invariants(s)
        assert s.end in R.ENDS


# -- report figures reduced chunk by chunk (issue 9) ---------------------------------------------

#: Under pytest-xdist (--dist loadgroup) this file's tests run in one worker, so its module-scoped
#: fixtures are built once, not once per worker.
pytestmark = pytest.mark.xdist_group("test_kingdomino_duel")


@pytest.fixture(scope="module")
def small_run():
    from analyser import run as runmod
    spec = runmod.RunSpec(game="kingdomino-duel", strategies=["greedy", "builder:crosses=2,size=0"], players=2,
                          games=40, seed=3, jobs=1)
    return runmod.run(spec, progress=False)


def _chunked_sums(results, extras, chunk_games):
    from analyser.stats.streamed import chunk_frame, reduce_sums
    return reduce_sums(G.figure_sums(r, e) for r, e in chunk_frame(results, extras, chunk_games))


def test_figure_tables_from_many_chunks_equal_one_chunk_and_plain_pandas(small_run):
    import pandas as pd

    df = small_run.results
    many = G.figure_tables_from(_chunked_sums(df, small_run.extras, 7))
    one = G.figure_tables_from(G.figure_sums(df, small_run.extras))
    assert [c for c, _ in many] == [c for c, _ in one] and len(many) == 5
    for (_, a), (_, b) in zip(many, one):
        pd.testing.assert_frame_equal(a, b, check_exact=False, rtol=1e-9, atol=1e-9)
    assert G.figure_tables(df, small_run.extras)[0][1].equals(one[0][1])  # the core composes the two steps
    # the score split, computed directly on the whole frame
    split = many[0][1].set_index("strategy")
    assert list(split.index) == ["greedy", "builder:crosses=2,size=0"]  # the run's order
    for name, sub in df.groupby(df["strategy"].astype(str)):
        for col in ("score", "domain_points", "spell_points", "spells", "crosses", "empty_cells", "passes"):
            assert abs(split.loc[name, col] - sub[col].mean()) < 1e-9
        assert abs(split.loc[name, "castle_bonus_share"] - (sub["castle_round"] > 0).mean()) < 1e-9
    # spells: share of games with the spell gained; the share of those gains by seat 0
    spells = many[1][1].set_index(many[1][1]["spell"].str[:2])
    n_games = df["game_index"].nunique()
    for k in range(1, 7):
        got = df[df[f"gained_s{k}"] > 0]
        assert abs(spells.loc[f"S{k}", "gained_share"] - len(got) / n_games) < 1e-9
        if len(got):
            assert abs(spells.loc[f"S{k}", "first_mover_share"] - (got["seat"] == 0).mean()) < 1e-9
            assert abs(spells.loc[f"S{k}", "mean_round"] - got[f"gained_s{k}"].mean()) < 1e-9
    # how games ended: one row per game, from the first seat's row
    ends = many[4][1].set_index("end")
    first = df[df["seat"] == 0]
    assert ends.loc["all games", "games"] == n_games == 40
    assert abs(ends.loc["all games", "mean_rounds"] - first["rounds"].mean()) < 1e-9
    assert abs(ends.loc["all games", "mean_empty_cells_both"] - df["empty_cells"].sum() / n_games) < 1e-9
    for end, sub in first.groupby("end"):
        assert ends.loc[end, "games"] == len(sub)


def test_figure_tables_keep_the_order_of_first_appearance_without_categories(small_run):
    df = small_run.results.assign(strategy=small_run.results["strategy"].astype(str))
    split = G.figure_tables_from(_chunked_sums(df, small_run.extras, 7))[0][1]
    assert list(split["strategy"]) == ["greedy", "builder:crosses=2,size=0"]


def test_plots_from_combined_sums_write_the_pngs(small_run, tmp_path):
    from analyser.stats.plots import label
    sums = _chunked_sums(small_run.results, small_run.extras, 7)
    files = G.plots_from(sums, tmp_path, [label(s) for s in ("greedy", "builder:crosses=2,size=0")])
    assert [f for f, _ in files] == ["score_split.png", "spells.png", "spell_value.png"]
    assert all((tmp_path / f).stat().st_size > 1000 for f, _ in files)


def test_figure_sums_are_small(small_run):
    sums = _chunked_sums(small_run.results, small_run.extras, 7)
    assert set(sums) == {"kd_strategy", "kd_spells", "kd_ends", "kd_spell_value"}
    assert sums["kd_spell_value"].shape[0] == 12  # spell x (used, not used)
    assert sums["kd_strategy"].shape[0] == 2  # one row per strategy
    assert sums["kd_spells"].shape[0] <= 6 * 2 * 2  # spell x mover x role
    assert sums["kd_ends"].shape[0] <= len(R.ENDS)
    assert sums["kd_strategy"]["players"].sum() == 80  # every seat of every game counted once
    assert all(f.to_numpy().size < 100 for f in sums.values())


def test_spell_use_and_value_tables_match_plain_pandas_and_statsmodels(small_run):
    import numpy as np
    from statsmodels.stats.proportion import proportion_confint

    df = small_run.results
    tables = dict(G.figure_tables_from(_chunked_sums(df, small_run.extras, 7)))
    use = next(v for k, v in tables.items() if k.startswith("Spell use by strategy"))
    assert use.attrs["percent"] == ["gained_share", "used_share", "used_when_gained"]
    use = use.assign(sp=use["spell"].str[:2]).set_index(["strategy", "sp"])
    for name, sub in df.groupby(df["strategy"].astype(str)):
        for k in range(1, 7):
            row = use.loc[(name, f"S{k}")]
            used, gained = sub[f"used_s{k}"] > 0, sub[f"gained_s{k}"] > 0
            assert abs(row["used_share"] - used.mean()) < 1e-12 and abs(row["gained_share"] - gained.mean()) < 1e-12
            if gained.any():
                assert abs(row["used_when_gained"] - used.sum() / gained.sum()) < 1e-12
            assert not (used & ~gained).any()  # a seat uses only a spell it gained
    value = next(v for k, v in tables.items() if k.startswith("Spell value, an association"))
    value = value.set_index(value["spell"].str[:2])
    checked = 0
    for k in range(1, 7):
        used = df[f"used_s{k}"] > 0
        for key, mask in (("used", used), ("not", ~used)):
            n, wins = int(mask.sum()), float(df.loc[mask, "win"].sum())
            assert value.loc[f"S{k}", f"seats_{key}"] == n
            if n:
                low, high = proportion_confint(wins, n, alpha=0.05, method="wilson")
                assert abs(value.loc[f"S{k}", f"{key}_win_rate"] - wins / n) < 1e-12
                assert abs(value.loc[f"S{k}", f"{key}_win_low"] - min(low, wins / n)) < 1e-12
                assert abs(value.loc[f"S{k}", f"{key}_win_high"] - max(high, wins / n)) < 1e-12
                checked += 1
        rates = value.loc[f"S{k}", ["used_win_rate", "not_win_rate"]].to_numpy(dtype=float)
        assert np.isnan(value.loc[f"S{k}", "difference_pp"]) or abs(
            value.loc[f"S{k}", "difference_pp"] - 100 * (rates[0] - rates[1])) < 1e-9
    assert checked >= 8


def test_results_written_before_the_used_columns_are_refused_in_one_line(small_run, tmp_path):
    """A results table without the used_s1..used_s6 columns (an older version's) is refused:
    exit 2, one line naming the file."""
    path = tmp_path / "old.csv"
    small_run.results.drop(columns=[f"used_s{k}" for k in range(1, 7)]).to_csv(path, index=False)
    r = CliRunner().invoke(cli, ["report", str(path), "--out", str(tmp_path / "rep")])
    lines = [x for x in r.output.splitlines() if x.strip()]
    assert r.exit_code == 2 and len(lines) == 1 and str(path) in lines[0], r.output


def test_the_score_split_legend_covers_no_bar_or_label(small_run, tmp_path, monkeypatch):
    from analyser.stats import plots as base
    from analyser.stats.plots import label
    seen = {}
    save = base.save

    def spy(fig, path, caption):
        if path.name == "score_split.png":
            fig.canvas.draw()
            ax = fig.axes[0]
            r = fig.canvas.get_renderer()
            seen["legend"] = ax.get_legend().get_window_extent(r)
            seen["bars"] = [p.get_window_extent(r) for p in ax.patches]
            seen["labels"] = [x.get_window_extent(r) for x in ax.texts]
            seen["axes"] = ax.get_window_extent(r)
        return save(fig, path, caption)
    monkeypatch.setattr(base, "save", spy)
    G.plots_from(_chunked_sums(small_run.results, small_run.extras, 7), tmp_path,
                 [label(s) for s in ("greedy", "builder:crosses=2,size=0")])
    legend = seen["legend"]
    assert len(seen["bars"]) == 4 and len(seen["labels"]) == 2
    for box in seen["bars"] + seen["labels"]:
        assert not legend.overlaps(box)
        assert box.x1 <= seen["axes"].x1 + 1  # the totals' labels stay inside the axes


# --------------------------------------------------------------------------------------------
# Components (component impact)
# --------------------------------------------------------------------------------------------

def test_components_are_the_faces_drawn_by_die_and_the_spells_gained():
    s = make(roll=("black", "dot", "black", "stripe"), boxes=[[0, 0, 0, 0, 0, 2], [0, 0, 0, 0, 0, 1]])
    s.tally = [[], []]
    play_round(s, Place(cell(1, 3), cell(0, 3), 5, 0, ""), Place(cell(1, 3), cell(0, 3), 5, 2, ""))
    assert G.components(s) == [["die 1 black", "die 2 dot", "S5"], ["die 3 black", "die 4 stripe"]]
    # a player who draws nothing records no face; an S4 turn records the face drawn
    s = make(roll=("dot", "quarters", "dot", "black"), spell_owner=owning([R.S4]))
    s.tally = [[], []]
    G.apply(s, Turn(0, R.COATS.index("double-dot"), 1), random.Random(0))
    play_round(s, G.legal_actions(s)[0], PASS)
    assert G.components(s)[0][:2] == ["die 1 double-dot+1", "die 2 quarters"] and G.components(s)[1] == []
    catalog = G.component_catalog(G.Params())
    assert numbers(catalog["die 1 dot"]["what"]) == [2, 6, 1] and catalog["die 1 dot"]["line"] == 21  # faces of die 1
    assert catalog["S5"]["what"].startswith("spell S5:") and "black" in catalog["S5"]["what"].split()
    assert numbers(catalog["S5"]["what"]) == [5, 3]
    assert len([c for c in catalog if c.startswith("die")]) == 23 and G.initial_state(G.Params(), 2,
                                                                                       random.Random(0)).tally == [[], []]
