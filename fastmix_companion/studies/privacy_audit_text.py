"""The sentences and labelled tables of the privacy audit page (:mod:`fastmix_companion.studies.privacy_audit`).

The page displays what these return, generated from the study's tables (``designs``, ``optimised``,
``attack``) and parameters: the audited setting, the audit per design, the epsilon of each
bound beside the attack's, and what the gaps between them mean.
"""

from __future__ import annotations

from fastmix_companion.pages import tex_num
from fastmix_companion.studies import privacy_audit as study
from fastmix_companion.studies._verdict_sentences import checks_text

__all__ = [
    "checks_text",
    "audit_setting",
    "stored_setting_text",
    "design_table",
    "epsilon_summary",
    "tradeoff_caption",
    "findings_text",
    "smoke_sizes",
]


def audit_setting(p) -> str:
    """The audited setting, as MyST maths, from the run's parameters."""
    return (
        f"$n = {p['n']}$ rows, $d = {p['d']}$, an SRHT with $k_2 = {p['k2']}$ rows, $k_1 = {p['k1']}$ Gaussian "
        f"rows per release, target $\\gamma = {float(p['gamma']):g}$, $\\delta = {tex_num(p['delta'])}$"
    )


def stored_setting_text(p) -> str:
    """The setting of the stored audit, with its orders, optimiser starts and the attack's releases."""
    return (
        f"Setting: $n = {p['n']}$ rows, $d = {p['d']}$ columns, an SRHT with $k_2 = {p['k2']}$ rows, "
        f"$k_1 = {p['k1']}$ Gaussian rows per release, target $\\gamma = {p['gamma']:g}$, $\\delta = "
        f"{tex_num(p['delta'])}$, "
        f"{p['n_alphas']} Rényi orders, {p['n_starts']} optimiser starts, {p['n_releases']:,} releases per "
        f"hypothesis in the attack."
    )


def design_table(tables):
    """The exact audit per design and direction, then the optimised rows, with the page's column names."""
    import pandas as pd

    des = (
        tables["designs"]
        .drop(columns=["cell"])
        .rename(
            columns={
                "worst_ratio_exact": "worst ratio (φ)",
                "worst_ratio_bar": "worst ratio (φ̄)",
                "worst_ratio_simple": "worst ratio (eq. 8)",
                "gamma_first_min": "smallest γ of the first argument",
            }
        )
    )
    opt = tables["optimised"].rename(
        columns={
            "worst_ratio_exact": "worst ratio (φ)",
            "worst_ratio_bar": "worst ratio (φ̄)",
            "worst_ratio_simple": "worst ratio (eq. 8)",
            "gamma": "smallest γ of the first argument",
        }
    )
    opt = opt.assign(design=[f"{r.design}, row {r.index} optimised" for r in opt.itertuples()], pairs=1)
    return pd.concat([des, opt[des.columns]], ignore_index=True)


def epsilon_summary(tables):
    """The epsilon of the attack (certified and point), of the pair (exact) and of each accounted bound."""
    import pandas as pd

    att = tables["attack"].iloc[0]
    conf = float(att["confidence"])
    rows = {
        f"attack lower bound ({conf:.0%} confidence)": att["epsilon_lower"],
        "attack point estimate (no confidence correction)": att["epsilon_point"],
        "exact epsilon of this pair (privacy profile)": att["epsilon_exact"],
    }
    for b, label in study.BOUNDS.items():
        rows[f"accounted: {label}"] = att[f"epsilon_accounted_{b}"]
    return pd.Series(rows, name=f"epsilon at delta = {float(att['delta']):g}").to_frame()


def tradeoff_caption(tables) -> str:
    """The caption of the attack's trade-off figure: releases, confidence and the accounted epsilon and delta."""
    att = tables["attack"].iloc[0]
    return (
        "Error rates of the likelihood-ratio attack on the worst pair (false-negative against "
        f"false-positive rate) from {int(att['n_releases']):,} releases per hypothesis: empirical, Clopper-Pearson "
        f"upper limits at {float(att['confidence']):.0%} confidence, and exact; the shaded area is excluded by the "
        f"accounted guarantee $\\varepsilon = {float(att['epsilon_accounted_bar']):.3g}$ (from $\\bar\\phi$) at "
        f"$\\delta = {tex_num(att['delta'])}$."
    )


def findings_text(tables, checks) -> str:
    """The verdicts of ``checks`` (:func:`checks_text`), how much of Lemma 1's bound the worst pair uses, and the
    epsilon of each step.

    The phrase "which bind only for worse pairs than any found here" appears when no exact divergence
    exceeds the tightest bound (largest ratio at most 1).
    """
    att = tables["attack"].iloc[0]
    worst = design_table(tables)["worst ratio (φ)"].max()
    acc = {b: float(att[f"epsilon_accounted_{b}"]) for b in study.BOUNDS}
    lines = [checks_text(checks)] if checks else []
    lines.append(
        "The largest ratio of an exact divergence to the tightest bound ($\\phi$) is "
        f"{worst:.3g}, "
        f"so the worst pair found uses {worst:.0%} of what Lemma 1 allows at its worst order. "
        f"The $\\varepsilon$ values at the audited $\\delta$: certified attack bound {att['epsilon_lower']:.3g}, "
        f"attack point estimate {att['epsilon_point']:.3g}, exact {att['epsilon_exact']:.3g}, accounted "
        f"{acc['exact']:.3g} ($\\phi$), {acc['bar']:.3g} ($\\bar\\phi$, what Theorem 1 uses) and "
        f"{acc['simple']:.3g} (eq. 8). "
        f"The gap between the exact and the accounted $\\varepsilon$ ({acc['bar'] / att['epsilon_exact']:.2f} times "
        f"for $\\bar\\phi$) is the price of the worst-case steps of the proof (the row-norm control $C^2$ and "
        f"$\\|u_1\\| \\le 1$)"
        + (", which bind only for worse pairs than any found here" if worst <= 1 else "")
        + "; the gap between the attack and the exact value is "
        f"the price of estimating error rates from {int(att['n_releases']):,} releases per hypothesis."
    )
    return "\n\n".join(lines)


def smoke_sizes(p) -> str:
    """The sizes of a quick run at parameters ``p``, for the heading of the page's smoke-scale run."""
    return (
        f"$n = {int(p['n'])}$, $d = {int(p['d'])}$, $k_2 = {int(p['k2'])}$, {int(p['n_releases']):,} releases "
        "per hypothesis"
    )
