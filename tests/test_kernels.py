"""Tests for fastmix.kernels (kernel paper, arXiv:2507.17544).

Statistical contracts are checked with fixed seeds and commented tolerances (several standard
errors of the Monte-Carlo estimate), never with wall-clock limits.
"""

import math
import pickle
import warnings

import numpy as np
import pytest
from privacy_probes import Untouchable, pickled_objects
from scipy import stats
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils.estimator_checks import parametrize_with_checks

from fastmix._validation import NotPrivateWarning, PrivacyWarning, ResponseClippingWarning
from fastmix.accounting import REPLACE_ONE, ZERO_OUT, BudgetExceededError, PrivacyLedger
from fastmix.kernels import (
    DPRandomFeatureKRR,
    DPRandomProjectionKRR,
    DPRandomProjectionLogistic,
    ExactGaussianProcessPaths,
    GaussianKernel,
    LaplaceKernel,
    LinearKernel,
    RandomFeatureGaussianProcessPaths,
    RandomFeatureKRR,
    RandomFourierFeatures,
    RandomProjectionKRR,
    _logistic_newton,
    laurent_massart_bound,
    objective_perturbation_calibration,
    random_projection_paths,
    release_from_statistics,
    release_sufficient_statistics,
    ridge_path_floored,
    solve_ridge_floored,
    theory_rp_hyperparameters,
)


def make_regression_data(n=300, d=3, random_state=0):
    """Smooth target in [-1, 1] plus small noise, clipped so that |y| <= response_bound = 1."""
    rng = np.random.default_rng(random_state)
    X = rng.uniform(-1.0, 1.0, (n, d))
    y = np.clip(np.sin(2.0 * X[:, 0]) * np.cos(X[:, 1]) + 0.05 * rng.standard_normal(n), -1.0, 1.0)
    return X, y


X_TRAIN, Y_TRAIN = make_regression_data()
X_TEST, _ = make_regression_data(n=50, random_state=1)
POINTS = np.array([[0.0, 0.0], [0.3, -0.2], [1.0, 0.5], [-0.7, 0.9]])


def empirical_path_covariance(F):
    """(1/P) sum_j h_j(x) h_j(x') from a matrix of P path values per point, shape (n, P)."""
    return F @ F.T / F.shape[1]


# ######################################################################################
# kernels and feature maps
# ######################################################################################


@pytest.mark.parametrize("kernel", [GaussianKernel(0.7), LaplaceKernel(0.7)])
def test_kernel_basic_contract(kernel):
    K = kernel(POINTS)
    np.testing.assert_allclose(np.diag(K), kernel.diag(POINTS))
    assert kernel.kappa2 == 1.0
    np.testing.assert_allclose(K, K.T)
    assert np.linalg.eigvalsh(K).min() > -1e-12


def test_laplace_is_l1_and_gaussian_matches_definition():
    x, z = POINTS[1], POINTS[2]
    assert LaplaceKernel(2.0)(x[None], z[None])[0, 0] == pytest.approx(math.exp(-np.abs(x - z).sum() / 2.0))
    assert GaussianKernel(2.0)(x[None], z[None])[0, 0] == pytest.approx(math.exp(-np.sum((x - z) ** 2) / 8.0))


@pytest.mark.parametrize("kernel", [GaussianKernel(0.7), LaplaceKernel(0.7)])
def test_rff_is_unbiased_and_bounded(kernel):
    # The spectral sampler must match the kernel: phi^T phi -> k. With M = 40000 features the
    # standard error of each entry is <= sqrt(2/M) ~ 0.007, so 0.03 is > 4 s.e.
    rff = RandomFourierFeatures(kernel, 40000, random_state=0).fit(POINTS)
    Phi = rff.transform(POINTS)
    np.testing.assert_allclose(Phi @ Phi.T, kernel(POINTS), atol=0.03)
    assert np.all(np.einsum("ij,ij->i", Phi, Phi) <= 2.0 + 1e-12)


# ######################################################################################
# random projection path samplers
# ######################################################################################


@pytest.mark.parametrize("kernel", [GaussianKernel(0.7), LaplaceKernel(0.7)])
def test_exact_sampler_covariance_matches_kernel(kernel):
    # E[h_M(x)^T h_M(x')] = k(x, x'): average over P = 40000 iid paths; s.e. <= sqrt(2/P) ~ 0.007.
    P = 40000
    sampler = ExactGaussianProcessPaths(kernel, P, random_state=1).fit(POINTS)
    F = sampler.evaluate(POINTS)
    np.testing.assert_allclose(empirical_path_covariance(F), kernel(POINTS), atol=0.035)
    # h_M = F / sqrt(M): the inner product over the M coordinates is the same average.
    H = sampler.transform(POINTS)
    np.testing.assert_allclose(H @ H.T, empirical_path_covariance(F), rtol=1e-12)
    assert sampler.jitter_ and sampler.jitter_[0] >= 0


def test_exact_sampler_conditional_test_points_follow_joint_law():
    # Fit on two points, then draw two new points conditionally: the joint covariance of all four
    # must be the kernel matrix (same tolerance as above), and old values must be unchanged.
    kernel = GaussianKernel(0.8)
    P = 40000
    sampler = ExactGaussianProcessPaths(kernel, P, random_state=2).fit(POINTS[:2])
    before = sampler.evaluate(POINTS[:2]).copy()
    F = sampler.evaluate(POINTS)
    np.testing.assert_array_equal(F[:2], before)
    np.testing.assert_allclose(empirical_path_covariance(F), kernel(POINTS), atol=0.035)


def test_exact_sampler_is_consistent_across_queries():
    sampler = ExactGaussianProcessPaths(GaussianKernel(1.0), 5, random_state=3).fit(X_TRAIN[:40])
    a = sampler.transform(X_TEST[:10])
    b = sampler.transform(X_TEST[:20])  # a superset, in one batch
    c = sampler.transform(X_TEST[5:15][::-1])  # subset, reordered
    np.testing.assert_array_equal(a, b[:10])
    np.testing.assert_array_equal(c, b[5:15][::-1])
    dup = sampler.transform(np.vstack([X_TEST[:3], X_TEST[:3]]))
    np.testing.assert_array_equal(dup[:3], dup[3:])
    assert sampler.n_points_ == 40 + 20


def test_exact_sampler_reports_jitter_for_near_singular_matrix():
    # 300 points in the unit square: the Gaussian kernel matrix is numerically singular
    X = np.random.default_rng(0).uniform(0.0, 1.0, (300, 2))
    sampler = ExactGaussianProcessPaths(GaussianKernel(1.0), 3, jitter=1e-16, random_state=0).fit(X)
    assert sampler.jitter_[0] > 1e-16  # escalated and recorded
    # the privacy bound does not depend on the jitter these points needed (a statistic of the data)
    assert max(sampler.jitter_) <= sampler.max_jitter
    assert sampler.variance_bound == 1.0 + sampler.max_jitter
    other = ExactGaussianProcessPaths(GaussianKernel(1.0), 3, jitter=1e-16, random_state=0).fit(X[:5] * 50)
    assert max(other.jitter_) < max(sampler.jitter_) and other.variance_bound == sampler.variance_bound


