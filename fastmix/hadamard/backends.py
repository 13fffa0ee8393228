"""The Walsh-Hadamard backends: which are installed, and which one ``fwht`` uses.

``"fht-cpu"`` (the compiled SIMD transform of the ``fht-cpu`` wheel), ``"ffht"`` (the pybind11 fork
of FFHT) and ``"numpy"`` (always available). The default is chosen per thread with
``set_backend`` / ``use_backend``, then the environment variable ``FASTMIX_HADAMARD_BACKEND``
(``ENV_VAR``), then the fastest installed backend.
"""

from __future__ import annotations

import os
import threading
from contextlib import contextmanager
from functools import cache

__all__ = ["available_backends", "get_backend", "set_backend", "use_backend"]

ENV_VAR = "FASTMIX_HADAMARD_BACKEND"
_BACKEND_PREFERENCE = ("fht-cpu", "ffht", "numpy")
_state = threading.local()


@cache
def _fht_cpu_module():
    try:
        import fht_cpu  # type: ignore
    except Exception:  # pragma: no cover - depends on the environment
        return None
    return fht_cpu


@cache
def _ffht_module():
    try:
        import ffht  # type: ignore
    except Exception:  # pragma: no cover - depends on the environment
        return None
    if not hasattr(ffht, "fht_"):
        return None
    return ffht


def available_backends() -> tuple[str, ...]:
    """Names of the Walsh-Hadamard backends that can run in this environment."""
    found = []
    if _fht_cpu_module() is not None:
        found.append("fht-cpu")
    if _ffht_module() is not None:
        found.append("ffht")
    found.append("numpy")
    return tuple(found)


def _check_backend_name(name: str) -> str:
    if name not in _BACKEND_PREFERENCE:
        raise ValueError(f"Unknown Hadamard backend {name!r}; choose one of {', '.join(_BACKEND_PREFERENCE)}.")
    if name not in available_backends():
        hint = {
            "fht-cpu": "pip install 'fastmix[fast]' (or pip install fht-cpu)",
            "ffht": "pip install numpy pybind11 && pip install --no-build-isolation ffht-unofficial",
        }.get(name, "")
        raise ValueError(f"Hadamard backend {name!r} is not installed here. Install it with: {hint}.")
    return name


def get_backend() -> str:
    """The backend :func:`fwht` uses when none is passed.

    Order of precedence: :func:`set_backend` / :func:`use_backend` (this thread), then
    the ``FASTMIX_HADAMARD_BACKEND`` environment variable, then the fastest installed
    backend (``fht-cpu`` > ``ffht`` > ``numpy``).
    """
    chosen = getattr(_state, "backend", None)
    if chosen is not None:
        return chosen
    env = os.environ.get(ENV_VAR, "").strip()
    if env:
        return _check_backend_name(env)
    return available_backends()[0]


def set_backend(name: str | None) -> None:
    """Set the default backend for this thread; ``None`` restores automatic choice."""
    _state.backend = None if name is None else _check_backend_name(name)


@contextmanager
def use_backend(name: str):
    """Context manager that switches the default backend temporarily."""
    previous = getattr(_state, "backend", None)
    set_backend(name)
    try:
        yield name
    finally:
        _state.backend = previous
