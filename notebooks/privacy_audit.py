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
# # A privacy audit of the FastMix sketch
#
# Lemma 1 of the FastMix paper {cite:p}`lev2026fastmix` bounds the Rényi divergence between the releases of the
# Gaussian step of FastMix on two neighbouring datasets. This page checks that bound twice, without relying on its
# proof: exactly, from the closed-form divergence between the Gaussian releases of deliberately awkward designs
# {cite:p}`gil2013renyi`, and empirically, with a likelihood-ratio attack whose error rates give a lower bound on
# the true $\varepsilon$ {cite:p}`kairouz2015composition,jagielski2020auditing`, which the accounted
# $\varepsilon$ must sit above.

# %% tags=["remove-input"]
import matplotlib.pyplot as plt
import numpy as np
from IPython.display import Markdown, display

from fastmix_companion.pages import caption, stored_entry, use_book_style
from fastmix_companion.provenance import provenance_report
from fastmix_companion.studies import privacy_audit as study
from fastmix_companion.studies import privacy_audit_text as text
from fastmix_companion.studies import run_study

NAME = "privacy_audit"
page = stored_entry(NAME, "designs", "optimised", "curve", "attack", "tradeoff", "profile")
LABELS = {
    "exact": r"$\phi(\alpha;\gamma,C^2)$ (eq. 50-52)",
    "bar": r"$\bar\phi(\alpha;\gamma)$ (eq. 57)",
    "simple": r"$25\alpha/(32\gamma^2)$ (eq. 8)",
}
COLORS = {"exact": "C0", "bar": "C1", "simple": "C2"}


# Figures fill the book's content column: larger text (fastmix_companion.pages.BOOK_STYLE).
use_book_style()


DIVERGENCE_TEXT = (
    "Exact Rényi divergence $D_\\alpha$ of one released row for the worst neighbour pair found, against the Rényi "
    "order $\\alpha$, beside the three accounted bounds of Lemma 1: $\\phi(\\alpha;\\gamma,C^2)$ (eq. 50-52), "
    "$\\bar\\phi(\\alpha;\\gamma)$ (eq. 57) and $25\\alpha/(32\\gamma^2)$ (eq. 8), each drawn on its "
    "own range of orders."
)


def draw_divergence(tables, *, title):
    curve = tables["curve"]
    _, ax = plt.subplots(figsize=(7, 4))
    ax.plot(curve["alpha"], curve["divergence"], "k", lw=2, label="exact divergence")
    for b, lab in LABELS.items():
        ok = np.isfinite(curve[f"bound_{b}"])
        ax.plot(curve["alpha"][ok], curve[f"bound_{b}"][ok], color=COLORS[b], lw=1.5, ls="--", label=lab)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(r"Rényi order $\alpha$")
    ax.set_ylabel("divergence per row")
    ax.set_title(title, fontsize=10)
    ax.legend(frameon=False)
    plt.show()


def draw_tradeoff(tables, *, title):
    tr, att = tables["tradeoff"], tables["attack"].iloc[0]
    eps_bar, dlt = float(att["epsilon_accounted_bar"]), float(att["delta"])
    f = np.linspace(0, 1, 400)
    allowed = np.maximum.reduce([np.zeros_like(f), 1 - dlt - np.exp(eps_bar) * f, np.exp(-eps_bar) * (1 - dlt - f)])
    _, ax = plt.subplots(figsize=(5.5, 5))
    ax.fill_between(f, 0, allowed, color="0.85", label=rf"excluded by $\varepsilon$ = {eps_bar:.2f} (accounted)")
    ax.plot(tr["fpr"], tr["fnr"], "C0", lw=2, label="attack, empirical")
    ax.plot(tr["fpr_upper"], tr["fnr_upper"], "C0", lw=1, ls=":", label="attack, Clopper-Pearson upper limits")
    ax.plot(tr["fpr_exact"], tr["fnr_exact"], "k--", lw=1, label="likelihood-ratio test, exact")
    ax.plot([0, 1], [1, 0], color="0.5", lw=0.8)
    ax.set_xlabel("false-positive rate")
    ax.set_ylabel("false-negative rate")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_title(title, fontsize=10)
    ax.legend(frameon=False, loc="upper right", fontsize=10)
    plt.show()


