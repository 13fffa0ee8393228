"""Tests for fastmix_companion.claims: the statistics behind each page's claims table."""

import math

import numpy as np
import pytest
from scipy import stats

from fastmix_companion.claims import (
    DOES_NOT_HOLD,
    HOLDS,
    HOLDS_IN_DIRECTION,
    NOT_COMPARABLE,
    OURS,
    PAPER_SETTING,
    UNDECIDED,
    VERDICTS,
    Claim,
    Interval,
    Magnitude,
    Setting,
    Source,
    claims_frame,
    claims_markdown,
    fastmix_paper,
    holm,
    holm_adjusted,
    kernel_paper,
    log_ratio_interval,
    mean_interval,
    one_sided_less,
    paired_log_ratio,
    percentile_of,
    verdict_counts,
)


def test_mean_interval_is_the_student_t_interval():
    x = np.array([1.0, 2.0, 4.0, 7.0])
    iv = mean_interval(x)
    low, high = stats.t.interval(0.95, df=3, loc=x.mean(), scale=stats.sem(x))
    assert iv.estimate == pytest.approx(x.mean())
    assert (iv.low, iv.high) == pytest.approx((low, high))
    assert mean_interval([3.0]).low == -math.inf


def test_log_ratio_interval_covers_the_true_ratio_at_its_level():
    rng = np.random.default_rng(0)
    covered = 0
    for _ in range(400):
        a = np.exp(rng.normal(np.log(2.0), 0.5, 30))
        b = np.exp(rng.normal(0.0, 0.8, 30))
        covered += log_ratio_interval(a, b).contains(2.0)
    assert 0.92 <= covered / 400 <= 0.98


