"""The sentences and text tables of the Appendix J page (:mod:`fastmix_companion.studies.appendix_j`).

The page displays what these return, generated from the study's tables (``statistics``,
``spread``) and parameters: the statistics beside the paper's, the setting, the seed spread's
caption, the percentile table, and where the paper's seed-dependent values fall among our seeds.
"""

from __future__ import annotations

import re

import numpy as np

from fastmix import datasets as fd
from fastmix_companion.claims import DOES_NOT_HOLD, NOT_COMPARABLE, UNDECIDED, percentile_of, verdict_counts
from fastmix_companion.studies import appendix_j as study

__all__ = [
    "COLUMNS",
    "PAPER_OF",
    "LABELS",
    "statistics_table",
    "statistics_markdown",
    "spread_text",
    "theta0_caption",
    "stored_setting_text",
    "percentile_markdown",
    "checks_sentence",
    "findings_text",
    "smoke_sizes",
]

COLUMNS = ["n", "d", "lambda_min", "lambda_max", "ols_mse", "y_sq_mean", "n_over_d"]
"""The columns of the statistics table, in the paper's order."""

PAPER_OF = {"nycflights": "airline"}
"""Offline stand-ins, compared with the dataset they replace."""

LABELS = {
    "lambda_min": r"$\lambda_{\min}(X^\top X)$",
    "lambda_max": r"$\lambda_{\max}(X^\top X)$",
    "ols_mse": r"$\frac{1}{n}\|Y - X\theta^*\|^2$",
    "y_sq_mean": r"$\frac{1}{n}\|Y\|^2$",
}
"""The paper's symbols of the four seed-dependent statistics."""


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
    import pandas as pd

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


def statistics_markdown(statistics) -> str:
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


def spread_text(spread) -> str:
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


def theta0_caption(spread) -> str:
    """The caption of the stored theta0 figure: the correlated design's seeds, their OLS residual against the
    signal variance of each seed's coefficient vector, and the paper's value."""
    seeds = int((spread["design"] == "synthetic_correlated").sum())
    return (
        f"Correlated design at the paper's scale (results store, {seeds} seeds): the OLS mean squared residual "
        "$\\tfrac1n\\|Y - X\\theta^*\\|^2$ of each seed against the signal variance "
        "$\\theta_0^\\top\\Sigma\\,\\theta_0$ of its random unit coefficient vector $\\theta_0$; the dashed "
        "line is the paper's value."
    )


def stored_setting_text(p) -> str:
    """The setting of the stored run, from its parameters."""
    return (
        f"Setting: synthetic designs at $n = 2^{{{p['log2_n']}}}$, $d = {p['d']}$ for the table; real data reduced "
        f"by {p['power_of_two']}; the seed spread regenerates both designs at $n = 2^{{{p['spread_log2_n']}}}$ for "
        f"{p['n_seeds']} seeds."
    )


def percentile_markdown(pct) -> str:
    """:func:`~fastmix_companion.studies.appendix_j.percentile_table` as a Markdown table."""
    lines = [
        "| design | statistic | paper | percentile | median of the seeds | central 95% of the seeds |",
        "|---|---|---|---|---|---|",
    ]
    for r in pct.itertuples():
        lines.append(
            f"| {r.design} | {LABELS[r.statistic]} | {r.paper:.4g} | {r.percentile:.3g} | {r.median:.4g} | "
            f"{r.q025:.4g} to {r.q975:.4g} |"
        )
    return "\n".join(lines)


def _short(claim) -> str:
    """'synthetic_correlated: the paper's OLS residual is a typical draw' -> 'synthetic_correlated: OLS residual'."""
    design, rest = claim.claim.split(": ", 1)
    return design + ": " + re.sub(r" (is|are) a typical draw$", "", rest.removeprefix("the paper's "))


def checks_sentence(checks) -> str:
    """How the checks of the claims table came out, counted by verdict, with whose claims they are, which
    checks do not hold or are undecided, and why a check is not comparable (the setting's differences)."""
    if not checks:
        return "No check was made."
    counts = verdict_counts(checks)
    listed = ", ".join(f"{word} ({k})" for word, k in counts.items() if k)
    places = list(dict.fromkeys(str(c.source) if c.source is not None else "not stated" for c in checks))
    text = [f"The {len(checks)} checks ({'; '.join(places)}) give the verdicts {listed}."]
    for word in (DOES_NOT_HOLD, UNDECIDED):
        names = [_short(c) for c in checks if c.verdict == word]
        if names:
            text.append(f"{word[0].upper() + word[1:]}: {'; '.join(names)}.")
    away = [c for c in checks if c.verdict == NOT_COMPARABLE]
    if away:
        reasons = "; ".join(dict.fromkeys("; ".join(c.setting.differences) for c in away))
        text.append(f"Not comparable: {'; '.join(_short(c) for c in away)}, because {reasons}.")
    return " ".join(text)


def findings_text(spread, checks) -> str:
    """How the checks came out (:func:`checks_sentence`), where the paper's eigenvalues and condition number fall
    among the seeds on each design, and how much the correlated design's residual moves with theta0."""
    pct_table = study.percentile_table(spread)
    text = [checks_sentence(checks)]
    for design in ("synthetic_sphere", "synthetic_correlated"):
        g = spread[spread["design"] == design]
        paper = fd.PAPER_STATISTICS[design]
        cond = g["lambda_max"] / g["lambda_min"]
        p_cond = paper["lambda_max"] / paper["lambda_min"]
        pct = pct_table[pct_table["design"] == design].set_index("statistic")["percentile"]
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
            "one common factor and leaves their ratio unchanged; the claims table therefore checks the two as one."
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
        "$\\theta_0$ turns. A single draw of $\\theta_0$ therefore decides this column of the paper's table"
        + "".join(
            f", and the claims table's check of it is {k.verdict}"
            for k in checks
            if k.claim.startswith("synthetic_correlated: the paper's OLS residual")
        )
        + "."
    )
    return "\n\n".join(text)


def smoke_sizes(p) -> str:
    """The sizes of a quick run at parameters ``p``, for the heading of the page's smoke-scale run."""
    return (
        f"synthetic designs at $n = 2^{{{int(p['log2_n'])}}}$, $d = {int(p['d'])}$, and a seed spread of "
        f"{int(p['n_seeds'])} seeds at $n = 2^{{{int(p['spread_log2_n'])}}}$"
    )
