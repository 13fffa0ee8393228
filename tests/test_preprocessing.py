"""fastmix.preprocessing: bounding from declarations only, and private pipelines end to end."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from fastmix._validation import ResponseClippingWarning
from fastmix.preprocessing import BoundedResponseRegressor, BoundedTableEncoder, RowNormClipper, pipeline_privacy_record
from fastmix.regression import AdaSSPRegressor, IHMRegressor

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


def _small_xy(n=512, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return X, np.clip(X @ np.linspace(0.1, 0.3, d), -1, 1)


def _adassp(**kw):
    return AdaSSPRegressor(epsilon=5.0, delta=1e-8, random_state=0, row_norm_policy="clip", **kw)


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
