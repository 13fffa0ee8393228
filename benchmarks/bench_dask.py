"""Benchmark: FastIHM and Gram IHM on Dask arrays, in memory against the Dask path, and out of core.

Usage::

    python benchmarks/bench_dask.py            # the full run of notebooks/paper_scale.json, into the results store
    python benchmarks/bench_dask.py --quick    # small sizes, threaded workers, nothing stored
    python benchmarks/bench_dask.py -p out_of_core_log2_n 26 -p zarr_dir /scratch/fastmix   # overrides: not stored

The full run writes a synthetic X of n = 2^27 rows and d = 32 columns (32 GiB, more than this
machine's 24 GiB of memory) to a Zarr store, and times FastIHM and IHM through its Gram factor
over it with a two-process ``distributed.LocalCluster``, recording the wall time, the bytes the
workers read from storage and their peak resident memory; and, at n = 2^20, 2^22 and 2^24, the Dask path
on data persisted in the workers' memory against the in-memory path in this process. It is the
study of the book's "Beyond one machine" page (:mod:`fastmix_companion.studies.beyond_one_machine`), resumed
cell by cell from the results store. The last line prints the out-of-core figures and the
throughput ratio against their targets (peak worker memory below 25% of the machine's, Dask at most
1.5 times slower than in memory at n = 2^22), then the ratios at the larger sizes.

After the study, the Dask path is timed at n = 2^m + 1 against n = 2^m (m the largest of ``log2_ns``),
data in the workers' memory: one more row doubles the padded length, and the ratio of the two times
(the floor measured in the same run) shows what a length that is not a power of two costs, with the
largest row chunk the solver used (it stays that of the input, :func:`fastmix.chunked.pad_and_align`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from fastmix_companion.store import ResultsStore  # noqa: E402
from fastmix_companion.studies import beyond_one_machine as study  # noqa: E402
from fastmix_companion.studies import run_study  # noqa: E402

QUICK = {"log2_ns": "16,18", "out_of_core_log2_n": 19, "d": 16, "chunk_log2_rows": 16, "repeats": 2}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="small sizes, threaded workers, nothing stored")
    ap.add_argument("-p", nargs=2, action="append", default=[], metavar=("NAME", "VALUE"), help="override a parameter")
    args = ap.parse_args(argv)
    registry = json.loads((ROOT / "notebooks" / "paper_scale.json").read_text(encoding="utf-8"))
    params = dict(QUICK) if args.quick else dict(registry[study.NOTEBOOK]["parameters"])
    for name, value in args.p:
        default = study.DEFAULTS.get(name)
        params[name] = type(default)(value) if not isinstance(default, bool) else value.lower() in ("1", "true")
    print(f"fastmix Dask benchmark | {os.cpu_count()} CPUs | load average {os.getloadavg()} | parameters {params}")
    store = None if args.quick or args.p else ResultsStore(study.NOTEBOOK)
    tables = run_study(study.NOTEBOOK, params, store=store, log=print)
    runs = tables["runs"]
    cols = ["mode", "n", "d", "series", "repeat", "wall_s", "passes", "peak_worker_rss", "relative_difference"]
    print(runs[cols].to_string(index=False))
    print(study.throughput_ratios(runs).to_string(index=False))
    print(study.summary_line(tables))
    m = max(int(v) for v in str(params["log2_ns"]).split(","))
    print(odd_n_line(m, int(params["d"]), 1 << int(params["chunk_log2_rows"]), int(params["repeats"])))
    return 0


def odd_n_line(m: int, d: int, chunk: int, repeats: int) -> str:
    """FastIHM on Dask at n = 2^m + 1 against n = 2^m, data persisted on a two-worker LocalCluster."""
    import time

    import dask.array as da
    import numpy as np
    from distributed import Client, LocalCluster

    from fastmix import regression as R

    T, delta = 4, 1.0 / 4**m  # the paper's T and delta = 1/n^2, the same for both n
    k1, k2 = R.paper_sketch_sizes(d, T, delta / 10.0, 4.0)
    cal = R.calibrate_fast_ihm(1.0, delta, k1=k1, T=T, rho=delta / 10.0)
    times, chunks = {}, {}
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True) as cluster, Client(cluster):
        for n in (2**m, 2**m + 1):
            rng = np.random.default_rng(n)
            x = rng.standard_normal((n, d))
            x /= np.maximum(1.0, np.linalg.norm(x, axis=1))[:, None]  # rows in the unit ball, as the mechanism needs
            X = da.from_array(x, chunks=(chunk, d)).persist()
            y = da.from_array(rng.uniform(-1, 1, n), chunks=chunk).persist()
            best = np.inf
            for r in range(repeats):
                start = time.perf_counter()
                fit = R.fast_ihm(X, y, calibration=cal, k1=k1, k2=k2, random_state=r)
                best = min(best, time.perf_counter() - start)
            times[n], chunks[n] = best, max(fit.diagnostics["rechunking"].after)
    ratio = times[2**m + 1] / times[2**m]
    return (
        f"odd n: FastIHM on Dask at n = 2^{m} + 1 takes {ratio:.2f} times n = 2^{m} ({times[2**m + 1]:.2f} s against "
        f"{times[2**m]:.2f} s, best of {repeats}); largest row chunk {chunks[2**m + 1]} rows (input chunks {chunk})"
    )


if __name__ == "__main__":
    raise SystemExit(main())
