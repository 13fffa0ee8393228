"""The sentences and text tables of the solver choice page (:mod:`fastmix_companion.studies.solver_choice`).

The page displays what these return, generated from the study's tables (``datasets``, ``runs``)
and parameters: the setting of a run, the decision table, which solver is most accurate and
fastest where, how far FastIHM trails the best, and how the noise warning's former rule errs.
"""

from __future__ import annotations

import numpy as np

from fastmix.regression import NOISE_DOMINATES_RATIO
from fastmix_companion.studies import solver_choice as study
from fastmix_companion.studies._verdict_sentences import checks_text

__all__ = [
    "checks_text",
    "setting_text",
    "map_markdown",
    "map_text",
    "gap_text",
    "former_warning_text",
    "smoke_sizes_text",
]


def setting_text(tables, p) -> str:
    """The design, grid, T, trials and solves of a run, as MyST maths."""

    def tex_set(text):
        return ", ".join(v.strip() for v in str(text).split(","))

    return (
        f"{p['design'].replace('_', ' ')} design, $\\log_2 n \\in \\{{{tex_set(p['log2_ns'])}\\}}$, "
        f"$d \\in \\{{{tex_set(p['ds'])}\\}}$, $\\varepsilon \\in \\{{{tex_set(p['epsilons'])}\\}}$, "
        f"$T = {p['T']}$, {p['trials']} trials, {len(tables['runs']):,} solves on {len(tables['datasets'])} shapes"
    )


def map_markdown(cmap) -> str:
    """The decision table: one row per (d, n), one column per epsilon."""
    eps = sorted(cmap["epsilon"].unique())
    lines = [
        "| $d$ | $n$ | " + " | ".join(f"$\\varepsilon = {e:g}$" for e in eps) + " |",
        "|---:|---:|" + "---|" * len(eps),
    ]
    for (d, n), rows in cmap.groupby(["d", "n"], sort=True):
        cells = []
        for e in eps:
            r = rows[rows["epsilon"] == e]
            if r.empty:
                cells.append("-")
                continue
            r = r.iloc[0]
            acc = r["accuracy_ties"].replace(", ", " ~ ")
            fast = r["time_ties"].replace(", ", " ~ ")
            cells.append(f"**{acc}**; fastest {fast}" + (" (warns)" if r["fastihm_warns"] else ""))
        lines.append(f"| {d} | $2^{{{int(np.log2(n))}}}$ | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def map_text(cmap) -> str:
    """At how many grid points each private solver is among the most accurate (and alone), which is
    fastest, and at how many FastIHMRegressor's noise warning fires."""
    total = len(cmap)
    wins = cmap["accuracy_ties"].str.split(", ")
    alone = cmap["accuracy_ties"].str.count(",") == 0
    parts = []
    for series in study.PRIVATE_SERIES:
        among = int(sum(series in w for w in wins))
        only = int(sum(alone & (cmap["accuracy_best"] == series)))
        if among:
            parts.append(f"{series} is among the most accurate at {among} of {total} grid points ({only} alone)")
    fast = cmap["time_best"].value_counts()
    fast_text = ", ".join(f"{k} at {v}" for k, v in fast.items())
    warns = int(cmap["fastihm_warns"].sum())
    return (
        "; ".join(parts) + f". The fastest private solver is {fast_text} of the {total} points. "
        f"FastIHMRegressor's warning ($\\eta^2 > {NOISE_DOMINATES_RATIO:g}\\,\\gamma_{{\\mathrm{{IHM}}}}$, more than "
        f"{NOISE_DOMINATES_RATIO:g} times the most IHM adds to its Hessian at the same budget) "
        f"fires at {warns} of them."
    )


def gap_text(gap) -> str:
    """How far FastIHM trails the best private solver, where its SRHT keeps every row and where not ("" if nowhere)."""
    parts = []
    for keeps, what in ((True, "keeps every row ($k_2 = n$)"), (False, "subsamples ($k_2 < n$)")):
        g = gap[gap["k2_is_n"] == keeps]
        if g.empty:
            continue
        g = g.iloc[0]
        span = f"$n$ from $2^{{{int(np.log2(g.min_n))}}}$ to $2^{{{int(np.log2(g.max_n))}}}$"
        parts.append(
            f"where its SRHT {what}, at {int(g.cells)} cells ({span}), FastIHM's excess risk is "
            f"{g.ratio_min:.2f} to {g.ratio_max:.1f} times the best private solver's (median {g.ratio_median:.2f})"
        )
    return "FastIHM's gap to the most accurate private solver: " + "; ".join(parts) + "." if parts else ""


def former_warning_text(former) -> str:
    """The errors of the warning's former rule (``former`` from :func:`~.solver_choice.former_warning_errors`)."""
    return (
        f"On these runs the warning's former rule ($\\eta^2 > {NOISE_DOMINATES_RATIO:g}\\, n/d$) fires at "
        f"{former['false_alarms']} cells where FastIHM is among the most accurate and is silent at "
        f"{former['silent']} where it trails the best by more than 10 times."
    )


def smoke_sizes_text(p) -> str:
    """The sizes of the quick check at parameters ``p`` (the notebook's parameters cell), as MyST maths."""

    def tex_set(text):
        return ", ".join(v.strip() for v in str(text).split(","))

    return (
        f"Sizes of this quick check: $\\log_2 n \\in \\{{{tex_set(p['log2_ns'])}\\}}$, "
        f"$d \\in \\{{{tex_set(p['ds'])}\\}}$, $\\varepsilon \\in \\{{{tex_set(p['epsilons'])}\\}}$, "
        f"{p['trials']} trial{'s' if int(p['trials']) != 1 else ''} per solver and point, $T = {p['T']}$."
    )