@pytest.mark.parametrize("features", ["sincos", "phase"])
def test_approximate_sampler_approaches_exact_law_as_D_grows(features):
    # Error = max |empirical path covariance - k|. At D = 5 the random-feature kernel k_D is far
    # from k; at D = 2000 its error is ~ sqrt(1/D) ~ 0.02, plus Monte-Carlo error ~ 0.007 from
    # P = 40000 paths. Tolerance 0.06 leaves > 3 s.e. of slack.
    kernel = GaussianKernel(0.7)
    P = 40000
    errors = {}
    for D in (5, 2000):
        sampler = RandomFeatureGaussianProcessPaths(kernel, P, D, features=features, random_state=4).fit(POINTS)
        F = sampler.evaluate(POINTS)
        errors[D] = np.abs(empirical_path_covariance(F) - kernel(POINTS)).max()
    assert errors[2000] < errors[5]
    assert errors[2000] < 0.06
    # and against the exact sampler's empirical covariance
    F_exact = ExactGaussianProcessPaths(kernel, P, random_state=5).fit(POINTS).evaluate(POINTS)
    F_apx = RandomFeatureGaussianProcessPaths(kernel, P, 2000, features=features, random_state=6).fit(POINTS)
    diff = np.abs(empirical_path_covariance(F_apx.evaluate(POINTS)) - empirical_path_covariance(F_exact)).max()
    assert diff < 0.07  # two Monte-Carlo errors plus the D = 2000 bias


def test_sincos_paths_have_unit_variance_given_frequencies():
    s = RandomFeatureGaussianProcessPaths(GaussianKernel(1.0), 3, 50, random_state=0).fit(POINTS)
    Phi = s._phi(POINTS)
    np.testing.assert_allclose(np.einsum("ij,ij->i", Phi, Phi), 1.0)  # k_D(x, x) = 1 exactly
    assert s.variance_bound == 1.0
    assert RandomFeatureGaussianProcessPaths(GaussianKernel(1.0), 3, 50, features="phase").variance_bound == 2.0


@pytest.mark.parametrize("t", [0.1, 0.01])
def test_laurent_massart_bound_holds_in_simulation(t):
    # ||h_M(x)||^2 <= D2 with probability >= 1 - t. Simulate R = 100000 independent projections
    # (groups of M iid exact paths) at a point with k(x, x) = kappa^2 = 1. Slack: 4 binomial s.e.
    M, R = 10, 100000
    sampler = ExactGaussianProcessPaths(GaussianKernel(1.0), M * R, random_state=7).fit(POINTS[:1])
    F = sampler.evaluate(POINTS[:1]).reshape(R, M)
    sq_norms = (F**2).sum(axis=1) / M
    D2 = laurent_massart_bound(1.0, M, t)
    failure = np.mean(sq_norms > D2)
    assert failure <= t + 4 * math.sqrt(t * (1 - t) / R)


def test_laurent_massart_bound_formula():
    L = math.log(1 / 0.01)
    assert laurent_massart_bound(2.0, 50, 0.01) == pytest.approx(2.0 * (1 + 2 * math.sqrt(L / 50) + 2 * L / 50))


# ######################################################################################
# linear kernel: Euclidean Gaussian random projection
# ######################################################################################


def test_linear_kernel_paths_are_euclidean_random_projection_exactly():
    d, M = 4, 7
    X = np.random.default_rng(0).standard_normal((6, d))
    X /= 2 * np.linalg.norm(X, axis=1, keepdims=True)
    sampler = ExactGaussianProcessPaths(LinearKernel(1.0), M, random_state=np.random.default_rng(11)).fit(X)
    G = np.random.default_rng(11).standard_normal((d, M))
    np.testing.assert_allclose(sampler.transform(X), X @ G / math.sqrt(M), rtol=1e-13)


class _LinearViaCholesky(LinearKernel):
    """Linear kernel that the exact sampler treats as a generic kernel (Cholesky path)."""

    name = "linear-generic"


def test_linear_kernel_generic_gp_sampler_has_random_projection_law():
    # Law check: the generic GP sampler on the linear kernel and G^T x / sqrt(M) have the same
    # covariance X X^T (tolerance: P = 40000 paths, entries of X X^T <= 0.25, s.e. <= 0.003).
    X = np.array([[0.3, 0.1, 0.0], [0.0, -0.4, 0.2], [0.2, 0.2, 0.2]])
    P = 40000
    F_gp = ExactGaussianProcessPaths(_LinearViaCholesky(1.0), P, random_state=1).fit(X).evaluate(X)
    F_rp = X @ np.random.default_rng(2).standard_normal((3, P))
    np.testing.assert_allclose(empirical_path_covariance(F_gp), X @ X.T, atol=0.015)
    np.testing.assert_allclose(empirical_path_covariance(F_rp), X @ X.T, atol=0.015)


def test_linear_kernel_krr_is_ridge_on_projected_inputs():
    X = X_TRAIN / math.sqrt(3)  # ||x|| <= 1
    est = RandomProjectionKRR(kernel="linear", n_components=2, lam=0.1, random_state=0).fit(X, Y_TRAIN)
    Z = est.feature_map_.transform(X)
    G = est.feature_map_._G
    np.testing.assert_allclose(Z, X @ G / math.sqrt(2), rtol=1e-13)
    n = X.shape[0]
    beta = np.linalg.solve(Z.T @ Z / n + 0.1 * np.eye(2), Z.T @ Y_TRAIN / n)
    np.testing.assert_allclose(est.coef_, beta, rtol=1e-10)


def test_linear_kernel_enforces_norm_bound():
    with pytest.raises(ValueError, match="norm above the bound"):
        DPRandomProjectionKRR(kernel="linear", feature_bound=0.5, random_state=0).fit(X_TRAIN, Y_TRAIN)
    est = DPRandomProjectionKRR(
        kernel="linear", feature_bound=0.5, row_norm_policy="clip", n_components=3, keep_unreleased=True, random_state=0
    ).fit(X_TRAIN, Y_TRAIN)
    assert est.row_norm_record_.n_rows_over > 0
    assert est.norm_bound_sq_ == pytest.approx(laurent_massart_bound(0.25, 3, 1e-5 / 8))


# ######################################################################################
# calibrations
# ######################################################################################


def test_covariance_sensitivity_bound():
    # ||z z^T - z' z'^T||_F <= sqrt(2) D2 whenever ||z||^2, ||z'||^2 <= D2.
    rng = np.random.default_rng(0)
    for _ in range(200):
        z, zp = rng.standard_normal((2, 5))
        z *= rng.uniform() / np.linalg.norm(z)
        zp *= rng.uniform() / np.linalg.norm(zp)
        assert np.linalg.norm(np.outer(z, z) - np.outer(zp, zp)) <= math.sqrt(2) + 1e-12


def test_release_uses_analytic_gaussian_sigma():
    from fastmix.accounting import analytic_gaussian_sigma

    Z = np.ones((10, 3)) / 3
    rel = release_sufficient_statistics(
        Z,
        np.zeros(10),
        epsilon=1.0,
        delta_covariance=1e-5,
        delta_vector=2e-5,
        feature_norm_sq=2.0,
        response_bound=3.0,
        random_state=np.random.default_rng(0),
    )
    assert rel.sensitivity_covariance == pytest.approx(math.sqrt(2) * 2.0 / 10)
    assert rel.sensitivity_vector == pytest.approx(2 * 3.0 * math.sqrt(2.0) / 10)
    assert rel.sigma_covariance == pytest.approx(analytic_gaussian_sigma(0.5, 1e-5, rel.sensitivity_covariance))
    assert rel.sigma_vector == pytest.approx(analytic_gaussian_sigma(0.5, 2e-5, rel.sensitivity_vector))
    np.testing.assert_array_equal(rel.covariance, rel.covariance.T)


