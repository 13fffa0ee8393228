"""Tests for fastmix_companion.claims: the statistics behind each page's claims table."""

import math

import numpy as np
import pytest
from scipy import stats

from fastmix_companion.claims import (
    Claim,
    claims_frame,
    claims_markdown,
    holm,
    log_ratio_interval,
    mean_interval,
    one_sided_less,
    percentile_of,
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
        Claim("a", "says a", "1 [0, 2]", "rule", True),
        Claim("b|c", "says b", "x", "rule", None),
        Claim("d", "says d", "y", "rule", False),
    ]
    frame = claims_frame(claims)
    assert list(frame["holds?"]) == ["holds", "undecided", "does not hold"]
    text = claims_markdown(claims)
    assert text.count("\n") == 4 and "b\\|c" in text and "**does not hold**" in text
