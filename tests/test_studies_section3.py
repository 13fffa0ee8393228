"""The sentences of the Section 3 page (fastmix_companion.studies.section3_text), on small hand-made tables."""

import math

import pandas as pd
from conftest import committed_entry

from fastmix_companion.claims import (
    DOES_NOT_HOLD,
    HOLDS,
    HOLDS_IN_DIRECTION,
    NOT_COMPARABLE,
    UNDECIDED,
    Claim,
    Interval,
    Magnitude,
    Setting,
    Source,
    fastmix_paper,
    verdict_counts,
)
from fastmix_companion.studies import section3 as S3
from fastmix_companion.studies import section3_text as ST

N = 1024
PAPER = fastmix_paper("Section 3")
OURS = Source(None, "Figure 1 caption's illustrative C^2 = 2")


def _sweep(c2_at=lambda k2: 1 + 2 * math.sqrt(N / k2), designs=("synthetic_sphere",)):
    """Two draws per k2 on a grid of k2 (no ratio) and at two paper ratios; C^2 a function of k2 (+-0.1)."""
    rows = []
    for design in designs:
        for k2, ratio in ((64, None), (256, None), (1024, None), (32, 4.0), (512, 400.0)):
            for draw, shift in enumerate((-0.1, 0.1)):
                rows.append(
                    {
                        "design": design,
                        "n": N,
                        "d": 4,
                        "k2": k2,
                        "k2_ratio": ratio,
                        "draw": draw,
                        "c2": c2_at(k2) + shift,
                        "lambda_ratio": 0.9 + shift / 10,
                        "delta_hat": 0.5,
                    }
                )
    return pd.DataFrame(rows)


def _tables(**kw):
    return {"sweep": _sweep(**kw), "designs": pd.DataFrame({"op_norm_x": [31.6, 40.0]})}


def _claim(holds, name, source=None, **kw):
    return Claim(claim=name, paper="Section 3", measured="x", rule="y", holds=holds, source=source, **kw)


def test_settings_in_words():
    t = _tables()
    assert ST.sweep_setting(t) == "$n = 1024$, $d = 4$, $k_2$ from 32 to 1024, 2 draws per $k_2$"
    p = {"log2_n": 10, "d": 4, "log2_k2_min": 5, "log2_k2_max": 12, "paper_ratios": "4,400"}
    assert ST.stored_setting_text(t, p) == (
        "Setting: both synthetic designs at $n = 2^{10}$, $d = 4$; $k_2$ from $2^{5}$ to $2^{10}$ and the paper's "
        "sizes for $r \\in \\{4, 400\\}$; 2 independent SRHT draws per $k_2$ (10 draws in all)."
    )
    acc = pd.DataFrame({"gamma": [3.2, 10.0, 100.0]})
    tiny = pd.DataFrame({"n": [16], "d": [2], "k2": [8]}).iloc[0]
    assert ST.accounting_setting(acc, tiny) == "$n = 16$, $d = 2$, $k_2 = 8$, 3 values of $\\gamma$ from 3.2 to 100"
    assert ST.accounting_setting(acc) == "3 values of $\\gamma$ from 3.2 to 100"


def test_paper_size_table():
    from fastmix_companion.studies.section3 import paper_size_summary

    lines = ST.paper_size_markdown(paper_size_summary(_sweep())).splitlines()
    assert len(lines) == 4 and lines[2].startswith("| synthetic_sphere | 4 | 32 | 2 | 12.3 [")
    assert lines[2].endswith("| 12.2 to 12.4 | 0.900 [0.773, 1.027] | 0.5 |")


def test_findings_tally_and_say_where_c2_reaches_2_and_it_flips():
    never = ST.findings_text(_tables(), [_claim(True, "a", PAPER), _claim(False, "b", OURS)])
    reached = ST.findings_text(_tables(c2_at=lambda k2: 1 + 512 / k2), [])
    assert never.startswith(
        "Of the 2 checks, 1 test claims of the FastMix paper (holds: 1) and 1 answer questions of our own "
        "(does not hold: 1). Our own questions whose verdict is not 'holds': b (ours: Figure 1 caption's "
        "illustrative C^2 = 2): does not hold.\n\n"
    )
    assert (
        "On the **sphere** design, the paper's largest SRHT ($k_2 = 512$, $r = 400$) gives $C^2_{S_f X} = 3.83$"
        in never
    )
    assert "even at the largest $k_2$ of the grid, 1024 $= n/1$, it is still 3" in never
    assert "it falls to 2 or below at $k_2 = 1024$" in reached and "even at the largest" not in reached
    assert "the paper's smallest SRHT ($k_2 = 32$, $r = 4$) keeps 0.900 of it and has $C^2 = 12.3$" in never