@pytest.mark.parametrize("eps,delta_tail", [(0.1, 1e-6), (1.0, 1e-5), (10.0, 0.01)])
def test_objective_perturbation_calibration_solves_its_inequalities(eps, delta_tail):
    cal = objective_perturbation_calibration(
        eps, delta_tail, feature_norm=1.3, lipschitz=1.0, smoothness=0.25, n=100, lam=1e-6
    )
    sigma, lam_eff, lam_min = cal.sigma, cal.lam_effective, cal.lam_min
    s = 2 * 1.3
    tau2 = 2 * math.log(1 / delta_tail)
    # noise part of the privacy loss equals eps/2 at the tail threshold
    assert s * math.sqrt(tau2) / sigma + s**2 / (2 * sigma**2) == pytest.approx(eps / 2)
    # the projection of b on a 2-dim subspace exceeds sigma*tau with probability delta_tail
    assert stats.chi2.sf(tau2, df=2) == pytest.approx(delta_tail)
    # determinant part: 1 + c2 Delta^2 / (n lam) <= exp(eps/2)
    assert 1 + 0.25 * 1.3**2 / (100 * lam_eff) <= math.exp(eps / 2) * (1 + 1e-12)
    assert lam_eff == max(1e-6, lam_min)


def test_solve_ridge_floored_equals_plain_solve_when_well_conditioned():
    rng = np.random.default_rng(0)
    A = rng.standard_normal((5, 5))
    C = A @ A.T
    u = rng.standard_normal(5)
    solution = solve_ridge_floored(C, u, 0.1)
    assert solution.n_floored == 0
    np.testing.assert_allclose(solution.coef, np.linalg.solve(C + 0.1 * np.eye(5), u))


# ######################################################################################
# estimators: ledgers, limits, reproducibility
# ######################################################################################

PRIVATE_VARIANTS = [
    ("rp-exact", lambda **kw: DPRandomProjectionKRR(sampler="exact", **kw)),
    ("rp-exact-clip", lambda **kw: DPRandomProjectionKRR(sampler="exact", clip_features=True, **kw)),
    ("rp-approx", lambda **kw: DPRandomProjectionKRR(sampler="approximate", n_frequencies=500, **kw)),
    (
        "rp-approx-clip",
        lambda **kw: DPRandomProjectionKRR(sampler="approximate", n_frequencies=500, clip_features=True, **kw),
    ),
    ("rp-laplace", lambda **kw: DPRandomProjectionKRR(kernel="laplace", **kw)),
    ("rff", lambda **kw: DPRandomFeatureKRR(**kw)),
    ("rff-laplace", lambda **kw: DPRandomFeatureKRR(kernel="laplace", **kw)),
]
CLASSIFIER_VARIANTS = [
    ("logistic", lambda **kw: DPRandomProjectionLogistic(classes=[0, 1], **kw)),
    ("logistic-clip", lambda **kw: DPRandomProjectionLogistic(classes=[0, 1], clip_features=True, **kw)),
    (
        "logistic-approx",
        lambda **kw: DPRandomProjectionLogistic(classes=[0, 1], sampler="approximate", n_frequencies=500, **kw),
    ),
]
Y_CLASS = (Y_TRAIN > 0).astype(int)


@pytest.mark.parametrize("name,make", PRIVATE_VARIANTS + CLASSIFIER_VARIANTS)
@pytest.mark.parametrize("eps,delta", [(0.5, 1e-6), (3.0, 1e-3)])
def test_ledger_total_within_budget(name, make, eps, delta):
    y = Y_CLASS if name.startswith("logistic") else Y_TRAIN
    est = make(epsilon=eps, delta=delta, n_components=10, random_state=0).fit(X_TRAIN, y)
    ledger = est.privacy_ledger_
    assert ledger.total_epsilon <= eps
    assert ledger.total_delta <= delta
    assert ledger.total_epsilon == pytest.approx(eps)  # the budget is used, not wasted
    assert ledger.total_delta == pytest.approx(delta)
    has_event = any("norm event" in e.mechanism for e in ledger.entries)
    assert has_event == (name.startswith(("rp", "logistic")) and "clip" not in name)


@pytest.mark.parametrize(
    "name,clip,algorithm",
    [
        ("rp", False, "Algorithm 1 / Theorem 1"),
        ("rp", True, "Algorithm 1 / Theorem 1"),
        ("rff", False, "Algorithm 3 / Theorem 5"),
    ],
)
def test_dp_krr_ledger_records(name, clip, algorithm):
    """Both private KRR fits spend the same way: (norm event,) covariance, vector, with their paper's source."""
    eps, delta = 1.5, 1e-4
    if name == "rp":
        est = DPRandomProjectionKRR(epsilon=eps, delta=delta, n_components=8, clip_features=clip, random_state=3)
    else:
        est = DPRandomFeatureKRR(epsilon=eps, delta=delta, n_components=8, random_state=3)
    est.fit(X_TRAIN, Y_TRAIN)
    entries = est.privacy_ledger_.entries
    event = name == "rp" and not clip
    assert [e.mechanism for e in entries] == (
        ["Laurent-Massart norm event (both differing records, t = delta/8 each)"] if event else []
    ) + ["Gaussian mechanism: covariance C~", "Gaussian mechanism: vector u~"]
    releases = entries[-2:]
    assert [e.epsilon for e in releases] == [eps / 2, eps / 2]
    assert [e.delta for e in releases] == ([delta / 4, delta / 2] if event else [delta / 2, delta / 2])
    assert all(algorithm in e.source for e in releases)
    rel = est.release_
    assert releases[0].as_dict()["details"] == {
        "sensitivity": rel.sensitivity_covariance,
        "sigma": rel.sigma_covariance,
    }
    assert releases[1].as_dict()["details"] == {"sensitivity": rel.sensitivity_vector, "sigma": rel.sigma_vector}
    assert est.norm_bound_sq_ == (
        2.0 if name == "rff" else laurent_massart_bound(est.feature_map_.variance_bound, 8, delta / 8)
    )


NONPRIVATE = {
    "rp-exact": lambda **kw: RandomProjectionKRR(sampler="exact", **kw),
    "rp-exact-clip": lambda **kw: RandomProjectionKRR(sampler="exact", **kw),
    "rp-approx": lambda **kw: RandomProjectionKRR(sampler="approximate", n_frequencies=500, **kw),
    "rp-approx-clip": lambda **kw: RandomProjectionKRR(sampler="approximate", n_frequencies=500, **kw),
    "rp-laplace": lambda **kw: RandomProjectionKRR(kernel="laplace", **kw),
    "rff": lambda **kw: RandomFeatureKRR(**kw),
    "rff-laplace": lambda **kw: RandomFeatureKRR(kernel="laplace", **kw),
}


