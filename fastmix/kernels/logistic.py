"""Differentially private kernel logistic regression by random projection (kernel paper, Algorithm 2, Theorem 2)."""

from __future__ import annotations

import math
from functools import partial

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .._publication import record_seed
from .._validation import check_matrix, check_row_norms, mark_not_private
from ..accounting import REPLACE_ONE, PrivacyLedger, ledger_entry
from .estimators import (
    _PAPER,
    _UNRELEASED,
    _before_reading,
    _check_common,
    _check_privacy,
    _clip_rows,
    _DPKRRBase,
    _feature_and_noise_generators,
    _PublicationCaveats,
    _RandomProjectionFeatures,
)
from .gaussian_process_paths import laurent_massart_bound
from .objective_perturbation import _logistic_newton, objective_perturbation_calibration

_NORM_EVENT = "Laurent-Massart norm event (both differing records, t = delta/4 each)"
_OBJECTIVE = "objective perturbation (logistic loss)"


def _declared_classes(classes):
    """The declared pair of labels, sorted as ``np.unique`` sorts them (None when not declared)."""
    if classes is None:
        return None
    pair = np.asarray(classes)
    try:
        unique = np.unique(pair) if pair.ndim == 1 else pair
    except TypeError:  # labels of types that do not sort together
        unique = pair
    if pair.ndim != 1 or pair.size != 2 or unique.size != 2:
        raise ValueError(
            f"classes must be the pair of distinct labels [negative, positive] the model separates, declared in "
            f"advance (DPRandomProjectionLogistic is a binary classifier); got {classes!r}."
        )
    return unique


def _check_labels(y, declared):
    """``classes_`` for the labels ``y``: the declared pair, or (``declared=None``) the labels found in ``y``."""
    if declared is None:
        check_classification_targets(y)
        classes = np.unique(y)
        if classes.size != 2:
            raise ValueError(
                f"Only binary classification is supported: DPRandomProjectionLogistic got {classes.size} class(es) "
                f"{classes.tolist()}. Encode the labels as two classes."
            )
        return classes
    outside = ~np.isin(y, declared)
    if np.any(outside):
        found = list(dict.fromkeys(y[outside].tolist()))  # in order of appearance
        shown = ", ".join(repr(v) for v in found[:10]) + (", ..." if len(found) > 10 else "")
        raise ValueError(
            f"{int(np.count_nonzero(outside))} of {y.size} label(s) lie outside the declared classes "
            f"{declared.tolist()}: {shown}. Encode the labels as the two declared classes, or declare the pair "
            "that the labels take."
        )
    return declared


