# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Figure 1: how much noise does a target epsilon cost?
#
# Figure 1 of the FastMix paper {cite:p}`lev2026fastmix` (Section 3) plots the noise standard deviation
# $\sigma$ that each privacy accounting needs to reach a target $\varepsilon$, for $n \in \{10^4, 10^5\}$
# rows, and Section 3 reads it as FastMix cutting $\sigma^2$ by more than two orders of magnitude against
# Upadhyay's bound. This page redraws the figure from the results store and adds FastMix with the row
# bound $C^2_{S_f X}$ that an SRHT of the paper's size actually produces, as measured on the
# {doc}`Section 3 page <section3_fastmix>`.

# %% tags=["remove-input"]

import matplotlib.pyplot as plt
import numpy as np
from IPython.display import Markdown, display

from fastmix_companion.pages import caption, stored_entry, use_book_style
from fastmix_companion.provenance import provenance_report
from fastmix_companion.studies import figure1 as study
from fastmix_companion.studies import figure1_text as text
from fastmix_companion.studies import run_study

NAME = "figure1_noise_scale"
page = stored_entry(NAME, "curves", "c2_used")
STYLE = {
    "upadhyay": ("C3", "-", "^"),
    "fastmix_unbounded": ("C1", "-", "o"),
    "fastmix_c2": ("C0", "-", "s"),
    "gaussmix": ("C2", "--", "*"),
}
MEASURED_STYLE = {"synthetic_correlated": ("C4", "-.", "d"), "synthetic_sphere": ("C9", ":", "P")}


# Figures fill the book's content column: larger text (fastmix_companion.pages.BOOK_STYLE).
use_book_style()


def positive(values):
    """Mask zeros so that they are not drawn on a log axis."""
    values = np.asarray(values, dtype=float)
    return np.where(values > 0, values, np.nan)


def tex(label):
    """A curve label with its C^2 set as mathematics."""
    return label.replace("C^2", "$C^2$").replace("$C^2$ -> inf", r"$C^2 \to \infty$")


def draw_figure(curves, *, title):
    """Figure 1: sigma against target epsilon, one panel per n, every curve of the ``curves`` table."""
    ns = sorted(curves["n"].unique())
    fig, axes = plt.subplots(1, len(ns), figsize=(11, 5), sharey=True, squeeze=False)
    for ax, n in zip(axes[0], ns, strict=True):
        c = curves[curves["n"] == n]

        def get(curve, design=None, c=c):
            sel = c[(c["curve"] == curve) & ((c["design"] == design) if design else c["design"].isna())]
            return sel.sort_values("epsilon")

        up, free = get("upadhyay"), get("upadhyay_free")
        ax.fill_between(up["epsilon"], free["sigma"], up["sigma"], color="C3", alpha=0.15, lw=0)
        for curve in ("upadhyay", "fastmix_unbounded", "fastmix_c2", "gaussmix"):
            g = get(curve)
            color, ls, marker = STYLE[curve]
            ax.plot(
                g["epsilon"],
                positive(g["sigma"]),
                color=color,
                ls=ls,
                lw=2,
                marker=marker,
                markevery=6,
                label=tex(study.curve_label(curve, None, g["c2"].iloc[0])),
            )
        for design, (color, ls, marker) in MEASURED_STYLE.items():
            g = get("fastmix_measured", design)
            if len(g):
                ax.plot(
                    g["epsilon"],
                    positive(g["sigma"]),
                    color=color,
                    ls=ls,
                    lw=2,
                    marker=marker,
                    markevery=6,
                    label=tex(study.curve_label("fastmix_measured", design.replace("synthetic_", ""), g["c2"].iloc[0])),
                )
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(r"target $\varepsilon$")
        ax.set_title(rf"$n = 10^{{{round(float(np.log10(n)))}}}$")
        ax.grid(True, which="major", alpha=0.3)
    axes[0][0].set_ylabel(r"required noise std $\sigma$")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=9.5, frameon=False)
    fig.suptitle(title, fontsize=11)
    plt.tight_layout(rect=(0, 0.15, 1, 1))
    plt.show()


stored = page.tables

# %% mystnb={"figure": {"caption": "**Figure 1.** {glue:md}`fig1-noise-scale-caption:myst`", "name": "fig1-noise-scale"}} tags=["remove-input"]
if stored is not None:
    caption(
        "fig1-noise-scale",
        (
            "Noise needed for a target privacy level, at the paper's setting (results store): the additive noise "
            "standard deviation $\\sigma$ against the target $\\varepsilon$ for "
            + text.panels_text(stored["curves"])
            + ", with "
            + text.setting_text(page.parameters())
            + f". FastMix with $C^2 = {float(page.parameters()['c2']):g}$, "
            "with the $C^2$ measured in Section 3 at the paper's largest $k_2$ on each synthetic design, and with "
            "$C^2 \\to \\infty$; GaussMix; the Upadhyay band from the constant-free form (lower edge) to Blocki et "
            "al.'s constants (solid line). A missing point means that $\\sigma = 0$ suffices."
        ),
    )
    draw_figure(stored["curves"], title="paper setting (results store)")
