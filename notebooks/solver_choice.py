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
# # Which private solver when
#
# {cite:t}`lev2026fastmix` compare FastIHM with IHM {cite:p}`lev2026near` at a handful of data shapes
# (Figures 2 and 3). Someone with a table of $n$ rows and $d$ features and a privacy budget $\varepsilon$
# needs the whole map: which private least-squares solver is most accurate there, and which is fastest?
# This page measures it on one grid of $(n, d, \varepsilon)$, with every solver run on the same data and
# the grid read from the results store.

# %% tags=["remove-input"]

import matplotlib.pyplot as plt
import numpy as np
from IPython.display import Markdown, display

from fastmix_companion.pages import caption, stored_entry, use_book_style
from fastmix_companion.provenance import provenance_report
from fastmix_companion.studies import run_study
from fastmix_companion.studies import solver_choice as study
from fastmix_companion.studies import solver_choice_text as text

NAME = "solver_choice"
page = stored_entry(NAME, "datasets", "runs")
STYLE = {
    "FastIHM": ("C1", "o", "-"),
    "IHM (dense)": ("C0", "s", "-"),
    "IHM (Gram)": ("C4", "^", "--"),
    "AdaSSP": ("C2", "D", "-"),
    "FastIHS (non-private)": ("0.45", "v", ":"),
    "OLS (non-private)": ("0.2", "x", ":"),
}

use_book_style()

ACCURACY_TEXT = (
    "Excess empirical risk $\\frac1n\\|y - X\\hat\\theta\\|^2 - \\frac1n\\|y - X\\hat\\theta_{\\mathrm{OLS}}\\|^2$ "
    "against $n$ (log scales; geometric mean over trials), one panel per number of features $d$ (rows) and privacy "
    "budget $\\varepsilon$ (columns), for the four private solvers and the non-private FastIHS."
)
RUNTIME_TEXT = (
    "Runtime of one solve against $n$ (log scales; geometric mean over trials and $\\varepsilon$), one panel per $d$, "
    "for every solver, OLS included."
)


def draw_accuracy(tables, title):
    s = study.summary(tables["runs"])
    dims = sorted(s["d"].unique())
    eps = sorted(e for e in s["epsilon"].unique() if np.isfinite(e))
    fig, axes = plt.subplots(
        len(dims), len(eps), figsize=(3.6 * len(eps) + 1.5, 2.9 * len(dims) + 0.6), squeeze=False, sharex=True
    )
    for i, d in enumerate(dims):
        for j, e in enumerate(eps):
            ax = axes[i][j]
            for series in study.SERIES[:5]:
                sub = s[(s["d"] == d) & (s["series"] == series)]
                sub = sub[sub["epsilon"] == e] if series in study.PRIVATE_SERIES else sub
                if sub.empty:
                    continue
                color, marker, ls = STYLE[series]
                ax.plot(sub["n"], sub["excess_risk"], marker=marker, ls=ls, color=color, label=series, ms=5)
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.grid(True, which="major", alpha=0.3)
            ax.set_title(f"$d = {d}$, $\\varepsilon = {e:g}$", fontsize=11)
            if j == 0:
                ax.set_ylabel("excess risk")
            if i == len(dims) - 1:
                ax.set_xlabel("$n$")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=5, fontsize=10, bbox_to_anchor=(0.5, -0.01))
    fig.suptitle(title, fontsize=10)
    plt.tight_layout(rect=(0, 0.05, 1, 1))
    plt.show()


def draw_runtime(tables, title):
    runs = tables["runs"]
    dims = sorted(runs["d"].unique())
    fig, axes = plt.subplots(1, len(dims), figsize=(3.6 * len(dims) + 1.5, 3.4), squeeze=False, sharey=True)
    for j, d in enumerate(dims):
        ax = axes[0][j]
        for series in study.SERIES:
            sub = runs[(runs["d"] == d) & (runs["series"] == series)]
            if sub.empty:
                continue
            gm = sub.groupby("n")["runtime_s"].apply(lambda v: float(np.exp(np.mean(np.log(np.maximum(v, 1e-12))))))
            color, marker, ls = STYLE[series]
            ax.plot(gm.index, gm.values, marker=marker, ls=ls, color=color, label=series, ms=5)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.grid(True, which="major", alpha=0.3)
        ax.set_title(f"$d = {d}$", fontsize=11)
        ax.set_xlabel("$n$")
        if j == 0:
            ax.set_ylabel("seconds per solve")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=6, fontsize=10, bbox_to_anchor=(0.5, -0.02))
    fig.suptitle(title, fontsize=10)
    plt.tight_layout(rect=(0, 0.09, 1, 1))
    plt.show()


