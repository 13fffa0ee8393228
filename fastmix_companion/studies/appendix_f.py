"""Appendix F of the FastMix paper: the coherence of the SRHT between Welch's bound and eq. (241).

The coherence ``Delta_hat = max_{i != j} |(S_f^T S_f)_{ij}|`` of an SRHT with ``k`` rows
(:meth:`fastmix.srht.SRHT.coherence`, one length-``n`` transform, eq. 123) is measured for
independent draws at several ``n`` and a log-spaced grid of ``k`` from 16 to ``n/2``, next to
Welch's lower bound (eq. 240, :func:`fastmix.srht.welch_bound`), the heuristic
``sqrt(2 ln(2n)/k)`` (:func:`fastmix.srht.coherence_heuristic`) and the scale
``log(n/rho)/sqrt(k)`` of the upper bound (241) (:func:`fastmix.srht.coherence_upper_scale`).
A second table draws the sizes at which the authors' experiments report typical coherences
(``n = 2^17``; the authors' public code, not the paper).

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

from fastmix_companion.parameters import MAX_LOG2_N, Integer, IntegerList, Real
from fastmix_companion.studies import CellTable

__all__ = ["NOTEBOOK", "DEFAULTS", "PARAMETERS", "AUTHORS_REFERENCE", "run", "k_grid", "log2_ns"]

NOTEBOOK = "appendix_f_coherence"

DEFAULTS: dict[str, Any] = {
    "log2_ns": "10,12",
    "n_draws": 5,
    "k_per_octave": 2,
    "rho": 0.05,
    "upper_constant": 1.0,
    "seed": 0,
}
"""The smoke-scale defaults (the notebook's); ``notebooks/paper_scale.json`` holds the paper's."""

PARAMETERS = {
    "log2_ns": IntegerList(5, MAX_LOG2_N),  # k runs from 16 to n/2, so n >= 32
    "n_draws": Integer(1),
    "k_per_octave": Integer(1),
    "rho": Real(0, 1, low_open=True, high_open=True),
    "upper_constant": Real(0, low_open=True),
    "seed": Integer(0),
}
"""What each parameter admits (:mod:`fastmix_companion.parameters`)."""


AUTHORS_REFERENCE: dict[str, Any] = {"log2_n": 17, "values": ((280, 0.26), (7000, 0.052), (14000, 0.041))}
"""Typical coherences the authors' experiments report at ``n = 2^17`` (the authors' public code)."""


def log2_ns(params) -> list[int]:
    """The ``log2 n`` values of ``params["log2_ns"]`` ("12,17,20" or a list)."""
    return [int(v) for v in re.findall(r"\d+", str(params["log2_ns"]))]


def k_grid(n: int, k_per_octave: int) -> np.ndarray:
    """Log-spaced ``k`` from 16 to ``n/2``, ``k_per_octave`` values per factor of two."""
    n_k = int(k_per_octave * (np.log2(n // 2) - 4)) + 1
    return np.unique(np.round(np.geomspace(16, n // 2, n_k)).astype(int))


def _draws(n: int, k: int, n_draws: int, seed: int, tag: int) -> list[float]:
    from fastmix.srht import SRHT

    return [
        SRHT(n, int(k), random_state=np.random.SeedSequence(seed, spawn_key=(tag, int(k), r))).coherence()
        for r in range(n_draws)
    ]


def run(params, store=None, log=print) -> dict:
    """Compute Appendix F's tables (see the module docstring); resumable with a store."""
    from fastmix.srht import coherence_heuristic, coherence_upper_scale, welch_bound

    n_draws, seed, rho = int(params["n_draws"]), int(params["seed"]), float(params["rho"])
    table = CellTable(store, "coherence", log)
    for lg in log2_ns(params):
        n = 2**lg
        for k in k_grid(n, int(params["k_per_octave"])):

            def cell(n=n, k=int(k), lg=lg):
                values = _draws(n, k, n_draws, seed, lg)
                w, h = welch_bound(n, k), float(coherence_heuristic(n, k))
                u = float(coherence_upper_scale(n, k, rho))
                return [
                    {
                        "log2_n": lg,
                        "n": n,
                        "k": k,
                        "draw": r,
                        "coherence": v,
                        "welch": w,
                        "heuristic": h,
                        "upper_scale": u,
                    }
                    for r, v in enumerate(values)
                ]

            table.compute(f"n=2^{lg}|k={int(k)}", cell)
    ref = CellTable(store, "reference", log)
    lg = AUTHORS_REFERENCE["log2_n"]
    for k, theirs in AUTHORS_REFERENCE["values"]:

        def reference_cell(k=k, theirs=theirs):
            values = _draws(2**lg, k, n_draws, seed, 1000 + lg)
            return [
                {"n": 2**lg, "k": k, "draw": r, "coherence": v, "authors_value": theirs} for r, v in enumerate(values)
            ]

        ref.compute(f"n=2^{lg}|k={k}", reference_cell)
    return {"coherence": table.frame(), "reference": ref.frame()}


