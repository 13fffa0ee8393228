"""The sentences and text tables of the page "Private regression on your own table" (:mod:`.own_table`).

Everything the page says about measured numbers is generated here from the study's tables
(``setting``, ``fits``) and parameters, so the page never types a number in.
"""

from __future__ import annotations

import numpy as np

from fastmix_companion.pages import tex_num
from fastmix_companion.studies import own_table as study
from fastmix_companion.studies._verdict_sentences import checks_text

__all__ = [
    "checks_text",
    "bounds_markdown",
    "setting_text",
    "errors_markdown",
    "errors_text",
    "kernel_markdown",
    "kernel_text",
]


def bounds_markdown(table) -> str:
    """The declared bounds of ``table`` as a Markdown table, then the reasons."""
    lines = ["| column | declared | kind |", "|---|---|---|"]
    low, high = table.response_range
    lines.append(f"| {table.response} ({table.transform}) | [{low:g}, {high:g}] | response |")
    for column, (a, b) in table.numeric_ranges.items():
        lines.append(f"| {column} | [{a:g}, {b:g}] | numeric |")
    for column, cats in table.categories.items():
        lines.append(f"| {column} | {', '.join(map(str, cats))} | categories |")
    return "\n".join(lines) + "\n\n" + table.why


def setting_text(tables, p) -> str:
    """The setting of a run: rows, features, budgets, trials and delta."""
    s = tables["setting"].sort_values("fraction")
    full = s.iloc[-1]
    sizes = ", ".join(f"{int(n):,}" for n in s["n_train"])
    eps = ", ".join(f"{e:g}" for e in sorted(tables["fits"]["epsilon"].unique()))
    return (
        f"{full['table']}, training rows {sizes} (held-out {int(full['n_test']):,}), {int(full['d'])} encoded "
        f"features and an intercept, $\\varepsilon \\in \\{{{eps}\\}}$, $\\delta = {tex_num(p['delta'])}$, "
        f"{int(p['trials'])} trials"
    )


def errors_markdown(summary) -> str:
    """The held-out errors on the largest training set, one row per learner and epsilon."""
    full = summary[summary["fraction"] == summary["fraction"].max()]
    lines = [
        "| learner | $\\varepsilon$ | MSE / OLS (95% interval) | MSE / mean | fit (s) | chosen |",
        "|---|---|---|---|---|---|",
    ]
    for r in full.sort_values(["learner", "epsilon"], key=_learner_order).itertuples():
        lines.append(
            f"| {r.learner} | {r.epsilon:g} | {r.mse_over_ols:.3g} [{r.low:.3g}, {r.high:.3g}] | "
            f"{r.mse_over_mean:.3g} | {r.fit_s:.3g} | {r.chosen or '-'} |"
        )
    return "\n".join(lines)


def _learner_order(column):
    if column.name == "learner":
        return column.map({name: i for i, name in enumerate(study.LEARNERS)})
    return column


def errors_text(summary, tables) -> str:
    """What the errors say: the linear front door against OLS and the mean, the search's choices, certification."""
    full = summary[summary["fraction"] == summary["fraction"].max()]
    linear = full[full["learner"] == study.LEARNERS[0]].sort_values("epsilon")
    searched = full[full["learner"] == "private search"]
    lo, hi = linear.iloc[0], linear.iloc[-1]
    picks = tables["fits"]
    picks = picks[(picks["learner"] == "private search") & (picks["fraction"] == picks["fraction"].max())]
    linear_share = float(np.mean(picks["chosen"] == study.LEARNERS[0])) if len(picks) else float("nan")
    certified = bool(tables["fits"]["certified"].all())
    return (
        f"The linear front door's held-out error is {hi.mse_over_ols:.3g} times OLS's at $\\varepsilon = "
        f"{hi.epsilon:g}$ and {lo.mse_over_ols:.3g} times at $\\varepsilon = {lo.epsilon:g}$; the training mean, "
        f"the predictor that uses no feature, is {1 / hi.mse_over_mean:.3g} and {1 / lo.mse_over_mean:.3g} times worse "
        f"than it there. The private search chose the linear learner in {linear_share:.0%} of its "
        f"{len(picks)} fits on the whole table; its error pays for splitting the budget among "
        f"{len(study.KERNELS) + 1} candidates (between {searched['mse_over_ols'].min():.3g} and "
        f"{searched['mse_over_ols'].max():.3g} times OLS's). "
        + (
            "Every fit, searches included, was certified private end to end by the pipeline certificate."
            if certified
            else "**Some fits were not certified private end to end** (see the table)."
        )
    )


