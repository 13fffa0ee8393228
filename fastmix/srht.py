"""The subsampled randomized Hadamard transform (SRHT) and the per-draw quantities of FastMix.

Definition 3 of the FastMix paper: for n a power of two and k <= n,

    S_f = sqrt(n/k) P H_n B,

where B = diag(b_1, ..., b_n) holds independent Rademacher signs, H_n is the orthonormal
Walsh-Hadamard matrix (:mod:`fastmix.hadamard`) and P keeps k rows of I_n chosen uniformly
without replacement. Every column of S_f has unit norm (Appendix B, Lemma 2) and the rows
are orthogonal.

Algorithm 1 (FastMix) needs, for one draw of S_f and a data matrix X (n x d):

* ``Z = S_f X`` (k x d), the sketch;
* ``m_hat = max_i ||Z^T S_f e_i - x_i|| = max_i ||X^T (S_f^T S_f - I) e_i||`` (line 2);
* ``Delta_hat = max_{i != j} |(S_f^T S_f)_{ij}|``, the coherence of S_f (line 2, App. F);
* ``Lambda_hat = 2 - min_i ||S_f e_i||^2`` (line 2), which is exactly 1 for an SRHT;
* ``lambda_min(Z^T Z)`` (line 4).

:func:`sketch_quantities` computes all of them from one forward transform of X, one
adjoint transform (Appendix C.4.2, eq. 118) and one length-n transform of the indicator
of the sampled rows (eq. 123). It works through X a few columns at a time so that each
block is transformed twice and reduced while it sits in cache: a draw reads X from memory
about once and needs only a small work buffer besides X and Z.

The random signs are a function of the draw's seed and the row index only
(:func:`rademacher_signs`): a draw takes a 128-bit ``entropy`` from its generator, then the k
rows; row i's sign comes from block ``i // SIGN_BLOCK_ROWS`` of a counter-based stream seeded by
``SeedSequence(entropy, spawn_key=(block,))``. So the same seed gives the same S_f whether X is
held in memory or in row chunks on several machines (:mod:`fastmix.chunked`).

Layout: the transforms run along the rows of the C-contiguous (d, n) array ``X.T``.
Store X in Fortran order (``fastmix.hadamard.transform_layout(X)``) and no transpose copy
is ever made; a C-ordered X is transposed once per call.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ._validation import (
    _check_real_dtype,
    check_array_kind,
    check_matrix,
    check_positive_int,
    check_random_state,
    dask_implementation,
    dask_route,
)
from .hadamard import CHUNK_BYTES, check_power_of_two_length, fwht_rows_unchecked, is_power_of_two

__all__ = [
    "SIGN_BLOCK_ROWS",
    "rademacher_signs",
    "draw_entropy",
    "SRHT",
    "SketchQuantities",
    "SketchWorkspace",
    "sketch",
    "sketch_quantities",
    "sketch_quantities_dense",
    "srht_coherence",
    "welch_bound",
    "coherence_heuristic",
    "coherence_upper_scale",
]


#: Rows per block of the sign stream. Signs of rows ``[b L, (b + 1) L)`` come from block ``b``.
SIGN_BLOCK_ROWS = 1 << 16


def draw_entropy(rng: np.random.Generator) -> int:
    """A 128-bit integer from ``rng`` (four 32-bit words, least significant first): a draw's sign seed."""
    words = rng.integers(0, 2**32, size=4, dtype=np.uint64)
    return int(sum(int(w) << (32 * i) for i, w in enumerate(words)))


