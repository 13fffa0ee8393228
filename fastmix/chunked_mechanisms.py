"""Deprecated: moved to :mod:`fastmix.chunked.mechanisms` (same names); this alias will be removed."""

from __future__ import annotations

import warnings

from .chunked.mechanisms import (
    CHUNKED_ROW_POLICIES,
    ChunkedMechanismData,
    ChunkedRowStatistics,
    chunked_row_statistics,
    clip_rows,
    prepare_chunked,
)

__all__ = ["ChunkedRowStatistics", "chunked_row_statistics", "clip_rows", "ChunkedMechanismData", "prepare_chunked"]
__all__ += ["CHUNKED_ROW_POLICIES"]

warnings.warn(
    "fastmix.chunked_mechanisms moved to fastmix.chunked.mechanisms (same names); import it from there. "
    "The old name will be removed in a future release.",
    FutureWarning,
    stacklevel=2,
)
