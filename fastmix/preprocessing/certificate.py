"""The pipeline certificate: which steps are proven fixed maps of each record, and what the guarantee covers.

See :mod:`fastmix.preprocessing` for what :func:`pipeline_privacy_record` proves and what it cannot.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from .._validation import check_positive
from ..accounting import PrivacyLedger
from ._caveats import _UNRELEASED_SENTENCE, _keeps_unreleased, _own_caveats
from .bounding import BoundedResponseRegressor, BoundedTableEncoder, RowNormClipper

#: Verdict of :func:`pipeline_privacy_record` on a step proven to be a fixed, declared map of each record.
DATA_INDEPENDENT = "data-independent"
#: Verdict on a step known to be fitted to the data (its parameters are statistics of the records).
DATA_DEPENDENT = "data-dependent"
#: Verdict on a step (or final estimator) the certificate cannot check.
UNKNOWN = "unknown"
#: Verdict on a final estimator of this package fitted with its privacy guarantee.
PRIVATE = "private"
#: Verdict on a final estimator of this package fitted with an option that broke its guarantee.
NOT_PRIVATE = "not private"


_HOW_TO_DECLARE = (
    "to make it provable, bound the data with RowNormClipper or BoundedTableEncoder (declared ranges and "
    "categories) or OneHotEncoder(categories=[...]) over declared categories"
)

#: scikit-learn steps known to learn their parameters from the data they are fitted to.
_FITTED_SKLEARN = (
    ("sklearn.preprocessing", "StandardScaler"),
    ("sklearn.preprocessing", "MinMaxScaler"),
    ("sklearn.preprocessing", "MaxAbsScaler"),
    ("sklearn.preprocessing", "RobustScaler"),
    ("sklearn.preprocessing", "QuantileTransformer"),
    ("sklearn.preprocessing", "PowerTransformer"),
    ("sklearn.preprocessing", "KBinsDiscretizer"),
    ("sklearn.preprocessing", "SplineTransformer"),
    ("sklearn.preprocessing", "OrdinalEncoder"),
    ("sklearn.preprocessing", "TargetEncoder"),
    ("sklearn.impute", "SimpleImputer"),
    ("sklearn.impute", "KNNImputer"),
    ("sklearn.decomposition", "PCA"),
    ("sklearn.decomposition", "TruncatedSVD"),
    ("sklearn.feature_selection", "VarianceThreshold"),
    ("sklearn.feature_selection", "SelectKBest"),
)


def _fitted_sklearn_types() -> tuple:
    import importlib

    found = []
    for module, name in _FITTED_SKLEARN:
        cls = getattr(importlib.import_module(module), name, None)
        if cls is not None:
            found.append(cls)
    return tuple(found)


def _worst(verdicts) -> str:
    verdicts = set(verdicts)
    if DATA_DEPENDENT in verdicts:
        return DATA_DEPENDENT
    return UNKNOWN if UNKNOWN in verdicts else DATA_INDEPENDENT


def _combine(kind: str, parts) -> tuple[str, str]:
    """The verdict of a composite step from ``parts`` = [(name, verdict, why), ...]."""
    verdict = _worst(v for _, v, _ in parts)
    if verdict == DATA_INDEPENDENT:
        return verdict, f"{kind}: every part is data-independent ({', '.join(n for n, _, _ in parts) or 'none'})"
    bad = "; ".join(f"{n}: {why}" for n, v, why in parts if v != DATA_INDEPENDENT)
    return verdict, f"{kind} with a part that is not proven data-independent: {bad}"


_REFIT = "refit it and certify right after fit (the certificate reads what was fitted)"


def _is_nan(value) -> bool:
    return isinstance(value, (float, np.floating)) and math.isnan(value)


def _same_categories(fitted, declared) -> bool:
    """Whether the fitted ``categories_`` of a OneHotEncoder are the declared lists, value by value."""
    try:
        declared = [list(values) for values in declared]
    except TypeError:
        return False
    if len(fitted) != len(declared):
        return False
    for got, want in zip(fitted, declared, strict=True):
        got = list(got)
        if len(got) != len(want):
            return False
        for a, b in zip(got, want, strict=True):
            try:
                same = bool(a == b)
            except (TypeError, ValueError):
                return False
            if not (same or (_is_nan(a) and _is_nan(b))):
                return False
    return True


def _one_hot_verdict(step) -> tuple[str, str]:
    if isinstance(step.categories, str):
        return DATA_DEPENDENT, (
            f"OneHotEncoder with categories={step.categories!r} learns the categories from the data; "
            "declare them: OneHotEncoder(categories=[[...], ...])"
        )
    rules = [f"{k}={getattr(step, k)!r}" for k in ("min_frequency", "max_categories") if getattr(step, k) is not None]
    if rules:
        return DATA_DEPENDENT, (
            f"OneHotEncoder with {', '.join(rules)} merges categories by how often they occur in the data; "
            "leave min_frequency and max_categories at None"
        )
    fitted = getattr(step, "categories_", None)
    if fitted is None:
        return UNKNOWN, f"OneHotEncoder is not fitted; {_REFIT}"
    if getattr(step, "_infrequent_enabled", False):
        return DATA_DEPENDENT, (
            "OneHotEncoder: it was fitted with min_frequency or max_categories, which merge categories by how "
            f"often they occur in the data; {_REFIT}"
        )
    if not _same_categories(fitted, step.categories):
        return DATA_DEPENDENT, (
            f"OneHotEncoder: its fitted categories differ from the declared ones: it was fitted with other "
            f"settings; {_REFIT}"
        )
    return DATA_INDEPENDENT, "OneHotEncoder over declared categories (a fixed map of each record)"


def _declared_map_verdict(step) -> tuple[str, str]:
    """A BoundedTableEncoder or RowNormClipper: data-independent if the fit used its current declarations."""
    name = type(step).__name__
    try:
        if type(step) is BoundedTableEncoder:
            if not hasattr(step, "divisor_"):
                return UNKNOWN, f"{name} is not fitted; {_REFIT}"
            ranges, cats, max_norm = step._check_declarations()
            same = (
                list(ranges.items()) == list(step._ranges.items())
                and list(cats.items()) == list(step._cats.items())
                and math.sqrt(len(ranges) + len(cats)) / max_norm == step.divisor_
            )
        else:
            if not hasattr(step, "max_norm_"):
                return UNKNOWN, f"{name} is not fitted; {_REFIT}"
            same = check_positive(step.max_norm, "max_norm") == step.max_norm_
    except (TypeError, ValueError):
        same = False
    if not same:
        return UNKNOWN, (
            f"{name}: its fitted declarations differ from its current parameters: it was fitted with other "
            f"settings, which the certificate cannot check; {_REFIT}"
        )
    why = f"{name}: a fixed map of each record from declared bounds"
    if _keeps_unreleased(step):
        why += " (it keeps n_clipped_, a count not covered by the guarantee: do not publish the fitted object)"
    return DATA_INDEPENDENT, why


def _column_transformer_verdict(step) -> tuple[str, str]:
    fitted = getattr(step, "transformers_", None)
    if fitted is None:
        return UNKNOWN, f"ColumnTransformer is not fitted; {_REFIT}"
    parts = []
    for name, _, columns in step.transformers:
        if callable(columns):
            parts.append(
                (name, UNKNOWN, "its columns are chosen by a function at fit (possibly from the data); list them")
            )
    # what was fitted and ran, the remainder included (``transformers`` may have been changed since)
    parts += [(name, *_step_verdict(t)) for name, t, _ in fitted]
    sparse_parts = [name for name, t, _ in fitted if getattr(t, "sparse_output", False) or getattr(t, "sparse", False)]
    if getattr(step, "sparse_threshold", 0) > 0 and sparse_parts:
        # dense or sparse output is chosen by the density of the encoded data, a statistic of the records
        # (and the estimators refuse sparse input, so whether the fit runs at all would tell it)
        parts.append(
            (
                "sparse_threshold",
                DATA_DEPENDENT,
                f"its output is sparse or dense according to the density of the encoded records ({sparse_parts} "
                "may give sparse output); set sparse_threshold=0 or sparse_output=False",
            )
        )
    return _combine("ColumnTransformer", parts)


def _step_verdict(step) -> tuple[str, str]:
    """``(verdict, why)`` for a step before the final estimator (an allow-list; see the module docstring)."""
    from sklearn.compose import ColumnTransformer
    from sklearn.pipeline import FeatureUnion, Pipeline
    from sklearn.preprocessing import FunctionTransformer, OneHotEncoder

    if step is None or (isinstance(step, str) and step in ("passthrough", "drop")):
        return DATA_INDEPENDENT, f"{step!r} (no map, or the columns dropped)"
    kind = type(step)
    name = kind.__name__
    if kind in (BoundedTableEncoder, RowNormClipper):
        return _declared_map_verdict(step)
    if kind is OneHotEncoder:
        return _one_hot_verdict(step)
    if kind is ColumnTransformer:
        return _column_transformer_verdict(step)
    if kind is Pipeline:
        return _combine("Pipeline", [(n, *_step_verdict(s)) for n, s in step.steps])
    if kind is FeatureUnion:
        return _combine("FeatureUnion", [(n, *_step_verdict(s)) for n, s in step.transformer_list])
    if kind is FunctionTransformer:
        if step.func is None:  # the identity; scikit-learn's own stand-in for "passthrough"
            return DATA_INDEPENDENT, "FunctionTransformer without a function (the identity)"
        return UNKNOWN, (
            "FunctionTransformer: the certificate does not read code, and a function may use the whole data "
            f"set (e.g. divide by the largest row norm); {_HOW_TO_DECLARE}"
        )
    if isinstance(step, _fitted_sklearn_types()):
        return DATA_DEPENDENT, (
            f"{name} is fitted to the data (its parameters are statistics of the private records); {_HOW_TO_DECLARE}"
        )
    return UNKNOWN, (
        f"{name} is not on the list of steps whose maps the certificate can check from their parameters "
        f"(a data_independent attribute is not trusted); {_HOW_TO_DECLARE}"
    )


def _is_fastmix_class(obj) -> bool:
    module = type(obj).__module__ or ""
    return module == "fastmix" or module.startswith("fastmix.")


def _option_reasons(est) -> list:
    """What ``est.non_private_options()`` says broke the guarantee (nothing when it has no such method)."""
    options = getattr(type(est), "non_private_options", None)
    return [str(r) for r in options(est)] if callable(options) else []


def _ledger_verdict(est, ledger, extra_reasons=()) -> tuple[str, str, PrivacyLedger | None]:
    name = type(est).__name__
    if not isinstance(ledger, PrivacyLedger):
        return UNKNOWN, f"{name} has no fitted privacy ledger (not fitted, or not a private estimator)", None
    if not ledger.entries:
        return UNKNOWN, f"{name}'s privacy ledger records no release", None
    reasons = list(dict.fromkeys([*ledger.not_private_reasons, *_option_reasons(est), *extra_reasons]))
    stated = getattr(type(est), "privacy_relation", None)
    if stated is not None and stated != ledger.relation:
        reasons.append(f"{name} states {stated} neighbours but its ledger composes {ledger.relation} guarantees")
    if not ledger.private or reasons:
        return NOT_PRIVATE, f"{name} was fitted with an option that breaks its guarantee: {' '.join(reasons)}", ledger
    return (
        PRIVATE,
        f"{name} fitted privately: (epsilon={ledger.total_epsilon:.6g}, delta={ledger.total_delta:.3g}) under "
        f"{ledger.relation} neighbours (its privacy ledger)",
        ledger,
    )


def _is_private_search(est) -> bool:
    """A private selection of this package (it names the private estimator of each candidate)."""
    return _is_fastmix_class(est) and callable(getattr(type(est), "candidate_estimators", None))


def _chosen_verdict(best) -> tuple[str, str]:
    """``(verdict, why)`` of a grid search's chosen fit: an estimator, or a whole pipeline (certified as one)."""
    from sklearn.pipeline import Pipeline

    if type(best) is not Pipeline:
        return _estimator_verdict(best)[:2]
    record = pipeline_privacy_record(best)
    if record["private_end_to_end"]:
        return PRIVATE, record["steps"][-1][2]
    failing = [(name, record["verdicts"][name], why) for name, ok, why in record["steps"] if not ok]
    verdict = UNKNOWN if any(v == UNKNOWN for _, v, _ in failing) else NOT_PRIVATE
    return verdict, "; ".join(f"the chosen pipeline's step {name!r}: {why}" for name, _, why in failing)


