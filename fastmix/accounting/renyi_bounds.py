"""Renyi bounds of one row of the Gaussian mixing mechanism and of FastMix, with their domains.

One row ``g^T S_f X + sigma xi^T`` of a Gaussian sketch (GaussMix: ``S_f = I``) is bounded in
alpha-Renyi divergence on zero-out neighbours by a function of the noise-to-signal parameter
gamma; ``k`` rows compose additively. FastMix paper (arXiv:2605.30600): Proposition 2, eq. (5)
(the dense Gaussian sketch); Lemma 1, eq. (7)-(8) and Appendix C.1, eq. (50)-(57) (FastMix,
with and without ``C^2``); Appendix C.2 / D.2, eq. (76), (130)-(132) (without row-norm control).
The admissible gammas and orders of each bound are :func:`fastmix_gamma_min` and
:func:`fastmix_alpha_max`; :func:`renyi_bound` evaluates any of them as a curve.
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_positive
from ._checks import _as_float_array, _check_alpha, _check_c2, _check_gamma, _scalar_or_array

__all__ = [
    "gaussian_mix_rdp",
    "fastmix_rdp_exact",
    "fastmix_rdp_bar",
    "fastmix_rdp_simple",
    "fastmix_rdp_unbounded",
    "fastmix_rdp_unbounded_simple",
    "mixing_rdp",
    "renyi_bound",
    "q_from_c2",
    "fastmix_alpha_max",
    "fastmix_gamma_min",
    "fastmix_gamma_bar",
]

_BOUNDS = ("gaussian", "exact", "bar", "simple", "unbounded", "unbounded_simple")


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
        if c2 is None:
            raise ValueError("bound='exact' needs c2 = C^2_(S_f X) >= 1.")
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


# Unchecked per-row bounds by name (gamma means gamma_inf for the unbounded ones).
_UNCHECKED_BOUND = {
    "bar": _fastmix_rdp_bar,
    "simple": _fastmix_rdp_simple,
    "unbounded": _fastmix_rdp_unbounded,
    "unbounded_simple": _fastmix_rdp_unbounded_simple,
    "gaussian": _gaussian_mix_rdp,
}


def q_from_c2(c2) -> float:
    """The parameter ``q`` of the exact FastMix bound as a function of ``C^2_(S_f X)``.

    FastMix paper, Appendix C.1, eq. (50)-(52)::

        q(C^2) = ((1 - C^2) / C^2)^2 = (1/C^2 - 1)^2,      q(inf) = 1

    ``q`` grows from 0 (``C^2 = 1``, where the exact bound is the GaussMix bound of
    Proposition 2) to 1 (``C^2 -> inf``, where it is ``phi_bar`` of eq. 57).

    Parameters
    ----------
    c2 : float
        ``C^2_(S_f X) = 1 + 2 max_i ||Z^T S_f e_i - x_i|| >= 1`` (Lemma 1); ``inf`` allowed.

    Returns
    -------
    q : float
        In ``[0, 1]``.

    See Also
    --------
    mixing_rdp : the bound ``phi(alpha; gamma, q)`` that ``q`` parametrises.
    fastmix_gamma_bar : the smallest admissible gamma, ``(1 + sqrt(1 + q)) / 2``.
    """
    return _q_from_c2(_check_c2(c2))


def mixing_rdp(alpha, gamma, q=0.0):
    """Renyi bound ``phi(alpha; gamma, q)`` of one Gaussian mixing row, as a curve over alpha.

    FastMix paper, Appendix C.1, eq. (50)-(52)::

        phi(alpha; gamma, q) = 1/(2(alpha-1)) [ alpha log(1 - 1/gamma - q/(4 gamma^2))
                                                - log(1 - alpha/gamma - alpha^2 q/(4 gamma^2)) ]

    ``q = 0`` is the GaussMix bound of Proposition 2, eq. (5); ``q = q_from_c2(C^2)`` the exact
    FastMix bound (:func:`fastmix_rdp_exact`); ``q = 1`` the C^2-free ``phi_bar`` of eq. (57)
    before its restriction to ``alpha < 4 gamma/5`` (:func:`fastmix_rdp_bar`).

    Unlike those functions, which raise outside their domain, this one is meant for
    minimisations (for example inside :func:`epsilon_from_rdp`): it returns ``inf`` where
    the bound does not hold, that is for ``alpha <= 1`` and wherever an argument of a
    logarithm is not positive (``gamma <= gamma_bar`` or ``alpha >= gamma / gamma_bar``, with
    ``gamma_bar = (1 + sqrt(1 + q))/2``, eq. 53).

    Parameters
    ----------
    alpha : float or ndarray
        Renyi orders.
    gamma : float
        The noise-to-signal parameter (``> 0``; eq. 7 for FastMix).
    q : float, default=0.0
        In ``[0, 1]`` (see :func:`q_from_c2`).

    Returns
    -------
    float or ndarray
        The bound per row (``k`` rows give ``k`` times it); ``inf`` outside the domain.
    """
    a, scalar = _as_float_array(alpha, "alpha")
    g = check_positive(gamma, "gamma")
    q_val, _ = _as_float_array(q, "q")
    if q_val.ndim or not 0.0 <= float(q_val) <= 1.0:
        raise ValueError(f"q = (1/C^2 - 1)^2 must be a number in [0, 1] (see q_from_c2); got {q!r}.")
    return _scalar_or_array(_mix_rdp_q(a, g, float(q_val)), scalar)


def renyi_bound(alpha, gamma, bound="bar", *, c2=None):
    """Any per-row Renyi bound of this module by name, as a curve: ``inf`` outside its domain.

    ::

        r(alpha; gamma) = bound(alpha; gamma)   if gamma > gamma_min and 1 < alpha < alpha_max,
                          inf                   otherwise

    with ``gamma_min`` from :func:`fastmix_gamma_min` and ``alpha_max`` from
    :func:`fastmix_alpha_max`. The bounds are those of :func:`gaussian_mix_rdp`
    (``"gaussian"``, Proposition 2, eq. 5), :func:`fastmix_rdp_exact` (``"exact"``, eq. 50-52,
    needs ``c2``), :func:`fastmix_rdp_bar` (``"bar"``, eq. 57), :func:`fastmix_rdp_simple`
    (``"simple"``, Lemma 1, eq. 8), :func:`fastmix_rdp_unbounded` (``"unbounded"``, eq. 76) and
    :func:`fastmix_rdp_unbounded_simple` (``"unbounded_simple"``, eq. 132); inside the domain
    the values are theirs. Those functions raise outside the domain; this one is meant for
    grids and minimisations (for instance comparing the bounds with an exact divergence, or
    the objective of :func:`epsilon_from_rdp`).

    Parameters
    ----------
    alpha : float or ndarray
        Renyi orders.
    gamma : float
        The bound's gamma (> 0; ``gamma_inf`` for the unbounded ones).
    bound : {"gaussian", "exact", "bar", "simple", "unbounded", "unbounded_simple"}, default="bar"
    c2 : float, optional
        ``C^2_(S_f X) >= 1``, required for ``bound="exact"``.

    Returns
    -------
    float or ndarray
        The bound per row; ``inf`` where it does not hold.
    """
    if bound not in _BOUNDS:
        raise ValueError(f"bound must be one of {_BOUNDS}; got {bound!r}.")
    a, scalar = _as_float_array(alpha, "alpha")
    g = check_positive(gamma, "gamma")
    c = None
    if bound == "exact":
        if c2 is None:
            raise ValueError("bound='exact' needs c2 = C^2_(S_f X) >= 1.")
        c = _check_c2(c2)
    if not g > fastmix_gamma_min(bound, c2=c):
        return _scalar_or_array(np.full(a.shape, np.inf), scalar)
    values = _fastmix_rdp_exact(a, g, c) if bound == "exact" else _UNCHECKED_BOUND[bound](a, g)
    return _scalar_or_array(np.where(a < _alpha_max(g, bound, c), values, np.inf), scalar)
