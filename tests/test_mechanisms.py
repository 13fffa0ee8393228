"""Tests for fastmix.mechanisms: calibration ledgers, Algorithm 1 and Algorithm 3 step by step."""

import math

import numpy as np
import pytest

from fastmix import accounting as acc
from fastmix.mechanisms import (
    calibrate_fast_mix,
    calibrate_gaussian_mix,
    fast_mix,
    gaussian_mix,
    multiple_fast_mixing,
    prepare_data,
)
from fastmix.srht import SRHT, sketch_quantities


def _unit_rows(n, d, seed, zero_rows=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    X[:zero_rows] = 0.0
    return X


def _totals(entries):
    return math.fsum(e.epsilon for e in entries), math.fsum(e.delta for e in entries)


# --------------------------------------------------------------------------- calibration


@pytest.mark.parametrize("eps", [0.3, 1.0, 5.0])
@pytest.mark.parametrize("delta", [1e-10, 1e-5])
@pytest.mark.parametrize("T", [1, 4])
@pytest.mark.parametrize("k1", [20, 200])
@pytest.mark.parametrize("method", ["tight", "closed_form"])
def test_fast_mix_calibration_ledger_within_target(eps, delta, T, k1, method):
    cal = calibrate_fast_mix(eps, delta, k1=k1, n_draws=T, method=method)
    e, d = _totals(cal.ledger_entries())
    assert e <= eps and d <= delta  # exactly, not up to rounding
    assert len(cal.ledger_entries()) == 2 * T + 2
    # each part is what the algorithm really spends
    assert cal.epsilon_laplace == pytest.approx(2 * T / cal.omega)
    assert cal.delta_failure == pytest.approx(T * math.exp(-cal.tau))
    spent, _ = acc.fastmix_sketch_epsilon(cal.gamma, k1, cal.delta_sketch, compositions=T)
    assert spent == pytest.approx(cal.epsilon_sketch)
    assert cal.gamma > 5 / 4


def test_theorem_1_parameters_for_one_draw():
    """T = 1, failure share 2/3: tau = log(3/(2 delta)) and the sketch is converted at delta/3."""
    delta = 1e-6
    cal = calibrate_fast_mix(1.0, delta, k1=50)
    assert cal.tau == pytest.approx(math.log(3 / (2 * delta)))
    assert cal.delta_sketch == pytest.approx(delta / 3)
    # total epsilon of Theorem 1's tight form (eq. 114) at these parameters is within budget
    assert acc.fastmix_epsilon_tight(cal.omega, cal.gamma, 50, delta) <= 1.0 + 1e-9


def test_tight_calibration_needs_no_more_noise_than_closed_form():
    for eps in (0.5, 2.0, 8.0):
        tight = calibrate_fast_mix(eps, 1e-8, k1=100, n_draws=4)
        closed = calibrate_fast_mix(eps, 1e-8, k1=100, n_draws=4, method="closed_form")
        assert tight.gamma <= closed.gamma


def test_tau_min_raises_tau_and_lowers_the_recorded_failure():
    base = calibrate_fast_mix(1.0, 1e-6, k1=30, n_draws=4)
    higher = calibrate_fast_mix(1.0, 1e-6, k1=30, n_draws=4, tau_min=base.tau + 3)
    assert higher.tau == pytest.approx(base.tau + 3)
    assert higher.delta_failure < base.delta_failure


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"epsilon": 0.0}, "epsilon"),
        ({"epsilon": -1.0}, "epsilon"),
        ({"delta": 0.0}, "delta"),
        ({"delta": 1.0}, "delta"),
        ({"k1": 0}, "k1"),
        ({"laplace_share": 1.0}, "laplace_share"),
        ({"bound": "loose"}, "bound"),
        ({"method": "guess"}, "method"),
    ],
)
def test_calibration_bad_input(kwargs, match):
    args = dict(epsilon=1.0, delta=1e-6, k1=10)
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        calibrate_fast_mix(**args)


def test_gaussian_mix_calibration_and_release():
    cal = calibrate_gaussian_mix(1.0, 1e-6, k=40)
    e, d = _totals(cal.ledger_entries())
    assert e <= 1.0 + 1e-12 and d <= 1e-6
    assert cal.sigma == pytest.approx(math.sqrt(cal.gamma))
    lifted = calibrate_gaussian_mix(1.0, 1e-6, k=40, lambda_min_lower=cal.gamma / 2)
    assert lifted.sigma == pytest.approx(math.sqrt(cal.gamma / 2))
    X = _unit_rows(100, 3, 0)
    a = gaussian_mix(X, cal, random_state=1)
    b = gaussian_mix(X, cal, random_state=1)
    assert a.shape == (40, 3)
    np.testing.assert_array_equal(a, b)


