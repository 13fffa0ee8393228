"""The sentences of the Section 3 page (fastmix_companion.studies.section3_text), on small hand-made tables."""

import math

import pandas as pd

from fastmix_companion.claims import Claim
from fastmix_companion.studies import section3_text as ST

N = 1024


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


def _claim(holds, name):
    return Claim(claim=name, paper="Section 3", measured="x", rule="y", holds=holds)


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
    never = ST.findings_text(_tables(), [_claim(True, "a"), _claim(False, "b")])
    reached = ST.findings_text(_tables(c2_at=lambda k2: 1 + 512 / k2), [])
    assert never.startswith("Of the 2 checks, 1 hold and 1 does not (b).")
    assert (
        "On the **sphere** design, the paper's largest SRHT ($k_2 = 512$, $r = 400$) gives $C^2_{S_f X} = 3.83$"
        in never
    )
    assert "even at the largest $k_2$ of the grid, 1024 $= n/1$, it is still 3" in never
    assert "it falls to 2 or below at $k_2 = 1024$" in reached and "even at the largest" not in reached
    assert "the paper's smallest SRHT ($k_2 = 32$, $r = 4$) keeps 0.900 of it and has $C^2 = 12.3$" in never


def test_findings_explain_the_rate_only_when_every_slope_check_holds():
    held = ST.findings_text(_tables(), [_claim(True, "m_hat falls like k2^-1/2: sphere")])
    failed = ST.findings_text(_tables(), [_claim(False, "m_hat falls like k2^-1/2: sphere")])
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
