"""The sentences of the Appendix F page (fastmix_companion.studies.appendix_f_text), on small hand-made tables."""

import math

import numpy as np
import pandas as pd

from fastmix_companion.claims import Claim
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


def _claim(holds, name):
    return Claim(claim=name, paper="Appendix F", measured="x", rule="y", holds=holds)


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
    text = FT.findings_text(_summary(), [_claim(True, "a"), _claim(False, "b")])
    assert text.startswith("Of the 2 checks, 1 hold and 1 does not (b).")
    assert (
        "the mean ratio to Welch's bound grows from 2 to 2.4, a factor of 1.2, while $\\log(n/\\varrho)$ grows by 2"
        in text
    )
    assert "a constant of 0.7 in front of" in text


def test_findings_explain_a_failed_log_growth_and_which_growth_is_closer():
    held = FT.findings_text(_summary(), [_claim(True, ROUGH)])
    sqrt_like = FT.findings_text(_summary(grow=1.2), [_claim(False, ROUGH)])
    log_like = FT.findings_text(_summary(grow=2.0), [_claim(False, ROUGH)])
    assert "So $\\log(n/\\varrho)$ describes the upper bound (241)" not in held
    # sqrt(2 ln 2n) grows by sqrt(ln 2^21 / ln 2^11) = 1.38 from 2^10 to 2^20, log(n/rho) by 2
    assert np.isclose(np.sqrt(np.log(2**21) / np.log(2**11)), 1.38, atol=0.01)
    assert "its growth with $n$ is closer to that of $\\sqrt{2\\ln(2n)}$." in sqrt_like
    assert "its growth with $n$ is closer to that of $\\log(n/\\varrho)$." in log_like
    assert "only 0.2 to 0.12 of" not in sqrt_like and "only 0.12 to 0.20 of" in sqrt_like
