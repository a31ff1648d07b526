"""The AEC environment shared by Arbiter's PettingZoo games.

Every rule runs in Rust (``arbiter._engine.AecMatch``); this class keeps PettingZoo's
bookkeeping: agents, rewards, terminations, infos and the agent on turn.
"""

from typing import Any, Dict, Optional, Union

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from arbiter._engine import AecMatch


class ArbiterAECEnv(AECEnv):
    """An AEC environment around one ``AecMatch``.

    A subclass says which match to play in ``_new_match``. Agents are ``player_0`` …
    ``player_<n-1>`` in seat order; an observation is ``{"observation": float32 planes,
    "action_mask": int8 mask}``, the mask all zero except for the agent on turn.
    """

    metadata: Dict[str, Any] = {
        "render_modes": ["ansi", "human", "rgb_array"],
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(self, render_mode: Optional[str] = None) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']} or None, "
                f"got {render_mode!r}"
            )
        self.render_mode = render_mode
        self._rng = np.random.default_rng()
        self._match = self._new_match(self._rng)
        players = self._match.num_players
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self.agents = self.possible_agents[:]
        planes = spaces.Box(0.0, 1.0, self._match.observation_shape, np.float32)
        count = self._match.action_count
        mask = spaces.Box(0, 1, (count,), np.int8)
        self.observation_spaces = {
            a: spaces.Dict({"observation": planes, "action_mask": mask})
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(count) for a in self.possible_agents}

    def _new_match(self, rng: np.random.Generator) -> AecMatch:
        """A new match from the start; a game with a random setup draws it from ``rng``."""
        raise NotImplementedError

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None) -> None:
        """Starts a new match. The same ``seed`` gives the same match and, with the same
        actions, the same episode."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self._match = self._new_match(self._rng)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self._match.to_move]

    def observe(self, agent: str) -> Dict[str, np.ndarray]:
        seat = self.possible_agents.index(agent)
        on_turn = self._match.to_move == seat
        if on_turn:
            mask = self._match.legal_mask()
        else:
            mask = np.zeros(self._match.action_count, np.int8)
        return {"observation": self._match.observe(seat), "action_mask": mask}

    def step(self, action: Optional[int]) -> None:
        """Plays ``action`` (an index of the game's action layout) for the agent on turn.
        An illegal action raises ``ValueError`` (``env()`` wraps the environment so that it
        ends the game with a reward of -1 for the offender instead)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is on turn and must act, got None")
        self._cumulative_rewards[agent] = 0.0
        rewards = self._match.step(int(action))
        self.rewards = {a: float(r) for a, r in zip(self.possible_agents, rewards)}
        seat = self._match.to_move
        if seat is None:
            reason = self._match.end_reason
            self.terminations = {a: True for a in self.agents}
            self.infos = {a: {"end_reason": reason} for a in self.agents}
        else:
            self.agent_selection = self.possible_agents[seat]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> Union[str, np.ndarray, None]:
        """The position as text: returned with ``render_mode="ansi"``, printed with
        ``"human"`` (after every step too); with ``"rgb_array"``, a ``uint8`` picture of shape
        ``(height, width, 3)``."""
        if self.render_mode is None:
            gymnasium.logger.warn(
                "You are calling render without a render_mode: pass render_mode='ansi'."
            )
            return None
        if self.render_mode == "rgb_array":
            return self._match.render_rgb()
        picture = self._match.render()
        if self.render_mode == "human":
            print(picture)
            return None
        return picture

    def close(self) -> None:
        pass


def wrap(env: ArbiterAECEnv) -> AECEnv:
    """``env`` with PettingZoo's usual wrappers for classic games: an illegal action ends the
    game with -1 for its player, out-of-range actions are caught, the call order is checked."""
    env = wrappers.TerminateIllegalWrapper(env, illegal_reward=-1)
    env = wrappers.AssertOutOfBoundsWrapper(env)
    return wrappers.OrderEnforcingWrapper(env)
