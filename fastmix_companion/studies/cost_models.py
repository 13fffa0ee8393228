"""Cost models of the studies: peak memory and duration of a run, estimated from its parameters.

``python -m fastmix_companion.run`` asks a study's ``cost_model(params)`` for a
:class:`fastmix_companion.cli_checks.RunCost` before it starts a run
(:func:`fastmix_companion.cli_checks.check_run_cost`): a run whose memory estimate exceeds the
memory available is refused, one estimated at over an hour needs ``--yes``. Each study module
calls its model here (passing the helpers of its own that the model needs), and
:data:`fastmix_companion.studies.NOTEBOOK_COST_MODELS` names the models of notebooks without a study.

How the estimates are made
--------------------------
Memory is the largest set of arrays a run holds at once (``n x d`` float64 data and its
copies, the row blocks of a dense Gaussian sketch, ``n_draws`` or ``n_releases`` rows of
results), plus :data:`BASE_BYTES` for the interpreter and its imports.

Time is ``overhead + constant x work``: ``work`` counts the run's dominant operations from its
parameters, and the two constants of each study were measured once on the machine that holds
the stored results (2 cores, 23 GiB, one BLAS thread): the constant from the stored paper-scale
run (``wall_time_seconds`` of ``results/<notebook>/provenance.json``, the sum of its sittings)
divided by the work at the parameters of ``notebooks/paper_scale.json``; the overhead (imports,
data loading, a Dask cluster's start) from a run at the notebook's defaults, timed on the same
machine. The regression studies count work in seconds of one solve, from the per-solve times
``results/regime_map/runs.csv`` stores (:func:`solve_seconds`), so their constant is near 1.
Estimates aim at a factor of about 3 (time) and 2 (memory) at those two settings; far from
them they are rough, which is all that is needed to refuse an absurd run before it starts.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from fastmix_companion.cli_checks import RunCost

__all__ = [
    "BASE_BYTES",
    "solve_seconds",
    "solve_bytes",
    "appendix_f_cost",
    "appendix_i_cost",
    "appendix_j_cost",
    "beyond_one_machine_cost",
    "figure1_cost",
    "figure2_cost",
    "figure3_cost",
    "kernel_rates_cost",
    "kernel_rp_vs_rff_cost",
    "privacy_audit_cost",
    "regime_map_cost",
    "section3_cost",
    "solver_choice_cost",
    "hello_fastmix_cost",
]

#: Resident memory of the interpreter with numpy, scipy, pandas and the package imported
#: (a run's maximum resident set at the smallest settings is 130-260 MiB on the measuring machine).
BASE_BYTES = 140 * 2**20

_F8 = 8  # bytes of a float64


def _ints(text: Any) -> list[int]:
    from fastmix_companion.studies import split_values

    return [int(float(v)) for v in split_values(text, str)]


def _floats(text: Any) -> list[float]:
    from fastmix_companion.studies import split_values

    return [float(v) for v in split_values(text, str)]


def _words(text: Any) -> list[str]:
    from fastmix_companion.studies import split_values

    return [str(v).strip() for v in split_values(text, str) if str(v).strip()]


def _g(x: float) -> str:
    return f"{x:.3g}"


def _cost(memory: float, seconds: float, note: str) -> RunCost:
    return RunCost(memory_bytes=float(BASE_BYTES + memory), seconds=float(seconds), note=note)


# --------------------------------------------------------------------------- one regression solve


def _k1(n: int, d: int, T: int) -> int:
    """FastIHM's Gaussian rows (IHM's k) at the paper's rho = 1/(10 n^2) (Appendix H)."""
    rho = 0.1 / float(n) ** 2
    return math.ceil(6.0 * max(float(d), math.log(4.0 * T / rho)) - 1e-9)


def _k2(n: int, d: int, T: int, ratio: float) -> int:
    rho = 0.1 / float(n) ** 2
    return min(n, math.ceil(ratio * max(float(d), math.log(4.0 * T / rho)) - 1e-9))


