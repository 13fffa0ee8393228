"""Exact least squares and the error measures of the FastMix paper's experiments (Section 4, Appendix H)."""

from __future__ import annotations

import numpy as np

from .._validation import check_matrix, check_vector, dask_route


@dask_route("regression.ols", on="X")
def ols(X, y) -> np.ndarray:
    """Exact least squares ``theta* = argmin_theta ||y - X theta||^2`` (FastMix paper, Section 4).

    Uses LAPACK's SVD-based ``gelsd`` (:func:`numpy.linalg.lstsq`), which is stable for
    ill-conditioned and rank-deficient X (it returns the minimum-norm solution). A Dask X (and
    y) chunked along rows is solved by Dask's tall-and-skinny QR (:func:`dask.array.linalg.lstsq`),
    which needs X of full column rank and every row chunk at least as long as X is wide.
    """
    X = check_matrix(X, "X")
    y = check_vector(y, "y", length=X.shape[0])
    return np.linalg.lstsq(np.asarray(X, dtype=np.float64), np.asarray(y, dtype=np.float64), rcond=None)[0]


@dask_route("regression.training_mse", on="X")
def training_mse(X, y, theta) -> float:
    """``(1/n) ||y - X theta||^2``; for a Dask X, reduced on the workers."""
    X = np.asarray(X, dtype=np.float64)
    r = np.asarray(y, dtype=np.float64) - X @ np.asarray(theta, dtype=np.float64)
    return float(r @ r) / X.shape[0]


def excess_empirical_risk(X, y, theta, theta_star=None) -> float:
    """Excess empirical risk of the paper (Appendix H): ``(1/n)||y - X theta||^2 - (1/n)||y - X theta*||^2``."""
    if theta_star is None:
        theta_star = ols(X, y)
    return training_mse(X, y, theta) - training_mse(X, y, theta_star)
