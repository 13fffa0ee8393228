"""The claims of the kernel comparison page (:mod:`fastmix_companion.studies.kernel_rp_vs_rff`), decided on its tables.

What the kernel paper claims, and where. Its comparison figure (in the experiments section,
which our copy of the paper lacks; we know it from a summary of the caption) reports random
projection (RP, Algorithm 1) consistently better than random Fourier features (RFF, Algorithm 3)
across a wide range of epsilon, the gap widening with the input dimension d. The paper states no
n, M, lambda, delta, data or tuning for it, so no run can be placed in its setting: both paper
claims are "not comparable" (:func:`paper_claims`). What our runs can show is what happens in
*our* protocols, and those checks are ours (:data:`OURS_FIGURE`):

* one check per panel and protocol, "RP consistently better": RP better overall (the paired
  ratio RP / RFF pooled over the epsilons significantly below 1) and RFF significantly better at no
  epsilon (:func:`verdict_matrix`). Both methods converge at both ends of the epsilon range (noise
  dominates at the small end, both approach their non-private fits at the large end), so
  "significantly better at every epsilon" would be a rule no method could meet;
* per target and protocol, "the gap widens with d" (:func:`gap_tests`);
* at equal M without privacy, "RP approximates better" (:func:`equal_m_tests`), prompted by the
  discussion after Theorem 6, which compares the M each method needs for the optimal rate (a
  statement about rates, not a comparison at equal M).

Every decision rests on a two-sided test, and all the page's tests form one family: Holm at 5%
over the per-epsilon and pooled tests of every cell of the matrix, the gap tests and the equal-M
tests together (:func:`page_tests`).
"""

from __future__ import annotations

import math

import numpy as np

from fastmix_companion.claims import Claim, Setting, Source, holm, kernel_paper, mean_interval, t_quantile, welch
from fastmix_companion.studies.kernel_rp_vs_rff_summary import PROTOCOLS, equal_m_comparison, paired_log_ratios

__all__ = [
    "FIGURE",
    "OURS_FIGURE",
    "OURS_THEOREM6",
    "ALPHA",
    "EDGE_SHARE",
    "CELL_RULE",
    "matrix_tests",
    "gap_tests",
    "equal_m_tests",
    "page_tests",
    "verdict_matrix",
    "edge_epsilons",
    "rff_cluster",
    "edge_split",
    "cell_name",
    "is_cell",
    "cell_claims",
    "paper_claims",
    "claims",
]

FIGURE = kernel_paper("comparison figure of the experiments section, known from a summary of its caption")
"""Where the kernel paper makes the comparison claim."""

OURS_FIGURE = Source(None, "our protocols, asking the question of the kernel paper's comparison figure")
OURS_THEOREM6 = Source(
    None, "prompted by the kernel paper's discussion after Theorem 6 (RP needs a smaller M for the optimal rate)"
)

ALPHA = 0.05
"""Family-wise level of the page's tests (Holm)."""

EDGE_SHARE = 1.0 / 3.0
"""A tuned cell is flagged when a method's tuned M sits at the top of the grid in at least this share of fits."""

CELL_RULE = (
    "two-sided paired t tests on log(error RP / error RFF), per epsilon and pooled over the epsilons (mean per "
    f"repetition), Holm at {ALPHA:.0%} over all the page's tests: holds if the pooled ratio is significantly below 1 "
    "and RFF is significantly better at no epsilon; does not hold if RFF is significantly better at some epsilon or "
    "overall; else undecided"
)
"""The rule of every cell of the verdict matrix, stated once."""

_NOT_STATED = (
    "the paper states no n, M, lambda, delta, data or tuning for the figure; our runs use protocols of our own",
)


def _paired(x):
    """(mean, low, high, two-sided p) of a paired t test of mean(x) = 0; p = 1 when it cannot be computed."""
    from scipy import stats

    x = np.asarray(x, dtype=float)
    iv = mean_interval(x)
    if x.size < 2 or x.std(ddof=1) == 0:
        return iv.estimate, iv.low, iv.high, 1.0
    t = x.mean() / (x.std(ddof=1) / math.sqrt(x.size))
    return iv.estimate, iv.low, iv.high, float(2.0 * stats.t.sf(abs(t), x.size - 1))