def rademacher_signs(entropy: int, start: int, stop: int) -> np.ndarray:
    """The signs ``b_start, ..., b_{stop-1}`` of a draw, as float64 +-1 (the diagonal of B, Definition 3).

    A pure function of ``(entropy, row index)``: block ``b`` of :data:`SIGN_BLOCK_ROWS` rows is
    ``1 - 2 * bits`` for the first bits of ``Generator(PCG64(SeedSequence(entropy,
    spawn_key=(b,))))`` (one byte gives eight signs, most significant bit first), so any split of
    ``[0, n)`` into ranges yields the same signs, and each sign is +-1 with probability 1/2
    independently of the others.
    """
    if not 0 <= start <= stop:
        raise ValueError(f"need 0 <= start <= stop; got start = {start}, stop = {stop}.")
    out = np.empty(stop - start)
    L = SIGN_BLOCK_ROWS
    pos = start
    while pos < stop:
        block = pos // L
        gen = np.random.Generator(np.random.PCG64(np.random.SeedSequence(entropy, spawn_key=(block,))))
        bits = np.unpackbits(np.frombuffer(gen.bytes(L // 8), dtype=np.uint8))
        lo = pos - block * L
        hi = min(stop - block * L, L)
        out[pos - start : pos - start + hi - lo] = 1.0 - 2.0 * bits[lo:hi]
        pos += hi - lo
    return out


def _columns_batch(X: np.ndarray) -> np.ndarray:
    """(n, d) or (n,) -> C-contiguous float64 (d, n) batch (a view when X is Fortran-ordered)."""
    X = np.asarray(X, dtype=np.float64)
    if X.ndim == 1:
        return X[None, :]
    return np.ascontiguousarray(X.T)


class SRHT:
    """One draw of the subsampled randomized Hadamard transform S_f = sqrt(n/k) P H B.

    FastMix paper, Definition 3 (eq. 3). The draw (signs and sampled rows) happens in the
    constructor from ``random_state``; :meth:`apply` and :meth:`adjoint` are then
    deterministic.

    Parameters
    ----------
    n : int
        Number of input rows; must be a power of two.
    k : int
        Number of output rows, ``1 <= k <= n``.
    random_state : None, int, SeedSequence or numpy.random.Generator
        Source of the draw: first the 128-bit seed of the signs (:func:`draw_entropy`), then the
        sampled rows. Pass an int or a Generator for reproducible draws.
    backend : str, optional
        Walsh-Hadamard backend (see :mod:`fastmix.hadamard`); default: the active one.

    Attributes
    ----------
    entropy : int or None
        The seed of the signs (:func:`rademacher_signs`); None for a transform built by
        :meth:`from_draw`.
    signs : ndarray of shape (n,)
        The diagonal of B, entries +-1: ``rademacher_signs(entropy, 0, n)``.
    rows : ndarray of shape (k,)
        Indices of the rows of H_n kept by P, in increasing order. (The order of the
        rows of P is immaterial: it permutes the rows of S_f X, which changes neither
        S_f^T S_f nor the law of a Gaussian sketch applied afterwards.)

    Examples
    --------
    >>> import numpy as np
    >>> from fastmix.srht import SRHT
    >>> S = SRHT(8, 4, random_state=0)
    >>> np.allclose(np.linalg.norm(S.to_dense(), axis=0), 1.0)
    True
    """

    def __init__(self, n: int, k: int, *, random_state=None, backend: str | None = None):
        n = check_positive_int(n, "n")
        if not is_power_of_two(n):
            check_power_of_two_length(n)
        k = check_positive_int(
            k,
            "k",
            maximum=n,
            hint="The SRHT keeps k of the n rows of H_n B, so it cannot produce more rows than the data has; "
            "lower k or pad the data with zero rows.",
        )
        rng = check_random_state(random_state)
        self.n = n
        self.k = k
        self.backend = backend
        self.entropy: int | None = draw_entropy(rng)
        self.signs = rademacher_signs(self.entropy, 0, n)
        self.rows = np.sort(rng.choice(n, size=k, replace=False)).astype(np.int64)
        self.row_scale = math.sqrt(n / k)

    @classmethod
    def from_draw(cls, signs, rows, *, backend: str | None = None) -> SRHT:
        """The SRHT with given signs (the diagonal of B, n entries +-1) and kept rows (k indices).

        For a draw made elsewhere, e.g. :meth:`fastmix.chunked.ChunkedSRHT.to_srht`.
        """
        signs = np.asarray(signs, dtype=np.float64)
        rows = np.sort(np.asarray(rows, dtype=np.int64))
        n, k = signs.size, rows.size
        if not is_power_of_two(n) or not np.all(np.abs(signs) == 1.0):
            raise ValueError(f"signs must be n = 2^m entries of +-1; got {n} entries.")
        if k < 1 or rows[0] < 0 or rows[-1] >= n or np.any(np.diff(rows) == 0):
            raise ValueError(f"rows must be 1 to n = {n} distinct indices in [0, n); got {k}.")
        out = cls.__new__(cls)
        out.n, out.k, out.backend = n, k, backend
        out.entropy = None  # the signs were given, not drawn from a sign seed
        out.signs, out.rows = signs, rows
        out.row_scale = math.sqrt(n / k)
        return out

    # ------------------------------------------------------------------ basic maps
    @dask_route("srht.apply", on="X")
    def apply(self, X) -> np.ndarray:
        """Return ``S_f X``.

        Parameters
        ----------
        X : array-like of shape (n,) or (n, d), or a Dask array of shape (n, d)
            Real and finite. ``d = 0`` is allowed and gives an empty (k, 0) result. A Dask X,
            chunked along rows, is sketched chunk by chunk without being gathered
            (:func:`fastmix.chunked.chunked_sketches`, which also returns how the row chunks were
            made aligned powers of two; the result does not depend on it).

        Returns
        -------
        ndarray of shape (k,) or (k, d)
            A NumPy array, for a Dask X too.

        Raises
        ------
        TypeError
            For complex input (S_f is real, so ``S.apply(X.real) + 1j * S.apply(X.imag)`` is
            the transform of a complex X), non-numeric dtypes, ``None`` and SciPy sparse input.
        ValueError
            For a shape other than (n,) or (n, d) and for NaN or inf entries.
        """
        X = _check_operand(X, "X")
        self._check_rows(X)
        if X.ndim == 2 and X.shape[1] == 0:
            return np.zeros((self.k, 0))
        ZT, _ = _blocked_pass(_columns_batch(X), self, compute_m=False)
        return ZT[0] if X.ndim == 1 else np.ascontiguousarray(ZT.T)

    def adjoint(self, Y) -> np.ndarray:
        """Return ``S_f^T Y`` for ``Y`` of shape (k,) or (k, d); the result has n rows.

        ``Y`` is checked as ``X`` in :meth:`apply`. For n too large for one array,
        :func:`fastmix.chunked.dask_adjoint` builds the same result as a lazy Dask array in row chunks.
        """
        Y = _check_operand(Y, "Y")
        if Y.ndim not in (1, 2) or Y.shape[0] != self.k:
            raise ValueError(f"Y must have shape ({self.k},) or ({self.k}, d); got {Y.shape}.")
        d = 1 if Y.ndim == 1 else Y.shape[1]
        W = np.zeros((d, self.n))
        W[:, self.rows] = (Y.reshape(self.k, d).T) * self.row_scale
        fwht_rows_unchecked(W, normalized=True, backend=self.backend)
        W *= self.signs
        return W[0] if Y.ndim == 1 else W.T

    def to_chunked(self):
        """The same draw as a :class:`fastmix.chunked.ChunkedSRHT`, which holds no n-vector.

        Raises ValueError for a transform built by :meth:`from_draw`, whose signs were given
        rather than drawn from a sign seed, so no chunk can regenerate its own.
        """
        if self.entropy is None:
            raise ValueError(
                "this SRHT was built from explicit signs (SRHT.from_draw), so its chunks cannot regenerate them; "
                "for a Dask X, draw it from a seed, SRHT(n, k, random_state=...), or use fastmix.chunked.ChunkedSRHT."
            )
        return dask_implementation("srht.to_chunked")(self)

    def to_dense(self) -> np.ndarray:
        """The explicit (k, n) matrix. Memory O(kn): for tests and small examples only."""
        return self.apply(np.eye(self.n))

    # ------------------------------------------------------------------ data-independent quantities
    def coherence(self) -> float:
        """``Delta_hat = max_{i != j} |(S_f^T S_f)_{ij}|`` via one transform (eq. 123)."""
        return srht_coherence(self.n, self.rows, backend=self.backend)

    def lambda_hat(self) -> float:
        """Lambda_hat = 2 - min_i ||S_f e_i||^2 (Algorithm 1, line 2); 1 for an SRHT (Lemma 2)."""
        return 1.0

    def _check_rows(self, X: np.ndarray) -> None:
        if X.ndim not in (1, 2) or X.shape[0] != self.n:
            raise ValueError(f"X must have n = {self.n} rows to be sketched by this SRHT; got shape {X.shape}.")

    def __repr__(self) -> str:
        return f"SRHT(n={self.n}, k={self.k})"


def _check_operand(X, name: str) -> np.ndarray:
    """A real, finite float64 array of any shape (the shape is checked by the caller)."""
    check_array_kind(X, name)
    X = np.asarray(X)
    _check_real_dtype(X, name)
    X = np.asarray(X, dtype=np.float64)
    # a finite sum proves every entry finite in one read-only pass; count only when it is not
    if not np.isfinite(np.add.reduce(X, axis=None)) and not np.all(np.isfinite(X)):
        bad = int(X.size - np.count_nonzero(np.isfinite(X)))
        raise ValueError(f"{name} contains {bad} non-finite value(s) (NaN or inf); remove or impute them first.")
    return X


def srht_coherence(n: int, rows, *, backend: str | None = None, out: np.ndarray | None = None) -> float:
    """Coherence of an SRHT from its sampled rows (FastMix paper, Appendix C.4.2, eq. 123).

    With z the 0/1 indicator of the k sampled rows and H~ the unnormalised (+-1) Hadamard
    matrix, ``(S_f^T S_f)_{ij} = +-(1/k) (H~ z)_l`` for ``l = i XOR j``, so::

        Delta_hat = max_{l >= 1} |(H~ z)_l| / k

    The signs B do not enter. One length-n transform: O(n log n) time, O(n) memory; ``out``
    (a float64 array of shape (n,)) is used as the work vector instead of a new one.
    """
    rows = np.asarray(rows)
    k = rows.size
    z = np.zeros(n) if out is None else out
    if out is not None:
        z.fill(0.0)
    z[rows] = 1.0
    fwht_rows_unchecked(z, normalized=False, backend=backend)
    if n == 1:
        return 0.0
    return float(np.max(np.abs(z[1:])) / k)


def welch_bound(n: int, k: int) -> float:
    """Welch's lower bound on the coherence of n unit vectors in R^k (App. F, eq. 240).

    Delta >= sqrt((n - k) / (k (n - 1))).
    """
    if n <= 1:
        return 0.0
    return math.sqrt(max(n - k, 0) / (k * (n - 1)))


def coherence_heuristic(n, k):
    """Typical SRHT coherence ``sqrt(2 ln(2n) / k)`` (vectorised over n and k).

    Off-diagonal entries of ``S_f^T S_f`` are ``+-(1/k)`` times a sum of k signs drawn without
    replacement, roughly N(0, 1/k); the largest of about n such magnitudes is near
    ``sqrt(2 ln(2n)/k)``. A reference line for plots, not a bound; the book's Appendix F page
    compares it with measured coherences.
    """
    n = np.asarray(n, dtype=float)
    k = np.asarray(k, dtype=float)
    return np.sqrt(2.0 * np.log(2.0 * n) / k)


def coherence_upper_scale(n, k, rho, constant: float = 1.0):
    """The scale ``constant * log(n / rho) / sqrt(k)`` of the high-probability SRHT coherence bound.

    Appendix F, eq. (241): with probability at least ``1 - rho``, ``Delta_hat = O~(log(n/rho)/sqrt(k))``.
    The paper gives no constant, so ``constant`` must be stated wherever this is drawn.
    """
    n = np.asarray(n, dtype=float)
    k = np.asarray(k, dtype=float)
    return constant * np.log(n / rho) / np.sqrt(k)


@dataclass(frozen=True)
class SketchQuantities:
    """The data-dependent and data-independent quantities of one FastMix draw.

    Attributes
    ----------
    Z : ndarray of shape (k, d)
        The sketch ``S_f X`` (not private on its own).
    m_hat : float
        ``max_i ||Z^T S_f e_i - x_i||`` (Algorithm 1, line 2). Not private.
    delta_hat : float
        Coherence ``max_{i != j} |(S_f^T S_f)_{ij}|`` (public: depends on S_f only).
    Lambda_hat : float
        ``2 - min_i ||S_f e_i||^2`` (public).
    lambda_min : float
        ``lambda_min(Z^T Z)`` (not private).
    n, k, d : int
    """

    Z: np.ndarray
    m_hat: float
    delta_hat: float
    Lambda_hat: float
    lambda_min: float
    n: int
    k: int
    d: int

    @property
    def row_bound_sq(self) -> float:
        """C^2_{S_f X} = 1 + 2 m_hat (Lemma 1), for C_X = 1."""
        return 1.0 + 2.0 * self.m_hat


def _lambda_min_gram(Z: np.ndarray) -> float:
    """lambda_min(Z^T Z) from the d x d Gram matrix: O(k d^2) for the product, O(d^3) after.

    Rounding gives an absolute error of order 1e-16 lambda_max, far below the Laplace noise
    that privatises this value in Algorithm 1 (line 4); tiny negative results are clipped to 0.
    """
    k, d = Z.shape
    if k < d:
        return 0.0
    return float(max(0.0, np.linalg.eigvalsh(Z.T @ Z)[0]))


@dask_route("srht.sketch_quantities", on="X")
def sketch_quantities(
    X, srht: SRHT, *, compute_m: bool = True, check_input: bool = True, workspace: SketchWorkspace | None = None
) -> SketchQuantities:
    """Z = S_f X and the exact quantities of Algorithm 1, line 2, for an SRHT.

    Cost: one forward transform of the d columns of X, one adjoint transform (eq. 118),
    one length-n transform for the coherence (eq. 123) and an SVD of the k x d sketch.

    With W = H B X, the paper's eq. (118) reads

        X^T (S_f^T S_f - I) e_i = W^T ((n/k) P^T P - I) H B e_i,

    so the n vectors X^T (S_f^T S_f - I) e_i are the columns of
    B H [((n/k) P^T P - I) W]: rescale the rows of W (sampled rows by n/k - 1, the others by
    -1), transform once more, and take column norms (the signs B do not change norms).
    Note ``Z^T S_f e_i - x_i`` is that same vector, since ``Z^T S_f e_i = X^T S_f^T S_f e_i``.

    Parameters
    ----------
    X : array-like of shape (n, d), or a Dask array of shape (n, d)
        Data, ideally in Fortran order (see module docstring). Validated to be finite. A Dask X,
        chunked along rows, is read in two passes (:func:`fastmix.chunked.chunked_sketch_quantities`,
        which also returns the rechunking it applied); ``check_input`` and ``workspace`` then do
        not apply.
    srht : SRHT
        The draw S_f.
    compute_m : bool, default=True
        Skip the adjoint transform when m_hat is not needed (then ``m_hat`` is NaN).
    check_input : bool, default=True
        ``False`` skips the checks of ``X`` (a real, finite float64 ndarray with ``srht.n``
        rows), for callers that validated it once and draw many times, such as
        :func:`fastmix.mechanisms.multiple_fast_mixing`. Unchecked input of the wrong kind gives
        wrong numbers or an error from deep inside NumPy; leave it ``True`` otherwise.
    workspace : SketchWorkspace, optional
        Work buffers to reuse (see :class:`SketchWorkspace`); made for this call if not given
        or of other sizes.

    Returns
    -------
    SketchQuantities
        ``Z`` is a Fortran-ordered (k, d) array (the transpose of the C-ordered ``Z^T`` that
        the pass fills; no copy is made).
    """
    if check_input:
        X = check_matrix(X, "X")
        srht._check_rows(X)
    return _sketch_quantities(X, srht, compute_m, workspace)


def _chunk_rows(n_rows: int, n: int) -> int:
    """Rows per chunk so a (rows, n) float64 block is about ``fastmix.hadamard.CHUNK_BYTES``."""
    return min(n_rows, max(2, CHUNK_BYTES // (8 * n)))


class SketchWorkspace:
    """Work buffers of the blocked SRHT pass, allocated once and reused across draws.

    One draw of :func:`sketch_quantities` needs a cache-sized block of rows of the (d, n) batch,
    a (rows, k) buffer of its sampled entries, the n squared norms of eq. (118) and the length-n
    indicator of eq. (123): about ``CHUNK_BYTES + 16 n`` bytes. A caller that draws many times
    with the same (d, n, k), as :func:`fastmix.mechanisms.multiple_fast_mixing` does, passes one
    workspace to every draw, so nothing of that size is allocated (and page-faulted) again.

    Parameters
    ----------
    d, n, k : int
        Columns of X, rows of X (a power of two) and SRHT rows.
    """

    def __init__(self, d: int, n: int, k: int):
        self.d, self.n, self.k = int(d), int(n), int(k)
        self.rows = _chunk_rows(max(self.d, 1), self.n)
        self.block = np.empty((self.rows, self.n))
        self.sampled = np.empty((self.rows, self.k))
        self.col_sq = np.empty(self.n)
        self.indicator = np.empty(self.n)
        self._row_offsets = (np.arange(self.rows, dtype=np.intp) * self.n)[:, None]

    def fits(self, d: int, n: int, k: int) -> bool:
        """Whether this workspace serves a draw of these sizes."""
        return (self.d, self.n, self.k) == (d, n, k)

    def flat_indices(self, rows: np.ndarray) -> np.ndarray:
        """Flat indices into :attr:`block` of the sampled columns ``rows`` of every block row."""
        return (self._row_offsets + rows[None, :]).ravel()


def _blocked_pass(XT: np.ndarray, srht: SRHT, compute_m: bool, work: SketchWorkspace | None = None):
    """One pass over the (d, n) batch ``XT`` in cache-sized blocks of rows.

    For each block of a few columns of X (the rows of ``XT``), while it sits in the last-level
    cache:

    1. ``block = B X^T / sqrt(n)`` (one read of X) and ``block <- H~ block``: the rows of
       ``(H B X)^T`` (Definition 3);
    2. the k sampled entries are gathered once (``np.take`` into a reused buffer) and scaled by
       ``sqrt(n/k)`` into ``Z^T`` (the row sampling P of Definition 3);
    3. with ``compute_m``, the middle factor ``((n/k) P^T P - I) / sqrt(n)`` of eq. (118) is
       ``-1/sqrt(n)`` times ``I + (1 - n/k) P^T P``: the k sampled entries are scattered back
       times ``1 - n/k`` (the others are left as they are), the block is transformed again and
       the column sums of its squares (one ``einsum``, no squared copy) are added to the n sums
       ``n ||X^T (S_f^T S_f - I) e_i||^2`` (Algorithm 1, line 2). The common factor ``1/n`` of
       the squares is applied once, to the returned vector.

    X is read from memory once; the work buffers are those of ``work`` (a
    :class:`SketchWorkspace`, made here if not given).

    Returns ``Z^T`` of shape (d, k) and the squared norms (a view into ``work``, or None).
    """
    d, n = XT.shape
    k = srht.k
    if work is None or not work.fits(d, n, k):
        work = SketchWorkspace(d, n, k)
    rows = work.rows
    ZT = np.empty((d, k))
    forward_scale = srht.signs / math.sqrt(n)
    kept = 1.0 - n / k  # the middle factor over its common scale -1/sqrt(n), at the sampled entries
    col_sq = work.col_sq if compute_m else None
    partial = work.indicator if compute_m else None  # free until the coherence transform
    flat = work.flat_indices(srht.rows) if compute_m else None
    first = True
    for start in range(0, d, rows):
        stop = min(start + rows, d)
        r = stop - start
        block = work.block[:r]
        sampled = work.sampled[:r]
        np.multiply(XT[start:stop], forward_scale, out=block)
        fwht_rows_unchecked(block, normalized=False, backend=srht.backend)  # rows of (H B X)^T
        np.take(block, srht.rows, axis=1, out=sampled)
        np.multiply(sampled, srht.row_scale, out=ZT[start:stop])
        if compute_m:
            assert col_sq is not None and partial is not None and flat is not None
            sampled *= kept
            np.put(block, flat[: r * k], sampled)
            fwht_rows_unchecked(block, normalized=False, backend=srht.backend)  # B H [.]: B skipped
            if first:  # 0 + x = x: the first block's sums start the total
                np.einsum("ij,ij->j", block, block, out=col_sq)
                first = False
            else:
                np.einsum("ij,ij->j", block, block, out=partial)
                col_sq += partial
    if compute_m:
        assert col_sq is not None
        col_sq *= 1.0 / n  # the square of the common scale -1/sqrt(n)
    return ZT, col_sq


def sketch(X, srht: SRHT, *, check_input: bool = True, work: SketchWorkspace | None = None) -> np.ndarray:
    """``Z = S_f X`` (k x d) through the blocked pass, without the other quantities of a draw.

    The same signs, transform and row sampling as :meth:`fastmix.srht.SRHT.apply` (Definition 3), a few
    columns of X at a time; X is read once. ``check_input=False`` skips the checks for a caller
    that validated X once and sketches it many times (the iterations of
    :func:`fastmix.regression.fast_ihs`), and ``work`` reuses the buffers across those sketches.
    """
    if check_input:
        X = check_matrix(X, "X")
        srht._check_rows(X)
    ZT, _ = _blocked_pass(_columns_batch(X), srht, compute_m=False, work=work)
    return ZT.T


def _sketch_quantities(
    X: np.ndarray, srht: SRHT, compute_m: bool = True, work: SketchWorkspace | None = None
) -> SketchQuantities:
    """:func:`sketch_quantities` on validated input (see :func:`_blocked_pass`)."""
    n, d = X.shape
    if work is None or not work.fits(d, n, srht.k):
        work = SketchWorkspace(d, n, srht.k)
    ZT, col_sq = _blocked_pass(_columns_batch(X), srht, compute_m, work)
    Z = ZT.T  # (k, d) in Fortran order: no transpose copy
    return SketchQuantities(
        Z=Z,
        m_hat=float(math.sqrt(col_sq.max())) if compute_m else math.nan,
        delta_hat=srht_coherence(n, srht.rows, backend=srht.backend, out=work.indicator),
        Lambda_hat=srht.lambda_hat(),
        lambda_min=_lambda_min_gram(Z),
        n=n,
        k=srht.k,
        d=d,
    )


def sketch_quantities_dense(X, S) -> SketchQuantities:
    """The same quantities for an arbitrary explicit sketch matrix S_f (k x n).

    Lemma 1 and Theorem 1 hold for any S_f whose columns have norm at most 1; this
    O(k n d + k n^2) routine evaluates the definitions of Algorithm 1, line 2 directly and
    serves both such general sketches and as a reference for :func:`sketch_quantities`.
    """
    X = check_matrix(X, "X")
    S = check_matrix(S, "S")
    if S.shape[1] != X.shape[0]:
        raise ValueError(f"S must have {X.shape[0]} columns to multiply X; got shape {S.shape}.")
    col_sq = np.einsum("ij,ij->j", S, S)
    if np.any(col_sq > 1.0 + 1e-9):
        raise ValueError(
            "Every column of S_f must have norm at most 1 (Lemma 1); the largest has norm "
            f"{math.sqrt(col_sq.max()):.6g}. Rescale S_f."
        )
    Z = S @ X
    G = S.T @ S - np.eye(S.shape[1])
    m_vectors = X.T @ G  # column i = X^T (S^T S - I) e_i
    return SketchQuantities(
        Z=Z,
        m_hat=float(np.sqrt(np.max(np.sum(m_vectors**2, axis=0)))),
        delta_hat=float(np.max(np.abs(G))) if S.shape[1] > 1 else 0.0,
        Lambda_hat=float(2.0 - col_sq.min()),
        lambda_min=_lambda_min_gram(Z),
        n=X.shape[0],
        k=S.shape[0],
        d=X.shape[1],
    )