@pytest.mark.parametrize("name,make", PRIVATE_VARIANTS)
def test_large_epsilon_approaches_nonprivate(name, make):
    # Same seed -> same features. For large eps the Gaussian-mechanism noise std behaves like
    # sensitivity / sqrt(2 eps) (not / eps), so at eps = 1e6 (the largest an estimator accepts) it
    # is ~7e-4 of the sensitivity and the private predictions must match the non-private ones to
    # 1e-2 (|y| <= T = 1: no truncation); at eps = 1 they are further away.
    kw = dict(n_components=15, lam=1e-2, random_state=3)
    private = make(epsilon=1e6, delta=1e-5, **kw).fit(X_TRAIN, Y_TRAIN)
    plain = NONPRIVATE[name](**kw).fit(X_TRAIN, Y_TRAIN)
    np.testing.assert_allclose(private.predict(X_TEST), plain.predict(X_TEST), atol=1e-2)
    assert private.n_eigenvalues_floored_ == 0
    loose = make(epsilon=1.0, delta=1e-5, **kw).fit(X_TRAIN, Y_TRAIN)
    gap_small = np.abs(private.predict(X_TEST) - plain.predict(X_TEST)).max()
    gap_large = np.abs(loose.predict(X_TEST) - plain.predict(X_TEST)).max()
    assert gap_small < gap_large


@pytest.mark.parametrize("name,make", CLASSIFIER_VARIANTS)
def test_logistic_large_epsilon_approaches_nonprivate(name, make):
    # noise std ~ 2 Delta / sqrt(eps): ~2e-3 Delta at eps = 1e6 (the largest accepted); lam_min ~ 0.
    est = make(epsilon=1e6, delta=1e-5, n_components=15, lam=1e-2, random_state=3).fit(X_TRAIN, Y_CLASS)
    Z = est.feature_map_.transform(X_TRAIN)
    if est.feature_clip_ is not None:
        from fastmix.kernels import _clip_rows

        Z = _clip_rows(Z, est.feature_clip_)[0]
    beta0 = _logistic_newton(Z, np.where(Y_CLASS == 1, 1.0, -1.0), 1e-2, np.zeros(15))
    np.testing.assert_allclose(est.coef_, beta0, atol=2e-2)
    assert est.score(X_TRAIN, Y_CLASS) > 0.8


def test_logistic_regulariser_raised_and_recorded_at_small_epsilon():
    est = DPRandomProjectionLogistic(epsilon=0.05, n_components=10, lam=1e-8, classes=[0, 1], random_state=0)
    est.fit(X_TRAIN, Y_CLASS)
    assert est.lam_effective_ == est.lam_min_ > 1e-8
    assert est.privacy_ledger_.entries[-1].as_dict()["details"]["lam_effective"] == est.lam_effective_


@pytest.mark.parametrize("name,make", PRIVATE_VARIANTS + CLASSIFIER_VARIANTS)
def test_same_seed_same_predictions(name, make):
    y = Y_CLASS if name.startswith("logistic") else Y_TRAIN
    method = "decision_function" if name.startswith("logistic") else "predict"
    a = getattr(make(n_components=8, random_state=42).fit(X_TRAIN, y), method)(X_TEST)
    b = getattr(make(n_components=8, random_state=42).fit(X_TRAIN, y), method)(X_TEST)
    c = getattr(make(n_components=8, random_state=43).fit(X_TRAIN, y), method)(X_TEST)
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, c)


def test_psd_fix_is_recorded_at_tiny_epsilon():
    est = DPRandomProjectionKRR(epsilon=0.01, n_components=20, lam=1e-3, random_state=0).fit(X_TRAIN, Y_TRAIN)
    assert est.indefinite_
    assert est.min_eigenvalue_ <= 0
    assert est.n_eigenvalues_floored_ > 0
    # default floor = lam: ||beta|| <= ||u~|| / lam, as for a PSD covariance
    assert np.linalg.norm(est.coef_) <= np.linalg.norm(est.release_.vector) / 1e-3 * (1 + 1e-9)
    assert np.all(np.isfinite(est.predict(X_TEST)))
    rff = DPRandomFeatureKRR(epsilon=0.01, n_components=20, lam=1e-3, random_state=0).fit(X_TRAIN, Y_TRAIN)
    assert rff.indefinite_ and rff.n_eigenvalues_floored_ > 0


@pytest.mark.filterwarnings("ignore::fastmix._validation.ResponseClippingWarning")
def test_response_truncation_recorded():
    y = Y_TRAIN * 3
    kw = dict(n_components=5, y_policy="clip", keep_unreleased=True, random_state=0)
    est = DPRandomProjectionKRR(response_bound=1.0, **kw).fit(X_TRAIN, y)
    assert est.n_responses_clipped_ == int(np.sum(np.abs(y) > 1.0)) > 0
    est = DPRandomFeatureKRR(response_bound=5.0, **kw).fit(X_TRAIN, y)
    assert est.n_responses_clipped_ == 0


def test_clip_features_records_and_bounds_norms():
    # M = 1, delta = 0.99 and a tiny bandwidth (nearly independent path values at 2000 points):
    # each row exceeds D2 with probability ~0.005, so about 9 rows are clipped.
    X, y = make_regression_data(n=2000, d=2)
    est = DPRandomProjectionKRR(
        clip_features=True,
        delta=0.99,
        n_components=1,
        bandwidth=1e-3,
        sampler="approximate",
        keep_unreleased=True,
        random_state=0,
    ).fit(X, y)
    assert est.n_features_clipped_ > 0
    X_big = X
    Z = est.feature_map_.transform(X_big)
    assert np.sum(np.einsum("ij,ij->i", Z, Z) > est.norm_bound_sq_) == est.n_features_clipped_


def test_auto_sampler_choice():
    X, y = make_regression_data(n=3500, d=2)
    assert DPRandomProjectionKRR(n_components=5, random_state=0).fit(X, y).sampler_ == "approximate"
    assert DPRandomProjectionKRR(n_components=5, random_state=0).fit(X_TRAIN, Y_TRAIN).sampler_ == "exact"


# ######################################################################################
# input validation
# ######################################################################################

BAD_PARAMS = [
    (dict(epsilon=0.0), "epsilon must be a finite number > 0"),
    (dict(epsilon=-1.0), "epsilon must be a finite number > 0"),
    (dict(delta=0.0), "delta must lie strictly between 0 and 1"),
    (dict(delta=1.0), "delta must lie strictly between 0 and 1"),
    (dict(n_components=0), "n_components must be at least 1"),
    (dict(lam=0.0), "lam must be > 0.*ridge penalty"),
    (dict(lam=-1.0), "lam must be > 0"),
    (dict(bandwidth=0.0), "bandwidth must be > 0.*length scale"),
    (dict(bandwidth=-2.0), "bandwidth must be > 0"),
    (dict(kernel="poly"), "kernel must be one of"),
]


@pytest.mark.parametrize("cls", [DPRandomProjectionKRR, DPRandomFeatureKRR, DPRandomProjectionLogistic])
@pytest.mark.parametrize("params,match", BAD_PARAMS)
def test_bad_parameters_raise(cls, params, match):
    y = Y_CLASS if cls is DPRandomProjectionLogistic else Y_TRAIN
    with pytest.raises(ValueError, match=match):
        cls(**params).fit(X_TRAIN, y)


