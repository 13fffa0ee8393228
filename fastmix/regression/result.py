"""The result type shared by every least-squares solver, and the steps the iterative solvers share.

Every solver of the FastMix paper's Section 4 (and its baselines) returns a frozen
:class:`RegressionResult`; the Newton-type update ``theta_t+1 = theta_t + H_t^{-1} G_t`` of
Algorithm 2 is built from the helpers here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import linalg as sla

from .. import accounting as acc
from .._compat import UnpacksAsTuple
from .._validation import dask_route
from .data import DataRecord


@dataclass(frozen=True)
class RegressionResult(UnpacksAsTuple):
    """What every least-squares solver of the package returns: the estimate and how it was obtained.

    Read the estimate as ``result.theta``. For one minor version the result can still be
    unpacked as the former pair, ``theta, result = fast_ihm(...)``; doing so emits a
    :class:`FutureWarning` (write ``result = fast_ihm(...)`` and use ``result.theta``).

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

    _new_usage = "Write `result = solver(...)` and read `result.theta`."

    def _legacy_tuple(self) -> tuple:
        return (self.theta, self)


def _unscale_theta(theta: np.ndarray, record: DataRecord) -> np.ndarray:
    # y_s = b y, X_s = a X, y_s ~ X_s theta_s  =>  y ~ X (a / b) theta_s
    a, b = record.row_norms.scale, record.y_scale
    if a is None or b is None:
        raise ValueError("a published DataRecord keeps no scales; unscale with the record the solver made.")
    if a == 1.0 and b == 1.0:
        return theta
    return theta * (a / b)


def _solve_spd(H: np.ndarray, g: np.ndarray) -> np.ndarray:
    """Solve H u = g for a symmetric H; Cholesky first, least squares if H is singular."""
    try:
        return sla.solve(H, g, assume_a="pos", check_finite=False)
    except (np.linalg.LinAlgError, sla.LinAlgError):
        return np.linalg.lstsq(H, g, rcond=None)[0]


@dask_route("regression.gram", on="X")
def gram(X) -> np.ndarray:
    """``X^T X`` as a NumPy (d, d) array; for a Dask X, a tree sum of the chunks' Gram matrices."""
    return X.T @ X


@dask_route("regression.cross", on="X")
def cross(X, y) -> np.ndarray:
    """``X^T y`` as a NumPy d-vector; for a Dask X, a tree sum over the row chunks."""
    return X.T @ y


@dask_route("regression.clipped_gradient", on="X")
def _clipped_gradient(X: np.ndarray, y: np.ndarray, theta: np.ndarray, clip: float | None) -> np.ndarray:
    """``X^T clip_C(y - X theta)`` (clip=None: no clipping). Two BLAS passes over X.

    For a Dask X and y each row chunk computes its own d-vector in one task (both BLAS passes
    while the chunk is at hand) and the d-vectors are summed as a tree; the result is a NumPy
    vector (y is rechunked like the rows of X when it is not already).
    """
    r = X @ theta
    np.subtract(y, r, out=r)
    if clip is not None:
        np.clip(r, -clip, clip, out=r)
    return X.T @ r
