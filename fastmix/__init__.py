"""fastmix: the reproducible companion to two papers on differential privacy by random sketching.

* Lev, Shenfeld, Srinivasan, Ligett and Wilson (2026), "The Fast Mixing Mechanism for Differential Privacy"
  (arXiv:2605.30600): the SRHT, the Gaussian mixing mechanism, FastMix (Algorithm 1),
  MultipleFastMixing (Algorithm 3) and FastIHM (Algorithm 2).
* Lee, Park and Ahn (2025), "Optimal differentially private kernel learning with random
  projection" (arXiv:2507.17544).

Modules are named after the papers' concepts: :mod:`fastmix.hadamard`, :mod:`fastmix.srht`,
:mod:`fastmix.accounting`, :mod:`fastmix.mechanisms`, :mod:`fastmix.regression`,
:mod:`fastmix.kernels`. This is the library; the machinery that reproduces the papers' figures
and builds the book lives in the separate package :mod:`fastmix_companion`, which imports this
one and is never imported by it.
"""

__version__ = "0.3.0"

__all__ = ["__version__"]
