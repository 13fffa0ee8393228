"""Provenance records for notebooks and scripted runs.

Every notebook in ``notebooks/`` ends with a cell that calls :func:`provenance_report`.
The report says *what* was run (the parameters and the seed), *with what* (the
fastmix version and git commit, the Python and library versions, the active
Walsh-Hadamard backend, the machine) and *on what* (the data sources with their
checksums), plus the wall time since the notebook started. It renders as a table in
a notebook and as aligned text in a terminal.

:func:`collect_provenance` returns the same information as a plain, JSON-serialisable
``dict``; :mod:`fastmix.run` writes that dictionary next to every executed notebook.

Nothing in this module ever raises because some piece of information is missing:
an absent package is reported as ``None`` and an unavailable git commit as
``"unknown"``.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import html
import json
import math
import os
import platform
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping
from importlib import import_module
from pathlib import Path
from typing import Any

__all__ = ["collect_provenance", "provenance_report", "ProvenanceReport", "git_info"]

#: Libraries whose versions are recorded when they can be imported.
RECORDED_PACKAGES = ("numpy", "scipy", "pandas", "matplotlib", "sklearn", "fht_cpu")

_UNKNOWN = "unknown"


# --------------------------------------------------------------------------- helpers


def _package_root() -> Path:
    """Directory that contains the ``fastmix`` package (the repository root in a checkout)."""
    return Path(__file__).resolve().parent.parent


def git_info(path: str | os.PathLike | None = None) -> dict[str, Any]:
    """Commit of the git checkout that contains ``path`` (default: the fastmix package).

    Runs ``git rev-parse HEAD`` and a read-only ``git status`` (with
    ``--no-optional-locks``, so the index is never rewritten). Never raises.

    Returns
    -------
    dict
        ``{"commit": str, "dirty": bool | None, "root": str | None}``; ``dirty`` is true
        when tracked files are modified or files that are not ignored are untracked; ``commit`` is
        ``"unknown"`` and ``dirty`` is ``None`` when git or the repository is unavailable
        (for example in an installed wheel).
    """
    where = Path(path) if path is not None else _package_root()
    info: dict[str, Any] = {"commit": _UNKNOWN, "dirty": None, "root": None}

    def _git(*args: str) -> str | None:
        try:
            done = subprocess.run(
                ["git", "--no-optional-locks", "-C", str(where), *args],
                capture_output=True,
                text=True,
                timeout=10,
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            return None
        if done.returncode != 0:
            return None
        return done.stdout.strip()

    commit = _git("rev-parse", "HEAD")
    if not commit:
        return info
    info["commit"] = commit
    info["root"] = _git("rev-parse", "--show-toplevel")
    status = _git("status", "--porcelain", "--untracked-files=normal")
    info["dirty"] = None if status is None else bool(status)
    return info


#: Distribution names of recorded modules whose import name differs.
_DISTRIBUTIONS = {"sklearn": "scikit-learn", "fht_cpu": "fht-cpu"}


def _package_versions(names: Iterable[str] = RECORDED_PACKAGES) -> dict[str, str | None]:
    """Installed version of each package (``None`` when it is not installed).

    The version comes from the installed distribution's metadata, so nothing heavy is
    imported; a module that is importable without metadata reports its ``__version__``.
    """
    from importlib.metadata import PackageNotFoundError, version as _dist_version

    versions: dict[str, str | None] = {}
    for name in names:
        try:
            versions[name] = _dist_version(_DISTRIBUTIONS.get(name, name))
            continue
        except PackageNotFoundError:
            pass
        except Exception:  # noqa: BLE001 - broken metadata: fall back to importing
            pass
        try:
            module = sys.modules.get(name) or import_module(name)
        except Exception:  # noqa: BLE001 - any import failure means "not available"
            versions[name] = None
            continue
        versions[name] = str(getattr(module, "__version__", _UNKNOWN))
    return versions


def _hadamard_backend() -> str:
    try:
        from fastmix import hadamard

        return str(hadamard.get_backend())
    except Exception as exc:  # noqa: BLE001 - provenance must never fail
        return f"{_UNKNOWN} ({type(exc).__name__}: {exc})"


def _fastmix_version() -> str:
    try:
        import fastmix

        return str(fastmix.__version__)
    except Exception:  # noqa: BLE001
        return _UNKNOWN


def _sha256_file(path: Path, chunk: int = 1 << 20) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(chunk), b""):
            digest.update(block)
    return digest.hexdigest()


def _jsonable(value: Any) -> Any:
    """Convert ``value`` to something :func:`json.dumps` accepts, losing as little as possible."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_jsonable(v) for v in value]
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, (_dt.datetime, _dt.date)):
        return value.isoformat()
    # numpy scalars and small arrays, without importing numpy here
    if hasattr(value, "item") and getattr(value, "shape", None) == ():
        return _jsonable(value.item())
    if hasattr(value, "tolist") and getattr(value, "size", 0) <= 64:
        return _jsonable(value.tolist())
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        return f"<array shape={tuple(value.shape)} dtype={value.dtype}>"
    return repr(value)


