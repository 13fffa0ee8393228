"""Empirical privacy audit of a pair of centred Gaussian laws, and its exact counterpart.

A release of FastMix's Gaussian step with ``S_f`` and the noise fixed is ``k1`` i.i.d. rows
of ``N(0, P)`` under a dataset and of ``N(0, Q)`` under its neighbour (:mod:`fastmix.audit`).
This module attacks such a pair and computes what the attack estimates:

* :func:`likelihood_ratio_attack` draws releases under both laws and scores each with the
  exact log-likelihood ratio (:func:`gaussian_llr`, the most powerful test by the
  Neyman-Pearson lemma);
* :func:`epsilon_lower_bound` turns the error rates of the threshold tests into a lower
  bound on epsilon at a given delta (:func:`empirical_epsilon`, Kairouz et al. 2015), with
  one-sided Clopper-Pearson limits (:func:`clopper_pearson`) and a Bonferroni correction
  over the thresholds;
* :func:`privacy_profile`, :func:`profile_epsilon` and :func:`tradeoff_curve` give the exact
  ``delta(epsilon)``, ``epsilon(delta)`` and (FPR, FNR) curve of the pair, from the law of
  the privacy loss as a weighted sum of chi-squares (:func:`privacy_loss_weights`) inverted
  by Imhof's (1961) formula.

Every public name is also importable from :mod:`fastmix.audit`. References are listed there.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy import integrate as _int
from scipy import linalg as _sla
from scipy import optimize as _opt
from scipy import stats as _stats

from ._validation import (
    check_delta,
    check_matrix,
    check_positive,
    check_positive_int,
    check_probability,
    check_random_state,
)

__all__ = [
    "gaussian_llr",
    "PrivacyLossWeights",
    "privacy_loss_weights",
    "AttackResult",
    "likelihood_ratio_attack",
    "clopper_pearson",
    "empirical_epsilon",
    "EpsilonLowerBound",
    "epsilon_lower_bound",
    "privacy_profile",
    "profile_epsilon",
    "tradeoff_curve",
]


def _check_cov(cov, name: str) -> np.ndarray:
    c = check_matrix(cov, name, dtype=float)
    if c.shape[0] != c.shape[1]:
        raise ValueError(f"{name} must be square; got shape {c.shape}.")
    c = 0.5 * (c + c.T)
    if np.linalg.eigvalsh(c)[0] <= 0:
        raise ValueError(f"{name} must be positive definite.")
    return c


def gaussian_llr(releases, cov_p, cov_q) -> np.ndarray | float:
    """Exact log-likelihood ratio of releases made of i.i.d. centred Gaussian rows.

    For a release ``R`` (k1 x d) with rows i.i.d. ``N(0, P)`` under the first hypothesis and
    ``N(0, Q)`` under the second::

        L(R) = sum_rows log N(r; 0, P) - log N(r; 0, Q)
             = -1/2 sum_rows r^T (P^{-1} - Q^{-1}) r - k1/2 log det P + k1/2 log det Q

    The Neyman-Pearson lemma makes thresholding ``L`` the most powerful test between them.

    Parameters
    ----------
    releases : ndarray of shape (m, k1, d) or (k1, d)
    cov_p, cov_q : ndarray of shape (d, d), positive definite

    Returns
    -------
    ndarray of shape (m,) (or a float for a single release)
    """
    P = _check_cov(cov_p, "cov_p")
    Q = _check_cov(cov_q, "cov_q")
    R = np.asarray(releases, dtype=float)
    single = R.ndim == 2
    if single:
        R = R[None]
    if R.ndim != 3 or R.shape[2] != P.shape[0] or P.shape != Q.shape:
        raise ValueError(f"releases must have shape (m, k1, d) with d = {P.shape[0]}; got {np.shape(releases)}.")
    A = np.linalg.inv(P) - np.linalg.inv(Q)
    A = 0.5 * (A + A.T)
    k1 = R.shape[1]
    const = 0.5 * k1 * (np.linalg.slogdet(Q)[1] - np.linalg.slogdet(P)[1])
    quad = np.einsum("mkd,de,mke->m", R, A, R)
    out = -0.5 * quad + const
    return float(out[0]) if single else out


@dataclass(frozen=True)
class PrivacyLossWeights:
    """The privacy loss of one Gaussian row as a weighted sum of chi-squares (:func:`privacy_loss_weights`).

    Attributes
    ----------
    nu : ndarray
        The generalised eigenvalues ``P v = nu Q v``.
    weights_p, weights_q : ndarray
        The coefficients of the chi-squares under ``P`` and under ``Q`` (already halved).
    shift_per_row : float
        ``-1/2 sum_j log nu_j``; multiply by the number of rows.
    """

    nu: np.ndarray
    weights_p: np.ndarray
    weights_q: np.ndarray
    shift_per_row: float


def privacy_loss_weights(cov_p, cov_q) -> PrivacyLossWeights:
    """Privacy loss of one Gaussian row as a weighted sum of chi-squares.

    Let ``nu_j`` be the generalised eigenvalues ``P v = nu Q v``. For ``k1`` rows the
    privacy loss ``L = log p(R)/q(R)`` has the law::

        under P:  L = 1/2 sum_j [ (nu_j - 1)     W_j - k1 log nu_j ]
        under Q:  L = 1/2 sum_j [ (1 - 1/nu_j)   W_j - k1 log nu_j ]

    with ``W_j`` i.i.d. chi-square with ``k1`` degrees of freedom. (Write ``r = P^{1/2} g``
    resp. ``Q^{1/2} g`` and diagonalise.)

    Returns
    -------
    PrivacyLossWeights
        ``nu``, ``weights_p``, ``weights_q`` (the coefficients of ``W_j``, already halved)
        and ``shift_per_row`` (``-1/2 sum log nu_j``, multiply by k1).
    """
    P = _check_cov(cov_p, "cov_p")
    Q = _check_cov(cov_q, "cov_q")
    if P.shape != Q.shape:
        raise ValueError(f"cov_p and cov_q must have the same shape; got {P.shape} and {Q.shape}.")
    nu = _sla.eigh(P, Q, eigvals_only=True)
    return PrivacyLossWeights(
        nu=nu,
        weights_p=0.5 * (nu - 1.0),
        weights_q=0.5 * (1.0 - 1.0 / nu),
        shift_per_row=-0.5 * float(np.sum(np.log(nu))),
    )


@dataclass(frozen=True)
class AttackResult:
    """Scores of a likelihood-ratio attack.

    ``scores_p``: ``L(R)`` for releases drawn under the first dataset (law ``P``);
    ``scores_q``: for releases drawn under the neighbour (law ``Q``). Large scores point to P.
    """

    scores_p: np.ndarray
    scores_q: np.ndarray
    cov_p: np.ndarray
    cov_q: np.ndarray
    k1: int
    noise_scale: float
    method: str


def _releases(Z, noise_scale, k1, m, rng, method):
    k2, d = Z.shape
    if method == "explicit":
        G = rng.standard_normal((m, k1, k2))
        xi = rng.standard_normal((m, k1, d))
        return G @ Z + noise_scale * xi
    cov = Z.T @ Z + noise_scale**2 * np.eye(d)
    L = np.linalg.cholesky(0.5 * (cov + cov.T))
    return rng.standard_normal((m, k1, d)) @ L.T


def likelihood_ratio_attack(
    Z, Z_prime, noise_scale, k1, n_releases, *, random_state=None, method="explicit", chunk=4096
) -> AttackResult:
    """Neyman-Pearson attack on the Gaussian step of FastMix with ``S_f`` and the noise fixed.

    Draws ``n_releases`` releases ``S_G Z + eta xi`` (k1 x d, Algorithm 1 line 6) and as
    many ``S_G Z' + eta xi``, and scores each with :func:`gaussian_llr` for
    ``P = Z^T Z + eta^2 I`` against ``Q = Z'^T Z' + eta^2 I``.

    Parameters
    ----------
    Z, Z_prime : ndarray (k2, d)
        ``S_f X`` and ``S_f X'`` for the neighbouring designs.
    noise_scale : float > 0
        ``eta`` (fixed: the audit conditions on it).
    k1 : int
        Gaussian rows per release.
    n_releases : int
        Releases per hypothesis.
    random_state : None, int, SeedSequence or Generator
    method : {"explicit", "gram"}
        ``"explicit"`` samples ``S_G`` as the mechanism does; ``"gram"`` samples rows from the
        (identical) Gaussian law directly.
    chunk : int
        Releases generated per batch (memory control).
    """
    Z = check_matrix(Z, "Z", dtype=float)
    Zp = check_matrix(Z_prime, "Z_prime", dtype=float)
    if Z.shape != Zp.shape:
        raise ValueError(f"Z and Z_prime must have the same shape; got {Z.shape} and {Zp.shape}.")
    eta = check_positive(noise_scale, "noise_scale")
    k1 = check_positive_int(k1, "k1")
    m = check_positive_int(n_releases, "n_releases")
    chunk = check_positive_int(chunk, "chunk")
    if method not in ("explicit", "gram"):
        raise ValueError(f"method must be 'explicit' or 'gram'; got {method!r}.")
    rng = check_random_state(random_state)
    d = Z.shape[1]
    P = Z.T @ Z + eta**2 * np.eye(d)
    Q = Zp.T @ Zp + eta**2 * np.eye(d)
    out = []
    for Zb in (Z, Zp):
        scores = np.empty(m)
        for start in range(0, m, chunk):
            size = min(chunk, m - start)
            scores[start : start + size] = gaussian_llr(_releases(Zb, eta, k1, size, rng, method), P, Q)
        out.append(scores)
    return AttackResult(scores_p=out[0], scores_q=out[1], cov_p=P, cov_q=Q, k1=k1, noise_scale=eta, method=method)


def clopper_pearson(k, n, confidence=0.95, *, side="two-sided"):
    """Clopper-Pearson (exact binomial) confidence limits for a proportion ``k / n``.

    ::

        lower = Beta quantile(a,     k, n - k + 1)    (0 if k = 0)
        upper = Beta quantile(1 - a, k + 1, n - k)    (1 if k = n)

    with ``a = (1 - confidence)/2`` for ``side="two-sided"`` and ``a = 1 - confidence`` for a
    one-sided limit (``"upper"`` or ``"lower"``; the other end is then 0 resp. 1).
    The coverage is at least ``confidence`` for every true proportion (Clopper and Pearson 1934).
    Computed by :func:`scipy.stats.binomtest` (``proportion_ci(method="exact")``), one pair at a
    time for arrays.

    Returns
    -------
    (lower, upper) : floats or ndarrays
    """
    k_arr = np.asarray(k)
    n_arr = np.asarray(n)
    if not (np.issubdtype(k_arr.dtype, np.integer) and np.issubdtype(n_arr.dtype, np.integer)):
        raise TypeError("k and n must be integers (counts).")
    if np.any(n_arr < 1) or np.any(k_arr < 0) or np.any(k_arr > n_arr):
        raise ValueError(f"Counts must satisfy 0 <= k <= n and n >= 1; got k={k!r}, n={n!r}.")
    conf = check_probability(confidence, "confidence")
    if side not in ("two-sided", "upper", "lower"):
        raise ValueError(f"side must be 'two-sided', 'upper' or 'lower'; got {side!r}.")
    alternative = {"two-sided": "two-sided", "upper": "less", "lower": "greater"}[side]
    k_b, n_b = np.broadcast_arrays(k_arr, n_arr)
    lo, hi = np.empty(k_b.shape), np.empty(k_b.shape)
    for i in np.ndindex(k_b.shape):
        ci = _stats.binomtest(int(k_b[i]), int(n_b[i]), alternative=alternative).proportion_ci(conf, method="exact")
        lo[i], hi[i] = ci.low, ci.high
    if k_arr.ndim == 0 and n_arr.ndim == 0:
        return float(lo), float(hi)
    return lo, hi


def empirical_epsilon(fpr, fnr, delta):
    """Smallest epsilon compatible with a test's error rates under (epsilon, delta)-DP.

    Kairouz et al. (2015): if a mechanism is (eps, delta)-DP then every test between the
    neighbours has ``FPR + e^eps FNR >= 1 - delta`` and ``FNR + e^eps FPR >= 1 - delta``, so::

        eps >= max{ log((1 - delta - FPR) / FNR),  log((1 - delta - FNR) / FPR),  0 }

    (Jagielski et al. 2020). A zero denominator with a positive numerator gives ``inf``.

    Parameters
    ----------
    fpr, fnr : float or ndarray in [0, 1]
    delta : float in [0, 1)
    """
    f = np.asarray(fpr, dtype=float)
    g = np.asarray(fnr, dtype=float)
    if np.any((f < 0) | (f > 1) | np.isnan(f)) or np.any((g < 0) | (g > 1) | np.isnan(g)):
        raise ValueError("fpr and fnr must be probabilities in [0, 1].")
    d = float(delta)
    if not 0.0 <= d < 1.0:
        raise ValueError(f"delta must lie in [0, 1); got {delta!r}.")

    def one(num, den):
        with np.errstate(divide="ignore", invalid="ignore"):
            v = np.log(np.where(num > 0, num, 1.0)) - np.log(np.where(den > 0, den, 1.0))
        v = np.where(den > 0, v, np.inf)
        return np.where(num > 0, v, -np.inf)

    out = np.maximum(np.maximum(one(1.0 - d - f, g), one(1.0 - d - g, f)), 0.0)
    return float(out) if out.ndim == 0 else out


@dataclass(frozen=True)
class EpsilonLowerBound:
    """Result of :func:`epsilon_lower_bound`.

    Attributes
    ----------
    epsilon_lower : float
        Lower confidence bound on the true epsilon (Clopper-Pearson, Bonferroni-corrected).
    epsilon_point : float
        Same maximisation with the raw rates (an estimate, not a bound).
    threshold : float
        Threshold attaining ``epsilon_lower``.
    thresholds, fpr, fnr, fpr_upper, fnr_upper : ndarray
        The empirical trade-off curve and its upper confidence limits.
    n_p, n_q : int
        Scores counted per hypothesis (the second halves of the samples).
    confidence, delta : float
    """

    epsilon_lower: float
    epsilon_point: float
    threshold: float
    thresholds: np.ndarray = field(repr=False)
    fpr: np.ndarray = field(repr=False)
    fnr: np.ndarray = field(repr=False)
    fpr_upper: np.ndarray = field(repr=False)
    fnr_upper: np.ndarray = field(repr=False)
    n_p: int = 0
    n_q: int = 0
    confidence: float = 0.95
    delta: float = 0.0


def epsilon_lower_bound(scores_p, scores_q, delta, *, confidence=0.95, n_thresholds=200) -> EpsilonLowerBound:
    """Empirical epsilon lower bound from attack scores (Jagielski et al. 2020).

    The test "decide P if score > t" has ``FNR(t) = P_P(score <= t)`` and
    ``FPR(t) = P_Q(score > t)``. The ``n_thresholds`` thresholds are quantiles of the pooled
    *first halves* of the two samples; the rates are counted on the *second halves*, so the
    thresholds are independent of the counts. At each threshold both rates get a one-sided
    Clopper-Pearson upper limit at level
    ``1 - (1 - confidence) / (2 n_thresholds)`` (Bonferroni over thresholds and the two
    rates), so with probability at least ``confidence`` every limit holds simultaneously and::

        epsilon_lower = max_t  empirical_epsilon(FPR_upper(t), FNR_upper(t), delta)

    is at most the true epsilon(delta) of the pair. ``epsilon_point`` uses the raw rates of the
    second halves (an estimate, not a bound). The scores are used in the order given, so pass
    them unsorted (as sampled).
    """
    sp = np.asarray(scores_p, dtype=float).ravel()
    sq = np.asarray(scores_q, dtype=float).ravel()
    if sp.size < 1 or sq.size < 1 or not (np.all(np.isfinite(sp)) and np.all(np.isfinite(sq))):
        raise ValueError("scores_p and scores_q must be non-empty arrays of finite numbers.")
    delta = float(delta)
    if not 0.0 <= delta < 1.0:
        raise ValueError(f"delta must lie in [0, 1); got {delta!r}.")
    conf = check_probability(confidence, "confidence")
    nt = check_positive_int(n_thresholds, "n_thresholds")
    if sp.size < 2 or sq.size < 2:
        raise ValueError("epsilon_lower_bound needs at least two scores per hypothesis (one half picks thresholds).")
    # The thresholds are chosen on the first half of each sample and the error rates are counted
    # on the second half, so the thresholds do not depend on the counted data and the
    # Bonferroni-corrected Clopper-Pearson limits are valid simultaneously.
    hp, hq = sp.size // 2, sq.size // 2
    pooled = np.concatenate([sp[:hp], sq[:hq]])
    t = np.unique(np.quantile(pooled, np.linspace(0.0, 1.0, nt + 2)[1:-1]))
    sp, sq = sp[hp:], sq[hq:]
    sp_sorted, sq_sorted = np.sort(sp), np.sort(sq)
    fn_count = np.searchsorted(sp_sorted, t, side="right")  # P-scores <= t
    fp_count = sq.size - np.searchsorted(sq_sorted, t, side="right")  # Q-scores > t
    fnr, fpr = fn_count / sp.size, fp_count / sq.size
    level = 1.0 - (1.0 - conf) / (2.0 * t.size)
    _, fnr_up = clopper_pearson(
        fn_count.astype(np.int64), np.full(t.size, sp.size, dtype=np.int64), level, side="upper"
    )
    _, fpr_up = clopper_pearson(
        fp_count.astype(np.int64), np.full(t.size, sq.size, dtype=np.int64), level, side="upper"
    )
    eps_lo = empirical_epsilon(fpr_up, fnr_up, delta)
    eps_pt = empirical_epsilon(fpr, fnr, delta)
    j = int(np.argmax(eps_lo))
    return EpsilonLowerBound(
        epsilon_lower=float(eps_lo[j]),
        epsilon_point=float(np.max(eps_pt)),
        threshold=float(t[j]),
        thresholds=t,
        fpr=fpr,
        fnr=fnr,
        fpr_upper=np.asarray(fpr_up),
        fnr_upper=np.asarray(fnr_up),
        n_p=int(sp.size),
        n_q=int(sq.size),
        confidence=conf,
        delta=delta,
    )


# --------------------------------------------------------------------------- exact privacy profile


def _imhof_sf(x: float, weights: np.ndarray, dof: int) -> float:
    """P(sum_j w_j W_j > x) with W_j i.i.d. chi-square(dof), by Imhof's (1961) formula::

    1/2 + 1/pi int_0^inf sin(theta(u)) / (u rho(u)) du,
    theta(u) = 1/2 sum_j dof arctan(w_j u) - x u / 2,
    rho(u)   = prod_j (1 + w_j^2 u^2)^(dof/4).
    """
    w = weights[np.abs(weights) > 0]
    if w.size == 0:
        return 1.0 if x < 0 else 0.0
    w = w[np.abs(w) > 1e-13 * np.max(np.abs(w))]
    h = float(dof)

    def log_u_rho(u):
        return np.log(u) + 0.25 * h * np.sum(np.log1p((np.multiply.outer(u, w)) ** 2), axis=-1)

    # |integrand| <= 1/(u rho(u)): stop where u rho(u) exceeds 1e12 (tail below ~1e-11).
    upper = 1.0 / float(np.max(np.abs(w)))
    while log_u_rho(np.array(upper)) < 12.0 * math.log(10.0):
        upper *= 2.0
    # Simpson's rule on a uniform grid with at least 40 points per oscillation of sin(theta).
    rate = max(abs(x), h * float(np.sum(np.abs(w))), 1e-12) / 2.0
    n_needed = 40.0 * upper * rate / (2.0 * math.pi)
    if n_needed > 4_000_000:
        raise ValueError(
            "The privacy-loss law has too few degrees of freedom (rows x non-zero weights) for the numerical "
            f"inversion to converge on a grid of 4e6 points (needs about {n_needed:.3g}); use more rows (k1 >= 3) "
            "or estimate the tails by Monte Carlo."
        )
    n_grid = int(max(n_needed, 4000)) | 1
    u = np.linspace(0.0, upper, n_grid)
    uu = u[1:]
    wu = np.multiply.outer(uu, w)
    theta = 0.5 * h * np.sum(np.arctan(wu), axis=1) - 0.5 * x * uu
    log_rho = 0.25 * h * np.sum(np.log1p(wu * wu), axis=1)
    f = np.empty_like(u)
    f[0] = 0.5 * (h * float(np.sum(w)) - x)
    f[1:] = np.sin(theta) / uu * np.exp(-log_rho)
    total = float(_int.simpson(f, x=u))
    return float(min(max(0.5 + total / math.pi, 0.0), 1.0))


def _loss_sf(x, weights, shift, dof):
    """P(L > x) for L = sum_j w_j W_j + shift."""
    return _imhof_sf(x - shift, weights, dof)


def privacy_profile(cov_p, cov_q, epsilons, *, rows=1) -> np.ndarray | float:
    """Exact privacy profile of ``rows`` i.i.d. rows: P = N(0, cov_p) against Q = N(0, cov_q).

    ::

        delta(eps) = sup_S P(S) - e^eps Q(S) = P(L > eps) - e^eps Q(L > eps),   L = log p/q,

    with the laws of ``L`` from :func:`privacy_loss_weights`, each tail computed by Imhof's
    numerical inversion (accurate to about 1e-9 absolute; needs rows x non-zero weights >= 5).
    This is the smallest delta at which the pair satisfies ``P(S) <= e^eps Q(S) + delta`` (one direction; swap the
    covariances for the other).
    """
    w = privacy_loss_weights(cov_p, cov_q)
    r = check_positive_int(rows, "rows")
    e = np.atleast_1d(np.asarray(epsilons, dtype=float))
    if np.any(~np.isfinite(e)):
        raise ValueError("epsilons must be finite.")
    shift = r * w.shift_per_row
    out = np.array(
        [max(_loss_sf(x, w.weights_p, shift, r) - math.exp(x) * _loss_sf(x, w.weights_q, shift, r), 0.0) for x in e]
    )
    return out if np.ndim(epsilons) else float(out[0])


def profile_epsilon(cov_p, cov_q, delta, *, rows=1, both_directions=True) -> float:
    """Exact epsilon(delta) of the Gaussian pair: the root of ``privacy_profile = delta``.

    With ``both_directions`` the larger of the two directions (P vs Q and Q vs P) is
    returned, which is the epsilon of the pair under the symmetric DP definition.
    """
    delta = check_delta(delta)
    r = check_positive_int(rows, "rows")
    pairs = [(cov_p, cov_q), (cov_q, cov_p)] if both_directions else [(cov_p, cov_q)]
    best = 0.0
    for P, Q in pairs:

        def f(e, P=P, Q=Q):
            return privacy_profile(P, Q, e, rows=r) - delta

        if f(0.0) <= 0:
            continue
        hi = 1.0
        while f(hi) > 0:
            hi *= 2.0
            if hi > 1e4:
                return math.inf
        best = max(best, _opt.brentq(f, 0.0, hi, xtol=1e-10))
    return best


def tradeoff_curve(cov_p, cov_q, thresholds, *, rows=1) -> tuple[np.ndarray, np.ndarray]:
    """Exact (FPR, FNR) of the likelihood-ratio tests "decide P if L > t" (Imhof).

    ``FPR(t) = Q(L > t)``, ``FNR(t) = 1 - P(L > t)``: the optimal trade-off curve the attack
    estimates.
    """
    w = privacy_loss_weights(cov_p, cov_q)
    r = check_positive_int(rows, "rows")
    shift = r * w.shift_per_row
    t = np.atleast_1d(np.asarray(thresholds, dtype=float))
    fpr = np.array([_loss_sf(x, w.weights_q, shift, r) for x in t])
    fnr = np.array([1.0 - _loss_sf(x, w.weights_p, shift, r) for x in t])
    return fpr, fnr
