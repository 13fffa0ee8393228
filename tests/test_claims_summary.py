"""Tests for fastmix_companion.claims_summary: the book's page of every verdict."""

import math

import pytest

from fastmix_companion import claims_summary as S
from fastmix_companion.claims import OURS, Claim, Interval, Magnitude, Setting, fastmix_paper, kernel_paper


def _rows():
    big = Magnitude("IHM / FastIHS", 4.31, Interval(7.4, 6.9, 8.0))
    return [
        S.PageClaim("figure3_runtime", "Figure 3", Claim("faster", "p", "m1", "r", True, fastmix_paper("Figure 3"))),
        S.PageClaim(
            "figure3_runtime",
            "Figure 3",
            Claim("sizes", "p", "m2", "r", True, fastmix_paper("Figure 3"), magnitudes=(big,)),
        ),
        S.PageClaim(
            "solver_choice",
            "Which solver",
            Claim("k2 near n", "p", "m3", "r", False, fastmix_paper("Section 5"), Setting(("k2 = 0.78 n",), False)),
        ),
        S.PageClaim("kernel_rates", "Rates", Claim("rate", "p", "m4", "r", None, kernel_paper("Theorem 3"))),
        S.PageClaim("figure3_runtime", "Figure 3", Claim("gram <fast>", "p", "m5", "r", True, OURS, headline=True)),
        S.PageClaim("regime_map", "Regime map", Claim("old", "p", "m6", "r", False)),
    ]


def test_rows_split_by_whose_claim():
    rows = _rows()
    assert [r.claim.claim for r in S.paper_claims(rows, "FastMix paper")] == ["faster", "sizes", "k2 near n"]
    assert [r.claim.claim for r in S.paper_claims(rows, "kernel paper")] == ["rate"]
    assert [r.claim.claim for r in S.own_findings(rows)] == ["gram <fast>"]
    assert [r.claim.claim for r in S.unstated(rows)] == ["old"]


def test_counts_sentence_counts_every_verdict_and_pages():
    rows = S.paper_claims(_rows(), "FastMix paper")
    text = S.counts_sentence(rows, "the FastMix paper's claims")
    assert text == (
        "3 checks of the FastMix paper's claims, on 2 pages: holds 1; holds in direction, not in size 1; "
        "not comparable 1."
    )
    assert S.counts_sentence([], "x") == "No stored result checks x yet."


def test_summary_table_links_each_page_and_bolds_decided_verdicts():
    table = S.summary_markdown(S.paper_claims(_rows(), "FastMix paper"))
    lines = table.splitlines()
    assert len(lines) == 2 + 3
    assert "{doc}`Figure 3 <figure3_runtime>`" in lines[2] and "**holds**" in lines[2]
    assert "**holds in direction, not in size**" in lines[3] and "outside a factor 2" in lines[3]
    assert "| not comparable |" in lines[4] and "not the paper's: k2 = 0.78 n" in lines[4]


def test_headline_lists_the_counts_and_the_marked_checks_escaped():
    html = S.headline_html(_rows())
    assert html.count("<li>") == 3 + 1  # two papers, our questions, one headline check
    assert "<b>gram &lt;fast&gt;</b> (ours): <i>holds</i>. m5" in html


def test_stored_claims_is_empty_without_a_stored_entry(tmp_path):
    assert S.stored_claims("figure3_runtime", root=tmp_path) == []


def test_collect_follows_the_book_order(monkeypatch):
    seen = []

    def fake(name, root=None):
        seen.append(name)
        return [Claim(name, "p", "m", "r", True, OURS)] if name in ("figure3_runtime", "figure1_noise_scale") else []

    monkeypatch.setattr(S, "stored_claims", fake)
    rows = S.collect()
    assert [r.notebook for r in rows] == ["figure1_noise_scale", "figure3_runtime"]
    assert seen.index("figure1_noise_scale") < seen.index("figure3_runtime") < seen.index("kernel_rates")
    assert rows[0].title.startswith("Figure 1")


def test_verdict_definitions_cover_the_five_words():
    text = S.verdicts_markdown()
    for word in ("holds", "holds in direction, not in size", "not comparable", "undecided", "does not hold"):
        assert f"{word}\n: " in text


