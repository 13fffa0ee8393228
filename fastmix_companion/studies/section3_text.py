"""The sentences and text tables of the Section 3 page (:mod:`fastmix_companion.studies.section3`).

The page displays what these return, generated from the study's tables (``sweep``, ``designs``,
``accounting``, ``tiny``) and the stored parameters: the size of a sweep, the paper-size summary,
what the claims mean for Figure 1's constants, and how loose Theorem 1's bounds are on one draw.
"""

from __future__ import annotations

from fastmix_companion.claims import HOLDS
from fastmix_companion.studies import section3 as study

__all__ = [
    "verdicts_text",
    "sweep_setting",
    "accounting_setting",
    "stored_setting_text",
    "paper_size_markdown",
    "findings_text",
    "accounting_text",
    "accounting_table",
    "smoke_sizes_text",
]


def _counts(group) -> str:
    from fastmix_companion.claims import verdict_counts

    return "; ".join(f"{word}: {k}" for word, k in verdict_counts(group).items() if k)


def _detail(c) -> str:
    """One check that does not simply hold: its name, whose claim, its verdict and, where it applies, why."""
    from fastmix_companion.claims import HOLDS_IN_DIRECTION, NOT_COMPARABLE

    if c.source is None:
        whose = "whose claim is not stated"
    elif c.source.is_ours:
        whose = f"ours: {c.source.location}" if c.source.location else "ours"
    else:
        whose = str(c.source)
    why = ""
    if c.verdict == NOT_COMPARABLE:
        why = ", because the run is not in the paper's setting: " + "; ".join(c.setting.differences)
    elif c.verdict == HOLDS_IN_DIRECTION:
        why = f" ({c.size})"
    return f"{c.claim} ({whose}): {c.verdict}{why}"


def verdicts_text(checks) -> str:
    """The verdicts of ``checks`` in words: how many test a paper's claims and how many ask our own questions,
    the count of each verdict, and every check whose verdict is not "holds", with whose claim it is (and, for a
    paper's claim outside its setting, why it is not comparable)."""
    from fastmix_companion.claims import HOLDS

    checks = list(checks)
    if not checks:
        return "No check could be decided."
    papers = sorted({c.source.paper for c in checks if c.source is not None and not c.source.is_ours})
    groups = [
        (f"test claims of the {paper}", [c for c in checks if c.source is not None and c.source.paper == paper])
        for paper in papers
    ]
    groups.append(("answer questions of our own", [c for c in checks if c.source is not None and c.source.is_ours]))
    groups.append(("do not say whose claim they test", [c for c in checks if c.source is None]))
    parts = [f"{len(g)} {what} ({_counts(g)})" for what, g in groups if g]
    text = f"Of the {len(checks)} checks, " + (", ".join(parts[:-1]) + " and " if len(parts) > 1 else "") + parts[-1]
    paper_rest = [c for c in checks if c.source is not None and not c.source.is_ours and c.verdict != HOLDS]
    ours_rest = [c for c in checks if c.source is not None and c.source.is_ours and c.verdict != HOLDS]
    unstated_rest = [c for c in checks if c.source is None and c.verdict != HOLDS]
    for what, rest in (
        ("Claims of the paper", paper_rest),
        ("Our own questions", ours_rest),
        ("Checks that do not say whose claim they test", unstated_rest),
    ):
        if rest:
            text += f". {what} whose verdict is not 'holds': " + "; ".join(_detail(c) for c in rest)
    return text + "."


def sweep_setting(tables) -> str:
    """The size of a sweep, from its table."""
    sw = tables["sweep"]
    return (
        f"$n = {int(sw['n'].iloc[0])}$, $d = {int(sw['d'].iloc[0])}$, $k_2$ from {int(sw['k2'].min())} to "
        f"{int(sw['k2'].max())}, {sw['draw'].nunique()} draws per $k_2$"
    )


def accounting_setting(acc, tiny=None) -> str:
    """The size of the accounting run: the tiny dataset (if given) and the range of gamma."""
    size = f"$n = {int(tiny.n)}$, $d = {int(tiny.d)}$, $k_2 = {int(tiny.k2)}$, " if tiny is not None else ""
    return f"{size}{len(acc)} values of $\\gamma$ from {acc['gamma'].min():.3g} to {acc['gamma'].max():.3g}"