@pytest.mark.parametrize("cls", [DPRandomProjectionKRR, DPRandomFeatureKRR, RandomProjectionKRR])
def test_bad_data_raise(cls):
    X = X_TRAIN.copy()
    X[3, 1] = np.nan
    with pytest.raises(ValueError, match="non-finite"):
        cls().fit(X, Y_TRAIN)
    y = Y_TRAIN.copy()
    y[0] = np.inf
    with pytest.raises(ValueError, match=r"non-finite|infinity"):
        cls().fit(X_TRAIN, y)
    with pytest.raises(ValueError, match="Reshape"):
        cls().fit(X_TRAIN[:, 0], Y_TRAIN)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        cls().fit(X_TRAIN, Y_TRAIN[:-1])
    est = cls(n_components=3, random_state=0).fit(X_TRAIN, Y_TRAIN)
    with pytest.raises(ValueError, match="features"):
        est.predict(X_TRAIN[:, :2])


def test_rff_rejects_linear_kernel_and_logistic_rejects_multiclass():
    with pytest.raises(ValueError, match="shift-invariant"):
        DPRandomFeatureKRR(kernel="linear").fit(X_TRAIN, Y_TRAIN)
    with pytest.warns(NotPrivateWarning, match="classes=None"), pytest.raises(ValueError, match="Only binary"):
        DPRandomProjectionLogistic().fit(X_TRAIN, np.arange(X_TRAIN.shape[0]) % 3)
    with pytest.raises(ValueError, match="shift-invariant"):
        RandomFeatureGaussianProcessPaths(LinearKernel(), 3)


# ######################################################################################
# scikit-learn API
# ######################################################################################
# All of sklearn's checks run. The one relaxation is the `poor_score` regressor tag: the training
# R^2 > 0.5 check uses a fixed bandwidth / M on sklearn's own data and, for the private estimators,
# noise calibrated to (epsilon, delta); a private estimator is not meant to pass an accuracy check
# at default privacy. Accuracy is tested above against the non-private counterparts instead.
# sklearn's checks feed responses far outside [-1, 1], which the default y_policy="raise" refuses
# by design: the private learners are checked with the paper's truncation (y_policy="clip"), and
# the warnings that truncation and pickling an exact-sampler fit give are expected there. The
# logistic is checked with classes=None (sklearn's checks use many label sets), which reads the
# label set from the data and so warns that the fit is not private.


@pytest.mark.filterwarnings("ignore::fastmix._validation.ResponseClippingWarning")
@pytest.mark.filterwarnings("ignore:Pickling a DP:fastmix._validation.PrivacyWarning")
@pytest.mark.filterwarnings("ignore:DPRandomProjectionLogistic is not:fastmix._validation.NotPrivateWarning")
@parametrize_with_checks(
    [
        RandomProjectionKRR(n_components=10),
        RandomFeatureKRR(n_components=10),
        DPRandomProjectionKRR(n_components=10, y_policy="clip"),
        DPRandomFeatureKRR(n_components=10, y_policy="clip"),
        DPRandomProjectionLogistic(epsilon=1e3, n_components=10),
    ]
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_theory_hyperparameters_follow_the_rates():
    from fastmix.kernels import theory_hyperparameters

    a = theory_hyperparameters(1000, 1.0, 1e-5, method="rp")
    b = theory_hyperparameters(100000, 1.0, 1e-5, method="rp")
    assert a.n_components == math.ceil(2 * math.log(1000)) and b.n_components > a.n_components  # gamma = 0: M ~ log n
    assert b.lam < a.lam
    f = theory_hyperparameters(1000, 1.0, 1e-5, method="rff")
    assert f.n_components == 100  # (n eps)^(2/3)
    assert f.lam >= 1000 ** (-2 / 3)
    assert theory_hyperparameters(1000, 1.0, 1e-5, method="rff", max_components=50).n_components == 50
    with pytest.warns(FutureWarning, match="n_components"):
        M, lam = f  # the former pair, for one minor version
    assert (M, lam) == (f.n_components, f.lam)
    with pytest.raises(ValueError, match="method"):
        theory_hyperparameters(1000, 1.0, 1e-5, method="nystroem")


# ######################################################################################
# the exact sampler's factorisation works in place
# ######################################################################################


@pytest.mark.parametrize("order", ["C", "F"])
def test_exact_sampler_cholesky_is_in_place_and_matches_scipy(order):
    X = np.random.default_rng(7).standard_normal((120, 3))
    kernel = GaussianKernel(0.5)  # well conditioned, so two Cholesky codes agree to rounding
    K = kernel(X)
    S = np.array(K, order=order)
    sampler = ExactGaussianProcessPaths(kernel, 2, random_state=0)
    L = sampler._chol(S)
    assert np.shares_memory(L, S)  # the factor overwrote its input: no n x n copy
    j = sampler.jitter_[-1]
    from scipy import linalg

    np.testing.assert_allclose(L, linalg.cholesky(K + j * np.eye(len(K)), lower=True), atol=1e-10)
    np.testing.assert_allclose(L @ L.T, K + j * np.eye(len(K)), atol=1e-12)
    assert np.all(np.triu(L, 1) == 0.0)


def test_exact_sampler_cholesky_retry_restores_the_matrix():
    # 300 points in the unit square need more jitter than 1e-16: the first potrf fails part-way
    # through and overwrites part of the lower triangle, which must be restored before the retry.
    X = np.random.default_rng(0).uniform(0.0, 1.0, (300, 2))
    kernel = GaussianKernel(1.0)
    K = kernel(X)
    sampler = ExactGaussianProcessPaths(kernel, 3, jitter=1e-16, random_state=0)
    L = sampler._chol(K.copy())
    j = sampler.jitter_[-1]
    assert j > 1e-16
    np.testing.assert_allclose(L @ L.T, K + j * np.eye(len(K)), atol=1e-12)


def test_exact_sampler_fit_peak_memory_is_one_kernel_matrix():
    # NumPy reports its allocations to tracemalloc; the fit must not hold more than two n x n
    # float64 arrays at once (the kernel matrix, factorised in place, plus small arrays).
    import tracemalloc

    n = 600
    X = np.random.default_rng(1).standard_normal((n, 4))
    tracemalloc.start()
    try:
        ExactGaussianProcessPaths(GaussianKernel(2.0), 10, random_state=0).fit(X)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 2 * 8 * n * n


# --------------------------------------------------------------------------- seeding and argument checks


@pytest.mark.parametrize(
    "make",
    [
        lambda rs: ExactGaussianProcessPaths(GaussianKernel(1.0), 5, random_state=rs),
        lambda rs: RandomFeatureGaussianProcessPaths(GaussianKernel(1.0), 5, 50, random_state=rs),
        lambda rs: RandomFourierFeatures(GaussianKernel(1.0), 5, random_state=rs),
    ],
)
def test_refitting_with_an_integer_seed_repeats_the_draws(make):
    X = np.random.default_rng(1).uniform(-1, 1, (12, 3))
    sampler = make(7)
    first = sampler.fit(X).transform(X).copy()
    np.testing.assert_array_equal(sampler.fit(X).transform(X), first)
    np.testing.assert_array_equal(make(7).fit(X).transform(X), first)
    # a Generator continues its stream: the second fit draws afresh
    g = make(np.random.default_rng(7))
    assert not np.array_equal(g.fit(X).transform(X), g.fit(X).transform(X))


def test_samplers_refuse_a_bad_random_state_at_construction():
    with pytest.raises(TypeError, match="random_state"):
        RandomFourierFeatures(GaussianKernel(1.0), 5, random_state="seven")


def test_random_projection_paths_names_the_valid_samplers():
    with pytest.raises(ValueError, match=r"'exact' or 'approximate'; got 'auto'"):
        random_projection_paths(GaussianKernel(1.0), 4, sampler="auto")


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"epsilon": -1.0}, "epsilon"),
        ({"delta_tail": 1.5}, "delta_tail"),
        ({"feature_norm": 0.0}, "feature_norm"),
        ({"lipschitz": -1.0}, "lipschitz"),
        ({"n": 0}, "n"),
        ({"lam": -1e-3}, "lam"),
    ],
)
def test_objective_perturbation_calibration_refuses_bad_arguments(kwargs, name):
    args = dict(epsilon=1.0, delta_tail=1e-6, feature_norm=1.0, lipschitz=1.0, smoothness=0.25, n=100, lam=1e-3)
    args.update(kwargs)
    with pytest.raises((ValueError, TypeError), match=name):
        objective_perturbation_calibration(**args)


