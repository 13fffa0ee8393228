"""Tests for the Figure 2 study: its tables, and that each claim's rule can both hold and fail."""

import numpy as np
import pandas as pd
import pytest

from fastmix_companion.studies import figure2 as F
from fastmix_companion.studies import run_study

EPS = (0.316, 0.631, 1.259, 2.512, 5.012, 10.0)
RATIOS = (4.0, 400.0, 800.0)


def _tables(
    *,
    fast_level,
    ihm_level=1.0,
    eta_zero=lambda e, r: e >= 5 and r > 4,
    ihs_level=0.5,
    trials=30,
    seed=0,
    dense_level=None,
):
    """Synthetic stored tables: lognormal risks with the given geometric means (spread 0.3 on the log scale)."""
    rng = np.random.default_rng(seed)
    rows = []

    def add(method, eps, ratio, level, sketch=None, eta=np.nan):
        for t in range(trials):
            rows.append(
                {
                    "dataset": "synthetic_sphere",
                    "method": method,
                    "ihm_sketch": sketch,
                    "k2_ratio": ratio,
                    "epsilon": eps,
                    "trial": t,
                    "excess_risk": level * np.exp(0.3 * rng.standard_normal()),
                    "eta": eta,
                }
            )

    add("FastIHS", np.nan, np.nan, ihs_level)
    for e in EPS:
        add("IHM", e, np.nan, ihm_level, sketch="gram")
        for r in RATIOS:
            add("FastIHM", e, r, fast_level(e, r), eta=0.0 if eta_zero(e, r) else 5.0)
    add("IHM", 1.259, np.nan, ihm_level if dense_level is None else dense_level, sketch="dense")
    runs = pd.DataFrame(rows)
    info = pd.DataFrame([{"dataset": "synthetic_sphere", "n": 2**19, "d": 32, "lambda_min": 1e4, "lambda_max": 2e4}])
    calib = pd.DataFrame(
        [
            {
                "dataset": "synthetic_sphere",
                "epsilon": e,
                "ihm_sigma_gradient": 1.0,
                "fastihm_sigma_gradient": np.sqrt(2.1),
            }
            for e in EPS
        ]
    )
    return {"runs": runs, "datasets": info, "calibration": calib}


def _verdicts(tables):
    return {c.claim.split(": ", 1)[1]: c.holds for c in F.claims(tables, epsilons=",".join(map(str, EPS)))}


def paper_like(e, r):
    """Falls with k2, matches IHM (up to the budget factor) at the top, beats it at eps = 1.259 for r = 800."""
    if e >= 5 and r > 4:
        return 2.1
    if r == 800 and e == 1.259:
        return 0.5
    return {4.0: 50.0, 400.0: 10.0, 800.0: 3.0}[r] / e


def test_paper_like_results_make_every_claim_hold():
    v = _verdicts(_tables(fast_level=paper_like))
    assert v["the accuracy loss shrinks as k2 grows"] is True
    assert v["IHM through the Gram factor is IHM"] is True
    assert v["FastIHM adds no Hessian noise only at the two largest eps, for r2 and r3"] is True
    assert v["FastIHM (r = 800) matches IHM at eps = 10"] is True
    assert v["FastIHM beats IHM at some intermediate eps"] is True
    assert v["where it beats IHM, FastIHM matches the non-private FastIHS"] is True


def test_each_rule_can_fail():
    # a larger sketch that is worse, a large gap at the top, no win anywhere, and no noise-free cells
    v = _verdicts(
        _tables(
            fast_level=lambda e, r: {4.0: 5.0, 400.0: 20.0, 800.0: 20.0}[r],
            eta_zero=lambda e, r: False,
            dense_level=3.0,
        )
    )
    assert v["the accuracy loss shrinks as k2 grows"] is False
    assert v["IHM through the Gram factor is IHM"] is False
    assert v["FastIHM adds no Hessian noise only at the two largest eps, for r2 and r3"] is False
    assert v["FastIHM (r = 800) matches IHM at eps = 10"] is False
    assert v["FastIHM beats IHM at some intermediate eps"] is False