# --------------------------------------------------------------------------- claims


def ratio_summary(coherence, rho: float, far: int = 64):
    """Per ``n``: the measured coherence over Welch's bound and over the heuristic, for ``k <= n/far``.

    Returns a DataFrame with ``log2_n, n, draws, welch_ratio_mean, welch_ratio_low,
    welch_ratio_high`` (95% interval of the mean), ``welch_ratio_max``, ``log_n_rho``
    (``log(n/rho)``), ``heuristic_ratio_mean``, ``heuristic_ratio_min``, ``heuristic_ratio_max``
    and ``fitted_c`` (the smallest ``c`` with ``c log(n/rho)/sqrt(k)`` above every draw, all k).
    """
    import pandas as pd

    from fastmix_companion.claims import mean_interval

    rows = []
    for lg, g in coherence.groupby("log2_n", sort=True):
        n = int(g["n"].iloc[0])
        near = g[g["k"] <= n / far]
        if near.empty:
            continue
        wr = near["coherence"] / near["welch"]
        hr = near["coherence"] / near["heuristic"]
        iv = mean_interval(wr)
        rows.append(
            {
                "log2_n": int(lg),
                "n": n,
                "draws": len(near),
                "welch_ratio_mean": iv.estimate,
                "welch_ratio_low": iv.low,
                "welch_ratio_high": iv.high,
                "welch_ratio_max": float(wr.max()),
                "log_n_rho": float(np.log(n / rho)),
                "heuristic_ratio_mean": float(hr.mean()),
                "heuristic_ratio_min": float(hr.min()),
                "heuristic_ratio_max": float(hr.max()),
                "fitted_c": float((g["coherence"] / g["upper_scale"]).max()),
            }
        )
    return pd.DataFrame(rows)


