"""Figure 1 of the FastMix paper: the additive noise a k-row mixing release needs for a target epsilon.

These functions turn the Renyi bounds of :mod:`fastmix.accounting.renyi_bounds` into the
quantity plotted in Figure 1: the noise standard deviation sigma that a k-row Gaussian release
needs for a target (epsilon, delta), given a lower bound on lambda_min, for FastMix (eq. 7 with
the exact bound of eq. 50-52, or eq. 57 / 8), FastMix without row-norm control (eq. 76) and the
dense Gaussian sketch (Proposition 2); and the stated form of Upadhyay's (2014) bound that the
figure compares with.
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_delta, check_epsilon, check_positive
from ._checks import _as_float_array, _check_c2, _check_k, _scalar_or_array
from .conversions import _epsilon_from_rdp
from .renyi_bounds import _gamma_bar_q, _mix_rdp_q, _q_from_c2, fastmix_gamma_min
from .search import smallest_feasible
from .sketch_epsilon import (
    _fastmix_sketch_epsilon,
    _gaussian_sketch_epsilon,
    fastmix_gamma_for_epsilon,
    gaussian_sketch_gamma_for_epsilon,
)

__all__ = ["noise_gamma_for_epsilon", "sketch_noise_for_epsilon", "sketch_epsilon_for_noise", "upadhyay_noise_scale"]

_NOISE_MECHANISMS = ("fastmix", "fastmix_unbounded", "gaussmix")
_NOISE_BOUNDS = ("exact", "bar", "simple")


def _fastmix_exact_sketch_epsilon(gamma: float, rows: int, delta: float, c2: float):
    """Unchecked (epsilon, alpha*) of ``rows`` releases under phi(alpha; gamma, C^2), eq. (50)-(52)."""
    q = _q_from_c2(c2)
    return _epsilon_from_rdp(lambda a: rows * _mix_rdp_q(a, gamma, q), delta, gamma / _gamma_bar_q(q), "canonne")


def _fastmix_exact_gamma_for_epsilon(epsilon: float, delta: float, rows: int, c2: float) -> float:
    """Smallest gamma whose exact-bound epsilon (eq. 52 composed, Proposition 1) is <= epsilon."""
    lo = _gamma_bar_q(_q_from_c2(c2)) * (1.0 + 1e-12)
    hi = max(2.0 * lo, 2.0 * rows * math.log(1.25 / delta) / epsilon**2, 100.0 * rows / epsilon)
    return smallest_feasible(lambda g: _fastmix_exact_sketch_epsilon(g, rows, delta, c2)[0], epsilon, lo, hi)


def _check_noise_options(mechanism, bound, c2):
    if mechanism not in _NOISE_MECHANISMS:
        raise ValueError(f"mechanism must be one of {_NOISE_MECHANISMS}; got {mechanism!r}.")
    if bound not in _NOISE_BOUNDS:
        raise ValueError(f"bound must be one of {_NOISE_BOUNDS}; got {bound!r}.")
    return _check_c2(c2)


def noise_gamma_for_epsilon(epsilon, delta, k, *, c2=2.0, mechanism="fastmix", bound="exact"):
    """Smallest noise-to-signal parameter gamma reaching (epsilon, delta) for a k-row release.

    The gamma of each mechanism and the Renyi bound used (composed over ``k`` rows, then
    converted with Proposition 1 and minimised over alpha):

    =======================  =========================================  ==================================
    mechanism                gamma                                       Renyi bound per row
    =======================  =========================================  ==================================
    ``"fastmix"``            ``(lambda_min(S_f X) + sigma^2) / C^2``     ``bound="exact"``: phi(alpha; gamma, C^2),
                                                                         eq. (50)-(52); ``"bar"``: eq. (57);
                                                                         ``"simple"``: eq. (8)
    ``"fastmix_unbounded"``  ``lambda_min(S_f X) + sigma^2``             phi_hat, eq. (76) (C^2 -> inf)
    ``"gaussmix"``           ``lambda_min(X) + sigma^2``                 phi(alpha; gamma), Prop. 2, eq. (5)
    =======================  =========================================  ==================================

    Parameters
    ----------
    epsilon : float
        Target epsilon > 0.
    delta : float
        Target delta in (0, 1).
    k : int
        Number of Gaussian rows released (k1 in Algorithm 1).
    c2 : float, default=2.0
        ``C^2_(S_f X) >= 1``; used by ``mechanism="fastmix"`` only.
    mechanism : {"fastmix", "fastmix_unbounded", "gaussmix"}, default="fastmix"
    bound : {"exact", "bar", "simple"}, default="exact"
        Which FastMix bound to invert; ignored by the other mechanisms.

    Returns
    -------
    gamma : float
        The smallest gamma (to relative tolerance 1e-10) at which the accounted epsilon is
        at most ``epsilon``.
    """
    c = _check_noise_options(mechanism, bound, c2)
    eps = check_epsilon(epsilon)
    delta = check_delta(delta)
    k = _check_k(k)
    if mechanism == "gaussmix":
        return gaussian_sketch_gamma_for_epsilon(eps, delta, k)
    if mechanism == "fastmix_unbounded":
        return fastmix_gamma_for_epsilon(eps, delta, k, bound="unbounded")
    if bound == "exact":
        return _fastmix_exact_gamma_for_epsilon(eps, delta, k, c)
    return fastmix_gamma_for_epsilon(eps, delta, k, bound=bound)


def _sigma_from_gamma(gamma: float, lambda_min: float, scale: float) -> float:
    return math.sqrt(max(0.0, scale * gamma - lambda_min))


def sketch_noise_for_epsilon(epsilon, delta, k, *, lambda_min, c2=2.0, mechanism="fastmix", bound="exact"):
    """Additive noise std sigma needed for (epsilon, delta) by a k-row mixing release (Figure 1).

    Inverts the accounting of :func:`noise_gamma_for_epsilon` and solves the definition of
    gamma for sigma, clipping at zero::

        "fastmix":            sigma^2 = max(0, C^2 gamma   - lambda_min)   (eq. 7, bound eq. 52)
        "fastmix_unbounded":  sigma^2 = max(0, gamma_inf   - lambda_min)   (eq. 76)
        "gaussmix":           sigma^2 = max(0, gamma       - lambda_min)   (Prop. 2)

    ``lambda_min`` is ``lambda_min(S_f X)`` for the FastMix variants and ``lambda_min(X)``
    for GaussMix. A result of 0 means the data's own smallest eigenvalue already provides
    all the "noise" needed: no additive noise is required at that epsilon.

    Parameters
    ----------
    epsilon : float or ndarray
        Target epsilon(s) > 0; an array gives an array of the same shape.
    delta : float
    k : int
        Number of Gaussian rows released.
    lambda_min : float
        Lower bound on the relevant minimal eigenvalue (>= 0).
    c2 : float, default=2.0
        ``C^2_(S_f X)`` (``mechanism="fastmix"`` only).
    mechanism : {"fastmix", "fastmix_unbounded", "gaussmix"}, default="fastmix"
    bound : {"exact", "bar", "simple"}, default="exact"

    Returns
    -------
    sigma : float or ndarray
        Always >= 0; :func:`sketch_epsilon_for_noise` at this sigma is at most ``epsilon``.
    """
    c = _check_noise_options(mechanism, bound, c2)
    lam = check_positive(lambda_min, "lambda_min", allow_zero=True)
    eps_arr, scalar = _as_float_array(epsilon, "epsilon")
    scale = c if mechanism == "fastmix" else 1.0
    out = np.empty(eps_arr.shape)
    for idx, e in np.ndenumerate(eps_arr):
        g = noise_gamma_for_epsilon(float(e), delta, k, c2=c, mechanism=mechanism, bound=bound)
        out[idx] = _sigma_from_gamma(g, lam, scale)
    return _scalar_or_array(out, scalar)


def sketch_epsilon_for_noise(sigma, delta, k, *, lambda_min, c2=2.0, mechanism="fastmix", bound="exact"):
    """Accounted epsilon of a k-row mixing release with additive noise std sigma.

    The forward map of :func:`sketch_noise_for_epsilon`: form gamma from sigma and
    ``lambda_min`` (table in :func:`noise_gamma_for_epsilon`) and return::

        min_alpha  k r(alpha; gamma) + log(1 - 1/alpha) - log(alpha delta)/(alpha - 1)

    ``inf`` when gamma is outside the domain of the bound (too little noise).

    Returns
    -------
    epsilon : float
    """
    c = _check_noise_options(mechanism, bound, c2)
    s = check_positive(sigma, "sigma", allow_zero=True)
    lam = check_positive(lambda_min, "lambda_min", allow_zero=True)
    delta = check_delta(delta)
    k = _check_k(k)
    if mechanism == "gaussmix":
        g = lam + s * s
        return _gaussian_sketch_epsilon(g, k, delta)[0] if g > 1.0 else math.inf
    if mechanism == "fastmix_unbounded":
        g = lam + s * s
        return _fastmix_sketch_epsilon(g, k, delta, "unbounded")[0] if g > 1.0 else math.inf
    g = (lam + s * s) / c
    if bound == "exact":
        ok = g > _gamma_bar_q(_q_from_c2(c))
        return _fastmix_exact_sketch_epsilon(g, k, delta, c)[0] if ok else math.inf
    return _fastmix_sketch_epsilon(g, k, delta, bound)[0] if g > fastmix_gamma_min(bound) else math.inf


def upadhyay_noise_scale(epsilon, delta, k, lambda_min, *, C=16.0, a=2.0, b=16.0):
    """Stated form used for the Upadhyay (2014) curve of Figure 1 (constants uncertain).

    ::

        s*(epsilon)     = C sqrt(k log(a/delta)) log(b k/delta) / epsilon
        sigma_U(epsilon) = sqrt(max(0, s*(epsilon)^2 - lambda_min))

    Parameters
    ----------
    epsilon : float or ndarray
        Target epsilon(s) > 0.
    delta : float
        Target delta in (0, 1).
    k : int
        Number of sketch rows.
    lambda_min : float
        ``lambda_min(S_f X) >= 0``.
    C, a, b : float, default=16, 2, 16
        Constants of the stated form (all > 0; ``a > delta`` and ``b k > delta``).

    Returns
    -------
    sigma : float or ndarray
        >= 0.

    Notes
    -----
    Provenance and uncertainty of the form: the FastMix paper labels the curve
    "Upadhyay '14, Theorem 16" (arXiv:1410.2470) and summarises that bound as
    ``O(log(1/delta) sqrt(k log(1/delta) / (lambda_min(S_f X) + sigma^2)))``.
    The exact statement and constants of that theorem were **not available** to this
    package. Upadhyay's mechanism speeds up the Johnson-Lindenstrauss mechanism of Blocki
    et al. (FOCS 2012), which needs every singular value of the input to exceed
    ``w = 16 sqrt(r log(2/delta)) log(16 r/delta) / epsilon``; those constants are as seen
    in public code and were not checked against the paper. This function lifts
    ``lambda_min`` to ``s*^2`` in the same way, so it reproduces the paper's stated scaling
    (``epsilon ~ log(1/delta) sqrt(k log(1/delta)/(lambda_min + sigma^2))`` up to the
    ``log k`` inside the second logarithm) with Blocki et al.'s constants by default
    (``C=16, a=2, b=16``); ``C=a=b=1`` gives the constant-free form. Treat the curve as
    an illustration of the scaling, not as the exact bound of Theorem 16.
    """
    eps_arr, scalar = _as_float_array(epsilon, "epsilon")
    if np.any(~(eps_arr > 0)) or np.any(~np.isfinite(eps_arr)):
        raise ValueError(f"epsilon must be finite and > 0; got {epsilon!r}.")
    delta = check_delta(delta)
    k = _check_k(k)
    lam = check_positive(lambda_min, "lambda_min", allow_zero=True)
    C = check_positive(C, "C")
    a = check_positive(a, "a")
    b = check_positive(b, "b")
    if not (a > delta and b * k > delta):
        raise ValueError(f"need a > delta and b k > delta so both logarithms are positive; got a={a}, b={b}, k={k}.")
    s_star = C * math.sqrt(k * math.log(a / delta)) * math.log(b * k / delta) / eps_arr
    return _scalar_or_array(np.sqrt(np.maximum(0.0, s_star**2 - lam)), scalar)