stored = page.tables

# %% mystnb={"figure": {"caption": "**Figure C.1.** {glue:md}`solver-accuracy-caption:myst`", "name": "solver-accuracy"}} tags=["remove-input"]
if stored is not None:
    p = page.parameters()
    caption("solver-accuracy", ACCURACY_TEXT + " From the results store: " + text.setting_text(stored, p) + ".")
    draw_accuracy(stored, "results store")
else:
    page.no_figure()

# %% [markdown]
# ## What to see
#
# One panel per number of features $d$ (rows) and budget $\varepsilon$ (columns); lower is more accurate.
# The four private solvers are FastIHM (orange), IHM with the dense sketch (blue), IHM through its Gram
# factor (purple, dashed; the same output distribution as dense IHM) and AdaSSP (green); the grey dotted
# line is the non-private FastIHS. Each row of the checks table below is a question of ours (the
# paper's own runtime claim is scored on the Figure 3 page), the number that decides it and the rule
# that decides it, written in the code. The two checks of the noise warning had their rule set after
# a first run of this grid, so they are marked exploratory and not counted. The map of which solver
# wins where follows further down.

# %% tags=["remove-input"]
CLAIMS = study.stored_claims(stored, page.parameters()) if stored is not None else []
page.show_claims(CLAIMS, missing="The checks need the stored results (see the store note further down).")
if CLAIMS:
    display(Markdown(text.checks_text(CLAIMS)))

# %% [markdown]
# ## What differs from the paper, and what this map does not say
#
# * **Data.** The synthetic designs of Appendix H, rows of norm at most 1 and $|y_i| \le 1$. Accuracy
#   depends on the data through $\lambda_{\min}(X^\top X)$ and the noise level; a table whose
#   smallest eigenvalue is far below $n/d$ favours the solvers whose noise does not scale with it.
# * **Runtime.** One core, one BLAS thread, on a shared two-core virtual machine (the provenance of
#   the store entry records the load of every cell). Ratios between solvers depend on the machine's
#   Gaussian sampler, BLAS and memory bandwidth, so another machine may order close pairs of
#   solvers differently.
# * **FastIHM's size.** It runs at `FastIHMRegressor`'s default $k_2 = 800\max\{d, \log(4T/\varrho)\}$,
#   capped at $n$. Where $n/d$ is below 5000 the paper's Figure 3 uses smaller ratios (4, 100 and
#   200), so where this $k_2$ keeps most of the rows FastIHM's transforms do more work than in the
#   paper's runtime comparison. The check whether the paper's speedup extends to this grid's shapes
#   therefore leaves out the cells whose $k_2$ exceeds about the largest fraction of $n$ the paper's
#   runtime table uses (the fraction is in the checks table), and asks about those cells separately.
# * **The noise warning's rule** ($\eta^2$ against IHM's largest noise at the same budget) was chosen
#   after the first full run of this grid, so the two checks of the warning above are not an
#   independent test of it: the table marks them exploratory, and they are not counted. How the
#   former rule ($\eta^2$ against $n/d$) does on the same runs is
#   stated under the map below.
# * **Dense IHM** runs only up to the size stated in the setting: beyond it, its $k \times n$ sketch
#   costs minutes per solve, and the Gram route releases the same distribution.

# %% [markdown]
# ## The solvers and the protocol
#
# Every solver runs on the same data with this book's protocol for Figures 2 and 3 (excess empirical
# risk over OLS, the timer around the solve only, one BLAS thread):
#
# * **FastIHM** (Algorithm 2 of the FastMix paper) at the SRHT size of
#   {py:class}`~fastmix.regression.FastIHMRegressor`'s default, $k_2 = 800\max\{d, \log(4T/\varrho)\}$
#   capped at $n$;
# * **IHM** with the dense $k \times n$ Gaussian sketch (the paper's baseline) and **IHM (Gram)**,
#   which draws the same sketched matrix through the Gram factor $G (X^\top X)^{1/2}$: the same output
#   distribution, so the same privacy and accuracy, at another cost;
# * **AdaSSP** {cite:p}`wang2018revisiting`, sufficient statistics perturbation with an adaptive ridge;
# * as non-private references, FastIHS {cite:p}`pilanci2016iterative` and OLS.
#
# All private solvers spend the same $(\varepsilon, \delta = 1/n^2)$.

