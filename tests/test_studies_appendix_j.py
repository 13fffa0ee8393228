"""The sentences of the Appendix J page (fastmix_companion.studies.appendix_j_text), on small hand-made tables."""

import numpy as np
import pandas as pd
import pytest

from fastmix import datasets as fd
from fastmix_companion.claims import (
    DOES_NOT_HOLD,
    HOLDS,
    HOLDS_IN_DIRECTION,
    NOT_COMPARABLE,
    UNDECIDED,
    holm,
    verdict_counts,
)
from fastmix_companion.studies import appendix_j as J
from fastmix_companion.studies import appendix_j_text as JT

STATS = ("lambda_min", "lambda_max", "ols_mse", "y_sq_mean")


def _spread(scale=1.0, seeds=21, n=2**19, d=32, ols_spread=0.1, ols_shift=0.0):
    """Seeds whose statistics are the paper's times scale * (0.9 ... 1.1), so the paper's value is the median at 1;
    the OLS residual's spread is (1 - ols_spread ... 1 + ols_spread) on the log scale instead, shifted by
    ``ols_shift`` (``ols_shift = ols_spread`` puts the paper's residual at the seeds' smallest)."""
    rows = []
    for design in ("synthetic_sphere", "synthetic_correlated"):
        paper = fd.PAPER_STATISTICS[design]
        for s, (f, g) in enumerate(zip(np.linspace(0.9, 1.1, seeds), np.linspace(-1, 1, seeds), strict=True)):
            row = {"design": design, "seed": s, "n": n, "d": d, "signal_var": 2.0 * f}
            row.update({k: paper[k] * scale * f for k in STATS})
            row["ols_mse"] = paper["ols_mse"] * scale * np.exp(ols_spread * g + ols_shift)
            rows.append(row)
    return pd.DataFrame(rows)


def test_statistics_table_puts_the_papers_row_under_ours():
    stats = pd.DataFrame(
        [
            {
                "dataset": "nycflights",
                "n": 1024,
                "d": 4,
                "lambda_min": 0.5,
                "lambda_max": 12.25,
                "ols_mse": 0.01,
                "y_sq_mean": 0.1,
                "n_over_d": 256.0,
            }
        ]
    )
    table = JT.statistics_table(stats)
    assert list(table.index) == [("nycflights", "here"), ("nycflights (vs airline)", "paper")]
    assert (
        table.loc[("nycflights", "here"), "lambda_max"] == "12.25" and table.loc[("nycflights", "here"), "n"] == "1024"
    )
    lines = JT.statistics_markdown(stats).splitlines()
    assert lines[0].startswith("| dataset | source | $n$ | $d$ | $\\lambda_{\\min}(X^\\top X)$")
    assert lines[2] == "| nycflights | here | 1024 | 4 | 0.5 | 12.25 | 0.01 | 0.1 | 256 |"


def test_settings_and_captions():
    p = {"log2_n": 19, "d": 32, "power_of_two": "padding", "spread_log2_n": 16, "n_seeds": 100}
    assert JT.stored_setting_text(p) == (
        "Setting: synthetic designs at $n = 2^{19}$, $d = 32$ for the table; real data reduced by padding; the seed "
        "spread regenerates both designs at $n = 2^{16}$ for 100 seeds."
    )
    assert (
        "(rows; sphere design at $n = 1,024$, $d = 8$; correlated design at $n = 1,024$, $d = 8$), one dot per "
        "seed (21 seeds;" in JT.spread_text(_spread(n=1024, d=8))
    )
    row = JT.percentile_markdown(J.percentile_table(_spread())).splitlines()[2]
    assert row.startswith("| synthetic_sphere | $\\lambda_{\\min}(X^\\top X)$ | 1.617e+04 | 50 | 1.617e+04 | ")


