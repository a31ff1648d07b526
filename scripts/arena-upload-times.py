#!/usr/bin/env python3
"""How long an upload to the arena takes to play, and the arena's memory while it builds: the
measurements of docs/arena.md, made with the arbiter binary (this script builds nothing).

    scripts/arena-upload-times.py [--arbiter target/release/arbiter] [--rounds 10] [--burst 20]
                                  [--build-times target/release/examples/build_times] [--json]

It starts `arbiter arena serve` on a fresh SQLite file (Quoridor only, building and checking in
its own process, `--build-jobs` at a time), makes a user and an API token, and then:

- hands in the Quoridor starters of examples/quoridor (C++ and Python), `--rounds` versions each,
  one after the other, with `arbiter submit … --json`, each waiting until its version is active.
  The store says when each step happened (arena_versions and arena_jobs, Unix ms), so each is
  split into upload (submit started → version stored), queue (waits for a worker, before the
  build and before the check), build and check (each job's started → finished), and to active
  (submit started → check finished). `submit` is the wall clock of the `arbiter submit` process:
  it looks at the version with a growing pause (up to 2 s), so it ends later than "to active";
  the overhead column is the difference.
- hands in `--burst` versions at once (`--burst` submit processes started together, new bots,
  the two starters in turn) and samples, every 50 ms until all are active: the arena process's
  VmRSS (and VmHWM, its peak over its whole life, from /proc/PID/status), the resident memory of
  its child processes (builds and check games), and the machine's memory in use (MemTotal −
  MemAvailable of /proc/meminfo). The kernel updates these counters in batches, so they are
  right to a few hundred KiB (VmHWM may read a little under a VmRSS seen before it).
- runs the example build_times of arbiter-builds, if its binary is there (`cargo build --release
  -p arbiter-builds --example build_times`): the same starters built with the sandbox and
  without it, the sandbox's share of a build.

The machine may be shared: the load average before and after is printed with the figures. A
table goes to stdout (one JSON object with --json), progress to stderr. Everything is written
under a temporary folder, removed at the end; the server is stopped with SIGTERM.
"""
import argparse
import json
import os
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
STARTERS = {
    "C++": os.path.join(ROOT, "examples", "quoridor", "starter.cpp"),
    "Python": os.path.join(ROOT, "examples", "quoridor", "starter.py"),
}
USER = "bench"
SAMPLE_SECONDS = 0.05


def now_ms():
    return int(time.time() * 1000)


def say(text):
    print(text, file=sys.stderr, flush=True)


def load_average():
    with open("/proc/loadavg") as f:
        return [float(x) for x in f.read().split()[:3]]


def start_arena(args, tmp):
    """Starts the server; returns (process, its address). Its output goes to files under tmp:
    a pipe nobody reads would stop it once full."""
    out = open(os.path.join(tmp, "arena.out"), "w")
    err = open(os.path.join(tmp, "arena.err"), "w")
    command = [args.arbiter, "arena", "serve", "--db", os.path.join(tmp, "arena.db"),
               "--listen", "127.0.0.1:0", "--game", "quoridor",
               "--uploads-per-day", "100000", "--build-jobs", str(args.build_jobs)]
    # Its work folders (builds, check games) go under tmp too, whose mode lets the sandbox's
    # users reach them as they reach the system's temporary folder.
    work = os.path.join(tmp, "tmp")
    os.mkdir(work)
    os.chmod(tmp, 0o755)
    os.chmod(work, 0o1777)
    server = subprocess.Popen(command, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                              env=dict(os.environ, TMPDIR=work))
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with open(os.path.join(tmp, "arena.out")) as f:
            for line in f:
                if line.startswith("arena on "):
                    return server, line.split()[-1]
        if server.poll() is not None:
            break
        time.sleep(0.05)
    stop_arena(server)
    with open(os.path.join(tmp, "arena.err")) as f:
        raise SystemExit(f"arbiter arena serve did not say `arena on ADDR` within 30 s:\n{f.read()}")


def stop_arena(server):
    if server.poll() is None:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            say("the arena did not stop within 30 s of SIGTERM: killed")
            server.kill()
            server.wait()


def make_token(args, db):
    subprocess.run([args.arbiter, "arena", "user", "add", USER, "--db", db],
                   input="a password for the benchmark\n", text=True, check=True,
                   capture_output=True)
    done = subprocess.run([args.arbiter, "arena", "token", USER, "--db", db],
                          text=True, check=True, capture_output=True)
    return done.stdout.strip()


