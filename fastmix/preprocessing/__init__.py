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
fitted step is gone from the object: certify right after ``fit``. Nor can it tell a category
list you wrote down from one copied out of an encoder fitted with ``categories="auto"``: such a
list is a statistic of the records (which categories occur), so declare categories from the
data's documentation, never from the data.

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

**Tables that do not fit in memory.** A Dask DataFrame (``dask.dataframe.read_parquet`` or
``read_csv``) goes through :class:`BoundedTableEncoder` partition by partition, which is exact since
the encoding is data-independent; :func:`table_column` gives the response lined up with its rows.
"""

from __future__ import annotations

from .bounding import BoundedResponseRegressor, BoundedTableEncoder, RowNormClipper, table_column
from .certificate import (
    DATA_DEPENDENT,
    DATA_INDEPENDENT,
    NOT_PRIVATE,
    PRIVATE,
    UNKNOWN,
    pipeline_privacy_record,
    step_verdicts,
)

__all__ = [
    "BoundedTableEncoder",
    "RowNormClipper",
    "BoundedResponseRegressor",
    "table_column",
    "pipeline_privacy_record",
    "step_verdicts",
    "DATA_INDEPENDENT",
    "DATA_DEPENDENT",
    "UNKNOWN",
    "PRIVATE",
    "NOT_PRIVATE",
]
