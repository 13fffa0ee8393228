"""The dense Hadamard matrix of eq. (13), for tests and small examples, and its cached blocks.

The orthonormal Hadamard matrix of order n = 2^p (FastMix paper, Appendix B, Definition 4, eq. 13)::

    H~_1 = [1],   H~_2m = [[H~_m,  H~_m],
                           [H~_m, -H~_m]],   H_n = H~_n / sqrt(n).

The NumPy backend of ``fwht`` multiplies by the same (read-only, cached)
blocks of order at most 128.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from .sizes import is_power_of_two

__all__ = ["hadamard_matrix"]


@lru_cache(maxsize=16)
def _sylvester_block(m: int, dtype_str: str) -> np.ndarray:
    H = np.ones((1, 1), dtype=dtype_str)
    while H.shape[0] < m:
        H = np.block([[H, H], [H, -H]])
    H.setflags(write=False)
    return H


def hadamard_matrix(n: int, *, normalized: bool = True, dtype=np.float64) -> np.ndarray:
    """Dense Hadamard matrix of order ``n`` (eq. 13). Only for small n (tests, oracles)."""
    if not is_power_of_two(n):
        raise ValueError(f"Hadamard order must be a power of two; got {n}.")
    H = np.array(_sylvester_block(n, np.dtype(dtype).str))
    if normalized:
        H /= np.sqrt(n)
    return H
