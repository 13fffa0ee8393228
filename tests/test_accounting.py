"""Tests for fastmix.accounting (FastMix paper, arXiv:2605.30600).

Run ``pytest -s tests/test_accounting.py`` to see the Lemma 1 tightness ratios.
"""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest
from scipy.linalg import hadamard

from fastmix import accounting as acc

# ---------------------------------------------------------------------------------------
# conversions
# ---------------------------------------------------------------------------------------

ALPHAS = np.array([1.001, 1.1, 1.5, 2.0, 5.0, 20.0, 300.0])


@pytest.mark.parametrize("delta", [1e-12, 1e-6, 1e-2, 0.5])
def test_canonne_never_exceeds_classic(delta):
    rdp = np.linspace(0.0, 3.0, ALPHAS.size)
    tight = acc.rdp_to_dp_epsilon(rdp, ALPHAS, delta)
    classic = acc.rdp_to_dp_epsilon_classic(rdp, ALPHAS, delta)
    assert np.all(tight <= classic + 1e-15)


def test_conversions_decrease_in_delta():
    deltas = np.array([1e-12, 1e-8, 1e-4, 1e-2, 0.3])
    for conv in (acc.rdp_to_dp_epsilon, acc.rdp_to_dp_epsilon_classic):
        eps = np.array([conv(0.1, 3.0, d) for d in deltas])
        assert np.all(np.diff(eps) < 0)


def test_conversion_formulas():
    r, a, d = 0.2, 4.0, 1e-5
    assert acc.rdp_to_dp_epsilon(r, a, d) == pytest.approx(r + math.log(1 - 1 / a) - math.log(a * d) / (a - 1))
    assert acc.rdp_to_dp_epsilon_classic(r, a, d) == pytest.approx(r + math.log(1 / d) / (a - 1))
    assert isinstance(acc.rdp_to_dp_epsilon(r, a, d), float)


def test_epsilon_from_rdp_matches_gaussian_closed_form():
    # Gaussian mechanism, classic conversion: min_a a c + L/(a-1) = c + 2 sqrt(c L).
    c, delta = 0.01, 1e-6
    L = math.log(1 / delta)
    eps, a_star = acc.epsilon_from_rdp(lambda a: c * np.asarray(a), delta, np.inf, conversion="classic")
    assert eps == pytest.approx(c + 2 * math.sqrt(c * L), rel=1e-9)
    assert a_star == pytest.approx(1 + math.sqrt(L / c), rel=1e-4)
    # a non-vectorised callable works too
    eps2, _ = acc.epsilon_from_rdp(lambda a: c * float(a), delta, np.inf, conversion="classic")
    assert eps2 == pytest.approx(eps, rel=1e-9)


def test_epsilon_from_rdp_finds_orders_close_to_one():
    # large RDP slope: the optimum alpha* = 1 + sqrt(L/c) ~ 1.37 is far below 1e-6 * ALPHA_CAP
    c, delta = 100.0, 1e-6
    L = math.log(1 / delta)
    eps, a_star = acc.epsilon_from_rdp(lambda a: c * np.asarray(a), delta, np.inf, conversion="classic")
    assert eps == pytest.approx(c + 2 * math.sqrt(c * L), rel=1e-9)
    assert a_star == pytest.approx(1 + math.sqrt(L / c), rel=1e-4)


def test_epsilon_from_rdp_is_min_over_grid():
    gamma, k, delta = 40.0, 20, 1e-6
    eps, a_star = acc.gaussian_sketch_epsilon(gamma, k, delta)
    grid = np.linspace(1.0001, gamma * 0.99999, 20001)
    brute = np.min(k * acc._gaussian_mix_rdp(grid, gamma) + acc._canonne_term(grid, delta))
    assert eps <= brute + 1e-12
    assert eps == pytest.approx(brute, rel=1e-6)
    assert 1 < a_star < gamma


# ---------------------------------------------------------------------------------------
# Renyi bounds: ordering, limits
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("gamma", [3.2, 5.0, 20.0, 300.0])
@pytest.mark.parametrize("c2", [1.0, 1.3, 3.0, 50.0])
def test_bound_ordering(gamma, c2):
    a = np.linspace(1.0 + 1e-6, 8 * gamma / 25, 60)[:-1]
    g = acc.gaussian_mix_rdp(a, gamma)
    ex = acc.fastmix_rdp_exact(a, gamma, c2)
    bar = acc.fastmix_rdp_bar(a, gamma)
    phi45 = acc.gaussian_mix_rdp(a, 4 * gamma / 5)  # eq. (58), Claim 2
    simple = acc.fastmix_rdp_simple(a, gamma)
    tol = 1e-12
    assert np.all(g <= ex * (1 + tol))
    assert np.all(ex <= bar * (1 + tol))
    assert np.all(bar <= phi45 * (1 + tol))
    assert np.all(phi45 <= simple * (1 + tol))  # Lev et al. 2025, Corollary 1


