"""Checks on the cluster a Dask computation runs on.

fastmix takes every random draw in the client process (the seeds never travel), but the workers run
fastmix's code on their chunks: the signs of the chunked SRHT, the per-chunk statistics. A worker with
another fastmix version could compute something else for the same seed, and the result would differ
silently from the one the same call gives elsewhere. :func:`check_worker_versions` refuses that.
"""

from __future__ import annotations

_CHECKED: dict[str, str] = {}
"""Schedulers whose workers were found on this version (address -> version), so a fit checks once."""


def _worker_version() -> str:
    import fastmix

    return fastmix.__version__


def check_worker_versions() -> None:
    """Raise when a worker of the active ``distributed`` client runs another fastmix version.

    Without ``distributed`` or without an active client (Dask's threads in this process) there is
    nothing to check. The workers are asked once per scheduler and version; a worker that joins later
    is checked when the client changes.
    """
    import fastmix

    try:
        from distributed import default_client
    except ImportError:
        return
    try:
        client = default_client()
    except ValueError:  # no client: the threaded scheduler of this process
        return
    address = str(client.scheduler.address)
    if _CHECKED.get(address) == fastmix.__version__:
        return
    versions = client.run(_worker_version)
    other = {worker: v for worker, v in versions.items() if v != fastmix.__version__}
    if other:
        listed = ", ".join(f"{w} has {v}" for w, v in sorted(other.items())[:5])
        raise RuntimeError(
            f"the Dask workers must run the fastmix version of this process ({fastmix.__version__}): {listed}. "
            "The same seed gives the same release only with the same code on every worker; install "
            f"fastmix=={fastmix.__version__} on the workers (or this version here) and restart them."
        )
    _CHECKED[address] = fastmix.__version__
