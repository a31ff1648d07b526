#!/usr/bin/env python3
"""How strong the robots are: the measurements of docs/robots.md, played with `arbiter play`.

    scripts/robot-strength.py [--arbiter target/release/arbiter] [--games 200] [--jobs 2]
                              [--openspiel-python venv/bin/python] [--only NAME…]

Each line of the table is one opponent pairing over `--games` games, the seats swapped between
the two games of a pair (same seed, so Domino's two games share a board), under the game's
default clock. The 4-player Quoridor line puts the subject in each seat in turn, robots of the
other kind in the other three. A Markdown table goes to stdout, progress to stderr.

OpenSpiel's MCTS bot takes 0.2-0.4 s a move, far more than Quoridor's clock: its line is played
with a bank of 10 minutes, and `strong` is run as a process (`arbiter bot quoridor strong`) that
keeps its own clock at Quoridor's default, so it thinks as it would in a real match.
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MCTS = os.path.join(HERE, "openspiel-mcts-bot.py")


def scenarios(args):
    """(name, game, game flags of a pair, seats of one game and the subject's seat among them
    as a function of the game's index, extra flags). Labyrinth's level does not follow the
    seed, so each pair plays a level of its own."""
    strong_process = f"{args.arbiter} bot quoridor strong --time-bank-ms 1000 --time-per-turn-ms 30"
    two = lambda a, b: (lambda i: ([a, b], 0) if i % 2 == 0 else ([b, a], 1))
    four = lambda a, b: (lambda i: ([a if s == i % 4 else b for s in range(4)], i % 4))
    none = lambda pair: []
    level = lambda pair: ["--level", str(1 + pair)]
    found = [
        ("quoridor strong vs blocker", "quoridor", none, two("builtin:strong", "builtin:blocker"), []),
        ("quoridor strong vs aiarena-hard", "quoridor", none,
         two("builtin:strong", "builtin:aiarena-hard"), []),
        ("quoridor 4p strong vs 3 blockers", "quoridor", lambda pair: ["--players", "4"],
         four("builtin:strong", "builtin:blocker"), []),
        ("puoribor strong vs rotator", "puoribor", none, two("builtin:strong", "builtin:rotator"), []),
        ("domino solver vs parity", "domino", none, two("builtin:solver", "builtin:parity"), []),
        ("labyrinth searcher vs lookahead", "labyrinth", level,
         two("builtin:searcher", "builtin:lookahead"), []),
    ]
    if args.openspiel_python:
        mcts = f"{args.openspiel_python} {MCTS}"
        found.append(("quoridor strong vs OpenSpiel MCTS", "quoridor", none,
                      two(strong_process, mcts),
                      ["--time-bank-ms", "600000", "--time-per-turn-ms", "0"]))
    return [s for s in found if not args.only or any(o in s[0] for o in args.only)]


def play(args, game, game_flags, bots, seed, extra):
    command = [args.arbiter, "play", game, "--json", "--seed", str(seed), "--no-sandbox", *extra]
    for bot in bots:
        command += ["--bot", bot]
    command += game_flags
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def seat_faults(label, result):
    """The faults of each seat of a match (`arbiter play --json`): timeouts, bad answers and a
    crash, each counted; every seat that had one is named on stderr with the match's seed."""
    counts = []
    for bot in result["bots"]:
        count = bot["timeouts"] + bot["errors"] + bot["crashed"]
        if count:
            killed = f" killed for {bot['killed_for']}" if bot.get("killed_for") else ""
            print(f"{label}: seed {result['seed']}: {bot['name']} timeouts {bot['timeouts']} "
                  f"errors {bot['errors']} crashed {bot['crashed']}{killed}", file=sys.stderr)
        counts.append(count)
    return counts


def measure(args, scenario):
    name, game, game_flags, seating, extra = scenario
    points, faults, games = 0.0, 0, 0
    pool = concurrent.futures.ThreadPoolExecutor(args.jobs)
    futures = []
    for i in range(args.games):
        bots, subject = seating(i)
        seed = 1000 + i // 2
        flags = game_flags(i // 2)
        futures.append((subject, pool.submit(play, args, game, flags, bots, seed, extra)))
    others = 0.0
    for subject, future in futures:
        result = future.result()
        points += result["scores"][subject]
        others += sum(result["scores"]) - result["scores"][subject]
        faults += sum(seat_faults(name, result))
        games += 1
        if games % 20 == 0:
            print(f"{name}: {games} games, {points:g} points", file=sys.stderr)
    total = points + others
    share = 100 * points / total if total else 0
    ratio = points / others if others else float("inf")
    return f"| {name} | {games} | {points:g} | {others:g} | {share:.1f} % | {ratio:.2f} | {faults} |"


def main():
    options = argparse.ArgumentParser()
    options.add_argument("--arbiter", default=os.path.join(HERE, "..", "target", "release", "arbiter"))
    options.add_argument("--games", type=int, default=200)
    options.add_argument("--jobs", type=int, default=2)
    options.add_argument("--openspiel-python")
    options.add_argument("--only", nargs="*")
    args = options.parse_args()
    print("| pairing | games | subject's points | opponents' points | share | ratio | faults |")
    print("|---|---|---|---|---|---|---|")
    for scenario in scenarios(args):
        print(measure(args, scenario), flush=True)


if __name__ == "__main__":
    main()
