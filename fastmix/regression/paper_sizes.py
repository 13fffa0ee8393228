"""Sketch sizes and privacy defaults of the FastMix paper's least-squares experiments (Appendix H)."""

from __future__ import annotations

import math

from .._validation import check_positive, check_positive_int, check_probability


def paper_sketch_sizes(d: int, T: int = 4, rho: float = 1e-3, ratio: float = 4.0) -> tuple[int, int]:
    """Sketch sizes of the paper's experiments (Appendix H; Figure 2 legend).

    ::

        base = max{d, log(4T/rho)}
        k1   = ceil(6 * base)        (FastIHM's Gaussian rows; also IHM's k and FastIHS's k)
        k2   = ceil(ratio * base)    (FastIHM's SRHT rows; ratio in {4, 100, 200} or {4, 400, 800})

    Returns
    -------
    (k1, k2) : tuple of int
    """
    d = check_positive_int(d, "d")
    T = check_positive_int(T, "T")
    rho = check_probability(rho, "rho")
    ratio = check_positive(ratio, "ratio")
    base = max(float(d), math.log(4.0 * T / rho))
    return math.ceil(6.0 * base - 1e-9), math.ceil(ratio * base - 1e-9)


def paper_defaults(n: int) -> dict:
    """``delta = 1/n^2``, ``rho = delta/10``, ``T = 4`` (FastMix paper, Appendix H)."""
    n = check_positive_int(n, "n", minimum=2)
    delta = 1.0 / float(n) ** 2
    return {"delta": delta, "rho": delta / 10.0, "T": 4}
