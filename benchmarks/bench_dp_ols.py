"""Benchmark: OLS, FastIHS, IHM and FastIHM side by side (FastMix paper, Section 4.1, Figure 3).

Usage::

    python benchmarks/bench_dp_ols.py [--repeats 3] [--quick] [--epsilon 1.0] [--blas-threads N]

For each shape (n = 2^19, d = 32 with k2 ratios 4/400/800, and n = 2^17, d = 90 with ratios
4/100/200; --quick divides n by 16) it times every solver ``repeats`` times (median reported;
calibration outside the timer, as in the paper), prints the runtime ratio IHM / method next to
the paper's Figure 3 values, the excess empirical risk at one epsilon, the peak extra memory of
each solver (tracemalloc; NumPy reports its buffers to it) relative to the size of X, a
breakdown of FastIHM's time and the floor of each workload.

Floors (measured in the same run, single-thread CPU time, ``time.process_time``): one FastMix draw
needs at least one read of X, two raw ``fht_cpu`` passes over the (d, n) batch (the forward
transform and the adjoint of eq. 118) and the length-n coherence transform (eq. 123); one FastIHM
solve needs T such draws plus T gradient passes ``X^T clip(y - X theta)`` (two reads of X each).
Each FastMix / FastIHM variant is printed with its time over its floor, for the paper's explicit
Gaussian step and for the Gram-factor step of the same law. The thread section compares the wall
time of the package defaults (one thread in the hot path) with whole-batch threading.
The last line reads ``floor ratios: fastmix_draw=R fastihm_k2_128=R fastihm_k2_12800=R
fastihm_k2_25600=R`` (explicit Gaussian step, the default; n = 2^19, d = 32, or n / 16 with --quick).

IHM is timed twice: ``IHM`` draws the dense k x n Gaussian sketch in row blocks (the algorithm
as stated, what the paper compares against), ``IHM-gram`` draws ``G (X^T X)^{1/2}``, which has the
same distribution (each row of S X is N(0, X^T X)) and hence the same privacy, at O(n d^2).
Ratios are always relative to the dense IHM, as in the paper.

Data: rows uniform on the unit sphere, y = x^T theta0 + sqrt(0.1) z (Appendix H, "lambda_min = n/d"),
clipped to [-1, 1]; for the d = 90 shape the same generator (a stand-in for YearsMSD's shape).
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import sys
import time
import tracemalloc

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from fastmix import regression as R
from fastmix.hadamard import fwht, get_backend
from fastmix.mechanisms import calibrate_fast_mix, fast_mix, mix_sketch
from fastmix.srht import SRHT, sketch_quantities
from fastmix.threads import use_threads

FLOOR_K2 = (128, 12800, 25600)  # ratios 4, 400, 800 at d = 32

PAPER = {  # Figure 3: runtime of IHM / method
    (2**19, 32): {
        "label": "Synthetic lambda_min = n/d (n/d = 16384)",
        "FastIHS": 5.0,
        "FastIHM": (2.52, 2.26, 2.06),
        "ratios": (4, 400, 800),
    },
    (2**17, 90): {
        "label": "YearsMSD shape (n/d ~ 1456)",
        "FastIHS": 7.10,
        "FastIHM": (2.51, 1.70, 1.53),
        "ratios": (4, 100, 200),
    },
}


def sphere_data(n, d, seed=0):
    try:
        from fastmix.datasets import make_sphere_regression

        ds = make_sphere_regression(n=n, d=d, random_state=seed)
        X, y = ds.X, ds.y
    except Exception:
        rng = np.random.default_rng(seed)
        X = rng.standard_normal((n, d))
        X /= np.linalg.norm(X, axis=1, keepdims=True)
        th = rng.standard_normal(d)
        th /= np.linalg.norm(th)
        y = X @ th + math.sqrt(0.1) * rng.standard_normal(n)
    X = np.asarray(X, dtype=np.float64, order="F")
    norms = np.linalg.norm(X, axis=1)
    if norms.max() > 1.0:
        X = np.asfortranarray(X / norms.max())
    y = np.clip(np.asarray(y, dtype=np.float64), -1.0, 1.0)
    return X, y


def timed(fn, repeats):
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter_ns()
        out = fn()
        times.append((time.perf_counter_ns() - t0) * 1e-9)
    return float(np.median(times)), out


def peak_memory(fn):
    tracemalloc.start()
    tracemalloc.reset_peak()
    fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def fastihm_breakdown(X, y, cal, k2, seed=0):
    """Time the parts of one FastIHM run (the same steps as fastmix.regression.fast_ihm).

    ``sketch_quantities`` is the fused per-draw pass of fastmix.srht: sign flip, forward
    transform, row sampling, adjoint transform for m_hat, column norms, the length-n coherence
    transform and the SVD for lambda_min. For comparison, the forward transform + sampling alone
    (what FastIHS needs) is timed on the same draws.
    """
    rng = np.random.default_rng(seed)
    n, d = X.shape
    parts = {
        "sketch_quantities (fwd+adj transforms, m_hat, coherence, SVD)": 0.0,
        "  [forward transform + sampling alone, for reference]": 0.0,
        "Laplace releases + eta (Algorithm 3 lines 7-10)": 0.0,
        "Gaussian step S_G X~ + eta xi": 0.0,
        "gradient X^T clip(.) + solve": 0.0,
    }
    theta = np.zeros(d)
    for _ in range(cal.T):
        S = SRHT(n, k2, random_state=rng)
        t0 = time.perf_counter()
        q = sketch_quantities(X, S)
        t1 = time.perf_counter()
        R._srht_sketch(X, S)
        t2 = time.perf_counter()
        z1, z2 = rng.laplace(size=2)
        m_t = max(0.0, q.m_hat + cal.omega * q.delta_hat * (cal.tau - z1))
        l_t = max(0.0, q.lambda_min - cal.omega * (1.0 + 2.0 * m_t) * (cal.tau - z2))
        eta = math.sqrt(max(0.0, cal.gamma * (1.0 + 2.0 * m_t) - l_t))
        t3 = time.perf_counter()
        Xh = mix_sketch(q.Z, eta, cal.k1, rng)
        t4 = time.perf_counter()
        H = Xh.T @ Xh / cal.k1
        g = R._clipped_gradient(X, y, theta, 1.0) + cal.sigma * rng.standard_normal(d)
        theta = theta + R._solve_spd(H, g)
        t5 = time.perf_counter()
        keys = list(parts)
        for key, dt in zip(keys, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4), strict=True):
            parts[key] += dt
    return parts


def raw_transform_time(X, T, repeats):
    XT = X.T

    def run():
        for _ in range(T):
            W = np.array(XT, order="C", copy=True)
            fwht(W, normalized=False, inplace=True)

    return timed(run, repeats)[0]


def cpu_median(fn, repeats, reset=None):
    """Median single-thread CPU time (``time.process_time``) of ``fn`` over ``repeats`` runs."""
    times = []
    for _ in range(repeats):
        if reset is not None:
            reset()
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return float(np.median(times))


def _floor_parts(X):
    """The raw operations of the floors, each a (run, reset) pair (see :func:`workload_floors`)."""
    import fht_cpu

    XT = X.T
    d, n = XT.shape
    buf = np.empty((d, n))
    vec = np.empty(n)
    return {
        "read": (lambda: np.add.reduce(XT, axis=None), None),
        "fht": (lambda: fht_cpu.fht(buf, axis=-1, inplace=True, num_threads=1), lambda: np.copyto(buf, XT)),
        "fht_n": (lambda: fht_cpu.fht(vec, inplace=True), lambda: vec.fill(1.0)),
    }


def _combine(parts, T):
    """Draw floor: one read of X, two raw passes over the (d, n) batch, one length-n transform.
    Solve floor: T draws and T gradient passes of two reads of X each."""
    draw = parts["read"] + 2 * parts["fht"] + parts["fht_n"]
    return {**parts, "draw": draw, "solve": T * draw + T * 2 * parts["read"]}


def workload_floors(X, T, repeats):
    """Floors of one FastMix draw and one FastIHM solve from raw operations timed here (CPU time)."""
    parts = {key: cpu_median(run, repeats, reset) for key, (run, reset) in _floor_parts(X).items()}
    return _combine(parts, T)


def time_against_floor(fn, X, T, repeats, floor_key):
    """Median CPU time of ``fn`` and of its floor, measured in alternation (one of each per repeat), so
    that a change in the load of the machine during the run affects both alike."""
    parts = _floor_parts(X)
    times, floors = [], []
    fn()  # warm-up
    for _ in range(repeats):
        measured = {}
        for key, (run, reset) in parts.items():
            measured[key] = cpu_median(run, 1, reset)
        floors.append(_combine(measured, T)[floor_key])
        times.append(cpu_median(fn, 1))
    return float(np.median(times)), float(np.median(floors))


def floor_section(X, y, T, k1, eps, repeats):
    """Time one FastMix draw and FastIHM solves against their floors; returns the ratios (explicit step)."""
    n, d = X.shape
    delta = 1.0 / n**2
    rho = delta / 10.0
    floors = workload_floors(X, T, repeats)
    print(
        f"\nFloors at n = {n}, d = {d}, T = {T} (single-thread CPU time, medians of {repeats}): read of X "
        f"{1e3 * floors['read']:.1f} ms, raw fht_cpu pass over (d, n) {1e3 * floors['fht']:.1f} ms, length-n "
        f"transform {1e3 * floors['fht_n']:.2f} ms -> draw {1e3 * floors['draw']:.1f} ms, solve "
        f"{1e3 * floors['solve']:.1f} ms"
    )
    print("Each time below is measured in alternation with its own floor (medians of the same repeats).")
    print(
        "The explicit step must also draw T k1 k2 standard normals (its matrix S_G), which the floor does not "
        "count; 'normals' is that draw alone (NumPy's Generator, single thread) and 'floor+N' the ratio to both."
    )
    cal_d = calibrate_fast_mix(eps, delta, k1=k1)
    cal_s = R.calibrate_fast_ihm(eps, delta, k1=k1, T=T, rho=rho)
    ratios = {}
    cols = ("explicit [ms]", "floor [ms]", "ratio", "normals [ms]", "floor+N", "gram [ms]", "floor [ms]", "ratio")
    widths = (14, 11, 7, 13, 9, 11, 11, 7)
    print(f"{'workload':<30}" + "".join(f"{c:>{w}}" for c, w in zip(cols, widths, strict=True)))
    gen = np.random.default_rng(0)
    rows = [("fastmix_draw", f"FastMix draw, k2 = {FLOOR_K2[0]}", "draw", None)]
    rows += [(f"fastihm_k2_{k2}", f"FastIHM solve, k2 = {k2}", "solve", k2) for k2 in FLOOR_K2]
    for key, label, floor_key, k2 in rows:
        line = f"{label:<30}"
        for step in ("explicit", "gram"):
            if k2 is None:
                fn = lambda step=step: fast_mix(X, cal_d, k2=FLOOR_K2[0], random_state=2, gaussian_step=step)  # noqa: E731
            else:
                fn = lambda step=step, k2=k2: R.fast_ihm(  # noqa: E731
                    X, y, calibration=cal_s, k2=min(k2, n), random_state=3, gaussian_step=step
                )
            t, floor = time_against_floor(fn, X, T, repeats, floor_key)
            if step == "explicit":
                ratios[key] = t / floor
                draws = 1 if k2 is None else T
                buf = np.empty(k1 * min(k2 or FLOOR_K2[0], n))
                normals = draws * cpu_median(lambda buf=buf: gen.standard_normal(out=buf), repeats)
                line += (
                    f"{1e3 * t:>14.1f}{1e3 * floor:>11.1f}{t / floor:>7.2f}{1e3 * normals:>13.1f}"
                    f"{t / (floor + normals):>9.2f}"
                )
            else:
                line += f"{1e3 * t:>11.1f}{1e3 * floor:>11.1f}{t / floor:>7.2f}"
        print(line)
    for step in ("explicit", "gram"):
        peak = peak_memory(
            lambda step=step: R.fast_ihm(
                X, y, calibration=cal_s, k2=min(FLOOR_K2[-1], n), random_state=3, gaussian_step=step
            )
        )
        print(f"peak extra memory of a FastIHM solve (k2 = {FLOOR_K2[-1]}, {step} step): {peak / X.nbytes:.2f} |X|")
    return ratios


def thread_section(X, y, T, k1, eps, repeats):
    """Wall time with the package defaults (one thread in the hot path) and with every core."""
    from threadpoolctl import threadpool_limits

    n = X.shape[0]
    delta = 1.0 / n**2
    cal_d = calibrate_fast_mix(eps, delta, k1=k1)
    cal_s = R.calibrate_fast_ihm(eps, delta, k1=k1, T=T, rho=delta / 10.0)
    work = [
        (f"FastMix draw, k2 = {FLOOR_K2[0]}", lambda: fast_mix(X, cal_d, k2=FLOOR_K2[0], random_state=2)),
        (
            f"FastIHM solve, k2 = {FLOOR_K2[0]}",
            lambda: R.fast_ihm(X, y, calibration=cal_s, k2=FLOOR_K2[0], random_state=3),
        ),
    ]
    cores = os.cpu_count() or 1
    print(f"\nThreads (wall time, median of {repeats}; this machine has {cores} CPUs):")
    print(f"{'workload':<32}{'defaults (1 thread) [ms]':>26}{f'every core ({cores}) [ms]':>24}")
    for label, fn in work:
        fn()
        t_one = timed(fn, repeats)[0]
        with threadpool_limits(cores), use_threads(0):
            fn()
            t_all = timed(fn, repeats)[0]
        print(f"{label:<32}{1e3 * t_one:>26.1f}{1e3 * t_all:>24.1f}")


def bench_shape(n, d, ratios, eps, repeats, paper):
    X, y = sphere_data(n, d)
    T = 4
    delta = 1.0 / n**2
    rho = delta / 10.0
    k1 = R.paper_sketch_sizes(d, T, rho, 4)[0]
    theta_star = R.ols(X, y)
    ols_mse = R.training_mse(X, y, theta_star)
    print(
        f"\n=== n = {n} (2^{int(math.log2(n))}), d = {d}, T = {T}, k1 = k = {k1}, delta = 1/n^2, rho = delta/10, "
        f"eps = {eps:g} ==="
    )
    if paper:
        print(f"    paper row: {paper['label']}")
    cal_ihm = R.calibrate_ihm(eps, delta, k=k1, T=T, rho=rho)
    cal_f = R.calibrate_fast_ihm(eps, delta, k1=k1, T=T, rho=rho)
    runs = [
        ("OLS", lambda: R.ols(X, y)),
        ("FastIHS", lambda: R.fast_ihs(X, y, k=k1, T=T, random_state=1)),
        ("IHM", lambda: R.ihm(X, y, calibration=cal_ihm, k=k1, random_state=2)),
        ("IHM-gram", lambda: R.ihm(X, y, calibration=cal_ihm, k=k1, random_state=2, sketch="gram")),
    ]
    for r in ratios:
        k2 = min(R.paper_sketch_sizes(d, T, rho, r)[1], n)
        runs.append(
            (
                f"FastIHM r={r} (k2={k2})",
                lambda k2=k2: R.fast_ihm(X, y, calibration=cal_f, k1=k1, k2=k2, random_state=3),
            )
        )
    results = {}
    for name, fn in runs:
        fn()  # warm-up (page faults, BLAS threads)
        t, out = timed(fn, repeats)
        theta = getattr(out, "theta", out)  # a RegressionResult, or OLS's coefficient vector
        peak = peak_memory(fn)
        results[name] = (t, R.training_mse(X, y, theta) - ols_mse, peak)
    t_ihm = results["IHM"][0]
    xbytes = X.nbytes
    print(f"{'method':<28}{'time [s]':>10}{'IHM/method':>12}{'paper':>8}{'excess risk':>14}{'peak mem / |X|':>16}")
    for i, (name, (t, risk, peak)) in enumerate(results.items()):
        ref = ""
        if paper:
            if name == "FastIHS":
                ref = f"{paper['FastIHS']:.2f}"
            elif name.startswith("FastIHM"):
                ref = f"{paper['FastIHM'][i - 4]:.2f}"
        print(f"{name:<28}{t:>10.3f}{t_ihm / t:>12.2f}{ref:>8}{risk:>14.3e}{peak / xbytes:>16.2f}")
    t_raw = raw_transform_time(X, T, repeats)
    first = next(k for k in results if k.startswith("FastIHM"))
    print(
        f"T = {T} raw transforms of X (copy + FWHT, backend {get_backend()}): {t_raw:.3f} s; "
        f"{first} / that = {results[first][0] / t_raw:.2f}"
    )
    k2 = min(R.paper_sketch_sizes(d, T, rho, ratios[0])[1], n)
    parts = fastihm_breakdown(X, y, cal_f, k2)
    tot = sum(v for k, v in parts.items() if not k.startswith("  ["))
    print(f"FastIHM r={ratios[0]} breakdown (one run, {tot:.3f} s):")
    for k, v in parts.items():
        print(f"    {k:<64}{v:>8.3f} s  ({100 * v / tot:4.1f}%)")
    return results


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="n / 16")
    ap.add_argument("--floors-only", action="store_true", help="only the thread and floor sections")
    ap.add_argument("--epsilon", type=float, default=1.0)
    ap.add_argument(
        "--blas-threads",
        type=int,
        default=1,
        help="BLAS threads (threadpoolctl; default 1: multithreaded OpenBLAS spins badly on a shared machine; "
        "0 = leave as is)",
    )
    args = ap.parse_args(argv)
    print(
        f"fastmix DP-OLS benchmark | python {platform.python_version()} | numpy {np.__version__} | "
        f"{os.cpu_count()} CPUs | load average {os.getloadavg() if hasattr(os, 'getloadavg') else 'n/a'}"
    )
    ctx = None
    if args.blas_threads:
        from threadpoolctl import threadpool_limits

        ctx = threadpool_limits(args.blas_threads)
    print(
        f"BLAS threads: {args.blas_threads or 'library default'}; Walsh-Hadamard backend: {get_backend()}; "
        f"median of {args.repeats} repeats; calibration outside the timer"
    )
    shapes = [((2**19, 32), (4, 400, 800)), ((2**17, 90), (4, 100, 200))]
    all_res = {}
    for (n, d), ratios in shapes if not args.floors_only else ():
        paper = PAPER[(n, d)]
        if args.quick:
            n //= 16
            paper = None
        all_res[(n, d)] = bench_shape(n, d, ratios, args.epsilon, args.repeats, paper)
    if not args.quick and not args.floors_only:
        res = all_res[(2**19, 32)]
        t_ihm = res["IHM"][0]
        fihm = next(v for k, v in res.items() if k.startswith("FastIHM"))[0]
        print("\nTargets at n = 2^19, d = 32:")
        print(
            f"    FastIHM (smallest k2) >= 5x faster than IHM: {t_ihm / fihm:.2f}x -> "
            f"{'met' if t_ihm / fihm >= 5 else 'NOT met'}"
        )
        print(
            f"    FastIHS >= 10x faster than IHM: {t_ihm / res['FastIHS'][0]:.2f}x -> "
            f"{'met' if t_ihm / res['FastIHS'][0] >= 10 else 'NOT met'}"
        )
        print(
            f"    (IHM-gram, same mechanism in distribution: {t_ihm / res['IHM-gram'][0]:.2f}x faster than dense IHM, "
            f"{fihm / res['IHM-gram'][0]:.2f}x faster than FastIHM r=4)"
        )
    n, d = shapes[0][0]
    if args.quick:
        n //= 16
    X, y = sphere_data(n, d)
    T = 4
    k1 = R.paper_sketch_sizes(d, T, 1.0 / n**2 / 10.0, 4)[0]
    thread_section(X, y, T, k1, args.epsilon, args.repeats)
    ratios = floor_section(X, y, T, k1, args.epsilon, args.repeats)
    print(f"load average at end: {os.getloadavg() if hasattr(os, 'getloadavg') else 'n/a'}")
    if ctx is not None:
        ctx.restore_original_limits()
    print("floor ratios: " + " ".join(f"{key}={value:.2f}" for key, value in ratios.items()))


if __name__ == "__main__":
    main()
