"""The Dask implementations of the in-memory entry points, registered on import.

:func:`fastmix._validation.dask_route` sends a call whose data argument is a Dask array to the
implementation registered here under the same route name, loading this module on the first Dask
array it sees. Each implementation takes the random draws in the order of the in-memory path, so
the two give the same release or estimate for the same seed, in any chunking. The solvers'
routes are in :mod:`fastmix.chunked.solvers`, those of prediction and scoring in
:mod:`fastmix.chunked.prediction` and the table encoder's in :mod:`fastmix.chunked.tables`, imported below.
"""

from __future__ import annotations

import numpy as np

from .._validation import register_dask_route
from ..mechanisms.data import PreparedData
from ..mechanisms.fast_mixing import FastMixCalibration, FastMixDrawOptions, laplace_pair, noise_level_from
from ..srht import SRHT, SketchQuantities
from .mechanisms import prepare_chunked
from .sketch import ChunkedSRHT, Rechunking, chunked_sketch_draws, chunked_sketch_quantities, chunked_sketches


# ------------------------------------------------------------------------------ fastmix.srht
@register_dask_route("srht.to_chunked")
def srht_to_chunked(srht: SRHT) -> ChunkedSRHT:
    """:meth:`fastmix.srht.SRHT.to_chunked` (the draw checked for a sign seed by the caller)."""
    assert srht.entropy is not None
    return ChunkedSRHT.of_draw(srht.n, srht.entropy, srht.rows, backend=srht.backend)


@register_dask_route("srht.apply")
def srht_apply(srht: SRHT, X) -> np.ndarray:
    """:meth:`fastmix.srht.SRHT.apply` of a Dask X, chunk by chunk (:func:`chunked_sketches`)."""
    Zs, _ = chunked_sketches(X, (srht.to_chunked(),))
    return Zs[0]


@register_dask_route("srht.sketch_quantities")
def sketch_quantities(X, srht: SRHT, *, compute_m: bool = True, check_input: bool = True, workspace=None):
    """:func:`fastmix.srht.sketch_quantities` of a Dask X, in two passes (``check_input``, ``workspace`` unused)."""
    return chunked_sketch_quantities(X, srht.to_chunked(), compute_m=compute_m).quantities


# ------------------------------------------------------------------------------ fastmix.mechanisms
@register_dask_route("mechanisms.prepare_any")
def prepare_any(X, *, c_x: float, row_norm_policy: str, n_policy: str) -> tuple[PreparedData, Rechunking | None]:
    """:func:`fastmix.mechanisms.data.prepare_any` of a Dask X (:func:`prepare_chunked`); X stays a Dask array."""
    chunked = prepare_chunked(X, c_x=c_x, row_norm_policy=row_norm_policy, n_policy=n_policy)
    return PreparedData(chunked.X, chunked.row_norms, chunked.padding), chunked.rechunking


@register_dask_route("mechanisms.sketch_draw")
def sketch_draw(X, k2: int, rng: np.random.Generator, options: FastMixDrawOptions) -> SketchQuantities:
    """FastMix line 2: the same draw as ``SRHT(n, k2, random_state=rng)``, applied chunk by chunk."""
    (q,), _ = chunked_sketch_draws(
        X, (ChunkedSRHT(int(X.shape[0]), k2, random_state=rng, backend=options.backend),), check_finite=False
    )
    return q


@register_dask_route("mechanisms.multiple_draws")
def multiple_draws(X, calibration: FastMixCalibration, k2: int, rng, options: FastMixDrawOptions):
    """Algorithm 3, lines 3-9 for a Dask X, with the generator consumed as by the in-memory loop.

    Per draw the in-memory loop takes the SRHT (sign seed, then rows) and then the two Laplace
    draws; the data-dependent steps in between use no randomness. So all T draws are taken first,
    in that order, and the data are then read in two passes for all T sketches together
    (:func:`fastmix.chunked.chunked_sketch_draws`).
    """
    n = int(X.shape[0])
    srhts, laplace = [], []
    for _ in range(calibration.n_draws):
        srhts.append(ChunkedSRHT(n, k2, random_state=rng, backend=options.backend))
        laplace.append(laplace_pair(rng))
    qs, plan = chunked_sketch_draws(X, srhts, check_finite=False)  # X was checked by prepare_chunked
    out = []
    for q, (z1, z2) in zip(qs, laplace, strict=True):
        m_tilde, lambda_tilde, eta_tilde = noise_level_from(q, calibration, z1, z2, options.m_floor)
        out.append((q.Z, m_tilde, lambda_tilde, eta_tilde, q.m_hat, q.delta_hat, q.lambda_min))
    return out, plan


from . import prediction, solvers, tables  # noqa: E402, F401  (register the solvers', predictions' and tables' routes)
