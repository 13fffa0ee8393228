# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Beyond one machine
#
# FastMix {cite:p}`lev2026fastmix` is a private sketch whose cost is that of a fast transform, and
# FastIHM, the least-squares solver built on it, inherits that cost, which matters most when $n$ is so
# large that $X$ no longer fits in one machine's memory. The paper runs in memory only; this page checks
# a claim of ours, that the SRHT splits exactly along rows, so FastIHM, and IHM through its Gram factor,
# run on a Dask array held in row chunks (local workers, out of core from a Zarr store, or a cluster),
# and measures that path against the in-memory one, read from the results store.

# %% tags=["remove-input"]
import matplotlib.pyplot as plt
from IPython.display import Markdown, display

from fastmix_companion.pages import caption, stored_entry, use_book_style
from fastmix_companion.provenance import provenance_report
from fastmix_companion.studies import beyond_one_machine as study
from fastmix_companion.studies import beyond_one_machine_text as text
from fastmix_companion.studies import run_study

NAME = "beyond_one_machine"
page = stored_entry(NAME, "setting", "runs")
STYLE = {"FastIHM": "C1", "IHM (Gram)": "C4"}
MARKERS = {"in memory": ("o", "-"), "dask": ("s", "--"), "out of core": ("*", "none")}

# Figures fill the book's content column: larger text (fastmix_companion.pages.BOOK_STYLE).
use_book_style()

SCALING_TEXT = (
    "Wall time of one private least-squares solve ($T$ iterations) against $n$: in this process on a NumPy array "
    "(in memory), on a Dask array persisted in the memory of the local workers (dask), and on a Dask array read "
    "chunk by chunk from a Zarr store on disk (out of core); median of the timed solves."
)


def draw_scaling(tables, title):
    """Median wall time per solve against n, one line per path and solver."""
    runs = tables["runs"]
    med = runs.groupby(["mode", "series", "n"])["wall_s"].median().reset_index()
    _, ax = plt.subplots(figsize=(7.5, 4.4))
    for (mode, series), sub in med.groupby(["mode", "series"], sort=False):
        marker, ls = MARKERS[mode]
        ax.plot(
            sub["n"],
            sub["wall_s"],
            marker=marker,
            ls=ls,
            color=STYLE[series],
            ms=9 if mode == "out of core" else 5,
            label=f"{series}, {mode}",
        )
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.grid(True, which="major", alpha=0.3)
    ax.set_xlabel("$n$")
    ax.set_ylabel("seconds per solve (wall)")
    ax.legend(fontsize=9, ncol=2)
    ax.set_title(title, fontsize=10)
    plt.tight_layout()
    plt.show()


stored = page.tables

# %% mystnb={"figure": {"caption": "**Figure B.1.** {glue:md}`dask-scaling-caption:myst`", "name": "dask-scaling"}} tags=["remove-input"]
if stored is not None:
    caption(
        "dask-scaling", SCALING_TEXT + " From the results store: " + text.setting_text(stored, page.parameters()) + "."
    )
    draw_scaling(stored, "results store")
else:
    page.no_figure()

# %% [markdown]
# ## What to see
#
# Seconds per solve against $n$, on log-log axes: circles in this process on a NumPy array, squares on a
# Dask array held by the local workers, stars out of core from disk; orange is FastIHM and purple IHM
# through its Gram factor. The distance between a solver's circles and squares is what the scheduler and
# the data movement cost, and the stars show what reading $X$ from storage adds. Each row of the checks
# table below is a statement of ours about the Dask path, the number that decides it and the rule that
# decides it, written in the code.

# %% tags=["remove-input"]
CLAIMS = study.stored_claims(stored, page.parameters()) if stored is not None else []
page.show_claims(CLAIMS, missing="The checks need the stored results (see the store note further down).")
if CLAIMS:
    display(Markdown(text.checks_text(CLAIMS)))

# %% [markdown]
# ## What differs from the paper, and what it costs
#
# The paper's experiments run in memory on one machine; it has no distributed or out-of-core path, so
# every check on this page is ours. The chunked path computes the paper's own sketch, the global $S_f$ of
# Definition 3 (derived below), so no privacy statement changes; what it costs is time, for the
# scheduler and for moving pieces of size $k_2 \times d$ between the workers and the client, and memory
# on each worker, both measured in the table further down.