# %% [markdown]
# ## The map
#
# Each cell of the table below names the private solvers that are most accurate at that $(n, d,
# \varepsilon)$ (bold; several joined by ~ when the trials cannot tell them apart: Welch's one-sided
# test on the log excess risk against the best one, Holm-corrected at 5% within the cell), then the
# fastest ones by the same rule on the runtimes. "(warns)" marks the points where
# {py:class}`~fastmix.regression.FastIHMRegressor` warns that its noise dominates.

# %% tags=["remove-input"]
if stored is not None:
    CMAP = study.choice_map(stored["runs"])
    if not CMAP.empty:
        display(Markdown(text.map_markdown(CMAP)))
        display(Markdown(text.map_text(CMAP)))
        display(Markdown(text.gap_text(study.fastihm_gap(stored["runs"]))))
        display(Markdown(text.former_warning_text(study.former_warning_errors(stored["runs"]))))

# %% [markdown]
# The runtime of one solve on the same grid:

# %% mystnb={"figure": {"caption": "**Figure C.2.** {glue:md}`solver-runtime-caption:myst`", "name": "solver-runtime"}} tags=["remove-input"]
if stored is not None:
    caption(
        "solver-runtime",
        RUNTIME_TEXT + " From the results store: " + text.setting_text(stored, page.parameters()) + ".",
    )
    draw_runtime(stored, "results store")

# %% [markdown]
# ## The stored run
#
# The stored run is computed, or resumed where it stopped, by
# `.venv/bin/python -m fastmix_companion.run --paper-scale solver_choice` (its parameters are in
# `notebooks/paper_scale.json`).

# %% tags=["remove-input"]
page.show_note()

# %% tags=["parameters", "hide-cell"]
design: str = "synthetic_correlated"  # Appendix H design: synthetic_correlated or synthetic_sphere
log2_ns: str = "10,12"  # comma-separated log2(n) of the grid
ds: str = "8,32"  # comma-separated numbers of features d
epsilons: str = "1.259"  # comma-separated epsilons (the paper's grid: 0.316,0.631,1.259,2.512,5.012,10.0)
trials: int = 3  # trials per solver and grid point
T: int = 4  # iterations of IHM, FastIHM and FastIHS (Appendix H)
k2_ratio: float = 800.0  # FastIHM's k2 is k2_ratio * max(d, log(4T/rho)), capped at n (FastIHMRegressor's default)
dense_ihm_max_log2_n: int = 18  # IHM with the dense sketch runs only up to n of 2**dense_ihm_max_log2_n
blas_threads: int = 1  # BLAS/OpenMP threads during timing, the Hadamard transform's included (0: library default)
seed: int = 0  # root seed of every run (numpy SeedSequence)

# %% [markdown]
# ## Quick check at small scale

# %% tags=["remove-input"]
PARAMS = {name: globals()[name] for name in study.DEFAULTS}
display(Markdown(text.smoke_sizes_text(PARAMS)))

# %% [markdown]
# The cell below runs the same study at the parameters in the folded cell above (the notebook's quick
# defaults unless changed); with a few trials at small $n$ it decides nothing.

# %% mystnb={"figure": {"caption": "**Figure C.1 (smoke scale).** {glue:md}`solver-smoke-caption:myst`", "name": "solver-smoke"}} tags=["hide-input", "hide-output"]
smoke = run_study(NAME, PARAMS, log=None)
caption(
    "solver-smoke",
    "Smoke-scale run, computed live at this page's parameters: "
    + ACCURACY_TEXT
    + f" ({text.setting_text(smoke, PARAMS)}). It shows that the code runs; it is not evidence.",
)
draw_accuracy(smoke, "smoke scale (not evidence)")

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
    data_sources=[r.design for r in smoke["datasets"].itertuples()],
    started_at=page.started_at,
)
