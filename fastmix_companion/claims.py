"""Claims of the papers as stated checks on stored results.

A page that discusses a claim of a paper states it as a :class:`Claim`: what the paper says,
what was measured (an estimate with a 95% interval), and whether the measurement supports
the claim, decided by a rule fixed in advance (the ``rule`` text says which). The functions
here are the statistics those rules use; each is small and pure.

* :func:`mean_interval` - a mean with its Student-t interval.
* :func:`log_ratio_interval` - the ratio of two geometric means, ``exp(mean log a - mean log b)``,
  with a Welch interval on the log scale (for positive, right-skewed quantities such as
  excess risk, whose trial-to-trial spread grows with their level).
* :func:`one_sided_less` - whether ``a`` is smaller than ``b`` (log scale, Welch's test),
  with Holm's correction when it is applied at several epsilons at once (:func:`holm`).
* :func:`percentile_of` - where a value falls in a sample (for "the paper's value lies within
  the seed distribution").

:func:`claims_frame` turns a list of claims into the table each page renders.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass

import numpy as np

__all__ = [
    "Claim",
    "Interval",
    "mean_interval",
    "log_ratio_interval",
    "one_sided_less",
    "holm",
    "percentile_of",
    "claims_frame",
    "claims_markdown",
    "format_interval",
    "t_quantile",
    "welch",
]


@dataclass(frozen=True)
class Interval:
    """An estimate with a two-sided interval at ``level``, from ``n`` observations."""

    estimate: float
    low: float
    high: float
    level: float = 0.95
    n: int = 0

    def contains(self, value: float) -> bool:
        return self.low <= value <= self.high

    def __str__(self) -> str:
        return format_interval(self)


def format_interval(iv: Interval, digits: int = 3) -> str:
    """``"1.23 [1.10, 1.37]"``."""
    f = f"{{:.{digits}g}}"
    return f"{f.format(iv.estimate)} [{f.format(iv.low)}, {f.format(iv.high)}]"


def t_quantile(level: float, df: float) -> float:
    """The two-sided Student-t quantile ``t_{df}`` of a ``level`` interval (``inf`` when ``df <= 0``)."""
    from scipy import stats

    return float(stats.t.ppf(0.5 + level / 2.0, df)) if df > 0 else math.inf


def mean_interval(values: Sequence[float], level: float = 0.95) -> Interval:
    """Sample mean with the Student-t interval ``mean +- t_{n-1} sd / sqrt(n)``."""
    x = np.asarray(values, dtype=float)
    x = x[np.isfinite(x)]
    if x.size == 0:
        raise ValueError("mean_interval needs at least one finite value; got none.")
    m = float(x.mean())
    if x.size == 1:
        return Interval(m, -math.inf, math.inf, level, 1)
    half = t_quantile(level, x.size - 1) * float(x.std(ddof=1)) / math.sqrt(x.size)
    return Interval(m, m - half, m + half, level, int(x.size))


def _positive_logs(values, what: str) -> np.ndarray:
    x = np.asarray(values, dtype=float)
    x = x[np.isfinite(x)]
    if x.size < 2:
        raise ValueError(f"{what} needs at least two finite values; got {x.size}.")
    if np.any(x <= 0):
        raise ValueError(f"{what} works on positive values (it compares logarithms); got min {x.min():.3g}.")
    return np.log(x)


def welch(la: np.ndarray, lb: np.ndarray) -> tuple[float, float, float]:
    """Welch's comparison of two samples: ``(mean(a) - mean(b), se, df)``.

    ``se = sqrt(var(a)/n_a + var(b)/n_b)`` and ``df`` is the Welch-Satterthwaite degrees of
    freedom (``inf`` when ``se = 0``).
    """
    va, vb = la.var(ddof=1) / la.size, lb.var(ddof=1) / lb.size
    se = math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va**2 / (la.size - 1) + vb**2 / (lb.size - 1)) if se > 0 else math.inf
    return float(la.mean() - lb.mean()), se, df


def log_ratio_interval(a: Sequence[float], b: Sequence[float], level: float = 0.95) -> Interval:
    """Ratio of geometric means ``a / b`` with a Welch interval computed on the log scale.

    ``estimate = exp(mean(log a) - mean(log b))``; the interval is
    ``exp(diff +- t_df * se)`` with the Welch-Satterthwaite ``df``. Trials of ``a`` and ``b``
    are treated as independent (the runs of different methods use different random streams).
    """
    la, lb = _positive_logs(a, "log_ratio_interval"), _positive_logs(b, "log_ratio_interval")
    diff, se, df = welch(la, lb)
    half = t_quantile(level, df) * se if se > 0 else 0.0
    return Interval(math.exp(diff), math.exp(diff - half), math.exp(diff + half), level, int(min(la.size, lb.size)))


def one_sided_less(a: Sequence[float], b: Sequence[float]) -> float:
    """p-value of Welch's one-sided test that ``a`` is smaller than ``b`` on the log scale.

    Small when the geometric mean of ``a`` is below that of ``b`` by more than the spread
    of the trials explains.
    """
    from scipy import stats

    la, lb = _positive_logs(a, "one_sided_less"), _positive_logs(b, "one_sided_less")
    diff, se, df = welch(la, lb)
    if se == 0:
        return 0.0 if diff < 0 else 1.0
    return float(stats.t.cdf(diff / se, df))


def holm(p_values: Sequence[float], alpha: float = 0.05) -> list[bool]:
    """Holm's step-down rejections: which hypotheses are rejected at family-wise level ``alpha``."""
    p = np.asarray(p_values, dtype=float)
    order = np.argsort(p)
    reject = np.zeros(p.size, dtype=bool)
    for rank, idx in enumerate(order):
        if p[idx] <= alpha / (p.size - rank):
            reject[idx] = True
        else:
            break
    return reject.tolist()


