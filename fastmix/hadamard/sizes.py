"""Lengths the transform accepts (powers of two) and the one step that brings a data matrix there.

``rows_to_power_of_two`` pads with zero rows (``"pad"``, lossless under zero-out neighbouring)
or keeps a uniform subsample (``"subsample"``, as the paper's experiments did) and returns a
``PowerOfTwoRecord`` of what it did; ``power_of_two_size`` says how many rows it returns
and ``check_power_of_two_length`` refuses any other length with a message naming the fix.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Literal

import numpy as np

from .._validation import check_random_state

__all__ = [
    "is_power_of_two",
    "next_power_of_two",
    "rows_to_power_of_two",
    "power_of_two_size",
    "POWER_OF_TWO_METHODS",
    "PowerOfTwoRecord",
    "pad_rows_to_power_of_two",
    "check_power_of_two_length",
]


def is_power_of_two(n: int) -> bool:
    """True when ``n`` is a positive power of two (1, 2, 4, ...)."""
    n = int(n)
    return n >= 1 and (n & (n - 1)) == 0


def next_power_of_two(n: int) -> int:
    """Smallest power of two that is >= ``n`` (``n >= 1``)."""
    n = int(n)
    if n < 1:
        raise ValueError(f"n must be >= 1; got {n}.")
    return 1 << (n - 1).bit_length()


#: The two ways :func:`rows_to_power_of_two` reaches a power of two.
POWER_OF_TWO_METHODS = ("pad", "subsample")


@dataclass(frozen=True, eq=False)
class PowerOfTwoRecord:
    """What :func:`rows_to_power_of_two` did to the number of rows.

    Attributes
    ----------
    method : {"none", "pad", "subsample"}
        ``"none"`` when ``n`` already was a power of two (nothing added or removed).
    n_original : int
        Rows that came in.
    n_used : int
        Rows that went out (a power of two).
    indices : ndarray of int or None
        For ``"subsample"``, the original rows kept, in increasing order (read-only);
        ``None`` otherwise (all rows kept, in order, then zero rows for ``"pad"``).

    Notes
    -----
    Under zero-out neighbouring (FastMix paper, Section 2.1) a zero row is the same as an
    absent record, so padding loses no data and changes no privacy guarantee. Subsampling
    drops ``n_dropped`` records (what the paper's experiments did, Appendix H).

    ``PowerOfTwoRecord`` of :mod:`fastmix.datasets` is this class. Its earlier names
    ``fastmix.hadamard.PaddingRecord``, ``n_padded`` (for ``n_used``), ``n_before`` (for
    ``n_original``) and ``n_after`` (for ``n_used``) still work and emit a :class:`FutureWarning`.
    """

    method: str
    n_original: int
    n_used: int
    indices: np.ndarray | None = None

    def __post_init__(self):
        if self.method not in ("none", *POWER_OF_TWO_METHODS):
            raise ValueError(f"method must be 'none', 'pad' or 'subsample'; got {self.method!r}.")
        if self.indices is not None:
            indices = np.array(self.indices, dtype=np.intp)
            indices.setflags(write=False)
            object.__setattr__(self, "indices", indices)

    @classmethod
    def unchanged(cls, n: int) -> PowerOfTwoRecord:
        """The record of ``n`` rows kept as they are (``n`` already a power of two)."""
        return cls("none", int(n), int(n))

    @property
    def n_added(self) -> int:
        """Zero rows appended (``"pad"``)."""
        return max(self.n_used - self.n_original, 0)

    @property
    def n_dropped(self) -> int:
        """Rows removed (``"subsample"``)."""
        return max(self.n_original - self.n_used, 0)

    @property
    def padded(self) -> bool:
        """Whether zero rows were appended."""
        return self.n_added > 0

    @property
    def n_padded(self) -> int:
        """Deprecated alias of :attr:`n_used` (emits a FutureWarning)."""
        _deprecated("PowerOfTwoRecord.n_padded", "PowerOfTwoRecord.n_used")
        return self.n_used

    @property
    def n_before(self) -> int:
        """Deprecated alias of :attr:`n_original` (emits a FutureWarning)."""
        _deprecated("PowerOfTwoRecord.n_before", "PowerOfTwoRecord.n_original")
        return self.n_original

    @property
    def n_after(self) -> int:
        """Deprecated alias of :attr:`n_used` (emits a FutureWarning)."""
        _deprecated("PowerOfTwoRecord.n_after", "PowerOfTwoRecord.n_used")
        return self.n_used

    def describe(self) -> str:
        """One human-readable line, as recorded in :attr:`fastmix.datasets.Dataset.preprocessing`."""
        if self.method == "pad":
            return (
                f"padded {self.n_original} rows with {self.n_added} zero rows to n = {self.n_used} "
                "(lossless under zero-out neighbouring)"
            )
        if self.method == "subsample":
            return (
                f"subsampled {self.n_used} of {self.n_original} rows uniformly without replacement "
                f"to reach a power of two (dropped {self.n_dropped} rows)"
            )
        return f"n = {self.n_original} is already a power of two; nothing added or dropped"

    def _key(self):
        return (self.method, self.n_original, self.n_used, None if self.indices is None else self.indices.tobytes())

    def __eq__(self, other):
        if not isinstance(other, PowerOfTwoRecord):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self) -> str:  # the indices can be long: show how many
        extra = "" if self.indices is None else f", indices=<{self.indices.size} rows>"
        return f"PowerOfTwoRecord(method={self.method!r}, n_original={self.n_original}, n_used={self.n_used}{extra})"


def _deprecated(old: str, new: str, stacklevel: int = 3) -> None:
    warnings.warn(
        f"{old} is deprecated and will be removed in the next minor version; use {new}.",
        FutureWarning,
        stacklevel=stacklevel,
    )


def power_of_two_size(n: int, method: str = "pad") -> int:
    """The number of rows :func:`rows_to_power_of_two` returns for ``n`` rows.

    ``n`` itself when it is a power of two; otherwise ``2^ceil(log2 n)`` for ``"pad"`` and
    ``2^floor(log2 n)`` for ``"subsample"``.
    """
    n = int(n)
    if is_power_of_two(n):
        return n
    if method == "subsample":
        if n < 1:
            raise ValueError(f"Cannot subsample {n} rows to a power of two; n must be at least 1.")
        return 1 << (n.bit_length() - 1)
    return next_power_of_two(max(n, 1))


def rows_to_power_of_two(
    X,
    y=None,
    *,
    method: str = "pad",
    random_state=None,
    order: Literal["C", "F"] = "F",
    dtype=np.float64,
    copy: bool = False,
):
    """Bring the number of rows of ``X`` (and of ``y``) to a power of two, as the transform needs.

    The Walsh-Hadamard transform (eq. 13) and the SRHT (Definition 3) need ``n = 2^p``.
    Two ways to get there, both recorded in the returned :class:`~fastmix.hadamard.PowerOfTwoRecord`:

    * ``"pad"`` appends zero rows (and zero responses) up to ``2^ceil(log2 n)``. Under
      zero-out neighbouring (FastMix paper, Section 2.1) a zero row is an absent record, so
      this loses no data; ``X^T X`` and ``X^T y`` do not change.
    * ``"subsample"`` keeps ``2^floor(log2 n)`` rows drawn uniformly without replacement
      (``np.sort(rng.choice(n, size=m, replace=False))``: kept rows stay in their original
      order), as the paper's experiments did (Appendix H).

    When ``n`` already is a power of two nothing is added, dropped or drawn (``random_state``
    is not used) and the record's method is ``"none"``.

    Parameters
    ----------
    X : array-like of shape (n, d)
    y : array-like of shape (n, ...), optional
    method : {"pad", "subsample"}, default="pad"
    random_state : None, int, SeedSequence or Generator
        Used by ``"subsample"`` only (a Generator continues its stream).
    order : {"F", "C"}, default="F"
        Memory order of the returned matrix; ``"F"`` is the transform-ready layout
        (``X.T`` is then a C-contiguous batch).
    dtype : dtype or None, default=float64
        dtype of the returned matrix; ``None`` keeps a floating dtype of ``X`` (float64 otherwise).
        The returned ``y`` is at least float64.
    copy : bool, default=False
        Return new arrays even when nothing changes (padding and subsampling always copy).

    Returns
    -------
    X_out : ndarray of shape (m, d)
    y_out : ndarray or None
    record : PowerOfTwoRecord

    Raises
    ------
    ValueError
        For an unknown ``method``, an ``X`` that is not 2-D, a ``y`` whose length is not ``n``,
        and ``"subsample"`` of zero rows.
    """
    if method not in POWER_OF_TWO_METHODS:
        raise ValueError(f"method must be 'pad' or 'subsample'; got {method!r}.")
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D of shape (n, d); got shape {X.shape}.")
    n = X.shape[0]
    if dtype is None:
        dtype = X.dtype if np.issubdtype(X.dtype, np.floating) else np.float64
    if y is not None:
        y = np.asarray(y)
        if y.ndim == 0 or y.shape[0] != n:
            raise ValueError(f"y has {y.shape[0] if y.ndim else 0} entries but X has {n} rows; they must match.")
        y_dtype = np.result_type(y.dtype, np.float64)
    if is_power_of_two(n):
        convert = np.array if copy else np.asarray
        Xo = convert(X, dtype=dtype, order=order)
        yo = None if y is None else convert(y, dtype=y_dtype)
        return Xo, yo, PowerOfTwoRecord.unchanged(n)
    if method == "pad":
        n_pad = power_of_two_size(n, "pad")
        Xp = np.zeros((n_pad, X.shape[1]), dtype=dtype, order=order)
        Xp[:n] = X
        yp = None
        if y is not None:
            yp = np.zeros((n_pad,) + y.shape[1:], dtype=y_dtype)
            yp[:n] = y
        return Xp, yp, PowerOfTwoRecord("pad", n, n_pad)
    m = power_of_two_size(n, "subsample")
    rng = check_random_state(random_state)
    keep = np.sort(rng.choice(n, size=m, replace=False))
    Xs = np.asarray(X[keep], dtype=dtype, order=order)
    ys = None if y is None else np.asarray(y[keep], dtype=y_dtype)
    return Xs, ys, PowerOfTwoRecord("subsample", n, m, indices=keep)


def pad_rows_to_power_of_two(X, y=None, *, order: Literal["C", "F"] = "F"):
    """Deprecated: append zero rows to ``X`` (and zeros to ``y``) up to the next power of two.

    Emits a :class:`FutureWarning`; it is ``rows_to_power_of_two(X, y, method="pad", order=order,
    dtype=None, copy=True)``: a floating dtype of ``X`` is kept and new arrays are always returned.

    Parameters
    ----------
    X : array-like of shape (n, d)
    y : array-like of shape (n,), optional
    order : {"F", "C"}, default="F"
        Memory order of the returned matrix; "F" is the transform-ready layout.

    Returns
    -------
    X_padded : ndarray of shape (2^ceil(log2 n), d)
    y_padded : ndarray or None
    record : PowerOfTwoRecord
    """
    _deprecated(
        "fastmix.hadamard.pad_rows_to_power_of_two", 'rows_to_power_of_two(X, y, method="pad", dtype=None, copy=True)'
    )
    return rows_to_power_of_two(X, y, method="pad", order=order, dtype=None, copy=True)


def check_power_of_two_length(n: int) -> None:
    """Raise ValueError unless ``n`` is a valid transform length (a power of two, 1, 2, 4, ...).

    The message names the next power of two and how to pad to it.
    """
    if n == 0:
        raise ValueError(
            "The Walsh-Hadamard transform needs a length that is a power of two (1, 2, 4, ...); got length 0."
        )
    if not is_power_of_two(n):
        raise ValueError(
            f"The Walsh-Hadamard transform needs a length that is a power of two; got {n}. "
            f"Pad with zeros to {next_power_of_two(n)} using fastmix.hadamard.rows_to_power_of_two "
            "(method='pad'; lossless under zero-out neighbouring)."
        )
