"""Argument checks shared by the generators and loaders of :mod:`fastmix.datasets`.

They complement the package-wide helpers of :mod:`fastmix._validation` with the three kinds of
argument only the data code takes: on/off switches, seeds given as plain integers and data
directories. Each error names the argument, the value received and what to pass instead.
"""

from __future__ import annotations

import os
from numbers import Integral

import numpy as np

from .._validation import check_random_state


def check_flag(value, name: str) -> bool:
    """``value`` must be ``True`` or ``False`` (a NumPy bool too); returns a Python bool.

    Anything else, such as the string ``"no"`` (which Python counts as true), is a TypeError.
    """
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise TypeError(f"{name} must be True or False; got {value!r} of type {type(value).__name__}.")


def check_seed(random_state) -> np.random.Generator:
    """:func:`fastmix._validation.check_random_state`, with a clear error for a negative seed.

    NumPy rejects negative integer seeds with a message that names neither the argument nor
    the fix; this says both before delegating.
    """
    if isinstance(random_state, (Integral, np.integer)) and not isinstance(random_state, bool) and random_state < 0:
        raise ValueError(
            f"random_state must be a non-negative integer seed (or None, a SeedSequence or a "
            f"numpy.random.Generator); got {random_state}. Pass abs(seed) or any seed >= 0."
        )
    return check_random_state(random_state)


def check_data_home(data_home):
    """``data_home`` must be ``None`` or a non-empty path (``str`` or ``os.PathLike``)."""
    if data_home is None:
        return None
    if not isinstance(data_home, (str, os.PathLike)):
        raise TypeError(
            f"data_home must be a directory path (str or os.PathLike) or None for the default; got "
            f"{data_home!r} of type {type(data_home).__name__}."
        )
    if isinstance(data_home, str) and not data_home.strip():
        raise ValueError(
            "data_home must name a directory; got an empty string. Pass a path, or None for the default "
            "(see fastmix.datasets.get_data_home)."
        )
    return data_home