def _estimator_verdict(est) -> tuple[str, str, PrivacyLedger | None]:
    """``(verdict, why, ledger)`` for the final estimator: PRIVATE, NOT_PRIVATE or UNKNOWN."""
    kind = type(est)
    if kind is BoundedResponseRegressor:
        inner = getattr(est, "regressor_", None)
        if inner is None:
            return UNKNOWN, "BoundedResponseRegressor is not fitted", None
        verdict, why, ledger = _estimator_verdict(inner)
        return verdict, f"BoundedResponseRegressor (y mapped from the declared [low, high]) around {why}", ledger
    if _is_private_search(est):
        name = kind.__name__
        best = getattr(est, "best_estimator_", None)
        if best is None:
            return UNKNOWN, f"{name} is not fitted", None
        verdict, why = _chosen_verdict(best)
        if verdict == UNKNOWN:
            return UNKNOWN, f"{name} over an estimator the certificate cannot check: {why}", None
        candidates = [reason for core in est.candidate_estimators() for reason in _option_reasons(core)]
        if verdict == NOT_PRIVATE:
            candidates.append(why)
        return _ledger_verdict(est, getattr(est, "privacy_ledger_", None), candidates)
    if not _is_fastmix_class(est):
        name = kind.__name__ if not isinstance(est, str) else repr(est)
        return (
            UNKNOWN,
            f"{name} is not a private estimator of fastmix; the certificate cannot check its guarantee",
            None,
        )
    return _ledger_verdict(est, getattr(est, "privacy_ledger_", None))


