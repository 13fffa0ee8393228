"""Benchmark: fit and predict of the private kernel ridge regressions of the kernel paper.

Run from the repository root:

    python benchmarks/bench_kernels.py            # n = 5000, d = 10, M = 100; large n = 10^5
    python benchmarks/bench_kernels.py --quick    # n = 1000 and large n = 10^4

Times (one run each, ``time.perf_counter``) the fit and the predict of
``DPRandomProjectionKRR`` (Algorithm 1) with the exact Gaussian-process path sampler and with
the random-feature approximation, and of ``DPRandomFeatureKRR`` (Algorithm 3), then the
approximate random projection at a large n. Ratios are to the RFF fit at the same n, which
travel across machines better than seconds.

It then measures the overhead of the exact random-projection fit over its unavoidable core,
building the n x n kernel matrix and factorising it (LAPACK ``dpotrf`` in place, no copy and
no clean-up of the other triangle), on the same data and in one run (each timing the best of
three): the ratio "exact fit / (kernel matrix + Cholesky)" (target <= 1.15 at n = 5000) and
the fit's peak traced memory in units of one n x n float64 array (target <= 2; NumPy reports
its allocations to ``tracemalloc``). Not a test.
"""

from __future__ import annotations

import argparse
import platform
import time
import tracemalloc

import numpy as np
from scipy import linalg

from fastmix import __version__
from fastmix.kernels import DPRandomFeatureKRR, DPRandomProjectionKRR, GaussianKernel


def _data(n, d, rng):
    X = rng.standard_normal((n, d)) / np.sqrt(d)
    y = np.clip(np.sin(X.sum(axis=1)) + 0.1 * rng.standard_normal(n), -1.0, 1.0)
    return X, y


def _time(est, X, y, X_test):
    t0 = time.perf_counter()
    est.fit(X, y)
    t_fit = time.perf_counter() - t0
    t0 = time.perf_counter()
    est.predict(X_test)
    t_pred = time.perf_counter() - t0
    return t_fit, t_pred


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=5000)
    parser.add_argument("--d", type=int, default=10)
    parser.add_argument("--M", type=int, default=100)
    parser.add_argument("--n-test", type=int, default=1000)
    parser.add_argument("--n-large", type=int, default=100_000)
    parser.add_argument("--n-frequencies", type=int, default=2000, help="D of the approximate sampler")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.quick:
        args.n, args.n_large = 1000, 10_000
    rng = np.random.default_rng(args.seed)
    X, y = _data(args.n, args.d, rng)
    X_test, _ = _data(args.n_test, args.d, rng)
    common = dict(epsilon=1.0, delta=1e-5, bandwidth=1.0, n_components=args.M, lam=1e-2, random_state=args.seed)

    # warm-up (BLAS threads, imports) outside the timers
    DPRandomFeatureKRR(**common).fit(X[:200], y[:200]).predict(X_test[:10])
    DPRandomProjectionKRR(sampler="exact", **common).fit(X[:200], y[:200]).predict(X_test[:10])

    rows = []
    rows.append(("RFF (Alg. 3)", args.n, *_time(DPRandomFeatureKRR(**common), X, y, X_test)))
    rows.append(("RP exact (Alg. 1)", args.n, *_time(DPRandomProjectionKRR(sampler="exact", **common), X, y, X_test)))
    rows.append(
        (
            f"RP approx D={args.n_frequencies} (Alg. 1)",
            args.n,
            *_time(
                DPRandomProjectionKRR(sampler="approximate", n_frequencies=args.n_frequencies, **common), X, y, X_test
            ),
        )
    )
    X_big, y_big = _data(args.n_large, args.d, rng)
    rows.append(
        (
            f"RP approx D={args.n_frequencies} (Alg. 1)",
            args.n_large,
            *_time(
                DPRandomProjectionKRR(sampler="approximate", n_frequencies=args.n_frequencies, **common),
                X_big,
                y_big,
                X_test,
            ),
        )
    )
    rows.append(("RFF (Alg. 3)", args.n_large, *_time(DPRandomFeatureKRR(**common), X_big, y_big, X_test)))

    ref = rows[0][2]
    print(f"fastmix {__version__} | numpy {np.__version__} | {platform.processor() or platform.machine()}")
    print(f"d = {args.d}, M = {args.M}, n_test = {args.n_test}, one run each\n")
    print(f"{'method':<28} {'n':>7} {'fit [s]':>9} {'predict [s]':>12} {f'fit / RFF fit(n={args.n})':>22}")
    for name, n, t_fit, t_pred in rows:
        print(f"{name:<28} {n:>7} {t_fit:>9.3f} {t_pred:>12.3f} {t_fit / ref:>22.1f}")
    _exact_overhead(X, y, common)


def _exact_overhead(X, y, common, repeats: int = 3):
    """Exact RP fit against its core (kernel matrix + in-place Cholesky), and its peak memory.

    Each of the three timings is the best of ``repeats`` in this one run, so a stray page-fault
    storm or a busy neighbour does not decide the ratio.
    """
    n = X.shape[0]
    t_kernel = t_chol = t_fit = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        K = GaussianKernel(common["bandwidth"])(X)
        t_kernel = min(t_kernel, time.perf_counter() - t0)
        K[np.diag_indices(n)] += 1e-10
        t0 = time.perf_counter()  # the bare LAPACK factorisation, in place (K is symmetric and C-ordered: use K.T)
        _, info = linalg.lapack.dpotrf(K.T, lower=False, overwrite_a=True, clean=False)
        t_chol = min(t_chol, time.perf_counter() - t0)
        assert info == 0, f"potrf failed ({info})"
        del K
        t0 = time.perf_counter()
        DPRandomProjectionKRR(sampler="exact", **common).fit(X, y)
        t_fit = min(t_fit, time.perf_counter() - t0)
    tracemalloc.start()
    DPRandomProjectionKRR(sampler="exact", **common).fit(X, y)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(
        f"\nexact RP fit at n = {n}: {t_fit:.3f} s; kernel matrix {t_kernel:.3f} s + Cholesky {t_chol:.3f} s "
        f"= {t_kernel + t_chol:.3f} s (best of {repeats} each); ratio {t_fit / (t_kernel + t_chol):.2f} "
        "(target <= 1.15)"
    )
    print(f"peak traced memory of the fit: {peak / (8.0 * n * n):.2f} n x n float64 arrays (target <= 2)")


if __name__ == "__main__":
    main()
