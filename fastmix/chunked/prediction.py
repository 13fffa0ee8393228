"""Predictions and error measures of a fitted linear model on a Dask X, computed where the rows are.

The in-memory entry points (:meth:`~fastmix.regression.FastIHMRegressor.predict`, ``score`` and
:func:`fastmix.regression.training_mse`, hence ``excess_empirical_risk``) send a Dask X here. The
predictions stay a Dask array chunked like X's rows; a score or an error is a few sums reduced on
the workers, so only numbers come back to this process, never X or the predictions.
"""

from __future__ import annotations

import numpy as np

from .._validation import register_dask_route


def _checked_rows(X, n_features: int | None, what: str = "X"):
    """X as float64, after checking its width (its values are checked chunk by chunk, when computed)."""
    if X.ndim != 2:
        raise ValueError(f"{what} must be a 2-d Dask array of shape (n, d); got {X.ndim} dimension(s).")
    if n_features is not None and X.shape[1] != n_features:
        raise ValueError(f"{what} has {X.shape[1]} features, but the estimator was fitted with {n_features} features.")
    return X.astype(np.float64) if X.dtype != np.float64 else X


def _predict_block(block, coef, intercept, block_info=None):
    if not np.all(np.isfinite(block)):
        start = block_info[0]["array-location"][0][0] if block_info else "?"
        bad = int(np.count_nonzero(~np.isfinite(block).all(axis=1)))
        raise ValueError(
            f"X contains NaN or infinity in {bad} row(s) of the chunk starting at row {start}. fastmix drops nothing "
            "silently: remove or impute those rows before predicting."
        )
    return block @ coef + intercept


@register_dask_route("regression.predict_linear")
def predict_linear(estimator, X):
    """Lazy ``X @ coef_ + intercept_``: one task per row chunk, a Dask vector chunked like X's rows."""
    X = _checked_rows(X, getattr(estimator, "n_features_in_", None))
    if len(X.chunks[1]) > 1:
        X = X.rechunk({1: -1})
    coef = np.asarray(estimator.coef_, dtype=np.float64)
    return X.map_blocks(
        _predict_block,
        coef,
        float(estimator.intercept_),
        drop_axis=1,
        dtype=np.float64,
        meta=np.empty((0,), dtype=np.float64),
    )


def _as_rows_like(v, pred, name: str):
    """``v`` (NumPy or Dask) as a Dask vector chunked like ``pred``."""
    import dask.array as da

    if v is None:
        return None
    if not isinstance(v, da.Array):
        v = np.asarray(v, dtype=np.float64)
        if v.shape != pred.shape:
            raise ValueError(f"{name} must have shape {pred.shape}, one value per row of X; got {v.shape}.")
        return da.from_array(v, chunks=pred.chunks)
    if v.ndim != 1 or v.shape[0] != pred.shape[0]:
        raise ValueError(f"{name} must have shape {pred.shape}, one value per row of X; got {v.shape}.")
    return v.astype(np.float64).rechunk(pred.chunks)


@register_dask_route("regression.score_linear")
def score_linear(estimator, X, y, sample_weight=None) -> float:
    """R^2 as scikit-learn's ``r2_score`` computes it (weighted, ``force_finite``), from sums on the workers."""
    import dask

    pred = predict_linear(estimator, X)
    y = _as_rows_like(y, pred, "y")
    w = _as_rows_like(sample_weight, pred, "sample_weight")
    w = 1.0 if w is None else w
    sw, swy, swy2, ss_res = dask.compute(
        (w * (y * 0 + 1)).sum(), (w * y).sum(), (w * y * y).sum(), (w * (y - pred) ** 2).sum()
    )
    ss_tot = float(swy2 - swy * swy / sw)
    ss_res = float(ss_res)
    if ss_tot <= 0.0:  # a constant y: scikit-learn's force_finite convention
        return 1.0 if ss_res == 0.0 else 0.0
    return 1.0 - ss_res / ss_tot


@register_dask_route("regression.training_mse")
def training_mse(X, y, theta) -> float:
    """``(1/n) ||y - X theta||^2`` with the squared residuals summed on the workers."""
    X = _checked_rows(X, None)
    theta = np.asarray(theta, dtype=np.float64)
    if X.shape[1] != theta.shape[0]:
        raise ValueError(f"theta has {theta.shape[0]} entries for the {X.shape[1]} columns of X.")
    r = _as_rows_like(y, X[:, 0], "y") - X @ theta
    return float((r * r).sum().compute()) / X.shape[0]
