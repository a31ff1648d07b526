#!/usr/bin/env python3
"""How many ladder games an arena plays a minute on this machine, with 50 robot bots, on a
SQLite file and on PostgreSQL: the throughput figures of docs/arena.md (this script builds
nothing; it runs the arbiter binary).

    scripts/arena-ladder-throughput.py [--arbiter target/release/arbiter] [--minutes 3]
                                       [--warmup 30] [--match-jobs 2] [--backend sqlite|postgres|both]
                                       [--json]

For each store it enrolls 50 Quoridor robots: the four that do not search (random, runner,
blocker, aiarena-hard) and `strong` at 46 node budgets (50, 100, ... 2300 nodes a move; each
budget is a bot of its own, and a node budget plays the same moves on every machine). It starts
`arbiter arena serve --ladder-pace unlimited --match-jobs N` (the server plays the games itself,
N at a time), waits until `--warmup` games are done, and then counts the games finished over
`--minutes` minutes, from the public leaderboard (`GET /api/arena/quoridor/leaderboard`: each
2-player game adds one to two bots' `games`). The store's own cost per game (matchmaking, the
result and the rating update), if the server prints it when it stops, is read from its stderr.

PostgreSQL: a throw-away cluster is started for the run in a temporary folder (as the user
`postgres` when this runs as root, as the tests' clusters do) and removed at the end; or give
`--pg-url postgres://…` of a database of your own. The machine may be shared: the load average
before and after each run is printed with the figures. A table goes to stdout (one JSON object
with --json), progress to stderr. Everything is written under a temporary folder, removed at the
end; the server is stopped with SIGTERM.
"""
import argparse
import glob
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
PLAIN_ROBOTS = ["random", "runner", "blocker", "aiarena-hard"]
BUDGETS = [50 * k for k in range(1, 47)]
PATIENCE = 600


def say(text):
    print(text, file=sys.stderr, flush=True)


def robots():
    """The 50 members of the ladder."""
    return PLAIN_ROBOTS + [f"strong/nodes={n}" for n in BUDGETS]


def load():
    return os.getloadavg()[0]


class Postgres:
    """A throw-away PostgreSQL cluster in a folder of its own, trusted on 127.0.0.1."""

    def __init__(self, folder):
        bins = sorted(glob.glob("/usr/lib/postgresql/*/bin"))
        self.bin = bins[-1] if bins else os.path.dirname(shutil.which("initdb") or "")
        if not os.path.exists(os.path.join(self.bin, "initdb")):
            sys.exit("arena-ladder-throughput: no initdb (scripts/setup installs PostgreSQL)")
        self.dir = folder
        self.run_as = []
        if os.geteuid() == 0:
            self.run_as = ["setpriv", "--reuid", "postgres", "--regid", "postgres",
                           "--init-groups", "--"]
            shutil.chown(folder, "postgres", "postgres")
        data = os.path.join(folder, "data")
        subprocess.run(self.run_as + [os.path.join(self.bin, "initdb"), "--no-sync",
                                      "--auth=trust", "--username=arbiter", "-D", data],
                       check=True, stdout=subprocess.DEVNULL, cwd=folder)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        log = open(os.path.join(folder, "postgres.log"), "w")
        self.server = subprocess.Popen(
            self.run_as + [os.path.join(self.bin, "postgres"), "-D", data,
                           "-p", str(self.port), "-c", "listen_addresses=127.0.0.1",
                           "-c", f"unix_socket_directories={folder}",
                           "-c", "fsync=off", "-c", "synchronous_commit=off",
                           "-c", "full_page_writes=off", "-c", "max_connections=200"],
            stdout=log, stderr=log, cwd=folder)
        deadline = time.time() + 60
        while subprocess.run([os.path.join(self.bin, "pg_isready"), "-q", "-h", "127.0.0.1",
                              "-p", str(self.port), "-U", "arbiter"]).returncode != 0:
            if time.time() > deadline or self.server.poll() is not None:
                sys.exit(f"arena-ladder-throughput: postgres did not start, see {folder}")
            time.sleep(0.1)
        self.made = 0

    def database(self):
        self.made += 1
        name = f"arena{self.made}"
        subprocess.run([os.path.join(self.bin, "createdb"), "-h", "127.0.0.1", "-p",
                        str(self.port), "-U", "arbiter", name], check=True)
        return f"postgres://arbiter@127.0.0.1:{self.port}/{name}"

    def stop(self):
        self.server.terminate()
        try:
            self.server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.server.kill()
            self.server.wait()