def test_release_takes_random_state_and_rng_is_a_deprecated_alias():
    Z = np.random.default_rng(0).uniform(-0.5, 0.5, (20, 4))
    y = np.zeros(20)
    kw = dict(epsilon=1.0, delta_covariance=1e-5, delta_vector=1e-5, feature_norm_sq=1.0, response_bound=1.0)
    new = release_sufficient_statistics(Z, y, random_state=3, **kw)
    with pytest.warns(FutureWarning, match="random_state"):
        old = release_sufficient_statistics(Z, y, rng=np.random.default_rng(3), **kw)
    np.testing.assert_array_equal(new.covariance, old.covariance)
    np.testing.assert_array_equal(new.vector, old.vector)
    with pytest.raises(TypeError, match="got both"):
        release_from_statistics(Z.T @ Z, Z.T @ y, 20, random_state=1, rng=np.random.default_rng(1), **kw)


@pytest.mark.parametrize("kernel", [GaussianKernel(0.7), LaplaceKernel(0.7)])
def test_sample_frequencies_takes_random_state(kernel):
    ref = kernel.sample_frequencies(6, 3, random_state=5)
    assert ref.shape == (3, 6)
    np.testing.assert_array_equal(kernel.sample_frequencies(6, 3, np.random.default_rng(5)), ref)
    assert not np.array_equal(kernel.sample_frequencies(6, 3, random_state=6), ref)


def test_tuple_results_are_dataclasses_and_old_unpacking_warns():
    C = np.diag([1.0, -0.5, 2.0])
    u = np.ones(3)
    spectrum = 0.5 ** np.arange(30)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # reading the fields warns about nothing
        one = solve_ridge_floored(C, u, 0.1)
        path = ridge_path_floored(C, u, [0.1, 1.0])
        cal = objective_perturbation_calibration(
            1.0, 1e-6, feature_norm=1.0, lipschitz=1.0, smoothness=0.25, n=100, lam=0.0
        )
        choice = theory_rp_hyperparameters(500, 1.0, 1e-5, spectrum, max_components=4)
    assert one.n_floored == 1 and one.min_eigenvalue == pytest.approx(-0.4)
    np.testing.assert_allclose(path.coef[0], one.coef)
    assert list(path.n_floored) == [1, 1]  # a negative eigenvalue stays below the floor at every lam
    assert cal.lam_effective == cal.lam_min > 0
    assert choice.n_components == 4 and choice.capped
    with pytest.warns(FutureWarning, match=r"RidgeSolution replaced the tuple.*\.coef"):
        beta, n_floored, lowest = one
    assert beta is one.coef and (n_floored, lowest) == (one.n_floored, one.min_eigenvalue)
    with pytest.warns(FutureWarning, match="ObjectivePerturbationCalibration"):
        assert tuple(cal) == (cal.sigma, cal.lam_effective, cal.lam_min)
    with pytest.warns(FutureWarning, match="RPHyperparameters"):
        M, lam, info = choice
    assert (M, lam) == (choice.n_components, choice.lam)
    assert info == {"N_lam": choice.effective_dimension, "t": choice.t, "capped": True}
    with pytest.warns(FutureWarning, match="RidgeSolution"):
        assert path[1] is path.n_floored


# ######################################################################################
# the conventions of the package's private estimators: relation, options that break the
# guarantee, outer ledger, response policy, unreleased statistics, what may be published
# ######################################################################################

PRIVATE_KRR = [
    lambda **kw: DPRandomProjectionKRR(sampler="approximate", n_frequencies=200, **kw),
    lambda **kw: DPRandomFeatureKRR(**kw),
]


def _numbers(objects):
    """The ints and floats (Python or NumPy scalars) among ``objects``."""
    return [o for o in objects if isinstance(o, (int, float, np.integer, np.floating)) and not isinstance(o, bool)]


def _holds_values_of(objects, X):
    """Whether any float, array or buffer among ``objects`` holds an entry of X (continuous: no coincidence)."""
    values = np.asarray(X, dtype=np.float64).ravel()
    for obj in objects:
        if isinstance(obj, float) and obj in values:
            return True
        if isinstance(obj, np.ndarray) and obj.dtype.kind == "f" and np.intersect1d(obj.ravel(), values).size:
            return True
        if isinstance(obj, bytes) and obj and len(obj) % 8 == 0:
            if np.intersect1d(np.frombuffer(obj, dtype=np.float64), values).size:
                return True
    return False


def test_the_private_kernel_learners_state_the_kernel_papers_relation():
    for est in (DPRandomProjectionKRR(), DPRandomFeatureKRR()):
        assert est.privacy_relation == REPLACE_ONE
        assert est.non_private_options() == ()


@pytest.mark.parametrize("make", PRIVATE_KRR)
def test_the_outer_ledger_is_charged_and_an_unaffordable_fit_is_refused_before_the_data_are_read(make):
    outer = PrivacyLedger(1.5, 1e-4, relation=REPLACE_ONE)
    est = make(epsilon=1.0, delta=5e-5, n_components=5, ledger=outer, random_state=0).fit(X_TRAIN, Y_TRAIN)
    assert outer.entries == est.privacy_ledger_.entries
    assert outer.total_epsilon == pytest.approx(1.0) and outer.total_delta == pytest.approx(5e-5)
    assert clone(est).ledger is outer  # one budget across scikit-learn's clones
    with pytest.raises(BudgetExceededError, match="Nothing was recorded"):
        est.fit(Untouchable(), Untouchable())
    assert outer.total_epsilon == pytest.approx(1.0)


