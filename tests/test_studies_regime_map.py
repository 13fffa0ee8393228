"""The sentences of the regime map page (fastmix_companion.studies.regime_map_text), on small hand-made tables."""

import pandas as pd

from fastmix_companion.studies import regime_map as R
from fastmix_companion.studies import regime_map_text as RT

P = {"T": 4, "epsilon": 1.0, "repeats": 2, "blas_threads": 1}


def _runs(dense=True, gram_d_power=2.0):
    """Two repeats per shape; CPU time n d (FastIHM), n d / 4 + d^gram_d_power (Gram), 10 n d (dense)."""
    shapes = [("n", 2**k, 4) for k in (8, 9, 10, 11)] + [("d", 2**10, d) for d in (2, 4, 8, 16)]
    times = {
        "FastIHM (r = 4)": lambda n, d: 1e-6 * n * d,
        "IHM (Gram)": lambda n, d: 0.25e-6 * n * d + 1e-4 * d**gram_d_power,
        "AdaSSP": lambda n, d: 2e-6 * n * d,
    }
    if dense:
        times["IHM (dense)"] = lambda n, d: 1e-5 * n * d
    rows = []
    for sweep, n, d in shapes:
        for series, t in times.items():
            for rep in range(2):
                rows.append(
                    {
                        "sweep": sweep,
                        "n": n,
                        "d": d,
                        "series": series,
                        "status": R.TIMED,
                        "rep": rep,
                        "cpu_s": t(n, d) * (1 + 0.01 * rep),
                        "wall_s": t(n, d),
                        "peak_bytes": 8 * n * d,
                        "x_bytes": 8 * n * d,
                        "load1_before": 0.1,
                    }
                )
    shapes_t = pd.DataFrame(shapes, columns=["sweep", "n", "d"])
    return {"shapes": shapes_t, "runs": pd.DataFrame(rows)}


def test_setting_text():
    assert RT.setting_text(_runs(), P) == (
        "$n = 2^{8}$ to $2^{11}$ at $d = 4$; $d = 2$ to $16$ at $n = 2^{10}$; $T = 4$, $\\varepsilon = 1$, up to 2 "
        "timed runs per cell, 64 timed solves, 1 BLAS thread(s)"
    )
    assert RT.setting_text(_runs(), {**P, "blas_threads": 0}).endswith("default BLAS thread(s)")


def test_exponents_table():
    lines = RT.exponents_markdown(_runs()["runs"]).splitlines()
    fast = next(ln for ln in lines if ln.startswith("| FastIHM (r = 4) |"))
    assert fast.startswith("| FastIHM (r = 4) | 1.00 ± 0.00 | $2^{8}$ to $2^{11}$ | 1.00 ± 0.00 | 2 to 16 |")
    assert "| FastIHM (r = 800) | - | - | - | - |" in lines


def test_winners_text_and_the_dense_sentence_flips():
    with_dense = RT.winners_text(_runs()["runs"])
    without = RT.winners_text(_runs(dense=False)["runs"])
    assert with_dense.startswith(
        "The fastest private solver is FastIHM (r = 4) at 4, IHM (Gram) at 4 of the 8 measured shapes."
    )
    assert "Dense IHM is the slowest private solver at 8 of the 8 shapes where it ran." in with_dense
    assert ", and 0.10 to 0.10 times as long as dense IHM where dense IHM ran." in with_dense
    assert "Dense IHM" not in without and "times as long as IHM through its Gram factor." in without
    assert RT.winners_text(_runs()["runs"].iloc[0:0]) == ""


def test_crossover_text_flips():
    assert RT.crossover_text(None, 1024) == (
        "The fitted $d$-sweep power laws of FastIHM ($r = 4$) and IHM (Gram) do not cross."
    )
    assert RT.crossover_text((12.0, True), 1024).endswith(
        "cross at $d \\approx 12$ for $n = 2^{10}$ (within the measured range)."
    )
    assert RT.crossover_text((3000.0, False), 1024).endswith(
        "$d \\approx 3,000$ for $n = 2^{10}$ (an extrapolation beyond the measured range)."
    )
