"""scikit-learn estimators for the FastMix paper's least-squares solvers (Section 4, Algorithm 2).

:class:`FastIHMRegressor`, :class:`IHMRegressor`, :class:`FastIHSRegressor` and
:class:`AdaSSPRegressor` wrap :func:`fast_ihm`, :func:`ihm`, :func:`fast_ihs` and :func:`adassp`
with scikit-learn's parameter names (``n_iter`` for the iteration count T) and an optional
intercept appended within the norm bound.

What the guarantee covers
-------------------------
A private estimator's ``fit`` is ``(epsilon, delta)``-differentially private for **zero-out
neighbours of the records**: two data sets of the same size n that differ in one record, which
in one of them is absent, i.e. its whole row of the matrix the solver sees is zero. That row is
the record after every step before the solver: the encoded features (by a data-independent
encoder such as :class:`fastmix.preprocessing.BoundedTableEncoder`), the intercept coordinate
``c/s`` and the response. This is the FastMix paper's relation (Section 2) applied to that
matrix, so the calibrations hold exactly; n is treated as public. It is *not* a guarantee for
"the record's raw values replaced by zeros": with ``fit_intercept=True`` such a record keeps its
intercept coordinate, and the gradient release's sensitivity for that pair grows from C to
``C sqrt((1 + 4 c^2) / (1 + c^2))`` (1.58 C at ``c = 1``), which the calibration does not pay
for. ``privacy_relation`` and ``privacy_ledger_.relation`` name the relation ("zero-out").

The guarantee covers the fitted coefficients, ``intercept_``, the ledger and everything kept on
the fitted estimator by default. Statistics of the training data that no mechanism released (the
largest row norm, the counts of values over their bounds, the non-private eigenvalue and
coherence diagnostics) are dropped at the end of ``fit`` unless ``keep_unreleased=True``; an
estimator fitted with it must not be published. Nor must a seeded one (``random_state`` not
None): whoever holds the seed can recompute the noise and subtract it. With the default
``random_state=None`` nothing of the random stream is kept; :meth:`~_SketchedRegressorBase.publication_caveats`
lists what stands in the way of publishing a fitted estimator, and pickling one with caveats
warns. Rows and responses within the rounding tolerance of their bounds are projected onto them,
so the bounds the calibrations pay for hold for every row the solver sees. An option that breaks the guarantee
(``row_norm_policy="rescale"`` or ``y_policy="rescale"``, listed by
:meth:`~_SketchedRegressorBase.non_private_options`) warns at ``fit``
(:class:`~fastmix.regression.NotPrivateWarning`) and its ledger entries say "not private".
"""

from __future__ import annotations

import warnings

from .._validation import EPSILON_RANGE, check_positive_int
from ..hadamard import power_of_two_size
from .adaptive_ssp import adassp
from .estimator_base import UNRELEASED_DIAGNOSTICS, _SketchedRegressorBase
from .fast_hessian_mixing import fast_ihm
from .hessian_mixing import ihm
from .hessian_sketch import fast_ihs
from .noise_warning import NOISE_DOMINATES_RATIO, NoiseDominatesWarning, fastihm_noise_ratio
from .paper_sizes import paper_sketch_sizes

__all__ = [
    "FastIHMRegressor",
    "IHMRegressor",
    "FastIHSRegressor",
    "AdaSSPRegressor",
    "EPSILON_RANGE",
    "UNRELEASED_DIAGNOSTICS",
]


