"""Bad input at every public entry point is a clear error: the right exception type, and a
message that names the argument and says what was received.

One section per class of bad input (wrong type, wrong shape, empty, non-finite, complex,
sparse, out-of-range scalar, bad policy string), each parametrised over the entry points
it applies to, then the cases where a formerly silent behaviour now has a documented
outcome (overflow-safe row norms, clipped conversions, the default delta, ``rng``).
"""

import math
import re
import warnings
from typing import Any

import numpy as np
import pytest
import scipy.sparse as sp

from fastmix import accounting as acc
from fastmix import datasets as D
from fastmix import mechanisms as M
from fastmix import regression as R
from fastmix._validation import EPSILON_RANGE, PrivacyWarning, ResponseClippingWarning, check_row_norms, row_norms
from fastmix.hadamard import fwht
from fastmix.srht import SRHT, sketch_quantities

N, DIM = 64, 3


def _data(seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((N, DIM))
    X /= np.linalg.norm(X, axis=1).max()
    y = np.clip(X @ np.ones(DIM), -1.0, 1.0)
    return X, y


X0, Y0 = _data()
FM_CAL = M.calibrate_fast_mix(1.0, 1e-6, k1=8)
FM_CAL3 = M.calibrate_fast_mix(1.0, 1e-6, k1=8, n_draws=3)
GM_CAL = M.calibrate_gaussian_mix(1.0, 1e-6, k=8)
S8 = SRHT(N, 16, random_state=0)
PRIVATE: dict[str, Any] = dict(epsilon=1.0, delta=1e-6)


# --------------------------------------------------------------------------- entry points taking X

# name -> function of a bad X (y, when needed, is a valid response of the same length)
X_ENTRY_POINTS = {
    "ols": lambda X: R.ols(X, Y0),
    "prepare_regression": lambda X: R.prepare_regression(X, Y0),
    "fast_ihs": lambda X: R.fast_ihs(X, Y0, k=16, random_state=0),
    "ihm": lambda X: R.ihm(X, Y0, k=8, random_state=0, **PRIVATE),
    "fast_ihm": lambda X: R.fast_ihm(X, Y0, k1=8, k2=16, random_state=0, **PRIVATE),
    "adassp": lambda X: R.adassp(X, Y0, random_state=0, **PRIVATE),
    "gaussian_sketch_blocked": lambda X: R.gaussian_sketch_blocked(X, 4, 0),
    "prepare_data": lambda X: M.prepare_data(X),
    "gaussian_mix": lambda X: M.gaussian_mix(X, GM_CAL, random_state=0),
    "fast_mix": lambda X: M.fast_mix(X, FM_CAL, k2=16, random_state=0),
    "multiple_fast_mixing": lambda X: M.multiple_fast_mixing(X, FM_CAL3, k2=16, random_state=0),
    "mix_sketch": lambda X: M.mix_sketch(X, 1.0, 4, 0),
    "normalize": lambda X: D.normalize(X, Y0),
    "sketch_quantities": lambda X: sketch_quantities(X, S8),
    "SRHT.apply": lambda X: S8.apply(X),
}
# entry points whose argument is not called X
X_NAME = {"mix_sketch": "Z"}
# entry points that accept a vector as well as a matrix
ACCEPTS_1D = {"SRHT.apply"}


def _x_name(entry):
    return X_NAME.get(entry, "X")


@pytest.mark.parametrize("entry", sorted(X_ENTRY_POINTS))
@pytest.mark.parametrize("bad", [None, "data", [["a", "b", "c"]] * N], ids=["None", "str", "strings"])
def test_wrong_type_of_X_is_a_type_error(entry, bad):
    with pytest.raises(TypeError, match=rf"{_x_name(entry)} must .*real numbers; got"):
        X_ENTRY_POINTS[entry](bad)


@pytest.mark.parametrize("entry", sorted(set(X_ENTRY_POINTS) - ACCEPTS_1D))
def test_one_dimensional_X_is_a_shape_error(entry):
    with pytest.raises(ValueError, match=rf"{_x_name(entry)} must be a 2-D array .*got an array with 1 dimension"):
        X_ENTRY_POINTS[entry](X0[:, 0])


@pytest.mark.parametrize("entry", sorted(X_ENTRY_POINTS))
def test_three_dimensional_X_is_a_shape_error(entry):
    with pytest.raises(ValueError, match=rf"{_x_name(entry)} .*got .*\(2, {N // 2}, {DIM}\)"):
        X_ENTRY_POINTS[entry](X0.reshape(2, N // 2, DIM))


@pytest.mark.parametrize("entry", sorted(set(X_ENTRY_POINTS) - {"SRHT.apply"}))
def test_empty_X_is_an_error(entry):
    with pytest.raises(ValueError, match=rf"{_x_name(entry)} must have at least 1 row\(s\).*got shape \(0, {DIM}\)"):
        X_ENTRY_POINTS[entry](np.zeros((0, DIM)))


@pytest.mark.parametrize("entry", ["SRHT.apply", "sketch_quantities"])
def test_srht_needs_its_n_rows(entry):
    with pytest.raises(ValueError, match=rf"X must have n = {N} rows .*got shape \({N // 2}, {DIM}\)"):
        X_ENTRY_POINTS[entry](X0[: N // 2])
    with pytest.raises(ValueError, match=rf"X must have n = {N} rows .*got shape \(0, {DIM}\)"):
        S8.apply(np.zeros((0, DIM)))


@pytest.mark.parametrize("entry", sorted(X_ENTRY_POINTS))
@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
def test_non_finite_X_is_a_value_error(entry, value):
    X = X0.copy()
    X[3, 1] = value
    with pytest.raises(ValueError, match=rf"{_x_name(entry)} contains 1 non-finite value"):
        X_ENTRY_POINTS[entry](X)


@pytest.mark.parametrize("entry", sorted(X_ENTRY_POINTS))
def test_complex_X_is_a_type_error(entry):
    with pytest.raises(TypeError, match=rf"{_x_name(entry)} must hold real numbers; got complex dtype complex128"):
        X_ENTRY_POINTS[entry](X0 + 0.5j)


@pytest.mark.parametrize("entry", sorted(X_ENTRY_POINTS))
@pytest.mark.parametrize("kind", [sp.csr_matrix, sp.csc_array], ids=["csr_matrix", "csc_array"])
def test_sparse_X_is_a_type_error_that_says_toarray(entry, kind):
    with pytest.raises(
        TypeError,
        match=rf"{_x_name(entry)} is a SciPy sparse {kind.__name__}.*"
        rf"{_x_name(entry)}\.toarray\(\)",
    ):
        X_ENTRY_POINTS[entry](kind(X0))


# --------------------------------------------------------------------------- entry points taking y

Y_ENTRY_POINTS = {
    "ols": lambda y: R.ols(X0, y),
    "prepare_regression": lambda y: R.prepare_regression(X0, y),
    "fast_ihs": lambda y: R.fast_ihs(X0, y, k=16, random_state=0),
    "ihm": lambda y: R.ihm(X0, y, k=8, random_state=0, **PRIVATE),
    "fast_ihm": lambda y: R.fast_ihm(X0, y, k1=8, k2=16, random_state=0, **PRIVATE),
    "adassp": lambda y: R.adassp(X0, y, random_state=0, **PRIVATE),
    "normalize": lambda y: D.normalize(X0, y),
}


@pytest.mark.parametrize("entry", sorted(Y_ENTRY_POINTS))
def test_bad_y(entry):
    f = Y_ENTRY_POINTS[entry]
    with pytest.raises(TypeError, match="y must be an array-like of real numbers; got None"):
        f(None)
    with pytest.raises(TypeError, match=r"y is a SciPy sparse csr_matrix.*y\.toarray"):
        f(sp.csr_matrix(Y0[:, None]))
    with pytest.raises(TypeError, match="y must hold real numbers; got complex dtype"):
        f(Y0 + 1j)
    with pytest.raises(ValueError, match=r"y must be 1-D .*got shape \(2, 32\)"):
        f(Y0.reshape(2, 32))
    with pytest.raises(ValueError, match=f"y has {N - 1} entries but X has {N} rows"):
        f(Y0[1:])
    bad = Y0.copy()
    bad[0] = np.nan
    with pytest.raises(ValueError, match="y contains 1 non-finite value"):
        f(bad)


# --------------------------------------------------------------------------- fwht and SRHT


def test_fwht_bad_input():
    with pytest.raises(TypeError, match=r"fwht needs real input; got x of complex dtype complex128.*x\.real"):
        fwht(np.ones(4) + 1j)
    with pytest.raises(TypeError, match="x must be an array-like of real numbers; got None"):
        fwht(None)
    with pytest.raises(TypeError, match=r"x is a SciPy sparse csr_matrix.*x\.toarray"):
        fwht(sp.csr_matrix(np.ones((2, 4))))
    with pytest.raises(TypeError, match="fwht needs an array of real numbers; got x of dtype <U"):
        fwht(np.array(["a", "b"]))
    with pytest.raises(ValueError, match=r"fwht accepts a vector \(n,\) or a batch \(b, n\); got shape \(2, 2, 2\)"):
        fwht(np.ones((2, 2, 2)))
    with pytest.raises(ValueError, match=r"fwht accepts .*got shape \(\)"):
        fwht(1.0)
    with pytest.raises(ValueError, match=r"power of two .*got length 0"):
        fwht(np.ones(0))
    with pytest.raises(ValueError, match="power of two; got 6"):
        fwht(np.ones(6))
    with pytest.raises(ValueError, match="x contains 2 non-finite value"):
        fwht(np.array([1.0, np.nan, np.inf, 0.0]))
    with pytest.raises(ValueError, match="x contains 1 non-finite value"):
        fwht(np.array([[1.0, np.nan], [0.0, 0.0]]), inplace=True)
    with pytest.raises(ValueError, match="Unknown Hadamard backend 'gpu'"):
        fwht(np.ones(4), backend="gpu")
    # an empty batch of valid length is not an error
    assert fwht(np.zeros((0, 8))).shape == (0, 8)


def test_fwht_complex_by_linearity_matches_the_documented_recipe():
    rng = np.random.default_rng(1)
    x = rng.standard_normal(8) + 1j * rng.standard_normal(8)
    from fastmix.hadamard import hadamard_matrix

    np.testing.assert_allclose(fwht(x.real) + 1j * fwht(x.imag), hadamard_matrix(8) @ x, atol=1e-12)


def test_srht_constructor_and_adjoint_bad_input():
    with pytest.raises(TypeError, match="n must be an integer; got 'eight'"):
        SRHT("eight", 4)
    with pytest.raises(ValueError, match="power of two; got 6"):
        SRHT(6, 4)
    with pytest.raises(ValueError, match="k must be at least 1 and at most 8; got 9"):
        SRHT(8, 9)
    with pytest.raises(ValueError, match="k must be at least 1 and at most 8; got 0"):
        SRHT(8, 0)
    with pytest.raises(TypeError, match=r"random_state must be None, an int, a SeedSequence .*got str"):
        SRHT(8, 4, random_state="seed")
    S = SRHT(8, 4, random_state=0)
    with pytest.raises(TypeError, match="Y must hold real numbers; got complex dtype"):
        S.adjoint(np.ones(4) + 1j)
    with pytest.raises(TypeError, match="Y is a SciPy sparse"):
        S.adjoint(sp.csr_matrix(np.ones((4, 2))))
    with pytest.raises(ValueError, match=r"Y must have shape \(4,\) or \(4, d\); got \(\)"):
        S.adjoint(1.0)
    with pytest.raises(ValueError, match=r"Y must have shape \(4,\) or \(4, d\); got \(5, 2\)"):
        S.adjoint(np.ones((5, 2)))
    with pytest.raises(ValueError, match="Y contains 1 non-finite value"):
        S.adjoint(np.array([1.0, 0.0, np.inf, 0.0]))


def test_srht_apply_supports_zero_columns():
    S = SRHT(8, 4, random_state=0)
    out = S.apply(np.ones((8, 0)))
    assert out.shape == (4, 0)
    assert S.adjoint(np.ones((4, 0))).shape == (8, 0)
    with pytest.raises(ValueError, match=r"X must have n = 8 rows .*got shape \(7,\)"):
        S.apply(np.ones(7))


# --------------------------------------------------------------------------- calibrations


@pytest.mark.parametrize(
    "make",
    [
        lambda e: M.calibrate_fast_mix(e, 1e-6, k1=8),
        lambda e: M.calibrate_gaussian_mix(e, 1e-6, k=8),
        lambda e: R.calibrate_fast_ihm(e, 1e-6, k1=8),
        lambda e: R.calibrate_ihm(e, 1e-6, k=8),
        lambda e: R.calibrate_adassp(e, 1e-6),
        lambda e: acc.PrivacyLedger(e, 1e-6),
    ],
    ids=["fast_mix", "gaussian_mix", "fast_ihm", "ihm", "adassp", "ledger"],
)
def test_calibrations_check_epsilon(make):
    for bad in (-1.0, 0.0, math.inf):
        with pytest.raises(ValueError, match=rf"epsilon must be a finite number > 0; got {bad!r}"):
            make(bad)
    with pytest.raises(ValueError, match="epsilon must be a number; got NaN"):
        make(math.nan)
    with pytest.raises(TypeError, match="epsilon must be a real number; got '1' of type str"):
        make("1")


@pytest.mark.parametrize(
    "make",
    [
        lambda d: M.calibrate_fast_mix(1.0, d, k1=8),
        lambda d: M.calibrate_gaussian_mix(1.0, d, k=8),
        lambda d: R.calibrate_fast_ihm(1.0, d, k1=8),
        lambda d: R.calibrate_ihm(1.0, d, k=8),
        lambda d: R.calibrate_adassp(1.0, d),
        lambda d: acc.PrivacyLedger(1.0, d),
    ],
    ids=["fast_mix", "gaussian_mix", "fast_ihm", "ihm", "adassp", "ledger"],
)
def test_calibrations_check_delta(make):
    for bad in (0.0, 1.0, -1e-6, 2.0):
        with pytest.raises(ValueError, match=rf"delta must lie strictly between 0 and 1; got {bad!r}"):
            make(bad)
    with pytest.raises(TypeError, match="delta must be a real number; got None"):
        make(None)


def test_calibration_sizes_and_shares():
    with pytest.raises(ValueError, match="k1 must be at least 1; got 0"):
        M.calibrate_fast_mix(1.0, 1e-6, k1=0)
    with pytest.raises(TypeError, match=r"k1 must be an integer; got 2\.5"):
        M.calibrate_fast_mix(1.0, 1e-6, k1=2.5)
    with pytest.raises(ValueError, match=r"laplace_share must lie in \(0, 1\); got 1.5"):
        M.calibrate_fast_mix(1.0, 1e-6, k1=8, laplace_share=1.5)
    with pytest.raises(ValueError, match="bound must be 'bar' or 'simple'; got 'tight'"):
        M.calibrate_fast_mix(1.0, 1e-6, k1=8, bound="tight")
    with pytest.raises(ValueError, match="lambda_min_lower must be >= 0; got -1"):
        M.calibrate_gaussian_mix(1.0, 1e-6, k=8, lambda_min_lower=-1)
    with pytest.raises(ValueError, match="T must be at least 1; got 0"):
        R.calibrate_fast_ihm(1.0, 1e-6, k1=8, T=0)
    with pytest.raises(ValueError, match=r"clip must be > 0; got -1\.0"):
        R.calibrate_adassp(1.0, 1e-6, clip=-1.0)
    with pytest.raises(ValueError, match="method must be 'tight' or 'closed_form'; got 'exact'"):
        R.calibrate_fast_ihm(1.0, 1e-6, k1=8, method="exact")


# --------------------------------------------------------------------------- mechanisms: calibration objects, scalars


@pytest.mark.parametrize(
    "call, expected",
    [
        (lambda c: M.fast_mix(X0, c, k2=16), "fast_mix needs calibration to be a FastMixCalibration; got {got}"),
        (
            lambda c: M.multiple_fast_mixing(X0, c, k2=16),
            "multiple_fast_mixing needs calibration to be a FastMixCalibration; got {got}",
        ),
        (lambda c: M.gaussian_mix(X0, c), "gaussian_mix needs calibration to be a GaussianMixCalibration; got {got}"),
        (lambda c: R.fast_ihm(X0, Y0, k2=16, calibration=c), "calibration must be a FastIHMCalibration; got {got}"),
        (lambda c: R.ihm(X0, Y0, calibration=c), "calibration must be an IHMCalibration; got {got}"),
        (lambda c: R.adassp(X0, Y0, calibration=c), "calibration must be an AdaSSPCalibration; got {got}"),
    ],
    ids=["fast_mix", "multiple_fast_mixing", "gaussian_mix", "fast_ihm", "ihm", "adassp"],
)
def test_wrong_calibration_is_a_type_error(call, expected):
    for bad, got in (({"gamma": 1.0}, "dict"), (GM_CAL if "FastMix" in expected else FM_CAL, None)):
        got = got or type(bad).__name__
        with pytest.raises(TypeError, match=expected.format(got=got)):
            call(bad)


def test_fast_mix_without_calibration_says_how_to_get_one():
    with pytest.raises(TypeError, match=r"got None\. Build one with calibrate_fast_mix\(epsilon, delta, k1=\.\.\.\)"):
        M.fast_mix(X0, None, k2=16)


@pytest.mark.parametrize(
    "bad, exc, msg",
    [
        (-1.0, ValueError, "noise_scale must be >= 0; got -1.0"),
        (math.nan, ValueError, "noise_scale must be a number; got NaN"),
        (math.inf, ValueError, "noise_scale must be finite; got inf"),
        ("1", TypeError, "noise_scale must be a real number; got '1'"),
    ],
)
def test_mix_sketch_noise_scale(bad, exc, msg):
    with pytest.raises(exc, match=msg):
        M.mix_sketch(X0, bad, 4, 0)
    result = M.multiple_fast_mixing(X0, FM_CAL3, k2=16, random_state=0)
    with pytest.raises(exc, match=msg):
        result.release(0, 4, 0, noise_scale=bad)


def test_mix_sketch_and_release_scalars():
    with pytest.raises(ValueError, match="k1 must be at least 1; got 0"):
        M.mix_sketch(X0, 1.0, 0, 0)
    with pytest.raises(ValueError, match="method must be one of 'explicit', 'gram'; got 'dense'"):
        M.mix_sketch(X0, 1.0, 4, 0, method="dense")
    result = M.multiple_fast_mixing(X0, FM_CAL3, k2=16, random_state=0)
    with pytest.raises(ValueError, match="t must be at least 0 and at most 2; got 3"):
        result.release(3, 4, 0)
    # a zero noise scale is legal (the noiseless S_G Z)
    assert M.mix_sketch(X0, 0.0, 4, 0).shape == (4, DIM)


def test_mechanism_scalars():
    with pytest.raises(ValueError, match="k2 must be at least 1 and at most 64; got 65"):
        M.fast_mix(X0, FM_CAL, k2=65)
    with pytest.raises(ValueError, match="m_floor must be >= 0; got -1"):
        M.fast_mix(X0, FM_CAL, k2=16, m_floor=-1)
    with pytest.raises(ValueError, match="covers 3 draws"):
        M.fast_mix(X0, FM_CAL3, k2=16)
    with pytest.raises(TypeError, match="random_state must be None, an int, a SeedSequence"):
        M.fast_mix(X0, FM_CAL, k2=16, random_state=1.5)


# --------------------------------------------------------------------------- bad policy strings

ROW_POLICY_CALLS = {
    "prepare_data": lambda p: M.prepare_data(X0, row_norm_policy=p),
    "gaussian_mix": lambda p: M.gaussian_mix(X0, GM_CAL, row_norm_policy=p),
    "fast_mix": lambda p: M.fast_mix(X0, FM_CAL, k2=16, row_norm_policy=p),
    "multiple_fast_mixing": lambda p: M.multiple_fast_mixing(X0, FM_CAL3, k2=16, row_norm_policy=p),
    "prepare_regression": lambda p: R.prepare_regression(X0, Y0, row_norm_policy=p),
    "fast_ihm": lambda p: R.fast_ihm(X0, Y0, k1=8, k2=16, row_norm_policy=p, **PRIVATE),
    "ihm": lambda p: R.ihm(X0, Y0, k=8, row_norm_policy=p, **PRIVATE),
    "adassp": lambda p: R.adassp(X0, Y0, row_norm_policy=p, **PRIVATE),
    "check_row_norms": lambda p: check_row_norms(X0, policy=p),
}
Y_POLICY_CALLS = {
    "prepare_regression": lambda p: R.prepare_regression(X0, Y0, y_policy=p),
    "fast_ihm": lambda p: R.fast_ihm(X0, Y0, k1=8, k2=16, y_policy=p, **PRIVATE),
    "ihm": lambda p: R.ihm(X0, Y0, k=8, y_policy=p, **PRIVATE),
    "adassp": lambda p: R.adassp(X0, Y0, y_policy=p, **PRIVATE),
}
ALL_ROW = r"row_norm_policy must be one of 'raise', 'clip', 'rescale'; got {got}"
ALL_Y = r"y_policy must be one of 'raise', 'clip', 'rescale'; got {got}"


@pytest.mark.parametrize("entry", sorted(ROW_POLICY_CALLS))
@pytest.mark.parametrize("policy", ["none", "verify", "Clip", None])
def test_row_norm_policy_none_and_other_unknown_values_are_refused(entry, policy):
    """No policy switches the norm bound (and with it the privacy guarantee) off."""
    with pytest.raises(ValueError, match=ALL_ROW.format(got=repr(policy))):
        ROW_POLICY_CALLS[entry](policy)


@pytest.mark.parametrize("entry", sorted(Y_POLICY_CALLS))
@pytest.mark.parametrize("policy", ["none", "unchecked", 1])
def test_y_policy_none_and_other_unknown_values_are_refused(entry, policy):
    with pytest.raises(ValueError, match=ALL_Y.format(got=repr(policy))):
        Y_POLICY_CALLS[entry](policy)


def test_other_policy_strings_list_every_valid_value():
    with pytest.raises(ValueError, match="n_policy must be one of 'pad', 'raise'; got 'subsample'"):
        M.prepare_data(X0[:60], n_policy="subsample")
    with pytest.raises(ValueError, match="n_policy must be one of 'pad', 'subsample', 'raise'; got 'none'"):
        R.fast_ihm(X0, Y0, k1=8, k2=16, n_policy="none", **PRIVATE)
    with pytest.raises(ValueError, match="n_policy must be one of 'pad', 'subsample', 'raise'; got 'trim'"):
        R.fast_ihs(X0, Y0, k=16, n_policy="trim")
    with pytest.raises(ValueError, match="n_policy must be one of 'none', 'pad', 'subsample', 'raise'; got 'trim'"):
        R.ihm(X0, Y0, k=8, n_policy="trim", **PRIVATE)
    with pytest.raises(ValueError, match="sketch must be one of 'dense', 'gram'; got 'srht'"):
        R.ihm(X0, Y0, k=8, sketch="srht", **PRIVATE)
    with pytest.raises(ValueError, match="gaussian_step must be one of 'explicit', 'gram'; got 'dense'"):
        M.fast_mix(X0, FM_CAL, k2=16, gaussian_step="dense")


def test_row_norm_bound_violation_names_largest_norm_and_fix():
    X = X0.copy()
    X[5] *= 4.0 / np.linalg.norm(X[5])
    with pytest.raises(
        ValueError,
        match=r"1 row\(s\) of X have Euclidean norm above the bound C_X = 1 "
        r"\(largest 4\).*row_norm_policy='clip'",
    ):
        R.fast_ihm(X, Y0, k1=8, k2=16, **PRIVATE)


def test_rows_normalised_in_float32_are_refused_with_the_rounding_named():
    X32 = X0.astype(np.float32)
    X32 /= np.linalg.norm(X32, axis=1, keepdims=True).astype(np.float32)
    over = np.linalg.norm(X32.astype(np.float64), axis=1) > 1 + 1e-9
    assert over.any(), "float32 normalisation leaves some rows just above 1"
    with pytest.raises(ValueError, match=r"float32 rounding.*convert X to float64 before normalising"):
        R.fast_ihm(X32, Y0, k1=8, k2=16, **PRIVATE)


def test_fast_ihs_record_does_not_claim_private_preprocessing():
    result = R.fast_ihs(X0, Y0, k=16, random_state=0)
    assert result.data.row_norms.policy == "unchecked" and result.data.y_policy == "unchecked"
    assert not result.data.private_preprocessing
    private = R.fast_ihm(X0, Y0, k1=8, k2=16, random_state=0, **PRIVATE)
    assert private.data.private_preprocessing


# --------------------------------------------------------------------------- overflow-safe row norms

HUGE = 1e200


def test_row_norms_do_not_overflow_and_ordinary_rows_are_bit_identical():
    X = X0.copy()
    X[7] *= HUGE
    norms = row_norms(X)
    plain = np.sqrt(np.einsum("ij,ij->i", X0, X0))
    np.testing.assert_allclose(norms[7], HUGE * plain[7], rtol=1e-14)
    others = np.arange(N) != 7
    assert np.array_equal(norms[others], np.sqrt(np.einsum("ij,ij->i", X, X))[others])
    # float32 overflows much earlier (entries above about 1e19)
    X32 = (X0 * 1e25).astype(np.float32)
    np.testing.assert_allclose(row_norms(X32), 1e25 * plain, rtol=1e-6)
    with pytest.raises(ValueError, match="X has a row whose Euclidean norm exceeds the largest float64"):
        row_norms(np.full((2, 4), 1e308))


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
def test_row_norms_refuse_non_finite_entries_beside_overflowing_rows(value):
    """The row norms are the finiteness check of the mechanisms (X is read once): a NaN or inf is
    refused with its count even when another row overflows the plain formula and is repaired."""
    X = X0.copy()
    X[7] *= HUGE
    X[2, 0] = value
    with pytest.raises(ValueError, match="X contains 1 non-finite value"):
        row_norms(X)
    X[2, 0] = 0.0
    assert np.all(np.isfinite(row_norms(X)))


@pytest.mark.parametrize("policy", ["clip", "rescale"])
def test_clip_and_rescale_keep_huge_rows(policy):
    X = X0 * HUGE
    out, record = check_row_norms(X, policy=policy)
    assert np.all(np.isfinite(out)) and np.count_nonzero(out) == np.count_nonzero(X0)
    np.testing.assert_allclose(record.max_norm_before, HUGE * np.linalg.norm(X0, axis=1).max(), rtol=1e-14)
    if policy == "rescale":
        np.testing.assert_allclose(out, X0 / np.linalg.norm(X0, axis=1).max(), rtol=1e-13)
    else:
        np.testing.assert_allclose(np.linalg.norm(out, axis=1), 1.0, rtol=1e-13)
    with pytest.raises(ValueError, match=r"have Euclidean norm above the bound C_X = 1 \(largest 1e\+200\)"):
        check_row_norms(X, policy="raise")


def test_normalize_and_fast_ihs_on_huge_values():
    Xn, _, x_scale, _ = D.normalize(X0 * HUGE, Y0)
    Xr, _, _, _ = D.normalize(X0, Y0)
    np.testing.assert_allclose(Xn, Xr, rtol=1e-13)
    assert x_scale > 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow warnings
        result = R.fast_ihs(X0 * HUGE, Y0 * HUGE, k=32, random_state=3)
        theta_big = result.theta
    theta = R.fast_ihs(X0, Y0, k=32, random_state=3).theta
    np.testing.assert_allclose(theta_big, theta, rtol=1e-6)
    assert result.diagnostics["scale_x"] < 1.0 and result.diagnostics["scale_y"] < 1.0
    # ordinary input takes the unscaled path
    assert "scale_x" not in R.fast_ihs(X0, Y0, k=32, random_state=3).diagnostics


# --------------------------------------------------------------------------- accounting conversions


def test_conversions_never_return_a_negative_epsilon():
    # The Canonne et al. term alone is negative once alpha * delta >= 1.
    assert acc.rdp_to_dp_epsilon(0.0, 10.0, 0.5) == 0.0
    out = acc.rdp_to_dp_epsilon(np.array([0.0, 0.01, 5.0]), np.array([10.0, 100.0, 2.0]), 0.3)
    assert np.all(out >= 0.0) and out[2] > 0.0
    eps, alpha = acc.epsilon_from_rdp(lambda a: 1e-4 * np.asarray(a), 0.5, np.inf)
    assert eps == 0.0 and alpha > 1.0
    assert acc.epsilon_from_rdp(lambda a: 0.0 * np.asarray(a), 1e-6, np.inf)[0] == 0.0
    # unchanged where the formula is positive
    r, a, d = 0.5, 8.0, 1e-6
    assert acc.rdp_to_dp_epsilon(r, a, d) == r + math.log1p(-1 / a) - (math.log(a) + math.log(d)) / (a - 1)


def test_conversion_bad_input():
    with pytest.raises(ValueError, match=r"rdp values are Renyi divergences and must be >= 0; got -0.1"):
        acc.rdp_to_dp_epsilon(-0.1, 2.0, 1e-6)
    with pytest.raises(TypeError, match=r"rdp must be a real number or an array of real numbers; got \(1\+1j\)"):
        acc.rdp_to_dp_epsilon(1 + 1j, 2.0, 1e-6)
    with pytest.raises(TypeError, match="alpha must be a real number or an array of real numbers; got 'two'"):
        acc.rdp_to_dp_epsilon_classic(0.1, "two", 1e-6)
    with pytest.raises(ValueError, match=r"alpha must lie in \(1, inf\).*got 0.5"):
        acc.rdp_to_dp_epsilon(0.1, 0.5, 1e-6)
    with pytest.raises(ValueError, match="alpha must not contain NaN"):
        acc.rdp_to_dp_epsilon(0.1, math.nan, 1e-6)
    with pytest.raises(ValueError, match=r"delta must lie strictly between 0 and 1; got 1\.5"):
        acc.rdp_to_dp_epsilon_classic(0.1, 2.0, 1.5)
    with pytest.raises(TypeError, match="rdp_fn must be a callable alpha -> r\\(alpha\\); got float"):
        acc.epsilon_from_rdp(0.5, 1e-6, 10.0)
    with pytest.raises(ValueError, match=r"alpha_max must be > 1 .*got 1\.0"):
        acc.epsilon_from_rdp(lambda a: a, 1e-6, 1.0)
    with pytest.raises(ValueError, match="conversion must be 'canonne' or 'classic'; got 'mironov'"):
        acc.epsilon_from_rdp(lambda a: a, 1e-6, 10.0, conversion="mironov")
    with pytest.raises(ValueError, match="rdp_fn returned a negative value"):
        acc.epsilon_from_rdp(lambda a: -np.asarray(a), 1e-6, 10.0)


# --------------------------------------------------------------------------- ledger


def test_ledger_bad_input():
    led = acc.PrivacyLedger(1.0, 1e-6)
    with pytest.raises(TypeError, match="mechanism must be a string naming the release; got 3 of type int"):
        led.spend(3, 0.1)
    with pytest.raises(ValueError, match="mechanism must be a non-empty string naming the release; got ''"):
        led.spend("", 0.1)
    with pytest.raises(TypeError, match=r"epsilon of 'release' must be a real number; got '0\.1'"):
        led.spend("release", "0.1")
    with pytest.raises(ValueError, match=r"epsilon of 'release' must be a number >= 0; got -0\.1"):
        led.spend("release", -0.1)
    with pytest.raises(ValueError, match="delta of 'release' must be a number >= 0; got nan"):
        led.spend("release", 0.1, math.nan)
    with pytest.raises(ValueError, match="epsilon of 'release' is infinite"):
        led.spend("release", math.inf)
    with pytest.raises(TypeError, match=r"spend_all needs an iterable of entries .*got LedgerEntry"):
        led.spend_all(acc.LedgerEntry("release", 0.1, 0.0))
    with pytest.raises(
        TypeError, match=r"spend_all needs LedgerEntry objects, dicts or tuples .*got 0\.1 of type float"
    ):
        led.spend_all([0.1])
    assert led.entries == ()  # nothing was recorded by any failed call


# --------------------------------------------------------------------------- estimators (scikit-learn conventions)

ESTIMATORS = {
    "FastIHMRegressor": lambda **kw: R.FastIHMRegressor(delta=1e-6, random_state=0, **kw),
    "IHMRegressor": lambda **kw: R.IHMRegressor(delta=1e-6, random_state=0, **kw),
    "AdaSSPRegressor": lambda **kw: R.AdaSSPRegressor(delta=1e-6, random_state=0, **kw),
    "FastIHSRegressor": lambda **kw: R.FastIHSRegressor(random_state=0, **kw),
}
PRIVATE_ESTIMATORS = sorted(set(ESTIMATORS) - {"FastIHSRegressor"})


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_estimators_bad_data(name):
    est = ESTIMATORS[name]()
    with pytest.raises(TypeError, match=r"Sparse data was passed for X.*toarray"):
        est.fit(sp.csr_matrix(X0), Y0)
    with pytest.raises(ValueError, match="Complex data not supported: X has dtype complex128"):
        est.fit(X0 + 1j, Y0)
    with pytest.raises(ValueError, match="Complex data not supported: y has dtype complex128"):
        est.fit(X0, Y0 + 1j)
    with pytest.raises(ValueError, match="Expected 2D array, got 1D array"):
        est.fit(X0[:, 0], Y0)
    with pytest.raises(ValueError, match=r"Found array with 0 sample\(s\)"):
        est.fit(np.zeros((0, DIM)), np.zeros(0))
    bad = X0.copy()
    bad[0, 0] = np.inf
    with pytest.raises(ValueError, match=r"X contains 1 non-finite value\(s\) \(NaN or inf\)"):
        est.fit(bad, Y0)
    if name != "AdaSSPRegressor":  # the only one without iterations
        with pytest.raises(ValueError, match="n_iter must be at least 1; got 0"):
            ESTIMATORS[name](n_iter=0).fit(X0, Y0)


@pytest.mark.parametrize("name", PRIVATE_ESTIMATORS)
def test_private_estimators_bad_parameters(name):
    with pytest.raises(ValueError, match="epsilon must be a finite number > 0; got -1"):
        ESTIMATORS[name](epsilon=-1).fit(X0, Y0)
    with pytest.raises(ValueError, match=ALL_ROW.format(got="'none'")):
        ESTIMATORS[name](row_norm_policy="none").fit(X0, Y0)
    with pytest.raises(ValueError, match=ALL_Y.format(got="'none'")):
        ESTIMATORS[name](y_policy="none").fit(X0, Y0)


@pytest.mark.parametrize("name", PRIVATE_ESTIMATORS)
def test_default_delta_warns_when_not_small(name):
    make = {
        "FastIHMRegressor": R.FastIHMRegressor,
        "IHMRegressor": R.IHMRegressor,
        "AdaSSPRegressor": R.AdaSSPRegressor,
    }[name]
    with pytest.warns(PrivacyWarning, match=r"delta=None means 1/n\^2 = 0.25 for n = 2 records"):
        make(random_state=0).fit(X0[:2], Y0[:2])
    with pytest.warns(PrivacyWarning, match=r"delta = 0.1 is at least 1/n = 0.0156 for n = 64"):
        make(delta=0.1, random_state=0).fit(X0, Y0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyWarning)
        make(delta=1e-6, random_state=0).fit(X0, Y0)  # an explicit small delta: silent
        rng = np.random.default_rng(0)
        Xl = rng.standard_normal((128, 2))
        Xl /= np.linalg.norm(Xl, axis=1).max()
        make(random_state=0).fit(Xl, np.clip(Xl.sum(1), -1, 1))  # n >= 100: the default is silent


def _every_private_estimator():
    from fastmix import kernels as K
    from fastmix.model_selection import PrivateGridSearch

    return {
        "FastIHMRegressor": lambda eps: R.FastIHMRegressor(epsilon=eps, delta=1e-6, random_state=0),
        "IHMRegressor": lambda eps: R.IHMRegressor(epsilon=eps, delta=1e-6, random_state=0),
        "AdaSSPRegressor": lambda eps: R.AdaSSPRegressor(epsilon=eps, delta=1e-6, random_state=0),
        "DPRandomProjectionKRR": lambda eps: K.DPRandomProjectionKRR(epsilon=eps, delta=1e-6, random_state=0),
        "DPRandomFeatureKRR": lambda eps: K.DPRandomFeatureKRR(epsilon=eps, delta=1e-6, random_state=0),
        "DPRandomProjectionLogistic": lambda eps: K.DPRandomProjectionLogistic(
            epsilon=eps, delta=1e-6, classes=[0, 1], random_state=0
        ),
        "PrivateGridSearch": lambda eps: PrivateGridSearch(
            R.AdaSSPRegressor(), {"n_iter": [1]}, epsilon=eps, delta=1e-6, random_state=0
        ),
    }


@pytest.mark.parametrize("eps", [EPSILON_RANGE[0] / 10, EPSILON_RANGE[1] * 10])
@pytest.mark.parametrize("name", sorted(_every_private_estimator()))
def test_every_private_estimator_refuses_epsilon_outside_the_range_before_reading_data(name, eps):
    class Unreadable:  # any attempt to read the data fails loudly
        def __array__(self, *args, **kwargs):
            raise AssertionError("the data were read before the budget was checked")

    est = _every_private_estimator()[name](eps)
    lo, hi = EPSILON_RANGE
    with pytest.raises(ValueError, match=re.escape(f"epsilon must lie in [{lo:g}, {hi:g}] for {name}; got {eps:g}.")):
        est.fit(Unreadable(), Unreadable())
    ok = _every_private_estimator()[name](1.0)
    assert ok.epsilon == 1.0  # the same construction with a usable budget is accepted


def test_response_clipping_warnings_share_one_wording():
    from fastmix import kernels as K
    from fastmix.preprocessing import BoundedResponseRegressor

    y = np.where(np.arange(N) < 4, 5.0, 0.1)  # four responses beyond every bound below
    fits = {
        "[-C, C]": lambda: R.AdaSSPRegressor(delta=1e-6, y_policy="clip", random_state=0).fit(X0, y),
        "[-T, T]": lambda: K.DPRandomProjectionKRR(delta=1e-6, y_policy="clip", random_state=0).fit(X0, y),
        "the declared range [-1, 1]": lambda: BoundedResponseRegressor(
            R.AdaSSPRegressor(delta=1e-6, random_state=0), low=-1, high=1
        ).fit(X0, y),
    }
    for interval, fit in fits.items():
        with pytest.warns(ResponseClippingWarning) as caught:
            fit()
        text = " ".join(str(w.message) for w in caught if w.category is ResponseClippingWarning)
        assert f"4 of {N} responses (6.2%) were clipped to {interval}" in text
        assert "private, since each response is clipped alone" in text


# --------------------------------------------------------------------------- random_state everywhere


def test_gaussian_sketch_blocked_takes_random_state_and_deprecates_rng():
    X = np.asfortranarray(X0)
    ref = R.gaussian_sketch_blocked(X, 5, 42, block_rows=16)
    np.testing.assert_array_equal(R.gaussian_sketch_blocked(X, 5, random_state=42, block_rows=16), ref)
    np.testing.assert_array_equal(R.gaussian_sketch_blocked(X, 5, np.random.default_rng(42), block_rows=16), ref)
    with pytest.warns(FutureWarning, match="keyword rng of gaussian_sketch_blocked is deprecated"):
        old = R.gaussian_sketch_blocked(X, 5, rng=np.random.default_rng(42), block_rows=16)
    np.testing.assert_array_equal(old, ref)
    with pytest.raises(TypeError, match="got both random_state and its deprecated alias rng"):
        R.gaussian_sketch_blocked(X, 5, 1, rng=np.random.default_rng(42))
    with pytest.raises(ValueError, match=r"out must be a float64 ndarray of shape \(k, d\) = \(5, 3\); got \(3, 5\)"):
        R.gaussian_sketch_blocked(X, 5, 0, out=np.empty((3, 5)))
    with pytest.raises(ValueError, match="k must be at least 1; got 0"):
        R.gaussian_sketch_blocked(X, 0, 0)
