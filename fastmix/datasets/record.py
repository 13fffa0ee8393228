"""The :class:`Dataset` record that every generator and loader of :mod:`fastmix.datasets` returns.

A dataset of the FastMix paper's experiments (arXiv:2605.30600, Appendices H-J) is the pair
``(X, y)`` together with where it came from and what was done to it: source, licence,
citation, checksums of the raw files, the scale factors of the Appendix H normalisation,
the number of raw rows and every preprocessing step with its counts. Nothing is dropped
silently: a step that removes, adds or clips rows says so in :attr:`Dataset.preprocessing`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["Dataset"]

FASTMIX_PAPER = (
    "O. Lev, M. Shenfeld, V. Srinivasan, K. Ligett, A. C. Wilson (2026), The Fast Mixing Mechanism for Differential "
    "Privacy, arXiv:2605.30600."
)


def _as_design(X) -> np.ndarray:
    """float64, column-major (so ``X.T`` is C-contiguous: the transform-ready layout)."""
    return np.asarray(X, dtype=np.float64, order="F")


@dataclass(frozen=True, eq=False)
class Dataset:
    """A regression dataset ``(X, y)`` together with where it came from and what was done to it.

    Attributes
    ----------
    X : ndarray of shape (n, d)
        Design matrix, float64, Fortran (column-major) order so that ``X.T`` is a
        C-contiguous batch for :func:`fastmix.hadamard.fwht`.
    y : ndarray of shape (n,)
        Responses, float64.
    name : str
        Registry name (see :data:`DATASETS`).
    description : str
        One-line description.
    source : str
        URL or package the raw data came from.
    license : str
        Licence of the raw data as far as known ("see source" when unknown).
    citation : str
        How to cite the raw data.
    sha256 : str or None
        SHA-256 of the main raw file; ``None`` for generated or package-bundled data.
    x_scale, y_scale : float
        Factors the raw values were *multiplied* by (``X = x_scale * X_raw``,
        ``y = y_scale * y_raw`` before any clipping); 1.0 when not rescaled.
    n_raw : int
        Number of rows before any cleaning or subsampling.
    preprocessing : tuple of str
        Human-readable list of the steps actually applied, in order, each with counts
        of rows removed, added or clipped.
    raw_files : tuple of (str, str)
        ``(file name, sha256)`` of every raw file read.
    params : mapping
        Parameters of the generator or loader call (seed, n, d, ...).
    """

    X: np.ndarray
    y: np.ndarray
    name: str
    description: str
    source: str
    license: str
    citation: str
    sha256: str | None = None
    x_scale: float = 1.0
    y_scale: float = 1.0
    n_raw: int = 0
    preprocessing: tuple[str, ...] = ()
    raw_files: tuple[tuple[str, str], ...] = ()
    params: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self):
        X = _as_design(self.X)
        y = np.asarray(self.y, dtype=np.float64).reshape(-1)
        if X.ndim != 2:
            raise ValueError(f"Dataset.X must be 2-D; got shape {X.shape}.")
        if y.shape[0] != X.shape[0]:
            raise ValueError(f"Dataset.y has {y.shape[0]} entries but X has {X.shape[0]} rows.")
        object.__setattr__(self, "X", X)
        object.__setattr__(self, "y", y)
        object.__setattr__(self, "preprocessing", tuple(self.preprocessing))
        object.__setattr__(self, "raw_files", tuple(tuple(f) for f in self.raw_files))
        object.__setattr__(self, "params", dict(self.params))

    @property
    def n(self) -> int:
        """Number of rows of ``X``."""
        return int(self.X.shape[0])

    @property
    def d(self) -> int:
        """Number of columns of ``X``."""
        return int(self.X.shape[1])

    def provenance(self) -> dict:
        """JSON-serialisable description of the data: source, checksums, sizes and preprocessing."""
        params = {}
        for key, value in self.params.items():
            if isinstance(value, np.ndarray):
                value = value.tolist()
            elif isinstance(value, (np.integer, np.floating)):
                value = value.item()
            params[key] = value
        return {
            "name": self.name,
            "description": self.description,
            "source": self.source,
            "license": self.license,
            "citation": self.citation,
            "sha256": self.sha256,
            "raw_files": [list(f) for f in self.raw_files],
            "n_raw": int(self.n_raw),
            "n": self.n,
            "d": self.d,
            "x_scale": float(self.x_scale),
            "y_scale": float(self.y_scale),
            "preprocessing": list(self.preprocessing),
            "params": params,
        }

    def __repr__(self) -> str:  # arrays are large: show the shape only
        return (
            f"Dataset(name={self.name!r}, n={self.n}, d={self.d}, n_raw={self.n_raw}, "
            f"x_scale={self.x_scale:.6g}, y_scale={self.y_scale:.6g}, steps={len(self.preprocessing)})"
        )


def _seed_label(random_state):
    if random_state is None or isinstance(random_state, (int, np.integer)):
        return None if random_state is None else int(random_state)
    return type(random_state).__name__
