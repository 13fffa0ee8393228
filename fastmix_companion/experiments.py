"""Experiment runner for Section 4.1 / Appendix H of the FastMix paper (arXiv:2605.30600).

:func:`run_grid` runs every combination dataset x method x epsilon x k2-ratio x trial and
returns one tidy :class:`pandas.DataFrame` row per run, with

* ``excess_risk`` - the paper's metric (Appendix H): ``(1/n)||y - X theta||^2`` minus the OLS
  training MSE, both on the original (un-padded, un-subsampled) rows;
* ``runtime_ns`` - :func:`time.perf_counter_ns` around the solver call only; calibration (which
  does not touch the data) is done before the timer starts, as in the authors' code. The timed
  call includes each solver's input validation (finiteness and row-norm checks, and zero-padding
  when n is not a power of two for the SRHT-based solvers);
* the seeds: every run's generator is ``SeedSequence(root_seed, spawn_key=(trial, cell_id))``
  where ``cell_id`` is a stable 32-bit hash of (dataset, method, epsilon, ratio). Seeds depend on
  what is run, not on the order of the grid, so adding a method does not change other results.
  The same trial of different methods uses different streams (IHM's dense and Gram sketches
  count as one method here, and share theirs: :func:`cell_id`);
* all parameters (k1, k2, T, delta, rho, C, calibration method, budget actually spent).

The settings every run of a call shares (trials, seed root, T, delta, rho, C, calibration, IHM
sketch, padding policy, FastIHM's ``m_floor`` and ``shared_eta``) are one :class:`GridSettings`,
checked once; :func:`run_grid` builds it from its keywords. The columns of the frame that the
studies store are named once, in :data:`RESULT_COLUMNS` (:data:`RUN_COLUMNS`, then
:data:`MEASURED_COLUMNS`); a study keeps its own with :func:`keep_result_columns`.

Results are cached on disk, one file per grid cell (all trials of one dataset/method/epsilon/
ratio), keyed by a SHA-256 of the parameters, a fingerprint of the data, ``fastmix.__version__``,
a fingerprint of every module that affects a result (:func:`code_fingerprint`), the NumPy, SciPy
and pandas versions, the transform backend and, because every row holds a runtime, the thread
pools and the machine (:func:`environment_fingerprint`). A cell is a JSON envelope (its key and
parameters, its number of rows and the SHA-256 of its rows file) and its rows as an ``.npz`` file,
never a pickle (:mod:`fastmix_companion.grid_cache`); on reading, a cell whose envelope is not
such an envelope or holds another cell's key, with the wrong number or order of trials, or rows
that do not match their digest is recomputed, with a warning (:class:`CacheMismatchWarning`).
Files are written to a temporary name and moved into place with :func:`os.replace`, so an
interrupted run leaves no partial file and a re-run resumes where it stopped. Runs sharing a cache
directory do not redo each other's cells: a cell is claimed (a ``.claim`` file naming the process)
while it is computed, the cache is checked again just before each cell, and a cell claimed by
another live process is taken from the cache once that process has written it (or computed here if
that process dies).
"""

from __future__ import annotations

import json
import math
import time
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from numbers import Integral
from pathlib import Path
from typing import Any

import numpy as np

from fastmix import __version__
from fastmix import regression as R
from fastmix._validation import check_delta, check_policy, check_positive, check_positive_int, check_probability
from fastmix.hadamard import is_power_of_two
from fastmix_companion.grid_cache import (
    CacheMismatchWarning,
    cache_key,
    cache_path,
    claim_cell,
    code_fingerprint,
    data_fingerprint,
    environment_fingerprint,
    read_cell,
    release_cell,
    write_cell,
)

__all__ = [
    "METHODS",
    "PAPER_EPSILONS",
    "paper_sketch_sizes",
    "code_fingerprint",
    "environment_fingerprint",
    "CacheMismatchWarning",
    "data_fingerprint",
    "cell_id",
    "GridSettings",
    "RUN_COLUMNS",
    "MEASURED_COLUMNS",
    "RESULT_COLUMNS",
    "result_columns",
    "keep_result_columns",
    "run_grid",
    "runtime_ratio_table",
    "speedup_table",
    "summarize",
]

