"""The kernels of the kernel paper's experiments: Gaussian, Laplace and linear.

Each kernel is a callable giving Gram matrices and knows its bound ``kappa^2 = sup_x k(x, x)``;
the shift-invariant ones also draw frequencies from their spectral density (Bochner), which the
random-feature maps of the kernel paper (Algorithm 3) and the approximate path sampler use.
"""

from __future__ import annotations

import numpy as np
from scipy.spatial.distance import cdist

from .._validation import check_positive, check_random_state


class _UnitShiftInvariantKernel:
    """Shared parts of the shift-invariant kernels with ``k(x, x) = 1`` (bandwidth ``s``)."""

    shift_invariant = True

    def __init__(self, bandwidth: float = 1.0):
        self.bandwidth = _check_bandwidth(bandwidth)

    @property
    def kappa2(self) -> float:
        """sup_x k(x, x) = 1."""
        return 1.0

    def diag(self, X) -> np.ndarray:
        """``k(x_i, x_i)`` for every row (all ones)."""
        return np.ones(np.asarray(X).shape[0])

    def __repr__(self) -> str:
        return f"{type(self).__name__}(bandwidth={self.bandwidth!r})"


class GaussianKernel(_UnitShiftInvariantKernel):
    """Gaussian (RBF) kernel with bandwidth ``s``::

        k(x, x') = exp(-||x - x'||_2^2 / (2 s^2)),      kappa^2 = sup_x k(x, x) = 1.

    Its spectral density (Bochner) is N(0, s^-2 I_d), which :meth:`sample_frequencies` draws.

    Parameters
    ----------
    bandwidth : float, default=1.0
        The length scale ``s`` > 0 (sklearn's ``gamma`` is ``1 / (2 s^2)``).
    """

    name = "gaussian"

    def __call__(self, X, Y=None) -> np.ndarray:
        """Gram matrix ``K[i, j] = k(X[i], Y[j])`` (``Y = X`` when omitted)."""
        Y = X if Y is None else Y
        K = cdist(np.asarray(X, float), np.asarray(Y, float), "sqeuclidean")
        K *= -1.0 / (2.0 * self.bandwidth**2)
        return np.exp(K, out=K)  # in place: one n x m array in all

    def sample_frequencies(self, D: int, d: int, random_state=None) -> np.ndarray:
        """Draw D frequencies from the spectral density N(0, s^-2 I_d); shape (d, D).

        ``random_state`` (None, int, SeedSequence or Generator; a Generator continues its stream).
        """
        return check_random_state(random_state).standard_normal((d, D)) / self.bandwidth


class LaplaceKernel(_UnitShiftInvariantKernel):
    """Laplace kernel with the L1 distance and bandwidth ``s``::

        k(x, x') = exp(-||x - x'||_1 / s) = prod_j exp(-|x_j - x'_j| / s),   kappa^2 = 1.

    We use the L1 form (as sklearn's ``laplacian_kernel`` does) because it factorises over
    coordinates, so its spectral density is a product of Cauchy densities with scale ``1/s``;
    :meth:`sample_frequencies` draws from exactly that law, so the random-feature maps built on
    it are unbiased for this kernel.

    Parameters
    ----------
    bandwidth : float, default=1.0
        The length scale ``s`` > 0 (sklearn's ``gamma`` is ``1 / s``).
    """

    name = "laplace"

    def __call__(self, X, Y=None) -> np.ndarray:
        """Gram matrix ``K[i, j] = k(X[i], Y[j])``."""
        Y = X if Y is None else Y
        K = cdist(np.asarray(X, float), np.asarray(Y, float), "cityblock")
        K *= -1.0 / self.bandwidth
        return np.exp(K, out=K)

    def sample_frequencies(self, D: int, d: int, random_state=None) -> np.ndarray:
        """Draw D frequencies with iid Cauchy(0, 1/s) coordinates; shape (d, D).

        ``random_state`` (None, int, SeedSequence or Generator; a Generator continues its stream).
        """
        return check_random_state(random_state).standard_cauchy((d, D)) / self.bandwidth


class LinearKernel:
    """Linear kernel ``k(x, x') = x^T x'`` on the ball ``||x|| <= R``.

    ``kappa^2 = sup_{||x|| <= R} k(x, x) = R^2``; the privacy analysis needs this bound, so
    the estimators enforce ``||x_i|| <= R`` on the training rows (see ``row_norm_policy``).
    A GP path of this kernel is exactly ``x -> g^T x`` with ``g ~ N(0, I_d)``, so its random
    projection is the Euclidean Gaussian random projection ``G^T x / sqrt(M)`` (kernel paper,
    Definition 5 and the remark after eq. (2)).

    Parameters
    ----------
    feature_bound : float, default=1.0
        Public bound ``R`` > 0 on the Euclidean norm of the inputs.
    """

    shift_invariant = False
    name = "linear"

    def __init__(self, feature_bound: float = 1.0):
        self.feature_bound = check_positive(feature_bound, "feature_bound")

    @property
    def kappa2(self) -> float:
        """R^2."""
        return self.feature_bound**2

    def __call__(self, X, Y=None) -> np.ndarray:
        """Gram matrix ``X Y^T``."""
        Y = X if Y is None else Y
        return np.asarray(X, float) @ np.asarray(Y, float).T

    def diag(self, X) -> np.ndarray:
        """``||x_i||^2`` for every row."""
        X = np.asarray(X, float)
        return np.einsum("ij,ij->i", X, X)

    def __repr__(self) -> str:
        return f"LinearKernel(feature_bound={self.feature_bound!r})"


_KERNELS = {"gaussian": GaussianKernel, "rbf": GaussianKernel, "laplace": LaplaceKernel, "linear": LinearKernel}


def _check_bandwidth(bandwidth) -> float:
    try:
        return check_positive(bandwidth, "bandwidth")
    except ValueError as err:
        raise ValueError(
            f"{err} The bandwidth is the kernel length scale s; pick it from public knowledge of the "
            "input scale (e.g. sqrt(d) for standardised inputs), not from the private data."
        ) from None


def make_kernel(kernel="gaussian", *, bandwidth: float = 1.0, feature_bound: float = 1.0):
    """Build a kernel object from a name or pass a kernel object through.

    Parameters
    ----------
    kernel : {"gaussian", "rbf", "laplace", "linear"} or kernel object
    bandwidth : float
        Length scale of the Gaussian / Laplace kernels.
    feature_bound : float
        Bound R on ||x|| for the linear kernel.
    """
    if not isinstance(kernel, str):
        if callable(kernel) and hasattr(kernel, "kappa2") and hasattr(kernel, "diag"):
            return kernel
        raise TypeError(f"kernel must be a name in {sorted(_KERNELS)} or a kernel object; got {kernel!r}.")
    key = kernel.lower()
    if key not in _KERNELS:
        raise ValueError(f"kernel must be one of {sorted(_KERNELS)}; got {kernel!r}.")
    if key == "linear":
        return LinearKernel(feature_bound)
    return _KERNELS[key](bandwidth)
