"""Benchmark: the Walsh-Hadamard transform, the SRHT and one FastMix draw at the paper's shape.

Run from the repository root:

    python benchmarks/bench_transforms.py            # n = 2^19, d = 32, float64
    python benchmarks/bench_transforms.py --quick    # n = 2^16 for a fast look

Everything is timed in one run on the same machine; the script reports ratios to one raw
single-thread ``fht_cpu.fht`` call on the same (d, n) buffer, so the numbers travel across
machines better than seconds do. Each timing is the minimum CPU time (``time.process_time``)
over ``--repeats`` runs (the buffer is refilled outside the timer). The floor of one FastMix
draw is one read of X, two raw passes over the (d, n) batch and one length-n transform (the
coherence, eq. 123); the draw is reported over that floor. Peak memory of a FastMix draw is
measured with tracemalloc (NumPy reports its allocations to it) and expressed in copies of X.

Targets: package transform <= 1.2x raw; SRHT apply and the exact
m_hat + Delta_hat + lambda_min computation each <= 3x raw; FastMix peak memory about <= 3 X.
"""

from __future__ import annotations

import argparse
import platform
import time
import tracemalloc

import numpy as np

from fastmix import __version__
from fastmix._validation import check_matrix
from fastmix.hadamard import available_backends, fwht
from fastmix.srht import SRHT, sketch_quantities


def _min_time(fn, reset, repeats):
    best = np.inf
    for _ in range(repeats):
        reset()
        t0 = time.process_time()
        fn()
        best = min(best, time.process_time() - t0)
    return best


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--log2n", type=int, default=19)
    parser.add_argument("--d", type=int, default=32)
    parser.add_argument("--k", type=int, default=25600, help="SRHT rows (default 25600 = 800 * 32)")
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--quick", action="store_true", help="n = 2^16, k = 3200")
    args = parser.parse_args(argv)
    if args.quick:
        args.log2n, args.k = 16, 3200
    n, d, k = 2**args.log2n, args.d, args.k

    rng = np.random.default_rng(0)
    X = np.asfortranarray(rng.standard_normal((n, d)))
    X /= np.linalg.norm(X, axis=1).max()
    XT = X.T  # C-contiguous (d, n) view: the transform layout
    buf = np.empty_like(XT)

    def refill():
        buf[...] = XT

    print(f"fastmix {__version__} | numpy {np.__version__} | {platform.machine()} | backends {available_backends()}")
    print(f"n = 2^{args.log2n} = {n}, d = {d}, k = {k}, float64, min of {args.repeats} runs\n")

    rows = []
    if "fht-cpu" not in available_backends():
        print("fht-cpu is not installed: ratios are relative to the NumPy backend.")
        raw_fn = lambda: fwht(buf, normalized=False, backend="numpy", inplace=True)  # noqa: E731
    else:
        import fht_cpu

        raw_fn = lambda: fht_cpu.fht(buf, axis=-1, inplace=True, num_threads=1)  # noqa: E731
    raw = _min_time(raw_fn, refill, args.repeats)
    rows.append(("raw fht_cpu.fht of the d columns (reference)", raw, None))
    vec = np.ones(n)
    t_read = _min_time(lambda: np.add.reduce(XT, axis=None), lambda: None, args.repeats)
    t_vec = _min_time(lambda: fwht(vec, normalized=False, inplace=True), lambda: vec.fill(1.0), args.repeats)
    floor = t_read + 2 * raw + t_vec
    rows.append(("one read of X (sum over the batch)", t_read, None))
    rows.append(("floor of one draw: read + 2 raw passes + length-n transform", floor, None))

    t = _min_time(lambda: fwht(buf, inplace=True), refill, args.repeats)
    rows.append(("fastmix.hadamard.fwht, orthonormal, all d columns", t, 1.2))

    S = SRHT(n, k, random_state=1)
    t_apply = _min_time(lambda: S.apply(X), lambda: None, args.repeats)
    rows.append((f"SRHT apply S_f X (k = {k})", t_apply, 3.0))

    # the computation proper, on data validated once (as FastMix does); validation timed apart
    t_q = _min_time(lambda: sketch_quantities(X, S, check_input=False), lambda: None, args.repeats)
    rows.append(("Z + m_hat + Delta_hat + lambda_min (one blocked pass)", t_q, None))
    rows.append(("m_hat + Delta_hat + lambda_min (the above minus the apply)", t_q - t_apply, 3.0))
    t_v = _min_time(lambda: check_matrix(X), lambda: None, args.repeats)
    rows.append(("input validation of X (finite check), once per call", t_v, None))

    t_np = _min_time(lambda: fwht(buf, backend="numpy", inplace=True), refill, max(1, args.repeats // 2))
    rows.append(("NumPy fallback fwht (for the record)", t_np, None))

    width = max(len(r[0]) for r in rows)
    print(f"{'operation':<{width}}  {'ms':>9}  {'x raw':>7}  target")
    for name, sec, target in rows:
        ratio = sec / raw
        verdict = "" if target is None else (f"<= {target:g}  {'ok' if ratio <= target else 'MISSED'}")
        print(f"{name:<{width}}  {1e3 * sec:9.2f}  {ratio:7.2f}  {verdict}")

    # ---- peak memory of one FastMix draw
    try:
        from fastmix.mechanisms import calibrate_fast_mix, fast_mix
    except ImportError as exc:  # pragma: no cover
        print(f"\nFastMix memory: skipped ({exc})")
        return
    cal = calibrate_fast_mix(1.0, 1.0 / n**2, k1=6 * d)
    tracemalloc.start()
    tracemalloc.reset_peak()
    t0 = time.perf_counter()
    rel = fast_mix(X, cal, k2=k, random_state=2)
    t_fm = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(
        f"\nOne FastMix draw (k1 = {cal.k1}, k2 = {k}): {1e3 * t_fm:.1f} ms = {t_fm / raw:.2f} x raw transform; "
        f"peak extra memory {peak / 2**20:.0f} MiB = {peak / X.nbytes:.2f} copies of X "
        f"(X itself: {X.nbytes / 2**20:.0f} MiB; target: total about <= 3 copies incl. X)"
    )
    print(
        f"  m_hat = {rel.m_hat:.3f}, Delta_hat = {rel.delta_hat:.4f}, lambda_min(Z) = {rel.lambda_min:.2f}, "
        f"eta_tilde = {rel.eta_tilde:.2f}"
    )
    t_expl = _min_time(lambda: fast_mix(X, cal, k2=k, random_state=2), lambda: None, args.repeats)
    t_gram = _min_time(lambda: fast_mix(X, cal, k2=k, random_state=2, gaussian_step="gram"), lambda: None, args.repeats)
    print(
        f"  FastMix draw, min of {args.repeats}: explicit S_G Z {1e3 * t_expl:.1f} ms = {t_expl / floor:.2f} x floor; "
        f"Gram-factor Gaussian step (same law) {1e3 * t_gram:.1f} ms = {t_gram / floor:.2f} x floor "
        f"(floor {1e3 * floor:.1f} ms)"
    )


if __name__ == "__main__":
    main()
