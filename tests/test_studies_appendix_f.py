"""The sentences of the Appendix F page (fastmix_companion.studies.appendix_f_text), on small hand-made tables."""

import math

import numpy as np
import pandas as pd
from conftest import committed_entry

from fastmix_companion.claims import (
    DOES_NOT_HOLD,
    HOLDS,
    HOLDS_IN_DIRECTION,
    NOT_COMPARABLE,
    UNDECIDED,
    Claim,
    Source,
    fastmix_paper,
    verdict_counts,
)
from fastmix_companion.studies import appendix_f as AF
from fastmix_companion.studies import appendix_f_text as FT

ROUGH = "The coherence itself, like its upper bound, grows like log(n/rho)"


def _coherence():
    """Two n, three k each, two draws: coherence = min(1, 2 / sqrt(k))."""
    rows = []
    for log2_n in (10, 12):
        for k in (4, 64, 256):
            for draw in (0, 1):
                rows.append(
                    {"n": 2**log2_n, "log2_n": log2_n, "k": k, "draw": draw, "coherence": min(1.0, 2 / math.sqrt(k))}
                )
    return pd.DataFrame(rows)


def _summary(grow=1.2):
    """Ratio to Welch 2.0 at n = 2^10 and 2.0 * grow at 2^20."""
    return pd.DataFrame(
        {
            "log2_n": [10, 20],
            "n": [2**10, 2**20],
            "draws": [30, 30],
            "welch_ratio_mean": [2.0, 2.0 * grow],
            "welch_ratio_low": [1.9, 1.9 * grow],
            "welch_ratio_high": [2.1, 2.1 * grow],
            "welch_ratio_max": [2.5, 2.5 * grow],
            "log_n_rho": [10.0, 20.0],
            "heuristic_ratio_mean": [0.9, 1.1],
            "heuristic_ratio_min": [0.8, 0.9],
            "heuristic_ratio_max": [1.0, 1.3],
            "fitted_c": [0.5, 0.7],
        }
    )


OURS = Source(None, "Appendix F's bound")


def _claim(holds, name, source=OURS):
    return Claim(claim=name, paper="Appendix F", measured="x", rule="y", holds=holds, source=source)


def test_settings_and_tables_in_words():
    coh = _coherence()
    assert FT.coherence_text(coh, 0.01, 2).startswith(
        "Coherence $\\widehat\\Delta$ of the SRHT against its number of rows $k$ (log-log), one panel per "
        "$n \\in \\{2^{10}, 2^{12}\\}$: median and range over 2 independent draws per $(n, k)$"
    )
    assert FT.stored_setting_text(coh, {"n_draws": 2, "rho": 0.01}) == (
        "Setting: $n \\in \\{2^{10}, 2^{12}\\}$, 3 to 3 values of $k$ per $n$ from 4 to $n/2$, 2 independent SRHT "
        "draws per $(n, k)$ (12 draws in all), $\\varrho = 0.01$ in the scale of (241)."
    )
    assert FT.ratio_markdown(_summary()).splitlines()[2] == (
        "| $2^{10}$ | 30 | 2 [1.9, 2.1] | 2.5 | 10 | 0.9 (0.8 to 1) | 0.5 |"
    )
    # coherence 1 at k = 4, then 2 / sqrt(k): the fitted slope over the whole grid lies between -1/2 and 0
    slopes = FT.whole_grid_slopes_text(coh)
    assert slopes.startswith(
        "Over the whole grid of $k$ the fitted slope of $\\log\\widehat\\Delta$ on $\\log k$ is -0."
    )
    assert "at $n = 2^{12}$, pulled towards zero" in slopes


def test_reference_table_places_the_authors_value_among_the_draws():
    ref = pd.DataFrame({"k": [64] * 4, "coherence": [0.1, 0.2, 0.3, 0.4], "authors_value": [0.35] * 4})
    assert FT.reference_markdown(ref).splitlines()[2] == "| 64 | 4 | 0.25 | 0.1 to 0.4 | 0.35 | 75 |"


