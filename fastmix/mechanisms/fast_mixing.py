"""FastMix, Algorithm 1 of the FastMix paper, and the calibration it shares with Algorithm 3.

:func:`calibrate_fast_mix` chooses Algorithm 1's (gamma, tau, omega) for a target (epsilon,
delta) before any data is touched, splitting the budget between the 2T Laplace releases
(Lemmas 4 and 5), the T sketches (Lemma 1, Proposition 1) and the failure event of eq. (112)
(Lemma 6), as in Theorems 1 and 2. :func:`fast_mix` runs one draw: an SRHT ``S_f``, private
(Laplace) estimates of ``m_hat`` and ``lambda_min(Z^T Z)`` for ``Z = S_f X``, the noise level
they imply, and the Gaussian step on Z (:func:`~fastmix.mechanisms.mix_sketch`). Every ledger
entry is stated for zero-out neighbours (one row set to zero; Section 2).
:class:`FastMixDrawOptions` holds the two options of a draw that leave its guarantee unchanged
(the floor of ``m_tilde`` and the Walsh-Hadamard backend of ``S_f``), checked once and shared by
FastMix, MultipleFastMixing (Algorithm 3) and their Dask routes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from .. import accounting as acc
from .._validation import (
    NormEnforcement,
    check_delta,
    check_epsilon,
    check_policy,
    check_positive,
    check_positive_int,
    check_probability,
    check_random_state,
    dask_route,
    mark_not_private,
    policy_caveats,
    warn_not_private,
)
from ..hadamard import PowerOfTwoRecord, available_backends
from ..srht import SRHT, SketchQuantities, sketch_quantities
from ..threads import blas_limit
from .data import _check_calibration, _check_k2, prepare_any
from .gaussian_step import GAUSSIAN_STEPS, mix_sketch

if TYPE_CHECKING:  # a Dask X only: the record of its rechunking
    from ..chunked.sketch import Rechunking

__all__ = ["FastMixCalibration", "calibrate_fast_mix", "FastMixDrawOptions", "FastMixRelease", "fast_mix"]


@dataclass(frozen=True)
class FastMixCalibration:
    """Parameters (gamma, tau, omega) of FastMix / MultipleFastMixing and their budget.

    The budget is spent in three parts (FastMix paper, Appendix C.4.1 and E.2.1):

    * the 2T Laplace releases of ``m_tilde`` and ``lambda_tilde``, each (1/omega)-DP
      (Lemmas 4 and 5 bound the sensitivities), in total ``2T/omega``;
    * the T sketches, each (alpha, k1 * phi(alpha; gamma))-RDP by Lemma 1 (phi = phi_bar of
      eq. 115 by default), composed in RDP and converted once with Proposition 1 at
      ``delta_sketch``;
    * the failure probability of the event that some Laplace-shifted estimate is on the wrong
      side (eq. 112): each draw fails with probability ``e^(-tau)`` (two one-sided Laplace
      tails of ``e^(-tau)/2``), ``T e^(-tau)`` in all (Lemma 6 adds it to delta).

    Attributes
    ----------
    epsilon, delta : float
        Target guarantee of the whole run.
    k1 : int
        Rows of the Gaussian sketch.
    n_draws : int
        Number T of FastMix draws covered (1 for Algorithm 1).
    gamma, tau, omega : float
        Algorithm 1's parameters.
    c_x : float
        Public row-norm bound.
    epsilon_laplace, epsilon_sketch, delta_sketch, delta_failure : float
        The parts of the budget; ``epsilon_laplace + epsilon_sketch <= epsilon`` and
        ``delta_sketch + delta_failure <= delta``.
    alpha : float
        Renyi order at which the sketch part was converted.
    bound, method : str
        Which Renyi bound and which calibration ("tight" numeric or "closed_form").
    """

    epsilon: float
    delta: float
    k1: int
    n_draws: int
    gamma: float
    tau: float
    omega: float
    c_x: float
    epsilon_laplace: float
    epsilon_sketch: float
    delta_sketch: float
    delta_failure: float
    alpha: float
    bound: str
    method: str

    def ledger_entries(self) -> tuple:
        """The spends of one run, to be recorded in a :class:`~fastmix.accounting.PrivacyLedger`."""
        T = self.n_draws
        entries = []
        for t in range(T):
            tag = f" (draw {t + 1}/{T})" if T > 1 else ""
            entries.append(
                acc.ledger_entry(
                    f"Laplace release of m_tilde{tag}",
                    1.0 / self.omega,
                    0.0,
                    relation=acc.ZERO_OUT,
                    source="Algorithm 1 line 3; sensitivity Delta_hat (Lemma 4)",
                    details=(("omega", self.omega), ("tau", self.tau)),
                )
            )
            entries.append(
                acc.ledger_entry(
                    f"Laplace release of lambda_tilde{tag}",
                    1.0 / self.omega,
                    0.0,
                    relation=acc.ZERO_OUT,
                    source="Algorithm 1 line 4; sensitivity Lambda_hat + 2 m_tilde (Lemma 5)",
                    details=(("omega", self.omega), ("tau", self.tau)),
                )
            )
        entries.append(
            acc.ledger_entry(
                f"FastMix sketch{'es' if T > 1 else ''} ({T} x {self.k1} Gaussian rows)",
                self.epsilon_sketch,
                self.delta_sketch,
                relation=acc.ZERO_OUT,
                source=f"Lemma 1 ({'phi_bar, eq. 115' if self.bound == 'bar' else self.bound}), RDP composition, "
                "Proposition 1 (eq. 113/185)",
                details=(("gamma", self.gamma), ("alpha", self.alpha), ("k1", self.k1), ("T", T)),
            )
        )
        entries.append(
            acc.ledger_entry(
                "Laplace shift failure event",
                0.0,
                self.delta_failure,
                relation=acc.ZERO_OUT,
                source="eq. (112) and Lemma 6: P(z >= tau) = exp(-tau)/2 per estimate",
                details=(("tau", self.tau), ("draws", T)),
            )
        )
        return tuple(entries)


def calibrate_fast_mix(
    epsilon,
    delta,
    *,
    k1,
    n_draws: int = 1,
    laplace_share: float = 0.5,
    failure_share: float = 2.0 / 3.0,
    bound: str = "bar",
    method: str = "tight",
    c_x: float = 1.0,
    tau_min: float | None = None,
) -> FastMixCalibration:
    """Choose (gamma, tau, omega) so that FastMix / MultipleFastMixing is (epsilon, delta)-DP.

    The split follows Theorem 1 (T = 1: ``tau = log(3/(2 delta))`` from a failure share of
    2/3, the sketch converted at delta/3) and Theorem 2 (T draws, ``omega = 6T/epsilon`` when
    the Laplace share is 1/3). In general::

        omega = 2T / (laplace_share * epsilon)
        tau   = log(T / (failure_share * delta))
        gamma = smallest value with  min_alpha T k1 phi(alpha; gamma) + conv(alpha, delta_sketch)
                                     <= (1 - laplace_share) epsilon      ("tight", eq. 114/185)
                or the closed form of Appendix D (eq. 134) solved for gamma  ("closed_form").

    Parameters
    ----------
    epsilon, delta : float
        Target guarantee for the whole run of ``n_draws`` FastMix draws.
    k1 : int
        Rows of the Gaussian sketch.
    n_draws : int, default=1
        Number T of draws (Algorithm 3 / FastIHM use T).
    laplace_share : float in (0, 1), default=0.5
        Fraction of epsilon given to the 2T Laplace releases; the rest goes to the sketches.
    failure_share : float in (0, 1), default=2/3
        Fraction of delta given to the Laplace failure event; the rest to the RDP conversion.
    bound : {"bar", "simple"}, default="bar"
        Renyi bound of Lemma 1 used for the sketches: phi_bar (eq. 115, tightest closed form
        valid for every X) or 25 alpha / (32 gamma^2) (eq. 8).
    method : {"tight", "closed_form"}, default="tight"
    c_x : float, default=1.0
        Public row-norm bound C_X (Algorithm 3 scales the sensitivities by it).
    tau_min : float, optional
        Lower bound on tau, e.g. ``log(16 T / rho)`` for the utility event of Theorem 2
        (eq. 176). A larger tau only lowers the failure probability, which is recorded exactly.
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    k1 = check_positive_int(k1, "k1")
    T = check_positive_int(n_draws, "n_draws")
    laplace_share = check_probability(laplace_share, "laplace_share")
    failure_share = check_probability(failure_share, "failure_share")
    c_x = check_positive(c_x, "c_x")
    if bound not in ("bar", "simple"):
        raise ValueError(f"bound must be 'bar' or 'simple'; got {bound!r}.")
    eps_lap = laplace_share * epsilon
    omega = 2.0 * T / eps_lap
    delta_fail = failure_share * delta
    tau = math.log(T / delta_fail)
    if tau_min is not None:
        tau = max(tau, check_positive(tau_min, "tau_min", allow_zero=True))
    eps_sk = epsilon - eps_lap
    delta_sk = delta - delta_fail
    if method == "tight":
        gamma = acc.fastmix_gamma_for_epsilon(eps_sk, delta_sk, k1, compositions=T, bound=bound)
    elif method == "closed_form":
        gamma = acc.fastmix_gamma_closed_form(eps_sk, delta_sk, k1, compositions=T)
    else:
        raise ValueError(f"method must be 'tight' or 'closed_form'; got {method!r}.")
    spent, alpha = acc.fastmix_sketch_epsilon(gamma, k1, delta_sk, compositions=T, bound=bound)
    # What is recorded is what the run actually costs (2T/omega, the sketch epsilon at gamma,
    # T exp(-tau)). Nudge omega and tau up by a few ulps where rounding would otherwise let the
    # ledger total exceed the target in the last digit.
    for _ in range(64):
        if math.fsum([1.0 / omega] * (2 * T) + [spent]) <= epsilon:
            break
        omega = math.nextafter(omega, math.inf)
    for _ in range(64):
        if math.fsum([delta_sk, T * math.exp(-tau)]) <= delta:
            break
        tau = math.nextafter(tau, math.inf)
    return FastMixCalibration(
        epsilon=epsilon,
        delta=delta,
        k1=k1,
        n_draws=T,
        gamma=gamma,
        tau=tau,
        omega=omega,
        c_x=c_x,
        epsilon_laplace=2.0 * T / omega,
        epsilon_sketch=spent,
        delta_sketch=delta_sk,
        delta_failure=T * math.exp(-tau),
        alpha=alpha,
        bound=bound,
        method=method,
    )


