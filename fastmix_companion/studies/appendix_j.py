"""Appendix J of the FastMix paper: the datasets' statistics, and their spread over seeds.

Appendix J (Table 1) of the FastMix paper (arXiv:2605.30600) lists ``n, d``, the extreme
eigenvalues of ``X^T X``, the OLS residual ``(1/n)||Y - X theta*||^2``, the mean squared
response and ``n/d`` of each dataset after the Appendix H normalisation
(:func:`fastmix.datasets.dataset_statistics`). The two synthetic designs are random, so one
row of the paper is one draw: the ``spread`` table regenerates both designs for ``n_seeds``
seeds, so that each of the paper's values can be placed within the seed distribution.

Tables
------
``statistics``
    One row per dataset that loads offline (:func:`fastmix.datasets.available_offline`):
    ``dataset, n, d, lambda_min, lambda_max, ols_mse, y_sq_mean, n_over_d, max_row_norm,
    max_abs_y`` and the last preprocessing step. Synthetic designs at ``n = 2^log2_n``.
``spread``
    One row per synthetic design and seed (at ``n = 2^spread_log2_n``): the same statistics
    plus ``signal_var = theta0^T Cov(x) theta0``, the variance of the noiseless response
    before normalisation. A cell is one design and seed.

The designs of ``spread`` use ``SeedSequence(seed, spawn_key=(design, s))`` for seed ``s``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fastmix_companion.parameters import MAX_LOG2_N, Choice, Integer
from fastmix_companion.studies import CellTable

__all__ = ["NOTEBOOK", "DEFAULTS", "PARAMETERS", "DESIGNS", "STATISTICS", "run"]

NOTEBOOK = "appendix_j_statistics"

DEFAULTS: dict[str, Any] = {
    "log2_n": 14,
    "d": 32,
    "power_of_two": "subsample",
    "spread_log2_n": 12,
    "n_seeds": 5,
    "seed": 0,
}
"""The smoke-scale defaults (the notebook's); ``notebooks/paper_scale.json`` holds the paper's."""

PARAMETERS = {
    "log2_n": Integer(1, MAX_LOG2_N),
    "d": Integer(1, "2**log2_n"),
    "power_of_two": Choice("subsample", "pad"),
    "spread_log2_n": Integer(1, MAX_LOG2_N),
    "n_seeds": Integer(1),
    "seed": Integer(0),
}
"""What each parameter admits (:mod:`fastmix_companion.parameters`)."""


DESIGNS = ("synthetic_sphere", "synthetic_correlated")
STATISTICS = ("lambda_min", "lambda_max", "ols_mse", "y_sq_mean")
"""The columns of Appendix J that vary with the seed of a synthetic design."""

_COLUMNS = ("n", "d", "lambda_min", "lambda_max", "ols_mse", "y_sq_mean", "n_over_d", "max_row_norm", "max_abs_y")


def _make(name: str, n: int, d: int, random_state):
    from fastmix.datasets import make_correlated_regression, make_sphere_regression

    make = make_sphere_regression if name == "synthetic_sphere" else make_correlated_regression
    return make(n=n, d=d, random_state=random_state)


def _signal_var(name: str, ds, d: int) -> float:
    from fastmix.datasets import correlated_covariance

    theta0 = np.asarray(ds.params["theta0"], dtype=float)
    if name == "synthetic_sphere":  # rows uniform on the sphere: Cov(x) = I/d
        return float(theta0 @ theta0 / d)
    return float(theta0 @ correlated_covariance(d) @ theta0)


def run(params, store=None, log=print) -> dict:
    """Compute Appendix J's tables (see the module docstring); resumable with a store."""
    from fastmix.datasets import available_offline, dataset_statistics, load_dataset

    d, seed = int(params["d"]), int(params["seed"])
    stats = CellTable(store, "statistics", log)
    for name in available_offline():

        def cell(name=name):
            if name in DESIGNS:
                ds = _make(name, 2 ** int(params["log2_n"]), d, seed)
            else:
                ds = load_dataset(name, power_of_two=str(params["power_of_two"]), random_state=seed)
            if store is not None:
                store.add_data_sources([ds])
            st = dataset_statistics(ds.X, ds.y)
            return [{"dataset": name, **{c: st[c] for c in _COLUMNS}, "last_step": str(ds.preprocessing[-1])}]

        stats.compute(name, cell)
    spread = CellTable(store, "spread", log)
    n = 2 ** int(params["spread_log2_n"])
    for index, name in enumerate(DESIGNS):
        for s in range(int(params["n_seeds"])):

            def spread_cell(name=name, index=index, s=s):
                ds = _make(name, n, d, np.random.SeedSequence(seed, spawn_key=(index, s)))
                st = dataset_statistics(ds.X, ds.y)
                return [
                    {"design": name, "seed": s, **{c: st[c] for c in _COLUMNS}, "signal_var": _signal_var(name, ds, d)}
                ]

            spread.compute(f"{name}|seed={s}", spread_cell)
    return {"statistics": stats.frame(), "spread": spread.frame()}


# --------------------------------------------------------------------------- claims


def percentile_table(spread):
    """Per design and statistic: the paper's value, its percentile among the seeds, and the seeds' spread."""
    import pandas as pd

    from fastmix.datasets import PAPER_STATISTICS
    from fastmix_companion.claims import percentile_of

    rows = []
    for design, g in spread.groupby("design", sort=False):
        paper = PAPER_STATISTICS.get(design, {})
        for stat in STATISTICS:
            value = paper.get(stat)
            if not isinstance(value, (int, float)):
                continue
            x = g[stat].to_numpy(dtype=float)
            rows.append(
                {
                    "design": design,
                    "statistic": stat,
                    "paper": float(value),
                    "seeds": int(x.size),
                    "percentile": percentile_of(float(value), x),
                    "median": float(np.median(x)),
                    "q025": float(np.quantile(x, 0.025)),
                    "q975": float(np.quantile(x, 0.975)),
                    "min": float(x.min()),
                    "max": float(x.max()),
                }
            )
    return pd.DataFrame(rows)


def claims(tables, *, typical: tuple[float, float] = (2.5, 97.5), min_seeds: int = 20) -> list:
    """Appendix J's values of the synthetic designs as stated checks on the seed spread.

    One check per design and statistic (``lambda_min, lambda_max, ols_mse, y_sq_mean``): the
    paper's value is a typical draw of the design when its percentile among the seeds lies
    inside ``typical``; with fewer than ``min_seeds`` seeds the check is undecided.
    """
    from fastmix_companion.claims import Claim

    out = []
    for r in percentile_table(tables["spread"]).itertuples():
        out.append(
            Claim(
                claim=f"{r.design}: the paper's {r.statistic} is a typical draw",
                paper=f"Appendix J reports {r.statistic} = {r.paper:g}",
                measured=f"{r.seeds} seeds: median {r.median:.4g}, 95% of seeds in [{r.q025:.4g}, {r.q975:.4g}]; "
                f"the paper's value is at percentile {r.percentile:.3g}",
                rule=f"holds if the percentile lies inside [{typical[0]:g}, {typical[1]:g}] (needs at least "
                f"{min_seeds} seeds)",
                holds=None if r.seeds < min_seeds else bool(typical[0] <= r.percentile <= typical[1]),
            )
        )
    return out
