"""The private kernel logistic regression follows the conventions of the package's private estimators.

:class:`~fastmix.kernels.DPRandomProjectionLogistic` (kernel paper, Algorithm 2 / Theorem 2):
its neighbouring relation, the options that break the guarantee (``classes=None``, rescaled
rows), the outer ledger (refused before the data are read, converted for a zero-out ledger),
the declared label pair, the unreleased statistics kept out of the fitted estimator and the
warning when an exact-sampler fit is pickled. Small data and few paths: every test is quick.
"""

import pickle
import warnings

import numpy as np
import pytest
from privacy_probes import Untouchable, pickled_objects
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from fastmix._validation import NotPrivateWarning, PrivacyWarning
from fastmix.accounting import REPLACE_ONE, ZERO_OUT, BudgetExceededError, PrivacyLedger
from fastmix.kernels import DPRandomProjectionLogistic

RNG = np.random.default_rng(0)
X = RNG.uniform(-0.5, 0.5, (80, 2))
Y = (X[:, 0] + 0.1 * RNG.standard_normal(80) > 0).astype(int)
FAST = dict(n_components=4, sampler="approximate", n_frequencies=100, random_state=0)


def make(**kw):
    """A quick private fit with the label pair declared (the private form) unless told otherwise."""
    params = dict(FAST, classes=[0, 1])
    params.update(kw)
    return DPRandomProjectionLogistic(**params)


def _pickle_holds(est, value):
    """Whether any float, float array or 8-byte-aligned buffer the pickle of ``est`` saves holds ``value``."""
    for obj in pickled_objects(est):
        if isinstance(obj, (float, np.floating)) and obj == value:
            return True
        if isinstance(obj, np.ndarray) and obj.dtype.kind == "f" and np.any(obj == value):
            return True
        if isinstance(obj, bytes) and obj and len(obj) % 8 == 0 and np.any(np.frombuffer(obj, np.float64) == value):
            return True
    return False


def test_the_relation_is_replace_one_on_the_class_and_in_every_ledger_entry():
    assert DPRandomProjectionLogistic.privacy_relation == REPLACE_ONE
    est = make()
    assert est.non_private_options() == ()
    with warnings.catch_warnings():
        warnings.simplefilter("error", NotPrivateWarning)
        ledger = est.fit(X, Y).privacy_ledger_
    assert ledger.relation == REPLACE_ONE and ledger.private
    assert [e.relation for e in ledger.entries] == [REPLACE_ONE, REPLACE_ONE]  # norm event, objective perturbation


def test_an_outer_ledger_is_charged_with_the_fits_entries():
    outer = PrivacyLedger(1.5, 1e-4, relation=REPLACE_ONE)
    est = make(epsilon=1.0, delta=5e-5, ledger=outer).fit(X, Y)
    assert outer.entries == est.privacy_ledger_.entries
    assert outer.total_epsilon == pytest.approx(1.0) and outer.total_delta == pytest.approx(5e-5)
    assert clone(est).ledger is outer  # one budget across scikit-learn's clones
    with pytest.raises(TypeError, match="PrivacyLedger or None; got dict"):
        make(ledger={}).fit(X, Y)


def test_a_fit_the_outer_ledger_cannot_afford_is_refused_before_the_data_are_read():
    outer = PrivacyLedger(1.5, 1e-4, relation=REPLACE_ONE)
    est = make(epsilon=1.0, delta=5e-5, ledger=outer).fit(X, Y)
    with pytest.raises(BudgetExceededError, match="Nothing was recorded"):
        est.fit(Untouchable(), Untouchable())  # a second fit at epsilon = 1 would reach 2 > 1.5
    assert len(outer.entries) == 2 and outer.total_epsilon == pytest.approx(1.0)
    with pytest.raises(BudgetExceededError):  # delta alone over budget (the split is known in advance)
        make(epsilon=0.1, delta=1e-3, ledger=PrivacyLedger(5.0, 1e-4, relation=REPLACE_ONE)).fit(
            Untouchable(), Untouchable()
        )


def test_a_zero_out_outer_ledger_takes_the_entries_converted_at_no_cost():
    outer = PrivacyLedger(2.0, 1e-4)  # zero-out, as for the least-squares regressors
    own = make(ledger=outer).fit(X, Y).privacy_ledger_.entries
    assert {e.relation for e in own} == {REPLACE_ONE}
    assert [e.relation for e in outer.entries] == [ZERO_OUT, ZERO_OUT]
    assert [(e.epsilon, e.delta) for e in outer.entries] == [(e.epsilon, e.delta) for e in own]
    assert all("no cost" in e.mechanism for e in outer.entries)


