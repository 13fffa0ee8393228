"""The sentences and text tables of the Figure 1 page (:mod:`fastmix_companion.studies.figure1`).

The page displays what these return, generated from the study's tables (``curves``, ``c2_used``)
and parameters: the panels and setting of a run, where the measured C^2 comes from (and whether
the Section 3 entry changed since), the findings under the claims table, the sigma table, and
why the measured curves lie where they do.
"""

from __future__ import annotations

import numpy as np

from fastmix_companion.studies import figure1 as study
from fastmix_companion.studies.section3_text import verdicts_text

__all__ = [
    "panels_text",
    "setting_text",
    "stored_setting_text",
    "findings_text",
    "sigma_table",
    "measured_c2_text",
    "smoke_sizes_text",
]


def panels_text(curves) -> str:
    """Which n each panel shows, as maths: "$n = 10^4$ (left) and $n = 10^5$ (right)"."""
    ns = [rf"$n = 10^{{{round(float(np.log10(n)))}}}$" for n in sorted(curves["n"].unique())]
    return " (left) and ".join(ns) + (" (right)" if len(ns) == 2 else "")


def setting_text(p) -> str:
    """The setting of a run, as MyST maths, from its parameters."""
    return (
        f"$k = {p['k']}$ Gaussian rows, $d = {p['d']}$, $\\delta = n^{{-{float(p['delta_exponent']):g}}}$, "
        f"$\\lambda_{{\\min}}(X) = n/(8d)$ and $\\lambda_{{\\min}}(S_f X) = \\tfrac56\\lambda_{{\\min}}(X)$, "
        f"{p['n_eps']} targets from $\\varepsilon = {float(p['eps_min']):g}$ to ${float(p['eps_max']):g}$"
    )


def stored_setting_text(tables, p, root=None) -> str:
    """The stored setting and where its measured C^2 comes from; says so when the Section 3 entry (read
    from ``root``, the results store by default) now gives another C^2, and names designs with none."""
    used = tables["c2_used"]
    have = used[used["state"] != "missing"]
    lines = [
        f"Setting: $d = {p['d']}$, $k = {p['k']}$ Gaussian rows, $\\delta = n^{{-{p['delta_exponent']:g}}}$, "
        f"{p['n_eps']} targets from {p['eps_min']:g} to {p['eps_max']:g}."
    ]
    if len(have):
        r0 = have.iloc[0]
        lines.append(
            f"The measured $C^2$ comes from `results/{r0.source}/` (commit `{str(r0.commit)[:10]}`, "
            f"{r0.state} when read): the mean of $1 + 2\\widehat m$ over {int(r0.n_draws)} SRHT draws at "
            f"$n = {int(r0.n_section3)}$, $d = {int(r0.d_section3)}$ and the paper's $k_2 = {int(r0.k2)}$ "
            f"($r = {r0.k2_ratio:g}$), which is "
            + " and ".join(
                f"{r.c2_mean:.3g} [{r.c2_low:.3g}, {r.c2_high:.3g}] on the {r.design.replace('synthetic_', '')} design"
                for r in have.itertuples()
            )
            + "."
        )
        now = [study.measured_c2(r.source, r.design, r.k2_ratio, root=root) for r in have.itertuples()]
        if any(not np.isclose(a["c2_mean"], r.c2_mean) for a, r in zip(now, have.itertuples(), strict=True)):
            lines.append(
                "**The Section 3 entry has changed since this figure was computed**; recompute it with the "
                "command in the note above."
            )
    missing = used[used["state"] == "missing"]
    if len(missing):
        lines.append("No Section 3 measurement was stored for: " + ", ".join(missing["design"]) + ".")
    return " ".join(lines)