def solve_seconds(method: str, n: int, d: int, *, T: int = 4, k2: int = 0) -> float:
    """Seconds of one solve on one core, fitted to ``results/regime_map/runs.csv`` (T = 4).

    With ``k1`` the paper's Gaussian rows (:func:`fastmix.regression.paper_sketch_sizes`)::

        IHM dense  T k1 n (1e-8 + 3.5e-11 d)          (k1 n normal draws and a k1 x n x d GEMM per step)
        IHM gram   n d (2.5e-9 + 3e-11 d)             (the Gram matrix and its factor)
        AdaSSP     n d (1.5e-9 + 1.5e-11 d)
        OLS        n d 4e-8 d / (d + 30)
        FastIHS    n d (4e-9 + 3e-10 log2 n) T / 4
        FastIHM    n d (1.2e-8 + 5e-10 log2 n) + T k1 k2 (1e-8 + 3.5e-11 d)

    These reproduce the stored medians over n = 2^14 ... 2^22 (d = 32) and d = 8 ... 512
    (n = 2^17) within a factor of 2 (FastIHM at r = 800 and d = 512: 1.6).
    """
    k1 = _k1(n, d, T)
    lg = math.log2(max(n, 2))
    nd = float(n) * d
    if method == "IHM dense":
        return T * k1 * float(n) * (1e-8 + 3.5e-11 * d)
    if method == "IHM gram":
        return nd * (2.5e-9 + 3e-11 * d)
    if method == "AdaSSP":
        return nd * (1.5e-9 + 1.5e-11 * d)
    if method == "OLS":
        return nd * 4e-8 * d / (d + 30.0)
    if method == "FastIHS":
        return nd * (4e-9 + 3e-10 * lg) * T / 4.0
    if method == "FastIHM":
        return nd * (1.2e-8 + 5e-10 * lg) + T * k1 * float(k2) * (1e-8 + 3.5e-11 * d)
    raise ValueError(f"unknown method {method!r}")


def solve_bytes(method: str, n: int, d: int, *, T: int = 4, k2: int = 0) -> float:
    """Peak bytes one solve allocates beside its data, fitted to ``peak_bytes`` of ``results/regime_map/runs.csv``.

    FastIHM: ``48 n + 6 k1 k2 + 16 k2 d`` (the k1 x k2 Gaussian sketch of the SRHT rows);
    dense IHM: ``min(8 n d, 8 * 2^14 k1) + 17 n`` (the row blocks of the Gaussian sketch,
    :func:`fastmix.regression.gaussian_sketch_blocked`); the others ``17 n + 8 d^2``.
    """
    k1 = _k1(n, d, T)
    if method == "FastIHM":
        return 48.0 * n + 6.0 * k1 * k2 + 16.0 * k2 * d
    if method == "IHM dense":
        return min(8.0 * n * d, 8.0 * 2**14 * k1) + 17.0 * n
    return 17.0 * n + 8.0 * d * d


def _data_bytes(n: int, d: int) -> float:
    """A design held at once: X, its Fortran-ordered copy and what generating it needs (3 x 8 n d)."""
    return 3.0 * _F8 * float(n) * d


# --------------------------------------------------------------------------- the studies


def appendix_f_cost(params: Mapping[str, Any], *, k_grid: Callable, log2_ns: Callable) -> RunCost:
    """Appendix F: ``n_draws`` SRHT coherences (one length-n transform each) per ``(n, k)`` cell.

    Work ``W = n_draws (sum over cells of n log2 n + 3 * 2^17 * 17)``; seconds ``1.1 + 1.0e-9 W``
    (72.6 s stored at the paper's 2^12, 2^17, 2^20 and 100 draws, W = 7.1e10; 1.2 s at the defaults).
    Memory: five length-n vectors at the largest n, and the rows of the ``coherence`` table
    (about 600 bytes a row while a cell's rows are built, 150 bytes a row in the final tables).
    """
    draws, per = int(params["n_draws"]), int(params["k_per_octave"])
    sizes = log2_ns(params)
    cells = {lg: len(k_grid(2**lg, per)) for lg in sizes}
    work = draws * (sum(c * 2**lg * lg for lg, c in cells.items()) + 3 * 2**17 * 17)
    rows = draws * (sum(cells.values()) + 3)
    memory = 5.0 * _F8 * 2 ** max(sizes + [17]) + 600.0 * draws + 150.0 * rows
    return _cost(memory, 1.1 + 1.0e-9 * work, f"n_draws = {draws}: {rows:,} coherence rows")