# --------------------------------------------------------------------------- Algorithm 1


def test_fast_mix_follows_algorithm_1_line_by_line():
    n, d, k1, k2, seed = 256, 4, 30, 64, 5
    X = _unit_rows(n, d, 0, zero_rows=3)
    cal = calibrate_fast_mix(2.0, 1e-6, k1=k1)
    rel = fast_mix(X, cal, k2=k2, random_state=seed)
    # replay the same random stream by hand: SRHT draw, two Laplace draws, then S_G and xi
    rng = np.random.default_rng(seed)
    S = SRHT(n, k2, random_state=rng)
    q = sketch_quantities(np.asfortranarray(X), S)
    z1, z2 = rng.laplace(size=2)
    m_tilde = max(0.0, q.m_hat + cal.omega * q.delta_hat * (cal.tau - z1))
    lam_tilde = max(0.0, q.lambda_min - cal.omega * (q.Lambda_hat + 2 * m_tilde) * (cal.tau - z2))
    eta = math.sqrt(max(0.0, cal.gamma * (1 + 2 * m_tilde) - lam_tilde))
    S_G = rng.standard_normal((k1, k2))
    xi = rng.standard_normal((k1, d))
    assert rel.m_hat == q.m_hat and rel.delta_hat == q.delta_hat and rel.lambda_min == q.lambda_min
    assert rel.m_tilde == m_tilde and rel.lambda_tilde == lam_tilde and rel.eta_tilde == eta
    np.testing.assert_allclose(rel.sketch, S_G @ q.Z + eta * xi, rtol=1e-12, atol=1e-12)


def test_same_seed_is_bit_identical_and_different_seeds_differ():
    X = _unit_rows(128, 3, 1)
    cal = calibrate_fast_mix(1.0, 1e-5, k1=12)
    a = fast_mix(X, cal, k2=32, random_state=9)
    b = fast_mix(X, cal, k2=32, random_state=9)
    c = fast_mix(X, cal, k2=32, random_state=10)
    np.testing.assert_array_equal(a.sketch, b.sketch)
    assert a.eta_tilde == b.eta_tilde
    assert not np.array_equal(a.sketch, c.sketch)


def test_laplace_estimates_fail_with_the_accounted_probability():
    """P(m_tilde < m_hat or lambda_tilde > lambda_min) <= exp(-tau) (eq. 112).

    With a generous delta the calibration gives tau ~ 0.8, so the failure rate is large enough
    to estimate: each estimate fails with probability exp(-tau)/2 (one Laplace tail) and the
    two are independent, so the union fails with 1 - (1 - exp(-tau)/2)^2 <= exp(-tau).
    """
    X = _unit_rows(64, 2, 2)
    cal = calibrate_fast_mix(2.0, 0.5, k1=5, failure_share=0.9)
    p_one = math.exp(-cal.tau) / 2
    expected = 1 - (1 - p_one) ** 2
    rng = np.random.default_rng(3)
    R = 3000
    fails = 0
    for _ in range(R):
        rel = fast_mix(X, cal, k2=16, random_state=rng)
        # m_tilde >= m_hat iff z1 <= tau whenever Delta_hat > 0, and lambda likewise
        fails += (rel.m_tilde < rel.m_hat - 1e-12) or (rel.lambda_tilde > rel.lambda_min + 1e-12)
    se = math.sqrt(expected * (1 - expected) / R)
    assert abs(fails / R - expected) < 5 * se
    assert expected <= math.exp(-cal.tau)


@pytest.mark.parametrize("c_x", [1.0, 0.9, 2.5])
def test_on_the_good_event_the_effective_gamma_meets_equation_7(c_x):
    X = _unit_rows(512, 3, 4) * c_x
    cal = calibrate_fast_mix(1.0, 1e-6, k1=20, c_x=c_x)
    rng = np.random.default_rng(0)
    good = 0
    for _ in range(20):
        rel = fast_mix(X, cal, k2=64, random_state=rng)
        if rel.m_tilde >= rel.m_hat and rel.lambda_tilde <= rel.lambda_min:
            good += 1
            assert rel.gamma_effective >= cal.gamma * (1 - 1e-12)
        if rel.eta_tilde > 0 and rel.m_tilde == rel.m_hat and rel.lambda_tilde == rel.lambda_min:
            assert rel.gamma_effective == pytest.approx(cal.gamma, rel=1e-12)  # line 5 exactly
    assert good >= 10
    # the value is the eq. (7) ratio with C^2 = C_X (C_X + 2 m_hat), computed here from the parts
    assert rel.gamma_effective == pytest.approx(
        (rel.lambda_min + rel.eta_tilde**2) / (c_x * (c_x + 2 * rel.m_hat)), rel=1e-14
    )


