"""The SRHT on row chunks (fastmix.chunked): the same matrix as the in-memory SRHT, in any chunking."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from fastmix.chunked import (
    SIGN_BLOCK_ROWS,
    ChunkedSRHT,
    aligned_chunks,
    chunked_coherence,
    chunked_sketch_quantities,
    rademacher_signs,
)
from fastmix.srht import SRHT, sketch_quantities, srht_coherence

N, K, D = 1 << 12, 37, 5


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(20261201)
    X = rng.standard_normal((N, D))
    return X / (1.5 * np.linalg.norm(X, axis=1).max())


def _starts(chunks):
    return np.concatenate([[0], np.cumsum(chunks)[:-1]]).astype(int)


# ------------------------------------------------------------------------------ the sign stream
def test_signs_depend_only_on_row_index():
    whole = rademacher_signs(7, 0, 3 * SIGN_BLOCK_ROWS + 11)
    cuts = [0, 5, SIGN_BLOCK_ROWS - 1, SIGN_BLOCK_ROWS + 3, 2 * SIGN_BLOCK_ROWS, whole.size]
    pieces = np.concatenate([rademacher_signs(7, a, b) for a, b in itertools.pairwise(cuts)])
    np.testing.assert_array_equal(pieces, whole)
    assert set(np.unique(whole)) == {-1.0, 1.0}
    assert abs(whole.mean()) < 4 / np.sqrt(whole.size)  # fair signs (a 4-sigma band)
    assert not np.array_equal(rademacher_signs(8, 0, 64), whole[:64])


def test_signs_reject_a_reversed_range():
    with pytest.raises(ValueError, match="start <= stop"):
        rademacher_signs(0, 10, 5)


def test_the_in_memory_srht_draws_the_same_matrix_from_the_same_seed(data):
    """SRHT and ChunkedSRHT take the same two draws in the same order (sign seed, then rows), so a
    seed names one S_f whether X is in memory or in chunks."""
    from fastmix.srht import SRHT

    for seed in (0, 3, np.random.SeedSequence(11)):
        S, C = SRHT(N, K, random_state=seed), ChunkedSRHT(N, K, random_state=seed)
        assert S.entropy == C.entropy
        np.testing.assert_array_equal(S.signs, C.signs())
        np.testing.assert_array_equal(S.rows, C.rows)
    g1, g2 = np.random.default_rng(5), np.random.default_rng(5)
    SRHT(N, K, random_state=g1), ChunkedSRHT(N, K, random_state=g2)
    assert g1.integers(2**62) == g2.integers(2**62)  # and leave the generator in the same state
    assert SRHT.from_draw(S.signs, S.rows).entropy is None


# ------------------------------------------------------------------------------ exactness
@pytest.mark.parametrize("chunks", [(N,), (1024,) * 4, (64,) * 64, (2048, 1024, 512, 256, 256)])
def test_chunks_reproduce_the_in_memory_srht(data, chunks):
    C = ChunkedSRHT(N, K, random_state=3)
    S = C.to_srht()
    Z = sum(C.partial_apply(data[s : s + m], int(s)) for s, m in zip(_starts(chunks), chunks, strict=True))
    np.testing.assert_allclose(Z, S.apply(data), rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(C.adjoint(Z, chunks), S.adjoint(Z), rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(S.to_dense() @ data, Z, atol=1e-12)  # and it is the SRHT of Definition 3


def test_one_dimensional_operands(data):
    C = ChunkedSRHT(N, K, random_state=4)
    S = C.to_srht()
    np.testing.assert_allclose(C.partial_apply(data[:, 0], 0), S.apply(data[:, 0]), rtol=1e-10, atol=1e-13)
    z = np.arange(K, dtype=float)
    np.testing.assert_allclose(C.partial_adjoint(z, 0, N), S.adjoint(z), rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("block_rows", [None, 2, 64, N])
def test_blockwise_coherence_equals_the_length_n_transform(block_rows):
    C = ChunkedSRHT(N, K, random_state=5)
    assert chunked_coherence(N, C.rows, block_rows=block_rows) == pytest.approx(srht_coherence(N, C.rows), abs=1e-15)


def test_an_unaligned_chunk_is_refused(data):
    C = ChunkedSRHT(N, K, random_state=0)
    with pytest.raises(ValueError, match="not aligned"):
        C.partial_apply(data[512 : 512 + 1024], 512)
    with pytest.raises(ValueError, match="not aligned"):
        C.partial_apply(data[:1000], 0)


def test_non_finite_chunks_are_named(data):
    bad = data[:1024].copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="starting at row 1024 contains NaN"):
        ChunkedSRHT(N, K, random_state=0).partial_apply(bad, 1024)


def test_rechunking_plan_is_recorded():
    assert not aligned_chunks((1024,) * 4, N).changed
    plan = aligned_chunks((1000, 1000, 1000, 1096), N)
    assert plan.changed and plan.after == (1024,) * 4 and "row chunk 0" in plan.reason
    with pytest.raises(ValueError, match="sum to"):
        aligned_chunks((10, 10), N)


def test_constructor_checks():
    with pytest.raises(ValueError, match="power of two"):
        ChunkedSRHT(1000, 10)
    with pytest.raises(ValueError):
        ChunkedSRHT(N, N + 1)


# ------------------------------------------------------------------------------ on a real Dask cluster


@pytest.mark.parametrize("chunks", [(1024,) * 4, (2048, 1024, 512, 512), (1000, 1000, 1000, 1096)])
def test_dask_quantities_equal_the_in_memory_ones(client, data, chunks):
    da = pytest.importorskip("dask.array")
    C = ChunkedSRHT(N, K, random_state=11)
    got = chunked_sketch_quantities(da.from_array(data, chunks=(chunks, D)), C)
    want = sketch_quantities(data, C.to_srht())
    q = got.quantities
    np.testing.assert_allclose(q.Z, want.Z, rtol=1e-10, atol=1e-13)
    for name in ("m_hat", "delta_hat", "lambda_min", "Lambda_hat"):
        assert getattr(q, name) == pytest.approx(getattr(want, name), rel=1e-10), name
    assert got.rechunking.changed == (chunks == (1000, 1000, 1000, 1096))


def test_dask_input_checks(client):
    da = pytest.importorskip("dask.array")
    C = ChunkedSRHT(N, K, random_state=0)
    with pytest.raises(ValueError, match="2-D"):
        chunked_sketch_quantities(da.zeros(N, chunks=1024), C)
    with pytest.raises(ValueError, match="n = 4096 rows"):
        chunked_sketch_quantities(da.zeros((N // 2, D), chunks=(1024, D)), C)
    X = da.zeros((N, D), chunks=(1024, D)).copy()
    X[5, 0] = np.inf
    with pytest.raises(ValueError, match="contains NaN or inf"):
        chunked_sketch_quantities(X, C)


# ------------------------------------------------------------------------------ Gram-route solvers on Dask
def _regression_problem(n=3000, d=6, seed=5):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    X /= 1.1 * np.linalg.norm(X, axis=1).max()
    y = np.clip(X @ rng.standard_normal(d) + 0.05 * rng.standard_normal(n), -1.0, 1.0)
    return X, y


@pytest.mark.parametrize("chunks", [(1000, 1000, 1000), (512, 2488), (3000,)])
def test_gram_solvers_give_the_in_memory_estimates_for_the_same_seed(client, chunks):
    da = pytest.importorskip("dask.array")
    from fastmix import regression as R

    X, y = _regression_problem()
    Xd, yd = da.from_array(X, chunks=(chunks, 6)), da.from_array(y, chunks=(chunks,))
    kw = dict(epsilon=1.0, delta=1e-6, k=40, T=3, random_state=9)
    for name, call in (
        ("ihm", lambda A, b: R.ihm(A, b, sketch="gram", **kw)),
        ("adassp", lambda A, b: R.adassp(A, b, epsilon=1.0, delta=1e-6, random_state=9)),
    ):
        mem, dist = call(X, y), call(Xd, yd)
        np.testing.assert_allclose(dist.theta, mem.theta, rtol=1e-9, atol=1e-12, err_msg=name)
        assert dist.data == mem.data, name
        assert dist.ledger.total_epsilon == mem.ledger.total_epsilon, name
        assert dist.ledger.total_delta == mem.ledger.total_delta, name
    np.testing.assert_allclose(R.ols(Xd, yd), R.ols(X, y), rtol=1e-8, atol=1e-12)


def test_per_record_policies_match_the_in_memory_ones_on_dask(client):
    da = pytest.importorskip("dask.array")
    from fastmix import regression as R

    X, y = _regression_problem()
    X[[3, 700, 2999]] *= 5.0  # three rows over the unit ball
    y[[10, 20]] = [3.0, -2.0]  # two responses over C = 1
    Xd, yd = da.from_array(X, chunks=(1000, 6)), da.from_array(y, chunks=(1000,))
    kw = dict(
        epsilon=1.0, delta=1e-6, k=40, T=3, random_state=2, sketch="gram", row_norm_policy="clip", y_policy="clip"
    )
    mem, dist = R.ihm(X, y, **kw), R.ihm(Xd, yd, **kw)
    np.testing.assert_allclose(dist.theta, mem.theta, rtol=1e-9, atol=1e-12)
    assert dist.data.row_norms.n_rows_over == 3 and dist.data.y_rows_over == 2
    assert dist.data == mem.data
    with pytest.raises(ValueError, match=r"3 row\(s\) of X have Euclidean norm above"):
        R.ihm(Xd, yd, sketch="gram", epsilon=1.0, delta=1e-6, k=40, y_policy="clip")
    with pytest.raises(ValueError, match=r"2 response\(s\) have \|y_i\| above"):
        R.adassp(Xd, yd, epsilon=1.0, delta=1e-6, row_norm_policy="clip")


def test_dask_input_that_cannot_work_is_refused_clearly(client):
    da = pytest.importorskip("dask.array")
    from fastmix import regression as R

    X, y = _regression_problem()
    Xd, yd = da.from_array(X, chunks=(1000, 6)), da.from_array(y, chunks=(1000,))
    with pytest.raises(ValueError, match="sketch='gram'"):
        R.ihm(Xd, yd, epsilon=1.0, delta=1e-6, k=40)  # the dense sketch needs X in memory
    with pytest.raises(ValueError, match="n_policy='pad'"):
        R.fast_ihm(Xd, yd, epsilon=1.0, delta=1e-6, k1=40, k2=64, n_policy="subsample")  # a random subset of rows
    with pytest.raises(ValueError, match="rescale"):
        R.adassp(Xd, yd, epsilon=1.0, delta=1e-6, row_norm_policy="rescale")
    bad = X.copy()
    bad[1500, 2] = np.nan
    with pytest.raises(ValueError, match="NaN or inf"):
        R.adassp(da.from_array(bad, chunks=(1000, 6)), yd, epsilon=1.0, delta=1e-6)
    with pytest.raises(ValueError, match="shape"):
        R.adassp(Xd, yd[:-1], epsilon=1.0, delta=1e-6)
    with pytest.raises(ValueError, match="at least d = 6 rows"):
        R.ols(da.from_array(X, chunks=(4, 6)), yd)


# ------------------------------------------------------------------------------ work buffers
def test_work_buffers_are_reused_per_thread_and_released():
    from fastmix.chunked import sketch as chunked

    chunked.release_scratch()
    a = chunked._scratch("work", (3, 64))
    assert chunked._scratch("work", (3, 64)) is a  # the same chunk shape: the same buffer
    b = chunked._scratch("work", (3, 128))
    assert b is not a and b.shape == (3, 128)  # another shape replaces it
    chunked._scratch("batch", (3, 128))
    assert chunked.release_scratch() == 2 * 3 * 128 * 8
    assert chunked.release_scratch() == 0
    assert chunked._scratch("work", (3, 128)) is not b


def test_transposed_batch_fills_the_given_buffer(data):
    from fastmix.chunked.sketch import _chunk_batch

    out = np.full((D, 256), np.nan)
    for block in (data[:256], np.asfortranarray(data[:256])):
        assert _chunk_batch(block, out) is out
        np.testing.assert_array_equal(out, data[:256].T)


def test_dask_gradient_matches_numpy_when_y_is_chunked_otherwise(data):
    da = pytest.importorskip("dask.array")
    from fastmix.regression import _clipped_gradient

    y = np.linspace(-2.0, 2.0, N)
    theta = np.arange(1.0, D + 1.0) / D
    want = _clipped_gradient(data, y, theta, 0.5)
    Xd = da.from_array(data, chunks=(512, D))
    for yd in (da.from_array(y, chunks=512), da.from_array(y, chunks=300), y):
        np.testing.assert_allclose(_clipped_gradient(Xd, yd, theta, 0.5), want, rtol=1e-12)
    np.testing.assert_allclose(
        _clipped_gradient(Xd, y, theta, None), _clipped_gradient(data, y, theta, None), rtol=1e-12
    )


# ------------------------------------------------------------------------------ the in-memory SRHT on Dask input
def test_in_memory_srht_sketches_a_dask_array_without_gathering_it(data):
    da = pytest.importorskip("dask.array")
    S = SRHT(N, K, random_state=3)
    Xd = da.from_array(data, chunks=(1000, D))  # unaligned: rechunked inside, same numbers
    np.testing.assert_allclose(S.apply(Xd), S.apply(data), rtol=1e-10, atol=1e-13)
    got, want = sketch_quantities(Xd, S), sketch_quantities(data, S)
    np.testing.assert_allclose(got.Z, want.Z, rtol=1e-10, atol=1e-13)
    for name in ("m_hat", "delta_hat", "lambda_min", "Lambda_hat"):
        assert getattr(got, name) == pytest.approx(getattr(want, name), rel=1e-10), name


def test_dask_adjoint_is_the_in_memory_adjoint(data):
    pytest.importorskip("dask.array")
    from fastmix.chunked import dask_adjoint

    S = SRHT(N, K, random_state=4)
    Z = np.random.default_rng(5).standard_normal((K, D))
    for srht in (S, S.to_chunked()):
        A = dask_adjoint(srht, Z, (2048, 1024, 512, 512))
        assert A.shape == (N, D) and A.chunks[0] == (2048, 1024, 512, 512)
        np.testing.assert_allclose(A.compute(), S.adjoint(Z), rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(dask_adjoint(S, Z[:, 0], (N // 2,) * 2).compute(), S.adjoint(Z[:, 0]), atol=1e-13)
    with pytest.raises(ValueError, match="powers of two summing to n"):
        dask_adjoint(S, Z, (1000, N - 1000))
    with pytest.raises(ValueError, match="Z must have shape"):
        dask_adjoint(S, Z[:-1], (N,))


def test_an_srht_with_explicit_signs_refuses_dask_input(data):
    da = pytest.importorskip("dask.array")
    S = SRHT(N, K, random_state=6)
    E = SRHT.from_draw(S.signs, S.rows)
    with pytest.raises(ValueError, match="explicit signs"):
        E.apply(da.from_array(data, chunks=(1024, D)))
    assert S.to_chunked().entropy == S.entropy
    np.testing.assert_array_equal(S.to_chunked().signs(), S.signs)


def test_a_chunked_draw_rebuilt_from_its_seed_is_checked():
    C = ChunkedSRHT(N, K, random_state=7)
    again = ChunkedSRHT.of_draw(N, C.entropy, C.rows)
    np.testing.assert_array_equal(again.signs(0, 100), C.signs(0, 100))
    with pytest.raises(ValueError, match="power of two"):
        ChunkedSRHT.of_draw(N - 1, C.entropy, C.rows)
    with pytest.raises(ValueError, match="distinct indices"):
        ChunkedSRHT.of_draw(N, C.entropy, [0, 0, 5])


def test_a_pass_in_this_process_keeps_no_buffers(data):
    da = pytest.importorskip("dask.array")
    import dask

    from fastmix.chunked import chunked_sketch_draws
    from fastmix.chunked import sketch as chunked

    chunked.release_scratch()
    with dask.config.set(scheduler="threads"):
        chunked_sketch_draws(da.from_array(data, chunks=(1024, D)), [ChunkedSRHT(N, K, random_state=8)])
    assert chunked.release_scratch() == 0  # the threaded scheduler's buffers went with the pass
