"""The sentences of the Appendix I page (:mod:`fastmix_companion.studies.appendix_i`), generated from its tables.

The page displays what these return: the data and setting of a run, what the claims table leaves
to words (how far FastIHM is from IHM, where a larger sketch stops helping, why FastIHM's Hessian
noise is large, whether the two IHM routes agree), what the coherence costs, and the runtime verdict
against the paper's table; and the display tables of the noise section (coherence, m-hat, eta^2/gamma
per k2 and epsilon) and of the runtime section (each method's time and its speedup intervals).
"""

from __future__ import annotations

import numpy as np

from fastmix.srht import coherence_heuristic
from fastmix_companion.claims import NOT_COMPARABLE, format_interval, log_ratio_interval, verdict_counts
from fastmix_companion.studies import appendix_i as I

__all__ = [
    "data_setting",
    "series_label",
    "stored_setting_text",
    "run_data_line",
    "setting_differences_text",
    "checks_sentence",
    "findings_text",
    "noise_text",
    "runtime_text",
    "noise_table",
    "RUNTIME_ORDER",
    "runtime_table",
    "smoke_sizes",
]


def data_setting(tables, p) -> str:
    """Data set, size and grid of a run, as MyST maths."""
    info = tables["datasets"].iloc[0]
    sizes = ", ".join(f"{int(k):,}" for k in tables["sketch_sizes"].sort_values("k2_ratio")["k2"])
    eps = sorted(e for e in tables["runs"]["epsilon"].unique() if np.isfinite(e))
    return (
        f"{info['dataset']} ($n = {int(info['n']):,}$, $d = {int(info['d'])}$), $k_2 \\in \\{{{sizes}\\}}$, "
        f"$\\varepsilon$ from {min(eps):g} to {max(eps):g}, {p['n_trials']} trials, $T = {p['T']}$"
    )


def series_label(tables, series) -> str:
    """'FastIHM r2' -> 'FastIHM, k2 = 18018 (r = 600)'; other series keep their name."""
    if not series.startswith("FastIHM"):
        return series
    row = tables["sketch_sizes"].set_index("ratio_index").loc[int(series[-1])]
    return f"FastIHM, k2 = {int(row['k2'])} (r = {row['k2_ratio']:g})"


def stored_setting_text(tables, p) -> str:
    """The data of the stored run (which, why, size, preprocessing) and its setting."""
    info, sizes = tables["datasets"].iloc[0], tables["sketch_sizes"]
    return (
        f"**Data: {info['dataset']}**, because {info['why']}. $n = {int(info['n']):,}$ rows "
        f"(of {int(info['n_raw']):,} in the source), $d = {int(info['d'])}$, $n/d = {info['n_over_d']:,.0f}$. "
        f"Preprocessing: {info['preprocessing']}.\n\n"
        f"Setting: $T = {p['T']}$, {p['n_trials']} trials per point, "
        f"$\\varepsilon \\in \\{{{p['epsilons'].replace(',', ', ')}\\}}$, $k = k_1 = {int(sizes['k1'].iloc[0])}$, "
        + ", ".join(f"$k_2 = {int(r.k2):,}$ ($r = {r.k2_ratio:g}$)" for r in sizes.itertuples())
        + f"; {len(tables['runs']):,} solver runs."
    )


def _eps_list(values) -> str:
    return ", ".join(f"{e:g}" for e in values)


