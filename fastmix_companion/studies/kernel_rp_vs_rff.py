"""Private kernel ridge regression: random projection (Algorithm 1) against random Fourier features (Algorithm 3).

The kernel paper (Lee, Park and Ahn 2025, arXiv:2507.17544) reports the average test error of DP
kernel ridge regression by random projection (RP) and by random Fourier features (RFF) over 100
repetitions, across a range of epsilon, in panels of growing input dimension.  Its text gives no
n, M, lambda, delta or data, so this study fixes its own protocol and runs each method under
three ways of choosing the projection dimension M and the penalty lambda:

``tuned``
    (M, lambda) chosen separately for each method on a held-out validation split, over a grid,
    by the validation MSE of the *private* fit.  This is non-private oracle tuning: the
    validation split is not charged to the budget.  It shows what each method can do at its
    best.
``theory``
    M and lambda from the paper's rates and conditions with stated constants
    (:func:`fastmix.kernels.theory_rp_hyperparameters` for RP: ``M = c_m (1/||L|| + N(lambda))
    log(2n)`` with the effective dimension of a public sample; :func:`fastmix.kernels.theory_hyperparameters`
    for RFF: ``M = (n eps)^(2/3)``); both ``lambda`` raised to the positive-definiteness condition.
    Data-independent, so free of privacy cost.
``private``
    (M, lambda) chosen with privacy spent and accounted: the training records are split into a
    fitting part A and a selection part B.  For each M of a small grid one pair (C~, u~) is
    released from A; the 2G Gaussian releases share the budget (epsilon, delta_Gauss) by exact
    Gaussian-DP composition (each standard deviation is sqrt(2G) times that of one Gaussian
    mechanism at the full budget), and every lambda is post-processing.  The candidate is picked by
    the exponential mechanism on B with score minus the mean squared error of predictions clipped to
    [-T, T] (sensitivity 4 T^2 / n_B) at the full epsilon.  A and B are disjoint, so by parallel
    composition the whole procedure is (epsilon, delta)-DP; for RP the Laurent-Massart events of the
    G projection dimensions take delta/4 (t = delta / (8 G) per record).  The chosen model is the
    one fitted on A, and it predicts ``clip(f, -T, T)``, the function the selection scored
    (post-processing; the other two protocols report the paper's unclipped ``f``).

Every private fit is exactly Algorithm 1 or 3 (:func:`fastmix.kernels.release_from_statistics`,
the release :class:`fastmix.kernels.DPRandomProjectionKRR` and :class:`fastmix.kernels.DPRandomFeatureKRR`
make, then :func:`fastmix.kernels.ridge_path_floored`).  Within one repetition the M_max GP
paths (drawn exactly, from the joint law at the training, validation and test inputs) and the
M_max random Fourier features are drawn once; the map of dimension M uses the first M of them
(iid, so each is a valid draw of that map), and the statistics of dimension M are sub-blocks of
those of dimension M_max.  Every (method, M, epsilon) gets its own noise draw, shared by all
lambdas (each estimator still has exactly its law).

Panels: inputs uniform on [-1, 1]^d with d in ``dims`` and two targets, ``plane_wave``
``f(x) = 0.8 sin(sum_j x_j / sqrt(d/3))`` and ``rkhs`` (a fresh function of the RKHS per
repetition: 20 kernel sections at random centres with N(0, 1) weights, scaled to root mean
square 0.5 on the input law), responses ``f + N(0, noise_sd^2)`` clipped to [-T, T]; error
= excess risk on noise-free test points.  And scikit-learn's bundled diabetes data (442 x 10),
standardised, response scaled to standard deviation 1/2, split at random per repetition 60/15/25
into training/validation/test; error = test MSE on the observed responses.

Tables
------
``runs``
    One row per repetition, panel, protocol, method and epsilon (``inf`` = non-private, tuned):
    M, lambda, test error, validation error, grid-edge flags, floored eigenvalues, noise
    standard deviations, norm bound D2, privacy spent.  Plus rows ``method = "exact KRR"``
    (non-private kernel ridge regression on all of the kernel, lambda tuned on validation) for
    the first ``krr_reps`` repetitions.
``sweep``
    The equal-M sweep, aggregated per cell: for each method, M, lambda of the grid and epsilon in
    ``sweep_epsilons`` and ``inf``: count, mean and standard deviation of the test error, mean
    share of eigenvalues floored.
``noise``
    The calibration for each M of the grid and epsilon: both methods' norm bounds D2 and noise
    standard deviations on the covariance and on u (data-independent, computed once).

A cell is one panel and one block of ``rep_block`` repetitions (all protocols, methods and
epsilons); blocks run in the outer loop, so a partial run has the same repetitions in every panel.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from fastmix_companion.parameters import ChoiceList, Flag, Integer, IntegerList, Real, RealList
from fastmix_companion.studies import CellTable, split_values
from fastmix_companion.studies.kernel_fits import Features, mse, plane_wave_target, private_path, rkhs_target
from fastmix_companion.studies.kernel_rp_vs_rff_summary import (
    METHODS,
    PROTOCOLS,
    chosen_hyperparameters,
    equal_m_comparison,
    gap_with_d,
    noise_summary,
    paired_log_ratios,
    pooled_sweep,
    ratio_table,
    summarise,
)

__all__ = [
    "NOTEBOOK",
    "DEFAULTS",
    "run",
    "panels",
    "summarise",
    "M_grid",
    "paired_log_ratios",
    "ratio_table",
    "gap_with_d",
    "pooled_sweep",
    "equal_m_comparison",
    "noise_summary",
    "chosen_hyperparameters",
    "stored_claims",
    "PROTOCOLS",
    "plane_wave_target",
    "rkhs_target",
    "private_path",
    "cost_model",
]

NOTEBOOK = "kernel_rp_vs_rff"

DEFAULTS: dict[str, Any] = {
    "seed": 0,
    "n_train": 200,
    "n_val": 100,
    "n_test": 200,
    "dims": "1,5",
    "targets": "plane_wave,rkhs",
    "real_data": True,
    "epsilons": "0.3,3,30",
    "delta": 1e-5,
    "n_reps": 2,
    "rep_block": 2,
    "noise_sd": 0.1,
    "response_bound": 1.0,
    "m_grid": "4,16,64",
    "lam_grid": "0.0001,0.001,0.01,0.1,1",
    "sel_m_grid": "4,16,64",
    "sel_fraction": 0.25,
    "sweep_epsilons": "3",
    "c_m": 1.0,
    "c_lam": 1.0,
    "krr_reps": 1,
    "blas_threads": 1,
}
"""Smoke-scale defaults (the notebook's); ``notebooks/paper_scale.json`` holds the paper-scale run."""

PARAMETERS = {
    "seed": Integer(0),
    "n_train": Integer(2),
    "n_val": Integer(1),
    "n_test": Integer(1),
    "dims": IntegerList(1),
    "targets": ChoiceList(("plane_wave", "rkhs"), min_items=0),
    "real_data": Flag(),
    "epsilons": RealList(0, low_open=True),
    "delta": Real(0, 1, low_open=True, high_open=True),
    "n_reps": Integer(1),
    "rep_block": Integer(1),
    "noise_sd": Real(0),
    "response_bound": Real(0, low_open=True),
    "m_grid": IntegerList(1),
    "lam_grid": RealList(0, low_open=True),
    "sel_m_grid": IntegerList(1),
    "sel_fraction": Real(0, 1, low_open=True, high_open=True),
    "sweep_epsilons": RealList(0, low_open=True, min_items=0),
    "c_m": Real(0, low_open=True),
    "c_lam": Real(0, low_open=True),
    "krr_reps": Integer(0),
    "blas_threads": Integer(0),  # 0: library default
}
"""What each parameter admits (:mod:`fastmix_companion.parameters`)."""


def stored_claims(tables, parameters) -> list:
    """The page's claims, decided on the stored ``tables`` with the ``parameters`` they were computed with.

    The kernel paper's two claims about its comparison figure (not comparable: it states no setting),
    our verdict matrix (one claim per panel and protocol), the gap and equal-M checks; Holm over all
    the page's tests (:mod:`fastmix_companion.studies.kernel_rp_vs_rff_claims`). The M grid of the
    parameters flags the tuned cells whose M sat at the top of the grid.
    """
    from fastmix_companion.studies.kernel_rp_vs_rff_claims import claims

    return claims(tables, M_grid(parameters) if parameters.get("m_grid") else None)


def M_grid(params) -> tuple[int, ...]:
    return tuple(sorted(set(split_values(params["m_grid"], int))))


def panels(params) -> list[dict]:
    """The panels: (dimension, target) for each synthetic pair, then the real data set."""
    out = [
        {"panel": f"{t} d={d}", "kind": "synthetic", "target": t, "d": d}
        for t in split_values(params["targets"], str)
        for d in split_values(params["dims"], int)
    ]
    if params["real_data"]:
        out.append({"panel": "diabetes d=10", "kind": "diabetes", "target": "diabetes", "d": 10})
    return out


# ------------------------------------------------------------------------------------------ data


def _diabetes():
    from sklearn.datasets import load_diabetes

    X, y = load_diabetes(return_X_y=True)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    y = (y - y.mean()) / y.std() / 2.0
    return X, y


def _draw_data(panel, params, rng, kernel, cache):
    """(X_tr, y_tr, X_val, y_val, X_te, target_te): target_te is f* (synthetic) or y (real)."""
    T = float(params["response_bound"])
    if panel["kind"] == "diabetes":
        if "diabetes" not in cache:
            cache["diabetes"] = _diabetes()
        X, y = cache["diabetes"]
        perm = rng.permutation(X.shape[0])
        n_tr, n_va = int(0.60 * X.shape[0]), int(0.15 * X.shape[0])
        tr, va, te = perm[:n_tr], perm[n_tr : n_tr + n_va], perm[n_tr + n_va :]
        return X[tr], np.clip(y[tr], -T, T), X[va], np.clip(y[va], -T, T), X[te], y[te]
    d = panel["d"]
    f = plane_wave_target if panel["target"] == "plane_wave" else rkhs_target(d, kernel, rng)
    n, nv, nt = int(params["n_train"]), int(params["n_val"]), int(params["n_test"])
    X = rng.uniform(-1.0, 1.0, (n + nv + nt, d))
    fx = f(X)
    y = np.clip(fx + float(params["noise_sd"]) * rng.standard_normal(fx.size), -T, T)
    return X[:n], y[:n], X[n : n + nv], y[n : n + nv], X[n + nv :], fx[n + nv :]


def _public_spectrum(panel, kernel, seed):
    """Spectrum of the integral operator under the *public* input law (no private data used)."""
    from fastmix.kernels import operator_spectrum

    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(99,)))
    if panel["kind"] == "diabetes":  # standardised inputs, modelled as N(0, I_d) (a public assumption)
        sample = rng.standard_normal((1000, panel["d"]))
    else:
        sample = rng.uniform(-1.0, 1.0, (1000, panel["d"]))
    return operator_spectrum(kernel, sample)


