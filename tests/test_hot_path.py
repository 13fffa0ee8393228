"""The FastMix hot path against reference implementations written from the paper's formulas.

The references below build the SRHT as a dense matrix (Definition 3), evaluate Algorithm 1,
line 2 by its definitions, and replay the random stream in the order Algorithms 1-3 consume it.
The package's blocked passes, reused buffers and block-wise Gaussian draws must give the same
numbers up to floating-point summation order.
"""

import math
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.linalg

import fastmix.srht as srht_module
from fastmix import regression as R
from fastmix import threads
from fastmix.hadamard import fwht
from fastmix.mechanisms import calibrate_fast_mix, fast_mix, mix_sketch, multiple_fast_mixing
from fastmix.srht import SRHT, SketchWorkspace, draw_entropy, rademacher_signs, sketch_quantities

RTOL = 1e-10
ROOT = Path(__file__).resolve().parent.parent


def _unit_rows(n, d, seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    X[rng.integers(n)] = 0.0
    return X


def _dense_srht(n, k, rng):
    """Definition 3: S_f = sqrt(n/k) P H_n B, drawn as the package draws it (signs, then rows)."""
    signs = rademacher_signs(draw_entropy(rng), 0, n)
    rows = np.sort(rng.choice(n, size=k, replace=False))
    H = scipy.linalg.hadamard(n) / math.sqrt(n)
    return math.sqrt(n / k) * H[rows] * signs[None, :]


def _line_2(X, S):
    """Algorithm 1, line 2 by its definitions: Z, m_hat, Delta_hat, Lambda_hat, lambda_min(Z^T Z)."""
    n = X.shape[0]
    Z = S @ X
    G = S.T @ S
    m_hat = max(np.linalg.norm(Z.T @ S[:, i] - X[i]) for i in range(n))
    delta_hat = np.max(np.abs(G - np.diag(np.diag(G))))
    Lambda_hat = 2.0 - np.min(np.sum(S**2, axis=0))
    lambda_min = max(0.0, np.linalg.eigvalsh(Z.T @ Z)[0]) if Z.shape[0] >= Z.shape[1] else 0.0
    return Z, m_hat, delta_hat, Lambda_hat, lambda_min


def _noise_level(m_hat, delta_hat, Lambda_hat, lambda_min, cal, rng):
    """Algorithm 1, lines 3-5 (C_X = 1)."""
    z1, z2 = rng.laplace(0.0, 1.0, size=2)
    m_tilde = max(0.0, m_hat + cal.omega * delta_hat * (cal.tau - z1))
    lambda_tilde = max(0.0, lambda_min - cal.omega * (Lambda_hat + 2.0 * m_tilde) * (cal.tau - z2))
    return m_tilde, lambda_tilde, math.sqrt(max(0.0, cal.gamma * (1.0 + 2.0 * m_tilde) - lambda_tilde))


def _small_chunks(monkeypatch, n):
    """Make the blocked pass work two columns of X at a time, so several blocks and a remainder occur."""
    monkeypatch.setattr(srht_module, "CHUNK_BYTES", 2 * 8 * n)


@pytest.mark.parametrize("n,d,k1,k2", [(64, 5, 12, 16), (128, 3, 20, 128), (32, 1, 6, 1), (256, 7, 9, 40)])
@pytest.mark.parametrize("chunks", ["one", "several"])
def test_fast_mix_equals_algorithm_1_reference(monkeypatch, n, d, k1, k2, chunks):
    if chunks == "several":
        _small_chunks(monkeypatch, n)
    X = _unit_rows(n, d, n + d)
    cal = calibrate_fast_mix(1.5, 1e-6, k1=k1)
    rel = fast_mix(X, cal, k2=k2, random_state=17)
    rng = np.random.default_rng(17)
    S = _dense_srht(n, k2, rng)
    Z, m_hat, delta_hat, Lambda_hat, lambda_min = _line_2(X, S)
    m_tilde, lambda_tilde, eta = _noise_level(m_hat, delta_hat, Lambda_hat, lambda_min, cal, rng)
    S_G = rng.standard_normal((k1, k2))  # line 6
    xi = rng.standard_normal((k1, d))
    assert rel.m_hat == pytest.approx(m_hat, rel=RTOL, abs=1e-12)
    assert rel.delta_hat == pytest.approx(delta_hat, rel=RTOL, abs=1e-12)
    assert rel.Lambda_hat == pytest.approx(Lambda_hat, rel=RTOL)
    assert rel.lambda_min == pytest.approx(lambda_min, rel=1e-8, abs=1e-10)
    assert rel.eta_tilde == pytest.approx(eta, rel=RTOL)
    assert rel.m_tilde == pytest.approx(m_tilde, rel=RTOL)
    assert rel.lambda_tilde == pytest.approx(lambda_tilde, rel=1e-8, abs=1e-10)
    np.testing.assert_allclose(rel.sketch, S_G @ Z + eta * xi, rtol=1e-9, atol=1e-9)


def test_multiple_fast_mixing_and_fast_ihm_equal_algorithms_2_and_3_reference(monkeypatch):
    n, d, k1, k2, T = 128, 4, 16, 32, 3
    _small_chunks(monkeypatch, n)
    X = _unit_rows(n, d, 2)
    y = np.clip(X @ np.array([0.5, -0.3, 0.2, 0.1]) + 0.05 * np.random.default_rng(4).standard_normal(n), -1, 1)
    cal = R.calibrate_fast_ihm(2.0, 1e-6, k1=k1, T=T)
    fm = cal.fast_mix
    for shared in (True, False):
        res = R.fast_ihm(X, y, calibration=cal, k2=k2, random_state=23, shared_eta=shared)
        theta = res.theta
        rng = np.random.default_rng(23)
        sketches, etas = [], []
        for _ in range(T):  # Algorithm 3, lines 2-9
            S = _dense_srht(n, k2, rng)
            Z, m_hat, delta_hat, Lambda_hat, lambda_min = _line_2(X, S)
            etas.append(_noise_level(m_hat, delta_hat, Lambda_hat, lambda_min, fm, rng)[2])
            sketches.append(Z)
        eta = max(etas)  # line 10
        np.testing.assert_allclose(res.diagnostics["eta_tilde"], etas, rtol=RTOL)
        th = np.zeros(d)
        for t in range(T):  # Algorithm 2, lines 4-8 (the -eta^2 theta term omitted, as by default)
            e = eta if shared else etas[t]
            Xhat = rng.standard_normal((k1, k2)) @ sketches[t] + e * rng.standard_normal((k1, d))
            g = X.T @ np.clip(y - X @ th, -cal.clip, cal.clip) + cal.sigma_gradient * rng.standard_normal(d)
            th = th + np.linalg.solve(Xhat.T @ Xhat / k1, g)
        np.testing.assert_allclose(theta, th, rtol=1e-8, atol=1e-10)


def test_workspace_reuse_gives_the_numbers_of_a_fresh_pass():
    X = np.asfortranarray(_unit_rows(256, 6, 8))
    work = SketchWorkspace(6, 256, 40)
    first = sketch_quantities(X, SRHT(256, 40, random_state=1), workspace=work)
    second = sketch_quantities(X, SRHT(256, 40, random_state=2), workspace=work)
    fresh = sketch_quantities(X, SRHT(256, 40, random_state=2))
    np.testing.assert_array_equal(second.Z, fresh.Z)
    assert (second.m_hat, second.delta_hat, second.lambda_min) == (fresh.m_hat, fresh.delta_hat, fresh.lambda_min)
    assert not np.array_equal(first.Z, second.Z)
    # a workspace of other sizes is not used, and the answer is still right
    other = sketch_quantities(X, SRHT(256, 40, random_state=2), workspace=SketchWorkspace(6, 256, 41))
    np.testing.assert_array_equal(other.Z, fresh.Z)


def test_explicit_step_draws_s_g_row_blocks_from_the_stream_in_order(monkeypatch):
    """Several blocks of rows of S_G (and a remainder) consume the stream as one (k1, m) draw."""
    import fastmix.mechanisms.gaussian_step as M

    Z = np.random.default_rng(0).standard_normal((50, 3))
    monkeypatch.setattr(M, "_GAUSSIAN_BLOCK_BYTES", 8 * 50 * 16)  # 16 rows per block, k1 = 37
    out = mix_sketch(Z, 0.4, 37, random_state=5)
    rng = np.random.default_rng(5)
    ref = rng.standard_normal((37, 50)) @ Z + 0.4 * rng.standard_normal((37, 3))
    np.testing.assert_allclose(out, ref, rtol=1e-12, atol=1e-12)


# --------------------------------------------------------------------------- the Gram-factor step


def test_gram_step_of_fast_ihm_has_the_law_of_the_explicit_step():
    """Rows of S_G X_tilde + eta xi are i.i.d. N(0, X_tilde^T X_tilde + eta^2 I), whichever way drawn.

    Pooled rows of many releases of one draw t: the sample covariance must be within 5 standard
    errors of that matrix for both steps, and a covariance without the eta^2 I term must be far
    outside (so the check can tell the two apart).
    """
    X = _unit_rows(256, 3, 5)
    cal = calibrate_fast_mix(0.5, 1e-6, k1=50, n_draws=2)
    res = multiple_fast_mixing(X, cal, k2=32, random_state=1)
    Z = res.srht_sketches[1]
    target = Z.T @ Z + res.eta**2 * np.eye(3)
    wrong = Z.T @ Z
    reps = 800
    for method in ("explicit", "gram"):
        rows = np.vstack([res.release(1, 50, random_state=s, method=method) for s in range(reps)])
        R_ = rows.shape[0]
        emp = rows.T @ rows / R_
        se = np.sqrt((np.outer(np.diag(target), np.diag(target)) + target**2) / R_)
        assert np.all(np.abs(emp - target) < 5 * se), method
        assert np.any(np.abs(emp - wrong) > 20 * se), method


@pytest.mark.filterwarnings("ignore:FastIHM's Hessian noise dominates")
def test_fast_ihm_gaussian_step_option_is_validated_and_passed_through():
    X = _unit_rows(256, 3, 6)
    y = np.clip(X @ np.array([0.4, -0.2, 0.3]), -1, 1)
    kw = dict(epsilon=2.0, delta=1e-6, k1=20, k2=64, random_state=4)
    ra = R.fast_ihm(X, y, **kw)
    rb = R.fast_ihm(X, y, gaussian_step="gram", **kw)
    a, b, c = ra.theta, rb.theta, R.fast_ihm(X, y, gaussian_step="gram", **kw).theta
    np.testing.assert_array_equal(b, c)
    assert not np.array_equal(a, b)  # another use of the stream, same law
    np.testing.assert_array_equal(ra.diagnostics["eta_tilde"], rb.diagnostics["eta_tilde"])  # same SRHT draws
    with pytest.raises(ValueError, match="gaussian_step"):
        R.fast_ihm(X, y, gaussian_step="fft", **kw)
    est = R.FastIHMRegressor(epsilon=2.0, delta=1e-6, k1=20, k2=64, gaussian_step="gram", random_state=0)
    assert est.get_params()["gaussian_step"] == "gram"
    est.fit(X, y)
    assert est.coef_.shape == (3,) and est.result_.diagnostics["eta"] == est.diagnostics_["eta"]


# --------------------------------------------------------------------------- thread policy


def test_thread_policy_defaults_to_one_and_is_scoped(monkeypatch):
    monkeypatch.delenv(threads.ENV_VAR, raising=False)
    assert threads.get_threads() == 1 and threads.transform_threads() == 1
    with threads.use_threads(0):
        assert threads.get_threads() == 0 and threads.transform_threads() == -1
        with threads.use_threads(2):
            assert threads.transform_threads() == 2
        assert threads.get_threads() == 0
    assert threads.get_threads() == 1
    monkeypatch.setenv(threads.ENV_VAR, "3")
    assert threads.get_threads() == 3
    monkeypatch.setenv(threads.ENV_VAR, "many")
    with pytest.raises(ValueError, match=threads.ENV_VAR):
        threads.get_threads()
    with pytest.raises(ValueError, match="threads must be"):
        threads.set_threads(-1)


def test_threads_change_no_result():
    X = np.random.default_rng(1).standard_normal((8, 1024))
    one = fwht(X)
    with threads.use_threads(0):
        every = fwht(X)
    np.testing.assert_array_equal(one, every)


def test_blas_is_limited_inside_the_hot_path():
    threadpoolctl = pytest.importorskip("threadpoolctl")
    with threads.blas_limit():
        inside = [p["num_threads"] for p in threadpoolctl.threadpool_info() if p["user_api"] == "blas"]
    assert inside and all(t == 1 for t in inside)


# --------------------------------------------------------------------------- the benchmark's last line


def test_bench_dp_ols_quick_ends_with_the_floor_ratio_line():
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    out = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_dp_ols.py"), "--quick", "--floors-only", "--repeats", "1"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=True,
    )
    last = out.stdout.strip().splitlines()[-1]
    number = r"\d+\.\d\d"
    assert re.fullmatch(
        rf"floor ratios: fastmix_draw={number} fastihm_k2_128={number} fastihm_k2_12800={number} "
        rf"fastihm_k2_25600={number}",
        last,
    ), last
