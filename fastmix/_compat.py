"""Results that replaced a tuple and can still be unpacked as it, with a warning, for one minor version."""

from __future__ import annotations

import warnings


class UnpacksAsTuple:
    """Mixin for a frozen result dataclass that replaced a tuple return value.

    ``a, b = f(...)`` and ``f(...)[i]`` keep working for one minor version and emit a
    :class:`FutureWarning` that names the new usage. A subclass defines ``_legacy_tuple()`` (the
    tuple the function used to return) and ``_new_usage`` (a sentence saying what to write now).
    """

    _new_usage = ""

    def _legacy_tuple(self) -> tuple:  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    def _warned_tuple(self) -> tuple:
        warnings.warn(
            f"{type(self).__name__} replaced the tuple this function used to return; unpacking or indexing it "
            f"is deprecated and stops working in the next minor version. {self._new_usage}",
            FutureWarning,
            stacklevel=3,
        )
        return self._legacy_tuple()

    def __iter__(self):
        """Deprecated: unpack as the former tuple (emits a FutureWarning)."""
        return iter(self._warned_tuple())

    def __getitem__(self, index):
        """Deprecated: index as the former tuple (emits a FutureWarning)."""
        return self._warned_tuple()[index]
