"""scikit-learn kernel ridge regressors on random projections and random Fourier features (kernel paper).

:class:`DPRandomProjectionKRR` (Algorithm 1, Theorem 1) and :class:`DPRandomFeatureKRR`
(Algorithm 3, Theorem 5), with their non-private counterparts :class:`RandomProjectionKRR` and
:class:`RandomFeatureKRR`, which use the same random features for the same ``random_state``.

The two private learners follow the conventions of the package's private least-squares
regressors (:class:`fastmix.regression.FastIHMRegressor` and its siblings): a class attribute
``privacy_relation``, a method ``non_private_options()``, an outer ``ledger=``, a ``y_policy``
and ``keep_unreleased=False``. They differ in the neighbouring relation of their guarantee,
see :class:`DPRandomProjectionKRR`.
"""

from __future__ import annotations

import warnings
from functools import partial

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from .._publication import PublicationMixin, fitted_caveats, record_seed
from .._validation import (
    NotPrivateWarning,
    check_delta,
    check_estimator_epsilon,
    check_matrix,
    check_policy,
    check_positive,
    check_positive_int,
    check_row_norms,
    check_vector,
    warn_responses_clipped,
)
from ..accounting import REPLACE_ONE, PrivacyLedger, ledger_entry
from .gaussian_process_paths import _RandomProjectionFeatures, laurent_massart_bound
from .kernel_functions import make_kernel
from .random_features import RandomFourierFeatures, _feature_and_noise_generators
from .sufficient_statistics import release_sufficient_statistics, solve_ridge_floored

_PAPER = "kernel paper (arXiv:2507.17544)"

#: The values of ``y_policy`` of the private kernel learners; both act on each response alone.
Y_POLICIES = ("raise", "clip")

#: Responses above T by at most this relative amount (rounding) pass ``y_policy="raise"`` and are clipped to T.
_Y_TOL = 1e-9


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
    eps = check_estimator_epsilon(est.epsilon, type(est).__name__)
    try:
        delta = check_delta(est.delta)
    except ValueError as err:
        raise ValueError(f"{err} Pass e.g. delta=1e-5.") from None
    return eps, delta


def _fit_inputs(est, X, y, kernel):
    """Validated ``(X, y)`` and the row-norm record of the linear kernel (None for the other kernels)."""
    # sklearn's checks first (sparse, complex, 1-D, empty, y=None), then ours (NaN with a fix-it message).
    X, y = validate_data(est, X, y, y_numeric=True, dtype=np.float64, ensure_all_finite=False)
    X = check_matrix(X, "X", dtype=float)
    y = check_vector(y, "y", length=X.shape[0]).astype(float)
    record = None
    if kernel.name == "linear":
        X, record = check_row_norms(X, bound=kernel.feature_bound, policy=est.row_norm_policy)
    return X, y, record


def _before_reading(est, eps, delta, M, stacklevel):
    """``(outer ledger, non-private reasons)`` of a private kernel fit, checked before the data are read.

    The spends follow from epsilon, delta and the parameters, so a fit the outer budget cannot
    afford is refused here (:meth:`~fastmix.accounting.PrivacyLedger.check_spend_all`, with the
    entries converted to the outer ledger's relation); an option that breaks the guarantee warns.
    """
    outer = est.ledger
    if outer is not None and not isinstance(outer, PrivacyLedger):
        raise TypeError(f"ledger must be a fastmix.accounting.PrivacyLedger or None; got {type(outer).__name__}.")
    if outer is not None:
        outer.check_spend_all([e.as_relation(outer.relation) for e in est._ledger_entries(eps, delta, M)])
    reasons = est.non_private_options()
    if reasons:
        warnings.warn(
            f"{type(est).__name__} is not differentially private with these parameters: "
            + " ".join(reasons)
            + " Every ledger entry of the fit is marked not private.",
            NotPrivateWarning,
            stacklevel=stacklevel + 1,
        )
    return outer, reasons


