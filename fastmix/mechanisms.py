"""Private sketching mechanisms: Gaussian mixing, FastMix and MultipleFastMixing.

* :func:`gaussian_mix` - the Gaussian mixing mechanism of Proposition 2 (Lev et al. 2025):
  ``S_G X + sigma N`` with k i.i.d. Gaussian rows.
* :func:`fast_mix` - FastMix, Algorithm 1 of the FastMix paper: an SRHT S_f first, then a
  small Gaussian sketch of ``Z = S_f X``, with the noise level chosen from private
  (Laplace) estimates of ``m_hat`` and ``lambda_min(Z^T Z)``.
* :func:`multiple_fast_mixing` - Algorithm 3 (Appendix G): T independent SRHT draws sharing
  one noise level ``eta = max_t eta_t``, the building block of FastIHM (Algorithm 2).

Privacy is calibrated before any data is touched (:func:`calibrate_fast_mix`,
:func:`calibrate_gaussian_mix`); each run spends its calibrated budget in a
:class:`fastmix.accounting.PrivacyLedger` if one is passed, and always returns its ledger
entries. Throughout, rows of X must satisfy ``||x_i|| <= C_X`` (the papers take C_X = 1);
rows above the bound are an error unless ``row_norm_policy`` says to clip them, and a
number of rows that is not a power of two is padded with zero rows (lossless under
zero-out neighbouring) unless ``n_policy="raise"``. Both are recorded in the result.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from . import accounting as acc
from ._threads import blas_limit
from ._validation import (
    NormEnforcement,
    check_delta,
    check_epsilon,
    check_matrix,
    check_policy,
    check_positive,
    check_positive_int,
    check_probability,
    check_random_state,
    check_row_norms,
)
from .hadamard import PowerOfTwoRecord, is_power_of_two, rows_to_power_of_two
from .srht import SRHT, SketchQuantities, SketchWorkspace, sketch_quantities

__all__ = [
    "GaussianMixCalibration",
    "calibrate_gaussian_mix",
    "gaussian_mix",
    "FastMixCalibration",
    "calibrate_fast_mix",
    "FastMixRelease",
    "fast_mix",
    "MultipleFastMixingResult",
    "multiple_fast_mixing",
    "mix_sketch",
    "GAUSSIAN_STEPS",
    "prepare_data",
]


# =========================================================================== data preparation


@dataclass(frozen=True)
class PreparedData:
    """Data after the checks every mechanism runs, with a record of what was changed."""

    X: np.ndarray
    row_norms: NormEnforcement
    padding: PowerOfTwoRecord


def _ledger_entry(*args, **kwargs):
    """A :class:`fastmix.accounting.LedgerEntry` of this module: every guarantee here is stated for
    zero-out neighbours (one row set to zero; the FastMix paper's Section 2)."""
    return acc.LedgerEntry(*args, relation=acc.ZERO_OUT, **kwargs)


def prepare_data(X, *, c_x: float = 1.0, row_norm_policy: str = "raise", n_policy: str = "pad") -> PreparedData:
    """Validate X, enforce ``||x_i|| <= c_x`` and make n a power of two.

    Parameters
    ----------
    X : array-like of shape (n, d)
    c_x : float, default=1.0
        Public row-norm bound C_X.
    row_norm_policy : {"raise", "clip", "rescale"}
        See ``fastmix._validation.check_row_norms``.
    n_policy : {"pad", "raise"}
        ``"pad"`` appends zero rows up to the next power of two. A zero row is the same as an
        absent record under zero-out neighbouring (FastMix paper, Section 2.1), so this loses
        nothing and keeps the privacy guarantee. ``"raise"`` refuses such n.

    Returns
    -------
    PreparedData
        ``X`` in Fortran order (so ``X.T`` is a C-contiguous transform batch), float64.
    """
    X = check_matrix(X, "X")
    check_policy(n_policy, "n_policy", N_POLICIES)
    X, norms = check_row_norms(X, bound=c_x, policy=row_norm_policy)
    n = X.shape[0]
    if n_policy == "raise" and not is_power_of_two(n):
        raise ValueError(
            f"X has n = {n} rows, which is not a power of two, and n_policy='raise'. Use n_policy='pad' "
            "(zero rows; lossless under zero-out neighbours) or subsample the data yourself."
        )
    X, _, record = rows_to_power_of_two(X, method="pad", order="F", dtype=np.float64)
    return PreparedData(X, norms, record)


#: How :func:`prepare_data` reaches a number of rows that is a power of two.
N_POLICIES = ("pad", "raise")
GAUSSIAN_STEPS = ("explicit", "gram")


def _check_calibration(calibration, expected: type, how: str, function: str):
    """TypeError unless ``calibration`` is an instance of ``expected``; says how to get one."""
    if not isinstance(calibration, expected):
        raise TypeError(
            f"{function} needs calibration to be a {expected.__name__}; got "
            f"{type(calibration).__name__ if calibration is not None else 'None'}. Build one with {how}."
        )
    return calibration


def mix_sketch(Z, noise_scale: float, k1: int, random_state=None, *, method: str = "explicit") -> np.ndarray:
    """The Gaussian step shared by all mechanisms: ``S_G Z + noise_scale * xi``.

    ``S_G`` is k1 x rows(Z) with i.i.d. N(0, 1) entries and ``xi`` is k1 x d with i.i.d.
    N(0, 1) entries (Algorithm 1, line 6; Algorithm 2, lines 5-6; eq. 4 with k1 rows).

    Parameters
    ----------
    Z : array-like of shape (m, d)
    noise_scale : float
        sigma (eq. 4) or eta_tilde (Algorithm 1, line 5); finite and >= 0 (0 releases the
        noiseless ``S_G Z``, which is not private on its own).
    k1 : int
        Number of Gaussian rows.
    random_state : None, int, SeedSequence or Generator
    method : {"explicit", "gram"}, default="explicit"
        ``"explicit"`` forms ``S_G Z`` as the papers write it: k1*m Gaussian draws and an
        O(k1 m d) product. ``"gram"`` samples the same distribution from a d x d factor: given
        Z, the rows of ``S_G Z + noise_scale * xi`` are i.i.d. N(0, Z^T Z + noise_scale^2 I)
        (this is how the proof of Lemma 1 sees them, eqs. 20-21), so drawing a k1 x d standard
        Gaussian G and returning ``G A^T`` with ``A A^T = Z^T Z + noise_scale^2 I`` gives a
        release with exactly the same law - hence the same privacy and the same utility - in
        O(m d^2 + d^3 + k1 d^2) time and k1*d draws. The two methods consume the random stream
        differently, so they give different (equally distributed) outputs for one seed.
    """
    Z = np.asarray(check_matrix(Z, "Z"), dtype=np.float64)
    noise_scale = check_positive(noise_scale, "noise_scale", allow_zero=True)
    k1 = check_positive_int(k1, "k1")
    check_policy(method, "method", GAUSSIAN_STEPS)
    rng = check_random_state(random_state)
    with blas_limit():
        if method == "explicit":
            return _explicit_step(Z, noise_scale, k1, rng)
        if method == "gram":
            return _gram_step(Z, noise_scale, k1, rng)
    raise AssertionError("unreachable: method was checked above")  # pragma: no cover


#: Bytes of one block of rows of S_G drawn at a time by the explicit Gaussian step.
_GAUSSIAN_BLOCK_BYTES = 4 << 20


def _explicit_step(Z: np.ndarray, noise_scale: float, k1: int, rng: np.random.Generator) -> np.ndarray:
    """``S_G Z + noise_scale xi`` as written (Algorithm 1, line 6), S_G drawn a block of rows at a time.

    ``rng.standard_normal((k1, m))`` fills S_G row by row, so drawing consecutive blocks of rows
    into one reused buffer consumes the stream exactly as one (k1, m) draw would: the same S_G,
    then the same xi. Block b of the product is ``S_G[b] @ Z`` (the same numbers as the rows of
    one product, up to the order in which BLAS sums); the k1 x m matrix is never held whole (at
    k1 = 192, m = 25600 it would be 39 MB, page-faulted afresh on every draw).
    """
    m, d = Z.shape
    rows = min(k1, max(16, _GAUSSIAN_BLOCK_BYTES // (8 * max(m, 1))))
    block = np.empty((rows, m))
    out = np.empty((k1, d))
    for start in range(0, k1, rows):
        stop = min(start + rows, k1)
        S_G = block[: stop - start]
        rng.standard_normal(out=S_G)
        np.matmul(S_G, Z, out=out[start:stop])
    xi = rng.standard_normal((k1, d))
    out += noise_scale * xi
    return out


def _gram_step(Z: np.ndarray, noise_scale: float, k1: int, rng: np.random.Generator) -> np.ndarray:
    """``G A^T`` with G a k1 x d standard Gaussian and ``A A^T = Z^T Z + noise_scale^2 I``.

    Given Z, the rows of ``S_G Z + noise_scale xi`` are i.i.d. ``N(0, Z^T Z + noise_scale^2 I)``
    (proof of Lemma 1, eqs. 20-21); so are the rows of ``G A^T``. Same law, d x d work.
    """
    d = Z.shape[1]
    cov = Z.T @ Z
    cov[np.diag_indices(d)] += noise_scale**2
    w, V = np.linalg.eigh(cov)
    A = V * np.sqrt(np.clip(w, 0.0, None))  # A A^T = cov (round-off negatives clipped)
    return rng.standard_normal((k1, d)) @ A.T


# =========================================================================== Gaussian mixing


@dataclass(frozen=True)
class GaussianMixCalibration:
    """Noise for the Gaussian mixing mechanism (Proposition 2) at a target (epsilon, delta).

    ``gamma = sigma^2 + lambda_min_lower`` is the smallest value for which k rows, composed
    in RDP and converted with Proposition 1, give at most ``epsilon`` at ``delta``.
    """

    epsilon: float
    delta: float
    k: int
    gamma: float
    sigma: float
    lambda_min_lower: float
    epsilon_spent: float

    def ledger_entries(self) -> tuple:
        return (
            _ledger_entry(
                "Gaussian mixing sketch",
                self.epsilon_spent,
                self.delta,
                source="Proposition 2 (Lev et al. 2025), k-fold RDP composition, Proposition 1",
                details=(("k", self.k), ("gamma", self.gamma), ("sigma", self.sigma)),
            ),
        )


def calibrate_gaussian_mix(epsilon, delta, *, k, lambda_min_lower: float = 0.0) -> GaussianMixCalibration:
    """Smallest sigma making the k-row Gaussian mixing mechanism (epsilon, delta)-DP.

    Parameters
    ----------
    epsilon, delta : float
        Target guarantee.
    k : int
        Number of Gaussian rows.
    lambda_min_lower : float, default=0.0
        A *public* lower bound on lambda_min(X^T X). Using a data-dependent value here
        voids the guarantee; FastMix and IHM estimate it privately instead.
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    k = check_positive_int(k, "k")
    lam = check_positive(lambda_min_lower, "lambda_min_lower", allow_zero=True)
    gamma = acc.gaussian_sketch_gamma_for_epsilon(epsilon, delta, k)
    sigma = math.sqrt(max(0.0, gamma - lam))
    spent, _ = acc.gaussian_sketch_epsilon(gamma, k, delta)
    return GaussianMixCalibration(epsilon, delta, k, gamma, sigma, lam, spent)


def gaussian_mix(
    X,
    calibration: GaussianMixCalibration,
    *,
    random_state=None,
    ledger=None,
    row_norm_policy: str = "raise",
    method: str = "explicit",
) -> np.ndarray:
    """Release ``S_G X + sigma N`` with k Gaussian rows (Proposition 2, eq. 4).

    With ``method="explicit"`` this costs O(k n d): the slow mechanism FastMix accelerates.
    ``method="gram"`` draws the same distribution in O(n d^2 + k d^2) (see :func:`mix_sketch`).
    """
    _check_calibration(
        calibration, GaussianMixCalibration, "calibrate_gaussian_mix(epsilon, delta, k=...)", "gaussian_mix"
    )
    X = check_matrix(X, "X")
    X, _ = check_row_norms(X, bound=1.0, policy=row_norm_policy)
    if ledger is not None:
        ledger.spend_all(calibration.ledger_entries())
    return mix_sketch(X, calibration.sigma, calibration.k, random_state, method=method)


# =========================================================================== FastMix calibration


@dataclass(frozen=True)
class FastMixCalibration:
    """Parameters (gamma, tau, omega) of FastMix / MultipleFastMixing and their budget.

    The budget is spent in three parts (FastMix paper, Appendix C.4.1 and E.2.1):

    * the 2T Laplace releases of ``m_tilde`` and ``lambda_tilde``, each (1/omega)-DP
      (Lemmas 4 and 5 bound the sensitivities), in total ``2T/omega``;
    * the T sketches, each (alpha, k1 * phi(alpha; gamma))-RDP by Lemma 1 (phi = phi_bar of
      eq. 115 by default), composed in RDP and converted once with Proposition 1 at
      ``delta_sketch``;
    * the failure probability of the event that some Laplace-shifted estimate is on the wrong
      side (eq. 112): each draw fails with probability ``e^(-tau)`` (two one-sided Laplace
      tails of ``e^(-tau)/2``), ``T e^(-tau)`` in all (Lemma 6 adds it to delta).

    Attributes
    ----------
    epsilon, delta : float
        Target guarantee of the whole run.
    k1 : int
        Rows of the Gaussian sketch.
    n_draws : int
        Number T of FastMix draws covered (1 for Algorithm 1).
    gamma, tau, omega : float
        Algorithm 1's parameters.
    c_x : float
        Public row-norm bound.
    epsilon_laplace, epsilon_sketch, delta_sketch, delta_failure : float
        The parts of the budget; ``epsilon_laplace + epsilon_sketch <= epsilon`` and
        ``delta_sketch + delta_failure <= delta``.
    alpha : float
        Renyi order at which the sketch part was converted.
    bound, method : str
        Which Renyi bound and which calibration ("tight" numeric or "closed_form").
    """

    epsilon: float
    delta: float
    k1: int
    n_draws: int
    gamma: float
    tau: float
    omega: float
    c_x: float
    epsilon_laplace: float
    epsilon_sketch: float
    delta_sketch: float
    delta_failure: float
    alpha: float
    bound: str
    method: str

    def ledger_entries(self) -> tuple:
        """The spends of one run, to be recorded in a :class:`~fastmix.accounting.PrivacyLedger`."""
        T = self.n_draws
        entries = []
        for t in range(T):
            tag = f" (draw {t + 1}/{T})" if T > 1 else ""
            entries.append(
                _ledger_entry(
                    f"Laplace release of m_tilde{tag}",
                    1.0 / self.omega,
                    0.0,
                    source="Algorithm 1 line 3; sensitivity Delta_hat (Lemma 4)",
                    details=(("omega", self.omega), ("tau", self.tau)),
                )
            )
            entries.append(
                _ledger_entry(
                    f"Laplace release of lambda_tilde{tag}",
                    1.0 / self.omega,
                    0.0,
                    source="Algorithm 1 line 4; sensitivity Lambda_hat + 2 m_tilde (Lemma 5)",
                    details=(("omega", self.omega), ("tau", self.tau)),
                )
            )
        entries.append(
            _ledger_entry(
                f"FastMix sketch{'es' if T > 1 else ''} ({T} x {self.k1} Gaussian rows)",
                self.epsilon_sketch,
                self.delta_sketch,
                source=f"Lemma 1 ({'phi_bar, eq. 115' if self.bound == 'bar' else self.bound}), RDP composition, "
                "Proposition 1 (eq. 113/185)",
                details=(("gamma", self.gamma), ("alpha", self.alpha), ("k1", self.k1), ("T", T)),
            )
        )
        entries.append(
            _ledger_entry(
                "Laplace shift failure event",
                0.0,
                self.delta_failure,
                source="eq. (112) and Lemma 6: P(z >= tau) = exp(-tau)/2 per estimate",
                details=(("tau", self.tau), ("draws", T)),
            )
        )
        return tuple(entries)


def calibrate_fast_mix(
    epsilon,
    delta,
    *,
    k1,
    n_draws: int = 1,
    laplace_share: float = 0.5,
    failure_share: float = 2.0 / 3.0,
    bound: str = "bar",
    method: str = "tight",
    c_x: float = 1.0,
    tau_min: float | None = None,
) -> FastMixCalibration:
    """Choose (gamma, tau, omega) so that FastMix / MultipleFastMixing is (epsilon, delta)-DP.

    The split follows Theorem 1 (T = 1: ``tau = log(3/(2 delta))`` from a failure share of
    2/3, the sketch converted at delta/3) and Theorem 2 (T draws, ``omega = 6T/epsilon`` when
    the Laplace share is 1/3). In general::

        omega = 2T / (laplace_share * epsilon)
        tau   = log(T / (failure_share * delta))
        gamma = smallest value with  min_alpha T k1 phi(alpha; gamma) + conv(alpha, delta_sketch)
                                     <= (1 - laplace_share) epsilon      ("tight", eq. 114/185)
                or the closed form of Appendix D (eq. 134) solved for gamma  ("closed_form").

    Parameters
    ----------
    epsilon, delta : float
        Target guarantee for the whole run of ``n_draws`` FastMix draws.
    k1 : int
        Rows of the Gaussian sketch.
    n_draws : int, default=1
        Number T of draws (Algorithm 3 / FastIHM use T).
    laplace_share : float in (0, 1), default=0.5
        Fraction of epsilon given to the 2T Laplace releases; the rest goes to the sketches.
    failure_share : float in (0, 1), default=2/3
        Fraction of delta given to the Laplace failure event; the rest to the RDP conversion.
    bound : {"bar", "simple"}, default="bar"
        Renyi bound of Lemma 1 used for the sketches: phi_bar (eq. 115, tightest closed form
        valid for every X) or 25 alpha / (32 gamma^2) (eq. 8).
    method : {"tight", "closed_form"}, default="tight"
    c_x : float, default=1.0
        Public row-norm bound C_X (Algorithm 3 scales the sensitivities by it).
    tau_min : float, optional
        Lower bound on tau, e.g. ``log(16 T / rho)`` for the utility event of Theorem 2
        (eq. 176). A larger tau only lowers the failure probability, which is recorded exactly.
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    k1 = check_positive_int(k1, "k1")
    T = check_positive_int(n_draws, "n_draws")
    laplace_share = check_probability(laplace_share, "laplace_share")
    failure_share = check_probability(failure_share, "failure_share")
    c_x = check_positive(c_x, "c_x")
    if bound not in ("bar", "simple"):
        raise ValueError(f"bound must be 'bar' or 'simple'; got {bound!r}.")
    eps_lap = laplace_share * epsilon
    omega = 2.0 * T / eps_lap
    delta_fail = failure_share * delta
    tau = math.log(T / delta_fail)
    if tau_min is not None:
        tau = max(tau, check_positive(tau_min, "tau_min", allow_zero=True))
    eps_sk = epsilon - eps_lap
    delta_sk = delta - delta_fail
    if method == "tight":
        gamma = acc.fastmix_gamma_for_epsilon(eps_sk, delta_sk, k1, compositions=T, bound=bound)
    elif method == "closed_form":
        gamma = acc.fastmix_gamma_closed_form(eps_sk, delta_sk, k1, compositions=T)
    else:
        raise ValueError(f"method must be 'tight' or 'closed_form'; got {method!r}.")
    spent, alpha = acc.fastmix_sketch_epsilon(gamma, k1, delta_sk, compositions=T, bound=bound)
    # What is recorded is what the run actually costs (2T/omega, the sketch epsilon at gamma,
    # T exp(-tau)). Nudge omega and tau up by a few ulps where rounding would otherwise let the
    # ledger total exceed the target in the last digit.
    for _ in range(64):
        if math.fsum([1.0 / omega] * (2 * T) + [spent]) <= epsilon:
            break
        omega = math.nextafter(omega, math.inf)
    for _ in range(64):
        if math.fsum([delta_sk, T * math.exp(-tau)]) <= delta:
            break
        tau = math.nextafter(tau, math.inf)
    return FastMixCalibration(
        epsilon=epsilon,
        delta=delta,
        k1=k1,
        n_draws=T,
        gamma=gamma,
        tau=tau,
        omega=omega,
        c_x=c_x,
        epsilon_laplace=2.0 * T / omega,
        epsilon_sketch=spent,
        delta_sketch=delta_sk,
        delta_failure=T * math.exp(-tau),
        alpha=alpha,
        bound=bound,
        method=method,
    )


# =========================================================================== FastMix (Algorithm 1)


@dataclass(frozen=True)
class FastMixRelease:
    """Output of one FastMix draw (Algorithm 1) and its diagnostics.

    Private outputs (safe to publish together): ``sketch``, ``eta_tilde``, ``m_tilde``,
    ``lambda_tilde`` (the last three are post-processing of the Laplace releases).

    Diagnostics computed from the raw data (NOT private; for research and tests only):
    ``m_hat``, ``delta_hat`` and ``Lambda_hat`` (public: they depend on S_f only),
    ``lambda_min`` = lambda_min(Z^T Z).
    """

    sketch: np.ndarray
    eta_tilde: float
    m_tilde: float
    lambda_tilde: float
    m_hat: float
    delta_hat: float
    Lambda_hat: float
    lambda_min: float
    gamma: float
    k1: int
    k2: int
    n: int
    d: int
    padding: PowerOfTwoRecord
    row_norms: NormEnforcement
    ledger_entries: tuple = field(repr=False)

    @property
    def gamma_effective(self) -> float:
        """(lambda_min + eta_tilde^2) / C^2_{S_f X}: the gamma of eq. (7) this draw achieved.

        At least ``gamma`` whenever the Laplace-shifted estimates landed on the safe side.
        """
        return (self.lambda_min + self.eta_tilde**2) / (1.0 + 2.0 * self.m_hat)

    def private_outputs(self) -> dict:
        return {
            "sketch": self.sketch,
            "eta_tilde": self.eta_tilde,
            "m_tilde": self.m_tilde,
            "lambda_tilde": self.lambda_tilde,
        }


def _private_noise_level(
    q: SketchQuantities, cal: FastMixCalibration, rng: np.random.Generator, m_floor: float
) -> tuple[float, float, float]:
    """Algorithm 1 lines 3-5 (Algorithm 3 lines 7-9 with C_X): m_tilde, lambda_tilde, eta_tilde."""
    c = cal.c_x
    z1, z2 = rng.laplace(0.0, 1.0, size=2)
    m_tilde = max(m_floor, q.m_hat + cal.omega * c * q.delta_hat * (cal.tau - z1))
    lambda_tilde = max(0.0, q.lambda_min - cal.omega * c * (c * q.Lambda_hat + 2.0 * m_tilde) * (cal.tau - z2))
    eta_tilde = math.sqrt(max(0.0, cal.gamma * c * (c + 2.0 * m_tilde) - lambda_tilde))
    return m_tilde, lambda_tilde, eta_tilde


def _check_k2(k2, n: int) -> int:
    return check_positive_int(
        k2, "k2", maximum=n, hint=f"k2 is the number of SRHT rows and cannot exceed n = {n} (after padding); lower k2."
    )


def fast_mix(
    X,
    calibration: FastMixCalibration,
    *,
    k2,
    random_state=None,
    ledger=None,
    row_norm_policy: str = "raise",
    n_policy: str = "pad",
    m_floor: float = 0.0,
    backend: str | None = None,
    gaussian_step: str = "explicit",
) -> FastMixRelease:
    """FastMix, Algorithm 1 of the FastMix paper.

    1. Draw an SRHT ``S_f`` with k2 rows; compute ``Z = S_f X``, ``m_hat``, ``Delta_hat``,
       ``Lambda_hat`` and ``lambda_min(Z^T Z)`` (line 2; :func:`fastmix.srht.sketch_quantities`).
    2. ``m_tilde = max{0, m_hat + omega Delta_hat (tau - z1)}`` (line 3).
    3. ``lambda_tilde = max{0, lambda_min - omega (Lambda_hat + 2 m_tilde)(tau - z2)}`` (line 4).
       The two Laplace scales are the l1 sensitivities of ``m_hat`` (``Delta_hat``, Lemma 4) and
       of ``lambda_min`` (``Lambda_hat + 2 m``, Lemma 5), times omega.
    4. ``eta_tilde = sqrt(max{0, gamma (1 + 2 m_tilde) - lambda_tilde})`` (line 5).
    5. Release ``S_G Z + eta_tilde xi`` with ``S_G`` k1 x k2 and ``xi`` k1 x d standard
       Gaussian (line 6).

    With the calibration's (gamma, tau, omega) the release is (epsilon, delta)-DP with respect
    to X under zero-out neighbouring (Theorem 1). Runtime O(n d log n + k1 k2 d + k2 d^2 + d^3).

    Parameters
    ----------
    X : array-like of shape (n, d)
        Rows must satisfy ``||x_i|| <= calibration.c_x``. Fortran order avoids a transpose copy.
    calibration : FastMixCalibration
        From :func:`calibrate_fast_mix` with ``n_draws=1``.
    k2 : int
        SRHT rows, ``1 <= k2 <= n``.
    random_state : None, int, SeedSequence or Generator
        Source of every random draw (SRHT, Laplace, Gaussian).
    ledger : PrivacyLedger, optional
        The calibrated budget is spent here before anything is released; the call fails
        before touching the data if the ledger cannot afford it.
    row_norm_policy, n_policy : str
        See :func:`prepare_data`.
    m_floor : float, default=0.0
        Lower clamp of ``m_tilde``: 0 as in Algorithm 1; Appendix C.4 writes 1. A larger floor
        only adds noise, so either choice keeps the guarantee.
    backend : str, optional
        Walsh-Hadamard backend.
    gaussian_step : {"explicit", "gram"}, default="explicit"
        How line 6 is sampled; see :func:`mix_sketch` (same output law either way).
    """
    _check_calibration(calibration, FastMixCalibration, "calibrate_fast_mix(epsilon, delta, k1=...)", "fast_mix")
    check_policy(gaussian_step, "gaussian_step", GAUSSIAN_STEPS)
    if calibration.n_draws != 1:
        raise ValueError(
            f"This calibration covers {calibration.n_draws} draws composed together; use "
            "multiple_fast_mixing for several draws, or calibrate_fast_mix(..., n_draws=1) for one."
        )
    check_positive(m_floor, "m_floor", allow_zero=True)
    data = prepare_data(X, c_x=calibration.c_x, row_norm_policy=row_norm_policy, n_policy=n_policy)
    n, d = data.X.shape
    k2 = _check_k2(k2, n)
    rng = check_random_state(random_state)
    entries = calibration.ledger_entries()
    if ledger is not None:
        ledger.spend_all(entries)
    srht = SRHT(n, k2, random_state=rng, backend=backend)
    with blas_limit():
        q = sketch_quantities(data.X, srht, check_input=False)
    m_tilde, lambda_tilde, eta_tilde = _private_noise_level(q, calibration, rng, m_floor)
    sketch = mix_sketch(q.Z, eta_tilde, calibration.k1, rng, method=gaussian_step)
    return FastMixRelease(
        sketch=sketch,
        eta_tilde=eta_tilde,
        m_tilde=m_tilde,
        lambda_tilde=lambda_tilde,
        m_hat=q.m_hat,
        delta_hat=q.delta_hat,
        Lambda_hat=q.Lambda_hat,
        lambda_min=q.lambda_min,
        gamma=calibration.gamma,
        k1=calibration.k1,
        k2=k2,
        n=n,
        d=d,
        padding=data.padding,
        row_norms=data.row_norms,
        ledger_entries=entries,
    )


# =========================================================================== Algorithm 3


@dataclass(frozen=True)
class MultipleFastMixingResult:
    """Output of MultipleFastMixing (Algorithm 3).

    ``eta`` (the shared noise level, max over draws) and the per-draw ``m_tilde``,
    ``lambda_tilde``, ``eta_tilde`` are private. ``srht_sketches`` (the X_tilde_t = S_H,t X of
    line 5) are NOT private: they are handed to the Gaussian step, :meth:`release`, which is.
    ``m_hat``, ``lambda_min`` are non-private diagnostics; ``delta_hat`` is public.
    """

    eta: float
    srht_sketches: tuple
    m_tilde: np.ndarray
    lambda_tilde: np.ndarray
    eta_tilde: np.ndarray
    m_hat: np.ndarray
    delta_hat: np.ndarray
    lambda_min: np.ndarray
    gamma: float
    k2: int
    n: int
    d: int
    padding: PowerOfTwoRecord
    row_norms: NormEnforcement
    ledger_entries: tuple = field(repr=False)

    @property
    def n_draws(self) -> int:
        return len(self.srht_sketches)

    def release(
        self, t: int, k1: int, random_state=None, *, noise_scale: float | None = None, method: str = "explicit"
    ) -> np.ndarray:
        """Private sketch of draw t: ``S_G,t X_tilde_t + eta xi_t`` (Algorithm 2, lines 5-6).

        ``noise_scale`` defaults to the shared ``eta`` of line 10; passing
        ``eta_tilde[t]`` gives the per-draw variant of the authors' code (also private:
        Lemma 1 only needs each draw's own noise to meet eq. (7)). ``method`` as in
        :func:`mix_sketch`.
        """
        t = check_positive_int(
            t, "t", minimum=0, maximum=self.n_draws - 1, hint="t indexes the draws of this run, 0 <= t < n_draws."
        )
        scale = self.eta if noise_scale is None else noise_scale
        return mix_sketch(self.srht_sketches[t], scale, k1, random_state, method=method)


def multiple_fast_mixing(
    X,
    calibration: FastMixCalibration,
    *,
    k2,
    random_state=None,
    ledger=None,
    row_norm_policy: str = "raise",
    n_policy: str = "pad",
    m_floor: float = 0.0,
    backend: str | None = None,
    prepared: PreparedData | None = None,
) -> MultipleFastMixingResult:
    """MultipleFastMixing, Algorithm 3 of the FastMix paper (Appendix G).

    For t = 0..T-1 (T = ``calibration.n_draws``): draw an independent SRHT S_H,t with k2 rows,
    compute ``X_tilde_t = S_H,t X``, ``m_hat_t``, ``Delta_hat_t = C_X * coherence``,
    ``lambda_hat_t = lambda_min(X_tilde_t^T X_tilde_t)``; release
    ``m_tilde_t = max{0, m_hat_t + omega Delta_hat_t (tau - z1)}`` and
    ``lambda_tilde_t = max{0, lambda_hat_t - omega C_X (C_X + 2 m_tilde_t)(tau - z2)}``; set
    ``eta_tilde_t = sqrt(max{0, gamma C_X (C_X + 2 m_tilde_t) - lambda_tilde_t})`` and finally
    ``eta = max_t eta_tilde_t`` (line 10).

    The budget of the whole procedure including the T Gaussian releases of
    :meth:`MultipleFastMixingResult.release` is ``calibration`` (built with ``n_draws=T``):
    2T Laplace releases, T sketches composed in RDP, and the failure event (Appendix E.2.1).

    ``prepared`` lets a caller that already ran :func:`prepare_data` skip the repeated checks.
    The T draws share one :class:`fastmix.srht.SketchWorkspace` (the blocked pass's buffers are
    allocated once per call) and run with the thread policy of :mod:`fastmix._threads`.
    """
    _check_calibration(
        calibration, FastMixCalibration, "calibrate_fast_mix(epsilon, delta, k1=..., n_draws=T)", "multiple_fast_mixing"
    )
    check_positive(m_floor, "m_floor", allow_zero=True)
    data = (
        prepared
        if prepared is not None
        else prepare_data(X, c_x=calibration.c_x, row_norm_policy=row_norm_policy, n_policy=n_policy)
    )
    n, d = data.X.shape
    k2 = _check_k2(k2, n)
    rng = check_random_state(random_state)
    entries = calibration.ledger_entries()
    if ledger is not None:
        ledger.spend_all(entries)
    T = calibration.n_draws
    sketches, mt, lt, et, mh, dh, lm = [], [], [], [], [], [], []
    work = SketchWorkspace(d, n, k2)  # one set of work buffers for the T draws
    for _ in range(T):
        srht = SRHT(n, k2, random_state=rng, backend=backend)
        with blas_limit():
            q = sketch_quantities(data.X, srht, check_input=False, workspace=work)
        m_tilde, lambda_tilde, eta_tilde = _private_noise_level(q, calibration, rng, m_floor)
        sketches.append(q.Z)
        mt.append(m_tilde)
        lt.append(lambda_tilde)
        et.append(eta_tilde)
        mh.append(q.m_hat)
        dh.append(q.delta_hat)
        lm.append(q.lambda_min)
    return MultipleFastMixingResult(
        eta=float(max(et)),
        srht_sketches=tuple(sketches),
        m_tilde=np.array(mt),
        lambda_tilde=np.array(lt),
        eta_tilde=np.array(et),
        m_hat=np.array(mh),
        delta_hat=np.array(dh),
        lambda_min=np.array(lm),
        gamma=calibration.gamma,
        k2=k2,
        n=n,
        d=d,
        padding=data.padding,
        row_norms=data.row_norms,
        ledger_entries=entries,
    )
