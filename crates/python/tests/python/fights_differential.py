#!/usr/bin/env python3
"""Differential test of the drop-in against the original: random games played through
`fights.envs.puoribor` 0.9.0 and `arbiter.compat.fights.envs.puoribor` side by side.

    fights_differential.py GAMES SEED

After every step the states must be equal (board and walls_remaining: dtype, shape, values;
done: type and value); before every step the legal-action masks of the agent on turn must be
equal (and every tenth step those of the other agent too); a few actions the mask refuses, and
malformed ones, must raise the same exception in both. For the first games the msgpack log of
the game, written as fights' logs are (state.to_dict(), action, agent_id, a Timestamp per step,
the timestamps fixed), must be byte for byte the same. A game stops when it is done or after
200 actions. Prints one JSON summary line; on a difference, says what and where on stderr and
exits 1.
"""
import json
import sys

import msgpack
import numpy as np
from fights.envs import puoribor as original

from arbiter.compat.fights.envs import puoribor as compat

MALFORMED = [[0, 9, 0], [0, -1, 4], [4, 0, 0], [-1, 2, 2], [3, 6, 0], [3, 0, 6], [1, 8, 0],
             [2, 0, 8], [1, 0, 8], [2, 8, 0]]
LOGGED_GAMES = 20


class Difference(Exception):
    pass


def same_array(what, theirs, ours):
    if not isinstance(ours, np.ndarray):
        raise Difference(f"{what}: ours is a {type(ours)}")
    if theirs.dtype != ours.dtype or theirs.shape != ours.shape:
        raise Difference(f"{what}: {theirs.dtype}{theirs.shape} upstream, ours {ours.dtype}{ours.shape}")
    if not np.array_equal(theirs, ours):
        where = np.argwhere(theirs != ours)[:5].tolist()
        raise Difference(f"{what}: values differ at {where}")


def same_state(theirs, ours):
    same_array("board", theirs.board, ours.board)
    same_array("walls_remaining", theirs.walls_remaining, ours.walls_remaining)
    if type(theirs.done) is not type(ours.done) or theirs.done != ours.done:
        raise Difference(f"done: {theirs.done!r} upstream, ours {ours.done!r}")


def refusal(env, state, agent, action):
    try:
        env.step(state, agent, action)
    except Exception as e:  # noqa: BLE001 - the point is which exception
        return type(e)
    return None


def refused_alike(envs, states, agent, action):
    theirs = refusal(envs[0], states[0], agent, action)
    ours = refusal(envs[1], states[1], agent, action)
    if theirs is None or theirs is not ours:
        raise Difference(f"action {action}: upstream raised {theirs}, ours {ours}")


def choose(rng, mask):
    legal = np.argwhere(mask)
    # Half the choices pick an action type first, so that rotations and pawn moves are played
    # often even while walls are plentiful (as crates/games/tests/python/fights_random_games.py).
    if rng.random() < 0.5:
        kind = rng.choice(np.unique(legal[:, 0]))
        legal = legal[legal[:, 0] == kind]
    return legal[rng.integers(len(legal))]


def log_element(state, action, agent, stamp):
    return {"state": state.to_dict(), "action": action, "agent_id": agent,
            "timestamp": msgpack.Timestamp.from_unix_nano(stamp)}


def play(rng, logged, counts):
    envs = (original.PuoriborEnv(), compat.PuoriborEnv())
    states = [env.initialize_state() for env in envs]
    same_state(*states)
    stamp = 1_700_000_000 * 10**9
    logs = [[log_element(state, None, None, stamp)] for state in states] if logged else None
    for tick in range(200):
        agent = tick % 2
        masks = [env.legal_actions(state, agent) for env, state in zip(envs, states)]
        same_array(f"mask of agent {agent}", *masks)
        if tick % 10 == 0:
            other = [env.legal_actions(state, 1 - agent) for env, state in zip(envs, states)]
            same_array(f"mask of agent {1 - agent}", *other)
        refused = np.argwhere(masks[0] == 0)
        for i in rng.choice(len(refused), size=min(2, len(refused)), replace=False):
            refused_alike(envs, states, agent, refused[i])
        refused_alike(envs, states, agent, MALFORMED[rng.integers(len(MALFORMED))])
        counts["illegal"] += 3
        action = choose(rng, masks[0])
        states = [env.step(state, agent, action) for env, state in zip(envs, states)]
        counts["plies"] += 1
        same_state(*states)
        if logged:
            stamp += 1_000_003 * (tick + 1)
            for log, state in zip(logs, states):
                log.append(log_element(state, action.tolist(), agent, stamp))
        if states[0].done:
            break
    if logged:
        theirs, ours = (msgpack.packb(log) for log in logs)
        if theirs != ours:
            raise Difference(f"the msgpack logs differ ({len(theirs)} and {len(ours)} bytes)")
        counts["logs"] += 1


def main():
    games, seed = int(sys.argv[1]), int(sys.argv[2])
    rng = np.random.default_rng(seed)
    counts = {"games": 0, "plies": 0, "illegal": 0, "logs": 0}
    for game in range(games):
        try:
            play(rng, game < LOGGED_GAMES, counts)
        except Difference as e:
            print(f"seed {seed}, game {game}, after {counts['plies']} plies in all: {e}",
                  file=sys.stderr)
            sys.exit(1)
        counts["games"] += 1
    print(json.dumps(counts))


if __name__ == "__main__":
    main()