def checks_sentence(checks) -> str:
    """The claims table in one paragraph: the paper's claims counted by verdict (with where the paper makes them
    and, when not comparable, why), then our own questions with their verdicts."""
    paper = [c for c in checks if c.source is not None and not c.source.is_ours]
    ours = [c for c in checks if c.source is None or c.source.is_ours]
    text = []
    if paper:
        counts = ", ".join(f"{w} ({k})" for w, k in verdict_counts(paper).items() if k)
        places = "; ".join(dict.fromkeys(c.source.location for c in paper))
        text.append(
            f"Of the {len(paper)} claims of the FastMix paper checked here ({places}), the verdicts are {counts}."
        )
        away = [c for c in paper if c.verdict == NOT_COMPARABLE]
        if away:
            reasons = "; ".join(dict.fromkeys(d for c in away for d in c.setting.differences))
            text.append(
                f"{len(away)} {'is' if len(away) == 1 else 'are'} not comparable because this run is outside the "
                f"paper's setting (what differs: {reasons})."
            )
    if ours:
        text.append(
            f"Our own {'question' if len(ours) == 1 else 'questions'}: "
            + "; ".join(f"{c.claim} ({c.verdict})" for c in ours)
            + "."
        )
    return " ".join(text) if text else "No check was made."


def findings_text(tables, checks) -> str:
    """The paragraphs under the claims table.

    The tally of ``checks``; FastIHM (smallest and largest SRHT) over dense IHM at both ends of the
    grid; where the step from r2 to r3 is not significant (Holm), how far both are from IHM; where
    FastIHM at r3 is not within a factor 2 of IHM, its Hessian noise and what pads it; and where the
    Gram and dense IHM routes disagree (intervals at a 5% family-wise level).
    """
    runs = I.labelled_runs(tables)
    eps_grid = sorted(runs["epsilon"].dropna().unique())

    def sel(s, e):
        return runs.loc[(runs["series"] == s) & np.isclose(runs["epsilon"], e), "excess_risk"]

    def ratio(a, b, e):
        return log_ratio_interval(sel(a, e), sel(b, e))

    dense = "IHM (dense sketch)"
    lo, hi = eps_grid[0], eps_grid[-1]
    lines = [
        checks_sentence(checks),
        f"FastIHM with the largest SRHT has {format_interval(ratio('FastIHM r3', dense, lo))} times "
        f"IHM's excess risk at $\\varepsilon = {lo:g}$ and {format_interval(ratio('FastIHM r3', dense, hi))} "
        f"times at $\\varepsilon = {hi:g}$; with the smallest SRHT the factors are "
        f"{format_interval(ratio('FastIHM r1', dense, lo))} and {format_interval(ratio('FastIHM r1', dense, hi))}.",
    ]
    ns = I.noise_summary(tables).set_index(["ratio_index", "epsilon"])
    tests = I.page_tests(tables)
    step = ("FastIHM r2", "FastIHM r3")
    rej = [tests[("k2", e) + step][2] and tests[("k2", e) + step][3] < 0 for e in eps_grid]
    flat = [e for e, r in zip(eps_grid, rej, strict=True) if not r]
    if flat:
        lines.append(
            "The step from $r_2$ to $r_3$ lowers the excess risk significantly (Holm over the page's tests) at "
            "$\\varepsilon \\in \\{"
            + _eps_list(e for e, r in zip(eps_grid, rej, strict=True) if r)
            + "\\}$ but not at $\\varepsilon \\in \\{"
            + _eps_list(flat)
            + "\\}$, where FastIHM at $r_2$ and $r_3$ has "
            + "; ".join(
                f"{format_interval(ratio('FastIHM r2', dense, e))} and "
                f"{format_interval(ratio('FastIHM r3', dense, e))} times IHM's excess risk ($\\varepsilon = {e:g}$)"
                for e in flat
            )
            + ". Where both ratios are near 1, FastIHM is already at IHM's level, and a larger sketch has little left "
            "to gain."
        )
    far = [e for e in eps_grid if ratio("FastIHM r3", dense, e).high >= 2.0]
    if far:
        lines.append(
            "FastIHM at the largest $k_2$ is not within a factor 2 of IHM at $\\varepsilon \\in \\{"
            + _eps_list(far)
            + "\\}$. There its Hessian noise is $\\eta^2 = "
            + ", ".join(f"{ns.loc[(3, e), 'eta_sq_over_gamma']:.3g}" for e in far)
            + "\\,\\gamma$ respectively, against IHM's $\\sigma^2 \\le \\gamma$, because the private "
            "$\\widetilde m$ = "
            + ", ".join(f"{ns.loc[(3, e), 'm_tilde']:.3g}" for e in far)
            + f" pads the exact $\\widehat m \\approx {ns.loc[(3, far[0]), 'm_hat']:.3g}$ by "
            "$\\omega\\widehat\\Delta\\tau$ with $\\omega = 6T/\\varepsilon$ = "
            + ", ".join(f"{ns.loc[(3, e), 'omega']:.3g}" for e in far)
            + f" and the coherence $\\widehat\\Delta \\approx {ns.loc[(3, far[0]), 'delta_hat']:.3g}$ of "
            f"$k_2 = {int(ns.loc[(3, far[0]), 'k2']):,}$ rows (next section)."
        )
    eq = {e: iv for e, (iv, _, _) in I.gram_agreement(tables).items()}
    f = I.EQUIVALENCE_FACTOR
    far = max(eq, key=lambda e: abs(np.log(eq[e].estimate)))
    within = all(1 / f <= iv.low and iv.high <= f for iv in eq.values())
    miss = [e for e in eps_grid if tests[("gram=dense", e)][2]]
    sentence = (
        "The two IHM routes release the same random variable; our check asks whether their accuracy agrees within a "
        f"factor {f:g}. Gram / dense is {format_interval(eq[far])} where it is farthest from 1 ($\\varepsilon = "
        f"{far:g}$; trials paired by seed, simultaneous intervals over the {len(eps_grid)} epsilons), so "
        + (
            f"at every $\\varepsilon$ the routes are shown to agree within {100 * (f - 1):.0f}%"
            if within
            else f"agreement within {100 * (f - 1):.0f}% is not shown at every $\\varepsilon$"
        )
        + ". "
    )
    if miss:
        sentence += (
            "Equal accuracy is rejected at $\\varepsilon \\in \\{"
            + _eps_list(miss)
            + "\\}$ after Holm over the page's tests: a difference of "
            + ", ".join(f"{100 * abs(1 - eq[e].estimate):.1f}%" for e in miss)
            + ", smaller than the trial-to-trial spread of most methods on this page."
        )
    else:
        sentence += "Equal accuracy is rejected at no $\\varepsilon$ after Holm over the page's tests."
    lines.append(sentence)
    return "\n\n".join(lines)