def draw_profile(tables, *, title):
    prof, att = tables["profile"], tables["attack"].iloc[0]
    _, ax = plt.subplots(figsize=(7, 4))
    ax.semilogy(
        prof["epsilon"],
        np.maximum(prof["delta_forward"], 1e-12),
        "k",
        lw=2,
        label=r"$\delta(\varepsilon)$, first vs second",
    )
    ax.semilogy(
        prof["epsilon"],
        np.maximum(prof["delta_backward"], 1e-12),
        "k:",
        lw=2,
        label=r"$\delta(\varepsilon)$, second vs first",
    )
    ax.axhline(float(att["delta"]), color="0.4", lw=1, label=rf"audited $\delta$ = {float(att['delta']):g}")
    for b, lab in LABELS.items():
        ax.axvline(float(att[f"epsilon_accounted_{b}"]), color=COLORS[b], ls="--", lw=1.2, label=f"accounted: {lab}")
    ax.set_ylim(1e-12, 1)
    ax.set_xlabel(r"$\varepsilon$")
    ax.set_ylabel(r"$\delta(\varepsilon)$")
    ax.set_title(title, fontsize=10)
    ax.legend(frameon=False, fontsize=10)
    plt.show()


stored = page.tables

# %% mystnb={"figure": {"caption": "**Figure P.1.** {glue:md}`audit-divergence-caption:myst`", "name": "audit-divergence"}} tags=["remove-input"]
if stored is not None:
    caption(
        "audit-divergence",
        DIVERGENCE_TEXT
        + " At the larger setting, read from the results store: "
        + text.audit_setting(page.parameters())
        + ".",
    )
    draw_divergence(stored, title="larger setting (results store)")
else:  # nothing stored: the store note says why, where the figure would be
    page.show_note()
    page.no_figure()

# %% [markdown]
# ## What to see
#
# The figure shows, for the worst neighbouring pair among the designs described below, the exact
# per-row divergence against $\alpha$ beside the three bounds evaluated at the same $\gamma$ and $C^2$: a bound
# holds where its dashed curve stays above the solid one. The sentences and the table below, generated from the
# stored audit, decide each statement the audit tests. The divergences and the privacy profile are exact (no
# sampling error); the attack's bound carries its own confidence level.

# %% tags=["remove-input"]
CLAIMS = study.stored_claims(stored, page.parameters()) if stored is not None else []
if CLAIMS:
    display(Markdown(text.findings_text(stored, CLAIMS)))
page.show_claims(
    CLAIMS, missing="The claims table needs the stored results (see the store note where the figure would be)."
)

# %% [markdown]
# ## What the audit covers, and what it does not
#
# Throughout, $S_f$ and the noise level $\sigma$ are held fixed: the audit is conditional on them.
# In FastMix the noise level comes from two Laplace releases ($\tilde m$, $\tilde\lambda$) whose cost
# and failure probability Theorem 1 accounts separately; those parts are not audited here.
#
# For a small design $X$ and one fixed SRHT draw $S_f$, a released row
# $\mathsf g^\top S_f X + \sigma\xi^\top$ is $\mathcal N(0, Z^\top Z + \sigma^2 I)$ with $Z = S_f X$,
# so the divergence between neighbours has a closed form. We compute it in both directions (removing a row and
# adding it back) and divide it by the three bounds the package accounts with.
#
# ## How the audit is built
#
# We draw one SRHT with $k_2$ rows and a family of hand-built designs with rows of norm at most one
# ({func}`fastmix.audit.adversarial_designs`): rows uniform on the sphere, a row along the weakest
# eigenvector of $X^\top X$, one large row among tiny ones, a nearly rank-deficient design,
# a design dominated by one repeated row, and two antipodal clusters.
# For each design the noise is set so that eq. (7) holds with equality,
# $\sigma^2 = \gamma\, C^2_{S_fX} - \lambda_{\min}(Z^\top Z)$.
# Then every row is removed in turn ("remove": $D_\alpha(M(X)\,\|\,M(X_{-i}))$) and added back
# ("add": $D_\alpha(M(X_{-i})\,\|\,M(X))$); in each direction $\gamma$ and $C^2$ are those of the
# first argument, which is how Lemma 1 is stated.
# The folded table below gives the largest ratio of divergence to bound over the rows and the $\alpha$ grid, for the
# exact $\phi(\alpha;\gamma,C^2)$ (eq. 50-52), $\bar\phi(\alpha;\gamma)$ (eq. 57) and
# $25\alpha/(32\gamma^2)$ (eq. 8); its last rows are the audited row of the worst design optimised
# over the unit ball ({func}`fastmix.audit.optimise_row`), in both directions.

