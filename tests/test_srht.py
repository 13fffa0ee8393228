"""Tests for fastmix.srht against explicit sketch matrices (FastMix paper, Definition 3, Alg. 1 line 2)."""

import numpy as np
import pytest
import scipy.linalg

from fastmix.hadamard import available_backends
from fastmix.srht import SRHT, sketch_quantities, sketch_quantities_dense, srht_coherence, welch_bound

CASES = [(8, 1, 2), (8, 3, 3), (16, 4, 2), (32, 8, 5), (64, 16, 4), (64, 64, 3), (128, 37, 6)]


def _data(n, d, seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    X /= np.linalg.norm(X, axis=1).max()
    X[rng.integers(n)] = 0.0  # a zero row, as zero-out neighbours create
    return X


def _explicit_srht(S):
    """Rebuild sqrt(n/k) P H B from the draw's signs and rows with the dense Sylvester matrix."""
    n, k = S.n, S.k
    H = scipy.linalg.hadamard(n) / np.sqrt(n)
    return np.sqrt(n / k) * H[S.rows] * S.signs[None, :]


@pytest.mark.parametrize("n,k,d", CASES)
@pytest.mark.parametrize("backend", available_backends())
def test_apply_adjoint_and_dense_match_definition_3(n, k, d, backend):
    S = SRHT(n, k, random_state=n * 100 + k, backend=backend)
    M = _explicit_srht(S)
    np.testing.assert_allclose(S.to_dense(), M, atol=1e-12)
    X = _data(n, d, 1)
    np.testing.assert_allclose(S.apply(X), M @ X, atol=1e-12)
    np.testing.assert_allclose(S.apply(X[:, 0]), M @ X[:, 0], atol=1e-12)
    Y = np.random.default_rng(2).standard_normal((k, d))
    np.testing.assert_allclose(S.adjoint(Y), M.T @ Y, atol=1e-12)


@pytest.mark.parametrize("n,k,d", CASES)
def test_quantities_equal_brute_force_definitions(n, k, d):
    """m_hat, Delta_hat, Lambda_hat, lambda_min from the fast path equal their definitions."""
    S = SRHT(n, k, random_state=7 + k)
    M = _explicit_srht(S)
    X = _data(n, d, k)
    fast = sketch_quantities(np.asfortranarray(X), S)
    # definitions of Algorithm 1, line 2, evaluated entry by entry
    Z = M @ X
    m_def = max(np.linalg.norm(Z.T @ M[:, i] - X[i]) for i in range(n))
    G = M.T @ M
    delta_def = max(abs(G[i, j]) for i in range(n) for j in range(n) if i != j) if n > 1 else 0.0
    Lambda_def = 2.0 - min(np.linalg.norm(M[:, i]) ** 2 for i in range(n))
    lam_def = np.linalg.eigvalsh(Z.T @ Z)[0] if k >= d else 0.0
    np.testing.assert_allclose(fast.Z, Z, atol=1e-12)
    assert fast.m_hat == pytest.approx(m_def, rel=1e-10, abs=1e-12)
    assert fast.delta_hat == pytest.approx(delta_def, rel=1e-12, abs=1e-14)
    assert fast.Lambda_hat == pytest.approx(Lambda_def, abs=1e-12)
    assert fast.lambda_min == pytest.approx(max(lam_def, 0.0), rel=1e-8, abs=1e-10)
    # the dense routine for general sketches agrees as well
    dense = sketch_quantities_dense(X, M)
    assert dense.m_hat == pytest.approx(fast.m_hat, rel=1e-10, abs=1e-12)
    assert dense.delta_hat == pytest.approx(fast.delta_hat, abs=1e-12)


def test_c_order_input_gives_the_same_result_as_fortran_order():
    X = _data(64, 5, 3)
    S = SRHT(64, 16, random_state=4)
    a = sketch_quantities(np.ascontiguousarray(X), S)
    b = sketch_quantities(np.asfortranarray(X), S)
    np.testing.assert_array_equal(a.Z, b.Z)
    assert a.m_hat == b.m_hat


@pytest.mark.parametrize("n,k", [(8, 2), (64, 10), (256, 256), (1024, 100)])
def test_unit_column_norms_and_orthogonal_rows(n, k):
    """Appendix B, Lemma 2."""
    M = SRHT(n, k, random_state=k).to_dense()
    np.testing.assert_allclose(np.linalg.norm(M, axis=0), 1.0, atol=1e-12)
    np.testing.assert_allclose(M @ M.T, (n / k) * np.eye(k), atol=1e-10)


def test_expected_gram_is_identity_by_monte_carlo():
    """E[S_f^T S_f] = I: average over independent draws; the tolerance is 5 standard errors.

    Off-diagonal entries of one draw are +-(1/k) (H~ z)_l with |.| <= 1, so their Monte-Carlo
    standard error after R draws is at most 1/sqrt(R); the diagonal is exactly 1.
    """
    n, k, R = 32, 8, 4000
    rng = np.random.default_rng(11)
    acc = np.zeros((n, n))
    for _ in range(R):
        M = SRHT(n, k, random_state=rng).to_dense()
        acc += M.T @ M
    mean = acc / R
    np.testing.assert_allclose(np.diag(mean), 1.0, atol=1e-12)
    off = mean - np.diag(np.diag(mean))
    assert np.max(np.abs(off)) < 5.0 / np.sqrt(R)


def test_coherence_is_data_independent_and_bounded():
    n = 256
    for k in (4, 32, 128):
        S = SRHT(n, k, random_state=k)
        c = S.coherence()
        assert welch_bound(n, k) <= c + 1e-12 <= 1.0 + 1e-12
        assert c == srht_coherence(n, S.rows)
    assert SRHT(n, n, random_state=0).coherence() == 0.0


def test_same_seed_same_draw_and_generator_stream_advances():
    a, b = SRHT(64, 8, random_state=5), SRHT(64, 8, random_state=5)
    np.testing.assert_array_equal(a.signs, b.signs)
    np.testing.assert_array_equal(a.rows, b.rows)
    rng = np.random.default_rng(5)
    c, e = SRHT(64, 8, random_state=rng), SRHT(64, 8, random_state=rng)
    assert not (np.array_equal(c.rows, e.rows) and np.array_equal(c.signs, e.signs))


@pytest.mark.parametrize("n,k,match", [(12, 2, "power of two"), (16, 0, "at least 1"), (16, 17, "at most 16")])
def test_bad_sizes(n, k, match):
    with pytest.raises(ValueError, match=match):
        SRHT(n, k)


def test_bad_data():
    S = SRHT(16, 4, random_state=0)
    with pytest.raises(ValueError, match="n = 16 rows"):
        S.apply(np.ones((8, 2)))
    X = np.ones((16, 2))
    X[3, 1] = np.nan
    with pytest.raises(ValueError, match="non-finite"):
        sketch_quantities(X, S)
    with pytest.raises(ValueError, match="norm at most 1"):
        sketch_quantities_dense(np.ones((4, 1)), 2 * np.eye(4))


def test_coherence_reference_scales():
    """The heuristic tracks measured coherence; eq. (241)'s scale with constant 1 lies above it."""
    from fastmix.srht import coherence_heuristic, coherence_upper_scale

    n = 2**12
    rng = np.random.default_rng(3)
    for k in (64, 512):
        measured = np.median([SRHT(n, k, random_state=rng).coherence() for _ in range(10)])
        assert 0.5 < measured / coherence_heuristic(n, k) < 1.5
        assert coherence_upper_scale(n, k, rho=0.05) > measured
    np.testing.assert_allclose(coherence_heuristic(8, 2), np.sqrt(np.log(16)))
    np.testing.assert_allclose(coherence_upper_scale(8, 4, 0.5, constant=2.0), 2 * np.log(16) / 2)


def test_sketch_quantities_without_input_checks_gives_the_same_numbers():
    rng = np.random.default_rng(11)
    X = np.asfortranarray(rng.standard_normal((64, 5)))
    S = SRHT(64, 16, random_state=3)
    checked = sketch_quantities(X, S)
    unchecked = sketch_quantities(X, S, check_input=False)
    np.testing.assert_array_equal(checked.Z, unchecked.Z)
    assert (checked.m_hat, checked.delta_hat, checked.lambda_min) == (
        unchecked.m_hat,
        unchecked.delta_hat,
        unchecked.lambda_min,
    )
    with pytest.raises(ValueError, match="n = 64 rows"):
        sketch_quantities(X[:32], S)


def test_from_draw_rebuilds_the_same_transform_and_checks_its_draw():
    S = SRHT(64, 10, random_state=3)
    T = SRHT.from_draw(S.signs, S.rows[::-1])
    X = np.random.default_rng(0).standard_normal((64, 3))
    np.testing.assert_array_equal(T.apply(X), S.apply(X))
    with pytest.raises(ValueError, match="signs"):
        SRHT.from_draw(np.ones(60), S.rows)
    with pytest.raises(ValueError, match="distinct"):
        SRHT.from_draw(S.signs, [1, 1, 2])
