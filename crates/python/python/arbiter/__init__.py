"""Arbiter's game engines from Python.

The engines are written in Rust and reached through the extension module ``arbiter._engine``.
The package offers a drop-in for the ``fights`` Puoribor environment::

    from arbiter.compat.fights.envs import puoribor   # instead of: from fights.envs import puoribor

PettingZoo environments in ``arbiter.pettingzoo``, and batched environments for self-play
(many matches stepped in one call, into NumPy arrays written in place) in ``arbiter.batch``.

See docs/python.md in the repository.
"""

from arbiter._engine import __version__

__all__ = ["__version__"]
