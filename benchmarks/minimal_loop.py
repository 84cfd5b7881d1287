"""The yardstick of `analyser simulate`: a minimal hand-written DAO loop, and CPU seconds per game.

    python benchmarks/minimal_loop.py                  # DAO threshold: minimal loop against simulate --jobs 1
    python benchmarks/minimal_loop.py --titles         # also CPU s per game (--jobs 1) and the --jobs 2 speed-up per title
    python benchmarks/minimal_loop.py --games 20000 --repeat 5 --json figures.json

**The minimal loop** (:func:`minimal_games`) plays DAO (analyser/titles/dao/rules.md, default rules: 60
cards, display 3, bust limit 12, the adjacent equal-value exception, ties to the most cards) at
four players with the ``threshold`` strategy (limit 10) in every seat: plain Python, its own code,
nothing imported from ``analyser``.  It keeps only what the rules need (the deck, the display and
its total, each seat's per-colour gain and card count, the busts) and records each game's scores,
winners and busts.  It shuffles as the title does (sort by one ``random.random()`` key per card,
from ``random.Random(game seed)``) and uses the game seeds of a run, so it plays the very games of
``analyser simulate dao -s threshold --seed S``; the script checks that the scores agree before it
prints a ratio.  The second yardstick, :func:`minimal_games_recording`, is the same loop that
also records what a run's results hold for each seat besides the outcome (cards, busts, the share
of the scoring colour, turns, the score after every round): the cost of those figures, still
without analyser; the script checks them against the run's too.

**simulate** is the whole command, ``python -m analyser simulate dao -s threshold --jobs 1
--no-report --games N --seed S --out TMP -q``, in a subprocess.  Its CPU seconds are the user +
system time of the process tree (``resource.getrusage(RUSAGE_CHILDREN)``: the command and every
worker it waited for).  Two figures: the whole run, and per game *after start-up*: the CPU seconds
of the N-game run less those of a run of ``N // 20`` games, over the games between - the steady
cost of a game, without the one-time imports (about half a second).

CPU seconds, not the wall clock: the machine these figures come from is shared, and the CPU time
of a process does not grow when other processes compete for the cores.  Each figure is the best
(least CPU time) of ``--repeat`` runs.

``--titles`` measures every title's first benchmark case (``bench_cases``): CPU seconds per game
after start-up with ``--jobs 1`` (as above), and the speed-up of ``--jobs 2`` over ``--jobs 1``
(:func:`speed_up`: runs in this process after a warm-up, as ``analyser bench`` does, but writing
their parts to a folder as ``simulate`` does).  The wall-clock speed-up needs two free cores, so
the load is printed with it; the CPU estimate says what two free cores would give.  Run the script with another checkout first on ``PYTHONPATH`` to
measure that version (``PYTHONPATH=/path/to/other/checkout python benchmarks/minimal_loop.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# --------------------------------------------------------------------------------------------
# The minimal loop: DAO, default rules, `threshold` in every seat (no analyser code)
# --------------------------------------------------------------------------------------------

COLOURS = 5
VALUES = ((0, 1), (1, 4), (2, 3), (3, 3), (4, 1))  # value, copies per colour
DECK = tuple((c, v) for c in range(COLOURS) for v, k in VALUES for _ in range(k))  # colour-major
BUST_LIMIT = 12
DISPLAY = 3
LIMIT = 10  # threshold: reveal while the display total is at most this


def minimal_games(seeds, players: int = 4, limit: int = LIMIT) -> list[tuple[list[int], list[int], list[int]]]:
    """Play one game per seed; returns per game ``(scores, winners, busts)``.  At least three
    players (two play the two-halves variant, which this loop leaves out)."""
    assert players >= 3
    deck_cards = DECK
    size = len(deck_cards)
    order = range(size)
    out = []
    append = out.append
    for seed in seeds:
        rnd = random.Random(seed).random
        keys = [rnd() for _ in deck_cards]
        deck = [deck_cards[i] for i in sorted(order, key=keys.__getitem__)]
        gain = [[0] * COLOURS for _ in range(players)]
        held = [0] * players
        busts = [0] * players
        display = []
        total = 0
        for _ in range(DISPLAY):
            card = deck.pop()
            display.append(card)
            total += card[1]
        seat = 0
        while True:
            if total <= limit:  # reveal
                card = deck.pop()
                v = card[1]
                prev = display[-1][1]
                display.append(card)
                total += v
                if total > BUST_LIMIT and v != prev:  # a bust, unless equal to the card beside it
                    g = gain[seat]
                    for c, w in display:
                        g[c] += w + 1
                    held[seat] += len(display)
                    busts[seat] += 1
                    display = []
                    total = 0
                if not deck:  # the last card was revealed: the game ends
                    break
            else:  # take the front card
                c, v = display.pop(0)
                total -= v
                gain[seat][c] += v + 1
                held[seat] += 1
            seat = (seat + 1) % players
            if not display:  # refill; revealing the last card in a refill ends the game
                for _ in range(min(DISPLAY, len(deck))):
                    card = deck.pop()
                    display.append(card)
                    total += card[1]
                if not deck:
                    break
        scores = [max(gain[k]) - held[k] for k in range(players)]
        best = max(scores)
        tied = [k for k in range(players) if scores[k] == best]
        if len(tied) > 1:  # ties: the most cards wins, else shared
            most = max(held[k] for k in tied)
            tied = [k for k in tied if held[k] == most]
        append((scores, tied, busts))
    return out


def minimal_games_recording(seeds, players: int = 4, limit: int = LIMIT) -> list[tuple]:
    """:func:`minimal_games` that also records, per seat, what a run's results hold besides the
    outcome: cards taken, busts, the share of its cards in its scoring colour, the game's turns
    and the seat's score after every round of turns (the score trace).  The second yardstick:
    the cost of those figures, without any of analyser's machinery."""
    assert players >= 3
    deck_cards = DECK
    order = range(len(deck_cards))
    out = []
    append = out.append
    for seed in seeds:
        rnd = random.Random(seed).random
        keys = [rnd() for _ in deck_cards]
        deck = [deck_cards[i] for i in sorted(order, key=keys.__getitem__)]
        gain = [[0] * COLOURS for _ in range(players)]
        count = [[0] * COLOURS for _ in range(players)]  # cards per colour
        held = [0] * players
        busts = [0] * players
        score = [0] * players
        trace = [[] for _ in range(players)]
        display = []
        total = 0
        for _ in range(DISPLAY):
            card = deck.pop()
            display.append(card)
            total += card[1]
        seat = 0
        turns = 0
        while True:
            turns += 1
            if total <= limit:  # reveal
                card = deck.pop()
                v = card[1]
                prev = display[-1][1]
                display.append(card)
                total += v
                if total > BUST_LIMIT and v != prev:
                    g, k = gain[seat], count[seat]
                    for c, w in display:
                        g[c] += w + 1
                        k[c] += 1
                    held[seat] += len(display)
                    busts[seat] += 1
                    score[seat] = max(g) - held[seat]
                    display = []
                    total = 0
                if not deck:
                    break
            else:  # take
                c, v = display.pop(0)
                total -= v
                g = gain[seat]
                g[c] += v + 1
                count[seat][c] += 1
                held[seat] += 1
                score[seat] = max(g) - held[seat]
            seat = (seat + 1) % players
            if seat == 0:  # a round of turns ended
                for k in range(players):
                    trace[k].append(score[k])
            if not display:
                for _ in range(min(DISPLAY, len(deck))):
                    card = deck.pop()
                    display.append(card)
                    total += card[1]
                if not deck:
                    break
        if len(trace[0]) < -(-turns // players):  # the round the game ended in
            for k in range(players):
                trace[k].append(score[k])
        scores = [max(gain[k]) - held[k] for k in range(players)]
        best = max(scores)
        tied = [k for k in range(players) if scores[k] == best]
        if len(tied) > 1:
            most = max(held[k] for k in tied)
            tied = [k for k in tied if held[k] == most]
        share = [count[k][gain[k].index(max(gain[k]))] / held[k] if held[k] else float("nan") for k in range(players)]
        append((scores, tied, busts, held, share, turns, trace))
    return out


def game_seeds(root: int, n: int) -> list[int]:
    """The game seeds of games 0 to n - 1 of a run with root seed ``root`` (the first 64-bit word
    of ``numpy.random.SeedSequence(root, spawn_key=(i,))``, as the README's "Reproducing" says)."""
    import numpy as np
    out = []
    for i in range(n):
        lo, hi = np.random.SeedSequence(root, spawn_key=(i,)).generate_state(2, np.uint32).tolist()
        out.append(lo | (hi << 32))
    return out


def time_minimal(games: int, repeat: int, seed: int, loop=None) -> float:
    """Least CPU seconds of ``repeat`` runs of ``loop`` (:func:`minimal_games` by default) over
    ``games`` games (seeds made beforehand)."""
    loop = loop or minimal_games
    seeds = game_seeds(seed, games)
    best = float("inf")
    for _ in range(repeat):
        c0 = time.process_time()
        loop(seeds)
        best = min(best, time.process_time() - c0)
    return best


# --------------------------------------------------------------------------------------------
# simulate in a subprocess
# --------------------------------------------------------------------------------------------

def run_simulate(title: str, strategies: list[str], players: int, games: int, seed: int, jobs: int,
                 out: Path) -> tuple[float, float]:
    """``(CPU seconds of the process tree, wall seconds)`` of one ``simulate --no-report`` run."""
    cmd = [sys.executable, "-m", "analyser", "simulate", title, "--players", str(players), "--jobs", str(jobs),
           "--no-report", "--games", str(games), "--seed", str(seed), "--out", str(out), "-q"]
    for s in strategies:
        cmd += ["-s", s]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def per_game(title, strategies, players, games, seed, repeat, tmp: Path) -> dict:
    """CPU seconds of a whole ``--jobs 1`` run and per game after start-up (best of ``repeat``)."""
    small = max(1, games // 20)
    whole = min(run_simulate(title, strategies, players, games, seed, 1, tmp / "big")[0] for _ in range(repeat))
    start = min(run_simulate(title, strategies, players, small, seed, 1, tmp / "small")[0] for _ in range(repeat))
    return {"games": games, "cpu_whole": whole, "cpu_small": start, "small_games": small,
            "cpu_per_game": (whole - start) / (games - small)}


def agrees(out: Path, seed: int, k: int = 500) -> int:
    """How many of the first ``k`` games of the run in ``out`` both minimal loops play alike: the
    scores and winners, and (the recording loop) every seat's cards, busts, scoring-colour share,
    turns and score trace.  Raises SystemExit naming the first game that differs."""
    import math

    import pandas as pd
    df = pd.read_parquet(out / "results")
    df = df[df["game_index"] < k].sort_values(["game_index", "seat"])
    seeds = df.groupby("game_index")["game_seed"].first().astype("uint64").tolist()
    assert seeds == game_seeds(seed, len(seeds)), "game seeds differ"
    seeds = [int(x) for x in seeds]
    for i, ((scores, winners, _), rec, (_, game)) in enumerate(zip(minimal_games(seeds), minimal_games_recording(seeds),
                                                                   df.groupby("game_index"))):
        theirs = {"score": [float(x) for x in game["score"]], "winners": [int(s) for s in game["seat"][game["win"] > 0]],
                  "busts": list(game["busts"]), "cards": list(game["cards"]), "turns": int(game["turns"].iloc[0]),
                  "trace": [[int(v) for v in (t.split() if isinstance(t, str) else t)] for t in game["score_trace"]],
                  "share": [None if math.isnan(x) else round(x, 12) for x in game["colour_share"]]}
        mine = {"score": [float(x) for x in scores], "winners": winners, "busts": rec[2], "cards": rec[3],
                "turns": rec[5], "trace": rec[6], "share": [None if math.isnan(x) else round(x, 12) for x in rec[4]]}
        if [float(x) for x in rec[0]] != mine["score"] or rec[1] != winners or mine != theirs:
            raise SystemExit(f"the minimal loops disagree with simulate in game {i}: {mine} against {theirs}")
    return len(seeds)


def title_cases() -> list[tuple[str, str, list[str], int, int]]:
    """Per title: its first bench case as (title, label, strategies, players, games to time)."""
    from analyser.run.bench import cases
    from analyser.engine.registry import game_ids, get_game
    # games per title: a few CPU seconds each (a DAO game takes ~0.1 ms, a Dragon Lairds game ~4 ms)
    sizes = {"dao": 20000, "wizard": 1000, "tsuro-seas": 2000, "kingdomino-duel": 1000, "dragon-lairds": 600}
    out = []
    for g in game_ids():
        label, strategies, players, _, _ = cases(get_game(g))[0]
        out.append((g, label, list(strategies), players, sizes.get(g, 1000)))
    return out


def in_process(title, strategies, players, games, seed, jobs, out: Path) -> tuple[float, float, list[float]]:
    """One run to ``out`` in this process (workers already started): ``(wall seconds, this
    process's CPU seconds, each child process's CPU seconds)``; children by psutil, before and
    after (loky keeps its workers between runs)."""
    import shutil

    import psutil

    from analyser import run as runmod
    me = psutil.Process()

    def cpu_of_children():
        out = {}
        for p in me.children(recursive=True):
            try:
                t = p.cpu_times()
            except psutil.Error:
                continue
            out[p.pid] = t.user + t.system
        return out
    before = cpu_of_children()
    c0, t0 = time.process_time(), time.perf_counter()
    res = runmod.run(runmod.RunSpec(game=title, strategies=list(strategies), players=players, games=games, seed=seed,
                                    jobs=jobs), progress=False, out=out)
    wall, main = time.perf_counter() - t0, time.process_time() - c0
    if res.error:
        raise SystemExit(f"{title}: {res.error}")
    after = cpu_of_children()
    shutil.rmtree(out, ignore_errors=True)
    return wall, main, [v - before.get(pid, 0.0) for pid, v in after.items() if v - before.get(pid, 0.0) > 0.01]


def speed_up(title, strategies, players, games, seed, repeat, tmp: Path) -> dict:
    """``--jobs 2`` against ``--jobs 1``, in this process after a warm-up of both (imports done,
    workers started, as ``analyser bench`` measures), each writing its parts to a folder.  The
    wall-clock speed-up needs two free cores; the CPU estimate is what two free cores would give:
    the one-job run's CPU seconds over the larger of half the two-job run's total CPU seconds and
    its busiest process."""
    small = max(20, games // 50)
    in_process(title, strategies, players, small, seed, 1, tmp / "warm1")
    in_process(title, strategies, players, 2 * small, seed, 2, tmp / "warm2")
    ones, twos = [], []
    for _ in range(repeat):  # alternate, so both see the same load
        ones.append(in_process(title, strategies, players, games, seed, 1, tmp / "one"))
        twos.append(in_process(title, strategies, players, games, seed, 2, tmp / "two"))
    w1, w2 = min(w for w, _, _ in ones), min(w for w, _, _ in twos)
    c1 = min(m + sum(k) for _, m, k in ones)
    best2 = min(twos, key=lambda r: r[1] + sum(r[2]))
    total2 = best2[1] + sum(best2[2])
    busiest = max([best2[1]] + best2[2])
    return {"wall_1": w1, "wall_2": w2, "speed_up_wall": w1 / w2, "cpu_1": c1, "cpu_2_total": total2,
            "cpu_2_main": best2[1], "cpu_2_workers": best2[2], "speed_up_cpu": c1 / max(total2 / 2, busiest)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=20000, help="DAO games per measurement (default 20,000)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per figure; the least CPU time counts")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--titles", action="store_true", help="also every title: CPU s per game and the --jobs 2 speed-up")
    ap.add_argument("--only-titles", action="store_true", help="only the per-title figures")
    ap.add_argument("--title", action="append", default=[], help="with --titles: only this title (repeatable)")
    ap.add_argument("--json", help="write the figures to this JSON file")
    a = ap.parse_args(argv)
    import analyser
    figures: dict = {"analyser": os.path.dirname(analyser.__file__), "load_before": os.getloadavg(),
                     "games": a.games, "repeat": a.repeat}
    print(f"analyser from {figures['analyser']}; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory(prefix="minimal-loop-") as tmp:
        tmp = Path(tmp)
        if not a.only_titles:
            cpu_min = time_minimal(a.games, a.repeat, a.seed)
            cpu_rec = time_minimal(a.games, a.repeat, a.seed, minimal_games_recording)
            sim = per_game("dao", ["threshold"], 4, a.games, a.seed, a.repeat, tmp)
            checked = agrees(tmp / "big", a.seed)
            loop_rate, rec_rate = a.games / cpu_min, a.games / cpu_rec
            whole_rate = a.games / sim["cpu_whole"]
            steady_rate = 1 / sim["cpu_per_game"]
            figures["dao"] = {"minimal_cpu": cpu_min, "minimal_games_per_s": loop_rate, "recording_cpu": cpu_rec,
                              "recording_games_per_s": rec_rate, **sim,
                              "simulate_games_per_s_whole": whole_rate, "simulate_games_per_s_steady": steady_rate,
                              "ratio_whole": whole_rate / loop_rate, "ratio_steady": steady_rate / loop_rate,
                              "ratio_whole_recording": whole_rate / rec_rate,
                              "ratio_steady_recording": steady_rate / rec_rate, "games_checked": checked}
            print(f"DAO, 4 players, threshold everywhere, {a.games:,} games, best of {a.repeat} (CPU seconds); "
                  f"both loops play the first {checked} games of the run alike")
            print(f"  minimal loop            {cpu_min:7.2f} s  {loop_rate:9,.0f} games/s")
            print(f"  minimal loop, recording {cpu_rec:7.2f} s  {rec_rate:9,.0f} games/s")
            print(f"  simulate --jobs 1 whole {sim['cpu_whole']:7.2f} s  {whole_rate:9,.0f} games/s  "
                  f"ratio {whole_rate / loop_rate:.2f}x (recording: {whole_rate / rec_rate:.2f}x)")
            print(f"  ... after start-up      {1e6 * sim['cpu_per_game']:7.1f} us/game {steady_rate:6,.0f} games/s  "
                  f"ratio {steady_rate / loop_rate:.2f}x (recording: {steady_rate / rec_rate:.2f}x)  "
                  f"(start-up: {sim['cpu_small']:.2f} s with {sim['small_games']:,} games)")
        if a.titles or a.only_titles:
            figures["titles"] = []
            print(f"{'title':<16} {'case':<22} {'games':>6} {'CPU ms/game':>12} {'1 job':>8} {'2 jobs':>8} "
                  f"{'speed-up':>9} {'by CPU':>7}  CPU of the 2-job run (main + workers)")
            for g, label, strategies, players, games in title_cases():
                if a.title and g not in a.title:
                    continue
                pg = per_game(g, strategies, players, games, a.seed, a.repeat, tmp)
                su = speed_up(g, strategies, players, games, a.seed, a.repeat, tmp)
                row = {"game": g, "case": label, **pg, **su, "load": os.getloadavg()}
                figures["titles"].append(row)
                print(f"{g:<16} {label:<22} {games:>6,} {1000 * pg['cpu_per_game']:>12.3f} {su['wall_1']:>7.2f}s "
                      f"{su['wall_2']:>7.2f}s {su['speed_up_wall']:>8.2f}x {su['speed_up_cpu']:>6.2f}x  "
                      f"{su['cpu_2_main']:.2f} + {' + '.join(f'{c:.2f}' for c in su['cpu_2_workers'])} s "
                      f"(load {os.getloadavg()[0]:.1f})", flush=True)
    figures["load_after"] = os.getloadavg()
    if a.json:
        Path(a.json).write_text(json.dumps(figures, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