def test_findings_say_whether_the_papers_values_are_typical_and_it_flips():
    typical = _spread()
    atypical = _spread(scale=10.0)
    yes = JT.findings_text(typical, J.claims({"spread": typical}))
    no = JT.findings_text(atypical, J.claims({"spread": atypical}))
    assert yes.startswith("The 6 checks (FastMix paper, Appendix J, table, row 'Synthetic: lambda_min ~ n/d'")
    assert "give the verdicts holds (6)." in yes and "Does not hold" not in yes
    assert "give the verdicts does not hold (6). Does not hold: synthetic_sphere: eigenvalues; " in no
    assert "On the **sphere** design the paper's eigenvalues lie at percentiles 50 ($\\lambda_{\\min}$) and 50" in yes
    assert "The paper's eigenvalues are 0.1 and 0.1 times the seeds' medians." in no
    assert "the claims table therefore checks the two as one" in yes
    # the residual is proportional to the signal variance here: correlation 1 between their logarithms
    assert "a factor of 1.22, and its logarithm has correlation 1.000 with that of the signal variance" in yes
    assert yes.endswith("decides this column of the paper's table, and the claims table's check of it is holds.")


def test_checks_sentence_names_undecided_and_not_comparable_checks_with_the_reason():
    low = _spread(ols_shift=0.1)  # the paper's OLS residual at the seeds' smallest: not rejected, not central
    text = JT.checks_sentence(J.claims({"spread": low}))
    assert (
        "give the verdicts holds (4), undecided (2). Undecided: synthetic_sphere: OLS residual; synthetic_corr" in text
    )
    small = _spread(n=1024, d=8)
    text = JT.checks_sentence(J.claims({"spread": small}))
    assert "give the verdicts not comparable (6). Not comparable: synthetic_sphere: eigenvalues; " in text
    assert "because seeds at n = 1,024, d = 8, the paper's n = 524,288, d = 32 (the eigenvalues grow with n)" in text
    assert JT.checks_sentence([]) == "No check was made."


# --------------------------------------------------------------------------- the claims (appendix_j.claims)


def _verdicts(spread, **kw):
    return {c.claim: c.verdict for c in J.claims({"spread": spread}, **kw)}


def test_the_eigenvalues_are_one_check_per_design_and_every_claim_states_its_source():
    claims = J.claims({"spread": _spread()})
    assert [c.claim for c in claims] == [
        "synthetic_sphere: the paper's eigenvalues are a typical draw",
        "synthetic_sphere: the paper's OLS residual is a typical draw",
        "synthetic_sphere: the paper's mean squared response is a typical draw",
        "synthetic_correlated: the paper's eigenvalues are a typical draw",
        "synthetic_correlated: the paper's OLS residual is a typical draw",
        "synthetic_correlated: the paper's mean squared response is a typical draw",
    ]
    assert all(c.source.paper == "FastMix paper" and "Appendix J" in c.source.location for c in claims)
    assert len(claims[0].magnitudes) == 2 and "correlate at 1.0000" in claims[0].measured


def test_each_verdict_word_of_the_typical_draw_checks():
    assert set(_verdicts(_spread()).values()) == {HOLDS}
    assert set(_verdicts(_spread(scale=10.0)).values()) == {DOES_NOT_HOLD}
    assert set(_verdicts(_spread(seeds=10)).values()) == {UNDECIDED}  # fewer than 20 seeds
    assert set(_verdicts(_spread(n=2**16)).values()) == {NOT_COMPARABLE}  # the eigenvalues grow with n
    # the paper's residual at the seeds' median: typical however widely the seeds spread; a statistic whose seeds
    # spread over more than the size factor has no size for one draw to reproduce, so its size is not judged
    wide_claims = {c.claim: c for c in J.claims({"spread": _spread(ols_spread=3.0)})}
    residual = wide_claims["synthetic_correlated: the paper's OLS residual is a typical draw"]
    assert residual.verdict == HOLDS and not residual.magnitudes[0].judged
    # at the seeds' smallest (percentile 2.4): not rejected after Holm, outside the central 95%: undecided
    low = _verdicts(_spread(ols_shift=0.1))
    assert low["synthetic_correlated: the paper's OLS residual is a typical draw"] == UNDECIDED
    assert low["synthetic_correlated: the paper's mean squared response is a typical draw"] == HOLDS
    # the paper's value just outside a tight spread, within a factor 2 in size: rejected, yet near in size
    near = _verdicts(_spread(scale=1.3))
    assert set(near.values()) == {DOES_NOT_HOLD}


