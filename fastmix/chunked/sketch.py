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
import threading
from dataclasses import dataclass

import numpy as np

from .._validation import check_dask_matrix, check_positive_int, check_random_state, is_dask_array
from ..hadamard import fwht_rows_unchecked, is_power_of_two
from ..srht import SIGN_BLOCK_ROWS, SRHT, SketchQuantities, draw_entropy, rademacher_signs

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


def _nearest_power_of_two(m: int) -> int:
    """The power of two nearest to ``m >= 1`` (ties go up): within a factor 4/3 below and 3/2 above."""
    low = 1 << (m.bit_length() - 1)
    return 2 * low if 2 * m >= 3 * low else low


def aligned_chunks(chunks, n: int, target: int | None = None) -> Rechunking:
    """Aligned power-of-two row chunks for an input chunked as ``chunks`` (lengths summing to n).

    Aligned chunks no longer than ``target`` rows (default: the input's largest chunk) are kept.
    Otherwise every chunk becomes the power of two nearest to ``target`` (halved until it divides
    n), and the change is recorded with its reason. With n a power of two no new chunk is more than
    1.5 times ``target`` or less than 3/4 of it, so memory per task stays that of an input chunk.
    """
    chunks = tuple(int(c) for c in chunks)
    if sum(chunks) != n:
        raise ValueError(f"row chunks {chunks} sum to {sum(chunks)}, not n = {n}.")
    if _is_aligned(chunks) and (target is None or max(chunks) <= 1.5 * target):
        return Rechunking(chunks, chunks)
    m = _nearest_power_of_two(int(target if target is not None else max(chunks)))
    while n % m:
        m //= 2
    bad = next((i for i, c in enumerate(chunks) if not _is_aligned(chunks[: i + 1])), None)
    if bad is None:
        reason = f"row chunks longer than 1.5 x {target} rows; rechunked to equal chunks of {m} rows"
    else:
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

    @classmethod
    def of_draw(cls, n: int, entropy: int, rows, *, backend: str | None = None) -> ChunkedSRHT:
        """The draw with sign seed ``entropy`` and kept rows ``rows`` (e.g. :meth:`fastmix.srht.SRHT.to_chunked`)."""
        n = check_positive_int(n, "n")
        if not is_power_of_two(n):
            raise ValueError(f"n must be a power of two; got n = {n}.")
        rows = np.sort(np.asarray(rows, dtype=np.int64))
        k = rows.size
        if k < 1 or rows[0] < 0 or rows[-1] >= n or np.any(np.diff(rows) == 0):
            raise ValueError(f"rows must be 1 to n = {n} distinct indices in [0, n); got {k}.")
        out = cls.__new__(cls)
        out.entropy, out.n, out.k, out.backend = int(entropy), n, k, backend
        out.rows, out.row_scale = rows, math.sqrt(n / k)
        return out

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
        out = self._apply_batch(XT, start, XT)
        return out[:, 0] if one_d else out

    def _apply_batch(self, XT: np.ndarray, start: int, work: np.ndarray) -> np.ndarray:
        """:meth:`partial_apply` of a validated, aligned chunk given as its C-contiguous (d, m) batch.

        ``work`` is a buffer of the same shape (it may be ``XT`` itself, which is then overwritten).
        """
        m = XT.shape[1]
        np.multiply(XT, self.signs(start, start + m), out=work)
        fwht_rows_unchecked(work, normalized=False, backend=self.backend)
        local, sign = self._local(start, m)
        return np.ascontiguousarray((work[:, local] * (sign / math.sqrt(self.k))).T)

    def _residual_batch(self, Z: np.ndarray, XT: np.ndarray, start: int, work: np.ndarray) -> np.ndarray:
        """``(S_f^T Z - X_c)^T`` of an aligned chunk, in ``work`` (shape (d, m)); ``XT`` its (d, m) batch."""
        m = XT.shape[1]
        local, sign = self._local(start, m)
        work.fill(0.0)
        np.add.at(work.T, local, Z.reshape(self.k, -1) * (sign / math.sqrt(self.k))[:, None])
        fwht_rows_unchecked(work, normalized=False, backend=self.backend)
        work *= self.signs(start, start + m)
        work -= XT
        return work

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
            Zs, _ = chunked_sketches(X, (self,))
            return Zs[0]
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
def _adjoint_block(block, Z, srht, block_info=None):
    loc = block_info[None]["array-location"][0]
    return srht.partial_adjoint(Z, int(loc[0]), int(loc[1] - loc[0]))


