"""The results store: what each notebook's paper-scale run computed, kept in the repository.

Layout, one folder per notebook under ``results/`` (or ``$FASTMIX_RESULTS_DIR``)::

    results/<notebook>/parameters.json   the exact parameters of the run
    results/<notebook>/provenance.json   commit, versions, threads, machine, load, wall time,
                                         data checksums, one record per sitting
    results/<notebook>/<table>.csv       tidy tables, one row per run, with a ``cell`` column
    results/<notebook>/manifest.json     each file's SHA-256, each table's rows and cell keys

A paper-scale run is split into *cells* (for Figure 2: one dataset, method, epsilon and
``k2`` ratio with all its trials). :meth:`ResultsStore.add_cell` appends a finished cell's
rows to its table by rewriting the file atomically, so a run that is stopped loses at most
the cell in progress, and the next sitting (:meth:`ResultsStore.cells_done`) skips every
cell already stored. Finished cells can be committed as they arrive.

The store holds tables, never executed notebooks or images; the book's pages read it and
draw their figures from it. :func:`entry_status` tells whether an entry is missing,
partial or complete, and which fastmix version computed it; :func:`stale_entries` lists
entries computed by an older minor version than the installed one (the release command
refuses to release while there are any).

Every entry proves what it holds with its manifest (:mod:`fastmix_companion.manifest`, which
also states the threat model): :meth:`ResultsStore.load`, :meth:`ResultsStore.table`,
:meth:`ResultsStore.cells_done` and :func:`entry_status` check each file against it and raise
:class:`StoreIntegrityError` for an edited, truncated or added file, corrupt JSON or a forged
provenance, and for an entry without a manifest (adopt one written before manifests existed
with ``python -m fastmix_companion.store --write-manifests NAME``, :func:`write_manifest`).
Every write takes the entry's lock (``filelock``) and replaces files atomically, so concurrent
runs of the same entry never lose or duplicate a cell.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import os
import platform
import time
from collections.abc import Iterable, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastmix_companion.machine import machine_load, steal_seconds, thread_settings
from fastmix_companion.manifest import (
    ENV_RESULTS_DIR,
    MANIFEST_FILE,
    PARAMETERS_FILE,
    PROVENANCE_FILE,
    Entry,
    StoreIntegrityError,
    default_results_dir,
    verify_entries,
    write_manifest,
)

__all__ = [
    "ENV_RESULTS_DIR",
    "default_results_dir",
    "ResultsStore",
    "StoredParametersDiffer",
    "EntryStatus",
    "entry_status",
    "stale_entries",
    "thread_settings",
    "machine_load",
    "steal_seconds",
    "parameters_differ",
    "entry_markdown",
    "StoreIntegrityError",
    "write_manifest",
    "verify_entries",
    "MANIFEST_FILE",
]


def _jsonable(value: Any) -> Any:
    from fastmix_companion.provenance import jsonable as convert

    return convert(value)


def _canonical(params: Mapping[str, Any]) -> dict[str, Any]:
    """Parameters as JSON would store them (tuples become lists, NumPy scalars numbers)."""
    return json.loads(json.dumps(_jsonable(dict(params)), sort_keys=True))


def parameters_differ(stored: Mapping[str, Any], expected: Mapping[str, Any]) -> dict[str, tuple[Any, Any]]:
    """``{name: (stored, expected)}`` for every name whose value differs (missing counts as ``None``).

    Numbers compare by value (``1`` equals ``1.0``); strings, lists and dicts compare exactly.
    """
    a, b = _canonical(stored), _canonical(expected)
    out = {}
    for key in sorted(set(a) | set(b)):
        va, vb = a.get(key), b.get(key)
        same = va == vb
        if not same and isinstance(va, (int, float)) and isinstance(vb, (int, float)):
            same = float(va) == float(vb)
        if not same:
            out[key] = (va, vb)
    return out


class StoredParametersDiffer(ValueError):
    """A run asked to resume a store entry that was computed with other parameters."""


class ResultsStore:
    """One notebook's entry in the results store (``results/<name>/``).

    Parameters
    ----------
    name : str
        The notebook's name (``figure2_dp_ols``).
    root : str or path, optional
        The store's folder; default :func:`default_results_dir`.

    Examples
    --------
    >>> store = ResultsStore("figure2_dp_ols", root=tmp)                   # doctest: +SKIP
    >>> with store.sitting({"trials": 30}) as s:                           # doctest: +SKIP
    ...     for key in keys:
    ...         if key not in s.cells_done("runs"):
    ...             s.add_cell("runs", key, compute(key))
    """

    def __init__(self, name: str, root: str | os.PathLike | None = None):
        if not isinstance(name, str) or not name or "/" in name or name.startswith("."):
            raise ValueError(f"A store entry is named after its notebook, like 'figure2_dp_ols'; got {name!r}.")
        self.name = name
        self.root = Path(root) if root is not None else default_results_dir()
        self._seen: dict[str, set[str]] = {}
        self._cells_this_sitting = 0
        self._entry = Entry(self.path, name)

    # ------------------------------------------------------------------ reading
    @property
    def path(self) -> Path:
        return self.root / self.name

    def exists(self) -> bool:
        """True when the entry has its parameters file (a run was started)."""
        return (self.path / PARAMETERS_FILE).is_file()

    def _json(self, file: str) -> Any:
        p = self.path / file
        if not p.is_file():
            return None
        try:
            return json.loads(p.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise StoreIntegrityError(
                f"{p} is not valid JSON ({exc}). Recompute the entry with "
                f"`.venv/bin/python -m fastmix_companion.run --paper-scale {self.name} --restart`."
            ) from None

    def parameters(self) -> dict[str, Any] | None:
        """The stored parameters, or ``None`` when the entry does not exist."""
        record = self._json(PARAMETERS_FILE)
        return None if record is None else record["parameters"]

    def provenance(self) -> dict[str, Any] | None:
        """The stored provenance record, or ``None`` before the first sitting."""
        return self._json(PROVENANCE_FILE)

    def verify(self) -> dict[str, Any]:
        """Check every file of the entry against its manifest and return the manifest.

        Raises :class:`StoreIntegrityError` (one message: each file that differs, what differs,
        and the command that recomputes the entry). Repeated calls re-read only changed files.
        """
        return self._entry.verify()

    def tables(self) -> list[str]:
        """Names of the stored tables (their CSV files without the suffix)."""
        if not self.path.is_dir():
            return []
        return sorted(p.stem for p in self.path.glob("*.csv") if not p.name.startswith("."))

    def table(self, table: str):
        """The stored table as a :class:`pandas.DataFrame`, read after checking it against the manifest.

        Raises
        ------
        FileNotFoundError
            If the table does not exist; the message gives the command that computes it.
        StoreIntegrityError
            If the entry does not match its manifest.
        """
        import io

        import pandas as pd

        p = self.path / f"{table}.csv"
        if not self.exists() or not p.is_file():
            raise FileNotFoundError(
                f"The results store has no table {table!r} for {self.name} (looked for {p}). "
                f"Compute it with: .venv/bin/python -m fastmix_companion.run --paper-scale {self.name}"
            )
        data, record = self._entry.table_bytes(table)
        frame = pd.read_csv(io.BytesIO(data))
        if len(frame) != record["rows"] or list(frame.columns) != record["columns"]:
            raise StoreIntegrityError(f"{p} reads as {len(frame)} rows where its manifest records {record['rows']}.")
        return frame

    def load(self, *required: str) -> dict | None:
        """Every stored table by name, or ``None`` while the entry or one of ``required`` is missing.

        A page calls this once for its paper-scale section and draws nothing when it gets ``None``
        (the note from :func:`entry_markdown` then says what to run). The entry is verified against
        its manifest first (:class:`StoreIntegrityError` if anything differs).
        """
        if not self.exists():
            return None
        names = sorted(self.verify()["tables"])
        if any(t not in names for t in required):
            return None
        return {t: self.table(t) for t in names}

    def _stored_cells(self, table: str) -> set[str]:
        if not self.exists():
            return set()
        record = self.verify()["tables"].get(table)
        return set(record["cells"]) if record else set()

    def cells_done(self, table: str) -> set[str]:
        """Keys of the cells of ``table`` already stored (by this run or another), checked against the manifest."""
        self._seen[table] = self._stored_cells(table)
        return set(self._seen[table])

    # ------------------------------------------------------------------ writing
    @staticmethod
    def _csv(frame) -> str:
        return frame.to_csv(index=False, float_format="%.10g", lineterminator="\n")

    def start(self, parameters: Mapping[str, Any], *, restart: bool = False) -> None:
        """Record the run's parameters, or check them against those of the stored run.

        Resuming is only allowed with the same parameters: a stored entry whose parameters
        differ raises unless ``restart=True``, which deletes its tables first.
        """
        params = _canonical(parameters)
        with self._entry.locked():
            stored = self.parameters()
            if stored is not None and not restart:
                self.verify()  # resume only an entry that is what its manifest says
                diff = parameters_differ(stored, params)
                if diff:
                    lines = ", ".join(
                        f"{k}: stored {a!r}, requested {b!r}" for k, a, b in ((k, *v) for k, v in diff.items())
                    )
                    raise StoredParametersDiffer(
                        f"The results store already holds {self.name} with other parameters ({lines}). "
                        "Resume with the stored parameters, or pass --restart to discard the stored results."
                    )
            if stored is None or restart:
                self._seen.clear()
                text = json.dumps({"notebook": self.name, "parameters": params}, indent=2, sort_keys=True) + "\n"
                self._entry.commit(parameters=text, fresh=True)  # deletes the tables and provenance

    def add_cell(self, table: str, cell: str, rows) -> bool:
        """Append one finished cell's rows (a DataFrame or a list of dicts) to ``table``.

        Under the entry's lock, the table is read back (checked against the manifest), the rows
        appended, and the file and the manifest replaced atomically, so a stopped run never leaves
        a half-written table and concurrent runs never lose a cell. A cell this store already
        reported stored (:meth:`cells_done`) raises (compute each once); a cell that another run
        stored meanwhile is kept as that run stored it, and ``False`` is returned. Returns ``True``
        when the rows were stored.
        """
        import pandas as pd

        if not self.exists():
            raise RuntimeError(f"Call start(parameters) before adding results to {self.name}.")
        cell = str(cell)
        if table not in self._seen:
            self.cells_done(table)
        if cell in self._seen[table]:
            raise ValueError(f"Cell {cell!r} of table {table!r} is already stored for {self.name}.")
        frame = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(list(rows))
        if frame.empty:
            raise ValueError(f"Cell {cell!r} of {self.name}/{table} has no rows; a cell must store what it computed.")
        frame = frame.copy()
        frame.insert(0, "cell", cell)
        with self._entry.locked():
            if cell in self._stored_cells(table):
                self._seen[table].add(cell)
                return False  # another run stored it while this one computed it
            if table in self.verify()["tables"]:
                frame = pd.concat([self.table(table), frame], ignore_index=True, sort=False)
            self._entry.commit(tables={table: self._csv(frame)})
            self._seen[table].add(cell)
            self._cells_this_sitting += 1
            self._update_progress()
        return True

    def put_table(self, table: str, frame) -> None:
        """Store a whole table at once (for small derived tables computed in one go)."""
        if not self.exists():
            raise RuntimeError(f"Call start(parameters) before adding results to {self.name}.")
        frame = frame.copy()
        if "cell" not in frame.columns:
            frame.insert(0, "cell", "all")
        with self._entry.locked():
            self._entry.commit(tables={table: self._csv(frame)})
            self._seen.pop(table, None)
            self._cells_this_sitting += 1
            self._update_progress()

    def supersede_cells(self, table: str, cells: Iterable[str], reason: str) -> int:
        """Remove stored cells of ``table`` so the next sitting computes them again, recording why.

        The removed rows are not lost from the record: ``provenance.json`` gains an entry under
        ``superseded_cells`` with the cells, the commit that had computed them, the reason and the
        rows themselves, and the entry is marked not complete, so the next run recomputes just those
        cells (:func:`entry_markdown` says on the page that cells were recomputed, and why).
        Returns the number of rows removed.
        """
        cells = [str(c) for c in cells]
        if not reason or not reason.strip():
            raise ValueError("say why the cells are computed again: the reason is part of the record.")
        with self._entry.locked():
            frame = self.table(table)
            missing = sorted(set(cells) - set(frame["cell"].astype(str)))
            if missing:
                raise ValueError(
                    f"{self.name}/{table} stores no cell {missing[0]!r}; stored: {sorted(set(frame['cell']))}."
                )
            gone = frame["cell"].astype(str).isin(cells)
            record = self.provenance() or {}
            record.setdefault("superseded_cells", []).append(
                {
                    "table": table,
                    "cells": cells,
                    "computed_at": record.get("git", {}).get("commit"),
                    "superseded_at": _dt.datetime.now(tz=_dt.timezone.utc).isoformat(timespec="seconds"),
                    "reason": reason.strip(),
                    "rows": json.loads(frame[gone].to_json(orient="records")),
                }
            )
            record["complete"] = False
            self._entry.commit(tables={table: self._csv(frame[~gone])}, provenance=json.dumps(record, indent=2) + "\n")
            self._seen.pop(table, None)
        return int(gone.sum())

    @contextmanager
    def sitting(
        self,
        parameters: Mapping[str, Any],
        *,
        restart: bool = False,
        data_sources: Iterable[Any] = (),
        extra: Mapping[str, Any] | None = None,
    ):
        """Start (or resume) the run, yield the store, and record this sitting's provenance.

        The sitting is recorded when it starts and updated after every stored cell, so an
        interrupted run still says when it ran, on what, and how far it got
        (``"finished": false``); :meth:`mark_complete` sets ``complete``. A sitting on a complete
        entry that computes nothing (reading the stored cells back) leaves the record as it was.
        """
        self.start(parameters, restart=restart)
        before = self.path / PROVENANCE_FILE
        with self._entry.locked():
            self.verify()
            kept = before.read_text(encoding="utf-8") if before.is_file() else None
        was_complete = bool((self.provenance() or {}).get("complete"))
        self._started = time.time()
        self._load_before = machine_load()
        self._steal_before = steal_seconds()
        self._cells_this_sitting = 0
        self._data_sources = list(data_sources)
        self._record_sitting(finished=False, extra=extra or {}, new=True)
        finished = False
        try:
            yield self
            finished = True
        finally:
            if was_complete and not self._cells_this_sitting and kept is not None:
                with self._entry.locked():  # nothing computed: not a sitting of the record
                    self._entry.commit(provenance=kept)
            else:
                self._record_sitting(finished=finished, extra=extra or {}, new=False)

    def add_data_sources(self, sources: Iterable[Any]) -> None:
        """Data sources (Dataset objects, files or mappings) to record in the provenance."""
        self._data_sources = list(getattr(self, "_data_sources", [])) + list(sources)

    def _write_provenance(self, record: Mapping[str, Any]) -> None:
        with self._entry.locked():
            self._entry.commit(provenance=json.dumps(_jsonable(dict(record)), indent=2) + "\n")

    def _update_progress(self) -> None:
        """After a stored cell: bring the current sitting's time and cell count up to date (under the lock)."""
        record = self.provenance()
        index = getattr(self, "_sitting_index", None)
        if not record or index is None or index >= len(record.get("sittings") or []):
            return
        last = record["sittings"][index]
        last["finished_at"] = _dt.datetime.now(tz=_dt.timezone.utc).isoformat(timespec="seconds")
        last["seconds"] = round(time.time() - self._started, 1)
        last["cells_computed"] = self._cells_this_sitting
        last.update(self._steal_record(False))
        record["wall_time_seconds"] = round(sum(s["seconds"] for s in record["sittings"]), 1)
        record["complete"] = False
        self._write_provenance(record)

    def _steal_record(self, new: bool) -> dict[str, float]:
        """``steal_seconds``: CPU seconds a hypervisor took from the machine during the sitting (where known)."""
        before = getattr(self, "_steal_before", float("nan"))
        stolen = 0.0 if new else steal_seconds() - before
        return {} if math.isnan(stolen) else {"steal_seconds": round(stolen, 2)}

    def _record_sitting(self, *, finished: bool, extra: Mapping[str, Any], new: bool) -> None:
        from fastmix_companion.provenance import collect_provenance

        base = collect_provenance(self.parameters(), seed=(self.parameters() or {}).get("seed"))
        if new or not hasattr(self, "_base_at_start"):
            # the code a sitting runs is the code it imported when it started: keep that commit,
            # even if the checkout moves on while it runs (the end's commit is noted beside it)
            self._base_at_start = base
        start = self._base_at_start
        with self._entry.locked():  # read, change and write the record as one step
            self.verify()
            self._record_sitting_locked(base, start, finished=finished, extra=extra, new=new)

    def _record_sitting_locked(self, base, start, *, finished: bool, extra: Mapping[str, Any], new: bool) -> None:
        from fastmix_companion.provenance import describe_source

        record = self.provenance() or {}
        sittings = list(record.get("sittings", []))
        index = getattr(self, "_sitting_index", None)
        if new or index is None or index >= len(sittings):
            index = self._sitting_index = len(sittings)
            sittings.append({})
        now = _dt.datetime.now(tz=_dt.timezone.utc)
        sittings[index] = {
            "started_at": _dt.datetime.fromtimestamp(self._started, tz=_dt.timezone.utc).isoformat(timespec="seconds"),
            "finished_at": now.isoformat(timespec="seconds"),
            "seconds": round(time.time() - self._started, 1),
            "cells_computed": self._cells_this_sitting,
            "finished": finished,
            "commit": start["git"].get("commit"),
            "dirty": start["git"].get("dirty"),
            **(
                {"commit_at_end": base["git"].get("commit"), "dirty_at_end": base["git"].get("dirty")}
                if not new and base["git"] != start["git"]
                else {}
            ),
            "fastmix_version": start["fastmix_version"],
            "load_before": self._load_before,
            "load_after": None if new else machine_load(),
            **self._steal_record(new),
            "threads": thread_settings(),
            "host": platform.node(),
        }
        sources = {s.get("name", str(i)): s for i, s in enumerate(record.get("data_sources", []))}
        for item in getattr(self, "_data_sources", []):
            desc = describe_source(item)
            sources[desc.get("name", str(len(sources)))] = desc
        record.update(
            {
                "notebook": self.name,
                "fastmix_version": start["fastmix_version"],
                "git": start["git"],
                "python": base["python"],
                "packages": base["packages"],
                "hadamard_backend": base["hadamard_backend"],
                "platform": base["platform"],
                "machine": base["machine"],
                "cpu_count": base["cpu_count"],
                "threads": thread_settings(),
                "data_sources": list(sources.values()),
                "sittings": sittings,
                "wall_time_seconds": round(sum(s["seconds"] for s in sittings), 1),
                "complete": bool(record.get("complete", False)) and not self._cells_this_sitting and finished,
            }
        )
        record.update(_jsonable(dict(extra)))
        self._write_provenance(record)

    def mark_complete(self) -> None:
        """Record that every cell of the run is stored (call after the last sitting); rewrites the manifest."""
        with self._entry.locked():
            self.verify()
            record = self.provenance()
            if record is None:
                raise RuntimeError(f"{self.name} has no provenance yet; run a sitting first.")
            if record.get("complete") and record.get("completed_at"):
                return  # complete already (a sitting that computed nothing): keep when it was completed
            record["complete"] = True
            record["completed_at"] = _dt.datetime.now(tz=_dt.timezone.utc).isoformat(timespec="seconds")
            self._write_provenance(record)


