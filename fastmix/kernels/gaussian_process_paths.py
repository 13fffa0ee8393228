"""Random projection by Gaussian-process paths, ``h_M`` of the kernel paper (Definition 4), and its norm bound.

Exact sampling from the joint Gaussian law at every evaluated point, approximate sampling by
many random Fourier features, and the Laurent-Massart bound on ``||h_M(x)||^2`` (kernel paper,
Lemma 2) that the privacy analysis of Algorithms 1 and 2 relies on.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import linalg

from .._validation import check_matrix, check_positive, check_positive_int, check_random_state
from .random_features import _cos_features


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
    paths are exact for the kernel ``k + j * 1{x = x'}``. How much jitter a factorisation needs
    depends on the points, hence on the training data, so :attr:`variance_bound`, which sets the
    privacy noise, uses the largest jitter the sampler may reach, ``max_jitter * kappa2``, not the
    one used; a matrix that would need more is refused.
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
        Controls the path draws. Pass an int for reproducible output. The fitted sampler keeps its
        generator: it draws the paths at new points from it.

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
        """Public bound on the variance of one path value: ``kappa2 (1 + max_jitter)``.

        The jitter actually used (:attr:`jitter_`) is at most ``max_jitter * kappa2`` and depends on
        the data, so the bound that calibrates the privacy noise (kernel paper, Lemma 2) takes the
        largest value it can reach; it is a function of the parameters alone. The linear kernel's
        weight-space paths need no jitter: ``kappa2``.
        """
        if self.kernel.name == "linear":
            return self.kernel.kappa2
        return self.kernel.kappa2 * (1.0 + self.max_jitter)

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
        return self._fit_with(X, check_random_state(self.random_state))

    def _fit_with(self, X, rng: np.random.Generator) -> ExactGaussianProcessPaths:
        """:meth:`fit` drawing from ``rng``, which the map keeps for its draws at new points.

        The linear kernel's weight-space paths are drawn once, so then the map keeps no generator.
        """
        X = check_matrix(X, "X", dtype=float)
        self.n_features_in_ = X.shape[1]
        self.jitter_ = []
        if self.kernel.name == "linear":
            self._rng = None
            self._G = rng.standard_normal((X.shape[1], self.n_paths))
            return self
        self._rng = rng
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
            assert self._rng is not None  # set by fit, which every transform follows
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
        Controls the draws of :meth:`fit`. The fitted sampler keeps its frequencies, offsets and
        coefficients and no generator.
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
        return self._fit_with(X, check_random_state(self.random_state))

    def _fit_with(self, X, rng: np.random.Generator) -> RandomFeatureGaussianProcessPaths:
        """:meth:`fit` drawing from ``rng``, of which the fitted map keeps nothing."""
        X = check_matrix(X, "X", dtype=float)
        d, D, M = X.shape[1], self.n_frequencies, self.n_paths
        self.n_features_in_ = d
        self.frequencies_ = self.kernel.sample_frequencies(D, d, rng)
        self.offsets_: np.ndarray | None
        if self.features == "phase":
            self.offsets_ = rng.uniform(0.0, 2.0 * np.pi, D)
            self.coefficients_ = rng.standard_normal((D, M))
        else:
            self.offsets_ = None
            self.coefficients_ = rng.standard_normal((2 * D, M))
        return self

    def _phi(self, X: np.ndarray) -> np.ndarray:
        if self.features == "phase":
            assert self.offsets_ is not None  # drawn by fit for phase features
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


class _RandomProjectionFeatures:
    """Mixin: choose, build and fit the path sampler of a random-projection estimator."""

    def _fit_sampler(self, kernel, M, X, rng):
        sampler = self.sampler
        if sampler == "auto":
            shift_invariant = getattr(kernel, "shift_invariant", False)
            sampler = "exact" if (not shift_invariant or X.shape[0] <= 3000) else "approximate"
        D = self.n_frequencies if self.n_frequencies is not None else max(20 * M, 1000)
        if sampler == "approximate":
            D = check_positive_int(D, "n_frequencies")
        self.sampler_ = sampler
        # the map keeps no seed: only the exact sampler keeps rng, for its draws at new points
        return random_projection_paths(kernel, M, sampler=sampler, n_frequencies=D)._fit_with(X, rng)