def dask_adjoint(srht, Z, chunks):
    """``S_f^T Z`` as a lazy Dask array of n rows in the aligned row chunks ``chunks``.

    Each chunk ``[s, s + m)`` is ``B_c H_m w_c``, with ``w_c`` the rows of Z, each with its sign,
    added into position ``r mod m`` (see the module docstring): a task needs Z and the draw only.

    Parameters
    ----------
    srht : ChunkedSRHT or fastmix.srht.SRHT
        The draw (an SRHT built from a sign seed; see :meth:`fastmix.srht.SRHT.to_chunked`).
    Z : array-like of shape (k,) or (k, d)
    chunks : sequence of int
        Row chunk lengths summing to n, each a power of two starting at a multiple of itself.
    """
    import dask.array as da

    C = srht if isinstance(srht, ChunkedSRHT) else srht.to_chunked()
    Z = np.asarray(Z, dtype=np.float64)
    if Z.ndim not in (1, 2) or Z.shape[0] != C.k:
        raise ValueError(f"Z must have shape ({C.k},) or ({C.k}, d); got {Z.shape}.")
    chunks = tuple(int(c) for c in chunks)
    if sum(chunks) != C.n or not _is_aligned(chunks):
        raise ValueError(
            f"chunks must be powers of two summing to n = {C.n}, each starting at a multiple of its length; "
            f"got {chunks}."
        )
    shape = (C.n,) if Z.ndim == 1 else (C.n, Z.shape[1])
    out_chunks = (chunks,) if Z.ndim == 1 else (chunks, (Z.shape[1],))
    template = da.empty(shape, chunks=out_chunks)  # only its chunk structure is used
    return template.map_blocks(_adjoint_block, Z, C, dtype=np.float64, meta=np.empty((0,) * len(shape)))


def _prepare_dask(X, n: int):
    """Single column chunk and aligned row chunks; returns (array, Rechunking)."""
    X = check_dask_matrix(X)
    if X.shape[0] != n:
        raise ValueError(f"X must have n = {n} rows to be sketched by this SRHT; got shape {X.shape}.")
    plan = aligned_chunks(X.chunks[0], n)
    return (X.rechunk((plan.after, X.shape[1])) if plan.changed else X), plan


