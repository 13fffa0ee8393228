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

__all__ = [
    "NOTEBOOK",
    "DEFAULTS",
    "PARAMETERS",
    "AUTHORS_REFERENCE",
    "run",
    "k_grid",
    "log2_ns",
    "ratio_summary",
    "rank_p_value",
    "run_setting",
    "claims",
    "stored_claims",
    "cost_model",
]

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


APPENDIX_F_SOURCES = {
    "welch": "Appendix F, eq. (240)",
    "upper": "Appendix F, eq. (241) and the sentence after it",
    "slope": "Appendix F bounds the coherence between Welch's Theta(k^(-1/2)) (eq. 240) and O~(log(n/rho)/sqrt(k)) "
    "(eq. 241); we ask whether the measured coherence falls at that rate",
    "rough": "Appendix F says the bound (241) degrades by roughly log(n/rho) relative to Welch's bound; we ask whether "
    "the measured coherence does",
    "reference": "typical coherences the authors' public code reports at n = 2^17 (not in the paper)",
}
"""Where each check on the page comes from: the FastMix paper's Appendix F, or what prompted a question of ours."""

SCALING_FACTOR = 1.5
"""Delta/Welch follows log(n/rho) across n when one constant fits every n within this factor."""


def rank_p_value(value: float, sample) -> float:
    """Two-sided rank p-value of ``value`` against ``sample``: ``2 min(#below + 1, #above + 1) / (N + 1)``, capped at 1.

    Under the hypothesis that ``value`` is one more draw from the sample's distribution, its rank
    among the ``N + 1`` values is uniform; the p-value is exact up to ties.
    """
    x = np.asarray(sample, dtype=float)
    x = x[np.isfinite(x)]
    below, above = int(np.sum(x < value)), int(np.sum(x > value))
    return float(min(1.0, 2.0 * min(below + 1, above + 1) / (x.size + 1)))


def run_setting(coherence):
    """The run against Appendix F: sizes of our choosing (the appendix states bounds and runs no experiment)."""
    from fastmix_companion.claims import Setting

    ns = ", ".join(f"2^{int(v)}" for v in sorted(coherence["log2_n"].unique()))
    return Setting(
        (
            f"n in {{{ns}}} and k from {int(coherence['k'].min())} to n/2 are our choices: Appendix F states bounds "
            "for every n and k and runs no experiment",
        ),
        comparable=True,
    )