# -- what the fitted object itself holds (publication) ----------------------------------------------

_RANDOM_STATE_TYPES = (np.random.Generator, np.random.BitGenerator, np.random.SeedSequence, np.random.RandomState)


def _sub_steps(step) -> list:
    """``[(name, part), ...]`` of a composite step, as fitted (a ColumnTransformer's ``transformers_``)."""
    from sklearn.compose import ColumnTransformer
    from sklearn.pipeline import FeatureUnion, Pipeline

    kind = type(step)
    if kind is Pipeline:
        return list(step.steps)
    if kind is FeatureUnion:
        return list(step.transformer_list)
    if kind is ColumnTransformer:
        return [(n, t) for n, t, _ in getattr(step, "transformers_", step.transformers)]
    return []


def _step_caveats(name, step) -> list:
    """Why a step before the estimator (or a part of it) must not be published."""
    out = [f"{name}: {type(step).__name__} was fitted with {_UNRELEASED_SENTENCE}."] if _keeps_unreleased(step) else []
    for part_name, part in _sub_steps(step):
        out += _step_caveats(f"{name}/{part_name}", part)
    return out


def _covered_estimators(est) -> list:
    """``est`` and the estimators inside it whose seed its publication caveats account for."""
    from sklearn.pipeline import Pipeline

    inner = []
    if type(est) is BoundedResponseRegressor:  # the template's seed is the fitted clone's
        inner = [est.regressor, getattr(est, "regressor_", None)]
    elif _is_private_search(est):  # the template's seed is replaced by the search's draws
        inner = [est.estimator, getattr(est, "best_estimator_", None)]
    elif type(est) is Pipeline:  # inside a grid search: its last step's seed is the search's
        inner = [est.steps[-1][1]]
    return [est] + [e for i in inner if i is not None for e in _covered_estimators(i)]


