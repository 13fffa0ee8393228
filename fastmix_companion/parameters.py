"""What each notebook parameter admits: declarative rules, checked before anything runs.

Every notebook declares its parameters in its ``parameters`` cell (names, types, defaults);
the *admissible* values are declared once, beside the defaults: in ``PARAMETERS`` of the
notebook's study (``fastmix_companion/studies/<short>.py``), or, for a notebook without a study, in
:data:`fastmix_companion.studies.NOTEBOOK_PARAMETERS`; :func:`fastmix_companion.studies.rules_for`
finds them by notebook name (this module holds the rules and knows no study). A rule is a
small frozen record with two methods:

``check(name, value, params=None)``
    ``None`` when ``value`` is admissible, else a one-line message naming the parameter, the
    value and what is allowed, e.g. ``parameter eps_min = -1: must be a number > 0``.
``describe()``
    What is allowed, in words (shown by ``python -m fastmix_companion.run NAME --help-notebook``).

Bounds of :class:`Real` and :class:`Integer` are numbers or the name of another parameter
(``Integer(low="log2_k2_min", high="log2_n")``), or ``"2**name"`` for a power of two of
another parameter; ``params`` (all the run's values) resolves them. Lists are the
comma-separated text the notebooks take (``"0.316,1.259"``); a list or tuple is accepted too.

:func:`check_parameters` applies a notebook's rules to all of its values and raises
:class:`ParameterError` (a :class:`ValueError` whose message is one line) listing every value
that is not admissible. ``python -m fastmix_companion.run`` calls it before a kernel starts, and
:func:`fastmix_companion.studies.run_study` before a study computes anything.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from numbers import Integral
from numbers import Real as _RealNumber
from typing import Any

__all__ = [
    "MAX_LOG2_N",
    "ParameterError",
    "Real",
    "Integer",
    "Choice",
    "Flag",
    "Text",
    "RealList",
    "IntegerList",
    "ChoiceList",
    "ShapeList",
    "check_parameters",
    "describe_rule",
]

MAX_LOG2_N = 24
"""Largest ``log2 n`` the rules admit for a design: ``2^24`` rows of 32 features are 4 GiB in float64,
beyond what the studies' designs (and their copies during the transforms) can hold on a typical machine."""

Bound = int | float | str | None
"""A bound: a number, another parameter's name, ``"2**name"``, or None (no bound)."""


class ParameterError(ValueError):
    """A parameter name or value that a notebook does not admit.

    ``str(error)`` is the full message; :attr:`summary` is one line (the same text when the
    message is already one line), the form ``python -m fastmix_companion.run`` prints.
    """

    def __init__(self, message: str, *, summary: str | None = None):
        super().__init__(message)
        self.summary = summary if summary is not None else " ".join(message.split())


def _show(value: Any) -> str:
    """A value as Python writes it: numbers bare, text in quotes."""
    return repr(value)


def _bound_value(bound: Bound, params: Mapping[str, Any] | None) -> tuple[float | None, str]:
    """``(number or None, text)`` of a bound; a named bound needs ``params``."""
    if bound is None:
        return None, ""
    if isinstance(bound, str):
        power = bound.startswith("2**")
        ref = bound[3:] if power else bound
        if params is None or ref not in params or isinstance(params[ref], bool):
            return None, bound
        try:
            number = float(params[ref])
        except (TypeError, ValueError):
            return None, bound
        if power:
            number = 2.0**number
        shown = int(number) if number.is_integer() else number
        return number, f"{bound} (= {shown})"
    return float(bound), f"{bound:g}" if isinstance(bound, float) else str(bound)


def _interval_text(
    kind: str,
    low: Bound,
    high: Bound,
    low_open: bool,
    high_open: bool,
    params: Mapping[str, Any] | None = None,
    *,
    resolve: bool = False,
) -> str:
    lo_text = _bound_value(low, params)[1] if resolve else _bound_value(low, None)[1]
    hi_text = _bound_value(high, params)[1] if resolve else _bound_value(high, None)[1]
    if low is not None and high is not None:
        return f"{kind} in {'(' if low_open else '['}{lo_text}, {hi_text}{')' if high_open else ']'}"
    parts = []
    if low is not None:
        parts.append(f"{'>' if low_open else '>='} {lo_text}")
    if high is not None:
        parts.append(f"{'<' if high_open else '<='} {hi_text}")
    return kind + (" " + " and ".join(parts) if parts else "")


def _outside(
    x: float, low: Bound, high: Bound, low_open: bool, high_open: bool, params: Mapping[str, Any] | None
) -> bool:
    lo, _ = _bound_value(low, params)
    hi, _ = _bound_value(high, params)
    if lo is not None and (x < lo or (low_open and x == lo)):
        return True
    if hi is not None and (x > hi or (high_open and x == hi)):
        return True
    return False


