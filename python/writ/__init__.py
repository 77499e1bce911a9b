"""Writ for Python (the package is being built; see docs/python.md)."""

from ._writ import *  # noqa: F401,F403
from ._writ import __version__  # noqa: F401
