"""Budgets across fits: outer ledgers under scikit-learn, and the private grid search."""

import copy
import pickle
import warnings

import numpy as np
import pytest
from privacy_probes import Untouchable, pickled_objects
from sklearn.base import BaseEstimator, clone
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GridSearchCV

from fastmix._validation import PrivacyWarning
from fastmix.accounting import REPLACE_ONE, ZERO_OUT, BudgetExceededError, DetachedLedgerError, PrivacyLedger
from fastmix.kernels import DPRandomFeatureKRR, DPRandomProjectionKRR
from fastmix.model_selection import PrivateGridSearch
from fastmix.preprocessing import pipeline_privacy_record
from fastmix.regression import AdaSSPRegressor, FastIHMRegressor, IHMRegressor


def problem(n=4096, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = np.clip(X @ np.array([0.6, -0.4, 0.3, 0.2]) + 0.05 * rng.standard_normal(n), -1, 1)
    return X, y


@pytest.mark.parametrize("make", [AdaSSPRegressor, IHMRegressor, FastIHMRegressor])
def test_fits_compose_in_the_outer_ledger_and_the_overspending_fit_is_refused(make):
    X, y = problem(1024)
    led = PrivacyLedger(2.5, 1e-5)
    est = make(epsilon=1.0, delta=1e-6, ledger=led, random_state=0)
    est.fit(X, y)
    est.fit(X, y)
    assert led.total_epsilon == pytest.approx(est.privacy_ledger_.total_epsilon * 2)
    with pytest.raises(BudgetExceededError, match="Nothing was recorded"):
        est.fit(X, y)
    assert led.total_epsilon <= 2.5


def test_clone_and_deepcopy_keep_one_budget():
    led = PrivacyLedger(1.0, 1e-6)
    est = AdaSSPRegressor(epsilon=0.5, delta=1e-7, ledger=led)
    assert clone(est).ledger is led and copy.deepcopy(led) is led and copy.copy(led) is led


def test_a_pickled_ledger_refuses_to_spend():
    led = PrivacyLedger(1.0, 1e-6)
    led.spend("a", 0.1)
    restored = pickle.loads(pickle.dumps(led))
    assert restored.total_epsilon == pytest.approx(0.1)  # readable
    with pytest.raises(DetachedLedgerError, match="n_jobs=1"):
        restored.spend("b", 0.1)
    with pytest.raises(DetachedLedgerError):
        restored.spend_all([("b", 0.1)])
    led.spend("b", 0.1)  # the original still spends


def test_grid_search_cv_cannot_overspend_an_outer_ledger():
    X, y = problem(2048)
    led = PrivacyLedger(5.0, 1e-4)
    search = GridSearchCV(
        AdaSSPRegressor(epsilon=1.0, delta=1e-6, ledger=led, random_state=0),
        {"rho": [1e-7, 1e-8]},
        cv=3,
        error_score="raise",
    )  # 2 x 3 + 1 fits at eps = 1
    with pytest.raises(BudgetExceededError):
        search.fit(X, y)
    assert led.total_epsilon <= 5.0 * (1 + 1e-12)
    assert len({e.mechanism for e in led.entries}) >= 1


def test_an_unchecked_grid_search_spends_once_per_fit():
    """What the module docstring warns about: without an outer ledger nothing stops G F + 1 fits."""
    X, y = problem(2048)
    search = GridSearchCV(AdaSSPRegressor(epsilon=1.0, delta=1e-6, random_state=0), {"rho": [1e-7, 1e-8]}, cv=3).fit(
        X, y
    )
    assert search.best_estimator_.privacy_ledger_.total_epsilon == pytest.approx(1.0)  # each fit's own ledger only


@pytest.mark.filterwarnings("ignore::fastmix._validation.ResponseClippingWarning")  # clip=0.05 clips most y
def test_private_grid_search_stays_within_budget_and_finds_the_good_candidate():
    X, y = problem()
    outer = PrivacyLedger(3.0, 1e-5)
    search = PrivateGridSearch(
        AdaSSPRegressor(y_policy="clip"), {"clip": [0.05, 1.0]}, epsilon=2.0, delta=1e-6, ledger=outer, random_state=0
    ).fit(X, y)
    led = search.privacy_ledger_
    assert led.total_epsilon <= 2.0 * (1 + 1e-12) and led.total_delta <= 1e-6 * (1 + 1e-12)
    assert outer.total_epsilon == pytest.approx(led.total_epsilon)
    assert any("exponential" in e.mechanism for e in led.entries)
    assert search.best_params_ == {"clip": 1.0}
    assert not hasattr(search, "scores_") and not hasattr(search, "cv_results_")
    assert np.abs(search.predict(X)).max() <= 1.0
    # the outer ledger now lacks room for another search: refused before any fit
    with pytest.raises(BudgetExceededError):
        PrivateGridSearch(AdaSSPRegressor(), {"clip": [1.0]}, epsilon=2.0, delta=1e-6, ledger=outer).fit(X, y)
    assert outer.total_epsilon == pytest.approx(led.total_epsilon)


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        ({"selection_share": 1.0}, ValueError, r"selection_share must lie in \(0, 1\); got 1.0"),
        ({"param_grid": {"epsilon": [1.0, 2.0]}}, ValueError, "may not vary"),
        ({"ledger": "budget"}, TypeError, "PrivacyLedger or None; got str"),
    ],
)
def test_private_grid_search_refuses_bad_settings(kwargs, exc, match):
    X, y = problem(256)
    args = dict(estimator=AdaSSPRegressor(), param_grid={"clip": [1.0]}, epsilon=1.0, delta=1e-6)
    args.update(kwargs)
    with pytest.raises(exc, match=match):
        PrivateGridSearch(**args).fit(X, y)