def games_done(url):
    """Ladder games finished, from the leaderboard: every game seats two bots."""
    with urllib.request.urlopen(f"{url}/api/arena/quoridor/leaderboard", timeout=30) as r:
        board = json.load(r)
    return sum(entry["games"] for entry in board) / 2


def wait_games(url, at_least):
    deadline = time.time() + PATIENCE
    while (done := games_done(url)) < at_least:
        if time.time() > deadline:
            sys.exit(f"arena-ladder-throughput: {done} games after {PATIENCE} s, "
                     f"waited for {at_least}")
        time.sleep(0.5)
    return done


def measure(args, backend, db, folder):
    """Games a minute at `db`, and the store's own cost per game if the server tells it."""
    for robot in robots():
        subprocess.run([args.arbiter, "arena", "robot", "add", "quoridor", robot, "--db", db],
                       check=True, stdout=subprocess.DEVNULL)
    stderr = open(os.path.join(folder, f"serve-{backend}.log"), "w+")
    server = subprocess.Popen(
        [args.arbiter, "arena", "serve", "--db", db, "--listen", "127.0.0.1:0",
         "--game", "quoridor", "--ladder-pace", "unlimited",
         "--match-jobs", str(args.match_jobs)],
        stdout=subprocess.PIPE, stderr=stderr, text=True)
    try:
        line = server.stdout.readline().strip()
        if not line.startswith("arena on "):
            sys.exit(f"arena-ladder-throughput: serve printed {line!r}")
        url = line.removeprefix("arena on ")
        say(f"{backend}: {url}, warming up")
        before = load()
        start_games = wait_games(url, args.warmup)
        started = time.time()
        time.sleep(args.minutes * 60)
        games = games_done(url) - start_games
        minutes = (time.time() - started) / 60
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=120)
    stderr.seek(0)
    cost = [l.strip() for l in stderr if "per game" in l]
    result = {"backend": backend, "games": games, "minutes": round(minutes, 2),
              "games_per_minute": round(games / minutes, 1),
              "load_before": round(before, 2), "load_after": round(load(), 2),
              "store_cost": cost[-1] if cost else None}
    say(f"{backend}: {result}")
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arbiter", default=os.path.join(ROOT, "target/release/arbiter"))
    parser.add_argument("--minutes", type=float, default=3)
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--match-jobs", type=int, default=2)
    parser.add_argument("--backend", choices=["sqlite", "postgres", "both"], default="both")
    parser.add_argument("--pg-url")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="arbiter-ladder-throughput-")
    os.chmod(folder, 0o755)
    cluster = None
    results = []
    try:
        if args.backend in ("sqlite", "both"):
            results.append(measure(args, "sqlite", os.path.join(folder, "arena.db"), folder))
        if args.backend in ("postgres", "both"):
            db = args.pg_url
            if db is None:
                pg_folder = os.path.join(folder, "pg")
                os.mkdir(pg_folder)
                cluster = Postgres(pg_folder)
                db = cluster.database()
            results.append(measure(args, "postgres", db, folder))
    finally:
        if cluster:
            cluster.stop()
        shutil.rmtree(folder, ignore_errors=True)
    if args.json:
        print(json.dumps(results))
        return
    print(f"{'store':<10} {'games':>7} {'minutes':>8} {'games/min':>10} {'load':>11}  store cost")
    for r in results:
        print(f"{r['backend']:<10} {r['games']:>7.0f} {r['minutes']:>8.2f} "
              f"{r['games_per_minute']:>10.1f} {r['load_before']:>5.2f}→{r['load_after']:<5.2f}"
              f"  {r['store_cost'] or '-'}")


if __name__ == "__main__":
    main()