def percentile_of(value: float, sample: Sequence[float]) -> float:
    """Percentage of ``sample`` at or below ``value`` (ties count half), in [0, 100]."""
    x = np.asarray(sample, dtype=float)
    x = x[np.isfinite(x)]
    if x.size == 0:
        raise ValueError("percentile_of needs a non-empty sample.")
    below = np.sum(x < value) + 0.5 * np.sum(x == value)
    return float(100.0 * below / x.size)


@dataclass(frozen=True)
class Claim:
    """One claim of a paper, checked against measured numbers.

    Attributes
    ----------
    claim : str
        Short name of the claim.
    paper : str
        What the paper says (in our words, with its figure or section).
    measured : str
        What we measured, with its interval.
    rule : str
        The decision rule, fixed before looking at the numbers.
    holds : bool or None
        The verdict; ``None`` when the data cannot decide.
    """

    claim: str
    paper: str
    measured: str
    rule: str
    holds: bool | None

    @property
    def verdict(self) -> str:
        return {True: "holds", False: "does not hold", None: "undecided"}[self.holds]


def claims_frame(claims: Iterable[Claim]):
    """The claims table a page renders: claim / the paper says / we measured / rule / holds?"""
    import pandas as pd

    rows = []
    for c in claims:
        d = asdict(c)
        rows.append(
            {
                "claim": d["claim"],
                "the paper says": d["paper"],
                "we measured (95% interval)": d["measured"],
                "decision rule": d["rule"],
                "holds?": c.verdict,
            }
        )
    return pd.DataFrame(
        rows, columns=["claim", "the paper says", "we measured (95% interval)", "decision rule", "holds?"]
    )


def claims_markdown(claims: Iterable[Claim]) -> str:
    """The claims table as a Markdown table (for ``IPython.display.Markdown`` on a page)."""

    def cell(text) -> str:
        return str(text).replace("|", "\\|").replace("\n", " ")

    lines = [
        "| claim | the paper says | we measured (95% interval) | decision rule | holds? |",
        "|---|---|---|---|---|",
    ]
    for c in claims:
        verdict = {True: "**holds**", False: "**does not hold**", None: "undecided"}[c.holds]
        lines.append(f"| {cell(c.claim)} | {cell(c.paper)} | {cell(c.measured)} | {cell(c.rule)} | {verdict} |")
    return "\n".join(lines)
