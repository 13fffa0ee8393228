"""The sentences of the Figure 1 page (fastmix_companion.studies.figure1_text), on small hand-made tables."""

import numpy as np
import pandas as pd

from fastmix_companion.claims import Claim
from fastmix_companion.store import ResultsStore
from fastmix_companion.studies import figure1 as F
from fastmix_companion.studies import figure1_text as FT

EPS = (0.1, 1.0, 10.0)
P = {"k": 64, "d": 10, "delta_exponent": 2.0, "n_eps": 3, "eps_min": 0.1, "eps_max": 10.0, "c2": 2.0}


def _curves(measured=(4.0, 2.0, 0.0), n=10_000):
    """sigma per target: Upadhyay 10x FastMix C^2 = 2 (1, 0.5, 0), GaussMix 0.9x, the measured C^2 = 4 curve given."""
    rows = []
    base = (1.0, 0.5, 0.0)
    for curve, design, c2, sig in (
        ("upadhyay", None, np.nan, [10 * b + 1 for b in base]),
        ("upadhyay_free", None, np.nan, [10 * b + 0.5 for b in base]),
        ("fastmix_c2", None, 2.0, base),
        ("gaussmix", None, np.nan, [0.9 * b for b in base]),
        ("fastmix_measured", "synthetic_sphere", 4.0, measured),
    ):
        for e, s in zip(EPS, sig, strict=True):
            rows.append({"n": n, "curve": curve, "design": design, "c2": c2, "epsilon": e, "sigma": s})
    return pd.DataFrame(rows)


def _c2_used(tmp_path):
    store = ResultsStore("sec3", tmp_path)
    store.start({"seed": 0})
    sweep = pd.DataFrame(
        {
            "design": ["synthetic_sphere"] * 2,
            "k2_ratio": [800.0, 800.0],
            "c2": [3.9, 4.1],
            "n": [2**16] * 2,
            "d": [32] * 2,
            "k2": [25600] * 2,
            "lambda_ratio": [0.9, 0.92],
            "cell": ["a", "b"],
        }
    )
    store.put_table("sweep", sweep)
    used = pd.DataFrame([F.measured_c2("sec3", "synthetic_sphere", 800.0, root=tmp_path)])
    missing = pd.DataFrame([F.measured_c2("", "synthetic_correlated", 800.0)])
    return pd.concat([used, missing], ignore_index=True)


def _claim(holds, name):
    return Claim(claim=name, paper="Figure 1", measured="x", rule="y", holds=holds)


def test_panels_and_setting():
    assert FT.panels_text(pd.DataFrame({"n": [1e4, 1e5]})) == "$n = 10^{4}$ (left) and $n = 10^{5}$ (right)"
    assert FT.panels_text(pd.DataFrame({"n": [1e4]})) == "$n = 10^{4}$"
    assert FT.setting_text(P).startswith("$k = 64$ Gaussian rows, $d = 10$, $\\delta = n^{-2}$")


def test_stored_setting_says_when_the_section3_entry_changed(tmp_path):
    used = _c2_used(tmp_path)
    same = FT.stored_setting_text({"c2_used": used}, P, root=tmp_path)
    assert same.startswith("Setting: $d = 10$, $k = 64$ Gaussian rows, $\\delta = n^{-2}$, 3 targets from 0.1 to 10.")
    assert "The measured $C^2$ comes from `results/sec3/`" in same and "which is 4 [" in same
    assert "has changed" not in same
    assert same.endswith("No Section 3 measurement was stored for: synthetic_correlated.")
    changed = used.assign(c2_mean=[3.0, np.nan])
    assert "**The Section 3 entry has changed since this figure was computed**" in FT.stored_setting_text(
        {"c2_used": changed}, P, root=tmp_path
    )


def test_findings_tally_weakest_reduction_and_the_cost_of_the_measured_c2():
    text = FT.findings_text({"curves": _curves()}, [_claim(True, "a"), _claim(False, "b"), _claim(False, "c")])
    assert text.startswith("Of the 3 checks, 1 hold and 2 do not (b; c).")
    assert "The smallest median reduction against the constant-free Upadhyay form is " in text
    assert (
        "For $n = 10000$, with the sphere design's $C^2 = 4$ FastMix needs 16 to 16 times the variance of the "
        "$C^2 = 2$ curve where both need noise, and needs none from $\\varepsilon = 10$ on (the $C^2 = 2$ curve "
        "needs none from $\\varepsilon = 10$ on)." in text
    )


def test_findings_say_when_the_measured_curve_needs_noise_at_every_target():
    text = FT.findings_text({"curves": _curves(measured=(4.0, 2.0, 1.0))}, [])
    assert "and needs some at every target (the $C^2 = 2$ curve needs none from $\\varepsilon = 10$ on)" in text


def test_sigma_table():
    t = FT.sigma_table(_curves())
    row = t[t["curve"] == F.curve_label("fastmix_c2", None, 2.0)].iloc[0]
    assert row["sigma at eps=1"] == 0.5 and row["sigma > 0 up to eps"] == 1.0 and "sigma at eps=0.01" not in t


def test_measured_c2_text_and_the_gaussmix_comparison_flips(tmp_path):
    used = _c2_used(tmp_path)
    text = FT.measured_c2_text({"c2_used": used, "curves": _curves()}, P)
    assert "is 2 times the caption's $C^2 = 2$ on the sphere design." in text
    assert "With $C^2 = 2$, FastMix needs 1.23 to 1.23 times GaussMix's variance where both need noise." in text
    assert text.endswith("the same Section 3 draws keep 0.910 of $\\lambda_{\\min}(X)$.")
    never = _curves()
    never.loc[never["curve"] == "gaussmix", "sigma"] = 0.0
    assert "GaussMix's variance" not in FT.measured_c2_text({"c2_used": used, "curves": never}, P)
