"""Bad input to the generators and loaders of fastmix.datasets: each class of mistake gets one clear error.

Every error is a ``TypeError`` or ``ValueError`` (or, for the data files themselves, the module's
:class:`~fastmix.datasets.DatasetUnavailableError` and its :class:`~fastmix.datasets.ChecksumMismatchError`)
whose message names the argument or the file, says what was received and what to do instead. Argument
errors are raised before any file is opened.

No test touches the network: the data directory is a temporary folder (``FASTMIX_DATA``), and both ways
out (the factory of pooch downloaders, ``fastmix.datasets.cache._make_downloader``, for direct downloads,
and scikit-learn's ``fetch_openml`` for OpenML) are replaced, where the loaders look them up, by a stub
that records the attempt, as is ``socket.socket.connect`` in case anything went round them; the fixture
fails the test if anything tried.
"""

from __future__ import annotations

import io
import socket
import zipfile

import numpy as np
import pytest

from fastmix import datasets as D
from fastmix.datasets import ChecksumMismatchError, DatasetUnavailableError, cache

pytest.importorskip("pandas")

GENERATORS = [D.make_sphere_regression, D.make_correlated_regression]
DOWNLOADABLE = [D.load_black_friday, D.load_year_msd, D.load_airline]
MANUAL = [D.load_beijing_housing, D.load_rossmann]
CACHED = DOWNLOADABLE + MANUAL
BUNDLED = [D.load_nycflights, D.load_diabetes_regression]
LOADERS = CACHED + BUNDLED


@pytest.fixture(autouse=True)
def offline(tmp_path, monkeypatch):
    """A private, empty data directory and no way to reach the network; fails the test on any attempt."""
    attempts = []

    def refuse(*args, **kwargs):
        attempts.append((args, kwargs))
        raise OSError("the tests never touch the network")

    monkeypatch.setenv(D.DATA_ENV_VAR, str(tmp_path))
    monkeypatch.setattr(cache, "_make_downloader", refuse)  # looked up as cache._make_downloader at call time
    monkeypatch.setattr(socket.socket, "connect", refuse)
    try:
        import sklearn.datasets as skd
    except ImportError:  # pragma: no cover - scikit-learn is a test dependency
        skd = None
    if skd is not None:
        monkeypatch.setattr(skd, "fetch_openml", refuse)  # looked up as skd.fetch_openml at call time
    yield tmp_path
    assert not attempts, f"a loader tried to reach the network: {attempts}"


def _name(f):
    return f.__name__


# =========================================================================== generators


@pytest.mark.parametrize("maker", GENERATORS, ids=_name)
@pytest.mark.parametrize("arg", ["n", "d"])
@pytest.mark.parametrize(
    "value,error,match",
    [
        ("100", TypeError, r"must be an integer; got '100' of type str"),
        (2.5, TypeError, r"must be an integer; got 2\.5 of type float"),
        (None, TypeError, r"must be an integer; got None"),
        (True, TypeError, r"must be an integer; got True of type bool"),
        (0, ValueError, r"must be at least 1; got 0"),
        (-4, ValueError, r"must be at least 1; got -4"),
    ],
)
def test_generator_sizes(maker, arg, value, error, match):
    kwargs = {"n": 16, "d": 3, arg: value}
    with pytest.raises(error, match=rf"^{arg} {match}"):
        maker(**kwargs)


@pytest.mark.parametrize("maker", GENERATORS, ids=_name)
def test_generator_accepts_integral_floats_and_numpy_integers(maker):
    ds = maker(n=np.int64(16), d=3.0, random_state=0)
    assert (ds.n, ds.d) == (16, 3)


@pytest.mark.parametrize("maker", GENERATORS, ids=_name)
@pytest.mark.parametrize(
    "value,error,match",
    [
        (-1.0, ValueError, r"noise_var must be >= 0; got -1\.0"),
        ("a", TypeError, r"noise_var must be a real number; got 'a'"),
        (float("inf"), ValueError, r"noise_var must be finite; got inf"),
    ],
)
def test_generator_noise_variance(maker, value, error, match):
    with pytest.raises(error, match=match):
        maker(n=16, d=3, noise_var=value)


