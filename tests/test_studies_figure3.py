"""The sentences of the Figure 3 page (fastmix_companion.studies.figure3_text), on small hand-made tables."""

import numpy as np
import pandas as pd

from fastmix_companion.claims import Claim
from fastmix_companion.studies import figure3_text as FT

SHAPE = "2^19 x 32"
P = {"T": 4, "trials": 10, "epsilons": "1.259", "blas_threads": 1}


def _tables(speedups=(5.0, 2.52, 2.26, 2.06), gram=0.5, trials=10):
    """Dense IHM 1 s; FastIHS and FastIHM r1-r3 at 1/speedup; IHM-gram at gram s; a 2% spread across trials."""
    seconds = {"IHM": 1.0, "IHM-gram": gram}
    seconds.update(
        {s: 1.0 / v for s, v in zip(("FastIHS", "FastIHM r1", "FastIHM r2", "FastIHM r3"), speedups, strict=True)}
    )
    rows = [
        {"dataset": SHAPE, "series": series, "epsilon": 1.259, "trial": t, "runtime_s": sec * np.exp(0.02 * (-1) ** t)}
        for series, sec in seconds.items()
        for t in range(trials)
    ]
    info = pd.DataFrame(
        [
            {
                "shape": SHAPE,
                "n": 2**19,
                "d": 32,
                "why": "the paper's synthetic design",
                "k2_ratios": "4,400,800",
                "k1": 192,
                "k2s": "128,12800,25600",
                "paper_dataset": "synthetic_sphere",
            }
        ]
    )
    return {"runs": pd.DataFrame(rows), "datasets": info}


def _claim(holds, name):
    return Claim(claim=name, paper="Figure 3", measured="x", rule="y", holds=holds)


def test_settings_and_tables():
    t = _tables()
    assert FT.tex(SHAPE) == "2^{19} \\times 32"
    assert (
        FT.bars_setting(t, P)
        == "shapes 2^19 x 32; $T = 4$, 10 trials at $\\varepsilon \\in \\{1.259\\}$, 60 timed solves"
    )
    assert FT.stored_setting_text(t, P).splitlines() == [
        "Setting: $T = 4$, 10 timed trials per method and $\\varepsilon$, $\\varepsilon \\in \\{1.259\\}$, "
        "1 BLAS/OpenMP thread(s), 60 timed solves. Data per shape:",
        "* $2^{19} \\times 32$: the paper's synthetic design; ratios (4,400,800), $k_1 = 192$, "
        "$k_2$ = 128, 12800, 25600.",
    ]
    pivot = FT.ratio_pivot(t, "IHM")
    assert list(pivot.index) == [SHAPE] and pivot.loc[SHAPE, "IHM-gram"].startswith("2 [1.9")
    timing = pd.DataFrame(
        [
            {
                "shape": SHAPE,
                "pools": "openblas:1",
                "environment": "OMP=1",
                "blas_threads": 1,
                "load1_min": 0.1,
                "load1_max": 0.5,
                "load1_mean": 0.2,
                "seconds": 120.4,
            }
        ]
    )
    assert (
        FT.timing_markdown(timing).splitlines()[-1]
        == "| 2^19 x 32 | `openblas:1` | `OMP=1` | 1 | 0.10 | 0.50 | 0.20 | 120 |"
    )


def test_findings_place_each_speedup_against_the_papers_and_it_flips():
    same = FT.findings_text(_tables(), [_claim(True, "a")])
    faster = FT.findings_text(_tables(speedups=(10.0, 5.0, 4.5, 4.0)), [_claim(True, "a"), _claim(False, "b")])
    slower = FT.findings_text(_tables(speedups=(2.0, 1.2, 1.1, 1.0)), [])
    assert same.startswith("Of the 1 checks, 1 holds.")
    assert (
        "$2^{19} \\times 32$ (the paper's Synthetic lambda_min ~ n/d): speedups over dense IHM compatible with it: "
        "FastIHS 5" in same
    )
    assert faster.startswith("Of the 2 checks, 1 holds and 1 do not: b.")
    assert "speedups over dense IHM larger than the paper's: FastIHS 10 (paper 5)," in faster
    assert "speedups over dense IHM smaller: FastIHS 2 (paper 5)," in slower and "compatible" not in slower
    assert same.endswith("sets FastIHM beside an IHM that draws no $k \\times n$ matrix at all.")


def test_gram_text():
    text = FT.gram_text(_tables(gram=0.5), P)
    assert text.startswith(
        "Measured against the Gram-factor IHM: $2^{19} \\times 32$: FastIHM at the smallest $k_2$ takes 0.794 "
        "times the Gram route's time (operation-count ratio $T\\log_2 n/d$ = 2.38)."
    )


# --------------------------------------------------------------------------- the columns of the stored runs


def test_the_runs_table_keeps_its_columns_in_their_order():
    """The run_grid columns this study stores, as its stored entry holds them (the page reads them by name)."""
    from fastmix_companion.experiments import result_columns
    from fastmix_companion.store import ResultsStore
    from fastmix_companion.studies import figure3 as study

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
        "runtime_s",
        "runtime_ns",
        "excess_risk",
        "n_used",
        "rows_added",
    ]
    assert list(result_columns(study._KEEP_MEASURED)) == expected
    stored = ResultsStore(study.NOTEBOOK).path / "runs.csv"
    if stored.is_file():  # the committed entry: the cell key, then these columns
        header = stored.read_text(encoding="utf-8").splitlines()[0].split(",")
        assert header[1 : 1 + len(expected)] == expected


def test_paper_table_lists_figure3_of_the_paper():
    from fastmix_companion.studies import figure3 as study

    paper = FT.paper_table()
    assert list(paper.columns) == ["dataset", "n x d", "r1,r2,r3", "FastIHS", "FastIHM r1", "FastIHM r2", "FastIHM r3"]
    assert len(paper) == len(study.PAPER_TABLE)
    sphere = paper[paper["dataset"] == study.PAPER_TABLE["synthetic_sphere"][0]].iloc[0]
    assert sphere["n x d"] == "2^19 x 32" and sphere["r1,r2,r3"] == "4,400,800"
    assert sphere[["FastIHS", "FastIHM r1", "FastIHM r2", "FastIHM r3"]].tolist() == [5.0, 2.52, 2.26, 2.06]


def test_load_table_summarises_each_dataset_over_its_cells():
    runs = pd.DataFrame(
        {
            "dataset": ["a", "a", "a", "b"],
            "cell": ["a/1", "a/1", "a/2", "b/1"],
            "load1_before": [0.5, 9.0, 1.5, 2.0],
            "load1_after": [1.0, 9.0, 3.0, 2.5],
        }
    )
    load = FT.load_table(runs)  # a cell's trials share its load: only its first row counts
    assert load.loc["a"].tolist() == [0.5, 3.0, 2] and load.loc["b"].tolist() == [2.0, 2.5, 1]