def section3_cost(params: Mapping[str, Any], *, k2_values: Callable) -> RunCost:
    """Section 3: ``n_draws`` SRHT sketches of both 2^log2_n x d designs per k2 cell.

    Work ``W = 2 n_draws n_cells n d log2 n`` (each draw transforms X once); seconds
    ``9.9 + 2.14e-10 W`` (79.6 s stored at n = 2^19, d = 32, 30 draws and 17 cells, W = 3.3e11;
    9.9 s at the defaults, nearly all of it the tiny accounting of Theorem 1). Memory: the design, its transform layout
    and a transformed copy (5 x 8 n d), plus the largest sketch (8 k2 d).
    """
    n, d, draws = 2 ** int(params["log2_n"]), int(params["d"]), int(params["n_draws"])
    cells = len(k2_values(params))
    work = 2.0 * draws * cells * n * d * math.log2(n)
    memory = 5.0 * _F8 * n * d + _F8 * n * d
    return _cost(memory, 9.9 + 2.14e-10 * work, f"log2_n = {params['log2_n']}, d = {d}: the {n:,} x {d} designs")


def figure1_cost(params: Mapping[str, Any]) -> RunCost:
    """Figure 1: noise scales on ``n_eps`` targets for six n; seconds ``8 + 0.01 n_eps`` (8.7 s stored at 61).

    Memory: the curves table (8 curves x 6 n x n_eps rows of about 400 bytes).
    """
    n_eps = int(params["n_eps"])
    return _cost(48.0 * 400 * n_eps, 8.0 + 0.01 * n_eps, f"n_eps = {n_eps}")


def appendix_j_cost(params: Mapping[str, Any]) -> RunCost:
    """Appendix J: statistics of every offline dataset and of 2 x n_seeds regenerated designs.

    Work ``W = n d^2 (2 + 2 n_seeds n_s/n)`` with n = 2^log2_n and n_s = 2^spread_log2_n;
    seconds ``7.7 + 1.8e-9 W`` (106.7 s stored at 2^19 x 32 and 50 seeds, W = 5.5e10; 7.9 s at
    the defaults, mostly loading the stored data sets). Memory: the larger design three times.
    """
    n, ns, d, seeds = (
        2 ** int(params["log2_n"]),
        2 ** int(params["spread_log2_n"]),
        int(params["d"]),
        int(params["n_seeds"]),
    )
    work = float(n) * d * d * 2 + 2.0 * seeds * ns * d * d
    return _cost(_data_bytes(max(n, ns), d), 7.7 + 1.8e-9 * work, f"log2_n = {params['log2_n']}, d = {d}")


def privacy_audit_cost(params: Mapping[str, Any]) -> RunCost:
    """The privacy audit: an exact worst-neighbour search, a row optimised from ``n_starts`` starts, an attack.

    Work ``R = n_releases k1 d / 80`` (releases scored, scaled by the size of one);
    seconds ``25 + 3.6e-5 R`` (169.9 s stored at k1 = 10, d = 8 and 4e6 releases, 29.9 s at
    the defaults' 4e5 releases and d = 4: the search and the optimisation take about 25 s at
    both). Memory: the scores, 48 bytes a release
    (both hypotheses, and the sorted copies that find the thresholds), and the dense SRHT.
    """
    n, d, k2, k1 = int(params["n"]), int(params["d"]), int(params["k2"]), int(params["k1"])
    m = int(params["n_releases"])
    work = m * k1 * d / 80.0
    memory = 48.0 * m + _F8 * (k2 * n + 4 * n * d) + 8.0 * 4096 * k1 * d
    return _cost(memory, 25.0 + 3.6e-5 * work, f"n_releases = {m:,}: {2 * m:,} attack scores")