# %% tags=["remove-input", "hide-output"]
if stored is not None:
    display(text.design_table(stored).style.format(precision=3).hide(axis="index"))

# %% [markdown]
# ## The empirical audit: a likelihood-ratio attack
#
# We now fix the worst pair, the SRHT and the noise level, and let an attacker who knows everything
# except which of the two datasets was used look at $k_1$-row releases.
# Under the two hypotheses a release has i.i.d. rows $\mathcal N(0, P)$ or $\mathcal N(0, Q)$ with
# $P = Z^\top Z + \sigma^2 I$ and $Q = Z'^\top Z' + \sigma^2 I$, so the log-likelihood ratio
# $L = \log p/q$ is the most powerful statistic (Neyman-Pearson).
# For each threshold $t$ the test "say $P$ if $L > t$" has a false-positive rate $\mathrm{FPR}(t) = Q(L>t)$
# and a false-negative rate $\mathrm{FNR}(t) = P(L\le t)$, and $(\varepsilon,\delta)$-DP forces
#
# $$
# \varepsilon \;\ge\; \max\Big\{\log\frac{1-\delta-\mathrm{FPR}}{\mathrm{FNR}},\;
# \log\frac{1-\delta-\mathrm{FNR}}{\mathrm{FPR}}\Big\}.
# $$
#
# The thresholds are picked on one half of the releases and the error rates are counted on the other
# half; replacing both rates by one-sided Clopper-Pearson upper limits {cite:p}`clopper1934use`,
# Bonferroni-corrected over the thresholds, makes the right-hand side a lower bound on the true
# $\varepsilon$ that holds with the stated confidence ({func}`fastmix.audit.epsilon_lower_bound`).
# An attack can only show that a mechanism leaks *at least* this much; it never certifies privacy.
# The exact $\varepsilon$ of the pair comes from its privacy profile (below).

# %% tags=["remove-input"]
if stored is not None:
    display(text.epsilon_summary(stored).style.format(precision=3))

# %% [markdown]
# The next figure shows the trade-off between the two error rates: the attack's empirical curve,
# its Clopper-Pearson upper envelope, the exact curve of the likelihood-ratio test (from Imhof's
# inversion of the law of $L$ {cite:p}`imhof1961computing`, {func}`fastmix.audit.tradeoff_curve`),
# and the region that the accounted guarantee allows.

# %% mystnb={"figure": {"caption": "**Figure P.2.** {glue:md}`audit-tradeoff-caption:myst`", "name": "audit-tradeoff"}} tags=["remove-input"]
if stored is not None:
    caption(
        "audit-tradeoff",
        text.tradeoff_caption(stored)
        + " At the larger setting, read from the results store: "
        + text.audit_setting(page.parameters())
        + ".",
    )
    draw_tradeoff(stored, title="larger setting (results store)")

