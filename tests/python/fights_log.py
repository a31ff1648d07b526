#!/usr/bin/env python3
"""The Python side of tests/puoribor.rs: reads and writes the msgpack logs of the original
Puoribor environment (`fights` 0.9.0) with Python's `msgpack`.

    fights_log.py check LOG NOT_BEFORE NOT_AFTER
        Decodes a log written by `arbiter replay export` and checks it field by field: the
        element and state keys, the board's shape and labels, actions, agent ids, timestamps
        (msgpack Timestamps between the two Unix times, in seconds, never going back), and that
        replaying the actions in the original environment gives every board and `done`.
        Prints one JSON summary line.
    fights_log.py write LOG SEED
        Plays a random game in the original environment and writes its log as upstream's
        example does, with correct timestamps (Timestamp.from_unix_nano).
"""
import json
import sys
import time

import msgpack
import numpy as np
from fights.envs import puoribor


def fail(message):
    print(message, file=sys.stderr)
    sys.exit(1)


def check(path, not_before, not_after):
    with open(path, "rb") as f:
        log = msgpack.unpackb(f.read())
    if not isinstance(log, list) or not log:
        fail("the log is not a non-empty list")
    env = puoribor.PuoriborEnv()
    state = env.initialize_state()
    last = None
    for i, element in enumerate(log):
        if list(element) != ["state", "action", "agent_id", "timestamp"]:
            fail(f"element {i} has keys {list(element)}")
        s = element["state"]
        if list(s) != ["board", "walls_remaining", "done"]:
            fail(f"element {i}: state keys {list(s)}")
        board = s["board"]
        if len(board) != 6 or any(len(c) != 9 or any(len(col) != 9 for col in c) for c in board):
            fail(f"element {i}: the board is not [6][9][9]")
        if not all(type(v) is int for c in board for col in c for v in col):
            fail(f"element {i}: the board holds non-integers")
        if not all(v in (0, 1, 2) for c in board[2:4] for col in c for v in col):
            fail(f"element {i}: wall labels outside 0, 1, 2")
        if not all(v in (0, 1) for c in board[:2] + board[4:] for col in c for v in col):
            fail(f"element {i}: pawns or midpoints outside 0, 1")
        if type(s["done"]) is not bool:
            fail(f"element {i}: done is not a bool")
        stamp = element["timestamp"]
        if not isinstance(stamp, msgpack.Timestamp):
            fail(f"element {i}: the timestamp is {type(stamp)}, not a msgpack Timestamp")
        seconds = stamp.to_unix()
        if not not_before <= seconds <= not_after:
            fail(f"element {i}: timestamp {seconds} not within [{not_before}, {not_after}]")
        if last is not None and stamp.to_unix_nano() < last:
            fail(f"element {i}: the timestamp goes back")
        last = stamp.to_unix_nano()
        if i == 0:
            if element["action"] is not None or element["agent_id"] is not None:
                fail("element 0 has an action or an agent")
        else:
            action, agent = element["action"], element["agent_id"]
            if not (isinstance(action, list) and len(action) == 3 and all(type(v) is int for v in action)):
                fail(f"element {i}: action {action!r}")
            if agent != (i - 1) % 2:
                fail(f"element {i}: agent_id {agent!r}")
            state = env.step(state, agent, action)
        if not (state.board == np.array(board)).all():
            fail(f"element {i}: the board differs from the original environment's")
        if state.walls_remaining.tolist() != s["walls_remaining"]:
            fail(f"element {i}: walls_remaining {s['walls_remaining']}")
        if state.done != s["done"]:
            fail(f"element {i}: done {s['done']}")
    print(json.dumps({"elements": len(log), "done": log[-1]["state"]["done"],
                      "first": log[0]["timestamp"].to_unix(), "last": log[-1]["timestamp"].to_unix()}))


def write(path, seed):
    env = puoribor.PuoriborEnv()
    rng = np.random.default_rng(seed)
    state = env.initialize_state()
    log = [{"state": state.to_dict(), "action": None, "agent_id": None,
            "timestamp": msgpack.Timestamp.from_unix_nano(time.time_ns())}]
    for tick in range(200):
        agent = tick % 2
        legal = np.argwhere(env.legal_actions(state, agent))
        action = legal[rng.integers(len(legal))]
        state = env.step(state, agent, action)
        log.append({"state": state.to_dict(), "action": action.tolist(), "agent_id": agent,
                    "timestamp": msgpack.Timestamp.from_unix_nano(time.time_ns())})
        if state.done:
            break
    with open(path, "wb") as f:
        f.write(msgpack.packb(log))
    print(json.dumps({"elements": len(log), "done": bool(state.done)}))


if __name__ == "__main__":
    if sys.argv[1] == "check":
        check(sys.argv[2], float(sys.argv[3]), float(sys.argv[4]))
    elif sys.argv[1] == "write":
        write(sys.argv[2], int(sys.argv[3]))
    else:
        fail(f"unknown mode {sys.argv[1]}")