def test_reading_the_label_set_from_the_data_is_listed_warns_and_marks_every_entry_not_private():
    est = make(classes=None)
    (reason,) = est.non_private_options()
    assert "classes=None" in reason and "statistic of the data" in reason and "classes=[neg, pos]" in reason
    outer = PrivacyLedger(5.0, 1e-4)
    with pytest.warns(NotPrivateWarning, match=r"classes=None.*marked not private"):
        est.set_params(ledger=outer).fit(X, Y)
    assert est.classes_.tolist() == [0, 1]  # still works (scikit-learn's generic checks need it)
    for led in (est.privacy_ledger_, outer):
        assert not led.private and len(led.entries) == 2
        assert all(e.not_private == reason for e in led.entries)


def test_declared_classes_fit_a_data_set_with_a_single_label():
    labels = np.where(Y == 1, "yes", "no")
    est = make(classes=["yes", "no"]).fit(X, np.full(X.shape[0], "no"))
    assert est.classes_.tolist() == ["no", "yes"]  # sorted, as scikit-learn orders classes_
    assert set(est.predict(X)) <= {"no", "yes"}
    assert est.predict_proba(X).shape == (X.shape[0], 2)
    full = make(classes=["no", "yes"]).fit(X, labels)
    # the same fit as with the labels coded 0/1: classes_[1] is the positive class
    np.testing.assert_array_equal(full.decision_function(X), make().fit(X, Y).decision_function(X))
    with pytest.raises(ValueError, match="Only binary"):  # without the declaration, one label is refused
        with pytest.warns(NotPrivateWarning):
            make(classes=None).fit(X, np.zeros(X.shape[0], dtype=int))


def test_a_label_outside_the_declared_classes_is_refused_and_named():
    y = Y.copy()
    y[:3] = 7
    with pytest.raises(ValueError, match=r"3 of 80 label\(s\) lie outside the declared classes \[0, 1\]: 7\."):
        make().fit(X, y)
    for bad in ([0, 1, 2], [1, 1], 1):
        with pytest.raises(ValueError, match="pair of distinct labels"):
            make(classes=bad).fit(Untouchable(), Untouchable())  # a parameter, checked before the data


def test_rescaling_the_rows_of_the_linear_kernel_is_listed_and_warns():
    est = make(kernel="linear", row_norm_policy="rescale", sampler="auto")
    (reason,) = est.non_private_options()
    assert "row_norm_policy='rescale'" in reason and "largest row norm" in reason
    assert make(row_norm_policy="rescale").non_private_options() == ()  # Gaussian kernel: no row bound
    with pytest.warns(NotPrivateWarning, match="row_norm_policy='rescale'"):
        est.fit(X * 3, Y)
    assert all(e.not_private == reason for e in est.privacy_ledger_.entries)


def _distinctive_rows():
    """X with a largest row norm no other number of the fit is likely to equal."""
    X_lin = X.copy()
    X_lin[5] = [0.6172839, 0.5234567]  # norm ~0.80937, above every other row (<= 0.71)
    return X_lin, float(np.linalg.norm(X_lin[5]))


@pytest.mark.filterwarnings("ignore:Pickling a DP:fastmix._validation.PrivacyWarning")  # seeded fits
def test_the_fitted_estimator_keeps_no_unreleased_statistic_by_default():
    X_lin, max_norm = _distinctive_rows()
    kw = dict(kernel="linear", sampler="auto", clip_features=True)
    kept = make(keep_unreleased=True, **kw).fit(X_lin, Y)
    assert kept.row_norm_record_.max_norm_before == pytest.approx(max_norm)
    recorded = kept.row_norm_record_.max_norm_before
    assert _pickle_holds(kept, recorded)  # the recorder sees it when it is kept: not a vacuous check
    for est in (make(**kw).fit(X_lin, Y), kept.set_params(keep_unreleased=False).fit(X_lin, Y)):
        restored = pickle.loads(pickle.dumps(est))
        assert not any(hasattr(restored, a) for a in ("row_norm_record_", "n_features_clipped_"))
        assert not _pickle_holds(est, recorded)


