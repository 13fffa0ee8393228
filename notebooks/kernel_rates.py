# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Excess risk against n and epsilon for private kernel ridge regression
#
# {cite:t}`lee2025optimal` prove that DP kernel ridge regression by random projection (Algorithm 1) has excess risk
# $O(n^{-1/(1+\gamma)} + (n\varepsilon)^{-2/(2+\gamma)})$ (Theorem 3), which is minimax optimal (Theorem 4), while
# the version on random Fourier features (Algorithm 3) without a compatibility assumption only guarantees
# $O(n^{-1/(1+\gamma)} + (n\varepsilon)^{-2/3})$ (Theorem 6 with $\alpha = 1$). For the Gaussian kernel
# $\gamma \approx 0$, so up to logarithmic factors the privacy term falls as $(n\varepsilon)^{-1}$ for random projection
# and as $(n\varepsilon)^{-2/3}$ for RFF. This page measures both excess risks against $n$ at fixed $\varepsilon$ and
# against $\varepsilon$ at fixed $n$, fits the log-log slopes with bootstrap intervals and sets them beside those
# exponents.

# %% tags=["remove-input"]
import matplotlib.pyplot as plt
import numpy as np
from IPython.display import Markdown, display

from fastmix_companion.pages import caption, stored_entry, use_book_style
from fastmix_companion.provenance import provenance_report
from fastmix_companion.studies import kernel_rates as study
from fastmix_companion.studies import kernel_rates_text as text
from fastmix_companion.studies import run_study

NAME = "kernel_rates"
page = stored_entry(NAME, "runs")
STYLE = {"RP": ("C0", "o", "random projection (Alg. 1)"), "RFF": ("C1", "s", "RFF (Alg. 3)")}


# Figures fill the book's content column: larger text (fastmix_companion.pages.BOOK_STYLE).
use_book_style()


RATES_TEXT = (
    "Excess risk of differentially private kernel ridge regression by random projection (Alg. 1) and by random "
    "Fourier features (Alg. 3) with the theory's hyperparameters, against $n$ at fixed $\\varepsilon$ (left) and "
    "against $\\varepsilon$ at fixed $n$ (right): the private fit (solid), its non-private twin on the same features "
    "(dotted) and the privacy cost, their difference (dashed); means with 95% intervals"
)


def draw_rates(runs, title):
    """Left: excess risk against n (private, non-private twin, privacy cost). Right: against epsilon."""
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for ax, sweep, x in ((axes[0], "n", "n"), (axes[1], "epsilon", "epsilon")):
        sub = runs[runs["sweep"] == sweep]
        for method in ("RP", "RFF"):
            color, marker, label = STYLE[method]
            g = sub[sub["method"] == method].groupby(x)
            for col, ls, lab in (("risk", "-", label), ("risk_nonprivate", ":", None), ("privacy_cost", "--", None)):
                m = g[col].mean()
                se = g[col].std(ddof=1) / np.sqrt(g[col].count())
                ok = m > 0
                ax.errorbar(
                    m.index[ok],
                    m[ok],
                    yerr=1.96 * se[ok].fillna(0),
                    color=color,
                    marker=marker,
                    ms=4,
                    ls=ls,
                    lw=1.6,
                    capsize=2,
                    label=lab,
                )
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("n" if sweep == "n" else r"$\varepsilon$")
        ax.grid(True, alpha=0.3)
    axes[0].set_ylabel("excess risk")
    axes[0].plot([], [], "k-", label="private")
    axes[0].plot([], [], "k:", label="non-private twin")
    axes[0].plot([], [], "k--", label="privacy cost")
    axes[0].legend(fontsize=9)
    fig.suptitle(title, fontsize=10)
    plt.tight_layout()
    plt.show()


stored = (page.tables or {}).get("runs")

# %% mystnb={"figure": {"caption": "**Figure R.1.** {glue:md}`krr-rates-caption:myst`", "name": "krr-rates"}} tags=["remove-input"]
if stored is not None:
    caption(
        "krr-rates",
        RATES_TEXT
        + ". Paper-scale setting, read from the results store: "
        + text.rates_setting(stored, page.parameters())
        + ".",
    )
    draw_rates(stored, "theory hyperparameters, results store")
else:  # nothing stored: the store note says why, where the figure would be
    page.show_note()
    page.no_figure()

# %% [markdown]
# ## What to see
#
# In each panel the solid curves are the private fits, the dotted ones their non-private twins and the dashed ones
# the privacy cost, the difference the bounds' privacy terms are about. The sentences and the table below,
# generated from the stored runs, compare the fitted slopes with the theory's exponents and decide each claim.

# %% tags=["remove-input"]
if stored is not None:
    p = page.parameters()
    slopes = study.fit_slopes(stored)
    claims = study.stored_claims(page.tables, p)
    display(Markdown(text.claims_text(claims)))
    page.show_claims(claims)