def test_private_grid_search_needs_a_private_estimator():
    from sklearn.linear_model import Ridge

    X, y = problem(256)
    with pytest.raises(TypeError, match="lacks"):
        PrivateGridSearch(Ridge(), {"alpha": [1.0]}, epsilon=1.0, delta=1e-6).fit(X, y)


def kernel_problem(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, (n, 2))
    y = np.clip(np.sin(2.0 * X[:, 0]) + 0.1 * rng.standard_normal(n), -1.0, 1.0)
    return X, y


def test_private_grid_search_over_a_kernel_learner_composes_under_replace_one_within_the_budget():
    X, y = kernel_problem()
    outer = PrivacyLedger(3.0, 1e-4)  # zero-out: takes the replace-one entries, converted at no cost
    search = PrivateGridSearch(
        DPRandomFeatureKRR(n_components=8, response_bound=2.0),
        {"lam": [1e-3, 1e-1], "bandwidth": [0.5, 2.0]},
        epsilon=2.0,
        delta=1e-5,
        ledger=outer,
        random_state=0,
    ).fit(X, y)
    led = search.privacy_ledger_
    assert search.privacy_relation == led.relation == REPLACE_ONE
    assert {e.relation for e in led.entries} == {REPLACE_ONE} and len(led.entries) == 4 * 2 + 1
    assert led.total_epsilon == pytest.approx(2.0) and led.total_epsilon <= 2.0 * (1 + 1e-12)
    assert led.total_delta == pytest.approx(1e-5) and led.total_delta <= 1e-5 * (1 + 1e-12)
    assert [e.relation for e in outer.entries] == [ZERO_OUT] * len(led.entries)
    assert outer.total_epsilon == pytest.approx(led.total_epsilon)
    assert search.clip_ == 2.0  # the kernel learners' own bound, response_bound
    assert search.non_private_options() == ()
    best = search.best_estimator_
    assert isinstance(best, DPRandomFeatureKRR) and best.get_params()["lam"] == search.best_params_["lam"]
    assert not hasattr(best, "n_responses_clipped_")  # nothing unreleased on the published model
    assert np.abs(search.predict(X)).max() <= 2.0
    record = pipeline_privacy_record(search)  # the search composes as one of the package's private estimators
    assert record["private_end_to_end"] and record["relation"] == REPLACE_ONE


def test_a_grid_with_a_non_private_candidate_is_refused_before_the_data_are_touched():
    outer = PrivacyLedger(5.0, 1e-4, relation=REPLACE_ONE)
    search = PrivateGridSearch(
        DPRandomProjectionKRR(kernel="linear", n_components=3),
        {"row_norm_policy": ["clip", "rescale"]},
        epsilon=1.0,
        delta=1e-5,
        ledger=outer,
    )
    (reason,) = search.non_private_options()
    assert reason.startswith("candidate {'row_norm_policy': 'rescale'}: row_norm_policy='rescale'")
    pattern = r"candidate \{'row_norm_policy': 'rescale'\} of DPRandomProjectionKRR is not differentially private"
    with pytest.raises(ValueError, match=pattern + r": row_norm_policy='rescale' with the linear kernel"):
        search.fit(Untouchable(), Untouchable())
    assert outer.entries == ()