def matrix_tests(runs, protocols=PROTOCOLS):
    """Per protocol, panel and private epsilon, and pooled over the epsilons: the paired test of log(RP/RFF).

    Columns: protocol, panel, d, target, epsilon (``nan`` for the pooled test), reps, ratio, low,
    high (95% interval of the geometric-mean ratio) and p (two-sided).
    """
    import pandas as pd

    rows = []
    for protocol in protocols:
        if not (runs["protocol"] == protocol).any():
            continue
        lr = paired_log_ratios(runs, protocol)
        lr = lr[np.isfinite(lr["epsilon"])]
        for (panel, d, target), g in lr.groupby(["panel", "d", "target"], sort=False):
            parts = [(eps, ge["log_ratio"].to_numpy()) for eps, ge in g.groupby("epsilon")]
            parts.append((math.nan, g.groupby("rep")["log_ratio"].mean().to_numpy()))
            for eps, x in parts:
                m, lo, hi, p = _paired(x)
                rows.append(
                    {
                        "protocol": protocol,
                        "panel": panel,
                        "d": int(d),
                        "target": target,
                        "epsilon": eps,
                        "reps": int(x.size),
                        "ratio": math.exp(m),
                        "low": math.exp(lo) if np.isfinite(lo) else 0.0,
                        "high": math.exp(hi) if np.isfinite(hi) else math.inf,
                        "p": p,
                    }
                )
    return pd.DataFrame(
        rows, columns=["protocol", "panel", "d", "target", "epsilon", "reps", "ratio", "low", "high", "p"]
    )


def gap_tests(runs, protocols=PROTOCOLS):
    """Per protocol and synthetic target: (RP/RFF at the largest d) / (RP/RFF at the smallest d), Welch test.

    The pooled log ratio per repetition at each end of d; below 1 means RP's advantage grows with d.
    """
    import pandas as pd
    from scipy import stats

    rows = []
    for protocol in protocols:
        if not (runs["protocol"] == protocol).any():
            continue
        lr = paired_log_ratios(runs, protocol)
        lr = lr[np.isfinite(lr["epsilon"])]
        for target in ("plane_wave", "rkhs"):
            t = lr[lr["target"] == target]
            ds = sorted(t["d"].unique())
            if len(ds) < 2:
                continue
            a = t[t["d"] == ds[-1]].groupby("rep")["log_ratio"].mean().to_numpy()
            b = t[t["d"] == ds[0]].groupby("rep")["log_ratio"].mean().to_numpy()
            if a.size < 2 or b.size < 2:
                continue
            diff, se, df = welch(a, b)
            half = t_quantile(0.95, df) * se
            p = float(2.0 * stats.t.sf(abs(diff) / se, df)) if se > 0 else float(diff == 0)
            rows.append(
                {
                    "protocol": protocol,
                    "target": target,
                    "d_low": int(ds[0]),
                    "d_high": int(ds[-1]),
                    "ratio": math.exp(diff),
                    "low": math.exp(diff - half),
                    "high": math.exp(diff + half),
                    "p": p,
                }
            )
    return pd.DataFrame(rows, columns=["protocol", "target", "d_low", "d_high", "ratio", "low", "high", "p"])


def equal_m_tests(sweep, Ms=(16, 64)):
    """Per M of ``Ms`` and panel, without privacy: RP / RFF at each method's best lambda, with a two-sided z test."""
    import pandas as pd
    from scipy import stats

    rows = []
    for M in Ms:
        eq = equal_m_comparison(sweep, math.inf, M)
        for _, r in eq.iterrows():
            z = math.log(r["ratio"]) / ((math.log(r["high"]) - math.log(r["low"])) / (2 * 1.96))
            rows.append({**r.to_dict(), "p": float(2.0 * stats.norm.sf(abs(z)))})
    return pd.DataFrame(rows)