@dataclass(frozen=True)
class FastMixDrawOptions:
    """Options of a FastMix draw that leave its guarantee unchanged (FastMix paper, Algorithms 1 and 3).

    One draw is Algorithm 1, lines 2-5 (Algorithm 3, lines 3-9, in MultipleFastMixing): an SRHT
    ``S_f`` with k2 rows, ``Z = S_f X``, and the noise level from the Laplace-shifted estimates
    ``m_tilde``, ``lambda_tilde``. :func:`fastmix.mechanisms.fast_mix`,
    :func:`fastmix.mechanisms.multiple_fast_mixing` and :func:`fastmix.regression.fast_ihm` take the
    two fields as keywords of the same names and build this record once, before the data are read;
    it then travels unchanged to every draw (and to the Dask routes of ``fastmix.chunked.routes``).
    Neither field changes what the generator draws, nor in which order.

    Attributes
    ----------
    m_floor : float, default=0.0
        Lower clamp of ``m_tilde = max{m_floor, m_hat + omega C_X Delta_hat (tau - z1)}``
        (Algorithm 1, line 3; Algorithm 3, line 7). The algorithms write 0; Appendix C.4 and the
        authors' figures use 1. A larger floor only raises ``eta_tilde`` (more noise), so either
        keeps the guarantee. A finite real number ``>= 0``, stored as a float.
    backend : str or None, default=None
        Walsh-Hadamard backend that applies ``S_f`` (line 2): None for the active default
        (:func:`fastmix.hadamard.get_backend`), or one of
        :func:`fastmix.hadamard.available_backends`. It changes the speed, not the sketch (up to
        the order of floating-point sums).

    Raises
    ------
    TypeError
        ``m_floor`` is not a real number, or ``backend`` is neither None nor a string.
    ValueError
        ``m_floor`` is negative, infinite or NaN, or ``backend`` names no installed backend.
    """

    m_floor: float = 0.0
    backend: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "m_floor", check_positive(self.m_floor, "m_floor", allow_zero=True))
        backend = self.backend
        if backend is None:
            return
        if not isinstance(backend, str):
            raise TypeError(
                f"backend must be None or the name of a Walsh-Hadamard backend; got {backend!r} of type "
                f"{type(backend).__name__}."
            )
        installed = available_backends()
        if backend not in installed:
            raise ValueError(
                f"backend must be None (the active default, fastmix.hadamard.get_backend()) or one of the "
                f"Walsh-Hadamard backends installed here, {', '.join(map(repr, installed))}; got {backend!r}."
            )


