"""The PettingZoo environments: PettingZoo's own API and seed tests, then the action layouts,
observations, rewards and pictures of each game."""

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from arbiter.pettingzoo import domino_v0, labyrinth_v0, puoribor_v0, quoridor_v0

ENVS = {
    "quoridor": (quoridor_v0, {}),
    "quoridor4": (quoridor_v0, {"players": 4}),
    "quoridor4-small": (quoridor_v0, {"players": 4, "board_size": 5}),
    "puoribor": (puoribor_v0, {}),
    "domino": (domino_v0, {}),
    "labyrinth": (labyrinth_v0, {}),
    "labyrinth4": (labyrinth_v0, {"players": 4}),
    "labyrinth-random": (labyrinth_v0, {"level": None, "size": (15, 14)}),
}


@pytest.fixture(params=sorted(ENVS))
def game(request):
    return ENVS[request.param]


def test_api_test_passes(game):
    module, kwargs = game
    api_test(module.env(**kwargs), num_cycles=300)
    api_test(module.raw_env(**kwargs), num_cycles=300)


def test_seed_test_passes(game):
    module, kwargs = game
    seed_test(lambda: module.env(**kwargs), num_cycles=300)


def test_render_test_passes(game):
    module, kwargs = game
    render_test(lambda render_mode: module.env(render_mode=render_mode, **kwargs))


