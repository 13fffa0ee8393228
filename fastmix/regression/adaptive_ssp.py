"""AdaSSP (Wang 2018) and its calibration.

The classical private least-squares baseline of the FastMix paper's Section 4: sufficient
statistics perturbation with an adaptive ridge.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import linalg as sla

from .. import accounting as acc
from .._validation import (
    check_delta,
    check_epsilon,
    check_positive,
    check_random_state,
    mark_not_private,
    policy_caveats,
    warn_not_private,
)
from .data import prepare_regression
from .gradient_noise import _rho_default
from .result import RegressionResult, _unscale_theta, cross, gram


@dataclass(frozen=True)
class AdaSSPCalibration:
    """AdaSSP (Wang 2018, Algorithm 2) with the analytic Gaussian mechanism.

    Three releases at (epsilon/3, delta/3) each: ``lambda_min(X^T X)`` (sensitivity 1),
    ``X^T X`` (Frobenius sensitivity ``||x x^T||_F <= 1``; symmetric noise from the upper
    triangle) and ``X^T y`` (sensitivity C)::

        sigma_XX = sigma_AG(eps/3, delta/3, 1),   sigma_Xy = sigma_AG(eps/3, delta/3, C).
    """

    epsilon: float
    delta: float
    rho: float
    clip: float
    sigma_xx: float
    sigma_xy: float
    delta_each: float

    def ledger_entries(self) -> tuple:
        e = self.epsilon / 3.0
        return (
            acc.ledger_entry(
                "Gaussian release of lambda_min(X^T X)",
                e,
                self.delta_each,
                relation=acc.ZERO_OUT,
                source="Wang (2018) AdaSSP; analytic Gaussian, sensitivity 1",
                details=(("sigma", self.sigma_xx), ("sensitivity", 1.0)),
            ),
            acc.ledger_entry(
                "Gaussian release of X^T X",
                e,
                self.delta_each,
                relation=acc.ZERO_OUT,
                source="Wang (2018) AdaSSP; analytic Gaussian, sensitivity 1 (Frobenius)",
                details=(("sigma", self.sigma_xx), ("sensitivity", 1.0)),
            ),
            acc.ledger_entry(
                "Gaussian release of X^T y",
                e,
                self.delta_each,
                relation=acc.ZERO_OUT,
                source="Wang (2018) AdaSSP; analytic Gaussian, sensitivity C",
                details=(("sigma", self.sigma_xy), ("C", self.clip), ("sensitivity", self.clip)),
            ),
        )

    def ledger(self, name: str = "AdaSSP", caveats: tuple = ()) -> acc.PrivacyLedger:
        """A ledger of target ``(epsilon, delta)`` holding this calibration's entries (marked not
        private with ``caveats``, the reasons an option broke the guarantee, when there are any)."""
        led = acc.PrivacyLedger(self.epsilon, self.delta, relation=acc.ZERO_OUT, name=name)
        led.spend_all(mark_not_private(self.ledger_entries(), caveats))
        return led


def calibrate_adassp(epsilon, delta, *, rho=None, clip: float = 1.0) -> AdaSSPCalibration:
    """Calibrate AdaSSP: see :class:`AdaSSPCalibration`."""
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    rho = _rho_default(rho, delta)
    clip = check_positive(clip, "clip")
    e3, d3 = epsilon / 3.0, delta / 3.0
    sxx = acc.analytic_gaussian_sigma(e3, d3, 1.0)
    sxy = acc.analytic_gaussian_sigma(e3, d3, clip)
    return AdaSSPCalibration(epsilon, delta, rho, clip, sxx, sxy, d3)


def adassp(
    X,
    y,
    *,
    epsilon=None,
    delta=None,
    rho=None,
    clip: float = 1.0,
    calibration=None,
    random_state=None,
    row_norm_policy: str = "raise",
    y_policy: str = "raise",
    ledger=None,
):
    """AdaSSP, Wang (2018) "Revisiting differentially private linear regression", Algorithm 2.

    As in the baseline of the FastMix authors' public code::

        lambda_tilde = max(0, lambda_min(X^T X) + sigma_XX Z - sigma_XX^2)
        ridge        = max(0, sqrt(d log(2 d^2 / rho)) sigma_XX - lambda_tilde)
        theta        = (X^T X + sigma_XX N_sym + ridge I)^{-1} (X^T y + sigma_Xy xi)

    Wang's paper shifts lambda_min by ``sqrt(log(6/delta))/(eps/3)`` times a constant instead of
    sigma_XX^2; the shift is post-processing and does not affect privacy. Requires ``|y_i|`` <= C.
    ``ledger``: an optional outer :class:`~fastmix.accounting.PrivacyLedger` to charge as well.
    X and y may be Dask arrays chunked along rows: ``X^T X`` and ``X^T y`` are then tree sums of
    the chunks' products and the draws are the same as for NumPy input (same seed, same estimate
    up to the order of floating-point sums).

    Returns
    -------
    result : RegressionResult
        ``result.theta`` (shape ``(d,)``) is the estimate.
    """
    rng = check_random_state(random_state)
    if calibration is None:
        if epsilon is None or delta is None:
            raise ValueError("adassp needs epsilon and delta, or a precomputed calibration=calibrate_adassp(...).")
        calibration = calibrate_adassp(epsilon, delta, rho=rho, clip=clip)
    elif not isinstance(calibration, AdaSSPCalibration):
        raise TypeError(f"calibration must be an AdaSSPCalibration; got {type(calibration).__name__}.")
    cal = calibration
    caveats = policy_caveats(row_norm_policy=row_norm_policy, y_policy=y_policy)
    entries = mark_not_private(cal.ledger_entries(), caveats)
    if ledger is not None:
        ledger.check_spend_all(entries)  # refused before the data are read
    data = prepare_regression(
        X, y, clip=cal.clip, row_norm_policy=row_norm_policy, y_policy=y_policy, power_of_two=False
    )
    Xp, yp = data.X, data.y
    d = Xp.shape[1]
    warn_not_private(caveats, "This AdaSSP fit")
    if ledger is not None:
        ledger.spend_all(entries)
    ledger = cal.ledger("AdaSSP", caveats)
    XtX = gram(Xp)
    Xty = cross(Xp, yp)
    lam_min = float(max(np.linalg.eigvalsh(XtX)[0], 0.0))
    s = cal.sigma_xx
    lam_tilde = max(0.0, lam_min + s * rng.standard_normal() - s * s)
    ridge = max(0.0, math.sqrt(d * math.log(2.0 * d * d / cal.rho)) * s - lam_tilde)
    upper = np.triu(rng.standard_normal((d, d)))
    N = upper + np.triu(upper, 1).T
    H = XtX + s * N + ridge * np.eye(d)
    b = Xty + cal.sigma_xy * rng.standard_normal(d)
    try:
        theta = sla.solve(H, b, assume_a="sym", check_finite=False)
    except (np.linalg.LinAlgError, sla.LinAlgError):
        theta = np.linalg.lstsq(H, b, rcond=None)[0]
    theta_out = _unscale_theta(theta, data.record)
    diag = {
        "lambda_tilde": lam_tilde,
        "ridge": ridge,
        "sigma_xx": s,
        "sigma_xy": cal.sigma_xy,
        "lambda_min_nonprivate": lam_min,
    }
    return RegressionResult(theta_out, "AdaSSP", data.record, ledger, cal, diag, [theta_out])
