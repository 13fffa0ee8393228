"""The targets and the private fits the two kernel studies share (Algorithms 1 and 3 of the kernel paper).

:func:`plane_wave_target` and :func:`rkhs_target` are the synthetic targets; :class:`Features`
is one method's map evaluated once at every input of a repetition, whose sub-blocks give the
map of every smaller dimension; :func:`private_path` releases the statistics of one map
(:func:`fastmix.kernels.release_from_statistics`) and fits every lambda of a path. Used by
:mod:`fastmix_companion.studies.kernel_rp_vs_rff` and :mod:`fastmix_companion.studies.kernel_rates`.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["plane_wave_target", "rkhs_target", "Features", "norm_bound", "private_path", "mse"]


def plane_wave_target(X):
    """The smooth target ``0.8 sin(sum_j x_j / sqrt(d/3))``: unit-variance argument for x uniform on [-1, 1]^d."""
    return 0.8 * np.sin(X.sum(axis=1) / math.sqrt(X.shape[1] / 3.0))


def rkhs_target(d, kernel, random_state, n_centres=20, sd=0.5):
    """A random function in the kernel's RKHS: ``sum_i a_i k(c_i, x)`` over ``n_centres`` uniform centres.

    The weights are standard normal, rescaled so that the function's RMS over the input law
    (uniform on [-1, 1]^d, estimated on 2000 draws) is ``sd``. Returns the function.
    """
    from fastmix._validation import check_random_state

    rng = check_random_state(random_state)
    centres = rng.uniform(-1.0, 1.0, (n_centres, d))
    a = rng.standard_normal(n_centres)
    probe = rng.uniform(-1.0, 1.0, (2000, d))
    scale = sd / max(float(np.sqrt(np.mean((kernel(probe, centres) @ a) ** 2))), 1e-12)  # RMS sd on the input law

    def f(X):
        return scale * (kernel(X, centres) @ a)

    return f


class Features:
    """The M_max-dimensional map of one method, evaluated once at every input of a repetition.

    ``stats(rows, M)`` gives the ``(C, u)`` of the map of dimension M on a subset of the training
    rows; ``map(part, M)`` the features of dimension M at the validation or test inputs.
    """

    def __init__(self, method, kernel, X_tr, y_tr, X_val, X_te, M_max, random_state):
        from fastmix.kernels import ExactGaussianProcessPaths, RandomFourierFeatures

        X_all = np.vstack([X_tr, X_val, X_te])
        if method == "RP":
            sampler = ExactGaussianProcessPaths(kernel, M_max, random_state=random_state)
            F = sampler.fit(X_all).evaluate(X_all)
            self.variance_bound = sampler.variance_bound
            self.scale = lambda M: 1.0 / math.sqrt(M)
        else:
            rff = RandomFourierFeatures(kernel, M_max, random_state=random_state).fit(X_all)
            F = np.cos(X_all @ rff.frequencies_ + rff.offsets_)
            self.variance_bound = None
            self.scale = lambda M: math.sqrt(2.0 / M)
        n, nv = X_tr.shape[0], X_val.shape[0]
        self.tr, self.val, self.te = F[:n], F[n : n + nv], F[n + nv :]
        self.y = y_tr
        self._gram = {}

    def stats(self, rows, M):
        key = rows if isinstance(rows, str) else id(rows)
        if key not in self._gram:
            idx = slice(None) if isinstance(rows, str) else rows
            Ft, yt = self.tr[idx], self.y[idx]
            self._gram[key] = (Ft.T @ Ft / Ft.shape[0], Ft.T @ yt / Ft.shape[0], Ft.shape[0])
        G, g, n = self._gram[key]
        s = self.scale(M)
        return G[:M, :M] * s * s, g[:M] * s, n

    def map(self, part, M):
        return getattr(self, part)[:, :M] * self.scale(M)


def norm_bound(method, feats, M, t):
    """The bound ``D^2`` on a feature vector's squared norm: RFF's constant, or Laurent-Massart's for RP at ``t``."""
    from fastmix.kernels import RandomFourierFeatures, laurent_massart_bound

    if method == "RFF":
        return RandomFourierFeatures.norm_bound_sq
    return laurent_massart_bound(feats.variance_bound, M, t)


def private_path(
    method,
    feats,
    M,
    eps,
    delta,
    lams,
    response_bound,
    random_state,
    rows="all",
    *,
    t=None,
    multiplier=1.0,
    delta_gauss=None,
):
    """Algorithm 1 / 3 at (M, eps) for every lambda: betas, floored counts, the release."""
    from fastmix.kernels import release_from_statistics, ridge_path_floored

    C, u, n = feats.stats(rows, M)
    if multiplier == 1.0:  # the paper's algorithm, with the estimators' delta split
        if method == "RP":
            D2 = norm_bound(method, feats, M, delta / 8.0)
            d_cov, d_vec = delta / 4.0, delta / 2.0
        else:
            D2 = norm_bound(method, feats, M, None)
            d_cov, d_vec = delta / 2.0, delta / 2.0
        rel = release_from_statistics(
            C,
            u,
            n,
            epsilon=eps,
            delta_covariance=d_cov,
            delta_vector=d_vec,
            feature_norm_sq=D2,
            response_bound=response_bound,
            random_state=random_state,
        )
    else:  # one of 2G releases composed in Gaussian DP at (eps, delta_gauss)
        D2 = norm_bound(method, feats, M, t)
        rel = release_from_statistics(
            C,
            u,
            n,
            epsilon=eps,
            delta_covariance=delta_gauss,
            delta_vector=delta_gauss,
            feature_norm_sq=D2,
            response_bound=response_bound,
            random_state=random_state,
            noise_multiplier=multiplier,
            split_epsilon=False,
        )
    path = ridge_path_floored(rel.covariance, rel.vector, lams)
    return path.coef, path.n_floored, rel, D2


def mse(pred, target):
    """Mean squared error of one prediction vector, or of each row of a matrix of predictions."""
    return np.mean((pred - target[None, :]) ** 2, axis=1) if pred.ndim == 2 else float(np.mean((pred - target) ** 2))
