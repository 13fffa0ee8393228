"""Privacy audit of the Gaussian-sketch step of FastMix (FastMix paper, arXiv:2605.30600).

Two complementary checks of Lemma 1 live here.

* **Exact audit.** For a small design ``X``, one fixed sketch ``S_f`` and a fixed noise
  level ``sigma``, a released row ``g^T S_f X + sigma xi^T`` is ``N(0, Z^T Z + sigma^2 I)``
  with ``Z = S_f X`` (eq. 20-21), so the alpha-Renyi divergence between the releases on
  zero-out neighbours ``X`` and ``X_{-i}`` (row ``i`` replaced by zero) is available in
  closed form (eq. 16/23). :func:`neighbour_divergence` evaluates it in both directions and
  divides it by the three bounds the package accounts with: the exact ``phi(alpha; gamma,
  C^2)`` of eq. (50)-(52), ``phi_bar`` of eq. (57) and ``25 alpha / (32 gamma^2)`` of
  eq. (8), where ``gamma = (lambda_min(Z^T Z) + sigma^2) / C^2_{S_f X}`` (eq. 7) is computed
  from the *first* argument of the divergence, as Lemma 1 is stated.
  :func:`worst_case_neighbour_divergence` searches the rows and :func:`adversarial_designs`
  supplies hand-built hard inputs.

* **Empirical audit.** A likelihood-ratio (Neyman-Pearson) attack: draw many releases
  under ``X`` and under ``X'``, score each with the exact log-likelihood ratio
  (:func:`gaussian_llr`), and turn the false-positive / false-negative rates of the
  threshold tests into a lower bound on epsilon at a given delta
  (:func:`empirical_epsilon`, :func:`epsilon_lower_bound`). The bound uses one-sided
  Clopper-Pearson upper limits on both error rates, with a Bonferroni correction over the
  thresholds, so with the stated confidence it is a valid lower bound on the true epsilon.
  :func:`privacy_profile` gives the exact ``delta(epsilon)`` of the same Gaussian pair
  (Imhof's inversion of the characteristic function of a quadratic form), the quantity the
  attack estimates from below.

The exact audit and the accounted epsilon live in this module; the empirical audit and the
exact privacy profile, which concern any pair of centred Gaussian laws, live in
``fastmix.empirical_audit``, whose public names are importable from here too.

What is conditioned on: ``S_f`` and the noise level are fixed (in FastMix they are
outputs of the SRHT draw and of the Laplace-noised estimates ``m_tilde``,
``lambda_tilde``; those Laplace releases and their failure event are accounted
separately in Theorem 1 and are not audited here).

References
----------
* M. Lev et al., 2026, "The Fast Mixing Mechanism for Differential Privacy",
  arXiv:2605.30600, Lemma 1 and Appendix C.
* P. Kairouz, S. Oh, P. Viswanath, 2015, "The Composition Theorem for Differential
  Privacy", ICML (hypothesis-testing view: a mechanism is (eps, delta)-DP iff every
  test satisfies ``FPR + e^eps FNR >= 1 - delta`` and ``FNR + e^eps FPR >= 1 - delta``).
* M. Jagielski, J. Ullman, A. Oprea, 2020, "Auditing Differentially Private Machine
  Learning: How Private is Private SGD?", NeurIPS (empirical epsilon from FPR / FNR with
  Clopper-Pearson intervals).
* C. J. Clopper, E. S. Pearson, 1934, "The use of confidence or fiducial limits
  illustrated in the case of the binomial", Biometrika 26(4).
* J. P. Imhof, 1961, "Computing the distribution of quadratic forms in normal
  variables", Biometrika 48(3/4).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize as _opt

from . import accounting as acc
from ._validation import check_delta, check_matrix, check_positive, check_positive_int, check_random_state, row_norms
from .empirical_audit import (
    AttackResult,
    EpsilonLowerBound,
    PrivacyLossWeights,
    clopper_pearson,
    empirical_epsilon,
    epsilon_lower_bound,
    gaussian_llr,
    likelihood_ratio_attack,
    privacy_loss_weights,
    privacy_profile,
    profile_epsilon,
    tradeoff_curve,
)
from .srht import sketch_quantities_dense

__all__ = [
    "SketchConstants",
    "sketch_constants",
    "noise_for_gamma",
    "accounted_bounds",
    "NeighbourDivergence",
    "neighbour_divergence",
    "worst_case_neighbour_divergence",
    "adversarial_designs",
    "optimise_row",
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
    "accounted_epsilon",
]

_BOUND_NAMES = ("exact", "bar", "simple")


# =========================================================================== small helpers


def _check_sketch(X: np.ndarray, S) -> np.ndarray:
    S = check_matrix(S, "S", dtype=float)
    if S.shape[1] != X.shape[0]:
        raise ValueError(f"S must have n = {X.shape[0]} columns to multiply X; got shape {S.shape}.")
    col = np.sqrt(np.einsum("ij,ij->j", S, S))
    if np.any(col > 1.0 + 1e-9):
        raise ValueError(
            f"Every column of S_f must have norm at most 1 (Lemma 1); the largest has norm {col.max():.6g}. "
            "Use an SRHT (SRHT(...).to_dense()) or rescale S."
        )
    return S


def _check_rows_bounded(X: np.ndarray) -> None:
    norms = row_norms(X, "X")
    if np.any(norms > 1.0 + 1e-9):
        raise ValueError(
            f"Every row of X must have norm at most 1 (Lemma 1); the largest has norm {norms.max():.6g}. "
            "Divide X by its largest row norm."
        )


def _check_alphas(alphas) -> np.ndarray:
    a = np.atleast_1d(np.asarray(alphas, dtype=float))
    if a.ndim != 1 or a.size == 0 or np.any(~np.isfinite(a)) or np.any(a <= 1.0):
        raise ValueError(f"alphas must be a non-empty 1-D array of finite Renyi orders > 1; got {alphas!r}.")
    return a


@dataclass(frozen=True)
class SketchConstants:
    """The data-dependent constants of Lemma 1 for one design and one dense sketch.

    Attributes
    ----------
    Z : ndarray of shape (k, d)
        The sketched design ``S X``.
    lambda_min : float
        ``lambda_min(Z^T Z)``.
    m_hat : float
        ``max_i || X^T (S^T S - I) e_i ||``.
    c2 : float
        ``C^2 = 1 + 2 m_hat`` (eq. 7).
    """

    Z: np.ndarray
    lambda_min: float
    m_hat: float
    c2: float


def sketch_constants(X, S) -> SketchConstants:
    """The data-dependent constants of Lemma 1 for a dense sketch ``S`` (k x n).

    ::

        Z = S X,   lambda_min = lambda_min(Z^T Z),
        m_hat = max_i || Z^T S e_i - x_i || = max_i || X^T (S^T S - I) e_i ||,
        C^2 = 1 + 2 m_hat                                          (Lemma 1, eq. 7)

    Parameters
    ----------
    X : array-like of shape (n, d), rows of norm <= 1
    S : array-like of shape (k, n), columns of norm <= 1

    Returns
    -------
    SketchConstants
        ``Z``, ``lambda_min``, ``m_hat`` and ``c2``.

    The quantities are those of :func:`fastmix.srht.sketch_quantities_dense`; this function
    adds the audit's check of ``S`` (columns of norm at most 1) and ``C^2``.
    """
    X = check_matrix(X, "X", dtype=float)
    S = _check_sketch(X, S)
    q = sketch_quantities_dense(X, S)
    return SketchConstants(Z=q.Z, lambda_min=q.lambda_min, m_hat=q.m_hat, c2=1.0 + 2.0 * q.m_hat)


def noise_for_gamma(X, S, gamma) -> float:
    """Noise std ``sigma`` that makes eq. (7) hold with equality for the design ``X``::

        sigma^2 = gamma * C^2_{S X} - lambda_min((S X)^T S X)

    Raises if ``lambda_min`` alone already exceeds ``gamma C^2`` (no noise would be needed;
    choose a larger gamma).
    """
    g = check_positive(gamma, "gamma")
    c = sketch_constants(X, S)
    s2 = g * c.c2 - c.lambda_min
    if not s2 > 0:
        raise ValueError(
            f"lambda_min = {c.lambda_min:.6g} already exceeds gamma * C^2 = {g * c.c2:.6g}: "
            "no noise is needed for this gamma. Choose a larger gamma."
        )
    return math.sqrt(s2)


def accounted_bounds(alphas, gamma, c2) -> dict:
    """The three per-row Renyi bounds of Lemma 1 on an alpha grid (``inf`` outside each domain).

    * ``"exact"``: ``phi(alpha; gamma, C^2)``, eq. (50)-(52), for ``gamma > gamma_bar(C^2)``
      and ``alpha < gamma / gamma_bar(C^2)``;
    * ``"bar"``: ``phi_bar(alpha; gamma)``, eq. (57), for ``gamma > 5/4``, ``alpha < 4 gamma/5``;
    * ``"simple"``: ``25 alpha / (32 gamma^2)``, eq. (8), for ``gamma > 25/8``, ``alpha < 8 gamma/25``.

    Each is :func:`fastmix.accounting.renyi_bound` with that ``bound``.
    """
    a = _check_alphas(alphas)
    g = check_positive(gamma, "gamma")
    c = check_positive(c2, "c2", allow_inf=True)
    if c < 1.0:
        raise ValueError(f"c2 = C^2 is at least 1 by definition; got {c2!r}.")
    return {name: np.asarray(acc.renyi_bound(a, g, name, c2=c), float) for name in _BOUND_NAMES}


# =========================================================================== exact audit


@dataclass(frozen=True)
class NeighbourDivergence:
    """Exact divergence of one neighbour pair against the accounted bounds.

    The pair is ``(first, second)`` with ``D_alpha(M(first) || M(second))``. Direction
    ``"remove"``: first = X, second = X with row ``index`` zeroed. Direction ``"add"``:
    first = X with row ``index`` zeroed, second = X. ``gamma`` and ``c2`` are those of the
    first argument (the dataset Lemma 1 is applied to).

    Attributes
    ----------
    alphas : ndarray
    divergence : ndarray
        Exact per-row divergence (multiply by k1 for k1 rows; the bounds scale the same way).
    bounds : dict of ndarray
        ``"exact"``, ``"bar"``, ``"simple"`` per-row bounds (``inf`` outside their domain).
    ratios : dict of ndarray
        divergence / bound (0 where the bound is infinite).
    worst_ratio : dict of float
        Largest ratio over the alpha grid, per bound (``nan`` if the bound is nowhere finite).
    gamma, c2, lambda_min, sigma : float
    index : int
    direction : str
    """

    alphas: np.ndarray
    divergence: np.ndarray
    bounds: dict
    ratios: dict
    worst_ratio: dict
    gamma: float
    c2: float
    lambda_min: float
    sigma: float
    index: int
    direction: str


def neighbour_divergence(X, S, index, sigma, alphas, *, direction="remove") -> NeighbourDivergence:
    """Exact Renyi divergence of one Gaussian row for the zero-out pair (X, X_{-index}).

    ::

        D_alpha( N(0, Z_1^T Z_1 + sigma^2 I) || N(0, Z_2^T Z_2 + sigma^2 I) )      (eq. 16, 23)

    with ``Z_1 = S X_first``, ``Z_2 = S X_second`` (see :class:`NeighbourDivergence` for the
    two directions), computed by :func:`fastmix.accounting.gaussian_mix_divergence`, and
    compared with the bounds of :func:`accounted_bounds` at
    ``gamma = (lambda_min(Z_1^T Z_1) + sigma^2) / C^2_{S X_first}`` (eq. 7).

    Parameters
    ----------
    X : array-like (n, d), rows of norm <= 1
    S : array-like (k, n), columns of norm <= 1 (one fixed sketch draw)
    index : int
        Row that is removed (``"remove"``) or added (``"add"``).
    sigma : float > 0
        Fixed noise std.
    alphas : array-like of orders > 1
    direction : {"remove", "add"}
    """
    X = check_matrix(X, "X", dtype=float)
    _check_rows_bounded(X)
    S = _check_sketch(X, S)
    n = X.shape[0]
    if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or not 0 <= index < n:
        raise ValueError(f"index must be an integer row index in [0, {n}); got {index!r}.")
    if direction not in ("remove", "add"):
        raise ValueError(f"direction must be 'remove' or 'add'; got {direction!r}.")
    s = check_positive(sigma, "sigma")
    a = _check_alphas(alphas)
    Xm = X.copy()
    Xm[index] = 0.0
    first, second = (X, Xm) if direction == "remove" else (Xm, X)
    c = sketch_constants(first, S)
    gamma = (c.lambda_min + s * s) / c.c2
    div = np.asarray(acc.gaussian_mix_divergence(a, c.Z, S @ second, s), dtype=float)
    bounds = accounted_bounds(a, gamma, c.c2)
    ratios, worst = {}, {}
    for name, b in bounds.items():
        finite = np.isfinite(b) & (b > 0)
        r = np.where(finite, div / np.where(finite, b, 1.0), 0.0)
        ratios[name] = r
        worst[name] = float(r[finite].max()) if finite.any() else math.nan
    return NeighbourDivergence(
        alphas=a,
        divergence=div,
        bounds=bounds,
        ratios=ratios,
        worst_ratio=worst,
        gamma=float(gamma),
        c2=c.c2,
        lambda_min=c.lambda_min,
        sigma=s,
        index=int(index),
        direction=direction,
    )


def worst_case_neighbour_divergence(
    X, S, sigma, alphas, *, bound="exact", directions=("remove", "add"), indices=None
) -> tuple[NeighbourDivergence, list]:
    """Search the rows (and both directions) for the largest ratio divergence / bound.

    ::

        max_{i, direction}  max_alpha  D_alpha(pair_i) / r(alpha; gamma_first, C^2_first)

    Rows that are already zero are skipped (removing them changes nothing).

    Returns
    -------
    worst : NeighbourDivergence
        The pair with the largest ``worst_ratio[bound]``.
    all_pairs : list of NeighbourDivergence
    """
    X = check_matrix(X, "X", dtype=float)
    if bound not in _BOUND_NAMES:
        raise ValueError(f"bound must be one of {_BOUND_NAMES}; got {bound!r}.")
    if indices is None:
        indices = np.flatnonzero(np.any(X != 0.0, axis=1))
    if len(indices) == 0:
        raise ValueError("X has no non-zero row: every neighbour gives the same release.")
    pairs = [neighbour_divergence(X, S, int(i), sigma, alphas, direction=dr) for dr in directions for i in indices]
    key = [p.worst_ratio[bound] if np.isfinite(p.worst_ratio[bound]) else -np.inf for p in pairs]
    return pairs[int(np.argmax(key))], pairs


def adversarial_designs(n, d, *, random_state=None) -> dict:
    """Hand-built hard designs for the exact audit (all rows of norm <= 1).

    * ``"sphere"``: rows uniform on the unit sphere (the benign baseline);
    * ``"min_eigvec"``: sphere rows, then one row replaced by the unit eigenvector of the
      smallest eigenvalue of ``X^T X`` (removing it hits the weakest direction);
    * ``"single_large"``: rows of norm 0.05 and one row of norm 1;
    * ``"near_degenerate"``: rows of norm 1 almost inside a (d-1)-dimensional subspace
      (last coordinate 1e-3), plus one unit row along the missing direction;
    * ``"duplicated"``: half the rows equal to one unit vector, the rest tiny, so the
      sketch ``S X`` concentrates on a few directions;
    * ``"two_clusters"``: rows +-v with small isotropic jitter (rank-one dominated Gram).
    """
    n = check_positive_int(n, "n", minimum=2)
    d = check_positive_int(d, "d", minimum=2)
    rng = check_random_state(random_state)

    def sphere(m):
        G = rng.standard_normal((m, d))
        return G / np.linalg.norm(G, axis=1, keepdims=True)

    out = {}
    base = sphere(n)
    out["sphere"] = base.copy()
    X = base.copy()
    _, V = np.linalg.eigh(X.T @ X)
    X[0] = V[:, 0]
    out["min_eigvec"] = X
    X = 0.05 * sphere(n)
    X[0] = sphere(1)[0]
    out["single_large"] = X
    X = sphere(n)
    X[:, -1] *= 1e-3
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    X[0] = np.eye(d)[-1]
    out["near_degenerate"] = X
    v = sphere(1)[0]
    X = 0.05 * sphere(n)
    X[: n // 2] = v
    out["duplicated"] = X
    X = np.outer(rng.choice([-1.0, 1.0], size=n), v) + 0.05 * rng.standard_normal((n, d))
    X /= np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1.0)
    out["two_clusters"] = X
    return out


def optimise_row(
    X, S, index, gamma, alphas, *, bound="exact", direction="remove", n_starts=4, random_state=None
) -> tuple[np.ndarray, NeighbourDivergence]:
    """Choose the audited row ``x_index`` (with ``||x|| <= 1``) to maximise the worst ratio.

    The noise is re-set for every candidate so that eq. (7) holds with equality for the
    full design (:func:`noise_for_gamma`), i.e. the comparison is always made at the target
    ``gamma``. The row is parametrised as ``x = tanh(|v|) v / |v|`` and the objective
    ``-max_alpha D_alpha / r(alpha)`` is minimised by Nelder-Mead from ``n_starts`` random
    starts (and the current row).

    Returns
    -------
    X_best : ndarray, the design with the optimised row
    result : NeighbourDivergence of the best pair
    """
    X = check_matrix(X, "X", dtype=float).copy()
    d = X.shape[1]
    rng = check_random_state(random_state)
    n_starts = check_positive_int(n_starts, "n_starts", minimum=0)
    a = _check_alphas(alphas)
    if bound not in _BOUND_NAMES:
        raise ValueError(f"bound must be one of {_BOUND_NAMES}; got {bound!r}.")

    def design(v):
        nv = np.linalg.norm(v)
        Y = X.copy()
        Y[index] = 0.0 if nv == 0 else math.tanh(nv) * v / nv
        return Y

    def score(v):
        Y = design(v)
        if not np.any(Y[index]):
            return 0.0
        try:
            s = noise_for_gamma(Y, S, gamma)
            r = neighbour_divergence(Y, S, index, s, a, direction=direction).worst_ratio[bound]
        except ValueError:
            return 0.0
        return -r if np.isfinite(r) else 0.0

    x0 = X[index]
    nx = float(np.linalg.norm(x0))
    starts = [np.arctanh(min(nx, 0.999)) * x0 / nx] if nx > 0 else []
    starts += [rng.standard_normal(d) * 2.0 for _ in range(n_starts)]
    best_v, best_f = None, np.inf
    for v0 in starts:
        res = _opt.minimize(score, v0, method="Nelder-Mead", options={"xatol": 1e-4, "fatol": 1e-6, "maxiter": 300 * d})
        if res.fun < best_f:
            best_v, best_f = res.x, res.fun
    if best_v is None:
        raise ValueError("optimise_row needs at least one start: X[index] is zero and n_starts = 0.")
    Y = design(best_v)
    s = noise_for_gamma(Y, S, gamma)
    return Y, neighbour_divergence(Y, S, index, s, a, direction=direction)


# =========================================================================== accounted epsilon


def accounted_epsilon(gamma, k1, delta, *, bound="bar", c2=None) -> float:
    """Accounted epsilon of one k1-row sketch at (gamma, delta) (Lemma 1 + Proposition 1).

    ::

        eps = min_{1 < alpha < alpha_max} k1 r(alpha; gamma) + log(1 - 1/alpha) - log(alpha delta)/(alpha - 1)

    with ``r`` the bound named by ``bound`` (``"exact"`` needs ``c2``), via
    :func:`fastmix.accounting.epsilon_from_rdp`.
    """
    g = check_positive(gamma, "gamma")
    k1 = check_positive_int(k1, "k1")
    delta = check_delta(delta)
    if bound in ("bar", "simple"):
        return float(acc.fastmix_sketch_epsilon(g, k1, delta, bound=bound)[0])
    if bound == "exact":
        if c2 is None:
            raise ValueError("bound='exact' needs c2 = C^2_{S_f X}.")
        amax = acc.fastmix_alpha_max(g, "exact", c2=c2)
        return float(acc.epsilon_from_rdp(lambda a: k1 * acc.renyi_bound(a, g, "exact", c2=c2), delta, amax)[0])
    raise ValueError(f"bound must be one of {_BOUND_NAMES}; got {bound!r}.")
