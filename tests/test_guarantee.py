"""What the private regressors' guarantee covers: the relation, the options that break it, what a fitted model holds.

The guarantee is stated for zero-out neighbours of the *records*: one record absent, i.e. its
whole row of the matrix the solver sees (encoded features, intercept coordinate, response) set to
zero. The tests below derive, for a record and its neighbour under that relation, the change of
every release each estimator makes, intercept and a data-independent encoder included, and hold it
against the sensitivity its calibration pays for (read from its ledger entries).
"""

import math
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from privacy_probes import pickled_objects
from sklearn.base import clone

from fastmix import accounting as acc
from fastmix._validation import NotPrivateWarning, PrivacyWarning, ResponseClippingWarning
from fastmix.preprocessing import BoundedTableEncoder
from fastmix.regression import AdaSSPRegressor, FastIHMRegressor, IHMRegressor, fast_ihm
from fastmix.regression import estimators as est_module
from fastmix.regression.result import _clipped_gradient
from fastmix.srht import SRHT, sketch_quantities

PRIVATE = (FastIHMRegressor, IHMRegressor, AdaSSPRegressor)
ENCODER = BoundedTableEncoder(
    numeric_ranges={"age": (18, 90), "income": (0, 200_000)}, categories={"city": ["north", "south", "east"]}
)
Y_RANGE = (0.0, 100.0)  # declared range of the raw response, mapped to [-1, 1]


def raw_records(n=256, seed=0):
    """A raw table (two numeric columns, one categorical) and a raw response in its declared range."""
    rng = np.random.default_rng(seed)
    table = pd.DataFrame(
        {
            "age": rng.uniform(18, 90, n),
            "income": rng.uniform(0, 200_000, n),
            "city": rng.choice(["north", "south", "east"], n),
        }
    )
    y = np.clip(20 + 0.6 * table["age"].to_numpy() + 10 * rng.standard_normal(n), *Y_RANGE)
    return table, y


def solver_matrix(estimator, table, y):
    """The matrix the solver sees: encoded features with the intercept coordinate, and the mapped response."""
    Z = clone(ENCODER).fit(table).transform(table)
    Xa, _, _ = estimator._augment(Z)
    lo, hi = Y_RANGE
    return Xa, (y - (lo + hi) / 2) / ((hi - lo) / 2)


def neighbour(Xa, ya, i):
    """Zero-out neighbour under the stated relation: record i absent, its whole row zero (n unchanged)."""
    Xb, yb = Xa.copy(), ya.copy()
    Xb[i] = 0.0
    yb[i] = 0.0
    return Xb, yb


def sensitivity(ledger, mechanism_prefix):
    (entry,) = [e for e in ledger.entries if e.mechanism.startswith(mechanism_prefix)]
    return float(dict(entry.details)["sensitivity"])


def fitted(make, table, y, **kw):
    lo, hi = Y_RANGE
    Xa_raw = clone(ENCODER).fit(table).transform(table)
    ym = (y - (lo + hi) / 2) / ((hi - lo) / 2)
    return make(epsilon=1.0, delta=1e-6, random_state=0, **kw).fit(Xa_raw, ym)


def thetas(d, xi, rng):
    """Parameters at which to evaluate the gradient: random at several scales, and ones that saturate the clip."""
    out = [s * rng.standard_normal(d) for s in (0.1, 1.0, 10.0, 1e3) for _ in range(5)]
    out += [s * xi / max(np.dot(xi, xi), 1e-300) for s in (-1e3, 1e3)]
    return out


@pytest.mark.parametrize("make", PRIVATE)
def test_removing_a_record_zeroes_exactly_its_row_of_the_solver_matrix(make):
    """The per-record maps (encoder, intercept, response) send D minus record i to D's matrix without row i."""
    table, y = raw_records()
    est = make()
    Xa, ya = solver_matrix(est, table, y)
    assert np.all(np.linalg.norm(Xa, axis=1) <= 1 + 1e-12) and np.all(np.abs(ya) <= 1)
    for i in (0, 17, 255):
        rest = table.drop(index=i).reset_index(drop=True)
        Xr, yr = solver_matrix(est, rest, np.delete(y, i))
        np.testing.assert_allclose(Xr, np.delete(Xa, i, axis=0), rtol=0, atol=1e-15)
        np.testing.assert_allclose(yr, np.delete(ya, i), rtol=0, atol=1e-15)