def test_exact_with_c2_one_is_gaussian():
    a = np.linspace(1.01, 9.9, 50)
    np.testing.assert_allclose(acc.fastmix_rdp_exact(a, 10.0, 1.0), acc.gaussian_mix_rdp(a, 10.0), rtol=1e-14)


def test_exact_increases_to_bar():
    a = np.array([1.05, 2.0, 4.0, 7.5])
    gamma = 10.0
    vals = [acc.fastmix_rdp_exact(a, gamma, c2) for c2 in (1.0, 1.5, 3.0, 10.0, 1e3, 1e8)]
    for lo, hi in itertools.pairwise(vals):
        assert np.all(lo <= hi)
    np.testing.assert_allclose(vals[-1], acc.fastmix_rdp_bar(a, gamma), rtol=1e-7)
    np.testing.assert_allclose(acc.fastmix_rdp_exact(a, gamma, np.inf), acc.fastmix_rdp_bar(a, gamma), rtol=1e-14)


def test_unbounded_forms():
    g = 400.0
    a = np.linspace(1.01, math.sqrt(g) / 5 - 1e-9, 30)
    # eq. (130) = eq. (131) = phi(alpha; 1/c)
    c = 2 / math.sqrt(g) - 1 / g
    direct = (2 * a * np.log(1 - 1 / math.sqrt(g)) - np.log(1 - 2 * a / math.sqrt(g) + a / g)) / (2 * (a - 1))
    np.testing.assert_allclose(acc.fastmix_rdp_unbounded(a, g), direct, rtol=1e-10)
    np.testing.assert_allclose(acc.fastmix_rdp_unbounded(a, g), acc.gaussian_mix_rdp(a, 1 / c), rtol=1e-12)
    assert np.all(acc.fastmix_rdp_unbounded(a, g) <= acc.fastmix_rdp_unbounded_simple(a, g))
    # the exact log domain of eq. (76) extends beyond D.2's sqrt(g)/2
    assert acc.fastmix_alpha_max(g, "unbounded") > math.sqrt(g) / 2
    assert np.isfinite(acc.fastmix_rdp_unbounded(0.999 * acc.fastmix_alpha_max(g, "unbounded"), g))


def test_alpha_max_and_gamma_bar():
    assert acc.fastmix_alpha_max(10.0, "bar") == pytest.approx(8.0)
    assert acc.fastmix_alpha_max(10.0, "simple") == pytest.approx(3.2)
    assert acc.fastmix_alpha_max(10.0, "gaussian") == pytest.approx(10.0)
    assert acc.fastmix_alpha_max(10.0, "exact", c2=1.0) == pytest.approx(10.0)
    assert acc.fastmix_gamma_bar(1.0) == pytest.approx(1.0)
    assert acc.fastmix_gamma_bar(np.inf) == pytest.approx((1 + math.sqrt(2)) / 2)
    # eq. (53) is exactly where the second logarithm vanishes
    c2, gamma = 2.5, 6.0
    q = ((1 - c2) / c2) ** 2
    a_end = acc.fastmix_alpha_max(gamma, "exact", c2=c2)
    assert 1 - a_end / gamma - a_end**2 * q / (4 * gamma**2) == pytest.approx(0.0, abs=1e-12)


def test_gaussian_mechanism_rdp():
    assert acc.gaussian_mechanism_rdp(3.0, 2.0, 4.0) == pytest.approx(3.0 * 4.0 / 32.0)


# ---------------------------------------------------------------------------------------
# closed forms versus numerics
# ---------------------------------------------------------------------------------------

GRID = [
    (g, k, d) for g in (3.3, 5.0, 12.0, 60.0, 500.0, 5000.0) for k in (1, 7, 100, 2000) for d in (1e-10, 1e-5, 0.05)
]


def _numeric_min(bound_fn, A_scale, L, alpha_hi):
    """min over alpha in (1, alpha_hi) of A_scale * bound(alpha) + L/(alpha-1), numerically."""
    eps, _ = acc._epsilon_from_rdp(lambda a: A_scale * bound_fn(a), math.exp(-L), alpha_hi, "classic")
    return eps


