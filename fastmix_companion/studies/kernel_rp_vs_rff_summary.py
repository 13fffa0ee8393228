"""Summaries and comparisons of the kernel comparison study (:mod:`fastmix_companion.studies.kernel_rp_vs_rff`).

Everything here reads the study's tables (``runs``, ``sweep``, ``noise``) and computes what
the page states: mean errors with intervals (:func:`summarise`), the paired ratio of RP's
error to RFF's per panel and epsilon (:func:`paired_log_ratios`, :func:`ratio_table`), how the
gap moves with the dimension (:func:`gap_with_d`), the equal-M comparison (:func:`pooled_sweep`,
:func:`equal_m_comparison`, :func:`noise_summary`) and the hyperparameters each protocol chose
(:func:`chosen_hyperparameters`). The page's claims are decided in
:mod:`fastmix_companion.studies.kernel_rp_vs_rff_claims`. Every public name is importable from
:mod:`fastmix_companion.studies.kernel_rp_vs_rff` too.
"""

from __future__ import annotations

import math

import numpy as np

METHODS = ("RP", "RFF")
"""The two private methods compared: random projection (Algorithm 1) and random Fourier features (Algorithm 3)."""

PROTOCOLS = ("tuned", "theory", "private")
"""The three ways of choosing (M, lambda) (see :mod:`fastmix_companion.studies.kernel_rp_vs_rff`)."""


# ------------------------------------------------------------------------------------------ summaries


def summarise(runs, level=0.95):
    """Mean test error with its t interval per panel, protocol, method and epsilon."""
    import pandas as pd

    from fastmix_companion.claims import mean_interval

    out = []
    for key, g in runs.groupby(["panel", "protocol", "method", "epsilon"], sort=False):
        iv = mean_interval(g["test_error"].to_numpy(), level)
        out.append(
            {
                "panel": key[0],
                "protocol": key[1],
                "method": key[2],
                "epsilon": key[3],
                "reps": iv.n,
                "mean": iv.estimate,
                "low": iv.low,
                "high": iv.high,
                "M_median": float(g["M"].median()),
                "lam_median": float(g["lam"].median()),
            }
        )
    return pd.DataFrame(out)


# ------------------------------------------------------------------------------------------ comparisons


def paired_log_ratios(runs, protocol):
    """Per repetition, panel and epsilon: ``log(error of RP / error of RFF)`` under one protocol.

    Both methods see the same data in a repetition, so the comparison is paired.
    """
    sub = runs[(runs["protocol"] == protocol) & runs["method"].isin(METHODS)]
    wide = sub.pivot_table(index=["panel", "d", "target", "epsilon", "rep"], columns="method", values="test_error")
    wide = wide.dropna()
    wide = wide[(wide["RP"] > 0) & (wide["RFF"] > 0)]
    out = (np.log(wide["RP"]) - np.log(wide["RFF"])).rename("log_ratio").reset_index()
    return out


def ratio_table(runs, protocol, level=0.95):
    """Geometric-mean ratio RP / RFF per panel and epsilon with the paired t interval and p-values.

    ``p_rp_better`` / ``p_rff_better``: one-sided paired t tests on the log ratios.
    """
    import pandas as pd
    from scipy import stats

    from fastmix_companion.claims import mean_interval

    rows = []
    for (panel, d, target, eps), g in paired_log_ratios(runs, protocol).groupby(
        ["panel", "d", "target", "epsilon"], sort=False
    ):
        x = g["log_ratio"].to_numpy()
        iv = mean_interval(x, level)
        if x.size > 1 and x.std(ddof=1) > 0:
            t = x.mean() / (x.std(ddof=1) / math.sqrt(x.size))
            p_less, p_more = float(stats.t.cdf(t, x.size - 1)), float(stats.t.sf(t, x.size - 1))
        else:
            p_less = p_more = 1.0
        rows.append(
            {
                "panel": panel,
                "d": d,
                "target": target,
                "epsilon": eps,
                "reps": x.size,
                "ratio": math.exp(iv.estimate),
                "low": math.exp(iv.low) if np.isfinite(iv.low) else 0.0,
                "high": math.exp(iv.high) if np.isfinite(iv.high) else math.inf,
                "p_rp_better": p_less,
                "p_rff_better": p_more,
            }
        )
    return pd.DataFrame(rows)


def gap_with_d(runs, protocol, target, level=0.95):
    """Change of the pooled log ratio RP / RFF from the smallest to the largest d (Welch interval).

    Negative means RP's advantage grows with d. Returns (d_low, d_high, Interval of the ratio of ratios).
    """
    from fastmix_companion.claims import Interval, t_quantile, welch

    lr = paired_log_ratios(runs, protocol)
    lr = lr[(lr["target"] == target) & np.isfinite(lr["epsilon"])]
    if lr.empty:
        return None
    ds = sorted(lr["d"].unique())
    if len(ds) < 2:
        return None
    a = lr[lr["d"] == ds[-1]].groupby("rep")["log_ratio"].mean().to_numpy()
    b = lr[lr["d"] == ds[0]].groupby("rep")["log_ratio"].mean().to_numpy()
    if a.size < 2 or b.size < 2:
        return None
    diff, se, df = welch(a, b)
    half = t_quantile(level, df) * se
    return (
        ds[0],
        ds[-1],
        Interval(math.exp(diff), math.exp(diff - half), math.exp(diff + half), level, int(min(a.size, b.size))),
    )