def noise_text(tables) -> str:
    """Coherence, m-hat and eta^2/gamma per k2, and what shrinking the two large ratios by n/2^22 would cost."""
    ns = I.noise_summary(tables)
    n = int(tables["datasets"]["n"].iloc[0])
    sizes = tables["sketch_sizes"].sort_values("k2_ratio")
    big = sizes.iloc[1:]
    scaled_k2 = np.maximum(sizes["k2"].iloc[0], np.ceil(big["k2"].to_numpy() * n / 2**22))
    lines = []
    for j in sorted(ns["ratio_index"].unique()):
        sub = ns[ns["ratio_index"] == j].sort_values("epsilon")
        lines.append(
            f"$k_2 = {int(sub['k2'].iloc[0]):,}$: coherence {sub['delta_hat'].mean():.3g}, "
            f"$\\widehat m$ {sub['m_hat'].mean():.3g}, $\\eta^2/\\gamma$ from {sub['eta_sq_over_gamma'].iloc[-1]:.3g} "
            f"($\\varepsilon = {sub['epsilon'].iloc[-1]:g}$) to {sub['eta_sq_over_gamma'].iloc[0]:.3g} "
            f"($\\varepsilon = {sub['epsilon'].iloc[0]:g}$)"
        )
    if n == 2**22:  # the paper's n: the paper's ratios are the paper's k2, nothing to rescale
        return "Measured: " + "; ".join(lines) + "."
    return (
        "Measured: " + "; ".join(lines) + ". "
        f"Had the two large ratios been shrunk by $n/2^{{22}}$ to keep the paper's $k_2/n$ at this $n$, they "
        f"would give $k_2$ = {', '.join(f'{int(k):,}' for k in scaled_k2)} instead of "
        f"{', '.join(f'{int(k):,}' for k in big['k2'])}, and a coherence about "
        f"{float(np.sqrt(big['k2'].to_numpy() / scaled_k2).mean()):.1f} times larger "
        f"({', '.join(f'{coherence_heuristic(n, k):.3g}' for k in scaled_k2)} by the formula above): "
        "the padding of $\\widetilde m$, and with it FastIHM's noise, grows by that factor. "
        "That is why this page keeps the paper's absolute ratios."
    )