def play(env, seed, limit=100_000):
    """A random game on the masks; the rewards collected, the steps and the last picture."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    steps = 0
    for agent in env.agent_iter(limit):
        obs, reward, termination, truncation, _ = env.last()
        totals[agent] += reward
        if termination or truncation:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        assert len(legal) > 0, f"{agent} is on turn without a legal action"
        env.step(int(rng.choice(legal)))
        steps += 1
    return totals, steps, env.render()


@pytest.mark.parametrize("name", sorted(ENVS))
def test_random_games_end_and_pay_out(name):
    module, kwargs = ENVS[name]
    env = module.env(render_mode="ansi", **kwargs)
    for seed in range(3):
        totals, steps, picture = play(env, seed)
        assert steps > 0
        assert "over" in picture, picture
        rewards = sorted(totals.values())
        if module is labyrinth_v0:
            assert min(rewards) >= 0, totals  # a point per display reached
        elif len(rewards) == 2:
            assert rewards in ([-1.0, 1.0], [0.0, 0.0]), totals  # a win or a draw
        else:
            assert rewards[-1] > 0 and rewards[0] == -1.0, totals  # winners and losers


@pytest.mark.parametrize("name", sorted(ENVS))
def test_the_same_seed_gives_the_same_episode(name):
    module, kwargs = ENVS[name]
    first = play(module.env(render_mode="ansi", **kwargs), 7)
    second = play(module.env(render_mode="ansi", **kwargs), 7)
    assert first == second


def test_domino_boards_follow_the_seed():
    env = domino_v0.env()
    env.reset(seed=1)
    a = env.observe("player_0")["observation"]
    env.reset(seed=1)
    b = env.observe("player_0")["observation"]
    env.reset(seed=2)
    c = env.observe("player_0")["observation"]
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)


def test_quoridor_layout():
    env = quoridor_v0.raw_env()
    env.reset()
    mask = env.observe("player_0")["action_mask"]
    assert mask.shape == (81 + 2 * 64,) and mask.dtype == np.int8
    # Player 0 starts at (4, 0): it may step to (3, 0), (5, 0) or (4, 1); every wall is legal.
    assert set(np.flatnonzero(mask[:81])) == {3, 5, 9 + 4}
    assert mask[81:].all()
    env.step(81 + 0)  # the horizontal wall anchored at (0, 0)
    planes = env.observe("player_0")["observation"]
    assert planes.shape == (6, 9, 9) and planes.dtype == np.float32
    assert planes[2, 0, 0] == 1 and planes[2].sum() == 1 and planes[3].sum() == 0
    assert planes[4, 0, 0] == pytest.approx(9 / 10)  # player 0's walls left, of ten
    # Player 1 sees itself first.
    assert env.observe("player_1")["observation"][0].sum() == 1
    assert env.observe("player_1")["observation"][0, 8, 4] == 1


# 44 actions of a 4-player game after which player 0 has no wall left and no step: its pawn
# is boxed in by walls and other pawns (found by a search over random games).
BOXED_IN_AFTER = [
    5, 43, 196, 176, 14, 208, 75, 195, 161, 42, 76, 27, 87, 167, 67, 36, 13, 33, 148, 45, 119,
    164, 58, 46, 14, 162, 142, 37, 23, 110, 177, 28, 93, 24, 49, 198, 22, 23, 181, 37, 124, 31,
    40, 165,
]


def test_a_boxed_in_quoridor_player_is_eliminated_and_skipped_to_the_end():
    env = quoridor_v0.raw_env(players=4, render_mode="ansi")
    env.reset()
    for turn, action in enumerate(BOXED_IN_AFTER):
        assert env.agent_selection == f"player_{turn % 4}"
        env.step(action)
    # Player 0 would be on turn, but it cannot act: it leaves the board and player 1 plays.
    assert env.agent_selection == "player_1"
    assert not any(env.terminations.values())
    assert env.observe("player_0")["observation"][0].sum() == 0  # its own pawn plane
    assert env.observe("player_1")["observation"][3].sum() == 0  # player 0 seen from 1
    assert env.observe("player_0")["action_mask"].sum() == 0
    rng = np.random.default_rng(0)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter(10_000):
        obs, reward, termination, truncation, _ = env.last()
        totals[agent] += reward
        if termination or truncation:
            env.step(None)
            continue
        assert agent != "player_0", "an eliminated player was put on turn"
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert totals["player_0"] == -1.0, totals
    assert max(totals.values()) > 0, totals


def test_quoridor_refuses_an_illegal_index_in_the_raw_env():
    env = quoridor_v0.raw_env()
    env.reset()
    with pytest.raises(ValueError, match="illegal"):
        env.step(0)
    with pytest.raises(ValueError, match="outside"):
        env.step(10_000)
    assert env.agent_selection == "player_0"


def test_the_wrapped_env_punishes_an_illegal_index():
    env = quoridor_v0.env()
    env.reset()
    env.step(0)
    assert all(env.terminations.values())
    assert env.rewards["player_0"] == -1


def test_puoribor_layout_is_the_fights_mask():
    env = puoribor_v0.raw_env()
    env.reset()
    mask = env.observe("player_0")["action_mask"].reshape(4, 9, 9)
    # Agent 0 starts at (4, 0): it may step to (3, 0), (5, 0) and (4, 1).
    assert {tuple(a) for a in np.argwhere(mask[0])} == {(3, 0), (5, 0), (4, 1)}
    assert mask.sum() == 3 + 2 * 64 + 36
    planes = env.observe("player_1")["observation"]
    assert planes.shape == (10, 9, 9)
    assert planes[0, 4, 8] == 1 and planes[1, 4, 0] == 1


def test_labyrinth_layout():
    env = labyrinth_v0.raw_env()
    env.reset()
    match = env._match
    c, h, w = match.observation_shape
    assert env.action_space("player_0").n == (w + h) * 8 * w * h
    mask = env.observe("player_0")["action_mask"]
    legal = np.flatnonzero(mask)
    assert len(legal) > 0
    pushes = {i // (w * h) for i in legal}
    # The extra tile starts as the cross, the same however it turns: r = 0 only.
    assert all(p % 4 == 0 for p in pushes)
    planes = env.observe("player_0")["observation"]
    assert planes.shape == (14, h, w)
    assert planes[5].sum() == 1 and planes[9:13].min() == 1  # one princess, a cross in hand


def test_a_random_labyrinth_level_each_reset_of_one_size():
    env = labyrinth_v0.raw_env(level=None, size=(16, 18))
    levels = set()
    for seed in range(4):
        env.reset(seed=seed)
        levels.add(env.current_level)
        assert env.observe("player_0")["observation"].shape == (14, 18, 16)
    assert len(levels) == 4
    env.reset(seed=2)
    again = env.current_level
    env.reset(seed=2)
    assert env.current_level == again
    with pytest.raises(ValueError, match="14 to 20"):
        labyrinth_v0.raw_env(level=None, size=(30, 14))
    with pytest.raises(ValueError, match="level=None"):
        labyrinth_v0.raw_env(level=3, size=(16, 18))


@pytest.mark.parametrize("name", sorted(ENVS))
def test_rgb_pictures_show_the_position(name):
    module, kwargs = ENVS[name]
    env = module.env(render_mode="rgb_array", **kwargs)
    env.reset(seed=3)
    before = env.render()
    assert before.dtype == np.uint8 and before.ndim == 3 and before.shape[2] == 3
    assert len(np.unique(before.reshape(-1, 3), axis=0)) >= 3  # lanes, cells and a piece
    agent = env.agent_selection
    legal = np.flatnonzero(env.observe(agent)["action_mask"])
    env.step(int(legal[len(legal) // 2]))  # not a rotation of Puoribor's empty middle
    after = env.render()
    assert after.shape == before.shape
    assert not np.array_equal(before, after), "the picture did not change with the position"


def test_a_quoridor_picture_has_each_pawn_in_its_seat_colour():
    env = quoridor_v0.raw_env(players=4, render_mode="rgb_array")
    env.reset()
    picture = env.render()
    assert picture.shape == (4 + 9 * 24, 4 + 9 * 24, 3)
    colours = {tuple(c) for c in picture.reshape(-1, 3)}
    assert {(220, 40, 40), (40, 90, 220), (30, 160, 60), (230, 150, 20)} <= colours
    # Player 0's pawn stands on (4, 0): the middle of that cell.
    assert tuple(picture[4 + 10, 4 + 4 * 24 + 10]) == (220, 40, 40)


def test_render_without_a_mode_warns_and_returns_none():
    env = domino_v0.raw_env()
    env.reset()
    assert env.render() is None
    env = domino_v0.raw_env(render_mode="ansi")
    env.reset()
    assert env.render().splitlines()[-1] == "player 0 to move"


@pytest.mark.parametrize(
    "make",
    [
        lambda: quoridor_v0.raw_env(players=3),
        lambda: quoridor_v0.raw_env(board_size=8),
        lambda: domino_v0.raw_env(size=2),
        lambda: labyrinth_v0.raw_env(players=11),
        lambda: puoribor_v0.raw_env(max_ticks=0),
        lambda: puoribor_v0.raw_env(render_mode="video"),
    ],
)
def test_bad_arguments_are_refused_with_a_value_error(make):
    with pytest.raises(ValueError):
        make()
