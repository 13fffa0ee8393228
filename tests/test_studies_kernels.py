"""Tests for the kernel studies (fastmix_companion.studies.kernel_rp_vs_rff, fastmix_companion.studies.kernel_rates).

The studies evaluate many (M, lambda) pairs from one draw of the largest feature map; these tests
check that each private fit is still exactly the estimators' Algorithm 1 / 3, that the private
selection protocol's composed calibration meets its budget, that the runs resume from the store,
and that the gap and slope helpers recover known laws (the pages' claims are tested in
tests/test_studies_kernel_rp_vs_rff.py and tests/test_studies_kernel_rates.py).
"""

import math

import numpy as np
import pandas as pd
import pytest

from fastmix.accounting import analytic_gaussian_delta, analytic_gaussian_sigma
from fastmix.kernels import (
    DPRandomFeatureKRR,
    DPRandomProjectionKRR,
    GaussianKernel,
    effective_dimension,
    laurent_massart_bound,
    operator_spectrum,
    release_from_statistics,
    release_sufficient_statistics,
    ridge_path_floored,
    solve_ridge_floored,
    theory_rp_hyperparameters,
)
from fastmix_companion.store import ResultsStore
from fastmix_companion.studies import kernel_fits, run_study
from fastmix_companion.studies import kernel_rates as rates
from fastmix_companion.studies import kernel_rp_vs_rff as study

RNG = np.random.default_rng(0)
X = RNG.uniform(-1.0, 1.0, (150, 3))
Y = np.clip(np.sin(X.sum(axis=1)) + 0.1 * RNG.standard_normal(150), -1.0, 1.0)


# ----------------------------------------------------------------------------------------- library pieces


def test_ridge_path_matches_solve_ridge_floored_per_lambda():
    Z = RNG.standard_normal((80, 12)) / 3.0
    C = Z.T @ Z / 80 + 0.05 * RNG.standard_normal((12, 12))  # noisy, possibly indefinite
    u = RNG.standard_normal(12)
    lams = np.array([1e-4, 1e-2, 0.3])
    path = ridge_path_floored(C, u, lams)
    betas, floored, mins = path.coef, path.n_floored, path.min_eigenvalue
    for k, lam in enumerate(lams):
        one = solve_ridge_floored(C, u, lam)
        beta, nf, mn = one.coef, one.n_floored, one.min_eigenvalue
        np.testing.assert_allclose(betas[k], beta, rtol=1e-9, atol=1e-12)
        assert floored[k] == nf
        assert mins[k] == pytest.approx(mn, abs=1e-12)
    assert floored[0] > 0  # the check is not vacuous: the floor acted