METHODS = ("OLS", "FastIHS", "IHM", "FastIHM", "AdaSSP")
PAPER_EPSILONS = (0.316, 0.631, 1.259, 2.512, 5.012, 10.0)
"""The epsilon grid of the authors' script (the authors' public code)."""

paper_sketch_sizes = R.paper_sketch_sizes


@dataclass
class _Data:
    name: str
    X: np.ndarray
    y: np.ndarray
    fingerprint: str
    provenance: dict


def _resolve_datasets(datasets, dataset_kwargs) -> list[_Data]:
    """Accept a dict name -> (X, y) | Dataset | name, a list of names/Datasets/(name, X, y)."""
    if isinstance(datasets, (str, tuple)) or hasattr(datasets, "X"):
        datasets = [datasets]
    items = list(datasets.items()) if isinstance(datasets, dict) else [(None, d) for d in datasets]
    out = []
    for key, obj in items:
        if isinstance(obj, str):
            try:
                from fastmix.datasets import load_dataset
            except Exception as exc:  # pragma: no cover - soft dependency
                raise ImportError(f"Loading dataset {obj!r} by name needs fastmix.datasets: {exc}") from exc
            obj = load_dataset(obj, **(dataset_kwargs or {}).get(obj, {}))
        if hasattr(obj, "X") and hasattr(obj, "y"):
            name = key or getattr(obj, "name", "data")
            prov = obj.provenance() if hasattr(obj, "provenance") else {}
            X, y = obj.X, obj.y
        elif isinstance(obj, tuple) and len(obj) == 3:
            name, X, y = obj
            prov = {}
        elif isinstance(obj, tuple) and len(obj) == 2:
            if key is None:
                raise ValueError("Pass arrays as a dict {name: (X, y)} or as (name, X, y) tuples.")
            name, (X, y), prov = key, obj, {}
        else:
            raise TypeError(f"Cannot interpret dataset {obj!r}; pass a name, a Dataset, or (X, y) arrays.")
        X = np.asarray(X, dtype=np.float64, order="F")
        y = np.asarray(y, dtype=np.float64).reshape(-1)
        out.append(_Data(str(name), X, y, data_fingerprint(X, y), prov))
    names = [d.name for d in out]
    if len(set(names)) != len(names):
        raise ValueError(f"Dataset names must be unique; got {names}.")
    return out


def cell_id(*parts) -> int:
    """A stable 32-bit identifier of a grid cell: the CRC-32 of ``parts`` as sorted JSON.

    Seeds are ``SeedSequence(root_seed, spawn_key=(trial, cell_id(dataset, method, epsilon,
    k2_ratio)))``, so they depend on what is run, not on the order of the grid. IHM's dense
    and Gram sketches are one method here and share their streams.
    """
    return zlib.crc32(json.dumps(parts, sort_keys=True, default=str).encode()) & 0xFFFFFFFF


