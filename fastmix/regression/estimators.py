"""scikit-learn estimators for the FastMix paper's least-squares solvers (Section 4, Algorithm 2).

:class:`FastIHMRegressor`, :class:`IHMRegressor`, :class:`FastIHSRegressor` and
:class:`AdaSSPRegressor` wrap :func:`fast_ihm`, :func:`ihm`, :func:`fast_ihs` and :func:`adassp`
with scikit-learn's parameter names (``n_iter`` for the iteration count T) and an optional
intercept appended within the norm bound.
"""

from __future__ import annotations

import math
import warnings
from contextlib import contextmanager

import numpy as np

from .. import accounting as acc
from .._validation import (
    PrivacyWarning,
    _is_sparse,
    _non_finite_error,
    check_dask_rows,
    check_delta,
    check_positive,
    check_positive_int,
    check_probability,
    check_random_state,
    is_dask_array,
)
from ..hadamard import power_of_two_size
from .adaptive_ssp import adassp
from .fast_hessian_mixing import fast_ihm
from .hessian_mixing import ihm
from .hessian_sketch import fast_ihs
from .noise_warning import NOISE_DOMINATES_RATIO, NoiseDominatesWarning, fastihm_noise_ratio
from .paper_sizes import paper_sketch_sizes

try:  # scikit-learn is an optional dependency (extra "ml")
    from sklearn.base import BaseEstimator, RegressorMixin
    from sklearn.utils.validation import check_is_fitted, validate_data

    _HAVE_SKLEARN = True
except Exception:  # pragma: no cover - depends on the environment
    BaseEstimator = object  # type: ignore

    class RegressorMixin:  # type: ignore
        pass

    _HAVE_SKLEARN = False


def _append_constant_column(X, divisor: float, value: float):
    """``[X / divisor, value]`` for a Dask X, lazily, as one column chunk (the intercept column)."""
    import dask.array as da

    const = da.full((X.shape[0], 1), value, chunks=(X.chunks[0], 1), dtype=np.float64)
    return da.concatenate([X / divisor, const], axis=1).rechunk({1: -1})


#: Below this many records the default delta = 1/n^2 is flagged by a PrivacyWarning.
_MIN_N_DEFAULT_DELTA = 100


@contextmanager
def _fastmix_non_finite_message(X, y=None):
    """scikit-learn's refusal of NaN or inf re-raised with fastmix's own message (and the count).

    The estimators validate through ``validate_data``, whose message suggests estimators that
    accept missing values; fastmix's says what is wrong and that nothing is dropped silently.
    """
    try:
        yield
    except ValueError as err:
        text = str(err)
        for name, arr in (("X", X), ("y", y)):
            if arr is not None and text.startswith(f"Input {name} contains"):
                raise _non_finite_error(np.asarray(arr, dtype=np.float64), name) from err
        raise


