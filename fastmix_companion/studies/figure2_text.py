"""The sentences and display tables of the Figure 2 page (:mod:`fastmix_companion.studies.figure2`).

The page displays what these return; the numbers behind each sentence (FastIHM over IHM, IHM over
FastIHS, the reversals, the budget factor) are computed by the study. The claims' verdicts are told
in the verdict words (:data:`fastmix_companion.claims.VERDICTS`) with whose claim each is, and each
sentence's reading ("it does not", "there the smaller sketch adds more Hessian noise") is decided
here. The tables of the noise section (calibrated noise levels, FastIHM's eta per ratio) and of the
accounting section (IHM's gamma under the classical bound, the gradient-variance factor) are
assembled here too.
"""

from __future__ import annotations

import numpy as np

from fastmix_companion.claims import HOLDS, NOT_COMPARABLE
from fastmix_companion.studies import figure2 as F
from fastmix_companion.studies import figure2_claims as FC

__all__ = [
    "setting_text",
    "stored_setting_text",
    "reversal_text",
    "tally_text",
    "verdict_line",
    "findings_text",
    "ratios_text",
    "accounting_text",
    "skipped_lines",
    "eta_ratios",
    "eta_table",
    "noise_table",
    "accounting_table",
    "ACCOUNTING_SAVED",
    "ACCOUNTING_FACTOR",
    "smoke_sizes_text",
]


def setting_text(tables, params) -> str:
    """What a run computed, as MyST maths: each dataset's shape, T, the trials and the epsilon range."""
    shapes = "; ".join(f"{r.dataset} ($n = {int(r.n)}$, $d = {int(r.d)}$)" for r in tables["datasets"].itertuples())
    eps = sorted(e for e in tables["runs"]["epsilon"].unique() if np.isfinite(e))
    return (
        f"{shapes}; $T = {params['T']}$ iterations, {params['trials']} trials per point, "
        f"$\\varepsilon$ from {min(eps):g} to {max(eps):g}"
    )


def stored_setting_text(tables, params) -> str:
    """The setting of the stored paper-scale run, with how many runs, cells and trials it holds."""
    done = tables["runs"].groupby("cell")["trial"].count()
    return (
        f"Setting: $n = 2^{{{params['log2_n']}}}$ rows and $d = {params['d']}$ features for the synthetic designs, "
        f"$T = {params['T']}$, {params['trials']} trials per point, $\\varepsilon \\in "
        f"\\{{{params['epsilons'].replace(',', ', ')}\\}}$, the paper's ratios for each dataset, IHM through its "
        f"Gram factor ({len(tables['runs'])} runs in {len(done)} cells, each with {done.min()}-{done.max()} trials)."
    )


def reversal_text(rev: dict, dataset: str) -> str:
    """A cell of :func:`reversals` in words, and whether Hessian noise explains it (the smaller sketch adds more)."""
    from fastmix_companion.claims import format_interval

    noise = (
        f"mean $\\eta$ {rev['smaller_eta_mean']:.3g} with $\\eta > 0$ in {rev['smaller_eta_positive']:.0%} "
        f"of trials, against {rev['larger_eta_mean']:.3g} and {rev['larger_eta_positive']:.0%}"
    )
    why = (
        f"There the smaller sketch adds more Hessian noise ({noise}): consistent with the implicit "
        "regularisation by Hessian noise to which Section 4.1 attributes FastIHM's non-monotone "
        "curve in $\\varepsilon$."
        if rev["smaller_eta_mean"] > rev["larger_eta_mean"]
        else f"The Hessian noise does not explain it: the smaller sketch adds no more of it ({noise})."
    )
    small, large = rev["smaller_over_ihm"], rev["larger_over_ihm"]
    loss = (
        f"FastIHM / IHM is {format_interval(small)} at the smaller and {format_interval(large)} at the larger "
        "sketch, so "
        + (
            "the larger sketch brings a loss against IHM back. "
            if large.low > 1
            else "the larger sketch is not shown to lose against IHM: a reversal in risk, not a loss coming back. "
        )
    )
    return (
        f"At $\\varepsilon = {rev['epsilon']:g}$ on {dataset} the larger sketch ($r = {rev['larger']:g}$) is "
        f"significantly *worse* than $r = {rev['smaller']:g}$ (ratio {format_interval(rev['ratio'])}). " + loss + why
    )


def tally_text(checks) -> str:
    """How many of ``checks`` carry each verdict, and whose claims they are, in one sentence."""
    from fastmix_companion.studies._verdict_sentences import whose_tally

    return whose_tally(checks, "the FastMix paper's claims in Section 4.1")


