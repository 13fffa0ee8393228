"""The sentences and text tables of the Beyond one machine page (:mod:`fastmix_companion.studies.beyond_one_machine`).

The page displays what these return, generated from the study's tables (``setting``, ``runs``) and
parameters: the setting of a run, named in the caption of its figure, and the table of the timed
solves per path, size and solver. The verdicts on the Dask path (the benchmark's line and the
claims) are decided by the study itself (:func:`~fastmix_companion.studies.beyond_one_machine.summary_line`,
:func:`~fastmix_companion.studies.beyond_one_machine.claims`).
"""

from __future__ import annotations

import numpy as np

from fastmix_companion.studies import beyond_one_machine as study
from fastmix_companion.studies._verdict_sentences import checks_text

__all__ = ["checks_text", "MODE_ORDER", "setting_text", "runs_markdown", "smoke_sizes_text", "out_of_core_text"]

MODE_ORDER = ("in memory", "dask", "out of core")
"""The order of the paths within a size and solver in :func:`runs_markdown`."""


def setting_text(tables, p) -> str:
    """The setting of a run, as MyST maths: d, chunk rows, the workers (processes or threads), T, epsilon and
    the number of timed solves (``tables``: the study's ``setting`` and ``runs``; ``p``: its parameters)."""
    s = tables["setting"].iloc[0]
    workers = "worker processes" if bool(s["processes"]) else "worker threads"
    return (
        f"$d = {p['d']}$, chunks of $2^{{{p['chunk_log2_rows']}}}$ rows, {int(s['n_workers'])} {workers} of one "
        f"thread each, $T = {p['T']}$, $\\varepsilon = {p['epsilon']:g}$, {len(tables['runs'])} timed solves"
    )


def _cell(value: float, fmt: str, shown: bool = True) -> str:
    return format(value, fmt) if shown and np.isfinite(value) else "-"


def runs_markdown(tables) -> str:
    """The table of timed solves as Markdown, one row per path, n and solver (by n, then solver, then path).

    Each row gives the median wall time, the median passes over X read from storage, the median read
    rate in MB/s (only where the workers read at least half of X, so a run served from memory shows no
    rate), the largest worker resident set in GiB and the largest relative difference to the in-memory
    estimate; a quantity that was not measured is shown as "-".
    """
    runs = tables["runs"]
    order = {mode: j for j, mode in enumerate(MODE_ORDER)}
    runs = runs.assign(_o=runs["mode"].map(order), _s=runs["series"].map(study.SERIES.index))
    runs = runs.sort_values(["n", "_s", "_o"], kind="stable")
    lines = [
        "| path | $n$ | solver | wall time [s] | passes over $X$ read from storage | read from storage [MB/s] | "
        "peak worker memory | largest relative difference to the in-memory $\\hat\\theta$ |",
        "|---|---:|---|---:|---:|---:|---:|---:|",
    ]
    for (mode, n, series), sub in runs.groupby(["mode", "n", "series"], sort=False):
        passes = sub["passes"].median()
        rate = (sub["bytes_read"] / sub["wall_s"]).median() / 1e6
        rss = sub["peak_worker_rss"].max()
        cells = [
            mode,
            f"$2^{{{int(np.log2(n))}}}$",
            series,
            f"{sub['wall_s'].median():.2f}",
            _cell(passes, ".2f"),
            _cell(rate, ".0f", shown=bool(passes > 0.5)),
            _cell(rss / 2**30, ".2f") + (" GiB" if np.isfinite(rss) else ""),
            _cell(sub["relative_difference"].max(), ".1e"),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def smoke_sizes_text(p) -> str:
    """The sizes of the quick check at parameters ``p`` (the notebook's parameters cell), as MyST maths."""
    log2_ns = ", ".join(f"2^{{{int(v)}}}" for v in str(p["log2_ns"]).split(",") if v.strip())
    workers = "worker processes" if p["processes"] else "worker threads"
    text = (
        f"Sizes of this quick check: $n \\in \\{{{log2_ns}\\}}$ in memory and on Dask, $d = {p['d']}$, chunks of "
        f"$2^{{{p['chunk_log2_rows']}}}$ rows, {p['n_workers']} {workers}"
    )
    if int(p["out_of_core_log2_n"]):
        text += f", out of core at $n = 2^{{{p['out_of_core_log2_n']}}}$"
    return text + f"; {p['repeats']} timed solve{'s' if int(p['repeats']) != 1 else ''} per size and path."


def out_of_core_text(runs) -> str:
    """Which ratios are which: Dask against in memory with X in the workers' memory, and out of core against a
    scaled in-memory time and against the rate the storage delivered (:func:`out_of_core_breakdown`)."""
    import math

    b = study.out_of_core_breakdown(runs)
    if b.empty:
        return ""
    parts = [
        f"{r.series} took {r.wall_s:.0f} s at $n = 2^{{{int(math.log2(r.n))}}}$, reading "
        f"{r.bytes_read / 2**30:.0f} GiB ({r.passes:.1f} passes over $X$) at {r.read_rate / 2**20:.0f} MiB/s; "
        "in memory it would take about "
        f"{r.in_memory_s:.0f} s (its time at $n = 2^{{{int(math.log2(r.in_memory_n))}}}$ scaled linearly in $n$), "
        f"so storage makes it {r.over_in_memory:.1f} times slower"
        for r in b.itertuples()
    ]
    return (
        "The Dask-over-in-memory ratios in the checks table are for $X$ held in the workers' memory: they measure "
        "the scheduler and the data movement, not the disk. Out of core, "
        + "; ".join(parts)
        + ". Those rates are what the storage delivered during the solves, not a separate measurement of the disk, "
        "so a solve that reads faster storage runs closer to its in-memory time."
    )