class _SketchedRegressorBase(RegressorMixin, BaseEstimator):
    """Shared fit/predict plumbing. Subclasses implement ``_solve(X, y, rng)``, returning a RegressionResult.

    **Neighbouring relation.** Every guarantee of these estimators is for zero-out neighbours
    (one row of ``(X, y)`` replaced by zeros; the FastMix paper's Section 2), and so is their
    ledger (``privacy_ledger_.relation``); an outer ``ledger=`` of the other relation is refused.

    ``delta=None`` means ``1/n^2`` and ``rho=None`` means ``delta/10`` (Appendix H); n is public
    under zero-out neighbouring.

    **Intercept.** With ``fit_intercept=True`` (the default, as in scikit-learn) the estimator
    fits ``y ~ x^T coef_ + intercept_`` by appending a constant coordinate ``c``
    (``intercept_scaling``) to every row and dividing the augmented row by ``s = sqrt(1 + c^2)``:

        x~ = (x, c) / s,   ||x~||^2 = (||x||^2 + c^2) / s^2 <= 1   whenever ||x|| <= 1,

    so the augmented data meet the same norm bound and the mechanism, its calibration and its
    ledger are exactly those of the paper's algorithm run on ``d + 1`` columns; nothing
    data-dependent is computed (no centring), and the privacy guarantee is unchanged. Predictions
    are ``x~^T b = x^T (b[:d] / s) + c b[d] / s``, hence ``coef_ = b[:d] / s`` and
    ``intercept_ = c b[d] / s``. The cost is in accuracy, not privacy: the features are shrunk by
    ``1/s`` (``1/sqrt 2`` at ``c = 1``) while the privacy noise stays the same, so the noise on the
    coefficients in the original units grows by up to ``s``, and the problem has one more column.
    The non-private FastIHS appends ``c`` without rescaling. ``fit_intercept=False`` is the
    papers' setting (no intercept, ``intercept_ = 0``).

    A delta that is not small compared with ``1/n`` gives a weak guarantee: a mechanism that
    publishes each record outright with probability delta is (0, delta)-DP, and it publishes
    ``n delta`` records on average. ``fit`` therefore warns (:class:`PrivacyWarning`) when the
    default ``1/n^2`` is used with fewer than 100 records (``n delta = 1/n > 0.01``; at n = 2
    the default is 0.25), and when an explicit delta is at least ``1/n``. Pass delta
    explicitly to choose a value knowingly; the warning is not an error because small-n fits
    are useful for tests and illustrations.

    scikit-learn's ``check_estimator``: with the defaults (``row_norm_policy="raise"``,
    ``y_policy="raise"``) the private estimators refuse data whose rows have norm above 1 or whose
    responses exceed C, which is what most generic checks feed them; that refusal is deliberate.
    With ``row_norm_policy="rescale", y_policy="rescale"`` (data-dependent scaling, *not* private;
    the coefficients are mapped back to the original units) every check passes (tested in
    ``tests/test_regression.py::test_sklearn_check_estimator``, at a large epsilon so that the
    accuracy checks are meaningful).
    """

    _private = True

    def _check_sklearn(self):
        if not _HAVE_SKLEARN:  # pragma: no cover
            raise ImportError("The estimators need scikit-learn: pip install 'fastmix[ml]'.")

    def fit(self, X, y):
        """Fit on (X, y); X of shape (n, d), y of shape (n,).

        X (and y) may be Dask arrays chunked along rows, X with one column chunk (y may also be a
        NumPy vector): the solver then reads X chunk by chunk (see :func:`fast_ihm`; FastIHS, AdaSSP
        and IHM with ``sketch="gram"`` take Dask input too) and the intercept column is appended
        lazily. The fitted attributes are NumPy arrays and floats, equal to those of an in-memory fit
        with the same ``random_state`` up to the order of floating-point sums.
        """
        self._check_sklearn()
        for name, value in (("X", X), ("y", y)):
            dtype = getattr(value, "dtype", None)  # arrays and frames; other inputs are left to scikit-learn
            if isinstance(dtype, np.dtype) and dtype.kind == "c" and not _is_sparse(value):
                # scikit-learn's convention (a ValueError with this phrase), with the argument named
                raise ValueError(
                    f"Complex data not supported: {name} has dtype {dtype}; "
                    f"pass real data ({name}.real, or real and imaginary parts as columns)."
                )
        outer = getattr(self, "ledger", None)
        if outer is not None and not isinstance(outer, acc.PrivacyLedger):
            raise TypeError(f"ledger must be a fastmix.accounting.PrivacyLedger or None; got {type(outer).__name__}.")
        chunked = is_dask_array(X)
        if chunked:
            X = self._check_dask_input(X)
        else:
            with _fastmix_non_finite_message(X, y):
                X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True, order="F")
        rng = check_random_state(self.random_state)
        fit_intercept = getattr(self, "fit_intercept", False)
        if not isinstance(fit_intercept, (bool, np.bool_)):
            raise TypeError(f"fit_intercept must be True or False; got {fit_intercept!r}.")
        if fit_intercept:
            c = check_positive(getattr(self, "intercept_scaling", 1.0), "intercept_scaling")
            s = math.sqrt(1.0 + c * c) if self._private else 1.0
            if chunked:
                Xa = _append_constant_column(X, s, c / s)
            else:
                Xa = np.empty((X.shape[0], X.shape[1] + 1), dtype=np.float64, order="F")
                np.divide(X, s, out=Xa[:, :-1])
                Xa[:, -1] = c / s
            result = self._solve(Xa, y, rng)
            theta = np.asarray(result.theta, dtype=np.float64)
            self.coef_ = theta[:-1] / s
            self.intercept_ = float(c * theta[-1] / s)
            result.diagnostics["intercept"] = {
                "intercept_scaling": c,
                "row_divisor": s,
                "note": "constant coordinate appended within the norm bound",
            }
        else:
            result = self._solve(X, y, rng)
            self.coef_ = np.asarray(result.theta, dtype=np.float64)
            self.intercept_ = 0.0
        self.result_ = result
        self.data_record_ = result.data
        self.diagnostics_ = result.diagnostics
        if self._private:
            self.privacy_ledger_ = result.ledger
        return self

    def _check_dask_input(self, X):
        """A Dask X as float64 chunked along rows; records ``n_features_in_`` as scikit-learn does."""
        X = check_dask_rows(X)
        self.n_features_in_ = int(X.shape[1])
        if hasattr(self, "feature_names_in_"):
            del self.feature_names_in_  # a Dask array has no column names
        return X

    def predict(self, X):
        """``X @ coef_ + intercept_``."""
        self._check_sklearn()
        check_is_fitted(self, "coef_")
        with _fastmix_non_finite_message(X):
            X = validate_data(self, X, dtype=np.float64, reset=False)
        return X @ self.coef_ + self.intercept_

    def _delta_rho(self, n: int) -> tuple[float, float]:
        delta = 1.0 / max(n, 2) ** 2 if self.delta is None else check_delta(self.delta)
        if self.delta is None and n < _MIN_N_DEFAULT_DELTA:
            warnings.warn(
                f"delta=None means 1/n^2 = {delta:.3g} for n = {n} records, which is not small: with fewer than "
                f"{_MIN_N_DEFAULT_DELTA} records it allows publishing about n*delta = {n * delta:.3g} records "
                "outright. Pass delta explicitly (well below 1/n) to choose the guarantee.",
                PrivacyWarning,
                stacklevel=4,
            )
        elif self.delta is not None and delta >= 1.0 / n:
            warnings.warn(
                f"delta = {delta:.3g} is at least 1/n = {1.0 / n:.3g} for n = {n} records: such a guarantee "
                "allows publishing a whole record outright. Choose delta well below 1/n (1/n^2 is common).",
                PrivacyWarning,
                stacklevel=4,
            )
        rho = delta / 10.0 if self.rho is None else check_probability(self.rho, "rho")
        return delta, rho


