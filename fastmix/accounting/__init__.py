"""Privacy accounting for Gaussian sketches, FastMix and the Gaussian mechanism (a package).

The implementation lives in the submodules; this module re-exports their public names.
"""

from .renyi_bounds import *  # noqa: F401,F403
from .renyi_bounds import (  # noqa: F401
    ALPHA_CAP,
    __all__,
    _canonne_term,
    _epsilon_from_rdp,
    _fastmix_rdp_bar,
    _fastmix_rdp_simple,
    _fastmix_rdp_unbounded_simple,
    _gamma_bar_q,
    _gaussian_mix_rdp,
    _mix_rdp_q,
    _q_from_c2,
    _renyi_from_generalised_eigs,
    _smallest_feasible,
)