def test_findings_tally_and_growth():
    text = FT.findings_text(_summary(), [_claim(True, "a", fastmix_paper("Appendix F, eq. (240)")), _claim(False, "b")])
    assert text.startswith(
        "Of the 2 checks, 1 test claims of the FastMix paper (holds: 1) and 1 answer questions of our own (does not "
        "hold: 1). Our own questions whose verdict is not 'holds': b (ours: Appendix F's bound): does not hold.\n\n"
    )
    assert (
        "the mean ratio to Welch's bound grows from 2 to 2.4, a factor of 1.2, while $\\log(n/\\varrho)$ grows by 2"
        in text
    )
    assert "a constant of 0.7 in front of" in text


def test_findings_explain_a_failed_log_growth_and_which_growth_is_closer():
    held = FT.findings_text(_summary(), [_claim(True, ROUGH)])
    undecided = FT.findings_text(_summary(), [_claim(None, ROUGH)])
    assert "So $\\log(n/\\varrho)$ describes the upper bound (241)" not in undecided
    sqrt_like = FT.findings_text(_summary(grow=1.2), [_claim(False, ROUGH)])
    log_like = FT.findings_text(_summary(grow=2.0), [_claim(False, ROUGH)])
    assert "So $\\log(n/\\varrho)$ describes the upper bound (241)" not in held
    # sqrt(2 ln 2n) grows by sqrt(ln 2^21 / ln 2^11) = 1.38 from 2^10 to 2^20, log(n/rho) by 2
    assert np.isclose(np.sqrt(np.log(2**21) / np.log(2**11)), 1.38, atol=0.01)
    assert "its growth with $n$ is closer to that of $\\sqrt{2\\ln(2n)}$." in sqrt_like
    assert "its growth with $n$ is closer to that of $\\log(n/\\varrho)$." in log_like
    assert "only 0.2 to 0.12 of" not in sqrt_like and "only 0.12 to 0.20 of" in sqrt_like


# --------------------------------------------------------------------------- claims and their verdicts


def _draws(ratio_to_welch, log2_ns=(12, 14), ks=(16, 32, 64), draws=4, spread=0.02, rho=0.05):
    """Coherence = ratio x Welch's bound (with a small spread), at k <= n/64 for each n."""
    rows = []
    for lg in log2_ns:
        n = 2**lg
        for k in ks:
            welch = math.sqrt((n - k) / (k * (n - 1)))
            for draw in range(draws):
                value = ratio_to_welch(n) * welch * (1 + spread * (draw - (draws - 1) / 2))
                rows.append(
                    {
                        "log2_n": lg,
                        "n": n,
                        "k": k,
                        "draw": draw,
                        "coherence": value,
                        "welch": welch,
                        "heuristic": math.sqrt(2 * math.log(2 * n) / k),
                        "upper_scale": math.log(n / rho) / math.sqrt(k),
                    }
                )
    return pd.DataFrame(rows)


def _by_name(tables, **kw):
    return {c.claim: c for c in AF.claims(tables, **kw)}


UPPER = "The coherence is at most log(n/rho) times Welch's bound"
ROUGH_CLAIM = "The coherence itself, like its upper bound, is roughly log(n/rho) times Welch's bound"


def test_the_upper_bound_is_the_papers_claim_and_can_hold_or_stay_undecided_but_not_fail():
    below = _by_name({"coherence": _draws(lambda n: 4.0)})
    above = _by_name({"coherence": _draws(lambda n: 2.0 * math.log(n / 0.05))})
    assert below[UPPER].verdict == HOLDS and str(below[UPPER].source) == (
        "FastMix paper, Appendix F, eq. (241) and the sentence after it"
    )
    assert above[UPPER].verdict == UNDECIDED  # the paper's constant is not given: a larger one would cover them
    assert "This check can only hold or be undecided, never 'does not hold'" in above[UPPER].rule
    assert below[UPPER].setting.comparable and "runs no experiment" in below[UPPER].setting.differences[0]


