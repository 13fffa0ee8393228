"""Manifests of the results store: what an entry holds, proven by checksums, and the entry's lock.

Every entry ``results/<notebook>/`` has a ``manifest.json`` beside its tables::

    {"format": 1, "notebook": ..., "hash": "sha256",
     "parameters": {"file": "parameters.json", "sha256": ...},
     "provenance": {"file": "provenance.json", "sha256": ..., "fingerprints": {...}},
     "tables": {"runs": {"file": "runs.csv", "sha256": ..., "rows": ..., "columns": [...], "cells": [...]}}}

Each file's SHA-256 proves its bytes; a table's row count, columns and cell keys say what it holds,
so that an error can name what differs (an extra row, a cell never computed, a cut-off file).
The provenance is referenced by its digest; ``fingerprints`` copies only the few facts an error
names (the fastmix version, the commit, whether the checkout was dirty, whether the entry is
complete, the data files' digests), so that a forged commit or version is reported as such.
The manifest holds no time stamps: rewriting it for unchanged files gives the same bytes.

:class:`Entry` writes an entry's files and its manifest under the entry's lock (``filelock``,
file ``.store__lock`` in the entry's folder, which ``.gitignore`` keeps out of git) and replaces
each file atomically (write a temporary file, then ``os.replace``). A change goes through a
pending manifest (``.manifest__pending.json``): it is written first, then the files, then it
replaces ``manifest.json``; a writer stopped in between leaves files that match the pending
manifest, and the next verification completes the change.

Threat model
------------
The manifest is an unkeyed checksum list, not a signature. It catches accidental edits and
corruption: a value changed by hand or by a tool, rows added, removed or cut off, an emptied or
truncated file, corrupt JSON, a table or cell that the store never wrote, and a provenance file
whose commit or version was rewritten while the manifest was not. It does not stop a deliberate
forger who rewrites the manifest too (anyone who can edit the files can recompute SHA-256);
that would need a signature with a key kept outside the repository, which nobody verifying the
book from a clone could check without trusting that key's holder. Deleting the manifest does
not hide an edit: an entry without one is refused until :func:`adopt_entry` (the
``--write-manifests`` command) is run by hand, and that shows up in ``git diff``. Git history
remains the record of who changed what.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import os
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "ENV_RESULTS_DIR",
    "default_results_dir",
    "write_manifest",
    "verify_entries",
    "MANIFEST_FILE",
    "PARAMETERS_FILE",
    "PROVENANCE_FILE",
    "StoreIntegrityError",
    "recompute_command",
    "adopt_command",
    "write_text_atomic",
    "scan_csv",
    "TableFacts",
    "fingerprints",
    "Entry",
    "adopt_entry",
    "main",
]

ENV_RESULTS_DIR = "FASTMIX_RESULTS_DIR"
MANIFEST_FILE = "manifest.json"
PARAMETERS_FILE = "parameters.json"
PROVENANCE_FILE = "provenance.json"
PENDING_FILE = ".manifest__pending.json"
LOCK_FILE = ".store__lock"
FORMAT = 1
LOCK_TIMEOUT = 600.0


class StoreIntegrityError(ValueError):
    """A results-store entry does not match its manifest (or has none, or a file does not parse)."""


def default_results_dir() -> Path:
    """``$FASTMIX_RESULTS_DIR``, else ``results/`` beside the package (the repository root), else ``./results``."""
    env = os.environ.get(ENV_RESULTS_DIR)
    if env:
        return Path(env)
    beside = Path(__file__).resolve().parent.parent
    if (beside / "notebooks").is_dir():
        return beside / "results"
    return Path.cwd() / "results"


def recompute_command(name: str) -> str:
    """The command that computes ``results/<name>/`` again from scratch."""
    return f".venv/bin/python -m fastmix_companion.run --paper-scale {name} --restart"


def adopt_command(name: str) -> str:
    """The one-time command that writes the manifest of an entry stored before manifests existed."""
    return f".venv/bin/python -m fastmix_companion.store --write-manifests {name}"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write_text_atomic(path: Path, text: str) -> None:
    """Write ``text`` to a temporary file beside ``path``, then move it into place (``os.replace``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=path.suffix + ".part", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)  # mkstemp makes the file private; a results file is for everyone to read
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


