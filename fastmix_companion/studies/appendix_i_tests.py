"""The Appendix I page's family of tests and its paired Gram/dense comparison (re-exported by the study).

:func:`labelled_runs` names each run's series; :func:`page_tests` is every p-value the page's claims
rest on, Holm-corrected together; :func:`gram_dense_pairs` and :func:`gram_agreement` compare IHM's
two samplers trial by trial.
"""

from __future__ import annotations

import numpy as np

from fastmix_companion.studies._findings import gram_dense_pairs

__all__ = ["K2_PAIRS", "labelled_runs", "page_tests", "gram_dense_pairs", "gram_agreement"]


def _label(method, sketch, ratio_index=None):
    if method == "FastIHM":
        return f"FastIHM r{ratio_index}"
    if method == "IHM":
        return "IHM (Gram factor)" if sketch == "gram" else "IHM (dense sketch)"
    return method


def labelled_runs(tables):
    """The runs table with a ``series`` column: FastIHS, IHM (dense sketch), IHM (Gram factor), FastIHM r1..r3."""
    runs = tables["runs"].copy()
    sizes = tables["sketch_sizes"]
    index = {float(r): int(j) for r, j in zip(sizes["k2_ratio"], sizes["ratio_index"], strict=True)}
    runs["series"] = [
        _label(m, s, index.get(float(r)) if r == r else None)
        for m, s, r in zip(runs["method"], runs["ihm_sketch"], runs["k2_ratio"], strict=True)
    ]
    return runs


K2_PAIRS = (("FastIHM r1", "FastIHM r2"), ("FastIHM r2", "FastIHM r3"), ("FastIHM r1", "FastIHM r3"))
"""The pairs of sketch sizes the page compares, smaller first."""


def page_tests(tables, alpha: float = 0.05) -> dict:
    """The page's family of tests, Holm-corrected together at ``alpha``.

    Keys ``("k2", eps, smaller, larger)`` for the pairs of :data:`K2_PAIRS`: two-sided Welch tests on log
    excess risk of the two sketch sizes; ``("gram=dense", eps)``: two-sided paired t test of equal log
    excess risk of the two IHM routes (:func:`gram_dense_pairs`). Values: ``(p, holm_adjusted_p,
    rejected, sign)``, ``sign`` -1 when the first series named (the larger sketch, or Gram) has the
    lower estimate, +1 otherwise.
    """
    from fastmix_companion.claims import holm_adjusted, one_sided_less, paired_log_ratio

    runs = labelled_runs(tables)
    eps_grid = sorted(runs["epsilon"].dropna().unique())

    def er(series, eps):
        return runs.loc[(runs["series"] == series) & np.isclose(runs["epsilon"], eps), "excess_risk"].to_numpy()

    keys: list[tuple] = []
    ps: list[float] = []
    signs: list[int] = []
    for small, large in K2_PAIRS:
        for e in eps_grid:
            one = one_sided_less(er(large, e), er(small, e))
            keys.append(("k2", e, small, large))
            ps.append(min(1.0, 2 * min(one, 1 - one)))
            signs.append(-1 if one < 0.5 else 1)
    for e in eps_grid:
        iv, p, _ = paired_log_ratio(*gram_dense_pairs(runs, e))
        keys.append(("gram=dense", e))
        ps.append(p)
        signs.append(-1 if iv.estimate < 1 else 1)
    adj = holm_adjusted(ps)
    return {k: (p, a, a <= alpha, sg) for k, p, a, sg in zip(keys, ps, adj, signs, strict=True)}


def gram_agreement(tables, alpha: float = 0.05) -> dict:
    """Gram / dense IHM excess risk per epsilon from paired trials, with simultaneous intervals.

    Values are ``(interval, p, correlation)`` of :func:`~fastmix_companion.claims.paired_log_ratio`;
    the intervals are Bonferroni-simultaneous over the epsilons.
    """
    from fastmix_companion.claims import paired_log_ratio

    runs = labelled_runs(tables)
    eps_grid = sorted(runs["epsilon"].dropna().unique())
    level = 1 - alpha / len(eps_grid)
    out = {}
    for e in eps_grid:
        gram, dense = gram_dense_pairs(runs, e)
        out[e] = paired_log_ratio(gram, dense, level)
    return out
