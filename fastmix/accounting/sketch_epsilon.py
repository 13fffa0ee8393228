"""(epsilon, delta) of composed Gaussian sketches and of FastMix, and the gamma for a target.

The per-row Renyi bounds of :mod:`fastmix.accounting.renyi_bounds`, composed over ``k`` rows
and ``compositions`` releases and converted with Proposition 1: the sketch step of FastMix and
one FastMix call (Theorem 1, eq. 9, 113-117), the closed forms of Appendix D.3 (eq. 133-134),
and their inverses, the gamma each accounting needs for a target epsilon (eq. 185; Theorem 2,
eq. 177). FastMix paper, arXiv:2605.30600.
"""

from __future__ import annotations

import math

from .._validation import check_delta, check_epsilon, check_positive
from ._checks import _check_compositions, _check_gamma, _check_k
from .conversions import _epsilon_from_rdp
from .renyi_bounds import (
    _BOUND_LABEL,
    _GAMMA_MIN_TEXT,
    _UNCHECKED_BOUND,
    _alpha_max,
    _gaussian_mix_rdp,
    fastmix_gamma_min,
)
from .search import smallest_feasible

__all__ = [
    "gaussian_sketch_epsilon",
    "fastmix_sketch_epsilon",
    "fastmix_epsilon_tight",
    "fastmix_epsilon_closed_form",
    "sketch_epsilon_closed_form",
    "sketch_epsilon_closed_form_unbounded",
    "gaussian_sketch_gamma_for_epsilon",
    "fastmix_gamma_for_epsilon",
    "fastmix_gamma_closed_form",
]

_SKETCH_BOUNDS = ("bar", "simple", "unbounded")


def _gaussian_sketch_epsilon(gamma: float, rows: int, delta: float):
    return _epsilon_from_rdp(lambda a: rows * _gaussian_mix_rdp(a, gamma), delta, gamma, "canonne")


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


def gaussian_sketch_gamma_for_epsilon(epsilon, delta, k, *, compositions=1):
    """Smallest gamma for which ``gaussian_sketch_epsilon(gamma, k, delta) <= epsilon``.

    Inverse of :func:`gaussian_sketch_epsilon` (bisection on log gamma, relative
    tolerance 1e-10; the returned gamma satisfies the target).
    """
    eps = check_epsilon(epsilon)
    delta = check_delta(delta)
    rows = _check_k(k) * _check_compositions(compositions)
    hi = max(2.0, 2.0 * rows * math.log(1.25 / delta) / eps**2)
    return smallest_feasible(lambda g: _gaussian_sketch_epsilon(g, rows, delta)[0], eps, 1.0 + 1e-12, hi)


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
    return smallest_feasible(lambda g: _fastmix_sketch_epsilon(g, rows, delta, bound)[0], eps, lo, hi)


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