else:
    page.no_figure()

# %% [markdown]
# ## What to see
#
# Lower is better: a curve is the noise a mechanism must add for the target on the horizontal axis. The
# paper's claim is the gap between the FastMix curves (blue squares with the caption's $C^2 = 2$, orange
# circles with $C^2 \to \infty$) and the red Upadhyay band above them; the purple and cyan curves put in
# the $C^2$ measured on the two synthetic designs, and green is GaussMix. The table below checks each
# FastMix curve against the band's lower edge, and the sentences under it are written from the same
# numbers.

# %% tags=["remove-input"]
CLAIMS = study.stored_claims(stored, page.parameters()) if stored is not None else []
page.show_claims(CLAIMS, missing="The claims table needs the stored results (see the store note further down).")

# %% tags=["remove-input"]
if stored is not None:
    display(Markdown(text.findings_text(stored, CLAIMS)))

# %% [markdown]
# :::{admonition} How the checks are decided
# :class: dropdown
#
# Section 3 reads Figure 1 as "our approach typically reduces $\sigma^2$ by more than two orders of
# magnitude" against Upadhyay's bound. Each FastMix curve is checked against the *constant-free*
# form of that bound, the lower edge of the band, so the check does not depend on constants we could
# not verify; the table also gives the ratio with Blocki et al.'s constants. These are exact
# computations, not samples, so they carry no interval. The paper's claim is checked on the two
# FastMix curves it draws; the same check on the curves with the measured $C^2$ is a question of
# ours. Whether that $C^2$ is the caption's 2 (the caption takes $C^2 = 2$ to illustrate, and the
# paper does not claim that its $k_2$ gives it) is checked once, on the Section 3 page, from the
# same draws; under "Noise at a few targets" below, a paragraph says how far the measured $C^2$ is
# from 2.
# :::

# %% [markdown]
# ## What differs from the paper, and what it costs
#
# ### What the paper fixes and what we chose
#
# The caption fixes $\lambda_{\min}(X) = n/(8d)$ (rows of norm at most $C_X = 1$) and
# $\lambda_{\min}(S_f X) = \tfrac56 \lambda_{\min}(X)$, but not $d$, $k$ or $\delta$.
# We take $d = 10$, $k = 8d = 80$ Gaussian rows (our choice; the experiments of Appendices H and I
# use $k_1 = 6\max\{d, \log(4T/\varrho)\}$) and $\delta = 1/n^2$ (the $\delta$ of their
# experiments); all three are parameters below.
# When $\lambda_{\min}$ alone already exceeds the $\gamma$ a target needs, the required $\sigma$ is
# exactly $0$; on the log axis such points are left out, and the table of $\sigma$ further down
# reports where each curve reaches zero.
#
# ### The Upadhyay curve: a stated form, not the theorem
#
# The paper labels its curve "Upadhyay '14, Theorem 16".
# The exact statement and constants of that theorem were **not available** to us.
# The paper summarises the bound as
# $\varepsilon = O\big(\log(1/\delta)\sqrt{k\log(1/\delta)/(\lambda_{\min}(S_f X)+\sigma^2)}\big)$,
# and Upadhyay's mechanism accelerates the Johnson-Lindenstrauss mechanism of
# {cite:t}`blocki2012johnson`, which lifts every singular value of the input above
# $w = C\sqrt{k\ln(a/\delta)}\,\ln(bk/\delta)/\varepsilon$.
# We therefore draw
# $\sigma_U(\varepsilon) = \sqrt{\max\{0,\ w(\varepsilon)^2 - \lambda_{\min}(S_f X)\}}$
# with Blocki et al.'s constants $C = 16$, $a = 2$, $b = 16$ (as they appear in public code; not
# checked against that paper) as the solid line, and shade the band down to the constant-free form
# $C = a = b = 1$.
# The band shows the scaling of the bound; its exact height is uncertain.

