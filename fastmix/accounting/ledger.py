"""The privacy ledger: a running (epsilon, delta) budget under basic composition.

Every release of the package's mechanisms is recorded as a :class:`LedgerEntry` (what was
released, its guarantee and the result of the FastMix paper it comes from) in a
:class:`PrivacyLedger`, which refuses (:class:`BudgetExceededError`) a spend that would exceed
its target, offers a dry run (:meth:`PrivacyLedger.check_spend`), and cannot be duplicated
(:class:`DetachedLedgerError`). Composition is Dwork and Roth (2014), Theorem 3.16.

Every guarantee is stated for a neighbouring relation, and a ledger composes entries of one
relation only. The least-squares mechanisms of the FastMix paper are analysed under
**zero-out** neighbours (one row replaced by the zero row, the paper's Section 2), the kernel
estimators of the kernel paper under **replace-one** neighbours (one record changed). A spend
under another relation than the ledger's raises :class:`NeighbouringRelationError`; convert it
first with :meth:`LedgerEntry.as_relation`:

* replace-one -> zero-out costs nothing: replacing a row by the zero row is one replacement
  (the zero row satisfies every norm bound), so an (eps, delta) replace-one guarantee holds for
  zero-out neighbours;
* zero-out -> replace-one is two zero-out steps (zero the row, then fill in the new one): by
  group privacy for two steps the guarantee becomes ``(2 eps, (1 + e^eps) delta)``.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from numbers import Real
from types import MappingProxyType

import numpy as np

from .._validation import check_delta, check_epsilon

__all__ = [
    "LedgerEntry",
    "BudgetExceededError",
    "DetachedLedgerError",
    "NeighbouringRelationError",
    "PrivacyLedger",
    "ZERO_OUT",
    "REPLACE_ONE",
    "RELATIONS",
    "convert_guarantee",
    "ledger_entry",
]

#: Neighbours differ by one row set to zero (the FastMix paper's relation).
ZERO_OUT = "zero-out"
#: Neighbours differ by one record changed to any other admissible record (the kernel paper's).
REPLACE_ONE = "replace-one"
#: The neighbouring relations a ledger entry can be stated under.
RELATIONS = (ZERO_OUT, REPLACE_ONE)

_LEDGER_SLACK = 1e-12


def _freeze_details(details) -> tuple:
    if details is None:
        return ()
    if isinstance(details, (dict, MappingProxyType)):
        items = details.items()
    else:
        items = details
    out = []
    for item in items:
        key, value = item
        if isinstance(value, (list, np.ndarray)):
            value = tuple(np.asarray(value).tolist()) if isinstance(value, np.ndarray) else tuple(value)
        if isinstance(value, dict):
            value = _freeze_details(value)
        out.append((str(key), value))
    frozen = tuple(out)
    hash(frozen)  # fail early on unhashable values
    return frozen


def _check_relation(relation, what) -> str:
    if relation not in RELATIONS:
        raise ValueError(
            f"{what} must be one of {', '.join(repr(r) for r in RELATIONS)} (the neighbouring relation "
            f"its guarantee is stated for); got {relation!r}."
        )
    return relation


def convert_guarantee(epsilon: float, delta: float, source: str, target: str) -> tuple[float, float, str]:
    """``(epsilon, delta)`` under ``source`` neighbours as a guarantee under ``target`` neighbours.

    * replace-one -> zero-out: unchanged (zeroing a row is one replacement, by the zero row,
      which meets every norm bound);
    * zero-out -> replace-one: ``(2 epsilon, (1 + e^epsilon) delta)``, group privacy for two
      zero-out steps (Dwork and Roth 2014, Theorem 2.2 and its (eps, delta) form);
    * same relation: unchanged.

    Returns ``(epsilon, delta, note)`` with a note saying what was applied.
    """
    _check_relation(source, "source")
    _check_relation(target, "target")
    if source == target:
        return float(epsilon), float(delta), ""
    if source == REPLACE_ONE:
        return float(epsilon), float(delta), "replace-one guarantee used for zero-out neighbours (no cost)"
    return (
        2.0 * float(epsilon),
        (1.0 + math.exp(float(epsilon))) * float(delta),
        "zero-out guarantee composed over two steps for replace-one neighbours: (2 eps, (1 + e^eps) delta)",
    )


class NeighbouringRelationError(ValueError):
    """A spend whose guarantee is stated for another neighbouring relation than the ledger's."""