class _PublicationCaveats(PublicationMixin):
    """Mixin of the private kernel learners: :meth:`publication_caveats` (and the warning when pickled)."""

    def publication_caveats(self) -> tuple[str, ...]:
        """Why this fitted estimator must not be published, one sentence each; empty when it may be.

        Read from what was fitted: statistics kept with ``keep_unreleased=True``, a fit drawn from a
        seed (``seeded_``: the seed reproduces the noise), the exact path sampler (it keeps the
        training inputs) and options that broke the guarantee. Pickling a fitted estimator with
        caveats warns :class:`~fastmix._validation.PrivacyWarning` listing them.
        """
        check_is_fitted(self, "coef_")
        unreleased = any(name in self.__dict__ for name in _UNRELEASED)
        holds_inputs = getattr(getattr(self, "feature_map_", None), "_points", None) is not None
        return fitted_caveats(self, unreleased=unreleased, holds_inputs=holds_inputs)


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
        How rows with ``||x|| > R`` are handled (linear kernel only; the record is kept in
        ``row_norm_record_``).
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
        X, y, record = _fit_inputs(self, X, y, kernel)
        if record is not None:
            self.row_norm_record_ = record
        rng_paths, _ = _feature_and_noise_generators(self.random_state)
        self.feature_map_ = self._fit_sampler(kernel, M, X, rng_paths)
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
        X, y, _ = _fit_inputs(self, X, y, kernel)
        rng_feat, _ = _feature_and_noise_generators(self.random_state)
        self.feature_map_ = RandomFourierFeatures(kernel, M)._fit_with(X, rng_feat)
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


def _bound_responses(y, response_bound, policy):
    """``[y_i]_T = clip(y_i, -T, T)`` with ``T = response_bound`` (kernel paper, Algorithm 1 step 1).

    ``policy="raise"`` first refuses responses above T (beyond a relative 1e-9 of rounding);
    ``"clip"`` clips them and warns :class:`~fastmix._validation.ResponseClippingWarning` with
    their count and share. Either way each response is mapped alone, so the guarantee holds.
    Returns the truncated responses and how many of them were changed.
    """
    abs_y = np.abs(y)
    n_over = int(np.count_nonzero(abs_y > response_bound))
    if policy == "raise":
        n_refused = int(np.count_nonzero(abs_y > response_bound * (1.0 + _Y_TOL)))
        if n_refused:
            raise ValueError(
                f"{n_refused} of {y.size} response(s) have |y_i| above the truncation level response_bound = "
                f"{response_bound:g} (largest |y_i| = {float(abs_y.max()):.6g}); Algorithm 1 of the kernel paper "
                "assumes |y_i| <= T = response_bound. Divide y by a public bound on |y|, raise response_bound, "
                "or pass y_policy='clip' (each response clipped to [-T, T], the paper's truncation; private, "
                "since it acts on each record alone)."
            )
    elif n_over:
        warn_responses_clipped(
            n_over,
            y.size,
            f"[-T, T] with T = response_bound = {response_bound:g} (the kernel paper's truncation, Algorithm 1 step 1)",
            "divide y by a larger public bound or raise response_bound.",
            stacklevel=4,
        )
    return np.clip(y, -response_bound, response_bound), n_over


#: Statistics of the training data that no mechanism released, kept only with ``keep_unreleased=True``.
_UNRELEASED = ("n_responses_clipped_", "n_features_clipped_", "n_features_over_bound_", "row_norm_record_")