@dataclass(frozen=True)
class GridSettings:
    """What every run of one :func:`run_grid` call shares, checked once.

    The grid itself (datasets x methods x epsilon x ``k2`` ratio) is given to :func:`run_grid`;
    these are the settings of each run in it: how many trials, the seed root, and the
    parameters of Algorithm 2 (FastIHM), IHM and AdaSSP of the FastMix paper (arXiv:2605.30600)
    as run in its Section 4.1 / Appendix H. :func:`run_grid` builds one from its keywords.

    Parameters
    ----------
    n_trials : int, default=30
        Trials per grid cell, ``trial = 0, ..., n_trials - 1``.
    root_seed : int, default=0
        Root of every seed: trial ``t`` of a cell runs on
        ``SeedSequence(root_seed, spawn_key=(t, cell_id(dataset, method, epsilon, k2_ratio)))``
        (:func:`cell_id`).
    T : int, default=4
        Iterations T of FastIHM, IHM and FastIHS (Algorithm 2).
    delta : float, optional
        Privacy target delta in (0, 1); default ``1 / n^2`` for a dataset of n rows (Appendix H).
    rho : float, optional
        Utility failure probability rho in (0, 1); default ``delta / 10`` (Appendix H).
    clip : float, default=1.0
        Response bound and residual clipping level C (= C_Y), > 0.
    calibration : {"tight", "closed_form"}, default="tight"
        How FastIHM's noise is calibrated (:func:`fastmix.regression.calibrate_fast_ihm`).
    ihm_sketch : {"dense", "gram"}, default="dense"
        How IHM draws its sketch (:func:`fastmix.regression.ihm`).
    n_policy : {"pad", "subsample"}, default="pad"
        How n is brought to a power of two for the SRHT-based solvers.
    m_floor : float, default=0.0
        Lower clamp (>= 0) of FastIHM's ``m_tilde`` (:func:`fastmix.regression.fast_ihm`).
    shared_eta : bool, default=True
        FastIHM's ``shared_eta`` (:func:`fastmix.regression.fast_ihm`).

    Raises
    ------
    TypeError, ValueError
        On a setting outside the ranges above; the message shows the value given.

    Notes
    -----
    ``n_trials`` and ``T`` are stored as :class:`int`; every other value is stored as given
    (after its check): the name of a cell's cache file is a hash of these values as JSON
    (:func:`fastmix_companion.grid_cache.cache_key`), so converting, say, ``clip=1`` to ``1.0``
    would orphan the cells cached by earlier runs.
    """

    n_trials: int = 30
    root_seed: int = 0
    T: int = 4
    delta: float | None = None
    rho: float | None = None
    clip: float = 1.0
    calibration: str = "tight"
    ihm_sketch: str = "dense"
    n_policy: str = "pad"
    m_floor: float = 0.0
    shared_eta: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "n_trials", check_positive_int(self.n_trials, "n_trials"))
        object.__setattr__(self, "T", check_positive_int(self.T, "T"))
        seed = self.root_seed
        if isinstance(seed, bool) or not isinstance(seed, (Integral, np.integer)):
            raise TypeError(f"root_seed must be a non-negative integer; got {seed!r} of type {type(seed).__name__}.")
        if seed < 0:
            raise ValueError(f"root_seed must be a non-negative integer; got {seed!r}.")
        if self.delta is not None:
            check_delta(self.delta)
        if self.rho is not None:
            check_probability(self.rho, "rho")
        check_positive(self.clip, "clip")
        check_policy(self.calibration, "calibration", ("tight", "closed_form"))
        check_policy(self.ihm_sketch, "ihm_sketch", ("dense", "gram"))
        check_policy(self.n_policy, "n_policy", ("pad", "subsample"))
        check_positive(self.m_floor, "m_floor", allow_zero=True)
        if not isinstance(self.shared_eta, (bool, np.bool_)):
            raise TypeError(f"shared_eta must be True or False; got {self.shared_eta!r}.")

    def privacy_parameters(self, n: int) -> tuple[float, float]:
        """``(delta, rho)`` for a dataset of ``n`` rows: the given values, else ``1/n^2`` and ``delta/10``.

        These are the defaults of Appendix H of the FastMix paper.
        """
        delta = 1.0 / float(n) ** 2 if self.delta is None else float(self.delta)
        rho = delta / 10.0 if self.rho is None else float(self.rho)
        return delta, rho


def _cell_params(data: _Data, method: str, eps, ratio, settings: GridSettings, *, code: str, environment) -> dict:
    """What names one grid cell: its cache key is :func:`fastmix_companion.grid_cache.cache_key` of this.

    Cache files of earlier runs are found by this dictionary: a new key or a changed value
    makes every stored cell unreachable.
    """
    delta, rho = settings.privacy_parameters(data.X.shape[0])
    return {
        "dataset": data.name,
        "data": data.fingerprint,
        "method": method,
        "epsilon": eps,
        "k2_ratio": ratio,
        "delta": delta,
        "rho": rho,
        "T": settings.T,
        "clip": settings.clip,
        "calibration": settings.calibration if method == "FastIHM" else None,
        "ihm_sketch": settings.ihm_sketch if method == "IHM" else None,
        "n_policy": settings.n_policy,
        "m_floor": settings.m_floor if method == "FastIHM" else None,
        "shared_eta": settings.shared_eta if method == "FastIHM" else None,
        "n_trials": settings.n_trials,
        "root_seed": settings.root_seed,
        "version": __version__,
        "code": code,
        "environment": environment,
    }


