"""IHM: iterative Hessian mixing with a dense Gaussian sketch, its calibration and the blocked Gaussian sketch.

Lev et al. (2026); the FastMix paper's private accuracy and speed baseline (Section 4), run with
the Gaussian mixing mechanism of Proposition 2 in place of FastMix.
"""

from __future__ import annotations

import functools
import math
import warnings
from dataclasses import dataclass

import numpy as np
from scipy import special as sps

from .. import accounting as acc
from .._validation import (
    check_delta,
    check_epsilon,
    check_matrix,
    check_policy,
    check_positive,
    check_positive_int,
    check_random_state,
    dask_route,
    mark_not_private,
    policy_caveats,
    warn_not_private,
)
from ..accounting import analytic_gaussian_epsilon
from .data import N_POLICIES, prepare_regression
from .gradient_noise import _gradient_entry, _gradient_noise_tight, _rho_default
from .result import RegressionResult, _clipped_gradient, _solve_spd, _unscale_theta, gram


@dataclass(frozen=True)
class IHMCalibration:
    """Noise of IHM (Lev et al. 2026) with a dense k-row Gaussian sketch.

    Budget (the split of the authors' code, with the analytic Gaussian mechanism throughout):

    * ``epsilon/2`` for the T sketches ``S_t X + sigma_t N_t`` together with the single private
      release of ``lambda_min(X^T X)``: gamma is the smallest value with

          eps_sketch(gamma) + eps_eig(gamma) <= epsilon / 2,

      ``eps_sketch`` = T k Gaussian-mixing rows (Proposition 2, eq. 5, composed in RDP and
      converted with Proposition 1 at delta/4), ``eps_eig`` = the analytic-Gaussian epsilon at
      delta/4 of releasing lambda_min (sensitivity 1 under zero-out with ||x_i|| <= 1) with noise
      std ``gamma / sqrt(k)``. The authors' code uses the classical Gaussian formula
      ``sqrt(2 log(1.25/delta')) sqrt(k)/gamma`` for ``eps_eig``, which is only proved for
      eps_eig < 1 (Dwork & Roth, Theorem A.1); the analytic version is valid for every epsilon and
      never larger.
    * ``lambda_tilde = max(0, lambda_min - (gamma/sqrt k)(tau - Z))`` undershoots lambda_min
      except with probability ``Q(tau)`` (standard normal tail), ``tau = max(Q^{-1}(delta/4),
      sqrt(2 log(2/rho)))``; that probability is charged to delta. Then
      ``sigma^2 = max(0, gamma - lambda_tilde)`` gives ``lambda_min + sigma^2 >= gamma``.
    * ``epsilon/2`` and delta/4 for the gradient noise: ``sigma_g = sqrt(T) sigma_AG(epsilon/2,
      delta/4, C)``.
    """

    epsilon: float
    delta: float
    k: int
    T: int
    rho: float
    clip: float
    gamma: float
    eig_noise: float
    tau: float
    sigma_gradient: float
    epsilon_sketch: float
    epsilon_eig: float
    epsilon_gradient: float
    delta_sketch: float
    delta_eig: float
    delta_failure: float
    delta_gradient: float

    @property
    def sigma(self) -> float:
        """Alias of ``sigma_gradient`` (the paper's sigma)."""
        return self.sigma_gradient

    def ledger_entries(self) -> tuple:
        return (
            acc.ledger_entry(
                f"Gaussian sketches ({self.T} x {self.k} rows)",
                self.epsilon_sketch,
                self.delta_sketch,
                relation=acc.ZERO_OUT,
                source="Proposition 2 (eq. 5), RDP composition over T k rows, Proposition 1",
                details=(("gamma", self.gamma), ("k", self.k), ("T", self.T)),
            ),
            acc.ledger_entry(
                "Gaussian release of lambda_min(X^T X)",
                self.epsilon_eig,
                self.delta_eig,
                relation=acc.ZERO_OUT,
                source="analytic Gaussian mechanism (Balle & Wang 2018), sensitivity 1",
                details=(("noise_std", self.eig_noise), ("sensitivity", 1.0)),
            ),
            acc.ledger_entry(
                "lambda_tilde shift failure event",
                0.0,
                self.delta_failure,
                relation=acc.ZERO_OUT,
                source="P(Z > tau) for Z ~ N(0,1); cf. Lemma 6",
                details=(("tau", self.tau),),
            ),
            _gradient_entry(
                self.T,
                self.sigma_gradient,
                self.clip,
                self.epsilon_gradient,
                self.delta_gradient,
                "eq. (179) sensitivity C; T-fold GDP composition = one analytic Gaussian mechanism",
            ),
        )

    def ledger(self, name: str = "IHM", caveats: tuple = ()) -> acc.PrivacyLedger:
        """A ledger of target ``(epsilon, delta)`` holding this calibration's entries (marked not
        private with ``caveats``, the reasons an option broke the guarantee, when there are any)."""
        led = acc.PrivacyLedger(self.epsilon, self.delta, relation=acc.ZERO_OUT, name=name)
        led.spend_all(mark_not_private(self.ledger_entries(), caveats))
        return led