class _DPKRRBase(_PublicationCaveats, _KRRBase):
    """The fit both private kernel ridge regressions share (kernel paper, Algorithms 1 and 3).

    A subclass supplies the feature map (:meth:`_fit_features`), the split of delta among the
    norm event and the two releases (:meth:`_delta_split`, known before the data are read) and
    the norm bound ``D2`` on its features (:meth:`_bound_features`), with the paper's references
    for the ledger (``_release_source``, ``_norm_event``).  The rest is common: parameter checks,
    the outer ledger's dry run, response truncation, the Gaussian-mechanism release of
    ``(C~, u~)`` at ``epsilon/2`` each, the ledger spends and the floored ridge solve.
    """

    #: The neighbouring relation of the guarantee: one record changed (the kernel paper's).
    privacy_relation = REPLACE_ONE
    #: Where the two Gaussian releases come from, as recorded in the ledger.
    _release_source = ""
    #: ``(mechanism, source)`` of the norm event charged to delta, for a feature map that has one.
    _norm_event = ("", "")

    def non_private_options(self) -> tuple[str, ...]:
        """The chosen options that break the privacy guarantee, one sentence each (empty when none).

        Computed from the parameters alone, never from data. The one such option is
        ``row_norm_policy="rescale"`` with the linear kernel (the only kernel whose inputs are
        bounded, by ``feature_bound``): it divides every row by the largest row norm observed,
        a statistic of every record. ``fit`` then warns
        :class:`~fastmix._validation.NotPrivateWarning` and marks every ledger entry of the fit
        not private, in ``privacy_ledger_`` and in the outer ``ledger``.
        """
        kernel = self.kernel
        name = kernel.lower() if isinstance(kernel, str) else getattr(kernel, "name", None)
        if name == "linear" and getattr(self, "row_norm_policy", "raise") == "rescale":
            return (
                "row_norm_policy='rescale' with the linear kernel divides every row of X by the largest row norm "
                "observed, a statistic of every record, so the release is not differentially private (divide X "
                "by a public bound and use 'raise', or use 'clip').",
            )
        return ()

    def _check_kernel(self, kernel):
        """Refuse a kernel the feature map cannot use (before the data are read)."""

    def _fit_features(self, kernel, M, X, rng):  # pragma: no cover - abstract
        """Fit the feature map on ``X`` with ``rng``, set ``feature_map_`` and return the features."""
        raise NotImplementedError

    def _delta_split(self, delta):  # pragma: no cover - abstract
        """``(delta of the norm event or None, delta of C~, delta of u~)``, from the parameters alone."""
        raise NotImplementedError

    def _bound_features(self, Z, M, delta):  # pragma: no cover - abstract
        """``(Z, D2, feature_clip, n_clipped, n_over)``: the features as released, their norm bound,
        the clipping radius applied at prediction (or None) and two unreleased counts (or None)."""
        raise NotImplementedError

    def _ledger_entries(self, eps, delta, M, D2=None, release=None):
        """The fit's spends under replace-one neighbours; without details before the data are read."""
        d_event, d_cov, d_vec = self._delta_split(delta)
        entry, rel = partial(ledger_entry, relation=REPLACE_ONE), release
        source = f"{_PAPER}, {self._release_source}; analytic Gaussian (Balle & Wang 2018)"
        cov = None if rel is None else {"sensitivity": rel.sensitivity_covariance, "sigma": rel.sigma_covariance}
        vec = None if rel is None else {"sensitivity": rel.sensitivity_vector, "sigma": rel.sigma_vector}
        entries = [
            entry("Gaussian mechanism: covariance C~", eps / 2.0, d_cov, source=source, details=cov),
            entry("Gaussian mechanism: vector u~", eps / 2.0, d_vec, source=source, details=vec),
        ]
        if d_event is not None:
            mechanism, event_source = self._norm_event
            details = None if D2 is None else {"D2": D2, "t": d_event / 2.0, "M": M}
            entries.insert(0, entry(mechanism, 0.0, d_event, source=f"{_PAPER}, {event_source}", details=details))
        return entries

    def fit(self, X, y):
        """Fit and record every privacy spend in ``privacy_ledger_`` (and in ``ledger``, if given)."""
        eps, delta = _check_privacy(self)
        M, lam, kernel = _check_common(self)
        response_bound = check_positive(self.response_bound, "response_bound")
        floor = check_positive(self.psd_floor, "psd_floor")
        y_policy = check_policy(self.y_policy, "y_policy", Y_POLICIES)
        if not isinstance(self.keep_unreleased, (bool, np.bool_)):
            raise TypeError(f"keep_unreleased must be True or False; got {self.keep_unreleased!r}.")
        self._check_kernel(kernel)
        outer, reasons = _before_reading(self, eps, delta, M, stacklevel=3)  # user -> subclass fit -> here
        X, y, norm_record = _fit_inputs(self, X, y, kernel)
        y, n_responses_clipped = _bound_responses(y, response_bound, y_policy)
        rng_features, rng_noise = _feature_and_noise_generators(self.random_state)
        Z = self._fit_features(kernel, M, X, rng_features)
        Z, D2, feature_clip, n_features_clipped, n_over_bound = self._bound_features(Z, M, delta)
        _, d_cov, d_vec = self._delta_split(delta)
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
        entries = self._ledger_entries(eps, delta, M, D2, rel)
        if reasons:
            entries = [e.marked_not_private(" ".join(reasons)) for e in entries]
        ledger = PrivacyLedger(eps, delta, relation=REPLACE_ONE, name=type(self).__name__)
        ledger.spend_all(entries)
        if outer is not None:  # replace-one implies zero-out: a zero-out ledger takes the entries at no cost
            outer.spend_all([e.as_relation(outer.relation) for e in entries])
        solution = solve_ridge_floored(rel.covariance, rel.vector, lam, psd_floor=floor)
        self.norm_bound_sq_, self.feature_clip_, self.release_ = D2, feature_clip, rel
        self.coef_ = solution.coef
        self.n_eigenvalues_floored_, self.min_eigenvalue_ = solution.n_floored, solution.min_eigenvalue
        self.indefinite_ = bool(self.min_eigenvalue_ <= 0.0)
        self.privacy_ledger_ = ledger
        record_seed(self)
        for name in _UNRELEASED:  # none survives from an earlier fit
            self.__dict__.pop(name, None)
        if self.keep_unreleased:
            values = (n_responses_clipped, n_features_clipped, n_over_bound, norm_record)
            self.__dict__.update({k: v for k, v in zip(_UNRELEASED, values, strict=True) if v is not None})
        return self