def _run_one(data: _Data, params: dict, settings: GridSettings, *, seed_seq, theta_star, ols_mse):
    """One trial of the cell ``params``: calibrate (untimed), solve (timed), score on the original rows."""
    method, eps, ratio = params["method"], params["epsilon"], params["k2_ratio"]
    delta, rho = params["delta"], params["rho"]
    T, clip, n_policy = settings.T, settings.clip, settings.n_policy
    X, y = data.X, data.y
    n, d = data.X.shape
    k1, k2 = R.paper_sketch_sizes(d, T, rho, ratio if ratio is not None else 4.0)
    n_used = (
        n if is_power_of_two(n) else (1 << (n - 1).bit_length() if n_policy == "pad" else 1 << (n.bit_length() - 1))
    )
    rng = np.random.default_rng(seed_seq)
    row = {"k": np.nan, "k1": np.nan, "k2": np.nan}
    cal: Any  # the calibration of the private methods (each has its own type)
    if method == "OLS":
        t0 = time.perf_counter_ns()
        theta = R.ols(X, y)
        t1 = time.perf_counter_ns()
        res = None
    elif method == "FastIHS":
        k = min(k1, n_used)
        row["k"] = k
        t0 = time.perf_counter_ns()
        res = R.fast_ihs(X, y, k=k, T=T, random_state=rng, n_policy=n_policy)
        theta = res.theta
        t1 = time.perf_counter_ns()
    elif method == "IHM":
        row["k"] = k1
        cal = R.calibrate_ihm(eps, delta, k=k1, T=T, rho=rho, clip=clip)
        t0 = time.perf_counter_ns()
        res = R.ihm(X, y, calibration=cal, k=k1, random_state=rng, sketch=settings.ihm_sketch)
        theta = res.theta
        t1 = time.perf_counter_ns()
    elif method == "FastIHM":
        k2 = min(k2, n_used)
        row["k1"], row["k2"] = k1, k2
        cal = R.calibrate_fast_ihm(eps, delta, k1=k1, T=T, rho=rho, clip=clip, method=settings.calibration)
        t0 = time.perf_counter_ns()
        res = R.fast_ihm(
            X,
            y,
            calibration=cal,
            k1=k1,
            k2=k2,
            random_state=rng,
            n_policy=n_policy,
            m_floor=settings.m_floor,
            shared_eta=settings.shared_eta,
        )
        theta = res.theta
        t1 = time.perf_counter_ns()
    elif method == "AdaSSP":
        cal = R.calibrate_adassp(eps, delta, rho=rho, clip=clip)
        t0 = time.perf_counter_ns()
        res = R.adassp(X, y, calibration=cal, random_state=rng)
        theta = res.theta
        t1 = time.perf_counter_ns()
    else:
        raise ValueError(f"Unknown method {method!r}; choose from {METHODS}.")
    mse = R.training_mse(data.X, data.y, theta)
    row.update(
        {
            "mse": mse,
            "ols_mse": ols_mse,
            "excess_risk": mse - ols_mse,
            "theta_error": float(np.linalg.norm(theta - theta_star)),
            "runtime_ns": int(t1 - t0),
            "runtime_s": (t1 - t0) * 1e-9,
            "eps_spent": res.ledger.total_epsilon if res is not None and res.ledger is not None else np.nan,
            "delta_spent": res.ledger.total_delta if res is not None and res.ledger is not None else np.nan,
            "n_used": res.data.n_used if res is not None else n,
            "rows_added": res.data.rows_added if res is not None else 0,
            "rows_dropped": res.data.rows_dropped if res is not None else 0,
            "eta": res.diagnostics.get("eta", np.nan) if res is not None else np.nan,
        }
    )
    return row


