"""Tests for fastmix.audit (privacy audit of the FastMix Gaussian step)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from fastmix import accounting as acc
from fastmix import audit as au
from fastmix.srht import SRHT

ALPHAS = np.geomspace(1.05, 30.0, 25)


def _shift_profile(mu, eps):
    """delta(eps) of N(mu, 1) against N(0, 1) (Balle and Wang 2018, Theorem 8)."""
    return stats.norm.cdf(-eps / mu + mu / 2) - math.exp(eps) * stats.norm.cdf(-eps / mu - mu / 2)


def _shift_epsilon(mu, delta):
    from scipy.optimize import brentq

    return brentq(lambda e: _shift_profile(mu, e) - delta, 0.0, 50.0)


# --------------------------------------------------------------------------- empirical epsilon


def test_empirical_epsilon_formula():
    # both directions of Kairouz et al.'s inequalities; the larger one is returned
    # FPR = 0.1, FNR = 0.2: max(log(0.9/0.2), log(0.8/0.1)) = log 8
    assert au.empirical_epsilon(0.1, 0.2, 0.0) == pytest.approx(math.log(8.0))
    assert au.empirical_epsilon(0.2, 0.1, 0.0) == pytest.approx(math.log(8.0))
    assert au.empirical_epsilon(0.1, 0.2, 0.05) == pytest.approx(math.log(0.75 / 0.1))
    assert au.empirical_epsilon(0.5, 0.5, 0.0) == 0.0
    assert au.empirical_epsilon(0.0, 0.5, 0.0) == math.inf
    np.testing.assert_allclose(
        au.empirical_epsilon(np.array([0.1, 0.5]), np.array([0.2, 0.5]), 0.0), [math.log(8.0), 0.0]
    )


def test_empirical_epsilon_with_exact_rates_recovers_the_gaussian_shift_epsilon():
    # 1-D pair N(mu, 1) vs N(0, 1): the LR test thresholds x; with the exact error rates
    # the maximum over thresholds is the exact epsilon(delta), approached from below.
    mu, delta = 1.0, 1e-3
    t = np.linspace(-6, 8, 20001)
    fnr = stats.norm.cdf(t - mu)  # P_P(x <= t)
    fpr = stats.norm.sf(t)  # P_Q(x > t)
    emp = np.max(au.empirical_epsilon(fpr, fnr, delta))
    exact = _shift_epsilon(mu, delta)
    assert emp <= exact + 1e-9
    assert emp == pytest.approx(exact, abs=1e-3)


@pytest.mark.parametrize("n", [2_000, 20_000, 200_000])
def test_epsilon_lower_bound_is_below_the_truth_and_converges(n):
    mu, delta = 1.0, 1e-3
    exact = _shift_epsilon(mu, delta)
    rng = np.random.default_rng(n)
    x_p = mu + rng.standard_normal(n)
    x_q = rng.standard_normal(n)
    # the LLR is monotone in x, so x itself is a valid score
    res = au.epsilon_lower_bound(x_p, x_q, delta, confidence=0.95)
    assert res.epsilon_lower <= exact
    assert res.epsilon_lower <= res.epsilon_point + 1e-12
    if n == 200_000:
        assert res.epsilon_lower > 0.6 * exact


def test_epsilon_lower_bound_rarely_exceeds_the_truth():
    # repeated small attacks: with 95 % confidence the bound should essentially never exceed
    mu, delta = 1.5, 1e-2
    exact = _shift_epsilon(mu, delta)
    rng = np.random.default_rng(1)
    over = 0
    for _ in range(40):
        res = au.epsilon_lower_bound(mu + rng.standard_normal(1000), rng.standard_normal(1000), delta, n_thresholds=50)
        over += res.epsilon_lower > exact
    assert over <= 2


def test_epsilon_lower_bound_errors():
    with pytest.raises(ValueError, match="non-empty"):
        au.epsilon_lower_bound([], [1.0], 0.1)
    with pytest.raises(ValueError, match="delta"):
        au.epsilon_lower_bound([1.0], [1.0], 1.5)
    with pytest.raises(ValueError, match="finite"):
        au.epsilon_lower_bound([np.nan], [1.0], 0.1)
    with pytest.raises(ValueError, match="probabilities"):
        au.empirical_epsilon(1.2, 0.1, 0.0)


# --------------------------------------------------------------------------- Clopper-Pearson


def test_clopper_pearson_known_values_and_edges():
    lo, hi = au.clopper_pearson(0, 10, 0.95)
    assert lo == 0.0 and hi == pytest.approx(1 - 0.025 ** (1 / 10))
    lo, hi = au.clopper_pearson(10, 10, 0.95)
    assert hi == 1.0 and lo == pytest.approx(0.025 ** (1 / 10))
    lo, hi = au.clopper_pearson(5, 10, 0.95)
    assert lo < 0.5 < hi
    _, up = au.clopper_pearson(0, 10, 0.95, side="upper")
    assert up == pytest.approx(1 - 0.05 ** (1 / 10))


def test_clopper_pearson_is_conservative():
    # exact coverage computed over the binomial law: never below the nominal level
    for p in (0.01, 0.1, 0.37, 0.5, 0.9):
        n = 40
        k = np.arange(n + 1)
        lo, hi = au.clopper_pearson(k, np.full(n + 1, n), 0.9)
        cover = stats.binom.pmf(k, n, p)[(lo <= p) & (p <= hi)].sum()
        assert cover >= 0.9 - 1e-12


def test_clopper_pearson_errors():
    with pytest.raises(ValueError, match="0 <= k <= n"):
        au.clopper_pearson(11, 10)
    with pytest.raises(TypeError, match="integers"):
        au.clopper_pearson(1.5, 10)
    with pytest.raises(ValueError, match="side"):
        au.clopper_pearson(1, 10, side="left")


# --------------------------------------------------------------------------- exact privacy profile


def test_privacy_profile_matches_one_dimensional_closed_form():
    # d = 1: P = N(0, a), Q = N(0, b), k1 rows; L depends on sum r^2 ~ a chi2_k1 under P
    a, b, k1 = 1.3, 1.0, 5
    P, Q = np.array([[a]]), np.array([[b]])
    for eps in (0.0, 0.2, 0.5):
        # L = -1/2 (1/a - 1/b) T + k1/2 log(b/a), T = sum r^2
        c = -0.5 * (1 / a - 1 / b)
        t = (eps - 0.5 * k1 * math.log(b / a)) / c  # L > eps  <=>  T > t  (c > 0)
        exact = stats.chi2.sf(t / a, k1) - math.exp(eps) * stats.chi2.sf(t / b, k1)
        assert au.privacy_profile(P, Q, eps, rows=k1) == pytest.approx(max(exact, 0.0), abs=1e-9)


def test_privacy_profile_is_consistent_with_renyi_bound():
    rng = np.random.default_rng(3)
    A = rng.standard_normal((6, 3))
    P = A.T @ A + 4 * np.eye(3)
    x = np.array([0.6, 0.0, 0.8])
    Q = P - np.outer(x, x)
    delta = 1e-4
    eps_true = au.profile_epsilon(P, Q, delta, rows=3)
    # any RDP curve of the pair converts to a valid (>=) epsilon
    f = lambda al: 3 * acc._renyi_from_generalised_eigs(al, np.linalg.eigvals(np.linalg.solve(Q, P - Q)).real)  # noqa: E731
    eps_rdp, _ = acc.epsilon_from_rdp(f, delta, 1e3)
    assert 0 < eps_true <= eps_rdp


def test_llr_weights_match_direct_llr():
    rng = np.random.default_rng(4)
    Z = rng.standard_normal((8, 3)) * 0.3
    Zp = Z.copy()
    Zp[0] = 0
    att = au.likelihood_ratio_attack(Z, Zp, 1.0, 4, 30_000, random_state=5, method="gram")
    w = au.privacy_loss_weights(att.cov_p, att.cov_q)
    kl = 4 * (w.weights_p.sum() + w.shift_per_row)
    assert np.mean(att.scores_p) == pytest.approx(kl, abs=5 * np.std(att.scores_p) / math.sqrt(30_000))
    fpr, fnr = au.tradeoff_curve(att.cov_p, att.cov_q, [0.0], rows=4)
    assert fpr[0] == pytest.approx(np.mean(att.scores_q > 0), abs=0.02)
    assert fnr[0] == pytest.approx(np.mean(att.scores_p <= 0), abs=0.02)


# --------------------------------------------------------------------------- attack


def test_attack_is_seeded_and_methods_agree_in_law():
    rng = np.random.default_rng(0)
    Z = rng.standard_normal((8, 2)) * 0.5
    Zp = Z.copy()
    Zp[2] = 0
    a1 = au.likelihood_ratio_attack(Z, Zp, 1.0, 3, 500, random_state=7)
    a2 = au.likelihood_ratio_attack(Z, Zp, 1.0, 3, 500, random_state=7)
    np.testing.assert_array_equal(a1.scores_p, a2.scores_p)
    np.testing.assert_array_equal(a1.scores_q, a2.scores_q)
    e = au.likelihood_ratio_attack(Z, Zp, 1.0, 3, 20_000, random_state=8, method="explicit")
    g = au.likelihood_ratio_attack(Z, Zp, 1.0, 3, 20_000, random_state=9, method="gram")
    assert stats.ks_2samp(e.scores_p, g.scores_p).pvalue > 1e-3


def test_attack_errors():
    Z = np.ones((4, 2))
    with pytest.raises(ValueError, match="same shape"):
        au.likelihood_ratio_attack(Z, np.ones((4, 3)), 1.0, 2, 10)
    with pytest.raises(ValueError, match="method"):
        au.likelihood_ratio_attack(Z, Z, 1.0, 2, 10, method="fast")
    with pytest.raises(ValueError):
        au.likelihood_ratio_attack(Z, Z, 0.0, 2, 10)
    with pytest.raises(ValueError, match="shape"):
        au.gaussian_llr(np.ones((3, 2, 5)), np.eye(2), np.eye(2))


# --------------------------------------------------------------------------- exact audit


@pytest.fixture(scope="module")
def small_problem():
    n, d, k2 = 32, 3, 8
    S = SRHT(n, k2, random_state=0).to_dense()
    designs = au.adversarial_designs(n, d, random_state=0)
    return S, designs


def test_sketch_constants_match_srht_module(small_problem):
    from fastmix.srht import sketch_quantities_dense

    S, designs = small_problem
    X = designs["sphere"]
    c = au.sketch_constants(X, S)
    q = sketch_quantities_dense(X, S)
    assert c.m_hat == pytest.approx(q.m_hat, rel=1e-10)
    assert c.lambda_min == pytest.approx(q.lambda_min, rel=1e-8, abs=1e-10)
    assert c.c2 == pytest.approx(1.0 + 2.0 * q.m_hat, rel=1e-12)
    np.testing.assert_allclose(c.Z, S @ X, rtol=1e-12, atol=1e-12)


def test_noise_for_gamma_hits_gamma(small_problem):
    S, designs = small_problem
    X = designs["sphere"]
    s = au.noise_for_gamma(X, S, 8.0)
    res = au.neighbour_divergence(X, S, 3, s, ALPHAS)
    assert res.gamma == pytest.approx(8.0)


@pytest.mark.parametrize(
    "name", ["sphere", "min_eigvec", "single_large", "near_degenerate", "duplicated", "two_clusters"]
)
@pytest.mark.parametrize("gamma", [4.0, 12.0])
def test_lemma1_bounds_hold_on_adversarial_designs(small_problem, name, gamma):
    S, designs = small_problem
    X = designs[name]
    s = au.noise_for_gamma(X, S, gamma)
    for bound in ("exact", "bar", "simple"):
        worst, pairs = au.worst_case_neighbour_divergence(X, S, s, ALPHAS, bound=bound)
        assert len(pairs) == 2 * np.count_nonzero(np.any(X != 0, axis=1))
        # remove direction: Lemma 1 as stated (gamma of X itself)
        for p in pairs:
            if p.direction == "remove" and np.isfinite(p.worst_ratio[bound]):
                assert p.worst_ratio[bound] <= 1.0
        assert worst.worst_ratio[bound] <= 1.0


def test_exact_bound_is_tighter_than_bar_and_simple(small_problem):
    S, designs = small_problem
    X = designs["sphere"]
    s = au.noise_for_gamma(X, S, 12.0)
    res = au.neighbour_divergence(X, S, 0, s, ALPHAS)
    b = res.bounds
    ok = np.isfinite(b["simple"])
    assert np.all(b["exact"][ok] <= b["bar"][ok] + 1e-15)
    assert np.all(b["bar"][ok] <= b["simple"][ok] + 1e-15)


def test_divergence_matches_accounting(small_problem):
    S, designs = small_problem
    X = designs["sphere"]
    Xm = X.copy()
    Xm[5] = 0
    res = au.neighbour_divergence(X, S, 5, 2.0, ALPHAS, direction="add")
    direct = acc.gaussian_renyi_divergence(
        ALPHAS, (S @ Xm).T @ (S @ Xm) + 4 * np.eye(3), (S @ X).T @ (S @ X) + 4 * np.eye(3)
    )
    np.testing.assert_allclose(res.divergence, direct, rtol=1e-8)


def test_optimise_row_does_not_decrease_the_ratio(small_problem):
    S, designs = small_problem
    X = designs["single_large"]
    start = au.neighbour_divergence(X, S, 0, au.noise_for_gamma(X, S, 8.0), ALPHAS).worst_ratio["exact"]
    Y, res = au.optimise_row(X, S, 0, 8.0, ALPHAS, n_starts=1, random_state=0)
    assert res.worst_ratio["exact"] >= start - 1e-9
    assert np.linalg.norm(Y[0]) <= 1.0 + 1e-12
    assert res.worst_ratio["exact"] <= 1.0


def test_adversarial_designs_are_seeded_and_bounded():
    a = au.adversarial_designs(16, 3, random_state=2)
    b = au.adversarial_designs(16, 3, random_state=2)
    for k in a:
        np.testing.assert_array_equal(a[k], b[k])
        assert np.all(np.linalg.norm(a[k], axis=1) <= 1 + 1e-12)


def test_exact_audit_errors(small_problem):
    S, designs = small_problem
    X = designs["sphere"]
    with pytest.raises(ValueError, match="index"):
        au.neighbour_divergence(X, S, 99, 1.0, ALPHAS)
    with pytest.raises(ValueError, match="direction"):
        au.neighbour_divergence(X, S, 0, 1.0, ALPHAS, direction="swap")
    with pytest.raises(ValueError, match="norm at most 1"):
        au.neighbour_divergence(2 * X, S, 0, 1.0, ALPHAS)
    with pytest.raises(ValueError, match="norm at most 1"):
        au.neighbour_divergence(X, 2 * S, 0, 1.0, ALPHAS)
    with pytest.raises(ValueError, match="alphas"):
        au.neighbour_divergence(X, S, 0, 1.0, [0.5])
    with pytest.raises(ValueError, match="bound"):
        au.worst_case_neighbour_divergence(X, S, 1.0, ALPHAS, bound="loose")
    with pytest.raises(ValueError, match="larger gamma"):
        au.noise_for_gamma(X, SRHT(32, 32, random_state=0).to_dense(), 1e-3)


def test_accounted_epsilon_orders():
    e_exact = au.accounted_epsilon(10.0, 10, 1e-5, bound="exact", c2=3.0)
    e_bar = au.accounted_epsilon(10.0, 10, 1e-5, bound="bar")
    e_simple = au.accounted_epsilon(10.0, 10, 1e-5, bound="simple")
    assert e_exact <= e_bar <= e_simple
    with pytest.raises(ValueError, match="c2"):
        au.accounted_epsilon(10.0, 10, 1e-5, bound="exact")
