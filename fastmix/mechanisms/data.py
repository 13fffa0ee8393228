"""The checks every mechanism runs before it touches the data.

:func:`prepare_data` validates X, enforces the public row-norm bound ``||x_i|| <= C_X`` (the
FastMix paper takes C_X = 1; Algorithm 3 scales the sensitivities by it) and brings the number of
rows to a power of two, as the Walsh-Hadamard transform of the SRHT needs. Padding with zero rows
keeps the guarantee: under zero-out neighbouring (Section 2.1) a zero row is the same as an absent
record. What was changed is returned in :class:`PreparedData`. The private helpers check the
calibration object and the number of SRHT rows that the mechanisms receive.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import NormEnforcement, check_matrix, check_policy, check_positive_int, check_row_norms, dask_route
from ..hadamard import PowerOfTwoRecord, is_power_of_two, rows_to_power_of_two

__all__ = ["PreparedData", "prepare_data", "prepare_any", "N_POLICIES"]

#: How :func:`prepare_data` reaches a number of rows that is a power of two.
N_POLICIES = ("pad", "raise")


@dataclass(frozen=True)
class PreparedData:
    """Data after the checks every mechanism runs, with a record of what was changed."""

    X: np.ndarray
    row_norms: NormEnforcement
    padding: PowerOfTwoRecord


def prepare_data(X, *, c_x: float = 1.0, row_norm_policy: str = "raise", n_policy: str = "pad") -> PreparedData:
    """Validate X, enforce ``||x_i|| <= c_x`` and make n a power of two.

    Parameters
    ----------
    X : array-like of shape (n, d)
    c_x : float, default=1.0
        Public row-norm bound C_X.
    row_norm_policy : {"raise", "clip", "rescale"}
        See ``fastmix._validation.check_row_norms``.
    n_policy : {"pad", "raise"}
        ``"pad"`` appends zero rows up to the next power of two. A zero row is the same as an
        absent record under zero-out neighbouring (FastMix paper, Section 2.1), so this loses
        nothing and keeps the privacy guarantee. ``"raise"`` refuses such n.

    Returns
    -------
    PreparedData
        ``X`` in Fortran order (so ``X.T`` is a C-contiguous transform batch), float64.
    """
    X = check_matrix(X, "X", check_finite=False)  # the row norms below refuse NaN and inf
    check_policy(n_policy, "n_policy", N_POLICIES)
    X, norms = check_row_norms(X, bound=c_x, policy=row_norm_policy)
    n = X.shape[0]
    if n_policy == "raise" and not is_power_of_two(n):
        raise ValueError(
            f"X has n = {n} rows, which is not a power of two, and n_policy='raise'. Use n_policy='pad' "
            "(zero rows; lossless under zero-out neighbours) or subsample the data yourself."
        )
    X, _, record = rows_to_power_of_two(X, method="pad", order="F", dtype=np.float64)
    return PreparedData(X, norms, record)


def _check_calibration(calibration, expected: type, how: str, function: str):
    """TypeError unless ``calibration`` is an instance of ``expected``; says how to get one."""
    if not isinstance(calibration, expected):
        raise TypeError(
            f"{function} needs calibration to be a {expected.__name__}; got "
            f"{type(calibration).__name__ if calibration is not None else 'None'}. Build one with {how}."
        )
    return calibration


def _check_k2(k2, n: int) -> int:
    return check_positive_int(
        k2, "k2", maximum=n, hint=f"k2 is the number of SRHT rows and cannot exceed n = {n} (after padding); lower k2."
    )


@dask_route("mechanisms.prepare_any", on="X")
def prepare_any(X, *, c_x: float, row_norm_policy: str, n_policy: str):
    """:func:`prepare_data` for a NumPy X, :func:`fastmix.chunked.mechanisms.prepare_chunked` for a Dask X.

    Returns ``(data, rechunking)``: the :class:`PreparedData` (X stays a Dask array in the second
    case) and the :class:`fastmix.chunked.Rechunking` applied to a Dask X (None for a NumPy X).
    """
    return prepare_data(X, c_x=c_x, row_norm_policy=row_norm_policy, n_policy=n_policy), None