def verdict_line(c) -> str:
    """One claim whose verdict is not "holds": the verdict, whose claim, and what was measured (or, for a
    paper's claim outside its setting, why it is not comparable)."""
    text = f"*{c.claim}* ({c.source}): {c.verdict}"
    if c.verdict == NOT_COMPARABLE:
        return text + f", because the run differs from the paper's: {'; '.join(c.setting.differences)}."
    return text + f"; we measured {c.measured}."


def findings_text(tables, checks, epsilons=None) -> str:
    """The paragraphs under the claims table: the tally of ``checks`` by verdict and a line per claim that does
    not simply hold; then per dataset FastIHM (largest r) against IHM at both ends of the grid, whether IHM sits at
    the FastIHS level there, and the reversals (significant in the page's family of tests, ``epsilons`` the run's
    grid as for the claims)."""
    from fastmix_companion.claims import format_interval

    runs, calib = tables["runs"], tables["calibration"]
    lines = [tally_text(checks)] + [verdict_line(c) for c in checks if c.verdict != HOLDS]
    family = FC.page_family(tables, epsilons)
    for name in tables["datasets"]["dataset"]:
        fast = runs[(runs["dataset"] == name) & (runs["method"] == "FastIHM")]
        if fast.empty:
            continue
        r3, e_lo, e_hi = float(fast["k2_ratio"].max()), float(fast["epsilon"].min()), float(fast["epsilon"].max())
        lo, hi = F.fastihm_over_ihm(runs, name, e_lo, r3), F.fastihm_over_ihm(runs, name, e_hi, r3)
        if lo is None or hi is None:
            lines.append(f"On **{name}** the stored run does not yet cover both ends of the grid.")
            continue
        text = (
            f"On **{name}**, FastIHM with $r = {r3:g}$ has {format_interval(lo)} times IHM's excess risk at "
            f"$\\varepsilon = {e_lo:g}$ and {format_interval(hi)} times at $\\varepsilon = {e_hi:g}$; if gradient "
            f"noise set both errors there, the budget split alone would give a factor of "
            f"{F.budget_factor(calib, name, e_hi):.2f}."
        )
        iv = F.ihm_over_fastihs(runs, name, e_hi)
        if iv is not None:
            text += (
                f" It does not: IHM is at the non-private FastIHS level there ({format_interval(iv)} times "
                "FastIHS's risk), so the sketches, not the privacy noise, set the error of both methods."
                if iv.contains(1.0)
                else f" IHM's risk there is {format_interval(iv)} times the non-private FastIHS's."
            )
        lines.append(text)
        lines.extend(reversal_text(rev, name) for rev in F.reversals(runs, name, family=family))
    return "\n\n".join(lines)


def ratios_text(ratios) -> str:
    """The lead of the eta table: each dataset's ratios ``r_1, r_2, ...`` (``ratios``: dataset -> values)."""
    listed = "; ".join(
        f"{name}: " + ", ".join(f"$r_{j + 1} = {r:g}$" for j, r in enumerate(sorted(rs))) for name, rs in ratios.items()
    )
    return (
        "FastIHM's Hessian noise $\\eta$, mean over trials, with the share of trials in which it is zero; "
        f"the ratios are {listed}."
    )


def accounting_text(saved, factor) -> str:
    """How much smaller the analytic release makes IHM's gamma over the grid (``saved``, shares), and the
    range of FastIHM's gradient-variance factor over IHM's (``factor``)."""
    return (
        f"Over this grid the analytic release makes IHM's $\\gamma$ {min(saved):.1%} to {max(saved):.1%} smaller "
        f"than the authors' accounting would, and FastIHM's gradient noise has {min(factor):.2f} to "
        f"{max(factor):.2f} times IHM's variance."
    )


def _fastihm_summary(tables):
    """FastIHM's rows of :func:`~fastmix_companion.studies.figure2.summary`, with ``ratio``: the rank (1, 2, ...)
    of each row's ``k2_ratio`` among its dataset's ratios."""
    s = F.summary(tables["runs"])
    fast = s[s["method"] == "FastIHM"]
    return fast.assign(ratio=fast.groupby("dataset")["k2_ratio"].rank(method="dense").astype(int))


def _eta_pivot(tables):
    fast = _fastihm_summary(tables)
    text = [f"{m:.3g} ({z:.0%})" for m, z in zip(fast["eta_mean"], fast["eta_zero"], strict=True)]
    eta = fast.assign(text=text).pivot_table(
        index=["dataset", "epsilon"], columns="ratio", values="text", aggfunc="first"
    )
    eta.columns = [f"mean η at r{j} (share η = 0)" for j in eta.columns]
    return eta


def eta_ratios(tables):
    """Each dataset's FastIHM ratios ``k2_ratio`` (a Series: dataset -> array), for :func:`ratios_text`."""
    return _fastihm_summary(tables).groupby("dataset")["k2_ratio"].unique()