class DPRandomProjectionKRR(_RandomProjectionFeatures, _DPKRRBase):
    """(epsilon, delta)-DP kernel ridge regression by random projection (kernel paper, Algorithm 1).

    Steps (sufficient-statistics perturbation after Wang 2018; privacy: Theorem 1, Appendix A.1):

    1. ``z_i = h_M(x_i)`` (M GP paths, data-independent); ``[y_i]_T = clip(y_i, -T, T)``
       (``y_policy``).
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

    **Neighbours and the default delta.** The guarantee is for replace-one neighbours (one
    record ``(x_i, y_i)`` changed to any other), the kernel paper's relation:
    ``privacy_relation`` and ``privacy_ledger_.relation`` are ``"replace-one"``, and the default
    is ``delta=1e-5``. The private least-squares regressors of :mod:`fastmix.regression` state
    theirs for zero-out neighbours (one record's row of the solver's matrix, that is its
    features, its intercept coordinate and its response, set to zero; FastMix paper,
    Section 2), with the default ``delta = 1/n^2``. :meth:`~fastmix.accounting.LedgerEntry.as_relation`
    converts between them: replace-one -> zero-out is free (zeroing a record is one
    replacement), zero-out -> replace-one costs ``(2 eps, (1 + e^eps) delta)``. An outer
    ``ledger`` of either relation takes this estimator's entries, converted for free when it
    is zero-out.

    **Test-time paths, and what may be published.** The exact sampler draws the paths at new
    points from the GP conditional given all values drawn before (one consistent GP draw, see
    :class:`ExactGaussianProcessPaths`), so it keeps the distinct training inputs: the
    *predictions* of an exact-sampler fit are private, but the fitted estimator (its pickle)
    contains the training X. The approximate sampler (like the exact sampler of the linear
    kernel, drawn in weight space) keeps only draws that do not depend on the data: fitted with
    ``random_state=None`` and ``keep_unreleased=False``, it is the form to publish.
    :meth:`publication_caveats` lists why a fitted estimator must not be published (empty when
    it may be); pickling one with caveats warns :class:`~fastmix._validation.PrivacyWarning`.
    With ``clip_features=True`` test features get the same (data-independent) clipping.

    Parameters
    ----------
    epsilon : float, default=1.0
    delta : float, default=1e-5
    kernel, bandwidth, n_components, lam, sampler, n_frequencies, feature_bound, row_norm_policy :
        As in :class:`RandomProjectionKRR`. ``row_norm_policy="rescale"`` (linear kernel) is not
        private (:meth:`non_private_options`).
    response_bound : float, default=1.0
        T, the kernel paper's truncation level: responses must lie in [-T, T] (not to be
        confused with the iteration count T of the FastMix paper's solvers).
    clip_features : bool, default=False
        Clip ``h_M(x_i)`` to norm ``sqrt(D2)`` (strictly safer; no norm event).
    psd_floor : float, default=1.0
        Eigenvalues of ``C~ + lam I`` below ``psd_floor * lam`` are raised to it (default: project
        ``C~`` onto the PSD cone); see :func:`solve_ridge_floored`.
    y_policy : {"raise", "clip"}, default="raise"
        ``"raise"`` refuses responses with ``|y_i| > response_bound`` (ValueError with their
        count and the largest); ``"clip"`` clips them to ``[-T, T]``, the kernel paper's
        truncation (Algorithm 1 step 1; private, since it acts on each record alone), and warns
        :class:`~fastmix._validation.ResponseClippingWarning` with the count and share clipped.
    ledger : PrivacyLedger or None, default=None
        An outer budget for the data set: every fit charges its cost there too (converted for
        free if the ledger is zero-out), and a fit that would exceed it is refused before the
        data are read (:class:`~fastmix.accounting.BudgetExceededError`). scikit-learn's
        ``clone`` keeps the same ledger, so repeated fits (a grid search, refits) compose in it.
    keep_unreleased : bool, default=False
        Keep the statistics of the training data that no mechanism released (the attributes
        listed last below). They are NOT covered by the privacy guarantee; do not publish them.
    random_state : None, int, SeedSequence or Generator, default=None
        Controls the paths and the noise. A seed is for reproducible research: anyone who holds
        it can recompute the noise, so a seeded fitted model must not be published. Leave None
        for a model you will publish: the paths and the noise then come from two independent
        generators seeded from fresh OS entropy, and the fitted object keeps no generator that
        could rebuild the noise.

    Attributes
    ----------
    coef_ : ndarray of shape (M,)
    feature_map_ : path sampler
    sampler_ : {"exact", "approximate"}
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
        Only with ``keep_unreleased=True``; NOT covered by the guarantee. Responses clipped,
        features clipped and (without clipping) training rows outside the norm event.
    row_norm_record_ : NormEnforcement
        Only with ``keep_unreleased=True`` and the linear kernel; NOT covered by the guarantee
        (it holds the largest row norm of X).

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
        y_policy="raise",
        ledger=None,
        keep_unreleased=False,
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
        self.y_policy = y_policy
        self.ledger = ledger
        self.keep_unreleased = keep_unreleased
        self.random_state = random_state

    _release_source = "Algorithm 1 / Theorem 1"
    _norm_event = (
        "Laurent-Massart norm event (both differing records, t = delta/8 each)",
        "Lemma 2 / proof of Theorem 1",
    )

    def fit(self, X, y):
        """Fit by Algorithm 1 and record every privacy spend in ``privacy_ledger_`` (and ``ledger``)."""
        return super().fit(X, y)

    def _fit_features(self, kernel, M, X, rng):
        self.feature_map_ = self._fit_sampler(kernel, M, X, rng)
        return self.feature_map_.transform(X)

    def _delta_split(self, delta):
        """Without clipping: norm event ``delta/4``, covariance ``delta/4``, vector ``delta/2``."""
        return (None, delta / 2.0, delta / 2.0) if self.clip_features else (delta / 4.0, delta / 4.0, delta / 2.0)

    def _bound_features(self, Z, M, delta):
        """Laurent-Massart bound ``D2`` at ``t = delta/8`` (Lemma 2): clip to it, or rely on its event."""
        D2 = laurent_massart_bound(self.feature_map_.variance_bound, M, delta / 8.0)
        if self.clip_features:
            Z, n_clipped = _clip_rows(Z, D2)
            return Z, D2, D2, n_clipped, n_clipped
        return Z, D2, None, 0, int(np.count_nonzero(np.einsum("ij,ij->i", Z, Z) > D2))


class DPRandomFeatureKRR(_DPKRRBase):
    """(epsilon, delta)-DP kernel ridge regression on random Fourier features (kernel paper, Algorithm 3).

    Algorithm 1 with ``z_i = phi_M(x_i) = sqrt(2/M) cos(W^T x_i + b)``; since
    ``||phi_M(x)||^2 <= 2`` surely, no norm event is needed (proof of Theorem 5): covariance
    sensitivity ``2 sqrt(2) / n``, vector sensitivity ``2 sqrt(2) T / n``, each released by the
    analytic Gaussian mechanism at ``(epsilon/2, delta/2)``; the two spends compose by
    Proposition 2.  The random features do not depend on the data, so the fitted estimator
    holds no training input and, fitted with ``random_state=None`` and ``keep_unreleased=False``,
    may be published with its predictions (:meth:`publication_caveats` is then empty).

    The guarantee is for replace-one neighbours (``privacy_relation``), with the default
    ``delta=1e-5``; :class:`DPRandomProjectionKRR` says how this differs from the regressors'
    zero-out neighbours (default ``delta = 1/n^2``) and how to convert.

    Parameters
    ----------
    epsilon, delta, kernel, bandwidth, n_components, lam, response_bound, psd_floor, y_policy, \
