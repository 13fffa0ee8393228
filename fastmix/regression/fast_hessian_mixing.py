"""FastIHM (Algorithm 2 of the FastMix paper) and its calibration (Theorem 2, Appendix E.2.1).

MultipleFastMixing (Algorithm 3, :func:`fastmix.mechanisms.multiple_fast_mixing`) releases the T
sketches; the gradients get Gaussian noise calibrated to their sensitivity C (eq. 179).

:func:`fast_ihm` runs in four steps: a plan fixed before the data are read (the calibration,
the options and the ledger entries), the mixing step of Algorithm 2 line 3 (Algorithm 3), the
iteration of Algorithm 2 lines 4-8, and the result record.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import accounting as acc
from .._validation import (
    check_delta,
    check_epsilon,
    check_policy,
    check_positive,
    check_positive_int,
    check_random_state,
    mark_not_private,
    policy_caveats,
    warn_not_private,
)
from ..mechanisms import (
    GAUSSIAN_STEPS,
    FastMixCalibration,
    FastMixDrawOptions,
    MultipleFastMixingResult,
    calibrate_fast_mix,
    multiple_fast_mixing,
)
from ..threads import blas_limit
from .data import PreparedRegression, prepare_regression
from .gradient_noise import _gradient_entry, _gradient_noise_tight, _rho_default
from .hessian_sketch import _check_srht_k
from .result import RegressionResult, _clipped_gradient, _solve_spd, _unscale_theta


@dataclass(frozen=True)
class FastIHMCalibration:
    """Every noise parameter of FastIHM (Algorithm 2) and its budget.

    Attributes
    ----------
    fast_mix : FastMixCalibration
        gamma, tau, omega of the T FastMix draws (MultipleFastMixing, Algorithm 3) and their
        budget: 2T Laplace releases, T k1-row sketches composed in RDP, the failure event.
    sigma_gradient : float
        Std of the gradient noise ``sigma zeta_t`` (Algorithm 2, line 7).
    method : {"tight", "closed_form"}
    paper_gamma_1, paper_gamma_2 : float
        eq. (177) evaluated as printed (closed form only; for the record).
    """

    epsilon: float
    delta: float
    k1: int
    T: int
    rho: float
    clip: float
    method: str
    fast_mix: FastMixCalibration
    sigma_gradient: float
    epsilon_gradient: float
    delta_gradient: float
    paper_gamma_1: float = math.nan
    paper_gamma_2: float = math.nan

    @property
    def gamma(self) -> float:
        return self.fast_mix.gamma

    @property
    def tau(self) -> float:
        return self.fast_mix.tau

    @property
    def omega(self) -> float:
        return self.fast_mix.omega

    @property
    def sigma(self) -> float:
        return self.sigma_gradient

    def ledger_entries(self) -> tuple:
        src = (
            "eq. (179) sensitivity C; T-fold GDP composition = one analytic Gaussian mechanism"
            if self.method == "tight"
            else "eq. (176), (182)-(184): RDP of T Gaussian mechanisms, Mironov conversion"
        )
        return tuple(self.fast_mix.ledger_entries()) + (
            _gradient_entry(self.T, self.sigma_gradient, self.clip, self.epsilon_gradient, self.delta_gradient, src),
        )

    def ledger(self, name: str = "FastIHM", caveats: tuple = ()) -> acc.PrivacyLedger:
        """A ledger of target ``(epsilon, delta)`` holding this calibration's entries (marked not
        private with ``caveats``, the reasons an option broke the guarantee, when there are any)."""
        led = acc.PrivacyLedger(self.epsilon, self.delta, relation=acc.ZERO_OUT, name=name)
        led.spend_all(mark_not_private(self.ledger_entries(), caveats))
        return led


def calibrate_fast_ihm(
    epsilon, delta, *, k1, T: int = 4, rho=None, clip: float = 1.0, method: str = "tight", bound: str = "bar"
) -> FastIHMCalibration:
    """Noise parameters (gamma, tau, omega, sigma) of FastIHM at a target (epsilon, delta).

    Both methods split the budget as in Theorem 2's proof (Appendix E.2.1): epsilon/3 and
    delta/3 to each of (i) the T FastMix sketches, (ii) the 2T Laplace releases (epsilon only)
    and their failure event (delta only), (iii) the T gradient releases; and use (eq. 176)::

        omega = 6T / epsilon,    tau = max{log(3T/delta), log(16T/rho)}.

    ``method="tight"`` (default; what the paper's experiments use):
        gamma = smallest value with  min_alpha  T k1 phi_bar(alpha; gamma) + conv_Canonne(alpha, delta/3)
        <= epsilon/3  (eq. 185, bisection; :func:`fastmix.accounting.fastmix_gamma_for_epsilon`),
        sigma = sqrt(T) sigma_AG(epsilon/3, delta/3, C) (analytic Gaussian mechanism, Balle & Wang
        2018; exact by Gaussian-DP composition, see :func:`_gradient_noise_tight`).
    ``method="closed_form"`` (Theorem 2 as stated):
        sigma = 3 sqrt(T log(3/delta)) C / (sqrt(2) epsilon) (1 + sqrt(1 + epsilon/(3 log(3/delta))))
        (eq. 176, which makes eq. 184 equal epsilon/3), and gamma = gamma_1 of eq. (177) when eq.
        (178) selects it. In the other branch the printed gamma_2 does not make eq. (134) at most
        epsilon/3, so the exact end-branch root is used instead
        (:func:`fastmix.accounting.fastmix_gamma_closed_form`); the printed values are kept in
        ``paper_gamma_1``/``paper_gamma_2``.

    The gradient releases add Gaussian noise calibrated to the l2 sensitivity C of
    ``X^T clip_C(y - X theta)`` under zero-out neighbouring (eq. (179)).

    The ledger records the actual cost at the chosen parameters (for the sketches, the tight
    RDP epsilon at gamma, which is never more than the closed form), so its totals are at most
    (epsilon, delta).
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    k1 = check_positive_int(k1, "k1")
    T = check_positive_int(T, "T")
    rho = _rho_default(rho, delta)
    clip = check_positive(clip, "clip")
    if method not in ("tight", "closed_form"):
        raise ValueError(f"method must be 'tight' or 'closed_form'; got {method!r}.")
    fm = calibrate_fast_mix(
        2.0 * epsilon / 3.0,
        2.0 * delta / 3.0,
        k1=k1,
        n_draws=T,
        laplace_share=0.5,
        failure_share=0.5,
        bound=bound,
        method=method,
        tau_min=math.log(16.0 * T / rho),
    )
    e3, d3 = epsilon / 3.0, delta / 3.0
    g1 = g2 = math.nan
    if method == "tight":
        sigma, d_grad = _gradient_noise_tight(e3, d3, T, clip)
    else:
        L = math.log(3.0 / delta)
        sigma = (
            3.0 * math.sqrt(T * L) * clip / (math.sqrt(2.0) * epsilon) * (1.0 + math.sqrt(1.0 + epsilon / (3.0 * L)))
        )
        d_grad = d3
        g1 = 15.0 * math.sqrt(2.0 * k1 * T * L) / (8.0 * epsilon) * (1.0 + math.sqrt(1.0 + epsilon / (3.0 * L)))
        g2 = (2.0 * k1 * T + 25.0 * L) / (8.0 * epsilon)
    return FastIHMCalibration(
        epsilon=epsilon,
        delta=delta,
        k1=k1,
        T=T,
        rho=rho,
        clip=clip,
        method=method,
        fast_mix=fm,
        sigma_gradient=sigma,
        epsilon_gradient=e3,
        delta_gradient=d_grad,
        paper_gamma_1=g1,
        paper_gamma_2=g2,
    )


def fast_ihm(
    X,
    y,
    *,
    epsilon=None,
    delta=None,
    k1: int | None = None,
    k2: int,
    T: int = 4,
    rho=None,
    clip: float = 1.0,
    calibration=None,
    method: str = "tight",
    random_state=None,
    shared_eta: bool = True,
    omit_eta_term: bool = True,
    m_floor: float = 0.0,
    row_norm_policy: str = "raise",
    y_policy: str = "raise",
    n_policy: str = "pad",
    backend: str | None = None,
    ledger=None,
    gaussian_step: str = "explicit",
):
    """FastIHM, Algorithm 2 of the FastMix paper, with MultipleFastMixing (Algorithm 3) inside.

    1. ``eta, {X_tilde_t} = MultipleFastMixing(X, 1, gamma, tau, omega, k2, T)`` (line 3): T
       independent SRHTs with k2 rows, each with private (Laplace) estimates of m_hat and
       lambda_min, and ``eta = max_t eta_t`` (Algorithm 3, line 10).
    2. For t = 0..T-1 (theta_0 = 0)::

           X_hat_t   = S_G,t X_tilde_t + eta xi_t                 S_G,t: k1 x k2 (lines 5-6)
           G_t       = X^T clip_C(y - X theta_t) - eta^2 theta_t + sigma zeta_t     (line 7)
           theta_t+1 = theta_t + (X_hat_t^T X_hat_t / k1)^{-1} G_t                    (line 8)

    **Dask input.** X and y may be Dask arrays chunked along rows (X with one column chunk; y may
    also be a NumPy vector). The checks run in one pass over the chunks (``row_norm_policy`` and
    ``y_policy`` ``"raise"`` or ``"clip"``), zero rows are appended lazily up to a power of two
    (``n_policy="pad"``; recorded in ``result.data`` exactly as in memory) and the row chunks are
    made aligned powers of two (recorded in ``result.diagnostics["rechunking"]``). MultipleFastMixing
    then reads X in two passes for all T sketches, and each gradient of line 7 is one more pass
    (a tree sum of d-vectors). Every random draw happens on the client, in the in-memory order, and
    only k2 x d sketches, d-vectors and scalars leave the workers, so the same ``random_state``
    gives the same estimate in any chunking, up to the order of floating-point sums; the ledger is
    charged once, on the client, however often the cluster retries a task.

    Parameters
    ----------
    X : array-like of shape (n, d), or a Dask array chunked along rows
    y : array-like of shape (n,), or a Dask array
    epsilon, delta : float
        Target guarantee (ignored when ``calibration`` is given).
    k1, k2 : int
        Gaussian rows and SRHT rows (``k2 <= n`` after padding).
    T : int, default=4
    rho : float, optional
        Utility failure probability (default delta/10, Appendix H); enters tau only.
    clip : float, default=1.0
        The residual clipping level C (= C_Y in the paper's experiments).
    calibration : FastIHMCalibration, optional
        From :func:`calibrate_fast_ihm`; computed here otherwise (``method``). It fixes k1, T
        and C (a different explicit ``k1`` is an error).
    ledger : PrivacyLedger, optional
        An outer ledger to charge as well; the call fails before touching the data if it cannot
        afford the calibrated budget.
    shared_eta : bool, default=True
        True: one ``eta = max_t eta_tilde_t`` for every iteration (Algorithm 3, line 10; the paper).
        False: iteration t uses its own ``eta_tilde_t`` (the authors' code). Both are private:
        the RDP bound of Lemma 1 for draw t only needs that draw's noise to satisfy eq. (180),
        ``lambda_min(S_H,t X) + eta_t^2 >= gamma (1 + 2 m_hat_t)``, which ``eta_tilde_t`` already
        does on the event B of Appendix E.2.1 (the max only adds noise), and ``eta_tilde_t`` is
        post-processing of the Laplace releases that are paid for.
    omit_eta_term : bool, default=True
        Drop ``-eta^2 theta_t`` from G_t, as the paper's experiments do (Appendix H). The term is
        data-independent given the private eta, so this does not affect privacy.
    m_floor : float, default=0.0
        Lower clamp of m_tilde_t (0 in Algorithms 1 and 3; 1 in Appendix C.4 and the authors'
        figures); a finite number >= 0, checked before the data are read
        (:class:`~fastmix.mechanisms.FastMixDrawOptions`).
    row_norm_policy, y_policy, n_policy : str
        See :func:`prepare_regression`.
    backend : str, optional
        Walsh-Hadamard backend of the T SRHTs; None for the active default
        (:class:`~fastmix.mechanisms.FastMixDrawOptions`).
    gaussian_step : {"explicit", "gram"}, default="explicit"
        How ``S_G,t X_tilde_t + eta xi_t`` (lines 5-6) is sampled. ``"explicit"`` draws the
        k1 x k2 matrix S_G,t as the paper does. ``"gram"`` draws ``G L^T`` with G a k1 x d standard
        Gaussian and ``L L^T = X_tilde_t^T X_tilde_t + eta^2 I``: given X_tilde_t, the rows of
        ``S_G,t X_tilde_t`` are i.i.d. ``N(0, X_tilde_t^T X_tilde_t)`` (each is a standard Gaussian
        vector times X_tilde_t) and those of ``eta xi_t`` are ``N(0, eta^2 I)``, so both give the same
        law of the release, hence the same privacy (Lemma 1 only looks at that law) and the same
        utility, at O(k2 d^2 + k1 d^2) instead of O(k1 k2 d) with k1 d draws instead of k1 (k2 + d)
        (see :func:`fastmix.mechanisms.mix_sketch`). They use the random stream differently.

    Returns
    -------
    result : RegressionResult
        ``result.theta`` (a NumPy array of shape ``(d,)``, for NumPy and Dask input alike) is the
        estimate (``ledger`` total <= (epsilon, delta)).
    """
    rng = check_random_state(random_state)
    plan = _plan(
        epsilon=epsilon,
        delta=delta,
        k1=k1,
        T=T,
        rho=rho,
        clip=clip,
        calibration=calibration,
        method=method,
        shared_eta=shared_eta,
        omit_eta_term=omit_eta_term,
        m_floor=m_floor,
        backend=backend,
        row_norm_policy=row_norm_policy,
        y_policy=y_policy,
        n_policy=n_policy,
        gaussian_step=gaussian_step,
    )
    data, k2 = _prepare_and_charge(X, y, k2, plan, rng, ledger)
    mixing = _multiple_fast_mixing_step(data, k2, plan, rng)
    iteration = _iterate(data, mixing, plan, rng)
    return _result(data, k2, mixing, iteration, plan)


@dataclass(frozen=True)
class _FastIHMPlan:
    """A FastIHM run as fixed before the data are read.

    ``calibration`` holds (gamma, tau, omega) of the T FastMix draws (Algorithm 3), sigma of the
    gradients (Algorithm 2, line 7), k1, T and C; ``draw_options`` the floor of ``m_tilde_t`` and the
    Walsh-Hadamard backend of the T SRHTs; ``caveats`` the reasons a data policy broke the guarantee
    (none for the private policies) and ``entries`` the calibrated ledger entries marked with them.
    """

    calibration: FastIHMCalibration
    draw_options: FastMixDrawOptions
    shared_eta: bool
    omit_eta_term: bool
    gaussian_step: str
    row_norm_policy: str
    y_policy: str
    n_policy: str
    caveats: tuple
    entries: tuple


@dataclass(frozen=True)
class _FastIHMIteration:
    """What Algorithm 2, lines 4-8 produced: theta_T, the iterates theta_1..theta_T and the eta of each t."""

    theta: np.ndarray
    iterates: list
    eta_used: list


def _plan(
    *,
    epsilon,
    delta,
    k1,
    T,
    rho,
    clip,
    calibration,
    method: str,
    shared_eta: bool,
    omit_eta_term: bool,
    m_floor,
    backend,
    row_norm_policy: str,
    y_policy: str,
    n_policy: str,
    gaussian_step: str,
) -> _FastIHMPlan:
    """Check the options and calibrate FastIHM (Theorem 2) unless a calibration is given; no data read.

    ``m_floor`` and ``backend`` become one :class:`~fastmix.mechanisms.FastMixDrawOptions`, the
    options of the T FastMix draws of MultipleFastMixing (Algorithm 3).
    """
    check_policy(gaussian_step, "gaussian_step", GAUSSIAN_STEPS)
    draw_options = FastMixDrawOptions(m_floor=m_floor, backend=backend)
    if calibration is None:
        if epsilon is None or delta is None:
            raise ValueError("fast_ihm needs epsilon and delta, or a precomputed calibration=calibrate_fast_ihm(...).")
        if k1 is None:
            raise ValueError("fast_ihm needs k1 (Gaussian rows), e.g. paper_sketch_sizes(d, T, rho, ratio)[0].")
        calibration = calibrate_fast_ihm(epsilon, delta, k1=k1, T=T, rho=rho, clip=clip, method=method)
    elif not isinstance(calibration, FastIHMCalibration):
        raise TypeError(f"calibration must be a FastIHMCalibration; got {type(calibration).__name__}.")
    elif k1 is not None and int(k1) != calibration.k1:
        raise ValueError(f"k1 = {k1} differs from the calibration's k1 = {calibration.k1}; recalibrate.")
    caveats = policy_caveats(row_norm_policy=row_norm_policy, y_policy=y_policy)
    return _FastIHMPlan(
        calibration=calibration,
        draw_options=draw_options,
        shared_eta=shared_eta,
        omit_eta_term=omit_eta_term,
        gaussian_step=gaussian_step,
        row_norm_policy=row_norm_policy,
        y_policy=y_policy,
        n_policy=n_policy,
        caveats=caveats,
        entries=mark_not_private(calibration.ledger_entries(), caveats),
    )


def _prepare_and_charge(X, y, k2, plan: _FastIHMPlan, rng, ledger) -> tuple[PreparedRegression, int]:
    """Check and prepare (X, y) (:func:`prepare_regression`) and check k2 against the padded n.

    An outer ``ledger`` is asked first whether it can afford the plan's entries (refused before
    the data are read) and charged once the data passed their checks.
    """
    if ledger is not None:
        ledger.check_spend_all(plan.entries)  # refused before the data are read
    data = prepare_regression(
        X,
        y,
        clip=plan.calibration.clip,
        row_norm_policy=plan.row_norm_policy,
        y_policy=plan.y_policy,
        n_policy=plan.n_policy,
        random_state=rng,
    )
    k2 = _check_srht_k(k2, data.X.shape[0], "k2")
    warn_not_private(plan.caveats, "This FastIHM fit")
    if ledger is not None:
        ledger.spend_all(plan.entries)
    return data, k2


def _multiple_fast_mixing_step(
    data: PreparedRegression, k2: int, plan: _FastIHMPlan, rng: np.random.Generator
) -> MultipleFastMixingResult:
    """Algorithm 2, line 3: ``eta, {X_tilde_t} = MultipleFastMixing(X, 1, gamma, tau, omega, k2, T)`` (Algorithm 3)."""
    options = plan.draw_options
    return multiple_fast_mixing(
        data.X,
        plan.calibration.fast_mix,
        k2=k2,
        random_state=rng,
        m_floor=options.m_floor,
        backend=options.backend,
        prepared=data.as_mechanism_data(),
    )


def _iterate(
    data: PreparedRegression, mixing: MultipleFastMixingResult, plan: _FastIHMPlan, rng: np.random.Generator
) -> _FastIHMIteration:
    """Algorithm 2, lines 4-8, from theta_0 = 0, for t = 0..T-1::

        X_hat_t   = S_G,t X_tilde_t + eta_t xi_t                                  (lines 5-6)
        G_t       = X^T clip_C(y - X theta_t) [- eta_t^2 theta_t] + sigma zeta_t   (line 7)
        theta_t+1 = theta_t + (X_hat_t^T X_hat_t / k1)^{-1} G_t                    (line 8)

    ``eta_t`` is the shared ``eta`` of Algorithm 3 line 10 or the draw's own ``eta_tilde_t``
    (``plan.shared_eta``); the bracketed term is dropped when ``plan.omit_eta_term``. Per t the
    generator gives the Gaussian step of lines 5-6, then the d draws of zeta_t.
    """
    cal = plan.calibration
    k1, clip = cal.k1, cal.clip
    X, y = data.X, data.y
    theta = np.zeros(X.shape[1])
    iterates, etas = [], []
    with blas_limit():  # the gradient passes too: the thread policy of fastmix.threads
        for t in range(cal.T):
            eta_t = mixing.eta if plan.shared_eta else float(mixing.eta_tilde[t])
            Xhat = mixing.release(t, k1, rng, noise_scale=eta_t, method=plan.gaussian_step)
            H = (Xhat.T @ Xhat) / k1
            g = _clipped_gradient(X, y, theta, clip)
            if not plan.omit_eta_term:
                g -= eta_t**2 * theta
            g += cal.sigma_gradient * rng.standard_normal(X.shape[1])
            theta = theta + _solve_spd(H, g)
            iterates.append(theta.copy())
            etas.append(eta_t)
    return _FastIHMIteration(theta, iterates, etas)


def _result(
    data: PreparedRegression,
    k2: int,
    mixing: MultipleFastMixingResult,
    iteration: _FastIHMIteration,
    plan: _FastIHMPlan,
) -> RegressionResult:
    """The :class:`RegressionResult`: theta_T in the data's original units, the run's own ledger
    (the calibration's entries, marked with the plan's caveats) and the diagnostics."""
    cal, mfm = plan.calibration, mixing
    diag = {
        "k1": cal.k1,
        "k2": k2,
        "T": cal.T,
        "gamma": cal.gamma,
        "tau": cal.tau,
        "omega": cal.omega,
        "sigma_gradient": cal.sigma_gradient,
        "eta": mfm.eta,
        "eta_used": np.array(iteration.eta_used),
        "eta_tilde": mfm.eta_tilde,
        "m_tilde": mfm.m_tilde,
        "lambda_tilde": mfm.lambda_tilde,
        "delta_hat": mfm.delta_hat,
        "m_hat_nonprivate": mfm.m_hat,
        "lambda_min_nonprivate": mfm.lambda_min,
        "shared_eta": plan.shared_eta,
        "omit_eta_term": plan.omit_eta_term,
        "m_floor": plan.draw_options.m_floor,
    }
    if data.rechunking is not None:  # a Dask X: how its row chunks were made aligned powers of two
        diag["rechunking"] = data.rechunking
    theta_out = _unscale_theta(iteration.theta, data.record)
    ledger = cal.ledger("FastIHM", plan.caveats)
    return RegressionResult(theta_out, "FastIHM", data.record, ledger, cal, diag, iteration.iterates)