@dataclass(frozen=True)
class TableFacts:
    """What a table file holds, read field by field: rows, header, cell keys, and what is wrong."""

    rows: int
    columns: tuple[str, ...]
    cells: tuple[str, ...]
    problems: tuple[str, ...]


def scan_csv(data: bytes, *, limit: int = 3) -> TableFacts:
    """Read a stored table strictly: every row has the header's number of fields, and a ``cell`` key.

    A missing field is a problem here, where ``pandas.read_csv`` would fill in NaN; a file whose
    last line has no line end was cut off (the store always ends a table with one).
    """
    if not data:
        return TableFacts(0, (), (), ("the file is empty (0 bytes)",))
    problems: list[str] = []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return TableFacts(0, (), (), (f"it is not UTF-8 text ({exc})",))
    if not text.endswith("\n"):
        problems.append("its last line has no line end: the file was cut off")
    reader = csv.reader(io.StringIO(text, newline=""))
    rows, cells, bad = 0, set(), 0
    header: list[str] = []
    try:
        header = next(reader, [])
        if "cell" not in header:
            problems.append("its header has no 'cell' column")
        ci = header.index("cell") if "cell" in header else None
        for row in reader:
            rows += 1
            if len(row) != len(header):
                bad += 1
                if bad <= limit:
                    problems.append(
                        f"line {reader.line_num} has {len(row)} field(s) where the header has {len(header)}"
                    )
            elif ci is not None:
                if row[ci] == "":
                    problems.append(f"line {reader.line_num} has an empty cell key")
                cells.add(row[ci])
    except csv.Error as exc:
        problems.append(f"it is not valid CSV ({exc})")
    if bad > limit:
        problems.append(f"{bad} rows in all have the wrong number of fields")
    return TableFacts(rows, tuple(header), tuple(sorted(cells)), tuple(problems))


def fingerprints(record: Mapping[str, Any]) -> dict[str, Any]:
    """The provenance facts the manifest repeats so that an error can say which one was changed."""
    git = record.get("git") or {}
    sources = {}
    for i, source in enumerate(record.get("data_sources") or []):
        if isinstance(source, Mapping):
            sources[str(source.get("name", i))] = source.get("sha256")
    return {
        "fastmix_version": record.get("fastmix_version"),
        "git_commit": git.get("commit") if isinstance(git, Mapping) else None,
        "git_dirty": git.get("dirty") if isinstance(git, Mapping) else None,
        "complete": bool(record.get("complete")),
        "data_sources": sources,
    }


def _parse_json(path: Path, data: bytes) -> Any:
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise StoreIntegrityError(
            f"{path} is not valid JSON ({exc}). Recompute the entry with `{recompute_command(path.parent.name)}`."
        ) from None


def _table_record(file: str, data: bytes) -> dict[str, Any]:
    facts = scan_csv(data)
    if facts.problems:
        raise StoreIntegrityError(f"refusing to store {file}: " + "; ".join(facts.problems))
    return {
        "file": file,
        "sha256": sha256(data),
        "rows": facts.rows,
        "columns": list(facts.columns),
        "cells": list(facts.cells),
    }


def _json_record(file: str, data: bytes) -> dict[str, Any]:
    out: dict[str, Any] = {"file": file, "sha256": sha256(data)}
    if file == PROVENANCE_FILE:
        out["fingerprints"] = fingerprints(json.loads(data.decode("utf-8")))
    return out


def _dump(manifest: Mapping[str, Any]) -> str:
    return json.dumps(manifest, indent=1, sort_keys=True) + "\n"


def _shown(values: Iterable[str], n: int = 5) -> str:
    values = list(values)
    more = f" and {len(values) - n} more" if len(values) > n else ""
    return ", ".join(repr(v) for v in values[:n]) + more


def _table_files(folder: Path) -> dict[str, Path]:
    if not folder.is_dir():
        return {}
    return {p.stem: p for p in folder.glob("*.csv") if not p.name.startswith(".")}


_LOCKS: dict[str, Any] = {}