# ------------------------------------------------------------------------------------------ one repetition


def _one_rep(panel, params, rep, kernel, spectrum, cache):
    from fastmix.kernels import ridge_path_floored, theory_hyperparameters, theory_rp_hyperparameters

    seed = int(params["seed"])
    ss = np.random.SeedSequence(seed, spawn_key=(panel["index"], rep))
    data_ss, rp_ss, rff_ss, noise_ss, sel_ss = ss.spawn(5)
    rng = np.random.default_rng(data_ss)
    X_tr, y_tr, X_val, y_val, X_te, target_te = _draw_data(panel, params, rng, kernel, cache)
    n = X_tr.shape[0]
    eps_grid = split_values(params["epsilons"])
    sweep_eps = set(split_values(params["sweep_epsilons"]))
    delta, T = float(params["delta"]), float(params["response_bound"])
    Ms = M_grid(params)
    lams = np.array(split_values(params["lam_grid"]))
    sel_Ms = tuple(sorted(set(split_values(params["sel_m_grid"], int))))
    M_max = max(Ms + sel_Ms)
    feats = {
        "RP": Features("RP", kernel, X_tr, y_tr, X_val, X_te, M_max, np.random.default_rng(rp_ss)),
        "RFF": Features("RFF", kernel, X_tr, y_tr, X_val, X_te, M_max, np.random.default_rng(rff_ss)),
    }
    noise_rng = np.random.default_rng(noise_ss)
    sel_rng = np.random.default_rng(sel_ss)
    # selection split of the training rows (private protocol)
    perm = np.random.default_rng(sel_ss.spawn(1)[0]).permutation(n)
    n_B = max(1, round(float(params["sel_fraction"]) * n))
    rows_B, rows_A = np.sort(perm[:n_B]), np.sort(perm[n_B:])
    base = {"panel": panel["panel"], "target": panel["target"], "d": panel["d"], "rep": rep, "n": n}
    runs, sweep = [], []

    def row(protocol, method, eps, M, lam, test, val=np.nan, **extra):
        return {
            **base,
            "protocol": protocol,
            "method": method,
            "epsilon": eps,
            "M": int(M),
            "lam": float(lam),
            "test_error": float(test),
            "val_error": float(val),
            **extra,
        }

    for method in METHODS:
        fm = feats[method]
        # ---- non-private: every (M, lambda), tuned on validation; and the equal-M sweep at eps = inf
        best = None
        for M in Ms:
            C, u, _ = fm.stats("all", M)
            path = ridge_path_floored(C, u, lams)
            betas, floored = path.coef, path.n_floored
            ve = mse(betas @ fm.map("val", M).T, y_val)
            te = mse(betas @ fm.map("te", M).T, target_te)
            for k, lam in enumerate(lams):
                sweep.append(
                    {
                        "method": method,
                        "epsilon": math.inf,
                        "M": M,
                        "lam": lam,
                        "test_error": te[k],
                        "floored_share": floored[k] / M,
                    }
                )
            k = int(np.argmin(ve))
            if best is None or ve[k] < best[0]:
                best = (ve[k], te[k], M, lams[k])
        runs.append(
            row(
                "tuned",
                method,
                math.inf,
                best[2],
                best[3],
                best[1],
                best[0],
                M_at_edge=best[2] in (Ms[0], Ms[-1]),
                lam_at_edge=best[3] in (lams[0], lams[-1]),
            )
        )
        for eps in eps_grid:
            # ---- tuned (oracle validation) and the equal-M sweep
            best = None
            for M in Ms:
                betas, floored, rel, D2 = private_path(method, fm, M, eps, delta, lams, T, noise_rng)
                ve = mse(betas @ fm.map("val", M).T, y_val)
                te = mse(betas @ fm.map("te", M).T, target_te)
                if eps in sweep_eps:
                    for k, lam in enumerate(lams):
                        sweep.append(
                            {
                                "method": method,
                                "epsilon": eps,
                                "M": M,
                                "lam": lam,
                                "test_error": te[k],
                                "floored_share": floored[k] / M,
                            }
                        )
                k = int(np.argmin(ve))
                if best is None or ve[k] < best[0]:
                    best = (ve[k], te[k], M, lams[k], floored[k], rel, D2)
            ve_b, te_b, M_b, lam_b, fl_b, rel_b, D2_b = best
            runs.append(
                row(
                    "tuned",
                    method,
                    eps,
                    M_b,
                    lam_b,
                    te_b,
                    ve_b,
                    M_at_edge=M_b in (Ms[0], Ms[-1]),
                    lam_at_edge=lam_b in (lams[0], lams[-1]),
                    floored_share=fl_b / M_b,
                    sigma_C=rel_b.sigma_covariance,
                    sigma_u=rel_b.sigma_vector,
                    D2=D2_b,
                    eps_spent=eps,
                    delta_spent=delta,
                )
            )
            # ---- theory
            if method == "RP":
                choice = theory_rp_hyperparameters(
                    n,
                    eps,
                    delta,
                    spectrum,
                    c_m=float(params["c_m"]),
                    c_lam=float(params["c_lam"]),
                    max_components=M_max,
                )
                M_t, lam_t, capped = choice.n_components, choice.lam, choice.capped
            else:
                M_full = theory_hyperparameters(n, eps, delta, method="rff", c_lam=float(params["c_lam"])).n_components
                choice = theory_hyperparameters(
                    n, eps, delta, method="rff", c_lam=float(params["c_lam"]), max_components=M_max
                )  # lambda for the capped M
                M_t, lam_t = choice.n_components, choice.lam
                capped = M_full > M_max
            betas, floored, rel, D2 = private_path(method, fm, M_t, eps, delta, np.array([lam_t]), T, noise_rng)
            te = mse(betas @ fm.map("te", M_t).T, target_te)[0]
            runs.append(
                row(
                    "theory",
                    method,
                    eps,
                    M_t,
                    lam_t,
                    te,
                    M_capped=capped,
                    floored_share=floored[0] / M_t,
                    sigma_C=rel.sigma_covariance,
                    sigma_u=rel.sigma_vector,
                    D2=D2,
                    eps_spent=eps,
                    delta_spent=delta,
                )
            )
            # ---- private selection
            G = len(sel_Ms)
            if method == "RP":
                d_gauss, t = 0.75 * delta, delta / (8.0 * G)
            else:
                d_gauss, t = delta, None
            cands = []
            for M in sel_Ms:
                betas, floored, rel, D2 = private_path(
                    method,
                    fm,
                    M,
                    eps,
                    delta,
                    lams,
                    T,
                    noise_rng,
                    rows=rows_A,
                    t=t,
                    multiplier=math.sqrt(2.0 * G),
                    delta_gauss=d_gauss,
                )
                pred_B = np.clip(betas @ (fm.tr[rows_B, :M] * fm.scale(M)).T, -T, T)
                score = mse(pred_B, y_tr[rows_B])
                te = mse(np.clip(betas @ fm.map("te", M).T, -T, T), target_te)
                for k, lam in enumerate(lams):
                    cands.append((score[k], te[k], M, lam, floored[k], rel.sigma_covariance, rel.sigma_vector, D2))
            scores = np.array([c[0] for c in cands])
            sens = 4.0 * T * T / n_B
            k = int(np.argmax(-eps * scores / (2.0 * sens) + sel_rng.gumbel(size=scores.size)))
            sc, te, M_s, lam_s, fl, sC, su, D2 = cands[k]
            runs.append(
                row(
                    "private",
                    method,
                    eps,
                    M_s,
                    lam_s,
                    te,
                    sc,
                    floored_share=fl / M_s,
                    sigma_C=sC,
                    sigma_u=su,
                    D2=D2,
                    eps_spent=eps,
                    delta_spent=delta,
                    n_fit=len(rows_A),
                    n_select=n_B,
                    M_at_edge=M_s in (sel_Ms[0], sel_Ms[-1]),
                    lam_at_edge=lam_s in (lams[0], lams[-1]),
                )
            )
    if rep < int(params["krr_reps"]):
        runs.append(_exact_krr(base, kernel, X_tr, y_tr, X_val, y_val, X_te, target_te, lams))
    return runs, sweep