@pytest.mark.parametrize(
    "kwargs,error,match",
    [
        ({"rho": 1.0}, ValueError, r"rho must lie in \[0, 1\); got 1\.0"),
        ({"rho": -0.1}, ValueError, r"rho must lie in \[0, 1\); got -0\.1"),
        ({"rho": "high"}, TypeError, r"rho must be a real number; got 'high'"),
        ({"scale": 0.0}, ValueError, r"scale must be > 0; got 0\.0"),
    ],
)
def test_correlated_design_parameters(kwargs, error, match):
    with pytest.raises(error, match=match):
        D.make_correlated_regression(n=16, d=3, **kwargs)


@pytest.mark.parametrize(
    "args,error,match",
    [
        ((-1,), ValueError, r"d must be at least 1; got -1"),
        ((0,), ValueError, r"d must be at least 1; got 0"),
        ((2.5,), TypeError, r"d must be an integer; got 2\.5"),
        (("3",), TypeError, r"d must be an integer; got '3'"),
        ((3, 1.0), ValueError, r"rho must lie in \[0, 1\); got 1\.0"),
        ((3, 2.0), ValueError, r"rho must lie in \[0, 1\); got 2\.0"),
        ((3, 0.5, -2.0), ValueError, r"scale must be > 0; got -2\.0"),
    ],
)
def test_correlated_covariance_arguments(args, error, match):
    """Before: a negative d gave an empty matrix, d = 2.5 a 3 x 3 one and rho >= 1 a matrix that is not
    positive definite, all without a word."""
    with pytest.raises(error, match=match):
        D.correlated_covariance(*args)


@pytest.mark.parametrize("maker", GENERATORS, ids=_name)
@pytest.mark.parametrize("value", ["no", 1, None])
def test_generator_normalize_must_be_a_bool(maker, value):
    """Before: ``normalize="no"`` normalised (a non-empty string is true)."""
    with pytest.raises(TypeError, match=rf"normalize must be True or False; got {value!r}"):
        maker(n=16, d=3, normalize=value)


BAD_SEEDS = [
    ("seed", TypeError, r"random_state must be None, an int, a SeedSequence or a numpy\.random\.Generator; got str"),
    (1.5, TypeError, r"random_state must be None, an int, .*; got float"),
    (
        np.random.RandomState(0),
        TypeError,
        r"random_state is a legacy numpy\.random\.RandomState; pass a numpy\.random\.Generator",
    ),
    (
        -1,
        ValueError,
        r"random_state must be a non-negative integer seed .*; got -1\. Pass abs\(seed\) or any seed >= 0",
    ),
]


@pytest.mark.parametrize("maker", GENERATORS, ids=_name)
@pytest.mark.parametrize("seed,error,match", BAD_SEEDS, ids=["str", "float", "RandomState", "negative"])
def test_generator_random_state(maker, seed, error, match):
    """Before: a negative seed failed inside NumPy ("expected non-negative integer"), naming no argument."""
    with pytest.raises(error, match=match):
        maker(n=16, d=3, random_state=seed)


# =========================================================================== arguments every loader takes
# These are checked before any file is looked for, so the empty data directory does not matter.


@pytest.mark.parametrize("loader", LOADERS, ids=_name)
@pytest.mark.parametrize("value", ["truncate", True, 2])
def test_loader_power_of_two_option(loader, value):
    with pytest.raises(ValueError, match=rf"power_of_two must be None, 'pad' or 'subsample'; got {value!r}"):
        loader(power_of_two=value)


