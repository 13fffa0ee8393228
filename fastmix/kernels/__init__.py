"""Differentially private kernel learning by random projection (the kernel paper).

The kernel paper (Lee, Park and Ahn 2025, arXiv:2507.17544) replaces the infinite-dimensional
feature map ``x -> k(x, .)`` of a reproducing-kernel Hilbert space by a *random projection*
to R^M: draw M independent centred Gaussian-process paths ``h(., w_j) ~ GP(0, k)`` and map

    h_M(x) = M^(-1/2) (h(x, w_1), ..., h(x, w_M))

(kernel paper, Definition 4; section numbers are not in our copy).  ``E[h_M(x)^T h_M(x')] = k(x, x')``, and with the
linear kernel h_M is the ordinary Euclidean Gaussian random projection (Definition 5).  A
private linear learner on ``h_M(x_i)`` then gives a private kernel learner:

* :class:`DPRandomProjectionKRR` -- Algorithm 1, kernel ridge regression by sufficient
  statistics perturbation (after Wang 2018); privacy in Theorem 1.
* :class:`DPRandomProjectionLogistic` -- Algorithm 2, objective perturbation for a
  Lipschitz-smooth loss (logistic) after Kifer et al. (2012); privacy in Theorem 2.
* :class:`DPRandomFeatureKRR` -- Algorithm 3, the same as Algorithm 1 on random Fourier
  features (Rahimi and Recht 2007; Chaudhuri et al. 2011); privacy in Theorem 5.

Non-private counterparts with the *same* random features are :class:`RandomProjectionKRR` and
:class:`RandomFeatureKRR`.  The noise calibrations are derived in the book chapter
``book/kernel_calibration.md``; the paper's algorithm boxes were not available to us, so each
constant in this package is our own derivation and says so.

Paths are sampled in one of two ways (see :class:`ExactGaussianProcessPaths` and
:class:`RandomFeatureGaussianProcessPaths`):

* exactly, from the joint Gaussian law at every point where a path is ever evaluated
  (Cholesky factor of the kernel matrix grown block by block, so test points are drawn from the
  GP conditional given all earlier path values and every point gets one value for good);
* approximately for shift-invariant kernels, ``h(x) = sum_l a_l phi_l(x)`` over D >> M random
  Fourier features, which converges in law to the GP as D grows.

**Modules.** Every public name is importable from ``fastmix.kernels`` itself; the modules hold one concept each.

* ``kernel_functions``: the Gaussian, Laplace and linear kernels and :func:`make_kernel`.
* ``gaussian_process_paths``: the path samplers of the random projection h_M and the
  Laurent-Massart norm bound.
* ``random_features``: random Fourier features.
* ``sufficient_statistics``: the Gaussian release of ``(C, u)`` and the floored ridge solvers.
* ``theory``: the operator spectrum, the effective dimension and the theory's ``(M, lambda)``.
* ``objective_perturbation``: the calibration and solver of Algorithm 2.
* ``estimators``: the kernel ridge regressors (Algorithms 1 and 3 and their non-private
  counterparts); ``logistic``: the private kernel logistic regression (Algorithm 2).

References
----------
- B. Lee, C. Park and J. Ahn, 2025, "Optimal differentially private kernel learning with
  random projection", arXiv:2507.17544.
- Y.-X. Wang, 2018, "Revisiting differentially private linear regression: optimal and
  adaptive prediction & estimation in unbounded domain", UAI.
- D. Kifer, A. Smith and A. Thakurta, 2012, "Private convex empirical risk minimization and
  high-dimensional regression", COLT.
- B. Laurent and P. Massart, 2000, "Adaptive estimation of a quadratic functional by model
  selection", Annals of Statistics (Lemma 1).
- A. Rahimi and B. Recht, 2007, "Random features for large-scale kernel machines", NeurIPS.
- B. Balle and Y.-X. Wang, 2018, "Improving the Gaussian mechanism for differential
  privacy: analytical calibration and optimal denoising", ICML.
"""

from __future__ import annotations

# Every public name of the modules below is importable from ``fastmix.kernels``, as is the
# accounting's ``analytic_gaussian_sigma`` that the kernel studies use; the imports ``_x as _x``
# re-export private helpers for the tests that exercise them directly.
from ..accounting import analytic_gaussian_sigma as analytic_gaussian_sigma
from .estimators import DPRandomFeatureKRR, DPRandomProjectionKRR, RandomFeatureKRR, RandomProjectionKRR
from .estimators import _clip_rows as _clip_rows
from .gaussian_process_paths import (
    ExactGaussianProcessPaths,
    RandomFeatureGaussianProcessPaths,
    laurent_massart_bound,
    random_projection_paths,
)
from .kernel_functions import GaussianKernel, LaplaceKernel, LinearKernel, make_kernel
from .logistic import DPRandomProjectionLogistic
from .objective_perturbation import ObjectivePerturbationCalibration, objective_perturbation_calibration
from .objective_perturbation import _logistic_newton as _logistic_newton
from .random_features import RandomFourierFeatures
from .sufficient_statistics import (
    RidgeSolution,
    SufficientStatisticsRelease,
    release_from_statistics,
    release_sufficient_statistics,
    ridge_path_floored,
    solve_ridge_floored,
)
from .theory import (
    Hyperparameters,
    RPHyperparameters,
    effective_dimension,
    operator_spectrum,
    theory_hyperparameters,
    theory_rp_hyperparameters,
)

__all__ = [
    "GaussianKernel",
    "LaplaceKernel",
    "LinearKernel",
    "make_kernel",
    "laurent_massart_bound",
    "ExactGaussianProcessPaths",
    "RandomFeatureGaussianProcessPaths",
    "RandomFourierFeatures",
    "random_projection_paths",
    "SufficientStatisticsRelease",
    "release_sufficient_statistics",
    "release_from_statistics",
    "RidgeSolution",
    "solve_ridge_floored",
    "ridge_path_floored",
    "operator_spectrum",
    "effective_dimension",
    "Hyperparameters",
    "RPHyperparameters",
    "theory_rp_hyperparameters",
    "ObjectivePerturbationCalibration",
    "objective_perturbation_calibration",
    "theory_hyperparameters",
    "RandomProjectionKRR",
    "RandomFeatureKRR",
    "DPRandomProjectionKRR",
    "DPRandomFeatureKRR",
    "DPRandomProjectionLogistic",
]
