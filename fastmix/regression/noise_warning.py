"""The warning raised when a private least-squares fit is dominated by its noise (FastMix paper, Section 4)."""

from __future__ import annotations


class NoiseDominatesWarning(UserWarning):
    """A private fit whose noise swamps the signal (judged from public and released quantities only)."""


#: FastIHMRegressor warns when eta^2 exceeds this multiple of n/d (the average-eigenvalue bound of X^T X).
NOISE_DOMINATES_RATIO = 10.0