def test_release_distribution_is_within_lemma_1_for_every_neighbour():
    """Conditioned on the draw, the release is k1 i.i.d. rows g^T Z + eta xi^T (eq. 6).

    On the good event the exact divergence to the release of each zero-out neighbour, with the
    same S_f and eta, is at most k1 phi_bar(alpha; gamma) (Lemma 1, eq. 115).
    """
    n, d, k1, k2 = 32, 2, 8, 8
    X = _unit_rows(n, d, 6, zero_rows=1)
    cal = calibrate_fast_mix(4.0, 1e-3, k1=k1)
    seed = 12
    rel = fast_mix(X, cal, k2=k2, random_state=seed)
    assert rel.m_tilde >= rel.m_hat and rel.lambda_tilde <= rel.lambda_min
    S = SRHT(n, k2, random_state=np.random.default_rng(seed)).to_dense()
    Z = S @ X
    alphas = np.linspace(1.05, 0.95 * acc.fastmix_alpha_max(cal.gamma), 12)
    bound = k1 * acc.fastmix_rdp_bar(alphas, cal.gamma)
    worst = 0.0
    for i in range(n):
        Xp = X.copy()
        Xp[i] = 0.0
        div = acc.gaussian_mix_divergence(alphas, Z, S @ Xp, rel.eta_tilde, rows=k1)
        worst = max(worst, float(np.max(div / bound)))
        assert np.all(div <= bound * (1 + 1e-9))
    print(f"largest divergence / Lemma 1 bound over neighbours and alphas: {worst:.3g}")


def test_identity_sketch_reduces_to_proposition_2():
    """k2 = n: S_f^T S_f = I, so m_hat = Delta_hat = 0, m_tilde = 0 and C^2 = 1 (Prop. 2 regime)."""
    X = _unit_rows(64, 3, 7)
    cal = calibrate_fast_mix(1.0, 1e-5, k1=10)
    rel = fast_mix(X, cal, k2=64, random_state=1)
    assert rel.delta_hat == 0.0 and rel.m_hat == pytest.approx(0.0, abs=1e-12)
    assert rel.m_tilde == pytest.approx(0.0, abs=1e-12)
    np.testing.assert_allclose(rel.lambda_min, np.linalg.eigvalsh(X.T @ X)[0], rtol=1e-9)
    alphas = np.array([1.5, 2.0, 3.0])
    np.testing.assert_allclose(acc.fastmix_rdp_exact(alphas, 10.0, 1.0), acc.gaussian_mix_rdp(alphas, 10.0))


def test_ledger_is_charged_and_refuses_a_second_release():
    X = _unit_rows(64, 2, 8)
    cal = calibrate_fast_mix(1.0, 1e-5, k1=10)
    ledger = acc.PrivacyLedger(1.0, 1e-5)
    rel = fast_mix(X, cal, k2=16, random_state=0, ledger=ledger)
    assert len(ledger.entries) == len(rel.ledger_entries) == 4
    assert ledger.total_epsilon <= 1.0 and ledger.total_delta <= 1e-5
    with pytest.raises(acc.BudgetExceededError):
        fast_mix(X, cal, k2=16, random_state=0, ledger=ledger)
    assert len(ledger.entries) == 4


def test_padding_and_clipping_are_recorded():
    X = _unit_rows(100, 3, 9)
    X[0] *= 3.0
    cal = calibrate_fast_mix(1.0, 1e-5, k1=10)
    with pytest.raises(ValueError, match="norm above the bound"):
        fast_mix(X, cal, k2=16, random_state=0)
    rel = fast_mix(X, cal, k2=16, random_state=0, row_norm_policy="clip")
    assert rel.row_norms.n_rows_over == 1 and rel.row_norms.policy == "clip"
    assert rel.padding.n_original == 100 and rel.padding.n_used == 128 and rel.n == 128
    with pytest.raises(ValueError, match="not a power of two"):
        fast_mix(_unit_rows(100, 3, 9), cal, k2=16, n_policy="raise")