class DPRandomProjectionLogistic(_RandomProjectionFeatures, _PublicationCaveats, ClassifierMixin, BaseEstimator):
    """(epsilon, delta)-DP kernel logistic regression by random projection (kernel paper, Algorithm 2).

    Objective perturbation (Kifer et al. 2012) on ``z_i = h_M(x_i)``, labels ``s_i in {-1, +1}``
    (``+1`` for ``classes_[1]``), logistic loss ``l(s, m) = log(1 + exp(-s m))`` (Lipschitz
    ``c1 = 1``, smoothness ``c2 = 1/4``)::

        beta = argmin (1/n) sum l(s_i, beta^T z_i) + (lam_eff/2) ||beta||^2 + (1/n) b^T beta,

    with ``b ~ N(0, sigma^2 I_M)`` calibrated by :func:`objective_perturbation_calibration` and
    ``Delta = sqrt(D2)`` the Laurent-Massart bound at ``t = delta/4`` per record (event
    ``delta/2``; Theorem 2 splits delta the same way).  The objective perturbation itself gets
    ``(epsilon, delta/2)``; with ``clip_features=True`` there is no event and it gets
    ``(epsilon, delta)``.  ``lam_eff = max(lam, lam_min)`` is recorded in ``lam_effective_``.

    **Neighbours.** The guarantee (Theorem 2) is for replace-one neighbours (one record
    ``(x_i, y_i)`` changed to any other), as in the kernel paper: ``privacy_relation`` and
    ``privacy_ledger_.relation`` are ``"replace-one"``. An outer ``ledger`` of either relation
    takes the fit's entries, converted at no cost when it is zero-out (see
    :class:`DPRandomProjectionKRR`).

    **The label set.** The guarantee covers the coefficients given the two labels the model
    separates. Declare them with ``classes=[negative, positive]``: ``classes_`` is then that
    pair, whatever labels the data hold (a data set in which one of them is missing still
    fits), and a label outside it is refused. With the default ``classes=None`` the label set
    is read from the training labels, a statistic of the data (and a data set with a single
    label is refused, which also depends on the data), so the fit is not private: it warns
    :class:`~fastmix._validation.NotPrivateWarning` and marks its ledger entries not private
    (:meth:`non_private_options`).

    **What may be published.** As for :class:`DPRandomProjectionKRR`: the exact sampler keeps
    the training inputs to draw the paths at new points, so the predictions of an exact-sampler
    fit are private but its pickle is not; ``sampler="approximate"`` (or the linear kernel),
    fitted with ``random_state=None`` and ``keep_unreleased=False``, is the form to publish.
    :meth:`publication_caveats` lists why a fitted estimator must not be published (empty when
    it may be), and pickling one with caveats warns :class:`~fastmix._validation.PrivacyWarning`.

    Parameters
    ----------
    epsilon, delta, kernel, bandwidth, n_components, lam, clip_features, sampler, n_frequencies, \
feature_bound, row_norm_policy :
        As in :class:`DPRandomProjectionKRR`. ``row_norm_policy="rescale"`` (linear kernel) is
        not private (:meth:`non_private_options`).
    classes : array-like of two labels or None, default=None
        The labels ``[negative, positive]``, declared in advance; ``classes_`` is this pair,
        sorted. None reads them from the training labels, which is not private.
    ledger : PrivacyLedger or None, default=None
        An outer budget for the data set: every fit charges its cost there too (converted for
        free if the ledger is zero-out), and a fit that would exceed it is refused before the
        data are read (:class:`~fastmix.accounting.BudgetExceededError`). scikit-learn's
        ``clone`` keeps the same ledger, so repeated fits compose in it.
    keep_unreleased : bool, default=False
        Keep the statistics of the training data that no mechanism released (the attributes
        listed last below). They are NOT covered by the privacy guarantee; do not publish them.
    random_state : None, int, SeedSequence or Generator, default=None
        Controls the paths and the noise, as in :class:`DPRandomProjectionKRR`. A seed is for
        reproducible research: anyone who holds it can recompute the noise, so a seeded fitted
        model must not be published; leave None for a model you will publish.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The declared ``classes`` (sorted), or the labels found in the data when ``classes=None``.
    coef_ : ndarray of shape (M,)
    feature_map_ : path sampler
    sampler_ : {"exact", "approximate"}
    norm_bound_sq_ : float
        D2.
    lam_effective_, lam_min_ : float
    noise_sigma_ : float
    privacy_ledger_ : PrivacyLedger
        Every spend; totals at most (epsilon, delta).
    n_features_clipped_ : int
        Only with ``keep_unreleased=True``; NOT covered by the guarantee. Training features
        clipped to norm ``sqrt(D2)`` (0 without ``clip_features``).
    row_norm_record_ : NormEnforcement
        Only with ``keep_unreleased=True`` and the linear kernel; NOT covered by the guarantee
        (it holds the largest row norm of X).

    Examples
    --------
    >>> import numpy as np
    >>> from fastmix.kernels import DPRandomProjectionLogistic
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, (400, 2))
    >>> y = np.where(X[:, 0] + 0.2 * rng.standard_normal(400) > 0, "yes", "no")
    >>> est = DPRandomProjectionLogistic(epsilon=2.0, n_components=10, classes=["no", "yes"], random_state=0)
    >>> est.fit(X, y).predict(X[:3]).shape
    (3,)
    >>> est.classes_.tolist(), est.privacy_ledger_.private
    (['no', 'yes'], True)
    >>> est.privacy_ledger_.total_epsilon, est.privacy_ledger_.total_delta
    (2.0, 1e-05)
    """

    #: The neighbouring relation of the guarantee: one record changed (the kernel paper's).
    privacy_relation = REPLACE_ONE

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
        classes=None,
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
        self.clip_features = clip_features
        self.sampler = sampler
        self.n_frequencies = n_frequencies
        self.feature_bound = feature_bound
        self.row_norm_policy = row_norm_policy
        self.classes = classes
        self.ledger = ledger
        self.keep_unreleased = keep_unreleased
        self.random_state = random_state

    def non_private_options(self) -> tuple[str, ...]:
        """The chosen options that break the privacy guarantee, one sentence each (empty when none).

        Computed from the parameters alone, never from data: ``row_norm_policy="rescale"`` with
        the linear kernel (as for :class:`DPRandomProjectionKRR`) and ``classes=None``. ``fit``
        then warns :class:`~fastmix._validation.NotPrivateWarning` and marks every ledger entry
        of the fit not private, in ``privacy_ledger_`` and in the outer ``ledger``.
        """
        reasons = _DPKRRBase.non_private_options(self)
        if self.classes is None:
            reasons += (
                "classes=None reads the label set from the training labels, a statistic of the data (a data set "
                "with a single label is even refused), so the release is not differentially private; pass "
                "classes=[neg, pos], the two labels declared in advance.",
            )
        return reasons

    def _ledger_entries(self, eps, delta, M, D2=None, cal=None):
        """The fit's spends under replace-one neighbours (Theorem 2); without details before the data are read."""
        entry = partial(ledger_entry, relation=REPLACE_ONE)
        d_tail = delta if self.clip_features else delta / 2.0
        details = None
        if cal is not None:
            details = {"sigma": cal.sigma, "lam_effective": cal.lam_effective, "lam_min": cal.lam_min}
            details["Delta"] = math.sqrt(D2)
        source = f"{_PAPER}, Algorithm 2 / Theorem 2; Kifer et al. (2012); calibration derived in "
        entries = [entry(_OBJECTIVE, eps, d_tail, source=source + "book/kernel_calibration.md", details=details)]
        if not self.clip_features:
            event = None if D2 is None else {"D2": D2, "t": delta / 4.0, "M": M}
            event_source = f"{_PAPER}, Lemma 2 / proof of Theorem 2 (event E_3)"
            entries.insert(0, entry(_NORM_EVENT, 0.0, delta / 2.0, source=event_source, details=event))
        return entries

    def fit(self, X, y):
        """Fit by Algorithm 2 and record every privacy spend in ``privacy_ledger_`` (and ``ledger``)."""
        eps, delta = _check_privacy(self)
        M, lam, kernel = _check_common(self)
        if not isinstance(self.keep_unreleased, (bool, np.bool_)):
            raise TypeError(f"keep_unreleased must be True or False; got {self.keep_unreleased!r}.")
        declared = _declared_classes(self.classes)
        outer, reasons = _before_reading(self, eps, delta, M, stacklevel=2)
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_all_finite=False)
        X = check_matrix(X, "X", dtype=float)
        classes = _check_labels(y, declared)
        norm_record = None
        if kernel.name == "linear":
            X, norm_record = check_row_norms(X, bound=kernel.feature_bound, policy=self.row_norm_policy)
        s = np.where(y == classes[1], 1.0, -1.0)
        n = X.shape[0]
        rng_paths, rng_noise = _feature_and_noise_generators(self.random_state)
        self.feature_map_ = self._fit_sampler(kernel, M, X, rng_paths)
        Z = self.feature_map_.transform(X)
        D2 = laurent_massart_bound(self.feature_map_.variance_bound, M, delta / 4.0)
        n_features_clipped, feature_clip = 0, None
        if self.clip_features:
            Z, n_features_clipped = _clip_rows(Z, D2)
            feature_clip = D2
        d_tail = self._ledger_entries(eps, delta, M)[-1].delta
        cal = objective_perturbation_calibration(
            eps, d_tail, feature_norm=math.sqrt(D2), lipschitz=1.0, smoothness=0.25, n=n, lam=lam
        )
        b = cal.sigma * rng_noise.standard_normal(M)
        self.coef_ = _logistic_newton(Z, s, cal.lam_effective, b)
        entries = mark_not_private(self._ledger_entries(eps, delta, M, D2, cal), reasons)
        ledger = PrivacyLedger(eps, delta, relation=REPLACE_ONE, name=type(self).__name__)
        ledger.spend_all(entries)
        if outer is not None:  # replace-one implies zero-out: a zero-out ledger takes the entries at no cost
            outer.spend_all([e.as_relation(outer.relation) for e in entries])
        self.classes_ = classes
        self.norm_bound_sq_, self.feature_clip_ = D2, feature_clip
        self.noise_sigma_, self.lam_effective_, self.lam_min_ = cal.sigma, cal.lam_effective, cal.lam_min
        self.privacy_ledger_ = ledger
        record_seed(self)
        for name in _UNRELEASED:  # none survives from an earlier fit
            self.__dict__.pop(name, None)
        if self.keep_unreleased:
            self.n_features_clipped_ = n_features_clipped
            if norm_record is not None:
                self.row_norm_record_ = norm_record
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
