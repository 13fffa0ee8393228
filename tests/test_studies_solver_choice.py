"""The sentences of the solver choice page (fastmix_companion.studies.solver_choice_text), on hand-made tables."""

import pandas as pd

from fastmix_companion.studies import solver_choice_text as ST

P = {"design": "synthetic_sphere", "log2_ns": "9, 10", "ds": "4,8", "epsilons": "1.259", "T": 4, "trials": 2}


def _cmap(fastihm_alone=False, warns=(False, True)):
    acc = ["FastIHM", "AdaSSP"] if fastihm_alone else ["IHM (Gram), AdaSSP", "AdaSSP"]
    return pd.DataFrame(
        {
            "d": [4, 8],
            "n": [512, 512],
            "epsilon": [1.259, 1.259],
            "accuracy_ties": acc,
            "accuracy_best": [a.split(", ")[0] for a in acc],
            "time_ties": ["IHM (Gram)", "IHM (Gram), AdaSSP"],
            "time_best": ["IHM (Gram)", "IHM (Gram)"],
            "fastihm_warns": list(warns),
        }
    )


def test_setting_text():
    tables = {"runs": pd.DataFrame({"x": range(1200)}), "datasets": pd.DataFrame({"x": range(4)})}
    assert ST.setting_text(tables, P) == (
        "synthetic sphere design, $\\log_2 n \\in \\{9, 10\\}$, $d \\in \\{4, 8\\}$, $\\varepsilon \\in \\{1.259\\}$, "
        "$T = 4$, 2 trials, 1,200 solves on 4 shapes"
    )


def test_decision_table():
    lines = ST.map_markdown(_cmap()).splitlines()
    assert lines[0] == "| $d$ | $n$ | $\\varepsilon = 1.259$ |"
    assert lines[2] == "| 4 | $2^{9}$ | **IHM (Gram) ~ AdaSSP**; fastest IHM (Gram) |"
    assert lines[3] == "| 8 | $2^{9}$ | **AdaSSP**; fastest IHM (Gram) ~ AdaSSP (warns) |"


def test_map_text_counts_the_wins_and_it_flips():
    shared = ST.map_text(_cmap())
    fast = ST.map_text(_cmap(fastihm_alone=True, warns=(False, False)))
    assert shared.startswith(
        "IHM (Gram) is among the most accurate at 1 of 2 grid points (0 alone); AdaSSP is among the most accurate "
        "at 2 of 2 grid points (1 alone). The fastest private solver is IHM (Gram) at 2 of the 2 points."
    )
    assert shared.endswith("fires at 1 of them.") and "FastIHM is among" not in shared
    assert fast.startswith("FastIHM is among the most accurate at 1 of 2 grid points (1 alone)")
    assert fast.endswith("fires at 0 of them.")
    assert "($\\eta^2 > 10\\,\\gamma_{\\mathrm{IHM}}$, more than 10 times" in fast


def test_gap_text_names_only_the_regimes_present():
    both = pd.DataFrame(
        {
            "k2_is_n": [True, False],
            "cells": [3, 5],
            "min_n": [512, 2048],
            "max_n": [1024, 8192],
            "ratio_min": [1.0, 2.0],
            "ratio_max": [1.5, 40.0],
            "ratio_median": [1.2, 9.0],
        }
    )
    text = ST.gap_text(both)
    assert text == (
        "FastIHM's gap to the most accurate private solver: where its SRHT keeps every row ($k_2 = n$), at 3 cells "
        "($n$ from $2^{9}$ to $2^{10}$), FastIHM's excess risk is 1.00 to 1.5 times the best private solver's "
        "(median 1.20); where its SRHT subsamples ($k_2 < n$), at 5 cells ($n$ from $2^{11}$ to $2^{13}$), FastIHM's "
        "excess risk is 2.00 to 40.0 times the best private solver's (median 9.00)."
    )
    assert "subsamples" not in ST.gap_text(both.iloc[:1])
    assert ST.gap_text(both.iloc[0:0]) == ""


def test_former_warning_text():
    assert ST.former_warning_text({"false_alarms": 2, "silent": 0}) == (
        "On these runs the warning's former rule ($\\eta^2 > 10\\, n/d$) fires at 2 cells where FastIHM is among the "
        "most accurate and is silent at 0 where it trails the best by more than 10 times."
    )


# --------------------------------------------------------------------------- the columns of the stored runs


def test_the_runs_table_keeps_its_columns_in_their_order():
    """The run_grid columns this study stores, as its stored entry holds them (the page reads them by name)."""
    from fastmix_companion.experiments import result_columns
    from fastmix_companion.store import ResultsStore
    from fastmix_companion.studies import solver_choice as study

    expected = [
        "dataset",
        "method",
        "ihm_sketch",
        "k2_ratio",
        "epsilon",
        "trial",
        "spawn_key",
        "n",
        "d",
        "T",
        "k",
        "k1",
        "k2",
        "delta",
        "rho",
        "runtime_s",
        "runtime_ns",
        "mse",
        "ols_mse",
        "excess_risk",
        "theta_error",
        "eta",
        "eps_spent",
        "delta_spent",
        "n_used",
        "rows_added",
    ]
    assert list(result_columns(study._KEEP_MEASURED)) == expected
    stored = ResultsStore(study.NOTEBOOK).path / "runs.csv"
    if stored.is_file():  # the committed entry: the cell key, then these columns
        header = stored.read_text(encoding="utf-8").splitlines()[0].split(",")
        assert header[1 : 1 + len(expected)] == expected
