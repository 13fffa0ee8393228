"""The fit, predict and privacy plumbing every least-squares estimator of :mod:`fastmix.regression.estimators` shares.

:class:`_SketchedRegressorBase` validates ``(X, y)`` at the boundary, appends the intercept
coordinate within the norm bound, calls the subclass's solver, keeps on the fitted estimator only
what was released (unless ``keep_unreleased=True``) and names what stands in the way of publishing
it. What the guarantee covers is stated once, in :mod:`fastmix.regression.estimators`.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from contextlib import contextmanager

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from .. import accounting as acc
from .._publication import PublicationMixin, fitted_caveats, record_seed
from .._validation import (
    PrivacyWarning,
    _is_sparse,
    _non_finite_error,
    check_delta,
    check_estimator_epsilon,
    check_positive,
    check_probability,
    check_random_state,
    dask_route,
    policy_caveats,
)


@dask_route("regression.append_constant_column", on="X")
def _append_constant_column(X, divisor: float, value: float):
    """``[X / divisor, value]`` in Fortran order (the intercept column); for a Dask X, lazily, one column chunk."""
    Xa = np.empty((X.shape[0], X.shape[1] + 1), dtype=np.float64, order="F")
    np.divide(X, divisor, out=Xa[:, :-1])
    Xa[:, -1] = value
    return Xa


@dask_route("regression.estimator_input", on="X")
def _validated_fit_input(estimator, X, y):
    """``(X, y)`` checked as scikit-learn checks them (``n_features_in_`` recorded), X float64 in Fortran order.

    A Dask X is checked by ``fastmix.chunked.solvers`` (float64, chunked along rows) and stays lazy.
    """
    with _fastmix_non_finite_message(X, y):
        return validate_data(estimator, X, y, dtype=np.float64, y_numeric=True, order="F")


#: Below this many records the default delta = 1/n^2 is flagged by a PrivacyWarning.
_MIN_N_DEFAULT_DELTA = 100


#: Diagnostics computed from the raw data that no mechanism released (dropped unless keep_unreleased=True).
UNRELEASED_DIAGNOSTICS = ("m_hat_nonprivate", "lambda_min_nonprivate")


def _published(result):
    """``result`` without the statistics of the data that were never released (see ``keep_unreleased``)."""
    diagnostics = {k: v for k, v in result.diagnostics.items() if k not in UNRELEASED_DIAGNOSTICS}
    return dataclasses.replace(result, data=result.data.published(), diagnostics=diagnostics)


def _check_numeric_frame(X) -> None:
    """Refuse a DataFrame with non-numeric columns, naming them and the data-independent fix."""
    dtypes = getattr(X, "dtypes", None)
    if dtypes is None or not hasattr(dtypes, "items"):
        return
    from pandas.api.types import is_bool_dtype, is_complex_dtype, is_numeric_dtype

    bad = [
        str(col)
        for col, dt in dtypes.items()
        if not (is_numeric_dtype(dt) or is_bool_dtype(dt)) or is_complex_dtype(dt)
    ]
    if bad:
        raise TypeError(
            f"X has non-numeric column(s) {bad}; the solvers need real numbers. Encode categories over declared "
            "values first (fastmix.preprocessing.BoundedTableEncoder, in a Pipeline), or drop the columns. "
            "Learning the categories from the data (OneHotEncoder(categories='auto')) would not be private."
        )


@dask_route("regression.predict_linear", on="X")
def predict_linear(estimator, X):
    """``X @ coef_ + intercept_`` of a fitted linear estimator, X validated as at fit time."""
    with _fastmix_non_finite_message(X):
        X = validate_data(estimator, X, dtype=np.float64, reset=False)
    return X @ estimator.coef_ + estimator.intercept_


@dask_route("regression.score_linear", on="X")
def score_linear(estimator, X, y, sample_weight=None) -> float:
    """The coefficient of determination of ``estimator`` on ``(X, y)`` (scikit-learn's ``r2_score``)."""
    from sklearn.metrics import r2_score

    return float(r2_score(y, predict_linear(estimator, X), sample_weight=sample_weight))


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


class _SketchedRegressorBase(PublicationMixin, RegressorMixin, BaseEstimator):
    """Shared fit/predict plumbing. Subclasses implement ``_solve(X, y, rng)``, returning a RegressionResult.

    **Neighbouring relation.** Every guarantee of these estimators is for zero-out neighbours of
    the records (the module docstring, *What the guarantee covers*): one record absent, i.e. its
    whole row of the matrix the solver sees, intercept coordinate and response included, set to
    zero (the FastMix paper's Section 2). Their ledger (``privacy_ledger_.relation``) says so; an
    outer ``ledger=`` of the replace-one relation is refused (convert with
    :meth:`~fastmix.accounting.LedgerEntry.as_relation`, which doubles epsilon).

    ``delta=None`` means ``1/n^2`` and ``rho=None`` means ``delta/10`` (Appendix H); n is public
    under zero-out neighbouring. The kernel learners of :mod:`fastmix.kernels` differ on both
    counts: replace-one neighbours and ``delta=1e-5`` by default.

    **Intercept.** With ``fit_intercept=True`` (the default, as in scikit-learn) the estimator
    fits ``y ~ x^T coef_ + intercept_`` by appending a constant coordinate ``c``
    (``intercept_scaling``) to every row and dividing the augmented row by ``s = sqrt(1 + c^2)``:

        x~ = (x, c) / s,   ||x~||^2 = (||x||^2 + c^2) / s^2 <= 1   whenever ||x|| <= 1,

    so the augmented data meet the same norm bound and the mechanism, its calibration and its
    ledger are exactly those of the paper's algorithm run on ``d + 1`` columns; nothing
    data-dependent is computed (no centring). The guarantee is for the augmented rows: a record
    absent means its augmented row ``x~`` is zero, constant coordinate included (the relation
    above); zeroing only its raw ``(x, y)`` leaves ``c/s`` and is not covered at this cost. Predictions
    are ``x~^T b = x^T (b[:d] / s) + c b[d] / s``, hence ``coef_ = b[:d] / s`` and
    ``intercept_ = c b[d] / s``. The cost is in accuracy, not privacy: the features are shrunk by
    ``1/s`` (``1/sqrt 2`` at ``c = 1``) while the privacy noise stays the same, so the noise on the
    coefficients in the original units grows by up to ``s``, and the problem has one more column.
    ``fit`` warns when ``c`` lies outside ``[1/3, 3]`` (a large ``c`` shrinks the features towards
    zero, a small one the intercept coordinate). The non-private FastIHS appends ``c`` without
    rescaling. ``fit_intercept=False`` is the papers' setting (no intercept, ``intercept_ = 0``).

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

    #: The neighbouring relation of the guarantee (None for the non-private FastIHS).
    privacy_relation: str | None = acc.ZERO_OUT

    def non_private_options(self) -> tuple:
        """The chosen options that break the privacy guarantee, one sentence each (from the parameters only).

        Empty when a fit with these parameters is differentially private. ``"rescale"`` for
        ``row_norm_policy`` or ``y_policy`` divides by the largest value observed in the data: a
        fit with it warns (:class:`~fastmix.regression.NotPrivateWarning`) and its ledger entries
        are marked not private; :class:`~fastmix.model_selection.PrivateGridSearch` refuses such a
        candidate before it reads the data.
        """
        return policy_caveats(row_norm_policy=self.row_norm_policy, y_policy=self.y_policy)

    def publication_caveats(self) -> tuple:
        """Why this fitted estimator must not be published (pickled and shared), one sentence each.

        Empty when its every attribute is a release, a public parameter or n. A private
        estimator's predictions are covered by the guarantee either way; the fitted object is not
        when it holds statistics that were never released (a fit with ``keep_unreleased=True``),
        when it was fitted from a seed (whoever holds the seed, or the Generator, can recompute the
        noise and subtract it) or with an option that broke the guarantee. Read from what was
        fitted, so changing a parameter afterwards does not clear a caveat. Pickling a fitted
        estimator with caveats warns (:class:`~fastmix.regression.PrivacyWarning`).
        """
        if not self._private or not hasattr(self, "coef_"):
            return ()
        record = self.data_record_
        unreleased = record.row_norms.max_norm_before is not None or any(
            key in self.diagnostics_ for key in UNRELEASED_DIAGNOSTICS
        )
        return fitted_caveats(self, unreleased=unreleased)

    def _check_privacy_parameters(self):
        """Budget and intercept parameters, checked before the data are read (with the fix in each message)."""
        name = type(self).__name__
        check_estimator_epsilon(self.epsilon, name)
        if self.delta is not None:
            delta = check_delta(self.delta)
            if self.rho is None and delta / 10.0 == 0.0:
                raise ValueError(
                    f"delta = {delta:g} is too small: the default rho = delta/10 underflows to 0. Pass a delta of "
                    "at least 1e-300 (1/n^2 is common), or rho explicitly."
                )
        if getattr(self, "fit_intercept", False) is True:
            c = check_positive(self.intercept_scaling, "intercept_scaling")
            if not 1.0 / 3.0 <= c <= 3.0:
                s = math.sqrt(1.0 + c * c)
                shrunk = (
                    f"every feature is divided by sqrt(1 + c^2) = {s:.4g}, so the noise is about {s:.3g} times larger "
                    "relative to the features' signal"
                    if c > 3.0
                    else f"the intercept coordinate is c/sqrt(1 + c^2) = {c / s:.3g}, so the intercept's noise is "
                    f"about {s / c:.3g} times its signal's scale"
                )
                warnings.warn(
                    f"intercept_scaling = {c:g}: to keep every row within the norm bound, {shrunk}. Values near 1 "
                    "(the default) balance the two; centre y by a public value or set fit_intercept=False if "
                    "no intercept is needed.",
                    UserWarning,
                    stacklevel=3,
                )

    def fit(self, X, y):
        """Fit on (X, y); X of shape (n, d), y of shape (n,).

        X (and y) may be Dask arrays chunked along rows, X with one column chunk (y may also be a
        NumPy vector): the solver then reads X chunk by chunk (see :func:`fast_ihm`; FastIHS, AdaSSP
        and IHM with ``sketch="gram"`` take Dask input too) and the intercept column is appended
        lazily. The fitted attributes are NumPy arrays and floats, equal to those of an in-memory fit
        with the same ``random_state`` up to the order of floating-point sums.
        """
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
        if self._private:
            self._check_privacy_parameters()
        rng = check_random_state(self.random_state)
        _check_numeric_frame(X)
        X, y = _validated_fit_input(self, X, y)
        fit_intercept = getattr(self, "fit_intercept", False)
        if not isinstance(fit_intercept, (bool, np.bool_)):
            raise TypeError(f"fit_intercept must be True or False; got {fit_intercept!r}.")
        if fit_intercept:
            Xa, c, s = self._augment(X)
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
        if self._private and not getattr(self, "keep_unreleased", False):
            result = _published(result)
        if self._private:
            record_seed(self)
        self.result_ = result
        self.data_record_ = result.data
        self.diagnostics_ = result.diagnostics
        if self._private:
            self.privacy_ledger_ = result.ledger
        return self

    def _augment(self, X):
        """``(X~, c, s)``: the rows the solver sees with an intercept, ``x~ = (x, c) / s``.

        ``c`` is ``intercept_scaling`` and ``s = sqrt(1 + c^2)`` for the private estimators (so
        ``||x~|| <= 1`` whenever ``||x|| <= 1``), 1 for the non-private FastIHS. A record absent
        from the data is a zero row of this matrix: the relation the guarantee is stated for.
        """
        c = check_positive(getattr(self, "intercept_scaling", 1.0), "intercept_scaling")
        s = math.sqrt(1.0 + c * c) if self._private else 1.0
        return _append_constant_column(X, s, c / s), c, s

    def predict(self, X):
        """``X @ coef_ + intercept_``.

        A Dask X gives a Dask array of predictions, chunked like X's rows and computed on the
        workers: X is never gathered into this process.
        """
        check_is_fitted(self, "coef_")
        return predict_linear(self, X)

    def score(self, X, y, sample_weight=None) -> float:
        """R^2 of :meth:`predict` on ``(X, y)``, as scikit-learn's regressors define it.

        With a Dask X the sums are reduced on the workers and only two numbers come back.
        """
        check_is_fitted(self, "coef_")
        return score_linear(self, X, y, sample_weight)

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