def _random_states(obj, checked, path="", seen=None, depth=0) -> list:
    """Paths of the random generators (and seed sequences) held in the fitted state of ``obj``."""
    seen = set() if seen is None else seen
    if id(obj) in seen or depth > 8 or isinstance(obj, (str, bytes, np.ndarray, np.generic, int, float)):
        return []
    seen.add(id(obj))  # each generator once, under the first path that reaches it
    if isinstance(obj, _RANDOM_STATE_TYPES):
        return [path]
    if isinstance(obj, Mapping):
        items = [(f"{path}[{k!r}]", v) for k, v in obj.items()]
    elif isinstance(obj, (list, tuple)):
        items = [(f"{path}[{i}]", v) for i, v in enumerate(obj)]
    elif (type(obj).__module__ or "").split(".")[0] in ("fastmix", "sklearn") and hasattr(obj, "__dict__"):
        skip = "random_state" if id(obj) in checked else None  # a seed already reported (or None)
        items = [(f"{path}.{k}" if path else k, v) for k, v in vars(obj).items() if k != skip]
    else:
        return []
    return [found for key, value in items for found in _random_states(value, checked, key, seen, depth + 1)]


def _flat_steps(pipeline, prefix="") -> list:
    from sklearn.pipeline import Pipeline

    if type(pipeline) is not Pipeline:
        return [(prefix or "estimator", pipeline)]
    *pre, (last_name, last) = pipeline.steps
    out = [(prefix + name, step) for name, step in pre]
    if type(last) is Pipeline:  # a pipeline ending in a pipeline: its steps, in order
        return out + _flat_steps(last, prefix + last_name + "/")
    return [*out, (prefix + last_name, last)]


