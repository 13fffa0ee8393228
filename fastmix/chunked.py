"""The exact SRHT of a matrix held in row chunks: NumPy blocks, or a Dask array.

FastMix is meant for very large n, where X no longer fits in one machine's memory. The SRHT
``S_f = sqrt(n/k) P H_n B`` of Definition 3 (FastMix paper) splits exactly along rows, because
the Sylvester-ordered Hadamard matrix is a Kronecker product: entry ``(r, i)`` of the
unnormalised ``H_n`` is ``(-1)^popcount(r & i)``. Take a chunk of ``m`` rows of X that starts
at a multiple ``s`` of ``m`` (m a power of two; an *aligned* chunk). For ``i = s + j`` with
``j < m`` the bits of ``s`` and ``j`` do not overlap, so

    H_n[r, s + j] = (-1)^popcount(r & s) * H_m[r mod m, j].

Hence, with ``B_c`` the chunk's signs and ``X_c`` its rows,

* **forward** (the sketch): row ``r`` of ``H_n B X`` is
  ``sum_c (-1)^popcount(r & s_c) (H_m B_c X_c)[r mod m]``: each chunk transforms its own rows,
  keeps the k sampled rows with a sign, and the k x d pieces are summed;
* **adjoint**: the rows of ``H_n^T P^T Z`` inside a chunk are ``H_m w_c``, where ``w_c`` holds the
  k rows of Z, each with its sign ``(-1)^popcount(r & s_c)``, added into position ``r mod m``;
* **coherence** (Appendix C.4.2, eq. 123): ``Delta_hat = max_{l >= 1} |(H_n z)_l| / k`` for the
  indicator z of the sampled rows; block ``l in [s, s + m)`` of ``H_n z`` is ``H_m u_s`` with
  ``u_s`` the signed sum of the indicator folded onto ``m`` entries, so the length-n transform
  becomes n/m length-m ones and never needs an n-vector.

Nothing of length n is ever formed or moved: a chunk needs its own rows, the k sampled row
indices, and (for the adjoint) the k x d sketch. It is the global SRHT, not a block-diagonal
approximation, so every privacy statement about S_f holds unchanged.

**The random signs are a function of the seed and the row index only**
(:func:`fastmix.srht.rademacher_signs`, the stream of every SRHT of the package). They are drawn
in blocks of :data:`SIGN_BLOCK_ROWS` rows, block ``b`` from its own generator seeded by
``SeedSequence(entropy, spawn_key=(b,))``, so the same draw gives the same signs to every row
whatever the chunking, each worker generates the signs of its own rows, and
``ChunkedSRHT(n, k, random_state=s)`` is the same matrix as ``SRHT(n, k, random_state=s)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ._validation import check_dask_matrix, check_positive_int, check_random_state, is_dask_array
from .hadamard import fwht_rows_unchecked, is_power_of_two
from .srht import SIGN_BLOCK_ROWS, SRHT, SketchQuantities, draw_entropy, rademacher_signs

__all__ = [
    "SIGN_BLOCK_ROWS",
    "rademacher_signs",
    "ChunkedSRHT",
    "Rechunking",
    "aligned_chunks",
    "chunked_coherence",
    "chunked_sketch_quantities",
    "ChunkedSketch",
]


def _parity(x: np.ndarray) -> np.ndarray:
    """``popcount(x) mod 2`` of non-negative int64 entries, vectorised."""
    x = np.asarray(x, dtype=np.uint64).copy()
    for shift in (32, 16, 8, 4, 2, 1):
        x ^= x >> np.uint64(shift)
    return (x & np.uint64(1)).astype(np.int8)


def _sign_of(rows: np.ndarray, start: int) -> np.ndarray:
    """``(-1)^popcount(rows & start)`` as float64."""
    bits = _parity(np.bitwise_and(rows.astype(np.uint64), np.uint64(start)))
    return 1.0 - 2.0 * bits


@dataclass(frozen=True)
class Rechunking:
    """How the row chunks of an input were changed to make them aligned powers of two.

    Attributes
    ----------
    before, after : tuple of int
        Row chunk lengths of the input and of the array actually transformed.
    reason : str
        Why the change was needed (empty when ``before == after``).
    """

    before: tuple[int, ...]
    after: tuple[int, ...]
    reason: str = ""

    @property
    def changed(self) -> bool:
        return self.before != self.after


def _is_aligned(chunks) -> bool:
    start = 0
    for m in chunks:
        if m <= 0 or not is_power_of_two(m) or start % m:
            return False
        start += m
    return True


def aligned_chunks(chunks, n: int) -> Rechunking:
    """Aligned power-of-two row chunks for an input chunked as ``chunks`` (lengths summing to n).

    Aligned chunks are kept. Otherwise every chunk becomes the largest power of two that is at
    most the input's largest chunk and divides n, and the change is recorded with its reason.
    """
    chunks = tuple(int(c) for c in chunks)
    if sum(chunks) != n:
        raise ValueError(f"row chunks {chunks} sum to {sum(chunks)}, not n = {n}.")
    if _is_aligned(chunks):
        return Rechunking(chunks, chunks)
    m = 1 << (max(chunks).bit_length() - 1)
    while n % m:
        m //= 2
    bad = next(i for i, c in enumerate(chunks) if not _is_aligned(chunks[: i + 1]))
    reason = (
        f"row chunk {bad} (length {chunks[bad]}, starting at row {sum(chunks[:bad])}) is not a power of two "
        "starting at a multiple of its length; rechunked to equal chunks of {m} rows".replace("{m}", str(m))
    )
    return Rechunking(chunks, (m,) * (n // m), reason)


class ChunkedSRHT:
    """One draw of the SRHT ``S_f = sqrt(n/k) P H_n B`` that works on row chunks.

    The same matrix as :class:`fastmix.srht.SRHT` (FastMix paper, Definition 3), with signs that
    depend only on the seed and the row index (see the module docstring), so it can be applied
    to a matrix one aligned chunk at a time, by different processes, in any chunking.

    Parameters
    ----------
    n : int
        Rows of the input, a power of two.
    k : int
        Rows kept, ``1 <= k <= n``.
    random_state : None, int, SeedSequence or numpy.random.Generator
        Draws the sign stream's entropy (one 128-bit integer) and then the k rows.
    backend : str, optional
        Walsh-Hadamard backend (:mod:`fastmix.hadamard`).

    Attributes
    ----------
    entropy : int
        Seeds the sign stream (:func:`rademacher_signs`).
    rows : ndarray of shape (k,)
        The sampled rows of ``H_n B``, increasing.
    """

    def __init__(self, n: int, k: int, *, random_state=None, backend: str | None = None):
        n = check_positive_int(n, "n")
        if not is_power_of_two(n):
            raise ValueError(f"n must be a power of two; got n = {n}. Pad X with zero rows first.")
        k = check_positive_int(k, "k", maximum=n, hint="The SRHT keeps k of the n rows; lower k.")
        rng = check_random_state(random_state)
        self.entropy = draw_entropy(rng)  # the same two draws, in the same order, as fastmix.srht.SRHT
        self.n, self.k, self.backend = n, k, backend
        self.rows = np.sort(rng.choice(n, size=k, replace=False)).astype(np.int64)
        self.row_scale = math.sqrt(n / k)

    def signs(self, start: int = 0, stop: int | None = None) -> np.ndarray:
        """Signs of rows ``[start, stop)`` (default: all n; O(n) memory, for small n)."""
        return rademacher_signs(self.entropy, start, self.n if stop is None else stop)

    def to_srht(self) -> SRHT:
        """The same draw as an in-memory :class:`~fastmix.srht.SRHT` (builds all n signs)."""
        return SRHT.from_draw(self.signs(), self.rows, backend=self.backend)

    def _check_chunk(self, start: int, m: int) -> None:
        if m <= 0 or not is_power_of_two(m) or start % m or start + m > self.n:
            raise ValueError(
                f"a chunk of {m} rows starting at row {start} is not aligned: its length must be a power "
                f"of two, its start a multiple of its length, and it must end by n = {self.n}."
            )

    def _local(self, start: int, m: int) -> tuple[np.ndarray, np.ndarray]:
        """Positions ``r mod m`` and signs ``(-1)^popcount(r & start)`` of the sampled rows."""
        return (self.rows & (m - 1)), _sign_of(self.rows, start)

    def partial_apply(self, X_chunk: np.ndarray, start: int) -> np.ndarray:
        """One chunk's (k, d) share of ``S_f X``: sum these over all chunks to get the sketch.

        ``X_chunk`` holds rows ``[start, start + m)`` of X (finite float64; checked).
        """
        X_chunk = np.asarray(X_chunk, dtype=np.float64)
        one_d = X_chunk.ndim == 1
        XT = np.ascontiguousarray(X_chunk.reshape(X_chunk.shape[0], -1).T)  # (d, m)
        m = XT.shape[1]
        self._check_chunk(start, m)
        if not np.all(np.isfinite(XT)):
            raise ValueError(f"the chunk of X starting at row {start} contains NaN or inf; remove or impute them.")
        XT *= self.signs(start, start + m)
        fwht_rows_unchecked(XT, normalized=False, backend=self.backend)
        local, sign = self._local(start, m)
        out = (XT[:, local] * (sign / math.sqrt(self.k))).T
        return out[:, 0] if one_d else np.ascontiguousarray(out)

    def partial_adjoint(self, Z: np.ndarray, start: int, m: int) -> np.ndarray:
        """Rows ``[start, start + m)`` of ``S_f^T Z`` for a (k, d) or (k,) ``Z``."""
        self._check_chunk(start, m)
        Z = np.asarray(Z, dtype=np.float64)
        one_d = Z.ndim == 1
        Z2 = Z.reshape(self.k, -1)
        local, sign = self._local(start, m)
        W = np.zeros((Z2.shape[1], m))
        np.add.at(W.T, local, Z2 * (sign / math.sqrt(self.k))[:, None])
        fwht_rows_unchecked(W, normalized=False, backend=self.backend)
        W *= self.signs(start, start + m)
        return W[0] if one_d else W.T

    def apply(self, X) -> np.ndarray:
        """``S_f X`` for an (n, d) NumPy or Dask array (a NumPy result)."""
        if is_dask_array(X):
            return _dask_forward(self, X)[0]
        X = np.asarray(X, dtype=np.float64)
        return self.partial_apply(X, 0)

    def adjoint(self, Z, chunks=None) -> np.ndarray:
        """``S_f^T Z`` as NumPy (n rows; for small n), built chunk by chunk when ``chunks`` is given."""
        chunks = (self.n,) if chunks is None else tuple(chunks)
        starts = np.concatenate([[0], np.cumsum(chunks)[:-1]]).astype(int)
        return np.concatenate([self.partial_adjoint(Z, int(s), int(m)) for s, m in zip(starts, chunks, strict=True)])

    def coherence(self, block_rows: int | None = None) -> float:
        """``Delta_hat`` (eq. 123) from n/m transforms of length m; see :func:`chunked_coherence`."""
        return chunked_coherence(self.n, self.rows, block_rows=block_rows, backend=self.backend)

    def __repr__(self) -> str:
        return f"ChunkedSRHT(n={self.n}, k={self.k})"


def chunked_coherence(n: int, rows, *, block_rows: int | None = None, backend: str | None = None) -> float:
    """The coherence of an SRHT with sampled rows ``rows``, in O(block_rows) memory.

    Equal to :func:`fastmix.srht.srht_coherence` (eq. 123): block ``[s, s + m)`` of ``H_n z``
    (z the indicator of the rows) is ``H_m u_s`` with ``u_s[j] = sum_{r mod m = j} (-1)^popcount(r & s)``.
    """
    rows = np.asarray(rows, dtype=np.int64)
    k = rows.size
    if n == 1:
        return 0.0
    m = min(n, block_rows or min(n, 1 << 20))
    if not is_power_of_two(m) or n % m:
        raise ValueError(f"block_rows must be a power of two dividing n = {n}; got {block_rows}.")
    local = rows & (m - 1)
    best = 0.0
    for s in range(0, n, m):
        u = np.zeros(m)
        np.add.at(u, local, _sign_of(rows, s))
        fwht_rows_unchecked(u, normalized=False, backend=backend)
        a = np.abs(u[1:] if s == 0 else u)
        best = max(best, float(a.max()))
    return best / k


# ----------------------------------------------------------------------------------------- Dask
def _prepare_dask(X, n: int):
    """Single column chunk and aligned row chunks; returns (array, Rechunking)."""
    X = check_dask_matrix(X)
    if X.shape[0] != n:
        raise ValueError(f"X must have n = {n} rows to be sketched by this SRHT; got shape {X.shape}.")
    plan = aligned_chunks(X.chunks[0], n)
    return (X.rechunk((plan.after, X.shape[1])) if plan.changed else X), plan


def _forward_block(block, srht, block_info=None):
    start = block_info[0]["array-location"][0][0]
    return srht.partial_apply(block, start)[None]


def _m_block(block, Z, srht, block_info=None):
    start = block_info[0]["array-location"][0][0]
    R = srht.partial_adjoint(Z, start, block.shape[0]) - block
    return np.array([np.max(np.einsum("ij,ij->i", R, R))])


def _dask_forward(srht: ChunkedSRHT, X):
    X, plan = _prepare_dask(X, srht.n)
    d = X.shape[1]
    parts = X.map_blocks(
        _forward_block, srht, dtype=np.float64, chunks=(1, srht.k, d), new_axis=1, meta=np.empty((0, 0, 0))
    )
    return parts.sum(axis=0).compute(), X, plan


@dataclass(frozen=True)
class ChunkedSketch:
    """:class:`~fastmix.srht.SketchQuantities` of a chunked input, with the rechunking applied."""

    quantities: SketchQuantities
    rechunking: Rechunking


def chunked_sketch_quantities(X, srht: ChunkedSRHT, *, compute_m: bool = True) -> ChunkedSketch:
    """The quantities of Algorithm 1, line 2 for a Dask array X, chunk by chunk.

    Two passes over X: the forward sum gives Z; then each chunk forms its rows of
    ``S_f^T Z - X`` and reports its largest squared row norm, so ``m_hat`` is a max-reduce
    (``Z^T S_f e_i - x_i`` is row i of ``S_f^T Z - X``). The coherence comes from the sampled
    rows alone (:func:`chunked_coherence`) and ``lambda_min(Z^T Z)`` from the k x d sketch.
    """
    Z, Xr, plan = _dask_forward(srht, X)
    m_hat = math.nan
    if compute_m:
        import dask

        Zd = dask.delayed(Z, pure=True)
        sq = Xr.map_blocks(_m_block, Zd, srht, dtype=np.float64, chunks=(1,), drop_axis=1, meta=np.empty(0))
        m_hat = float(math.sqrt(sq.max().compute()))
    q = SketchQuantities(
        Z=Z,
        m_hat=m_hat,
        delta_hat=srht.coherence(block_rows=max(plan.after)),
        Lambda_hat=1.0,
        lambda_min=float(max(0.0, np.linalg.eigvalsh(Z.T @ Z)[0])) if srht.k >= Z.shape[1] else 0.0,
        n=srht.n,
        k=srht.k,
        d=Z.shape[1],
    )
    return ChunkedSketch(q, plan)
