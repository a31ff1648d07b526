"""The drop-in beside the original `fights` 0.9.0 where it is installed (it needs NumPy 1.x):
what fights_differential.py does not cover, the drawing, the perspective, serialisation and
states that no game reaches."""
import numpy as np
import pytest

fights = pytest.importorskip("fights.envs.puoribor")

from arbiter.compat.fights.envs import puoribor  # noqa: E402

THEIRS, OURS = fights.PuoriborEnv(), puoribor.PuoriborEnv()


def ours(state):
    return puoribor.PuoriborState(state.board, state.walls_remaining, state.done)


def upstream_states(games=6):
    rng = np.random.default_rng(11)
    for _ in range(games):
        state = THEIRS.initialize_state()
        yield state
        for tick in range(200):
            legal = np.argwhere(THEIRS.legal_actions(state, tick % 2))
            state = THEIRS.step(state, tick % 2, legal[rng.integers(len(legal))])
            yield state
            if state.done:
                break


def test_the_start_is_the_same():
    a, b = THEIRS.initialize_state(), OURS.initialize_state()
    for name in ("board", "walls_remaining"):
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and x.shape == y.shape and np.array_equal(x, y)
    assert a.done is b.done
    assert a.to_dict() == b.to_dict()
    assert THEIRS.env_id == OURS.env_id


def test_drawing_perspective_and_dicts_agree_on_every_state():
    for state in upstream_states():
        mine = ours(state)
        assert str(mine) == str(state)
        for agent in (0, 1):
            theirs_seen, ours_seen = state.perspective(agent), mine.perspective(agent)
            assert theirs_seen.dtype == ours_seen.dtype and np.array_equal(theirs_seen, ours_seen)
        assert mine.to_dict() == state.to_dict()
        back = puoribor.PuoriborState.from_dict(state.to_dict())
        assert np.array_equal(back.board, fights.PuoriborState.from_dict(state.to_dict()).board)


def test_both_masks_agree_on_states_no_alternating_game_reaches():
    """Agent 0 moving twice, or agent 1 opening: fights has no turn order, nor has the drop-in."""
    rng = np.random.default_rng(5)
    a, b = THEIRS.initialize_state(), OURS.initialize_state()
    for _ in range(60):
        agent = int(rng.integers(2))
        ma, mb = THEIRS.legal_actions(a, agent), OURS.legal_actions(b, agent)
        assert np.array_equal(ma, mb)
        action = np.argwhere(ma)[rng.integers(ma.sum())]
        a, b = THEIRS.step(a, agent, action), OURS.step(b, agent, action)
        assert np.array_equal(a.board, b.board)
        if a.done:
            break


@pytest.mark.parametrize("action", [[0, 4, 0], [0, 9, 9], [5, 1, 1], [3, 6, 6], [1, 8, 8]])
def test_malformed_actions_raise_the_same_exception(action):
    for env in (THEIRS, OURS):
        with pytest.raises(ValueError):
            env.step(env.initialize_state(), 0, action)
