"""One private linear regressor that picks its solver from public facts: where to start.

:class:`PrivateLinearRegression` takes the privacy target and the declared bounds (rows of norm at
most 1, responses in ``[-clip, clip]``, as every private solver here does), chooses one of the
private solvers with :func:`choose_solver` from ``(n, d, epsilon, delta)`` alone, fits it, and
records which solver it used and why. The choice reads no record, so it spends nothing; the fitted
solver's privacy ledger is the estimator's.

The rule follows the companion's measurements (the book's pages "Which private solver when" and
"Where each solver is fastest"): IHM with its sketch drawn through the Gram factor (the same
output distribution as the dense Gaussian sketch) was the most accurate private solver at almost
every measured (n, d, epsilon), and faster than FastIHM at every measured shape, on one machine and
on Dask. FastIHM (the FastMix paper's Algorithm 2) and AdaSSP stay available by name.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from .. import accounting as acc
from .._publication import PublicationMixin
from .._validation import check_delta, check_estimator_epsilon, check_positive, check_random_state

__all__ = ["SOLVERS", "SolverChoice", "choose_solver", "PrivateLinearRegression"]

SOLVERS = ("ihm", "fast_ihm", "adassp")
"""The private solvers :class:`PrivateLinearRegression` can run: IHM (Gram factor), FastIHM, AdaSSP."""


@dataclass(frozen=True)
class SolverChoice:
    """Which solver a fit uses, and why (from public facts only).

    Attributes
    ----------
    solver : str
        One of :data:`SOLVERS`.
    reason : str
        Why, in a sentence: the rule that chose it, or that it was named.
    forced : bool
        True when the caller named the solver.
    """

    solver: str
    reason: str
    forced: bool = False


_IHM_REASON = (
    "IHM through its Gram factor: in the companion's measurements it was the most accurate private solver at almost "
    "every (n, d, epsilon) of the solver map and faster than FastIHM at every shape of the regime map (the book's "
    "'Which private solver when' and 'Where each solver is fastest')"
)


def choose_solver(n: int, d: int, epsilon: float, delta: float) -> SolverChoice:
    """The solver for ``n`` records of ``d`` columns (intercept included) at ``(epsilon, delta)``.

    Only these public numbers enter: no record is read, so the choice spends no budget. Today's rule
    is IHM through its Gram factor throughout the measured range; its arguments are checked so that
    a choice is never made on a nonsensical shape or target.
    """
    for name, value in (("n", n), ("d", d)):
        if isinstance(value, bool) or not isinstance(value, Integral) or value < 1:
            raise ValueError(f"{name} must be a positive integer; got {value!r}.")
    check_estimator_epsilon(epsilon, "choose_solver")
    check_delta(delta)
    return SolverChoice("ihm", _IHM_REASON)


class PrivateLinearRegression(PublicationMixin, RegressorMixin, BaseEstimator):
    """Differentially private linear regression that picks its solver from public facts.

    Parameters
    ----------
    epsilon : float, default=1.0
        Privacy target; the fit is ``(epsilon, delta)``-DP under zero-out neighbours of the records
        (each record's whole row of the matrix the solver sees, intercept coordinate included).
    delta : float or None, default=None
        ``None`` means ``1/n^2``, as the private solvers take it.
    solver : {"auto", "ihm", "fast_ihm", "adassp"}, default="auto"
        ``"auto"``: :func:`choose_solver`; a name forces that solver (recorded as forced).
    fit_intercept, intercept_scaling, clip, row_norm_policy, y_policy, ledger, random_state, keep_unreleased
        Passed to the chosen solver's estimator (:class:`IHMRegressor` with ``sketch="gram"``,
        :class:`FastIHMRegressor` or :class:`AdaSSPRegressor`), with their meanings there: rows must
        have norm at most 1 and responses lie in ``[-clip, clip]`` (declared bounds; see
        :mod:`fastmix.preprocessing` to get there from a table).

    Attributes
    ----------
    solver_ : str
        The solver used.
    solver_reason_ : str
        Why it was used.
    estimator_ : estimator
        The fitted solver's estimator.
    coef_, intercept_, n_features_in_, privacy_ledger_
        Those of ``estimator_``.

    Examples
    --------
    >>> import numpy as np
    >>> from fastmix.regression import PrivateLinearRegression
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-0.5, 0.5, (20_000, 3)) / np.sqrt(3)
    >>> y = np.clip(X @ np.array([1.0, -2.0, 0.5]) + 0.1 * rng.standard_normal(20_000), -1, 1)
    >>> model = PrivateLinearRegression(epsilon=1.0, delta=1e-6, random_state=0).fit(X, y)
    >>> model.solver_
    'ihm'
    >>> round(model.privacy_ledger_.total_epsilon, 6) <= 1.0
    True
    """

    privacy_relation: str | None = acc.ZERO_OUT

    def __init__(
        self,
        epsilon=1.0,
        delta=None,
        *,
        solver="auto",
        fit_intercept=True,
        intercept_scaling=1.0,
        clip=1.0,
        row_norm_policy="raise",
        y_policy="raise",
        ledger=None,
        random_state=None,
        keep_unreleased=False,
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.solver = solver
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.clip = clip
        self.row_norm_policy = row_norm_policy
        self.y_policy = y_policy
        self.ledger = ledger
        self.random_state = random_state
        self.keep_unreleased = keep_unreleased

    def _choice(self, n: int, d: int) -> SolverChoice:
        delta = 1.0 / max(n, 2) ** 2 if self.delta is None else self.delta
        check_estimator_epsilon(self.epsilon, "PrivateLinearRegression")
        if self.solver == "auto":
            return choose_solver(n, d + bool(self.fit_intercept), self.epsilon, delta)
        if self.solver not in SOLVERS:
            raise ValueError(f"solver must be 'auto' or one of {SOLVERS}; got {self.solver!r}.")
        check_delta(delta)
        return SolverChoice(self.solver, f"{self.solver} named by the caller", forced=True)

    def _estimator(self, solver: str):
        from .estimators import AdaSSPRegressor, FastIHMRegressor, IHMRegressor

        common = {
            "epsilon": self.epsilon,
            "delta": self.delta,
            "fit_intercept": self.fit_intercept,
            "intercept_scaling": check_positive(self.intercept_scaling, "intercept_scaling"),
            "row_norm_policy": self.row_norm_policy,
            "y_policy": self.y_policy,
            "ledger": self.ledger,
            "random_state": self.random_state,
            "keep_unreleased": self.keep_unreleased,
        }
        if solver == "ihm":
            return IHMRegressor(**common, clip=self.clip, sketch="gram")
        if solver == "fast_ihm":
            return FastIHMRegressor(**common, clip=self.clip)
        return AdaSSPRegressor(**common, clip=self.clip)

    def fit(self, X, y):
        """Choose the solver from ``X``'s shape and the privacy target, then fit it on ``(X, y)``."""
        shape = getattr(X, "shape", None)
        if shape is None:  # a list or another array-like: its shape as NumPy reads it
            shape = np.shape(np.asarray(X, dtype=object))
        if len(shape) != 2 or any(s is None or (isinstance(s, float) and math.isnan(s)) for s in shape):
            raise ValueError(
                "X must be a 2-d array (n records, d features) with known sizes; got "
                f"{type(X).__name__} of shape {shape!r}."
            )
        check_random_state(self.random_state)  # refuse a bad seed before anything runs
        choice = self._choice(int(shape[0]), int(shape[1]))
        est = self._estimator(choice.solver).fit(X, y)
        self.estimator_ = est
        self.solver_, self.solver_reason_ = choice.solver, choice.reason
        self.coef_, self.intercept_ = est.coef_, est.intercept_
        self.n_features_in_ = est.n_features_in_
        if hasattr(est, "feature_names_in_"):
            self.feature_names_in_ = est.feature_names_in_
        self.privacy_ledger_ = est.privacy_ledger_
        return self

    def predict(self, X):
        """``X @ coef_ + intercept_`` (a lazy Dask vector for a Dask X)."""
        check_is_fitted(self, "estimator_")
        return self.estimator_.predict(X)

    def score(self, X, y, sample_weight=None) -> float:
        """R^2 on ``(X, y)`` (reduced on the workers for a Dask X)."""
        check_is_fitted(self, "estimator_")
        return self.estimator_.score(X, y, sample_weight=sample_weight)

    def non_private_options(self) -> tuple:
        """The chosen options that break the guarantee (those of the solver's estimator; from the parameters only)."""
        return self._estimator("ihm").non_private_options()

    def publication_caveats(self) -> tuple:
        """Why this fitted object must not be published (those of the fitted solver), one sentence each."""
        check_is_fitted(self, "estimator_")
        return self.estimator_.publication_caveats()