@pytest.mark.parametrize("make", [FastIHMRegressor, IHMRegressor])
def test_gradient_release_moves_by_at_most_its_calibrated_sensitivity(make):
    table, y = raw_records()
    model = fitted(make, table, y)
    sens = sensitivity(model.privacy_ledger_, "Gaussian gradient noise")
    Xa, ya = solver_matrix(model, table, y)
    rng = np.random.default_rng(1)
    worst = 0.0
    for i in (0, 3, 100, 200):
        Xb, yb = neighbour(Xa, ya, i)
        for theta in thetas(Xa.shape[1], Xa[i], rng):
            change = np.linalg.norm(_clipped_gradient(Xa, ya, theta, 1.0) - _clipped_gradient(Xb, yb, theta, 1.0))
            worst = max(worst, change)
    assert worst <= sens * (1 + 1e-12)
    assert worst > 0.5 * sens  # the parameters above reach the bound's order: the check has teeth


def test_zeroing_only_the_raw_record_is_not_covered_with_an_intercept():
    """The documented counterexample: the intercept coordinate stays, and the gradient moves by 1.58 C > C."""
    table, y = raw_records()
    model = fitted(FastIHMRegressor, table, y)
    sens = sensitivity(model.privacy_ledger_, "Gaussian gradient noise")
    Xa, ya = solver_matrix(model, table, y)
    c = model.intercept_scaling
    s = math.sqrt(1 + c * c)
    i = int(np.argmax(np.linalg.norm(Xa[:, :-1], axis=1)))
    Xb, yb = Xa.copy(), ya.copy()
    Xb[i, :-1] = 0.0  # raw features and response zeroed, the constant c/s kept
    yb[i] = 0.0
    xi = Xa[i, :-1]
    theta = np.append(-1e7 * xi / np.dot(xi, xi), 1e6)  # residual +C for the record, -C for its raw-zeroed version
    change = np.linalg.norm(_clipped_gradient(Xa, ya, theta, 1.0) - _clipped_gradient(Xb, yb, theta, 1.0))
    xnorm = np.linalg.norm(Xa[i, :-1]) * s
    assert change == pytest.approx(sens * math.sqrt(xnorm**2 + 4 * c * c) / s, rel=1e-9)
    assert change > 1.5 * sens
    assert "C sqrt((1 + 4 c^2) / (1 + c^2))" in est_module.__doc__  # the docs state the relation this test shows


def test_adassp_releases_move_by_at_most_their_calibrated_sensitivities():
    table, y = raw_records()
    model = fitted(AdaSSPRegressor, table, y)
    led = model.privacy_ledger_
    Xa, ya = solver_matrix(model, table, y)
    for i in range(0, 256, 15):
        Xb, yb = neighbour(Xa, ya, i)
        gram_a, gram_b = Xa.T @ Xa, Xb.T @ Xb
        assert np.linalg.norm(gram_a - gram_b, "fro") <= sensitivity(led, "Gaussian release of X^T X") + 1e-12
        assert np.linalg.norm(Xa.T @ ya - Xb.T @ yb) <= sensitivity(led, "Gaussian release of X^T y") + 1e-12
        lam = abs(np.linalg.eigvalsh(gram_a)[0] - np.linalg.eigvalsh(gram_b)[0])
        assert lam <= sensitivity(led, "Gaussian release of lambda_min") + 1e-12


def test_ihm_eigenvalue_release_moves_by_at_most_its_sensitivity():
    table, y = raw_records()
    model = fitted(IHMRegressor, table, y)
    sens = sensitivity(model.privacy_ledger_, "Gaussian release of lambda_min")
    Xa, ya = solver_matrix(model, table, y)
    for i in range(0, 256, 15):
        Xb, _ = neighbour(Xa, ya, i)
        assert abs(np.linalg.eigvalsh(Xa.T @ Xa)[0] - np.linalg.eigvalsh(Xb.T @ Xb)[0]) <= sens + 1e-12


