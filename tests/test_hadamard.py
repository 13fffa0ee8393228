"""Tests for fastmix.hadamard: the transform against the dense Sylvester matrix, backends, padding."""

import numpy as np
import pytest
import scipy.linalg

from fastmix import hadamard
from fastmix.hadamard import (
    available_backends,
    fwht,
    get_backend,
    is_power_of_two,
    next_power_of_two,
    power_of_two_size,
    rows_to_power_of_two,
    set_backend,
    transform_layout,
    use_backend,
)

BACKENDS = available_backends()
SIZES = [1, 2, 4, 16, 128, 1024]


def test_numpy_backend_always_available():
    assert "numpy" in BACKENDS


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype,atol", [(np.float64, 1e-12), (np.float32, 1e-5)])
def test_matches_dense_hadamard_vectors_and_batches(backend, n, dtype, atol):
    rng = np.random.default_rng(n)
    H = scipy.linalg.hadamard(n) / np.sqrt(n)
    x = rng.standard_normal(n).astype(dtype)
    out = fwht(x, backend=backend)
    assert out.dtype == dtype and out.shape == (n,)
    np.testing.assert_allclose(out, H @ x.astype(np.float64), atol=atol * np.sqrt(n))
    batch = rng.standard_normal((5, n)).astype(dtype)
    out = fwht(batch, backend=backend)
    np.testing.assert_allclose(out, batch.astype(np.float64) @ H.T, atol=atol * np.sqrt(n))
    # unnormalised transform is sqrt(n) times the orthonormal one
    np.testing.assert_allclose(
        fwht(batch, backend=backend, normalized=False),
        batch.astype(np.float64) @ scipy.linalg.hadamard(n).T,
        atol=atol * n,
    )


@pytest.mark.parametrize("backend", BACKENDS)
def test_orthonormal_and_involutive(backend):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 256))
    y = fwht(x, backend=backend)
    np.testing.assert_allclose(np.linalg.norm(y, axis=1), np.linalg.norm(x, axis=1), rtol=1e-12)
    np.testing.assert_allclose(fwht(y, backend=backend), x, atol=1e-12)


@pytest.mark.parametrize("backend", BACKENDS)
def test_backends_agree_on_large_batch(backend):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4, 2**14))
    np.testing.assert_allclose(fwht(x, backend=backend), fwht(x, backend="numpy"), atol=1e-10)


def test_inplace_transforms_the_buffer_and_copy_does_not():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 64))
    original = x.copy()
    y = fwht(x)
    np.testing.assert_array_equal(x, original)
    z = fwht(x, inplace=True)
    assert z is x
    np.testing.assert_allclose(x, y)


def test_inplace_refuses_non_contiguous_input():
    x = np.zeros((64, 4))
    with pytest.raises(ValueError, match="C-contiguous"):
        fwht(x.T, inplace=True)
    with pytest.raises(ValueError, match="C-contiguous"):
        fwht(np.zeros(8, dtype=np.int64), inplace=True)


def test_non_power_of_two_length_is_a_clear_error():
    with pytest.raises(ValueError, match=r"power of two.*12.*16"):
        fwht(np.ones(12))


def test_bad_rank_and_unknown_backend():
    with pytest.raises(ValueError, match="vector"):
        fwht(np.ones((2, 2, 4)))
    with pytest.raises(ValueError, match="Unknown Hadamard backend"):
        fwht(np.ones(4), backend="fortran")


def test_backend_selection_by_argument_context_and_environment(monkeypatch):
    assert get_backend() in BACKENDS
    with use_backend("numpy"):
        assert get_backend() == "numpy"
    set_backend(None)
    monkeypatch.setenv(hadamard.ENV_VAR, "numpy")
    assert get_backend() == "numpy"
    monkeypatch.setenv(hadamard.ENV_VAR, "no-such-backend")
    with pytest.raises(ValueError, match="Unknown Hadamard backend"):
        get_backend()


@pytest.mark.skipif("fht-cpu" not in BACKENDS, reason="fht-cpu not installed")
def test_fht_cpu_is_the_default_when_installed(monkeypatch):
    monkeypatch.delenv(hadamard.ENV_VAR, raising=False)
    set_backend(None)
    assert get_backend() == "fht-cpu"


