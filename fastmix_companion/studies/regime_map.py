"""Where each least-squares solver is fastest: time and memory over n and over d, as a study.

The FastMix paper times FastIHM against dense IHM at four shapes (Figure 3). This study measures
the whole regime on one machine, one thread, for every solver of the package:

* FastIHM (Algorithm 2 of the FastMix paper, the paper's explicit Gaussian step) at two SRHT sizes
  ``k2 = r max{d, log(4T/rho)}`` capped at n: the paper's smallest ratio ``r = 4`` and
  :class:`fastmix.regression.FastIHMRegressor`'s default ``r = 800``;
* IHM with the dense ``k x n`` Gaussian sketch (the paper's baseline) and IHM drawn through its
  Gram factor ``G (X^T X)^{1/2}`` (the same output distribution; :func:`fastmix.regression.ihm`);
* AdaSSP (Wang 2018; :func:`fastmix.regression.adassp`);
* the non-private FastIHS (Pilanci and Wainwright 2016) and OLS (LAPACK's ``gelsd``),

along two sweeps: ``n = 2^a`` for ``a`` in ``log2_ns`` at ``d = n_sweep_d`` features, and ``d``
in ``ds`` at ``n = 2^d_sweep_log2_n`` rows. The sizes are those of the paper's experiments:
``k = k1 = paper_sketch_sizes(d, T, rho)[0]``, ``delta = 1/n^2``, ``rho = delta/10`` (Appendix H).

Protocol, per cell (one shape and one solver): the calibration (which never reads the data) is
done first; one untimed run under :mod:`tracemalloc` gives the peak extra memory NumPy reports
(and warms the caches); then ``repeats`` timed runs, each recording single-thread CPU time
(``time.process_time``) and wall time; where the untimed run took longer than
``long_solve_seconds``, two timed runs (the fewest an interval needs) instead. Every BLAS and
OpenMP pool, the Walsh-Hadamard backend's included, is limited to ``blas_threads`` threads.
The solvers of one shape run back to back, so every ratio between two of them is measured at
the same moment; each cell records the 1-minute load before and after.

Dense IHM costs ``k n d`` multiply-adds per iteration. Where its predicted time (the last measured
dense cell of the same sweep, scaled by ``k n d``) exceeds ``dense_ihm_max_seconds``, the cell is
not run: it gets one row with ``status`` saying so and the predicted time, never a number posing as
a measurement.

Data: the synthetic correlated design of Appendix H at each shape (runtime depends on the shape,
not on the values), drawn from ``seed``.

Tables
------
``shapes``  one row per shape: sweep, n, d, k, k1, the two k2, delta, rho, bytes of X.
``runs``    one row per timed solve (or per skipped cell): sweep, n, d, series, repeat, cpu_s,
            wall_s, peak_bytes, x_bytes, status, predicted_s, load1_before, load1_after, steal_s
            (CPU seconds a hypervisor took from the machine over the cell's solves).

Reading them: :func:`summary` (medians per cell), :func:`growth_exponents` (log-log slopes),
:func:`winners` (the fastest private and non-private solver per shape) and :func:`claims`.
"""

from __future__ import annotations

import math
import time
import tracemalloc
from typing import Any

import numpy as np

from fastmix_companion.parameters import MAX_LOG2_N, Integer, IntegerList, Real
from fastmix_companion.studies import CellLoad, CellTable, split_values
from fastmix_companion.studies._findings import FASTIHM_FASTER_THAN_DENSE, GRAM_IHM_FASTER

__all__ = [
    "NOTEBOOK",
    "DEFAULTS",
    "PARAMETERS",
    "SERIES",
    "PRIVATE_SERIES",
    "run",
    "summary",
    "growth_exponents",
    "winners",
    "crossover_d",
    "claims",
    "stored_claims",
    "cost_model",
]

NOTEBOOK = "regime_map"