def run_grid(
    datasets,
    methods=("FastIHS", "IHM", "FastIHM"),
    epsilons=PAPER_EPSILONS,
    k2_ratios=(4, 100, 200),
    n_trials: int = 30,
    *,
    root_seed: int = 0,
    T: int = 4,
    delta=None,
    rho=None,
    clip: float = 1.0,
    calibration: str = "tight",
    ihm_sketch: str = "dense",
    n_policy: str = "pad",
    m_floor: float = 0.0,
    shared_eta: bool = True,
    cache_dir=None,
    progress: bool | None = None,
    dataset_kwargs=None,
):
    """Run the grid and return a tidy DataFrame (one row per run).

    The settings shared by every run (``n_trials`` to ``shared_eta``) are checked once, as a
    :class:`GridSettings`, before anything is computed.

    Parameters
    ----------
    datasets : dict, list or str
        ``{name: (X, y)}``, ``[(name, X, y), ...]``, :class:`fastmix.datasets.Dataset` objects, or
        registry names resolved with ``fastmix.datasets.load_dataset(name, **dataset_kwargs[name])``.
        Data must already satisfy ``||x_i|| <= 1`` and ``|y_i| <= clip`` (the loaders normalise).
    methods : iterable of {"OLS", "FastIHS", "IHM", "FastIHM", "AdaSSP"}
        Non-private methods run once per trial (``epsilon`` NaN); only FastIHM loops over
        ``k2_ratios`` (others have ratio NaN).
    epsilons, k2_ratios, n_trials
        The grid (defaults: the authors' epsilon grid, ratios (4, 100, 200), 30 trials).
    root_seed : int
        Root of every seed (see module docstring); recorded in each row.
    T : int, default=4
    delta, rho : float, optional
        Default ``1/n^2`` and ``delta/10`` per dataset (Appendix H).
    clip : float, default=1.0
        C (= C_Y).
    calibration : {"tight", "closed_form"}
        FastIHM calibration.
    ihm_sketch : {"dense", "gram"}
        How IHM draws its sketch (see :func:`fastmix.regression.ihm`).
    n_policy : {"pad", "subsample"}
    m_floor : float, default=0.0
        FastIHM's lower clamp of ``m_tilde``.
    shared_eta : bool, default=True
        FastIHM's ``shared_eta``.
    cache_dir : path, optional
        Cache directory (no caching when None).
    progress : bool, optional
        tqdm progress bar; default on when more than 20 runs are to be computed.
    """
    import pandas as pd

    methods = tuple(methods)
    for m in methods:
        if m not in METHODS:
            raise ValueError(f"Unknown method {m!r}; choose from {METHODS}.")
    settings = GridSettings(
        n_trials=n_trials,
        root_seed=root_seed,
        T=T,
        delta=delta,
        rho=rho,
        clip=clip,
        calibration=calibration,
        ihm_sketch=ihm_sketch,
        n_policy=n_policy,
        m_floor=m_floor,
        shared_eta=shared_eta,
    )
    n_trials = settings.n_trials
    data_list = _resolve_datasets(datasets, dataset_kwargs)
    fp = code_fingerprint()
    env_fp = environment_fingerprint() if cache_dir is not None else None
    cache_dir = Path(cache_dir) if cache_dir is not None else None

    cells = []
    for data in data_list:
        for method in methods:
            private = method in ("IHM", "FastIHM", "AdaSSP")
            for eps in epsilons if private else (None,):
                for ratio in k2_ratios if method == "FastIHM" else (None,):
                    cells.append((data, _cell_params(data, method, eps, ratio, settings, code=fp, environment=env_fp)))

    frames, todo = [], []

    def from_cache(params):
        if cache_dir is None:
            return None
        key = cache_key(params)
        cached = read_cell(cache_path(cache_dir, key), key, n_trials)
        if cached is None:
            return None
        cached = cached.copy()
        cached["from_cache"] = True
        return cached

    for data, params in cells:
        cached = from_cache(params)
        if cached is not None:
            frames.append(cached)
        else:
            todo.append((data, params))

    total_runs = len(todo) * n_trials
    show = (total_runs > 20) if progress is None else bool(progress)
    bar = None
    if show and total_runs:
        try:
            from tqdm.auto import tqdm

            bar = tqdm(total=total_runs, desc="fastmix grid", unit="run")
        except Exception:  # pragma: no cover
            bar = None

    ols_cache: dict[str, tuple] = {}
    deferred: list[tuple[_Data, dict]] = []
    queue = list(todo)
    while queue or deferred:
        if not queue:  # only cells another live process is computing: wait for its files
            time.sleep(0.5)
            queue, deferred = deferred, []
            continue
        data, params = queue.pop(0)
        path = cache_path(cache_dir, cache_key(params)) if cache_dir is not None else None
        if path is not None:
            cached = from_cache(params)  # another run may have finished it meanwhile
            if cached is not None:
                frames.append(cached)
                if bar is not None:
                    bar.update(n_trials)
                continue
            if not claim_cell(path):
                deferred.append((data, params))
                continue
        try:
            frames.append(_compute_cell(data, params, settings, path=path, ols_cache=ols_cache, bar=bar))
        finally:
            if path is not None:
                release_cell(path)
    if bar is not None:
        bar.close()
    if not frames:
        return pd.DataFrame()
    return pd.concat(frames, ignore_index=True)