def findings_text(tables, checks) -> str:
    """The verdicts of ``checks`` (:func:`~fastmix_companion.studies.section3_text.verdicts_text`), the
    weakest reduction against the constant-free Upadhyay form, and per n what the measured C^2 costs
    against the caption's C^2 = 2 (variance factor, and from which target no noise)."""
    curves = tables["curves"]
    text = [verdicts_text(checks)]
    free = study.variance_ratios(curves, "upadhyay_free")
    worst = free.loc[free["median"].idxmin()]
    text.append(
        f"The smallest median reduction against the constant-free Upadhyay form is {worst['median']:.3g} "
        f"({study.curve_label(worst['curve'], worst['design'], worst['c2'])}, $n = {int(worst['n'])}$), so the "
        "weakest FastMix bound is the one that decides how robust the paper's 'two orders of magnitude' is."
    )
    eps_grid = np.sort(curves["epsilon"].unique())

    def frm(z):
        return f"none from $\\varepsilon = {z.min():.3g}$ on" if z.size else "some at every target"

    for n in sorted(curves["n"].unique()):
        c = curves[curves["n"] == n]
        base = c[c["curve"] == "fastmix_c2"].set_index("epsilon")["sigma"]
        parts = []
        for design, g in c[c["curve"] == "fastmix_measured"].groupby("design"):
            s = g.set_index("epsilon")["sigma"]
            both = (s > 0) & (base > 0)
            ratio = (s[both] / base[both]) ** 2
            zero_b = eps_grid[(base.reindex(eps_grid) == 0).to_numpy()]
            zero_m = eps_grid[(s.reindex(eps_grid) == 0).to_numpy()]
            parts.append(
                f"with the {design.replace('synthetic_', '')} design's $C^2 = {g['c2'].iloc[0]:.3g}$ FastMix needs "
                f"{ratio.min():.3g} to {ratio.max():.3g} times the variance of the $C^2 = 2$ curve where both need "
                f"noise, and needs {frm(zero_m)} (the $C^2 = 2$ curve needs {frm(zero_b)})"
            )
        if parts:
            text.append(f"For $n = {int(n)}$, " + "; ".join(parts) + ".")
    return "\n\n".join(text)


def sigma_table(curves, targets=(0.01, 0.1, 1.0, 10.0)):
    """sigma at a few targets (log-log interpolation on the grid) and the last target needing noise."""
    import pandas as pd

    rows = []
    for (n, curve, design), g in curves.groupby(["n", "curve", curves["design"].fillna("")], sort=False):
        g = g.sort_values("epsilon")
        e, s = g["epsilon"].to_numpy(), g["sigma"].to_numpy()
        pos = np.flatnonzero(s > 0)
        row = {
            "n": int(n),
            "curve": study.curve_label(curve, design.replace("synthetic_", "") or None, g["c2"].iloc[0]),
        }
        for t in targets:
            if e.min() <= t <= e.max():
                row[f"sigma at eps={t:g}"] = float(np.interp(np.log(t), np.log(e), s))
        row["sigma > 0 up to eps"] = float(e[pos[-1]]) if pos.size else np.nan
        rows.append(row)
    return pd.DataFrame(rows)


def measured_c2_text(tables, p) -> str:
    """Why the measured curves lie where they do: the measured C^2 over the caption's, and with C^2 = 2
    FastMix's variance over GaussMix's where both need noise (left out when they never both do)."""
    have = tables["c2_used"][tables["c2_used"]["state"] != "missing"]
    gm = tables["curves"][tables["curves"]["curve"] == "gaussmix"]
    fc = tables["curves"][tables["curves"]["curve"] == "fastmix_c2"]
    both = (gm["sigma"].to_numpy() > 0) & (fc["sigma"].to_numpy() > 0)
    close = (fc["sigma"].to_numpy()[both] / gm["sigma"].to_numpy()[both]) ** 2
    return (
        "Why the measured curves lie where they do: the $C^2$ that an SRHT of the paper's size gives on the "
        "paper's synthetic designs is "
        + " and ".join(
            f"{r.c2_mean / float(p['c2']):.3g} times the caption's "
            f"$C^2 = {float(p['c2']):g}$ on the {r.design.replace('synthetic_', '')} design"
            for r in have.itertuples()
        )
        + ". A target $\\varepsilon$ requires roughly the same $\\gamma = (\\lambda_{\\min}(S_f X) + "
        "\\sigma^2)/C^2$ whatever $C^2$ is (the exact bound also depends on $C^2$, more weakly), so "
        "$\\sigma^2 + \\lambda_{\\min}(S_f X)$ grows about in proportion to $C^2$. "
        + (
            f"With $C^2 = 2$, FastMix needs {close.min():.3g} to {close.max():.3g} times GaussMix's variance "
            "where both need noise. "
            if close.size
            else ""
        )
        + "This page keeps Figure 1's $\\lambda_{\\min}(S_f X) = \\tfrac56\\lambda_{\\min}(X)$; the same Section "
        "3 draws keep "
        + " and ".join(f"{r.lambda_ratio_mean:.3f}" for r in have.itertuples())
        + " of $\\lambda_{\\min}(X)$."
    )


def smoke_sizes_text(p) -> str:
    """The sizes of the quick check at parameters ``p`` (the notebook's parameters cell), as MyST maths."""
    return (
        f"Sizes of this quick check: {p['n_eps']} target $\\varepsilon$ from {float(p['eps_min']):g} to "
        f"{float(p['eps_max']):g}, $d = {p['d']}$ and $k = {p['k']}$ Gaussian rows."
    )
