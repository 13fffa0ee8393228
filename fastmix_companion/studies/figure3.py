"""Figure 3 of the FastMix paper: runtime of IHM divided by FastIHS's and FastIHM's, as a study.

For every shape ``2^a x d`` of the paper's table the study times, through
:func:`fastmix_companion.experiments.run_grid`, FastIHS (non-private), IHM with the dense ``k x n``
Gaussian sketch (the paper's baseline), IHM drawn through the Gram factor
(``G (X^T X)^{1/2}``, the same output distribution, our addition) and FastIHM at the paper's
three ratios: ``(4, 400, 800)`` where ``n/d >= 5000`` and ``(4, 100, 200)`` otherwise (the
the authors' public code; Figure 3's table), at every epsilon of the grid. The timer brackets
the solver call only (calibration never touches the data and is done first).

Timing conditions: every BLAS and OpenMP pool (which includes the ``fht-cpu`` Walsh-Hadamard
backend's) is limited to ``blas_threads`` threads with :mod:`threadpoolctl`; the ``timing``
table records the pools seen and the 1-minute load over each shape's cells, and every runs
row has the load when its cell started and ended. Cells run epsilon by epsilon over all shapes
(a stopped run has every shape at the epsilons done), and per shape and epsilon dense IHM, Gram
IHM and the three FastIHM sizes are timed one after the other: every ratio is measured against
a baseline of the same run and moment.

Data: the paper's dataset of each shape when its file is already in the data cache
(``use_real_data``; nothing is downloaded), otherwise the synthetic correlated design of
Appendix H at the same ``n`` and ``d`` (runtime depends on the shape only). The paper's
``2^19 x 32`` row *is* the synthetic correlated design.

Tables
------
``datasets``  one row per shape: label, the paper's dataset, what was used and why, n, d, ratios, k1, k2s.
``runs``      one row per timed solve (columns of run_grid) with ``series``, the cell's load and the
              CPU seconds a hypervisor took from the machine during the cell (``steal_s``).
``timing``    one row per shape: thread pools, the range and mean of the 1-minute load over its cells,
              its computing time.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from fastmix_companion.parameters import MAX_LOG2_N, Flag, Integer, RealList, ShapeList
from fastmix_companion.studies import CellLoad, CellTable, split_values

__all__ = [
    "NOTEBOOK",
    "DEFAULTS",
    "PARAMETERS",
    "PAPER_TABLE",
    "SHAPE_DATASETS",
    "run",
    "paper_ratios",
    "ratio_table",
    "claims",
]

NOTEBOOK = "figure3_runtime"

DEFAULTS: dict[str, Any] = {
    "shapes": "16x32,15x90",
    "k2_ratios": "auto",
    "epsilons": "1.259",
    "trials": 5,
    "T": 4,
    "use_real_data": True,
    "blas_threads": 1,
    "seed": 0,
}
"""The smoke-scale defaults (the notebook's); ``notebooks/paper_scale.json`` holds the paper's."""

PARAMETERS = {
    "shapes": ShapeList(Integer(1, MAX_LOG2_N), Integer(1)),
    "k2_ratios": RealList(0, low_open=True, special=("auto",)),
    "epsilons": RealList(0, low_open=True),
    "trials": Integer(1),
    "T": Integer(1),
    "use_real_data": Flag(),
    "blas_threads": Integer(0),  # 0: library default
    "seed": Integer(0),
}
"""What each parameter admits (:mod:`fastmix_companion.parameters`)."""


SHAPE_DATASETS = {
    (19, 32): "synthetic_correlated",
    (19, 28): "rossmann",
    (17, 81): "black_friday",
    (17, 90): "year_msd",
}
"""The paper's dataset at each of Figure 3's shapes (log2 n, d)."""

PAPER_TABLE = {
    "black_friday": ("Black Friday", "2^17 x 81", (4, 100, 200), (4.22, 2.44, 1.95, 1.61)),
    "beijing": ("Beijing", "?", (4, 100, 200), (6.89, 3.12, 2.38, 1.94)),
    "year_msd": ("YearMSD", "2^17 x 90", (4, 100, 200), (7.10, 2.51, 1.70, 1.53)),
    "synthetic_correlated": ("Synthetic correlated", "2^19 x 32", (4, 400, 800), (4.31, 2.33, 2.14, 1.91)),
    "rossmann": ("Rossmann", "2^19 x 28", (4, 400, 800), (5.13, 3.01, 2.63, 2.40)),
    "synthetic_sphere": ("Synthetic lambda_min ~ n/d", "2^19 x 32", (4, 400, 800), (5.0, 2.52, 2.26, 2.06)),
}
"""Figure 3's table: dataset, shape, (r1, r2, r3) and runtime(IHM) / runtime(method) for FastIHS, FastIHM r1-r3."""

# The measured columns of run_grid stored in runs.csv (after the run columns), in this order
_KEEP_MEASURED = ("runtime_s", "runtime_ns", "excess_risk", "n_used", "rows_added")


def _shapes(text):
    out = []
    for s in str(text).split(","):
        if s.strip():
            a, d = s.strip().lower().split("x")
            out.append((int(a), int(d)))
    return out


def paper_ratios(n: int, d: int, k2_ratios="auto") -> tuple[float, ...]:
    """``(4, 400, 800)`` when ``n/d >= 5000``, else ``(4, 100, 200)`` (Figure 3), unless given explicitly."""
    if str(k2_ratios).strip().lower() != "auto":
        return split_values(k2_ratios)
    return (4.0, 400.0, 800.0) if n / d >= 5000 else (4.0, 100.0, 200.0)


def _data(log2_n, d, index, params):
    """The paper's data set of this shape when cached (never downloaded), else the synthetic stand-in."""
    from fastmix.datasets import DatasetUnavailableError, available_offline, load_dataset, make_correlated_regression

    paper = SHAPE_DATASETS.get((log2_n, d))
    rs = np.random.SeedSequence(int(params["seed"]), spawn_key=(2000 + index,))
    if paper == "synthetic_correlated":
        return make_correlated_regression(n=2**log2_n, d=d, random_state=rs), paper, "the paper's own synthetic design"
    if paper is not None and params["use_real_data"] and paper in available_offline():
        try:
            ds = load_dataset(paper, download=False, power_of_two="subsample", random_state=rs)
            return ds, paper, f"the paper's {paper} data (file in the data cache)"
        except DatasetUnavailableError as exc:
            reason = f"{paper} could not be read from the cache ({str(exc).splitlines()[0]})"
    elif paper is not None:
        reason = (
            f"{paper} is not in the data cache (nothing is downloaded)"
            if params["use_real_data"]
            else "use_real_data is off"
        )
    else:
        reason = "no dataset of the paper has this shape"
    ds = make_correlated_regression(n=2**log2_n, d=d, random_state=rs)
    return ds, paper, f"synthetic correlated stand-in of the same n and d: {reason}"


def run(params, store=None, log=print) -> dict:
    """Time Figure 3's methods at every shape (see the module docstring); resumable with a store."""
    from fastmix import regression as R
    from fastmix_companion.experiments import keep_result_columns, run_grid
    from fastmix_companion.store import thread_settings

    if int(params.get("blas_threads", 0)) > 0:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=int(params["blas_threads"]))
    epsilons = split_values(params["epsilons"])
    trials, T, seed = int(params["trials"]), int(params["T"]), int(params["seed"])
    info = CellTable(store, "datasets", log)
    runs = CellTable(store, "runs", log)
    timing = CellTable(store, "timing", log)
    shapes = []
    for i, (log2_n, d_req) in enumerate(_shapes(params["shapes"])):
        label = f"2^{log2_n} x {d_req}"
        ds, paper, why = _data(log2_n, d_req, i, params)
        if store is not None:
            store.add_data_sources([ds])
        X = np.asarray(ds.X, dtype=np.float64, order="F")
        y = np.asarray(ds.y, dtype=np.float64)
        n, d = X.shape
        ratios = paper_ratios(n, d, params["k2_ratios"])
        rho = R.paper_defaults(n)["rho"]
        k1, _ = R.paper_sketch_sizes(d, T, rho)
        k2s = [min(R.paper_sketch_sizes(d, T, rho, r)[1], n) for r in ratios]
        info.compute(
            label,
            lambda: [
                {
                    "shape": label,
                    "paper_dataset": paper,
                    "data_used": ds.name,
                    "why": why,
                    "n": n,
                    "d": d,
                    "n_over_d": n / d,
                    "k2_ratios": ",".join(f"{r:g}" for r in ratios),
                    "k1": k1,
                    "k2s": ",".join(map(str, k2s)),
                }
            ],
        )
        shapes.append((label, X, y, ratios))

    def cell(label, X, y, ratios, method, eps, ratio, sketch):
        key = f"{label}|{method}|eps={eps}|r={ratio}|sketch={sketch if method == 'IHM' else '-'}"

        def compute():
            load, started = CellLoad(), time.time()
            df = run_grid(
                {label: (X, y)},
                methods=(method,),
                epsilons=(eps,) if eps is not None else (1.0,),
                k2_ratios=(ratio,) if ratio is not None else (4.0,),
                n_trials=trials,
                root_seed=seed,
                T=T,
                ihm_sketch=sketch,
                progress=False,
            )
            df["ihm_sketch"] = sketch if method == "IHM" else None
            df = keep_result_columns(df, _KEEP_MEASURED)
            if method == "FastIHM":
                df["series"] = f"FastIHM r{ratios.index(ratio) + 1}"
            elif method == "IHM":
                df["series"] = "IHM-gram" if sketch == "gram" else "IHM"
            else:
                df["series"] = method
            df = df.assign(**load.columns())
            df["cell_seconds"] = round(time.time() - started, 2)
            return df

        runs.compute(key, compute)

    # epsilon by epsilon over all shapes, so that a stopped run has every shape at the epsilons done;
    # within a shape and epsilon the baselines and the three FastIHM sizes are timed back to back
    for label, X, y, ratios in shapes:
        cell(label, X, y, ratios, "FastIHS", None, None, "dense")
    for eps in epsilons:
        for label, X, y, ratios in shapes:
            for method, ratio, sketch in [("IHM", None, "dense"), ("IHM", None, "gram")] + [
                ("FastIHM", r, "dense") for r in ratios
            ]:
                cell(label, X, y, ratios, method, eps, ratio, sketch)

    done = runs.frame()
    for label, *_ in shapes:

        def timing_row(label=label):
            th = thread_settings()
            pools = "; ".join(f"{p.get('internal_api')}={p.get('num_threads')}" for p in th["pools"])
            sub = done[done["dataset"] == label] if not done.empty else done
            return [
                {
                    "shape": label,
                    "pools": pools,
                    "environment": ", ".join(f"{k}={v}" for k, v in th["environment"].items()),
                    "blas_threads": int(params["blas_threads"]),
                    "load1_min": float(sub["load1_before"].min()),
                    "load1_max": float(sub["load1_after"].max()),
                    "load1_mean": float(sub.drop_duplicates("cell")["load1_before"].mean()),
                    "seconds": float(sub.drop_duplicates("cell")["cell_seconds"].sum()),
                }
            ]

        timing.compute(label, timing_row)
    return {"datasets": info.frame(), "runs": runs.frame(), "timing": timing.frame()}


