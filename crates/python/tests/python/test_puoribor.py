"""The `fights` drop-in on its own: arrays, rules, refusals, callbacks and serialisation (no
`fights` needed; test_against_fights.py compares with the original where it is installed)."""
import importlib.util
import pathlib

import numpy as np
import pytest

import arbiter
from arbiter.compat.fights import envs
from arbiter.compat.fights.base import BaseEnv, BaseState
from arbiter.compat.fights.envs import puoribor

ENV = puoribor.PuoriborEnv()


def random_game(seed, until=None):
    """States of a uniformly random game, the start included."""
    rng = np.random.default_rng(seed)
    state = ENV.initialize_state()
    states = [state]
    for tick in range(until or 400):
        legal = np.argwhere(ENV.legal_actions(state, tick % 2))
        state = ENV.step(state, tick % 2, legal[rng.integers(len(legal))])
        states.append(state)
        if state.done:
            break
    return states


def test_the_package_imports_with_a_version_and_type_stubs():
    assert isinstance(arbiter.__version__, str) and arbiter.__version__
    folder = pathlib.Path(arbiter.__file__).parent
    assert (folder / "_engine.pyi").is_file()
    assert (folder / "py.typed").is_file()
    assert importlib.util.find_spec("arbiter._engine") is not None


def test_the_module_has_the_api_of_fights():
    assert ENV.env_id == ("puoribor", 3)
    assert (ENV.board_size, ENV.max_walls) == (9, 10)
    assert isinstance(ENV, BaseEnv)
    assert issubclass(puoribor.PuoriborState, BaseState)
    assert envs.PuoriborEnv is puoribor.PuoriborEnv
    assert envs.resolve("puoribor") == (puoribor.PuoriborEnv, puoribor.PuoriborState)
    with pytest.raises(ValueError):
        envs.resolve("chess")


def test_the_start():
    state = ENV.initialize_state()
    assert state.board.dtype == np.int_ and state.board.shape == (6, 9, 9)
    assert state.walls_remaining.dtype == np.int_ and state.walls_remaining.tolist() == [10, 10]
    assert state.done is False
    assert np.argwhere(state.board).tolist() == [[0, 4, 0], [1, 4, 8]]
    mask = ENV.legal_actions(state, 0)
    assert mask.dtype == np.int_ and mask.shape == (4, 9, 9)
    assert np.argwhere(mask[0]).tolist() == [[3, 0], [4, 1], [5, 0]]
    assert mask[1:3, :8, :8].all() and not mask[1:3, 8, :].any() and not mask[1:3, :, 8].any()
    assert mask[3, :6, :6].all() and mask[3].sum() == 36


def test_random_games_end_with_a_pawn_on_its_goal_row():
    for seed in range(5):
        states = random_game(seed)
        last = states[-1]
        assert last.done is True
        assert not any(s.done for s in states[:-1])
        on_goal = [bool(last.board[0, :, 8].any()), bool(last.board[1, :, 0].any())]
        assert on_goal.count(True) == 1
        # The winner is the agent that made the last step.
        assert on_goal.index(True) == (len(states) - 2) % 2
        assert all(0 <= w <= 10 for s in states for w in s.walls_remaining)


def test_a_step_leaves_the_state_unchanged_and_returns_new_arrays():
    state = random_game(1, until=20)[-1]
    board, walls = state.board.copy(), state.walls_remaining.copy()
    legal = np.argwhere(ENV.legal_actions(state, 0))
    nxt = ENV.step(state, 0, legal[0])
    assert np.array_equal(state.board, board) and np.array_equal(state.walls_remaining, walls)
    assert nxt.board is not state.board and nxt.board.flags.writeable
    assert nxt.board.flags.c_contiguous


@pytest.mark.parametrize("action", [
    [1, 2, 3], (1, 2, 3), np.array([1, 2, 3]), np.array([1, 2, 3], dtype=np.int32),
    [1.0, 2.0, 3.0], np.array([[1, 2, 3]])[0], np.array([[1, 9], [2, 9], [3, 9]])[:, 0],
])
def test_every_array_like_action_is_read_as_fights_reads_it(action):
    state = ENV.initialize_state()
    nxt = ENV.step(state, 0, action)
    assert nxt.board[2, 2, 3] == 1 and nxt.board[2, 3, 3] == 1 and nxt.board[4, 2, 3] == 1
    assert nxt.walls_remaining.tolist() == [9, 10]


