"""Build a release of the companion: the book, checked, and a self-contained HTML archive.

Usage (from the repository root, with the book dependencies installed; ``make release`` runs
the same with ``.venv/bin/python``)::

    python tools/release.py               # build the book, check it, write dist/
    python tools/release.py --no-build    # reuse the book already in _build/html

Steps, each of which stops the release when it fails:

0. every results-store entry a page reads is complete and was computed by the released minor
   version (``fastmix.store.stale_entries``; recompute with ``python -m fastmix.run --paper-scale NAME``);
1. the release metadata agree (``tools/citation.py --check``: the version in
   ``fastmix/__init__.py``, ``CITATION.cff``, ``.zenodo.json``, a CHANGELOG section for it,
   the addresses in ``pyproject.toml``, the README's generated BibTeX);
2. the book builds from scratch with warnings as errors (``jupyter-book build . -W -n --keep-going``);
3. its links hold (``tools/check_links.py --sphinx``: internal links and anchors of the
   built HTML, Sphinx linkcheck; external links are listed, not fetched);
4. ``dist/fastmix-book-<version>.zip`` is written: the HTML under one top folder, with
   MathJax inside (it reads offline: unzip, open ``index.html``), plus ``CITATION.cff``,
   ``LICENSE``, ``CHANGELOG.md`` and ``RELEASE.json`` (version, commit, whether the work tree
   had uncommitted changes, the tools' versions). Entries are sorted and time-stamped with
   the commit's date, so the same built HTML gives the same bytes; a ``.sha256`` file
   sits beside the archive.

The version is the package's (single source: ``fastmix.__version__``); to release a new one,
change it there, add its CHANGELOG section, and run ``python tools/citation.py`` to
regenerate the derived metadata.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import check_links  # tools/ is on the path when this runs as `python tools/release.py`
import citation

ROOT = Path(__file__).resolve().parents[1]
ARCHIVE_EXTRAS = ("CITATION.cff", "LICENSE", "CHANGELOG.md")
_ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)  # the earliest time a zip entry can hold


def package_version(root: Path = ROOT) -> str:
    """``__version__`` of ``fastmix/__init__.py``, read without importing the package."""
    version = citation.read_package_version(root, "fastmix")
    if version is None:
        raise SystemExit("fastmix/__init__.py has no __version__ = '...' line")
    return version


def _git(root: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    return done.stdout.strip()


def source_state(root: Path = ROOT) -> dict:
    """Commit, its date and whether tracked files differ from it (``None`` outside git)."""
    commit = _git(root, "rev-parse", "HEAD")
    timestamp = _git(root, "log", "-1", "--format=%ct")
    status = _git(root, "status", "--porcelain", "--untracked-files=no")
    return {
        "commit": commit,
        "commit_time": int(timestamp) if timestamp else None,
        "dirty": bool(status) if status is not None else None,
    }


def _zip_time(epoch: int | None) -> tuple:
    if not epoch:
        return _ZIP_EPOCH
    return max(time.gmtime(epoch)[:6], _ZIP_EPOCH)


def make_archive(html_dir: Path, out: Path, *, version: str, extras: dict[str, Path] | None = None,
                 info: dict | None = None, epoch: int | None = None) -> Path:
    """Zip ``html_dir`` into ``out`` under the folder ``fastmix-book-<version>/``.

    ``extras`` maps archive names to files added beside the HTML; ``info`` is written as
    ``RELEASE.json``. Entries are sorted and all carry the time ``epoch`` (or 1980-01-01),
    so equal inputs give byte-identical archives.
    """
    html_dir = Path(html_dir)
    if not (html_dir / "index.html").is_file():
        raise SystemExit(f"no built book at {html_dir} (index.html missing)")
    top = f"fastmix-book-{version}"
    stamp = _zip_time(epoch)
    out.parent.mkdir(parents=True, exist_ok=True)
    files = sorted(p for p in html_dir.rglob("*") if p.is_file() and p.name != ".buildinfo")
    tmp = out.with_suffix(out.suffix + ".part")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        def add(name: str, data: bytes) -> None:
            entry = zipfile.ZipInfo(f"{top}/{name}", date_time=stamp)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16
            archive.writestr(entry, data)

        for path in files:
            add(path.relative_to(html_dir).as_posix(), path.read_bytes())
        for name, path in sorted((extras or {}).items()):
            add(name, Path(path).read_bytes())
        if info is not None:
            add("RELEASE.json", (json.dumps(info, indent=2, sort_keys=True) + "\n").encode())
    tmp.replace(out)
    digest = hashlib.sha256(out.read_bytes()).hexdigest()
    out.with_name(out.name + ".sha256").write_text(f"{digest}  {out.name}\n", encoding="utf-8")
    return out


def _tool_versions() -> dict:
    from importlib import metadata

    versions = {"python": sys.version.split()[0]}
    for dist in ("jupyter-book", "sphinx", "myst-nb", "sphinx-book-theme", "django-static-mathjax", "numpy", "scipy"):
        try:
            versions[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            pass
    return versions


def stale_store_entries(root: Path = ROOT, results: Path | None = None) -> list[tuple[str, str]]:
    """``(name, reason)`` for each notebook with a paper-scale study whose store entry is missing,
    partial, or computed by an older minor version than the one being released."""
    sys.path.insert(0, str(root))
    try:
        from fastmix.store import stale_entries
        from fastmix.studies import STUDIES
    finally:
        sys.path.pop(0)
    folder = results if results is not None else root / "results"
    return stale_entries(sorted(STUDIES), root=folder, current_version=package_version(root))


def _step(title: str) -> None:
    print(f"\n== {title}", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-build", action="store_true", help="reuse the book in _build/html instead of rebuilding")
    parser.add_argument("--dist", type=Path, default=ROOT / "dist", help="output folder (default dist/)")
    parser.add_argument("--allow-dirty", action="store_true",
                        help="release from a work tree with uncommitted changes (recorded in RELEASE.json)")
    args = parser.parse_args(argv)

    version = package_version()
    state = source_state()
    print(f"fastmix {version} at commit {state['commit'] or '(not a git checkout)'}")
    if state["dirty"] and not args.allow_dirty:
        print("error: tracked files have uncommitted changes; commit them, or pass --allow-dirty "
              "(the archive then records dirty: true)", file=sys.stderr)
        return 1

    _step("0/4 results store (results/<notebook>/)")
    stale = stale_store_entries()
    if stale:
        for name, reason in stale:
            print(f"  {name}: {reason}", file=sys.stderr)
        print("error: the results store is not up to date for this version; recompute the entries above with "
              "python -m fastmix.run --paper-scale NAME (add --restart for an entry computed by an older version)",
              file=sys.stderr)
        return 1
    print("  every entry is complete and current")

    _step("1/4 release metadata (tools/citation.py --check)")
    status = citation.main(["--check"])
    if status != 0:
        print("error: release metadata disagree; see above (regenerate with: python tools/citation.py)", file=sys.stderr)
        return status

    html = ROOT / "_build" / "html"
    if args.no_build:
        _step("2/4 book: reusing _build/html (--no-build)")
    else:
        _step("2/4 book: clean build with warnings as errors")
        shutil.rmtree(ROOT / "_build", ignore_errors=True)
        command = [check_links.jupyter_book_executable(), "build", str(ROOT), "-W", "-n", "--keep-going"]
        if subprocess.run(command, cwd=ROOT).returncode != 0:
            print("error: the book did not build", file=sys.stderr)
            return 1

    _step("3/4 links (tools/check_links.py --sphinx)")
    status = check_links.main(["--html", str(html), "--sphinx"])
    if status != 0:
        print("error: broken links; see above", file=sys.stderr)
        return status

    _step("4/4 archive")
    info = {
        "name": "fastmix",
        "version": version,
        **state,
        "built_with": _tool_versions(),
        "contents": "The fastmix companion book as static HTML; open index.html (no network needed).",
    }
    out = make_archive(
        html,
        args.dist / f"fastmix-book-{version}.zip",
        version=version,
        extras={name: ROOT / name for name in ARCHIVE_EXTRAS if (ROOT / name).is_file()},
        info=info,
        epoch=state["commit_time"],
    )
    size = out.stat().st_size / 2**20
    print(f"wrote {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out} ({size:.1f} MiB) and its .sha256")
    return 0


if __name__ == "__main__":
    sys.exit(main())