def kernel_rates_cost(params: Mapping[str, Any]) -> RunCost:
    """Kernel rates: per point of both sweeps and repetition, exact Gaussian-process paths on n + n_test points.

    With ``N = n + n_test``, work ``W = n_reps sum over points of N^2`` (the paths on the N x N
    kernel matrix); seconds ``3.5 + 3.3e-8 W`` (223.7 s stored: n up to 4000, 100
    repetitions, W = 6.8e9; 3.8 s at the defaults). Memory: the kernel matrix and its factor,
    3 x 8 N^2, plus N x M features.
    """
    nt, reps = int(params["n_test"]), int(params["n_reps"])
    ns = _ints(params["n_values"]) + [int(params["n_fixed"])] * len(_floats(params["eps_values"]))
    big = max(ns) + nt
    work = reps * sum(float(n + nt) ** 2 for n in ns)
    memory = 3.0 * _F8 * big * big + 2.0 * _F8 * big * int(params["max_components"])
    return _cost(memory, 3.5 + 3.3e-8 * work, f"n_values up to {max(ns):,}: the {big:,} x {big:,} kernel matrix")


def kernel_rp_vs_rff_cost(params: Mapping[str, Any]) -> RunCost:
    """Kernel RP vs RFF: per panel and repetition, both feature maps up to M_max, each epsilon's three protocols.

    With ``N = n_train + n_val + n_test`` and ``M`` the largest of ``m_grid`` and ``sel_m_grid``,
    the panels (dims x targets, plus the diabetes data) each cost per repetition
    ``N^3 + N M^2 + (1 + n_eps) (n_M + n_sel) (M^3 + N M) n_lam / 4`` units (the Gaussian-process
    paths, the features' statistics, a ridge path per M and epsilon); seconds ``2.4 + 1.42e-11 W``
    (4411 s stored: W = 3.1e14; 2.4 s at the defaults). Memory: 3 x 8 N^2 for the paths, 2 x 8 N M features per method.
    """
    N = int(params["n_train"]) + int(params["n_val"]) + int(params["n_test"])
    ms, sel = _ints(params["m_grid"]), _ints(params["sel_m_grid"])
    M = max(ms + sel)
    n_lam, n_eps = len(_floats(params["lam_grid"])), len(_floats(params["epsilons"]))
    panels = len(_ints(params["dims"])) * len(_words(params["targets"])) + (1 if params.get("real_data") else 0)
    ridge = sum(float(m) ** 3 + float(N) * m * m for m in ms + sel) * n_lam / 4.0
    per_rep = float(N) ** 3 + float(N) * M * M + (1 + n_eps) * ridge * 2
    work = int(params["n_reps"]) * panels * per_rep
    memory = 3.0 * _F8 * N * N + 4.0 * _F8 * N * M
    return _cost(memory, 2.4 + 1.42e-11 * work, f"n_train = {params['n_train']}, n_reps = {params['n_reps']}")


def _regression(solves: list[tuple[str, int, int, int, int, int]], constant: float, overhead: float):
    """Seconds and largest solve's bytes of ``(method, n, d, T, k2, count)`` solves."""
    seconds = overhead + constant * sum(c * solve_seconds(m, n, d, T=T, k2=k2) for m, n, d, T, k2, c in solves)
    memory = max((_data_bytes(n, d) + solve_bytes(m, n, d, T=T, k2=k2) for m, n, d, T, k2, _ in solves), default=0.0)
    return seconds, memory


