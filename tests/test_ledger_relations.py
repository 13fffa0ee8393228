"""Neighbouring relations in the privacy ledger (fastmix.accounting.ledger).

A ledger composes guarantees of one neighbouring relation; an entry of another relation is
refused until converted, and the conversion's cost is checked against the exact privacy
profile of the Gaussian mechanism, where both sides are computed exactly.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import fastmix.accounting as acc
from fastmix.accounting import REPLACE_ONE, ZERO_OUT, LedgerEntry, NeighbouringRelationError, PrivacyLedger


def test_a_ledger_states_its_relation_and_every_entry_carries_it():
    led = PrivacyLedger(1.0, 1e-5)
    assert led.relation == ZERO_OUT
    entry = led.spend("release", 0.5, 1e-6)
    assert entry.relation == ZERO_OUT and led.records()[0]["relation"] == ZERO_OUT
    assert "under zero-out neighbours" in led.summary()
    assert PrivacyLedger(1.0, 1e-5, relation=REPLACE_ONE).spend("r", 0.1).relation == REPLACE_ONE
    with pytest.raises(ValueError, match=r"relation must be one of 'zero-out', 'replace-one'.*got 'add-remove'"):
        PrivacyLedger(1.0, 1e-5, relation="add-remove")


@pytest.mark.parametrize(("ledger_relation", "entry_relation"), [(ZERO_OUT, REPLACE_ONE), (REPLACE_ONE, ZERO_OUT)])
def test_an_entry_of_another_relation_is_refused_and_nothing_is_recorded(ledger_relation, entry_relation):
    led = PrivacyLedger(10.0, 1e-3, relation=ledger_relation)
    with pytest.raises(NeighbouringRelationError, match=f"private under {entry_relation} neighbours.*as_relation"):
        led.spend("release", 0.1, 0.0, relation=entry_relation)
    with pytest.raises(NeighbouringRelationError):
        led.spend_all(
            [LedgerEntry("a", 0.1, 0.0, relation=ledger_relation), LedgerEntry("b", 0.1, 0.0, relation=entry_relation)]
        )
    with pytest.raises(NeighbouringRelationError):
        led.check_spend("dry run", 0.1, 0.0, relation=entry_relation)
    assert led.entries == ()


def test_conversions_state_their_cost():
    e, d = 0.7, 1e-6
    one = LedgerEntry("m", e, d, relation=REPLACE_ONE)
    assert one.as_relation(REPLACE_ONE) is one
    free = one.as_relation(ZERO_OUT)
    assert (free.epsilon, free.delta, free.relation) == (e, d, ZERO_OUT) and "no cost" in free.mechanism
    two = LedgerEntry("m", e, d, relation=ZERO_OUT).as_relation(REPLACE_ONE)
    assert two.epsilon == pytest.approx(2 * e) and two.delta == pytest.approx((1 + math.exp(e)) * d)
    assert two.relation == REPLACE_ONE and "two steps" in two.mechanism
    led = PrivacyLedger(2.0, 1e-5, relation=REPLACE_ONE)
    led.spend_all([two])
    assert led.total_epsilon == pytest.approx(2 * e)
    with pytest.raises(ValueError, match="states no neighbouring relation"):
        LedgerEntry("hand-made", 0.1, 0.0).as_relation(ZERO_OUT)


@pytest.mark.parametrize("sigma", [0.5, 1.0, 3.0])
@pytest.mark.parametrize("eps", [0.1, 0.5, 1.0, 2.0])
def test_two_step_conversion_bounds_the_exact_replace_one_profile_of_a_gaussian(sigma, eps):
    """Zero-out sensitivity 1 is replace-one sensitivity 2; the exact delta at 2 eps must be covered."""
    delta_zero_out = acc.analytic_gaussian_delta(sigma, eps, 1.0)
    e2, d2, _ = acc.convert_guarantee(eps, delta_zero_out, ZERO_OUT, REPLACE_ONE)
    exact = acc.analytic_gaussian_delta(sigma, e2, 2.0)
    assert exact <= d2 * (1 + 1e-9) + 1e-15


@pytest.mark.filterwarnings("ignore::fastmix.regression.NoiseDominatesWarning")
def test_the_package_estimators_spend_under_their_papers_relations():
    from fastmix.kernels import DPRandomFeatureKRR, DPRandomProjectionKRR
    from fastmix.regression import AdaSSPRegressor, FastIHMRegressor, IHMRegressor

    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (256, 3)) / 2
    y = np.clip(X.sum(axis=1), -1, 1)
    for est in (AdaSSPRegressor(epsilon=5.0), IHMRegressor(epsilon=5.0), FastIHMRegressor(epsilon=5.0, k2=64)):
        led = est.fit(X, y).privacy_ledger_
        assert led.relation == ZERO_OUT and {e.relation for e in led.entries} == {ZERO_OUT}, type(est).__name__
    for est in (
        DPRandomProjectionKRR(epsilon=5.0, n_components=8, random_state=0),
        DPRandomFeatureKRR(epsilon=5.0, n_components=8, random_state=0),
    ):
        led = est.fit(X, y).privacy_ledger_
        assert led.relation == REPLACE_ONE and {e.relation for e in led.entries} == {REPLACE_ONE}, type(est).__name__


def test_an_outer_ledger_of_the_other_relation_refuses_a_least_squares_fit():
    from fastmix.model_selection import PrivateGridSearch
    from fastmix.regression import AdaSSPRegressor

    rng = np.random.default_rng(1)
    X = rng.uniform(-1, 1, (128, 2)) / 2
    y = np.clip(X.sum(axis=1), -1, 1)
    outer = PrivacyLedger(10.0, 1e-3, relation=REPLACE_ONE)
    with pytest.raises(NeighbouringRelationError):
        AdaSSPRegressor(epsilon=1.0, delta=1e-5, ledger=outer).fit(X, y)
    with pytest.raises(NeighbouringRelationError):
        PrivateGridSearch(
            AdaSSPRegressor(), {"fit_intercept": [True, False]}, epsilon=1.0, delta=1e-5, ledger=outer
        ).fit(X, y)
    assert outer.entries == ()
