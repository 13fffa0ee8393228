"""Datasets of the FastMix paper's experiments (arXiv:2605.30600, Appendices H, I and J).

The implementation lives in :mod:`fastmix.datasets.loaders`; this package re-exports it.
"""

from .loaders import *  # noqa: F401,F403
from .loaders import __all__  # noqa: F401
from .loaders import _BEIJING_CATEGORICAL, _BEIJING_NUMERIC  # noqa: F401
