"""Renyi bounds of one row of the Gaussian mixing mechanism and of FastMix, with their domains.

One row ``g^T S_f X + sigma xi^T`` of a Gaussian sketch (GaussMix: ``S_f = I``) is bounded in
alpha-Renyi divergence on zero-out neighbours by a function of the noise-to-signal parameter
gamma; ``k`` rows compose additively. FastMix paper (arXiv:2605.30600): Proposition 2, eq. (5)
(the dense Gaussian sketch); Lemma 1, eq. (7)-(8) and Appendix C.1, eq. (50)-(57) (FastMix,
with and without ``C^2``); Appendix C.2 / D.2, eq. (76), (130)-(132) (without row-norm control).
The admissible gammas and orders of each bound are :func:`fastmix_gamma_min` and
:func:`fastmix_alpha_max`; :func:`renyi_bound` evaluates any of them as a curve.

Each bound is described once, by one record of the registry below (its per-row function, its
admissible gammas and orders, its equation and how messages name it); every lookup by name reads
from that registry.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, fields

import numpy as np

from .._validation import check_positive
from ._checks import _as_float_array, _check_alpha, _check_c2, _check_gamma, _scalar_or_array

__all__ = [
    "gaussian_mix_rdp",
    "fastmix_rdp_exact",
    "fastmix_rdp_bar",
    "fastmix_rdp_simple",
    "fastmix_rdp_unbounded",
    "fastmix_rdp_unbounded_simple",
    "mixing_rdp",
    "renyi_bound",
    "q_from_c2",
    "fastmix_alpha_max",
    "fastmix_gamma_min",
    "fastmix_gamma_bar",
]


def _mix_rdp_q(alpha, gamma: float, q: float):
    """phi(alpha; gamma, q) of eq. (50)-(52) with q = ((1 - C^2)/C^2)^2; inf outside domain.

    ::

        1/(2(alpha-1)) [ alpha log(1 - 1/gamma - q/(4 gamma^2))
                         - log(1 - alpha/gamma - alpha^2 q/(4 gamma^2)) ]
    """
    alpha = np.asarray(alpha, dtype=float)
    first = 1.0 / gamma + q / (4.0 * gamma * gamma)
    second = alpha / gamma + alpha * alpha * q / (4.0 * gamma * gamma)
    ok = (first < 1.0) & (second < 1.0) & (alpha > 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        val = (alpha * np.log1p(-first) - np.log1p(-np.where(ok, second, 0.0))) / (2.0 * (alpha - 1.0))
    return np.where(ok, val, np.inf)


def _gaussian_mix_rdp(alpha, gamma: float, c2: float | None = None):
    """Unchecked phi(alpha; gamma) of Proposition 2, eq. (5)."""
    return _mix_rdp_q(alpha, gamma, 0.0)


def _fastmix_rdp_exact(alpha, gamma: float, c2: float | None = None):
    """Unchecked phi(alpha; gamma, C^2) of eq. (50)-(52); inf outside its domain."""
    if c2 is None:
        raise ValueError("bound='exact' needs c2 = C^2_(S_f X) >= 1.")
    return _mix_rdp_q(alpha, gamma, _q_from_c2(c2))


def _fastmix_rdp_bar(alpha, gamma: float, c2: float | None = None):
    """Unchecked phi_bar(alpha; gamma) of eq. (57)/(115), restricted to alpha < 4 gamma / 5."""
    alpha = np.asarray(alpha, dtype=float)
    return np.where(alpha < 0.8 * gamma, _mix_rdp_q(alpha, gamma, 1.0), np.inf)


def _fastmix_rdp_simple(alpha, gamma: float, c2: float | None = None):
    """Unchecked 25 alpha / (32 gamma^2) of Lemma 1, eq. (8), for 1 < alpha < 8 gamma / 25."""
    alpha = np.asarray(alpha, dtype=float)
    ok = (alpha > 1.0) & (alpha < 8.0 * gamma / 25.0)
    return np.where(ok, 25.0 * alpha / (32.0 * gamma * gamma), np.inf)


def _fastmix_rdp_unbounded(alpha, g: float, c2: float | None = None):
    """Unchecked phi_hat(alpha; gamma_inf) of eq. (76) / (130)."""
    alpha = np.asarray(alpha, dtype=float)
    c = 2.0 / math.sqrt(g) - 1.0 / g  # eq. (131): phi_hat(alpha; g) = phi(alpha; 1/c)
    if not (0.0 < c < 1.0):
        return np.full(alpha.shape, np.inf)
    return _mix_rdp_q(alpha, 1.0 / c, 0.0)


def _fastmix_rdp_unbounded_simple(alpha, g: float, c2: float | None = None):
    """Unchecked 2 alpha / gamma_inf of eq. (132), for 1 < alpha < sqrt(gamma_inf) / 5."""
    alpha = np.asarray(alpha, dtype=float)
    ok = (alpha > 1.0) & (alpha < math.sqrt(g) / 5.0)
    return np.where(ok, 2.0 * alpha / g, np.inf)


def fastmix_gamma_bar(c2) -> float:
    """Smallest gamma for which the exact bound phi(alpha; gamma, C^2) is defined.

    FastMix paper, Appendix C.1, eq. (53)::

        gamma_bar(C^2) = (1 + sqrt(1 + (1/C^2 - 1)^2)) / 2

    ``gamma_bar`` is the positive root of ``t^2 - t - q/4`` with ``q = (1/C^2 - 1)^2``, so
    ``gamma > gamma_bar`` and ``alpha < gamma / gamma_bar`` are exactly the conditions for
    both logarithms of eq. (50)-(51) to be finite (not only sufficient ones). It grows from
    1 (C^2 = 1) to (1 + sqrt 2)/2 ~ 1.207 (C^2 -> inf), below the 5/4 used by the paper.
    """
    c = _check_c2(c2)
    return _gamma_bar_q(_q_from_c2(c))


def _q_from_c2(c2: float) -> float:
    if math.isinf(c2):
        return 1.0
    return ((1.0 - c2) / c2) ** 2


def _gamma_bar_q(q: float) -> float:
    return 0.5 * (1.0 + math.sqrt(1.0 + q))


# --------------------------------------------------------------------------- the registry of bounds


@dataclass(frozen=True)
class _RenyiBound:
    """One per-row Renyi bound: everything this package reads about it, in one place.

    Every field is required; :func:`_register` adds a bound to :data:`_REGISTRY`, from which
    :func:`fastmix_gamma_min`, :func:`fastmix_alpha_max`, :func:`renyi_bound`, the checked bound
    functions and :mod:`fastmix.accounting.sketch_epsilon` look it up by ``name``.
    """

    #: The value of ``bound=`` that selects it.
    name: str
    #: How error messages name it (with its equation).
    label: str
    #: How the message on Renyi orders outside its domain names it.
    alpha_label: str
    #: Its noise-to-signal parameter: ``"gamma"``, or ``"gamma_inf"`` without row-norm control.
    gamma_name: str
    #: Where the FastMix paper states the bound and its domain.
    reference: str
    #: Whether it depends on ``C^2_(S_f X)`` (then ``c2`` must be given).
    needs_c2: bool
    #: Unchecked per-row bound ``(alpha, gamma, c2) -> values``, ``inf`` outside its domain.
    rdp: Callable[..., np.ndarray]
    #: ``c2 -> `` infimum of the admissible gamma (the bound needs gamma above it).
    gamma_min: Callable[[float | None], float]
    #: That infimum as written in the paper (for messages).
    gamma_min_text: str
    #: ``(gamma, c2) -> `` upper end of the admissible Renyi orders, which lie in ``(1, alpha_max)``.
    alpha_max: Callable[[float, float | None], float]
    #: That upper end as a formula (for messages).
    alpha_max_text: str

    def __post_init__(self):
        for field in fields(self):
            value = getattr(self, field.name)
            if field.type == "bool":
                ok = isinstance(value, bool)
            elif field.type == "str":
                ok = isinstance(value, str) and bool(value.strip())
            else:
                ok = callable(value)
            if not ok:
                raise ValueError(f"Renyi bound {self.name!r}: field {field.name!r} is missing or invalid: {value!r}.")


#: Every per-row Renyi bound by name, in the order error messages list them.
_REGISTRY: dict[str, _RenyiBound] = {}


def _register(bound: _RenyiBound) -> _RenyiBound:
    """Add ``bound`` to :data:`_REGISTRY` (a name can be registered once)."""
    if not isinstance(bound, _RenyiBound):
        raise TypeError(f"only a _RenyiBound can be registered; got {type(bound).__name__}.")
    if bound.name in _REGISTRY:
        raise ValueError(f"a Renyi bound named {bound.name!r} is already registered.")
    _REGISTRY[bound.name] = bound
    return bound


def _exact_gamma_bar(c2: float | None) -> float:
    if c2 is None:
        raise ValueError("bound='exact' needs c2 = C^2_(S_f X) >= 1.")
    return _gamma_bar_q(_q_from_c2(c2))


_register(
    _RenyiBound(
        name="gaussian",
        label="phi (Proposition 2)",
        alpha_label="phi (Proposition 2)",
        gamma_name="gamma",
        reference="Proposition 2, eq. (5)",
        needs_c2=False,
        rdp=_gaussian_mix_rdp,
        gamma_min=lambda c2: 1.0,
        gamma_min_text="1",
        alpha_max=lambda g, c2: g,
        alpha_max_text="gamma",
    )
)
_register(
    _RenyiBound(
        name="exact",
        label="phi(alpha; gamma, C^2) (eq. 50-52)",
        alpha_label="phi(alpha; gamma, C^2) (eq. 53)",
        gamma_name="gamma",
        reference="Appendix C.1, eq. (50)-(53)",
        needs_c2=True,
        rdp=_fastmix_rdp_exact,
        gamma_min=_exact_gamma_bar,
        gamma_min_text="gamma_bar(C^2)",
        alpha_max=lambda g, c2: g / _exact_gamma_bar(c2),
        alpha_max_text="gamma/gamma_bar(C^2)",
    )
)
_register(
    _RenyiBound(
        name="bar",
        label="phi_bar (eq. 57)",
        alpha_label="phi_bar",
        gamma_name="gamma",
        reference="eq. (57), (113)-(115)",
        needs_c2=False,
        rdp=_fastmix_rdp_bar,
        gamma_min=lambda c2: 1.25,
        gamma_min_text="5/4",
        alpha_max=lambda g, c2: 0.8 * g,
        alpha_max_text="4*gamma/5",
    )
)
_register(
    _RenyiBound(
        name="simple",
        label="25 alpha/(32 gamma^2) (Lemma 1)",
        alpha_label="25 alpha/(32 gamma^2) (Lemma 1)",
        gamma_name="gamma",
        reference="Lemma 1, eq. (7)-(8)",
        needs_c2=False,
        rdp=_fastmix_rdp_simple,
        gamma_min=lambda c2: 25.0 / 8.0,
        gamma_min_text="25/8",
        alpha_max=lambda g, c2: 8.0 * g / 25.0,
        alpha_max_text="8*gamma/25",
    )
)
_register(
    _RenyiBound(
        name="unbounded",
        label="phi_hat (eq. 76; gamma means gamma_inf)",
        alpha_label="phi_hat (eq. 76)",
        gamma_name="gamma_inf",
        reference="Appendix C.2, eq. (76); Appendix D.2, eq. (130)-(131)",
        needs_c2=False,
        rdp=_fastmix_rdp_unbounded,
        gamma_min=lambda c2: 1.0,
        gamma_min_text="1",
        alpha_max=lambda g, c2: g / (2.0 * math.sqrt(g) - 1.0),
        alpha_max_text="g/(2*sqrt(g) - 1)",
    )
)
_register(
    _RenyiBound(
        name="unbounded_simple",
        label="2 alpha/gamma_inf (eq. 132)",
        alpha_label="2 alpha/gamma_inf (eq. 132)",
        gamma_name="gamma_inf",
        reference="Appendix D.2, eq. (132)",
        needs_c2=False,
        rdp=_fastmix_rdp_unbounded_simple,
        gamma_min=lambda c2: 25.0,
        gamma_min_text="25",
        alpha_max=lambda g, c2: math.sqrt(g) / 5.0,
        alpha_max_text="sqrt(g)/5",
    )
)


def _lookup(bound) -> _RenyiBound:
    """The registered bound named ``bound``; ValueError naming the registered ones otherwise."""
    found = _REGISTRY.get(bound) if isinstance(bound, str) else None
    if found is None:
        raise ValueError(f"bound must be one of {tuple(_REGISTRY)}; got {bound!r}.")
    return found


def _require_c2(entry: _RenyiBound, c2):
    """``c2`` checked when ``entry`` needs it (ValueError if it is missing), else ``None``."""
    if not entry.needs_c2:
        return None
    if c2 is None:
        raise ValueError(f"bound={entry.name!r} needs c2 = C^2_(S_f X) >= 1.")
    return _check_c2(c2)


# Views of the registry for the package's other modules (read, never written).
_BOUND_LABEL = {b.name: b.label for b in _REGISTRY.values()}
_GAMMA_MIN_TEXT = {b.name: b.gamma_min_text for b in _REGISTRY.values()}
# Unchecked per-row bounds by name (gamma means gamma_inf for the unbounded ones); those without c2.
_UNCHECKED_BOUND = {b.name: b.rdp for b in _REGISTRY.values() if not b.needs_c2}


def fastmix_gamma_min(bound="bar", *, c2=None) -> float:
    """Infimum of the admissible gamma for each Renyi bound (the bound needs gamma > this).

    ============================  =====================================  ======================
    bound                         gamma must exceed                      source
    ============================  =====================================  ======================
    ``"gaussian"``                1                                      Prop. 2, eq. (5)
    ``"exact"``                   gamma_bar(C^2)                         eq. (53)
    ``"bar"``                     5/4                                    eq. (57), (115)
    ``"simple"``                  25/8                                   eq. (7)-(8)
    ``"unbounded"``               1   (gamma means gamma_inf)            eq. (76)
    ``"unbounded_simple"``        25  (so that sqrt(gamma_inf)/5 > 1)    eq. (132)
    ============================  =====================================  ======================
    """
    entry = _lookup(bound)
    return entry.gamma_min(_require_c2(entry, c2))


def _alpha_max(gamma: float, bound: str, c2: float | None = None) -> float:
    """Unchecked upper end of the Renyi orders of ``bound`` at ``gamma`` (``c2`` already checked)."""
    entry = _lookup(bound)
    if entry.needs_c2 and c2 is None:
        raise ValueError(f"bound={entry.name!r} needs c2 = C^2_(S_f X) >= 1.")
    return entry.alpha_max(gamma, c2)


def _checked_bound(bound: str, alpha, gamma, c2=None):
    """The bound named ``bound`` at checked arguments: ValueError outside its domain."""
    entry = _lookup(bound)
    c = _require_c2(entry, c2)
    g = _check_gamma(gamma, entry.gamma_min(c), entry.gamma_name, entry.label, entry.gamma_min_text)
    a, scalar = _check_alpha(alpha, entry.alpha_max(g, c), entry.alpha_label, entry.alpha_max_text)
    return _scalar_or_array(entry.rdp(a, g, c), scalar)


def fastmix_alpha_max(gamma, bound="bar", *, c2=None) -> float:
    """Upper end of the Renyi orders for which a bound holds (orders live in (1, alpha_max)).

    ==================  ==========================  ===========================
    bound               alpha_max                   source
    ==================  ==========================  ===========================
    "gaussian"          gamma                       Prop. 2, eq. (5)
    "exact"             gamma / gamma_bar(C^2)      eq. (53)
    "bar"               4 gamma / 5                 eq. (57), (113)-(115)
    "simple"            8 gamma / 25                eq. (8)
    "unbounded"         g / (2 sqrt(g) - 1)         eq. (76) (Appendix C.2)
    "unbounded_simple"  sqrt(g) / 5                 eq. (132)
    ==================  ==========================  ===========================

    For ``"unbounded"`` Appendix D.2 states the smaller range ``alpha < sqrt(g)/2``; the
    logarithm of eq. (76) is finite up to ``g/(2 sqrt(g) - 1)`` (Appendix C.2), which is
    the range used here. For ``"bar"`` the logarithms are finite up to
    ``2 (sqrt 2 - 1) gamma ~ 0.83 gamma``; the paper (and this package) uses ``4 gamma/5``.

    Parameters
    ----------
    gamma : float
        The bound's gamma (``gamma_inf = lambda_min(Z) + sigma^2`` for the unbounded ones).
    bound : str, default="bar"
    c2 : float, optional
        C^2_(S_f X) >= 1, required for ``bound="exact"``.
    """
    entry = _lookup(bound)
    g = _check_gamma(gamma, fastmix_gamma_min(bound, c2=c2), "gamma", entry.label, entry.gamma_min_text)
    return entry.alpha_max(g, None if c2 is None else _check_c2(c2))


def gaussian_mix_rdp(alpha, gamma):
    """Renyi bound of one row of the Gaussian sketch (GaussMix), Proposition 2, eq. (5).

    For ``M(X) = g^T X + sigma xi^T`` with ``||x_i|| <= 1`` and
    ``gamma <= lambda_min(X^T X) + sigma^2`` (Lev et al. 2025)::

        phi(alpha; gamma) = alpha/(2(alpha-1)) log(1 - 1/gamma)
                            - 1/(2(alpha-1)) log(1 - alpha/gamma)

    valid for ``gamma > 1`` and ``1 < alpha < gamma``. ``k`` rows give ``k * phi``.

    Parameters
    ----------
    alpha : float or ndarray
    gamma : float

    Returns
    -------
    float or ndarray
    """
    return _checked_bound("gaussian", alpha, gamma)


def fastmix_rdp_exact(alpha, gamma, c2):
    """Tightest FastMix Renyi bound phi(alpha; gamma, C^2), Appendix C.1, eq. (50)-(52).

    With ``q = ((1 - C^2)/C^2)^2`` and ``gamma = (lambda_min(S_f X) + sigma^2)/C^2`` (eq. 7)::

        phi(alpha; gamma, C^2) = 1/(2(alpha-1)) [ alpha log(1 - 1/gamma - q/(4 gamma^2))
                                                  - log(1 - alpha/gamma - alpha^2 q/(4 gamma^2)) ]

    valid for ``gamma > gamma_bar(C^2)`` and ``1 < alpha < gamma/gamma_bar(C^2)`` (eq. 53;
    see :func:`fastmix_gamma_bar`). With ``C^2 = 1`` it equals :func:`gaussian_mix_rdp`;
    it increases to :func:`fastmix_rdp_bar` as ``C^2 -> inf`` (``q -> 1``).

    Parameters
    ----------
    alpha : float or ndarray
    gamma : float
    c2 : float
        ``C^2_(S_f X) = 1 + 2 max_i ||Z^T S_f e_i - x_i|| >= 1`` (``inf`` allowed).
    """
    return _checked_bound("exact", alpha, gamma, _check_c2(c2))


def fastmix_rdp_bar(alpha, gamma):
    """C^2-free FastMix Renyi bound phi_bar(alpha; gamma), eq. (57) / (115).

    ::

        phi_bar(alpha; gamma) = 1/(2(alpha-1)) [ alpha log(1 - 1/gamma - 1/(4 gamma^2))
                                                 - log(1 - alpha/gamma - alpha^2/(4 gamma^2)) ]

    (eq. 50-52 with q = 1, an upper bound for every C^2 >= 1), valid for ``gamma > 5/4``
    and ``1 < alpha < 4 gamma/5``. This is what Theorem 1 (eq. 113-114) composes.
    """
    return _checked_bound("bar", alpha, gamma)


def fastmix_rdp_simple(alpha, gamma):
    """Simplified FastMix Renyi bound of Lemma 1, eq. (8)::

        25 alpha / (32 gamma^2),   gamma > 25/8,  1 < alpha < 8 gamma/25.

    It is Lev et al. (2025, Corollary 1)'s ``alpha/(2 gamma'^2)`` applied to
    ``phi(alpha; gamma')`` with ``gamma' = 4 gamma/5`` (eq. 58-59).
    """
    return _checked_bound("simple", alpha, gamma)


def fastmix_rdp_unbounded(alpha, gamma_inf):
    """FastMix Renyi bound without row-norm control (C^2 -> inf), eq. (76) = eq. (130).

    With ``g = gamma_inf = lambda_min(Z) + sigma^2 > 1``::

        phi_hat(alpha; g) = 1/(2(alpha-1)) [ 2 alpha log(1 - 1/sqrt(g))
                                             - log(1 - 2 alpha/sqrt(g) + alpha/g) ]

    valid for ``1 < alpha < g/(2 sqrt(g) - 1)`` (Appendix C.2; Appendix D.2 quotes the
    smaller ``sqrt(g)/2``). Equivalently ``phi(alpha; 1/c)`` of eq. (5) with
    ``c = 2/sqrt(g) - 1/g`` (eq. 131).
    """
    return _checked_bound("unbounded", alpha, gamma_inf)


def fastmix_rdp_unbounded_simple(alpha, gamma_inf):
    """Simplified unbounded FastMix Renyi bound, eq. (132).

    ::

        2 alpha / gamma_inf,   1 < alpha < sqrt(gamma_inf)/5   (so gamma_inf > 25).
    """
    return _checked_bound("unbounded_simple", alpha, gamma_inf)


def q_from_c2(c2) -> float:
    """The parameter ``q`` of the exact FastMix bound as a function of ``C^2_(S_f X)``.

    FastMix paper, Appendix C.1, eq. (50)-(52)::

        q(C^2) = ((1 - C^2) / C^2)^2 = (1/C^2 - 1)^2,      q(inf) = 1

    ``q`` grows from 0 (``C^2 = 1``, where the exact bound is the GaussMix bound of
    Proposition 2) to 1 (``C^2 -> inf``, where it is ``phi_bar`` of eq. 57).

    Parameters
    ----------
    c2 : float
        ``C^2_(S_f X) = 1 + 2 max_i ||Z^T S_f e_i - x_i|| >= 1`` (Lemma 1); ``inf`` allowed.

    Returns
    -------
    q : float
        In ``[0, 1]``.

    See Also
    --------
    mixing_rdp : the bound ``phi(alpha; gamma, q)`` that ``q`` parametrises.
    fastmix_gamma_bar : the smallest admissible gamma, ``(1 + sqrt(1 + q)) / 2``.
    """
    return _q_from_c2(_check_c2(c2))


def mixing_rdp(alpha, gamma, q=0.0):
    """Renyi bound ``phi(alpha; gamma, q)`` of one Gaussian mixing row, as a curve over alpha.

    FastMix paper, Appendix C.1, eq. (50)-(52)::

        phi(alpha; gamma, q) = 1/(2(alpha-1)) [ alpha log(1 - 1/gamma - q/(4 gamma^2))
                                                - log(1 - alpha/gamma - alpha^2 q/(4 gamma^2)) ]

    ``q = 0`` is the GaussMix bound of Proposition 2, eq. (5); ``q = q_from_c2(C^2)`` the exact
    FastMix bound (:func:`fastmix_rdp_exact`); ``q = 1`` the C^2-free ``phi_bar`` of eq. (57)
    before its restriction to ``alpha < 4 gamma/5`` (:func:`fastmix_rdp_bar`).

    Unlike those functions, which raise outside their domain, this one is meant for
    minimisations (for example inside :func:`epsilon_from_rdp`): it returns ``inf`` where
    the bound does not hold, that is for ``alpha <= 1`` and wherever an argument of a
    logarithm is not positive (``gamma <= gamma_bar`` or ``alpha >= gamma / gamma_bar``, with
    ``gamma_bar = (1 + sqrt(1 + q))/2``, eq. 53).

    Parameters
    ----------
    alpha : float or ndarray
        Renyi orders.
    gamma : float
        The noise-to-signal parameter (``> 0``; eq. 7 for FastMix).
    q : float, default=0.0
        In ``[0, 1]`` (see :func:`q_from_c2`).

    Returns
    -------
    float or ndarray
        The bound per row (``k`` rows give ``k`` times it); ``inf`` outside the domain.
    """
    a, scalar = _as_float_array(alpha, "alpha")
    g = check_positive(gamma, "gamma")
    q_val, _ = _as_float_array(q, "q")
    if q_val.ndim or not 0.0 <= float(q_val) <= 1.0:
        raise ValueError(f"q = (1/C^2 - 1)^2 must be a number in [0, 1] (see q_from_c2); got {q!r}.")
    return _scalar_or_array(_mix_rdp_q(a, g, float(q_val)), scalar)


def renyi_bound(alpha, gamma, bound="bar", *, c2=None):
    """Any per-row Renyi bound of this module by name, as a curve: ``inf`` outside its domain.

    ::

        r(alpha; gamma) = bound(alpha; gamma)   if gamma > gamma_min and 1 < alpha < alpha_max,
                          inf                   otherwise

    with ``gamma_min`` from :func:`fastmix_gamma_min` and ``alpha_max`` from
    :func:`fastmix_alpha_max`. The bounds are those of :func:`gaussian_mix_rdp`
    (``"gaussian"``, Proposition 2, eq. 5), :func:`fastmix_rdp_exact` (``"exact"``, eq. 50-52,
    needs ``c2``), :func:`fastmix_rdp_bar` (``"bar"``, eq. 57), :func:`fastmix_rdp_simple`
    (``"simple"``, Lemma 1, eq. 8), :func:`fastmix_rdp_unbounded` (``"unbounded"``, eq. 76) and
    :func:`fastmix_rdp_unbounded_simple` (``"unbounded_simple"``, eq. 132); inside the domain
    the values are theirs. Those functions raise outside the domain; this one is meant for
    grids and minimisations (for instance comparing the bounds with an exact divergence, or
    the objective of :func:`epsilon_from_rdp`).

    Parameters
    ----------
    alpha : float or ndarray
        Renyi orders.
    gamma : float
        The bound's gamma (> 0; ``gamma_inf`` for the unbounded ones).
    bound : {"gaussian", "exact", "bar", "simple", "unbounded", "unbounded_simple"}, default="bar"
    c2 : float, optional
        ``C^2_(S_f X) >= 1``, required for ``bound="exact"``.

    Returns
    -------
    float or ndarray
        The bound per row; ``inf`` where it does not hold.
    """
    entry = _lookup(bound)
    a, scalar = _as_float_array(alpha, "alpha")
    g = check_positive(gamma, "gamma")
    c = _require_c2(entry, c2)
    if not g > entry.gamma_min(c):
        return _scalar_or_array(np.full(a.shape, np.inf), scalar)
    return _scalar_or_array(np.where(a < entry.alpha_max(g, c), entry.rdp(a, g, c), np.inf), scalar)