def _describe_source(item: Any) -> dict[str, Any]:
    """One data source as ``{"name", "source", "sha256", ...}``.

    Accepts a string (a file path is hashed; any other string is recorded as given),
    a mapping with (some of) those keys, or an object with a ``provenance()`` method
    returning such a mapping.
    """
    if hasattr(item, "provenance") and callable(item.provenance):
        try:
            record = item.provenance()
        except Exception as exc:  # noqa: BLE001
            return {"name": repr(item), "source": None, "sha256": None,
                    "error": f"{type(exc).__name__}: {exc}"}
        return _describe_source(record) if isinstance(record, Mapping) else {
            "name": repr(item), "source": _jsonable(record), "sha256": None}
    if isinstance(item, Mapping):
        record = {str(k): _jsonable(v) for k, v in item.items()}
        record.setdefault("name", record.get("source"))
        record.setdefault("source", None)
        record.setdefault("sha256", None)
        return record
    if isinstance(item, (str, os.PathLike)):
        text = os.fspath(item)
        record: dict[str, Any] = {"name": text, "source": text, "sha256": None}
        try:
            path = Path(text)
            if path.is_file():
                record["name"] = path.name
                record["source"] = str(path.resolve())
                record["sha256"] = _sha256_file(path)
        except (OSError, ValueError):
            pass
        return record
    return {"name": repr(item), "source": None, "sha256": None}


def _as_datetime(started_at: Any) -> _dt.datetime | None:
    if started_at is None:
        return None
    if isinstance(started_at, _dt.datetime):
        if started_at.tzinfo is None:
            started_at = started_at.astimezone()  # naive means local time
        return started_at.astimezone(_dt.timezone.utc)
    if isinstance(started_at, (int, float)) and not isinstance(started_at, bool):
        return _dt.datetime.fromtimestamp(float(started_at), tz=_dt.timezone.utc)
    raise TypeError(
        "started_at must be None, a datetime, or seconds since the epoch from time.time(); "
        f"got {type(started_at).__name__}."
    )


# --------------------------------------------------------------------------- public API