@dataclass(frozen=True)
class FastMixRelease:
    """Output of one FastMix draw (Algorithm 1) and its diagnostics.

    Private outputs (safe to publish together): ``sketch``, ``eta_tilde``, ``m_tilde``,
    ``lambda_tilde`` (the last three are post-processing of the Laplace releases).

    Diagnostics computed from the raw data (NOT private; for research and tests only):
    ``m_hat``, ``delta_hat`` and ``Lambda_hat`` (public: they depend on S_f only),
    ``lambda_min`` = lambda_min(Z^T Z).

    ``rechunking`` is None for an in-memory X; for a Dask X it records how the row chunks were
    made aligned powers of two (:class:`fastmix.chunked.Rechunking`, padding included).
    """

    sketch: np.ndarray
    eta_tilde: float
    m_tilde: float
    lambda_tilde: float
    m_hat: float
    delta_hat: float
    Lambda_hat: float
    lambda_min: float
    gamma: float
    k1: int
    k2: int
    n: int
    d: int
    padding: PowerOfTwoRecord
    row_norms: NormEnforcement
    ledger_entries: tuple = field(repr=False)
    rechunking: Rechunking | None = None

    @property
    def gamma_effective(self) -> float:
        """(lambda_min + eta_tilde^2) / C^2_{S_f X}: the gamma of eq. (7) this draw achieved.

        ``C^2_{S_f X} = C_X (C_X + 2 m_hat)`` (Lemma 1 with the row-norm bound ``C_X``, which is
        ``row_norms.bound``; ``1 + 2 m_hat`` for ``C_X = 1``), the same factor Algorithm 1 line 5
        multiplies gamma by. At least ``gamma`` whenever the Laplace-shifted estimates landed on
        the safe side.
        """
        c = self.row_norms.bound
        return (self.lambda_min + self.eta_tilde**2) / (c * (c + 2.0 * self.m_hat))

    def private_outputs(self) -> dict:
        return {
            "sketch": self.sketch,
            "eta_tilde": self.eta_tilde,
            "m_tilde": self.m_tilde,
            "lambda_tilde": self.lambda_tilde,
        }


