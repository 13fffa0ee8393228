"""RDP to (epsilon, delta): the conversions of Proposition 1 and their minimisation over alpha.

An RDP curve ``r(alpha)`` becomes an (epsilon, delta) guarantee through a conversion term;
the tightest epsilon minimises over the Renyi order. FastMix paper (arXiv:2605.30600),
Proposition 1 (Canonne, Kamath and Steinke 2020, Proposition 12) and Mironov's (2017)
Proposition 3 for the closed forms of eq. (117) and (183).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize as _opt

from .._validation import check_delta, check_positive
from ._checks import _as_float_array, _check_alpha, _scalar_or_array

__all__ = ["rdp_to_dp_epsilon", "rdp_to_dp_epsilon_classic", "epsilon_from_rdp"]

#: Largest Renyi order searched when a bound is valid for every alpha > 1.
ALPHA_CAP = 1e6
_GRID_SIZE = 1200


def _canonne_term(alpha, delta: float):
    """Conversion term of Proposition 1: log(1 - 1/alpha) - log(alpha delta)/(alpha - 1)."""
    alpha = np.asarray(alpha, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.log1p(-1.0 / alpha) - (np.log(alpha) + math.log(delta)) / (alpha - 1.0)
    return np.where(alpha > 1.0, out, np.inf)


def _classic_term(alpha, delta: float):
    """Conversion term of Mironov (2017), Proposition 3: log(1/delta)/(alpha - 1)."""
    alpha = np.asarray(alpha, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = -math.log(delta) / (alpha - 1.0)
    return np.where(alpha > 1.0, out, np.inf)


_CONVERSIONS = {"canonne": _canonne_term, "classic": _classic_term}


def _check_rdp_values(rdp):
    arr, scalar = _as_float_array(rdp, "rdp")
    if np.any(arr < 0):
        raise ValueError(f"rdp values are Renyi divergences and must be >= 0; got {rdp!r}.")
    return arr, scalar


def rdp_to_dp_epsilon(rdp, alpha, delta):
    """Convert an (alpha, r)-RDP guarantee to epsilon at a given delta (Canonne et al.).

    FastMix paper, Proposition 1 (Canonne, Kamath and Steinke 2020, Prop. 12)::

        epsilon = max(0, r + log(1 - 1/alpha) - log(alpha * delta) / (alpha - 1))

    Parameters
    ----------
    rdp : float or ndarray
        Renyi divergence bound r(alpha) >= 0 (may be ``inf``).
    alpha : float or ndarray
        Renyi order(s) > 1; broadcast against ``rdp``.
    delta : float
        Target delta in (0, 1).

    Returns
    -------
    epsilon : float or ndarray
        At least 0, and never larger than :func:`rdp_to_dp_epsilon_classic` at the same inputs.

    Notes
    -----
    The formula can be negative: its conversion term ``log(1 - 1/alpha) - log(alpha delta)/(alpha - 1)``
    is negative at least whenever ``alpha delta >= 1`` (large orders, or delta not small), so a small ``r``
    gives ``epsilon < 0``. The bound is still valid there: Proposition 12 of Canonne et al. bounds the
    hockey-stick divergence ``delta(epsilon) = E[max(0, 1 - exp(epsilon - L))]`` (L the privacy
    loss) through an inequality in ``L - epsilon`` alone, so its proof holds for every real
    epsilon, and (epsilon, delta)-DP with epsilon < 0 implies (0, delta)-DP. The value returned
    is therefore ``max(0, epsilon)``, the convention of other RDP accountants as well.

    Reference: C. Canonne, G. Kamath, T. Steinke, 2020, "The Discrete Gaussian for Differential
    Privacy", NeurIPS 2020, Proposition 12 (arXiv:2004.00010).
    """
    r, r_scalar = _check_rdp_values(rdp)
    a, a_scalar = _check_alpha(alpha, np.inf, "of any RDP conversion", "inf")
    delta = check_delta(delta)
    return _scalar_or_array(np.maximum(r + _canonne_term(a, delta), 0.0), r_scalar and a_scalar)


def rdp_to_dp_epsilon_classic(rdp, alpha, delta):
    """Convert an (alpha, r)-RDP guarantee to epsilon with Mironov's conversion.

    Mironov (2017), Proposition 3; used for the closed forms (FastMix paper, eq. 117 and
    eq. 183)::

        epsilon = r + log(1/delta) / (alpha - 1)

    Parameters and returns as in :func:`rdp_to_dp_epsilon`.
    """
    r, r_scalar = _check_rdp_values(rdp)
    a, a_scalar = _check_alpha(alpha, np.inf, "of any RDP conversion", "inf")
    delta = check_delta(delta)
    return _scalar_or_array(r + _classic_term(a, delta), r_scalar and a_scalar)


def _evaluate_rdp(rdp_fn, alpha: np.ndarray) -> np.ndarray:
    """Evaluate a user RDP curve on an array, falling back to a loop if it is not vectorised."""
    try:
        with np.errstate(all="ignore"):
            vals = np.asarray(rdp_fn(alpha), dtype=float)
        if vals.shape != alpha.shape:
            raise ValueError
    except (ValueError, TypeError):
        with np.errstate(all="ignore"):
            vals = np.array([float(rdp_fn(float(a))) for a in alpha.ravel()]).reshape(alpha.shape)
    return np.where(np.isnan(vals), np.inf, vals)


def _epsilon_from_rdp(rdp_fn, delta: float, alpha_max: float, conversion: str = "canonne"):
    """Unchecked core of :func:`epsilon_from_rdp`; returns (max(0, epsilon), alpha_star).

    The clip at 0 is valid for both conversions (see :func:`rdp_to_dp_epsilon`); Mironov's is
    never negative anyway. ``alpha_star`` is the minimiser of the unclipped objective.
    """
    conv = _CONVERSIONS[conversion]
    if not np.isfinite(alpha_max):
        alpha_max = ALPHA_CAP
    span = alpha_max - 1.0
    if not span > 0:
        return np.inf, np.nan
    # Search in u = log(alpha - 1), from a tiny fraction of the interval up to its end.
    u_lo = math.log(min(span, 1.0) * 1e-6)
    u_hi = math.log(span * (1.0 - 1e-9))
    grid = np.linspace(u_lo, u_hi, _GRID_SIZE)

    def objective_u(u):
        a = 1.0 + np.exp(u)
        return _evaluate_rdp(rdp_fn, np.atleast_1d(a)) + conv(np.atleast_1d(a), delta)

    values = objective_u(grid)
    i = int(np.argmin(values))
    best_val, best_u = float(values[i]), float(grid[i])
    if not np.isfinite(best_val):
        return np.inf, np.nan
    lo_u = grid[max(i - 1, 0)]
    hi_u = grid[min(i + 1, grid.size - 1)]
    if hi_u > lo_u:
        res = _opt.minimize_scalar(
            lambda u: float(objective_u(np.array([u]))[0]),
            bounds=(lo_u, hi_u),
            method="bounded",
            options={"xatol": 1e-12 * max(1.0, abs(best_u))},
        )
        if np.isfinite(res.fun) and res.fun < best_val:
            best_val, best_u = float(res.fun), float(res.x)
    return max(best_val, 0.0), 1.0 + math.exp(best_u)


def epsilon_from_rdp(rdp_fn, delta, alpha_max, *, conversion="canonne"):
    """Tightest epsilon of an RDP curve: minimise over the Renyi order.

    ::

        epsilon(delta) = min_{1 < alpha < alpha_max}  r(alpha) + conv(alpha, delta)

    with ``conv`` the Canonne et al. term of Proposition 1 (``conversion="canonne"``; Canonne,
    Kamath and Steinke 2020, Proposition 12, arXiv:2004.00010) or Mironov's
    ``log(1/delta)/(alpha - 1)`` (``conversion="classic"``; Mironov 2017, Proposition 3). A
    negative minimum (possible with the Canonne term when ``r`` is small and ``alpha delta > 1``)
    is reported as 0, which the conversion still guarantees (see :func:`rdp_to_dp_epsilon`).

    The minimum is found on a dense grid of 1200 log-spaced values of ``alpha - 1`` between
    ``1e-6 min(1, alpha_max - 1)`` and ``(1 - 1e-9)(alpha_max - 1)`` and then refined with a bounded
    scalar minimisation between the neighbours of the best grid point; the best value found
    is returned, so the result is a valid (slightly conservative at worst) epsilon.

    Parameters
    ----------
    rdp_fn : callable
        ``alpha -> r(alpha)``; vectorised over an ndarray of orders if possible. Values
        that are NaN or inf mark orders outside the bound's domain.
    delta : float
        Target delta in (0, 1).
    alpha_max : float
        Upper end of the admissible orders (> 1); ``np.inf`` is capped at ``ALPHA_CAP = 1e6``.
    conversion : {"canonne", "classic"}, default="canonne"

    Returns
    -------
    epsilon : float
        At least 0; ``inf`` if the curve is infinite on the whole range.
    alpha_star : float
        The order attaining it (``nan`` when epsilon is infinite).
    """
    if not callable(rdp_fn):
        raise TypeError(f"rdp_fn must be a callable alpha -> r(alpha); got {type(rdp_fn).__name__}.")
    delta = check_delta(delta)
    a_max = check_positive(alpha_max, "alpha_max", allow_inf=True)
    if not a_max > 1.0:
        raise ValueError(f"alpha_max must be > 1 (Renyi orders live in (1, alpha_max)); got {alpha_max!r}.")
    if conversion not in _CONVERSIONS:
        raise ValueError(f"conversion must be 'canonne' or 'classic'; got {conversion!r}.")

    def checked(alpha):
        values = rdp_fn(alpha)
        arr = np.asarray(values, dtype=float)
        if np.any(arr < 0):
            at = np.asarray(alpha, dtype=float)
            where = float(np.broadcast_to(at, arr.shape)[arr < 0].flat[0]) if at.ndim else float(at)
            raise ValueError(
                f"rdp_fn returned a negative value ({float(arr[arr < 0].flat[0]):.6g} at alpha = {where:.6g}); "
                "a Renyi divergence bound is >= 0. Check the curve."
            )
        return values

    return _epsilon_from_rdp(checked, delta, a_max, conversion)