def test_a_least_squares_candidate_with_a_data_dependent_rescaling_is_refused_before_the_data_are_touched():
    search = PrivateGridSearch(AdaSSPRegressor(), {"y_policy": ["clip", "rescale"]}, epsilon=1.0, delta=1e-6)
    assert search.privacy_relation == ZERO_OUT
    with pytest.raises(
        ValueError, match=r"candidate \{'y_policy': 'rescale'\} of AdaSSPRegressor .*y_policy='rescale'"
    ):
        search.fit(Untouchable(), Untouchable())


@pytest.mark.parametrize(
    "estimator, grid",
    [
        (DPRandomFeatureKRR(keep_unreleased=True), {"lam": [0.1]}),
        (DPRandomFeatureKRR(), {"keep_unreleased": [False, True]}),
        (AdaSSPRegressor(), {"keep_unreleased": [True]}),
    ],
)
def test_a_search_refuses_candidates_that_keep_unreleased_statistics(estimator, grid):
    with pytest.raises(ValueError, match=r"keep_unreleased=True.*publishes best_estimator_"):
        PrivateGridSearch(estimator, grid, epsilon=1.0, delta=1e-5).fit(Untouchable(), Untouchable())


class _WithoutProtocol(BaseEstimator):
    """Has the parameters the search sets but does not list the options that break its guarantee."""

    def __init__(self, epsilon=1.0, delta=1e-5, ledger=None, random_state=None):
        self.epsilon = epsilon
        self.delta = delta
        self.ledger = ledger
        self.random_state = random_state


def test_an_estimator_that_does_not_list_its_non_private_options_is_refused():
    search = PrivateGridSearch(_WithoutProtocol(), {}, epsilon=1.0, delta=1e-5)
    assert "not one of this package's private estimators" in search.non_private_options()[0]
    with pytest.raises(TypeError, match=r"non_private_options\(\); _WithoutProtocol has no such method"):
        PrivateGridSearch(_WithoutProtocol(), {}, epsilon=1.0, delta=1e-5).fit(Untouchable(), Untouchable())


def test_a_classifier_is_refused_before_the_data_are_touched():
    from fastmix.kernels import DPRandomProjectionLogistic

    search = PrivateGridSearch(
        DPRandomProjectionLogistic(classes=[1, 2], n_components=4),
        {"lam": [0.1, 1.0]},
        epsilon=1.0,
        delta=1e-6,
        clip=1.0,
    )
    with pytest.raises(TypeError, match="is a classifier"):
        search.fit(object(), object())


def test_a_search_refuses_an_estimator_with_its_own_ledger_before_the_data_are_touched():
    led = PrivacyLedger(5.0, 1e-4)
    for estimator in (AdaSSPRegressor(ledger=led), DPRandomFeatureKRR(ledger=led)):
        search = PrivateGridSearch(estimator, {"lam": [0.1]}, epsilon=1.0, delta=1e-6)
        with pytest.raises(ValueError, match=r"has ledger= set.*PrivateGridSearch\(ledger=\.\.\.\) instead"):
            search.fit(Untouchable(), Untouchable())
    assert led.entries == ()


def _generators_in_pickle(obj):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyWarning)
        saved = pickled_objects(obj)
    kinds = (np.random.Generator, np.random.BitGenerator, np.random.SeedSequence)
    return [o for o in saved if isinstance(o, kinds)]


def _kernel_search(**kw):
    X, y = kernel_problem(300)
    args = dict(epsilon=4.0, delta=1e-5)
    args.update(kw)
    return PrivateGridSearch(DPRandomFeatureKRR(n_components=6), {"lam": [1e-2, 1.0, 3.0]}, **args).fit(X, y)


def test_a_default_search_keeps_no_generator_and_no_seed_and_may_be_published():
    search = _kernel_search()
    assert search.random_state is None and search.best_estimator_.random_state is None
    assert _generators_in_pickle(search) == []
    assert search.publication_caveats() == ()
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyWarning)
        restored = pickle.loads(pickle.dumps(search))
    X, _ = kernel_problem(20, seed=1)
    np.testing.assert_array_equal(restored.predict(X), search.predict(X))
    with pytest.raises(NotFittedError):
        PrivateGridSearch(DPRandomFeatureKRR(), {}, epsilon=1.0, delta=1e-5).publication_caveats()