def test_findings_explain_the_rate_only_when_every_slope_check_holds():
    held = ST.findings_text(_tables(), [_claim(True, "m_hat falls like k2^-1/2: sphere", PAPER)])
    failed = ST.findings_text(_tables(), [_claim(False, "m_hat falls like k2^-1/2: sphere", PAPER)])
    undecided = ST.findings_text(_tables(), [_claim(None, "m_hat falls like k2^-1/2: sphere", PAPER)])
    assert "The reason $C^2$ stays large" not in undecided
    assert "The reason $C^2$ stays large is the rate at which $\\widehat m$ falls" in held
    assert held.endswith("which is about 32 here, not to $C_X = 1$.")
    assert "The reason $C^2$ stays large" not in failed


def test_accounting_text_gives_the_looseness_of_the_bounds():
    acc = pd.DataFrame(
        {
            "gamma": [4.0, 8.0],
            "laplace_part": [0.1, 0.1],
            "eps_exact": [0.3, 0.2],
            "eps_tight": [0.5, 0.3],
            "eps_closed": [1.5, 0.45],
        }
    )
    tiny = pd.DataFrame(
        {"n": [16], "d": [2], "k2": [8], "m_hat": [1.5], "c2": [4.0], "lambda_min_z": [0.7], "delta_hat": [0.6]}
    )
    text = ST.accounting_text(acc, tiny.iloc[0])
    assert text.startswith("The tiny dataset has $n = 16$, $d = 2$, and its SRHT $k_2 = 8$ rows; the draw has ")
    assert "the tight bound's sketch part is 2 to 2 times the exact loss" in text
    assert "the closed form is 1.5 to 3 times the tight bound, the largest factor at $\\gamma = 4$" in text


def test_accounting_table_heads_each_epsilon_by_its_source():
    acc = pd.DataFrame(
        {"gamma": [1.0], "sigma": [0.5], "eps_closed": [3.0], "eps_tight": [2.0], "eps_exact": [1.5], "alpha": [4.0]}
    )
    table = ST.accounting_table(acc)
    assert list(table.columns) == ["gamma", "sigma", "eq. (9)", "eq. (114)", "exact"]
    assert table.iloc[0].tolist() == [1.0, 0.5, 3.0, 2.0, 1.5]


# --------------------------------------------------------------------------- verdicts in words


def test_verdicts_text_names_each_verdict_whose_claim_and_why_not_comparable():
    off = Setting(("a tiny dataset where the paper has n = 2^19",), comparable=False)
    size = Magnitude("C^2", 2.0, Interval(5.0, 4.5, 5.5))
    checks = [
        _claim(True, "a", PAPER),
        _claim(True, "b", PAPER, setting=off),
        _claim(True, "c", PAPER, magnitudes=(size,)),
        _claim(None, "d", OURS),
    ]
    assert [c.verdict for c in checks] == [HOLDS, NOT_COMPARABLE, HOLDS_IN_DIRECTION, UNDECIDED]
    assert ST.verdicts_text(checks) == (
        "Of the 4 checks, 3 test claims of the FastMix paper (holds: 1; holds in direction, not in size: 1; not "
        "comparable: 1) and 1 answer questions of our own (undecided: 1). Claims of the paper whose verdict is not "
        "'holds': b (FastMix paper, Section 3): not comparable, because the run is not in the paper's setting: a "
        "tiny dataset where the paper has n = 2^19; c (FastMix paper, Section 3): holds in direction, not in size "
        "(C^2: measured/paper 5 [4.5, 5.5] (outside a factor 2)). Our own questions whose verdict is not 'holds': "
        "d (ours: Figure 1 caption's illustrative C^2 = 2): undecided."
    )
    flipped = ST.verdicts_text([_claim(True, "a", PAPER), _claim(True, "d", OURS)])
    assert flipped == (
        "Of the 2 checks, 1 test claims of the FastMix paper (holds: 1) and 1 answer questions of our own (holds: 1)."
    )
    assert ST.verdicts_text([]) == "No check could be decided."


# --------------------------------------------------------------------------- claims and their verdicts


def _claims_sweep(lam=0.95, c2=1.5, slope=-0.5, spread=0.01, draws=5):
    """Both designs: a k2 grid where m_hat follows k2^slope, and the paper's r = 400, 800 with given means."""
    rows = []
    for design in S3.DESIGNS:
        for k2, ratio in ((32, None), (64, None), (128, None), (12800, 400.0), (25600, 800.0)):
            for draw in range(draws):
                jitter = 1 + spread * (draw - (draws - 1) / 2)
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
                        "lambda_ratio": lam * jitter,
                        "delta_hat": 0.03,
                    }
                )
    designs = pd.DataFrame({"design": list(S3.DESIGNS), "lambda_min_x": [16147.2, 3.998]})
    return {"sweep": pd.DataFrame(rows), "designs": designs}


def _verdicts(**kw):
    return {c.claim.split(" (")[0]: c.verdict for c in S3.claims(_claims_sweep(**kw)) if "sphere" in c.claim}


