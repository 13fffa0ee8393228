"""The sentences and text tables of the Figure 3 page (:mod:`fastmix_companion.studies.figure3`).

The page displays what these return, generated from the study's tables (``datasets``, ``runs``,
``timing``) and parameters: the setting of a run, the timing conditions, the speedup tables,
the claims' verdicts in words (whose claim, and why a verdict is not simply "holds"), Figure 3's
caption against the measured speedups, and how FastIHM compares with the Gram-factor IHM.
"""

from __future__ import annotations

import numpy as np

from fastmix_companion.claims import HOLDS, HOLDS_IN_DIRECTION, NOT_COMPARABLE, Interval, format_interval
from fastmix_companion.studies import figure3 as study

__all__ = [
    "tex",
    "bars_setting",
    "stored_setting_text",
    "timing_markdown",
    "load_table",
    "ratio_pivot",
    "paper_table",
    "tally_text",
    "verdict_line",
    "caption_text",
    "findings_text",
    "gram_text",
    "smoke_sizes_text",
]


def tex(shape) -> str:
    """'2^19 x 32' as TeX."""
    power, d = shape.split(" x ")
    return f"2^{{{power[2:]}}} \\times {d}"


def bars_setting(tables, p) -> str:
    """The shapes, T, trials, epsilons and timed solves of a run."""
    runs = tables["runs"]
    eps = sorted(e for e in runs["epsilon"].unique() if np.isfinite(e)) if "epsilon" in runs else []
    return (
        f"shapes {', '.join(dict.fromkeys(runs['dataset']))}; $T = {p['T']}$, {p['trials']} trials"
        + (f" at $\\varepsilon \\in \\{{{', '.join(f'{e:g}' for e in eps)}\\}}$" if eps else "")
        + f", {len(runs)} timed solves"
    )


def stored_setting_text(tables, p) -> str:
    """The stored run's setting, then one line per shape: why, the ratios, k1 and the k2."""
    lines = [
        f"Setting: $T = {p['T']}$, {p['trials']} timed trials per method and $\\varepsilon$, "
        f"$\\varepsilon \\in \\{{{p['epsilons'].replace(',', ', ')}\\}}$, "
        f"{p['blas_threads'] if p['blas_threads'] else 'default'} BLAS/OpenMP thread(s), "
        f"{len(tables['runs']):,} timed solves. Data per shape:"
    ]
    for r in tables["datasets"].itertuples():
        lines.append(
            f"* ${tex(r.shape)}$: {r.why}; ratios ({r.k2_ratios}), $k_1 = {r.k1}$, $k_2$ = {r.k2s.replace(',', ', ')}."
        )
    return "\n".join(lines)


def timing_markdown(timing) -> str:
    """The thread pools and machine load while each shape was timed, as a Markdown table."""
    lines = [
        "Threads and machine load during timing:",
        "",
        "| shape | thread pools | environment | threads | 1-min load: min | max | mean | seconds |",
        "|---|---|---|---:|---:|---:|---:|---:|",
    ]
    for r in timing.itertuples():
        lines.append(
            f"| {r.shape} | `{r.pools}` | `{r.environment}` | {r.blas_threads} | {r.load1_min:.2f} | "
            f"{r.load1_max:.2f} | {r.load1_mean:.2f} | {r.seconds:.0f} |"
        )
    return "\n".join(lines)


def ratio_pivot(tables, baseline):
    """runtime(baseline) / runtime(method) per shape, as 'estimate [low, high]' strings."""
    rt = study.ratio_table(tables, baseline=baseline)
    rt["text"] = [
        format_interval(Interval(a, b, c)) for a, b, c in zip(rt["estimate"], rt["low"], rt["high"], strict=True)
    ]
    return rt.pivot(index="shape", columns="series", values="text").reindex(
        list(dict.fromkeys(tables["runs"]["dataset"]))
    )


def tally_text(checks) -> str:
    """How many of ``checks`` carry each verdict, and whose claims they are, in one sentence."""
    from fastmix_companion.studies._verdict_sentences import whose_tally

    return whose_tally(checks, "the FastMix paper's claims about Figure 3")


def verdict_line(c) -> str:
    """One claim that does not simply hold: its verdict, whose claim, and why (setting or size)."""
    text = f"*{c.claim}* ({c.source}): {c.verdict}"
    if c.verdict == NOT_COMPARABLE:
        return text + f", because the run differs from the paper's: {'; '.join(c.setting.differences)}."
    outside = [m for m in c.magnitudes if m.in_size is False]
    if c.verdict == HOLDS_IN_DIRECTION and outside:
        ratios = [m.ratio.estimate for m in outside]
        return (
            text + f": {len(outside)} of its {len(c.magnitudes)} numbers of the paper are outside a factor "
            f"{outside[0].factor:g}, measured / paper {min(ratios):.3g} to {max(ratios):.3g}."
        )
    return text + "."


