"""Privacy audit of the Gaussian step of FastMix (Lemma 1 of the FastMix paper), as a study.

Two checks, conditional on one fixed SRHT ``S_f`` and the noise level (see
:mod:`fastmix.audit`):

* the **exact audit**: for hand-built designs (:func:`fastmix.audit.adversarial_designs`)
  and every row, in both directions (remove the row, add it back), the exact Renyi
  divergence of one released row divided by the three accounted bounds (``phi`` of
  eq. 50-52, ``phi_bar`` of eq. 57, ``25 alpha / (32 gamma^2)`` of eq. 8), the noise set
  so that eq. (7) holds with equality; then the audited row of the worst design is itself
  optimised over the unit ball (:func:`fastmix.audit.optimise_row`);
* the **empirical audit**: a likelihood-ratio attack on the worst pair found, whose error
  rates give a lower bound on the true epsilon (Clopper-Pearson, Bonferroni over the
  thresholds), set beside the exact epsilon of the pair (its privacy profile) and the
  three accounted epsilons.

Every stage draws from its own ``SeedSequence(seed, spawn_key=...)``, so a resumed run
recomputes the same SRHT and designs and reads the optimised rows back from the store.

Tables
------
``designs``
    One row per design and direction: the largest ratio divergence / bound over rows and
    the alpha grid, for each bound, and the smallest gamma of the first argument.
``optimised``
    One row per direction: the optimised row (``x0 .. x{d-1}``), its index, the worst ratios,
    gamma, ``C^2`` and sigma.
``curve``
    The worst pair's exact divergence and the three bounds on the alpha grid.
``attack``
    One row: the attack's certified lower bound and point estimate, the exact epsilon of the
    pair, the three accounted epsilons and the exact delta of the pair at each of them.
``tradeoff``
    The attack's empirical (FPR, FNR) per threshold, their upper confidence limits and the
    exact curve at the same thresholds.
``profile``
    The exact privacy profile ``delta(epsilon)`` of the pair in both directions.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fastmix_companion.parameters import Integer, Real
from fastmix_companion.studies import CellTable

__all__ = [
    "NOTEBOOK",
    "DEFAULTS",
    "PARAMETERS",
    "BOUNDS",
    "BOUND_LOCATIONS",
    "run",
    "claim_setting",
    "claims",
    "stored_claims",
    "cost_model",
]

NOTEBOOK = "privacy_audit"

DEFAULTS: dict[str, Any] = {
    "n": 64,
    "d": 4,
    "k2": 16,
    "k1": 10,
    "gamma": 10.0,
    "delta": 1e-5,
    "n_alphas": 40,
    "n_starts": 2,
    "n_releases": 400_000,
    "confidence": 0.95,
    "seed": 0,
}
"""The smoke-scale defaults (the notebook's); ``notebooks/paper_scale.json`` holds the larger run."""

PARAMETERS = {
    "n": Integer(2, power_of_two=True),  # the SRHT needs a power of two
    "d": Integer(1, "n"),
    "k2": Integer(1, "n"),
    "k1": Integer(1),
    "gamma": Real(1.28),  # the Renyi grid runs from alpha = 1.01 to 0.792 gamma (phi_bar of eq. 57)
    "delta": Real(0, 1, low_open=True, high_open=True),
    "n_alphas": Integer(1),
    "n_starts": Integer(0),
    "n_releases": Integer(1),
    "confidence": Real(0, 1, low_open=True, high_open=True),
    "seed": Integer(0),
}
"""What each parameter admits (:mod:`fastmix_companion.parameters`)."""


BOUNDS = {
    "exact": "phi (eq. 50-52)",
    "bar": "phi_bar (eq. 57, used by Theorem 1)",
    "simple": "25 alpha / (32 gamma^2) (eq. 8)",
}
"""The three per-row bounds of Lemma 1 the package accounts with (key: their name in :mod:`fastmix.audit`)."""

SHORT = {"exact": "phi", "bar": "phi_bar", "simple": "25 alpha / (32 gamma^2)"}


def _rng(seed: int, *key: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence(int(seed), spawn_key=tuple(key)))


def _setup(params):
    from fastmix import audit
    from fastmix.srht import SRHT

    n, d, k2 = int(params["n"]), int(params["d"]), int(params["k2"])
    S = SRHT(n, k2, random_state=_rng(params["seed"], 1)).to_dense()
    designs = audit.adversarial_designs(n, d, random_state=_rng(params["seed"], 2))
    gamma = float(params["gamma"])
    alphas = np.geomspace(1.01, 0.99 * 0.8 * gamma, int(params["n_alphas"]))  # to the end of phi_bar's range
    return S, designs, alphas


def run(params, store=None, log=print) -> dict:
    """Compute the audit's tables (see the module docstring); resumable with a store."""
    import pandas as pd

    from fastmix import audit

    S, designs, alphas = _setup(params)
    gamma, k1, delta = float(params["gamma"]), int(params["k1"]), float(params["delta"])
    seed, d = int(params["seed"]), int(params["d"])
    t_designs = CellTable(store, "designs", log)
    t_opt = CellTable(store, "optimised", log)
    t_curve = CellTable(store, "curve", log)
    t_attack = CellTable(store, "attack", log)
    t_trade = CellTable(store, "tradeoff", log)
    t_prof = CellTable(store, "profile", log)

    worst = {}
    for name, X in designs.items():
        sigma = audit.noise_for_gamma(X, S, gamma)
        w, pairs = audit.worst_case_neighbour_divergence(X, S, sigma, alphas, bound="exact")
        worst[name] = w

        def rows(pairs=pairs, name=name):
            out = []
            for direction in ("remove", "add"):
                sub = [p for p in pairs if p.direction == direction]
                row = {
                    "design": name,
                    "direction": direction,
                    "pairs": len(sub),
                    "gamma_first_min": min(p.gamma for p in sub),
                }
                for b in BOUNDS:
                    vals = [p.worst_ratio[b] for p in sub if np.isfinite(p.worst_ratio[b])]
                    row[f"worst_ratio_{b}"] = max(vals) if vals else np.nan
                out.append(row)
            return out

        t_designs.compute(name, rows)

    worst_name = max(worst, key=lambda k: worst[k].worst_ratio["exact"])
    X0, w0 = designs[worst_name], worst[worst_name]
    for j, direction in enumerate(("remove", "add")):

        def optimise(direction=direction, j=j):
            Xopt, res = audit.optimise_row(
                X0,
                S,
                w0.index,
                gamma,
                alphas,
                bound="exact",
                direction=direction,
                n_starts=int(params["n_starts"]),
                random_state=_rng(seed, 3, j),
            )
            row = {
                "design": worst_name,
                "index": int(w0.index),
                "direction": direction,
                "gamma": res.gamma,
                "c2": res.c2,
                "sigma": res.sigma,
                "row_norm": float(np.linalg.norm(Xopt[w0.index])),
                **{f"worst_ratio_{b}": res.worst_ratio[b] for b in BOUNDS},
                **{f"x{i}": float(Xopt[w0.index, i]) for i in range(d)},
            }
            return [row]

        t_opt.compute(direction, optimise)

    opt = t_opt.frame()
    best = opt.loc[opt["worst_ratio_exact"].idxmax()]
    direction, index = str(best["direction"]), int(best["index"])
    X_star = X0.copy()
    X_star[index] = [float(best[f"x{i}"]) for i in range(d)]
    sigma = audit.noise_for_gamma(X_star, S, gamma)
    pair = audit.neighbour_divergence(X_star, S, index, sigma, alphas, direction=direction)

    t_curve.compute(
        "worst",
        lambda: pd.DataFrame(
            {
                "alpha": pair.alphas,
                "divergence": pair.divergence,
                **{f"bound_{b}": pair.bounds[b] for b in BOUNDS},
                "direction": direction,
            }
        ),
    )

    X_first, X_second = X_star.copy(), X_star.copy()
    if direction == "remove":
        X_second[index] = 0.0
    else:
        X_first[index] = 0.0
    Z_first, Z_second = S @ X_first, S @ X_second
    state = {}

    def attack():
        if "attack" not in state:
            state["attack"] = audit.likelihood_ratio_attack(
                Z_first, Z_second, pair.sigma, k1, int(params["n_releases"]), random_state=_rng(seed, 4)
            )
        return state["attack"]

    def attack_rows():
        att = attack()
        bound = audit.epsilon_lower_bound(att.scores_p, att.scores_q, delta, confidence=float(params["confidence"]))
        state["bound"] = bound
        eps_true = audit.profile_epsilon(att.cov_p, att.cov_q, delta, rows=k1)
        row = {
            "direction": direction,
            "index": index,
            "gamma": pair.gamma,
            "c2": pair.c2,
            "sigma": pair.sigma,
            "n_releases": int(params["n_releases"]),
            "confidence": float(params["confidence"]),
            "delta": delta,
            "epsilon_lower": bound.epsilon_lower,
            "epsilon_point": bound.epsilon_point,
            "epsilon_exact": eps_true,
        }
        for b in BOUNDS:
            e = audit.accounted_epsilon(pair.gamma, k1, delta, bound=b, c2=pair.c2 if b == "exact" else None)
            row[f"epsilon_accounted_{b}"] = e
            row[f"delta_at_accounted_{b}"] = max(
                audit.privacy_profile(att.cov_p, att.cov_q, e, rows=k1),
                audit.privacy_profile(att.cov_q, att.cov_p, e, rows=k1),
            )
        return [row]

    t_attack.compute("attack", attack_rows)

    def trade_rows():
        att = attack()
        bound = state.get("bound") or audit.epsilon_lower_bound(
            att.scores_p, att.scores_q, delta, confidence=float(params["confidence"])
        )
        fpr_x, fnr_x = audit.tradeoff_curve(att.cov_p, att.cov_q, bound.thresholds, rows=k1)
        return pd.DataFrame(
            {
                "threshold": bound.thresholds,
                "fpr": bound.fpr,
                "fnr": bound.fnr,
                "fpr_upper": bound.fpr_upper,
                "fnr_upper": bound.fnr_upper,
                "fpr_exact": fpr_x,
                "fnr_exact": fnr_x,
            }
        )

    t_trade.compute("attack", trade_rows)

    def profile_rows():
        att = attack() if "attack" in state else None
        P = att.cov_p if att is not None else Z_first.T @ Z_first + pair.sigma**2 * np.eye(d)
        Q = att.cov_q if att is not None else Z_second.T @ Z_second + pair.sigma**2 * np.eye(d)
        accounted = t_attack.frame()
        top = float(max(accounted[f"epsilon_accounted_{b}"].iloc[0] for b in BOUNDS))
        grid = np.linspace(0.0, 1.2 * top, 60)
        return pd.DataFrame(
            {
                "epsilon": grid,
                "delta_forward": audit.privacy_profile(P, Q, grid, rows=k1),
                "delta_backward": audit.privacy_profile(Q, P, grid, rows=k1),
            }
        )

    t_prof.compute("worst", profile_rows)
    return {
        "designs": t_designs.frame(),
        "optimised": t_opt.frame(),
        "curve": t_curve.frame(),
        "attack": t_attack.frame(),
        "tradeoff": t_trade.frame(),
        "profile": t_prof.frame(),
    }


#: Where the FastMix paper states each bound of Lemma 1 (the keys of :data:`BOUNDS`).
BOUND_LOCATIONS = {
    "exact": "Appendix C.1, eq. (50)-(52) and (54): the bound phi the proof of Lemma 1 establishes",
    "bar": "Appendix C.1, eq. (55)-(57): phi_bar, the bound Theorem 1 accounts with",
    "simple": "Lemma 1 (Section 3), eq. (8)",
}


def claim_setting(parameters=None):
    """How the audit's setting compares with Lemma 1's: the lemma covers every dataset and neighbour,
    the audit a finite set of them at one size (:class:`~fastmix_companion.claims.Setting`, comparable)."""
    from fastmix_companion.claims import Setting

    p = dict(parameters or {})
    size = (
        f"one SRHT of k2 = {p['k2']} rows on n = {p['n']}, d = {p['d']}, noise set so that eq. (7) holds with "
        f"gamma = {float(p['gamma']):g}"
        if {"n", "d", "k2", "gamma"} <= set(p)
        else "one SRHT at the audit's size, noise set so that eq. (7) holds with equality"
    )
    return Setting(
        (size, "a finite set of neighbour pairs (hand-built designs, optimised rows), not every pair the lemma covers"),
        comparable=True,
    )


def claims(tables, parameters=None):
    """The audit's claims as :class:`fastmix_companion.claims.Claim` (all rules fixed here, before the numbers).

    Each is a claim of the FastMix paper (Lemma 1 and the conversion it is used with), checked
    in the audit's setting (:func:`claim_setting`). An audit can refute a worst-case bound, not
    prove it: "holds" says that no audited pair exceeds it.

    1. Lemma 1's exact bound holds on every audited pair: the largest ratio exact divergence /
       ``phi`` over designs, rows, directions, the alpha grid and the optimised rows is at most 1
       (the divergences are exact, so no interval is needed).
    2. The same for ``phi_bar`` (the bound Theorem 1 accounts with) and 3. for eq. (8).
    4. The attack cannot refute the accounting: its certified lower bound (Clopper-Pearson,
       ``confidence``, Bonferroni over the thresholds) is at most the smallest accounted epsilon.
       It is the page's only check that rests on a sampled statistic, so the family is this one test.
    5. The accounted epsilons are sound for the pair: the exact delta of the pair at each accounted
       epsilon is at most the audited delta.
    """
    from fastmix_companion.claims import Claim, fastmix_paper

    setting = claim_setting(parameters)
    des, opt, att = tables["designs"], tables["optimised"], tables["attack"].iloc[0]
    out = []
    for b, label in BOUNDS.items():
        vals = np.concatenate(
            [des[f"worst_ratio_{b}"].dropna().to_numpy(), opt[f"worst_ratio_{b}"].dropna().to_numpy()]
        )
        worst = float(vals.max())
        out.append(
            Claim(
                claim=f"Lemma 1's bound {SHORT[b]} holds",
                paper=f"the Renyi divergence of one released row between neighbours is at most {label}",
                measured=(
                    f"largest exact divergence / bound: {worst:.3g} over {int(des['pairs'].sum())} neighbour pairs "
                    f"of {des['design'].nunique()} designs and {len(opt)} optimised rows (exact, no sampling error)"
                ),
                rule="holds if the largest ratio over the alpha grid is at most 1 (no audited pair exceeds the bound; "
                "an audit cannot prove a worst-case bound)",
                holds=bool(worst <= 1.0),
                source=fastmix_paper(BOUND_LOCATIONS[b]),
                setting=setting,
            )
        )
    acc_min = min(float(att[f"epsilon_accounted_{b}"]) for b in BOUNDS)
    out.append(
        Claim(
            claim="the attack stays below the accounted epsilon",
            paper="the sketch is (epsilon, delta)-DP at the accounted epsilon",
            measured=(
                f"certified lower bound {att['epsilon_lower']:.3g} ({att['confidence']:.0%} confidence, "
                f"{int(att['n_releases']):,} releases per hypothesis); point estimate {att['epsilon_point']:.3g}; "
                f"exact epsilon of the pair {att['epsilon_exact']:.3g}; smallest accounted epsilon {acc_min:.3g}"
            ),
            rule="holds if the certified lower bound (Clopper-Pearson, Bonferroni over the attack's thresholds; the "
            "page's only sampled test) is at most the smallest accounted epsilon",
            holds=bool(att["epsilon_lower"] <= acc_min),
            source=fastmix_paper("Lemma 1 (Section 3) converted by Proposition 1 (Section 2.1)"),
            setting=setting,
        )
    )
    worst_delta = max(float(att[f"delta_at_accounted_{b}"]) for b in BOUNDS)
    out.append(
        Claim(
            claim="the accounted epsilons are sound for the worst pair",
            paper=f"delta(epsilon_accounted) <= delta = {att['delta']:g}",
            measured=f"largest exact delta of the pair at an accounted epsilon: {worst_delta:.3g} (Imhof inversion)",
            rule="holds if the exact delta at every accounted epsilon is at most the audited delta",
            holds=bool(worst_delta <= float(att["delta"])),
            source=fastmix_paper("Proposition 1 (Section 2.1) applied to Lemma 1's bounds"),
            setting=setting,
        )
    )
    return out


def stored_claims(tables, parameters) -> list:
    """The claims the page shows, decided on the stored ``tables`` with the ``parameters`` they were computed with."""
    return claims(tables, parameters)


def cost_model(params):
    """Peak memory and duration of a run at ``params``: :func:`.cost_models.privacy_audit_cost`.

    Returns a :class:`fastmix_companion.cli_checks.RunCost`; ``python -m fastmix_companion.run``
    refuses a run whose memory estimate exceeds the memory available, and asks for ``--yes``
    before one estimated at over an hour.
    """
    from fastmix_companion.studies.cost_models import privacy_audit_cost

    return privacy_audit_cost(params)
