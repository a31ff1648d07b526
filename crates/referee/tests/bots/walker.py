#!/usr/bin/env python3
"""A deterministic Quoridor test bot: walks its pawn straight to its goal row (2 players), and
misbehaves on demand, as the flags say. Turns are counted from 1, its own turns only.

  --log TEXT            write TEXT to stderr at every turn, before answering
  --log-wait SECONDS    after logging, wait before answering (so the log lands in that tick)
  --extra               send an extra line after every answer, in the same write
  --garbage             answer "hello world" instead of a move
  --long-line           answer a line of 100000 digits instead of a move
  --late-turn K         on turn K, sleep --late-seconds before answering
  --late-seconds S
  --hang-turn K         on turn K, never answer (and keep reading nothing)
  --crash-turn K        on turn K, raise an exception (exit code 1, traceback on stderr)
  --exit-turn K         on turn K, exit with code 0 without answering
  --close-stdout-turn K on turn K, close stdout and keep running
  --flood-mb N          write N MB to stderr before reading anything
  --child               start a child (sleep) that inherits stdout/stderr and outlives us
  --ignore-end          ignore SIGTERM, and keep running after the end message
"""
import argparse
import os
import signal
import subprocess
import sys
import time

parser = argparse.ArgumentParser()
parser.add_argument("--log")
parser.add_argument("--log-wait", type=float, default=0.0)
parser.add_argument("--extra", action="store_true")
parser.add_argument("--garbage", action="store_true")
parser.add_argument("--long-line", action="store_true")
parser.add_argument("--late-turn", type=int)
parser.add_argument("--late-seconds", type=float, default=0.5)
parser.add_argument("--hang-turn", type=int)
parser.add_argument("--crash-turn", type=int)
parser.add_argument("--exit-turn", type=int)
parser.add_argument("--close-stdout-turn", type=int)
parser.add_argument("--flood-mb", type=int, default=0)
parser.add_argument("--child", action="store_true")
parser.add_argument("--ignore-end", action="store_true")
args = parser.parse_args()

if args.ignore_end:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
if args.child:
    subprocess.Popen(["sleep", "1000"])
if args.flood_mb:
    chunk = b"x" * (1 << 20)
    for _ in range(args.flood_mb):
        sys.stderr.buffer.write(chunk)
    sys.stderr.buffer.flush()


def lines():
    for line in sys.stdin:
        line = line.strip()
        if line:
            yield line


def sleep_forever():
    while True:
        time.sleep(1000)


source = lines()
players = int(next(source))
me = int(next(source))
size = int(next(source))
for _ in range(players):
    next(source)

turn = 0
for line in source:
    tick = int(line)
    if tick == -1:
        if args.ignore_end:
            sleep_forever()
        break
    pawns = [tuple(int(v) for v in next(source).split()[:2]) for _ in range(players)]
    for _ in range(int(next(source))):
        next(source)
    turn += 1

    if args.log:
        sys.stderr.write(args.log)
        sys.stderr.flush()
        time.sleep(args.log_wait)
    if turn == args.hang_turn:
        sleep_forever()
    if turn == args.crash_turn:
        raise RuntimeError("crashing on purpose on turn %d" % turn)
    if turn == args.exit_turn:
        sys.exit(0)
    if turn == args.close_stdout_turn:
        sys.stdout.close()
        os.close(1)
        sleep_forever()
    if turn == args.late_turn:
        time.sleep(args.late_seconds)

    x, y = pawns[me]
    forward = 1 if me == 0 else -1
    centre = size // 2
    occupied = set(pawns)
    if me == 0 and x == centre:
        # Step aside first, so the two walkers never meet head-on.
        candidates = [(x - 1, y)]
    else:
        candidates = [(x, y + forward), (x - 1, y), (x + 1, y), (x, y - forward)]
    move = next(
        (c for c in candidates if 0 <= c[0] < size and 0 <= c[1] < size and c not in occupied),
        candidates[0],
    )
    answer = "hello world" if args.garbage else "%d %d" % move
    if args.long_line:
        answer = "1" * 100000
    if args.extra:
        answer += "\nand another thing"
    sys.stdout.write(answer + "\n")
    sys.stdout.flush()