class FastIHMRegressor(_SketchedRegressorBase):
    """Differentially private least squares with FastIHM (FastMix paper, Algorithm 2).

    Parameters
    ----------
    epsilon : float, default=1.0
    delta : float or None, default=None
        None means 1/n^2 (Appendix H).
    n_iter : int, default=4
        T, the number of iterations (Appendix H uses 4).
    k1, k2 : int or None
        Gaussian and SRHT rows; None means the paper's choice ``6 max{d, log(4T/rho)}`` and
        ``k2_ratio max{d, log(4T/rho)}`` (:func:`paper_sketch_sizes`), the default k2 being capped
        at the padded n (recorded in ``diagnostics_``).
    k2_ratio : float, default=800.0
        The paper's most accurate ratio (Figure 2 uses 4, 400 and 800; the larger k2, the closer
        FastIHM comes to IHM, at more transform cost), capped at the padded n. ``fit`` warns
        (:class:`NoiseDominatesWarning`) when the released eta^2 exceeds 10 times the most IHM adds
        to its Hessian at the same budget (:func:`fastihm_noise_ratio`); the message names
        IHMRegressor and AdaSSPRegressor and the book page that compares them ("Which private
        solver when").
    rho : float or None
        Utility failure probability; None means delta/10.
    clip : float, default=1.0
        C, the bound on ``|y_i|`` and the residual clipping level.
    calibration : {"tight", "closed_form"}, default="tight"
    shared_eta, omit_eta_term, m_floor : see :func:`fast_ihm`.
    row_norm_policy, y_policy, n_policy : see :func:`prepare_regression`. With
        ``"rescale"`` the estimator works on any data (coefficients are mapped back to the
        original units) but the data-dependent scaling is not private: ``fit`` warns
        (:class:`~fastmix.regression.NotPrivateWarning`) and the ledger's entries say "not
        private" (:meth:`non_private_options` lists such choices). ``y_policy="clip"`` clips each
        response to ``[-C, C]`` (private) and warns with the count
        (:class:`~fastmix.regression.ResponseClippingWarning`) when it clipped any.
    fit_intercept : bool, default=True
        Fit an intercept through a constant coordinate appended within the norm bound (no
        data-dependent step, some accuracy cost: see the class notes of the base estimator
        below). The guarantee is then for a record's whole augmented row, constant coordinate
        included (module docstring, *What the guarantee covers*). False is the paper's setting.
    intercept_scaling : float, default=1.0
        The constant ``c`` appended to each row (the rows are then divided by ``sqrt(1 + c^2)``);
        ``fit`` warns outside ``[1/3, 3]``.
    ledger : PrivacyLedger or None, default=None
        An outer budget for the data set: every fit charges its cost there too, and a fit that
        would take it past its target is refused before the solver reads the data (only the
        input checks of shape, type and finiteness run first;
        :class:`~fastmix.accounting.BudgetExceededError`). Repeated fits on the same data
        (cross-validation, a grid search, refits) compose in it. scikit-learn's ``clone`` keeps
        the same ledger (a ledger is never copied); in another process (``n_jobs > 1``) it refuses
        to spend. Without it each fit has its own ledger at the full ``(epsilon, delta)``, and
        ``k`` fits on the same data cost ``k`` times that: plain ``GridSearchCV`` over ``G``
        candidates with ``F`` folds spends the budget about ``G F + 1`` times.
    random_state : None, int, SeedSequence or Generator
        The source of every draw. A seed is for reproducible research: whoever holds it can
        recompute the noise of the fit and subtract it, so a seeded fitted model must not be
        published (pickling it warns, :meth:`publication_caveats`). Leave None (fresh entropy,
        nothing kept on the fitted object) for a model you will publish.
    gaussian_step : {"explicit", "gram"}, default="explicit"
        How the Gaussian step is sampled; the same law either way (see :func:`fast_ihm`).
    keep_unreleased : bool, default=False
        Keep on the fitted estimator the statistics of the training data that no mechanism
        released: the largest row norm and the counts of rows and responses over their bounds
        (in ``data_record_``) and the non-private ``m_hat`` and ``lambda_min`` (in
        ``diagnostics_``). They are **not** covered by the guarantee: an estimator fitted with
        ``True`` is for the data holder's own inspection and must not be published. With the
        default the fitted estimator holds only released quantities, public parameters and n.

    Attributes
    ----------
    coef_ : ndarray of shape (d,)
    intercept_ : float (0 when ``fit_intercept=False``)
    privacy_ledger_ : PrivacyLedger
    diagnostics_ : dict
    data_record_ : DataRecord
    result_ : RegressionResult
    """

    def __init__(
        self,
        epsilon=1.0,
        delta=None,
        *,
        n_iter=4,
        k1=None,
        k2=None,
        k2_ratio=800.0,
        rho=None,
        clip=1.0,
        calibration="tight",
        shared_eta=True,
        omit_eta_term=True,
        m_floor=0.0,
        row_norm_policy="raise",
        y_policy="raise",
        n_policy="pad",
        fit_intercept=True,
        intercept_scaling=1.0,
        ledger=None,
        random_state=None,
        gaussian_step="explicit",
        keep_unreleased=False,
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.n_iter = n_iter
        self.k1 = k1
        self.k2 = k2
        self.k2_ratio = k2_ratio
        self.gaussian_step = gaussian_step
        self.rho = rho
        self.clip = clip
        self.calibration = calibration
        self.shared_eta = shared_eta
        self.omit_eta_term = omit_eta_term
        self.m_floor = m_floor
        self.row_norm_policy = row_norm_policy
        self.y_policy = y_policy
        self.n_policy = n_policy
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.ledger = ledger
        self.random_state = random_state
        self.keep_unreleased = keep_unreleased

    def _solve(self, X, y, rng):
        n, d = X.shape
        delta, rho = self._delta_rho(n)
        T = check_positive_int(self.n_iter, "n_iter")
        dk1, dk2 = paper_sketch_sizes(d, T, rho, self.k2_ratio)
        n_used = power_of_two_size(n, "subsample" if self.n_policy == "subsample" else "pad")
        k1 = dk1 if self.k1 is None else self.k1
        k2 = min(dk2, n_used) if self.k2 is None else self.k2
        res = fast_ihm(
            X,
            y,
            epsilon=self.epsilon,
            delta=delta,
            k1=k1,
            k2=k2,
            T=T,
            rho=rho,
            clip=self.clip,
            method=self.calibration,
            random_state=rng,
            shared_eta=self.shared_eta,
            omit_eta_term=self.omit_eta_term,
            m_floor=self.m_floor,
            row_norm_policy=self.row_norm_policy,
            y_policy=self.y_policy,
            n_policy=self.n_policy,
            ledger=self.ledger,
            gaussian_step=self.gaussian_step,
        )
        res.diagnostics["k2_capped_at_n"] = self.k2 is None and dk2 > n_used
        # Post-processing of the released eta and public quantities only (see fastihm_noise_ratio).
        ratio = fastihm_noise_ratio(res.diagnostics["eta"], self.epsilon, delta, k=k1, T=T, rho=rho, clip=self.clip)
        res.diagnostics["eta_sq_over_ihm_gamma"] = ratio
        if ratio > NOISE_DOMINATES_RATIO:
            eta_sq = float(res.diagnostics["eta"]) ** 2
            sizing = f"k2={k2}, given" if self.k2 is not None else f"k2={k2} from k2_ratio={self.k2_ratio:g}"
            warnings.warn(
                f"FastIHM's Hessian noise dominates: eta^2 = {eta_sq:.3g} is {ratio:.3g} times the most that IHM "
                f"adds to its Hessian at the same epsilon = {self.epsilon:g}, delta and sketch size k = {k1} "
                f"(gamma = {eta_sq / ratio:.3g}). At n = {n}, d = {d}, IHMRegressor is the better choice "
                "(AdaSSPRegressor is faster; the book's page 'Which private solver when' compares them by n, d "
                f"and epsilon). Or raise k2 ({sizing}): the fewer rows the SRHT drops, "
                "the closer FastIHM's noise comes to IHM's.",
                NoiseDominatesWarning,
                stacklevel=3,
            )
        return res


class IHMRegressor(_SketchedRegressorBase):
    """Differentially private least squares with IHM (Lev et al. 2026; see :func:`ihm`).

    Parameters as :class:`FastIHMRegressor` (``fit_intercept``, ``intercept_scaling`` and
    ``keep_unreleased`` included); ``k``
    (None: ``6 max{d, log(4T/rho)}``, Appendix H)
    is the number of Gaussian rows, ``sketch`` is ``"dense"`` or ``"gram"`` (same distribution).
    """

    def __init__(
        self,
        epsilon=1.0,
        delta=None,
        *,
        n_iter=4,
        k=None,
        rho=None,
        clip=1.0,
        sketch="dense",
        omit_eta_term=True,
        row_norm_policy="raise",
        y_policy="raise",
        fit_intercept=True,
        intercept_scaling=1.0,
        ledger=None,
        random_state=None,
        keep_unreleased=False,
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.n_iter = n_iter
        self.k = k
        self.rho = rho
        self.clip = clip
        self.sketch = sketch
        self.omit_eta_term = omit_eta_term
        self.row_norm_policy = row_norm_policy
        self.y_policy = y_policy
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.ledger = ledger
        self.random_state = random_state
        self.keep_unreleased = keep_unreleased

    def _solve(self, X, y, rng):
        n, d = X.shape
        delta, rho = self._delta_rho(n)
        T = check_positive_int(self.n_iter, "n_iter")
        k = paper_sketch_sizes(d, T, rho)[0] if self.k is None else self.k
        return ihm(
            X,
            y,
            epsilon=self.epsilon,
            delta=delta,
            k=k,
            T=T,
            rho=rho,
            clip=self.clip,
            random_state=rng,
            row_norm_policy=self.row_norm_policy,
            y_policy=self.y_policy,
            sketch=self.sketch,
            omit_eta_term=self.omit_eta_term,
            ledger=self.ledger,
        )


class FastIHSRegressor(_SketchedRegressorBase):
    """Non-private iterative Hessian sketch with an SRHT (:func:`fast_ihs`); no ledger.

    ``fit_intercept=True`` appends the constant ``intercept_scaling`` without rescaling the rows.

    ``k=None`` means ``6 max{d, log(4T/rho)}`` with ``rho = 1/(10 n^2)`` (Figure 2 legend), capped
    at the padded n.
    """

    _private = False
    privacy_relation = None

    def non_private_options(self) -> tuple:
        """FastIHS adds no noise: every fit is non-private (see the base class)."""
        return ("FastIHSRegressor is the non-private baseline: it adds no noise and has no privacy guarantee.",)

    def __init__(
        self,
        *,
        n_iter=4,
        k=None,
        ridge=1e-5,
        n_policy="pad",
        fit_intercept=True,
        intercept_scaling=1.0,
        random_state=None,
    ):
        self.n_iter = n_iter
        self.k = k
        self.ridge = ridge
        self.n_policy = n_policy
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.random_state = random_state

    def _solve(self, X, y, rng):
        n, d = X.shape
        T = check_positive_int(self.n_iter, "n_iter")
        rho = 1.0 / (10.0 * max(n, 2) ** 2)
        n_used = power_of_two_size(n, "subsample" if self.n_policy == "subsample" else "pad")
        k = min(paper_sketch_sizes(d, T, rho)[0], n_used) if self.k is None else self.k
        return fast_ihs(X, y, k=k, T=T, random_state=rng, ridge=self.ridge, n_policy=self.n_policy)


class AdaSSPRegressor(_SketchedRegressorBase):
    """Differentially private least squares with AdaSSP (Wang 2018; :func:`adassp`).

    Parameters as :class:`FastIHMRegressor` (``fit_intercept``, ``intercept_scaling`` and
    ``keep_unreleased`` included).
    """

    def __init__(
        self,
        epsilon=1.0,
        delta=None,
        *,
        rho=None,
        clip=1.0,
        row_norm_policy="raise",
        y_policy="raise",
        fit_intercept=True,
        intercept_scaling=1.0,
        ledger=None,
        random_state=None,
        keep_unreleased=False,
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.rho = rho
        self.clip = clip
        self.row_norm_policy = row_norm_policy
        self.y_policy = y_policy
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.ledger = ledger
        self.random_state = random_state
        self.keep_unreleased = keep_unreleased

    def _solve(self, X, y, rng):
        delta, rho = self._delta_rho(X.shape[0])
        return adassp(
            X,
            y,
            epsilon=self.epsilon,
            delta=delta,
            rho=rho,
            clip=self.clip,
            random_state=rng,
            row_norm_policy=self.row_norm_policy,
            y_policy=self.y_policy,
            ledger=self.ledger,
        )