def runtime_text(tables, p) -> str:
    """Dense IHM's runtime over FastIHM's at the largest k2 against the paper's (below, above or compatible),
    why the sizes set it, and whether the Gram-factor IHM is faster than every FastIHM."""
    runs = I.labelled_runs(tables)
    times = {s: runs.loc[runs["series"] == s, "runtime_s"].to_numpy() for s in runs["series"].unique()}
    n, d = int(tables["datasets"]["n"].iloc[0]), int(tables["datasets"]["d"].iloc[0])
    k1 = int(tables["sketch_sizes"]["k1"].iloc[0])
    k2_top = int(tables["sketch_sizes"]["k2"].max())
    r3 = log_ratio_interval(times["IHM (dense sketch)"], times["FastIHM r3"])
    paper_r3 = I.PAPER_SPEEDUPS["FastIHM r3"]
    gram_fastest = all(
        log_ratio_interval(times[s], times["IHM (Gram factor)"]).low > 1
        for s in ("FastIHM r1", "FastIHM r2", "FastIHM r3")
    )
    setting = I.run_setting(tables["datasets"])
    caveat = (
        ""
        if setting.comparable
        else "This run is not comparable with the paper's table: " + "; ".join(setting.differences) + ". "
    )
    if r3.high < paper_r3:
        verdict = (
            f"Here the ratio IHM / FastIHM at the largest $k_2$ is {format_interval(r3)}, below the "
            f"paper's {paper_r3:g}. "
        )
    elif r3.low > paper_r3:
        verdict = f"Here the ratio at the largest $k_2$, {format_interval(r3)}, is above the paper's {paper_r3:g}. "
    else:
        verdict = (
            f"Here the ratio at the largest $k_2$, {format_interval(r3)}, is compatible with the paper's {paper_r3:g}. "
        )
    return (
        caveat
        + verdict
        + f"The sizes set these ratios. Dense IHM draws $T k n = {p['T'] * k1 * n / 1e6:,.0f}$ million Gaussian "
        f"numbers per solve, a number that grows with $n$; FastIHM's mixing draws $T k_1 k_2 = "
        f"{p['T'] * k1 * k2_top / 1e6:,.1f}$ million at the largest $k_2$, a number that does not"
        + (
            ". "
            if n == 2**22
            else f". At the paper's $n = 2^{{22}}$ the dense sketch costs {2**22 / n:g} times more than at "
            f"$n = {n:,}$ while FastIHM's mixing costs the same, so the speedups at large $k_2$ grow with $n$. "
        )
        + "Timed on one thread of a shared machine, with NumPy's Gaussian generator: the sizes of these "
        "speedups compare implementations as much as algorithms. The Gram-factor IHM forms "
        "$X^\\top X$ once "
        f"($n d^2$ multiply-adds, $d = {d}$) and then works with $d \\times d$ matrices; "
        + (
            "its runtime is below every FastIHM's here (lower 95% limits of the ratios above 1)."
            if gram_fastest
            else "it is not faster than every FastIHM here (see the last column)."
        )
    )


