"""The sentences of the Figure 1 page (fastmix_companion.studies.figure1_text), on small hand-made tables."""

import numpy as np
import pandas as pd
from conftest import committed_entry

from fastmix_companion.claims import DOES_NOT_HOLD, HOLDS, UNDECIDED, Claim, Source, fastmix_paper, verdict_counts
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


PAPER = fastmix_paper("Section 3")
OURS_C2 = Source(None, "Figure 1 caption's illustrative C^2 = 2")


def _claim(holds, name, source=None):
    return Claim(claim=name, paper="Figure 1", measured="x", rule="y", holds=holds, source=source)


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
    checks = [_claim(True, "a"), _claim(False, "b", OURS_C2), _claim(False, "c", PAPER)]
    text = FT.findings_text({"curves": _curves()}, checks)
    assert text.startswith(
        "Of the 3 checks, 1 test claims of the FastMix paper (does not hold: 1), 1 answer questions of our own "
        "(does not hold: 1) and 1 do not say whose claim they test (holds: 1). Claims of the paper whose verdict is "
        "not 'holds': c (FastMix paper, Section 3): does not hold. Our own questions whose verdict is not 'holds': "
        "b (ours: Figure 1 caption's illustrative C^2 = 2): does not hold.\n\n"
    )
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


# --------------------------------------------------------------------------- claims and their verdicts


def _tables(c2_values=(1.5, 1.6, 1.7), fastmix_sigma=(1.0, 0.5, 0.0), tmp_path=None):
    """Figure 1 tables: a Section 3 entry with the given C^2 draws and the curves of ``_curves``, FastMix scaled."""
    used = pd.DataFrame([F.measured_c2("sec3", "synthetic_sphere", 800.0, root=tmp_path)])
    curves = _curves().copy()
    for curve in ("fastmix_c2", "fastmix_measured"):
        curves.loc[curves["curve"] == curve, "sigma"] = list(fastmix_sigma)
    curves["delta"] = 1e-8
    curves["lambda_min_x"] = curves["n"] / 80.0
    return {"c2_used": used, "curves": curves}


def _section3(tmp_path, c2_values):
    store = ResultsStore("sec3", tmp_path)
    store.start({"seed": 0})
    store.put_table(
        "sweep",
        pd.DataFrame(
            {
                "design": ["synthetic_sphere"] * len(c2_values),
                "k2_ratio": [800.0] * len(c2_values),
                "c2": list(c2_values),
                "n": [2**16] * len(c2_values),
                "d": [32] * len(c2_values),
                "k2": [25600] * len(c2_values),
                "lambda_ratio": [0.9] * len(c2_values),
                "cell": [str(i) for i in range(len(c2_values))],
            }
        ),
    )


def test_the_caption_c2_is_checked_on_the_section3_page_only(tmp_path):
    _section3(tmp_path, (9.9, 10.0, 10.1))
    out = F.claims(_tables(tmp_path=tmp_path), parameters={"k": 64})
    assert out and not [c for c in out if c.claim.startswith("C^2 = 2")]
    assert not [c for c in out if c.source == OURS_C2]


def test_the_unbounded_curve_says_its_margin_depends_on_our_k(tmp_path):
    _section3(tmp_path, (4.0, 4.1))
    tables = _tables(tmp_path=tmp_path)
    c2 = tables["curves"][tables["curves"]["curve"] == "fastmix_c2"]
    tables["curves"] = pd.concat([tables["curves"], c2.assign(curve="fastmix_unbounded", c2=np.inf)])
    out = {c.claim: c for c in F.claims(tables, parameters={"k": 64})}
    unbounded = out["sigma^2 more than 100 times below Upadhyay's: FastMix, C^2 -> inf"]
    assert unbounded.source == out["sigma^2 more than 100 times below Upadhyay's: FastMix, C^2 = 2"].source
    assert unbounded.setting.comparable and unbounded.setting.differences[-1] == (
        "the margin over 100 depends on the Gaussian rows: k = 64 is our choice, which the caption does not fix "
        "(fewer rows narrow the margin, more widen it)"
    )
    assert unbounded.verdict == HOLDS
    assert "margin" not in str(out["sigma^2 more than 100 times below Upadhyay's: FastMix, C^2 = 2"].setting)


def test_reduction_claims_say_whose_claim_and_the_setting_and_can_fail(tmp_path):
    _section3(tmp_path, (4.0, 4.1))
    good = {c.claim: c for c in F.claims(_tables(tmp_path=tmp_path), parameters={"k": 64})}
    paper = good["sigma^2 more than 100 times below Upadhyay's: FastMix, C^2 = 2"]
    assert str(paper.source).startswith("FastMix paper, Section 3, 'Comparison to Existing Literature'")
    assert paper.setting.comparable and paper.setting.differences[0].startswith(
        "d = 10, k = 64 Gaussian rows and delta = n^-2 are our choices"
    )
    assert paper.verdict == HOLDS  # Upadhyay's free form is 10.5 / 1 -> 110 times at eps = 0.1, inf at 10
    measured = next(c for c in good.values() if "measured C^2" in c.claim)
    assert measured.source.is_ours and "measured at n = 65536, d = 32" in measured.setting.differences[-1]
    close = F.claims(_tables(fastmix_sigma=(5.0, 5.0, 5.0), tmp_path=tmp_path))
    assert close[0].verdict == DOES_NOT_HOLD and close[0].source == paper.source


def test_stored_claims_on_the_committed_entry_all_say_whose_claim():
    out = F.stored_claims(*committed_entry(F.NOTEBOOK))
    assert out and all(c.source is not None for c in out)
    assert sum(c.source.is_ours for c in out) == 2
    assert verdict_counts(out) == {
        HOLDS: 4,
        "holds in direction, not in size": 0,
        "not comparable": 0,
        UNDECIDED: 0,
        DOES_NOT_HOLD: 0,
    }
    assert not [c for c in out if c.claim.startswith("C^2 = 2")]  # checked once, on the Section 3 page
    (unbounded,) = [c for c in out if c.claim.endswith("C^2 -> inf")]
    assert "k = 80 is our choice" in str(unbounded.setting)


def test_smoke_sizes_text_follows_the_parameters():
    text = FT.smoke_sizes_text(F.DEFAULTS)
    assert f"{F.DEFAULTS['n_eps']} target" in text and f"$k = {F.DEFAULTS['k']}$" in text
    assert "7 target" in FT.smoke_sizes_text({**F.DEFAULTS, "n_eps": 7})