def test_fastihm_laplace_releases_move_by_at_most_lemmas_4_and_5():
    """m_hat moves by at most Delta_hat (Lemma 4), lambda_min(S X) by Lambda_hat + 2 m_hat (Lemma 5), C_X = 1."""
    table, y = raw_records()
    model = fitted(FastIHMRegressor, table, y)
    Xa, ya = solver_matrix(model, table, y)
    n = Xa.shape[0]
    for seed in range(3):
        srht = SRHT(n, 64, random_state=seed)
        qa = sketch_quantities(np.asfortranarray(Xa), srht)
        for i in (0, 31, 200):
            Xb, _ = neighbour(Xa, ya, i)
            qb = sketch_quantities(np.asfortranarray(Xb), srht)
            assert abs(qa.m_hat - qb.m_hat) <= qa.delta_hat * (1 + 1e-9)
            bound = qa.Lambda_hat + 2 * max(qa.m_hat, qb.m_hat)
            assert abs(qa.lambda_min - qb.lambda_min) <= bound * (1 + 1e-9)
    # the sketches themselves (Lemma 1) need only ||x~_i|| <= C_X = 1, which the intercept keeps
    assert np.linalg.norm(Xa, axis=1).max() <= 1 + 1e-12


@pytest.mark.parametrize("make", PRIVATE)
def test_every_ledger_entry_is_stated_for_zero_out(make):
    table, y = raw_records()
    model = fitted(make, table, y)
    assert model.privacy_relation == acc.ZERO_OUT == model.privacy_ledger_.relation
    assert all(e.relation == acc.ZERO_OUT for e in model.privacy_ledger_.entries)


# -- options that break the guarantee ------------------------------------------------------------


