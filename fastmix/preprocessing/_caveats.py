"""What stands in the way of publishing a fitted step: the sentences the bounding tools and the certificate share."""

from __future__ import annotations

import numpy as np

_UNRELEASED_SENTENCE = (
    "keep_unreleased=True: it keeps n_clipped_, a count over the private records that no privacy guarantee "
    "covers; refit with keep_unreleased=False before publishing the fitted object"
)


def _keeps_unreleased(step) -> bool:
    """``keep_unreleased=True`` now, or a count kept by the fit (``n_clipped_``)."""
    flag = getattr(step, "keep_unreleased", False)
    return (isinstance(flag, (bool, np.bool_)) and bool(flag)) or "n_clipped_" in getattr(step, "__dict__", {})


def _own_caveats(est) -> list:
    """``est.publication_caveats()``, or the same checks made here for an estimator without the method."""
    from sklearn.exceptions import NotFittedError

    if callable(getattr(type(est), "publication_caveats", None)):
        try:
            return [str(c) for c in est.publication_caveats()]
        except NotFittedError:  # not fitted: nothing to publish (the estimator's verdict says so)
            return []
    name = type(est).__name__
    out = []
    flag = getattr(est, "keep_unreleased", False)
    if isinstance(flag, (bool, np.bool_)) and bool(flag):
        out.append(
            f"{name} was fitted with keep_unreleased=True: it keeps statistics of the private records that no "
            "privacy guarantee covers (such as the largest row norm); refit with keep_unreleased=False to publish."
        )
    seed = getattr(est, "random_state", None)
    if seed is not None:
        shown = repr(seed) if isinstance(seed, (int, np.integer)) else type(seed).__name__
        out.append(
            f"{name} was fitted with random_state={shown}: whoever holds the seed can recompute the privacy noise "
            "and subtract it from the release; refit with random_state=None to publish."
        )
    if getattr(getattr(est, "feature_map_", None), "_points", None) is not None:
        out.append(
            f"{name} was fitted with the exact path sampler: its feature_map_ holds the training inputs X (its "
            "predictions are private, the object is not); refit with sampler='approximate' to publish."
        )
    return out
