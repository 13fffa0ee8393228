"""Calibration pieces shared by IHM and FastIHM: the Gaussian gradient releases.

The gradient ``X^T clip_C(y - X theta_t)`` has l2 sensitivity C under zero-out neighbours
(FastMix paper, eq. 179); T adaptive releases compose exactly in Gaussian DP.
"""

from __future__ import annotations

import math

from .. import accounting as acc
from .._validation import check_probability


def _rho_default(rho, delta: float) -> float:
    return delta / 10.0 if rho is None else check_probability(rho, "rho")


def _gradient_entry(T: int, sigma: float, clip: float, eps: float, delta: float, source: str) -> acc.LedgerEntry:
    return acc.ledger_entry(
        f"Gaussian gradient noise ({T} iterations)",
        eps,
        delta,
        relation=acc.ZERO_OUT,
        source=source,
        details=(("sigma", sigma), ("sensitivity", clip), ("T", T)),
    )


def _gradient_noise_tight(epsilon: float, delta: float, T: int, clip: float) -> tuple[float, float]:
    """sigma = sqrt(T) * sigma_AG(epsilon, delta, C) and the exact delta it attains.

    T adaptive releases of ``X^T clip_C(y - X theta_t) + sigma zeta_t`` (l2-sensitivity C,
    eq. 179) compose to a mu-GDP mechanism with mu = sqrt(T) C / sigma (Dong, Roth & Su 2022,
    Corollary 3.3; GDP composition is exact for Gaussian mechanisms, adaptively chosen queries
    included). That is exactly the privacy curve of ONE Gaussian mechanism with sensitivity C and
    noise sigma / sqrt(T), whose tight (epsilon, delta) is the analytic Gaussian mechanism
    (Balle & Wang 2018). Hence sigma / sqrt(T) = sigma_AG(epsilon, delta, C).
    """
    s1 = acc.analytic_gaussian_sigma(epsilon, delta, clip)
    return math.sqrt(T) * s1, acc.analytic_gaussian_delta(s1, epsilon, clip)
