"""The bounding tools: fixed maps from declared bounds to rows of norm at most 1 and responses in [-1, 1].

See :mod:`fastmix.preprocessing` for why every map here depends only on what the user declares.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin, TransformerMixin, clone
from sklearn.utils.validation import check_is_fitted

from .._publication import PublicationMixin
from .._validation import check_positive, dask_route, warn_responses_clipped
from ._caveats import _UNRELEASED_SENTENCE, _keeps_unreleased, _own_caveats


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


class _KeptCounts(PublicationMixin):
    """Mixin of the bounding transformers: a fitted one that kept ``n_clipped_`` says so, and warns when pickled."""

    def publication_caveats(self) -> tuple[str, ...]:
        """``("<Class> was fitted with keep_unreleased=True: ...",)`` when it holds ``n_clipped_``, else ``()``."""
        return (
            (f"{type(self).__name__} was fitted with {_UNRELEASED_SENTENCE}.",) if "n_clipped_" in self.__dict__ else ()
        )


@dask_route("preprocessing.count_outside", on="X")
def count_outside(encoder, X, count: bool) -> dict:
    """Check that ``X`` holds the encoder's declared columns; with ``count``, the values outside the declarations."""
    return encoder._encode(X, count=count)[1]


@dask_route("preprocessing.encode_table", on="X")
def encode_table(encoder, X) -> np.ndarray:
    """The fitted encoder's rows of ``X`` (see :meth:`BoundedTableEncoder.transform`)."""
    return encoder._encode(X)[0]


@dask_route("preprocessing.table_column", on="table")
def table_column(table, name) -> np.ndarray:
    """Column ``name`` of a table as a float vector: the response to fit on a :class:`BoundedTableEncoder`'s rows.

    For a Dask DataFrame, a Dask vector with one chunk per partition, built as the encoder builds its
    rows, so the two line up (``table[name].to_dask_array`` builds a separate graph that a
    distributed fit may not combine with the encoder's).
    """
    (v,) = _columns(table, [name])
    return v.astype(np.float64)


class BoundedTableEncoder(_KeptCounts, TransformerMixin, BaseEstimator):
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

    Notes
    -----
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
        clipped = count_outside(self, X, keep)  # also checks that X holds the declared columns
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
        """The bounded rows; a Dask DataFrame gives a Dask array with one row chunk per partition.

        The encoding is data-independent and row by row, so encoding each partition on its own is
        exact: the same rows as encoding the whole table at once.
        """
        check_is_fitted(self, "divisor_")
        return encode_table(self, X)

    def get_feature_names_out(self, input_features=None):
        check_is_fitted(self, "feature_names_out_")
        return np.asarray(self.feature_names_out_, dtype=object)


class RowNormClipper(_KeptCounts, TransformerMixin, BaseEstimator):
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
        from .._validation import check_matrix

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
        from .._validation import check_matrix

        check_is_fitted(self, ("n_features_in_", "max_norm_"))
        X = check_matrix(X, "X", dtype=float)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} columns but the clipper was fitted on {self.n_features_in_}.")
        norms = self._norms(X)
        factor = np.minimum(1.0, self.max_norm_ / np.where(norms > 0, norms, 1.0))
        return X * factor[:, None]


class BoundedResponseRegressor(PublicationMixin, RegressorMixin, BaseEstimator):
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
            warn_responses_clipped(
                n_clipped,
                y.size,
                f"the declared range [{lo:g}, {hi:g}]",
                "declare a wider range from what is known about y, not from the data.",
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