def pad_and_align(X, n_used: int, y=None):
    """Append ``n_used - n`` zero rows to a Dask X (and zeros to y) lazily, then align the row chunks.

    Under zero-out neighbouring a zero row is an absent record (FastMix paper, Section 2.1), so
    the padding changes no guarantee, exactly as :func:`fastmix.hadamard.rows_to_power_of_two`
    in memory. The row chunks are then made aligned powers of two no longer than the input's
    largest chunk (:func:`aligned_chunks` with that target), and the zero rows are generated lazily
    in chunks of that same length, so no task ever holds more than about one input chunk, whatever
    n is (n = 2^k + 1 pads almost n zero rows). y is chunked like X.

    Returns
    -------
    X_out, y_out : Dask arrays (y_out None when y is None)
    rechunking : Rechunking
        ``before`` the input's row chunks, ``after`` those of ``X_out``, with the reason.
    """
    import dask.array as da

    n, d = int(X.shape[0]), int(X.shape[1])
    before = tuple(int(c) for c in X.chunks[0])
    added = int(n_used) - n
    if added < 0:
        raise ValueError(f"n_used = {n_used} is below the n = {n} rows of X.")
    target = max(before) if before else None
    if added:
        step = _nearest_power_of_two(target or added)  # the aligned chunk length below
        # first the zeros that complete the last aligned chunk, then whole aligned chunks of zeros, which
        # the alignment below then leaves as they are (no zero chunk is split and merged)
        head = min((-n) % step, added)
        sizes = ((head,) if head else ()) + (step,) * ((added - head) // step)
        sizes += ((added - head) % step,) if (added - head) % step else ()
        X = da.concatenate([X, da.zeros((added, d), chunks=(sizes, d), dtype=X.dtype)], axis=0)
        if y is not None:
            y = da.concatenate([y, da.zeros(added, chunks=(sizes,), dtype=y.dtype)])
    plan = aligned_chunks(X.chunks[0], int(n_used), target=target)
    if plan.changed:
        X = X.rechunk((plan.after, d))
    if y is not None:
        y = y.rechunk((plan.after,))
    reasons = [f"{added} zero rows appended (n = {n} to {n_used}, a power of two)"] if added else []
    reasons += [plan.reason] if plan.reason else []
    return X, y, Rechunking(before, plan.after, "; ".join(reasons))


def _location(block_info) -> int:
    return int(block_info[0]["array-location"][0][0])


#: Rows per tile of the transposing copy in :func:`_chunk_batch`: a (tile, d) slab and its (d, tile)
#: transpose stay in cache, where a one-shot transpose of a whole chunk strides through memory.
TRANSPOSE_TILE_ROWS = 1024


_SCRATCH: dict[int, dict[str, np.ndarray]] = {}
_SCRATCH_LOCK = threading.Lock()


def _scratch(slot: str, shape: tuple[int, int]) -> np.ndarray:
    """A float64 work buffer of ``shape`` kept for the calling thread's next chunk (contents undefined).

    Every task of a pass needs buffers the size of its chunk. Allocated afresh, each would be
    page-faulted in again on every task, because the workers' allocator hands large blocks back to
    the operating system as soon as they are freed; on a virtual machine that costs more system
    time than the transform itself. So each thread keeps one buffer per slot, replaced when the
    chunk shape changes: two chunks' worth of memory per thread that has run a pass. The process
    that starts a pass frees the buffers of its own threads when the pass returns (so the threaded
    scheduler keeps nothing); worker processes keep theirs for the next pass, until
    :func:`release_scratch` runs there.
    """
    with _SCRATCH_LOCK:
        buffers = _SCRATCH.setdefault(threading.get_ident(), {})
    buf = buffers.get(slot)
    if buf is None or buf.shape != shape:
        buffers.pop(slot, None)  # free the old one before the new one is allocated
        buf = buffers[slot] = np.empty(shape)
    return buf


def release_scratch() -> int:
    """Free the work buffers that the chunked passes keep in this process; returns the bytes freed.

    On a cluster, ``client.run(fastmix.chunked.release_scratch)`` frees them on every worker.
    """
    with _SCRATCH_LOCK:
        freed = sum(b.nbytes for buffers in _SCRATCH.values() for b in buffers.values())
        _SCRATCH.clear()
    return freed


def _chunk_batch(block, out: np.ndarray | None = None) -> np.ndarray:
    """A chunk of X as the C-contiguous (d, m) batch the transforms run along (one tiled copy).

    ``out`` is a (d, m) buffer to fill (default: a new array).
    """
    block = np.asarray(block, dtype=np.float64)
    m, d = block.shape
    if out is None:
        out = np.empty((d, m))
    if block.flags.f_contiguous:
        np.copyto(out, block.T)  # a view already laid out as (d, m): a plain copy
        return out
    for i in range(0, m, TRANSPOSE_TILE_ROWS):
        out[:, i : i + TRANSPOSE_TILE_ROWS] = block[i : i + TRANSPOSE_TILE_ROWS].T
    return out


def _forward_blocks(block, srhts, block_info=None):
    """The chunk's share of every draw's sketch: the chunk is transposed once, then one buffer is
    reused by the T draws (the chunk was checked by the solvers' single pass). Both buffers are
    this thread's (:func:`_scratch`)."""
    start = _location(block_info)
    m, d = block.shape
    XT = _chunk_batch(block, _scratch("batch", (d, m)))
    work = _scratch("work", (d, m))
    return np.stack([s._apply_batch(XT, start, work) for s in srhts])[None]


def _coherence_block(rows: np.ndarray, start: int, m: int, backend) -> float:
    """``max |(H_n z)_l|`` over ``l in [start, start + m)``, ``l >= 1`` (eq. 123; see the module docstring)."""
    u = np.zeros(m)
    np.add.at(u, rows & (m - 1), _sign_of(rows, start))
    fwht_rows_unchecked(u, normalized=False, backend=backend)
    a = np.abs(u[1:] if start == 0 else u)
    return float(a.max()) if a.size else 0.0


def _m_blocks(block, Zs, srhts, block_info=None):
    """Per draw: the chunk's largest squared row norm of ``S_f^T Z - X`` and its coherence share."""
    start = _location(block_info)
    m, d = block.shape
    XT = _chunk_batch(block, _scratch("batch", (d, m)))
    work = _scratch("work", (d, m))
    out = np.empty((1, len(srhts), 2))
    for t, s in enumerate(srhts):
        R = s._residual_batch(Zs[t], XT, start, work)  # column i: Z^T S_f e_i - x_i
        out[0, t, 0] = np.max(np.einsum("ij,ij->j", R, R))
        out[0, t, 1] = _coherence_block(s.rows, start, m, s.backend)
    return out


def _lambda_min(Z: np.ndarray) -> float:
    k, d = Z.shape
    return float(max(0.0, np.linalg.eigvalsh(Z.T @ Z)[0])) if k >= d else 0.0


def _check_draws(srhts) -> tuple:
    srhts = tuple(srhts)
    if not srhts or len({(s.n, s.k) for s in srhts}) != 1:
        raise ValueError("the chunked passes need at least one SRHT draw, all with the same n and k.")
    return srhts


def _forward_sums(X, srhts):
    """The T sketches ``S_t X`` of a validated, aligned Dask X: one pass, T k x d sums to the client."""
    k, d, T = srhts[0].k, X.shape[1], len(srhts)
    parts = X.map_blocks(
        _forward_blocks, srhts, dtype=np.float64, chunks=(1, T, k, d), new_axis=(1, 2), meta=np.empty((0, 0, 0, 0))
    )
    return _compute_and_release(parts.sum(axis=0))


def _compute_and_release(result) -> np.ndarray:
    """``result`` computed as a float64 array, then the work buffers of tasks that ran in this process freed."""
    try:
        return np.asarray(result.compute(), dtype=np.float64)
    finally:
        release_scratch()  # see _scratch: worker processes keep theirs


def _check_finite_dask(X) -> None:
    """ValueError when the Dask array X holds NaN or inf (one pass, one boolean to the client)."""
    import dask.array as da

    if not bool(da.isfinite(X).all().compute()):
        raise ValueError("X contains NaN or inf values; remove or impute them first.")


def chunked_sketches(X, srhts, *, check_finite: bool = True):
    """``S_t X`` for several SRHT draws of one Dask X, in one pass (FastMix paper, Definition 3).

    ``check_finite=False`` skips the pass that refuses NaN and inf, for a caller that has checked X
    already (the solvers' single checking pass). Returns the (T, k, d) NumPy stack of sketches and
    the :class:`Rechunking` applied to X.
    """
    srhts = _check_draws(srhts)
    X, plan = _prepare_dask(X, srhts[0].n)
    if check_finite:
        _check_finite_dask(X)
    return _forward_sums(X, srhts), plan


def chunked_sketch_draws(X, srhts, *, compute_m: bool = True, check_finite: bool = True):
    """Algorithm 1, line 2 for several SRHT draws of one Dask X: two passes over X in all.

    The first pass sums, chunk by chunk, every draw's share of ``Z_t = S_t X``
    (:meth:`ChunkedSRHT.partial_apply`); only the T sums of k x d reach the client. The second
    (``compute_m``) sends the T sketches to the chunks, each of which forms its rows of
    ``S_t^T Z_t - X`` (row i is ``Z^T S_f e_i - x_i``), and reports, per draw, its largest squared
    row norm and the largest ``|(H_n z)_l|`` of its block of eq. (123): ``m_hat`` and ``Delta_hat``
    are max-reduces of T x 2 numbers per chunk. ``lambda_min(Z_t^T Z_t)`` is computed on the client.

    Parameters
    ----------
    X : Dask array of shape (n, d)
        Finite, with one column chunk; row chunks are aligned here (:func:`aligned_chunks`) when
        they are not aligned powers of two already.
    srhts : sequence of ChunkedSRHT
        The draws, all with the same n and k.
    compute_m : bool, default=True
        False skips the second pass (``m_hat`` NaN; ``delta_hat`` then from :func:`chunked_coherence`).
    check_finite : bool, default=True
        False skips the pass that refuses NaN and inf, for a caller that has checked X already.

    Returns
    -------
    quantities : tuple of fastmix.srht.SketchQuantities
        One per draw, NumPy ``Z`` (``Lambda_hat`` is 1 for an SRHT).
    rechunking : Rechunking
    """
    import dask

    srhts = _check_draws(srhts)
    n, k = srhts[0].n, srhts[0].k
    X, plan = _prepare_dask(X, n)
    if check_finite:
        _check_finite_dask(X)
    d, T = X.shape[1], len(srhts)
    Zs = _forward_sums(X, srhts)
    if compute_m:
        Zd = dask.delayed(Zs, pure=True)
        per_chunk = X.map_blocks(
            _m_blocks,
            Zd,
            srhts,
            dtype=np.float64,
            chunks=(1, T, 2),
            drop_axis=1,
            new_axis=(1, 2),
            meta=np.empty((0, 0, 0)),
        )
        best = _compute_and_release(per_chunk.max(axis=0))
        m_hat = [math.sqrt(v) for v in best[:, 0]]
        delta = [float(v) / k if n > 1 else 0.0 for v in best[:, 1]]
    else:
        m_hat = [math.nan] * T
        delta = [s.coherence(block_rows=max(plan.after)) for s in srhts]
    qs = tuple(
        SketchQuantities(
            Z=Zs[t], m_hat=m_hat[t], delta_hat=delta[t], Lambda_hat=1.0, lambda_min=_lambda_min(Zs[t]), n=n, k=k, d=d
        )
        for t in range(T)
    )
    return qs, plan


@dataclass(frozen=True)
class ChunkedSketch:
    """:class:`~fastmix.srht.SketchQuantities` of a chunked input, with the rechunking applied."""

    quantities: SketchQuantities
    rechunking: Rechunking


def chunked_sketch_quantities(X, srht: ChunkedSRHT, *, compute_m: bool = True) -> ChunkedSketch:
    """The quantities of Algorithm 1, line 2 for a Dask array X, chunk by chunk.

    Two passes over X: the forward sum gives Z; then each chunk forms its rows of
    ``S_f^T Z - X`` and reports its largest squared row norm and its share of the coherence
    (eq. 123), so ``m_hat`` and ``Delta_hat`` are max-reduces (:func:`chunked_sketch_draws` with
    one draw). ``lambda_min(Z^T Z)`` comes from the k x d sketch on the client.
    """
    (q,), plan = chunked_sketch_draws(X, (srht,), compute_m=compute_m)
    return ChunkedSketch(q, plan)