def test_a_zero_out_outer_ledger_takes_the_entries_converted_at_no_cost():
    outer = PrivacyLedger(2.0, 1e-4)  # zero-out, as for the least-squares regressors
    est = DPRandomProjectionKRR(sampler="exact", n_components=5, ledger=outer, random_state=0).fit(X_TRAIN, Y_TRAIN)
    own = est.privacy_ledger_.entries
    assert len(own) == 3 and {e.relation for e in own} == {REPLACE_ONE}
    assert [e.relation for e in outer.entries] == [ZERO_OUT] * 3
    assert [(e.epsilon, e.delta) for e in outer.entries] == [(e.epsilon, e.delta) for e in own]
    assert all("no cost" in e.mechanism for e in outer.entries)
    with pytest.raises(TypeError, match="PrivacyLedger or None; got dict"):
        DPRandomFeatureKRR(ledger={}).fit(X_TRAIN, Y_TRAIN)


def _responses_out_of_bounds():
    y = Y_TRAIN.copy()
    y[:7] = 2.5
    y[7] = -3.25
    return y  # 8 of 300 above T = 1


@pytest.mark.parametrize("make", PRIVATE_KRR)
def test_responses_above_the_bound_are_refused_by_default_with_the_count_and_the_fixes(make):
    pattern = r"8 of 300 response\(s\) have \|y_i\| above .*largest \|y_i\| = 3\.25.*"
    pattern += r"Divide y by a public bound.*raise response_bound.*y_policy='clip'"
    with pytest.raises(ValueError, match=pattern):
        make(n_components=5, random_state=0).fit(X_TRAIN, _responses_out_of_bounds())


@pytest.mark.parametrize("make", PRIVATE_KRR)
def test_y_policy_clip_is_the_papers_truncation_and_warns_with_the_count_and_share(make):
    y = _responses_out_of_bounds()
    with pytest.warns(ResponseClippingWarning, match=r"8 of 300 responses \(2\.7%\) were clipped to \[-T, T\]"):
        est = make(n_components=5, y_policy="clip", random_state=0).fit(X_TRAIN, y)
    truncated = make(n_components=5, random_state=0).fit(X_TRAIN, np.clip(y, -1.0, 1.0))
    np.testing.assert_array_equal(est.coef_, truncated.coef_)  # Algorithm 1 step 1, nothing more
    with warnings.catch_warnings():
        warnings.simplefilter("error", ResponseClippingWarning)  # nothing clipped, nothing to say
        make(n_components=5, y_policy="clip", random_state=0).fit(X_TRAIN, Y_TRAIN)


@pytest.mark.parametrize("cls", [DPRandomProjectionKRR, DPRandomFeatureKRR])
def test_a_bad_y_policy_is_refused_with_the_valid_ones(cls):
    with pytest.raises(ValueError, match=r"y_policy must be one of 'raise', 'clip'; got 'rescale'"):
        cls(y_policy="rescale").fit(X_TRAIN, Y_TRAIN)


def test_rescaling_the_rows_of_the_linear_kernel_warns_and_marks_every_entry_not_private():
    est = DPRandomProjectionKRR(kernel="linear", row_norm_policy="rescale", n_components=3, random_state=0)
    (reason,) = est.non_private_options()
    assert "row_norm_policy='rescale'" in reason and "largest row norm" in reason
    assert DPRandomProjectionKRR(row_norm_policy="rescale").non_private_options() == ()  # Gaussian: no row bound
    assert DPRandomProjectionKRR(kernel="linear", row_norm_policy="clip").non_private_options() == ()
    outer = PrivacyLedger(5.0, 1e-4)
    with pytest.warns(NotPrivateWarning, match="row_norm_policy='rescale'"):
        est.set_params(ledger=outer).fit(X_TRAIN, Y_TRAIN)
    for led in (est.privacy_ledger_, outer):
        assert not led.private and len(led.entries) == 3
        assert all(e.not_private == reason for e in led.entries)
        assert "NOT PRIVATE" in led.summary()
    assert DPRandomProjectionKRR(kernel="linear", n_components=3).fit(X_TRAIN / 3, Y_TRAIN).privacy_ledger_.private


@pytest.mark.filterwarnings("ignore::fastmix._validation.ResponseClippingWarning")
@pytest.mark.filterwarnings("ignore:Pickling a DP:fastmix._validation.PrivacyWarning")  # seeded fits
def test_a_fitted_learner_keeps_no_unreleased_statistic_unless_asked():
    # Linear kernel (its exact paths are drawn in weight space and keep no input): rows clipped to
    # the norm bound, 37 responses clipped to T; the largest row norm and both counts are unreleased.
    y = Y_TRAIN.copy()
    y[:37] = 4.0
    max_norm = float(np.linalg.norm(X_TRAIN, axis=1).max())
    n_rows_over = int(np.count_nonzero(np.linalg.norm(X_TRAIN, axis=1) > 1.0))
    kw = dict(kernel="linear", row_norm_policy="clip", y_policy="clip", n_components=4, random_state=0)
    kept = DPRandomProjectionKRR(keep_unreleased=True, **kw).fit(X_TRAIN, y)
    assert (kept.n_responses_clipped_, kept.row_norm_record_.n_rows_over) == (37, n_rows_over)
    saved = _numbers(pickled_objects(kept))
    assert 37 in saved and max_norm in saved  # the recorder sees them when they are kept
    for est in (
        DPRandomProjectionKRR(**kw).fit(X_TRAIN, y),
        kept.set_params(keep_unreleased=False).fit(X_TRAIN, y),  # a refit drops what an earlier fit kept
        DPRandomFeatureKRR(n_components=4, y_policy="clip", random_state=0).fit(X_TRAIN, y),
    ):
        saved = pickled_objects(est)
        assert not any(hasattr(est, name) for name in ("n_responses_clipped_", "row_norm_record_"))
        assert not {37, n_rows_over, max_norm} & set(_numbers(saved))
        assert not _holds_values_of(saved, X_TRAIN)


def test_pickling_an_exact_sampler_fit_warns_and_the_approximate_sampler_is_the_publishable_form():
    exact = DPRandomProjectionKRR(sampler="exact", n_components=4)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyWarning)
        pickle.dumps(exact)  # unfitted: nothing to warn about
        exact.fit(X_TRAIN, Y_TRAIN)
        clone(exact)
    with pytest.warns(PrivacyWarning, match=r"contains X.*sampler='approximate'"):
        saved = pickled_objects(exact)
    assert _holds_values_of(saved, X_TRAIN)  # not a false alarm
    approx = DPRandomProjectionKRR(sampler="approximate", n_frequencies=200, n_components=4)
    approx.fit(X_TRAIN, Y_TRAIN)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyWarning)
        saved = pickled_objects(approx)
        restored = pickle.loads(pickle.dumps(approx))
    assert not _holds_values_of(saved, X_TRAIN)
    np.testing.assert_array_equal(restored.predict(X_TEST), approx.predict(X_TEST))


# ######################################################################################
# the privacy noise cannot be rebuilt from a fitted object, and the seed is a secret
# ######################################################################################

_GENERATOR_TYPES = (np.random.Generator, np.random.BitGenerator, np.random.SeedSequence)

DEFAULT_FITS = {
    "rff": lambda **kw: DPRandomFeatureKRR(n_components=5, **kw).fit(X_TRAIN, Y_TRAIN),
    "rp-approximate": lambda **kw: DPRandomProjectionKRR(
        sampler="approximate", n_frequencies=200, n_components=5, **kw
    ).fit(X_TRAIN, Y_TRAIN),
    "rp-linear-exact": lambda **kw: DPRandomProjectionKRR(kernel="linear", sampler="exact", n_components=5, **kw).fit(
        X_TRAIN / 2, Y_TRAIN
    ),
    "logistic-approximate": lambda **kw: DPRandomProjectionLogistic(
        sampler="approximate", n_frequencies=200, n_components=5, classes=[False, True], **kw
    ).fit(X_TRAIN, Y_TRAIN > 0),
}


