"""The Gaussian mixing mechanism: ``S_G X + sigma N`` with k i.i.d. Gaussian rows.

Proposition 2 of the FastMix paper (from Lev et al. 2025): k Gaussian rows applied to X with
noise level ``sigma``, each row (alpha, r(alpha; gamma))-RDP with ``gamma = sigma^2 +
lambda_min(X^T X)``; composed over the k rows and converted with Proposition 1.
:func:`calibrate_gaussian_mix` picks sigma before any data is touched, :func:`gaussian_mix`
releases the sketch (eq. 4). This is the O(k n d) mechanism that FastMix (Algorithm 1)
accelerates.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import accounting as acc
from .._validation import (
    check_delta,
    check_epsilon,
    check_matrix,
    check_positive,
    check_positive_int,
    check_row_norms,
    mark_not_private,
    policy_caveats,
    warn_not_private,
)
from .data import _check_calibration
from .gaussian_step import mix_sketch

__all__ = ["GaussianMixCalibration", "calibrate_gaussian_mix", "gaussian_mix"]


@dataclass(frozen=True)
class GaussianMixCalibration:
    """Noise for the Gaussian mixing mechanism (Proposition 2) at a target (epsilon, delta).

    ``gamma = sigma^2 + lambda_min_lower`` is the smallest value for which k rows, composed
    in RDP and converted with Proposition 1, give at most ``epsilon`` at ``delta``.
    """

    epsilon: float
    delta: float
    k: int
    gamma: float
    sigma: float
    lambda_min_lower: float
    epsilon_spent: float

    def ledger_entries(self) -> tuple:
        return (
            acc.ledger_entry(
                "Gaussian mixing sketch",
                self.epsilon_spent,
                self.delta,
                relation=acc.ZERO_OUT,
                source="Proposition 2 (Lev et al. 2025), k-fold RDP composition, Proposition 1",
                details=(("k", self.k), ("gamma", self.gamma), ("sigma", self.sigma)),
            ),
        )


def calibrate_gaussian_mix(epsilon, delta, *, k, lambda_min_lower: float = 0.0) -> GaussianMixCalibration:
    """Smallest sigma making the k-row Gaussian mixing mechanism (epsilon, delta)-DP.

    Parameters
    ----------
    epsilon, delta : float
        Target guarantee.
    k : int
        Number of Gaussian rows.
    lambda_min_lower : float, default=0.0
        A *public* lower bound on lambda_min(X^T X). Using a data-dependent value here
        voids the guarantee; FastMix and IHM estimate it privately instead.
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    k = check_positive_int(k, "k")
    lam = check_positive(lambda_min_lower, "lambda_min_lower", allow_zero=True)
    gamma = acc.gaussian_sketch_gamma_for_epsilon(epsilon, delta, k)
    sigma = math.sqrt(max(0.0, gamma - lam))
    spent, _ = acc.gaussian_sketch_epsilon(gamma, k, delta)
    return GaussianMixCalibration(epsilon, delta, k, gamma, sigma, lam, spent)


def gaussian_mix(
    X,
    calibration: GaussianMixCalibration,
    *,
    random_state=None,
    ledger=None,
    row_norm_policy: str = "raise",
    method: str = "explicit",
) -> np.ndarray:
    """Release ``S_G X + sigma N`` with k Gaussian rows (Proposition 2, eq. 4).

    With ``method="explicit"`` this costs O(k n d): the slow mechanism FastMix accelerates.
    ``method="gram"`` draws the same distribution in O(n d^2 + k d^2) (see :func:`mix_sketch`).
    """
    _check_calibration(
        calibration, GaussianMixCalibration, "calibrate_gaussian_mix(epsilon, delta, k=...)", "gaussian_mix"
    )
    caveats = policy_caveats(row_norm_policy=row_norm_policy)
    entries = mark_not_private(calibration.ledger_entries(), caveats)
    if ledger is not None:
        ledger.check_spend_all(entries)  # refused before the data are read
    X = check_matrix(X, "X")
    X, _ = check_row_norms(X, bound=1.0, policy=row_norm_policy)
    warn_not_private(caveats, "This Gaussian mixing release")
    if ledger is not None:
        ledger.spend_all(entries)
    return mix_sketch(X, calibration.sigma, calibration.k, random_state, method=method)