def _as_real(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, _RealNumber):
        return None
    return float(value)


def _as_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, Integral):
        return int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _message(name: str, value: Any, what: str) -> str:
    return f"parameter {name} = {_show(value)}: must be {what}"


@dataclass(frozen=True)
class Real:
    """A real number in an interval; ``inf`` and ``nan`` only when ``finite`` is False."""

    low: Bound = None
    high: Bound = None
    low_open: bool = False
    high_open: bool = False
    finite: bool = True

    def describe(self, params: Mapping[str, Any] | None = None) -> str:
        return _interval_text(
            "a number", self.low, self.high, self.low_open, self.high_open, params, resolve=params is not None
        )

    def check(self, name: str, value: Any, params: Mapping[str, Any] | None = None) -> str | None:
        x = _as_real(value)
        if (
            x is None
            or math.isnan(x)
            or (self.finite and math.isinf(x))
            or _outside(x, self.low, self.high, self.low_open, self.high_open, params)
        ):
            what = self.describe(params)
            if self.finite and x is not None and math.isinf(x):
                what = what.replace("a number", "a finite number", 1)
            return _message(name, value, what)
        return None


@dataclass(frozen=True)
class Integer:
    """An integer in ``[low, high]`` (bounds included), a power of two when ``power_of_two``."""

    low: Bound = None
    high: Bound = None
    power_of_two: bool = False

    def describe(self, params: Mapping[str, Any] | None = None) -> str:
        kind = "a power of two" if self.power_of_two else "an integer"
        return _interval_text(kind, self.low, self.high, False, False, params, resolve=params is not None)

    def check(self, name: str, value: Any, params: Mapping[str, Any] | None = None) -> str | None:
        k = _as_int(value)
        if (
            k is None
            or _outside(k, self.low, self.high, False, False, params)
            or (self.power_of_two and (k < 1 or k & (k - 1)))
        ):
            return _message(name, value, self.describe(params))
        return None


@dataclass(frozen=True)
class Choice:
    """One of a fixed set of values (text, or None)."""

    options: tuple

    def __init__(self, *options):
        object.__setattr__(self, "options", tuple(options))

    def describe(self, params: Mapping[str, Any] | None = None) -> str:
        return "one of " + ", ".join(repr(o) for o in self.options)

    def check(self, name: str, value: Any, params: Mapping[str, Any] | None = None) -> str | None:
        if value in self.options and not isinstance(value, bool):
            return None
        return _message(name, value, self.describe())


@dataclass(frozen=True)
class Flag:
    """True or False."""

    def describe(self, params: Mapping[str, Any] | None = None) -> str:
        return "True or False"

    def check(self, name: str, value: Any, params: Mapping[str, Any] | None = None) -> str | None:
        return None if isinstance(value, bool) else _message(name, value, self.describe())


@dataclass(frozen=True)
class Text:
    """Any text."""

    def describe(self, params: Mapping[str, Any] | None = None) -> str:
        return "any text"

    def check(self, name: str, value: Any, params: Mapping[str, Any] | None = None) -> str | None:
        return None if isinstance(value, str) else _message(name, value, self.describe())