ledger, keep_unreleased :
        As in :class:`DPRandomProjectionKRR` (kernel must be shift-invariant).
    random_state : None, int, SeedSequence or Generator, default=None
        Controls the features and the noise, as in :class:`DPRandomProjectionKRR`: a seed is for
        reproducible research; anyone who holds it can recompute the noise, so a seeded fitted
        model must not be published. Leave None for a model you will publish.

    Attributes
    ----------
    coef_, feature_map_, privacy_ledger_, release_, n_eigenvalues_floored_, min_eigenvalue_, \
indefinite_, norm_bound_sq_ :
        As in :class:`DPRandomProjectionKRR`.
    n_responses_clipped_ : int
        Only with ``keep_unreleased=True``; NOT covered by the guarantee.
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
        y_policy="raise",
        ledger=None,
        keep_unreleased=False,
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
        self.y_policy = y_policy
        self.ledger = ledger
        self.keep_unreleased = keep_unreleased
        self.random_state = random_state

    _release_source = "Algorithm 3 / Theorem 5"

    def fit(self, X, y):
        """Fit by Algorithm 3 and record every privacy spend in ``privacy_ledger_`` (and ``ledger``)."""
        return super().fit(X, y)

    def _check_kernel(self, kernel):
        _require_shift_invariant(kernel)

    def _fit_features(self, kernel, M, X, rng):
        self.feature_map_ = RandomFourierFeatures(kernel, M)._fit_with(X, rng)
        return self.feature_map_.transform(X)

    def _delta_split(self, delta):
        """No norm event: ``delta/2`` per release."""
        return None, delta / 2.0, delta / 2.0

    def _bound_features(self, Z, M, delta):
        """``||phi_M(x)||^2 <= 2`` surely (proof of Theorem 5): nothing clipped, nothing to count."""
        return Z, RandomFourierFeatures.norm_bound_sq, None, None, None
