"""The regime map page: its sentences (regime_map_text) and the study's verdicts, on small hand-made tables."""

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


# --------------------------------------------------------------------------- the verdicts of the claims

DENSE = "FastIHM (r = 4) is faster than IHM with the dense sketch"


def _timed(cells, repeats=5, noise=0.05, seed=0, design="synthetic_correlated"):
    """``cells``: ``(sweep, log2 n, d, k2_r4, {series: seconds})``; lognormal repeats around each time."""
    import numpy as np

    rng = np.random.default_rng(seed)
    rows, shapes = [], []
    for sweep, log2_n, d, k2, times in cells:
        n = 2**log2_n
        shapes.append({"sweep": sweep, "n": n, "d": d, "k2_r4": k2, "design": design})
        for series, seconds in times.items():
            for _ in range(repeats):
                t = seconds * float(np.exp(noise * rng.standard_normal()))
                rows.append({"sweep": sweep, "n": n, "d": d, "series": series, "status": R.TIMED, "cpu_s": t})
    return {"shapes": pd.DataFrame(shapes), "runs": pd.DataFrame(rows)}


def _claims(tables):
    return {c.claim: c for c in R.claims(tables)}


def test_the_speedup_question_is_ours_and_compares_no_size():
    from fastmix_companion.claims import HOLDS

    # the paper's runtime claim is scored with its 2.33 on the Figure 3 page: here, at the same shape, no size
    far = _claims(_timed([("n", 19, 32, 128, {"FastIHM (r = 4)": 1.0, "IHM (dense)": 2.33 * 6})]))[DENSE]
    assert far.verdict == HOLDS and far.magnitudes == () and "scored on the Figure 3 page" in far.rule
    assert far.source.is_ours and "extend to other shapes" in far.source.location
    elsewhere = _claims(_timed([("n", 18, 32, 128, {"FastIHM (r = 4)": 1.0, "IHM (dense)": 20.0})]))[DENSE]
    assert elsewhere.magnitudes == () and elsewhere.verdict == HOLDS


GROWTH = "Gram IHM's time grows faster in d than FastIHM's"


def _growth(fast_exponent, gram_exponent, noise=0.05, repeats=5):
    ds = (8, 16, 32, 64)
    cells = [("d", 14, d, 128, {"FastIHM (r = 4)": d**fast_exponent, "IHM (Gram)": d**gram_exponent}) for d in ds]
    return _claims(_timed(cells, repeats=repeats, noise=noise))[GROWTH]


def test_the_growth_in_d_is_three_way():
    from fastmix_companion.claims import DOES_NOT_HOLD, HOLDS, UNDECIDED

    assert _growth(1.0, 2.0).verdict == HOLDS
    assert _growth(2.0, 1.0).verdict == DOES_NOT_HOLD  # FastIHM's exponent significantly the larger
    assert _growth(1.0, 1.02, noise=0.5, repeats=2).verdict == UNDECIDED  # not significant either way
    assert "does not hold if FastIHM's exceeds IHM (Gram)'s by as much; undecided otherwise" in _growth(1.0, 2.0).rule


def test_the_claims_fail_or_stay_undecided_by_their_intervals():
    from fastmix_companion.claims import DOES_NOT_HOLD, UNDECIDED

    slow = _claims(_timed([("n", 17, 32, 128, {"FastIHM (r = 4)": 1.0, "IHM (dense)": 0.5, "IHM (Gram)": 0.5})]))
    assert slow[DENSE].verdict == DOES_NOT_HOLD
    assert slow["IHM through its Gram factor is faster than FastIHM (r = 4)"].verdict != DOES_NOT_HOLD
    noisy = _timed([("n", 17, 32, 128, {"FastIHM (r = 4)": 1.0, "IHM (dense)": 1.05})], repeats=3, noise=0.5)
    assert _claims(noisy)[DENSE].verdict == UNDECIDED


def test_shapes_with_a_large_k2_are_left_out_of_the_paper_claim():
    from fastmix_companion.claims import HOLDS

    tables = _timed(
        [
            ("d", 17, 32, 128, {"FastIHM (r = 4)": 1.0, "IHM (dense)": 3.0}),
            ("d", 17, 4096, 2**16, {"FastIHM (r = 4)": 1.0, "IHM (dense)": 0.5}),  # k2 = n / 2
        ]
    )
    claim = _claims(tables)[DENSE]
    assert claim.verdict == HOLDS and "1 shapes; smallest" in claim.measured
    assert "1 shapes with k2 > 0.31 n left out" in claim.setting.differences


def test_the_page_family_sets_the_level_of_every_comparison():
    tables = _timed(
        [
            ("n", 17, 32, 128, {"FastIHM (r = 4)": 1.0, "IHM (dense)": 3.0, "IHM (Gram)": 0.5}),
            ("n", 18, 32, 128, {"FastIHM (r = 4)": 2.0, "IHM (dense)": 6.0, "IHM (Gram)": 1.0}),
        ]
    )
    claims = _claims(tables)
    assert "98.75% Welch interval" in claims[DENSE].rule and "the page's 4 comparisons" in claims[DENSE].rule


def test_stored_claims_state_their_sources_and_verdicts():
    import pytest

    from fastmix_companion.claims import verdict_counts
    from fastmix_companion.store import ResultsStore

    store = ResultsStore(R.NOTEBOOK)
    tables = store.load()
    if tables is None:
        pytest.skip("no stored entry")
    claims = R.stored_claims(tables, store.parameters())
    assert all(c.source is not None for c in claims)
    assert [c.source.is_ours for c in claims] == [True, True, True]
    assert verdict_counts(claims) == {
        "holds": 3,
        "holds in direction, not in size": 0,
        "not comparable": 0,
        "undecided": 0,
        "does not hold": 0,
    }
    text = RT.checks_text(claims)
    assert text.startswith('Of the 3 checks, the verdict is "holds" for 3.')
    assert '(r = 4) is faster than IHM with the dense sketch": holds.' in text


def test_smoke_sizes_text_follows_the_parameters():
    text = RT.smoke_sizes_text({**R.DEFAULTS, "log2_ns": "8,9", "ds": "2,4", "n_sweep_d": 4, "d_sweep_log2_n": 8})
    assert "$n = 2^{8}$ to $2^{9}$ at $d = 4$" in text and "$d = 2$ to $4$ at $n = 2^{8}$" in text
    assert "1 timed run per" in RT.smoke_sizes_text({**R.DEFAULTS, "repeats": 1})