@pytest.mark.filterwarnings("ignore:Pickling a DP:fastmix._validation.PrivacyWarning")  # keep_unreleased=True
def test_keep_unreleased_keeps_the_unreleased_statistics():
    X_lin, max_norm = _distinctive_rows()
    est = make(kernel="linear", sampler="auto", clip_features=True, keep_unreleased=True).fit(X_lin, Y)
    restored = pickle.loads(pickle.dumps(est))
    assert restored.row_norm_record_.max_norm_before == pytest.approx(max_norm)
    assert restored.n_features_clipped_ == 0  # rows of norm <= 1 give features well inside sqrt(D2)
    assert make(keep_unreleased=True).fit(X, Y).n_features_clipped_ == 0  # no clipping: nothing clipped
    with pytest.raises(TypeError, match="keep_unreleased must be True or False"):
        make(keep_unreleased="yes").fit(X, Y)


def test_pickling_an_exact_sampler_fit_warns():
    exact = make(sampler="exact", random_state=None)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyWarning)
        pickle.dumps(exact)  # unfitted: nothing to warn about
        exact.fit(X, Y)
        pickle.dumps(make(random_state=None).fit(X, Y))  # the approximate sampler keeps no input
    with pytest.warns(PrivacyWarning, match=r"Pickling a DPRandomProjectionLogistic.*contains X.*'approximate'"):
        pickle.dumps(exact)


# The coefficients of the committed code's seeded fits (random_state=0, an int, a SeedSequence or a
# Generator, all the same stream), recorded before the noise and the features were separated for
# random_state=None: a seeded fit must keep its draws bit for bit.
SEEDED_COEF = {
    "approximate": [-12.790655084159587, 29.353155535517843, 54.10595089399457, -14.3335061795793],
    "exact": [-11.986397928591286, 29.27356075327147, 52.325359251646944, -15.735550840050196],
}


@pytest.mark.parametrize("seed", [lambda: 0, lambda: np.random.SeedSequence(0), lambda: np.random.default_rng(0)])
@pytest.mark.parametrize("sampler", ["approximate", "exact"])
def test_a_seeded_fit_keeps_its_draws_bit_for_bit(sampler, seed):
    est = make(sampler=sampler, random_state=seed()).fit(X, Y)
    assert est.coef_.tolist() == SEEDED_COEF[sampler]


def _objective_noise(est):
    """The noise ``b`` of the fit, solved from the first-order condition of the perturbed objective at ``coef_``."""
    Z = est.feature_map_.transform(X)
    s = np.where(Y == est.classes_[1], 1.0, -1.0)
    return Z.T @ (s / (1.0 + np.exp(s * (Z @ est.coef_)))) - X.shape[0] * est.lam_effective_ * est.coef_


def _replayed_noise(est):
    """The replay attack: the noise generator rebuilt as the sibling of the generator the exact sampler keeps."""
    seed_seq = est.feature_map_._rng.bit_generator.seed_seq
    replayed = np.random.default_rng(np.random.SeedSequence(seed_seq.entropy, spawn_key=(1,)))
    return est.noise_sigma_ * replayed.standard_normal(est.coef_.size)


def test_the_noise_cannot_be_rebuilt_from_a_default_fit():
    for est in (make(random_state=None).fit(X, Y), make(random_state=None, kernel="linear", sampler="exact").fit(X, Y)):
        assert getattr(est.feature_map_, "_rng", None) is None and est.publication_caveats() == ()
        saved = pickled_objects(est)
        assert not [o for o in saved if isinstance(o, (np.random.Generator, np.random.SeedSequence))]
    exact = make(sampler="exact", random_state=None).fit(X, Y)
    assert not np.allclose(_replayed_noise(exact), _objective_noise(exact), rtol=1e-6)
    seeded = make(sampler="exact", random_state=0).fit(X, Y)  # the attack is real: the seed is the secret
    np.testing.assert_allclose(_replayed_noise(seeded), _objective_noise(seeded), rtol=1e-6)


def test_publication_caveats_name_the_seed_the_unreleased_statistics_and_the_exact_sampler():
    with pytest.raises(NotFittedError):
        make().publication_caveats()
    assert make(random_state=None).fit(X, Y).publication_caveats() == ()
    (seed,) = make().fit(X, Y).publication_caveats()
    assert "random_state is set" in seed and "recompute the privacy noise" in seed
    every = make(sampler="exact", keep_unreleased=True, random_state=3).fit(X, Y)
    caveats = every.publication_caveats()
    assert len(caveats) == 3
    assert "keep_unreleased=True" in caveats[0] and "seed" in caveats[1] and "training inputs" in caveats[2]
    assert "exact path sampler" in caveats[2]
    with pytest.warns(PrivacyWarning, match="Pickling a DPRandomProjectionLogistic that must not be published") as rec:
        pickle.dumps(every)
    assert all(c in str(rec[0].message) for c in caveats)
