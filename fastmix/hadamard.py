"""Fast Walsh-Hadamard transform (FWHT) in natural (Sylvester) order.

The orthonormal Hadamard matrix of order n = 2^p is defined recursively
(FastMix paper, Appendix B, Definition 4, eq. 13)::

    H~_1 = [1],   H~_2m = [[H~_m,  H~_m],
                           [H~_m, -H~_m]],   H_n = H~_n / sqrt(n).

``H_n`` is symmetric and orthogonal, so it is its own inverse and its own adjoint.
:func:`fwht` applies ``H_n`` (or the unnormalised ``H~_n``) along the last axis of a
1-D vector or of a 2-D batch whose rows are the vectors, in O(n log n) per vector.

Data layout
-----------
The transform runs along the *last* axis of a C-contiguous array. A data matrix
``X`` of shape (n, d) whose columns are to be transformed should therefore be
stored column-major (Fortran order): then ``X.T`` is a C-contiguous (d, n) batch
and no transpose copy is ever made. :func:`transform_layout` converts once; the
SRHT code in :mod:`fastmix.srht` keeps that layout for every later draw. A
transpose copy reads and writes the whole matrix, as the transform does, so
avoiding it matters for a transform that is itself a few passes over memory.

Sizes
-----
The transform needs a length n = 2^p. :func:`rows_to_power_of_two` is the one place that
brings a data matrix there, by zero rows (``"pad"``, lossless under zero-out neighbouring)
or by a uniform subsample (``"subsample"``, as the paper's experiments did), and returns a
:class:`PowerOfTwoRecord` of what it did; the datasets, mechanisms and solvers all use it.

Backends
--------
``"fht-cpu"``
    The compiled SIMD transform of the ``fht-cpu`` wheel (default when installed).
``"ffht"``
    The pybind11 fork of FFHT (``ffht-unofficial``), if installed.
``"numpy"``
    Pure NumPy, always available. It factors ``H~_n = H~_a (x) H~_b (x) ...``
    (Kronecker product of small Hadamard blocks, each at most 2^7) and applies each
    factor as one batched matrix product, which keeps the work in BLAS.

Choose with the ``backend`` argument, with :func:`set_backend`, or with the
environment variable ``FASTMIX_HADAMARD_BACKEND``; :func:`get_backend` reports
the active default and :func:`available_backends` what can be used here.

Threads
-------
``fht-cpu`` transforms each cache-sized chunk with one thread unless whole-batch threading is
asked for (``fastmix.threads.use_threads(0)`` for every core, or ``FASTMIX_THREADS``); see
:mod:`fastmix.threads` for why one thread is the default.
"""

from __future__ import annotations

import os
import threading
import warnings
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Literal

import numpy as np

from ._validation import check_array_kind, check_random_state
from .threads import transform_threads

__all__ = [
    "fwht",
    "available_backends",
    "get_backend",
    "set_backend",
    "use_backend",
    "is_power_of_two",
    "next_power_of_two",
    "rows_to_power_of_two",
    "power_of_two_size",
    "POWER_OF_TWO_METHODS",
    "PowerOfTwoRecord",
    "pad_rows_to_power_of_two",
    "check_power_of_two_length",
    "fwht_rows_unchecked",
    "CHUNK_BYTES",
    "transform_layout",
    "hadamard_matrix",
]

ENV_VAR = "FASTMIX_HADAMARD_BACKEND"
_BACKEND_PREFERENCE = ("fht-cpu", "ffht", "numpy")
_state = threading.local()


# --------------------------------------------------------------------------- backends


@cache
def _fht_cpu_module():
    try:
        import fht_cpu  # type: ignore
    except Exception:  # pragma: no cover - depends on the environment
        return None
    return fht_cpu


@cache
def _ffht_module():
    try:
        import ffht  # type: ignore
    except Exception:  # pragma: no cover - depends on the environment
        return None
    if not hasattr(ffht, "fht_"):
        return None
    return ffht


def available_backends() -> tuple[str, ...]:
    """Names of the Walsh-Hadamard backends that can run in this environment."""
    found = []
    if _fht_cpu_module() is not None:
        found.append("fht-cpu")
    if _ffht_module() is not None:
        found.append("ffht")
    found.append("numpy")
    return tuple(found)


def _check_backend_name(name: str) -> str:
    if name not in _BACKEND_PREFERENCE:
        raise ValueError(f"Unknown Hadamard backend {name!r}; choose one of {', '.join(_BACKEND_PREFERENCE)}.")
    if name not in available_backends():
        hint = {
            "fht-cpu": "pip install 'fastmix[fast]' (or pip install fht-cpu)",
            "ffht": "pip install numpy pybind11 && pip install --no-build-isolation ffht-unofficial",
        }.get(name, "")
        raise ValueError(f"Hadamard backend {name!r} is not installed here. Install it with: {hint}.")
    return name


