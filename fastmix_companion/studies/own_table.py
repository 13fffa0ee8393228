"""Private regression on one's own table: the whole private path on a public table, as a study.

The book's page "Private regression on your own table" walks through what a practitioner does:
declare bounds, encode with :class:`~fastmix.preprocessing.BoundedTableEncoder`, fit
:class:`~fastmix.regression.PrivateLinearRegression` with an intercept inside a
:class:`~fastmix.preprocessing.BoundedResponseRegressor`, tune privately with
:class:`~fastmix.model_selection.PrivateGridSearch`, and check the pipeline with
:func:`~fastmix.preprocessing.pipeline_privacy_record`. This study measures that path on
:data:`fastmix_companion.public_tables.PAGE_TABLE` (the diamonds table: the logarithm of the
price is far from linear in carat, so a kernel learner has something to gain) over seeds and
budgets, next to private kernel ridge regression on random Fourier features
(:class:`~fastmix.kernels.DPRandomFeatureKRR`) at fixed settings, and asks when the kernel learner
beats the linear one. It also repeats the comparison on nested subsets of the training rows
(``fractions``), since the kernel learner's privacy noise shrinks with ``n``.

The table is split once into training and held-out rows by a public seeded permutation
(:func:`~fastmix_companion.public_tables.split_rows`). Every learner of one ``(fraction,
epsilon, trial)`` sees the same training rows, so the learners are paired by trial. Errors are
held-out mean squared errors of log10(price), divided by OLS's on the same encoded features and
training rows (non-private, the floor a private linear fit approaches).

Tables
------
``setting``  one row per fraction: rows, features, the OLS, training-mean and non-private
             random-feature ridge errors (scikit-learn's ``RBFSampler`` and ``Ridge``; the kernel's
             potential on this table), the table's source and SHA-256.
``fits``     one row per learner and ``(fraction, epsilon, trial)``: held-out MSE, fit time, the
             epsilon its ledger spent, what it chose (the front door's solver, the search's
             candidate) and whether the pipeline certificate holds it private end to end.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from fastmix_companion.parameters import Integer, Real, RealList
from fastmix_companion.studies import CellTable, split_values

__all__ = [
    "NOTEBOOK",
    "DEFAULTS",
    "PARAMETERS",
    "KERNELS",
    "LEARNERS",
    "run",
    "pipeline",
    "search",
    "summary",
    "kernel_against_linear",
    "claims",
    "stored_claims",
    "cost_model",
]

NOTEBOOK = "own_table"

DEFAULTS: dict[str, Any] = {
    "epsilons": "1,5",
    "fractions": "1",
    "trials": 2,
    "max_rows": 6000,
    "delta": 1e-6,
    "test_share": 0.2,
    "selection_share": 0.1,
    "nonprivate_features": 300,
    "split_seed": 0,
    "seed": 0,
}
"""The smoke-scale defaults (the notebook's); ``notebooks/paper_scale.json`` holds the full run."""

PARAMETERS = {
    "epsilons": RealList(0, low_open=True),
    "fractions": RealList(0, 1, low_open=True),
    "trials": Integer(2),
    "max_rows": Integer(0),  # 0: every row of the table
    "delta": Real(0, 1, low_open=True, high_open=True),
    "test_share": Real(0, 1, low_open=True, high_open=True),
    "selection_share": Real(0, 1, low_open=True, high_open=True),
    "nonprivate_features": Integer(10),
    "split_seed": Integer(0),
    "seed": Integer(0),
}
"""What each parameter admits (:mod:`fastmix_companion.parameters`)."""

KERNELS = (
    ("kernel: defaults", {"n_components": 100, "bandwidth": 1.0, "lam": 1e-3}),
    ("kernel: M=300", {"n_components": 300, "bandwidth": 1.0, "lam": 1e-3}),
    ("kernel: M=300, lam=0.01", {"n_components": 300, "bandwidth": 1.0, "lam": 1e-2}),
)
"""The fixed random-feature settings: the learner's defaults, more features, more ridge; set before the run."""

LEARNERS = ("linear (front door)", *(name for name, _ in KERNELS), "private search")
"""Every learner of the ``fits`` table, in the page's order."""


def _response(model, table):
    from fastmix.preprocessing import BoundedResponseRegressor

    return BoundedResponseRegressor(model, *table.response_range)


def pipeline(model, table=None):
    """``encode -> model`` for ``table`` (the page's by default): its declared encoder, y mapped from its range."""
    from sklearn.pipeline import Pipeline

    from fastmix_companion.public_tables import PAGE_TABLE

    table = PAGE_TABLE if table is None else table
    return Pipeline([("encode", table.encoder()), ("model", _response(model, table))])


def search(epsilon, delta, *, selection_share=0.1, ledger=None, random_state=None, table=None):
    """The page's private search: the linear front door against each kernel setting, in one budget."""
    from fastmix.kernels import DPRandomFeatureKRR
    from fastmix.model_selection import PrivateGridSearch
    from fastmix.regression import PrivateLinearRegression
    from fastmix_companion.public_tables import PAGE_TABLE

    table = PAGE_TABLE if table is None else table
    grid = [{"model": [_response(PrivateLinearRegression(), table)]}]
    grid += [{"model": [_response(DPRandomFeatureKRR(**settings), table)]} for _, settings in KERNELS]
    return PrivateGridSearch(
        pipeline(PrivateLinearRegression(), table),
        grid,
        epsilon=epsilon,
        delta=delta,
        selection_share=selection_share,
        ledger=ledger,
        random_state=random_state,
    )


def _nonprivate_kernel_mse(X_train, y_train, X_test, y_test, features: int, seed: int) -> float:
    from sklearn.kernel_approximation import RBFSampler
    from sklearn.linear_model import Ridge
    from sklearn.pipeline import make_pipeline

    bandwidth = KERNELS[0][1]["bandwidth"]
    model = make_pipeline(
        RBFSampler(gamma=1.0 / (2 * bandwidth**2), n_components=features, random_state=seed), Ridge(alpha=1e-6)
    )
    model.fit(X_train, y_train)
    return float(np.mean((model.predict(X_test) - y_test) ** 2))


def run(params, store=None, log=print) -> dict:
    """Fit every learner at every ``(fraction, epsilon, trial)`` (module docstring); resumable with a store."""
    import warnings

    from fastmix.kernels import DPRandomFeatureKRR
    from fastmix.preprocessing import pipeline_privacy_record
    from fastmix.regression import PrivateLinearRegression, ResponseClippingWarning
    from fastmix_companion.public_tables import PAGE_TABLE, reference_errors, split_rows

    epsilons = split_values(params["epsilons"])
    fractions = split_values(params["fractions"])
    trials, seed, delta = int(params["trials"]), int(params["seed"]), float(params["delta"])
    frame, y, source = PAGE_TABLE.load()
    if int(params["max_rows"]) > 0:
        keep = np.sort(
            np.random.default_rng(int(params["split_seed"]) + 1).permutation(len(y))[: int(params["max_rows"])]
        )
        frame, y = frame.iloc[keep].reset_index(drop=True), y[keep]
    if store is not None:
        store.add_data_sources([source])
    train, test = split_rows(len(y), float(params["test_share"]), int(params["split_seed"]))
    order = np.random.default_rng(int(params["split_seed"]) + 2).permutation(train)  # nested subsets of train
    encoder = PAGE_TABLE.encoder().fit(frame)
    X_all = encoder.transform(frame)
    low, high = PAGE_TABLE.response_range
    setting, fits = CellTable(store, "setting", log), CellTable(store, "fits", log)
    for f_index, fraction in enumerate(fractions):
        rows = np.sort(order[: max(2, round(fraction * train.size))])
        X_tr, y_tr, X_te, y_te = X_all[rows], y[rows], X_all[test], y[test]  # encoded, for the references

        def references(rows=rows, X_tr=X_tr, y_tr=y_tr, X_te=X_te, y_te=y_te, fraction=fraction):
            return [
                {
                    "fraction": fraction,
                    "n_train": int(rows.size),
                    "n_test": int(test.size),
                    "d": int(X_tr.shape[1]),
                    **reference_errors(X_tr, y_tr, X_te, y_te, (low, high)),
                    "kernel_nonprivate_mse": _nonprivate_kernel_mse(
                        X_tr, np.clip(y_tr, low, high), X_te, y_te, int(params["nonprivate_features"]), seed
                    ),
                    "responses_clipped": int(np.count_nonzero((y_tr < low) | (y_tr > high))),
                    "table": source["source"],
                    "sha256": source["sha256"],
                }
            ]

        setting.compute(f"fraction={fraction:g}", references)
        for e_index, eps in enumerate(epsilons):
            for trial in range(trials):

                def cell(
                    rows=rows, y_tr=y_tr, y_te=y_te, fraction=fraction, eps=eps, trial=trial, keys=(f_index, e_index)
                ):
                    entropy = np.random.SeedSequence([seed, *keys, trial]).spawn(len(LEARNERS))
                    estimators = [pipeline(PrivateLinearRegression(epsilon=eps, delta=delta, random_state=entropy[0]))]
                    estimators += [
                        pipeline(DPRandomFeatureKRR(epsilon=eps, delta=delta, random_state=entropy[1 + i], **settings))
                        for i, (_, settings) in enumerate(KERNELS)
                    ]
                    share = float(params["selection_share"])
                    estimators.append(search(eps, delta, selection_share=share, random_state=entropy[-1]))
                    out = []
                    # the raw rows: the encoder is part of each pipeline, which the certificate then reads
                    train_rows, test_rows = frame.iloc[rows], frame.iloc[test]
                    for name, est in zip(LEARNERS, estimators, strict=True):
                        with warnings.catch_warnings():
                            # responses outside the declared range are clipped (counted in the setting table)
                            warnings.simplefilter("ignore", ResponseClippingWarning)
                            started = time.perf_counter()
                            est.fit(train_rows, y_tr)
                            fit_s = time.perf_counter() - started
                        searched = name == "private search"
                        ledger = est.privacy_ledger_ if searched else est[-1].privacy_ledger_
                        if searched:  # the search's candidates are the other learners, in LEARNERS' order
                            chosen = LEARNERS[est.best_index_]
                        else:
                            chosen = est[-1].regressor_.solver_ if name.startswith("linear") else ""
                        out.append(
                            {
                                "fraction": fraction,
                                "epsilon": float(eps),
                                "trial": trial,
                                "learner": name,
                                "mse": float(np.mean((est.predict(test_rows) - y_te) ** 2)),
                                "fit_s": fit_s,
                                "epsilon_spent": float(ledger.total_epsilon),
                                "chosen": chosen,
                                "certified": bool(pipeline_privacy_record(est)["private_end_to_end"]),
                            }
                        )
                    return out

                fits.compute(f"fraction={fraction:g}|eps={eps:g}|trial={trial}", cell)
    return {"setting": setting.frame(), "fits": fits.frame()}


def summary(tables):
    """One row per ``(fraction, epsilon, learner)``: held-out MSE over OLS's (geometric mean over trials,
    95% interval) and over the training mean's, median fit time, the choices made and whether every fit
    was certified private end to end."""
    import pandas as pd

    from fastmix_companion.claims import geometric_mean, geometric_mean_interval

    setting = tables["setting"].set_index("fraction")
    out = []
    for (fraction, eps, learner), g in tables["fits"].groupby(["fraction", "epsilon", "learner"], sort=False):
        ref = setting.loc[fraction]
        iv = geometric_mean_interval(g["mse"] / ref["ols_mse"])
        chosen = g["chosen"].fillna("").astype(str)
        out.append(
            {
                "fraction": fraction,
                "n_train": int(ref["n_train"]),
                "epsilon": eps,
                "learner": learner,
                "mse_over_ols": iv.estimate,
                "low": iv.low,
                "high": iv.high,
                "mse_over_mean": geometric_mean(g["mse"] / ref["mean_mse"]),
                "fit_s": float(g["fit_s"].median()),
                "chosen": ", ".join(f"{k} x{v}" for k, v in chosen[chosen != ""].value_counts().items()),
                "certified": bool(g["certified"].all()),
                "trials": len(g),
            }
        )
    return pd.DataFrame(out)


def kernel_against_linear(tables, alpha: float = 0.05):
    """Per ``(fraction, epsilon)``: the best kernel setting (lowest geometric-mean error, chosen after the
    fact, which favours the kernel) against the linear front door, paired by trial.

    Columns: ``ratio``, ``low``, ``high`` (kernel MSE / linear MSE, intervals simultaneous over the
    epsilons of each fraction by Bonferroni), ``p``, the two learners' errors over OLS, the
    non-private kernel's error over OLS and the kernel's verdict: ``"kernel better"``, ``"linear
    better"`` or ``"undecided"``.
    """
    import pandas as pd

    from fastmix_companion.claims import geometric_mean, paired_log_ratio

    fits, setting = tables["fits"], tables["setting"].set_index("fraction")
    kernels = [name for name, _ in KERNELS]
    out = []
    for fraction, part in fits.groupby("fraction", sort=True):
        level = 1 - alpha / part["epsilon"].nunique()
        ref = setting.loc[fraction]
        for eps, cell in part.groupby("epsilon", sort=True):
            series = {k: c.sort_values("trial")["mse"].to_numpy() for k, c in cell.groupby("learner")}
            best = min(kernels, key=lambda k: geometric_mean(series[k]))
            iv, p, _ = paired_log_ratio(series[best], series[LEARNERS[0]], level)
            out.append(
                {
                    "fraction": fraction,
                    "n_train": int(ref["n_train"]),
                    "epsilon": eps,
                    "best_kernel": best,
                    "ratio": iv.estimate,
                    "low": iv.low,
                    "high": iv.high,
                    "p": p,
                    "kernel_over_ols": geometric_mean(series[best] / ref["ols_mse"]),
                    "linear_over_ols": geometric_mean(series[LEARNERS[0]] / ref["ols_mse"]),
                    "nonprivate_kernel_over_ols": float(ref["kernel_nonprivate_mse"] / ref["ols_mse"]),
                    "verdict": "kernel better" if iv.high < 1 else "linear better" if iv.low > 1 else "undecided",
                }
            )
    return pd.DataFrame(out)


def claims(tables, parameters=None) -> list:
    """The page's checks: does a private kernel learner beat the private linear one on this table (ours)?"""
    from fastmix_companion.claims import Claim, Setting, Source

    comparison = kernel_against_linear(tables)
    if comparison.empty:
        return []
    full = comparison[comparison["fraction"] == comparison["fraction"].max()]
    text = "; ".join(
        f"eps {r.epsilon:g}: {r.best_kernel} / linear {r.ratio:.3g} [{r.low:.3g}, {r.high:.3g}]"
        for r in full.itertuples()
    )
    wins = (full["verdict"] == "kernel better").any()
    loses = (full["verdict"] == "linear better").all()
    n = int(full["n_train"].iloc[0])
    return [
        Claim(
            claim="A private kernel learner beats the private linear one on the diamonds table",
            paper=(
                "our question: the logarithm of a diamond's price is far from linear in carat, and a non-private "
                "random-feature ridge beats OLS here; does the private kernel learner beat private linear "
                "regression at these budgets?"
            ),
            measured=f"held-out MSE, best kernel setting / linear front door, paired by trial, n = {n:,}: " + text,
            rule=(
                "holds if the kernel's interval lies below 1 at some epsilon; does not hold if it lies above 1 at "
                "every epsilon (intervals simultaneous over the epsilons); the best of the fixed kernel settings is "
                "picked after the fact, which favours the kernel"
            ),
            holds=True if wins else False if loses else None,
            source=Source(None, "a practitioner's question: when is a private kernel learner worth it?"),
            setting=Setting(("a public table, not one of either paper's",)),
            exploratory=True,
        )
    ]


def stored_claims(tables, parameters) -> list:
    """The claims the page shows, decided on the stored ``tables`` with the ``parameters`` they were computed with."""
    return claims(tables, parameters)


def cost_model(params):
    """Peak memory and duration of a run at ``params``: :func:`.cost_models.own_table_cost`.

    Returns a :class:`fastmix_companion.cli_checks.RunCost`; ``python -m fastmix_companion.run``
    refuses a run whose memory estimate exceeds the memory available, and asks for ``--yes``
    before one estimated at over an hour.
    """
    from fastmix_companion.studies.cost_models import own_table_cost

    return own_table_cost(params)
