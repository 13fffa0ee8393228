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
:class:`~fastmix.hadamard.PowerOfTwoRecord` of what it did; the datasets, mechanisms and solvers all use it.

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

from . import backends, matrix, sizes, transform
from .backends import *  # noqa: F403
from .backends import ENV_VAR as ENV_VAR
from .matrix import *  # noqa: F403
from .sizes import *  # noqa: F403
from .sizes import PowerOfTwoRecord, _deprecated
from .transform import *  # noqa: F403

#: The public names of the modules, module by module.
__all__ = [*transform.__all__, *backends.__all__, *sizes.__all__, *matrix.__all__]

# The public classes and functions belong to ``fastmix.hadamard`` (their documented and pickled
# name); the modules are how the package is organised, not names to import from.
for _name in __all__:
    _obj = globals()[_name]
    if getattr(_obj, "__module__", "").startswith(__name__ + "."):
        _obj.__module__ = __name__
del _name, _obj


def __getattr__(name: str):
    # Earlier name of PowerOfTwoRecord, still importable with a FutureWarning.
    if name == "PaddingRecord":
        _deprecated("fastmix.hadamard.PaddingRecord", "fastmix.hadamard.PowerOfTwoRecord (the same class)")
        return PowerOfTwoRecord
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
