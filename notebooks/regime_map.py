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
# # Where each solver is fastest
#
# The point of {cite:t}`lev2026fastmix` is runtime: FastIHM replaces IHM's dense $k \times n$ Gaussian
# sketch {cite:p}`lev2026near` by a subsampled randomized Hadamard transform, and Figure 3 gives
# IHM/FastIHM ratios from 1.53 to 3.12 on its six datasets (2 to 3 in most cases, its caption says).
# This page measures the whole regime on one core, read from the results store: the time and peak memory
# of one solve for every least-squares solver of the package, as the number of rows $n$ grows at fixed
# $d$ and as the number of features $d$ grows at fixed $n$.

# %% tags=["remove-input"]
import matplotlib.pyplot as plt
import numpy as np
from IPython.display import Markdown, display

from fastmix_companion.pages import caption, stored_entry, use_book_style
from fastmix_companion.provenance import provenance_report
from fastmix_companion.studies import regime_map as study
from fastmix_companion.studies import regime_map_text as text
from fastmix_companion.studies import run_study

NAME = "regime_map"
page = stored_entry(NAME, "shapes", "runs")
STYLE = {
    "FastIHM (r = 4)": ("C1", "o", "-"),
    "FastIHM (r = 800)": ("C3", "o", "--"),
    "IHM (dense)": ("C0", "s", "-"),
    "IHM (Gram)": ("C4", "^", "--"),
    "AdaSSP": ("C2", "D", "-"),
    "FastIHS (non-private)": ("0.45", "v", ":"),
    "OLS (non-private)": ("0.2", "x", ":"),
}

use_book_style()

TIME_TEXT = (
    "Single-thread CPU time of one solve ($T$ iterations for the iterative solvers; median of the timed runs) "
    "against $n$ at fixed $d$ (left) and against $d$ at fixed $n$ (middle), log-log; right: the same $d$ sweep as "
    "time per entry of $X$ per iteration, $t / (T n d)$, which stays flat for work proportional to the size of $X$ "
    "and grows like $d$ for work proportional to $n d^2$. Open markers: dense IHM's predicted time where it was not "
    "run."
)
MEMORY_TEXT = (
    "Peak extra memory of one solve as NumPy reports it to tracemalloc, in units of the size of $X$ ($8 n d$ "
    "bytes), against $n$ (left) and $d$ (right)."
)


def _plot_series(ax, s, skipped, var, series, per_entry=False, T=4):
    sub = s[s["series"] == series].sort_values(var)
    color, marker, ls = STYLE[series]
    if not sub.empty:
        y = sub["cpu_s"] / (T * sub["n"] * sub["d"]) * 1e9 if per_entry else sub["cpu_s"]
        ax.plot(sub[var], y, marker=marker, ls=ls, color=color, label=series, ms=5)
    sk = skipped[skipped["series"] == series]
    if not sk.empty:
        y = sk["predicted_s"] / (T * sk["n"] * sk["d"]) * 1e9 if per_entry else sk["predicted_s"]
        ax.plot(sk[var], y, marker=marker, ls="none", mfc="none", color=color, ms=6)


def draw_time(tables, title, T):
    runs = tables["runs"]
    s = study.summary(runs)
    skipped = runs[runs["status"] != study.TIMED]
    fig, axes = plt.subplots(1, 3, figsize=(14, 4.2))
    panels = [(axes[0], "n", "n", False), (axes[1], "d", "d", False), (axes[2], "d", "d", True)]
    for ax, sweep, var, per_entry in panels:
        ss, sk = s[s["sweep"] == sweep], skipped[skipped["sweep"] == sweep]
        for series in study.SERIES:
            _plot_series(ax, ss, sk, var, series, per_entry=per_entry, T=T)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.grid(True, which="major", alpha=0.3)
        ax.set_xlabel(f"${var}$")
        ax.set_ylabel("ns per entry of $X$ per iteration" if per_entry else "seconds per solve")
        if not ss.empty:
            fixed = f"$d = {int(ss['d'].iloc[0])}$" if sweep == "n" else f"$n = 2^{{{int(np.log2(ss['n'].iloc[0]))}}}$"
            ax.set_title(fixed + (", per entry" if per_entry else ""), fontsize=11)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=4, fontsize=10, bbox_to_anchor=(0.5, -0.04))
    fig.suptitle(title, fontsize=10)
    plt.tight_layout(rect=(0, 0.1, 1, 1))
    plt.show()


def draw_memory(tables, title):
    s = study.summary(tables["runs"])
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    for ax, sweep in zip(axes, ("n", "d"), strict=True):
        ss = s[s["sweep"] == sweep]
        for series in study.SERIES:
            sub = ss[ss["series"] == series].sort_values(sweep)
            if sub.empty:
                continue
            color, marker, ls = STYLE[series]
            ax.plot(sub[sweep], sub["peak_over_x"], marker=marker, ls=ls, color=color, label=series, ms=5)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.grid(True, which="major", alpha=0.3)
        ax.set_xlabel(f"${sweep}$")
        ax.set_ylabel("peak extra memory / size of $X$")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=4, fontsize=10, bbox_to_anchor=(0.5, -0.06))
    fig.suptitle(title, fontsize=10)
    plt.tight_layout(rect=(0, 0.12, 1, 1))
    plt.show()