class FastIHMRegressor(_SketchedRegressorBase):
    """Differentially private least squares with FastIHM (FastMix paper, Algorithm 2).

    Parameters
    ----------
    epsilon : float, default=1.0
    delta : float or None, default=None
        None means 1/n^2 (Appendix H).
    n_iter : int, default=4
        T, the number of iterations (Appendix H uses 4).
    k1, k2 : int or None
        Gaussian and SRHT rows; None means the paper's choice ``6 max{d, log(4T/rho)}`` and
        ``k2_ratio max{d, log(4T/rho)}`` (:func:`paper_sketch_sizes`), the default k2 being capped
        at the padded n (recorded in ``diagnostics_``).
    k2_ratio : float, default=800.0
        The paper's most accurate ratio (Figure 2 uses 4, 400 and 800; the larger k2, the closer
        FastIHM comes to IHM, at more transform cost), capped at the padded n. ``fit`` warns
        (:class:`NoiseDominatesWarning`) when the released eta^2 exceeds 10 times the most IHM adds
        to its Hessian at the same budget (:func:`fastihm_noise_ratio`); the message names
        IHMRegressor and AdaSSPRegressor and the book page that compares them ("Which private
        solver when").
    rho : float or None
        Utility failure probability; None means delta/10.
    clip : float, default=1.0
        C, the bound on ``|y_i|`` and the residual clipping level.
    calibration : {"tight", "closed_form"}, default="tight"
    shared_eta, omit_eta_term, m_floor : see :func:`fast_ihm`.
    row_norm_policy, y_policy, n_policy : see :func:`prepare_regression`. With
        ``"rescale"`` the estimator works on any data (coefficients are mapped back to the
        original units) but the data-dependent scaling is not private.
    fit_intercept : bool, default=True
        Fit an intercept through a constant coordinate appended within the norm bound (no
        data-dependent step; same privacy guarantee, some accuracy cost: see the class notes of
        the base estimator below). False is the paper's setting.
    intercept_scaling : float, default=1.0
        The constant ``c`` appended to each row (the rows are then divided by ``sqrt(1 + c^2)``).
    ledger : PrivacyLedger or None, default=None
        An outer budget for the data set: every fit charges its cost there too, and a fit that
        would take it past its target is refused before the data are touched
        (:class:`~fastmix.accounting.BudgetExceededError`). Repeated fits on the same data
        (cross-validation, a grid search, refits) compose in it. scikit-learn's ``clone`` keeps
        the same ledger (a ledger is never copied); in another process (``n_jobs > 1``) it refuses
        to spend. Without it each fit has its own ledger at the full ``(epsilon, delta)``, and
        ``k`` fits on the same data cost ``k`` times that: plain ``GridSearchCV`` over ``G``
        candidates with ``F`` folds spends the budget about ``G F + 1`` times.
    random_state : None, int, SeedSequence or Generator
    gaussian_step : {"explicit", "gram"}, default="explicit"
        How the Gaussian step is sampled; the same law either way (see :func:`fast_ihm`).

    Attributes
    ----------
    coef_ : ndarray of shape (d,)
    intercept_ : float (0 when ``fit_intercept=False``)
    privacy_ledger_ : PrivacyLedger
    diagnostics_ : dict
    data_record_ : DataRecord
    result_ : RegressionResult
    """

    def __init__(
        self,
        epsilon=1.0,
        delta=None,
        *,
        n_iter=4,
        k1=None,
        k2=None,
        k2_ratio=800.0,
        rho=None,
        clip=1.0,
        calibration="tight",
        shared_eta=True,
        omit_eta_term=True,
        m_floor=0.0,
        row_norm_policy="raise",
        y_policy="raise",
        n_policy="pad",
        fit_intercept=True,
        intercept_scaling=1.0,
        ledger=None,
        random_state=None,
        gaussian_step="explicit",
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.n_iter = n_iter
        self.k1 = k1
        self.k2 = k2
        self.k2_ratio = k2_ratio
        self.gaussian_step = gaussian_step
        self.rho = rho
        self.clip = clip
        self.calibration = calibration
        self.shared_eta = shared_eta
        self.omit_eta_term = omit_eta_term
        self.m_floor = m_floor
        self.row_norm_policy = row_norm_policy
        self.y_policy = y_policy
        self.n_policy = n_policy
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.ledger = ledger
        self.random_state = random_state

    def _solve(self, X, y, rng):
        n, d = X.shape
        delta, rho = self._delta_rho(n)
        T = check_positive_int(self.n_iter, "n_iter")
        dk1, dk2 = paper_sketch_sizes(d, T, rho, self.k2_ratio)
        n_used = power_of_two_size(n, "subsample" if self.n_policy == "subsample" else "pad")
        k1 = dk1 if self.k1 is None else self.k1
        k2 = min(dk2, n_used) if self.k2 is None else self.k2
        res = fast_ihm(
            X,
            y,
            epsilon=self.epsilon,
            delta=delta,
            k1=k1,
            k2=k2,
            T=T,
            rho=rho,
            clip=self.clip,
            method=self.calibration,
            random_state=rng,
            shared_eta=self.shared_eta,
            omit_eta_term=self.omit_eta_term,
            m_floor=self.m_floor,
            row_norm_policy=self.row_norm_policy,
            y_policy=self.y_policy,
            n_policy=self.n_policy,
            ledger=self.ledger,
            gaussian_step=self.gaussian_step,
        )
        res.diagnostics["k2_capped_at_n"] = self.k2 is None and dk2 > n_used
        # Post-processing of the released eta and public quantities only (see fastihm_noise_ratio).
        ratio = fastihm_noise_ratio(res.diagnostics["eta"], self.epsilon, delta, k=k1, T=T, rho=rho, clip=self.clip)
        res.diagnostics["eta_sq_over_ihm_gamma"] = ratio
        if ratio > NOISE_DOMINATES_RATIO:
            eta_sq = float(res.diagnostics["eta"]) ** 2
            sizing = f"k2={k2}, given" if self.k2 is not None else f"k2={k2} from k2_ratio={self.k2_ratio:g}"
            warnings.warn(
                f"FastIHM's Hessian noise dominates: eta^2 = {eta_sq:.3g} is {ratio:.3g} times the most that IHM "
                f"adds to its Hessian at the same epsilon = {self.epsilon:g}, delta and sketch size k = {k1} "
                f"(gamma = {eta_sq / ratio:.3g}). At n = {n}, d = {d}, IHMRegressor is the better choice "
                "(AdaSSPRegressor is faster; the book's page 'Which private solver when' compares them by n, d "
                f"and epsilon). Or raise k2 ({sizing}): the fewer rows the SRHT drops, "
                "the closer FastIHM's noise comes to IHM's.",
                NoiseDominatesWarning,
                stacklevel=3,
            )
        return res


class IHMRegressor(_SketchedRegressorBase):
    """Differentially private least squares with IHM (Lev et al. 2026; see :func:`ihm`).

    Parameters as :class:`FastIHMRegressor` (``fit_intercept`` and ``intercept_scaling`` included); ``k``
    (None: ``6 max{d, log(4T/rho)}``, Appendix H)
    is the number of Gaussian rows, ``sketch`` is ``"dense"`` or ``"gram"`` (same distribution).
    """

    def __init__(
        self,
        epsilon=1.0,
        delta=None,
        *,
        n_iter=4,
        k=None,
        rho=None,
        clip=1.0,
        sketch="dense",
        omit_eta_term=True,
        row_norm_policy="raise",
        y_policy="raise",
        fit_intercept=True,
        intercept_scaling=1.0,
        ledger=None,
        random_state=None,
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.n_iter = n_iter
        self.k = k
        self.rho = rho
        self.clip = clip
        self.sketch = sketch
        self.omit_eta_term = omit_eta_term
        self.row_norm_policy = row_norm_policy
        self.y_policy = y_policy
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.ledger = ledger
        self.random_state = random_state

    def _solve(self, X, y, rng):
        n, d = X.shape
        delta, rho = self._delta_rho(n)
        T = check_positive_int(self.n_iter, "n_iter")
        k = paper_sketch_sizes(d, T, rho)[0] if self.k is None else self.k
        return ihm(
            X,
            y,
            epsilon=self.epsilon,
            delta=delta,
            k=k,
            T=T,
            rho=rho,
            clip=self.clip,
            random_state=rng,
            row_norm_policy=self.row_norm_policy,
            y_policy=self.y_policy,
            sketch=self.sketch,
            omit_eta_term=self.omit_eta_term,
            ledger=self.ledger,
        )


class FastIHSRegressor(_SketchedRegressorBase):
    """Non-private iterative Hessian sketch with an SRHT (:func:`fast_ihs`); no ledger.

    ``fit_intercept=True`` appends the constant ``intercept_scaling`` without rescaling the rows.

    ``k=None`` means ``6 max{d, log(4T/rho)}`` with ``rho = 1/(10 n^2)`` (Figure 2 legend), capped
    at the padded n.
    """

    _private = False

    def __init__(
        self,
        *,
        n_iter=4,
        k=None,
        ridge=1e-5,
        n_policy="pad",
        fit_intercept=True,
        intercept_scaling=1.0,
        random_state=None,
    ):
        self.n_iter = n_iter
        self.k = k
        self.ridge = ridge
        self.n_policy = n_policy
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.random_state = random_state

    def _solve(self, X, y, rng):
        n, d = X.shape
        T = check_positive_int(self.n_iter, "n_iter")
        rho = 1.0 / (10.0 * max(n, 2) ** 2)
        n_used = power_of_two_size(n, "subsample" if self.n_policy == "subsample" else "pad")
        k = min(paper_sketch_sizes(d, T, rho)[0], n_used) if self.k is None else self.k
        return fast_ihs(X, y, k=k, T=T, random_state=rng, ridge=self.ridge, n_policy=self.n_policy)


class AdaSSPRegressor(_SketchedRegressorBase):
    """Differentially private least squares with AdaSSP (Wang 2018; :func:`adassp`).

    Parameters as :class:`FastIHMRegressor` (``fit_intercept`` and ``intercept_scaling`` included).
    """

    def __init__(
        self,
        epsilon=1.0,
        delta=None,
        *,
        rho=None,
        clip=1.0,
        row_norm_policy="raise",
        y_policy="raise",
        fit_intercept=True,
        intercept_scaling=1.0,
        ledger=None,
        random_state=None,
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.rho = rho
        self.clip = clip
        self.row_norm_policy = row_norm_policy
        self.y_policy = y_policy
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.ledger = ledger
        self.random_state = random_state

    def _solve(self, X, y, rng):
        delta, rho = self._delta_rho(X.shape[0])
        return adassp(
            X,
            y,
            epsilon=self.epsilon,
            delta=delta,
            rho=rho,
            clip=self.clip,
            random_state=rng,
            row_norm_policy=self.row_norm_policy,
            y_policy=self.y_policy,
            ledger=self.ledger,
        )