DEFAULTS: dict[str, Any] = {
    "log2_ns": "10,11,12",
    "n_sweep_d": 16,
    "ds": "4,8,16",
    "d_sweep_log2_n": 11,
    "repeats": 3,
    "T": 4,
    "epsilon": 1.259,
    "dense_ihm_max_seconds": 120.0,
    "long_solve_seconds": 20.0,
    "blas_threads": 1,
    "seed": 0,
}
"""The smoke-scale defaults (the notebook's); ``notebooks/paper_scale.json`` holds the full sweeps."""

PARAMETERS = {
    "log2_ns": IntegerList(6, MAX_LOG2_N),
    "n_sweep_d": Integer(1, 4096),
    "ds": IntegerList(1, 4096),
    "d_sweep_log2_n": Integer(6, MAX_LOG2_N),
    "repeats": Integer(2),
    "T": Integer(1),
    "epsilon": Real(0, low_open=True),
    "dense_ihm_max_seconds": Real(0, low_open=True),
    "long_solve_seconds": Real(0, low_open=True),
    "blas_threads": Integer(0),  # 0: library default
    "seed": Integer(0),
}
"""What each parameter admits (:mod:`fastmix_companion.parameters`)."""

#: FastIHM's two SRHT ratios: the paper's smallest and FastIHMRegressor's default.
FASTIHM_RATIOS = (4.0, 800.0)
#: Every series, in the order the page draws them.
SERIES = (
    "FastIHM (r = 4)",
    "FastIHM (r = 800)",
    "IHM (dense)",
    "IHM (Gram)",
    "AdaSSP",
    "FastIHS (non-private)",
    "OLS (non-private)",
)
#: The private solvers among which :func:`winners` chooses.
PRIVATE_SERIES = SERIES[:5]
TIMED = "timed"


def _shapes(params):
    """``(sweep, n, d)`` for both sweeps, each in increasing size."""
    out = [("n", 2 ** int(a), int(params["n_sweep_d"])) for a in sorted(split_values(params["log2_ns"], int))]
    m = 2 ** int(params["d_sweep_log2_n"])
    out += [("d", m, int(d)) for d in sorted(split_values(params["ds"], int))]
    return out


def _solver(series, X, y, sizes, params, rng):
    """A no-argument callable that runs ``series`` once (calibrated here, outside any timer)."""
    from fastmix import regression as R

    eps, T = float(params["epsilon"]), int(params["T"])
    delta, rho, k1 = sizes["delta"], sizes["rho"], sizes["k1"]
    if series == "OLS (non-private)":
        return lambda: R.ols(X, y)
    if series == "FastIHS (non-private)":
        return lambda: R.fast_ihs(X, y, k=k1, T=T, random_state=rng)
    if series in ("IHM (dense)", "IHM (Gram)"):
        cal_ihm = R.calibrate_ihm(eps, delta, k=k1, T=T, rho=rho)
        sketch = "dense" if series == "IHM (dense)" else "gram"
        return lambda: R.ihm(X, y, calibration=cal_ihm, k=k1, random_state=rng, sketch=sketch)
    if series == "AdaSSP":
        cal_ada = R.calibrate_adassp(eps, delta, rho=rho)
        return lambda: R.adassp(X, y, calibration=cal_ada, random_state=rng)
    ratio = FASTIHM_RATIOS[0] if series == "FastIHM (r = 4)" else FASTIHM_RATIOS[1]
    k2 = sizes["k2_r4"] if ratio == FASTIHM_RATIOS[0] else sizes["k2_r800"]
    cal_f = R.calibrate_fast_ihm(eps, delta, k1=k1, T=T, rho=rho)
    return lambda: R.fast_ihm(X, y, calibration=cal_f, k1=k1, k2=k2, random_state=rng)


def _peak_bytes(fn) -> int:
    """Peak memory NumPy reports to :mod:`tracemalloc` during one call of ``fn``, above the start."""
    was_tracing = tracemalloc.is_tracing()
    if not was_tracing:
        tracemalloc.start()
    tracemalloc.reset_peak()
    start, _ = tracemalloc.get_traced_memory()
    fn()
    _, peak = tracemalloc.get_traced_memory()
    if not was_tracing:
        tracemalloc.stop()
    return int(max(0, peak - start))


