"""Private (and non-private) least squares: OLS, FastIHS, IHM, FastIHM and AdaSSP.

Section 4 of the FastMix paper (Lev, Shenfeld, Srinivasan, Ligett and Wilson 2026, arXiv:2605.30600) applies
FastMix to differentially private ordinary least squares. This module holds

* :func:`ols` - the exact least-squares solution ``theta* = argmin ||y - X theta||^2``
  (LAPACK ``gelsd``), the reference of every excess-risk number;
* :func:`fast_ihs` - the iterative Hessian sketch of Pilanci & Wainwright (2016) with a fresh
  SRHT every iteration, the paper's non-private speed baseline ("FastIHS", Section 4.1);
* :func:`ihm` - iterative Hessian mixing of Lev et al. (2026) with a dense Gaussian sketch,
  the private accuracy and speed baseline;
* :func:`fast_ihm` - FastIHM, Algorithm 2 of the FastMix paper, with MultipleFastMixing
  (Algorithm 3) inside;
* :func:`adassp` - AdaSSP of Wang (2018), the classical private baseline;
* calibrations (:func:`calibrate_fast_ihm`, :func:`calibrate_ihm`, :func:`calibrate_adassp`)
  that return every noise parameter with a :class:`~fastmix.accounting.PrivacyLedger` whose
  total is at most the target ``(epsilon, delta)``;
* scikit-learn estimators (:class:`FastIHMRegressor`, :class:`IHMRegressor`,
  :class:`FastIHSRegressor`, :class:`AdaSSPRegressor`).

Setting and conventions
-----------------------
Neighbouring datasets differ by zeroing out one record (FastMix paper, Section 2.1). Rows
must satisfy ``||x_i|| <= 1`` (C_X = 1) and responses ``|y_i| <= C`` (the clipping level
``clip``); both are checked, and out-of-range records are an error unless a policy asks to
clip them (a per-record map, so privacy is kept) or to rescale by the observed maximum
(convenient for public data, **not** private). Whatever was done is recorded in the result.

The Walsh-Hadamard transform needs ``n`` to be a power of two. By default the data are padded
with zero rows and zero responses: a zero record is the same as an absent one under zero-out
neighbouring and contributes nothing to ``X^T X``, ``X^T y`` or ``X^T clip(y - X theta)``, so
padding changes neither the problem nor the guarantee. ``n_policy="subsample"`` instead keeps a
uniformly random subset of ``2^floor(log2 n)`` rows (what the authors' code does) and records
how many rows were dropped.

There is no intercept (the paper's setting); add a constant column scaled to keep row norms
at most one if you need one.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np
from scipy import linalg as sla
from scipy import special as sps

from . import accounting as acc
from ._validation import (
    ROW_NORM_POLICIES,
    NormEnforcement,
    PrivacyWarning,
    _is_sparse,
    check_delta,
    check_epsilon,
    check_matrix,
    check_policy,
    check_positive,
    check_positive_int,
    check_probability,
    check_random_state,
    check_row_norms,
    check_vector,
    row_norms,
)
from .hadamard import PowerOfTwoRecord, fwht_rows_unchecked, is_power_of_two, power_of_two_size, rows_to_power_of_two
from .mechanisms import GAUSSIAN_STEPS, FastMixCalibration, PreparedData, calibrate_fast_mix, multiple_fast_mixing
from .srht import SRHT

__all__ = [
    "paper_sketch_sizes",
    "paper_defaults",
    "DataRecord",
    "PreparedRegression",
    "prepare_regression",
    "RegressionResult",
    "ols",
    "training_mse",
    "excess_empirical_risk",
    "fast_ihs",
    "IHMCalibration",
    "calibrate_ihm",
    "ihm_gamma_classical_eigenvalue",
    "ihm",
    "gaussian_sketch_blocked",
    "FastIHMCalibration",
    "calibrate_fast_ihm",
    "fast_ihm",
    "AdaSSPCalibration",
    "calibrate_adassp",
    "adassp",
    "FastIHMRegressor",
    "IHMRegressor",
    "FastIHSRegressor",
    "AdaSSPRegressor",
    "PrivacyWarning",
    "NoiseDominatesWarning",
    "NOISE_DOMINATES_RATIO",
]


# =========================================================================== paper defaults


def _ledger_entry(*args, **kwargs):
    """A :class:`fastmix.accounting.LedgerEntry` of this module: every guarantee here is stated for
    zero-out neighbours (one row set to zero; the FastMix paper's Section 2)."""
    return acc.LedgerEntry(*args, relation=acc.ZERO_OUT, **kwargs)


def paper_sketch_sizes(d: int, T: int = 4, rho: float = 1e-3, ratio: float = 4.0) -> tuple[int, int]:
    """Sketch sizes of the paper's experiments (Appendix H; Figure 2 legend).

    ::

        base = max{d, log(4T/rho)}
        k1   = ceil(6 * base)        (FastIHM's Gaussian rows; also IHM's k and FastIHS's k)
        k2   = ceil(ratio * base)    (FastIHM's SRHT rows; ratio in {4, 100, 200} or {4, 400, 800})

    Returns
    -------
    (k1, k2) : tuple of int
    """
    d = check_positive_int(d, "d")
    T = check_positive_int(T, "T")
    rho = check_probability(rho, "rho")
    ratio = check_positive(ratio, "ratio")
    base = max(float(d), math.log(4.0 * T / rho))
    return int(math.ceil(6.0 * base - 1e-9)), int(math.ceil(ratio * base - 1e-9))


def paper_defaults(n: int) -> dict:
    """``delta = 1/n^2``, ``rho = delta/10``, ``T = 4`` (FastMix paper, Appendix H)."""
    n = check_positive_int(n, "n", minimum=2)
    delta = 1.0 / float(n) ** 2
    return {"delta": delta, "rho": delta / 10.0, "T": 4}


# =========================================================================== data preparation


@dataclass(frozen=True)
class DataRecord:
    """What was done to (X, y) before solving (nothing is dropped silently).

    Attributes
    ----------
    n_original : int
        Rows received.
    n_used : int
        Rows the solver ran on (a power of two for the SRHT-based solvers).
    n_policy : str
        ``"pad"``, ``"subsample"``, ``"raise"`` or ``"none"`` (solver needs no power of two).
        This is about the number of rows only; it has nothing to do with the bounds.
    rows_added : int
        Zero rows appended (``"pad"``).
    rows_dropped : int
        Rows removed by ``"subsample"``.
    row_norms : NormEnforcement
        Record of the row-norm check on X (policy, rows over the bound, rescale factor).
    y_policy : str
        ``"raise"``, ``"clip"`` or ``"rescale"``; ``"unchecked"`` for the non-private FastIHS,
        which needs no bound (as does ``row_norms.policy``).
    y_bound : float
        The bound C that ``|y_i|`` must respect.
    y_rows_over : int
        Responses above the bound on entry (``"clip"`` clipped exactly these).
    y_scale : float
        Factor y was multiplied by (``"rescale"``), else 1.
    power_of_two : fastmix.hadamard.PowerOfTwoRecord or None
        What :func:`fastmix.hadamard.rows_to_power_of_two` did to the rows (method ``"none"``,
        ``"pad"`` or ``"subsample"``, with the kept indices); ``rows_added``, ``rows_dropped``
        and ``n_used`` repeat its counts.
    """

    n_original: int
    n_used: int
    n_policy: str
    rows_added: int
    rows_dropped: int
    row_norms: NormEnforcement
    y_policy: str
    y_bound: float
    y_rows_over: int
    y_scale: float = 1.0
    power_of_two: PowerOfTwoRecord | None = None

    @property
    def x_scale(self) -> float:
        return self.row_norms.scale

    @property
    def private_preprocessing(self) -> bool:
        """False when a data-dependent rescaling was applied (not covered by the guarantee), or
        when the bounds were not checked at all (the non-private FastIHS)."""
        if self.row_norms.policy == _UNCHECKED or self.y_policy == _UNCHECKED:
            return False
        return self.row_norms.scale == 1.0 and self.y_scale == 1.0

    def as_dict(self) -> dict:
        return {
            "n_original": self.n_original,
            "n_used": self.n_used,
            "n_policy": self.n_policy,
            "rows_added": self.rows_added,
            "rows_dropped": self.rows_dropped,
            "row_norm_policy": self.row_norms.policy,
            "rows_over_norm_bound": self.row_norms.n_rows_over,
            "x_scale": self.row_norms.scale,
            "y_policy": self.y_policy,
            "y_bound": self.y_bound,
            "y_rows_over": self.y_rows_over,
            "y_scale": self.y_scale,
        }


@dataclass(frozen=True)
class PreparedRegression:
    """Validated data ready for a solver.

    ``X`` is float64 in Fortran order (so ``X.T`` is a C-contiguous Walsh-Hadamard batch and
    no transpose copy is ever needed), ``y`` float64; ``indices`` are the original rows used
    (``None`` when all rows are used, in order).
    """

    X: np.ndarray
    y: np.ndarray
    record: DataRecord
    indices: np.ndarray | None = None

    def as_mechanism_data(self) -> PreparedData:
        """View for :func:`fastmix.mechanisms.multiple_fast_mixing` (``prepared=``)."""
        rows = self.record.power_of_two
        if rows is None or rows.method != "pad":  # the mechanism receives the rows already chosen
            rows = PowerOfTwoRecord.unchanged(self.record.n_used)
        return PreparedData(self.X, self.record.row_norms, rows)


_Y_TOL = 1e-9

#: The values of ``y_policy`` accepted by every solver.
Y_POLICIES = ("raise", "clip", "rescale")
#: The values of ``n_policy`` of :func:`prepare_regression`.
N_POLICIES = ("pad", "subsample", "raise")
# Label recorded by the non-private FastIHS, which checks no bound. It is not a policy a caller
# can pass: every private solver checks both bounds.
_UNCHECKED = "unchecked"


def prepare_regression(
    X,
    y,
    *,
    clip: float = 1.0,
    row_norm_policy: str = "raise",
    y_policy: str = "raise",
    n_policy: str = "pad",
    random_state=None,
    power_of_two: bool = True,
) -> PreparedRegression:
    """Validate ``(X, y)``, enforce ``||x_i|| <= 1`` and ``|y_i| <= clip``, and fix ``n``.

    Parameters
    ----------
    X : array-like of shape (n, d)
    y : array-like of shape (n,)
    clip : float, default=1.0
        The bound C on the responses (``C = C_Y`` in the paper's experiments, Appendix H).
    row_norm_policy : {"raise", "clip", "rescale"}
        See ``fastmix._validation.check_row_norms``. ``"raise"`` is the policy for data already
        divided by a public bound: it changes nothing and fails, naming the largest norm, if the
        bound does not hold. No policy skips the check.
    y_policy : {"raise", "clip", "rescale"}
        ``"raise"`` refuses ``|y_i| > clip``; ``"clip"`` replaces y_i by ``clip_C(y_i)`` (per
        record, so private); ``"rescale"`` multiplies y by ``clip / max|y|`` (not private).
    n_policy : {"pad", "subsample", "raise"}
        How to reach a power of two (ignored when ``power_of_two=False``).
    random_state : None, int, SeedSequence or Generator
        Used only by ``n_policy="subsample"``.
    power_of_two : bool, default=True
        Whether the solver needs ``n`` to be a power of two.

    Raises
    ------
    TypeError
        For sparse, complex or non-numeric ``X`` or ``y``.
    ValueError
        For bad shapes, NaN or inf, a bound that does not hold under ``"raise"``, and a policy
        string that is not listed above (the message lists the valid ones).
    """
    check_policy(row_norm_policy, "row_norm_policy", ROW_NORM_POLICIES)
    check_policy(y_policy, "y_policy", Y_POLICIES)
    if power_of_two:
        check_policy(n_policy, "n_policy", N_POLICIES)
    return _prepare_regression(
        X,
        y,
        clip=clip,
        row_norm_policy=row_norm_policy,
        y_policy=y_policy,
        n_policy=n_policy,
        random_state=random_state,
        power_of_two=power_of_two,
    )


def _prepare_regression(
    X, y, *, clip, row_norm_policy, y_policy, n_policy, random_state, power_of_two
) -> PreparedRegression:
    """:func:`prepare_regression` after the policy checks; ``_UNCHECKED`` skips both bounds."""
    X = check_matrix(X, "X")
    n = X.shape[0]
    y = check_vector(y, "y", length=n)
    clip = check_positive(clip, "clip")
    if row_norm_policy == _UNCHECKED:  # the non-private FastIHS only
        norms = NormEnforcement(_UNCHECKED, math.inf, 0, float(row_norms(X).max()))
    else:
        X, norms = check_row_norms(X, bound=1.0, policy=row_norm_policy)
    y = np.asarray(y, dtype=np.float64)
    abs_y = np.abs(y)
    over = abs_y > clip * (1.0 + _Y_TOL)
    n_over = int(np.count_nonzero(over))
    y_scale = 1.0
    if y_policy == "raise":
        if n_over:
            raise ValueError(
                f"{n_over} response(s) have |y_i| above the clipping level C = {clip:g} (largest "
                f"{float(abs_y.max()):.6g}). The analysis assumes |y_i| <= C. Divide y by a public bound, raise "
                "`clip`, or pass y_policy='clip' (clip each response to [-C, C]; recorded) or 'rescale' "
                "(divide by the observed max; not private)."
            )
    elif y_policy == "clip":
        if n_over:
            y = np.clip(y, -clip, clip)
    elif y_policy == _UNCHECKED:  # the non-private FastIHS only
        n_over = 0
    elif y_policy == "rescale":
        m = float(abs_y.max()) if n else 0.0
        if m > clip:
            y_scale = clip / m
            y = y * y_scale
    else:
        check_policy(y_policy, "y_policy", Y_POLICIES)

    if not power_of_two:
        policy = "none"
        rows = PowerOfTwoRecord.unchanged(n)
        Xo = np.asarray(X, dtype=np.float64, order="F")
        yo = np.ascontiguousarray(y, dtype=np.float64)
    else:
        policy = check_policy(n_policy, "n_policy", N_POLICIES)
        if n_policy == "raise" and not is_power_of_two(n):
            raise ValueError(
                f"X has n = {n} rows, which is not a power of two, and n_policy='raise'. Use n_policy='pad' "
                "(zero rows; lossless under zero-out neighbours) or 'subsample' (drops rows; recorded)."
            )
        Xo, yo, rows = rows_to_power_of_two(
            X,
            y,
            method="subsample" if n_policy == "subsample" else "pad",
            random_state=random_state,
            order="F",
            dtype=np.float64,
        )
        yo = np.ascontiguousarray(yo, dtype=np.float64)
    indices = rows.indices
    added, dropped = rows.n_added, rows.n_dropped
    record = DataRecord(
        n_original=n,
        n_used=Xo.shape[0],
        n_policy=policy,
        rows_added=added,
        rows_dropped=dropped,
        row_norms=norms,
        y_policy=y_policy,
        y_bound=clip,
        y_rows_over=n_over,
        y_scale=y_scale,
        power_of_two=rows,
    )
    return PreparedRegression(Xo, yo, record, indices)


# =========================================================================== results


@dataclass
class RegressionResult:
    """What a solver returns besides theta.

    Attributes
    ----------
    theta : ndarray of shape (d,)
        The estimate, in the units of the data passed in (a ``"rescale"`` policy is undone).
    method : str
    data : DataRecord
    ledger : PrivacyLedger or None
        The budget actually spent (None for the non-private solvers). ``ledger.total_epsilon
        <= epsilon`` and ``ledger.total_delta <= delta``.
    calibration : object or None
        The calibration used (:class:`FastIHMCalibration`, :class:`IHMCalibration`,
        :class:`AdaSSPCalibration`).
    diagnostics : dict
        Per-iteration quantities. Entries marked ``*_nonprivate`` are computed from the raw
        data and are for research only; do not publish them with the estimate.
    iterates : list of ndarray
        theta_1, ..., theta_T (iterative solvers).
    """

    theta: np.ndarray
    method: str
    data: DataRecord
    ledger: acc.PrivacyLedger | None = None
    calibration: object | None = None
    diagnostics: dict = field(default_factory=dict)
    iterates: list = field(default_factory=list)


def _unscale_theta(theta: np.ndarray, record: DataRecord) -> np.ndarray:
    # y_s = b y, X_s = a X, y_s ~ X_s theta_s  =>  y ~ X (a / b) theta_s
    if record.row_norms.scale == 1.0 and record.y_scale == 1.0:
        return theta
    return theta * (record.row_norms.scale / record.y_scale)


def _solve_spd(H: np.ndarray, g: np.ndarray) -> np.ndarray:
    """Solve H u = g for a symmetric H; Cholesky first, least squares if H is singular."""
    try:
        return sla.solve(H, g, assume_a="pos", check_finite=False)
    except (np.linalg.LinAlgError, sla.LinAlgError):
        return np.linalg.lstsq(H, g, rcond=None)[0]


def _clipped_gradient(X: np.ndarray, y: np.ndarray, theta: np.ndarray, clip: float | None) -> np.ndarray:
    """``X^T clip_C(y - X theta)`` (clip=None: no clipping). Two BLAS passes over X."""
    r = X @ theta
    np.subtract(y, r, out=r)
    if clip is not None:
        np.clip(r, -clip, clip, out=r)
    return X.T @ r


# =========================================================================== OLS


def ols(X, y) -> np.ndarray:
    """Exact least squares ``theta* = argmin_theta ||y - X theta||^2`` (FastMix paper, Section 4).

    Uses LAPACK's SVD-based ``gelsd`` (:func:`numpy.linalg.lstsq`), which is stable for
    ill-conditioned and rank-deficient X (it returns the minimum-norm solution).
    """
    X = check_matrix(X, "X")
    y = check_vector(y, "y", length=X.shape[0])
    return np.linalg.lstsq(np.asarray(X, dtype=np.float64), np.asarray(y, dtype=np.float64), rcond=None)[0]


def training_mse(X, y, theta) -> float:
    """``(1/n) ||y - X theta||^2``."""
    X = np.asarray(X, dtype=np.float64)
    r = np.asarray(y, dtype=np.float64) - X @ np.asarray(theta, dtype=np.float64)
    return float(r @ r) / X.shape[0]


def excess_empirical_risk(X, y, theta, theta_star=None) -> float:
    """Excess empirical risk of the paper (Appendix H): ``(1/n)||y - X theta||^2 - (1/n)||y - X theta*||^2``."""
    if theta_star is None:
        theta_star = ols(X, y)
    return training_mse(X, y, theta) - training_mse(X, y, theta_star)


# =========================================================================== FastIHS


def _check_srht_k(k, n: int, name: str) -> int:
    return check_positive_int(
        k, name, maximum=n, hint=f"{name} is a number of SRHT rows and cannot exceed n = {n} (after padding); lower it."
    )


_CHUNK_BYTES = 8 << 20


def _srht_sketch(X: np.ndarray, srht: SRHT, work: np.ndarray | None = None) -> np.ndarray:
    """``S_f X`` (k x d): sign flip, transform and row sampling, fused a few columns at a time.

    The columns of the Fortran-ordered X are the rows of the C-contiguous (d, n) view ``X.T``.
    They are processed in chunks of about 8 MiB, each multiplied by the signs into a reused
    buffer, transformed in place while it is in cache and sampled straight into Z, so one
    sketch streams X from memory once and needs only the chunk buffer besides X and Z.
    """
    n, d = X.shape
    XT = X.T  # C-contiguous (d, n) view of the Fortran-ordered X: no copy
    rows = min(d, max(1, _CHUNK_BYTES // (8 * n)))
    if work is None or work.shape[0] < rows or work.shape[1] != n:
        work = np.empty((rows, n))
    scale = srht.signs * (1.0 / math.sqrt(n))
    ZT = np.empty((d, srht.k))
    for a in range(0, d, rows):
        b = min(d, a + rows)
        chunk = work[: b - a]
        np.multiply(XT[a:b], scale, out=chunk)
        fwht_rows_unchecked(chunk, normalized=False, backend=srht.backend)
        np.multiply(chunk[:, srht.rows], srht.row_scale, out=ZT[a:b])
    return ZT.T


def fast_ihs(
    X,
    y,
    *,
    k: int,
    T: int = 4,
    random_state=None,
    ridge: float = 1e-5,
    n_policy: str = "pad",
    backend: str | None = None,
    theta0=None,
):
    """Iterative Hessian sketch with an SRHT ("FastIHS"; Pilanci & Wainwright 2016, non-private).

    For t = 0, ..., T-1, with a fresh SRHT ``S_t`` of k rows (FastMix paper, Definition 3)::

        H_t       = (S_t X)^T (S_t X) + ridge * I
        g_t       = X^T (y - X theta_t)
        theta_t+1 = theta_t + H_t^{-1} g_t

    The ridge 1e-5 follows the authors' baseline (reference-code notes) and only guards against
    a singular sketch; with ``k >= d`` and full-rank X it changes nothing visible.
    The error contracts geometrically: ``||theta_t - theta*||_{X^T X}`` shrinks by a factor of
    order ``sqrt(d/k)`` per iteration.

    X is converted once to Fortran order (its transpose is then the transform batch); each
    sketch streams X once through a reused cache-sized buffer (:func:`_srht_sketch`).

    Entries so large that ``X^T X`` or ``X^T y`` would overflow (a row norm or a response above
    2^200, about 1.6e60) are handled by multiplying X and y by powers of two ``a`` and ``b``
    (exact in floating point), solving for ``(b/a) theta`` with the ridge scaled by ``a^2`` (the
    same iteration in other units), and mapping back; ``diagnostics["scale_x"]`` and
    ``["scale_y"]`` record ``a`` and ``b``. Other input takes the unscaled path unchanged.

    Returns
    -------
    theta : ndarray of shape (d,)
    result : RegressionResult
    """
    T = check_positive_int(T, "T")
    ridge = check_positive(ridge, "ridge", allow_zero=True)
    rng = check_random_state(random_state)
    data = _prepare_nonprivate(X, y, n_policy, rng)
    Xp, yp = data.X, data.y
    n, d = Xp.shape
    k = _check_srht_k(k, n, "k")
    theta = np.zeros(d) if theta0 is None else _check_theta0(theta0, d)
    a, b = _power_of_two_scales(data.record.row_norms.max_norm_before, yp)
    ridge_used = ridge
    if a != 1.0 or b != 1.0:
        Xp, yp = Xp * a, yp * b  # keeps Fortran order
        ridge_used = ridge * a * a
        theta = theta * (b / a)
    work = np.empty((min(d, max(1, _CHUNK_BYTES // (8 * n))), n))
    iterates = []
    for _ in range(T):
        srht = SRHT(n, k, random_state=rng, backend=backend)
        Z = _srht_sketch(Xp, srht, work)
        H = Z.T @ Z
        H.flat[:: d + 1] += ridge_used
        g = _clipped_gradient(Xp, yp, theta, None)
        theta = theta + _solve_spd(H, g)
        iterates.append(theta.copy())
    diag = {"k": k, "T": T, "ridge": ridge}
    if a != 1.0 or b != 1.0:
        theta = theta * (a / b)
        iterates = [t * (a / b) for t in iterates]
        diag.update(scale_x=a, scale_y=b)
    result = RegressionResult(theta, "FastIHS", data.record, None, None, diag, iterates)
    return theta, result


_HUGE = 2.0**200


def _power_of_two_scales(max_row_norm: float, y: np.ndarray) -> tuple[float, float]:
    """Powers of two that bring a huge max row norm and a huge max |y_i| below 1 (else 1.0)."""
    a = b = 1.0
    if max_row_norm > _HUGE:
        a = math.ldexp(1.0, -math.frexp(max_row_norm)[1])
    max_y = float(np.max(np.abs(y))) if y.size else 0.0
    if max_y > _HUGE:
        b = math.ldexp(1.0, -math.frexp(max_y)[1])
    return a, b


def _check_theta0(theta0, d: int) -> np.ndarray:
    theta0 = check_vector(theta0, "theta0")
    if theta0.shape[0] != d:
        raise ValueError(f"theta0 must have d = {d} entries, one per column of X; got {theta0.shape[0]}.")
    return np.array(theta0, dtype=np.float64)


def _prepare_nonprivate(X, y, n_policy: str, rng) -> PreparedRegression:
    """Validation for the non-private FastIHS: no norm or response bounds, n to a power of two."""
    check_policy(n_policy, "n_policy", N_POLICIES)
    return _prepare_regression(
        X,
        y,
        clip=1.0,
        row_norm_policy=_UNCHECKED,
        y_policy=_UNCHECKED,
        n_policy=n_policy,
        random_state=rng,
        power_of_two=True,
    )


# =========================================================================== helpers for calibration


def analytic_gaussian_epsilon(sigma: float, delta: float, sensitivity: float = 1.0) -> float:
    """Smallest epsilon for which the Gaussian mechanism with std ``sigma`` is (epsilon, delta)-DP.

    Inverse in epsilon of the exact privacy profile of Balle & Wang (2018, Theorem 8)
    (:func:`fastmix.accounting.analytic_gaussian_delta`), by bisection; the returned epsilon
    satisfies the profile.
    """
    s = check_positive(sigma, "sigma")
    delta = check_delta(delta)
    b = check_positive(sensitivity, "sensitivity")
    tiny = 1e-12
    if acc.analytic_gaussian_delta(s, tiny, b) <= delta:
        return tiny
    return acc.smallest_feasible(lambda e: acc.analytic_gaussian_delta(s, e, b) - delta, 0.0, tiny, 1.0, rtol=1e-12)


def _rho_default(rho, delta: float) -> float:
    return delta / 10.0 if rho is None else check_probability(rho, "rho")


def _gradient_entry(T: int, sigma: float, clip: float, eps: float, delta: float, source: str) -> acc.LedgerEntry:
    return _ledger_entry(
        f"Gaussian gradient noise ({T} iterations)",
        eps,
        delta,
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


# =========================================================================== IHM


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
            _ledger_entry(
                f"Gaussian sketches ({self.T} x {self.k} rows)",
                self.epsilon_sketch,
                self.delta_sketch,
                source="Proposition 2 (eq. 5), RDP composition over T k rows, Proposition 1",
                details=(("gamma", self.gamma), ("k", self.k), ("T", self.T)),
            ),
            _ledger_entry(
                "Gaussian release of lambda_min(X^T X)",
                self.epsilon_eig,
                self.delta_eig,
                source="analytic Gaussian mechanism (Balle & Wang 2018), sensitivity 1",
                details=(("noise_std", self.eig_noise),),
            ),
            _ledger_entry(
                "lambda_tilde shift failure event",
                0.0,
                self.delta_failure,
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

    def ledger(self, name: str = "IHM") -> acc.PrivacyLedger:
        led = acc.PrivacyLedger(self.epsilon, self.delta, relation=acc.ZERO_OUT, name=name)
        led.spend_all(self.ledger_entries())
        return led


def calibrate_ihm(epsilon, delta, *, k, T: int = 4, rho=None, clip: float = 1.0) -> IHMCalibration:
    """Calibrate IHM (see :class:`IHMCalibration` for the formulas and the budget split)."""
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    k = check_positive_int(k, "k")
    T = check_positive_int(T, "T")
    rho = _rho_default(rho, delta)
    clip = check_positive(clip, "clip")
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
        f"The keyword rng of {function} is deprecated and will be removed; pass random_state instead "
        "(None, an int, a SeedSequence or a numpy.random.Generator, as everywhere in fastmix).",
        DeprecationWarning,
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
    Memory: ``min(block_rows, n d / k) * k`` doubles, i.e. at most the size of X. Time: O(n k d) flops plus n k normal draws, the latter
    dominating for small d.
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


def _gram_sqrt(X: np.ndarray) -> tuple[np.ndarray, float]:
    """(X^T X)^{1/2} (symmetric square root) and lambda_min(X^T X)."""
    Gm = X.T @ X
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
    theta : ndarray of shape (d,)
    result : RegressionResult
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
    n, d = Xp.shape
    if ledger is not None:
        ledger.spend_all(cal.ledger_entries())
    ledger = cal.ledger("IHM")
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
    return theta_out, RegressionResult(theta_out, "IHM", data.record, ledger, cal, diag, iterates)


# =========================================================================== FastIHM


@dataclass(frozen=True)
class FastIHMCalibration:
    """Every noise parameter of FastIHM (Algorithm 2) and its budget.

    Attributes
    ----------
    fast_mix : FastMixCalibration
        gamma, tau, omega of the T FastMix draws (MultipleFastMixing, Algorithm 3) and their
        budget: 2T Laplace releases, T k1-row sketches composed in RDP, the failure event.
    sigma_gradient : float
        Std of the gradient noise ``sigma zeta_t`` (Algorithm 2, line 7).
    method : {"tight", "closed_form"}
    paper_gamma_1, paper_gamma_2 : float
        eq. (177) evaluated as printed (closed form only; for the record).
    """

    epsilon: float
    delta: float
    k1: int
    T: int
    rho: float
    clip: float
    method: str
    fast_mix: FastMixCalibration
    sigma_gradient: float
    epsilon_gradient: float
    delta_gradient: float
    paper_gamma_1: float = math.nan
    paper_gamma_2: float = math.nan

    @property
    def gamma(self) -> float:
        return self.fast_mix.gamma

    @property
    def tau(self) -> float:
        return self.fast_mix.tau

    @property
    def omega(self) -> float:
        return self.fast_mix.omega

    @property
    def sigma(self) -> float:
        return self.sigma_gradient

    def ledger_entries(self) -> tuple:
        src = (
            "eq. (179) sensitivity C; T-fold GDP composition = one analytic Gaussian mechanism"
            if self.method == "tight"
            else "eq. (176), (182)-(184): RDP of T Gaussian mechanisms, Mironov conversion"
        )
        return tuple(self.fast_mix.ledger_entries()) + (
            _gradient_entry(self.T, self.sigma_gradient, self.clip, self.epsilon_gradient, self.delta_gradient, src),
        )

    def ledger(self, name: str = "FastIHM") -> acc.PrivacyLedger:
        led = acc.PrivacyLedger(self.epsilon, self.delta, relation=acc.ZERO_OUT, name=name)
        led.spend_all(self.ledger_entries())
        return led


def calibrate_fast_ihm(
    epsilon, delta, *, k1, T: int = 4, rho=None, clip: float = 1.0, method: str = "tight", bound: str = "bar"
) -> FastIHMCalibration:
    """Noise parameters (gamma, tau, omega, sigma) of FastIHM at a target (epsilon, delta).

    Both methods split the budget as in Theorem 2's proof (Appendix E.2.1): epsilon/3 and
    delta/3 to each of (i) the T FastMix sketches, (ii) the 2T Laplace releases (epsilon only)
    and their failure event (delta only), (iii) the T gradient releases; and use (eq. 176)::

        omega = 6T / epsilon,    tau = max{log(3T/delta), log(16T/rho)}.

    ``method="tight"`` (default; what the paper's experiments use):
        gamma = smallest value with  min_alpha  T k1 phi_bar(alpha; gamma) + conv_Canonne(alpha, delta/3)
        <= epsilon/3  (eq. 185, bisection; :func:`fastmix.accounting.fastmix_gamma_for_epsilon`),
        sigma = sqrt(T) sigma_AG(epsilon/3, delta/3, C) (analytic Gaussian mechanism, Balle & Wang
        2018; exact by Gaussian-DP composition, see :func:`_gradient_noise_tight`).
    ``method="closed_form"`` (Theorem 2 as stated):
        sigma = 3 sqrt(T log(3/delta)) C / (sqrt(2) epsilon) (1 + sqrt(1 + epsilon/(3 log(3/delta))))
        (eq. 176, which makes eq. 184 equal epsilon/3), and gamma = gamma_1 of eq. (177) when eq.
        (178) selects it. In the other branch the printed gamma_2 does not make eq. (134) at most
        epsilon/3, so the exact end-branch root is used instead
        (:func:`fastmix.accounting.fastmix_gamma_closed_form`); the printed values are kept in
        ``paper_gamma_1``/``paper_gamma_2``.

    The gradient releases add Gaussian noise calibrated to the l2 sensitivity C of
    ``X^T clip_C(y - X theta)`` under zero-out neighbouring (eq. (179)).

    The ledger records the actual cost at the chosen parameters (for the sketches, the tight
    RDP epsilon at gamma, which is never more than the closed form), so its totals are at most
    (epsilon, delta).
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    k1 = check_positive_int(k1, "k1")
    T = check_positive_int(T, "T")
    rho = _rho_default(rho, delta)
    clip = check_positive(clip, "clip")
    if method not in ("tight", "closed_form"):
        raise ValueError(f"method must be 'tight' or 'closed_form'; got {method!r}.")
    fm = calibrate_fast_mix(
        2.0 * epsilon / 3.0,
        2.0 * delta / 3.0,
        k1=k1,
        n_draws=T,
        laplace_share=0.5,
        failure_share=0.5,
        bound=bound,
        method=method,
        tau_min=math.log(16.0 * T / rho),
    )
    e3, d3 = epsilon / 3.0, delta / 3.0
    g1 = g2 = math.nan
    if method == "tight":
        sigma, d_grad = _gradient_noise_tight(e3, d3, T, clip)
    else:
        L = math.log(3.0 / delta)
        sigma = (
            3.0 * math.sqrt(T * L) * clip / (math.sqrt(2.0) * epsilon) * (1.0 + math.sqrt(1.0 + epsilon / (3.0 * L)))
        )
        d_grad = d3
        g1 = 15.0 * math.sqrt(2.0 * k1 * T * L) / (8.0 * epsilon) * (1.0 + math.sqrt(1.0 + epsilon / (3.0 * L)))
        g2 = (2.0 * k1 * T + 25.0 * L) / (8.0 * epsilon)
    return FastIHMCalibration(
        epsilon=epsilon,
        delta=delta,
        k1=k1,
        T=T,
        rho=rho,
        clip=clip,
        method=method,
        fast_mix=fm,
        sigma_gradient=sigma,
        epsilon_gradient=e3,
        delta_gradient=d_grad,
        paper_gamma_1=g1,
        paper_gamma_2=g2,
    )


def fast_ihm(
    X,
    y,
    *,
    epsilon=None,
    delta=None,
    k1: int | None = None,
    k2: int,
    T: int = 4,
    rho=None,
    clip: float = 1.0,
    calibration=None,
    method: str = "tight",
    random_state=None,
    shared_eta: bool = True,
    omit_eta_term: bool = True,
    m_floor: float = 0.0,
    row_norm_policy: str = "raise",
    y_policy: str = "raise",
    n_policy: str = "pad",
    backend: str | None = None,
    ledger=None,
    gaussian_step: str = "explicit",
):
    """FastIHM, Algorithm 2 of the FastMix paper, with MultipleFastMixing (Algorithm 3) inside.

    1. ``eta, {X_tilde_t} = MultipleFastMixing(X, 1, gamma, tau, omega, k2, T)`` (line 3): T
       independent SRHTs with k2 rows, each with private (Laplace) estimates of m_hat and
       lambda_min, and ``eta = max_t eta_t`` (Algorithm 3, line 10).
    2. For t = 0..T-1 (theta_0 = 0)::

           X_hat_t   = S_G,t X_tilde_t + eta xi_t                 S_G,t: k1 x k2 (lines 5-6)
           G_t       = X^T clip_C(y - X theta_t) - eta^2 theta_t + sigma zeta_t     (line 7)
           theta_t+1 = theta_t + (X_hat_t^T X_hat_t / k1)^{-1} G_t                    (line 8)

    Parameters
    ----------
    epsilon, delta : float
        Target guarantee (ignored when ``calibration`` is given).
    k1, k2 : int
        Gaussian rows and SRHT rows (``k2 <= n`` after padding).
    T : int, default=4
    rho : float, optional
        Utility failure probability (default delta/10, Appendix H); enters tau only.
    clip : float, default=1.0
        The residual clipping level C (= C_Y in the paper's experiments).
    calibration : FastIHMCalibration, optional
        From :func:`calibrate_fast_ihm`; computed here otherwise (``method``). It fixes k1, T
        and C (a different explicit ``k1`` is an error).
    ledger : PrivacyLedger, optional
        An outer ledger to charge as well; the call fails before touching the data if it cannot
        afford the calibrated budget.
    shared_eta : bool, default=True
        True: one ``eta = max_t eta_tilde_t`` for every iteration (Algorithm 3, line 10; the paper).
        False: iteration t uses its own ``eta_tilde_t`` (the authors' code). Both are private:
        the RDP bound of Lemma 1 for draw t only needs that draw's noise to satisfy eq. (180),
        ``lambda_min(S_H,t X) + eta_t^2 >= gamma (1 + 2 m_hat_t)``, which ``eta_tilde_t`` already
        does on the event B of Appendix E.2.1 (the max only adds noise), and ``eta_tilde_t`` is
        post-processing of the Laplace releases that are paid for.
    omit_eta_term : bool, default=True
        Drop ``-eta^2 theta_t`` from G_t, as the paper's experiments do (Appendix H). The term is
        data-independent given the private eta, so this does not affect privacy.
    m_floor : float, default=0.0
        Lower clamp of m_tilde (0 in Algorithm 1; 1 in Appendix C.4 and the authors' figures).
    row_norm_policy, y_policy, n_policy : str
        See :func:`prepare_regression`.
    backend : str, optional
        Walsh-Hadamard backend.
    gaussian_step : {"explicit", "gram"}, default="explicit"
        How ``S_G,t X_tilde_t + eta xi_t`` (lines 5-6) is sampled. ``"explicit"`` draws the
        k1 x k2 matrix S_G,t as the paper does. ``"gram"`` draws ``G L^T`` with G a k1 x d standard
        Gaussian and ``L L^T = X_tilde_t^T X_tilde_t + eta^2 I``: given X_tilde_t, the rows of
        ``S_G,t X_tilde_t`` are i.i.d. ``N(0, X_tilde_t^T X_tilde_t)`` (each is a standard Gaussian
        vector times X_tilde_t) and those of ``eta xi_t`` are ``N(0, eta^2 I)``, so both give the same
        law of the release, hence the same privacy (Lemma 1 only looks at that law) and the same
        utility, at O(k2 d^2 + k1 d^2) instead of O(k1 k2 d) with k1 d draws instead of k1 (k2 + d)
        (see :func:`fastmix.mechanisms.mix_sketch`). They use the random stream differently.

    Returns
    -------
    theta : ndarray of shape (d,)
    result : RegressionResult (``ledger`` total <= (epsilon, delta))
    """
    rng = check_random_state(random_state)
    check_policy(gaussian_step, "gaussian_step", GAUSSIAN_STEPS)
    if calibration is None:
        if epsilon is None or delta is None:
            raise ValueError("fast_ihm needs epsilon and delta, or a precomputed calibration=calibrate_fast_ihm(...).")
        if k1 is None:
            raise ValueError("fast_ihm needs k1 (Gaussian rows), e.g. paper_sketch_sizes(d, T, rho, ratio)[0].")
        calibration = calibrate_fast_ihm(epsilon, delta, k1=k1, T=T, rho=rho, clip=clip, method=method)
    elif not isinstance(calibration, FastIHMCalibration):
        raise TypeError(f"calibration must be a FastIHMCalibration; got {type(calibration).__name__}.")
    elif k1 is not None and int(k1) != calibration.k1:
        raise ValueError(f"k1 = {k1} differs from the calibration's k1 = {calibration.k1}; recalibrate.")
    cal = calibration
    k1, T, clip = cal.k1, cal.T, cal.clip
    data = prepare_regression(
        X, y, clip=clip, row_norm_policy=row_norm_policy, y_policy=y_policy, n_policy=n_policy, random_state=rng
    )
    Xp, yp = data.X, data.y
    n, d = Xp.shape
    k2 = _check_srht_k(k2, n, "k2")
    if ledger is not None:
        ledger.spend_all(cal.ledger_entries())
    ledger = cal.ledger("FastIHM")
    mfm = multiple_fast_mixing(
        Xp, cal.fast_mix, k2=k2, random_state=rng, m_floor=m_floor, backend=backend, prepared=data.as_mechanism_data()
    )
    theta = np.zeros(d)
    iterates, etas = [], []
    for t in range(T):
        eta_t = mfm.eta if shared_eta else float(mfm.eta_tilde[t])
        Xhat = mfm.release(t, k1, rng, noise_scale=eta_t, method=gaussian_step)
        H = (Xhat.T @ Xhat) / k1
        g = _clipped_gradient(Xp, yp, theta, clip)
        if not omit_eta_term:
            g -= eta_t**2 * theta
        g += cal.sigma_gradient * rng.standard_normal(d)
        theta = theta + _solve_spd(H, g)
        iterates.append(theta.copy())
        etas.append(eta_t)
    theta_out = _unscale_theta(theta, data.record)
    diag = {
        "k1": k1,
        "k2": k2,
        "T": T,
        "gamma": cal.gamma,
        "tau": cal.tau,
        "omega": cal.omega,
        "sigma_gradient": cal.sigma_gradient,
        "eta": mfm.eta,
        "eta_used": np.array(etas),
        "eta_tilde": mfm.eta_tilde,
        "m_tilde": mfm.m_tilde,
        "lambda_tilde": mfm.lambda_tilde,
        "delta_hat": mfm.delta_hat,
        "m_hat_nonprivate": mfm.m_hat,
        "lambda_min_nonprivate": mfm.lambda_min,
        "shared_eta": shared_eta,
        "omit_eta_term": omit_eta_term,
        "m_floor": m_floor,
    }
    return theta_out, RegressionResult(theta_out, "FastIHM", data.record, ledger, cal, diag, iterates)


# =========================================================================== AdaSSP


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
            _ledger_entry(
                "Gaussian release of lambda_min(X^T X)",
                e,
                self.delta_each,
                source="Wang (2018) AdaSSP; analytic Gaussian, sensitivity 1",
                details=(("sigma", self.sigma_xx),),
            ),
            _ledger_entry(
                "Gaussian release of X^T X",
                e,
                self.delta_each,
                source="Wang (2018) AdaSSP; analytic Gaussian, sensitivity 1 (Frobenius)",
                details=(("sigma", self.sigma_xx),),
            ),
            _ledger_entry(
                "Gaussian release of X^T y",
                e,
                self.delta_each,
                source="Wang (2018) AdaSSP; analytic Gaussian, sensitivity C",
                details=(("sigma", self.sigma_xy), ("C", self.clip)),
            ),
        )

    def ledger(self, name: str = "AdaSSP") -> acc.PrivacyLedger:
        led = acc.PrivacyLedger(self.epsilon, self.delta, relation=acc.ZERO_OUT, name=name)
        led.spend_all(self.ledger_entries())
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

    As in the FastMix authors' baseline (reference-code notes)::

        lambda_tilde = max(0, lambda_min(X^T X) + sigma_XX Z - sigma_XX^2)
        ridge        = max(0, sqrt(d log(2 d^2 / rho)) sigma_XX - lambda_tilde)
        theta        = (X^T X + sigma_XX N_sym + ridge I)^{-1} (X^T y + sigma_Xy xi)

    Wang's paper shifts lambda_min by ``sqrt(log(6/delta))/(eps/3)`` times a constant instead of
    sigma_XX^2; the shift is post-processing and does not affect privacy. Requires ``|y_i|`` <= C.
    ``ledger``: an optional outer :class:`~fastmix.accounting.PrivacyLedger` to charge as well.

    Returns
    -------
    theta : ndarray of shape (d,)
    result : RegressionResult
    """
    rng = check_random_state(random_state)
    if calibration is None:
        if epsilon is None or delta is None:
            raise ValueError("adassp needs epsilon and delta, or a precomputed calibration=calibrate_adassp(...).")
        calibration = calibrate_adassp(epsilon, delta, rho=rho, clip=clip)
    elif not isinstance(calibration, AdaSSPCalibration):
        raise TypeError(f"calibration must be an AdaSSPCalibration; got {type(calibration).__name__}.")
    cal = calibration
    data = prepare_regression(
        X, y, clip=cal.clip, row_norm_policy=row_norm_policy, y_policy=y_policy, power_of_two=False
    )
    Xp, yp = data.X, data.y
    d = Xp.shape[1]
    if ledger is not None:
        ledger.spend_all(cal.ledger_entries())
    ledger = cal.ledger()
    XtX = Xp.T @ Xp
    Xty = Xp.T @ yp
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
    return theta_out, RegressionResult(theta_out, "AdaSSP", data.record, ledger, cal, diag, [theta_out])


# =========================================================================== scikit-learn estimators

try:  # scikit-learn is an optional dependency (extra "ml")
    from sklearn.base import BaseEstimator, RegressorMixin
    from sklearn.utils.validation import check_is_fitted, validate_data

    _HAVE_SKLEARN = True
except Exception:  # pragma: no cover - depends on the environment
    BaseEstimator = object  # type: ignore

    class RegressorMixin:  # type: ignore
        pass

    _HAVE_SKLEARN = False


class NoiseDominatesWarning(UserWarning):
    """A private fit whose noise swamps the signal (judged from public and released quantities only)."""


#: FastIHMRegressor warns when eta^2 exceeds this multiple of n/d (the average-eigenvalue bound of X^T X).
NOISE_DOMINATES_RATIO = 10.0

#: Below this many records the default delta = 1/n^2 is flagged by a PrivacyWarning.
_MIN_N_DEFAULT_DELTA = 100


class _SketchedRegressorBase(RegressorMixin, BaseEstimator):
    """Shared fit/predict plumbing. Subclasses implement ``_solve(X, y, n, d, rng)``.

    **Neighbouring relation.** Every guarantee of these estimators is for zero-out neighbours
    (one row of ``(X, y)`` replaced by zeros; the FastMix paper's Section 2), and so is their
    ledger (``privacy_ledger_.relation``); an outer ``ledger=`` of the other relation is refused.

    ``delta=None`` means ``1/n^2`` and ``rho=None`` means ``delta/10`` (Appendix H); n is public
    under zero-out neighbouring.

    **Intercept.** With ``fit_intercept=True`` (the default, as in scikit-learn) the estimator
    fits ``y ~ x^T coef_ + intercept_`` by appending a constant coordinate ``c``
    (``intercept_scaling``) to every row and dividing the augmented row by ``s = sqrt(1 + c^2)``:

        x~ = (x, c) / s,   ||x~||^2 = (||x||^2 + c^2) / s^2 <= 1   whenever ||x|| <= 1,

    so the augmented data meet the same norm bound and the mechanism, its calibration and its
    ledger are exactly those of the paper's algorithm run on ``d + 1`` columns; nothing
    data-dependent is computed (no centring), and the privacy guarantee is unchanged. Predictions
    are ``x~^T b = x^T (b[:d] / s) + c b[d] / s``, hence ``coef_ = b[:d] / s`` and
    ``intercept_ = c b[d] / s``. The cost is in accuracy, not privacy: the features are shrunk by
    ``1/s`` (``1/sqrt 2`` at ``c = 1``) while the privacy noise stays the same, so the noise on the
    coefficients in the original units grows by up to ``s``, and the problem has one more column.
    The non-private FastIHS appends ``c`` without rescaling. ``fit_intercept=False`` is the
    papers' setting (no intercept, ``intercept_ = 0``).

    A delta that is not small compared with ``1/n`` gives a weak guarantee: a mechanism that
    publishes each record outright with probability delta is (0, delta)-DP, and it publishes
    ``n delta`` records on average. ``fit`` therefore warns (:class:`PrivacyWarning`) when the
    default ``1/n^2`` is used with fewer than 100 records (``n delta = 1/n > 0.01``; at n = 2
    the default is 0.25), and when an explicit delta is at least ``1/n``. Pass delta
    explicitly to choose a value knowingly; the warning is not an error because small-n fits
    are useful for tests and illustrations.

    scikit-learn's ``check_estimator``: with the defaults (``row_norm_policy="raise"``,
    ``y_policy="raise"``) the private estimators refuse data whose rows have norm above 1 or whose
    responses exceed C, which is what most generic checks feed them; that refusal is deliberate.
    With ``row_norm_policy="rescale", y_policy="rescale"`` (data-dependent scaling, *not* private;
    the coefficients are mapped back to the original units) every check passes (tested in
    ``tests/test_regression.py::test_sklearn_check_estimator``, at a large epsilon so that the
    accuracy checks are meaningful).
    """

    _private = True

    def _check_sklearn(self):
        if not _HAVE_SKLEARN:  # pragma: no cover
            raise ImportError("The estimators need scikit-learn: pip install 'fastmix[ml]'.")

    def fit(self, X, y):
        """Fit on (X, y); X of shape (n, d), y of shape (n,)."""
        self._check_sklearn()
        for name, value in (("X", X), ("y", y)):
            dtype = getattr(value, "dtype", None)  # arrays and frames; other inputs are left to scikit-learn
            if isinstance(dtype, np.dtype) and dtype.kind == "c" and not _is_sparse(value):
                # scikit-learn's convention (a ValueError with this phrase), with the argument named
                raise ValueError(
                    f"Complex data not supported: {name} has dtype {dtype}; "
                    f"pass real data ({name}.real, or real and imaginary parts as columns)."
                )
        outer = getattr(self, "ledger", None)
        if outer is not None and not isinstance(outer, acc.PrivacyLedger):
            raise TypeError(f"ledger must be a fastmix.accounting.PrivacyLedger or None; got {type(outer).__name__}.")
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True, order="F")
        rng = check_random_state(self.random_state)
        fit_intercept = getattr(self, "fit_intercept", False)
        if not isinstance(fit_intercept, (bool, np.bool_)):
            raise TypeError(f"fit_intercept must be True or False; got {fit_intercept!r}.")
        if fit_intercept:
            c = check_positive(getattr(self, "intercept_scaling", 1.0), "intercept_scaling")
            s = math.sqrt(1.0 + c * c) if self._private else 1.0
            Xa = np.empty((X.shape[0], X.shape[1] + 1), dtype=np.float64, order="F")
            np.divide(X, s, out=Xa[:, :-1])
            Xa[:, -1] = c / s
            theta, result = self._solve(Xa, y, rng)
            theta = np.asarray(theta, dtype=np.float64)
            self.coef_ = theta[:-1] / s
            self.intercept_ = float(c * theta[-1] / s)
            result.diagnostics["intercept"] = {
                "intercept_scaling": c,
                "row_divisor": s,
                "note": "constant coordinate appended within the norm bound",
            }
        else:
            theta, result = self._solve(X, y, rng)
            self.coef_ = np.asarray(theta, dtype=np.float64)
            self.intercept_ = 0.0
        self.result_ = result
        self.data_record_ = result.data
        self.diagnostics_ = result.diagnostics
        if self._private:
            self.privacy_ledger_ = result.ledger
        return self

    def predict(self, X):
        """``X @ coef_ + intercept_``."""
        self._check_sklearn()
        check_is_fitted(self, "coef_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return X @ self.coef_ + self.intercept_

    def _delta_rho(self, n: int) -> tuple[float, float]:
        delta = 1.0 / max(n, 2) ** 2 if self.delta is None else check_delta(self.delta)
        if self.delta is None and n < _MIN_N_DEFAULT_DELTA:
            warnings.warn(
                f"delta=None means 1/n^2 = {delta:.3g} for n = {n} records, which is not small: with fewer than "
                f"{_MIN_N_DEFAULT_DELTA} records it allows publishing about n*delta = {n * delta:.3g} records "
                "outright. Pass delta explicitly (well below 1/n) to choose the guarantee.",
                PrivacyWarning,
                stacklevel=4,
            )
        elif self.delta is not None and delta >= 1.0 / n:
            warnings.warn(
                f"delta = {delta:.3g} is at least 1/n = {1.0 / n:.3g} for n = {n} records: such a guarantee "
                "allows publishing a whole record outright. Choose delta well below 1/n (1/n^2 is common).",
                PrivacyWarning,
                stacklevel=4,
            )
        rho = delta / 10.0 if self.rho is None else check_probability(self.rho, "rho")
        return delta, rho


class FastIHMRegressor(_SketchedRegressorBase):
    """Differentially private least squares with FastIHM (FastMix paper, Algorithm 2).

    Parameters
    ----------
    epsilon : float, default=1.0
    delta : float or None, default=None
        None means 1/n^2 (Appendix H).
    n_iter : int, default=4
        T, the number of iterations (Appendix H uses 4).
    k1, k2 : int or None
        Gaussian and SRHT rows; None means the paper's choice ``6 max{d, log(4T/rho)}`` and
        ``k2_ratio max{d, log(4T/rho)}`` (:func:`paper_sketch_sizes`), the default k2 being capped
        at the padded n (recorded in ``diagnostics_``).
    k2_ratio : float, default=800.0
        The paper's most accurate ratio (Figure 2 uses 4, 400 and 800; the larger k2, the closer
        FastIHM comes to IHM, at more transform cost), capped at the padded n. ``fit`` warns
        (:class:`NoiseDominatesWarning`) when the released eta^2 exceeds 10 n/d, where the fit
        would be shrunk towards zero; the message names the estimators that add less noise.
    rho : float or None
        Utility failure probability; None means delta/10.
    clip : float, default=1.0
        C, the bound on ``|y_i|`` and the residual clipping level.
    calibration : {"tight", "closed_form"}, default="tight"
    shared_eta, omit_eta_term, m_floor : see :func:`fast_ihm`.
    row_norm_policy, y_policy, n_policy : see :func:`prepare_regression`. With
        ``"rescale"`` the estimator works on any data (coefficients are mapped back to the
        original units) but the data-dependent scaling is not private.
    fit_intercept : bool, default=True
        Fit an intercept through a constant coordinate appended within the norm bound (no
        data-dependent step; same privacy guarantee, some accuracy cost: see the class notes of
        the base estimator below). False is the paper's setting.
    intercept_scaling : float, default=1.0
        The constant ``c`` appended to each row (the rows are then divided by ``sqrt(1 + c^2)``).
    ledger : PrivacyLedger or None, default=None
        An outer budget for the data set: every fit charges its cost there too, and a fit that
        would take it past its target is refused before the data are touched
        (:class:`~fastmix.accounting.BudgetExceededError`). Repeated fits on the same data
        (cross-validation, a grid search, refits) compose in it. scikit-learn's ``clone`` keeps
        the same ledger (a ledger is never copied); in another process (``n_jobs > 1``) it refuses
        to spend. Without it each fit has its own ledger at the full ``(epsilon, delta)``, and
        ``k`` fits on the same data cost ``k`` times that: plain ``GridSearchCV`` over ``G``
        candidates with ``F`` folds spends the budget about ``G F + 1`` times.
    random_state : None, int, SeedSequence or Generator
    gaussian_step : {"explicit", "gram"}, default="explicit"
        How the Gaussian step is sampled; the same law either way (see :func:`fast_ihm`).

    Attributes
    ----------
    coef_ : ndarray of shape (d,)
    intercept_ : float (0 when ``fit_intercept=False``)
    privacy_ledger_ : PrivacyLedger
    diagnostics_ : dict
    data_record_ : DataRecord
    result_ : RegressionResult
    """

    def __init__(
        self,
        epsilon=1.0,
        delta=None,
        *,
        n_iter=4,
        k1=None,
        k2=None,
        k2_ratio=800.0,
        rho=None,
        clip=1.0,
        calibration="tight",
        shared_eta=True,
        omit_eta_term=True,
        m_floor=0.0,
        row_norm_policy="raise",
        y_policy="raise",
        n_policy="pad",
        fit_intercept=True,
        intercept_scaling=1.0,
        ledger=None,
        random_state=None,
        gaussian_step="explicit",
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.n_iter = n_iter
        self.k1 = k1
        self.k2 = k2
        self.k2_ratio = k2_ratio
        self.gaussian_step = gaussian_step
        self.rho = rho
        self.clip = clip
        self.calibration = calibration
        self.shared_eta = shared_eta
        self.omit_eta_term = omit_eta_term
        self.m_floor = m_floor
        self.row_norm_policy = row_norm_policy
        self.y_policy = y_policy
        self.n_policy = n_policy
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.ledger = ledger
        self.random_state = random_state

    def _solve(self, X, y, rng):
        n, d = X.shape
        delta, rho = self._delta_rho(n)
        T = check_positive_int(self.n_iter, "n_iter")
        dk1, dk2 = paper_sketch_sizes(d, T, rho, self.k2_ratio)
        n_used = power_of_two_size(n, "subsample" if self.n_policy == "subsample" else "pad")
        k1 = dk1 if self.k1 is None else self.k1
        k2 = min(dk2, n_used) if self.k2 is None else self.k2
        theta, res = fast_ihm(
            X,
            y,
            epsilon=self.epsilon,
            delta=delta,
            k1=k1,
            k2=k2,
            T=T,
            rho=rho,
            clip=self.clip,
            method=self.calibration,
            random_state=rng,
            shared_eta=self.shared_eta,
            omit_eta_term=self.omit_eta_term,
            m_floor=self.m_floor,
            row_norm_policy=self.row_norm_policy,
            y_policy=self.y_policy,
            n_policy=self.n_policy,
            ledger=self.ledger,
            gaussian_step=self.gaussian_step,
        )
        res.diagnostics["k2_capped_at_n"] = self.k2 is None and dk2 > n_used
        # Post-processing of public (n, d) and the released eta only: with rows of norm <= 1,
        # trace(X^T X) <= n, so n/d bounds the average eigenvalue of the Hessian X^T X.
        ratio = float(res.diagnostics["eta"]) ** 2 / (n / d)
        res.diagnostics["eta_sq_over_n_per_d"] = ratio
        if ratio > NOISE_DOMINATES_RATIO:
            warnings.warn(
                f"FastIHM's Hessian noise dominates: eta^2 = {float(res.diagnostics['eta']) ** 2:.3g} is {ratio:.3g} "
                f"times n/d = {n / d:.3g}, which bounds the average eigenvalue of X^T X for rows of norm <= 1, so "
                f"the fit is shrunk towards zero. At n = {n}, d = {d}, epsilon = {self.epsilon:g}, IHMRegressor or "
                f"AdaSSPRegressor adds less noise; or raise k2 (k2_ratio={self.k2_ratio:g}, k2={k2}) or epsilon.",
                NoiseDominatesWarning,
                stacklevel=3,
            )
        return theta, res


class IHMRegressor(_SketchedRegressorBase):
    """Differentially private least squares with IHM (Lev et al. 2026; see :func:`ihm`).

    Parameters as :class:`FastIHMRegressor` (``fit_intercept`` and ``intercept_scaling`` included); ``k``
    (None: ``6 max{d, log(4T/rho)}``, Appendix H)
    is the number of Gaussian rows, ``sketch`` is ``"dense"`` or ``"gram"`` (same distribution).
    """

    def __init__(
        self,
        epsilon=1.0,
        delta=None,
        *,
        n_iter=4,
        k=None,
        rho=None,
        clip=1.0,
        sketch="dense",
        omit_eta_term=True,
        row_norm_policy="raise",
        y_policy="raise",
        fit_intercept=True,
        intercept_scaling=1.0,
        ledger=None,
        random_state=None,
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.n_iter = n_iter
        self.k = k
        self.rho = rho
        self.clip = clip
        self.sketch = sketch
        self.omit_eta_term = omit_eta_term
        self.row_norm_policy = row_norm_policy
        self.y_policy = y_policy
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.ledger = ledger
        self.random_state = random_state

    def _solve(self, X, y, rng):
        n, d = X.shape
        delta, rho = self._delta_rho(n)
        T = check_positive_int(self.n_iter, "n_iter")
        k = paper_sketch_sizes(d, T, rho)[0] if self.k is None else self.k
        return ihm(
            X,
            y,
            epsilon=self.epsilon,
            delta=delta,
            k=k,
            T=T,
            rho=rho,
            clip=self.clip,
            random_state=rng,
            row_norm_policy=self.row_norm_policy,
            y_policy=self.y_policy,
            sketch=self.sketch,
            omit_eta_term=self.omit_eta_term,
            ledger=self.ledger,
        )


class FastIHSRegressor(_SketchedRegressorBase):
    """Non-private iterative Hessian sketch with an SRHT (:func:`fast_ihs`); no ledger.

    ``fit_intercept=True`` appends the constant ``intercept_scaling`` without rescaling the rows.

    ``k=None`` means ``6 max{d, log(4T/rho)}`` with ``rho = 1/(10 n^2)`` (Figure 2 legend), capped
    at the padded n.
    """

    _private = False

    def __init__(
        self,
        *,
        n_iter=4,
        k=None,
        ridge=1e-5,
        n_policy="pad",
        fit_intercept=True,
        intercept_scaling=1.0,
        random_state=None,
    ):
        self.n_iter = n_iter
        self.k = k
        self.ridge = ridge
        self.n_policy = n_policy
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.random_state = random_state

    def _solve(self, X, y, rng):
        n, d = X.shape
        T = check_positive_int(self.n_iter, "n_iter")
        rho = 1.0 / (10.0 * max(n, 2) ** 2)
        n_used = power_of_two_size(n, "subsample" if self.n_policy == "subsample" else "pad")
        k = min(paper_sketch_sizes(d, T, rho)[0], n_used) if self.k is None else self.k
        return fast_ihs(X, y, k=k, T=T, random_state=rng, ridge=self.ridge, n_policy=self.n_policy)


class AdaSSPRegressor(_SketchedRegressorBase):
    """Differentially private least squares with AdaSSP (Wang 2018; :func:`adassp`).

    Parameters as :class:`FastIHMRegressor` (``fit_intercept`` and ``intercept_scaling`` included).
    """

    def __init__(
        self,
        epsilon=1.0,
        delta=None,
        *,
        rho=None,
        clip=1.0,
        row_norm_policy="raise",
        y_policy="raise",
        fit_intercept=True,
        intercept_scaling=1.0,
        ledger=None,
        random_state=None,
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.rho = rho
        self.clip = clip
        self.row_norm_policy = row_norm_policy
        self.y_policy = y_policy
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.ledger = ledger
        self.random_state = random_state

    def _solve(self, X, y, rng):
        n, d = X.shape
        delta, rho = self._delta_rho(n)
        return adassp(
            X,
            y,
            epsilon=self.epsilon,
            delta=delta,
            rho=rho,
            clip=self.clip,
            random_state=rng,
            row_norm_policy=self.row_norm_policy,
            y_policy=self.y_policy,
            ledger=self.ledger,
        )
