"""The sentences and claims of the kernel rates page (studies.kernel_rates, kernel_rates_text), on hand-made tables."""

import json
import math
from pathlib import Path

import pandas as pd

from fastmix_companion.claims import DOES_NOT_HOLD, HOLDS, HOLDS_IN_DIRECTION, NOT_COMPARABLE, UNDECIDED, verdict_counts
from fastmix_companion.studies import kernel_rates as rates
from fastmix_companion.studies import kernel_rates_text as KT

P = {
    "d": 1,
    "target": "rkhs",
    "delta": 1e-5,
    "epsilon": 1.0,
    "n_fixed": 100,
    "n_values": "100,400",
    "eps_values": "1,10",
    "n_reps": 3,
}


def _runs(reps=3):
    rows = []
    for sweep, points in (("n", [(100, 1.0), (400, 1.0)]), ("epsilon", [(100, 1.0), (100, 10.0)])):
        for n, eps in points:
            for method in ("RP", "RFF"):
                for rep in range(reps if (sweep, n, eps) != ("n", 400, 1.0) else 2):
                    rows.append({"sweep": sweep, "n": n, "epsilon": eps, "method": method, "rep": rep})
    return pd.DataFrame(rows)


def _slopes(dropped=0):
    return pd.DataFrame(
        [
            {
                "sweep": "n",
                "method": "RP",
                "quantity": "privacy cost",
                "slope": -1.02,
                "low": -1.3,
                "high": -0.7,
                "theory": -1.0,
                "dropped": dropped,
            },
            {
                "sweep": "n",
                "method": "RP",
                "quantity": "risk",
                "slope": -0.5,
                "low": -0.6,
                "high": -0.4,
                "theory": math.nan,
                "dropped": 0,
            },
        ]
    )


def test_settings_and_when_the_run_is_partial():
    assert KT.rates_setting(_runs(), P) == (
        "$d = 1$, target rkhs, $\\delta = 10^{-5}$; $n \\in \\{100, 400\\}$ at $\\varepsilon = 1$ and "
        "$\\varepsilon \\in \\{1, 10\\}$ at $n = 100$, 3 repetitions per point"
    )
    partial = KT.stored_setting_text(_runs(), P)
    assert partial.startswith("Setting: $d = 1$, target `rkhs`, $\\delta = 10^{-5}$, $n \\in \\{100, 400\\}$ at ")
    assert partial.endswith("exact Gaussian-process paths, 2-3 of 3 repetitions per point - **the run is partial**.")
    assert KT.stored_setting_text(_runs(), {**P, "n_reps": 2}).endswith("2-3 of 2 repetitions per point.")


def test_slopes_table_and_text_and_the_dropped_note_flips():
    lines = KT.slopes_markdown(_slopes()).splitlines()
    assert lines[2] == "| n | RP | privacy cost | -1.02 [-1.30, -0.70] | -1.00 |"
    assert lines[3] == "| n | RP | risk | -0.50 [-0.60, -0.40] | - |"
    assert KT.slopes_text(_slopes()) == "Fitted slopes of the mean privacy cost: RP -1.02 [-1.30, -0.70] against n."
    assert KT.slopes_text(_slopes(dropped=2)).endswith(
        " 2 point(s) whose mean privacy cost was not positive (noise that happened to regularise) are left out of "
        "the fits that need logarithms."
    )


def test_log_factor_text():
    # 2 / mean(ln 100, ln 10000) = 2 / (1.5 ln 100) = 0.29
    assert "$2/\\overline{\\ln n} = 0.29$ over this range of $n$" in KT.log_factor_text("100,10000")
    assert KT.log_factor_text("100,10000").endswith(
        "The decision rules do not allow for it: a slope shallower than the exponent is left undecided, since over a "
        "finite range it cannot refute a bound with an unknown constant."
    )


# --------------------------------------------------------------------------- the page's claims (kernel_rates)