def test_section3_claims_take_each_verdict_and_say_whose_claim():
    lam = "lambda_min(S_f X) keeps at least 5/6 of lambda_min(X) at r = 400 and 800"
    c2 = "C^2 = 2, the caption's illustration, at the paper's largest k2"
    slope = "m_hat falls at least like k2^(-1/2)"
    assert _verdicts() == {lam: HOLDS, c2: HOLDS, slope: HOLDS}
    assert _verdicts(lam=0.6, c2=10.0, slope=-0.2) == {lam: DOES_NOT_HOLD, c2: DOES_NOT_HOLD, slope: DOES_NOT_HOLD}
    # two draws far apart: every interval straddles its threshold
    assert _verdicts(lam=0.84, c2=2.0, spread=0.5, draws=2) == {lam: UNDECIDED, c2: UNDECIDED, slope: UNDECIDED}
    out = {c.claim: c for c in S3.claims(_claims_sweep())}
    assert out[f"{c2} (synthetic_sphere)"].source == OURS
    # the caption's 5/6 is an illustration, as its C^2 = 2 is; Lemma 10 is an upper bound, not a rate
    assert out[f"{lam} (synthetic_sphere)"].source == Source(
        None, "Figure 1 caption's illustrative lambda_min(S_f X) = 5/6 lambda_min(X)"
    )
    assert out[f"{slope} (synthetic_sphere)"].source == Source(None, "prompted by Lemma 10's bound")
    assert "upper bound proportional to k2^(-1/2), not a rate" in out[f"{slope} (synthetic_sphere)"].paper
    assert "smaller r" not in out[f"{lam} (synthetic_sphere)"].measured  # no r = 4 draws in these tables
    assert out[f"{slope} (synthetic_correlated)"].setting.differences == (
        "the correlated design drawn afresh from Appendix H's recipe (seeded): lambda_min(X) = 3.998, Appendix J "
        "prints 3.27",
    )
    # six interval checks (two lambda sizes, C^2 and the slope per design): each at 1 - 0.05/8
    assert (
        "99.4% interval (95% simultaneous over the page's 8 interval checks, Bonferroni)"
        in out[f"{c2} (synthetic_sphere)"].rule
    )


def test_family_levels_and_three_way_rules():
    assert S3.family_level(1) == 0.95 and abs(S3.family_level(5) - 0.99) < 1e-12
    iv = S3.rescaled_interval(10.0, 9.0, 11.0, 30, 0.95)
    assert abs(iv.low - 9.0) < 1e-12 and abs(iv.high - 11.0) < 1e-12
    wider = S3.rescaled_interval(10.0, 9.0, 11.0, 30, 0.99)
    assert wider.low < 9.0 and wider.high > 11.0
    band = Interval(0.5, 0.4, 0.6)
    assert S3.within(band, 0.3, 0.7) is True and S3.within(band, 0.7, 0.9) is False
    assert S3.within(band, 0.5, 0.9) is None
    assert S3.at_least(band, 0.4) is True and S3.at_least(band, 0.7) is False and S3.at_least(band, 0.5) is None
    assert S3.at_most(band, 0.6) is True and S3.at_most(band, 0.3) is False and S3.at_most(band, 0.5) is None
    assert S3.all_of([True, None]) is None and S3.all_of([None, False]) is False and S3.all_of([]) is True


def test_stored_claims_on_the_committed_entry_all_say_whose_claim():
    out = S3.stored_claims(*committed_entry(S3.NOTEBOOK))
    assert len(out) == 8 and all(c.source is not None for c in out)
    assert [c.claim for c in out if not c.source.is_ours] == [
        "Theorem 1's bound covers the exact loss of a draw",
        "The closed form (eq. 9) is above the tight bound (eq. 114)",
    ]
    assert verdict_counts(out) == {HOLDS: 6, HOLDS_IN_DIRECTION: 0, NOT_COMPARABLE: 0, UNDECIDED: 0, DOES_NOT_HOLD: 2}
    kept = {c.claim: c.measured for c in out if c.claim.startswith("lambda_min(S_f X)")}
    assert kept["lambda_min(S_f X) keeps at least 5/6 of lambda_min(X) at r = 400 and 800 (synthetic_sphere)"].endswith(
        "; at the paper's smaller r = 4 (k2 = 128) the draws keep 0.29 on average"
    )
    assert kept[
        "lambda_min(S_f X) keeps at least 5/6 of lambda_min(X) at r = 400 and 800 (synthetic_correlated)"
    ].endswith("; at the paper's smaller r = 4 (k2 = 128) the draws keep 0.43 on average")
    theorem = next(c for c in out if c.claim.startswith("Theorem 1"))
    assert "n = 64, d = 4, k2 = 32, k1 = 20" in theorem.setting.differences[0]


def test_smoke_sizes_text_follows_the_parameters():
    text = ST.smoke_sizes_text(S3.DEFAULTS)
    assert f"$n = 2^{{{S3.DEFAULTS['log2_n']}}}$" in text and f"{S3.DEFAULTS['n_draws']} SRHT draws" in text
    assert "$n = 2^{10}$" in ST.smoke_sizes_text({**S3.DEFAULTS, "log2_n": 10})