stored = page.tables

# %% mystnb={"figure": {"caption": "**Figure M.1.** {glue:md}`regime-time-caption:myst`", "name": "regime-time"}} tags=["remove-input"]
if stored is not None:
    P = page.parameters()
    caption("regime-time", TIME_TEXT + " From the results store: " + text.setting_text(stored, P) + ".")
    draw_time(stored, "results store", int(P["T"]))
else:
    page.no_figure()

# %% [markdown]
# ## What to see
#
# Left and middle: seconds per solve against $n$ and against $d$, on log-log axes, so a straight line's
# slope is the growth exponent. Right: the $d$ sweep as time per entry of $X$ per iteration, flat for work
# proportional to the size of $X$. FastIHM is orange ($r = 4$) and red ($r = 800$), dense IHM blue, IHM
# through its Gram factor purple, AdaSSP green, and the non-private FastIHS and OLS grey; open markers are
# dense IHM's predicted times where it was not run. Each row of the checks table below is a question
# of ours (whether the paper's speedup over dense IHM extends to these shapes among them; the paper's
# own runtime claim, with its sizes, is scored on the Figure 3 page), the number that decides it and the
# rule that decides it, written in the code.

# %% tags=["remove-input"]
CLAIMS = study.stored_claims(stored, page.parameters()) if stored is not None else []
page.show_claims(CLAIMS, missing="The checks need the stored results (see the store note further down).")
if CLAIMS:
    display(Markdown(text.checks_text(CLAIMS)))

# %% [markdown]
# ## What differs from the paper, and what this map does not say
#
# * **One machine, one thread.** A two-core virtual machine shared with other work; every BLAS and
#   OpenMP pool limited to one thread, so the times are single-core CPU times (the store's provenance
#   records the load during every cell). How the picture changes with many threads is not measured
#   here: BLAS's products and the transforms' memory passes scale differently with cores.
# * **FastIHM's Gaussian step.** Timed with the paper's explicit step ($k_1 k_2$ normals per draw).
#   {py:func}`~fastmix.regression.fast_ihm` also offers `gaussian_step="gram"`, which samples the same
#   law from $Z^\top Z$ without drawing $k_1 k_2$ normals; `benchmarks/bench_dp_ols.py` times both
#   against the transforms' floor.
# * **Dense IHM** is not run where its predicted solve would exceed the time limit in the setting;
#   its predicted times are drawn with open markers and are not measurements.
# * **Memory** is what NumPy reports to `tracemalloc`: it includes every array the solver allocates,
#   not the work space LAPACK and BLAS allocate themselves. OLS does almost all of its work inside
#   LAPACK, so its curve is a lower bound.
# * **Data.** The synthetic correlated design of Appendix H; the runtimes depend on the shape, not on
#   the values.

# %% [markdown]
# ## The solvers
#
# * **FastIHM** (Algorithm 2) at two SRHT sizes $k_2 = r\max\{d, \log(4T/\varrho)\}$ capped at $n$: the
#   paper's smallest ratio $r = 4$, and $r = 800$, the default of
#   {py:class}`~fastmix.regression.FastIHMRegressor`;
# * **IHM** with the dense sketch (the paper's baseline) and **IHM (Gram)**, which draws the same
#   sketched matrix through the Gram factor $G (X^\top X)^{1/2}$;
# * **AdaSSP** {cite:p}`wang2018revisiting`;
# * the non-private **FastIHS** {cite:p}`pilanci2016iterative` and **OLS**.
#
# Sizes follow the paper's experiments ($k = k_1$ from Appendix H, $\delta = 1/n^2$, $\varrho =
# \delta/10$, $T = 4$). Accuracy is not measured here: {doc}`solver_choice` maps it.

# %% [markdown]
# ## Growth exponents
#
# How fast each solver's time grows: the slope of $\log t$ against $\log n$ and against $\log d$,
# fitted by least squares to every timed run at the four largest sizes of each sweep (± one standard
# error). A slope of 1 in $n$ means time proportional to the number of rows; in $d$, 1 is the cost of
# touching every entry of $X$ a fixed number of times and 2 the cost of forming $X^\top X$.

# %% tags=["remove-input"]
if stored is not None:
    display(Markdown(text.exponents_markdown(stored["runs"])))
    display(Markdown(text.winners_text(stored["runs"])))

# %% mystnb={"figure": {"caption": "**Figure M.2.** {glue:md}`regime-memory-caption:myst`", "name": "regime-memory"}} tags=["remove-input"]
if stored is not None:
    caption("regime-memory", MEMORY_TEXT + " From the results store: " + text.setting_text(stored, P) + ".")
    draw_memory(stored, "results store")

