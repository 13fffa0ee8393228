"""The on-disk cache of the experiment grid's cells (:func:`fastmix_companion.experiments.run_grid`).

One file per grid cell (all trials of one dataset, method, epsilon and ratio), named by a
SHA-256 of the cell's parameters and of what besides them can change a row
(:func:`cache_key`): a fingerprint of the data (:func:`data_fingerprint`), of the code
(:func:`code_fingerprint`) and of the environment (:func:`environment_fingerprint`). A file is
an envelope holding its key, its number of rows and a digest of the rows besides the rows
themselves; :func:`read_cell` refuses, with a :class:`CacheMismatchWarning`, a file that is not
what its name promises. :func:`write_cell` writes atomically, and :func:`claim_cell` and
:func:`release_cell` keep two runs sharing a folder from computing the same cell. The public
names used by callers are re-exported by :mod:`fastmix_companion.experiments`.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

import numpy as np

__all__ = [
    "CacheMismatchWarning",
    "environment_fingerprint",
    "code_fingerprint",
    "data_fingerprint",
    "cache_key",
    "cache_path",
    "read_cell",
    "write_cell",
    "claim_cell",
    "release_cell",
]


#: Modules and packages (folders, every ``.py`` in them) whose source affects a grid result.
_SOURCES = (
    ("fastmix", "regression"),
    ("fastmix", "_compat.py"),
    ("fastmix", "mechanisms"),
    ("fastmix", "srht.py"),
    ("fastmix", "hadamard"),
    ("fastmix", "accounting"),
    ("fastmix_companion", "experiments.py"),
    ("fastmix_companion", "grid_cache.py"),
    ("fastmix", "_validation.py"),
    ("fastmix", "datasets"),
)
_CACHE_FORMAT = "fastmix-grid-cell/2"


class CacheMismatchWarning(UserWarning):
    """A cache file that does not hold what its name promises; it is recomputed."""


def environment_fingerprint() -> dict:
    """What besides the code can change a cached row: library versions, the transform backend,
    the thread pools and the machine (every row holds a runtime)."""
    import platform

    import scipy
    from threadpoolctl import threadpool_info

    from fastmix import hadamard

    pools = sorted((p.get("user_api"), p.get("internal_api"), p.get("num_threads")) for p in threadpool_info())
    try:
        import pandas

        pandas_version = pandas.__version__
    except Exception:  # pragma: no cover
        pandas_version = None
    backend = getattr(hadamard, "get_backend", lambda: None)()
    return {
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "pandas": pandas_version,
        "hadamard_backend": str(backend),
        "threads": pools,
        "env_threads": {k: os.environ.get(k) for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")},
        "machine": [platform.machine(), platform.processor(), platform.node(), os.cpu_count()],
    }


def code_fingerprint() -> str:
    """SHA-256 (first 16 hex digits) of the sources of every module that affects a grid result."""
    h = hashlib.sha256()
    for label, path in _source_files():
        h.update(label.encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def _package_dirs() -> dict[str, Path]:
    import fastmix

    return {"fastmix": Path(fastmix.__file__).resolve().parent, "fastmix_companion": Path(__file__).resolve().parent}


def _source_files() -> list[tuple[str, Path]]:
    """``(label, path)`` of the files :func:`code_fingerprint` hashes, in a fixed order.

    The label is the path inside its package (``"regression/fast_hessian_mixing.py"``,
    ``"experiments.py"``), so moving the companion's modules out of the library did not change
    the fingerprint of unchanged code. A listed source that is gone is an error.
    """
    dirs = _package_dirs()
    files: list[tuple[str, Path]] = []
    for package, name in _SOURCES:
        base = dirs[package]
        p = base / name
        if p.is_dir():
            files.extend((q.relative_to(base).as_posix(), q) for q in sorted(p.rglob("*.py")))
        elif p.is_file():
            files.append((name, p))
        else:  # a moved module would otherwise stop invalidating the cache without a word
            raise RuntimeError(f"code_fingerprint: {package}/{name} no longer exists; update _SOURCES in {__file__}")
    return files


def data_fingerprint(X, y) -> str:
    """SHA-256 (first 16 hex digits) of the shape and bytes of (X, y) as float64."""
    h = hashlib.sha256()
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    h.update(repr((X.shape, y.shape)).encode())
    h.update(np.ascontiguousarray(X).tobytes())
    h.update(np.ascontiguousarray(y).tobytes())
    return h.hexdigest()[:16]


def cache_key(obj) -> str:
    """SHA-256 (first 24 hex digits) of ``obj`` as sorted JSON: the name of a cell's cache file."""
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=str).encode()).hexdigest()[:24]