@pytest.mark.parametrize("action", [
    [0, 4, 0],      # zero blocks
    [0, 4, 3],      # more than two blocks
    [0, 3, 1],      # diagonally
    [0, 9, 0],      # out of board
    [0, -1, 0],
    [1, 8, 0],      # the right half out of board
    [2, 0, 8],
    [3, 6, 0],      # rotation region out of board
    [4, 0, 0],      # no such action type
    [1, 2**40, 0],
])
def test_illegal_actions_raise_value_error(action):
    with pytest.raises(ValueError):
        ENV.step(ENV.initialize_state(), 0, action)


def test_walls_that_cross_overlap_or_block_every_path_are_refused():
    state = ENV.step(ENV.initialize_state(), 0, [1, 3, 3])
    for action in ([1, 3, 3], [1, 4, 3], [1, 2, 3], [2, 3, 3]):
        with pytest.raises(ValueError):
            ENV.step(state, 1, action)
    assert not ENV.legal_actions(state, 1)[1, 2:5, 3].any()
    assert not ENV.legal_actions(state, 1)[2, 3, 3]
    # A box around agent 0's pawn at (4, 0) would leave it no path.
    boxed = ENV.step(ENV.step(state, 1, [2, 3, 0]), 0, [2, 4, 0])
    with pytest.raises(ValueError):
        ENV.step(boxed, 1, [1, 4, 0])


def test_without_walls_no_wall_is_legal():
    state = ENV.initialize_state()
    state.walls_remaining[0] = 0
    mask = ENV.legal_actions(state, 0)
    assert mask[0].any() and not mask[1:].any()
    with pytest.raises(ValueError):
        ENV.step(state, 0, [1, 0, 0])
    state.walls_remaining[0] = 1
    assert ENV.legal_actions(state, 0)[1:3].any() and not ENV.legal_actions(state, 0)[3].any()


def test_changing_the_arrays_in_place_is_seen():
    """The arrays are the state: the engine never keeps a stale copy of a changed array."""
    state = ENV.initialize_state()
    nxt = ENV.step(state, 0, [0, 4, 1])
    before = ENV.legal_actions(nxt, 1)
    nxt.board[1, 4, 8], nxt.board[1, 0, 8] = 0, 1
    after = ENV.legal_actions(nxt, 1)
    assert np.argwhere(before[0]).tolist() == [[3, 8], [4, 7], [5, 8]]
    assert np.argwhere(after[0]).tolist() == [[0, 7], [1, 8]]
    copied = puoribor.PuoriborState(nxt.board.copy(), nxt.walls_remaining.copy())
    assert np.array_equal(after, ENV.legal_actions(copied, 1))
    with pytest.raises(ValueError):
        ENV.step(nxt, 1, [0, 4, 7])
    nxt.walls_remaining[1] = 0
    assert not ENV.legal_actions(nxt, 1)[1:].any()


def test_any_memory_layout_of_the_board_is_read_the_same():
    state = random_game(2, until=40)[-1]
    expected = ENV.legal_actions(state, 1)
    fortran = np.asfortranarray(state.board)
    strided = np.zeros((6, 9, 18), dtype=np.int_)
    strided[:, :, ::2] = state.board
    for board in (fortran, strided[:, :, ::2]):
        assert np.array_equal(ENV.legal_actions(puoribor.PuoriborState(board, state.walls_remaining), 1), expected)