def page_tests(tables, alpha=ALPHA):
    """All the page's tests, each with ``significant`` from one Holm correction over the whole family.

    Returns a dict of the frames of :func:`matrix_tests`, :func:`gap_tests` and :func:`equal_m_tests`
    (the last empty when there is no sweep).
    """
    import pandas as pd

    runs = tables["runs"]
    frames = {"matrix": matrix_tests(runs), "gap": gap_tests(runs)}
    frames["equal_m"] = equal_m_tests(tables["sweep"]) if "sweep" in tables else pd.DataFrame(columns=["p"])
    p = np.concatenate([f["p"].to_numpy(dtype=float) for f in frames.values()])
    reject = np.array(holm(p.tolist(), alpha), dtype=bool) if p.size else np.array([], dtype=bool)
    start = 0
    for name, f in frames.items():
        f = f.copy()
        f["significant"] = reject[start : start + len(f)]
        start += len(f)
        frames[name] = f
    frames["size"] = int(p.size)
    return frames


def edge_epsilons(runs, grid, share=EDGE_SHARE):
    """Per panel: the epsilons at which a method's tuned M sat at the top of ``grid`` in ``share`` of fits or more."""
    tuned = runs[(runs["protocol"] == "tuned") & runs["method"].isin(("RP", "RFF")) & np.isfinite(runs["epsilon"])]
    top = tuned.assign(top=tuned["M"] == max(grid)).groupby(["panel", "epsilon", "method"])["top"].mean()
    hit = top[top >= share].reset_index()
    return {panel: sorted(g["epsilon"].unique()) for panel, g in hit.groupby("panel")}


def rff_cluster(tests, protocol="tuned", level=0.05):
    """The epsilon at which RFF beats RP (unadjusted two-sided p < ``level``) in the most panels of ``protocol``.

    Returns (epsilon, panels at which RFF wins there, how many of them stay significant after Holm), or
    ``None`` when RFF wins nowhere.
    """
    m = tests["matrix"]
    m = m[(m["protocol"] == protocol) & np.isfinite(m["epsilon"]) & (m["ratio"] > 1) & (m["p"] < level)]
    if m.empty:
        return None
    eps = m.groupby("epsilon").size().idxmax()
    at = m[m["epsilon"] == eps]
    return float(eps), list(at["panel"]), int(at["significant"].sum())


def edge_split(runs, grid, eps, panels):
    """At ``eps`` in the tuned protocol, per panel: how often each method's M sat at the top of ``grid`` (and at the
    neighbouring epsilons), and the ratio RP / RFF over the repetitions where neither did (95% interval)."""
    import pandas as pd

    tuned = runs[(runs["protocol"] == "tuned") & runs["method"].isin(("RP", "RFF")) & np.isfinite(runs["epsilon"])]
    epss = sorted(tuned["epsilon"].unique())
    k = epss.index(eps)
    near = [e for e in (epss[k - 1] if k > 0 else None, epss[k + 1] if k + 1 < len(epss) else None) if e is not None]
    rows = []
    for panel in panels:
        t = tuned[tuned["panel"] == panel]
        w = t.pivot_table(index=["epsilon", "rep"], columns="method", values=["M", "test_error"])
        top = {m: w[("M", m)] == max(grid) for m in ("RP", "RFF")}
        share = {m: top[m].groupby(level="epsilon").mean() for m in ("RP", "RFF")}
        at = w.xs(eps, level="epsilon")
        inner = at[(at[("M", "RP")] < max(grid)) & (at[("M", "RFF")] < max(grid))]
        lr = np.log(inner[("test_error", "RP")] / inner[("test_error", "RFF")]).to_numpy()
        m_, lo, hi, p = _paired(lr) if lr.size >= 2 else (math.nan, math.nan, math.nan, 1.0)
        rows.append(
            {
                "panel": panel,
                "top_RP": share["RP"][eps],
                "top_RFF": share["RFF"][eps],
                "near_top_RP": max(share["RP"][e] for e in near) if near else math.nan,
                "near_top_RFF": max(share["RFF"][e] for e in near) if near else math.nan,
                "inner_reps": int(lr.size),
                "inner_ratio": math.exp(m_),
                "inner_low": math.exp(lo),
                "inner_high": math.exp(hi),
                "inner_p": p,
            }
        )
    return pd.DataFrame(rows), near