def test_a_seeded_search_keeps_its_draws_names_its_seed_and_leaves_no_seed_on_the_chosen_fit():
    seeded = _kernel_search(random_state=np.random.default_rng(4))
    assert isinstance(seeded.random_state, np.random.Generator)  # the search keeps what the user passed
    assert seeded.best_estimator_.random_state is None  # reset after fitting: the chosen fit holds no seed
    # ... but its noise was drawn from the search's seed, and its caveats say so
    (best_caveat,) = seeded.best_estimator_.publication_caveats()
    assert seeded.best_estimator_.seeded_ and "fitted from a seed" in best_caveat
    own, best = seeded.publication_caveats()
    assert own.startswith("PrivateGridSearch was fitted from a seed") and best == best_caveat
    with pytest.warns(PrivacyWarning, match="Pickling a PrivateGridSearch that must not be published"):
        pickle.dumps(seeded)
    # the draws of the committed code: candidate g fitted with the g-th child of the seed, the
    # selection with the last (the chosen indices were recorded from the seeded searches before
    # the candidates' seeds were reset)
    assert [_kernel_search(random_state=s).best_index_ for s in range(3, 11)] == [0, 2, 0, 0, 1, 0, 2, 1]
    children = np.random.default_rng(4).spawn(4)
    X, y = kernel_problem(300)
    refit = DPRandomFeatureKRR(n_components=6, lam=3.0, epsilon=4.0 * 0.9 / 3, delta=1e-5 / 3, random_state=children[2])
    np.testing.assert_array_equal(seeded.best_estimator_.coef_, refit.fit(X, y).coef_)


def test_the_caveats_of_a_search_include_those_of_its_chosen_fit():
    X, y = kernel_problem(200)
    search = PrivateGridSearch(
        DPRandomProjectionKRR(sampler="exact", n_components=4), {"lam": [0.1]}, epsilon=2.0, delta=1e-5
    ).fit(X, y)
    (caveat,) = search.publication_caveats()
    assert "exact path sampler" in caveat and caveat == search.best_estimator_.publication_caveats()[0]
    with pytest.warns(PrivacyWarning, match="Pickling a DPRandomProjectionKRR that must not be published"):
        pickle.dumps(search)  # the chosen fit warns for its own caveats


# -- pipelines and a choice between estimators ------------------------------------------------------


def _table(n=3000, seed=0):
    import pandas as pd

    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"size": rng.uniform(0, 10, n), "kind": rng.choice(["a", "b", "c"], n)})
    y = np.clip(0.08 * frame["size"] + 0.2 * (frame["kind"] == "b") - 0.4 + 0.05 * rng.standard_normal(n), -1, 1)
    return frame, y.to_numpy()


def _encoder():
    from fastmix.preprocessing import BoundedTableEncoder

    return BoundedTableEncoder({"size": (0, 10)}, {"kind": ["a", "b", "c"]})


def _estimator_grid():
    from fastmix.regression import PrivateLinearRegression

    return [
        {"model": [PrivateLinearRegression()]},
        {"model": [DPRandomFeatureKRR(n_components=8)], "model__lam": [0.1, 1.0]},
    ]


def test_a_search_over_a_pipeline_chooses_between_estimators_within_one_budget():
    from sklearn.pipeline import Pipeline

    from fastmix.regression import PrivateLinearRegression

    X, y = _table()
    outer = PrivacyLedger(2.0, 1e-5)
    pipe = Pipeline([("encode", _encoder()), ("model", PrivateLinearRegression())])
    search = PrivateGridSearch(pipe, _estimator_grid(), epsilon=2.0, delta=1e-5, ledger=outer, random_state=3)
    assert search.privacy_relation == ZERO_OUT  # zero-out and replace-one candidates compose under zero-out
    search.fit(X, y)
    assert len(search.candidates_) == 3 and type(search.best_estimator_) is Pipeline
    fits = [e for e in search.privacy_ledger_.entries if "selection" not in e.mechanism]
    assert {e.relation for e in search.privacy_ledger_.entries} == {ZERO_OUT}
    assert any("Gaussian sketches" in e.mechanism for e in fits)  # IHM, the linear learner's solver
    assert any("replace-one guarantee used for zero-out" in e.mechanism for e in fits)  # the kernel learners
    assert search.privacy_ledger_.total_epsilon <= 2.0 * (1 + 1e-12)
    assert outer.total_epsilon == pytest.approx(search.privacy_ledger_.total_epsilon)
    assert np.all(np.abs(search.predict(X)) <= search.clip_)
    assert search.best_estimator_.steps[-1][1].random_state is None  # the chosen fit keeps no seed
    record = pipeline_privacy_record(search)
    assert record["private_end_to_end"] and record["epsilon"] == pytest.approx(2.0, rel=1e-9)


