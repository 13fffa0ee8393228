"""The Beyond one machine page's text (fastmix_companion.studies.beyond_one_machine_text) and the study's verdicts,
on small hand-made tables."""

import numpy as np
import pandas as pd
import pytest

from fastmix_companion.studies import beyond_one_machine as B
from fastmix_companion.studies import beyond_one_machine_text as BT

GIB = 2**30
P = {"d": 32, "chunk_log2_rows": 20, "T": 4, "epsilon": 1.259}


def _setting(processes=True, memory=24 * GIB):
    return pd.DataFrame([{"memory_bytes": memory, "n_workers": 2, "processes": processes, "chunk_rows": 2**20}])


def _row(mode, log2_n, series, wall_s, *, read=np.nan, peak=np.nan, diff=np.nan, d=32):
    n = 2**log2_n
    x_bytes = 8 * n * d
    return {
        "mode": mode,
        "n": n,
        "d": d,
        "series": series,
        "wall_s": wall_s,
        "x_bytes": x_bytes,
        "bytes_read": read,
        "passes": read / x_bytes,
        "peak_worker_rss": peak,
        "relative_difference": diff,
    }


def _runs(*, diff=1e-15, ooc_peak=2 * GIB, ooc_read_passes=8.0, log2_ooc=27):
    """In memory and Dask at n = 2^22 for both solvers (two repeats each, listed out of page order), out of core."""
    x_ooc = 8 * 2**log2_ooc * 32
    rows = [
        _row("dask", 22, "IHM (Gram)", 0.5, read=0.0, peak=1.5 * GIB, diff=diff),
        _row("in memory", 22, "IHM (Gram)", 0.4, diff=diff),
        _row("dask", 22, "FastIHM", 2.0, read=0.0, peak=1.0 * GIB, diff=diff),
        _row("dask", 22, "FastIHM", 3.0, read=0.0, peak=1.25 * GIB, diff=diff / 10),
        _row("in memory", 22, "FastIHM", 1.5, diff=diff),
        _row("in memory", 22, "FastIHM", 2.5, diff=diff),
        _row("out of core", log2_ooc, "FastIHM", 400.0, read=ooc_read_passes * x_ooc, peak=ooc_peak),
    ]
    return pd.DataFrame(rows)


def test_setting_text_names_the_workers_and_counts_the_solves():
    tables = {"setting": _setting(processes=True), "runs": _runs()}
    assert BT.setting_text(tables, P) == (
        "$d = 32$, chunks of $2^{20}$ rows, 2 worker processes of one thread each, $T = 4$, "
        "$\\varepsilon = 1.259$, 7 timed solves"
    )
    threads = BT.setting_text({"setting": _setting(processes=False), "runs": _runs()}, P)
    assert "2 worker threads of one thread each" in threads and "processes" not in threads


def test_runs_table_orders_by_size_solver_then_path_and_takes_medians():
    lines = BT.runs_markdown({"setting": _setting(), "runs": _runs()}).splitlines()
    assert lines[0].startswith("| path | $n$ | solver | wall time [s] | passes over $X$ read from storage |")
    assert lines[1] == "|---|---:|---|---:|---:|---:|---:|---:|"
    assert [line.split(" | ")[0] + " | " + line.split(" | ")[2] for line in lines[2:]] == [
        "| in memory | FastIHM",
        "| dask | FastIHM",
        "| in memory | IHM (Gram)",
        "| dask | IHM (Gram)",
        "| out of core | FastIHM",
    ]
    # medians of the two repeats; nothing read in memory, no worker memory measured in this process
    assert lines[2] == "| in memory | $2^{22}$ | FastIHM | 2.00 | - | - | - | 1.0e-15 |"
    # the Dask rows read nothing from storage (0 passes), so no rate is shown; the peak is the largest repeat's
    assert lines[3] == "| dask | $2^{22}$ | FastIHM | 2.50 | 0.00 | - | 1.25 GiB | 1.0e-15 |"
    x_ooc = 8 * 2**27 * 32
    assert lines[6] == (
        f"| out of core | $2^{{27}}$ | FastIHM | 400.00 | 8.00 | {8 * x_ooc / 400.0 / 1e6:.0f} | 2.00 GiB | - |"
    )


def test_runs_table_shows_a_read_rate_only_where_the_workers_read_x():
    def ooc_line(passes):
        table = BT.runs_markdown({"setting": _setting(), "runs": _runs(ooc_read_passes=passes)})
        return next(line for line in table.splitlines() if line.startswith("| out of core"))

    assert ooc_line(0.6).split(" | ")[4:6] == ["0.60", f"{0.6 * 8 * 2**27 * 32 / 400.0 / 1e6:.0f}"]
    assert ooc_line(0.4).split(" | ")[4:6] == ["0.40", "-"]  # served mostly from memory: no storage rate