# %% [markdown]
# ## Every timed path
#
# Per path and size: the median wall time, how many times the workers read the size of $X$ from
# storage (page-cache hits are not counted) and at what rate, the largest resident memory of a worker
# during a solve, and how far the estimate is from the in-memory one for the same seed. Out of core the
# wall time is set by the storage: a virtual disk whose host caches it reads faster on some days than
# on others, which the rate column shows. The line below the table is the benchmark's last line.

# %% tags=["remove-input", "hide-output"]
if stored is not None:
    display(Markdown(text.runs_markdown(stored)))

# %% tags=["remove-input"]
if stored is not None:
    display(Markdown("`" + study.summary_line(stored) + "`"))
    display(Markdown(text.out_of_core_text(stored["runs"])))

# %% [markdown]
# ## The exact SRHT in row chunks
#
# :::{admonition} The derivation: why the chunked SRHT is the paper's own
# :class: dropdown
#
# In Sylvester order the unnormalised Hadamard matrix has entries $(H_n)_{r i} = (-1)^{\langle r, i
# \rangle}$, where $\langle r, i \rangle$ counts the binary digits that $r$ and $i$ share. Take a chunk
# of $m$ rows (a power of two) starting at a multiple $s$ of $m$. For $i = s + j$ with $j < m$ the
# digits of $s$ and $j$ do not overlap, so
#
# $$
# (H_n)_{r,\, s + j} = (-1)^{\langle r, s \rangle} \, (H_m)_{r \bmod m,\, j}.
# $$
#
# Writing $B_c$ and $X_c$ for the chunk's signs and rows, row $r$ of $H_n B X$ is therefore
#
# $$
# (H_n B X)_r = \sum_{c} (-1)^{\langle r, s_c \rangle} \, (H_m B_c X_c)_{r \bmod m}:
# $$
#
# each chunk transforms its own rows with a length-$m$ transform, keeps the $k$ sampled rows, each
# with its sign, and the $k \times d$ pieces are summed. The adjoint needs only the $k \times d$
# sketch $Z$ in every chunk (a signed scatter into an $m \times d$ buffer, then a local transform), so
# $\hat m$ of Algorithm 1 is a maximum of per-chunk row norms, and the coherence $\hat\Delta$ folds the
# indicator of the sampled rows chunk by chunk. This is the global $S_f$ of Definition 3, not a
# block-diagonal approximation: every privacy statement holds unchanged
# ({py:mod}`fastmix.chunked`).
#
# **Same seed, same release.** The signs are a function of the seed and the row index only
# ({py:func}`fastmix.srht.rademacher_signs`), and the chunked path draws from the generator in the same
# order as the in-memory one, so a seed gives the same sketch and the same coefficients in memory and
# on Dask, whatever the chunking, up to floating-point summation order.
#
# **What travels.** With $P$ chunks, one FastMix draw sends $P$ pieces of $k_2 \times d$ numbers to
# the client (the forward sums), $Z$ back to every chunk ($P k_2 d$ numbers) and one number per chunk
# for $\hat m$: $O(P k_2 d)$ per draw, nothing of length $n$. The Laplace and Gaussian steps of
# Algorithm 1 and $\lambda_{\min}(Z^\top Z)$ act on $k \times d$ matrices on the client. Each gradient
# step of Algorithms 2 and IHM sends $d$ numbers per chunk; the Gram route sends one $d \times d$
# matrix per chunk, once.
#
# **What a worker holds.** A sketch pass transposes its chunk once into a $d \times m$ buffer, along
# which the length-$m$ transforms run, and transforms each draw in a second buffer of that size. Each
# worker thread keeps these two buffers from one chunk to the next instead of asking the operating
# system for fresh memory on every task, so a worker process needs about three chunks of memory
# besides what Dask holds; `client.run(fastmix.chunked.release_scratch)` frees the buffers after a
# solve. Tasks that run in the calling process (Dask's threaded scheduler) free theirs when each pass
# returns. A gradient
# step is one task per chunk, which returns its $d$-vector.
# :::