def run(params, store=None, log=print) -> dict:
    """Time every solver at every shape of both sweeps (see the module docstring); resumable with a store."""
    from fastmix import regression as R
    from fastmix.datasets import make_correlated_regression

    if int(params.get("blas_threads", 0)) > 0:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=int(params["blas_threads"]))
    T, seed, repeats = int(params["T"]), int(params["seed"]), int(params["repeats"])
    limit = float(params["dense_ihm_max_seconds"])
    shapes_t = CellTable(store, "shapes", log)
    runs = CellTable(store, "runs", log)
    last_dense: dict[str, tuple[float, float]] = {}  # sweep -> (measured median seconds, k n d)
    if store is not None and "runs" in store.tables():
        done = store.table("runs")
        dense = done[(done["series"] == "IHM (dense)") & (done["status"] == TIMED)]
        for sweep, sub in dense.groupby("sweep"):
            last = sub.sort_values(["n", "d"]).groupby(["n", "d"], sort=True)["cpu_s"].median()
            (n_, d_), sec = last.index[-1], float(last.iloc[-1])
            k_ = int(sub[(sub["n"] == n_) & (sub["d"] == d_)]["k"].iloc[0])
            last_dense[str(sweep)] = (sec, float(k_) * n_ * d_)
    for index, (sweep, n, d) in enumerate(_shapes(params)):
        label = f"{sweep}: 2^{int(math.log2(n))} x {d}"
        delta = 1.0 / n**2
        rho = delta / 10.0
        k1 = R.paper_sketch_sizes(d, T, rho)[0]
        sizes = {
            "delta": delta,
            "rho": rho,
            "k1": k1,
            "k2_r4": min(R.paper_sketch_sizes(d, T, rho, FASTIHM_RATIOS[0])[1], n),
            "k2_r800": min(R.paper_sketch_sizes(d, T, rho, FASTIHM_RATIOS[1])[1], n),
        }
        keys = {series: f"{label}|{series}" for series in SERIES}
        if all(runs.done(key) for key in keys.values()) and shapes_t.done(label):
            continue
        ds = make_correlated_regression(n=n, d=d, random_state=np.random.SeedSequence(seed, spawn_key=(3000 + index,)))
        X = np.asarray(ds.X, dtype=np.float64, order="F")
        y = np.asarray(ds.y, dtype=np.float64)
        shapes_t.compute(
            label,
            lambda: [
                {
                    "sweep": sweep,
                    "n": n,
                    "d": d,
                    "k": k1,
                    "k1": k1,
                    "k2_r4": sizes["k2_r4"],
                    "k2_r800": sizes["k2_r800"],
                    "delta": delta,
                    "rho": rho,
                    "x_bytes": int(X.nbytes),
                    "design": ds.name,
                }
            ],
        )
        for j, series in enumerate(SERIES):

            def compute(series=series, j=j):
                base = {"sweep": sweep, "n": n, "d": d, "series": series, "x_bytes": int(X.nbytes)}
                base.update({"k": k1 if series != "OLS (non-private)" else np.nan, "k2": np.nan})
                if series.startswith("FastIHM"):
                    base["k2"] = sizes["k2_r4"] if "r = 4)" in series else sizes["k2_r800"]
                load = CellLoad()
                if series == "IHM (dense)" and sweep in last_dense:
                    sec, work = last_dense[sweep]
                    predicted = sec * (float(k1) * n * d) / work
                    if predicted > limit:
                        return [
                            {
                                **base,
                                "repeat": -1,
                                "cpu_s": np.nan,
                                "wall_s": np.nan,
                                "peak_bytes": np.nan,
                                "status": f"not run: predicted {predicted:.0f} s per solve > {limit:g} s",
                                "predicted_s": predicted,
                                **load.columns(),
                                "steal_s": np.nan,  # nothing was timed
                            }
                        ]
                rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(4000 + index, j)))
                fn = _solver(series, X, y, sizes, params, rng)
                w_start = time.perf_counter()
                peak = _peak_bytes(fn)  # also the warm-up run
                long_solve = time.perf_counter() - w_start > float(params["long_solve_seconds"])
                rows = []
                for r in range(min(repeats, 2) if long_solve else repeats):
                    c0, w0 = time.process_time(), time.perf_counter()
                    fn()
                    c1, w1 = time.process_time(), time.perf_counter()
                    rows.append(
                        {
                            **base,
                            "repeat": r,
                            "cpu_s": c1 - c0,
                            "wall_s": w1 - w0,
                            "peak_bytes": peak,
                            "status": TIMED,
                            "predicted_s": np.nan,
                        }
                    )
                state = load.columns()
                for row in rows:
                    row.update(state)
                if series == "IHM (dense)":
                    last_dense[sweep] = (float(np.median([r["cpu_s"] for r in rows])), float(k1) * n * d)
                return rows

            runs.compute(keys[series], compute)
    return {"shapes": shapes_t.frame(), "runs": runs.frame()}