@pytest.mark.parametrize("loader", LOADERS, ids=_name)
@pytest.mark.parametrize("seed,error,match", BAD_SEEDS, ids=["str", "float", "RandomState", "negative"])
def test_loader_random_state(loader, seed, error, match):
    with pytest.raises(error, match=match):
        loader(random_state=seed)


@pytest.mark.parametrize("loader", LOADERS, ids=_name)
def test_loader_normalize_must_be_a_bool(loader):
    """Before: ``normalize="no"`` normalised, and for the cached data went on to look for the files."""
    with pytest.raises(TypeError, match=r"normalize must be True or False; got 'no' of type str"):
        loader(normalize="no")


@pytest.mark.parametrize("loader", CACHED, ids=_name)
@pytest.mark.parametrize("value", [123, 4.5, ["data"]])
def test_loader_data_home_type(loader, value):
    """Before: pathlib's "expected str, bytes or os.PathLike object, not int", naming no argument."""
    with pytest.raises(TypeError, match=r"data_home must be a directory path \(str or os\.PathLike\) or None"):
        loader(data_home=value)


@pytest.mark.parametrize("loader", CACHED, ids=_name)
def test_loader_data_home_empty_string(loader):
    """Before: an empty string silently meant the current directory."""
    with pytest.raises(ValueError, match=r"data_home must name a directory; got an empty string"):
        loader(data_home="")


@pytest.mark.parametrize("loader", CACHED, ids=_name)
@pytest.mark.parametrize("value", ["no", 0, None])
def test_loader_download_must_be_a_bool(loader, value):
    """Before: ``download="no"`` counted as true and started a download."""
    with pytest.raises(TypeError, match=rf"download must be True or False; got {value!r}"):
        loader(download=value)


@pytest.mark.parametrize("loader", [D.load_airline, D.load_nycflights], ids=_name)
@pytest.mark.parametrize(
    "value,error,match",
    [
        (0, ValueError, r"n_samples must be at least 1; got 0\. Pass None to keep every complete row"),
        (-5, ValueError, r"n_samples must be at least 1; got -5\. Pass None"),
        (2.5, TypeError, r"n_samples must be an integer; got 2\.5 of type float"),
        ("10", TypeError, r"n_samples must be an integer; got '10' of type str"),
        (True, TypeError, r"n_samples must be an integer; got True of type bool"),
    ],
)
def test_loader_n_samples(loader, value, error, match):
    with pytest.raises(error, match=match):
        loader(value, **({"download": False} if loader is D.load_airline else {}))


@pytest.mark.parametrize(
    "kwargs,error,match",
    [
        ({"timeout": -1}, ValueError, r"timeout must be > 0; got -1"),
        ({"timeout": 0}, ValueError, r"timeout must be > 0; got 0"),
        ({"timeout": "fast"}, TypeError, r"timeout must be a real number; got 'fast'"),
        ({"half": "yes"}, TypeError, r"half must be True or False; got 'yes'"),
    ],
)
def test_year_msd_arguments(kwargs, error, match):
    """Before: neither was checked (a bad timeout only failed deep inside the HTTP client, during a download)."""
    with pytest.raises(error, match=match):
        D.load_year_msd(download=False, **kwargs)


@pytest.mark.parametrize(
    "value,error,match",
    [
        (0, ValueError, r"first_fraction must be > 0; got 0"),
        (2, ValueError, r"first_fraction must be in \(0, 1\] \(the share of the file's first rows to keep\); got 2"),
        ("a", TypeError, r"first_fraction must be a real number; got 'a'"),
    ],
)
def test_beijing_first_fraction(value, error, match):
    with pytest.raises(error, match=match):
        D.load_beijing_housing(first_fraction=value)


@pytest.mark.parametrize("loader", MANUAL, ids=_name)
def test_manual_loaders_take_download_like_the_others(loader, offline):
    """Before: ``download=False``, which the studies pass to every cached dataset, was a TypeError here."""
    with pytest.raises(DatasetUnavailableError, match="cannot be downloaded automatically"):
        loader(download=False)