# %% [markdown]
# ## Running the same code on a cluster
#
# Nothing in the solvers depends on where the workers are. Connect a `distributed.Client` to a
# scheduler, open the data as a Dask array chunked along rows (one chunk of columns), and call the
# same functions:
#
# ```python
# import dask.array as da
# from distributed import Client
# from fastmix.regression import FastIHMRegressor
#
# client = Client("tcp://scheduler-address:8786")  # or a cluster object's client
# X = da.from_zarr("path/to/store.zarr", component="X")  # rows in chunks of 2^20, say
# y = da.from_zarr("path/to/store.zarr", component="y")
# model = FastIHMRegressor(epsilon=1.0, random_state=0).fit(X, y)  # coefficients as NumPy arrays
# print(model.privacy_ledger_.summary())
# ```
#
# The estimator picks the sketch sizes of the paper's experiments and warns
# (`NoiseDominatesWarning`) where FastIHM's Hessian noise would swamp the fit at this $n$, $d$ and
# $\varepsilon$; the functions `calibrate_fast_ihm` and `fast_ihm` take every size explicitly and do
# not warn, so check `result.diagnostics["eta"]` when calling them with sizes of your own.
#
# The scheduler can come from any Dask deployment: `dask-jobqueue` starts workers as batch jobs
# (SLURM, PBS, SGE), `dask-kubernetes` as pods, and `dask-cloudprovider` on cloud virtual
# machines; fastmix does not reimplement any of them. Row chunks are made aligned powers of two near
# their input length (zero rows for any $n$ come in chunks of the same length), and the change is
# recorded in the result. The optional dependencies install with `pip install "fastmix[dask]"`.
#
# :::{admonition} What a real cluster needs: one version, draws in the client, shared data, memory
# :class: dropdown
#
# * **One fastmix version everywhere.** The workers run fastmix's code on their chunks (the SRHT's
#   signs, the per-chunk statistics), so the same seed gives the same release only with the same
#   code. Every Dask call checks the workers' `fastmix.__version__` against the client's once per
#   scheduler and refuses a mismatch, naming the workers.
# * **Draws in the client.** Every random draw comes from the `random_state` you pass, in the client
#   process. The SRHT's signs are a function of a seed drawn there and of the row index, shipped with
#   the tasks: workers need no seeding of their own, and a worker that is restarted recomputes the
#   same signs, so the result is the same after a failure.
# * **Data every worker can read.** `dd.read_parquet` and `da.from_zarr` take local paths only when
#   every worker sees the same file system (a shared mount); otherwise use object storage, e.g.
#   `dd.read_parquet("s3://bucket/flights/", storage_options={...})` with `s3fs` installed (`gcsfs`
#   and `adlfs` for the other clouds), and the same options for Zarr through `fsspec`.
# * **Worker memory.** A task holds about one row chunk of $X$ and a few $d$-vectors; the SRHT adds
#   its $k_2 \times d$ output per chunk. Give each worker a `memory_limit` of at least four row chunks
#   plus about 1 GiB for Python and Dask: at $n = 2^{25}$, $d = 32$ in chunks of $2^{20}$ rows
#   (256 MiB), 2 GiB workers peaked at 1.5 GiB.
# :::
#
# From a table on disk to a private fit and a score that never leave the workers, at a small size
# (the same lines run on a cluster with `Client(address)` in place of the local one):

# %%
import tempfile

import dask.dataframe as dd
import numpy as np
import pandas as pd
from distributed import Client, LocalCluster

from fastmix.preprocessing import BoundedTableEncoder, table_column
from fastmix.regression import IHMRegressor

rng = np.random.default_rng(0)
n_rows = 20_000
flights = pd.DataFrame(
    {
        "distance": rng.uniform(0, 3000, n_rows),
        "carrier": rng.choice(["AA", "DL", "UA"], n_rows),
        "weekday": rng.choice(["mon", "tue", "wed", "thu", "fri", "sat", "sun"], n_rows),
    }
)
flights["delay"] = np.clip(flights["distance"] / 3000 - 0.5 + 0.2 * rng.standard_normal(n_rows), -1, 1)
folder = tempfile.mkdtemp()
dd.from_pandas(flights, npartitions=4).to_parquet(folder)  # four Parquet files, as a data lake holds them

