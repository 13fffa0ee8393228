"""Rates of private kernel ridge regression: excess risk against n and against epsilon.

The kernel paper (arXiv:2507.17544) bounds the excess risk of DP kernel ridge regression by random
projection (Algorithm 1) by ``O(n^(-1/(1+gamma)) + (n eps)^(-2/(2+gamma)))`` (Theorem 3, minimax
optimal by Theorem 4) and that of the RFF version (Algorithm 3, no compatibility assumption) by
``O(n^(-1/(1+gamma)) + (n eps)^(-2/3))`` (Theorem 6 with alpha = 1).  For the Gaussian kernel
gamma ~ 0, so the privacy terms scale as ``(n eps)^(-1)`` for RP and ``(n eps)^(-2/3)`` for RFF.

Both methods run with the theory's hyperparameters (the ``theory`` protocol of the comparison
study: :func:`fastmix.kernels.theory_rp_hyperparameters` and
:func:`fastmix.kernels.theory_hyperparameters`), which is what the rates are about.  Each private fit
is paired with the non-private fit on the *same* features, M and lambda, so the *privacy cost*
(private minus non-private excess risk) is measured separately from the total.

Tables
------
``runs``
    One row per sweep ("n" or "epsilon"), n, epsilon, repetition and method: M, lambda, excess
    risk of the private fit and of its non-private twin.  A cell is one point of a sweep and one
    block of repetitions.

:func:`fit_slopes` fits the log-log slopes with bootstrap intervals over repetitions.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from fastmix_companion.parameters import Choice, Integer, IntegerList, Real, RealList
from fastmix_companion.studies import CellTable, split_values

__all__ = [
    "NOTEBOOK",
    "DEFAULTS",
    "PARAMETERS",
    "THEORY_SLOPES",
    "ALPHA",
    "BOUNDS",
    "ORDERING",
    "run",
    "fit_slopes",
    "capped_points",
    "claims",
    "stored_claims",
    "cost_model",
]

NOTEBOOK = "kernel_rates"

DEFAULTS: dict[str, Any] = {
    "seed": 0,
    "n_values": "200,400,800",
    "epsilon": 1.0,
    "eps_values": "0.3,1,3",
    "n_fixed": 400,
    "delta": 1e-5,
    "d": 2,
    "target": "rkhs",
    "n_test": 200,
    "n_reps": 2,
    "rep_block": 2,
    "noise_sd": 0.1,
    "c_m": 1.0,
    "c_lam": 1.0,
    "max_components": 512,
    "blas_threads": 1,
}
"""Smoke-scale defaults (the notebook's); ``notebooks/paper_scale.json`` holds the paper-scale run."""

PARAMETERS = {
    "seed": Integer(0),
    "n_values": IntegerList(2),
    "epsilon": Real(0, low_open=True),
    "eps_values": RealList(0, low_open=True),
    "n_fixed": Integer(2),
    "delta": Real(0, 1, low_open=True, high_open=True),
    "d": Integer(1),
    "target": Choice("rkhs", "plane_wave"),
    "n_test": Integer(1),
    "n_reps": Integer(1),
    "rep_block": Integer(1),
    "noise_sd": Real(0),
    "c_m": Real(0, low_open=True),
    "c_lam": Real(0, low_open=True),
    "max_components": Integer(1),
    "blas_threads": Integer(0),  # 0: library default
}
"""What each parameter admits (:mod:`fastmix_companion.parameters`)."""


THEORY_SLOPES = {
    ("n", "RP", "private"): -1.0,
    ("n", "RFF", "private"): -2.0 / 3.0,
    ("epsilon", "RP", "privacy cost"): -1.0,
    ("epsilon", "RFF", "privacy cost"): -2.0 / 3.0,
    ("n", "RP", "privacy cost"): -1.0,
    ("n", "RFF", "privacy cost"): -2.0 / 3.0,
    ("n", "RP", "non-private twin"): -1.0,
    ("n", "RFF", "non-private twin"): -1.0,
}
"""Exponents of the bounds for gamma = 0 (log factors dropped): Theorem 3 (RP) and Theorem 6 with alpha = 1 (RFF)."""


def _one(params, sweep, n, eps, rep, kernel, spectrum):
    from fastmix.kernels import ridge_path_floored, theory_hyperparameters, theory_rp_hyperparameters
    from fastmix_companion.studies.kernel_fits import plane_wave_target, private_path, rkhs_target

    d, delta = int(params["d"]), float(params["delta"])
    key = (0 if sweep == "n" else 1, int(n), round(1000 * eps), rep)
    data_ss, rp_ss, rff_ss, noise_ss = np.random.SeedSequence(int(params["seed"]), spawn_key=key).spawn(4)
    rng = np.random.default_rng(data_ss)
    f = plane_wave_target if params["target"] == "plane_wave" else rkhs_target(d, kernel, rng)
    nt = int(params["n_test"])
    X = rng.uniform(-1.0, 1.0, (n + nt, d))
    fx = f(X)
    y = np.clip(fx + float(params["noise_sd"]) * rng.standard_normal(n + nt), -1.0, 1.0)[:n]
    cap = int(params["max_components"])
    rp = theory_rp_hyperparameters(
        n, eps, delta, spectrum, c_m=float(params["c_m"]), c_lam=float(params["c_lam"]), max_components=cap
    )
    M_full = theory_hyperparameters(n, eps, delta, method="rff", c_lam=float(params["c_lam"])).n_components
    rff = theory_hyperparameters(
        n, eps, delta, method="rff", c_lam=float(params["c_lam"]), max_components=cap
    )  # lambda for the capped M
    M_rff, lam_rff = rff.n_components, rff.lam
    noise_rng = np.random.default_rng(noise_ss)
    rows = []
    for method, M, lam, ss, capped in (
        ("RP", rp.n_components, rp.lam, rp_ss, rp.capped),
        ("RFF", M_rff, lam_rff, rff_ss, M_full > cap),
    ):
        feats = _FeaturesAt(method, kernel, X, n, M, np.random.default_rng(ss), y)
        betas, floored, _, D2 = private_path(method, feats, M, eps, delta, np.array([lam]), 1.0, noise_rng)
        C, u, _ = feats.stats("all", M)
        beta0 = ridge_path_floored(C, u, np.array([lam])).coef
        Zt = feats.map("te", M)
        risk = float(np.mean((Zt @ betas[0] - fx[n:]) ** 2))
        risk0 = float(np.mean((Zt @ beta0[0] - fx[n:]) ** 2))
        rows.append(
            {
                "sweep": sweep,
                "n": n,
                "epsilon": eps,
                "rep": rep,
                "method": method,
                "M": M,
                "lam": lam,
                "M_capped": bool(capped),
                "risk": risk,
                "risk_nonprivate": risk0,
                "privacy_cost": risk - risk0,
                "floored_share": floored[0] / M,
                "D2": D2,
            }
        )
    return rows


class _FeaturesAt:
    """The features of one method at training and test inputs (same interface as the comparison study's)."""

    def __init__(self, method, kernel, X, n, M, rng, y):
        from fastmix.kernels import ExactGaussianProcessPaths, RandomFourierFeatures

        if method == "RP":
            sampler = ExactGaussianProcessPaths(kernel, M, random_state=rng)
            F = sampler.fit(X).evaluate(X)
            self.variance_bound = sampler.variance_bound
            self.scale = lambda m: 1.0 / math.sqrt(m)
        else:
            rff = RandomFourierFeatures(kernel, M, random_state=rng).fit(X)
            F = np.cos(X @ rff.frequencies_ + rff.offsets_)
            self.variance_bound = None
            self.scale = lambda m: math.sqrt(2.0 / m)
        self.tr, self.te, self.y = F[:n], F[n:], y

    def stats(self, rows, M):
        s = self.scale(M)
        Ft = self.tr[:, :M]
        return Ft.T @ Ft / Ft.shape[0] * s * s, Ft.T @ self.y / Ft.shape[0] * s, Ft.shape[0]

    def map(self, part, M):
        return getattr(self, part)[:, :M] * self.scale(M)


def run(params, store=None, log=print) -> dict:
    """Compute the ``runs`` table (see the module docstring); resumable with a store."""
    import pandas as pd

    from fastmix.kernels import GaussianKernel, operator_spectrum

    if int(params.get("blas_threads", 0)) > 0:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=int(params["blas_threads"]))
    d = int(params["d"])
    kernel = GaussianKernel(math.sqrt(d))
    spectrum = operator_spectrum(
        kernel,
        np.random.default_rng(np.random.SeedSequence(int(params["seed"]), spawn_key=(99,))).uniform(
            -1.0, 1.0, (1000, d)
        ),
    )
    points = [("n", int(n), float(params["epsilon"])) for n in split_values(params["n_values"], int)]
    points += [("epsilon", int(params["n_fixed"]), float(e)) for e in split_values(params["eps_values"])]
    runs = CellTable(store, "runs", log)
    n_reps, block = int(params["n_reps"]), max(1, int(params["rep_block"]))
    for start in range(0, n_reps, block):
        stop = min(n_reps, start + block)
        for sweep, n, eps in points:

            def compute(sweep=sweep, n=n, eps=eps, start=start, stop=stop):
                rows = []
                for rep in range(start, stop):
                    rows += _one(params, sweep, n, eps, rep, kernel, spectrum)
                return pd.DataFrame(rows)

            runs.compute(f"{sweep}|n={n}|eps={eps:g}|reps={start}-{stop - 1}", compute)
    return {"runs": runs.frame()}


