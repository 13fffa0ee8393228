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

__all__ = [
    "NOTEBOOK",
    "DEFAULTS",
    "PARAMETERS",
    "DESIGNS",
    "STATISTICS",
    "GROUPS",
    "run",
    "percentile_table",
    "prediction_p",
    "check_table",
    "CENTRAL",
    "typical_draw",
    "typical_rule",
    "spread_setting",
    "claims",
    "stored_claims",
    "cost_model",
]

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


GROUPS = (
    ("eigenvalues", ("lambda_min", "lambda_max")),
    ("OLS residual", ("ols_mse",)),
    ("mean squared response", ("y_sq_mean",)),
)
"""The checks per design: the two eigenvalues are one check (both are divided by the same
``max_i ||x_i||^2`` in the normalisation, so on the correlated design they move together: one
question, not two), the OLS residual and the mean squared response one each."""

SPREAD_FACTOR = 2.0
"""The measured field names the spread of the seeds when their central 95% spans more than this factor."""

CENTRAL = (2.5, 97.5)
"""The central 95% of the draws, as percentiles: a value typical of them lies within it."""


def typical_draw(rejected: bool, percentiles, central: tuple[float, float] = CENTRAL) -> bool | None:
    """The three-way rule for "the paper's value is a typical draw", on the Appendix J and Appendix F pages.

    ``False`` (does not hold) when the value's test is rejected after Holm's correction over the
    page's tests; ``True`` (holds) when it is not rejected and every value lies in the central
    95% of the draws (each of ``percentiles`` within ``central``); ``None`` (undecided) otherwise.
    """
    if rejected:
        return False
    return True if all(central[0] <= float(p) <= central[1] for p in percentiles) else None


def typical_rule(test: str, family: str, values: str = "the value", central: tuple[float, float] = CENTRAL) -> str:
    """The rule text of :func:`typical_draw`: ``test`` names the test, ``family`` the Holm family."""
    return (
        f"{test}, Holm over {family}. Does not hold if rejected; holds if not rejected and the central 95% of the "
        f"draws contains {values} (percentile within [{central[0]:g}, {central[1]:g}]); undecided otherwise"
    )


SIZE_FACTOR = 2.0
"""Seeds' geometric mean / paper's value within this factor: the value is reproduced in size."""


def prediction_p(value: float, sample) -> float:
    """Two-sided p-value of ``value`` as one more draw of ``sample``, on the log scale.

    ``t = (log value - mean log x) / (sd log x * sqrt(1 + 1/N))`` against Student's t with
    ``N - 1`` degrees of freedom (the prediction interval of a new draw).
    """
    from scipy import stats

    x = np.log(np.asarray(sample, dtype=float))
    if x.size < 2 or not np.all(np.isfinite(x)):
        return float("nan")
    sd = float(x.std(ddof=1)) * np.sqrt(1.0 + 1.0 / x.size)
    if sd == 0:
        return 0.0 if np.log(value) != x.mean() else 1.0
    return float(2.0 * stats.t.sf(abs(np.log(value) - x.mean()) / sd, x.size - 1))


def check_table(spread, alpha: float = 0.05):
    """One row per design and check of :data:`GROUPS` that the paper gives numbers for.

    Columns: ``design, check, statistics`` (tuple), ``seeds, p`` (the prediction p-value; for the
    eigenvalue pair the smaller of the two times two, Bonferroni within the pair: its logarithms move
    together on one design and not on another, and the pair is one member of the Holm family), ``reject``
    (Holm over all rows at ``alpha``), ``spread_factor`` (largest q97.5/q2.5 of the seeds over the
    check's statistics), ``percentiles``, ``correlation`` (of the pair's logarithms over the seeds).
    """
    import pandas as pd

    from fastmix.datasets import PAPER_STATISTICS
    from fastmix_companion.claims import holm, percentile_of

    rows = []
    for design, g in spread.groupby("design", sort=False):
        paper = PAPER_STATISTICS.get(design, {})
        for check, stats_ in GROUPS:
            if not all(isinstance(paper.get(s), (int, float)) for s in stats_):
                continue
            ps = [prediction_p(float(paper[s]), g[s]) for s in stats_]
            q = [np.quantile(g[s], [0.025, 0.975]) for s in stats_]
            corr = (
                float(np.corrcoef(np.log(g[stats_[0]]), np.log(g[stats_[1]]))[0, 1])
                if len(stats_) == 2 and len(g) > 2
                else float("nan")
            )
            rows.append(
                {
                    "design": design,
                    "check": check,
                    "statistics": stats_,
                    "seeds": len(g),
                    "p": min(1.0, len(ps) * min(ps)),
                    "spread_factor": max(float(hi / lo) for lo, hi in q),
                    "percentiles": tuple(percentile_of(float(paper[s]), g[s]) for s in stats_),
                    "correlation": corr,
                }
            )
    out = pd.DataFrame(rows)
    if not out.empty:
        out["reject"] = holm(out["p"].fillna(1.0).to_list(), alpha)
    return out