# --------------------------------------------------------------------------- status


@dataclass(frozen=True)
class EntryStatus:
    """What the store holds for one notebook."""

    name: str
    state: str  # "missing", "partial" or "complete"
    fastmix_version: str | None
    commit: str | None
    tables: tuple[str, ...]
    wall_time_seconds: float | None
    finished_at: str | None

    @property
    def short_commit(self) -> str:
        return (self.commit or "unknown")[:10]

    def describe(self) -> str:
        if self.state == "missing":
            return (
                "no stored results; compute them with: "
                f".venv/bin/python -m fastmix_companion.run --paper-scale {self.name}"
            )
        hours = (self.wall_time_seconds or 0.0) / 3600.0
        return (
            f"{self.state} results computed by fastmix {self.fastmix_version} at commit {self.short_commit}"
            f" (finished {self.finished_at}, {hours:.2f} h of computing)"
        )


def entry_status(name: str, root: str | os.PathLike | None = None, *, verify: bool = True) -> EntryStatus:
    """The state of ``results/<name>/``: missing, partial (a run started) or complete.

    The entry is first checked against its manifest (:class:`StoreIntegrityError` when it does not
    match or has none); ``verify=False`` reads the state without that check.
    """
    store = ResultsStore(name, root)
    if not store.exists():
        return EntryStatus(name, "missing", None, None, (), None, None)
    if verify:
        store.verify()
    prov = store.provenance() or {}
    sittings = prov.get("sittings") or [{}]
    state = "complete" if prov.get("complete") else "partial"
    return EntryStatus(
        name,
        state,
        prov.get("fastmix_version"),
        (prov.get("git") or {}).get("commit"),
        tuple(store.tables()),
        prov.get("wall_time_seconds"),
        sittings[-1].get("finished_at"),
    )


