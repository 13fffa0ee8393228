"""The sentences and text tables of the Appendix F page (:mod:`fastmix_companion.studies.appendix_f`).

The page displays what these return, generated from the study's tables (``coherence``,
``reference``) and parameters: the caption and setting of a run, the ratio summary, the fitted
slopes over the whole grid, what the claims say about how the coherence grows with n, and where
the authors' reference values fall among our draws.
"""

from __future__ import annotations

import numpy as np

from fastmix_companion.claims import DOES_NOT_HOLD, percentile_of
from fastmix_companion.studies.section3 import log_slope_interval
from fastmix_companion.studies.section3_text import verdicts_text

__all__ = [
    "coherence_text",
    "stored_setting_text",
    "ratio_markdown",
    "whole_grid_slopes_text",
    "findings_text",
    "reference_markdown",
    "smoke_sizes",
]


def coherence_text(coh, rho, constant) -> str:
    """What the coherence figure shows, as MyST maths, for the draws in ``coh``."""
    ns = ", ".join(f"$2^{{{int(np.log2(n))}}}$" for n in sorted(coh["n"].unique()))
    return (
        f"Coherence $\\widehat\\Delta$ of the SRHT against its number of rows $k$ (log-log), one panel per "
        f"$n \\in \\{{{ns.replace('$', '')}\\}}$: median and range over {coh.groupby(['n', 'k']).size().min()} "
        "independent draws per $(n, k)$, Welch's lower bound (eq. 240, dashed), the heuristic "
        "$\\sqrt{2\\ln(2n)/k}$ (dotted) and the scale of eq. (241), "
        f"${float(constant):g}\\cdot\\log(n/\\varrho)/\\sqrt{{k}}$ with $\\varrho = {float(rho):g}$ (dash-dotted). "
        "The faint vertical lines mark $k = \\log(n/\\varrho)^2$ and $k = n/64$, the range of the slope check."
    )


def stored_setting_text(coh, p) -> str:
    """The setting of the stored run: the n, the k per n, the draws and rho."""
    return (
        f"Setting: $n \\in \\{{{', '.join(f'2^{{{int(v)}}}' for v in sorted(coh['log2_n'].unique()))}\\}}$, "
        f"{coh.groupby('n')['k'].nunique().min()} to {coh.groupby('n')['k'].nunique().max()} values of $k$ per $n$ "
        f"from {coh['k'].min()} to $n/2$, {p['n_draws']} independent SRHT draws per $(n, k)$ ({len(coh)} draws in "
        f"all), $\\varrho = {p['rho']:g}$ in the scale of (241)."
    )