def unit_rows(n=512, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = np.clip(X @ np.array([0.5, -0.3, 0.2]) + 0.05 * rng.standard_normal(n), -1, 1)
    return X, y


@pytest.mark.parametrize("make", PRIVATE)
@pytest.mark.parametrize("option", ["row_norm_policy", "y_policy"])
def test_a_rescale_policy_warns_and_its_ledger_says_not_private(make, option):
    X, y = unit_rows()
    est = make(epsilon=1.0, delta=1e-6, random_state=0, **{option: "rescale"})
    assert len(est.non_private_options()) == 1 and option in est.non_private_options()[0]
    outer = acc.PrivacyLedger(5.0, 1e-5)
    est.set_params(ledger=outer)
    with pytest.warns(NotPrivateWarning, match=option):
        est.fit(X, y)  # within the bounds: nothing is rescaled, and it is still not private
    for led in (est.privacy_ledger_, outer):
        assert not led.private
        assert all(not e.private for e in led.entries)
        assert "NOT PRIVATE" in led.summary()
    assert not est.data_record_.private_preprocessing


@pytest.mark.parametrize("make", PRIVATE)
def test_the_default_options_are_private_and_say_so(make):
    X, y = unit_rows()
    est = make(epsilon=1.0, delta=1e-6, random_state=0)
    assert est.non_private_options() == ()
    with warnings.catch_warnings():
        warnings.simplefilter("error", NotPrivateWarning)
        est.fit(X, y)
    assert est.privacy_ledger_.private and "NOT PRIVATE" not in est.privacy_ledger_.summary()


def test_an_over_budget_solve_is_refused_before_the_data_are_read():
    class Untouchable:
        def __array__(self, *args, **kwargs):
            raise AssertionError("the data were read")

        shape = (512, 3)

    outer = acc.PrivacyLedger(0.5, 1e-6)
    with pytest.raises(acc.BudgetExceededError, match="Nothing was recorded"):
        fast_ihm(Untouchable(), Untouchable(), epsilon=1.0, delta=1e-7, k1=24, k2=64, ledger=outer)
    assert outer.entries == ()


# -- what a fitted estimator holds -----------------------------------------------------------


def numbers_in(objs):
    return [float(o) for o in objs if isinstance(o, (float, np.floating))] + [
        float(v) for o in objs if isinstance(o, np.ndarray) and o.dtype.kind == "f" for v in o.ravel()
    ]


@pytest.mark.parametrize("make", PRIVATE)
def test_a_pickled_estimator_holds_no_unreleased_statistic(make):
    rng = np.random.default_rng(3)
    X = rng.standard_normal((512, 3))
    X *= 0.913579 / np.linalg.norm(X, axis=1).max()  # a distinctive largest row norm
    y = np.clip(X @ np.array([0.9, -0.6, 0.4]) * 3.0, -1.7, 1.7)  # some responses above C = 1
    kw = dict(epsilon=1.0, delta=1e-6, y_policy="clip", random_state=0)
    if make is FastIHMRegressor:
        kw["k2"] = 64  # an SRHT that drops rows, so that m_hat is not 0
    with pytest.warns(ResponseClippingWarning):
        kept = make(keep_unreleased=True, **kw).fit(X, y)
    with pytest.warns(ResponseClippingWarning):
        model = make(**kw).fit(X, y)
    np.testing.assert_array_equal(model.coef_, kept.coef_)  # the release is the same either way

    secret = {"largest row norm": kept.data_record_.row_norms.max_norm_before}
    for key in est_module.UNRELEASED_DIAGNOSTICS:
        if key in kept.diagnostics_:
            secret[key] = float(np.max(kept.diagnostics_[key]))
    assert all(v not in (0.0, 1.0) for v in secret.values()), secret  # distinctive values, or the test is vacuous
    # with the intercept the solver's rows are (x, 1) / sqrt(2): the largest norm is sqrt((r^2 + 1) / 2)
    assert secret["largest row norm"] == pytest.approx(math.sqrt((0.913579**2 + 1) / 2), rel=1e-12)
    assert kept.data_record_.y_rows_over > 0

    with pytest.warns(PrivacyWarning, match="random_state is set"):  # seeded, so not publishable itself
        seen = pickled_objects(model)
    numbers = numbers_in(seen)
    for what, value in secret.items():
        assert not any(v == value for v in numbers), f"{what} = {value} is inside the pickled estimator"
    assert model.data_record_.y_rows_over is None and model.data_record_.row_norms.n_rows_over is None
    for arr in (o for o in seen if isinstance(o, np.ndarray) and o.ndim == 2):
        assert not (arr.shape[0] >= 2 and arr.shape[1] in (3, 4)), f"a {arr.shape} array (training rows?) is inside"
    with pytest.warns(PrivacyWarning):
        restored = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(restored.predict(X[:5]), model.predict(X[:5]))
    # and the opt-in does keep them (so the test above is not vacuous)
    with pytest.warns(PrivacyWarning, match="keep_unreleased=True"):
        kept_numbers = numbers_in(pickled_objects(kept))
    assert any(v == secret["largest row norm"] for v in kept_numbers)


# -- bad input at the boundary, one case each --------------------------------------------------


@pytest.mark.parametrize("make", PRIVATE)
@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"epsilon": 1e-300}, r"epsilon must lie in \[1e-06, 1e\+06\].*got 1e-300"),
        ({"epsilon": 1e300}, r"epsilon must lie in \[1e-06, 1e\+06\].*got 1e\+300"),
        ({"epsilon": None}, r"needs a privacy budget: pass epsilon"),
        ({"delta": 5e-324}, r"delta = 4.94066e-324 is too small: the default rho = delta/10 underflows"),
        ({"random_state": -5}, r"random_state must be None, a non-negative int.*got -5"),
    ],
)
def test_bad_budget_or_seed_is_refused_naming_the_argument(make, params, match):
    X, y = unit_rows()
    with pytest.raises(ValueError, match=match):
        make(**{"epsilon": 1.0, "random_state": 0, **params}).fit(X, y)


@pytest.mark.parametrize("make", PRIVATE)
def test_a_large_intercept_scaling_warns_that_the_features_shrink(make):
    X, y = unit_rows()
    with pytest.warns(UserWarning, match=r"intercept_scaling = 100: .* divided by sqrt\(1 \+ c\^2\) = 100"):
        make(epsilon=1.0, delta=1e-6, intercept_scaling=100, random_state=0).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        make(epsilon=1.0, delta=1e-6, intercept_scaling=1.0, random_state=0).fit(X, y)


