"""Privacy accounting for Gaussian sketches, FastMix and the Gaussian mechanism.

Every privacy-loss formula of the FastMix paper (Lev, Shenfeld, Srinivasan, Ligett and Wilson, 2026,
arXiv:2605.30600) that the package relies on lives here, one small pure function per
formula, with the formula in the docstring and the equation it comes from.

Vocabulary
----------
* A *Renyi bound* ``r(alpha)`` bounds the alpha-Renyi divergence between the outputs of a
  mechanism on zero-out neighbouring datasets (Definition 2). The bounds below are for a
  *single* Gaussian row ``g^T S_f X + sigma xi^T``; ``k`` independent rows compose
  additively, so multiply by the number of rows (and by the number of repeated releases).
* A *conversion* turns an RDP curve into an (epsilon, delta) guarantee; the tightest
  epsilon is the minimum over alpha (Proposition 1, Canonne et al. 2020, Prop. 12).
* ``gamma`` is the noise-to-signal parameter of the paper: for the dense Gaussian sketch
  ``gamma = lambda_min(X^T X) + sigma^2`` (Proposition 2); for FastMix
  ``gamma = (lambda_min(S_f X) + sigma^2) / C^2_{S_f X}`` (eq. 7); for the bound without a
  row-norm control ``gamma_inf = lambda_min(S_f X) + sigma^2`` (Appendix C.2 / D.2).

Public functions validate their inputs and raise :class:`ValueError` with the valid range.
Functions whose name starts with an underscore are unchecked and return ``np.inf`` outside
their domain so that they can be used inside minimisations.

References
----------
- O. Lev, M. Shenfeld, V. Srinivasan, K. Ligett, A. C. Wilson, 2026, "The Fast Mixing Mechanism for Differential Privacy",
  arXiv:2605.30600.
- C. Canonne, G. Kamath, T. Steinke, 2020, "The Discrete Gaussian for Differential
  Privacy", Proposition 12.
- I. Mironov, 2017, "Renyi Differential Privacy", Proposition 3 and Corollary 3.
- M. Gil, F. Alajaji, T. Linder, 2013, "Renyi divergence measures for commonly used
  univariate continuous distributions" (multivariate Gaussian closed form).
- B. Balle, Y.-X. Wang, 2018, "Improving the Gaussian Mechanism for Differential
  Privacy: Analytical Calibration and Optimal Denoising", ICML, Theorem 8 / Algorithm 1.
- C. Dwork, A. Roth, 2014, "The Algorithmic Foundations of Differential Privacy",
  Theorem A.1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Real
from types import MappingProxyType

import numpy as np
from scipy import linalg as _sla
from scipy import optimize as _opt
from scipy import special as _sp

from .._validation import (
    check_delta,
    check_epsilon,
    check_matrix,
    check_positive,
    check_positive_int,
)

__all__ = [
    # conversions
    "rdp_to_dp_epsilon",
    "rdp_to_dp_epsilon_classic",
    "epsilon_from_rdp",
    # Renyi bounds (per Gaussian row)
    "gaussian_mix_rdp",
    "fastmix_rdp_exact",
    "fastmix_rdp_bar",
    "fastmix_rdp_simple",
    "fastmix_rdp_unbounded",
    "fastmix_rdp_unbounded_simple",
    "gaussian_mechanism_rdp",
    "fastmix_alpha_max",
    "fastmix_gamma_min",
    "fastmix_gamma_bar",
    # epsilons
    "gaussian_sketch_epsilon",
    "fastmix_sketch_epsilon",
    "fastmix_epsilon_tight",
    "fastmix_epsilon_closed_form",
    "sketch_epsilon_closed_form",
    "sketch_epsilon_closed_form_unbounded",
    # inverse solvers
    "gaussian_sketch_gamma_for_epsilon",
    "fastmix_gamma_for_epsilon",
    "fastmix_gamma_closed_form",
    "analytic_gaussian_delta",
    "analytic_gaussian_sigma",
    "classical_gaussian_sigma",
    "gaussian_mechanism_sigma_rdp",
    # exact divergences
    "gaussian_renyi_divergence",
    "gaussian_mix_divergence",
    # ledger
    "LedgerEntry",
    "BudgetExceededError",
    "DetachedLedgerError",
    "PrivacyLedger",
]

#: Largest Renyi order searched when a bound is valid for every alpha > 1.
ALPHA_CAP = 1e6
#: Relative width at which the inverse solvers stop bisecting.
_SOLVER_RTOL = 1e-10
_GRID_SIZE = 1200

_BOUNDS = ("gaussian", "exact", "bar", "simple", "unbounded", "unbounded_simple")
_SKETCH_BOUNDS = ("bar", "simple", "unbounded")


# ---------------------------------------------------------------------------------------
# small helpers
# ---------------------------------------------------------------------------------------


def _scalar_or_array(value, scalar_input: bool):
    """Return a Python float for scalar input and an ndarray otherwise."""
    if scalar_input:
        return float(np.asarray(value).reshape(()))
    return np.asarray(value, dtype=float)


def _as_float_array(value, name: str) -> tuple[np.ndarray, bool]:
    arr = np.asarray(value)
    if arr.dtype == bool or not (np.issubdtype(arr.dtype, np.number)) or np.iscomplexobj(arr):
        raise TypeError(f"{name} must be a real number or an array of real numbers; got {value!r}.")
    arr = arr.astype(float)
    if np.any(np.isnan(arr)):
        raise ValueError(f"{name} must not contain NaN; got {value!r}.")
    return arr, arr.ndim == 0


def _check_alpha(alpha, upper: float, bound: str, upper_text: str, *, lower: float = 1.0):
    """Validate Renyi orders: every alpha must lie in the open interval (lower, upper)."""
    arr, scalar = _as_float_array(alpha, "alpha")
    bad = ~((arr > lower) & (arr < upper))
    if np.any(bad):
        got = arr[bad].flat[0] if arr.ndim else float(arr)
        raise ValueError(
            f"alpha must lie in ({lower:g}, {upper_text}) = ({lower:g}, {upper:.6g}) for the bound {bound}; "
            f"got {got:.6g}. Choose Renyi orders inside this interval (see fastmix_alpha_max), or "
            "increase gamma (more noise) to widen it."
        )
    return arr, scalar


def _check_gamma(gamma, minimum: float, name: str, bound: str, minimum_text: str) -> float:
    g = check_positive(gamma, name, allow_inf=False)
    if not g > minimum:
        raise ValueError(
            f"{name} must be > {minimum_text} = {minimum:.6g} for the bound {bound}; got {g:.6g}. "
            f"Increase the noise (sigma^2) or the minimal eigenvalue so that {name} exceeds {minimum:.6g}."
        )
    return g


def _check_k(k, name: str = "k") -> int:
    return check_positive_int(k, name, minimum=1, hint="It is the number of Gaussian rows released (sketch size).")


def _check_compositions(compositions) -> int:
    return check_positive_int(
        compositions, "compositions", minimum=1, hint="It is the number of independent releases composed."
    )


def _check_c2(c2) -> float:
    c = check_positive(c2, "c2", allow_inf=True)
    if not c >= 1.0:
        raise ValueError(
            f"c2 = C^2_(S_f X) = 1 + 2 max_i ||Z^T S_f e_i - x_i|| is at least 1 by definition (FastMix paper, "
            f"Lemma 1); got {c:.6g}."
        )
    return c


def _log_or_neg_inf(x):
    """log(x) for x > 0, -inf otherwise (no warnings)."""
    x = np.asarray(x, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x > 0, np.log(np.where(x > 0, x, 1.0)), -np.inf)


# ---------------------------------------------------------------------------------------
# RDP -> (epsilon, delta) conversions
# ---------------------------------------------------------------------------------------


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


# ---------------------------------------------------------------------------------------
# Renyi bounds for one Gaussian row
# ---------------------------------------------------------------------------------------


def _mix_rdp_q(alpha, gamma: float, q: float):
    """phi(alpha; gamma, q) of eq. (50)-(52) with q = ((1 - C^2)/C^2)^2; inf outside domain.

    ::

        1/(2(alpha-1)) [ alpha log(1 - 1/gamma - q/(4 gamma^2))
                         - log(1 - alpha/gamma - alpha^2 q/(4 gamma^2)) ]
    """
    alpha = np.asarray(alpha, dtype=float)
    first = 1.0 / gamma + q / (4.0 * gamma * gamma)
    second = alpha / gamma + alpha * alpha * q / (4.0 * gamma * gamma)
    ok = (first < 1.0) & (second < 1.0) & (alpha > 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        val = (alpha * np.log1p(-first) - np.log1p(-np.where(ok, second, 0.0))) / (2.0 * (alpha - 1.0))
    return np.where(ok, val, np.inf)


def _gaussian_mix_rdp(alpha, gamma: float):
    """Unchecked phi(alpha; gamma) of Proposition 2, eq. (5)."""
    return _mix_rdp_q(alpha, gamma, 0.0)


def _fastmix_rdp_exact(alpha, gamma: float, c2: float):
    """Unchecked phi(alpha; gamma, C^2) of eq. (50)-(52); inf outside its domain."""
    return _mix_rdp_q(alpha, gamma, _q_from_c2(c2))


def _fastmix_rdp_bar(alpha, gamma: float):
    """Unchecked phi_bar(alpha; gamma) of eq. (57)/(115), restricted to alpha < 4 gamma / 5."""
    alpha = np.asarray(alpha, dtype=float)
    return np.where(alpha < 0.8 * gamma, _mix_rdp_q(alpha, gamma, 1.0), np.inf)


def _fastmix_rdp_simple(alpha, gamma: float):
    """Unchecked 25 alpha / (32 gamma^2) of Lemma 1, eq. (8), for 1 < alpha < 8 gamma / 25."""
    alpha = np.asarray(alpha, dtype=float)
    ok = (alpha > 1.0) & (alpha < 8.0 * gamma / 25.0)
    return np.where(ok, 25.0 * alpha / (32.0 * gamma * gamma), np.inf)


def _fastmix_rdp_unbounded(alpha, g: float):
    """Unchecked phi_hat(alpha; gamma_inf) of eq. (76) / (130)."""
    alpha = np.asarray(alpha, dtype=float)
    c = 2.0 / math.sqrt(g) - 1.0 / g  # eq. (131): phi_hat(alpha; g) = phi(alpha; 1/c)
    if not (0.0 < c < 1.0):
        return np.full(alpha.shape, np.inf)
    return _mix_rdp_q(alpha, 1.0 / c, 0.0)


def _fastmix_rdp_unbounded_simple(alpha, g: float):
    """Unchecked 2 alpha / gamma_inf of eq. (132), for 1 < alpha < sqrt(gamma_inf) / 5."""
    alpha = np.asarray(alpha, dtype=float)
    ok = (alpha > 1.0) & (alpha < math.sqrt(g) / 5.0)
    return np.where(ok, 2.0 * alpha / g, np.inf)


def fastmix_gamma_bar(c2) -> float:
    """Smallest gamma for which the exact bound phi(alpha; gamma, C^2) is defined.

    FastMix paper, Appendix C.1, eq. (53)::

        gamma_bar(C^2) = (1 + sqrt(1 + (1/C^2 - 1)^2)) / 2

    ``gamma_bar`` is the positive root of ``t^2 - t - q/4`` with ``q = (1/C^2 - 1)^2``, so
    ``gamma > gamma_bar`` and ``alpha < gamma / gamma_bar`` are exactly the conditions for
    both logarithms of eq. (50)-(51) to be finite (not only sufficient ones). It grows from
    1 (C^2 = 1) to (1 + sqrt 2)/2 ~ 1.207 (C^2 -> inf), below the 5/4 used by the paper.
    """
    c = _check_c2(c2)
    return _gamma_bar_q(_q_from_c2(c))


def _q_from_c2(c2: float) -> float:
    if math.isinf(c2):
        return 1.0
    return ((1.0 - c2) / c2) ** 2


def _gamma_bar_q(q: float) -> float:
    return 0.5 * (1.0 + math.sqrt(1.0 + q))


def fastmix_gamma_min(bound="bar", *, c2=None) -> float:
    """Infimum of the admissible gamma for each Renyi bound (the bound needs gamma > this).

    ============================  =====================================  ======================
    bound                         gamma must exceed                      source
    ============================  =====================================  ======================
    ``"gaussian"``                1                                      Prop. 2, eq. (5)
    ``"exact"``                   gamma_bar(C^2)                         eq. (53)
    ``"bar"``                     5/4                                    eq. (57), (115)
    ``"simple"``                  25/8                                   eq. (7)-(8)
    ``"unbounded"``               1   (gamma means gamma_inf)            eq. (76)
    ``"unbounded_simple"``        25  (so that sqrt(gamma_inf)/5 > 1)    eq. (132)
    ============================  =====================================  ======================
    """
    if bound not in _BOUNDS:
        raise ValueError(f"bound must be one of {_BOUNDS}; got {bound!r}.")
    if bound == "exact":
        if c2 is None:
            raise ValueError("bound='exact' needs c2 = C^2_(S_f X) >= 1.")
        return fastmix_gamma_bar(c2)
    return {"gaussian": 1.0, "bar": 1.25, "simple": 25.0 / 8.0, "unbounded": 1.0, "unbounded_simple": 25.0}[bound]


def _alpha_max(gamma: float, bound: str, c2: float | None = None) -> float:
    if bound == "gaussian":
        return gamma
    if bound == "exact":
        return gamma / _gamma_bar_q(_q_from_c2(c2))
    if bound == "bar":
        return 0.8 * gamma
    if bound == "simple":
        return 8.0 * gamma / 25.0
    if bound == "unbounded":
        return gamma / (2.0 * math.sqrt(gamma) - 1.0)
    if bound == "unbounded_simple":
        return math.sqrt(gamma) / 5.0
    raise ValueError(f"bound must be one of {_BOUNDS}; got {bound!r}.")


_GAMMA_MIN_TEXT = {
    "gaussian": "1",
    "exact": "gamma_bar(C^2)",
    "bar": "5/4",
    "simple": "25/8",
    "unbounded": "1",
    "unbounded_simple": "25",
}
_BOUND_LABEL = {
    "gaussian": "phi (Proposition 2)",
    "exact": "phi(alpha; gamma, C^2) (eq. 50-52)",
    "bar": "phi_bar (eq. 57)",
    "simple": "25 alpha/(32 gamma^2) (Lemma 1)",
    "unbounded": "phi_hat (eq. 76; gamma means gamma_inf)",
    "unbounded_simple": "2 alpha/gamma_inf (eq. 132)",
}
_ALPHA_MAX_TEXT = {
    "gaussian": "gamma",
    "exact": "gamma/gamma_bar(C^2)",
    "bar": "4*gamma/5",
    "simple": "8*gamma/25",
    "unbounded": "g/(2*sqrt(g) - 1)",
    "unbounded_simple": "sqrt(g)/5",
}


def fastmix_alpha_max(gamma, bound="bar", *, c2=None) -> float:
    """Upper end of the Renyi orders for which a bound holds (orders live in (1, alpha_max)).

    ==================  ==========================  ===========================
    bound               alpha_max                   source
    ==================  ==========================  ===========================
    "gaussian"          gamma                       Prop. 2, eq. (5)
    "exact"             gamma / gamma_bar(C^2)      eq. (53)
    "bar"               4 gamma / 5                 eq. (57), (113)-(115)
    "simple"            8 gamma / 25                eq. (8)
    "unbounded"         g / (2 sqrt(g) - 1)         eq. (76) (Appendix C.2)
    "unbounded_simple"  sqrt(g) / 5                 eq. (132)
    ==================  ==========================  ===========================

    For ``"unbounded"`` Appendix D.2 states the smaller range ``alpha < sqrt(g)/2``; the
    logarithm of eq. (76) is finite up to ``g/(2 sqrt(g) - 1)`` (Appendix C.2), which is
    the range used here. For ``"bar"`` the logarithms are finite up to
    ``2 (sqrt 2 - 1) gamma ~ 0.83 gamma``; the paper (and this package) uses ``4 gamma/5``.

    Parameters
    ----------
    gamma : float
        The bound's gamma (``gamma_inf = lambda_min(Z) + sigma^2`` for the unbounded ones).
    bound : str, default="bar"
    c2 : float, optional
        C^2_(S_f X) >= 1, required for ``bound="exact"``.
    """
    gmin = fastmix_gamma_min(bound, c2=c2)
    g = _check_gamma(gamma, gmin, "gamma", _BOUND_LABEL[bound], _GAMMA_MIN_TEXT[bound])
    return _alpha_max(g, bound, None if c2 is None else _check_c2(c2))


def gaussian_mix_rdp(alpha, gamma):
    """Renyi bound of one row of the Gaussian sketch (GaussMix), Proposition 2, eq. (5).

    For ``M(X) = g^T X + sigma xi^T`` with ``||x_i|| <= 1`` and
    ``gamma <= lambda_min(X^T X) + sigma^2`` (Lev et al. 2025)::

        phi(alpha; gamma) = alpha/(2(alpha-1)) log(1 - 1/gamma)
                            - 1/(2(alpha-1)) log(1 - alpha/gamma)

    valid for ``gamma > 1`` and ``1 < alpha < gamma``. ``k`` rows give ``k * phi``.

    Parameters
    ----------
    alpha : float or ndarray
    gamma : float

    Returns
    -------
    float or ndarray
    """
    g = _check_gamma(gamma, 1.0, "gamma", "phi (Proposition 2)", "1")
    a, scalar = _check_alpha(alpha, g, "phi (Proposition 2)", "gamma")
    return _scalar_or_array(_gaussian_mix_rdp(a, g), scalar)


def fastmix_rdp_exact(alpha, gamma, c2):
    """Tightest FastMix Renyi bound phi(alpha; gamma, C^2), Appendix C.1, eq. (50)-(52).

    With ``q = ((1 - C^2)/C^2)^2`` and ``gamma = (lambda_min(S_f X) + sigma^2)/C^2`` (eq. 7)::

        phi(alpha; gamma, C^2) = 1/(2(alpha-1)) [ alpha log(1 - 1/gamma - q/(4 gamma^2))
                                                  - log(1 - alpha/gamma - alpha^2 q/(4 gamma^2)) ]

    valid for ``gamma > gamma_bar(C^2)`` and ``1 < alpha < gamma/gamma_bar(C^2)`` (eq. 53;
    see :func:`fastmix_gamma_bar`). With ``C^2 = 1`` it equals :func:`gaussian_mix_rdp`;
    it increases to :func:`fastmix_rdp_bar` as ``C^2 -> inf`` (``q -> 1``).

    Parameters
    ----------
    alpha : float or ndarray
    gamma : float
    c2 : float
        ``C^2_(S_f X) = 1 + 2 max_i ||Z^T S_f e_i - x_i|| >= 1`` (``inf`` allowed).
    """
    c = _check_c2(c2)
    q = _q_from_c2(c)
    gbar = _gamma_bar_q(q)
    g = _check_gamma(gamma, gbar, "gamma", "phi(alpha; gamma, C^2) (eq. 50-52)", "gamma_bar(C^2)")
    a, scalar = _check_alpha(alpha, g / gbar, "phi(alpha; gamma, C^2) (eq. 53)", _ALPHA_MAX_TEXT["exact"])
    return _scalar_or_array(_mix_rdp_q(a, g, q), scalar)


def fastmix_rdp_bar(alpha, gamma):
    """C^2-free FastMix Renyi bound phi_bar(alpha; gamma), eq. (57) / (115).

    ::

        phi_bar(alpha; gamma) = 1/(2(alpha-1)) [ alpha log(1 - 1/gamma - 1/(4 gamma^2))
                                                 - log(1 - alpha/gamma - alpha^2/(4 gamma^2)) ]

    (eq. 50-52 with q = 1, an upper bound for every C^2 >= 1), valid for ``gamma > 5/4``
    and ``1 < alpha < 4 gamma/5``. This is what Theorem 1 (eq. 113-114) composes.
    """
    g = _check_gamma(gamma, 1.25, "gamma", "phi_bar (eq. 57)", "5/4")
    a, scalar = _check_alpha(alpha, 0.8 * g, "phi_bar", _ALPHA_MAX_TEXT["bar"])
    return _scalar_or_array(_fastmix_rdp_bar(a, g), scalar)


def fastmix_rdp_simple(alpha, gamma):
    """Simplified FastMix Renyi bound of Lemma 1, eq. (8)::

        25 alpha / (32 gamma^2),   gamma > 25/8,  1 < alpha < 8 gamma/25.

    It is Lev et al. (2025, Corollary 1)'s ``alpha/(2 gamma'^2)`` applied to
    ``phi(alpha; gamma')`` with ``gamma' = 4 gamma/5`` (eq. 58-59).
    """
    g = _check_gamma(gamma, 25.0 / 8.0, "gamma", "25 alpha/(32 gamma^2) (Lemma 1)", "25/8")
    a, scalar = _check_alpha(alpha, 8.0 * g / 25.0, "25 alpha/(32 gamma^2) (Lemma 1)", _ALPHA_MAX_TEXT["simple"])
    return _scalar_or_array(_fastmix_rdp_simple(a, g), scalar)


def fastmix_rdp_unbounded(alpha, gamma_inf):
    """FastMix Renyi bound without row-norm control (C^2 -> inf), eq. (76) = eq. (130).

    With ``g = gamma_inf = lambda_min(Z) + sigma^2 > 1``::

        phi_hat(alpha; g) = 1/(2(alpha-1)) [ 2 alpha log(1 - 1/sqrt(g))
                                             - log(1 - 2 alpha/sqrt(g) + alpha/g) ]

    valid for ``1 < alpha < g/(2 sqrt(g) - 1)`` (Appendix C.2; Appendix D.2 quotes the
    smaller ``sqrt(g)/2``). Equivalently ``phi(alpha; 1/c)`` of eq. (5) with
    ``c = 2/sqrt(g) - 1/g`` (eq. 131).
    """
    g = _check_gamma(gamma_inf, 1.0, "gamma_inf", "phi_hat (eq. 76)", "1")
    a, scalar = _check_alpha(alpha, _alpha_max(g, "unbounded"), "phi_hat (eq. 76)", _ALPHA_MAX_TEXT["unbounded"])
    return _scalar_or_array(_fastmix_rdp_unbounded(a, g), scalar)


def fastmix_rdp_unbounded_simple(alpha, gamma_inf):
    """Simplified unbounded FastMix Renyi bound, eq. (132).

    ::

        2 alpha / gamma_inf,   1 < alpha < sqrt(gamma_inf)/5   (so gamma_inf > 25).
    """
    g = _check_gamma(gamma_inf, 25.0, "gamma_inf", "2 alpha/gamma_inf (eq. 132)", "25")
    a, scalar = _check_alpha(
        alpha, _alpha_max(g, "unbounded_simple"), "2 alpha/gamma_inf (eq. 132)", _ALPHA_MAX_TEXT["unbounded_simple"]
    )
    return _scalar_or_array(_fastmix_rdp_unbounded_simple(a, g), scalar)


def gaussian_mechanism_rdp(alpha, sensitivity, sigma):
    """Renyi bound of the Gaussian mechanism, Lemma 7 (Mironov 2017, Corollary 3)::

        alpha b^2 / (2 sigma^2)   for every alpha > 1,

    for ``f(X) + sigma xi`` with l2-sensitivity ``b``.
    """
    a, scalar = _check_alpha(alpha, np.inf, "alpha b^2/(2 sigma^2) (Lemma 7)", "inf")
    b = check_positive(sensitivity, "sensitivity", allow_zero=True)
    s = check_positive(sigma, "sigma")
    return _scalar_or_array(a * b * b / (2.0 * s * s), scalar)


# ---------------------------------------------------------------------------------------
# epsilons
# ---------------------------------------------------------------------------------------


def _gaussian_sketch_epsilon(gamma: float, rows: int, delta: float):
    return _epsilon_from_rdp(lambda a: rows * _gaussian_mix_rdp(a, gamma), delta, gamma, "canonne")


_UNCHECKED_BOUND = {
    "bar": _fastmix_rdp_bar,
    "simple": _fastmix_rdp_simple,
    "unbounded": _fastmix_rdp_unbounded,
    "unbounded_simple": _fastmix_rdp_unbounded_simple,
    "gaussian": _gaussian_mix_rdp,
}


def _fastmix_sketch_epsilon(gamma: float, rows: int, delta: float, bound: str, conversion: str = "canonne"):
    fn = _UNCHECKED_BOUND[bound]
    return _epsilon_from_rdp(lambda a: rows * fn(a, gamma), delta, _alpha_max(gamma, bound), conversion)


def gaussian_sketch_epsilon(gamma, k, delta, *, compositions=1):
    """(epsilon, delta) of ``compositions`` releases of a k-row Gaussian sketch (GaussMix / IHM).

    ::

        epsilon = min_{1 < alpha < gamma}  compositions * k * phi(alpha; gamma)
                  + log(1 - 1/alpha) - log(alpha delta)/(alpha - 1)

    (Proposition 2, eq. 5, composed over rows, then Proposition 1).

    Returns
    -------
    epsilon : float
    alpha_star : float
    """
    g = _check_gamma(gamma, 1.0, "gamma", "phi (Proposition 2)", "1")
    k = _check_k(k)
    t = _check_compositions(compositions)
    delta = check_delta(delta)
    return _gaussian_sketch_epsilon(g, k * t, delta)


def fastmix_sketch_epsilon(gamma, k1, delta, *, compositions=1, bound="bar"):
    """(epsilon, delta) of the Gaussian-sketch step of FastMix, eq. (113) / (185).

    ::

        epsilon = min_{1 < alpha < alpha_max}  compositions * k1 * r(alpha; gamma)
                  + log(1 - 1/alpha) - log(alpha delta)/(alpha - 1)

    with ``r`` = phi_bar (``bound="bar"``, eq. 115, alpha < 4 gamma/5), ``25 alpha/(32 gamma^2)``
    (``"simple"``, eq. 8) or phi_hat (``"unbounded"``, eq. 76; then ``gamma`` means
    ``gamma_inf = lambda_min(Z) + sigma^2``). Theorem 1 calls this with ``delta/3``.

    Returns
    -------
    epsilon : float
    alpha_star : float
    """
    if bound not in _SKETCH_BOUNDS:
        raise ValueError(f"bound must be one of {_SKETCH_BOUNDS}; got {bound!r}.")
    gmin = fastmix_gamma_min(bound)
    g = _check_gamma(gamma, gmin, "gamma", _BOUND_LABEL[bound], _GAMMA_MIN_TEXT[bound])
    k1 = _check_k(k1, "k1")
    t = _check_compositions(compositions)
    delta = check_delta(delta)
    return _fastmix_sketch_epsilon(g, k1 * t, delta, bound)


def fastmix_epsilon_tight(omega, gamma, k1, delta):
    """Tight epsilon of one FastMix call (Algorithm 1), Theorem 1 / eq. (114).

    ::

        epsilon_hat = 2/omega + min_{1 < alpha < 4 gamma/5} { k1 phi_bar(alpha; gamma)
                      + [log(3/delta) + (alpha-1) log(1 - 1/alpha) - log(alpha)]/(alpha - 1) }

    The two Laplace releases cost ``1/omega`` each; the sketch is converted at ``delta/3``
    (the remaining ``2 delta/3`` pays for the tails of the Laplace shifts, eq. 112). The
    conversion term equals Proposition 1 at ``delta/3``.
    """
    w = check_positive(omega, "omega")
    g = _check_gamma(gamma, 1.25, "gamma", "phi_bar (eq. 114)", "5/4")
    k1 = _check_k(k1, "k1")
    delta = check_delta(delta)
    return 2.0 / w + _fastmix_sketch_epsilon(g, k1, delta / 3.0, "bar")[0]


def _closed_form_min(A: float, L: float, alpha_hi: float) -> float:
    """min over 1 < alpha < alpha_hi of  A alpha + L/(alpha - 1)  (A, L > 0).

    The unconstrained minimiser is alpha* = 1 + sqrt(L/A) with value A + 2 sqrt(A L); if it
    is not inside the range the infimum is at the end alpha_hi (the function is convex).
    """
    s = math.sqrt(L / A)
    if 1.0 + s < alpha_hi:
        return A + 2.0 * math.sqrt(A * L)
    if not alpha_hi > 1.0:
        return math.inf
    return A * alpha_hi + L / (alpha_hi - 1.0)


def _sketch_closed_form(gamma: float, rows: int, log_inv_delta: float) -> float:
    # eq. (134) with gamma_f: bound 25 alpha/(32 gamma^2) on alpha < 8 gamma/25
    return _closed_form_min(25.0 * rows / (32.0 * gamma * gamma), log_inv_delta, 8.0 * gamma / 25.0)


def _sketch_closed_form_unbounded(g: float, rows: int, log_inv_delta: float) -> float:
    # eq. (133): bound 2 alpha/g on alpha < sqrt(g)/5
    return _closed_form_min(2.0 * rows / g, log_inv_delta, math.sqrt(g) / 5.0)


def fastmix_epsilon_closed_form(omega, gamma, k1, delta):
    """Closed-form epsilon of Theorem 1, eq. (9).

    With ``L = log(3/delta)``::

        epsilon <= 2/omega + { 25 k1/(32 gamma^2) + 2 sqrt(25 k1 L/(32 gamma^2))
                                   if sqrt(L 32 gamma^2/(25 k1)) < 8 gamma/25 - 1,
                               k1/(4 gamma) + 25 L/(8 gamma - 25)   otherwise }

    i.e. ``2/omega + min_{1<alpha<8 gamma/25} 25 alpha k1/(32 gamma^2) + L/(alpha - 1)``
    (eq. 117): the first branch is the interior minimiser ``alpha* = 1 + sqrt(L/A)``,
    ``A = 25 k1/(32 gamma^2)``; the second is the end ``alpha = 8 gamma/25``. The paper
    writes the branch test squared, ``L <= (8 gamma/25 - 1)^2 A``, which is the same for
    ``gamma > 25/8``. Requires ``gamma > 25/8``. Never below :func:`fastmix_epsilon_tight`.
    """
    w = check_positive(omega, "omega")
    g = _check_gamma(gamma, 25.0 / 8.0, "gamma", "Theorem 1 closed form (eq. 9)", "25/8")
    k1 = _check_k(k1, "k1")
    delta = check_delta(delta)
    return 2.0 / w + _sketch_closed_form(g, k1, math.log(3.0 / delta))


def sketch_epsilon_closed_form(gamma_f, k1, delta):
    """Closed-form (epsilon, delta) of the k1-row FastMix sketch, Appendix D.3, eq. (134).

    With ``L = log(1/delta)`` and ``A = 25 k1/(32 gamma_f^2)``::

        epsilon <= { 25 k1/(32 gamma_f^2) + sqrt(50 k1 L)/(4 gamma_f)
                         if L < (8 gamma_f/25 - 1)^2 A  (and 8 gamma_f/25 > 1),
                     k1/(4 gamma_f) + L/(8 gamma_f/25 - 1)   otherwise }

    = ``min_{1<alpha<8 gamma_f/25} k1 25 alpha/(32 gamma_f^2) + L/(alpha-1)`` (Mironov's
    conversion applied to eq. 129).

    Notes
    -----
    Eq. (134) is printed with ``lambda_min(Z) + sigma^2`` where the derivation (eq. 125-129)
    has ``gamma_f = (lambda_min(Z) + sigma^2)/C^2_(S_f X)``: the bound 25 alpha/(32 gamma^2)
    is stated in gamma_f, and only for ``C^2 = 1`` do the two coincide. Using the unscaled
    quantity would under-state epsilon whenever ``C^2 > 1``, so this function takes
    ``gamma_f`` (the same gamma as Lemma 1 / eq. 7). Eq. (9) is this with ``log(3/delta)``.
    """
    g = _check_gamma(gamma_f, 25.0 / 8.0, "gamma_f", "eq. (134)", "25/8")
    k1 = _check_k(k1, "k1")
    delta = check_delta(delta)
    return _sketch_closed_form(g, k1, math.log(1.0 / delta))


def sketch_epsilon_closed_form_unbounded(gamma_inf, k1, delta):
    """Closed-form epsilon of the k1-row sketch without row-norm control, eq. (133).

    With ``g = gamma_inf = lambda_min(Z) + sigma^2``, ``L = log(1/delta)``, ``A = 2 k1/g``::

        epsilon <= { 2 k1/g + sqrt(8 k1 L/g)            if L < (sqrt(g)/5 - 1)^2 A,
                     2 k1/(5 sqrt(g)) + 5 L/(sqrt(g) - 5)   otherwise }

    = ``min_{1<alpha<sqrt(g)/5} 2 alpha k1/g + L/(alpha - 1)`` (eq. 132 plus Mironov's
    conversion). Requires ``g > 25``.
    """
    g = _check_gamma(gamma_inf, 25.0, "gamma_inf", "eq. (133)", "25")
    k1 = _check_k(k1, "k1")
    delta = check_delta(delta)
    return _sketch_closed_form_unbounded(g, k1, math.log(1.0 / delta))


# ---------------------------------------------------------------------------------------
# inverse solvers
# ---------------------------------------------------------------------------------------


def _smallest_feasible(
    fn, target: float, lo: float, hi: float, rtol: float = _SOLVER_RTOL, *, shrink_lo: bool = False
) -> float:
    """Smallest x in (lo, inf) with fn(x) <= target for fn decreasing; bisection in log x.

    ``lo`` is the domain edge (or, with ``shrink_lo``, a guess divided by 10 until it is
    infeasible); ``hi`` is doubled until feasible. The returned value is the feasible
    (upper) end of the final bracket, so ``fn(result) <= target`` always holds.
    """
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


def gaussian_sketch_gamma_for_epsilon(epsilon, delta, k, *, compositions=1):
    """Smallest gamma for which ``gaussian_sketch_epsilon(gamma, k, delta) <= epsilon``.

    Inverse of :func:`gaussian_sketch_epsilon` (bisection on log gamma, relative
    tolerance 1e-10; the returned gamma satisfies the target).
    """
    eps = check_epsilon(epsilon)
    delta = check_delta(delta)
    rows = _check_k(k) * _check_compositions(compositions)
    hi = max(2.0, 2.0 * rows * math.log(1.25 / delta) / eps**2)
    return _smallest_feasible(lambda g: _gaussian_sketch_epsilon(g, rows, delta)[0], eps, 1.0 + 1e-12, hi)


def fastmix_gamma_for_epsilon(epsilon, delta, k1, *, compositions=1, bound="bar"):
    """Smallest gamma for which ``fastmix_sketch_epsilon(gamma, k1, delta, bound=...) <= epsilon``.

    This is the tight numeric calibration the paper's experiments use (eq. 185 at a target
    share of the budget). For FastIHM call it with ``(epsilon/3, delta/3, k1,
    compositions=T)``. For ``bound="unbounded"`` the result is ``gamma_inf``.
    """
    if bound not in _SKETCH_BOUNDS:
        raise ValueError(f"bound must be one of {_SKETCH_BOUNDS}; got {bound!r}.")
    eps = check_epsilon(epsilon)
    delta = check_delta(delta)
    rows = _check_k(k1, "k1") * _check_compositions(compositions)
    lo = fastmix_gamma_min(bound) * (1.0 + 1e-12)
    hi = max(2.0 * lo, 2.0 * rows * math.log(1.25 / delta) / eps**2, 100.0 * rows / eps)
    return _smallest_feasible(lambda g: _fastmix_sketch_epsilon(g, rows, delta, bound)[0], eps, lo, hi)


def fastmix_gamma_closed_form(epsilon, delta, k1, *, compositions=1):
    """gamma at which the closed form eq. (134) equals a target sketch epsilon.

    With ``K = compositions * k1`` rows, ``L = log(1/delta)`` and target ``e = epsilon``:

    * interior branch (``A + 2 sqrt(A L) = e``, ``A = 25 K/(32 gamma^2)``)::

          gamma_1 = 5 sqrt(K) (sqrt(L + e) + sqrt(L)) / (4 sqrt(2) e)

    * end branch (``K/(4 gamma) + L/(b - 1) = e`` with ``b = 8 gamma/25``), ``gamma_2 = 25 b/8``
      with ``b`` the root > 1 of ``25 e b^2 - (25 e + 2K + 25 L) b + 2K = 0``.

    ``gamma_1`` is returned when it lies in the interior branch (``sqrt(L/A) < 8 gamma_1/25 - 1``),
    otherwise ``gamma_2``. Because the closed form decreases in gamma, this is the smallest
    gamma whose eq. (134) bound is at most ``e``.

    For FastIHM (Theorem 2) call it with ``(epsilon/3, delta/3, k1, compositions=T)``: then
    ``gamma_1 = 15 sqrt(2 k1 T log(3/delta))/(8 epsilon) (1 + sqrt(1 + epsilon/(3 log(3/delta))))``,
    exactly eq. (177). The paper's ``gamma_2 = (2 k1 T + 25 log(3/delta))/(8 epsilon)`` is the
    large-K approximation of the end branch solved for ``epsilon`` instead of
    ``epsilon/3`` (and dropping the ``-25``); it does not make the second branch of
    eq. (134) at most ``epsilon/3``, so it is not used here.
    """
    e = check_epsilon(epsilon)
    delta = check_delta(delta)
    K = _check_k(k1, "k1") * _check_compositions(compositions)
    L = math.log(1.0 / delta)
    g1 = 5.0 * math.sqrt(K) * (math.sqrt(L + e) + math.sqrt(L)) / (4.0 * math.sqrt(2.0) * e)
    A1 = 25.0 * K / (32.0 * g1 * g1)
    if math.sqrt(L / A1) < 8.0 * g1 / 25.0 - 1.0:
        return g1
    p = 25.0 * e + 2.0 * K + 25.0 * L
    b = (p + math.sqrt(p * p - 200.0 * e * K)) / (50.0 * e)
    return 25.0 * b / 8.0


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
    return _smallest_feasible(
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
    return _smallest_feasible(
        lambda s: _gaussian_mechanism_epsilon_rdp(s, delta, b, t), eps, hi * 1e-2, hi, shrink_lo=True
    )


# ---------------------------------------------------------------------------------------
# exact Renyi divergence between centred Gaussians
# ---------------------------------------------------------------------------------------


def _check_spd(cov, name: str) -> np.ndarray:
    c = check_matrix(cov, name, dtype=float)
    if c.shape[0] != c.shape[1]:
        raise ValueError(f"{name} must be a square covariance matrix; got shape {c.shape}.")
    if not np.allclose(c, c.T, rtol=1e-10, atol=1e-12 * max(1.0, float(np.abs(c).max()))):
        raise ValueError(f"{name} must be symmetric; symmetrise it with ({name} + {name}.T)/2.")
    try:
        np.linalg.cholesky(c)
    except np.linalg.LinAlgError:
        raise ValueError(f"{name} must be positive definite (its Cholesky factorisation failed).") from None
    return 0.5 * (c + c.T)


def _renyi_from_generalised_eigs(alpha: np.ndarray, mu: np.ndarray) -> np.ndarray:
    """D_alpha(N(0,P) || N(0,Q)) from the eigenvalues mu of Q^{-1}(P - Q).

    With lambda_i = 1 + mu_i the eigenvalues of Q^{-1} P, eq. (16) becomes::

        -1/(2(alpha-1)) sum_i [ log(1 + (1-alpha) mu_i) - (1-alpha) log(1 + mu_i) ]

    and is +inf when some 1 + (1 - alpha) mu_i <= 0 ((1-alpha) P + alpha Q not PD).
    """
    a = np.asarray(alpha, dtype=float)[..., None]
    arg = 1.0 + (1.0 - a) * mu
    ok = np.all(arg > 0, axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.log1p(np.where(arg > 0, (1.0 - a) * mu, 0.0)) - (1.0 - a) * np.log1p(mu)
        val = -terms.sum(axis=-1) / (2.0 * (a[..., 0] - 1.0))
    return np.where(ok, np.maximum(val, 0.0), np.inf)


def gaussian_renyi_divergence(alpha, cov_p, cov_q):
    """Exact alpha-Renyi divergence between centred Gaussians, eq. (16) (Gil et al. 2013).

    ::

        D_alpha(N(0, P) || N(0, Q)) = -1/(2(alpha-1)) log[ det((1-alpha) P + alpha Q)
                                                           / (det(P)^(1-alpha) det(Q)^alpha) ]

    finite iff ``(1 - alpha) P + alpha Q`` is positive definite, ``+inf`` otherwise.
    Computed from the generalised eigenvalues of ``(P - Q, Q)`` with ``log1p``, which keeps
    full relative accuracy when P and Q are close (no determinant cancellation).

    Parameters
    ----------
    alpha : float or ndarray
        Orders > 1.
    cov_p, cov_q : ndarray of shape (d, d)
        Symmetric positive definite covariances.
    """
    a, scalar = _check_alpha(alpha, np.inf, "of the Gaussian Renyi divergence", "inf")
    p = _check_spd(cov_p, "cov_p")
    q = _check_spd(cov_q, "cov_q")
    if p.shape != q.shape:
        raise ValueError(f"cov_p and cov_q must have the same shape; got {p.shape} and {q.shape}.")
    mu = _sla.eigh(p - q, q, eigvals_only=True)
    return _scalar_or_array(_renyi_from_generalised_eigs(a, mu), scalar)


def gaussian_mix_divergence(alpha, Z, Z_prime, sigma, *, rows=1):
    """Exact Renyi divergence of the Gaussian mixing release on two (sketched) datasets.

    ``g^T Z + sigma xi^T`` with ``g ~ N(0, I_k)``, ``xi ~ N(0, I_d)`` is ``N(0, Z^T Z + sigma^2 I)``
    (eq. 20-21), so for ``rows`` independent rows::

        rows * D_alpha( N(0, Z^T Z + sigma^2 I) || N(0, Z'^T Z' + sigma^2 I) )    (eq. 16, 23)

    The difference ``Z^T Z - Z'^T Z'`` is formed directly (it is the rank-2 update of
    eq. 18-19 for zero-out neighbours), which keeps the small divergence accurate.

    Parameters
    ----------
    alpha : float or ndarray
    Z, Z_prime : ndarray of shape (k, d)
        ``S_f X`` and ``S_f X'`` (or ``X``, ``X'`` for the dense Gaussian sketch).
    sigma : float
        Additive noise std (> 0).
    rows : int, default=1
    """
    a, scalar = _check_alpha(alpha, np.inf, "of the Gaussian Renyi divergence", "inf")
    Z = check_matrix(Z, "Z", dtype=float)
    Zp = check_matrix(Z_prime, "Z_prime", dtype=float)
    if Z.shape[1] != Zp.shape[1]:
        raise ValueError(f"Z and Z_prime must have the same number of columns; got {Z.shape} and {Zp.shape}.")
    s = check_positive(sigma, "sigma")
    r = _check_k(rows, "rows")
    d = Z.shape[1]
    q = Zp.T @ Zp + (s * s) * np.eye(d)
    diff = Z.T @ Z - Zp.T @ Zp
    diff = 0.5 * (diff + diff.T)
    mu = _sla.eigh(diff, 0.5 * (q + q.T), eigvals_only=True)
    return _scalar_or_array(r * _renyi_from_generalised_eigs(a, mu), scalar)


# ---------------------------------------------------------------------------------------
# budget ledger
# ---------------------------------------------------------------------------------------

_LEDGER_SLACK = 1e-12


def _freeze_details(details) -> tuple:
    if details is None:
        return ()
    if isinstance(details, (dict, MappingProxyType)):
        items = details.items()
    else:
        items = details
    out = []
    for item in items:
        key, value = item
        if isinstance(value, (list, np.ndarray)):
            value = tuple(np.asarray(value).tolist()) if isinstance(value, np.ndarray) else tuple(value)
        if isinstance(value, dict):
            value = _freeze_details(value)
        out.append((str(key), value))
    frozen = tuple(out)
    hash(frozen)  # fail early on unhashable values
    return frozen


@dataclass(frozen=True)
class LedgerEntry:
    """One (epsilon, delta) expenditure recorded by :class:`PrivacyLedger`.

    Attributes
    ----------
    mechanism : str
        What was released (e.g. ``"FastMix sketch, t=0"``).
    epsilon, delta : float
        The guarantee of that release.
    source : str
        Where the numbers come from (e.g. ``"Theorem 1, eq. (114)"``).
    details : tuple of (key, value) pairs
        Parameters of the release (gamma, k1, ...); immutable and hashable.
    """

    mechanism: str
    epsilon: float
    delta: float
    source: str = ""
    details: tuple = ()

    def as_dict(self) -> dict:
        """Plain-dict view (``details`` becomes a dict)."""
        return {
            "mechanism": self.mechanism,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "source": self.source,
            "details": dict(self.details),
        }


class BudgetExceededError(ValueError):
    """Raised when a spend would take the ledger over its (epsilon, delta) target."""


def _check_spend(epsilon, delta, mechanism) -> tuple[float, float]:
    for name, value in (("epsilon", epsilon), ("delta", delta)):
        if isinstance(value, bool) or not isinstance(value, (Real, np.floating, np.integer)):
            raise TypeError(f"{name} of {mechanism!r} must be a real number; got {value!r}.")
        if math.isnan(float(value)) or float(value) < 0:
            raise ValueError(f"{name} of {mechanism!r} must be a number >= 0; got {value!r}.")
    if not math.isfinite(float(epsilon)):
        raise ValueError(f"epsilon of {mechanism!r} is infinite: the release is not private.")
    if not float(delta) < 1.0:
        raise ValueError(f"delta of {mechanism!r} must be < 1; got {delta!r}.")
    return float(epsilon), float(delta)


class DetachedLedgerError(RuntimeError):
    """A spend on a ledger restored from a pickle (a copy whose spending cannot reach the original)."""


class PrivacyLedger:
    """Running (epsilon, delta) budget under basic sequential composition.

    Spending ``(eps_i, delta_i)`` for releases i = 1..m yields
    ``(sum eps_i, sum delta_i)``-DP (Dwork & Roth 2014, Theorem 3.16). Totals are summed with
    :func:`math.fsum`. A spend that would take either total above the target (allowing a
    relative slack of 1e-12 for rounding) raises :class:`BudgetExceededError` and records
    nothing, so a ledger never holds an over-budget history.

    Parameters
    ----------
    epsilon : float
        Target epsilon > 0.
    delta : float
        Target delta in (0, 1).
    name : str, optional
    """

    def __init__(self, epsilon, delta, *, name=""):
        self._target_epsilon = check_epsilon(epsilon, "target epsilon")
        self._target_delta = check_delta(delta, "target delta")
        self.name = str(name)
        self._entries: list[LedgerEntry] = []
        self._detached = False

    # -- one budget, never duplicated --------------------------------------------------
    # A ledger stands for the budget of one data set: a copy would let two holders spend it
    # twice. ``copy.copy`` and ``copy.deepcopy`` therefore return the ledger itself (so an
    # estimator given ``ledger=`` and cloned by scikit-learn, e.g. inside GridSearchCV, still
    # charges the same budget), and a ledger restored from a pickle (for instance in a worker
    # process of joblib) can be read but refuses to spend: its spending would never reach the
    # original.
    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._detached = True

    def _check_attached(self, what):
        if getattr(self, "_detached", False):
            raise DetachedLedgerError(
                f"cannot record {what}: this ledger was restored from a pickle (for instance sent to another "
                "process by joblib with n_jobs > 1), so its spending would not reach the original budget. Fit "
                "in one process (n_jobs=1), or give each process a ledger of its own share of the budget."
            )

    # -- properties ---------------------------------------------------------------------
    @property
    def entries(self) -> tuple:
        return tuple(self._entries)

    @property
    def target_epsilon(self) -> float:
        return self._target_epsilon

    @property
    def target_delta(self) -> float:
        return self._target_delta

    @property
    def total_epsilon(self) -> float:
        return math.fsum(e.epsilon for e in self._entries)

    @property
    def total_delta(self) -> float:
        return math.fsum(e.delta for e in self._entries)

    @property
    def remaining_epsilon(self) -> float:
        return max(0.0, self._target_epsilon - self.total_epsilon)

    @property
    def remaining_delta(self) -> float:
        return max(0.0, self._target_delta - self.total_delta)

    # -- spending ----------------------------------------------------------------------
    def _fits(self, eps_list, delta_list) -> tuple[bool, float, float]:
        tot_e = math.fsum([*(e.epsilon for e in self._entries), *eps_list])
        tot_d = math.fsum([*(e.delta for e in self._entries), *delta_list])
        ok = tot_e <= self._target_epsilon * (1.0 + _LEDGER_SLACK) and tot_d <= self._target_delta * (
            1.0 + _LEDGER_SLACK
        )
        return ok, tot_e, tot_d

    def can_spend(self, epsilon, delta=0.0) -> bool:
        """Whether ``(epsilon, delta)`` still fits in the budget (nothing is recorded)."""
        e, d = _check_spend(epsilon, delta, "can_spend")
        return self._fits([e], [d])[0]

    def check_spend(self, mechanism, epsilon, delta=0.0) -> None:
        """Dry run of :meth:`spend`: raise :class:`BudgetExceededError` (with the totals it would
        reach) if ``(epsilon, delta)`` does not fit; record nothing either way."""
        entry = self._make_entry(mechanism, epsilon, delta)
        ok, tot_e, tot_d = self._fits([entry.epsilon], [entry.delta])
        if not ok:
            raise self._overflow_error(entry, tot_e, tot_d)

    def _make_entry(self, mechanism, epsilon, delta=0.0, source="", details=None) -> LedgerEntry:
        if not isinstance(mechanism, str):
            raise TypeError(
                f"mechanism must be a string naming the release; got {mechanism!r} of type {type(mechanism).__name__}."
            )
        if not mechanism:
            raise ValueError(f"mechanism must be a non-empty string naming the release; got {mechanism!r}.")
        e, d = _check_spend(epsilon, delta, mechanism)
        return LedgerEntry(mechanism, e, d, str(source), _freeze_details(details))

    def _overflow_error(self, entry: LedgerEntry, tot_e: float, tot_d: float) -> BudgetExceededError:
        return BudgetExceededError(
            f"spending (epsilon={entry.epsilon:.6g}, delta={entry.delta:.3g}) on {entry.mechanism!r} would bring "
            f"the totals to (epsilon={tot_e:.6g}, delta={tot_d:.3g}), above the target "
            f"(epsilon={self._target_epsilon:.6g}, delta={self._target_delta:.3g}); remaining budget is "
            f"(epsilon={self.remaining_epsilon:.6g}, delta={self.remaining_delta:.3g}). Nothing was recorded: "
            "lower this release's share or raise the target."
        )

    def spend(self, mechanism, epsilon, delta=0.0, *, source="", details=None) -> LedgerEntry:
        """Record a release costing ``(epsilon, delta)``; refuse it if the budget would overflow.

        Returns
        -------
        LedgerEntry
        """
        entry = self._make_entry(mechanism, epsilon, delta, source, details)
        self._check_attached(repr(entry.mechanism))
        ok, tot_e, tot_d = self._fits([entry.epsilon], [entry.delta])
        if not ok:
            raise self._overflow_error(entry, tot_e, tot_d)
        self._entries.append(entry)
        return entry

    def spend_all(self, entries) -> tuple:
        """Record several releases atomically: all are checked first, then all recorded.

        ``entries`` is an iterable of :class:`LedgerEntry` or of tuples/dicts with the
        arguments of :meth:`spend`. If any entry is invalid or the running totals would
        overflow at any point, nothing is recorded.
        """
        if isinstance(entries, (str, bytes, LedgerEntry, dict)) or not hasattr(entries, "__iter__"):
            raise TypeError(
                "spend_all needs an iterable of entries (e.g. calibration.ledger_entries()); got "
                f"{type(entries).__name__}. Use spend(...) for a single release."
            )
        self._check_attached("these releases")
        staged: list[LedgerEntry] = []
        for item in entries:
            if isinstance(item, LedgerEntry):
                entry = self._make_entry(item.mechanism, item.epsilon, item.delta, item.source, item.details)
            elif isinstance(item, dict):
                entry = self._make_entry(
                    item["mechanism"],
                    item["epsilon"],
                    item.get("delta", 0.0),
                    item.get("source", ""),
                    item.get("details"),
                )
            elif isinstance(item, (tuple, list)) and 2 <= len(item) <= 5:
                entry = self._make_entry(*item)
            else:
                raise TypeError(
                    "spend_all needs LedgerEntry objects, dicts or tuples (mechanism, epsilon, delta, source, "
                    f"details); got {item!r} of type {type(item).__name__}."
                )
            ok, tot_e, tot_d = self._fits(
                [*(s.epsilon for s in staged), entry.epsilon], [*(s.delta for s in staged), entry.delta]
            )
            if not ok:
                raise self._overflow_error(entry, tot_e, tot_d)
            staged.append(entry)
        self._entries.extend(staged)
        return tuple(staged)

    # -- reporting ---------------------------------------------------------------------
    def records(self) -> list:
        """List of dicts, one per entry, in spending order."""
        return [e.as_dict() for e in self._entries]

    def summary(self) -> str:
        """Plain-text table of the entries, the totals and the remaining budget."""
        head = f"Privacy ledger{(' ' + repr(self.name)) if self.name else ''}: target (epsilon={self._target_epsilon:.6g}, delta={self._target_delta:.3g})"
        rows = [("mechanism", "epsilon", "delta", "source")]
        for e in self._entries:
            rows.append((e.mechanism, f"{e.epsilon:.6g}", f"{e.delta:.3g}", e.source))
        rows.append(("TOTAL", f"{self.total_epsilon:.6g}", f"{self.total_delta:.3g}", ""))
        rows.append(("remaining", f"{self.remaining_epsilon:.6g}", f"{self.remaining_delta:.3g}", ""))
        widths = [max(len(r[i]) for r in rows) for i in range(4)]
        lines = [head]
        for j, r in enumerate(rows):
            lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
            if j == 0 or j == len(rows) - 3:
                lines.append("  ".join("-" * w for w in widths))
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (
            f"PrivacyLedger(name={self.name!r}, target=(epsilon={self._target_epsilon:.6g}, "
            f"delta={self._target_delta:.3g}), spent=(epsilon={self.total_epsilon:.6g}, "
            f"delta={self.total_delta:.3g}), entries={len(self._entries)})"
        )


# ---- Figure 1: noise scale for a target epsilon
#
# The functions below turn the Renyi bounds above into the quantity plotted in Figure 1 of
# the FastMix paper: the additive noise standard deviation sigma that a k-row Gaussian
# release needs for a target (epsilon, delta), given a lower bound on lambda_min.

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
    return _smallest_feasible(lambda g: _fastmix_exact_sketch_epsilon(g, rows, delta, c2)[0], epsilon, lo, hi)


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
    "Upadhyay '14, Theorem 16" (arXiv:1410.2470) and summarises that bound as ``O(log(1/delta) sqrt(k log(1/delta) / (lambda_min(S_f X) + sigma^2)))``.
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


__all__ += [
    "noise_gamma_for_epsilon",
    "sketch_noise_for_epsilon",
    "sketch_epsilon_for_noise",
    "upadhyay_noise_scale",
]
