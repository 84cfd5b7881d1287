"""A seat compensation checked by replaying it (issue 28, section 3): ``simulate --confirm-seats``
plays the run's games again (same seed, same lineups) with the proposed start bonus, and the seat
finding says what the replay showed - "clear" only when the replay's interval holds the fair
share, else the over- or under-shoot and the closest value a short bisection found.

Pig is tests/pig_title.py (a race with a ``start_bonus`` option): between hold:20 and hold:25 the
start bonus that evens the seats is 5-6 points, where the one read from the recorded scores is
about +16."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analyser.cli import cli
from analyser.experiments import seat_confirm
from analyser.run import RunSpec, run
from analyser.stats import seats

PIG = str(Path(__file__).with_name("pig_title.py")) + ":Pig"
PLAIN = str(Path(__file__).with_name("pig_title.py")) + ":PlainPig"


def invoke(runner, *args):
    return runner.invoke(cli, [str(a) for a in args], catch_exceptions=False)


def record_of(out: Path) -> dict:
    (rec,) = json.loads((out / "config.json").read_text())["seat_confirmations"].values()
    return rec


def seat_finding(out: Path) -> dict:
    from analyser.report.page import summarise_run
    (f,) = [f.to_json() for f in summarise_run(out).parts[0].findings.topic("seat advantage")]
    return f


def pct(r: dict) -> str:
    return f"{100 * r['win']:.1f}% (95% CI {100 * r['low']:.1f}-{100 * r['high']:.1f}%)"


def test_pig_replay_shows_the_first_players_measured_win_rate_and_the_report_says_it(runner, tmp_path):
    out = tmp_path / "out"
    r = invoke(runner, "simulate", PIG, "-s", "hold:n=20", "-s", "hold:n=25", "--games", 800, "--seed", 3,
               "--jobs", 1, "--out", out, "--confirm-seats")
    assert r.exit_code == 0, r.output
    rec = record_of(out)
    assert rec["replayed"] and rec["option"] == "start_bonus" and rec["seat"] == 0 and rec["fair"] == 0.5
    f = seat_finding(out)
    h = f["compensation"][1]["handicap"]
    assert h > 8 and rec["value"] == f"0/{int(h)}"  # the proposal read from the scores, replayed as it is
    # the replay's figure is the first seat's win rate over the same games played with the bonus
    again = run(RunSpec(game=PIG, strategies=["hold:n=20", "hold:n=25"], games=800, seed=3, jobs=1,
                        rules={"start_bonus": rec["value"]}), progress=False).results
    assert rec["win"] == pytest.approx(again[again["seat"] == 0]["win"].mean())
    assert rec["low"] < rec["win"] < rec["high"]
    text = (f"checked by replay of the same 800 games: with start_bonus={rec['value']} seat 0, the first to play, "
            f"wins {pct(rec)} against a fair share of 50.0%")
    assert text in f["sentence"] and "not replayed" not in f["sentence"]
    assert rec["clear"] == (rec["low"] <= 0.5 <= rec["high"])
    holds = [t["value"] for t in rec["tried"] if t["t"] and t["low"] <= 0.5 <= t["high"]]
    assert f["compensation_check"] == ("clear" if rec["clear"] or holds else "not clear")
    # the read +16ish over-shoots: the first player ends below its share, and the bisection between
    # 0 and the proposal (at most 4 more replays) names the closest value with its figure
    assert rec["direction"] == "over" and "over-shoots (seat 0 now wins less than its share)" in f["sentence"]
    tried = [t["t"] for t in rec["tried"]]
    assert tried[0] == 0 and tried[-1] == int(h) and len(tried) <= 2 + seat_confirm.MORE_REPLAYS
    assert all(0 <= t <= h for t in tried)
    close = rec["closest"]
    if holds:  # a bisection value whose interval holds the fair share evens the seats: the nearest such
        assert rec["evens"] == close["value"] and close["value"] in holds
        assert f"start_bonus={close['value']} evens the seats: seat 0 wins {pct(close)}, clear" in f["sentence"]
        assert "the proposal over-shoots" in f["sentence"] and "not clear" not in f["sentence"]
    else:
        assert rec["evens"] is None and "the compensation over-shoots" in f["sentence"]
        assert abs(close["win"] - 0.5) == min(abs(t["win"] - 0.5) for t in rec["tried"])
        assert f"start_bonus={close['value']} comes closest: seat 0 wins {pct(close)}" in f["sentence"]
    named = rec["value"] if rec["clear"] else close["value"]  # the value the sentence names
    assert f["next"].startswith("analyser simulate") and f["next"].endswith(f"--seed 3 --rule start_bonus={named}")
    assert "--games 800" in f["next"] and rec["command"] == f["next"]
    # the terminal and the page say the same numbers
    assert text in r.output
    page = (out / "index.html").read_text()
    assert f"with start_bonus={rec['value']} seat 0, the first to play, wins {100 * rec['win']:.1f}%" in page


@pytest.mark.soak
def test_pig_bisection_lands_near_the_exact_start_bonus_of_5_to_6_at_20000_games(runner, tmp_path):
    out = tmp_path / "out"
    r = invoke(runner, "simulate", PIG, "-s", "hold:n=20", "-s", "hold:n=25", "--games", 20000, "--seed", 1,
               "--jobs", 1, "--out", out, "--confirm-seats", "--no-report", "-q")
    assert r.exit_code == 0, r.output
    rec = record_of(out)
    assert rec["direction"] == "over" and not rec["clear"] and rec["win"] < 0.46
    assert 4 <= rec["closest"]["t"] <= 8, rec["tried"]
    assert abs(rec["closest"]["win"] - 0.5) < 0.015


def test_dao_seat_bonus_replayed_from_a_planted_advantage(runner, tmp_path):
    """DAO with seat 0 given 6 points: the compensation gives seat 1 about 6 on top of the run's
    own seat_bonus, and the replay of it evens the seats (greedy's play does not read the bonus)."""
    out = tmp_path / "dao"
    r = invoke(runner, "simulate", "dao", "-s", "greedy", "--players", 2, "--games", 300, "--seed", 2, "--jobs", 1,
               "--engine", "python", "--rule", "seat_bonus=6/0", "--out", out, "--confirm-seats", "--no-report")
    assert r.exit_code == 0, r.output
    rec = record_of(out)
    assert rec["replayed"] and rec["option"] == "seat_bonus" and rec["value"].startswith("6/")
    assert 4 <= int(rec["value"].split("/")[1]) <= 8
    assert rec["tried"][0]["value"] == "6/0"  # the run as played
    f = seat_finding(out)
    assert f"with seat_bonus={rec['value']} seat 0, the first to play, wins {pct(rec)}" in f["sentence"]
    if rec["clear"]:
        assert ": clear, the interval holds the fair share" in f["sentence"] and rec["closest"] is None
        assert f["compensation_check"] == "clear"


def test_a_title_with_no_start_bonus_says_why_nothing_was_replayed(runner, tmp_path):
    out = tmp_path / "plain"
    r = invoke(runner, "simulate", PLAIN, "-s", "hold", "--games", 600, "--seed", 1, "--jobs", 1,
               "--out", out, "--confirm-seats", "--no-report")
    assert r.exit_code == 0 and "Traceback" not in r.output, r.output
    rec = record_of(out)
    assert rec == {"replayed": False,
                   "reason": "the title has no start-bonus rule option to replay a compensation with"}
    assert "Nothing replayed: the title has no start-bonus rule option" in r.output
    f = seat_finding(out)
    assert "the title has no start-bonus rule option to replay a compensation with" in f["sentence"]


def test_without_confirm_seats_the_finding_says_read_from_the_scores_and_how_to_check():
    import pandas as pd

    comp = pd.DataFrame({"seat": [0, 1], "win_rate": [0.6, 0.4], "fair_share": 0.5, "handicap": [0.0, 16.0],
                         "handicap_low": [0.0, 12.0], "handicap_high": [0.0, 20.0], "win_at_handicap": [0.6, 0.5],
                         "tie_share": [0.5, 0.5]})
    table = pd.DataFrame({"seat": [0, 1], "win_rate": [0.6, 0.4]})
    balance = {"best": 0, "worst": 1, "p": 1e-6, "gap": 20.0, "gap_low": 12.0, "gap_high": 28.0}
    (f,) = seats.seat_findings(table, balance, comp, seats.SeatContext(kind="race", next_command="analyser sweep pig ..."))
    assert ("read from the recorded scores, not replayed: check it with the sweep below, which plays the games with "
            "half, once, 1.5 times and twice this head start, or run again with --confirm-seats.") in f["sentence"]
    assert "--confirm-seats" in f["sentence"] and "compensation_check" not in f
    # an under-shoot: the replay leaves the first seat above its share, doubled once, the closest named
    rep = {"replayed": True, "option": "start_bonus", "value": "0/16", "seat": 0, "fair": 0.5, "games": 1000,
           "win": 0.56, "low": 0.53, "high": 0.59, "clear": False, "direction": "under",
           "tried": [{"value": "0/0", "t": 0, "win": 0.6, "low": 0.57, "high": 0.63},
                     {"value": "0/16", "t": 16, "win": 0.56, "low": 0.53, "high": 0.59},
                     {"value": "0/32", "t": 32, "win": 0.52, "low": 0.505, "high": 0.535}],
           "closest": {"value": "0/32", "t": 32, "win": 0.52, "low": 0.505, "high": 0.535}, "evens": None,
           "command": "analyser x"}
    (f,) = seats.seat_findings(table, balance, comp, seats.SeatContext(kind="race", next_command="analyser sweep pig ...", replay=rep))
    assert ("with start_bonus=0/16 seat 0, the first to play, wins 56.0% (95% CI 53.0-59.0%) against a fair share "
            "of 50.0%: not clear, the compensation under-shoots (seat 0 now wins more than its share)") in f["sentence"]
    assert "of the 2 values replayed and the run as played, start_bonus=0/32 comes closest: seat 0 wins 52.0% " \
           "(95% CI 50.5-53.5%)" in f["sentence"]
    assert f["compensation_check"] == "not clear" and f["next"] == "analyser x"
    clear = {**rep, "win": 0.505, "low": 0.475, "high": 0.535, "clear": True, "direction": "", "closest": None}
    (f,) = seats.seat_findings(table, balance, comp, seats.SeatContext(kind="race", replay=clear))
    assert f["sentence"].endswith("against a fair share of 50.0%: clear, the interval holds the fair share.")
    assert f["compensation_check"] == "clear" and f["strength"] == "clear"


def test_a_start_bonus_in_another_unit_is_not_offered_as_the_score_compensation():
    # Dragon Lairds: the handicap is read in royals (the score), its start bonus seat_geld counts
    # geld; the sentence must not offer the royals as what the sweep below plays.
    import pandas as pd

    from analyser.engine.registry import get_game

    game = get_game("dragon-lairds")
    assert (game.scoring.seat_bonus_rule, game.scoring.seat_bonus_unit) == ("seat_geld", "geld") and game.scoring.score_unit == "royals"
    comp = pd.DataFrame({"seat": [0, 1, 2], "win_rate": [0.45, 0.30, 0.25], "fair_share": 1 / 3,
                         "handicap": [0.0, 2.0, 3.0], "handicap_low": [0.0, 1.0, 2.0], "handicap_high": [0.0, 3.0, 4.0],
                         "win_at_handicap": [0.45, 0.33, 0.33], "tie_share": [0.5, 0.5, 0.5]})
    table = comp[["seat", "win_rate"]]
    balance = {"best": 0, "worst": 2, "p": 1e-6, "gap": 20.0, "gap_low": 12.0, "gap_high": 28.0}
    cmd = seats.sweep_command(game, ["income"], 3, {}, 1000, comp)
    assert cmd.endswith("--rule seat_geld=0/0/0,0/1/1,0/2/2,0/4/4,0/8/8")
    (f,) = seats.seat_findings(table, balance, comp, seats.SeatContext(unit="royals", next_command=cmd, bonus=("seat_geld", "geld")))
    assert ("the title's start bonus (seat_geld) counts geld, not royals, so this amount cannot be given as it is: "
            "the sweep below plays start bonuses of 1, 2, 4 and 8 geld for each seat behind, all at once, to see how "
            "far geld moves the gap.") in f["sentence"]
    assert "to find the amount" not in f["sentence"]
    assert "check it with the sweep below, which plays the games with it" not in f["sentence"]
    assert f["next"] == cmd
    # the same figures where the bonus counts the score: the sweep plays the amounts themselves, together
    (g,) = seats.seat_findings(table, balance, comp, seats.SeatContext(unit="points", next_command=cmd, bonus=("seat_bonus", "points")))
    assert ("check them with the sweep below, which gives the seats behind these handicaps together, at half, once, "
            "1.5 times, twice and 3 times these amounts") in g["sentence"]


def test_the_seat_sweep_adds_its_bonuses_to_the_start_bonus_the_run_played():
    import pandas as pd

    from analyser.engine.registry import get_game

    game = get_game("dragon-lairds")
    comp = pd.DataFrame({"seat": [0, 1], "win_rate": [0.74, 0.26], "fair_share": 0.5, "handicap": [0.0, 45.0],
                         "handicap_low": [0.0, 42.0], "handicap_high": [0.0, 47.0], "win_at_handicap": [0.74, 0.5],
                         "tie_share": [0.5, 0.5]})
    cmd = seats.sweep_command(game, ["income"], 2, {"seat_geld": "8/0", "start_geld": "12"}, 2000, comp)
    assert cmd == ("analyser sweep dragon-lairds -s income --players 2 --games 2000 --rule start_geld=12 "
                   "--rule seat_geld=8/0,8/1,8/2,8/4,8/8")
    dao = get_game("dao")  # in the score unit: half (22.5 rounds to 22), once, 1.5 and 2 times the handicap, on top
    cmd = seats.sweep_command(dao, ["greedy"], 2, {"seat_bonus": "0/3"}, 1000, comp)
    assert cmd.endswith("--rule seat_bonus=0/3,0/25,0/48,0/71,0/93")
    # on the run's seed, the sweep's first cell replays the run's own games
    cmd = seats.sweep_command(dao, ["greedy"], 2, {"seat_bonus": "0/3"}, 1000, comp, seed=4)
    assert " --games 1000 --seed 4 --rule seat_bonus=0/3,0/25," in cmd


# --------------------------------------------------------------------------------------------
# The sweep reaches the amount: doubling in another unit, up to 2-3x the estimate in the score's
# --------------------------------------------------------------------------------------------

def _comp(rates, handicaps):
    import pandas as pd

    n = len(rates)
    return pd.DataFrame({"seat": list(range(n)), "win_rate": rates, "fair_share": 1 / n, "handicap": handicaps,
                         "handicap_low": handicaps, "handicap_high": handicaps, "win_at_handicap": 1 / n,
                         "tie_share": 0.5})


BALANCE = {"best": 0, "worst": 1, "p": 1e-6, "gap": 47.4, "gap_low": 43.6, "gap_high": 51.3}


def test_a_sweep_in_another_unit_doubles_to_the_planted_lead_and_says_it_shows_how_far_the_bonus_moves_the_gap():
    # dragon-lairds -p 2 --rule seat_geld=8/0: the seats even near 8/8 (51.1%); 8/3 left 66.1%
    from analyser.engine.registry import get_game

    game = get_game("dragon-lairds")
    comp = _comp([0.737, 0.263], [-45.0, 45.0])
    rules = {"seat_geld": "8/0"}
    cmd = seats.sweep_command(game, ["income"], 2, rules, 2000, comp)
    assert cmd == ("analyser sweep dragon-lairds -s income --players 2 --games 2000 "
                   "--rule seat_geld=8/0,8/1,8/2,8/4,8/8")
    plan = seats.sweep_plan(game, 2, rules, comp)
    assert plan["amounts"] == (1, 2, 4, 8) and plan["base"] == (8, 0) and not plan["same_unit"]
    (f,) = seats.seat_findings(comp[["seat", "win_rate"]], BALANCE, comp, seats.SeatContext(unit="royals", next_command=cmd,
                               bonus=("seat_geld", "geld"), sweep=plan))
    assert f["sentence"].endswith(
        "A handicap of +45 royals (95% CI +45 to +45; win rate 50.0% there) for seat 1 would bring it closest to the "
        "fair share, assuming play would not change - read from the recorded scores, not replayed; the title's "
        "start bonus (seat_geld) counts geld, not royals, so this amount cannot be given as it is: the sweep below "
        "plays start bonuses of 1, 2, 4 and 8 geld for the seat behind, to see how far geld moves the gap.")
    assert "to find the amount" not in f["sentence"] and f["next"] == cmd
    # a larger planted lead: the doubling goes on until it reaches it, and the sentence names every step
    rules = {"seat_geld": "20/0"}
    cmd = seats.sweep_command(game, ["income"], 2, rules, 2000, comp)
    assert cmd.endswith("--rule seat_geld=20/0,20/1,20/2,20/4,20/8,20/16,20/32")
    (f,) = seats.seat_findings(comp[["seat", "win_rate"]], BALANCE, comp, seats.SeatContext(unit="royals", next_command=cmd,
                               bonus=("seat_geld", "geld"), sweep=seats.sweep_plan(game, 2, rules, comp)))
    assert "plays start bonuses of 1, 2, 4, 8, 16 and 32 geld for the seat behind" in f["sentence"]


def test_a_sweep_in_the_score_unit_reaches_twice_the_estimate_and_three_times_with_several_seats_behind():
    # dao -s greedy --rule seat_bonus=4/0/0/0: each seat behind +2 read one at a time; 4/4/4/4 evens the seats
    from analyser.engine.registry import get_game

    dao = get_game("dao")
    comp = _comp([0.588, 0.143, 0.128, 0.141], [-4.0, 2.0, 2.0, 2.0])
    rules = {"seat_bonus": "4/0/0/0"}
    cmd = seats.sweep_command(dao, ["greedy"], 4, rules, 2000, comp)
    assert cmd == ("analyser sweep dao -s greedy --players 4 --games 2000 "
                   "--rule seat_bonus=4/0/0/0,4/1/1/1,4/2/2/2,4/3/3/3,4/4/4/4,4/6/6/6")
    plan = seats.sweep_plan(dao, 4, rules, comp)
    balance = {**BALANCE, "worst": 2}
    (f,) = seats.seat_findings(comp[["seat", "win_rate"]], balance, comp, seats.SeatContext(next_command=cmd,
                               bonus=("seat_bonus", "points"), sweep=plan))
    assert ("seat 3 +2 points (95% CI +2 to +2; win rate 25.0% there), assuming play would not change - read from the "
            "recorded scores, not replayed: check them with the sweep below, which gives the seats behind these "
            "handicaps together, at half, once, 1.5 times, twice and 3 times these amounts (read one at a time, they "
            "may fall short when every seat behind gets one), or run again with --confirm-seats.") in f["sentence"]
    # one seat behind: half to twice the handicap
    two = _comp([0.724, 0.276], [-4.0, 4.0])
    cmd = seats.sweep_command(dao, ["greedy"], 2, {"seat_bonus": "4/0"}, 2000, two)
    assert cmd.endswith("--rule seat_bonus=4/0,4/2,4/4,4/6,4/8")
    plan = seats.sweep_plan(dao, 2, {"seat_bonus": "4/0"}, two)
    (g,) = seats.seat_findings(two[["seat", "win_rate"]], BALANCE, two, seats.SeatContext(next_command=cmd,
                               bonus=("seat_bonus", "points"), sweep=plan))
    assert ("not replayed: check it with the sweep below, which plays the games with half, once, 1.5 times and twice "
            "this handicap, or run again with --confirm-seats.") in g["sentence"]


# --------------------------------------------------------------------------------------------
# After --confirm-seats: a bisection value whose interval holds the fair share evens the seats,
# and the next command plays the value the sentence names
# --------------------------------------------------------------------------------------------

def _fig(value, t, win, low, high):
    return {"value": value, "t": t, "win": win, "low": low, "high": high}


DAO_TRIED = [_fig("4/0/0/0", 0, 0.58825, 0.5667, 0.6098), _fig("4/2/2/2", 2, 0.41725, 0.39566, 0.43884),
             _fig("4/4/4/4", 4, 0.2635, 0.24423, 0.28277)]
DAO_CMD = "analyser simulate dao -s greedy --players 4 --games 2000 --seed 4 --rule seat_bonus={}"


def _dao_record(**over):
    rec = {"replayed": True, "option": "seat_bonus", "value": "4/2/2/2", "seat": 0, "fair": 0.25, "games": 2000,
           "win": 0.41725, "low": 0.39566, "high": 0.43884, "clear": False, "direction": "under", "tried": DAO_TRIED,
           "closest": DAO_TRIED[2], "evens": "4/4/4/4", "command": DAO_CMD.format("4/4/4/4")}
    return {**rec, **over}


def _dao_finding(rec):
    comp = _comp([0.588, 0.143, 0.128, 0.141], [-4.0, 2.0, 2.0, 2.0])
    (f,) = seats.seat_findings(comp[["seat", "win_rate"]], {**BALANCE, "worst": 2}, comp, seats.SeatContext(next_command="x",
                               replay=rec, bonus=("seat_bonus", "points")))
    return f


EVENS = ("checked by replay of the same 2,000 games: with seat_bonus=4/2/2/2 seat 0, the first to play, wins 41.7% "
         "(95% CI 39.6-43.9%) against a fair share of 25.0%: the proposal under-shoots (seat 0 now wins more than its "
         "share); of the 2 values replayed and the run as played, seat_bonus=4/4/4/4 evens the seats: seat 0 wins "
         "26.4% (95% CI 24.4-28.3%), clear, the interval holds the fair share.")


def test_replay_verdict_names_the_bisection_value_whose_interval_holds_the_fair_share():
    assert seats.replay_verdict(DAO_TRIED, 0.25, False) == ("4/4/4/4", DAO_TRIED[2])
    # none holds it: the nearest is named, nothing evens
    tried = [_fig("0/0/0/5", 0, 0.67125, 0.6507, 0.6918), _fig("2/3/3/5", 3, 0.43925, 0.41755, 0.46095),
             _fig("3/4/4/5", 4, 0.3425, 0.32176, 0.36324), _fig("3/5/5/5", 5, 0.282, 0.26234, 0.30166),
             _fig("4/6/6/5", 6, 0.21042, 0.19262, 0.22822)]
    assert seats.replay_verdict(tried, 0.25, False) == (None, tried[3])
    # two hold it: the one nearer the fair share, though a third is nearer by its point estimate alone
    tried = [_fig("0/0", 0, 0.7, 0.68, 0.72), _fig("0/4", 4, 0.53, 0.495, 0.565), _fig("0/6", 6, 0.515, 0.49, 0.54),
             _fig("0/5", 5, 0.505, 0.502, 0.508)]
    assert seats.replay_verdict(tried, 0.5, False) == ("0/6", tried[2])
    # the proposal clear: it evens, nothing else is named
    assert seats.replay_verdict(DAO_TRIED, 0.42, True) == ("4/2/2/2", None)


def test_a_bisection_value_that_holds_the_fair_share_evens_the_seats_and_is_what_test_it_plays():
    f = _dao_finding(_dao_record())
    assert f["sentence"].endswith(EVENS) and "not clear" not in f["sentence"]
    assert f["compensation_check"] == "clear"
    assert f["next"] == "analyser simulate dao -s greedy --players 4 --games 2000 --seed 4 --rule seat_bonus=4/4/4/4"


def test_when_no_value_evens_the_seats_test_it_plays_the_closest_value_the_sentence_names():
    tried = [_fig("0/0/0/5", 0, 0.67125, 0.6507, 0.6918), _fig("2/3/3/5", 3, 0.43925, 0.41755, 0.46095),
             _fig("3/4/4/5", 4, 0.3425, 0.32176, 0.36324), _fig("3/5/5/5", 5, 0.282, 0.26234, 0.30166),
             _fig("4/6/6/5", 6, 0.21042, 0.19262, 0.22822)]
    rec = _dao_record(value="2/3/3/5", seat=3, win=0.43925, low=0.41755, high=0.46095, tried=tried,
                      closest=tried[3], evens=None, command=DAO_CMD.format("3/5/5/5"))
    f = _dao_finding(rec)
    assert f["sentence"].endswith(
        "checked by replay of the same 2,000 games: with seat_bonus=2/3/3/5 seat 3 wins 43.9% (95% CI 41.8-46.1%) "
        "against a fair share of 25.0%: not clear, the compensation under-shoots (seat 3 now wins more than its "
        "share); of the 4 values replayed and the run as played, seat_bonus=3/5/5/5 comes closest: seat 3 wins 28.2% "
        "(95% CI 26.2-30.2%).")
    assert f["compensation_check"] == "not clear" and f["next"] == DAO_CMD.format("3/5/5/5")


def test_dao_confirm_seats_record_names_the_value_that_evens_the_seats_with_the_runs_seed(runner, tmp_path):
    out = tmp_path / "dao4"
    r = invoke(runner, "simulate", "dao", "-s", "greedy", "--rule", "seat_bonus=4/0/0/0", "--games", 2000,
               "--seed", 4, "--jobs", 1, "--out", out, "--confirm-seats", "--no-report", "-q")
    assert r.exit_code == 0, r.output
    rec = record_of(out)
    assert (rec["value"], rec["clear"], rec["direction"]) == ("4/2/2/2", False, "under")
    assert [t["value"] for t in rec["tried"]] == ["4/0/0/0", "4/2/2/2", "4/4/4/4"]
    assert rec["command"] == DAO_CMD.format("4/4/4/4")  # the value that evens the seats, the run's seed
    assert rec["evens"] == "4/4/4/4" and rec["closest"]["value"] == "4/4/4/4"
    f = seat_finding(out)
    assert f["sentence"].endswith(EVENS)
    assert f["compensation_check"] == "clear" and f["next"] == DAO_CMD.format("4/4/4/4")