# --------------------------------------------------------------------------- reading the tables


def summary(runs):
    """Median CPU and wall time, peak memory over |X|, per sweep, shape and series (timed cells only)."""
    timed = runs[runs["status"] == TIMED]
    g = timed.groupby(["sweep", "n", "d", "series"], sort=False)
    out = g.agg(
        cpu_s=("cpu_s", "median"),
        wall_s=("wall_s", "median"),
        cpu_min=("cpu_s", "min"),
        cpu_max=("cpu_s", "max"),
        peak_bytes=("peak_bytes", "max"),
        x_bytes=("x_bytes", "first"),
        repeats=("cpu_s", "size"),
        load1=("load1_before", "mean"),
    ).reset_index()
    out["peak_over_x"] = out["peak_bytes"] / out["x_bytes"]
    return out


def _power_law_fit(timed, var: str, series: str, points: int):
    """``(intercept, slope, stderr of slope, sizes, repeats)`` of log CPU time on log ``var``, or None.

    Fitted on every timed repeat of ``series`` at the ``points`` largest sizes it was measured at.
    """
    s = timed[timed["series"] == series]
    sizes = sorted(s[var].unique())[-points:]
    if len(sizes) < 2:
        return None
    s = s[s[var].isin(sizes)]
    x = np.log(s[var].to_numpy(dtype=float))
    t = np.log(np.maximum(s["cpu_s"].to_numpy(dtype=float), 1e-9))
    A = np.column_stack([np.ones_like(x), x])
    coef, *_ = np.linalg.lstsq(A, t, rcond=None)
    resid = t - A @ coef
    cov = (resid @ resid / max(1, len(t) - 2)) * np.linalg.inv(A.T @ A)
    return float(coef[0]), float(coef[1]), float(math.sqrt(max(cov[1, 1], 0.0))), sizes, len(s)


def growth_exponents(runs, sweep: str, *, points: int = 4):
    """Least-squares slope of log CPU time on log n (``sweep="n"``) or log d (``"d"``), per series.

    Fitted on every timed repeat at the ``points`` largest sizes a series was measured at (the
    asymptotic regime; the smallest sizes are dominated by fixed costs). Returns a DataFrame:
    series, exponent, its standard error, the sizes fitted and the number of repeats.
    """
    import pandas as pd

    var = "n" if sweep == "n" else "d"
    timed = runs[(runs["status"] == TIMED) & (runs["sweep"] == sweep)]
    rows = []
    for series in SERIES:
        fit = _power_law_fit(timed, var, series, points)
        if fit is None:
            continue
        _, slope, se, sizes, count = fit
        rows.append(
            {
                "series": series,
                "exponent": slope,
                "stderr": se,
                "from": int(min(sizes)),
                "to": int(max(sizes)),
                "sizes": len(sizes),
                "repeats": count,
            }
        )
    return pd.DataFrame(rows, columns=["series", "exponent", "stderr", "from", "to", "sizes", "repeats"])


