"""The sentences and text tables of the kernel rates page (:mod:`fastmix_companion.studies.kernel_rates`).

The page displays what these return, generated from the study's ``runs`` table, its fitted
slopes, its claims and its parameters: the setting of a run, the slope table, the fitted slopes
of the privacy cost in words, how much a logarithmic factor alone would flatten a slope, and
the verdicts in one sentence.
"""

from __future__ import annotations

import numpy as np

from fastmix_companion.claims import DOES_NOT_HOLD, HOLDS, HOLDS_IN_DIRECTION, NOT_COMPARABLE, UNDECIDED
from fastmix_companion.pages import tex_num

__all__ = [
    "rates_setting",
    "stored_setting_text",
    "slopes_markdown",
    "slopes_text",
    "log_factor_text",
    "claims_text",
    "smoke_sizes",
]


def rates_setting(runs, p) -> str:
    """The two sweeps of a set of runs, as MyST maths."""
    ns = sorted(int(v) for v in runs.loc[runs["sweep"] == "n", "n"].unique()) if "n" in runs else []
    eps = sorted(e for e in runs.loc[runs["sweep"] == "epsilon", "epsilon"].unique() if np.isfinite(e))
    reps = runs.groupby(["sweep", "method"])["rep"].nunique().min() if "rep" in runs else None
    return (
        f"$d = {p['d']}$, target {str(p['target']).replace('_', ' ')}, $\\delta = {tex_num(p['delta'])}$; "
        f"$n \\in \\{{{', '.join(map(str, ns))}\\}}$ at $\\varepsilon = {float(p['epsilon']):g}$ and "
        f"$\\varepsilon \\in \\{{{', '.join(f'{e:g}' for e in eps)}\\}}$ at $n = {p['n_fixed']}$"
        + (f", {reps} repetitions per point" if reps is not None else "")
    )


def stored_setting_text(runs, p) -> str:
    """The stored run's setting, and whether it is partial (fewer repetitions than planned at some point)."""
    reps = runs.groupby(["sweep", "n", "epsilon"])["rep"].nunique()
    return (
        f"Setting: $d = {p['d']}$, target `{p['target']}`, $\\delta = {tex_num(p['delta'])}$, "
        f"$n \\in \\{{{p['n_values'].replace(',', ', ')}\\}}$ at $\\varepsilon = {p['epsilon']:g}$ and "
        f"$\\varepsilon \\in \\{{{p['eps_values'].replace(',', ', ')}\\}}$ at $n = {p['n_fixed']}$, exact "
        f"Gaussian-process paths, {reps.min()}-{reps.max()} of {p['n_reps']} repetitions per point"
        + (" - **the run is partial**." if reps.min() < p["n_reps"] else ".")
    )


def slopes_markdown(slopes) -> str:
    """The fitted slopes with their intervals beside the theory's exponents, as a Markdown table."""
    lines = ["| against | method | quantity | fitted slope [95% interval] | theory exponent |", "|---|---|---|---|---|"]
    for _, r in slopes.iterrows():
        th = "-" if not np.isfinite(r["theory"]) else f"{r['theory']:.2f}"
        lines.append(
            f"| {r['sweep']} | {r['method']} | {r['quantity']} | {r['slope']:.2f} [{r['low']:.2f}, "
            f"{r['high']:.2f}] | {th} |"
        )
    return "\n".join(lines)


def slopes_text(slopes) -> str:
    """The fitted slopes of the mean privacy cost, and how many points the log fits left out."""
    s = slopes[slopes["quantity"] == "privacy cost"]
    parts = [
        f"{r['method']} {r['slope']:.2f} [{r['low']:.2f}, {r['high']:.2f}] against {r['sweep']}"
        for _, r in s.iterrows()
    ]
    dropped = int(slopes["dropped"].sum())
    text = "Fitted slopes of the mean privacy cost: " + "; ".join(parts) + "."
    if dropped:
        text += (
            f" {dropped} point(s) whose mean privacy cost was not positive (noise that happened to regularise) "
            "are left out of the fits that need logarithms."
        )
    return text


def log_factor_text(n_values) -> str:
    """How much a log^2 n factor alone would flatten a slope against n over ``n_values`` (comma-separated)."""
    ns = np.array([float(v) for v in n_values.split(",")])
    slack = 2.0 / np.mean(np.log(ns))
    return (
        f"The exponents ignore logarithmic factors: a factor $\\log^2 n$ (as in the high-probability bound in the "
        f"proof of Theorem 14) would by itself make a fitted slope against $n$ shallower by about "
        f"$2/\\overline{{\\ln n}} = {slack:.2f}$ over this range of $n$. The decision rules do not allow for it: "
        f"a slope shallower than the exponent is left undecided, since over a finite range it cannot refute a bound "
        f"with an unknown constant."
    )


def claims_text(claims) -> str:
    """The verdicts in words: the kernel paper's rate bounds (with where it states them) and our own ordering check."""
    paper = [c for c in claims if c.source is not None and not c.source.is_ours]
    ours = [c for c in claims if c.source is not None and c.source.is_ours]
    words = (HOLDS, HOLDS_IN_DIRECTION, NOT_COMPARABLE, UNDECIDED, DOES_NOT_HOLD)
    counts = "; ".join(
        f"{w}: {sum(c.verdict == w for c in paper)}" for w in words if any(c.verdict == w for c in paper)
    )
    where = sorted({c.source.location for c in paper})
    text = (
        f"Of the {len(paper)} checks of the kernel paper's bounds on the privacy cost ({'; '.join(where)}): {counts}."
        if paper
        else ""
    )
    floored = sorted(
        {d for c in paper if c.verdict == NOT_COMPARABLE for d in c.setting.differences if "are raised to it" in d}
    )
    if floored:
        text += (
            " They are not comparable because the private estimator departs from the theorems' at these settings: "
            + "; ".join(floored)
            + ". A run that records the smallest eigenvalue of $\\widetilde C + \\lambda I$ and solves plainly "
            "where it is positive would test the bounds; none is stored."
        )
    if ours:
        text += (
            " Whether RP's measured privacy cost falls faster than RFF's is our own question (the paper orders only "
            "its bounds, in the discussion after Theorem 6): "
            + "; ".join(f"{c.claim.split('(')[-1].rstrip(')')}: {c.verdict}" for c in ours)
            + "."
        )
    return text.strip()


def smoke_sizes(p) -> str:
    """The sizes of a quick run at parameters ``p``, for the heading of the page's smoke-scale run."""
    ns = [v.strip() for v in str(p["n_values"]).split(",") if v.strip()]
    eps = [v.strip() for v in str(p["eps_values"]).split(",") if v.strip()]
    return (
        f"$n \\in \\{{{', '.join(ns)}\\}}$, $\\varepsilon \\in \\{{{', '.join(eps)}\\}}$, "
        f"{int(p['n_reps'])} repetitions per point"
    )
