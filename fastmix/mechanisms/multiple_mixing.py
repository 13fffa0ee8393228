"""MultipleFastMixing, Algorithm 3 of the FastMix paper (Appendix G).

T independent SRHT draws of X, each with its own private (Laplace) estimates of ``m_hat`` and
``lambda_min`` as in Algorithm 1 (with the row-norm bound C_X in the sensitivities), sharing one
noise level ``eta = max_t eta_t`` (line 10). The SRHT sketches stay inside the result; only their
Gaussian steps (:meth:`MultipleFastMixingResult.release`, Algorithm 2 lines 5-6) are private.
This is the building block of FastIHM (Algorithm 2, :func:`fastmix.regression.fast_ihm`); its
budget is a :class:`~fastmix.mechanisms.FastMixCalibration` built with ``n_draws=T``
(Appendix E.2.1).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._validation import NormEnforcement, check_positive, check_positive_int, check_random_state
from ..hadamard import PowerOfTwoRecord
from ..srht import SRHT, SketchWorkspace, sketch_quantities
from ..threads import blas_limit
from .data import PreparedData, _check_calibration, _check_k2, prepare_data
from .fast_mixing import FastMixCalibration, _private_noise_level
from .gaussian_step import mix_sketch

__all__ = ["MultipleFastMixingResult", "multiple_fast_mixing"]


@dataclass(frozen=True)
class MultipleFastMixingResult:
    """Output of MultipleFastMixing (Algorithm 3).

    ``eta`` (the shared noise level, max over draws) and the per-draw ``m_tilde``,
    ``lambda_tilde``, ``eta_tilde`` are private. ``srht_sketches`` (the X_tilde_t = S_H,t X of
    line 5) are NOT private: they are handed to the Gaussian step, :meth:`release`, which is.
    ``m_hat``, ``lambda_min`` are non-private diagnostics; ``delta_hat`` is public.
    """

    eta: float
    srht_sketches: tuple
    m_tilde: np.ndarray
    lambda_tilde: np.ndarray
    eta_tilde: np.ndarray
    m_hat: np.ndarray
    delta_hat: np.ndarray
    lambda_min: np.ndarray
    gamma: float
    k2: int
    n: int
    d: int
    padding: PowerOfTwoRecord
    row_norms: NormEnforcement
    ledger_entries: tuple = field(repr=False)

    @property
    def n_draws(self) -> int:
        return len(self.srht_sketches)

    def release(
        self, t: int, k1: int, random_state=None, *, noise_scale: float | None = None, method: str = "explicit"
    ) -> np.ndarray:
        """Private sketch of draw t: ``S_G,t X_tilde_t + eta xi_t`` (Algorithm 2, lines 5-6).

        ``noise_scale`` defaults to the shared ``eta`` of line 10; passing
        ``eta_tilde[t]`` gives the per-draw variant of the authors' code (also private:
        Lemma 1 only needs each draw's own noise to meet eq. (7)). ``method`` as in
        :func:`mix_sketch`.
        """
        t = check_positive_int(
            t, "t", minimum=0, maximum=self.n_draws - 1, hint="t indexes the draws of this run, 0 <= t < n_draws."
        )
        scale = self.eta if noise_scale is None else noise_scale
        return mix_sketch(self.srht_sketches[t], scale, k1, random_state, method=method)


def multiple_fast_mixing(
    X,
    calibration: FastMixCalibration,
    *,
    k2,
    random_state=None,
    ledger=None,
    row_norm_policy: str = "raise",
    n_policy: str = "pad",
    m_floor: float = 0.0,
    backend: str | None = None,
    prepared: PreparedData | None = None,
) -> MultipleFastMixingResult:
    """MultipleFastMixing, Algorithm 3 of the FastMix paper (Appendix G).

    For t = 0..T-1 (T = ``calibration.n_draws``): draw an independent SRHT S_H,t with k2 rows,
    compute ``X_tilde_t = S_H,t X``, ``m_hat_t``, ``Delta_hat_t = C_X * coherence``,
    ``lambda_hat_t = lambda_min(X_tilde_t^T X_tilde_t)``; release
    ``m_tilde_t = max{0, m_hat_t + omega Delta_hat_t (tau - z1)}`` and
    ``lambda_tilde_t = max{0, lambda_hat_t - omega C_X (C_X + 2 m_tilde_t)(tau - z2)}``; set
    ``eta_tilde_t = sqrt(max{0, gamma C_X (C_X + 2 m_tilde_t) - lambda_tilde_t})`` and finally
    ``eta = max_t eta_tilde_t`` (line 10).

    The budget of the whole procedure including the T Gaussian releases of
    :meth:`MultipleFastMixingResult.release` is ``calibration`` (built with ``n_draws=T``):
    2T Laplace releases, T sketches composed in RDP, and the failure event (Appendix E.2.1).

    ``prepared`` lets a caller that already ran :func:`prepare_data` skip the repeated checks.
    The T draws share one :class:`fastmix.srht.SketchWorkspace` (the blocked pass's buffers are
    allocated once per call) and run with the thread policy of :mod:`fastmix.threads`.
    """
    _check_calibration(
        calibration, FastMixCalibration, "calibrate_fast_mix(epsilon, delta, k1=..., n_draws=T)", "multiple_fast_mixing"
    )
    check_positive(m_floor, "m_floor", allow_zero=True)
    data = (
        prepared
        if prepared is not None
        else prepare_data(X, c_x=calibration.c_x, row_norm_policy=row_norm_policy, n_policy=n_policy)
    )
    n, d = data.X.shape
    k2 = _check_k2(k2, n)
    rng = check_random_state(random_state)
    entries = calibration.ledger_entries()
    if ledger is not None:
        ledger.spend_all(entries)
    T = calibration.n_draws
    sketches, mt, lt, et, mh, dh, lm = [], [], [], [], [], [], []
    work = SketchWorkspace(d, n, k2)  # one set of work buffers for the T draws
    for _ in range(T):
        srht = SRHT(n, k2, random_state=rng, backend=backend)
        with blas_limit():
            q = sketch_quantities(data.X, srht, check_input=False, workspace=work)
        m_tilde, lambda_tilde, eta_tilde = _private_noise_level(q, calibration, rng, m_floor)
        sketches.append(q.Z)
        mt.append(m_tilde)
        lt.append(lambda_tilde)
        et.append(eta_tilde)
        mh.append(q.m_hat)
        dh.append(q.delta_hat)
        lm.append(q.lambda_min)
    return MultipleFastMixingResult(
        eta=float(max(et)),
        srht_sketches=tuple(sketches),
        m_tilde=np.array(mt),
        lambda_tilde=np.array(lt),
        eta_tilde=np.array(et),
        m_hat=np.array(mh),
        delta_hat=np.array(dh),
        lambda_min=np.array(lm),
        gamma=calibration.gamma,
        k2=k2,
        n=n,
        d=d,
        padding=data.padding,
        row_norms=data.row_norms,
        ledger_entries=entries,
    )
