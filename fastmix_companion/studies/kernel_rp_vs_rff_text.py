"""The sentences and text tables of the kernel comparison page (:mod:`fastmix_companion.studies.kernel_rp_vs_rff`).

The page displays what these return, generated from the study's tables (``runs``, ``sweep``,
``noise``), its claims and the stored parameters: the page's headline (what the kernel paper
claims and what our protocols show, from the verdicts), the verdict matrix with its rule stated
once, why RFF's wins cluster at one epsilon of the tuned protocol, the setting of a run, the
equal-M comparison in words, the noise table and how much more noise RP pays, the chosen
hyperparameters and how often they sat at the edge of their grid, and what differs from the
paper's setting.
"""

from __future__ import annotations

import math

import numpy as np

from fastmix_companion.claims import DOES_NOT_HOLD, HOLDS, NOT_COMPARABLE, UNDECIDED
from fastmix_companion.pages import tex_num
from fastmix_companion.studies import kernel_rp_vs_rff as study
from fastmix_companion.studies import kernel_rp_vs_rff_claims as kc

__all__ = [
    "headline_text",
    "matrix_markdown",
    "cluster_text",
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
    "smoke_sizes",
]


def _cells(claims):
    return [c for c in claims if kc.is_cell(c)]


def headline_text(claims) -> str:
    """The page's headline: the kernel paper's comparison claim, its verdict, and what our protocols show."""
    paper = next((c for c in claims if c.source == kc.FIGURE and c.claim.startswith("RP consistently")), None)
    cells = _cells(claims)
    if paper is None or not cells:
        return ""
    n = {v: sum(c.verdict == v for c in cells) for v in (HOLDS, DOES_NOT_HOLD, UNDECIDED)}
    why = (
        f"**{paper.verdict}** with our runs, because {paper.setting.differences[0]}"
        if paper.verdict == NOT_COMPARABLE
        else f"**{paper.verdict}** by its rule"
    )
    return (
        f"The kernel paper's headline experiment ({paper.source.location}) reports random projection consistently "
        f"better than RFF, the gap widening with $d$. That claim is {why}. In our protocols RP is not consistently "
        f"better: the check holds in {n[HOLDS]} of the {len(cells)} panel-protocol cells, does not hold in "
        f"{n[DOES_NOT_HOLD]} (RFF significantly better at some $\\varepsilon$ or overall) and is undecided in "
        f"{n[UNDECIDED]}."
        if n[HOLDS] < len(cells)
        else f"The kernel paper's headline experiment ({paper.source.location}) reports random projection consistently "
        f"better than RFF, the gap widening with $d$. That claim is {why}. In our protocols RP is consistently better "
        f"in all {len(cells)} panel-protocol cells."
    )


def matrix_markdown(matrix, claims) -> str:
    """The verdict matrix: one row per panel, one column per protocol, each cell its verdict and pooled ratio.

    ``matrix`` is :func:`fastmix_companion.studies.kernel_rp_vs_rff_claims.verdict_matrix`'s table, ``claims``
    the page's claims (the verdict words come from them). The rule, stated once, follows the table.
    """
    verdicts = {c.claim: c.verdict for c in _cells(claims)}
    protocols = [p for p in study.PROTOCOLS if (matrix["protocol"] == p).any()]
    lines = ["| panel | " + " | ".join(protocols) + " |", "|---|" + "---|" * len(protocols)]
    for panel in matrix["panel"].drop_duplicates():
        row = [panel.replace("_", " ")]
        for protocol in protocols:
            r = matrix[(matrix["panel"] == panel) & (matrix["protocol"] == protocol)]
            if r.empty:
                row.append("-")
                continue
            r = r.iloc[0]
            v = verdicts.get(kc.cell_name(panel, protocol), UNDECIDED)
            word = v if v in (UNDECIDED, NOT_COMPARABLE) else f"**{v}**"
            row.append(f"{word}: {r['ratio']:.2f}, RP {r['rp_better']} / RFF {r['rff_better']}")
        lines.append("| " + " | ".join(row) + " |")
    reps = int(matrix["reps"].min())
    return "\n".join(lines) + (
        '\n\nEach cell: the verdict on "in our protocol, RP better and RFF better at no epsilon" (our question), '
        f"the ratio RP / RFF pooled over the {int(matrix['epsilons'].max())} epsilons, and at how many epsilons "
        "RP and RFF are significantly better "
        f"({reps} repetitions). Rule: {kc.CELL_RULE}."
    )


def cluster_text(tests, runs, grid) -> str:
    """Why RFF's wins of the tuned protocol cluster at one epsilon: the grid edge there, and the ratio without it."""
    found = kc.rff_cluster(tests)
    if found is None:
        return "In the tuned protocol RFF is better than RP (unadjusted two-sided p < 0.05) at no epsilon."
    eps, panels, kept = found
    t, near = kc.edge_split(runs, grid, eps, panels)

    def rng(col):
        lo, hi = t[col].min(), t[col].max()
        return f"{lo:.0%}" if round(100 * lo) == round(100 * hi) else f"{lo:.0%}-{hi:.0%}"

    inner_sig = int((t["inner_low"] > 1).sum())
    near_txt = " and ".join(f"${e:g}$" for e in near)
    text = (
        f"In the tuned protocol RFF beats RP most often at $\\varepsilon = {eps:g}$: in {len(panels)} panels "
        f"({', '.join(p.replace('_', ' ') for p in panels)}) with unadjusted two-sided p < 0.05, of which {kept} "
        f"remain significant after Holm over the page's {tests['size']} tests. There the tuned $M$ sat at the top of "
        f"its grid ($M = {max(grid)}$) in {rng('top_RFF')} of RFF's and {rng('top_RP')} of RP's fits, against "
        f"{rng('near_top_RFF')} and {rng('near_top_RP')} at the neighbouring $\\varepsilon$ = {near_txt} (the larger "
        "of the two, per panel). The edge "
        "is shared by both methods (a wider grid could lower either's error), so it does not favour RFF by itself; "
        f"and over the repetitions where neither method's $M$ sat at the top, RP / RFF is "
        + "; ".join(
            f"{r['inner_ratio']:.2f} [{r['inner_low']:.2f}, {r['inner_high']:.2f}] ({r['panel'].replace('_', ' ')}, "
            f"{r['inner_reps']} repetitions)"
            for _, r in t.iterrows()
        )
        + f", above 1 with 95% confidence in {inner_sig} of {len(t)} panels. "
    )
    if inner_sig:
        text += (
            "The grid edge does not explain these wins, so the cells stay in the verdict; the tuned cells whose $M$ "
            "sat at the top of the grid say so in their setting."
        )
    else:
        text += (
            "Without the grid edge the wins are not significant: they may be an artefact of oracle selection at the "
            "edge; the tuned cells whose $M$ sat at the top of the grid say so in their setting."
        )
    return text


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


def smoke_sizes(p) -> str:
    """The sizes of a quick run at parameters ``p``, for the heading of the page's smoke-scale run."""
    dims = [v.strip() for v in str(p["dims"]).split(",") if v.strip()]
    eps = [v.strip() for v in str(p["epsilons"]).split(",") if v.strip()]
    return (
        f"$n = {int(p['n_train'])}$ training records, $d \\in \\{{{', '.join(dims)}\\}}$, "
        f"$\\varepsilon \\in \\{{{', '.join(eps)}\\}}$, {int(p['n_reps'])} repetitions per panel"
    )