def _generators_in_pickle(obj):
    """The generators, bit generators and seed sequences among the objects a pickle of ``obj`` saves."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyWarning)  # what a seeded or exact-sampler pickle says is tested apart
        return [o for o in pickled_objects(obj) if isinstance(o, _GENERATOR_TYPES)]


def _replayed_noise_generator(est):
    """The replay attack on a fitted object: the noise generator rebuilt as the feature generator's sibling."""
    seed_seq = est.feature_map_._rng.bit_generator.seed_seq
    return np.random.default_rng(np.random.SeedSequence(seed_seq.entropy, spawn_key=(1,)))


def _replay_recovers_the_covariance(est):
    """Whether ``C~`` minus the replayed noise is ``Z^T Z / n`` (the noise subtracted, the statistic exposed)."""
    rel = est.release_
    M = rel.covariance.shape[0]
    noise = rel.sigma_covariance * _replayed_noise_generator(est).standard_normal((M, M))
    Z = est.feature_map_.transform(X_TRAIN)
    return np.allclose(rel.covariance - 0.5 * (noise + noise.T), Z.T @ Z / X_TRAIN.shape[0], rtol=0, atol=1e-12)


@pytest.mark.parametrize("name", list(DEFAULT_FITS))
def test_a_default_fit_keeps_no_generator_no_seed_and_may_be_published(name):
    est = DEFAULT_FITS[name]()
    assert est.random_state is None and est.feature_map_.random_state is None
    assert getattr(est.feature_map_, "_rng", None) is None  # nothing to replay the noise from
    assert _generators_in_pickle(est) == []
    assert est.publication_caveats() == ()
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyWarning)
        restored = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(restored.predict(X_TEST), est.predict(X_TEST))
    # a seeded fit keeps no generator either (only the seed, which is itself the secret)
    assert _generators_in_pickle(DEFAULT_FITS[name](random_state=0)) == []


def test_the_exact_sampler_keeps_a_generator_of_its_own_from_which_the_noise_cannot_be_rebuilt():
    est = DPRandomProjectionKRR(sampler="exact", n_components=4).fit(X_TRAIN, Y_TRAIN)
    own = est.feature_map_._rng
    kept = {id(o) for o in _generators_in_pickle(est)}
    assert kept and kept <= {id(own), id(own.bit_generator), id(own.bit_generator.seed_seq)}
    assert not _replay_recovers_the_covariance(est)
    # the attack is real: with a seed, the sampler's generator is the noise generator's sibling, as
    # it always was (the same draws), which is why publication_caveats() names the seed
    seeded = DPRandomProjectionKRR(sampler="exact", n_components=4, random_state=0).fit(X_TRAIN, Y_TRAIN)
    assert _replay_recovers_the_covariance(seeded)
    assert any("random_state is set" in c for c in seeded.publication_caveats())


@pytest.mark.parametrize("kind", ["int", "SeedSequence", "Generator"])
@pytest.mark.parametrize("sampler", ["approximate", "rff"])
def test_a_seeded_fit_keeps_its_draws_bit_for_bit(sampler, kind):
    # The stream the estimators always used: features and noise from the two children of the seed.
    def seed():  # a fresh seed object each time (spawning advances a SeedSequence's children)
        return {"int": 5, "SeedSequence": np.random.SeedSequence(5), "Generator": np.random.default_rng(5)}[kind]

    eps, delta, M, lam = 2.0, 1e-5, 6, 0.05
    rng_features, rng_noise = np.random.default_rng(seed()).spawn(2)  # default_rng(Generator) is the Generator
    kernel = GaussianKernel(1.0)
    if sampler == "rff":
        est = DPRandomFeatureKRR(epsilon=eps, delta=delta, n_components=M, lam=lam, random_state=seed())
        Z = RandomFourierFeatures(kernel, M, random_state=rng_features).fit_transform(X_TRAIN)
        D2, d_cov, d_vec = 2.0, delta / 2, delta / 2
    else:
        est = DPRandomProjectionKRR(
            epsilon=eps,
            delta=delta,
            n_components=M,
            lam=lam,
            sampler="approximate",
            n_frequencies=300,
            random_state=seed(),
        )
        paths = RandomFeatureGaussianProcessPaths(kernel, M, 300, random_state=rng_features)
        Z = paths.fit_transform(X_TRAIN)
        D2, d_cov, d_vec = laurent_massart_bound(paths.variance_bound, M, delta / 8), delta / 4, delta / 2
    rel = release_sufficient_statistics(
        Z,
        Y_TRAIN,
        epsilon=eps,
        delta_covariance=d_cov,
        delta_vector=d_vec,
        feature_norm_sq=D2,
        response_bound=1.0,
        random_state=rng_noise,
    )
    est.fit(X_TRAIN, Y_TRAIN)
    np.testing.assert_array_equal(est.release_.covariance, rel.covariance)
    np.testing.assert_array_equal(est.coef_, solve_ridge_floored(rel.covariance, rel.vector, lam).coef)


_CAVEAT_PATTERNS = {"seed": "random_state is set", "unreleased": "keep_unreleased=True", "exact": "exact path sampler"}


@pytest.mark.filterwarnings("ignore::fastmix._validation.ResponseClippingWarning")
@pytest.mark.parametrize(
    "params, expected",
    [
        ({}, ()),
        ({"random_state": 0}, ("seed",)),
        ({"random_state": np.random.default_rng(0)}, ("seed",)),
        ({"keep_unreleased": True}, ("unreleased",)),
        ({"sampler": "exact"}, ("exact",)),
        ({"sampler": "exact", "keep_unreleased": True, "random_state": 1}, ("unreleased", "seed", "exact")),
    ],
)
@pytest.mark.parametrize("cls", [DPRandomProjectionKRR, DPRandomFeatureKRR])
def test_publication_caveats_name_each_reason_and_pickling_warns_exactly_then(cls, params, expected):
    if cls is DPRandomFeatureKRR:
        if "sampler" in params:
            pytest.skip("random Fourier features have no exact sampler")
    else:
        params = {"sampler": "approximate", "n_frequencies": 200, **params}
    est = cls(n_components=4, **params)
    with pytest.raises(NotFittedError):
        est.publication_caveats()
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyWarning)
        pickle.dumps(est)  # unfitted: never warns (clone, joblib)
        est.fit(X_TRAIN, Y_TRAIN)
        clone(est)
    caveats = est.publication_caveats()
    assert len(caveats) == len(expected)
    for caveat, reason in zip(caveats, expected, strict=True):
        assert _CAVEAT_PATTERNS[reason] in caveat
    if caveats:
        with pytest.warns(PrivacyWarning, match=rf"Pickling a {cls.__name__} that must not be published") as record:
            pickle.dumps(est)
        message = str(record[0].message)
        assert all(caveat in message for caveat in caveats)
        assert "random_state=1" not in message and "random_state=0" not in message  # the seed is not echoed
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("error", PrivacyWarning)
            pickle.dumps(est)
