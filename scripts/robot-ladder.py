#!/usr/bin/env python3
"""The strength ladder of each game's robots: a round-robin among all of them, with `arbiter play`.

    scripts/robot-ladder.py [--arbiter target/release/arbiter] [--games-per-pairing 20] [--jobs 2]
                            [--only quoridor quoridor-4p puoribor domino labyrinth]
    scripts/robot-ladder.py --self-test

The robots of a game are the binary's own list (`arbiter bot GAME ?` answers with it). Every two
of them play `--games-per-pairing` games under the game's default clock, the seats swapped
between the two games of a pair on one seed (Domino's two games share a board; Labyrinth's level
follows the pair: pair k plays level k + 1). With four Quoridor players a pairing plays in groups
of 8 games on one seed: each robot alone in each seat in turn against three of the other. The
number of games is rounded up to whole pairs (groups).

Per game, a Markdown table goes to stdout, then a cross-table of the pairings; progress, faults
and the time each game's round-robin took go to stderr.

- **points share**: a robot's points over its games, a game scored by placement: 1 for a win,
  ½ for a tie, 0 for a loss (Labyrinth too: the displays decide the placement, and the margin
  does not count). A game of four scores the lone robot's placement against each of the three
  others, averaged; the three share the rest.
- **Elo**: a maximum-likelihood Bradley–Terry (logistic) fit over all games, anchored at
  `random` = 0 (the weakest robot if a game has none). One virtual drawn game is added to
  every pairing, so that a robot that wins or loses everything gets a finite rating.
- **ms per move**: the median and the largest time a robot took to answer, over all its moves:
  the `time_ms` the referee records in each tick of the replay, from the request to the answer,
  which is what the robot's clock is charged.
- **faults**: timeouts, bad answers and crashes, each counted and named on stderr with the
  match (game, robots by seat, level) and its seed.

Why `arbiter play` and not `arbiter tournament run`: a tournament derives its own seeds, so a
pair cannot share a seed with the seats swapped, nor a Labyrinth level follow the pair; it keeps
a mean time per move, not the median or the largest; and its ratings are updated match by match
(Elo with K = 32 for two players, Weng-Lin for four), which depends on the order of the matches,
where a ladder wants the one fit that best explains all the games. `play` writes a replay that
holds every move's time, and this script fits the ratings itself.

A match that Arbiter itself fails to play (an error exit) is named on stderr, counted under the
table and left out of it. Times depend on the machine's load: with `--jobs` equal to the cores,
a robot that searches by the clock shares a core, and the times are what a busy server sees.
"""
import argparse
import collections
import concurrent.futures
import importlib.util
import itertools
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def sibling(name):
    """A script of this folder as a module (its name has a hyphen, so it cannot be imported)."""
    spec = importlib.util.spec_from_file_location(name.replace("-", "_"), os.path.join(HERE, name))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


strength = sibling("robot-strength.py")

# Ladders: (name, game, players, game flags of pair k).
LADDERS = [
    ("quoridor", "quoridor", 2, lambda pair: []),
    ("quoridor-4p", "quoridor", 4, lambda pair: ["--players", "4"]),
    ("puoribor", "puoribor", 2, lambda pair: []),
    ("domino", "domino", 2, lambda pair: []),
    ("labyrinth", "labyrinth", 2, lambda pair: ["--level", str(1 + pair)]),
]


def robots(arbiter, game):
    """The game's robots, weakest first: `arbiter bot GAME NAME` answers an unknown name with
    the list, so the list is the binary's own."""
    done = subprocess.run([arbiter, "bot", game, "?"], stdin=subprocess.DEVNULL,
                          capture_output=True, text=True)
    found = re.search(r"there are: (.*)$", done.stderr.strip())
    if not found:
        sys.exit(f"robot-ladder: cannot read {game}'s robots from `{arbiter} bot {game} ?`: "
                 f"{done.stderr.strip() or done.stdout.strip()}")
    return [name.strip() for name in found.group(1).split(",")]


def seating(players, a, b, i):
    """The robots of game i of the pairing (a, b), seat by seat, and the game's pair (group)."""
    if players == 2:
        return ([a, b] if i % 2 == 0 else [b, a]), i // 2
    alone, other = (a, b) if i % 8 < 4 else (b, a)
    return [alone if seat == i % 4 else other for seat in range(players)], i // 8


