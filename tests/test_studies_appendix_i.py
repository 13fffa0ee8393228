"""The sentences of the Appendix I page (fastmix_companion.studies.appendix_i_text), on small hand-made tables."""

import numpy as np
import pandas as pd

from fastmix_companion.claims import Claim
from fastmix_companion.studies import appendix_i_text as AT

EPS = (1.0, 10.0)
SIZES = pd.DataFrame(
    {
        "ratio_index": [1, 2, 3],
        "k2_ratio": [4.0, 600.0, 1200.0],
        "k2": [100, 15000, 30000],
        "k1": [36, 36, 36],
        "coherence_typical": [0.5, 0.04, 0.03],
    }
)


def _tables(*, r2=2.0, r3=1.0, gram=1.0, t_dense=1.0, t_r3=0.1, t_gram=0.01, trials=12, seed=0):
    """Excess risks (relative to dense IHM's 1.0) and runtimes (seconds) per series, a 5% spread across trials."""
    rng = np.random.default_rng(seed)
    rows = []
    series = [
        ("FastIHM", None, 4.0, 10.0, t_r3),
        ("FastIHM", None, 600.0, r2, t_r3),
        ("FastIHM", None, 1200.0, r3, t_r3),
        ("IHM", "dense", np.nan, 1.0, t_dense),
        ("IHM", "gram", np.nan, gram, t_gram),
    ]
    for method, sketch, ratio, level, seconds in series:
        for e in EPS:
            for t in range(trials):
                rows.append(
                    {
                        "method": method,
                        "ihm_sketch": sketch,
                        "k2_ratio": ratio,
                        "epsilon": e,
                        "trial": t,
                        "excess_risk": level * np.exp(0.05 * rng.standard_normal()),
                        "runtime_s": seconds * np.exp(0.05 * rng.standard_normal()),
                    }
                )
    noise = pd.DataFrame(
        [
            {
                "k2_ratio": r,
                "epsilon": e,
                "k2": k2,
                "delta_hat": 0.1 * j,
                "m_hat": 0.5,
                "m_tilde": 2.0 * j / e,
                "eta_sq_over_gamma": 10.0 * j / e,
                "omega": 24.0 / e,
                "tau": 8.0,
            }
            for j, r, k2 in zip(SIZES["ratio_index"], SIZES["k2_ratio"], SIZES["k2"], strict=True)
            for e in EPS
        ]
    )
    info = pd.DataFrame(
        [
            {
                "dataset": "toy",
                "why": "it is small",
                "n": 2**18,
                "n_raw": 300000,
                "d": 4,
                "n_over_d": 2**16,
                "preprocessing": "none",
            }
        ]
    )
    return {"datasets": info, "sketch_sizes": SIZES, "runs": pd.DataFrame(rows), "noise": noise}


P = {"T": 4, "n_trials": 12, "epsilons": "1,10"}


def _claim(holds, name):
    return Claim(claim=name, paper="Appendix I", measured="x", rule="y", holds=holds)


def test_setting_texts_and_labels():
    t = _tables()
    assert AT.data_setting(t, P) == (
        "toy ($n = 262,144$, $d = 4$), $k_2 \\in \\{100, 15,000, 30,000\\}$, $\\varepsilon$ from 1 to 10, "
        "12 trials, $T = 4$"
    )
    assert AT.series_label(t, "FastIHM r2") == "FastIHM, k2 = 15000 (r = 600)"
    assert AT.series_label(t, "IHM (Gram factor)") == "IHM (Gram factor)"
    text = AT.stored_setting_text(t, P)
    assert text.startswith("**Data: toy**, because it is small. $n = 262,144$ rows (of 300,000 in the source)")
    assert text.endswith("$k_2 = 30,000$ ($r = 1200$); 120 solver runs.")


def test_findings_tally_and_ratios():
    text = AT.findings_text(_tables(), [_claim(True, "a"), _claim(False, "b"), _claim(False, "c")])
    assert text.startswith("Of the 3 checks, 1 holds and 2 do not: b; c.\n\nFastIHM with the largest SRHT has ")
    assert AT.findings_text(_tables(), [_claim(True, "a"), _claim(True, "b")]).startswith("Of the 2 checks, 2 hold.")


