"""Tests for fastmix.regression.front_door: the private regressor that picks its solver from public facts."""

import warnings

import numpy as np
import pytest

from fastmix import regression as R
from fastmix.regression import front_door as F


def _data(n=20_000, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-0.5, 0.5, (n, d)) / np.sqrt(d)
    y = np.clip(X @ np.linspace(1.0, -1.0, d) + 0.1 * rng.standard_normal(n), -1, 1)
    return X, y


def test_auto_fits_ihm_through_the_gram_factor_and_says_why():
    X, y = _data()
    model = R.PrivateLinearRegression(epsilon=1.0, delta=1e-6, random_state=3).fit(X, y)
    same = R.IHMRegressor(epsilon=1.0, delta=1e-6, sketch="gram", random_state=3).fit(X, y)
    assert model.solver_ == "ihm" and "Gram factor" in model.solver_reason_
    np.testing.assert_array_equal(model.coef_, same.coef_)
    assert model.intercept_ == same.intercept_ and model.predict(X[:5]).tolist() == same.predict(X[:5]).tolist()
    # the choice spends nothing: the ledger is the solver's, entry for entry, within the target
    assert [e.mechanism for e in model.privacy_ledger_.entries] == [e.mechanism for e in same.privacy_ledger_.entries]
    assert model.privacy_ledger_.total_epsilon <= 1.0 + 1e-12
    assert model.score(X, y) == pytest.approx(same.score(X, y))


@pytest.mark.parametrize(
    ("solver", "kind"), [("ihm", R.IHMRegressor), ("fast_ihm", R.FastIHMRegressor), ("adassp", R.AdaSSPRegressor)]
)
def test_a_named_solver_is_used_and_recorded_as_named(solver, kind):
    X, y = _data(n=2**14)
    model = R.PrivateLinearRegression(epsilon=2.0, delta=1e-6, solver=solver, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", R.NoiseDominatesWarning)  # FastIHM at this size says its noise dominates
        model.fit(X, y)
    assert type(model.estimator_) is kind and model.solver_ == solver and model.solver_reason_.endswith("by the caller")


def test_the_rule_reads_only_public_facts(monkeypatch):
    seen = []

    def spy(n, d, epsilon, delta):
        seen.append((n, d, epsilon, delta))
        return F.SolverChoice("ihm", "spy")

    monkeypatch.setattr(F, "choose_solver", spy)
    for data in (_data(n=5000, seed=1), _data(n=5000, seed=2)):  # other records, same shape: same choice
        R.PrivateLinearRegression(epsilon=1.0, delta=1e-6, random_state=0).fit(*data)
    assert seen == [(5000, 4, 1.0, 1e-6)] * 2  # n, d with the intercept, epsilon, delta: numbers only
    assert all(isinstance(v, (int, float)) for call in seen for v in call)


def test_choose_solver_refuses_what_it_cannot_judge():
    assert F.choose_solver(10_000, 5, 1.0, 1e-8).solver in F.SOLVERS
    with pytest.raises(ValueError, match="n must be a positive integer"):
        F.choose_solver(0, 5, 1.0, 1e-8)
    with pytest.raises(ValueError, match="epsilon"):
        F.choose_solver(100, 5, -1.0, 1e-8)
    with pytest.raises(ValueError, match="solver must be 'auto' or one of"):
        R.PrivateLinearRegression(solver="ols").fit(*_data(n=1000))


def test_the_pipeline_certificate_recognises_it():
    import pandas as pd
    from sklearn.pipeline import make_pipeline

    from fastmix.preprocessing import BoundedTableEncoder, pipeline_privacy_record

    rng = np.random.default_rng(0)
    table = pd.DataFrame({"a": rng.uniform(0, 10, 5000), "c": rng.choice(["x", "y"], 5000)})
    y = np.clip(table["a"].to_numpy() / 10 - 0.5, -1, 1)
    pipe = make_pipeline(
        BoundedTableEncoder({"a": (0, 10)}, {"c": ["x", "y"]}), R.PrivateLinearRegression(epsilon=1.0, delta=1e-6)
    ).fit(table, y)
    record = pipeline_privacy_record(pipe)
    assert record["private_end_to_end"] and record["estimator_private"], record
