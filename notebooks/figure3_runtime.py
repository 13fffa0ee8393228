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
# # Figure 3: how much faster is FastIHM than IHM?
#
# Figure 3 of {cite:t}`lev2026fastmix` is a table: for each dataset, the runtime of IHM
# {cite:p}`lev2026near` divided by the runtime of the non-private FastIHS
# {cite:p}`pilanci2016iterative` and of FastIHM at three SRHT sizes $k_2 = r\max\{d, \log(4T/\varrho)\}$.
# The paper reports FastIHM as 2 to 3 times faster than IHM. This notebook measures the same ratios
# on this machine, with the paper's timing protocol: the privacy calibration (which never touches
# the data) happens before the clock starts, `time.perf_counter_ns` brackets the whole $T$-iteration
# solve (sketching, the SRHT, FastMix's private estimates, the Newton steps), and times are averaged
# over trials and then over $\varepsilon$.
#
# We add one column the paper does not have: IHM with its Gaussian sketch drawn through the Gram
# factor, $G (X^\top X)^{1/2}$ with $G$ a $k \times d$ standard Gaussian matrix, instead of forming
# the $k \times n$ sketch $S$ and multiplying $S X$. The rows of $S X$ are independent
# $N(0, X^\top X)$ vectors, and so are the rows of $G (X^\top X)^{1/2}$, so the released matrices
# have exactly the same distribution: the same privacy guarantee and the same accuracy, at a
# different cost.

# %% tags=["parameters"]
shapes: str = "16x32,15x90"  # comma-separated log2(n)xd shapes (paper: 19x32,19x28,17x81,17x90)
k2_ratios: str = "auto"  # r1,r2,r3, or auto for the paper's rule (4,100,200 if n/d < 5000, else 4,400,800)
epsilons: str = "1.259"  # epsilons to average the runtime over (paper: the six-point grid)
trials: int = 5  # timed trials per method and epsilon (paper: 30)
T: int = 4  # iterations (Appendix H)
cache_dir: str = "../results/cache"  # on-disk cache of finished grid cells (empty string: no cache)
blas_threads: int = 1  # BLAS/OpenMP threads during timing (0: library default, as in the paper)
seed: int = 0  # root seed of every run (numpy SeedSequence)

# %% [markdown]
# The imports, the clock for the provenance cell, and the machine.
#
# **Default versus paper scale.** The defaults time two shapes, $n = 2^{16}, d = 32$ and
# $n = 2^{15}, d = 90$, with 5 trials at one $\varepsilon$, which takes well under a minute. The
# paper's datasets have $n = 2^{19}$ ($d = 32$ and $28$) and $n = 2^{17}$ ($d = 81$ and $90$), 30
# trials and six values of $\varepsilon$; the command printed below runs those shapes. Runtime does
# not depend on the values in $X$ (only on its shape), so we time the synthetic correlated design
# of Appendix H at each shape rather than the paper's real datasets.
#
# Seconds do not travel between machines; ratios mostly do, because both methods run on the same
# BLAS and the same memory. Two caveats: results read back from the cache were timed when they were
# first computed (the output says how many), and small $n$ understates what sketching can gain,
# because the costs that do not grow with $n$ (solves with $d \times d$ matrices, the $k_1 \times k_2$
# Gaussian mixing of FastMix) weigh more.
#
# **Threads.** The defaults time every method on one BLAS/OpenMP thread (`blas_threads = 1`). On a
# shared two-core machine, multi-threaded BLAS competing with other processes made single runs
# vary by factors of ten in our first attempts, which no number of trials averages away; one
# thread gives stable, comparable numbers. The paper did not pin threads; pass
# `-p blas_threads 0` to time with the libraries' defaults.

# %%
import math
import os
import platform
import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from fastmix.datasets import make_correlated_regression
from fastmix.experiments import run_grid, runtime_ratio_table, speedup_table
from fastmix.provenance import provenance_report
from fastmix.regression import paper_defaults, paper_sketch_sizes

started_at = time.time()

shape_list = [tuple(int(v) for v in s.strip().lower().split("x")) for s in shapes.split(",") if s.strip()]
eps_grid = tuple(float(e) for e in epsilons.split(","))
cache = cache_dir or None


def ratios_for(n, d):
    if k2_ratios.strip().lower() != "auto":
        return tuple(float(r) for r in k2_ratios.split(","))
    return (4.0, 100.0, 200.0) if n / d < 5000 else (4.0, 400.0, 800.0)


def cpu_model():
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


print(f"machine: {platform.platform()}; CPU: {cpu_model()}")
usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
print(f"logical CPUs: {os.cpu_count()} (usable by this process: {usable}); "
      f"load average now: {', '.join(f'{v:.2f}' for v in os.getloadavg())}")
try:
    from threadpoolctl import threadpool_info, threadpool_limits

    for pool in threadpool_info():
        print(f"thread pool: {pool.get('internal_api')} {pool.get('version')}, {pool.get('num_threads')} threads "
              f"({pool.get('user_api')})")
    if blas_threads > 0:
        threadpool_limits(limits=blas_threads)
        print(f"timing with every BLAS/OpenMP pool limited to {blas_threads} thread(s)")
