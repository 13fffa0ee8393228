"""The input checks of the mechanisms and solvers for a Dask X, in one pass and kept lazy.

FastMix (Algorithm 1 of the FastMix paper), MultipleFastMixing (Algorithm 3), FastIHM
(Algorithm 2) and FastIHS accept a Dask array X chunked along rows. Before any random draw they
run the checks of the in-memory path, chunk by chunk and in a single pass over X (and y):

* finiteness of X and y;
* the row norms of X (overflow-safe, ``fastmix._validation.row_norms``), their maximum and
  how many exceed the public bound C_X;
* the largest ``|y_i|`` and how many responses exceed C.

Only these scalars reach the client. The per-record policies (``"raise"`` and ``"clip"``) are then
applied lazily, as the in-memory path applies them; ``"rescale"`` divides by the observed maximum,
which is not private, and is refused for a Dask X. A number of rows that is not a power of two is
padded lazily with zero rows (:func:`fastmix.chunked.pad_and_align`), recorded exactly as in
memory, and the row chunks are made aligned powers of two (recorded in a
:class:`~fastmix.chunked.Rechunking`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import (
    NORM_TOLERANCE,
    ROUNDING,
    NormEnforcement,
    check_dask_rows,
    check_policy,
    row_norm_error,
    row_norms,
)
from ..hadamard import PowerOfTwoRecord, power_of_two_size
from .cluster import check_worker_versions
from .sketch import Rechunking, pad_and_align

__all__ = ["ChunkedRowStatistics", "chunked_row_statistics", "clip_rows", "ChunkedMechanismData", "prepare_chunked"]

#: The row-norm policies that act on one record at a time, hence work chunk by chunk on a Dask X.
CHUNKED_ROW_POLICIES = ("raise", "clip")


@dataclass(frozen=True)
class ChunkedRowStatistics:
    """What the single checking pass over a Dask X (and y) returns to the client: scalars only.

    ``norms`` is the lazy vector of row norms, kept to clip the rows over the bound.
    """

    max_norm: float
    n_rows_over: int
    max_abs_y: float
    n_y_over: int
    norms: object


def _block_norms(block: np.ndarray) -> np.ndarray:
    return row_norms(np.where(np.isfinite(block), block, 0.0))


def _block_statistics(block: np.ndarray, x_limit: float) -> np.ndarray:
    """``[[finite, largest row norm, rows over x_limit]]`` of one chunk, from one read of it.

    :func:`fastmix._validation.row_norms` refuses NaN and inf (a non-finite entry makes its row's
    squared norm non-finite), so the norms prove the chunk finite on the way.
    """
    try:
        norms = row_norms(block)
    except ValueError:
        if np.all(np.isfinite(block)):
            raise  # a row norm beyond the float64 range, not a NaN or inf
        return np.array([[0.0, np.nan, np.nan]])
    return np.array([[1.0, float(norms.max()) if norms.size else 0.0, float(np.count_nonzero(norms > x_limit))]])


def chunked_row_statistics(X, y=None, *, x_limit: float, y_limit: float = math.inf) -> ChunkedRowStatistics:
    """One pass over a Dask X (and y): finiteness, row norms, ``|y|``; ValueError on NaN or inf.

    ``x_limit`` and ``y_limit`` are the thresholds above which a row norm or a response counts as
    over its bound (the bound times ``1 + tolerance``).
    """
    import dask.array as da

    norms = da.map_blocks(_block_norms, X, drop_axis=1, dtype=np.float64)  # lazy: used only to clip rows
    per_chunk = X.map_blocks(_block_statistics, float(x_limit), dtype=np.float64, chunks=(1, 3), meta=np.empty((0, 0)))
    todo = [per_chunk]
    if y is not None:
        abs_y = da.fabs(y)
        todo += [da.isfinite(y).all(), abs_y.max(), (abs_y > y_limit).sum()]
    got = da.compute(*todo)
    stats = np.asarray(got[0], dtype=np.float64).reshape(-1, 3)
    if not np.all(stats[:, 0] == 1.0):
        raise ValueError("X contains NaN or inf values; remove or impute them first.")
    max_y, y_over = 0.0, 0
    if y is not None:
        if not got[1]:
            raise ValueError("y contains NaN or inf values; remove or impute them first.")
        max_y, y_over = float(got[2]), int(got[3])
    max_norm = float(stats[:, 1].max()) if stats.size else 0.0
    return ChunkedRowStatistics(max_norm, int(stats[:, 2].sum()), max_y, y_over, norms)


def clip_rows(X, stats: ChunkedRowStatistics, bound: float, x_limit: float):
    """X with every row of norm above ``bound`` projected onto the ball of radius ``bound`` (lazy).

    The same map as ``fastmix._validation.check_row_norms`` with ``policy="clip"`` (and, for rows
    within rounding of the bound, ``"raise"``): a row longer than ``bound`` is multiplied by
    ``bound / ||x_i||``, every other row by 1 (unchanged). ``x_limit`` is the threshold above which
    a row counted as over the bound (``stats.n_rows_over``); rows between ``bound`` and ``x_limit``
    are rounding, projected all the same.
    """
    import dask.array as da

    if not stats.max_norm > bound * (1.0 + ROUNDING):
        return X
    norms: Any = stats.norms
    scale = da.where(norms > bound, bound / da.maximum(norms, 1e-300), 1.0)
    return X * scale[:, None]


@dataclass(frozen=True)
class ChunkedMechanismData:
    """A Dask X after the mechanisms' checks: aligned row chunks, one column chunk, float64.

    ``row_norms`` and ``padding`` are the records the in-memory :func:`fastmix.mechanisms.prepare_data`
    returns for the same X; ``rechunking`` says how the row chunks were changed (padding included).
    """

    X: object
    row_norms: NormEnforcement
    padding: PowerOfTwoRecord
    rechunking: Rechunking


def prepare_chunked(X, *, c_x: float = 1.0, row_norm_policy: str = "raise", n_policy: str = "pad"):
    """:func:`fastmix.mechanisms.prepare_data` for a Dask X: one checking pass, the rest lazy.

    Parameters
    ----------
    X : Dask array of shape (n, d), chunked along rows only
    c_x : float
        Public row-norm bound C_X.
    row_norm_policy : {"raise", "clip"}
        As in memory; ``"rescale"`` (not private) is refused with a ValueError.
    n_policy : {"pad", "raise"}
        ``"pad"`` appends zero rows lazily up to the next power of two (recorded as in memory).

    Returns
    -------
    ChunkedMechanismData
    """
    if row_norm_policy not in CHUNKED_ROW_POLICIES:
        raise ValueError(
            f"with a Dask X, row_norm_policy must be one of {CHUNKED_ROW_POLICIES} (maps of one record at a "
            f"time); got {row_norm_policy!r}. 'rescale' divides by the observed maximum, which is not private: "
            "divide X by a public bound before the mechanism instead."
        )
    check_policy(n_policy, "n_policy", ("pad", "raise"))
    X = check_dask_rows(X)
    check_worker_versions()
    n = int(X.shape[0])
    n_used = power_of_two_size(n, "pad")
    if n_policy == "raise" and n_used != n:
        raise ValueError(
            f"X has n = {n} rows, which is not a power of two, and n_policy='raise'. Use n_policy='pad' "
            "(zero rows appended lazily; lossless under zero-out neighbours)."
        )
    limit = c_x * (1.0 + NORM_TOLERANCE)
    stats = chunked_row_statistics(X, x_limit=limit)
    if row_norm_policy == "raise":
        if stats.n_rows_over:
            raise row_norm_error(stats.n_rows_over, stats.max_norm, c_x, rescale=False)
        X = clip_rows(X, stats, c_x, limit)  # rows within rounding of the bound, onto it
        norms = NormEnforcement("raise", c_x, 0, stats.max_norm)
    else:
        X = clip_rows(X, stats, c_x, limit)
        norms = NormEnforcement("clip", c_x, stats.n_rows_over, stats.max_norm)
    X, _, plan = pad_and_align(X, n_used)
    padding = PowerOfTwoRecord("pad", n, n_used) if n_used != n else PowerOfTwoRecord.unchanged(n)
    return ChunkedMechanismData(X, norms, padding, plan)