def verdict_matrix(tests):
    """One row per (protocol, panel): counts of significant wins, the pooled ratio and ``holds`` (:data:`CELL_RULE`)."""
    import pandas as pd

    m = tests["matrix"]
    rows = []
    for (protocol, panel), g in m.groupby(["protocol", "panel"], sort=False):
        per = g[np.isfinite(g["epsilon"])]
        pooled = g[~np.isfinite(g["epsilon"])].iloc[0]
        rp = int((per["significant"] & (per["ratio"] < 1)).sum())
        rff = int((per["significant"] & (per["ratio"] > 1)).sum())
        pooled_rp = bool(pooled["significant"] and pooled["ratio"] < 1)
        pooled_rff = bool(pooled["significant"] and pooled["ratio"] > 1)
        holds = False if (rff > 0 or pooled_rff) else (True if pooled_rp else None)
        rff_eps = sorted(per.loc[per["significant"] & (per["ratio"] > 1), "epsilon"])
        rows.append(
            {
                "protocol": protocol,
                "panel": panel,
                "d": int(g["d"].iloc[0]),
                "target": g["target"].iloc[0],
                "epsilons": len(per),
                "reps": int(per["reps"].min()),
                "rp_better": rp,
                "rff_better": rff,
                "rff_epsilons": rff_eps,
                "ratio": pooled["ratio"],
                "low": pooled["low"],
                "high": pooled["high"],
                "holds": holds,
            }
        )
    return pd.DataFrame(rows)


def _ratio(r) -> str:
    return f"{r['ratio']:.2f} [{r['low']:.2f}, {r['high']:.2f}]"


def _eps_list(values) -> str:
    return ", ".join(f"{e:g}" for e in values)


#: The question the verdict matrix answers cell by cell; the book's summary counts it once.
MATRIX_GROUP = "in our protocols, RP better than RFF in every panel (the verdict matrix)"


def cell_name(panel, protocol) -> str:
    """The name of the matrix claim of one panel and protocol."""
    return f"{panel.replace('_', ' ')} ({protocol}): in our protocol, RP better and RFF better at no epsilon"


def is_cell(claim) -> bool:
    """Whether ``claim`` is a cell of the verdict matrix (the page shows those as a matrix, the rest as a table)."""
    return claim.group == MATRIX_GROUP


def cell_claims(matrix, edges=None):
    """The matrix's cells as our own claims, keyed by (protocol, panel); ``edges`` from :func:`edge_epsilons`.

    A tuned cell whose tuned M sat at the top of the grid (see :data:`EDGE_SHARE`) says so in its setting: a
    wider grid could move the comparison at those epsilons. It stays in the verdict (the page shows why).
    """
    edges = edges or {}
    out = {}
    for _, r in matrix.iterrows():
        diffs = [f"our {r['protocol']} protocol"]
        if r["protocol"] == "tuned" and edges.get(r["panel"]):
            diffs.append(
                f"tuned M at the top of its grid in at least a third of fits at epsilon {_eps_list(edges[r['panel']])}"
            )
        out[(r["protocol"], r["panel"])] = Claim(
            cell_name(r["panel"], r["protocol"]),
            "RP's test error is below RFF's overall and RFF is better at no epsilon",
            f"ratio RP/RFF pooled over epsilon {_ratio(r)}; RP significantly better at {r['rp_better']} and RFF at "
            f"{r['rff_better']} of {r['epsilons']} epsilons ({r['reps']} repetitions)",
            CELL_RULE,
            r["holds"],
            OURS_FIGURE,
            Setting(tuple(diffs)),
            group=MATRIX_GROUP,
        )
    return out


