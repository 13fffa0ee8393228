"""When FastIHM's Hessian noise dominates: the warning and the ratio it is decided by.

FastIHM (Algorithm 2 of the FastMix paper) adds ``eta^2 I`` (in expectation) to each sketched
Hessian, with eta^2 = gamma (1 + 2 m_tilde) - lambda_tilde from Algorithm 3, line 8; m_tilde grows
as the SRHT keeps fewer of the n rows. IHM at the same budget and sketch size adds
``sigma^2 = max(0, gamma_IHM - lambda_tilde) <= gamma_IHM`` (:func:`calibrate_ihm`), where
gamma_IHM depends on (epsilon, delta, k, T, rho, C) only. So ``eta^2 / gamma_IHM``, computed from
the released eta and public quantities (post-processing, no privacy cost), is at least how many
times more noise FastIHM's Hessian carries than IHM's would.
"""

from __future__ import annotations

from .hessian_mixing import calibrate_ihm


class NoiseDominatesWarning(UserWarning):
    """A private fit whose noise swamps the signal (judged from public and released quantities only)."""


#: FastIHMRegressor warns when eta^2 exceeds this multiple of the most IHM adds at the same budget.
NOISE_DOMINATES_RATIO = 10.0


def ihm_noise_bound(epsilon, delta, *, k, T, rho, clip=1.0) -> float:
    """gamma_IHM: the largest Hessian noise ``sigma^2 = max(0, gamma - lambda_tilde)`` IHM can add.

    Data-independent: :func:`calibrate_ihm`'s ``gamma`` at this budget, sketch size k, T, rho and C.
    """
    return calibrate_ihm(epsilon, delta, k=k, T=T, rho=rho, clip=clip).gamma


def fastihm_noise_ratio(eta, epsilon, delta, *, k, T, rho, clip=1.0) -> float:
    """``eta^2 / gamma_IHM``: FastIHM's Hessian noise over the most IHM adds at the same budget.

    Parameters
    ----------
    eta : float
        FastIHM's released noise level (``RegressionResult.diagnostics["eta"]``).
    epsilon, delta, k, T, rho, clip
        The budget, the Gaussian sketch size (FastIHM's k1, IHM's k), the iterations, the
        utility failure probability and the clipping level, as passed to :func:`calibrate_ihm`.

    Returns
    -------
    float
        A number near 1 means FastIHM's noise is about IHM's (e.g. when its SRHT keeps every row);
        above :data:`NOISE_DOMINATES_RATIO`, IHM adds at least that many times less noise.
    """
    return float(eta) ** 2 / ihm_noise_bound(epsilon, delta, k=k, T=T, rho=rho, clip=clip)