def claims(
    tables,
    *,
    rho: float = 0.05,
    far: int = 64,
    slope_band: tuple[float, float] = (-0.55, -0.45),
    roughly: tuple[float, float] = (0.5, 2.0),
    typical: tuple[float, float] = (2.5, 97.5),
    level: float = 0.95,
) -> list:
    """Appendix F's claims, and our questions about the measured coherence, as stated checks.

    * Appendix F, eq. (240): Welch's bound holds for every draw (a theorem; checks the code).
    * Appendix F, eq. (241) and the sentence after it: with probability at least ``1 - rho``
      the SRHT coherence is ``O~(log(n/rho)/sqrt(k))``, so its degradation relative to Welch's
      bound is at most of order ``log(n/rho)`` when ``n >> k``. With the constant 1 (ours; the
      paper gives none): holds when at most a share ``rho`` of the draws with ``k <= n/far``
      exceed ``log(n/rho)`` times Welch's bound; otherwise undecided, since a bound whose
      constant is not given is not refuted at a few ``n``. The check can only hold or be
      undecided, and its rule says so.
    * Ours: does the measured coherence fall like ``k^{-1/2}`` while ``n >> k``? Per ``n``, the
      slope of ``log Delta`` on ``log k`` over ``log(n/rho)^2 <= k <= n/far`` (below
      ``log(n/rho)^2`` the bound (241) says nothing, and for ``2^k <= n`` the coherence is
      exactly 1); sizes with fewer than two ``k`` in that range are left out.
    * Ours: is the measured coherence, like the bound, roughly ``log(n/rho)`` times Welch's? Per
      ``n``, the interval of the mean of ``Delta/Welch`` over ``k <= n/far``, divided by
      ``log(n/rho)``, against ``roughly``.
    * Ours: are the coherences the authors' public code reports at ``n = 2^17`` typical draws?
      The rule of the Appendix J page (:func:`fastmix_companion.studies.appendix_j.typical_draw`):
      does not hold when its rank p-value (:func:`rank_p_value`) is rejected after Holm over the
      rank tests; holds when it is not rejected and the value's percentile among our draws lies
      inside ``typical``; undecided otherwise.

    The slope and ratio intervals and the rank tests form one family of ``m`` checks at
    ``1 - level``: each interval is decided at level ``1 - (1 - level)/m`` (Bonferroni), and the
    rank tests share the rest of the budget, ``(1 - level) r/m`` for ``r`` of them, through Holm.
    Each outcome is three-way.
    """
    from fastmix_companion.claims import (
        Claim,
        Setting,
        Source,
        fastmix_paper,
        format_interval,
        holm,
        mean_interval,
        percentile_of,
    )
    from fastmix_companion.studies.appendix_j import typical_draw, typical_rule
    from fastmix_companion.studies.section3 import all_of, family_level, family_text, log_slope_interval, within

    coh = tables["coherence"]
    ref = tables.get("reference")
    slopes = []
    for lg, g in coh.groupby("log2_n", sort=True):
        low = float(np.log(g["n"].iloc[0] / rho)) ** 2
        near = g[(g["k"] <= g["n"] / far) & (g["k"] >= low)]
        if near["k"].nunique() >= 2:
            slopes.append((int(lg), near))
    summary = ratio_summary(coh, rho, far)
    refs = list(ref.groupby("k", sort=True)) if ref is not None and len(ref) else []
    m = len(slopes) + len(summary) + len(refs)
    each, name = family_level(m, level), family_text(m, level, "interval and rank checks")
    setting = run_setting(coh)
    out = []
    ratio = coh["coherence"] / coh["welch"]
    out.append(
        Claim(
            claim="Welch's lower bound (240) holds for every draw",
            paper="any n unit vectors in R^k have coherence at least sqrt((n-k)/(k(n-1)))",
            measured=f"smallest Delta/Welch over {len(coh)} draws at {coh['n'].nunique()} sizes n: {ratio.min():.3g}",
            rule="holds if the smallest ratio is at least 1 (up to rounding, 1e-12); does not hold otherwise (a "
            "theorem: a failure would be an error in the code)",
            holds=bool(ratio.min() >= 1 - 1e-12),
            source=fastmix_paper(APPENDIX_F_SOURCES["welch"]),
            setting=setting,
        )
    )
    if len(summary):
        near = coh[coh["k"] <= coh["n"] / far]
        over = near["coherence"] / near["welch"] > np.log(near["n"] / rho)
        out.append(
            Claim(
                claim="The coherence is at most log(n/rho) times Welch's bound",
                paper="with probability at least 1 - rho the SRHT coherence is O~(log(n/rho)/sqrt(k)): relative to "
                "Welch's bound, the SRHT coherence bound degrades by a factor of roughly log(n/rho) when n >> k",
                measured=f"largest Delta/Welch over the draws with k <= n/{far}: "
                + "; ".join(
                    f"n = 2^{int(r.log2_n)}: {r.welch_ratio_max:.3g} (log(n/rho) = {r.log_n_rho:.3g})"
                    for r in summary.itertuples()
                )
                + f"; {int(over.sum())} of {len(near)} draws above",
                rule=f"holds if at most a share rho = {rho:g} of the draws with k <= n/{far} exceed log(n/rho) times "
                "Welch's bound (constant 1, our choice: the paper gives none); undecided otherwise. This check can "
                "only hold or be undecided, never 'does not hold': a bound with an unstated constant is not refuted "
                "at a few n",
                holds=True if over.mean() <= rho else None,
                source=fastmix_paper(APPENDIX_F_SOURCES["upper"]),
                setting=setting,
            )
        )
    if slopes:
        ivs = [(lg, near, log_slope_interval(near["k"], near["coherence"], each)) for lg, near in slopes]
        out.append(
            Claim(
                claim="The coherence falls like k^(-1/2) while n >> k",
                paper="our question: Welch's bound is Theta(k^(-1/2)) for n >> k and the bound (241) is "
                "O~(log(n/rho)/sqrt(k)); does the coherence an SRHT has fall at that rate?",
                measured=f"slope of log Delta on log k for log(n/rho)^2 <= k <= n/{far}: "
                + "; ".join(
                    f"n = 2^{lg}, k = {int(near['k'].min())} to {int(near['k'].max())}: {format_interval(iv)}"
                    for lg, near, iv in ivs
                ),
                rule=f"holds if the {name} of every slope lies inside [{slope_band[0]:g}, {slope_band[1]:g}]; does "
                "not hold if one lies wholly outside; undecided otherwise",
                holds=all_of(within(iv, *slope_band) for _, _, iv in ivs),
                source=Source(None, APPENDIX_F_SOURCES["slope"]),
                setting=setting,
                exploratory=True,  # the range of k was chosen after a first fit over the whole grid
            )
        )
    if len(summary):
        parts, outcomes, scaled_ivs, scaled_n = [], [], [], []
        for lg, g in coh[coh["k"] <= coh["n"] / far].groupby("log2_n", sort=True):
            iv = mean_interval(g["coherence"] / g["welch"], each)
            log_n_rho = float(np.log(g["n"].iloc[0] / rho))
            parts.append(f"n = 2^{int(lg)}: {format_interval(iv)} vs log(n/rho) = {log_n_rho:.3g}")
            scaled = type(iv)(iv.estimate / log_n_rho, iv.low / log_n_rho, iv.high / log_n_rho, iv.level, iv.n)
            outcomes.append(within(scaled, *roughly))
            scaled_ivs.append(scaled)
            scaled_n.append(int(lg))
        out.append(
            Claim(
                claim="The coherence itself, like its upper bound, is roughly log(n/rho) times Welch's bound",
                paper="our question: Appendix F says this of the bound (241); does the coherence an SRHT has degrade "
                "as much?",
                measured=f"mean Delta/Welch for k <= n/{far} (rho = {rho:g}): " + "; ".join(parts),
                rule=f"holds if, at every n, the {name} of the mean divided by log(n/rho) lies inside "
                f"[{roughly[0]:g}, {roughly[1]:g}]; does not hold if at some n it lies wholly outside; undecided "
                "otherwise",
                holds=all_of(outcomes),
                source=Source(None, APPENDIX_F_SOURCES["rough"]),
                setting=setting,
            )
        )
        if len(scaled_ivs) >= 2:
            lows, highs = [iv.low for iv in scaled_ivs], [iv.high for iv in scaled_ivs]
            spread = SCALING_FACTOR
            out.append(
                Claim(
                    claim="The coherence grows with n as its upper bound does: Delta/Welch in proportion to log(n/rho)",
                    paper="our question: whatever its constant, does Delta/Welch follow the bound's log(n/rho) "
                    "across n?",
                    measured="mean Delta/Welch divided by log(n/rho): "
                    + "; ".join(
                        f"n = 2^{lg}: {format_interval(iv)}" for lg, iv in zip(scaled_n, scaled_ivs, strict=True)
                    ),
                    rule=f"holds if the largest upper limit over the smallest lower limit is at most {spread:g} (one "
                    f"constant fits every n within a factor {spread:g}); does not hold if the largest lower limit "
                    f"over the smallest upper limit exceeds {spread:g}; undecided otherwise",
                    holds=True
                    if max(highs) / min(lows) <= spread
                    else (False if max(lows) / min(highs) > spread else None),
                    source=Source(None, APPENDIX_F_SOURCES["rough"]),
                    setting=setting,
                    exploratory=True,  # asked after seeing the constant of the check above
                )
            )
    share = (1.0 - level) * len(refs) / max(m, 1)
    tests = [(k, g, float(g["authors_value"].iloc[0])) for k, g in refs]
    pcts = [percentile_of(theirs, g["coherence"]) for _, g, theirs in tests]
    ps = [rank_p_value(theirs, g["coherence"]) for _, g, theirs in tests]
    rejected = holm(ps, share) if tests else []
    rule = typical_rule(
        "two-sided rank test of the authors' value as one more of our draws",
        f"the page's {len(refs)} rank tests at {share:.3g} (their share of {100 * (1 - level):g}% over the page's {m} "
        "interval and rank checks; the intervals take the rest, Bonferroni)",
        "the authors' value",
        typical,
    )
    for (k, g, theirs), pct, p, rej in zip(tests, pcts, ps, rejected, strict=True):
        out.append(
            Claim(
                claim=f"The authors' coherence at n = 2^17, k = {int(k)} is a typical draw",
                paper=f"our question: the authors' experiments (their public code, not the paper) report about "
                f"{theirs:g}",
                measured=f"{len(g)} draws: median {g['coherence'].median():.3g} (range {g['coherence'].min():.3g} to "
                f"{g['coherence'].max():.3g}); {theirs:g} is at percentile {pct:.3g} (rank p-value {p:.3g}, "
                f"{'rejected' if rej else 'not rejected'} after Holm)",
                rule=rule,
                holds=typical_draw(rej, (pct,), typical),
                source=Source(None, APPENDIX_F_SOURCES["reference"]),
                setting=Setting(
                    (f"n = 2^{int(np.log2(g['n'].iloc[0]))} and k = {int(k)}, as the authors' code reports",)
                ),
            )
        )
    return out


def stored_claims(tables, parameters) -> list:
    """The claims the page shows, decided on the stored tables with the parameters they were computed with."""
    return claims(tables, rho=float(parameters.get("rho", DEFAULTS["rho"])))


def cost_model(params):
    """Peak memory and duration of a run at ``params``: :func:`.cost_models.appendix_f_cost`.

    Returns a :class:`fastmix_companion.cli_checks.RunCost`; ``python -m fastmix_companion.run``
    refuses a run whose memory estimate exceeds the memory available, and asks for ``--yes``
    before one estimated at over an hour.
    """
    from fastmix_companion.studies.cost_models import appendix_f_cost

    return appendix_f_cost(params, k_grid=k_grid, log2_ns=log2_ns)