@pytest.mark.parametrize("make", [
    lambda s: puoribor.PuoriborState(s.board.astype(np.int32), s.walls_remaining),
    lambda s: puoribor.PuoriborState(s.board[:4], s.walls_remaining),
    lambda s: puoribor.PuoriborState(s.board.tolist(), s.walls_remaining),
    lambda s: puoribor.PuoriborState(s.board, np.array([10, 10, 10])),
    lambda s: puoribor.PuoriborState(s.board * 3, s.walls_remaining),
    lambda s: puoribor.PuoriborState(s.board, np.array([-1, 10])),
    lambda s: puoribor.PuoriborState(np.zeros((6, 9, 9), dtype=np.int_), s.walls_remaining),
])
def test_malformed_states_raise_value_error(make):
    state = make(ENV.initialize_state())
    with pytest.raises(ValueError):
        ENV.legal_actions(state, 0)
    with pytest.raises(ValueError):
        ENV.step(state, 0, [0, 4, 1])


@pytest.mark.parametrize("agent", [-1, 2])
def test_an_agent_other_than_0_or_1_is_refused(agent):
    state = ENV.initialize_state()
    with pytest.raises(ValueError, match="invalid agent_id"):
        ENV.step(state, agent, [0, 4, 1])
    with pytest.raises(ValueError, match="invalid agent_id"):
        ENV.legal_actions(state, agent)


def test_a_finished_game_has_no_legal_action_and_refuses_a_step():
    last = random_game(3)[-1]
    assert last.done
    for agent in (0, 1):
        assert not ENV.legal_actions(last, agent).any()
        with pytest.raises(ValueError, match="done"):
            ENV.step(last, agent, [0, 4, 4])


def test_the_callbacks_see_the_state_before_and_after():
    seen = []
    state = ENV.initialize_state()
    nxt = ENV.step(state, 0, [0, 4, 1], pre_step_fn=lambda *a: seen.append(("pre",) + a),
                   post_step_fn=lambda *a: seen.append(("post",) + a))
    assert [(w, s, a, list(act)) for w, s, a, act in seen] == [
        ("pre", state, 0, [0, 4, 1]), ("post", nxt, 0, [0, 4, 1])]
    with pytest.raises(TypeError):
        ENV.step(state, 0, [0, 4, 1], lambda *a: None)  # the callbacks are keyword-only


def test_to_dict_and_from_dict_round_trip():
    for state in random_game(4)[::25]:
        d = state.to_dict()
        assert type(d["done"]) is bool and all(type(v) is int for v in d["walls_remaining"])
        assert all(type(v) is int for c in d["board"] for col in c for v in col)
        back = puoribor.PuoriborState.from_dict(d)
        assert np.array_equal(back.board, state.board) and back.board.dtype == np.int_
        assert np.array_equal(back.walls_remaining, state.walls_remaining)
        assert back.done == state.done
        assert np.array_equal(ENV.legal_actions(back, 0), ENV.legal_actions(state, 0))


def test_perspective_of_agent_1_turns_the_board_and_swaps_the_owners():
    state = ENV.step(ENV.step(ENV.initialize_state(), 0, [1, 0, 0]), 1, [2, 2, 5])
    assert state.perspective(0) is state.board
    seen = state.perspective(1)
    assert seen.dtype == np.int_ and seen.shape == (6, 9, 9)
    assert seen[0, 4, 0] == 1 and seen[1, 4, 8] == 1
    # Agent 0's wall under (0, 0)-(1, 0) is above (8, 8)-(7, 8): under (7, 7)-(8, 7), label 2.
    assert seen[2, 7, 7] == 2 and seen[2, 8, 7] == 2 and seen[4, 7, 7] == 1
    # Agent 1's wall right of (2, 5)-(2, 6) is left of (6, 3)-(6, 2): right of (5, 2)-(5, 3).
    assert seen[3, 5, 2] == 1 and seen[3, 5, 3] == 1 and seen[5, 5, 2] == 1
    assert seen[2:].sum() == 2 * 2 + 2 * 1 + 2


def test_the_board_is_drawn_as_fights_draws_it():
    state = ENV.step(ENV.initialize_state(), 0, [1, 0, 0])
    lines = str(state).splitlines()
    assert len(lines) == 19
    assert lines[0] == "┌" + "┬".join(["───"] * 9) + "┐"
    assert lines[1] == "│" + " " * 16 + " 0 " + " " * 16 + "│"
    assert lines[2].startswith("├━━━╋━━━┼")
    assert lines[-1] == "└" + "┴".join(["───"] * 9) + "┘"
