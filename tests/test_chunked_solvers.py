"""FastMix (Algorithm 1), MultipleFastMixing (Algorithm 3), FastIHM (Algorithm 2) and FastIHS on Dask arrays.

For one ``random_state`` the Dask path takes every random draw in the order of the in-memory path,
so its releases and estimates equal the in-memory ones up to the order of floating-point sums, in
any chunking; these tests run it on a two-process cluster and compare. The last test kills a worker
process in the middle of a FastIHM solve: the cluster recomputes the lost chunks and the estimate
and the ledger are those of an uninterrupted in-memory run.
"""

from __future__ import annotations

import math
import os
import signal
import threading
import time

import numpy as np
import pytest

from fastmix import accounting as acc
from fastmix import regression as R
from fastmix.chunked import Rechunking
from fastmix.mechanisms import calibrate_fast_mix, fast_mix, multiple_fast_mixing

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

N, D = 1 << 12, 5
RTOL = 1e-10
ALIGNED = [(N,), (1024,) * 4, (2048, 1024, 512, 256, 256)]
UNALIGNED = (1000, 1000, 1000, 1096)
CHUNKINGS = [*ALIGNED, UNALIGNED]


def _problem(n=N, seed=20261202):
    """Rows inside the unit ball; columns of different scales, so the Gram spectrum is well separated."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, D)) * np.array([1.0, 0.8, 0.6, 0.45, 0.3])
    X /= 1.2 * np.linalg.norm(X, axis=1).max()
    y = np.clip(X @ np.array([1.0, -1.0, 0.5, 2.0, -0.7]) + 0.1 * rng.standard_normal(n), -1.0, 1.0)
    return X, y


@pytest.fixture(scope="module")
def problem():
    return _problem()


def _dask(X, y, chunks):
    return da.from_array(X, chunks=(chunks, X.shape[1])), da.from_array(y, chunks=(chunks,))


def _check_rechunking(rechunking, chunks):
    assert isinstance(rechunking, Rechunking)
    assert rechunking.before == tuple(chunks)
    assert rechunking.changed == (chunks == UNALIGNED)
    if rechunking.changed:
        assert rechunking.after == (1024,) * 4 and "not a power of two" in rechunking.reason


# ------------------------------------------------------------------------------------ Algorithm 1
@pytest.mark.parametrize("chunks", CHUNKINGS)
@pytest.mark.parametrize("gaussian_step", ["explicit", "gram"])
def test_fast_mix_releases_the_in_memory_sketch(client, problem, chunks, gaussian_step):
    X, _ = problem
    cal = calibrate_fast_mix(1.0, 1e-6, k1=30)
    mem = fast_mix(X, cal, k2=256, random_state=7, gaussian_step=gaussian_step)
    dist = fast_mix(_dask(X, X[:, 0], chunks)[0], cal, k2=256, random_state=7, gaussian_step=gaussian_step)
    assert isinstance(dist.sketch, np.ndarray) and dist.sketch.shape == mem.sketch.shape
    np.testing.assert_allclose(dist.sketch, mem.sketch, rtol=RTOL)
    for name in ("eta_tilde", "m_tilde", "lambda_tilde", "m_hat", "lambda_min", "gamma_effective"):
        np.testing.assert_allclose(getattr(dist, name), getattr(mem, name), rtol=RTOL, err_msg=name)
    assert dist.delta_hat == mem.delta_hat  # integers over k: exact in any blocking
    assert (dist.padding, dist.row_norms, dist.ledger_entries) == (mem.padding, mem.row_norms, mem.ledger_entries)
    assert mem.rechunking is None
    _check_rechunking(dist.rechunking, chunks)


# ------------------------------------------------------------------------------------ Algorithm 3
@pytest.mark.parametrize("chunks", CHUNKINGS)
def test_multiple_fast_mixing_gives_the_in_memory_draws(client, problem, chunks):
    X, _ = problem
    cal = calibrate_fast_mix(1.0, 1e-6, k1=30, n_draws=4)
    mem = multiple_fast_mixing(X, cal, k2=256, random_state=8)
    dist = multiple_fast_mixing(_dask(X, X[:, 0], chunks)[0], cal, k2=256, random_state=8)
    assert dist.n_draws == 4
    for t in range(4):
        np.testing.assert_allclose(dist.srht_sketches[t], mem.srht_sketches[t], rtol=RTOL)
        np.testing.assert_allclose(dist.release(t, 30, 3), mem.release(t, 30, 3), rtol=RTOL)
    for name in ("eta", "m_tilde", "lambda_tilde", "eta_tilde", "m_hat", "lambda_min"):
        np.testing.assert_allclose(getattr(dist, name), getattr(mem, name), rtol=RTOL, err_msg=name)
    np.testing.assert_array_equal(dist.delta_hat, mem.delta_hat)
    assert len(set(mem.delta_hat)) > 1  # four different draws
    _check_rechunking(dist.rechunking, chunks)


# ------------------------------------------------------------------------------------ Algorithm 2
@pytest.mark.parametrize("chunks", CHUNKINGS)
@pytest.mark.parametrize("gaussian_step", ["explicit", "gram"])
def test_fast_ihm_gives_the_in_memory_estimate(client, problem, chunks, gaussian_step):
    X, y = problem
    kw = dict(epsilon=1.0, delta=1e-6, k1=30, k2=256, T=4, random_state=9, gaussian_step=gaussian_step)
    mem_ledger = acc.PrivacyLedger(2.0, 1e-5, relation=acc.ZERO_OUT)
    dist_ledger = acc.PrivacyLedger(2.0, 1e-5, relation=acc.ZERO_OUT)
    mem = R.fast_ihm(X, y, ledger=mem_ledger, **kw)
    dist = R.fast_ihm(*_dask(X, y, chunks), ledger=dist_ledger, **kw)
    assert isinstance(dist.theta, np.ndarray) and dist.theta.shape == (D,)
    np.testing.assert_allclose(dist.theta, mem.theta, rtol=RTOL)
    for a, b in zip(dist.iterates, mem.iterates, strict=True):
        np.testing.assert_allclose(a, b, rtol=RTOL)
    for name in ("eta", "eta_used", "eta_tilde", "m_tilde", "lambda_tilde", "m_hat_nonprivate"):
        np.testing.assert_allclose(dist.diagnostics[name], mem.diagnostics[name], rtol=RTOL, err_msg=name)
    np.testing.assert_array_equal(dist.diagnostics["delta_hat"], mem.diagnostics["delta_hat"])
    assert dist.data == mem.data
    assert [e.as_dict() for e in dist.ledger.entries] == [e.as_dict() for e in mem.ledger.entries]
    assert len(dist_ledger.entries) == len(mem_ledger.entries) == len(dist.calibration.ledger_entries())
    assert "rechunking" not in mem.diagnostics
    _check_rechunking(dist.diagnostics["rechunking"], chunks)


@pytest.mark.parametrize("chunks", CHUNKINGS)
def test_fast_ihs_gives_the_in_memory_estimate(client, problem, chunks):
    X, y = problem
    mem = R.fast_ihs(X, y, k=64, T=4, random_state=10)
    dist = R.fast_ihs(*_dask(X, y, chunks), k=64, T=4, random_state=10)
    np.testing.assert_allclose(dist.theta, mem.theta, rtol=RTOL)
    for a, b in zip(dist.iterates, mem.iterates, strict=True):
        np.testing.assert_allclose(a, b, rtol=RTOL)
    assert dist.data == mem.data
    _check_rechunking(dist.diagnostics["rechunking"], chunks)


def test_fast_ihs_rescales_huge_entries_as_in_memory(client, problem):
    X, y = problem
    X, y = X * 1e70, y * 1e65  # X^T X would overflow: both paths scale by powers of two
    mem = R.fast_ihs(X, y, k=64, T=3, random_state=4)
    dist = R.fast_ihs(*_dask(X, y, (1024,) * 4), k=64, T=3, random_state=4)
    assert mem.diagnostics["scale_x"] != 1.0
    assert (dist.diagnostics["scale_x"], dist.diagnostics["scale_y"]) == (
        mem.diagnostics["scale_x"],
        mem.diagnostics["scale_y"],
    )
    np.testing.assert_allclose(dist.theta, mem.theta, rtol=RTOL)


# ------------------------------------------------------------------------------------ padding and policies
def test_rows_not_a_power_of_two_are_padded_lazily_as_in_memory(client):
    X, y = _problem(n=3000)
    Xd, yd = _dask(X, y, (1000, 1000, 1000))
    mem = R.fast_ihm(X, y, epsilon=1.0, delta=1e-6, k1=30, k2=256, T=3, random_state=1)
    dist = R.fast_ihm(Xd, yd, epsilon=1.0, delta=1e-6, k1=30, k2=256, T=3, random_state=1)
    assert dist.data == mem.data and dist.data.rows_added == 1096 and dist.data.n_used == 4096
    np.testing.assert_allclose(dist.theta, mem.theta, rtol=RTOL)
    plan = dist.diagnostics["rechunking"]
    assert plan.before == (1000, 1000, 1000) and plan.after == (1024,) * 4 and "1096 zero rows appended" in plan.reason
    cal = calibrate_fast_mix(1.0, 1e-6, k1=30)
    m, d = fast_mix(X, cal, k2=256, random_state=2), fast_mix(Xd, cal, k2=256, random_state=2)
    assert d.padding == m.padding and d.padding.n_added == 1096
    np.testing.assert_allclose(d.sketch, m.sketch, rtol=RTOL)
    ihs_mem, ihs_dist = R.fast_ihs(X, y, k=64, random_state=3), R.fast_ihs(Xd, y, k=64, random_state=3)  # NumPy y
    assert ihs_dist.data == ihs_mem.data
    np.testing.assert_allclose(ihs_dist.theta, ihs_mem.theta, rtol=RTOL)
    with pytest.raises(ValueError, match=r"n_policy='raise'\. Use n_policy='pad'"):
        R.fast_ihm(Xd, yd, epsilon=1.0, delta=1e-6, k1=30, k2=256, n_policy="raise")
    with pytest.raises(ValueError, match=r"n_policy='raise'\. Use n_policy='pad'"):
        fast_mix(Xd, cal, k2=256, n_policy="raise")


@pytest.mark.parametrize(
    ("n", "chunk"),
    [(2**13 + 1, 1000), (3 * 5 * 7 * 11 * 13, 1000), (2**12 + 3, 4096)],
    ids=["2^13+1", "odd-15015", "one-chunk"],
)
def test_any_n_keeps_chunks_near_the_input_size_and_fits_as_in_memory(client, n, chunk):
    # n = 2^k + 1 pads almost n zero rows: they come in chunks like the data's, never as one block
    X, y = _problem(n=n)
    Xd, yd = _dask(X, y, tuple([chunk] * (n // chunk) + ([n % chunk] if n % chunk else [])))
    mem = R.fast_ihm(X, y, epsilon=1.0, delta=1e-6, k1=30, k2=256, T=3, random_state=5)
    dist = R.fast_ihm(Xd, yd, epsilon=1.0, delta=1e-6, k1=30, k2=256, T=3, random_state=5)
    assert dist.data == mem.data and dist.data.n_used == 1 << (n - 1).bit_length()
    np.testing.assert_allclose(dist.theta, mem.theta, rtol=RTOL)
    after = dist.diagnostics["rechunking"].after
    assert max(after) <= 1.5 * chunk and min(after) >= 0.75 * min(chunk, n), after


def test_the_zero_rows_of_the_padding_are_chunked_like_the_data():
    from fastmix.chunked import pad_and_align

    X = da.zeros((2**20 + 1, 4), chunks=(2**16, 4))
    out, _, plan = pad_and_align(X, 2**21)
    assert set(out.chunks[0]) == {2**16} and "1048575 zero rows appended" in plan.reason
    # an input of one big chunk stays one chunk per input-sized piece
    out, _, _ = pad_and_align(da.zeros((5000, 3), chunks=(5000, 3)), 8192)
    assert out.chunks[0] == (4096, 4096)


def test_clip_policies_match_the_in_memory_ones(client, problem):
    X, y = problem
    X, y = X.copy(), y.copy()
    over = [3, 1500, 4000]
    X[over] *= 1.5 / np.linalg.norm(X[over], axis=1, keepdims=True)  # three rows over the unit ball
    y[[10, 2000]] = [3.0, -2.0]  # two responses over C = 1
    kw = dict(epsilon=1.0, delta=1e-6, k1=30, k2=256, T=3, random_state=5, row_norm_policy="clip", y_policy="clip")
    mem, dist = R.fast_ihm(X, y, **kw), R.fast_ihm(*_dask(X, y, UNALIGNED), **kw)
    assert dist.data == mem.data and dist.data.row_norms.n_rows_over == 3 and dist.data.y_rows_over == 2
    np.testing.assert_allclose(dist.theta, mem.theta, rtol=RTOL)
    cal = calibrate_fast_mix(1.0, 1e-6, k1=30, c_x=0.9)
    cal2 = calibrate_fast_mix(1.0, 1e-6, k1=30, n_draws=2, c_x=0.9)
    m = multiple_fast_mixing(X, cal2, k2=128, random_state=6, row_norm_policy="clip")
    d = multiple_fast_mixing(_dask(X, y, UNALIGNED)[0], cal2, k2=128, random_state=6, row_norm_policy="clip")
    assert d.row_norms == m.row_norms and d.row_norms.bound == 0.9 and d.row_norms.n_rows_over == 3
    np.testing.assert_allclose(d.srht_sketches[1], m.srht_sketches[1], rtol=RTOL)
    with pytest.raises(ValueError, match=r"3 row\(s\) of X have Euclidean norm above"):
        R.fast_ihm(*_dask(X, y, UNALIGNED), epsilon=1.0, delta=1e-6, k1=30, k2=256, y_policy="clip")
    with pytest.raises(ValueError, match=r"2 response\(s\) have \|y_i\| above"):
        R.fast_ihm(*_dask(X, y, UNALIGNED), epsilon=1.0, delta=1e-6, k1=30, k2=256, row_norm_policy="clip")
    with pytest.raises(ValueError, match=r"row\(s\) of X have Euclidean norm above the bound C_X = 0.9"):
        fast_mix(_dask(X, y, UNALIGNED)[0], cal, k2=256)


def test_input_that_cannot_work_is_refused_clearly(client, problem):
    X, y = problem
    Xd, yd = _dask(X, y, (1024,) * 4)
    cal = calibrate_fast_mix(1.0, 1e-6, k1=30)
    by_columns = da.from_array(X, chunks=(1024, 2))
    with pytest.raises(ValueError, match=r"chunked along its columns .* X\.rechunk\(\{1: -1\}\)"):
        fast_mix(by_columns, cal, k2=64)
    with pytest.raises(ValueError, match=r"chunked along its columns"):
        R.fast_ihm(by_columns, yd, epsilon=1.0, delta=1e-6, k1=30, k2=64)
    unknown = Xd[da.from_array(y > -2.0, chunks=1024)]  # boolean indexing: chunk lengths unknown
    with pytest.raises(ValueError, match="compute_chunk_sizes"):
        R.fast_ihs(unknown, yd, k=64)
    with pytest.raises(ValueError, match="'rescale' divides by the observed maximum"):
        fast_mix(Xd, cal, k2=64, row_norm_policy="rescale")
    with pytest.raises(ValueError, match="'rescale' divides by the observed maximum"):
        R.fast_ihm(Xd, yd, epsilon=1.0, delta=1e-6, k1=30, k2=64, y_policy="rescale")
    with pytest.raises(ValueError, match=r"n_policy='subsample' .* not available for a Dask X"):
        R.fast_ihs(Xd, yd, k=64, n_policy="subsample")
    with pytest.raises(ValueError, match=r"k2 must be at least 1 and at most 4096; got 4097"):
        fast_mix(Xd, cal, k2=N + 1)
    bad = X.copy()
    bad[2500, 1] = np.inf
    with pytest.raises(ValueError, match="X contains NaN or inf"):
        R.fast_ihs(da.from_array(bad, chunks=(1024, D)), yd, k=64)
    bad[2500, 1] = np.nan  # the sketch passes skip their own check: the single checking pass must refuse it
    for call in (
        lambda Xb: fast_mix(Xb, cal, k2=64),
        lambda Xb: R.fast_ihm(Xb, yd, epsilon=1.0, delta=1e-6, k1=30, k2=64),
    ):
        with pytest.raises(ValueError, match="X contains NaN or inf"):
            call(da.from_array(bad, chunks=(1024, D)))
    with pytest.raises(ValueError, match=r"shape \(4096,\)"):
        R.fast_ihm(Xd, yd[:-1], epsilon=1.0, delta=1e-6, k1=30, k2=64)


def test_the_ledger_is_charged_once_and_not_at_all_when_refused(client, problem):
    X, y = problem
    Xd, yd = _dask(X, y, UNALIGNED)
    kw = dict(epsilon=1.0, delta=1e-6, k1=30, k2=256, T=3, random_state=0)
    cost = R.calibrate_fast_ihm(1.0, 1e-6, k1=30, T=3).ledger_entries()
    ledger = acc.PrivacyLedger(1.5, 1e-5, relation=acc.ZERO_OUT)
    R.fast_ihm(Xd, yd, ledger=ledger, **kw)
    assert len(ledger.entries) == len(cost)
    assert ledger.total_epsilon == math.fsum(e.epsilon for e in cost)
    with pytest.raises(acc.BudgetExceededError):
        R.fast_ihm(Xd, yd, ledger=ledger, **kw)  # a second run does not fit in what is left
    assert len(ledger.entries) == len(cost)


def _counting_loader(X, path, calls):
    """A Dask X read from ``path`` by its chunks' tasks, each read appending one byte to ``calls``."""
    np.save(path, X)

    def load(block_info=None):
        start, stop = block_info[None]["array-location"][0]
        with open(calls, "a") as f:
            f.write(".")
        return np.load(path, mmap_mode="r")[start:stop].copy()

    chunks = ((1024,) * (X.shape[0] // 1024), (X.shape[1],))
    return da.map_blocks(load, chunks=chunks, dtype=np.float64, meta=np.empty((0, 0)))


def test_a_refused_budget_reads_nothing(client, problem, tmp_path):
    X, y = problem
    calls = str(tmp_path / "calls")
    Xd = _counting_loader(X, str(tmp_path / "X.npy"), calls)
    ledger = acc.PrivacyLedger(0.5, 1e-6, relation=acc.ZERO_OUT)  # less than the run costs
    with pytest.raises(acc.BudgetExceededError):
        R.fast_ihm(Xd, y, epsilon=1.0, delta=1e-6, k1=30, k2=256, T=3, random_state=0, ledger=ledger)
    assert ledger.entries == ()
    assert not os.path.exists(calls)  # the dry run of the ledger comes before the checking pass: no chunk was read
    ledger = acc.PrivacyLedger(5.0, 1e-5, relation=acc.ZERO_OUT)  # the same call within budget does read X
    R.fast_ihm(Xd, y, epsilon=1.0, delta=1e-6, k1=30, k2=256, T=3, random_state=0, ledger=ledger)
    with open(calls) as f:
        assert len(f.read()) >= 4


def test_only_sketches_d_vectors_and_scalars_reach_the_client(client, problem, monkeypatch):
    X, y = problem
    sizes = []

    def recording(compute):
        def wrapper(*args, **kwargs):
            out = compute(*args, **kwargs)
            sizes.extend(np.size(v) for v in (out if isinstance(out, tuple) else (out,)))
            return out

        return wrapper

    monkeypatch.setattr(da.Array, "compute", recording(da.Array.compute))
    monkeypatch.setattr(da, "compute", recording(da.compute))
    T, k2 = 4, 64
    R.fast_ihm(*_dask(X, y, UNALIGNED), epsilon=1.0, delta=1e-6, k1=30, k2=k2, T=T, random_state=3)
    assert len(sizes) >= 3 + T and max(sizes) == T * k2 * D < N  # the T sketches are the largest


# ------------------------------------------------------------------------------------ estimators
@pytest.mark.filterwarnings("ignore::fastmix.regression.NoiseDominatesWarning")  # k2 small for speed
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_estimators_fit_dask_input_to_the_in_memory_coefficients(client, problem, fit_intercept):
    X, y = problem
    Xd, yd = _dask(X, y, UNALIGNED)
    for make in (
        lambda: R.FastIHMRegressor(epsilon=1.0, delta=1e-6, k1=30, k2=256, fit_intercept=fit_intercept, random_state=1),
        lambda: R.FastIHSRegressor(k=64, fit_intercept=fit_intercept, random_state=2),
    ):
        mem, dist = make().fit(X, y), make().fit(Xd, yd)
        np.testing.assert_allclose(dist.coef_, mem.coef_, rtol=RTOL)
        assert dist.intercept_ == pytest.approx(mem.intercept_, rel=RTOL)
        assert dist.n_features_in_ == D and dist.data_record_ == mem.data_record_
        assert isinstance(dist.diagnostics_["rechunking"], Rechunking)
        np.testing.assert_allclose(dist.predict(X), mem.predict(X), rtol=1e-9)
        if getattr(mem, "privacy_ledger_", None) is not None:
            assert dist.privacy_ledger_.total_epsilon == mem.privacy_ledger_.total_epsilon


# ------------------------------------------------------------------------------------ a worker dies mid-solve
def test_fast_ihm_survives_a_worker_killed_partway(client, problem, tmp_path):
    """One worker process is killed (SIGKILL) while it holds a chunk in the middle of the solve.

    X is read from a file by its chunks' tasks. The fifth read of the chunk at rows [1024, 2048) -
    one of the gradient passes, after the checks and both sketch passes - blocks until the test has
    killed the process that runs it; the nanny restarts the process, the scheduler reruns the lost
    tasks, and the solve completes. The estimate equals the uninterrupted in-memory one and the
    outer ledger holds one charge.
    """
    X, y = problem
    client.wait_for_workers(2, timeout=30)
    path, calls, marker, released = (str(tmp_path / f) for f in ("X.npy", "calls", "blocked", "released"))
    np.save(path, X)
    target, block_at = 1024, 5

    def load(block_info=None):
        start, stop = block_info[None]["array-location"][0]
        if start == target:
            with open(calls, "a") as f:
                f.write(".")
            if os.path.getsize(calls) == block_at:
                with open(marker + ".tmp", "w") as f:
                    f.write(str(os.getpid()))
                os.replace(marker + ".tmp", marker)
                deadline = time.monotonic() + 20.0
                while not os.path.exists(released) and time.monotonic() < deadline:
                    time.sleep(0.01)
        return np.load(path, mmap_mode="r")[start:stop].copy()

    Xd = da.map_blocks(load, chunks=((1024,) * 4, (D,)), dtype=np.float64, meta=np.empty((0, 0)))
    killed = {}

    def killer():
        deadline = time.monotonic() + 30.0
        while not os.path.exists(marker) and time.monotonic() < deadline:
            time.sleep(0.01)
        if os.path.exists(marker):
            with open(marker) as f:
                killed["pid"] = int(f.read())
            os.kill(killed["pid"], signal.SIGKILL)
        open(released, "w").close()

    thread = threading.Thread(target=killer, daemon=True)
    kw = dict(epsilon=1.0, delta=1e-6, k1=30, k2=256, T=4, random_state=12)
    ledger = acc.PrivacyLedger(1.0, 1e-6, relation=acc.ZERO_OUT)
    t0 = time.monotonic()
    thread.start()
    dist = R.fast_ihm(Xd, y, ledger=ledger, **kw)
    thread.join(timeout=35.0)
    assert "pid" in killed, "the chunk's task never blocked: the kill did not happen"
    with open(calls) as f:  # checks, two sketch passes, T gradients: 3 + T reads, and the lost one again
        assert len(f.read()) >= 3 + kw["T"] + 1
    client.wait_for_workers(2, timeout=30)
    assert killed["pid"] not in client.run(os.getpid).values()  # a new process replaced the killed one
    mem = R.fast_ihm(X, y, **kw)
    np.testing.assert_allclose(dist.theta, mem.theta, rtol=RTOL)
    for a, b in zip(dist.iterates, mem.iterates, strict=True):
        np.testing.assert_allclose(a, b, rtol=RTOL)
    assert len(ledger.entries) == len(mem.calibration.ledger_entries())  # one charge
    assert ledger.total_epsilon == mem.ledger.total_epsilon and ledger.total_delta == mem.ledger.total_delta
    assert dist.data == mem.data
    assert time.monotonic() - t0 < 60.0


# ------------------------------------------------------------------------------------ predict and score
def test_predict_score_and_errors_on_dask_match_in_memory(client, problem):
    from fastmix.regression import FastIHMRegressor, excess_empirical_risk, training_mse

    X, y = problem
    est = FastIHMRegressor(epsilon=1.0, delta=1e-6, random_state=0).fit(X, y)
    Xd, yd = _dask(X, y, UNALIGNED)
    pred = est.predict(Xd)
    assert isinstance(pred, da.Array) and pred.chunks == (UNALIGNED,)  # lazy, chunked like X's rows
    np.testing.assert_allclose(pred.compute(), est.predict(X), rtol=1e-12)
    w = np.linspace(0.5, 2.0, len(y))
    assert est.score(Xd, yd) == pytest.approx(est.score(X, y), rel=1e-10)
    assert est.score(Xd, y, sample_weight=w) == pytest.approx(est.score(X, y, sample_weight=w), rel=1e-10)
    assert est.score(Xd, yd, sample_weight=da.from_array(w, chunks=1000)) == pytest.approx(
        est.score(X, y, sample_weight=w), rel=1e-10
    )
    theta = np.r_[est.coef_]
    assert training_mse(Xd, yd, theta) == pytest.approx(training_mse(X, y, theta), rel=1e-10)
    assert excess_empirical_risk(Xd, yd, theta) == pytest.approx(excess_empirical_risk(X, y, theta), rel=1e-8)
    with pytest.raises(ValueError, match="fitted with 5 features"):
        est.predict(Xd[:, :3])
    bad = X.copy()
    bad[2500, 1] = np.nan
    with pytest.raises(ValueError, match=r"NaN or infinity in 1 row.* chunk starting at row 2000"):
        est.predict(da.from_array(bad, chunks=(UNALIGNED, D))).compute()


def test_predict_and_score_never_gather_x_into_the_client(client):
    psutil = pytest.importorskip("psutil")
    from fastmix.regression import IHMRegressor, training_mse

    rng = np.random.default_rng(0)
    small = rng.uniform(-0.2, 0.2, (4096, 16))
    est = IHMRegressor(epsilon=1.0, delta=1e-6, random_state=0).fit(small, small @ np.ones(16) / 16)
    n, d = 2**21, 16  # 256 MiB of X, made on the workers
    X = da.random.default_rng(1).uniform(-0.2, 0.2, (n, d), chunks=(2**17, d)).persist()
    y = (X @ np.ones(d) / d).persist()
    est.score(X[: 2**17], y[: 2**17])  # warm-up: imports and the first graph
    me = psutil.Process()
    before = me.memory_info().rss
    pred = est.predict(X)
    score = est.score(X, y)
    mse = training_mse(X, y, est.coef_)
    grew = me.memory_info().rss - before
    assert isinstance(pred, da.Array) and np.isfinite(score) and mse >= 0.0
    assert grew < 0.1 * X.nbytes, f"the client grew by {grew / 2**20:.0f} MiB for an X of {X.nbytes / 2**20:.0f} MiB"


# ------------------------------------------------------------------------------------ from a table on disk
def _table(n=3000, seed=7):
    import pandas as pd

    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "distance": rng.uniform(0, 3000, n),
            "hour": rng.integers(0, 24, n).astype(float),
            "carrier": pd.Categorical(rng.choice(["AA", "DL", "UA", "ZZ"], n)),  # ZZ is not declared
            "weekday": rng.choice(["mon", "tue", "wed", "thu", "fri", "sat", "sun"], n),
        }
    )
    df["delay"] = np.clip(df["distance"] / 3000 - 0.5 + 0.1 * rng.standard_normal(n), -1, 1)
    return df


