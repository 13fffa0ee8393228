"""Figure 2 of the FastMix paper: excess empirical risk of private least squares against epsilon.

Section 4.1 and Appendix H of the FastMix paper (arXiv:2605.30600): FastIHM (Algorithm 2) at
three SRHT sizes ``k2 = r max(d, log(4T/rho))``, IHM and the non-private FastIHS, with
``T = 4``, ``k1 = k = 6 max(d, log(4T/rho))``, ``delta = 1/n^2``, ``rho = delta/10`` and
``C = C_Y = 1``; every run is one call of :func:`fastmix_companion.experiments.run_grid` (its seeds
depend on the dataset, method, epsilon and ratio, not on the order of the grid).

Tables
------
``runs``
    One row per trial: dataset, method, ihm_sketch, k2_ratio, epsilon, trial, k, k1, k2,
    excess_risk, eta, runtime_s and the budget spent. A cell is one dataset, method,
    epsilon, ratio and IHM sketch with all its trials.
``datasets``
    One row per dataset: n, d, lambda_min and lambda_max of ``X^T X``, the fingerprint of the
    data and where it came from.
``calibration``
    One row per dataset and epsilon: IHM's and FastIHM's calibrated gamma, FastIHM's
    omega and tau, and the budget split of each (what each spends on the gradient).

IHM draws its Gaussian sketch of the full data through the Gram factor by default
(``ihm_sketch="gram"``: ``G (X^T X)^{1/2}`` has the distribution of ``S X``, the same
mechanism at O(k d^2) cost); at ``dense_check_epsilon`` it is also run with the dense
``k x n`` sketch, so the page can show the two agree.

Reading the tables (summaries, ratios, reversals) and the claims of Section 4.1 live in
:mod:`fastmix_companion.studies.figure2_claims`; this module re-exports what the page uses and
:func:`stored_claims`, the claims its page shows.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fastmix.datasets import DATASETS as _DATASETS
from fastmix_companion.parameters import MAX_LOG2_N, Choice, ChoiceList, Flag, Integer, Real, RealList
from fastmix_companion.studies import CellTable, split_values
from fastmix_companion.studies.figure2_claims import (
    budget_factor,
    fastihm_over_ihm,
    ihm_over_fastihs,
    reversals,
    summary,
)

__all__ = [
    "NOTEBOOK",
    "DEFAULTS",
    "PARAMETERS",
    "PAPER_RATIOS",
    "run",
    "dataset_ratios",
    "summary",
    "fastihm_over_ihm",
    "ihm_over_fastihs",
    "reversals",
    "budget_factor",
    "claims",
    "stored_claims",
    "cost_model",
]

NOTEBOOK = "figure2_dp_ols"

DEFAULTS: dict[str, Any] = {
    "datasets": "synthetic_sphere,synthetic_correlated,nycflights",
    "log2_n": 13,
    "d": 4,
    "k2_ratios": "4,200,400",
    "use_paper_ratios": False,
    "epsilons": "0.316,0.631,1.259,2.512,5.012,10.0",
    "trials": 3,
    "T": 4,
    "ihm_sketch": "gram",
    "dense_check_epsilon": 1.259,
    "nycflights_rows": 8192,
    "blas_threads": 1,
    "seed": 0,
}
"""The smoke-scale defaults (the notebook's); ``notebooks/paper_scale.json`` holds the paper's."""

PARAMETERS = {
    "datasets": ChoiceList(tuple(_DATASETS)),
    "log2_n": Integer(1, MAX_LOG2_N),
    "d": Integer(1, "2**log2_n"),
    "k2_ratios": RealList(0, low_open=True),
    "use_paper_ratios": Flag(),
    "epsilons": RealList(0, low_open=True),
    "trials": Integer(1),
    "T": Integer(1),
    "ihm_sketch": Choice("gram", "dense"),
    "dense_check_epsilon": Real(0),  # 0: never
    "nycflights_rows": Integer(0),  # 0: all rows
    "blas_threads": Integer(0),  # 0: library default
    "seed": Integer(0),
}
"""What each parameter admits (:mod:`fastmix_companion.parameters`)."""


PAPER_RATIOS = {
    "synthetic_sphere": (4, 400, 800),
    "synthetic_correlated": (4, 400, 800),
    "rossmann": (4, 400, 800),
    "black_friday": (4, 100, 200),
    "year_msd": (4, 100, 200),
    "beijing": (4, 100, 200),
    "nycflights": (4, 600, 1200),
    "airline": (4, 600, 1200),
}
"""The ``(r1, r2, r3)`` the authors used per dataset (Appendix H and I; the authors' public code)."""

# The measured columns of run_grid stored in runs.csv (after the run columns), in this order
_KEEP_MEASURED = (
    *("excess_risk", "mse", "ols_mse", "theta_error", "eta", "runtime_s"),
    *("eps_spent", "delta_spent", "n_used", "rows_added"),
)


def dataset_ratios(name: str, params) -> tuple[float, ...]:
    """The k2 ratios used for dataset ``name``: the paper's own, or ``k2_ratios``."""
    if params["use_paper_ratios"] and name in PAPER_RATIOS:
        return tuple(float(r) for r in PAPER_RATIOS[name])
    return split_values(params["k2_ratios"])


def _load(name: str, index: int, params):
    from fastmix.datasets import load_dataset

    kwargs: dict[str, Any] = {"random_state": np.random.SeedSequence(params["seed"], spawn_key=(1000 + index,))}
    if name.startswith("synthetic"):
        kwargs.update(n=2 ** int(params["log2_n"]), d=int(params["d"]))
    elif name == "nycflights":
        rows = int(params["nycflights_rows"])
        kwargs["n_samples"] = rows if rows > 0 else None
    elif name == "airline":
        kwargs["n_samples"] = 2 ** int(params["log2_n"])
        kwargs["download"] = False
    if name in ("black_friday", "year_msd", "beijing", "rossmann", "airline"):
        kwargs["download"] = False
    return load_dataset(name, **kwargs)


def run(params, store=None, log=print) -> dict:
    """Compute Figure 2's tables (see the module docstring); resumable with a store."""
    import pandas as pd

    from fastmix.datasets import DatasetUnavailableError
    from fastmix.regression import calibrate_fast_ihm, calibrate_ihm, paper_defaults, paper_sketch_sizes
    from fastmix_companion.experiments import keep_result_columns, run_grid

    if int(params.get("blas_threads", 0)) > 0:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=int(params["blas_threads"]))
    names = [s.strip() for s in str(params["datasets"]).split(",") if s.strip()]
    epsilons = split_values(params["epsilons"])
    trials, T, seed = int(params["trials"]), int(params["T"]), int(params["seed"])
    runs = CellTable(store, "runs", log)
    info = CellTable(store, "datasets", log)
    calib = CellTable(store, "calibration", log)
    skipped = []
    for index, name in enumerate(names):
        try:
            ds = _load(name, index, params)
        except DatasetUnavailableError as exc:
            skipped.append({"dataset": name, "reason": str(exc)})
            if log is not None:
                log(f"skipping {name}: {exc}")
            continue
        if store is not None:
            store.add_data_sources([ds])
        ratios = dataset_ratios(name, params)
        n, d = ds.X.shape

        def describe():
            ev = np.linalg.eigvalsh(ds.X.T @ ds.X)
            prov = ds.provenance()
            return [
                {
                    "dataset": name,
                    "n": n,
                    "d": d,
                    "lambda_min": float(ev[0]),
                    "lambda_max": float(ev[-1]),
                    "source": prov.get("source"),
                    "sha256": prov.get("sha256"),
                    "k2_ratios": ",".join(f"{r:g}" for r in ratios),
                }
            ]

        info.compute(name, describe)

        def calibrations():
            dflt = paper_defaults(n)
            k1, _ = paper_sketch_sizes(d, T, dflt["rho"])
            rows = []
            for eps in epsilons:
                ci = calibrate_ihm(eps, dflt["delta"], k=k1, T=T, rho=dflt["rho"])
                cf = calibrate_fast_ihm(eps, dflt["delta"], k1=k1, T=T, rho=dflt["rho"])
                rows.append(
                    {
                        "dataset": name,
                        "epsilon": eps,
                        "k1": k1,
                        "gamma_ihm": ci.gamma,
                        "gamma_fastihm": cf.gamma,
                        "omega": cf.omega,
                        "tau": cf.tau,
                        **{f"ihm_{k}": v for k, v in _budget(ci).items()},
                        **{f"fastihm_{k}": v for k, v in _budget(cf).items()},
                    }
                )
            return rows

        calib.compute(name, calibrations)

        cells: list[tuple[str, Any, Any, Any]] = [("FastIHS", None, None, None)]
        cells += [("IHM", eps, None, params["ihm_sketch"]) for eps in epsilons]
        if params["ihm_sketch"] != "dense" and params["dense_check_epsilon"]:
            cells.append(("IHM", float(params["dense_check_epsilon"]), None, "dense"))
        cells += [("FastIHM", eps, r, None) for eps in epsilons for r in ratios]
        for method, eps, ratio, sketch in cells:
            key = f"{name}|{method}|eps={eps}|r={ratio}|sketch={sketch}"

            def compute(method=method, eps=eps, ratio=ratio, sketch=sketch):
                df = run_grid(
                    {name: ds},
                    methods=(method,),
                    epsilons=(eps,) if eps is not None else (1.0,),
                    k2_ratios=(ratio,) if ratio is not None else (4.0,),
                    n_trials=trials,
                    root_seed=seed,
                    T=T,
                    ihm_sketch=sketch or "dense",
                    progress=False,
                )
                df["ihm_sketch"] = sketch if method == "IHM" else None
                return keep_result_columns(df, _KEEP_MEASURED)

            runs.compute(key, compute)
    tables = {
        "runs": runs.frame(),
        "datasets": info.frame(),
        "calibration": calib.frame(),
        "skipped": pd.DataFrame(skipped, columns=["dataset", "reason"]),
    }
    if store is not None and skipped:
        store.put_table("skipped", tables["skipped"])
    return tables


def _budget(cal) -> dict:
    """What a calibration spends on the gradient release, when it records it."""
    out = {}
    for attr in ("epsilon_gradient", "delta_gradient", "sigma_gradient"):
        if hasattr(cal, attr):
            out[attr] = float(getattr(cal, attr))
    return out


# --------------------------------------------------------------------------- the claims


def claims(tables, *, epsilons=None, alpha: float = 0.05) -> list:
    """The claims of Section 4.1 that the page discusses (:func:`fastmix_companion.studies.figure2_claims.claims`)."""
    from fastmix_companion.studies.figure2_claims import claims as decide

    return decide(tables, epsilons=epsilons, alpha=alpha)


def stored_claims(tables, parameters) -> list:
    """The claims the page shows, decided on the stored ``tables`` with the run's epsilon grid (``parameters``)."""
    return claims(tables, epsilons=(parameters or {}).get("epsilons"))


def cost_model(params):
    """Peak memory and duration of a run at ``params``: :func:`.cost_models.figure2_cost`.

    Returns a :class:`fastmix_companion.cli_checks.RunCost`; ``python -m fastmix_companion.run``
    refuses a run whose memory estimate exceeds the memory available, and asks for ``--yes``
    before one estimated at over an hour.
    """
    from fastmix_companion.studies.cost_models import figure2_cost

    return figure2_cost(params, dataset_ratios=dataset_ratios)