def fit_slopes(runs, *, n_boot=2000, level=0.95, seed=0):
    """Log-log slopes of the mean risk (and of the mean privacy cost) with bootstrap intervals.

    For each sweep ("n": against n at fixed epsilon; "epsilon": against epsilon at fixed n), method
    and quantity ("private" risk, "privacy cost"), the slope is the least-squares slope of
    ``log mean(quantity)`` on ``log x``; the interval resamples the repetitions at every point
    (percentile bootstrap).  Points whose mean is not positive are left out (and counted).
    """
    import pandas as pd

    rng = np.random.default_rng(seed)
    out = []
    for (sweep, method), g in runs.groupby(["sweep", "method"], sort=False):
        xname = "n" if sweep == "n" else "epsilon"
        for quantity, col in (
            ("private", "risk"),
            ("non-private twin", "risk_nonprivate"),
            ("privacy cost", "privacy_cost"),
        ):
            groups = [(x, gg[col].to_numpy()) for x, gg in g.groupby(xname)]
            xs = np.log([x for x, _ in groups])
            means = np.array([v.mean() for _, v in groups])
            ok = means > 0
            if ok.sum() < 2:
                continue
            slope = np.polyfit(xs[ok], np.log(means[ok]), 1)[0]
            boots = []
            for _ in range(n_boot):
                m = np.array([rng.choice(v, v.size).mean() for _, v in groups])
                good = ok & (m > 0)
                if good.sum() >= 2:
                    boots.append(np.polyfit(xs[good], np.log(m[good]), 1)[0])
            lo, hi = np.quantile(boots, [(1 - level) / 2, (1 + level) / 2]) if boots else (np.nan, np.nan)
            out.append(
                {
                    "sweep": sweep,
                    "method": method,
                    "quantity": quantity,
                    "slope": float(slope),
                    "low": float(lo),
                    "high": float(hi),
                    "points": int(ok.sum()),
                    "dropped": int((~ok).sum()),
                    "reps": int(min(v.size for _, v in groups)),
                    "theory": THEORY_SLOPES.get((sweep, method, quantity), np.nan),
                }
            )
    return pd.DataFrame(out)


