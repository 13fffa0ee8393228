"""Whether a fitted private estimator may be published (pickled and shared), read from what was fitted.

A private estimator's predictions are covered by its guarantee. The fitted object is covered only
when it holds nothing else: no statistic of the training data that no mechanism released, no seed
from which its noise can be recomputed, no training inputs. Every private estimator of the package
answers with ``publication_caveats()``, built from the sentences here, and :class:`PublicationMixin`
warns when a fitted object with caveats is pickled.

The checks read the fitted state, not the parameters: a parameter changed after ``fit``
(``set_params(random_state=None)`` or ``keep_unreleased=False``) does not change what the object
holds, so it does not clear a caveat. Each private ``fit`` records ``seeded_`` (whether it drew from
a seed the caller holds) for that reason.
"""

from __future__ import annotations

import warnings

from sklearn.exceptions import NotFittedError

from ._validation import PrivacyWarning

__all__ = ["PublicationMixin", "fitted_caveats", "record_seed"]


def record_seed(estimator, seeded: bool | None = None) -> None:
    """Set ``estimator.seeded_``: whether this fit drew from a seed or Generator the caller holds.

    ``seeded`` overrides the reading of ``random_state`` (a search that fits its candidates from its
    own seed passes True even after it resets their ``random_state``).
    """
    estimator.seeded_ = bool(getattr(estimator, "random_state", None) is not None if seeded is None else seeded)


def fitted_caveats(estimator, *, unreleased: bool, holds_inputs: bool = False) -> tuple[str, ...]:
    """The sentences of ``publication_caveats()`` for a fitted ``estimator``.

    Parameters
    ----------
    unreleased : bool
        Whether the fitted object holds statistics of the training data that were never released
        (read from its fitted attributes, not from ``keep_unreleased``).
    holds_inputs : bool
        Whether it keeps the training inputs (the exact GP-path sampler).
    """
    name = type(estimator).__name__
    caveats = []
    if unreleased:
        caveats.append(
            f"{name} holds statistics of the training data that no mechanism released (it was fitted with "
            "keep_unreleased=True); refit with keep_unreleased=False to publish."
        )
    if getattr(estimator, "seeded_", False):
        caveats.append(
            f"{name} was fitted from a seed (random_state is set, or was at fit): whoever holds the seed can "
            "recompute the privacy noise and subtract it; refit with random_state=None for a model you will publish."
        )
    if holds_inputs:
        caveats.append(
            f"{name} keeps the training inputs in feature_map_ (the exact path sampler draws its paths at new points "
            "given their values there), so the object contains X; fit with sampler='approximate', whose random "
            "frequencies do not depend on the data."
        )
    ledger = getattr(estimator, "privacy_ledger_", None)
    reasons = getattr(ledger, "not_private_reasons", ())
    if reasons:
        caveats.append(f"{name} was fitted with options that break the guarantee: " + " ".join(reasons))
    return tuple(caveats)


class PublicationMixin:
    """Warns :class:`~fastmix._validation.PrivacyWarning` when a fitted object with publication caveats is pickled.

    The class defines ``publication_caveats()``; an unfitted object (whose ``publication_caveats()``
    returns nothing or raises :class:`~sklearn.exceptions.NotFittedError`) never warns, so
    scikit-learn's ``clone`` and joblib's copies of unfitted estimators stay quiet.
    """

    def __getstate__(self):
        try:
            caveats = self.publication_caveats()  # type: ignore[attr-defined]
        except NotFittedError:  # nothing fitted, nothing to publish
            caveats = ()
        if caveats:
            warnings.warn(
                f"Pickling a {type(self).__name__} that must not be published (its predictions are private; the "
                "pickled object is not): " + " ".join(caveats),
                PrivacyWarning,
                stacklevel=2,
            )
        return super().__getstate__()  # type: ignore[misc]