def paper_claims(matrix, gap):
    """The kernel paper's two claims about its comparison figure: not comparable (its setting is not stated)."""
    held, failed = int((matrix["holds"] == True).sum()), int((matrix["holds"] == False).sum())  # noqa: E712
    widen = int(((gap["ratio"] < 1) & gap["significant"]).sum()) if len(gap) else 0
    narrow = int(((gap["ratio"] > 1) & gap["significant"]).sum()) if len(gap) else 0
    rule = "a paper's claim is tested in its setting; this one states none, so our runs cannot confirm or refute it"
    return [
        Claim(
            "RP consistently better than RFF across epsilon",
            "RP's average test error over 100 repetitions is below RFF's across a wide range of epsilon, in every "
            "panel",
            f"in our protocols RP is consistently better in {held} and not in {failed} of {len(matrix)} panel-protocol "
            "cells (the matrix below)",
            rule,
            None,
            FIGURE,
            Setting(_NOT_STATED, comparable=False),
        ),
        Claim(
            "the gap widens with d",
            "RP's advantage over RFF grows with the input dimension d",
            f"in our protocols the ratio falls with d in {widen} and rises in {narrow} of {len(gap)} target-protocol "
            "checks",
            rule,
            None,
            FIGURE,
            Setting(_NOT_STATED, comparable=False),
        ),
    ]


def _gap_claims(gap, size):
    out = []
    for _, r in gap.iterrows():
        sig = bool(r["significant"])
        out.append(
            Claim(
                f"gap widens with d: {r['target'].replace('_', ' ')} ({r['protocol']})",
                "RP's advantage over RFF grows with the input dimension",
                f"(RP/RFF at d = {r['d_high']}) / (RP/RFF at d = {r['d_low']}) = {_ratio(r)}",
                f"two-sided Welch test on the pooled log ratios at the two ends of d, Holm at {ALPHA:.0%} over the "
                f"page's {size} tests: holds if significant and below 1, does not hold if significant and above 1, "
                "else undecided",
                (r["ratio"] < 1) if sig else None,
                OURS_FIGURE,
                Setting((f"our {r['protocol']} protocol",)),
                group="in our protocols, RP's advantage over RFF grows with d",
            )
        )
    return out


def _equal_m_claims(eq, size):
    out = []
    for M, g in eq.groupby("M", sort=True) if len(eq) else ():
        better = int((g["significant"] & (g["ratio"] < 1)).sum())
        worse = int((g["significant"] & (g["ratio"] > 1)).sum())
        n = len(g)
        out.append(
            Claim(
                f"equal M = {int(M)}, non-private: RP approximates better",
                "at the same M, RP's non-private error is below RFF's (the paper compares the M each needs for the "
                "optimal rate, not the errors at equal M)",
                f"error ratio RP/RFF (each at its best lambda) significantly below 1 in {better} and above 1 in "
                f"{worse} of {n} panels; median ratio {g['ratio'].median():.2f}",
                f"two-sided z tests on the log ratio per panel, Holm at {ALPHA:.0%} over the page's {size} tests: "
                "holds if significantly below 1 in at least two thirds of the panels and above 1 in none; does not "
                "hold if above 1 in more panels than below; else undecided",
                True if (better >= 2 * n / 3 and worse == 0) else (False if worse > better else None),
                OURS_THEOREM6,
                Setting(("our sweep: each method at its best lambda of the grid, no privacy",)),
                group="at equal M, without privacy, RP approximates better than RFF",
            )
        )
    return out


def claims(tables, grid=None, alpha=ALPHA):
    """Every claim of the page: the paper's two (not comparable), the matrix's cells, the gap and equal-M checks."""
    tests = page_tests(tables, alpha)
    matrix = verdict_matrix(tests)
    edges = edge_epsilons(tables["runs"], grid) if grid else {}
    return (
        paper_claims(matrix, tests["gap"])
        + list(cell_claims(matrix, edges).values())
        + _gap_claims(tests["gap"], tests["size"])
        + _equal_m_claims(tests["equal_m"], tests["size"])
    )
