"""Claims of the papers as stated checks on stored results.

A page that discusses a claim of a paper states it as a :class:`Claim`: what the paper says,
what was measured (an estimate with a 95% interval), and whether the measurement supports
the claim, decided by a rule written in the code (the ``rule`` text says which). The functions
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

A verdict says more than "holds" or "does not hold". Each claim names whose claim it is
(:class:`Source`: a paper, with the place it is made, or the companion's own question), the
setting of the run (:class:`Setting`: the paper's, or what differs and whether that still lets
the run speak to the claim) and, where the paper gives a number, how close the measurement
comes (:class:`Magnitude`: measured / paper with an interval, reproduced in size within a
stated factor or not). :data:`VERDICTS` defines the five words a verdict can be, once.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = [
    "Claim",
    "Source",
    "Setting",
    "Magnitude",
    "OURS",
    "PAPER_SETTING",
    "VERDICTS",
    "HOLDS",
    "HOLDS_IN_DIRECTION",
    "NOT_COMPARABLE",
    "UNDECIDED",
    "DOES_NOT_HOLD",
    "fastmix_paper",
    "kernel_paper",
    "verdict_counts",
    "group_verdict",
    "Interval",
    "mean_interval",
    "log_ratio_interval",
    "one_sided_less",
    "holm",
    "holm_adjusted",
    "percentile_of",
    "claims_frame",
    "claims_markdown",
    "COMPACT_COLUMNS",
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


def geometric_mean_interval(values: Sequence[float], level: float = 0.95) -> Interval:
    """Geometric mean of positive ``values`` with the Student-t interval of :func:`mean_interval` on their logs."""
    iv = mean_interval(np.log(np.asarray(values, dtype=float)), level)
    return Interval(math.exp(iv.estimate), math.exp(iv.low), math.exp(iv.high), level, iv.n)


def geometric_mean(values: Sequence[float]) -> float:
    """``exp(mean(log values))`` of positive ``values``."""
    return float(np.exp(np.mean(np.log(np.asarray(values, dtype=float)))))


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


def paired_log_ratio(a: npt.ArrayLike, b: npt.ArrayLike, level: float = 0.95) -> tuple[Interval, float, float]:
    """Ratio of geometric means ``a / b`` from paired trials, with its two-sided p-value of equality.

    ``a[i]`` and ``b[i]`` must come from the same trial (the same seed), so the comparison is
    made on the per-pair differences ``D_i = log a_i - log b_i``: ``estimate = exp(mean D)``,
    the interval ``exp(mean D +- t_{n-1} sd(D) / sqrt(n))`` (Student's paired t). Whatever the
    pairs share cancels in ``D``; when they share nothing the interval is about as wide as
    Welch's (:func:`log_ratio_interval`). Returns ``(interval, p, correlation)``: ``p`` tests
    ``mean D = 0`` two-sided and ``correlation`` is that of ``log a`` with ``log b`` over the
    pairs, which says how much the pairing removed.
    """
    from scipy import stats

    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"paired_log_ratio needs two 1-d samples of one length; got shapes {x.shape} and {y.shape}.")
    keep = np.isfinite(x) & np.isfinite(y)
    la, lb = _positive_logs(x[keep], "paired_log_ratio"), _positive_logs(y[keep], "paired_log_ratio")
    d = la - lb
    mean, se = float(d.mean()), float(d.std(ddof=1) / math.sqrt(d.size))
    half = t_quantile(level, d.size - 1) * se if se > 0 else 0.0
    p = float(2 * stats.t.sf(abs(mean) / se, d.size - 1)) if se > 0 else (1.0 if mean == 0 else 0.0)
    corr = float(np.corrcoef(la, lb)[0, 1]) if la.std() > 0 and lb.std() > 0 else float("nan")
    iv = Interval(math.exp(mean), math.exp(mean - half), math.exp(mean + half), level, int(d.size))
    return iv, p, corr


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


def holm_adjusted(p_values: Sequence[float]) -> list[float]:
    """Holm's adjusted p-values: reject hypothesis ``i`` at family-wise level ``alpha`` iff ``p_adj[i] <= alpha``.

    ``p_adj`` of the ``j``-th smallest p-value is ``max_{l <= j} min(1, (m - l + 1) p_(l))``
    (Holm 1979); the rejections agree with :func:`holm` at every ``alpha``.
    """
    p = np.asarray(p_values, dtype=float)
    order = np.argsort(p)
    adjusted = np.empty(p.size)
    running = 0.0
    for rank, idx in enumerate(order):
        running = max(running, min(1.0, (p.size - rank) * p[idx]))
        adjusted[idx] = running
    return adjusted.tolist()


def percentile_of(value: float, sample: Sequence[float]) -> float:
    """Percentage of ``sample`` at or below ``value`` (ties count half), in [0, 100]."""
    x = np.asarray(sample, dtype=float)
    x = x[np.isfinite(x)]
    if x.size == 0:
        raise ValueError("percentile_of needs a non-empty sample.")
    below = np.sum(x < value) + 0.5 * np.sum(x == value)
    return float(100.0 * below / x.size)


HOLDS = "holds"
HOLDS_IN_DIRECTION = "holds in direction, not in size"
NOT_COMPARABLE = "not comparable"
UNDECIDED = "undecided"
DOES_NOT_HOLD = "does not hold"

VERDICTS = {
    HOLDS: "The measurement supports the claim by its decision rule and, where the paper gives a number that "
    "our setting can reproduce, the measured value is shown to be within the stated factor of it.",
    HOLDS_IN_DIRECTION: "The measurement supports the claim's direction (faster, smaller, falling), but a "
    "number the paper gives is not shown to be reproduced within the stated factor (it lies outside, or the "
    "interval cannot tell): the effect is there, its size differs or is unsettled.",
    NOT_COMPARABLE: "The run is outside the setting in which the paper makes the claim (other data, other n, "
    "other sketch sizes) in a way that changes what is measured, so it can neither confirm nor refute the "
    "claim; the reason is given.",
    UNDECIDED: "The data cannot decide: the interval includes both outcomes, or there are too few trials.",
    DOES_NOT_HOLD: "The measurement contradicts the claim by its decision rule, in the claim's own setting.",
}
"""The five verdicts, each defined once (the book's summary page shows these definitions)."""


@dataclass(frozen=True)
class Source:
    """Whose claim a check tests: a paper's, with where the paper makes it, or the companion's own.

    Attributes
    ----------
    paper : str or None
        ``"FastMix paper"`` or ``"kernel paper"``; ``None`` for a question the companion asks
        itself (a check of an illustrative assumption, a comparison the paper does not make).
    location : str
        Where the paper makes the claim (section, figure, equation), or for our own question
        what prompted it.
    """

    paper: str | None
    location: str = ""

    @property
    def is_ours(self) -> bool:
        return self.paper is None

    def __str__(self) -> str:
        if self.is_ours:
            return f"ours ({self.location})" if self.location else "ours"
        return f"{self.paper}, {self.location}" if self.location else str(self.paper)


OURS = Source(None)
"""The companion's own question, with no location."""


def fastmix_paper(location: str) -> Source:
    """A claim of the FastMix paper made at ``location`` (e.g. ``"Figure 3, table"``)."""
    return Source("FastMix paper", location)


def kernel_paper(location: str) -> Source:
    """A claim of the kernel paper made at ``location`` (e.g. ``"Theorem 3"``)."""
    return Source("kernel paper", location)


@dataclass(frozen=True)
class Setting:
    """How the run compares with the setting in which the paper makes the claim.

    Attributes
    ----------
    differences : tuple of str
        What differs from the paper's setting (stand-in data, another n, other sketch sizes),
        each in a few words; empty when the run is in the paper's setting.
    comparable : bool
        Whether the run still speaks to the claim despite the differences. ``False`` when a
        difference changes what is measured (e.g. a sketch of 0.78 n rows where the paper's
        claim is about k2 much smaller than n): the verdict of a paper's claim is then
        :data:`NOT_COMPARABLE`, whatever the numbers.
    """

    differences: tuple[str, ...] = ()
    comparable: bool = True

    def __post_init__(self):
        if isinstance(self.differences, str):
            object.__setattr__(self, "differences", (self.differences,))
        if not self.comparable and not self.differences:
            raise ValueError("a run that is not comparable must say why: pass the differences.")

    @property
    def in_paper_setting(self) -> bool:
        return not self.differences

    def __str__(self) -> str:
        if self.in_paper_setting:
            return "the paper's"
        text = "; ".join(self.differences)
        return text if self.comparable else f"not the paper's: {text}"


PAPER_SETTING = Setting()
"""The run is in the paper's setting."""


@dataclass(frozen=True)
class Magnitude:
    """How close a measured value comes to a number the paper gives.

    Attributes
    ----------
    quantity : str
        What is compared (e.g. ``"IHM / FastIHS, 2^19 x 32"``).
    paper : float
        The paper's number.
    ratio : Interval
        measured / paper, with its interval.
    factor : float
        Reproduced in size when the whole interval lies within ``[1/factor, factor]``; not
        reproduced when it lies wholly outside; undecided otherwise.
    caveat : str
        Why the size cannot be compared in this run's setting (e.g. timings on other hardware
        and thread counts), or empty. A size with a caveat is reported but not judged: it
        leaves the verdict to the rule's direction.
    """

    quantity: str
    paper: float
    ratio: Interval
    factor: float = 2.0
    caveat: str = ""

    def __post_init__(self):
        if not (self.factor > 1.0 and math.isfinite(self.factor)):
            raise ValueError(f"factor must be a finite number > 1; got {self.factor!r}.")
        if not (self.paper > 0 and math.isfinite(self.paper)):
            raise ValueError(f"the paper's value must be a positive number to form a ratio; got {self.paper!r}.")

    @property
    def in_size(self) -> bool | None:
        """True: within the factor; False: outside it; None: the interval straddles an edge."""
        lo, hi = 1.0 / self.factor, self.factor
        if lo <= self.ratio.low and self.ratio.high <= hi:
            return True
        if self.ratio.high < lo or self.ratio.low > hi:
            return False
        return None

    @property
    def judged(self) -> bool:
        """Whether the size counts in the verdict (no :attr:`caveat`)."""
        return not self.caveat

    def __str__(self) -> str:
        if not self.judged:
            return f"{self.quantity}: measured/paper {format_interval(self.ratio)} (size not judged: {self.caveat})"
        word = {True: "within", False: "outside", None: "undecided at"}[self.in_size]
        return f"{self.quantity}: measured/paper {format_interval(self.ratio)} ({word} a factor {self.factor:g})"


@dataclass(frozen=True)
class Claim:
    """One claim, checked against measured numbers, with a referee's distinctions.

    Attributes
    ----------
    claim : str
        Short name of the claim.
    paper : str
        What the claim says (in our words; for a paper's claim, what the paper says).
    measured : str
        What we measured, with its interval.
    rule : str
        The decision rule. A rule set after seeing the data marks the claim ``exploratory``.
    holds : bool or None
        The outcome of the rule; ``None`` when the data cannot decide.
    source : Source, optional
        Whose claim it is; ``None`` until a study states it (shown as "not stated").
    setting : Setting
        How the run compares with the paper's setting.
    magnitudes : tuple of Magnitude
        The paper's numbers this claim is about, measured / paper.
    headline : bool
        Whether the book's landing page lists this check among the headline findings.
    exploratory : bool
        The rule was chosen after seeing these data: the check is shown (and says so) but not
        counted among the verdicts (:func:`verdict_counts` skips it).
    group : str
        One question checked in several cells (e.g. every panel of a figure): the book's summary
        counts the group once (:func:`group_verdict`), the page shows every cell.
    finding : str
        One question answered on several pages (e.g. whether Gram-factor IHM is faster than FastIHM,
        timed on three): the book's summary counts it once, from the pages whose runs are comparable.
    """

    claim: str
    paper: str
    measured: str
    rule: str
    holds: bool | None
    source: Source | None = None
    setting: Setting = PAPER_SETTING
    magnitudes: tuple[Magnitude, ...] = ()
    headline: bool = False
    exploratory: bool = False
    group: str = ""
    finding: str = ""

    @property
    def verdict(self) -> str:
        """One of :data:`VERDICTS`, from the rule's outcome, the source, the setting and the sizes.

        A paper's claim tested outside its setting in a way that changes what is measured is
        :data:`NOT_COMPARABLE`; an undecided rule is :data:`UNDECIDED`; a rule that fails is
        :data:`DOES_NOT_HOLD`; a rule that holds is :data:`HOLDS_IN_DIRECTION` when some
        number of the paper is not shown to be reproduced within its factor (outside it, or an
        interval that straddles it), else :data:`HOLDS`. Sizes with a caveat are not judged.
        """
        if self.source is not None and not self.source.is_ours and not self.setting.comparable:
            return NOT_COMPARABLE
        if self.holds is None:
            return UNDECIDED
        if self.holds is False:
            return DOES_NOT_HOLD
        if any(m.judged and m.in_size is not True for m in self.magnitudes):
            return HOLDS_IN_DIRECTION
        return HOLDS

    @property
    def size(self) -> str:
        """The magnitudes, one per paper number (empty when the paper gives none)."""
        return "; ".join(str(m) for m in self.magnitudes)


def group_verdict(claims: Sequence[Claim]) -> str:
    """The verdict of one question checked in several cells: the verdict of every cell when they agree;
    otherwise :data:`DOES_NOT_HOLD` if a cell does not hold, else :data:`UNDECIDED` (a mix of holds,
    in direction, not comparable and undecided cells does not settle the question)."""
    verdicts = {c.verdict for c in claims}
    if len(verdicts) == 1:
        return verdicts.pop()
    return DOES_NOT_HOLD if DOES_NOT_HOLD in verdicts else UNDECIDED


def verdict_counts(claims: Iterable[Claim]) -> dict[str, int]:
    """How many claims carry each verdict, in the order of :data:`VERDICTS` (zeros included).

    Exploratory checks (a rule chosen after seeing the data) are not counted.
    """
    counts = dict.fromkeys(VERDICTS, 0)
    for c in claims:
        if not c.exploratory:
            counts[c.verdict] += 1
    return counts


_COLUMNS = (
    "claim",
    "whose claim",
    "says",
    "we measured (95% interval)",
    "measured / paper",
    "setting",
    "decision rule",
    "verdict",
)


def _row(c: Claim) -> dict:
    return {
        "claim": c.claim,
        "whose claim": "not stated" if c.source is None else str(c.source),
        "says": c.paper,
        "we measured (95% interval)": c.measured,
        "measured / paper": c.size,
        "setting": str(c.setting),
        "decision rule": c.rule,
        "verdict": c.verdict + (" (exploratory: rule set after seeing these data)" if c.exploratory else ""),
    }


def claims_frame(claims: Iterable[Claim]):
    """The claims table a page renders, one row per claim, columns :data:`_COLUMNS`."""
    import pandas as pd

    return pd.DataFrame([_row(c) for c in claims], columns=list(_COLUMNS))


#: The columns of the compact table a page shows first; the rest go in a folded table below it.
COMPACT_COLUMNS = ("claim", "whose claim", "verdict")


def claims_markdown(claims: Iterable[Claim], compact: bool = True) -> str:
    """The claims table as MyST Markdown (for ``IPython.display.Markdown`` on a page).

    With ``compact`` (the default), a short table comes first (claim, whose claim, verdict, and
    measured / paper when some claim has a magnitude), then a folded dropdown with every column
    (what the claim says, what was measured, the setting, the rule), so a page opens on the
    verdicts without hiding how they were reached. ``compact=False`` gives the full table alone.
    The verdict is in bold unless it is :data:`UNDECIDED`, :data:`NOT_COMPARABLE` or exploratory.
    """

    def cell(text) -> str:
        return str(text).replace("|", "\\|").replace("\n", " ")

    claims = list(claims)
    sized = any(x.magnitudes for x in claims)

    def table(columns) -> list[str]:
        lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
        for c in claims:
            row = _row(c)
            if c.verdict not in (UNDECIDED, NOT_COMPARABLE) and not c.exploratory:
                row["verdict"] = f"**{row['verdict']}**"
            lines.append("| " + " | ".join(cell(row[k]) for k in columns) + " |")
        return lines

    full = [c for c in _COLUMNS if c != "measured / paper" or sized]
    if not compact:
        return "\n".join(table(full))
    short = list(COMPACT_COLUMNS) + (["measured / paper"] if sized else [])
    details = [c for c in full if c not in ("whose claim", "verdict", "measured / paper")]
    return "\n".join(
        table(short)
        + ["", ":::{dropdown} How each check was decided: what was measured, the setting and the rule"]
        + table(details)
        + [":::"]
    )