def ratio_markdown(summary) -> str:
    """:func:`~fastmix_companion.studies.appendix_f.ratio_summary` as a Markdown table."""
    lines = [
        "| $n$ | draws | $\\widehat\\Delta$ / Welch (mean, 95%) | largest | $\\log(n/\\varrho)$ | "
        "$\\widehat\\Delta/\\sqrt{2\\ln(2n)/k}$ (mean, range) | fitted $c$ |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in summary.itertuples():
        lines.append(
            f"| $2^{{{r.log2_n}}}$ | {r.draws} | {r.welch_ratio_mean:.3g} [{r.welch_ratio_low:.3g}, "
            f"{r.welch_ratio_high:.3g}] | {r.welch_ratio_max:.3g} | {r.log_n_rho:.3g} | "
            f"{r.heuristic_ratio_mean:.3g} ({r.heuristic_ratio_min:.3g} to {r.heuristic_ratio_max:.3g}) | "
            f"{r.fitted_c:.3g} |"
        )
    return "\n".join(lines)


def whole_grid_slopes_text(coh) -> str:
    """The fitted slope of log coherence on log k over the whole grid of k, per n."""
    whole = [
        f"{log_slope_interval(g['k'], g['coherence']).estimate:.2f} at $n = 2^{{{int(np.log2(n))}}}$"
        for n, g in coh.groupby("n")
    ]
    return (
        "Over the whole grid of $k$ the fitted slope of $\\log\\widehat\\Delta$ on $\\log k$ is "
        + ", ".join(whole)
        + ", pulled towards zero by the small $k$ at which $\\widehat\\Delta = 1$ exactly; "
        "hence the narrower range."
    )


def findings_text(summary, checks) -> str:
    """The verdicts of ``checks`` (:func:`~fastmix_companion.studies.section3_text.verdicts_text`), how the
    ratio to Welch's bound grows from the smallest to the largest n, and, when the check "The coherence itself,
    like its upper bound ..." has the verdict "does not hold", which growth it is closer to."""
    text = [verdicts_text(checks)]
    lo, hi = summary.iloc[0], summary.iloc[-1]
    text.append(
        f"From $n = 2^{{{int(lo.log2_n)}}}$ to $2^{{{int(hi.log2_n)}}}$ the mean ratio to Welch's bound grows from "
        f"{lo.welch_ratio_mean:.3g} to {hi.welch_ratio_mean:.3g}, a factor of "
        f"{hi.welch_ratio_mean / lo.welch_ratio_mean:.3g}, "
        f"while $\\log(n/\\varrho)$ grows by {hi.log_n_rho / lo.log_n_rho:.3g} and $\\sqrt{{2\\ln(2n)}}$ by "
        f"{np.sqrt(np.log(2 * hi.n) / np.log(2 * lo.n)):.3g}. The measured coherence is "
        f"{summary['heuristic_ratio_mean'].min():.3g} to {summary['heuristic_ratio_mean'].max():.3g} times the "
        f"heuristic $\\sqrt{{2\\ln(2n)/k}}$ on average, and a constant of {summary['fitted_c'].max():.3g} in front of "
        "$\\log(n/\\varrho)/\\sqrt{k}$ already covers every draw."
    )
    rough = [c for c in checks if c.claim.startswith("The coherence itself, like its upper bound")]
    if rough and rough[0].verdict == DOES_NOT_HOLD:
        share = summary["welch_ratio_mean"] / summary["log_n_rho"]
        grow, grow_log = hi.welch_ratio_mean / lo.welch_ratio_mean, hi.log_n_rho / lo.log_n_rho
        grow_heur = np.sqrt(np.log(2 * hi.n) / np.log(2 * lo.n))
        closer = "$\\sqrt{2\\ln(2n)}$" if abs(grow - grow_heur) < abs(grow - grow_log) else "$\\log(n/\\varrho)$"
        text.append(
            "So $\\log(n/\\varrho)$ describes the upper bound (241), not the coherence an SRHT actually has: the "
            f"measured degradation relative to Welch's bound is only {share.min():.2f} to {share.max():.2f} of "
            f"$\\log(n/\\varrho)$, and its growth with $n$ is closer to that of {closer}. The heuristic's level has "
            "a simple reason: for an SRHT, $|(S_f^\\top S_f)_{ij}|$ depends only on the bitwise exclusive or of $i$ "
            "and $j$, so there are only $n - 1$ distinct inner products, each roughly Gaussian with standard deviation "
            "$1/\\sqrt{k}$, and the largest of $n - 1$ such values is about $\\sqrt{2\\ln(2n)/k}$."
        )
    return "\n\n".join(text)


def reference_markdown(ref) -> str:
    """Per reference k: our draws' median and range, the authors' value and its percentile among them."""
    lines = ["| $k$ | draws | median | range | authors' value | its percentile |", "|---|---|---|---|---|---|"]
    for k_ref, g in ref.groupby("k"):
        theirs = float(g["authors_value"].iloc[0])
        lines.append(
            f"| {k_ref} | {len(g)} | {g['coherence'].median():.3g} | {g['coherence'].min():.3g} to "
            f"{g['coherence'].max():.3g} | {theirs:g} | {percentile_of(theirs, g['coherence']):.3g} |"
        )
    return "\n".join(lines)


def smoke_sizes(p) -> str:
    """The sizes of a quick run at parameters ``p``, for the heading of the page's smoke-scale run."""
    ns = [f"2^{{{int(v)}}}" for v in str(p["log2_ns"]).split(",") if v.strip()]
    return (
        f"$n \\in \\{{{', '.join(ns)}\\}}$, {int(p['n_draws'])} SRHT draws per $(n, k)$, "
        f"{int(p['k_per_octave'])} values of $k$ per octave"
    )
