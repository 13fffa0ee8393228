"""The fast Walsh-Hadamard transform ``fwht``, its unchecked form for work buffers, and the data layout.

The transform runs along the last axis of a C-contiguous array, in blocks of ``CHUNK_BYTES``
that each backend transforms and rescales while they are in cache.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_array_kind
from ..threads import transform_threads
from .backends import _check_backend_name, _ffht_module, _fht_cpu_module, get_backend
from .matrix import _sylvester_block
from .sizes import check_power_of_two_length

__all__ = ["fwht", "fwht_rows_unchecked", "CHUNK_BYTES", "transform_layout"]


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


def transform_layout(X, dtype=np.float64) -> np.ndarray:
    """Return ``X`` (n, d) in column-major order, so ``X.T`` is a C-contiguous batch.

    Makes at most one copy; returns ``X`` itself when it already has that layout and dtype.
    """
    return np.asarray(X, dtype=dtype, order="F")
