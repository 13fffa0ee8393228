"""The machine a results-store sitting ran on: thread settings, load average and hypervisor steal time.

Each sitting of a store entry (:class:`fastmix_companion.store.ResultsStore`) records these
beside its timings, so that a page can say how loaded the machine was; the store re-exports them.
"""

from __future__ import annotations

import os
from typing import Any

__all__ = ["thread_settings", "machine_load", "steal_seconds"]


def thread_settings() -> dict[str, Any]:
    """BLAS/OpenMP thread counts in effect (threadpoolctl) and the thread environment variables."""
    env = {
        k: os.environ.get(k)
        for k in (
            "OMP_NUM_THREADS",
            "OPENBLAS_NUM_THREADS",
            "MKL_NUM_THREADS",
            "FHT_NUM_THREADS",
            "FASTMIX_HADAMARD_BACKEND",
        )
    }
    pools: list[dict[str, Any]] = []
    try:
        from threadpoolctl import threadpool_info

        for info in threadpool_info():
            pools.append(
                {
                    "user_api": info.get("user_api"),
                    "internal_api": info.get("internal_api"),
                    "num_threads": info.get("num_threads"),
                }
            )
    except Exception:  # threadpoolctl missing: record the environment only
        pools = []
    return {"environment": {k: v for k, v in env.items() if v is not None}, "pools": pools}


def machine_load() -> list[float] | None:
    """The 1, 5 and 15 minute load averages (``None`` where the platform has none)."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None


def steal_seconds(path: str = "/proc/stat") -> float:
    """CPU time the hypervisor gave to other guests since boot, summed over this machine's CPUs.

    On a virtual machine, a timed solve whose wall time includes steal time ran slower than the
    code is; each sitting of a results-store entry and each cell of the timed studies record the
    difference of two readings beside the load average. Read from the ``steal`` field (the eighth
    value, in clock ticks) of the aggregate ``cpu`` line of ``/proc/stat``; ``nan`` where that file
    or field does not exist.
    """
    try:
        with open(path, encoding="ascii") as f:
            fields = f.readline().split()
        ticks = float(os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, AttributeError):
        return float("nan")
    if len(fields) < 9 or fields[0] != "cpu":
        return float("nan")
    try:
        return round(float(fields[8]) / ticks, 2)
    except ValueError:
        return float("nan")
