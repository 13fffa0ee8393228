"""The sentences and text tables of the kernel comparison page (:mod:`fastmix_companion.studies.kernel_rp_vs_rff`).

The page displays what these return, generated from the study's tables (``runs``, ``sweep``,
``noise``) and the stored parameters: the setting of a run, the equal-M comparison in words, the
noise table and how much more noise RP pays, the chosen hyperparameters and how often they sat at
the edge of their grid, and what differs from the paper's setting.
"""

from __future__ import annotations

import math

import numpy as np

from fastmix_companion.pages import tex_num
from fastmix_companion.studies import kernel_rp_vs_rff as study

__all__ = [
    "math_set",
    "runs_setting",
    "sweep_text",
    "stored_setting_text",
    "nonprivate_sweep_text",
    "private_sweep_text",
    "noise_epsilon",
    "noise_lead",
    "noise_markdown",
    "noise_factor_text",
    "hyper_markdown",
    "grid_edge_text",
    "differences_text",
]


def math_set(symbol, values) -> str:
    """``symbol`` in a set of comma-separated ``values``, as MyST text that can wrap between the values."""
    return f"${symbol} \\in \\{{$" + ", ".join(v.strip() for v in str(values).split(",")) + "$\\}$"


def runs_setting(runs) -> str:
    """Panels, epsilons and repetitions of a set of runs, as MyST maths."""
    eps = sorted(e for e in runs["epsilon"].unique() if np.isfinite(e))
    reps = runs.groupby("panel")["rep"].nunique()
    return (
        f"{runs['panel'].nunique()} panels, $\\varepsilon \\in \\{{{', '.join(f'{e:g}' for e in eps)}\\}}$, "
        f"{reps.min()}" + (f"-{reps.max()}" if reps.max() != reps.min() else "") + " repetitions per panel"
    )


def sweep_text(sweep, lam) -> str:
    """The caption of the equal-M sweep: lambda, the sweep's epsilons and its range of M."""
    eps = sorted(e for e in sweep["epsilon"].unique() if np.isfinite(e))
    return (
        f"Equal-$M$ sweep: mean test error against the projection dimension $M$ at $\\lambda = {lam:g}$, for both "
        "methods without privacy and at $\\varepsilon \\in \\{" + ", ".join(f"{e:g}" for e in eps) + "\\}$, "
        f"$M$ from {int(sweep['M'].min())} to {int(sweep['M'].max())}"
    )


def stored_setting_text(runs, p) -> str:
    """The stored run's setting, and whether it is partial (fewer repetitions than planned in some panel)."""
    reps = runs.groupby("panel")["rep"].nunique()
    partial = reps.min() < p["n_reps"]
    eps_set, lam_set = math_set("\\varepsilon", p["epsilons"]), math_set("\\lambda", p["lam_grid"])
    return (
        f"Setting: $n = {p['n_train']}$ training, {p['n_val']} validation and {p['n_test']} test points per "
        f"repetition on the synthetic panels, $\\delta = {tex_num(p['delta'])}$, $T = {p['response_bound']:g}$, "
        f"noise sd {p['noise_sd']:g}, Gaussian kernel with bandwidth $\\sqrt d$, {eps_set}, "
        f"tuning grid {math_set('M', p['m_grid'])} and {lam_set}, "
        f"private selection over {math_set('M', p['sel_m_grid'])} and the same $\\lambda$ grid. "
        f"Stored: {reps.min()}-{reps.max()} of the {p['n_reps']} planned repetitions per panel"
        + (" - **the run is partial, so intervals are wider than they will be**." if partial else ".")
    )


def nonprivate_sweep_text(sweep, grid) -> str:
    """Without privacy, at each M of ``grid``: in how many panels RP's error is lower or higher (95%), median ratio."""
    rows = []
    for M in grid:
        eq = study.equal_m_comparison(sweep, math.inf, M)
        if not eq.empty:
            rows.append((M, int((eq["high"] < 1).sum()), int((eq["low"] > 1).sum()), len(eq), eq["ratio"].median()))
    return (
        "Without privacy, each method at its best $\\lambda$ for the given $M$: "
        + "; ".join(
            f"M = {M}: RP lower in {b}, higher in {w} of {n} panels (median ratio {r:.2f})" for M, b, w, n, r in rows
        )
        + "."
    )


def private_sweep_text(sweep, grid, lam) -> str:
    """With privacy, at each sweep epsilon and the smallest and largest M: RP's error over RFF's; "" if none."""
    parts = []
    for eps in sorted(e for e in sweep["epsilon"].unique() if np.isfinite(e)):
        for M in (grid[0], grid[-1]):
            eq = study.equal_m_comparison(sweep, eps, M, lam=lam)
            if not eq.empty:
                parts.append(
                    f"at $\\varepsilon = {eps:g}$ and M = {M}, RP's error is {eq['ratio'].median():.2f} times "
                    f"RFF's (median over {len(eq)} panels; below 1 with 95% confidence in "
                    f"{int((eq['high'] < 1).sum())}, above in {int((eq['low'] > 1).sum())})"
                )
    return ("With privacy, at $\\lambda = " + f"{lam:g}$: " + "; ".join(parts) + ".") if parts else ""


def noise_epsilon(sweep) -> float:
    """The epsilon the noise table shows: 1 when the sweep ran at it, else the smallest epsilon of the sweep."""
    return 1.0 if 1.0 in set(sweep["epsilon"]) else sorted(sweep["epsilon"])[0]