def cache_path(cache_dir: Path, key: str) -> Path:
    """The cache file of the cell whose key is ``key``."""
    return cache_dir / f"{key}.pkl"


def _rows_digest(df) -> str:
    import pandas as pd

    return hashlib.sha256(
        pd.util.hash_pandas_object(df, index=True).to_numpy().tobytes() + repr(list(df.columns)).encode()
    ).hexdigest()


def read_cell(path: Path, key: str, n_rows: int):
    """The rows cached for ``key``, or None (missing, or not what it should be: warned)."""
    import pickle
    import warnings

    if not path.exists():
        return None
    problem = None
    try:
        with open(path, "rb") as fh:
            env = pickle.load(fh)
    except Exception as exc:
        env, problem = None, f"unreadable ({type(exc).__name__})"
    if problem is None:
        if not isinstance(env, dict) or env.get("format") != _CACHE_FORMAT or "frame" not in env:
            problem = "not a fastmix grid-cell file"
        elif env.get("key") != key:
            problem = "it holds another cell"
        else:
            df = env["frame"]
            if not hasattr(df, "columns") or len(df) != n_rows or env.get("n_rows") != n_rows:
                problem = f"expected {n_rows} rows, found {len(df) if hasattr(df, '__len__') else '?'}"
            elif "trial" not in df.columns or df["trial"].tolist() != list(range(n_rows)):
                problem = "its trials are not 0..n-1 in order"
            elif _rows_digest(df) != env.get("sha256"):
                problem = "its rows do not match their digest"
    if problem is not None:
        warnings.warn(f"cache file {path.name} ignored and recomputed: {problem}.", CacheMismatchWarning, stacklevel=3)
        return None
    return env["frame"]


def write_cell(df, path: Path, key: str) -> None:
    """Write the rows of a cell with their key, count and digest, atomically.

    The file is written under a temporary name and moved into place with :func:`os.replace`,
    so an interrupted run leaves no partial file.
    """
    import pickle

    path.parent.mkdir(parents=True, exist_ok=True)
    env = {"format": _CACHE_FORMAT, "key": key, "n_rows": len(df), "sha256": _rows_digest(df), "frame": df}
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=path.suffix, dir=path.parent)
    os.close(fd)
    try:
        with open(tmp, "wb") as fh:
            pickle.dump(env, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # pragma: no cover - alive, owned by someone else
        return True
    return True


def claim_cell(path: Path) -> bool:
    """Claim the cell whose cache file is ``path``; False if another live process holds it."""
    import socket

    claim = path.with_suffix(".claim")
    claim.parent.mkdir(parents=True, exist_ok=True)
    me = f"{socket.gethostname()} {os.getpid()}"
    for _ in range(2):
        try:
            fd = os.open(claim, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            try:
                host, pid = claim.read_text().split()
            except (OSError, ValueError):
                host, pid = "", "0"
            if host == socket.gethostname() and not _pid_alive(int(pid)):
                claim.unlink(missing_ok=True)  # its process died: take the cell over
                continue
            return False
        with os.fdopen(fd, "w") as fh:
            fh.write(me)
        return True
    return False


def release_cell(path: Path) -> None:
    """Give up the claim of :func:`claim_cell` on the cell whose cache file is ``path``."""
    path.with_suffix(".claim").unlink(missing_ok=True)