def test_log_ratio_interval_rejects_non_positive_values():
    with pytest.raises(ValueError, match="positive"):
        log_ratio_interval([1.0, -1.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="at least two"):
        log_ratio_interval([1.0], [1.0, 2.0])


def test_one_sided_less_is_welch_on_logs_and_has_the_right_size():
    a, b = [1.0, 1.2, 0.9, 1.1], [2.0, 2.5, 1.8, 2.2]
    expected = stats.ttest_ind(np.log(a), np.log(b), equal_var=False, alternative="less").pvalue
    assert one_sided_less(a, b) == pytest.approx(expected)
    assert one_sided_less(b, a) == pytest.approx(1 - expected)
    rng = np.random.default_rng(1)
    rejections = sum(
        one_sided_less(np.exp(rng.normal(size=20)), np.exp(rng.normal(size=20))) < 0.05 for _ in range(1000)
    )
    assert 30 <= rejections <= 75  # about 5% under the null


def test_holm_is_step_down():
    assert holm([0.01, 0.04, 0.03], alpha=0.05) == [True, False, False]
    assert holm([0.001, 0.02, 0.04], alpha=0.05) == [True, True, True]
    assert holm([0.2, 0.001], alpha=0.05) == [False, True]


def test_percentile_of_counts_ties_half():
    assert percentile_of(2.0, [1.0, 2.0, 3.0, 4.0]) == pytest.approx(37.5)
    assert percentile_of(0.0, [1.0, 2.0]) == 0.0
    assert percentile_of(9.0, [1.0, 2.0]) == 100.0


def test_claims_table_and_markdown_carry_the_verdicts():
    claims = [
        Claim("a", "says a", "1 [0, 2]", "rule", True, source=fastmix_paper("Figure 3")),
        Claim("b|c", "says b", "x", "rule", None, source=OURS),
        Claim("d", "says d", "y", "rule", False),
    ]
    frame = claims_frame(claims)
    assert list(frame["verdict"]) == [HOLDS, UNDECIDED, DOES_NOT_HOLD]
    assert list(frame["whose claim"]) == ["FastMix paper, Figure 3", "ours", "not stated"]
    full = claims_markdown(claims, compact=False)
    assert full.count("\n") == 4 and "b\\|c" in full and "**does not hold**" in full
    assert "measured / paper" not in full  # no claim has a magnitude: no empty column
    # compact: the verdicts first, the rest folded below
    text = claims_markdown(claims)
    head, _, folded = text.partition(":::{dropdown}")
    assert head.splitlines()[0] == "| claim | whose claim | verdict |" and len(head.strip().splitlines()) == 5
    assert "| claim | says | we measured (95% interval) | setting | decision rule |" in folded
    assert folded.rstrip().endswith(":::") and "says d" in folded and "says d" not in head


def _iv(low, high):
    return Interval(math.sqrt(low * high), low, high)


def test_magnitude_in_size_within_outside_or_undecided():
    assert Magnitude("q", 4.0, _iv(0.8, 1.3)).in_size is True
    assert Magnitude("q", 4.0, _iv(3.0, 9.0)).in_size is False  # 3-9x the paper's number
    assert Magnitude("q", 4.0, _iv(0.1, 0.3)).in_size is False
    assert Magnitude("q", 4.0, _iv(1.5, 2.5)).in_size is None  # straddles the factor 2
    assert Magnitude("q", 4.0, _iv(1.5, 2.5), factor=3.0).in_size is True
    with pytest.raises(ValueError, match="factor must be a finite number > 1"):
        Magnitude("q", 4.0, _iv(1, 2), factor=1.0)
    with pytest.raises(ValueError, match="positive number"):
        Magnitude("q", 0.0, _iv(1, 2))


def test_verdict_separates_direction_from_size():
    big = Magnitude("IHM / FastIHS", 4.31, _iv(6.9, 8.0))
    close = Magnitude("IHM / FastIHS", 4.31, _iv(0.9, 1.2))
    paper = fastmix_paper("Figure 3, table")
    assert Claim("c", "p", "m", "r", True, paper, magnitudes=(close,)).verdict == HOLDS
    assert Claim("c", "p", "m", "r", True, paper, magnitudes=(close, big)).verdict == HOLDS_IN_DIRECTION
    # the direction failing decides, whatever the sizes
    assert Claim("c", "p", "m", "r", False, paper, magnitudes=(close,)).verdict == DOES_NOT_HOLD
    assert "outside a factor 2" in Claim("c", "p", "m", "r", True, paper, magnitudes=(big,)).size


def test_a_run_outside_the_papers_setting_cannot_refute_the_paper():
    away = Setting(("k2 = 0.78 n, the paper's k2 is about 0.14 n",), comparable=False)
    paper = fastmix_paper("Section 5")
    for holds in (True, False, None):
        assert Claim("c", "p", "m", "r", holds, paper, away).verdict == NOT_COMPARABLE
    # our own question is answered in our setting: the rule decides
    assert Claim("c", "p", "m", "r", False, OURS, away).verdict == DOES_NOT_HOLD
    # a stated difference that still lets the run speak to the claim
    stand_in = Setting(("nycflights stand-in for the airline data",))
    assert Claim("c", "p", "m", "r", False, paper, stand_in).verdict == DOES_NOT_HOLD
    assert str(stand_in) == "nycflights stand-in for the airline data"
    assert str(away).startswith("not the paper's: ") and str(PAPER_SETTING) == "the paper's"
    with pytest.raises(ValueError, match="must say why"):
        Setting((), comparable=False)


def test_verdict_counts_cover_every_word_and_the_words_are_defined_once():
    claims = [Claim("c", "p", "m", "r", h, OURS) for h in (True, True, None, False)]
    counts = verdict_counts(claims)
    assert list(counts) == list(VERDICTS) and sum(counts.values()) == 4
    assert counts == {HOLDS: 2, HOLDS_IN_DIRECTION: 0, NOT_COMPARABLE: 0, UNDECIDED: 1, DOES_NOT_HOLD: 1}
    assert (
        str(kernel_paper("Theorem 3")) == "kernel paper, Theorem 3" and str(Source(None, "caption")) == "ours (caption)"
    )


def test_holm_adjusted_agrees_with_holm_at_every_level():
    rng = np.random.default_rng(3)
    for _ in range(50):
        p = rng.uniform(0, 0.2, size=rng.integers(1, 8)).tolist()
        adjusted = holm_adjusted(p)
        for alpha in (0.01, 0.05, 0.1):
            assert [a <= alpha for a in adjusted] == holm(p, alpha)
    assert holm_adjusted([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])


def test_exploratory_checks_are_shown_but_not_counted():
    seen = Claim("c", "p", "m", "r", True, OURS, exploratory=True)
    fixed = Claim("d", "p", "m", "r", True, OURS)
    assert verdict_counts([seen, fixed])[HOLDS] == 1
    assert "exploratory" in claims_frame([seen])["verdict"][0]
    assert "**holds**" not in claims_markdown([seen]) and "**holds**" in claims_markdown([fixed])


def test_paired_log_ratio_removes_what_the_pairs_share_and_matches_the_paired_t_test():
    rng = np.random.default_rng(3)
    shared = rng.normal(0.0, 1.0, 40)  # a large per-trial effect both samples carry
    a = np.exp(shared + 0.05 + rng.normal(0.0, 0.02, 40))
    b = np.exp(shared + rng.normal(0.0, 0.02, 40))
    iv, p, corr = paired_log_ratio(a, b)
    welch_iv = log_ratio_interval(a, b)
    assert iv.low > 1 and p < 1e-6 and corr > 0.99  # the 5% shift is found ...
    assert welch_iv.low < 1 < welch_iv.high  # ... which the unpaired interval cannot see
    assert (iv.high - iv.low) < 0.05 * (welch_iv.high - welch_iv.low)
    expected = stats.ttest_rel(np.log(a), np.log(b))
    assert p == pytest.approx(expected.pvalue, rel=1e-10)
    assert iv.estimate == pytest.approx(math.exp(np.mean(np.log(a) - np.log(b))), rel=1e-12) and iv.n == 40


def test_paired_log_ratio_refuses_samples_that_cannot_be_paired():
    with pytest.raises(ValueError, match="one length"):
        paired_log_ratio([1.0, 2.0, 3.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="positive"):
        paired_log_ratio([1.0, -2.0, 3.0], [1.0, 2.0, 3.0])


def test_a_size_with_a_caveat_is_reported_not_judged_and_an_undecided_size_is_not_holds():
    far = Interval(5.0, 4.0, 6.0, 0.95, 10)
    unsure = Interval(1.8, 1.5, 2.4, 0.95, 10)

    def claim(*mags):
        return Claim("c", "p", "m", "r", True, fastmix_paper("Figure 3"), magnitudes=mags)

    assert claim(Magnitude("speedup", 2.0, far)).verdict == HOLDS_IN_DIRECTION
    pinned = Magnitude("speedup", 2.0, far, caveat="1 thread, other machine")
    assert claim(pinned).verdict == HOLDS and not pinned.judged
    assert str(pinned).endswith("(size not judged: 1 thread, other machine)")
    assert claim(Magnitude("speedup", 2.0, unsure)).verdict == HOLDS_IN_DIRECTION  # not shown within the factor
    assert claim(Magnitude("speedup", 2.0, Interval(1.1, 0.9, 1.3, 0.95, 10))).verdict == HOLDS