@pytest.mark.parametrize("k2,match", [(0, "at least 1"), (129, "cannot exceed n = 128")])
def test_bad_sketch_size(k2, match):
    cal = calibrate_fast_mix(1.0, 1e-5, k1=10)
    with pytest.raises(ValueError, match=match):
        fast_mix(_unit_rows(128, 2, 0), cal, k2=k2)


def test_bad_data_and_mismatched_calibration():
    cal = calibrate_fast_mix(1.0, 1e-5, k1=10)
    X = _unit_rows(64, 2, 0)
    X[5, 0] = np.inf
    with pytest.raises(ValueError, match="non-finite"):
        fast_mix(X, cal, k2=8)
    with pytest.raises(ValueError, match="2-D"):
        fast_mix(np.ones(64), cal, k2=8)
    with pytest.raises(ValueError, match="multiple_fast_mixing"):
        fast_mix(_unit_rows(64, 2, 0), calibrate_fast_mix(1.0, 1e-5, k1=10, n_draws=3), k2=8)


# --------------------------------------------------------------------------- Algorithm 3


def test_multiple_fast_mixing_shares_the_largest_eta():
    X = _unit_rows(200, 3, 10)
    T = 4
    cal = calibrate_fast_mix(1.0, 1e-6, k1=12, n_draws=T)
    ledger = acc.PrivacyLedger(1.0, 1e-6)
    res = multiple_fast_mixing(X, cal, k2=32, random_state=3, ledger=ledger)
    assert res.n_draws == T and res.n == 256 and res.padding.n_added == 56
    assert res.eta == pytest.approx(res.eta_tilde.max())
    assert len(ledger.entries) == 2 * T + 2
    for t in range(T):
        assert res.srht_sketches[t].shape == (32, 3)
        np.testing.assert_allclose(
            res.eta_tilde[t] ** 2, max(0.0, cal.gamma * (1 + 2 * res.m_tilde[t]) - res.lambda_tilde[t])
        )
    private = res.release(0, k1=12, random_state=0)
    assert private.shape == (12, 3)
    per_draw = res.release(0, k1=12, random_state=0, noise_scale=res.eta_tilde[0])
    assert per_draw.shape == (12, 3)
    # independent draws: different SRHT sketches
    assert not np.allclose(res.srht_sketches[0], res.srht_sketches[1])


def test_prepare_data_layout_and_records():
    X = _unit_rows(48, 3, 11)
    p = prepare_data(X)
    assert p.X.shape == (64, 3) and p.X.flags.f_contiguous and p.padding.n_added == 16
    p = prepare_data(_unit_rows(64, 3, 11))
    assert p.padding.n_added == 0 and p.X.T.flags.c_contiguous


# --------------------------------------------------------------------------- the Gaussian step


@pytest.mark.parametrize("method", ["explicit", "gram"])
def test_gaussian_step_rows_have_the_lemma_1_covariance(method):
    """Both samplers give i.i.d. rows N(0, Z^T Z + s^2 I) (eqs. 20-21).

    The sample covariance of R rows has entrywise standard error about
    sqrt((S_ii S_jj + S_ij^2) / R); we allow 5 of them.
    """
    from fastmix.mechanisms import mix_sketch

    rng = np.random.default_rng(0)
    Z = rng.standard_normal((12, 3))
    s = 0.7
    target = Z.T @ Z + s**2 * np.eye(3)
    R = 40000
    rows = mix_sketch(Z, s, R, random_state=1, method=method)
    emp = rows.T @ rows / R
    se = np.sqrt((np.outer(np.diag(target), np.diag(target)) + target**2) / R)
    assert np.all(np.abs(emp - target) < 5 * se)
    assert np.abs(rows.mean(axis=0)).max() < 5 * np.sqrt(np.diag(target).max() / R)


def test_gaussian_step_method_is_validated_and_used_by_fast_mix():
    from fastmix.mechanisms import mix_sketch

    with pytest.raises(ValueError, match="method must be one of"):
        mix_sketch(np.ones((2, 2)), 1.0, 3, method="fft")
    cal = calibrate_fast_mix(1.0, 1e-5, k1=10)
    rel = fast_mix(_unit_rows(64, 2, 0), cal, k2=16, random_state=0, gaussian_step="gram")
    assert rel.sketch.shape == (10, 2)
    with pytest.raises(ValueError, match="gaussian_step"):
        fast_mix(_unit_rows(64, 2, 0), cal, k2=16, gaussian_step="fft")