with LocalCluster(n_workers=2, threads_per_worker=1, processes=False) as cluster, Client(cluster):
    table = dd.read_parquet(folder)
    encoder = BoundedTableEncoder(
        numeric_ranges={"distance": (0, 5000)},  # declared, never read from the data
        categories={"carrier": ["AA", "DL", "UA"], "weekday": ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]},
    ).fit(table)
    X, y = encoder.transform(table), table_column(table, "delay")  # row-chunked Dask arrays, one chunk per file
    model = IHMRegressor(epsilon=1.0, delta=1e-6, sketch="gram", random_state=0).fit(X, y)  # Gram route: Dask-ready
    print(f"X: {X.shape[0]} rows in chunks of {X.chunks[0]}; R^2 on the workers: {model.score(X, y):.3f}")
    print(model.privacy_ledger_.summary())

# %% [markdown]
# ## The stored run
#
# The stored run is computed, or resumed where it stopped, by
# `.venv/bin/python -m fastmix_companion.run --paper-scale beyond_one_machine`; `benchmarks/bench_dask.py` runs
# the same and prints its figures against the targets. The out-of-core matrix is larger than the
# machine's memory, so it cannot stay in the page cache and every pass reads it from disk.

# %% tags=["remove-input"]
page.show_note()

# %% tags=["parameters", "hide-cell"]
log2_ns: str = "14,15"  # comma-separated log2(n) of the in-memory comparison (full run: 20,22,24)
out_of_core_log2_n: int = 15  # log2(n) of the out-of-core run from a Zarr store; 0 skips it (full run: 27)
d: int = 8  # number of features (full run: 32)
chunk_log2_rows: int = 12  # log2 of the rows per chunk (full run: 20, so 256 MiB per chunk at d of 32)
n_workers: int = 2  # worker processes of the LocalCluster, one thread each
processes: bool = False  # True: separate worker processes (measures their I/O and memory); False: threads
series: str = "FastIHM,IHM (Gram)"  # solvers to time
repeats: int = 2  # timed solves per size and path
T: int = 4  # iterations (Appendix H)
epsilon: float = 1.259  # privacy budget (runtime hardly depends on it)
k2_ratio: float = 4.0  # FastIHM's k2 is k2_ratio * max(d, log(4T/rho)) (4: the paper's smallest ratio)
zarr_dir: str = ""  # folder for the Zarr store (default _build/dask-data; reused when it holds the same data)
seed: int = 0  # root seed of the data and of every solve (numpy SeedSequence)

# %% [markdown]
# ## Quick check at small scale

# %% tags=["remove-input"]
PARAMS = {name: globals()[name] for name in study.DEFAULTS}  # the parameters cell's values
display(Markdown(text.smoke_sizes_text(PARAMS)))

# %% [markdown]
# The cell below runs the study at the parameters in the folded cell above (threaded workers, tiny
# $n$); at these sizes the scheduler's overhead dominates and it decides nothing.

# %% mystnb={"figure": {"caption": "**Figure B.1 (smoke scale).** {glue:md}`dask-smoke-caption:myst`", "name": "dask-smoke"}} tags=["hide-input", "hide-output"]
smoke = run_study(NAME, PARAMS, log=None)
caption(
    "dask-smoke",
    "Smoke-scale run, computed live at this page's parameters: "
    + SCALING_TEXT
    + f" ({text.setting_text(smoke, PARAMS)}). It shows that the code runs; it is not evidence.",
)
draw_scaling(smoke, "smoke scale (not evidence)")

# %% [markdown]
# ## How to cite this page

# %% tags=["remove-input"]
page.show_citation()

# %% [markdown]
# ## Provenance

# %% tags=["hide-output"]
provenance_report(parameters=PARAMS, seed=seed, started_at=page.started_at)