except ImportError:
    print("threadpoolctl is not installed: BLAS thread count unknown and not limited")
print("\nPaper-scale run (Figure 3's four shapes, six epsilons, 30 trials; notebooks/paper_scale.json):")
print("  python -m fastmix.run --paper-scale figure3_runtime")

# %% [markdown]
# ## Timing the methods
#
# For each shape we run FastIHS, IHM with the dense sketch (as in the paper) and FastIHM at the
# three ratios through {func}`fastmix.experiments.run_grid`, and IHM with the Gram-factor sketch in a
# second call. All use $k = k_1 = 6\max\{d, \log(4T/\varrho)\}$, $T = 4$, $\delta = 1/n^2$ and
# $\varrho = \delta/10$.

# %%
frames = []
data_sources = []
for i, (log2_n, d) in enumerate(shape_list):
    n = 2**log2_n
    ds = make_correlated_regression(n=n, d=d, random_state=np.random.SeedSequence(seed, spawn_key=(2000 + i,)))
    data_sources.append(ds)
    name = f"n=2^{log2_n}, d={d}"
    ratios = ratios_for(n, d)
    dense = run_grid({name: ds}, methods=("FastIHS", "IHM", "FastIHM"), epsilons=eps_grid, k2_ratios=ratios,
                     n_trials=trials, root_seed=seed, T=T, cache_dir=cache, progress=False)
    gram = run_grid({name: ds}, methods=("IHM",), epsilons=eps_grid, n_trials=trials, root_seed=seed, T=T,
                    ihm_sketch="gram", cache_dir=cache, progress=False)
    gram["method"] = "IHM-gram"
    frames += [dense, gram]
    rho = paper_defaults(n)["rho"]
    k1, _ = paper_sketch_sizes(d, T, rho)
    k2s = [min(paper_sketch_sizes(d, T, rho, r)[1], n) for r in ratios]
    print(f"{name}: k = k1 = {k1}, k2 = {k2s} (ratios {ratios})")
df = pd.concat(frames, ignore_index=True)
print(f"{len(df)} timed runs, {int(df['from_cache'].sum())} read from the cache")

# %% [markdown]
# ## The table, beside the paper's
#
# The measured table has one row per shape. Each entry is the mean runtime of dense IHM divided by
# the mean runtime of the method (above 1: faster than IHM). The last column is the same ratio for
# IHM with the Gram-factor sketch.

# %%
vs_dense, seconds = runtime_ratio_table(df, baseline="IHM")
cols = ["FastIHS", "FastIHM r1", "FastIHM r2", "FastIHM r3", "IHM-gram"]
measured = vs_dense[cols].copy()
measured.insert(0, "IHM seconds", seconds["IHM"])
print("Measured here: runtime(IHM, dense sketch) / runtime(method)")
print(measured.to_string(float_format=lambda v: f"{v:8.2f}"))

# cross-check with the package's Figure-3 helper on the dense-IHM runs
check = speedup_table(df[df["method"] != "IHM-gram"])
assert np.allclose(sorted(check.loc[check["method"] == "FastIHS", "ihm_over_method"]),
                   sorted(measured["FastIHS"]))

paper = pd.DataFrame(
    [("Black Friday", "2^17 x 81", "4,100,200", 4.22, 2.44, 1.95, 1.61),
     ("Beijing", "?", "4,100,200", 6.89, 3.12, 2.38, 1.94),
     ("YearMSD", "2^17 x 90", "4,100,200", 7.10, 2.51, 1.70, 1.53),
     ("Synthetic correlated", "2^19 x 32", "4,400,800", 4.31, 2.33, 2.14, 1.91),
     ("Rossmann", "2^19 x 28", "4,400,800", 5.13, 3.01, 2.63, 2.40),
     ("Synthetic lambda_min ~ n/d", "2^19 x 32", "4,400,800", 5.0, 2.52, 2.26, 2.06)],
    columns=["dataset", "n x d", "r1,r2,r3", "FastIHS", "FastIHM r1", "FastIHM r2", "FastIHM r3"],
)
print("\nThe paper (Figure 3): runtime(IHM) / runtime(method), 30 trials, i7-1255U")
print(paper.to_string(index=False))

# %% [markdown]
# The figure shows the mean runtime of every method at each shape on a log scale, so the ratios in
# the table are vertical distances between bars.

# %% mystnb={"figure": {"caption": "Mean runtime of one T = 4 solve per method and shape (log scale): FastIHS (non-private), IHM with the dense Gaussian sketch, FastIHM at three SRHT sizes, and IHM with the Gram-factor sketch, which has the same output distribution as dense IHM.", "name": "fig3-runtime"}}
order = ["IHM", "FastIHM r1", "FastIHM r2", "FastIHM r3", "FastIHS", "IHM-gram"]
colors = ["C0", "C1", "C2", "C3", "0.5", "C4"]
fig, ax = plt.subplots(figsize=(8, 4))
width = 0.8 / len(order)
x = np.arange(len(seconds.index))
for j, (col, color) in enumerate(zip(order, colors)):
    ax.bar(x + (j - (len(order) - 1) / 2) * width, seconds[col], width, color=color, label=col)
ax.set_xticks(x, seconds.index)
ax.set_yscale("log")
ax.set_ylabel("seconds per solve (mean over trials)")
ax.grid(True, axis="y", which="major", alpha=0.3)
ax.legend(fontsize=8, ncol=3)
plt.tight_layout()
plt.show()

# %% [markdown]
# FastIHS and FastIHM are faster than dense IHM at both shapes, and FastIHM's advantage shrinks as
# $k_2$ grows: with a larger SRHT, FastMix's $k_1 \times k_2$ Gaussian mixing and the smallest
# eigenvalue of the $k_2 \times d$ matrix $S_f X$ cost more, and at $n = 2^{15}$, $d = 90$ the
# largest $k_2$ is more than half of $n$. The purple bar is the point of the extra column: IHM with
# the Gram-factor sketch is faster than every private method, and even faster than the
# non-private FastIHS (it does no transform at all).
#
# ## Against the Gram-factor IHM, the speedup disappears
#
# The table divides the Gram-factor IHM's runtime by each method's: below 1 means slower than an
# equally private, equally accurate IHM.

# %%
vs_gram, _ = runtime_ratio_table(df, baseline="IHM-gram")
print("runtime(IHM, Gram-factor sketch) / runtime(method)")
print(vs_gram[["IHM", "FastIHS", "FastIHM r1", "FastIHM r2", "FastIHM r3"]].to_string(float_format=lambda v: f"{v:8.3f}"))

# %% [markdown]
# The operation counts explain it. Per solve, with $T$ iterations:
#
# * dense IHM draws $T k n$ normal variates and multiplies $S X$: $O(T k n d)$ with $k = 6d$ or more,
#   so $O(T n d^2)$ with a large constant;
# * FastIHM applies $T$ SRHTs and FastMix's private estimate of $\widehat m$ (Walsh-Hadamard
#   transforms of $X$): $O(T n d \log n)$; mixes with a $k_1 \times k_2$ Gaussian: $O(T k_1 k_2 d)$;
#   and finds $\lambda_{\min}(S_f X)$: $O(T k_2 d^2)$;
# * Gram-factor IHM forms $X^\top X$ and its square root once, $O(n d^2)$, and then needs only
#   $O(k d^2)$ per iteration for $G (X^\top X)^{1/2}$;
# * all three also compute $T$ gradients $X^\top \mathrm{clip}(y - X\theta)$, $O(T n d)$.
#
# Forming $X^\top X$ is a single BLAS-3 call that runs near the machine's peak, while a
# Walsh-Hadamard transform is memory bound and $\log_2 n$ passes long; for $d$ up to about a hundred,
# $n d^2$ at BLAS speed beats $T\,n d \log n$ for the transforms. FastIHM's advantage over IHM in the
# paper is an advantage over forming the $k \times n$ Gaussian sketch explicitly. That is how
# Gaussian sketching is usually stated, and the right baseline when the sketch must be applied to
# data one never assembles into $X^\top X$ (streaming, or a mechanism that needs $S X$ itself rather
# than its distribution). For private least squares in memory, the Gram-factor IHM is the faster
# honest baseline, and at these shapes FastIHM does not beat it. The regime where FastMix should
# win is $d$ large enough that $n d^2$ dominates $n d \log n + k_1 k_2 d$.
#
# ## What is reproduced and what differs
#
# * **Reproduced.** FastIHS and FastIHM are faster than IHM with the dense sketch, and FastIHM's
#   speedup falls as $k_2$ grows, as in every row of the paper's table.
# * **Differs.** The sizes of the ratios differ from the paper's, in both directions depending on
#   the shape and ratio. At $d = 32$ the measured speedups are larger than the paper's 2 to 3: our
#   dense IHM draws its $k \times n$ Gaussian in blocks with NumPy's generator, which costs more per
#   entry than a Walsh-Hadamard butterfly, and one thread hides none of it. At $d = 90$ with the
#   larger $k_2$ (a large fraction of $n = 2^{15}$) they are smaller. The paper timed larger $n$
#   ($2^{17}$ to $2^{19}$), where the SRHT's $n d \log n$ grows more slowly than the dense sketch's
#   $k n d$, on a different CPU with unpinned threads. Only the ratios, not the seconds, are
#   meant to be compared, and the 30-trial paper-scale run (command above) is the one to set
#   beside the paper.
# * **Added.** Against the Gram-factor IHM, which the paper does not consider, FastIHM's speed
#   advantage disappears at these shapes.

# %% [markdown]
# ## Provenance

# %%
provenance_report(
    parameters={"shapes": shapes, "k2_ratios": k2_ratios, "epsilons": epsilons, "trials": trials, "T": T,
                "cache_dir": cache_dir, "blas_threads": blas_threads, "seed": seed},
    seed=seed,
    data_sources=data_sources,
    started_at=started_at,
)
