"""A drop-in for the ``fights`` package (version 0.9): same modules, classes and arrays.

Only the Puoribor environment is provided: ``from arbiter.compat.fights.envs import puoribor``.
"""

__version__ = "0.9.0"
