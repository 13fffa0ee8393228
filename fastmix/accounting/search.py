"""The numerical search behind every calibration of :mod:`fastmix.accounting`.

Each calibration in the package asks for the smallest noise parameter whose accounted privacy
loss meets a target: the gamma of a Gaussian sketch (FastMix paper, eq. 185, Theorem 2), the
noise std of the analytic Gaussian mechanism (Balle and Wang 2018, Algorithm 1) or of composed
Gaussian releases (eq. 182). :func:`smallest_feasible` is that search, written once.

It is a bisection rather than one of :mod:`scipy.optimize`'s root finders because a calibration
needs its answer on the feasible side: ``brentq`` and its relatives return a point within a
tolerance of the root on either side, which could under-noise by that tolerance, and the losses
searched here may jump (a ceiling inside) or be infinite where infeasible.
"""

from __future__ import annotations

import math
from numbers import Real

import numpy as np

from .._validation import check_positive

__all__ = ["smallest_feasible"]

#: Relative width at which the inverse solvers stop bisecting.
_SOLVER_RTOL = 1e-10


def smallest_feasible(fn, target, lo, hi, rtol=_SOLVER_RTOL, *, shrink_lo=False) -> float:
    """Smallest ``x`` with ``fn(x) <= target``, for ``fn`` decreasing: bisection in ``log x``.

    For a privacy loss ``fn`` that decreases in the noise parameter ``x`` (gamma, or a noise
    standard deviation) this returns, to relative tolerance ``rtol``, ::

        x* = inf { x > lo : fn(x) <= target }

    and always a feasible point: the result ``x`` satisfies ``fn(x) <= target``, and
    ``x / (1 + rtol)`` is either infeasible or at most ``lo``. It is the search of every
    inverse calibration of the FastMix paper: gamma for a target epsilon (eq. 185, the tight
    calibration behind Theorem 2), sigma of the analytic Gaussian mechanism (Balle and Wang
    2018, Algorithm 1) and of composed Gaussian releases (Lemma 7 and Proposition 1, eq. 182).

    The bracket is grown first: ``hi`` is doubled until feasible; with ``shrink_lo`` the
    guess ``lo`` is divided by 10 until infeasible. Then the bracket ``[lo, hi]`` is halved
    geometrically (``mid = sqrt(lo hi)``) until ``hi / lo - 1 <= rtol``, and ``hi`` returned.
    If ``fn(lo) <= target`` already, ``lo`` (the domain's edge) is returned.

    Parameters
    ----------
    fn : callable
        ``x -> float``, non-increasing on ``(lo, inf)``; ``inf`` marks infeasible points.
    target : float
        The level to reach (for example a target epsilon).
    lo : float
        Edge of the domain (``> 0``), or a first guess with ``shrink_lo=True``.
    hi : float
        A first guess of a feasible point (``> lo``); doubled until feasible.
    rtol : float, default=1e-10
        Relative width of the final bracket (``> 0``).
    shrink_lo : bool, default=False
        Whether ``lo`` is a guess to be lowered (a power of 10 at a time) until infeasible.

    Returns
    -------
    x : float
        The feasible end of the final bracket.

    Raises
    ------
    RuntimeError
        If no feasible point is found below ``hi * 2**400`` (an unreachable target).
    """
    if not callable(fn):
        raise TypeError(f"fn must be a callable x -> float; got {type(fn).__name__}.")
    if isinstance(target, bool) or not isinstance(target, (Real, np.floating, np.integer)):
        raise TypeError(f"target must be a real number; got {target!r} of type {type(target).__name__}.")
    if math.isnan(target):
        raise ValueError("target must not be NaN.")
    lo = check_positive(lo, "lo")
    hi = check_positive(hi, "hi")
    if not hi > lo:
        raise ValueError(
            f"hi must be larger than lo (the search starts from the bracket [lo, hi]); got lo={lo!r}, hi={hi!r}."
        )
    rtol = check_positive(rtol, "rtol")
    target = float(target)
    if shrink_lo:
        for _ in range(400):
            if fn(lo) > target:
                break
            hi, lo = lo, lo / 10.0
    for _ in range(400):
        if fn(hi) <= target:
            break
        lo, hi = hi, hi * 2.0
    else:  # pragma: no cover - only for absurd targets
        raise RuntimeError("could not bracket the solution; the target may be unreachable.")
    if fn(lo) <= target:  # the whole domain is feasible down to its edge
        return lo
    while hi / lo - 1.0 > rtol:
        mid = math.sqrt(lo * hi)
        if fn(mid) <= target:
            hi = mid
        else:
            lo = mid
    return hi
