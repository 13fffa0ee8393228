"""Data-independent hyperparameters ``(M, lambda)`` from the kernel paper's rates and proofs.

The projection dimension and the ridge penalty of Theorems 3, 6, 12 and 14, the Nystrom estimate
of the kernel operator's spectrum (Assumption 3) and the effective dimension ``N(lambda)``.
Using them costs no privacy (they depend on n, epsilon, delta and public samples only).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._compat import UnpacksAsTuple
from .._validation import check_delta, check_epsilon, check_matrix, check_positive_int
from ..accounting.search import smallest_feasible
from .gaussian_process_paths import laurent_massart_bound


def operator_spectrum(kernel, sample) -> np.ndarray:
    """Eigenvalues of ``K / m`` for a sample of m inputs: the Nystrom estimate of the spectrum of the
    kernel integral operator ``L`` under the sample's distribution (descending).

    These are the eigenvalues ``mu_l`` whose polynomial decay the kernel paper's Assumption 3
    (the eigenvalue assumption) restricts.

    Used with a *public* sample (drawn from a known input law, not the private data) so that
    quantities of the theory that depend on ``L``, such as :func:`effective_dimension`, cost no privacy.
    """
    X = check_matrix(sample, "sample", dtype=float)
    w = np.linalg.eigvalsh(kernel(X) / X.shape[0])[::-1]
    return np.clip(w, 0.0, None)


def effective_dimension(spectrum, lam) -> float:
    """``N(lam) = sum_l mu_l / (mu_l + lam)`` (kernel paper, the effective dimension of Lemma 11 / Theorem 12)."""
    mu = np.asarray(spectrum, dtype=float)
    return float(np.sum(mu / (mu + float(lam))))


@dataclass(frozen=True)
class Hyperparameters(UnpacksAsTuple):
    """The data-independent choice of :func:`theory_hyperparameters`.

    Attributes
    ----------
    n_components : int
        M, the projection (or random-feature) dimension.
    lam : float
        The ridge penalty lambda.
    """

    n_components: int
    lam: float

    _new_usage = "Read `.n_components` and `.lam` of the result."

    def _legacy_tuple(self) -> tuple:
        return (self.n_components, self.lam)


@dataclass(frozen=True)
class RPHyperparameters(UnpacksAsTuple):
    """The choice of :func:`theory_rp_hyperparameters`.

    Attributes
    ----------
    n_components : int
        M, the projection dimension.
    lam : float
        The ridge penalty lambda.
    effective_dimension : float
        ``N(lam)`` at the chosen ``lam`` (:func:`effective_dimension`).
    t : float
        The probability level of the projection-dimension condition.
    capped : bool
        Whether M was cut to ``max_components``.
    """

    n_components: int
    lam: float
    effective_dimension: float
    t: float
    capped: bool

    _new_usage = "Read `.n_components`, `.lam`, `.effective_dimension`, `.t` and `.capped` of the result."

    def _legacy_tuple(self) -> tuple:
        info = {"N_lam": self.effective_dimension, "t": self.t, "capped": self.capped}
        return (self.n_components, self.lam, info)


def theory_rp_hyperparameters(
    n, epsilon, delta, spectrum, *, c_m=1.0, c_lam=1.0, t=None, max_components=None
) -> RPHyperparameters:
    """(M, lam) for Algorithm 1 from the conditions of the kernel paper's proofs, with stated constants.

    Theorem 12 / the proof of Theorem 3 (Gaussian kernel, gamma = 0) ask for::

        lam ~ n^(-1) v (n eps)^(-1)                                (the rate)
        M   >= c_m (kappa^2 / ||L|| + N(lam)) log(2/t)             (projection dimension)
        (n lam eps)^2 >= c_lam^2 D2^2 M log(1/delta)               (C~ + lam I positive definite)

    with ``t = 1/n`` (the proof of Theorem 14 uses ``log n``) and ``D2`` the Laurent-Massart bound
    at ``delta/8``.  ``M`` falls and the right side of the last condition rises as ``lam`` grows, so the
    smallest ``lam`` above the rate meeting it is found by the package's feasible-side bisection
    (:func:`fastmix.accounting.smallest_feasible`).  The constants
    ``c_m`` and ``c_lam`` are ours (the paper's are unspecified); ``spectrum`` is a public estimate
    of the eigenvalues of ``L`` (:func:`operator_spectrum`).

    Returns
    -------
    RPHyperparameters
        ``n_components`` (M), ``lam``, ``effective_dimension`` (N(lam)), ``t`` and ``capped`` (M
        was cut to ``max_components``).
    """
    n = check_positive_int(n, "n")
    eps = check_epsilon(epsilon)
    delta = check_delta(delta)
    mu = np.asarray(spectrum, dtype=float)
    top = float(mu.max())
    t = 1.0 / n if t is None else float(t)
    L2 = math.log(2.0 / t)

    def M_of(lam):
        return max(1, math.ceil(c_m * (1.0 / top + effective_dimension(mu, lam)) * L2))

    def gap(lam):  # >= 0 when the positive-definiteness condition holds
        M = M_of(lam)
        D2 = laurent_massart_bound(1.0, M, delta / 8.0)
        return lam - c_lam * D2 * math.sqrt(M * math.log(1.0 / delta)) / (n * eps)

    rate = max(1.0 / n, 1.0 / (n * eps))
    # the smallest lam >= rate with gap(lam) >= 0, always on the feasible side
    lam = smallest_feasible(lambda lam: -gap(lam), 0.0, rate, max(rate, 1.0) * math.exp(5.0), rtol=1e-14)
    M = M_of(lam)
    capped = max_components is not None and M > int(max_components)
    if capped:
        M = int(max_components)
    return RPHyperparameters(M, lam, effective_dimension(mu, lam), t, bool(capped))


def theory_hyperparameters(n, epsilon, delta, *, method="rp", gamma=0.0, c_lam=1.0, c_m=2.0, max_components=None):
    """Data-independent (M, lam) from the kernel paper's rates; using them costs no privacy.

    Projection dimension (kernel paper, discussion after Theorem 6)::

        RP  (Algorithm 1):  M = c_m * n^(gamma/(1+gamma)) ^ (n eps)^(2 gamma/(2+gamma)),
                            times log n (the gamma = 0 case of the proof of Theorem 14)
        RFF (Algorithm 3):  M = (n eps)^(2/3) ^ n        (no compatibility assumption, alpha = 1)

    Ridge penalty: the rate ``lam ~ n^(-1/(1+gamma)) v (n eps)^(-2/(2+gamma))`` (Theorem 3; with
    ``alpha = 1`` in place of gamma for RFF, Theorem 6), raised to the positive-definiteness
    condition of the proofs, ``(n lam eps)^2 >~ M log(1/delta)`` (after Theorem 3 and in the proof
    of Theorem 12), whose constant we take proportional to the feature-norm bound D2::

        lam = max(rate, c_lam * D2 * sqrt(M log(1/delta)) / (n eps)).

    ``D2`` is the Laurent-Massart bound at ``t = delta/8`` for RP and 2 for RFF.  The constants
    ``c_lam`` and ``c_m`` are ours (the paper leaves them unspecified).  The RFF choice takes
    ``alpha = 1``, i.e. it assumes nothing about the compatibility condition (Assumption 5).

    Returns
    -------
    Hyperparameters
        ``n_components`` (M) and ``lam``.
    """
    n = check_positive_int(n, "n")
    eps = check_epsilon(epsilon)
    delta = check_delta(delta)
    if method == "rp":
        g = float(gamma)
        base = min(n ** (g / (1 + g)), (n * eps) ** (2 * g / (2 + g)))
        M = math.ceil(c_m * base * math.log(n))
        D2 = laurent_massart_bound(1.0, M, delta / 8.0)
        rate = max(n ** (-1.0 / (1 + g)), (n * eps) ** (-2.0 / (2 + g)))
    elif method == "rff":
        M = math.ceil(min(n, (n * eps) ** (2.0 / 3.0)))
        D2 = 2.0
        rate = max(1.0 / n, (n * eps) ** (-2.0 / 3.0))
    else:
        raise ValueError(f"method must be 'rp' or 'rff'; got {method!r}.")
    if max_components is not None:
        M = min(M, int(max_components))
    M = max(M, 1)
    lam = max(rate, c_lam * D2 * math.sqrt(M * math.log(1.0 / delta)) / (n * eps))
    return Hyperparameters(M, lam)
