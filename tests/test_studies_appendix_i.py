"""The sentences of the Appendix I page (fastmix_companion.studies.appendix_i_text), on small hand-made tables."""

import numpy as np
import pandas as pd

from fastmix_companion.claims import (
    DOES_NOT_HOLD,
    HOLDS,
    HOLDS_IN_DIRECTION,
    NOT_COMPARABLE,
    PAPER_SETTING,
    UNDECIDED,
    Claim,
    Setting,
    Source,
    fastmix_paper,
    verdict_counts,
)
from fastmix_companion.studies import appendix_i as AI
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


def _tables(
    *,
    r2=2.0,
    r3=1.0,
    gram=1.0,
    t_dense=1.0,
    t_r3=0.1,
    t_gram=0.01,
    trials=12,
    seed=0,
    n=2**18,
    lambda_min=0.047,
    dataset="toy",
    preprocessing="none",
    spread=0.05,
):
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
                        "excess_risk": level * np.exp(spread * rng.standard_normal()),
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
                "dataset": dataset,
                "why": "it is small",
                "n": n,
                "n_raw": 300000,
                "d": 4,
                "n_over_d": n / 4,
                "lambda_min": lambda_min,
                "preprocessing": preprocessing,
            }
        ]
    )
    return {"datasets": info, "sketch_sizes": SIZES, "runs": pd.DataFrame(rows), "noise": noise}


P = {"T": 4, "n_trials": 12, "epsilons": "1,10"}


def _claim(holds, name, source=None, setting=PAPER_SETTING):
    return Claim(claim=name, paper="Appendix I", measured="x", rule="y", holds=holds, source=source, setting=setting)


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
    paper, ours = fastmix_paper("Figure 4"), Source(None, "why not")
    away = Setting(("n = 2^18",), comparable=False)
    checks = [_claim(True, "a", paper), _claim(False, "b", paper, away), _claim(True, "c", ours)]
    text = AT.findings_text(_tables(), checks)
    assert text.startswith(
        "Of the 2 claims of the FastMix paper checked here (Figure 4), the verdicts are holds (1), not comparable (1)."
        " 1 is not comparable because this run is outside the paper's setting (what differs: n = 2^18). Our own "
        "question: c (holds).\n\nFastIHM with the largest SRHT has "
    )


def test_checks_sentence_counts_verdicts_and_flips():
    paper = fastmix_paper("Figure 4")
    holds = AT.checks_sentence([_claim(True, "a", paper)])
    fails = AT.checks_sentence([_claim(False, "a", paper)])
    assert holds == "Of the 1 claims of the FastMix paper checked here (Figure 4), the verdicts are holds (1)."
    assert fails.endswith("the verdicts are does not hold (1).")
    assert AT.checks_sentence([]) == "No check was made."