def figure2_cost(params: Mapping[str, Any], *, dataset_ratios: Callable) -> RunCost:
    """Figure 2: FastIHS, IHM at every epsilon (plus one dense check), FastIHM at every epsilon and ratio, per data set.

    Seconds ``31 + 2.15 x`` the sum of :func:`solve_seconds` over the solves (``trials`` each):
    2116 s stored (2^19 x 32, T = 4, ratios 4/400/800, 30 trials; the sum is 970 s), 40 s at
    the defaults (sum 4.4 s; the overhead is mostly loading nycflights). nycflights has 328,521 x 4 rows
    (``nycflights_rows`` of them if set);
    the paper's other data sets are skipped when absent and not counted.
    """
    n, d, T, trials = 2 ** int(params["log2_n"]), int(params["d"]), int(params["T"]), int(params["trials"])
    eps = _floats(params["epsilons"])
    solves = []
    for name in _words(params["datasets"]):
        if name.startswith("synthetic"):
            nn, dd = n, d
        elif name == "nycflights":
            rows = int(params["nycflights_rows"])
            nn, dd = (min(rows, 328521) if rows > 0 else 328521), 4
        else:
            continue
        ihm = "IHM gram" if params["ihm_sketch"] == "gram" else "IHM dense"
        solves.append(("FastIHS", nn, dd, T, 0, trials))
        solves.append((ihm, nn, dd, T, 0, trials * len(eps)))
        if params["ihm_sketch"] != "dense" and float(params["dense_check_epsilon"] or 0):
            solves.append(("IHM dense", nn, dd, T, 0, trials))
        for r in dataset_ratios(name, params):
            solves.append(("FastIHM", nn, dd, T, _k2(nn, dd, T, r), trials * len(eps)))
    seconds, memory = _regression(solves, 2.15, 31.0)
    return _cost(memory, seconds, f"log2_n = {params['log2_n']}, d = {d}, trials = {trials}")


def _figure3_shapes(text: Any) -> list[tuple[int, int]]:
    """``"19x32,17x81"`` -> ``[(19, 32), (17, 81)]`` (Figure 3's ``shapes``: log2 n x d)."""
    out = []
    for item in _words(text):
        a, b = item.lower().split("x")
        out.append((int(a), int(b)))
    return out


def figure3_cost(params: Mapping[str, Any], *, paper_ratios: Callable) -> RunCost:
    """Figure 3: per shape, FastIHS, then per epsilon dense IHM, Gram IHM and FastIHM at each ratio.

    Seconds ``34 + 1.79 x`` the sum of :func:`solve_seconds` (2354 s stored: four shapes,
    six epsilons, 10 trials; the sum is 1294 s, most of it dense IHM; 58 s at the defaults,
    sum 13.6 s). ``k2_ratios``
    ``auto`` takes the paper's three ratios (4, 400, 800) of :func:`fastmix_companion.studies.figure3.paper_ratios`.
    Memory: every shape's data is held to the end (3 x 8 n d each).
    """
    T, trials, eps = int(params["T"]), int(params["trials"]), _floats(params["epsilons"])
    solves, held = [], 0.0
    for log2_n, d in _figure3_shapes(params["shapes"]):
        n = 2**log2_n
        held += _data_bytes(n, d)
        solves.append(("FastIHS", n, d, T, 0, trials))
        solves.append(("IHM dense", n, d, T, 0, trials * len(eps)))
        solves.append(("IHM gram", n, d, T, 0, trials * len(eps)))
        for r in paper_ratios(n, d, params["k2_ratios"]):
            solves.append(("FastIHM", n, d, T, _k2(n, d, T, r), trials * len(eps)))
    seconds, memory = _regression(solves, 1.79, 34.0)
    return _cost(held + memory, seconds, f"shapes = {params['shapes']}, trials = {trials}")


