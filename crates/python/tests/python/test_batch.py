"""The batched environments of arbiter.batch: the arrays (shapes, dtypes, written in place),
the same-step reset, refused actions, seeding, and masks, observations and rewards equal to
the PettingZoo environments' for the same positions."""

import threading

import numpy as np
import pytest

from arbiter.batch import PuoriborBatch, QuoridorBatch
from arbiter.pettingzoo import puoribor_v0, quoridor_v0

KINDS = {
    "quoridor": (lambda n, **kw: QuoridorBatch(n, **kw), (6, 9, 9), 209, 2),
    "quoridor4": (lambda n, **kw: QuoridorBatch(n, players=4, **kw), (10, 9, 9), 209, 4),
    "quoridor5": (lambda n, **kw: QuoridorBatch(n, board=5, **kw), (6, 5, 5), 57, 2),
    "puoribor": (lambda n, **kw: PuoriborBatch(n, **kw), (10, 9, 9), 324, 2),
}


@pytest.fixture(params=sorted(KINDS))
def kind(request):
    return KINDS[request.param]


def arrays(env):
    return [env.obs, env.mask, env.rewards, env.dones, env.to_move]


def snapshot(env):
    return [a.copy() for a in arrays(env)]


def test_the_arrays_have_their_shapes_and_dtypes(kind):
    make, shape, actions, players = kind
    env = make(5)
    assert (env.num_envs, env.num_players, env.action_count) == (5, players, actions)
    assert env.observation_shape == shape
    expected = [
        ((5,) + shape, np.uint8),
        ((5, actions), np.uint8),
        ((5, players), np.float32),
        ((5,), np.bool_),
        ((5,), np.uint8),
    ]
    for array, (shape_, dtype) in zip(arrays(env), expected):
        assert array.shape == shape_ and array.dtype == dtype
        assert array.flags.c_contiguous
    assert (env.mask.sum(axis=1) > 0).all()
    assert not env.dones.any() and not env.rewards.any()


def test_steps_write_into_the_same_arrays(kind):
    make = kind[0]
    env = make(8, seed=3)
    before = arrays(env)
    first = snapshot(env)
    actions = np.zeros(8, dtype=np.int64)
    for _ in range(5):
        env.step_random()
        env.sample_random(actions)
        env.step(actions)
    for old, new, copy in zip(before, arrays(env), first):
        assert new is old
        assert np.shares_memory(new, old)
    assert not np.array_equal(env.obs, first[0])


def test_a_finished_match_pays_and_starts_again_in_the_same_step(kind):
    make = kind[0]
    env = make(16, seed=5, max_ticks=30)
    start = snapshot(make(16))
    finished = 0
    for _ in range(200):
        env.step_random()
        for i in np.flatnonzero(env.dones):
            finished += 1
            # 2 x score - 1, the scores sharing 1 between the winners.
            scores = (env.rewards[i] + 1) / 2
            assert scores.sum() == pytest.approx(1.0)
            winners = scores[scores > 0]
            assert winners == pytest.approx(np.full(len(winners), 1 / len(winners)))
            assert np.array_equal(env.obs[i], start[0][i])
            assert np.array_equal(env.mask[i], start[1][i])
            assert env.to_move[i] == start[4][i]
        assert not env.rewards[~env.dones].any()
    # A match lasts at most 30 turns, and more with a Quoridor player eliminated.
    assert finished >= 16 * 200 // 31 - 16


def test_an_illegal_action_names_its_game_and_plays_nothing(kind):
    make = kind[0]
    env, twin = make(4, seed=7), make(4, seed=7)
    actions = np.zeros(4, dtype=np.int64)
    env.sample_random(actions)
    twin.sample_random(np.zeros(4, dtype=np.int64))
    before = snapshot(env)
    bad = int(np.flatnonzero(env.mask[2] == 0)[0])
    wrong = actions.copy()
    wrong[2] = bad
    with pytest.raises(ValueError, match=rf"^game 2: action {bad} .*illegal"):
        env.step(wrong)
    wrong[2] = env.action_count
    with pytest.raises(ValueError, match=rf"^game 2: action {env.action_count} is outside"):
        env.step(wrong)
    with pytest.raises(ValueError, match="3 actions given for 4 games"):
        env.step(actions[:3])
    with pytest.raises(ValueError, match="int64 or int32"):
        env.step(actions.astype(np.float64))
    for now, then in zip(arrays(env), before):
        assert np.array_equal(now, then)
    env.step(actions.astype(np.int32))
    twin.step(actions)
    for a, b in zip(arrays(env), arrays(twin)):
        assert np.array_equal(a, b)