def winners(runs):
    """Per shape: the fastest private solver and its margin over the next, and the fastest overall.

    The margin is the ratio of median CPU times (second fastest / fastest). Returns a DataFrame:
    sweep, n, d, fastest_private, runner_up, margin, fastihm_over_gram and fastihm_over_dense
    (median time of the faster FastIHM over IHM (Gram)'s and over dense IHM's), slowest_private
    and fastest_overall.
    """
    import pandas as pd

    s = summary(runs)
    rows = []
    for (sweep, n, d), sub in s.groupby(["sweep", "n", "d"], sort=False):
        med = sub.set_index("series")["cpu_s"]
        private = med[[p for p in PRIVATE_SERIES if p in med.index]].sort_values()
        fast = med[[p for p in ("FastIHM (r = 4)", "FastIHM (r = 800)") if p in med.index]]
        rows.append(
            {
                "sweep": sweep,
                "n": int(n),
                "d": int(d),
                "fastest_private": private.index[0],
                "runner_up": private.index[1] if len(private) > 1 else None,
                "margin": float(private.iloc[1] / private.iloc[0]) if len(private) > 1 else np.nan,
                "fastihm_over_gram": float(fast.min() / med["IHM (Gram)"])
                if len(fast) and "IHM (Gram)" in med.index
                else np.nan,
                "fastihm_over_dense": float(fast.min() / med["IHM (dense)"])
                if len(fast) and "IHM (dense)" in med.index
                else np.nan,
                "slowest_private": private.index[-1],
                "fastest_overall": med.sort_values().index[0],
            }
        )
    return pd.DataFrame(rows)


def crossover_d(runs, faster_in_d: str = "FastIHM (r = 4)", slower_in_d: str = "IHM (Gram)", *, points: int = 4):
    """Where the fitted d-sweep power laws of two solvers cross: ``(d, inside)``, or None.

    Fits ``log t = a + b log d`` to each series as :func:`growth_exponents` does and solves for the
    d of equal time. ``inside`` says whether it lies within the measured d range (otherwise it is an
    extrapolation). None when the d sweep lacks either series, or when ``slower_in_d``'s exponent
    does not exceed ``faster_in_d``'s by more than two standard errors of their difference (the
    curves are then not known to meet).
    """
    timed = runs[(runs["status"] == TIMED) & (runs["sweep"] == "d")]
    f1 = _power_law_fit(timed, "d", faster_in_d, points)
    f2 = _power_law_fit(timed, "d", slower_in_d, points)
    if f1 is None or f2 is None:
        return None
    (a1, b1, se1, *_), (a2, b2, se2, *_) = f1, f2
    if b2 - b1 <= 2.0 * math.hypot(se1, se2):
        return None
    d_star = float(np.exp((a1 - a2) / (b2 - b1)))
    lo, hi = float(timed["d"].min()), float(timed["d"].max())
    return d_star, bool(lo <= d_star <= hi)


def _shapes_text(ivs) -> str:
    """The shapes a check covers, per sweep, e.g. ``"n from 2^14 to 2^22 at d = 32; d from 8 to 512 at n = 2^17"``."""
    parts = []
    for sweep in ("n", "d"):
        keys = [(n, d) for (s, n, d) in ivs if s == sweep]
        if not keys:
            continue
        ns, ds = sorted({n for n, _ in keys}), sorted({d for _, d in keys})
        if sweep == "n":
            parts.append(f"n from 2^{int(math.log2(ns[0]))} to 2^{int(math.log2(ns[-1]))} at d = {ds[0]}")
        else:
            parts.append(f"d from {ds[0]} to {ds[-1]} at n = 2^{int(math.log2(ns[0]))}")
    return "shapes " + "; ".join(parts) + " (the paper: its six datasets, n/d from about 1310 to 2^14)"