def test_release_from_statistics_equals_release_sufficient_statistics():
    Z = RNG.standard_normal((60, 5)) / 3.0
    a = release_sufficient_statistics(
        Z,
        Y[:60],
        epsilon=1.0,
        delta_covariance=1e-6,
        delta_vector=2e-6,
        feature_norm_sq=3.0,
        response_bound=1.0,
        random_state=np.random.default_rng(3),
    )
    b = release_from_statistics(
        Z.T @ Z / 60,
        Z.T @ Y[:60] / 60,
        60,
        epsilon=1.0,
        delta_covariance=1e-6,
        delta_vector=2e-6,
        feature_norm_sq=3.0,
        response_bound=1.0,
        random_state=np.random.default_rng(3),
    )
    np.testing.assert_allclose(a.covariance, b.covariance, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(a.vector, b.vector, rtol=1e-12, atol=1e-15)
    assert a.sigma_covariance == b.sigma_covariance and a.sigma_vector == b.sigma_vector


def _features(method, M, seed):
    rng_feat, rng_noise = np.random.default_rng(seed).spawn(2)
    empty = np.empty((0, X.shape[1]))
    feats = kernel_fits.Features(method, GaussianKernel(1.2), X, Y, empty, empty, M, rng_feat)
    return feats, rng_noise


@pytest.mark.parametrize("method, estimator", [("RP", DPRandomProjectionKRR), ("RFF", DPRandomFeatureKRR)])
def test_study_private_fit_is_the_estimators_algorithm(method, estimator):
    # Same seed -> same features and noise: the study's sub-block path must give the estimator's coefficients.
    M, eps, delta, lam = 16, 2.0, 1e-5, 0.03
    feats, rng_noise = _features(method, M, 11)
    betas, floored, _, D2 = study.private_path(method, feats, M, eps, delta, np.array([lam]), 1.0, rng_noise)
    kwargs = dict(sampler="exact") if method == "RP" else {}
    est = estimator(epsilon=eps, delta=delta, bandwidth=1.2, n_components=M, lam=lam, random_state=11, **kwargs).fit(
        X, Y
    )
    np.testing.assert_allclose(betas[0], est.coef_, rtol=1e-7, atol=1e-10)
    assert D2 == pytest.approx(est.norm_bound_sq_)
    assert floored[0] == est.n_eigenvalues_floored_


def test_study_map_of_dimension_M_is_a_prefix_of_the_largest():
    feats, _ = _features("RFF", 32, 5)
    C8, u8, n = feats.stats("all", 8)
    Z8 = feats.map("tr", 8)
    np.testing.assert_allclose(C8, Z8.T @ Z8 / n, rtol=1e-12)
    np.testing.assert_allclose(u8, Z8.T @ Y / n, rtol=1e-12)
    assert np.all(np.einsum("ij,ij->i", Z8, Z8) <= 2.0 + 1e-12)  # the RFF norm bound at every M


def test_private_selection_releases_compose_to_the_budget():
    # 2G Gaussian releases at sqrt(2G) times the single-release noise compose (Gaussian DP) to one
    # Gaussian mechanism with mu = 1 / sigma(eps, delta_gauss, 1): its delta at eps is delta_gauss.
    eps, delta, G = 1.0, 1e-5, 3
    feats, rng = _features("RP", 64, 2)
    mus = []
    for M in (4, 16, 64):
        t = delta / (8 * G)
        _, _, rel, D2 = study.private_path(
            "RP",
            feats,
            M,
            eps,
            delta,
            np.array([0.1]),
            1.0,
            rng,
            t=t,
            multiplier=math.sqrt(2 * G),
            delta_gauss=0.75 * delta,
        )
        assert D2 == pytest.approx(laurent_massart_bound(feats.variance_bound, M, t))
        mus += [rel.sensitivity_covariance / rel.sigma_covariance, rel.sensitivity_vector / rel.sigma_vector]
    mu = math.sqrt(sum(m * m for m in mus))
    assert analytic_gaussian_delta(1.0 / mu, eps, 1.0) <= 0.75 * delta * (1 + 1e-6)
    assert mu == pytest.approx(1.0 / analytic_gaussian_sigma(eps, 0.75 * delta, 1.0), rel=1e-6)


def test_theory_rp_hyperparameters_meet_their_conditions():
    kernel = GaussianKernel(2.0)
    spectrum = operator_spectrum(kernel, np.random.default_rng(1).uniform(-1, 1, (400, 4)))
    for n, eps in ((500, 0.3), (2000, 1.0), (2000, 30.0)):
        choice = theory_rp_hyperparameters(n, eps, 1e-5, spectrum)
        M, lam = choice.n_components, choice.lam
        assert lam >= max(1 / n, 1 / (n * eps)) * (1 - 1e-12)
        expected_M = math.ceil((1 / spectrum.max() + effective_dimension(spectrum, lam)) * math.log(2 * n))
        assert M == expected_M
        D2 = laurent_massart_bound(1.0, M, 1e-5 / 8)
        assert lam >= D2 * math.sqrt(M * math.log(1e5)) / (n * eps) * (1 - 1e-9)
        if lam > max(1 / n, 1 / (n * eps)) * (1 + 1e-9):  # not at the rate: the smallest feasible lam
            below = lam * (1 - 1e-9)
            M_below = math.ceil((1 / spectrum.max() + effective_dimension(spectrum, below)) * math.log(2 * n))
            D2_below = laurent_massart_bound(1.0, M_below, 1e-5 / 8)
            assert below < D2_below * math.sqrt(M_below * math.log(1e5)) / (n * eps)
    small = theory_rp_hyperparameters(2000, 30.0, 1e-5, spectrum, max_components=10)
    assert small.n_components == 10 and small.capped


# ----------------------------------------------------------------------------------------- the studies run


SMALL = {
    "n_train": 60,
    "n_val": 30,
    "n_test": 40,
    "dims": "2",
    "targets": "plane_wave,rkhs",
    "real_data": False,
    "epsilons": "1,30",
    "n_reps": 4,
    "rep_block": 2,
    "m_grid": "4,8",
    "lam_grid": "0.01,0.1",
    "sel_m_grid": "4,8",
    "sweep_epsilons": "1",
    "krr_reps": 1,
}


def test_comparison_study_tables_cover_every_protocol_method_and_epsilon():
    t = run_study("kernel_rp_vs_rff", SMALL, log=None)
    runs = t["runs"]
    private = runs[runs["method"].isin(["RP", "RFF"]) & np.isfinite(runs["epsilon"])]
    counts = private.groupby(["panel", "protocol", "method", "epsilon"]).size()
    assert len(counts) == 2 * 3 * 2 * 2 and (counts == 4).all()
    assert (private["eps_spent"] <= private["epsilon"]).all() and (private["delta_spent"] <= 1e-5).all()
    assert set(t["sweep"]["epsilon"]) == {1.0, math.inf}
    assert (t["noise"].query("method == 'RFF'")["D2"] == 2.0).all()


def test_comparison_study_resumes_from_the_store(tmp_path):
    store = ResultsStore("kernel_rp_vs_rff", root=tmp_path)
    params = {**study.DEFAULTS, **SMALL}
    logs = []
    first = run_study("kernel_rp_vs_rff", params, store=store, log=logs.append)
    assert len(logs) == 2 * 2  # two panels x two blocks
    again = []
    second = run_study(
        "kernel_rp_vs_rff", params, store=ResultsStore("kernel_rp_vs_rff", root=tmp_path), log=again.append
    )
    assert again == []  # nothing recomputed
    pd.testing.assert_frame_equal(first["runs"].reset_index(drop=True), second["runs"].reset_index(drop=True))
    memory = run_study("kernel_rp_vs_rff", params, log=None)["runs"]  # same seeds in memory
    np.testing.assert_allclose(np.sort(memory["test_error"]), np.sort(second["runs"]["test_error"]), rtol=1e-9)


def test_rates_study_runs_and_pairs_each_fit_with_its_non_private_twin():
    t = run_study(
        "kernel_rates", {"n_values": "80,160", "eps_values": "1,10", "n_fixed": 80, "n_reps": 2, "n_test": 50}, log=None
    )["runs"]
    assert set(t["sweep"]) == {"n", "epsilon"}
    np.testing.assert_allclose(t["privacy_cost"], t["risk"] - t["risk_nonprivate"])
    assert t.groupby(["sweep", "n", "epsilon", "method"]).size().eq(2).all()


# ----------------------------------------------------------------------------------------- the claim rules


def _fake_runs(ratio, ds=(1, 20), reps=30, seed=0, spread=0.2):
    rng = np.random.default_rng(seed)
    rows = []
    for d in ds:
        for rep in range(reps):
            for eps in (0.3, 3.0):
                base = math.exp(rng.normal(-3, 0.5))
                r = ratio(d) if callable(ratio) else ratio
                for method, err in (("RFF", base), ("RP", base * r * math.exp(rng.normal(0, spread)))):
                    rows.append(
                        {
                            "panel": f"rkhs d={d}",
                            "target": "rkhs",
                            "d": d,
                            "rep": rep,
                            "protocol": "tuned",
                            "method": method,
                            "epsilon": eps,
                            "test_error": err,
                            "M": 8,
                            "lam": 0.1,
                        }
                    )
    return pd.DataFrame(rows)


def test_gap_with_d_detects_a_widening_gap():
    d0, d1, iv = study.gap_with_d(_fake_runs(lambda d: 1.0 if d == 1 else 0.6), "tuned", "rkhs")
    assert (d0, d1) == (1, 20) and iv.high < 1
    _, _, iv = study.gap_with_d(_fake_runs(lambda d: 0.6 if d == 1 else 1.0), "tuned", "rkhs")
    assert iv.low > 1


def test_fit_slopes_recovers_a_known_exponent():
    rng = np.random.default_rng(0)
    rows = []
    for n in (250, 500, 1000, 2000, 4000):
        for rep in range(40):
            for method, a in (("RP", -1.0), ("RFF", -2.0 / 3.0)):
                risk = 5.0 * n**a * math.exp(rng.normal(0, 0.3))
                rows.append(
                    {
                        "sweep": "n",
                        "n": n,
                        "epsilon": 1.0,
                        "rep": rep,
                        "method": method,
                        "risk": risk,
                        "risk_nonprivate": 0.5 * risk,
                        "privacy_cost": 0.5 * risk,
                    }
                )
    s = rates.fit_slopes(pd.DataFrame(rows), n_boot=300).set_index(["method", "quantity"])
    for method, a in (("RP", -1.0), ("RFF", -2.0 / 3.0)):
        row = s.loc[(method, "private")]
        assert row["low"] <= a <= row["high"]
        assert row["high"] - row["low"] < 0.2