else:
    page.show_claims([])

# %% [markdown]
# ## The setting, and what the slopes can say
#
# Both methods use the theory's hyperparameters (as in the theory protocol of the comparison page): for random
# projection $M = c_m(1/\lVert L\rVert + N(\lambda))\log(2n)$ with the effective dimension of the kernel operator under
# the public input law, for RFF $M = (n\varepsilon)^{2/3}$, and $\lambda$ at the rate raised to the
# positive-definiteness condition; no budget is spent on them. Inputs are uniform on $[-1, 1]^d$, the target is a
# fresh random function of the RKHS per repetition (20 kernel sections, root mean square 0.5), responses carry
# $N(0, 0.1^2)$ noise and are clipped to $[-1, 1]$, and the Gaussian kernel has bandwidth $\sqrt d$. Each private
# fit is paired with the non-private fit on the same features, $M$ and $\lambda$, so the **privacy cost**
# (private minus non-private excess risk) is measured on its own: the bounds' privacy terms are about it.

# %% [markdown]
# The exponents are those of upper bounds with unspecified constants and logarithmic factors, so a measured slope
# steeper than the exponent agrees with the theory, and a slope over a short range of $n$ or $\varepsilon$ mixes the
# regimes the bounds separate (the statistical term $n^{-1}$ and the privacy term). The theory's $M$ for RFF grows as
# $(n\varepsilon)^{2/3}$ and is capped at `max_components`, which flattens its curve where the cap binds; the claims
# therefore fit each slope on the points where the cap does not bind. Whether RP's measured slope is steeper than
# RFF's is our own question: the paper orders the exponents of its bounds, and upper bounds cannot order measured
# slopes.

# %% [markdown]
# ## The fitted slopes
#
# Each slope is fitted on a log-log scale with a bootstrap interval and set beside the theory's exponent.

# %% tags=["remove-input"]
if stored is not None:
    display(Markdown(text.slopes_markdown(slopes)))
    display(Markdown(text.slopes_text(slopes)))
    display(Markdown(text.log_factor_text(p["n_values"])))

# %% [markdown]
# ## Where the stored results come from

# %% tags=["remove-input"]
if stored is not None:  # when nothing is stored, the note stands where the figure would be
    page.show_note()
    display(Markdown(text.stored_setting_text(stored, p)))

# %% tags=["parameters", "hide-cell"]
seed: int = 0  # master seed
n_values: str = "200,400,800"  # training sizes of the sweep against n
epsilon: float = 1.0  # epsilon of the sweep against n
eps_values: str = "0.3,1,3"  # epsilons of the sweep against epsilon
n_fixed: int = 400  # n of the sweep against epsilon
delta: float = 1e-05  # delta of every fit
d: int = 2  # input dimension
target: str = "rkhs"  # target family: rkhs or plane_wave
n_test: int = 200  # noise-free test points
n_reps: int = 2  # repetitions per point
rep_block: int = 2  # repetitions per stored cell
noise_sd: float = 0.1  # response noise standard deviation
c_m: float = 1.0  # constant of the theory's projection dimension of random projection
c_lam: float = 1.0  # constant of the theory's positive-definiteness condition on lambda
max_components: int = 512  # cap on M for both methods
blas_threads: int = 1  # BLAS threads (0: library default)

# %% tags=["remove-input"]
PARAMS = {name: globals()[name] for name in study.DEFAULTS}  # the parameters cell's values
caption("krr-rates-smoke-heading", text.smoke_sizes(PARAMS))  # pasted into the heading below

# %% [markdown]
# ## Quick check at small scale: {glue:md}`krr-rates-smoke-heading-caption:myst`
#
# The same study at the parameters above (the notebook's quick defaults unless changed), run live: a check that the
# code still runs, **not evidence**.

# %% mystnb={"figure": {"caption": "**Figure R.1 (smoke scale).** {glue:md}`krr-rates-smoke-caption:myst`", "name": "krr-rates-smoke"}} tags=["hide-input", "hide-output"]
smoke = run_study(NAME, PARAMS, store=None, log=None)["runs"]
caption(
    "krr-rates-smoke",
    "Smoke-scale run, computed live at this page's parameters: "
    + RATES_TEXT[0].lower()
    + RATES_TEXT[1:]
    + "; "
    + text.rates_setting(smoke, PARAMS)
    + ". It shows that the code runs; it is not evidence.",
)
draw_rates(smoke, "smoke scale (live): a code check, not evidence")

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
    data_sources=["synthetic: x ~ U[-1,1]^d, a random RKHS function (or plane wave) plus N(0, noise_sd^2) noise"],
    started_at=page.started_at,
)