def claims(tables, alpha: float = 0.05, parameters=None):
    """The runtime statements the page makes, as :class:`fastmix_companion.claims.Claim`, decided on the runs.

    The page's family is every interval and test below: ``m`` = the shapes of the two ratio checks
    plus the exponent test, each at level ``alpha / m`` (Bonferroni).

    * (ours: does the paper's speedup extend to other shapes? The paper's runtime claim, Section
      4.1 and Figure 3, is scored with its sizes on the Figure 3 page, so no size is compared here.)
      FastIHM is faster than dense IHM: per shape where both ran, the interval of runtime(dense
      IHM) / runtime(FastIHM r = 4); holds if every lower limit is above 1, does not hold if some
      upper limit is below 1, else undecided. Shapes whose FastIHM keeps more than
      :data:`~fastmix_companion.studies.solver_choice.K2_FRACTION_LIMIT` of the rows are left out.
    * (ours) IHM through its Gram factor is faster than FastIHM (r = 4) at every shape, by the same
      interval rule on runtime(FastIHM r = 4) / runtime(IHM (Gram)).
    * (ours) FastIHM's time grows more slowly in d than Gram IHM's: on the d sweep, the growth
      exponent of IHM (Gram) exceeds FastIHM (r = 4)'s by more than ``z_{1 - alpha/m}`` standard errors
      (holds); FastIHM's exceeds Gram IHM's by as much (does not hold); otherwise undecided.
    """
    from scipy import stats

    from fastmix_companion.claims import Claim, Setting, Source, format_interval, log_ratio_interval
    from fastmix_companion.studies.solver_choice import K2_FRACTION_LIMIT

    runs = tables["runs"]
    timed = runs[runs["status"] == TIMED]
    shapes = tables.get("shapes")
    design = str(shapes["design"].iloc[0]) if shapes is not None and "design" in shapes else "synthetic_correlated"
    too_big = set()
    if shapes is not None and "k2_r4" in shapes:
        too_big = {(str(r.sweep), int(r.n), int(r.d)) for r in shapes.itertuples() if r.k2_r4 > K2_FRACTION_LIMIT * r.n}
    has_d = bool((timed["sweep"] == "d").any())
    out = []

    def ratio(num, den, level):
        ivs = {}
        for (sweep, n, d), sub in timed.groupby(["sweep", "n", "d"], sort=False):
            a = sub.loc[sub["series"] == num, "cpu_s"].to_numpy()
            b = sub.loc[sub["series"] == den, "cpu_s"].to_numpy()
            if len(a) > 1 and len(b) > 1 and (num != "IHM (dense)" or (sweep, int(n), int(d)) not in too_big):
                ivs[(sweep, int(n), int(d))] = log_ratio_interval(a, b, level=level)
        return ivs

    pairs = (("IHM (dense)", "FastIHM (r = 4)"), ("FastIHM (r = 4)", "IHM (Gram)"))
    m = sum(len(ratio(a, b, 0.95)) for a, b in pairs) + int(has_d)
    level = 1.0 - alpha / max(m, 1)

    def text(ivs):
        (sweep, n, d), low = min(ivs.items(), key=lambda kv: kv[1].low)
        return f"{len(ivs)} shapes; smallest: {format_interval(low)} at {sweep} sweep, 2^{int(math.log2(n))} x {d}"

    def decide(ivs):
        if all(iv.low > 1.0 for iv in ivs.values()):
            return True
        return False if any(iv.high < 1.0 for iv in ivs.values()) else None

    rule = (
        f"per shape, the {100 * level:.2f}% Welch interval of the ratio of geometric mean CPU times (Bonferroni over "
        f"the page's {m} comparisons); holds if every lower limit > 1, does not hold if some upper limit < 1, else "
        "undecided"
    )
    run_setting = (f"{design.replace('_', ' ')} design at the sweeps' shapes", "CPU time on one thread of this machine")
    ivs = ratio(*pairs[0], level)
    if ivs:
        out.append(
            Claim(
                claim="FastIHM (r = 4) is faster than IHM with the dense sketch",
                finding=FASTIHM_FASTER_THAN_DENSE,
                paper="our question: the paper finds FastIHM substantially faster than IHM (at r = 4, IHM / FastIHM "
                "from 2.33 to 3.12 in Figure 3's runtime table, at its six datasets); is it faster at these shapes "
                "too?",
                measured="runtime IHM (dense) / FastIHM (r = 4): " + text(ivs),
                rule=rule + "; no size comparison (the paper's speedups are scored on the Figure 3 page)",
                holds=decide(ivs),
                source=Source(
                    None,
                    "does the paper's speedup extend to other shapes? Its runtime claim (Section 4.1, Figure 3's "
                    "runtime table) is scored on the Figure 3 page",
                ),
                setting=Setting(
                    (
                        *run_setting,
                        _shapes_text(ivs),
                        *([f"{len(too_big)} shapes with k2 > {K2_FRACTION_LIMIT:.2f} n left out"] if too_big else []),
                    )
                ),
            )
        )
    ivs = ratio(*pairs[1], level)
    if ivs:
        out.append(
            Claim(
                claim="IHM through its Gram factor is faster than FastIHM (r = 4)",
                finding=GRAM_IHM_FASTER,
                paper="drawing IHM's sketch through X^T X beats FastIHM's transforms at every measured shape",
                measured="runtime FastIHM (r = 4) / IHM (Gram): " + text(ivs),
                rule=rule,
                holds=decide(ivs),
                source=Source(
                    None, "the paper times IHM with the dense sketch only; the Gram route draws the same law"
                ),
                setting=Setting(run_setting),
            )
        )
    ex = growth_exponents(runs, "d").set_index("series") if has_d else None
    if ex is not None and {"FastIHM (r = 4)", "IHM (Gram)"} <= set(ex.index):
        f, g = ex.loc["FastIHM (r = 4)"], ex.loc["IHM (Gram)"]
        gap = g["exponent"] - f["exponent"]
        se = math.hypot(f["stderr"], g["stderr"])
        z = float(stats.norm.ppf(1.0 - alpha / max(m, 1)))
        out.append(
            Claim(
                claim="Gram IHM's time grows faster in d than FastIHM's",
                paper="FastIHM's time grows more slowly in d than Gram IHM's",
                measured=(
                    f"exponent in d, d = {int(f['from'])} to {int(f['to'])}: FastIHM (r = 4) {f['exponent']:.2f} "
                    f"(se {f['stderr']:.2f}), IHM (Gram) {g['exponent']:.2f} (se {g['stderr']:.2f})"
                ),
                rule=f"holds if IHM (Gram)'s exponent exceeds FastIHM's by more than {z:.2f} standard errors of their "
                f"difference (one-sided, level {alpha:g}/{m}); does not hold if FastIHM's exceeds IHM (Gram)'s by "
                "as much; undecided otherwise",
                holds=True if gap > z * se else (False if gap < -z * se else None),
                source=Source(None, "the transforms cost O(n d log n), the Gram matrix O(n d^2)"),
                setting=Setting(run_setting),
            )
        )
    return out


def stored_claims(tables, parameters) -> list:
    """The claims the page shows, decided on the stored ``tables`` with the ``parameters`` they were computed with."""
    return claims(tables, parameters=parameters)


def cost_model(params):
    """Peak memory and duration of a run at ``params``: :func:`.cost_models.regime_map_cost`.

    Returns a :class:`fastmix_companion.cli_checks.RunCost`; ``python -m fastmix_companion.run``
    refuses a run whose memory estimate exceeds the memory available, and asks for ``--yes``
    before one estimated at over an hour.
    """
    from fastmix_companion.studies.cost_models import regime_map_cost

    return regime_map_cost(params)
