"""Bounding a Dask DataFrame (read from Parquet or CSV) into the row-chunked X the solvers take.

:class:`fastmix.preprocessing.BoundedTableEncoder` sends a Dask DataFrame here. Its encoding uses
only the declared ranges and categories, row by row, so each partition is encoded on its own and
the result is exactly the in-memory encoding of the whole table: a Dask array with one row chunk
per partition, whose lengths are counted once (one pass that reads no more than the declared
columns). Nothing is gathered into this process.
"""

from __future__ import annotations

import numpy as np

from .._validation import register_dask_route


def _declared(encoder) -> list:
    return list(encoder._ranges) + list(encoder._cats)


def _check_columns(encoder, X) -> None:
    missing = [c for c in _declared(encoder) if c not in X.columns]
    if missing:
        raise ValueError(
            f"X has no column(s) {missing}; it has {list(X.columns)}. Declare bounds for the columns X holds."
        )


@register_dask_route("preprocessing.count_outside")
def count_outside(encoder, X, count: bool) -> dict:
    """The declared columns checked on the Dask DataFrame's schema; the counts (if asked) summed over partitions."""
    _check_columns(encoder, X)
    if not count:
        return {}
    import dask

    parts = [
        dask.delayed(lambda pdf: encoder._encode(pdf, count=True)[1])(p) for p in X[_declared(encoder)].to_delayed()
    ]
    totals: dict = {}
    for counts in dask.compute(*parts):
        for col, k in counts.items():
            totals[col] = totals.get(col, 0) + int(k)
    return totals


def _per_partition(frame, encode, width: int | None):
    """A Dask array with one row chunk per partition of ``frame``: ``encode(partition)``, ``width`` columns
    (None: a vector). The partitions are fixed once and counted first (one pass), so the chunk sizes are known."""
    import dask
    import dask.array as da

    parts = frame.to_delayed()
    lengths = [int(n) for n in dask.compute(*[dask.delayed(len)(p) for p in parts])]
    tail = () if width is None else (width,)
    blocks = [
        da.from_delayed(dask.delayed(encode)(part), shape=(n, *tail), dtype=np.float64)
        for part, n in zip(parts, lengths, strict=True)
        if n > 0
    ]
    if not blocks:
        return da.zeros((0, *tail), chunks=((0,), *((t,) for t in tail)))
    return da.concatenate(blocks, axis=0)


@register_dask_route("preprocessing.encode_table")
def encode_table(encoder, X):
    """One Dask row chunk per partition of the declared columns, encoded (:func:`_per_partition`)."""
    _check_columns(encoder, X)
    return _per_partition(X[_declared(encoder)], lambda pdf: encoder._encode(pdf)[0], int(encoder.n_features_out_))


@register_dask_route("preprocessing.table_column")
def table_column(table, name):
    """One Dask chunk per partition of ``table[name]`` as float64, partitioned as :func:`encode_table` partitions."""
    if name not in table.columns:
        raise ValueError(f"the table has no column {name!r}; it has {list(table.columns)}.")
    return _per_partition(table[[name]], lambda pdf: pdf[name].to_numpy(dtype=np.float64), None)