def test_the_log_factor_of_the_measured_coherence_is_our_question_and_takes_each_verdict():
    far = _by_name({"coherence": _draws(lambda n: 4.0)})[ROUGH_CLAIM]
    near = _by_name({"coherence": _draws(lambda n: math.log(n / 0.05))})[ROUGH_CLAIM]
    # a ratio spread so wide that the interval straddles half of log(n/rho)
    edge = _by_name({"coherence": _draws(lambda n: 0.5 * math.log(n / 0.05), spread=0.6, draws=2)})[ROUGH_CLAIM]
    assert far.source.is_ours and "the bound (241)" in far.source.location
    assert (far.verdict, near.verdict, edge.verdict) == (DOES_NOT_HOLD, HOLDS, UNDECIDED)


def test_the_authors_values_are_our_question_and_few_draws_leave_them_undecided():
    coh = _draws(lambda n: 4.0)

    def reference(n_draws, theirs):
        ref = pd.DataFrame(
            [
                {"n": 2**17, "k": 280, "draw": r, "coherence": 0.20 + 0.01 * r / n_draws, "authors_value": theirs}
                for r in range(n_draws)
            ]
        )
        name = "The authors' coherence at n = 2^17, k = 280 is a typical draw"
        return _by_name({"coherence": coh, "reference": ref})[name]

    assert reference(20, 0.205).verdict == HOLDS
    assert reference(20, 0.26).verdict == UNDECIDED  # above all 20 draws: rank p-value 2/21, not small enough
    assert reference(2000, 0.26).verdict == DOES_NOT_HOLD  # above all 2000: rank p-value 2/2001
    # the rule of the Appendix J page: Holm over the rank tests (their share of the page's 5%), then the central 95%
    rule = reference(20, 0.205).rule
    assert rule.startswith("two-sided rank test of the authors' value as one more of our draws, Holm over the page's 1")
    assert "holds if not rejected and the central 95% of the draws contains the authors' value (percentile" in rule
    assert "not rejected after Holm" in reference(20, 0.26).measured and "rejected after Holm" in (
        reference(2000, 0.26).measured
    )
    assert reference(20, 0.26).source.is_ours and "not in the paper" in reference(20, 0.26).source.location
    assert AF.rank_p_value(5.0, [1.0, 2.0, 3.0]) == 0.5 and AF.rank_p_value(2.0, [1.0, 2.0, 3.0]) == 1.0


def test_stored_claims_on_the_committed_entry_all_say_whose_claim():
    out = AF.stored_claims(*committed_entry(AF.NOTEBOOK))
    assert len(out) == 8 and all(c.source is not None for c in out)
    assert [c.claim for c in out if not c.source.is_ours] == ["Welch's lower bound (240) holds for every draw", UPPER]
    # the slope check and the scaling check are exploratory: shown, not counted
    assert verdict_counts(out) == {HOLDS: 5, HOLDS_IN_DIRECTION: 0, NOT_COMPARABLE: 0, UNDECIDED: 0, DOES_NOT_HOLD: 1}
    assert {c.claim: c.verdict for c in out}[ROUGH_CLAIM] == DOES_NOT_HOLD
    assert "99.4% interval (95% simultaneous over the page's 8 interval and rank checks" in out[2].rule
    assert "Holm over the page's 3 rank tests at 0.0188 (their share of 5% over the page's 8 interval" in out[5].rule
    scaling = out[4]
    assert scaling.exploratory and scaling.verdict == HOLDS and "in proportion to log(n/rho)" in scaling.claim


def test_smoke_sizes_names_the_quick_run_sizes():
    out = FT.smoke_sizes({"log2_ns": "10,12", "n_draws": 5, "k_per_octave": 2})
    assert out == "$n \\in \\{2^{10}, 2^{12}\\}$, 5 SRHT draws per $(n, k)$, 2 values of $k$ per octave"