def test_power_of_two_helpers():
    assert [is_power_of_two(n) for n in (0, 1, 2, 3, 4, 6, 1024)] == [False, True, True, False, True, False, True]
    assert [next_power_of_two(n) for n in (1, 2, 3, 5, 1024, 1025)] == [1, 2, 4, 8, 1024, 2048]


def _pad(X, y=None, order="F"):
    return rows_to_power_of_two(X, y, method="pad", order=order, dtype=None, copy=True)


def test_padding_appends_zero_rows_and_reports_it():
    X = np.arange(10.0).reshape(5, 2)
    y = np.arange(5.0)
    Xp, yp, rec = _pad(X, y)
    assert Xp.shape == (8, 2) and yp.shape == (8,)
    assert rec.n_original == 5 and rec.n_used == 8 and rec.n_added == 3 and rec.padded
    np.testing.assert_array_equal(Xp[:5], X)
    assert not Xp[5:].any() and not yp[5:].any()
    assert Xp.flags.f_contiguous
    _, _, rec = _pad(np.ones((4, 1)))
    assert rec.n_added == 0 and not rec.padded


def test_padding_keeps_a_float_dtype_and_always_copies():
    X32 = np.ones((4, 2), dtype=np.float32)
    Xp, _, rec = _pad(X32, order="C")
    assert Xp.dtype == np.float32 and Xp.flags.c_contiguous and rec.method == "none"
    assert Xp is not X32 and not np.shares_memory(Xp, X32)
    Xi, _, _ = _pad(np.ones((3, 2), dtype=np.int64))
    assert Xi.dtype == np.float64 and Xi.shape == (4, 2)


def test_deprecated_names_still_work_with_a_future_warning():
    X, y = np.arange(10.0).reshape(5, 2), np.arange(5.0)
    with pytest.warns(FutureWarning, match="pad_rows_to_power_of_two is deprecated.*rows_to_power_of_two"):
        Xp, yp, rec = hadamard.pad_rows_to_power_of_two(X, y)
    Xn, yn, new = _pad(X, y)
    np.testing.assert_array_equal(Xp, Xn)
    np.testing.assert_array_equal(yp, yn)
    assert rec == new
    with pytest.warns(FutureWarning, match="PaddingRecord is deprecated"):
        assert hadamard.PaddingRecord is hadamard.PowerOfTwoRecord
    with pytest.warns(FutureWarning, match="PaddingRecord is deprecated"):
        from fastmix.hadamard import PaddingRecord  # noqa: F401
    for old, new_name in (("n_padded", "n_used"), ("n_before", "n_original"), ("n_after", "n_used")):
        with pytest.warns(FutureWarning, match=f"{old} is deprecated.*{new_name}"):
            assert getattr(rec, old) == getattr(rec, new_name)
    assert "PaddingRecord" not in hadamard.__all__
    with pytest.raises(AttributeError):
        hadamard.no_such_name  # noqa: B018


def test_rows_to_power_of_two_pad_records_what_it_added():
    X = np.arange(10.0).reshape(5, 2)
    y = np.arange(5.0)
    Xp, yp, rec = rows_to_power_of_two(X, y)
    assert (rec.method, rec.n_original, rec.n_used, rec.n_added, rec.n_dropped) == ("pad", 5, 8, 3, 0)
    assert rec.indices is None and rec.padded
    np.testing.assert_array_equal(Xp[:5], X)
    assert not Xp[5:].any() and not yp[5:].any() and Xp.flags.f_contiguous
    assert "3 zero rows" in rec.describe()


def test_rows_to_power_of_two_subsample_keeps_rows_in_order_and_records_them():
    X = np.arange(20.0).reshape(10, 2)
    y = np.arange(10.0)
    Xs, ys, rec = rows_to_power_of_two(X, y, method="subsample", random_state=0)
    assert (rec.method, rec.n_original, rec.n_used, rec.n_added, rec.n_dropped) == ("subsample", 10, 8, 0, 2)
    np.testing.assert_array_equal(ys, rec.indices)  # y_i = i: the kept responses are the indices
    np.testing.assert_array_equal(Xs, X[rec.indices])
    assert np.all(np.diff(rec.indices) > 0) and not rec.indices.flags.writeable
    # the draw is the documented one, so callers that used it before get the same rows
    expected = np.sort(np.random.default_rng(0).choice(10, size=8, replace=False))
    np.testing.assert_array_equal(rec.indices, expected)
    assert "dropped 2 rows" in rec.describe()