def _exact_krr(base, kernel, X_tr, y_tr, X_val, y_val, X_te, target_te, lams):
    """Non-private kernel ridge regression with the whole kernel (the floor every method approaches)."""
    from scipy import linalg

    n = X_tr.shape[0]
    K = kernel(X_tr)
    w, V = linalg.eigh(K, overwrite_a=True, check_finite=False)
    Kv, Kt = kernel(X_val, X_tr) @ V, kernel(X_te, X_tr) @ V
    proj = V.T @ y_tr
    best = None
    for lam in lams:
        a = proj / (np.clip(w, 0, None) + n * lam)
        ve, te = mse(Kv @ a, y_val), mse(Kt @ a, target_te)
        if best is None or ve < best[0]:
            best = (ve, te, lam)
    return {
        **base,
        "protocol": "tuned",
        "method": "exact KRR",
        "epsilon": math.inf,
        "M": n,
        "lam": float(best[2]),
        "test_error": float(best[1]),
        "val_error": float(best[0]),
    }


def _aggregate_sweep(rows):
    import pandas as pd

    df = pd.DataFrame(rows)
    g = df.groupby(["method", "epsilon", "M", "lam"], sort=True)
    out = g["test_error"].agg(count="count", mean="mean", sd="std").reset_index()
    out["floored_share"] = g["floored_share"].mean().to_numpy()
    return out