@pytest.mark.parametrize("value", [math.nan, 0.0])
def test_magnitudes_need_a_positive_paper_value(value):
    with pytest.raises(ValueError):
        Magnitude("q", value, Interval(1.0, 0.5, 2.0))


def test_a_group_of_cells_counts_once():
    cells = [
        S.PageClaim("kernel_rp_vs_rff", "RP vs RFF", Claim(f"cell {i}", "p", "m", "r", h, OURS, group="the matrix"))
        for i, h in enumerate((True, False, None, False))
    ]
    other = S.PageClaim("kernel_rp_vs_rff", "RP vs RFF", Claim("gap", "p", "m", "r", True, OURS))
    rows = cells + [other]
    collapsed = S.collapse_groups(rows)
    assert [r.claim.claim for r in collapsed] == ["the matrix", "gap"]
    assert collapsed[0].claim.verdict == "does not hold"
    assert collapsed[0].claim.measured == "4 cells: holds 1; undecided 1; does not hold 2"
    assert S.counts_sentence(rows, "ours").startswith("2 checks of ours, on 1 page: holds 1; does not hold 1")
    agree = [S.PageClaim("k", "K", Claim(f"c{i}", "p", "m", "r", True, OURS, group="g")) for i in range(3)]
    assert S.collapse_groups(agree)[0].claim.verdict == "holds"
    mixed = [
        S.PageClaim("k", "K", Claim(f"c{i}", "p", "m", "r", h, OURS, group="g")) for i, h in enumerate((True, None))
    ]
    assert S.collapse_groups(mixed)[0].claim.verdict == "undecided"


def test_page_links_carry_plain_titles():
    row = S.PageClaim(
        "appendix_i_airline", "Appendix I: the extreme $n/d$ regime", Claim("c", "p", "m", "r", True, OURS)
    )
    assert row.link == "{doc}`Appendix I: the extreme n/d regime <appendix_i_airline>`"


def test_a_finding_answered_on_several_pages_counts_once_from_the_comparable_pages():
    stand_in = Setting(("a stand-in at n = 2^18",), False)
    rows = [
        S.PageClaim(
            "figure2_dp_ols",
            "Figure 2",
            Claim("k2 (stand-in)", "p", "m1", "r", False, fastmix_paper("4.1"), stand_in, finding="k2"),
        ),
        S.PageClaim(
            "appendix_i_airline", "Appendix I", Claim("k2", "p", "m2", "r", True, fastmix_paper("I"), finding="k2")
        ),
        S.PageClaim("figure3_runtime", "Figure 3", Claim("gram", "p", "m3", "r", True, OURS, finding="gram")),
        S.PageClaim("regime_map", "Regime map", Claim("gram", "p", "m4", "r", None, OURS, finding="gram")),
        S.PageClaim("regime_map", "Regime map", Claim("alone", "p", "m5", "r", True, OURS)),
    ]
    out = S.collapse_groups(rows)
    assert [r.claim.claim for r in out] == ["k2", "gram", "alone"]
    k2, gram, _ = out
    assert k2.claim.verdict == "holds" and "counted once from the 1 comparable: " in k2.claim.measured
    assert "Figure 2: not comparable; Appendix I: holds" in k2.claim.measured
    assert "<appendix_i_airline>" in k2.link and "<figure2_dp_ols>" in k2.link
    assert gram.claim.verdict == "undecided"  # holds on one page, undecided on another
    assert "4 checks" not in S.counts_sentence(rows, "x") and S.counts_sentence(rows, "x").startswith("3 checks")


def test_every_stored_finding_is_a_named_question_answered_on_more_than_one_page():
    from fastmix_companion.studies import _findings

    pages: dict[str, set[str]] = {}
    for r in S.collect():
        if r.claim.finding:
            pages.setdefault(r.claim.finding, set()).add(r.notebook)
    if not pages:
        pytest.skip("no stored results")
    assert set(pages) <= set(_findings.ALL)
    assert all(len(p) >= 2 for p in pages.values()), pages