def test_too_few_trials_leave_claims_undecided():
    v = _verdicts(_tables(fast_level=lambda e, r: 2.1 * 1.5 if e >= 5 and r > 4 else 40.0 / r, trials=3, seed=3))
    assert v["FastIHM (r = 800) matches IHM at eps = 10"] is None


def test_an_incomplete_grid_is_reported_not_judged():
    t = _tables(fast_level=paper_like)
    t["runs"] = t["runs"][~((t["runs"]["method"] == "FastIHM") & (t["runs"]["epsilon"] == 10.0))]
    claims = F.claims(t, epsilons=",".join(map(str, EPS)))
    assert len(claims) == 1 and claims[0].holds is None and "5 of 6" in claims[0].measured


def test_budget_factor_is_the_gradient_variance_ratio():
    t = _tables(fast_level=paper_like)
    assert F.budget_factor(t["calibration"], "synthetic_sphere", 10.0) == pytest.approx(2.1)


def test_study_tables_and_columns_at_a_tiny_size():
    tables = run_study(
        "figure2_dp_ols",
        {
            "datasets": "synthetic_sphere,synthetic_correlated",
            "log2_n": 10,
            "d": 3,
            "trials": 2,
            "epsilons": "1.259,10",
            "k2_ratios": "4,40",
        },
        log=None,
    )
    runs = tables["runs"]
    for col in ("dataset", "method", "k2_ratio", "epsilon", "trial", "excess_risk", "eta", "runtime_s"):
        assert col in runs.columns
    # FastIHS once, IHM at each eps, the dense check, FastIHM at each eps and ratio; 2 trials each
    assert len(runs) == 2 * 2 * (1 + 2 + 1 + 2 * 2)
    assert set(runs.loc[runs["method"] == "IHM", "ihm_sketch"]) == {"gram", "dense"}
    assert (runs["excess_risk"] >= 0).all()
    assert set(tables["calibration"].columns) >= {
        "gamma_ihm",
        "gamma_fastihm",
        "ihm_sigma_gradient",
        "fastihm_sigma_gradient",
    }
    assert list(tables["datasets"]["dataset"]) == ["synthetic_sphere", "synthetic_correlated"]


def test_unavailable_real_data_is_skipped_with_the_reason_and_never_downloaded(monkeypatch):
    import socket

    def no_network(*args, **kwargs):
        raise AssertionError("the Figure 2 study tried to open a network connection")

    monkeypatch.setattr(socket, "create_connection", no_network)
    monkeypatch.setattr(socket.socket, "connect", no_network)
    tables = run_study(
        "figure2_dp_ols",
        {
            "datasets": "black_friday,synthetic_sphere",
            "log2_n": 9,
            "d": 2,
            "trials": 2,
            "epsilons": "10",
            "k2_ratios": "4,8",
            "dense_check_epsilon": 0.0,
        },
        log=None,
    )
    assert list(tables["skipped"]["dataset"]) == ["black_friday"]
    assert "not cached" in tables["skipped"]["reason"].iloc[0]


def test_reversals_name_the_cells_where_a_larger_sketch_is_worse_and_their_noise():
    assert F.reversals(_tables(fast_level=paper_like)["runs"], "synthetic_sphere") == []
    worse = _tables(
        fast_level=lambda e, r: {4.0: 0.01}.get(r, 1.0) if e == 10.0 else 10.0 / (r * e), eta_zero=lambda e, r: r > 4
    )
    rev = F.reversals(worse["runs"], "synthetic_sphere")
    assert [(x["epsilon"], x["smaller"], x["larger"]) for x in rev] == [(10.0, 4.0, 400.0)]
    assert rev[0]["ratio"].low > 1 and rev[0]["smaller_eta_positive"] == 1.0 and rev[0]["larger_eta_positive"] == 0.0
    assert rev[0]["smaller_eta_mean"] == 5.0 and rev[0]["larger_eta_mean"] == 0.0
