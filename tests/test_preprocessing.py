"""fastmix.preprocessing: bounding from declarations only, and private pipelines end to end."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.compose import ColumnTransformer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, OneHotEncoder, StandardScaler

from fastmix._validation import NotPrivateWarning, ResponseClippingWarning
from fastmix.kernels import DPRandomFeatureKRR, DPRandomProjectionKRR
from fastmix.model_selection import PrivateGridSearch
from fastmix.preprocessing import (
    DATA_DEPENDENT,
    DATA_INDEPENDENT,
    NOT_PRIVATE,
    PRIVATE,
    UNKNOWN,
    BoundedResponseRegressor,
    BoundedTableEncoder,
    RowNormClipper,
    pipeline_privacy_record,
)
from fastmix.regression import AdaSSPRegressor, FastIHMRegressor, IHMRegressor

REGIONS = [f"r{i}" for i in range(8)]
DAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
RANGES = {"age": (18, 90), "income": (0, 200_000)}
CATS = {"region": REGIONS, "day": DAYS}


def raw_table(n=8192, seed=0):
    """A public-style table: two numeric and two categorical columns, y with an offset."""
    rng = np.random.default_rng(seed)
    t = pd.DataFrame(
        {
            "age": rng.uniform(18, 90, n),
            "income": rng.gamma(2.0, 20_000, n),
            "region": rng.choice(REGIONS, n),
            "day": rng.choice(DAYS, n),
        }
    )
    effect = dict(zip(REGIONS, np.linspace(-8, 8, len(REGIONS)), strict=True))
    y = (
        50
        + 0.3 * (t["age"] - 54)
        + 4e-5 * (t["income"] - 40_000)
        + t["region"].map(effect)
        + 2.0 * (t["day"] == "sat")
        + rng.normal(0, 2, n)
    )
    return t, np.clip(y.to_numpy(), 0, 100)


def test_rows_meet_the_tight_bound_and_a_corner_row_attains_it():
    t, _ = raw_table(512)
    corner = pd.DataFrame({"age": [90.0], "income": [0.0], "region": ["r3"], "day": ["sun"]})
    enc = BoundedTableEncoder(RANGES, CATS).fit(t)
    Z = enc.transform(pd.concat([t, corner], ignore_index=True))
    norms = np.linalg.norm(Z, axis=1)
    assert norms.max() <= 1.0 + 1e-12
    assert norms[-1] == pytest.approx(1.0)  # tight: one active column per one-hot block
    assert enc.divisor_ == pytest.approx(2.0)  # sqrt(2 numeric + 2 categorical), not sqrt(2 + 15 columns)
    assert Z.shape[1] == 2 + len(REGIONS) + len(DAYS) == len(enc.get_feature_names_out())


def test_values_outside_the_declarations_are_clipped_or_zero_and_counted_only_on_request():
    t = pd.DataFrame(
        {
            "age": [10.0, 50.0, 120.0],
            "income": [1.0, 2.0, 3.0],
            "region": ["r0", "mars", "r1"],
            "day": ["mon", "mon", "mon"],
        }
    )
    enc = BoundedTableEncoder(RANGES, CATS).fit(t)
    assert not hasattr(enc, "n_clipped_")  # a count over the private records: not kept by default
    kept = BoundedTableEncoder(RANGES, CATS, keep_unreleased=True).fit(t)
    assert kept.n_clipped_ == {"age": 2, "income": 0, "region": 1, "day": 0}
    assert not hasattr(kept.set_params(keep_unreleased=False).fit(t), "n_clipped_")  # a refit drops it
    Z = enc.transform(t)
    np.testing.assert_array_equal(Z, kept.transform(t))
    assert Z[0, 0] == pytest.approx(-1 / 2) and Z[2, 0] == pytest.approx(1 / 2)  # clipped to the range ends
    assert Z[1, 2 : 2 + len(REGIONS)].sum() == 0.0  # unknown category: all zeros


def test_the_encoder_learns_nothing_from_the_data():
    a, _ = raw_table(300, seed=1)
    b, _ = raw_table(300, seed=2)
    probe, _ = raw_table(50, seed=3)
    np.testing.assert_array_equal(
        BoundedTableEncoder(RANGES, CATS).fit(a).transform(probe),
        BoundedTableEncoder(RANGES, CATS).fit(b).transform(probe),
    )


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        ({}, ValueError, "declare at least one column"),
        ({"numeric_ranges": {"age": (5, 5)}}, ValueError, r"low < high.*\(5.0, 5.0\)"),
        ({"numeric_ranges": {"age": 3}}, TypeError, "must be a pair"),
        ({"categories": {"day": []}}, ValueError, "is empty"),
        ({"numeric_ranges": {"day": (0, 1)}, "categories": {"day": DAYS}}, ValueError, "both numeric and categorical"),
        ({"numeric_ranges": {"height": (0, 3)}}, ValueError, r"no column\(s\) \['height'\]"),
        ({"numeric_ranges": {"region": (0, 1)}}, TypeError, "non-numeric values"),
    ],
)
def test_bad_declarations_are_clear_errors(kwargs, exc, match):
    t, _ = raw_table(20)
    with pytest.raises(exc, match=match):
        BoundedTableEncoder(**kwargs).fit(t)


def test_row_norm_clipper():
    X = np.array([[3.0, 4.0], [0.3, 0.4], [0.0, 0.0], [1e200, 1e200]])
    c = RowNormClipper(1.0).fit(X)
    assert not hasattr(c, "n_clipped_")
    assert RowNormClipper(1.0, keep_unreleased=True).fit(X).n_clipped_ == 2
    Z = c.transform(X)
    np.testing.assert_allclose(np.linalg.norm(Z, axis=1), [1.0, 0.5, 0.0, 1.0])
    np.testing.assert_array_equal(Z[1], X[1])
    with pytest.raises(ValueError, match="max_norm"):
        RowNormClipper(0.0).fit(X)


def _private_pipeline(pre, eps=5.0, seed=0):
    return make_pipeline(
        pre, BoundedResponseRegressor(IHMRegressor(epsilon=eps, delta=1e-8, random_state=seed), low=0, high=100)
    )


def test_a_raw_table_to_a_private_fit_with_intercept_within_the_ledger():
    t, y = raw_table()
    test, y_test = raw_table(2000, seed=9)
    pipe = _private_pipeline(BoundedTableEncoder(RANGES, CATS)).fit(t, y)
    reg = pipe[-1]
    assert reg.privacy_ledger_.total_epsilon <= 5.0 * (1 + 1e-12)
    assert reg.privacy_ledger_.total_delta <= 1e-8 * (1 + 1e-12)
    assert reg.regressor_.fit_intercept and reg.regressor_.intercept_ != 0.0
    record = pipeline_privacy_record(pipe)
    assert record["private_end_to_end"] and all(ok for _, ok, _ in record["steps"])
    mse = np.mean((pipe.predict(test) - y_test) ** 2)
    assert mse < np.var(y_test)  # better than predicting the mean of the test responses


def test_a_data_dependent_step_is_recorded_as_such():
    t, y = raw_table(1024)
    num = t[["age", "income"]].to_numpy()
    pipe = make_pipeline(
        StandardScaler(),
        RowNormClipper(),
        BoundedResponseRegressor(AdaSSPRegressor(epsilon=5.0, delta=1e-8, random_state=0), low=0, high=100),
    ).fit(num, y)
    record = pipeline_privacy_record(pipe)
    assert not record["private_end_to_end"] and record["estimator_private"]
    assert record["steps"][0][:2] == ("standardscaler", False)
    assert record["verdicts"]["standardscaler"] == DATA_DEPENDENT
    auto = make_pipeline(
        OneHotEncoder(sparse_output=False),
        AdaSSPRegressor(epsilon=5.0, delta=1e-8, random_state=0, row_norm_policy="clip"),
    )
    auto.fit(t[["day"]], y / 100)
    assert "categories='auto'" in pipeline_privacy_record(auto)["steps"][0][2]
    declared = make_pipeline(
        OneHotEncoder(categories=[DAYS], sparse_output=False),
        AdaSSPRegressor(epsilon=5.0, delta=1e-8, random_state=0, row_norm_policy="clip"),
    ).fit(t[["day"]], y / 100)
    assert pipeline_privacy_record(declared)["private_end_to_end"]


def test_the_tight_bound_beats_dividing_by_the_number_of_columns():
    """Dividing each row by sqrt(number of output columns) also meets the bound but shrinks the signal."""
    from sklearn.preprocessing import FunctionTransformer

    t, y = raw_table()
    test, y_test = raw_table(2000, seed=9)
    tight = BoundedTableEncoder(RANGES, CATS)
    width = 2 + len(REGIONS) + len(DAYS)
    naive = make_pipeline(
        BoundedTableEncoder(RANGES, CATS, max_norm=2.0), FunctionTransformer(lambda Z: Z / np.sqrt(width))
    )
    errors = {}
    for name, pre in (("tight", tight), ("naive", naive)):
        e = [np.mean((_private_pipeline(pre, seed=s).fit(t, y).predict(test) - y_test) ** 2) for s in range(5)]
        errors[name] = float(np.mean(e))
    assert errors["tight"] < errors["naive"], errors


# -- the certificate: only what it can prove ---------------------------------------------------


def _small_xy(n=512, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return X, np.clip(X @ np.linspace(0.1, 0.3, d), -1, 1)


def _adassp(**kw):
    return AdaSSPRegressor(epsilon=5.0, delta=1e-8, random_state=0, row_norm_policy="clip", **kw)


def test_a_function_transformer_is_unknown_and_not_certified():
    X, y = _small_xy()
    by_largest_norm = FunctionTransformer(lambda Z: Z / np.linalg.norm(Z, axis=1).max())
    record = pipeline_privacy_record(make_pipeline(by_largest_norm, _adassp()).fit(X, y))
    assert record["verdicts"]["functiontransformer"] == UNKNOWN
    assert record["estimator_private"] and not record["private_end_to_end"]
    assert "RowNormClipper" in record["steps"][0][2]  # says what would make it provable


def test_a_column_transformer_with_a_fitted_remainder_is_not_certified():
    t, y = raw_table(256)
    ct = ColumnTransformer(
        [("day", OneHotEncoder(categories=[DAYS], sparse_output=False), ["day"])], remainder=StandardScaler()
    )
    record = pipeline_privacy_record(make_pipeline(ct, RowNormClipper(), _adassp()).fit(t[["day", "age"]], y / 100))
    assert record["verdicts"]["columntransformer"] == DATA_DEPENDENT
    assert "remainder" in record["steps"][0][2] and not record["private_end_to_end"]


def test_a_column_transformer_of_declared_parts_is_certified():
    t, y = raw_table(256)
    ct = ColumnTransformer([("day", OneHotEncoder(categories=[DAYS], sparse_output=False), ["day"])], remainder="drop")
    record = pipeline_privacy_record(make_pipeline(ct, _adassp()).fit(t[["day", "age"]], y / 100))
    assert record["verdicts"]["columntransformer"] == DATA_INDEPENDENT and record["private_end_to_end"]


def test_one_hot_with_frequency_rules_is_not_certified():
    t, y = raw_table(256)
    enc = OneHotEncoder(categories=[DAYS], min_frequency=2, sparse_output=False)
    record = pipeline_privacy_record(make_pipeline(enc, _adassp()).fit(t[["day"]], y / 100))
    assert record["verdicts"]["onehotencoder"] == DATA_DEPENDENT and not record["private_end_to_end"]
    assert "min_frequency=2" in record["steps"][0][2]


@pytest.mark.parametrize("drop", [None, "first", np.array(["sun"])])
def test_one_hot_over_declared_categories_is_certified(drop):
    t, y = raw_table(256)
    enc = OneHotEncoder(categories=[DAYS], drop=drop, sparse_output=False)
    record = pipeline_privacy_record(make_pipeline(enc, _adassp()).fit(t[["day"]], y / 100))
    assert record["verdicts"]["onehotencoder"] == DATA_INDEPENDENT and record["private_end_to_end"]


def test_a_nested_pipeline_is_inspected():
    X, y = _small_xy()
    inner = make_pipeline(RowNormClipper(2.0), StandardScaler())
    record = pipeline_privacy_record(make_pipeline(inner, RowNormClipper(), _adassp()).fit(X, y))
    assert record["verdicts"]["pipeline"] == DATA_DEPENDENT and not record["private_end_to_end"]
    assert "standardscaler" in record["steps"][0][2]


def test_a_class_claiming_data_independence_is_not_trusted():
    class Claims(TransformerMixin, BaseEstimator):
        data_independent = True

        def fit(self, X, y=None):
            self.scale_ = np.abs(X).max()
            return self

        def transform(self, X):
            return X / self.scale_

    X, y = _small_xy()
    record = pipeline_privacy_record(make_pipeline(Claims(), _adassp()).fit(X, y))
    assert record["verdicts"]["claims"] == UNKNOWN and not record["private_end_to_end"]


def test_a_private_pipeline_is_certified_with_its_guarantee():
    t, y = raw_table(1024)
    reg = FastIHMRegressor(epsilon=3.0, delta=1e-8, random_state=0)
    pipe = make_pipeline(BoundedTableEncoder(RANGES, CATS), BoundedResponseRegressor(reg, 0, 100)).fit(t, y)
    record = pipeline_privacy_record(pipe)
    ledger = pipe[-1].privacy_ledger_
    assert record["private_end_to_end"] and record["verdicts"]["boundedresponseregressor"] == PRIVATE
    assert record["epsilon"] == ledger.total_epsilon and 0 < record["epsilon"] <= 3.0 * (1 + 1e-12)
    assert record["delta"] == ledger.total_delta and 0 < record["delta"] <= 1e-8
    assert record["relation"] == "zero-out"


def test_a_rescaling_estimator_is_not_certified():
    X, y = _small_xy()
    with pytest.warns(NotPrivateWarning):
        pipe = make_pipeline(
            RowNormClipper(), FastIHMRegressor(epsilon=3.0, delta=1e-8, random_state=0, row_norm_policy="rescale")
        ).fit(X, y)
    record = pipeline_privacy_record(pipe)
    assert record["verdicts"]["fastihmregressor"] == NOT_PRIVATE
    assert not record["estimator_private"] and not record["private_end_to_end"]
    assert record["epsilon"] is None and record["relation"] is None


def test_a_foreign_estimator_is_unknown():
    from sklearn.linear_model import LinearRegression

    X, y = _small_xy()
    record = pipeline_privacy_record(make_pipeline(RowNormClipper(), LinearRegression()).fit(X, y))
    assert record["verdicts"]["linearregression"] == UNKNOWN and not record["private_end_to_end"]


def test_a_private_grid_search_is_recognised():
    X, y = _small_xy()
    search = PrivateGridSearch(
        AdaSSPRegressor(row_norm_policy="clip"), {"fit_intercept": [True, False]}, epsilon=2.0, delta=1e-8
    )
    record = pipeline_privacy_record(make_pipeline(RowNormClipper(), search).fit(X, y))
    assert record["verdicts"]["privategridsearch"] == PRIVATE and record["private_end_to_end"]
    assert record["epsilon"] == pytest.approx(2.0) and record["relation"] == "zero-out"


def test_the_response_wrapper_warns_when_it_clips_and_counts_only_on_request():
    X, y = _small_xy(200)
    y = 50 + 10 * y
    y[:5] = 500.0
    with pytest.warns(ResponseClippingWarning, match=r"5 of 200 responses \(2\.5%\)"):
        reg = BoundedResponseRegressor(_adassp(), 0, 100).fit(X, y)
    assert not hasattr(reg, "n_clipped_")
    with pytest.warns(ResponseClippingWarning):
        assert BoundedResponseRegressor(_adassp(), 0, 100, keep_unreleased=True).fit(X, y).n_clipped_ == 5
    with warnings.catch_warnings():
        warnings.simplefilter("error", ResponseClippingWarning)
        BoundedResponseRegressor(_adassp(), 0, 100).fit(X, np.clip(y, 0, 100))  # nothing clipped: no warning


# -- the certificate reads what was fitted, and says whether the fitted object may be published ---


def _one_record(pipe):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResponseClippingWarning)
        return pipeline_privacy_record(pipe)


def _default_adassp(**kw):
    """A private estimator at its defaults for publication: random_state=None, keep_unreleased=False."""
    return AdaSSPRegressor(epsilon=5.0, delta=1e-8, row_norm_policy="clip", **kw)


@pytest.mark.parametrize(
    "estimator",
    [
        lambda: _default_adassp(),
        lambda: BoundedResponseRegressor(FastIHMRegressor(epsilon=3.0, delta=1e-8), -1, 1),
        lambda: DPRandomFeatureKRR(epsilon=2.0, delta=1e-5, n_components=5),
        lambda: DPRandomProjectionKRR(epsilon=2.0, delta=1e-5, n_components=5, sampler="approximate"),
        lambda: PrivateGridSearch(_default_adassp(), {"fit_intercept": [True, False]}, epsilon=2.0, delta=1e-8),
    ],
    ids=["adassp", "bounded-response", "random-features", "random-projection-approximate", "grid-search"],
)
def test_a_default_private_pipeline_is_publishable(estimator):
    X, y = _small_xy(256)
    record = pipeline_privacy_record(make_pipeline(RowNormClipper(), estimator()).fit(X, y))
    assert record["private_end_to_end"] and record["publishable"]
    assert record["publication_caveats"] == []


@pytest.mark.parametrize(
    "pipe, step, words",
    [
        (
            lambda: make_pipeline(
                RowNormClipper(), BoundedResponseRegressor(_default_adassp(), -1, 1, keep_unreleased=True)
            ),
            "boundedresponseregressor",
            "n_clipped_",
        ),
        (
            lambda: make_pipeline(RowNormClipper(), _default_adassp(keep_unreleased=True)),
            "adasspregressor",
            "keep_unreleased=True",
        ),
        (
            lambda: make_pipeline(RowNormClipper(), BoundedResponseRegressor(_adassp(), -1, 1)),
            "boundedresponseregressor",
            "random_state",
        ),
        (
            lambda: make_pipeline(
                ColumnTransformer([("num", RowNormClipper(keep_unreleased=True), [0, 1, 2])]), _default_adassp()
            ),
            "columntransformer/num",
            "n_clipped_",
        ),
        (
            lambda: make_pipeline(
                RowNormClipper(), DPRandomProjectionKRR(epsilon=2.0, delta=1e-5, n_components=5, sampler="exact")
            ),
            "dprandomprojectionkrr",
            "feature_map_",
        ),
    ],
    ids=["wrapper-keeps-count", "estimator-keeps-unreleased", "seeded", "transformer-keeps-count", "exact-sampler"],
)
def test_a_private_pipeline_that_holds_more_than_its_outputs_is_not_publishable(pipe, step, words):
    X, y = _small_xy(256)
    record = _one_record(pipe().fit(X, y))
    assert record["private_end_to_end"]  # the outputs are private
    assert not record["publishable"]  # the fitted object is not
    named = [c for c in record["publication_caveats"] if c.startswith(f"{step}: ")]
    assert named and any(words in c for c in named), record["publication_caveats"]


def test_an_estimator_without_publication_caveats_is_checked_by_the_certificate(monkeypatch):
    X, y = _small_xy(256)
    pipe = make_pipeline(RowNormClipper(), _adassp()).fit(X, y)  # seeded
    owner = next(c for c in type(pipe[-1]).__mro__ if "publication_caveats" in vars(c))
    monkeypatch.delattr(owner, "publication_caveats")
    assert not hasattr(pipe[-1], "publication_caveats")
    record = pipeline_privacy_record(pipe)
    assert record["private_end_to_end"] and not record["publishable"]
    assert any(c.startswith("adasspregressor: ") and "random_state=0" in c for c in record["publication_caveats"])


def test_a_random_generator_kept_by_the_fitted_estimator_is_a_caveat():
    X, y = _small_xy(256)
    pipe = make_pipeline(RowNormClipper(), _default_adassp()).fit(X, y)
    pipe[-1].sampler_state_ = {"draws": np.random.default_rng()}
    record = pipeline_privacy_record(pipe)
    assert record["private_end_to_end"] and not record["publishable"]
    assert any("sampler_state_['draws']" in c for c in record["publication_caveats"])


def test_a_not_private_pipeline_is_not_publishable_whatever_its_caveats():
    X, y = _small_xy(256)
    record = pipeline_privacy_record(make_pipeline(StandardScaler(), RowNormClipper(), _default_adassp()).fit(X, y))
    assert record["publication_caveats"] == [] and not record["publishable"]


def test_one_hot_categories_declared_after_fitting_are_not_certified():
    t, y = raw_table(256)
    pipe = make_pipeline(OneHotEncoder(sparse_output=False), _adassp()).fit(t[["day"]], y / 100)
    pipe.set_params(onehotencoder__categories=[DAYS])  # the fit learned them from the data
    record = pipeline_privacy_record(pipe)
    assert record["verdicts"]["onehotencoder"] == DATA_DEPENDENT and not record["private_end_to_end"]
    assert "fitted categories differ from the declared ones" in record["steps"][0][2]


def test_one_hot_frequency_rules_removed_after_fitting_are_not_certified():
    t, y = raw_table(256)
    enc = OneHotEncoder(categories=[DAYS], min_frequency=2, sparse_output=False)
    pipe = make_pipeline(enc, _adassp()).fit(t[["day"]], y / 100)
    pipe.set_params(onehotencoder__min_frequency=None)
    record = pipeline_privacy_record(pipe)
    assert record["verdicts"]["onehotencoder"] == DATA_DEPENDENT and not record["private_end_to_end"]


def test_a_column_transformer_is_judged_by_what_it_fitted():
    t, y = raw_table(256)
    ct = ColumnTransformer([("num", StandardScaler(), ["age", "income"])])
    pipe = make_pipeline(ct, RowNormClipper(), _adassp()).fit(t, y / 100)
    ct.set_params(transformers=[("num", RowNormClipper(), ["age", "income"])])  # transformers_ still hold the scaler
    record = pipeline_privacy_record(pipe)
    assert record["verdicts"]["columntransformer"] == DATA_DEPENDENT and not record["private_end_to_end"]
    assert "StandardScaler" in record["steps"][0][2]


@pytest.mark.parametrize(
    "pre, change",
    [
        (lambda: RowNormClipper(1.0), {"max_norm": 2.0}),
        (lambda: BoundedTableEncoder({"age": (18, 90)}, {"day": DAYS}), {"numeric_ranges": {"age": (0, 120)}}),
        (lambda: BoundedTableEncoder({"age": (18, 90)}, {"day": DAYS}), {"categories": {"day": DAYS[:3]}}),
        (lambda: BoundedTableEncoder({"age": (18, 90)}, {"day": DAYS}), {"max_norm": 0.5}),
    ],
    ids=["clipper-bound", "encoder-range", "encoder-categories", "encoder-bound"],
)
def test_declarations_changed_after_fitting_are_not_certified(pre, change):
    t, y = raw_table(256)
    X = t[["age", "day"]] if isinstance(pre(), BoundedTableEncoder) else t[["age", "income"]].to_numpy() / 1e5
    pipe = make_pipeline(pre(), _adassp()).fit(X, y / 100)
    assert pipeline_privacy_record(pipe)["private_end_to_end"]
    pipe[0].set_params(**change)
    record = pipeline_privacy_record(pipe)
    assert record["verdicts"][pipe.steps[0][0]] == UNKNOWN and not record["private_end_to_end"]
    assert "fitted declarations differ" in record["steps"][0][2]


def test_a_step_replaced_by_an_unfitted_one_is_not_certified():
    X, y = _small_xy()
    pipe = make_pipeline(RowNormClipper(), _adassp()).fit(X, y)
    pipe.set_params(rownormclipper=RowNormClipper())
    record = pipeline_privacy_record(pipe)
    assert record["verdicts"]["rownormclipper"] == UNKNOWN and "not fitted" in record["steps"][0][2]


def test_the_clipper_applies_the_bound_it_was_fitted_with():
    X = np.array([[3.0, 4.0]])
    clipper = RowNormClipper(1.0).fit(X).set_params(max_norm=2.0)
    np.testing.assert_allclose(np.linalg.norm(clipper.transform(X), axis=1), [1.0])
    np.testing.assert_allclose(np.linalg.norm(clipper.fit(X).transform(X), axis=1), [2.0])


def test_an_unfitted_pipeline_gets_a_record_not_an_error():
    pipe = make_pipeline(RowNormClipper(), DPRandomFeatureKRR(epsilon=2.0, delta=1e-5, n_components=5))
    record = pipeline_privacy_record(pipe)
    assert set(record["verdicts"].values()) == {UNKNOWN}
    assert not record["private_end_to_end"] and not record["publishable"]


def test_a_column_transformer_whose_output_density_decides_sparse_or_dense_is_not_certified():
    import pandas as pd
    from sklearn.compose import ColumnTransformer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder

    from fastmix.regression import AdaSSPRegressor

    rng = np.random.default_rng(0)
    table = pd.DataFrame({"c": rng.choice(["a", "b"], 400)})
    y = np.where(table["c"] == "b", 0.5, -0.5)

    def pipe(**ct):
        enc = OneHotEncoder(categories=[["a", "b"]], drop="first", sparse_output=ct.pop("sparse_output", True))
        return make_pipeline(ColumnTransformer([("c", enc, ["c"])], **ct), AdaSSPRegressor(epsilon=1.0, delta=1e-6))

    risky = pipe(sparse_threshold=0.3).fit(table, y)  # dense here only because half the records are 'b'
    record = pipeline_privacy_record(risky)
    assert not record["private_end_to_end"] and "sparse_threshold" in str(record["steps"])
    for safe in (pipe(sparse_threshold=0.0), pipe(sparse_output=False)):
        assert pipeline_privacy_record(safe.fit(table, y))["private_end_to_end"]


def test_a_bounding_tool_that_kept_its_counts_warns_when_pickled():
    import pickle
    import warnings

    from fastmix._validation import PrivacyWarning

    X = np.random.default_rng(1).standard_normal((50, 3))
    kept = RowNormClipper(keep_unreleased=True).fit(X)
    with pytest.warns(PrivacyWarning, match="RowNormClipper was fitted with keep_unreleased=True"):
        pickle.dumps(kept)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyWarning)
        pickle.dumps(RowNormClipper().fit(X))  # the default keeps no count: quiet
        pickle.dumps(RowNormClipper(keep_unreleased=True))  # unfitted: nothing to publish
