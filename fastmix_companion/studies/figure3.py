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
from fastmix_companion.studies._findings import GRAM_IHM_FASTER

__all__ = [
    "NOTEBOOK",
    "DEFAULTS",
    "PARAMETERS",
    "PAPER_TABLE",
    "SHAPE_DATASETS",
    "run",
    "paper_ratios",
    "ratio_table",
    "SIZE_FACTOR",
    "claims",
    "stored_claims",
    "cost_model",
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


SIZE_FACTOR = 2.0
"""A measured speedup reproduces the paper's in size when measured / paper lies within this factor."""

_SERIES = ("FastIHS", "FastIHM r1", "FastIHM r2", "FastIHM r3")


def _directional(a, b) -> tuple[float, bool]:
    """Two-sided p-value of Welch's test on log runtimes, and whether ``a`` is the faster."""
    from fastmix_companion.claims import one_sided_less

    p = one_sided_less(a, b)
    return min(1.0, 2.0 * min(p, 1.0 - p)), p < 0.5


def _scaled(iv, paper: float):
    """``iv`` divided by the paper's value: measured / paper with its interval."""
    from fastmix_companion.claims import Interval

    return Interval(iv.estimate / paper, iv.low / paper, iv.high / paper, iv.level, iv.n)


def _setting(rows, parameters, timing=None):
    """What differs from the paper's timing at the shapes ``rows`` (of the datasets table); ``timing`` is the
    stored timing table (the machine's load while timing)."""
    from fastmix_companion.claims import Setting

    diffs = []
    stand_ins = [r["shape"] for r in rows if r["data_used"] != r["paper_dataset"]]
    if stand_ins:
        diffs.append(
            f"synthetic correlated stand-in of the same n and d at {', '.join(stand_ins)} (runtime depends on the "
            "shape, not the values)"
        )
    threads = (parameters or {}).get("blas_threads")
    diffs.append(
        "another machine than the paper's i7-1255U"
        + (f", {threads} BLAS/OpenMP thread(s)" if threads else "")
        + " (the paper states no thread count)"
        + (
            f", a load average of {timing['load1_mean'].min():.1f}-{timing['load1_mean'].max():.1f} while timing"
            if timing is not None and "load1_mean" in timing and len(timing)
            else ""
        )
        + (
            ": dense IHM's time is mostly its n k Gaussian draws, whose cost depends on the generator and the "
            "machine, so the speedups over IHM are not held against the paper's in size, only in direction"
            if threads
            else ""
        )
    )
    trials = (parameters or {}).get("trials")
    if trials and int(trials) != 30:
        diffs.append(f"{int(trials)} timed trials per method and eps, not 30")
    return Setting(tuple(diffs), comparable=True)


def size_caveat(tables, parameters) -> str:
    """Why the speedups over dense IHM cannot be held against the paper's in size, in a few words.

    Dense IHM's time is mostly the ``n k`` Gaussian draws of its sketch (see
    :func:`fastmix.regression.gaussian_sketch_blocked`), whose cost per entry depends on the
    generator, the library and the machine far more than a Walsh-Hadamard butterfly does; the paper
    times on an i7-1255U with its own implementation and no stated thread count. So the speedups'
    sizes measure the two implementations as much as the algorithms. Ratios between FastIHM's own
    sizes (r3 / r1) carry no such caveat. Empty when the run used the machine's default threads.
    """
    threads = (parameters or {}).get("blas_threads")
    if not threads:
        return ""
    text = f"{int(threads)} thread(s)"
    timing = (tables or {}).get("timing")
    if timing is not None and "load1_mean" in timing and len(timing):
        text += f", load {timing['load1_mean'].min():.1f}-{timing['load1_mean'].max():.1f}"
    return text + ", other machine and Gaussian generator"


def _outcome(signs) -> bool | None:
    """All +1: True; any -1: False; else None (signs: +1 the claimed direction, -1 the opposite, 0 not significant)."""
    signs = list(signs)
    return True if signs and all(s > 0 for s in signs) else (False if any(s < 0 for s in signs) else None)


def claims(tables, alpha: float = 0.05, parameters=None):
    """Figure 3's claims as :class:`fastmix_companion.claims.Claim`, decided on the stored runs.

    Every comparison of two runtimes is one two-sided Welch test on log runtime
    (:func:`fastmix_companion.claims.one_sided_less` in both directions), and the page's tests are one
    family: Holm's correction over all of them at ``alpha``; a rejected test counts in the direction of
    its estimate.

    * Per shape (FastMix paper, Figure 3, the table's row for that shape's dataset): FastIHS and FastIHM
      r1-r3 are faster than dense IHM. Size: measured / paper speedup per series, within
      :data:`SIZE_FACTOR` or not (:class:`fastmix_companion.claims.Magnitude`).
    * FastIHM's speedup falls as k2 grows (every row of the table): r1 faster than r2, r2 faster than r3
      at every shape. Size: the runtime r3 / r1 against the paper's (its speedup r1 over its speedup r3).
    * (Ours) Gram-factor IHM is faster than FastIHM at the smallest k2, at every shape.

    ``parameters`` (the stored run's) name the threads and trials in each claim's setting.
    """
    from fastmix_companion.claims import Claim, Magnitude, Source, fastmix_paper, format_interval, holm
    from fastmix_companion.claims import log_ratio_interval as lri

    runs = tables["runs"]
    info = tables["datasets"].set_index("shape", drop=False)
    order = list(dict.fromkeys(runs["dataset"]))
    rt = {
        s: {k: g["runtime_s"].to_numpy(dtype=float) for k, g in runs[runs["dataset"] == s].groupby("series")}
        for s in order
    }
    has = lambda shape, *series: all(len(rt[shape].get(x, ())) > 1 for x in series)  # noqa: E731
    paper_shapes = [s for s in order if info.loc[s, "paper_dataset"] in PAPER_TABLE and has(s, "IHM", *_SERIES)]
    k2_shapes = [s for s in order if has(s, "FastIHM r1", "FastIHM r2", "FastIHM r3")]
    gram_shapes = [s for s in k2_shapes if has(s, "IHM-gram")]
    keys, pvals, faster = [], [], []
    for key, a, b in (
        [((s, x), rt[s][x], rt[s]["IHM"]) for s in paper_shapes for x in _SERIES]
        + [
            ((s, f"r{j}<r{j + 1}"), rt[s][f"FastIHM r{j}"], rt[s][f"FastIHM r{j + 1}"])
            for s in k2_shapes
            for j in (1, 2)
        ]
        + [((s, "gram"), rt[s]["IHM-gram"], rt[s]["FastIHM r1"]) for s in gram_shapes]
    ):
        p, a_faster = _directional(a, b)
        keys.append(key)
        pvals.append(p)
        faster.append(a_faster)
    sign = {
        k: (1 if f else -1) if r else 0
        for k, f, r in zip(keys, faster, holm(pvals, alpha) if pvals else [], strict=True)
    }
    family = (
        f"two-sided Welch test on log runtime, Holm over the page's {len(keys)} tests at {alpha:g}, counted in the "
        "direction of its estimate"
    )
    size_rule = (
        f"reproduced in size when the 95% interval of measured / paper lies within [1/{SIZE_FACTOR:g}, "
        f"{SIZE_FACTOR:g}], not when it lies wholly outside"
    )
    caveat = size_caveat(tables, parameters)
    out = []
    for shape in paper_shapes:
        name, _, _, paper = PAPER_TABLE[info.loc[shape, "paper_dataset"]]
        ivs = [lri(rt[shape]["IHM"], rt[shape][x]) for x in _SERIES]
        out.append(
            Claim(
                claim=f"{shape}: FastIHS and FastIHM are faster than IHM",
                paper=(
                    f"{name}: IHM / FastIHS = {paper[0]:g}, IHM / FastIHM r1, r2, r3 = "
                    f"{paper[1]:g}, {paper[2]:g}, {paper[3]:g}"
                ),
                measured="IHM / method: "
                + "; ".join(f"{x} {format_interval(iv)}" for x, iv in zip(_SERIES, ivs, strict=True))
                + f" ({ivs[0].n}+ runs each)",
                rule=f"holds if all four are significantly faster than dense IHM, does not hold if one is "
                f"significantly slower ({family}); {size_rule}",
                holds=_outcome(sign[(shape, x)] for x in _SERIES),
                source=fastmix_paper(f"Figure 3, table, row {name}"),
                setting=_setting([info.loc[shape]], parameters, tables.get("timing")),
                magnitudes=tuple(
                    Magnitude(f"IHM / {x}", p, _scaled(iv, p), SIZE_FACTOR, caveat)
                    for x, iv, p in zip(_SERIES, ivs, paper, strict=True)
                ),
            )
        )
    if k2_shapes:
        paper_slow = [v[3][1] / v[3][3] for v in PAPER_TABLE.values()]
        slow = {s: lri(rt[s]["FastIHM r3"], rt[s]["FastIHM r1"]) for s in k2_shapes}
        mags = []
        for s in k2_shapes:
            key = info.loc[s, "paper_dataset"]
            if key in PAPER_TABLE:
                pv = PAPER_TABLE[key][3][1] / PAPER_TABLE[key][3][3]
                mags.append(Magnitude(f"runtime r3 / r1, {s}", pv, _scaled(slow[s], pv), SIZE_FACTOR))
        out.append(
            Claim(
                claim="FastIHM's speedup falls as k2 grows",
                paper="in every row of the table, IHM / FastIHM decreases from r1 to r2 to r3 (r3 takes "
                f"{min(paper_slow):.2g} to {max(paper_slow):.2g} times r1's runtime)",
                measured="runtime r3 / r1: " + "; ".join(f"{s}: {format_interval(iv)}" for s, iv in slow.items()),
                rule=f"holds if r1 is significantly faster than r2 and r2 than r3 at every shape, does not hold if "
                f"a larger k2 is significantly faster ({family}); {size_rule}",
                holds=_outcome(sign[(s, f"r{j}<r{j + 1}")] for s in k2_shapes for j in (1, 2)),
                source=fastmix_paper("Figure 3, table (every row)"),
                setting=_setting([info.loc[s] for s in k2_shapes], parameters, tables.get("timing")),
                magnitudes=tuple(mags),
            )
        )
    if gram_shapes:
        out.append(
            Claim(
                claim="Gram-factor IHM is faster than FastIHM",
                finding=GRAM_IHM_FASTER,
                paper="IHM with its sketch drawn through the Gram factor (same output distribution) is faster than "
                "FastIHM at the smallest k2; the paper times IHM with the dense k x n sketch only",
                measured="runtime FastIHM r1 / IHM-gram: "
                + "; ".join(
                    f"{s}: {format_interval(lri(rt[s]['FastIHM r1'], rt[s]['IHM-gram']))}" for s in gram_shapes
                ),
                rule=f"holds if the Gram-factor IHM is significantly faster at every shape, does not hold if it is "
                f"significantly slower at one ({family})",
                holds=_outcome(sign[(s, "gram")] for s in gram_shapes),
                source=Source(None, "a faster IHM than the paper's baseline, with the same output distribution"),
                setting=_setting([info.loc[s] for s in gram_shapes], parameters, tables.get("timing")),
                headline=True,
            )
        )
    return out


def stored_claims(tables, parameters) -> list:
    """The claims the page shows, decided on the stored ``tables`` run with ``parameters``."""
    return claims(tables, parameters=parameters)


def cost_model(params):
    """Peak memory and duration of a run at ``params``: :func:`.cost_models.figure3_cost`.

    Returns a :class:`fastmix_companion.cli_checks.RunCost`; ``python -m fastmix_companion.run``
    refuses a run whose memory estimate exceeds the memory available, and asks for ``--yes``
    before one estimated at over an hour.
    """
    from fastmix_companion.studies.cost_models import figure3_cost

    return figure3_cost(params, paper_ratios=paper_ratios)
