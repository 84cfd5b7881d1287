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
    assert f["compensation_check"] == ("clear" if rec["clear"] else "not clear")
    # the read +16ish over-shoots: the first player ends below its share, and the bisection between
    # 0 and the proposal (at most 4 more replays) names the closest value with its figure
    assert rec["direction"] == "over" and "the compensation over-shoots" in f["sentence"]
    tried = [t["t"] for t in rec["tried"]]
    assert tried[0] == 0 and tried[-1] == int(h) and len(tried) <= 2 + seat_confirm.MORE_REPLAYS
    assert all(0 <= t <= h for t in tried)
    close = rec["closest"]
    assert abs(close["win"] - 0.5) == min(abs(t["win"] - 0.5) for t in rec["tried"])
    assert f"start_bonus={close['value']} comes closest: seat 0 wins {pct(close)}" in f["sentence"]
    assert f["next"].startswith("analyser simulate") and f"--rule start_bonus={rec['value']}" in f["next"]
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
               "--engine", "python", "--rule", "seat_bonus=6/0", "--out", out, "--confirm-seats")
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
               "--out", out, "--confirm-seats")
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
    (f,) = seats.seat_findings(table, balance, comp, kind="race", next_command="analyser sweep pig ...")
    assert "read from the recorded scores, not replayed: check it with the sweep below" in f["sentence"]
    assert "--confirm-seats" in f["sentence"] and "compensation_check" not in f
    # an under-shoot: the replay leaves the first seat above its share, doubled once, the closest named
    rep = {"replayed": True, "option": "start_bonus", "value": "0/16", "seat": 0, "fair": 0.5, "games": 1000,
           "win": 0.56, "low": 0.53, "high": 0.59, "clear": False, "direction": "under",
           "tried": [{"value": "0/0", "t": 0, "win": 0.6, "low": 0.57, "high": 0.63},
                     {"value": "0/16", "t": 16, "win": 0.56, "low": 0.53, "high": 0.59},
                     {"value": "0/32", "t": 32, "win": 0.52, "low": 0.49, "high": 0.55}],
           "closest": {"value": "0/32", "t": 32, "win": 0.52, "low": 0.49, "high": 0.55}, "command": "analyser x"}
    (f,) = seats.seat_findings(table, balance, comp, kind="race", next_command="analyser sweep pig ...", replay=rep)
    assert ("with start_bonus=0/16 seat 0, the first to play, wins 56.0% (95% CI 53.0-59.0%) against a fair share "
            "of 50.0%: not clear, the compensation under-shoots (seat 0 now wins more than its share)") in f["sentence"]
    assert "of the 2 values replayed and the run as played, start_bonus=0/32 comes closest: seat 0 wins 52.0% " \
           "(95% CI 49.0-55.0%)" in f["sentence"]
    assert f["compensation_check"] == "not clear" and f["next"] == "analyser x"
    clear = {**rep, "win": 0.505, "low": 0.475, "high": 0.535, "clear": True, "direction": "", "closest": None}
    (f,) = seats.seat_findings(table, balance, comp, kind="race", replay=clear)
    assert f["sentence"].endswith("against a fair share of 50.0%: clear, the interval holds the fair share.")
    assert f["compensation_check"] == "clear" and f["strength"] == "clear"


def test_a_start_bonus_in_another_unit_is_not_offered_as_the_score_compensation():
    # Dragon Lairds: the handicap is read in royals (the score), its start bonus seat_geld counts
    # geld; the sentence must not offer the royals as what the sweep below plays.
    import pandas as pd

    from analyser.engine.registry import get_game

    game = get_game("dragon-lairds")
    assert (game.seat_bonus_rule, game.seat_bonus_unit) == ("seat_geld", "geld") and game.score_unit == "royals"
    comp = pd.DataFrame({"seat": [0, 1, 2], "win_rate": [0.45, 0.30, 0.25], "fair_share": 1 / 3,
                         "handicap": [0.0, 2.0, 3.0], "handicap_low": [0.0, 1.0, 2.0], "handicap_high": [0.0, 3.0, 4.0],
                         "win_at_handicap": [0.45, 0.33, 0.33], "tie_share": [0.5, 0.5, 0.5]})
    table = comp[["seat", "win_rate"]]
    balance = {"best": 0, "worst": 2, "p": 1e-6, "gap": 20.0, "gap_low": 12.0, "gap_high": 28.0}
    cmd = seats.sweep_command(game, ["income"], 3, {}, 1000, comp)
    assert cmd.endswith("--rule seat_geld=0/0/0,0/1/1,0/2/2,0/3/3")
    (f,) = seats.seat_findings(table, balance, comp, unit="royals", next_command=cmd, bonus=("seat_geld", "geld"))
    assert ("the title's start bonus (seat_geld) counts geld, not royals, so this amount cannot be given as it is: "
            "the sweep below plays start bonuses of 1, 2 and 3 geld for each seat behind, to find the amount in geld"
            ) in f["sentence"]
    assert "check it with the sweep below, which plays the games with it" not in f["sentence"]
    assert f["next"] == cmd
    # the same figures where the bonus counts the score: the sweep plays the amount itself
    (g,) = seats.seat_findings(table, balance, comp, unit="points", next_command=cmd, bonus=("seat_bonus", "points"))
    assert "check it with the sweep below, which plays the games with it" in g["sentence"]


def test_the_seat_sweep_adds_its_bonuses_to_the_start_bonus_the_run_played():
    import pandas as pd

    from analyser.engine.registry import get_game

    game = get_game("dragon-lairds")
    comp = pd.DataFrame({"seat": [0, 1], "win_rate": [0.74, 0.26], "fair_share": 0.5, "handicap": [0.0, 45.0],
                         "handicap_low": [0.0, 42.0], "handicap_high": [0.0, 47.0], "win_at_handicap": [0.74, 0.5],
                         "tie_share": [0.5, 0.5]})
    cmd = seats.sweep_command(game, ["income"], 2, {"seat_geld": "8/0", "start_geld": "12"}, 2000, comp)
    assert cmd == ("analyser sweep dragon-lairds -s income --players 2 --games 2000 --rule start_geld=12 "
                   "--rule seat_geld=8/0,8/1,8/2,8/3")
    dao = get_game("dao")  # in the score unit: half (22.5 rounds to 22), once and 1.5 times the handicap, on top
    cmd = seats.sweep_command(dao, ["greedy"], 2, {"seat_bonus": "0/3"}, 1000, comp)
    assert cmd.endswith("--rule seat_bonus=0/3,0/25,0/48,0/71")
