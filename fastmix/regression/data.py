"""Validation and preparation of ``(X, y)`` for the least-squares solvers, and the record of what was done.

The FastMix paper's solvers (Section 4) assume rows with ``||x_i|| <= 1`` and responses with
``|y_i| <= C``; the SRHT-based ones also need ``n`` to be a power of two. This module checks the
bounds (or applies the policy the caller chose), reaches a power of two by padding with zero rows
(lossless under zero-out neighbours) or by subsampling, and records every step in a
:class:`DataRecord`.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .._validation import (
    ROUNDING,
    ROW_NORM_POLICIES,
    NormEnforcement,
    check_matrix,
    check_policy,
    check_positive,
    check_row_norms,
    check_vector,
    dask_route,
    policy_caveats,
    row_norms,
    warn_responses_clipped,
)
from ..hadamard import PowerOfTwoRecord, is_power_of_two, rows_to_power_of_two
from ..mechanisms import PreparedData

if TYPE_CHECKING:  # a Dask X only: the record of its rechunking
    from ..chunked.sketch import Rechunking


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
    y_rows_over: int | None
    y_scale: float | None = 1.0
    power_of_two: PowerOfTwoRecord | None = None

    @property
    def x_scale(self) -> float | None:
        """Factor X was multiplied by (``"rescale"``), else 1; None in a :meth:`published` record."""
        return self.row_norms.scale

    @property
    def private_preprocessing(self) -> bool:
        """False when a data-dependent policy (``"rescale"``) was chosen, whether or not it had to
        scale anything (that it did not is itself a statistic of the data), or when the bounds
        were not checked at all (the non-private FastIHS)."""
        if self.row_norms.policy == UNCHECKED or self.y_policy == UNCHECKED:
            return False
        return not policy_caveats(row_norm_policy=self.row_norms.policy, y_policy=self.y_policy)

    def published(self) -> DataRecord:
        """This record without the statistics of the data that no mechanism released.

        Kept: the sizes (n is public under zero-out neighbours), the policies, the bound C and
        what was done to reach a power of two (the rows kept by ``"subsample"`` are a random
        draw that does not depend on the data). Removed (set to None): the largest row norm,
        the counts of rows and responses over their bounds and the rescaling factors of the
        ``"rescale"`` policies. A fitted estimator keeps this form unless it was asked to keep
        the unreleased statistics (``keep_unreleased=True``).
        """
        norms = NormEnforcement(self.row_norms.policy, self.row_norms.bound, None, None, None)
        return dataclasses.replace(self, row_norms=norms, y_rows_over=None, y_scale=None)

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

    For a Dask X (then ``X`` and ``y`` are Dask arrays), ``rechunking`` records how the row chunks
    were changed for the SRHT and ``max_abs_y`` is the largest ``|y_i|`` found by the checking pass.
    """

    X: np.ndarray
    y: np.ndarray
    record: DataRecord
    indices: np.ndarray | None = None
    rechunking: Rechunking | None = None
    max_abs_y: float | None = None

    def as_mechanism_data(self) -> PreparedData:
        """View for :func:`fastmix.mechanisms.multiple_fast_mixing` (``prepared=``)."""
        rows = self.record.power_of_two
        if rows is None or rows.method != "pad":  # the mechanism receives the rows already chosen
            rows = PowerOfTwoRecord.unchanged(self.record.n_used)
        return PreparedData(self.X, self.record.row_norms, rows)


Y_TOLERANCE = 1e-9


#: The values of ``y_policy`` accepted by every solver.
Y_POLICIES = ("raise", "clip", "rescale")


#: The values of ``n_policy`` of :func:`prepare_regression`.
N_POLICIES = ("pad", "subsample", "raise")


# Label recorded by the non-private FastIHS, which checks no bound. It is not a policy a caller
# can pass: every private solver checks both bounds.
UNCHECKED = "unchecked"


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

    A Dask array X (y a Dask or NumPy vector) is checked in one pass chunk by chunk and kept
    lazy, with the per-record policies ``"raise"`` and ``"clip"`` only; for the SRHT-based solvers
    (``power_of_two=True``) it must be chunked along rows only, ``n_policy="pad"`` pads it lazily
    and ``"subsample"`` is refused (see ``fastmix.chunked.solvers.prepare_regression``).

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


def y_bound_error(n_over: int, clip: float, largest: float, rescale: bool = True) -> ValueError:
    """The error for responses above C under ``y_policy="raise"``, naming the fixes that apply."""
    also = " or 'rescale' (divide by the observed max; not private)" if rescale else ""
    return ValueError(
        f"{n_over} response(s) have |y_i| above the clipping level C = {clip:g} (largest "
        f"{largest:.6g}). The analysis assumes |y_i| <= C. Divide y by a public bound, raise "
        f"`clip`, or pass y_policy='clip' (clip each response to [-C, C]; recorded){also}."
    )


def warn_clipped_responses(n_over: int, n: int, clip: float) -> None:
    """:class:`~fastmix._validation.ResponseClippingWarning` for ``y_policy="clip"`` when responses were clipped."""
    warn_responses_clipped(
        n_over,
        n,
        f"[-C, C] with C = clip = {clip:g}",
        "divide y by a larger public bound or raise `clip`.",
        stacklevel=5,
    )


#: The policies that act on one record at a time, hence can be applied chunk by chunk to a Dask X.
CHUNKED_POLICIES = ("raise", "clip")


@dask_route("regression.prepare", on="X")
def _prepare_regression(
    X, y, *, clip, row_norm_policy, y_policy, n_policy, random_state, power_of_two
) -> PreparedRegression:
    """:func:`prepare_regression` after the policy checks; ``UNCHECKED`` skips both bounds.

    A Dask X goes to ``fastmix.chunked.solvers.prepare_regression``: one pass of checks, the
    per-record maps kept lazy, the same record.
    """
    X = check_matrix(X, "X", check_finite=False)  # both branches below compute the row norms, which refuse NaN and inf
    n = X.shape[0]
    y = check_vector(y, "y", length=n)
    clip = check_positive(clip, "clip")
    if row_norm_policy == UNCHECKED:  # the non-private FastIHS only
        norms = NormEnforcement(UNCHECKED, math.inf, 0, float(row_norms(X).max()))
    else:
        X, norms = check_row_norms(X, bound=1.0, policy=row_norm_policy)
    y = np.asarray(y, dtype=np.float64)
    abs_y = np.abs(y)
    over = abs_y > clip * (1.0 + Y_TOLERANCE)
    n_over = int(np.count_nonzero(over))
    y_scale = 1.0
    if y_policy in ("raise", "clip"):
        if n_over and y_policy == "raise":
            raise y_bound_error(n_over, clip, float(abs_y.max()))
        if n and float(abs_y.max()) > clip * (1.0 + ROUNDING):  # over C, or within the tolerance: onto [-C, C]
            y = np.clip(y, -clip, clip)
        if n_over:
            warn_clipped_responses(n_over, n, clip)
    elif y_policy == UNCHECKED:  # the non-private FastIHS only
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


def _prepare_nonprivate(X, y, n_policy: str, rng) -> PreparedRegression:
    """Validation for the non-private FastIHS: no norm or response bounds, n to a power of two."""
    check_policy(n_policy, "n_policy", N_POLICIES)
    return _prepare_regression(
        X,
        y,
        clip=1.0,
        row_norm_policy=UNCHECKED,
        y_policy=UNCHECKED,
        n_policy=n_policy,
        random_state=rng,
        power_of_two=True,
    )