# =========================================================================== the data directory


@pytest.mark.parametrize(
    "loader,key",
    [
        (D.load_year_msd, "year_msd/YearPredictionMSD.txt.zip"),
        (D.load_black_friday, "openml"),
        (D.load_airline, "openml"),
    ],
    ids=str,
)
def test_missing_file_offline(loader, key, offline):
    with pytest.raises(DatasetUnavailableError, match="download=False") as info:
        loader(download=False)
    message = str(info.value)
    assert str(offline / key) in message  # where the file is expected
    assert "URL" in message and "by hand" in message  # where it comes from and how to place it


@pytest.mark.parametrize(
    "loader,relpath", [(D.load_beijing_housing, "beijing/new.csv"), (D.load_rossmann, "rossmann/train.csv")], ids=str
)
def test_missing_hand_placed_file(loader, relpath, offline):
    with pytest.raises(DatasetUnavailableError, match="cannot be downloaded automatically") as info:
        loader()
    message = str(info.value)
    assert str(offline / relpath) in message and "kaggle" in message.lower() and "by hand" in message


def test_missing_file_follows_data_home_argument(tmp_path):
    other = tmp_path / "elsewhere"
    with pytest.raises(DatasetUnavailableError, match=str(other / "beijing" / "new.csv")):
        D.load_beijing_housing(data_home=other)


@pytest.mark.parametrize(
    "value,error,match",
    [
        (123, TypeError, r"data_home must be a directory path .*got 123 of type int"),
        ("  ", ValueError, r"data_home must name a directory; got an empty string"),
    ],
)
def test_get_data_home_and_available_offline_check_data_home(value, error, match):
    with pytest.raises(error, match=match):
        D.get_data_home(value)
    with pytest.raises(error, match=match):
        D.available_offline(value)


def _place(root, relpath, payload: bytes):
    path = root / relpath
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(payload)
    return path