def pooled_sweep(sweep):
    """The stored equal-M sweep pooled over cells.

    Mean error with a 95% interval per panel, method, epsilon, M and lambda.
    """
    from scipy import stats

    s = sweep.copy()
    s["sum"] = s["mean"] * s["count"]
    s["sumsq"] = (s["sd"].fillna(0.0) ** 2) * (s["count"] - 1) + s["count"] * s["mean"] ** 2
    s["fsum"] = s["floored_share"] * s["count"]
    g = s.groupby(["panel", "method", "epsilon", "M", "lam"], sort=True)[["count", "sum", "sumsq", "fsum"]].sum()
    g = g.reset_index()
    g["mean"] = g["sum"] / g["count"]
    var = (g["sumsq"] - g["count"] * g["mean"] ** 2) / (g["count"] - 1).clip(lower=1)
    half = stats.t.ppf(0.975, (g["count"] - 1).clip(lower=1)) * np.sqrt(var.clip(lower=0) / g["count"])
    g["low"], g["high"] = g["mean"] - half, g["mean"] + half
    g["se_log"] = np.sqrt(var.clip(lower=0) / g["count"]) / g["mean"]
    g["floored_share"] = g["fsum"] / g["count"]
    return g.drop(columns=["sum", "sumsq", "fsum"])


def equal_m_comparison(sweep, epsilon, M, lam=None):
    """Per panel at one epsilon and M: ratio of mean errors RP / RFF with an approximate 95% interval.

    ``lam=None`` takes each method's best lambda of the grid at that M (by mean test error; a
    description of the sweep, not a tuning protocol).
    """
    import pandas as pd

    p = pooled_sweep(sweep)
    p = p[(p["epsilon"] == epsilon) & (p["M"] == M)]
    rows = []
    for panel, g in p.groupby("panel", sort=False):
        pick = {}
        for method in METHODS:
            gm = g[g["method"] == method]
            if gm.empty:
                break
            gm = gm.loc[[gm["mean"].idxmin()]] if lam is None else gm[np.isclose(gm["lam"], lam)]
            if gm.empty:
                break
            pick[method] = gm.iloc[0]
        if len(pick) < 2:
            continue
        r = math.log(pick["RP"]["mean"] / pick["RFF"]["mean"])
        se = math.hypot(pick["RP"]["se_log"], pick["RFF"]["se_log"])
        rows.append(
            {
                "panel": panel,
                "epsilon": epsilon,
                "M": M,
                "lam_RP": pick["RP"]["lam"],
                "lam_RFF": pick["RFF"]["lam"],
                "ratio": math.exp(r),
                "low": math.exp(r - 1.96 * se),
                "high": math.exp(r + 1.96 * se),
                "reps": int(min(pick["RP"]["count"], pick["RFF"]["count"])),
            }
        )
    return pd.DataFrame(rows)


def noise_summary(noise, sweep, epsilon, lam):
    """The noise table at one epsilon: D2, noise standard deviations and the floored share per M and method."""
    p = pooled_sweep(sweep)
    p = p[(p["epsilon"] == epsilon) & np.isclose(p["lam"], lam) & ~p["panel"].str.startswith("diabetes")]
    share = p.groupby(["method", "M"])["floored_share"].mean()
    nz = noise[noise["epsilon"] == epsilon].copy()
    nz["floored_share"] = [share.get((m, M), np.nan) for m, M in zip(nz["method"], nz["M"], strict=True)]
    wide = nz.pivot_table(index="M", columns="method", values=["D2", "sigma_C", "sigma_u", "floored_share"])
    wide.columns = [f"{a}_{b}" for a, b in wide.columns]
    return wide.reset_index()


def chosen_hyperparameters(runs):
    """Median M and lambda chosen per protocol, method and epsilon, and the share of choices at a grid edge."""
    sub = runs[runs["method"].isin(METHODS)].copy()
    for col in ("M_at_edge", "lam_at_edge", "M_capped"):
        if col not in sub:
            sub[col] = np.nan
        sub[col] = sub[col].map(lambda v: float(v in (True, "True", 1.0)) if v == v else np.nan)
    g = sub.groupby(["protocol", "method", "epsilon"], sort=False)
    out = g.agg(
        M_median=("M", "median"),
        lam_median=("lam", "median"),
        M_edge=("M_at_edge", "mean"),
        lam_edge=("lam_at_edge", "mean"),
        M_capped=("M_capped", "mean"),
        floored=("floored_share", "mean"),
    ).reset_index()
    return out