def _noise_table(params, n):
    from fastmix.kernels import RandomFourierFeatures, analytic_gaussian_sigma, laurent_massart_bound

    delta, T = float(params["delta"]), float(params["response_bound"])
    rows = []
    for eps in split_values(params["epsilons"]):
        for M in M_grid(params):
            for method in METHODS:
                if method == "RP":
                    D2 = laurent_massart_bound(1.0, M, delta / 8.0)
                    d_cov, d_vec = delta / 4.0, delta / 2.0
                else:
                    D2 = RandomFourierFeatures.norm_bound_sq
                    d_cov = d_vec = delta / 2.0
                rows.append(
                    {
                        "n": n,
                        "epsilon": eps,
                        "M": M,
                        "method": method,
                        "D2": D2,
                        "sigma_C": analytic_gaussian_sigma(eps / 2.0, d_cov, math.sqrt(2.0) * D2 / n),
                        "sigma_u": analytic_gaussian_sigma(eps / 2.0, d_vec, 2.0 * T * math.sqrt(D2) / n),
                    }
                )
    return rows


def run(params, store=None, log=print) -> dict:
    """Compute the tables (see the module docstring); resumable with a store."""
    from fastmix.kernels import GaussianKernel

    if int(params.get("blas_threads", 0)) > 0:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=int(params["blas_threads"]))
    runs = CellTable(store, "runs", log)
    sweep = CellTable(store, "sweep", None)
    noise = CellTable(store, "noise", None)
    noise.compute("calibration", lambda: _noise_table(params, int(params["n_train"])))
    pans = panels(params)
    for i, p in enumerate(pans):
        p["index"] = i
    kernels = {p["panel"]: GaussianKernel(math.sqrt(p["d"])) for p in pans}
    spectra = {p["panel"]: _public_spectrum(p, kernels[p["panel"]], int(params["seed"])) for p in pans}
    n_reps, block = int(params["n_reps"]), max(1, int(params["rep_block"]))
    cache: dict = {}
    for start in range(0, n_reps, block):
        stop = min(n_reps, start + block)
        for p in pans:
            key = f"{p['panel']}|reps={start}-{stop - 1}"
            if runs.done(key):
                continue
            collected: dict[str, list] = {"runs": [], "sweep": []}

            def compute(p=p, start=start, stop=stop, collected=collected):
                for rep in range(start, stop):
                    r, s = _one_rep(p, params, rep, kernels[p["panel"]], spectra[p["panel"]], cache)
                    collected["runs"] += r
                    collected["sweep"] += s
                return collected["runs"]

            # the sweep is written first: a cell counts as done once its runs are stored
            import pandas as pd

            rows = compute()
            agg = _aggregate_sweep(collected["sweep"])
            agg.insert(0, "panel", p["panel"])
            sweep.compute(key, lambda: agg)
            runs.compute(key, lambda: pd.DataFrame(rows))
    return {"runs": runs.frame(), "sweep": sweep.frame(), "noise": noise.frame()}


def cost_model(params):
    """Peak memory and duration of a run at ``params``: :func:`.cost_models.kernel_rp_vs_rff_cost`.

    Returns a :class:`fastmix_companion.cli_checks.RunCost`; ``python -m fastmix_companion.run``
    refuses a run whose memory estimate exceeds the memory available, and asks for ``--yes``
    before one estimated at over an hour.
    """
    from fastmix_companion.studies.cost_models import kernel_rp_vs_rff_cost

    return kernel_rp_vs_rff_cost(params)