def claims(
    tables,
    *,
    rho: float = 0.05,
    far: int = 64,
    slope_band: tuple[float, float] = (-0.55, -0.45),
    roughly: tuple[float, float] = (0.5, 2.0),
    typical: tuple[float, float] = (2.5, 97.5),
) -> list:
    """Appendix F's claims as stated checks on the study's tables.

    * Welch's bound (240) holds for every draw (a theorem; checks the code).
    * The SRHT coherence scales as ``k^{-1/2}`` while ``n >> k``: per ``n``, the slope of
      ``log Delta`` on ``log k`` over ``log(n/rho)^2 <= k <= n/far`` (all draws; below
      ``log(n/rho)^2`` the bound (241) says nothing, and for ``2^k <= n`` the coherence is
      exactly 1) has its 95% interval inside ``slope_band``; sizes ``n`` with fewer than two
      grid values in that range are left out.
    * "Relative to Welch's bound the SRHT coherence degrades by a factor of roughly
      ``log(n/rho)``": holds when, at every ``n``, the 95% interval of the mean of
      ``Delta/Welch`` over ``k <= n/far``, divided by ``log(n/rho)``, lies inside ``roughly``.
    * The same factor as an upper bound: holds when every draw with ``k <= n/far`` has
      ``Delta/Welch <= log(n/rho)``.
    * The authors' reported coherences at ``n = 2^17`` are typical draws: per size, holds when
      their value's percentile among our draws lies inside ``typical``.
    """
    from fastmix_companion.claims import Claim, format_interval, percentile_of
    from fastmix_companion.studies.section3 import log_slope_interval

    coh = tables["coherence"]
    out = []
    ratio = coh["coherence"] / coh["welch"]
    out.append(
        Claim(
            claim="Welch's lower bound (240) holds for every draw",
            paper="Appendix F, eq. (240): any n unit vectors in R^k have coherence at least sqrt((n-k)/(k(n-1)))",
            measured=f"smallest Delta/Welch over {len(coh)} draws at {coh['n'].nunique()} sizes n: {ratio.min():.3g}",
            rule="holds if the smallest ratio is at least 1 (up to rounding, 1e-12)",
            holds=bool(ratio.min() >= 1 - 1e-12),
        )
    )
    parts, ok = [], []
    for lg, g in coh.groupby("log2_n", sort=True):
        low = float(np.log(g["n"].iloc[0] / rho)) ** 2
        near = g[(g["k"] <= g["n"] / far) & (g["k"] >= low)]
        if near["k"].nunique() < 2:
            continue
        iv = log_slope_interval(near["k"], near["coherence"])
        parts.append(f"n = 2^{int(lg)}, k = {int(near['k'].min())} to {int(near['k'].max())}: {format_interval(iv)}")
        ok.append(slope_band[0] <= iv.low and iv.high <= slope_band[1])
    if parts:
        out.append(
            Claim(
                claim="The coherence falls like k^(-1/2) while n >> k",
                paper="Appendix F: Welch's scale is Theta(k^(-1/2)) for n >> k and the SRHT bound (241) is "
                "O~(log(n/rho)/sqrt(k))",
                measured=f"slope of log Delta on log k for log(n/rho)^2 <= k <= n/{far}: " + "; ".join(parts),
                rule=f"holds if every 95% interval lies inside [{slope_band[0]:g}, {slope_band[1]:g}]",
                holds=bool(all(ok)),
            )
        )
    summary = ratio_summary(coh, rho, far)
    if len(summary):
        text = "; ".join(
            f"n = 2^{int(r.log2_n)}: {r.welch_ratio_mean:.3g} [{r.welch_ratio_low:.3g}, "
            f"{r.welch_ratio_high:.3g}] vs log(n/rho) = {r.log_n_rho:.3g}"
            for r in summary.itertuples()
        )
        rel_low = summary["welch_ratio_low"] / summary["log_n_rho"]
        rel_high = summary["welch_ratio_high"] / summary["log_n_rho"]
        out.append(
            Claim(
                claim="The coherence itself, like its upper bound, is roughly log(n/rho) times Welch's bound",
                paper="Appendix F: relative to Welch's bound the SRHT coherence bound (241) degrades by a factor "
                "of roughly log(n/rho) when n >> k (a statement about the bound; this check asks whether the "
                "measured coherence degrades as much)",
                measured=f"mean Delta/Welch for k <= n/{far} (rho = {rho:g}): {text}",
                rule=f"holds if, at every n, the interval divided by log(n/rho) lies inside "
                f"[{roughly[0]:g}, {roughly[1]:g}]",
                holds=bool(((rel_low >= roughly[0]) & (rel_high <= roughly[1])).all()),
            )
        )
        out.append(
            Claim(
                claim="The coherence is at most log(n/rho) times Welch's bound",
                paper="Appendix F, eq. (241), read as an upper bound: the degradation is at most of order log(n/rho)",
                measured="largest Delta/Welch over the draws with k <= n/"
                + str(far)
                + ": "
                + "; ".join(
                    f"n = 2^{int(r.log2_n)}: {r.welch_ratio_max:.3g} (log(n/rho) = {r.log_n_rho:.3g})"
                    for r in summary.itertuples()
                ),
                rule="holds if every draw is at most log(n/rho) times Welch's bound",
                holds=bool((summary["welch_ratio_max"] <= summary["log_n_rho"]).all()),
            )
        )
    ref = tables.get("reference")
    if ref is not None and len(ref):
        for k, g in ref.groupby("k", sort=True):
            theirs = float(g["authors_value"].iloc[0])
            pct = percentile_of(theirs, g["coherence"])
            out.append(
                Claim(
                    claim=f"The authors' coherence at n = 2^17, k = {int(k)} is a typical draw",
                    paper=f"The authors' experiments (reference code, not the paper) report about {theirs:g}",
                    measured=f"{len(g)} draws: median {g['coherence'].median():.3g} (range "
                    f"{g['coherence'].min():.3g} to "
                    f"{g['coherence'].max():.3g}); {theirs:g} is at percentile {pct:.3g}",
                    rule=f"holds if the percentile lies inside [{typical[0]:g}, {typical[1]:g}]",
                    holds=bool(typical[0] <= pct <= typical[1]),
                )
            )
    return out
