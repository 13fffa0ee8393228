"""Objective perturbation for kernel logistic regression (kernel paper, Algorithm 2 and Theorem 2; Kifer et al. 2012).

The noise scale and the smallest ridge penalty of the perturbed objective (our derivation, in
``book/kernel_calibration.md``) and the Newton solver of the perturbed logistic objective.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import linalg

from .._compat import UnpacksAsTuple
from .._validation import check_delta, check_epsilon, check_positive, check_positive_int


@dataclass(frozen=True)
class ObjectivePerturbationCalibration(UnpacksAsTuple):
    """Noise and regularisation of objective perturbation (:func:`objective_perturbation_calibration`).

    Attributes
    ----------
    sigma : float
        Standard deviation of the linear perturbation ``b ~ N(0, sigma^2 I_M)``.
    lam_effective : float
        The penalty actually used, ``max(lam, lam_min)``.
    lam_min : float
        The smallest penalty for which the guarantee holds.
    """

    sigma: float
    lam_effective: float
    lam_min: float

    _new_usage = "Read `.sigma`, `.lam_effective` and `.lam_min` of the returned calibration."

    def _legacy_tuple(self) -> tuple:
        return (self.sigma, self.lam_effective, self.lam_min)


def objective_perturbation_calibration(
    epsilon, delta_tail, *, feature_norm, lipschitz, smoothness, n, lam
) -> ObjectivePerturbationCalibration:
    """Noise scale and minimum regularisation for objective perturbation (our derivation).

    The calibration behind the kernel paper's Algorithm 2 and its privacy guarantee, Theorem 2.

    Objective (kernel paper, Algorithm 2; Kifer et al. 2012)::

        J(beta) = (1/n) sum_i l(y_i, beta^T z_i) + (lam/2) ||beta||^2 + (1/n) b^T beta,
        b ~ N(0, sigma^2 I_M),  |l'| <= c1,  0 <= l'' <= c2,  ||z_i|| <= Delta.

    The exact minimiser is (epsilon, delta_tail)-DP under replace-one neighbours when

        sigma = 2 c1 Delta / (sqrt(tau^2 + epsilon) - tau),   tau^2 = 2 log(1/delta_tail),
        n lam >= c2 Delta^2 / (exp(epsilon/2) - 1).

    (Noise part ``epsilon/2``: the gradient difference lies in span{z, z'}, whose projection of
    b is at most sigma*tau except with probability ``exp(-tau^2/2)`` (chi-square with <= 2
    degrees of freedom); Jacobian part ``epsilon/2`` by the matrix determinant lemma.)  The
    regulariser actually used is ``max(lam, lam_min)``.

    Returns
    -------
    ObjectivePerturbationCalibration
        ``sigma``, ``lam_effective`` and ``lam_min``.
    """
    epsilon = check_epsilon(epsilon)
    delta_tail = check_delta(delta_tail, "delta_tail")
    feature_norm = check_positive(feature_norm, "feature_norm")
    lipschitz = check_positive(lipschitz, "lipschitz")
    smoothness = check_positive(smoothness, "smoothness", allow_zero=True)
    n = check_positive_int(n, "n")
    lam = check_positive(lam, "lam", allow_zero=True)
    tau = math.sqrt(2.0 * math.log(1.0 / delta_tail))
    s = 2.0 * lipschitz * feature_norm
    sigma = s / (math.sqrt(tau * tau + epsilon) - tau)
    lam_min = smoothness * feature_norm**2 / (n * math.expm1(min(epsilon / 2.0, 700.0)))
    return ObjectivePerturbationCalibration(sigma, max(lam, lam_min), lam_min)


def _logistic_newton(Z, s, lam, b, *, tol=1e-12, max_iter=200):
    """Minimise (1/n) sum log(1 + exp(-s_i z_i^T beta)) + lam/2 ||beta||^2 + b^T beta / n by Newton."""
    n, M = Z.shape
    beta = np.zeros(M)

    def obj(beta):
        m = s * (Z @ beta)
        return np.logaddexp(0.0, -m).mean() + 0.5 * lam * beta @ beta + b @ beta / n

    f = obj(beta)
    for _ in range(max_iter):
        m = s * (Z @ beta)
        p = 0.5 * (1.0 - np.tanh(0.5 * m))  # sigma(-m)
        g = -(Z.T @ (s * p)) / n + lam * beta + b / n
        w = p * (1.0 - p)
        H = (Z.T * w) @ Z / n + lam * np.eye(M)
        step = linalg.solve(H, g, assume_a="pos")
        if g @ step < tol:
            break
        t = 1.0
        while True:
            f_new = obj(beta - t * step)
            if f_new <= f - 0.25 * t * (g @ step) or t < 1e-10:
                break
            t *= 0.5
        beta = beta - t * step
        f = f_new
    return beta