ALPHA = 0.05
"""Family-wise level of the page's slope checks (Bonferroni: each interval at level 1 - ALPHA / checks)."""

BOUNDS = {"RP": ("Theorem 3", -1.0), "RFF": ("Theorem 6 with alpha = 1", -2.0 / 3.0)}
"""Where the kernel paper bounds each method's privacy term, and the exponent of (n eps) for gamma = 0."""

FLOOR_TOLERANCE = 0.05
"""Largest average share of floored eigenvalues of ``C~ + lambda I`` (raised to lambda) at which a run still
speaks to the bounds: the floor projects the released covariance onto the PSD cone, which the estimator of
Theorems 3 and 6 does not do, so flooring more of the spectrum changes the estimator they bound."""

ORDERING = (
    "prompted by the kernel paper's discussion after Theorem 6, which orders the bounds' exponents, (n eps)^-1 for RP "
    "against (n eps)^-2/3 for RFF; upper bounds cannot order measured slopes"
)
"""What prompted our own question, whether the measured slopes order the same way."""


def capped_points(runs) -> dict:
    """Per (sweep, method): the values of n or epsilon at which the theory's M was capped at ``max_components``."""
    out = {}
    for (sweep, method), g in runs.groupby(["sweep", "method"], sort=False):
        x = "n" if sweep == "n" else "epsilon"
        hit = g.loc[g["M_capped"].astype(str) == "True", x].unique()
        if hit.size:
            out[(sweep, method)] = sorted(float(v) for v in hit)
    return out


