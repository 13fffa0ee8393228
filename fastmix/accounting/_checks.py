"""Input checks and array handling shared by the modules of :mod:`fastmix.accounting`.

Private to the package: the Renyi orders, gammas, row counts and ``C^2`` that every accounting
formula takes are validated here, with messages that name the bound and its valid range.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_positive, check_positive_int


def _scalar_or_array(value, scalar_input: bool):
    """Return a Python float for scalar input and an ndarray otherwise."""
    if scalar_input:
        return float(np.asarray(value).reshape(()))
    return np.asarray(value, dtype=float)


def _as_float_array(value, name: str) -> tuple[np.ndarray, bool]:
    arr = np.asarray(value)
    if arr.dtype == bool or not (np.issubdtype(arr.dtype, np.number)) or np.iscomplexobj(arr):
        raise TypeError(f"{name} must be a real number or an array of real numbers; got {value!r}.")
    arr = arr.astype(float)
    if np.any(np.isnan(arr)):
        raise ValueError(f"{name} must not contain NaN; got {value!r}.")
    return arr, arr.ndim == 0


def _check_alpha(alpha, upper: float, bound: str, upper_text: str, *, lower: float = 1.0):
    """Validate Renyi orders: every alpha must lie in the open interval (lower, upper)."""
    arr, scalar = _as_float_array(alpha, "alpha")
    bad = ~((arr > lower) & (arr < upper))
    if np.any(bad):
        got = arr[bad].flat[0] if arr.ndim else float(arr)
        raise ValueError(
            f"alpha must lie in ({lower:g}, {upper_text}) = ({lower:g}, {upper:.6g}) for the bound {bound}; "
            f"got {got:.6g}. Choose Renyi orders inside this interval (see fastmix_alpha_max), or "
            "increase gamma (more noise) to widen it."
        )
    return arr, scalar


def _check_gamma(gamma, minimum: float, name: str, bound: str, minimum_text: str) -> float:
    g = check_positive(gamma, name, allow_inf=False)
    if not g > minimum:
        raise ValueError(
            f"{name} must be > {minimum_text} = {minimum:.6g} for the bound {bound}; got {g:.6g}. "
            f"Increase the noise (sigma^2) or the minimal eigenvalue so that {name} exceeds {minimum:.6g}."
        )
    return g


def _check_k(k, name: str = "k") -> int:
    return check_positive_int(k, name, minimum=1, hint="It is the number of Gaussian rows released (sketch size).")


def _check_compositions(compositions) -> int:
    return check_positive_int(
        compositions, "compositions", minimum=1, hint="It is the number of independent releases composed."
    )


def _check_c2(c2) -> float:
    c = check_positive(c2, "c2", allow_inf=True)
    if not c >= 1.0:
        raise ValueError(
            f"c2 = C^2_(S_f X) = 1 + 2 max_i ||Z^T S_f e_i - x_i|| is at least 1 by definition (FastMix paper, "
            f"Lemma 1); got {c:.6g}."
        )
    return c
