"""Summary statistics of a regression dataset: the columns of the FastMix paper's Appendix J (Table 1).

:func:`dataset_statistics` computes, for ``(X, y)``, the size, the extreme eigenvalues of
``X^T X``, the least-squares training error and ``(1/n) ||y||^2``; :data:`PAPER_STATISTICS`
holds the values the paper prints, keyed by registry name, so both can be shown side by side.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import check_matrix, check_vector

__all__ = ["dataset_statistics", "PAPER_STATISTICS"]


def dataset_statistics(X, y) -> dict:
    """The columns of the FastMix paper's Appendix J table (Table 1) for ``(X, y)``.

    Returns
    -------
    dict with keys
        ``n``, ``d``;
        ``lambda_min``, ``lambda_max``: extreme eigenvalues of ``X^T X``;
        ``ols_mse``: ``(1/n) ||y - X theta*||^2`` with ``theta*`` the least-squares
        solution (``numpy.linalg.lstsq``);
        ``y_sq_mean``: ``(1/n) ||y||^2``;
        ``n_over_d``: ``n / d``;
        and, to check the normalisation, ``max_row_norm`` and ``max_abs_y``.
    """
    X = check_matrix(X, "X")
    y = check_vector(y, "y", length=X.shape[0])
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    n, d = X.shape
    gram = X.T @ X
    eig = np.linalg.eigvalsh((gram + gram.T) / 2.0)
    theta, *_ = np.linalg.lstsq(X, y, rcond=None)
    resid = y - X @ theta
    return {
        "n": int(n),
        "d": int(d),
        "lambda_min": float(eig[0]),
        "lambda_max": float(eig[-1]),
        "ols_mse": float(resid @ resid / n),
        "y_sq_mean": float(y @ y / n),
        "n_over_d": n / d,
        "max_row_norm": float(np.sqrt(np.einsum("ij,ij->i", X, X).max())),
        "max_abs_y": float(np.abs(y).max()),
    }


PAPER_STATISTICS: dict[str, dict[str, Any]] = {
    # FastMix paper, Appendix J, Table 1 (after the Appendix H normalisation and the
    # power-of-two subsampling). "<1e-3" is printed in the paper instead of a number.
    "beijing": {
        "paper_name": "Beijing",
        "n": None,
        "d": None,
        "lambda_min": "<1e-3",
        "lambda_max": 4435.30,
        "ols_mse": 0.0006,
        "y_sq_mean": 0.015,
        "n_over_d": 1310.7,
        "note": "the table prints '16384 9' for n and d, which does not fit n/d = 1310.7; n and d unresolved",
    },
    "year_msd": {
        "paper_name": "YearMSD",
        "n": 131072,
        "d": 90,
        "lambda_min": "<1e-3",
        "lambda_max": 464.78,
        "ols_mse": 0.004,
        "y_sq_mean": 0.988,
        "n_over_d": 1456.3,
    },
    "black_friday": {
        "paper_name": "Black Friday",
        "n": 131072,
        "d": 81,
        "lambda_min": "<1e-3",
        "lambda_max": 40022.54,
        "ols_mse": 0.022,
        "y_sq_mean": 0.281,
        "n_over_d": 1618.2,
    },
    "synthetic_sphere": {
        "paper_name": "Synthetic: lambda_min ~ n/d",
        "n": 524288,
        "d": 32,
        "lambda_min": 16166.42,
        "lambda_max": 16637.76,
        "ols_mse": 0.034,
        "y_sq_mean": 0.045,
        "n_over_d": 16384.0,
    },
    "synthetic_correlated": {
        "paper_name": "Synthetic: Correlated",
        "n": 524288,
        "d": 32,
        "lambda_min": 3.27,
        "lambda_max": 18723.40,
        "ols_mse": 0.0006,
        "y_sq_mean": 0.039,
        "n_over_d": 16384.0,
    },
    "rossmann": {
        "paper_name": "Rossman",
        "n": 524288,
        "d": 28,
        "lambda_min": "<1e-3",
        "lambda_max": 8390.50,
        "ols_mse": 0.0249,
        "y_sq_mean": 0.265,
        "n_over_d": 18724.5,
    },
    "airline": {
        "paper_name": "Airline",
        "n": 4194304,
        "d": 4,
        "lambda_min": 0.685,
        "lambda_max": 356246.3,
        "ols_mse": 0.005,
        "y_sq_mean": 0.006,
        "n_over_d": 1048576.0,
    },
}
"""Appendix J (Table 1) of the FastMix paper, keyed by registry name, for side-by-side printing."""
