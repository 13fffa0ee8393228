"""Appendix F of the FastMix paper: the coherence of the SRHT between Welch's bound and eq. (241).

The coherence ``Delta_hat = max_{i != j} |(S_f^T S_f)_{ij}|`` of an SRHT with ``k`` rows
(:meth:`fastmix.srht.SRHT.coherence`, one length-``n`` transform, eq. 123) is measured for
independent draws at several ``n`` and a log-spaced grid of ``k`` from 16 to ``n/2``, next to
Welch's lower bound (eq. 240, :func:`fastmix.srht.welch_bound`), the heuristic
``sqrt(2 ln(2n)/k)`` (:func:`fastmix.srht.coherence_heuristic`) and the scale
``log(n/rho)/sqrt(k)`` of the upper bound (241) (:func:`fastmix.srht.coherence_upper_scale`).
A second table draws the sizes at which the authors' experiments report typical coherences
(``n = 2^17``; reference-code notes, not the paper).

Tables
------
``coherence``
    One row per ``n``, ``k`` and draw: ``log2_n, n, k, draw, coherence, welch, heuristic,
    upper_scale`` (the last with constant 1). A cell is one ``(n, k)`` with all its draws.
``reference``
    One row per reference size and draw: ``n, k, draw, coherence, authors_value``.

Each draw has its own seed ``SeedSequence(seed, spawn_key=(log2_n, k, draw))``.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from . import CellTable

__all__ = ["NOTEBOOK", "DEFAULTS", "AUTHORS_REFERENCE", "run", "k_grid", "log2_ns"]

NOTEBOOK = "appendix_f_coherence"

DEFAULTS: dict[str, Any] = {
    "log2_ns": "12,16,20",
    "n_draws": 20,
    "k_per_octave": 2,
    "rho": 0.05,
    "upper_constant": 1.0,
    "seed": 0,
}
"""The smoke-scale defaults (the notebook's); ``notebooks/paper_scale.json`` holds the paper's."""

AUTHORS_REFERENCE = {"log2_n": 17, "values": ((280, 0.26), (7000, 0.052), (14000, 0.041))}
"""Typical coherences the authors' experiments report at ``n = 2^17`` (reference-code notes)."""


def log2_ns(params) -> list[int]:
    """The ``log2 n`` values of ``params["log2_ns"]`` ("12,17,20" or a list)."""
    return [int(v) for v in re.findall(r"\d+", str(params["log2_ns"]))]


def k_grid(n: int, k_per_octave: int) -> np.ndarray:
    """Log-spaced ``k`` from 16 to ``n/2``, ``k_per_octave`` values per factor of two."""
    n_k = int(k_per_octave * (np.log2(n // 2) - 4)) + 1
    return np.unique(np.round(np.geomspace(16, n // 2, n_k)).astype(int))


def _draws(n: int, k: int, n_draws: int, seed: int, tag: int) -> list[float]:
    from ..srht import SRHT

    return [SRHT(n, int(k), random_state=np.random.SeedSequence(seed, spawn_key=(tag, int(k), r))).coherence()
            for r in range(n_draws)]


def run(params, store=None, log=print) -> dict:
    """Compute Appendix F's tables (see the module docstring); resumable with a store."""
    from ..srht import coherence_heuristic, coherence_upper_scale, welch_bound

    n_draws, seed, rho = int(params["n_draws"]), int(params["seed"]), float(params["rho"])
    table = CellTable(store, "coherence", log)
    for lg in log2_ns(params):
        n = 2**lg
        for k in k_grid(n, int(params["k_per_octave"])):
            def cell(n=n, k=int(k), lg=lg):
                values = _draws(n, k, n_draws, seed, lg)
                w, h = welch_bound(n, k), float(coherence_heuristic(n, k))
                u = float(coherence_upper_scale(n, k, rho))
                return [{"log2_n": lg, "n": n, "k": k, "draw": r, "coherence": v, "welch": w, "heuristic": h,
                         "upper_scale": u} for r, v in enumerate(values)]

            table.compute(f"n=2^{lg}|k={int(k)}", cell)
    ref = CellTable(store, "reference", log)
    lg = AUTHORS_REFERENCE["log2_n"]
    for k, theirs in AUTHORS_REFERENCE["values"]:
        def cell(k=k, theirs=theirs):
            values = _draws(2**lg, k, n_draws, seed, 1000 + lg)
            return [{"n": 2**lg, "k": k, "draw": r, "coherence": v, "authors_value": theirs}
                    for r, v in enumerate(values)]

        ref.compute(f"n=2^{lg}|k={k}", cell)
    return {"coherence": table.frame(), "reference": ref.frame()}
