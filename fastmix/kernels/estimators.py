"""scikit-learn kernel ridge regressors on random projections and random Fourier features (kernel paper).

:class:`DPRandomProjectionKRR` (Algorithm 1, Theorem 1) and :class:`DPRandomFeatureKRR`
(Algorithm 3, Theorem 5), with their non-private counterparts :class:`RandomProjectionKRR` and
:class:`RandomFeatureKRR`, which use the same random features for the same ``random_state``.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from .._validation import (
    check_delta,
    check_epsilon,
    check_matrix,
    check_positive,
    check_positive_int,
    check_random_state,
    check_row_norms,
    check_vector,
)
from ..accounting import REPLACE_ONE, PrivacyLedger
from .gaussian_process_paths import laurent_massart_bound, random_projection_paths
from .kernel_functions import make_kernel
from .random_features import RandomFourierFeatures
from .sufficient_statistics import release_sufficient_statistics, solve_ridge_floored

_PAPER = "kernel paper (arXiv:2507.17544)"


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
