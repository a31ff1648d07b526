#!/usr/bin/env python3
"""Labyrinth starter bot: speaks the block protocol of docs/games/labyrinth.md ("Protocol").

Works unchanged over pipes (`arbiter play labyrinth --bot "python3 starter.py" ...`) and, with
a LOGIN block written first, against the TCP server. Each turn it tries every push, walks to
the reachable cell nearest its target (Manhattan), and keeps the best push.
"""
import sys

N, W, S, E = 1, 2, 4, 8


def rot(t):
    return ((t << 1) | (t >> 3)) & 15


def rotations(t):
    out = []
    for _ in range(4):
        if t not in out:
            out.append(t)
        t = rot(t)
    return sorted(out)


def read_block():
    """The lines of one block up to its `.`; None at the end of input."""
    lines = []
    for raw in sys.stdin:
        line = raw.strip()
        if line == ".":
            return lines
        if line:
            lines.append(line.split())
    return None


def reach(tiles, n, m, start):
    seen = {start}
    stack = [start]
    while stack:
        x, y = stack.pop()
        t = tiles[y * n + x]
        for side, back, dx, dy in ((N, S, 0, -1), (W, E, -1, 0), (S, N, 0, 1), (E, W, 1, 0)):
            u, v = x + dx, y + dy
            if t & side and 0 <= u < n and 0 <= v < m and tiles[v * n + u] & back and (u, v) not in seen:
                seen.add((u, v))
                stack.append((u, v))
    return seen


def push(tiles, n, m, c, p, k, t, cells):
    """The tiles after PUSH c p k t, and where each of `cells` moves."""
    tiles = list(tiles)
    if c == 0:
        row = tiles[k * n:(k + 1) * n]
        row = [t] + row[:-1] if p == 1 else row[1:] + [t]
        tiles[k * n:(k + 1) * n] = row
        step = 1 if p == 1 else -1
        cells = [((x + step) % n, y) if y == k else (x, y) for x, y in cells]
    else:
        col = [tiles[y * n + k] for y in range(m)]
        col = [t] + col[:-1] if p == 1 else col[1:] + [t]
        for y in range(m):
            tiles[y * n + k] = col[y]
        step = 1 if p == 1 else -1
        cells = [(x, (y + step) % m) if x == k else (x, y) for x, y in cells]
    return tiles, cells


def main():
    me = None
    n = m = 0
    blocked = []
    while True:
        block = read_block()
        if block is None:
            return
        if not block:
            continue
        key = block[0][0]
        if key == "END":
            return
        if key == "ID":
            for words in block:
                if words[0] == "PLAYER":
                    me = int(words[1])
                elif words[0] == "SIZE":
                    n, m = int(words[1]), int(words[2])
                elif words[0] == "BLOCKED":
                    blocked.append((int(words[1]), int(words[2])))
            continue
        if key != "TICK":
            continue  # SCORE, a login reply: nothing to answer
        state = {}
        displays, positions = {}, {}
        for words in block:
            if words[0] == "DISPLAY":
                displays[int(words[1])] = (int(words[2]), int(words[3]))
            elif words[0] == "POSITION":
                positions[int(words[1])] = (int(words[2]), int(words[3]))
            else:
                state[words[0]] = words[1:]
        if int(state["PLAYER"][0]) != me or "EXTRAFIELD" not in state:
            continue  # another seat's turn: do not answer
        tiles = [int(t) for t in state["FIELDS"]]
        extra = int(state["EXTRAFIELD"][0])
        target = displays.get(int(state["TARGET"][0]))
        best = None
        for c in (0, 1):
            for p in (0, 1):
                for k in range(m if c == 0 else n):
                    if any((y if c == 0 else x) == k for x, y in blocked):
                        continue
                    for t in rotations(extra):
                        after, (at, goal) = push(tiles, n, m, c, p, k, t, [positions[me], target])
                        for x, y in sorted(reach(after, n, m, at), key=lambda q: (q[1], q[0])):
                            d = abs(x - goal[0]) + abs(y - goal[1])
                            if best is None or d < best[0]:
                                best = (d, (c, p, k, t), (x, y))
        d, (c, p, k, t), (x, y) = best
        sys.stdout.write(f"PUSH {c} {p} {k} {t}\nGOTO {x} {y}\n.\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
