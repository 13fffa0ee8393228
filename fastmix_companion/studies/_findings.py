"""Questions answered on more than one page, each with the key its checks share.

A check carries one of these keys as its ``finding`` (:class:`fastmix_companion.claims.Claim`), so
the book's summary counts the question once, from the pages whose runs are comparable, and links
every page that answers it.
"""

from __future__ import annotations

GRAM_IHM_FASTER = "gram-ihm-faster-than-fastihm"
"""(Ours) IHM with its sketch drawn through the Gram factor is faster than FastIHM at its smallest k2:
Figure 3, the regime map and Appendix I time it."""

GRAM_IHM_ACCURACY = "gram-ihm-has-dense-ihm-accuracy"
"""(Ours) The Gram-factor and the dense-sketch IHM are equally accurate: Figure 2 and Appendix I, by one
rule (:data:`GRAM_EQUIVALENCE_FACTOR`)."""

GRAM_EQUIVALENCE_FACTOR = 1.1
"""The two IHM samplers count as equally accurate when every paired interval of Gram / dense excess risk,
simultaneous over the cells a page checks (Bonferroni at 5%), lies within this factor of 1; one interval
wholly outside it does not hold; anything else is undecided. Tests of equality are reported, not decisive."""

FASTIHM_FASTER_THAN_DENSE = "fastihm-faster-than-dense-ihm"
"""(Ours) FastIHM at the smallest k2 is faster than IHM with the dense sketch, beyond the paper's shapes:
the solver-choice page and the regime map."""

AIRLINE_K2 = "airline-accuracy-falls-with-k2"
"""(FastMix paper, Section 4.1 and Appendix I) FastIHM's accuracy loss falls as k2 grows, on the
airline data: Appendix I's runs, and the Figure 2 page's panel of the same stand-in."""


def gram_dense_pairs(runs, eps):
    """IHM's excess risks with the Gram-factor and the dense sampler at ``eps``, aligned by trial.

    Both samplers' trial ``t`` runs on the same seed (its key does not name the sampler), so each
    pair shares its first draw, the private ``lambda_min``: a paired design. ``runs`` holds one
    dataset's rows (columns ``method``, ``ihm_sketch``, ``epsilon``, ``trial``, ``excess_risk``);
    unmatched trials are left out. Returns two float arrays.
    """
    import numpy as np

    at = runs[(runs["method"] == "IHM") & np.isclose(runs["epsilon"], eps)]
    gram = at[at["ihm_sketch"] == "gram"].set_index("trial")["excess_risk"]
    dense = at[at["ihm_sketch"] == "dense"].set_index("trial")["excess_risk"]
    both = gram.index.intersection(dense.index).sort_values()
    return gram.loc[both].to_numpy(dtype=float), dense.loc[both].to_numpy(dtype=float)


def gram_equivalence(intervals) -> bool | None:
    """The rule of :data:`GRAM_EQUIVALENCE_FACTOR` on Gram / dense intervals: True, False or None (undecided)."""
    f = GRAM_EQUIVALENCE_FACTOR
    ivs = list(intervals)
    if all(1 / f <= iv.low and iv.high <= f for iv in ivs):
        return True
    return False if any(iv.high < 1 / f or iv.low > f for iv in ivs) else None


ALL = (GRAM_IHM_FASTER, GRAM_IHM_ACCURACY, FASTIHM_FASTER_THAN_DENSE, AIRLINE_K2)