@dataclass(frozen=True)
class LedgerEntry:
    """One (epsilon, delta) expenditure recorded by :class:`PrivacyLedger`.

    Attributes
    ----------
    mechanism : str
        What was released (e.g. ``"FastMix sketch, t=0"``).
    epsilon, delta : float
        The guarantee of that release.
    source : str
        Where the numbers come from (e.g. ``"Theorem 1, eq. (114)"``).
    details : tuple of (key, value) pairs
        Parameters of the release (gamma, k1, ...); immutable and hashable.
    relation : {"zero-out", "replace-one"} or None
        The neighbouring relation the guarantee is stated for; None (only for entries built by
        hand) means the relation of the ledger it is spent on.
    not_private : str
        Empty when the release has the stated guarantee. Otherwise the option that broke it
        (e.g. a data-dependent rescaling of the rows): the epsilon and delta are then what the
        calibration would have cost, and the release is **not** differentially private.
        :meth:`PrivacyLedger.summary` marks such entries and the ledger's
        :attr:`PrivacyLedger.private` is False.
    """

    mechanism: str
    epsilon: float
    delta: float
    source: str = ""
    details: tuple = ()
    relation: str | None = None
    not_private: str = ""

    @property
    def private(self) -> bool:
        """Whether the release has the stated guarantee (no option broke it)."""
        return not self.not_private

    def marked_not_private(self, reason: str) -> LedgerEntry:
        """This entry marked as not private because of ``reason`` (a non-empty sentence)."""
        reason = str(reason).strip()
        if not reason:
            raise ValueError("marked_not_private needs the reason the guarantee does not hold; got an empty string.")
        return dataclasses.replace(self, not_private=reason)

    def as_relation(self, relation: str) -> LedgerEntry:
        """This entry's guarantee under ``relation`` neighbours (:func:`convert_guarantee`)."""
        if self.relation is None:
            raise ValueError(
                f"{self.mechanism!r} states no neighbouring relation, so it cannot be converted; "
                "build it with relation=..."
            )
        e, d, note = convert_guarantee(self.epsilon, self.delta, self.relation, relation)
        if not note:
            return self
        return LedgerEntry(f"{self.mechanism} [{note}]", e, d, self.source, self.details, relation, self.not_private)

    def as_dict(self) -> dict:
        """Plain-dict view (``details`` becomes a dict)."""
        return {
            "mechanism": self.mechanism,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "source": self.source,
            "details": dict(self.details),
            "relation": self.relation,
            "private": self.private,
            "not_private": self.not_private,
        }


class BudgetExceededError(ValueError):
    """Raised when a spend would take the ledger over its (epsilon, delta) target."""


def _check_spend(epsilon, delta, mechanism) -> tuple[float, float]:
    for name, value in (("epsilon", epsilon), ("delta", delta)):
        if isinstance(value, bool) or not isinstance(value, (Real, np.floating, np.integer)):
            raise TypeError(f"{name} of {mechanism!r} must be a real number; got {value!r}.")
        if math.isnan(float(value)) or float(value) < 0:
            raise ValueError(f"{name} of {mechanism!r} must be a number >= 0; got {value!r}.")
    if not math.isfinite(float(epsilon)):
        raise ValueError(f"epsilon of {mechanism!r} is infinite: the release is not private.")
    if not float(delta) < 1.0:
        raise ValueError(f"delta of {mechanism!r} must be < 1; got {delta!r}.")
    return float(epsilon), float(delta)


def _check_mechanism(mechanism) -> str:
    if not isinstance(mechanism, str):
        raise TypeError(
            f"mechanism must be a string naming the release; got {mechanism!r} of type {type(mechanism).__name__}."
        )
    if not mechanism:
        raise ValueError(f"mechanism must be a non-empty string naming the release; got {mechanism!r}.")
    return mechanism