@pytest.mark.parametrize("make", PRIVATE)
def test_a_string_column_is_refused_naming_it_and_the_encoder(make):
    X, y = unit_rows()
    frame = pd.DataFrame(X, columns=["a", "b", "c"]).assign(city="north")
    with pytest.raises(TypeError, match=r"non-numeric column\(s\) \['city'\].*BoundedTableEncoder"):
        make(epsilon=1.0, delta=1e-6, random_state=0).fit(frame, y)


def test_rows_and_responses_within_rounding_of_the_bound_reach_the_solver_on_it():
    """A norm of 1 + 1e-10 passes the check (rounding) but is projected, so the calibrated bound holds."""
    from fastmix.regression import prepare_regression

    X, y = unit_rows(n=64)
    X[3] *= 1 + 1e-10
    y[5] = 1 + 1e-10
    for policy in ("raise", "clip"):
        data = prepare_regression(X, y, row_norm_policy=policy, y_policy=policy, n_policy="pad")
        assert np.linalg.norm(data.X, axis=1).max() <= 1 + 4 * np.finfo(float).eps
        assert np.abs(data.y).max() <= 1.0
        assert data.record.row_norms.n_rows_over == 0 and data.record.y_rows_over == 0  # rounding, not counted
        np.testing.assert_allclose(data.X[3], X[3], rtol=1e-9)  # moved by the rounding only


@pytest.mark.parametrize("make", PRIVATE)
def test_a_default_fit_pickles_quietly_and_keeps_no_generator_or_seed(make):
    X, y = unit_rows()
    model = make(epsilon=1.0, delta=1e-6).fit(X, y)  # random_state=None: fresh entropy, nothing kept
    assert model.publication_caveats() == ()
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyWarning)
        seen = pickled_objects(model)
    kinds = (np.random.Generator, np.random.BitGenerator, np.random.SeedSequence, np.random.RandomState)
    assert not [type(o).__name__ for o in seen if isinstance(o, kinds)]
    assert make(epsilon=1.0, delta=1e-6).publication_caveats() == ()  # unfitted: nothing to publish
    seeded = make(epsilon=1.0, delta=1e-6, random_state=3).fit(X, y)
    assert any("random_state is set" in c for c in seeded.publication_caveats())


@pytest.mark.parametrize("make", PRIVATE)
def test_caveats_are_read_from_what_was_fitted_not_from_the_parameters(make):
    X, y = unit_rows()
    seeded = make(epsilon=1.0, delta=1e-6, random_state=3).fit(X, y)
    seeded.set_params(random_state=None)  # the noise was still drawn from seed 3
    assert seeded.seeded_ and any("seed" in c for c in seeded.publication_caveats())
    kept = make(epsilon=1.0, delta=1e-6, keep_unreleased=True).fit(X, y)
    kept.set_params(keep_unreleased=False)  # the statistics are still on the object
    assert any("keep_unreleased=True" in c for c in kept.publication_caveats())
    with pytest.warns(NotPrivateWarning):
        rescaled = make(epsilon=1.0, delta=1e-6, row_norm_policy="rescale").fit(X, y)
    assert any("break the guarantee" in c for c in rescaled.publication_caveats())
    with pytest.warns(PrivacyWarning, match="break the guarantee"):
        pickle.dumps(rescaled)


def test_a_seeded_search_leaves_its_seed_on_the_chosen_model():
    from fastmix.model_selection import PrivateGridSearch

    X, y = unit_rows(n=1024)
    search = PrivateGridSearch(AdaSSPRegressor(), {"clip": [1.0, 2.0]}, epsilon=1.0, delta=1e-6, random_state=7)
    search.fit(X, y)
    best = search.best_estimator_
    assert best.random_state is None and best.seeded_  # reset, yet drawn from the search's seed
    assert any("seed" in c for c in best.publication_caveats())
    assert any("seed" in c for c in search.publication_caveats())
    unseeded = PrivateGridSearch(AdaSSPRegressor(), {"clip": [1.0, 2.0]}, epsilon=1.0, delta=1e-6).fit(X, y)
    assert unseeded.publication_caveats() == ()
