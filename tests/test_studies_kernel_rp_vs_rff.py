"""The sentences of the kernel comparison page (studies.kernel_rp_vs_rff_text), on hand-made tables."""

import math

import pandas as pd

from fastmix_companion.studies import kernel_rp_vs_rff_text as KT

P = {
    "n_train": 200,
    "n_val": 100,
    "n_test": 300,
    "n_reps": 3,
    "delta": 1e-5,
    "response_bound": 1.0,
    "noise_sd": 0.1,
    "epsilons": "1,10",
    "lam_grid": "0.01,0.1",
    "m_grid": "8,32",
    "sel_m_grid": "8,32",
    "sel_fraction": 0.25,
}


def _runs(reps=(3, 3), capped=False, top_share=(1.0, 0.0)):
    """Tuned and theory fits on two panels; RP's tuned M is at the top of the grid (8, 32) in top_share of fits."""
    rows = []
    for panel, n_reps in zip(("rkhs d=1", "rkhs d=3"), reps, strict=True):
        for rep in range(n_reps):
            for eps in (1.0, 10.0):
                for method, share in zip(("RP", "RFF"), top_share, strict=True):
                    M = 32 if rep < share * n_reps else 8
                    for protocol in ("tuned", "theory"):
                        rows.append(
                            {
                                "panel": panel,
                                "rep": rep,
                                "epsilon": eps,
                                "protocol": protocol,
                                "method": method,
                                "M": M,
                                "lam": 0.1,
                                "M_at_edge": True,
                                "lam_at_edge": False,
                                "M_capped": capped and protocol == "theory" and eps == 10.0,
                                "floored_share": 0.0,
                            }
                        )
    return pd.DataFrame(rows)


def _sweep(ratio, epsilons=(math.inf,)):
    rows = []
    for panel in ("plane_wave d=1", "rkhs d=1", "diabetes d=10"):
        for eps in epsilons:
            for M in (8, 32):
                for method, mean in (("RFF", 0.1), ("RP", 0.1 * ratio)):
                    rows.append(
                        {
                            "panel": panel,
                            "method": method,
                            "epsilon": eps,
                            "M": M,
                            "lam": 0.01,
                            "count": 30,
                            "mean": mean,
                            "sd": 0.01,
                            "floored_share": 0.5 if method == "RP" else 0.0,
                        }
                    )
    return pd.DataFrame(rows)


def test_settings_in_words():
    assert KT.math_set("M", "8, 32") == "$M \\in \\{$8, 32$\\}$"
    assert KT.runs_setting(_runs()) == "2 panels, $\\varepsilon \\in \\{1, 10\\}$, 3 repetitions per panel"
    assert KT.runs_setting(_runs(reps=(2, 3))).endswith(", 2-3 repetitions per panel")
    assert KT.sweep_text(_sweep(1.0, (math.inf, 1.0)), 0.01) == (
        "Equal-$M$ sweep: mean test error against the projection dimension $M$ at $\\lambda = 0.01$, for both "
        "methods without privacy and at $\\varepsilon \\in \\{1\\}$, $M$ from 8 to 32"
    )


def test_stored_setting_says_when_the_run_is_partial():
    done = KT.stored_setting_text(_runs(), P)
    partial = KT.stored_setting_text(_runs(reps=(2, 3)), P)
    assert done.startswith("Setting: $n = 200$ training, 100 validation and 300 test points per repetition")
    assert "$\\delta = 10^{-5}$" in done
    assert done.endswith("Stored: 3-3 of the 3 planned repetitions per panel.")
    assert partial.endswith(
        "Stored: 2-3 of the 3 planned repetitions per panel - **the run is partial, so intervals are wider than "
        "they will be**."
    )


def test_equal_m_sentences_flip_with_the_ratio():
    better = KT.nonprivate_sweep_text(_sweep(0.7), (8, 32))
    worse = KT.nonprivate_sweep_text(_sweep(1.4), (8, 32))
    assert better == (
        "Without privacy, each method at its best $\\lambda$ for the given $M$: M = 8: RP lower in 3, higher in 0 "
        "of 3 panels (median ratio 0.70); M = 32: RP lower in 3, higher in 0 of 3 panels (median ratio 0.70)."
    )
    assert "M = 8: RP lower in 0, higher in 3 of 3 panels (median ratio 1.40)" in worse


def test_private_equal_m_sentence_only_with_private_sweeps():
    assert KT.private_sweep_text(_sweep(0.7), (8, 32), 0.01) == ""
    text = KT.private_sweep_text(_sweep(1.4, (math.inf, 1.0)), (8, 32), 0.01)
    assert text.startswith("With privacy, at $\\lambda = 0.01$: at $\\varepsilon = 1$ and M = 8, RP's error is 1.40")
    assert "(median over 3 panels; below 1 with 95% confidence in 0, above in 3)" in text


def test_noise_table_and_factor():
    noise = pd.DataFrame(
        [
            {"epsilon": 1.0, "method": m, "M": M, "D2": d2, "sigma_C": sc, "sigma_u": 0.5 * sc}
            for m, M, d2, sc in (("RP", 8, 8.0, 0.8), ("RFF", 8, 2.0, 0.2), ("RP", 32, 4.0, 0.3), ("RFF", 32, 2.0, 0.2))
        ]
    )
    sweep = _sweep(1.0, (1.0,))
    assert KT.noise_factor_text(noise, sweep, 1.0, 0.01) == (
        "At the smallest $M = 8$ RP's norm bound is 4.0 times RFF's, so its covariance noise is 4.0 times larger; "
        "at $M = 32$ the factor is 1.50."
    )
    table = KT.noise_markdown(noise, sweep, 1.0, 0.01).splitlines()
    assert len(table) == 4 and table[2] == "| 8 | 8.00 | 2.00 | 8.00e-01 | 2.00e-01 | 4.00e-01 | 1.00e-01 | 50% | 0% |"


def test_hyperparameters_and_grid_edges():
    runs = _runs(top_share=(1.0, 0.0))
    assert KT.grid_edge_text(runs, (8, 32)).startswith(
        "The tuned $M$ sat at the top of its grid ($M = 32$) in 100% of RP's and 0% of RFF's private fits, and at "
        "the bottom ($M = 8$) in 0% and 100%."
    )
    assert "in 0% of RP's and 100% of RFF's" in KT.grid_edge_text(_runs(top_share=(0.0, 1.0)), (8, 32))
    table = KT.hyper_markdown(runs).splitlines()
    assert table[2] == "| tuned | RP | 1 | 32 | 0.1 | 100% | 0% | 0% | 0% |"


def test_differences_name_the_capped_epsilons_and_it_flips():
    capped = KT.differences_text(_runs(capped=True), P)
    none = KT.differences_text(_runs(capped=False), P)
    assert "exceeds the largest drawn dimension $M = 32$ at $\\varepsilon \\in \\{10\\}$ and is capped there" in capped
    assert "exceeds the largest drawn dimension $M = 32$ at no epsilon and is capped there" in none
    assert "it fits on 75% of the records and shares the budget among the releases of 2 projection dimensions" in none


def test_noise_table_is_read_at_epsilon_one_when_the_sweep_has_it():
    assert KT.noise_epsilon(pd.DataFrame({"epsilon": [10.0, 1.0, 0.5]})) == 1.0
    assert KT.noise_epsilon(pd.DataFrame({"epsilon": [10.0, 2.0, 4.0]})) == 2.0
    assert KT.noise_lead(2.0, 0.001) == "At $\\varepsilon = 2$ and $\\lambda = 0.001$:"