def _minor(version: str | None) -> tuple[int, int] | None:
    if not version:
        return None
    parts = version.split(".")
    try:
        return int(parts[0]), int(parts[1]) if len(parts) > 1 else 0
    except ValueError:
        return None


def stale_entries(
    names: Iterable[str] | None = None, root: str | os.PathLike | None = None, current_version: str | None = None
) -> list[tuple[str, str]]:
    """``(name, reason)`` for each entry computed by an older minor version, or not complete.

    ``names`` defaults to every folder in the store; ``current_version`` to the installed
    ``fastmix.__version__``. This reads the entries' state only; :func:`verify_entries` checks
    them against their manifests.
    """
    from fastmix import __version__

    current = _minor(current_version or __version__)
    folder = Path(root) if root is not None else default_results_dir()
    if names is None:
        names = (
            sorted(p.name for p in folder.iterdir() if p.is_dir() and (p / PARAMETERS_FILE).is_file())
            if folder.is_dir()
            else []
        )
    out = []
    for name in names:
        status = entry_status(name, folder, verify=False)
        if status.state == "missing":
            out.append((name, "missing"))
        elif status.state != "complete":
            out.append((name, "partial: some cells are not computed yet"))
        else:
            got = _minor(status.fastmix_version)
            if got is None or current is None or got < current:
                out.append(
                    (name, f"computed by fastmix {status.fastmix_version}, older than {current_version or __version__}")
                )
    return out


