"""Benchmark: FastIHM on a Zarr store of n = 2^m + 1 rows with workers of bounded memory.

Usage::

    python benchmarks/bench_odd_n_zarr.py --dir /scratch/fastmix      # n = 2^23 + 1, d = 64 (4 GiB), 2 GiB workers
    python benchmarks/bench_odd_n_zarr.py --dir /tmp/x --log2-n 16 --d 8 --memory 512MiB   # a quick check

One row more than a power of two doubles the padded length. The zero rows come in chunks like the
data's (:func:`fastmix.chunked.pad_and_align`), so every task holds about one input chunk; this run
checks it at scale: a two-worker ``LocalCluster`` with ``memory_limit`` per worker fits FastIHM on X
read from Zarr, and the script prints the wall time, the largest row chunk, each worker's peak
resident memory and whether any worker was restarted. Nothing is stored; the figures go to stdout.
"""

from __future__ import annotations

import argparse
import math
import os
import time
from pathlib import Path


def _peak_rss() -> int:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return -1


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", required=True, type=Path, help="folder for the Zarr store (needs n d 8 bytes)")
    ap.add_argument("--log2-n", type=int, default=23)
    ap.add_argument("--d", type=int, default=64)
    ap.add_argument("--chunk-log2-rows", type=int, default=20)
    ap.add_argument("--memory", default="2GiB", help="memory_limit of each of the two workers")
    args = ap.parse_args(argv)

    import dask.array as da
    from distributed import Client, LocalCluster

    from fastmix import regression as R

    n, d, chunk = 2**args.log2_n + 1, args.d, 2**args.chunk_log2_rows
    store = args.dir / f"odd_{args.log2_n}_{d}.zarr"
    print(f"odd-n Zarr benchmark | {os.cpu_count()} CPUs | load {os.getloadavg()} | n = 2^{args.log2_n} + 1, d = {d}")
    with LocalCluster(n_workers=2, threads_per_worker=1, memory_limit=args.memory, dashboard_address=None) as cl:
        with Client(cl) as client:
            if not store.exists():  # written in chunks of a quarter of the read chunk, one pass per array
                piece = max(chunk // 4, 1)
                rows = da.random.default_rng(0).uniform(-1.0, 1.0, (n, d), chunks=(piece, d)) / math.sqrt(d)
                da.to_zarr(rows, str(store), component="X", overwrite=True)
                y = da.random.default_rng(1).uniform(-1.0, 1.0, n, chunks=piece)
                da.to_zarr(y, str(store), component="y", overwrite=True)
            X = da.from_zarr(str(store), component="X", chunks=(chunk, d))
            y = da.from_zarr(str(store), component="y", chunks=chunk)
            delta, T = 1.0 / n**2, 4  # Appendix H's delta = 1/n^2 and T
            k1, k2 = R.paper_sketch_sizes(d, T, delta / 10.0, 4.0)
            cal = R.calibrate_fast_ihm(1.0, delta, k1=k1, T=T, rho=delta / 10.0)
            workers_before = set(client.scheduler_info()["workers"])
            start = time.perf_counter()
            fit = R.fast_ihm(X, y, calibration=cal, k1=k1, k2=k2, random_state=0)
            wall = time.perf_counter() - start
            workers_after = set(client.scheduler_info()["workers"])
            peaks = client.run(_peak_rss)
    plan = fit.diagnostics["rechunking"]
    print(
        f"fitted in {wall:.1f} s; n_used = {fit.data.n_used}; largest row chunk {max(plan.after)} rows (input "
        f"{chunk}); worker peak RSS "
        + ", ".join(f"{v / 2**30:.2f} GiB" for v in peaks.values())
        + f" (limit {args.memory}); workers restarted: {'no' if workers_before == workers_after else 'yes'}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