def solver_choice_cost(params: Mapping[str, Any]) -> RunCost:
    """Solver choice: per shape n x d, OLS and FastIHS once, every private solver per epsilon (``trials`` each).

    Seconds ``7.9 + 1.13 x`` the sum of :func:`solve_seconds` (1589 s stored: n = 2^12 ... 2^18,
    d = 8, 32, 128, three epsilons, 10 trials; the sum is 1398 s; 8.5 s at the defaults). Dense IHM is left out
    above ``dense_ihm_max_log2_n``.
    """
    T, trials, eps = int(params["T"]), int(params["trials"]), _floats(params["epsilons"])
    ratio, top = float(params["k2_ratio"]), int(params["dense_ihm_max_log2_n"])
    solves = []
    for log2_n in _ints(params["log2_ns"]):
        for d in _ints(params["ds"]):
            n = 2**log2_n
            solves += [("OLS", n, d, T, 0, trials), ("FastIHS", n, d, T, 0, trials)]
            solves += [("FastIHM", n, d, T, _k2(n, d, T, ratio), trials * len(eps))]
            solves += [("IHM gram", n, d, T, 0, trials * len(eps)), ("AdaSSP", n, d, T, 0, trials * len(eps))]
            if log2_n <= top:
                solves.append(("IHM dense", n, d, T, 0, trials * len(eps)))
    seconds, memory = _regression(solves, 1.13, 7.9)
    return _cost(memory, seconds, f"log2_ns = {params['log2_ns']}, ds = {params['ds']}, trials = {trials}")


def regime_map_cost(params: Mapping[str, Any]) -> RunCost:
    """Regime map: every solver at each shape, ``repeats + 1`` timed solves (two where a solve takes over 20 s).

    Seconds ``3.6 + 1.01 x`` the sum of :func:`solve_seconds` (1400 s stored over n = 2^14 ... 2^22
    and d = 8 ... 512; the sum is 1381 s; 4.4 s at the defaults), with dense IHM skipped where one solve would
    take over ``dense_ihm_max_seconds``; each solve is also run once under a memory tracer,
    counted as two solves.
    """
    T, repeats = int(params["T"]), int(params["repeats"])
    limit, long_solve = float(params["dense_ihm_max_seconds"]), float(params["long_solve_seconds"])
    shapes = [(2**lg, int(params["n_sweep_d"])) for lg in _ints(params["log2_ns"])]
    shapes += [(2 ** int(params["d_sweep_log2_n"]), d) for d in _ints(params["ds"])]
    solves = []
    for n, d in shapes:
        series = [("FastIHM", _k2(n, d, T, 4.0)), ("FastIHM", _k2(n, d, T, 800.0)), ("IHM gram", 0)]
        series += [("AdaSSP", 0), ("FastIHS", 0), ("OLS", 0)]
        if solve_seconds("IHM dense", n, d, T=T) <= limit:
            series.append(("IHM dense", 0))
        for method, k2 in series:
            one = solve_seconds(method, n, d, T=T, k2=k2)
            count = 2 + (min(repeats, 2) if one > long_solve else repeats)
            solves.append((method, n, d, T, k2, count))
    seconds, memory = _regression(solves, 1.01, 3.6)
    return _cost(memory, seconds, f"log2_ns = {params['log2_ns']}, ds = {params['ds']}")


def appendix_i_cost(params: Mapping[str, Any]) -> RunCost:
    """Appendix I: FastIHS, IHM dense and Gram per epsilon, FastIHM per epsilon and ratio, then its diagnostics.

    The data: ``2^log2_n`` rows (``log2_n = 0``: nycflights' 328,521 rows subsampled to 2^18)
    of d = 4 columns (the airline file's 8 when present). Seconds ``20 + 1.94 x`` the sum of
    :func:`solve_seconds`, FastIHM counted twice (1015 s stored at 2^18 x 4, 30 trials; the
    sum is 514 s, most of it dense IHM; 39 s at the defaults, sum 10 s, the rest loading the data).
    """
    log2_n = int(params["log2_n"])
    n = 2**log2_n if log2_n > 0 else 2**18
    d = 8 if str(params["dataset"]) == "airline" else 4
    T, trials, eps = int(params["T"]), int(params["n_trials"]), _floats(params["epsilons"])
    solves = [("FastIHS", n, d, T, 0, trials)]
    solves += [("IHM dense", n, d, T, 0, trials * len(eps)), ("IHM gram", n, d, T, 0, trials * len(eps))]
    solves += [("FastIHM", n, d, T, _k2(n, d, T, r), 2 * trials * len(eps)) for r in _floats(params["k2_ratios"])]
    seconds, memory = _regression(solves, 1.94, 20.0)
    return _cost(memory, seconds, f"log2_n = {log2_n}: {n:,} x {d} rows, n_trials = {trials}")