@pytest.mark.parametrize("gamma,k1,delta", GRID)
def test_sketch_closed_form_is_exact_min_of_simple_bound(gamma, k1, delta):
    cf = acc.sketch_epsilon_closed_form(gamma, k1, delta)
    num = _numeric_min(lambda a: acc._fastmix_rdp_simple(a, gamma), k1, math.log(1 / delta), 8 * gamma / 25)
    # the closed form is the infimum over the open range; the numeric minimum approaches it from above
    assert cf == pytest.approx(num, rel=1e-6)
    assert cf <= num * (1 + 1e-12)
    # ... and never below the tight numerics (phi_bar with the Canonne conversion)
    assert cf >= acc.fastmix_sketch_epsilon(gamma, k1, delta)[0]


@pytest.mark.parametrize(
    "g,k1,delta", [(g, k, d) for g in (26.0, 100.0, 1e3, 1e5) for k in (1, 30, 3000) for d in (1e-10, 1e-3)]
)
def test_unbounded_closed_form_is_exact_min(g, k1, delta):
    cf = acc.sketch_epsilon_closed_form_unbounded(g, k1, delta)
    num = _numeric_min(lambda a: acc._fastmix_rdp_unbounded_simple(a, g), k1, math.log(1 / delta), math.sqrt(g) / 5)
    # the closed form is the infimum over the open range; the numeric minimum approaches it from above
    assert cf == pytest.approx(num, rel=1e-6)
    assert cf <= num * (1 + 1e-12)
    assert cf >= acc.fastmix_sketch_epsilon(g, k1, delta, bound="unbounded")[0]


@pytest.mark.parametrize("gamma,k1,delta", GRID)
@pytest.mark.parametrize("omega", [0.5, 10.0, 1e4])
def test_theorem1_closed_form_dominates_tight(gamma, k1, delta, omega):
    cf = acc.fastmix_epsilon_closed_form(omega, gamma, k1, delta)
    tight = acc.fastmix_epsilon_tight(omega, gamma, k1, delta)
    assert cf >= tight
    # eq. (9) equals 2/omega + the eq. (134) closed form at delta/3
    assert cf == pytest.approx(2 / omega + acc.sketch_epsilon_closed_form(gamma, k1, delta / 3), rel=1e-12)


def test_theorem1_closed_form_branches_match_paper_text():
    # eq. (9) written out literally, both branches
    for gamma, k1, delta in [(500.0, 2000, 1e-10), (5.0, 1, 1e-5), (60.0, 100, 0.05)]:
        L = math.log(3 / delta)
        A = 25 * k1 / (32 * gamma**2)
        if L <= (8 * gamma / 25 - 1) ** 2 * A:
            ref = A + 2 * math.sqrt(A * L)
        else:
            ref = k1 / (4 * gamma) + 25 * L / (8 * gamma - 25)
        assert acc.fastmix_epsilon_closed_form(1.0, gamma, k1, delta) == pytest.approx(2 + ref, rel=1e-12)


# ---------------------------------------------------------------------------------------
# exact Gaussian Renyi divergence
# ---------------------------------------------------------------------------------------


def _mp_renyi(alpha, cov_p, cov_q):
    """D_alpha from its defining integral (1/(alpha-1)) log int p^alpha q^(1-alpha), via mpmath.quad.

    An independent reference: no determinant identity is used, only the two densities.
    """
    mpmath.mp.dps = 15
    d = cov_p.shape[0]
    Pi, Qi = np.linalg.inv(cov_p), np.linalg.inv(cov_q)
    lp = mpmath.mpf(-0.5 * math.log(np.linalg.det(cov_p)) - 0.5 * d * math.log(2 * math.pi))
    lq = mpmath.mpf(-0.5 * math.log(np.linalg.det(cov_q)) - 0.5 * d * math.log(2 * math.pi))
    a = mpmath.mpf(alpha)
    if d == 1:

        def integrand_1d(x):
            return mpmath.exp(a * (lp - Pi[0, 0] * x * x / 2) + (1 - a) * (lq - Qi[0, 0] * x * x / 2))

        val = mpmath.quad(integrand_1d, [-mpmath.inf, 0, mpmath.inf])
    else:
        p00, p01, p11 = (mpmath.mpf(float(v)) for v in (Pi[0, 0], Pi[0, 1], Pi[1, 1]))
        q00, q01, q11 = (mpmath.mpf(float(v)) for v in (Qi[0, 0], Qi[0, 1], Qi[1, 1]))

        def integrand_2d(x, y):
            qp = p00 * x * x + 2 * p01 * x * y + p11 * y * y
            qq = q00 * x * x + 2 * q01 * x * y + q11 * y * y
            return mpmath.exp(a * (lp - qp / 2) + (1 - a) * (lq - qq / 2))

        # for these covariances the integrand is a Gaussian kernel whose smallest precision
        # eigenvalue is ~0.33, so outside |x|, |y| <= 12 it is below 1e-10 of its peak
        val = mpmath.quad(integrand_2d, [-12, 12], [-12, 12])
    return float(mpmath.log(val) / (a - 1))