# --------------------------------------------------------------------------- options of a FastMix draw


def test_draw_options_default_to_the_algorithms_and_store_a_float_floor():
    from fastmix.mechanisms import FastMixDrawOptions

    assert FastMixDrawOptions() == FastMixDrawOptions(m_floor=0.0, backend=None)
    options = FastMixDrawOptions(m_floor=1, backend="numpy")
    assert options.m_floor == 1.0 and type(options.m_floor) is float and options.backend == "numpy"
    assert FastMixDrawOptions(m_floor=np.float32(2.5)).m_floor == 2.5
    assert hash(options) == hash(FastMixDrawOptions(m_floor=1.0, backend="numpy"))


def test_draw_options_are_immutable():
    import dataclasses

    from fastmix.mechanisms import FastMixDrawOptions

    options = FastMixDrawOptions(m_floor=1.0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.m_floor = -1.0  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.backend = "numpy"  # type: ignore[misc]
    # a changed copy is checked like a new one
    with pytest.raises(ValueError, match="m_floor must be >= 0; got -1"):
        dataclasses.replace(options, m_floor=-1)


@pytest.mark.parametrize(
    "kwargs, exc, msg",
    [
        ({"m_floor": -1}, ValueError, r"m_floor must be >= 0; got -1\."),
        ({"m_floor": -0.5}, ValueError, r"m_floor must be >= 0; got -0\.5\."),
        ({"m_floor": math.inf}, ValueError, r"m_floor must be finite; got inf\."),
        ({"m_floor": math.nan}, ValueError, r"m_floor must be a number; got NaN\."),
        ({"m_floor": "1"}, TypeError, r"m_floor must be a real number; got '1' of type str\."),
        ({"m_floor": True}, TypeError, r"m_floor must be a real number; got True of type bool\."),
        ({"m_floor": None}, TypeError, r"m_floor must be a real number; got None of type NoneType\."),
        (
            {"backend": 3},
            TypeError,
            r"backend must be None or the name of a Walsh-Hadamard backend; got 3 of type int\.",
        ),
        ({"backend": "gpu"}, ValueError, r"backend must be None .* installed here, .*'numpy'.*; got 'gpu'\."),
        ({"backend": "NumPy"}, ValueError, r"got 'NumPy'\."),
    ],
)
def test_draw_options_refuse_bad_values_saying_what_they_got(kwargs, exc, msg):
    from fastmix.mechanisms import FastMixDrawOptions

    with pytest.raises(exc, match=msg):
        FastMixDrawOptions(**kwargs)


@pytest.mark.parametrize("kwargs", [{"m_floor": -1.0}, {"backend": "gpu"}])
def test_fast_mix_and_multiple_fast_mixing_check_the_draw_options_before_spending(kwargs):
    X = _unit_rows(64, 3, 0)
    ledger = acc.PrivacyLedger(10.0, 1e-3)
    with pytest.raises(ValueError, match=r"m_floor|backend"):
        fast_mix(X, calibrate_fast_mix(1.0, 1e-6, k1=8), k2=16, random_state=0, ledger=ledger, **kwargs)
    with pytest.raises(ValueError, match=r"m_floor|backend"):
        multiple_fast_mixing(
            X, calibrate_fast_mix(1.0, 1e-6, k1=8, n_draws=2), k2=16, random_state=0, ledger=ledger, **kwargs
        )
    assert ledger.entries == ()


def test_m_floor_clamps_every_m_tilde_of_multiple_fast_mixing():
    """Algorithm 3, line 7 with the floor: m_tilde_t = max{m_floor, ...}, and the draws are unchanged."""
    X = _unit_rows(128, 3, 1)
    cal = calibrate_fast_mix(1.0, 1e-6, k1=8, n_draws=3)
    base = multiple_fast_mixing(X, cal, k2=32, random_state=4)
    floor = float(base.m_tilde.max()) + 1.0
    high = multiple_fast_mixing(X, cal, k2=32, random_state=4, m_floor=floor)
    np.testing.assert_array_equal(high.m_tilde, np.full(3, floor))
    for a, b in zip(base.srht_sketches, high.srht_sketches, strict=True):  # same SRHT draws
        np.testing.assert_array_equal(a, b)
    assert np.all(high.eta_tilde >= base.eta_tilde)