def stored_setting_text(tables, p) -> str:
    """The setting of the stored sweep: n, d, the k2 grid, the paper's ratios and the draws."""
    sw = tables["sweep"]
    return (
        f"Setting: both synthetic designs at $n = 2^{{{p['log2_n']}}}$, $d = {p['d']}$; $k_2$ from "
        f"$2^{{{p['log2_k2_min']}}}$ to $2^{{{min(p['log2_k2_max'], p['log2_n'])}}}$ and the paper's sizes for "
        f"$r \\in \\{{{p['paper_ratios'].replace(',', ', ')}\\}}$; {sw['draw'].nunique()} independent SRHT draws "
        f"per $k_2$ ({len(sw)} draws in all)."
    )


def paper_size_markdown(summary) -> str:
    """:func:`~fastmix_companion.studies.section3.paper_size_summary` as a Markdown table."""
    lines = [
        "| design | $r$ | $k_2$ | draws | $C^2 = 1 + 2\\widehat m$ | smallest to largest draw | "
        "$\\lambda_{\\min}(Z)/\\lambda_{\\min}(X)$ | $\\widehat\\Delta$ |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in summary.itertuples():
        lines.append(
            f"| {r.design} | {r.k2_ratio:g} | {r.k2} | {r.n_draws} | {r.c2_mean:.3g} [{r.c2_low:.3g}, "
            f"{r.c2_high:.3g}] | {r.c2_min:.3g} to {r.c2_max:.3g} | {r.lambda_ratio_mean:.3f} "
            f"[{r.lambda_ratio_low:.3f}, {r.lambda_ratio_high:.3f}] | {r.delta_hat_mean:.3g} |"
        )
    return "\n".join(lines)


def findings_text(tables, checks) -> str:
    """The paragraphs under the claims table.

    The verdicts of ``checks`` (:func:`verdicts_text`); per design, C^2 and the kept share of
    lambda_min at the paper's largest (and smallest) SRHT against Figure 1's 2 and 5/6, and where on
    the grid C^2 falls to 2 (or that it never does); and, when every "m_hat falls" check has the
    verdict "holds", why m_hat falls only like k2^(-1/2).
    """
    sw = tables["sweep"]
    summary = study.paper_size_summary(sw)
    n_big = int(sw["n"].iloc[0])
    text = [verdicts_text(checks)]
    grid = sw[sw["k2_ratio"].isna()].groupby(["design", "k2"])["c2"].mean()
    for design in study.DESIGNS:
        s = summary[summary["design"] == design].sort_values("k2_ratio")
        if s.empty:
            continue
        top = s.iloc[-1]
        g = grid.loc[design]
        below2 = g[g <= 2.0]
        reach = (
            f"it falls to 2 or below at $k_2 = {int(below2.index.min())}$"
            if len(below2)
            else f"even at the largest $k_2$ of the grid, {int(g.index.max())} $= n/{n_big // int(g.index.max())}$, "
            f"it is still {g.iloc[-1]:.3g}"
        )
        text.append(
            f"On the **{design.replace('synthetic_', '')}** design, the paper's largest SRHT ($k_2 = {int(top.k2)}$, "
            f"$r = {top.k2_ratio:g}$) gives $C^2_{{S_f X}} = {top.c2_mean:.3g}$, {top.c2_mean / 2:.3g} times the "
            f"$C^2 = 2$ that Figure 1 draws; {reach}. The same draws keep "
            f"{top.lambda_ratio_mean:.3f} of $\\lambda_{{\\min}}(X)$ (Figure 1 assumes {5 / 6:.3f})"
            + (
                ""
                if len(s) < 2
                else f"; the paper's smallest SRHT ($k_2 = {int(s.iloc[0].k2)}$, $r = {s.iloc[0].k2_ratio:g}$) keeps "
                f"{s.iloc[0].lambda_ratio_mean:.3f} of it and has $C^2 = {s.iloc[0].c2_mean:.3g}$"
            )
            + "."
        )
    slopes = [c for c in checks if c.claim.startswith("m_hat falls")]
    if slopes and all(c.verdict == HOLDS for c in slopes):
        text.append(
            "The reason $C^2$ stays large is the rate at which $\\widehat m$ falls: it shrinks like "
            "$k_2^{-1/2}$ (the fitted exponents are in the table), so each halving of $C^2 - 1$ costs four times the "
            "rows. For an SRHT $(S_f^\\top S_f)_{ii} = 1$ and $\\sum_{j\\ne i}(S_f^\\top S_f)_{ij}^2 = n/k_2 - 1$, so "
            "$\\|X^\\top(S_f^\\top S_f - I)e_i\\|$ is a sum of $n$ terms whose squared size adds up to about "
            "$(n/k_2 - 1)$ times the mean squared row norm: $\\widehat m$ is of order $\\sqrt{n/k_2}$, not of order 1, "
            "until $k_2$ is a sizeable fraction of $n$. Section 3's bound $\\widehat m \\le \\tfrac{\\chi}{2}"
            "\\|X\\|_{\\mathrm{op}}$ says the same: it is relative to $\\|X\\|_{\\mathrm{op}}$, which is about "
            f"{tables['designs']['op_norm_x'].min():.0f} here, not to $C_X = 1$."
        )
    return "\n\n".join(text)


def accounting_text(acc, tiny) -> str:
    """The tiny draw's quantities, and how far the tight bound and the closed form are above the exact loss."""
    over = (acc["eps_tight"] - acc["laplace_part"]) / (acc["eps_exact"] - acc["laplace_part"])
    closed = acc["eps_closed"] / acc["eps_tight"]
    return (
        f"The tiny dataset has $n = {int(tiny.n)}$, $d = {int(tiny.d)}$, and its SRHT $k_2 = {int(tiny.k2)}$ rows; "
        f"the draw has $\\widehat m = {tiny.m_hat:.3g}$, $C^2 = {tiny.c2:.3g}$, "
        f"$\\lambda_{{\\min}}(Z) = {tiny.lambda_min_z:.3g}$ and $\\widehat\\Delta = {tiny.delta_hat:.3g}$. "
        f"Over the {len(acc)} values of $\\gamma$ from {acc['gamma'].min():.3g} to {acc['gamma'].max():.3g}, "
        f"the tight bound's sketch part is {over.min():.3g} to {over.max():.3g} times the exact loss of this "
        f"release (the bound must hold for the worst dataset with the same $\\gamma$), and the closed form is "
        f"{closed.min():.3g} to "
        f"{closed.max():.3g} times the tight bound, the largest factor at $\\gamma = "
        f"{acc['gamma'][closed.idxmax()]:.3g}$ "
        f"(the simplified bound $25\\alpha/(32\\gamma^2)$ restricts the Renyi order to $\\alpha < 8\\gamma/25$, "
        f"which leaves little room near the smallest admissible $\\gamma = 25/8$)."
    )


def accounting_table(acc):
    """The ``accounting`` table as the page shows it: gamma, sigma and the epsilon of each accounting, headed by
    its source (eq. (9) of the closed form, eq. (114) of the tight bound, and the exact divergence)."""
    names = {"eps_closed": "eq. (9)", "eps_tight": "eq. (114)", "eps_exact": "exact"}
    return acc[["gamma", "sigma", *names]].rename(columns=names)


def smoke_sizes_text(p) -> str:
    """The sizes of the quick check at parameters ``p`` (the notebook's parameters cell), as MyST maths."""
    return (
        f"Sizes of this quick check: $n = 2^{{{p['log2_n']}}}$ rows and $d = {p['d']}$ features, "
        f"$k_2$ from $2^{{{p['log2_k2_min']}}}$ to $2^{{{p['log2_k2_max']}}}$ with {p['n_draws']} SRHT draws each; "
        f"the exact-loss comparison on $2^{{{p['tiny_log2_n']}}} \\times {p['tiny_d']}$ data with "
        f"$k_2 = {p['tiny_k2']}$, $k_1 = {p['k1']}$ and {p['n_gamma']} values of $\\gamma$."
    )
