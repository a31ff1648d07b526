"""Batched environments for self-play (docs/python.md, "The batched environment").

``n`` matches of one game are stepped in one call, with the GIL released; the observations,
masks, rewards and dones of every match are written into NumPy arrays the environment makes
once and keeps: ``env.obs`` is the same array object after every step, so read it (or copy
it) before the next call, and treat it as read-only.

- ``QuoridorBatch(n, players=2, board=9, seed=0, max_ticks=None)``: Quoridor for 2 or 4
  players on a ``board`` × ``board`` board (odd, 5 to 25); ``max_ticks`` overrides the game's
  turn limit (100 with 2 players, 200 with 4).
- ``PuoriborBatch(n, seed=0, max_ticks=200)``: Puoribor, drawn after ``max_ticks`` actions.

The arrays, with ``A`` the number of action indices and ``P`` the number of seats:

- ``obs``: ``uint8`` ``(n, planes, rows, columns)``, the observation of the seat on turn in
  each match, with the planes of the PettingZoo environment of the same game (the observer
  first), except that the walls-left planes hold the count of walls left instead of a
  fraction of the walls at the start.
- ``mask``: ``uint8`` ``(n, A)``, 1 at each legal action index of the seat on turn (the
  layout of the PettingZoo environment).
- ``rewards``: ``float32`` ``(n, P)``, each seat's reward for the last step: 0 until a match
  ends, then ``2 × score − 1`` (1 to a winner, −1 to a loser, 0 to both sides of a draw).
- ``dones``: ``bool`` ``(n,)``, whether the match ended with the last step.
- ``to_move``: ``uint8`` ``(n,)``, the seat on turn, whose observation and mask are shown.

A match that ends is started again in the same step ("same-step" reset, unlike gymnasium's
default "next-step"): ``dones[i]`` is true and ``rewards[i]`` holds the final rewards, while
``obs[i]``, ``mask[i]`` and ``to_move[i]`` already show the first position of the next match.
The final position itself is not kept.

``step(actions)`` plays ``actions[i]`` (an ``int64`` or ``int32`` array of shape ``(n,)``) in
match ``i``; if any is illegal it raises ``ValueError`` naming the first such match and its
action, and no match is played. ``step_random()`` plays a uniformly random legal action in
every match and ``sample_random(out)`` writes the actions it would play (into an ``int64``
array) without playing them. They come from the environment's own generator, seeded by
``seed`` and again by ``reset(seed)``, which draws each match's random action as soon as its
position is written: the same seed and the same calls give the same matches.
"""

from arbiter._engine import BatchEnv, PuoriborBatch, QuoridorBatch

__all__ = ["BatchEnv", "PuoriborBatch", "QuoridorBatch"]
