"""FastIHM (Algorithm 2 of the FastMix paper) and its calibration (Theorem 2, Appendix E.2.1).

MultipleFastMixing (Algorithm 3, :func:`fastmix.mechanisms.multiple_fast_mixing`) releases the T
sketches; the gradients get Gaussian noise calibrated to their sensitivity C (eq. 179).
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
from ..mechanisms import GAUSSIAN_STEPS, FastMixCalibration, calibrate_fast_mix, multiple_fast_mixing
from ..threads import blas_limit
from .data import prepare_regression
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
        Lower clamp of m_tilde (0 in Algorithm 1; 1 in Appendix C.4 and the authors' figures).
    row_norm_policy, y_policy, n_policy : str
        See :func:`prepare_regression`.
    backend : str, optional
        Walsh-Hadamard backend.
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
    check_policy(gaussian_step, "gaussian_step", GAUSSIAN_STEPS)
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
    cal = calibration
    k1, T, clip = cal.k1, cal.T, cal.clip
    caveats = policy_caveats(row_norm_policy=row_norm_policy, y_policy=y_policy)
    entries = mark_not_private(cal.ledger_entries(), caveats)
    if ledger is not None:
        ledger.check_spend_all(entries)  # refused before the data are read
    data = prepare_regression(
        X, y, clip=clip, row_norm_policy=row_norm_policy, y_policy=y_policy, n_policy=n_policy, random_state=rng
    )
    Xp, yp = data.X, data.y
    n, d = Xp.shape
    k2 = _check_srht_k(k2, n, "k2")
    warn_not_private(caveats, "This FastIHM fit")
    if ledger is not None:
        ledger.spend_all(entries)
    ledger = cal.ledger("FastIHM", caveats)
    mfm = multiple_fast_mixing(
        Xp, cal.fast_mix, k2=k2, random_state=rng, m_floor=m_floor, backend=backend, prepared=data.as_mechanism_data()
    )
    theta = np.zeros(d)
    iterates, etas = [], []
    with blas_limit():  # the gradient passes too: the thread policy of fastmix.threads
        for t in range(T):
            eta_t = mfm.eta if shared_eta else float(mfm.eta_tilde[t])
            Xhat = mfm.release(t, k1, rng, noise_scale=eta_t, method=gaussian_step)
            H = (Xhat.T @ Xhat) / k1
            g = _clipped_gradient(Xp, yp, theta, clip)
            if not omit_eta_term:
                g -= eta_t**2 * theta
            g += cal.sigma_gradient * rng.standard_normal(d)
            theta = theta + _solve_spd(H, g)
            iterates.append(theta.copy())
            etas.append(eta_t)
    theta_out = _unscale_theta(theta, data.record)
    diag = {
        "k1": k1,
        "k2": k2,
        "T": T,
        "gamma": cal.gamma,
        "tau": cal.tau,
        "omega": cal.omega,
        "sigma_gradient": cal.sigma_gradient,
        "eta": mfm.eta,
        "eta_used": np.array(etas),
        "eta_tilde": mfm.eta_tilde,
        "m_tilde": mfm.m_tilde,
        "lambda_tilde": mfm.lambda_tilde,
        "delta_hat": mfm.delta_hat,
        "m_hat_nonprivate": mfm.m_hat,
        "lambda_min_nonprivate": mfm.lambda_min,
        "shared_eta": shared_eta,
        "omit_eta_term": omit_eta_term,
        "m_floor": m_floor,
    }
    if data.rechunking is not None:  # a Dask X: how its row chunks were made aligned powers of two
        diag["rechunking"] = data.rechunking
    return RegressionResult(theta_out, "FastIHM", data.record, ledger, cal, diag, iterates)