# --------------------------------------------------------------------------- reading the tables


def ratio_table(tables, baseline: str = "IHM"):
    """``runtime(baseline) / runtime(series)`` per shape, with 95% intervals (geometric means over all runs).

    Returns a long DataFrame: shape, series, estimate, low, high, runs, and the mean seconds of
    the series and of the baseline.
    """
    import pandas as pd

    from fastmix_companion.claims import log_ratio_interval

    runs = tables["runs"]
    rows = []
    for shape, sub in runs.groupby("dataset", sort=False):
        base = sub.loc[sub["series"] == baseline, "runtime_s"].to_numpy()
        for series, s in sub.groupby("series", sort=False):
            if series == baseline:
                continue
            iv = log_ratio_interval(base, s["runtime_s"].to_numpy())
            rows.append(
                {
                    "shape": shape,
                    "series": series,
                    "estimate": iv.estimate,
                    "low": iv.low,
                    "high": iv.high,
                    "runs": len(s),
                    "seconds": float(s["runtime_s"].mean()),
                    "baseline_seconds": float(base.mean()),
                }
            )
    return pd.DataFrame(rows)


def claims(tables, alpha: float = 0.05):
    """Figure 3's claims as :class:`fastmix_companion.claims.Claim`, decided on the stored runs.

    * Per shape: FastIHS and FastIHM r1-r3 are faster than dense IHM by the paper's factors
      (the row of Figure 3's table for the dataset of that shape): ratio of geometric mean
      runtimes, 95% Welch interval; holds when every lower limit is at least the paper's factor.
    * FastIHM's speedup falls as k2 grows: one-sided Welch test that FastIHM r1 is faster
      than FastIHM r3 at each shape, Holm over the shapes; holds when all reject.
    * (Ours) Gram-factor IHM is faster than FastIHM at the smallest k2: at each shape the lower
      95% limit of runtime(FastIHM r1) / runtime(IHM-gram) is above 1.
    """
    from fastmix_companion.claims import Claim, format_interval, holm, log_ratio_interval, one_sided_less

    runs = tables["runs"]
    info = tables["datasets"].set_index("shape")
    out = []
    order = list(dict.fromkeys(runs["dataset"]))
    series = ["FastIHS", "FastIHM r1", "FastIHM r2", "FastIHM r3"]
    for shape in order:
        sub = runs[runs["dataset"] == shape]
        rt = {s: sub.loc[sub["series"] == s, "runtime_s"].to_numpy() for s in sub["series"].unique()}
        paper_key = info.loc[shape, "paper_dataset"]
        if paper_key not in PAPER_TABLE or not all(len(rt.get(s, [])) > 1 for s in series + ["IHM"]):
            continue
        name, _, _, paper = PAPER_TABLE[paper_key]
        ivs = [log_ratio_interval(rt["IHM"], rt[s]) for s in series]
        used = info.loc[shape, "data_used"]
        out.append(
            Claim(
                claim=f"{shape}: faster than IHM by the paper's factors",
                paper=(
                    f"{name}: IHM / FastIHS = {paper[0]:g}, IHM / FastIHM r1, r2, r3 = "
                    f"{paper[1]:g}, {paper[2]:g}, {paper[3]:g} (Figure 3)"
                ),
                measured=(
                    "; ".join(f"{s}: {format_interval(iv)}" for s, iv in zip(series, ivs, strict=True))
                    + f" ({used}, {ivs[0].n}+ runs each)"
                ),
                rule="ratio of geometric mean runtimes, 95% Welch interval; holds if every lower limit >= the "
                "paper's factor",
                holds=bool(all(iv.low >= p for iv, p in zip(ivs, paper, strict=True))),
            )
        )
    shapes_ok = [s for s in order if {"FastIHM r1", "FastIHM r3"} <= set(runs.loc[runs["dataset"] == s, "series"])]
    if shapes_ok:
        ps = [
            one_sided_less(
                runs.loc[(runs["dataset"] == s) & (runs["series"] == "FastIHM r1"), "runtime_s"],
                runs.loc[(runs["dataset"] == s) & (runs["series"] == "FastIHM r3"), "runtime_s"],
            )
            for s in shapes_ok
        ]
        rej = holm(ps, alpha)
        ivs = [
            log_ratio_interval(
                runs.loc[(runs["dataset"] == s) & (runs["series"] == "FastIHM r3"), "runtime_s"],
                runs.loc[(runs["dataset"] == s) & (runs["series"] == "FastIHM r1"), "runtime_s"],
            )
            for s in shapes_ok
        ]
        out.append(
            Claim(
                claim="FastIHM's speedup falls as k2 grows",
                paper="in every row of Figure 3, IHM / FastIHM decreases from r1 to r3",
                measured="runtime r3 / r1: "
                + "; ".join(f"{s}: {format_interval(iv)}" for s, iv in zip(shapes_ok, ivs, strict=True)),
                rule=f"one-sided Welch test (log runtime) that r1 is faster than r3 at each shape, Holm at {alpha:g}; "
                "holds if all reject",
                holds=bool(all(rej)),
            )
        )
        gram_ivs = {}
        for s in shapes_ok:
            sub = runs[runs["dataset"] == s]
            gram = sub.loc[sub["series"] == "IHM-gram", "runtime_s"]
            if len(gram) > 1:
                gram_ivs[s] = log_ratio_interval(sub.loc[sub["series"] == "FastIHM r1", "runtime_s"], gram)
        if gram_ivs:
            out.append(
                Claim(
                    claim="Gram-factor IHM is faster than FastIHM",
                    paper="(not in the paper) the paper times IHM with the dense k x n sketch only",
                    measured="runtime FastIHM r1 / IHM-gram: "
                    + "; ".join(f"{s}: {format_interval(iv)}" for s, iv in gram_ivs.items()),
                    rule="95% Welch interval of the ratio of geometric mean runtimes at each shape; holds if "
                    "every lower "
                    "limit > 1",
                    holds=bool(all(iv.low > 1.0 for iv in gram_ivs.values())),
                )
            )
    return out