PARAMS = {"n_values": "250,500,1000,2000,4000", "c_m": 1.0, "c_lam": 1.0}


def _claim_slopes(rp, rff, width=0.05):
    rows = []
    for sweep in ("n", "epsilon"):
        for method, slope, theory in (("RP", rp, -1.0), ("RFF", rff, -2.0 / 3.0)):
            rows.append(
                {
                    "sweep": sweep,
                    "method": method,
                    "quantity": "privacy cost",
                    "slope": slope,
                    "low": slope - width,
                    "high": slope + width,
                    "points": 5,
                    "dropped": 0,
                    "reps": 40,
                    "theory": theory,
                }
            )
    return pd.DataFrame(rows)


def _verdicts(slopes, **kw):
    return {c.claim: c.verdict for c in rates.claims(slopes, **kw)}


def test_rate_claims_name_their_theorem_and_the_ordering_is_ours():
    claims = rates.claims(_claim_slopes(-1.2, -0.8), parameters=PARAMS)
    assert len(claims) == 6 and all(c.verdict == HOLDS for c in claims)
    where = {c.claim: str(c.source) for c in claims}
    assert where["RP: privacy cost against n"] == "kernel paper, Theorem 3"
    assert where["RFF: privacy cost against epsilon"] == "kernel paper, Theorem 6 with alpha = 1"
    ordering = [c for c in claims if c.claim.startswith("RP's measured privacy cost falls faster")]
    assert len(ordering) == 2 and all(
        c.source.is_ours and "cannot order measured slopes" in str(c.source) for c in ordering
    )


def test_a_slope_shallower_than_the_exponent_is_undecided_not_a_failure():
    # an O(.) bound with an unknown constant cannot be refuted by a slope over a finite range
    slow = _verdicts(_claim_slopes(-0.5, -0.3), parameters=PARAMS)
    assert slow["RP: privacy cost against n"] == UNDECIDED
    assert slow["RFF: privacy cost against epsilon"] == UNDECIDED
    assert slow["RP's measured privacy cost falls faster than RFF's (against n)"] == HOLDS
    assert "this rule cannot fail" in rates.claims(_claim_slopes(-0.5, -0.3))[0].rule


def test_no_allowance_is_added_to_the_exponent():
    # slope -0.8 [-0.85, -0.75] lies above -1 against n as against epsilon: undecided on both sweeps
    v = _verdicts(_claim_slopes(-0.8, -0.8), parameters=PARAMS)
    assert v["RP: privacy cost against n"] == v["RP: privacy cost against epsilon"] == UNDECIDED
    rule = rates.claims(_claim_slopes(-0.8, -0.8), parameters=PARAMS)[0].rule
    assert "reaches -1.00 or lies below it" in rule and "log^2" not in rule
    assert _verdicts(_claim_slopes(-1.2, -0.8), parameters=PARAMS)["RP: privacy cost against n"] == HOLDS


def test_a_slope_far_steeper_than_the_exponent_is_consistent_with_the_bound_and_its_size_is_not_judged():
    # an upper bound's exponent gives no size to reproduce: 2.5 times the exponent is reported, not judged
    v = _verdicts(_claim_slopes(-2.5, -0.7), parameters=PARAMS)
    assert v["RP: privacy cost against epsilon"] == HOLDS
    assert v["RFF: privacy cost against epsilon"] == HOLDS
    c = rates.claims(_claim_slopes(-2.5, -0.7))[0]
    assert not c.magnitudes and "slope / exponent 2.50" in c.measured and "reported, not judged" in c.rule


def test_a_run_with_many_floored_eigenvalues_is_not_the_estimator_the_theorem_bounds():
    slopes = _claim_slopes(-1.2, -0.7)
    few = rates.claims(slopes, floored={("epsilon", "RP"): 0.01})
    many = rates.claims(slopes, floored={("epsilon", "RP"): 0.47})
    name = "RP: privacy cost against epsilon"
    assert next(c for c in few if c.claim == name).verdict == HOLDS
    c = next(c for c in many if c.claim == name)
    assert c.verdict == NOT_COMPARABLE and "not the one the theorem bounds" in str(c.setting)
    assert "not comparable because the private estimator departs" in KT.claims_text(many)
    assert "departs" not in KT.claims_text(few)


