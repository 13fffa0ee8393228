"""Steps every loader of :mod:`fastmix.datasets.loaders` shares: argument checks, row counts, one-hot encoding."""

from __future__ import annotations

import numpy as np

from ._checks import check_data_home, check_flag, check_seed
from .cache import REMOTE_FILES, DatasetUnavailableError, _manual_help
from .normalization import _check_power_of_two_option


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


def _resample_rows(n_total: int, n_samples: int, rng, steps, what="rows"):
    """Indices of ``n_samples`` rows drawn uniformly with replacement (sorted), recorded in ``steps``."""
    keep = np.sort(rng.integers(0, n_total, size=n_samples))
    n_distinct = int(np.unique(keep).size)
    steps.append(
        f"resampled {n_samples} rows uniformly with replacement from {n_total} {what} ({n_distinct} distinct, each "
        f"drawn {n_samples / n_total:.3g} times on average): a row is no longer one distinct record"
    )
    return keep


def _require_columns(table, columns, path, key: str, expected: str) -> None:
    """A table without the ``columns`` the pipeline reads is not the file ``expected`` names.

    ``key`` is the file's entry in :data:`REMOTE_FILES`, whose URL the message repeats.
    """
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise DatasetUnavailableError(
            f"{path} lacks the columns {missing}; it is not {expected}. Place that file there.\n"
            + _manual_help(REMOTE_FILES[key], path)
        )


def _drop_incomplete(complete: np.ndarray, steps: list, *tables):
    """The rows of ``tables`` (arrays or frames) where ``complete`` holds; a step records how many were dropped."""
    if complete.all():
        return tables
    steps.append(f"dropped {int((~complete).sum())} rows with missing values")
    return tuple(t.loc[complete] if hasattr(t, "loc") else t[complete] for t in tables)
