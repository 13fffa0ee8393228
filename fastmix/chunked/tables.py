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


@register_dask_route("preprocessing.encode_table")
def encode_table(encoder, X):
    """One Dask row chunk per partition, the partitions' lengths counted first (one pass over the declared columns)."""
    import dask
    import dask.array as da

    _check_columns(encoder, X)
    parts = X[_declared(encoder)].to_delayed()  # the partitions, fixed once for the counts and the blocks
    lengths = [int(n) for n in dask.compute(*[dask.delayed(len)(p) for p in parts])]
    width = int(encoder.n_features_out_)
    blocks = [
        da.from_delayed(dask.delayed(lambda pdf: encoder._encode(pdf)[0])(part), shape=(n, width), dtype=np.float64)
        for part, n in zip(parts, lengths, strict=True)
        if n > 0
    ]
    if not blocks:
        return da.zeros((0, width), chunks=((0,), (width,)))
    return da.concatenate(blocks, axis=0)


@register_dask_route("preprocessing.table_column")
def table_column(table, name):
    """One Dask chunk per partition of ``table[name]`` as float64, partitioned as :func:`encode_table` partitions."""
    import dask
    import dask.array as da

    if name not in table.columns:
        raise ValueError(f"the table has no column {name!r}; it has {list(table.columns)}.")
    parts = table[[name]].to_delayed()
    lengths = [int(n) for n in dask.compute(*[dask.delayed(len)(p) for p in parts])]
    blocks = [
        da.from_delayed(
            dask.delayed(lambda pdf: pdf[name].to_numpy(dtype=np.float64))(part), shape=(n,), dtype=np.float64
        )
        for part, n in zip(parts, lengths, strict=True)
        if n > 0
    ]
    return da.concatenate(blocks) if blocks else da.zeros((0,), chunks=((0,),))
