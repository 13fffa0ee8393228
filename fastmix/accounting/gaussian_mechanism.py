"""The Gaussian mechanism: its Renyi bound, its exact privacy profile and its noise calibrations.

``f(X) + N(0, sigma^2 I)`` with l2-sensitivity ``D``: the Renyi bound of Lemma 7 of the FastMix
paper (Mironov 2017, Corollary 3), the exact delta(epsilon) and smallest sigma of the analytic
Gaussian mechanism (Balle and Wang 2018, Theorem 8 and Algorithm 1), the classical calibration
(Dwork and Roth 2014, Theorem A.1) and the sigma of composed releases accounted through RDP
(eq. 182).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special as _sp

from .._validation import check_delta, check_epsilon, check_positive
from ._checks import _check_alpha, _check_compositions, _scalar_or_array
from .conversions import _epsilon_from_rdp
from .search import smallest_feasible

__all__ = [
    "gaussian_mechanism_rdp",
    "analytic_gaussian_delta",
    "analytic_gaussian_sigma",
    "analytic_gaussian_epsilon",
    "classical_gaussian_sigma",
    "gaussian_mechanism_sigma_rdp",
]


def gaussian_mechanism_rdp(alpha, sensitivity, sigma):
    """Renyi bound of the Gaussian mechanism, Lemma 7 (Mironov 2017, Corollary 3)::

        alpha b^2 / (2 sigma^2)   for every alpha > 1,

    for ``f(X) + sigma xi`` with l2-sensitivity ``b``.
    """
    a, scalar = _check_alpha(alpha, np.inf, "alpha b^2/(2 sigma^2) (Lemma 7)", "inf")
    b = check_positive(sensitivity, "sensitivity", allow_zero=True)
    s = check_positive(sigma, "sigma")
    return _scalar_or_array(a * b * b / (2.0 * s * s), scalar)


def _analytic_gaussian_delta(sigma: float, eps: float, sens: float) -> float:
    """Privacy profile of the Gaussian mechanism (Balle & Wang 2018, Theorem 8), stably.

    delta = Phi(a) - e^eps Phi(b), a = D/(2s) - eps s/D, b = -D/(2s) - eps s/D, evaluated as
    exp(log Phi(a)) * (-expm1(eps + log Phi(b) - log Phi(a))).
    """
    a = sens / (2.0 * sigma) - eps * sigma / sens
    b = -sens / (2.0 * sigma) - eps * sigma / sens
    la = float(_sp.log_ndtr(a))
    lb = float(_sp.log_ndtr(b))
    return max(0.0, math.exp(la) * -math.expm1(eps + lb - la))


def analytic_gaussian_delta(sigma, epsilon, sensitivity=1.0):
    """Exact delta(epsilon) of the Gaussian mechanism with noise std ``sigma``.

    Balle and Wang (2018), Theorem 8: ``f(X) + N(0, sigma^2 I)`` with l2-sensitivity ``D``
    is (epsilon, delta)-DP if and only if::

        delta >= Phi(D/(2 sigma) - epsilon sigma/D) - e^epsilon Phi(-D/(2 sigma) - epsilon sigma/D)
    """
    s = check_positive(sigma, "sigma")
    eps = check_epsilon(epsilon)
    d = check_positive(sensitivity, "sensitivity")
    return _analytic_gaussian_delta(s, eps, d)


def analytic_gaussian_epsilon(sigma: float, delta: float, sensitivity: float = 1.0) -> float:
    """Smallest epsilon for which the Gaussian mechanism with std ``sigma`` is (epsilon, delta)-DP.

    Inverse in epsilon of the exact privacy profile of Balle & Wang (2018, Theorem 8)
    (:func:`fastmix.accounting.analytic_gaussian_delta`), by bisection; the returned epsilon
    satisfies the profile.
    """
    s = check_positive(sigma, "sigma")
    delta = check_delta(delta)
    b = check_positive(sensitivity, "sensitivity")
    tiny = 1e-12
    profile = _analytic_gaussian_delta  # the arguments are checked above, once for the whole search
    if profile(s, tiny, b) <= delta:
        return tiny
    return smallest_feasible(lambda e: profile(s, e, b) - delta, 0.0, tiny, 1.0, rtol=1e-12)


def analytic_gaussian_sigma(epsilon, delta, sensitivity=1.0):
    """Smallest noise std of the analytic Gaussian mechanism (Balle & Wang 2018, Algorithm 1).

    Bisection on ``log sigma`` of the exact profile :func:`analytic_gaussian_delta`
    (decreasing in sigma) to relative tolerance 1e-12; the returned sigma satisfies
    ``analytic_gaussian_delta(sigma, epsilon) <= delta``. Valid for every epsilon > 0.
    """
    eps = check_epsilon(epsilon)
    delta = check_delta(delta)
    d = check_positive(sensitivity, "sensitivity")
    hi = d * max(1.0, math.sqrt(2.0 * math.log(1.25 / delta)) / eps)
    return smallest_feasible(
        lambda s: _analytic_gaussian_delta(s, eps, d) - delta, 0.0, hi * 1e-3, hi, rtol=1e-12, shrink_lo=True
    )


def classical_gaussian_sigma(epsilon, delta, sensitivity=1.0):
    """Noise std of the classical Gaussian mechanism (Dwork & Roth 2014, Theorem A.1)::

        sigma = D sqrt(2 log(1.25/delta)) / epsilon

    The theorem is proved for ``epsilon < 1`` only; for ``epsilon >= 1`` the value is still
    returned (it is what many references tabulate) but carries no guarantee: use
    :func:`analytic_gaussian_sigma` there.
    """
    eps = check_epsilon(epsilon)
    delta = check_delta(delta)
    d = check_positive(sensitivity, "sensitivity")
    return d * math.sqrt(2.0 * math.log(1.25 / delta)) / eps


def _gaussian_mechanism_epsilon_rdp(sigma: float, delta: float, sens: float, compositions: int) -> float:
    c = compositions * sens * sens / (2.0 * sigma * sigma)
    return _epsilon_from_rdp(lambda a: c * np.asarray(a, dtype=float), delta, np.inf, "canonne")[0]


def gaussian_mechanism_sigma_rdp(epsilon, delta, sensitivity, *, compositions=1):
    """Smallest sigma such that ``compositions`` Gaussian releases are (epsilon, delta)-DP via RDP.

    ::

        min_{alpha > 1}  compositions alpha b^2/(2 sigma^2) + log(1 - 1/alpha) - log(alpha delta)/(alpha-1)
        <= epsilon

    (Lemma 7 composed, then Proposition 1; eq. 182 with the Canonne conversion). Compare
    with ``sqrt(compositions) * analytic_gaussian_sigma(...)`` of the authors' code.
    """
    eps = check_epsilon(epsilon)
    delta = check_delta(delta)
    b = check_positive(sensitivity, "sensitivity")
    t = _check_compositions(compositions)
    hi = b * math.sqrt(t) * max(1.0, 2.0 * math.sqrt(2.0 * math.log(1.25 / delta)) / eps)
    return smallest_feasible(
        lambda s: _gaussian_mechanism_epsilon_rdp(s, delta, b, t), eps, hi * 1e-2, hi, shrink_lo=True
    )