# %% [markdown]
# ## Why the map looks like this
#
# The solvers spend their time on two different kinds of work.
#
# * **Transforms are bandwidth-bound.** One FastMix draw of FastIHM multiplies $X$ by the SRHT:
#   a sign flip, a Walsh-Hadamard transform of every column ($n \log_2 n$ additions each) and a row
#   sample, then the adjoint for $\hat m$ and a length-$n$ transform for the coherence. Each step
#   streams $X$-sized buffers through memory a few times while doing a handful of additions per
#   entry, so this part's time per entry of $X$ does not grow with $d$ and grows like $\log n$ in
#   $n$. The rest of a draw acts on small matrices whose sizes grow with $d$: $k_1$ and $k_2 =
#   r\max\{d, \log(4T/\varrho)\}$ are both proportional to $d$ once $d$ exceeds the logarithm, so the
#   explicit Gaussian step $S_G Z$ ($k_1 k_2$ fresh normals and a $k_1 \times k_2$ by $k_2 \times d$
#   product) costs on the order of $d^3$, and 200 times more at $r = 800$ than at $r = 4$. The right
#   panel of Figure M.1 shows where that part starts to count.
# * **The Gram route is compute-bound.** IHM through its Gram factor and AdaSSP form $X^\top X$ once:
#   $n d^2$ multiply-adds in one BLAS call, with one read of $X$. At small $d$ that is less work than
#   the transforms' several passes. Its operation count per entry grows like $d$, so at large enough
#   $d$ the transforms would win; how fast its time grows on this machine is its exponent in the
#   table above, and the cell after this list says where the fitted curves cross.
# * **Dense IHM multiplies by a $k \times n$ Gaussian matrix** in every iteration: $k n d$
#   multiply-adds plus $k n$ normals, with $k$ proportional to $d$, so its operation count grows like
#   $n d^2$ with a much larger constant than the Gram route's. This is the baseline of the paper's
#   Figure 3.

# %% tags=["remove-input"]
D_SWEEP = stored["shapes"].loc[stored["shapes"]["sweep"] == "d", "n"] if stored is not None else []
if len(D_SWEEP):
    CROSS = study.crossover_d(stored["runs"])
    display(Markdown(text.crossover_text(CROSS, int(D_SWEEP.iloc[0]))))

# %% [markdown]
# The Gram route releases the same distribution as dense IHM (each row of $S X$ is $N(0, X^\top X)$),
# so its speed is not bought with privacy or accuracy; FastIHM's mechanism is a different one, and
# its accuracy against IHM's is the subject of {doc}`solver_choice`.

# %% [markdown]
# ## The stored run
#
# The stored run is computed, or resumed where it stopped, by
# `.venv/bin/python -m fastmix_companion.run --paper-scale regime_map` (its parameters are in
# `notebooks/paper_scale.json`).

# %% tags=["remove-input"]
page.show_note()

# %% tags=["parameters", "hide-cell"]
log2_ns: str = "10,11,12"  # comma-separated log2(n) of the n sweep (full map: 14,...,22)
n_sweep_d: int = 16  # number of features along the n sweep (full map: 32)
ds: str = "4,8,16"  # comma-separated numbers of features of the d sweep (full map: 8,16,...,512)
d_sweep_log2_n: int = 11  # log2(n) along the d sweep (full map: 17)
repeats: int = 3  # timed runs per solver and shape, after one untimed run that measures memory
T: int = 4  # iterations of IHM, FastIHM and FastIHS (Appendix H)
epsilon: float = 1.259  # privacy budget of the private solvers (runtime hardly depends on it)
dense_ihm_max_seconds: float = 120.0  # dense IHM is not run where its predicted solve takes longer
long_solve_seconds: float = 20.0  # where one solve takes longer, two timed runs instead of `repeats`
blas_threads: int = 1  # BLAS/OpenMP threads during timing, the Hadamard transform's included (0: library default)
seed: int = 0  # root seed of every run (numpy SeedSequence)

# %% [markdown]
# ## Quick check at small scale

# %% tags=["remove-input"]
PARAMS = {name: globals()[name] for name in study.DEFAULTS}  # the parameters cell's values
display(Markdown(text.smoke_sizes_text(PARAMS)))

# %% [markdown]
# The cell below runs the same study at the parameters in the folded cell above (the notebook's quick
# defaults unless changed); at these sizes fixed costs dominate and it decides nothing.

# %% mystnb={"figure": {"caption": "**Figure M.1 (smoke scale).** {glue:md}`regime-smoke-caption:myst`", "name": "regime-smoke"}} tags=["hide-input", "hide-output"]
smoke = run_study(NAME, PARAMS, log=None)
caption(
    "regime-smoke",
    "Smoke-scale run, computed live at this page's parameters: "
    + TIME_TEXT
    + f" ({text.setting_text(smoke, PARAMS)}). It shows that the code runs; it is not evidence.",
)
draw_time(smoke, "smoke scale (not evidence)", T)

# %% [markdown]
# ## How to cite this page

# %% tags=["remove-input"]
page.show_citation()

# %% [markdown]
# ## Provenance

# %% tags=["hide-output"]
provenance_report(parameters=PARAMS, seed=seed, started_at=page.started_at)