def test_summary_line_and_claims_flip_on_the_out_of_core_memory():
    within = {"setting": _setting(), "runs": _runs(ooc_peak=2 * GIB)}
    beyond = {"setting": _setting(), "runs": _runs(ooc_peak=7 * GIB)}
    assert "(8.3% of RAM, target < 25%: met)" in B.summary_line(within)
    assert "(29.2% of RAM, target < 25%: NOT met)" in B.summary_line(beyond)

    def verdict(tables):
        return next(c.holds for c in B.claims(tables) if c.claim.startswith("Out of core"))

    assert verdict(within) is True and verdict(beyond) is False
    small = {"setting": _setting(), "runs": _runs(log2_ooc=26)}  # X is 2/3 of the memory: not out of core
    assert verdict(small) is False
    unmeasured = {"setting": _setting(), "runs": _runs(ooc_peak=np.nan)}
    assert verdict(unmeasured) is None
    assert "peak worker RSS not measured" in B.summary_line(unmeasured)


def test_same_release_claim_flips_with_the_largest_difference():
    def verdict(diff):
        tables = {"setting": _setting(), "runs": _runs(diff=diff)}
        return next(c for c in B.claims(tables) if c.claim.startswith("The Dask path releases"))

    same = verdict(1e-13)
    assert same.holds is True and same.measured == "largest relative difference of theta over 3 solves: 1.0e-13"
    assert verdict(1e-8).holds is False


def test_every_claim_is_ours_with_the_run_setting_and_its_sentence_uses_the_verdict():
    from fastmix_companion.claims import OURS

    tables = {
        "setting": _setting(),
        "runs": pd.DataFrame(
            [
                _row("in memory", 22, "FastIHM", 1.0),
                _row("dask", 22, "FastIHM", 1.2, diff=1e-15),
                _row("dask", 22, "FastIHM", 1.2, diff=1e-15),
            ]
        ),
    }
    params = {"d": 32, "n_workers": 2, "chunk_log2_rows": 20, "processes": True, "k2_ratio": 4.0}
    claims = B.claims(tables, params)
    assert all(c.source.is_ours and c.source != OURS and c.source.location for c in claims)
    assert "d = 32, 2 local single-threaded worker processes, chunks of 2^20 rows" in str(claims[0].setting)
    assert BT.checks_text(claims).startswith('Of the 2 checks, the verdict is "holds" for 2.\n\nOur own question (')
    slow = dict(tables, runs=tables["runs"].assign(wall_s=[1.0, 2.0, 2.0]))
    assert BT.checks_text(B.claims(slow, params)).startswith(
        'Of the 2 checks, the verdict is "holds" for 1 and "does not hold" for 1.'
    )


def test_stored_claims_state_their_sources_and_verdicts():
    import pytest

    from fastmix_companion.claims import verdict_counts
    from fastmix_companion.store import ResultsStore

    store = ResultsStore(B.NOTEBOOK)
    tables = store.load()
    if tables is None:
        pytest.skip("no stored entry")
    claims = B.stored_claims(tables, store.parameters())
    assert all(c.source is not None and c.source.is_ours for c in claims)
    assert verdict_counts(claims) == {
        "holds": 4,
        "holds in direction, not in size": 0,
        "not comparable": 0,
        "undecided": 0,
        "does not hold": 0,
    }


def test_smoke_sizes_text_follows_the_parameters():
    text = BT.smoke_sizes_text({**B.DEFAULTS, "log2_ns": "10", "out_of_core_log2_n": 11, "repeats": 1})
    assert "$n \\in \\{2^{10}\\}$" in text and "out of core at $n = 2^{11}$" in text and "1 timed solve per" in text
    assert "out of core" not in BT.smoke_sizes_text({**B.DEFAULTS, "out_of_core_log2_n": 0})
    assert "worker processes" in BT.smoke_sizes_text({**B.DEFAULTS, "processes": True})


def test_out_of_core_is_set_against_a_scaled_in_memory_time_and_the_rate_the_storage_gave():
    import pandas as pd

    from fastmix_companion.studies import beyond_one_machine as B
    from fastmix_companion.studies import beyond_one_machine_text as BT

    rows = [
        {"mode": "in memory", "n": 2**20, "series": "FastIHM", "wall_s": 2.0, "bytes_read": np.nan, "passes": np.nan},
        {"mode": "dask", "n": 2**20, "series": "FastIHM", "wall_s": 2.2, "bytes_read": 0.0, "passes": 0.0},
        {
            "mode": "out of core",
            "n": 2**23,
            "series": "FastIHM",
            "wall_s": 48.0,
            "bytes_read": 6 * 2**30,
            "passes": 3.0,
        },
    ]
    b = B.out_of_core_breakdown(pd.DataFrame(rows))
    (r,) = b.itertuples()
    assert r.in_memory_s == pytest.approx(16.0) and r.over_in_memory == pytest.approx(3.0)
    assert r.read_rate == pytest.approx(6 * 2**30 / 48.0)
    text = BT.out_of_core_text(pd.DataFrame(rows))
    assert "held in the workers' memory" in text and "3.0 times slower" in text and "128 MiB/s" in text
    assert B.out_of_core_breakdown(pd.DataFrame(rows[:2])).empty and BT.out_of_core_text(pd.DataFrame(rows[:2])) == ""
