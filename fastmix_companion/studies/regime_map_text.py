"""The sentences and text tables of the regime map page (:mod:`fastmix_companion.studies.regime_map`).

The page displays what these return, generated from the study's tables (``shapes``, ``runs``)
and parameters: the setting of a run, the growth exponents, which private solver is fastest
where, and where the fitted d-sweep power laws of FastIHM and IHM (Gram) cross.
"""

from __future__ import annotations

import numpy as np

from fastmix_companion.studies import regime_map as study
from fastmix_companion.studies._verdict_sentences import checks_text

__all__ = ["checks_text", "setting_text", "exponents_markdown", "winners_text", "crossover_text", "smoke_sizes_text"]


def setting_text(tables, p) -> str:
    """Both sweeps, T, epsilon, the timed runs and the BLAS threads of a run, as MyST maths."""
    shapes = tables["shapes"]
    n_sweep = shapes[shapes["sweep"] == "n"]
    d_sweep = shapes[shapes["sweep"] == "d"]
    parts = []
    if not n_sweep.empty:
        parts.append(
            f"$n = 2^{{{int(np.log2(n_sweep['n'].min()))}}}$ to $2^{{{int(np.log2(n_sweep['n'].max()))}}}$ at "
            f"$d = {int(n_sweep['d'].iloc[0])}$"
        )
    if not d_sweep.empty:
        parts.append(
            f"$d = {int(d_sweep['d'].min())}$ to ${int(d_sweep['d'].max())}$ at "
            f"$n = 2^{{{int(np.log2(d_sweep['n'].iloc[0]))}}}$"
        )
    timed = tables["runs"][tables["runs"]["status"] == study.TIMED]
    return (
        "; ".join(parts)
        + f"; $T = {p['T']}$, $\\varepsilon = {p['epsilon']:g}$, up to {p['repeats']} timed runs per cell, "
        + f"{len(timed):,} timed solves, {p['blas_threads'] or 'default'} BLAS thread(s)"
    )


def exponents_markdown(runs) -> str:
    """The growth exponents of both sweeps as one Markdown table."""
    n_ex = study.growth_exponents(runs, "n").set_index("series")
    d_ex = study.growth_exponents(runs, "d").set_index("series")
    lines = [
        "| solver | exponent in $n$ | fitted over $n$ | exponent in $d$ | fitted over $d$ |",
        "|---|---:|---|---:|---|",
    ]
    for series in study.SERIES:
        cells = []
        for ex, var in ((n_ex, "n"), (d_ex, "d")):
            if series in ex.index:
                r = ex.loc[series]
                span = (
                    f"$2^{{{int(np.log2(r['from']))}}}$ to $2^{{{int(np.log2(r['to']))}}}$"
                    if var == "n"
                    else f"{int(r['from'])} to {int(r['to'])}"
                )
                cells += [f"{r['exponent']:.2f} ± {r['stderr']:.2f}", span]
            else:
                cells += ["-", "-"]
        lines.append(f"| {series} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def winners_text(runs) -> str:
    """Which private solver is fastest where, and by how much, in words computed from the runs ("" if none)."""
    w = study.winners(runs)
    if w.empty:
        return ""
    counts = w["fastest_private"].value_counts()
    total = len(w)
    lead = ", ".join(f"{k} at {v}" for k, v in counts.items())
    parts = [f"The fastest private solver is {lead} of the {total} measured shapes."]
    dense = w[w["fastihm_over_dense"].notna()]
    if not dense.empty:
        slow = int((dense["slowest_private"] == "IHM (dense)").sum())
        parts.append(f"Dense IHM is the slowest private solver at {slow} of the {len(dense)} shapes where it ran.")
    for sweep, var in (("n", "n"), ("d", "d")):
        sub = w[w["sweep"] == sweep]
        if sub.empty:
            continue
        r = sub["fastihm_over_gram"]
        parts.append(
            f"Along the {var} sweep, the faster of the two FastIHM sizes takes {r.min():.1f} to {r.max():.1f} times "
            f"as long as IHM through its Gram factor"
            + (
                f", and {sub['fastihm_over_dense'].min():.2f} to {sub['fastihm_over_dense'].max():.2f} times as long "
                f"as dense IHM where dense IHM ran."
                if sub["fastihm_over_dense"].notna().any()
                else "."
            )
        )
    return " ".join(parts)


def crossover_text(cross, n) -> str:
    """Where the fitted d-sweep power laws cross (``cross`` from :func:`~.regime_map.crossover_d`) at ``n`` rows."""
    if cross is None:
        return "The fitted $d$-sweep power laws of FastIHM ($r = 4$) and IHM (Gram) do not cross."
    where = "within the measured range" if cross[1] else "an extrapolation beyond the measured range"
    return (
        f"The fitted $d$-sweep power laws of FastIHM ($r = 4$) and IHM (Gram) cross at "
        f"$d \\approx {cross[0]:,.0f}$ for $n = 2^{{{int(np.log2(n))}}}$ ({where})."
    )


def smoke_sizes_text(p) -> str:
    """The sizes of the quick check at parameters ``p`` (the notebook's parameters cell), as MyST maths."""
    log2_ns = [int(v) for v in str(p["log2_ns"]).split(",") if v.strip()]
    ds = [int(v) for v in str(p["ds"]).split(",") if v.strip()]
    return (
        f"Sizes of this quick check: $n = 2^{{{min(log2_ns)}}}$ to $2^{{{max(log2_ns)}}}$ at $d = {p['n_sweep_d']}$, "
        f"and $d = {min(ds)}$ to ${max(ds)}$ at $n = 2^{{{p['d_sweep_log2_n']}}}$; up to {p['repeats']} timed "
        f"run{'s' if int(p['repeats']) != 1 else ''} per solver and shape, $T = {p['T']}$."
    )