def get_backend() -> str:
    """The backend :func:`fwht` uses when none is passed.

    Order of precedence: :func:`set_backend` / :func:`use_backend` (this thread), then
    the ``FASTMIX_HADAMARD_BACKEND`` environment variable, then the fastest installed
    backend (``fht-cpu`` > ``ffht`` > ``numpy``).
    """
    chosen = getattr(_state, "backend", None)
    if chosen is not None:
        return chosen
    env = os.environ.get(ENV_VAR, "").strip()
    if env:
        return _check_backend_name(env)
    return available_backends()[0]


def set_backend(name: str | None) -> None:
    """Set the default backend for this thread; ``None`` restores automatic choice."""
    _state.backend = None if name is None else _check_backend_name(name)


@contextmanager
def use_backend(name: str):
    """Context manager that switches the default backend temporarily."""
    previous = getattr(_state, "backend", None)
    set_backend(name)
    try:
        yield name
    finally:
        _state.backend = previous


# --------------------------------------------------------------------------- sizes and padding


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


def __getattr__(name: str):
    # Earlier name of PowerOfTwoRecord, still importable with a FutureWarning.
    if name == "PaddingRecord":
        _deprecated("fastmix.hadamard.PaddingRecord", "fastmix.hadamard.PowerOfTwoRecord (the same class)")
        return PowerOfTwoRecord
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
    Two ways to get there, both recorded in the returned :class:`PowerOfTwoRecord`:

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


def transform_layout(X, dtype=np.float64) -> np.ndarray:
    """Return ``X`` (n, d) in column-major order, so ``X.T`` is a C-contiguous batch.

    Makes at most one copy; returns ``X`` itself when it already has that layout and dtype.
    """
    return np.asarray(X, dtype=dtype, order="F")


@lru_cache(maxsize=16)
def _sylvester_block(m: int, dtype_str: str) -> np.ndarray:
    H = np.ones((1, 1), dtype=dtype_str)
    while H.shape[0] < m:
        H = np.block([[H, H], [H, -H]])
    H.setflags(write=False)
    return H


def hadamard_matrix(n: int, *, normalized: bool = True, dtype=np.float64) -> np.ndarray:
    """Dense Hadamard matrix of order ``n`` (eq. 13). Only for small n (tests, oracles)."""
    if not is_power_of_two(n):
        raise ValueError(f"Hadamard order must be a power of two; got {n}.")
    H = np.array(_sylvester_block(n, np.dtype(dtype).str))
    if normalized:
        H /= np.sqrt(n)
    return H


# --------------------------------------------------------------------------- the transform

_NUMPY_BLOCK = 128  # largest dense Hadamard factor used by the NumPy backend


def _numpy_fwht_inplace(batch: np.ndarray) -> None:
    """Unnormalised FWHT along the last axis of a C-contiguous (b, n) array, in place.

    Uses H~_n = H~_{m1} (x) H~_{m2} (x) ... (x) H~_{mr} with each m_j <= 128: viewing a
    row as an array of shape (m1, ..., mr) in C order, the Kronecker product acts as
    one small dense multiply along each axis.
    """
    b, n = batch.shape
    if n == 1:
        return
    factors = []
    rest = n
    while rest > 1:
        m = min(rest, _NUMPY_BLOCK)
        factors.append(m)
        rest //= m
    left = 1
    right = n
    for m in factors:
        right //= m
        H = _sylvester_block(m, batch.dtype.str)
        view = batch.reshape(b * left, m, right)
        # (m, m) @ (b*left, m, right): one broadcast matrix product per factor
        view[...] = np.matmul(H, view)
        left *= m


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