class Entry:
    """One entry's files, its manifest and its lock (used by :class:`fastmix_companion.store.ResultsStore`).

    Parameters
    ----------
    folder : path
        ``results/<name>/``.
    name : str
        The notebook's name, for the messages.
    """

    def __init__(self, folder: Path, name: str):
        self.folder = Path(folder)
        self.name = name
        self._snapshot: tuple | None = None
        self._manifest: dict[str, Any] | None = None

    # ------------------------------------------------------------------ lock
    def _filelock(self):
        from filelock import FileLock

        key = str((self.folder / LOCK_FILE).resolve())
        if key not in _LOCKS:
            _LOCKS[key] = FileLock(key, timeout=LOCK_TIMEOUT)
        return _LOCKS[key]

    @contextmanager
    def locked(self, *, create: bool = True) -> Iterator[None]:
        """Hold the entry's lock (reentrant within a thread); a reader in a read-only folder goes without."""
        from filelock import Timeout

        if not create and not self.folder.is_dir():
            yield
            return
        if create:
            self.folder.mkdir(parents=True, exist_ok=True)
        lock = self._filelock()
        try:
            lock.acquire()
        except Timeout:
            raise TimeoutError(
                f"{self.folder / LOCK_FILE} has been held by another writer for {LOCK_TIMEOUT:.0f} s; "
                "is another run of this entry still going?"
            ) from None
        except OSError:
            if create:
                raise
            yield  # read-only checkout: nobody can be writing
            return
        try:
            yield
        finally:
            lock.release()

    # ------------------------------------------------------------------ verification
    def _stat_snapshot(self) -> tuple:
        if not self.folder.is_dir():
            return ()
        out = []
        for p in sorted(self.folder.iterdir()):
            if p.name.startswith(".") and p.name != PENDING_FILE:
                continue
            try:
                st = p.stat()
            except FileNotFoundError:
                continue
            out.append((p.name, st.st_mtime_ns, st.st_size, st.st_ino))
        return tuple(out)

    def problems(self, manifest: Mapping[str, Any]) -> list[str]:
        """What differs between the folder and ``manifest``: one line per file, naming it."""
        out: list[str] = []
        for key, file in (("parameters", PARAMETERS_FILE), ("provenance", PROVENANCE_FILE)):
            path, record = self.folder / file, manifest.get(key)
            if record is None:
                if path.exists():
                    out.append(f"{path}: not in the manifest (the store never recorded it)")
                continue
            if not path.is_file():
                out.append(f"{path}: missing (the manifest records it)")
                continue
            data = path.read_bytes()
            if sha256(data) == record.get("sha256"):
                continue
            try:
                parsed = json.loads(data.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                out.append(f"{path}: not valid JSON ({exc})")
                continue
            what = "its contents were edited"
            if key == "provenance" and isinstance(parsed, Mapping):
                now, then = fingerprints(parsed), record.get("fingerprints") or {}
                changed = [
                    f"{k} is {now.get(k)!r} where the manifest records {then.get(k)!r}"
                    for k in sorted(then)
                    if now.get(k) != then.get(k)
                ]
                if changed:
                    what = "; ".join(changed)
            out.append(f"{path}: {what} (SHA-256 {sha256(data)[:12]}..., the manifest records {record.get('sha256')})")
        tables = manifest.get("tables") or {}
        on_disk = _table_files(self.folder)
        for extra in sorted(set(on_disk) - set(tables)):
            out.append(f"{on_disk[extra]}: a table the store never wrote (not in the manifest)")
        for table, record in sorted(tables.items()):
            path = self.folder / record.get("file", f"{table}.csv")
            if not path.is_file():
                out.append(f"{path}: missing (the manifest records {record.get('rows')} rows)")
                continue
            data = path.read_bytes()
            if sha256(data) == record.get("sha256"):
                continue
            facts = scan_csv(data)
            found = list(facts.problems)
            if facts.columns and list(facts.columns) != record.get("columns"):
                found.append(f"its columns are {list(facts.columns)}, the manifest records {record.get('columns')}")
            if facts.rows != record.get("rows"):
                found.append(f"it has {facts.rows} rows where the manifest records {record.get('rows')}")
            extra_cells = sorted(set(facts.cells) - set(record.get("cells", [])))
            lost_cells = sorted(set(record.get("cells", [])) - set(facts.cells))
            if extra_cells and not facts.problems:
                found.append(f"it holds cell(s) the store never computed: {_shown(extra_cells)}")
            if lost_cells and not facts.problems:
                found.append(f"cell(s) {_shown(lost_cells)} are gone")
            if not found:
                found.append("a value was changed")
            out.append(
                f"{path}: "
                + "; ".join(found)
                + f" (SHA-256 {sha256(data)[:12]}..., the manifest records {record.get('sha256')})"
            )
        return out

    def _error(self, problems: list[str]) -> StoreIntegrityError:
        lines = "\n".join(f"  - {p}" for p in problems)
        return StoreIntegrityError(
            f"The results store entry {self.folder} does not match its manifest "
            f"({self.folder / MANIFEST_FILE}):\n{lines}\n"
            f"Its numbers cannot be trusted. Recompute the entry with `{recompute_command(self.name)}` "
            f"(or, if the change was an accident, restore the committed files with `git checkout -- {self.folder}`)."
        )

    def _read_manifest(self, path: Path) -> dict[str, Any]:
        manifest = _parse_json(path, path.read_bytes())
        if not isinstance(manifest, dict) or manifest.get("format") != FORMAT or "tables" not in manifest:
            raise StoreIntegrityError(
                f"{path} is not a manifest of format {FORMAT}; recompute the entry with "
                f"`{recompute_command(self.name)}`."
            )
        return manifest

    def verify(self) -> dict[str, Any]:
        """The entry's manifest, after checking every file against it (skipped while no file changed).

        Raises
        ------
        StoreIntegrityError
            With one message that names each file that differs, what differs, and the command that
            recomputes the entry; or, without a manifest, the command that adopts the entry.
        """
        snapshot = self._stat_snapshot()
        if self._manifest is not None and snapshot == self._snapshot:
            return self._manifest
        with self.locked(create=False):
            manifest_path, pending_path = self.folder / MANIFEST_FILE, self.folder / PENDING_FILE
            pending = self._read_manifest(pending_path) if pending_path.is_file() else None
            if not manifest_path.is_file():
                if pending is not None and not self.problems(pending):
                    os.replace(pending_path, manifest_path)  # a writer stopped before its last step
                    return self.verify()
                raise StoreIntegrityError(
                    f"The results store entry {self.folder} has no {MANIFEST_FILE}, so nothing proves what it "
                    f"holds. If it was written before manifests existed, check it against git "
                    f"(`git status` / `git diff` of the folder) and adopt it once with `{adopt_command(self.name)}`; "
                    f"otherwise recompute it with `{recompute_command(self.name)}`."
                )
            manifest = self._read_manifest(manifest_path)
            problems = self.problems(manifest)
            if pending is not None:
                if problems and not self.problems(pending):
                    os.replace(pending_path, manifest_path)  # files written, manifest not yet moved
                    manifest, problems = pending, []
                elif not problems:
                    pending_path.unlink()  # stopped before writing any file
            if problems:
                raise self._error(problems)
            self._manifest, self._snapshot = manifest, self._stat_snapshot()
            return manifest

    def table_bytes(self, table: str) -> tuple[bytes, dict[str, Any]]:
        """The bytes of ``table`` as verified against the manifest, and its manifest record."""
        with self.locked(create=False):
            manifest = self.verify()
            record = manifest["tables"].get(table)
            if record is None:
                raise KeyError(table)
            data = (self.folder / record["file"]).read_bytes()
        if sha256(data) != record["sha256"]:  # changed since verify(): check everything again
            self._manifest = None
            return self.table_bytes(table)
        return data, record

    # ------------------------------------------------------------------ writing
    def commit(
        self,
        *,
        tables: Mapping[str, str | None] | None = None,
        parameters: str | None = None,
        provenance: str | None = None,
        drop_provenance: bool = False,
        fresh: bool = False,
    ) -> None:
        """Write files and the manifest that proves them (the caller holds :meth:`locked`).

        ``tables`` maps a table to its CSV text (``None`` deletes it). ``fresh`` starts from an
        empty manifest and deletes every table not written now (a new or restarted entry);
        otherwise the current manifest must verify first.
        """
        tables = dict(tables or {})
        if fresh:
            manifest: dict[str, Any] = {
                "format": FORMAT,
                "notebook": self.name,
                "hash": "sha256",
                "parameters": None,
                "provenance": None,
                "tables": {},
            }
            tables = {**dict.fromkeys(_table_files(self.folder)), **tables}
            drop_provenance = drop_provenance or provenance is None
        else:
            manifest = json.loads(json.dumps(self.verify()))
        writes: list[tuple[Path, str | None]] = []
        for table, text in tables.items():
            file = f"{table}.csv"
            if text is None:
                manifest["tables"].pop(table, None)
            else:
                manifest["tables"][table] = _table_record(file, text.encode("utf-8"))
            writes.append((self.folder / file, text))
        for key, file, text in (
            ("parameters", PARAMETERS_FILE, parameters),
            ("provenance", PROVENANCE_FILE, provenance),
        ):
            if text is not None:
                manifest[key] = _json_record(file, text.encode("utf-8"))
                writes.append((self.folder / file, text))
        if drop_provenance and provenance is None:
            manifest["provenance"] = None
            writes.append((self.folder / PROVENANCE_FILE, None))
        pending = self.folder / PENDING_FILE
        write_text_atomic(pending, _dump(manifest))
        for path, text in writes:
            if text is None:
                if path.exists():
                    path.unlink()
            else:
                write_text_atomic(path, text)
        os.replace(pending, self.folder / MANIFEST_FILE)
        self._manifest, self._snapshot = manifest, self._stat_snapshot()


# --------------------------------------------------------------------------- adoption


def adopt_entry(folder: str | os.PathLike, *, partial: bool = False, settle_seconds: float = 0.0) -> dict[str, Any]:
    """Write the manifest of an entry stored before manifests existed, after checking that it parses.

    Refuses (``StoreIntegrityError``) an entry that already has a manifest (verify it instead), one
    whose parameters or provenance are not valid JSON, a table that does not read cleanly
    (:func:`scan_csv`), an unfinished entry unless ``partial``, and an entry whose files changed
    in the last ``settle_seconds`` or while it was read (another run may be writing it). Returns
    the manifest written.
    """
    folder = Path(folder)
    entry = Entry(folder, folder.name)
    where = f"{folder}"
    if (folder / MANIFEST_FILE).is_file():
        raise StoreIntegrityError(f"{where} already has a manifest; it is verified on every read, not adopted again.")
    if not (folder / PARAMETERS_FILE).is_file():
        raise StoreIntegrityError(f"{where} is not a results-store entry (it has no {PARAMETERS_FILE}).")
    with entry.locked():
        before = entry._stat_snapshot()
        newest = max((folder / n).stat().st_mtime for n, *_ in before)
        if time.time() - newest < settle_seconds:
            raise StoreIntegrityError(
                f"{where} changed {time.time() - newest:.0f} s ago; another run may be writing it. "
                f"Adopt it once it has been left alone for {settle_seconds:.0f} s."
            )
        params = _parse_json(folder / PARAMETERS_FILE, (folder / PARAMETERS_FILE).read_bytes())
        if not isinstance(params, dict) or not isinstance(params.get("parameters"), dict):
            raise StoreIntegrityError(f"{folder / PARAMETERS_FILE} holds no 'parameters' mapping.")
        problems = []
        prov_path = folder / PROVENANCE_FILE
        prov = _parse_json(prov_path, prov_path.read_bytes()) if prov_path.is_file() else None
        if not partial:
            if not isinstance(prov, dict):
                problems.append(f"{prov_path}: missing, so the entry is not complete")
            else:
                last = (prov.get("sittings") or [{}])[-1]
                if not prov.get("complete") or not last.get("finished"):
                    problems.append(
                        f"{prov_path}: the entry is not complete (a run is going on or was stopped); "
                        "finish it first, or pass --partial"
                    )
        manifest: dict[str, Any] = {
            "format": FORMAT,
            "notebook": folder.name,
            "hash": "sha256",
            "parameters": _json_record(PARAMETERS_FILE, (folder / PARAMETERS_FILE).read_bytes()),
            "provenance": _json_record(PROVENANCE_FILE, prov_path.read_bytes()) if prov is not None else None,
            "tables": {},
        }
        for table, path in sorted(_table_files(folder).items()):
            data = path.read_bytes()
            facts = scan_csv(data)
            if facts.problems:
                problems.append(f"{path}: " + "; ".join(facts.problems))
            else:
                manifest["tables"][table] = _table_record(path.name, data)
        if problems:
            raise StoreIntegrityError(
                f"{where} cannot be adopted:\n"
                + "\n".join(f"  - {p}" for p in problems)
                + f"\nRecompute it with `{recompute_command(folder.name)}`."
            )
        if entry._stat_snapshot() != before:
            raise StoreIntegrityError(f"{where} changed while it was read; another run is writing it. Try later.")
        write_text_atomic(folder / MANIFEST_FILE, _dump(manifest))
        pending = folder / PENDING_FILE
        if pending.exists():
            pending.unlink()
    return manifest


def write_manifest(
    name: str, root: str | os.PathLike | None = None, *, partial: bool = False, settle_seconds: float = 0.0
) -> dict[str, Any]:
    """Adopt ``results/<name>/``, stored before manifests existed: check it parses, write its manifest.

    Run once per entry, by hand, after checking the entry against git (a manifest written over an
    edited file would vouch for the edit). :func:`adopt_entry` says what is checked; the command
    line is ``python -m fastmix_companion.store --write-manifests [NAME ...]``.
    """
    folder = (Path(root) if root is not None else default_results_dir()) / name
    return adopt_entry(folder, partial=partial, settle_seconds=settle_seconds)


def verify_entries(names: Iterable[str] | None = None, root: str | os.PathLike | None = None) -> list[tuple[str, str]]:
    """``(name, message)`` for each entry that does not match its manifest (or has none); empty when all do.

    ``names`` defaults to every entry of the store; a name without an entry is skipped.
    """
    folder = Path(root) if root is not None else default_results_dir()
    if names is None:
        names = sorted(p.name for p in folder.iterdir() if (p / PARAMETERS_FILE).is_file()) if folder.is_dir() else []
    out = []
    for name in names:
        if not (folder / name / PARAMETERS_FILE).is_file():
            continue
        try:
            Entry(folder / name, name).verify()
        except StoreIntegrityError as exc:
            out.append((name, str(exc)))
    return out


def main(argv: list[str] | None = None) -> int:
    """``python -m fastmix_companion.store --write-manifests [NAME ...]`` or ``--verify [NAME ...]``."""
    parser = argparse.ArgumentParser(
        prog="python -m fastmix_companion.store",
        description="Adopt results-store entries written before manifests existed, or verify entries.",
    )
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write-manifests", action="store_true", help="write the manifest of entries without one")
    mode.add_argument("--verify", action="store_true", help="check every entry against its manifest")
    parser.add_argument("names", nargs="*", help="entries (default: every entry of the store)")
    parser.add_argument("--root", type=Path, default=None, help="the store's folder (default results/)")
    parser.add_argument("--partial", action="store_true", help="also adopt entries whose run is not finished")
    parser.add_argument(
        "--settle", type=float, default=60.0, help="refuse entries changed in the last SECONDS (default 60)"
    )
    args = parser.parse_args(argv)
    root = args.root if args.root is not None else default_results_dir()
    names = args.names or sorted(p.name for p in root.iterdir() if (p / PARAMETERS_FILE).is_file())
    failed = 0
    for name in names:
        folder = root / name
        try:
            if args.write_manifests and not (folder / MANIFEST_FILE).is_file():
                manifest = adopt_entry(folder, partial=args.partial, settle_seconds=args.settle)
                print(f"{name}: manifest written ({len(manifest['tables'])} tables)")
            else:
                Entry(folder, name).verify()
                print(f"{name}: matches its manifest")
        except (StoreIntegrityError, OSError) as exc:
            failed += 1
            print(f"{name}: {exc}", file=sys.stderr)
    return 1 if failed else 0
