# A Quoridor bot for the builds' tests that crashes at its first turn.
import sys

players = int(sys.stdin.readline())
for _ in range(2 + players):
    sys.stdin.readline()
tick = sys.stdin.readline()
raise RuntimeError("no idea what to do at tick " + tick.strip())