ENCODER = {
    "numeric_ranges": {"distance": (0, 5000), "hour": (0, 23)},
    "categories": {"carrier": ["AA", "DL", "UA"], "weekday": ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]},
}


def test_a_parquet_table_is_bounded_per_partition_and_fits_as_in_memory(client, tmp_path):
    dd = pytest.importorskip("dask.dataframe")
    pytest.importorskip("pyarrow")
    from fastmix.preprocessing import BoundedTableEncoder, table_column

    df = _table()
    path = tmp_path / "flights"
    dd.from_pandas(df, npartitions=3).to_parquet(path)  # three files, as a data lake would hold them
    ddf = dd.read_parquet(path)
    enc = BoundedTableEncoder(**ENCODER).fit(ddf)  # checks the columns on the schema, reads nothing
    X = enc.transform(ddf)
    assert isinstance(X, da.Array) and sum(X.chunks[0]) == len(df) and len(X.chunks[0]) == 3
    mem = BoundedTableEncoder(**ENCODER).fit(df)
    np.testing.assert_array_equal(X.compute(), mem.transform(df))
    y = table_column(ddf, "delay")
    assert y.chunks[0] == X.chunks[0]
    np.testing.assert_array_equal(table_column(df, "delay"), df["delay"].to_numpy())
    dist = R.FastIHMRegressor(epsilon=1.0, delta=1e-6, random_state=3).fit(X, y)
    local = R.FastIHMRegressor(epsilon=1.0, delta=1e-6, random_state=3).fit(mem.transform(df), df["delay"].to_numpy())
    np.testing.assert_allclose(dist.coef_, local.coef_, rtol=RTOL)
    assert dist.intercept_ == pytest.approx(local.intercept_, rel=RTOL)
    assert dist.score(X, y) == pytest.approx(local.score(mem.transform(df), df["delay"].to_numpy()), rel=1e-10)
    kept = BoundedTableEncoder(**ENCODER, keep_unreleased=True).fit(ddf)
    assert kept.n_clipped_ == BoundedTableEncoder(**ENCODER, keep_unreleased=True).fit(df).n_clipped_
    assert kept.n_clipped_["carrier"] > 0  # the undeclared carrier
    with pytest.raises(ValueError, match=r"no column\(s\) \['altitude'\]"):
        BoundedTableEncoder(numeric_ranges={"altitude": (0, 1)}).fit(ddf)


def test_a_worker_with_another_fastmix_version_is_refused(client, problem):
    import fastmix
    from fastmix.chunked import cluster

    def set_version(value):
        import fastmix

        fastmix.__version__ = value

    X, y = problem
    Xd, yd = _dask(X, y, ALIGNED[1])
    cluster._CHECKED.clear()
    client.run(set_version, "0.0.1")
    try:
        with pytest.raises(RuntimeError, match=r"must run the fastmix version of this process .* has 0\.0\.1"):
            R.fast_ihm(Xd, yd, epsilon=1.0, delta=1e-6, k1=30, k2=256, random_state=1)
        with pytest.raises(RuntimeError, match="install fastmix=="):
            fast_mix(Xd, calibrate_fast_mix(1.0, 1e-6, k1=30), k2=256, random_state=1)
    finally:
        client.run(set_version, fastmix.__version__)
        cluster._CHECKED.clear()
    R.fast_ihm(Xd, yd, epsilon=1.0, delta=1e-6, k1=30, k2=256, random_state=1)  # the same version: runs