# %% [markdown]
# ## How each curve is computed
#
# The curves are
#
# * **FastMix with $C^2_{S_f X} = 2 C_X^2$** (the caption's choice): Lemma 1's mechanism with the exact Renyi bound
#   $\varphi(\alpha;\gamma,C^2)$ of Appendix C.1 (eq. 50-52), where
#   $\gamma = (\lambda_{\min}(S_f X) + \sigma^2)/C^2$, so $\sigma^2 = C^2\gamma - \lambda_{\min}(S_f X)$;
# * **FastMix with the $C^2_{S_f X}$ measured in Section 3**: the same bound with
#   $C^2 = 1 + 2\widehat m$ as an SRHT actually gives it, averaged over the SRHT draws of the
#   {doc}`Section 3 page <section3_fastmix>` on each synthetic design of Appendix H ($n = 2^{19}$, $d = 32$)
#   at the largest of the paper's SRHT sizes, $k_2 = 800\max\{d, \log(4T/\varrho)\}$; the numbers
#   are read from that page's results store entry, and the store note further down says which;
# * **FastMix with $C^2_{S_f X} \to \infty$**: the bound of Appendix C.2 (eq. 76), which needs no
#   control of the row norms of $S_f X$, with $\sigma^2 = \gamma_\infty - \lambda_{\min}(S_f X)$;
# * **GaussMix** {cite:p}`lev2025gaussianmix`: the dense Gaussian sketch of Proposition 2, with
#   $\sigma^2 = \gamma - \lambda_{\min}(X)$;
# * **Upadhyay (2014)** {cite:p}`upadhyay2014randomness`, from the stated form of the section above.
#
# In each case the per-row Renyi bound is multiplied by the $k$ rows released, converted to
# $(\varepsilon,\delta)$ with Proposition 1 {cite:p}`canonne2020discrete`, and minimised over the
# Renyi order; the package then bisects on $\gamma$ (`fastmix.accounting.sketch_noise_for_epsilon`).

# %% [markdown]
# ## Noise at a few targets
#
# The table reports $\sigma$ at a few targets, and the largest target on the grid at which each curve
# still needs noise.

# %% tags=["remove-input", "hide-output"]
if stored is not None:
    display(text.sigma_table(stored["curves"]).style.format(precision=4, na_rep="-").hide(axis="index"))

# %% tags=["remove-input"]
if stored is not None and len(stored["c2_used"][stored["c2_used"]["state"] != "missing"]):
    display(Markdown(text.measured_c2_text(stored, page.parameters())))

# %% [markdown]
# ## The stored run
#
# The stored run is computed, or resumed where it stopped, by
# `.venv/bin/python -m fastmix_companion.run --paper-scale figure1_noise_scale` (its parameters are in
# `notebooks/paper_scale.json`); it reads the Section 3 entry for the measured $C^2$.

# %% tags=["remove-input"]
page.show_note()
if stored is not None:
    display(Markdown(text.stored_setting_text(stored, page.parameters())))

# %% tags=["parameters", "hide-cell"]
d: int = 10  # number of features; lambda_min(X) is n / (8 d)
k: int = 80  # Gaussian rows released (k1); our default 8 d (the paper fixes none for this figure)
delta_exponent: float = 2.0  # delta is n ** (-delta_exponent); 2 gives delta of 1/n^2
c2: float = 2.0  # C^2_(S_f X) / C_X^2 of the caption's bounded FastMix curve
c2_source: str = "section3_fastmix"  # store entry whose measured C^2 is drawn too ("" for none)
c2_designs: str = "synthetic_correlated,synthetic_sphere"  # designs whose measured C^2 is drawn
c2_k2_ratio: float = 800.0  # the measured C^2 is the one at the paper's k2 of this ratio r
eps_min: float = 0.01  # smallest target epsilon on the x axis
eps_max: float = 10.0  # largest target epsilon on the x axis
n_eps: int = 13  # number of epsilons (log-spaced; paper scale: 61)
seed: int = 0  # unused (the figure is deterministic); kept for the common interface

# %% [markdown]
# ## Quick check at small scale

# %% tags=["remove-input"]
PARAMS = {name: globals()[name] for name in study.DEFAULTS}  # the parameters cell's values
display(Markdown(text.smoke_sizes_text(PARAMS)))

# %% [markdown]
# The same study at the parameters in the folded cell above, computed live when the page is built (it reads the
# same Section 3 entry for the measured $C^2$). It only shows that the code runs.

# %% mystnb={"figure": {"caption": "**Figure 1 (smoke scale).** {glue:md}`fig1-smoke-caption:myst`", "name": "fig1-smoke"}} tags=["hide-input", "hide-output"]
smoke = run_study(NAME, PARAMS, log=None)
measured = ", ".join(smoke["c2_used"].loc[smoke["c2_used"]["state"] != "missing", "design"]) or "none"
caption(
    "fig1-smoke",
    (
        "Smoke-scale run, computed live at this page's parameters: $\\sigma$ against the target $\\varepsilon$ for "
        + text.panels_text(smoke["curves"])
        + ", with "
        + text.setting_text(PARAMS)
        + f" (measured $C^2$ read for: {measured}). "
        "It shows that the code runs; it is not evidence for Figure 1."
    ),
)
draw_figure(smoke["curves"], title="smoke scale (not evidence)")

# %% [markdown]
# ## How to cite this page

# %% tags=["remove-input"]
page.show_citation()

# %% [markdown]
# ## Provenance

# %% tags=["hide-output"]
provenance_report(parameters=PARAMS, seed=seed, data_sources=page.data_sources, started_at=page.started_at)
