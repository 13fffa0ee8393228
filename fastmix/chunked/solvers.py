"""The Dask implementations of the regression solvers and estimators, registered on import.

Loaded by :mod:`fastmix.chunked.routes`. Each function is the route of the in-memory function
named in its docstring (:func:`fastmix._validation.dask_route`), with the same arguments; only
sketches, d-vectors, d x d matrices and scalars reach the client.
"""

from __future__ import annotations

import math
from typing import Any

import dask.array as da
import numpy as np

from .._validation import (
    NORM_TOLERANCE,
    ROUNDING,
    NormEnforcement,
    check_dask_matrix,
    check_dask_rows,
    check_positive,
    dask_vector_like,
    register_dask_route,
    row_norm_error,
)
from ..hadamard import PowerOfTwoRecord, power_of_two_size
from ..regression.data import (
    CHUNKED_POLICIES,
    UNCHECKED,
    Y_TOLERANCE,
    DataRecord,
    PreparedRegression,
    warn_clipped_responses,
    y_bound_error,
)
from .cluster import check_worker_versions
from .mechanisms import chunked_row_statistics, clip_rows
from .sketch import ChunkedSRHT, chunked_sketches, pad_and_align


# ------------------------------------------------------------------------------ preparation
@register_dask_route("regression.prepare")
def prepare_regression(
    X, y, *, clip, row_norm_policy, y_policy, n_policy, random_state, power_of_two
) -> PreparedRegression:
    """:func:`fastmix.regression.prepare_regression` for a Dask array X: one pass of checks, per-record maps kept lazy.

    The pass computes, chunk by chunk, whether X and y are finite, the row norms (overflow-safe,
    :func:`fastmix._validation.row_norms`), the largest |y_i| and how many rows and responses
    exceed their bounds (:func:`fastmix.chunked.mechanisms.chunked_row_statistics`). ``"raise"``
    then refuses a violated bound with the same message as for an in-memory X; ``"clip"`` projects
    the offending rows onto the unit ball and clips the offending responses, lazily, as the
    in-memory path does. For the SRHT-based solvers (``power_of_two``) X must be chunked along rows
    only; ``n_policy="pad"`` appends zero rows lazily (recorded as ``rows_added``, as in memory) and
    the row chunks become aligned powers of two (:func:`fastmix.chunked.pad_and_align`, recorded in
    ``rechunking``); ``"subsample"`` is refused. X and y stay Dask arrays with one column chunk;
    the record is the same as for the in-memory path.
    """
    unchecked = row_norm_policy == UNCHECKED
    if not unchecked:
        for name, policy in (("row_norm_policy", row_norm_policy), ("y_policy", y_policy)):
            if policy not in CHUNKED_POLICIES:
                raise ValueError(
                    f"with a Dask X, {name} must be one of {CHUNKED_POLICIES} (maps of one record at a time); got "
                    f"{policy!r}. 'rescale' divides by the observed maximum, which is not private: divide by a "
                    "public bound before the solver instead."
                )
    if power_of_two and n_policy == "subsample":
        raise ValueError(
            "n_policy='subsample' draws a random subset of the rows and is not available for a Dask X; use "
            "n_policy='pad' (zero rows appended lazily; lossless under zero-out neighbours) or 'raise'."
        )
    X = check_dask_rows(X) if power_of_two else check_dask_matrix(X)
    check_worker_versions()
    n = int(X.shape[0])
    y = dask_vector_like(y, X)
    clip = check_positive(clip, "clip")
    n_used = power_of_two_size(n, "pad") if power_of_two else n
    if n_used != n and n_policy == "raise":
        raise ValueError(
            f"X has n = {n} rows, which is not a power of two, and n_policy='raise'. Use n_policy='pad' "
            "(zero rows appended lazily; lossless under zero-out neighbours)."
        )
    x_limit = math.inf if unchecked else 1.0 + NORM_TOLERANCE
    stats = chunked_row_statistics(X, y, x_limit=x_limit, y_limit=math.inf if unchecked else clip * (1.0 + Y_TOLERANCE))
    max_norm, n_over, max_y, y_over = stats.max_norm, stats.n_rows_over, stats.max_abs_y, stats.n_y_over
    if unchecked:
        norms = NormEnforcement(UNCHECKED, math.inf, 0, max_norm)
    else:
        if row_norm_policy == "raise" and n_over:
            raise row_norm_error(n_over, max_norm, 1.0, rescale=False)
        if y_policy == "raise" and y_over:
            raise y_bound_error(y_over, clip, max_y, rescale=False)
        X = clip_rows(X, stats, 1.0, x_limit)  # row_norm_policy == "clip" when rows are over
        if max_y > clip * (1.0 + ROUNDING):  # over C, or within the tolerance of it: onto [-C, C]
            y = da.clip(y, -clip, clip)
        if y_over:
            warn_clipped_responses(y_over, n, clip)
        norms = NormEnforcement(row_norm_policy, 1.0, n_over if row_norm_policy == "clip" else 0, max_norm)
    rechunking = None
    if power_of_two:
        X, y, rechunking = pad_and_align(X, n_used, y)
        rows = PowerOfTwoRecord("pad", n, n_used) if n_used != n else PowerOfTwoRecord.unchanged(n)
    else:
        rows = PowerOfTwoRecord.unchanged(n)
    record = DataRecord(
        n_original=n,
        n_used=n_used,
        n_policy=n_policy if power_of_two else "none",
        rows_added=n_used - n,
        rows_dropped=0,
        row_norms=norms,
        y_policy=y_policy,
        y_bound=clip,
        y_rows_over=y_over,
        y_scale=1.0,
        power_of_two=rows,
    )
    return PreparedRegression(X, y, record, None, rechunking=rechunking, max_abs_y=max_y)