def calibrate_ihm(epsilon, delta, *, k, T: int = 4, rho=None, clip: float = 1.0) -> IHMCalibration:
    """Calibrate IHM (see :class:`IHMCalibration` for the formulas and the budget split).

    The calibration depends on these public numbers only, so it is computed once per distinct
    argument tuple in a process and reused (refits with other seeds, a grid's candidates,
    repeated trials); the result is a frozen record, so sharing it is safe.
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    k = check_positive_int(k, "k")
    T = check_positive_int(T, "T")
    rho = _rho_default(rho, delta)
    clip = check_positive(clip, "clip")
    return _calibrate_ihm(epsilon, delta, k, T, rho, clip)


@functools.lru_cache(maxsize=512)
def _calibrate_ihm(epsilon: float, delta: float, k: int, T: int, rho: float, clip: float) -> IHMCalibration:
    d4 = delta / 4.0
    half = epsilon / 2.0

    def total(g):
        e_sk = acc.gaussian_sketch_epsilon(g, k, d4, compositions=T)[0]
        return e_sk + analytic_gaussian_epsilon(g / math.sqrt(k), d4, 1.0)

    hi = max(4.0, 2.0 * T * k * math.log(1.25 / d4) / half**2, math.sqrt(k) * 10.0 / half)
    gamma = acc.smallest_feasible(total, half, 1.0 + 1e-9, hi, rtol=1e-9)
    e_sk = acc.gaussian_sketch_epsilon(gamma, k, d4, compositions=T)[0]
    eig_noise = gamma / math.sqrt(k)
    e_eig = analytic_gaussian_epsilon(eig_noise, d4, 1.0)
    # Q^{-1}(d) = -ndtri(d) (ndtri(1 - d) would round to inf for tiny d)
    tau = max(float(-sps.ndtri(d4)), math.sqrt(2.0 * math.log(2.0 / rho)))
    d_fail = float(sps.ndtr(-tau))
    sigma_g, d_grad = _gradient_noise_tight(half, d4, T, clip)
    return IHMCalibration(
        epsilon=epsilon,
        delta=delta,
        k=k,
        T=T,
        rho=rho,
        clip=clip,
        gamma=gamma,
        eig_noise=eig_noise,
        tau=tau,
        sigma_gradient=sigma_g,
        epsilon_sketch=e_sk,
        epsilon_eig=e_eig,
        epsilon_gradient=half,
        delta_sketch=d4,
        delta_eig=d4,
        delta_failure=d_fail,
        delta_gradient=d_grad,
    )


def ihm_gamma_classical_eigenvalue(epsilon, delta, *, k, T: int = 4) -> float:
    """IHM's gamma when the ``lambda_min`` release is accounted as in the authors' code.

    Same budget split as :func:`calibrate_ihm` (``epsilon/2`` and ``delta/4`` for the sketches
    and the eigenvalue release), but with the classical Gaussian-mechanism bound
    ``eps_eig = sqrt(2 log(1.25/delta')) sqrt(k) / gamma`` (Dwork & Roth, Theorem A.1; only
    proved for ``eps_eig < 1``) in place of the analytic one (Balle & Wang 2018). The analytic
    bound is never larger, so this gamma is never smaller than ``calibrate_ihm(...).gamma``;
    it exists to say how much the analytic mechanism saves, not to be used for a release.
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    k = check_positive_int(k, "k")
    T = check_positive_int(T, "T")
    d4 = delta / 4.0
    half = epsilon / 2.0
    c = math.sqrt(2.0 * math.log(1.25 / d4)) * math.sqrt(k)

    def total(g):
        return acc.gaussian_sketch_epsilon(g, k, d4, compositions=T)[0] + c / g

    hi = max(4.0, 2.0 * T * k * math.log(1.25 / d4) / half**2, 10.0 * c / half)
    return acc.smallest_feasible(total, half, 1.0 + 1e-9, hi, rtol=1e-9)


_NO_ARGUMENT = object()


def _deprecated_rng(random_state, rng, function: str):
    """Resolve the deprecated keyword ``rng`` of ``function`` into ``random_state``."""
    if rng is _NO_ARGUMENT:
        return random_state
    if random_state is not None:
        raise TypeError(f"{function} got both random_state and its deprecated alias rng; pass random_state only.")
    warnings.warn(
        f"The keyword rng of {function} is deprecated and will be removed in the next minor version; pass "
        "random_state instead (None, an int, a SeedSequence or a numpy.random.Generator, as everywhere in fastmix).",
        FutureWarning,
        stacklevel=3,
    )
    return rng


def gaussian_sketch_blocked(
    X, k: int, random_state=None, *, block_rows: int = 1 << 14, out: np.ndarray | None = None, rng=_NO_ARGUMENT
) -> np.ndarray:
    """``S X`` for a k x n matrix S of i.i.d. N(0, 1) entries, never holding S at once.

    ``random_state`` (None, int, SeedSequence or Generator) is the source of S; a Generator is
    used as it is, so its stream continues. ``rng`` is a deprecated alias of ``random_state``.

    S is defined through its transpose: the stream ``rng.standard_normal((n, k))`` filled in
    row-major order is ``S^T``. Row block ``[a, b)`` of ``S^T`` is the next ``(b - a) k`` numbers
    of the stream, so generating blocks in order and accumulating ``S^T[a:b].T @ X[a:b]`` gives the
    same S as the unblocked draw (up to floating-point summation order). Each block is written
    into one preallocated buffer (``standard_normal(out=...)``) and multiplied by BLAS GEMM.
    Memory: ``min(block_rows, n d / k) * k`` doubles, i.e. at most the size of X. Time: O(n k d)
    flops plus n k normal draws, the latter dominating for small d.
    """
    rng = check_random_state(_deprecated_rng(random_state, rng, "gaussian_sketch_blocked"))
    X = check_matrix(X, "X")
    k = check_positive_int(k, "k")
    block_rows = check_positive_int(block_rows, "block_rows")
    n, d = X.shape
    if out is not None and (not isinstance(out, np.ndarray) or out.shape != (k, d) or out.dtype != np.float64):
        raise ValueError(
            f"out must be a float64 ndarray of shape (k, d) = ({k}, {d}); got "
            f"{getattr(out, 'shape', type(out).__name__)}."
        )
    # block of at most block_rows rows, and never a buffer larger than X itself
    b = max(1, min(int(block_rows), n, max(64, (n * d) // max(k, 1))))
    buf = np.empty((b, k))
    SX = np.zeros((k, d)) if out is None else out
    if out is not None:
        SX.fill(0.0)
    tmp = np.empty((k, d))
    for a in range(0, n, b):
        stop = min(n, a + b)
        G = buf if stop - a == b else np.empty((stop - a, k))
        rng.standard_normal(out=G)
        np.matmul(G.T, X[a:stop], out=tmp)
        SX += tmp
    return SX


@dask_route("regression.dense_sketch_input", on="X")
def _check_dense_sketch_input(X) -> None:
    """Nothing for an in-memory X; a Dask X is refused (``sketch='dense'`` needs X in memory)."""


def _gram_sqrt(X: np.ndarray) -> tuple[np.ndarray, float]:
    """(X^T X)^{1/2} (symmetric square root) and lambda_min(X^T X)."""
    Gm = gram(X)
    w, V = np.linalg.eigh(Gm)
    lam_min = float(max(w[0], 0.0))
    R = (V * np.sqrt(np.clip(w, 0.0, None))) @ V.T
    return R, lam_min


def ihm(
    X,
    y,
    *,
    epsilon=None,
    delta=None,
    k: int | None = None,
    T: int = 4,
    rho=None,
    clip: float = 1.0,
    calibration=None,
    random_state=None,
    row_norm_policy: str = "raise",
    y_policy: str = "raise",
    n_policy: str = "none",
    sketch: str = "dense",
    block_rows: int = 1 << 14,
    omit_eta_term: bool = True,
    ledger=None,
):
    """Iterative Hessian mixing (IHM) of Lev et al. (2026) with a dense Gaussian sketch.

    Once: release ``lambda_tilde = max(0, lambda_min(X^T X) - (gamma/sqrt k)(tau - Z))`` and set
    ``sigma_s^2 = max(0, gamma - lambda_tilde)``. Then for t = 0..T-1 (theta_0 = 0)::

        X_t     = S_t X + sigma_s N_t             S_t: k x n, N_t: k x d, i.i.d. N(0, 1)
        G_t     = X^T clip_C(y - X theta_t) + sigma_g zeta_t   [- sigma_s^2 theta_t if omit_eta_term=False]
        theta_t+1 = theta_t + (X_t^T X_t / k)^{-1} G_t

    (the same Newton-type update as Algorithm 2 of the FastMix paper, with the Gaussian mixing
    mechanism of Proposition 2 in place of FastMix). Calibration: :func:`calibrate_ihm`.

    Parameters
    ----------
    X, y : array-like, or Dask arrays chunked along rows
        With Dask arrays (``sketch="gram"`` only) the checks, ``X^T X`` and each gradient are
        computed chunk by chunk; every random draw happens here, in the same order as for a NumPy
        X, so the same seed gives the same estimate up to the order of floating-point sums.
    sketch : {"dense", "gram"}, default="dense"
        ``"dense"`` draws S_t in row blocks (:func:`gaussian_sketch_blocked`): O(T k n d) flops
        and T k n normal draws, never more than ``block_rows * k`` of them in memory.
        ``"gram"`` draws ``G_t (X^T X)^{1/2}`` with G_t a k x d standard Gaussian matrix instead:
        each row of ``S_t X`` is N(0, X^T X) and rows are independent, so this has exactly the
        same distribution - hence the same privacy - at O(n d^2 + T k d^2) cost. It is the
        fastest honest way to run the mechanism; ``"dense"`` is the algorithm as stated and run
        in the papers' comparisons.
    n_policy : {"none", "pad", "subsample", "raise"}, default="none"
        IHM needs no power of two; other values exist to run it on exactly the rows FastIHM uses.
    ledger : PrivacyLedger, optional
        An outer ledger to charge as well (fails before touching the data if over budget).

    Returns
    -------
    result : RegressionResult
        ``result.theta`` (shape ``(d,)``) is the estimate.
    """
    rng = check_random_state(random_state)
    if calibration is None:
        if epsilon is None or delta is None:
            raise ValueError("ihm needs epsilon and delta, or a precomputed calibration=calibrate_ihm(...).")
        if k is None:
            raise ValueError("ihm needs k (Gaussian rows), e.g. paper_sketch_sizes(d, T, rho)[0].")
        calibration = calibrate_ihm(epsilon, delta, k=k, T=T, rho=rho, clip=clip)
    elif not isinstance(calibration, IHMCalibration):
        raise TypeError(f"calibration must be an IHMCalibration; got {type(calibration).__name__}.")
    elif k is not None and int(k) != calibration.k:
        raise ValueError(f"k = {k} differs from the calibration's k = {calibration.k}; recalibrate.")
    cal = calibration
    k, T, clip = cal.k, cal.T, cal.clip
    check_policy(sketch, "sketch", ("dense", "gram"))
    check_policy(n_policy, "n_policy", ("none",) + N_POLICIES)
    caveats = policy_caveats(row_norm_policy=row_norm_policy, y_policy=y_policy)
    entries = mark_not_private(cal.ledger_entries(), caveats)
    if ledger is not None:
        ledger.check_spend_all(entries)  # refused before the data are read
    data = prepare_regression(
        X,
        y,
        clip=clip,
        row_norm_policy=row_norm_policy,
        y_policy=y_policy,
        n_policy="pad" if n_policy == "none" else n_policy,
        random_state=rng,
        power_of_two=n_policy != "none",
    )
    Xp, yp = data.X, data.y
    d = Xp.shape[1]
    if sketch == "dense":
        _check_dense_sketch_input(Xp)
    warn_not_private(caveats, "This IHM fit")
    if ledger is not None:
        ledger.spend_all(entries)
    ledger = cal.ledger("IHM", caveats)
    R, lam_min = _gram_sqrt(Xp)
    lam_tilde = max(0.0, lam_min - cal.eig_noise * (cal.tau - rng.standard_normal()))
    sigma_s = math.sqrt(max(0.0, cal.gamma - lam_tilde))
    theta = np.zeros(d)
    iterates = []
    SX = np.empty((k, d))
    for _ in range(T):
        if sketch == "dense":
            gaussian_sketch_blocked(Xp, k, rng, block_rows=block_rows, out=SX)
        else:
            np.matmul(rng.standard_normal((k, d)), R, out=SX)
        Xt = SX + sigma_s * rng.standard_normal((k, d))
        H = (Xt.T @ Xt) / k
        g = _clipped_gradient(Xp, yp, theta, clip)
        if not omit_eta_term:
            g -= sigma_s**2 * theta
        g += cal.sigma_gradient * rng.standard_normal(d)
        theta = theta + _solve_spd(H, g)
        iterates.append(theta.copy())
    theta_out = _unscale_theta(theta, data.record)
    diag = {
        "k": k,
        "T": T,
        "gamma": cal.gamma,
        "sigma_sketch": sigma_s,
        "lambda_tilde": lam_tilde,
        "lambda_min_nonprivate": lam_min,
        "sigma_gradient": cal.sigma_gradient,
        "sketch": sketch,
        "omit_eta_term": omit_eta_term,
    }
    return RegressionResult(theta_out, "IHM", data.record, ledger, cal, diag, iterates)