def test_divergence_1d_closed_form_and_integral():
    for a_var, b_var, alpha in [(1.0, 2.0, 1.5), (3.0, 2.0, 2.5), (2.0, 2.3, 7.0)]:
        mix = (1 - alpha) * a_var + alpha * b_var
        closed = -math.log(mix / (a_var ** (1 - alpha) * b_var**alpha)) / (2 * (alpha - 1))
        got = acc.gaussian_renyi_divergence(alpha, [[a_var]], [[b_var]])
        assert got == pytest.approx(closed, rel=1e-12)
        assert got == pytest.approx(_mp_renyi(alpha, np.array([[a_var]]), np.array([[b_var]])), rel=1e-6)


def test_divergence_2d_integral():
    P = np.array([[2.0, 0.3], [0.3, 1.0]])
    Q = np.array([[1.6, -0.2], [-0.2, 1.4]])
    got = acc.gaussian_renyi_divergence(1.7, P, Q)
    assert got == pytest.approx(_mp_renyi(1.7, P, Q), rel=1e-6)


def test_divergence_zero_and_infinite():
    P = np.array([[2.0, 0.3], [0.3, 1.0]])
    np.testing.assert_allclose(acc.gaussian_renyi_divergence([1.5, 3.0, 50.0], P, P), 0.0, atol=1e-15)
    # (1-alpha) P + alpha Q loses definiteness when P > Q and alpha is large: 1-D, P=2, Q=1 -> alpha >= 2
    vals = acc.gaussian_renyi_divergence(np.array([1.5, 1.99, 2.0, 3.0]), [[2.0]], [[1.0]])
    assert np.all(np.isfinite(vals[:2])) and np.all(np.isinf(vals[2:]))


def test_mix_divergence_matches_covariance_form():
    rng = np.random.default_rng(3)
    Z, Zp = rng.normal(size=(5, 3)), rng.normal(size=(5, 3))
    sigma = 1.3
    P = Z.T @ Z + sigma**2 * np.eye(3)
    Q = Zp.T @ Zp + sigma**2 * np.eye(3)
    a = np.array([1.2, 1.5])
    np.testing.assert_allclose(
        acc.gaussian_mix_divergence(a, Z, Zp, sigma, rows=4), 4 * acc.gaussian_renyi_divergence(a, P, Q), rtol=1e-10
    )


# ---------------------------------------------------------------------------------------
# Lemma 1 against the exact divergence
# ---------------------------------------------------------------------------------------


def _srht(n, k, rng):
    """Explicit S_f = sqrt(n/k) P H B (Definition 3): unit column norms."""
    H = hadamard(n) / math.sqrt(n)
    signs = rng.choice([-1.0, 1.0], size=n)
    rows = rng.choice(n, size=k, replace=False)
    return math.sqrt(n / k) * H[rows] * signs


def _lemma1_constants(S, X):
    """C^2 = 1 + 2 max_i ||Z^T S e_i - x_i|| and lambda_min(Z^T Z), Z = S X (Lemma 1)."""
    Z = S @ X
    resid = Z.T @ S - X.T  # column i is Z^T S e_i - x_i
    c2 = 1.0 + 2.0 * float(np.max(np.linalg.norm(resid, axis=0)))
    lam = float(max(np.linalg.eigvalsh(Z.T @ Z)[0], 0.0))
    return Z, c2, lam


