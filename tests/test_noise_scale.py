"""Tests of the Figure 1 noise-scale functions (fastmix.accounting.noise_scale)."""

import math

import numpy as np
import pytest

from fastmix.accounting import (
    noise_gamma_for_epsilon,
    sketch_epsilon_for_noise,
    sketch_noise_for_epsilon,
    upadhyay_noise_scale,
)

N = 10_000
D = 10
K = 80
DELTA = 1.0 / N**2
LAM_X = N / (8 * D)
LAM_F = 5.0 / 6.0 * LAM_X
EPS = np.array([0.01, 0.03, 0.1, 0.3, 1.0, 3.0])
CASES = [
    ("fastmix", "exact", LAM_F),
    ("fastmix", "bar", LAM_F),
    ("fastmix_unbounded", "exact", LAM_F),
    ("gaussmix", "exact", LAM_X),
]


@pytest.mark.parametrize("mechanism,bound,lam", CASES)
def test_noise_is_nonincreasing_in_epsilon(mechanism, bound, lam):
    sig = sketch_noise_for_epsilon(EPS, DELTA, K, lambda_min=lam, mechanism=mechanism, bound=bound)
    assert sig.shape == EPS.shape
    assert np.all(sig >= 0)
    assert np.all(np.diff(sig) <= 1e-9 * sig[0])
    # and the gamma it is built from strictly decreases
    gam = [noise_gamma_for_epsilon(e, DELTA, K, mechanism=mechanism, bound=bound) for e in EPS]
    assert np.all(np.diff(gam) < 0)


@pytest.mark.parametrize("mechanism,bound,lam", CASES)
@pytest.mark.parametrize("lam_scale", [0.0, 1.0])
def test_round_trip_epsilon_at_returned_sigma_meets_target(mechanism, bound, lam, lam_scale):
    for e in EPS:
        s = sketch_noise_for_epsilon(e, DELTA, K, lambda_min=lam * lam_scale, mechanism=mechanism, bound=bound)
        got = sketch_epsilon_for_noise(s, DELTA, K, lambda_min=lam * lam_scale, mechanism=mechanism, bound=bound)
        assert got <= e * (1 + 1e-9), (mechanism, bound, e, s, got)
        if s > 0:  # and the target is nearly attained: 1% less noise breaks it
            worse = sketch_epsilon_for_noise(
                0.99 * s, DELTA, K, lambda_min=lam * lam_scale, mechanism=mechanism, bound=bound
            )
            assert worse > e


def test_exact_bound_needs_no_more_noise_than_bar_and_simple():
    for e in EPS:
        ex = noise_gamma_for_epsilon(e, DELTA, K, c2=2.0, bound="exact")
        bar = noise_gamma_for_epsilon(e, DELTA, K, c2=2.0, bound="bar")
        simple = noise_gamma_for_epsilon(e, DELTA, K, c2=2.0, bound="simple")
        assert ex <= bar * (1 + 1e-8) <= simple * (1 + 1e-8)


def test_c2_one_recovers_gaussmix():
    for e in EPS:
        a = noise_gamma_for_epsilon(e, DELTA, K, c2=1.0, bound="exact")
        b = noise_gamma_for_epsilon(e, DELTA, K, mechanism="gaussmix")
        assert a == pytest.approx(b, rel=1e-8)


def test_ordering_gaussmix_le_fastmix_c2_le_unbounded():
    # Same lambda_min for all three, so only the accounting differs: GaussMix (C^2 = 1) needs the
    # least noise, FastMix with C^2 = 2 more, and the C^2 -> inf bound the most (in sigma^2 terms).
    for e in EPS:
        g = sketch_noise_for_epsilon(e, DELTA, K, lambda_min=0.0, mechanism="gaussmix")
        f = sketch_noise_for_epsilon(e, DELTA, K, lambda_min=0.0, c2=2.0)
        u = sketch_noise_for_epsilon(e, DELTA, K, lambda_min=0.0, mechanism="fastmix_unbounded")
        assert g <= f <= u
    # with the Figure 1 eigenvalues too (lambda_min(S_f X) = 5/6 lambda_min(X) only widens the gap)
    g = sketch_noise_for_epsilon(EPS, DELTA, K, lambda_min=LAM_X, mechanism="gaussmix")
    f = sketch_noise_for_epsilon(EPS, DELTA, K, lambda_min=LAM_F, c2=2.0)
    assert np.all(g <= f)


def test_fastmix_needs_far_less_noise_than_upadhyay_form():
    """Section 3: 'our approach typically reduces sigma^2 by more than two orders of magnitude'."""
    for n in (1e4, 1e5):
        delta = 1.0 / n**2
        lam_f = 5.0 / 6.0 * n / (8 * D)
        for e in (0.01, 0.1, 1.0):
            f = sketch_noise_for_epsilon(e, delta, K, lambda_min=lam_f, mechanism="fastmix_unbounded")
            u = upadhyay_noise_scale(e, delta, K, lam_f)
            u0 = upadhyay_noise_scale(e, delta, K, lam_f, C=1, a=1, b=1)
            ratio = u**2 / max(f**2, 1e-300)
            print(
                f"n={n:.0e} eps={e}: sigma_U^2/sigma_FastMix(C^2->inf)^2 = {ratio:.3g} "
                f"(constant-free form: {u0**2 / max(f**2, 1e-300):.3g})"
            )
            assert ratio > 100
            assert u0 > f


def test_upadhyay_formula_and_floor():
    s = upadhyay_noise_scale(1.0, 1e-5, 10, 0.0, C=1, a=1, b=1)
    assert s == pytest.approx(math.sqrt(10 * math.log(1e5)) * math.log(10 / 1e-5))
    assert upadhyay_noise_scale(1.0, 1e-5, 10, 1e12) == 0.0
    arr = upadhyay_noise_scale(np.array([1.0, 2.0]), 1e-5, 10, 0.0)
    assert arr[0] == pytest.approx(2 * arr[1])


def test_bad_inputs_raise():
    with pytest.raises(ValueError, match="mechanism"):
        sketch_noise_for_epsilon(1.0, 1e-5, 10, lambda_min=0.0, mechanism="nope")
    with pytest.raises(ValueError, match="bound"):
        sketch_noise_for_epsilon(1.0, 1e-5, 10, lambda_min=0.0, bound="nope")
    with pytest.raises(ValueError, match="c2"):
        sketch_noise_for_epsilon(1.0, 1e-5, 10, lambda_min=0.0, c2=0.5)
    with pytest.raises(ValueError):
        sketch_noise_for_epsilon(1.0, 1e-5, 10, lambda_min=-1.0)
    with pytest.raises(ValueError):
        upadhyay_noise_scale(-1.0, 1e-5, 10, 0.0)
    with pytest.raises(ValueError):
        upadhyay_noise_scale(1.0, 2.0, 10, 0.0)
