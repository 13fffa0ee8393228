"""Input validation shared by every public entry point.

Each check raises :class:`ValueError` (or :class:`TypeError` for the wrong kind of
object) with a message that says what was received, what was expected and how to
fix it. Validation happens at the boundary of the package; private helpers assume
validated input.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any, TypeVar

import numpy as np

__all__ = [
    "check_matrix",
    "check_vector",
    "check_epsilon",
    "check_estimator_epsilon",
    "EPSILON_RANGE",
    "warn_responses_clipped",
    "check_delta",
    "check_positive",
    "check_positive_int",
    "check_probability",
    "check_row_norms",
    "row_norms",
    "NormEnforcement",
    "ROW_NORM_POLICIES",
    "check_policy",
    "check_random_state",
    "check_array_kind",
    "PrivacyWarning",
    "NotPrivateWarning",
    "ResponseClippingWarning",
]


class PrivacyWarning(UserWarning):
    """A legal choice of privacy parameters that gives a weak or surprising guarantee."""


class NotPrivateWarning(PrivacyWarning):
    """An option was chosen that breaks the privacy guarantee (e.g. a data-dependent rescaling).

    The fit runs, its ledger entries are marked not private (:attr:`fastmix.accounting.LedgerEntry.not_private`)
    and ``privacy_ledger_.private`` is False.
    """


class ResponseClippingWarning(UserWarning):
    """Responses outside the declared bound were clipped at fit, as the caller asked (``y_policy="clip"``).

    Clipping one record at a time keeps the guarantee; the warning is for the data holder, whose
    model is fitted to the clipped responses (the message gives the count and the share).
    """


def _is_sparse(X) -> bool:
    """True for SciPy sparse matrices and arrays (without importing SciPy when it is absent)."""
    module = type(X).__module__ or ""
    if not module.startswith("scipy.sparse"):
        return False
    try:
        from scipy import sparse
    except Exception:  # pragma: no cover - scipy is a dependency
        return False
    return sparse.issparse(X)


def check_array_kind(X, name: str) -> None:
    """Refuse the kinds of object that ``np.asarray`` would turn into something misleading.

    SciPy sparse input, ``None`` and a bare string raise :class:`TypeError`: ``np.asarray``
    would wrap them in a 0-d array and the error would be about the number of dimensions.
    """
    if X is None or isinstance(X, (str, bytes)):
        raise TypeError(f"{name} must be an array-like of real numbers; got {X!r}.")
    if _is_sparse(X):
        raise TypeError(
            f"{name} is a SciPy sparse {type(X).__name__}; fastmix works on dense arrays only (the "
            f"Walsh-Hadamard transform and the Gaussian sketches fill every entry anyway). Pass "
            f"{name}.toarray() instead."
        )


def _check_real_dtype(arr: np.ndarray, name: str) -> None:
    """TypeError unless ``arr`` holds real numbers (bool, integer or floating point)."""
    if np.issubdtype(arr.dtype, np.complexfloating):
        raise TypeError(
            f"{name} must hold real numbers; got complex dtype {arr.dtype}. The privacy analysis and the "
            f"sketches are for real data: pass {name}.real (or stack real and imaginary parts as columns)."
        )
    if not np.issubdtype(arr.dtype, np.number):
        hint = f" Convert with {name}.astype(float)." if arr.dtype == np.bool_ else ""
        raise TypeError(f"{name} must hold real numbers; got an array of dtype {arr.dtype}.{hint}")


def check_random_state(random_state) -> np.random.Generator:
    """Turn ``random_state`` into a :class:`numpy.random.Generator`.

    ``None`` gives a generator seeded from fresh OS entropy, an integer or a
    :class:`numpy.random.SeedSequence` gives a seeded generator, and a
    ``Generator`` is passed through unchanged (so draws continue its stream).
    """
    if random_state is None:
        return np.random.default_rng()
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.SeedSequence):
        return np.random.default_rng(random_state)
    if isinstance(random_state, Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(
                f"random_state must be None, a non-negative int, a SeedSequence or a numpy.random.Generator; "
                f"got {int(random_state)}. Use a seed >= 0 (e.g. random_state=0)."
            )
        return np.random.default_rng(int(random_state))
    if isinstance(random_state, np.random.RandomState):
        raise TypeError(
            "random_state is a legacy numpy.random.RandomState; pass a numpy.random.Generator "
            "(np.random.default_rng(seed)) or an integer seed instead."
        )
    raise TypeError(
        "random_state must be None, an int, a SeedSequence or a numpy.random.Generator; "
        f"got {type(random_state).__name__}."
    )


def check_matrix(
    X, name: str = "X", *, dtype=None, min_rows: int = 1, min_cols: int = 1, check_finite: bool = True
) -> np.ndarray:
    """Validate a finite 2-D real array and return it as an ndarray (no copy if possible).

    ``check_finite=False`` leaves the finiteness check to the caller, for one that computes the
    row norms next with :func:`row_norms` (which refuses NaN and inf in the same pass): X is then
    read once instead of twice.

    Raises
    ------
    TypeError
        For ``None``, SciPy sparse input, and complex or non-numeric dtypes.
    ValueError
        For the wrong number of dimensions, too few rows or columns, and NaN or inf entries.
    """
    check_array_kind(X, name)
    if dtype is not None:
        _check_real_dtype(np.asarray(X), name)
    arr = np.asarray(X, dtype=dtype)
    if arr.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-D array of shape (n_samples, n_features); got an array with {arr.ndim} "
            f"dimension(s) and shape {arr.shape}. Reshape a single column with {name}.reshape(-1, 1)."
        )
    _check_real_dtype(arr, name)
    if arr.shape[0] < min_rows or arr.shape[1] < min_cols:
        raise ValueError(
            f"{name} must have at least {min_rows} row(s) and {min_cols} column(s); got shape {arr.shape}."
        )
    # A finite sum proves every entry finite (NaN and inf propagate) in one read-only pass;
    # only when it is not (a bad entry, or an overflow of huge finite values) do the exact count.
    if check_finite and not np.isfinite(np.add.reduce(arr, axis=None)) and not np.all(np.isfinite(arr)):
        raise _non_finite_error(arr, name)
    return arr


def _non_finite_error(arr: np.ndarray, name: str) -> ValueError:
    """The error for NaN or inf entries in ``arr``, with their count."""
    bad = int(np.size(arr) - np.count_nonzero(np.isfinite(arr)))
    return ValueError(
        f"{name} contains {bad} non-finite value(s) (NaN or inf). Remove or impute them before "
        "calling fastmix; nothing is dropped silently."
    )


def check_vector(y, name: str = "y", *, length: int | None = None) -> np.ndarray:
    """Validate a finite 1-D real array (a column vector of shape (n, 1) is flattened).

    Errors as in :func:`check_matrix`.
    """
    check_array_kind(y, name)
    arr = np.asarray(y)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D of shape (n_samples,); got shape {arr.shape}.")
    _check_real_dtype(arr, name)
    if length is not None and arr.shape[0] != length:
        raise ValueError(f"{name} has {arr.shape[0]} entries but X has {length} rows; they must match.")
    if not np.all(np.isfinite(arr)):
        bad = int(arr.size - np.count_nonzero(np.isfinite(arr)))
        raise ValueError(f"{name} contains {bad} non-finite value(s) (NaN or inf); remove or impute them first.")
    return arr


def _as_real(value, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (Real, np.floating, np.integer)):
        raise TypeError(f"{name} must be a real number; got {value!r} of type {type(value).__name__}.")
    value = float(value)
    if math.isnan(value):
        raise ValueError(f"{name} must be a number; got NaN.")
    return value


def check_epsilon(epsilon, name: str = "epsilon") -> float:
    """Privacy parameter epsilon: a finite real number > 0."""
    eps = _as_real(epsilon, name)
    if not (eps > 0 and math.isfinite(eps)):
        raise ValueError(f"{name} must be a finite number > 0; got {epsilon!r}. Smaller values mean more privacy.")
    return eps


#: The epsilons the private estimators accept: below, the noise swamps any data set; above, the
#: guarantee is void and the calibrations overflow.
EPSILON_RANGE = (1e-6, 1e6)


def check_estimator_epsilon(epsilon, estimator: str) -> float:
    """An estimator's epsilon: a number inside :data:`EPSILON_RANGE`, with the fix in the message.

    The lower-level functions accept any finite epsilon > 0 (:func:`check_epsilon`); an
    estimator refuses the values at which no data set is usable or the calibrations overflow.
    """
    if epsilon is None:
        raise ValueError(f"{estimator} needs a privacy budget: pass epsilon (e.g. epsilon=1.0); got None.")
    try:
        eps = check_epsilon(epsilon)
    except ValueError as err:
        raise ValueError(f"{err} Pass e.g. epsilon=1.0.") from None
    lo, hi = EPSILON_RANGE
    if not lo <= eps <= hi:
        raise ValueError(
            f"epsilon must lie in [{lo:g}, {hi:g}] for {estimator}; got {eps:g}. Below {lo:g} the noise swamps any "
            f"data set, above {hi:g} the guarantee is void and the calibrations overflow."
        )
    return eps


def warn_responses_clipped(n_clipped: int, n: int, interval: str, remedy: str, stacklevel: int = 3) -> None:
    """:class:`ResponseClippingWarning`: how many responses a declared bound clipped, and the fix.

    One wording for every place that clips responses to a declared, data-independent bound
    (``y_policy="clip"`` of the regressors and kernel learners, the declared range of
    :class:`~fastmix.preprocessing.BoundedResponseRegressor`). ``interval`` names the bound
    (e.g. ``"[-C, C] with C = 1"``); ``remedy`` says what to change when many were clipped.
    Clipping one record at a time keeps the guarantee; the warning is about accuracy.
    """
    warnings.warn(
        f"{n_clipped} of {n} responses ({n_clipped / max(n, 1):.1%}) were clipped to {interval}: the fit sees the "
        "clipped values (private, since each response is clipped alone). If many were clipped, the bound is "
        f"too small for these responses; {remedy}",
        ResponseClippingWarning,
        stacklevel=stacklevel + 1,
    )


def check_delta(delta, name: str = "delta") -> float:
    """Privacy parameter delta: strictly inside (0, 1)."""
    d = _as_real(delta, name)
    if not (0.0 < d < 1.0):
        raise ValueError(
            f"{name} must lie strictly between 0 and 1; got {delta!r}. A common choice is 1/n^2 for n records."
        )
    return d


def check_probability(p, name: str, *, allow_zero: bool = False) -> float:
    v = _as_real(p, name)
    lo_ok = v >= 0.0 if allow_zero else v > 0.0
    if not (lo_ok and v < 1.0):
        interval = "[0, 1)" if allow_zero else "(0, 1)"
        raise ValueError(f"{name} must lie in {interval}; got {p!r}.")
    return v


def check_positive(value, name: str, *, allow_zero: bool = False, allow_inf: bool = False) -> float:
    v = _as_real(value, name)
    if math.isinf(v) and not allow_inf:
        raise ValueError(f"{name} must be finite; got {value!r}.")
    if v < 0 or (v == 0 and not allow_zero):
        rule = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be {rule}; got {value!r}.")
    return v


def check_positive_int(value, name: str, *, minimum: int = 1, maximum: int | None = None, hint: str = "") -> int:
    if isinstance(value, bool) or not isinstance(value, (Integral, np.integer)):
        if isinstance(value, (float, np.floating)) and float(value).is_integer():
            value = int(value)
        else:
            raise TypeError(f"{name} must be an integer; got {value!r} of type {type(value).__name__}.")
    value = int(value)
    if value < minimum or (maximum is not None and value > maximum):
        upper = f" and at most {maximum}" if maximum is not None else ""
        raise ValueError(f"{name} must be at least {minimum}{upper}; got {value}.{(' ' + hint) if hint else ''}")
    return value


@dataclass(frozen=True)
class NormEnforcement:
    """Record of what :func:`check_row_norms` did to the rows of a matrix.

    Attributes
    ----------
    policy : str
        ``"raise"``, ``"clip"`` or ``"rescale"``.
    bound : float
        The row-norm bound C_X that the rows now satisfy.
    n_rows_over : int
        How many rows had norm above ``bound`` on entry (``"clip"`` shrank exactly these).
    max_norm_before : float
        Largest row norm on entry.
    scale : float
        Factor every row was multiplied by (``"rescale"``); 1.0 otherwise.
    """

    policy: str
    bound: float
    n_rows_over: int | None  # None in a published record (a count over the private rows)
    max_norm_before: float | None  # likewise: the largest norm is a statistic of the data
    scale: float | None = 1.0


#: The policies of the row-norm and response checks that look at the whole data set (not private).
DATA_DEPENDENT_POLICIES = ("rescale",)


def policy_caveats(**policies) -> tuple:
    """Why the chosen bound policies break the privacy guarantee: one sentence per such policy.

    ``policy_caveats(row_norm_policy=..., y_policy=...)`` looks at the parameters only, never at
    the data: ``"rescale"`` divides by the largest value observed, a statistic of every record,
    so the release is not differentially private whatever the data turn out to be (whether the
    division happens at all depends on the data). ``"raise"`` and ``"clip"`` act on each record
    alone and keep the guarantee. The empty tuple means the policies are private.
    """
    return tuple(
        f"{name}={policy!r} divides by the largest value observed in the data, a statistic of every "
        "record (use 'raise' after dividing by a public bound, or 'clip')."
        for name, policy in policies.items()
        if policy in DATA_DEPENDENT_POLICIES
    )


def warn_not_private(caveats, what: str, stacklevel: int = 3) -> None:
    """Warn :class:`NotPrivateWarning` with ``caveats`` (nothing when there are none)."""
    if caveats:
        warnings.warn(
            f"{what} is not differentially private: " + " ".join(caveats) + " Its ledger entries are "
            "marked not private.",
            NotPrivateWarning,
            stacklevel=stacklevel,
        )


def mark_not_private(entries, caveats) -> tuple:
    """``entries`` (ledger entries) marked not private with ``caveats`` joined; unchanged when empty."""
    entries = tuple(entries)
    if not caveats:
        return entries
    reason = " ".join(caveats)
    return tuple(e.marked_not_private(reason) for e in entries)


#: Relative slack of the row-norm bound: a row is over C_X when its norm exceeds C_X (1 + NORM_TOLERANCE).
NORM_TOLERANCE = 1e-9

#: Rows (and responses) above their bound by more than this relative amount, but within
#: NORM_TOLERANCE, are projected onto the bound; below it the excess is the last bits of a
#: floating-point division, which a projection could not remove either.
ROUNDING = 16 * float(np.finfo(np.float64).eps)

#: The values of ``row_norm_policy`` accepted by every mechanism and solver.
ROW_NORM_POLICIES = ("raise", "clip", "rescale")


def _policy_list(policies) -> str:
    return ", ".join(repr(p) for p in policies)


def check_policy(policy, name: str, policies) -> str:
    """``policy`` must be one of the strings in ``policies``; the error lists them all."""
    if not isinstance(policy, str) or policy not in policies:
        raise ValueError(f"{name} must be one of {_policy_list(policies)}; got {policy!r}.")
    return policy


#: Rows whose largest entry exceeds this are measured by the overflow-safe formula.
_LARGE_ENTRY = 2.0**500


def row_norms(X: np.ndarray, name: str = "X") -> np.ndarray:
    """Euclidean norm of every row of a 2-D real array, without overflow; refuses NaN and inf.

    The plain formula ``sqrt(sum_j x_ij^2)`` overflows to ``inf`` once an entry exceeds about
    1e154 (about 1e19 in float32). A row whose squared norm is not finite either holds a NaN or
    inf entry (refused, as :func:`check_matrix` refuses it) or overflowed; the latter are measured
    again in float64 as ``m sqrt(sum_j (x_ij / m)^2)`` with ``m = max_j |x_ij|``. Every other row
    keeps the plain value, so ordinary input gives bit-identical norms. Since every non-finite
    entry makes its row's squared norm non-finite, this one pass over X also proves X finite.

    Raises
    ------
    ValueError
        If X holds NaN or inf, or a row norm exceeds the largest float64 (entries near 1.8e308).
    """
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow here is detected and repaired below
        sq = np.einsum("ij,ij->i", X, X)
    norms = np.sqrt(sq)
    bad = ~np.isfinite(sq)
    if np.any(bad):
        if not np.all(np.isfinite(X[bad])):
            raise _non_finite_error(X, name)
        rows = np.asarray(X[bad], dtype=np.float64)
        m = np.max(np.abs(rows), axis=1)
        with np.errstate(over="ignore"):  # a norm beyond the float64 range is an error below
            safe = m * np.sqrt(np.einsum("ij,ij->i", rows / m[:, None], rows / m[:, None]))
        if not np.all(np.isfinite(safe)):
            raise ValueError(
                f"{name} has a row whose Euclidean norm exceeds the largest float64 (entries up to "
                f"{float(m.max()):.6g}). Divide {name} by a public constant first."
            )
        norms = np.asarray(norms, dtype=np.result_type(norms.dtype, np.float64))
        norms[bad] = safe
    return norms


def row_norm_error(
    n_over: int, max_norm: float, bound: float, name: str = "X", policy_name: str = "row_norm_policy", rescale=True
) -> ValueError:
    """The error for rows above the bound C_X under ``"raise"``, naming the fixes that apply."""
    also = " or 'rescale' (divide by the observed max; not private)" if rescale else ""
    excess = max_norm / bound - 1.0 if bound > 0 else math.inf
    rounding = (
        f" The excess, {excess:.2g} of C_X, is at the level of float32 rounding: rows normalised in single "
        f"precision can end slightly above the bound; convert {name} to float64 before normalising it."
        if 0 < excess < 1e-5
        else ""
    )
    return ValueError(
        f"{n_over} row(s) of {name} have Euclidean norm above the bound C_X = {bound:g} "
        f"(largest {max_norm:.10g}). The privacy analysis assumes ||x_i|| <= C_X. Divide {name} by a "
        f"public bound on the row norms, or pass {policy_name}='clip' (project offending rows onto the "
        f"ball; recorded){also}.{rounding}"
    )


def check_dask_matrix(X, name: str = "X"):
    """A 2-D Dask array of real numbers as float64 with one column chunk (row chunks kept)."""
    if X.ndim != 2:
        raise ValueError(f"{name} must be a 2-D Dask array of shape (n, d); got {X.ndim} dimension(s).")
    if X.dtype.kind not in "fiu":
        raise TypeError(f"{name} must hold real numbers; got dtype {X.dtype}.")
    return X.astype(np.float64).rechunk({1: -1})


def check_dask_rows(X, name: str = "X"):
    """A 2-D Dask array of real numbers, chunked along rows only, as float64 (for the SRHT routes).

    The SRHT transforms whole rows of X chunk by chunk, so every chunk must hold all d columns and
    the chunk lengths must be known. Raises a ValueError that says how to fix the chunking otherwise.
    """
    if X.ndim != 2:
        raise ValueError(f"{name} must be a 2-D Dask array of shape (n, d); got {X.ndim} dimension(s).")
    if X.dtype.kind not in "fiu":
        raise TypeError(f"{name} must hold real numbers; got dtype {X.dtype}.")
    if any(math.isnan(c) for axis in X.chunks for c in axis):
        raise ValueError(
            f"{name} has chunks of unknown length (after boolean indexing, for example); call "
            f"{name}.compute_chunk_sizes() or {name}.rechunk(...) with explicit lengths first."
        )
    if len(X.chunks[1]) != 1:
        raise ValueError(
            f"{name} is chunked along its columns {tuple(X.chunks[1])}; the SRHT transforms whole rows, so "
            f"each chunk must hold all d = {X.shape[1]} columns. Pass {name}.rechunk({{1: -1}}) (one column "
            "chunk; the rows may stay chunked as they are)."
        )
    if X.shape[0] < 1 or X.shape[1] < 1:
        raise ValueError(f"{name} must have at least 1 row and 1 column; got shape {tuple(X.shape)}.")
    return X.astype(np.float64)


def dask_vector_like(y, X, name: str = "y"):
    """``y`` (a Dask array or array-like of length n) as a float64 Dask vector chunked like the rows of X."""
    import dask.array as da

    n = int(X.shape[0])
    if not is_dask_array(y):
        return da.from_array(check_vector(y, name, length=n), chunks=(X.chunks[0],))
    if y.ndim != 1 or int(y.shape[0]) != n:
        raise ValueError(f"{name} must have shape ({n},) to match X; got {tuple(y.shape)}.")
    return y.astype(np.float64).rechunk((X.chunks[0],))


def check_row_norms(
    X: np.ndarray, *, bound: float = 1.0, policy: str = "raise", name: str = "X", policy_name: str = "row_norm_policy"
):
    """Enforce the papers' bounded-domain assumption ``||x_i|| <= C_X`` (FastMix paper, Section 2).

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Validated data matrix.
    bound : float, default=1.0
        The row-norm bound C_X. The papers take C_X = 1 without loss of generality.
    policy : {"raise", "clip", "rescale"}, default="raise"
        ``"raise"`` checks the bound and refuses rows above it, naming the largest norm (the
        policy for data the caller has already scaled by a public bound);
        ``"clip"`` projects each such row onto the ball of radius ``bound`` (a per-record
        operation, so it keeps zero-out neighbours neighbours); ``"rescale"`` divides every row
        by ``max_i ||x_i|| / bound``. Note that a data-dependent rescaling is itself a release
        of ``max_i ||x_i||`` and is not covered by any privacy guarantee of this package: use it
        only for public data or exploration, as the papers' experiments do. There is no policy
        that skips the check: every guarantee of the package rests on the bound.
    name, policy_name : str
        Names of the data and of the policy argument, for error messages.

    Returns
    -------
    X_out : ndarray
        ``X`` itself when nothing had to change, otherwise a modified copy.
    record : NormEnforcement

    Notes
    -----
    Norms are computed by :func:`row_norms`, which does not overflow for entries above 1e154.
    A row whose norm exceeds the bound by no more than the rounding tolerance
    (``NORM_TOLERANCE``, relative 1e-9; data divided by a public bound in floating point land
    there) is not an error under ``"raise"`` and is not counted under ``"clip"``, but under both
    it is scaled onto the ball when its excess is more than a few units in the last place
    (``ROUNDING``), so the bound the calibrations pay for holds for every row the mechanism sees
    up to floating-point rounding.
    """
    check_policy(policy, policy_name, ROW_NORM_POLICIES)
    bound = check_positive(bound, "bound")
    norms = row_norms(X, name)
    max_norm = float(norms.max()) if norms.size else 0.0
    over = norms > bound * (1.0 + NORM_TOLERANCE)
    n_over = int(np.count_nonzero(over))
    if policy in ("raise", "clip"):
        if n_over and policy == "raise":
            raise row_norm_error(n_over, max_norm, bound, name, policy_name)
        if max_norm <= bound * (1.0 + ROUNDING):
            return X, NormEnforcement(policy, bound, 0, max_norm)
        long = norms > bound  # over the bound, or within the tolerance of it: projected onto the ball
        out = np.array(X, dtype=np.result_type(X.dtype, np.float64), copy=True)
        out[long] *= (bound / norms[long])[:, None]
        return out, NormEnforcement(policy, bound, n_over, max_norm)
    # policy == "rescale"
    if max_norm <= bound or max_norm == 0.0:
        return X, NormEnforcement("rescale", bound, 0, max_norm)
    scale = bound / max_norm
    return X * scale, NormEnforcement("rescale", bound, n_over, max_norm, scale)


def is_dask_array(X) -> bool:
    """Whether ``X`` is a Dask array (checked by type, without importing Dask)."""
    return type(X).__module__.split(".")[0] == "dask" and hasattr(X, "chunks")


def is_dask_dataframe(X) -> bool:
    """Whether ``X`` is a Dask DataFrame (checked by type, without importing Dask)."""
    return type(X).__module__.split(".")[0] == "dask" and hasattr(X, "map_partitions") and hasattr(X, "columns")


# ------------------------------------------------------------------------------ the one door to Dask
#: The module that registers the Dask implementations of the routes (it builds on the in-memory
#: modules, which never import it: it is loaded by name on the first Dask array, see dask_route).
DASK_ROUTES_MODULE = "fastmix.chunked.routes"
_DASK_IMPLEMENTATIONS: dict[str, Callable[..., Any]] = {}
_F = TypeVar("_F", bound=Callable[..., Any])


def register_dask_route(name: str) -> Callable[[_F], _F]:
    """Register the decorated function as the Dask implementation of the route ``name``."""

    def register(impl: _F) -> _F:
        _DASK_IMPLEMENTATIONS[name] = impl
        return impl

    return register


def dask_implementation(name: str) -> Callable[..., Any]:
    """The Dask implementation of the route ``name``, loading :data:`DASK_ROUTES_MODULE` on first use."""
    if name not in _DASK_IMPLEMENTATIONS:
        importlib.import_module(DASK_ROUTES_MODULE)
    try:
        return _DASK_IMPLEMENTATIONS[name]
    except KeyError:
        raise LookupError(f"no Dask implementation is registered for {name!r}") from None


def dask_route(name: str, on: str) -> Callable[[_F], _F]:
    """Route a call to the Dask implementation of ``name`` when the argument ``on`` is a Dask array.

    The decorated function is the in-memory implementation; the Dask one, registered by
    :func:`register_dask_route` in :data:`DASK_ROUTES_MODULE`, takes the same arguments. This is
    the only place that tells a Dask array from in-memory input (with :func:`is_dask_array`).
    """

    def decorate(func: _F) -> _F:
        position = list(inspect.signature(func).parameters).index(on)

        @functools.wraps(func)
        def dispatch(*args: Any, **kwargs: Any) -> Any:
            value = args[position] if position < len(args) else kwargs.get(on)
            if is_dask_array(value) or is_dask_dataframe(value):
                return dask_implementation(name)(*args, **kwargs)
            return func(*args, **kwargs)

        return dispatch  # type: ignore[return-value]

    return decorate