def test_ordering_is_undecided_when_level_and_fails_when_reversed():
    assert _verdicts(_claim_slopes(-1.0, -1.02))["RP's measured privacy cost falls faster than RFF's (against n)"] == (
        UNDECIDED
    )
    reversed_ = _verdicts(_claim_slopes(-0.7, -1.5))
    assert reversed_["RP's measured privacy cost falls faster than RFF's (against epsilon)"] == DOES_NOT_HOLD


def test_capped_points_are_left_out_and_said_so():
    runs = pd.DataFrame(
        {
            "sweep": ["epsilon"] * 4 + ["n"] * 2,
            "method": ["RFF", "RFF", "RP", "RP", "RFF", "RFF"],
            "n": [100] * 4 + [100, 200],
            "epsilon": [1.0, 10.0, 1.0, 10.0, 1.0, 1.0],
            "M_capped": [False, True, False, False, False, False],
        }
    )
    capped = rates.capped_points(runs)
    assert capped == {("epsilon", "RFF"): [10.0]}
    claims = {c.claim: c for c in rates.claims(_claim_slopes(-1.2, -0.8), capped=capped)}
    assert "the theory's M is capped at eps = 10 (points outside the theorem's setting)" in str(
        claims["RFF: privacy cost against epsilon"].setting
    )
    assert "RFF's M capped at eps = 10 (fitted on every point)" in str(
        claims["RP's measured privacy cost falls faster than RFF's (against epsilon)"].setting
    )


def test_claims_text_counts_verdicts_and_flips():
    good = KT.claims_text(rates.claims(_claim_slopes(-1.2, -0.8), parameters=PARAMS))
    assert good == (
        "Of the 4 checks of the kernel paper's bounds on the privacy cost (Theorem 3; Theorem 6 with alpha = 1): "
        "holds: 4. Whether RP's measured privacy cost falls faster than RFF's is our own question (the paper orders "
        "only its bounds, in the discussion after Theorem 6): against n: holds; against epsilon: holds."
    )
    bad = KT.claims_text(rates.claims(_claim_slopes(-0.5, -0.3), parameters=PARAMS))
    assert "(Theorem 3; Theorem 6 with alpha = 1): holds: 0" not in bad
    assert "undecided: 4." in bad and "against n: holds" in bad
    assert KT.claims_text([]) == ""


def test_stored_claims_on_the_committed_results():
    folder = Path(__file__).resolve().parent.parent / "results" / "kernel_rates"
    tables = {"runs": pd.read_csv(folder / "runs.csv")}
    params = json.loads((folder / "parameters.json").read_text(encoding="utf-8"))["parameters"]
    claims = rates.stored_claims(tables, params)
    assert claims and all(c.source is not None for c in claims)
    # about half the eigenvalues are floored at every point: the bounds' checks are not comparable
    assert verdict_counts(claims) == {
        HOLDS: 0,
        HOLDS_IN_DIRECTION: 0,
        NOT_COMPARABLE: 4,
        UNDECIDED: 1,
        DOES_NOT_HOLD: 1,
    }
    floored = str(next(c for c in claims if c.claim == "RP: privacy cost against n").setting)
    assert "of the eigenvalues of C~ + lambda I lie below lambda (negative eigenvalues of the released C~)" in floored


def test_smoke_sizes_names_the_quick_run_sizes():
    out = KT.smoke_sizes({"n_values": "200,400,800", "eps_values": "0.3,1,3", "n_reps": 2})
    assert out == "$n \\in \\{200, 400, 800\\}$, $\\varepsilon \\in \\{0.3, 1, 3\\}$, 2 repetitions per point"