@pytest.mark.parametrize(
    "key,relpath,loader",
    [
        ("year_msd", "year_msd/YearPredictionMSD.txt.zip", D.load_year_msd),
        ("beijing", "beijing/new.csv", D.load_beijing_housing),
        ("rossmann_train", "rossmann/train.csv", D.load_rossmann),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_cached_file_with_the_wrong_checksum(key, relpath, loader, offline, monkeypatch):
    path = _place(offline, relpath, b"not the recorded file\n")
    if key == "rossmann_train":
        _place(offline, "rossmann/store.csv", b"Store\n1\n")
    remote = D.REMOTE_FILES[key]
    monkeypatch.setitem(
        D.REMOTE_FILES,
        key,
        D.RemoteFile(
            remote.key,
            remote.relpath,
            remote.url,
            sha256="0" * 64,
            downloadable=remote.downloadable,
            manual=remote.manual,
        ),
    )
    with pytest.raises(ChecksumMismatchError, match=rf"Checksum mismatch for {key}") as info:
        loader()  # downloads allowed: a file in the cache is checked where it lies, offline (see the fixture)
    message = str(info.value)
    assert str(path) in message and D.sha256_file(path) in message and "0" * 64 in message
    assert "Delete it and load again" in message
    assert path.exists()  # a cached file is reported, not deleted behind the user's back


# =========================================================================== corrupt or truncated files


def _zip(entries: dict[str, str]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, text in entries.items():
            zf.writestr(name, text)
    return buf.getvalue()


ROW = "2001," + ",".join(["0.5"] * 90) + "\n"


@pytest.mark.parametrize(
    "payload,match",
    [
        (b"PK\x03\x04 cut off here", r"Cannot read .*YearPredictionMSD\.txt\.zip \(BadZipFile"),
        (_zip({"readme.csv": "1,2\n"}), r"contains no \.txt file; expected YearPredictionMSD\.txt"),
        (_zip({"YearPredictionMSD.txt": ""}), r"Cannot read .*\(EmptyDataError"),
        (_zip({"YearPredictionMSD.txt": "2001,abc\n"}), r"Cannot read .*could not convert string to float"),
        (
            _zip({"YearPredictionMSD.txt": ROW * 3}),
            r"has shape \(3, 91\), expected \(515345, 91\)\. The file is truncated",
        ),
    ],
    ids=["truncated-zip", "no-txt", "empty", "non-numeric", "truncated-table"],
)
def test_year_msd_corrupt_or_truncated(payload, match, offline):
    _place(offline, "year_msd/YearPredictionMSD.txt.zip", payload)
    with pytest.raises(DatasetUnavailableError, match=match):
        D.load_year_msd(download=False)


def _beijing_header():
    return "totalPrice," + ",".join(D._BEIJING_NUMERIC + D._BEIJING_CATEGORICAL)


@pytest.mark.parametrize(
    "payload,match",
    [
        (b"", r"Cannot read .*new\.csv \(EmptyDataError"),
        (bytes(range(128, 256)) * 4, r"Cannot read .*new\.csv \(UnicodeDecodeError"),
        (b"a,b\n1,2\n", r"new\.csv lacks the columns \['totalPrice'"),
        ((_beijing_header() + "\n").encode(), r"No complete row is left in .*new\.csv"),
        ((_beijing_header() + "\n" + ",".join(["x"] * 20) + "\n").encode(), r"No complete row is left in .*new\.csv"),
    ],
    ids=["empty", "binary", "wrong-columns", "header-only", "no-numbers"],
)
def test_beijing_corrupt_or_truncated(payload, match, offline):
    """Before: a file with the right header but no usable row failed in the normalisation with
    "X must have at least 1 row(s)", naming neither the file nor the fix."""
    _place(offline, "beijing/new.csv", payload)
    with pytest.raises(DatasetUnavailableError, match=match) as info:
        D.load_beijing_housing()
    assert "place" in str(info.value).lower() or "download it" in str(info.value)


def test_rossmann_truncated(offline):
    _place(offline, "rossmann/train.csv", b"Store,Sales\n1,2\n")
    _place(offline, "rossmann/store.csv", b"Store\n1\n")
    with pytest.raises(DatasetUnavailableError, match=r"train\.csv has shape \(1, 2\), expected \(1017209, any\)"):
        D.load_rossmann()


def test_rossmann_empty(offline):
    _place(offline, "rossmann/train.csv", b"")
    _place(offline, "rossmann/store.csv", b"")
    with pytest.raises(DatasetUnavailableError, match=r"Cannot read the Rossmann files .*EmptyDataError"):
        D.load_rossmann()


TRAIN_HEADER = "Store,DayOfWeek,Date,Sales,Customers,Open,Promo,StateHoliday,SchoolHoliday\n"
STORE_HEADER = (
    "Store,StoreType,Assortment,CompetitionDistance,CompetitionOpenSinceMonth,CompetitionOpenSinceYear,"
    "Promo2,Promo2SinceWeek,Promo2SinceYear,PromoInterval\n"
)


@pytest.mark.parametrize(
    "train,store,match",
    [
        ("a,b\n1,2\n", STORE_HEADER + "1,a,a,10,1,2010,0,,,\n", r"train\.csv lacks the columns \['Store'"),
        (
            TRAIN_HEADER + "1,5,2015-07-31,100,10,1,1,0,1\n",
            "Store,Other\n1,2\n",
            r"store\.csv lacks the columns \['StoreType'",
        ),
        (
            TRAIN_HEADER + "1,5,2015-07-31,100,10,1,1,0,1\n",
            STORE_HEADER + "1,a,a,10,1,2010,0,,,\n1,b,a,10,1,2010,0,,,\n",
            r"store\.csv lists some stores more than once",
        ),
        (
            TRAIN_HEADER + "1,5,2015-07-31,0,10,0,1,0,1\n",
            STORE_HEADER + "1,a,a,10,1,2010,0,,,\n",
            r"No complete row is left in .*train\.csv",
        ),
        (
            TRAIN_HEADER + "1,5,not a date,100,10,1,1,0,1\n",
            STORE_HEADER + "1,a,a,10,1,2010,0,,,\n",
            r"The Date column of .*train\.csv is not a date in every row",
        ),
    ],
    ids=["train-columns", "store-columns", "duplicate-stores", "no-rows", "bad-dates"],
)
def test_rossmann_wrong_content(train, store, match, offline, monkeypatch):
    """Before: a missing column surfaced as pandas' ``KeyError: 'Store'`` from inside the join, and a
    duplicated store as pandas' MergeError."""
    monkeypatch.setitem(D.EXPECTED_SHAPES, "rossmann_train", (None, None))
    monkeypatch.setitem(D.EXPECTED_SHAPES, "rossmann_store", (None, None))
    _place(offline, "rossmann/train.csv", train.encode())
    _place(offline, "rossmann/store.csv", store.encode())
    with pytest.raises(DatasetUnavailableError, match=match):
        D.load_rossmann()


# =========================================================================== the registry and preprocessing


def test_load_dataset_unknown_name():
    with pytest.raises(ValueError, match=r"Unknown dataset 'mnist'\. Known datasets: airline, beijing, .*work without"):
        D.load_dataset("mnist")


@pytest.mark.parametrize("name", [3, None, ["diabetes"]])
def test_load_dataset_name_of_the_wrong_type(name):
    """Before: a ValueError "Unknown dataset 3", as if the number were a misspelt name."""
    with pytest.raises(TypeError, match=r"name must be a string naming a dataset; got .* Known datasets: airline"):
        D.load_dataset(name)


@pytest.mark.parametrize(
    "name,kwargs,loader",
    [
        ("diabetes", {"n_samples": 5}, "load_diabetes_regression"),
        ("synthetic_sphere", {"bogus": 1, "rho": 0.5}, "make_sphere_regression"),
    ],
)
def test_load_dataset_argument_the_loader_does_not_take(name, kwargs, loader):
    """Before: Python's "got an unexpected keyword argument", without the arguments the loader takes."""
    with pytest.raises(
        TypeError,
        match=rf"load_dataset\('{name}'\) got argument\(s\) .* that {loader} does not take; "
        r"it takes .*random_state",
    ):
        D.load_dataset(name, **kwargs)


def test_load_dataset_checks_the_loader_arguments_too():
    with pytest.raises(ValueError, match=r"^n must be at least 1; got 0"):
        D.load_dataset("synthetic_sphere", n=0)


@pytest.mark.parametrize("method", ["truncate", 3, None])
def test_reduce_to_power_of_two_method(method):
    with pytest.raises(ValueError, match=rf"method must be 'pad' \(append zero rows\) or 'subsample' .*got {method!r}"):
        D.reduce_to_power_of_two(np.ones((5, 2)), np.ones(5), method=method)


@pytest.mark.parametrize("seed,error,match", BAD_SEEDS, ids=["str", "float", "RandomState", "negative"])
def test_reduce_to_power_of_two_random_state_checked_even_when_padding(seed, error, match):
    with pytest.raises(error, match=match):
        D.reduce_to_power_of_two(np.ones((5, 2)), np.ones(5), method="pad", random_state=seed)


@pytest.mark.parametrize("func", [D.normalize, D.reduce_to_power_of_two, D.dataset_statistics], ids=_name)
def test_preprocessing_shapes_and_types(func):
    with pytest.raises(ValueError, match=r"y has 4 entries but X has 5 rows; they must match"):
        func(np.ones((5, 2)), np.ones(4))
    with pytest.raises(TypeError, match=r"X must be an array-like of real numbers; got 'abc'"):
        func("abc", np.ones(1))
    with pytest.raises(ValueError, match=r"X must be a 2-D array"):
        func(np.ones(5), np.ones(5))