def caption_text(tables, low: float = 2.0, high: float = 3.0, caveat: str = "") -> str:
    """Figure 3's caption ("in most cases FastIHM is 2 to 3 times faster than IHM") against FastIHM's measured
    speedups over dense IHM at the shapes with a row of the paper's table: reproduced in size when more than half
    of their 95% intervals reach into ``[low, high]``. With a ``caveat`` (:func:`figure3.size_caveat`) the size is
    reported but not judged."""
    rt = study.ratio_table(tables, baseline="IHM")
    info = tables["datasets"].set_index("shape")
    paper_shapes = [s for s in info.index if info.loc[s, "paper_dataset"] in study.PAPER_TABLE]
    cells = rt[rt["shape"].isin(paper_shapes) & rt["series"].str.startswith("FastIHM")]
    if cells.empty:
        return ""
    inside = int(((cells["high"] >= low) & (cells["low"] <= high)).sum())
    faster = int((cells["low"] > 1.0).sum())
    if caveat and faster == len(cells):
        verdict = f"reproduced in direction; its size is not comparable with this run's timings ({caveat})"
    else:
        verdict = (
            "reproduced in size"
            if 2 * inside > len(cells)
            else ("reproduced in direction, not in size" if faster == len(cells) else "not reproduced")
        )
    return (
        f"Figure 3's caption (FastMix paper) says that in most cases FastIHM is {low:g} to {high:g} times faster "
        f"than IHM. Here FastIHM is {cells['estimate'].min():.3g} to {cells['estimate'].max():.3g} times faster "
        f"than dense IHM, with a 95% interval above 1 in {faster} of {len(cells)} cases, and {inside} of the "
        f"{len(cells)} intervals reach into [{low:g}, {high:g}]: the caption is {verdict}."
    )


def findings_text(tables, checks) -> str:
    """The tally of ``checks`` by verdict, a line for each claim that does not simply hold, and Figure 3's
    caption against the measured speedups."""
    lines = [tally_text(checks)] + [verdict_line(c) for c in checks if c.verdict != HOLDS]
    caveats = [m.caveat for c in checks for m in c.magnitudes if m.caveat]
    caption = caption_text(tables, caveat=caveats[0] if caveats else "")
    if caption:
        lines.append(caption)
    lines.append(
        "Speedups over dense IHM depend on how fast the machine and its libraries draw Gaussian numbers "
        "(dense IHM) and run Walsh-Hadamard transforms (FastIHM), which differ between machines; the next "
        "section sets FastIHM beside an IHM that draws no $k \\times n$ matrix at all."
    )
    return "\n\n".join(lines)


def gram_text(tables, p) -> str:
    """Per shape, FastIHM's time at the smallest k2 over the Gram-factor IHM's, beside the operation-count ratio."""
    rt = study.ratio_table(tables, baseline="IHM-gram")
    info = tables["datasets"].set_index("shape")
    parts = []
    for shape in dict.fromkeys(tables["runs"]["dataset"]):
        r1 = rt[(rt["shape"] == shape) & (rt["series"] == "FastIHM r1")]
        if r1.empty:
            continue
        n_, d_ = int(info.loc[shape, "n"]), int(info.loc[shape, "d"])
        parts.append(
            f"${tex(shape)}$: FastIHM at the smallest $k_2$ takes "
            f"{1 / r1['estimate'].iloc[0]:.3g} times the Gram route's time "
            f"(operation-count ratio $T\\log_2 n/d$ = {p['T'] * np.log2(n_) / d_:.3g})"
        )
    return (
        "Measured against the Gram-factor IHM: " + "; ".join(parts) + ". The claims table says "
        "whether the Gram route is faster at every shape; the column of dense IHM shows how much of the "
        "paper's speedup is the cost of forming the $k \\times n$ Gaussian sketch explicitly."
    )


def load_table(runs):
    """The machine's 1-minute load per dataset while a run is in progress (before the ``timing`` table exists):
    the smallest load before and the largest after any of its cells, and how many cells were timed."""
    return (
        runs.drop_duplicates("cell")
        .groupby("dataset")
        .agg(load1_min=("load1_before", "min"), load1_max=("load1_after", "max"), cells=("cell", "count"))
    )


def paper_table():
    """Figure 3's table of the paper (:data:`~fastmix_companion.studies.figure3.PAPER_TABLE`), one row per
    dataset: its shape, the ratios r1, r2, r3 and runtime(IHM) / runtime(method) per method."""
    import pandas as pd

    return pd.DataFrame(
        [(v[0], v[1], ",".join(map(str, v[2])), *v[3]) for v in study.PAPER_TABLE.values()],
        columns=["dataset", "n x d", "r1,r2,r3", "FastIHS", "FastIHM r1", "FastIHM r2", "FastIHM r3"],
    )


def smoke_sizes_text(p) -> str:
    """The sizes of the quick check at parameters ``p`` (the notebook's parameters cell), as MyST maths."""
    shapes = []
    for shape in str(p["shapes"]).split(","):
        log2_n, d = shape.strip().split("x")
        shapes.append(f"${tex(f'2^{int(log2_n)} x {int(d)}')}$")
    eps = [e.strip() for e in str(p["epsilons"]).split(",") if e.strip()]
    trials = int(p["trials"])
    return (
        f"Sizes of this quick check: shape{'s' if len(shapes) != 1 else ''} {' and '.join(shapes)}; "
        f"$\\varepsilon \\in \\{{{', '.join(eps)}\\}}$, {trials} timed trial{'s' if trials != 1 else ''} "
        f"per method and $\\varepsilon$, $T = {p['T']}$."
    )