def submit_command(args, url, bot, path):
    return [args.arbiter, "submit", "--arena", url, "--bot", bot, "--game", "quoridor", path,
            "--json"]


def finish_submit(process, bot):
    """Waits for a submit process; its JSON answer, or the reason it failed."""
    out, err = process.communicate()
    if process.returncode != 0:
        raise SystemExit(f"arbiter submit of {bot} exited with {process.returncode}:\n{err}")
    answer = json.loads(out)
    if answer.get("state") != "active":
        raise SystemExit(f"arbiter submit of {bot}: version {answer} is not active")
    return answer


def steps(db, bot, number):
    """When the version was stored and its build and check jobs started and finished."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as store:
        created, version_id = store.execute(
            "SELECT v.created, v.id FROM arena_versions v JOIN arena_bots b ON b.id = v.bot_id "
            "WHERE b.game = 'quoridor' AND b.name = ? AND v.number = ?", (bot, number)).fetchone()
        jobs = {kind: (started, finished) for kind, started, finished in store.execute(
            "SELECT kind, started, finished FROM arena_jobs WHERE version_id = ? ORDER BY id",
            (version_id,))}
    return created, jobs["build"], jobs["check"]


def sequential(args, env, url, db, language, path):
    """`--rounds` versions of one bot, one after the other: the split of each, in ms."""
    bot = f"{language.lower().replace('+', 'p')}-starter"
    rows = []
    for round_ in range(args.rounds):
        started = now_ms()
        clock = time.monotonic()
        process = subprocess.Popen(submit_command(args, url, bot, path), env=env, text=True,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        answer = finish_submit(process, bot)
        wall = (time.monotonic() - clock) * 1000
        created, (build_start, build_end), (check_start, check_end) = steps(
            db, bot, answer["version"])
        row = {
            "upload": created - started,
            "queue": (build_start - created) + (check_start - build_end),
            "build": build_end - build_start,
            "check": check_end - check_start,
            "to_active": check_end - started,
            "submit": round(wall),
        }
        row["overhead"] = row["submit"] - row["to_active"]
        rows.append(row)
        say(f"{language} round {round_ + 1}: " + ", ".join(f"{k} {v} ms" for k, v in row.items()))
    return rows


def status_kb(pid, field):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except (FileNotFoundError, ProcessLookupError):
        pass
    return 0


def descendants_rss_kb(pid):
    """The resident memory of every process below pid (builds, check games, their bots)."""
    parents = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                # The name, in parentheses, may hold spaces: the fields after its ')' are fixed.
                fields = f.read().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError, IndexError):
            continue
        parents[int(entry)] = int(fields[1])
    below, found = {pid}, True
    while found:
        found = False
        for child, parent in parents.items():
            if parent in below and child not in below:
                below.add(child)
                found = True
    return sum(status_kb(p, "VmRSS") for p in below if p != pid)


def machine_used_kb():
    values = {}
    with open("/proc/meminfo") as f:
        for line in f:
            name, value = line.split(":", 1)
            values[name] = int(value.split()[0])
    return values["MemTotal"] - values["MemAvailable"]


def burst(args, env, url, server):
    """`--burst` versions handed in at once, the memory sampled until all are active."""
    languages = list(STARTERS)
    before = {"arena_rss": status_kb(server.pid, "VmRSS"), "machine_used": machine_used_kb()}
    peak = {"arena_rss": 0, "children_rss": 0, "machine_used": 0}
    processes = []
    clock = time.monotonic()
    for i in range(args.burst):
        language = languages[i % len(languages)]
        bot = f"burst-{i + 1}"
        processes.append((bot, subprocess.Popen(
            submit_command(args, url, bot, STARTERS[language]), env=env, text=True,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE)))
    samples = 0
    while any(p.poll() is None for _, p in processes):
        peak["arena_rss"] = max(peak["arena_rss"], status_kb(server.pid, "VmRSS"))
        peak["children_rss"] = max(peak["children_rss"], descendants_rss_kb(server.pid))
        peak["machine_used"] = max(peak["machine_used"], machine_used_kb())
        samples += 1
        time.sleep(SAMPLE_SECONDS)
    for bot, process in processes:
        finish_submit(process, bot)
    seconds = time.monotonic() - clock
    say(f"burst of {args.burst}: all active after {seconds:.1f} s, {samples} samples")
    return {
        "uploads": args.burst,
        "seconds": round(seconds, 1),
        "samples": samples,
        "before_mib": {k: round(v / 1024, 1) for k, v in before.items()},
        "peak_mib": {k: round(v / 1024, 1) for k, v in peak.items()},
        "arena_hwm_mib": round(status_kb(server.pid, "VmHWM") / 1024, 1),
        "machine_total_mib": round(machine_total_kb() / 1024),
    }


def machine_total_kb():
    with open("/proc/meminfo") as f:
        return int(f.readline().split()[1])


def build_times(args):
    """The output lines of the example build_times (the sandbox's share of a build), if built."""
    if not args.build_times:
        return None
    if not os.path.exists(args.build_times):
        say(f"no {args.build_times}: build it with `cargo build --release -p arbiter-builds "
            "--example build_times` for the sandbox's share of a build")
        return None
    say(f"running {args.build_times} {args.build_time_rounds}")
    done = subprocess.run([args.build_times, str(args.build_time_rounds)], text=True,
                          capture_output=True, check=True)
    return [line for line in done.stdout.splitlines() if line.strip()]


def summary(rows):
    return {key: {"median": statistics.median(r[key] for r in rows),
                  "min": min(r[key] for r in rows), "max": max(r[key] for r in rows)}
            for key in rows[0]}


def print_table(result):
    load = lambda key: " ".join(f"{x:.2f}" for x in result[key])
    print(f"machine: {result['cpus']} cores, load average (1, 5, 15 min) {load('load_before')} "
          f"before, {load('load_after')} after the arena's part")
    print(f"upload to active, ms: median (min-max) of {result['rounds']} versions each")
    keys = list(next(iter(result["sequential"].values())))
    print(f"{'':8}" + "".join(f"{k:>20}" for k in keys))
    for language, stats in result["sequential"].items():
        cells = [f"{s['median']:g} ({s['min']}-{s['max']})" for s in stats.values()]
        print(f"{language:8}" + "".join(f"{c:>20}" for c in cells))
    b = result["burst"]
    print(f"\n{b['uploads']} uploads at once, all active after {b['seconds']} s; MiB:")
    print(f"  arena process RSS: {b['before_mib']['arena_rss']} before, "
          f"{b['peak_mib']['arena_rss']} peak (VmHWM over its life {b['arena_hwm_mib']})")
    print(f"  its children (builds, check games) RSS: {b['peak_mib']['children_rss']} peak")
    print(f"  machine in use: {b['before_mib']['machine_used']} before, "
          f"{b['peak_mib']['machine_used']} peak, of {b['machine_total_mib']}")
    if result["build_times"]:
        print("\nbuild_times (crates/builds/examples/build_times.rs):")
        for line in result["build_times"]:
            print(f"  {line}")


def main():
    options = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    options.add_argument("--arbiter", default=os.path.join(ROOT, "target", "release", "arbiter"))
    options.add_argument("--rounds", type=int, default=10)
    options.add_argument("--burst", type=int, default=20)
    options.add_argument("--build-jobs", type=int, default=1,
                         help="the server's --build-jobs (its default is 1)")
    options.add_argument("--build-times", default=os.path.join(
        ROOT, "target", "release", "examples", "build_times"),
                         help="the example's binary; an empty string skips it")
    options.add_argument("--build-time-rounds", type=int, default=5)
    options.add_argument("--json", action="store_true")
    args = options.parse_args()
    if args.rounds < 1 or args.burst < 1:
        options.error("--rounds and --burst are at least 1")

    result = {"cpus": os.cpu_count(), "load_before": load_average(), "rounds": args.rounds}
    tmp = tempfile.mkdtemp(prefix="arena-upload-times-")
    server = None
    try:
        db = os.path.join(tmp, "arena.db")
        server, address = start_arena(args, tmp)
        url = address if address.startswith("http") else f"http://{address}"
        say(f"arena on {url} (pid {server.pid})")
        env = dict(os.environ, ARBITER_TOKEN=make_token(args, db))
        result["sequential"] = {
            language: summary(sequential(args, env, url, db, language, path))
            for language, path in STARTERS.items()
        }
        result["burst"] = burst(args, env, url, server)
        stop_arena(server)
        result["load_after"] = load_average()
        result["build_times"] = build_times(args)
    finally:
        if server is not None:
            stop_arena(server)
        shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print_table(result)


if __name__ == "__main__":
    main()
