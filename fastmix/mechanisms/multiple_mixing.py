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
from typing import TYPE_CHECKING

import numpy as np

from .._validation import (
    NormEnforcement,
    check_positive_int,
    check_random_state,
    dask_route,
    mark_not_private,
    policy_caveats,
    warn_not_private,
)
from ..hadamard import PowerOfTwoRecord
from ..srht import SRHT, SketchWorkspace, sketch_quantities
from ..threads import blas_limit
from .data import PreparedData, _check_calibration, _check_k2, prepare_any
from .fast_mixing import FastMixCalibration, FastMixDrawOptions, _private_noise_level
from .gaussian_step import mix_sketch

if TYPE_CHECKING:  # a Dask X only: the record of its rechunking
    from ..chunked.sketch import Rechunking

__all__ = ["MultipleFastMixingResult", "multiple_fast_mixing"]


@dataclass(frozen=True)
class MultipleFastMixingResult:
    """Output of MultipleFastMixing (Algorithm 3).

    ``eta`` (the shared noise level, max over draws) and the per-draw ``m_tilde``,
    ``lambda_tilde``, ``eta_tilde`` are private. ``srht_sketches`` (the X_tilde_t = S_H,t X of
    line 5) are NOT private: they are handed to the Gaussian step, :meth:`release`, which is.
    ``m_hat``, ``lambda_min`` are non-private diagnostics; ``delta_hat`` is public.
    ``rechunking`` is None for an in-memory X and records the row chunks used for a Dask X.
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
    rechunking: Rechunking | None = None

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

    ``m_floor`` (the floor of ``m_tilde_t``; the algorithm writes 0) and ``backend`` (the
    Walsh-Hadamard backend of the SRHTs) are checked once, as a :class:`FastMixDrawOptions` shared
    by the T draws. ``prepared`` lets a caller that already ran :func:`prepare_data` skip the
    repeated checks.
    The T draws share one :class:`fastmix.srht.SketchWorkspace` (the blocked pass's buffers are
    allocated once per call) and run with the thread policy of :mod:`fastmix.threads`.

    **Dask input.** X (or ``prepared.X``) may be a Dask array chunked along rows, with one column
    chunk. It is checked in one pass (``row_norm_policy`` ``"raise"`` or ``"clip"``), padded lazily
    with zero rows up to a power of two (``n_policy="pad"``, recorded in ``padding`` as in memory)
    and its row chunks are made aligned powers of two (recorded in ``rechunking``). The T SRHTs and
    the 2T Laplace draws are taken from the generator in the in-memory order (SRHT t, then its two
    Laplace draws), and the T sketches, ``m_hat_t`` and ``Delta_hat_t`` then come from two passes
    over the chunks (:func:`fastmix.chunked.chunked_sketch_draws`): only T k2 x d sketches and
    scalars reach the client. For the same ``random_state`` the result equals the in-memory one, in
    any chunking, up to the order of floating-point sums.

    Returns
    -------
    MultipleFastMixingResult
        NumPy arrays and floats, for an in-memory and a Dask X alike.
    """
    _check_calibration(
        calibration, FastMixCalibration, "calibrate_fast_mix(epsilon, delta, k1=..., n_draws=T)", "multiple_fast_mixing"
    )
    options = FastMixDrawOptions(m_floor=m_floor, backend=backend)
    rechunking = None
    caveats = () if prepared is not None else policy_caveats(row_norm_policy=row_norm_policy)
    entries = mark_not_private(calibration.ledger_entries(), caveats)
    if ledger is not None:
        ledger.check_spend_all(entries)  # refused before the data are read
    if prepared is not None:
        data = prepared
    else:
        data, rechunking = prepare_any(X, c_x=calibration.c_x, row_norm_policy=row_norm_policy, n_policy=n_policy)
    n, d = data.X.shape
    k2 = _check_k2(k2, n)
    rng = check_random_state(random_state)
    warn_not_private(caveats, "This MultipleFastMixing release")
    if ledger is not None:
        ledger.spend_all(entries)
    draws, rechunked = _draws(data.X, calibration, k2, rng, options)
    rechunking = rechunked if rechunking is None else rechunking
    sketches, mt, lt, et, mh, dh, lm = (list(v) for v in zip(*draws, strict=True))
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
        rechunking=rechunking,
    )


@dask_route("mechanisms.multiple_draws", on="X")
def _draws(
    X, calibration: FastMixCalibration, k2: int, rng, options: FastMixDrawOptions
) -> tuple[list, Rechunking | None]:
    """Algorithm 3, lines 3-9: per draw (Z, m_tilde, lambda_tilde, eta_tilde, m_hat, ...), and the rechunking.

    For a Dask X the draws are taken by ``fastmix.chunked.routes`` in the same order, and the
    sketches come from passes over the row chunks (the rechunking is how they were aligned).
    """
    n, d = X.shape
    out = []
    work = SketchWorkspace(d, n, k2)  # one set of work buffers for the T draws
    for _ in range(calibration.n_draws):
        srht = SRHT(n, k2, random_state=rng, backend=options.backend)
        with blas_limit():
            q = sketch_quantities(X, srht, check_input=False, workspace=work)
        m_tilde, lambda_tilde, eta_tilde = _private_noise_level(q, calibration, rng, options)
        out.append((q.Z, m_tilde, lambda_tilde, eta_tilde, q.m_hat, q.delta_hat, q.lambda_min))
    return out, None