# %% [markdown]
# ## The exact privacy profile
#
# Because $L$ is a weighted sum of independent chi-square variables under either hypothesis
# ({func}`fastmix.audit.privacy_loss_weights`), the smallest $\delta$ the pair achieves at each
# $\varepsilon$, $\delta(\varepsilon) = P(L>\varepsilon) - e^{\varepsilon} Q(L>\varepsilon)$, can be
# computed to high accuracy ({func}`fastmix.audit.privacy_profile`), in both directions.
# The plot compares it with the accounted $\varepsilon$ at the audited $\delta$.

# %% mystnb={"figure": {"caption": "**Figure P.3.** {glue:md}`audit-profile-caption:myst`", "name": "audit-profile"}} tags=["remove-input"]
if stored is not None:
    caption(
        "audit-profile",
        "Exact privacy profile $\\delta(\\varepsilon)$ of the worst pair in both directions, "
        "with the accounted $\\varepsilon$ of each bound at the audited $\\delta$ (vertical lines). At the larger "
        "setting, read from the results store: " + text.audit_setting(page.parameters()) + ".",
    )
    draw_profile(stored, title="larger setting (results store)")

# %% [markdown]
# ## Where the stored results come from

# %% tags=["remove-input"]
if stored is not None:  # when nothing is stored, the note stands where the figure would be
    page.show_note()
    display(Markdown(text.stored_setting_text(page.parameters())))

# %% tags=["parameters", "hide-cell"]
n: int = 64  # rows of the audited design (a power of two, for the SRHT)
d: int = 4  # columns of the design
k2: int = 16  # rows of the SRHT S_f (small k2/n makes S_f^T S_f far from I, the hard case)
k1: int = 10  # Gaussian rows per release
gamma: float = 10.0  # target gamma of eq. (7); the noise is set so that eq. (7) holds with equality
delta: float = 1e-5  # delta at which the sketch's epsilon is accounted and audited
n_alphas: int = 40  # Renyi orders on the audit grid
n_starts: int = 2  # random restarts when optimising the audited row
n_releases: int = 400_000  # releases per hypothesis in the likelihood-ratio attack
confidence: float = 0.95  # confidence of the Clopper-Pearson bounds
seed: int = 0  # seed of every random draw (SRHT, designs, attack)

# %% tags=["remove-input"]
PARAMS = {name: globals()[name] for name in study.DEFAULTS}  # the parameters cell's values
caption("audit-smoke-heading", text.smoke_sizes(PARAMS))  # pasted into the heading below

# %% [markdown]
# ## Quick check at small scale: {glue:md}`audit-smoke-heading-caption:myst`
#
# The cells below run the same study at the parameters above (the notebook's quick defaults unless changed; the
# caption gives the setting). They only show that the code runs from a clean checkout; nothing is concluded from
# them.

# %% tags=["hide-input", "hide-output"]
smoke = run_study(NAME, PARAMS, log=None)
display(text.design_table(smoke).style.format(precision=3).hide(axis="index"))
display(text.epsilon_summary(smoke).style.format(precision=3))

# %% mystnb={"figure": {"caption": "**Figure P.1 (smoke scale).** {glue:md}`audit-smoke-caption:myst`", "name": "audit-smoke"}} tags=["hide-input", "hide-output"]
caption(
    "audit-smoke",
    "Smoke-scale run, computed live at this page's parameters: "
    + DIVERGENCE_TEXT.split(", beside")[0]
    + ", beside the accounted bounds, at "
    + text.audit_setting(PARAMS)
    + ". It shows that the code runs; it is not "
    "evidence.",
)
draw_divergence(smoke, title="smoke scale (not evidence)")

# %% [markdown]
# ## How to cite this page

# %% tags=["remove-input"]
page.show_citation()

# %% [markdown]
# ## Provenance

# %% tags=["hide-output"]
provenance_report(
    parameters=PARAMS,
    seed=seed,
    data_sources=["synthetic adversarial designs from fastmix.audit.adversarial_designs (no external data)"],
    started_at=page.started_at,
)
