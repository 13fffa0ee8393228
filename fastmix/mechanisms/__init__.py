"""Private sketching mechanisms: Gaussian mixing, FastMix and MultipleFastMixing.

* :func:`gaussian_mix` - the Gaussian mixing mechanism of Proposition 2 (Lev et al. 2025):
  ``S_G X + sigma N`` with k i.i.d. Gaussian rows.
* :func:`fast_mix` - FastMix, Algorithm 1 of the FastMix paper: an SRHT S_f first, then a
  small Gaussian sketch of ``Z = S_f X``, with the noise level chosen from private
  (Laplace) estimates of ``m_hat`` and ``lambda_min(Z^T Z)``.
* :func:`multiple_fast_mixing` - Algorithm 3 (Appendix G): T independent SRHT draws sharing
  one noise level ``eta = max_t eta_t``, the building block of FastIHM (Algorithm 2).

Privacy is calibrated before any data is touched (:func:`calibrate_fast_mix`,
:func:`calibrate_gaussian_mix`); each run spends its calibrated budget in a
:class:`fastmix.accounting.PrivacyLedger` if one is passed, and always returns its ledger
entries, stated for zero-out neighbours (one row set to zero; the FastMix paper's Section 2).
Throughout, rows of X must satisfy ``||x_i|| <= C_X`` (the papers take C_X = 1); rows above the
bound are an error unless ``row_norm_policy`` says to clip them, and a number of rows that is
not a power of two is padded with zero rows (lossless under zero-out neighbouring) unless
``n_policy="raise"``. Both are recorded in the result.

**Modules.** Every public name is importable from ``fastmix.mechanisms`` itself; the modules hold one
concept each: ``data`` (:func:`prepare_data`, the checks every mechanism runs), ``gaussian_step``
(:func:`mix_sketch`, the Gaussian step ``S_G Z + noise_scale * xi`` shared by all mechanisms),
``gaussian_mixing`` (Proposition 2), ``fast_mixing`` (the calibration of Algorithms 1 and 3,
the options of a draw, :class:`FastMixDrawOptions`, and Algorithm 1 itself) and
``multiple_mixing`` (Algorithm 3).
"""

from __future__ import annotations

# Every public name of the modules below is importable from ``fastmix.mechanisms``. Private names
# stay in their modules: a test that sets one (the block size of the explicit Gaussian step) sets
# it on the module that reads it, ``fastmix.mechanisms.gaussian_step``.
from .data import N_POLICIES, PreparedData, prepare_data
from .fast_mixing import FastMixCalibration, FastMixDrawOptions, FastMixRelease, calibrate_fast_mix, fast_mix
from .gaussian_mixing import GaussianMixCalibration, calibrate_gaussian_mix, gaussian_mix
from .gaussian_step import GAUSSIAN_STEPS, mix_sketch
from .multiple_mixing import MultipleFastMixingResult, multiple_fast_mixing

__all__ = [
    "GaussianMixCalibration",
    "calibrate_gaussian_mix",
    "gaussian_mix",
    "FastMixCalibration",
    "calibrate_fast_mix",
    "FastMixDrawOptions",
    "FastMixRelease",
    "fast_mix",
    "MultipleFastMixingResult",
    "multiple_fast_mixing",
    "mix_sketch",
    "GAUSSIAN_STEPS",
    "PreparedData",
    "prepare_data",
    "N_POLICIES",
]
