"""The Gaussian step shared by every mechanism: ``S_G Z + noise_scale * xi``.

Algorithm 1 of the FastMix paper ends with it (line 6, after the SRHT ``Z = S_f X``), Algorithm 2
draws it once per iteration from the sketches of Algorithm 3 (lines 5-6), and the Gaussian mixing
mechanism of Proposition 2 is this step applied to X itself (eq. 4). :func:`mix_sketch` samples it
either as written (``"explicit"``) or from a d x d factor of its covariance (``"gram"``, the view
of the proof of Lemma 1, eqs. 20-21); both release the same distribution.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_matrix, check_policy, check_positive, check_positive_int, check_random_state
from ..threads import blas_limit

__all__ = ["mix_sketch", "GAUSSIAN_STEPS"]

#: How :func:`mix_sketch` samples the Gaussian step.
GAUSSIAN_STEPS = ("explicit", "gram")


def mix_sketch(Z, noise_scale: float, k1: int, random_state=None, *, method: str = "explicit") -> np.ndarray:
    """The Gaussian step shared by all mechanisms: ``S_G Z + noise_scale * xi``.

    ``S_G`` is k1 x rows(Z) with i.i.d. N(0, 1) entries and ``xi`` is k1 x d with i.i.d.
    N(0, 1) entries (Algorithm 1, line 6; Algorithm 2, lines 5-6; eq. 4 with k1 rows).

    Parameters
    ----------
    Z : array-like of shape (m, d)
    noise_scale : float
        sigma (eq. 4) or eta_tilde (Algorithm 1, line 5); finite and >= 0 (0 releases the
        noiseless ``S_G Z``, which is not private on its own).
    k1 : int
        Number of Gaussian rows.
    random_state : None, int, SeedSequence or Generator
    method : {"explicit", "gram"}, default="explicit"
        ``"explicit"`` forms ``S_G Z`` as the papers write it: k1*m Gaussian draws and an
        O(k1 m d) product. ``"gram"`` samples the same distribution from a d x d factor: given
        Z, the rows of ``S_G Z + noise_scale * xi`` are i.i.d. N(0, Z^T Z + noise_scale^2 I)
        (this is how the proof of Lemma 1 sees them, eqs. 20-21), so drawing a k1 x d standard
        Gaussian G and returning ``G A^T`` with ``A A^T = Z^T Z + noise_scale^2 I`` gives a
        release with exactly the same law - hence the same privacy and the same utility - in
        O(m d^2 + d^3 + k1 d^2) time and k1*d draws. The two methods consume the random stream
        differently, so they give different (equally distributed) outputs for one seed.
    """
    Z = np.asarray(check_matrix(Z, "Z"), dtype=np.float64)
    noise_scale = check_positive(noise_scale, "noise_scale", allow_zero=True)
    k1 = check_positive_int(k1, "k1")
    check_policy(method, "method", GAUSSIAN_STEPS)
    rng = check_random_state(random_state)
    with blas_limit():
        if method == "explicit":
            return _explicit_step(Z, noise_scale, k1, rng)
        if method == "gram":
            return _gram_step(Z, noise_scale, k1, rng)
    raise AssertionError("unreachable: method was checked above")  # pragma: no cover


#: Bytes of one block of rows of S_G drawn at a time by the explicit Gaussian step.
_GAUSSIAN_BLOCK_BYTES = 4 << 20


def _explicit_step(Z: np.ndarray, noise_scale: float, k1: int, rng: np.random.Generator) -> np.ndarray:
    """``S_G Z + noise_scale xi`` as written (Algorithm 1, line 6), S_G drawn a block of rows at a time.

    ``rng.standard_normal((k1, m))`` fills S_G row by row, so drawing consecutive blocks of rows
    into one reused buffer consumes the stream exactly as one (k1, m) draw would: the same S_G,
    then the same xi. Block b of the product is ``S_G[b] @ Z`` (the same numbers as the rows of
    one product, up to the order in which BLAS sums); the k1 x m matrix is never held whole (at
    k1 = 192, m = 25600 it would be 39 MB, page-faulted afresh on every draw).
    """
    m, d = Z.shape
    rows = min(k1, max(16, _GAUSSIAN_BLOCK_BYTES // (8 * max(m, 1))))
    block = np.empty((rows, m))
    out = np.empty((k1, d))
    for start in range(0, k1, rows):
        stop = min(start + rows, k1)
        S_G = block[: stop - start]
        rng.standard_normal(out=S_G)
        np.matmul(S_G, Z, out=out[start:stop])
    xi = rng.standard_normal((k1, d))
    out += noise_scale * xi
    return out


def _gram_step(Z: np.ndarray, noise_scale: float, k1: int, rng: np.random.Generator) -> np.ndarray:
    """``G A^T`` with G a k1 x d standard Gaussian and ``A A^T = Z^T Z + noise_scale^2 I``.

    Given Z, the rows of ``S_G Z + noise_scale xi`` are i.i.d. ``N(0, Z^T Z + noise_scale^2 I)``
    (proof of Lemma 1, eqs. 20-21); so are the rows of ``G A^T``. Same law, d x d work.
    """
    d = Z.shape[1]
    cov = Z.T @ Z
    cov[np.diag_indices(d)] += noise_scale**2
    w, V = np.linalg.eigh(cov)
    A = V * np.sqrt(np.clip(w, 0.0, None))  # A A^T = cov (round-off negatives clipped)
    return rng.standard_normal((k1, d)) @ A.T
