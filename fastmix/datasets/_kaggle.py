"""The two real data sets of Appendix J that Kaggle serves only after a login, so they are placed by hand.

:func:`load_beijing_housing` (Lianjia prices, ``<data>/beijing/new.csv``) and
:func:`load_rossmann` (``<data>/rossmann/train.csv`` and ``store.csv``). Re-exported by
:mod:`fastmix.datasets.loaders`.
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_positive
from ._loading import _check_source, _common_kwargs, _drop_incomplete, _one_hot, _require_columns, _require_rows
from .cache import REMOTE_FILES, DatasetUnavailableError, _check_shape, _ensure_file, _manual_help, _require_pandas
from .normalization import _finish
from .record import Dataset, _seed_label

__all__ = ["load_beijing_housing", "load_rossmann"]


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
    _require_columns(frame, needed, path, "beijing", "the Kaggle ruiqurm/lianjia new.csv")
    steps = [f"read {path.name} ({n_raw} rows, encoding gb18030)"]
    m = math.floor(n_raw * first_fraction)
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
    for table, path, columns, key in (
        (train, train_path, _ROSSMANN_TRAIN_COLUMNS, "rossmann_train"),
        (store, store_path, _ROSSMANN_STORE_COLUMNS, "rossmann_store"),
    ):
        _require_columns(table, columns, path, key, f"the Kaggle rossmann-store-sales {path.name}")
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
    numeric, frame = _drop_incomplete(numeric.notna().all(axis=1).to_numpy(), steps, numeric, frame)
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
