"""The sentences of the Appendix J page (fastmix_companion.studies.appendix_j_text), on small hand-made tables."""

import numpy as np
import pandas as pd

from fastmix import datasets as fd
from fastmix_companion.studies import appendix_j as J
from fastmix_companion.studies import appendix_j_text as JT

STATS = ("lambda_min", "lambda_max", "ols_mse", "y_sq_mean")


def _spread(scale=1.0, seeds=21):
    """Seeds whose statistics are the paper's times scale * (0.9 ... 1.1), so the paper's value is the median at 1."""
    rows = []
    for design in ("synthetic_sphere", "synthetic_correlated"):
        paper = fd.PAPER_STATISTICS[design]
        for s, f in enumerate(np.linspace(0.9, 1.1, seeds)):
            row = {"design": design, "seed": s, "n": 1024, "d": 8, "signal_var": 2.0 * f}
            row.update({k: paper[k] * scale * f for k in STATS})
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
        "seed (21 seeds;" in JT.spread_text(_spread())
    )
    row = JT.percentile_markdown(J.percentile_table(_spread())).splitlines()[2]
    assert row.startswith("| synthetic_sphere | $\\lambda_{\\min}(X^\\top X)$ | 1.617e+04 | 50 | 1.617e+04 | ")


def test_findings_say_whether_the_papers_values_are_typical_and_it_flips():
    typical = _spread()
    atypical = _spread(scale=10.0)
    yes = JT.findings_text(typical, J.claims({"spread": typical}))
    no = JT.findings_text(atypical, J.claims({"spread": atypical}))
    assert yes.startswith("Of the paper's 8 seed-dependent values, 8 are typical draws.")
    assert no.startswith(
        "Of the paper's 8 seed-dependent values, 0 are typical draws and 8 are not (synthetic_sphere: lambda_min; "
    )
    assert "On the **sphere** design the paper's eigenvalues lie at percentiles 50 ($\\lambda_{\\min}$) and 50" in yes
    assert "The paper's eigenvalues are 0.1 and 0.1 times the seeds' medians." in no
    # the residual is proportional to the signal variance here: correlation 1 between their logarithms
    assert "a factor of 1.22, and its logarithm has correlation 1.000 with that of the signal variance" in yes


def test_theta0_caption_counts_the_correlated_seeds():
    spread = pd.DataFrame({"design": ["synthetic_correlated"] * 3 + ["synthetic_sphere"] * 2})
    caption = JT.theta0_caption(spread)
    assert caption.startswith("Correlated design at the paper's scale (results store, 3 seeds): the OLS mean squared")
    assert caption.endswith("the dashed line is the paper's value.")
