"""Private release of the sufficient statistics ``(C, u)`` and the floored ridge solve.

Steps 3-4 of the kernel paper's Algorithms 1 and 3: the Gaussian-mechanism release of the
covariance and the response vector of the features, and the post-processing that solves
``(C~ + lam I) beta = u~`` with the spectrum of ``C~ + lam I`` floored (the kernel paper's
Theorem 1 assumes it positive definite).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np

from .._compat import UnpacksAsTuple
from .._validation import check_random_state
from ..accounting import analytic_gaussian_sigma


def _renamed_rng(random_state, rng, where):
    """``random_state``, or the deprecated ``rng`` keyword given instead (with a warning)."""
    if rng is None:
        return random_state
    if random_state is not None:
        raise TypeError(f"{where}: give random_state only (rng is its deprecated name); got both.")
    warnings.warn(
        f"{where}: the keyword rng is deprecated and will be removed in the next minor version; pass "
        "random_state instead.",
        FutureWarning,
        stacklevel=3,
    )
    return rng


@dataclass
class SufficientStatisticsRelease:
    """What :func:`release_sufficient_statistics` released and how it was calibrated.

    Attributes
    ----------
    covariance : ndarray of shape (M, M)
        The symmetrised noisy ``(1/n) sum z_i z_i^T``.
    vector : ndarray of shape (M,)
        The noisy ``(1/n) sum [y_i]_T z_i``.
    sigma_covariance, sigma_vector : float
        Noise standard deviations.
    sensitivity_covariance, sensitivity_vector : float
        Replace-one L2 (Frobenius) sensitivities used.
    """

    covariance: np.ndarray
    vector: np.ndarray
    sigma_covariance: float
    sigma_vector: float
    sensitivity_covariance: float
    sensitivity_vector: float
    details: dict = field(default_factory=dict)


def release_sufficient_statistics(
    Z, y, *, epsilon, delta_covariance, delta_vector, feature_norm_sq, response_bound, random_state=None, rng=None
) -> SufficientStatisticsRelease:
    """Gaussian-mechanism release of ``(C, u)`` (kernel paper, Algorithm 1 steps 3-4 / Algorithm 3).

    With features ``||z_i||^2 <= D2`` and responses ``|y_i| <= T`` (``T = response_bound``, the kernel
    paper's truncation level), replacing one record changes

        C = (1/n) sum z_i z_i^T     by at most  sqrt(||z||^4 + ||z'||^4) / n <= sqrt(2) D2 / n
        u = (1/n) sum y_i z_i       by at most  2 T sqrt(D2) / n

    in Frobenius / Euclidean norm.  Each is released with the analytic Gaussian mechanism
    (Balle and Wang 2018) at ``(epsilon/2, delta_covariance)`` and ``(epsilon/2, delta_vector)``;
    the covariance noise is an M x M matrix of iid normals, then symmetrised (post-processing).
    The caller is responsible for the norm condition (clipping, RFF boundedness, or the
    Laurent-Massart event) and for the ledger.

    Parameters
    ----------
    Z : ndarray (n, M)
    y : ndarray (n,), already truncated to [-T, T]
    epsilon : float
        Total epsilon of the two releases (split in halves).
    delta_covariance, delta_vector : float
    feature_norm_sq : float
        D2.
    response_bound : float
        T, the kernel paper's truncation level of the responses.
    random_state : None, int, SeedSequence or Generator
        Source of the noise (a Generator continues its stream).
    rng : numpy.random.Generator, optional
        Deprecated name of ``random_state``.
    """
    random_state = _renamed_rng(random_state, rng, "release_sufficient_statistics")
    n, _ = Z.shape
    return release_from_statistics(
        Z.T @ Z / n,
        Z.T @ y / n,
        n,
        epsilon=epsilon,
        delta_covariance=delta_covariance,
        delta_vector=delta_vector,
        feature_norm_sq=feature_norm_sq,
        response_bound=response_bound,
        random_state=random_state,
    )


def release_from_statistics(
    C,
    u,
    n,
    *,
    epsilon,
    delta_covariance,
    delta_vector,
    feature_norm_sq,
    response_bound,
    random_state=None,
    noise_multiplier=1.0,
    split_epsilon=True,
    rng=None,
) -> SufficientStatisticsRelease:
    """The release of :func:`release_sufficient_statistics` from precomputed ``C`` and ``u``.

    Each statistic goes through the analytic Gaussian mechanism (Balle and Wang 2018), which needs
    less noise than the classical Gaussian mechanism of the kernel paper's Proposition 1 for the
    same (epsilon, delta) and sensitivity.

    ``C = (1/n) sum z_i z_i^T`` and ``u = (1/n) sum [y_i]_T z_i`` (the caller computes them, e.g.
    as sub-blocks of the statistics of a larger feature map, which is how the comparison studies
    evaluate many projection dimensions at the cost of one); the noise is drawn in the same
    order (covariance, then vector), so both functions give identical output for the same
    generator.  ``noise_multiplier`` scales both standard deviations (used for a composed
    calibration, e.g. ``sqrt(2G)`` when ``G`` candidate releases share one Gaussian-DP budget);
    with ``split_epsilon=False`` each release is calibrated at the full ``epsilon`` (the caller
    accounts for the composition). ``random_state`` as in :func:`release_sufficient_statistics`
    (``rng`` is its deprecated name).
    """
    rng = check_random_state(_renamed_rng(random_state, rng, "release_from_statistics"))
    C = np.asarray(C, dtype=float)
    u = np.asarray(u, dtype=float)
    M = C.shape[0]
    sens_C = math.sqrt(2.0) * feature_norm_sq / n
    sens_u = 2.0 * response_bound * math.sqrt(feature_norm_sq) / n
    e = epsilon / 2.0 if split_epsilon else epsilon
    sig_C = noise_multiplier * analytic_gaussian_sigma(e, delta_covariance, sens_C)
    sig_u = noise_multiplier * analytic_gaussian_sigma(e, delta_vector, sens_u)
    C0 = C + sig_C * rng.standard_normal((M, M))
    u_noisy = u + sig_u * rng.standard_normal(M)
    return SufficientStatisticsRelease(0.5 * (C0 + C0.T), u_noisy, sig_C, sig_u, sens_C, sens_u)


@dataclass(frozen=True)
class RidgeSolution(UnpacksAsTuple):
    """What :func:`solve_ridge_floored` (one penalty) and :func:`ridge_path_floored` (several) return.

    Attributes
    ----------
    coef : ndarray of shape (M,), or (len(lams), M) for a path
        ``beta``, the solution of the floored system.
    n_floored : int, or ndarray of int of shape (len(lams),)
        Number of eigenvalues of ``C + lam I`` raised to the floor.
    min_eigenvalue : float, or ndarray of shape (len(lams),)
        Smallest eigenvalue of ``C + lam I`` before flooring.
    """

    coef: np.ndarray
    n_floored: int | np.ndarray
    min_eigenvalue: float | np.ndarray

    _new_usage = "Read `.coef`, `.n_floored` and `.min_eigenvalue` of the returned RidgeSolution."

    def _legacy_tuple(self) -> tuple:
        return (self.coef, self.n_floored, self.min_eigenvalue)


def solve_ridge_floored(C, u, lam: float, *, psd_floor: float = 1.0) -> RidgeSolution:
    """Solve ``(C + lam I) beta = u`` after flooring the spectrum of ``C + lam I``.

    A noisy covariance may make ``C + lam I`` indefinite (the paper's Theorem 1 assumes it is
    not, see the condition on M after Theorem 3).  As pure post-processing, every eigenvalue of
    the symmetric matrix ``C + lam I`` below ``psd_floor * lam`` is raised to
    ``psd_floor * lam``; this includes every non-positive one.  With the default
    ``psd_floor = 1`` this is exactly "project the noisy covariance onto the PSD cone, then add
    ``lam I``": the true covariance is PSD, so the projection can only reduce the Frobenius
    error of the released covariance, and ``||beta|| <= ||u|| / lam`` as without noise.  A
    smaller ``psd_floor`` (e.g. 0.1) changes the estimate less often but allows coefficients up
    to ``||u|| / (psd_floor * lam)``.  When no eigenvalue is below the floor the result equals
    the plain solve.

    Returns
    -------
    RidgeSolution
        ``coef`` (beta, shape (M,)), ``n_floored`` (eigenvalues raised) and ``min_eigenvalue``
        (smallest eigenvalue of ``C + lam I`` before flooring).
    """
    A = 0.5 * (C + C.T) + lam * np.eye(C.shape[0])
    w, V = np.linalg.eigh(A)
    floor = psd_floor * lam
    low = w < floor
    n_floored = int(np.count_nonzero(low))
    w_fixed = np.where(low, floor, w)
    beta = V @ ((V.T @ u) / w_fixed)
    return RidgeSolution(beta, n_floored, float(w[0]))


def ridge_path_floored(C, u, lams, *, psd_floor: float = 1.0) -> RidgeSolution:
    """:func:`solve_ridge_floored` for several penalties from one eigendecomposition.

    The eigenvalues of ``C + lam I`` are those of ``C`` shifted by ``lam`` (same eigenvectors), so
    one ``eigh`` of the symmetrised ``C`` serves every ``lam``; each row of the result equals
    ``solve_ridge_floored(C, u, lam, psd_floor=psd_floor)`` up to rounding.

    Returns
    -------
    RidgeSolution
        One row per ``lam``: ``coef`` of shape (len(lams), M), ``n_floored`` (ints) and
        ``min_eigenvalue`` of shape (len(lams),).
    """
    lams = np.atleast_1d(np.asarray(lams, dtype=float))
    w, V = np.linalg.eigh(0.5 * (C + C.T))
    proj = V.T @ np.asarray(u, dtype=float)
    shifted = w[None, :] + lams[:, None]
    floor = (psd_floor * lams)[:, None]
    low = shifted < floor
    coef = proj[None, :] / np.where(low, floor, shifted)
    return RidgeSolution(coef @ V.T, low.sum(axis=1).astype(int), w[0] + lams)