def stored_claims(tables, parameters) -> list:
    """The page's claims, decided on the stored ``runs`` and the ``parameters`` they were computed with.

    The slopes are fitted here (:func:`fit_slopes`) on the points where the theory's M is not capped,
    each interval at level ``1 - ALPHA / k`` for the page's ``k`` slope checks (Bonferroni).
    """
    runs = tables["runs"]
    capped = capped_points(runs)
    keep = runs["M_capped"].astype(str) != "True" if "M_capped" in runs else np.ones(len(runs), bool)
    k = 2 * len(BOUNDS) + 2  # four bounds (two methods, two sweeps) and two orderings
    level = 1.0 - ALPHA / k
    # decided on every point (the conservative choice); the fit without the capped points is reported
    slopes = fit_slopes(runs, level=level)
    uncapped = fit_slopes(runs[keep], level=level) if not keep.all() else None
    floored = runs.groupby(["sweep", "method"])["floored_share"].mean().to_dict() if "floored_share" in runs else None
    return claims(
        slopes, level=level, checks=k, capped=capped, parameters=parameters, uncapped=uncapped, floored=floored
    )


def claims(slopes, level=0.95, checks=None, capped=None, parameters=None, uncapped=None, floored=None):
    """The rate checks, decided on :func:`fit_slopes`'s table; a list of :class:`fastmix_companion.claims.Claim`.

    * The kernel paper's bounds (Theorem 3 for RP, Theorem 6 with alpha = 1 for RFF), against n and
      against epsilon: the privacy cost is O(x^exponent) (-1 for RP, -2/3 for RFF) up to log factors.
      Holds if the slope's interval reaches the exponent or lies below it; a slope shallower than the
      exponent over a finite range cannot refute an O(.) bound whose constant is unknown, so it is
      undecided (the rule cannot fail). slope / exponent is reported, not judged: the exponent of an
      upper bound gives no size to reproduce. The slopes are fitted on every point; where the theory's
      M is capped at some points (outside the theorem's setting), ``uncapped`` (slopes without them)
      is reported beside it. ``floored`` (mean share of the floored eigenvalues of C~ + lambda I per
      (sweep, method)) goes into the setting: the floor projects the released covariance onto the PSD
      cone, a step the estimator of Theorems 3 and 6 does not take, so a run that floors more than
      :data:`FLOOR_TOLERANCE` of them is not comparable.
    * Ours: whether RP's measured slope is steeper than RFF's. The paper orders only its bounds (after
      Theorem 6), and upper bounds cannot order measured slopes; holds if RP's interval lies below RFF's,
      does not hold if above, else undecided.

    ``checks`` is the size of the family the intervals' ``level`` is Bonferroni-adjusted for; ``capped``
    (from :func:`capped_points`) and ``parameters`` fill in the settings.
    """
    from fastmix_companion.claims import Claim, Setting, Source, kernel_paper

    capped, p = capped or {}, parameters or {}
    s = slopes.set_index(["sweep", "method", "quantity"])
    family = f"{level:.1%} bootstrap interval" + (f" (Bonferroni over the page's {checks} checks)" if checks else "")
    common = [
        "Gaussian kernel, inputs uniform on [-1, 1]^d (sub-Gaussian, so gamma = 0 by the remark after Assumption 3)"
    ]
    if "c_m" in p:
        common.append(f"the theorems' M and lambda with our constants c_m = {p['c_m']:g}, c_lambda = {p['c_lam']:g}")
    out = []
    for sweep in ("n", "epsilon"):
        x = "n" if sweep == "n" else "eps"
        for method, (where, th) in BOUNDS.items():
            key = (sweep, method, "privacy cost")
            if key not in s.index:
                continue
            r = s.loc[key]
            diffs = list(common)
            if sweep == "n" and p.get("n_values"):
                ns = [float(v) for v in str(p["n_values"]).split(",")]
                diffs.append(f"n from {min(ns):g} to {max(ns):g}")
            share = (floored or {}).get((sweep, method))
            if share is not None:
                diffs.append(
                    f"on average {share:.0%} of the eigenvalues of C~ + lambda I lie below lambda (negative "
                    "eigenvalues of the released C~) and are raised to it: the estimator solves the projected "
                    "system, while Theorems 3 and 6 bound the plain solve, for M small enough that C~ + lambda I "
                    "is positive definite (which these runs do not record)"
                    + (
                        f" (more than {FLOOR_TOLERANCE:.0%}: the estimator run is not the one the theorem bounds)"
                        if share > FLOOR_TOLERANCE
                        else ""
                    )
                )
            measured = (
                f"slope {r['slope']:.2f} [{r['low']:.2f}, {r['high']:.2f}] over {int(r['points'])} points, "
                f"{int(r['reps'])} repetitions"
            )
            if (sweep, method) in capped:
                vals = ", ".join(f"{v:g}" for v in capped[(sweep, method)])
                diffs.append(f"the theory's M is capped at {x} = {vals} (points outside the theorem's setting)")
                if uncapped is not None:
                    a = uncapped.set_index(["sweep", "method", "quantity"]).loc[key]
                    measured += f"; without those points, {a['slope']:.2f} [{a['low']:.2f}, {a['high']:.2f}]"
            measured += f"; slope / exponent {r['slope'] / th:.2f}"
            out.append(
                Claim(
                    f"{method}: privacy cost against {sweep}",
                    f"the privacy cost is O({x}^({th:.2f})) up to log factors, gamma = 0",
                    measured,
                    f"an upper bound on a rate: holds if the {family} of the fitted slope reaches {th:.2f} or lies "
                    "below it; undecided if it lies entirely above (a slope over a finite range cannot refute an "
                    "O(.) bound with an unknown constant, so this rule cannot fail). The exponent of an upper bound "
                    "gives no size to reproduce, so slope / exponent is reported, not judged",
                    True if r["low"] <= th else None,
                    kernel_paper(where),
                    Setting(tuple(diffs), comparable=share is None or share <= FLOOR_TOLERANCE),
                )
            )
        if (sweep, "RP", "privacy cost") in s.index and (sweep, "RFF", "privacy cost") in s.index:
            a, b = s.loc[(sweep, "RP", "privacy cost")], s.loc[(sweep, "RFF", "privacy cost")]
            diffs = [f"our sweep against {sweep} with the theorems' hyperparameters"]
            if (sweep, "RFF") in capped:
                at = ", ".join(f"{v:g}" for v in capped[(sweep, "RFF")])
                diffs.append(f"RFF's M capped at {x} = {at} (fitted on every point)")
            shares = [(m, (floored or {}).get((sweep, m))) for m in ("RP", "RFF")]
            if any(v is not None for _, v in shares):
                diffs.append(
                    "eigenvalues of C~ + lambda I raised to lambda (the released covariance projected onto the PSD "
                    "cone): on average " + ", ".join(f"{v:.0%} for {m}" for m, v in shares if v is not None)
                )
            out.append(
                Claim(
                    f"RP's measured privacy cost falls faster than RFF's (against {sweep})",
                    "the fitted slope of RP's privacy cost is steeper than RFF's",
                    f"RP {a['slope']:.2f} [{a['low']:.2f}, {a['high']:.2f}], RFF {b['slope']:.2f} [{b['low']:.2f}, "
                    f"{b['high']:.2f}]",
                    f"holds if RP's {family} lies below RFF's, does not hold if above, else undecided",
                    True if a["high"] < b["low"] else (False if a["low"] > b["high"] else None),
                    Source(None, ORDERING),
                    Setting(tuple(diffs)),
                )
            )
    return out


def cost_model(params):
    """Peak memory and duration of a run at ``params``: :func:`.cost_models.kernel_rates_cost`.

    Returns a :class:`fastmix_companion.cli_checks.RunCost`; ``python -m fastmix_companion.run``
    refuses a run whose memory estimate exceeds the memory available, and asks for ``--yes``
    before one estimated at over an hour.
    """
    from fastmix_companion.studies.cost_models import kernel_rates_cost

    return kernel_rates_cost(params)