def test_the_same_seed_plays_the_same_matches(kind):
    make = kind[0]
    a, b = make(32, seed=11), make(32, seed=11)
    other = make(32, seed=12)

    def play(env, steps=60):
        for _ in range(steps):
            env.step_random()
        return snapshot(env)

    first = play(a)
    assert all(np.array_equal(x, y) for x, y in zip(first, play(b)))
    assert not np.array_equal(first[0], play(other)[0])
    a.reset(seed=11)
    assert all(np.array_equal(x, y) for x, y in zip(first, play(a)))


def test_stepping_runs_beside_other_python_threads():
    env = QuoridorBatch(256, seed=1)
    done = threading.Event()
    ticks = []

    def count():
        while not done.is_set():
            ticks.append(1)

    thread = threading.Thread(target=count)
    thread.start()
    for _ in range(200):
        env.step_random()
    done.set()
    thread.join()
    assert ticks


PETTINGZOO = {
    "quoridor": (lambda: QuoridorBatch(1, seed=2), lambda: quoridor_v0.raw_env()),
    "quoridor4": (
        lambda: QuoridorBatch(1, players=4, seed=2),
        lambda: quoridor_v0.raw_env(players=4),
    ),
    "quoridor5": (
        lambda: QuoridorBatch(1, board=5, seed=2),
        lambda: quoridor_v0.raw_env(board_size=5),
    ),
    "puoribor": (lambda: PuoriborBatch(1, seed=2), lambda: puoribor_v0.raw_env()),
}


def walls_divisors(name, shape, env):
    """What the PettingZoo planes divide the walls-left counts by, plane by plane."""
    divisors = np.ones(shape[0], dtype=np.float32)
    if name == "puoribor":
        divisors[8:] = 10
    else:
        players = env.num_players
        divisors[players + 2 :] = 10 if players == 2 else 5
    return divisors[:, None, None]


@pytest.mark.parametrize("name", sorted(PETTINGZOO))
def test_masks_observations_and_rewards_are_the_pettingzoo_environments(name):
    make_batch, make_aec = PETTINGZOO[name]
    batch, aec = make_batch(), make_aec()
    aec.reset()
    divisors = walls_divisors(name, batch.observation_shape, batch)
    action = np.zeros(1, dtype=np.int64)
    matches = 0
    for _ in range(1500):
        agent = aec.agent_selection
        seat = aec.possible_agents.index(agent)
        assert batch.to_move[0] == seat
        seen = aec.observe(agent)
        assert np.array_equal(batch.mask[0], seen["action_mask"])
        assert np.array_equal(batch.obs[0] / divisors, seen["observation"])
        batch.sample_random(action)
        batch.step(action)
        aec.step(int(action[0]))
        rewards = [aec.rewards[a] for a in aec.possible_agents]
        assert np.array_equal(batch.rewards[0], np.float32(rewards))
        assert batch.dones[0] == all(aec.terminations.values())
        if batch.dones[0]:
            matches += 1
            aec.reset()
    assert matches >= 3


def test_sample_random_gives_the_actions_step_random_plays(kind):
    make = kind[0]
    sampled, stepped = make(16, seed=13), make(16, seed=13)
    actions, again = np.zeros(16, dtype=np.int64), np.zeros(16, dtype=np.int64)
    for _ in range(50):
        sampled.sample_random(actions)
        sampled.sample_random(again)
        assert np.array_equal(actions, again)
        assert sampled.mask[np.arange(16), actions].all()
        sampled.step(actions)
        stepped.step_random()
        for a, b in zip(arrays(sampled), arrays(stepped)):
            assert np.array_equal(a, b)