def noise_table(tables):
    """:func:`~fastmix_companion.studies.appendix_i.noise_summary` as the page shows it: per k2 and epsilon the
    ratio r, the measured coherence, sqrt(2 ln(2n)/k2), m-hat, the private m-tilde, omega, tau and eta^2/gamma."""
    names = {
        "k2": "k2",
        "k2_ratio": "r",
        "epsilon": "ε",
        "delta_hat": "coherence Δ̂",
        "coherence_typical": "√(2 ln 2n / k2)",
        "m_hat": "m̂",
        "m_tilde": "m̃",
        "omega": "ω",
        "tau": "τ",
        "eta_sq_over_gamma": "η² / γ",
    }
    return I.noise_summary(tables)[list(names)].rename(columns=names)


RUNTIME_ORDER = ("FastIHS", "FastIHM r1", "FastIHM r2", "FastIHM r3", "IHM (Gram factor)", "IHM (dense sketch)")
"""The rows of :func:`runtime_table`, fastest expected first (series missing from a run are left out)."""


def runtime_table(tables):
    """The runtime table of Figure 4, one row per method of :data:`RUNTIME_ORDER` that ran.

    Columns: the method (:func:`series_label`), its mean runtime per solve in ms, dense IHM's runtime over it
    with a 95% interval (geometric means, :func:`~fastmix_companion.claims.log_ratio_interval`; "1" on dense
    IHM's own row), the paper's value of that ratio (``PAPER_SPEEDUPS``, blank where the paper gives none),
    and the same ratio for the Gram-factor IHM.
    """
    import pandas as pd

    runs = I.labelled_runs(tables)
    times = {s: runs.loc[runs["series"] == s, "runtime_s"].to_numpy() for s in runs["series"].unique()}

    def speedup(base, s):
        return "1" if s == base else format_interval(log_ratio_interval(times[base], times[s]))

    rows = [
        {
            "method": series_label(tables, s),
            "mean runtime (ms)": 1e3 * times[s].mean(),
            "IHM / method [95%]": speedup("IHM (dense sketch)", s),
            "paper (Figure 4)": I.PAPER_SPEEDUPS.get(s, np.nan),
            "IHM (Gram) / method [95%]": speedup("IHM (Gram factor)", s),
        }
        for s in RUNTIME_ORDER
        if s in times
    ]
    return pd.DataFrame(rows)


def setting_differences_text(tables) -> str:
    """How the stored run's rows were drawn (its last preprocessing step) and what differs from the paper's
    Appendix I setting (:func:`~fastmix_companion.studies.appendix_i.run_setting`), with whether the paper's claims
    can be judged on it."""
    info = tables["datasets"].iloc[0]
    setting = I.run_setting(tables["datasets"])
    step = str(info["preprocessing"]).split(" | ")[-1]
    verdict = (
        "The paper's claims are judged on it, with these differences stated."
        if setting.comparable
        else f"The paper's claims are therefore not comparable on it: $n = 2^{{22}}$ and a $\\lambda_{{\\min}}$ "
        f"within a factor {I.LAMBDA_FACTOR:g} of the paper's {I.PAPER_LAMBDA_MIN:g} are needed."
    )
    differences = "; ".join(setting.differences) if setting.differences else "nothing"
    return f"**This entry.** Rows: {step}. What differs from the paper's setting: {differences}. {verdict}"


def run_data_line(tables) -> str:
    """The data a run used, why that set, and how many solver runs it made, on one line."""
    info = tables["datasets"].iloc[0]
    return f"data: {info['dataset']} ({info['why']}); {len(tables['runs'])} solver runs"


def smoke_sizes(p) -> str:
    """The sizes of a quick run at parameters ``p``, for the heading of the page's smoke-scale run."""
    rows = "all complete rows" if int(p["log2_n"]) == 0 else f"$n = 2^{{{int(p['log2_n'])}}}$ rows"
    eps = [e.strip() for e in str(p["epsilons"]).split(",") if e.strip()]
    return (
        f"{rows}, $\\varepsilon \\in \\{{{', '.join(eps)}\\}}$, {int(p['n_trials'])} trials per method "
        f"and $\\varepsilon$"
    )