def eta_table(tables):
    """FastIHM's Hessian noise per dataset and epsilon, one column per ratio r_j: "mean eta (share of trials
    with eta = 0)", as text; datasets named with spaces for display."""
    eta = _eta_pivot(tables).reset_index().rename(columns={"epsilon": "ε"})
    eta["dataset"] = eta["dataset"].str.replace("_", " ")
    return eta


def noise_table(tables):
    """The calibrated noise per dataset and epsilon where FastIHM ran: lambda_min(X^T X) of the dataset, gamma of
    IHM and of FastIHM, and FastIHM's omega and tau (from the ``calibration`` table), with the page's headers."""
    cells = _eta_pivot(tables).index
    lam = tables["datasets"].set_index("dataset")["lambda_min"]
    noise = tables["calibration"].set_index(["dataset", "epsilon"])[["gamma_ihm", "gamma_fastihm", "omega", "tau"]]
    noise = noise.loc[noise.index.isin(cells)].reset_index()
    noise.insert(1, "λ_min(XᵀX)", noise["dataset"].map(lam))
    noise = noise.rename(
        columns={"epsilon": "ε", "gamma_ihm": "γ IHM", "gamma_fastihm": "γ FastIHM", "omega": "ω", "tau": "τ"}
    )
    noise["dataset"] = noise["dataset"].str.replace("_", " ")
    return noise


ACCOUNTING_SAVED = "saved by the analytic release"
"""The column of :func:`accounting_table` with the share of IHM's gamma that the analytic release saves."""

ACCOUNTING_FACTOR = "σ_g² FastIHM / σ_g² IHM"
"""The column of :func:`accounting_table` with FastIHM's gradient-noise variance over IHM's."""


def accounting_table(tables, T: int):
    """Per dataset and epsilon: IHM's gamma, the gamma the classical Gaussian bound would give its lambda_min
    release (:func:`fastmix.regression.ihm_gamma_classical_eigenvalue` at delta = 1/n^2 and the run's k1 and
    ``T``), the share the analytic release saves (1 - gamma / classical gamma), both gradient-noise scales and
    FastIHM's gradient variance over IHM's, (sigma_g FastIHM / sigma_g IHM)^2; with the page's headers."""
    from fastmix.regression import ihm_gamma_classical_eigenvalue

    cal = tables["calibration"]
    n = tables["datasets"].set_index("dataset")["n"]
    classical = [
        ihm_gamma_classical_eigenvalue(e, 1.0 / float(n.loc[name]) ** 2, k=int(k), T=int(T))
        for name, e, k in zip(cal["dataset"], cal["epsilon"], cal["k1"], strict=True)
    ]
    return (
        cal[["dataset", "epsilon", "gamma_ihm"]]
        .assign(classical=classical)
        .assign(
            saved=lambda t: 1.0 - t["gamma_ihm"] / t["classical"],
            ihm=cal["ihm_sigma_gradient"],
            fast=cal["fastihm_sigma_gradient"],
            factor=(cal["fastihm_sigma_gradient"] / cal["ihm_sigma_gradient"]) ** 2,
            dataset=lambda t: t["dataset"].str.replace("_", " "),
        )
        .set_axis(
            [
                "dataset",
                "ε",
                "γ IHM",
                "γ IHM (classical)",
                ACCOUNTING_SAVED,
                "σ_g IHM",
                "σ_g FastIHM",
                ACCOUNTING_FACTOR,
            ],
            axis=1,
        )
    )


def skipped_lines(skipped) -> list[str]:
    """One line per dataset a run left out (the study's ``skipped`` table): its name and the first line of why."""
    return [f"skipped {item.dataset}: {item.reason.splitlines()[0]}" for item in skipped.itertuples()]


def smoke_sizes_text(p) -> str:
    """The sizes of the quick check at parameters ``p`` (the notebook's parameters cell), as MyST maths."""
    names = [name.strip() for name in str(p["datasets"]).split(",") if name.strip()]
    eps = [e.strip() for e in str(p["epsilons"]).split(",") if e.strip()]
    ratios = "the paper's own per dataset" if p["use_paper_ratios"] else str(p["k2_ratios"]).replace(",", ", ")
    text = (
        f"Sizes of this quick check: {', '.join(names)}; synthetic sets of $n = 2^{{{p['log2_n']}}}$ rows and "
        f"$d = {p['d']}$ features"
    )
    if "nycflights" in names:
        rows = f"{int(p['nycflights_rows']):,} rows drawn" if int(p["nycflights_rows"]) else "all complete rows"
        text += f", nycflights with {rows}"
    return (
        text + f"; ratios $r$ = {ratios}; {len(eps)} value{'s' if len(eps) != 1 else ''} of $\\varepsilon$, "
        f"{p['trials']} trial{'s' if int(p['trials']) != 1 else ''} per point, $T = {p['T']}$."
    )