def _items(value: Any) -> list | None:
    """The items of comma-separated text or of a list/tuple (None for anything else)."""
    if isinstance(value, str):
        return [s.strip() for s in value.split(",") if s.strip()]
    if isinstance(value, (list, tuple)):
        return list(value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return [value]
    return None


def _count_text(min_items: int) -> str:
    if min_items <= 0:
        return "comma-separated (possibly empty) list of"
    if min_items == 1:
        return "comma-separated list of"
    return f"comma-separated list of at least {min_items}"


class _ListRule:
    """Shared checking of comma-separated lists: each item must pass ``item``.

    The two attributes annotated here are fields of every list rule. This base is not a
    dataclass, so it adds no fields of its own (they would come first in each rule's field order).
    """

    min_items: int
    special: tuple

    def _item_rule(self):  # pragma: no cover - overridden
        raise NotImplementedError

    def _parse(self, text):
        return text

    def _plural(self) -> str:  # pragma: no cover - overridden
        raise NotImplementedError

    def describe(self, params: Mapping[str, Any] | None = None) -> str:
        what = f"a {_count_text(self.min_items)} {self._plural()}"
        if self.special:
            what = " or ".join(repr(s) for s in self.special) + ", or " + what
        return what

    def check(self, name: str, value: Any, params: Mapping[str, Any] | None = None) -> str | None:
        if isinstance(value, str) and value.strip().lower() in self.special:
            return None
        items = _items(value)
        if items is None or len(items) < self.min_items:
            return _message(name, value, self.describe(params))
        rule = self._item_rule()
        for raw in items:
            item = self._parse(raw)
            if item is _BAD or rule.check(name, item, params) is not None:
                return f"parameter {name} = {_show(value)}: item {raw!s} is not {self._item_text(params)}"
        return None

    def _item_text(self, params) -> str:
        return self._item_rule().describe(params)


_BAD = object()


def _parse_real(text):
    if isinstance(text, bool):
        return _BAD
    if isinstance(text, _RealNumber):
        return float(text)
    try:
        return float(str(text))
    except ValueError:
        return _BAD


def _parse_int(text):
    if isinstance(text, bool):
        return _BAD
    if isinstance(text, Integral):
        return int(text)
    try:
        return int(str(text).strip())
    except ValueError:
        return _BAD


@dataclass(frozen=True)
class RealList(_ListRule):
    """Comma-separated numbers, each passing ``Real(low, high, low_open, high_open)``.

    ``special`` lists whole values accepted instead of a list (``"auto"``); ``min_items`` is
    the shortest admissible list.
    """

    low: Bound = None
    high: Bound = None
    low_open: bool = False
    high_open: bool = False
    min_items: int = 1
    special: tuple = ()

    def _item_rule(self):
        return Real(self.low, self.high, self.low_open, self.high_open)

    def _parse(self, text):
        return _parse_real(text)

    def _plural(self) -> str:
        return _interval_text("numbers", self.low, self.high, self.low_open, self.high_open)


@dataclass(frozen=True)
class IntegerList(_ListRule):
    """Comma-separated integers, each in ``[low, high]``."""

    low: Bound = None
    high: Bound = None
    min_items: int = 1
    special: tuple = ()

    def _item_rule(self):
        return Integer(self.low, self.high)

    def _parse(self, text):
        return _parse_int(text)

    def _plural(self) -> str:
        return _interval_text("integers", self.low, self.high, False, False)


@dataclass(frozen=True)
class ChoiceList(_ListRule):
    """Comma-separated names, each one of ``options``."""

    options: tuple = ()
    min_items: int = 1
    special: tuple = ()

    def _item_rule(self):
        return Choice(*self.options)

    def _parse(self, text):
        return str(text).strip()

    def _plural(self) -> str:
        return "names from " + ", ".join(self.options)

    def _item_text(self, params) -> str:
        return "one of " + ", ".join(self.options)


@dataclass(frozen=True)
class ShapeList(_ListRule):
    """Comma-separated shapes ``<log2 n>x<d>`` (``"19x32,17x90"``), each part by its own rule."""

    log2_n: Integer = Integer(1)
    d: Integer = Integer(1)
    min_items: int = 1
    special: tuple = ()

    def _plural(self) -> str:
        return f"shapes <log2 n>x<d> with {self._shape_text()}"

    def _shape_text(self) -> str:
        return f"log2 n {self.log2_n.describe()[len('an integer ') :]} and d {self.d.describe()[len('an integer ') :]}"

    def check(self, name: str, value: Any, params: Mapping[str, Any] | None = None) -> str | None:
        items = _items(value)
        if items is None or len(items) < self.min_items:
            return _message(name, value, self.describe(params))
        for raw in items:
            parts = str(raw).strip().lower().split("x")
            numbers = [_parse_int(p) for p in parts]
            if (
                len(parts) != 2
                or _BAD in numbers
                or self.log2_n.check("log2 n", numbers[0]) is not None
                or self.d.check("d", numbers[1]) is not None
            ):
                return (
                    f"parameter {name} = {_show(value)}: item {raw!s} is not a shape <log2 n>x<d> with "
                    f"{self._shape_text()}"
                )
        return None


def describe_rule(rule) -> str:
    """What ``rule`` allows, in words."""
    return rule.describe()


def check_parameters(
    values: Mapping[str, Any],
    rules: Mapping[str, Any] | None,
    *,
    notebook: str | None = None,
    only: Sequence[str] | None = None,
) -> None:
    """Check every value of ``values`` that has a rule in ``rules``.

    ``values`` should hold all of a run's parameters (defaults updated by the overrides), so
    that bounds naming another parameter resolve; ``only`` restricts the check to some names.

    Raises
    ------
    ParameterError
        One line listing every value that is not admissible, separated by semicolons.
    """
    if not rules:
        return
    names = list(only) if only is not None else list(values)
    problems = [
        msg
        for name in names
        if name in rules and name in values
        for msg in [rules[name].check(name, values[name], values)]
        if msg
    ]
    if problems:
        where = f" (notebook {notebook})" if notebook else ""
        raise ParameterError("; ".join(problems) + where)