def test_holm_runs_over_the_pages_checks():
    spread = _spread()
    table = J.check_table(spread)
    assert len(table) == 6
    assert table["reject"].tolist() == holm(table["p"].tolist())
    # the eigenvalue pair enters the family once, with the smaller of its two p-values doubled (Bonferroni)
    sphere = spread[spread["design"] == "synthetic_sphere"]
    paper = fd.PAPER_STATISTICS["synthetic_sphere"]
    pair = [J.prediction_p(paper[s], sphere[s]) for s in ("lambda_min", "lambda_max")]
    assert table["p"].iloc[0] == pytest.approx(min(1.0, 2 * min(pair)))
    p = J.prediction_p(1.0, np.exp(np.linspace(-1, 1, 21)))
    assert p == pytest.approx(1.0)
    # one value at about p = 0.02 alone: rejected by itself, not after Holm over six checks
    x = np.exp(np.random.default_rng(0).standard_normal(50))
    v = float(np.exp(np.mean(np.log(x)) + 2.4 * np.std(np.log(x), ddof=1)))
    assert 0.01 < J.prediction_p(v, x) < 0.05 / 1 and not holm([J.prediction_p(v, x)] + [0.5] * 5)[0]


def test_stored_claims_on_the_committed_entry_state_their_sources_and_verdicts():
    from fastmix_companion.store import ResultsStore

    store = ResultsStore(J.NOTEBOOK)
    tables = store.load()
    if tables is None:
        return
    claims = J.stored_claims(tables, store.parameters())
    assert claims and all(c.source is not None for c in claims)
    assert verdict_counts(claims) == {
        HOLDS: 4,
        HOLDS_IN_DIRECTION: 0,
        NOT_COMPARABLE: 0,
        UNDECIDED: 2,
        DOES_NOT_HOLD: 0,
    }
    by_name = {c.claim: c.verdict for c in claims}
    assert by_name["synthetic_correlated: the paper's OLS residual is a typical draw"] == UNDECIDED
    # at percentile 2 of the seeds, p = 0.11 (0.054 doubled): not rejected after Holm, yet outside the central 95%
    assert by_name["synthetic_correlated: the paper's eigenvalues are a typical draw"] == UNDECIDED


def test_the_typical_draw_rule_is_three_way():
    assert J.typical_draw(True, (50.0,)) is False
    assert J.typical_draw(False, (2.5, 97.5)) is True
    assert J.typical_draw(False, (2.0, 50.0)) is None
    assert J.typical_draw(False, (98.0,)) is None
    rule = J.typical_rule("a test", "the page's 3 checks at 0.05")
    assert rule == (
        "a test, Holm over the page's 3 checks at 0.05. Does not hold if rejected; holds if not rejected and the "
        "central 95% of the draws contains the value (percentile within [2.5, 97.5]); undecided otherwise"
    )


def test_theta0_caption_counts_the_correlated_seeds():
    spread = pd.DataFrame({"design": ["synthetic_correlated"] * 3 + ["synthetic_sphere"] * 2})
    caption = JT.theta0_caption(spread)
    assert caption.startswith("Correlated design at the paper's scale (results store, 3 seeds): the OLS mean squared")
    assert caption.endswith("the dashed line is the paper's value.")


def test_smoke_sizes_names_the_quick_run_sizes():
    out = JT.smoke_sizes({"log2_n": 14, "d": 32, "n_seeds": 5, "spread_log2_n": 12})
    assert out == "synthetic designs at $n = 2^{14}$, $d = 32$, and a seed spread of 5 seeds at $n = 2^{12}$"