def _datasets(n, rng):
    out = []
    for d in (1, 2, 3):
        X = rng.normal(size=(n, d))
        X /= np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1.0)
        out.append(X)  # norms <= 1
        Xu = X / np.linalg.norm(X, axis=1, keepdims=True)
        out.append(Xu)  # all norms exactly 1
        Xz = Xu.copy()
        Xz[rng.choice(n, size=n // 4, replace=False)] = 0.0
        out.append(Xz)  # some zero rows
    single = np.zeros((n, 2))
    single[0] = [0.6, 0.8]
    out.append(single)  # one non-zero row: its neighbour is the zero dataset
    return out


def _bounds(alpha_grid_n, gamma_f, c2, gamma_inf):
    """Each applicable bound as (name, alphas, values)."""
    out = []
    gbar = acc.fastmix_gamma_bar(c2)
    if gamma_f > gbar:
        a = np.linspace(1.0, gamma_f / gbar, alpha_grid_n + 2)[1:-1]
        out.append(("exact", a, acc.fastmix_rdp_exact(a, gamma_f, c2)))
    if gamma_f > 1.25:
        a = np.linspace(1.0, 0.8 * gamma_f, alpha_grid_n + 2)[1:-1]
        out.append(("bar", a, acc.fastmix_rdp_bar(a, gamma_f)))
    if gamma_f > 25 / 8:
        a = np.linspace(1.0, 8 * gamma_f / 25, alpha_grid_n + 2)[1:-1]
        out.append(("simple", a, acc.fastmix_rdp_simple(a, gamma_f)))
    if gamma_inf > 1:
        a = np.linspace(1.0, acc.fastmix_alpha_max(gamma_inf, "unbounded"), alpha_grid_n + 2)[1:-1]
        out.append(("unbounded", a, acc.fastmix_rdp_unbounded(a, gamma_inf)))
    return out


def test_lemma1_holds_for_explicit_srht():
    rng = np.random.default_rng(20260530)
    ratios = {}
    checked = 0
    for n in (8, 16, 32):
        for k in sorted({2, n // 4, n // 2}):
            for X in _datasets(n, rng):
                S = _srht(n, k, rng)
                assert np.allclose(np.linalg.norm(S, axis=0), 1.0)
                Z, c2, lam = _lemma1_constants(S, X)
                for gamma_target in (3.3, 12.0):
                    sigma2 = gamma_target * c2 - lam
                    if sigma2 <= 0:
                        continue
                    sigma = math.sqrt(sigma2)
                    gamma_f = (lam + sigma2) / c2
                    assert gamma_f > 25 / 8  # eq. (7)
                    for i in range(n):
                        Xp = X.copy()
                        Xp[i] = 0.0
                        Zp, c2p, lamp = _lemma1_constants(S, Xp)
                        # removal: D(M(X) || M(X')), bounds from X
                        for name, a, bnd in _bounds(12, gamma_f, c2, lam + sigma2):
                            div = acc.gaussian_mix_divergence(a, Z, Zp, sigma)
                            r = float(np.max(div / bnd))
                            key = ("remove", name)
                            ratios[key] = max(ratios.get(key, 0.0), r)
                            checked += 1
                        # addition: D(M(X') || M(X)), X is an add-one neighbour of X'; bounds from X'
                        gamma_fp = (lamp + sigma2) / c2p
                        for name, a, bnd in _bounds(12, gamma_fp, c2p, lamp + sigma2):
                            div = acc.gaussian_mix_divergence(a, Zp, Z, sigma)
                            r = float(np.max(div / bnd))
                            key = ("add", name)
                            ratios[key] = max(ratios.get(key, 0.0), r)
                            checked += 1
    print(f"\nLemma 1 tightness (max exact divergence / bound) over {checked} checks:")
    for key in sorted(ratios):
        print(f"  {key[0]:>6s} {key[1]:>9s}: {ratios[key]:.4f}")
    assert {k[1] for k in ratios} == {"exact", "bar", "simple", "unbounded"}
    for key, r in ratios.items():
        assert r <= 1 + 1e-9, f"Lemma 1 bound {key} violated: ratio {r}"


def test_orthogonal_sketch_reduces_to_proposition2():
    rng = np.random.default_rng(7)
    n = 16
    S = (hadamard(n) / math.sqrt(n)) * rng.choice([-1.0, 1.0], size=n)  # k = n, S^T S = I
    assert np.allclose(S.T @ S, np.eye(n))
    worst = 0.0
    for X in _datasets(n, rng):
        _, c2, lam = _lemma1_constants(S, X)
        assert c2 == pytest.approx(1.0, abs=1e-12)
        assert lam == pytest.approx(max(np.linalg.eigvalsh(X.T @ X)[0], 0.0), abs=1e-10)
        for sigma2 in (2.0, 10.0):
            gamma = lam + sigma2
            a = np.linspace(1.0, gamma, 14)[1:-1]
            bound = acc.gaussian_mix_rdp(a, gamma)
            np.testing.assert_allclose(acc.fastmix_rdp_exact(a, gamma, 1.0), bound, rtol=1e-14)
            for i in range(n):
                Xp = X.copy()
                Xp[i] = 0.0
                for P_, Q_ in ((X, Xp), (Xp, X)):
                    div = acc.gaussian_mix_divergence(a, S @ P_, S @ Q_, math.sqrt(sigma2))
                    # Prop. 2 needs gamma <= lambda_min + sigma^2 of the first argument's dataset
                    g_first = max(np.linalg.eigvalsh(P_.T @ P_)[0], 0.0) + sigma2
                    a_ok = a[a < g_first]
                    b_ok = acc.gaussian_mix_rdp(a_ok, g_first)
                    worst = max(worst, float(np.max(div[: a_ok.size] / b_ok)))
    print(f"\nProposition 2 tightness with S_f^T S_f = I: {worst:.4f}")
    assert worst <= 1 + 1e-9


# ---------------------------------------------------------------------------------------
# inverse solvers
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("eps", [0.1, 0.42, 1.0, 3.3])
@pytest.mark.parametrize("delta", [1e-10, 1e-5])
def test_gaussian_sketch_gamma_round_trip(eps, delta):
    g = acc.gaussian_sketch_gamma_for_epsilon(eps, delta, 50, compositions=3)
    fwd = acc.gaussian_sketch_epsilon(g, 50, delta, compositions=3)[0]
    assert eps * (1 - 1e-6) <= fwd <= eps


@pytest.mark.parametrize("bound", ["bar", "simple", "unbounded"])
@pytest.mark.parametrize("eps", [0.1, 1.0, 5.0])
def test_fastmix_gamma_round_trip(bound, eps):
    delta, k1 = 1e-8, 40
    g = acc.fastmix_gamma_for_epsilon(eps, delta, k1, compositions=2, bound=bound)
    fwd = acc.fastmix_sketch_epsilon(g, k1, delta, compositions=2, bound=bound)[0]
    assert eps * (1 - 1e-6) <= fwd <= eps


def test_solvers_monotone():
    eps_grid = [0.2, 0.5, 1.0, 2.0, 8.0]
    g = [acc.fastmix_gamma_for_epsilon(e, 1e-6, 30) for e in eps_grid]
    assert np.all(np.diff(g) < 0)
    gk = [acc.fastmix_gamma_for_epsilon(1.0, 1e-6, k) for k in (1, 10, 100, 1000)]
    assert np.all(np.diff(gk) > 0)
    gd = [acc.gaussian_sketch_gamma_for_epsilon(1.0, d, 30) for d in (1e-12, 1e-8, 1e-4)]
    assert np.all(np.diff(gd) < 0)
    # FastMix (phi_bar) needs more noise than the dense Gaussian sketch at equal rows
    assert acc.fastmix_gamma_for_epsilon(1.0, 1e-6, 30) > acc.gaussian_sketch_gamma_for_epsilon(1.0, 1e-6, 30)


def test_reference_code_worked_number():
    # Authors' code (reference-code-facts.md): n = 2^17, T = 3, k_out = 420, eps = 1.259 -> gamma_Fast ~ 494
    n = 2**17
    g = acc.fastmix_gamma_for_epsilon(1.259 / 3, (1 / n**2) / 3, 420, compositions=3)
    assert g == pytest.approx(494, rel=0.01)


def test_gaussian_mechanism_sigma_rdp_round_trip():
    for eps, t in [(0.5, 1), (1.0, 3), (4.0, 10), (80.0, 1)]:
        s = acc.gaussian_mechanism_sigma_rdp(eps, 1e-6, 2.0, compositions=t)
        c = t * 4.0 / (2 * s * s)
        fwd, _ = acc.epsilon_from_rdp(lambda a, c=c: c * np.asarray(a), 1e-6, np.inf)
        assert eps * (1 - 1e-6) <= fwd <= eps


# ---------------------------------------------------------------------------------------
# analytic Gaussian mechanism
# ---------------------------------------------------------------------------------------


def _mp_delta(sigma, eps, sens):
    mpmath.mp.dps = 40
    s, e, d = mpmath.mpf(sigma), mpmath.mpf(eps), mpmath.mpf(sens)
    return float(mpmath.ncdf(d / (2 * s) - e * s / d) - mpmath.exp(e) * mpmath.ncdf(-d / (2 * s) - e * s / d))


@pytest.mark.parametrize("eps", [0.05, 0.3, 0.9, 2.0, 10.0, 200.0])
@pytest.mark.parametrize("delta", [1e-12, 1e-6, 1e-3])
def test_analytic_gaussian(eps, delta):
    s = acc.analytic_gaussian_sigma(eps, delta, sensitivity=1.5)
    assert acc.analytic_gaussian_delta(s, eps, 1.5) <= delta
    assert acc.analytic_gaussian_delta(s * (1 - 1e-9), eps, 1.5) > delta
    assert _mp_delta(s, eps, 1.5) == pytest.approx(acc.analytic_gaussian_delta(s, eps, 1.5), rel=1e-8)
    assert _mp_delta(s, eps, 1.5) <= delta * (1 + 1e-9)
    if eps < 1:
        assert s < acc.classical_gaussian_sigma(eps, delta, 1.5)


def test_analytic_gaussian_known_value():
    # Balle & Wang (2018): eps = 1, delta = 1e-5, D = 1 gives sigma ~ 3.73 (classical: 4.84)
    assert acc.analytic_gaussian_sigma(1.0, 1e-5) == pytest.approx(3.7306, abs=1e-3)
    assert acc.classical_gaussian_sigma(1.0, 1e-5) == pytest.approx(math.sqrt(2 * math.log(1.25e5)), rel=1e-12)


# ---------------------------------------------------------------------------------------
# Theorem 2 noise choices
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("eps", [0.316, 1.259, 10.0])
@pytest.mark.parametrize("k1,T,delta", [(420, 3, 2.0**-34), (100, 4, 1e-6)])
def test_theorem2_gamma1_reproduced(eps, k1, T, delta):
    L = math.log(3 / delta)
    gamma1 = 15 * math.sqrt(2 * k1 * T * L) / (8 * eps) * (1 + math.sqrt(1 + eps / (3 * L)))  # eq. (177)
    assert L <= (8 * gamma1 / 25 - 1) ** 2 * 25 * k1 * T / (32 * gamma1**2)  # eq. (178) picks gamma_1
    g = acc.fastmix_gamma_closed_form(eps / 3, delta / 3, k1, compositions=T)
    assert g == pytest.approx(gamma1, rel=1e-12)
    assert acc.sketch_epsilon_closed_form(g, k1 * T, delta / 3) == pytest.approx(eps / 3, rel=1e-10)


@pytest.mark.parametrize("eps,k1,T,delta", [(1.0, 1, 1, 1e-6), (0.5, 2, 3, 1e-10), (3.0, 5, 1, 1e-8)])
def test_closed_form_gamma_end_branch_and_paper_gamma2(eps, k1, T, delta):
    L = math.log(3 / delta)
    g = acc.fastmix_gamma_closed_form(eps / 3, delta / 3, k1, compositions=T)
    # our gamma solves the end branch of eq. (134) exactly
    assert acc.sketch_epsilon_closed_form(g, k1 * T, delta / 3) == pytest.approx(eps / 3, rel=1e-10)
    assert acc.sketch_epsilon_closed_form(g * (1 - 1e-6), k1 * T, delta / 3) > eps / 3
    # The paper's gamma_2 (eq. 177) is below it and does not meet the eps/3 share: documented discrepancy.
    gamma2_paper = (2 * k1 * T + 25 * L) / (8 * eps)
    assert gamma2_paper < g
    assert acc.sketch_epsilon_closed_form(gamma2_paper, k1 * T, delta / 3) > eps / 3


def test_closed_form_gamma_is_conservative_versus_tight():
    for eps, k1, T in [(0.3, 420, 3), (2.0, 50, 2), (10.0, 5, 1)]:
        g_cf = acc.fastmix_gamma_closed_form(eps / 3, 1e-9 / 3, k1, compositions=T)
        g_tight = acc.fastmix_gamma_for_epsilon(eps / 3, 1e-9 / 3, k1, compositions=T)
        assert g_tight <= g_cf


# ---------------------------------------------------------------------------------------
# ledger
# ---------------------------------------------------------------------------------------


def test_ledger_totals_and_overflow():
    led = acc.PrivacyLedger(1.0, 1e-6, name="fastihm")
    for t in range(10):
        led.spend(f"step {t}", 0.1, 1e-7, source="eq. (114)", details={"t": t, "gamma": 494.0})
    assert led.total_epsilon == math.fsum([0.1] * 10)
    assert led.total_epsilon == pytest.approx(1.0)
    assert led.remaining_epsilon == pytest.approx(0.0, abs=1e-15)
    assert len(led.entries) == 10 and isinstance(led.entries, tuple)
    assert not led.can_spend(1e-6)
    with pytest.raises(acc.BudgetExceededError, match=r"'one more'.*remaining budget"):
        led.spend("one more", 1e-6)
    assert len(led.entries) == 10
    assert led.can_spend(0.0, 0.0)
    recs = led.records()
    assert recs[3]["details"] == {"t": 3, "gamma": 494.0}
    text = led.summary()
    assert "step 9" in text and "TOTAL" in text and "eq. (114)" in text
    assert "fastihm" in repr(led)
    hash(led.entries[0])


def test_ledger_spend_all_atomic_and_validation():
    led = acc.PrivacyLedger(1.0, 1e-5)
    led.spend_all([("a", 0.3, 1e-6), {"mechanism": "b", "epsilon": 0.3}])
    assert len(led.entries) == 2
    with pytest.raises(acc.BudgetExceededError, match="'d'"):
        led.spend_all([("c", 0.3), ("d", 0.3)])
    assert len(led.entries) == 2 and led.total_epsilon == pytest.approx(0.6)
    with pytest.raises(ValueError, match=">= 0"):
        led.spend("neg", -0.1)
    with pytest.raises(ValueError, match=r"NaN|>= 0"):
        led.spend("nan", float("nan"))
    with pytest.raises(ValueError, match=">= 0"):
        led.spend_all([("ok", 0.01), ("bad", 0.01, -1.0)])
    assert len(led.entries) == 2
    with pytest.raises(acc.BudgetExceededError):
        led.spend("delta too big", 0.0, 1e-4)
    entry = led.spend("exact fill", 0.4, 0.0)
    assert entry.as_dict()["mechanism"] == "exact fill"
    assert led.total_epsilon == pytest.approx(1.0)
    with pytest.raises(ValueError, match="target epsilon"):
        acc.PrivacyLedger(0.0, 1e-5)
    with pytest.raises(ValueError, match="target delta"):
        acc.PrivacyLedger(1.0, 1.0)


# ---------------------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------------------


def test_bad_inputs():
    with pytest.raises(
        ValueError, match=r"alpha must lie in \(1, 4\*gamma/5\) = \(1, 3.2\) for the bound phi_bar; got 5"
    ):
        acc.fastmix_rdp_bar(5, 4)
    with pytest.raises(ValueError, match="alpha must lie in"):
        acc.gaussian_mix_rdp(1.0, 10.0)
    with pytest.raises(ValueError, match="alpha must lie in"):
        acc.fastmix_rdp_simple(np.array([1.5, 4.0]), 10.0)
    with pytest.raises(ValueError, match="gamma must be > 25/8"):
        acc.fastmix_rdp_simple(1.01, 3.0)
    with pytest.raises(ValueError, match="gamma must be > 5/4"):
        acc.fastmix_sketch_epsilon(1.2, 10, 1e-6)
    with pytest.raises(ValueError, match="gamma_inf must be > 25"):
        acc.sketch_epsilon_closed_form_unbounded(20.0, 10, 1e-6)
    with pytest.raises(ValueError, match="c2"):
        acc.fastmix_rdp_exact(1.5, 10.0, 0.5)
    with pytest.raises(ValueError, match="epsilon must be a finite number > 0"):
        acc.fastmix_gamma_for_epsilon(0.0, 1e-6, 10)
    with pytest.raises(ValueError, match="delta must lie strictly between 0 and 1"):
        acc.gaussian_sketch_epsilon(10.0, 5, 1.5)
    with pytest.raises(ValueError, match="delta must lie strictly between 0 and 1"):
        acc.analytic_gaussian_sigma(1.0, 0.0)
    with pytest.raises(ValueError, match="k1 must be at least 1"):
        acc.fastmix_sketch_epsilon(10.0, 0, 1e-6)
    with pytest.raises(ValueError, match="k must be at least 1"):
        acc.gaussian_sketch_epsilon(10.0, 0, 1e-6)
    with pytest.raises(ValueError, match="bound must be one of"):
        acc.fastmix_sketch_epsilon(10.0, 3, 1e-6, bound="nope")
    with pytest.raises(ValueError, match="rdp values"):
        acc.rdp_to_dp_epsilon(-1.0, 2.0, 1e-5)
    with pytest.raises(ValueError, match="positive definite"):
        acc.gaussian_renyi_divergence(2.0, [[1.0, 0.0], [0.0, -1.0]], np.eye(2))
    with pytest.raises(ValueError, match="symmetric"):
        acc.gaussian_renyi_divergence(2.0, [[1.0, 0.5], [0.0, 1.0]], np.eye(2))
    with pytest.raises(ValueError, match="alpha_max must be > 1"):
        acc.epsilon_from_rdp(lambda a: a, 1e-5, 1.0)


def test_check_spend_is_a_dry_run_of_spend():
    from fastmix.accounting import BudgetExceededError, PrivacyLedger

    led = PrivacyLedger(1.0, 1e-6)
    led.check_spend("fits", 1.0, 1e-6)  # fits exactly: no error, nothing recorded
    assert led.entries == ()
    led.spend("a", 0.5)
    with pytest.raises(BudgetExceededError, match="Nothing was recorded"):
        led.check_spend("b", 0.6)
    assert len(led.entries) == 1
