"""Preprocessing of the FastMix paper's Appendix H: unit bounds and a power-of-two number of rows.

The paper rescales every dataset so that ``||x_i|| <= 1`` and ``|y_i| <= 1`` (``C_X = C_Y = 1``)
and brings ``n`` to a power of two for the Walsh-Hadamard transform. :func:`normalize` and
:func:`reduce_to_power_of_two` are these two steps; every loader ends with both (the shared
tail that records what they did in :attr:`~fastmix.datasets.Dataset.preprocessing`).

The rescaling divides by the *observed* maxima. That is preprocessing of public benchmark
data, as in the paper, and is **not** covered by any privacy guarantee of this package (the
maxima are functions of the data); on private data divide by public bounds instead.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_matrix, check_vector, row_norms
from ..hadamard import POWER_OF_TWO_METHODS, PowerOfTwoRecord, rows_to_power_of_two
from ._checks import check_seed
from .record import _as_design

__all__ = ["normalize", "reduce_to_power_of_two", "PowerOfTwoRecord"]


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


def reduce_to_power_of_two(X, y, method: str = "pad", random_state=None):
    """Bring the number of rows to a power of two, as the Hadamard transform needs.

    Two options, both recorded:

    Both are :func:`fastmix.hadamard.rows_to_power_of_two`, with the checks of a public entry point.

    * ``"pad"`` appends zero rows (and zero responses) up to the next power of two. Under zero-out neighbouring
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
    record : fastmix.hadamard.PowerOfTwoRecord
        Method (``"none"`` when ``n`` already is a power of two), row counts and, for
        ``"subsample"``, the kept indices; :meth:`~fastmix.hadamard.PowerOfTwoRecord.describe`
        gives the line recorded in :attr:`Dataset.preprocessing`.
    """
    X = check_matrix(X, "X")
    y = check_vector(y, "y", length=X.shape[0])
    if not isinstance(method, str) or method not in POWER_OF_TWO_METHODS:
        raise ValueError(
            f"method must be 'pad' (append zero rows) or 'subsample' (keep a random 2^floor(log2 n) rows); "
            f"got {method!r}."
        )
    rng = check_seed(random_state)  # checked here even when no row is drawn
    X, y, record = rows_to_power_of_two(X, y, method=method, random_state=rng, order="F", dtype=np.float64)
    return _as_design(X), y, record


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
