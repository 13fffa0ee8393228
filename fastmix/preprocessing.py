"""Data-independent bounding for the private estimators, as scikit-learn transformers.

Every private estimator here assumes rows of norm at most 1 and responses bounded by C (FastMix
paper, Section 2 and Appendix H; the kernel paper's ``|y| <= T``). The obvious ways to get there
look at the data (``StandardScaler``, dividing by the largest norm, one-hot encoding with the
categories found in the data), and then the released model is no longer covered by the privacy
guarantee: the scale itself is a statistic of the private records. The tools here use only
what the user *declares* about the data, so each maps every record on its own, by a fixed map,
and the guarantee of the estimator downstream covers the whole pipeline:

:class:`BoundedTableEncoder`
    A raw table (numeric and categorical columns) to a matrix whose rows have norm at most 1:
    numeric columns clipped to declared ranges and mapped to [-1, 1], categorical columns one-hot
    encoded over declared categories, every row divided by ``sqrt(p + q)`` for p numeric and q
    categorical columns. The bound is tight: a one-hot group has one active column, so it adds 1
    to the squared norm however many categories it has (dividing by the number of output
    columns instead inflates the privacy noise relative to the signal for nothing).
:class:`RowNormClipper`
    Rows of a numeric matrix scaled down to a declared norm bound (``x min(1, b/||x||)``).
:class:`BoundedResponseRegressor`
    Wraps a regressor: maps y from a declared range ``[low, high]`` to ``[-1, 1]`` (clipping
    values outside, with a :class:`~fastmix._validation.ResponseClippingWarning` when any is),
    fits, and maps predictions back.
:func:`pipeline_privacy_record`
    For a fitted pipeline, a certificate: which steps are *proven* to be fixed maps of each record
    (from an allow-list of steps whose parameters are all declared, checked against what was
    fitted), whether the final estimator's privacy guarantee, read from its ledger, therefore
    covers the pipeline's outputs, and whether the fitted pipeline object itself may be published.

**What the certificate proves, and what it cannot.** ``private_end_to_end=True`` means: every
step before the estimator is, by its class, its parameters and its fitted state, a fixed map
declared in advance and applied to each record on its own, so changing or removing one record
of the table changes or removes exactly its row of the matrix the estimator sees, and nothing
else (no scale, no category list, no mean moves with it). That is the relation the estimators' guarantees are
stated for, so the estimator's ``(epsilon, delta)`` under its neighbouring relation (reported
with the certificate) holds for the records of the table. The certificate does not read code:
a step it cannot check from its parameters (a ``FunctionTransformer``, a class of your own) is
*unknown*, and the pipeline is not certified, even when the function is innocent. Express such
a step with :class:`RowNormClipper`, :class:`BoundedTableEncoder` or a ``OneHotEncoder`` over
declared categories, whose maps are fixed by what you declare. It reads what was fitted where
it can (a ``OneHotEncoder``'s ``categories_``, the declarations these tools were fitted with, a
``ColumnTransformer``'s ``transformers_``), so changing a parameter after ``fit`` does not fool
it; a whole step *replaced* after ``fit`` (``set_params(step="passthrough")``) does, since the
fitted step is gone from the object: certify right after ``fit``.

**Outputs and the fitted object.** ``private_end_to_end`` is about the outputs (predictions,
released coefficients). The fitted object may hold more, so the certificate also says whether
it is ``publishable`` (may be pickled and shared), with ``publication_caveats`` naming the step
and the reason: a count kept with ``keep_unreleased=True``, a seeded ``random_state`` (its holder
can recompute the noise and subtract it), training inputs kept by an exact path sampler.

**No unreleased statistics by default.** How many values fell outside the declared bounds is a
statistic of the private records, not covered by any guarantee, so the fitted objects keep no
such count unless asked: with ``keep_unreleased=True`` each tool keeps ``n_clipped_`` for the
data holder only (do not publish the fitted object then; :func:`pipeline_privacy_record` lists it
among the ``publication_caveats``).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin, TransformerMixin, clone
from sklearn.utils.validation import check_is_fitted

from ._validation import ResponseClippingWarning, check_positive
from .accounting import PrivacyLedger

__all__ = [
    "BoundedTableEncoder",
    "RowNormClipper",
    "BoundedResponseRegressor",
    "pipeline_privacy_record",
    "DATA_INDEPENDENT",
    "DATA_DEPENDENT",
    "UNKNOWN",
    "PRIVATE",
    "NOT_PRIVATE",
]

#: Verdict of :func:`pipeline_privacy_record` on a step proven to be a fixed, declared map of each record.
DATA_INDEPENDENT = "data-independent"
#: Verdict on a step known to be fitted to the data (its parameters are statistics of the records).
DATA_DEPENDENT = "data-dependent"
#: Verdict on a step (or final estimator) the certificate cannot check.
UNKNOWN = "unknown"
#: Verdict on a final estimator of this package fitted with its privacy guarantee.
PRIVATE = "private"
#: Verdict on a final estimator of this package fitted with an option that broke its guarantee.
NOT_PRIVATE = "not private"


def _check_flag(value, name):
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False; got {value!r}.")
    return bool(value)


def _columns(X, names):
    """Columns ``names`` of a DataFrame (or of a mapping of arrays), as a list of 1-D arrays."""
    missing = [c for c in names if c not in getattr(X, "columns", X)]
    if missing:
        have = list(getattr(X, "columns", X))
        raise ValueError(f"X has no column(s) {missing}; it has {have}. Declare bounds for the columns X holds.")
    return [np.asarray(X[c]) for c in names]


class BoundedTableEncoder(TransformerMixin, BaseEstimator):
    """A table to rows of norm at most ``max_norm``, from declared ranges and categories only.

    Parameters
    ----------
    numeric_ranges : mapping column -> (low, high)
        Declared range of each numeric column (from the data's documentation or domain knowledge,
        never from the data). A value is clipped to its range, then mapped affinely to [-1, 1].
    categories : mapping column -> sequence
        Declared categories of each categorical column. A value is one-hot encoded over them; a
        value outside them (or missing) encodes as all zeros, which only lowers the norm.
    max_norm : float, default=1.0
        The row-norm bound the output meets.
    keep_unreleased : bool, default=False
        Keep ``n_clipped_``, a count over the private records that no privacy guarantee covers,
        for the data holder only (do not publish the fitted encoder then).

    The output has, per row, ``len(numeric_ranges)`` numeric entries followed by the one-hot
    blocks in the order given, all divided by ``sqrt(p + q) / max_norm`` (p numeric, q categorical
    columns): each numeric entry contributes at most 1 and each one-hot block exactly 1 (or 0) to
    the squared norm, so ``||row|| <= max_norm``, with equality for a row at a corner of the ranges
    with every category known. ``fit`` learns nothing from the data: it only checks that the
    declared columns exist (and, with ``keep_unreleased=True``, counts the values outside the
    declared ranges or categories). ``transform`` applies the declarations ``fit`` saw (changing
    a parameter takes effect at the next ``fit``), and :func:`pipeline_privacy_record` refuses an
    encoder whose parameters no longer match them.

    Attributes
    ----------
    feature_names_out_ : list of str
    divisor_ : float
        ``sqrt(p + q) / max_norm``, with the ``max_norm`` of the fit.
    n_clipped_ : dict
        Only with ``keep_unreleased=True``: values outside the declared range (numeric) or
        categories (categorical) per column, at fit. Not covered by the privacy guarantee.
    """

    #: Documentation only: :func:`pipeline_privacy_record` recognises this class itself, not the marker.
    data_independent = True

    def __init__(
        self,
        numeric_ranges: Mapping | None = None,
        categories: Mapping | None = None,
        *,
        max_norm=1.0,
        keep_unreleased=False,
    ):
        self.numeric_ranges = numeric_ranges
        self.categories = categories
        self.max_norm = max_norm
        self.keep_unreleased = keep_unreleased

    def _check_declarations(self):
        ranges = dict(self.numeric_ranges or {})
        cats = {k: list(v) for k, v in dict(self.categories or {}).items()}
        if not ranges and not cats:
            raise ValueError(
                "declare at least one column: numeric_ranges={col: (low, high)} or "
                "categories={col: [values]}; got neither."
            )
        for col, bounds in ranges.items():
            try:
                lo, hi = (float(b) for b in bounds)
            except (TypeError, ValueError):
                raise TypeError(f"numeric_ranges[{col!r}] must be a pair (low, high); got {bounds!r}.") from None
            if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
                raise ValueError(f"numeric_ranges[{col!r}] must satisfy low < high, both finite; got ({lo}, {hi}).")
            ranges[col] = (lo, hi)
        for col, values in cats.items():
            if len(values) == 0:
                raise ValueError(f"categories[{col!r}] is empty; declare the values the column can take.")
            if len(set(values)) != len(values):
                raise ValueError(f"categories[{col!r}] lists a value twice; got {values!r}.")
        both = sorted(set(ranges) & set(cats), key=str)
        if both:
            raise ValueError(f"column(s) {both} are declared both numeric and categorical; choose one.")
        return ranges, cats, check_positive(self.max_norm, "max_norm")

    def fit(self, X, y=None):
        ranges, cats, max_norm = self._check_declarations()
        keep = _check_flag(self.keep_unreleased, "keep_unreleased")
        self._ranges, self._cats = ranges, cats
        self.divisor_ = math.sqrt(len(ranges) + len(cats)) / max_norm
        self.feature_names_out_ = list(map(str, ranges)) + [f"{c}={v}" for c, vs in cats.items() for v in vs]
        self.n_features_out_ = len(self.feature_names_out_)
        self.__dict__.pop("n_clipped_", None)  # from an earlier fit with keep_unreleased=True
        clipped = self._encode(X, count=keep)[1]  # also checks that X holds the declared columns
        if keep:
            self.n_clipped_ = clipped
        return self

    def _encode(self, X, count=False):
        n = len(X)
        out = np.zeros((n, len(self._ranges) + sum(len(v) for v in self._cats.values())))
        clipped = {}
        for j, (col, (lo, hi)) in enumerate(self._ranges.items()):
            (v,) = _columns(X, [col])
            try:
                v = v.astype(float)
            except (TypeError, ValueError):
                raise TypeError(
                    f"numeric column {col!r} holds non-numeric values; declare it in categories instead, or convert it."
                ) from None
            if np.isnan(v).any():
                raise ValueError(
                    f"numeric column {col!r} has missing values; impute them with a declared "
                    "constant first (a data-dependent imputation would not be private)."
                )
            if count:
                clipped[col] = int(np.count_nonzero((v < lo) | (v > hi)))
            out[:, j] = (np.clip(v, lo, hi) - (lo + hi) / 2.0) / ((hi - lo) / 2.0)
        k = len(self._ranges)
        for col, values in self._cats.items():
            (v,) = _columns(X, [col])
            index = {val: i for i, val in enumerate(values)}
            pos = np.fromiter((index.get(x, -1) for x in v), dtype=int, count=n)
            known = pos >= 0
            out[np.nonzero(known)[0], k + pos[known]] = 1.0
            if count:
                clipped[col] = int(np.count_nonzero(~known))
            k += len(values)
        out /= self.divisor_
        return out, clipped

    def transform(self, X):
        check_is_fitted(self, "divisor_")
        return self._encode(X)[0]

    def get_feature_names_out(self, input_features=None):
        check_is_fitted(self, "feature_names_out_")
        return np.asarray(self.feature_names_out_, dtype=object)


class RowNormClipper(TransformerMixin, BaseEstimator):
    """Scale each row down to norm at most ``max_norm``: ``x min(1, max_norm / ||x||)``.

    A fixed map applied to each record on its own (no statistic of the data), so it keeps the
    downstream guarantee. ``transform`` uses the bound of the fit (``max_norm_``; changing the
    parameter takes effect at the next ``fit``), and :func:`pipeline_privacy_record` refuses a
    clipper whose ``max_norm`` no longer matches it.

    Parameters
    ----------
    max_norm : float, default=1.0
    keep_unreleased : bool, default=False
        Keep ``n_clipped_``, the number of rows shortened at fit: a count over the private
        records that no privacy guarantee covers, for the data holder only.

    Attributes
    ----------
    max_norm_ : float
        The bound of the fit.
    n_features_in_ : int
    """

    #: Documentation only: :func:`pipeline_privacy_record` recognises this class itself, not the marker.
    data_independent = True

    def __init__(self, max_norm=1.0, *, keep_unreleased=False):
        self.max_norm = max_norm
        self.keep_unreleased = keep_unreleased

    def fit(self, X, y=None):
        from ._validation import check_matrix

        X = check_matrix(X, "X", dtype=float)
        b = check_positive(self.max_norm, "max_norm")
        keep = _check_flag(self.keep_unreleased, "keep_unreleased")
        self.n_features_in_ = X.shape[1]
        self.max_norm_ = b
        self.__dict__.pop("n_clipped_", None)  # from an earlier fit with keep_unreleased=True
        if keep:
            self.n_clipped_ = int(np.count_nonzero(self._norms(X) > b))
        return self

    @staticmethod
    def _norms(X):
        scale = np.max(np.abs(X), axis=1, keepdims=True)
        scale[scale == 0] = 1.0
        return np.linalg.norm(X / scale, axis=1) * scale[:, 0]

    def transform(self, X):
        from ._validation import check_matrix

        check_is_fitted(self, ("n_features_in_", "max_norm_"))
        X = check_matrix(X, "X", dtype=float)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} columns but the clipper was fitted on {self.n_features_in_}.")
        norms = self._norms(X)
        factor = np.minimum(1.0, self.max_norm_ / np.where(norms > 0, norms, 1.0))
        return X * factor[:, None]


class BoundedResponseRegressor(RegressorMixin, BaseEstimator):
    """Fit ``regressor`` on y mapped from a declared ``[low, high]`` to ``[-1, 1]``; predict back.

    ``y' = (clip(y, low, high) - (low + high)/2) / ((high - low)/2)``, so ``|y'| <= 1``, the bound
    the private estimators expect with ``clip=1``. Predictions are mapped back by the inverse
    affine map. The declared range is public knowledge and each response is mapped on its own, so
    the wrapper adds no privacy cost.

    Responses outside the declared range are clipped to it, which keeps the guarantee; ``fit``
    then warns (:class:`~fastmix._validation.ResponseClippingWarning`, with the count and the
    share, for the data holder), because a declared range that misses many responses silently
    ruins the fit.

    Parameters
    ----------
    regressor : a regressor (a private one of this package for a private fit)
    low, high : float
        The declared range of y (from documentation or domain knowledge, never from the data).
    keep_unreleased : bool, default=False
        Keep ``n_clipped_``, the number of responses clipped at fit: a count over the private
        records that no privacy guarantee covers, for the data holder only.

    Attributes
    ----------
    regressor_ : the fitted clone of ``regressor``
    privacy_ledger_ : the ledger of ``regressor_``
    """

    def __init__(self, regressor, low, high, *, keep_unreleased=False):
        self.regressor = regressor
        self.low = low
        self.high = high
        self.keep_unreleased = keep_unreleased

    def _bounds(self):
        lo, hi = float(self.low), float(self.high)
        if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
            raise ValueError(f"the declared response range must satisfy low < high, both finite; got ({lo}, {hi}).")
        return lo, hi

    def fit(self, X, y):
        lo, hi = self._bounds()
        keep = _check_flag(self.keep_unreleased, "keep_unreleased")
        y = np.asarray(y, dtype=float).ravel()
        if not np.all(np.isfinite(y)):
            raise ValueError("y has missing or infinite values; the declared range cannot bound them.")
        n_clipped = int(np.count_nonzero((y < lo) | (y > hi)))
        if n_clipped:
            warnings.warn(
                f"{n_clipped} of {y.size} responses ({n_clipped / y.size:.1%}) lie outside the declared range "
                f"[{lo:g}, {hi:g}] and were clipped to it: the fit sees the clipped values (private: each "
                "response is clipped alone). If many were clipped, the declared range is wrong for these "
                "responses; declare a wider one from what is known about y, not from the data.",
                ResponseClippingWarning,
                stacklevel=2,
            )
        self.__dict__.pop("n_clipped_", None)  # from an earlier fit with keep_unreleased=True
        self.regressor_ = clone(self.regressor).fit(X, (np.clip(y, lo, hi) - (lo + hi) / 2) / ((hi - lo) / 2))
        if keep:
            self.n_clipped_ = n_clipped
        return self

    def predict(self, X):
        check_is_fitted(self, "regressor_")
        lo, hi = self._bounds()
        return self.regressor_.predict(X) * ((hi - lo) / 2) + (lo + hi) / 2

    def publication_caveats(self) -> tuple[str, ...]:
        """Why this fitted wrapper must not be published (pickled and shared), one sentence each.

        Its own (``keep_unreleased=True`` keeps ``n_clipped_``, a count over the private
        responses) followed by those of ``regressor_`` (its ``publication_caveats()``: e.g. a
        seeded ``random_state``). Empty when it may be published; its predictions are covered by
        the regressor's guarantee either way.
        """
        check_is_fitted(self, "regressor_")
        own = (f"BoundedResponseRegressor was fitted with {_UNRELEASED_SENTENCE}.",) if _keeps_unreleased(self) else ()
        return own + tuple(_own_caveats(self.regressor_))

    @property
    def privacy_ledger_(self):
        return self.regressor_.privacy_ledger_

    @property
    def data_record_(self):
        return self.regressor_.data_record_


# -- the certificate ----------------------------------------------------------------------------

_HOW_TO_DECLARE = (
    "to make it provable, bound the data with RowNormClipper or BoundedTableEncoder (declared ranges and "
    "categories) or OneHotEncoder(categories=[...]) over declared categories"
)

#: scikit-learn steps known to learn their parameters from the data they are fitted to.
_FITTED_SKLEARN = (
    ("sklearn.preprocessing", "StandardScaler"),
    ("sklearn.preprocessing", "MinMaxScaler"),
    ("sklearn.preprocessing", "MaxAbsScaler"),
    ("sklearn.preprocessing", "RobustScaler"),
    ("sklearn.preprocessing", "QuantileTransformer"),
    ("sklearn.preprocessing", "PowerTransformer"),
    ("sklearn.preprocessing", "KBinsDiscretizer"),
    ("sklearn.preprocessing", "SplineTransformer"),
    ("sklearn.preprocessing", "OrdinalEncoder"),
    ("sklearn.preprocessing", "TargetEncoder"),
    ("sklearn.impute", "SimpleImputer"),
    ("sklearn.impute", "KNNImputer"),
    ("sklearn.decomposition", "PCA"),
    ("sklearn.decomposition", "TruncatedSVD"),
    ("sklearn.feature_selection", "VarianceThreshold"),
    ("sklearn.feature_selection", "SelectKBest"),
)


def _fitted_sklearn_types() -> tuple:
    import importlib

    found = []
    for module, name in _FITTED_SKLEARN:
        cls = getattr(importlib.import_module(module), name, None)
        if cls is not None:
            found.append(cls)
    return tuple(found)


def _worst(verdicts) -> str:
    verdicts = set(verdicts)
    if DATA_DEPENDENT in verdicts:
        return DATA_DEPENDENT
    return UNKNOWN if UNKNOWN in verdicts else DATA_INDEPENDENT


def _combine(kind: str, parts) -> tuple[str, str]:
    """The verdict of a composite step from ``parts`` = [(name, verdict, why), ...]."""
    verdict = _worst(v for _, v, _ in parts)
    if verdict == DATA_INDEPENDENT:
        return verdict, f"{kind}: every part is data-independent ({', '.join(n for n, _, _ in parts) or 'none'})"
    bad = "; ".join(f"{n}: {why}" for n, v, why in parts if v != DATA_INDEPENDENT)
    return verdict, f"{kind} with a part that is not proven data-independent: {bad}"


_REFIT = "refit it and certify right after fit (the certificate reads what was fitted)"


def _is_nan(value) -> bool:
    return isinstance(value, (float, np.floating)) and math.isnan(value)


def _same_categories(fitted, declared) -> bool:
    """Whether the fitted ``categories_`` of a OneHotEncoder are the declared lists, value by value."""
    try:
        declared = [list(values) for values in declared]
    except TypeError:
        return False
    if len(fitted) != len(declared):
        return False
    for got, want in zip(fitted, declared, strict=True):
        got = list(got)
        if len(got) != len(want):
            return False
        for a, b in zip(got, want, strict=True):
            try:
                same = bool(a == b)
            except (TypeError, ValueError):
                return False
            if not (same or (_is_nan(a) and _is_nan(b))):
                return False
    return True


def _one_hot_verdict(step) -> tuple[str, str]:
    if isinstance(step.categories, str):
        return DATA_DEPENDENT, (
            f"OneHotEncoder with categories={step.categories!r} learns the categories from the data; "
            "declare them: OneHotEncoder(categories=[[...], ...])"
        )
    rules = [f"{k}={getattr(step, k)!r}" for k in ("min_frequency", "max_categories") if getattr(step, k) is not None]
    if rules:
        return DATA_DEPENDENT, (
            f"OneHotEncoder with {', '.join(rules)} merges categories by how often they occur in the data; "
            "leave min_frequency and max_categories at None"
        )
    fitted = getattr(step, "categories_", None)
    if fitted is None:
        return UNKNOWN, f"OneHotEncoder is not fitted; {_REFIT}"
    if getattr(step, "_infrequent_enabled", False):
        return DATA_DEPENDENT, (
            "OneHotEncoder: it was fitted with min_frequency or max_categories, which merge categories by how "
            f"often they occur in the data; {_REFIT}"
        )
    if not _same_categories(fitted, step.categories):
        return DATA_DEPENDENT, (
            f"OneHotEncoder: its fitted categories differ from the declared ones: it was fitted with other "
            f"settings; {_REFIT}"
        )
    return DATA_INDEPENDENT, "OneHotEncoder over declared categories (a fixed map of each record)"


def _declared_map_verdict(step) -> tuple[str, str]:
    """A BoundedTableEncoder or RowNormClipper: data-independent if the fit used its current declarations."""
    name = type(step).__name__
    try:
        if type(step) is BoundedTableEncoder:
            if not hasattr(step, "divisor_"):
                return UNKNOWN, f"{name} is not fitted; {_REFIT}"
            ranges, cats, max_norm = step._check_declarations()
            same = (
                list(ranges.items()) == list(step._ranges.items())
                and list(cats.items()) == list(step._cats.items())
                and math.sqrt(len(ranges) + len(cats)) / max_norm == step.divisor_
            )
        else:
            if not hasattr(step, "max_norm_"):
                return UNKNOWN, f"{name} is not fitted; {_REFIT}"
            same = check_positive(step.max_norm, "max_norm") == step.max_norm_
    except (TypeError, ValueError):
        same = False
    if not same:
        return UNKNOWN, (
            f"{name}: its fitted declarations differ from its current parameters: it was fitted with other "
            f"settings, which the certificate cannot check; {_REFIT}"
        )
    why = f"{name}: a fixed map of each record from declared bounds"
    if _keeps_unreleased(step):
        why += " (it keeps n_clipped_, a count not covered by the guarantee: do not publish the fitted object)"
    return DATA_INDEPENDENT, why


def _column_transformer_verdict(step) -> tuple[str, str]:
    fitted = getattr(step, "transformers_", None)
    if fitted is None:
        return UNKNOWN, f"ColumnTransformer is not fitted; {_REFIT}"
    parts = []
    for name, _, columns in step.transformers:
        if callable(columns):
            parts.append(
                (name, UNKNOWN, "its columns are chosen by a function at fit (possibly from the data); list them")
            )
    # what was fitted and ran, the remainder included (``transformers`` may have been changed since)
    parts += [(name, *_step_verdict(t)) for name, t, _ in fitted]
    return _combine("ColumnTransformer", parts)


def _step_verdict(step) -> tuple[str, str]:
    """``(verdict, why)`` for a step before the final estimator (an allow-list; see the module docstring)."""
    from sklearn.compose import ColumnTransformer
    from sklearn.pipeline import FeatureUnion, Pipeline
    from sklearn.preprocessing import FunctionTransformer, OneHotEncoder

    if step is None or (isinstance(step, str) and step in ("passthrough", "drop")):
        return DATA_INDEPENDENT, f"{step!r} (no map, or the columns dropped)"
    kind = type(step)
    name = kind.__name__
    if kind in (BoundedTableEncoder, RowNormClipper):
        return _declared_map_verdict(step)
    if kind is OneHotEncoder:
        return _one_hot_verdict(step)
    if kind is ColumnTransformer:
        return _column_transformer_verdict(step)
    if kind is Pipeline:
        return _combine("Pipeline", [(n, *_step_verdict(s)) for n, s in step.steps])
    if kind is FeatureUnion:
        return _combine("FeatureUnion", [(n, *_step_verdict(s)) for n, s in step.transformer_list])
    if kind is FunctionTransformer:
        if step.func is None:  # the identity; scikit-learn's own stand-in for "passthrough"
            return DATA_INDEPENDENT, "FunctionTransformer without a function (the identity)"
        return UNKNOWN, (
            "FunctionTransformer: the certificate does not read code, and a function may use the whole data "
            f"set (e.g. divide by the largest row norm); {_HOW_TO_DECLARE}"
        )
    if isinstance(step, _fitted_sklearn_types()):
        return DATA_DEPENDENT, (
            f"{name} is fitted to the data (its parameters are statistics of the private records); {_HOW_TO_DECLARE}"
        )
    return UNKNOWN, (
        f"{name} is not on the list of steps whose maps the certificate can check from their parameters "
        f"(a data_independent attribute is not trusted); {_HOW_TO_DECLARE}"
    )


def _is_fastmix_class(obj) -> bool:
    module = type(obj).__module__ or ""
    return module == "fastmix" or module.startswith("fastmix.")


def _option_reasons(est) -> list:
    """What ``est.non_private_options()`` says broke the guarantee (nothing when it has no such method)."""
    options = getattr(type(est), "non_private_options", None)
    return [str(r) for r in options(est)] if callable(options) else []


def _ledger_verdict(est, ledger, extra_reasons=()) -> tuple[str, str, PrivacyLedger | None]:
    name = type(est).__name__
    if not isinstance(ledger, PrivacyLedger):
        return UNKNOWN, f"{name} has no fitted privacy ledger (not fitted, or not a private estimator)", None
    if not ledger.entries:
        return UNKNOWN, f"{name}'s privacy ledger records no release", None
    reasons = list(dict.fromkeys([*ledger.not_private_reasons, *_option_reasons(est), *extra_reasons]))
    stated = getattr(type(est), "privacy_relation", None)
    if stated is not None and stated != ledger.relation:
        reasons.append(f"{name} states {stated} neighbours but its ledger composes {ledger.relation} guarantees")
    if not ledger.private or reasons:
        return NOT_PRIVATE, f"{name} was fitted with an option that breaks its guarantee: {' '.join(reasons)}", ledger
    return (
        PRIVATE,
        f"{name} fitted privately: (epsilon={ledger.total_epsilon:.6g}, delta={ledger.total_delta:.3g}) under "
        f"{ledger.relation} neighbours (its privacy ledger)",
        ledger,
    )


def _estimator_verdict(est) -> tuple[str, str, PrivacyLedger | None]:
    """``(verdict, why, ledger)`` for the final estimator: PRIVATE, NOT_PRIVATE or UNKNOWN."""
    from .model_selection import PrivateGridSearch

    kind = type(est)
    if kind is BoundedResponseRegressor:
        inner = getattr(est, "regressor_", None)
        if inner is None:
            return UNKNOWN, "BoundedResponseRegressor is not fitted", None
        verdict, why, ledger = _estimator_verdict(inner)
        return verdict, f"BoundedResponseRegressor (y mapped from the declared [low, high]) around {why}", ledger
    if kind is PrivateGridSearch:
        best = getattr(est, "best_estimator_", None)
        if best is None:
            return UNKNOWN, "PrivateGridSearch is not fitted", None
        verdict, why, _ = _estimator_verdict(best)
        if verdict == UNKNOWN:
            return UNKNOWN, f"PrivateGridSearch over an estimator the certificate cannot check: {why}", None
        candidates = []
        if callable(getattr(type(est.estimator), "non_private_options", None)):
            for params in getattr(est, "candidates_", ()):
                candidates += _option_reasons(clone(est.estimator).set_params(**params))
        if verdict == NOT_PRIVATE:
            candidates.append(why)
        return _ledger_verdict(est, getattr(est, "privacy_ledger_", None), candidates)
    if not _is_fastmix_class(est):
        name = kind.__name__ if not isinstance(est, str) else repr(est)
        return (
            UNKNOWN,
            f"{name} is not a private estimator of fastmix; the certificate cannot check its guarantee",
            None,
        )
    return _ledger_verdict(est, getattr(est, "privacy_ledger_", None))


# -- what the fitted object itself holds (publication) ----------------------------------------------

_RANDOM_STATE_TYPES = (np.random.Generator, np.random.BitGenerator, np.random.SeedSequence, np.random.RandomState)

_UNRELEASED_SENTENCE = (
    "keep_unreleased=True: it keeps n_clipped_, a count over the private records that no privacy guarantee "
    "covers; refit with keep_unreleased=False before publishing the fitted object"
)


def _keeps_unreleased(step) -> bool:
    """``keep_unreleased=True`` now, or a count kept by the fit (``n_clipped_``)."""
    flag = getattr(step, "keep_unreleased", False)
    return (isinstance(flag, (bool, np.bool_)) and bool(flag)) or "n_clipped_" in getattr(step, "__dict__", {})


def _sub_steps(step) -> list:
    """``[(name, part), ...]`` of a composite step, as fitted (a ColumnTransformer's ``transformers_``)."""
    from sklearn.compose import ColumnTransformer
    from sklearn.pipeline import FeatureUnion, Pipeline

    kind = type(step)
    if kind is Pipeline:
        return list(step.steps)
    if kind is FeatureUnion:
        return list(step.transformer_list)
    if kind is ColumnTransformer:
        return [(n, t) for n, t, _ in getattr(step, "transformers_", step.transformers)]
    return []


def _step_caveats(name, step) -> list:
    """Why a step before the estimator (or a part of it) must not be published."""
    out = [f"{name}: {type(step).__name__} was fitted with {_UNRELEASED_SENTENCE}."] if _keeps_unreleased(step) else []
    for part_name, part in _sub_steps(step):
        out += _step_caveats(f"{name}/{part_name}", part)
    return out


def _own_caveats(est) -> list:
    """``est.publication_caveats()``, or the same checks made here for an estimator without the method."""
    from sklearn.exceptions import NotFittedError

    if callable(getattr(type(est), "publication_caveats", None)):
        try:
            return [str(c) for c in est.publication_caveats()]
        except NotFittedError:  # not fitted: nothing to publish (the estimator's verdict says so)
            return []
    name = type(est).__name__
    out = []
    flag = getattr(est, "keep_unreleased", False)
    if isinstance(flag, (bool, np.bool_)) and bool(flag):
        out.append(
            f"{name} was fitted with keep_unreleased=True: it keeps statistics of the private records that no "
            "privacy guarantee covers (such as the largest row norm); refit with keep_unreleased=False to publish."
        )
    seed = getattr(est, "random_state", None)
    if seed is not None:
        shown = repr(seed) if isinstance(seed, (int, np.integer)) else type(seed).__name__
        out.append(
            f"{name} was fitted with random_state={shown}: whoever holds the seed can recompute the privacy noise "
            "and subtract it from the release; refit with random_state=None to publish."
        )
    if getattr(getattr(est, "feature_map_", None), "_points", None) is not None:
        out.append(
            f"{name} was fitted with the exact path sampler: its feature_map_ holds the training inputs X (its "
            "predictions are private, the object is not); refit with sampler='approximate' to publish."
        )
    return out


def _covered_estimators(est) -> list:
    """``est`` and the estimators inside it whose seed its publication caveats account for."""
    from .model_selection import PrivateGridSearch

    inner = []
    if type(est) is BoundedResponseRegressor:  # the template's seed is the fitted clone's
        inner = [est.regressor, getattr(est, "regressor_", None)]
    elif type(est) is PrivateGridSearch:  # the template's seed is replaced by the search's draws
        inner = [est.estimator, getattr(est, "best_estimator_", None)]
    return [est] + [e for i in inner if i is not None for e in _covered_estimators(i)]


def _random_states(obj, checked, path="", seen=None, depth=0) -> list:
    """Paths of the random generators (and seed sequences) held in the fitted state of ``obj``."""
    seen = set() if seen is None else seen
    if id(obj) in seen or depth > 8 or isinstance(obj, (str, bytes, np.ndarray, np.generic, int, float)):
        return []
    seen.add(id(obj))  # each generator once, under the first path that reaches it
    if isinstance(obj, _RANDOM_STATE_TYPES):
        return [path]
    if isinstance(obj, Mapping):
        items = [(f"{path}[{k!r}]", v) for k, v in obj.items()]
    elif isinstance(obj, (list, tuple)):
        items = [(f"{path}[{i}]", v) for i, v in enumerate(obj)]
    elif (type(obj).__module__ or "").split(".")[0] in ("fastmix", "sklearn") and hasattr(obj, "__dict__"):
        skip = "random_state" if id(obj) in checked else None  # a seed already reported (or None)
        items = [(f"{path}.{k}" if path else k, v) for k, v in vars(obj).items() if k != skip]
    else:
        return []
    return [found for key, value in items for found in _random_states(value, checked, key, seen, depth + 1)]


def _flat_steps(pipeline, prefix="") -> list:
    from sklearn.pipeline import Pipeline

    if type(pipeline) is not Pipeline:
        return [(prefix or "estimator", pipeline)]
    *pre, (last_name, last) = pipeline.steps
    out = [(prefix + name, step) for name, step in pre]
    if type(last) is Pipeline:  # a pipeline ending in a pipeline: its steps, in order
        return out + _flat_steps(last, prefix + last_name + "/")
    return [*out, (prefix + last_name, last)]


def pipeline_privacy_record(pipeline) -> dict:
    """A certificate for a fitted pipeline: is its final estimator's privacy guarantee end to end?

    Two questions, answered apart. ``private_end_to_end``: are the pipeline's *outputs* (its
    predictions, the coefficients its estimator releases) covered by the estimator's guarantee
    for the records of the raw table? ``publishable``: may the fitted pipeline *object* itself be
    published (pickled and shared)? It may hold more than its outputs, such as counts over the
    private records or the seed of the noise, so an object can be private end to end and still
    not publishable. Certify right after ``fit``: see "Fitted state" below.

    **What it proves.** ``private_end_to_end`` is True only when (1) every step before the final
    estimator is proven *data-independent*: a fixed map, declared in advance and applied to each
    record on its own, so that changing or removing one record of the input changes or removes
    exactly its row of the matrix the estimator sees, and nothing else — the neighbouring relation
    the estimators' guarantees are stated for; and (2) the final estimator is one of this
    package's private estimators fitted privately, as its privacy ledger says
    (``privacy_ledger_.private``, and no option listed by ``non_private_options()``). The
    guarantee is then the estimator's: ``epsilon`` and ``delta`` (the ledger's totals) under
    ``relation`` neighbours ("zero-out" or "replace-one"; convert with
    :meth:`fastmix.accounting.LedgerEntry.as_relation` if you need the other).

    **The allow-list.** A step is data-independent only if it is ``"passthrough"``, ``"drop"``,
    None or the identity ``FunctionTransformer()``; a :class:`BoundedTableEncoder` or
    :class:`RowNormClipper` (these classes exactly: a ``data_independent`` attribute on another
    class is not trusted); a ``OneHotEncoder`` with declared categories (a list, not ``"auto"``)
    and ``min_frequency=None, max_categories=None`` (any ``drop`` is then resolved from the
    declared lists alone: ``"first"``, ``"if_binary"`` or an array pick fixed columns); a
    ``ColumnTransformer`` whose columns are listed (not chosen by a function) and whose fitted
    transformers and remainder are all data-independent; or a ``Pipeline`` or ``FeatureUnion``
    whose steps all are, inspected recursively. A final step that is itself a ``Pipeline`` is
    unrolled (its steps are named ``"outer/inner"``).

    **Fitted state, not only parameters.** A step's parameters can be changed after ``fit``
    (``set_params``) without changing what was fitted, so the certificate reads the fitted state
    where it can: a ``OneHotEncoder``'s fitted ``categories_`` must equal its declared
    ``categories`` (else it was fitted with other settings, e.g. ``"auto"``, and is
    data-dependent) and it must not have been fitted with frequency rules; a
    :class:`BoundedTableEncoder` or :class:`RowNormClipper` must have been fitted with its current
    declarations (ranges, categories, ``max_norm``; else *unknown*); a ``ColumnTransformer`` is
    judged by its fitted ``transformers_`` (what ran, the remainder included), not by its
    ``transformers`` parameter. A step that is not fitted is *unknown*.

    **What it cannot prove.** It does not read code. Any other step is either *data-dependent*
    (scalers, imputers, ``OneHotEncoder(categories="auto")`` or with frequency rules, PCA, ...:
    their parameters are statistics of the records) or *unknown* (a ``FunctionTransformer`` with
    a function, even an innocent one, or a class it does not know), and either makes
    ``private_end_to_end`` False, with a ``why`` saying how to declare the step instead (usually
    :class:`RowNormClipper` or :class:`BoundedTableEncoder` with declared bounds). Likewise a
    final estimator that is not this package's (or not fitted) is unknown. A ``OneHotEncoder``
    with ``handle_unknown="error"`` stops the fit on a value outside the declared categories,
    as the estimators' ``row_norm_policy="raise"`` does on a row that is too long.

    It sees the pipeline as it is now. A step *replaced* after fitting (e.g.
    ``set_params(scaler="passthrough")`` on a pipeline fitted with a ``StandardScaler``) is out
    of its reach: the scaler that shaped the estimator's fit is gone from the object, and
    ``"passthrough"`` is data-independent. (The estimator's ``n_features_in_`` may reveal a
    replacement that changed the number of columns, never a replaced scaler.) A
    ``ColumnTransformer`` whose columns were chosen by a function is recognised from its current
    ``transformers`` only. So certify a pipeline right after ``fit``, and refit it after changing
    any of its parameters.

    **Publication.** ``publication_caveats`` lists, one sentence each naming its step, why the
    fitted object must not be published: a step (or a part of one) fitted with
    ``keep_unreleased=True``, which keeps ``n_clipped_``, a count over the private records; and
    what the final estimator's ``publication_caveats()`` reports (``keep_unreleased=True``, a
    seeded ``random_state``, whose holder can recompute the noise and subtract it, the exact
    path sampler of :class:`~fastmix.kernels.DPRandomProjectionKRR` holding the training inputs
    in ``feature_map_``), or the same checks made here for an estimator without that method;
    and any random generator or seed sequence kept in the estimator's fitted state (the noise
    may be recomputed from its seed). Inside a :class:`BoundedResponseRegressor` or a
    :class:`~fastmix.model_selection.PrivateGridSearch` the fitted estimator is read too.
    ``publishable`` is True only when ``private_end_to_end`` is and there is no caveat: fit with
    the defaults ``keep_unreleased=False`` and ``random_state=None`` (and
    ``sampler="approximate"`` for the random-projection learners) to publish. Publishing the
    outputs alone (predictions, released coefficients) needs only ``private_end_to_end``.

    Returns
    -------
    dict
        ``steps``: ``[(name, ok, why), ...]``, one per step, the final estimator last (``ok`` is
        True for a data-independent step and for a private estimator); ``verdicts``: ``{name:
        verdict}`` with :data:`DATA_INDEPENDENT`, :data:`DATA_DEPENDENT` or :data:`UNKNOWN` for the
        steps and :data:`PRIVATE`, :data:`NOT_PRIVATE` or :data:`UNKNOWN` for the estimator;
        ``estimator_private``; ``private_end_to_end`` (the outputs); ``publishable`` (the fitted
        object) and ``publication_caveats`` (list of str); ``epsilon``, ``delta`` and
        ``relation`` of the estimator's guarantee (None unless ``estimator_private``; they cover
        the raw records only when ``private_end_to_end``).
    """
    *pre, (last_name, last) = _flat_steps(pipeline)
    record, verdicts, caveats = [], {}, []
    for name, step in pre:
        verdict, why = _step_verdict(step)
        record.append((name, verdict == DATA_INDEPENDENT, why))
        verdicts[name] = verdict
        caveats += _step_caveats(name, step)
    verdict, why, ledger = _estimator_verdict(last)
    est_private = verdict == PRIVATE
    record.append((last_name, est_private, why))
    verdicts[last_name] = verdict
    caveats += [f"{last_name}: {c}" for c in _own_caveats(last)]
    held = _random_states(last, {id(e) for e in _covered_estimators(last)})
    if held:
        caveats.append(
            f"{last_name}: its fitted state holds a random generator ({', '.join(held)}); if the privacy noise "
            "was drawn from the same seed, whoever holds the object can recompute the noise and subtract it, "
            "which the certificate cannot rule out: publish the outputs, not the fitted object."
        )
    end_to_end = est_private and all(ok for _, ok, _ in record[:-1])
    caveats = list(dict.fromkeys(caveats))
    return {
        "steps": record,
        "verdicts": verdicts,
        "estimator_private": est_private,
        "private_end_to_end": end_to_end,
        "publishable": end_to_end and not caveats,
        "publication_caveats": caveats,
        "epsilon": ledger.total_epsilon if est_private else None,
        "delta": ledger.total_delta if est_private else None,
        "relation": ledger.relation if est_private else None,
    }