def collect_provenance(
    parameters: Mapping[str, Any] | None = None,
    *,
    seed: Any = None,
    data_sources: Iterable[Any] = (),
    started_at: _dt.datetime | float | None = None,
) -> dict[str, Any]:
    """Collect the provenance of a run as a JSON-serialisable dictionary.

    Parameters
    ----------
    parameters : mapping, optional
        The run's parameters (typically the notebook's ``parameters`` cell). Values that
        JSON cannot store are converted (NumPy scalars to numbers, small arrays to lists,
        anything else to its ``repr``).
    seed : int or None, default=None
        The seed that drives every random draw of the run.
    data_sources : iterable, default=()
        Each item is a string (an existing file is hashed with SHA-256; any other string,
        such as a URL or a package data set name, is recorded as given), a mapping with
        keys ``name``, ``source``, ``sha256``, or an object with a ``provenance()`` method
        that returns such a mapping.
    started_at : datetime or float, optional
        When the run started, as a :class:`datetime.datetime` or as ``time.time()``
        seconds. If given, the wall time up to now is recorded.

    Returns
    -------
    dict
        Keys: ``parameters``, ``seed``, ``fastmix_version``, ``git`` (``commit``,
        ``dirty``, ``root``), ``python``, ``packages`` (version or ``None`` when not
        importable), ``hadamard_backend``, ``platform``, ``machine``, ``cpu_count``,
        ``data_sources`` (list of dicts), ``started_at``, ``finished_at`` (ISO 8601, UTC)
        and ``wall_time_seconds`` (``None`` without ``started_at``).
    """
    finished = _dt.datetime.now(tz=_dt.timezone.utc)
    start = _as_datetime(started_at)
    if isinstance(data_sources, (str, os.PathLike, Mapping)):
        data_sources = [data_sources]
    return {
        "parameters": _jsonable(dict(parameters or {})),
        "seed": _jsonable(seed),
        "fastmix_version": _fastmix_version(),
        "git": git_info(),
        "python": platform.python_version(),
        "python_implementation": platform.python_implementation(),
        "packages": _package_versions(),
        "hadamard_backend": _hadamard_backend(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "data_sources": [_describe_source(item) for item in data_sources],
        "started_at": None if start is None else start.isoformat(timespec="seconds"),
        "finished_at": finished.isoformat(timespec="seconds"),
        "wall_time_seconds": None if start is None else round((finished - start).total_seconds(), 3),
    }


def _flatten(record: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The rows shown by :class:`ProvenanceReport`: (field, value) pairs as text."""
    rows: list[tuple[str, str]] = []
    for name, value in record["parameters"].items():
        rows.append((f"parameter: {name}", json.dumps(value) if not isinstance(value, str) else value))
    rows.append(("seed", str(record["seed"])))
    git = record["git"]
    commit = git["commit"]
    if git.get("dirty"):
        commit += " (uncommitted changes)"
    rows.append(("fastmix", f"{record['fastmix_version']}, commit {commit}"))
    rows.append(("python", f"{record['python']} ({record['python_implementation']})"))
    for name, version in record["packages"].items():
        if version is not None:
            rows.append((name, version))
    rows.append(("Hadamard backend", record["hadamard_backend"]))
    rows.append(("platform", f"{record['platform']}, {record['cpu_count']} CPUs"))
    for source in record["data_sources"]:
        sha = source.get("sha256")
        text = str(source.get("source"))
        if sha:
            text += f" (sha256 {sha[:16]}...)"
        rows.append((f"data: {source.get('name')}", text))
    if record["wall_time_seconds"] is not None:
        rows.append(("wall time", f"{record['wall_time_seconds']:.1f} s"))
    rows.append(("finished at", record["finished_at"]))
    return rows


class ProvenanceReport:
    """Provenance of a run, displayed as a two-column table.

    Build it with :func:`provenance_report`. ``report.data`` is the dictionary from
    :func:`collect_provenance`; ``str(report)`` is a plain-text table and the HTML
    representation is used by Jupyter and by the book.
    """

    def __init__(self, data: Mapping[str, Any]):
        self.data = dict(data)

    def rows(self) -> list[tuple[str, str]]:
        """The displayed (field, value) rows."""
        return _flatten(self.data)

    def to_dict(self) -> dict[str, Any]:
        """A copy of the underlying JSON-serialisable dictionary."""
        return json.loads(self.to_json())

    def to_json(self, **kwargs: Any) -> str:
        """The provenance as a JSON string (``kwargs`` go to :func:`json.dumps`)."""
        kwargs.setdefault("indent", 2)
        return json.dumps(self.data, **kwargs)

    def save(self, path: str | os.PathLike) -> Path:
        """Write the JSON form to ``path`` and return the path."""
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(self.to_json() + "\n", encoding="utf-8")
        return target

    def to_frame(self):
        """The displayed rows as a :class:`pandas.DataFrame` (requires pandas)."""
        import pandas as pd

        rows = self.rows()
        return pd.DataFrame({"value": [v for _, v in rows]}, index=[k for k, _ in rows])

    def __str__(self) -> str:
        rows = self.rows()
        width = max(len(k) for k, _ in rows)
        lines = ["Provenance"] + [f"  {k.ljust(width)}  {v}" for k, v in rows]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"ProvenanceReport(commit={self.data['git']['commit']!r}, seed={self.data['seed']!r})"

    def _repr_html_(self) -> str:
        body = "".join(
            f"<tr><th style='text-align:left'>{html.escape(k)}</th>"
            f"<td style='text-align:left'><code>{html.escape(v)}</code></td></tr>"
            for k, v in self.rows()
        )
        return (
            "<table class='fastmix-provenance'>"
            "<caption style='text-align:left'>Provenance</caption>"
            f"<tbody>{body}</tbody></table>"
        )


def provenance_report(
    parameters: Mapping[str, Any] | None = None,
    *,
    seed: Any = None,
    data_sources: Iterable[Any] = (),
    started_at: _dt.datetime | float | None = None,
) -> ProvenanceReport:
    """Provenance of a notebook run, for display as the notebook's last cell.

    Takes the same arguments as :func:`collect_provenance` and wraps its dictionary in a
    :class:`ProvenanceReport`, which Jupyter (and the book) renders as a table.

    Examples
    --------
    >>> import time
    >>> from fastmix.provenance import provenance_report
    >>> started_at = time.time()
    >>> report = provenance_report({"n": 1024}, seed=0, started_at=started_at)
    >>> report.data["parameters"]
    {'n': 1024}
    """
    return ProvenanceReport(
        collect_provenance(parameters, seed=seed, data_sources=data_sources, started_at=started_at)
    )


def _main() -> None:  # pragma: no cover - convenience: python -m fastmix.provenance
    sys.stdout.write(provenance_report(started_at=time.time()).to_json() + "\n")


if __name__ == "__main__":  # pragma: no cover
    _main()