def test_findings_say_where_the_larger_sketch_stops_helping_and_it_flips():
    flat = AT.findings_text(_tables(r2=1.0, r3=1.0), [])
    steep = AT.findings_text(_tables(r2=2.0, r3=1.0), [])
    assert (
        "The step from $r_2$ to $r_3$ lowers the excess risk significantly at $\\varepsilon \\in \\{\\}$ but " in flat
    )
    assert "but not at $\\varepsilon \\in \\{1, 10\\}$" in flat
    assert "The step from $r_2$ to $r_3$" not in steep


def test_findings_explain_a_far_fastihm_by_its_hessian_noise_and_it_flips():
    far = AT.findings_text(_tables(r2=6.0, r3=3.0), [])
    near = AT.findings_text(_tables(r2=6.0, r3=1.0), [])
    assert "FastIHM at the largest $k_2$ is not within a factor 2 of IHM at $\\varepsilon \\in \\{1, 10\\}$" in far
    assert "its Hessian noise is $\\eta^2 = 30, 3\\,\\gamma$ respectively" in far
    assert "$\\omega = 6T/\\varepsilon$ = 24, 2.4" in far and "$k_2 = 30,000$ rows (next section)" in far
    assert "not within a factor 2" not in near


def test_findings_report_disagreeing_ihm_routes_and_it_flips():
    agree = AT.findings_text(_tables(gram=1.0), [])
    differ = AT.findings_text(_tables(gram=1.3), [])
    assert "The two IHM routes release the same random variable" not in agree
    assert "yet their interval excludes 1 at $\\varepsilon \\in \\{1, 10\\}$ (Gram / dense: " in differ
    assert "out of 2 epsilons tested" in differ


def test_noise_text_reports_each_sketch_and_the_cost_of_shrinking_it():
    text = AT.noise_text(_tables())
    assert text.startswith(
        "Measured: $k_2 = 100$: coherence 0.1, $\\widehat m$ 0.5, $\\eta^2/\\gamma$ from 1 ($\\varepsilon = 10$) "
        "to 10 ($\\varepsilon = 1$); "
    )
    # n / 2^22 = 1/16: 15,000 and 30,000 rows shrink to 938 and 1,875, a coherence sqrt(16) = 4 times larger
    assert "they would give $k_2$ = 938, 1,875 instead of 15,000, 30,000, and a coherence about 4.0 times" in text


def test_runtime_verdict_against_the_paper_flips():
    below = AT.runtime_text(_tables(t_dense=1.0, t_r3=0.2), P)  # 5x, the paper has 14.18
    above = AT.runtime_text(_tables(t_dense=1.0, t_r3=0.02), P)  # 50x
    close = AT.runtime_text(_tables(t_dense=1.0, t_r3=1 / 14.18, trials=2, seed=1), P)
    assert (
        below.startswith("Here the ratio IHM / FastIHM at the largest $k_2$ is ") and "below the paper's 14.18" in below
    )
    assert above.startswith("Here the ratio at the largest $k_2$, ") and "is above the paper's 14.18" in above
    assert "is compatible with the paper's 14.18" in close
    assert "Dense IHM draws $T k n = 38$ million Gaussian numbers per solve" in below


def test_runtime_says_whether_the_gram_route_is_fastest_and_it_flips():
    fastest = AT.runtime_text(_tables(t_r3=0.1, t_gram=0.01), P)
    slower = AT.runtime_text(_tables(t_r3=0.1, t_gram=1.0), P)
    assert fastest.endswith("its runtime is below every FastIHM's here (lower 95% limits of the ratios above 1).")
    assert slower.endswith("it is not faster than every FastIHM here (see the last column).")


