"""The theory pages' studies: Figure 1, Section 3, Appendix F and Appendix J.

Each study runs at tiny parameters and returns its documented tables and columns, resumes
from a store without computing anything new, and the committed store entry (when there is
one) was computed with the registry's paper-scale setting. The claims each page shows are
checked on the tiny results and on hand-made tables where the verdict is known.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from fastmix_companion import store as S
from fastmix_companion.claims import Claim
from fastmix_companion.run import load_paper_scale
from fastmix_companion.studies import run_study, study_module

TINY = {
    "section3_fastmix": {
        "log2_n": 10,
        "d": 8,
        "n_draws": 2,
        "log2_k2_min": 5,
        "log2_k2_max": 7,
        "paper_ratios": "4,400",
        "tiny_log2_n": 5,
        "tiny_d": 3,
        "tiny_k2": 16,
        "n_gamma": 2,
    },
    "appendix_f_coherence": {"log2_ns": "8,10", "n_draws": 3, "k_per_octave": 1},
    "appendix_j_statistics": {"log2_n": 9, "d": 4, "spread_log2_n": 9, "n_seeds": 2},
    "figure1_noise_scale": {"n_eps": 4, "c2_source": ""},
}

COLUMNS = {
    "section3_fastmix": {
        "sweep": [
            "design",
            "n",
            "d",
            "k2",
            "k2_ratio",
            "draw",
            "m_hat",
            "c2",
            "delta_hat",
            "lambda_min_z",
            "lambda_min_x",
            "lambda_ratio",
            "op_norm_x",
        ],
        "designs": ["design", "n", "d", "lambda_min_x", "lambda_max_x", "op_norm_x"],
        "accounting": ["gamma", "sigma", "eps_closed", "eps_tight", "eps_exact", "laplace_part"],
        "tiny": ["n", "d", "k2", "m_hat", "c2", "lambda_min_z", "delta_hat"],
    },
    "appendix_f_coherence": {
        "coherence": ["log2_n", "n", "k", "draw", "coherence", "welch", "heuristic", "upper_scale"],
        "reference": ["n", "k", "draw", "coherence", "authors_value"],
    },
    "appendix_j_statistics": {
        "statistics": [
            "dataset",
            "n",
            "d",
            "lambda_min",
            "lambda_max",
            "ols_mse",
            "y_sq_mean",
            "n_over_d",
            "max_row_norm",
            "max_abs_y",
            "last_step",
        ],
        "spread": ["design", "seed", "n", "d", "lambda_min", "lambda_max", "ols_mse", "y_sq_mean", "signal_var"],
    },
    "figure1_noise_scale": {
        "c2_used": ["source", "state", "design", "k2", "k2_ratio", "n_draws", "c2_mean", "c2_low", "c2_high"],
        "curves": ["n", "delta", "lambda_min_x", "lambda_min_f", "curve", "design", "c2", "epsilon", "sigma"],
    },
}
NAMES = sorted(TINY)


@pytest.fixture(scope="module")
def tiny_tables():
    return {name: run_study(name, TINY[name], log=None) for name in NAMES}


@pytest.mark.parametrize("name", NAMES)
def test_run_returns_the_documented_tables(name, tiny_tables):
    tables = tiny_tables[name]
    for table, columns in COLUMNS[name].items():
        assert table in tables, f"{name} returned no table {table!r}"
        frame = tables[table]
        assert len(frame) > 0, f"{name}/{table} is empty"
        missing = sorted(set(columns + ["cell"]) - set(frame.columns))
        assert not missing, f"{name}/{table} lacks columns {missing}"


@pytest.mark.parametrize("name", NAMES)
def test_a_second_run_with_the_store_computes_no_new_cell(name, tmp_path):
    st = S.ResultsStore(name, tmp_path)
    first = run_study(name, TINY[name], store=st, log=None)
    assert S.entry_status(name, tmp_path).state == "complete"
    record = st.provenance()
    computed = []
    second = run_study(name, TINY[name], store=st, log=computed.append)
    assert computed == [], f"{name} recomputed stored cells: {computed}"
    assert st.provenance() == record
    for table in COLUMNS[name]:
        pd.testing.assert_frame_equal(
            first[table].reset_index(drop=True), second[table].reset_index(drop=True), check_dtype=False
        )


def test_stored_and_in_memory_runs_agree(tmp_path, tiny_tables):
    """Seeds depend on the cell, not on the order of computation: a stored run equals the live one."""
    name = "section3_fastmix"
    stored = run_study(name, TINY[name], store=S.ResultsStore(name, tmp_path), log=None)["sweep"]
    memory = tiny_tables[name]["sweep"]
    cols = ["cell", "design", "k2", "draw", "m_hat", "lambda_min_z"]
    pd.testing.assert_frame_equal(
        memory[cols].reset_index(drop=True), stored[cols].reset_index(drop=True), check_dtype=False, rtol=1e-10
    )


@pytest.mark.parametrize("name", NAMES)
def test_stored_entry_parameters_are_the_registry_setting(name):
    st = S.ResultsStore(name)
    if not st.exists():
        pytest.skip(f"results/{name}/ is not computed yet")
    registry = load_paper_scale()
    assert name in registry, f"{name} has a store entry but no paper-scale entry"
    expected = {**study_module(name).DEFAULTS, **registry[name]["parameters"]}
    assert S.parameters_differ(st.parameters(), expected) == {}


@pytest.mark.parametrize("name", NAMES)
def test_registry_lists_every_parameter_of_the_study(name):
    """The paper-scale setting is spelled out in full, so a change of a notebook default cannot change it."""
    params = load_paper_scale()[name]["parameters"]
    assert set(params) == set(study_module(name).DEFAULTS), sorted(set(study_module(name).DEFAULTS) ^ set(params))


# --------------------------------------------------------------------------- section 3


def test_section3_paper_sizes_that_fall_on_the_grid_get_their_own_cells():
    from fastmix_companion.studies.section3 import k2_values, paper_k2

    params = {**study_module("section3_fastmix").DEFAULTS, "log2_n": 19, "d": 32, "log2_k2_max": 18}
    values = k2_values(params)
    assert paper_k2(2**19, 32, 4) == 128 and paper_k2(2**19, 32, 800) == 25600
    suffixes = [v[2] for v in values]
    assert len(suffixes) == len(set(suffixes))
    assert ("k2=128|r=4" in suffixes) and ("k2=128" in suffixes)
    ratios = sorted(v[1] for v in values if v[1] is not None)
    assert ratios == [4.0, 400.0, 800.0]


def test_section3_measures_what_sketch_quantities_gives(tiny_tables):
    from fastmix.srht import SRHT, sketch_quantities
    from fastmix_companion.studies.section3 import _design

    sweep = tiny_tables["section3_fastmix"]["sweep"]
    row = sweep[(sweep["design"] == "synthetic_correlated") & (sweep["k2"] == 64) & (sweep["draw"] == 1)].iloc[0]
    _, XF = _design("synthetic_correlated", 1, 2**10, 8, 0)
    q = sketch_quantities(XF, SRHT(2**10, 64, random_state=np.random.SeedSequence(0, spawn_key=(1, 64, 1))))
    assert row["m_hat"] == pytest.approx(q.m_hat, rel=1e-12)
    assert row["c2"] == pytest.approx(1 + 2 * q.m_hat, rel=1e-12)


def test_log_slope_interval_recovers_a_power_law_and_rejects_too_few_points():
    from fastmix_companion.studies.section3 import log_slope_interval

    rng = np.random.default_rng(1)
    x = np.repeat(2.0 ** np.arange(4, 12), 20)
    y = 3.0 * x**-0.5 * np.exp(0.05 * rng.standard_normal(x.size))
    iv = log_slope_interval(x, y)
    assert iv.low < -0.5 < iv.high and iv.high - iv.low < 0.05
    with pytest.raises(ValueError, match="three points"):
        log_slope_interval([1, 1, 1], [1, 2, 3])


def _fake_sweep(c2: float, lam_ratio: float, slope: float = -0.5) -> dict:
    rows = []
    for design in ("synthetic_sphere", "synthetic_correlated"):
        for k2, ratio in [(32, None), (64, None), (128, None), (12800, 400.0), (25600, 800.0)]:
            for draw in range(5):
                jitter = 1 + 0.01 * (draw - 2)
                m = 50 * (k2 / 32) ** slope * jitter if ratio is None else (c2 - 1) / 2 * jitter
                rows.append(
                    {
                        "design": design,
                        "n": 2**19,
                        "d": 32,
                        "k2": k2,
                        "k2_ratio": ratio,
                        "draw": draw,
                        "m_hat": m,
                        "c2": 1 + 2 * m,
                        "delta_hat": 0.03,
                        "lambda_min_z": lam_ratio * jitter,
                        "lambda_min_x": 1.0,
                        "lambda_ratio": lam_ratio * jitter,
                    }
                )
    return {"sweep": pd.DataFrame(rows)}


def test_section3_claims_can_hold_and_can_fail():
    from fastmix_companion.studies.section3 import claims

    good = {c.claim: c for c in claims(_fake_sweep(c2=1.5, lam_ratio=0.95))}
    bad = {c.claim: c for c in claims(_fake_sweep(c2=10.0, lam_ratio=0.6, slope=-0.2))}
    assert set(good) == set(bad) and len(good) == 6
    assert all(c.holds is True for c in good.values())
    assert all(c.holds is False for c in bad.values())


def test_section3_claims_on_the_tiny_run_are_claims(tiny_tables):
    from fastmix_companion.studies.section3 import claims

    out = claims(tiny_tables["section3_fastmix"])
    assert out and all(isinstance(c, Claim) and c.holds in (True, False, None) for c in out)
    theorem = [c for c in out if c.claim.startswith("Theorem 1")]
    assert theorem and theorem[0].holds is True  # the exact loss of a draw never exceeds the bound


# --------------------------------------------------------------------------- figure 1


def _section3_entry(root, c2_values):
    st = S.ResultsStore("section3_fastmix", root)
    with st.sitting({"x": 1}):
        rows = [
            {
                "design": "synthetic_sphere",
                "n": 2**19,
                "d": 32,
                "k2": 25600,
                "k2_ratio": 800.0,
                "draw": i,
                "c2": c,
                "lambda_ratio": 0.9,
            }
            for i, c in enumerate(c2_values)
        ]
        rows.append(
            {
                "design": "synthetic_sphere",
                "n": 2**19,
                "d": 32,
                "k2": 128,
                "k2_ratio": 4.0,
                "draw": 0,
                "c2": 99.0,
                "lambda_ratio": 0.5,
            }
        )
        st.add_cell("sweep", "all", rows)
    return st


def test_figure1_reads_the_measured_c2_of_section3(tmp_path, monkeypatch):
    from fastmix_companion.studies.figure1 import measured_c2

    _section3_entry(tmp_path, [4.0, 4.2, 4.4])
    row = measured_c2("section3_fastmix", "synthetic_sphere", 800.0, root=tmp_path)
    assert row["k2"] == 25600 and row["n_draws"] == 3
    assert row["c2_mean"] == pytest.approx(4.2) and row["c2_low"] < 4.2 < row["c2_high"]
    assert row["c2_min"] == 4.0 and row["c2_max"] == 4.4
    assert measured_c2("section3_fastmix", "synthetic_correlated", 800.0, root=tmp_path)["state"] == "missing"
    assert measured_c2("", "synthetic_sphere", 800.0, root=tmp_path)["state"] == "missing"

    monkeypatch.setenv(S.ENV_RESULTS_DIR, str(tmp_path))
    tables = run_study("figure1_noise_scale", {"n_eps": 4, "c2_designs": "synthetic_sphere"}, log=None)
    measured = tables["curves"][tables["curves"]["curve"] == "fastmix_measured"]
    assert np.allclose(measured["c2"], 4.2)
    # a larger row bound needs more noise at every target (where any is needed)
    fixed = tables["curves"][tables["curves"]["curve"] == "fastmix_c2"]
    assert np.all(measured["sigma"].to_numpy() >= fixed["sigma"].to_numpy() - 1e-9)


def test_figure1_without_a_measurement_draws_the_fixed_curves_only(tiny_tables):
    tables = tiny_tables["figure1_noise_scale"]
    assert set(tables["c2_used"]["state"]) == {"missing"}
    assert "fastmix_measured" not in set(tables["curves"]["curve"])
    assert {"fastmix_c2", "fastmix_unbounded", "gaussmix", "upadhyay", "upadhyay_free"} <= set(
        tables["curves"]["curve"]
    )
    from fastmix_companion.studies.figure1 import claims

    # the C^2 = 2 check lives on the Section 3 page; without a measured C^2, Figure 1 checks the fixed curves only
    out = claims(tables)
    assert not [c for c in out if c.claim.startswith("C^2 = 2")]
    assert all("measured" not in c.claim for c in out)


def test_figure1_variance_ratio_counts_zero_noise_as_infinite():
    from fastmix_companion.studies.figure1 import variance_ratios

    rows = []
    for eps, s_u, s_f in [(0.1, 100.0, 2.0), (1.0, 50.0, 0.0), (10.0, 0.0, 0.0)]:
        rows += [
            {"n": 10, "curve": "upadhyay_free", "design": None, "c2": math.nan, "epsilon": eps, "sigma": s_u},
            {"n": 10, "curve": "fastmix_c2", "design": None, "c2": 2.0, "epsilon": eps, "sigma": s_f},
        ]
    r = variance_ratios(pd.DataFrame(rows)).iloc[0]
    assert r["points"] == 2 and r["zero_points"] == 1
    assert r["min"] == pytest.approx(2500.0) and math.isinf(r["median"])


# --------------------------------------------------------------------------- appendix F and J


def test_appendix_f_welch_claim_holds_on_real_draws_and_fails_on_a_broken_table(tiny_tables):
    from fastmix_companion.studies.appendix_f import claims

    tables = tiny_tables["appendix_f_coherence"]
    assert claims(tables)[0].holds is True
    broken = dict(tables)
    broken["coherence"] = tables["coherence"].assign(coherence=tables["coherence"]["welch"] * 0.5)
    assert claims(broken)[0].holds is False


def test_appendix_f_reference_claim_uses_the_percentile():
    from fastmix_companion.studies.appendix_f import claims

    coh = pd.DataFrame(
        [
            {
                "log2_n": 8,
                "n": 256,
                "k": 16,
                "draw": 0,
                "coherence": 0.5,
                "welch": 0.2,
                "heuristic": 0.5,
                "upper_scale": 1.0,
            }
        ]
    )
    ref = pd.DataFrame(
        [{"n": 2**17, "k": 280, "draw": r, "coherence": 0.20 + 0.001 * r, "authors_value": 0.26} for r in range(20)]
    )
    name = "The authors' coherence at n = 2^17, k = 280 is a typical draw"
    # above every one of 20 draws: rank p-value 2/21 > 0.05, too few draws to decide; of 100 draws: 2/101
    assert {c.claim: c for c in claims({"coherence": coh, "reference": ref})}[name].holds is None
    many = pd.DataFrame(
        [{"n": 2**17, "k": 280, "draw": r, "coherence": 0.20 + 0.0005 * r, "authors_value": 0.26} for r in range(100)]
    )
    assert {c.claim: c for c in claims({"coherence": coh, "reference": many})}[name].holds is False
    middle = ref.assign(authors_value=0.2095)
    assert {c.claim: c for c in claims({"coherence": coh, "reference": middle})}[name].holds is True


def test_appendix_j_percentiles_locate_the_papers_values():
    from fastmix.datasets import PAPER_STATISTICS
    from fastmix_companion.studies.appendix_j import claims, percentile_table

    paper = PAPER_STATISTICS["synthetic_sphere"]
    rows = [
        {
            "design": "synthetic_sphere",
            "seed": s,
            "lambda_min": paper["lambda_min"] * (0.9 + 0.01 * s),
            "lambda_max": paper["lambda_max"] * (2.0 + 0.01 * s),
            "ols_mse": paper["ols_mse"],
            "y_sq_mean": paper["y_sq_mean"] * (0.95 + 0.005 * s),
        }
        for s in range(21)
    ]
    table = percentile_table(pd.DataFrame(rows)).set_index("statistic")
    assert table.loc["lambda_min", "percentile"] == pytest.approx(100 * 10.5 / 21)
    assert table.loc["lambda_max", "percentile"] == 0.0
    verdicts = {
        c.claim.split("the paper's ")[1].rsplit(" a typical draw")[0].rsplit(" ", 1)[0]: c.holds
        for c in claims({"spread": pd.DataFrame(rows)})
    }
    # lambda_min and lambda_max are one check (they move together); lambda_max at percentile 0 fails it
    assert verdicts == {"eigenvalues": False, "OLS residual": True, "mean squared response": True}
    few = claims({"spread": pd.DataFrame(rows[:5])})
    assert all(c.holds is None for c in few)