def step_verdicts(pipeline) -> list[tuple[str, str, str]]:
    """``[(name, verdict, why), ...]`` for the steps before a pipeline's final estimator.

    The steps as :func:`pipeline_privacy_record` judges them (the same allow-list, on what was
    fitted where it can read it), a final step that is itself a Pipeline unrolled into
    ``"outer/inner"`` names. Each verdict is :data:`DATA_INDEPENDENT`, :data:`DATA_DEPENDENT` or
    :data:`UNKNOWN`; an unfitted step the allow-list could accept is :data:`UNKNOWN`, while one
    that is data-dependent by its class or parameters (a scaler, ``categories="auto"``) is
    :data:`DATA_DEPENDENT` before it is fitted. Anything but a Pipeline has no such steps.
    """
    from sklearn.pipeline import Pipeline

    if type(pipeline) is not Pipeline:
        return []
    return [(name, *_step_verdict(step)) for name, step in _flat_steps(pipeline)[:-1]]


def pipeline_privacy_record(pipeline) -> dict:
    """A certificate for a fitted pipeline: is its final estimator's privacy guarantee end to end?

    Two questions, answered apart. ``private_end_to_end``: are the pipeline's *outputs* (its
    predictions, the coefficients its estimator releases) covered by the estimator's guarantee
    for the records of the raw table? ``publishable``: may the fitted pipeline *object* itself be
    published (pickled and shared)? It may hold more than its outputs, such as counts over the
    private records or the seed of the noise, so an object can be private end to end and still
    not publishable. Certify right after ``fit``: see "Fitted state" below.

    **What it proves.** ``private_end_to_end`` is True only when (1) every step before the final
    estimator is proven *data-independent*: a fixed map, declared in advance and applied to each
    record on its own, so that changing or removing one record of the input changes or removes
    exactly its row of the matrix the estimator sees, and nothing else — the neighbouring relation
    the estimators' guarantees are stated for; and (2) the final estimator is one of this
    package's private estimators fitted privately, as its privacy ledger says
    (``privacy_ledger_.private``, and no option listed by ``non_private_options()``). The
    guarantee is then the estimator's: ``epsilon`` and ``delta`` (the ledger's totals) under
    ``relation`` neighbours ("zero-out" or "replace-one"; convert with
    :meth:`fastmix.accounting.LedgerEntry.as_relation` if you need the other).

    **The allow-list.** A step is data-independent only if it is ``"passthrough"``, ``"drop"``,
    None or the identity ``FunctionTransformer()``; a :class:`BoundedTableEncoder` or
    :class:`RowNormClipper` (these classes exactly: a ``data_independent`` attribute on another
    class is not trusted); a ``OneHotEncoder`` with declared categories (a list, not ``"auto"``)
    and ``min_frequency=None, max_categories=None`` (any ``drop`` is then resolved from the
    declared lists alone: ``"first"``, ``"if_binary"`` or an array pick fixed columns); a
    ``ColumnTransformer`` whose columns are listed (not chosen by a function) and whose fitted
    transformers and remainder are all data-independent; or a ``Pipeline`` or ``FeatureUnion``
    whose steps all are, inspected recursively. A final step that is itself a ``Pipeline`` is
    unrolled (its steps are named ``"outer/inner"``).

    **Fitted state, not only parameters.** A step's parameters can be changed after ``fit``
    (``set_params``) without changing what was fitted, so the certificate reads the fitted state
    where it can: a ``OneHotEncoder``'s fitted ``categories_`` must equal its declared
    ``categories`` (else it was fitted with other settings, e.g. ``"auto"``, and is
    data-dependent) and it must not have been fitted with frequency rules; a
    :class:`BoundedTableEncoder` or :class:`RowNormClipper` must have been fitted with its current
    declarations (ranges, categories, ``max_norm``; else *unknown*); a ``ColumnTransformer`` is
    judged by its fitted ``transformers_`` (what ran, the remainder included), not by its
    ``transformers`` parameter. A step that is not fitted is *unknown*.

    **What it cannot prove.** It does not read code. Any other step is either *data-dependent*
    (scalers, imputers, ``OneHotEncoder(categories="auto")`` or with frequency rules, PCA, ...:
    their parameters are statistics of the records) or *unknown* (a ``FunctionTransformer`` with
    a function, even an innocent one, or a class it does not know), and either makes
    ``private_end_to_end`` False, with a ``why`` saying how to declare the step instead (usually
    :class:`RowNormClipper` or :class:`BoundedTableEncoder` with declared bounds). Likewise a
    final estimator that is not this package's (or not fitted) is unknown. A ``OneHotEncoder``
    with ``handle_unknown="error"`` stops the fit on a value outside the declared categories,
    as the estimators' ``row_norm_policy="raise"`` does on a row that is too long.

    It sees the pipeline as it is now. A step *replaced* after fitting (e.g.
    ``set_params(scaler="passthrough")`` on a pipeline fitted with a ``StandardScaler``) is out
    of its reach: the scaler that shaped the estimator's fit is gone from the object, and
    ``"passthrough"`` is data-independent. (The estimator's ``n_features_in_`` may reveal a
    replacement that changed the number of columns, never a replaced scaler.) A
    ``ColumnTransformer`` whose columns were chosen by a function is recognised from its current
    ``transformers`` only. So certify a pipeline right after ``fit``, and refit it after changing
    any of its parameters.

    **Publication.** ``publication_caveats`` lists, one sentence each naming its step, why the
    fitted object must not be published: a step (or a part of one) fitted with
    ``keep_unreleased=True``, which keeps ``n_clipped_``, a count over the private records; and
    what the final estimator's ``publication_caveats()`` reports (``keep_unreleased=True``, a
    seeded ``random_state``, whose holder can recompute the noise and subtract it, the exact
    path sampler of :class:`~fastmix.kernels.DPRandomProjectionKRR` holding the training inputs
    in ``feature_map_``), or the same checks made here for an estimator without that method;
    and any random generator or seed sequence kept in the estimator's fitted state (the noise
    may be recomputed from its seed). Inside a :class:`BoundedResponseRegressor` or a
    :class:`~fastmix.model_selection.PrivateGridSearch` the fitted estimator is read too.
    ``publishable`` is True only when ``private_end_to_end`` is and there is no caveat: fit with
    the defaults ``keep_unreleased=False`` and ``random_state=None`` (and
    ``sampler="approximate"`` for the random-projection learners) to publish. Publishing the
    outputs alone (predictions, released coefficients) needs only ``private_end_to_end``.

    Returns
    -------
    dict
        ``steps``: ``[(name, ok, why), ...]``, one per step, the final estimator last (``ok`` is
        True for a data-independent step and for a private estimator); ``verdicts``: ``{name:
        verdict}`` with :data:`DATA_INDEPENDENT`, :data:`DATA_DEPENDENT` or :data:`UNKNOWN` for the
        steps and :data:`PRIVATE`, :data:`NOT_PRIVATE` or :data:`UNKNOWN` for the estimator;
        ``estimator_private``; ``private_end_to_end`` (the outputs); ``publishable`` (the fitted
        object) and ``publication_caveats`` (list of str); ``epsilon``, ``delta`` and
        ``relation`` of the estimator's guarantee (None unless ``estimator_private``; they cover
        the raw records only when ``private_end_to_end``).
    """
    *pre, (last_name, last) = _flat_steps(pipeline)
    record, verdicts, caveats = [], {}, []
    for (name, step), (_, verdict, why) in zip(pre, step_verdicts(pipeline), strict=True):
        record.append((name, verdict == DATA_INDEPENDENT, why))
        verdicts[name] = verdict
        caveats += _step_caveats(name, step)
    verdict, why, ledger = _estimator_verdict(last)
    est_private = verdict == PRIVATE
    record.append((last_name, est_private, why))
    verdicts[last_name] = verdict
    caveats += [f"{last_name}: {c}" for c in _own_caveats(last)]
    held = _random_states(last, {id(e) for e in _covered_estimators(last)})
    if held:
        caveats.append(
            f"{last_name}: its fitted state holds a random generator ({', '.join(held)}); if the privacy noise "
            "was drawn from the same seed, whoever holds the object can recompute the noise and subtract it, "
            "which the certificate cannot rule out: publish the outputs, not the fitted object."
        )
    end_to_end = est_private and all(ok for _, ok, _ in record[:-1])
    caveats = list(dict.fromkeys(caveats))
    return {
        "steps": record,
        "verdicts": verdicts,
        "estimator_private": est_private,
        "private_end_to_end": end_to_end,
        "publishable": end_to_end and not caveats,
        "publication_caveats": caveats,
        "epsilon": ledger.total_epsilon if est_private and ledger is not None else None,
        "delta": ledger.total_delta if est_private and ledger is not None else None,
        "relation": ledger.relation if est_private and ledger is not None else None,
    }