def beyond_one_machine_cost(params: Mapping[str, Any]) -> RunCost:
    """Beyond one machine: in-memory and Dask solves at each n, then a Zarr store of 2^out_of_core_log2_n rows.

    Work ``W = sum over in-memory n of (repeats + 1) 2 s n d + n_ooc d (1 + s)`` with ``s`` the
    number of series, counted in rows x columns; seconds ``11 + 1.1e-7 W`` (3304 s stored:
    n = 2^20, 2^22, 2^24 and 2^27 out of core, d = 32, 5 repeats; W = 3.0e10; 11.4 s at the
    defaults, nearly all of it the cluster's start). Memory: the largest in-memory X and y three times (the array, the
    Dask workers' persisted copy, the solve's work space); out of core, each worker's chunks.
    """
    d, repeats = int(params["d"]), int(params["repeats"])
    series = len([s for s in _words(params["series"]) if s])
    ns = [2**lg for lg in _ints(params["log2_ns"])]
    ooc = int(params["out_of_core_log2_n"])
    work = sum((repeats + 1) * 2.0 * series * n * d for n in ns) + (2.0**ooc * d * (1 + series) if ooc else 0.0)
    chunk = 2 ** int(params["chunk_log2_rows"])
    memory = max([3.0 * _F8 * n * (d + 1) for n in ns] + [0.0]) + 4.0 * int(params["n_workers"]) * _F8 * chunk * d
    return _cost(memory, 11.0 + 1.1e-7 * work, f"log2_ns = {params['log2_ns']}, d = {d}")


def hello_fastmix_cost(params: Mapping[str, Any]) -> RunCost:
    """hello_fastmix: a length-n Gaussian vector, its Walsh-Hadamard transform and a plot of its n coefficients.

    Memory: about twelve float64 n-vectors at once (x, H x, H(H x), their difference and
    squares, and the plotted line's coordinates), 96 n bytes. Seconds: the kernel's start and
    the notebook's imports (about 6 s), plus ``3e-8 n log2 n`` for the transforms and ``1e-6 n`` to
    draw the n points.
    """
    n = int(params.get("n", 1024))
    seconds = 6.0 + 3e-8 * n * math.log2(max(n, 2)) + 1e-6 * n
    return _cost(96.0 * n, seconds, f"n = {n:,}: twelve length-n float64 vectors")


def own_table_cost(params: Mapping[str, Any]) -> RunCost:
    """The own-table page: per fraction, epsilon and trial, the linear front door, three kernel settings and the search.

    With ``n`` the training rows of a fraction (the table's 53,940 rows, or ``max_rows``, less the
    held-out share), the fits of one cell take about ``0.2 + 5e-5 n`` seconds (the random-feature
    learners' ``n M^2`` products at M up to 300 dominate, each fitted twice, alone and in the
    search); plus a few seconds to load the table. Memory: the encoded table and the largest
    feature matrix, ``8 n (d + 2 M)`` bytes with ``M = 300``.
    """
    rows = int(params["max_rows"]) or 53_940
    train = rows * (1.0 - float(params["test_share"]))
    fractions, epsilons = _floats(params["fractions"]), _floats(params["epsilons"])
    trials = int(params["trials"])
    seconds = 3.0 + sum(len(epsilons) * trials * (0.2 + 5e-5 * f * train) for f in fractions)
    memory = _F8 * rows * (30 + 2 * 300) + 2**27
    return _cost(memory, seconds, f"{len(fractions) * len(epsilons) * trials} cells of 5 learners at {train:,.0f} rows")