def entry_markdown(name: str, root: str | os.PathLike | None = None) -> str:
    """A short Markdown note for the top of a figure page: what the store holds for ``name``.

    Complete or partial entries give the fastmix version and commit that computed them, the
    date, the computing time and the machine, and say so when that version is an older minor
    version than the installed one; a missing entry says so and gives the command.
    """
    status = entry_status(name, root)
    command = f".venv/bin/python -m fastmix_companion.run --paper-scale {name}"
    if status.state == "missing":
        return (
            f"**No paper-scale results are stored for this page yet.** Compute them with `{command}`; "
            f"they are written to `results/{name}/` and this page reads them on its next build."
        )
    prov = ResultsStore(name, root).provenance()
    if prov is None:
        return (
            f"**A paper-scale run of this page has started but has not recorded its provenance yet**; the "
            f"figures below show the cells stored so far in `results/{name}/`, and `{command}` resumes it."
        )
    sittings = prov.get("sittings", [])
    loads = [s.get(k) for s in sittings for k in ("load_before", "load_after") if s.get(k)]
    loads += [[v] for v in prov.get("cell_loads", []) if isinstance(v, (int, float))]
    load_text = f"; 1-minute load {min(v[0] for v in loads):.2f}-{max(v[0] for v in loads):.2f}" if loads else ""
    stolen = [(s["steal_seconds"], s.get("seconds") or 0.0) for s in sittings if "steal_seconds" in s]
    cpu_seconds = sum(sec for _, sec in stolen) * float(prov.get("cpu_count") or 1)
    if stolen and cpu_seconds > 0:
        share = 100.0 * sum(st for st, _ in stolen) / cpu_seconds
        load_text += f"; hypervisor steal {share:.1f}% of CPU time" + (
            f" over {len(stolen)} of the sittings" if len(stolen) < len(sittings) else ""
        )
    hours = (status.wall_time_seconds or 0.0) / 3600.0
    dirty = [s for s in sittings if s.get("dirty") or s.get("dirty_at_end")] or (
        [prov] if (prov.get("git") or {}).get("dirty") else []
    )
    commit_text = f"commit `{status.short_commit}`" + (
        f" with uncommitted changes to the code in the checkout ({len(dirty)} sitting(s)), so that commit alone "
        "may not reproduce them exactly"
        if dirty
        else ""
    )
    text = (
        f"**Paper-scale results** from `results/{name}/`, computed by fastmix {status.fastmix_version} at "
        f"{commit_text}, finished {status.finished_at}, {hours:.2f} h of computing in "
        f"{len(sittings)} sitting(s) on {prov.get('cpu_count', '?')} cores ({prov.get('machine', '?')}"
        f"{load_text}); they are recomputed by `{command}`."
    )
    if status.state == "partial":
        text += (
            " **The run is not finished:** the figures below show the cells computed so far, and the same "
            "command resumes it."
        )
    superseded = prov.get("superseded_cells") or []
    if superseded:
        text += (
            " **Recomputed cells:** "
            + " ".join(
                f"{len(r.get('cells', []))} cell(s) ({', '.join(r.get('cells', []))}) were computed again: "
                + r.get("reason", "").rstrip(".")
                + "."
                for r in superseded
            )
            + f" The first results are kept in `results/{name}/provenance.json`."
        )
    from fastmix import __version__

    stored, current = _minor(status.fastmix_version), _minor(__version__)
    if stored is not None and current is not None and stored < current:
        text += (
            f" **Computed by an older version:** fastmix {__version__} may draw other random numbers for the "
            f"same seed (see the changelog), so this command recomputes the entry; the stored numbers "
            f"reproduce at {commit_text}."
        )
    return text


# --------------------------------------------------------------------------- manifests


if __name__ == "__main__":
    from fastmix_companion.manifest import main

    raise SystemExit(main())