def _private_noise_level(
    q: SketchQuantities, cal: FastMixCalibration, rng: np.random.Generator, options: FastMixDrawOptions
) -> tuple[float, float, float]:
    """Algorithm 1 lines 3-5 (Algorithm 3 lines 7-9 with C_X): m_tilde, lambda_tilde, eta_tilde."""
    z1, z2 = laplace_pair(rng)
    return noise_level_from(q, cal, z1, z2, options.m_floor)


def laplace_pair(rng: np.random.Generator):
    """The two standard Laplace draws z1, z2 of Algorithm 1, lines 3-4 (data-independent)."""
    return rng.laplace(0.0, 1.0, size=2)


def noise_level_from(q: SketchQuantities, cal: FastMixCalibration, z1, z2, m_floor: float):
    """Algorithm 1 lines 3-5 for given Laplace draws z1, z2: m_tilde, lambda_tilde, eta_tilde."""
    c = cal.c_x
    m_tilde = max(m_floor, q.m_hat + cal.omega * c * q.delta_hat * (cal.tau - z1))
    lambda_tilde = max(0.0, q.lambda_min - cal.omega * c * (c * q.Lambda_hat + 2.0 * m_tilde) * (cal.tau - z2))
    eta_tilde = math.sqrt(max(0.0, cal.gamma * c * (c + 2.0 * m_tilde) - lambda_tilde))
    return m_tilde, lambda_tilde, eta_tilde


