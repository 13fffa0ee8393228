"""Choosing hyperparameters of a private estimator without spending the budget more than once.

Plain :class:`sklearn.model_selection.GridSearchCV` fits every candidate on every fold and once
more at the end, each fit at the estimator's full ``(epsilon, delta)``: on the same data, ``G``
candidates and ``F`` folds cost ``G F + 1`` times the budget by sequential composition, and
nothing warns. An outer ledger (``ledger=PrivacyLedger(epsilon, delta)`` on the estimator) makes
every fit GridSearchCV makes on clones charge one budget and refuses the fit that would overspend,
but it accounts for the fits only: the choice of ``best_params_`` and the held-out scores in
``cv_results_`` are computed from the records without noise and are not private, so a model
chosen that way is not covered end to end. :class:`PrivateGridSearch` is the private way: it
fits each candidate once on all records with a share of the budget and picks one with the
exponential mechanism, the whole within ``(epsilon, delta)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin, clone, is_classifier
from sklearn.model_selection import ParameterGrid
from sklearn.utils.validation import check_is_fitted

from ._publication import PublicationMixin, fitted_caveats, record_seed
from ._validation import check_delta, check_estimator_epsilon, check_positive, check_probability, check_random_state
from .accounting import REPLACE_ONE, ZERO_OUT, PrivacyLedger, ledger_entry

__all__ = ["PrivateGridSearch"]

_EXPONENTIAL = "McSherry and Talwar 2007 (exponential mechanism), via the Gumbel-max trick"
_SET_BY_SEARCH = ("epsilon", "delta", "ledger", "random_state")


def _for_ledger(entries, ledger):
    """``entries`` as ``ledger`` composes them: replace-one converted to zero-out (free), others as they are.

    An entry of another relation than the ledger's is then refused by the ledger
    (zero-out -> replace-one would double epsilon; :meth:`~fastmix.accounting.LedgerEntry.as_relation`).
    """
    free = ledger.relation == ZERO_OUT
    return [e.as_relation(ZERO_OUT) if free and e.relation == REPLACE_ONE else e for e in entries]


def _chain(model, fitted: bool = False) -> list[tuple[str, Any]]:
    """``[(prefix, part), ...]`` from a candidate down to the private estimator it ends in.

    A Pipeline leads to its last step and a
    :class:`~fastmix.preprocessing.BoundedResponseRegressor` to its ``regressor`` (its fitted clone
    ``regressor_`` when ``fitted``), until an estimator that is neither: the core. ``prefix`` is the
    parameter prefix that reaches each part from the candidate; the search sets the budget
    parameters on the core (``prefix + "epsilon"`` and so on).
    """
    from sklearn.pipeline import Pipeline

    from .preprocessing import BoundedResponseRegressor

    chain = [("", model)]
    while True:
        prefix, part = chain[-1]
        if type(part) is Pipeline:
            name, inner = part.steps[-1]
            chain.append((f"{prefix}{name}__", inner))
        elif type(part) is BoundedResponseRegressor:
            chain.append((f"{prefix}regressor__", part.regressor_ if fitted else part.regressor))
        else:
            return chain


def _core_path(model) -> tuple[str, Any]:
    """``(prefix, core)``: the private estimator a candidate ends in and the parameter prefix that reaches it."""
    return _chain(model)[-1]


def _response_bound(model):
    """The public bound on ``|y|`` a candidate declares: a wrapper's ``max(|low|, |high|)``, else the core's own."""
    from .preprocessing import BoundedResponseRegressor

    for _, part in _chain(model):
        if type(part) is BoundedResponseRegressor:
            return max(abs(float(part.low)), abs(float(part.high)))
    params = _core_path(model)[1].get_params(deep=False)
    return params.get("response_bound", params.get("clip"))


def _refuse_own_ledger(core, where: str) -> None:
    """Refuse an estimator whose own ``ledger`` is set: the search would not charge it."""
    if core.get_params(deep=False).get("ledger") is not None:
        raise ValueError(
            f"{where} has ledger= set, but PrivateGridSearch fits each candidate against its own ledger, so that "
            "outer ledger would not be charged. Pass it to PrivateGridSearch(ledger=...) instead, which charges "
            "it with the search's total, and leave the estimator's ledger=None."
        )


class _EstimatorRelation:
    """``privacy_relation`` of a search: read on a search, the relation of its estimator.

    Read on the class it is None: the class states no relation of its own (it depends on the
    estimator), so a check of the class's stated relation against a fitted ledger has nothing
    to compare.
    """

    def __get__(self, search, owner=None):
        if search is None:
            return None
        try:
            cores = search.candidate_estimators()
        except (TypeError, ValueError):  # a grid that fit() will refuse, with its reason
            cores = [_core_path(search.estimator)[1]]
        relations = {getattr(core, "privacy_relation", None) or ZERO_OUT for core in cores}
        # replace-one implies zero-out at no cost, so a grid mixing the two composes under zero-out
        return REPLACE_ONE if relations == {REPLACE_ONE} else ZERO_OUT


class PrivateGridSearch(PublicationMixin, RegressorMixin, BaseEstimator):
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

    **Neighbours.** The guarantee is stated for the estimator's relation (``privacy_relation``):
    zero-out for the least-squares regressors of :mod:`fastmix.regression`, replace-one for the
    kernel learners of :mod:`fastmix.kernels`; ``privacy_ledger_`` composes under it. An outer
    ``ledger`` of the same relation takes the entries as they are; a zero-out outer ledger takes
    replace-one entries converted at no cost; a replace-one outer ledger refuses zero-out entries
    (:class:`~fastmix.accounting.NeighbouringRelationError`, before the data are touched).

    **Pipelines and a choice between estimators.** ``estimator`` may be a scikit-learn Pipeline
    whose last step is a private estimator (or a :class:`~fastmix.preprocessing.BoundedResponseRegressor`
    around one): the budget goes to that estimator, the earlier steps must be fixed maps of each
    record (the allow-list of :func:`~fastmix.preprocessing.pipeline_privacy_record`, checked on
    the parameters before the data are touched and on what was fitted before anything is
    released), and the selection scores the whole pipeline's predictions. The grid may name
    pipeline parameters (``"model__lam"``) and may replace the last step, so one search chooses
    between estimators, e.g. ``[{"model": [PrivateLinearRegression()]}, {"model":
    [DPRandomFeatureKRR()], "model__lam": [0.1, 1.0]}]``. A grid that mixes replace-one learners
    with zero-out ones composes under zero-out (replace-one implies it at no cost).

    **Private candidates only.** Before it touches the data the search refuses an estimator that
    is not one of this package's private estimators (one without ``non_private_options()``), and
    a grid any of whose candidates lists an option that breaks the guarantee (e.g.
    ``row_norm_policy="rescale"``). It also refuses ``keep_unreleased=True`` (on the estimator or
    in the grid): the search exists to publish ``best_estimator_``, which must hold no statistic
    of the data outside the guarantee, so the candidates are fitted with the default
    ``keep_unreleased=False``. And it refuses an estimator whose ``ledger`` is set: the search
    gives each candidate its own ledger, so pass that budget as ``PrivateGridSearch(ledger=...)``.

    **What may be published.** :meth:`publication_caveats` lists why the fitted search must not
    be published (empty when it may be): a seeded ``random_state``, and the caveats of
    ``best_estimator_``. With ``random_state=None`` every candidate draws its features and noise
    from fresh OS entropy and the selection from a generator of its own, so nothing kept on the
    fitted search can rebuild them. After fitting, each candidate's ``random_state`` is reset to
    None: ``best_estimator_`` keeps no seed (with a seeded search, the search's own
    ``random_state`` still reproduces every draw). With
    :class:`~fastmix.kernels.DPRandomProjectionKRR`, publish a search over
    ``sampler="approximate"``: the exact sampler keeps the training inputs (its predictions are
    private, its pickle is not). Pickling a fitted search with caveats warns
    :class:`~fastmix._validation.PrivacyWarning`.

    Parameters
    ----------
    estimator : a private estimator of this package, or a Pipeline ending in one
        The private estimator must take ``epsilon``, ``delta``, ``ledger`` and ``random_state``
        parameters and have ``non_private_options()``; e.g.
        :class:`~fastmix.regression.PrivateLinearRegression` or
        :class:`~fastmix.kernels.DPRandomFeatureKRR`. Every candidate the grid makes of it is
        checked the same way.
    param_grid : dict or list of dicts
        As for GridSearchCV; keep it small, every candidate costs a share of the budget. It may
        not vary ``epsilon``, ``delta``, ``ledger`` or ``random_state``, which the search sets.
    epsilon, delta : float
        The total budget.
    selection_share : float in (0, 1), default=0.1
    clip : float or None, default=None
        C, the bound of the selection's score (predictions and responses are clipped to
        ``[-C, C]``; the sensitivity is ``4 C^2 / n``). None takes the estimators' own response
        bound, the largest over the candidates: ``response_bound`` (T) for the kernel learners,
        ``clip`` (C) for the least-squares regressors, ``max(|low|, |high|)`` for a
        :class:`~fastmix.preprocessing.BoundedResponseRegressor`. The value used is ``clip_``.
    ledger : PrivacyLedger or None
        An outer budget to charge with the total (checked before the data are touched). The
        estimator's own ``ledger`` must be None: pass its budget here instead.
    random_state : None, int, SeedSequence or Generator, default=None
        Controls every candidate's draws and the selection's. A seed is for reproducible
        research: anyone who holds it can recompute the noise of the fits and the selection, so
        a seeded fitted search must not be published. Leave None for a search you will publish.

    Attributes
    ----------
    best_estimator_, best_params_, best_index_
        The chosen candidate's fit (a Pipeline when ``estimator`` is one; its private estimator's
        ``random_state`` reset to None), parameters and index.
    candidates_ : list of dict
        The grid, in order (public).
    clip_ : float
        The score's bound C.
    privacy_ledger_ : PrivacyLedger
        ``G`` fits and one selection; totals within ``(epsilon, delta)``, under
        ``privacy_relation``.
    """

    def __init__(
        self, estimator, param_grid, *, epsilon, delta, selection_share=0.1, clip=None, ledger=None, random_state=None
    ):
        self.estimator = estimator
        self.param_grid = param_grid
        self.epsilon = epsilon
        self.delta = delta
        self.selection_share = selection_share
        self.clip = clip
        self.ledger = ledger
        self.random_state = random_state

    #: The neighbouring relation of the search's guarantee: its estimator's (zero-out if that names none).
    privacy_relation = _EstimatorRelation()

    def candidate_estimators(self) -> list:
        """The private estimator of each candidate, unfitted: the grid's candidates made from ``estimator``.

        For a Pipeline, its last step's estimator (inside a BoundedResponseRegressor, the
        regressor), with the candidate's parameters set; what the search spends the budget on
        and what :func:`~fastmix.preprocessing.pipeline_privacy_record` checks for options that
        break the guarantee. Computed from the parameters only: the fitted grid (``candidates_``)
        once fitted, ``param_grid`` before.
        """
        grid = getattr(self, "candidates_", None) or list(ParameterGrid(self.param_grid))
        return [_core_path(clone(self.estimator).set_params(**p))[1] for p in grid]

    def non_private_options(self) -> tuple[str, ...]:
        """Why candidates of the grid would not be private, one sentence each; computed from the parameters.

        Empty for every search that :meth:`fit` accepts (it refuses the others before touching
        the data), so a fitted search is itself one of the package's private estimators.
        """
        out = []
        for params, core in zip(ParameterGrid(self.param_grid), self.candidate_estimators(), strict=True):
            if not callable(getattr(core, "non_private_options", None)):
                name = type(core).__name__
                out.append(f"candidate {params!r}: {name} is not one of this package's private estimators.")
            else:
                out += [f"candidate {params!r}: {reason}" for reason in core.non_private_options()]
        return tuple(out)

    def publication_caveats(self) -> tuple[str, ...]:
        """Why this fitted search must not be published, one sentence each; empty when it may be.

        The search's own (fitted from a seed, ``seeded_``: the seed reproduces the noise of every
        fit and the selection's draws) followed by those of ``best_estimator_``, which was fitted
        from the search's seed when there was one (its ``seeded_`` says so even though its
        ``random_state`` is reset to None); for a Pipeline, those the pipeline certificate lists
        (:func:`~fastmix.preprocessing.pipeline_privacy_record`). Pickling a fitted search with
        caveats warns :class:`~fastmix._validation.PrivacyWarning`.
        """
        from sklearn.pipeline import Pipeline

        from .preprocessing import pipeline_privacy_record

        check_is_fitted(self, "best_estimator_")
        own = fitted_caveats(self, unreleased=False)
        best = self.best_estimator_
        if type(best) is Pipeline:
            return own + tuple(pipeline_privacy_record(best)["publication_caveats"])
        caveats = getattr(best, "publication_caveats", None)
        if not callable(caveats):
            return own + (f"{type(best).__name__} does not state whether its fitted object may be published.",)
        return own + tuple(caveats())

    def _check_core(self, params, model) -> str:
        """The budget prefix of one candidate, after refusing (before the data) a core that cannot be searched."""
        from .preprocessing import DATA_DEPENDENT, step_verdicts

        prefix, core = _core_path(model)
        name = type(core).__name__
        where = f"candidate {params!r} of {name}" if params else name
        missing = sorted(set(_SET_BY_SEARCH) - set(core.get_params(deep=False)))
        if missing:
            raise TypeError(
                f"PrivateGridSearch needs a private estimator with parameters epsilon, delta, ledger and "
                f"random_state (the last step of a Pipeline, or the regressor of a BoundedResponseRegressor); "
                f"{where} lacks {missing}."
            )
        if is_classifier(core):
            raise TypeError(
                f"PrivateGridSearch selects regressors by their clipped squared error; {where} is a classifier, "
                "whose labels that score would treat as numbers. Select its hyperparameters on public data, or "
                "fit each candidate with an outer ledger= and compare them on data set aside for it."
            )
        if not callable(getattr(core, "non_private_options", None)):
            raise TypeError(
                f"PrivateGridSearch needs one of this package's private estimators, which list the options that "
                f"break their guarantee in non_private_options(); {where} has no such method."
            )
        _refuse_own_ledger(core, where)
        clash = sorted(k for k in params if k in {prefix + p for p in _SET_BY_SEARCH})
        if clash:
            raise ValueError(f"param_grid may not vary {clash}: the search sets them from its own budget.")
        reasons = core.non_private_options()
        if reasons:
            raise ValueError(
                f"{where} is not differentially private: {' '.join(reasons)} "
                "PrivateGridSearch selects among private fits only; remove that option from param_grid."
            )
        if core.get_params(deep=False).get("keep_unreleased", False):
            raise ValueError(
                f"{where} has keep_unreleased=True. PrivateGridSearch publishes best_estimator_, which must hold no "
                "statistic of the data outside the guarantee; use the default keep_unreleased=False."
            )
        for step_name, verdict, why in step_verdicts(model):
            if verdict == DATA_DEPENDENT:
                raise ValueError(
                    f"step {step_name!r} is fitted to the data, so the search's guarantee would not cover the "
                    f"records of the table: {why}."
                )
        return prefix

    def _check_candidates(self):
        """The grid, a clone per candidate and its budget prefix; refused before the data unless all are private."""
        candidates = list(ParameterGrid(self.param_grid))
        if not candidates:
            raise ValueError("param_grid is empty; give at least one candidate.")
        template = _core_path(self.estimator)[1]
        _refuse_own_ledger(template, type(template).__name__)  # before the grid's parameters are set on it
        models = [clone(self.estimator).set_params(**params) for params in candidates]
        prefixes = [self._check_core(params, model) for params, model in zip(candidates, models, strict=True)]
        return candidates, models, prefixes

    @staticmethod
    def _check_fitted_steps(params, model) -> None:
        """Refuse (before anything is released) a fitted pipeline step the certificate cannot prove fixed."""
        from .preprocessing import DATA_INDEPENDENT, step_verdicts

        for step_name, verdict, why in step_verdicts(model):
            if verdict != DATA_INDEPENDENT:
                raise ValueError(
                    f"candidate {params!r}: step {step_name!r} is not proven to be a fixed map of each record "
                    f"({verdict}: {why}), so the search's guarantee would not cover the records of the table. "
                    "Nothing was released and no ledger was charged."
                )

    def _score_clip(self, models) -> float:
        if self.clip is not None:
            return check_positive(self.clip, "clip")
        bounds = []
        for model in models:
            bound = _response_bound(model)
            if bound is None:
                raise ValueError(
                    f"clip=None takes the score's bound from the estimator's response_bound or clip parameter (or "
                    f"a BoundedResponseRegressor's range), and {type(_core_path(model)[1]).__name__} has neither; "
                    "pass clip=C, a public bound on |y|."
                )
            bounds.append(check_positive(bound, "the estimator's response bound"))
        return max(bounds)

    def fit(self, X, y):
        """Fit every candidate at its share of the budget on all records, then select one privately."""
        eps = check_estimator_epsilon(self.epsilon, "PrivateGridSearch")
        delta = check_delta(self.delta)
        share = check_probability(self.selection_share, "selection_share")  # in (0, 1)
        if self.ledger is not None and not isinstance(self.ledger, PrivacyLedger):
            raise TypeError(
                f"ledger must be a fastmix.accounting.PrivacyLedger or None; got {type(self.ledger).__name__}."
            )
        candidates, models, prefixes = self._check_candidates()
        C = self._score_clip(models)
        relation = self.privacy_relation
        if self.ledger is not None:
            # refused before the data are touched (budget, or a ledger of a relation it cannot take for free)
            total = ledger_entry("PrivateGridSearch", eps, delta, relation=relation)
            self.ledger.check_spend_all(_for_ledger([total], self.ledger))
        G = len(candidates)
        eps_fit, delta_fit, eps_sel = eps * (1.0 - share) / G, delta / G, eps * share
        own = PrivacyLedger(eps, delta, relation=relation, name="PrivateGridSearch")
        if self.random_state is None:
            # independent and fresh: each candidate seeds its own draws, the selection gets its own generator
            seeds = [None] * G + [np.random.default_rng()]
        else:
            seeds = check_random_state(self.random_state).spawn(G + 1)
        y_arr = np.asarray(y, dtype=float).ravel()
        y_c = np.clip(y_arr, -C, C)
        n = y_c.size
        scores = np.empty(G)
        for g, (est, at) in enumerate(zip(models, prefixes, strict=True)):
            budget = {"epsilon": eps_fit, "delta": delta_fit, "ledger": own, "random_state": seeds[g]}
            est.set_params(**{at + k: v for k, v in budget.items()})
            est.fit(X, y)
            self._check_fitted_steps(candidates[g], est)
            # the fitted candidate keeps no seed of the search (nor does a wrapper's fitted clone)
            est.set_params(**{at + "random_state": None})
            _chain(est, fitted=True)[-1][1].set_params(random_state=None)
            scores[g] = -np.mean((np.clip(est.predict(X), -C, C) - y_c) ** 2)
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
            self.ledger.spend_all(_for_ledger(own.entries, self.ledger))
        self.candidates_ = candidates
        self.best_index_ = k
        self.best_params_ = dict(candidates[k])
        self.best_estimator_ = models[k]
        self.clip_ = C
        self.privacy_ledger_ = own
        record_seed(self)
        self.n_features_in_ = getattr(models[k], "n_features_in_", None)
        return self

    def predict(self, X):
        """``clip(f(x), -C, C)`` with the chosen fit ``f`` and ``C = clip_`` (the function the selection scored)."""
        check_is_fitted(self, "best_estimator_")
        return np.clip(self.best_estimator_.predict(X), -self.clip_, self.clip_)
