"""Summaries, comparisons and claims of the kernel comparison study (:mod:`fastmix_companion.studies.kernel_rp_vs_rff`).

Everything here reads the study's tables (``runs``, ``sweep``, ``noise``) and computes what
the page states: mean errors with intervals (:func:`summarise`), the paired ratio of RP's
error to RFF's per panel and epsilon (:func:`paired_log_ratios`, :func:`ratio_table`,
:func:`panel_verdicts`), how the gap moves with the dimension (:func:`gap_with_d`), the
equal-M comparison (:func:`pooled_sweep`, :func:`equal_m_comparison`, :func:`noise_summary`),
the hyperparameters each protocol chose (:func:`chosen_hyperparameters`) and the page's
claims (:func:`claims`, :func:`verdict_markdown`). Every public name is importable from
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


# ------------------------------------------------------------------------------------------ comparisons and claims


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


def panel_verdicts(runs, protocol, alpha=0.05):
    """Per panel: at how many epsilons RP or RFF is significantly better (Holm over the epsilons).

    ``holds`` is True when RP is significantly better at every epsilon of the panel ("consistently
    better"), False when RFF is significantly better at one epsilon or more, None otherwise.
    """
    import pandas as pd

    from fastmix_companion.claims import holm, mean_interval

    table = ratio_table(runs, protocol)
    table = table[np.isfinite(table["epsilon"])]  # the private fits only
    lr = paired_log_ratios(runs, protocol)
    lr = lr[np.isfinite(lr["epsilon"])]
    rows = []
    for panel, g in table.groupby("panel", sort=False):
        rp = holm(g["p_rp_better"].tolist(), alpha)
        rff = holm(g["p_rff_better"].tolist(), alpha)
        pooled = lr[lr["panel"] == panel].groupby("rep")["log_ratio"].mean().to_numpy()
        iv = mean_interval(pooled) if pooled.size else None
        n_rp, n_rff, m = int(sum(rp)), int(sum(rff)), len(rp)
        holds = True if n_rp == m else (False if n_rff > 0 else None)
        rows.append(
            {
                "panel": panel,
                "d": int(g["d"].iloc[0]),
                "target": g["target"].iloc[0],
                "epsilons": m,
                "reps": int(g["reps"].min()),
                "rp_better": n_rp,
                "rff_better": n_rff,
                "pooled_ratio": math.exp(iv.estimate) if iv else np.nan,
                "pooled_low": math.exp(iv.low) if iv and np.isfinite(iv.low) else np.nan,
                "pooled_high": math.exp(iv.high) if iv and np.isfinite(iv.high) else np.nan,
                "holds": holds,
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


# ------------------------------------------------------------------------------------------ the page's claims


def _fmt_ratio(r, lo, hi):
    return f"{r:.2f} [{lo:.2f}, {hi:.2f}]"


def claims(tables, alpha: float = 0.05):
    """The comparison's claims as :class:`fastmix_companion.claims.Claim`, decided on the stored tables.

    * Per panel and protocol, the kernel paper's "RP consistently better than RFF": paired
      one-sided t tests on the log error ratios at each epsilon with Holm's correction over the
      epsilons (:func:`panel_verdicts`); holds when RP is better at every epsilon, fails when RFF
      is better at one or more, else undecided.
    * Per target, for the tuned and theory protocols, "the gap widens with d": the Welch interval
      of the change in pooled log ratio from the smallest to the largest d (:func:`gap_with_d`).
    * At equal M = 16 and 64 without privacy, "RP approximates better": our reading at finite M
      of the discussion after Theorem 6, which says RP needs a smaller M than RFF to reach the
      optimal rate (:func:`equal_m_comparison`).

    ``tables`` holds ``runs`` and ``sweep`` as :func:`run` returns them.
    """
    from fastmix_companion.claims import Claim

    runs, sweep = tables["runs"], tables["sweep"]
    out = []
    for protocol in PROTOCOLS:
        if not (runs["protocol"] == protocol).any():
            continue
        for _, r in panel_verdicts(runs, protocol, alpha).iterrows():
            out.append(
                Claim(
                    f"RP better than RFF: {r['panel'].replace('_', ' ')} ({protocol})",
                    "RP's average test error is below RFF's at every epsilon (the kernel paper's comparison figure)",
                    "error ratio RP/RFF pooled over epsilon "
                    f"{_fmt_ratio(r['pooled_ratio'], r['pooled_low'], r['pooled_high'])}; "
                    f"RP significantly better at {r['rp_better']} and RFF at {r['rff_better']} of "
                    f"{r['epsilons']} epsilons "
                    f"({r['reps']} repetitions)",
                    f"paired one-sided t tests on log error ratios at each epsilon, Holm at {alpha:.0%} over "
                    "the epsilons: "
                    "holds if RP is better at every epsilon, does not hold if RFF is better at one or more, "
                    "else undecided",
                    r["holds"],
                )
            )
    for protocol in ("tuned", "theory"):
        for target in ("plane_wave", "rkhs"):
            g = gap_with_d(runs, protocol, target)
            if g is None:
                continue
            d0, d1, iv = g
            out.append(
                Claim(
                    f"gap widens with d: {target.replace('_', ' ')} ({protocol})",
                    "RP's advantage over RFF grows with the input dimension",
                    f"(RP/RFF at d = {d1}) / (RP/RFF at d = {d0}) = {_fmt_ratio(iv.estimate, iv.low, iv.high)}",
                    "Welch interval on the difference of pooled log ratios: holds if the interval lies below 1, "
                    "does not "
                    "hold if above 1, else undecided",
                    True if iv.high < 1 else (False if iv.low > 1 else None),
                )
            )
    for M in (16, 64):
        eq = equal_m_comparison(sweep, math.inf, M)
        if eq.empty:
            continue
        better, worse = int((eq["high"] < 1).sum()), int((eq["low"] > 1).sum())
        out.append(
            Claim(
                f"equal M = {M}, non-private: RP approximates better",
                "discussion after Theorem 6: RP reaches the optimal rate with a smaller M than RFF needs (a "
                "statement about rates; the paper does not compare the two at equal M, which this check does)",
                f"error ratio RP/RFF (each at its best lambda) below 1 with 95% confidence in {better} and above 1 in "
                f"{worse} of {len(eq)} panels; median ratio {eq['ratio'].median():.2f}",
                "holds if significantly below 1 in at least two thirds of the panels and above 1 in none; does "
                "not hold "
                "if above 1 in more panels than below; else undecided",
                True if (better >= 2 * len(eq) / 3 and worse == 0) else (False if worse > better else None),
            )
        )
    return out


def verdict_markdown(runs, alpha: float = 0.05) -> str:
    """One Markdown bullet per protocol: how many (panel, epsilon) points each method wins, and in how
    many panels the paper's "consistently better" holds or is contradicted (rules of :func:`claims`)."""
    lines = []
    for protocol in PROTOCOLS:
        if not (runs["protocol"] == protocol).any():
            continue
        v = panel_verdicts(runs, protocol, alpha)
        held = v[v["holds"] == True]["panel"].tolist()  # noqa: E712
        failed = v[v["holds"] == False]["panel"].tolist()  # noqa: E712
        lines.append(
            f"* **{protocol}**: RP is significantly better at {v['rp_better'].sum()} and RFF at "
            f"{v['rff_better'].sum()} "
            f'of the {v["epsilons"].sum()} (panel, epsilon) points; the paper\'s "consistently better" holds in '
            f"{len(held)} of {len(v)} panels"
            + (f" ({', '.join(p.replace('_', ' ') for p in held)})" if held else "")
            + (f" and is contradicted in {', '.join(p.replace('_', ' ') for p in failed)}" if failed else "")
            + "."
        )
    return "\n".join(lines)
