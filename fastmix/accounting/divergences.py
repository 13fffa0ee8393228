"""Exact Renyi divergences between centred Gaussians, and of the Gaussian mixing release.

The reference the bounds of :mod:`fastmix.accounting.renyi_bounds` are checked against: the
closed form of the alpha-Renyi divergence between multivariate Gaussians (FastMix paper,
eq. 16; Gil, Alajaji and Linder 2013) and its use on the release ``g^T Z + sigma xi^T`` of two
neighbouring (sketched) datasets (eq. 18-23).
"""

from __future__ import annotations

import numpy as np
from scipy import linalg as _sla

from .._validation import check_matrix, check_positive
from ._checks import _check_alpha, _check_k, _scalar_or_array

__all__ = ["gaussian_renyi_divergence", "gaussian_mix_divergence"]


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

    The divergence of the FastMix paper's Definition 2, in closed form for two Gaussians:

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