def test_rows_to_power_of_two_draws_nothing_when_n_is_a_power_of_two():
    rng = np.random.default_rng(5)
    X = np.asfortranarray(np.ones((8, 3)))
    Xo, _, rec = rows_to_power_of_two(X, np.ones(8), method="subsample", random_state=rng)
    assert rec == hadamard.PowerOfTwoRecord.unchanged(8) and rec.method == "none"
    assert Xo is X  # no copy unless asked
    assert rng.standard_normal() == np.random.default_rng(5).standard_normal()
    Xc, _, _ = rows_to_power_of_two(X, copy=True)
    assert Xc is not X


def test_power_of_two_record_equality_and_sizes():
    rec = hadamard.PowerOfTwoRecord("pad", 5, 8)
    assert (rec.n_original, rec.n_used, rec.n_added, rec.n_dropped) == (5, 8, 3, 0)
    a = hadamard.PowerOfTwoRecord("subsample", 5, 4, indices=[0, 1, 2, 4])
    b = hadamard.PowerOfTwoRecord("subsample", 5, 4, indices=np.array([0, 1, 2, 4]))
    c = hadamard.PowerOfTwoRecord("subsample", 5, 4, indices=[0, 1, 3, 4])
    assert a == b and hash(a) == hash(b) and a != c and a != rec
    with pytest.raises(ValueError, match="method"):
        hadamard.PowerOfTwoRecord("truncate", 5, 4)
    assert [power_of_two_size(n) for n in (1, 5, 8, 9)] == [1, 8, 8, 16]
    assert [power_of_two_size(n, "subsample") for n in (1, 5, 8, 9)] == [1, 4, 8, 8]


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"method": "truncate"}, "method must be 'pad' or 'subsample'; got 'truncate'"),
        ({"y": np.ones(4)}, "y has 4 entries but X has 5 rows"),
    ],
)
def test_rows_to_power_of_two_rejects_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        rows_to_power_of_two(np.ones((5, 2)), **kwargs)
    with pytest.raises(ValueError, match="2-D"):
        rows_to_power_of_two(np.ones(5))


def test_check_power_of_two_length_names_the_padding_to_use():
    hadamard.check_power_of_two_length(16)
    with pytest.raises(
        ValueError, match=r"got 12\. Pad with zeros to 16 using fastmix\.hadamard\.rows_to_power_of_two"
    ):
        hadamard.check_power_of_two_length(12)


def test_fwht_rows_unchecked_matches_fwht():
    x = np.random.default_rng(2).standard_normal((3, 16))
    buf = x.copy()
    hadamard.fwht_rows_unchecked(buf, normalized=True)
    np.testing.assert_array_equal(buf, fwht(x))
    buf = x[0].copy()
    hadamard.fwht_rows_unchecked(buf, normalized=False, backend="numpy")
    np.testing.assert_allclose(buf, fwht(x[0], normalized=False, backend="numpy"), atol=1e-12)


def test_transform_layout_makes_columns_a_contiguous_batch_without_copying_twice():
    X = np.random.default_rng(3).standard_normal((16, 3))
    F = transform_layout(X)
    assert F.T.flags.c_contiguous
    assert transform_layout(F) is F


def test_the_package_keeps_every_name_it_had_as_one_module():
    # fastmix.hadamard is a package (backends, sizes, matrix, transform); its public names did not move
    before = {
        "fwht", "available_backends", "get_backend", "set_backend", "use_backend", "is_power_of_two",
        "next_power_of_two", "rows_to_power_of_two", "power_of_two_size", "POWER_OF_TWO_METHODS",
        "PowerOfTwoRecord", "pad_rows_to_power_of_two", "check_power_of_two_length", "fwht_rows_unchecked",
        "CHUNK_BYTES", "transform_layout", "hadamard_matrix",
    }  # fmt: skip
    assert set(hadamard.__all__) == before
    assert all(hasattr(hadamard, name) for name in (*before, "ENV_VAR"))
    assert {hadamard.backends, hadamard.sizes, hadamard.matrix, hadamard.transform} == {
        __import__(f"fastmix.hadamard.{m}", fromlist=["x"]) for m in ("backends", "sizes", "matrix", "transform")
    }
    with use_backend("numpy"):
        assert hadamard.backends.get_backend() == get_backend() == "numpy"
