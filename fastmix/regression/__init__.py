"""Private (and non-private) least squares: OLS, FastIHS, IHM, FastIHM and AdaSSP.

Section 4 of the FastMix paper (Lev, Shenfeld, Srinivasan, Ligett and Wilson 2026, arXiv:2605.30600) applies
FastMix to differentially private ordinary least squares. This package holds

* :func:`ols` - the exact least-squares solution ``theta* = argmin ||y - X theta||^2``
  (LAPACK ``gelsd``), the reference of every excess-risk number;
* :func:`fast_ihs` - the iterative Hessian sketch of Pilanci & Wainwright (2016) with a fresh
  SRHT every iteration, the paper's non-private speed baseline ("FastIHS", Section 4.1);
* :func:`ihm` - iterative Hessian mixing of Lev et al. (2026) with a dense Gaussian sketch,
  the private accuracy and speed baseline;
* :func:`fast_ihm` - FastIHM, Algorithm 2 of the FastMix paper, with MultipleFastMixing
  (Algorithm 3) inside;
* :func:`adassp` - AdaSSP of Wang (2018), the classical private baseline;
* calibrations (:func:`calibrate_fast_ihm`, :func:`calibrate_ihm`, :func:`calibrate_adassp`)
  that return every noise parameter with a :class:`~fastmix.accounting.PrivacyLedger` whose
  total is at most the target ``(epsilon, delta)``;
* scikit-learn estimators (:class:`FastIHMRegressor`, :class:`IHMRegressor`,
  :class:`FastIHSRegressor`, :class:`AdaSSPRegressor`), and :class:`PrivateLinearRegression`, the one to
  start with: it picks the private solver from public facts (:func:`choose_solver`) and says why.

Setting and conventions
-----------------------
Neighbouring datasets differ by zeroing out one record (FastMix paper, Section 2.1): its whole
row of the matrix the solver sees, response included (with the estimators' intercept, the
constant coordinate too; see the section *What the guarantee covers* of the book's background page).
Rows must satisfy ``||x_i|| <= 1`` (C_X = 1) and responses ``|y_i| <= C`` (the clipping level
``clip``); both are checked, and out-of-range records are an error unless a policy asks to
clip them (a per-record map, so privacy is kept; clipped responses are counted and warned,
:class:`ResponseClippingWarning`) or to rescale by the observed maximum (convenient for public
data, **not** private: it warns, :class:`NotPrivateWarning`, and the ledger entries say "not
private"). Whatever was done is recorded in the result.

The Walsh-Hadamard transform needs ``n`` to be a power of two. By default the data are padded
with zero rows and zero responses: a zero record is the same as an absent one under zero-out
neighbouring and contributes nothing to ``X^T X``, ``X^T y`` or ``X^T clip(y - X theta)``, so
padding changes neither the problem nor the guarantee. ``n_policy="subsample"`` instead keeps a
uniformly random subset of ``2^floor(log2 n)`` rows (what the authors' code does) and records
how many rows were dropped.

The functions fit no intercept (the paper's setting). The estimators fit one by default
(``fit_intercept=True``): they append a constant coordinate and rescale each row to keep its
norm at most one, which costs accuracy, and the guarantee is for the augmented row (see
:class:`FastIHMRegressor`).

**Modules.** Every public name is importable from ``fastmix.regression`` itself; the modules hold one
concept each: ``paper_sizes`` (Appendix H's sketch sizes and defaults), ``data`` (validation,
policies and :class:`DataRecord`), ``result`` (:class:`RegressionResult`), ``least_squares``
(OLS and the error measures), ``hessian_sketch`` (FastIHS), ``gradient_noise`` (the gradient
releases shared by IHM and FastIHM), ``hessian_mixing`` (IHM), ``fast_hessian_mixing``
(FastIHM), ``adaptive_ssp`` (AdaSSP), ``noise_warning``, ``estimator_base`` (what every
estimator shares: validation, intercept, what a fitted estimator keeps) and ``estimators``.
"""

from __future__ import annotations

# Every public name of the modules below is importable from ``fastmix.regression``; the imports
# ``_x as _x`` re-export private helpers for the tests and benchmarks that exercise them directly.
from .._validation import NotPrivateWarning, PrivacyWarning, ResponseClippingWarning
from ..accounting import analytic_gaussian_epsilon
from .adaptive_ssp import AdaSSPCalibration, adassp, calibrate_adassp
from .data import N_POLICIES, Y_POLICIES, DataRecord, PreparedRegression, prepare_regression
from .estimators import AdaSSPRegressor, FastIHMRegressor, FastIHSRegressor, IHMRegressor
from .fast_hessian_mixing import FastIHMCalibration, calibrate_fast_ihm, fast_ihm
from .front_door import SOLVERS, PrivateLinearRegression, SolverChoice, choose_solver
from .hessian_mixing import IHMCalibration, calibrate_ihm, gaussian_sketch_blocked, ihm, ihm_gamma_classical_eigenvalue
from .hessian_mixing import _gram_sqrt as _gram_sqrt
from .hessian_sketch import _srht_sketch as _srht_sketch
from .hessian_sketch import fast_ihs
from .least_squares import excess_empirical_risk, ols, training_mse
from .noise_warning import NOISE_DOMINATES_RATIO, NoiseDominatesWarning, fastihm_noise_ratio, ihm_noise_bound
from .paper_sizes import paper_defaults, paper_sketch_sizes
from .result import RegressionResult
from .result import _clipped_gradient as _clipped_gradient
from .result import _solve_spd as _solve_spd

__all__ = [
    "PrivateLinearRegression",
    "choose_solver",
    "SolverChoice",
    "SOLVERS",
    "paper_sketch_sizes",
    "paper_defaults",
    "DataRecord",
    "PreparedRegression",
    "prepare_regression",
    "Y_POLICIES",
    "N_POLICIES",
    "RegressionResult",
    "ols",
    "training_mse",
    "excess_empirical_risk",
    "fast_ihs",
    "IHMCalibration",
    "calibrate_ihm",
    "ihm_gamma_classical_eigenvalue",
    "ihm",
    "gaussian_sketch_blocked",
    "analytic_gaussian_epsilon",
    "FastIHMCalibration",
    "calibrate_fast_ihm",
    "fast_ihm",
    "AdaSSPCalibration",
    "calibrate_adassp",
    "adassp",
    "FastIHMRegressor",
    "IHMRegressor",
    "FastIHSRegressor",
    "AdaSSPRegressor",
    "PrivacyWarning",
    "NotPrivateWarning",
    "ResponseClippingWarning",
    "NoiseDominatesWarning",
    "NOISE_DOMINATES_RATIO",
    "fastihm_noise_ratio",
    "ihm_noise_bound",
]