def test_a_kernel_only_grid_keeps_the_replace_one_relation():
    from sklearn.pipeline import Pipeline

    pipe = Pipeline([("encode", _encoder()), ("model", DPRandomFeatureKRR(n_components=8))])
    search = PrivateGridSearch(pipe, {"model__lam": [0.1, 1.0]}, epsilon=2.0, delta=1e-5)
    assert search.privacy_relation == REPLACE_ONE
    search.fit(*_table(1500))
    assert search.privacy_ledger_.relation == REPLACE_ONE


def test_a_default_search_over_a_pipeline_is_publishable_and_certified():
    from sklearn.pipeline import Pipeline, make_pipeline

    X, y = _table(1500)
    pipe = Pipeline([("encode", _encoder()), ("model", DPRandomFeatureKRR(n_components=8))])
    search = PrivateGridSearch(pipe, _estimator_grid(), epsilon=2.0, delta=1e-5).fit(X, y)
    assert search.publication_caveats() == ()
    record = pipeline_privacy_record(make_pipeline(search))
    assert record["private_end_to_end"] and record["publishable"], record
    seeded = PrivateGridSearch(pipe, _estimator_grid(), epsilon=2.0, delta=1e-5, random_state=0).fit(X, y)
    assert not pipeline_privacy_record(seeded)["publishable"]


def test_a_pipeline_with_a_fitted_scaler_is_refused_before_the_data_are_touched():
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    pipe = make_pipeline(StandardScaler(), AdaSSPRegressor())
    with pytest.raises(ValueError, match=r"step 'standardscaler' is fitted to the data"):
        PrivateGridSearch(pipe, {}, epsilon=1.0, delta=1e-6).fit(Untouchable(), Untouchable())


def test_a_step_the_certificate_cannot_prove_is_refused_before_anything_is_released():
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer

    X, y = problem(512)
    outer = PrivacyLedger(5.0, 1e-4)
    pipe = make_pipeline(FunctionTransformer(lambda Z: Z / np.abs(Z).max()), AdaSSPRegressor(row_norm_policy="clip"))
    search = PrivateGridSearch(pipe, {}, epsilon=1.0, delta=1e-6, ledger=outer)
    with pytest.raises(ValueError, match=r"'functiontransformer' is not proven.*Nothing was released"):
        search.fit(X, y)
    assert outer.entries == () and not hasattr(search, "best_estimator_")


def test_a_grid_may_not_set_the_budget_of_a_pipeline_step():
    from sklearn.pipeline import make_pipeline

    pipe = make_pipeline(_encoder(), AdaSSPRegressor())
    with pytest.raises(ValueError, match=r"may not vary \['adasspregressor__epsilon'\]"):
        PrivateGridSearch(pipe, {"adasspregressor__epsilon": [1.0]}, epsilon=1.0, delta=1e-6).fit(
            Untouchable(), Untouchable()
        )


def test_a_bounded_response_candidate_is_scored_on_its_declared_range():
    from sklearn.pipeline import make_pipeline

    from fastmix.preprocessing import BoundedResponseRegressor
    from fastmix.regression import PrivateLinearRegression

    X, y = _table(2000)
    y = 50 + 40 * y  # in [10, 90]
    wrapped = BoundedResponseRegressor(PrivateLinearRegression(), low=0, high=100)
    search = PrivateGridSearch(
        make_pipeline(_encoder(), wrapped),
        {"boundedresponseregressor__regressor__fit_intercept": [True]},
        epsilon=3.0,
        delta=1e-6,
        random_state=1,
    ).fit(X, y)
    assert search.clip_ == 100.0
    fitted = search.best_estimator_.steps[-1][1].regressor_
    assert fitted.random_state is None and search.best_estimator_.steps[-1][1].regressor.random_state is None
    assert np.corrcoef(search.predict(X), y)[0, 1] > 0.5
