"""FastIHS: the iterative Hessian sketch with a fresh SRHT per iteration (non-private).

Pilanci & Wainwright (2016), with the subsampled randomized Hadamard transform of the FastMix
paper (Definition 3); the paper's non-private speed baseline (Section 4.1).
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_positive, check_positive_int, check_random_state, check_vector, dask_route
from ..srht import SRHT, SketchWorkspace, sketch
from .data import _prepare_nonprivate
from .result import RegressionResult, _clipped_gradient, _solve_spd


def _check_srht_k(k, n: int, name: str) -> int:
    return check_positive_int(
        k, name, maximum=n, hint=f"{name} is a number of SRHT rows and cannot exceed n = {n} (after padding); lower it."
    )


def _srht_sketch(X: np.ndarray, srht: SRHT, work: SketchWorkspace | None = None) -> np.ndarray:
    """``S_f X`` (k x d) of a validated, Fortran-ordered X: :func:`fastmix.srht.sketch` unchecked."""
    return sketch(X, srht, check_input=False, work=work)


@dask_route("regression.ihs_sketches", on="X")
def _ihs_sketches(X, k: int, T: int, rng, backend):
    """The T sketches ``S_t X`` of FastIHS, each from a fresh ``SRHT(n, k, random_state=rng)``.

    Only the SRHTs draw from rng. In memory each is drawn when its iteration needs it; for a Dask
    X the T draws are taken first, in the same order, and their T sketches come from one pass over
    the chunks (``fastmix.chunked.solvers``).
    """
    n, d = X.shape
    work = SketchWorkspace(d, n, k)
    for _ in range(T):
        yield _srht_sketch(X, SRHT(n, k, random_state=rng, backend=backend), work)


def fast_ihs(
    X,
    y,
    *,
    k: int,
    T: int = 4,
    random_state=None,
    ridge: float = 1e-5,
    n_policy: str = "pad",
    backend: str | None = None,
    theta0=None,
):
    """Iterative Hessian sketch with an SRHT ("FastIHS"; Pilanci & Wainwright 2016, non-private).

    For t = 0, ..., T-1, with a fresh SRHT ``S_t`` of k rows (FastMix paper, Definition 3)::

        H_t       = (S_t X)^T (S_t X) + ridge * I
        g_t       = X^T (y - X theta_t)
        theta_t+1 = theta_t + H_t^{-1} g_t

    The ridge 1e-5 follows the authors' baseline (the authors' public code) and only guards against
    a singular sketch; with ``k >= d`` and full-rank X it changes nothing visible.
    The error contracts geometrically: ``||theta_t - theta*||_{X^T X}`` shrinks by a factor of
    order ``sqrt(d/k)`` per iteration.

    X is converted once to Fortran order (its transpose is then the transform batch); each
    sketch streams X once through a reused cache-sized buffer (:func:`_srht_sketch`).

    Entries so large that ``X^T X`` or ``X^T y`` would overflow (a row norm or a response above
    2^200, about 1.6e60) are handled by multiplying X and y by powers of two ``a`` and ``b``
    (exact in floating point), solving for ``(b/a) theta`` with the ridge scaled by ``a^2`` (the
    same iteration in other units), and mapping back; ``diagnostics["scale_x"]`` and
    ``["scale_y"]`` record ``a`` and ``b``. Other input takes the unscaled path unchanged.

    **Dask input.** X and y may be Dask arrays chunked along rows (X with one column chunk). X is
    checked for finiteness in one pass, padded lazily with zero rows up to a power of two
    (``n_policy="pad"``, recorded in ``result.data``) and its row chunks made aligned powers of two
    (``result.diagnostics["rechunking"]``). The T SRHTs are drawn from the generator in the
    in-memory order, their T sketches come from one pass over the chunks
    (:func:`fastmix.chunked.chunked_sketches`) and each gradient is one more pass; only k x d
    sketches and d-vectors reach the client. The same ``random_state`` gives the in-memory estimate
    in any chunking, up to the order of floating-point sums.

    Returns
    -------
    result : RegressionResult
        ``result.theta`` (a NumPy array of shape ``(d,)``, for NumPy and Dask input alike) is the estimate.
    """
    T = check_positive_int(T, "T")
    ridge = check_positive(ridge, "ridge", allow_zero=True)
    rng = check_random_state(random_state)
    data = _prepare_nonprivate(X, y, n_policy, rng)
    Xp, yp = data.X, data.y
    n, d = Xp.shape
    k = _check_srht_k(k, n, "k")
    theta = np.zeros(d) if theta0 is None else _check_theta0(theta0, d)
    max_y = data.max_abs_y if data.max_abs_y is not None else _max_abs(yp)
    largest = data.record.row_norms.max_norm_before
    assert largest is not None  # the solver's own record, not a published one
    a, b = _power_of_two_scales(largest, max_y)
    ridge_used = ridge
    if a != 1.0 or b != 1.0:
        Xp, yp = Xp * a, yp * b  # keeps Fortran order
        ridge_used = ridge * a * a
        theta = theta * (b / a)
    iterates = []
    for Z in _ihs_sketches(Xp, k, T, rng, backend):
        H = Z.T @ Z
        H.flat[:: d + 1] += ridge_used
        g = _clipped_gradient(Xp, yp, theta, None)
        theta = theta + _solve_spd(H, g)
        iterates.append(theta.copy())
    diag: dict = {"k": k, "T": T, "ridge": ridge}
    if data.rechunking is not None:
        diag["rechunking"] = data.rechunking
    if a != 1.0 or b != 1.0:
        theta = theta * (a / b)
        iterates = [t * (a / b) for t in iterates]
        diag.update(scale_x=a, scale_y=b)
    return RegressionResult(theta, "FastIHS", data.record, None, None, diag, iterates)


_HUGE = 2.0**200


def _max_abs(y: np.ndarray) -> float:
    return float(np.max(np.abs(y))) if y.size else 0.0


def _power_of_two_scales(max_row_norm: float, max_y: float) -> tuple[float, float]:
    """Powers of two that bring a huge max row norm and a huge max |y_i| below 1 (else 1.0)."""
    a = b = 1.0
    if max_row_norm > _HUGE:
        a = math.ldexp(1.0, -math.frexp(max_row_norm)[1])
    if max_y > _HUGE:
        b = math.ldexp(1.0, -math.frexp(max_y)[1])
    return a, b


def _check_theta0(theta0, d: int) -> np.ndarray:
    theta0 = check_vector(theta0, "theta0")
    if theta0.shape[0] != d:
        raise ValueError(f"theta0 must have d = {d} entries, one per column of X; got {theta0.shape[0]}.")
    return np.array(theta0, dtype=np.float64)
