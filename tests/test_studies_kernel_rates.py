"""The sentences of the kernel rates page (fastmix_companion.studies.kernel_rates_text), on small hand-made tables."""

import math

import pandas as pd

from fastmix_companion.studies import kernel_rates_text as KT

P = {
    "d": 1,
    "target": "rkhs",
    "delta": 1e-5,
    "epsilon": 1.0,
    "n_fixed": 100,
    "n_values": "100,400",
    "eps_values": "1,10",
    "n_reps": 3,
}


def _runs(reps=3):
    rows = []
    for sweep, points in (("n", [(100, 1.0), (400, 1.0)]), ("epsilon", [(100, 1.0), (100, 10.0)])):
        for n, eps in points:
            for method in ("RP", "RFF"):
                for rep in range(reps if (sweep, n, eps) != ("n", 400, 1.0) else 2):
                    rows.append({"sweep": sweep, "n": n, "epsilon": eps, "method": method, "rep": rep})
    return pd.DataFrame(rows)


def _slopes(dropped=0):
    return pd.DataFrame(
        [
            {
                "sweep": "n",
                "method": "RP",
                "quantity": "privacy cost",
                "slope": -1.02,
                "low": -1.3,
                "high": -0.7,
                "theory": -1.0,
                "dropped": dropped,
            },
            {
                "sweep": "n",
                "method": "RP",
                "quantity": "risk",
                "slope": -0.5,
                "low": -0.6,
                "high": -0.4,
                "theory": math.nan,
                "dropped": 0,
            },
        ]
    )


def test_settings_and_when_the_run_is_partial():
    assert KT.rates_setting(_runs(), P) == (
        "$d = 1$, target rkhs, $\\delta = 10^{-5}$; $n \\in \\{100, 400\\}$ at $\\varepsilon = 1$ and "
        "$\\varepsilon \\in \\{1, 10\\}$ at $n = 100$, 3 repetitions per point"
    )
    partial = KT.stored_setting_text(_runs(), P)
    assert partial.startswith("Setting: $d = 1$, target `rkhs`, $\\delta = 10^{-5}$, $n \\in \\{100, 400\\}$ at ")
    assert partial.endswith("exact Gaussian-process paths, 2-3 of 3 repetitions per point - **the run is partial**.")
    assert KT.stored_setting_text(_runs(), {**P, "n_reps": 2}).endswith("2-3 of 2 repetitions per point.")


def test_slopes_table_and_text_and_the_dropped_note_flips():
    lines = KT.slopes_markdown(_slopes()).splitlines()
    assert lines[2] == "| n | RP | privacy cost | -1.02 [-1.30, -0.70] | -1.00 |"
    assert lines[3] == "| n | RP | risk | -0.50 [-0.60, -0.40] | - |"
    assert KT.slopes_text(_slopes()) == "Fitted slopes of the mean privacy cost: RP -1.02 [-1.30, -0.70] against n."
    assert KT.slopes_text(_slopes(dropped=2)).endswith(
        " 2 point(s) whose mean privacy cost was not positive (noise that happened to regularise) are left out of "
        "the fits that need logarithms."
    )


def test_log_factor_text():
    # 2 / mean(ln 100, ln 10000) = 2 / (1.5 ln 100) = 0.29
    assert "$2/\\overline{\\ln n} = 0.29$ over this range of $n$" in KT.log_factor_text("100,10000")
