"""Differentially private kernel logistic regression by random projection (kernel paper, Algorithm 2, Theorem 2)."""

from __future__ import annotations

import math

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .._validation import check_matrix, check_random_state, check_row_norms
from ..accounting import REPLACE_ONE, PrivacyLedger
from .estimators import _PAPER, _check_common, _check_privacy, _clip_rows, _RandomProjectionFeatures
from .gaussian_process_paths import laurent_massart_bound
from .objective_perturbation import _logistic_newton, objective_perturbation_calibration


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