def kernel_markdown(comparison) -> str:
    """The kernel-against-linear table: per training size and epsilon, the best kernel setting's ratio."""
    lines = [
        "| training rows | $\\varepsilon$ | best kernel setting | kernel / linear (simultaneous interval) | "
        "kernel / OLS | linear / OLS | non-private kernel / OLS |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in comparison.sort_values(["fraction", "epsilon"]).itertuples():
        lines.append(
            f"| {r.n_train:,} | {r.epsilon:g} | {r.best_kernel} | {r.ratio:.3g} [{r.low:.3g}, {r.high:.3g}] | "
            f"{r.kernel_over_ols:.3g} | {r.linear_over_ols:.3g} | {r.nonprivate_kernel_over_ols:.3g} |"
        )
    return "\n".join(lines)


def kernel_text(comparison) -> str:
    """When the kernel learner beats the linear one on this table, read from the comparison."""
    full = comparison[comparison["fraction"] == comparison["fraction"].max()]
    small = comparison[comparison["fraction"] == comparison["fraction"].min()]
    n = int(full["n_train"].iloc[0])
    wins = full[full["verdict"] == "kernel better"]
    potential = float(full["nonprivate_kernel_over_ols"].iloc[0])
    lead = (
        f"Without privacy a random-feature ridge regression reaches {potential:.3g} times OLS's error on this "
        "table, so the kernel has something to gain. "
    )
    if not wins.empty:
        eps = ", ".join(f"{e:g}" for e in wins["epsilon"])
        body = f"With privacy, at {n:,} training rows, the best kernel setting beats the linear learner at "
        body += f"$\\varepsilon$ = {eps}."
    else:
        undecided = full[full["verdict"] == "undecided"]
        tied = ", ".join(f"{e:g}" for e in undecided["epsilon"])
        body = (
            f"With privacy, at {n:,} training rows, the best kernel setting (picked after the fact, which favours it) "
            f"is {full['ratio'].min():.3g} to {full['ratio'].max():.3g} times the linear learner's error"
            + (
                f"; the trials cannot separate them at $\\varepsilon$ = {tied}"
                if len(undecided)
                else ", worse at every budget"
            )
            + "."
        )
    by_eps = full.sort_values("epsilon")
    if len(by_eps) > 1:
        first, last = by_eps.iloc[0], by_eps.iloc[-1]
        trend = "narrows" if last["ratio"] < first["ratio"] else "does not narrow"
        body += (
            f" From the smallest budget to the largest the gap {trend}: {first['ratio']:.3g} at "
            f"$\\varepsilon = {first['epsilon']:g}$, "
            f"{last['ratio']:.3g} at $\\varepsilon = {last['epsilon']:g}$ (the kernel learner's noise, added to an "
            "$M \\times M$ covariance, shrinks with the budget)."
        )
    if len(comparison["fraction"].unique()) > 1:
        m_small, m_full = float(small["ratio"].median()), float(full["ratio"].median())
        closes = m_full < m_small / 1.25
        body += (
            f" Over the training sizes it {'narrows' if closes else 'does not narrow'}: the median over budgets is "
            f"{m_small:.3g} at {int(small['n_train'].iloc[0]):,} rows and {m_full:.3g} at {n:,}"
            + ("." if closes else "; the linear learner improves with more rows too.")
        )
    return lead + body