def _compute_cell(data: _Data, params: dict, settings: GridSettings, *, path, ols_cache, bar):
    """All trials of one grid cell, written to ``path`` (when caching) before being returned."""
    import pandas as pd

    if data.name not in ols_cache:
        ts = R.ols(data.X, data.y)
        ols_cache[data.name] = (ts, R.training_mse(data.X, data.y, ts))
    theta_star, ols_mse = ols_cache[data.name]
    cid = cell_id(params["dataset"], params["method"], params["epsilon"], params["k2_ratio"])
    rows = []
    for trial in range(settings.n_trials):
        ss = np.random.SeedSequence(settings.root_seed, spawn_key=(trial, cid))
        row = _run_one(data, params, settings, seed_seq=ss, theta_star=theta_star, ols_mse=ols_mse)
        rows.append(
            {
                "dataset": data.name,
                "method": params["method"],
                "epsilon": np.nan if params["epsilon"] is None else float(params["epsilon"]),
                "k2_ratio": np.nan if params["k2_ratio"] is None else float(params["k2_ratio"]),
                "trial": trial,
                "root_seed": settings.root_seed,
                "spawn_key": f"{trial},{cid}",
                "n": data.X.shape[0],
                "d": data.X.shape[1],
                "T": settings.T,
                "delta": params["delta"],
                "rho": params["rho"],
                "clip": settings.clip,
                "calibration": params["calibration"],
                "ihm_sketch": params["ihm_sketch"],
                "n_policy": settings.n_policy,
                "fastmix_version": __version__,
                "code_fingerprint": params["code"],
                "data_fingerprint": data.fingerprint,
                **row,
            }
        )
        if bar is not None:
            bar.update(1)
    df = pd.DataFrame(rows)
    if path is not None:
        write_cell(df, path, cache_key(params), params)
    df["from_cache"] = False
    return df


#: The columns of :func:`run_grid`'s frame that say which run a row is; every study stores them
#: first, in this order.
RUN_COLUMNS = (
    # the grid cell (dataset, method, IHM sketch, k2 ratio, epsilon), the trial and its seed
    *("dataset", "method", "ihm_sketch", "k2_ratio", "epsilon", "trial", "spawn_key"),
    # the data's shape, T, the sketch sizes, and delta and rho
    *("n", "d", "T", "k", "k1", "k2", "delta", "rho"),
)
#: What a run measured; a study stores those its page needs, in an order of its own
#: (:func:`keep_result_columns`).
MEASURED_COLUMNS = (
    # accuracy on the original rows (excess_risk = mse - ols_mse) and FastIHM's noise level eta
    *("excess_risk", "mse", "ols_mse", "theta_error", "eta"),
    # time of the solver call
    *("runtime_s", "runtime_ns"),
    # privacy budget the solver's ledger spent
    *("eps_spent", "delta_spent"),
    # rows used, and rows padded or dropped to reach a power of two
    *("n_used", "rows_added", "rows_dropped"),
)
#: Every column of :func:`run_grid`'s frame that a study stores: the ordered union of the two.
RESULT_COLUMNS = RUN_COLUMNS + MEASURED_COLUMNS


