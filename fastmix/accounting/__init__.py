"""Privacy accounting for Gaussian sketches, FastMix and the Gaussian mechanism.

Every privacy-loss formula of the FastMix paper (Lev, Shenfeld, Srinivasan, Ligett and Wilson, 2026,
arXiv:2605.30600) that the package relies on lives in this package, one small pure function
per formula, with the formula in the docstring and the equation it comes from. Every public
name is importable from ``fastmix.accounting`` itself; the modules hold one concept each.

Vocabulary
----------
* A *Renyi bound* ``r(alpha)`` bounds the alpha-Renyi divergence between the outputs of a
  mechanism on zero-out neighbouring datasets (Definition 2). The bounds below are for a
  *single* Gaussian row ``g^T S_f X + sigma xi^T``; ``k`` independent rows compose
  additively, so multiply by the number of rows (and by the number of repeated releases).
* A *conversion* turns an RDP curve into an (epsilon, delta) guarantee; the tightest
  epsilon is the minimum over alpha (Proposition 1, Canonne et al. 2020, Prop. 12).
* ``gamma`` is the noise-to-signal parameter of the paper: for the dense Gaussian sketch
  ``gamma = lambda_min(X^T X) + sigma^2`` (Proposition 2); for FastMix
  ``gamma = (lambda_min(S_f X) + sigma^2) / C^2_{S_f X}`` (eq. 7); for the bound without a
  row-norm control ``gamma_inf = lambda_min(S_f X) + sigma^2`` (Appendix C.2 / D.2).

Modules
-------
* ``conversions``: RDP to (epsilon, delta), Proposition 1, and the minimisation over alpha.
* ``renyi_bounds``: per-row Renyi bounds of the Gaussian mixing mechanism (Proposition 2) and of
  FastMix (Lemma 1, Appendix C), their admissible gammas and orders.
* ``sketch_epsilon``: composed sketches and one FastMix call (Theorem 1, Appendix D closed
  forms) and the gamma for a target epsilon (eq. 185, Theorem 2).
* ``gaussian_mechanism``: the Gaussian mechanism (Lemma 7; analytic calibration of Balle and
  Wang 2018; classical calibration).
* ``divergences``: exact Renyi divergences between Gaussians (eq. 16, 18-23).
* ``ledger``: :class:`PrivacyLedger`, its entries and errors (basic composition).
* ``noise_scale``: the noise scale of Figure 1.
* ``search``: :func:`smallest_feasible`, the bisection behind every calibration.

Public functions validate their inputs and raise :class:`ValueError` with the valid range.
Functions whose name starts with an underscore are unchecked and return ``np.inf`` outside
their domain so that they can be used inside minimisations.

References
----------
- O. Lev, M. Shenfeld, V. Srinivasan, K. Ligett, A. C. Wilson, 2026, "The Fast Mixing Mechanism
  for Differential Privacy", arXiv:2605.30600.
- C. Canonne, G. Kamath, T. Steinke, 2020, "The Discrete Gaussian for Differential
  Privacy", Proposition 12.
- I. Mironov, 2017, "Renyi Differential Privacy", Proposition 3 and Corollary 3.
- M. Gil, F. Alajaji, T. Linder, 2013, "Renyi divergence measures for commonly used
  univariate continuous distributions" (multivariate Gaussian closed form).
- B. Balle, Y.-X. Wang, 2018, "Improving the Gaussian Mechanism for Differential
  Privacy: Analytical Calibration and Optimal Denoising", ICML, Theorem 8 / Algorithm 1.
- C. Dwork, A. Roth, 2014, "The Algorithmic Foundations of Differential Privacy",
  Theorem A.1.
"""

from __future__ import annotations

# Every public name of the modules is importable from the package itself (``import *`` takes
# each module's ``__all__``). Imported by name besides, and not in ``__all__``: the cap on
# Renyi orders and the unchecked cores, which only the tests that compare them with brute
# force reach from outside the package (its own modules import from each other directly).
from . import conversions, divergences, gaussian_mechanism, ledger, noise_scale, renyi_bounds, search, sketch_epsilon
from .conversions import *  # noqa: F403
from .conversions import ALPHA_CAP as ALPHA_CAP
from .conversions import _canonne_term as _canonne_term
from .conversions import _epsilon_from_rdp as _epsilon_from_rdp
from .divergences import *  # noqa: F403
from .divergences import _renyi_from_generalised_eigs as _renyi_from_generalised_eigs
from .gaussian_mechanism import *  # noqa: F403
from .ledger import *  # noqa: F403
from .noise_scale import *  # noqa: F403
from .renyi_bounds import *  # noqa: F403
from .renyi_bounds import _fastmix_rdp_simple as _fastmix_rdp_simple
from .renyi_bounds import _fastmix_rdp_unbounded_simple as _fastmix_rdp_unbounded_simple
from .renyi_bounds import _gaussian_mix_rdp as _gaussian_mix_rdp
from .search import *  # noqa: F403
from .sketch_epsilon import *  # noqa: F403

#: The public names of the modules, module by module.
__all__ = [
    *conversions.__all__,
    *renyi_bounds.__all__,
    *sketch_epsilon.__all__,
    *gaussian_mechanism.__all__,
    *divergences.__all__,
    *ledger.__all__,
    *noise_scale.__all__,
    *search.__all__,
]