def spread_setting(spread, design: str):
    """The setting of the seeds of ``design`` against the paper's row (n and d of Appendix J)."""
    from fastmix.datasets import PAPER_STATISTICS
    from fastmix_companion.claims import PAPER_SETTING, Setting

    g = spread[spread["design"] == design]
    paper = PAPER_STATISTICS[design]
    if not {"n", "d"} <= set(g) or g.empty:
        return Setting(("n and d of the seeds not recorded",), comparable=False)
    n, d = int(g["n"].iloc[0]), int(g["d"].iloc[0])
    if (n, d) == (int(paper["n"]), int(paper["d"])):
        return PAPER_SETTING
    return Setting(
        (
            f"seeds at n = {n:,}, d = {d}, the paper's n = {int(paper['n']):,}, d = {int(paper['d'])} (the eigenvalues "
            "grow with n)",
        ),
        comparable=False,
    )


def claims(tables, *, alpha: float = 0.05, min_seeds: int = 20) -> list:
    """Appendix J's values of the synthetic designs as stated checks on the seed spread.

    One check per design and row of :data:`GROUPS`: is the paper's value one more draw of the
    design as Appendix H specifies it? Each check has a prediction p-value on the log scale
    (:func:`prediction_p`); Holm's correction runs over all the checks at ``alpha``. The outcome is
    :func:`typical_draw`: a rejected check does not hold; one that is not rejected holds when the
    paper's values lie in the central 95% of the seeds, and is undecided otherwise, as it is with
    fewer than ``min_seeds`` seeds.
    """
    from fastmix.datasets import PAPER_STATISTICS
    from fastmix_companion.claims import Claim, Interval, Magnitude, fastmix_paper, mean_interval

    spread = tables["spread"]
    checks = check_table(spread, alpha)
    out = []
    for r in checks.itertuples():
        g = spread[spread["design"] == r.design]
        paper = PAPER_STATISTICS[r.design]
        label = "Synthetic: correlated" if r.design == "synthetic_correlated" else "Synthetic: lambda_min ~ n/d"
        mags = []
        wide = r.spread_factor > SPREAD_FACTOR
        # one draw of a statistic whose seeds spread over more than the size factor has no size to reproduce
        caveat = f"the seeds' central 95% spans a factor {r.spread_factor:.3g}" if r.spread_factor > SIZE_FACTOR else ""
        for s in r.statistics:
            iv = mean_interval(np.log(g[s].to_numpy(dtype=float)))
            p0 = float(paper[s])
            ratio = Interval(np.exp(iv.estimate) / p0, np.exp(iv.low) / p0, np.exp(iv.high) / p0, n=iv.n)
            mags.append(Magnitude(f"{s}, seeds' geometric mean / paper", p0, ratio, SIZE_FACTOR, caveat))
        holds = None if r.seeds < min_seeds else typical_draw(bool(r.reject), r.percentiles)
        values = ", ".join(f"{s} = {float(paper[s]):g}" for s in r.statistics)
        pct = " and ".join(f"{v:.3g}" for v in r.percentiles)
        extra = ""
        if len(r.statistics) == 2:
            extra = f"; the pair's logarithms correlate at {r.correlation:.4f} over the seeds"
        elif wide and "signal_var" in g and len(g) > 2:
            rho = float(np.corrcoef(np.log(g["signal_var"]), np.log(g[r.statistics[0]]))[0, 1])
            extra = (
                f"; its logarithm correlates at {rho:.3f} with that of the seed's signal variance "
                "theta0^T Sigma theta0, so the paper's one draw of theta0 sets it"
            )
        many = len(r.statistics) > 1
        out.append(
            Claim(
                claim=f"{r.design}: the paper's {r.check} {'are' if many else 'is'} a typical draw",
                paper=f"Appendix J reports {values} for a draw of the design of Appendix H",
                measured=f"{r.seeds} seeds: the paper's value{'s' if many else ''} at percentile{'s' if many else ''} "
                f"{pct}; prediction p = {r.p:.3g}, {'rejected' if r.reject else 'not rejected'} after Holm; the "
                f"central 95% of the seeds spans a factor {r.spread_factor:.4g}{extra}",
                rule=typical_rule(
                    "prediction test of one more draw on the log scale (the eigenvalue pair: the smaller p, doubled)",
                    f"the page's {len(checks)} checks at {alpha:g}",
                    "the paper's values" if many else "the paper's value",
                )
                + f" (also undecided with fewer than {min_seeds} seeds). Size: the seeds' geometric mean within a "
                f"factor {SIZE_FACTOR:g} of the paper's value",
                holds=holds,
                source=fastmix_paper(f"Appendix J, table, row '{label}' (design of Appendix H)"),
                setting=spread_setting(spread, r.design),
                magnitudes=tuple(mags),
            )
        )
    return out


def stored_claims(tables, parameters) -> list:
    """The claims the page shows, decided on the stored ``spread`` table (``parameters`` is not needed:
    the table records n and d of every seed)."""
    del parameters
    return claims(tables)


def cost_model(params):
    """Peak memory and duration of a run at ``params``: :func:`.cost_models.appendix_j_cost`.

    Returns a :class:`fastmix_companion.cli_checks.RunCost`; ``python -m fastmix_companion.run``
    refuses a run whose memory estimate exceeds the memory available, and asks for ``--yes``
    before one estimated at over an hour.
    """
    from fastmix_companion.studies.cost_models import appendix_j_cost

    return appendix_j_cost(params)