def ledger_entry(mechanism, epsilon, delta=0.0, *, relation, source="", details=None) -> LedgerEntry:
    """A checked :class:`LedgerEntry` whose guarantee is stated for ``relation`` neighbours.

    The constructor for code that builds entries before spending them (a calibration's
    ``ledger_entries()``): the same checks as :meth:`PrivacyLedger.spend` (a non-empty name,
    ``epsilon`` finite and >= 0, ``0 <= delta < 1``), with ``details`` (a dict or (key, value)
    pairs) frozen into hashable pairs. ``relation`` is required: ``ZERO_OUT`` for the FastMix
    paper's mechanisms, ``REPLACE_ONE`` for the kernel paper's.

    Raises
    ------
    TypeError, ValueError
        For a name that is not a non-empty string, a bad ``epsilon`` or ``delta``, or an unknown
        ``relation``.
    """
    mechanism = _check_mechanism(mechanism)
    e, d = _check_spend(epsilon, delta, mechanism)
    relation = _check_relation(relation, f"relation of {mechanism!r}")
    return LedgerEntry(mechanism, e, d, str(source), _freeze_details(details), relation)


class DetachedLedgerError(RuntimeError):
    """A spend on a ledger restored from a pickle (a copy whose spending cannot reach the original)."""


class PrivacyLedger:
    """Running (epsilon, delta) budget under basic sequential composition.

    Spending ``(eps_i, delta_i)`` for releases i = 1..m yields
    ``(sum eps_i, sum delta_i)``-DP (Dwork & Roth 2014, Theorem 3.16). Totals are summed with
    :func:`math.fsum`. A spend that would take either total above the target (allowing a
    relative slack of 1e-12 for rounding) raises :class:`BudgetExceededError` and records
    nothing, so a ledger never holds an over-budget history.

    Parameters
    ----------
    epsilon : float
        Target epsilon > 0.
    delta : float
        Target delta in (0, 1).
    relation : {"zero-out", "replace-one"}, default="zero-out"
        The neighbouring relation the ledger's total guarantee is stated for (the module
        docstring says which mechanisms are analysed under which). Every entry must be stated
        for it; :meth:`LedgerEntry.as_relation` converts one that is not.
    name : str, optional
    """

    def __init__(self, epsilon, delta, *, relation=ZERO_OUT, name=""):
        self._target_epsilon = check_epsilon(epsilon, "target epsilon")
        self._target_delta = check_delta(delta, "target delta")
        self.relation = _check_relation(relation, "relation")
        self.name = str(name)
        self._entries: list[LedgerEntry] = []
        self._detached = False

    # -- one budget, never duplicated --------------------------------------------------
    # A ledger stands for the budget of one data set: a copy would let two holders spend it
    # twice. ``copy.copy`` and ``copy.deepcopy`` therefore return the ledger itself (so an
    # estimator given ``ledger=`` and cloned by scikit-learn, e.g. inside GridSearchCV, still
    # charges the same budget), and a ledger restored from a pickle (for instance in a worker
    # process of joblib) can be read but refuses to spend: its spending would never reach the
    # original.
    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._detached = True

    def _check_attached(self, what):
        if getattr(self, "_detached", False):
            raise DetachedLedgerError(
                f"cannot record {what}: this ledger was restored from a pickle (for instance sent to another "
                "process by joblib with n_jobs > 1), so its spending would not reach the original budget. Fit "
                "in one process (n_jobs=1), or give each process a ledger of its own share of the budget."
            )

    # -- properties ---------------------------------------------------------------------
    @property
    def entries(self) -> tuple:
        return tuple(self._entries)

    @property
    def target_epsilon(self) -> float:
        return self._target_epsilon

    @property
    def target_delta(self) -> float:
        return self._target_delta

    @property
    def total_epsilon(self) -> float:
        return math.fsum(e.epsilon for e in self._entries)

    @property
    def total_delta(self) -> float:
        return math.fsum(e.delta for e in self._entries)

    @property
    def private(self) -> bool:
        """False when any entry was spent with an option that broke its guarantee
        (:attr:`LedgerEntry.not_private`): the totals are then not a privacy guarantee."""
        return all(e.private for e in self._entries)

    @property
    def not_private_reasons(self) -> tuple:
        """The distinct reasons, in order, why entries of this ledger are not private."""
        return tuple(dict.fromkeys(e.not_private for e in self._entries if e.not_private))

    @property
    def remaining_epsilon(self) -> float:
        return max(0.0, self._target_epsilon - self.total_epsilon)

    @property
    def remaining_delta(self) -> float:
        return max(0.0, self._target_delta - self.total_delta)

    # -- spending ----------------------------------------------------------------------
    def _fits(self, eps_list, delta_list) -> tuple[bool, float, float]:
        tot_e = math.fsum([*(e.epsilon for e in self._entries), *eps_list])
        tot_d = math.fsum([*(e.delta for e in self._entries), *delta_list])
        ok = tot_e <= self._target_epsilon * (1.0 + _LEDGER_SLACK) and tot_d <= self._target_delta * (
            1.0 + _LEDGER_SLACK
        )
        return ok, tot_e, tot_d

    def can_spend(self, epsilon, delta=0.0) -> bool:
        """Whether ``(epsilon, delta)`` still fits in the budget (nothing is recorded)."""
        e, d = _check_spend(epsilon, delta, "can_spend")
        return self._fits([e], [d])[0]

    def check_spend(self, mechanism, epsilon, delta=0.0, *, relation=None) -> None:
        """Dry run of :meth:`spend`: raise :class:`BudgetExceededError` (with the totals it would
        reach) if ``(epsilon, delta)`` does not fit, or :class:`NeighbouringRelationError`;
        record nothing either way."""
        entry = self._make_entry(mechanism, epsilon, delta, relation=relation)
        ok, tot_e, tot_d = self._fits([entry.epsilon], [entry.delta])
        if not ok:
            raise self._overflow_error(entry, tot_e, tot_d)

    def _make_entry(
        self, mechanism, epsilon, delta=0.0, source="", details=None, relation=None, not_private=""
    ) -> LedgerEntry:
        mechanism = _check_mechanism(mechanism)
        e, d = _check_spend(epsilon, delta, mechanism)
        relation = self.relation if relation is None else _check_relation(relation, f"relation of {mechanism!r}")
        if relation != self.relation:
            raise NeighbouringRelationError(
                f"{mechanism!r} is private under {relation} neighbours but this ledger composes {self.relation} "
                f"guarantees; convert it first (entry.as_relation({self.relation!r}): "
                + ("free" if relation == REPLACE_ONE else "(2 eps, (1 + e^eps) delta)")
                + f"), or keep it in a ledger created with relation={relation!r}."
            )
        return LedgerEntry(mechanism, e, d, str(source), _freeze_details(details), relation, str(not_private or ""))

    def _overflow_error(self, entry: LedgerEntry, tot_e: float, tot_d: float) -> BudgetExceededError:
        return BudgetExceededError(
            f"spending (epsilon={entry.epsilon:.6g}, delta={entry.delta:.3g}) on {entry.mechanism!r} would bring "
            f"the totals to (epsilon={tot_e:.6g}, delta={tot_d:.3g}), above the target "
            f"(epsilon={self._target_epsilon:.6g}, delta={self._target_delta:.3g}); remaining budget is "
            f"(epsilon={self.remaining_epsilon:.6g}, delta={self.remaining_delta:.3g}). Nothing was recorded: "
            "lower this release's share or raise the target."
        )

    def spend(
        self, mechanism, epsilon, delta=0.0, *, source="", details=None, relation=None, not_private=""
    ) -> LedgerEntry:
        """Record a release costing ``(epsilon, delta)``; refuse it if the budget would overflow.

        ``relation`` is the neighbouring relation of the release's guarantee (default: the
        ledger's); another relation than the ledger's raises :class:`NeighbouringRelationError`.
        ``not_private`` names the option that broke the guarantee, if one did (see
        :attr:`LedgerEntry.not_private`); the spend is recorded all the same.

        Returns
        -------
        LedgerEntry
        """
        entry = self._make_entry(mechanism, epsilon, delta, source, details, relation, not_private)
        self._check_attached(repr(entry.mechanism))
        ok, tot_e, tot_d = self._fits([entry.epsilon], [entry.delta])
        if not ok:
            raise self._overflow_error(entry, tot_e, tot_d)
        self._entries.append(entry)
        return entry

    def _stage(self, entries) -> list:
        """The entries of :meth:`spend_all`, checked against the budget in order; nothing recorded."""
        if isinstance(entries, (str, bytes, LedgerEntry, dict)) or not hasattr(entries, "__iter__"):
            raise TypeError(
                "spend_all needs an iterable of entries (e.g. calibration.ledger_entries()); got "
                f"{type(entries).__name__}. Use spend(...) for a single release."
            )
        staged: list[LedgerEntry] = []
        for item in entries:
            if isinstance(item, LedgerEntry):
                entry = self._make_entry(
                    item.mechanism, item.epsilon, item.delta, item.source, item.details, item.relation, item.not_private
                )
            elif isinstance(item, dict):
                entry = self._make_entry(
                    item["mechanism"],
                    item["epsilon"],
                    item.get("delta", 0.0),
                    item.get("source", ""),
                    item.get("details"),
                    item.get("relation"),
                    item.get("not_private", ""),
                )
            elif isinstance(item, (tuple, list)) and 2 <= len(item) <= 7:
                entry = self._make_entry(*item)
            else:
                raise TypeError(
                    "spend_all needs LedgerEntry objects, dicts or tuples (mechanism, epsilon, delta, source, "
                    f"details); got {item!r} of type {type(item).__name__}."
                )
            ok, tot_e, tot_d = self._fits(
                [*(s.epsilon for s in staged), entry.epsilon], [*(s.delta for s in staged), entry.delta]
            )
            if not ok:
                raise self._overflow_error(entry, tot_e, tot_d)
            staged.append(entry)
        return staged

    def check_spend_all(self, entries) -> None:
        """Dry run of :meth:`spend_all`: raise exactly what it would raise, record nothing.

        A solver calls it before it reads the data, then :meth:`spend_all` with the same entries
        once its checks have passed, so a refused budget costs nothing and reads nothing.
        """
        self._check_attached("these releases")
        self._stage(list(entries) if not isinstance(entries, (str, bytes, LedgerEntry, dict)) else entries)

    def spend_all(self, entries) -> tuple:
        """Record several releases atomically: all are checked first, then all recorded.

        ``entries`` is an iterable of :class:`LedgerEntry` or of tuples/dicts with the
        arguments of :meth:`spend`. If any entry is invalid or the running totals would
        overflow at any point, nothing is recorded.
        """
        if not isinstance(entries, (str, bytes, LedgerEntry, dict)) and hasattr(entries, "__iter__"):
            self._check_attached("these releases")
        staged = self._stage(entries)
        self._entries.extend(staged)
        return tuple(staged)

    # -- reporting ---------------------------------------------------------------------
    def records(self) -> list:
        """List of dicts, one per entry, in spending order."""
        return [e.as_dict() for e in self._entries]

    def summary(self) -> str:
        """Plain-text table of the entries, the totals and the remaining budget."""
        head = (
            f"Privacy ledger{(' ' + repr(self.name)) if self.name else ''}: target (epsilon="
            f"{self._target_epsilon:.6g}, delta={self._target_delta:.3g}) under {self.relation} neighbours"
        )
        rows = [("mechanism", "epsilon", "delta", "source")]
        for e in self._entries:
            mark = "" if e.private else " [NOT PRIVATE]"
            rows.append((e.mechanism + mark, f"{e.epsilon:.6g}", f"{e.delta:.3g}", e.source))
        rows.append(("TOTAL", f"{self.total_epsilon:.6g}", f"{self.total_delta:.3g}", ""))
        rows.append(("remaining", f"{self.remaining_epsilon:.6g}", f"{self.remaining_delta:.3g}", ""))
        widths = [max(len(r[i]) for r in rows) for i in range(4)]
        lines = [head]
        for j, r in enumerate(rows):
            lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
            if j == 0 or j == len(rows) - 3:
                lines.append("  ".join("-" * w for w in widths))
        for reason in self.not_private_reasons:
            lines.append(f"NOT PRIVATE: {reason} The totals above are not a privacy guarantee.")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (
            f"PrivacyLedger(name={self.name!r}, relation={self.relation!r}, "
            f"target=(epsilon={self._target_epsilon:.6g}, delta={self._target_delta:.3g}), "
            f"spent=(epsilon={self.total_epsilon:.6g}, delta={self.total_delta:.3g}), entries={len(self._entries)})"
        )