# ------------------------------------------------------------------------------ sums over the row chunks
@register_dask_route("regression.gram")
def gram(X) -> np.ndarray:
    """:func:`fastmix.regression.result.gram`: a tree sum of the chunks' Gram matrices."""
    return np.asarray((X.T @ X).compute(), dtype=np.float64)


@register_dask_route("regression.cross")
def cross(X, y) -> np.ndarray:
    """:func:`fastmix.regression.result.cross`: ``X^T y`` as a tree sum over the row chunks."""
    return np.asarray((X.T @ y).compute(), dtype=np.float64)


def _gradient_block(X_chunk: np.ndarray, y_chunk: np.ndarray, theta: np.ndarray, clip: float | None) -> np.ndarray:
    """One row chunk's ``X_c^T clip_C(y_c - X_c theta)``, as a (1, d) block of the tree sum (the in-memory steps)."""
    r = X_chunk @ theta
    np.subtract(y_chunk[:, 0], r, out=r)
    if clip is not None:
        np.clip(r, -clip, clip, out=r)
    return (X_chunk.T @ r)[None, :]


@register_dask_route("regression.clipped_gradient")
def clipped_gradient(X, y, theta: np.ndarray, clip: float | None) -> np.ndarray:
    """``X^T clip_C(y - X theta)`` of the solvers for a Dask X.

    Each row chunk computes its own d-vector in one task (both BLAS passes while the chunk is at
    hand) and the d-vectors are summed as a tree; the result is a NumPy vector (y is rechunked like
    the rows of X when it is not already).
    """
    Xd: Any = X
    d = Xd.shape[1]
    yd: Any = da.asarray(y)
    if yd.chunks[0] != Xd.chunks[0]:
        yd = yd.rechunk((Xd.chunks[0],))
    parts = Xd.map_blocks(
        _gradient_block,
        yd[:, None],
        np.asarray(theta, dtype=np.float64),
        clip,
        chunks=(1, d),
        dtype=np.float64,
        meta=np.empty((0, 0)),
    )
    return np.asarray(parts.sum(axis=0).compute(), dtype=np.float64)


# ------------------------------------------------------------------------------ solvers
@register_dask_route("regression.dense_sketch_input")
def refuse_dense_sketch(X) -> None:
    """``ihm(sketch="dense")`` needs X in memory: refused for a Dask X."""
    raise ValueError(
        "sketch='dense' draws a k x n Gaussian matrix in row order and needs X in memory; with a Dask X "
        "use sketch='gram', which releases the same distribution from the d x d Gram matrix."
    )


@register_dask_route("regression.ihs_sketches")
def ihs_sketches(X, k: int, T: int, rng, backend) -> list[np.ndarray]:
    """FastIHS's T sketches: the T draws taken first, in the in-memory order, then one pass over the chunks."""
    n = int(X.shape[0])
    Zs, _ = chunked_sketches(
        X, [ChunkedSRHT(n, k, random_state=rng, backend=backend) for _ in range(T)], check_finite=False
    )
    return list(Zs)


@register_dask_route("regression.ols")
def ols(X, y) -> np.ndarray:
    """:func:`fastmix.regression.ols` of a Dask X by Dask's tall-and-skinny QR (:func:`dask.array.linalg.lstsq`)."""
    X = check_dask_matrix(X)
    d = int(X.shape[1])
    if min(X.chunks[0]) < d:
        raise ValueError(
            f"every row chunk of X must hold at least d = {d} rows for the QR solve; the shortest holds "
            f"{min(X.chunks[0])}. Rechunk X along rows (e.g. X.rechunk({{0: {max(4 * d, 4096)}}}))."
        )
    y = dask_vector_like(y, X)
    ok_x, ok_y = da.compute(da.isfinite(X).all(), da.isfinite(y).all())
    if not (ok_x and ok_y):
        raise ValueError(f"{'X' if not ok_x else 'y'} contains NaN or inf values; remove or impute them first.")
    return np.asarray(da.linalg.lstsq(X, y)[0].compute(), dtype=np.float64)


# ------------------------------------------------------------------------------ estimators
@register_dask_route("regression.estimator_input")
def estimator_input(estimator, X, y):
    """A Dask X as float64 chunked along rows; records ``n_features_in_`` as scikit-learn does (y as given)."""
    X = check_dask_rows(X)
    estimator.n_features_in_ = int(X.shape[1])
    if hasattr(estimator, "feature_names_in_"):
        del estimator.feature_names_in_  # a Dask array has no column names
    return X, y


@register_dask_route("regression.append_constant_column")
def append_constant_column(X, divisor: float, value: float):
    """``[X / divisor, value]`` for a Dask X, lazily, as one column chunk (the intercept column)."""
    const = da.full((X.shape[0], 1), value, chunks=(X.chunks[0], 1), dtype=np.float64)
    return da.concatenate([X / divisor, const], axis=1).rechunk({1: -1})
