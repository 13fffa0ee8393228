"""Differentially private kernel learning by random projection (the kernel paper).

The kernel paper (Lee, Park and Ahn 2025, arXiv:2507.17544) replaces the infinite-dimensional
feature map ``x -> k(x, .)`` of a reproducing-kernel Hilbert space by a *random projection*
to R^M: draw M independent centred Gaussian-process paths ``h(., w_j) ~ GP(0, k)`` and map

    h_M(x) = M^(-1/2) (h(x, w_1), ..., h(x, w_M))

(kernel paper, Definition 4; section numbers are not in our copy).  ``E[h_M(x)^T h_M(x')] = k(x, x')``, and with the
linear kernel h_M is the ordinary Euclidean Gaussian random projection (Definition 5).  A
private linear learner on ``h_M(x_i)`` then gives a private kernel learner:

* :class:`DPRandomProjectionKRR` -- Algorithm 1, kernel ridge regression by sufficient
  statistics perturbation (after Wang 2018); privacy in Theorem 1.
* :class:`DPRandomProjectionLogistic` -- Algorithm 2, objective perturbation for a
  Lipschitz-smooth loss (logistic) after Kifer et al. (2012); privacy in Theorem 2.
* :class:`DPRandomFeatureKRR` -- Algorithm 3, the same as Algorithm 1 on random Fourier
  features (Rahimi and Recht 2007; Chaudhuri et al. 2011); privacy in Theorem 5.

Non-private counterparts with the *same* random features are :class:`RandomProjectionKRR` and
:class:`RandomFeatureKRR`.  The noise calibrations are derived in the book chapter
``book/kernel_calibration.md``; the paper's algorithm boxes were not available to us, so each
constant below is our own derivation and says so.

Paths are sampled in one of two ways (see :class:`ExactGaussianProcessPaths` and
:class:`RandomFeatureGaussianProcessPaths`):

* exactly, from the joint Gaussian law at every point where a path is ever evaluated
  (Cholesky factor of the kernel matrix grown block by block, so test points are drawn from the
  GP conditional given all earlier path values and every point gets one value for good);
* approximately for shift-invariant kernels, ``h(x) = sum_l a_l phi_l(x)`` over D >> M random
  Fourier features, which converges in law to the GP as D grows.

References
----------
- B. Lee, C. Park and J. Ahn, 2025, "Optimal differentially private kernel learning with
  random projection", arXiv:2507.17544.
- Y.-X. Wang, 2018, "Revisiting differentially private linear regression: optimal and
  adaptive prediction & estimation in unbounded domain", UAI.
- D. Kifer, A. Smith and A. Thakurta, 2012, "Private convex empirical risk minimization and
  high-dimensional regression", COLT.
- B. Laurent and P. Massart, 2000, "Adaptive estimation of a quadratic functional by model
  selection", Annals of Statistics (Lemma 1).
- A. Rahimi and B. Recht, 2007, "Random features for large-scale kernel machines", NeurIPS.
- B. Balle and Y.-X. Wang, 2018, "Improving the Gaussian mechanism for differential
  privacy: analytical calibration and optimal denoising", ICML.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np
from scipy import linalg
from scipy.spatial.distance import cdist
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from ._compat import UnpacksAsTuple
from ._validation import (
    check_delta,
    check_epsilon,
    check_matrix,
    check_positive,
    check_positive_int,
    check_random_state,
    check_row_norms,
    check_vector,
)
from .accounting import REPLACE_ONE, PrivacyLedger, analytic_gaussian_sigma

__all__ = [
    "GaussianKernel",
    "LaplaceKernel",
    "LinearKernel",
    "make_kernel",
    "laurent_massart_bound",
    "ExactGaussianProcessPaths",
    "RandomFeatureGaussianProcessPaths",
    "RandomFourierFeatures",
    "random_projection_paths",
    "SufficientStatisticsRelease",
    "release_sufficient_statistics",
    "release_from_statistics",
    "RidgeSolution",
    "solve_ridge_floored",
    "ridge_path_floored",
    "operator_spectrum",
    "effective_dimension",
    "RPHyperparameters",
    "theory_rp_hyperparameters",
    "ObjectivePerturbationCalibration",
    "objective_perturbation_calibration",
    "theory_hyperparameters",
    "RandomProjectionKRR",
    "RandomFeatureKRR",
    "DPRandomProjectionKRR",
    "DPRandomFeatureKRR",
    "DPRandomProjectionLogistic",
]

_PAPER = "kernel paper (arXiv:2507.17544)"


# ###########################################################################################
# Kernels
# ###########################################################################################


class _UnitShiftInvariantKernel:
    """Shared parts of the shift-invariant kernels with ``k(x, x) = 1`` (bandwidth ``s``)."""

    shift_invariant = True

    def __init__(self, bandwidth: float = 1.0):
        self.bandwidth = _check_bandwidth(bandwidth)

    @property
    def kappa2(self) -> float:
        """sup_x k(x, x) = 1."""
        return 1.0

    def diag(self, X) -> np.ndarray:
        """``k(x_i, x_i)`` for every row (all ones)."""
        return np.ones(np.asarray(X).shape[0])

    def __repr__(self) -> str:
        return f"{type(self).__name__}(bandwidth={self.bandwidth!r})"


class GaussianKernel(_UnitShiftInvariantKernel):
    """Gaussian (RBF) kernel with bandwidth ``s``::

        k(x, x') = exp(-||x - x'||_2^2 / (2 s^2)),      kappa^2 = sup_x k(x, x) = 1.

    Its spectral density (Bochner) is N(0, s^-2 I_d), which :meth:`sample_frequencies` draws.

    Parameters
    ----------
    bandwidth : float, default=1.0
        The length scale ``s`` > 0 (sklearn's ``gamma`` is ``1 / (2 s^2)``).
    """

    name = "gaussian"

    def __call__(self, X, Y=None) -> np.ndarray:
        """Gram matrix ``K[i, j] = k(X[i], Y[j])`` (``Y = X`` when omitted)."""
        Y = X if Y is None else Y
        K = cdist(np.asarray(X, float), np.asarray(Y, float), "sqeuclidean")
        K *= -1.0 / (2.0 * self.bandwidth**2)
        return np.exp(K, out=K)  # in place: one n x m array in all

    def sample_frequencies(self, D: int, d: int, random_state=None) -> np.ndarray:
        """Draw D frequencies from the spectral density N(0, s^-2 I_d); shape (d, D).

        ``random_state`` (None, int, SeedSequence or Generator; a Generator continues its stream).
        """
        return check_random_state(random_state).standard_normal((d, D)) / self.bandwidth


class LaplaceKernel(_UnitShiftInvariantKernel):
    """Laplace kernel with the L1 distance and bandwidth ``s``::

        k(x, x') = exp(-||x - x'||_1 / s) = prod_j exp(-|x_j - x'_j| / s),   kappa^2 = 1.

    We use the L1 form (as sklearn's ``laplacian_kernel`` does) because it factorises over
    coordinates, so its spectral density is a product of Cauchy densities with scale ``1/s``;
    :meth:`sample_frequencies` draws from exactly that law, so the random-feature maps built on
    it are unbiased for this kernel.

    Parameters
    ----------
    bandwidth : float, default=1.0
        The length scale ``s`` > 0 (sklearn's ``gamma`` is ``1 / s``).
    """

    name = "laplace"

    def __call__(self, X, Y=None) -> np.ndarray:
        """Gram matrix ``K[i, j] = k(X[i], Y[j])``."""
        Y = X if Y is None else Y
        K = cdist(np.asarray(X, float), np.asarray(Y, float), "cityblock")
        K *= -1.0 / self.bandwidth
        return np.exp(K, out=K)

    def sample_frequencies(self, D: int, d: int, random_state=None) -> np.ndarray:
        """Draw D frequencies with iid Cauchy(0, 1/s) coordinates; shape (d, D).

        ``random_state`` (None, int, SeedSequence or Generator; a Generator continues its stream).
        """
        return check_random_state(random_state).standard_cauchy((d, D)) / self.bandwidth


class LinearKernel:
    """Linear kernel ``k(x, x') = x^T x'`` on the ball ``||x|| <= R``.

    ``kappa^2 = sup_{||x|| <= R} k(x, x) = R^2``; the privacy analysis needs this bound, so
    the estimators enforce ``||x_i|| <= R`` on the training rows (see ``row_norm_policy``).
    A GP path of this kernel is exactly ``x -> g^T x`` with ``g ~ N(0, I_d)``, so its random
    projection is the Euclidean Gaussian random projection ``G^T x / sqrt(M)`` (kernel paper,
    Definition 5 and the remark after eq. (2)).

    Parameters
    ----------
    feature_bound : float, default=1.0
        Public bound ``R`` > 0 on the Euclidean norm of the inputs.
    """

    shift_invariant = False
    name = "linear"

    def __init__(self, feature_bound: float = 1.0):
        self.feature_bound = check_positive(feature_bound, "feature_bound")

    @property
    def kappa2(self) -> float:
        """R^2."""
        return self.feature_bound**2

    def __call__(self, X, Y=None) -> np.ndarray:
        """Gram matrix ``X Y^T``."""
        Y = X if Y is None else Y
        return np.asarray(X, float) @ np.asarray(Y, float).T

    def diag(self, X) -> np.ndarray:
        """``||x_i||^2`` for every row."""
        X = np.asarray(X, float)
        return np.einsum("ij,ij->i", X, X)

    def __repr__(self) -> str:
        return f"LinearKernel(feature_bound={self.feature_bound!r})"


_KERNELS = {"gaussian": GaussianKernel, "rbf": GaussianKernel, "laplace": LaplaceKernel, "linear": LinearKernel}


def _check_bandwidth(bandwidth) -> float:
    try:
        return check_positive(bandwidth, "bandwidth")
    except ValueError as err:
        raise ValueError(
            f"{err} The bandwidth is the kernel length scale s; pick it from public knowledge of the "
            "input scale (e.g. sqrt(d) for standardised inputs), not from the private data."
        ) from None


def make_kernel(kernel="gaussian", *, bandwidth: float = 1.0, feature_bound: float = 1.0):
    """Build a kernel object from a name or pass a kernel object through.

    Parameters
    ----------
    kernel : {"gaussian", "rbf", "laplace", "linear"} or kernel object
    bandwidth : float
        Length scale of the Gaussian / Laplace kernels.
    feature_bound : float
        Bound R on ||x|| for the linear kernel.
    """
    if not isinstance(kernel, str):
        if callable(kernel) and hasattr(kernel, "kappa2") and hasattr(kernel, "diag"):
            return kernel
        raise TypeError(f"kernel must be a name in {sorted(_KERNELS)} or a kernel object; got {kernel!r}.")
    key = kernel.lower()
    if key not in _KERNELS:
        raise ValueError(f"kernel must be one of {sorted(_KERNELS)}; got {kernel!r}.")
    if key == "linear":
        return LinearKernel(feature_bound)
    return _KERNELS[key](bandwidth)


# ###########################################################################################
# The Laurent-Massart norm bound
# ###########################################################################################


def laurent_massart_bound(kappa2: float, n_paths: int, t: float) -> float:
    """High-probability bound on ``||h_M(x)||^2`` (kernel paper, Lemma 2 via Proposition 3).

    For a fixed x, ``||h_M(x)||^2 = (1/M) sum_j Z_j^2`` with ``Z_j ~ N(0, k(x, x))`` iid and
    ``k(x, x) <= kappa^2``.  Laurent and Massart (2000, Lemma 1) with weights ``a_j = kappa^2/M``
    gives, with probability at least ``1 - t``::

        ||h_M(x)||^2 <= D2 := kappa^2 (1 + 2 sqrt(log(1/t) / M) + 2 log(1/t) / M).

    Parameters
    ----------
    kappa2 : float
        Bound on the path variance ``k(x, x)``.
    n_paths : int
        M.
    t : float in (0, 1)
        Failure probability for one point.

    Returns
    -------
    float
        ``D2``.
    """
    kappa2 = check_positive(kappa2, "kappa2")
    M = check_positive_int(n_paths, "n_paths")
    if not 0.0 < t < 1.0:
        raise ValueError(f"t must lie in (0, 1); got {t!r}.")
    L = math.log(1.0 / t)
    return kappa2 * (1.0 + 2.0 * math.sqrt(L / M) + 2.0 * L / M)


# ###########################################################################################
# Random projection path samplers
# ###########################################################################################


def _unique_rows(X: np.ndarray):
    """Unique rows of X (first-occurrence order) and the inverse index."""
    Xc = np.ascontiguousarray(X, dtype=float)
    _, first, inverse = np.unique(Xc, axis=0, return_index=True, return_inverse=True)
    order = np.argsort(first)
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return Xc[np.sort(first)], rank[inverse.ravel()]


def _lower_times(L: np.ndarray, Z: np.ndarray) -> np.ndarray:
    """``L @ Z`` for a lower-triangular ``L`` by BLAS ``trmm`` (half the work of a dense product, no copy of ``L``)."""
    from scipy.linalg import blas

    Zf = np.asfortranarray(Z, dtype=np.float64)
    if L.flags.f_contiguous:
        return blas.dtrmm(1.0, L, Zf, lower=1)
    # a C-ordered L is the transpose of a Fortran-ordered upper-triangular matrix U = L^T: L Z = U^T Z
    return blas.dtrmm(1.0, L.T, Zf, lower=0, trans_a=1)


def _zero_strict_upper(L: np.ndarray) -> None:
    """Set the strict upper triangle of the square array ``L`` to zero, in place (row by row)."""
    for i in range(L.shape[0] - 1):
        L[i, i + 1 :] = 0.0


def _restore_triangle(A: np.ndarray, upper: bool) -> None:
    """Undo a failed in-place ``potrf``: mirror the triangle it did not touch onto the one it did.

    ``potrf`` overwrites only the triangle it factorises (``upper`` says which); the other strict
    triangle still holds the symmetric matrix, so mirroring it restores every off-diagonal entry
    (the caller rewrites the diagonal).
    """
    for i in range(A.shape[0] - 1):
        if upper:
            A[i, i + 1 :] = A[i + 1 :, i]
        else:
            A[i + 1 :, i] = A[i, i + 1 :]


class ExactGaussianProcessPaths:
    """Exact sampler of M Gaussian-process paths, evaluated lazily and consistently.

    The random projection of the kernel paper (Definition 4) needs the values of M iid
    paths ``h(., w_j) ~ GP(0, k)`` at the training inputs and later at prediction inputs.  We draw
    them from their exact joint Gaussian law.  The first call (:meth:`fit`) factorises the kernel
    matrix of the distinct training inputs, ``K + j I = L L^T`` and sets ``F = L Z`` with
    ``Z`` iid N(0, 1).  Each later call evaluates the *same* paths at new points by the GP
    conditional given every value drawn so far::

        F_new = V^T Z + L_new Z_new,    V = L^{-1} K(A, X_new),
        L_new L_new^T = K(X_new, X_new) - V^T V + j I,

    and appends the new block to the factor, so a point once evaluated keeps its value and the
    values at all points ever queried are one draw from the joint law.  This "conditional"
    choice is what keeps prediction private: the released function is one GP draw independent of
    the data, exactly as in the paper; fresh conditional draws at each query would instead reveal
    the conditional variance, which depends on the training inputs.  Cost O(N^3) in the number N
    of distinct points ever evaluated, so use it for N up to a few thousand.

    Jitter: ``j`` starts at ``jitter * kappa2`` and is multiplied by 10 until the Cholesky
    factorisation succeeds (at most ``max_jitter * kappa2``).  The value used for each block is
    recorded in :attr:`jitter_`; it adds independent N(0, j) noise to each path value, i.e. the
    paths are exact for the kernel ``k + j * 1{x = x'}``, and :attr:`variance_bound` includes it.
    For the linear kernel the paths are sampled in weight space, ``h(x) = g^T x``, exactly and
    without any factorisation.

    Parameters
    ----------
    kernel : kernel object
    n_paths : int
        M, the projection dimension.
    jitter, max_jitter : float
        Initial and largest relative jitter.
    random_state : None, int, SeedSequence or Generator
        Controls the path draws. Pass an int for reproducible output.

    Attributes
    ----------
    jitter_ : list of float
        Absolute jitter used for each factorised block (fit first, then one per new batch).
    n_points_ : int
        Number of distinct points at which the paths have been evaluated.
    """

    def __init__(self, kernel, n_paths: int, *, jitter: float = 1e-10, max_jitter: float = 1e-3, random_state=None):
        self.kernel = kernel
        self.n_paths = check_positive_int(n_paths, "n_paths")
        self.jitter = check_positive(jitter, "jitter")
        self.max_jitter = check_positive(max_jitter, "max_jitter")
        check_random_state(random_state)  # refuse a bad type now; the generator is made in fit
        self.random_state = random_state
        self.jitter_: list[float] = []

    @property
    def variance_bound(self) -> float:
        """Bound on the variance of one path value: ``kappa2`` plus the largest jitter used."""
        return self.kernel.kappa2 + (max(self.jitter_) if self.jitter_ else 0.0)

    @property
    def n_points_(self) -> int:
        return 0 if self.kernel.name == "linear" else len(self._keys)

    def _chol(self, S: np.ndarray) -> np.ndarray:
        """Lower Cholesky factor of ``S + j I``, computed in the memory of ``S`` (which it consumes).

        Only the lower triangle of ``S`` is read (LAPACK ``potrf``), so no re-symmetrised copy is
        made; the jitter is added to the diagonal in place and the factorisation overwrites ``S``.
        When a factorisation fails, the lower triangle is restored from the untouched strict upper
        triangle (the matrix is symmetric) and the saved diagonal, row by row, and retried with
        ten times the jitter.  Peak memory: ``S`` itself plus O(n).
        """
        k2 = self.kernel.kappa2
        j = self.jitter * k2
        start = max(self.jitter_) if self.jitter_ else j
        j = max(j, start)
        if not (S.flags.c_contiguous or S.flags.f_contiguous) or S.dtype != np.float64:
            S = np.array(S, dtype=np.float64, order="F")
        # LAPACK wants Fortran order; a C-ordered S is used through its transpose (no copy), whose
        # upper triangle is the lower triangle of S.
        upper = not S.flags.f_contiguous
        A = S.T if upper else S
        n = A.shape[0]
        idx = np.arange(n)
        diag = A[idx, idx].copy()
        potrf = linalg.get_lapack_funcs("potrf", (A,))
        while True:
            A[idx, idx] = diag + j  # the jitter, in place
            c, info = potrf(A, lower=not upper, overwrite_a=True, clean=False)
            if info == 0:
                self.jitter_.append(float(j))
                L = c.T if upper else c
                _zero_strict_upper(L)
                return L
            if info < 0:  # pragma: no cover - an argument error is a bug, not a conditioning problem
                raise ValueError(f"LAPACK potrf: illegal argument {-info}")
            _restore_triangle(c, upper)
            j *= 10.0
            if j > self.max_jitter * k2 * (1 + 1e-12):
                raise np.linalg.LinAlgError(
                    f"the kernel matrix of {n} points is not positive definite even with jitter "
                    f"{j / 10:.3g}; use sampler='approximate' for shift-invariant kernels or raise max_jitter."
                ) from None

    def fit(self, X) -> ExactGaussianProcessPaths:
        """Draw the path values at the rows of ``X`` (resets any earlier draws)."""
        self._rng = check_random_state(self.random_state)
        X = check_matrix(X, "X", dtype=float)
        self.n_features_in_ = X.shape[1]
        self.jitter_ = []
        if self.kernel.name == "linear":
            self._G = self._rng.standard_normal((X.shape[1], self.n_paths))
            return self
        U, _ = _unique_rows(X)
        K = self.kernel(U)
        self._L = self._chol(K)
        self._Z = self._rng.standard_normal((U.shape[0], self.n_paths))
        self._F = _lower_times(self._L, self._Z)
        self._points = U
        self._keys = {row.tobytes(): i for i, row in enumerate(U)}
        return self

    def evaluate(self, X) -> np.ndarray:
        """Path values ``h(x_i, w_j)`` (unscaled), shape (n, M); new points are added for good."""
        X = np.ascontiguousarray(check_matrix(X, "X", dtype=float))
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features but the paths were fitted on {self.n_features_in_}.")
        if self.kernel.name == "linear":
            return X @ self._G
        U, inv = _unique_rows(X)
        new = [i for i, row in enumerate(U) if row.tobytes() not in self._keys]
        if new:
            Xn = U[new]
            Kan = self.kernel(self._points, Xn)
            V = linalg.solve_triangular(self._L, Kan, lower=True, check_finite=False)
            S = self.kernel(Xn) - V.T @ V
            Ln = self._chol(S)
            Zn = self._rng.standard_normal((Xn.shape[0], self.n_paths))
            Fn = V.T @ self._Z + Ln @ Zn
            N, m = self._L.shape[0], Xn.shape[0]
            L = np.zeros((N + m, N + m))
            L[:N, :N] = self._L
            L[N:, :N] = V.T
            L[N:, N:] = Ln
            self._L = L
            self._Z = np.vstack([self._Z, Zn])
            self._F = np.vstack([self._F, Fn])
            for r, row in enumerate(Xn):
                self._keys[row.tobytes()] = N + r
            self._points = np.vstack([self._points, Xn])
        idx = np.array([self._keys[row.tobytes()] for row in U], dtype=int)
        return self._F[idx][inv]

    def transform(self, X) -> np.ndarray:
        """``h_M(x) = M^(-1/2) (h(x, w_1), ..., h(x, w_M))`` for each row, shape (n, M)."""
        return self.evaluate(X) / math.sqrt(self.n_paths)

    def fit_transform(self, X) -> np.ndarray:
        return self.fit(X).transform(X)


def _cos_features(X: np.ndarray, W: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``sqrt(2/D) cos(X W + b)``, shape (n, D)."""
    P = X @ W
    P += b
    np.cos(P, out=P)
    P *= math.sqrt(2.0 / W.shape[1])
    return P


class RandomFeatureGaussianProcessPaths:
    """Approximate GP paths of a shift-invariant kernel from D >> M random Fourier features.

    An approximation of the random projection of the kernel paper's Definition 4, for large n.

    Each path is a random Gaussian combination of D random features sharing one set of
    frequencies ``w_l`` drawn from the kernel's spectral density::

        h(x, w_j) = sum_l a_{lj} phi_l(x),      a_{lj} iid N(0, 1),

    so, given the frequencies, the paths are iid exact GPs with the kernel
    ``k_D(x, x') = phi(x)^T phi(x')``, which tends to k as D grows (Rahimi and Recht 2007).
    Evaluation at new points is deterministic (the same frequencies and coefficients), so
    prediction needs no conditioning.  Cost O(n D (d + M)).

    Two feature forms are offered:

    * ``"sincos"`` (default): ``phi(x) = D^(-1/2) [cos(W^T x), sin(W^T x)]`` (2D features).  Here
      ``k_D(x, x) = 1 = kappa^2`` exactly, so the paper's norm bound applies unchanged.
    * ``"phase"``: ``phi(x) = sqrt(2/D) cos(W^T x + b)`` with ``b ~ U[0, 2 pi]``, the form
      ``sqrt(2/D) sum_l a_l cos(w_l^T x + b_l)``.  Here ``k_D(x, x) <= 2``, and
      :attr:`variance_bound` is 2 so that the privacy calibration stays valid.

    Parameters
    ----------
    kernel : shift-invariant kernel object
    n_paths : int
        M.
    n_frequencies : int
        D.
    features : {"sincos", "phase"}
    random_state : None, int, SeedSequence or Generator
    """

    def __init__(self, kernel, n_paths: int, n_frequencies: int = 2000, *, features: str = "sincos", random_state=None):
        if not getattr(kernel, "shift_invariant", False):
            raise ValueError(
                f"the approximate path sampler needs a shift-invariant kernel (gaussian or laplace); got {kernel!r}. "
                "Use sampler='exact'."
            )
        if features not in ("sincos", "phase"):
            raise ValueError(f"features must be 'sincos' or 'phase'; got {features!r}.")
        self.kernel = kernel
        self.n_paths = check_positive_int(n_paths, "n_paths")
        self.n_frequencies = check_positive_int(n_frequencies, "n_frequencies")
        self.features = features
        check_random_state(random_state)  # refuse a bad type now; the generator is made in fit
        self.random_state = random_state

    @property
    def variance_bound(self) -> float:
        """Bound on ``k_D(x, x)``, the variance of a path value given the frequencies."""
        return self.kernel.kappa2 * (1.0 if self.features == "sincos" else 2.0)

    def fit(self, X) -> RandomFeatureGaussianProcessPaths:
        """Draw the frequencies, offsets and Gaussian coefficients (only ``X.shape[1]`` is used)."""
        self._rng = check_random_state(self.random_state)
        X = check_matrix(X, "X", dtype=float)
        d, D, M = X.shape[1], self.n_frequencies, self.n_paths
        self.n_features_in_ = d
        self.frequencies_ = self.kernel.sample_frequencies(D, d, self._rng)
        if self.features == "phase":
            self.offsets_ = self._rng.uniform(0.0, 2.0 * np.pi, D)
            self.coefficients_ = self._rng.standard_normal((D, M))
        else:
            self.offsets_ = None
            self.coefficients_ = self._rng.standard_normal((2 * D, M))
        return self

    def _phi(self, X: np.ndarray) -> np.ndarray:
        if self.features == "phase":
            return _cos_features(X, self.frequencies_, self.offsets_)
        P = X @ self.frequencies_
        return np.hstack([np.cos(P), np.sin(P)]) * math.sqrt(self.kernel.kappa2 / self.n_frequencies)

    def evaluate(self, X) -> np.ndarray:
        """Path values (unscaled), shape (n, M), computed in chunks of rows."""
        X = check_matrix(X, "X", dtype=float)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features but the paths were fitted on {self.n_features_in_}.")
        out = np.empty((X.shape[0], self.n_paths))
        step = max(1, int(2**22 // max(1, self.coefficients_.shape[0])))
        for s in range(0, X.shape[0], step):
            out[s : s + step] = self._phi(X[s : s + step]) @ self.coefficients_
        return out

    def transform(self, X) -> np.ndarray:
        """``h_M(x)``, shape (n, M)."""
        return self.evaluate(X) / math.sqrt(self.n_paths)

    def fit_transform(self, X) -> np.ndarray:
        return self.fit(X).transform(X)


class RandomFourierFeatures:
    """Random Fourier feature map of a shift-invariant kernel (Rahimi and Recht 2007)::

        phi_M(x) = sqrt(2/M) cos(W^T x + b),   W columns ~ spectral density,  b ~ U[0, 2 pi],

    so ``E[phi_M(x)^T phi_M(x')] = k(x, x')`` and ``||phi_M(x)||^2 <= 2`` for every x (the bound
    Algorithm 3 of the kernel paper relies on, proof of Theorem 5).  It is the bounded random
    feature map of the kernel paper's Definition 6, which the random projection is not.

    Parameters
    ----------
    kernel : shift-invariant kernel object
    n_components : int
        M.
    random_state : None, int, SeedSequence or Generator
    """

    norm_bound_sq = 2.0

    def __init__(self, kernel, n_components: int, *, random_state=None):
        if not getattr(kernel, "shift_invariant", False):
            raise ValueError(f"random Fourier features need a shift-invariant kernel; got {kernel!r}.")
        self.kernel = kernel
        self.n_components = check_positive_int(n_components, "n_components")
        check_random_state(random_state)  # refuse a bad type now; the generator is made in fit
        self.random_state = random_state

    def fit(self, X) -> RandomFourierFeatures:
        """Draw ``W`` and ``b`` (only ``X.shape[1]`` is used)."""
        self._rng = check_random_state(self.random_state)
        X = check_matrix(X, "X", dtype=float)
        self.n_features_in_ = X.shape[1]
        self.frequencies_ = self.kernel.sample_frequencies(self.n_components, X.shape[1], self._rng)
        self.offsets_ = self._rng.uniform(0.0, 2.0 * np.pi, self.n_components)
        return self

    def transform(self, X) -> np.ndarray:
        """``phi_M(x)`` for each row, shape (n, M)."""
        X = check_matrix(X, "X", dtype=float)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features but the map was fitted on {self.n_features_in_}.")
        return _cos_features(X, self.frequencies_, self.offsets_)

    def fit_transform(self, X) -> np.ndarray:
        return self.fit(X).transform(X)


def random_projection_paths(
    kernel,
    n_paths: int,
    *,
    sampler: str = "exact",
    n_frequencies: int = 2000,
    features: str = "sincos",
    random_state=None,
    **exact_options,
):
    """Make an (unfitted) random projection sampler h_M for ``kernel`` (kernel paper, Definition 4).

    Parameters
    ----------
    kernel : kernel object
    n_paths : int
        M.
    sampler : {"exact", "approximate"}
        See :class:`ExactGaussianProcessPaths` and :class:`RandomFeatureGaussianProcessPaths`.
    n_frequencies, features :
        Options of the approximate sampler.
    random_state : None, int, SeedSequence or Generator
    """
    if sampler == "exact":
        return ExactGaussianProcessPaths(kernel, n_paths, random_state=random_state, **exact_options)
    if sampler == "approximate":
        return RandomFeatureGaussianProcessPaths(
            kernel, n_paths, n_frequencies, features=features, random_state=random_state
        )
    raise ValueError(
        f"sampler must be 'exact' or 'approximate'; got {sampler!r}. (The estimators' sampler='auto' "
        "picks one of these from n; this function needs the choice made.)"
    )


# ###########################################################################################
# Private releases
# ###########################################################################################


def _renamed_rng(random_state, rng, where):
    """``random_state``, or the deprecated ``rng`` keyword given instead (with a warning)."""
    if rng is None:
        return random_state
    if random_state is not None:
        raise TypeError(f"{where}: give random_state only (rng is its deprecated name); got both.")
    warnings.warn(
        f"{where}: the keyword rng is deprecated and will be removed in the next minor version; pass "
        "random_state instead.",
        FutureWarning,
        stacklevel=3,
    )
    return rng


@dataclass
class SufficientStatisticsRelease:
    """What :func:`release_sufficient_statistics` released and how it was calibrated.

    Attributes
    ----------
    covariance : ndarray of shape (M, M)
        The symmetrised noisy ``(1/n) sum z_i z_i^T``.
    vector : ndarray of shape (M,)
        The noisy ``(1/n) sum [y_i]_T z_i``.
    sigma_covariance, sigma_vector : float
        Noise standard deviations.
    sensitivity_covariance, sensitivity_vector : float
        Replace-one L2 (Frobenius) sensitivities used.
    """

    covariance: np.ndarray
    vector: np.ndarray
    sigma_covariance: float
    sigma_vector: float
    sensitivity_covariance: float
    sensitivity_vector: float
    details: dict = field(default_factory=dict)


def release_sufficient_statistics(
    Z, y, *, epsilon, delta_covariance, delta_vector, feature_norm_sq, response_bound, random_state=None, rng=None
) -> SufficientStatisticsRelease:
    """Gaussian-mechanism release of ``(C, u)`` (kernel paper, Algorithm 1 steps 3-4 / Algorithm 3).

    With features ``||z_i||^2 <= D2`` and responses ``|y_i| <= T`` (``T = response_bound``, the kernel
    paper's truncation level), replacing one record changes

        C = (1/n) sum z_i z_i^T     by at most  sqrt(||z||^4 + ||z'||^4) / n <= sqrt(2) D2 / n
        u = (1/n) sum y_i z_i       by at most  2 T sqrt(D2) / n

    in Frobenius / Euclidean norm.  Each is released with the analytic Gaussian mechanism
    (Balle and Wang 2018) at ``(epsilon/2, delta_covariance)`` and ``(epsilon/2, delta_vector)``;
    the covariance noise is an M x M matrix of iid normals, then symmetrised (post-processing).
    The caller is responsible for the norm condition (clipping, RFF boundedness, or the
    Laurent-Massart event) and for the ledger.

    Parameters
    ----------
    Z : ndarray (n, M)
    y : ndarray (n,), already truncated to [-T, T]
    epsilon : float
        Total epsilon of the two releases (split in halves).
    delta_covariance, delta_vector : float
    feature_norm_sq : float
        D2.
    response_bound : float
        T, the kernel paper's truncation level of the responses.
    random_state : None, int, SeedSequence or Generator
        Source of the noise (a Generator continues its stream).
    rng : numpy.random.Generator, optional
        Deprecated name of ``random_state``.
    """
    random_state = _renamed_rng(random_state, rng, "release_sufficient_statistics")
    n, _ = Z.shape
    return release_from_statistics(
        Z.T @ Z / n,
        Z.T @ y / n,
        n,
        epsilon=epsilon,
        delta_covariance=delta_covariance,
        delta_vector=delta_vector,
        feature_norm_sq=feature_norm_sq,
        response_bound=response_bound,
        random_state=random_state,
    )


def release_from_statistics(
    C,
    u,
    n,
    *,
    epsilon,
    delta_covariance,
    delta_vector,
    feature_norm_sq,
    response_bound,
    random_state=None,
    noise_multiplier=1.0,
    split_epsilon=True,
    rng=None,
) -> SufficientStatisticsRelease:
    """The release of :func:`release_sufficient_statistics` from precomputed ``C`` and ``u``.

    Each statistic goes through the analytic Gaussian mechanism (Balle and Wang 2018), which needs
    less noise than the classical Gaussian mechanism of the kernel paper's Proposition 1 for the
    same (epsilon, delta) and sensitivity.

    ``C = (1/n) sum z_i z_i^T`` and ``u = (1/n) sum [y_i]_T z_i`` (the caller computes them, e.g.
    as sub-blocks of the statistics of a larger feature map, which is how the comparison studies
    evaluate many projection dimensions at the cost of one); the noise is drawn in the same
    order (covariance, then vector), so both functions give identical output for the same
    generator.  ``noise_multiplier`` scales both standard deviations (used for a composed
    calibration, e.g. ``sqrt(2G)`` when ``G`` candidate releases share one Gaussian-DP budget);
    with ``split_epsilon=False`` each release is calibrated at the full ``epsilon`` (the caller
    accounts for the composition). ``random_state`` as in :func:`release_sufficient_statistics`
    (``rng`` is its deprecated name).
    """
    rng = check_random_state(_renamed_rng(random_state, rng, "release_from_statistics"))
    C = np.asarray(C, dtype=float)
    u = np.asarray(u, dtype=float)
    M = C.shape[0]
    sens_C = math.sqrt(2.0) * feature_norm_sq / n
    sens_u = 2.0 * response_bound * math.sqrt(feature_norm_sq) / n
    e = epsilon / 2.0 if split_epsilon else epsilon
    sig_C = noise_multiplier * analytic_gaussian_sigma(e, delta_covariance, sens_C)
    sig_u = noise_multiplier * analytic_gaussian_sigma(e, delta_vector, sens_u)
    C0 = C + sig_C * rng.standard_normal((M, M))
    u_noisy = u + sig_u * rng.standard_normal(M)
    return SufficientStatisticsRelease(0.5 * (C0 + C0.T), u_noisy, sig_C, sig_u, sens_C, sens_u)


@dataclass(frozen=True)
class RidgeSolution(UnpacksAsTuple):
    """What :func:`solve_ridge_floored` (one penalty) and :func:`ridge_path_floored` (several) return.

    Attributes
    ----------
    coef : ndarray of shape (M,), or (len(lams), M) for a path
        ``beta``, the solution of the floored system.
    n_floored : int, or ndarray of int of shape (len(lams),)
        Number of eigenvalues of ``C + lam I`` raised to the floor.
    min_eigenvalue : float, or ndarray of shape (len(lams),)
        Smallest eigenvalue of ``C + lam I`` before flooring.
    """

    coef: np.ndarray
    n_floored: int | np.ndarray
    min_eigenvalue: float | np.ndarray

    _new_usage = "Read `.coef`, `.n_floored` and `.min_eigenvalue` of the returned RidgeSolution."

    def _legacy_tuple(self) -> tuple:
        return (self.coef, self.n_floored, self.min_eigenvalue)


def solve_ridge_floored(C, u, lam: float, *, psd_floor: float = 1.0) -> RidgeSolution:
    """Solve ``(C + lam I) beta = u`` after flooring the spectrum of ``C + lam I``.

    A noisy covariance may make ``C + lam I`` indefinite (the paper's Theorem 1 assumes it is
    not, see the condition on M after Theorem 3).  As pure post-processing, every eigenvalue of
    the symmetric matrix ``C + lam I`` below ``psd_floor * lam`` is raised to
    ``psd_floor * lam``; this includes every non-positive one.  With the default
    ``psd_floor = 1`` this is exactly "project the noisy covariance onto the PSD cone, then add
    ``lam I``": the true covariance is PSD, so the projection can only reduce the Frobenius
    error of the released covariance, and ``||beta|| <= ||u|| / lam`` as without noise.  A
    smaller ``psd_floor`` (e.g. 0.1) changes the estimate less often but allows coefficients up
    to ``||u|| / (psd_floor * lam)``.  When no eigenvalue is below the floor the result equals
    the plain solve.

    Returns
    -------
    RidgeSolution
        ``coef`` (beta, shape (M,)), ``n_floored`` (eigenvalues raised) and ``min_eigenvalue``
        (smallest eigenvalue of ``C + lam I`` before flooring).
    """
    A = 0.5 * (C + C.T) + lam * np.eye(C.shape[0])
    w, V = np.linalg.eigh(A)
    floor = psd_floor * lam
    low = w < floor
    n_floored = int(np.count_nonzero(low))
    w_fixed = np.where(low, floor, w)
    beta = V @ ((V.T @ u) / w_fixed)
    return RidgeSolution(beta, n_floored, float(w[0]))


def ridge_path_floored(C, u, lams, *, psd_floor: float = 1.0) -> RidgeSolution:
    """:func:`solve_ridge_floored` for several penalties from one eigendecomposition.

    The eigenvalues of ``C + lam I`` are those of ``C`` shifted by ``lam`` (same eigenvectors), so
    one ``eigh`` of the symmetrised ``C`` serves every ``lam``; each row of the result equals
    ``solve_ridge_floored(C, u, lam, psd_floor=psd_floor)`` up to rounding.

    Returns
    -------
    RidgeSolution
        One row per ``lam``: ``coef`` of shape (len(lams), M), ``n_floored`` (ints) and
        ``min_eigenvalue`` of shape (len(lams),).
    """
    lams = np.atleast_1d(np.asarray(lams, dtype=float))
    w, V = np.linalg.eigh(0.5 * (C + C.T))
    proj = V.T @ np.asarray(u, dtype=float)
    shifted = w[None, :] + lams[:, None]
    floor = (psd_floor * lams)[:, None]
    low = shifted < floor
    coef = proj[None, :] / np.where(low, floor, shifted)
    return RidgeSolution(coef @ V.T, low.sum(axis=1).astype(int), w[0] + lams)


def operator_spectrum(kernel, sample) -> np.ndarray:
    """Eigenvalues of ``K / m`` for a sample of m inputs: the Nystrom estimate of the spectrum of the
    kernel integral operator ``L`` under the sample's distribution (descending).

    These are the eigenvalues ``mu_l`` whose polynomial decay the kernel paper's Assumption 3
    (the eigenvalue assumption) restricts.

    Used with a *public* sample (drawn from a known input law, not the private data) so that
    quantities of the theory that depend on ``L``, such as :func:`effective_dimension`, cost no privacy.
    """
    X = check_matrix(sample, "sample", dtype=float)
    w = np.linalg.eigvalsh(kernel(X) / X.shape[0])[::-1]
    return np.clip(w, 0.0, None)


def effective_dimension(spectrum, lam) -> float:
    """``N(lam) = sum_l mu_l / (mu_l + lam)`` (kernel paper, the effective dimension of Lemma 11 / Theorem 12)."""
    mu = np.asarray(spectrum, dtype=float)
    return float(np.sum(mu / (mu + float(lam))))


@dataclass(frozen=True)
class RPHyperparameters(UnpacksAsTuple):
    """The choice of :func:`theory_rp_hyperparameters`.

    Attributes
    ----------
    n_components : int
        M, the projection dimension.
    lam : float
        The ridge penalty lambda.
    effective_dimension : float
        ``N(lam)`` at the chosen ``lam`` (:func:`effective_dimension`).
    t : float
        The probability level of the projection-dimension condition.
    capped : bool
        Whether M was cut to ``max_components``.
    """

    n_components: int
    lam: float
    effective_dimension: float
    t: float
    capped: bool

    _new_usage = "Read `.n_components`, `.lam`, `.effective_dimension`, `.t` and `.capped` of the result."

    def _legacy_tuple(self) -> tuple:
        info = {"N_lam": self.effective_dimension, "t": self.t, "capped": self.capped}
        return (self.n_components, self.lam, info)


def theory_rp_hyperparameters(
    n, epsilon, delta, spectrum, *, c_m=1.0, c_lam=1.0, t=None, max_components=None
) -> RPHyperparameters:
    """(M, lam) for Algorithm 1 from the conditions of the kernel paper's proofs, with stated constants.

    Theorem 12 / the proof of Theorem 3 (Gaussian kernel, gamma = 0) ask for::

        lam ~ n^(-1) v (n eps)^(-1)                                (the rate)
        M   >= c_m (kappa^2 / ||L|| + N(lam)) log(2/t)             (projection dimension)
        (n lam eps)^2 >= c_lam^2 D2^2 M log(1/delta)               (C~ + lam I positive definite)

    with ``t = 1/n`` (the proof of Theorem 14 uses ``log n``) and ``D2`` the Laurent-Massart bound
    at ``delta/8``.  ``M`` falls and the right side of the last condition rises as ``lam`` grows, so the
    smallest ``lam`` above the rate meeting it is found by bisection on ``log lam``.  The constants
    ``c_m`` and ``c_lam`` are ours (the paper's are unspecified); ``spectrum`` is a public estimate
    of the eigenvalues of ``L`` (:func:`operator_spectrum`).

    Returns
    -------
    RPHyperparameters
        ``n_components`` (M), ``lam``, ``effective_dimension`` (N(lam)), ``t`` and ``capped`` (M
        was cut to ``max_components``).
    """
    n = check_positive_int(n, "n")
    eps = check_epsilon(epsilon)
    delta = check_delta(delta)
    mu = np.asarray(spectrum, dtype=float)
    top = float(mu.max())
    t = 1.0 / n if t is None else float(t)
    L2 = math.log(2.0 / t)

    def M_of(lam):
        return max(1, int(math.ceil(c_m * (1.0 / top + effective_dimension(mu, lam)) * L2)))

    def gap(lam):  # >= 0 when the positive-definiteness condition holds
        M = M_of(lam)
        D2 = laurent_massart_bound(1.0, M, delta / 8.0)
        return lam - c_lam * D2 * math.sqrt(M * math.log(1.0 / delta)) / (n * eps)

    rate = max(1.0 / n, 1.0 / (n * eps))
    lo, hi = math.log(rate), math.log(max(rate, 1.0)) + 5.0
    if gap(rate) >= 0:
        lam = rate
    else:
        for _ in range(80):
            mid = 0.5 * (lo + hi)
            if gap(math.exp(mid)) >= 0:
                hi = mid
            else:
                lo = mid
        lam = math.exp(hi)
    M = M_of(lam)
    capped = max_components is not None and M > int(max_components)
    if capped:
        M = int(max_components)
    return RPHyperparameters(M, lam, effective_dimension(mu, lam), t, bool(capped))


@dataclass(frozen=True)
class ObjectivePerturbationCalibration(UnpacksAsTuple):
    """Noise and regularisation of objective perturbation (:func:`objective_perturbation_calibration`).

    Attributes
    ----------
    sigma : float
        Standard deviation of the linear perturbation ``b ~ N(0, sigma^2 I_M)``.
    lam_effective : float
        The penalty actually used, ``max(lam, lam_min)``.
    lam_min : float
        The smallest penalty for which the guarantee holds.
    """

    sigma: float
    lam_effective: float
    lam_min: float

    _new_usage = "Read `.sigma`, `.lam_effective` and `.lam_min` of the returned calibration."

    def _legacy_tuple(self) -> tuple:
        return (self.sigma, self.lam_effective, self.lam_min)


def objective_perturbation_calibration(
    epsilon, delta_tail, *, feature_norm, lipschitz, smoothness, n, lam
) -> ObjectivePerturbationCalibration:
    """Noise scale and minimum regularisation for objective perturbation (our derivation).

    The calibration behind the kernel paper's Algorithm 2 and its privacy guarantee, Theorem 2.

    Objective (kernel paper, Algorithm 2; Kifer et al. 2012)::

        J(beta) = (1/n) sum_i l(y_i, beta^T z_i) + (lam/2) ||beta||^2 + (1/n) b^T beta,
        b ~ N(0, sigma^2 I_M),  |l'| <= c1,  0 <= l'' <= c2,  ||z_i|| <= Delta.

    The exact minimiser is (epsilon, delta_tail)-DP under replace-one neighbours when

        sigma = 2 c1 Delta / (sqrt(tau^2 + epsilon) - tau),   tau^2 = 2 log(1/delta_tail),
        n lam >= c2 Delta^2 / (exp(epsilon/2) - 1).

    (Noise part ``epsilon/2``: the gradient difference lies in span{z, z'}, whose projection of
    b is at most sigma*tau except with probability ``exp(-tau^2/2)`` (chi-square with <= 2
    degrees of freedom); Jacobian part ``epsilon/2`` by the matrix determinant lemma.)  The
    regulariser actually used is ``max(lam, lam_min)``.

    Returns
    -------
    ObjectivePerturbationCalibration
        ``sigma``, ``lam_effective`` and ``lam_min``.
    """
    epsilon = check_epsilon(epsilon)
    delta_tail = check_delta(delta_tail, "delta_tail")
    feature_norm = check_positive(feature_norm, "feature_norm")
    lipschitz = check_positive(lipschitz, "lipschitz")
    smoothness = check_positive(smoothness, "smoothness", allow_zero=True)
    n = check_positive_int(n, "n")
    lam = check_positive(lam, "lam", allow_zero=True)
    tau = math.sqrt(2.0 * math.log(1.0 / delta_tail))
    s = 2.0 * lipschitz * feature_norm
    sigma = s / (math.sqrt(tau * tau + epsilon) - tau)
    lam_min = smoothness * feature_norm**2 / (n * math.expm1(min(epsilon / 2.0, 700.0)))
    return ObjectivePerturbationCalibration(sigma, max(lam, lam_min), lam_min)


def theory_hyperparameters(n, epsilon, delta, *, method="rp", gamma=0.0, c_lam=1.0, c_m=2.0, max_components=None):
    """Data-independent (M, lam) from the kernel paper's rates; using them costs no privacy.

    Projection dimension (kernel paper, discussion after Theorem 6)::

        RP  (Algorithm 1):  M = c_m * n^(gamma/(1+gamma)) ^ (n eps)^(2 gamma/(2+gamma)),
                            times log n (the gamma = 0 case of the proof of Theorem 14)
        RFF (Algorithm 3):  M = (n eps)^(2/3) ^ n        (no compatibility assumption, alpha = 1)

    Ridge penalty: the rate ``lam ~ n^(-1/(1+gamma)) v (n eps)^(-2/(2+gamma))`` (Theorem 3; with
    ``alpha = 1`` in place of gamma for RFF, Theorem 6), raised to the positive-definiteness
    condition of the proofs, ``(n lam eps)^2 >~ M log(1/delta)`` (after Theorem 3 and in the proof
    of Theorem 12), whose constant we take proportional to the feature-norm bound D2::

        lam = max(rate, c_lam * D2 * sqrt(M log(1/delta)) / (n eps)).

    ``D2`` is the Laurent-Massart bound at ``t = delta/8`` for RP and 2 for RFF.  The constants
    ``c_lam`` and ``c_m`` are ours (the paper leaves them unspecified).  The RFF choice takes
    ``alpha = 1``, i.e. it assumes nothing about the compatibility condition (Assumption 5).

    Returns
    -------
    n_components : int
    lam : float
    """
    n = check_positive_int(n, "n")
    eps = check_epsilon(epsilon)
    delta = check_delta(delta)
    if method == "rp":
        g = float(gamma)
        base = min(n ** (g / (1 + g)), (n * eps) ** (2 * g / (2 + g)))
        M = int(math.ceil(c_m * base * math.log(n)))
        D2 = laurent_massart_bound(1.0, M, delta / 8.0)
        rate = max(n ** (-1.0 / (1 + g)), (n * eps) ** (-2.0 / (2 + g)))
    elif method == "rff":
        M = int(math.ceil(min(n, (n * eps) ** (2.0 / 3.0))))
        D2 = 2.0
        rate = max(1.0 / n, (n * eps) ** (-2.0 / 3.0))
    else:
        raise ValueError(f"method must be 'rp' or 'rff'; got {method!r}.")
    if max_components is not None:
        M = min(M, int(max_components))
    M = max(M, 1)
    lam = max(rate, c_lam * D2 * math.sqrt(M * math.log(1.0 / delta)) / (n * eps))
    return M, lam


# ###########################################################################################
# Estimators
# ###########################################################################################


def _check_common(est):
    M = check_positive_int(
        est.n_components,
        "n_components",
        hint="It is the projection dimension M; the paper's rates suggest M of order log n for the Gaussian kernel.",
    )
    try:
        lam = check_positive(est.lam, "lam")
    except ValueError as err:
        raise ValueError(
            f"{err} lam is the ridge penalty lambda of the paper; use e.g. 1/n, or "
            "theory_hyperparameters(n, epsilon, delta)."
        ) from None
    kernel = make_kernel(est.kernel, bandwidth=est.bandwidth, feature_bound=est.feature_bound)
    return M, lam, kernel


def _check_privacy(est):
    try:
        eps = check_epsilon(est.epsilon)
    except ValueError as err:
        raise ValueError(f"{err} Pass e.g. epsilon=1.0.") from None
    try:
        delta = check_delta(est.delta)
    except ValueError as err:
        raise ValueError(f"{err} Pass e.g. delta=1e-5.") from None
    return eps, delta


def _fit_inputs(est, X, y, kernel):
    # sklearn's checks first (sparse, complex, 1-D, empty, y=None), then ours (NaN with a fix-it message).
    X, y = validate_data(est, X, y, y_numeric=True, dtype=np.float64, ensure_all_finite=False)
    X = check_matrix(X, "X", dtype=float)
    y = check_vector(y, "y", length=X.shape[0]).astype(float)
    if kernel.name == "linear":
        X, est.row_norm_record_ = check_row_norms(X, bound=kernel.feature_bound, policy=est.row_norm_policy)
    return X, y


class _RandomProjectionFeatures:
    """Mixin: choose and build the path sampler of a random-projection estimator."""

    def _make_sampler(self, kernel, M, n, rng):
        sampler = self.sampler
        if sampler == "auto":
            sampler = "exact" if (not getattr(kernel, "shift_invariant", False) or n <= 3000) else "approximate"
        D = self.n_frequencies if self.n_frequencies is not None else max(20 * M, 1000)
        if sampler == "approximate":
            D = check_positive_int(D, "n_frequencies")
        self.sampler_ = sampler
        return random_projection_paths(kernel, M, sampler=sampler, n_frequencies=D, random_state=rng)


class _KRRBase(RegressorMixin, BaseEstimator):
    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # M random features with a fixed bandwidth (and, for the private estimators, calibrated
        # noise and response truncation) are not tuned to sklearn's generic training-score check.
        tags.regressor_tags.poor_score = True
        return tags

    def predict(self, X):
        """Predict ``f(x) = beta^T z(x)`` with the fitted feature map (paths or RFF)."""
        check_is_fitted(self, "coef_")
        X = validate_data(self, X, reset=False, dtype=np.float64, ensure_all_finite=False)
        X = check_matrix(X, "X", dtype=float)
        Z = self.feature_map_.transform(X)
        if getattr(self, "feature_clip_", None) is not None:
            Z = _clip_rows(Z, self.feature_clip_)[0]
        return Z @ self.coef_


def _clip_rows(Z, radius_sq):
    norms_sq = np.einsum("ij,ij->i", Z, Z)
    over = norms_sq > radius_sq
    if np.any(over):
        Z = Z.copy()
        Z[over] *= np.sqrt(radius_sq / norms_sq[over])[:, None]
    return Z, int(np.count_nonzero(over))


class RandomProjectionKRR(_RandomProjectionFeatures, _KRRBase):
    """Non-private kernel ridge regression on the random projection h_M (kernel paper, proof of Theorem 11).

    ``beta = (C + lam I)^{-1} u`` with ``C = (1/n) sum z_i z_i^T``, ``u = (1/n) sum y_i z_i``,
    ``z_i = h_M(x_i)``; the non-private estimator ``f_hat_{M,lam}`` of the proof of Theorem 11.
    With the same ``random_state`` it uses exactly the paths of :class:`DPRandomProjectionKRR`.

    Parameters
    ----------
    kernel : {"gaussian", "laplace", "linear"}, default="gaussian"
    bandwidth : float, default=1.0
    n_components : int, default=100
        M, the number of GP paths.
    lam : float, default=1e-3
        Ridge penalty lambda of the (1/n)-normalised objective.
    sampler : {"auto", "exact", "approximate"}, default="auto"
        "auto" = exact for n <= 3000 or a non-shift-invariant kernel, else approximate.
    n_frequencies : int or None, default=None
        D for the approximate sampler (None: max(20 M, 1000)).
    feature_bound : float, default=1.0
        R (linear kernel only).
    row_norm_policy : {"raise", "clip", "rescale"}, default="raise"
        How rows with ``||x|| > R`` are handled (linear kernel only).
    random_state : None, int, SeedSequence or Generator
        Controls the path draws. Pass an int for reproducible output across calls.
    """

    def __init__(
        self,
        kernel="gaussian",
        bandwidth=1.0,
        n_components=100,
        lam=1e-3,
        sampler="auto",
        n_frequencies=None,
        feature_bound=1.0,
        row_norm_policy="raise",
        random_state=None,
    ):
        self.kernel = kernel
        self.bandwidth = bandwidth
        self.n_components = n_components
        self.lam = lam
        self.sampler = sampler
        self.n_frequencies = n_frequencies
        self.feature_bound = feature_bound
        self.row_norm_policy = row_norm_policy
        self.random_state = random_state

    def fit(self, X, y):
        M, lam, kernel = _check_common(self)
        X, y = _fit_inputs(self, X, y, kernel)
        rng_paths, _ = check_random_state(self.random_state).spawn(2)
        self.feature_map_ = self._make_sampler(kernel, M, X.shape[0], rng_paths).fit(X)
        Z = self.feature_map_.transform(X)
        n = X.shape[0]
        self.coef_ = np.linalg.solve(Z.T @ Z / n + lam * np.eye(M), Z.T @ y / n)
        self.feature_clip_ = None
        return self


class RandomFeatureKRR(_KRRBase):
    """Non-private kernel ridge regression on random Fourier features (counterpart of Algorithm 3).

    Parameters are those of :class:`RandomProjectionKRR` without the sampler options; the kernel
    must be shift-invariant.  Same ``random_state`` -> the same features as
    :class:`DPRandomFeatureKRR`.
    """

    def __init__(self, kernel="gaussian", bandwidth=1.0, n_components=100, lam=1e-3, random_state=None):
        self.kernel = kernel
        self.bandwidth = bandwidth
        self.n_components = n_components
        self.lam = lam
        self.random_state = random_state

    feature_bound = 1.0

    def fit(self, X, y):
        M, lam, kernel = _check_common(self)
        _require_shift_invariant(kernel)
        X, y = _fit_inputs(self, X, y, kernel)
        rng_feat, _ = check_random_state(self.random_state).spawn(2)
        self.feature_map_ = RandomFourierFeatures(kernel, M, random_state=rng_feat).fit(X)
        Z = self.feature_map_.transform(X)
        n = X.shape[0]
        self.coef_ = np.linalg.solve(Z.T @ Z / n + lam * np.eye(M), Z.T @ y / n)
        self.feature_clip_ = None
        return self


def _require_shift_invariant(kernel):
    if not getattr(kernel, "shift_invariant", False):
        raise ValueError(
            f"random Fourier features need a shift-invariant kernel ('gaussian' or 'laplace'); got "
            f"{kernel!r}. Use RandomProjectionKRR / DPRandomProjectionKRR for the linear kernel."
        )


def _truncate(y, response_bound):
    """``[y_i]_T = clip(y_i, -T, T)`` with ``T = response_bound`` (kernel paper, Algorithm 1 step 1)."""
    yc = np.clip(y, -response_bound, response_bound)
    return yc, int(np.count_nonzero(yc != y))


class _DPKRRBase(_KRRBase):
    """The fit both private kernel ridge regressions share (kernel paper, Algorithms 1 and 3).

    A subclass supplies the feature map (:meth:`_fit_features`), the norm bound ``D2`` on its
    features with the delta each release gets (:meth:`_bound_features`, which also records a
    norm event in the ledger when the bound is only probable) and the paper's references for the
    ledger (``_release_source``).  The rest is common: parameter checks, response truncation,
    the Gaussian-mechanism release of ``(C~, u~)`` at ``epsilon/2`` each, the two ledger spends
    and the floored ridge solve.
    """

    #: Where the two Gaussian releases come from, as recorded in the ledger.
    _release_source = ""

    def _check_kernel(self, kernel):
        """Refuse a kernel the feature map cannot use (before the data are read)."""

    def _fit_features(self, kernel, M, X, rng):  # pragma: no cover - abstract
        """Fit the feature map on ``X`` with ``rng``, set ``feature_map_`` and return the features."""
        raise NotImplementedError

    def _bound_features(self, Z, M, delta, ledger):  # pragma: no cover - abstract
        """``(Z, D2, delta_covariance, delta_vector)``: the features as released and their norm bound."""
        raise NotImplementedError

    def fit(self, X, y):
        """Fit and record every privacy spend in ``privacy_ledger_``."""
        eps, delta = _check_privacy(self)
        M, lam, kernel = _check_common(self)
        response_bound = check_positive(self.response_bound, "response_bound")
        floor = check_positive(self.psd_floor, "psd_floor")
        self._check_kernel(kernel)
        X, y = _fit_inputs(self, X, y, kernel)
        rng_features, rng_noise = check_random_state(self.random_state).spawn(2)
        Z = self._fit_features(kernel, M, X, rng_features)
        y, self.n_responses_clipped_ = _truncate(y, response_bound)
        ledger = PrivacyLedger(eps, delta, relation=REPLACE_ONE, name=type(self).__name__)
        Z, D2, d_cov, d_vec = self._bound_features(Z, M, delta, ledger)
        rel = release_sufficient_statistics(
            Z,
            y,
            epsilon=eps,
            delta_covariance=d_cov,
            delta_vector=d_vec,
            feature_norm_sq=D2,
            response_bound=response_bound,
            random_state=rng_noise,
        )
        for what, d_release, sens, sig in (
            ("covariance C~", d_cov, rel.sensitivity_covariance, rel.sigma_covariance),
            ("vector u~", d_vec, rel.sensitivity_vector, rel.sigma_vector),
        ):
            ledger.spend(
                f"Gaussian mechanism: {what}",
                eps / 2.0,
                d_release,
                source=f"{_PAPER}, {self._release_source}; analytic Gaussian (Balle & Wang 2018)",
                details={"sensitivity": sens, "sigma": sig},
            )
        self.release_ = rel
        solution = solve_ridge_floored(rel.covariance, rel.vector, lam, psd_floor=floor)
        self.coef_ = solution.coef
        self.n_eigenvalues_floored_, self.min_eigenvalue_ = solution.n_floored, solution.min_eigenvalue
        self.indefinite_ = bool(self.min_eigenvalue_ <= 0.0)
        self.privacy_ledger_ = ledger
        return self


class DPRandomProjectionKRR(_RandomProjectionFeatures, _DPKRRBase):
    """(epsilon, delta)-DP kernel ridge regression by random projection (kernel paper, Algorithm 1).

    The guarantee is for replace-one neighbours (one record changed), as in the kernel paper;
    ``privacy_ledger_.relation`` is ``"replace-one"``.

    Steps (sufficient-statistics perturbation after Wang 2018; privacy: Theorem 1, Appendix A.1):

    1. ``z_i = h_M(x_i)`` (M GP paths, data-independent); ``[y_i]_T = clip(y_i, -T, T)``.
    2. ``D2 = laurent_massart_bound(kappa2, M, t=delta/8)``: both differing records satisfy
       ``||z||^2 <= D2`` except with probability ``delta/4`` (Lemma 2).  With
       ``clip_features=True`` each ``z_i`` is instead projected onto the ball of radius
       ``sqrt(D2)``, so the bound holds surely.
    3. Release ``C~ = sym((1/n) sum z_i z_i^T + E)`` by the Gaussian mechanism
       (sensitivity ``sqrt(2) D2 / n``) and ``u~ = (1/n) sum [y_i]_T z_i + N(0, s_u^2 I)``
       (sensitivity ``2 T sqrt(D2) / n``), each at epsilon/2.
    4. ``beta = (C~ + lam I)^{-1} u~`` with the spectral floor of :func:`solve_ridge_floored`;
       ``f(x) = beta^T h_M(x)``.

    Delta allocation (derived in book/kernel_calibration.md): without clipping, norm event
    ``delta/4`` (charged once: the same event serves both releases), covariance ``delta/4``,
    vector ``delta/2``; with clipping there is no event and each release gets ``delta/2``.  The
    spends add up in ``privacy_ledger_`` (basic composition, Proposition 2).

    Test-time paths: the exact sampler draws the paths at new points from the GP conditional
    given all values drawn before (one consistent GP draw, see
    :class:`ExactGaussianProcessPaths`); the approximate sampler evaluates the same random
    frequencies and coefficients at the new points.  With ``clip_features=True`` test features
    get the same (data-independent) clipping.

    Parameters
    ----------
    epsilon : float, default=1.0
    delta : float, default=1e-5
    kernel, bandwidth, n_components, lam, sampler, n_frequencies, feature_bound, row_norm_policy :
        As in :class:`RandomProjectionKRR`.
    response_bound : float, default=1.0
        T, the kernel paper's truncation level: responses are clipped to [-T, T] (not to be
        confused with the iteration count T of the FastMix paper's solvers).
    clip_features : bool, default=False
        Clip ``h_M(x_i)`` to norm ``sqrt(D2)`` (strictly safer; no norm event).
    psd_floor : float, default=1.0
        Eigenvalues of ``C~ + lam I`` below ``psd_floor * lam`` are raised to it (default: project
        ``C~`` onto the PSD cone); see :func:`solve_ridge_floored`.
    random_state : None, int, SeedSequence or Generator
        Controls the paths and the noise. Pass an int for reproducible output across calls.

    Attributes
    ----------
    coef_ : ndarray of shape (M,)
    feature_map_ : path sampler
    privacy_ledger_ : PrivacyLedger
        Every spend; totals at most (epsilon, delta).
    release_ : SufficientStatisticsRelease
    norm_bound_sq_ : float
        D2.
    n_eigenvalues_floored_ : int
        Eigenvalues of ``C~ + lam I`` raised to the floor (post-processing of private output).
    min_eigenvalue_ : float
        Smallest eigenvalue of ``C~ + lam I`` before the floor.
    indefinite_ : bool
        Whether ``C~ + lam I`` was not positive definite (``min_eigenvalue_ <= 0``).
    n_responses_clipped_, n_features_clipped_, n_features_over_bound_ : int
        Diagnostics computed on the private data. They are NOT covered by the DP guarantee; do
        not publish them. ``n_features_over_bound_`` counts training rows outside the norm event
        (without clipping).

    Examples
    --------
    >>> import numpy as np
    >>> from fastmix.kernels import DPRandomProjectionKRR
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, (500, 2))
    >>> y = np.clip(np.sin(2 * X[:, 0]) + 0.1 * rng.standard_normal(500), -1, 1)
    >>> est = DPRandomProjectionKRR(epsilon=2.0, delta=1e-5, n_components=12, lam=0.05, random_state=0).fit(X, y)
    >>> est.predict(X[:3]).shape
    (3,)
    >>> est.privacy_ledger_.total_epsilon, est.privacy_ledger_.total_delta
    (2.0, 1e-05)
    """

    def __init__(
        self,
        epsilon=1.0,
        delta=1e-5,
        kernel="gaussian",
        bandwidth=1.0,
        n_components=100,
        lam=1e-3,
        response_bound=1.0,
        clip_features=False,
        sampler="auto",
        n_frequencies=None,
        psd_floor=1.0,
        feature_bound=1.0,
        row_norm_policy="raise",
        random_state=None,
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.kernel = kernel
        self.bandwidth = bandwidth
        self.n_components = n_components
        self.lam = lam
        self.response_bound = response_bound
        self.clip_features = clip_features
        self.sampler = sampler
        self.n_frequencies = n_frequencies
        self.psd_floor = psd_floor
        self.feature_bound = feature_bound
        self.row_norm_policy = row_norm_policy
        self.random_state = random_state

    _release_source = "Algorithm 1 / Theorem 1"

    def fit(self, X, y):
        """Fit by Algorithm 1 and record every privacy spend in ``privacy_ledger_``."""
        return super().fit(X, y)

    def _fit_features(self, kernel, M, X, rng):
        self.feature_map_ = self._make_sampler(kernel, M, X.shape[0], rng).fit(X)
        return self.feature_map_.transform(X)

    def _bound_features(self, Z, M, delta, ledger):
        """Laurent-Massart bound ``D2`` at ``t = delta/8`` (Lemma 2): clip to it, or charge its event."""
        D2 = laurent_massart_bound(self.feature_map_.variance_bound, M, delta / 8.0)
        self.norm_bound_sq_ = D2
        norms_sq = np.einsum("ij,ij->i", Z, Z)
        if self.clip_features:
            Z, self.n_features_clipped_ = _clip_rows(Z, D2)
            self.n_features_over_bound_ = self.n_features_clipped_
            self.feature_clip_ = D2
            return Z, D2, delta / 2.0, delta / 2.0
        self.n_features_clipped_ = 0
        self.n_features_over_bound_ = int(np.count_nonzero(norms_sq > D2))
        self.feature_clip_ = None
        ledger.spend(
            "Laurent-Massart norm event (both differing records, t = delta/8 each)",
            0.0,
            delta / 4.0,
            source=f"{_PAPER}, Lemma 2 / proof of Theorem 1",
            details={"D2": D2, "t": delta / 8.0, "M": M},
        )
        return Z, D2, delta / 4.0, delta / 2.0


class DPRandomFeatureKRR(_DPKRRBase):
    """(epsilon, delta)-DP kernel ridge regression on random Fourier features (kernel paper, Algorithm 3).

    The guarantee is for replace-one neighbours (one record changed), as in the kernel paper;
    ``privacy_ledger_.relation`` is ``"replace-one"``.

    Algorithm 1 with ``z_i = phi_M(x_i) = sqrt(2/M) cos(W^T x_i + b)``; since
    ``||phi_M(x)||^2 <= 2`` surely, no norm event is needed (proof of Theorem 5): covariance
    sensitivity ``2 sqrt(2) / n``, vector sensitivity ``2 sqrt(2) T / n``, each released by the
    analytic Gaussian mechanism at ``(epsilon/2, delta/2)``; the two spends compose by
    Proposition 2.

    Parameters
    ----------
    epsilon, delta, kernel, bandwidth, n_components, lam, response_bound, psd_floor, random_state :
        As in :class:`DPRandomProjectionKRR` (kernel must be shift-invariant).

    Attributes
    ----------
    coef_, feature_map_, privacy_ledger_, release_, n_eigenvalues_floored_, min_eigenvalue_,
    n_responses_clipped_ : as in :class:`DPRandomProjectionKRR`.
    """

    feature_bound = 1.0

    def __init__(
        self,
        epsilon=1.0,
        delta=1e-5,
        kernel="gaussian",
        bandwidth=1.0,
        n_components=100,
        lam=1e-3,
        response_bound=1.0,
        psd_floor=1.0,
        random_state=None,
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.kernel = kernel
        self.bandwidth = bandwidth
        self.n_components = n_components
        self.lam = lam
        self.response_bound = response_bound
        self.psd_floor = psd_floor
        self.random_state = random_state

    _release_source = "Algorithm 3 / Theorem 5"

    def fit(self, X, y):
        """Fit by Algorithm 3 and record every privacy spend in ``privacy_ledger_``."""
        return super().fit(X, y)

    def _check_kernel(self, kernel):
        _require_shift_invariant(kernel)

    def _fit_features(self, kernel, M, X, rng):
        self.feature_map_ = RandomFourierFeatures(kernel, M, random_state=rng).fit(X)
        return self.feature_map_.transform(X)

    def _bound_features(self, Z, M, delta, ledger):
        """``||phi_M(x)||^2 <= 2`` surely (proof of Theorem 5): no norm event, ``delta/2`` per release."""
        D2 = RandomFourierFeatures.norm_bound_sq
        self.norm_bound_sq_ = D2
        self.feature_clip_ = None
        return Z, D2, delta / 2.0, delta / 2.0


def _logistic_newton(Z, s, lam, b, *, tol=1e-12, max_iter=200):
    """Minimise (1/n) sum log(1 + exp(-s_i z_i^T beta)) + lam/2 ||beta||^2 + b^T beta / n by Newton."""
    n, M = Z.shape
    beta = np.zeros(M)

    def obj(beta):
        m = s * (Z @ beta)
        return np.logaddexp(0.0, -m).mean() + 0.5 * lam * beta @ beta + b @ beta / n

    f = obj(beta)
    for _ in range(max_iter):
        m = s * (Z @ beta)
        p = 0.5 * (1.0 - np.tanh(0.5 * m))  # sigma(-m)
        g = -(Z.T @ (s * p)) / n + lam * beta + b / n
        w = p * (1.0 - p)
        H = (Z.T * w) @ Z / n + lam * np.eye(M)
        step = linalg.solve(H, g, assume_a="pos")
        if g @ step < tol:
            break
        t = 1.0
        while True:
            f_new = obj(beta - t * step)
            if f_new <= f - 0.25 * t * (g @ step) or t < 1e-10:
                break
            t *= 0.5
        beta = beta - t * step
        f = f_new
    return beta


class DPRandomProjectionLogistic(_RandomProjectionFeatures, ClassifierMixin, BaseEstimator):
    """(epsilon, delta)-DP kernel logistic regression by random projection (kernel paper, Algorithm 2).

    The guarantee is for replace-one neighbours (one record changed), as in the kernel paper;
    ``privacy_ledger_.relation`` is ``"replace-one"``.

    Objective perturbation (Kifer et al. 2012) on ``z_i = h_M(x_i)``, labels ``s_i in {-1, +1}``,
    logistic loss ``l(s, m) = log(1 + exp(-s m))`` (Lipschitz ``c1 = 1``, smoothness ``c2 = 1/4``)::

        beta = argmin (1/n) sum l(s_i, beta^T z_i) + (lam_eff/2) ||beta||^2 + (1/n) b^T beta,

    with ``b ~ N(0, sigma^2 I_M)`` calibrated by :func:`objective_perturbation_calibration` and
    ``Delta = sqrt(D2)`` the Laurent-Massart bound at ``t = delta/4`` per record (event
    ``delta/2``; Theorem 2 splits delta the same way).  The objective perturbation itself gets
    ``(epsilon, delta/2)``; with ``clip_features=True`` there is no event and it gets
    ``(epsilon, delta)``.  ``lam_eff = max(lam, lam_min)`` is recorded in ``lam_effective_``.

    Parameters
    ----------
    epsilon, delta, kernel, bandwidth, n_components, lam, clip_features, sampler, n_frequencies, \
    feature_bound, row_norm_policy, random_state
        As in :class:`DPRandomProjectionKRR`.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    coef_ : ndarray (M,)
    lam_effective_, lam_min_ : float
    noise_sigma_ : float
    privacy_ledger_ : PrivacyLedger
    """

    def __init__(
        self,
        epsilon=1.0,
        delta=1e-5,
        kernel="gaussian",
        bandwidth=1.0,
        n_components=100,
        lam=1e-3,
        clip_features=False,
        sampler="auto",
        n_frequencies=None,
        feature_bound=1.0,
        row_norm_policy="raise",
        random_state=None,
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.kernel = kernel
        self.bandwidth = bandwidth
        self.n_components = n_components
        self.lam = lam
        self.clip_features = clip_features
        self.sampler = sampler
        self.n_frequencies = n_frequencies
        self.feature_bound = feature_bound
        self.row_norm_policy = row_norm_policy
        self.random_state = random_state

    def fit(self, X, y):
        """Fit by Algorithm 2 and record every privacy spend in ``privacy_ledger_``."""
        eps, delta = _check_privacy(self)
        M, lam, kernel = _check_common(self)
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_all_finite=False)
        X = check_matrix(X, "X", dtype=float)
        check_classification_targets(y)
        self.classes_ = np.unique(y)
        if self.classes_.size != 2:
            raise ValueError(
                f"Only binary classification is supported: DPRandomProjectionLogistic got "
                f"{self.classes_.size} class(es) "
                f"{self.classes_.tolist()}. Encode the labels as two classes."
            )
        if kernel.name == "linear":
            X, self.row_norm_record_ = check_row_norms(X, bound=kernel.feature_bound, policy=self.row_norm_policy)
        s = np.where(y == self.classes_[1], 1.0, -1.0)
        n = X.shape[0]
        rng_paths, rng_noise = check_random_state(self.random_state).spawn(2)
        self.feature_map_ = self._make_sampler(kernel, M, n, rng_paths).fit(X)
        Z = self.feature_map_.transform(X)
        ledger = PrivacyLedger(eps, delta, relation=REPLACE_ONE, name=type(self).__name__)
        if self.clip_features:
            D2 = laurent_massart_bound(self.feature_map_.variance_bound, M, delta / 4.0)
            Z, self.n_features_clipped_ = _clip_rows(Z, D2)
            self.feature_clip_ = D2
            d_tail = delta
        else:
            D2 = laurent_massart_bound(self.feature_map_.variance_bound, M, delta / 4.0)
            self.n_features_clipped_ = 0
            self.feature_clip_ = None
            d_tail = delta / 2.0
            ledger.spend(
                "Laurent-Massart norm event (both differing records, t = delta/4 each)",
                0.0,
                delta / 2.0,
                source=f"{_PAPER}, Lemma 2 / proof of Theorem 2 (event E_3)",
                details={"D2": D2, "t": delta / 4.0, "M": M},
            )
        self.norm_bound_sq_ = D2
        cal = objective_perturbation_calibration(
            eps, d_tail, feature_norm=math.sqrt(D2), lipschitz=1.0, smoothness=0.25, n=n, lam=lam
        )
        sigma, lam_eff, lam_min = cal.sigma, cal.lam_effective, cal.lam_min
        b = sigma * rng_noise.standard_normal(M)
        self.coef_ = _logistic_newton(Z, s, lam_eff, b)
        ledger.spend(
            "objective perturbation (logistic loss)",
            eps,
            d_tail,
            source=f"{_PAPER}, Algorithm 2 / Theorem 2; Kifer et al. (2012); calibration derived in "
            "book/kernel_calibration.md",
            details={"sigma": sigma, "lam_effective": lam_eff, "lam_min": lam_min, "Delta": math.sqrt(D2)},
        )
        self.noise_sigma_, self.lam_effective_, self.lam_min_ = sigma, lam_eff, lam_min
        self.privacy_ledger_ = ledger
        return self

    def decision_function(self, X):
        """``beta^T h_M(x)``; positive means ``classes_[1]``."""
        check_is_fitted(self, "coef_")
        X = validate_data(self, X, reset=False, dtype=np.float64, ensure_all_finite=False)
        X = check_matrix(X, "X", dtype=float)
        Z = self.feature_map_.transform(X)
        if self.feature_clip_ is not None:
            Z = _clip_rows(Z, self.feature_clip_)[0]
        return Z @ self.coef_

    def predict_proba(self, X):
        """Logistic probabilities ``[1 - p, p]`` with ``p = 1 / (1 + exp(-beta^T h_M(x)))``."""
        m = self.decision_function(X)
        p1 = 0.5 * (1.0 + np.tanh(0.5 * m))
        return np.column_stack([1.0 - p1, p1])

    def predict(self, X):
        """Predicted class labels."""
        positive = self.decision_function(X) > 0
        return self.classes_[positive.astype(int)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags
