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
# Every mixing mechanism releases a Gaussian sketch of the data plus isotropic noise of standard
# deviation $\sigma$; the data's own smallest eigenvalue acts as part of that noise.
# This notebook redraws Figure 1 of the FastMix paper {cite:p}`lev2026fastmix`: the $\sigma$ each
# accounting needs to reach a target $\varepsilon$, for $n \in \{10^4, 10^5\}$ rows.
#
# The four curves are
#
# * **FastMix with $C^2_{S_f X} = 2 C_X^2$**: Lemma 1's mechanism with the exact Renyi bound
#   $\varphi(\alpha;\gamma,C^2)$ of Appendix C.1 (eq. 50-52), where
#   $\gamma = (\lambda_{\min}(S_f X) + \sigma^2)/C^2$, so $\sigma^2 = C^2\gamma - \lambda_{\min}(S_f X)$;
# * **FastMix with $C^2_{S_f X} \to \infty$**: the bound of Appendix C.2 (eq. 76), which needs no
#   control of the row norms of $S_f X$, with $\sigma^2 = \gamma_\infty - \lambda_{\min}(S_f X)$;
# * **GaussMix** {cite:p}`lev2025gaussianmix`: the dense Gaussian sketch of Proposition 2, with
#   $\sigma^2 = \gamma - \lambda_{\min}(X)$;
# * **Upadhyay (2014)** {cite:p}`upadhyay2014randomness`, from a stated form explained below.
#
# In each case the per-row Renyi bound is multiplied by the $k$ rows released, converted to
# $(\varepsilon,\delta)$ with Proposition 1 {cite:p}`canonne2020discrete`, and minimised over the
# Renyi order; the package then bisects on $\gamma$ (`fastmix.accounting.sketch_noise_for_epsilon`).
#
# ## What the paper fixes and what we chose
#
# The caption fixes $\lambda_{\min}(X) = n/(8d)$ (rows of norm at most $C_X = 1$) and
# $\lambda_{\min}(S_f X) = \tfrac56 \lambda_{\min}(X)$, but not $d$, $k$ or $\delta$.
# We take $d = 10$, $k = 8d = 80$ Gaussian rows (the sketch-size rule $k = 8d$ of the authors'
# experiments) and $\delta = 1/n^2$ (the $\delta$ of their experiments); all three are parameters
# below.
# When $\lambda_{\min}$ alone already exceeds the $\gamma$ a target needs, the required $\sigma$ is
# exactly $0$; on the log axis such points are left out, and the table below reports where each
# curve reaches zero.
#
# ## The Upadhyay curve: a stated form, not the theorem
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

# %% tags=["parameters"]
d: int = 10  # number of features; lambda_min(X) is n / (8 d)
k: int = 80  # Gaussian rows released (k1); default 8 d
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
# The imports, and the clock that the provenance cell reads at the end.

# %%
import time

import matplotlib.pyplot as plt
import numpy as np

from fastmix.accounting import sketch_noise_for_epsilon, upadhyay_noise_scale
from fastmix.provenance import provenance_report

started_at = time.time()

# %% [markdown]
# For each $n$ we compute the four noise scales on a log-spaced grid of target epsilons.

# %%
ns = (10_000, 100_000)
eps = np.logspace(np.log10(eps_min), np.log10(eps_max), n_eps)
curves = {}
for n in ns:
    delta = float(n) ** (-delta_exponent)
    lam_x = n / (8 * d)
    lam_f = 5.0 / 6.0 * lam_x
    curves[n] = {
        "delta": delta,
        "lam_x": lam_x,
        "lam_f": lam_f,
        "fastmix": sketch_noise_for_epsilon(eps, delta, k, lambda_min=lam_f, c2=c2, mechanism="fastmix"),
        "unbounded": sketch_noise_for_epsilon(eps, delta, k, lambda_min=lam_f, mechanism="fastmix_unbounded"),
        "gaussmix": sketch_noise_for_epsilon(eps, delta, k, lambda_min=lam_x, mechanism="gaussmix"),
        "upadhyay": upadhyay_noise_scale(eps, delta, k, lam_f),
        "upadhyay_free": upadhyay_noise_scale(eps, delta, k, lam_f, C=1, a=1, b=1),
    }
    print(f"n = {n:>6}: delta = {delta:.1e}, lambda_min(X) = {lam_x:.1f}, lambda_min(S_f X) = {lam_f:.1f}")

# %% [markdown]
# The figure shows $\sigma$ against $\varepsilon$ on log-log axes, one panel per $n$; points where
# the required $\sigma$ is zero are not drawn.

# %% mystnb={"figure": {"caption": "Additive noise std sigma needed for a target epsilon (default parameters: k = 80 Gaussian rows, d = 10, delta = 1/n^2, lambda_min(X) = n/(8d) and lambda_min(S_f X) = 5/6 lambda_min(X)). The Upadhyay band runs from the constant-free form (bottom) to Blocki et al.'s constants (solid line). Missing points mean sigma = 0 suffices.", "name": "fig1-noise-scale"}}
def positive(values):
    """Mask zeros so that they are not drawn on a log axis."""
    return np.where(values > 0, values, np.nan)


fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
for ax, n in zip(axes, ns):
    c = curves[n]
    ax.fill_between(eps, c["upadhyay_free"], c["upadhyay"], color="C3", alpha=0.15, lw=0)
    ax.plot(eps, positive(c["upadhyay"]), "C3-", lw=2, marker="^", markevery=10, label="Upadhyay '14 (stated form)")
    ax.plot(eps, positive(c["unbounded"]), "C1-", lw=2, marker="o", markevery=10, label=r"FastMix, $C^2\to\infty$")
    ax.plot(eps, positive(c["fastmix"]), "C0-", lw=2, marker="s", markevery=10, label=rf"FastMix, $C^2={c2:g}\,C_X^2$")
    ax.plot(eps, positive(c["gaussmix"]), "C2--", lw=2, marker="*", markevery=10, label="GaussMix (Lev et al. '25)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(r"target $\varepsilon$")
    ax.set_title(rf"$n = 10^{{{int(np.log10(n))}}}$")
    ax.grid(True, which="major", alpha=0.3)
axes[0].set_ylabel(r"required noise std $\sigma$")
handles, labels = axes[0].get_legend_handles_labels()
fig.legend(handles, labels, loc="lower center", ncol=4, fontsize=9, frameon=False)
plt.tight_layout(rect=(0, 0.08, 1, 1))
plt.show()

# %% [markdown]
# The Upadhyay form sits two to three orders of magnitude above every mixing curve in $\sigma$,
# so four to six orders in $\sigma^2$.
# Among the mixing curves, GaussMix needs the least noise, FastMix with $C^2 = 2$ a little more
# (its larger $C^2$ and smaller $\lambda_{\min}$), and the $C^2\to\infty$ bound more again; for
# $n = 10^5$ the data's own eigenvalue covers the whole budget of the first two over most of the range.
#
# The table reports $\sigma$ at a few targets, the largest target at which each curve still needs
# noise, and the ratio of variances that the paper's claim is about ("reduces $\sigma^2$ by more than
# two orders of magnitude").

# %%
def last_positive(values):
    """Largest epsilon on the grid at which sigma > 0 (nan if never)."""
    pos = np.flatnonzero(values > 0)
    return eps[pos[-1]] if pos.size else np.nan


names = {
    "upadhyay": "Upadhyay (C=16,a=2,b=16)",
    "upadhyay_free": "Upadhyay (C=a=b=1)",
    "unbounded": "FastMix, C^2 -> inf",
    "fastmix": f"FastMix, C^2 = {c2:g}",
    "gaussmix": "GaussMix",
}
show = [e for e in (0.01, 0.1, 1.0, 10.0) if eps_min <= e <= eps_max]
for n in ns:
    c = curves[n]
    print(f"n = {n}")
    print(f"  {'curve':<26}" + "".join(f"{'sigma@eps=' + format(e, 'g'):>16}" for e in show) + f"{'sigma>0 up to eps':>20}")
    for key, label in names.items():
        vals = [np.interp(np.log(e), np.log(eps), c[key]) for e in show]
        print(f"  {label:<26}" + "".join(f"{v:>16.4g}" for v in vals) + f"{last_positive(c[key]):>20.3g}")
    ratio = (c["upadhyay"] / np.where(c["unbounded"] > 0, c["unbounded"], np.nan)) ** 2
    ratio0 = (c["upadhyay_free"] / np.where(c["unbounded"] > 0, c["unbounded"], np.nan)) ** 2
    print(f"  sigma_U^2 / sigma_FastMix(C^2->inf)^2 where both > 0: {np.nanmin(ratio):.3g} to {np.nanmax(ratio):.3g}"
          f" (constant-free form: {np.nanmin(ratio0):.3g} to {np.nanmax(ratio0):.3g}); paper: '> 100'")

# %% [markdown]
# Even the constant-free version of the Upadhyay form, which surely understates the constants of
# the real bound, needs roughly a hundred times the variance of the weakest FastMix bound or more;
# with Blocki et al.'s constants the gap is tens of thousands or more.
# This is consistent with the paper's statement that FastMix typically reduces $\sigma^2$ by more
# than two orders of magnitude, with the caveat above about the Upadhyay constants.

# %% [markdown]
# ## Provenance

# %%
provenance_report(
    parameters={"d": d, "k": k, "delta_exponent": delta_exponent, "c2": c2, "eps_min": eps_min,
                "eps_max": eps_max, "n_eps": n_eps, "seed": seed},
    seed=seed,
    data_sources=[],
    started_at=started_at,
)