def schedule(names, players, games_per_pairing):
    """Every game of the round-robin: (robots by seat, pair index)."""
    group = 2 if players == 2 else 8
    games = -(-games_per_pairing // group) * group
    return [seating(players, a, b, i)
            for a, b in itertools.combinations(names, 2) for i in range(games)]


def move_times(replay):
    """Each seat's answer times in milliseconds, from a replay (JSON lines)."""
    times = collections.defaultdict(list)
    with open(replay) as lines:
        for line in lines:
            record = json.loads(line)
            if record["type"] != "tick":
                continue
            for seat, bot in enumerate(record["bots"]):
                if bot.get("time_ms") is not None:
                    times[seat].append(bot["time_ms"])
    return times


def play(args, ladder, seats, pair, replays):
    """One match: its result (`arbiter play --json`) with each seat's answer times, or the
    reason Arbiter could not play it."""
    name, game, _, flags = ladder
    seed = 1000 + pair
    replay = os.path.join(replays, f"{name}-{seed}-{'-'.join(seats)}.jsonl")
    bots = [f"builtin:{robot}" for robot in seats]
    try:
        result = strength.play(args, game, flags(pair), bots, seed, ["--replay", replay])
        result["times"] = move_times(replay)
        return result
    except subprocess.CalledProcessError as failed:
        return {"failed": f"exit {failed.returncode}: {failed.stderr.strip()[-300:]}", "seed": seed}
    except (OSError, ValueError, KeyError) as failed:
        return {"failed": f"{type(failed).__name__}: {failed}", "seed": seed}
    finally:
        if os.path.exists(replay):
            os.remove(replay)


def duel(seats, placement):
    """(a, b, a's points) of a game between two robots, a the one with fewer seats (seat 0's
    with two players): a's placement against each seat of b's, 1 for better, ½ for equal,
    averaged."""
    a = min(dict.fromkeys(seats), key=seats.count)
    b = next(robot for robot in seats if robot != a)
    ours = [p for robot, p in zip(seats, placement) if robot == a]
    theirs = [p for robot, p in zip(seats, placement) if robot == b]
    points = [1.0 if x < y else 0.5 if x == y else 0.0 for x in ours for y in theirs]
    return a, b, sum(points) / len(points)


def solve(matrix, vector):
    """x with matrix·x = vector, by Gaussian elimination with partial pivoting."""
    n = len(vector)
    rows = [list(row) + [value] for row, value in zip(matrix, vector)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(rows[r][col]))
        rows[col], rows[pivot] = rows[pivot], rows[col]
        for r in range(n):
            if r != col and rows[r][col]:
                factor = rows[r][col] / rows[col][col]
                rows[r] = [x - factor * y for x, y in zip(rows[r], rows[col])]
    return [rows[i][n] / rows[i][i] for i in range(n)]


def log_likelihood(theta, points, counts):
    """Of the logistic model with strengths theta (natural logs): Σ points·log p."""
    total = 0.0
    for (i, j), n in counts.items():
        p = 1 / (1 + math.exp(theta[j] - theta[i]))
        total += points[i, j] * math.log(p) + (n - points[i, j]) * math.log(1 - p)
    return total


def fit_elo(names, games, anchor, prior_draws=1.0):
    """Elo of each robot: the maximum-likelihood Bradley–Terry fit of the games (a, b, a's
    points in [0, 1]), with `prior_draws` virtual drawn games added to each pairing that
    played, and the anchor at 0. Newton's method on the concave log-likelihood, each step
    halved until the likelihood grows."""
    index = {name: k for k, name in enumerate(names)}
    points, counts = collections.defaultdict(float), collections.defaultdict(float)
    for a, b, score in games:
        i, j = sorted((index[a], index[b]))
        counts[i, j] += 1
        points[i, j] += score if index[a] == i else 1 - score
    for pairing in list(counts):
        counts[pairing] += prior_draws
        points[pairing] += prior_draws / 2
    free = [k for k in range(len(names)) if k != index[anchor]]
    theta = [0.0] * len(names)
    for _ in range(100):
        gradient = [0.0] * len(names)
        hessian = [[0.0] * len(names) for _ in names]
        for (i, j), n in counts.items():
            p = 1 / (1 + math.exp(theta[j] - theta[i]))
            gradient[i] += points[i, j] - n * p
            gradient[j] -= points[i, j] - n * p
            w = n * p * (1 - p)
            hessian[i][i] += w
            hessian[j][j] += w
            hessian[i][j] -= w
            hessian[j][i] -= w
        if max(abs(gradient[k]) for k in free) < 1e-10:
            break
        step = solve([[hessian[r][c] for c in free] for r in free], [gradient[k] for k in free])
        before, scale = log_likelihood(theta, points, counts), 1.0
        while True:
            trial = list(theta)
            for k, delta in zip(free, step):
                trial[k] += scale * delta
            if log_likelihood(trial, points, counts) >= before or scale < 1e-9:
                break
            scale /= 2
        theta = trial
    return {name: theta[index[name]] * 400 / math.log(10) for name in names}


class Tally:
    """What the table shows of one robot."""

    def __init__(self):
        self.games, self.points, self.faults, self.times = 0, 0.0, 0, []


def run_ladder(args, ladder, replays):
    """Plays a ladder's round-robin: the tallies by robot, the games (a, b, a's points) for the
    fit, the matches Arbiter failed to play, and the robots in ladder order."""
    name, game, players, flags = ladder
    names = robots(args.arbiter, game)
    matches = schedule(names, players, args.games_per_pairing)
    tallies = {robot: Tally() for robot in names}
    games, failed, started = [], 0, time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = [(seats, " ".join([name, *seats, *flags(pair)]),
                    pool.submit(play, args, ladder, seats, pair, replays))
                   for seats, pair in matches]
        for done, (seats, label, future) in enumerate(futures, 1):
            result = future.result()
            if "failed" in result:
                failed += 1
                print(f"{label}: seed {result['seed']}: Arbiter failed: {result['failed']}",
                      file=sys.stderr)
                continue
            a, b, score = duel(seats, result["placement"])
            games.append((a, b, score))
            for robot, points in ((a, score), (b, 1 - score)):
                tallies[robot].games += 1
                tallies[robot].points += points
            for seat, (robot, count) in enumerate(zip(seats, strength.seat_faults(label, result))):
                tallies[robot].faults += count
                tallies[robot].times += result["times"].get(seat, [])
            if done % 20 == 0 or done == len(futures):
                print(f"{name}: {done}/{len(futures)} games, {time.monotonic() - started:.0f} s",
                      file=sys.stderr)
    return names, tallies, games, failed


def milliseconds(ms):
    """A time for the table: tenths of a millisecond, thousandths below one."""
    return f"{ms:.3f}" if ms < 1 else f"{ms:.1f}"


def table(ladder, names, tallies, games, failed, games_per_pairing):
    """The ladder as Markdown: a caption, then one line a robot, strongest first."""
    name, _, players, _ = ladder
    anchor = "random" if "random" in names else None
    if anchor is None:  # the weakest: the fewest points per game
        anchor = min(names, key=lambda r: tallies[r].points / max(tallies[r].games, 1))
    elo = fit_elo(names, games, anchor) if games else {robot: 0.0 for robot in names}
    pairings = len(names) * (len(names) - 1) // 2
    per_pairing = len(schedule(names, players, games_per_pairing)) // max(pairings, 1)
    group = "pairs" if players == 2 else "groups of 8"
    lines = [
        f"### {name}: {len(names)} robots, {pairings} pairings, {len(games)} games",
        "",
        f"{players} players, the game's default clock, {per_pairing} games a pairing"
        + (f" ({games_per_pairing} asked for, rounded up to whole {group})"
           if per_pairing != games_per_pairing else "")
        + ". Points: 1 a win, ½ a tie, by placement"
        + (" (each game of four: the lone robot against each of the three others)"
           if players > 2 else "")
        + f". Elo: maximum-likelihood Bradley–Terry fit over all games with one virtual drawn"
        f" game added to each pairing (so that a robot that wins or loses everything stays"
        f" finite), `{anchor}` = 0. Time: the referee's time from request to answer, per move.",
        "",
        "| robot | games | points share | Elo | median ms/move | max ms/move | faults |",
        "|---|---|---|---|---|---|---|",
    ]
    for robot in sorted(names, key=lambda r: -elo[r]):
        t = tallies[robot]
        share = f"{100 * t.points / t.games:.1f} %" if t.games else "–"
        median = milliseconds(statistics.median(t.times)) if t.times else "–"
        largest = milliseconds(max(t.times)) if t.times else "–"
        lines.append(f"| `{robot}` | {t.games} | {share} | {elo[robot]:.0f} | {median} | "
                     f"{largest} | {t.faults} |")
    if failed:
        lines += ["", f"{failed} matches Arbiter failed to play are left out (named on stderr)."]
    ladder_order = sorted(names, key=lambda r: -elo[r])
    return "\n".join(lines + [""] + cross_table(ladder_order, games)) + "\n"


def cross_table(order, games):
    """Markdown lines: the points share of each row's robot against each column's."""
    points, counts = collections.defaultdict(float), collections.defaultdict(int)
    for a, b, score in games:
        for x, y, s in ((a, b, score), (b, a, 1 - score)):
            points[x, y] += s
            counts[x, y] += 1
    cell = lambda x, y: f"{100 * points[x, y] / counts[x, y]:.0f} %" if counts[x, y] else "–"
    lines = ["| points share of the row against the column | "
             + " | ".join(f"`{r}`" for r in order) + " |", "|---" * (len(order) + 1) + "|"]
    return lines + [f"| `{x}` | " + " | ".join(cell(x, y) for y in order) + " |" for x in order]


def self_test():
    """The fit and the scoring on hand-made examples whose answers are known in closed form."""
    close = lambda x, y: abs(x - y) < 1e-6
    # 3 wins in 4 games, plus the virtual draw: 3.5 of 5, 400·log10(3.5 / 1.5) Elo apart.
    elo = fit_elo(["a", "b"], [("a", "b", 1)] * 3 + [("b", "a", 1)], "b")
    assert close(elo["a"], 400 * math.log10(3.5 / 1.5)) and elo["b"] == 0, elo
    # Everything won: finite thanks to the virtual draw, 20.5 of 21.
    elo = fit_elo(["random", "x"], [("x", "random", 1)] * 20, "random")
    assert close(elo["x"], 400 * math.log10(20.5 / 0.5)), elo
    # Points exactly as expected between known ratings: without a prior, the fit finds them.
    known = {"random": 0, "x": 200, "y": 500, "z": -100}
    expected = lambda a, b: 1 / (1 + 10 ** ((known[b] - known[a]) / 400))
    games = [(a, b, expected(a, b)) for a, b in itertools.combinations(known, 2)]
    elo = fit_elo(list(known), games, "random", prior_draws=0)
    assert all(close(elo[r], known[r]) for r in known), elo
    # One robot wins every game, one loses every game: all ratings finite, in the points' order.
    games = ([("a", "b", 1)] * 10 + [("b", "c", 0.75)] * 10 + [("a", "c", 1)] * 10)
    elo = fit_elo(["a", "b", "c"], games, "c")
    assert elo["a"] > elo["b"] > elo["c"] == 0 and all(map(math.isfinite, elo.values())), elo
    # Scoring by placement: two players, then a lone robot against three.
    assert duel(["x", "y"], [2, 1]) == ("x", "y", 0.0)
    assert duel(["y", "x"], [1, 1]) == ("y", "x", 0.5)
    assert duel(["y", "x", "y", "y"], [3, 1, 2, 4]) == ("x", "y", 1.0)
    assert close(duel(["y", "y", "x", "y"], [2, 1, 3, 4])[2], 1 / 3)
    # Seats: a 2-player pair swaps them on one seed; a group of 8 puts each robot alone in
    # each seat.
    assert [seating(2, "a", "b", i) for i in range(4)] == [
        (["a", "b"], 0), (["b", "a"], 0), (["a", "b"], 1), (["b", "a"], 1)]
    group = [seating(4, "a", "b", i) for i in range(8)]
    assert {pair for _, pair in group} == {0}
    assert [seats.index("a") for seats, _ in group[:4]] == [0, 1, 2, 3]
    assert [seats.index("b") for seats, _ in group[4:]] == [0, 1, 2, 3]
    assert len(schedule(["p", "q", "r"], 4, 20)) == 3 * 24
    assert len(schedule(["p", "q", "r"], 2, 3)) == 3 * 4
    print("robot-ladder: self-test passed")


def main():
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--arbiter",
                         default=os.path.join(HERE, "..", "target", "release", "arbiter"))
    options.add_argument("--games-per-pairing", type=int, default=20)
    options.add_argument("--jobs", type=int, default=2)
    options.add_argument("--only", nargs="+", choices=[ladder[0] for ladder in LADDERS])
    options.add_argument("--self-test", action="store_true")
    args = options.parse_args()
    if args.self_test:
        return self_test()
    if args.games_per_pairing < 1 or args.jobs < 1:
        options.error("--games-per-pairing and --jobs must be at least 1")
    if not os.access(args.arbiter, os.X_OK):
        options.error(f"--arbiter {args.arbiter}: no such program (cargo build --release?)")
    with tempfile.TemporaryDirectory(prefix="robot-ladder-") as replays:
        for ladder in LADDERS:
            if args.only and ladder[0] not in args.only:
                continue
            started = time.monotonic()
            names, tallies, games, failed = run_ladder(args, ladder, replays)
            print(table(ladder, names, tallies, games, failed, args.games_per_pairing), flush=True)
            print(f"{ladder[0]}: done in {time.monotonic() - started:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
