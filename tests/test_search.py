"""smallest_feasible (fastmix.accounting.search), the bisection behind every calibration."""

import math

import pytest

from fastmix.accounting import smallest_feasible


@pytest.mark.parametrize("root", [1e-6, 0.3, 1.0, 7.5, 4e5])
@pytest.mark.parametrize("rtol", [1e-4, 1e-10])
def test_returns_a_feasible_point_within_rtol_of_the_threshold(root, rtol):
    fn = lambda x: root / x  # noqa: E731 - decreasing; fn(x) <= 1 iff x >= root
    calls = []
    x = smallest_feasible(lambda t: calls.append(t) or fn(t), 1.0, 1e-9, 1e-3, rtol=rtol, shrink_lo=False)
    assert fn(x) <= 1.0
    assert x <= root * (1.0 + rtol) * (1.0 + 1e-15)
    assert len(calls) < 400


def test_shrink_lo_lowers_a_feasible_guess():
    x = smallest_feasible(lambda t: 2e-5 / t, 1.0, 1.0, 10.0, shrink_lo=True)
    assert 2e-5 <= x <= 2e-5 * (1 + 1e-9)


def test_whole_domain_feasible_returns_its_edge():
    assert smallest_feasible(lambda t: 0.0, 1.0, 2.0, 3.0) == 2.0


def test_infinite_values_mark_infeasible_points():
    x = smallest_feasible(lambda t: math.inf if t < 3.0 else 0.0, 0.5, 1.0, 2.0)
    assert 3.0 <= x <= 3.0 * (1 + 1e-9)


@pytest.mark.parametrize(
    "args, error",
    [
        (("not callable", 1.0, 1.0, 2.0), TypeError),
        ((abs, "1", 1.0, 2.0), TypeError),
        ((abs, math.nan, 1.0, 2.0), ValueError),
        ((abs, 1.0, 0.0, 2.0), ValueError),
        ((abs, 1.0, 2.0, 2.0), ValueError),
        ((abs, 1.0, 1.0, math.inf), ValueError),
    ],
)
def test_invalid_arguments(args, error):
    with pytest.raises(error):
        smallest_feasible(*args)


def test_invalid_rtol():
    with pytest.raises(ValueError, match="rtol"):
        smallest_feasible(abs, 1.0, 1.0, 2.0, rtol=0.0)