def noise_lead(eps, lam) -> str:
    """The line above the noise table: the epsilon and lambda it is read at."""
    return f"At $\\varepsilon = {eps:g}$ and $\\lambda = {lam:g}$:"


def noise_markdown(noise, sweep, eps, lam) -> str:
    """The noise table (norm bounds, noise sds, floored shares per M) as a Markdown table."""
    t = study.noise_summary(noise, sweep, eps, lam)
    lines = [
        "| M | $D_2$ RP | $D_2$ RFF | sd on $\\tilde C$ RP | sd on $\\tilde C$ RFF | sd on $\\tilde u$ RP "
        "| sd on $\\tilde u$ RFF | floored share RP | floored share RFF |",
        "|" + "---|" * 9,
    ]
    for _, r in t.iterrows():
        lines.append(
            f"| {int(r['M'])} | {r['D2_RP']:.2f} | {r['D2_RFF']:.2f} | {r['sigma_C_RP']:.2e} | "
            f"{r['sigma_C_RFF']:.2e} | {r['sigma_u_RP']:.2e} | {r['sigma_u_RFF']:.2e} | "
            f"{r['floored_share_RP']:.0%} | {r['floored_share_RFF']:.0%} |"
        )
    return "\n".join(lines)


def noise_factor_text(noise, sweep, eps, lam) -> str:
    """How much larger RP's norm bound and covariance noise are than RFF's at the smallest and largest M."""
    t = study.noise_summary(noise, sweep, eps, lam)
    small, large = t.iloc[0], t.iloc[-1]
    return (
        f"At the smallest $M = {int(small['M'])}$ RP's norm bound is {small['D2_RP'] / small['D2_RFF']:.1f} times "
        f"RFF's, so its covariance noise is {small['sigma_C_RP'] / small['sigma_C_RFF']:.1f} times larger; at "
        f"$M = {int(large['M'])}$ the factor is {large['sigma_C_RP'] / large['sigma_C_RFF']:.2f}."
    )


def hyper_markdown(runs) -> str:
    """The hyperparameters each protocol chose (medians, shares at the grid edge, capped, floored), as Markdown."""
    h = study.chosen_hyperparameters(runs)
    h = h[np.isfinite(h["epsilon"])]
    lines = [
        "| protocol | method | $\\varepsilon$ | median M | median $\\lambda$ | M at grid edge | "
        "$\\lambda$ at grid edge | M capped | floored share |",
        "|" + "---|" * 9,
    ]

    def pct(v):
        return "-" if not np.isfinite(v) else f"{v:.0%}"

    for _, r in h.iterrows():
        lines.append(
            f"| {r['protocol']} | {r['method']} | {r['epsilon']:g} | {r['M_median']:g} | "
            f"{r['lam_median']:.2g} | {pct(r['M_edge'])} | {pct(r['lam_edge'])} | {pct(r['M_capped'])} | "
            f"{pct(r['floored'])} |"
        )
    return "\n".join(lines)


def grid_edge_text(runs, grid) -> str:
    """How often the tuned M of each method's private fits sat at the top and at the bottom of ``grid``."""
    tuned = runs[(runs["protocol"] == "tuned") & runs["method"].isin(study.METHODS) & np.isfinite(runs["epsilon"])]
    top = tuned.groupby("method")["M"].apply(lambda m: float((m == grid[-1]).mean()))
    bottom = tuned.groupby("method")["M"].apply(lambda m: float((m == grid[0]).mean()))
    return (
        f"The tuned $M$ sat at the top of its grid ($M = {grid[-1]}$) in {top.get('RP', 0):.0%} of RP's and "
        f"{top.get('RFF', 0):.0%} of RFF's private fits, and at the bottom ($M = {grid[0]}$) in "
        f"{bottom.get('RP', 0):.0%} and {bottom.get('RFF', 0):.0%}. Where it sits at the top, a wider grid could "
        f"lower that method's tuned error, so the tuned comparison is only as fair as these shares are similar."
    )


def differences_text(runs, p) -> str:
    """What differs from the paper's setting, with the epsilons at which the theory's M for RFF was capped."""
    capped = runs[(runs["protocol"] == "theory") & (runs["method"] == "RFF")]
    capped_eps = sorted(capped.loc[capped["M_capped"].astype(str) == "True", "epsilon"].unique())
    return (
        f"The paper's $n$, $M$, $\\lambda$, $\\delta$, bandwidth and data are unknown; ours are stated above. Our "
        f"$n = {p['n_train']}$ is modest because the exact Gaussian-process paths cost $O(N^3)$ "
        f"in the number $N$ of points of a repetition. The theory's $M$ for RFF, $(n\\varepsilon)^{{2/3}}$, "
        f"exceeds the largest drawn dimension $M = {study.M_grid(p)[-1]}$ at "
        + (f"$\\varepsilon \\in \\{{{', '.join(f'{e:g}' for e in capped_eps)}\\}}$" if capped_eps else "no epsilon")
        + " and is capped there. The private protocol pays twice for selection: it fits on "
        f"{1 - p['sel_fraction']:.0%} of the records and shares the budget among the releases of "
        f"{len(p['sel_m_grid'].split(','))} projection dimensions, "
        "so its errors are not directly comparable with the other two protocols; they are the price of "
        "choosing hyperparameters on private data. No ablation that departs from the paper's algorithms (clipped "
        "RP features, sin/cos RFF with norm bound 1) is part of these results."
    )