def test_findings_say_where_the_larger_sketch_stops_helping_and_it_flips():
    flat = AT.findings_text(_tables(r2=1.0, r3=1.0), [])
    steep = AT.findings_text(_tables(r2=2.0, r3=1.0), [])
    assert (
        "lowers the excess risk significantly (Holm over the page's tests) at $\\varepsilon \\in \\{\\}$ but " in flat
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


def test_findings_report_whether_the_ihm_routes_agree_and_it_flips():
    agree = AT.findings_text(_tables(gram=1.0), [])
    differ = AT.findings_text(_tables(gram=1.3), [])
    assert "so at every $\\varepsilon$ the routes are shown to agree within 10%" in agree
    assert "Equal accuracy is rejected at no $\\varepsilon$ after Holm over the page's tests." in agree
    assert "agreement within 10% is not shown at every $\\varepsilon$" in differ
    assert "Equal accuracy is rejected at $\\varepsilon \\in \\{1, 10\\}$ after Holm over the page's tests" in differ


def test_noise_text_reports_each_sketch_and_the_cost_of_shrinking_it():
    text = AT.noise_text(_tables())
    assert text.startswith(
        "Measured: $k_2 = 100$: coherence 0.1, $\\widehat m$ 0.5, $\\eta^2/\\gamma$ from 1 ($\\varepsilon = 10$) "
        "to 10 ($\\varepsilon = 1$); "
    )
    # n / 2^22 = 1/16: 15,000 and 30,000 rows shrink to 938 and 1,875, a coherence sqrt(16) = 4 times larger
    assert "they would give $k_2$ = 938, 1,875 instead of 15,000, 30,000, and a coherence about 4.0 times" in text


def test_runtime_verdict_against_the_paper_flips():
    at = {"n": 2**22, "lambda_min": 0.7}
    below = AT.runtime_text(_tables(t_dense=1.0, t_r3=0.2, **at), P)  # 5x, the paper has 14.18
    above = AT.runtime_text(_tables(t_dense=1.0, t_r3=0.02, **at), P)  # 50x
    close = AT.runtime_text(_tables(t_dense=1.0, t_r3=1 / 14.18, trials=2, seed=1, **at), P)
    assert (
        below.startswith("Here the ratio IHM / FastIHM at the largest $k_2$ is ") and "below the paper's 14.18" in below
    )
    assert above.startswith("Here the ratio at the largest $k_2$, ") and "is above the paper's 14.18" in above
    assert "is compatible with the paper's 14.18" in close
    assert "Dense IHM draws $T k n = 604$ million Gaussian numbers per solve" in below
    # at n = 2^18 the run says first that it cannot be compared with the paper's table
    small = AT.runtime_text(_tables(t_dense=1.0, t_r3=0.2), P)
    assert small.startswith("This run is not comparable with the paper's table: toy stand-in for the airline data")


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


def test_setting_differences_text_says_whether_the_papers_claims_can_be_judged_and_it_flips():
    small = AT.setting_differences_text(_tables(preprocessing="a | subsampled 262144 rows"))
    big = AT.setting_differences_text(
        _tables(n=2**22, lambda_min=0.75, dataset="nycflights", preprocessing="resampled 4194304 rows")
    )
    assert small.startswith("**This entry.** Rows: subsampled 262144 rows. What differs from the paper's setting: ")
    assert "The paper's claims are therefore not comparable on it" in small
    assert "rows drawn with replacement to reach n (a row is not one distinct flight)" in big
    assert "lambda_min = 0.75, 1.09 times the paper's 0.685 (within a factor 2)" in big
    assert big.endswith("The paper's claims are judged on it, with these differences stated.")


# --------------------------------------------------------------------------- the claims (appendix_i.claims)


def test_run_setting_is_read_from_the_datasets_table():
    small = AI.run_setting(_tables(dataset="nycflights")["datasets"])
    assert not small.comparable
    assert "n = 262,144 = 2^18, the paper's 2^22 = 4,194,304" in small.differences
    assert "lambda_min = 0.047, 0.0686 times the paper's 0.685 (outside a factor 2)" in small.differences
    resampled = _tables(n=2**22, lambda_min=0.75, dataset="nycflights", preprocessing="x | resampled 4194304 rows")
    big = AI.run_setting(resampled["datasets"], timed=True, blas_threads=1)
    assert big.comparable and len(big.differences) == 4  # stand-in, resampled rows, lambda_min, machine
    low = AI.run_setting(_tables(n=2**22, lambda_min=0.2)["datasets"])  # n = 2^22 is not enough
    assert not low.comparable
    airline = AI.run_setting(_tables(n=2**22, lambda_min=0.685, dataset="airline")["datasets"])
    assert airline == PAPER_SETTING


def _by_name(tables, **kw):
    return {c.claim: c for c in AI.claims(tables, **kw)}


BIG = {"n": 2**22, "lambda_min": 0.75, "dataset": "nycflights", "preprocessing": "resampled 4194304 rows"}


def test_every_claim_states_its_source_and_the_papers_are_not_comparable_at_small_n():
    claims = AI.claims(_tables())
    assert all(c.source is not None for c in claims)
    ours = {c.claim for c in claims if c.source.is_ours}
    assert ours == {
        "Gram-factor IHM has dense IHM's accuracy within a factor 1.1",
        "Gram-factor IHM is faster than FastIHM",
        "FastIHM at the largest k2 is within a factor 2 of IHM at every epsilon",
    }
    assert {c.verdict for c in claims if not c.source.is_ours} == {NOT_COMPARABLE}
    assert {c.verdict for c in AI.claims(_tables(**BIG)) if not c.source.is_ours} != {NOT_COMPARABLE}


def test_speedup_holds_in_size_or_only_in_direction():
    paper = 14.18
    near = _by_name(_tables(t_dense=1.0, t_r3=1 / paper, **BIG))[
        "FastIHM r3 is faster than IHM (by 14.18 times in the paper)"
    ]
    far = _by_name(_tables(t_dense=1.0, t_r3=1 / (5 * paper), **BIG))[
        "FastIHM r3 is faster than IHM (by 14.18 times in the paper)"
    ]
    slow = _by_name(_tables(t_dense=1.0, t_r3=3.0, **BIG))[
        "FastIHM r3 is faster than IHM (by 14.18 times in the paper)"
    ]
    assert near.verdict == HOLDS and near.magnitudes[0].paper == paper
    assert far.verdict == HOLDS_IN_DIRECTION and "outside a factor 2" in far.size
    assert slow.verdict == DOES_NOT_HOLD


def test_gram_agreement_holds_within_the_factor_does_not_hold_outside_and_is_undecided_when_noisy():
    name = "Gram-factor IHM has dense IHM's accuracy within a factor 1.1"
    assert _by_name(_tables(gram=1.02))[name].verdict == HOLDS  # a 2% difference is within 10%
    assert _by_name(_tables(gram=1.5))[name].verdict == DOES_NOT_HOLD
    assert _by_name(_tables(gram=1.0, spread=0.5, trials=4))[name].verdict == UNDECIDED


def test_close_to_ihm_and_the_k2_steps_flip():
    vague = _by_name(_tables(r3=1.0, **BIG))["FastIHM at the largest k2 is close to optimal"]
    assert vague.verdict == UNDECIDED and "names no k2" in vague.rule  # the paper states no quantity
    close = "FastIHM at the largest k2 is within a factor 2 of IHM at every epsilon"
    assert _by_name(_tables(r3=1.0, **BIG))[close].verdict == HOLDS
    assert _by_name(_tables(r3=3.0, r2=6.0, **BIG))[close].verdict == DOES_NOT_HOLD
    step = "FastIHM's accuracy loss against IHM shrinks as k2 grows (airline data)"
    assert _by_name(_tables(r2=2.0, r3=1.0, **BIG))[step].verdict == HOLDS
    # r3 worse than r2 and twice IHM's risk: a loss against IHM comes back
    assert _by_name(_tables(r2=1.0, r3=2.0, **BIG))[step].verdict == DOES_NOT_HOLD
    # a smaller sketch that beats IHM (regularised by its Hessian noise) leaves no loss to shrink
    beaten = _by_name(_tables(r2=0.5, r3=1.0, **BIG))[step]
    assert beaten.verdict == HOLDS and beaten.finding
    tests = AI.page_tests(_tables())
    assert len(tests) == 4 * len(EPS)  # three k2 pairs and the two IHM routes, Holm-corrected together


def test_stored_claims_on_the_committed_entry_state_their_sources_and_verdicts():
    from fastmix_companion.store import ResultsStore

    store = ResultsStore(AI.NOTEBOOK)
    tables = store.load()
    if tables is None:
        return
    claims = AI.stored_claims(tables, store.parameters())
    assert claims and all(c.source is not None for c in claims)
    counts = verdict_counts(claims)
    if int(tables["datasets"]["n"].iloc[0]) == 2**18:  # the stand-in subsampled to 2^18: lambda_min 0.047
        assert counts == {HOLDS: 2, HOLDS_IN_DIRECTION: 0, NOT_COMPARABLE: 6, UNDECIDED: 0, DOES_NOT_HOLD: 1}
    else:  # the paper-scale entry: the paper's claims are judged
        assert counts[NOT_COMPARABLE] == 0 and sum(counts.values()) == 9


def test_smoke_sizes_names_the_quick_run_sizes():
    p = {"log2_n": 16, "epsilons": "0.316,1.259", "n_trials": 3}
    assert AT.smoke_sizes(p) == (
        "$n = 2^{16}$ rows, $\\varepsilon \\in \\{0.316, 1.259\\}$, 3 trials per method and $\\varepsilon$"
    )
    assert AT.smoke_sizes({**p, "log2_n": 0}).startswith("all complete rows, ")