def result_columns(measured: Sequence[str] | None = None) -> tuple[str, ...]:
    """The columns a study stores: :data:`RUN_COLUMNS`, then ``measured`` in the order given.

    Parameters
    ----------
    measured : sequence of str, optional
        Names from :data:`MEASURED_COLUMNS`, each at most once; None keeps all of them
        (the result is then :data:`RESULT_COLUMNS`).

    Raises
    ------
    ValueError
        On a name that is not in :data:`MEASURED_COLUMNS`, or one given twice.
    """
    if measured is None:
        return RESULT_COLUMNS
    measured = tuple(measured)
    unknown = [c for c in measured if c not in MEASURED_COLUMNS]
    if unknown:
        raise ValueError(f"{unknown} are not measured columns of run_grid; choose from {MEASURED_COLUMNS}.")
    twice = sorted({c for c in measured if measured.count(c) > 1})
    if twice:
        raise ValueError(f"Name each measured column at most once; got {twice} more than once.")
    return RUN_COLUMNS + measured


def keep_result_columns(df, measured: Sequence[str] | None = None):
    """A copy of a :func:`run_grid` frame reduced to ``result_columns(measured)``, in that order.

    A column the frame does not have is left out. ``measured`` is checked as in
    :func:`result_columns`; each study names its own once, so its stored table keeps its columns.
    """
    return df[[c for c in result_columns(measured) if c in df.columns]].copy()


def summarize(df):
    """Mean and standard error (over trials) of excess risk and runtime per grid cell."""
    keys = ["dataset", "method", "epsilon", "k2_ratio"]
    g = df.groupby(keys, dropna=False)
    out = g.agg(
        excess_risk=("excess_risk", "mean"),
        excess_risk_sd=("excess_risk", "std"),
        runtime_s=("runtime_s", "mean"),
        trials=("trial", "count"),
    ).reset_index()
    out["excess_risk_se"] = out["excess_risk_sd"] / np.sqrt(out["trials"])
    return out


def speedup_table(df):
    """Runtime of IHM divided by each method's (Figure 3 of the paper): mean over trials, then over eps."""
    per = df.groupby(["dataset", "method", "epsilon", "k2_ratio"], dropna=False)["runtime_s"].mean().reset_index()
    per = per.groupby(["dataset", "method", "k2_ratio"], dropna=False)["runtime_s"].mean().reset_index()
    rows = []
    for ds, sub in per.groupby("dataset"):
        ihm_t = sub.loc[sub["method"] == "IHM", "runtime_s"]
        if ihm_t.empty:
            continue
        base = float(ihm_t.iloc[0])
        for _, r in sub.iterrows():
            label = r["method"] if math.isnan(r["k2_ratio"]) else f"{r['method']} r={r['k2_ratio']:g}"
            rows.append(
                {"dataset": ds, "method": label, "runtime_s": r["runtime_s"], "ihm_over_method": base / r["runtime_s"]}
            )
    import pandas as pd

    return pd.DataFrame(rows)


def runtime_ratio_table(df, baseline: str = "IHM"):
    """Runtime of ``baseline`` divided by each method's, one row per dataset (Figure 3 layout).

    Like :func:`speedup_table`, runtimes are averaged over trials, then over epsilon; the
    baseline is any value of the ``method`` column (relabel rows first to compare, e.g., IHM with
    ``ihm_sketch="gram"`` as ``"IHM-gram"``). FastIHM's ratios become columns ``"FastIHM r1"``,
    ``"FastIHM r2"``, ... in increasing ``k2_ratio``; other methods keep their name.

    Returns
    -------
    ratios : DataFrame
        ``runtime(baseline) / runtime(method)`` (above 1: the method is faster).
    seconds : DataFrame
        The mean runtimes in seconds, same layout.
    """
    per = df.groupby(["dataset", "method", "epsilon", "k2_ratio"], dropna=False)["runtime_s"].mean().reset_index()
    per = per.groupby(["dataset", "method", "k2_ratio"], dropna=False)["runtime_s"].mean().reset_index()
    per = per.sort_values(["dataset", "method", "k2_ratio"], kind="stable").reset_index(drop=True)
    rank = per.groupby(["dataset", "method"]).cumcount() + 1
    per["column"] = [
        m if math.isnan(r) else f"{m} r{j}" for m, r, j in zip(per["method"], per["k2_ratio"], rank, strict=True)
    ]
    seconds = per.pivot(index="dataset", columns="column", values="runtime_s")
    if baseline not in seconds.columns:
        raise ValueError(f"baseline {baseline!r} is not among the methods {sorted(seconds.columns)}.")
    ratios = seconds.rdiv(seconds[baseline], axis=0)
    return ratios, seconds
