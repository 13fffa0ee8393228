"""Random Fourier features ``phi_M(x) = sqrt(2/M) cos(W^T x + b)``.

The feature map of the kernel paper's Algorithm 3 (Rahimi and Recht 2007), and the cosine map
that the approximate Gaussian-process path sampler shares with it.
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_matrix, check_positive_int, check_random_state


def _cos_features(X: np.ndarray, W: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``sqrt(2/D) cos(X W + b)``, shape (n, D)."""
    P = X @ W
    P += b
    np.cos(P, out=P)
    P *= math.sqrt(2.0 / W.shape[1])
    return P


class RandomFourierFeatures:
    """Random Fourier feature map of a shift-invariant kernel (Rahimi and Recht 2007)::

        phi_M(x) = sqrt(2/M) cos(W^T x + b),   W columns ~ spectral density,  b ~ U[0, 2 pi],

    so ``E[phi_M(x)^T phi_M(x')] = k(x, x')`` and ``||phi_M(x)||^2 <= 2`` for every x (the bound
    Algorithm 3 of the kernel paper relies on, proof of Theorem 5).  It is the bounded random
    feature map of the kernel paper's Definition 6, which the random projection is not.

    Parameters
    ----------
    kernel : shift-invariant kernel object
    n_components : int
        M.
    random_state : None, int, SeedSequence or Generator
        Controls the draws of :meth:`fit`. The fitted map keeps ``W`` and ``b`` and no generator.
    """

    norm_bound_sq = 2.0

    def __init__(self, kernel, n_components: int, *, random_state=None):
        if not getattr(kernel, "shift_invariant", False):
            raise ValueError(f"random Fourier features need a shift-invariant kernel; got {kernel!r}.")
        self.kernel = kernel
        self.n_components = check_positive_int(n_components, "n_components")
        check_random_state(random_state)  # refuse a bad type now; the generator is made in fit
        self.random_state = random_state

    def fit(self, X) -> RandomFourierFeatures:
        """Draw ``W`` and ``b`` (only ``X.shape[1]`` is used)."""
        return self._fit_with(X, check_random_state(self.random_state))

    def _fit_with(self, X, rng: np.random.Generator) -> RandomFourierFeatures:
        """:meth:`fit` drawing from ``rng``, of which the fitted map keeps nothing."""
        X = check_matrix(X, "X", dtype=float)
        self.n_features_in_ = X.shape[1]
        self.frequencies_ = self.kernel.sample_frequencies(self.n_components, X.shape[1], rng)
        self.offsets_ = rng.uniform(0.0, 2.0 * np.pi, self.n_components)
        return self

    def transform(self, X) -> np.ndarray:
        """``phi_M(x)`` for each row, shape (n, M)."""
        X = check_matrix(X, "X", dtype=float)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features but the map was fitted on {self.n_features_in_}.")
        return _cos_features(X, self.frequencies_, self.offsets_)

    def fit_transform(self, X) -> np.ndarray:
        return self.fit(X).transform(X)


def _feature_and_noise_generators(random_state):
    """The generators of the random features and of the privacy noise, in that order.

    With ``random_state=None`` they are two independent generators seeded from fresh OS entropy,
    so nothing a fitted feature map keeps can rebuild the noise. A seed gives the two children of
    ``check_random_state(random_state).spawn(2)``: the same draws at every fit, and a secret.
    """
    if random_state is None:
        return np.random.default_rng(), np.random.default_rng()
    features, noise = check_random_state(random_state).spawn(2)
    return features, noise