def test_noise_table_shows_each_sketch_and_epsilon_with_the_page_headers():
    table = AT.noise_table(_tables())
    assert list(table.columns) == ["k2", "r", "ε", "coherence Δ̂", "√(2 ln 2n / k2)", "m̂", "m̃", "ω", "τ", "η² / γ"]
    assert len(table) == len(SIZES) * len(EPS)
    row = table[(table["k2"] == 15000) & (table["ε"] == 10.0)].iloc[0]
    assert row["r"] == 600.0 and row["√(2 ln 2n / k2)"] == 0.04
    assert np.isclose(row["coherence Δ̂"], 0.2) and np.isclose(row["η² / γ"], 2.0) and np.isclose(row["ω"], 2.4)


def test_runtime_table_gives_each_method_its_time_and_speedups():
    table = AT.runtime_table(_tables(t_dense=1.0, t_r3=0.1, t_gram=0.01))
    assert list(table.columns) == [
        "method",
        "mean runtime (ms)",
        "IHM / method [95%]",
        "paper (Figure 4)",
        "IHM (Gram) / method [95%]",
    ]
    # no FastIHS in these runs: its row is left out, the others keep the page's order
    assert list(table["method"]) == [
        "FastIHM, k2 = 100 (r = 4)",
        "FastIHM, k2 = 15000 (r = 600)",
        "FastIHM, k2 = 30000 (r = 1200)",
        "IHM (Gram factor)",
        "IHM (dense sketch)",
    ]
    assert np.allclose(table["mean runtime (ms)"], [100, 100, 100, 10, 1000], rtol=0.05)
    assert table["paper (Figure 4)"].iloc[:3].tolist() == [16.71, 15.26, 14.18]
    assert table["paper (Figure 4)"].iloc[3:].isna().all()
    by_method = table.set_index("method")
    dense, gram = by_method["IHM / method [95%]"], by_method["IHM (Gram) / method [95%]"]
    assert dense["IHM (dense sketch)"] == "1" and gram["IHM (Gram factor)"] == "1"
    assert dense["FastIHM, k2 = 30000 (r = 1200)"].startswith(("9.", "10.")) and " [" in dense["IHM (Gram factor)"]
    assert gram["FastIHM, k2 = 100 (r = 4)"].startswith(("0.09", "0.1"))
    with_ihs = _tables()
    ihs = with_ihs["runs"].iloc[:3].assign(method="FastIHS", ihm_sketch=None, k2_ratio=np.nan, epsilon=np.nan)
    with_ihs["runs"] = pd.concat([with_ihs["runs"], ihs], ignore_index=True)
    table = AT.runtime_table(with_ihs)
    assert table["method"].iloc[0] == "FastIHS" and table["paper (Figure 4)"].iloc[0] == 41.95


# --------------------------------------------------------------------------- the columns of the stored runs


def test_the_runs_table_keeps_its_columns_in_their_order():
    """The run_grid columns this study stores, as its stored entry holds them (the page reads them by name)."""
    from fastmix_companion.experiments import result_columns
    from fastmix_companion.store import ResultsStore
    from fastmix_companion.studies import appendix_i as study

    expected = [
        "dataset",
        "method",
        "ihm_sketch",
        "k2_ratio",
        "epsilon",
        "trial",
        "spawn_key",
        "n",
        "d",
        "T",
        "k",
        "k1",
        "k2",
        "delta",
        "rho",
        "excess_risk",
        "mse",
        "ols_mse",
        "theta_error",
        "eta",
        "runtime_s",
        "runtime_ns",
        "eps_spent",
        "delta_spent",
        "n_used",
        "rows_added",
        "rows_dropped",
    ]
    assert list(result_columns(study._KEEP_MEASURED)) == expected
    stored = ResultsStore(study.NOTEBOOK).path / "runs.csv"
    if stored.is_file():  # the committed entry: the cell key, then these columns
        header = stored.read_text(encoding="utf-8").splitlines()[0].split(",")
        assert header[1 : 1 + len(expected)] == expected


def test_run_data_line_names_the_data_and_counts_the_runs():
    assert AT.run_data_line(_tables(trials=2)) == "data: toy (it is small); 20 solver runs"
