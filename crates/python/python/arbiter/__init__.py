"""Arbiter's game engines from Python.

The engines are written in Rust and reached through the extension module ``arbiter._engine``.
Today the package offers a drop-in for the ``fights`` Puoribor environment::

    from arbiter.compat.fights.envs import puoribor   # instead of: from fights.envs import puoribor

See docs/python.md in the repository.
"""

from arbiter._engine import __version__

__all__ = ["__version__"]