def fwht(x, *, normalized: bool = True, backend: str | None = None, inplace: bool = False) -> np.ndarray:
    """Walsh-Hadamard transform along the last axis, in natural (Sylvester) order.

    The Hadamard matrix is that of the FastMix paper's Definition 4 (Appendix B).

    Computes ``H_n x`` (``normalized=True``, orthonormal) or ``H~_n x`` (unnormalised,
    entries +-1) for a vector of length n = 2^p, or for every row of a (b, n) batch.

    Parameters
    ----------
    x : array-like of shape (n,) or (b, n)
        Real, finite input; float32 and float64 keep their precision, other real dtypes become
        float64. An empty batch (b = 0) is returned as it is.
    normalized : bool, default=True
        Divide by sqrt(n) so that the transform is orthogonal (FastMix paper, eq. 13).
    backend : {"fht-cpu", "ffht", "numpy"}, optional
        Defaults to :func:`get_backend`.
    inplace : bool, default=False
        Transform ``x`` itself. Requires a C-contiguous float32/float64 ndarray;
        otherwise a ValueError is raised rather than silently copying.

    Returns
    -------
    ndarray of the same shape as ``x``
        A new array, or ``x`` itself when ``inplace=True``.

    Raises
    ------
    TypeError
        For complex input (the transform is implemented for real vectors; a complex vector
        is transformed as ``fwht(x.real) + 1j * fwht(x.imag)``, by linearity), non-numeric
        dtypes, ``None`` and SciPy sparse input.
    ValueError
        For a shape that is not (n,) or (b, n), a length n that is not a power of two, and
        NaN or inf entries.

    Examples
    --------
    >>> import numpy as np
    >>> from fastmix.hadamard import fwht
    >>> fwht(np.array([1.0, 0.0, 0.0, 0.0]))
    array([0.5, 0.5, 0.5, 0.5])
    """
    name = get_backend() if backend is None else _check_backend_name(backend)
    check_array_kind(x, "x")
    kind = np.asarray(x).dtype if not isinstance(x, np.ndarray) else x.dtype
    if np.issubdtype(kind, np.complexfloating):
        raise TypeError(
            f"fwht needs real input; got x of complex dtype {kind}. Transform the parts separately "
            "(fwht(x.real) + 1j * fwht(x.imag)): the transform is linear and real."
        )
    if not (np.issubdtype(kind, np.number) or kind == np.bool_):
        raise TypeError(f"fwht needs an array of real numbers; got x of dtype {kind}.")
    if inplace:
        if not isinstance(x, np.ndarray) or x.dtype not in (np.float32, np.float64) or not x.flags.c_contiguous:
            raise ValueError(
                "inplace=True needs a C-contiguous float32 or float64 ndarray; pass a copy made with "
                "np.ascontiguousarray(x, dtype=np.float64) or use inplace=False."
            )
        if not x.flags.writeable:
            raise ValueError("inplace=True needs a writeable array.")
        arr = x
    else:
        arr = np.asarray(x)
        if arr.dtype not in (np.float32, np.float64):
            arr = arr.astype(np.float64)
        arr = np.array(arr, order="C", copy=True)
    if arr.ndim not in (1, 2):
        raise ValueError(f"fwht accepts a vector (n,) or a batch (b, n); got shape {arr.shape}.")
    n = arr.shape[-1]
    check_power_of_two_length(n)
    if arr.size == 0:
        return arr
    if not np.isfinite(np.add.reduce(arr, axis=None)) and not np.all(np.isfinite(arr)):
        bad = int(arr.size - np.count_nonzero(np.isfinite(arr)))
        raise ValueError(f"x contains {bad} non-finite value(s) (NaN or inf); the transform needs finite input.")
    batch = arr.reshape(-1, n)
    scale = 1.0 / np.sqrt(n) if normalized else None
    _transform_rows_inplace(batch, name, scale)
    return arr


CHUNK_BYTES = 8 << 20
"""Size in bytes of the blocks of rows transformed at a time (8 MiB).

Each block is rescaled right after its transform, while it is still in the last-level
cache: the rescaling then costs almost nothing, where a separate pass over a 128 MiB batch
costs half a transform. :mod:`fastmix.srht` sizes its blocked passes by the same budget.
"""


def fwht_rows_unchecked(batch: np.ndarray, *, normalized: bool, backend: str | None = None) -> None:
    """:func:`fwht` with ``inplace=True`` on a buffer the caller has already validated.

    ``batch`` must be a C-contiguous float32 or float64 ndarray of shape (n,) or (b, n) with
    ``n`` a power of two and finite entries; nothing of this is checked (a wrong buffer gives
    wrong numbers, not an error). For work buffers inside the package (:mod:`fastmix.srht`,
    :mod:`fastmix.regression`) that are transformed many times: the same transform as
    :func:`fwht` without the input checks and copies. Anything else should call :func:`fwht`.

    Parameters
    ----------
    batch : ndarray of shape (n,) or (b, n)
        Transformed in place.
    normalized : bool
        Divide by ``sqrt(n)`` (orthonormal ``H_n``) or not (entries +-1).
    backend : str, optional
        Defaults to :func:`get_backend`.
    """
    name = get_backend() if backend is None else _check_backend_name(backend)
    n = batch.shape[-1]
    if batch.size == 0:
        return
    scale = 1.0 / np.sqrt(n) if normalized else None
    _transform_rows_inplace(batch.reshape(-1, n), name, scale)


def _transform_rows_inplace(batch: np.ndarray, name: str, scale: float | None) -> None:
    """Unnormalised transform of every row of a C-contiguous (b, n) array, times ``scale``.

    ``fht_cpu`` runs each chunk with :func:`fastmix.threads.transform_threads` threads (one by
    default: a chunk is a cache-sized block, see :mod:`fastmix.threads`).
    """
    b, n = batch.shape
    rows = max(2, CHUNK_BYTES // max(1, n * batch.itemsize))
    threads = transform_threads() if name == "fht-cpu" else 1
    for start in range(0, b, rows):
        chunk = batch[start : start + rows]
        if name == "fht-cpu":
            out = _fht_cpu_module().fht(chunk, axis=-1, inplace=True, num_threads=threads)
            if out is not None and out is not chunk and out.base is not chunk:  # pragma: no cover - defensive
                chunk[...] = out  # fht-cpu copies non-contiguous input; our chunks are contiguous
        elif name == "ffht":
            ffht = _ffht_module()
            for row in chunk:  # row-by-row: the fork is only safe on contiguous 1-D input
                ffht.fht_(row)
        else:
            _numpy_fwht_inplace(chunk)
        if scale is not None:
            chunk *= scale