@dask_route("mechanisms.sketch_draw", on="X")
def _sketch_draw(X, k2: int, rng: np.random.Generator, options: FastMixDrawOptions) -> SketchQuantities:
    """Algorithm 1, line 2: draw ``SRHT(n, k2, random_state=rng)`` and sketch X with it (``options.backend``).

    For a Dask X, ``fastmix.chunked.routes`` takes the same draw and applies it chunk by chunk.
    """
    srht = SRHT(X.shape[0], k2, random_state=rng, backend=options.backend)
    with blas_limit():
        return sketch_quantities(X, srht, check_input=False)


def fast_mix(
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
    gaussian_step: str = "explicit",
) -> FastMixRelease:
    """FastMix, Algorithm 1 of the FastMix paper.

    1. Draw an SRHT ``S_f`` with k2 rows; compute ``Z = S_f X``, ``m_hat``, ``Delta_hat``,
       ``Lambda_hat`` and ``lambda_min(Z^T Z)`` (line 2; :func:`fastmix.srht.sketch_quantities`).
    2. ``m_tilde = max{0, m_hat + omega Delta_hat (tau - z1)}`` (line 3).
    3. ``lambda_tilde = max{0, lambda_min - omega (Lambda_hat + 2 m_tilde)(tau - z2)}`` (line 4).
       The two Laplace scales are the l1 sensitivities of ``m_hat`` (``Delta_hat``, Lemma 4) and
       of ``lambda_min`` (``Lambda_hat + 2 m``, Lemma 5), times omega.
    4. ``eta_tilde = sqrt(max{0, gamma (1 + 2 m_tilde) - lambda_tilde})`` (line 5).
    5. Release ``S_G Z + eta_tilde xi`` with ``S_G`` k1 x k2 and ``xi`` k1 x d standard
       Gaussian (line 6).

    With the calibration's (gamma, tau, omega) the release is (epsilon, delta)-DP with respect
    to X under zero-out neighbouring (Theorem 1). Runtime O(n d log n + k1 k2 d + k2 d^2 + d^3).

    **Dask input.** X may be a Dask array chunked along rows (one column chunk). The checks run in
    one pass over its chunks, zero rows are appended lazily where n is not a power of two (recorded
    in ``padding`` as in memory), the row chunks are made aligned powers of two (recorded in
    ``rechunking``) and line 2 runs chunk by chunk (:func:`fastmix.chunked.chunked_sketch_draws`):
    only the k2 x d sketch and scalars reach the client, where the Laplace and Gaussian steps are
    drawn. The SRHT (:class:`fastmix.chunked.ChunkedSRHT`) consumes the generator exactly as the
    in-memory one, so the same ``random_state`` gives the same release, in any chunking, up to the
    order of floating-point sums. The result is the same :class:`FastMixRelease` of NumPy arrays.

    Parameters
    ----------
    X : array-like of shape (n, d), or a Dask array chunked along rows
        Rows must satisfy ``||x_i|| <= calibration.c_x``. Fortran order avoids a transpose copy.
    calibration : FastMixCalibration
        From :func:`calibrate_fast_mix` with ``n_draws=1``.
    k2 : int
        SRHT rows, ``1 <= k2 <= n``.
    random_state : None, int, SeedSequence or Generator
        Source of every random draw (SRHT, Laplace, Gaussian).
    ledger : PrivacyLedger, optional
        The calibrated budget is spent here before anything is released; the call fails
        before touching the data if the ledger cannot afford it.
    row_norm_policy, n_policy : str
        See :func:`prepare_data` (for a Dask X: ``"raise"`` or ``"clip"``, and ``"pad"`` or ``"raise"``;
        see :func:`fastmix.chunked.mechanisms.prepare_chunked`).
    m_floor : float, default=0.0
        Lower clamp of ``m_tilde``: 0 as in Algorithm 1; Appendix C.4 writes 1. A larger floor
        only adds noise, so either choice keeps the guarantee (:class:`FastMixDrawOptions`).
    backend : str, optional
        Walsh-Hadamard backend of ``S_f``; None for the active default (:class:`FastMixDrawOptions`).
    gaussian_step : {"explicit", "gram"}, default="explicit"
        How line 6 is sampled; see :func:`mix_sketch` (same output law either way).

    Returns
    -------
    FastMixRelease
        NumPy arrays and floats, for an in-memory and a Dask X alike.
    """
    _check_calibration(calibration, FastMixCalibration, "calibrate_fast_mix(epsilon, delta, k1=...)", "fast_mix")
    check_policy(gaussian_step, "gaussian_step", GAUSSIAN_STEPS)
    if calibration.n_draws != 1:
        raise ValueError(
            f"This calibration covers {calibration.n_draws} draws composed together; use "
            "multiple_fast_mixing for several draws, or calibrate_fast_mix(..., n_draws=1) for one."
        )
    options = FastMixDrawOptions(m_floor=m_floor, backend=backend)
    caveats = policy_caveats(row_norm_policy=row_norm_policy)
    entries = mark_not_private(calibration.ledger_entries(), caveats)
    if ledger is not None:
        ledger.check_spend_all(entries)  # refused before the data are read
    data, rechunking = prepare_any(X, c_x=calibration.c_x, row_norm_policy=row_norm_policy, n_policy=n_policy)
    n, d = data.X.shape
    k2 = _check_k2(k2, n)
    rng = check_random_state(random_state)
    warn_not_private(caveats, "This FastMix release")
    if ledger is not None:
        ledger.spend_all(entries)
    q = _sketch_draw(data.X, k2, rng, options)
    m_tilde, lambda_tilde, eta_tilde = _private_noise_level(q, calibration, rng, options)
    sketch = mix_sketch(q.Z, eta_tilde, calibration.k1, rng, method=gaussian_step)
    return FastMixRelease(
        sketch=sketch,
        eta_tilde=eta_tilde,
        m_tilde=m_tilde,
        lambda_tilde=lambda_tilde,
        m_hat=q.m_hat,
        delta_hat=q.delta_hat,
        Lambda_hat=q.Lambda_hat,
        lambda_min=q.lambda_min,
        gamma=calibration.gamma,
        k1=calibration.k1,
        k2=k2,
        n=n,
        d=d,
        padding=data.padding,
        row_norms=data.row_norms,
        ledger_entries=entries,
        rechunking=rechunking,
    )
