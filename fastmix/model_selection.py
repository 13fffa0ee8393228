"""Choosing hyperparameters of a private estimator without spending the budget more than once.

Plain :class:`sklearn.model_selection.GridSearchCV` fits every candidate on every fold and once
more at the end, each fit at the estimator's full ``(epsilon, delta)``: on the same data, ``G``
candidates and ``F`` folds cost ``G F + 1`` times the budget by sequential composition, and
nothing warns. Two ways to stay within a budget:

* give the estimator an outer ledger (``ledger=PrivacyLedger(epsilon, delta)``): every fit,
  including those GridSearchCV makes on clones, charges it, and the fit that would overspend is
  refused before it touches the data; or
* use :class:`PrivateGridSearch`, which fits each candidate once on all records with a share of
  the budget and picks one with the exponential mechanism, the whole within ``(epsilon, delta)``.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin, clone
from sklearn.model_selection import ParameterGrid
from sklearn.utils.validation import check_is_fitted

from ._validation import check_delta, check_epsilon, check_positive, check_probability, check_random_state
from .accounting import ZERO_OUT, PrivacyLedger

__all__ = ["PrivateGridSearch"]

_EXPONENTIAL = "McSherry and Talwar 2007 (exponential mechanism), via the Gumbel-max trick"


class PrivateGridSearch(RegressorMixin, BaseEstimator):
    """Private selection over a small grid: ``G`` private fits and one exponential mechanism.

    With ``G`` candidates, a share ``s`` (``selection_share``) of ``epsilon`` goes to the
    selection and the rest is split evenly among the fits:

        each fit:   (epsilon (1 - s) / G,  delta / G)   on all n records,
        selection:  (epsilon s, 0)                       exponential mechanism,

    so the whole is ``(epsilon, delta)``-DP by sequential composition (Dwork and Roth 2014,
    Theorem 3.16; the ledger records each part). The selection scores candidate ``g`` by
    ``q_g = -(1/n) sum_i (clip(f_g(x_i), -C, C) - clip(y_i, -C, C))^2``; the fits ``f_g`` are
    already private releases, so ``q_g`` changes by at most ``Delta = 4 C^2 / n`` when one record
    changes (zero-out or replace-one), and candidate ``g`` is chosen with probability proportional
    to ``exp(epsilon s q_g / (2 Delta))`` (McSherry and Talwar 2007). The scores themselves are
    not released (not kept on the fitted object). The chosen candidate's fit is the model: it
    predicts ``clip(f, -C, C)``, the function the selection scored (post-processing).

    Parameters
    ----------
    estimator : a private regressor of this package
        It must take ``epsilon``, ``delta``, ``ledger`` and ``random_state`` parameters.
    param_grid : dict or list of dicts
        As for GridSearchCV; keep it small, every candidate costs a share of the budget.
    epsilon, delta : float
        The total budget.
    selection_share : float in (0, 1), default=0.1
    clip : float, default=1.0
        C, the bound on ``|y|`` (the estimators' own ``clip``).
    ledger : PrivacyLedger or None
        An outer budget to charge with the total (checked before the data are touched).
    random_state : None, int, SeedSequence or Generator

    Attributes
    ----------
    best_estimator_, best_params_, best_index_
    candidates_ : list of dict
        The grid, in order (public).
    privacy_ledger_ : PrivacyLedger
        ``G`` fits and one selection; totals within ``(epsilon, delta)``.
    """

    def __init__(
        self, estimator, param_grid, *, epsilon, delta, selection_share=0.1, clip=1.0, ledger=None, random_state=None
    ):
        self.estimator = estimator
        self.param_grid = param_grid
        self.epsilon = epsilon
        self.delta = delta
        self.selection_share = selection_share
        self.clip = clip
        self.ledger = ledger
        self.random_state = random_state

    def fit(self, X, y):
        eps = check_epsilon(self.epsilon)
        delta = check_delta(self.delta)
        share = check_probability(self.selection_share, "selection_share")  # in (0, 1)
        C = check_positive(self.clip, "clip")
        if self.ledger is not None and not isinstance(self.ledger, PrivacyLedger):
            raise TypeError(
                f"ledger must be a fastmix.accounting.PrivacyLedger or None; got {type(self.ledger).__name__}."
            )
        names = set(self.estimator.get_params())
        missing = sorted({"epsilon", "delta", "ledger", "random_state"} - names)
        if missing:
            raise TypeError(
                f"PrivateGridSearch needs a private estimator with parameters epsilon, delta, ledger and "
                f"random_state; {type(self.estimator).__name__} lacks {missing}."
            )
        candidates = list(ParameterGrid(self.param_grid))
        if not candidates:
            raise ValueError("param_grid is empty; give at least one candidate.")
        clash = sorted({"epsilon", "delta", "ledger", "random_state"} & {k for c in candidates for k in c})
        if clash:
            raise ValueError(f"param_grid may not vary {clash}: the search sets them from its own budget.")
        if self.ledger is not None:
            # refused before the data are touched (budget, or a ledger of another neighbouring relation)
            self.ledger.check_spend("PrivateGridSearch", eps, delta, relation=ZERO_OUT)
        G = len(candidates)
        eps_fit, delta_fit, eps_sel = eps * (1.0 - share) / G, delta / G, eps * share
        own = PrivacyLedger(eps, delta, relation=ZERO_OUT, name="PrivateGridSearch")
        rng = check_random_state(self.random_state)
        seeds = rng.spawn(G + 1)
        y_arr = np.asarray(y, dtype=float).ravel()
        y_c = np.clip(y_arr, -C, C)
        n = y_c.size
        fits, scores = [], np.empty(G)
        for g, params in enumerate(candidates):
            est = clone(self.estimator).set_params(
                **params, epsilon=eps_fit, delta=delta_fit, ledger=own, random_state=seeds[g]
            )
            est.fit(X, y)
            scores[g] = -np.mean((np.clip(est.predict(X), -C, C) - y_c) ** 2)
            fits.append(est)
        sensitivity = 4.0 * C * C / n
        # the score's sensitivity 4C^2/n holds for zero-out and replace-one neighbours alike
        own.spend(
            "exponential mechanism (selection)",
            eps_sel,
            0.0,
            source=_EXPONENTIAL,
            details={"candidates": G, "sensitivity": sensitivity},
        )
        gumbel = seeds[G].gumbel(size=G)
        k = int(np.argmax(eps_sel * scores / (2.0 * sensitivity) + gumbel))
        del scores  # private: only the chosen index is released
        if self.ledger is not None:
            self.ledger.spend_all(own.entries)
        self.candidates_ = candidates
        self.best_index_ = k
        self.best_params_ = dict(candidates[k])
        self.best_estimator_ = fits[k]
        self.privacy_ledger_ = own
        self.n_features_in_ = getattr(fits[k], "n_features_in_", None)
        return self

    def predict(self, X):
        check_is_fitted(self, "best_estimator_")
        C = float(self.clip)
        return np.clip(self.best_estimator_.predict(X), -C, C)
