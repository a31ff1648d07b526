"""Arbiter's games as PettingZoo AEC environments (needs ``pettingzoo`` and ``gymnasium``).

``quoridor_v0`` (2 or 4 players), ``puoribor_v0``, ``domino_v0`` and ``labyrinth_v0``, each
with ``env(...)`` (wrapped as PettingZoo's classic games are) and ``raw_env(...)``::

    from arbiter.pettingzoo import quoridor_v0
    env = quoridor_v0.env(players=4, render_mode="ansi")

See docs/python.md in the repository for the action layouts and observation planes.
"""

from arbiter.pettingzoo import domino_v0, labyrinth_v0, puoribor_v0, quoridor_v0

__all__ = ["domino_v0", "labyrinth_v0", "puoribor_v0", "quoridor_v0"]
