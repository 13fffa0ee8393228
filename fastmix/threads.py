"""Thread policy of the sketching hot path (the blocked SRHT passes and the Gaussian step).

A FastMix draw transforms X a few columns at a time (:func:`fastmix.srht.sketch_quantities`),
so every transform call sees a block of about 8 MiB that sits in the last-level cache. Spreading
such a small call over every core gains little and, on a machine whose cores are busy with other
work, costs far more than it gains: the OpenMP threads of ``fht_cpu`` and the BLAS threads wait
for cores that are not free. The package therefore runs the hot path with **one thread** by
default, for both the transform and BLAS:

* :func:`transform_threads` is the ``num_threads`` passed to every ``fht_cpu`` call of the
  package (``1`` unless changed);
* :func:`blas_limit` limits the BLAS thread pools while a hot-path function runs, through
  ``threadpoolctl`` (a dependency of the package).

Whole-batch threading is an explicit choice: ``set_threads(n)`` or ``with use_threads(n):``
(this thread only), or the environment variable ``FASTMIX_THREADS``; ``0`` means "every core"
for the transform and "leave BLAS as configured". The transform of a row is computed the same
way whatever the number of threads; a BLAS product may differ in its last bits, since a
threaded BLAS can sum in another order.
"""

from __future__ import annotations

import os
import threading
from contextlib import contextmanager, nullcontext
from functools import cache

from threadpoolctl import ThreadpoolController

ENV_VAR = "FASTMIX_THREADS"
_state = threading.local()

__all__ = ["get_threads", "set_threads", "use_threads", "transform_threads", "blas_limit", "ENV_VAR"]


def _check_threads(n) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"threads must be an int >= 0 (0 = every core); got {n!r}.")
    return n


def get_threads() -> int:
    """Threads of the hot path: :func:`set_threads` (this thread), else ``FASTMIX_THREADS``, else 1."""
    chosen = getattr(_state, "threads", None)
    if chosen is not None:
        return chosen
    env = os.environ.get(ENV_VAR, "").strip()
    if env:
        try:
            return _check_threads(int(env))
        except ValueError:
            raise ValueError(f"{ENV_VAR} must be an integer >= 0 (0 = every core); got {env!r}.") from None
    return 1


def set_threads(n: int | None) -> None:
    """Set the threads of the hot path for this thread; ``None`` restores the default (1)."""
    _state.threads = None if n is None else _check_threads(n)


@contextmanager
def use_threads(n: int):
    """Context manager that sets :func:`get_threads` temporarily."""
    previous = getattr(_state, "threads", None)
    set_threads(n)
    try:
        yield n
    finally:
        _state.threads = previous


def transform_threads() -> int:
    """``num_threads`` for ``fht_cpu``: the policy's count, ``-1`` (every core) for 0."""
    n = get_threads()
    return -1 if n == 0 else n


@cache
def _controller() -> ThreadpoolController:
    """One controller for the process: it lists the loaded thread pools once."""
    return ThreadpoolController()


def blas_limit():
    """A context that limits the BLAS pools to :func:`get_threads` threads (a no-op for 0, every core)."""
    n = get_threads()
    if n == 0:
        return nullcontext()
    return _controller().limit(limits=n, user_api="blas")
