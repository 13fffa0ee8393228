"""Everything that runs on a matrix held in row chunks (a Dask array, or NumPy blocks), in one package.

* ``fastmix.chunked.sketch``: the exact SRHT of a matrix in aligned row chunks
  (:class:`ChunkedSRHT`, :func:`chunked_sketches`, :func:`chunked_sketch_quantities`, ...), the same
  matrix as the in-memory :class:`fastmix.srht.SRHT` for the same seed, in any chunking;
* :mod:`fastmix.chunked.mechanisms`: the one-pass input checks of the mechanisms and solvers for a
  Dask X (:func:`~fastmix.chunked.mechanisms.prepare_chunked`, ...);
* ``fastmix.chunked.routes`` and ``fastmix.chunked.solvers``: the Dask implementations of
  the public entry points (``SRHT.apply``, ``sketch_quantities``, ``fast_mix``,
  ``multiple_fast_mixing``, the regression solvers and estimators).

The in-memory modules never import this package: they route a Dask array through
``fastmix._validation.dask_route``, which loads ``fastmix.chunked.routes`` on the first Dask
array it sees. The public names of this module are those of ``fastmix.chunked.sketch``.
"""

from __future__ import annotations

from .sketch import (
    SIGN_BLOCK_ROWS,
    TRANSPOSE_TILE_ROWS,
    ChunkedSketch,
    ChunkedSRHT,
    Rechunking,
    aligned_chunks,
    chunked_coherence,
    chunked_sketch_draws,
    chunked_sketch_quantities,
    chunked_sketches,
    dask_adjoint,
    pad_and_align,
    rademacher_signs,
    release_scratch,
)

__all__ = [
    "SIGN_BLOCK_ROWS",
    "rademacher_signs",
    "ChunkedSRHT",
    "Rechunking",
    "aligned_chunks",
    "chunked_coherence",
    "chunked_sketch_quantities",
    "chunked_sketch_draws",
    "chunked_sketches",
    "dask_adjoint",
    "pad_and_align",
    "release_scratch",
    "ChunkedSketch",
    "TRANSPOSE_TILE_ROWS",
]
